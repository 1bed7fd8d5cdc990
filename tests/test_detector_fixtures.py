"""Golden fixtures per detector: ``tests/fixtures/<metric_id>/<case>/`` holds a mini
repository in ``tree/`` and the expected measurement in ``expected.json``.

``expected.json`` keys: ``value`` (compared to 0.01), ``level`` and ``applicable``
(both required), optional ``counts`` (subset) and ``evidence``: a list of items each of which must match
(on the keys it gives) some evidence item of the measurement.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring.catalog import METRIC_IDS
from scoring.registry import DOC_SECTIONS, load_detectors
from scoring.tree import TreeIndex

FIXTURES = Path(__file__).parent / "fixtures"

REGISTRY = load_detectors()


def _cases():
    for metric_dir in sorted(p for p in FIXTURES.iterdir() if p.is_dir() and p.name in METRIC_IDS):
        for case in sorted(p for p in metric_dir.iterdir() if (p / "expected.json").is_file()):
            yield pytest.param(metric_dir.name, case, id=f"{metric_dir.name}/{case.name}")


@pytest.mark.parametrize(("metric_id", "case"), list(_cases()))
def test_fixture_case(metric_id, case):
    expected = json.loads((case / "expected.json").read_text())
    tree = case / "tree"
    if not tree.exists():
        tree.mkdir()  # an empty tree cannot be committed to git
    measurement = REGISTRY[metric_id].run(TreeIndex.from_path(tree))
    assert measurement.value == pytest.approx(expected["value"], abs=0.01), measurement.reason
    assert measurement.level == expected["level"]
    assert measurement.applicable is expected["applicable"]
    for key, value in expected.get("counts", {}).items():
        assert measurement.counts.get(key) == value, key
    produced = [e.to_dict() for e in measurement.evidence]
    for item in expected.get("evidence", []):
        assert any(all(ev.get(k) == v for k, v in item.items()) for ev in produced), (item, produced)


@pytest.mark.parametrize("metric_id", METRIC_IDS)
def test_every_detector_is_documented_and_has_fixtures(metric_id):
    detector = REGISTRY[metric_id]
    sections = detector.sections()
    missing = [s for s in DOC_SECTIONS if not sections.get(s)]
    assert not missing, f"{metric_id} docstring lacks sections {missing}"
    assert sections.get("", "").strip(), f"{metric_id} docstring lacks a summary line"
    cases = [p for p in (FIXTURES / metric_id).glob("*/expected.json")] if (FIXTURES / metric_id).is_dir() else []
    assert len(cases) >= 3, f"{metric_id} needs at least three fixture cases under tests/fixtures/{metric_id}/"
