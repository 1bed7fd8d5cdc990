"""Issue 15: the documentation and environment detectors aggregate facts and parsed
structures only; none parses, walks an AST or scans a file's text again."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MODULES = sorted((ROOT / "scoring" / "detectors" / "documentation").glob("*.py")) + sorted(
    (ROOT / "scoring" / "detectors" / "environment").glob("*.py"))
FORBIDDEN_MODULES = ("ast", "tokenize", "tree_sitter", "configparser")
FORBIDDEN_CALLS = ("text", "lines", "python_unit", "python_units", "notebook")


@pytest.mark.parametrize("path", MODULES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_detector_module_reads_no_text_and_parses_nothing(path):
    module = ast.parse(path.read_text())
    for node in ast.walk(module):
        if isinstance(node, ast.Import):
            assert not any(a.name.split(".")[0] in FORBIDDEN_MODULES for a in node.names), path
        elif isinstance(node, ast.ImportFrom):
            assert (node.module or "").split(".")[0] not in FORBIDDEN_MODULES, path
            if (node.module or "").startswith("scoring.parsers"):
                assert not any(a.name.startswith("parse") for a in node.names), (path, node.module)
        elif isinstance(node, ast.Attribute) and node.attr in FORBIDDEN_CALLS:
            base = node.value
            name = base.id if isinstance(base, ast.Name) else getattr(base, "attr", "")
            assert name not in ("tree", "_tree"), (path, node.attr, node.lineno)
