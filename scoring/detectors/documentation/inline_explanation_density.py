"""D4 inline_explanation_density: code is explained (markdown cells, comments, docstrings)."""

from __future__ import annotations

import ast
import io
import re
import sys
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass

from scoring.model import Evidence
from scoring.parsers.notebook import Notebook
from scoring.registry import Result, detector
from scoring.tree import TreeIndex


def _join(items: Sequence[str], limit: int = 4) -> str:
    shown = ", ".join(items[:limit])
    return shown + (", …" if len(items) > limit else "")


_MD_CELL_MIN_CHARS = 10
_NB_TARGET = 0.5      # one explanatory markdown cell per two code cells
_SCRIPT_TARGET = 0.20  # one comment line in five non-blank lines
_CELL_MARKER = re.compile(
    r"^\s*#\s*(?:%%|In\s*\[[\d\s]*\]\s*:?\s*$|<(?:codecell|markdowncell|rawcell)>|COMMAND\s*-{3,})", re.IGNORECASE)
_CODING_COOKIE = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+")
_FRONT_MATTER = re.compile(r"\A\s*---\s*\n.*?\n---\s*(?:\n|\Z)", re.DOTALL)


@dataclass
class _ScriptDensity:
    path: str
    nonblank: int
    comments: int
    gap: tuple[int, int] | None   # longest stretch of code lines without a comment

    @property
    def ratio(self) -> float:
        return self.comments / self.nonblank if self.nonblank else 0.0


@dataclass
class _NotebookDensity:
    path: str
    markdown: int
    code: int
    gap: tuple[int, int] | None   # first and last cell of the longest unexplained code run

    @property
    def ratio(self) -> float:
        return self.markdown / self.code if self.code else 0.0


def _is_marker_comment(line_no: int, text: str) -> bool:
    """Shebangs, encoding cookies and cell markers are comments that explain nothing."""
    if line_no == 1 and text.lstrip().startswith("#!"):
        return True
    if line_no <= 2 and _CODING_COOKIE.match(text):
        return True
    return _CELL_MARKER.match(text) is not None


def _all_but(excluded: str) -> str:
    """A regex class of every character except ``excluded``, spelled as ranges: sre tests
    a negated class of literals (``[^#"']``) literal by literal, but compiles ranges to
    a lookup table, which makes the comment scan below twice as fast."""
    ranges = []
    low = 0
    for code in sorted(map(ord, excluded)):
        if code > low:
            ranges.append(f"\\U{low:08x}-\\U{code - 1:08x}")
        low = code + 1
    ranges.append(f"\\U{low:08x}-\\U{sys.maxunicode:08x}")
    return "[" + "".join(ranges) + "]"


# [^#"'] (code), then the characters a """…""", '''…''', "…" or '…' literal runs over.
_CODE_CHAR = _all_but("#\"'")
_TRIPLE_DOUBLE_CHAR = _all_but('"\\')
_TRIPLE_SINGLE_CHAR = _all_but("'\\")
_DOUBLE_CHAR = _all_but('"\\\n')
_SINGLE_CHAR = _all_but("'\\\n")
# Python string literals. Prefixes are not matched: they never change where a literal
# ends. Quantifiers are possessive so an unterminated string cannot trigger
# catastrophic backtracking.
_PY_STRING = (
    rf'"{{3}}(?:{_TRIPLE_DOUBLE_CHAR}++|\\[\s\S]|"(?!""))*+"{{3}}'
    rf"|'{{3}}(?:{_TRIPLE_SINGLE_CHAR}++|\\[\s\S]|'(?!''))*+'{{3}}"
    rf'|"(?:{_DOUBLE_CHAR}++|\\[\s\S])*+"'
    rf"|'(?:{_SINGLE_CHAR}++|\\[\s\S])*+'"
)
# Each match consumes code and whole string literals up to the next comment (group 1)
# or the end of the text, so a ``#`` inside a string is never a comment and the Python
# loop visits comments only: the tokenizer's comment lines at a fraction of its cost.
# A stray quote is consumed as code, and matching at the end keeps the scan linear.
_PY_NEXT_COMMENT = re.compile(rf"(?:{_CODE_CHAR}++|{_PY_STRING}|[\"'])*+(?:(#)|\Z)")
_DOC_OWNERS = frozenset({ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})
_TRY_LISTS = ("body", "handlers", "orelse", "finalbody")
# The statement lists of every statement that holds statements; any other statement is
# a leaf for the docstring walk. Naming the lists per type spares probing absent fields.
_STATEMENT_LISTS: dict[type, tuple[str, ...]] = {
    ast.Module: ("body",), ast.FunctionDef: ("body",), ast.AsyncFunctionDef: ("body",), ast.ClassDef: ("body",),
    ast.If: ("body", "orelse"), ast.For: ("body", "orelse"), ast.AsyncFor: ("body", "orelse"),
    ast.While: ("body", "orelse"), ast.With: ("body",), ast.AsyncWith: ("body",),
    ast.Try: _TRY_LISTS, ast.TryStar: _TRY_LISTS, ast.ExceptHandler: ("body",),
    ast.Match: ("cases",), ast.match_case: ("body",),
}


