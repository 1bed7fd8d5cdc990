"""RO-Crate 1.3 exports, written with the ``rocrate`` library.

**One crate per deposit** is an assessment package: it describes the deposit (by
reference; no file of the deposit is copied) and carries the score with its policy.

* Root dataset: ``about`` the deposit, ``mainEntity`` the ``Review``, ``mentions`` the
  scoring ``CreateAction``, ``hasPart`` the rubric file and the native report.
* The deposit (``CreativeWork``, ``@id`` its DOI URL, origin URL or SWHID) with its
  metadata; the tree (``@id`` its SWHID, qualified with origin and visit when Software
  Heritage archived it) ``isPartOf`` the deposit.
* ``Review`` → ``Rating`` (the RRS, 0–100) → ``isBasedOn`` the rubric.
* One ``PropertyValue`` per category (raw score) and per sub-metric (the value that
  entered the arithmetic), with ``minValue``/``maxValue``, ``propertyID`` (the metric's
  IRI), ``measurementTechnique`` → the metric's ``DefinedTerm`` in the rubric, and
  ``wasDerivedFrom`` → the evidence files (contextual entities named by their path in
  the tree, part of the tree and of the deposit).
* The rubric, ``rubric/<name>-<version>.yaml``: a ``File`` + ``DefinedTermSet`` with
  ``version``, ``sha256`` of the file's bytes and, as ``identifier``, the rubric's
  content hash (the sha256 named by every stored score).
* ``reproscore-result.json``: the native report (the full result with evidence).
* A ``CreateAction``: ``instrument`` reproscore (name, url, version), ``object`` the
  deposit, the tree and the rubric, ``result`` the review, the values and the report,
  ``startTime`` when the tree was measured, ``endTime`` when the score was computed.
* With outcome data: a ``PropertyValue`` for each ROS component (an ``object`` of the
  scoring action: the RCS is computed from them) and for the ROS, its coverage, alpha
  and the RCS (its results); with the outcome's provenance (a stored outcome), a second
  ``CreateAction``, the execution: ``agent`` the origin that ran it (or ``instrument``
  reproscore for ``reproscore execute``), ``object`` the tree, ``startTime``, ``result``
  the components, one ``PropertyValue`` per probe (its status; ``valueReference`` its
  command, exit status and failure class), the first failure's class and the origin;
  each component ``wasDerivedFrom`` its probe.

**A collection crate** (``--all``) holds one deposit entity per scored deposit with its
review, rating, category and sub-metric values and scoring action, and every rubric
used; evidence and reports stay in the per-deposit crates.

Every crate passes ``roc-validator`` (profile ``ro-crate-1.3``, REQUIRED level).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rocrate.model import ContextEntity
from rocrate.rocrate import ROCrate

from scoring.catalog import CATEGORY_KEYS, METRIC_IDS
from scoring.rubric import ROS_COMPONENT_IDS

from . import terms
from .assessment import (
    CATEGORY_NAMES,
    CATEGORY_QUESTIONS,
    DISPLAY_DECIMALS,
    METRIC_SPECS,
    SCORE_DECIMALS,
    SCORER_NAME,
    SCORER_URL,
    Assessment,
    ExportError,
    Publisher,
    display_number,
    iso_time,
    metric_decimals,
    rubric_file_name,
    rubric_yaml,
    spdx_license_url,
)

__all__ = [
    "CC0",
    "METADATA_FILE",
    "REPORT_FILE",
    "build_collection_crate",
    "build_crate",
    "write_collection",
    "write_crate",
]

METADATA_FILE = "ro-crate-metadata.json"
REPORT_FILE = "reproscore-result.json"
CC0 = "https://creativecommons.org/publicdomain/zero/1.0/"
COMPLETED = "http://schema.org/CompletedActionStatus"


def _ref(entity_id: str) -> dict[str, str]:
    return {"@id": entity_id}


def _refs(ids: Iterable[str]) -> list[dict[str, str]] | dict[str, str]:
    """References to ``ids``: one reference alone, several as a list (RO-Crate 1.3
    recommends single values over singleton arrays)."""
    refs = [_ref(i) for i in ids]
    return refs[0] if len(refs) == 1 else refs


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def _number(value: float, decimals: int = DISPLAY_DECIMALS) -> float:
    """A value at its display precision, as a JSON float (JSON-LD reads a number with a
    fractional part as ``xsd:double``; never an integer)."""
    return display_number(value, decimals)


def _no_singleton_arrays(crate: ROCrate) -> None:
    """RO-Crate 1.3 recommends a single value over a one-element array; the rocrate
    library builds ``hasPart`` (and appended properties) as arrays."""
    for entity in crate.get_entities():
        for key, value in list(entity.properties().items()):
            if isinstance(value, list) and len(value) == 1:
                entity._jsonld[key] = value[0]


class _Builder:
    """Adds entities to one crate, each once."""

    def __init__(self, crate: ROCrate, publisher: Publisher | None = None) -> None:
        self.crate = crate
        self.publisher_info = publisher or Publisher()

    def add(self, entity_id: str, properties: dict[str, Any]) -> str:
        existing = self.crate.get(entity_id)
        if existing is None:
            self.crate.add(ContextEntity(self.crate, entity_id, properties=properties))
        return entity_id

    def add_file(self, path: str, data: bytes, properties: dict[str, Any]) -> str:
        props = dict(properties)
        props.setdefault("contentSize", str(len(data)))
        props["sha256"] = hashlib.sha256(data).hexdigest()
        self.crate.add_file(source=io.BytesIO(data), dest_path=path, properties=props)
        return path

    # ------------------------------------------------------------------ shared entities

    def license(self) -> str:
        return self.add(CC0, {"@type": "CreativeWork", "name": "CC0 1.0 Universal",
                              "description": "Public domain dedication"})

    def license_of(self, text: str) -> str | None:
        """The licence entity of an SPDX id (its spdx.org URL, the absolute id RO-Crate
        recommends), or None for any other licence text: no URL is made up for it."""
        url = spdx_license_url(text)
        if url is None:
            return None
        spdx = url.rsplit("/", 1)[1]
        return self.add(url, {"@type": "CreativeWork", "name": spdx, "identifier": spdx,
                              "description": f"The licence with SPDX identifier {spdx}"})

    def publisher(self) -> str:
        """The operator publishing the crate, with its contact point."""
        p = self.publisher_info
        props: dict[str, Any] = {"@type": p.kind, "name": p.name,
                                 "description": f"Publisher of these {SCORER_NAME} assessments."}
        if p.url:
            props["url"] = p.url
        if p.has_contact:
            contact: dict[str, Any] = {"@type": "ContactPoint", "name": f"Contact of {p.name}",
                                       "contactType": "publisher"}
            if p.email:
                contact["email"] = p.email
            if p.contact_url:
                contact["url"] = p.contact_url
            props["contactPoint"] = _ref(self.add("#publisher-contact", contact))
        entity_id = p.iri or "#publisher"
        existing = self.crate.get(entity_id)
        if existing is not None:  # the publisher is also a creator of the deposit
            for key, value in props.items():
                if key not in existing:
                    existing[key] = value
            return entity_id
        return self.add(entity_id, props)

    def scorer(self, version: str) -> str:
        return self.add(
            f"#{SCORER_NAME}-{version}",
            {"@type": "SoftwareApplication", "name": SCORER_NAME, "url": SCORER_URL,
             "version": version,
             "description": "Reproducibility readiness scorer: 26 static sub-metrics, "
                            "aggregated under a versioned rubric"},
        )

    def completed(self) -> str:
        return self.add(COMPLETED, {"@type": "ActionStatusType", "name": "Completed"})

    def rubric(self, assessment: Assessment) -> str:
        rub = assessment.rubric
        path = rubric_file_name(rub)
        if self.crate.get(path) is not None:
            return path
        hash_id = self.add(
            f"#rubric-content-sha256-{rub.sha256}",
            {"@type": "PropertyValue", "propertyID": terms.RUBRIC_SHA256,
             "name": "Rubric content hash (SHA-256 of its RFC 8785 canonical form)",
             "value": rub.sha256},
        )
        properties: dict[str, Any] = {
            "@type": ["File", "DefinedTermSet"],
            "name": f"Rubric {rub.name} {rub.version}",
            "description": rub.description
            or f"The scoring policy {rub.name} {rub.version}: weights, gates and penalties.",
            "version": rub.version,
            "encodingFormat": "application/yaml",
            "identifier": _ref(hash_id),
        }
        licence = self.license_of(rub.license) if rub.license else None
        if licence:
            properties["license"] = _ref(licence)
        elif rub.license:
            properties["description"] += f" Licence: {rub.license}."
        self.add_file(path, rubric_yaml(rub).encode("utf-8"), properties)
        return path

    def term(self, iri: str, name: str, code: str, description: str, rubric_path: str) -> str:
        entity = self.crate.get(iri)
        if entity is None:
            self.add(iri, {"@type": "DefinedTerm", "name": name, "termCode": code,
                           "description": description, "inDefinedTermSet": _ref(rubric_path)})
        elif all(getattr(s, "id", s) != rubric_path for s in _as_list(entity.get("inDefinedTermSet"))):
            entity.append_to("inDefinedTermSet", self.crate.get(rubric_path))
        else:
            return iri
        self.crate.get(rubric_path).append_to("hasDefinedTerm", self.crate.get(iri))
        return iri

    # ------------------------------------------------------------------ one assessment

    def subject(self, a: Assessment) -> tuple[str, str]:
        """Add the deposit and its tree; returns (deposit id, tree id)."""
        s, snap = a.subject, a.snapshot
        tree_props: dict[str, Any] = {
            "@type": "CreativeWork",
            "name": f"Source tree {snap.swhid}",
            "description": f"The tree that was measured: {snap.files} files, {snap.bytes} bytes "
                           "(its SWHID is the git tree hash of its root directory).",
            "identifier": snap.qualified_swhid or snap.swhid,
        }
        if snap.swh_origin:
            tree_props["url"] = snap.archive_url
        if s.iri == snap.swhid:
            # No deposit: the tree is the subject, named as it names itself.
            if s.label != snap.swhid:
                tree_props["name"] = s.label
            if s.version:
                tree_props["version"] = s.version
            licence = self.license_of(s.license) if s.license else None
            if licence:
                tree_props["license"] = _ref(licence)
            self.creators(s, tree_props)
        else:
            tree_props["isPartOf"] = _ref(s.iri)
            props: dict[str, Any] = {"@type": "CreativeWork", "name": s.display_name}
            if s.doi:
                props["identifier"] = f"https://doi.org/{s.doi}"
            for key, value in (("url", s.record_url or s.origin_url), ("version", s.version),
                               ("description", s.description),
                               ("datePublished", s.publication_date)):
                if value:
                    props[key] = value
            licence = self.license_of(s.license) if s.license else None
            if licence:
                props["license"] = _ref(licence)
            elif s.license:  # not an SPDX id: kept as the deposit states it
                props["description"] = (props.get("description", "") + f" Licence: {s.license}.").strip()
            if s.origin_url and s.origin_url != props.get("url"):
                props["codeRepository"] = s.origin_url
            if s.keywords:
                props["keywords"] = ", ".join(s.keywords)
            self.creators(s, props)
            self.add(s.iri, props)
        self.add(snap.swhid, tree_props)
        return s.iri, snap.swhid

    def creators(self, s: Any, props: dict[str, Any]) -> None:
        """The deposit's creators: a ``Person`` entity (``creator``) for each one its
        metadata identifies by ORCID, the ORCID URL its ``@id``; every creator, in the
        deposit's order, in ``creditText``. A name alone does not identify a person
        (RO-Crate recommends ORCID ids for Person entities), so it stays text."""
        people = [self.person(p) for p in s.creators if p.iri]
        if people:
            props["creator"] = _refs(people)
        if s.creators:
            props["creditText"] = "; ".join(
                p.name + (f" ({p.affiliation})" if p.affiliation else "") for p in s.creators)

    def person(self, person: Any) -> str:
        props: dict[str, Any] = {"@type": "Person", "name": person.name}
        for key, value in (("givenName", person.given), ("familyName", person.family), ("email", person.email)):
            if value:
                props[key] = value
        if person.affiliation_ror:
            # The ROR record is the organisation's public registry entry: its web
            # page, and where its contact details are published.
            ror = person.affiliation_ror
            contact = self.add(f"#contact-{ror.rsplit('/', 1)[1]}", {
                "@type": "ContactPoint", "name": f"{person.affiliation or ror}: ROR record",
                "contactType": "organisation record", "url": ror})
            props["affiliation"] = _ref(self.add(ror, {
                "@type": "Organization", "name": person.affiliation or ror, "url": ror,
                "identifier": ror, "contactPoint": _ref(contact)}))
        return self.add(person.iri, props)

    def evidence(self, a: Assessment, prefix: str, deposit_id: str, tree_id: str) -> dict[str, list[str]]:
        """One contextual entity per evidence path; returns metric id -> entity ids."""
        paths = sorted({
            e.path for m in a.score.submetrics.values() for e in m.evidence if e.path
        })
        ids = {path: f"{prefix}evidence-{n}" for n, path in enumerate(paths, 1)}
        part_of = _refs(dict.fromkeys([tree_id, deposit_id]))
        for path, entity_id in ids.items():
            self.add(entity_id, {"@type": "CreativeWork", "name": path,
                                 "description": f"{path} in {a.snapshot.swhid}",
                                 "isPartOf": part_of})
        derived: dict[str, list[str]] = {}
        for mid, m in a.score.submetrics.items():
            refs = list(dict.fromkeys(ids[e.path] for e in m.evidence if e.path))
            if any(e.path is None for e in m.evidence):
                refs.append(tree_id)
            derived[mid] = refs
        return derived

    def values(self, a: Assessment, prefix: str, rubric_path: str,
               derived: dict[str, list[str]] | None) -> tuple[list[str], list[str]]:
        """The PropertyValues of categories, sub-metrics and outcome; returns their ids:
        the scores (categories, sub-metrics, ROS, coverage, alpha, RCS) and the outcome
        components."""
        out: list[str] = []
        components: list[str] = []
        sc = a.score
        for key in CATEGORY_KEYS:
            cat = sc.categories[key]
            rule = a.rubric.categories[key]
            term = self.term(terms.category_metric(key), f"{CATEGORY_NAMES[key]} ({key})", key,
                             CATEGORY_QUESTIONS[key], rubric_path)
            out.append(self.add(f"{prefix}category-{key}", {
                "@type": "PropertyValue", "name": f"{CATEGORY_NAMES[key]} ({key}) raw score",
                "propertyID": terms.category_metric(key), "value": _number(cat.raw),
                "minValue": 0, "maxValue": 100, "unitText": "points",
                "measurementTechnique": _ref(term),
                "description": f"Weighted sum of the {key} sub-metrics; contributes "
                               f"{cat.gated:.4g} RRS points (weight {rule.weight:g}, gate "
                               f"tau {rule.tau:g}, k {rule.k:g}).",
            }))
        for mid in METRIC_IDS:
            m = sc.submetrics[mid]
            spec = METRIC_SPECS[mid]
            term = self.term(terms.metric(mid), f"{spec.title} ({spec.code})", mid,
                             f"Sub-metric {spec.code} of category {spec.category} "
                             f"({CATEGORY_NAMES[spec.category]}).", rubric_path)
            state = "not applicable" if not m.applicable else m.outcome.replace("_", " ")
            level = f", level {m.level}" if m.level else ""
            props: dict[str, Any] = {
                "@type": "PropertyValue", "name": f"{spec.title} ({spec.code})",
                "propertyID": terms.metric(mid), "value": _number(m.value, metric_decimals(mid)),
                "minValue": 0, "maxValue": 100, "unitText": "points",
                "measurementTechnique": _ref(term),
                "description": f"{state}{level}: {m.reason}".strip(),
            }
            if derived and derived.get(mid):
                props["wasDerivedFrom"] = _refs(derived[mid])
            out.append(self.add(f"{prefix}value-{mid}", props))
        outcome = a.outcome
        if outcome is not None:
            for cid in ROS_COMPONENT_IDS:
                comp = outcome.components.get(cid)
                if comp is None:
                    continue
                term = self.outcome_term(cid, rubric_path)
                props = {
                    "@type": "PropertyValue", "name": f"Outcome component {cid}",
                    "propertyID": terms.outcome_metric(cid), "value": comp.input,
                    "measurementTechnique": _ref(term),
                    "description": f"As observed; {comp.y:.4g} on the 0-100 scale, weight "
                                   f"{comp.weight:g} in the ROS.",
                }
                if a.execution is not None and a.execution.probe(cid) is not None:
                    props["wasDerivedFrom"] = _ref(f"{prefix}probe-{cid}")
                components.append(self.add(f"{prefix}outcome-{cid}", props))
            for key, value, label, low, high in (
                ("ROS", outcome.ros, "Reproducibility outcome score (ROS)", 0, 100),
                ("coverage", outcome.coverage, "ROS coverage (weight of the observed components)", 0, 1),
                ("alpha", outcome.alpha, "Weight alpha of the ROS in the RCS", 0, 1),
                ("RCS", outcome.rcs, "Reproducibility composite score (RCS)", 0, 100),
            ):
                term = self.term(terms.score_metric(key), label, key, label, rubric_path)
                out.append(self.add(f"{prefix}{key}", {
                    "@type": "PropertyValue", "name": label, "propertyID": terms.score_metric(key),
                    "value": _number(value, SCORE_DECIMALS[key]), "minValue": low, "maxValue": high,
                    "measurementTechnique": _ref(term),
                }))
        return out, components

    def outcome_term(self, cid: str, rubric_path: str) -> str:
        return self.term(terms.outcome_metric(cid), f"Outcome component {cid}", cid,
                         f"Execution outcome {cid} (ROS component).", rubric_path)

    def execution(self, a: Assessment, prefix: str, tree_id: str, rubric_path: str,
                  components: list[str]) -> str | None:
        """The execution that produced the outcome components, with its origin and the
        evidence of every probe; returns the action's id (None without a stored outcome
        behind the ROS)."""
        ex = a.execution
        if ex is None or a.outcome is None:
            return None
        results = list(components)
        for p in ex.probes:
            pid = f"{prefix}probe-{p.probe}"
            refs = []
            for suffix, label, property_id, value in (
                ("command", "command", terms.COMMAND, p.command),
                ("exit-status", "exit status", terms.EXIT_STATUS, p.exit_status),
                ("failure-class", "failure class", terms.FAILURE_CLASS, p.failure_class),
            ):
                if value is not None:
                    refs.append(self.add(f"{pid}-{suffix}", {
                        "@type": "PropertyValue", "name": f"Probe {p.probe}: {label}",
                        "propertyID": property_id, "value": value}))
            facts = [p.reason] if p.reason else []
            if p.command is not None:
                ran = f"ran {p.command}"
                if p.exit_status is not None:
                    ran += f", exit status {p.exit_status}"
                if p.duration_seconds is not None:
                    ran += f", {p.duration_seconds:g} s"
                facts.append(ran)
            if p.failure_class:
                facts.append(f"failure class {p.failure_class}")
            props: dict[str, Any] = {
                "@type": "PropertyValue", "name": f"Probe {p.probe}", "propertyID": terms.PROBE_STATUS,
                "value": p.status, "measurementTechnique": _ref(self.outcome_term(p.probe, rubric_path)),
                "description": f"{p.status}" + (f": {'; '.join(facts)}" if facts else ""),
            }
            if refs:
                props["valueReference"] = _refs(refs)
            results.append(self.add(pid, props))
        if ex.failure_class:
            results.append(self.add(f"{prefix}outcome-failure-class", {
                "@type": "PropertyValue", "name": "Outcome failure class", "propertyID": terms.FAILURE_CLASS,
                "value": ex.failure_class,
                "description": "The class of the first probe that failed (install_dep, missing_module, "
                               "missing_data, code_error or timeout)."}))
        detail = ex.origin_detail
        described = [f"{label} {detail[key]}" for key, label in (("version", "version"), ("run_id", "run"))
                     if key in detail] + ([detail["description"]] if "description" in detail else [])
        if "file" in detail:
            described.append(f"imported from {detail['file']}"
                             + (f" (sha256 {detail['sha256']})" if "sha256" in detail else ""))
        origin = {
            "@type": "PropertyValue", "name": "Outcome origin", "propertyID": terms.ORIGIN, "value": ex.origin,
            "description": "Who ran the probes" + (f": {'; '.join(described)}" if described else "") + "."}
        if "url" in detail:
            origin["url"] = detail["url"]
        results.append(self.add(f"{prefix}outcome-origin", origin))
        sandbox = {"bubblewrap": " in a bubblewrap sandbox", "none": " without a sandbox"}.get(ex.sandbox or "", "")
        props = {
            "@type": "CreateAction", "name": f"Execution of {a.subject.label} by {ex.origin}",
            "description": f"The outcome probes run on the tree {a.snapshot.swhid} by {ex.origin}{sandbox}: "
                           f"components {', '.join(a.outcome.components)}"
                           + (f", probe records {', '.join(p.probe for p in ex.probes)}" if ex.probes else "")
                           + f"; first failure class: {ex.failure_class or 'none'}.",
            "object": _ref(tree_id), "result": _refs(results), "startTime": ex.executed_at,
            "actionStatus": _ref(self.completed()),
        }
        if ex.ended_at is not None:
            props["endTime"] = ex.ended_at
        if ex.by_reproscore:
            props["instrument"] = _ref(self.scorer(detail.get("version") or a.scorer_version))
        # An imported outcome's origin is a name (and maybe a URL), not an identified
        # agent: it is the "Outcome origin" value among the results, not an entity
        # typed Organization that could not have the ROR id and contact point RO-Crate
        # recommends for one.
        if "run_id" in detail:
            props["identifier"] = detail["run_id"]
        return self.add(f"{prefix}execution", props)

    def assessment(self, a: Assessment, prefix: str, *, evidence: bool,
                   report: str | None) -> tuple[str, str, list[str]]:
        """Add one assessment; returns (deposit id, review id, action ids: the scoring
        run, then the execution when there is one)."""
        rubric_path = self.rubric(a)
        deposit_id, tree_id = self.subject(a)
        derived = self.evidence(a, prefix, deposit_id, tree_id) if evidence else None
        values, components = self.values(a, prefix, rubric_path, derived)
        execution = self.execution(a, prefix, tree_id, rubric_path, components)
        sc, rub = a.score, a.rubric
        fired = [p.id for p in sc.penalties if p.fired]
        rating = self.add(f"{prefix}rrs", {
            "@type": "Rating", "name": f"RRS {sc.rrs:g}/100", "ratingValue": _number(sc.rrs, SCORE_DECIMALS["RRS"]),
            "bestRating": 100, "worstRating": 0, "reviewAspect": "RRS",
            "ratingExplanation": f"Reproducibility Readiness Score under rubric {rub.name} "
                                 f"{rub.version}: gated weighted sum of the five category "
                                 f"scores ({sc.rrs_unclamped:.6g} before clamping and rounding)"
                                 + (f", penalties fired: {', '.join(fired)}" if fired else "")
                                 + ".",
        })
        profile = ", ".join(f"{k} {sc.categories[k].raw:.1f}" for k in CATEGORY_KEYS)
        weakest = min(CATEGORY_KEYS, key=lambda k: sc.categories[k].raw)
        review = self.add(f"{prefix}assessment", {
            "@type": "Review", "name": f"RRS assessment of {a.subject.label}",
            "itemReviewed": _ref(deposit_id), "reviewRating": _ref(rating),
            "reviewAspect": "Reproducibility readiness", "isBasedOn": _ref(rubric_path),
            "datePublished": a.computed_at,
            "reviewBody": f"RRS {sc.rrs:g}/100 under rubric {rub.name} {rub.version} "
                          f"(sha256 {rub.sha256}). Category profile: {profile}; weakest: "
                          f"{weakest} ({CATEGORY_NAMES[weakest]}). Penalties fired: "
                          f"{', '.join(fired) or 'none'}." + _outcome_sentence(a),
        })
        self.crate.get(deposit_id).append_to("review", self.crate.get(review), compact=True)
        objects = [deposit_id] + ([tree_id] if tree_id != deposit_id else []) + [rubric_path] + components
        results = [review, rating, *values] + ([report] if report else [])
        action = self.add(f"{prefix}scoring-run", {
            "@type": "CreateAction", "name": f"RRS scoring of {a.subject.label}",
            "description": f"The tree {a.snapshot.swhid} measured by the 26 detectors and scored "
                           f"under rubric {rub.name} {rub.version}.",
            "instrument": _ref(self.scorer(a.scorer_version)), "agent": _ref(self.publisher()),
            "object": _refs(objects), "result": _refs(results),
            "startTime": min(a.started_at, a.computed_at), "endTime": a.computed_at,
            "actionStatus": _ref(self.completed()),
        })
        return deposit_id, review, [action] + ([execution] if execution else [])


def _outcome_sentence(a: Assessment) -> str:
    outcome = a.outcome
    if outcome is None:
        return ""
    origin = f" of {a.execution.origin}" if a.execution is not None else ""
    failure = (f", first failure class {a.execution.failure_class}"
               if a.execution is not None and a.execution.failure_class else "")
    return (f" Execution outcome{origin} ({', '.join(outcome.components)}{failure}): ROS "
            f"{outcome.ros:.2f}, coverage {outcome.coverage:.4g}, alpha {outcome.alpha:.4g}, RCS "
            f"{outcome.rcs:g}.")


def _slug(text: str) -> str:
    return "".join(ch.lower() if ch.isalnum() else "-" for ch in text).strip("-") or "x"


def _report_bytes(a: Assessment) -> bytes:
    return (json.dumps(a.result(), indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def build_crate(a: Assessment, *, publisher: Publisher | None = None) -> ROCrate:
    """The assessment crate of one deposit (see the module documentation), published by
    ``publisher`` (default: an anonymous operator)."""
    crate = ROCrate()
    b = _Builder(crate, publisher)
    report = b.add_file(REPORT_FILE, _report_bytes(a), {
        "@type": "File", "name": "reproscore result (native JSON)",
        "description": "The full result of the scorer: every sub-metric's value, "
                       "applicability, level, evidence (path, lines, rule, reason, redacted "
                       "snippet) and fix, the categories, penalties, detector versions, "
                       "rubric identity and scan inventory.",
        "encodingFormat": "application/json",
    })
    deposit_id, review, actions = b.assessment(a, "#", evidence=True, report=report)
    sc, rub = a.score, a.rubric
    root = crate.root_dataset
    root["name"] = f"Reproducibility readiness of {a.subject.label}"
    root["description"] = (
        f"RRS {sc.rrs:g}/100 of {a.subject.display_name} (tree {a.snapshot.swhid}) under "
        f"rubric {rub.name} {rub.version} (sha256 {rub.sha256}), with its category profile, "
        f"the 26 sub-metric values and their evidence, the rubric itself and the scorer's "
        f"native report.{_outcome_sentence(a)} Exported by {SCORER_NAME}."
    )
    root["identifier"] = crate.get(b.add("#assessment-id", {
        "@type": "PropertyValue", "name": "Assessment identifier", "propertyID": "urn:uuid",
        "value": a.urn,
        "description": "The same at every export of this score: derived from the deposit, "
                       "the tree, the rubric's content hash and the detector versions."}))
    root["datePublished"] = a.computed_at
    root["license"] = crate.get(b.license())
    root["about"] = crate.get(deposit_id)
    root["mainEntity"] = crate.get(review)
    root["mentions"] = crate.get(actions[0]) if len(actions) == 1 else [crate.get(i) for i in actions]
    root["publisher"] = crate.get(b.publisher())
    _no_singleton_arrays(crate)
    return crate


def build_collection_crate(assessments: Iterable[Assessment], *, name: str | None = None,
                           publisher: Publisher | None = None) -> ROCrate:
    """One crate for a whole collection: per deposit its entity, review, rating, values
    and scoring action; every rubric used as a file."""
    crate = ROCrate()
    b = _Builder(crate, publisher)
    deposits: list[str] = []
    actions: list[str] = []
    times: list[str] = []
    rubrics: dict[str, str] = {}
    with_outcome = 0
    for k, a in enumerate(assessments, 1):
        deposit_id, _review, made = b.assessment(a, f"#a{k}-", evidence=False, report=None)
        deposits.append(deposit_id)
        actions.extend(made)
        with_outcome += a.outcome is not None
        times.append(a.computed_at)
        rubrics[a.rubric.sha256] = f"{a.rubric.name} {a.rubric.version}"
    root = crate.root_dataset
    root["name"] = name or f"Reproducibility readiness of {len(deposits)} deposits"
    root["description"] = (
        f"RRS assessments of {len(deposits)} deposits (one entity per deposit with its "
        f"review, rating, category profile and 26 sub-metric values) under "
        f"{len(rubrics)} rubric(s): {', '.join(sorted(rubrics.values())) or 'none'}. "
        + (f"{with_outcome} with an execution outcome (ROS, alpha and RCS, the outcome components "
           f"and the execution that produced them). " if with_outcome else "")
        + f"Evidence and native reports are in the per-deposit crates. Exported by {SCORER_NAME}."
    )
    root["datePublished"] = max(times) if times else iso_time(None)
    root["license"] = crate.get(b.license())
    if deposits:
        root["about"] = _refs(dict.fromkeys(deposits))
        root["mentions"] = _refs(actions)
    root["publisher"] = crate.get(b.publisher())
    _no_singleton_arrays(crate)
    return crate


def _write(crate: ROCrate, out: str | os.PathLike[str], zip_file: bool) -> Path:
    """Write ``crate`` to the directory (or zip file) ``out``, replacing a crate written
    there before; anything else in the way is refused."""
    target = Path(out)
    if zip_file:
        if target.is_dir():
            raise ExportError(f"{target} is a directory; --zip writes a file")
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp",
                                         delete=False) as handle:
            temporary = Path(handle.name)
        try:
            crate.write_zip(temporary)
            temporary.chmod(0o644)
            os.replace(temporary, target)
        finally:
            temporary.unlink(missing_ok=True)
        return target
    if target.exists() and not target.is_dir():
        raise ExportError(f"{target} exists and is not a directory")
    if target.is_dir() and any(target.iterdir()) and not (target / METADATA_FILE).is_file():
        raise ExportError(f"{target} is a non-empty directory that holds no RO-Crate; not overwritten")
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}."))
    try:
        crate.write(staging)
        if target.is_dir():
            shutil.rmtree(target)
        staging.chmod(0o755)  # mkdtemp makes it private
        staging.rename(target)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return target


def write_crate(a: Assessment, out: str | os.PathLike[str], *, zip_file: bool = False,
                publisher: Publisher | None = None) -> Path:
    """Write the crate of one assessment to the directory ``out`` (or a zip file)."""
    return _write(build_crate(a, publisher=publisher), out, zip_file)


def write_collection(assessments: Iterable[Assessment], out: str | os.PathLike[str], *,
                     zip_file: bool = False, name: str | None = None,
                     publisher: Publisher | None = None) -> Path:
    """Write the collection crate of ``assessments`` to ``out`` (or a zip file)."""
    return _write(build_collection_crate(assessments, name=name, publisher=publisher), out, zip_file)
