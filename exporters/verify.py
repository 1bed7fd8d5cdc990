"""``reproscore verify``: recompute the scores an export states, from the export alone.

An RO-Crate (directory or zip) or an RDF file (Turtle, JSON-LD, N-Triples, RDF/XML,
TriG or N-Quads) written by reproscore carries, for every assessment, the 26 sub-metric
values, the category scores, the RRS (and the outcome block when there is one) and the
rubric itself. For each assessment, :func:`verify` checks:

* the rubric: the file is in the crate and its bytes have the stated ``sha256``; it
  parses as a rubric whose content hash is the stated one and whose name and version
  are the stated ones (for RDF: the canonical form hashes to the stated checksum and
  the definition parses to it);
* for a dataset (TriG, N-Quads): each measurement of the run is in the named graph of
  the run's ``dqv:QualityMetadata``, and that graph holds nothing else;
* the values: all 26 sub-metrics are there, numbers within [0, 100];
* the arithmetic: every category score and the RRS recomputed from the values under
  the rubric (by :func:`scoring.aggregate.score_from_values`, the scorer's own code)
  equal the stated ones exactly; with outcome data, the ROS, coverage, alpha and RCS
  recomputed from the components (:func:`scoring.aggregate.compute_ros`,
  :func:`~scoring.aggregate.compute_rcs`) too: the scoring action's ``object``
  PropertyValues in a crate, the measurements the scoring run ``prov:used`` in RDF;
* the native report of a per-deposit crate: its bytes have the stated ``sha256`` and its
  values, RRS, RCS and rubric hash are the ones of the metadata.

This proves the export is internally consistent and that its score follows from its
values under its rubric; it does not prove who made it (nothing is signed).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import yaml
from rdflib import Dataset, Graph, URIRef

from scoring.aggregate import compute_rcs, compute_ros, score_from_values
from scoring.catalog import CATEGORY_KEYS, METRIC_IDS
from scoring.rubric import ROS_COMPONENT_IDS, Rubric, RubricError, parse_rubric

from . import terms
from .assessment import SCORE_DECIMALS, display_number, metric_decimals
from .jsonld import ContextNotBundled, parse_jsonld
from .rocrate_export import METADATA_FILE

__all__ = ["AssessmentCheck", "VerifyError", "VerifyReport", "verify"]

_METRIC_KEYS: dict[str, tuple[str, str]] = {}
for _mid in METRIC_IDS:
    _METRIC_KEYS[terms.metric(_mid)] = ("submetric", _mid)
for _key in CATEGORY_KEYS:
    _METRIC_KEYS[terms.category_metric(_key)] = ("category", _key)
for _cid in ROS_COMPONENT_IDS:
    _METRIC_KEYS[terms.outcome_metric(_cid)] = ("component", _cid)
for _key in terms.SCORE_KEYS:
    _METRIC_KEYS[terms.score_metric(_key)] = ("score", _key)


# The sub-metrics whose values are continuous (METRICS.md §3.0): an export writes them
# rounded to 4 decimals, so a written value w stands for any value within half a unit
# of its last decimal. Every other value is exact as written (the tiered levels are
# integers; D4's formula rounds to 1 decimal).
CONTINUOUS = frozenset({
    "docstring_coverage", "no_absolute_paths", "import_resolvability", "no_hardcoded_credentials",
    "silent_failure_masking", "seed_management", "notebook_exec_order",
})
_HALF_UNIT = 0.5 * 10.0 ** -4


def _bounds(values: dict[str, float]) -> tuple[dict[str, float], dict[str, float]]:
    """The lowest and highest values the written ones stand for. The category scores
    and the RRS only ever grow with a sub-metric value (positive weights, an increasing
    gate, penalties that fire below a threshold), so their range is their value at
    these two ends."""
    low = {mid: max(0.0, v - _HALF_UNIT) if mid in CONTINUOUS else v for mid, v in values.items()}
    high = {mid: min(100.0, v + _HALF_UNIT) if mid in CONTINUOUS else v for mid, v in values.items()}
    return low, high


def _agrees(stated: float, exact: float, low: float, high: float, decimals: int) -> bool:
    """The stated figure is the recomputed one: as computed (an export written before
    values were rounded), or rounded to the decimals the export writes, anywhere in the
    range that the written values' own rounding leaves open."""
    if stated == exact or stated == display_number(exact, decimals):
        return True
    return display_number(low, decimals) <= stated <= display_number(high, decimals)


