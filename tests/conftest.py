"""Shared test helpers. Fixture trees under tests/fixtures are data, never collected."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

collect_ignore_glob = ["fixtures/*"]

FIXTURES = Path(__file__).parent / "fixtures"


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    """Create ``files`` (relative path → text or bytes) under ``root``."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


@pytest.fixture
def make_tree(tmp_path):
    """``make_tree({"a.py": "..."})`` → a fresh directory holding those files."""
    counter = {"n": 0}

    def build(files: dict[str, str | bytes]) -> Path:
        counter["n"] += 1
        root = tmp_path / f"tree{counter['n']}"
        root.mkdir()
        return write_tree(root, files)

    return build


@pytest.fixture
def run_detector():
    """``run_detector("dep_pinning", path)`` → the Measurement of that detector alone."""
    from scoring.registry import load_detectors
    from scoring.tree import TreeIndex

    registry = load_detectors()

    def run(metric_id: str, path: os.PathLike | str):
        return registry[metric_id].run(TreeIndex.from_path(path))

    return run
