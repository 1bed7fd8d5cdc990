"""What several category S detectors share: evidence limits, path and line helpers, CI
file names (S5, S6), validation scripts (S3, S5) and the case folders of data-driven
regression suites (S3, S4). Detectors read facts and parsed structures from the tree
index.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from scoring.parsers.shell import Command, split_commands

# Evidence lists stay short enough to read; totals always go to ``counts``.
MAX_EVIDENCE = 20


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def _parent(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _is_hidden(path: str) -> bool:
    return any(part.startswith(".") for part in path.split("/"))


def _join_names(names: Sequence[str], limit: int = 3) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _line_text(lines: Sequence[str], number: int) -> str | None:
    return lines[number - 1] if 1 <= number <= len(lines) else None


_CI_ROOT_FILES = frozenset({
    ".travis.yml", ".travis.yaml", ".gitlab-ci.yml", ".gitlab-ci.yaml", "azure-pipelines.yml",
    "azure-pipelines.yaml", "jenkinsfile", "appveyor.yml", ".appveyor.yml", "appveyor.yaml",
    ".appveyor.yaml", "bitbucket-pipelines.yml", ".drone.yml", ".drone.yaml", ".woodpecker.yml",
    ".woodpecker.yaml", ".cirrus.yml",
})


# Directories whose YAML files are CI pipelines (path segments matched case-insensitively).
_CI_DIRS = ((".github", "workflows"), (".circleci",), (".buildkite",), (".woodpecker",))
_YAML_NAME_RE = re.compile(r".+\.ya?ml", re.IGNORECASE)


def _ci_files(tree) -> list[str]:
    found = [p for p in tree.files_in("") if _name(p).lower() in _CI_ROOT_FILES]
    for segments in _CI_DIRS:
        directory = ""
        for segment in segments:
            directory = tree.find_ci(segment, directory) or ""
            if not directory or not tree.is_dir(directory):
                break
        else:
            found.extend(p for p in tree.files_in(directory) if _YAML_NAME_RE.fullmatch(_name(p)))
    return sorted(found)


# Suffixes of source code in any language a deposit holds (an output, a parameter file is
# never one of these), model languages (Stan, JAGS/BUGS) included
SOURCE_SUFFIXES = frozenset({
    ".py", ".pyw", ".ipy", ".pyx", ".pxd", ".r", ".rmd", ".qmd", ".jl", ".m", ".c", ".h", ".cc", ".cpp", ".cxx",
    ".hpp", ".hh", ".hxx", ".cu", ".cuh", ".f", ".f90", ".f95", ".f03", ".f08", ".for", ".f77", ".ftn", ".nf",
    ".smk", ".sh", ".bash", ".zsh", ".js", ".mjs", ".cjs", ".ts", ".java", ".go", ".rs", ".pl", ".rb", ".lua",
    ".scala", ".cmake", ".bat", ".ps1", ".stan", ".jags", ".bug",
})


# A script whose name says it checks results (validate_outputs.py, check_results.R,
# compare_to_reference.jl, sanity_checks.py, regression.py) or that it is a test (test as
# a word at the start or end of the name: test_cram_input.sh, run_test.sh, tests.py)
_VALIDATION_NAME_RE = re.compile(r"valid|verif|check|compar|sanity|regress|consisten|^tests?(?![a-z])|[-_.]tests?$",
                                 re.IGNORECASE)
# the calls that assert in each language: numpy.testing / pandas.testing assert_*, R
# stopifnot / testthat expect_* / assertthat
_ASSERTING_CALL_RE = re.compile(r"(?:.*[.:$])?(?:assert\w*|stopifnot|expect_\w+|assert_that)")
_SHELL_SUFFIXES = (".sh", ".bash")
# what a shell check runs: a comparison (diff, cmp, git diff), a search (grep), a test
# (test, [, [[)
_SHELL_CHECKS = frozenset({"diff", "cmp", "grep", "egrep", "fgrep", "zgrep", "test", "[", "[["})
# the keywords that open, continue or close a compound command, in front of a command
_SHELL_KEYWORDS = frozenset({"if", "elif", "then", "else", "fi", "!", "do", "done", "while", "until"})
# a failing exit inside a command string (bash -c "echo failed && exit 1")
_FAILING_EXIT_TEXT_RE = re.compile(r"(?:^|[;&|\s])exit\s+[1-9]\d*\b")


def _shell_words(command: Command) -> tuple[str, tuple[str, ...]]:
    """(leading keyword or "", the command's words without it and without a ``!``)."""
    words = command.words
    keyword = ""
    while words and words[0] in _SHELL_KEYWORDS:
        keyword = keyword or words[0]
        words = words[1:]
    return keyword, words


def _is_shell_check(words: tuple[str, ...]) -> bool:
    program = words[0].rsplit("/", 1)[-1] if words else ""
    return program in _SHELL_CHECKS or (program == "git" and "diff" in words[1:2])


def _is_failing_exit(words: tuple[str, ...]) -> bool:
    """``exit <non-zero>``, or a shell run with ``-c`` on a command string that exits so."""
    if not words:
        return False
    program = words[0].rsplit("/", 1)[-1]
    if program == "exit":
        return len(words) > 1 and words[1].isdigit() and int(words[1]) != 0
    return program in ("bash", "sh") and len(words) > 2 and words[1] == "-c" \
        and bool(_FAILING_EXIT_TEXT_RE.search(words[2]))


def _shell_assertion_line(tree, path: str) -> int | None:
    """The first check of a shell script that fails the script: an ``if`` (``elif``)
    whose condition is a check (diff, cmp, git diff, grep, test, ``[ ]``, ``[[ ]]``, negated
    or not) and whose branches reach ``exit <non-zero>``, or a line chaining a check to
    a failing exit with ``&&`` / ``||`` (``grep -q x out.txt || exit 1``, ``… && bash -c
    "echo failed && exit 1"``)."""
    found: list[int] = []
    conditions: list[int | None] = []   # for each open if: the line of its check, or None
    for line, logical in tree.command_lines(path):
        checked = None
        for command in split_commands(logical):
            keyword, words = _shell_words(command)
            if keyword == "if":
                conditions.append(line if _is_shell_check(words) else None)
            elif keyword == "elif" and conditions and conditions[-1] is None and _is_shell_check(words):
                conditions[-1] = line
            elif keyword == "fi" and conditions:
                conditions.pop()
            if not words:
                continue
            if _is_shell_check(words) and not keyword:
                checked = line
            if _is_failing_exit(words):
                open_checks = [c for c in conditions if c is not None]
                if open_checks:
                    found.append(open_checks[-1])
                elif checked is not None:
                    found.append(checked)
    return min(found, default=None)


def validation_script_line(tree, path: str) -> int | None:
    """The first assertion of a validation script (§0.3 "CI-run validation scripts are
    tests"): a Python, R, Julia or shell script named after checking results (validate,
    verify, check, compare, sanity, regression, consistency) or after testing (test as a
    word at the start or end of its name) that asserts (``assert`` statements,
    ``np.testing.assert_*``, R ``stopifnot``/``expect_*``, Julia ``@test``/``@assert``; in a
    shell script a check that reaches ``exit <non-zero>``); None for any other file."""
    name = _name(path)
    if not _VALIDATION_NAME_RE.search(name.rsplit(".", 1)[0]):
        return None
    if name.lower().endswith(_SHELL_SUFFIXES):
        return _shell_assertion_line(tree, path)
    facts = tree.facts(path)
    if facts is None:
        return None
    lines = [a.line for a in facts.asserts]
    lines += [c.line for c in facts.calls if _ASSERTING_CALL_RE.fullmatch(c.name)]
    lines += [m.line for m in facts.macros if m.name in ("@test", "@assert", "@test_throws")]
    return min(lines, default=None)


def is_package(tree, ecosystem: str) -> bool:
    """Whether an R or Julia deposit is a package (a root DESCRIPTION; a root Project.toml
    with a name), whose tests and checks the language's package tools run; an analysis
    runs its scripts. Other ecosystems: True."""
    if ecosystem == "r":
        return tree.is_file("DESCRIPTION")
    if ecosystem == "julia":
        project = tree.toml("Project.toml") if tree.is_file("Project.toml") else None
        return isinstance(project, dict) and bool(project.get("name"))
    return True


# --------------------------------------------------------------------------- regression cases (S3, S4)

# Folders that hold a data-driven regression suite's cases (§0.3 native "regression-test
# folders"): tests/, test/, testing/, tst/, unit_tests/, test-suite/ (testcode's, Quantum
# ESPRESSO's)
_SUITE_DIR_RE = re.compile(r"tests?|testing|tst|unit_?tests?|test[-_]?suite", re.IGNORECASE)
# A committed reference output of a case: testcode's benchmark.out.<id>, reference.out,
# expected_output.txt, *.ref; or a folder of them (reference/, expected/, baseline/, golden/)
_REFERENCE_FILE_RE = re.compile(r"(?:benchmark|reference|expected)(?:[._-].*)?|.+\.(?:ref|expected|reference)",
                                re.IGNORECASE)
_REFERENCE_DIR_RE = re.compile(r"(?:reference|expected|baseline|golden).*", re.IGNORECASE)
_PLACEHOLDERS = frozenset({".gitkeep", ".keep", ".gitignore"})
_MIN_REFERENCE_BYTES = 16      # §0.2.18
_VENDOR_PARTS = frozenset({"third_party", "thirdparty", "3rdparty", "vendor", "vendored", "extern", "external",
                           "subprojects", "_deps"})


@dataclass(frozen=True)
class RegressionCase:
    """A case folder of a data-driven regression suite: below a test folder, holding its
    inputs and a committed reference output the suite's runner compares a run with."""

    suite: str                       # the test folder holding the cases
    folder: str
    references: tuple[str, ...]      # reference outputs (in the folder or a reference folder of it)
    inputs: tuple[str, ...]          # the folder's other files


# Reference-genome and annotation formats (findings-D, rna-seq-pop: a test reference/
# folder of a genome, its transcripts, features and GO terms): what a bioinformatics run
# reads as its reference, never a result it writes; compression suffixes are dropped first
_REFERENCE_DATA_RE = re.compile(r".+\.(?:fa|fasta|fna|ffn|2bit|gff|gff3|gtf|gaf|bed|fai|dict)"
                                r"(?:\.(?:gz|bgz|bz2|xz|zst))?", re.IGNORECASE)


def is_reference_data(name: str) -> bool:
    """Whether a file name is a reference genome or annotation (``.fa``, ``.fasta``,
    ``.fna``, ``.2bit``, ``.gff``/``.gff3``/``.gtf``, ``.gaf``, ``.bed``, ``.fai``, ``.dict``,
    compressed or not): an input of a run, not a reference output."""
    return bool(_REFERENCE_DATA_RE.fullmatch(name))


def _reference_file(tree, path: str) -> bool:
    """A committed result: at least 16 bytes, not hidden, no placeholder, README, code or
    reference genome (reference.fa is the genome a case runs on)."""
    name = _name(path)
    lowered = name.lower()
    if name.startswith(".") or lowered in _PLACEHOLDERS or lowered.startswith("readme") or is_reference_data(name):
        return False
    info = tree.info(path)
    dot = lowered.rfind(".")
    return info is not None and info.size >= _MIN_REFERENCE_BYTES and (dot <= 0 or lowered[dot:] not in SOURCE_SUFFIXES)


def regression_cases(tree) -> list[RegressionCase]:
    """Every case folder of a data-driven regression suite (METRICS.md §0.3 native
    "regression-test folders", S3 and S4 alike): a folder directly below a test folder
    (tests/, test/, testing/, tst/, unit_tests/, test-suite/), outside hidden and vendored
    folders, that holds at least one input file and a committed reference output (a file
    named benchmark*, reference*, expected* or *.ref / *.expected, or a reference*/
    expected*/baseline*/golden* folder holding one). Whether a runner runs them is S3's
    question."""
    found = []
    for suite in tree.match(_SUITE_DIR_RE, dirs=True):
        parts = suite.split("/")
        if any(part.startswith(".") or part.lower() in _VENDOR_PARTS for part in parts):
            continue
        for folder in tree.subdirs(suite):
            if _name(folder).startswith("."):
                continue
            files = [p for p in tree.files_in(folder) if not _name(p).startswith(".")]
            references = [p for p in files if _REFERENCE_FILE_RE.fullmatch(_name(p)) and _reference_file(tree, p)]
            for sub in tree.subdirs(folder):
                if _REFERENCE_DIR_RE.fullmatch(_name(sub)):
                    references += [p for p in tree.files_under(sub) if not _is_hidden(p[len(sub) + 1:])
                                   and _reference_file(tree, p)]
            inputs = [p for p in files if p not in references and _name(p).lower() not in _PLACEHOLDERS]
            if references and inputs and all(tree.role(p) != "vendored" for p in references):
                found.append(RegressionCase(suite, folder, tuple(references), tuple(inputs)))
    return found


# --------------------------------------------------------------------------- native builds (S3, S5 fixes)

_MAKEFILE_NAME_RE = re.compile(r"(?:gnu)?makefile(?:\..+)?", re.IGNORECASE)


def native_build_system(tree) -> str | None:
    """The build system at the root of a native deposit, which its tests and CI run
    through (findings-B: a Makefile project is not told to use CTest): ``cmake``
    (CMakeLists.txt), ``meson`` (meson.build), ``fpm`` (fpm.toml), ``autotools``
    (configure.ac, configure.in, a configure script), ``make`` (a Makefile, Makefile.in,
    Makefile.<platform>); None without one, in that order when several are there."""
    names = {_name(p).lower() for p in tree.files_in("")}
    for name, system in (("cmakelists.txt", "cmake"), ("meson.build", "meson"), ("fpm.toml", "fpm")):
        if name in names:
            return system
    if names & {"configure.ac", "configure.in", "configure"}:
        return "autotools"
    if any(_MAKEFILE_NAME_RE.fullmatch(name) for name in names):
        return "make"
    return None
