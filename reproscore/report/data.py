"""What the report reads from the store: the deposits (and local trees) of the collection,
their current snapshots' measurements, their scores under one or two rubrics, the harvest
runs, the failures and the version histories. Read-only; nothing is fetched.

The unit of the report is an **item**: a deposit (a Zenodo record version, a Software
Heritage origin) with its current snapshot (the tree most recently linked to it, as
``reproscore show`` resolves it), or a tree scored locally (``reproscore score --db``,
snapshot source ``local``) that no deposit holds. An item is *scored* when all 26
current measurements of its snapshot are usable.

Scores come from the store when a score under the rubric (same content hash) and the
snapshot's current detector set is stored; otherwise they are computed in memory from
the stored measurements with :func:`scoring.aggregate.compile_rubric`, the arithmetic of
``reproscore rescore`` (so the numbers are the same either way). Measurement values are
read in batches of snapshots into numpy arrays; nothing grows per measurement in Python.

Outcome data (the execution tier): the current outcome of every snapshot (its most
recently executed one, ``Store.outcome_for_snapshot``) is read in one query; under each
rubric the ROS, coverage, alpha and RCS are the stored score's columns when that score is
used and names the current outcome, else computed from the outcome's components
(converted to the rubric's input scales) with ``scoring.aggregate.compute_ros`` and
``compute_rcs`` and rounded as the store rounds them, so the numbers are the same either
way. Items carry their outcome (:class:`ItemOutcome`) and the first rubric's ``ros``,
``ros_coverage``, ``alpha`` and ``rcs``; the report shows outcome data when any is set.
"""

from __future__ import annotations

import bisect
import json
import os
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from scoring.aggregate import compile_rubric, compute_rcs, compute_ros
from scoring.catalog import CATEGORY_KEYS, METRIC_IDS
from scoring.rubric import ROS_COMPONENT_IDS, Rubric

from ..store import Store

__all__ = [
    "Collection",
    "Failure",
    "Filters",
    "Item",
    "ItemOutcome",
    "Run",
    "RubricScores",
    "SOURCES",
    "Series",
    "SnapshotTable",
    "Version",
    "load_collection",
]

SOURCES = ("zenodo", "swh", "local")
STATES = ("scored", "failed", "pending", "withdrawn", "incomplete")
READ_BATCH = 5000
_METRICS = len(METRIC_IDS)
_CATEGORIES = len(CATEGORY_KEYS)


@dataclass(frozen=True)
class Filters:
    """Which part of the collection the report covers (None: no restriction)."""

    source: str | None = None  # zenodo | swh | local
    community: str | None = None  # a Zenodo community id
    since: str | None = None  # YYYY-MM-DD: items whose night is on or after it

    def describe(self) -> str:
        parts = []
        if self.source:
            parts.append(f"source {self.source}")
        if self.community:
            parts.append(f"community {self.community}")
        if self.since:
            parts.append(f"since {self.since}")
        return ", ".join(parts) or "the whole collection"


@dataclass(frozen=True)
class ItemOutcome:
    """The current execution outcome of an item's snapshot (``outcomes`` row)."""

    outcome_id: int
    origin: str
    executed_at: str
    failure_class: str | None
    sandbox: str | None
    components: dict[str, float | None]  # every ROS component id, 0-100 or None


