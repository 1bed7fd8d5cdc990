"""Rubrics (canonical text, hash) and scores: one row per snapshot, rubric and detector set; rescoring from stored measurements."""

from __future__ import annotations

import json
import time

import rfc8785

from scoring import __version__ as SCORER_VERSION
from scoring.aggregate import compile_rubric
from scoring.catalog import CATEGORY_KEYS
from scoring.rubric import Rubric, RubricError, parse_rubric

from ._base import (
    _BATCH_SNAPSHOTS,
    _INSERT_SCORE,
    _SCORE_COLUMNS,
    RESCORE_BATCH,
    NotFound,
    RescoreReport,
    RubricConflict,
    SnapshotRecord,
    StoredScore,
    StoreError,
    _json,
    _value_vectors,
    utc_now,
)

# The stored measurements a batch's rescoring needs beyond the values: the not-applicable
# ones (a category-target penalty does not fire on a wholly not-applicable category).
_BATCH_NOT_APPLICABLE = """
SELECT s.id, m.metric_id FROM snapshots s
CROSS JOIN measurements m INDEXED BY measurements_current
    ON m.snapshot_id = s.id AND m.is_current = 1
WHERE s.id > ? AND s.id <= ? AND s.detector_set_id IS NOT NULL AND m.applicable = 0
"""


class RubricsScoresMixin:
    """Store methods of this family; they run on :class:`~reproscore.store._base.StoreBase`'s connection."""

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
                not_applicable: dict[int, dict[str, bool]] = {}
                for snapshot_id, metric_id in conn.execute(_BATCH_NOT_APPLICABLE, (last, high)):
                    not_applicable.setdefault(snapshot_id, {})[metric_id] = False
            computed_at = utc_now()
            out = []
            incomplete = []
            for snapshot_id, detector_set_id, vector in vectors:
                if vector is None:
                    incomplete.append(snapshot_id)
                    continue
                flags = not_applicable.get(snapshot_id)
                raws, gateds, fired, unclamped, rrs = compiled(
                    vector, compiled.inapplicable_categories(flags) if flags else ()
                )
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
