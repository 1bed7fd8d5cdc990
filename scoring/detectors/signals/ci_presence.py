"""S5 ci_presence: a continuous-integration configuration exists."""

from __future__ import annotations

from scoring.detectors.signals._common import (
    MAX_EVIDENCE,
    _ci_files,
    _join_names,
)
from scoring.model import Evidence
from scoring.registry import Result, detector
from scoring.tree import TreeIndex

# The test-running lines shown per CI file (its first with the file, the others after
# every file is shown).
_TEST_LINES_PER_FILE = 3


@detector("ci_presence", version="2.0.1")
def ci_presence(tree: TreeIndex) -> Result:
    """A continuous-integration configuration file exists (0 or 100).

    What it checks:
        A workflow file .github/workflows/*.yml|yaml, .circleci/*.yml, .buildkite/*.yml
        or .woodpecker/*.yml, or one of the top-level files .travis.yml, .gitlab-ci.yml
        (.yaml), azure-pipelines.yml, Jenkinsfile, appveyor.yml, .appveyor.yml,
        bitbucket-pipelines.yml, .drone.yml, .woodpecker.yml, .cirrus.yml (names
        matched case-insensitively). Whether a job runs tests (pytest, tox, nox, make
        test, R CMD check, Pkg.test, meson test, ctest, nf-test test,
        matlab-actions/run-tests, r-lib's R-CMD-check and test-coverage workflows,
        Snakemake --lint …, not in a command that installs it,
        or a step named after tests such as `- name: Run unit tests`) is recorded but
        does not change the value.
    Why it matters:
        CI runs the code on a clean machine at every change: the cheapest continuous
        evidence that the code works outside the author's environment.
    Evidence:
        The CI files that run tests first, each with its first test-running line, then
        the other CI files, then up to two more test-running lines of each file. Counts:
        CI files, and runs_tests.
    How to fix:
        Add a workflow such as .github/workflows/tests.yml that installs the environment
        and runs the tests on every push.
    Known false positives:
        A workflow that only runs bots (stale issues, labeler) or deploys documentation
        counts; so does a configuration left behind for a CI service no longer in use.
    """
    files = _ci_files(tree)
    if not files:
        return Result(0, counts={"ci_files": 0, "runs_tests": False},
                      fix="Add a CI workflow such as .github/workflows/tests.yml that installs the environment and runs the tests on every push.",
                      reason="no continuous-integration configuration file")
    testing: list[list[Evidence]] = []    # a CI file that runs tests, then its test lines
    others: list[Evidence] = []
    for path in files:
        config = tree.ci_config(path)
        item = Evidence(path, "CI configuration file", rule="ci_presence.config")
        if config is not None and config.test_lines:
            testing.append([item, *(Evidence(path, "CI job runs tests", rule="ci_presence.runs_tests",
                                             line_start=line, snippet=text)
                                    for line, text in config.test_lines[:_TEST_LINES_PER_FILE])])
        else:
            others.append(item)
    evidence = [item for group in testing for item in group[:2]] + others
    evidence += [group[i] for i in range(2, _TEST_LINES_PER_FILE + 1) for group in testing if i < len(group)]
    return Result(100, evidence=evidence[:MAX_EVIDENCE], counts={"ci_files": len(files), "runs_tests": bool(testing)},
                  reason=f"CI configured in {_join_names(files)}")