@dataclass
class Item:
    """One deposit, or one local tree no deposit holds."""

    index: int
    deposit_id: int | None
    source: str
    source_id: str
    title: str | None  # the deposit's title; for a local tree, the path it was scored from
    version: str | None
    version_doi: str | None
    concept_doi: str | None
    origin_url: str | None
    publication_date: str | None
    communities: tuple[str, ...]
    status: str | None  # deposits.status (None for local trees and unharvested deposits)
    state: str  # one of STATES
    night: str | None  # YYYY-MM-DD: the harvest run that processed it, else the date it was stored
    snapshot_id: int | None
    swhid: str | None
    snapshot_row: int | None = None  # row in the SnapshotTable
    # Outcome data (execution tier): the snapshot's current outcome and, under the
    # report's rubric, its ROS (None when undefined), coverage, alpha and RCS, as stored.
    outcome: ItemOutcome | None = None
    ros: float | None = None
    rcs: float | None = None
    alpha: float | None = None
    ros_coverage: float | None = None
    # The name the current tree declares in its own metadata (scoring.declared), if any.
    declared_name: str | None = None

    @property
    def anchor(self) -> str:
        if self.deposit_id is not None:
            return f"deposit-{self.deposit_id}"
        return f"snapshot-{self.snapshot_id}"

    @property
    def name(self) -> str:
        """``source:source_id``: how ``reproscore show`` names a deposit."""
        return f"{self.source}:{self.source_id}"

    @property
    def label(self) -> str:
        """How the report names it: the deposit's title, else the name its tree
        declares, else its id; a local tree by its declared name, else its path."""
        if self.source == "local":
            return self.declared_name or self.title or self.source_id
        return self.title or self.declared_name or self.source_id

    @property
    def scored(self) -> bool:
        return self.state == "scored"


@dataclass(frozen=True)
class Run:
    id: int
    source: str
    command: str
    status: str
    started_at: str
    finished_at: str | None
    records: int
    deposits_scored: int
    deposits_failed: int

    @property
    def night(self) -> str:
        return self.started_at[:10]


@dataclass(frozen=True)
class Failure:
    item: int  # item index
    source: str
    stage: str
    error_class: str
    message: str
    attempts: int


@dataclass(frozen=True)
class Version:
    date: str | None
    label: str
    snapshot_row: int
    item: int  # the item (deposit) the version belongs to


@dataclass
class Series:
    """The scored versions of one concept DOI (Zenodo) or origin (Software Heritage
    visits, or Zenodo records without a concept DOI), oldest first. Every Zenodo record
    is a version (a new record with the same tree is a version that did not change);
    consecutive visits of an origin that found the same tree are one version."""

    key: str
    kind: str  # "concept DOI" | "origin"
    source: str
    versions: list[Version]


@dataclass
class SnapshotTable:
    """The current measurement values of the snapshots the report needs, one row each."""

    ids: np.ndarray  # (S,) int64, ascending
    swhids: list[str]
    detector_sets: np.ndarray  # (S,) int64, -1 when not measured
    values: np.ndarray  # (S, 26) float64, NaN where missing or failed
    applicable: np.ndarray  # (S, 26) bool
    complete: np.ndarray  # (S,) bool: all 26 values usable

    def row_of(self, snapshot_id: int) -> int | None:
        i = int(np.searchsorted(self.ids, snapshot_id))
        if i < self.ids.size and int(self.ids[i]) == snapshot_id:
            return i
        return None


@dataclass
class RubricScores:
    """Scores under one rubric, one row per SnapshotTable row (NaN when not scorable)."""

    rubric: Rubric
    rrs: np.ndarray  # (S,)
    unclamped: np.ndarray  # (S,)
    raw: np.ndarray  # (S, 5), CATEGORY_KEYS order
    contribution: np.ndarray  # (S, 5), CATEGORY_KEYS order: gated points
    fired: np.ndarray  # (S, P) bool, rubric penalty order
    penalty_points: np.ndarray  # (S,) points deducted by the penalties that fired
    stored: int = 0  # scores read from the store
    computed: int = 0  # scores computed in memory from stored measurements
    # Outcome data of the snapshots with a current outcome (NaN elsewhere, and ROS and
    # coverage NaN where the outcome gives no ROS; then alpha is 0 and RCS the RRS).
    ros: np.ndarray | None = None  # (S,) rounded to 2 digits, as stored
    coverage: np.ndarray | None = None  # (S,) 4 digits
    alpha: np.ndarray | None = None  # (S,) 4 digits
    rcs: np.ndarray | None = None  # (S,)

    @property
    def penalty_ids(self) -> tuple[str, ...]:
        return tuple(p.id for p in self.rubric.penalties)


