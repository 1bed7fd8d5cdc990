"""The command line, run as a real process (and in-process through click's runner)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from reproscore.cli import cli
from scoring.catalog import METRIC_IDS

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "tests" / "fixtures" / "samples"
RNASEQ = SAMPLES / "snakemake-rnaseq"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reproscore", *args], capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_score_json_has_the_documented_shape_and_all_26_submetrics():
    proc = run("score", str(RNASEQ), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["schema"] == "reproscore-result/2"
    assert result["scorer"]["name"] == "reproscore"
    assert set(result["rubric"]) >= {"name", "version", "sha256"}
    assert result["rubric"]["name"] == "default"
    assert list(result["submetrics"]) == list(METRIC_IDS)
    assert set(result["categories"]) == {"E", "A", "D", "C", "S"}
    for data in result["categories"].values():
        assert {"raw", "gated", "weight"} <= set(data)
    for metric in result["submetrics"].values():
        assert {"category", "value", "applicable", "level", "evidence", "fix"} <= set(metric)
        for ev in metric["evidence"]:
            assert {"path", "line_start", "line_end", "reason", "snippet"} <= set(ev)
    assert {"files", "bytes", "skipped", "truncated"} <= set(result["inventory"])
    assert [p["id"] for p in result["penalties"]] == ["environment_hard", "data_hard", "seed"]
    assert 0 <= result["rrs"] <= 100


def test_score_several_paths_prints_one_json_object_per_line():
    proc = run("score", str(RNASEQ), str(SAMPLES / "legacy-scripts"), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 2
    assert all(json.loads(line)["schema"] == "reproscore-result/2" for line in lines)


def test_score_text_shows_rrs_profile_penalties_and_ranked_fixes():
    result = CliRunner().invoke(cli, ["score", str(SAMPLES / "legacy-scripts")])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "RRS " in out
    for name in ("Environment specification", "Data accessibility", "Documentation", "Code portability", "Reproducibility signals"):
        assert name in out
    assert "penalty environment_hard: -20" in out
    assert "top fixes (RRS points gained if fixed):" in out


def test_missing_path_is_a_one_line_error_with_status_2(tmp_path):
    proc = run("score", str(tmp_path / "nope"))
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0
    assert proc.stderr.strip() == f"reproscore: error: {tmp_path / 'nope'}: no such file or directory"


def test_a_file_instead_of_a_tree_is_refused(tmp_path):
    target = tmp_path / "f.txt"
    target.write_text("x")
    proc = run("score", str(target))
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"reproscore: error: {target}: not a directory, a zip or a tar archive"


def test_explain_prints_the_detector_documentation():
    proc = run("explain", "dep_pinning")
    assert proc.returncode == 0
    for section in ("What it checks:", "Why it matters:", "Evidence:", "How to fix:", "Known false positives:"):
        assert section in proc.stdout
    assert proc.stdout.startswith("dep_pinning (E1, category E, default weight 0.25")
    assert run("explain", "E1").stdout == proc.stdout


def test_explain_unknown_metric():
    proc = run("explain", "no_such_metric")
    assert proc.returncode == 2
    assert proc.stderr.strip() == "reproscore: error: unknown metric 'no_such_metric'; see 'reproscore metrics'"


def test_rubric_validate_accepts_the_bundled_profile():
    proc = run("rubric", "validate", "rubrics/bioinformatics-v1.yaml")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("rubrics/bioinformatics-v1.yaml: valid rubric bioinformatics-v1 1.0.0")


def test_rubric_validate_rejects_weights_summing_to_1_3_naming_categories(tmp_path):
    text = (ROOT / "rubrics" / "default.yaml").read_text()
    import yaml

    data = yaml.safe_load(text)
    data["name"] = "heavy"
    data["categories"]["E"]["weight"] = 0.60
    bad = tmp_path / "heavy.yaml"
    bad.write_text(yaml.safe_dump(data))
    proc = run("rubric", "validate", str(bad))
    assert proc.returncode == 2
    assert "categories" in proc.stderr.splitlines()[1]


def test_score_refuses_an_invalid_rubric_without_fallback(tmp_path):
    bad = tmp_path / "broken.yaml"
    bad.write_text("schema: reproscore-rubric/2\nname: x\ncategories: [unclosed\n")
    proc = run("score", str(RNASEQ), "--rubric", str(bad))
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith(f"reproscore: error: rubric {bad}:")


def test_rubric_show_prints_the_resolved_rubric_with_its_hash():
    proc = run("rubric", "show", "bioinformatics-v1", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["name"] == "bioinformatics-v1"
    assert data["categories"]["A"]["weight"] == pytest.approx(0.40)
    assert len(data["sha256"]) == 64


def test_console_script_and_module_agree():
    exe = Path(sys.executable).parent / "reproscore"
    proc = subprocess.run([str(exe), "metrics"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    assert proc.stdout == run("metrics").stdout
    assert len(proc.stdout.strip().splitlines()) == 26