# No file of a reproscore crate comes near this; a larger one is not read.
MAX_FILE_BYTES = 512 * 1024 * 1024


class VerifyError(Exception):
    """The path is not an export reproscore can read (missing, not a crate, bad JSON)."""


@dataclass
class _Claims:
    """What an export states about one assessment."""

    subject: str
    rubric_label: str
    rubric_text: str | None = None  # the rubric document (YAML)
    rubric_sha256: str | None = None  # the stated content hash
    rubric_version: str | None = None
    rubric_name: str | None = None
    submetrics: dict[str, Any] = field(default_factory=dict)
    categories: dict[str, Any] = field(default_factory=dict)
    scores: dict[str, Any] = field(default_factory=dict)  # RRS, ROS, coverage, alpha, RCS
    components: dict[str, Any] = field(default_factory=dict)
    # metric id -> the stated applicability (absent: applicable); a category whose
    # sub-metrics are all not applicable has no category-target penalty (METRICS.md §0.3)
    applicable: dict[str, bool] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    passed: list[str] = field(default_factory=list)
    report: dict[str, Any] | None = None


@dataclass
class AssessmentCheck:
    """The verdict on one assessment of an export."""

    subject: str
    rubric: str
    stated_rrs: float | None
    recomputed_rrs: float | None
    problems: list[str]
    passed: list[str]

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        return {
            "subject": self.subject, "rubric": self.rubric, "ok": self.ok,
            "stated_rrs": self.stated_rrs, "recomputed_rrs": self.recomputed_rrs,
            "problems": self.problems, "passed": self.passed,
        }


@dataclass
class VerifyReport:
    """The verdict on one export: one check per assessment it holds."""

    path: str
    kind: str
    assessments: list[AssessmentCheck]
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.assessments) and not self.problems and all(a.ok for a in self.assessments)

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path, "kind": self.kind, "ok": self.ok, "problems": self.problems,
            "assessments": [a.to_dict() for a in self.assessments],
        }


# --------------------------------------------------------------------------- checking


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def _check(claims: _Claims) -> AssessmentCheck:
    problems, passed = claims.problems, claims.passed
    stated_rrs = _number(claims.scores.get("RRS"))
    result = AssessmentCheck(claims.subject, claims.rubric_label, stated_rrs, None, problems, passed)
    rubric = _check_rubric(claims)
    if rubric is not None:
        result.rubric = f"{rubric.name} {rubric.version}"
    values: dict[str, float] = {}
    for mid in METRIC_IDS:
        if mid not in claims.submetrics:
            problems.append(f"sub-metric {mid}: no value in the export")
            continue
        value = _number(claims.submetrics[mid])
        if value is None or not 0.0 <= value <= 100.0:
            problems.append(f"sub-metric {mid}: value {claims.submetrics[mid]!r} is not a number in [0, 100]")
            continue
        values[mid] = value
    if len(values) == len(METRIC_IDS):
        passed.append("26 sub-metric values")
    if stated_rrs is None:
        problems.append("RRS: no stated value in the export")
    if rubric is None or len(values) != len(METRIC_IDS):
        problems.append("RRS: not recomputable (see the problems above)")
        return result
    applicable = claims.applicable
    categories, _penalties, _unclamped, rrs = score_from_values(values, rubric, applicable=applicable)
    low_values, high_values = _bounds(values)
    low_categories, _p, _u, low_rrs = score_from_values(low_values, rubric, applicable=applicable)
    high_categories, _p, _u, high_rrs = score_from_values(high_values, rubric, applicable=applicable)
    result.recomputed_rrs = rrs
    where = f"from the 26 sub-metric values under rubric {rubric.name} {rubric.version}"
    for key in CATEGORY_KEYS:
        stated = _number(claims.categories.get(key))
        if stated is None:
            problems.append(f"category {key}: no stated score in the export")
        elif not _agrees(stated, categories[key].raw, low_categories[key].raw,
                         high_categories[key].raw, 4):
            problems.append(f"category {key}: stated {stated!r}, recomputed "
                            f"{display_number(categories[key].raw)!r} {where}")
    rrs_digits = rubric.rounding.score
    if stated_rrs is not None and not _agrees(stated_rrs, rrs, low_rrs, high_rrs, rrs_digits):
        problems.append(f"RRS: stated {stated_rrs!r}, recomputed {rrs!r} {where}")
    elif stated_rrs is not None:
        passed.append(f"RRS {rrs!r} recomputed {where}")
    # The RCS mixes the stated RRS (now checked) with the ROS.
    _check_outcome(claims, rubric, rrs if stated_rrs is None else stated_rrs)
    _check_report(claims, values)
    return result