@dataclass
class Collection:
    """Everything the report shows, read from one store."""

    database: str
    filters: Filters
    rubric: Rubric
    compare_rubric: Rubric | None
    items: list[Item]
    snapshots: SnapshotTable
    scores: RubricScores
    compare_scores: RubricScores | None
    runs: list[Run]
    failures: list[Failure]
    series: list[Series]
    schema: list[str] = field(default_factory=list)
    outcomes: dict[int, ItemOutcome] = field(default_factory=dict)  # SnapshotTable row -> outcome

    @property
    def scored_items(self) -> list[Item]:
        return [item for item in self.items if item.scored]

    @property
    def has_outcomes(self) -> bool:
        return any(item.scored and (item.outcome is not None or item.ros is not None) for item in self.items)


# --------------------------------------------------------------------------- loading


def _night_finder(runs: list[Run]):
    starts = [run.started_at for run in runs]

    def night(processed_at: str | None, fallback: str | None) -> str | None:
        if processed_at:
            i = bisect.bisect_right(starts, processed_at) - 1
            if i >= 0:
                run = runs[i]
                if run.finished_at is None or processed_at <= run.finished_at:
                    return run.night
        stamp = processed_at or fallback
        return stamp[:10] if stamp else None

    return night


def _read_runs(conn: sqlite3.Connection) -> list[Run]:
    rows = conn.execute(
        "SELECT id, source, command, status, started_at, finished_at, records,"
        " deposits_scored, deposits_failed FROM harvest_runs ORDER BY started_at, id"
    ).fetchall()
    return [Run(*row) for row in rows]


def _communities(text: str | None) -> tuple[str, ...]:
    if not text:
        return ()
    try:
        value = json.loads(text)
    except ValueError:
        return ()
    if not isinstance(value, list):
        return ()
    return tuple(sorted({str(v) for v in value if isinstance(v, str) and v}))


def _read_items(conn: sqlite3.Connection, filters: Filters, runs: list[Run]) -> list[Item]:
    night = _night_finder(runs)
    failed_subjects = {
        row[0]
        for row in conn.execute("SELECT DISTINCT deposit_id FROM failures WHERE deposit_id IS NOT NULL")
    }
    items: list[Item] = []
    if filters.source != "local":
        rows = conn.execute(
            """
            SELECT q.*, json_extract(s.declared, '$.name') FROM (
                SELECT d.id, d.source, d.source_id, d.title, d.version, d.version_doi, d.concept_doi,
                       d.origin_url, d.publication_date, d.communities, d.status, d.withdrawn,
                       d.processed_at, d.first_seen_at,
                       (SELECT ds.snapshot_id FROM deposit_snapshots ds WHERE ds.deposit_id = d.id
                        ORDER BY ds.seen_at DESC, ds.rowid DESC LIMIT 1) AS snapshot_id
                FROM deposits d
            ) q LEFT JOIN snapshots s ON s.id = q.snapshot_id ORDER BY q.id
            """
        ).fetchall()
        for (deposit_id, source, source_id, title, version, version_doi, concept_doi, origin_url,
             publication_date, communities, status, withdrawn, processed_at, first_seen_at,
             snapshot_id, declared_name) in rows:  # fmt: skip
            if filters.source is not None and source != filters.source:
                continue
            groups = _communities(communities)
            if filters.community is not None and filters.community not in groups:
                continue
            item_night = night(processed_at, first_seen_at)
            if filters.since is not None and (item_night is None or item_night < filters.since):
                continue
            if withdrawn or status == "withdrawn":
                state = "withdrawn"
            elif status == "failed" or (status is None and deposit_id in failed_subjects):
                state = "failed"
            else:
                state = "pending"  # refined to scored / incomplete once measurements are read
            items.append(
                Item(
                    index=len(items), deposit_id=deposit_id, source=source, source_id=source_id,
                    title=title, version=version, version_doi=version_doi,
                    concept_doi=concept_doi, origin_url=origin_url,
                    publication_date=publication_date, communities=groups, status=status,
                    state=state, night=item_night, snapshot_id=snapshot_id, swhid=None,
                    declared_name=declared_name,
                )
            )  # fmt: skip
    if filters.source in (None, "local") and filters.community is None:
        rows = conn.execute(
            "SELECT s.id, s.swhid, s.label, s.fetched_at, json_extract(s.declared, '$.name')"
            " FROM snapshots s WHERE s.source = 'local'"
            " AND NOT EXISTS (SELECT 1 FROM deposit_snapshots ds WHERE ds.snapshot_id = s.id)"
            " ORDER BY s.id"
        ).fetchall()
        for snapshot_id, swhid, label, fetched_at, declared_name in rows:
            item_night = night(None, fetched_at)
            if filters.since is not None and (item_night is None or item_night < filters.since):
                continue
            items.append(
                Item(
                    index=len(items), deposit_id=None, source="local", source_id=swhid,
                    title=label, version=None, version_doi=None, concept_doi=None,
                    origin_url=None, publication_date=None, communities=(), status=None,
                    state="pending", night=item_night, snapshot_id=snapshot_id, swhid=swhid,
                    declared_name=declared_name,
                )
            )  # fmt: skip
    return items


