"""The exporters' input: one :class:`Assessment` per exported score, as plain records.

An assessment is everything a score-with-policy export says about one deposit: what
was assessed (:class:`Subject`: the Zenodo record, the Software Heritage origin, or a
tree scored locally), which tree (:class:`SnapshotInfo`, by SWHID), the rubric that
produced the score (the :class:`scoring.rubric.Rubric` itself, so its YAML and content
hash travel with it), the score with its 26 measurements and their redacted evidence
(:class:`scoring.aggregate.Score`), its provenance (scorer version, when the tree was
measured and the score computed) and, when execution outcomes exist, the
:class:`Outcome` block (ROS components, ROS, alpha, RCS). The RO-Crate, CodeMeta and RDF
writers read only these records.

:func:`load_assessment` and :func:`load_collection` build them from a store handed in by
the application (``reproscore.store.Store``; this package never imports it), through
the store's export queries, the tree's current execution outcome included
(``Store.outcome_for_snapshot``: its components become the ROS inputs under the
exported rubric, ``Store.outcome_inputs``, and its origin and probes the
:class:`Execution` record). :func:`build_assessment` builds one from measurements in
memory (tests), with optional ROS inputs ``outcomes`` and execution record.
"""

from __future__ import annotations

import functools
import re
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import PurePath
from typing import Any, Protocol
from urllib.parse import quote

import yaml

from scoring.aggregate import Score, score
from scoring.catalog import CATEGORIES, METRICS
from scoring.declared import DeclaredMetadata
from scoring.model import Measurements
from scoring.rubric import Rubric

__all__ = [
    "SCORER_NAME",
    "SCORER_URL",
    "Assessment",
    "Execution",
    "ExportError",
    "Outcome",
    "OutcomeComponent",
    "Person",
    "ProbeRecord",
    "Publisher",
    "SnapshotInfo",
    "Subject",
    "build_assessment",
    "display_number",
    "metric_decimals",
    "iso_time",
    "path_name",
    "load_assessment",
    "load_collection",
    "rubric_file_name",
    "rubric_yaml",
    "spdx_license_url",
]

SCORER_NAME = "reproscore"
# Where the scorer is published: the ``url`` of the instrument of every scoring action
# (RO-Crate requires one for a SoftwareApplication).
SCORER_URL = "https://pypi.org/project/reproscore/"

CATEGORY_NAMES = {c.key: c.name for c in CATEGORIES}
CATEGORY_QUESTIONS = {c.key: c.question for c in CATEGORIES}
METRIC_SPECS = {m.metric_id: m for m in METRICS}


class ExportError(Exception):
    """A score cannot be exported (the message says why)."""


# --------------------------------------------------------------------------- records


@dataclass(frozen=True)
class Person:
    """A creator of a deposit, as its metadata names them."""

    name: str
    orcid: str | None = None
    affiliation: str | None = None
    affiliation_ror: str | None = None  # https://ror.org/<id>, when the metadata gives it
    given: str | None = None
    family: str | None = None
    email: str | None = None

    @property
    def iri(self) -> str | None:
        return f"https://orcid.org/{self.orcid}" if self.orcid else None


@dataclass(frozen=True)
class Publisher:
    """Who publishes the exports: the operator of this installation (``[export]`` in
    reproscore.toml). ``iri`` is its ROR (an Organization) or ORCID (a Person) URL."""

    name: str = "reproscore operator"
    kind: str = "Organization"  # or "Person"
    iri: str | None = None
    url: str | None = None
    email: str | None = None
    contact_url: str | None = None

    @classmethod
    def from_config(cls, config: Any) -> Publisher:
        """From a ``reproscore.config.Config`` (its ``[export]`` and ``[http]`` sections)."""
        export = config.export
        return cls(
            name=export.publisher_name or cls.name,
            kind=export.publisher_type,
            iri=export.publisher_id,
            url=export.publisher_url,
            email=export.contact_email or config.http.contact,
            contact_url=export.contact_url,
        )

    @property
    def has_contact(self) -> bool:
        return bool(self.email or self.contact_url)


