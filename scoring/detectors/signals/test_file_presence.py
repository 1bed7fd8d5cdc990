"""S3 test_file_presence: the repository has automated tests."""

from __future__ import annotations

import ast
import re

from scoring.detectors.signals._common import (
    MAX_EVIDENCE,
    _blank_strings,
    _line_text,
    _name,
    _parent,
    _strip_hash_comment,
    _units_by_path,
)
from scoring.model import Evidence
from scoring.parsers.python import CodeUnit
from scoring.registry import Result, detector
from scoring.tree import TreeIndex

_TEST_DIRS = frozenset({"tests", "test"})
_NOT_TEST_MODULES = frozenset({"__init__.py", "conftest.py"})
_PY_TEST_NAME_RE = re.compile(r"test_.*\.pyw?|.*_test\.pyw?", re.IGNORECASE)
_R_TESTTHAT_NAME_RE = re.compile(r"test[-_].*\.r", re.IGNORECASE)
_R_TEST_RE = re.compile(r"(?<![\w.])(?:testthat::)?test_that\s*\(")
_JULIA_TEST_RE = re.compile(r"(?<![\w])@test(?:set|_throws|_broken|_skip|_logs|_warn|_nowarn)?\b")
_PY_TEST_FALLBACK_RE = re.compile(
    r"^\s*(?:async\s+)?def\s+test\w*\s*\(|^\s*class\s+Test\w*|^\s*class\s+\w+\s*\([^)]*TestCase"
)
_PY_ASSERT_FALLBACK_RE = re.compile(r"^\s*assert\b")


def _in_test_dir(path: str) -> bool:
    return any(part.lower() in _TEST_DIRS for part in path.split("/")[:-1])


def _first_python_test(unit: CodeUnit, allow_assert: bool) -> int | None:
    """Line of the first test in a unit: a ``test*`` function, a ``Test*`` class, a
    ``TestCase`` subclass or, where ``allow_assert``, an ``assert`` statement."""
    if unit.tree is None:
        for number, line in enumerate(unit.lines, start=1):
            if _PY_TEST_FALLBACK_RE.match(line) or (allow_assert and _PY_ASSERT_FALLBACK_RE.match(line)):
                return number
        return None
    best: int | None = None
    for node in ast.walk(unit.tree):
        found = False
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found = node.name.startswith("test")
        elif isinstance(node, ast.ClassDef):
            found = node.name.startswith("Test") or any(
                (_dotted(base) or "").endswith("TestCase") for base in node.bases
            )
        elif isinstance(node, ast.Assert):
            found = allow_assert
        if found and (best is None or node.lineno < best):
            best = node.lineno
    return best


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _is_python_test_module(path: str) -> bool:
    name = _name(path)
    if name.lower() in _NOT_TEST_MODULES:
        return False
    return bool(_PY_TEST_NAME_RE.fullmatch(name)) or _in_test_dir(path)


def _is_r_test_module(path: str) -> bool:
    folder = _name(_parent(path)).lower()
    if folder == "testthat":
        return bool(_R_TESTTHAT_NAME_RE.fullmatch(_name(path)))
    return folder == "tests"


def _is_julia_test_module(path: str) -> bool:
    return _name(_parent(path)).lower() in _TEST_DIRS


@detector("test_file_presence", version="2.0.0")
def test_file_presence(tree: TreeIndex) -> Result:
    """Automated test modules that contain at least one test (0, 50 or 100).

    What it checks:
        Test modules: Python test_*.py / *_test.py anywhere, or any .py file under a
        tests/ or test/ folder other than __init__.py and conftest.py; R
        tests/testthat/test-*.R or test_*.R and tests/*.R; Julia test/*.jl (runtests.jl
        included); notebooks under tests/. A module counts only if it contains a test:
        a test* function, a Test* class or unittest.TestCase subclass (AST, token
        fallback for Python 2), an assert statement for files under a tests folder, an
        R test_that( call, or a Julia @test/@testset macro. Value = min(|T| / 2, 1) · 100
        for |T| counted modules.
    Why it matters:
        Tests let a third party check that the code still computes what it computed for
        the authors, on their own machine, before trusting any result.
    Evidence:
        Each counted test module at its first test (file, line), and test-named modules
        without any test. Counts: counted test modules and candidate modules.
    How to fix:
        Add pytest tests (tests/test_<module>.py with test_* functions), testthat tests
        (tests/testthat/test-<topic>.R) or Julia tests (test/runtests.jl with @testset),
        at least two modules for the full score.
    Known false positives:
        A test that asserts nothing meaningful still counts, as does any script with an
        assert statement inside a tests/ folder; helpers named test_* count. Notebook
        tests run by nbval without assertions are not recognised.
    """
    counted: list[Evidence] = []
    empty: list[str] = []
    candidates = 0
    python_units = None
    for path in tree.by_type("python"):
        if not _is_python_test_module(path):
            continue
        candidates += 1
        unit = tree.python_unit(path)
        line = _first_python_test(unit, _in_test_dir(path)) if unit is not None else None
        if line is None:
            empty.append(path)
            continue
        counted.append(Evidence(path, "test module with a test", rule="test_file_presence.python",
                                line_start=line, snippet=_line_text(unit.lines, line)))
    notebooks = [p for p in tree.by_type("notebook") if _in_test_dir(p)]
    if notebooks:
        python_units = _units_by_path(tree)
    for path in notebooks:
        candidates += 1
        hit = None
        for unit in (python_units or {}).get(path, []):
            line = _first_python_test(unit, True)
            if line is not None:
                hit = Evidence(path, "test notebook with a test", rule="test_file_presence.notebook",
                               line_start=line, snippet=_line_text(unit.lines, line), cell=unit.cell)
                break
        if hit is None:
            empty.append(path)
        else:
            counted.append(hit)
    for kind, is_module, pattern, rule in (
        ("r", _is_r_test_module, _R_TEST_RE, "test_file_presence.r_testthat"),
        ("julia", _is_julia_test_module, _JULIA_TEST_RE, "test_file_presence.julia"),
    ):
        for path in tree.by_type(kind):
            if not is_module(path):
                continue
            candidates += 1
            found = None
            for number, line in enumerate(tree.lines(path), start=1):
                if pattern.search(_blank_strings(_strip_hash_comment(line))):
                    found = (number, line)
                    break
            if found is None:
                empty.append(path)
            else:
                counted.append(Evidence(path, "test file with a test", rule=rule, line_start=found[0], snippet=found[1]))
    n = len(counted)
    value = min(n / 2, 1) * 100
    evidence = counted[:MAX_EVIDENCE] + [
        Evidence(p, "test module without any test function, test class or assertion", rule="test_file_presence.no_tests")
        for p in empty[: max(0, MAX_EVIDENCE - len(counted))]
    ]
    counts = {"test_files": n, "candidate_modules": candidates, "modules_without_tests": len(empty)}
    if n == 0:
        fix = ("Add automated tests, e.g. tests/test_<module>.py with pytest test_* functions "
               "(tests/testthat/test-<topic>.R for R, test/runtests.jl for Julia).")
    elif n == 1:
        fix = f"Add at least one more test module beside {counted[0].path} to cover the rest of the analysis code."
    else:
        fix = None
    return Result(value, evidence=evidence, fix=fix, counts=counts,
                  reason=f"{n} test module{'s' if n != 1 else ''} with at least one test")
