"""What the category C detectors share: the files C1 and C3 scan (code files with their
frontend's facts; shell, parameter and ``.env`` files read line by line by
``TreeIndex.line_file``), located hits and their evidence. Credential verdicts and snippet
masking are :mod:`scoring.parsers.secrets`. C2 reads ImportFacts and InstallFacts, C4
HandlerFacts.

Still here until C3 reads credentials from the frontends' facts: C3's code segments of
Python, notebook, R and Julia files (``file_segments``: the Python CodeUnits, the R/Julia
tokenizer ``_lex``, the Python literal bindings), derived per file and shared by content
across the trees measured with one facts cache (``TreeIndex._cached(..., shared=True)``).
"""

from __future__ import annotations

import ast
import re
import weakref
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import NamedTuple

from scoring.facts import FileFacts
from scoring.model import Evidence
from scoring.parsers.linefiles import LineFile, parameter_format
from scoring.parsers.notebook import Cell, notebook_fallback_source
from scoring.parsers.python import CodeUnit
from scoring.parsers.secrets import unescape
from scoring.tree import TreeIndex

# Evidence lists stay short enough to read; totals always go to ``counts``.
MAX_EVIDENCE = 20
# Located hits reported per file before moving on to the next file.
_HITS_PER_FILE = 3


def _join(items: Sequence[str], limit: int = 5) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _line_at(lines: Sequence[str], line: int) -> str:
    return lines[line - 1] if 0 < line <= len(lines) else ""


# --------------------------------------------------------------------------- R / Julia tokens

class _Tok(NamedTuple):
    kind: str     # name | str | num | op | nl
    text: str     # as written; for ``str`` the decoded value
    line: int     # 1-based line of the token's first character within its segment


_R_TOKEN_RE = re.compile(
    r"""[ \t\r\f\v]*(?:
      (?P<nl>\n)
    | (?P<comment>\#[^\n]*)
    | (?P<raw>[rR](?P<rq>["'])(?P<dash>-*)(?P<open>[(\[{]))
    | (?P<str>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
    | (?P<name>`[^`\n]*`|(?:[A-Za-z]|\.(?![0-9]))[\w.]*)
    | (?P<num>(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)[Li]?)
    | (?P<op><<-|->>|<-|->|==|!=|<=|>=|&&|\|\||:::|::|\|>|%[^%\n]*%|\S)
    )""",
    re.VERBOSE | re.DOTALL,
)
_RAW_CLOSE = {"(": ")", "[": "]", "{": "}"}

_JULIA_TOKEN_RE = re.compile(
    r"""[ \t\r\f\v]*(?:
      (?P<nl>\n)
    | (?P<comment>\#=.*?(?:=\#|\Z)|\#[^\n]*)
    | (?P<str>\"\"\".*?(?:\"\"\"|\Z)|"(?:[^"\\]|\\.)*")
    | (?P<chr>'(?:\\.|[^'\\\n])')
    | (?P<name>[^\W\d][\w!]*)
    | (?P<num>\d[\w.]*)
    | (?P<op>=>|==|!=|<=|>=|&&|\|\||::|->|\.\.\.|\S)
    )""",
    re.VERBOSE | re.DOTALL,
)


def _lex(text: str, language: str) -> list[_Tok]:
    """Tokens of R or Julia code: names, decoded strings, numbers, operators and
    newlines; comments dropped. Unterminated constructs degrade to single-character
    operators, so any text tokenizes."""
    regex = _R_TOKEN_RE if language == "r" else _JULIA_TOKEN_RE
    tokens: list[_Tok] = []
    pos, line, end = 0, 1, len(text)
    while pos < end:
        match = regex.match(text, pos)
        if match is None or match.end() == pos:
            break
        kind = match.lastgroup
        if kind == "raw":
            # R raw string r"(...)" closes with the mirrored bracket, dashes and quote.
            closing = _RAW_CLOSE[match.group("open")] + match.group("dash") + match.group("rq")
            close_at = text.find(closing, match.end())
            stop = end if close_at < 0 else close_at + len(closing)
            value = text[match.end(): close_at if close_at >= 0 else end]
            tokens.append(_Tok("str", value, line))
            line += text.count("\n", match.start(), stop)
            pos = stop
            continue
        group = match.group(kind) if kind else ""
        if kind == "nl":
            tokens.append(_Tok("nl", "\n", line))
            line += 1
        elif kind == "comment":
            line += group.count("\n")
        elif kind == "str":
            quote = 3 if group.startswith('"""') else 1
            closed = len(group) >= 2 * quote and group.endswith(group[:quote])
            raw_value = group[quote:-quote] if closed else group[quote:]
            tokens.append(_Tok("str", unescape(raw_value), line))
            line += group.count("\n")
        elif kind == "chr":
            tokens.append(_Tok("num", group, line))
        elif kind == "name":
            tokens.append(_Tok("name", group.strip("`"), line))
        elif kind in ("num", "op"):
            tokens.append(_Tok(kind, group, line))
        pos = match.end()
    return tokens


