"""The ``reproscore`` command line. Each command wraps one function of
:mod:`reproscore.api`; this module only parses arguments and formats output.

Exit status: 0 success; 1 a tree was read but could not be scored (a detector failed);
2 bad usage, a path that cannot be read, or an invalid rubric.
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

from . import api

EXIT_UNSCORED = 1
EXIT_USAGE = 2


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
def score_command(paths: tuple[str, ...], rubric: str, output_format: str, top: int) -> None:
    """Measure each source tree PATH and print its readiness score.

    The text format shows the RRS, the five-category profile, the penalties and the top
    fixes ranked by the RRS points they would gain.
    """
    try:
        rub = api.load_rubric(rubric)
    except (RubricError, OSError) as exc:
        fail(f"rubric {rubric}: {exc}".replace("\n", "; "))
    status = 0
    for path in paths:
        try:
            scored = api.score_tree(path, rub)
        except TreeSourceError as exc:
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


def main() -> None:
    cli(prog_name="reproscore")


if __name__ == "__main__":
    main()
