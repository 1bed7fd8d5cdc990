"""The store's foundation: the connection, its lifecycle and schema, write batches, the
errors, records and helpers every table family shares. :class:`reproscore.store.Store`
composes it with one mixin per table family."""

from __future__ import annotations

import bisect
import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from operator import itemgetter
from pathlib import Path
from typing import Any, Self

import rfc8785
from sqlite_utils import Database

from scoring import __version__ as SCORER_VERSION
from scoring.aggregate import Score
from scoring.catalog import CATEGORY_KEYS, METRIC_IDS
from scoring.model import Evidence
from scoring.trees.swhid import TreeIdentity

from ..migrations import migration_names, migrations

DEFAULT_DB = "reproscore.db"
ENV_DB = "REPROSCORE_DB"
BUSY_TIMEOUT_SECONDS = 60.0
RESCORE_BATCH = 1000

TABLES = (
    "deposits",
    "snapshots",
    "deposit_snapshots",
    "detector_sets",
    "measurements",
    "evidence",
    "rubrics",
    "scores",
    "failures",
    "harvest_runs",
    "harvest_windows",
    "checkpoints",
    "swh_visits",
    "outcomes",
    "outcome_probes",
    "file_facts",
)

DEPOSIT_FIELDS = (
    "version_doi",
    "concept_doi",
    "origin_url",
    "title",
    "license",
    "creators",
    "publication_date",
    "datestamp",
    "related_urls",
    "swhid",
    "metadata",
)
_JSON_DEPOSIT_FIELDS = frozenset({"creators", "related_urls", "metadata"})

# The columns a harvested record fills (m003 adds all but the first eleven).
HARVEST_FIELDS = (
    *DEPOSIT_FIELDS,
    "oai_identifier",
    "version",
    "communities",
    "dates",
    "github_repo",
    "github_tag",
    "resource_type_general",
)
# Deposit states the pipeline works through (see docs/store.md, `deposits.status`).
PENDING, SCORED, FAILED, WITHDRAWN = "pending", "scored", "failed", "withdrawn"

_POSITION = {mid: i for i, mid in enumerate(METRIC_IDS)}
_FIRST = itemgetter(0)
_SECOND = itemgetter(1)
_METRIC_COUNT = len(METRIC_IDS)

_SCORE_COLUMNS = (
    "snapshot_id, rubric_id, detector_set_id, rrs, rrs_unclamped, "
    + ", ".join(f"{key.lower()}_raw" for key in CATEGORY_KEYS)
    + ", "
    + ", ".join(f"{key.lower()}_contribution" for key in CATEGORY_KEYS)
    + ", penalties_fired, scorer_version, computed_at"
)
# `rcs` starts as the RRS (parameter ?4): a tree's outcome, if any, then updates it (m005).
_INSERT_SCORE = (
    f"INSERT INTO scores ({_SCORE_COLUMNS}, rcs) VALUES"
    f" ({', '.join(f'?{i}' for i in range(1, _SCORE_COLUMNS.count(',') + 2))}, ?4) "
    "ON CONFLICT (rubric_id, snapshot_id, detector_set_id) DO NOTHING"
)

