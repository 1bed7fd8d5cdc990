"""Category S, reproducibility signals (METRICS.md S1–S7).

Will repeated executions produce the same verifiable result? Seven detectors look for
the habits that make a rerun comparable with the published one: random number generators
seeded (S1), notebooks executed top to bottom (S2), automated tests (S3), committed
reference outputs (S4), continuous integration (S5), parameters kept outside the code
(S6), and stated hardware requirements when the code can use a GPU (S7).

Source code is read through the tree index's cached views (``python_units``,
``notebook``, ``text``, ``manifests``); conventional files are found by cheap name tests
before anything is read, and Python syntax trees are walked only where a cheap text test
says a relevant name occurs.
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
from functools import cached_property, lru_cache
from importlib import resources
from typing import Any

from scoring.model import Evidence
from scoring.parsers.manifests import has_cuda_tag
from scoring.parsers.python import CodeUnit, dotted_name
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


def _hint_lines(source: str, hint: re.Pattern[str]) -> list[int]:
    """Sorted numbers of the lines where ``hint`` matches."""
    lines: list[int] = []
    line, position = 1, 0
    for match in hint.finditer(source):
        line += source.count("\n", position, match.start())
        position = match.start()
        if not lines or lines[-1] != line:
            lines.append(line)
    return lines


def _pruned_walk(unit: CodeUnit, wanted: list[int]) -> tuple[list[ast.Import | ast.ImportFrom], list[ast.Call]]:
    """Import statements and calls of a unit, in one walk that skips every node spanning
    none of the ``wanted`` lines (sorted). Most of a module is skipped this way."""
    imports: list[ast.Import | ast.ImportFrom] = []
    calls: list[ast.Call] = []
    if unit.tree is None or not wanted:
        return imports, calls
    # following[n]: the first wanted line at or after line n (n up to the last wanted line),
    # so a node spans a wanted line when following[lineno] <= end_lineno.
    following: list[int] = []
    previous = -1
    for line in wanted:
        following += [line] * (line - previous)
        previous = line
    last = wanted[-1]
    stack: list[ast.AST] = [unit.tree]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        kind = type(node)
        if kind is ast.Import or kind is ast.ImportFrom:
            imports.append(node)
            continue
        if kind is ast.Call:
            calls.append(node)
        for name in _CHILD_FIELDS[kind]:
            value = getattr(node, name, None)
            for child in value if type(value) is list else (value,):
                if not isinstance(child, ast.AST) or type(child) in _LEAF_NODES:
                    continue
                start = getattr(child, "lineno", None)
                if start is not None and (start > last or following[start] > (child.end_lineno or start)):
                    continue
                push(child)
    imports.sort(key=lambda n: n.lineno)
    calls.sort(key=lambda c: (c.lineno, c.col_offset))
    return imports, calls


# Expression contexts and (comparison) operators hold nothing, names and constants hold
# no statement or expression: the walks never enter them.
_EMPTY_FIELDS = frozenset({"ctx", "op", "ops"})
_LEAF_NODES = frozenset({ast.Name, ast.Constant})


class _ChildFields(dict[type, tuple[str, ...]]):
    """Node type → the fields that may hold nodes the walks enter, found on first use
    (ast.iter_child_nodes is a generator over every field and costs several times more)."""

    def __missing__(self, kind: type) -> tuple[str, ...]:
        fields = self[kind] = tuple(f for f in kind._fields if f not in _EMPTY_FIELDS)
        return fields


_CHILD_FIELDS = _ChildFields()


# A line starting with an import: after a newline (searched), or the first line (matched).
_IMPORT_AFTER_NEWLINE_RE = re.compile(r"\n[ \t]*(?:import|from)[ \t]")
_IMPORT_START_RE = re.compile(r"[ \t]*(?:import|from)[ \t]")


def _import_lines(unit: CodeUnit) -> list[int]:
    """Sorted numbers of the lines that start with ``import`` or ``from``. The pattern
    starts with a newline, which the regex engine finds far faster than a line start."""
    source = unit.source
    lines = [1] if _IMPORT_START_RE.match(source) else []
    line, position = 1, 0
    for match in _IMPORT_AFTER_NEWLINE_RE.finditer(source):
        newline = match.start()
        line += source.count("\n", position, newline) + 1
        position = newline + 1
        lines.append(line)
    return lines


def _aliases_of(imports: Iterable[ast.Import | ast.ImportFrom]) -> dict[str, str]:
    """Local name → dotted name, as :attr:`CodeUnit.aliases` builds it."""
    aliases: dict[str, str] = {}
    for node in imports:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    aliases[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    aliases.setdefault(top, top)
        elif node.module and not node.level:
            for alias in node.names:
                if alias.name != "*":
                    aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return aliases


def _ast_sites(calls: list[ast.Call]) -> Iterator[_CallSite]:
    for node in calls:
        written = dotted_name(node.func)
        if not written:
            continue
        star = any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords)
        yield _CallSite(
            written=written,
            line=node.lineno,
            args=tuple(_literal(a) for a in node.args if not isinstance(a, ast.Starred)),
            keywords={k.arg: _literal(k.value) for k in node.keywords if k.arg},
            star=star,
        )


_FALLBACK_CALL_RE = re.compile(r"(?<![\w.])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s*\(")
_FALLBACK_KEYWORD_RE = re.compile(r"^\s*([A-Za-z_]\w*)\s*=(?!=)\s*(.*)$", re.DOTALL)
_NUMBER_RE = re.compile(r"^-?\d+(?:\.\d*)?$")
_IMPORT_LINE_RE = re.compile(
    r"^[ \t]*import[ \t]+([\w.]+(?:[ \t]+as[ \t]+\w+)?(?:[ \t]*,[ \t]*[\w.]+(?:[ \t]+as[ \t]+\w+)?)*)", re.MULTILINE
)
_FROM_LINE_RE = re.compile(r"^[ \t]*from[ \t]+([\w.]+)[ \t]+import[ \t]+\(?[ \t]*([\w \t,]+)", re.MULTILINE)
_STAR_IMPORT_RE = re.compile(r"^\s*from\s+([A-Za-z_][\w.]*)\s+import\s+\*", re.MULTILINE)
# Part of every star import; it starts with a literal, so the regex engine finds it fast.
_STAR_IMPORT_HINT_RE = re.compile(r"import\s+\*")


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

    @cached_property
    def deferred_ranges(self) -> list[tuple[int, int, str]]:
        """:func:`_deferred_ranges` of the first unit, which two cross-file rules read."""
        return _deferred_ranges(self.units[0])


def _trie_pattern(words: Iterable[str]) -> str:
    """A regular expression matching any of ``words``, factored by common prefixes
    (several times faster than a flat alternation of a few hundred names)."""
    trie: dict[str, dict] = {}
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def build(node: dict[str, dict]) -> str:
        branches = [re.escape(char) + build(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 and "" not in node else "(?:" + "|".join(branches) + ")"
        return body + ("?" if "" in node else "")

    return build(trie)


@lru_cache(maxsize=1)
def _random_hint_re() -> re.Pattern[str]:
    """Names at least one of which appears in any file with a random or seed call: the
    callee's last name, or its module's (``random`` for every numpy.random call, which
    must be imported under that name somewhere in the file). All are identifiers, which
    :func:`_hinted_words` relies on."""
    python = _stochastic_table()["python"]
    tokens = {python["sample_method"]["name"], *python["seed_methods"], "seed"}
    for name in (*python["seed_calls"], *python["generators"], *python["functions"]):
        tokens.add(name.rsplit(".", 1)[-1])
    for module, spec in python["modules"].items():
        tokens.update(spec.get("only") or [module.rsplit(".", 1)[-1]])
    for package in python["packages"].values():
        tokens.update(package["names"])
    return re.compile(_trie_pattern(tokens))


class _HintedWords:
    """The words holding a hint name, remembered across units: most words of a repository
    (``self``, ``np``, ``range`` …) recur in many of its files, and two set operations
    find the ones already tried, so the hint pattern runs once per distinct word."""

    # Enough for the vocabulary of a large repository; past it, start afresh.
    LIMIT = 100_000

    def __init__(self) -> None:
        self.tried: set[str] = set()
        self.hinted: set[str] = set()

    def of(self, words: frozenset[str]) -> frozenset[str]:
        """The words among ``words`` where the hint pattern matches."""
        if len(self.tried) > self.LIMIT:
            self.tried, self.hinted = set(), set()
        # One pair throughout, and a word is marked tried only once its verdict is in:
        # the answer stays right should another thread start afresh meanwhile.
        tried, hinted = self.tried, self.hinted
        untried = words - tried
        if untried:
            hint = _random_hint_re()
            hinted.update(word for word in untried if hint.search(word))
            tried |= untried
        return words & hinted


_HINTED_WORDS = _HintedWords()


def _hinted_words(unit: CodeUnit) -> frozenset[str]:
    """The distinct words of a unit holding a hint name. The hint names are identifiers and
    the words are the source's pieces split at whitespace and ASCII punctuation, so the
    hint matches the source exactly when it matches one of these words. Trying the hint
    pattern on words costs several times less than scanning the source with it (a large
    alternation tried position by position)."""
    return _HINTED_WORDS.of(unit.words)


_CALL_TAIL_RE = re.compile(r"[\w.]*\s*\(")


def _call_hint_lines(unit: CodeUnit, words: Iterable[str]) -> list[int]:
    """Sorted numbers of the lines where one of ``words`` (the unit's words holding a hint
    name, located with ``str.find``) starts a call: the word (``normal``, ``set_seed``),
    an optional attribute chain, then ``(``. Only such lines can hold a random or seed
    call site; the same names in comments and prose are mostly skipped, so the AST walk
    descends into far fewer statements. A word may keep non-ASCII punctuation, which
    only adds candidate lines, never loses one."""
    source = unit.source
    starts: list[int] = []
    size = len(source)
    for word in words:
        at = source.find(word)
        while at != -1:
            end = at + len(word)
            whole = (at == 0 or not _is_word_char(source[at - 1])) and (end == size or not _is_word_char(source[end]))
            if whole and _CALL_TAIL_RE.match(source, end):
                starts.append(at)
            at = source.find(word, end)
    starts.sort()
    lines: list[int] = []
    line, position = 1, 0
    for start in starts:
        line += source.count("\n", position, start)
        position = start
        if not lines or lines[-1] != line:
            lines.append(line)
    return lines


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def _scan_python(record: _SeedFile, units: list[CodeUnit]) -> None:
    if any(unit.tree is None for unit in units):
        record.unparseable = True
    hinted = [_hinted_words(unit) for unit in units]
    if not any(hinted):
        return  # no random, seed or *seed* call can be written here: skip the AST walks
    hint = _random_hint_re()
    rules = _rules()
    aliases: dict[str, str] = {}
    stars: list[str] = []
    call_lines: dict[int, set[int]] = {}
    import_lines: dict[int, list[int]] = {}
    calls: dict[int, list[ast.Call]] = {}
    for position, unit in enumerate(units):
        # Cells of one notebook share one namespace: imports of any cell resolve calls of all.
        if unit.tree is not None:
            # One walk collects the imports and the calls on the hinted lines.
            call_lines[position] = set(_call_hint_lines(unit, hinted[position]))
            import_lines[position] = _import_lines(unit)
            imports, calls[position] = _pruned_walk(unit, sorted(call_lines[position].union(import_lines[position])))
            aliases.update(_aliases_of(imports))
        else:
            aliases.update(_fallback_aliases(unit.source))
        if _STAR_IMPORT_HINT_RE.search(unit.source):
            stars.extend(_STAR_IMPORT_RE.findall(unit.source))
    # ``from numpy.random import normal as draw``: calls of ``draw`` carry no hint name.
    renamed = [local for local, target in aliases.items() if hint.search(target) and not hint.search(local)]
    renamed_re = re.compile(r"\b(?:" + "|".join(map(re.escape, renamed)) + r")\b") if renamed else None
    for position, unit in enumerate(units):
        if unit.tree is not None:
            if renamed_re is not None:
                extra = set(_hint_lines(unit.source, renamed_re)) - call_lines[position]
                if extra:
                    wanted = call_lines[position] | extra | set(import_lines[position])
                    calls[position] = _pruned_walk(unit, sorted(wanted))[1]
            sites = _ast_sites(calls[position])
        else:
            sites = _fallback_sites(unit)
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
        return _trie_pattern(names)

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
        if "(" not in code:
            continue  # every pattern below needs the "(" of a call
        plain = _blank_strings(code)
        match = patterns["seed"].search(plain)
        if match:
            record.seeds.append(_Hit(unit.path, line, unit.cell, match.group(1) or match.group(2), raw))
        match = patterns["random"].search(plain)
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
    # Breadth first, as ast.walk goes (the first of same-named functions is the seed
    # helper): the list grows while it is read.
    nodes: list[ast.AST] = [unit.tree]
    for node in nodes:
        kind = type(node)
        if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            ranges.append((node.lineno, node.end_lineno or node.lineno, node.name))
        elif kind is ast.Lambda:
            ranges.append((node.lineno, node.end_lineno or node.lineno, "<lambda>"))
        for name in _CHILD_FIELDS[kind]:
            value = getattr(node, name, None)
            for child in value if type(value) is list else (value,):
                if isinstance(child, ast.AST) and type(child) not in _LEAF_NODES:
                    nodes.append(child)
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
    ranges = record.deferred_ranges
    for hit in record.seeds:
        if not any(start <= hit.line <= end for start, end, _ in ranges):
            return hit
    return None


def _seed_helpers(record: _SeedFile) -> dict[str, _Hit]:
    """Functions of a Python module whose name contains ``seed`` and that perform a seed call."""
    helpers: dict[str, _Hit] = {}
    if not record.is_python_module or not record.seeds or not record.units or record.units[0].tree is None:
        return helpers
    for start, end, name in record.deferred_ranges:
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


def _imported_files(unit: CodeUnit, index: _ModuleIndex) -> set[str]:
    """Local Python modules a unit imports (absolute by name suffix, relative by path)."""
    found: set[str] = set()
    if unit.tree is None:
        for ref in unit.imports:  # token fallback: absolute imports only
            if ref.module and not ref.level:
                found.update(index.absolute(ref.module))
        return found
    imports, _ = _pruned_walk(unit, _import_lines(unit))
    for node in imports:
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.update(index.absolute(alias.name))
        elif not node.level:
            if node.module:
                found.update(index.absolute(node.module))
                for alias in node.names:
                    found.update(index.by_name.get(f"{node.module}.{alias.name}", ()))
        else:
            directory = _parent(unit.path)
            for _ in range(node.level - 1):
                directory = _parent(directory)
            module = node.module or ""
            found.update(index.relative(directory, module))
            for alias in node.names:
                if alias.name != "*":
                    found.update(index.relative(directory, f"{module}.{alias.name}" if module else alias.name))
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
            targets.update(_imported_files(unit, index))
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
                "seed_management.explicit_seed", "passes an explicit seed or generator to every random call", first
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


# =========================================================================== S2 notebook_exec_order


@detector("notebook_exec_order", version="2.0.0")
def notebook_exec_order(tree: TreeIndex) -> Result:
    """Jupyter notebooks were executed top to bottom (execution counts strictly increase).

    What it checks:
        Every .ipynb file (nbformat 3 worksheets and nbformat 4) outside excluded folders
        such as .ipynb_checkpoints. The execution counts of its code cells, in cell order
        and skipping cells never run, must strictly increase (gaps allowed, repeats not).
        A notebook with fewer than two counts, never executed included, is ordered.
        Value = 100 · ordered / parsed notebooks. Notebooks that are not valid JSON
        notebooks are counted as unparseable and left out of the denominator; with no
        parsed notebook the metric is not applicable and scores 100.
    Why it matters:
        Cells run out of order leave results that a top-to-bottom rerun may not
        reproduce: the stored outputs depend on a hidden kernel state.
    Evidence:
        For each out-of-order notebook, its first out-of-order cell (cell index, its
        count and the previous one); each unparseable notebook. Counts: parsed, ordered,
        out of order, unexecuted, unparseable and unreadable notebooks.
    How to fix:
        Restart the kernel and run all cells in order (Kernel → Restart & Run All), then
        save the notebook; or clear all outputs before committing.
    Known false positives:
        A notebook deliberately re-executed in part (for example a cell re-run to show a
        changing value) is out of order although its final state may be reproducible;
        notebooks executed by papermill or nbconvert in order always pass, whatever their
        content.
    """
    parsed = ordered = unexecuted = unparseable = unreadable = 0
    evidence: list[Evidence] = []
    out_of_order: list[str] = []
    for path in tree.by_type("notebook"):
        nb = tree.notebook(path)
        if nb is None:
            if tree.text(path) is None:
                unreadable += 1
            else:
                unparseable += 1
                evidence.append(Evidence(path, "not a valid notebook; left out of the ratio", rule="notebook_exec_order.unparseable"))
            continue
        parsed += 1
        executed = [cell for cell in nb.code_cells if cell.execution_count is not None]
        if not executed:
            unexecuted += 1
        previous = None
        bad = None
        for cell in executed:
            if previous is not None and cell.execution_count <= previous.execution_count:
                bad = (previous, cell)
                break
            previous = cell
        if bad is None:
            ordered += 1
            continue
        before, cell = bad
        out_of_order.append(path)
        lines = cell.source.splitlines() or [""]
        evidence.append(
            Evidence(
                path,
                f"cell {cell.index} ran as [{cell.execution_count}] after cell {before.index} ran as [{before.execution_count}]",
                rule="notebook_exec_order.out_of_order",
                line_start=1,
                line_end=len(lines),
                snippet=lines[0],
                cell=cell.index,
            )
        )
    counts = {
        "notebooks_parsed": parsed,
        "ordered": ordered,
        "out_of_order": parsed - ordered,
        "unexecuted": unexecuted,
        "unparseable": unparseable,
        "unreadable": unreadable,
    }
    if parsed == 0:
        reason = "no parseable Jupyter notebook" + (f" ({unparseable} unparseable)" if unparseable else "")
        return Result(100, applicable=False, evidence=evidence[:MAX_EVIDENCE], counts=counts, reason=reason)
    fix = None
    if out_of_order:
        fix = (
            f"Restart the kernel and run all cells in order (Restart & Run All), then save "
            f"{_join_names(out_of_order)}."
        )
    return Result(
        100 * ordered / parsed,
        evidence=evidence[:MAX_EVIDENCE],
        fix=fix,
        counts=counts,
        reason=f"{ordered} of {parsed} notebooks have strictly increasing execution counts",
    )


# =========================================================================== S3 test_file_presence

_TEST_DIRS = frozenset({"tests", "test"})
_NOT_TEST_MODULES = frozenset({"__init__.py", "conftest.py"})
_PY_TEST_NAME_RE = re.compile(r"test_.*\.pyw?|.*_test\.pyw?", re.IGNORECASE)
_R_TESTTHAT_NAME_RE = re.compile(r"test[-_].*\.r", re.IGNORECASE)
_R_TEST_RE = re.compile(r"(?<![\w.])(?:testthat::)?test_that\s*\(")
_JULIA_TEST_RE = re.compile(r"(?<![\w])@test(?:set|_throws|_broken|_skip|_logs|_warn|_nowarn)?\b")
_PY_TEST_FALLBACK_RE = re.compile(
    r"^\s*(?:async\s+)?def\s+test\w*\s*\(|^\s*class\s+Test\w*|^\s*class\s+\w+\s*\([^)]*TestCase"
)
_PY_ASSERT_FALLBACK_RE = re.compile(r"^\s*assert\b")


def _in_test_dir(path: str) -> bool:
    return any(part.lower() in _TEST_DIRS for part in path.split("/")[:-1])


def _first_python_test(unit: CodeUnit, allow_assert: bool) -> int | None:
    """Line of the first test in a unit: a ``test*`` function, a ``Test*`` class, a
    ``TestCase`` subclass or, where ``allow_assert``, an ``assert`` statement."""
    if unit.tree is None:
        for number, line in enumerate(unit.lines, start=1):
            if _PY_TEST_FALLBACK_RE.match(line) or (allow_assert and _PY_ASSERT_FALLBACK_RE.match(line)):
                return number
        return None
    best: int | None = None
    for node in ast.walk(unit.tree):
        found = False
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found = node.name.startswith("test")
        elif isinstance(node, ast.ClassDef):
            found = node.name.startswith("Test") or any(
                (_dotted(base) or "").endswith("TestCase") for base in node.bases
            )
        elif isinstance(node, ast.Assert):
            found = allow_assert
        if found and (best is None or node.lineno < best):
            best = node.lineno
    return best


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _is_python_test_module(path: str) -> bool:
    name = _name(path)
    if name.lower() in _NOT_TEST_MODULES:
        return False
    return bool(_PY_TEST_NAME_RE.fullmatch(name)) or _in_test_dir(path)


def _is_r_test_module(path: str) -> bool:
    folder = _name(_parent(path)).lower()
    if folder == "testthat":
        return bool(_R_TESTTHAT_NAME_RE.fullmatch(_name(path)))
    return folder == "tests"


def _is_julia_test_module(path: str) -> bool:
    return _name(_parent(path)).lower() in _TEST_DIRS


@detector("test_file_presence", version="2.0.0")
def test_file_presence(tree: TreeIndex) -> Result:
    """Automated test modules that contain at least one test (0, 50 or 100).

    What it checks:
        Test modules: Python test_*.py / *_test.py anywhere, or any .py file under a
        tests/ or test/ folder other than __init__.py and conftest.py; R
        tests/testthat/test-*.R or test_*.R and tests/*.R; Julia test/*.jl (runtests.jl
        included); notebooks under tests/. A module counts only if it contains a test:
        a test* function, a Test* class or unittest.TestCase subclass (AST, token
        fallback for Python 2), an assert statement for files under a tests folder, an
        R test_that( call, or a Julia @test/@testset macro. Value = min(|T| / 2, 1) · 100
        for |T| counted modules.
    Why it matters:
        Tests let a third party check that the code still computes what it computed for
        the authors, on their own machine, before trusting any result.
    Evidence:
        Each counted test module at its first test (file, line), and test-named modules
        without any test. Counts: counted test modules and candidate modules.
    How to fix:
        Add pytest tests (tests/test_<module>.py with test_* functions), testthat tests
        (tests/testthat/test-<topic>.R) or Julia tests (test/runtests.jl with @testset),
        at least two modules for the full score.
    Known false positives:
        A test that asserts nothing meaningful still counts, as does any script with an
        assert statement inside a tests/ folder; helpers named test_* count. Notebook
        tests run by nbval without assertions are not recognised.
    """
    counted: list[Evidence] = []
    empty: list[str] = []
    candidates = 0
    python_units = None
    for path in tree.by_type("python"):
        if not _is_python_test_module(path):
            continue
        candidates += 1
        unit = tree.python_unit(path)
        line = _first_python_test(unit, _in_test_dir(path)) if unit is not None else None
        if line is None:
            empty.append(path)
            continue
        counted.append(Evidence(path, "test module with a test", rule="test_file_presence.python",
                                line_start=line, snippet=_line_text(unit.lines, line)))
    notebooks = [p for p in tree.by_type("notebook") if _in_test_dir(p)]
    if notebooks:
        python_units = _units_by_path(tree)
    for path in notebooks:
        candidates += 1
        hit = None
        for unit in (python_units or {}).get(path, []):
            line = _first_python_test(unit, True)
            if line is not None:
                hit = Evidence(path, "test notebook with a test", rule="test_file_presence.notebook",
                               line_start=line, snippet=_line_text(unit.lines, line), cell=unit.cell)
                break
        if hit is None:
            empty.append(path)
        else:
            counted.append(hit)
    for kind, is_module, pattern, rule in (
        ("r", _is_r_test_module, _R_TEST_RE, "test_file_presence.r_testthat"),
        ("julia", _is_julia_test_module, _JULIA_TEST_RE, "test_file_presence.julia"),
    ):
        for path in tree.by_type(kind):
            if not is_module(path):
                continue
            candidates += 1
            found = None
            for number, line in enumerate(tree.lines(path), start=1):
                if pattern.search(_blank_strings(_strip_hash_comment(line))):
                    found = (number, line)
                    break
            if found is None:
                empty.append(path)
            else:
                counted.append(Evidence(path, "test file with a test", rule=rule, line_start=found[0], snippet=found[1]))
    n = len(counted)
    value = min(n / 2, 1) * 100
    evidence = counted[:MAX_EVIDENCE] + [
        Evidence(p, "test module without any test function, test class or assertion", rule="test_file_presence.no_tests")
        for p in empty[: max(0, MAX_EVIDENCE - len(counted))]
    ]
    counts = {"test_files": n, "candidate_modules": candidates, "modules_without_tests": len(empty)}
    if n == 0:
        fix = ("Add automated tests, e.g. tests/test_<module>.py with pytest test_* functions "
               "(tests/testthat/test-<topic>.R for R, test/runtests.jl for Julia).")
    elif n == 1:
        fix = f"Add at least one more test module beside {counted[0].path} to cover the rest of the analysis code."
    else:
        fix = None
    return Result(value, evidence=evidence, fix=fix, counts=counts,
                  reason=f"{n} test module{'s' if n != 1 else ''} with at least one test")


# =========================================================================== S4 expected_outputs

_OUTPUT_DIR_NAMES = frozenset({
    "results", "outputs", "output", "expected", "reference", "expected_outputs", "reference_outputs",
    "ground_truth", "figures", "figs", "fig", "plots", "expected_results", "reference_results",
    "golden", "snapshots",
})
_EXPECTED_OUTPUT_RE = re.compile(
    r"(?<![A-Za-z0-9])(?:expected|sample|example|reference)\s+(?:outputs?|results?)(?![A-Za-z0-9])",
    re.IGNORECASE,
)
_FIGURE_SUFFIXES = frozenset({".png", ".pdf", ".svg", ".jpg", ".jpeg", ".eps", ".tif", ".tiff"})
_ASSET_DIRS = frozenset({"docs", "doc", "assets", "img", "imgs", "images", ".github"})
_ASSET_NAME_RE = re.compile(r"(?:logo|banner|icon|badge)", re.IGNORECASE)


def _output_dirs(tree: TreeIndex) -> list[tuple[str, list[str]]]:
    """Output directories at depth ≤ 2 with the non-hidden files they hold (recursively)."""
    found = []
    level_one = [d for d in tree.subdirs("") if not _name(d).startswith(".")]
    level_two = [s for d in level_one for s in tree.subdirs(d) if not _name(s).startswith(".")]
    for directory in level_one + level_two:
        if _name(directory).lower() not in _OUTPUT_DIR_NAMES:
            continue
        prefix = len(directory) + 1
        files = [p for p in tree.files_under(directory) if not _is_hidden(p[prefix:])]
        if files:
            found.append((directory, files))
    return found


def _readme_output_mentions(tree: TreeIndex) -> list[Evidence]:
    doc = tree.readme_document()
    if doc is None:
        return []
    found = []
    for heading in doc.headings:
        if _EXPECTED_OUTPUT_RE.search(heading.text):
            found.append(Evidence(doc.path, f"README heading '{heading.text}'", rule="expected_outputs.readme_heading",
                                  line_start=heading.line, snippet=_line_text(doc.raw_lines, heading.line)))
    for paragraph in doc.paragraphs:
        if not _EXPECTED_OUTPUT_RE.search(paragraph.text):
            continue
        line = next(
            (n for n in range(paragraph.line_start, paragraph.line_end + 1)
             if _EXPECTED_OUTPUT_RE.search(_line_text(doc.raw_lines, n) or "")),
            paragraph.line_start,
        )
        found.append(Evidence(doc.path, "README sentence about expected output", rule="expected_outputs.readme_sentence",
                              line_start=line, snippet=_line_text(doc.raw_lines, line)))
    return sorted(found, key=lambda e: e.line_start or 0)


def _is_result_figure(path: str) -> bool:
    name = _name(path)
    dot = name.rfind(".")
    if dot <= 0 or name[dot:].lower() not in _FIGURE_SUFFIXES:
        return False
    if _is_hidden(path) or _ASSET_NAME_RE.match(name):
        return False
    return not any(part.lower() in _ASSET_DIRS for part in path.split("/")[:-1])


@detector("expected_outputs", version="2.0.0")
def expected_outputs(tree: TreeIndex) -> Result:
    """Reference outputs are committed, so a rerun has something to compare with (0/40/60/100).

    What it checks:
        100: a directory named results, outputs, output, expected, reference,
        expected_outputs, reference_outputs, ground_truth, figures, figs, fig, plots,
        expected_results, reference_results, golden or snapshots (any case) at depth ≤ 2
        holding at least one non-hidden file at any depth. 60: a README heading or
        sentence about expected / sample / example / reference output(s) or result(s).
        40: a committed figure (.png .pdf .svg .jpg .jpeg .eps .tif .tiff) outside
        documentation and asset locations (docs/, doc/, assets/, img/, images/,
        .github/, hidden folders; files named logo*, banner*, icon*, badge*), or a
        Jupyter notebook with stored outputs in at least one code cell. 0: none. The
        highest tier found wins.
    Why it matters:
        Reproducing a result means comparing a rerun with the published numbers and
        figures; without committed outputs there is nothing to compare against.
    Evidence:
        The output directory and its file count, the README line, or the figures and the
        first notebook cell with stored output. Counts: output directories, README
        mentions, figures, notebooks with outputs.
    How to fix:
        Commit the reference outputs of a run (results/ with tables and figures), and
        describe the expected output in the README.
    Known false positives:
        A results/ or figures/ folder holding placeholders or documentation images
        (docs/figures/ included) counts; so does a README that only mentions "example
        output" in passing, a paper PDF at the root, or a notebook whose outputs are
        error tracebacks.
    """
    dirs = _output_dirs(tree)
    mentions = _readme_output_mentions(tree)
    figures = [p for p in tree.files if _is_result_figure(p)]
    notebook_outputs: list[Evidence] = []
    for path in tree.by_type("notebook"):
        nb = tree.notebook(path)
        cell = next((c for c in nb.code_cells if c.has_outputs), None) if nb is not None else None
        if cell is not None:
            notebook_outputs.append(Evidence(path, f"notebook with stored outputs (first in cell {cell.index})",
                                             rule="expected_outputs.notebook_outputs", line_start=1, cell=cell.index,
                                             snippet=(cell.source.splitlines() or [""])[0]))
    counts = {
        "output_dirs": len(dirs),
        "readme_mentions": len(mentions),
        "figures": len(figures),
        "notebooks_with_outputs": len(notebook_outputs),
    }
    if dirs:
        evidence = [Evidence(d, f"output directory holding {len(files)} file{'s' if len(files) != 1 else ''}",
                             rule="expected_outputs.output_dir", snippet=", ".join(_name(f) for f in files[:5]))
                    for d, files in dirs]
        return Result(100, evidence=evidence[:MAX_EVIDENCE], counts=counts,
                      reason=f"reference outputs committed in {_join_names([d for d, _ in dirs])}")
    if mentions:
        return Result(60, evidence=mentions[:MAX_EVIDENCE], counts=counts,
                      fix="Commit the reference outputs of a run in results/ (tables, figures) next to the README description.",
                      reason="the README describes the expected output, but no output directory is committed")
    if figures or notebook_outputs:
        evidence = [Evidence(p, "committed figure", rule="expected_outputs.figure") for p in figures[:10]]
        evidence += notebook_outputs[: MAX_EVIDENCE - len(evidence)]
        return Result(40, evidence=evidence, counts=counts,
                      fix="Collect the reference outputs in a results/ directory and describe them under an 'Expected output' README heading.",
                      reason="only figures or notebook outputs are committed")
    return Result(0, counts=counts,
                  fix="Commit the outputs of a reference run in results/ and describe the expected output in the README.",
                  reason="no committed outputs, output directory or README description of expected output")


# =========================================================================== S5 ci_presence

_CI_ROOT_FILES = frozenset({
    ".travis.yml", ".travis.yaml", ".gitlab-ci.yml", ".gitlab-ci.yaml", "azure-pipelines.yml",
    "azure-pipelines.yaml", "jenkinsfile", "appveyor.yml", ".appveyor.yml", "appveyor.yaml",
    ".appveyor.yaml", "bitbucket-pipelines.yml", ".drone.yml", ".drone.yaml", ".woodpecker.yml",
    ".woodpecker.yaml", ".cirrus.yml",
})
# Directories whose YAML files are CI pipelines (path segments matched case-insensitively).
_CI_DIRS = ((".github", "workflows"), (".circleci",), (".buildkite",), (".woodpecker",))
_YAML_NAME_RE = re.compile(r".+\.ya?ml", re.IGNORECASE)
_CI_TEST_RE = re.compile(
    r"(?<![\w-])(?:pytest|tox|nox|make\s+(?:test|check)|R\s+CMD\s+check|rcmdcheck|devtools::test|"
    r"testthat|check-r-package|Pkg\.test|julia-runtest|unittest|npm\s+test|ctest|cargo\s+test|go\s+test)(?![\w-])"
)


def _ci_files(tree: TreeIndex) -> list[str]:
    found = [p for p in tree.files_in("") if _name(p).lower() in _CI_ROOT_FILES]
    for segments in _CI_DIRS:
        directory = ""
        for segment in segments:
            directory = tree.find_ci(segment, directory) or ""
            if not directory or not tree.is_dir(directory):
                break
        else:
            found.extend(p for p in tree.files_in(directory) if _YAML_NAME_RE.fullmatch(_name(p)))
    return sorted(found)


@detector("ci_presence", version="2.0.0")
def ci_presence(tree: TreeIndex) -> Result:
    """A continuous-integration configuration file exists (0 or 100).

    What it checks:
        A workflow file .github/workflows/*.yml|yaml, .circleci/*.yml, .buildkite/*.yml
        or .woodpecker/*.yml, or one of the top-level files .travis.yml, .gitlab-ci.yml
        (.yaml), azure-pipelines.yml, Jenkinsfile, appveyor.yml, .appveyor.yml,
        bitbucket-pipelines.yml, .drone.yml, .woodpecker.yml, .cirrus.yml (names
        matched case-insensitively). Whether a job runs tests (pytest, tox, nox, make
        test, R CMD check, Pkg.test …) is recorded but does not change the value.
    Why it matters:
        CI runs the code on a clean machine at every change: the cheapest continuous
        evidence that the code works outside the author's environment.
    Evidence:
        Each CI file, and the first line that runs tests in each. Counts: CI files, and
        runs_tests.
    How to fix:
        Add a workflow such as .github/workflows/tests.yml that installs the environment
        and runs the tests on every push.
    Known false positives:
        A workflow that only runs bots (stale issues, labeler) or deploys documentation
        counts; so does a configuration left behind for a CI service no longer in use.
    """
    files = _ci_files(tree)
    if not files:
        return Result(0, counts={"ci_files": 0, "runs_tests": False},
                      fix="Add a CI workflow such as .github/workflows/tests.yml that installs the environment and runs the tests on every push.",
                      reason="no continuous-integration configuration file")
    evidence = [Evidence(p, "CI configuration file", rule="ci_presence.config") for p in files]
    runs_tests = False
    for path in files:
        for number, line in enumerate(tree.lines(path), start=1):
            if _CI_TEST_RE.search(_strip_hash_comment(line)):
                runs_tests = True
                evidence.append(Evidence(path, "CI job runs tests", rule="ci_presence.runs_tests",
                                         line_start=number, snippet=line))
                break
    return Result(100, evidence=evidence[:MAX_EVIDENCE], counts={"ci_files": len(files), "runs_tests": runs_tests},
                  reason=f"CI configured in {_join_names(files)}")


# =========================================================================== S6 config_externalised

_PARAM_FILE_RE = re.compile(r"(?:config|params|settings|hyperparams)\.(?:ya?ml|json|toml|ini|cfg)", re.IGNORECASE)
_PARAM_SUFFIX_RE = re.compile(r".+\.(?:ya?ml|json|toml|ini|cfg)", re.IGNORECASE)
_CONFIG_DIR_NAMES = frozenset({"config", "configs", "conf", "params", "settings"})
_TOOL_CONFIG_NAMES = frozenset({
    "setup.cfg", "tox.ini", "pyproject.toml", "pytest.ini", "mypy.ini", "ruff.toml", "codecov.yml",
    "mkdocs.yml", "package.json", "package-lock.json", "tsconfig.json", "renovate.json",
    "environment.yml", "environment.yaml", "meta.yaml", "pixi.toml", "cargo.toml", "project.toml",
    "manifest.toml", "codemeta.json", "citation.cff", ".zenodo.json", "dependabot.yml",
}) | _CI_ROOT_FILES
_CONDA_ENV_NAME_RE = re.compile(r"(?:.*[-_.])?environment(?:[-_.].*)?\.ya?ml", re.IGNORECASE)
_CONFIG_IMPORTS = frozenset({"hydra", "omegaconf"})
_CLI_IMPORTS = frozenset({"argparse", "optparse", "getopt", "click", "typer", "docopt", "fire"})
_ABSL_FLAGS = ("absl.flags", "absl.app")
# Names tested with ``in`` against CodeUnit.word_text (the distinct words, a fraction of
# the source): cheaper than one alternation tried at every position of the source.
_CONFIG_HINTS = ("hydra", "omegaconf", "argparse", "optparse", "getopt", "click", "typer", "docopt", "fire", "absl", "argv")
_ARGV_FALLBACK_RE = re.compile(r"(?<![\w.])sys\.argv\s*\[")
_R_CONFIG_GET_RE = re.compile(r"(?<![\w.])config::get\s*\(")
_R_CLI_RE = re.compile(
    r"(?<![\w.])(?:(?:library|require|requireNamespace|p_load)\s*\(\s*[\"']?(?:optparse|argparse|docopt|getopt)\b"
    r"|(?:optparse|argparse|docopt|getopt)::|commandArgs\s*\()"
)
_JULIA_CLI_RE = re.compile(r"(?<![\w.])ARGS(?!\w)|^\s*(?:using|import)\s+(?:ArgParse|DocOpt|Comonicon)\b")
_SNAKEMAKE_CONFIG_RE = re.compile(r"^\s*configfile\s*:")
_NEXTFLOW_PARAMS_RE = re.compile(r"^\s*params\s*\{|^\s*params\.[A-Za-z_]\w*\s*=")
_FRONT_MATTER_PARAMS_RE = re.compile(r"^params\s*:")


def _is_tool_config(name: str) -> bool:
    lower = name.lower()
    return lower in _TOOL_CONFIG_NAMES or lower.startswith(".") or bool(_CONDA_ENV_NAME_RE.fullmatch(name))


def _parameter_files(tree: TreeIndex) -> list[Evidence]:
    found = [Evidence(p, "parameter file at the root", rule="config_externalised.parameter_file")
             for p in tree.files_in("") if _PARAM_FILE_RE.fullmatch(_name(p))]
    level_one = [d for d in tree.subdirs("") if not _name(d).startswith(".")]
    level_two = [s for d in level_one for s in tree.subdirs(d) if not _name(s).startswith(".")]
    for directory in level_one + level_two:
        if _name(directory).lower() not in _CONFIG_DIR_NAMES:
            continue
        prefix = len(directory) + 1
        for path in tree.files_under(directory):
            name = _name(path)
            if _PARAM_SUFFIX_RE.fullmatch(name) and not _is_tool_config(name) and not _is_hidden(path[prefix:]):
                found.append(Evidence(path, f"parameter file in the config directory {directory}/",
                                      rule="config_externalised.config_dir"))
                break
    return found


def _argv_subscript(unit: CodeUnit) -> int | None:
    """Line of the first ``sys.argv[…]`` (or ``argv[…]`` imported from sys)."""
    if "argv" not in unit.source:
        return None
    if unit.tree is None:
        for number, line in enumerate(unit.lines, start=1):
            if _ARGV_FALLBACK_RE.search(_strip_hash_comment(line)):
                return number
        return None
    aliases = unit.aliases
    for node in ast.walk(unit.tree):
        if not isinstance(node, ast.Subscript):
            continue
        value = node.value
        if isinstance(value, ast.Attribute) and value.attr == "argv" and isinstance(value.value, ast.Name):
            if aliases.get(value.value.id, value.value.id) == "sys":
                return node.lineno
        elif isinstance(value, ast.Name) and aliases.get(value.id) == "sys.argv":
            return node.lineno
    return None


def _python_config_signals(tree: TreeIndex) -> tuple[list[Evidence], list[Evidence]]:
    """(100-tier, 80-tier) evidence from Python files and notebook cells, one per file."""
    full: dict[str, Evidence] = {}
    cli: dict[str, Evidence] = {}
    for unit in tree.python_units():
        if unit.path in full or not any(hint in unit.word_text for hint in _CONFIG_HINTS):
            continue
        for ref in unit.imports:
            line, cell = _unit_location(unit, ref.line)
            snippet = _line_text(unit.lines, ref.line)
            if ref.top in _CONFIG_IMPORTS:
                full[unit.path] = Evidence(unit.path, f"imports {ref.top}, a configuration framework",
                                           rule="config_externalised.config_framework", line_start=line, cell=cell, snippet=snippet)
                break
            if unit.path not in cli and (ref.top in _CLI_IMPORTS or ref.module.startswith(_ABSL_FLAGS)):
                cli[unit.path] = Evidence(unit.path, f"imports the command-line parser {ref.module}",
                                          rule="config_externalised.cli_parser", line_start=line, cell=cell, snippet=snippet)
        if unit.path in full or unit.path in cli:
            continue
        absl = "absl" in unit.source and next((v for v in unit.aliases.values() if v.startswith(_ABSL_FLAGS)), None)
        if absl:
            ref = next((r for r in unit.imports if r.top == "absl"), None)
            line, cell = _unit_location(unit, ref.line if ref else 1)
            cli[unit.path] = Evidence(unit.path, f"imports the command-line parser {absl}",
                                      rule="config_externalised.cli_parser", line_start=line, cell=cell)
            continue
        argv = _argv_subscript(unit)
        if argv is not None:
            line, cell = _unit_location(unit, argv)
            cli[unit.path] = Evidence(unit.path, "reads command-line arguments from sys.argv",
                                      rule="config_externalised.argv", line_start=line, cell=cell,
                                      snippet=_line_text(unit.lines, argv))
    return list(full.values()), [e for p, e in cli.items() if p not in full]


def _text_config_signals(tree: TreeIndex) -> tuple[list[Evidence], list[Evidence]]:
    """(100-tier, 80-tier) evidence from R and Julia code."""
    full: list[Evidence] = []
    cli: list[Evidence] = []
    seen_full: set[str] = set()
    seen_cli: set[str] = set()
    for unit in _text_units(tree):
        for line, code, raw in unit.code_lines():
            if unit.language == "r" and unit.path not in seen_full and _R_CONFIG_GET_RE.search(code):
                seen_full.add(unit.path)
                full.append(Evidence(unit.path, "reads parameters with config::get()", rule="config_externalised.r_config",
                                     line_start=line, cell=unit.cell, snippet=raw))
            pattern = _R_CLI_RE if unit.language == "r" else _JULIA_CLI_RE
            if unit.path not in seen_cli and pattern.search(code):
                seen_cli.add(unit.path)
                cli.append(Evidence(unit.path, "reads command-line arguments", rule="config_externalised.cli_parser",
                                    line_start=line, cell=unit.cell, snippet=raw))
    return full, [e for e in cli if e.path not in seen_full]


def _workflow_config_signals(tree: TreeIndex) -> list[Evidence]:
    """Snakemake configfile:, Nextflow params, papermill parameters cells, R Markdown params."""
    found: list[Evidence] = []
    for path in tree.files:
        name = _name(path).lower()
        if name == "snakefile" or name.endswith(".smk"):
            pattern, rule, reason = _SNAKEMAKE_CONFIG_RE, "config_externalised.snakemake_configfile", "Snakemake configfile:"
        elif name.endswith(".nf") or name == "nextflow.config":
            pattern, rule, reason = _NEXTFLOW_PARAMS_RE, "config_externalised.nextflow_params", "Nextflow params"
        else:
            continue
        for number, line in enumerate(tree.lines(path), start=1):
            if pattern.search(line):
                found.append(Evidence(path, reason, rule=rule, line_start=number, snippet=line))
                break
    for path in tree.by_type("notebook"):
        nb = tree.notebook(path)
        cell = next((c for c in nb.code_cells if "parameters" in c.tags), None) if nb is not None else None
        if cell is not None:
            found.append(Evidence(path, "papermill cell tagged 'parameters'", rule="config_externalised.papermill",
                                  line_start=1, cell=cell.index, snippet=(cell.source.splitlines() or [""])[0]))
    for path in tree.by_type("rmd"):
        lines = tree.lines(path)
        if not lines or lines[0].strip() != "---":
            continue
        for number, line in enumerate(lines[1:], start=2):
            if line.strip() in ("---", "..."):
                break
            if _FRONT_MATTER_PARAMS_RE.match(line):
                found.append(Evidence(path, "parameterised report (params: in the YAML header)",
                                      rule="config_externalised.rmd_params", line_start=number, snippet=line))
                break
    return found


@detector("config_externalised", version="2.0.0")
def config_externalised(tree: TreeIndex) -> Result:
    """Run parameters live outside the code: parameter files (100) or a command line (80).

    What it checks:
        100: a parameter file — config|params|settings|hyperparams with a .yaml .yml
        .json .toml .ini .cfg extension at the root, or any file with those extensions
        under a config, configs, conf, params or settings directory at depth ≤ 2 (tool
        configuration such as setup.cfg, tox.ini, pyproject.toml, environment.yml, CI
        and hidden files excluded); a Hydra or OmegaConf import; Snakemake configfile:;
        Nextflow params; a papermill cell tagged "parameters"; R config::get(); params:
        in an R Markdown/Quarto YAML header. 80: a command-line parser imported
        (argparse, optparse, getopt, click, typer, docopt, fire, absl.flags/app), a
        sys.argv subscript, R optparse/argparse/docopt/getopt or commandArgs(), Julia
        ARGS or ArgParse/DocOpt/Comonicon. 0: none. Imports are read from the parsed
        code, never from comments or prose; the highest tier found wins.
    Why it matters:
        Parameters buried in code must be edited by hand to rerun or vary an analysis;
        externalised parameters record exactly what the published run used.
    Evidence:
        The parameter file, config directory file or the import / call line (cell for
        notebooks). Counts: parameter files, configuration framework uses, CLI uses.
    How to fix:
        Move run parameters into config.yaml (or params.yaml) and read it in the code,
        or at least expose them as command-line options with argparse.
    Known false positives:
        A file named config.json or a configs/ folder holding something other than run
        parameters counts; an argparse import in a helper script counts although the
        analysis itself may hard-code its parameters.
    """
    files = _parameter_files(tree)
    py_full, py_cli = _python_config_signals(tree)
    text_full, text_cli = _text_config_signals(tree)
    workflow = _workflow_config_signals(tree)
    full = files + workflow + py_full + text_full
    cli = py_cli + text_cli
    counts = {"parameter_files": len(files), "config_frameworks": len(py_full) + len(text_full) + len(workflow),
              "cli_files": len(cli)}
    if full:
        return Result(100, evidence=full[:MAX_EVIDENCE], counts=counts,
                      reason=f"parameters externalised ({full[0].reason}: {full[0].path})")
    if cli:
        return Result(80, evidence=cli[:MAX_EVIDENCE], counts=counts,
                      fix="Move the run parameters into a parameter file (config.yaml or params.yaml) read by the code, "
                          "so the exact settings of the published run are recorded.",
                      reason=f"parameters come from the command line ({_join_names([e.path for e in cli])})")
    return Result(0, counts=counts,
                  fix="Move hard-coded run parameters into config.yaml (read with yaml/Hydra) or expose them as "
                      "argparse command-line options.",
                  reason="no parameter file, configuration framework or command-line parser found")


# =========================================================================== S7 hardware_requirements

_GPU_DEPENDENCY_RE = re.compile(
    r"torch|pytorch|tensorflow(?:-gpu|-metal)?|tf-nightly-gpu|jax|jaxlib|jax-cuda.*|cupy(?:-.+)?|cudf(?:-.+)?"
    r"|cuml(?:-.+)?|cugraph(?:-.+)?|rapids(?:-.+)?|mxnet(?:-.+)?|lightning|pytorch-lightning|pytorch-cuda"
    r"|cudatoolkit|cuda-toolkit|cuda-python|cuda|pycuda|paddlepaddle-gpu|onnxruntime-gpu|nvidia-.+|.+-cu\d+x?"
)
_GPU_IMPORTS = frozenset({
    "torch", "tensorflow", "jax", "jaxlib", "cupy", "cupyx", "cudf", "cuml", "cugraph", "mxnet",
    "lightning", "pytorch_lightning", "pycuda", "paddle", "tensorrt", "triton",
})
# Substring tests, as for _CONFIG_HINTS ("cuda" covers "pycuda").
_GPU_HINTS = ("torch", "tensorflow", "jax", "cupy", "cudf", "cuml", "cugraph", "mxnet", "lightning", "paddle",
              "tensorrt", "triton", "numba", "cuda")
_R_GPU_RE = re.compile(r"(?<![\w.])(?:library|require|requireNamespace)\s*\(\s*[\"']?(torch|tensorflow|keras|gpuR)\b")
_JULIA_GPU_RE = re.compile(r"^\s*(?:using|import)\s+[^#]*?(?<![\w.])(CUDA|CuArrays|AMDGPU)(?!\w)")
_HARDWARE_WORDS_RE = re.compile(
    r"(?<![A-Za-z0-9])(?:GPUs?|CUDA|cuDNN|NVIDIA|VRAM|TPUs?|CPU[- ]only)(?![A-Za-z0-9])", re.IGNORECASE
)
_MEMORY_RE = re.compile(
    r"(?<![A-Za-z0-9])\d+(?:\.\d+)?\s*(?:GB|GiB|TB)\s+(?:of\s+)?(?:(?:system|GPU|host|main)\s+)?(?:RAM|memory|VRAM)(?![A-Za-z0-9])"
    r"|(?<![A-Za-z0-9])(?:RAM|memory)(?![A-Za-z0-9])[^.\n]{0,40}?\d+(?:\.\d+)?\s*(?:GB|GiB|TB)(?![A-Za-z0-9])",
    re.IGNORECASE,
)
_GPUS_FLAG_RE = re.compile(r"--gpus\b")
_CUDA_WHEEL_INDEX_RE = re.compile(r"/whl/cu\d+|/cu\d+/torch", re.IGNORECASE)
_GPU_IMAGE_RE = re.compile(r"(?:^|/)nvidia/|nvcr\.io/|(?<![a-z0-9])(?:cuda|cudnn|gpu)(?![a-z])", re.IGNORECASE)
_DOCKERFILE_NAME_RE = re.compile(r"(?:.+\.)?(?:dockerfile|containerfile)(?:\..+)?", re.IGNORECASE)
_COMPOSE_NAME_RE = re.compile(r"(?:docker-)?compose(?:\..+)?\.ya?ml", re.IGNORECASE)
_COMPOSE_GPU_RE = re.compile(r"(?:runtime|driver)\s*:\s*[\"']?nvidia|capabilities\s*:.*\bgpu\b", re.IGNORECASE)
_PROSE_SUFFIXES = ("", ".md", ".markdown", ".rst", ".txt")
_NOT_HARDWARE_DOCS_RE = re.compile(
    r"(?:license|licence|copying|changelog|changes|news|history|code_of_conduct|authors|contributors)(?:[-_.].*)?"
    r"|(?:.*[-_.])?(?:requirements|constraints)(?:[-_.].*)?\.(?:txt|in)",
    re.IGNORECASE,
)


def _gpu_triggers(tree: TreeIndex, limit: int = 5) -> list[Evidence]:
    """Why the repository can use a GPU: declared frameworks, imports, CUDA calls."""
    found: list[Evidence] = []
    for manifest in tree.manifests():
        for dep in manifest.dependencies:
            if _GPU_DEPENDENCY_RE.fullmatch(dep.normalized):
                found.append(Evidence(dep.file or manifest.path, f"GPU-capable dependency {dep.name}",
                                      rule="hardware_requirements.gpu_dependency", line_start=dep.line, snippet=dep.raw))
                break
        if len(found) >= limit:
            return found
    seen: set[str] = set()
    for unit in tree.python_units():
        if unit.path in seen or not any(hint in unit.word_text for hint in _GPU_HINTS):
            continue
        for ref in unit.imports:
            if ref.top in _GPU_IMPORTS or ref.module.startswith("numba.cuda"):
                line, cell = _unit_location(unit, ref.line)
                found.append(Evidence(unit.path, f"imports {ref.module}", rule="hardware_requirements.gpu_import",
                                      line_start=line, cell=cell, snippet=_line_text(unit.lines, ref.line)))
                seen.add(unit.path)
                break
        else:
            call = _cuda_call(unit)
            if call is not None:
                line, cell = _unit_location(unit, call)
                found.append(Evidence(unit.path, "moves computation to a CUDA device", rule="hardware_requirements.cuda_call",
                                      line_start=line, cell=cell, snippet=_line_text(unit.lines, call)))
                seen.add(unit.path)
        if len(found) >= limit:
            return found
    for unit in _text_units(tree):
        if unit.path in seen:
            continue
        pattern = _R_GPU_RE if unit.language == "r" else _JULIA_GPU_RE
        for line, code, raw in unit.code_lines():
            match = pattern.search(code)
            if match:
                found.append(Evidence(unit.path, f"loads {match.group(1)}", rule="hardware_requirements.gpu_import",
                                      line_start=line, cell=unit.cell, snippet=raw))
                seen.add(unit.path)
                break
        if len(found) >= limit:
            break
    return found


def _cuda_call(unit: CodeUnit) -> int | None:
    """Line of ``x.cuda()``, ``device("cuda…")`` or ``x.to("cuda…")``."""
    if "cuda" not in unit.source:
        return None
    for call in unit.calls:
        last = call.written.rsplit(".", 1)[-1]
        if last == "cuda" and "." in call.written:
            return call.line
        if last in ("device", "to"):
            values = [a for a in call.node.args[:1]] + [k.value for k in call.node.keywords if k.arg == "device"]
            if any(isinstance(v, ast.Constant) and isinstance(v.value, str) and v.value.startswith("cuda") for v in values):
                return call.line
    return None


def _prose_documents(tree: TreeIndex) -> list[str]:
    """README files anywhere, root documentation files and files under docs/ or doc/."""
    readme = tree.readme
    docs: list[str] = [readme] if readme else []
    doc_roots = tuple(d + "/" for d in tree.subdirs("") if _name(d).lower() in ("docs", "doc"))
    for path in tree.files:
        if path == readme:
            continue
        name = _name(path)
        lower = name.lower()
        dot = lower.rfind(".")
        suffix = lower[dot:] if dot > 0 else ""
        if suffix not in _PROSE_SUFFIXES:
            continue
        if lower.startswith(("readme", "install")):
            docs.append(path)
        elif "/" not in path and suffix in (".md", ".markdown", ".rst") and not _NOT_HARDWARE_DOCS_RE.fullmatch(name):
            docs.append(path)
        elif path.startswith(doc_roots) and suffix:
            docs.append(path)
    return docs


def _prose_declaration(path: str, lines: Sequence[str]) -> Evidence | None:
    for number, line in enumerate(lines, start=1):
        if (_HARDWARE_WORDS_RE.search(line) or _MEMORY_RE.search(line) or _GPUS_FLAG_RE.search(line)
                or _CUDA_WHEEL_INDEX_RE.search(line) or has_cuda_tag(line)):
            return Evidence(path, "hardware requirement stated", rule="hardware_requirements.documented",
                            line_start=number, snippet=line)
    return None


def _environment_declarations(tree: TreeIndex) -> Iterator[Evidence]:
    """CUDA-tagged manifest entries, CUDA wheel indexes, GPU base images, ``--gpus``."""
    for manifest in tree.manifests():
        for dep in manifest.dependencies:
            if has_cuda_tag(dep):
                yield Evidence(dep.file or manifest.path, f"CUDA build pinned ({dep.name})",
                               rule="hardware_requirements.cuda_pin", line_start=dep.line, snippet=dep.raw)
                break
        else:
            for number, line in enumerate(tree.lines(manifest.path), start=1):
                if _CUDA_WHEEL_INDEX_RE.search(line) and not line.lstrip().startswith("#"):
                    yield Evidence(manifest.path, "CUDA wheel index", rule="hardware_requirements.cuda_pin",
                                   line_start=number, snippet=line)
                    break
    for path in tree.files:
        name = _name(path)
        if _DOCKERFILE_NAME_RE.fullmatch(name):
            dockerfile = tree.dockerfile(path)
            if dockerfile is None:
                continue
            for stage in dockerfile.stages:
                if _GPU_IMAGE_RE.search(stage.image or ""):
                    yield Evidence(path, f"GPU base image {stage.image}", rule="hardware_requirements.gpu_image",
                                   line_start=stage.line, snippet=f"FROM {stage.image}")
                    break
            else:
                for instruction in dockerfile.instructions:
                    if has_cuda_tag(instruction.args) or _CUDA_WHEEL_INDEX_RE.search(instruction.args) or _GPUS_FLAG_RE.search(instruction.args):
                        yield Evidence(path, "CUDA build installed in the image", rule="hardware_requirements.cuda_pin",
                                       line_start=instruction.line_start, line_end=instruction.line_end,
                                       snippet=f"{instruction.keyword} {instruction.args}")
                        break
        elif _COMPOSE_NAME_RE.fullmatch(name):
            for number, line in enumerate(tree.lines(path), start=1):
                if _COMPOSE_GPU_RE.search(line):
                    yield Evidence(path, "container requests an NVIDIA GPU", rule="hardware_requirements.compose_gpu",
                                   line_start=number, snippet=line)
                    break


@detector("hardware_requirements", version="2.0.0")
def hardware_requirements(tree: TreeIndex) -> Result:
    """Code that can use a GPU states its hardware requirements (0 or 100; N/A → 100).

    What it checks:
        Applicable when a GPU-capable framework is declared in any dependency manifest
        (torch, tensorflow(-gpu), jax/jaxlib, cupy*, cudf/cuml/rapids, mxnet*,
        (pytorch-)lightning, nvidia-* wheels, pytorch-cuda, cudatoolkit, Julia CUDA …),
        imported in code (Python, R library(torch|tensorflow|keras), Julia using CUDA),
        or the code calls .cuda(), device("cuda") or .to("cuda"). Then 100 if hardware is
        declared: whole words GPU(s), CUDA, cuDNN, NVIDIA, VRAM, TPU(s), CPU-only, or a
        RAM/memory size in GB, in a README (any folder), a root documentation file,
        INSTALL*, or docs/; a CUDA-tagged manifest entry (+cu118, pytorch-cuda,
        cudatoolkit, -cuda12, [cuda] extras, nvidia-*-cu12) or a CUDA wheel index; a GPU
        base image (FROM nvidia/cuda, *-cuda*/*-gpu tags) or a CUDA build installed in a
        Dockerfile; docker --gpus or a compose file requesting an NVIDIA device.
        Otherwise 0. With no GPU-capable dependency the metric is not applicable and
        scores 100.
    Why it matters:
        GPU code may fail, run for weeks, or give different numbers on other hardware;
        a reader needs to know what the published run used before trying to repeat it.
    Evidence:
        The triggering dependency, import or call (file, line), and the declaration
        (file, line). Counts: GPU triggers and declarations found.
    How to fix:
        State the hardware in the README: GPU model and memory, CUDA version (or that a
        CPU is enough), and the RAM a full run needs.
    Known false positives:
        Any mention of GPU/CUDA in the documentation counts, even "no GPU needed" or a
        changelog-style note; torch and tensorflow are GPU-capable but often run on CPU
        only, which still makes the metric applicable.
    """
    triggers = _gpu_triggers(tree)
    if not triggers:
        return Result(100, applicable=False, counts={"gpu_triggers": 0, "declarations": 0},
                      reason="no GPU-capable framework declared, imported or called; not applicable")
    declarations: list[Evidence] = []
    for path in _prose_documents(tree):
        if path.lower().endswith(".ipynb"):
            doc = tree.document(path)  # a README notebook: its markdown, never its outputs
            lines = doc.raw_lines if doc is not None else []
        else:
            lines = tree.lines(path)
        found = _prose_declaration(path, lines)
        if found is not None:
            declarations.append(found)
            break
    if not declarations:
        declarations.extend(_environment_declarations(tree))
    counts = {"gpu_triggers": len(triggers), "declarations": len(declarations)}
    evidence = (triggers + declarations)[:MAX_EVIDENCE]
    if declarations:
        first = declarations[0]
        return Result(100, evidence=evidence, counts=counts,
                      reason=f"GPU-capable code; hardware declared in {first.path}"
                             + (f" line {first.line_start}" if first.line_start else ""))
    readme = tree.readme or "README.md"
    return Result(0, evidence=evidence, counts=counts,
                  fix=f"State the hardware in {readme}: GPU model and memory and CUDA version, or that a CPU is enough, "
                      "and the RAM a full run needs.",
                  reason=f"GPU-capable code ({triggers[0].reason}) but no hardware requirement is stated")
