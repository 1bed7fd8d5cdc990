"""Documentation fragments several detectors share (``scoring.registry.shared_doc``) are
expanded where a docstring names them, so ``explain`` and docs/metrics.md read whole."""

from __future__ import annotations

from scoring.detectors import load_all
from scoring.registry import REGISTRY, SHARED_DOCS, _expand_shared


def test_a_marker_line_takes_the_fragment_at_its_indentation():
    SHARED_DOCS["_probe"] = "first line\n\nthird line"
    try:
        assert _expand_shared("Title\n    {shared:_probe}\nafter") == "Title\n    first line\n\n    third line\nafter"
    finally:
        del SHARED_DOCS["_probe"]


def test_every_detector_doc_is_expanded_and_the_deposit_kind_rule_is_in_a1_to_a4():
    load_all()
    for detector in REGISTRY.values():
        assert "{shared:" not in detector.doc, detector.metric_id
    for metric in ("data_description", "data_pointer", "workflow_orchestration", "data_acquisition_script"):
        assert "Not applicable (fill value 0, ``applicable: false``) when the deposit uses no" in REGISTRY[metric].doc