def _python_comment_lines(source: str, lines: list[str]) -> set[int]:
    found: set[int] = set()
    if "#" not in source:
        return found
    line = 1
    position = 0
    for match in _PY_NEXT_COMMENT.finditer(source):
        at = match.start(1)
        if at < 0:
            break
        line += source.count("\n", position, at)
        position = at
        if not _is_marker_comment(line, lines[line - 1] if line <= len(lines) else ""):
            found.add(line)
    return found


def _ast_docstring_lines(module: ast.Module) -> set[int]:
    """Lines of module, class and function docstrings. Only statement bodies are walked:
    docstrings never sit inside expressions, and skipping those is most of the cost."""
    found: set[int] = set()
    stack: list[ast.AST] = [module]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind in _DOC_OWNERS and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                found.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
        for field_name in _STATEMENT_LISTS[kind]:
            for child in getattr(node, field_name):
                if type(child) in _STATEMENT_LISTS:
                    stack.append(child)
    return found


def _python_explained_lines(tree: TreeIndex, path: str) -> tuple[list[str], set[int]]:
    unit = tree.python_unit(path)
    if unit is None:
        return [], set()
    lines = unit.lines
    commented = _python_comment_lines(unit.source, lines)
    if unit.tree is not None:
        commented |= _ast_docstring_lines(unit.tree)
    else:
        commented |= _docstring_lines_by_tokens(unit.source)
    return lines, commented


def _docstring_lines_by_tokens(source: str) -> set[int]:
    """Docstring lines of code that does not parse (Python 2): a string statement that
    opens the module or follows a ``def``/``class`` header."""
    found: set[int] = set()
    at_statement_start = True
    after_header = True          # the module start counts as a header
    header_pending = False
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING):
                continue
            if tok.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
                if tok.type == tokenize.NEWLINE:
                    after_header = header_pending
                    header_pending = False
                at_statement_start = True
                continue
            if at_statement_start:
                if tok.type == tokenize.STRING and after_header:
                    found.update(range(tok.start[0], tok.end[0] + 1))
                header_pending = tok.type == tokenize.NAME and tok.string in ("def", "class", "async")
                after_header = False
                at_statement_start = False
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return found


