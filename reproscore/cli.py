"""The ``reproscore`` command line. Each command wraps one function of
:mod:`reproscore.api`; this module only parses arguments and formats output.

Exit status: 0 success; 1 a tree was read but could not be scored (a detector failed),
or (``harvest``, ``run``) a harvest window failed; 2 bad usage, a path that cannot be
read, an invalid rubric or configuration; 3 another run holds the lock.
"""

from __future__ import annotations

import json
import sys

import click
import yaml

from scoring import __version__
from scoring.aggregate import IncompleteMeasurements
from scoring.catalog import CATEGORIES
from scoring.rubric import RubricError, list_bundled
from scoring.sources import TreeSourceError
from scoring.swhid import SwhidError

from . import api
from .store import DEFAULT_DB, ENV_DB, RESCORE_BATCH, StoreError

EXIT_UNSCORED = 1
EXIT_USAGE = 2
EXIT_LOCKED = 3


def fail(message: str, status: int = EXIT_USAGE) -> None:
    click.echo(f"reproscore: error: {message}", err=True)
    sys.exit(status)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="reproscore")
def cli() -> None:
    """Score research-software source trees for reproducibility readiness (RRS).

    Every sub-metric is backed by file-and-line evidence and a fix suggestion; every
    score names the rubric (name, version, sha256) that produced it.
    """


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
    help=f"Also store each snapshot, its measurements with evidence and its score in this SQLite database (created if absent; also ${ENV_DB}). A tree already stored is not measured again.",
)
def score_command(paths: tuple[str, ...], rubric: str, output_format: str, top: int, db: str | None) -> None:
    """Measure each source tree PATH and print its readiness score.

    The text format shows the RRS, the five-category profile, the penalties and the top
    fixes ranked by the RRS points they would gain. The JSON result includes the
    snapshot identity (SWHID of the tree, files, bytes).
    """
    try:
        rub = api.load_rubric(rubric)
    except (RubricError, OSError) as exc:
        fail(f"rubric {rubric}: {exc}".replace("\n", "; "))
    status = 0
    for path in paths:
        try:
            scored = api.score_path(path, rub, db=db)
        except (TreeSourceError, SwhidError, StoreError) as exc:
            fail(str(exc))
        except IncompleteMeasurements as exc:
            click.echo(f"reproscore: error: {path}: not scored: {exc}", err=True)
            status = EXIT_UNSCORED
            continue
        if output_format == "json":
            click.echo(json.dumps(scored.result, ensure_ascii=False, sort_keys=False))
        else:
            click.echo(render_text(scored, top))
            if len(paths) > 1:
                click.echo("")
    sys.exit(status)


def render_text(scored: api.TreeScore, top: int) -> str:
    result = scored.result
    rub = result["rubric"]
    lines = [
        f"{scored.path}",
        f"  RRS {result['rrs']:.2f} / 100   (before clamping {result['rrs_unclamped']:.2f};"
        f" rubric {rub['name']} {rub['version']}, sha256 {rub['sha256'][:12]})",
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
    if top and scored.fixes:
        lines.append("")
        lines.append("  top fixes (RRS points gained if fixed):")
        for fix in scored.fixes[:top]:
            lines.append(f"    +{fix['gain']:5.2f}  {fix['metric_id']:<27} {fix['fix']}")
    return "\n".join(lines)


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
        fail(str(exc).replace("\n", "; "))
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
@click.option("--rubric", "rubric", default=None, help="Show the score under this rubric (bundled name, file, or stored name[@version]). Default: the most recently computed score.")
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
        fail(str(exc).replace("\n", "; "))
    if output_format == "json":
        click.echo(json.dumps(scored.result, ensure_ascii=False, sort_keys=False))
        return
    click.echo(render_text(scored, top))
    stored = scored.result["stored"]
    click.echo(f"  stored score {stored['score_id']}, computed {stored['computed_at']} by reproscore {stored['scorer_version']}")


@cli.group("db")
def db_group() -> None:
    """Inspect the SQLite store (browse it with `datasette reproscore.db`)."""


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
    except (ConfigError, RubricError, StoreError, ValueError) as exc:
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
@click.option("--deposits/--no-deposits", "deposits", default=None, help="Search new deposits since the swh checkpoint (default: swh.deposits, on; off when --origins or --query is given).")
@click.option("--config", "config", default=None, metavar="FILE", help=CONFIG_HELP)
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True, help=FORMAT_RUN_HELP)
def harvest_swh_command(db: str, origins: str | None, query: str | None, api_url: str | None, deposits: bool | None, config: str | None, output_format: str) -> None:
    """Discover Software Heritage origins and store each one's latest visit.

    Given --origins or --query, those origins are harvested (with --deposits, new
    deposits too); otherwise every configured channel: new deposits (query language,
    since the checkpoint), swh.query, swh.origins_file and the origins linked from
    Zenodo records in the store.
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
@click.option("--keep", is_flag=True, default=False, help="Keep the downloaded and extracted trees in run.work_dir instead of deleting them.")
@click.option("--oai-url", default=None, metavar="URL", help="OAI-PMH endpoint (overrides zenodo.oai_url).")
@click.option("--api-url", default=None, metavar="URL", help="REST API root (overrides zenodo.api_url).")
@click.option("--until", "until", default=None, metavar="ISO", help="End of the harvest (UTC ISO 8601) instead of zenodo.lag_hours before now, e.g. to replay a past period.")
@click.option("--swh-api-url", default=None, metavar="URL", help="Software Heritage Web API root (overrides swh.api_url).")
@click.option("--origins", "origins", default=None, metavar="FILE", type=click.Path(dir_okay=False), help="A Software Heritage watch list (one origin URL per line); turns Software Heritage discovery on for this run.")
@click.option("--query", "query", default=None, metavar="QL", help="An extra Software Heritage origin search (query language); turns Software Heritage discovery on for this run.")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True, help=FORMAT_RUN_HELP)
def run_command(db: str, config: str | None, keep: bool, oai_url: str | None, api_url: str | None, until: str | None, swh_api_url: str | None, origins: str | None, query: str | None, output_format: str) -> None:
    """The nightly job: harvest each enabled source since its checkpoint (Zenodo, and
    Software Heritage when [swh] enabled is set), then fetch, extract, score and store
    every new or updated deposit of both sources.

    A Software Heritage origin's root directory is fetched from the vault only when no
    tree with that SWHID is measured yet, and the extracted tree must have that SWHID.

    Trees already measured are not measured again; a deposit that fails (download,
    checksum, hostile archive, ...) is recorded in `failures` and the run goes on.
    Progress bars on a terminal, plain log lines otherwise; one summary line at the
    end. Exit status 0 when every window completed, 1 when the harvest failed, 3 when
    another run holds the lock.
    """
    summary = _call_pipeline(api.run_nightly, db, config=config, keep=keep, oai_url=oai_url, api_url=api_url, until=until, swh_api_url=swh_api_url, origins=origins, query=query)
    _finish_run(summary, output_format)


def main() -> None:
    cli(prog_name="reproscore")


if __name__ == "__main__":
    main()
