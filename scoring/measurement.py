"""``measure(tree)``: run every registered detector over one tree index.

Measurement is rubric-independent and is the expensive half of scoring; the result can
be stored and scored again under any rubric (:func:`scoring.aggregate.score`).
"""

from __future__ import annotations

import os
import traceback

from . import __version__
from .catalog import METRIC_IDS
from .model import OUTCOME_ERROR, Measurement, Measurements
from .registry import load_detectors
from .sources import TreeSource
from .tree import Limits, TreeIndex


def measure(tree: str | os.PathLike[str] | TreeSource | TreeIndex, *, limits: Limits | None = None) -> Measurements:
    """Measure all 26 sub-metrics of ``tree`` (a path, a tree source or an index).

    A detector that raises does not abort the others: its measurement has outcome
    ``error`` and the reason, and the aggregator will refuse to score the tree.
    """
    if isinstance(tree, TreeIndex):
        index = tree
    elif isinstance(tree, (str, os.PathLike)):
        index = TreeIndex.from_path(tree, limits)
    else:
        index = TreeIndex(tree, limits)
    registry = load_detectors()
    results: dict[str, Measurement] = {}
    for metric_id in METRIC_IDS:
        det = registry[metric_id]
        try:
            results[metric_id] = det.run(index)
        except Exception as exc:  # noqa: BLE001 - one detector's bug must not hide the others
            results[metric_id] = Measurement(
                metric_id=metric_id,
                category=det.category,
                value=None,
                applicable=False,
                level=None,
                outcome=OUTCOME_ERROR,
                reason=f"{type(exc).__name__}: {exc}",
                counts={"traceback_tail": traceback.format_exc(limit=3).splitlines()[-3:]},
                detector_version=det.version,
            )
    return Measurements(measurements=results, inventory=index.inventory(), scorer_version=__version__)
