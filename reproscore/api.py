"""The public library functions that the ``reproscore`` commands wrap, one per command.

The CLI only parses arguments and formats output; everything it does is available here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from scoring import __version__
from scoring.aggregate import score
from scoring.catalog import METRICS, resolve_metric
from scoring.fixes import rank_fixes
from scoring.measure import measure
from scoring.registry import load_detectors
from scoring.rubric import Rubric, load_rubric, parse_rubric
from scoring.tree import Limits


@dataclass
class TreeScore:
    """The scored result of one tree: the JSON-ready dict and the ranked fixes."""

    path: str
    result: dict[str, Any]
    fixes: list[dict[str, Any]]


def score_tree(path: str | os.PathLike[str], rubric: str | os.PathLike[str] | Rubric = "default", *, limits: Limits | None = None) -> TreeScore:
    """Measure ``path`` and score it under ``rubric`` (a bundled name, a file or a Rubric).

    Raises ``scoring.sources.TreeSourceError`` when the path cannot be read as a tree and
    ``scoring.rubric.RubricError`` when the rubric is invalid.
    """
    rub = rubric if isinstance(rubric, Rubric) else load_rubric(rubric)
    measurements = measure(path, limits=limits)
    scored = score(measurements, rub)
    return TreeScore(path=str(path), result=scored.to_dict(), fixes=rank_fixes(measurements, rub))


def explain_metric(name: str) -> str:
    """The documentation of one detector (by id such as ``dep_pinning`` or code ``E1``)."""
    spec = resolve_metric(name)
    det = load_detectors()[spec.metric_id]
    header = f"{spec.metric_id} ({spec.code}, category {spec.category}, default weight {spec.default_weight:g}, detector {det.version})"
    return f"{header}\n{'=' * len(header)}\n\n{det.doc}\n"


def list_metrics() -> list[dict[str, Any]]:
    """Every sub-metric with its code, category, default weight and title."""
    return [
        {"id": m.metric_id, "code": m.code, "category": m.category, "weight": m.default_weight, "title": m.title}
        for m in METRICS
    ]


def validate_rubric_file(path: str | os.PathLike[str]) -> Rubric:
    """Load and strictly validate a rubric file; raises RubricError naming the key."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    return parse_rubric(text, source=str(path))


def show_rubric(name_or_path: str) -> dict[str, Any]:
    """The resolved rubric (extends applied, defaults filled) with its identity."""
    rub = load_rubric(name_or_path)
    data = rub.to_dict()
    data["sha256"] = rub.sha256
    return data


__all__ = ["TreeScore", "score_tree", "explain_metric", "list_metrics", "validate_rubric_file", "show_rubric", "__version__"]
