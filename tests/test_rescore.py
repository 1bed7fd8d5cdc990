"""Rescoring a stored collection from stored measurements alone, and showing stored
scores in the shape of ``reproscore score``; end to end on the sample trees."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import synthetic
import yaml
from click.testing import CliRunner

from reproscore import api
from reproscore.cli import cli
from reproscore.store import Store
from scoring.aggregate import score
from scoring.catalog import CATEGORY_KEYS
from scoring.model import Measurement
from scoring.rubric import load_rubric

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted(p for p in (ROOT / "tests" / "fixtures" / "samples").iterdir() if p.is_dir())
DEFAULT = load_rubric("default")
BIO = load_rubric("bioinformatics-v1")




def fill(path: Path, seeds: range) -> None:
    with Store(path) as store:
        rubric_id = store.ensure_rubric(DEFAULT)
        for seed in seeds:
            measured = synthetic.measurements(seed)
            store.save_snapshot(
                synthetic.identity(seed), measured, label=f"synthetic/{seed}",
                score=(rubric_id, score(measured, DEFAULT)),
            )  # fmt: skip


def dump(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "reproscore", *args], capture_output=True, text=True, cwd=ROOT, timeout=300
    )


# --------------------------------------------------------------------------- rescore


@pytest.mark.parametrize("batch_size", [1, 7, 1000])
def test_rescore_gives_exactly_the_scores_of_scoring_the_measurements(tmp_path, batch_size):
    path = tmp_path / "r.db"
    fill(path, range(40))
    with Store(path) as store:
        report = store.rescore(BIO, batch_size=batch_size)
        assert (report.snapshots, report.scored, report.inserted, report.incomplete) == (40, 40, 40, 0)
        rubric_id = store.rubric_id(BIO)
        for seed in range(40):
            record = store.find_snapshot(synthetic.identity(seed).swhid)
            stored = store.stored_score(record, rubric_id)
            expected = score(synthetic.measurements(seed), BIO)
            assert (stored.rrs, stored.rrs_unclamped) == (expected.rrs, expected.rrs_unclamped)
            assert stored.raw == {k: expected.categories[k].raw for k in CATEGORY_KEYS}
            assert stored.contribution == {k: expected.categories[k].gated for k in CATEGORY_KEYS}
            assert stored.penalties_fired == [p.id for p in expected.penalties if p.fired]


def test_rescore_is_idempotent(tmp_path):
    path = tmp_path / "r.db"
    fill(path, range(25))
    with Store(path) as store:
        store.rescore(BIO, batch_size=4)
    before = dump(path)
    with Store(path) as store:
        report = store.rescore(BIO, batch_size=9)
    assert (report.scored, report.inserted) == (25, 0)
    assert report.to_dict()["already_stored"] == 25
    assert dump(path) == before


def test_rescore_skips_and_reports_incomplete_snapshots(tmp_path):
    path = tmp_path / "r.db"
    fill(path, range(10))
    with Store(path) as store:
        failed = synthetic.measurements(100)
        failed.measurements["data_pointer"] = Measurement(
            metric_id="data_pointer", category="A", value=None, applicable=False, level=None,
            outcome="error", reason="boom", detector_version=synthetic.DETECTOR_VERSION,
        )  # fmt: skip
        store.save_snapshot(synthetic.identity(100), failed)
        # A measurement row lost by hand (the store itself never writes one alone).
        victim = store.find_snapshot(synthetic.identity(3).swhid)
        with store.write() as conn:
            conn.execute(
                "DELETE FROM evidence WHERE measurement_id IN (SELECT id FROM measurements"
                " WHERE snapshot_id = ? AND metric_id = 'ci_presence')",
                (victim.id,),
            )
            conn.execute("DELETE FROM measurements WHERE snapshot_id = ? AND metric_id = 'ci_presence'", (victim.id,))
        for batch_size in (1, 4, 1000):
            report = store.rescore(load_rubric("bioinformatics-v1"), batch_size=batch_size)
            assert (report.snapshots, report.scored, report.incomplete) == (11, 9, 2)
            assert set(report.incomplete_swhids) == {synthetic.identity(100).swhid, synthetic.identity(3).swhid}
        # The complete ones around the gaps are still scored correctly.
        for seed in (2, 4):
            record = store.find_snapshot(synthetic.identity(seed).swhid)
            assert store.stored_score(record, store.rubric_id(BIO)).rrs == score(synthetic.measurements(seed), BIO).rrs


def test_rescore_command_prints_the_count_and_the_time(tmp_path):
    path = tmp_path / "r.db"
    fill(path, range(12))
    result = CliRunner().invoke(cli, ["rescore", "--db", str(path), "--rubric", "bioinformatics-v1"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("rescored 12 snapshots under bioinformatics-v1 1.0.0")
    assert " s (" in result.output and "snapshots/s" in result.output and "12 new" in result.output
    again = CliRunner().invoke(cli, ["rescore", "--db", str(path), "--rubric", "bioinformatics-v1", "--format", "json"])
    data = json.loads(again.output)
    assert (data["scored"], data["inserted"], data["already_stored"]) == (12, 0, 12)


def test_rescore_under_a_rubric_file_then_refuses_the_same_version_changed(tmp_path):
    path = tmp_path / "r.db"
    fill(path, range(5))
    doc = DEFAULT.to_dict() | {"name": "lab", "version": "1.0.0"}
    rubric_file = tmp_path / "lab.yaml"
    rubric_file.write_text(yaml.safe_dump(doc))
    first = run("rescore", "--db", str(path), "--rubric", str(rubric_file))
    assert first.returncode == 0, first.stderr
    doc["categories"]["E"]["weight"] = 0.20
    doc["categories"]["A"]["weight"] = 0.35
    rubric_file.write_text(yaml.safe_dump(doc))
    second = run("rescore", "--db", str(path), "--rubric", str(rubric_file))
    assert second.returncode == 2
    assert "lab@1.0.0 is stored" in second.stderr and "change the version" in second.stderr
    # The stored rubric stays usable by name even without its file.
    rubric_file.unlink()
    third = run("rescore", "--db", str(path), "--rubric", "lab@1.0.0", "--format", "json")
    assert third.returncode == 0, third.stderr
    assert json.loads(third.stdout)["already_stored"] == 5


# --------------------------------------------------------------------------- show


def test_show_returns_the_json_of_score_with_the_stored_provenance(tmp_path):
    path = tmp_path / "r.db"
    fill(path, range(3))
    with Store(path) as store:
        store.rescore(BIO)
    swhid = synthetic.identity(1).swhid
    result = CliRunner().invoke(cli, ["show", "--db", str(path), swhid, "--rubric", "bioinformatics-v1", "--format", "json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    stored = shown.pop("stored")
    assert set(stored) == {"score_id", "scorer_version", "computed_at"}
    expected = score(synthetic.measurements(1), BIO).to_dict()
    expected["snapshot"] = synthetic.identity(1).to_dict()
    assert shown == json.loads(json.dumps(expected))
    # Without --rubric: the default rubric, although the rescore under BIO came last.
    unnamed = CliRunner().invoke(cli, ["show", "--db", str(path), swhid[10:22], "--format", "json"])
    assert json.loads(unnamed.output)["rubric"]["name"] == "default"
    text = CliRunner().invoke(cli, ["show", "--db", str(path), swhid])
    assert text.exit_code == 0, text.output
    assert "synthetic/1" in text.output and swhid in text.output and "stored score" in text.output
    assert "rubric default 1.0.0, sha256" in text.output


def test_show_explains_what_is_missing(tmp_path):
    path = tmp_path / "r.db"
    fill(path, range(2))
    runner = CliRunner()
    missing_rubric = runner.invoke(cli, ["show", "--db", str(path), synthetic.identity(0).swhid, "--rubric", "bioinformatics-v1"])
    assert missing_rubric.exit_code == 2
    assert "no stored score under rubric bioinformatics-v1@1.0.0" in missing_rubric.output
    assert "reproscore rescore" in missing_rubric.output
    unknown = runner.invoke(cli, ["show", "--db", str(path), "zenodo:42"])
    assert unknown.exit_code == 2 and "no snapshot or deposit" in unknown.output


# --------------------------------------------------------------------------- end to end on real trees


def test_score_with_db_then_rescore_then_show_gives_the_numbers_of_score(tmp_path):
    """The acceptance check of the issue, over every sample tree."""
    db = tmp_path / "x.db"
    for sample in SAMPLES:
        stored = run("score", str(sample), "--db", str(db), "--format", "json")
        assert stored.returncode == 0, stored.stderr
        assert json.loads(stored.stdout)["snapshot"]["swhid"].startswith("swh:1:dir:")
    rescored = run("rescore", "--db", str(db), "--rubric", "bioinformatics-v1")
    assert rescored.returncode == 0, rescored.stderr
    assert rescored.stdout.startswith(f"rescored {len(SAMPLES)} snapshots")
    for sample in SAMPLES:
        direct = run("score", str(sample), "--rubric", "bioinformatics-v1", "--format", "json")
        assert direct.returncode == 0, direct.stderr
        expected = json.loads(direct.stdout)
        for reference in (expected["snapshot"]["swhid"], str(sample)):
            shown = run("show", "--db", str(db), reference, "--rubric", "bioinformatics-v1", "--format", "json")
            assert shown.returncode == 0, shown.stderr
            result = json.loads(shown.stdout)
            result.pop("stored")
            assert result == expected, sample.name


def test_scoring_a_tree_twice_into_the_store_changes_nothing_and_measures_once(tmp_path):
    db = tmp_path / "x.db"
    sample = SAMPLES[0]
    first = api.score_path(sample, "default", db=db)
    before = dump(db)
    second = api.score_path(sample, "default", db=db)
    assert dump(db) == before
    assert second.result == first.result
    with Store(db) as store:
        stats = store.stats()
    assert stats["tables"]["snapshots"] == 1 and stats["tables"]["measurements"] == 26
    # A copy of the tree elsewhere is the same snapshot.
    copy = tmp_path / "copy"
    shutil.copytree(sample, copy, symlinks=True)
    api.score_path(copy, "bioinformatics-v1", db=db)
    with Store(db) as store:
        stats = store.stats()
    assert stats["tables"]["snapshots"] == 1 and stats["tables"]["scores"] == 2


def test_score_json_carries_the_snapshot_identity(tmp_path):
    proc = run("score", str(SAMPLES[0]), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    snapshot = json.loads(proc.stdout)["snapshot"]
    assert set(snapshot) == {"swhid", "files", "bytes"}
    assert snapshot["swhid"] == api.identify_tree(SAMPLES[0]).swhid
