"""Bad input never crashes the scorer: each case is recorded in the inventory or the
evidence, and the tree is still scored with all 26 sub-metrics."""

from __future__ import annotations

import json
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import load_rubric, measure, score
from scoring.catalog import METRIC_IDS
from scoring.model import OUTCOME_ERROR

RUBRIC = load_rubric("default")


def scored(path):
    measurements = measure(path)
    errors = {m: measurements[m].reason for m in METRIC_IDS if measurements[m].outcome == OUTCOME_ERROR}
    assert not errors, errors
    return measurements, score(measurements, RUBRIC).to_dict()


def test_hostile_tree_is_scored_and_every_problem_recorded(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    files = {
        "binary.py": b"\x00\x00\x00ELF binary with a .py name",
        "notebook_v3.ipynb": json.dumps({"nbformat": 3, "worksheets": [{"cells": [{"cell_type": "code", "input": "import numpy", "prompt_number": 1, "outputs": []}]}]}),
        "broken.ipynb": "{\"cells\": [",
        "markdown_only.ipynb": json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "markdown", "metadata": {}, "source": "Only prose in this notebook."}]}),
        "pyproject.toml": "[project\nname = 'x'",
        "environment.yml": "dependencies: [unclosed\n  - numpy",
        "requirements.txt": "numpy===\n@@@ not a requirement\n-r missing.txt\n",
        "latin1.py": "# caf\xe9\nx = 1\n".encode("latin-1"),
        "py2.py": "print 'hello'\nexcept:\n",
        "empty.py": "",
        "setup.py": "from setuptools import setup\nsetup(install_requires=get_deps())\n",
        "CITATION.cff": ": : not yaml : :\n\t- x",
        "huge.py": "x = 1\n" * 100_000,
    }
    for rel, content in files.items():
        path = root / rel
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    (root / os.fsdecode(b"caf\xe9-\xff.R")).write_text("x <- 1\n")
    os.symlink("nowhere.py", root / "dangling.py")
    os.symlink("/etc/passwd", root / "outside.py")
    os.symlink("loop2", root / "loop1")
    os.symlink("loop1", root / "loop2")
    os.mkfifo(root / "pipe.sh")

    measurements, result = scored(root)
    assert list(result["submetrics"]) == list(METRIC_IDS)
    skipped = {s["path"]: s["reason"] for s in result["inventory"]["skipped"]}
    assert skipped["binary.py"] == "binary content"
    assert skipped["dangling.py"] == "dangling symbolic link"
    assert skipped["outside.py"] == "symbolic link pointing outside the tree"
    assert skipped["loop1"] == "symbolic link loop"
    assert skipped["pipe.sh"] == "special file (fifo, socket or device)"
    problems = {(p["path"], p["reason"].split(":")[0]) for p in result["inventory"]["problems"]}
    assert ("broken.ipynb", "invalid notebook") in problems
    assert ("pyproject.toml", "invalid TOML") in problems
    assert ("latin1.py", "not valid UTF-8; decoded with replacement characters") in problems
    assert any(p == "py2.py" and r.startswith("does not parse as Python 3") for p, r in problems)
    assert 0 <= result["rrs"] <= 100


def test_empty_tree_is_scored_as_the_contract_says(tmp_path):
    _, result = scored(tmp_path)
    cats = result["categories"]
    # METRICS.md §11.25 under V2: C raw 100 because import_resolvability is 100.
    assert (cats["E"]["raw"], cats["A"]["raw"]) == (0, 0)
    assert round(cats["D"]["raw"], 2) == 10.0
    assert round(cats["C"]["raw"], 2) == 100.0
    assert round(cats["S"]["raw"], 2) == 54.0
    assert result["rrs"] == 0.0
    assert round(result["rrs_unclamped"], 2) == round(22.14 - 35, 2)
    assert result["inventory"]["files"] == 0
    assert result["submetrics"]["hardware_requirements"]["applicable"] is False
    assert result["submetrics"]["dep_pinning"]["applicable"] is True


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.dictionaries(
        st.sampled_from(["README.md", "a.py", "b.ipynb", "requirements.txt", "environment.yml", "pyproject.toml", "Dockerfile", "Makefile", "run.sh", "x.R", "DATA.md", "setup.py", "CITATION.cff", "codemeta.json"]),
        st.one_of(st.text(max_size=300), st.binary(max_size=100)),
        max_size=8,
    )
)
def test_arbitrary_content_never_crashes_a_detector(tmp_path_factory, contents):
    root = tmp_path_factory.mktemp("fuzz")
    for name, content in contents.items():
        path = root / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8", errors="surrogatepass")
    scored(root)
