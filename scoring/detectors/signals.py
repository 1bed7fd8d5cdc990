"""Category S, reproducibility signals (METRICS.md S1–S7).

Will repeated executions produce the same verifiable result? Seven detectors look for
the habits that make a rerun comparable with the published one: random number generators
seeded (S1), notebooks executed top to bottom (S2), automated tests (S3), committed
reference outputs (S4), continuous integration (S5), parameters kept outside the code
(S6), and stated hardware requirements when the code can use a GPU (S7).

Source code is read through the tree index's cached views (``python_units``,
``notebook``, ``text``); conventional files are found by cheap name tests before anything
is read. No detector here reads a file that another view has not already decoded, except
the few prose, CI and workflow files that only this category looks at.
"""

from __future__ import annotations

import ast
import json
import posixpath
import re
import weakref
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from scoring.model import Evidence
from scoring.parsers.manifests import has_cuda_tag
from scoring.parsers.python import CodeUnit
from scoring.registry import Result, detector
from scoring.tree import TreeIndex

# Evidence lists stay short enough to read; totals always go to ``counts``.
MAX_EVIDENCE = 20

# --------------------------------------------------------------------------- shared helpers


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


# R/Julia units per tree, shared by S1, S3, S6 and S7 (the tree index has no such view).
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


# =========================================================================== S1 seed_management


@lru_cache(maxsize=1)
def _stochastic_table() -> dict[str, Any]:
    text = resources.files("scoring").joinpath("data/stochastic_calls.json").read_text(encoding="utf-8")
    return json.loads(text)


_DYNAMIC = object()   # an argument whose value is not a literal (a variable, a call …)
_MISSING = object()


@dataclass
class _CallSite:
    """A call as the seed rules see it: callee as written, line in its unit, literal
    argument values (``_DYNAMIC`` otherwise) and whether ``*args``/``**kwargs`` are passed."""

    written: str
    line: int
    args: tuple[Any, ...] = ()
    keywords: dict[str, Any] = field(default_factory=dict)
    star: bool = False


def _has_seed(site: _CallSite, position: int | None, keywords: Iterable[str]) -> bool:
    """True when the call passes a non-None seed (or generator) where the API takes one.
    ``**kwargs`` may carry it, so they are given the benefit of the doubt."""
    for keyword in keywords:
        if keyword in site.keywords:
            return site.keywords[keyword] is not None
    if position is not None and len(site.args) > position:
        return site.args[position] is not None
    return site.star


def _gate_open(site: _CallSite, spec: dict[str, Any]) -> bool:
    """Whether a conditionally random call is random as written (``KFold(shuffle=True)``
    is, ``train_test_split(shuffle=False)`` is not)."""
    only_if = spec.get("only_if")
    if only_if:
        value = site.keywords.get(only_if, _MISSING)
        if value is _MISSING or value in (False, None, 0):
            return False
    unless_false = spec.get("unless_false")
    if unless_false:
        value = site.keywords.get(unless_false, _MISSING)
        if value is not _MISSING and value is not _DYNAMIC and value in (False, 0):
            return False
    return True


