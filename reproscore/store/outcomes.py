"""Execution outcomes (ROS components, probe records) and the scores that blend them in."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping
from typing import Any

from scoring import __version__ as SCORER_VERSION
from scoring.rubric import Rubric

from ._base import (
    _OUTCOME_COLUMNS,
    _OUTCOME_SELECT,
    _json,
    utc_now,
)


class OutcomesMixin:
    """Store methods of this family; they run on :class:`~reproscore.store._base.StoreBase`'s connection."""

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
        from ..execution.outcomes import default_inputs

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
        from ..execution.outcomes import inputs_for_rubric

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

        from ..execution.outcomes import inputs_for_rubric

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
