"""The ``reproscore`` command line. Each command wraps one function of
:mod:`reproscore.api`; this module only parses arguments and formats output.

Exit status: 0 success; 1 a tree was read but could not be scored (a detector failed),
or (``harvest``, ``run``) a harvest window failed; 2 bad usage, a path that cannot be
read (``score`` reports it, skips it and scores the others first), an invalid rubric or
configuration; 3 another run holds the lock.
"""

from __future__ import annotations

import errno
import json
import logging
import sqlite3
import sys
from datetime import UTC, datetime
from pathlib import Path

import click
import yaml

from scoring import __version__
from scoring.aggregate import IncompleteMeasurements
from scoring.catalog import CATEGORIES
from scoring.ecosystems import Ecosystem
from scoring.frontends import frontend_name
from scoring.rubric import RubricError, list_bundled
from scoring.trees.sources import TreeSourceError
from scoring.trees.swhid import SwhidError

from . import api
from .executors import EXECUTORS, ExecutorError
from .store import DEFAULT_DB, ENV_DB, RESCORE_BATCH, StoreError

EXIT_UNSCORED = 1
EXIT_RUNTIME = 1
EXIT_USAGE = 2
EXIT_LOCKED = 3


def fail(message: str, status: int = EXIT_USAGE) -> None:
    click.echo(f"reproscore: error: {message}", err=True)
    sys.exit(status)


def fail_for(exc: BaseException) -> None:
    """``fail`` with the exit status the error calls for: 1 (runtime) for a full disk or
    a database that broke in use, 2 (usage) for everything a user can correct."""
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        status = EXIT_RUNTIME
    else:
        status = getattr(exc, "exit_status", EXIT_USAGE)
    fail(str(exc).replace("\n", "; "), status)


