"""The collection audit report (``reproscore report``): one self-contained HTML page
with figures as inline SVG, and a CSV file for every table it shows.

Modules: :mod:`.data` reads the store (deposits, measurements, scores, runs, failures,
version histories) into a :class:`Collection`; :mod:`.stats` holds the statistics
(rank correlations included); :mod:`.tables` computes every table; :mod:`.figures`
draws them with matplotlib; :mod:`.html` renders the page. ``docs/report.md`` describes
what the report shows and how each number is defined.

Nothing is fetched and nothing is written to the store; the same database and the same
arguments give byte-identical files.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from scoring.catalog import CATEGORY_KEYS
from scoring.rubric import Rubric

from ..store import Store
from .data import Collection, Filters, Item, load_collection
from .figures import render_figures
from .html import render_html
from .stats import kendall_tau_b, spearman_rho
from .tables import Detail, Report, build_report_model, details_from_store

__all__ = [
    "Collection",
    "Detail",
    "Filters",
    "Item",
    "Report",
    "ReportResult",
    "build_report",
    "build_report_model",
    "kendall_tau_b",
    "load_collection",
    "spearman_rho",
    "write_report",
]

TABLES_DIR = "tables"


@dataclass
class ReportResult:
    """What ``reproscore report`` wrote."""

    index: Path
    tables: list[Path] = field(default_factory=list)
    deposits: int = 0  # harvested deposits (local trees not included)
    local_trees: int = 0  # trees scored from a local path that no deposit holds
    scored: int = 0
    rubric: str = ""  # "name version (sha256 prefix)": every score of the report is under it
    figures: int = 0
    sections: int = 0
    stored_scores: int = 0
    computed_scores: int = 0
    seconds: float = 0.0

    def line(self) -> str:
        local = f" and {self.local_trees} local trees" if self.local_trees else ""
        return (
            f"report of {self.deposits} deposits{local} ({self.scored} scored) under rubric {self.rubric} "
            f"written to {self.index}: "
            f"{self.sections} sections, {self.figures} figures, {len(self.tables)} CSV files "
            f"({self.stored_scores} stored scores used, {self.computed_scores} computed from stored "
            f"measurements) in {self.seconds:.2f} s"
        )


def _number(value: float) -> str:
    return "" if value != value else repr(float(value))  # NaN → empty


def scores_csv(collection: Collection) -> str:
    """Every scored deposit with its scores at full precision (``tables/scores.csv``);
    with outcome data, each deposit's current outcome (id, origin, when, failure class)
    and its ROS, coverage, alpha and RCS as stored (empty without an outcome)."""
    import csv
    import io

    s, sb = collection.scores, collection.compare_scores
    header = ["item", "source", "source_id", "title", "night", "swhid", "rrs", "rrs_unclamped"]
    header += [f"{k.lower()}_raw" for k in CATEGORY_KEYS] + [f"{k.lower()}_points" for k in CATEGORY_KEYS]
    header.append("penalties")
    if sb is not None:
        header += ["rrs_second", "rrs_unclamped_second"]
        header += [f"{k.lower()}_points_second" for k in CATEGORY_KEYS]
        header.append("penalties_second")
    outcomes = collection.has_outcomes
    if outcomes:
        header += ["outcome_id", "outcome_origin", "executed_at", "failure_class", "ros", "ros_coverage", "alpha", "rcs"]
        if sb is not None:
            header += ["ros_second", "alpha_second", "rcs_second"]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    ids = s.penalty_ids
    ids_b = sb.penalty_ids if sb is not None else ()
    for item in collection.items:
        if not item.scored:
            continue
        r = item.snapshot_row
        row = [item.name, item.source, item.source_id, item.title or "", item.night or "", item.swhid or "",
               _number(s.rrs[r]), _number(s.unclamped[r])]  # fmt: skip
        row += [_number(v) for v in s.raw[r]] + [_number(v) for v in s.contribution[r]]
        row.append(";".join(pid for pid, hit in zip(ids, s.fired[r], strict=True) if hit))
        if sb is not None:
            row += [_number(sb.rrs[r]), _number(sb.unclamped[r])]
            row += [_number(v) for v in sb.contribution[r]]
            row.append(";".join(pid for pid, hit in zip(ids_b, sb.fired[r], strict=True) if hit))
        if outcomes:
            o = item.outcome
            row += ["" if o is None else str(o.outcome_id), "" if o is None else o.origin,
                    "" if o is None else o.executed_at, "" if o is None else o.failure_class or ""]
            row += ["" if v is None else repr(float(v)) for v in (item.ros, item.ros_coverage, item.alpha, item.rcs)]
            if sb is not None:
                has = o is not None and sb.rcs is not None
                row += [_number(sb.ros[r]) if has else "", _number(sb.alpha[r]) if has else "",
                        _number(sb.rcs[r]) if has else ""]
        writer.writerow(row)
    return buffer.getvalue()


def _write(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(text)


def write_report(store: Store, collection: Collection, out: str | os.PathLike[str]) -> ReportResult:
    """Compute the report of ``collection`` (deposit details read from ``store``) and
    write ``out/index.html`` and ``out/tables/*.csv``. Stale CSV files left in
    ``out/tables`` by an earlier report are removed."""
    started = time.perf_counter()
    report = build_report_model(collection, details_from_store(store, collection))
    render_figures(report)
    out_dir = Path(out)
    tables_dir = out_dir / TABLES_DIR
    tables_dir.mkdir(parents=True, exist_ok=True)
    for stale in tables_dir.glob("*.csv"):
        stale.unlink()
    written = []
    for table in report.tables.values():
        path = out_dir / table.csv_name
        _write(path, table.to_csv())
        written.append(path)
    path = tables_dir / "scores.csv"
    _write(path, scores_csv(collection))
    written.append(path)
    index = out_dir / "index.html"
    _write(index, render_html(report))
    return ReportResult(
        index=index, tables=written, deposits=sum(1 for item in collection.items if item.deposit_id is not None),
        local_trees=sum(1 for item in collection.items if item.deposit_id is None),
        scored=len(collection.scored_items), figures=len(report.figures),
        rubric=f"{collection.rubric.name} {collection.rubric.version} (sha256 {collection.rubric.sha256[:12]})",
        sections=len(report.sections) + (1 if report.deposits else 0),
        stored_scores=collection.scores.stored + (collection.compare_scores.stored if collection.compare_scores else 0),
        computed_scores=collection.scores.computed + (collection.compare_scores.computed if collection.compare_scores else 0),
        seconds=time.perf_counter() - started,
    )  # fmt: skip


def build_report(
    store: Store,
    out: str | os.PathLike[str],
    rubric: Rubric,
    *,
    compare_rubric: Rubric | None = None,
    filters: Filters | None = None,
) -> ReportResult:
    """Load the collection from ``store`` and write its report into ``out``."""
    started = time.perf_counter()
    collection = load_collection(store, rubric, compare_rubric=compare_rubric, filters=filters)
    result = write_report(store, collection, out)
    result.seconds = time.perf_counter() - started
    return result
