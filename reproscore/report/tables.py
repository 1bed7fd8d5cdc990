"""The report's tables, computed from a :class:`~reproscore.report.data.Collection`.

Every number the report shows is a cell of one of these tables, and every table is
written as a CSV file (``tables/<id>.csv``) with exactly the cells the HTML shows (a
table may show only its first rows in the HTML, and says so in its caption; the CSV has
them all). Cells are formatted in one place (:func:`format_cell`), so the HTML and the
CSV agree character for character; a cell with no value is empty in the CSV and an em
dash in a numeric column of the HTML.

Definitions (``docs/report.md`` states them for readers):

* a sub-metric *falls short* on a deposit when it applies and its value is below 50;
* the deposits *most in need of work* are the lowest RRS (ties: lower unclamped score,
  then collection order), each with its top three fixes ranked by the RRS points they
  would gain (:func:`scoring.fixes.rank_fixes`);
* a version series *improved* when its last version's RRS is above its first's;
* ranks give 1 to the highest RRS, tied scores share the mean of their ranks; a
  deposit's *move* is its rank under the first rubric minus its rank under the second
  (positive: it moved up), and the *driver* of its move is the category (or the
  penalties) whose change of points is largest in the direction of the move.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scoring import __version__ as SCORER_VERSION
from scoring.catalog import CATEGORIES, CATEGORY_KEYS, METRICS
from scoring.fixes import rank_fixes
from scoring.model import Measurements
from scoring.rubric import ROS_COMPONENT_IDS, Rubric

from . import stats
from .data import SOURCES, STATES, Collection, Item, RubricScores

__all__ = [
    "BANDS",
    "FALLS_SHORT_BELOW",
    "Column",
    "Detail",
    "Link",
    "Report",
    "Table",
    "build_report_model",
    "format_cell",
]

BANDS = tuple((10 * i, 10 * i + 10) for i in range(10))
FALLS_SHORT_BELOW = 50.0
NEED_WORK = 25
MOVERS = 20
SERIES_SHOWN = 30
GROUPS_SHOWN = 20
GAPS_SHOWN = 20
EVIDENCE_SHOWN = 3
FIXES_SHOWN = 5
CATEGORY_NAMES = {c.key: c.name for c in CATEGORIES}
PENALTIES_LABEL = "penalties"
# The paper's failure-mode vocabulary (docs/execution.md), and the class of an outcome
# where nothing failed.
FAILURE_CLASSES = ("install_dep", "missing_module", "missing_data", "code_error", "timeout")
NO_FAILURE = "none"
COMPONENT_LABELS = {"I": "I", "X": "X", "delta": "Δ", "N": "N", "E_prime": "E′", "T": "T"}


@dataclass(frozen=True)
class Link:
    """A cell that links to a deposit's section: ``text`` in the CSV, a link in HTML."""

    text: str
    anchor: str

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Column:
    key: str  # the CSV header
    label: str  # the HTML header
    kind: str = "text"  # text | int | score | signed | pct | corr | rank | num
    html: bool = True  # False: only in the CSV (the per-deposit tables' deposit column)


@dataclass
class Table:
    id: str
    caption: str
    columns: list[Column]
    rows: list[list[Any]]
    shown: int | None = None  # the HTML shows the first `shown` rows (None: all)

    @property
    def csv_name(self) -> str:
        return f"tables/{self.id}.csv"

    def formatted(self) -> list[list[str]]:
        return [[format_cell(col.kind, value) for col, value in zip(self.columns, row, strict=True)] for row in self.rows]

    def to_csv(self) -> str:
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow([col.key for col in self.columns])
        writer.writerows(self.formatted())
        return buffer.getvalue()

    def html_caption(self) -> str:
        if self.shown is not None and len(self.rows) > self.shown:
            return f"{self.caption} (the first {self.shown} of {len(self.rows)} rows; all in the CSV)"
        return self.caption


def format_cell(kind: str, value: Any) -> str:
    """One cell as text, the same in HTML and CSV; an empty string for no value."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if kind == "int":
        return str(int(value))
    if kind == "score":
        return f"{value:.2f}"
    if kind == "signed":
        return f"{value:+.2f}"
    if kind == "pct":
        return f"{value:.1f}"
    if kind == "corr":
        return f"{value:.4f}"
    if kind == "rank":
        return f"{value:.1f}"
    if kind == "num":
        return f"{value:g}"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


@dataclass
class Detail:
    """What a deposit's own section shows beyond its scores."""

    measurements: Measurements
    fixes: list[dict[str, Any]]
    outcome: dict[str, Any] | None = None  # Store.outcome_for_snapshot: components and probes


@dataclass
class Figure:
    id: str
    title: str
    description: str  # the alt text: what the figure shows, with its numbers
    table: str  # the id of the table holding its data
    svg: str = ""


@dataclass
class Section:
    id: str
    title: str
    intro: str
    blocks: list[Any] = field(default_factory=list)  # Table | Figure | str (a paragraph)


@dataclass
class DepositSection:
    item: Item
    tables: list[Table]
    facts: list[tuple[str, str]]
    rrs: float
    compare_rrs: float | None
    ros: float | None = None
    rcs: float | None = None
    alpha: float | None = None


@dataclass
class Report:
    """The report as data: sections of tables, figures and paragraphs, then the
    per-deposit sections, and every table by id (for the CSV files)."""

    title: str
    summary: list[str]
    sections: list[Section]
    deposits: list[DepositSection]
    tables: dict[str, Table]
    figures: dict[str, Figure]
    data: dict[str, Any]  # arrays and numbers the figures draw from


# --------------------------------------------------------------------------- helpers


def _pct(part: int | float, whole: int | float) -> float | None:
    return None if not whole else 100.0 * part / whole


def _median(values: Sequence[float] | np.ndarray) -> float | None:
    return stats.quantile(np.sort(np.asarray(values, dtype=float)), 0.5)


def _target(rubric: Rubric, penalty_id: str) -> str:
    for p in rubric.penalties:
        if p.id == penalty_id:
            return f"category {p.target}" if p.target_kind == "category" else p.target
    return ""


def band_counts(values: np.ndarray) -> list[int]:
    """Deposits per RRS band [0, 10), [10, 20), …, [90, 100] (the last band includes 100)."""
    edges = np.arange(0, 101, 10, dtype=float)
    return [int(c) for c in np.histogram(values, bins=edges)[0]]


def band_label(low: int, high: int) -> str:
    return f"{low}–{high}"


def descending_ranks(values: np.ndarray) -> np.ndarray:
    """Rank 1 for the highest value; ties share the mean of their ranks."""
    return (values.size + 1) - stats.average_ranks(values)


# --------------------------------------------------------------------------- the model