def _check_rubric(claims: _Claims) -> Rubric | None:
    problems, passed = claims.problems, claims.passed
    if claims.rubric_text is None:
        if not any(p.startswith(f"rubric {claims.rubric_label}") for p in problems):
            problems.append(f"rubric {claims.rubric_label}: not in the export")
        return None
    try:
        document = yaml.safe_load(claims.rubric_text)
    except yaml.YAMLError as exc:
        problems.append(f"rubric {claims.rubric_label}: not YAML: {exc}".replace("\n", "; "))
        return None
    if isinstance(document, dict) and "extends" in document:
        # An exported rubric is resolved; following "extends" would read local files.
        problems.append(f"rubric {claims.rubric_label}: has 'extends': not a resolved rubric")
        return None
    try:
        rubric = parse_rubric(claims.rubric_text, source=f"<export>:{claims.rubric_label}")
    except RubricError as exc:
        problems.append(f"rubric {claims.rubric_label}: not a valid rubric: {exc}".replace("\n", "; "))
        return None
    if claims.rubric_sha256 is None:
        problems.append(f"rubric {claims.rubric_label}: the export states no content hash")
    elif rubric.sha256 != claims.rubric_sha256:
        problems.append(
            f"rubric {claims.rubric_label}: its content hash is {rubric.sha256}, the export "
            f"states {claims.rubric_sha256} (the rubric is not the one the score was computed under)"
        )
    else:
        passed.append(f"rubric content hash {rubric.sha256}")
    if claims.rubric_version is not None and rubric.version != claims.rubric_version:
        problems.append(
            f"rubric {claims.rubric_label}: the file says version {rubric.version}, the export "
            f"states {claims.rubric_version}"
        )
    if claims.rubric_name is not None and rubric.name != claims.rubric_name:
        problems.append(
            f"rubric {claims.rubric_label}: the file says name {rubric.name}, the export states "
            f"{claims.rubric_name}"
        )
    return rubric


def _check_outcome(claims: _Claims, rubric: Rubric, rrs: float) -> None:
    stated = {key: claims.scores.get(key) for key in ("ROS", "coverage", "alpha", "RCS")}
    if not claims.components and all(v is None for v in stated.values()):
        return
    problems = claims.problems
    try:
        ros = compute_ros(claims.components, rubric)
    except ValueError as exc:
        problems.append(f"outcome: {exc}")
        return
    if ros is None:
        problems.append("outcome: ROS stated but no weighted outcome component in the export")
        return
    rcs = compute_rcs(rrs, ros, rubric)
    for key, value in (("ROS", ros.value), ("coverage", ros.coverage), ("alpha", rcs.alpha),
                       ("RCS", rcs.value)):
        given = _number(stated[key])
        if given is None or not _agrees(given, value, value, value, SCORE_DECIMALS[key]):
            problems.append(f"{key}: stated {stated[key]!r}, recomputed "
                            f"{display_number(value, SCORE_DECIMALS[key])!r} from the outcome components")
    if not any(p.startswith(("ROS", "RCS", "alpha", "coverage", "outcome")) for p in problems):
        claims.passed.append(f"ROS {ros.value!r} and RCS {rcs.value!r} recomputed")