@dataclass(frozen=True)
class Subject:
    """What was assessed: a deposit, or (for a tree scored locally) only its snapshot.

    ``iri`` identifies it in every export: the version DOI as a ``https://doi.org/``
    URL for a Zenodo record, the origin URL for a Software Heritage origin, the SWHID
    of the tree otherwise.

    It is named (:attr:`display_name`) by its ``title`` (a deposit's, from the
    repository's record), else by the ``name`` the tree declares in its own metadata
    (``scoring.declared``), else by ``path`` (the folder a local tree was scored from;
    its last component only: local paths stay local), else by ``label``. A snapshot's
    ``label`` is that name with the SWHID beside it.
    """

    kind: str  # the deposit's source ("zenodo", "swh", ...) or "snapshot"
    iri: str
    label: str
    source_id: str | None = None
    title: str | None = None
    version: str | None = None
    doi: str | None = None
    concept_doi: str | None = None
    record_url: str | None = None
    origin_url: str | None = None
    license: str | None = None
    creators: tuple[Person, ...] = ()
    publication_date: str | None = None
    description: str | None = None
    keywords: tuple[str, ...] = ()
    programming_languages: tuple[str, ...] = ()
    name: str | None = None  # as the tree declares it
    path: str | None = None

    @property
    def display_name(self) -> str:
        return self.title or self.name or self.path or self.label


@dataclass(frozen=True)
class SnapshotInfo:
    """The tree that was measured: its SWHID (the root directory), size, and the
    Software Heritage visit that archived it, when one is known."""

    swhid: str
    files: int
    bytes: int
    swh_origin: str | None = None
    swh_snapshot: str | None = None  # the visit's snapshot id (40 hex digits)
    swh_visit_date: str | None = None

    @property
    def qualified_swhid(self) -> str | None:
        """The root directory's SWHID qualified with the origin and visit it was
        archived from (``swh:1:dir:…;origin=…;visit=swh:1:snp:…``), when the tree came
        from (or is known to) Software Heritage; else None."""
        if not self.swh_origin:
            return None
        # ';' and '%' would end or corrupt the qualifier (SWHID specification).
        qualified = f"{self.swhid};origin={quote(self.swh_origin, safe=':/?#[]@!$&()*+,=')}"
        if self.swh_snapshot:
            qualified += f";visit=swh:1:snp:{self.swh_snapshot}"
        return qualified

    @property
    def archive_url(self) -> str:
        return f"https://archive.softwareheritage.org/{self.swhid}"


@dataclass(frozen=True)
class OutcomeComponent:
    """One execution outcome (ROS component) as given and converted to [0, 100]."""

    input: Any
    y: float
    weight: float


@dataclass(frozen=True)
class Outcome:
    """The outcome block: the ROS components observed, their coverage, the ROS, the
    weight alpha of the ROS in the RCS, and the RCS. Unrounded, as computed."""

    components: Mapping[str, OutcomeComponent]
    coverage: float
    ros: float
    alpha: float
    rcs: float

    @classmethod
    def from_score(cls, scored: Score) -> Outcome | None:
        if scored.ros is None:
            return None
        return cls(
            components={
                cid: OutcomeComponent(c.input, c.y, c.weight)
                for cid, c in scored.ros.components.items()
            },
            coverage=scored.ros.coverage,
            ros=scored.ros.value,
            alpha=scored.rcs.alpha,
            rcs=scored.rcs.value,
        )


# Origin of an outcome measured by ``reproscore execute`` (reproscore.api.EXECUTE_ORIGIN).
EXECUTE_ORIGIN = "reproscore-execute"
# Keys of an outcome's origin detail that are exported (``tree``, the local folder an
# execution copied, is not: local paths stay local).
ORIGIN_DETAIL_KEYS = ("name", "version", "url", "run_id", "description", "file", "sha256")


@dataclass(frozen=True)
class ProbeRecord:
    """One outcome probe as it ran: the evidence behind an outcome component."""

    probe: str  # the ROS component id (I, X, delta, N, E_prime, T)
    status: str  # measured | not_applicable | error
    value: float | None = None  # on the 0-100 scale
    reason: str = ""
    command: str | None = None
    exit_status: int | None = None
    duration_seconds: float | None = None
    log_excerpt: str | None = None  # redacted when stored
    failure_class: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "probe": self.probe, "status": self.status, "value": self.value, "reason": self.reason,
            "command": self.command, "exit_status": self.exit_status,
            "duration_seconds": self.duration_seconds, "log_excerpt": self.log_excerpt,
            "failure_class": self.failure_class,
        }