def _read_snapshots(conn: sqlite3.Connection, needed: Iterable[int]) -> SnapshotTable:
    ids = np.array(sorted(set(needed)), dtype=np.int64)
    count = ids.size
    values = np.full((count, _METRICS), np.nan)
    applicable = np.zeros((count, _METRICS), dtype=bool)
    seen = np.zeros(count, dtype=np.int64)
    detector_sets = np.full(count, -1, dtype=np.int64)
    swhids = [""] * count
    for start in range(0, count, READ_BATCH):
        chunk = ids[start : start + READ_BATCH]
        low, high = int(chunk[0]), int(chunk[-1])
        for sid, swhid, detector_set in conn.execute(
            "SELECT id, swhid, detector_set_id FROM snapshots WHERE id BETWEEN ? AND ?", (low, high)
        ):
            row = int(np.searchsorted(ids, sid))
            if row < count and ids[row] == sid:
                swhids[row] = swhid
                detector_sets[row] = -1 if detector_set is None else detector_set
        rows = conn.execute(
            "SELECT snapshot_id, metric_position,"
            " CASE WHEN outcome = 'error' OR value IS NULL THEN -1.0 ELSE value END, applicable"
            " FROM measurements WHERE is_current = 1 AND snapshot_id BETWEEN ? AND ?",
            (low, high),
        ).fetchall()
        if not rows:
            continue
        data = np.array(rows, dtype=np.float64)
        sids = data[:, 0].astype(np.int64)
        where = np.searchsorted(ids, sids)
        where_clipped = np.minimum(where, count - 1)
        keep = ids[where_clipped] == sids
        r = where_clipped[keep]
        positions = data[keep, 1].astype(np.int64)
        v = data[keep, 2]
        values[r, positions] = np.where(v < 0, np.nan, v)
        applicable[r, positions] = data[keep, 3] != 0
        np.add.at(seen, r, 1)
    complete = (seen == _METRICS) & ~np.isnan(values).any(axis=1) & (detector_sets >= 0)
    return SnapshotTable(
        ids=ids, swhids=swhids, detector_sets=detector_sets, values=values,
        applicable=applicable, complete=complete,
    )  # fmt: skip


_SCORE_QUERY = (
    "SELECT snapshot_id, detector_set_id, rrs, rrs_unclamped, "
    + ", ".join(f"{key.lower()}_raw" for key in CATEGORY_KEYS)
    + ", "
    + ", ".join(f"{key.lower()}_contribution" for key in CATEGORY_KEYS)
    + ", penalties_fired, outcome_id, ros, ros_coverage, alpha, rcs FROM scores WHERE rubric_id = ?"
)
# The current (most recently executed) outcome of every snapshot that has one, in one
# query (the correlated lookup runs on the index outcomes_by_snapshot).
_OUTCOME_COMPONENT_COLUMNS = ("i", "x", "delta", "n", "e_prime", "t")  # ROS_COMPONENT_IDS order
_OUTCOME_QUERY = (
    "SELECT o.snapshot_id, o.id, o.origin, o.executed_at, o.failure_class, o.sandbox, "
    + ", ".join(f"o.{c}" for c in _OUTCOME_COMPONENT_COLUMNS)
    + " FROM outcomes o WHERE o.id = (SELECT o2.id FROM outcomes o2 WHERE o2.snapshot_id = o.snapshot_id"
    " ORDER BY o2.executed_at DESC, o2.id DESC LIMIT 1) ORDER BY o.snapshot_id"
)


