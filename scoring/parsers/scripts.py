"""Line-oriented text files no language frontend reads, parsed once into what detectors
ask of them: shell scripts (their logical command lines and ``VAR=value`` assignments),
the variables of Make-like files, the code lines of any script or workflow file (``.wdl``,
``dvc.yaml``, a Makefile), the first step of a workflow-engine file (CWL, WDL, DVC,
Galaxy) and the table headers of a TOML file.

Every function takes the decoded text and returns frozen values; the tree index caches
each result per file (``TreeIndex.shell_script``, ``script_lines``, ``make_variables``,
``workflow_file``, ``toml_headers``), so a file's text is scanned once.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass

from .shell import command_lines

_SHELL_ASSIGN_RE = re.compile(r"^\s*(?:export\s+|local\s+|readonly\s+|declare\s+(?:-\w+\s+)?)?([A-Za-z_]\w*)=(\S.*)$")
_MAKE_ASSIGN_RE = re.compile(r"^\s*(?:export\s+|override\s+)?([A-Za-z_][\w.-]*)\s*(?::{1,3}|\?|\+|!)?=\s*(.*)$")


def _assignments(lines: Iterable[str], pattern: re.Pattern[str]) -> dict[str, str]:
    """name -> value of each assignment line (the last one wins); a value of one shell
    word is that word unquoted, else the text as written."""
    table: dict[str, str] = {}
    for line in lines:
        match = pattern.match(line)
        if match:
            value = match.group(2).strip()
            try:
                words = shlex.split(value, comments=True)
            except ValueError:
                words = value.split()
            table[match.group(1)] = words[0] if len(words) == 1 else value
    return table


@dataclass(frozen=True)
class ShellScript:
    commands: tuple[tuple[int, str], ...]   # (first line, logical line): ``\`` continuations joined, comments dropped
    assignments: tuple[tuple[str, str], ...]  # (name, value) of ``VAR=value`` lines, in table order

    @property
    def variables(self) -> dict[str, str]:
        return dict(self.assignments)


def parse_shell_script(text: str) -> ShellScript:
    return ShellScript(tuple(command_lines(text)),
                       tuple(_assignments(text.splitlines(), _SHELL_ASSIGN_RE).items()))


def make_variables(text: str) -> tuple[tuple[str, str], ...]:
    """(name, value) of the variable assignments of a Makefile (``=``, ``:=``, ``?=``,
    ``+=``, ``!=``; ``export``/``override``), the last one of a name winning."""
    return tuple(_assignments(text.splitlines(), _MAKE_ASSIGN_RE).items())


def script_lines(text: str) -> tuple[tuple[int, str], ...]:
    """(line, raw text) of every line that is neither blank nor a whole-line comment
    (``#`` or ``//`` after indentation)."""
    out = []
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if stripped and not stripped.startswith(("#", "//")):
            out.append((number, raw))
    return tuple(out)


def is_dvc_tracking(text: str) -> bool:
    """A ``*.dvc`` file that tracks outputs (it carries ``outs:`` or an ``md5:``)."""
    return "outs:" in text or "md5:" in text


# the first step of a workflow file of each engine without a language frontend
_STEP_LOCATORS = {
    "cwl": re.compile(r"^\s*class\s*:\s*Workflow\b"),
    "wdl": re.compile(r"^\s*(?:workflow|task)\s+\w+"),
    "dvc": re.compile(r"^\s*stages\s*:"),
    # the language frontends give these; the locators serve a file they do not read
    "snakemake": re.compile(r"^\s*(?:rule|checkpoint)\s+\w+\s*:"),
    "nextflow": re.compile(r"^\s*(?:process|workflow)\b"),
    "targets": re.compile(r"\btar_target\s*\("),
}


@dataclass(frozen=True)
class WorkflowFile:
    engine: str
    step_line: int | None      # the first rule/process/task/stage line, None when none matched
    galaxy_marker: bool = False  # the text holds ``a_galaxy_workflow``


def parse_workflow_file(engine: str, text: str) -> WorkflowFile:
    """The first step line of a workflow file of ``engine`` (``cwl``, ``wdl``, ``dvc``,
    ``galaxy``, or ``snakemake``/``nextflow``/``targets`` for files no frontend reads)."""
    locator = _STEP_LOCATORS.get(engine)
    line = None
    if locator is not None:
        for number, raw in enumerate(text.splitlines(), start=1):
            if locator.search(raw):
                line = number
                break
    return WorkflowFile(engine, line, engine == "galaxy" and "a_galaxy_workflow" in text)


def toml_headers(text: str) -> tuple[tuple[int, str], ...]:
    """(line, stripped text) of every line of a TOML file that opens with ``[`` (table
    and array-of-tables headers)."""
    return tuple((number, raw.strip()) for number, raw in enumerate(text.splitlines(), start=1)
                 if raw.strip().startswith("["))