@dataclass(frozen=True)
class Execution:
    """The provenance of a tree's execution outcome: who ran it (``origin``: the name of
    the infrastructure, ``reproscore-execute`` for a sandboxed run of ``reproscore
    execute``), when, in which sandbox, the first failure's class and every probe's
    record (command, exit status, failure class). The components themselves, converted
    for the rubric, are in the score's ROS (:class:`Outcome`)."""

    origin: str
    executed_at: str  # ISO 8601, +00:00
    components: Mapping[str, float | None]  # stored, on the 0-100 scale
    outcome_id: int | None = None
    origin_detail: Mapping[str, str] = field(default_factory=dict)
    recorded_at: str | None = None
    failure_class: str | None = None
    sandbox: str | None = None  # bubblewrap | none | None (imported)
    duration_seconds: float | None = None
    probes: tuple[ProbeRecord, ...] = ()

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Execution:
        """From ``Store.outcome_for_snapshot``'s dict."""
        detail = record.get("origin_detail") or {}
        return cls(
            origin=record["origin"],
            executed_at=iso_time(record["executed_at"]),
            components=dict(record.get("components") or {}),
            outcome_id=record.get("outcome_id"),
            origin_detail={k: str(detail[k]) for k in ORIGIN_DETAIL_KEYS if detail.get(k) is not None},
            recorded_at=iso_time(record["recorded_at"]) if record.get("recorded_at") else None,
            failure_class=record.get("failure_class"),
            sandbox=record.get("sandbox"),
            duration_seconds=record.get("duration_seconds"),
            probes=tuple(
                ProbeRecord(
                    probe=p["probe"], status=p.get("status") or "measured", value=p.get("value"),
                    reason=p.get("reason") or "", command=p.get("command"),
                    exit_status=p.get("exit_status"), duration_seconds=p.get("duration_seconds"),
                    log_excerpt=p.get("log_excerpt"), failure_class=p.get("failure_class"),
                )
                for p in record.get("probes") or ()
            ),
        )

    @property
    def by_reproscore(self) -> bool:
        """Measured by ``reproscore execute`` (else imported from outside)."""
        return self.origin == EXECUTE_ORIGIN

    @property
    def ended_at(self) -> str | None:
        """When the execution ended (start plus duration), when its duration is known."""
        if self.duration_seconds is None:
            return None
        start = datetime.fromisoformat(self.executed_at)
        return iso_time(start + timedelta(seconds=float(self.duration_seconds)))

    def probe(self, component: str) -> ProbeRecord | None:
        return next((p for p in self.probes if p.probe == component), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "outcome_id": self.outcome_id,
            "origin": self.origin,
            "origin_detail": dict(self.origin_detail),
            "executed_at": self.executed_at,
            "recorded_at": self.recorded_at,
            "sandbox": self.sandbox,
            "duration_seconds": self.duration_seconds,
            "failure_class": self.failure_class,
            "components": dict(self.components),
            "probes": [p.to_dict() for p in self.probes],
        }


