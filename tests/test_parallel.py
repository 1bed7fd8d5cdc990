"""Measuring many trees in worker processes gives exactly what one process gives, in order."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from reproscore import api
from scoring import load_rubric, measure, measure_many, score
from scoring.parallel import ordered_map, resolve_jobs
from scoring.trees.sources import TreeSourceError

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "tests" / "fixtures" / "samples"
SAMPLE_TREES = sorted(p for p in SAMPLES.iterdir() if p.is_dir())


def _square_or_fail(n: int) -> int:
    if n == 3:
        raise ValueError("three is refused")
    return n * n


def test_ordered_map_keeps_input_order_and_reports_each_failure_in_place():
    got = list(ordered_map(_square_or_fail, range(7), jobs=2))
    assert [item for item, _ in got] == list(range(7))
    values = [value for _, value in got]
    assert values[:3] == [0, 1, 4] and values[4:] == [16, 25, 36]
    assert isinstance(values[3], ValueError) and str(values[3]) == "three is refused"


def test_one_job_runs_in_this_process_with_the_same_results():
    assert list(ordered_map(_square_or_fail, [2, 5], jobs=1)) == [(2, 4), (5, 25)]


def test_job_count_is_one_per_core_by_default_and_never_more_than_the_tasks():
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert resolve_jobs(0, 1000) == cores
    assert resolve_jobs(None, 1000) == cores
    assert resolve_jobs(8, 3) == 3
    assert resolve_jobs(2, 0) == 1


def test_measure_many_in_two_processes_equals_measuring_each_tree_here(tmp_path):
    missing = tmp_path / "not-there"
    paths = [*SAMPLE_TREES, missing]
    rubric = load_rubric("default")
    results = list(measure_many(paths, jobs=2))
    assert [path for path, _ in results] == [os.fspath(p) for p in paths]
    for path, measured in results[:-1]:
        direct = measure(path)
        assert score(measured, rubric).to_dict() == score(direct, rubric).to_dict()
        assert {mid: m.evidence for mid, m in measured.measurements.items()} == {
            mid: m.evidence for mid, m in direct.measurements.items()
        }
    assert isinstance(results[-1][1], TreeSourceError)
    assert "not-there" in str(results[-1][1])


def test_score_paths_stores_every_tree_once_from_the_parent_process(tmp_path):
    db = tmp_path / "scores.db"
    scored = list(api.score_paths(SAMPLE_TREES, "default", db=db, jobs=2))
    assert all(not isinstance(result, BaseException) for _, result in scored)
    serial = {str(p): api.score_path(p, "default").result["rrs"] for p in SAMPLE_TREES}
    assert {path: result.result["rrs"] for path, result in scored} == serial
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM snapshots").fetchone()[0] == len(SAMPLE_TREES)
        assert conn.execute("SELECT count(*) FROM scores").fetchone()[0] == len(SAMPLE_TREES)
    # A second parallel pass reuses the stored measurements and stores nothing new.
    again = list(api.score_paths(SAMPLE_TREES, "default", db=db, jobs=2))
    assert [r.result["rrs"] for _, r in again] == [r.result["rrs"] for _, r in scored]
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM scores").fetchone()[0] == len(SAMPLE_TREES)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_cli_score_with_workers_prints_results_in_argument_order(jobs):
    paths = [str(p) for p in SAMPLE_TREES]
    proc = subprocess.run(
        [sys.executable, "-m", "reproscore", "score", *paths, "--format", "json", "--workers", jobs],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    expected = [api.score_path(p, "default").result for p in SAMPLE_TREES]
    assert [line["rrs"] for line in lines] == [e["rrs"] for e in expected]
    assert [line["snapshot"]["swhid"] for line in lines] == [e["snapshot"]["swhid"] for e in expected]
