"""S3 test_file_presence: the repository has automated tests."""

from __future__ import annotations

import re

from scoring.detectors.signals._common import (
    MAX_EVIDENCE,
    _name,
    _parent,
)
from scoring.facts import FileFacts
from scoring.model import Evidence
from scoring.registry import Result, detector
from scoring.tree import TreeIndex

_TEST_DIRS = frozenset({"tests", "test"})
_NOT_TEST_MODULES = frozenset({"__init__.py", "conftest.py"})
_PY_TEST_NAME_RE = re.compile(r"test_.*\.pyw?|.*_test\.pyw?", re.IGNORECASE)
_R_TESTTHAT_NAME_RE = re.compile(r"test[-_].*\.r", re.IGNORECASE)
# the function name of an R call written pkg::f, pkg:::f or x$f
_R_CALL_TAIL_RE = re.compile(r"[:$@]")
_JULIA_TEST_MACROS = frozenset({"@test", "@testset", "@test_throws", "@test_broken", "@test_skip", "@test_logs",
                                "@test_warn", "@test_nowarn"})


def _in_test_dir(path: str) -> bool:
    return any(part.lower() in _TEST_DIRS for part in path.split("/")[:-1])


def _first_python_test(facts: FileFacts, allow_assert: bool) -> tuple[int, int | None] | None:
    """(line, cell) of the first test of a Python file or notebook: a ``test*`` function, a
    ``Test*`` class, a ``TestCase`` subclass or, where ``allow_assert``, an ``assert``
    statement; in a notebook, the first such line of the first cell holding one."""
    best: dict[int | None, int] = {}
    for definition in facts.definitions:
        if definition.kind == "class":
            found = definition.name.startswith("Test") or any(b.endswith("TestCase") for b in definition.written_bases)
        else:
            found = definition.name.startswith("test")
        if found and definition.line < best.get(definition.cell, definition.line + 1):
            best[definition.cell] = definition.line
    if allow_assert:
        for statement in facts.asserts:
            if statement.line < best.get(statement.cell, statement.line + 1):
                best[statement.cell] = statement.line
    if not best:
        return None
    cell = min(best, key=lambda c: c or 0)
    return best[cell], cell


def _first_r_test(facts: FileFacts) -> int | None:
    """Line of the first ``test_that(`` call (``testthat::test_that`` too)."""
    return min((c.line for c in facts.calls if _R_CALL_TAIL_RE.split(c.name)[-1] == "test_that"), default=None)


def _first_julia_test(facts: FileFacts) -> int | None:
    """Line of the first ``@test``/``@testset``/``@test_throws``… macro call."""
    return min((m.line for m in facts.macros if m.name in _JULIA_TEST_MACROS), default=None)


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
    for path in tree.by_type("python"):
        if not _is_python_test_module(path):
            continue
        candidates += 1
        facts = tree.facts(path)
        found = _first_python_test(facts, _in_test_dir(path)) if facts is not None else None
        if found is None:
            empty.append(path)
            continue
        counted.append(Evidence(path, "test module with a test", rule="test_file_presence.python",
                                line_start=found[0], snippet=tree.snippet(path, found[0])))
    for path in tree.by_type("notebook"):
        if not _in_test_dir(path):
            continue
        candidates += 1
        facts = tree.facts(path)
        found = _first_python_test(facts, True) if facts is not None else None
        if found is None:
            empty.append(path)
        else:
            line, cell = found
            counted.append(Evidence(path, "test notebook with a test", rule="test_file_presence.notebook",
                                    line_start=line, snippet=tree.snippet(path, line, cell), cell=cell))
    for kind, is_module, first_test, rule in (
        ("r", _is_r_test_module, _first_r_test, "test_file_presence.r_testthat"),
        ("julia", _is_julia_test_module, _first_julia_test, "test_file_presence.julia"),
    ):
        for path in tree.by_type(kind):
            if not is_module(path):
                continue
            candidates += 1
            facts = tree.facts(path)
            line = first_test(facts) if facts is not None else None
            if line is None:
                empty.append(path)
            else:
                counted.append(Evidence(path, "test file with a test", rule=rule, line_start=line,
                                        snippet=tree.snippet(path, line)))
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
