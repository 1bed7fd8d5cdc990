"""S3 test_file_presence: the repository has automated tests."""

from __future__ import annotations

import re

from scoring.detectors.signals._common import (
    MAX_EVIDENCE,
    _ci_files,
    _name,
    _parent,
)
from scoring.facts import FileFacts
from scoring.model import Evidence
from scoring.parsers.native_build import native_build_kind
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


# --------------------------------------------------------------------------- other ecosystems (§0.3)

# Folders that hold tests in native, MATLAB and R packages (a MATLAB package folder
# ``+tests`` too); ``tst`` is athena's.
_OTHER_TEST_DIRS = frozenset({"tests", "test", "testing", "tst", "unittests", "unit_tests", "unittest"})
_NATIVE_TEST_NAME_RE = re.compile(r"(?i:test_.*|.*_tests?|tests?)\.[^.]+|.*Tests?\.[^.]+")
_MATLAB_TEST_NAME_RE = re.compile(r"test_.*\.m|.*_test\.m|.*Test\.m")
_VENDORED_PARTS = frozenset({"third_party", "thirdparty", "3rdparty", "vendor", "vendored", "extern", "external",
                             "subprojects", "_deps"})
# GoogleTest / Boost.Test cases are function-like definitions; Catch2 / doctest cases calls
_CPP_TEST_DEFINITIONS = frozenset({"TEST", "TEST_F", "TEST_P", "TYPED_TEST", "TYPED_TEST_P", "BOOST_AUTO_TEST_CASE",
                                   "BOOST_FIXTURE_TEST_CASE", "BOOST_DATA_TEST_CASE", "TEST_CASE", "SCENARIO"})
_CPP_TEST_CALLS = frozenset({"TEST_CASE", "SCENARIO", "TEST_CASE_METHOD", "TEMPLATE_TEST_CASE", "TEST", "TEST_F",
                             "BOOST_AUTO_TEST_CASE", "BOOST_FIXTURE_TEST_CASE", "CTEST", "CTEST2"})
# test-drive suites register their cases with new_unittest (a driver's new_testsuite
# only collects them); pFUnit/FRUIT/veggies suites are known by the module they use
_FORTRAN_TEST_CALLS = frozenset({"new_unittest"})
_FORTRAN_TEST_MODULES = frozenset({"funit", "pfunit", "fruit", "veggies", "garden"})
_NATIVE_TEST_FRAMEWORKS = frozenset({"catch2", "gtest", "googletest", "doctest", "pfunit", "test-drive", "testdrive",
                                     "cmocka", "check", "unity", "boost-test"})
_RUNIT_CALLS = frozenset({"checkEquals", "checkEqualsNumeric", "checkIdentical", "checkTrue", "checkException"})
_R_RUNNER_CALLS = frozenset({"testPackage", "test_check", "runTestSuite", "runTestFile", "test_dir", "test_package",
                             "run_test_dir", "test_all"})
_R_UNIT_DIRS = ("inst/unitTests/", "inst/tinytest/", "tests/tinytest/", "inst/tests/")
_JULIA_FACTCHECK_MACROS = frozenset({"@fact", "@fact_throws"})
_MATLAB_RUNNER_CALLS = frozenset({"moxunit_runtests", "runtests", "runTests", "matlab.unittest.TestSuite.fromFolder",
                                  "matlab.unittest.TestSuite.fromPackage", "TestSuite.fromFolder",
                                  "TestSuite.fromPackage", "TestRunner.withTextOutput",
                                  "matlab.unittest.TestRunner.withTextOutput"})
_MATLAB_ASSERT_RE = re.compile(r"assert\w*|verify\w+")
_RUNNER_NAME_RE = re.compile(r"run_?(?:all_?)?tests?\.(?:py|sh|m|r|jl)|runtests\.(?:py|m)", re.IGNORECASE)
_NF_TEST_CONFIG_RE = re.compile(r"(?:.*[_.-])?test(?:[_.-].*)?\.config", re.IGNORECASE)
_NF_TEST_PROFILE_RE = re.compile(r"test(?:_\w+)?")
# The test files are what this metric is about, and a curator checks which suites exist:
# more of them are shown than the usual MAX_EVIDENCE (the runners and frameworks besides).
MAX_TEST_FILES = 50


def _parts(path: str) -> list[str]:
    return [part.lower().lstrip("+") for part in path.split("/")[:-1]]