def _read_outcomes(conn: sqlite3.Connection, snapshots: SnapshotTable) -> dict[int, ItemOutcome]:
    """SnapshotTable row -> the snapshot's current outcome, for the snapshots that have one."""
    out: dict[int, ItemOutcome] = {}
    for sid, outcome_id, origin, executed_at, failure_class, sandbox, *values in conn.execute(_OUTCOME_QUERY):
        row = snapshots.row_of(sid)
        if row is None:
            continue
        out[row] = ItemOutcome(
            outcome_id=outcome_id, origin=origin, executed_at=executed_at, failure_class=failure_class,
            sandbox=sandbox, components=dict(zip(ROS_COMPONENT_IDS, values, strict=True)),
        )  # fmt: skip
    return out


def _outcome_scores(rubric: Rubric, rrs: float, outcome: ItemOutcome) -> tuple[float, float, float, float]:
    """(ROS, coverage, alpha, RCS) of ``outcome`` under ``rubric``, rounded as the store
    rounds them (NaN ROS and coverage when the outcome gives no ROS)."""
    from ..execution.outcomes import inputs_for_rubric

    ros = compute_ros(inputs_for_rubric(outcome.components, rubric), rubric)
    rcs = compute_rcs(rrs, ros, rubric)
    if ros is None:
        return np.nan, np.nan, round(rcs.alpha, 4), rcs.value
    return round(ros.value, 2), round(ros.coverage, 4), round(rcs.alpha, 4), rcs.value


def score_snapshots(store: Store, rubric: Rubric, snapshots: SnapshotTable,
                    outcomes: dict[int, ItemOutcome] | None = None) -> RubricScores:
    """Every scorable snapshot's score under ``rubric``: the stored score when one exists
    for its current detector set, else computed from its stored measurement values; with
    ``outcomes`` (SnapshotTable row -> current outcome), their ROS, coverage, alpha and
    RCS, stored or computed alike."""
    outcomes = outcomes or {}
    count = snapshots.ids.size
    penalties = rubric.penalties
    points = np.array([p.points for p in penalties], dtype=float)
    out = RubricScores(
        rubric=rubric,
        rrs=np.full(count, np.nan),
        unclamped=np.full(count, np.nan),
        raw=np.full((count, _CATEGORIES), np.nan),
        contribution=np.full((count, _CATEGORIES), np.nan),
        fired=np.zeros((count, len(penalties)), dtype=bool),
        penalty_points=np.full(count, np.nan),
    )
    out.ros, out.coverage = np.full(count, np.nan), np.full(count, np.nan)
    out.alpha, out.rcs = np.full(count, np.nan), np.full(count, np.nan)
    have = np.zeros(count, dtype=bool)
    have_outcome = np.zeros(count, dtype=bool)  # outcome columns read from the stored score
    rubric_id = store.rubric_id(rubric)
    if rubric_id is not None and count:
        ids = snapshots.ids
        fired_of: dict[str, np.ndarray] = {}
        position = {pid: i for i, pid in enumerate(p.id for p in penalties)}
        for row in store.conn.execute(_SCORE_QUERY, (rubric_id,)):
            sid = row[0]
            r = int(np.searchsorted(ids, sid))
            if r >= count or ids[r] != sid or have[r] or not snapshots.complete[r]:
                continue
            if row[1] != snapshots.detector_sets[r]:
                continue  # scored from older measurements: not the current score
            out.rrs[r] = row[2]
            out.unclamped[r] = row[3]
            out.raw[r] = row[4 : 4 + _CATEGORIES]
            out.contribution[r] = row[4 + _CATEGORIES : 4 + 2 * _CATEGORIES]
            text = row[4 + 2 * _CATEGORIES]
            hits = fired_of.get(text)
            if hits is None:
                hits = np.zeros(len(penalties), dtype=bool)
                for pid in json.loads(text):
                    if pid in position:
                        hits[position[pid]] = True
                fired_of[text] = hits
            out.fired[r] = hits
            have[r] = True
            outcome = outcomes.get(r) if outcomes else None
            if outcome is not None and row[5 + 2 * _CATEGORIES] == outcome.outcome_id:
                ros, coverage, alpha, rcs = row[6 + 2 * _CATEGORIES : 10 + 2 * _CATEGORIES]
                out.ros[r] = np.nan if ros is None else ros
                out.coverage[r] = np.nan if coverage is None else coverage
                out.alpha[r], out.rcs[r] = alpha, rcs
                have_outcome[r] = True
        out.stored = int(have.sum())
    compiled = compile_rubric(rubric)
    order = [compiled.category_keys.index(key) for key in CATEGORY_KEYS]
    missing = np.flatnonzero(snapshots.complete & ~have)
    for r in missing.tolist():
        inapplicable = compiled.inapplicable_categories(
            dict(zip(METRIC_IDS, snapshots.applicable[r].tolist(), strict=True)))
        raws, gateds, fired, unclamped, rrs = compiled(snapshots.values[r].tolist(), inapplicable)
        out.rrs[r] = rrs
        out.unclamped[r] = unclamped
        out.raw[r] = [raws[i] for i in order]
        out.contribution[r] = [gateds[i] for i in order]
        out.fired[r] = fired
    out.computed = int(missing.size)
    for r, outcome in outcomes.items():  # outcome columns not read from a stored score
        if snapshots.complete[r] and not have_outcome[r]:
            out.ros[r], out.coverage[r], out.alpha[r], out.rcs[r] = _outcome_scores(
                rubric, float(out.rrs[r]), outcome)
    scorable = snapshots.complete
    out.penalty_points[scorable] = out.fired[scorable].astype(float) @ points if len(penalties) else 0.0
    return out