def _check_report(claims: _Claims, values: dict[str, float]) -> None:
    report = claims.report
    if report is None:
        return
    problems = claims.problems
    before = len(problems)
    submetrics = report.get("submetrics") or {}
    for mid, value in values.items():
        native = (submetrics.get(mid) or {}).get("value")
        # The native report holds the values as computed (METRICS.md §10), the metadata
        # at their display precision.
        if native != value and not (
            _number(native) is not None and display_number(native, metric_decimals(mid)) == value
        ):
            problems.append(f"sub-metric {mid}: {value!r} in the metadata, {native!r} in the native report")
    if report.get("rrs") != claims.scores.get("RRS"):
        problems.append(f"RRS: {claims.scores.get('RRS')!r} in the metadata, {report.get('rrs')!r} in the native report")
    if "RCS" in claims.scores and (report.get("rcs") or {}).get("value") != claims.scores["RCS"]:
        problems.append(f"RCS: {claims.scores['RCS']!r} in the metadata, "
                        f"{(report.get('rcs') or {}).get('value')!r} in the native report")
    sha = (report.get("rubric") or {}).get("sha256")
    if sha != claims.rubric_sha256:
        problems.append(f"rubric: content hash {claims.rubric_sha256} in the metadata, {sha} in the native report")
    if len(problems) == before:
        claims.passed.append("native report agrees with the metadata")


# --------------------------------------------------------------------------- RO-Crate