# A measurement that failed (outcome "error") is no measurement: a later run with the
# same detector version replaces it; anything else stored under that key is kept.
_UPSERT_MEASUREMENT = """
INSERT INTO measurements (
    snapshot_id, metric_id, metric_position, category, detector_version, value, applicable,
    level, outcome, reason, fix, counts, truncated, evidence_count, is_current,
    scorer_version, measured_at
) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)
ON CONFLICT (snapshot_id, metric_id, detector_version) DO UPDATE SET
    category = excluded.category, value = excluded.value, applicable = excluded.applicable,
    level = excluded.level, outcome = excluded.outcome, reason = excluded.reason,
    fix = excluded.fix, counts = excluded.counts, truncated = excluded.truncated,
    evidence_count = excluded.evidence_count, scorer_version = excluded.scorer_version,
    measured_at = excluded.measured_at
WHERE measurements.outcome = 'error' AND excluded.outcome <> 'error'
RETURNING id
"""
_INSERT_EVIDENCE = """
INSERT INTO evidence (measurement_id, position, path, line_start, line_end, cell, rule, reason, snippet)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
"""
# Two statements, old flag off before new flag on: the database allows one current
# measurement per snapshot and metric at every moment.
_UNMARK_CURRENT = """
UPDATE measurements SET is_current = 0
WHERE snapshot_id = ? AND metric_id = ? AND detector_version <> ? AND is_current = 1
"""
_MARK_CURRENT = """
UPDATE measurements SET is_current = 1
WHERE snapshot_id = ? AND metric_id = ? AND detector_version = ? AND is_current = 0
"""
# The snapshots of one rescore batch, then their current values in (snapshot, catalog)
# order; CROSS JOIN keeps the snapshots as the outer loop so that the values come from
# the covering index in order, without a sort.
_BATCH_SNAPSHOTS = """
SELECT id, detector_set_id FROM snapshots
WHERE id > ? AND detector_set_id IS NOT NULL ORDER BY id LIMIT ?
"""
_BATCH_VALUES = """
SELECT {columns} FROM snapshots s
CROSS JOIN measurements m INDEXED BY measurements_current
    ON m.snapshot_id = s.id AND m.is_current = 1
WHERE s.id > ? AND s.id <= ? AND s.detector_set_id IS NOT NULL
ORDER BY s.id, m.metric_position
"""
_SNAPSHOT_COLUMNS = "id, swhid, source, label, files, bytes, deposit_id, detector_set_id, fetched_at"
# The outcome components (ROS component id → column of `outcomes`), in rubric order.
_OUTCOME_COLUMNS = {"I": "i", "X": "x", "delta": "delta", "N": "n", "E_prime": "e_prime", "T": "t"}
_OUTCOME_SELECT = (
    "o.id, o.snapshot_id, s.swhid, o.deposit_id, o.origin, o.origin_detail, o.sandbox, "
    + ", ".join(f"o.{c}" for c in _OUTCOME_COLUMNS.values())
    + ", o.failure_class, o.environment, o.executed_at, o.duration, o.recorded_at"
)


class StoreError(Exception):
    """The database cannot be used for the request (its message says why).

    ``exit_status`` is what the command line ends with: 2 (usage) for a path that is not
    a usable database, 1 (runtime) for a database that broke while in use (disk full,
    I/O error)."""

    exit_status = 2

    def __init__(self, message: str, *, exit_status: int | None = None) -> None:
        super().__init__(message)
        if exit_status is not None:
            self.exit_status = exit_status


def check_location(path: str | os.PathLike[str]) -> None:
    """Refuse a database path whose folder does not exist: a typo must not end in a
    folder made on the fly, nor in SQLite's bare "unable to open database file"."""
    folder = Path(path).resolve().parent
    if not folder.is_dir():
        raise StoreError(f"{path}: the folder {folder} does not exist (create it, or give another --db)")


def _runtime_failure(exc: sqlite3.Error) -> bool:
    """Whether a SQLite error is the environment failing (not a bad path or file)."""
    code = getattr(exc, "sqlite_errorcode", None)  # the extended code: its low byte is the primary
    if code is not None:
        return code & 0xFF in (sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR)
    return "full" in str(exc) or "I/O" in str(exc)


class SchemaTooNew(StoreError):
    """The database was written by a newer reproscore whose migrations this one lacks."""


class RubricConflict(StoreError):
    """A rubric's (name, version) is stored with another content hash."""


class NotFound(StoreError):
    """No stored snapshot, deposit or score matches the request."""


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def detector_set_sha256(versions: Mapping[str, str]) -> str:
    """SHA-256 of the RFC 8785 form of a {metric id: detector version} map."""
    return hashlib.sha256(rfc8785.dumps(dict(versions))).hexdigest()


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True)
class SnapshotRecord:
    id: int
    swhid: str
    source: str
    label: str | None
    files: int
    bytes: int
    deposit_id: int | None
    detector_set_id: int | None
    fetched_at: str

    @property
    def identity(self) -> TreeIdentity:
        return TreeIdentity(self.swhid, self.files, self.bytes)


@dataclass(frozen=True)
class StoredScore:
    id: int
    snapshot_id: int
    rubric_id: int
    detector_set_id: int
    rrs: float
    rrs_unclamped: float
    raw: dict[str, float]
    contribution: dict[str, float]
    penalties_fired: list[str]
    scorer_version: str
    computed_at: str

    def provenance(self) -> dict[str, Any]:
        return {
            "score_id": self.id,
            "scorer_version": self.scorer_version,
            "computed_at": self.computed_at,
        }