def _prev_index(tokens: Sequence[_Tok], index: int) -> int:
    """Index of the nearest token before ``index`` that is not a newline, or -1."""
    index -= 1
    while index >= 0 and tokens[index].kind == "nl":
        index -= 1
    return index


def _next_index(tokens: Sequence[_Tok], index: int) -> int:
    """Index of the nearest token after ``index`` that is not a newline, or len(tokens)."""
    index += 1
    while index < len(tokens) and tokens[index].kind == "nl":
        index += 1
    return index


# --------------------------------------------------------------------------- the scanned files

_CODE_KINDS = ("python", "notebook", "r", "rmd", "julia", "shell")

@dataclass
class _Segment:
    """A piece of one language inside a scanned file, with its position mapping.

    ``language`` is python, r, julia, shell or a parameter format (yaml, json, toml, ini,
    env). Lines are 1-based within the segment; evidence reports ``line + line_offset``
    and ``cell`` (Jupyter notebooks only: lines then count within the cell). A Python
    segment's ``text`` is its ``unit``'s source.
    """

    language: str
    text: str
    cell: int | None = None
    line_offset: int = 0
    unit: CodeUnit | None = None
    magic_lines: frozenset[int] = frozenset()   # python: lines that held a magic (now ``pass``)

    @cached_property
    def lines(self) -> list[str]:
        # A Python unit's lines are split once and shared with the other detectors.
        return self.unit.lines if self.unit is not None else self.text.splitlines()

    @property
    def word_text(self) -> str | None:
        """A Python segment's distinct words (``CodeUnit.word_text``): every string of word
        characters in ``text`` occurs there, in a fraction of the length. None otherwise."""
        return self.unit.word_text if self.unit is not None else None

    @cached_property
    def tokens(self) -> list[_Tok]:
        return _lex(self.text, self.language) if self.language in ("r", "julia") else []

    # The two Python views below feed one detector each, which reads them once: plain
    # methods, as caching would only add the cost of cached_property's lock.
    def python_bindings(self) -> list[tuple[str, ast.Constant]]:
        """Python literal bindings (C3); the AST is walked only when the text could hold one."""
        unit = self.unit
        if self.language != "python" or unit is None or unit.tree is None or not _may_bind_credential(unit):
            return []
        return [b for node in ast.walk(unit.tree) if isinstance(node, _BINDING_NODES) for b in _node_bindings(node)]

    def line_of_offset(self, offset: int) -> int:
        return self.text.count("\n", 0, offset) + 1


def file_segments(tree: TreeIndex, path: str, kind: str) -> list[_Segment]:
    """C3's code segments of one Python, notebook, R, R Markdown or Julia file, built
    from that file alone (what ``_code_segments`` holds for it), so a file's findings
    can be derived, and shared, by its content."""
    units_by_cell: dict[tuple[str, int], CodeUnit] = {}
    if kind not in ("python", "r", "julia"):
        notebook = tree.notebook(path)
        for cell in notebook.code_cells if notebook is not None else ():
            if cell.language == "python" or cell.magics:
                units_by_cell[(path, cell.index)] = CodeUnit.parse(
                    path, cell.python_source, cell=cell.index, line_offset=cell.line_offset, magics=cell.magics)
    return _code_file(tree, path, kind, units_by_cell) or []


def _cell_body(cell: Cell) -> tuple[str, int]:
    """A non-Python cell's code and its line shift (a leading ``%%R``/``%%bash`` line is dropped)."""
    lines = cell.source.splitlines()
    if lines and lines[0].lstrip().startswith("%%"):
        return "\n".join(lines[1:]), 1
    return cell.source, 0