class _CrateFiles:
    """Read the files of a crate directory or zip, never outside it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.zip: zipfile.ZipFile | None = None
        self.prefix = ""
        if path.is_dir():
            if not (path / METADATA_FILE).is_file():
                raise VerifyError(f"{path}: no {METADATA_FILE}: not an RO-Crate")
        else:
            try:
                self.zip = zipfile.ZipFile(path)
            except (zipfile.BadZipFile, OSError) as exc:
                raise VerifyError(f"{path}: not a zip file: {exc}") from exc
            names = set(self.zip.namelist())
            if METADATA_FILE not in names:
                tops = [n for n in names if n.endswith("/" + METADATA_FILE) and n.count("/") == 1]
                if len(tops) != 1:
                    raise VerifyError(f"{path}: no {METADATA_FILE} in the zip: not an RO-Crate")
                self.prefix = tops[0][: -len(METADATA_FILE)]

    def read(self, name: str) -> bytes | None:
        """The bytes of the crate's file ``name``; None when it is not in the crate (or
        not a plain relative path, or larger than :data:`MAX_FILE_BYTES`)."""
        relative = PurePosixPath(name)
        if relative.is_absolute() or ".." in relative.parts or "://" in name:
            return None
        try:
            if self.zip is not None:
                info = self.zip.getinfo(self.prefix + str(relative))
                if info.file_size > MAX_FILE_BYTES:
                    return None
                return self.zip.read(info)
            target = self.path / relative
            if not target.is_file() or target.stat().st_size > MAX_FILE_BYTES:
                return None
            return target.read_bytes()
        except (KeyError, zipfile.BadZipFile, zlib.error, OSError):
            return None

    def close(self) -> None:
        if self.zip is not None:
            self.zip.close()


def _ids(value: Any) -> list[str]:
    items = value if isinstance(value, list) else [value]
    return [item["@id"] for item in items if isinstance(item, dict) and "@id" in item]


def _types(entity: dict[str, Any]) -> set[str]:
    kinds = entity.get("@type", [])
    return set(kinds if isinstance(kinds, list) else [kinds])


def _crate_claims(files: _CrateFiles, graph: dict[str, dict[str, Any]], review: dict[str, Any],
                  problems: list[str]) -> _Claims:
    subject = (_ids(review.get("itemReviewed")) or [review["@id"]])[0]
    rubric_ids = _ids(review.get("isBasedOn"))
    rubric_id = rubric_ids[0] if rubric_ids else None
    rubric_entity = graph.get(rubric_id or "", {})
    claims = _Claims(subject=subject, rubric_label=f"file {rubric_id}" if rubric_id else "(none)")
    rating = graph.get((_ids(review.get("reviewRating")) or [""])[0], {})
    claims.scores["RRS"] = rating.get("ratingValue")
    if rubric_id is not None:
        data = files.read(rubric_id)
        claims.rubric_version = rubric_entity.get("version")
        for identifier in _ids(rubric_entity.get("identifier")):
            entity = graph.get(identifier, {})
            if entity.get("propertyID") == terms.RUBRIC_SHA256:
                claims.rubric_sha256 = entity.get("value")
        if data is None:
            claims.problems.append(f"rubric file {rubric_id}: missing from the crate")
        else:
            actual = hashlib.sha256(data).hexdigest()
            stated = rubric_entity.get("sha256")
            if stated != actual:
                claims.problems.append(
                    f"rubric file {rubric_id}: its SHA-256 is {actual}, the crate states {stated} "
                    "(the file was changed)"
                )
            else:
                claims.passed.append(f"rubric file {rubric_id} sha256")
            try:
                claims.rubric_text = data.decode("utf-8")
            except UnicodeDecodeError:
                claims.problems.append(f"rubric file {rubric_id}: not UTF-8 text")
    actions = [e for e in graph.values() if "CreateAction" in _types(e)
               and review["@id"] in _ids(e.get("result"))]
    if not actions:
        claims.problems.append(f"{subject}: no CreateAction has the review as its result")
        return claims
    # The values are the scoring run's results; the outcome components its objects (the
    # RCS is computed from them; the execution that produced them has them as results).
    for result_id in _ids(actions[0].get("result")) + _ids(actions[0].get("object")):
        entity = graph.get(result_id, {})
        if "PropertyValue" in _types(entity):
            kind, key = _METRIC_KEYS.get(entity.get("propertyID", ""), (None, None))
            target = {"submetric": claims.submetrics, "category": claims.categories,
                      "component": claims.components, "score": claims.scores}.get(kind or "")
            if target is not None:
                target[key] = entity.get("value")
            if kind == "submetric" and str(entity.get("description", "")).startswith("not applicable"):
                claims.applicable[key] = False
        elif ("File" in _types(entity) and entity.get("encodingFormat") == "application/json"
              and result_id in _ids(actions[0].get("result"))):
            data = files.read(result_id)
            if data is None:
                claims.problems.append(f"report {result_id}: missing from the crate")
                continue
            actual = hashlib.sha256(data).hexdigest()
            if entity.get("sha256") != actual:
                claims.problems.append(
                    f"report {result_id}: its SHA-256 is {actual}, the crate states "
                    f"{entity.get('sha256')} (the file was changed)"
                )
            try:
                claims.report = json.loads(data)
            except ValueError as exc:
                claims.problems.append(f"report {result_id}: not JSON: {exc}")
    stated = (claims.report or {}).get("submetrics") if isinstance(claims.report, dict) else None
    if isinstance(stated, dict):  # the report's own flags, where it has them
        for mid, entry in stated.items():
            if isinstance(entry, dict) and isinstance(entry.get("applicable"), bool):
                claims.applicable[mid] = entry["applicable"]
    return claims


def _verify_crate(path: Path) -> VerifyReport:
    files = _CrateFiles(path)
    try:
        raw = files.read(METADATA_FILE)
        try:
            document = json.loads(raw or b"")
        except ValueError as exc:
            raise VerifyError(f"{path}: {METADATA_FILE} is not JSON: {exc}") from exc
        if not isinstance(document, dict) or not isinstance(document.get("@graph"), list):
            raise VerifyError(f"{path}: {METADATA_FILE} has no @graph: not an RO-Crate")
        try:  # it must also be valid JSON-LD under the bundled context (offline)
            parse_jsonld(document, base="arcp://name,verify/")
        except (ContextNotBundled, ValueError, TypeError) as exc:
            raise VerifyError(f"{path}: {METADATA_FILE} is not JSON-LD reproscore can read: {exc}") from exc
        graph = {e["@id"]: e for e in document["@graph"] if isinstance(e, dict) and "@id" in e}
        reviews = [e for e in graph.values() if "Review" in _types(e)]
        report = VerifyReport(str(path), "RO-Crate zip" if files.zip else "RO-Crate directory", [])
        if not reviews:
            report.problems.append("no Review in the crate: not a reproscore assessment crate")
        for review in sorted(reviews, key=lambda e: e["@id"]):
            report.assessments.append(_check(_crate_claims(files, graph, review, report.problems)))
        return report
    finally:
        files.close()


# --------------------------------------------------------------------------- RDF

_RUNS = """
PREFIX prov: <http://www.w3.org/ns/prov#>
SELECT ?run ?plan WHERE { ?run a prov:Activity ; prov:qualifiedAssociation/prov:hadPlan ?plan }
ORDER BY ?run
"""
# The measurements a scoring run generated, and those it used (the outcome components,
# generated by the execution).
_MEASUREMENTS = """
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX dqv: <http://www.w3.org/ns/dqv#>
PREFIX rs: <https://w3id.org/reproscore/terms#>
SELECT ?metric ?value ?tree ?applicable WHERE {
  { ?m prov:wasGeneratedBy ?run } UNION { ?run prov:used ?m }
  ?m a dqv:QualityMeasurement ; dqv:isMeasurementOf ?metric ; dqv:value ?value ; dqv:computedOn ?tree
  OPTIONAL { ?m rs:applicable ?applicable } }
