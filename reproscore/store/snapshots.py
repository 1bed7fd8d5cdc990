"""Snapshots and their measurements with evidence, keyed by SWHID and detector version."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Mapping

from scoring import __version__ as SCORER_VERSION
from scoring.aggregate import Score
from scoring.catalog import METRIC_IDS
from scoring.declared import DeclaredMetadata
from scoring.facts_cache import FactsKey, StorableFacts
from scoring.model import OUTCOME_ERROR, Evidence, Inventory, Measurement, Measurements
from scoring.trees.swhid import SWHID_DIR_PREFIX, TreeIdentity

from ._base import (
    _INSERT_EVIDENCE,
    _INSERT_SCORE,
    _MARK_CURRENT,
    _METRIC_COUNT,
    _POSITION,
    _SNAPSHOT_COLUMNS,
    _UNMARK_CURRENT,
    _UPSERT_MEASUREMENT,
    NotFound,
    SnapshotRecord,
    _json,
    _score_row_from_score,
    _stored_evidence,
    detector_set_sha256,
    utc_now,
)
from .facts import insert_facts


class SnapshotsMixin:
    """Store methods of this family; they run on :class:`~reproscore.store._base.StoreBase`'s connection."""

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
        facts: Mapping[FactsKey, StorableFacts] | None = None,
    ) -> int:
        """Store a tree, its measurements with evidence and optionally one score
        (``(rubric id, Score)``), all in one transaction. Returns the snapshot id.

        ``facts``: the file facts its measurement computed, vetted for secrets
        (:func:`scoring.facts_cache.encode_for_store`), written in the same transaction.

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
            if facts:
                insert_facts(conn, facts)
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