def _hash_comment_lines(lines: list[str], *, shell: bool, julia: bool) -> set[int]:
    """Lines holding a ``#`` comment outside quotes (R, Julia, shell); Julia ``#= =#``
    blocks included. In shell a comment starts a word (``$#`` and ``${#x}`` are not)."""
    commented: set[int] = set()
    depth = 0
    for number, line in enumerate(lines, start=1):
        if depth:
            commented.add(number)
        elif "#" not in line:
            continue
        quote = ""
        i = 0
        while i < len(line):
            ch = line[i]
            if depth:
                if line.startswith("=#", i):
                    depth -= 1
                    i += 2
                    continue
                if line.startswith("#=", i):
                    depth += 1
                    i += 2
                    continue
            elif quote:
                if ch == "\\":
                    i += 2
                    continue
                if ch == quote:
                    quote = ""
            elif ch in ("'", '"') and not (julia and ch == "'"):
                quote = ch
            elif ch == "#" and (not shell or i == 0 or line[i - 1] in " \t;|&("):
                if julia and line.startswith("#=", i):
                    depth += 1
                    commented.add(number)
                    i += 2
                    continue
                if not _is_marker_comment(number, line):
                    commented.add(number)
                break
            i += 1
    return commented


def _script_density(tree: TreeIndex, path: str, kind: str) -> _ScriptDensity | None:
    if kind == "python":
        lines, commented = _python_explained_lines(tree, path)
    else:
        lines = tree.lines(path)
        commented = _hash_comment_lines(lines, shell=kind == "shell", julia=kind == "julia")
    if not lines:
        return None
    # One pass: non-blank and explained line counts, and the longest run of non-blank
    # lines with no explanation (the evidence a reader is pointed to).
    nonblank = comments = 0
    best: tuple[int, int] | None = None
    start = None
    for number, line in enumerate(lines, start=1):
        if not line or line.isspace():
            continue
        nonblank += 1
        if number in commented:
            comments += 1
            start = None
            continue
        if start is None:
            start = number
        if best is None or number - start > best[1] - best[0]:
            best = (start, number)
    if not nonblank:
        return None
    return _ScriptDensity(path, nonblank, comments, best)


def _markdown_text(nb: Notebook, index: int, source: str) -> str:
    if index == 0 and nb.path.lower().endswith((".rmd", ".qmd")):
        # R Markdown / Quarto: the YAML front matter is metadata, not explanation.
        source = _FRONT_MATTER.sub("", source, count=1)
    return source.strip()


def _notebook_density(nb: Notebook) -> _NotebookDensity | None:
    code = 0
    markdown = 0
    run: list[int] = []
    best: tuple[int, int] | None = None
    for position, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            code += 1
            run.append(cell.index)
            if best is None or run[-1] - run[0] > best[1] - best[0]:
                best = (run[0], run[-1])
        elif cell.cell_type == "markdown" and len(_markdown_text(nb, position, cell.source)) >= _MD_CELL_MIN_CHARS:
            markdown += 1
            run = []
    if code == 0:
        return None
    return _NotebookDensity(nb.path, markdown, code, best)