@dataclass(frozen=True)
class Assessment:
    """One exported score with its subject, tree, rubric, evidence and provenance; with
    an execution outcome, its ROS/RCS (``score.ros``, ``score.rcs``: :attr:`outcome`) and
    the outcome's provenance (:attr:`execution`)."""

    subject: Subject
    snapshot: SnapshotInfo
    rubric: Rubric
    score: Score
    computed_at: str  # ISO 8601, +00:00
    started_at: str  # when the tree's current measurements were made
    scorer_version: str
    detector_set_sha256: str = ""
    score_id: int | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    execution: Execution | None = None

    @property
    def outcome(self) -> Outcome | None:
        return Outcome.from_score(self.score)

    @property
    def uuid(self) -> str:
        """A UUID naming this assessment, the same at every export: derived from the
        tree, the rubric's content hash, the detector versions and the subject."""
        key = "|".join(
            (
                "reproscore-assessment",
                self.subject.iri,
                self.snapshot.swhid,
                self.rubric.sha256,
                self.detector_set_sha256,
                repr(self.outcome) if self.outcome else "",
                # the stored outcome behind it: another execution is another assessment
                f"outcome {self.execution.outcome_id}" if self.execution and self.outcome else "",
            )
        )
        return str(uuid.uuid5(uuid.NAMESPACE_URL, key))

    @property
    def urn(self) -> str:
        return f"urn:uuid:{self.uuid}"

    def result(self) -> dict[str, Any]:
        """The native JSON report: ``reproscore score --format json`` of the tree (every
        sub-metric with its evidence, categories, penalties, rubric identity, inventory)
        plus the snapshot, the subject and the stored score's provenance."""
        data = self.score.to_dict()
        data["snapshot"] = {
            "swhid": self.snapshot.swhid,
            "files": self.snapshot.files,
            "bytes": self.snapshot.bytes,
        }
        if self.snapshot.qualified_swhid:
            data["snapshot"]["qualified_swhid"] = self.snapshot.qualified_swhid
        data["subject"] = {
            key: value
            for key, value in (
                ("id", self.subject.iri),
                ("kind", self.subject.kind),
                ("name", self.subject.display_name),
                ("title", self.subject.title),
                ("version", self.subject.version),
                ("doi", self.subject.doi),
                ("record_url", self.subject.record_url),
                ("origin_url", self.subject.origin_url),
            )
            if value is not None
        }
        data["stored"] = {
            "score_id": self.score_id,
            "scorer_version": self.scorer_version,
            "computed_at": self.computed_at,
            "measured_at": self.started_at,
        }
        if self.execution is not None and self.outcome is not None:
            # The outcome behind "ros" and "rcs": origin, probes with commands, exit
            # statuses, failure classes and (redacted) log excerpts.
            data["outcome"] = self.execution.to_dict()
        return data


# --------------------------------------------------------------------------- helpers


def iso_time(value: str | datetime | None) -> str:
    """A timestamp as ISO 8601 to the second with an explicit ``+00:00`` offset (the
    form RO-Crate validators accept; a trailing ``Z`` is refused by some)."""
    if value is None:
        moment = datetime.now(UTC)
    elif isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=UTC)
    else:
        text = value.strip()
        if text.endswith("Z"):
            text = text[:-1] + "+00:00"
        moment = datetime.fromisoformat(text)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).replace(microsecond=0).isoformat()


_SPDX_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+-]*")


def spdx_license_id(text: str) -> str | None:
    """The SPDX id of a licence given as one (``MIT``, ``gpl-3.0-or-later`` as Zenodo
    writes it), in SPDX's spelling, checked against SPDX's licence list (the one the
    ``license-expression`` package maintains); None for anything else: free text
    (``GNU GPLv3``), repository-specific ids (Zenodo's ``other-open``), ``LicenseRef-``
    ids and compound expressions, which have no single licence page."""
    text = text.strip()
    if not _SPDX_ID.fullmatch(text):
        return None
    info = _spdx_licensing().validate(text)
    if info.errors or not info.normalized_expression or not _SPDX_ID.fullmatch(info.normalized_expression):
        return None
    return info.normalized_expression


def spdx_license_url(text: str) -> str | None:
    """``https://spdx.org/licenses/<id>`` of a licence given as an SPDX id (see
    :func:`spdx_license_id`), else None: no URL is ever made up for other licences."""
    spdx = spdx_license_id(text)
    return f"https://spdx.org/licenses/{spdx}" if spdx else None


@functools.cache
def _spdx_licensing() -> Any:
    from license_expression import get_spdx_licensing

    return get_spdx_licensing()


# Display precision of exported numbers (METRICS.md §0.1.2, §6.1, §10): the RRS and RCS
# to 2 decimals, the ROS to 2, D4 to 1 (its formula rounds), every other value to 4.
# A double such as 89.99999999999999 is the same score as 90; exports write the latter.
DISPLAY_DECIMALS = 4
SCORE_DECIMALS = {"RRS": 2, "ROS": 2, "RCS": 2, "coverage": 4, "alpha": 4}
_METRIC_DECIMALS = {"inline_explanation_density": 1}