class _CallRules:
    """The frozen table of seed calls, seeded generators and random calls (Python)."""

    SEED = "seed"
    RANDOM = "random"

    def __init__(self, table: dict[str, Any]):
        python = table["python"]
        self.seed_calls = frozenset(python["seed_calls"])
        self.seed_methods = frozenset(python["seed_methods"])
        self.generators: dict[str, dict[str, Any]] = python["generators"]
        self.functions: dict[str, dict[str, Any]] = python["functions"]
        self.modules: dict[str, dict[str, Any]] = python["modules"]
        self.packages: dict[str, dict[str, Any]] = python["packages"]
        self.sample_method: dict[str, Any] = python["sample_method"]

    @staticmethod
    def _seed_argument(site: _CallSite) -> bool:
        # ``np.random.seed()`` without an argument reseeds from the OS: not reproducible.
        for keyword in ("seed", "a"):
            if keyword in site.keywords:
                return site.keywords[keyword] is not None
        if site.args:
            return site.args[0] is not None
        return site.star

    def classify(self, name: str, site: _CallSite) -> tuple[str, bool] | None:
        """``(SEED, True)`` for a global seed call; ``(RANDOM, explicit)`` for a random
        call, ``explicit`` telling whether it passes its own seed; None otherwise."""
        last = name.rsplit(".", 1)[-1]
        if name in self.seed_calls or (last in self.seed_methods and "." in site.written):
            return (self.SEED, True) if self._seed_argument(site) else None
        spec = self.generators.get(name)
        if spec is not None:
            return self.RANDOM, _has_seed(site, spec.get("position"), spec.get("keywords", ()))
        spec = self.functions.get(name)
        if spec is not None:
            if not _gate_open(site, spec):
                return None
            return self.RANDOM, _has_seed(site, spec.get("position"), spec.get("keywords", ()))
        module, _, function = name.rpartition(".")
        spec = self.modules.get(module)
        if spec is not None and function and "(" not in function:
            only = spec.get("only")
            if (
                function not in spec.get("exclude", ())
                and not function.startswith(tuple(spec.get("exclude_prefixes", ())))
                and (only is None or function in only)
            ):
                if spec.get("key_driven"):
                    # jax.random functions take their key as an argument: they are as
                    # reproducible as the key, whose construction is checked on its own.
                    return self.RANDOM, True
                return self.RANDOM, _has_seed(site, None, spec.get("keywords", ()))
        package = self.packages.get(name.split(".", 1)[0])
        if package is not None and "." in name and "(" not in last:
            spec = package["names"].get(last)
            if spec is not None and _gate_open(site, spec):
                return self.RANDOM, _has_seed(site, None, package.get("keywords", ()))
        return None

    def classify_method(self, site: _CallSite) -> tuple[str, bool] | None:
        """``frame.sample(…)``: DataFrame/Series sampling and model sampling methods.
        ``.resample(…)`` (time series, signals) is a different name and never matches."""
        if "." in site.written and site.written.rsplit(".", 1)[-1] == self.sample_method["name"]:
            return self.RANDOM, _has_seed(site, None, self.sample_method.get("keywords", ()))
        return None


@lru_cache(maxsize=1)
def _rules() -> _CallRules:
    return _CallRules(_stochastic_table())


def _literal(node: ast.AST) -> Any:
    return node.value if isinstance(node, ast.Constant) else _DYNAMIC


def _ast_sites(unit: CodeUnit) -> Iterator[_CallSite]:
    for call in unit.calls:
        node = call.node
        star = any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords)
        yield _CallSite(
            written=call.written,
            line=call.line,
            args=tuple(_literal(a) for a in node.args if not isinstance(a, ast.Starred)),
            keywords={k.arg: _literal(k.value) for k in node.keywords if k.arg},
            star=star,
        )


_FALLBACK_CALL_RE = re.compile(r"(?<![\w.])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s*\(")
_FALLBACK_KEYWORD_RE = re.compile(r"^\s*([A-Za-z_]\w*)\s*=(?!=)\s*(.*)$", re.DOTALL)
_NUMBER_RE = re.compile(r"^-?\d+(?:\.\d*)?$")
_IMPORT_LINE_RE = re.compile(r"^\s*import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)", re.MULTILINE)
_FROM_LINE_RE = re.compile(r"^\s*from\s+([\w.]+)\s+import\s+\(?\s*([\w\s,]+)", re.MULTILINE)
_STAR_IMPORT_RE = re.compile(r"^\s*from\s+([A-Za-z_][\w.]*)\s+import\s+\*", re.MULTILINE)


def _fallback_literal(text: str) -> Any:
    text = text.strip()
    if text == "None":
        return None
    if text in ("True", "False"):
        return text == "True"
    if _NUMBER_RE.match(text):
        return float(text) if "." in text else int(text)
    return _DYNAMIC


