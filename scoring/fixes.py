"""Rank fix suggestions by the RRS points they would gain.

The gain of a sub-metric is the RRS it would reach at 100 (everything else unchanged)
minus the current RRS, under the same rubric: gates and penalties included, so fixing a
metric that lifts a category over its gate or out of a hard penalty ranks high.
"""

from __future__ import annotations

from typing import Any

from .aggregate import compile_rubric
from .catalog import METRIC_IDS
from .model import Measurements
from .rubric import Rubric


def rank_fixes(measurements: Measurements, rubric: Rubric, *, limit: int | None = None) -> list[dict[str, Any]]:
    """Fix suggestions sorted by points gained (largest first), ties by catalog order."""
    if any(measurements.measurements.get(m) is None or measurements[m].value is None for m in METRIC_IDS):
        return []
    compiled = compile_rubric(rubric)
    values = [float(measurements[m].value) for m in METRIC_IDS]
    inapplicable = compiled.inapplicable_categories(
        {m: measurements[m].applicable for m in METRIC_IDS}
    )
    baseline = compiled(values, inapplicable)[-1]
    ranked = []
    for position, metric_id in enumerate(METRIC_IDS):
        m = measurements[metric_id]
        if m.value is None or m.value >= 100 or not m.fix:
            continue
        trial = list(values)
        trial[position] = 100.0
        gain = compiled(trial, inapplicable)[-1] - baseline
        ranked.append(
            {
                "metric_id": metric_id,
                "category": m.category,
                "value": m.value,
                "gain": round(gain, 2),
                "fix": m.fix,
                "_order": position,
            }
        )
    ranked.sort(key=lambda r: (-r["gain"], r["_order"]))
    for r in ranked:
        del r["_order"]
    return ranked[:limit] if limit else ranked