def _read_series(conn: sqlite3.Connection, items: list[Item], snapshots: SnapshotTable,
                 filters: Filters, visits: dict[int, list[tuple[str, int, int]]]) -> list[Series]:
    """Version histories: Zenodo records grouped by concept DOI (else origin URL), in
    publication order; Software Heritage origins by their visits, in date order."""
    groups: dict[tuple[str, str, str], list[tuple[tuple, Version]]] = {}
    for item in items:
        if not item.scored or item.snapshot_row is None:
            continue
        if item.source == "swh":
            continue
        if item.concept_doi:
            key = (item.source, "concept DOI", item.concept_doi)
        elif item.origin_url:
            key = (item.source, "origin", item.origin_url)
        else:
            continue
        date = item.publication_date or item.night
        sort_key = (date or "", item.version or "", item.deposit_id or 0)
        label = item.version or item.version_doi or item.source_id
        groups.setdefault(key, []).append(
            (sort_key, Version(date=date, label=label, snapshot_row=item.snapshot_row, item=item.index))
        )
    for item in items:
        if item.source != "swh" or item.deposit_id is None:
            continue
        for date, visit, snapshot_id in visits.get(item.deposit_id, []):
            if filters.since is not None and date[:10] < filters.since:
                continue
            row = snapshots.row_of(snapshot_id)
            if row is None or not snapshots.complete[row]:
                continue
            key = ("swh", "origin", item.source_id)
            groups.setdefault(key, []).append(
                ((date, "", visit), Version(date=date[:10], label=f"visit {visit}", snapshot_row=row, item=item.index))
            )
    series = []
    for (source, kind, key), entries in sorted(groups.items()):
        entries.sort(key=lambda e: e[0])
        versions: list[Version] = []
        for _, version in entries:
            if source == "swh" and versions and versions[-1].snapshot_row == version.snapshot_row:
                continue  # the origin visited again, its tree unchanged: not a new version
            versions.append(version)
        if len(versions) >= 2:
            series.append(Series(key=key, kind=kind, source=source, versions=versions))
    return series