class _Builder:
    def __init__(self, collection: Collection, load_details: Callable[[list[Item]], dict[int, Detail]]):
        self.c = collection
        self.load_details = load_details
        self.scored = collection.scored_items
        self.rows = np.array([item.snapshot_row for item in self.scored], dtype=np.int64)
        s = collection.scores
        self.rrs = s.rrs[self.rows] if self.rows.size else np.zeros(0)
        self.unclamped = s.unclamped[self.rows] if self.rows.size else np.zeros(0)
        self.raw = s.raw[self.rows] if self.rows.size else np.zeros((0, 5))
        self.points = s.contribution[self.rows] if self.rows.size else np.zeros((0, 5))
        self.fired = s.fired[self.rows] if self.rows.size else np.zeros((0, len(s.penalty_ids)), dtype=bool)
        self.position = {item.index: k for k, item in enumerate(self.scored)}
        self.tables: dict[str, Table] = {}
        self.figures: dict[str, Figure] = {}
        self.data: dict[str, Any] = {}
        self.linked: dict[int, None] = {}  # item indices with a section, in first-linked order

    # -- plumbing

    def table(self, table: Table) -> Table:
        if table.id in self.tables:
            raise ValueError(f"two tables named {table.id}")
        self.tables[table.id] = table
        return table

    def figure(self, figure: Figure) -> Figure:
        self.figures[figure.id] = figure
        return figure

    def link(self, item: Item) -> Link:
        self.linked.setdefault(item.index, None)
        return Link(item.label, item.anchor)

    def rubric_label(self, rubric: Rubric) -> str:
        return f"{rubric.name} {rubric.version}"

    # -- sections

    def collection_section(self) -> Section:
        c = self.c
        # Trees scored from a local path (snapshot source `local`, held by no deposit)
        # were never harvested: they get a table of their own, not a row among the
        # harvested sources, and are not counted in the harvested total.
        by_source: dict[str, dict[str, int]] = {}
        local = dict.fromkeys(STATES, 0)
        for item in c.items:
            counts = local if item.deposit_id is None else by_source.setdefault(item.source, dict.fromkeys(STATES, 0))
            counts[item.state] += 1
        order = [s for s in SOURCES if s in by_source] + sorted(s for s in by_source if s not in SOURCES)
        rows = []
        total = dict.fromkeys(STATES, 0)
        for source in order:
            counts = by_source[source]
            n = sum(counts.values())
            rows.append([source, n, *(counts[s] for s in STATES), _pct(counts["scored"], n)])
            for s in STATES:
                total[s] += counts[s]
        n_all = sum(total.values())
        rows.append(["all", n_all, *(total[s] for s in STATES), _pct(total["scored"], n_all)])
        coverage = self.table(Table(
            "coverage",
            "Deposits harvested and what became of them, by source",
            [Column("source", "Source"), Column("harvested", "Harvested", "int"),
             *(Column(s, s.capitalize(), "int") for s in STATES),
             Column("scored_pct", "Scored (%)", "pct")],
            rows,
        ))  # fmt: skip
        n_local = sum(local.values())
        local_table = self.table(Table(
            "local_trees",
            "Trees scored from a local path (reproscore score --db), not harvested: no deposit holds them",
            [Column("trees", "Trees", "int"), Column("scored", "Scored", "int"),
             Column("incomplete", "Incomplete", "int"), Column("scored_pct", "Scored (%)", "pct")],
            [[n_local, local["scored"], n_local - local["scored"], _pct(local["scored"], n_local)]],
        ))  # fmt: skip
        groups: dict[tuple[str, str, str], list] = {}
        for f in c.failures:
            entry = groups.setdefault((f.source, f.stage, f.error_class), [set(), 0, f.message])
            entry[0].add(f.item)
            entry[1] += f.attempts
        frows = sorted(
            ([source, stage, error_class, len(entry[0]), entry[1], entry[2][:160]]
             for (source, stage, error_class), entry in groups.items()),
            key=lambda r: (-r[3], r[0], r[1], r[2]),
        )  # fmt: skip
        failures = self.table(Table(
            "failures",
            "Failures by source, stage and error class (a deposit may fail at several stages)",
            [Column("source", "Source"), Column("stage", "Stage"), Column("error_class", "Error class"),
             Column("deposits", "Deposits", "int"), Column("attempts", "Attempts", "int"),
             Column("example", "Example message")],
            frows,
        ))  # fmt: skip
        self.data["coverage"] = {source: by_source[source] for source in order}
        fig = self.figure(Figure(
            "fig-coverage", "Deposits by source and state",
            "Horizontal bars, one per source, split into scored, failed, pending, withdrawn and "
            "incomplete deposits: "
            + "; ".join(f"{source}: " + ", ".join(f"{by_source[source][s]} {s}" for s in STATES if by_source[source][s])
                        for source in order) + ".",
            "coverage",
        ))  # fmt: skip
        intro = (
            f"{n_all} harvested deposits in the report (selection: {c.filters.describe()}); {total['scored']} scored, "
            f"{total['failed']} failed, {total['pending']} pending, {total['withdrawn']} withdrawn, "
            f"{total['incomplete']} with incomplete measurements."
        )
        if n_local:
            intro += f" Apart from them, {n_local} trees scored from a local path ({local['scored']} scored)."
        blocks: list[Any] = [coverage, fig] if by_source else [coverage]
        if n_local:
            blocks.append(local_table)
        blocks.append(failures if frows else "No failure is recorded for these deposits.")
        return Section("collection", "Collection size and coverage", intro, blocks)

    def rrs_section(self) -> Section:
        rub = self.rubric_label(self.c.rubric)
        summary_rows = []
        groups = [("all", self.rrs)]
        for source in SOURCES:
            mask = np.array([item.source == source for item in self.scored], dtype=bool)
            if mask.any():
                groups.append((source, self.rrs[mask]))
        for name, values in groups:
            s = stats.summary(values)
            summary_rows.append([name, s["n"], s["mean"], s["min"], s["p10"], s["p25"], s["median"], s["p75"], s["p90"], s["max"]])
        summary = self.table(Table(
            "rrs_summary",
            f"RRS under {rub}: count, mean and percentiles (linear interpolation), all deposits and by source",
            [Column("group", "Deposits"), Column("n", "n", "int"), Column("mean", "Mean", "score"),
             Column("min", "Min", "score"), Column("p10", "P10", "score"), Column("p25", "P25", "score"),
             Column("median", "Median", "score"), Column("p75", "P75", "score"), Column("p90", "P90", "score"),
             Column("max", "Max", "score")],
            summary_rows,
        ))  # fmt: skip
        counts = band_counts(self.rrs)
        n = int(self.rrs.size)
        dist = self.table(Table(
            "rrs_distribution",
            f"Deposits per RRS band under {rub} (each band includes its lower bound; the last also 100)",
            [Column("band", "RRS band"), Column("deposits", "Deposits", "int"), Column("share_pct", "Share (%)", "pct")],
            [[band_label(lo, hi), k, _pct(k, n)] for (lo, hi), k in zip(BANDS, counts, strict=True)],
        ))  # fmt: skip
        self.data["bands"] = counts
        fig = self.figure(Figure(
            "fig-rrs", f"RRS distribution under {rub}",
            f"Histogram of the RRS of {n} deposits in bands of 10 points: "
            + ", ".join(f"{band_label(lo, hi)}: {k}" for (lo, hi), k in zip(BANDS, counts, strict=True)) + ".",
            "rrs_distribution",
        ))  # fmt: skip
        mean = stats.fmean(self.rrs)
        intro = (
            f"{n} scored deposits; mean RRS {format_cell('score', mean) or 'n/a'}, median "
            f"{format_cell('score', _median(self.rrs)) or 'n/a'} (rubric {rub}, sha256 {self.c.rubric.sha256[:12]})."
        )
        return Section("rrs", "Readiness (RRS) distribution", intro, [summary, dist, fig])

    def category_section(self) -> Section:
        rubric = self.c.rubric
        rows = []
        n = int(self.rrs.size)
        for i, key in enumerate(CATEGORY_KEYS):
            rule = rubric.categories[key]
            raw = np.sort(self.raw[:, i])
            below = int(np.sum(raw < rule.tau))
            rows.append([
                key, rule.name or CATEGORY_NAMES[key], rule.weight, rule.tau, stats.fmean(raw),
                stats.quantile(raw, 0.25), stats.quantile(raw, 0.5), stats.quantile(raw, 0.75),
                below, _pct(below, n), stats.fmean(self.points[:, i]), 100.0 * rule.weight,
            ])  # fmt: skip
        categories = self.table(Table(
            "categories",
            f"The five-category profile under {self.rubric_label(rubric)}: raw score (0–100) per category, "
            "deposits below the category's gate τ, and the RRS points the category contributes",
            [Column("category", "Category"), Column("name", "Name"), Column("weight", "Weight", "num"),
             Column("tau", "Gate τ", "num"), Column("mean_raw", "Mean raw", "score"),
             Column("p25_raw", "P25 raw", "score"), Column("median_raw", "Median raw", "score"),
             Column("p75_raw", "P75 raw", "score"), Column("below_gate", "Below gate", "int"),
             Column("below_gate_pct", "Below gate (%)", "pct"), Column("mean_points", "Mean points", "score"),
             Column("max_points", "Max points", "score")],
            rows,
        ))  # fmt: skip
        prow = []
        for j, penalty in enumerate(rubric.penalties):
            hit = int(self.fired[:, j].sum()) if n else 0
            prow.append([penalty.id, _target(rubric, penalty.id), penalty.below, penalty.points, hit, _pct(hit, n)])
        penalties = self.table(Table(
            "penalties",
            "Penalties: how many deposits each one hit",
            [Column("penalty", "Penalty"), Column("target", "Applies to"), Column("below", "Fires below", "num"),
             Column("points", "Points deducted", "num"), Column("deposits", "Deposits hit", "int"),
             Column("share_pct", "Share (%)", "pct")],
            prow,
        ))  # fmt: skip
        self.data["category_raw"] = self.raw
        fig_box = self.figure(Figure(
            "fig-categories", "Raw score per category",
            "Box plots of the raw score (0–100) of each category over the scored deposits; the box "
            "spans the 25th to 75th percentile, the line is the median, the whiskers reach the "
            "minimum and maximum. Medians: "
            + ", ".join(f"{r[0]} {format_cell('score', r[6])}" for r in rows) + ".",
            "categories",
        ))  # fmt: skip
        fig_pen = self.figure(Figure(
            "fig-penalties", "Share of deposits hit by each penalty",
            "Horizontal bars, one per penalty, labelled with the share of deposits it hit: "
            + ", ".join(f"{r[0]} {format_cell('pct', r[5]) or '0.0'} %" for r in prow) + ".",
            "penalties",
        ))  # fmt: skip
        intro = "The per-category profile is the primary curatorial instrument: it says which dimension of readiness is missing."
        return Section("categories", "Five-category profile", intro, [categories, fig_box, penalties, fig_pen])

    def _group_rows(self, groups: list[tuple[str, np.ndarray]]) -> list[list[Any]]:
        rows = []
        for name, mask in groups:
            n = int(mask.sum())
            rrs = self.rrs[mask]
            row = [name, n, stats.fmean(rrs), _median(rrs)]
            row += [stats.fmean(self.raw[mask, i]) for i in range(len(CATEGORY_KEYS))]
            row += [_pct(int(self.fired[mask, j].sum()), n) for j in range(self.fired.shape[1])]
            rows.append(row)
        return rows

    def _group_columns(self, first: str) -> list[Column]:
        cols = [Column("group", first), Column("deposits", "Deposits", "int"),
                Column("mean_rrs", "Mean RRS", "score"), Column("median_rrs", "Median RRS", "score")]  # fmt: skip
        cols += [Column(f"mean_{k.lower()}", f"Mean {k}", "score") for k in CATEGORY_KEYS]
        cols += [Column(f"{pid}_pct", f"{pid} (%)", "pct") for pid in self.c.scores.penalty_ids]
        return cols

    def groups_section(self) -> Section:
        sources = [s for s in SOURCES if any(item.source == s for item in self.scored)]
        source_groups = [(s, np.array([item.source == s for item in self.scored], dtype=bool)) for s in sources]
        by_source = self.table(Table(
            "sources", "Per source: deposits scored, RRS, mean raw score per category and share hit by each penalty",
            self._group_columns("Source"), self._group_rows(source_groups),
        ))  # fmt: skip
        members: dict[str, list[int]] = {}
        for k, item in enumerate(self.scored):
            for community in item.communities or ("(none)",):
                members.setdefault(community, []).append(k)
        ordered = sorted(members, key=lambda name: (-len(members[name]), name))
        community_groups = []
        for name in ordered:
            mask = np.zeros(len(self.scored), dtype=bool)
            mask[members[name]] = True
            community_groups.append((name, mask))
        by_community = self.table(Table(
            "communities",
            "Per community (a deposit in several communities counts in each; (none): in no community), largest first",
            self._group_columns("Community"), self._group_rows(community_groups), shown=GROUPS_SHOWN,
        ))  # fmt: skip
        self.data["sources"] = by_source.rows
        self.data["communities"] = by_community.rows[:10]
        fig_sources = self.figure(Figure(
            "fig-sources", "Mean raw score per category, by source",
            "Grouped bars: for each source, the mean raw score of categories E, A, D, C and S, each "
            "category drawn with its own hatch pattern and labelled. "
            + "; ".join(f"{r[0]}: " + ", ".join(f"{k} {format_cell('score', v)}" for k, v in zip(CATEGORY_KEYS, r[4:9], strict=True))
                        for r in by_source.rows) + ".",
            "sources",
        ))  # fmt: skip
        shown = by_community.rows[:10]
        fig_comm = self.figure(Figure(
            "fig-communities", "Mean raw score per category, largest communities",
            f"Grouped bars for the {len(shown)} largest communities: the mean raw score of each category, "
            "one hatch pattern per category. "
            + "; ".join(f"{r[0]} ({r[1]} deposits): " + ", ".join(f"{k} {format_cell('score', v)}" for k, v in zip(CATEGORY_KEYS, r[4:9], strict=True))
                        for r in shown) + ".",
            "communities",
        ))  # fmt: skip
        blocks: list[Any] = [by_source, fig_sources, by_community]
        if shown:
            blocks.append(fig_comm)
        return Section("groups", "By source and by community", "The same profile for each source and each community.", blocks)

    def submetric_section(self) -> Section:
        snaps = self.c.snapshots
        values = snaps.values[self.rows] if self.rows.size else np.zeros((0, len(METRICS)))
        applicable = snaps.applicable[self.rows] if self.rows.size else np.zeros((0, len(METRICS)), dtype=bool)
        rows = []
        for j, spec in enumerate(METRICS):
            app = applicable[:, j]
            v = values[app, j]
            n_app = int(app.sum())
            short = int(np.sum(v < FALLS_SHORT_BELOW))
            zero = int(np.sum(v == 0.0))
            rows.append([spec.code, spec.metric_id, spec.category, spec.title, n_app, short, _pct(short, n_app),
                         zero, _pct(zero, n_app), stats.fmean(v), j])  # fmt: skip
        rows.sort(key=lambda r: (r[6] is None, -(r[6] or 0.0), r[10]))
        for r in rows:
            del r[10]
        table = self.table(Table(
            "submetrics",
            f"Sub-metrics most often failed: where it applies, how often each falls short (value below {FALLS_SHORT_BELOW:g}) "
            "or scores 0, most often failed first",
            [Column("code", "Code"), Column("metric", "Sub-metric"), Column("category", "Category"),
             Column("title", "Title"), Column("applicable", "Applies to", "int"),
             Column("falls_short", "Falls short", "int"), Column("falls_short_pct", "Falls short (%)", "pct"),
             Column("zero", "At 0", "int"), Column("zero_pct", "At 0 (%)", "pct"),
             Column("mean_value", "Mean value", "score")],
            rows,
        ))  # fmt: skip
        top = rows[:10]
        self.data["submetrics"] = top
        fig = self.figure(Figure(
            "fig-submetrics", "Sub-metrics most often falling short",
            "Horizontal bars for the ten sub-metrics that most often fall short where they apply, "
            "labelled with the share: "
            + ", ".join(f"{r[1]} {format_cell('pct', r[6])} %" for r in top if r[6] is not None) + ".",
            "submetrics",
        ))  # fmt: skip
        return Section("submetrics", "Sub-metrics most often failed", "Which checks deposits fail most often, where they apply.", [table, fig])

    def need_work_section(self) -> Section:
        order = sorted(range(len(self.scored)), key=lambda k: (self.rrs[k], self.unclamped[k], self.scored[k].index))
        chosen = [self.scored[k] for k in order[:NEED_WORK]]
        details = self.load_details(chosen)
        self.details.update(details)
        rows = []
        for rank, item in enumerate(chosen, start=1):
            k = self.position[item.index]
            lowest = int(np.argmin(self.raw[k]))
            fixes = details[item.index].fixes[:3]
            row = [rank, self.link(item), item.source, float(self.rrs[k]),
                   f"{CATEGORY_KEYS[lowest]} {format_cell('score', self.raw[k, lowest])}"]  # fmt: skip
            for f in range(3):
                if f < len(fixes):
                    row += [f"{fixes[f]['metric_id']}: {fixes[f]['fix']}", fixes[f]["gain"]]
                else:
                    row += [None, None]
            rows.append(row)
        cols = [Column("rank", "Rank", "int"), Column("deposit", "Deposit"), Column("source", "Source"),
                Column("rrs", "RRS", "score"), Column("weakest", "Weakest category (raw)")]  # fmt: skip
        for f in range(1, 4):
            cols += [Column(f"fix{f}", f"Fix {f}"), Column(f"fix{f}_gain", f"Gain {f} (points)", "score")]
        table = self.table(Table(
            "need_work",
            f"The {len(rows)} deposits most in need of work (lowest RRS), each with its top three fixes "
            "ranked by the RRS points each would gain",
            cols, rows,
        ))  # fmt: skip
        return Section("need-work", "Deposits most in need of work", "Follow a deposit's link for its profile, evidence, fixes and history.", [table])

    def trends_section(self) -> Section:
        c = self.c
        nights: dict[str, dict[str, Any]] = {}
        for run in c.runs:
            nights.setdefault(run.night, {"runs": 0, "items": [], "rrs": []})["runs"] += 1
        for item in c.items:
            if item.night is None:
                continue
            entry = nights.setdefault(item.night, {"runs": 0, "items": [], "rrs": []})
            entry["items"].append(item)
            if item.scored:
                entry["rrs"].append(float(self.rrs[self.position[item.index]]))
        rows = []
        for night in sorted(nights):
            entry = nights[night]
            items = entry["items"]
            rows.append([night, entry["runs"], len(items), sum(1 for i in items if i.state == "scored"),
                         sum(1 for i in items if i.state == "failed"), stats.fmean(entry["rrs"]),
                         _median(entry["rrs"])])  # fmt: skip
        per_night = self.table(Table(
            "nights",
            "Per night: harvest runs started, deposits processed that night (by the run that processed them), "
            "scored, failed, and their RRS",
            [Column("night", "Night (UTC)"), Column("runs", "Runs", "int"), Column("deposits", "Deposits", "int"),
             Column("scored", "Scored", "int"), Column("failed", "Failed", "int"),
             Column("mean_rrs", "Mean RRS", "score"), Column("median_rrs", "Median RRS", "score")],
            rows,
        ))  # fmt: skip
        self.data["nights"] = rows
        fig_nights = self.figure(Figure(
            "fig-nights", "Readiness per night",
            "Two panels. Top: deposits scored (plain bars) and failed (hatched bars) per night. Bottom: "
            "mean RRS (solid line, circles) and median RRS (dashed line, squares) of the deposits scored "
            "each night. "
            + "; ".join(f"{r[0]}: {r[3]} scored, {r[4]} failed, mean {format_cell('score', r[5]) or 'n/a'}" for r in rows) + ".",
            "nights",
        ))  # fmt: skip
        # Versions: series of the same concept DOI or origin.
        s = c.scores
        series_rows = []
        deltas_by_kind: dict[str, list[float]] = {}
        steps: dict[int, list[tuple[float, float | None]]] = {}
        for series in c.series:
            scores_ = [float(s.rrs[v.snapshot_row]) for v in series.versions]
            delta = scores_[-1] - scores_[0]
            kind = f"{series.source} {series.kind}"
            deltas_by_kind.setdefault(kind, []).append(delta)
            for k, value in enumerate(scores_, start=1):
                steps.setdefault(k, []).append((value, None if k == 1 else value - scores_[k - 2]))
            latest = c.items[series.versions[-1].item]
            series_rows.append([series.key, series.kind, series.source, len(series.versions),
                                series.versions[0].date, series.versions[-1].date, scores_[0], scores_[-1],
                                delta, latest])  # fmt: skip
        series_rows.sort(key=lambda r: (-abs(r[8]), r[0], r[2]))
        for r in series_rows[:SERIES_SHOWN]:
            r[9] = self.link(r[9])
        for r in series_rows[SERIES_SHOWN:]:
            r[9] = Link(r[9].label, r[9].anchor)
        summary_rows = []
        all_deltas: list[float] = []
        for kind in sorted(deltas_by_kind):
            d = deltas_by_kind[kind]
            all_deltas += d
            summary_rows.append(self._delta_row(kind, d))
        if deltas_by_kind:
            summary_rows.append(self._delta_row("all", all_deltas))
        versions_summary = self.table(Table(
            "versions_summary",
            "Did readiness improve across versions? Series of two or more scored versions, first to last version",
            [Column("series_kind", "Series"), Column("series", "Count", "int"), Column("improved", "Improved", "int"),
             Column("unchanged", "Unchanged", "int"), Column("worsened", "Worsened", "int"),
             Column("mean_change", "Mean change", "signed"), Column("median_change", "Median change", "signed")],
            summary_rows,
        ))  # fmt: skip
        step_rows = []
        for k in sorted(steps):
            values = [v for v, _ in steps[k]]
            changes = [d for _, d in steps[k] if d is not None]
            step_rows.append([k, len(values), stats.fmean(values), stats.fmean(changes) if changes else None])
        version_steps = self.table(Table(
            "version_steps",
            "Mean RRS by version number (1: the first scored version of a series) and mean change from the version before",
            [Column("version", "Version", "int"), Column("series", "Series", "int"),
             Column("mean_rrs", "Mean RRS", "score"), Column("mean_change", "Mean change", "signed")],
            step_rows,
        ))  # fmt: skip
        series_table = self.table(Table(
            "series",
            "Version series, largest change first: first and last scored version and the change of RRS",
            [Column("series", "Concept DOI or origin"), Column("kind", "Kind"), Column("source", "Source"),
             Column("versions", "Versions", "int"), Column("first_date", "First"), Column("last_date", "Last"),
             Column("first_rrs", "First RRS", "score"), Column("last_rrs", "Last RRS", "score"),
             Column("change", "Change", "signed"), Column("latest", "Latest deposit")],
            series_rows, shown=SERIES_SHOWN,
        ))  # fmt: skip
        self.data["version_steps"] = step_rows
        self.data["deltas"] = all_deltas
        fig_versions = self.figure(Figure(
            "fig-versions", "Readiness across versions",
            "Line with circles: mean RRS by version number, each point labelled with its number of series. "
            + "; ".join(f"version {r[0]}: mean {format_cell('score', r[2])} over {r[1]} series" for r in step_rows) + ".",
            "version_steps",
        ))  # fmt: skip
        blocks: list[Any] = [per_night, fig_nights if rows else "No night has deposits in this selection."]
        if series_rows:
            blocks += [versions_summary, version_steps, fig_versions, series_table]
        else:
            blocks.append("No concept DOI or origin has two or more scored versions in this selection.")
        intro = ("Nights are the UTC dates of the harvest runs; a deposit belongs to the night of the run that "
                 "processed it. Versions are the records of one Zenodo concept DOI (or repository, without one) "
                 "and the visits of one Software Heritage origin.")  # fmt: skip
        return Section("trends", "Trends: nights and versions", intro, blocks)

    @staticmethod
    def _delta_row(kind: str, deltas: list[float]) -> list[Any]:
        return [kind, len(deltas), sum(1 for d in deltas if d > 0), sum(1 for d in deltas if d == 0),
                sum(1 for d in deltas if d < 0), stats.fmean(deltas), _median(deltas)]  # fmt: skip

    def outcome_section(self) -> Section | None:
        """Execution outcomes (the paper's second tier): ROS and RCS distributions, the
        readiness-outcome gap (RRS - ROS, the paper's scatter of RRS against ROS), the
        shift of the composite (RCS - RRS), failure classes with their mean components
        (the paper's Table 5) and the origins of the outcomes."""
        c = self.c
        if not c.has_outcomes:
            return None
        with_outcome = [(k, item) for k, item in enumerate(self.scored)
                        if item.outcome is not None or item.ros is not None]  # fmt: skip
        with_ros = [(k, item) for k, item in with_outcome if item.ros is not None]
        n_scored, n_outcome, n_ros = len(self.scored), len(with_outcome), len(with_ros)
        rrs = np.array([self.rrs[k] for k, _ in with_ros], dtype=float)
        ros = np.array([item.ros for _, item in with_ros], dtype=float)
        rcs = np.array([item.rcs if item.rcs is not None else np.nan for _, item in with_ros], dtype=float)
        gaps = rrs - ros
        shifts = rcs - rrs
        has_rcs = ~np.isnan(rcs)
        summary = self.table(Table(
            "outcomes_summary",
            "Execution outcomes: how many scored deposits have one, and readiness (RRS) against the outcome "
            "(ROS) and the composite (RCS) over the deposits with a ROS; gap = RRS − ROS, shift = RCS − RRS",
            [Column("scored", "Scored deposits", "int"), Column("with_outcome", "With an outcome", "int"),
             Column("with_ros", "With a ROS", "int"), Column("with_ros_pct", "With a ROS (%)", "pct"),
             Column("mean_rrs", "Mean RRS", "score"), Column("mean_ros", "Mean ROS", "score"),
             Column("mean_rcs", "Mean RCS", "score"), Column("mean_gap", "Mean gap (RRS − ROS)", "signed"),
             Column("mean_shift", "Mean shift (RCS − RRS)", "signed"), Column("spearman", "Spearman RRS–ROS", "corr")],
            [[n_scored, n_outcome, n_ros, _pct(n_ros, n_scored), stats.fmean(rrs), stats.fmean(ros),
              stats.fmean(rcs[has_rcs]), stats.fmean(gaps), stats.fmean(shifts[has_rcs]),
              stats.spearman_rho(rrs, ros)]],
        ))  # fmt: skip
        stat_rows = []
        for label, values in (("RRS", rrs), ("ROS", ros), ("RCS", rcs[has_rcs]), ("gap (RRS − ROS)", gaps),
                              ("shift (RCS − RRS)", shifts[has_rcs])):  # fmt: skip
            st = stats.summary(values)
            stat_rows.append([label, st["n"], st["mean"], st["min"], st["p25"], st["median"], st["p75"], st["max"]])
        score_stats = self.table(Table(
            "outcome_scores",
            "RRS, ROS, RCS, the gap and the shift over the deposits with a ROS: count, mean and quartiles",
            [Column("measure", "Measure"), Column("n", "n", "int"), Column("mean", "Mean", "score"),
             Column("min", "Min", "score"), Column("p25", "P25", "score"), Column("median", "Median", "score"),
             Column("p75", "P75", "score"), Column("max", "Max", "score")],
            stat_rows,
        ))  # fmt: skip
        counts = {"RRS": band_counts(rrs), "ROS": band_counts(ros), "RCS": band_counts(rcs[has_rcs])}
        bands = self.table(Table(
            "outcome_bands",
            "Deposits with a ROS per band of 10 points, for the RRS, the ROS and the RCS (each band includes "
            "its lower bound; the last also 100)",
            [Column("band", "Band"), Column("rrs", "RRS", "int"), Column("ros", "ROS", "int"),
             Column("rcs", "RCS", "int")],
            [[band_label(lo, hi), counts["RRS"][i], counts["ROS"][i], counts["RCS"][i]]
             for i, (lo, hi) in enumerate(BANDS)],
        ))  # fmt: skip
        self.data["outcome_bands"] = counts
        # Failure classes, with the mean of each component (0-100) as the paper's Table 5.
        recorded = [(k, item) for k, item in with_outcome if item.outcome is not None]
        class_rows = []
        for name in (*FAILURE_CLASSES, NO_FAILURE):
            group = [(k, item) for k, item in recorded if (item.outcome.failure_class or NO_FAILURE) == name]
            comps = []
            for cid in ROS_COMPONENT_IDS:
                present = [item.outcome.components[cid] for _, item in group if item.outcome.components[cid] is not None]
                comps.append(stats.fmean(present))
            rosed = [(k, item) for k, item in group if item.ros is not None]
            class_rows.append([
                name, len(group), _pct(len(group), len(recorded)), *comps, len(rosed),
                stats.fmean([item.ros for _, item in rosed]),
                stats.fmean([item.rcs for _, item in rosed if item.rcs is not None]),
                stats.fmean([float(self.rrs[k]) for k, _ in group]),
            ])  # fmt: skip
        classes = self.table(Table(
            "outcome_failure_classes",
            "Deposits by the failure class of their outcome (the first probe that failed; none: nothing failed), "
            "with the mean of each component on the 0–100 scale over the deposits where it is available, and the "
            "mean ROS, RCS and RRS (as the paper's Table 5)",
            [Column("failure_class", "Failure class"), Column("deposits", "Deposits", "int"),
             Column("share_pct", "Share (%)", "pct"),
             *(Column(f"mean_{cid.lower()}", f"Mean {COMPONENT_LABELS[cid]}", "score") for cid in ROS_COMPONENT_IDS),
             Column("with_ros", "With a ROS", "int"), Column("mean_ros", "Mean ROS", "score"),
             Column("mean_rcs", "Mean RCS", "score"), Column("mean_rrs", "Mean RRS", "score")],
            class_rows,
        ))  # fmt: skip
        origins: dict[str, list] = {}
        for _, item in recorded:
            o = item.outcome
            entry = origins.setdefault(o.origin, [0, set(), o.executed_at, o.executed_at])
            entry[0] += 1
            entry[1].add(o.sandbox or "imported")
            entry[2], entry[3] = min(entry[2], o.executed_at), max(entry[3], o.executed_at)
        origin_rows = sorted(([name, e[0], ", ".join(sorted(e[1])), e[2][:10], e[3][:10]] for name, e in origins.items()),
                             key=lambda r: (-r[1], r[0]))  # fmt: skip
        origin_table = self.table(Table(
            "outcome_origins",
            "Where the outcomes come from: the origin that ran the probes (reproscore-execute: a sandboxed run of "
            "reproscore execute; otherwise imported with reproscore outcome import), its sandbox, and the dates "
            "of the first and last execution",
            [Column("origin", "Origin"), Column("deposits", "Deposits", "int"), Column("sandbox", "Sandbox"),
             Column("first", "First executed"), Column("last", "Last executed")],
            origin_rows,
        ))  # fmt: skip
        order = sorted(range(n_ros), key=lambda i: (-abs(gaps[i]), with_ros[i][1].index))
        rows = []
        for i in order:
            k, item = with_ros[i]
            o = item.outcome
            rows.append([self.link(item) if len(rows) < GAPS_SHOWN else Link(item.label, item.anchor), item.source,
                         float(rrs[i]), float(ros[i]), item.rcs, item.alpha, float(gaps[i]),
                         None if item.rcs is None else item.rcs - float(rrs[i]),
                         (o.failure_class or NO_FAILURE) if o is not None else None,
                         o.origin if o is not None else None])  # fmt: skip
        gap_table = self.table(Table(
            "outcome_gaps",
            "Deposits with the largest readiness–outcome gap (RRS − ROS; positive: readier than it ran, as a "
            "dependency conflict that static analysis cannot see), with the shift of the composite (RCS − RRS)",
            [Column("deposit", "Deposit"), Column("source", "Source"), Column("rrs", "RRS", "score"),
             Column("ros", "ROS", "score"), Column("rcs", "RCS", "score"), Column("alpha", "α", "corr"),
             Column("gap", "Gap", "signed"), Column("shift", "Shift", "signed"),
             Column("failure_class", "Failure class"), Column("origin", "Origin")],
            rows, shown=GAPS_SHOWN,
        ))  # fmt: skip
        kinds = [(item.outcome.failure_class or NO_FAILURE) if item.outcome is not None else NO_FAILURE
                 for _, item in with_ros]  # fmt: skip
        self.data["outcomes"] = (rrs, ros, kinds)
        # Deposits at the same point (a tree held by several deposits, equal scores) are
        # one marker, sized and labelled by their count, so none hides behind another.
        points: dict[tuple[float, float, str], int] = {}
        for x, y, kind in zip(rrs.tolist(), ros.tolist(), kinds, strict=True):
            points[(x, y, kind)] = points.get((x, y, kind), 0) + 1
        self.data["outcome_points"] = sorted((x, y, kind, count) for (x, y, kind), count in points.items())
        shared = sorted((p for p in self.data["outcome_points"] if p[3] > 1), key=lambda p: (-p[3], p[0], p[1], p[2]))
        above = int(np.sum(gaps < 0))
        below = int(np.sum(gaps > 0))
        present = [name for name in (*FAILURE_CLASSES, NO_FAILURE) if name in kinds]
        fig_scatter = self.figure(Figure(
            "fig-outcomes", "Readiness against outcome",
            f"Scatter plot of RRS (horizontal) against ROS (vertical) for {n_ros} deposits, with the diagonal "
            f"where both agree; one marker shape per failure class ({', '.join(present) or 'none'}). "
            f"{below} deposits lie below the diagonal (readier than they ran), {above} above it; mean gap "
            f"{format_cell('signed', stats.fmean(gaps)) or 'n/a'} points, Spearman "
            f"{format_cell('corr', stats.spearman_rho(rrs, ros)) or 'n/a'}."
            + (f" {len(shared)} marker{' stands' if len(shared) == 1 else 's stand'} for several deposits at one "
               "point, drawn larger and labelled with "
               "their count: " + ", ".join(f"{p[3]} at RRS {format_cell('score', p[0])}, ROS {format_cell('score', p[1])}"
                                            for p in shared[:5])
               + (f" and {len(shared) - 5} more" if len(shared) > 5 else "") + "." if shared else ""),
            "outcome_gaps",
        ))  # fmt: skip
        fig_bands = self.figure(Figure(
            "fig-outcome-bands", "RRS, ROS and RCS distributions",
            f"Grouped bars, three per band of 10 points, for the RRS (hatched //), the ROS (hatched ..) and the "
            f"RCS (hatched xx) of {n_ros} deposits: "
            + "; ".join(f"{band_label(lo, hi)}: RRS {counts['RRS'][i]}, ROS {counts['ROS'][i]}, RCS {counts['RCS'][i]}"
                        for i, (lo, hi) in enumerate(BANDS)) + ".",
            "outcome_bands",
        ))  # fmt: skip
        intro = (
            f"{n_outcome} of {n_scored} scored deposits have an execution outcome ({n_ros} with a ROS). Readiness "
            "is not outcome: the gap RRS − ROS is positive when a deposit is readier than it ran (a high RRS with a "
            "low ROS points to a dependency conflict static analysis cannot see), negative when it ran better than "
            "its readiness suggests. RCS blends the two with the coverage weight α (RCS = RRS without a ROS)."
        )
        blocks: list[Any] = [summary]
        if n_ros:
            blocks += [score_stats, bands, fig_bands, fig_scatter, gap_table]
        if recorded:
            blocks += [classes, origin_table]
        return Section("outcomes", "Outcome data (ROS, RCS) and the readiness–outcome gap", intro, blocks)

    def comparison_section(self) -> Section | None:
        c = self.c
        if c.compare_rubric is None or c.compare_scores is None:
            return None
        a, b = c.rubric, c.compare_rubric
        la, lb = self.rubric_label(a), self.rubric_label(b)
        identity = self.table(Table(
            "rubric_identity", "The two rubrics compared",
            [Column("field", "Field"), Column("first", f"First: {la}"), Column("second", f"Second: {lb}")],
            [["name", a.name, b.name], ["version", a.version, b.version], ["sha256", a.sha256, b.sha256],
             ["source", a.source, b.source], ["extends", a.extends or "", b.extends or ""],
             ["clamp", f"{a.clamp[0]:g}–{a.clamp[1]:g}", f"{b.clamp[0]:g}–{b.clamp[1]:g}"],
             ["description", a.description or "", b.description or ""]],
        ))  # fmt: skip
        cat_rows = []
        for key in CATEGORY_KEYS:
            ra, rb = a.categories[key], b.categories[key]
            cat_rows.append([key, ra.weight, rb.weight, ra.tau, rb.tau, ra.k, rb.k])
        categories = self.table(Table(
            "rubric_categories", "Category weights and gates (τ, k) side by side",
            [Column("category", "Category"), Column("weight_first", "Weight (first)", "num"),
             Column("weight_second", "Weight (second)", "num"), Column("tau_first", "τ (first)", "num"),
             Column("tau_second", "τ (second)", "num"), Column("k_first", "k (first)", "num"),
             Column("k_second", "k (second)", "num")],
            cat_rows,
        ))  # fmt: skip
        pa = {p.id: p for p in a.penalties}
        pb = {p.id: p for p in b.penalties}
        pen_rows = []
        for pid in list(pa) + [p for p in pb if p not in pa]:
            x, y = pa.get(pid), pb.get(pid)
            target = _target(a if x else b, pid)
            pen_rows.append([pid, target, x.below if x else None, y.below if y else None,
                             x.points if x else None, y.points if y else None])  # fmt: skip
        penalties = self.table(Table(
            "rubric_penalties", "Penalties side by side (empty: the rubric has no such penalty)",
            [Column("penalty", "Penalty"), Column("target", "Applies to"),
             Column("below_first", "Fires below (first)", "num"), Column("below_second", "Fires below (second)", "num"),
             Column("points_first", "Points (first)", "num"), Column("points_second", "Points (second)", "num")],
            pen_rows,
        ))  # fmt: skip
        weight_rows = []
        for spec in METRICS:
            wa = a.categories[spec.category].submetrics.get(spec.metric_id)
            wb = b.categories[spec.category].submetrics.get(spec.metric_id)
            if wa != wb:
                weight_rows.append([spec.code, spec.metric_id, spec.category, wa, wb])
        weights = self.table(Table(
            "rubric_submetric_weights", "Within-category sub-metric weights that differ",
            [Column("code", "Code"), Column("metric", "Sub-metric"), Column("category", "Category"),
             Column("weight_first", "Weight (first)", "num"), Column("weight_second", "Weight (second)", "num")],
            weight_rows,
        ))  # fmt: skip
        sb: RubricScores = c.compare_scores
        rrs_b = sb.rrs[self.rows] if self.rows.size else np.zeros(0)
        points_b = sb.contribution[self.rows] if self.rows.size else np.zeros((0, 5))
        pen_a = c.scores.penalty_points[self.rows] if self.rows.size else np.zeros(0)
        pen_b = sb.penalty_points[self.rows] if self.rows.size else np.zeros(0)
        delta = rrs_b - self.rrs
        rank_a = descending_ranks(self.rrs)
        rank_b = descending_ranks(rrs_b)
        move = rank_a - rank_b
        rho = stats.spearman_rho(self.rrs, rrs_b)
        tau = stats.kendall_tau_b(self.rrs, rrs_b)
        n = int(self.rrs.size)
        corr = self.table(Table(
            "rank_correlation",
            f"How the two rubrics rank the {n} scored deposits: rank correlation of the two RRS lists and the mean change",
            [Column("deposits", "Deposits", "int"), Column("spearman_rho", "Spearman ρ", "corr"),
             Column("kendall_tau_b", "Kendall τ-b", "corr"), Column("mean_rrs_first", "Mean RRS (first)", "score"),
             Column("mean_rrs_second", "Mean RRS (second)", "score"), Column("mean_change", "Mean change", "signed"),
             Column("up", "Scored higher", "int"), Column("down", "Scored lower", "int"),
             Column("same", "Unchanged", "int"), Column("mean_abs_move", "Mean |rank move|", "rank")],
            [[n, rho, tau, stats.fmean(self.rrs), stats.fmean(rrs_b), stats.fmean(delta),
              int(np.sum(delta > 0)), int(np.sum(delta < 0)), int(np.sum(delta == 0)),
              stats.fmean(np.abs(move))]],
        ))  # fmt: skip
        # Terms of the change of RRS: category points, then penalties (as points gained).
        terms = np.concatenate((points_b - self.points, (pen_a - pen_b)[:, None]), axis=1) if n else np.zeros((0, 6))
        labels = [*CATEGORY_KEYS, PENALTIES_LABEL]
        drivers = []
        for k in range(n):
            d = delta[k]
            t = terms[k]
            if d > 0:
                j = int(np.argmax(t))
            elif d < 0:
                j = int(np.argmin(t))
            else:
                j = int(np.argmax(np.abs(t)))
            drivers.append(labels[j] if t[j] != 0 else "none")
        driver_rows = []
        for j, label in enumerate(labels):
            col = terms[:, j]
            driver_rows.append([label, stats.fmean(col), stats.fmean(np.abs(col)), sum(1 for d in drivers if d == label)])
        driver_table = self.table(Table(
            "category_drivers",
            "What drives the change: mean change of the points each category contributes (penalties: points "
            "deducted less), and how many deposits' moves each one drives",
            [Column("term", "Category"), Column("mean_change", "Mean change (points)", "signed"),
             Column("mean_abs_change", "Mean |change|", "score"), Column("drives", "Drives (deposits)", "int")],
            driver_rows,
        ))  # fmt: skip
        # The RRS is clamped (and rounded) after the penalties: where a score hits the
        # clamp under either rubric, the terms above do not add up to the change of RRS.
        # The clamping column is the rest, so that the row always adds up.
        unclamped_b = sb.unclamped[self.rows] if self.rows.size else np.zeros(0)
        clamping = (rrs_b - unclamped_b) - (self.rrs - self.unclamped)
        order = sorted(range(n), key=lambda k: (-abs(move[k]), -abs(delta[k]), self.scored[k].index))
        # Two tables of the same deposits, in the same order, rather than one of 16
        # columns: each fits a 1,280-pixel page and an A4 print.
        mover_rows, term_rows = [], []
        for k in order[:MOVERS]:
            item = self.scored[k]
            link = self.link(item)
            mover_rows.append([link, item.source, float(self.rrs[k]), float(rrs_b[k]), float(delta[k]),
                               float(rank_a[k]), float(rank_b[k]), float(move[k]), drivers[k]])  # fmt: skip
            term_rows.append([link, float(delta[k]), *(float(x) for x in terms[k]), float(clamping[k])])
        outside = ((self.unclamped < a.clamp[0]) | (self.unclamped > a.clamp[1])
                   | (unclamped_b < b.clamp[0]) | (unclamped_b > b.clamp[1]))  # fmt: skip
        clamped = sum(1 for k in order[:MOVERS] if outside[k])
        clamp_range = f"{a.clamp[0]:g}–{a.clamp[1]:g}"
        if b.clamp != a.clamp:
            clamp_range += f" (second rubric {b.clamp[0]:g}–{b.clamp[1]:g})"
        movers = self.table(Table(
            "movers",
            "The deposits that move most between the two rubrics (largest rank move first), with the driver of "
            "the move (the next table splits each change)",
            [Column("deposit", "Deposit"), Column("source", "Source"), Column("rrs_first", "RRS (first)", "score"),
             Column("rrs_second", "RRS (second)", "score"), Column("change", "Change", "signed"),
             Column("rank_first", "Rank (first)", "rank"), Column("rank_second", "Rank (second)", "rank"),
             Column("move", "Rank move", "rank"), Column("driver", "Driven by")],
            mover_rows,
        ))  # fmt: skip
        mover_terms = self.table(Table(
            "mover_terms",
            "Where each mover's change of RRS comes from: the change of points per category, of penalty points "
            "(deducted less), and Δ clamping, the part taken up by clamping the RRS to "
            f"{clamp_range} and rounding it, so that each row adds up to the change ({clamped} of these "
            f"{len(term_rows)} deposits are clamped under a rubric)",
            [Column("deposit", "Deposit"), Column("change", "Change", "signed"),
             *(Column(f"change_{k.lower()}", f"Δ{k}", "signed") for k in CATEGORY_KEYS),
             Column("change_penalties", "Δ penalties", "signed"), Column("change_clamping", "Δ clamping", "signed")],
            term_rows,
        ))  # fmt: skip
        # Band transitions (figure and table).
        ba = np.minimum((self.rrs // 10).astype(int), 9) if n else np.zeros(0, dtype=int)
        bb = np.minimum((rrs_b // 10).astype(int), 9) if n else np.zeros(0, dtype=int)
        matrix = np.zeros((10, 10), dtype=int)
        np.add.at(matrix, (ba, bb), 1)
        trans_rows = [[band_label(*BANDS[i]), *(int(x) for x in matrix[i])] for i in range(10)]
        transitions = self.table(Table(
            "band_transitions",
            "Deposits by RRS band under the first rubric (rows) and the second (columns)",
            [Column("band_first", "First ↓ / second →"), *(Column(f"to_{lo}_{hi}", band_label(lo, hi), "int") for lo, hi in BANDS)],
            trans_rows,
        ))  # fmt: skip
        self.data["transitions"] = matrix
        self.data["driver_rows"] = driver_rows
        fig_matrix = self.figure(Figure(
            "fig-transitions", "Where deposits land under the second rubric",
            "A 10 by 10 grid of RRS bands, first rubric down the side, second along the top; each cell is "
            "labelled with its number of deposits and shaded darker for more. Deposits on the diagonal stay "
            f"in their band: {int(np.trace(matrix))} of {n}.",
            "band_transitions",
        ))  # fmt: skip
        fig_drivers = self.figure(Figure(
            "fig-drivers", "Mean change of points per category",
            "Horizontal bars, one per category and one for penalties, labelled with the mean change of points "
            "from the first rubric to the second: "
            + ", ".join(f"{r[0]} {format_cell('signed', r[1])}" for r in driver_rows) + ".",
            "category_drivers",
        ))  # fmt: skip
        self.data["compare"] = {"rrs_b": rrs_b}
        intro = (f"First rubric {la} (sha256 {a.sha256[:12]}), second {lb} (sha256 {b.sha256[:12]}); both computed "
                 f"from the stored measurements ({c.scores.stored + c.compare_scores.stored} scores read from the store, "
                 f"{c.scores.computed + c.compare_scores.computed} computed in memory). Nothing was fetched.")  # fmt: skip
        blocks: list[Any] = [identity, categories, penalties]
        blocks.append(weights if weight_rows else "Every within-category sub-metric weight is the same in both rubrics.")
        if n:
            blocks += [corr, transitions, fig_matrix, driver_table, fig_drivers, movers, mover_terms]
        else:
            blocks.append("No scored deposit to compare in this selection.")
        return Section("compare", f"Rubric comparison: {la} and {lb}", intro, blocks)

    def provenance_section(self) -> Section:
        c = self.c
        rows = [
            ["database", c.database],
            ["rubric", f"{c.rubric.name} {c.rubric.version}"],
            ["rubric sha256", c.rubric.sha256],
        ]
        if c.compare_rubric is not None:
            rows += [["compared with", f"{c.compare_rubric.name} {c.compare_rubric.version}"],
                     ["compared rubric sha256", c.compare_rubric.sha256]]  # fmt: skip
        rows += [
            ["filters", c.filters.describe()],
            ["deposits", str(len(c.items))],
            ["scored deposits", str(len(self.scored))],
            ["scores read from the store", str(c.scores.stored + (c.compare_scores.stored if c.compare_scores else 0))],
            ["scores computed from stored measurements", str(c.scores.computed + (c.compare_scores.computed if c.compare_scores else 0))],
            ["reproscore", SCORER_VERSION],
            ["store schema", ", ".join(c.schema)],
        ]
        if c.has_outcomes:
            with_outcome = sum(1 for item in self.scored if item.outcome is not None)
            rows.insert(-2, ["scored deposits with an execution outcome", str(with_outcome)])
        table = self.table(Table("provenance", "What this report was made from",
                                 [Column("field", "Field"), Column("value", "Value")], rows))  # fmt: skip
        return Section("about", "About this report",
                       "Every table is also a CSV file (linked under it); tables/scores.csv holds every scored deposit "
                       "with its scores.", [table])  # fmt: skip

    # -- per-deposit sections

    def deposit_sections(self) -> list[DepositSection]:
        c = self.c
        items = [c.items[i] for i in self.linked]
        missing = [item for item in items if item.index not in self.details]
        self.details.update(self.load_details(missing))
        by_item_series: dict[int, list] = {}
        for series in c.series:
            for v in series.versions:
                by_item_series.setdefault(v.item, []).append(series)
        failures: dict[int, list] = {}
        for f in c.failures:
            failures.setdefault(f.item, []).append(f)
        profile_rows, metric_rows, fix_rows, history_rows, failure_rows, probe_rows = [], [], [], [], [], []
        sections = []
        sb = c.compare_scores
        for item in items:
            k = self.position[item.index]
            r = item.snapshot_row
            detail = self.details[item.index]
            tag = item.anchor
            p_rows = []
            for i, key in enumerate(CATEGORY_KEYS):
                rule = c.rubric.categories[key]
                row = [tag, key, rule.name or CATEGORY_NAMES[key], float(self.raw[k, i]), float(self.points[k, i]),
                       rule.weight, rule.tau, bool(self.raw[k, i] < rule.tau)]  # fmt: skip
                if sb is not None:
                    row.append(float(sb.contribution[r, i]))
                p_rows.append(row)
            m_rows = []
            for spec in METRICS:
                m = detail.measurements.measurements.get(spec.metric_id)
                if m is None:
                    continue
                ev = [_evidence_text(e) for e in m.evidence[:EVIDENCE_SHOWN]]
                more = len(m.evidence) - len(ev)
                m_rows.append([tag, spec.code, spec.metric_id, m.value, m.applicable, m.level or "",
                               " | ".join(ev) + (f" (+{more} more)" if more > 0 else ""), m.reason])  # fmt: skip
            f_rows = [[tag, n + 1, f["metric_id"], f["gain"], f["fix"]] for n, f in enumerate(detail.fixes[:FIXES_SHOWN])]
            h_rows = []
            for series in by_item_series.get(item.index, []):
                previous = None
                for v in series.versions:
                    value = float(c.scores.rrs[v.snapshot_row])
                    h_rows.append([tag, series.key, v.label, v.date, value,
                                   None if previous is None else value - previous, v.item == item.index])  # fmt: skip
                    previous = value
            fl_rows = [[tag, f.stage, f.error_class, f.attempts, f.message] for f in failures.get(item.index, [])]
            o_rows = _probe_rows(tag, detail.outcome, c.rubric) if detail.outcome is not None else []
            probe_rows += o_rows
            profile_rows += p_rows
            metric_rows += m_rows
            fix_rows += f_rows
            history_rows += h_rows
            failure_rows += fl_rows
            facts = [("Source", item.source), ("Id", item.source_id)]
            for label, value in (("Version", item.version), ("Version DOI", item.version_doi),
                                 ("Concept DOI", item.concept_doi), ("Origin", item.origin_url),
                                 ("Published", item.publication_date),
                                 ("Communities", ", ".join(item.communities)),
                                 ("Night", item.night), ("Tree (SWHID)", item.swhid)):  # fmt: skip
                if value:
                    facts.append((label, value))
            if item.outcome is not None:
                o = item.outcome
                facts.append(("Outcome", f"{o.origin}, executed {o.executed_at[:19]}Z"
                                         + {"bubblewrap": " in a bubblewrap sandbox",
                                            "none": " without a sandbox"}.get(o.sandbox or "", "")
                                         + f"; failure class {o.failure_class or NO_FAILURE}"))
            rubric_cols = [Column("deposit", "Deposit", html=False), Column("category", "Category"),
                           Column("name", "Name"), Column("raw", "Raw", "score"), Column("points", "Points", "score"),
                           Column("weight", "Weight", "num"), Column("tau", "Gate τ", "num"),
                           Column("below_gate", "Below gate")]  # fmt: skip
            if sb is not None:
                rubric_cols.append(Column("points_second", "Points (second rubric)", "score"))
            tables = [
                Table("deposit_profiles", f"Category profile under {self.rubric_label(c.rubric)}", rubric_cols, p_rows),
                Table("deposit_fixes", "Fixes ranked by the RRS points each would gain",
                      [Column("deposit", "Deposit", html=False), Column("rank", "Rank", "int"),
                       Column("metric", "Sub-metric"), Column("gain", "Gain (points)", "score"), Column("fix", "Fix")],
                      f_rows),
                Table("deposit_submetrics", "Sub-metric values with their evidence (path:lines, reason; at most three items each)",
                      [Column("deposit", "Deposit", html=False), Column("code", "Code"), Column("metric", "Sub-metric"),
                       Column("value", "Value", "score"), Column("applicable", "Applies"), Column("level", "Level"),
                       Column("evidence", "Evidence"), Column("reason", "Reason")],
                      m_rows),
            ]  # fmt: skip
            if h_rows:
                tables.append(Table("deposit_history", "History: the scored versions of its series, oldest first",
                                    [Column("deposit", "Deposit", html=False), Column("series", "Series"),
                                     Column("version", "Version"), Column("date", "Date"), Column("rrs", "RRS", "score"),
                                     Column("change", "Change", "signed"), Column("this", "This deposit")],
                                    h_rows))  # fmt: skip
            if fl_rows:
                tables.append(Table("deposit_failures", "Failures recorded for it",
                                    [Column("deposit", "Deposit", html=False), Column("stage", "Stage"),
                                     Column("error_class", "Error class"), Column("attempts", "Attempts", "int"),
                                     Column("message", "Message")], fl_rows))  # fmt: skip
            if o_rows:
                tables.append(Table(
                    "deposit_probes",
                    f"Execution outcome: each component (0–100) with its weight in the ROS under "
                    f"{self.rubric_label(c.rubric)} and its probe's record (status, command, exit status, "
                    "failure class, reason)",
                    [Column("deposit", "Deposit", html=False), Column("component", "Component"),
                     Column("value", "Value", "score"), Column("weight", "Weight", "num"), Column("status", "Probe"),
                     Column("command", "Command"), Column("exit_status", "Exit status", "int"),
                     Column("failure_class", "Failure class"), Column("reason", "Reason")],
                    o_rows,
                ))  # fmt: skip
            sections.append(DepositSection(
                item=item, tables=tables, facts=facts, rrs=float(self.rrs[k]),
                compare_rrs=None if sb is None else float(sb.rrs[r]),
                ros=item.ros, rcs=item.rcs if item.outcome is not None or item.ros is not None else None,
                alpha=item.alpha,
            ))  # fmt: skip
        # One CSV per kind of per-deposit table, every deposit's rows together.
        combined = {
            "deposit_profiles": profile_rows, "deposit_fixes": fix_rows, "deposit_submetrics": metric_rows,
            "deposit_history": history_rows, "deposit_failures": failure_rows, "deposit_probes": probe_rows,
        }  # fmt: skip
        columns: dict[str, list[Column]] = {}
        captions: dict[str, str] = {}
        for section in sections:
            for t in section.tables:
                columns.setdefault(t.id, t.columns)
                captions.setdefault(t.id, t.caption)
        for table_id, rows in combined.items():
            if table_id in columns:
                self.table(Table(table_id, captions[table_id], columns[table_id], rows))
        return sections

    # -- everything

    def build(self) -> Report:
        self.details: dict[int, Detail] = {}
        c = self.c
        sections = [self.collection_section()]
        if self.scored:
            sections += [self.rrs_section(), self.category_section(), self.groups_section(),
                         self.submetric_section(), self.need_work_section()]  # fmt: skip
        sections.append(self.trends_section())
        for extra in (self.outcome_section(), self.comparison_section()):
            if extra is not None:
                sections.append(extra)
        deposits = self.deposit_sections() if self.scored else []
        sections.append(self.provenance_section())
        # Only what is shown: a figure or table computed for a block left out (no data)
        # is dropped, so that every CSV file is a table of the page.
        shown = {b.id for section in sections for b in section.blocks if isinstance(b, Figure | Table)}
        shown.update(t.id for deposit in deposits for t in deposit.tables)
        self.figures = {key: f for key, f in self.figures.items() if key in shown}
        self.tables = {key: t for key, t in self.tables.items() if key in shown}
        title = f"Readiness audit: {c.database}, rubric {c.rubric.name} {c.rubric.version}"
        summary = [
            f"Every score is under the rubric {c.rubric.name} {c.rubric.version} (sha256 {c.rubric.sha256})"
            + (f", compared with {c.compare_rubric.name} {c.compare_rubric.version} (sha256 {c.compare_rubric.sha256})"
               if c.compare_rubric is not None else "")
            + "; scores stored under any other rubric are not used.",
            f"Selection: {c.filters.describe()}.",
        ]  # fmt: skip
        return Report(title=title, summary=summary, sections=sections, deposits=deposits,
                      tables=self.tables, figures=self.figures, data=self.data)  # fmt: skip


def _probe_rows(tag: str, outcome: dict[str, Any], rubric: Rubric) -> list[list[Any]]:
    """A deposit's outcome components with their probe records, in component order."""
    probes = {p["probe"]: p for p in outcome.get("probes") or ()}
    rows = []
    for cid in ROS_COMPONENT_IDS:
        value = outcome["components"].get(cid)
        probe = probes.get(cid)
        if value is None and probe is None:
            continue
        rule = rubric.ros.get(cid)
        rows.append([tag, COMPONENT_LABELS[cid], value, rule.weight if rule is not None else 0.0,
                     probe["status"] if probe else "", (probe or {}).get("command") or "",
                     (probe or {}).get("exit_status"), (probe or {}).get("failure_class") or "",
                     (probe or {}).get("reason") or ""])  # fmt: skip
    return rows


def _evidence_text(e: Any) -> str:
    where = e.path or "(tree)"
    if e.cell is not None:
        where += f" cell {e.cell}"
    if e.line_start is not None:
        where += f":{e.line_start}" + (f"-{e.line_end}" if e.line_end not in (None, e.line_start) else "")
    return f"{where} {e.reason}"


def build_report_model(collection: Collection, load_details: Callable[[list[Item]], dict[int, Detail]]) -> Report:
    """Every table, figure description and per-deposit section of the report."""
    return _Builder(collection, load_details).build()


def details_from_store(store: Any, collection: Collection) -> Callable[[list[Item]], dict[int, Detail]]:
    """A loader of deposits' stored measurements (with evidence) and ranked fixes."""

    def load(items: list[Item]) -> dict[int, Detail]:
        out = {}
        for item in items:
            measurements = store.load_measurements(item.snapshot_id)
            outcome = store.outcome_for_snapshot(item.snapshot_id) if item.outcome is not None else None
            out[item.index] = Detail(measurements=measurements, fixes=rank_fixes(measurements, collection.rubric),
                                     outcome=outcome)  # fmt: skip
        return out

    return load