def metric_decimals(metric_id: str) -> int:
    """The decimals a sub-metric's value is written with."""
    return _METRIC_DECIMALS.get(metric_id, DISPLAY_DECIMALS)


def display_number(value: float, decimals: int = DISPLAY_DECIMALS) -> float:
    """``value`` rounded for an export (Python ``round``, half-even on the double, as the
    contract's display rounding), as a float: JSON-LD reads it as ``xsd:double``."""
    return float(round(float(value), decimals))


def rubric_yaml(rubric: Rubric) -> str:
    """The rubric file written into exports: the resolved rubric (``extends`` applied,
    defaults filled, metadata kept) as YAML, which parses back to the same content hash."""
    header = (
        f"# Rubric {rubric.name} {rubric.version}, resolved by reproscore (extends applied,\n"
        f"# defaults filled). Content hash (SHA-256 of the RFC 8785 canonical form):\n"
        f"# {rubric.sha256}\n"
    )
    return header + yaml.safe_dump(rubric.to_dict(), sort_keys=False, allow_unicode=True)


def rubric_file_name(rubric: Rubric) -> str:
    """``rubric/<name>-<version>.yaml`` with anything unsafe in a path replaced."""
    def safe(text: str) -> str:
        return "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in text).strip(".") or "_"

    return f"rubric/{safe(rubric.name)}-{safe(rubric.version)}.yaml"


def _metadata_extras(raw: Any) -> tuple[str | None, tuple[str, ...], tuple[str, ...]]:
    """(description, keywords, programming languages) from a deposit's raw metadata:
    DataCite XML (Zenodo) or an Atom entry with CodeMeta (Software Heritage deposits)."""
    if isinstance(raw, Mapping):  # metadata given as a JSON object (CodeMeta-like)
        description = raw.get("description")
        keywords = raw.get("keywords") or ()
        if isinstance(keywords, str):
            keywords = [k.strip() for k in keywords.split(",") if k.strip()]
        return (
            description if isinstance(description, str) else None,
            tuple(str(k) for k in keywords),
            (),
        )
    if not isinstance(raw, str) or not raw.lstrip().startswith("<"):
        return None, (), ()
    from lxml import etree

    parser = etree.XMLParser(recover=False, resolve_entities=False, no_network=True)
    try:
        root = etree.fromstring(raw.encode("utf-8"), parser=parser)
    except (etree.XMLSyntaxError, ValueError):
        return None, (), ()
    descriptions: list[tuple[bool, str]] = []
    keywords: list[str] = []
    languages: list[str] = []
    for element in root.iter():
        if not isinstance(element.tag, str):
            continue
        local = etree.QName(element).localname
        text = " ".join((element.text or "").split())
        if not text:
            continue
        if local == "description":
            descriptions.append((element.get("descriptionType") == "Abstract", text))
        elif local in ("subject", "keywords"):
            keywords.extend(k.strip() for k in text.split(",") if k.strip())
        elif local == "programmingLanguage":
            languages.append(text)
    abstracts = [text for is_abstract, text in descriptions if is_abstract]
    description = (abstracts or [text for _, text in descriptions] or [None])[0]
    return description, tuple(dict.fromkeys(keywords)), tuple(dict.fromkeys(languages))


def _declared_people(declared: DeclaredMetadata | None) -> tuple[Person, ...]:
    return tuple(
        Person(name=a.name, orcid=a.orcid, given=a.given, family=a.family, email=a.email)
        for a in (declared.authors if declared else ())
    )


def path_name(label: str | None) -> str | None:
    """The name a local tree's stored path label gives it: the folder's own name."""
    if not label:
        return None
    return PurePath(label).name or label


