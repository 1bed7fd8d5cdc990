"""Category S detectors aggregate facts and parsed structures (issue 15): the detector
modules converted so far neither parse nor scan a file's text, and the parsers and tree
index accessors they read instead give exact values."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from scoring.parsers.ci import parse_ci_config
from scoring.parsers.front_matter import parse_front_matter
from scoring.parsers.hardware import first_hardware_line
from scoring.tree import TreeIndex

SIGNALS = Path(__file__).resolve().parents[1] / "scoring" / "detectors" / "signals"
# seed_management still scans code units (CodeUnit, R/Julia text): not converted yet
NOT_CONVERTED = {"seed_management.py"}
BANNED_MODULES = ("ast", "tokenize", "tree_sitter")
BANNED_CALLS = {"text", "lines", "python_unit", "python_units", "notebook"}


@pytest.mark.parametrize("module", sorted(p.name for p in SIGNALS.glob("*.py") if p.name not in NOT_CONVERTED))
def test_converted_signals_modules_read_facts_only(module):
    tree = ast.parse((SIGNALS / module).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            assert not any(a.name.split(".")[0] in BANNED_MODULES for a in node.names), module
        elif isinstance(node, ast.ImportFrom):
            top = (node.module or "").split(".")[0]
            assert top not in BANNED_MODULES, module
            assert node.module not in ("scoring.parsers.python", "scoring.parsers.notebook"), module
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "tree":
            assert node.attr not in BANNED_CALLS, f"{module}: tree.{node.attr}"


def test_ci_config_first_test_line_outside_comments():
    text = "on: push\njobs:\n  t:\n    # pytest later\n    run: echo '#' && python -m pytest -q\n    run: tox\n"
    config = parse_ci_config(text, "ci.yml")
    assert (config.test_line, config.test_text) == (5, "    run: echo '#' && python -m pytest -q")
    assert parse_ci_config("run: pytest-cov-report\n", "x.yml").test_line is None


def test_front_matter_keys_of_the_header_only():
    text = "---\ntitle: A\nparams:\n  n: 3\n...\nparams: not header\n"
    assert parse_front_matter(text, "a.Rmd").keys == {"title": (2, "title: A"), "params": (3, "params:")}
    assert parse_front_matter("params: x\n", "b.Rmd").keys == {}


def test_hardware_lines_by_kind():
    assert first_hardware_line(["# Setup", "Needs 16 GB of RAM", "GPU"], "declaration") == (2, "Needs 16 GB of RAM")
    assert first_hardware_line(["# --extra-index-url https://x/whl/cu118",
                                "--extra-index-url https://download.pytorch.org/whl/cu118"], "wheel_index") == (
        2, "--extra-index-url https://download.pytorch.org/whl/cu118")
    assert first_hardware_line(["services:", "  runtime: nvidia"], "compose_gpu") == (2, "  runtime: nvidia")
    assert first_hardware_line(["nothing here"], "declaration") is None


def test_tree_snippet_of_files_and_notebook_cells(make_tree):
    nb = json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "markdown", "source": "# T", "metadata": {}},
        {"cell_type": "code", "source": "x = 1\ny = 2\n", "execution_count": 1, "outputs": [], "metadata": {}}]})
    tree = TreeIndex.from_path(make_tree({"a.py": "one\ntwo\n", "n.ipynb": nb}))
    assert tree.snippet("a.py", 2) == "two"
    assert tree.snippet("a.py", 3) is None and tree.snippet("a.py", 0) is None
    assert tree.snippet("n.ipynb", 2, cell=2) == "y = 2"
    assert tree.snippet("n.ipynb", 1, cell=3) is None
    assert tree.hardware_line("a.py", "declaration") is None
