"""Deposits and harvest state: deposits, failures, harvest runs, windows and checkpoints, Software Heritage visits."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import unquote

from ._base import (
    _JSON_DEPOSIT_FIELDS,
    DEPOSIT_FIELDS,
    FAILED,
    HARVEST_FIELDS,
    PENDING,
    SCORED,
    WindowCounts,
    _announced_swhid,
    _harvest_values,
    _json,
    utc_now,
)


class DepositsMixin:
    """Store methods of this family; they run on :class:`~reproscore.store._base.StoreBase`'s connection."""

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