def _subject(
    deposit: Mapping[str, Any] | None,
    snapshot: SnapshotInfo,
    declared: DeclaredMetadata | None = None,
    path: str | None = None,
) -> Subject:
    name = declared.name if declared else None
    if deposit is None:
        # Everything a tree scored on its own says about itself comes from its files.
        named = name or path
        return Subject(
            kind="snapshot", iri=snapshot.swhid,
            label=f"{named} ({snapshot.swhid})" if named else snapshot.swhid,
            name=name, path=path,
            version=declared.version if declared else None,
            license=declared.license if declared else None,
            description=(declared.description or declared.title) if declared else None,
            creators=_declared_people(declared),
        )  # fmt: skip
    source = deposit["source"]
    source_id = deposit["source_id"]
    doi = deposit.get("version_doi")
    origin = deposit.get("origin_url") or (source_id if source == "swh" else None)
    record_url = f"https://zenodo.org/records/{source_id}" if source == "zenodo" else None
    if doi:
        iri, label = f"https://doi.org/{doi}", doi
    elif source == "swh" or (origin and not record_url):
        iri, label = origin, origin
    elif record_url:
        iri, label = record_url, record_url
    else:
        iri, label = snapshot.swhid, snapshot.swhid
    description, keywords, languages = _metadata_extras(deposit.get("metadata"))
    creators = tuple(
        Person(name=c["name"], orcid=c.get("orcid"), affiliation=c.get("affiliation"),
               affiliation_ror=c.get("affiliation_ror"))
        for c in deposit.get("creators") or []
        if isinstance(c, Mapping) and c.get("name")
    )
    return Subject(
        kind=source,
        iri=iri,
        label=label,
        source_id=source_id,
        title=deposit.get("title"),
        version=deposit.get("version"),
        doi=doi,
        concept_doi=deposit.get("concept_doi"),
        record_url=record_url,
        origin_url=origin,
        license=deposit.get("license"),
        creators=creators,
        publication_date=deposit.get("publication_date"),
        description=description,
        keywords=keywords,
        programming_languages=languages,
        # The repository's record is authoritative for a deposit: its files only name
        # it when the record has no title.
        name=name,
    )


# --------------------------------------------------------------------------- building


def build_assessment(
    measurements: Measurements,
    rubric: Rubric,
    *,
    snapshot: SnapshotInfo,
    deposit: Mapping[str, Any] | None = None,
    outcomes: Mapping[str, Any] | None = None,
    execution: Execution | Mapping[str, Any] | None = None,
    computed_at: str | datetime | None = None,
    started_at: str | datetime | None = None,
    scorer_version: str | None = None,
    detector_set_sha256: str = "",
    score_id: int | None = None,
    path: str | None = None,
) -> Assessment:
    """An assessment scored now from ``measurements`` under ``rubric`` (with the ROS
    inputs ``outcomes``, in the rubric's input scales, when given). ``deposit`` is a
    deposit row as the store gives it (``source``, ``source_id``, ``version_doi``,
    ``title``, ``creators``, ...); ``execution`` the provenance of the outcome (an
    :class:`Execution` or ``Store.outcome_for_snapshot``'s dict); ``path`` the name of
    the folder a tree without a deposit was scored from (see :class:`Subject`)."""
    scored = score(measurements, rubric, outcomes=outcomes)
    if execution is not None and not isinstance(execution, Execution):
        execution = Execution.from_record(execution)
    computed = iso_time(computed_at)
    return Assessment(
        subject=_subject(deposit, snapshot, measurements.declared, path),
        snapshot=snapshot,
        rubric=rubric,
        score=scored,
        computed_at=computed,
        started_at=iso_time(started_at) if started_at is not None else computed,
        scorer_version=scorer_version or scored.scorer_version,
        detector_set_sha256=detector_set_sha256,
        score_id=score_id,
        execution=execution,
    )


class _ExportStore(Protocol):
    """The store queries the loaders use (``reproscore.store.Store`` provides them)."""

    path: str

    def resolve_subject(self, reference: str) -> tuple[int | None, Any]: ...
    def deposit_record(self, deposit_id: int) -> dict[str, Any]: ...
    def swh_visit_of(self, swhid: str, deposit_id: int | None = None) -> dict[str, Any] | None: ...
    def measurement_times(self, snapshot_id: int) -> tuple[str | None, str | None]: ...
    def scored_subjects(self, rubric_id: int | None = None) -> list[tuple[int | None, Any]]: ...
    def score_under(self, snapshot: Any, rubric: Rubric | None = None) -> tuple[Any, Rubric]: ...
    def load_measurements(self, snapshot_id: int) -> Measurements: ...
    def rubric_id(self, rubric: Rubric) -> int | None: ...
    def detector_set_sha256_of(self, detector_set_id: int) -> str: ...
    def outcome_for_snapshot(self, snapshot_id: int) -> dict[str, Any] | None: ...
    def outcome_inputs(self, snapshot_id: int, rubric: Rubric) -> dict[str, Any] | None: ...
    def score_outcome(self, score_id: int) -> dict[str, Any]: ...


