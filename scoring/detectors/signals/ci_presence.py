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


@detector("ci_presence", version="2.0.0")
def ci_presence(tree: TreeIndex) -> Result:
    """A continuous-integration configuration file exists (0 or 100).

    What it checks:
        A workflow file .github/workflows/*.yml|yaml, .circleci/*.yml, .buildkite/*.yml
        or .woodpecker/*.yml, or one of the top-level files .travis.yml, .gitlab-ci.yml
        (.yaml), azure-pipelines.yml, Jenkinsfile, appveyor.yml, .appveyor.yml,
        bitbucket-pipelines.yml, .drone.yml, .woodpecker.yml, .cirrus.yml (names
        matched case-insensitively). Whether a job runs tests (pytest, tox, nox, make
        test, R CMD check, Pkg.test …) is recorded but does not change the value.
    Why it matters:
        CI runs the code on a clean machine at every change: the cheapest continuous
        evidence that the code works outside the author's environment.
    Evidence:
        Each CI file, and the first line that runs tests in each. Counts: CI files, and
        runs_tests.
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
    evidence = [Evidence(p, "CI configuration file", rule="ci_presence.config") for p in files]
    runs_tests = False
    for path in files:
        config = tree.ci_config(path)
        if config is not None and config.test_line is not None:
            runs_tests = True
            evidence.append(Evidence(path, "CI job runs tests", rule="ci_presence.runs_tests",
                                     line_start=config.test_line, snippet=config.test_text))
    return Result(100, evidence=evidence[:MAX_EVIDENCE], counts={"ci_files": len(files), "runs_tests": runs_tests},
                  reason=f"CI configured in {_join_names(files)}")
