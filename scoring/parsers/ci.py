"""Continuous-integration configuration files (GitHub Actions, GitLab CI, Travis…) read
as text: which lines run tests (S5 ci_presence), which configuration files, working
folders and scripts a job hands to a run (S3 test_file_presence).

A CI file is YAML (or a Jenkinsfile), but what a job runs is shell text inside it, so
the file is scanned line by line: the lines whose code (a trailing ``#`` comment removed,
quotes respected) names a test runner outside an install command, or that name a step
after tests (``- name: Run unit tests``). A step (a YAML list item with the lines
indented below it) is read as a whole only where a key and the run it configures sit on
different lines: the ``directory:`` of a Snakemake step (the
``snakemake/snakemake-github-action`` input, a ``working-directory:``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from scoring.parsers.textfile import strip_hash_comment

__all__ = ["CiConfig", "TEST_COMMAND_RE", "parse_ci_config"]

TEST_COMMAND_RE = re.compile(
    r"(?<![\w-])(?:pytest|tox|nox|make(?:\s+(?:-C\s+\S+|-j\s*\d+|-\S+))*\s+(?:test|check)|R\s+CMD\s+check|rcmdcheck|devtools::test|"
    r"testthat|check-r-package|Pkg\.test|julia-runtest|unittest|npm\s+test|ctest|cargo\s+test|go\s+test|"
    # meson's test runner; r-lib's R-CMD-check and test-coverage workflows (called as
    # reusable workflows too); Snakemake's linter, nf-test, MATLAB's run-tests action (§0.3 S5);
    # the Fortran package manager's test runner
    r"meson\s+test|R-CMD-check|test-coverage|--lint|nf-test\s+test|matlab-actions/run-tests|fpm\s+test)(?![\w-])"
)
# A workflow run on its test data (§0.3 S5 "workflow tests"): Nextflow with a test
# profile (`-profile test,docker`, nf-core's `-profile ${{ matrix.test_name }}`), Snakemake
# in a .test/ folder or with a configuration from one.
_WORKFLOW_TEST_RUN_RE = re.compile(
    r"(?<![\w-])nextflow\s+run\b.*\s-profile[=\s]+\S*(?<![\w-])test"
    r"|(?<![\w-])snakemake\b.*(?:\s(?:--directory|-d)[=\s]+|\s--configfiles?[=\s]+)['\"]?(?:\./)?\.tests?(?:/|['\"]?(?:\s|$))"
)
# A list-item step named after tests: `- name: Run unit tests`, `- name: Run test workflow`.
_TEST_STEP_RE = re.compile(r"^\s*-\s*name\s*:.*(?<![\w-])(?:tests?|testing)(?![\w-])", re.IGNORECASE)
# A command installing a runner (`pip install pytest`) does not run it.
_INSTALL_RE = re.compile(r"(?<![\w-])install(?:\.packages)?(?![\w-])", re.IGNORECASE)
_COMMAND_SPLIT_RE = re.compile(r"&&|\|\||;")
# The folder a step runs Snakemake in: the action's `directory:` input or a step's
# `working-directory:`; on a command line `--directory X` / `-d X`.
_DIRECTORY_KEY_RE = re.compile(r"""^\s*(?:-\s+)?(?:working-)?directory\s*:\s*["']?([^\s"'#$]+)["']?\s*$""")
_SNAKEMAKE_DIRECTORY_RE = re.compile(r"""(?<![\w-])snakemake\b.*\s(?:--directory|-d)[=\s]+["']?([^\s"'$]+)""")
_SNAKEMAKE_RE = re.compile(r"(?<![\w-])snakemake(?![\w-])|snakemake-github-action", re.IGNORECASE)
_LIST_ITEM_RE = re.compile(r"^(\s*)-\s")
# A script a job runs by its interpreter (`python scripts/check.py`, `Rscript x.R`,
# `julia --project=. x.jl`, `bash x.sh`) or by its path (`./validate.sh`).
_RUN_SCRIPT_RE = re.compile(
    r"""(?:^|[\s;&|("'])(?:(?:python[\d.]*|Rscript|julia|bash|sh)\s+(?:-[-\w=.]*\s+)*|\./)"""
    r"""["']?((?:[\w.-]+/)*[\w.-]+\.(?:py|R|r|jl|sh))(?![\w/])"""
)


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
    # (line, folder) of each folder a job runs Snakemake in, lint-only steps left out:
    # the workflow's own ``configfile:`` resolved there is a test configuration (S3)
    workflow_dirs: tuple[tuple[int, str], ...] = ()
    # (line, path) of each script a job runs (S3/S5: a validation script run by CI)
    run_scripts: tuple[tuple[int, str], ...] = ()


_CONFIG_FILE_RE = re.compile(
    r"""(?:(?<![\w-])--config-?files?|(?<![\w-])-c|(?<![\w-])-?-params-file)[=\s]+["']?([^\s"'$]+)""")


def parse_ci_config(text: str, path: str) -> CiConfig:
    """The CI file ``path`` with its test-running lines, and the configuration files,
    Snakemake folders and scripts its jobs hand to runs."""
    lines = text.splitlines()
    codes = [strip_hash_comment(line) for line in lines]
    workflow_dirs = _snakemake_dirs(lines, codes) if _SNAKEMAKE_RE.search(text) else []
    test_lines = []
    # most lines of most files name no test runner
    if TEST_COMMAND_RE.search(text) or re.search(r"(?i)\btest", text):
        in_test_dir = {line for line, folder in workflow_dirs if _is_test_folder(folder)}
        for number, (line, code) in enumerate(zip(lines, codes, strict=True), start=1):
            if _runs_tests(code) or number in in_test_dir:
                test_lines.append((number, line))
    test_line, test_text = test_lines[0] if test_lines else (None, None)
    config_files = []
    if "-c" in text or "config" in text or "params-file" in text:
        for number, code in enumerate(codes, start=1):
            for match in _CONFIG_FILE_RE.finditer(code):
                value = match.group(1).removeprefix("./")
                if match.group(0).lstrip().startswith("-c") and not value.endswith(".config"):
                    continue
                config_files.append((number, value))
    run_scripts = []
    for number, code in enumerate(codes, start=1):
        for match in _RUN_SCRIPT_RE.finditer(code):
            run_scripts.append((number, match.group(1).removeprefix("./")))
    return CiConfig(path, test_line, test_text, tuple(test_lines), tuple(config_files), tuple(workflow_dirs),
                    tuple(run_scripts))


def _is_test_folder(folder: str) -> bool:
    return any(part in (".test", ".tests") for part in folder.split("/"))


def _snakemake_dirs(lines: list[str], codes: list[str]) -> list[tuple[int, str]]:
    """(line, folder) of each folder a Snakemake run is given, lint-only runs left out:
    ``snakemake … --directory X`` on one line, or a ``directory:``/``working-directory:``
    key of a step that runs Snakemake (the step's other lines name it)."""
    found = []
    for index, code in enumerate(codes):
        match = _SNAKEMAKE_DIRECTORY_RE.search(code)
        if match and "--lint" not in code:
            found.append((index + 1, match.group(1).removeprefix("./")))
            continue
        match = _DIRECTORY_KEY_RE.match(code)
        if match is None:
            continue
        step = _step_lines(codes, index)
        joined = "\n".join(step)
        if _SNAKEMAKE_RE.search(joined) and "--lint" not in joined:
            found.append((index + 1, match.group(1).removeprefix("./")))
    return found


def _step_lines(codes: list[str], index: int) -> list[str]:
    """The lines of the YAML list item (a CI step) that line ``index`` belongs to: from
    the nearest list item indented less than it to the next line indented no more than
    that item."""
    indent = len(codes[index]) - len(codes[index].lstrip())
    start = None
    for back in range(index, -1, -1):
        item = _LIST_ITEM_RE.match(codes[back])
        if item and (back == index or len(item.group(1)) < indent):
            start = back
            break
        # a key between (``with:``) lowers the indentation the step's item must stay under
        if back != index and codes[back].strip() and not item:
            indent = min(indent, len(codes[back]) - len(codes[back].lstrip()))
    if start is None:
        return [codes[index]]
    base = len(_LIST_ITEM_RE.match(codes[start]).group(1))
    end = start + 1
    while end < len(codes):
        stripped = codes[end].strip()
        if stripped and len(codes[end]) - len(codes[end].lstrip()) <= base:
            break
        end += 1
    return codes[start:end]


def _runs_tests(code: str) -> bool:
    """A line that runs a test runner in a command that installs nothing, runs a
    workflow on its test data, or names a test step."""
    if _TEST_STEP_RE.match(code):
        return not _INSTALL_RE.search(code)
    return any((TEST_COMMAND_RE.search(part) or _WORKFLOW_TEST_RUN_RE.search(part)) and not _INSTALL_RE.search(part)
               for part in _COMMAND_SPLIT_RE.split(code))