@dataclass
class RescoreReport:
    """What a rescore did: snapshots seen, scores computed and newly stored, time taken."""

    rubric: dict[str, str]
    snapshots: int = 0
    scored: int = 0
    inserted: int = 0
    incomplete: int = 0
    seconds: float = 0.0
    incomplete_swhids: list[str] = field(default_factory=list)

    @property
    def per_second(self) -> float:
        return self.scored / self.seconds if self.seconds > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "rubric": self.rubric,
            "snapshots": self.snapshots,
            "scored": self.scored,
            "inserted": self.inserted,
            "already_stored": self.scored - self.inserted,
            "incomplete": self.incomplete,
            "seconds": round(self.seconds, 3),
            "snapshots_per_second": round(self.per_second, 1),
        }


@dataclass
class WindowCounts:
    """Records of one harvested window: seen, newly stored, and updated (newer datestamp)."""

    seen: int = 0
    new: int = 0
    updated: int = 0


def _announced_swhid(swh: Mapping[str, Any] | None) -> str | None:
    """The SWHID in a Zenodo ``swh`` field, whatever key holds it (its shape is not
    documented), or None."""
    if not swh:
        return None
    # Software Heritage records name their root directory "swhid" (beside a snapshot,
    # release and revision SWHID): that key first.
    named = swh.get("swhid")
    if isinstance(named, str) and named.startswith("swh:1:"):
        return named
    for value in swh.values():
        if isinstance(value, str) and value.startswith("swh:1:"):
            return value
    return None


def _harvest_values(record: Any) -> tuple:
    """The :data:`HARVEST_FIELDS` values of a harvested DepositRecord, JSON encoded."""
    creators = [
        {key: value for key, value in asdict(c).items() if value is not None}
        for c in record.creators
    ]
    origin = record.github_repo
    if origin and not origin.startswith(("http://", "https://")):
        origin = f"https://github.com/{origin}"  # an owner/repo form
    dates = dict(record.dates or {})
    return (
        record.doi,
        record.concept_doi,
        origin,
        record.title,
        record.licence,
        _json(creators),
        dates.get("Issued"),
        record.datestamp,
        _json(list(record.related or [])),
        _announced_swhid(record.swh),
        _json(record.raw_metadata),
        record.oai_identifier,
        record.version,
        _json(list(record.communities or [])),
        _json(dates),
        record.github_repo,
        record.github_tag,
        record.resource_type_general,
    )


def _score_row_from_score(
    snapshot_id: int, rubric_id: int, detector_set_id: int, scored: Score, computed_at: str
) -> tuple:
    categories = scored.categories
    return (
        snapshot_id,
        rubric_id,
        detector_set_id,
        scored.rrs,
        scored.rrs_unclamped,
        *(categories[key].raw for key in CATEGORY_KEYS),
        *(categories[key].gated for key in CATEGORY_KEYS),
        _json([p.id for p in scored.penalties if p.fired]),
        SCORER_VERSION,
        computed_at,
    )


def _stored_evidence(row: tuple) -> Evidence:
    path, reason, rule, line_start, line_end, snippet, cell = row
    evidence = Evidence(
        path=path, reason=reason, rule=rule, line_start=line_start, line_end=line_end, cell=cell
    )
    # The stored snippet was redacted when first made; redacting it again would mask
    # the mask ("abcd…(14 chars)" becomes "abcd…(15 chars)") and change the evidence.
    object.__setattr__(evidence, "snippet", snippet)
    return evidence


