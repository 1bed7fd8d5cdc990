"""CodeMeta 3.0 export: the deposit's metadata with its RRS as a ``review``.

The deposit's own metadata (title, version, creators with ORCID, licence, dates,
description, keywords, repository; from the DataCite record of a Zenodo deposit or the
CodeMeta/Atom metadata of a Software Heritage deposit) becomes a ``SoftwareSourceCode``
description, and the score becomes its ``review``: a ``Review`` with the RRS as a
``Rating`` (0–100), the category profile as one sub-review per category, a reference
to the rubric (name, version and content hash) and to the assessment crate.

CodeMeta 3.0 defines ``review``, ``Review``, ``reviewAspect`` and ``reviewBody`` but
not ``reviewRating``, ``Rating``, ``ratingValue``, ``isBasedOn``, ``itemReviewed``,
``PropertyValue``: those are written with the ``schema:`` prefix (which the CodeMeta
context defines), because JSON-LD processing silently drops a bare term that the
context does not define.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from scoring.catalog import CATEGORY_KEYS

from . import terms
from .assessment import (
    CATEGORY_NAMES,
    DISPLAY_DECIMALS,
    SCORER_NAME,
    SCORER_URL,
    Assessment,
    display_number,
    spdx_license_url,
)
from .jsonld import CODEMETA_CONTEXT

__all__ = ["build_codemeta", "write_codemeta"]

def _rating(value: float, explanation: str | None = None, decimals: int = 2) -> dict[str, Any]:
    rating: dict[str, Any] = {
        "@type": "schema:Rating",
        "schema:ratingValue": display_number(value, decimals),
        "schema:worstRating": 0,
        "schema:bestRating": 100,
    }
    if explanation:
        rating["schema:ratingExplanation"] = explanation
    return rating


def _license(text: str) -> str | dict[str, Any]:
    return spdx_license_url(text) or {"@type": "schema:CreativeWork", "name": text.strip()}


def build_codemeta(a: Assessment, *, crate_url: str | None = None) -> dict[str, Any]:
    """The ``codemeta.json`` document of one assessment (a JSON-ready dict)."""
    s, sc, rub = a.subject, a.score, a.rubric
    doc: dict[str, Any] = {
        "@context": CODEMETA_CONTEXT,
        "@type": "SoftwareSourceCode",
        "@id": s.iri,
        "name": s.display_name,
    }
    identifiers = [f"https://doi.org/{s.doi}"] if s.doi else []
    identifiers.append(a.snapshot.swhid)
    doc["identifier"] = identifiers[0] if len(identifiers) == 1 else identifiers
    for key, value in (("version", s.version), ("description", s.description),
                       ("datePublished", s.publication_date), ("url", s.record_url)):
        if value:
            doc[key] = value
    if s.origin_url:
        doc["codeRepository"] = s.origin_url
    if s.license:
        doc["license"] = _license(s.license)
    if s.keywords:
        doc["keywords"] = list(s.keywords)
    if s.programming_languages:
        doc["programmingLanguage"] = list(s.programming_languages)
    if s.creators:
        authors = []
        for person in s.creators:
            entry: dict[str, Any] = {"@type": "Person", "name": person.name}
            if person.iri:
                entry["@id"] = person.iri
            for key, value in (("givenName", person.given), ("familyName", person.family),
                               ("email", person.email)):
                if value:
                    entry[key] = value
            if person.affiliation:
                entry["affiliation"] = {"@type": "Organization", "name": person.affiliation}
            authors.append(entry)
        doc["author"] = authors
    related = []
    if s.concept_doi:  # the DOI of all versions
        related.append(f"https://doi.org/{s.concept_doi}")
    if a.snapshot.swh_origin:  # the tree in the Software Heritage archive
        related.append(a.snapshot.archive_url)
    if related:
        doc["relatedLink"] = related[0] if len(related) == 1 else related

    profile = ", ".join(f"{k} {sc.categories[k].raw:.1f}" for k in CATEGORY_KEYS)
    fired = [p.id for p in sc.penalties if p.fired]
    crate: dict[str, Any] = {
        "@id": a.urn,
        "@type": "schema:Dataset",
        "name": f"RO-Crate of the RRS assessment of {s.label}",
        "schema:conformsTo": {"@id": "https://w3id.org/ro/crate/1.3"},
    }
    if crate_url:
        crate["url"] = crate_url
    review: dict[str, Any] = {
        "@id": f"{a.urn}#assessment",
        "@type": "Review",
        "name": f"RRS assessment of {s.label}",
        "reviewAspect": "Reproducibility readiness (RRS)",
        "reviewBody": (
            f"RRS {sc.rrs:g}/100 under rubric {rub.name} {rub.version} (sha256 {rub.sha256}). "
            f"Category profile: {profile}. Penalties fired: {', '.join(fired) or 'none'}. "
            f"Tree {a.snapshot.swhid}; scored by {SCORER_NAME} {a.scorer_version} "
            f"({SCORER_URL})."
        ),
        "datePublished": a.computed_at[:10],
        "schema:itemReviewed": {"@id": s.iri},
        "schema:reviewRating": _rating(
            sc.rrs,
            f"Reproducibility Readiness Score (0-100) under rubric {rub.name} {rub.version}",
        ),
        "schema:isBasedOn": {
            "@id": terms.rubric(rub.sha256),
            "@type": "schema:DefinedTermSet",
            "name": f"Rubric {rub.name} {rub.version}",
            "version": rub.version,
            "schema:identifier": {
                "@type": "schema:PropertyValue",
                "schema:propertyID": terms.RUBRIC_SHA256,
                "schema:value": rub.sha256,
            },
        },
        "schema:subjectOf": crate,
        "hasPart": [
            {
                "@type": "Review",
                "name": f"{CATEGORY_NAMES[key]} ({key})",
                "reviewAspect": f"{key}: {CATEGORY_NAMES[key]}",
                "schema:reviewRating": _rating(sc.categories[key].raw, decimals=DISPLAY_DECIMALS),
            }
            for key in CATEGORY_KEYS
        ],
    }
    outcome = a.outcome
    if outcome is not None:
        ros_review: dict[str, Any] = {
            "@type": "Review",
            "name": "Reproducibility outcome score (ROS)",
            "reviewAspect": "ROS: execution outcomes",
            "schema:reviewRating": _rating(
                outcome.ros,
                f"Weighted mean of the observed outcomes {', '.join(outcome.components)} "
                f"(coverage {outcome.coverage:.4g})",
            ),
        }
        ex = a.execution
        if ex is not None:
            ros_review["reviewBody"] = (
                f"Outcome of {ex.origin}, executed {ex.executed_at}"
                + {"bubblewrap": " in a bubblewrap sandbox", "none": " without a sandbox"}.get(ex.sandbox or "", "")
                + f"; first failure class: {ex.failure_class or 'none'}. Components: "
                + ", ".join(f"{cid} {json.dumps(c.input)}" for cid, c in outcome.components.items())
                + ". The probes' commands and exit statuses are in the assessment crate."
            )
            ros_review["datePublished"] = ex.executed_at[:10]
        review["hasPart"].extend([
            ros_review,
            {
                "@type": "Review",
                "name": "Reproducibility composite score (RCS)",
                "reviewAspect": "RCS: readiness and outcomes combined",
                "schema:reviewRating": _rating(
                    outcome.rcs, f"(1 - alpha) RRS + alpha ROS with alpha {outcome.alpha:.4g}"
                ),
            },
        ])
    doc["review"] = review
    return doc


def write_codemeta(a: Assessment, out: str | os.PathLike[str], *, crate_url: str | None = None) -> Path:
    """Write ``codemeta.json`` of one assessment to the file ``out``."""
    target = Path(out)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(
        json.dumps(build_codemeta(a, crate_url=crate_url), indent=2, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    return target