def _python_segments(unit: CodeUnit, cell: int | None, offset: int) -> list[_Segment]:
    if not unit.magics:  # most units: skip building empty collections
        return [_Segment("python", unit.source, cell, offset, unit)]
    magic_lines = frozenset(m.line for m in unit.magics)
    segments = [_Segment("python", unit.source, cell, offset, unit, magic_lines)]
    # Magic lines are commands (``!wget …``, ``%cd /home/…``, ``%env KEY=…``): scan them as shell.
    segments.extend(_Segment("shell", m.text, cell, offset + m.line - 1) for m in unit.magics)
    return segments


def _code_file(tree: TreeIndex, path: str, kind: str,
               units_by_cell: dict[tuple[str, int], CodeUnit]) -> list[_Segment] | None:
    if kind == "python":
        unit = tree.python_unit(path)
        if unit is None:
            return None  # binary, unreadable or over the size limit: listed in inventory.skipped
        return _python_segments(unit, None, 0)
    if kind in ("r", "julia"):
        text = tree.text(path)
        return None if text is None else [_Segment(kind, text)]
    notebook = tree.notebook(path)
    if notebook is None:
        text = tree.text(path)
        if text is None:
            return None
        unit = CodeUnit.parse(path, notebook_fallback_source(text))
        return [_Segment("python", unit.source, None, 0, unit)]
    is_jupyter = kind == "notebook"
    segments: list[_Segment] = []
    for cell in notebook.code_cells:
        cell_no = cell.index if is_jupyter else None
        if cell.language == "python":
            unit = units_by_cell.get((path, cell.index))
            if unit is not None:
                segments.extend(_python_segments(unit, cell_no, cell.line_offset))
        elif cell.language in ("r", "julia", "shell"):
            body, shift = _cell_body(cell)
            segments.append(_Segment(cell.language, body, cell_no, cell.line_offset + shift))
    return segments


@dataclass(frozen=True)
class _File:
    """A file C1 and C3 scan: a code file with its frontend's facts, or a shell,
    parameter or ``.env`` file read line by line."""

    path: str
    kind: str                      # python, notebook, r, rmd, julia, shell, or a parameter format
    facts: FileFacts | None = None
    lines: LineFile | None = None

    @property
    def unparseable(self) -> bool:
        """A Python file or notebook that does not parse, read by the line scan instead."""
        facts = self.facts
        if facts is None or facts.parse_error is None or facts.language != "python":
            return False
        return self.kind == "python" or facts.parse_error.startswith("NotebookError")


_FILES: weakref.WeakKeyDictionary[TreeIndex, tuple[list[_File], list[_File]]] = weakref.WeakKeyDictionary()


def _files(tree: TreeIndex) -> tuple[list[_File], list[_File]]:
    """The scanned code files (sorted by path and kind) and parameter files (in path
    order) of the tree, once per tree. A file that is not read (binary, too large,
    unreadable) is not scanned."""
    cached = _FILES.get(tree)
    if cached is not None:
        return cached
    code: list[_File] = []
    for path, kind in sorted((path, code_kind) for code_kind in _CODE_KINDS for path in tree.by_type(code_kind)):
        if tree.role(path) == "vendored":
            continue   # in no code metric's denominator (METRICS §0.2.2)
        if kind == "shell":
            lines = tree.line_file(path, "shell")
            if lines is not None:
                code.append(_File(path, kind, lines=lines))
        elif (facts := tree.facts(path)) is not None:
            code.append(_File(path, kind, facts=facts))
        else:
            # no facts: binary or unreadable; reading its text records why in the
            # inventory's skipped list, as for every file the scanned set leaves out
            tree.text(path)
    parameters: list[_File] = []
    for path in tree.files:
        info = tree.info(path)
        if info is None or info.alias_of is not None or info.type in _CODE_KINDS:
            continue
        fmt = parameter_format(path)
        if fmt is not None and (lines := tree.line_file(path, fmt)) is not None:
            parameters.append(_File(path, fmt, lines=lines))
    found = _FILES[tree] = code, parameters
    return found


# C1 also reads the languages whose frontends give string literals but no credential
# rule (METRICS §0.3: workflow code is source for C1; MATLAB and native sources are
# where their machine paths are written)
_C1_FRONTENDS = ("matlab", "c_cpp", "fortran", "nextflow", "snakemake")