"""
_METADATA = """
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX dqv: <http://www.w3.org/ns/dqv#>
SELECT ?metadata WHERE { ?metadata a dqv:QualityMetadata ; prov:wasGeneratedBy ?run }
"""
_DEPOSIT = """
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX dqv: <http://www.w3.org/ns/dqv#>
PREFIX dcterms: <http://purl.org/dc/terms/>
SELECT ?deposit WHERE {
  ?deposit dqv:hasQualityMetadata ?metadata ; dcterms:hasPart ?tree .
  ?metadata prov:wasGeneratedBy ?run }
"""
_PLAN = """
PREFIX spdx: <http://spdx.org/rdf/terms#>
PREFIX dcterms: <http://purl.org/dc/terms/>
PREFIX dcat: <http://www.w3.org/ns/dcat#>
PREFIX rs: <https://w3id.org/reproscore/terms#>
SELECT ?checksum ?canonical ?definition ?name ?version WHERE {
  OPTIONAL { ?plan spdx:checksum/spdx:checksumValue ?checksum }
  OPTIONAL { ?plan rs:canonicalForm ?canonical }
  OPTIONAL { ?plan rs:definition ?definition }
  OPTIONAL { ?plan dcterms:title ?name }
  OPTIONAL { ?plan dcat:version ?version }
}
"""


def _rdf_claims(graph: Graph, run: URIRef, plan: URIRef) -> _Claims:
    rows = list(graph.query(_PLAN, initBindings={"plan": plan}))
    row = rows[0] if rows else None
    name = None if row is None or row.name is None else str(row.name)
    version = None if row is None or row.version is None else str(row.version)
    claims = _Claims(subject=str(run), rubric_label=f"{name} {version}" if name else str(plan),
                     rubric_name=name, rubric_version=version)
    if row is not None and row.checksum is not None:
        claims.rubric_sha256 = str(row.checksum).lower()
        if row.canonical is not None:
            actual = hashlib.sha256(str(row.canonical).encode("utf-8")).hexdigest()
            if actual != claims.rubric_sha256:
                claims.problems.append(
                    f"rubric {claims.rubric_label}: its canonical form hashes to {actual}, the "
                    f"graph states {claims.rubric_sha256}"
                )
            else:
                claims.passed.append("rubric canonical form checksum")
    if row is not None and row.definition is not None:
        claims.rubric_text = str(row.definition)
    trees = set()
    for m in graph.query(_MEASUREMENTS, initBindings={"run": run}):
        trees.add(str(m.tree))
        kind, key = _METRIC_KEYS.get(str(m.metric), (None, None))
        target = {"submetric": claims.submetrics, "category": claims.categories,
                  "component": claims.components, "score": claims.scores}.get(kind or "")
        if target is None:
            continue
        if kind == "submetric" and m.applicable is not None and m.applicable.toPython() is False:
            claims.applicable[key] = False
        value = m.value.toPython()
        try:
            target[key] = value if isinstance(value, bool) else float(str(m.value))
        except ValueError:
            target[key] = str(m.value)
    if isinstance(graph, Dataset):
        _check_named_graph(graph, run, claims)
    deposits = [str(d[0]) for d in graph.query(_DEPOSIT, initBindings={"run": run})]
    if deposits:
        claims.subject = deposits[0]
    elif len(trees) == 1:
        claims.subject = trees.pop()
    return claims


def _check_named_graph(dataset: Dataset, run: URIRef, claims: _Claims) -> None:
    """The measurements of ``run`` are exactly the subjects of its quality metadata's
    named graph: a measurement moved to another graph, or a subject in the graph that is
    not one of the run's measurements, fails."""
    generated = {m.m for m in dataset.query(
        "PREFIX prov: <http://www.w3.org/ns/prov#> PREFIX dqv: <http://www.w3.org/ns/dqv#> "
        "SELECT ?m WHERE { { ?m prov:wasGeneratedBy ?run } UNION { ?run prov:used ?m } "
        "?m a dqv:QualityMeasurement }", initBindings={"run": run})}
    metadata = [row.metadata for row in dataset.query(_METADATA, initBindings={"run": run})]
    if len(metadata) != 1:
        claims.problems.append(f"{run}: {len(metadata)} dqv:QualityMetadata generated by the run, expected 1")
        return
    held = set(dataset.graph(metadata[0]).subjects(unique=True))
    if held != generated:
        claims.problems.append(
            f"named graph {metadata[0]}: holds {len(held)} subjects, the run has {len(generated)} "
            f"measurements ({len(held - generated)} not the run's, {len(generated - held)} missing)")
    else:
        claims.passed.append(f"{len(held)} measurements in the named graph {metadata[0]}")


