"""S5 ci_presence: a continuous-integration configuration exists."""

from __future__ import annotations

from scoring.detectors._shared import (
    JULIA,
    MATLAB,
    NATIVE,
    NEXTFLOW,
    PYTHON,
    SNAKEMAKE,
    R,
    fix_ecosystem,
)
from scoring.detectors.signals._common import (
    MAX_EVIDENCE,
    _ci_files,
    _join_names,
    is_package,
    native_build_system,
    validation_script_line,
)
from scoring.model import Evidence
from scoring.registry import Result, detector
from scoring.tree import TreeIndex

# The test-running lines shown per CI file (its first with the file, the others after
# every file is shown).
_TEST_LINES_PER_FILE = 3

# The fix without CI, in the deposit's own ecosystem (§0.3 S3/S5 row: the runner its CI uses)
_FIX_NO_CI = {
    PYTHON: "Add a CI workflow such as .github/workflows/tests.yml that installs the environment and runs the "
            "tests (pytest) on every push.",
    R: "Add a CI workflow that runs R CMD check on every push, e.g. r-lib/actions' check-standard "
       "(usethis::use_github_action(\"check-standard\")).",
    JULIA: "Add a CI workflow that runs the package tests on every push (julia-actions/setup-julia, "
           "julia-buildpkg and julia-runtest).",
    MATLAB: "Add a CI workflow that runs the tests on every push (matlab-actions/setup-matlab and "
            "matlab-actions/run-tests).",
    NATIVE: "Add a CI workflow that builds the code and runs its tests on every push "
            "(cmake -B build && cmake --build build && ctest --test-dir build).",
    NEXTFLOW: "Add a CI workflow that runs the pipeline on its test profile (nextflow run . -profile test,docker) "
              "or nf-test test on every push.",
    SNAKEMAKE: "Add a CI workflow that lints the workflow and runs it on its .test/ data on every push "
               "(snakemake/snakemake-github-action with directory: .test, --lint, then --use-conda --cores 1).",
}


@detector("ci_presence", version="2.0.4")
def ci_presence(tree: TreeIndex) -> Result:
    """A continuous-integration configuration file exists (0 or 100).

    What it checks:
        A workflow file .github/workflows/*.yml|yaml, .circleci/*.yml, .buildkite/*.yml
        or .woodpecker/*.yml, or one of the top-level files .travis.yml, .gitlab-ci.yml
        (.yaml), azure-pipelines.yml, Jenkinsfile, appveyor.yml, .appveyor.yml,
        bitbucket-pipelines.yml, .drone.yml, .woodpecker.yml, .cirrus.yml (names
        matched case-insensitively). Whether a job runs tests (pytest, tox, nox, make
        test / check, R CMD check, Pkg.test, meson test, ctest, fpm test, nf-test
        test, matlab-actions/run-tests, r-lib's R-CMD-check and test-coverage
        workflows, Snakemake --lint …, not in a command that installs it; a step named
        after tests such as `- name: Run unit tests`; a workflow run on its test data:
        nextflow run with a test profile, Snakemake in a .test/ folder (the
        snakemake-github-action's directory: .test, --directory) or with a .test/
        configuration; a validation script it runs, as S3 counts them: §0.3 workflow
        tests, test-named and shell scripts since 2.0.4) is recorded but does not
        change the value.
    Why it matters:
        CI runs the code on a clean machine at every change: the cheapest continuous
        evidence that the code works outside the author's environment.
    Evidence:
        The CI files that run tests first, each with its first test-running line, then
        the other CI files, then up to two more test-running lines of each file. Counts:
        CI files, and runs_tests.
    How to fix:
        Add a workflow such as .github/workflows/tests.yml that installs the environment
        and runs the tests on every push, with the deposit's own runner (pytest, R CMD
        check, julia-runtest, matlab-actions/run-tests, a Nextflow test profile or
        nf-test, a Snakemake run on .test/ data; a native deposit through its own
        build: ctest for CMake, meson test, fpm test, make check for autotools, make
        test for a Makefile, 2.0.3); an R or Julia analysis that is no package
        restores its environment and runs its scripts.
    Known false positives:
        A workflow that only runs bots (stale issues, labeler) or deploys documentation
        counts; so does a configuration left behind for a CI service no longer in use.
    """
    files = _ci_files(tree)
    if not files:
        return Result(0, counts={"ci_files": 0, "runs_tests": False}, fix=_fix_without_ci(tree),
                      reason="no continuous-integration configuration file")
    testing: list[list[Evidence]] = []    # a CI file that runs tests, then its test lines
    others: list[Evidence] = []
    for path in files:
        config = tree.ci_config(path)
        item = Evidence(path, "CI configuration file", rule="ci_presence.config")
        lines = _test_lines(tree, config) if config is not None else []
        if lines:
            testing.append([item, *(Evidence(path, reason, rule="ci_presence.runs_tests", line_start=line, snippet=text)
                                    for line, text, reason in lines[:_TEST_LINES_PER_FILE])])
        else:
            others.append(item)
    evidence = [item for group in testing for item in group[:2]] + others
    evidence += [group[i] for i in range(2, _TEST_LINES_PER_FILE + 1) for group in testing if i < len(group)]
    return Result(100, evidence=evidence[:MAX_EVIDENCE], counts={"ci_files": len(files), "runs_tests": bool(testing)},
                  reason=f"CI configured in {_join_names(files)}")