def _c1_frontend_files(tree: TreeIndex) -> list[_File]:
    """The MATLAB, C/C++, Fortran, Nextflow and Snakemake files C1 scans besides
    :func:`_files`'s, by path; ``kind`` is the frontend's name."""
    seen = {f.path for f in _files(tree)[0]}
    out = []
    for path, frontend in sorted((p, name) for name in _C1_FRONTENDS for p in tree.by_frontend(name)):
        if path in seen or tree.role(path) == "vendored":
            continue
        facts = tree.facts(path)
        if facts is not None:
            seen.add(path)
            out.append(_File(path, frontend, facts=facts))
    return out


# --------------------------------------------------------------------------- located hits

@dataclass(frozen=True)
class _Hit:
    path: str
    line: int
    rule: str
    reason: str
    snippet: str
    cell: int | None = None
    line_end: int | None = None

    def evidence(self) -> Evidence:
        return Evidence(self.path, self.reason, rule=self.rule, line_start=self.line,
                        line_end=self.line_end or self.line, snippet=self.snippet, cell=self.cell)


def _evidence(hits_by_file: dict[str, list[_Hit]], snippet_of: Callable[[_Hit], str] | None = None) -> list[Evidence]:
    """At most ``_HITS_PER_FILE`` hits per file, files in sorted order, ``MAX_EVIDENCE`` in all.
    ``snippet_of`` gives the snippet of a reported hit (fetched for these hits only)."""
    out: list[Evidence] = []
    for path in sorted(hits_by_file):
        for hit in hits_by_file[path][:_HITS_PER_FILE]:
            if len(out) >= MAX_EVIDENCE:
                return out
            if snippet_of is not None:
                hit = replace(hit, snippet=snippet_of(hit))
            out.append(hit.evidence())
    return out


def _ratio_value(bad: int, scanned: int) -> float:
    return max(0.0, 100.0 * (1 - bad / scanned))


# --------------------------------------------------------------------------- Python bindings (the segments' view for C3)

def _node_bindings(node: ast.AST) -> Iterator[tuple[str, ast.Constant]]:
    """``(bound name, string constant)`` for one assignment, annotated assignment, dict,
    call (keyword arguments, ``os.environ`` setters) or function (parameter defaults)."""
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        value = node.value
        if _is_str(value):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                name = _target_name(target)
                if name:
                    yield name, value
    elif isinstance(node, ast.Dict):
        for key, value in zip(node.keys, node.values, strict=True):
            if _is_str(key) and _is_str(value):
                yield key.value, value
    elif isinstance(node, ast.Call):
        for keyword in node.keywords:
            if keyword.arg and _is_str(keyword.value):
                yield keyword.arg, keyword.value
        if (isinstance(node.func, ast.Attribute) and node.func.attr in ("setdefault", "putenv", "setenv")
                and len(node.args) >= 2 and _is_str(node.args[0]) and _is_str(node.args[1])):
            yield node.args[0].value, node.args[1]
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        args = node.args
        positional = [*args.posonlyargs, *args.args]
        for arg, default in zip(positional[len(positional) - len(args.defaults):], args.defaults, strict=True):
            if _is_str(default):
                yield arg.arg, default
        for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
            if default is not None and _is_str(default):
                yield arg.arg, default


_BINDING_NODES = (ast.Assign, ast.AnnAssign, ast.Dict, ast.Call, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
# A Python literal bound to a credential-named key needs, somewhere in the text, a
# credential word followed by a binding and a quote: files without one skip the AST walk.
# Substring search plus an anchored match is much cheaper than a case-insensitive search.
_CREDENTIAL_WORDS_LOWER = ("password", "passwd", "pwd", "key", "secret", "token", "auth", "credentials", "credential")
_BINDING_TAIL_RE = re.compile(r"""["']?\s*(?:(?::[^=\n]{0,40})?=|:|,)\s*\(?\s*[rbuf]{0,2}["']""")


def _may_bind_credential(unit: CodeUnit) -> bool:
    # The credential words are letters only: the unit's distinct words, a fraction of the
    # source, tell which of them the source holds at all.
    words = unit.word_text.lower()
    present = [word for word in _CREDENTIAL_WORDS_LOWER if word in words]
    if not present:
        return False
    lowered = unit.source.lower()
    for word in present:
        start = lowered.find(word)
        while start >= 0:
            if _BINDING_TAIL_RE.match(lowered, start + len(word)):
                return True
            start = lowered.find(word, start + 1)
    return False


def _is_str(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _target_name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript) and _is_str(node.slice):
        return node.slice.value
    return ""
