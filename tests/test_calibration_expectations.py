"""The curators' expectations (tests/calibration/<kind>/<repo>.yaml and checked/) are data the
calibration run trusts: a malformed file would silently count as a disagreement or, worse, as
an agreement. These tests hold every file to the format of tests/calibration/README.md and
the tiered metrics to the level sets of METRICS.md §3.0."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from scoring.catalog import METRICS

CALIBRATION = Path(__file__).resolve().parent / "calibration"
KINDS = {"python-library", "python-analysis", "r-package", "r-analysis", "julia", "matlab", "compiled", "workflow"}
CONTINUOUS = {
    "inline_explanation_density", "docstring_coverage", "no_absolute_paths", "import_resolvability",
    "no_hardcoded_credentials", "silent_failure_masking", "seed_management", "notebook_exec_order",
}
# METRICS.md §3.0 "REF level set" of every tiered metric (E1's 50...70 are integers)
LEVELS = {
    "dep_pinning": {0, 20, *range(50, 71), 80, 100},
    "container_spec": {0, 20, 50, 80, 100},
    "env_bootstrap": {0, 80, 100},
    "python_version_declared": {0, 100},
    "data_description": {0, 20, 40, 50, 70, 80, 100},
    "data_pointer": {0, 25, 40, 60, 75, 80, 100},
    "workflow_orchestration": {0, 70, 80, 100},
    "data_acquisition_script": {0, 100},
    "doc_structure": {0, 25, 50, 75, 100},
    "install_instructions": {0, 30, 70, 100},
    "usage_examples": {0, 30, 60, 100},
    "execution_entry_point": {0, 80, 100},
    "reuse_metadata": {0, 40, 70, 100},
    "test_file_presence": {0, 50, 100},
    "expected_outputs": {0, 40, 60, 100},
    "ci_presence": {0, 100},
    "config_externalised": {0, 80, 100},
    "hardware_requirements": {0, 100},
}
FILES = sorted(p for p in CALIBRATION.glob("**/*.yaml") if p.name != "ranking.yaml")


def test_every_metric_is_either_tiered_or_continuous():
    assert set(LEVELS) | CONTINUOUS == {m.metric_id for m in METRICS}
    assert not set(LEVELS) & CONTINUOUS


def test_both_sets_are_there():
    calibration = [p for p in FILES if p.parent.parent == CALIBRATION]
    checked = [p for p in FILES if p.parent.parent.name == "checked"]
    assert len(calibration) == 48
    assert len(checked) >= 49
    assert {p.parent.name for p in FILES} == KINDS


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(CALIBRATION)))
def test_expectation_file(path):
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert data["kind"] == path.parent.name
    assert re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+", data["repository"])
    assert re.fullmatch(r"[0-9a-f]{40}", str(data["commit"]))
    expected = data["expected"]
    assert set(expected) == {m.metric_id for m in METRICS}
    for metric, spec in expected.items():
        forms = [key for key in ("level", "range", "not_applicable") if key in spec]
        assert len(forms) == 1, f"{metric}: exactly one of level, range, not_applicable"
        assert str(spec.get("reason") or "").strip(), f"{metric}: no reason"
        if "range" in spec:
            assert metric in CONTINUOUS, f"{metric}: a tiered metric takes a level, not a range"
            low, high = (float(x) for x in spec["range"])
            assert 0 <= low <= high <= 100, metric
        elif "level" in spec:
            level = float(spec["level"])
            if metric in CONTINUOUS:
                assert 0 <= level <= 100, metric
            else:
                assert level in LEVELS[metric], f"{metric}: {level:g} is not a level of METRICS.md §3.0"
        else:
            assert spec["not_applicable"] is True
    for item in data.get("evidence") or []:
        assert item["metric"] in expected
        assert item["path"] and not item["path"].startswith("/")


def test_checked_repositories_list_names_every_checked_file():
    listed = set()
    for line in (CALIBRATION / "checked" / "repositories.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            kind, folder, url, commit = line.split()
            listed.add((kind, folder, url, commit))
    on_disk = set()
    for path in FILES:
        if path.parent.parent.name == "checked":
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
            on_disk.add((path.parent.name, path.stem, data["repository"], str(data["commit"])))
    assert listed == on_disk
