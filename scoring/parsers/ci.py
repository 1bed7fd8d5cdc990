"""Continuous-integration configuration files (GitHub Actions, GitLab CI, Travis…) read
as text: which line first runs a test command (S5 ci_presence).

A CI file is YAML (or a Jenkinsfile), but what a job runs is shell text inside it, so
the file is scanned line by line: the first line whose code (a trailing ``#`` comment
removed, quotes respected) names a test runner.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from scoring.parsers.textfile import strip_hash_comment

__all__ = ["CiConfig", "TEST_COMMAND_RE", "parse_ci_config"]

TEST_COMMAND_RE = re.compile(
    r"(?<![\w-])(?:pytest|tox|nox|make\s+(?:test|check)|R\s+CMD\s+check|rcmdcheck|devtools::test|"
    r"testthat|check-r-package|Pkg\.test|julia-runtest|unittest|npm\s+test|ctest|cargo\s+test|go\s+test)(?![\w-])"
)


@dataclass(frozen=True)
class CiConfig:
    path: str
    test_line: int | None = None    # the first line that runs tests (1-based), or None
    test_text: str | None = None    # that line as written
    # (line, path) of each configuration file a job passes to a workflow run: Snakemake
    # ``--configfile(s) <path>``, Nextflow ``-c <path>.config`` / ``-params-file <path>``
    # (S3: a test configuration run by CI)
    config_files: tuple[tuple[int, str], ...] = ()


_CONFIG_FILE_RE = re.compile(
    r"""(?:(?<![\w-])--config-?files?|(?<![\w-])-c|(?<![\w-])-?-params-file)[=\s]+["']?([^\s"'$]+)""")


def parse_ci_config(text: str, path: str) -> CiConfig:
    """The CI file ``path`` with its first test-running line and the configuration files
    its jobs pass to workflow runs."""
    test_line = test_text = None
    if TEST_COMMAND_RE.search(text):   # most lines of most files name no test runner
        for number, line in enumerate(text.splitlines(), start=1):
            if TEST_COMMAND_RE.search(strip_hash_comment(line)):
                test_line, test_text = number, line
                break
    config_files = []
    if "-c" in text or "config" in text or "params-file" in text:
        for number, line in enumerate(text.splitlines(), start=1):
            for match in _CONFIG_FILE_RE.finditer(strip_hash_comment(line)):
                value = match.group(1).removeprefix("./")
                if match.group(0).lstrip().startswith("-c") and not value.endswith(".config"):
                    continue
                config_files.append((number, value))
    return CiConfig(path, test_line, test_text, tuple(config_files))