# Extension -> (rdflib parser, kind); JSON-LD is read by exporters.jsonld (offline contexts).
RDF_PARSERS = {
    ".ttl": ("turtle", "RDF Turtle"), ".turtle": ("turtle", "RDF Turtle"),
    ".nt": ("nt", "RDF N-Triples"), ".rdf": ("xml", "RDF/XML"), ".xml": ("xml", "RDF/XML"),
    ".trig": ("trig", "RDF TriG"), ".nq": ("nquads", "RDF N-Quads"),
}
RDF_SUFFIXES = (".jsonld", ".json", *RDF_PARSERS)


def _verify_rdf(path: Path) -> VerifyReport:
    text = path.read_bytes()
    suffix = path.suffix.lower()
    try:
        if suffix in (".jsonld", ".json"):
            graph, kind = parse_jsonld(text), "RDF JSON-LD"
        else:
            parser, kind = RDF_PARSERS[suffix]
            if parser in ("trig", "nquads"):
                # The queries read the union; the named graphs are checked on their own.
                graph = Dataset(default_union=True)
            else:
                graph = Graph()
            graph.parse(data=text.decode("utf-8"), format=parser)
    except (ContextNotBundled, ValueError, SyntaxError, UnicodeDecodeError) as exc:
        raise VerifyError(f"{path}: cannot be parsed as RDF: {exc}") from exc
    except Exception as exc:  # rdflib's parsers raise their own exception classes
        raise VerifyError(f"{path}: cannot be parsed as RDF: {exc}") from exc
    runs = list(graph.query(_RUNS))
    if not runs:
        raise VerifyError(
            f"{path}: no scoring run (prov:Activity following a rubric) in the graph: not an "
            "RDF export of reproscore (a CodeMeta file holds no sub-metric values to verify)"
        )
    checks = [_check(_rdf_claims(graph, row.run, row.plan)) for row in runs]
    return VerifyReport(str(path), kind, sorted(checks, key=lambda c: c.subject))


def verify(path: str | os.PathLike[str]) -> VerifyReport:
    """Verify an RO-Crate directory or zip, or an RDF file (``.ttl``, ``.jsonld``, ``.nt``,
    ``.rdf``/``.xml``, ``.trig``, ``.nq``) written by reproscore. Raises
    :class:`VerifyError` when ``path`` cannot be read as one."""
    target = Path(path)
    if not target.exists():
        raise VerifyError(f"{target}: no such file or directory")
    if target.is_dir() or zipfile.is_zipfile(target):
        return _verify_crate(target)
    if target.suffix.lower() in RDF_SUFFIXES:
        if target.name == METADATA_FILE:
            return _verify_crate(target.parent)
        return _verify_rdf(target)
    raise VerifyError(f"{target}: not an RO-Crate (directory or zip) nor an RDF file "
                      f"({', '.join(RDF_SUFFIXES)})")
