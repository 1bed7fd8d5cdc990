"""D6 docstring_coverage: public Python functions, classes and methods have docstrings."""

from __future__ import annotations

import re
from dataclasses import dataclass

from scoring.detectors.documentation._common import MAX_EVIDENCE
from scoring.facts import FileFacts
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


# @overload stubs and property setters/deleters share the main definition's docs; the
# decorators are the frontend's dotted names, import aliases resolved
_SKIP_DECORATORS = re.compile(r"(?:typing\.)?overload|\w+\.(?:setter|deleter)")


def _skipped_by_decorator(decorators: tuple[str, ...]) -> bool:
    return any(_SKIP_DECORATORS.fullmatch(d) for d in decorators)


def _definitions(path: str, facts: FileFacts) -> tuple[int, list[_Undocumented]]:
    """The number of public definitions of one file's facts and those without a
    docstring (``DefinitionFact.public`` is this metric's reading of public)."""
    public = 0
    undocumented: list[_Undocumented] = []
    parsed = facts.parse_error is None
    for definition in facts.definitions:
        if not definition.public:
            continue
        if parsed and definition.kind != "class" and _skipped_by_decorator(definition.decorators):
            continue
        public += 1
        if not definition.documented:
            undocumented.append(_Undocumented(path, definition.name, definition.line,
                                              definition.header or definition.name))
    return public, undocumented


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
        facts = tree.facts(path)
        if facts is None:
            continue
        files += 1
        if facts.parse_error is not None:
            unparsed += 1
        found, undocumented = _definitions(path, facts)
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
