"""The IRIs reproscore mints for its vocabulary, shared by every export format.

They are identifiers, not documents: nothing is ever fetched from them. The same IRI
names a metric in the RDF export (a ``dqv:Metric``) and in the RO-Crate (the
``propertyID`` of its values and the ``@id`` of its ``DefinedTerm``), so the two can be
joined.
"""

from __future__ import annotations

__all__ = [
    "BASE_IRI",
    "COMMAND",
    "EXIT_STATUS",
    "FAILURE_CLASS",
    "ORIGIN",
    "PROBE_STATUS",
    "OUTCOME_CATEGORY",
    "READINESS_CATEGORY",
    "RUBRIC_SHA256",
    "TERMS",
    "category_metric",
    "dimension",
    "metric",
    "outcome_metric",
    "rubric",
    "score_metric",
]

BASE_IRI = "https://w3id.org/reproscore/"
TERMS = BASE_IRI + "terms#"
# The property whose value is a rubric's content hash: SHA-256 of the RFC 8785 form of
# its scoring-relevant content, the sha256 every stored score names.
RUBRIC_SHA256 = TERMS + "rubricSha256"
READINESS_CATEGORY = BASE_IRI + "category/readiness"
# The evidence of an execution outcome: each probe's status, command, exit status and
# failure class (the paper's vocabulary: install_dep, missing_module, missing_data,
# code_error, timeout), and the outcome's origin (who ran it).
PROBE_STATUS = TERMS + "probeStatus"
COMMAND = TERMS + "command"
EXIT_STATUS = TERMS + "exitStatus"
FAILURE_CLASS = TERMS + "failureClass"
ORIGIN = TERMS + "origin"
OUTCOME_CATEGORY = BASE_IRI + "category/outcome"
SCORE_KEYS = ("RRS", "ROS", "coverage", "alpha", "RCS")


def metric(metric_id: str) -> str:
    """A sub-metric (``dep_pinning``)."""
    return f"{BASE_IRI}metric/{metric_id}"


def category_metric(key: str) -> str:
    """The raw score of a category (``E``)."""
    return f"{BASE_IRI}metric/category/{key}"


def outcome_metric(component: str) -> str:
    """An execution outcome, a ROS component (``I``, ``X``, ...)."""
    return f"{BASE_IRI}metric/outcome/{component}"


def score_metric(key: str) -> str:
    """``RRS``, ``ROS``, ``coverage``, ``alpha`` or ``RCS``."""
    if key not in SCORE_KEYS:
        raise KeyError(key)
    return f"{BASE_IRI}metric/{key}"


def dimension(key: str) -> str:
    """A DQV dimension: a category (``E``) or ``outcome``."""
    return f"{BASE_IRI}dimension/{key}"


def rubric(sha256: str) -> str:
    """A rubric, by its content hash: the same content is the same rubric."""
    return f"{BASE_IRI}rubric/{sha256}"