@detector("inline_explanation_density", version="2.0.0")
def inline_explanation_density(tree: TreeIndex) -> Result:
    """Code is explained: markdown cells in notebooks, comments and docstrings in scripts.

    What it checks:
        Notebook part over every .ipynb, .Rmd and .qmd (R Markdown/Quarto text between
        chunks is markdown, the YAML front matter is not): nb = min(md / code / 0.5, 1) ·
        100 with md = markdown cells of at least 10 non-blank characters and code = code
        cells; notebooks without code cells drop out. Script part over every .py/.pyw,
        .R/.r, .jl and .sh/.bash: sc = min(comment lines / non-blank lines / 0.20, 1) ·
        100, where a comment line holds a tokenizer comment (shebang, encoding cookie and
        `# %%`/`# In[ ]:` cell markers excluded) or a docstring line (Python); R counts
        `#` and roxygen `#'`, Julia `#` and `#= =#` blocks, shell `#`. Both parts → round
        (0.6·nb + 0.4·sc, 1); one part → that part rounded to 1 decimal; neither (no
        such files, or only notebooks without code cells and blank scripts) → 50, not
        applicable.
    Why it matters:
        Readers reuse code they can follow; a notebook of bare code cells or an
        uncommented script hides the intent of each analysis step.
    Evidence:
        The three least explained scripts (with the longest stretch of lines without a
        comment) and notebooks (with the longest run of code cells without an
        explanatory markdown cell). ``counts`` has md_cells, code_cells, comment_lines,
        nonblank_lines, the file counts and both parts.
    How to fix:
        Aim for at least one explanatory markdown cell per two code cells and about one
        comment or docstring line per five lines of code, starting with the files listed.
    Known false positives:
        Commented-out code, licence headers and separator lines (`# -----`) count as
        comments; a markdown cell of ten characters (a heading) counts as explanation.
        Density is not quality: boilerplate docstrings score like good ones.
    """
    scripts: list[_ScriptDensity] = []
    for kind in ("python", "r", "julia", "shell"):
        for path in tree.by_type(kind):
            density = _script_density(tree, path, kind)
            if density is not None:
                scripts.append(density)
    notebooks: list[_NotebookDensity] = []
    for path in tree.by_type("notebook") + tree.by_type("rmd"):
        nb = tree.notebook(path)
        density = _notebook_density(nb) if nb is not None else None
        if density is not None:
            notebooks.append(density)
    md_cells = sum(n.markdown for n in notebooks)
    code_cells = sum(n.code for n in notebooks)
    comment_lines = sum(s.comments for s in scripts)
    nonblank_lines = sum(s.nonblank for s in scripts)
    nb_part = min(md_cells / code_cells / _NB_TARGET, 1.0) * 100 if code_cells else None
    sc_part = min(comment_lines / nonblank_lines / _SCRIPT_TARGET, 1.0) * 100 if nonblank_lines else None
    counts = {
        "md_cells": md_cells, "code_cells": code_cells, "comment_lines": comment_lines,
        "nonblank_lines": nonblank_lines, "notebooks": len(notebooks), "scripts": len(scripts),
        "notebook_part": None if nb_part is None else round(nb_part, 2),
        "script_part": None if sc_part is None else round(sc_part, 2),
    }
    if nb_part is None and sc_part is None:
        return Result(50, applicable=False, counts=counts,
                      reason="no notebook with code cells and no non-blank script")
    if nb_part is not None and sc_part is not None:
        value = round(0.6 * nb_part + 0.4 * sc_part, 1)
    else:
        value = round(nb_part if nb_part is not None else sc_part, 1)
    evidence: list[Evidence] = []
    worst_notebooks = sorted((n for n in notebooks if n.ratio < _NB_TARGET), key=lambda n: (n.ratio, n.path))[:3]
    for n in worst_notebooks:
        first, last = n.gap or (None, None)
        evidence.append(Evidence(
            n.path, f"{n.markdown} explanatory markdown cell(s) for {n.code} code cells"
            + (f"; cells {first}–{last} are code without explanation" if first else ""),
            rule="inline_explanation_density.notebook", cell=first,
        ))
    worst_scripts = sorted((s for s in scripts if s.ratio < _SCRIPT_TARGET), key=lambda s: (s.ratio, s.path))[:3]
    for s in worst_scripts:
        start, end = s.gap or (None, None)
        evidence.append(Evidence(
            s.path, f"{s.comments} comment line(s) in {s.nonblank} non-blank lines ({100 * s.ratio:.1f} %)"
            + (f"; lines {start}–{end} have no comment" if start else ""),
            rule="inline_explanation_density.script", line_start=start, line_end=end,
        ))
    fix = None
    if value < 100:
        targets = [e.path for e in evidence if e.path]
        fix = ("Add explanatory markdown cells (one per two code cells) and comments or docstrings "
               f"(one line in five) to {_join(targets, 3) or 'the code'}.")
    parts = []
    if nb_part is not None:
        parts.append(f"notebooks {md_cells} md / {code_cells} code cells → {nb_part:.1f}")
    if sc_part is not None:
        parts.append(f"scripts {comment_lines} / {nonblank_lines} comment lines → {sc_part:.1f}")
    return Result(value, evidence=evidence, fix=fix, counts=counts, reason="; ".join(parts))