def _outcome_columns(scored: Score, outcome_id: int | None) -> dict[str, Any]:
    """The execution-tier columns a stored score must hold for ``scored`` (rounded as
    the store rounds them: ROS to 2 digits, coverage and alpha to 4)."""
    ros = scored.ros
    return {
        "outcome_id": outcome_id,
        "ros": None if ros is None else round(ros.value, 2),
        "ros_coverage": None if ros is None else round(ros.coverage, 4),
        "alpha": round(scored.rcs.alpha, 4),
        "rcs": scored.rcs.value,
    }


def _load_one(
    store: _ExportStore, deposit_id: int | None, record: Any, rubric: Rubric | None
) -> Assessment:
    stored, rub = store.score_under(record, rubric)
    deposit = None if deposit_id is None else store.deposit_record(deposit_id)
    visit = store.swh_visit_of(record.swhid, deposit_id)
    snapshot = SnapshotInfo(
        swhid=record.swhid,
        files=record.files,
        bytes=record.bytes,
        swh_origin=None if visit is None else visit["origin_url"],
        swh_snapshot=None if visit is None else visit["swh_snapshot"],
        swh_visit_date=None if visit is None else visit["date"],
    )
    first_measured, _last = store.measurement_times(record.id)
    # The tree's current execution outcome: its components in the rubric's input scales
    # give the ROS, alpha and RCS, exactly as the store computed them for the score row.
    outcome = store.outcome_for_snapshot(record.id)
    assessment = build_assessment(
        store.load_measurements(record.id),
        rub,
        snapshot=snapshot,
        deposit=deposit,
        outcomes=None if outcome is None else store.outcome_inputs(record.id, rub),
        execution=outcome,
        computed_at=stored.computed_at,
        started_at=first_measured or stored.computed_at,
        scorer_version=stored.scorer_version,
        detector_set_sha256=store.detector_set_sha256_of(stored.detector_set_id),
        score_id=stored.id,
        path=path_name(record.label) if record.source == "local" else record.label,
    )
    if (assessment.score.rrs, assessment.score.rrs_unclamped) != (stored.rrs, stored.rrs_unclamped):
        raise ExportError(
            f"snapshot {record.swhid}: the stored score under {rub.name}@{rub.version} "
            f"(RRS {stored.rrs}) differs from its recomputation (RRS {assessment.score.rrs}); "
            "nothing was exported"
        )
    expected = _outcome_columns(assessment.score, None if outcome is None else outcome["outcome_id"])
    columns = store.score_outcome(stored.id)
    if columns != expected:
        differ = ", ".join(f"{key} {columns[key]!r} stored, {expected[key]!r} recomputed"
                           for key in expected if columns[key] != expected[key])
        raise ExportError(
            f"snapshot {record.swhid}: the stored outcome scores under {rub.name}@{rub.version} "
            f"differ from their recomputation from the tree's current outcome ({differ}); "
            "nothing was exported"
        )
    return assessment


def load_assessment(store: _ExportStore, reference: str, rubric: Rubric | None = None) -> Assessment:
    """The stored score of the deposit or snapshot ``reference`` (a DOI, a Zenodo record
    id, an origin URL or a SWHID; see ``Store.resolve_subject``) under ``rubric``, or its
    most recently computed score. The score is recomputed from the stored measurements
    and must equal the stored row."""
    deposit_id, record = store.resolve_subject(reference)
    return _load_one(store, deposit_id, record, rubric)


def load_collection(store: _ExportStore, rubric: Rubric | None = None) -> Iterator[Assessment]:
    """Every scored deposit of the store (then every scored tree reached through no
    deposit), one assessment each, in deposit order."""
    rubric_id = None
    if rubric is not None:
        rubric_id = store.rubric_id(rubric)
        if rubric_id is None:
            return
    for deposit_id, record in store.scored_subjects(rubric_id):
        yield _load_one(store, deposit_id, record, rubric)
