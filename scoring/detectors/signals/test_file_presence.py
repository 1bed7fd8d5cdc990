"""S3 test_file_presence: the repository has automated tests."""

from __future__ import annotations

import re

from scoring.detectors._shared import (
    JULIA,
    MATLAB,
    NATIVE,
    NEXTFLOW,
    PYTHON,
    SNAKEMAKE,
    R,
    fix_ecosystem,
    resolve_in_folder,
)
from scoring.detectors.signals._common import (
    MAX_EVIDENCE,
    RegressionCase,
    _ci_files,
    _name,
    _parent,
    is_package,
    native_build_system,
    regression_cases,
    validation_script_line,
)
from scoring.facts import FileFacts
from scoring.model import Evidence
from scoring.parsers.native_build import native_build_kind
from scoring.registry import Result, detector
from scoring.roles import R_TEST_DIRS
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


# testthat's support files (helper-*.R, setup-*.R, teardown-*.R): sourced before the tests
_R_SUPPORT_NAME_RE = re.compile(r"(?:helper|setup|teardown)", re.IGNORECASE)


def _r_test_elsewhere(path: str, facts: FileFacts | None) -> int | None:
    """The first test of an R file outside tests/ and testthat/ that is a test module all
    the same (§0.1.31 "R ``test_that(``… count as tests"): one in any test folder
    (test/, testing/, tst/, unit_tests/, unittests/, at any depth) or named
    ``test[-_]*.R`` anywhere, holding a ``test_that(`` or an ``expect_*`` call; None for
    any other file (a test-named helper with no test is no candidate, nor a testthat/
    file the testthat rule leaves out, nor a helper-, setup- or teardown- file)."""
    if facts is None or not (_in_other_test_dir(path) or _R_TESTTHAT_NAME_RE.fullmatch(_name(path))) \
            or "testthat" in _parts(path) or _R_SUPPORT_NAME_RE.match(_name(path)):
        return None
    return _first(c.line for c in facts.calls
                  if (tail := _R_CALL_TAIL_RE.split(c.name)[-1]) == "test_that" or tail.startswith("expect_"))


def _is_julia_test_module(path: str) -> bool:
    """A ``.jl`` file in a test/ folder or any folder below it (test/chaosdetection/gali.jl)."""
    return _in_test_dir(path)


def _julia_runner_line(tree: TreeIndex, path: str, facts: FileFacts) -> int | None:
    """The first ``include`` of a Julia test runner, None for any other file: a file whose
    only test macros are ``@testset``s and that is the ``runtests.jl`` ``Pkg.test`` runs
    (with an ``include``), or that includes test files of the folder (``include("x.jl")``
    or a helper ``testfile("x.jl")`` naming a .jl file in a test folder; a file including
    the package's source files is no runner)."""
    if any(m.name != "@testset" for m in facts.macros if m.name in _JULIA_TEST_MACROS | _JULIA_FACTCHECK_MACROS):
        return None
    if _name(path).lower() == "runtests.jl":
        return _first(c.line for c in facts.calls if c.name == "include")
    folder = _parent(path)
    return _first(c.line for c in facts.calls
                  if c.args and isinstance(c.args[0], str) and c.args[0].endswith(".jl")
                  and (target := _joined(folder, c.args[0])) is not None and tree.is_file(target)
                  and _in_test_dir(target))


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


def _program_line(facts: FileFacts) -> int | None:
    """The line of a native program's entry: a Fortran ``program`` unit, a C/C++ ``main``."""
    if facts.language == "fortran":
        return _first(d.line for d in facts.definitions if d.kind == "program")
    return _first(d.line for d in facts.definitions if d.name == "main" and d.kind == "function")


# What a test framework's driver program calls to run the suites it collects (test-drive's
# tester, GoogleTest's main, a Catch2/doctest session): the program is a runner
_SUITE_RUNNER_CALLS = frozenset({"new_testsuite", "run_testsuite", "run_selected", "select_suite", "RUN_ALL_TESTS",
                                 "testing::InitGoogleTest", "InitGoogleTest", "Catch::Session", "doctest::Context"})