def _read_visits(conn: sqlite3.Connection) -> dict[int, list[tuple[str, int, int]]]:
    visits: dict[int, list[tuple[str, int, int]]] = {}
    for deposit_id, date, visit, snapshot_id in conn.execute(
        "SELECT deposit_id, date, visit, snapshot_id FROM swh_visits"
        " WHERE snapshot_id IS NOT NULL ORDER BY deposit_id, date, visit"
    ):
        visits.setdefault(deposit_id, []).append((date, visit, snapshot_id))
    return visits


def _read_failures(conn: sqlite3.Connection, items: list[Item]) -> list[Failure]:
    by_deposit = {item.deposit_id: item for item in items if item.deposit_id is not None}
    by_snapshot = {item.snapshot_id: item for item in items if item.deposit_id is None}
    out = []
    for deposit_id, snapshot_id, stage, error_class, message, attempts in conn.execute(
        "SELECT deposit_id, snapshot_id, stage, error_class, message, attempts FROM failures ORDER BY id"
    ):
        item = by_deposit.get(deposit_id) if deposit_id is not None else by_snapshot.get(snapshot_id)
        if item is None:
            continue
        out.append(Failure(item.index, item.source, stage, error_class, message, attempts))
    return out


def load_collection(
    store: Store,
    rubric: Rubric,
    *,
    compare_rubric: Rubric | None = None,
    filters: Filters | None = None,
) -> Collection:
    """Read the collection (under ``filters``) and score it under ``rubric`` (and
    ``compare_rubric``) from stored measurements, in one consistent read."""
    filters = filters or Filters()
    if filters.source is not None and filters.source not in SOURCES:
        raise ValueError(f"unknown source {filters.source!r} (expected one of {', '.join(SOURCES)})")
    conn = store.conn
    # Resolve the rubrics' stored ids before the read transaction (a conflict is an error).
    store.rubric_id(rubric)
    if compare_rubric is not None:
        store.rubric_id(compare_rubric)
    with store.read():
        all_runs = _read_runs(conn)
        # A deposit's night is that of the run that processed it, whatever the filters;
        # the runs listed are those of the selected source and period.
        items = _read_items(conn, filters, all_runs)
        runs = [
            run for run in all_runs
            if (filters.source is None or filters.source in run.source.split(","))
            and (filters.since is None or run.night >= filters.since)
        ]
        visits = _read_visits(conn) if filters.source in (None, "swh") else {}
        needed = {item.snapshot_id for item in items if item.snapshot_id is not None}
        listed = {item.deposit_id for item in items if item.source == "swh"}
        for deposit_id, entries in visits.items():
            if deposit_id in listed:
                needed.update(snapshot_id for _, _, snapshot_id in entries)
        snapshots = _read_snapshots(conn, needed)
        for item in items:
            if item.snapshot_id is None:
                continue
            row = snapshots.row_of(item.snapshot_id)
            item.snapshot_row = row
            item.swhid = snapshots.swhids[row] if row is not None else None
            if row is not None and snapshots.complete[row]:
                item.state = "scored"
            elif item.state == "pending" and row is not None:
                item.state = "incomplete"
        outcomes = _read_outcomes(conn, snapshots)
        scores = score_snapshots(store, rubric, snapshots, outcomes)
        compare = None if compare_rubric is None else score_snapshots(store, compare_rubric, snapshots, outcomes)
        for item in items:
            outcome = outcomes.get(item.snapshot_row) if item.scored else None
            if outcome is not None:
                r = item.snapshot_row
                item.outcome = outcome
                item.ros = None if np.isnan(scores.ros[r]) else float(scores.ros[r])
                item.ros_coverage = None if np.isnan(scores.coverage[r]) else float(scores.coverage[r])
                item.alpha, item.rcs = float(scores.alpha[r]), float(scores.rcs[r])
        series = _read_series(conn, items, snapshots, filters, visits)
        failures = _read_failures(conn, items)
        schema = [m["name"] for m in store.schema()]
    return Collection(
        database=os.path.basename(store.path), filters=filters, rubric=rubric,
        compare_rubric=compare_rubric, items=items, snapshots=snapshots, scores=scores,
        compare_scores=compare, runs=runs, failures=failures, series=series, schema=schema,
        outcomes=outcomes,
    )  # fmt: skip
