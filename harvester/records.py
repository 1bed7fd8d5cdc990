"""Plain records for harvested deposits, shared by every harvester and the store.

A :class:`DepositRecord` is what a harvester knows about one deposit version: the
OAI header, the parsed DataCite metadata (with the raw XML kept for provenance),
and, once the files have been listed, its :class:`FileRef` entries. It imports
nothing from the rest of the project, so the store and the exporters can use it.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

# Fields of DepositRecord that hold lists or dicts; to_row() stores them as JSON text.
_JSON_FIELDS = ("creators", "dates", "communities", "related", "files", "swh", "tombstone")


@dataclass(frozen=True)
class Creator:
    """One creator of a deposit, as DataCite lists it."""

    name: str
    orcid: str | None = None
    affiliation: str | None = None
    # The affiliation's ROR URL (DataCite 4.3 affiliationIdentifier, scheme ROR).
    affiliation_ror: str | None = None


@dataclass(frozen=True)
class FileRef:
    """One file of a deposit as the REST API lists it.

    ``checksum`` keeps Zenodo's algorithm prefix ("md5:<hex>"); ``url`` is the
    content (download) URL. ``key`` may contain "/" (GitHub-integration zips).
    """

    key: str
    size: int | None
    checksum: str | None
    url: str

    @property
    def md5(self) -> str | None:
        """The hexadecimal MD5 digest when the checksum is an MD5 one, else None."""
        if self.checksum and self.checksum.lower().startswith("md5:"):
            return self.checksum[4:].lower()
        return None


@dataclass
class DepositRecord:
    """One version of a deposit, identified by (source, oai_identifier, datestamp)."""

    source: str
    oai_identifier: str
    datestamp: str
    record_id: str
    doi: str | None = None
    concept_doi: str | None = None
    version: str | None = None
    title: str | None = None
    creators: list[Creator] = field(default_factory=list)
    licence: str | None = None
    dates: dict[str, str] = field(default_factory=dict)
    communities: list[str] = field(default_factory=list)
    github_repo: str | None = None
    github_tag: str | None = None
    related: list[dict] = field(default_factory=list)
    resource_type_general: str | None = None
    raw_metadata: str = ""
    files: list[FileRef] = field(default_factory=list)
    swh: dict | None = None
    withdrawn: bool = False
    tombstone: dict | None = None

    def to_row(self) -> dict[str, Any]:
        """A flat dict for the store: scalars as they are, lists and dicts as JSON text.

        The JSON is canonical (sorted keys, compact), so the same record always gives
        the same row and an idempotent upsert changes nothing.
        """
        row = asdict(self)
        # A creator without a ROR keeps the row it had before affiliation_ror existed, so
        # re-harvesting an unchanged record still changes nothing.
        for creator in row["creators"]:
            if creator.get("affiliation_ror") is None:
                creator.pop("affiliation_ror", None)
        for name in _JSON_FIELDS:
            value = row[name]
            row[name] = None if value is None else _canonical_json(value)
        return row

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> DepositRecord:
        """Rebuild a record from :meth:`to_row` output (extra keys are ignored)."""
        values = {name: row[name] for name in cls.__dataclass_fields__ if name in row}
        for name in _JSON_FIELDS:
            if isinstance(values.get(name), str):
                values[name] = json.loads(values[name])
        values["creators"] = [Creator(**c) for c in values.get("creators") or []]
        values["files"] = [FileRef(**f) for f in values.get("files") or []]
        if "withdrawn" in values:
            values["withdrawn"] = bool(values["withdrawn"])
        return cls(**values)


def _canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
