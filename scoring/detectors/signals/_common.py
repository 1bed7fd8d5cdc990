"""What several category S detectors share: path and line helpers, R/Julia text
units (S1, S6, S7), Python units by path (S1, S3) and CI file names (S5, S6).
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from scoring.parsers.python import CodeUnit
from scoring.tree import TreeIndex

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


def _strip_hash_comment(line: str) -> str:
    """``line`` without a trailing ``#`` comment (R, Julia, Python, shell), quotes respected."""
    if "#" not in line:
        return line
    quote = ""
    escaped = False
    for index, char in enumerate(line):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif quote:
            if char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "#":
            return line[:index]
    return line


_STRING_RE = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'')


def _blank_strings(code: str) -> str:
    """``code`` with string literal contents removed, so ``print("use sample()")`` is no call."""
    if '"' not in code and "'" not in code:
        return code
    return _STRING_RE.sub(lambda m: m.group(0)[0] * 2, code)


@dataclass(frozen=True)
class _TextUnit:
    """Non-Python code scanned by regular expressions: an R or Julia file, or one R/Julia
    cell of a notebook or R Markdown document."""

    path: str
    language: str             # "r" | "julia"
    lines: tuple[str, ...]
    cell: int | None = None   # set for .ipynb cells: lines then count within the cell
    offset: int = 0           # added to unit lines to get file lines (Rmd/qmd chunks)

    def code_lines(self) -> Iterator[tuple[int, str, str]]:
        """(evidence line, code without comments, raw line) of every non-blank line."""
        for number, raw in enumerate(self.lines, start=1):
            code = _strip_hash_comment(raw)
            if code.strip():
                yield number + self.offset, code, raw


# R/Julia units per tree, shared by S1, S6 and S7 (the tree index has no such view).
_TEXT_UNITS: weakref.WeakKeyDictionary[TreeIndex, list[_TextUnit]] = weakref.WeakKeyDictionary()


def _text_units(tree: TreeIndex) -> list[_TextUnit]:
    """R and Julia code: ``.R``/``.r``/``.jl`` files, R/Julia chunks of R Markdown and
    Quarto documents, and R/Julia cells of Jupyter notebooks (R kernels or ``%%R``)."""
    cached = _TEXT_UNITS.get(tree)
    if cached is not None:
        return cached
    units: list[_TextUnit] = []
    for kind, language in (("r", "r"), ("julia", "julia")):
        for path in tree.by_type(kind):
            text = tree.text(path)
            if text:
                units.append(_TextUnit(path, language, tuple(text.splitlines())))
    for kind in ("notebook", "rmd"):
        for path in tree.by_type(kind):
            nb = tree.notebook(path)
            if nb is None:
                continue
            is_ipynb = kind == "notebook"
            for cell in nb.code_cells:
                if cell.language not in ("r", "julia"):
                    continue
                lines = tuple(cell.source.splitlines())
                if is_ipynb:
                    units.append(_TextUnit(path, cell.language, lines, cell=cell.index))
                else:
                    units.append(_TextUnit(path, cell.language, lines, offset=cell.line_offset))
    _TEXT_UNITS[tree] = units
    return units


def _unit_location(unit: CodeUnit, line: int) -> tuple[int, int | None]:
    """Evidence (line, cell) of a line of a Python unit: within the cell for Jupyter
    notebooks, the file line for ``.py`` files and R Markdown chunks."""
    if unit.cell is not None and unit.path.lower().endswith(".ipynb"):
        return line, unit.cell
    return unit.file_line(line), None


def _units_by_path(tree: TreeIndex) -> dict[str, list[CodeUnit]]:
    grouped: dict[str, list[CodeUnit]] = {}
    for unit in tree.python_units():
        grouped.setdefault(unit.path, []).append(unit)
    return grouped


_CI_ROOT_FILES = frozenset({
    ".travis.yml", ".travis.yaml", ".gitlab-ci.yml", ".gitlab-ci.yaml", "azure-pipelines.yml",
    "azure-pipelines.yaml", "jenkinsfile", "appveyor.yml", ".appveyor.yml", "appveyor.yaml",
    ".appveyor.yaml", "bitbucket-pipelines.yml", ".drone.yml", ".drone.yaml", ".woodpecker.yml",
    ".woodpecker.yaml", ".cirrus.yml",
})