def _in_other_test_dir(path: str) -> bool:
    return any(part in _OTHER_TEST_DIRS for part in _parts(path))


def _vendored(tree: TreeIndex, path: str) -> bool:
    """Other projects' code: the vendored role, a vendor folder, or a "3rd party …" /
    "third-party …" folder (a MATLAB deposit's bundled toolboxes)."""
    if tree.role(path) == "vendored":
        return True
    for part in _parts(path):
        squeezed = re.sub(r"[\s_-]", "", part)
        if part in _VENDORED_PARTS or squeezed.startswith(("3rdparty", "thirdparty")):
            return True
    return False


def _first(lines) -> int | None:
    return min(lines, default=None)


def _native_test_line(facts: FileFacts, in_test_dir: bool) -> int | None:
    """C/C++: the first GoogleTest/Boost.Test/Catch2/doctest case (``assert`` calls in a
    test folder's sources); Fortran: the first test-drive ``new_unittest`` or the use of a
    test framework module."""
    if facts.language == "fortran":
        line = _first(c.line for c in facts.calls if c.name.lower() in _FORTRAN_TEST_CALLS)
        return line if line is not None else _first(
            i.line for i in facts.imports if i.kind == "use" and i.module.lower() in _FORTRAN_TEST_MODULES)
    line = _first([d.line for d in facts.definitions if d.name in _CPP_TEST_DEFINITIONS]
                  + [c.line for c in facts.calls if c.name in _CPP_TEST_CALLS])
    if line is None and in_test_dir:
        line = _first(c.line for c in facts.calls if c.name == "assert")
    return line


def _matlab_test(facts: FileFacts, path: str, in_test_dir: bool) -> tuple[int, str] | None:
    """(line, rule) of a MATLAB test: a MOxUnit suite (``initTestSuite``), a
    ``matlab.unittest`` class (a ``*TestCase`` superclass, or any class of a ``*Test.m``
    file) or, in a test folder, a script or function asserting (``assert*``/``verify*``)."""
    line = _first(c.line for c in facts.calls if c.name == "initTestSuite")
    if line is not None:
        return line, "test_file_presence.matlab_moxunit"
    for definition in facts.definitions:
        if definition.kind == "class" and (
                any(b.endswith("TestCase") or b.startswith("matlab.unittest") for b in definition.bases)
                or _name(path).endswith("Test.m")):
            return definition.line, "test_file_presence.matlab_unittest"
    if in_test_dir:
        line = _first(c.line for c in facts.calls if _MATLAB_ASSERT_RE.fullmatch(c.name))
        if line is not None:
            return line, "test_file_presence.matlab_assert"
    return None


def _r_unit_test(facts: FileFacts, tinytest: bool) -> int | None:
    """An RUnit test (a ``test*`` function, a ``check*`` call), or a tinytest ``expect_*``
    call in a tinytest folder."""
    lines = [d.line for d in facts.definitions if d.name.startswith("test")]
    lines += [c.line for c in facts.calls if _R_CALL_TAIL_RE.split(c.name)[-1] in _RUNIT_CALLS]
    if tinytest:
        lines += [c.line for c in facts.calls if _R_CALL_TAIL_RE.split(c.name)[-1].startswith("expect_")]
    return _first(lines)


def _n_tests(facts: FileFacts | None) -> int:
    """How many tests a counted file holds, to show the most substantial ones first: its
    test functions and classes (Python, MATLAB methods, R RUnit), ``test_that`` calls,
    Julia test macros, C/C++ and Fortran test cases; its assertions when it has none."""
    if facts is None:
        return 0
    tests = sum(1 for d in facts.definitions if d.name.lower().startswith("test") or d.name in _CPP_TEST_DEFINITIONS)
    tests += sum(1 for c in facts.calls if _R_CALL_TAIL_RE.split(c.name)[-1] == "test_that"
                 or c.name in _CPP_TEST_CALLS or c.name.lower() in _FORTRAN_TEST_CALLS)
    tests += sum(1 for m in facts.macros if m.name in ("@test", "@testset", "@fact"))
    return tests or len(facts.asserts)


