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
import warnings
from dataclasses import dataclass, field
from functools import cached_property

_IMPORT_FALLBACK = re.compile(r"^[ \t]*(?:from\s+([\w.]+)\s+import|import\s+([\w.]+(?:\s*,\s*[\w.]+)*))", re.MULTILINE)


def parse_source(source: str, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse`` without the warnings the compiler gives on the way.

    Deposit code is data here: its invalid escape sequences (``"\\d"``) are its authors'
    business, not a scorer's output (Python 3.12+ prints them as SyntaxWarning, 3.11
    as DeprecationWarning), and a warning filter set to error (``python -W error``) must
    not turn them into parse failures that would change a score.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        return ast.parse(source, filename)


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
            unit.tree = parse_source(source)
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
    def _facts(self) -> _Facts:
        """One walk over the AST collecting what every view needs (walks dominate cost)."""
        return _collect_facts(self.tree) if self.tree is not None else _Facts()

    @property
    def docstring_nodes(self) -> set[int]:
        return self._facts.docstrings

    @cached_property
    def string_literals(self) -> list[StringLiteral]:
        """String constants (f-string parts included), docstrings excluded."""
        if self.tree is None:
            return self._fallback_strings()
        facts = self._facts
        out = [
            StringLiteral(node.value, node.lineno, getattr(node, "end_lineno", None) or node.lineno, facts.contexts.get(id(node), ""))
            for node in facts.strings
            if id(node) not in facts.docstrings
        ]
        out.sort(key=lambda s: (s.line_start, s.value))
        return out

    @property
    def _binding_contexts(self) -> dict[int, str]:
        """Map string-constant nodes to the name they are bound to (assignments, dict keys, keywords)."""
        return self._facts.contexts

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
        return sorted(self._facts.imports, key=lambda r: (r.line, r.module))

    @cached_property
    def aliases(self) -> dict[str, str]:
        """Local name → fully dotted name, from import statements."""
        return self._facts.aliases

    @property
    def call_nodes(self) -> list[ast.Call]:
        """Every ``ast.Call`` of the unit, unsorted (cheaper than :attr:`calls`)."""
        return self._facts.calls

    @cached_property
    def calls(self) -> list[Call]:
        if self.tree is None:
            return []
        out = []
        aliases = self.aliases
        for node in self._facts.calls:
            written = dotted_name(node.func)
            if not written:
                continue
            head, _, rest = written.partition(".")
            resolved = aliases.get(head, head)
            out.append(Call(f"{resolved}.{rest}" if rest else resolved, written, node.lineno, node))
        out.sort(key=lambda c: (c.line, c.name))
        return out


@dataclass
class _Facts:
    docstrings: set[int] = field(default_factory=set)
    strings: list[ast.Constant] = field(default_factory=list)
    contexts: dict[int, str] = field(default_factory=dict)
    imports: list[ImportRef] = field(default_factory=list)
    aliases: dict[str, str] = field(default_factory=dict)
    calls: list[ast.Call] = field(default_factory=list)


_SCOPES = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _collect_facts(tree: ast.Module) -> _Facts:
    facts = _Facts()
    stack: list[ast.AST] = [tree]
    pop, push, extend = stack.pop, stack.append, stack.extend
    AST, Constant, Call_, Import, ImportFrom = ast.AST, ast.Constant, ast.Call, ast.Import, ast.ImportFrom
    Assign, AnnAssign, Dict = ast.Assign, ast.AnnAssign, ast.Dict
    while stack:
        node = pop()
        kind = type(node)
        if kind is Constant:
            if isinstance(node.value, str):
                facts.strings.append(node)
            continue
        if kind is Call_:
            facts.calls.append(node)
            for kw in node.keywords:
                if kw.arg:
                    for sub in _string_nodes(kw.value):
                        facts.contexts[id(sub)] = kw.arg
        elif kind is Import:
            for alias in node.names:
                facts.imports.append(ImportRef(alias.name, node.lineno))
                if alias.asname:
                    facts.aliases[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    facts.aliases.setdefault(top, top)
        elif kind is ImportFrom:
            facts.imports.append(ImportRef(node.module or "", node.lineno, node.level or 0))
            if node.module and not node.level:
                for alias in node.names:
                    if alias.name != "*":
                        facts.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif kind is Assign or kind is AnnAssign:
            targets = node.targets if kind is Assign else [node.target]
            name = next((n for n in map(_target_name, targets) if n), "")
            if name and node.value is not None:
                for sub in _string_nodes(node.value):
                    facts.contexts[id(sub)] = name
        elif kind is Dict:
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, Constant) and isinstance(key.value, str):
                    for sub in _string_nodes(value):
                        facts.contexts[id(sub)] = key.value
        if isinstance(node, _SCOPES):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, Constant) and isinstance(body[0].value.value, str):
                facts.docstrings.add(id(body[0].value))
        fields = _CHILD_FIELDS.get(kind)
        if fields is None:
            fields = _CHILD_FIELDS[kind] = tuple(f for f in kind._fields if f not in _LEAF_FIELDS)
        for name in fields:
            value = getattr(node, name, None)
            if type(value) is list:
                extend(v for v in value if isinstance(v, AST))
            elif isinstance(value, AST):
                push(value)
    return facts


# Expression contexts and operators carry nothing any view needs; skipping them saves a
# third of the nodes of a typical module.
_LEAF_FIELDS = frozenset({"ctx", "op"})
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


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