class _UtcFormatter(logging.Formatter):
    """Log lines as the run's progress lines are written: UTC ISO time first."""

    def formatTime(self, record, datefmt=None):  # noqa: N802 - logging's name
        return datetime.fromtimestamp(record.created, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def configure_logging(verbose: int, quiet: bool) -> None:
    """One stderr handler for the project's loggers (harvester, scoring, exporters,
    reproscore), set up once per invocation: INFO by default, so that retries and
    skipped origins reach a cron job's log; DEBUG with -v; errors only with -q.
    Other libraries' loggers stay at WARNING."""
    level = logging.ERROR if quiet else logging.DEBUG if verbose else logging.INFO
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_UtcFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    for name in ("harvester", "scoring", "exporters", "reproscore"):
        logger = logging.getLogger(name)
        for old in [h for h in logger.handlers if getattr(h, "_reproscore", False)]:
            logger.removeHandler(old)
        handler._reproscore = True  # type: ignore[attr-defined]
        logger.addHandler(handler)
        logger.setLevel(level)
        logger.propagate = False


class ReproscoreGroup(click.Group):
    """Errors of the environment (the database, the disk) end in one line and a
    documented exit status, never a traceback."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except StoreError as exc:
            fail(str(exc).replace("\n", "; "), getattr(exc, "exit_status", EXIT_USAGE))
        except sqlite3.Error as exc:
            fail(f"database error: {exc}; what was stored before is kept, and a run resumes where it stopped", EXIT_RUNTIME)
        except OSError as exc:
            if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
                raise
            where = f" ({exc.filename})" if exc.filename else ""
            fail(f"no space left on the device{where}; free some and run again: a run resumes where it stopped", EXIT_RUNTIME)


@click.group(cls=ReproscoreGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="reproscore")
@click.option("--verbose", "-v", "verbose", count=True, help="Debug messages too (retries, requests, skipped files) on standard error.")
@click.option("--quiet", "-q", "quiet", is_flag=True, default=False, help="Errors only on standard error: no progress lines, no informational messages.")
def cli(verbose: int, quiet: bool) -> None:
    """Score research-software source trees for reproducibility readiness (RRS).

    Every sub-metric is backed by file-and-line evidence and a fix suggestion; every
    score names the rubric (name, version, sha256) that produced it.

    Messages go to standard error, timestamped: harvester retries, skipped origins and
    the progress of a run (INFO by default; -v adds debug messages, -q keeps errors
    only). Exit status: 0 success; 1 a runtime failure (a tree not scored, a harvest
    that failed, a database or disk that is full or broken: one line says which, and
    what was stored is kept); 2 bad usage (an unknown option, a missing path, a --db
    whose folder does not exist or that is not a writable reproscore database, an
    invalid rubric); 3 another run holds the database's lock.
    """
    if verbose and quiet:
        raise click.UsageError("--verbose and --quiet exclude each other")
    configure_logging(verbose, quiet)


RUBRIC_HELP = "Rubric: a bundled name (" + ", ".join(list_bundled()) + ") or a YAML file. Default: default."


@cli.command("score")
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option("--rubric", "rubric", default="default", show_default=True, help=RUBRIC_HELP)
@click.option(
    "--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True,
    help="text: a readable summary; json: the full result (one JSON object per line for several paths).",
)
@click.option("--top", default=5, show_default=True, type=click.IntRange(0), help="How many ranked fixes the text format shows.")
@click.option(
    "--db", "db", envvar=ENV_DB, default=None, metavar="FILE", type=click.Path(dir_okay=False),
    help=f"Also store each snapshot, its measurements with evidence and its score in this SQLite database (created if absent; also ${ENV_DB}). A tree already stored is not measured again, and the facts of a file content already seen (file_facts) are not computed again.",
)
@click.option(
    "--workers", "-j", "workers", default=0, show_default=True, type=click.IntRange(0), metavar="N",
    help="Measure N trees at a time in worker processes (with --executor dask and no --scheduler: a LocalCluster of N workers); 0: one per CPU core (never more than the number of paths). Only this process writes to --db, in batches.",
)
@click.option(
    "--executor", "executor", type=click.Choice(EXECUTORS), default=None,
    help="Where trees are measured: local (worker processes on this machine, the default) or dask (tasks on a Dask distributed cluster, which returns measurements and evidence, never the tree; the paths must be readable by its workers). Needs the dask extra: pip install 'reproscore[dask]'.",
)
@click.option(
    "--scheduler", "scheduler", default=None, metavar="ADDRESS",
    help="The Dask scheduler to use, e.g. tcp://10.0.0.5:8786 (implies --executor dask). Without it, --executor dask starts a LocalCluster here (processes, one thread each, no dashboard).",
)
def score_command(paths: tuple[str, ...], rubric: str, output_format: str, top: int, db: str | None, workers: int, executor: str | None, scheduler: str | None) -> None:
    """Measure each source tree PATH and print its readiness score.

    PATH is a directory, or a zip or tar archive (plain, gzip, bzip2 or xz; recognised
    by its content, not its name) read in place with the harvester's extraction rules:
    the same SWHID, values and evidence as the tree it extracts to, the single top
    folder of a GitHub-style archive stripped. The text format shows the RRS, the
    five-category profile, the penalties, the ecosystems found and the files each
    category's detectors read, and the top fixes ranked by the RRS points they would
    gain. The JSON result includes the snapshot identity (SWHID of the tree, files,
    bytes) and, for every file read, the categories that read it (inventory.read_by).

    A PATH that cannot be read (missing, unreadable, an archive extraction would
    refuse) is reported on one line and skipped; the others are still scored and the
    exit status is 2. With several paths and a terminal on stderr, a progress bar
    shows there.
    """
    try:
        rub = api.load_rubric(rubric)
    except (RubricError, OSError) as exc:
        fail(f"rubric {rubric}: {exc}".replace("\n", "; "))
    if scheduler is not None and executor == "local":
        fail("--scheduler is for --executor dask")
    chosen = "dask" if scheduler is not None else (executor or "local")
    results = api.score_paths(list(paths), rub, db=db, jobs=workers, executor=chosen, scheduler=scheduler)
    unscored = skipped = False
    progress = _Progress(len(paths))
    try:
        with progress:
            while True:
                try:
                    path, scored = next(results)
                except StopIteration:
                    break
                except ExecutorError as exc:
                    progress.fail(str(exc))
                if isinstance(scored, IncompleteMeasurements):
                    progress.echo(f"reproscore: error: {path}: not scored: {scored}", err=True)
                    unscored = True
                elif isinstance(scored, (TreeSourceError, SwhidError)):
                    progress.echo(f"reproscore: error: {_unreadable(path, scored)}", err=True)
                    skipped = True
                elif isinstance(scored, StoreError):
                    progress.fail(str(scored))
                elif isinstance(scored, BaseException):
                    raise scored
                elif output_format == "json":
                    progress.echo(json.dumps(scored.result, ensure_ascii=False, sort_keys=False))
                else:
                    progress.echo(render_text(scored, top) + ("\n" if len(paths) > 1 else ""))
                progress.advance()
    finally:
        results.close()  # commits what is stored so far, stops the workers
    sys.exit(EXIT_USAGE if skipped else EXIT_UNSCORED if unscored else 0)


def _unreadable(path: str, exc: BaseException) -> str:
    """One line naming the path and why it cannot be read."""
    # A TreeSourceError names the tree as it was given (an archive's refusal also names
    # the member and the rule); a SwhidError names the entry inside it.
    message = "; ".join(str(exc).splitlines())
    return message if isinstance(exc, TreeSourceError) else f"{path}: {message}"


class _Progress:
    """A progress bar on stderr for several paths when stderr is a terminal; nothing
    otherwise. Lines printed while it shows are written above it."""

    def __init__(self, total: int) -> None:
        shown = total > 1 and sys.stderr.isatty()
        self._bar = (
            click.progressbar(length=total, label="scoring", file=sys.stderr, show_pos=True, show_eta=False)
            if shown else None
        )

    def __enter__(self) -> _Progress:
        if self._bar is not None:
            self._bar.__enter__()
        return self

    def __exit__(self, *exc_info) -> None:
        if self._bar is not None:
            self._bar.__exit__(*exc_info)

    def echo(self, message: str, *, err: bool = False) -> None:
        if self._bar is not None:
            click.echo("\r\033[K", nl=False, err=True)  # erase the bar; advance() draws it again
        click.echo(message, err=err)

    def fail(self, message: str) -> None:
        self.echo(f"reproscore: error: {message}", err=True)
        sys.exit(EXIT_USAGE)

    def advance(self) -> None:
        if self._bar is not None:
            self._bar.update(1)


def render_text(scored: api.TreeScore, top: int) -> str:
    result = scored.result
    rub = result["rubric"]
    lines = [
        f"{scored.path}",
        f"  RRS {result['rrs']:.2f} / 100   (before clamping {result['rrs_unclamped']:.2f};"
        f" rubric {rub['name']} {rub['version']}, sha256 {rub['sha256'][:12]})",
        *outcome_lines(result),
        "",
        f"  {'category':<30} {'raw':>6} {'points':>7} {'of':>4}",
    ]
    for cat in CATEGORIES:
        data = result["categories"][cat.key]
        gate_note = "  below gate" if data["raw"] < data["tau"] else ""
        lines.append(
            f"  {cat.key} {cat.name:<28} {data['raw']:6.1f} {data['gated']:7.2f} {100 * data['weight']:4.0f}{gate_note}"
        )
    fired = [p for p in result["penalties"] if p["fired"]]
    lines.append("")
    if fired:
        for p in fired:
            lines.append(f"  penalty {p['id']}: -{p['points']:g} ({p['target']} {p['observed']:.1f} < {p['threshold']:g})")
    else:
        lines.append("  no penalty fired")
    inventory = result["inventory"]
    lines.append(
        f"  scanned {inventory['files']} files ({inventory['bytes']} bytes); "
        f"{len(inventory['skipped'])} skipped, {len(inventory['problems'])} with problems"
        + ("; TRUNCATED by limits" if inventory["truncated"] else "")
    )
    snapshot = result.get("snapshot")
    if snapshot:
        lines.append(f"  snapshot {snapshot['swhid']} ({snapshot['files']} files, {snapshot['bytes']} bytes)")
    lines.extend(reading_lines(inventory))
    if top and scored.fixes:
        lines.append("")
        lines.append("  top fixes (RRS points gained if fixed):")
        for fix in scored.fixes[:top]:
            lines.append(f"    +{fix['gain']:5.2f}  {fix['metric_id']:<27} {fix['fix']}")
    return "\n".join(lines)


READ_PATHS_SHOWN = 5


def reading_lines(inventory: dict) -> list[str]:
    """The ecosystems found and the files each category read: why a tree scores as it
    does, at a glance (the JSON result lists every file)."""
    ecosystems = inventory.get("ecosystems") or []
    reads: dict[str, list[str]] = {}
    for path, categories in (inventory.get("read_by") or {}).items():
        for key in categories:
            reads.setdefault(key, []).append(path)
    if not ecosystems and not reads:
        return []
    lines = ["", "  ecosystems: " + ("; ".join(Ecosystem.from_dict(e).describe() for e in ecosystems) or "none found")]
    if reads:
        lines.append("  files read per category (all of them in --format json):")
    for cat in CATEGORIES:
        paths = reads.get(cat.key) or []
        if not paths:
            lines.append(f"    {cat.key}  none")
            continue
        shown = sorted(paths, key=_reading_order)[:READ_PATHS_SHOWN]
        rest = len(paths) - len(shown)
        lines.append(f"    {cat.key} {len(paths):4d}  " + ", ".join(shown) + (f", +{rest} more" if rest else ""))
    return lines


def _reading_order(path: str) -> tuple[int, bool, str]:
    # shallow before deep, and at one depth manifests, documents and configuration
    # before code: what a curator opens first
    return path.count("/"), frontend_name(path) is not None, path


@cli.command("explain")
@click.argument("metric_id")
def explain_command(metric_id: str) -> None:
    """Print the documentation of one detector: what it checks, why it matters, the
    evidence it emits, how to fix, known false positives. METRIC_ID is an id such as
    dep_pinning or a code such as E1."""
    try:
        click.echo(api.explain_metric(metric_id))
    except KeyError:
        fail(f"unknown metric {metric_id!r}; see 'reproscore metrics'")


@cli.command("metrics")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True, help="Output format.")
def metrics_command(output_format: str) -> None:
    """List the 26 sub-metrics with their codes, categories and default weights."""
    rows = api.list_metrics()
    if output_format == "json":
        click.echo(json.dumps(rows, indent=2))
        return
    for row in rows:
        click.echo(f"{row['code']:<3} {row['id']:<28} {row['category']} {row['weight']:.2f}  {row['title']}")


@cli.group("rubric")
def rubric_group() -> None:
    """Validate, show and list scoring rubrics (versioned YAML policies)."""


@rubric_group.command("validate")
@click.argument("file", type=click.Path(dir_okay=False))
def rubric_validate(file: str) -> None:
    """Strictly validate a rubric FILE; on failure, print the offending keys and exit 2."""
    try:
        rub = api.validate_rubric_file(file)
    except FileNotFoundError:
        fail(f"{file}: no such file")
    except (RubricError, OSError, UnicodeDecodeError) as exc:
        click.echo(f"reproscore: invalid rubric {file}:", err=True)
        click.echo(str(exc), err=True)
        sys.exit(EXIT_USAGE)
    note = " (legacy v1 format, mapped)" if rub.legacy else ""
    click.echo(f"{file}: valid rubric {rub.name} {rub.version}{note}, sha256 {rub.sha256}")


@rubric_group.command("show")
@click.argument("name_or_file")
@click.option("--format", "output_format", type=click.Choice(["yaml", "json"]), default="yaml", show_default=True, help="Output format.")
def rubric_show(name_or_file: str, output_format: str) -> None:
    """Print the resolved rubric NAME_OR_FILE (extends applied, defaults filled) with its sha256."""
    try:
        data = api.show_rubric(name_or_file)
    except (RubricError, OSError) as exc:
        fail(f"rubric {name_or_file}: {exc}".replace("\n", "; "))
    if output_format == "json":
        click.echo(json.dumps(data, indent=2))
    else:
        click.echo(yaml.safe_dump(data, sort_keys=False, allow_unicode=True).rstrip())


@rubric_group.command("list")
def rubric_list() -> None:
    """List the bundled rubrics with their versions and hashes."""
    for name in list_bundled():
        rub = api.load_rubric(name)
        click.echo(f"{rub.name:<22} {rub.version:<8} {rub.sha256}")


DB_HELP = f"The SQLite store (also ${ENV_DB})."


def db_option(function):
    return click.option(
        "--db", "db", envvar=ENV_DB, default=DEFAULT_DB, show_default=True, metavar="FILE",
        type=click.Path(dir_okay=False), help=DB_HELP,
    )(function)


@cli.command("rescore")
@db_option
@click.option("--rubric", "rubric", required=True, help="Rubric to score under: a bundled name, a YAML file, or the name (or name@version) of a rubric stored in the database.")
@click.option("--batch-size", default=RESCORE_BATCH, show_default=True, type=click.IntRange(1), help="Snapshots read, scored and written per transaction.")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True, help="text: one summary line; json: the counts as an object.")
def rescore_command(db: str, rubric: str, batch_size: int, output_format: str) -> None:
    """Score every stored snapshot under RUBRIC from stored measurements alone.

    No tree is read or downloaded. Scores already stored are kept, so running it again
    changes nothing. Prints how many snapshots were scored and the time taken.
    """
    try:
        report = api.rescore(db, rubric, batch_size=batch_size)
    except (RubricError, StoreError, OSError) as exc:
        fail_for(exc)
    if output_format == "json":
        click.echo(json.dumps(report.to_dict()))
        return
    rub = report.rubric
    click.echo(
        f"rescored {report.scored} snapshots under {rub['name']} {rub['version']} "
        f"(sha256 {rub['sha256'][:12]}) in {report.seconds:.2f} s "
        f"({report.per_second:,.0f} snapshots/s): {report.inserted} new, "
        f"{report.scored - report.inserted} already stored, {report.incomplete} incomplete"
    )
    for swhid in report.incomplete_swhids:
        click.echo(f"  incomplete (a measurement failed or is missing): {swhid}")


@cli.command("show")
@db_option
@click.argument("reference", metavar="SNAPSHOT_OR_DEPOSIT")
@click.option("--rubric", "rubric", default="default", show_default=True, help="Show the score under this rubric (bundled name, file, or stored name[@version]); a tree not scored under it yet says how to rescore.")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True, help="text: a readable summary; json: the result of `reproscore score --format json`, plus the stored row's provenance under `stored`.")
@click.option("--top", default=5, show_default=True, type=click.IntRange(0), help="How many ranked fixes the text format shows.")
def show_command(db: str, reference: str, rubric: str | None, output_format: str, top: int) -> None:
    """Print the stored score of a snapshot or deposit, with its evidence.

    SNAPSHOT_OR_DEPOSIT is a SWHID (swh:1:dir:...), a unique prefix of its hash, a
    deposit (source:id, version DOI or origin URL) or a local directory.
    """
    try:
        scored = api.show_stored(db, reference, rubric)
    except (RubricError, StoreError, TreeSourceError, SwhidError, OSError) as exc:
        fail_for(exc)
    if output_format == "json":
        click.echo(json.dumps(scored.result, ensure_ascii=False, sort_keys=False))
        return
    click.echo(render_text(scored, top))
    stored = scored.result["stored"]
    click.echo(f"  stored score {stored['score_id']}, computed {stored['computed_at']} by reproscore {stored['scorer_version']}")


@cli.group("db")
def db_group() -> None:
    """Inspect the SQLite store (browse it in Datasette: `reproscore db datasette`)."""


@db_group.command("stats")
@db_option
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True, help="Output format.")
def db_stats_command(db: str, output_format: str) -> None:
    """Print row counts per table, snapshots and deposits per source, and the stored
    rubric versions with their score counts."""
    try:
        stats = api.store_stats(db)
    except StoreError as exc:
        fail(str(exc))
    if output_format == "json":
        click.echo(json.dumps(stats, indent=2))
        return
    click.echo(f"{stats['database']}  (schema: {', '.join(stats['schema'])})")
    click.echo("tables:")
    for name, count in stats["tables"].items():
        click.echo(f"  {name:<20} {count:>10,}")
    for title, key in (("snapshots by source", "snapshots_by_source"), ("deposits by source", "deposits_by_source"), ("failures by stage", "failures_by_stage")):
        counts = stats[key]
        click.echo(f"{title}: " + (", ".join(f"{k} {v:,}" for k, v in counts.items()) or "none"))
    click.echo("rubrics:" + ("" if stats["rubrics"] else " none"))
    for rub in stats["rubrics"]:
        click.echo(f"  {rub['name']:<22} {rub['version']:<8} sha256 {rub['sha256'][:12]}  {rub['scores']:,} scores")


@db_group.command("datasette")
@db_option
@click.option("--metadata", "metadata_out", default=None, metavar="FILE", type=click.Path(dir_okay=False), help="Write the metadata for this database to FILE and use it (default: the bundled metadata.json when the file is named reproscore.db, else NAME.datasette.json beside the database).")
def db_datasette_command(db: str, metadata_out: str | None) -> None:
    """Print the command that opens the store in Datasette with reproscore's metadata:
    table and column descriptions, foreign keys shown as SWHIDs, titles and rubric
    names, and canned queries for the questions of the collection report.

    Datasette keys metadata by the database's file name without its extension; for a
    file not named reproscore.db a copy of the bundled metadata under its name is
    written (see --metadata). The store is opened first (an older schema is upgraded,
    so the views exist); nothing else is changed. Datasette itself is not needed to run
    this: pip install 'reproscore[datasette]' to open the store.
    """
    from pathlib import Path

    from .datasette import datasette_command
    from .store import Store

    try:
        with Store(db, create=False):
            pass
        command, written = datasette_command(db, metadata_out)
    except (StoreError, OSError) as exc:
        fail(str(exc))
    if written is not None:
        click.echo(f"wrote the metadata for database {Path(db).stem!r} to {written}", err=True)
    click.echo(command)


def _finish_run(summary, output_format: str) -> None:
    """Print the results of a harvest or run and exit with its status."""
    if output_format == "json":
        click.echo(json.dumps(summary.to_dict(), ensure_ascii=False))
    else:
        for deposit, stage, reason in summary.failures:
            click.echo(f"failed: {deposit} at {stage}: {reason}")
        click.echo(summary.line())
    sys.exit(0 if summary.ok else 1)


def _call_pipeline(function, *args, **kwargs):
    from .config import ConfigError
    from .pipeline import LockBusy

    try:
        return function(*args, **kwargs)
    except LockBusy as exc:
        fail(str(exc), EXIT_LOCKED)
    except StoreError as exc:
        fail(str(exc).replace("\n", "; "), exc.exit_status)
    except (ConfigError, RubricError, ValueError) as exc:
        fail(str(exc).replace("\n", "; "))


FORMAT_RUN_HELP = "text: failed deposits and one summary line; json: the summary as an object."
CONFIG_HELP = "TOML configuration file (default: $REPROSCORE_CONFIG, else ./reproscore.toml when present; see docs/configuration.md)."


@cli.group("harvest")
def harvest_group() -> None:
    """Harvest deposit metadata from a source into the store (no download)."""


@harvest_group.command("zenodo")
@db_option
@click.option("--from", "start", default=None, metavar="ISO", help="Start of the harvest (UTC ISO 8601). Default: the stored checkpoint (the end of the last completed window).")
@click.option("--until", "until", default=None, metavar="ISO", help="End of the harvest (UTC ISO 8601). Default: zenodo.lag_hours before now.")
@click.option("--limit", default=None, type=click.IntRange(1), metavar="N", help="Stop after the window in which N records were reached (that window is stored in full).")
@click.option("--oai-url", default=None, metavar="URL", help="OAI-PMH endpoint (overrides zenodo.oai_url; default https://zenodo.org/oai2d).")
@click.option("--api-url", default=None, metavar="URL", help="REST API root (overrides zenodo.api_url; default https://zenodo.org/api).")
@click.option("--config", "config", default=None, metavar="FILE", help=CONFIG_HELP)
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True, help=FORMAT_RUN_HELP)
def harvest_zenodo_command(db: str, start: str | None, until: str | None, limit: int | None, oai_url: str | None, api_url: str | None, config: str | None, output_format: str) -> None:
    """Harvest Zenodo's software records (OAI-PMH, oai_datacite) into the store.

    Windows of full UTC timestamps, each stored with its checkpoint in one transaction;
    records are upserted by OAI identifier and datestamp, so a re-run changes nothing.
    Exit status 0 when every window completed, 1 when one failed, 3 when a run holds
    the lock.
    """
    summary = _call_pipeline(api.harvest_zenodo, db, config=config, start=start, until=until, limit=limit, oai_url=oai_url, api_url=api_url)
    _finish_run(summary, output_format)


@harvest_group.command("swh")
@db_option
@click.option("--origins", "origins", default=None, metavar="FILE", type=click.Path(dir_okay=False), help="A watch list: one origin URL per line (# comment lines allowed); each origin's latest visit is stored. Overrides swh.origins_file.")
@click.option("--query", "query", default=None, metavar="QL", help='An extra origin search in the Software Heritage query language, e.g. \'visit_type = [deposit] and metadata : "climate"\'. Overrides swh.query.')
@click.option("--api-url", default=None, metavar="URL", help="Web API root (overrides swh.api_url; default https://archive.softwareheritage.org/api/1/).")
@click.option("--deposits/--no-deposits", "deposits", default=None, help="Search new deposits since the swh checkpoint (default: swh.deposits, on; --origins and --query add to it).")
@click.option("--config", "config", default=None, metavar="FILE", help=CONFIG_HELP)
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True, help=FORMAT_RUN_HELP)
def harvest_swh_command(db: str, origins: str | None, query: str | None, api_url: str | None, deposits: bool | None, config: str | None, output_format: str) -> None:
    """Discover Software Heritage origins and store each one's latest visit.

    Every channel: new deposits (query language, since the checkpoint; off with
    --no-deposits), the extra search (--query, else swh.query), the watch list
    (--origins, else swh.origins_file) and the origins linked from Zenodo records in the
    store. A watched origin unknown to the archive, or with no visit holding a
    snapshot, is recorded in `failures` (stage resolve) each time it is tried.
    Each origin's latest visit with a snapshot is resolved to its root directory SWHID
    and stored (deposit metadata included) with the visit history; nothing is fetched
    or scored until `reproscore run`. A bearer token is read from $SWH_TOKEN (see
    swh.token_env) and never stored or printed. Exit status 0 on success, 1 when the
    discovery failed, 3 when a run holds the lock.
    """
    summary = _call_pipeline(api.harvest_swh, db, config=config, origins=origins, query=query, api_url=api_url, deposits=deposits)
    _finish_run(summary, output_format)


@cli.command("run")
@db_option
@click.option("--config", "config", default=None, metavar="FILE", help=CONFIG_HELP)
@click.option("--keep", is_flag=True, default=False, help="Keep the downloaded and extracted trees in run.work_dir instead of deleting them (implies --extract: `reproscore execute` runs kept trees).")
@click.option("--oai-url", default=None, metavar="URL", help="OAI-PMH endpoint (overrides zenodo.oai_url).")
@click.option("--api-url", default=None, metavar="URL", help="REST API root (overrides zenodo.api_url).")
@click.option("--until", "until", default=None, metavar="ISO", help="End of the harvest (UTC ISO 8601) instead of zenodo.lag_hours before now, e.g. to replay a past period.")
@click.option("--swh-api-url", default=None, metavar="URL", help="Software Heritage Web API root (overrides swh.api_url).")
@click.option("--origins", "origins", default=None, metavar="FILE", type=click.Path(dir_okay=False), help="A Software Heritage watch list (one origin URL per line), added to the deposit search; turns Software Heritage discovery on for this run even when [swh] enabled = false.")
@click.option("--query", "query", default=None, metavar="QL", help="An extra Software Heritage origin search (query language), added to the deposit search; turns Software Heritage discovery on for this run even when [swh] enabled = false.")
@click.option("--workers", "-j", "workers", default=None, type=click.IntRange(0), metavar="N", help="Measure N deposits at a time in worker processes while download threads fetch the next ones (with --executor dask and no --scheduler: a LocalCluster of N workers); 0: one per CPU core. Default: run.workers (1: everything in this process, in order).")
@click.option("--executor", "executor", type=click.Choice(EXECUTORS), default=None, help="Where deposits are fetched and measured: local (this machine) or dask (each deposit one task on a Dask distributed cluster, which fetches and measures it and returns measurements and evidence, never the tree; needs the dask extra). Default: run.executor (local). Only this process writes to --db, in batches of run.batch_size deposits.")
@click.option("--scheduler", "scheduler", default=None, metavar="ADDRESS", help="The Dask scheduler to use, e.g. tcp://10.0.0.5:8786 (implies --executor dask; overrides run.scheduler). Without it, --executor dask starts a LocalCluster here.")
@click.option("--extract", "extract", is_flag=True, default=False, help="Extract each downloaded archive to run.work_dir and measure the extracted tree, instead of reading the archive in place (the default; the same snapshot identity and measurements). --keep extracts too: the execution tier runs kept trees.")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True, help=FORMAT_RUN_HELP)
def run_command(db: str, config: str | None, keep: bool, oai_url: str | None, api_url: str | None, until: str | None, swh_api_url: str | None, origins: str | None, query: str | None, workers: int | None, executor: str | None, scheduler: str | None, extract: bool, output_format: str) -> None:
    """The nightly job: harvest each enabled source since its checkpoint (Zenodo and
    Software Heritage, unless [zenodo] or [swh] says enabled = false), then fetch,
    measure, score and store every new or updated deposit of both sources.

    A Zenodo deposit that is one archive (zip or tar) is measured in place, without
    extracting it (same safety rules, same SWHID); other deposits, and every deposit
    with --extract or --keep, are extracted safely first. A Software Heritage origin's
    root directory is fetched from the vault only when no tree with that SWHID is
    measured yet, and the extracted tree must have that SWHID.

    Trees already measured are not measured again; a deposit that fails (download,
    checksum, hostile archive, ...) is recorded in `failures` and the run goes on.
    With --workers or --executor dask, results are still written in harvest order, by
    this process alone, so the database holds what a sequential run would store.
    Progress bars on a terminal, plain log lines otherwise; one summary line at the
    end. Exit status 0 when every window completed, 1 when the harvest failed, 2 for
    bad usage (e.g. Dask missing), 3 when another run holds the lock.
    """
    summary = _call_pipeline(api.run_nightly, db, config=config, keep=keep, oai_url=oai_url, api_url=api_url, until=until, swh_api_url=swh_api_url, origins=origins, query=query, workers=workers, executor=executor, scheduler=scheduler, extract=extract)
    _finish_run(summary, output_format)


# --------------------------------------------------------------------------- report


@cli.command("report")
@db_option
@click.option("--out", "out", required=True, metavar="DIR", type=click.Path(file_okay=False), help="Folder to write the report into (created if absent): DIR/index.html and DIR/tables/*.csv; CSV files left there by an earlier report are replaced.")
@click.option("--rubric", "rubric", default="default", show_default=True, metavar="NAME|FILE", help="Rubric to score under: a bundled name, a YAML file, or the name (or name@version) of a rubric stored in the database. Stored scores are used; missing ones are computed from the stored measurements.")
@click.option("--compare-rubric", "compare_rubric", default=None, metavar="NAME|FILE", help="A second rubric to compare with: both side by side (weights, gates, penalties, hashes), Spearman and Kendall rank correlation of the two score lists, the deposits that move most and the categories that drive the moves.")
@click.option("--source", "source", default=None, type=click.Choice(["zenodo", "swh", "local"]), help="Only deposits from this source (local: trees scored from a folder with `score --db`).")
@click.option("--community", "community", default=None, metavar="ID", help="Only deposits of this Zenodo community (its id, as in the record's user-* OAI set).")
@click.option("--since", "since", default=None, type=click.DateTime(formats=["%Y-%m-%d"]), metavar="DATE", help="Only deposits processed on or after this night (YYYY-MM-DD, UTC; a deposit's night is the date of the harvest run that processed it), and the runs and versions since then.")
def report_command(db: str, out: str, rubric: str, compare_rubric: str | None, source: str | None, community: str | None, since) -> None:
    """Write the collection audit report: one self-contained HTML page with figures
    (inline SVG) and a CSV file of every table it shows.

    It covers collection size and coverage (harvested, scored, failed by source and
    reason), the RRS distribution, the five-category profile and penalties (also per
    source and per community), the sub-metrics most often failed, the deposits most in
    need of work with their top three fixes, trends per night and across versions, and
    with --compare-rubric a comparison of two rubrics. Each deposit in a table links to
    its own section (profile, evidence, fixes, history). Nothing is fetched and the
    database is not changed; the same database and options give the same files.
    Prints the path of index.html.
    """
    try:
        result = api.collection_report(
            db, out, rubric=rubric, compare_rubric=compare_rubric, source=source,
            community=community, since=None if since is None else since.date().isoformat(),
        )  # fmt: skip
    except (RubricError, StoreError, ValueError, OSError) as exc:
        fail_for(exc)
    click.echo(result.line())
    click.echo(str(result.index))


# --------------------------------------------------------------------------- exports
# `reproscore export rocrate|codemeta|rdf` and `reproscore verify` (see docs/exports.md).

DEPOSIT_HELP = (
    "The deposit: its DOI (10.5281/zenodo.123, doi:..., https://doi.org/...), its Zenodo "
    "record id (123) or record URL, its origin URL (https://github.com/owner/repo) or the "
    "SWHID of its snapshot (swh:1:dir:...)."
)
EXPORT_RUBRIC_HELP = (
    "Export the score under this rubric (a bundled name, a YAML file, or the name[@version] "
    "of a rubric stored in the database). Default: the bundled default rubric; a deposit not "
    "scored under it yet says how to rescore."
)


def _call_export(function, *args, **kwargs):
    from exporters.assessment import ExportError

    from .config import ConfigError

    try:
        return function(*args, **kwargs)
    except (ExportError, RubricError, StoreError, ConfigError, ValueError, OSError) as exc:
        fail_for(exc)


def _echo_export(result: api.ExportResult, what: str) -> None:
    count = len(result.assessments)
    click.echo(f"wrote {what} {result.path}: {count} assessment{'s' if count != 1 else ''}")
    for item in result.assessments:
        rub = item["rubric"]
        click.echo(f"  RRS {item['rrs']:6.2f}  {item['subject']}  (rubric {rub['name']} {rub['version']}, tree {item['swhid']})")


@cli.group("export")
def export_group() -> None:
    """Export stored scores with the policy that produced them: RO-Crate 1.3, CodeMeta
    3.0 or RDF (W3C DQV with PROV).

    Every export names the rubric by its content hash; the RO-Crate and RDF exports
    carry the rubric and the 26 sub-metric values, so `reproscore verify` recomputes
    the score from the export alone. Nothing is fetched: the JSON-LD contexts are
    bundled. Exit status 0 on success, 2 for an unknown deposit, a score that is not
    stored or bad usage.
    """


@export_group.command("rocrate")
@db_option
@click.option("--deposit", "deposit", default=None, metavar="ID", help=DEPOSIT_HELP)
@click.option("--all", "all_deposits", is_flag=True, default=False, help="Export the whole collection: one crate with an entity per scored deposit (its review, rating, category and sub-metric values, scoring action) and every rubric used.")
@click.option("--out", "out", required=True, metavar="PATH", type=click.Path(), help="The crate directory to write (created; a crate written there before is replaced), or with --zip the zip file.")
@click.option("--zip", "zip_file", is_flag=True, default=False, help="Write the crate as one zip file instead of a directory.")
@click.option("--rubric", "rubric", default=None, metavar="NAME|FILE", help=EXPORT_RUBRIC_HELP)
@click.option("--config", "config", default=None, metavar="FILE", help=CONFIG_HELP + " Its [export] section names the publisher.")
def export_rocrate_command(db: str, deposit: str | None, all_deposits: bool, out: str, zip_file: bool, rubric: str | None, config: str | None) -> None:
    """Write the RO-Crate 1.3 assessment package of one deposit (--deposit), or the
    collection crate of every scored deposit (--all).

    A deposit's crate is about the deposit (referenced, not copied); its main entity is
    a Review whose Rating is the RRS; it holds one PropertyValue per category and per
    sub-metric (derived from the evidence files), the rubric YAML (with its sha256 and
    version), the scorer's native JSON report with the evidence, and the scoring
    CreateAction (reproscore and its version, the deposit, the tree and the rubric in,
    the values out). It validates as RO-Crate 1.3 (roc-validator).
    """
    if (deposit is None) == (not all_deposits):
        fail("give either --deposit ID or --all")
    result = _call_export(api.export_rocrate, db, out, deposit=deposit, all_deposits=all_deposits, zip_file=zip_file, rubric=rubric, config=config)
    _echo_export(result, "collection RO-Crate" if all_deposits else "RO-Crate")


@export_group.command("codemeta")
@db_option
@click.option("--deposit", "deposit", required=True, metavar="ID", help=DEPOSIT_HELP)
@click.option("--out", "out", required=True, metavar="FILE", type=click.Path(dir_okay=False), help="The codemeta.json file to write.")
@click.option("--rubric", "rubric", default=None, metavar="NAME|FILE", help=EXPORT_RUBRIC_HELP)
@click.option("--crate-url", "crate_url", default=None, metavar="URL", help="Where the deposit's assessment crate is published, recorded in the review beside the crate's identifier.")
def export_codemeta_command(db: str, deposit: str, out: str, rubric: str | None, crate_url: str | None) -> None:
    """Write the deposit's CodeMeta 3.0 description (codemeta.json) with its score as a
    review: the RRS rating, the category profile, the rubric (name, version, content
    hash) and a reference to the assessment crate.

    The metadata come from the deposit's DataCite record (Zenodo) or its deposit
    metadata (Software Heritage). Terms CodeMeta does not define are written with the
    schema: prefix, so that JSON-LD processing keeps them.
    """
    result = _call_export(api.export_codemeta, db, deposit, out, rubric=rubric, crate_url=crate_url)
    _echo_export(result, "CodeMeta")


# The serialisation each --out extension stands for.
RDF_EXTENSIONS = {
    ".ttl": "turtle", ".turtle": "turtle", ".jsonld": "json-ld", ".nt": "ntriples",
    ".rdf": "rdf-xml", ".xml": "rdf-xml", ".trig": "trig", ".nq": "nquads",
}
RDF_FORMATS = ("turtle", "json-ld", "ntriples", "rdf-xml", "trig", "nquads")


@export_group.command("rdf")
@db_option
@click.option("--deposit", "deposit", default=None, metavar="ID", help=DEPOSIT_HELP + " Default: every scored deposit in the database.")
@click.option("--format", "rdf_format", type=click.Choice(RDF_FORMATS), default=None, help="The RDF serialisation: turtle, json-ld (its context inline), ntriples or rdf-xml (the flat graph), trig or nquads (each deposit's measurements in the named graph of its quality metadata). Default: from the extension of --out (.ttl, .jsonld, .nt, .rdf/.xml, .trig, .nq), else turtle.")
@click.option("--out", "out", required=True, metavar="FILE", type=click.Path(dir_okay=False), help="The RDF file to write.")
@click.option("--rubric", "rubric", default=None, metavar="NAME|FILE", help=EXPORT_RUBRIC_HELP)
def export_rdf_command(db: str, deposit: str | None, rdf_format: str | None, out: str, rubric: str | None) -> None:
    """Write the scores as RDF in the W3C Data Quality Vocabulary with PROV, for one
    deposit or the whole database.

    A dqv:QualityMeasurement per sub-metric, category and RRS (computed on the tree,
    measuring a dqv:Metric of a dqv:Dimension per category, generated by the scoring
    run, derived from the evidence files); the run is a prov:Activity following the
    rubric, a prov:Plan with its checksum and its definition. Each deposit's
    dqv:QualityMetadata links its measurements (dqv:hasQualityMeasurement) and, in TriG
    and N-Quads, is the named graph that holds them. The rs: terms are defined in
    exporters/vocabulary/reproscore.ttl.
    """
    suffix = Path(out).suffix.lower()
    implied = RDF_EXTENSIONS.get(suffix)
    if rdf_format is not None and implied is not None and implied != rdf_format:
        fail(f"--out {out} is {implied} by its extension but --format is {rdf_format}")
    rdf_format = rdf_format or implied or "turtle"
    result = _call_export(api.export_rdf, db, out, deposit=deposit, fmt=rdf_format, rubric=rubric)
    _echo_export(result, f"RDF ({rdf_format})")


@cli.command("verify")
@click.argument("path", metavar="PATH")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True, help="text: one verdict per assessment with the failed checks; json: the verdicts as an object.")
def verify_command(path: str, output_format: str) -> None:
    """Recompute the scores an export states, from the export alone, and check them.

    PATH is an RO-Crate written by `reproscore export rocrate` (a directory or a zip)
    or an RDF file written by `reproscore export rdf` (.ttl, .jsonld, .nt, .rdf/.xml,
    .trig or .nq). For every assessment: the rubric's file hash and content hash, the
    26 sub-metric values, each category score and the RRS recomputed under the rubric
    (and the ROS and RCS when outcome data are present), and the native report against
    the metadata; in TriG and N-Quads, that every measurement is in the named graph of
    its quality metadata. Exit status
    0 when everything agrees, 1 when a check fails (each failure is printed), 2 when
    PATH is not an export.
    """
    from exporters.verify import VerifyError

    try:
        report = api.verify_export(path)
    except (VerifyError, OSError) as exc:
        fail(str(exc))
    if output_format == "json":
        click.echo(json.dumps(report.to_dict(), ensure_ascii=False))
    else:
        count = len(report.assessments)
        verdict = "verified" if report.ok else "verification FAILED"
        click.echo(f"{report.path}: {report.kind}, {count} assessment{'s' if count != 1 else ''}: {verdict}")
        for problem in report.problems:
            click.echo(f"  FAILED  {problem}")
        for item in report.assessments:
            if item.ok:
                click.echo(f"  ok      {item.subject}: RRS {item.recomputed_rrs!r} recomputed under {item.rubric}")
            else:
                click.echo(f"  FAILED  {item.subject}:")
                for problem in item.problems:
                    click.echo(f"            {problem}")
    if not report.ok:
        click.echo(f"reproscore: error: {path}: verification failed", err=True)
    sys.exit(0 if report.ok else EXIT_UNSCORED)


# --------------------------------------------------------------------------- execution tier
# `reproscore execute` and `reproscore outcome import` (docs/execution.md).

PROBE_LABELS = {"I": "I", "X": "X", "delta": "Δ", "N": "N", "E_prime": "E′", "T": "T"}


def outcome_lines(result: dict) -> list[str]:
    """The ROS and RCS lines of a result whose tree has outcome components."""
    ros = result.get("ros")
    if not ros:
        return []
    rcs = result["rcs"]
    parts = ", ".join(f"{PROBE_LABELS.get(cid, cid)} {c['y']:g}" for cid, c in ros["components"].items())
    outcome = result.get("outcome") or {}
    origin = f"; outcome of {outcome['origin']} at {outcome['executed_at'][:19]}Z" if outcome else ""
    failure = f", failure class {outcome['failure_class']}" if outcome.get("failure_class") else ""
    return [
        f"  ROS {ros['value']:.2f} / 100   ({parts}; coverage {ros['coverage']:g})",
        f"  RCS {rcs['value']:.2f} / 100   (alpha {rcs['alpha']:g}: (1 - alpha)·RRS + alpha·ROS{origin}{failure})",
    ]


def _score_lines(scores: list[dict]) -> list[str]:
    lines = []
    for item in scores:
        rub = item["rubric"]
        ros = "n/a" if item["ros"] is None else f"{item['ros']:.2f}"
        lines.append(
            f"  under {rub['name']} {rub['version']}: RRS {item['rrs']:.2f}  ROS {ros}  "
            f"alpha {item['alpha']:g}  RCS {item['rcs']:.2f}"
        )
    return lines


@cli.command("execute")
@db_option
@click.option("--deposit", "deposit", required=True, metavar="ID", help="The stored tree to run: a SWHID (swh:1:dir:...), a deposit as source:id, its version DOI or its origin URL, or a local folder scored with `score --db` (its files are then used).")
@click.option("--timeout", "timeout", type=click.FloatRange(min=0, min_open=True), default=None, metavar="S", help="Wall-clock limit in seconds of each probe run (the import check, each run of the entry point, each notebook, the test suite). Default: execute.timeout_seconds (600).")
@click.option("--install-timeout", "install_timeout", type=click.FloatRange(min=0, min_open=True), default=None, metavar="S", help="Wall-clock limit in seconds of each install step. Default: execute.install_timeout_seconds (1800).")
@click.option("--probes", "probes", default="I,X,delta,N,E_prime,T", show_default=True, metavar="LIST", help="The probes to record, comma-separated: I (install), X (entry point), delta (determinism: a second run), N (notebooks), E_prime (imports), T (tests). The environment is installed whichever are chosen.")
@click.option("--no-sandbox", "no_sandbox", is_flag=True, default=False, help="Run the deposit's code directly on this machine, without bubblewrap: it then has this machine's network and can read whatever your user can. Without this flag, execute refuses to run when bubblewrap is missing.")
@click.option("--tree", "tree", default=None, metavar="PATH", type=click.Path(file_okay=False), help="A copy of the tree's files; its SWHID must be the snapshot's. Default: where the store says the tree was read (the folder given to `score --db`, or a deposit kept by `run --keep` in run.work_dir).")
@click.option("--offline-install", "offline_install", is_flag=True, default=False, help="No network for the install step either (with --find-links: install from local wheels only).")
@click.option("--find-links", "find_links", multiple=True, metavar="DIR", type=click.Path(file_okay=False, exists=True), help="A folder of wheels or sdists pip may install from (repeatable); made visible, read-only, inside the sandbox.")
@click.option("--no-index", "no_index", is_flag=True, default=False, help="pip uses no package index, only the --find-links folders.")
@click.option("--config", "config", default=None, metavar="FILE", help=CONFIG_HELP + " Its [execute] section sets the limits.")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True, help="text: one line per probe and the scores with the outcome; json: the whole report (components, probes with commands, exit statuses, durations, log excerpts) as an object.")
def execute_command(db: str, deposit: str, timeout: float | None, install_timeout: float | None, probes: str, no_sandbox: bool, tree: str | None, offline_install: bool, find_links: tuple[str, ...], no_index: bool, config: str | None, output_format: str) -> None:
    """Install and run a stored tree in a sandbox, and store its outcome components
    (the ROS probes of the execution tier; see docs/execution.md).

    A copy of the tree is made in a scratch directory (deleted afterwards) and, inside
    bubblewrap, installed (I: requirements files, the project, environment.yml through
    conda or mamba when present) and probed: third-party imports (E′), the entry point
    the execution_entry_point detector found (X), every notebook (N), a second run
    compared with the first (delta) and the test suite (T). Deposit code has no network
    (only the install step has, unless --offline-install), a wall-clock timeout per
    probe, memory, CPU, process and file-size limits, a clean environment, and no
    access to the database or the home directory. The first failure is classified
    (install_dep, missing_module, missing_data, code_error, timeout). Every stored score
    of the tree then carries the ROS, alpha and RCS. Exit status 0 when the outcome was
    stored (whatever it is), 2 when the tree, the sandbox or an option is unusable.
    """
    from .config import ConfigError
    from .execution.sandbox import SandboxUnavailable

    if no_sandbox:
        click.echo("reproscore: warning: --no-sandbox: running the deposit's code directly on this "
                   "machine, with its network and your user's files", err=True)
    try:
        result = api.execute_deposit(
            db, deposit, timeout=timeout, install_timeout=install_timeout, probes=probes,
            sandbox=not no_sandbox, tree=tree, offline_install=offline_install,
            find_links=list(find_links), no_index=no_index, config=config,
            log=lambda message: click.echo(message, err=True),
        )  # fmt: skip
    except SandboxUnavailable as exc:
        fail(str(exc))
    except (ConfigError, StoreError, ValueError, OSError) as exc:
        fail_for(exc)
    if output_format == "json":
        click.echo(json.dumps(result.to_dict(), ensure_ascii=False))
        return
    report = result.report
    where = "a bubblewrap sandbox" if report.sandbox == "bubblewrap" else "NO sandbox"
    click.echo(f"executed {result.reference} ({result.swhid}) in {where} in {report.duration:.1f} s; "
               f"outcome {result.outcome_id} stored")
    for probe in report.probes.values():
        value = "n/a" if probe.value is None else f"{probe.value:.1f}"
        note = f" [{probe.failure_class}]" if probe.failure_class else ""
        click.echo(f"  {PROBE_LABELS[probe.id]:<2} {value:>6}  {probe.reason}{note}")
        if probe.failure_class and probe.log_excerpt:
            click.echo(f"          {probe.log_excerpt.strip().splitlines()[-1][:160]}")
    click.echo(f"  failure class: {report.failure_class or 'none'}")
    for line in _score_lines(result.scores):
        click.echo(line)


@cli.group("outcome")
def outcome_group() -> None:
    """Outcome components from outside: results of your own execution infrastructure
    (repo2docker, Binder, CI) in the documented JSON schema (docs/execution.md)."""


@outcome_group.command("import")
@db_option
@click.argument("results", metavar="RESULTS.json")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True, help="text: one line per imported outcome with the scores it gives; json: the same as a list.")
def outcome_import_command(db: str, results: str, output_format: str) -> None:
    """Validate RESULTS.json (schema reproscore-outcome/1: one outcome, or several under
    "outcomes") and store each outcome's components with its origin, all or none.

    Each outcome names a stored tree (subject: SWHID, source:id, DOI or origin URL),
    its origin (who ran it), when it ran and its components (I and X booleans, delta a
    percent, N, E_prime and T fractions; null when not available). Every stored score
    of the tree then carries the ROS, alpha and RCS. Exit status 2, naming every bad
    field, when the file is invalid; nothing is stored then.
    """
    from .execution.outcomes import OutcomeError

    try:
        imported = api.import_outcomes(db, results)
    except OutcomeError as exc:
        click.echo(f"reproscore: error: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    except StoreError as exc:
        fail(str(exc))
    if output_format == "json":
        click.echo(json.dumps(imported, ensure_ascii=False))
        return
    for item in imported:
        available = ", ".join(f"{PROBE_LABELS[c]} {v:g}" for c, v in item["components"].items() if v is not None)
        click.echo(f"imported outcome {item['outcome_id']} of {item['subject']} ({item['swhid']}) from {item['origin']}: {available}")
        for line in _score_lines(item["scores"]):
            click.echo(line)


def main() -> None:
    cli(prog_name="reproscore")


if __name__ == "__main__":
    main()