def _suite_runner_line(facts: FileFacts) -> int | None:
    """The first call by which a native program runs a test framework's suites."""
    return _first(c.line for c in facts.calls if c.name in _SUITE_RUNNER_CALLS or c.written in _SUITE_RUNNER_CALLS)


_FAILING_EXITS = frozenset({"exit", "std::exit", "_Exit", "quick_exit"})
_ABORTS = frozenset({"abort", "std::abort"})


def _failing_exit_line(facts: FileFacts) -> int | None:
    """The first statement that ends a program with a failing exit status: Fortran
    ``error stop``/``stop <non-zero>`` (the frontend's AssertFacts), C/C++ ``abort()`` or
    ``exit()`` with a code other than 0 (``EXIT_FAILURE``)."""
    if facts.language == "fortran":
        return _first(a.line for a in facts.asserts)
    lines = []
    for call in facts.calls:
        if call.name in _ABORTS:
            lines.append(call.line)
        elif call.name in _FAILING_EXITS and call.args:
            code = call.args[0]
            if (isinstance(code, int) and not isinstance(code, bool) and code != 0) or (
                    not isinstance(code, (int, float, str, bool)) and code is not None
                    and getattr(code, "text", "") not in ("0", "EXIT_SUCCESS")):
                lines.append(call.line)
    return _first(lines)


def _test_registrations(tree: TreeIndex) -> list[tuple[str, str, int]]:
    """(folder, build file, line) of each CMake or meson file, vendored ones excepted,
    that registers tests (``add_test``, ``test()``): the programs in test folders below
    it are the tests it runs."""
    found = []
    for path in tree.files:
        if native_build_kind(path) not in ("cmake", "meson") or _vendored(tree, path):
            continue
        build = tree.native_build(path)
        if build is not None and build.tests:
            found.append((_parent(path), path, min(t.line for t in build.tests)))
    return found


def _fpm_tests(tree: TreeIndex) -> tuple[list[tuple[str, str, int | None]], dict[str, tuple[str, int | None]]]:
    """What the Fortran package manager builds as tests: ([(folder of fpm.toml, fpm.toml,
    line of auto-tests or None)] for each package whose test/ programs fpm discovers (its
    default, unless ``auto-tests = false``), {program path: (fpm.toml, None)} for each
    ``[[test]]`` entry's ``source-dir``/``main``)."""
    auto: list[tuple[str, str, int | None]] = []
    listed: dict[str, tuple[str, int | None]] = {}
    for path in tree.files:
        if _name(path) != "fpm.toml" or _vendored(tree, path):
            continue
        manifest = tree.toml(path)
        if not isinstance(manifest, dict):
            continue
        folder = _parent(path)
        build = manifest.get("build") if isinstance(manifest.get("build"), dict) else {}
        if build.get("auto-tests", True) is not False:
            keys = tree.key_lines(path)
            line = keys.line_of("auto-tests", "=") if keys is not None else None
            auto.append((folder, path, line))
        entries = manifest.get("test")
        for entry in entries if isinstance(entries, list) else ():
            if isinstance(entry, dict):
                source = str(entry.get("source-dir", "test")).strip("/")
                main = str(entry.get("main", "main.f90"))
                listed["/".join(p for p in (folder, source, main) if p)] = (path, None)
    return auto, listed


def _registered_by(path: str, frontend: str, registrations: list[tuple[str, str, int]],
                   fpm_auto: list[tuple[str, str, int | None]],
                   fpm_listed: dict[str, tuple[str, int | None]]) -> str | None:
    """``file:line`` of the build that runs the test-folder program ``path`` as a test:
    a ``[[test]]`` of fpm.toml, fpm's auto-discovered test/ programs (Fortran), or a
    CMake/meson file in the program's folder or above it that registers tests."""
    if path in fpm_listed:
        return f"{fpm_listed[path][0]} [[test]]"
    if frontend == "fortran":
        for folder, manifest, line in fpm_auto:
            if path.startswith(f"{folder}/test/" if folder else "test/"):
                return f"{manifest}:{line} auto-tests" if line else f"{manifest}, test/ programs"
    for folder, build, line in registrations:
        if not folder or path.startswith(folder + "/"):
            return f"{build}:{line}"
    return None


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