def _value_vectors(
    conn: sqlite3.Connection, snapshots: list[tuple[int, int]], low: int, high: int
) -> list[tuple[int, int, tuple[float, ...] | None]]:
    """Pair each (snapshot id, detector set id) of a batch with its current values in
    catalog order, or None when one is missing or failed. ``snapshots`` are the measured
    snapshots with ids in (low, high], in id order."""
    n = _METRIC_COUNT
    values = tuple(
        map(_FIRST, conn.execute(_BATCH_VALUES.format(columns="m.value"), (low, high)))
    )
    # The common case, decided without reading metric ids: no snapshot has more than n
    # current values (a unique index guarantees it), so n values per snapshot in all
    # means exactly n each, in (snapshot, catalog) order.
    if len(values) == n * len(snapshots) and None not in values:
        return [
            (snapshot_id, detector_set_id, values[k * n : k * n + n])
            for k, (snapshot_id, detector_set_id) in enumerate(snapshots)
        ]
    rows = conn.execute(_BATCH_VALUES.format(columns="s.id, m.value"), (low, high)).fetchall()
    sids = tuple(map(_FIRST, rows))
    values = tuple(map(_SECOND, rows))
    vectors = []
    start = 0
    for snapshot_id, detector_set_id in snapshots:
        start = bisect.bisect_left(sids, snapshot_id, start)
        end = bisect.bisect_right(sids, snapshot_id, start)
        vector = values[start:end]
        start = end
        complete = len(vector) == n and None not in vector
        vectors.append((snapshot_id, detector_set_id, vector if complete else None))
    return vectors


class WriteBatch:
    """The open batch of :meth:`Store.batch`: ``units`` done since the last commit,
    ``commits`` made so far."""

    def __init__(self, store: StoreBase, size: int) -> None:
        self.store = store
        self.size = size
        self.units = 0
        self.writes = 0
        self.commits = 0

    def done(self) -> None:
        """One unit (a deposit, a tree) is written; commit when the batch is full."""
        self.units += 1
        if self.units >= self.size:
            self._commit()

    def flush(self) -> None:
        """Commit what is written so far (nothing when nothing is)."""
        self._commit()

    def _commit(self) -> None:
        conn = self.store.conn
        if conn.in_transaction:
            conn.execute("COMMIT")
            self.commits += 1
        self.units = 0


