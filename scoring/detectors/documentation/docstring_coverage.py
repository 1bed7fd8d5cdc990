"""D6 docstring_coverage: public Python functions, classes and methods have docstrings."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass

from scoring.detectors.documentation._common import MAX_EVIDENCE
from scoring.model import Evidence
from scoring.registry import Result, detector
from scoring.tree import TreeIndex


@dataclass(frozen=True)
class _Undocumented:
    """A public definition without a docstring."""

    path: str
    name: str
    line: int
    header: str


_SKIP_DECORATORS = re.compile(r"(?:typing\.)?overload|\w+\.(?:setter|deleter)")


def _decorator_text(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except (ValueError, TypeError, AttributeError, RecursionError):
        return ""


def _skipped_by_decorator(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """``@overload`` stubs and property setters/deleters share the main definition's docs."""
    if not node.decorator_list:
        return False
    return any(_SKIP_DECORATORS.fullmatch(_decorator_text(d)) for d in node.decorator_list)


def _module_level_defs(body: Iterable[ast.stmt]) -> Iterable[ast.stmt]:
    """Definitions at module scope, also inside module-level if/try/with blocks."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node
        elif isinstance(node, (ast.If, ast.Try, ast.With, ast.AsyncWith)) or type(node).__name__ == "TryStar":
            for field_name in ("body", "orelse", "finalbody"):
                yield from _module_level_defs(getattr(node, field_name, []) or [])
            for handler in getattr(node, "handlers", []) or []:
                yield from _module_level_defs(handler.body)


def _has_docstring(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> bool:
    """Whether ``node`` has a non-blank docstring (what ``ast.get_docstring`` reads,
    without its function call and ``ast.Str`` compatibility check per definition)."""
    first = node.body[0] if node.body else None
    return isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
        and isinstance(first.value.value, str) and bool(first.value.value.strip())


def _ast_definitions(path: str, tree_: ast.Module, lines: list[str]) -> tuple[int, list[_Undocumented]]:
    """The number of public definitions in ``tree_`` and those without a docstring."""
    public = 0
    undocumented: list[_Undocumented] = []

    def add(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        nonlocal public
        public += 1
        if not _has_docstring(node):
            header = lines[node.lineno - 1].strip() if 0 < node.lineno <= len(lines) else node.name
            undocumented.append(_Undocumented(path, node.name, node.lineno, header))

    for node in _module_level_defs(tree_.body):
        if node.name.startswith("_"):
            continue
        if isinstance(node, ast.ClassDef):
            add(node)
            for member in node.body:
                if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)) and not member.name.startswith("_") \
                        and not _skipped_by_decorator(member):
                    add(member)
        elif not _skipped_by_decorator(node):
            add(node)
    return public, undocumented


_DEF_LINE = re.compile(r"^(?P<indent>[ \t]*)(?:async[ \t]+)?(?P<kind>def|class)[ \t]+(?P<name>\w+)")
_DOCSTRING_START = re.compile(r"""^[ \t]*[rRuUbB]{0,2}(?:\"\"\"|'''|"|')""")


def _regex_definitions(path: str, lines: list[str]) -> tuple[int, list[_Undocumented]]:
    """The number of public definitions of a file that does not parse (Python 2), and
    those without a docstring: column-0 defs and classes, and defs one level inside a
    public column-0 class."""
    public = 0
    undocumented: list[_Undocumented] = []
    public_class = False
    method_indent: str | None = None
    for index, line in enumerate(lines):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _DEF_LINE.match(line)
        indent = line[: len(line) - len(line.lstrip())]
        if not indent:
            public_class = False
            method_indent = None
        if match is None:
            if public_class and method_indent is None and indent:
                method_indent = indent
            continue
        name = match.group("name")
        if not indent:
            public_class = match.group("kind") == "class" and not name.startswith("_")
        elif not (public_class and (method_indent is None or indent == method_indent) and match.group("kind") == "def"):
            continue
        else:
            method_indent = indent
        if name.startswith("_"):
            continue
        public += 1
        if not _regex_documented(lines, index):
            undocumented.append(_Undocumented(path, name, index + 1, line.strip()))
    return public, undocumented


def _regex_documented(lines: list[str], index: int) -> bool:
    """Whether the statement after the header starting at ``index`` is a string."""
    depth = 0
    for j in range(index, min(len(lines), index + 50)):
        code = lines[j].split("#", 1)[0]
        depth += code.count("(") + code.count("[") - code.count(")") - code.count("]")
        if depth <= 0 and code.rstrip().endswith(":"):
            following = next((line for line in lines[j + 1:j + 5] if line.strip()), "")
            return _DOCSTRING_START.match(following) is not None
    return False


@detector("docstring_coverage", version="2.0.0")
def docstring_coverage(tree: TreeIndex) -> Result:
    """Public Python functions, classes and methods have docstrings.

    What it checks:
        Every .py/.pyw file is parsed with ast (files that do not parse, such as Python 2
        code, fall back to a line scan). Public definitions are module-level functions
        and classes whose name does not start with "_" (also inside module-level
        if/try/with blocks) and the methods of public classes whose name does not start
        with "_" (dunder methods excluded); @overload stubs and property setters/deleters
        are skipped. Value = 100 × documented / public, where documented means a
        non-empty docstring. No public definition in any file → 50, not applicable.
        Notebooks and R roxygen are not counted (§0.1.26).
    Why it matters:
        Docstrings tell a re-user what a function expects and returns without reading
        its body; they are the smallest unit of API documentation.
    Evidence:
        The first undocumented public definitions (path, line, signature line), up to
        20. ``counts`` has public_defs, documented_defs, files and files_unparsed.
    How to fix:
        Add a docstring to each public function, class and method listed, stating what
        it does, its parameters and its return value.
    Known false positives:
        A one-word docstring counts as documented. Functions that are public only by
        naming (helpers in a script) are expected to be documented too. In files that do
        not parse, definitions inside if/try blocks are missed.
    """
    public = 0
    missing: list[_Undocumented] = []
    files = unparsed = 0
    for path in tree.by_type("python"):
        unit = tree.python_unit(path)
        if unit is None:
            continue
        files += 1
        if unit.tree is not None:
            found, undocumented = _ast_definitions(path, unit.tree, unit.lines)
        else:
            unparsed += 1
            found, undocumented = _regex_definitions(path, unit.lines)
        public += found
        missing.extend(undocumented)
    documented = public - len(missing)
    counts = {"public_defs": public, "documented_defs": documented, "files": files,
              "files_unparsed": unparsed}
    if not public:
        reason = "no Python files" if files == 0 else "no public Python definitions"
        return Result(50, applicable=False, counts=counts, reason=reason)
    value = 100 * documented / public
    evidence = [Evidence(d.path, f"public definition '{d.name}' has no docstring",
                         rule="docstring_coverage.undocumented", line_start=d.line, snippet=d.header)
                for d in missing[:MAX_EVIDENCE]]
    fix = None
    if missing:
        first = missing[0]
        fix = (f"Add docstrings to the {len(missing)} undocumented public definition(s), "
               f"starting with '{first.name}' in {first.path}:{first.line}.")
    return Result(value, evidence=evidence, fix=fix, counts=counts,
                  reason=f"{documented} of {public} public definitions documented")
