"""Continuous-integration configuration files (GitHub Actions, GitLab CI, Travis…) read
as text: which line first runs a test command (S5 ci_presence).

A CI file is YAML (or a Jenkinsfile), but what a job runs is shell text inside it, so
the file is scanned line by line: the lines whose code (a trailing ``#`` comment removed,
quotes respected) names a test runner outside an install command, or that name a step
after tests (``- name: Run unit tests``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from scoring.parsers.textfile import strip_hash_comment

__all__ = ["CiConfig", "TEST_COMMAND_RE", "parse_ci_config"]

TEST_COMMAND_RE = re.compile(
    r"(?<![\w-])(?:pytest|tox|nox|make\s+(?:test|check)|R\s+CMD\s+check|rcmdcheck|devtools::test|"
    r"testthat|check-r-package|Pkg\.test|julia-runtest|unittest|npm\s+test|ctest|cargo\s+test|go\s+test|"
    # meson's test runner; r-lib's R-CMD-check and test-coverage workflows (called as
    # reusable workflows too); Snakemake's linter, nf-test, MATLAB's run-tests action (§0.3 S5)
    r"meson\s+test|R-CMD-check|test-coverage|--lint|nf-test\s+test|matlab-actions/run-tests)(?![\w-])"
)
# A list-item step named after tests: `- name: Run unit tests`, `- name: Run test workflow`.
_TEST_STEP_RE = re.compile(r"^\s*-\s*name\s*:.*(?<![\w-])(?:tests?|testing)(?![\w-])", re.IGNORECASE)
# A command installing a runner (`pip install pytest`) does not run it.
_INSTALL_RE = re.compile(r"(?<![\w-])install(?:\.packages)?(?![\w-])", re.IGNORECASE)
_COMMAND_SPLIT_RE = re.compile(r"&&|\|\||;")


@dataclass(frozen=True)
class CiConfig:
    path: str
    test_line: int | None = None    # the first line that runs tests (1-based), or None
    test_text: str | None = None    # that line as written
    # (line, text) of every line that runs tests or names a test step, in file order
    test_lines: tuple[tuple[int, str], ...] = ()
    # (line, path) of each configuration file a job passes to a workflow run: Snakemake
    # ``--configfile(s) <path>``, Nextflow ``-c <path>.config`` / ``-params-file <path>``
    # (S3: a test configuration run by CI)
    config_files: tuple[tuple[int, str], ...] = ()


_CONFIG_FILE_RE = re.compile(
    r"""(?:(?<![\w-])--config-?files?|(?<![\w-])-c|(?<![\w-])-?-params-file)[=\s]+["']?([^\s"'$]+)""")


def parse_ci_config(text: str, path: str) -> CiConfig:
    """The CI file ``path`` with its first test-running line and the configuration files
    its jobs pass to workflow runs."""
    test_lines = []
    # most lines of most files name no test runner
    if TEST_COMMAND_RE.search(text) or re.search(r"(?i)\btest", text):
        for number, line in enumerate(text.splitlines(), start=1):
            if _runs_tests(strip_hash_comment(line)):
                test_lines.append((number, line))
    test_line, test_text = test_lines[0] if test_lines else (None, None)
    config_files = []
    if "-c" in text or "config" in text or "params-file" in text:
        for number, line in enumerate(text.splitlines(), start=1):
            for match in _CONFIG_FILE_RE.finditer(strip_hash_comment(line)):
                value = match.group(1).removeprefix("./")
                if match.group(0).lstrip().startswith("-c") and not value.endswith(".config"):
                    continue
                config_files.append((number, value))
    return CiConfig(path, test_line, test_text, tuple(test_lines), tuple(config_files))


def _runs_tests(code: str) -> bool:
    """A line that runs a test runner in a command that installs nothing, or names a test step."""
    if _TEST_STEP_RE.match(code):
        return not _INSTALL_RE.search(code)
    return any(TEST_COMMAND_RE.search(part) and not _INSTALL_RE.search(part)
               for part in _COMMAND_SPLIT_RE.split(code))
