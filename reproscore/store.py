"""The provenance store: one SQLite file holding deposits, snapshots, measurements with
their evidence, rubrics and scores, so that every score can be audited and recomputed.

* **Identity.** A snapshot is one source tree, identified by the SWHID of its root
  directory (:mod:`scoring.trees.swhid`); the same tree reached twice is one row and is
  measured once. Measurements are keyed by (snapshot, metric, detector version); the
  ones used for scoring are flagged ``is_current``.
* **Provenance.** A score row names its snapshot, its rubric (name, version, sha256,
  canonical text stored in ``rubrics``), the detector versions behind it
  (``detector_sets``), the scorer version and when it was computed.
* **Robustness.** WAL mode, foreign keys on, a busy timeout, and short ``BEGIN
  IMMEDIATE`` transactions: a snapshot with all its measurements, evidence and score
  is written in one transaction, so a killed process leaves nothing half-written and
  two writers queue instead of failing. Every write is idempotent (insert-or-ignore on
  natural keys; updates only when something changed), so a re-run changes nothing.
* **Schema.** Created and upgraded by the migrations of :mod:`reproscore.migrations`,
  recorded in the database; a database written by a newer reproscore is refused.

``docs/store.md`` documents every table and column.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import os
import re
import sqlite3
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from operator import itemgetter
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import rfc8785
from sqlite_utils import Database

from scoring import __version__ as SCORER_VERSION
from scoring.aggregate import Score, compile_rubric
from scoring.catalog import CATEGORY_KEYS, METRIC_IDS
from scoring.declared import DeclaredMetadata
from scoring.model import OUTCOME_ERROR, Evidence, Inventory, Measurement, Measurements
from scoring.rubric import Rubric, RubricError, parse_rubric
from scoring.trees.swhid import SWHID_DIR_PREFIX, TreeIdentity

from .migrations import MIGRATION_SET, migration_names, migrations

__all__ = [
    "BUSY_TIMEOUT_SECONDS",
    "DEFAULT_DB",
    "DEPOSIT_FIELDS",
    "ENV_DB",
    "MIGRATION_SET",
    "RESCORE_BATCH",
    "TABLES",
    "HARVEST_FIELDS",
    "NotFound",
    "WindowCounts",
    "RescoreReport",
    "RubricConflict",
    "SchemaTooNew",
    "SnapshotRecord",
    "Store",
    "StoreError",
    "StoredScore",
    "detector_set_sha256",
    "utc_now",
]

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

    def __init__(self, store: Store, size: int) -> None:
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


class Store:
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

    def __enter__(self) -> Store:
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

    # ------------------------------------------------------------------ rubrics

    def rubric_id(self, rubric: Rubric) -> int | None:
        """The stored id of ``rubric``, or None; a (name, version) stored with another
        hash raises :class:`RubricConflict`."""
        key = (rubric.name, rubric.version, rubric.sha256)
        if key in self._rubric_ids:
            return self._rubric_ids[key]
        row = self.conn.execute(
            "SELECT id, sha256 FROM rubrics WHERE name = ? AND version = ?",
            (rubric.name, rubric.version),
        ).fetchone()
        if row is None:
            return None
        if row[1] != rubric.sha256:
            raise RubricConflict(
                f"rubric {rubric.name}@{rubric.version} is stored in {self.path} with sha256 "
                f"{row[1]}; this definition ({rubric.source}) has sha256 {rubric.sha256}. "
                "One (name, version) must always mean the same rubric: change the version "
                "when changing a rubric."
            )
        self._rubric_ids[key] = row[0]
        return row[0]

    def ensure_rubric(self, rubric: Rubric) -> int:
        """Store ``rubric`` (once) and return its id; see :meth:`rubric_id` for conflicts."""
        found = self.rubric_id(rubric)
        if found is not None:
            return found
        with self.write() as conn:
            found = self.rubric_id(rubric)  # another process may have stored it meanwhile
            if found is not None:
                return found
            conn.execute(
                "INSERT INTO rubrics (name, version, sha256, canonical, definition, source_text,"
                " source, stored_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    rubric.name,
                    rubric.version,
                    rubric.sha256,
                    rfc8785.dumps(rubric.canonical).decode("utf-8"),
                    _json(rubric.to_dict()),
                    rubric.text,
                    rubric.source,
                    utc_now(),
                ),
            )
        found = self.rubric_id(rubric)
        assert found is not None
        return found

    def load_stored_rubric(self, rubric_id: int) -> Rubric:
        """Rebuild a stored rubric from its definition (so scores can be recomputed even
        when the file it came from is gone)."""
        row = self.conn.execute(
            "SELECT name, version, sha256, definition FROM rubrics WHERE id = ?", (rubric_id,)
        ).fetchone()
        if row is None:
            raise NotFound(f"no rubric with id {rubric_id} in {self.path}")
        name, version, sha256, definition = row
        try:
            rubric = parse_rubric(definition, source=f"{self.path}:{name}@{version}")
        except RubricError as exc:
            raise StoreError(f"stored rubric {name}@{version} cannot be read: {exc}") from exc
        if rubric.sha256 != sha256:
            raise StoreError(
                f"stored rubric {name}@{version} does not hash to its recorded sha256 "
                f"({rubric.sha256} != {sha256})"
            )
        return rubric

    def find_stored_rubric(self, reference: str) -> Rubric | None:
        """A stored rubric by ``name`` (its newest stored version) or ``name@version``."""
        name, _, version = reference.partition("@")
        if version:
            row = self.conn.execute(
                "SELECT id FROM rubrics WHERE name = ? AND version = ?", (name, version)
            ).fetchone()
        else:
            row = self.conn.execute(
                "SELECT id FROM rubrics WHERE name = ? ORDER BY stored_at DESC, id DESC LIMIT 1",
                (name,),
            ).fetchone()
        return None if row is None else self.load_stored_rubric(row[0])

    # ------------------------------------------------------------------ deposits

    def upsert_deposit(self, source: str, source_id: str, **fields: Any) -> int:
        """Insert or update a deposit by (source, source id); unchanged data writes nothing.

        ``fields`` are columns of :data:`DEPOSIT_FIELDS`; ``creators``, ``related_urls``
        and ``metadata`` may be given as JSON-ready values.
        """
        unknown = sorted(set(fields) - set(DEPOSIT_FIELDS))
        if unknown:
            raise ValueError(f"unknown deposit field(s): {', '.join(unknown)}")
        values = {
            name: _json(fields[name])
            if name in _JSON_DEPOSIT_FIELDS and fields.get(name) is not None
            else fields.get(name)
            for name in DEPOSIT_FIELDS
        }
        now = utc_now()
        columns = ", ".join(DEPOSIT_FIELDS)
        changed = " OR ".join(f"deposits.{c} IS NOT excluded.{c}" for c in DEPOSIT_FIELDS)
        updates = ", ".join(f"{c} = excluded.{c}" for c in DEPOSIT_FIELDS)
        with self.write() as conn:
            conn.execute(
                f"INSERT INTO deposits (source, source_id, {columns}, first_seen_at, updated_at) "
                f"VALUES (?, ?, {', '.join('?' * len(DEPOSIT_FIELDS))}, ?, ?) "
                f"ON CONFLICT (source, source_id) DO UPDATE SET {updates}, updated_at = excluded.updated_at "
                f"WHERE {changed}",
                (source, source_id, *values.values(), now, now),
            )
            row = conn.execute(
                "SELECT id FROM deposits WHERE source = ? AND source_id = ?", (source, source_id)
            ).fetchone()
        return row[0]

    def link_deposit(self, deposit_id: int, snapshot_id: int) -> None:
        """Record that ``deposit_id`` holds the tree ``snapshot_id`` (once)."""
        with self.write() as conn:
            self._link(conn, deposit_id, snapshot_id)

    @staticmethod
    def _link(conn: sqlite3.Connection, deposit_id: int, snapshot_id: int) -> None:
        conn.execute(
            "INSERT INTO deposit_snapshots (deposit_id, snapshot_id, seen_at) VALUES (?, ?, ?)"
            " ON CONFLICT DO NOTHING",
            (deposit_id, snapshot_id, utc_now()),
        )

    # ------------------------------------------------------------------ failures

    def record_failure(
        self,
        stage: str,
        error_class: str,
        message: str,
        *,
        deposit_id: int | None = None,
        snapshot_id: int | None = None,
    ) -> None:
        """Record that ``stage`` failed for a deposit or snapshot; a repeat counts an attempt."""
        if deposit_id is None and snapshot_id is None:
            raise ValueError("a failure concerns a deposit or a snapshot")
        now = utc_now()
        with self.write() as conn:
            conn.execute(
                "INSERT INTO failures (deposit_id, snapshot_id, stage, error_class, message,"
                " attempts, first_at, last_at) VALUES (?, ?, ?, ?, ?, 1, ?, ?)"
                " ON CONFLICT (coalesce(deposit_id, 0), coalesce(snapshot_id, 0), stage)"
                " DO UPDATE SET attempts = attempts + 1, error_class = excluded.error_class,"
                " message = excluded.message, last_at = excluded.last_at",
                (deposit_id, snapshot_id, stage, error_class, message, now, now),
            )

    # ------------------------------------------------------------------ harvesting

    def start_run(self, source: str, command: str, from_ts: str | None, until_ts: str | None) -> int:
        """Record a harvest run as running; returns its id."""
        with self.write() as conn:
            cursor = conn.execute(
                "INSERT INTO harvest_runs (source, command, status, from_ts, until_ts, started_at)"
                " VALUES (?, ?, 'running', ?, ?, ?)",
                (source, command, from_ts, until_ts, utc_now()),
            )
        return int(cursor.lastrowid)

    def finish_run(self, run_id: int, status: str, *, message: str | None = None, **counts: int) -> None:
        """Close a run with its final status, counters (``windows``, ``records``,
        ``deposits_scored``, ``deposits_failed``) and an optional message."""
        allowed = {"windows", "records", "deposits_scored", "deposits_failed"}
        unknown = sorted(set(counts) - allowed)
        if unknown:
            raise ValueError(f"unknown run counter(s): {', '.join(unknown)}")
        sets = "".join(f", {name} = ?" for name in counts)
        with self.write() as conn:
            conn.execute(
                f"UPDATE harvest_runs SET status = ?, message = ?, finished_at = ?{sets} WHERE id = ?",
                (status, message, utc_now(), *counts.values(), run_id),
            )

    def interrupt_stale(self, source: str) -> int:
        """Mark the runs and windows of ``source`` still recorded as running (their process
        was killed) as interrupted. Call it only while holding the run lock."""
        now = utc_now()
        with self.write() as conn:
            windows = conn.execute(
                "UPDATE harvest_windows SET status = 'interrupted', finished_at = ?"
                " WHERE source = ? AND status = 'running'",
                (now, source),
            ).rowcount
            conn.execute(
                "UPDATE harvest_runs SET status = 'interrupted', finished_at = ?"
                " WHERE source = ? AND status = 'running'",
                (now, source),
            )
        return windows

    def start_window(self, run_id: int, source: str, start: str, end: str) -> int:
        """Record a window ``[start, end]`` as being harvested; returns its id."""
        with self.write() as conn:
            cursor = conn.execute(
                'INSERT INTO harvest_windows (run_id, source, start, "end", status, started_at)'
                " VALUES (?, ?, ?, ?, 'running', ?)",
                (run_id, source, start, end, utc_now()),
            )
        return int(cursor.lastrowid)

    def fail_window(self, window_id: int, error: str, *, attempts: int = 1) -> None:
        """Close a window that could not be harvested; the checkpoint does not move."""
        with self.write() as conn:
            conn.execute(
                "UPDATE harvest_windows SET status = 'failed', error = ?, attempts = ?,"
                " finished_at = ? WHERE id = ?",
                (error, attempts, utc_now(), window_id),
            )

    def checkpoint(self, source: str) -> str | None:
        """The ``until`` of the last completed window of ``source`` (None before the first)."""
        row = self.conn.execute(
            "SELECT until_ts FROM checkpoints WHERE source = ?", (source,)
        ).fetchone()
        return None if row is None else row[0]

    def complete_window(
        self, window_id: int, records: Iterable[Any], *, pages: int, attempts: int = 1
    ) -> WindowCounts:
        """Store every record of a harvested window, close the window and advance the
        checkpoint, all in one transaction: a killed process leaves either the whole
        window stored with the checkpoint moved, or nothing (and the window is harvested
        again). The checkpoint moves only forward and only when the window starts at or
        before it, so a window harvested out of sequence (``--from``) never hides a gap.

        ``records`` are :class:`harvester.records.DepositRecord`. A record is upserted by
        (source, OAI identifier): a newer datestamp updates the row and makes the deposit
        pending again; the same or an older datestamp changes nothing.
        """
        counts = WindowCounts()
        now = utc_now()
        with self.write() as conn:
            source, start, end = conn.execute(
                'SELECT source, start, "end" FROM harvest_windows WHERE id = ?', (window_id,)
            ).fetchone()
            for record in records:
                counts.seen += 1
                outcome = self._upsert_harvested(conn, record, now)
                if outcome == "new":
                    counts.new += 1
                elif outcome == "updated":
                    counts.updated += 1
            conn.execute(
                "UPDATE harvest_windows SET status = 'completed', pages = ?, attempts = ?,"
                " records_seen = ?, records_new = ?, records_updated = ?, error = NULL,"
                " finished_at = ? WHERE id = ?",
                (pages, attempts, counts.seen, counts.new, counts.updated, now, window_id),
            )
            current = conn.execute(
                "SELECT until_ts FROM checkpoints WHERE source = ?", (source,)
            ).fetchone()
            if current is None or (start <= current[0] < end):
                conn.execute(
                    "INSERT INTO checkpoints (source, until_ts, window_id, updated_at)"
                    " VALUES (?, ?, ?, ?) ON CONFLICT (source) DO UPDATE SET"
                    " until_ts = excluded.until_ts, window_id = excluded.window_id,"
                    " updated_at = excluded.updated_at",
                    (source, end, window_id, now),
                )
        return counts

    @staticmethod
    def _upsert_harvested(conn: sqlite3.Connection, record: Any, now: str) -> str:
        """Insert or update one harvested record; returns 'new', 'updated' or 'same'."""
        values = _harvest_values(record)
        found = conn.execute(
            "SELECT id, datestamp FROM deposits WHERE source = ? AND source_id = ?",
            (record.source, record.record_id),
        ).fetchone()
        if found is not None and found[1] is not None and found[1] >= record.datestamp:
            return "same"  # this datestamp (or a newer one) is stored already
        columns = ", ".join(HARVEST_FIELDS)
        if found is None:
            conn.execute(
                f"INSERT INTO deposits (source, source_id, {columns}, status, first_seen_at,"
                f" updated_at) VALUES (?, ?, {', '.join('?' * len(HARVEST_FIELDS))}, ?, ?, ?)",
                (record.source, record.record_id, *values, PENDING, now, now),
            )
            return "new"
        updates = ", ".join(f"{c} = ?" for c in HARVEST_FIELDS)
        conn.execute(
            f"UPDATE deposits SET {updates}, status = ?, updated_at = ? WHERE id = ?",
            (*values, PENDING, now, found[0]),
        )
        return "updated"

    # ------------------------------------------------------------------ Software Heritage

    def complete_swh_window(
        self, window_id: int, found: Iterable[tuple[Any, Mapping[str, Any]]], *, pages: int,
        advance: bool,
    ) -> WindowCounts:
        """Store what one Software Heritage discovery found, close its window and (with
        ``advance``) move the ``swh`` checkpoint to the window's end, in one transaction.

        ``found`` pairs a DepositRecord (source ``swh``, one per origin, its datestamp the
        visit date) with the visit's facts: ``visit``, ``visit_type``, ``date``,
        ``status``, ``swh_snapshot``, ``branch``, ``target_type``, ``target``,
        ``release``, ``revision``, ``directory`` (SWHID) and ``discovered_by``. The
        deposit row is upserted as a harvested record (a newer visit makes it pending
        again) and every visit not seen before is added to ``swh_visits``: the origin's
        history is kept even when its tree did not change.
        """
        counts = WindowCounts()
        now = utc_now()
        with self.write() as conn:
            end = conn.execute(
                'SELECT "end" FROM harvest_windows WHERE id = ?', (window_id,)
            ).fetchone()[0]
            for record, visit in found:
                counts.seen += 1
                outcome = self._upsert_harvested(conn, record, now)
                if outcome == "new":
                    counts.new += 1
                elif outcome == "updated":
                    counts.updated += 1
                deposit_id = conn.execute(
                    "SELECT id FROM deposits WHERE source = ? AND source_id = ?",
                    (record.source, record.record_id),
                ).fetchone()[0]
                conn.execute(
                    "INSERT INTO swh_visits (deposit_id, origin_url, visit, visit_type, date,"
                    " status, swh_snapshot, branch, target_type, target, release, revision,"
                    " directory, discovered_by, recorded_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                    " ON CONFLICT (origin_url, visit) DO NOTHING",
                    (deposit_id, record.record_id, visit["visit"], visit.get("visit_type"),
                     visit["date"], visit["status"], visit["swh_snapshot"], visit.get("branch"),
                     visit.get("target_type"), visit.get("target"), visit.get("release"),
                     visit.get("revision"), visit["directory"], visit["discovered_by"], now),
                )
                if outcome != "same":
                    # The announced root directory of the latest visit, before any fetch.
                    conn.execute(
                        "UPDATE deposits SET swhid = ? WHERE id = ?", (visit["directory"], deposit_id)
                    )
            conn.execute(
                "UPDATE harvest_windows SET status = 'completed', pages = ?, records_seen = ?,"
                " records_new = ?, records_updated = ?, error = NULL, finished_at = ? WHERE id = ?",
                (pages, counts.seen, counts.new, counts.updated, now, window_id),
            )
            if advance:
                conn.execute(
                    "INSERT INTO checkpoints (source, until_ts, window_id, updated_at)"
                    " VALUES ('swh', ?, ?, ?) ON CONFLICT (source) DO UPDATE SET"
                    " until_ts = excluded.until_ts, window_id = excluded.window_id,"
                    " updated_at = excluded.updated_at WHERE excluded.until_ts > checkpoints.until_ts",
                    (end, window_id, now),
                )
        return counts

    def swh_visit_known(self, origin_url: str, visit: int) -> bool:
        """Whether this visit of the origin is recorded already (nothing to resolve)."""
        return self.conn.execute(
            "SELECT 1 FROM swh_visits WHERE origin_url = ? AND visit = ?", (origin_url, visit)
        ).fetchone() is not None

    def latest_swh_visit(self, deposit_id: int) -> tuple[int, str] | None:
        """(visit row id, root directory SWHID) of the deposit's latest recorded visit."""
        row = self.conn.execute(
            "SELECT id, directory FROM swh_visits WHERE deposit_id = ?"
            " ORDER BY date DESC, visit DESC LIMIT 1",
            (deposit_id,),
        ).fetchone()
        return None if row is None else (row[0], row[1])

    def zenodo_linked_origins(self) -> list[str]:
        """Origins Software Heritage may hold for Zenodo records in the store: the GitHub
        repository of a GitHub-integration release, and an ``origin=`` qualifier of the
        record's ``swh`` field. De-duplicated, in first-seen order."""
        seen: dict[str, None] = {}
        rows = self.conn.execute(
            "SELECT origin_url, swh FROM deposits WHERE source = 'zenodo' ORDER BY id"
        ).fetchall()
        for origin_url, swh in rows:
            if origin_url:
                seen.setdefault(origin_url.rstrip("/"), None)
            for value in (json.loads(swh) if swh else {}).values():
                if isinstance(value, str):
                    match = re.search(r";origin=([^;]+)", value)
                    if match:
                        seen.setdefault(unquote(match.group(1)), None)
        return list(seen)

    def mark_swh_scored(self, deposit_id: int, visit_row_id: int, snapshot_id: int,
                        submodules: list[str] | None) -> None:
        """Link the deposit and its visit to the tree, record the tree's submodules (when
        it was fetched) and mark the deposit done, in one transaction."""
        now = utc_now()
        with self.write() as conn:
            self._link(conn, deposit_id, snapshot_id)
            conn.execute(
                "UPDATE swh_visits SET snapshot_id = ? WHERE id = ?", (snapshot_id, visit_row_id)
            )
            if submodules is not None:
                conn.execute(
                    "UPDATE snapshots SET submodules = ? WHERE id = ?",
                    (_json(submodules), snapshot_id),
                )
            conn.execute(
                "UPDATE deposits SET status = ?, processed_at = ? WHERE id = ?",
                (SCORED, now, deposit_id),
            )

    def deposit_id(self, source: str, source_id: str) -> int | None:
        row = self.conn.execute(
            "SELECT id FROM deposits WHERE source = ? AND source_id = ?", (source, source_id)
        ).fetchone()
        return None if row is None else row[0]

    def deposits_to_process(self, source: str, *, max_attempts: int) -> list[tuple[int, str]]:
        """(id, source id) of the deposits the pipeline still has to fetch and score:
        pending ones, and failed ones that failed fewer than ``max_attempts`` times."""
        rows = self.conn.execute(
            "SELECT d.id, d.source_id FROM deposits d WHERE d.source = ? AND (d.status = ?"
            " OR (d.status = ? AND (SELECT coalesce(max(f.attempts), 0) FROM failures f"
            " WHERE f.deposit_id = d.id) < ?)) ORDER BY d.id",
            (source, PENDING, FAILED, max_attempts),
        ).fetchall()
        return [(row[0], row[1]) for row in rows]

    def save_deposit_files(
        self,
        deposit_id: int,
        files: list[dict[str, Any]],
        *,
        swh: dict[str, Any] | None = None,
        withdrawn: bool = False,
        tombstone: dict[str, Any] | None = None,
    ) -> None:
        """Store a deposit's file list and ``swh`` field as the REST API gave them; a
        withdrawn deposit (HTTP 410) keeps its tombstone and is not processed further."""
        swhid = _announced_swhid(swh)
        with self.write() as conn:
            conn.execute(
                "UPDATE deposits SET files = ?, swh = ?, withdrawn = ?, tombstone = ?,"
                " swhid = coalesce(?, swhid),"
                " status = CASE WHEN ? THEN 'withdrawn' ELSE status END,"
                " processed_at = CASE WHEN ? THEN ? ELSE processed_at END WHERE id = ?",
                (
                    _json(files),
                    None if swh is None else _json(swh),
                    int(withdrawn),
                    None if tombstone is None else _json(tombstone),
                    swhid,
                    int(withdrawn),
                    int(withdrawn),
                    utc_now(),
                    deposit_id,
                ),
            )

    def mark_deposit_scored(self, deposit_id: int, snapshot_id: int) -> None:
        """Link the deposit to its tree and mark it done (one transaction)."""
        with self.write() as conn:
            self._link(conn, deposit_id, snapshot_id)
            conn.execute(
                "UPDATE deposits SET status = ?, processed_at = ? WHERE id = ?",
                (SCORED, utc_now(), deposit_id),
            )

    def mark_deposit_failed(self, deposit_id: int, stage: str, error_class: str, message: str) -> None:
        """Record a deposit's failure at ``stage`` and mark it failed (one transaction)."""
        now = utc_now()
        with self.write() as conn:
            conn.execute(
                "INSERT INTO failures (deposit_id, snapshot_id, stage, error_class, message,"
                " attempts, first_at, last_at) VALUES (?, NULL, ?, ?, ?, 1, ?, ?)"
                " ON CONFLICT (coalesce(deposit_id, 0), coalesce(snapshot_id, 0), stage)"
                " DO UPDATE SET attempts = attempts + 1, error_class = excluded.error_class,"
                " message = excluded.message, last_at = excluded.last_at",
                (deposit_id, stage, error_class, message, now, now),
            )
            conn.execute(
                "UPDATE deposits SET status = ?, processed_at = ? WHERE id = ?",
                (FAILED, now, deposit_id),
            )

    # ------------------------------------------------------------------ snapshots

    def _snapshot(self, where: str, params: tuple) -> SnapshotRecord | None:
        row = self.conn.execute(
            f"SELECT {_SNAPSHOT_COLUMNS} FROM snapshots WHERE {where}", params
        ).fetchone()
        return None if row is None else SnapshotRecord(*row)

    def find_snapshot(self, swhid: str) -> SnapshotRecord | None:
        return self._snapshot("swhid = ?", (swhid,))

    def detector_versions(self, detector_set_id: int) -> dict[str, str]:
        row = self.conn.execute(
            "SELECT versions FROM detector_sets WHERE id = ?", (detector_set_id,)
        ).fetchone()
        return {} if row is None else json.loads(row[0])

    def save_snapshot(
        self,
        identity: TreeIdentity,
        measurements: Measurements,
        *,
        source: str = "local",
        label: str | None = None,
        deposit_id: int | None = None,
        score: tuple[int, Score] | None = None,
    ) -> int:
        """Store a tree, its measurements with evidence and optionally one score
        (``(rubric id, Score)``), all in one transaction. Returns the snapshot id.

        A tree already stored keeps its row; measurements already stored under the same
        detector version are kept (unless they had failed); the given measurements
        become the snapshot's current ones.
        """
        missing = [mid for mid in METRIC_IDS if mid not in measurements.measurements]
        if missing:
            raise ValueError(f"cannot store partial measurements: missing {', '.join(missing)}")
        versions = {mid: measurements[mid].detector_version for mid in METRIC_IDS}
        now = utc_now()
        with self.write() as conn:
            conn.execute(
                "INSERT INTO snapshots (swhid, source, deposit_id, label, files, bytes, inventory,"
                " declared, fetched_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                # A stored tree keeps its row; only its declared record follows the newest
                # measurement that read one (trees stored before m007 have none).
                " ON CONFLICT (swhid) DO UPDATE SET declared = COALESCE(excluded.declared, declared)",
                (
                    identity.swhid,
                    source,
                    deposit_id,
                    label,
                    identity.files,
                    identity.bytes,
                    _json(measurements.inventory.to_dict()),
                    None if measurements.declared is None else _json(measurements.declared.to_dict()),
                    now,
                ),
            )
            snapshot_id, current_set = conn.execute(
                "SELECT id, detector_set_id FROM snapshots WHERE swhid = ?", (identity.swhid,)
            ).fetchone()
            detector_set_id = self._ensure_detector_set(conn, versions)
            for mid in METRIC_IDS:
                self._save_measurement(conn, snapshot_id, measurements[mid], now)
            keys = [(snapshot_id, mid, versions[mid]) for mid in METRIC_IDS]
            conn.executemany(_UNMARK_CURRENT, keys)
            conn.executemany(_MARK_CURRENT, keys)
            if current_set != detector_set_id:
                conn.execute(
                    "UPDATE snapshots SET detector_set_id = ? WHERE id = ?",
                    (detector_set_id, snapshot_id),
                )
            if deposit_id is not None:
                self._link(conn, deposit_id, snapshot_id)
            if score is not None:
                rubric_id, scored = score
                conn.execute(
                    _INSERT_SCORE,
                    _score_row_from_score(snapshot_id, rubric_id, detector_set_id, scored, now),
                )
                self._refresh_outcome_scores(conn, snapshot_id=snapshot_id)
        return snapshot_id

    @staticmethod
    def _ensure_detector_set(conn: sqlite3.Connection, versions: Mapping[str, str]) -> int:
        sha256 = detector_set_sha256(versions)
        conn.execute(
            "INSERT INTO detector_sets (sha256, versions) VALUES (?, ?) ON CONFLICT DO NOTHING",
            (sha256, _json(dict(versions))),
        )
        return conn.execute("SELECT id FROM detector_sets WHERE sha256 = ?", (sha256,)).fetchone()[0]

    @staticmethod
    def _save_measurement(
        conn: sqlite3.Connection, snapshot_id: int, m: Measurement, now: str
    ) -> None:
        row = conn.execute(
            _UPSERT_MEASUREMENT,
            (
                snapshot_id,
                m.metric_id,
                _POSITION[m.metric_id],
                m.category,
                m.detector_version,
                m.value,
                int(m.applicable),
                m.level,
                m.outcome,
                m.reason,
                m.fix,
                _json(m.counts),
                int(m.truncated),
                len(m.evidence),
                SCORER_VERSION,
                now,
            ),
        ).fetchone()
        if row is None:
            return  # already stored under this detector version
        measurement_id = row[0]
        conn.execute("DELETE FROM evidence WHERE measurement_id = ?", (measurement_id,))
        conn.executemany(
            _INSERT_EVIDENCE,
            [
                (
                    measurement_id,
                    position,
                    e.path,
                    e.line_start,
                    e.line_end,
                    e.cell,
                    e.rule,
                    e.reason,
                    e.snippet,
                )
                for position, e in enumerate(m.evidence)
            ],
        )

    def load_measurements(self, snapshot_id: int) -> Measurements:
        """The snapshot's current measurements, rebuilt exactly as they were stored."""
        with self.read() as conn:
            found = conn.execute(
                "SELECT inventory, declared FROM snapshots WHERE id = ?", (snapshot_id,)
            ).fetchone()
            if found is None:
                raise NotFound(f"no snapshot with id {snapshot_id} in {self.path}")
            rows = conn.execute(
                "SELECT id, metric_id, category, value, applicable, level, outcome, reason, fix,"
                " counts, detector_version, truncated, scorer_version FROM measurements"
                " WHERE snapshot_id = ? AND is_current = 1 ORDER BY metric_position",
                (snapshot_id,),
            ).fetchall()
            evidence_rows = conn.execute(
                "SELECT e.measurement_id, e.path, e.reason, e.rule, e.line_start, e.line_end,"
                " e.snippet, e.cell FROM evidence e JOIN measurements m ON m.id = e.measurement_id"
                " WHERE m.snapshot_id = ? AND m.is_current = 1"
                " ORDER BY e.measurement_id, e.position",
                (snapshot_id,),
            ).fetchall()
        evidence: dict[int, list[Evidence]] = {}
        for row in evidence_rows:
            evidence.setdefault(row[0], []).append(_stored_evidence(row[1:]))
        by_id: dict[str, Measurement] = {}
        scorer_version = ""
        for row in rows:
            (mid_, metric_id, category, value, applicable, level, outcome, reason, fix, counts,
             detector_version, truncated, scorer_version) = row  # fmt: skip
            by_id[metric_id] = Measurement(
                metric_id=metric_id,
                category=category,
                value=value,
                applicable=bool(applicable),
                level=level,
                evidence=evidence.get(mid_, []),
                fix=fix,
                reason=reason,
                counts=json.loads(counts),
                outcome=outcome,
                detector_version=detector_version,
                truncated=bool(truncated),
            )
        return Measurements(
            measurements=by_id,
            inventory=Inventory.from_dict(json.loads(found[0])),
            scorer_version=scorer_version,
            declared=None if found[1] is None else DeclaredMetadata.from_dict(json.loads(found[1])),
        )

    def reusable_measurements(
        self, swhid: str, versions: Mapping[str, str]
    ) -> tuple[SnapshotRecord, Measurements] | None:
        """The stored measurements of tree ``swhid`` when they were made by exactly these
        detector versions and none failed: such a tree need not be measured again."""
        record = self.find_snapshot(swhid)
        if record is None or record.detector_set_id is None:
            return None
        if self.detector_versions(record.detector_set_id) != dict(versions):
            return None
        measurements = self.load_measurements(record.id)
        if len(measurements.measurements) != _METRIC_COUNT or any(
            m.outcome == OUTCOME_ERROR for m in measurements.measurements.values()
        ):
            return None
        return record, measurements

    def resolve(self, reference: str) -> SnapshotRecord:
        """The snapshot named by ``reference``: a SWHID (``swh:1:dir:…``), a unique prefix
        of its hash (at least 6 hex digits), or a deposit as ``source:source_id``, a
        version DOI or an origin URL (its most recently linked snapshot)."""
        ref = reference.strip()
        if ref.startswith(SWHID_DIR_PREFIX):
            record = self.find_snapshot(ref.lower())
            if record is None:
                raise NotFound(f"no snapshot {ref} in {self.path}")
            return record
        if re.fullmatch(r"[0-9a-fA-F]{6,40}", ref):
            rows = self.conn.execute(
                f"SELECT {_SNAPSHOT_COLUMNS} FROM snapshots WHERE swhid GLOB ? LIMIT 6",
                (SWHID_DIR_PREFIX + ref.lower() + "*",),
            ).fetchall()
            if len(rows) == 1:
                return SnapshotRecord(*rows[0])
            if len(rows) > 1:
                candidates = ", ".join(row[1] for row in rows[:5])
                raise NotFound(f"{ref} is ambiguous in {self.path}: {candidates}, …")
        deposit_id = self._resolve_deposit(ref)
        if deposit_id is None:
            raise NotFound(f"no snapshot or deposit {reference!r} in {self.path}")
        record = self._snapshot(
            "id = (SELECT snapshot_id FROM deposit_snapshots WHERE deposit_id = ?"
            " ORDER BY seen_at DESC, rowid DESC LIMIT 1)",
            (deposit_id,),
        )
        if record is None:
            raise NotFound(f"deposit {reference!r} has no stored snapshot in {self.path}")
        return record

    def _resolve_deposit(self, ref: str) -> int | None:
        doi = re.sub(r"^(?:doi:|https?://(?:dx\.)?doi\.org/)", "", ref, flags=re.IGNORECASE)
        queries: list[tuple[str, tuple]] = [
            ("version_doi = ? COLLATE NOCASE", (doi,)),
            ("origin_url = ?", (ref,)),
        ]
        source, sep, source_id = ref.partition(":")
        if sep and not ref.startswith(("http://", "https://")):
            queries.insert(0, ("source = ? AND source_id = ?", (source, source_id)))
        for where, params in queries:
            row = self.conn.execute(
                f"SELECT id FROM deposits WHERE {where} ORDER BY id DESC LIMIT 1", params
            ).fetchone()
            if row is not None:
                return row[0]
        return None

    # ------------------------------------------------------------------ scores

    def stored_score(self, snapshot: SnapshotRecord, rubric_id: int | None = None) -> StoredScore | None:
        """The score of the snapshot's current measurements under ``rubric_id``, or the
        most recently computed one under any rubric."""
        where = "snapshot_id = ? AND detector_set_id = ?"
        params: tuple = (snapshot.id, snapshot.detector_set_id)
        if rubric_id is not None:
            where += " AND rubric_id = ?"
            params += (rubric_id,)
        row = self.conn.execute(
            f"SELECT id, {_SCORE_COLUMNS} FROM scores WHERE {where}"
            " ORDER BY computed_at DESC, id DESC LIMIT 1",
            params,
        ).fetchone()
        if row is None:
            return None
        n = len(CATEGORY_KEYS)
        raws = row[6 : 6 + n]
        contributions = row[6 + n : 6 + 2 * n]
        return StoredScore(
            id=row[0],
            snapshot_id=row[1],
            rubric_id=row[2],
            detector_set_id=row[3],
            rrs=row[4],
            rrs_unclamped=row[5],
            raw=dict(zip(CATEGORY_KEYS, raws, strict=True)),
            contribution=dict(zip(CATEGORY_KEYS, contributions, strict=True)),
            penalties_fired=json.loads(row[6 + 2 * n]),
            scorer_version=row[7 + 2 * n],
            computed_at=row[8 + 2 * n],
        )

    def rescore(self, rubric: Rubric, *, batch_size: int = RESCORE_BATCH) -> RescoreReport:
        """Score every stored snapshot under ``rubric`` from stored measurements alone.

        Streams in batches of ``batch_size`` snapshots (memory does not grow with the
        collection): one indexed read of the current values in catalog order, the
        compiled rubric, one ``executemany`` of the new score rows, each batch in its
        own short transactions. Idempotent: existing scores are left as they are.
        Snapshots with a failed or missing measurement are counted as incomplete.
        """
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        started = time.perf_counter()
        rubric_id = self.ensure_rubric(rubric)
        compiled = compile_rubric(rubric)
        report = RescoreReport(rubric=rubric.identity())
        order = [compiled.category_keys.index(key) for key in CATEGORY_KEYS]
        in_catalog_order = order == list(range(len(CATEGORY_KEYS)))
        penalty_ids = compiled.penalty_ids
        fired_json: dict[tuple[bool, ...], str] = {}
        conn = self.conn
        last = 0
        while True:
            with self.read():
                snapshots = conn.execute(_BATCH_SNAPSHOTS, (last, batch_size)).fetchall()
                if not snapshots:
                    break
                high = snapshots[-1][0]
                vectors = _value_vectors(conn, snapshots, last, high)
            computed_at = utc_now()
            out = []
            incomplete = []
            for snapshot_id, detector_set_id, vector in vectors:
                if vector is None:
                    incomplete.append(snapshot_id)
                    continue
                raws, gateds, fired, unclamped, rrs = compiled(vector)
                if not in_catalog_order:
                    raws = tuple(raws[i] for i in order)
                    gateds = tuple(gateds[i] for i in order)
                penalties = fired_json.get(fired)
                if penalties is None:
                    penalties = fired_json[fired] = _json(
                        [pid for pid, hit in zip(penalty_ids, fired, strict=True) if hit]
                    )
                out.append(
                    (snapshot_id, rubric_id, detector_set_id, rrs, unclamped, *raws, *gateds,
                     penalties, SCORER_VERSION, computed_at)  # fmt: skip
                )
            report.snapshots += len(snapshots)
            report.scored += len(out)
            report.incomplete += len(incomplete)
            if out:
                with self.write():
                    # rowcount: the rows inserted, without the trigger's updates (m005)
                    report.inserted += conn.executemany(_INSERT_SCORE, out).rowcount
            for snapshot_id in incomplete[: 20 - len(report.incomplete_swhids)]:
                report.incomplete_swhids.append(
                    conn.execute("SELECT swhid FROM snapshots WHERE id = ?", (snapshot_id,)).fetchone()[0]
                )
            last = high
        with self.write() as conn:
            self._refresh_outcome_scores(conn, rubric_id=rubric_id)
        report.seconds = time.perf_counter() - started
        return report

    # ------------------------------------------------------------------ exports
    # The queries the exporters use (exporters.assessment): which deposit and tree an
    # identifier names, a deposit's metadata, the Software Heritage visit of a tree, when
    # a tree's measurements were made, and every scored deposit of a collection.

    def resolve_subject(self, reference: str) -> tuple[int | None, SnapshotRecord]:
        """The deposit (or None) and the tree that ``reference`` names, for an export.

        ``reference`` is a version DOI (``10.5281/zenodo.123``, ``doi:…``,
        ``https://doi.org/…``; a concept DOI names its newest version), a Zenodo record
        id (``123``) or record URL, an origin URL (the Software Heritage origin, else the
        newest Zenodo deposit linking that repository), a snapshot SWHID (``swh:1:dir:…``,
        qualifiers allowed; the deposit through which the tree was first reached, if
        any) or ``source:source_id``. A deposit names its most recently linked tree.
        Raises :class:`NotFound` naming what was tried.
        """
        ref = reference.strip()
        if not ref:
            raise NotFound("an empty deposit id names nothing")
        if ref.lower().startswith(SWHID_DIR_PREFIX):
            swhid = ref.split(";", 1)[0].lower()
            record = self.find_snapshot(swhid)
            if record is None:
                raise NotFound(f"no snapshot {swhid} in {self.path}")
            deposit_id = record.deposit_id
            if deposit_id is None:
                row = self.conn.execute(
                    "SELECT deposit_id FROM deposit_snapshots WHERE snapshot_id = ?"
                    " ORDER BY seen_at, rowid LIMIT 1",
                    (record.id,),
                ).fetchone()
                deposit_id = None if row is None else row[0]
            return deposit_id, record
        candidates = self._subject_deposits(ref)
        if not candidates:
            raise NotFound(
                f"no deposit or snapshot matches {reference!r} in {self.path} (looked for a "
                "DOI, a Zenodo record id or URL, an origin URL, a snapshot SWHID and "
                "source:id)"
            )
        for deposit_id in candidates:
            record = self._snapshot(
                "id = (SELECT snapshot_id FROM deposit_snapshots WHERE deposit_id = ?"
                " ORDER BY seen_at DESC, rowid DESC LIMIT 1)",
                (deposit_id,),
            )
            if record is not None:
                return deposit_id, record
        row = self.conn.execute(
            "SELECT source, source_id, status FROM deposits WHERE id = ?", (candidates[0],)
        ).fetchone()
        status = f" (status {row[2]})" if row[2] else ""
        raise NotFound(
            f"deposit {row[0]}:{row[1]}{status}, named by {reference!r}, has no stored tree "
            f"in {self.path}: it was not scored"
        )

    def _subject_deposits(self, ref: str) -> list[int]:
        """Ids of the deposits ``ref`` may name, best first (see :meth:`resolve_subject`)."""
        def ids(where: str, params: tuple) -> list[int]:
            return [
                row[0]
                for row in self.conn.execute(
                    f"SELECT id FROM deposits WHERE {where} ORDER BY id DESC", params
                ).fetchall()
            ]

        doi = re.sub(r"^(?:doi:|https?://(?:dx\.)?doi\.org/)", "", ref, flags=re.IGNORECASE)
        if re.fullmatch(r"10\.\d{4,9}/\S+", doi):
            return ids("version_doi = ? COLLATE NOCASE", (doi,)) or ids(
                "concept_doi = ? COLLATE NOCASE", (doi,)
            )
        record = re.fullmatch(r"https?://(?:www\.)?zenodo\.org/records?/(\d+)/?", ref)
        if ref.isdigit() or record:
            return ids("source = 'zenodo' AND source_id = ?", (record.group(1) if record else ref,))
        if ref.startswith(("http://", "https://")):
            url = ref.rstrip("/")
            return ids("source = 'swh' AND source_id IN (?, ?)", (url, url + "/")) + ids(
                "source <> 'swh' AND origin_url IN (?, ?)", (url, url + "/")
            )
        source, sep, source_id = ref.partition(":")
        if sep:
            return ids("source = ? AND source_id = ?", (source, source_id))
        return []

    def deposit_record(self, deposit_id: int) -> dict[str, Any]:
        """Every stored column of a deposit, JSON columns decoded."""
        cursor = self.conn.execute("SELECT * FROM deposits WHERE id = ?", (deposit_id,))
        row = cursor.fetchone()
        if row is None:
            raise NotFound(f"no deposit with id {deposit_id} in {self.path}")
        record = dict(zip([d[0] for d in cursor.description], row, strict=True))
        for name in ("creators", "related_urls", "communities", "dates", "files", "swh", "tombstone"):
            if isinstance(record.get(name), str):
                record[name] = json.loads(record[name])
        if isinstance(record.get("metadata"), str):
            try:  # stored as JSON: the raw XML as a string, or an object
                record["metadata"] = json.loads(record["metadata"])
            except ValueError:
                pass
        return record

    def swh_visit_of(self, swhid: str, deposit_id: int | None = None) -> dict[str, Any] | None:
        """The latest recorded Software Heritage visit whose root directory is ``swhid``
        (a visit of ``deposit_id`` first), or None when the archive never showed it."""
        cursor = self.conn.execute(
            "SELECT origin_url, visit, date, swh_snapshot, release, revision FROM swh_visits"
            " WHERE directory = ? ORDER BY (deposit_id IS ?) DESC, date DESC, visit DESC LIMIT 1",
            (swhid, deposit_id),
        )
        row = cursor.fetchone()
        return None if row is None else dict(zip([d[0] for d in cursor.description], row, strict=True))

    def measurement_times(self, snapshot_id: int) -> tuple[str | None, str | None]:
        """When the tree's current measurements were first and last stored."""
        row = self.conn.execute(
            "SELECT min(measured_at), max(measured_at) FROM measurements"
            " WHERE snapshot_id = ? AND is_current = 1",
            (snapshot_id,),
        ).fetchone()
        return row[0], row[1]

    def score_under(
        self, snapshot: SnapshotRecord, rubric: Rubric | None = None
    ) -> tuple[StoredScore, Rubric]:
        """The stored score of the snapshot's current measurements under ``rubric``, or
        its most recently computed one, with the rubric it was computed under. Raises
        :class:`NotFound` saying what is missing (and, for a rubric, how to score it)."""
        if snapshot.detector_set_id is None:
            raise NotFound(f"snapshot {snapshot.swhid} has no stored measurements")
        if rubric is None:
            stored = self.stored_score(snapshot)
            if stored is None:
                raise NotFound(f"snapshot {snapshot.swhid} has no stored score")
            return stored, self.load_stored_rubric(stored.rubric_id)
        rubric_id = self.rubric_id(rubric)
        stored = None if rubric_id is None else self.stored_score(snapshot, rubric_id)
        if stored is None:
            raise NotFound(
                f"snapshot {snapshot.swhid} has no stored score under rubric "
                f"{rubric.name}@{rubric.version}; run: reproscore rescore --db {self.path} "
                f"--rubric {rubric.name}"
            )
        return stored, rubric

    def score_outcome(self, score_id: int) -> dict[str, Any]:
        """The execution-tier columns of stored score ``score_id``: ``outcome_id`` (the
        tree's outcome behind them, None without one), ``ros`` (rounded to 2 digits, None
        when undefined), ``ros_coverage`` and ``alpha`` (4 digits) and ``rcs`` (the RRS
        without an outcome). Raises :class:`NotFound` for an unknown score."""
        row = self.conn.execute(
            "SELECT outcome_id, ros, ros_coverage, alpha, rcs FROM scores WHERE id = ?", (score_id,)
        ).fetchone()
        if row is None:
            raise NotFound(f"no score with id {score_id} in {self.path}")
        return dict(zip(("outcome_id", "ros", "ros_coverage", "alpha", "rcs"), row, strict=True))

    def detector_set_sha256_of(self, detector_set_id: int) -> str:
        row = self.conn.execute(
            "SELECT sha256 FROM detector_sets WHERE id = ?", (detector_set_id,)
        ).fetchone()
        return "" if row is None else row[0]

    def scored_subjects(self, rubric_id: int | None = None) -> list[tuple[int | None, SnapshotRecord]]:
        """(deposit id, tree) of every deposit whose latest tree has a stored score of its
        current measurements (under ``rubric_id`` when given), in deposit id order; then
        (None, tree) for every such tree that no deposit holds."""
        score_filter = (
            "EXISTS (SELECT 1 FROM scores sc WHERE sc.snapshot_id = s.id"
            " AND sc.detector_set_id = s.detector_set_id"
            + ("" if rubric_id is None else " AND sc.rubric_id = ?")
            + ")"
        )
        params: tuple = () if rubric_id is None else (rubric_id,)
        columns = ", ".join(f"s.{c.strip()}" for c in _SNAPSHOT_COLUMNS.split(","))
        rows = self.conn.execute(
            f"SELECT d.id, {columns} FROM deposits d JOIN snapshots s ON s.id ="
            " (SELECT snapshot_id FROM deposit_snapshots WHERE deposit_id = d.id"
            "  ORDER BY seen_at DESC, rowid DESC LIMIT 1)"
            f" WHERE {score_filter} ORDER BY d.id",
            params,
        ).fetchall()
        out: list[tuple[int | None, SnapshotRecord]] = [(row[0], SnapshotRecord(*row[1:])) for row in rows]
        alone = self.conn.execute(
            f"SELECT {columns} FROM snapshots s WHERE NOT EXISTS (SELECT 1 FROM deposit_snapshots"
            f" ds WHERE ds.snapshot_id = s.id) AND {score_filter} ORDER BY s.id",
            params,
        ).fetchall()
        out.extend((None, SnapshotRecord(*row)) for row in alone)
        return out

    # ------------------------------------------------------------------ execution outcomes
    # The execution tier (reproscore.execution, docs/execution.md): the outcome
    # components of a tree, from a sandboxed run (`execute`) or imported from outside
    # (`outcome import`), and the ROS, alpha and RCS they give every stored score. A tree's
    # current outcome is its most recently executed one.

    def save_outcome(
        self,
        snapshot_id: int,
        *,
        components: Mapping[str, float | None],
        origin: str,
        executed_at: str,
        deposit_id: int | None = None,
        origin_detail: Mapping[str, Any] | None = None,
        sandbox: str | None = None,
        failure_class: str | None = None,
        environment: Mapping[str, Any] | None = None,
        duration: float | None = None,
        probes: Iterable[Mapping[str, Any]] = (),
    ) -> int:
        """Store one outcome of tree ``snapshot_id`` with its probes, and bring every
        score of the tree up to date with the tree's current outcome, in one
        transaction. ``components`` are on the 0–100 scale (None: not available)."""
        with self.write() as conn:
            outcome_id = self._insert_outcome(
                conn, snapshot_id, components=components, origin=origin, executed_at=executed_at,
                deposit_id=deposit_id, origin_detail=origin_detail, sandbox=sandbox,
                failure_class=failure_class, environment=environment, duration=duration, probes=probes,
            )
            self._refresh_outcome_scores(conn, snapshot_id=snapshot_id)
        return outcome_id

    def save_outcomes(self, outcomes: Iterable[tuple[int, Mapping[str, Any]]]) -> list[int]:
        """Several outcomes ``(snapshot id, save_outcome keywords)`` in one transaction:
        all are stored or none."""
        ids = []
        with self.write() as conn:
            touched = set()
            for snapshot_id, fields in outcomes:
                ids.append(self._insert_outcome(conn, snapshot_id, **fields))
                touched.add(snapshot_id)
            for snapshot_id in sorted(touched):
                self._refresh_outcome_scores(conn, snapshot_id=snapshot_id)
        return ids

    @staticmethod
    def _insert_outcome(
        conn: sqlite3.Connection, snapshot_id: int, *, components: Mapping[str, float | None], origin: str,
        executed_at: str, deposit_id: int | None = None, origin_detail: Mapping[str, Any] | None = None,
        sandbox: str | None = None, failure_class: str | None = None,
        environment: Mapping[str, Any] | None = None, duration: float | None = None,
        probes: Iterable[Mapping[str, Any]] = (),
    ) -> int:
        unknown = sorted(set(components) - set(_OUTCOME_COLUMNS))
        if unknown:
            raise ValueError(f"unknown outcome component(s): {', '.join(unknown)}")
        columns = ", ".join(_OUTCOME_COLUMNS.values())
        values = tuple(components.get(cid) for cid in _OUTCOME_COLUMNS)
        outcome_id = conn.execute(
            f"INSERT INTO outcomes (snapshot_id, deposit_id, origin, origin_detail, sandbox, {columns},"
            " failure_class, environment, executed_at, duration, recorded_at, scorer_version)"
            f" VALUES (?, ?, ?, ?, ?, {', '.join('?' * len(values))}, ?, ?, ?, ?, ?, ?) RETURNING id",
            (snapshot_id, deposit_id, origin, _json(dict(origin_detail or {})), sandbox, *values,
             failure_class, _json(dict(environment or {})), executed_at, duration, utc_now(), SCORER_VERSION),
        ).fetchone()[0]
        conn.executemany(
            "INSERT INTO outcome_probes (outcome_id, probe, value, status, reason, command, exit_status,"
            " duration, log_excerpt, failure_class, details) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (outcome_id, p["probe"], p.get("value"), p.get("status") or "measured", p.get("reason") or "",
                 p.get("command"), p.get("exit_status"), p.get("duration"), p.get("log_excerpt"),
                 p.get("failure_class"), _json(dict(p.get("details") or {})))
                for p in probes
            ],
        )
        return outcome_id

    def _current_outcome_row(self, snapshot_id: int) -> tuple | None:
        return self.conn.execute(
            f"SELECT {_OUTCOME_SELECT} FROM outcomes o JOIN snapshots s ON s.id = o.snapshot_id"
            " WHERE o.snapshot_id = ? ORDER BY o.executed_at DESC, o.id DESC LIMIT 1",
            (snapshot_id,),
        ).fetchone()

    def outcome_for_snapshot(self, snapshot_id: int) -> dict[str, Any] | None:
        """The current (most recently executed) outcome of tree ``snapshot_id``, or None.

        ``{"outcome_id", "snapshot_id", "swhid", "deposit_id",
        "components": {"I", "X", "delta", "N", "E_prime", "T"} (each on the 0–100 scale,
        None when not available), "inputs" (the available components in the input
        scales of METRICS.md §8 — I and X booleans, delta a percent, N, E_prime and T
        fractions —, what ``scoring.aggregate.score(outcomes=…)`` takes under the
        default rubric; :meth:`outcome_inputs` converts for any rubric), "origin"
        ("reproscore-execute" or the imported origin's name), "origin_detail",
        "executed_at", "recorded_at", "failure_class", "sandbox" ("bubblewrap", "none",
        or None when imported), "environment", "duration_seconds",
        "probes": [{"probe", "value", "status", "reason", "command", "exit_status",
        "duration_seconds", "log_excerpt", "failure_class", "details"}]}``.
        """
        from .execution.outcomes import default_inputs

        row = self._current_outcome_row(snapshot_id)
        if row is None:
            return None
        (outcome_id, snap_id, swhid, deposit_id, origin, origin_detail, sandbox, *values) = row
        components = dict(zip(_OUTCOME_COLUMNS, values[: len(_OUTCOME_COLUMNS)], strict=True))
        failure_class, environment, executed_at, duration, recorded_at = values[len(_OUTCOME_COLUMNS):]
        probes = [
            {"probe": r[0], "value": r[1], "status": r[2], "reason": r[3], "command": r[4],
             "exit_status": r[5], "duration_seconds": r[6], "log_excerpt": r[7], "failure_class": r[8],
             "details": json.loads(r[9])}
            for r in self.conn.execute(
                "SELECT probe, value, status, reason, command, exit_status, duration, log_excerpt,"
                " failure_class, details FROM outcome_probes WHERE outcome_id = ? ORDER BY id",
                (outcome_id,),
            ).fetchall()
        ]
        return {
            "outcome_id": outcome_id,
            "snapshot_id": snap_id,
            "swhid": swhid,
            "deposit_id": deposit_id,
            "components": components,
            "inputs": default_inputs(components),
            "origin": origin,
            "origin_detail": json.loads(origin_detail),
            "executed_at": executed_at,
            "recorded_at": recorded_at,
            "failure_class": failure_class,
            "sandbox": sandbox,
            "environment": json.loads(environment),
            "duration_seconds": duration,
            "probes": probes,
        }

    def outcome_inputs(self, snapshot_id: int, rubric: Rubric) -> dict[str, Any] | None:
        """The current outcome's available components as ROS inputs in ``rubric``'s
        declared scales (for ``scoring.aggregate.score(outcomes=…)``), or None."""
        from .execution.outcomes import inputs_for_rubric

        outcome = self.outcome_for_snapshot(snapshot_id)
        return None if outcome is None else inputs_for_rubric(outcome["components"], rubric)

    def refresh_outcome_scores(self, *, snapshot_id: int | None = None, rubric_id: int | None = None) -> int:
        """Bring the ROS, alpha and RCS of stored scores up to date with their tree's
        current outcome; returns how many score rows changed."""
        with self.write() as conn:
            return self._refresh_outcome_scores(conn, snapshot_id=snapshot_id, rubric_id=rubric_id)

    def _refresh_outcome_scores(
        self, conn: sqlite3.Connection, *, snapshot_id: int | None = None, rubric_id: int | None = None
    ) -> int:
        from scoring.aggregate import compute_rcs, compute_ros

        from .execution.outcomes import inputs_for_rubric

        where = ["o.id = (SELECT o2.id FROM outcomes o2 WHERE o2.snapshot_id = o.snapshot_id"
                 " ORDER BY o2.executed_at DESC, o2.id DESC LIMIT 1)", "sc.outcome_id IS NOT o.id"]
        params: list[Any] = []
        if snapshot_id is not None:
            where.append("o.snapshot_id = ?")
            params.append(snapshot_id)
        if rubric_id is not None:
            where.append("sc.rubric_id = ?")
            params.append(rubric_id)
        rows = conn.execute(
            f"SELECT sc.id, sc.rubric_id, sc.rrs, o.id, {', '.join('o.' + c for c in _OUTCOME_COLUMNS.values())}"
            " FROM outcomes o CROSS JOIN scores sc ON sc.snapshot_id = o.snapshot_id"
            f" WHERE {' AND '.join(where)}",
            params,
        ).fetchall()
        rubrics: dict[int, Rubric] = {}
        updates = []
        for score_id, rid, rrs, outcome_id, *values in rows:
            rubric = rubrics.get(rid)
            if rubric is None:
                rubric = rubrics[rid] = self.load_stored_rubric(rid)
            components = dict(zip(_OUTCOME_COLUMNS, values, strict=True))
            ros = compute_ros(inputs_for_rubric(components, rubric), rubric)
            rcs = compute_rcs(rrs, ros, rubric)
            updates.append((
                outcome_id,
                None if ros is None else round(ros.value, 2),
                None if ros is None else round(ros.coverage, 4),
                round(rcs.alpha, 4),
                rcs.value,
                score_id,
            ))
        conn.executemany(
            "UPDATE scores SET outcome_id = ?, ros = ?, ros_coverage = ?, alpha = ?, rcs = ? WHERE id = ?",
            updates,
        )
        return len(updates)

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
