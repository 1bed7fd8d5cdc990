"""Jupyter notebooks (nbformat 3 and 4) and R Markdown / Quarto documents as cells.

A notebook is never scanned as JSON text: stored outputs must not count as code.
IPython magics are separated from the Python code of each cell (METRICS.md §0.1.11):
line magics and ``!`` shell escapes are replaced by ``pass`` at the same indentation
(so line numbers and block structure survive), the bodies of non-Python cell magics are
dropped from the Python code and kept as shell or R text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

_SHELL_CELL_MAGICS = {"bash", "sh", "script", "system"}
_R_CELL_MAGICS = {"R"}
# Cell magics whose body is still Python.
_PYTHON_CELL_MAGICS = {"time", "timeit", "capture", "prun", "debug", "memit", "px", "autopx"}
_ASSIGN_SHELL = re.compile(r"^(\s*)[A-Za-z_][\w.,\s]*=\s*[!%]")


@dataclass(frozen=True)
class Magic:
    line: int      # line within the cell, 1-based
    text: str      # the magic line as written
    kind: str      # 'shell' (!cmd, %%bash bodies), 'line' (%pip, %cd …), 'help' (obj?)

    @property
    def shell_command(self) -> str | None:
        """The shell command this magic runs, if any (``!wget …``, ``%pip install …``)."""
        stripped = self.text.strip()
        assign = re.match(r"^[A-Za-z_][\w.,\s]*=\s*!(.*)$", stripped)
        if assign:
            return assign.group(1).strip()
        if self.kind == "shell":
            return stripped[1:].strip() if stripped.startswith("!") else stripped
        if stripped.startswith(("%pip", "%conda", "%mamba")):
            return stripped[1:].strip()
        if stripped.startswith("%sx ") or stripped.startswith("%system "):
            return stripped.split(None, 1)[1]
        return None


def shell_commands(cell: Cell) -> tuple[tuple[int, str], ...]:
    """``(line, command)`` of each magic of ``cell`` that runs a shell command, its line
    within the cell plus the cell's ``line_offset`` (an R Markdown chunk's lines are the
    document's)."""
    return tuple((cell.line_offset + m.line, command) for m in cell.magics if (command := m.shell_command))


def other_language_lines(cell: Cell) -> tuple[tuple[int, str], ...]:
    """``(line, text)`` of the non-blank lines of a code cell in neither Python nor shell
    (R, Julia, another cell magic or kernel; a cell magic's first line included), lines
    within the cell plus its ``line_offset``; () for other cells."""
    if cell.cell_type != "code" or cell.language in ("python", "shell"):
        return ()
    return tuple((cell.line_offset + number, text) for number, text in enumerate(cell.source.splitlines(), start=1)
                 if text.strip())


@dataclass
class Cell:
    index: int                    # 1-based among all cells of the document
    cell_type: str                # code | markdown | raw
    source: str
    execution_count: int | None = None
    has_outputs: bool = False
    tags: tuple[str, ...] = ()
    # distinct output types in order (execute_result, display_data, error, stream:stdout,
    # stream:stderr; nbformat 3's pyout and pyerr read as execute_result and error)
    output_kinds: tuple[str, ...] = ()
    language: str = "python"      # for code cells: python | shell | r | julia | other
    python_source: str = ""       # code cells: source with magics neutralised
    magics: list[Magic] = field(default_factory=list)
    line_offset: int = 0          # Rmd/qmd: line of the chunk's first code line in the file, minus 1


@dataclass
class Notebook:
    path: str
    cells: list[Cell]
    nbformat: int | None
    language: str = "python"
    problems: list[str] = field(default_factory=list)

    @property
    def code_cells(self) -> list[Cell]:
        return [c for c in self.cells if c.cell_type == "code"]

    @property
    def markdown_cells(self) -> list[Cell]:
        return [c for c in self.cells if c.cell_type == "markdown"]


class NotebookError(ValueError):
    pass