@detector("test_file_presence", version="2.5.0")
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
        calls; tinytest files (inst/tinytest/, tests/tinytest/) with expect_* calls;
        2.5.0 (§0.1.31), an R file in any other test folder (test/, testing/, tst/,
        unit_tests/, unittests/, at any depth, outside vendored folders) or named
        test[-_]*.R anywhere, with a test_that( or an expect_* call (a test-named
        helper without one is no candidate, nor are helper-, setup- and teardown-
        files; what runs them, testthat::test_dir(), may live anywhere). Julia .jl files in test/ or any folder below it (test/chaosdetection/gali.jl)
        with a Test.jl @test/@testset macro or a FactCheck @fact; a file whose only test
        macros are @testset blocks is a runner when it is runtests.jl and includes files,
        or includes test files of the test folder (include("x.jl"), testfile("x.jl")).
        MATLAB/Octave .m files in a tests/ (+tests) folder or named test_*.m / *Test.m:
        MOxUnit suites (initTestSuite), matlab.unittest classes (a *TestCase
        superclass, any class of a *Test.m file), scripts in a tests folder that
        assert. C/C++ sources in a test folder or named test_* / *_test / *Test with
        GoogleTest, Boost.Test, Catch2 or doctest cases (assert calls in a test
        folder); Fortran test-drive suites (new_unittest) or sources using pFUnit,
        FRUIT or veggies; pFUnit *.pf files with an @test annotation. Native test
        programs (2.2.0, §0.3 native S3): a Fortran program or C/C++ main() in a test
        folder counts when the build runs it as a test (a CMake or meson file in its
        folder or above it that registers tests, fpm.toml's auto-discovered test/
        programs unless auto-tests = false, a [[test]] entry) or when it fails through
        its exit status (Fortran error stop / stop <non-zero>, C/C++ abort() or exit()
        with a non-zero code); one that only runs a framework's suites (test-drive's
        new_testsuite, GoogleTest's RUN_ALL_TESTS, a Catch2 session) is a runner.
        Build files that register tests: CMake add_test,
        gtest_discover_tests, catch_discover_tests and a project's add_*_test commands,
        meson test(). Workflows: nf-test *.nf.test files with an assertion; Nextflow
        test configurations (test.config, conf/test_full.config, nextflow_test.config;
        a test profile in nextflow.config when no such file exists); configuration
        files a CI job passes to a workflow run (Snakemake --configfile
        .test/config.yaml, Nextflow -c / -params-file), and the workflow's own
        configfile: resolved in the folder a CI job runs Snakemake in (the
        snakemake-github-action's directory: .test, --directory, a step's
        working-directory; lint-only runs excepted). CI-run validation scripts
        (§0.3): a Python, R, Julia or shell script a CI job runs whose name says it
        checks results (validate, verify, check, compare, sanity, regression,
        consistency) or is a test (2.4.0: test or tests as the first or last word of
        the name: test_cram_input.sh, run_test.sh, a package's tests.py; not
        testing.py) and that asserts (assert, np.testing.assert_*, stopifnot,
        expect_*, @test, @assert; in a shell script, 2.4.0, a check that fails the
        script: an if/elif whose condition is diff, cmp, git diff, grep, test, [ ] or
        [[ ]] and whose branches reach exit <non-zero>, or a check chained with && or
        || to exit <non-zero>, bash -c "… exit 1" included). Data-driven regression suites (2.3.0, §0.3 native
        "regression-test folders"): each case folder directly below a test folder
        (tests/, test/, testing/, tst/, unit_tests/, test-suite/), outside hidden and
        vendored folders, that holds input files and a committed reference output (a
        file named benchmark*, reference*, expected* or *.ref / *.expected of at least
        16 bytes and no code, or a reference*/expected*/baseline*/golden* folder holding
        one: testcode's benchmark.out.<id> beside the case's .win input) counts as a test
        when something runs the suite (a runner script in the suite's folder or one
        above it: run_tests, runtests.py; a Make-like test*/check target; a CI job
        running tests), unless a test file inside it is counted already (a case's own
        CMakeLists.txt registering it). Vendored and "3rd party"
        folders are skipped for native and MATLAB code. Value = min(|T| / 2, 1) · 100.
    Why it matters:
        Tests let a third party check that the code still computes what it computed for
        the authors, on their own machine, before trusting any result.
    Evidence:
        Counted test files at their first test (file, line; a build file from its first
        test registration to its last; a regression case folder with its first
        reference output; a shell validation script at its check), up to 50 (the suites are
        what the metric is about), spread over the kinds of test and folders, within a
        kind the files with the most tests (then the most lines) first; test runners
        (run_tests.py, tests/testthat.R, tests/runTests.R, run_tests.m calling
        moxunit_runtests, nf-test.config, a Julia runtests.jl that includes the test
        files, a native program running a framework's suites; what runs a regression
        suite: its runner script, Make test target or CI job, and the suite's own
        configuration files beside its cases, testcode's jobconfig) and test frameworks a
        build requires (find_package(Catch2)), which are not counted; test-named
        modules without any test. Counts: counted test files, candidate modules.
    How to fix:
        Add tests in the deposit's own ecosystem (the fix names the one the tree is
        written in), at least two test files for the full score: pytest tests
        (tests/test_<module>.py), testthat tests (tests/testthat/test-<topic>.R),
        Julia tests (test/runtests.jl with @testset), MATLAB matlab.unittest classes or
        MOxUnit test_*.m suites, native tests through the tree's own build
        (GoogleTest/Catch2 sources registered with CTest add_test or meson test(),
        test-drive suites for fpm test, test programs or regression cases run by a
        Makefile test target or make check; 2.3.0), nf-test *.nf.test
        files for Nextflow, or a Snakemake .test/ configuration run by CI; an R or
        Julia analysis that is no package runs its tests with testthat::test_dir()
        or julia --project test/runtests.jl.
    Known false positives:
        A test that asserts nothing meaningful still counts, as does any script with an
        assert statement inside a tests/ folder; helpers named test_* count. A build
        file registering a test counts as a test file of its own; a test configuration
        counts without any assertion. A program in a test folder of a tree whose build
        registers tests counts even when the registrations run other programs (a
        build's add_test of a linter); a C/C++ main() that fails only by returning a
        non-zero value (not exit()) is not recognised without a registration. Notebook
        tests run by nbval without assertions are not recognised. A CI-run shell
        script named test_* that guards a precondition ([ -d x ] || exit 1) counts, and
        so does a runner run_tests.sh that checks its runner's status ([ $? -ne 0 ]
        then exit 1); one
        that fails only through set -e on a bare diff is not recognised. A folder of test
        inputs beside a file named reference* (a reference table a test reads) in a test
        folder of a tree whose CI runs any tests counts as a regression case; a
        reference genome or annotation (reference.fa, .gff3, .gtf, .bed… compressed or
        not) is no reference output (2.4.0).
    """
    counted: list[Evidence] = []
    aux: list[Evidence] = []          # runners and frameworks: evidence, not counted
    empty: list[str] = []
    candidates = 0
    seen: set[str] = set()
    weight: dict[str, tuple[int, int]] = {}   # (tests, lines) of each counted file

    def count(path: str, reason: str, rule: str, line: int | None = None, cell: int | None = None,
              tests: int | None = None, line_end: int | None = None) -> None:
        if path in seen:
            return
        seen.add(path)
        facts = tree.facts(path)
        weight[path] = (_n_tests(facts) if tests is None else tests, facts.lines if facts is not None else 0)
        counted.append(Evidence(path, reason, rule=rule, line_start=line, line_end=line_end, cell=cell,
                                snippet=tree.snippet(path, line, cell) if line is not None else None))

    def runner(path: str, reason: str, line: int | None = None) -> None:
        if any(item.path == path for item in aux):   # a runner of a regression suite found before
            return
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
        unit_dir = path.startswith(R_TEST_DIRS)
        if not (_is_r_test_module(path) or unit_dir):
            if tree.role(path) != "vendored" and (line := _r_test_elsewhere(path, tree.facts(path))) is not None:
                candidates += 1
                count(path, "test file with a test", "test_file_presence.r_testthat", line)
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
        include = _julia_runner_line(tree, path, facts) if facts is not None else None
        if include is not None:
            runner(path, "test runner (includes the test files)", include)
            continue
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
    registrations = _test_registrations(tree)
    fpm_auto, fpm_listed = _fpm_tests(tree)
    for frontend in ("c_cpp", "fortran"):
        for path in tree.by_frontend(frontend):
            in_dir = _in_other_test_dir(path)
            if not (in_dir or _NATIVE_TEST_NAME_RE.fullmatch(_name(path)) or path in fpm_listed) \
                    or _vendored(tree, path):
                continue
            facts = tree.facts(path)
            if facts is None:
                continue
            line = _native_test_line(facts, in_dir)
            if line is not None:
                candidates += 1
                count(path, "test source with a test", f"test_file_presence.{frontend}", line)
                continue
            program = _program_line(facts) if in_dir or path in fpm_listed else None
            if program is None:
                continue
            suites = _suite_runner_line(facts)
            if suites is not None:
                runner(path, "test runner (runs the test suites)", suites)
                continue
            where = _registered_by(path, frontend, registrations, fpm_auto, fpm_listed)
            if where is not None:
                candidates += 1
                count(path, f"test program the build runs ({where})", "test_file_presence.native_test_program", program)
                continue
            failing = _failing_exit_line(facts)
            if failing is not None:
                candidates += 1
                count(path, "test program that fails through its exit status", "test_file_presence.native_exit_status",
                      failing)
    for path in tree.files:
        name = _name(path)
        if name.lower().endswith(".pf") and not _vendored(tree, path):
            pf = tree.pfunit(path)
            if pf is None or not (pf.tests or _in_other_test_dir(path)):
                continue
            candidates += 1
            if pf.tests:
                count(path, "pFUnit test file", "test_file_presence.pfunit", pf.tests[0], tests=len(pf.tests))
            else:
                empty.append(path)
    for path in tree.files:
        if native_build_kind(path) not in ("cmake", "meson") or _vendored(tree, path):
            continue
        build = tree.native_build(path)
        if build is None:
            continue
        if build.tests:
            candidates += 1
            first = min(build.tests, key=lambda t: t.line)
            last = max(t.line for t in build.tests)
            # the registrations from the first to the last, a build file's tests as a whole
            registrations = f", {len(build.tests)} registrations" if len(build.tests) > 1 else ""
            count(path, f"build registers tests ({first.command}{registrations})",
                  f"test_file_presence.{build.kind}_test", first.line, tests=len(build.tests),
                  line_end=last if last > first.line else None)
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
    ci_configs = [(p, c) for p in _ci_files(tree) if (c := tree.ci_config(p)) is not None]
    if workflow_tree:
        configfiles = _snakemake_configfiles(tree)
        for ci_path, config in ci_configs:
            for line, target in config.config_files:
                if tree.is_file(target) and target not in seen:
                    candidates += 1
                    count(target, f"test configuration run by CI ({ci_path}:{line})",
                          "test_file_presence.ci_test_config")
            # a Snakemake run in a folder reads the workflow's configfile: from there
            for line, folder in config.workflow_dirs:
                for configfile in configfiles:
                    target = _joined(folder, configfile)
                    if target is not None and tree.is_file(target) and target not in seen:
                        candidates += 1
                        count(target, f"test configuration run by CI ({ci_path}:{line}, Snakemake in {folder}/)",
                              "test_file_presence.ci_test_config")
    for ci_path, config in ci_configs:
        for line, script in config.run_scripts:
            if script in seen or not tree.is_file(script) or tree.role(script) == "vendored":
                continue
            check = validation_script_line(tree, script)
            if check is not None:
                # a test-named module without a test function is a test when CI runs its checks
                if script in empty:
                    empty.remove(script)
                else:
                    candidates += 1
                count(script, f"validation script run by CI ({ci_path}:{line})",
                      "test_file_presence.ci_validation_script", check)
    # data-driven regression suites (§0.3 native "regression-test folders"): each case
    # folder a runner runs is a test, unless a test file of its own is counted already
    cases = [case for case in regression_cases(tree) if not any(p.startswith(case.folder + "/") for p in seen)]
    suites: dict[str, list[RegressionCase]] = {}
    for case in cases:
        suites.setdefault(case.suite, []).append(case)
    for suite, members in suites.items():
        runs = _suite_runs(tree, suite, ci_configs)
        if not runs:
            continue
        for case in members:
            candidates += 1
            count(case.folder, f"regression test case with a committed reference output ({_name(case.references[0])})",
                  "test_file_presence.regression_case", tests=1)
        for path, reason, line in runs:
            runner(path, reason, line)
    n = len(counted)
    value = min(n / 2, 1) * 100
    # the runners nearest the root first (runtests.jl before the folders' own runners)
    aux = sorted(aux, key=lambda e: (e.path.count("/"), e.path))[:5]
    evidence = _spread(counted, MAX_TEST_FILES, weight) + aux
    evidence += [
        Evidence(p, "test module without any test function, test class or assertion", rule="test_file_presence.no_tests")
        for p in empty[: max(0, MAX_EVIDENCE - len(aux) - min(len(counted), MAX_EVIDENCE - len(aux)))]
    ]
    counts = {"test_files": n, "candidate_modules": candidates, "modules_without_tests": len(empty)}
    ecosystem = fix_ecosystem(tree)
    build = native_build_system(tree) if ecosystem == NATIVE else None
    if n == 0:
        fix = _FIX_NO_TESTS_NATIVE.get(build) or (
            _FIX_NO_TESTS if is_package(tree, ecosystem) else _FIX_NO_TESTS_ANALYSIS).get(ecosystem,
                                                                                        _FIX_NO_TESTS[ecosystem])
    elif n == 1:
        another = _ANOTHER_TEST_NATIVE.get(build) or _ANOTHER_TEST_FILE[ecosystem]
        fix = (f"Add at least one more test file beside {counted[0].path} "
               f"(e.g. {another}) to cover the rest of the code.")
    else:
        fix = None
    return Result(value, evidence=evidence, fix=fix, counts=counts,
                  reason=f"{n} test module{'s' if n != 1 else ''} with at least one test")


# A script that runs a suite's tests (run_tests, run_tests.sh, runtests.py, run-all-tests)
_SUITE_RUNNER_NAME_RE = re.compile(r"run[-_]?(?:all[-_]?)?tests?(?:\.\w+)?|runtests(?:\.\w+)?", re.IGNORECASE)
_TEST_TARGET_RE = re.compile(r"tests?(?:[-_].*)?|check", re.IGNORECASE)


def _suite_runs(tree: TreeIndex, suite: str,
                ci_configs: list[tuple[str, object]]) -> list[tuple[str, str, int | None]]:
    """(path, reason, line) of what runs the regression suite in ``suite``, empty when
    nothing does: a runner script in the suite's folder or one above it (run_tests,
    runtests.py), a Make-like test or check target, a CI job that runs tests; and the
    suite's other files beside its case folders (its job configuration)."""
    runs: list[tuple[str, str, int | None]] = []
    for path in tree.files_in(suite):
        name = _name(path)
        if _SUITE_RUNNER_NAME_RE.fullmatch(name):
            runs.append((path, "regression test runner", None))
        elif not name.startswith(".") and not name.lower().startswith("readme"):
            runs.append((path, "regression suite configuration", None))
    folder = suite
    while folder:
        folder = _parent(folder)
        runs += [(p, "regression test runner", None) for p in tree.files_in(folder)
                 if _SUITE_RUNNER_NAME_RE.fullmatch(_name(p))]
    for path in tree.make_like_files():
        target = next((t for t in tree.task_targets(path) if _TEST_TARGET_RE.fullmatch(t.name)), None)
        if target is not None:
            runs.append((path, f"the {target.name} target runs the tests", target.line))
    for ci_path, config in ci_configs:
        if config.test_line is not None:
            runs.append((ci_path, "CI job runs the tests", config.test_line))
            break
    # a suite's own files beside its cases are no run on their own
    return runs if any(reason != "regression suite configuration" for _, reason, _ in runs) else []


