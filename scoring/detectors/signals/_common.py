"""What several category S detectors share: evidence limits, path and line helpers and
CI file names (S5, S6). Detectors read facts and parsed structures from the tree index.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

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
# compare_to_reference.jl, sanity_checks.py, regression.py)
_VALIDATION_NAME_RE = re.compile(r"valid|verif|check|compar|sanity|regress|consisten", re.IGNORECASE)
# the calls that assert in each language: numpy.testing / pandas.testing assert_*, R
# stopifnot / testthat expect_* / assertthat
_ASSERTING_CALL_RE = re.compile(r"(?:.*[.:$])?(?:assert\w*|stopifnot|expect_\w+|assert_that)")


def validation_script_line(tree, path: str) -> int | None:
    """The first assertion of a validation script (§0.3 "CI-run validation scripts are
    tests"): a Python, R or Julia script named after checking results (validate,
    verify, check, compare, sanity, regression, consistency) that asserts (``assert``
    statements, ``np.testing.assert_*``, R ``stopifnot``/``expect_*``, Julia ``@test``/
    ``@assert``); None for any other file."""
    name = _name(path)
    if not _VALIDATION_NAME_RE.search(name.rsplit(".", 1)[0]):
        return None
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