def _join(source) -> str:
    if isinstance(source, list):
        return "".join(str(s) for s in source)
    return source if isinstance(source, str) else ""


def parse_notebook(text: str, path: str) -> Notebook:
    """Parse ``.ipynb`` JSON; raises NotebookError with a reason when it is not a notebook."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise NotebookError(f"invalid JSON: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(data, dict):
        raise NotebookError("not a notebook: top level is not an object")
    nbformat = data.get("nbformat") if isinstance(data.get("nbformat"), int) else None
    raw_cells: list = []
    if isinstance(data.get("cells"), list):
        raw_cells = data["cells"]
    elif isinstance(data.get("worksheets"), list):
        for sheet in data["worksheets"]:
            if isinstance(sheet, dict) and isinstance(sheet.get("cells"), list):
                raw_cells.extend(sheet["cells"])
    else:
        raise NotebookError("not a notebook: no 'cells' or 'worksheets'")
    meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    language = _kernel_language(meta)
    cells: list[Cell] = []
    for raw in raw_cells:
        if not isinstance(raw, dict):
            continue
        ctype = raw.get("cell_type")
        if ctype == "heading":  # nbformat 3
            ctype = "markdown"
        source = _join(raw.get("source", raw.get("input", "")))
        count = raw.get("execution_count", raw.get("prompt_number"))
        tags = raw.get("metadata", {}).get("tags", []) if isinstance(raw.get("metadata"), dict) else []
        cell = Cell(
            index=len(cells) + 1,
            cell_type=ctype if ctype in ("code", "markdown", "raw") else "raw",
            source=source,
            execution_count=count if isinstance(count, int) and not isinstance(count, bool) else None,
            has_outputs=bool(raw.get("outputs")),
            tags=tuple(t for t in tags if isinstance(t, str)) if isinstance(tags, list) else (),
            output_kinds=_output_kinds(raw.get("outputs")),
        )
        if cell.cell_type == "code":
            split_magics(cell, default_language=language)
        cells.append(cell)
    return Notebook(path=path, cells=cells, nbformat=nbformat, language=language)


_V3_OUTPUT_TYPES = {"pyout": "execute_result", "pyerr": "error"}


def _output_kinds(outputs) -> tuple[str, ...]:
    if not isinstance(outputs, list) or not outputs:
        return ()
    kinds: dict[str, None] = {}
    for output in outputs:
        if not isinstance(output, dict) or not isinstance(output.get("output_type"), str):
            continue
        kind = _V3_OUTPUT_TYPES.get(output["output_type"], output["output_type"])
        if kind == "stream":
            name = output.get("name", output.get("stream"))
            kind = f"stream:{name if isinstance(name, str) else 'stdout'}"
        kinds[kind] = None
    return tuple(kinds)


def _kernel_language(meta: dict) -> str:
    info = meta.get("language_info") if isinstance(meta.get("language_info"), dict) else {}
    kernel = meta.get("kernelspec") if isinstance(meta.get("kernelspec"), dict) else {}
    name = str(info.get("name") or kernel.get("language") or "python").lower()
    if name.startswith("python") or name in ("ipython", ""):
        return "python"
    if name == "r":
        return "r"
    if name.startswith("julia"):
        return "julia"
    return name


def split_magics(cell: Cell, default_language: str = "python") -> None:
    """Fill ``language``, ``python_source`` and ``magics`` of a code cell."""
    lines = cell.source.splitlines()
    cell.language = default_language
    if default_language != "python":
        cell.python_source = ""
        return
    if "%" not in cell.source and "!" not in cell.source and "?" not in cell.source:
        # Every magic form (%, %%, !, name = !cmd, name?) needs one of these characters.
        cell.python_source = "\n".join(lines)
        return
    if lines and lines[0].lstrip().startswith("%%"):
        magic_name = lines[0].lstrip()[2:].split(None, 1)[0] if lines[0].strip() != "%%" else ""
        head = lines[0].lstrip()[2:].split()
        if magic_name in _PYTHON_CELL_MAGICS:
            cell.magics.append(Magic(1, lines[0], "line"))
            lines = [""] + lines[1:]
        else:
            cell.magics.append(Magic(1, lines[0], "line"))
            if magic_name in _SHELL_CELL_MAGICS and (magic_name != "script" or (len(head) > 1 and head[1] in ("bash", "sh"))):
                cell.language = "shell"
                cell.magics.extend(Magic(i + 2, body, "shell") for i, body in enumerate(lines[1:]) if body.strip())
            elif magic_name in _R_CELL_MAGICS:
                cell.language = "r"
            else:
                cell.language = "other"
            cell.python_source = ""
            return
    out: list[str] = []
    continuation = False
    for number, line in enumerate(lines, start=1):
        stripped = line.lstrip()
        indent = line[: len(line) - len(stripped)]
        if continuation:
            # A line magic continued with a trailing backslash.
            out.append("")
            continuation = line.rstrip().endswith("\\")
            continue
        kind = None
        if stripped.startswith("!"):
            kind = "shell"
        elif stripped.startswith("%") and not stripped.startswith("%%"):
            kind = "line"
        elif _ASSIGN_SHELL.match(line):
            kind = "shell" if "!" in stripped.split("=", 1)[1][:2] else "line"
        elif stripped.rstrip().endswith("?") and not stripped.startswith("#") and re.match(r"^[\w.]+\?{1,2}$", stripped.rstrip()):
            kind = "help"
        if kind:
            cell.magics.append(Magic(number, line, kind))
            out.append(f"{indent}pass")
            continuation = line.rstrip().endswith("\\")
        else:
            out.append(line)
    cell.python_source = "\n".join(out)


_CHUNK_START = re.compile(r"^\s*```+\s*\{\s*([A-Za-z]+)([^}]*)\}\s*$")
_CHUNK_END = re.compile(r"^\s*```+\s*$")


def parse_rmarkdown(text: str, path: str) -> Notebook:
    """R Markdown / Quarto: code chunks become code cells, text between them markdown."""
    cells: list[Cell] = []
    lines = text.splitlines()
    prose: list[str] = []
    i = 0

    def flush_prose() -> None:
        body = "\n".join(prose).strip()
        if body:
            cells.append(Cell(index=len(cells) + 1, cell_type="markdown", source=body))
        prose.clear()

    while i < len(lines):
        match = _CHUNK_START.match(lines[i])
        if match:
            flush_prose()
            engine = match.group(1).lower()
            start = i + 1
            j = start
            while j < len(lines) and not _CHUNK_END.match(lines[j]):
                j += 1
            body = "\n".join(lines[start:j])
            language = {"r": "r", "python": "python", "bash": "shell", "sh": "shell", "julia": "julia"}.get(engine, "other")
            cell = Cell(index=len(cells) + 1, cell_type="code", source=body, language=language, line_offset=start)
            if language == "python":
                cell.python_source = body
            elif language == "shell":
                cell.magics.extend(Magic(k + 1, line, "shell") for k, line in enumerate(body.splitlines()) if line.strip())
            cells.append(cell)
            i = j + 1
            continue
        prose.append(lines[i])
        i += 1
    flush_prose()
    return Notebook(path=path, cells=cells, nbformat=None, language="r")


_JSON_STRING_LINE = re.compile(r'^\s*"((?:[^"\\]|\\.)*)",?\s*$')


def notebook_fallback_source(text: str) -> str:
    """Source lines recovered from an invalid notebook's JSON text, one per file line
    (lines that are not a lone JSON string become blank): what a line scan of a notebook
    that does not load can still read."""
    out = []
    for line in text.splitlines():
        match = _JSON_STRING_LINE.match(line)
        if match is None:
            out.append("")
            continue
        try:
            decoded = json.loads(f'"{match.group(1)}"')
        except ValueError:
            decoded = match.group(1)
        out.append(decoded.rstrip("\n").replace("\n", " "))
    return "\n".join(out)