# R and Julia analyses (no package to check): the environment and the scripts
_FIX_NO_CI_ANALYSIS = {
    R: "Add a CI workflow that restores the R environment (r-lib/actions/setup-r and setup-renv) and runs the "
       "analysis scripts or their testthat tests on every push.",
    JULIA: "Add a CI workflow that instantiates the environment (julia-actions/setup-julia, then julia --project -e "
           "'using Pkg; Pkg.instantiate()') and runs the scripts or test/runtests.jl on every push.",
}


# Native deposits build and test through their own build system (findings-B: not CTest for
# a Makefile project); a tree without a root build gets the CMake text of _FIX_NO_CI
_NATIVE_BUILD_AND_TEST = {
    "meson": "meson setup build && meson test -C build",
    "fpm": "fpm build && fpm test",
    "autotools": "./configure && make && make check",
    "make": "make && make test",
}


def _fix_without_ci(tree: TreeIndex) -> str:
    """The no-CI fix in the tree's ecosystem; an R or Julia analysis that is no package
    (no DESCRIPTION, no named Project.toml at the root) runs its scripts, not a package
    check; a native deposit builds and tests with its own build system."""
    ecosystem = fix_ecosystem(tree)
    if ecosystem in _FIX_NO_CI_ANALYSIS and not is_package(tree, ecosystem):
        return _FIX_NO_CI_ANALYSIS[ecosystem]
    if ecosystem == NATIVE and (commands := _NATIVE_BUILD_AND_TEST.get(native_build_system(tree))):
        return f"Add a CI workflow that builds the code and runs its tests on every push ({commands})."
    return _FIX_NO_CI[ecosystem]


def _test_lines(tree: TreeIndex, config) -> list[tuple[int, str, str]]:
    """(line, text, reason) of the lines of a CI file that run tests, in file order: its
    test commands and steps, and the lines running a validation script (S3's)."""
    found = [(line, text, "CI job runs tests") for line, text in config.test_lines]
    seen = {line for line, _, _ in found}
    for line, script in config.run_scripts:
        if line not in seen and tree.is_file(script) and tree.role(script) != "vendored" \
                and validation_script_line(tree, script) is not None:
            found.append((line, tree.snippet(config.path, line) or script, f"CI job runs the validation script {script}"))
            seen.add(line)
    return sorted(found)
