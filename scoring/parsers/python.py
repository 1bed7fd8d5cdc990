"""Python code units: a ``.py`` file or one notebook code cell, parsed once.

Each unit keeps its source, its AST (``None`` when it does not parse, e.g. Python 2),
and lazily derived views shared by several detectors: string literals (docstrings
excluded), comments, imports and calls with their dotted names.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass, field
from functools import cached_property

_IMPORT_FALLBACK = re.compile(r"^\s*(?:from\s+([\w.]+)\s+import|import\s+([\w.]+(?:\s*,\s*[\w.]+)*))", re.MULTILINE)


@dataclass(frozen=True)
class StringLiteral:
    value: str
    line_start: int
    line_end: int
    context: str = ""   # name of the variable, key or keyword it is bound to, if any


@dataclass(frozen=True)
class ImportRef:
    module: str          # dotted module as written ("numpy", "sklearn.model_selection")
    line: int
    level: int = 0       # > 0 for relative imports

    @property
    def top(self) -> str:
        return self.module.split(".")[0]


@dataclass(frozen=True)
class Call:
    name: str            # dotted callee with import aliases resolved (np.random.seed -> numpy.random.seed)
    written: str         # dotted callee as written
    line: int
    node: ast.Call = field(compare=False, repr=False)


@dataclass
class CodeUnit:
    path: str
    source: str
    cell: int | None = None          # 1-based cell index for notebook cells
    line_offset: int = 0             # added to unit lines to get file lines (Rmd chunks)
    tree: ast.Module | None = None
    syntax_error: str | None = None
    magics: list = field(default_factory=list)   # notebook magics (parsers.notebook.Magic)

    @classmethod
    def parse(cls, path: str, source: str, *, cell: int | None = None, line_offset: int = 0, magics=None) -> CodeUnit:
        unit = cls(path=path, source=source, cell=cell, line_offset=line_offset, magics=list(magics or []))
        try:
            unit.tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            unit.syntax_error = f"{type(exc).__name__}: {getattr(exc, 'msg', exc)}"
        return unit

    @property
    def is_notebook(self) -> bool:
        return self.cell is not None

    @cached_property
    def lines(self) -> list[str]:
        return self.source.splitlines()

    def file_line(self, line: int) -> int:
        return line + self.line_offset

    @cached_property
    def docstring_nodes(self) -> set[int]:
        ids: set[int] = set()
        if self.tree is None:
            return ids
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                body = getattr(node, "body", [])
                if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                    ids.add(id(body[0].value))
        return ids

    @cached_property
    def string_literals(self) -> list[StringLiteral]:
        """String constants (f-string parts included), docstrings excluded."""
        if self.tree is None:
            return self._fallback_strings()
        out: list[StringLiteral] = []
        contexts = self._binding_contexts
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in self.docstring_nodes:
                out.append(StringLiteral(node.value, node.lineno, getattr(node, "end_lineno", node.lineno) or node.lineno, contexts.get(id(node), "")))
        out.sort(key=lambda s: (s.line_start, s.value))
        return out

    @cached_property
    def _binding_contexts(self) -> dict[int, str]:
        """Map string-constant nodes to the name they are bound to (assignments, dict keys, keywords)."""
        ctx: dict[int, str] = {}
        if self.tree is None:
            return ctx
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [_target_name(t) for t in targets]
                name = next((n for n in names if n), "")
                if name and node.value is not None:
                    for sub in _string_nodes(node.value):
                        ctx[id(sub)] = name
            elif isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values, strict=True):
                    if isinstance(key, ast.Constant) and isinstance(key.value, str):
                        for sub in _string_nodes(value):
                            ctx[id(sub)] = key.value
            elif isinstance(node, ast.Call):
                for kw in node.keywords:
                    if kw.arg:
                        for sub in _string_nodes(kw.value):
                            ctx[id(sub)] = kw.arg
        return ctx

    def _fallback_strings(self) -> list[StringLiteral]:
        out = []
        try:
            for tok in tokenize.generate_tokens(io.StringIO(self.source).readline):
                if tok.type == tokenize.STRING:
                    value = tok.string
                    stripped = re.sub(r"^[rRbBuUfF]*", "", value)
                    quote = stripped[:3] if stripped[:3] in ('"""', "'''") else stripped[:1]
                    out.append(StringLiteral(stripped[len(quote):-len(quote)] if len(stripped) >= 2 * len(quote) else stripped, tok.start[0], tok.end[0]))
        except (tokenize.TokenError, IndentationError, SyntaxError):
            for n, line in enumerate(self.lines, start=1):
                for match in re.finditer(r"""(["'])((?:\\.|(?!\1).)*)\1""", line):
                    out.append(StringLiteral(match.group(2), n, n))
        return out

    @cached_property
    def comments(self) -> list[tuple[int, str]]:
        """(line, text) of every comment token; falls back to line scanning."""
        found: list[tuple[int, str]] = []
        try:
            for tok in tokenize.generate_tokens(io.StringIO(self.source).readline):
                if tok.type == tokenize.COMMENT:
                    found.append((tok.start[0], tok.string))
        except (tokenize.TokenError, IndentationError, SyntaxError):
            found = [(n, line.strip()) for n, line in enumerate(self.lines, start=1) if line.lstrip().startswith("#")]
        return found

    @cached_property
    def imports(self) -> list[ImportRef]:
        if self.tree is None:
            refs = []
            for match in _IMPORT_FALLBACK.finditer(self.source):
                line = self.source.count("\n", 0, match.start()) + 1
                if match.group(1):
                    refs.append(ImportRef(match.group(1), line))
                else:
                    refs.extend(ImportRef(m.strip(), line) for m in match.group(2).split(","))
            return refs
        refs = []
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                refs.extend(ImportRef(alias.name, node.lineno) for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                refs.append(ImportRef(node.module or "", node.lineno, node.level or 0))
        refs.sort(key=lambda r: (r.line, r.module))
        return refs

    @cached_property
    def aliases(self) -> dict[str, str]:
        """Local name → fully dotted name, from import statements."""
        table: dict[str, str] = {}
        if self.tree is None:
            return table
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        table[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        table.setdefault(top, top)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    if alias.name != "*":
                        table[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        return table

    @cached_property
    def calls(self) -> list[Call]:
        if self.tree is None:
            return []
        out = []
        aliases = self.aliases
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call):
                written = dotted_name(node.func)
                if not written:
                    continue
                head, _, rest = written.partition(".")
                resolved = aliases.get(head, head)
                out.append(Call(f"{resolved}.{rest}" if rest else resolved, written, node.lineno, node))
        out.sort(key=lambda c: (c.line, c.name))
        return out


def dotted_name(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    if isinstance(node, ast.Call):
        # e.g. np.random.default_rng(0).normal -> keep the chain readable
        inner = dotted_name(node.func)
        if inner:
            parts.append(inner + "()")
            return ".".join(reversed(parts))
    return ""


def _target_name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        return node.slice.value
    return ""


def _string_nodes(node: ast.AST):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node
    elif isinstance(node, ast.JoinedStr):
        for value in node.values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                yield value