def _fallback_arguments(rest: str) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Arguments of a call from the text after its ``(`` on the same line (token-level
    approximation for sources that do not parse, e.g. Python 2)."""
    pieces: list[str] = []
    depth = 0
    current: list[str] = []
    for char in rest:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif char == "," and depth == 0:
            pieces.append("".join(current))
            current = []
            continue
        current.append(char)
    pieces.append("".join(current))
    args: list[Any] = []
    keywords: dict[str, Any] = {}
    for piece in pieces:
        if not piece.strip():
            continue
        match = _FALLBACK_KEYWORD_RE.match(piece)
        if match:
            keywords[match.group(1)] = _fallback_literal(match.group(2))
        else:
            args.append(_fallback_literal(piece))
    return tuple(args), keywords


def _fallback_sites(unit: CodeUnit) -> Iterator[_CallSite]:
    for number, raw in enumerate(unit.lines, start=1):
        if "(" not in raw:
            continue
        code = _strip_hash_comment(raw)
        for match in _FALLBACK_CALL_RE.finditer(code):
            args, keywords = _fallback_arguments(code[match.end():])
            yield _CallSite(match.group(1), number, args, keywords)


def _fallback_aliases(source: str) -> dict[str, str]:
    table: dict[str, str] = {}
    for match in _IMPORT_LINE_RE.finditer(source):
        for part in match.group(1).split(","):
            words = part.split()
            if len(words) == 3 and words[1] == "as":
                table[words[2]] = words[0]
            elif words:
                top = words[0].split(".")[0]
                table.setdefault(top, top)
    for match in _FROM_LINE_RE.finditer(source):
        module = match.group(1)
        for part in match.group(2).split(","):
            words = part.split()
            if len(words) == 3 and words[1] == "as":
                table[words[2]] = f"{module}.{words[0]}"
            elif len(words) == 1:
                table[words[0]] = f"{module}.{words[0]}"
    return table


@dataclass(frozen=True)
class _Hit:
    """A located call: a random call, a seed call, or a call of a ``*seed*`` function."""

    path: str
    line: int
    cell: int | None
    name: str
    snippet: str | None
    explicit: bool = False


@dataclass
class _SeedFile:
    """What S1 knows about one source file (all cells of a notebook form one file)."""

    path: str
    random: list[_Hit] = field(default_factory=list)
    seeds: list[_Hit] = field(default_factory=list)
    seed_named_calls: list[_Hit] = field(default_factory=list)   # callee name contains "seed"
    units: list[CodeUnit] = field(default_factory=list)
    text_units: list[_TextUnit] = field(default_factory=list)
    sourced: list[str] = field(default_factory=list)             # R source() / Julia include() targets
    unparseable: bool = False

    @property
    def is_python_module(self) -> bool:
        return self.path.lower().endswith((".py", ".pyw"))


def _scan_python(record: _SeedFile, units: list[CodeUnit]) -> None:
    rules = _rules()
    aliases: dict[str, str] = {}
    stars: list[str] = []
    for unit in units:
        # Cells of one notebook share one namespace: imports of any cell resolve calls of all.
        aliases.update(unit.aliases if unit.tree is not None else _fallback_aliases(unit.source))
        if "import" in unit.source and "*" in unit.source:
            stars.extend(_STAR_IMPORT_RE.findall(unit.source))
        if unit.tree is None:
            record.unparseable = True
    for unit in units:
        sites = _ast_sites(unit) if unit.tree is not None else _fallback_sites(unit)
        for site in sites:
            head, _, rest = site.written.partition(".")
            base = aliases.get(head)
            candidates = [f"{base}.{rest}" if rest else base] if base else [site.written]
            if base is None and stars:
                candidates.extend(f"{module}.{site.written}" for module in stars)
            verdict = None
            for candidate in candidates:
                verdict = rules.classify(candidate, site)
                if verdict is not None:
                    name = candidate
                    break
            if verdict is None:
                verdict = rules.classify_method(site)
                name = site.written
            line, cell = _unit_location(unit, site.line)
            if verdict is None:
                if "seed" in site.written.rsplit(".", 1)[-1].lower():
                    record.seed_named_calls.append(
                        _Hit(record.path, line, cell, site.written.rsplit(".", 1)[-1], None)
                    )
                continue
            hit = _Hit(record.path, line, cell, name, _line_text(unit.lines, site.line), explicit=verdict[1])
            (record.seeds if verdict[0] == _CallRules.SEED else record.random).append(hit)


def _build_text_patterns() -> dict[str, dict[str, re.Pattern[str]]]:
    table = _stochastic_table()

    def alternation(names: Iterable[str]) -> str:
        return "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))

    r, julia = table["r"], table["julia"]
    return {
        "r": {
            "random": re.compile(rf"(?<![\w.$@])(?:\w+::)?({alternation(r['stochastic'])})\s*\("),
            "seed": re.compile(rf"(?<![\w.$@])(?:withr::)?({alternation(r['seed'])})\s*\(\s*(?!\)|NULL\b)"),
            "source": re.compile(r"(?<![\w.])(?:sys\.)?source\s*\(\s*(?:file\s*=\s*)?[\"']([^\"']+)[\"']"),
        },
        "julia": {
            "random": re.compile(rf"(?<![\w.!])(?:Random\.|StatsBase\.)?({alternation(julia['stochastic'])})\s*\("),
            "seed": re.compile(
                rf"(?<![\w.])(?:Random\.)?({alternation(julia['seed'])})\s*\(\s*(?!\))"
                rf"|(?<![\w.])(?:\w+\.)?({alternation(julia['seeded_generators'])})\s*\(\s*(?!\))"
            ),
            "source": re.compile(r"(?<![\w.])include\s*\(\s*\"([^\"]+)\""),
        },
    }


@lru_cache(maxsize=1)
def _text_patterns() -> dict[str, dict[str, re.Pattern[str]]]:
    return _build_text_patterns()


def _scan_text(record: _SeedFile, unit: _TextUnit) -> None:
    patterns = _text_patterns()[unit.language]
    for line, code, raw in unit.code_lines():
        match = patterns["seed"].search(code)
        if match:
            record.seeds.append(_Hit(unit.path, line, unit.cell, match.group(1) or match.group(2), raw))
        match = patterns["random"].search(code)
        if match:
            record.random.append(_Hit(unit.path, line, unit.cell, match.group(1), raw))
        for match in patterns["source"].finditer(code):
            record.sourced.append(match.group(1))


def _seed_files(tree: TreeIndex) -> dict[str, _SeedFile]:
    files: dict[str, _SeedFile] = {}
    for path, units in _units_by_path(tree).items():
        record = files.setdefault(path, _SeedFile(path))
        record.units = units
        _scan_python(record, units)
    for unit in _text_units(tree):
        record = files.setdefault(unit.path, _SeedFile(unit.path))
        record.text_units.append(unit)
        _scan_text(record, unit)
    for record in files.values():
        record.random.sort(key=lambda h: (h.cell or 0, h.line))
        record.seeds.sort(key=lambda h: (h.cell or 0, h.line))
    return dict(sorted(files.items()))


@dataclass(frozen=True)
class _Proof:
    """Why a random file counts as seeded, located at the seed it relies on."""

    rule: str
    reason: str
    hit: _Hit


# --- cross-file seeding (METRICS.md §0.1.30) ------------------------------------------------

_MAIN_GUARD_NAMES = frozenset({"__name__", "__main__"})


def _is_main_guard(test: ast.AST) -> bool:
    if not isinstance(test, ast.Compare) or len(test.comparators) != 1:
        return False
    names = set()
    for side in (test.left, test.comparators[0]):
        if isinstance(side, ast.Name):
            names.add(side.id)
        elif isinstance(side, ast.Constant) and isinstance(side.value, str):
            names.add(side.value)
    return names == _MAIN_GUARD_NAMES


def _deferred_ranges(unit: CodeUnit) -> list[tuple[int, int, str]]:
    """Line ranges that do not run when the module is imported: function bodies (with
    the function's name) and the ``if __name__ == "__main__":`` block (name "")."""
    ranges: list[tuple[int, int, str]] = []
    if unit.tree is None:
        return ranges
    for node in ast.walk(unit.tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            ranges.append((node.lineno, node.end_lineno or node.lineno, node.name))
        elif isinstance(node, ast.Lambda):
            ranges.append((node.lineno, node.end_lineno or node.lineno, "<lambda>"))
    for node in unit.tree.body:
        if isinstance(node, ast.If) and _is_main_guard(node.test):
            ranges.append((node.lineno, node.end_lineno or node.lineno, ""))
    return ranges


def _import_time_seed(record: _SeedFile) -> _Hit | None:
    """The first seed call that runs when the file is imported (Python module) or run by
    ``source()``/``include()`` (R, Julia: function bodies are not told apart)."""
    if not record.seeds:
        return None
    if record.path.lower().endswith((".r", ".jl")):
        return record.seeds[0]
    if not record.is_python_module or not record.units:
        return None
    unit = record.units[0]
    if unit.tree is None:
        # Token fallback: an unindented seed call runs at import.
        for hit in record.seeds:
            text = _line_text(unit.lines, hit.line) or ""
            if text[:1] not in (" ", "\t"):
                return hit
        return None
    ranges = _deferred_ranges(unit)
    for hit in record.seeds:
        if not any(start <= hit.line <= end for start, end, _ in ranges):
            return hit
    return None


def _seed_helpers(record: _SeedFile) -> dict[str, _Hit]:
    """Functions of a Python module whose name contains ``seed`` and that perform a seed call."""
    helpers: dict[str, _Hit] = {}
    if not record.is_python_module or not record.seeds or not record.units or record.units[0].tree is None:
        return helpers
    for start, end, name in _deferred_ranges(record.units[0]):
        if "seed" in name.lower():
            hit = next((h for h in record.seeds if start <= h.line <= end), None)
            if hit is not None:
                helpers.setdefault(name, hit)
    return helpers


class _ModuleIndex:
    """Local Python modules by every dotted suffix of their path (``src/pkg/util.py`` is
    ``src.pkg.util``, ``pkg.util`` and ``util``), since the import root is unknown."""

    def __init__(self, module_paths: Iterable[str], tree: TreeIndex):
        self.tree = tree
        self.by_name: dict[str, list[str]] = {}
        for path in module_paths:
            stem = path.rsplit(".", 1)[0]
            parts = stem.split("/")
            if parts[-1] == "__init__":
                parts = parts[:-1]
            for i in range(len(parts)):
                self.by_name.setdefault(".".join(parts[i:]), []).append(path)

    def absolute(self, dotted: str) -> list[str]:
        found: list[str] = []
        parts = dotted.split(".")
        for i in range(len(parts), 0, -1):
            found.extend(self.by_name.get(".".join(parts[:i]), ()))
        return found

    def relative(self, base_dir: str, dotted: str) -> list[str]:
        stem = posixpath.join(base_dir, dotted.replace(".", "/")) if dotted else base_dir
        found = []
        for candidate in (f"{stem}.py", f"{stem}/__init__.py"):
            if self.tree.is_file(candidate):
                found.append(candidate)
        return found


_RELATIVE_IMPORT_RE = re.compile(r"^\s*from\s+(\.+)\s*([\w.]*)\s+import\s+\(?([^#]*)")


def _relative_targets(unit: CodeUnit, line: int, level: int, index: _ModuleIndex) -> list[str]:
    text = _line_text(unit.lines, line) or ""
    match = _RELATIVE_IMPORT_RE.match(text)
    if not match:
        return []
    directory = _parent(unit.path)
    for _ in range(level - 1):
        directory = _parent(directory)
    module = match.group(2)
    names_text = match.group(3)
    if "(" in text and ")" not in text:
        # A parenthesised name list continues on the following lines.
        for extra in unit.lines[line:line + 50]:
            names_text += " " + extra.split("#", 1)[0]
            if ")" in extra:
                break
    names = [w.split()[0] for w in names_text.replace("(", " ").replace(")", " ").split(",") if w.split()]
    found = index.relative(directory, module)
    for name in names:
        found.extend(index.relative(directory, f"{module}.{name}" if module else name))
    return found


def _resolve_sourced(tree: TreeIndex, record: _SeedFile, target: str) -> str | None:
    for base in (_parent(record.path), ""):
        candidate = posixpath.normpath(posixpath.join(base, target))
        if tree.is_file(candidate):
            return candidate
    return None


def _import_edges(tree: TreeIndex, files: dict[str, _SeedFile]) -> dict[str, set[str]]:
    """Local files each file imports (Python) or runs (R ``source``, Julia ``include``)."""
    index = _ModuleIndex((p for p, r in files.items() if r.is_python_module), tree)
    edges: dict[str, set[str]] = {}
    for path, record in files.items():
        targets: set[str] = set()
        for unit in record.units:
            for ref in unit.imports:
                if ref.level:
                    targets.update(_relative_targets(unit, ref.line, ref.level, index))
                elif ref.module:
                    targets.update(index.absolute(ref.module))
            for dotted in unit.aliases.values():
                targets.update(index.absolute(dotted))
        for target in record.sourced:
            resolved = _resolve_sourced(tree, record, target)
            if resolved:
                targets.add(resolved)
        targets.discard(path)
        if targets:
            edges[path] = targets
    return edges


def _seed_proofs(tree: TreeIndex, files: dict[str, _SeedFile]) -> dict[str, _Proof]:
    """Every file that counts as seeded, with the seed it relies on (METRICS.md S1 V2)."""
    proofs: dict[str, _Proof] = {}
    for path, record in files.items():
        if record.seeds:
            first = record.seeds[0]
            proofs[path] = _Proof("seed_management.seed_call", f"sets a seed with {first.name}", first)
        elif record.random and all(h.explicit for h in record.random):
            first = record.random[0]
            proofs[path] = _Proof(
                "seed_management.explicit_seed", "every random call passes an explicit seed or generator", first
            )
    unseeded = [p for p, r in files.items() if r.random and p not in proofs]
    if not unseeded or not any(r.seeds for r in files.values()):
        return proofs  # the cross-file rules all need a seed call somewhere

    edges = _import_edges(tree, files)
    reverse: dict[str, set[str]] = {}
    for source, targets in edges.items():
        for target in targets:
            reverse.setdefault(target, set()).add(source)

    # A module that seeds while being imported seeds every file that (transitively) imports it.
    import_time: dict[str, _Hit] = {}
    for path, record in files.items():
        hit = _import_time_seed(record)
        if hit is not None:
            import_time[path] = hit
    seeded_on_import: dict[str, tuple[str, _Hit]] = {path: (path, hit) for path, hit in import_time.items()}
    queue = deque(sorted(import_time))
    while queue:
        current = queue.popleft()
        for importer in sorted(reverse.get(current, ())):
            if importer not in seeded_on_import:
                seeded_on_import[importer] = seeded_on_import[current]
                queue.append(importer)

    # A call of a local ``*seed*`` function that performs a seed call.
    helpers = {path: _seed_helpers(record) for path, record in files.items() if record.seeds}
    helper_proofs: dict[str, _Proof] = {}
    for path, record in files.items():
        for call in record.seed_named_calls:
            for target in sorted(edges.get(path, ())):
                hit = helpers.get(target, {}).get(call.name)
                if hit is not None:
                    helper_proofs.setdefault(
                        path,
                        _Proof("seed_management.seed_helper", f"calls {call.name}() from {target}, which sets a seed", hit),
                    )

    for path, proof in helper_proofs.items():
        proofs.setdefault(path, proof)
    for path, (seeder, hit) in seeded_on_import.items():
        if path != seeder:
            proofs.setdefault(
                path, _Proof("seed_management.seeding_import", f"imports {seeder}, which sets a seed when imported", hit)
            )

    # A file imported (transitively) by a local module that seeds runs after that seed.
    seeders = [p for p, r in files.items() if r.seeds] + sorted(helper_proofs) + sorted(seeded_on_import)
    origin: dict[str, str] = {}
    queue = deque()
    for seeder in seeders:
        if seeder not in origin:
            origin[seeder] = seeder
            queue.append(seeder)
    while queue:
        current = queue.popleft()
        for target in sorted(edges.get(current, ())):
            if target not in origin:
                origin[target] = origin[current]
                queue.append(target)
    for path, seeder in origin.items():
        if path != seeder and path not in proofs:
            proofs[path] = _Proof(
                "seed_management.seeded_importer",
                f"is imported by {seeder}, which sets a seed",
                proofs[seeder].hit,
            )
    return proofs


def _hit_evidence(hit: _Hit, reason: str, rule: str) -> Evidence:
    return Evidence(hit.path, reason, rule=rule, line_start=hit.line, snippet=hit.snippet, cell=hit.cell)


@detector("seed_management", version="2.0.0")
def seed_management(tree: TreeIndex) -> Result:
    """Files that make random calls also set a seed (σ = seeded / random files).

    What it checks:
        Every Python file (notebook cells of one notebook together), R and Julia file is
        scanned for random calls from a frozen list (scoring/data/stochastic_calls.json):
        numpy.random and stdlib random sampling, torch.rand*/randperm/normal/bernoulli,
        tf.random.*, jax.random.*, random generator constructions (default_rng,
        RandomState, PRNGKey …), randomised sklearn/umap/scipy estimators and functions
        (ensembles, KMeans, TSNE, train_test_split, CV splitters with shuffle=True …),
        DataFrame .sample(), and R sample()/rnorm()/runif()… Calls are resolved through
        imports (np.random.seed is numpy.random.seed). A random file is seeded when it
        calls a global seed (np.random.seed, torch.manual_seed, tf.random.set_seed,
        seed_everything, set.seed …) with an argument; or when every random call passes
        its own non-None seed (default_rng(42), random_state=0, PRNGKey(0),
        generator=g); or when it calls a local *seed* function that seeds; or when it
        imports a local module that seeds on import; or when a local module that seeds
        imports it (transitively). Value = 100 · seeded / random files; with no random
        file the metric is not applicable and scores 100.
    Why it matters:
        Unseeded random numbers make every rerun produce different numbers, so nobody
        can tell a reproduction failure from noise.
    Evidence:
        Each random file at its first random call (unseeded files first), and for seeded
        files the seed they rely on (file, line; cell for notebooks). Counts: random and
        seeded files, files scanned, files scanned with the token fallback.
    How to fix:
        Set a seed at the top of each listed file or in its entry point
        (np.random.seed(0), random.seed(0), torch.manual_seed(0), set.seed(1)), or pass
        random_state= / seed= / a seeded generator to every random call.
    Known false positives:
        A local variable that shadows an imported module (random = …) is read as the
        module. `**kwargs` passed to a randomised estimator are assumed to carry a seed.
        A global seed call counts for every library (torch.manual_seed "seeds" numpy
        calls in the same file), and a seed call anywhere in the file counts, even after
        the random call. Modules are matched to imports by name suffix, so a seed in one
        of several same-named local modules seeds all their importers. Julia files count
        as seeded when they construct any seeded RNG; R/Julia seeds in functions are not
        told apart from top-level ones. Randomness hidden in other libraries (neural
        network initialisation through layer constructors, dropout) is not detected.
    """
    files = _seed_files(tree)
    random_files = [r for r in files.values() if r.random]
    counts: dict[str, Any] = {
        "files_scanned": len(files),
        "unparseable_files": sum(1 for r in files.values() if r.unparseable),
        "stochastic_files": len(random_files),
    }
    if not random_files:
        counts["seeded_files"] = 0
        return Result(
            100,
            applicable=False,
            counts=counts,
            reason=f"no random calls found in {len(files)} source files; nothing to seed",
        )
    proofs = _seed_proofs(tree, files)
    seeded = [r for r in random_files if r.path in proofs]
    unseeded = [r for r in random_files if r.path not in proofs]
    counts["seeded_files"] = len(seeded)
    counts["unseeded_files"] = len(unseeded)

    evidence: list[Evidence] = []
    for record in unseeded:
        first = record.random[0]
        evidence.append(_hit_evidence(first, f"random call {first.name} with no seed set for this file", "seed_management.unseeded"))
    for record in seeded:
        first = record.random[0]
        proof = proofs[record.path]
        evidence.append(_hit_evidence(first, f"random call {first.name}; the file {proof.reason}", "seed_management.seeded"))
        evidence.append(_hit_evidence(proof.hit, f"seed relied on by {record.path}", proof.rule))
    value = 100 * len(seeded) / len(random_files)
    fix = None
    if unseeded:
        fix = (
            f"Set a seed in {_join_names([r.path for r in unseeded])} (e.g. np.random.seed(0), "
            "torch.manual_seed(0) or set.seed(1) before the first random call), or pass "
            "random_state=/seed= to every random call."
        )
    return Result(
        value,
        evidence=evidence[:MAX_EVIDENCE],
        fix=fix,
        counts=counts,
        reason=f"{len(seeded)} of {len(random_files)} files with random calls set a seed",
    )
