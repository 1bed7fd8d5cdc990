"""What the exporters and the report read: a deposit or tree by any of its references, and its stored assessment."""

from __future__ import annotations

import json
import re
from typing import Any

from scoring.rubric import Rubric
from scoring.trees.swhid import SWHID_DIR_PREFIX

from ._base import (
    _SNAPSHOT_COLUMNS,
    NotFound,
    SnapshotRecord,
    StoredScore,
)


class LookupsMixin:
    """Store methods of this family; they run on :class:`~reproscore.store._base.StoreBase`'s connection."""

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