class StoreBase:
    """One open store database. Use as a context manager, or call :meth:`close`.

    ``create=False`` refuses a path where no database exists yet (commands that only
    read must not leave an empty file behind a typo).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        create: bool = True,
        timeout: float = BUSY_TIMEOUT_SECONDS,
    ) -> None:
        self.path = str(path)
        self._batch: WriteBatch | None = None
        if not create and not Path(self.path).is_file():
            raise StoreError(f"{self.path}: no such database")
        if create:
            check_location(self.path)
        try:
            conn = sqlite3.connect(self.path, timeout=timeout, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot open the database: {exc}") from exc
        self.conn = conn
        try:
            self.db = Database(conn, execute_plugins=False)
            conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
            conn.execute("PRAGMA foreign_keys = ON")
            self._enable_wal(timeout)
            # In WAL mode NORMAL loses no consistency on a crash, only (on power loss)
            # the last commits, which an idempotent re-run writes again.
            conn.execute("PRAGMA synchronous = NORMAL")
            self._migrate()
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise StoreError(
                f"{self.path}: cannot use the database: {exc}",
                exit_status=1 if _runtime_failure(exc) else 2,
            ) from exc
        except BaseException:
            conn.close()
            raise
        self._rubric_ids: dict[tuple[str, str, str], int] = {}

    # ------------------------------------------------------------------ lifecycle

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self.conn.close()

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One short write transaction. IMMEDIATE takes the write lock up front, so a
        busy database is waited for (busy timeout) instead of failing half-way.

        Inside :meth:`batch`, the block is a savepoint of the batch's transaction
        instead: it is undone alone if it fails, and committed with the batch."""
        if self._batch is not None:
            if not self.conn.in_transaction:
                self.conn.execute("BEGIN IMMEDIATE")
            self.conn.execute("SAVEPOINT reproscore_write")
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK TO reproscore_write")
                self.conn.execute("RELEASE reproscore_write")
                raise
            self.conn.execute("RELEASE reproscore_write")
            self._batch.writes += 1
            return
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
            self.conn.execute("COMMIT")
        except BaseException:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise

    @contextmanager
    def batch(self, size: int) -> Iterator[WriteBatch]:
        """Group the writes of the block into transactions of ``size`` units (e.g. one
        unit per deposit: call :meth:`WriteBatch.done` after each). The transaction
        begins at the first write and is committed when ``size`` units are done, when
        :meth:`WriteBatch.flush` is called (before waiting for more work, so the write
        lock is never held across a wait) and at the end of the block. If the block
        raises, the uncommitted units are rolled back: each is then stored by a later
        run, never half."""
        if self._batch is not None:
            raise StoreError("batches do not nest")
        if self.conn.in_transaction:
            raise StoreError("a batch cannot start inside a transaction")
        batch = WriteBatch(self, max(1, size))
        self._batch = batch
        try:
            yield batch
        except BaseException:
            self._batch = None
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise
        self._batch = None
        batch._commit()

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """Several queries over one consistent state of the database."""
        if self.conn.in_transaction:  # a batch's open transaction: consistent already
            yield self.conn
            return
        self.conn.execute("BEGIN")
        try:
            yield self.conn
        finally:
            if self.conn.in_transaction:
                self.conn.execute("COMMIT")

    def _enable_wal(self, timeout: float) -> None:
        # Switching a new database to WAL needs an exclusive lock, and SQLite reports a
        # busy database at once instead of calling the busy handler: when two processes
        # create the store together, wait here the way the busy timeout would.
        deadline = time.monotonic() + timeout
        delay = 0.005
        while True:
            try:
                self.db.enable_wal()
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
            time.sleep(delay)
            delay = min(2 * delay, 0.25)

    # ------------------------------------------------------------------ schema

    def _migrate(self) -> None:
        known = migration_names()
        if self._check_applied() == len(known):
            return
        with self.write():
            applied = self._check_applied()
            if applied == len(known):
                return
            if applied == 0:
                foreign = [
                    name
                    for name in self.db.table_names()
                    if name not in TABLES and not name.startswith(("sqlite_", "_sqlite_"))
                ]
                if foreign:
                    raise StoreError(
                        f"{self.path}: not a reproscore database (it has other tables: "
                        f"{', '.join(sorted(foreign)[:5])})"
                    )
            migrations.apply(self.db)

    def _check_applied(self) -> int:
        applied = [m.name for m in migrations.applied(self.db)]
        known = set(migration_names())
        unknown = [name for name in applied if name not in known]
        if unknown:
            raise SchemaTooNew(
                f"{self.path}: this database was written by a newer reproscore: its schema has "
                f"migration(s) {', '.join(unknown)} that reproscore {SCORER_VERSION} does not "
                "know. Upgrade reproscore to use it (the database was not changed)."
            )
        return len(applied)

    def schema(self) -> list[dict[str, str]]:
        """The applied migrations, in order, with when each was applied."""
        return [{"name": m.name, "applied_at": m.applied_at} for m in migrations.applied(self.db)]

    # ------------------------------------------------------------------ statistics

    def stats(self) -> dict[str, Any]:
        """Counts per table, snapshots and deposits per source, scores per rubric version."""
        conn = self.conn
        with self.read():
            tables = {
                name: conn.execute(f"SELECT count(*) FROM {name}").fetchone()[0] for name in TABLES
            }
            snapshots_by_source = dict(
                conn.execute(
                    "SELECT source, count(*) FROM snapshots GROUP BY source ORDER BY source"
                ).fetchall()
            )
            deposits_by_source = dict(
                conn.execute(
                    "SELECT source, count(*) FROM deposits GROUP BY source ORDER BY source"
                ).fetchall()
            )
            rubrics = [
                {"name": name, "version": version, "sha256": sha256, "scores": count}
                for name, version, sha256, count in conn.execute(
                    "SELECT r.name, r.version, r.sha256,"
                    " (SELECT count(*) FROM scores s WHERE s.rubric_id = r.id)"
                    " FROM rubrics r ORDER BY r.name, r.version"
                ).fetchall()
            ]
            failures_by_stage = dict(
                conn.execute(
                    "SELECT stage, count(*) FROM failures GROUP BY stage ORDER BY stage"
                ).fetchall()
            )
        return {
            "database": self.path,
            "schema": [m["name"] for m in self.schema()],
            "tables": tables,
            "snapshots_by_source": snapshots_by_source,
            "deposits_by_source": deposits_by_source,
            "rubrics": rubrics,
            "failures_by_stage": failures_by_stage,
        }

    def integrity_check(self) -> list[str]:
        """``PRAGMA integrity_check`` and ``foreign_key_check``; empty when all is well."""
        problems = [
            row[0] for row in self.conn.execute("PRAGMA integrity_check").fetchall() if row[0] != "ok"
        ]
        problems += [
            f"foreign key: {row[0]} row {row[1]} -> {row[2]}"
            for row in self.conn.execute("PRAGMA foreign_key_check").fetchall()
        ]
        return problems