def _snakemake_configfiles(tree: TreeIndex) -> list[str]:
    """The ``configfile:`` paths the workflow's Snakefiles set at top level, as written."""
    found: list[str] = []
    for path in tree.by_frontend("snakemake"):
        facts = tree.facts(path)
        for directive in facts.directives if facts is not None else ():
            value = directive.value.strip().strip("'\"")
            if directive.kind == "configfile" and not directive.scope and value and value not in found:
                found.append(value)
    return found


def _joined(folder: str, relative: str) -> str | None:
    """``relative`` resolved in ``folder`` (both repository-relative), None when it leaves
    the repository or is absolute."""
    if relative.startswith("/"):
        return None
    return resolve_in_folder(folder, relative)


# The fix with no test at all, in the deposit's own ecosystem (§0.3 S3 row)
_FIX_NO_TESTS = {
    PYTHON: "Add automated tests, e.g. tests/test_<module>.py with pytest test_* functions (two test files for "
            "the full score).",
    R: "Add testthat tests, e.g. tests/testthat/test-<topic>.R with test_that() blocks (usethis::use_testthat() "
       "sets them up).",
    JULIA: "Add Julia tests: test/runtests.jl with @testset/@test blocks, or test files with them that it includes, "
           "run by Pkg.test().",
    MATLAB: "Add matlab.unittest test classes (tests/<Name>Test.m) or MOxUnit test_*.m suites.",
    NATIVE: "Add test sources (GoogleTest/Catch2 for C/C++, test-drive for Fortran) and register them with "
            "CTest add_test or meson test().",
    NEXTFLOW: "Add nf-test tests (tests/main.nf.test with assertions, nf-test.config) or a test profile run by CI.",
    SNAKEMAKE: "Add a Snakemake test configuration (.test/config/config.yaml with small data) and run it in CI.",
}
# ... for an R or Julia analysis, which has no package tooling to run them
_FIX_NO_TESTS_ANALYSIS = {
    R: "Add testthat tests, e.g. tests/testthat/test-<topic>.R with test_that() blocks checking the analysis "
       "functions, run with testthat::test_dir(\"tests/testthat\").",
    JULIA: "Add Julia tests: test/runtests.jl with @testset/@test blocks checking the analysis functions, run with "
           "julia --project test/runtests.jl.",
}
# ... for a native deposit, through its own build system (findings-B: not CTest for a
# Makefile project); a tree without a root build gets the NATIVE text above
_FIX_NO_TESTS_NATIVE = {
    "cmake": "Add test sources (GoogleTest/Catch2 for C/C++, test-drive for Fortran) and register them with CTest "
             "add_test in CMakeLists.txt.",
    "meson": "Add test sources (GoogleTest/Catch2 for C/C++, test-drive for Fortran) and register them with meson "
             "test() in meson.build.",
    "fpm": "Add test-drive test programs under test/, which fpm test builds and runs.",
    "autotools": "Add test programs (or regression cases: inputs with a committed reference output in "
                 "tests/<case>/) and run them from the check target (make check).",
    "make": "Add test programs (or regression cases: inputs with a committed reference output in tests/<case>/) "
            "and a Makefile test target that builds and runs them (make test).",
}
_ANOTHER_TEST_NATIVE = {
    "cmake": "a test program registered with CTest add_test",
    "meson": "a test program registered with meson test()",
    "fpm": "a test program under test/, run by fpm test",
    "autotools": "a test program or regression case that make check runs",
    "make": "a test program or regression case that make test runs",
}
# A second test file, in the deposit's own ecosystem
_ANOTHER_TEST_FILE = {
    PYTHON: "tests/test_<module>.py",
    R: "tests/testthat/test-<topic>.R",
    JULIA: "test/<topic>.jl with @testset blocks, included by test/runtests.jl",
    MATLAB: "tests/<Name>Test.m",
    NATIVE: "a test program registered with CTest add_test or meson test()",
    NEXTFLOW: "an nf-test file for another module or workflow",
    SNAKEMAKE: "Snakemake unit tests in .tests/unit/ or a second .test/ configuration run by CI",
}