def _spread(items: list[Evidence], limit: int, weight: dict[str, tuple[int, int]]) -> list[Evidence]:
    """At most ``limit`` items, taken in turn from each rule and, within a rule, from each
    folder, so every kind of test and every test folder shows before a second of one;
    within a rule, the files with the most tests (then the most lines) first."""
    by_rule: dict[str, list[Evidence]] = {}
    ranked = sorted(items, key=lambda e: tuple(-w for w in weight.get(e.path, (0, 0))))
    for item in ranked:
        by_rule.setdefault(item.rule or "", []).append(item)
    queues = []
    for group in by_rule.values():
        seen: set[str] = set()
        first, rest = [], []
        for item in group:
            (rest if _parent(item.path) in seen else first).append(item)
            seen.add(_parent(item.path))
        queues.append(first + rest)
    picked: list[Evidence] = []
    while len(picked) < limit and any(queues):
        for queue in queues:
            if queue and len(picked) < limit:
                picked.append(queue.pop(0))
    return sorted(picked, key=lambda e: items.index(e))


@detector("test_file_presence", version="2.1.1")
def test_file_presence(tree: TreeIndex) -> Result:
    """Automated test modules that contain at least one test (0, 50 or 100).

    What it checks:
        Test modules, each counted once if it contains a test (|T| = counted files):
        Python test_*.py / *_test.py anywhere, or any .py file under a tests/ or test/
        folder other than __init__.py and conftest.py, with a test* function, a Test*
        class or unittest.TestCase subclass (AST, token fallback for Python 2), or an
        assert statement for files under a tests folder; a regression-test module (a
        tests folder inside a regression* folder) defining analyze(); notebooks under
        tests/. R tests/testthat/test-*.R or test_*.R and tests/*.R with a test_that(
        call; RUnit files (inst/unitTests/, inst/tests/) with test* functions or check*
        calls; tinytest files (inst/tinytest/, tests/tinytest/) with expect_* calls.
        Julia test/*.jl with a Test.jl @test/@testset macro or a FactCheck @fact.
        MATLAB/Octave .m files in a tests/ (+tests) folder or named test_*.m / *Test.m:
        MOxUnit suites (initTestSuite), matlab.unittest classes (a *TestCase
        superclass, any class of a *Test.m file), scripts in a tests folder that
        assert. C/C++ sources in a test folder or named test_* / *_test / *Test with
        GoogleTest, Boost.Test, Catch2 or doctest cases (assert calls in a test
        folder); Fortran test-drive suites (new_unittest) or sources using pFUnit,
        FRUIT or veggies. Build files that register tests: CMake add_test,
        gtest_discover_tests, catch_discover_tests and a project's add_*_test commands,
        meson test(). Workflows: nf-test *.nf.test files with an assertion; Nextflow
        test configurations (test.config, conf/test_full.config, nextflow_test.config;
        a test profile in nextflow.config when no such file exists); configuration
        files a CI job passes to a workflow run (Snakemake --configfile
        .test/config.yaml, Nextflow -c / -params-file). Vendored and "3rd party"
        folders are skipped for native and MATLAB code. Value = min(|T| / 2, 1) · 100.
    Why it matters:
        Tests let a third party check that the code still computes what it computed for
        the authors, on their own machine, before trusting any result.
    Evidence:
        Counted test files at their first test (file, line), up to 50 (the suites are
        what the metric is about), spread over the kinds of test and folders, within a
        kind the files with the most tests (then the most lines) first; test runners (run_tests.py, tests/testthat.R, tests/runTests.R,
        run_tests.m calling moxunit_runtests, nf-test.config) and test frameworks a
        build requires (find_package(Catch2)), which are not counted; test-named
        modules without any test. Counts: counted test files, candidate modules.
    How to fix:
        Add tests in the deposit's own ecosystem, at least two test files for the full
        score: pytest tests (tests/test_<module>.py), testthat tests
        (tests/testthat/test-<topic>.R), Julia tests (test/runtests.jl with @testset),
        MATLAB matlab.unittest classes or MOxUnit test_*.m suites, GoogleTest/Catch2
        sources registered with CTest add_test (meson test()), test-drive suites for
        Fortran, nf-test *.nf.test files for Nextflow, or a Snakemake .test/
        configuration run by CI.
    Known false positives:
        A test that asserts nothing meaningful still counts, as does any script with an
        assert statement inside a tests/ folder; helpers named test_* count. A build
        file registering a test counts as a test file of its own; a test configuration
        counts without any assertion. Notebook tests run by nbval without assertions
        are not recognised.
    """
    counted: list[Evidence] = []
    aux: list[Evidence] = []          # runners and frameworks: evidence, not counted
    empty: list[str] = []
    candidates = 0
    seen: set[str] = set()
    weight: dict[str, tuple[int, int]] = {}   # (tests, lines) of each counted file

    def count(path: str, reason: str, rule: str, line: int | None = None, cell: int | None = None,
              tests: int | None = None) -> None:
        if path in seen:
            return
        seen.add(path)
        facts = tree.facts(path)
        weight[path] = (_n_tests(facts) if tests is None else tests, facts.lines if facts is not None else 0)
        counted.append(Evidence(path, reason, rule=rule, line_start=line, cell=cell,
                                snippet=tree.snippet(path, line, cell) if line is not None else None))

    def runner(path: str, reason: str, line: int | None = None) -> None:
        aux.append(Evidence(path, reason, rule="test_file_presence.runner", line_start=line,
                            snippet=tree.snippet(path, line) if line is not None else None))

    for path in tree.by_type("python"):
        if not _is_python_test_module(path):
            if _RUNNER_NAME_RE.fullmatch(_name(path)):
                runner(path, "test runner")
            continue
        candidates += 1
        facts = tree.facts(path)
        found = _first_python_test(facts, _in_test_dir(path)) if facts is not None else None
        if found is None and facts is not None and any(p.startswith("regression") for p in _parts(path)):
            line = _first(d.line for d in facts.definitions if d.kind == "function" and d.name == "analyze")
            if line is not None:
                count(path, "regression test module (analyze)", "test_file_presence.regression", line)
                continue
        if found is None:
            if _RUNNER_NAME_RE.fullmatch(_name(path)):
                runner(path, "test runner")
            else:
                empty.append(path)
            continue
        count(path, "test module with a test", "test_file_presence.python", found[0])
    for path in tree.by_type("notebook"):
        if not _in_test_dir(path):
            continue
        candidates += 1
        facts = tree.facts(path)
        found = _first_python_test(facts, True) if facts is not None else None
        if found is None:
            empty.append(path)
        else:
            count(path, "test notebook with a test", "test_file_presence.notebook", found[0], found[1])
    for path in tree.by_type("r"):
        unit_dir = path.startswith(_R_UNIT_DIRS)
        if not (_is_r_test_module(path) or unit_dir):
            continue
        candidates += 1
        facts = tree.facts(path)
        line = _first_r_test(facts) if facts is not None else None
        rule = "test_file_presence.r_testthat"
        if line is None and facts is not None:
            line = _r_unit_test(facts, "tinytest" in path.split("/"))
            rule = "test_file_presence.r_unit"
        if line is not None:
            count(path, "test file with a test", rule, line)
            continue
        call = facts and _first(c.line for c in facts.calls if _R_CALL_TAIL_RE.split(c.name)[-1] in _R_RUNNER_CALLS)
        if call:
            runner(path, "test runner", call)
        else:
            empty.append(path)
    for path in tree.by_type("julia"):
        if not _is_julia_test_module(path):
            continue
        candidates += 1
        facts = tree.facts(path)
        line = _first_julia_test(facts) if facts is not None else None
        rule = "test_file_presence.julia"
        if line is None and facts is not None:
            line = _first(m.line for m in facts.macros if m.name in _JULIA_FACTCHECK_MACROS)
            rule = "test_file_presence.julia_factcheck"
        if line is None:
            empty.append(path)
        else:
            count(path, "test file with a test", rule, line)
    for path in tree.by_frontend("matlab"):
        facts = tree.facts(path)
        if facts is None or (facts.parse_error and not facts.definitions) or _vendored(tree, path):
            continue
        in_dir = _in_other_test_dir(path)
        if not (in_dir or _MATLAB_TEST_NAME_RE.fullmatch(_name(path))):
            call = _first(c.line for c in facts.calls if c.name in _MATLAB_RUNNER_CALLS)
            if call is not None:
                runner(path, "test runner", call)
            continue
        candidates += 1
        found = _matlab_test(facts, path, in_dir)
        if found is not None:
            count(path, "test file with a test", found[1], found[0])
        elif _MATLAB_TEST_NAME_RE.fullmatch(_name(path)):
            empty.append(path)
    for frontend in ("c_cpp", "fortran"):
        for path in tree.by_frontend(frontend):
            in_dir = _in_other_test_dir(path)
            if not (in_dir or _NATIVE_TEST_NAME_RE.fullmatch(_name(path))) or _vendored(tree, path):
                continue
            facts = tree.facts(path)
            line = _native_test_line(facts, in_dir) if facts is not None else None
            if line is not None:
                candidates += 1
                count(path, "test source with a test", f"test_file_presence.{frontend}", line)
    for path in tree.files:
        if native_build_kind(path) not in ("cmake", "meson") or _vendored(tree, path):
            continue
        build = tree.native_build(path)
        if build is None:
            continue
        if build.tests:
            candidates += 1
            first = min(build.tests, key=lambda t: t.line)
            count(path, f"build registers tests ({first.command})", f"test_file_presence.{build.kind}_test", first.line,
                  tests=len(build.tests))
        for dependency in build.dependencies:
            if dependency.source == "find_package" and dependency.normalized in _NATIVE_TEST_FRAMEWORKS:
                aux.append(Evidence(path, f"test framework {dependency.name}", rule="test_file_presence.framework",
                                    line_start=dependency.line, snippet=tree.snippet(path, dependency.line)))
    workflow_tree = bool(tree.by_frontend("nextflow") or tree.by_frontend("snakemake"))
    for path in tree.files:
        name = _name(path)
        if name.endswith(".nf.test"):
            candidates += 1
            nf_test = tree.nf_test(path)
            if nf_test is not None and nf_test.assertions:
                line = min(nf_test.tests or nf_test.assertions)
                count(path, "nf-test file with assertions", "test_file_presence.nf_test", line,
                      tests=len(nf_test.tests))
            else:
                empty.append(path)
        elif name == "nf-test.config":
            runner(path, "nf-test configuration")
    if tree.by_frontend("nextflow"):
        configs = [p for p in tree.files if _NF_TEST_CONFIG_RE.fullmatch(_name(p)) and _name(p) != "nf-test.config"
                   and not _vendored(tree, p)]
        for path in configs:
            candidates += 1
            count(path, "Nextflow test configuration", "test_file_presence.nextflow_test_config")
        facts = tree.facts("nextflow.config") if not configs and tree.is_file("nextflow.config") else None
        profile = facts and _first(b.line for b in facts.blocks if _NF_TEST_PROFILE_RE.fullmatch(b.label))
        if profile:
            candidates += 1
            count("nextflow.config", "Nextflow test profile", "test_file_presence.nextflow_test_profile", profile)
    if workflow_tree:
        for ci_path in _ci_files(tree):
            config = tree.ci_config(ci_path)
            for line, target in config.config_files if config is not None else ():
                if tree.is_file(target) and target not in seen:
                    candidates += 1
                    count(target, f"test configuration run by CI ({ci_path}:{line})",
                          "test_file_presence.ci_test_config")
    n = len(counted)
    value = min(n / 2, 1) * 100
    aux = aux[:5]
    evidence = _spread(counted, MAX_TEST_FILES, weight) + aux
    evidence += [
        Evidence(p, "test module without any test function, test class or assertion", rule="test_file_presence.no_tests")
        for p in empty[: max(0, MAX_EVIDENCE - len(aux) - min(len(counted), MAX_EVIDENCE - len(aux)))]
    ]
    counts = {"test_files": n, "candidate_modules": candidates, "modules_without_tests": len(empty)}
    if n == 0:
        fix = _fix_for(tree)
    elif n == 1:
        fix = f"Add at least one more test file beside {counted[0].path} to cover the rest of the code."
    else:
        fix = None
    return Result(value, evidence=evidence, fix=fix, counts=counts,
                  reason=f"{n} test module{'s' if n != 1 else ''} with at least one test")


def _fix_for(tree: TreeIndex) -> str:
    """The fix in the deposit's own ecosystem."""
    if tree.by_frontend("nextflow"):
        return "Add nf-test tests (tests/main.nf.test with assertions, nf-test.config) or a test profile run by CI."
    if tree.by_frontend("snakemake"):
        return "Add a Snakemake test configuration (.test/config/config.yaml with small data) and run it in CI."
    if tree.by_frontend("matlab") and not tree.by_type("python"):
        return "Add matlab.unittest test classes (tests/<Name>Test.m) or MOxUnit test_*.m suites."
    if (tree.by_frontend("c_cpp") or tree.by_frontend("fortran")) and not tree.by_type("python"):
        return ("Add test sources (GoogleTest/Catch2 for C/C++, test-drive for Fortran) and register them with "
                "CTest add_test or meson test().")
    return ("Add automated tests, e.g. tests/test_<module>.py with pytest test_* functions "
            "(tests/testthat/test-<topic>.R for R, test/runtests.jl for Julia).")
