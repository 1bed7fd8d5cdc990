"""S1 seed_management: files that make random calls also set a seed."""

from __future__ import annotations

import ast
import posixpath
import re
import weakref
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

from scoring.detectors.signals._common import (
    MAX_EVIDENCE,
    _join_names,
    _line_text,
    _parent,
)
from scoring.facts import FileFacts
from scoring.model import Evidence
from scoring.parsers.python import CodeUnit, dotted_name
from scoring.parsers.textfile import strip_hash_comment
from scoring.reference_data import table_json
from scoring.registry import Result, detector
from scoring.tree import TreeIndex

# --- code units (not converted to facts yet: the Python and R/Julia scans below) -------

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
            code = strip_hash_comment(raw)
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
    # .R/.r/.jl files and the R chunks of R Markdown are read from facts (_scan_facts)
    units: list[_TextUnit] = []
    for kind in ("notebook", "rmd"):
        for path in tree.by_type(kind):
            nb = tree.notebook(path)
            if nb is None:
                continue
            is_ipynb = kind == "notebook"
            for cell in nb.code_cells:
                if cell.language not in ("r", "julia") or (not is_ipynb and cell.language == "r"):
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


@lru_cache(maxsize=1)
def _stochastic_table() -> dict[str, Any]:
    return table_json("stochastic_calls.json")


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
        code = strip_hash_comment(raw)
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


@lru_cache(maxsize=1)
def _fact_names() -> dict[str, frozenset[str]]:
    table = _stochastic_table()
    r, julia = table["r"], table["julia"]
    return {"r_random": frozenset(r["stochastic"]), "r_seed": frozenset(r["seed"]),
            "julia_random": frozenset(julia["stochastic"]), "julia_seed": frozenset(julia["seed"]),
            "julia_generators": frozenset(julia["seeded_generators"])}


def _r_function(name: str) -> str:
    """The function of an R callee written ``pkg::f`` or ``pkg:::f``."""
    return name.rsplit("::", 1)[-1].lstrip(":")


def _scan_facts(record: _SeedFile, facts: FileFacts, tree: TreeIndex) -> None:
    """Random calls, seed calls and sourced files of an R or Julia file (or the R chunks
    of an R Markdown document) from its call facts: strings and comments hold none."""
    names = _fact_names()
    path = record.path
    for call in facts.calls:
        seed = random = None
        if facts.language == "r":
            function = _r_function(call.name)
            if "$" in call.name or "@" in call.name:
                continue
            if function in names["r_seed"] and (call.kwargs or (call.args and call.args[0] is not None)):
                seed = function
            if function in names["r_random"]:
                random = function
            if function in ("source", "sys.source") and call.name in ("source", "sys.source"):
                target = call.args[0] if call.args else dict(call.kwargs).get("file")
                if isinstance(target, str) and target:
                    record.sourced.append(target)
        else:
            written = call.written
            head, _, function = written.rpartition(".")
            if "." in head:
                continue
            if (call.args or call.kwargs) and (
                    (function in names["julia_seed"] and head in ("", "Random"))
                    or function in names["julia_generators"]):
                seed = function
            if function in names["julia_random"] and head in ("", "Random", "StatsBase"):
                random = function
            if written == "include" and call.args and isinstance(call.args[0], str) and call.args[0]:
                record.sourced.append(call.args[0])
        if seed is not None:
            record.seeds.append(_Hit(path, call.line, None, seed, tree.snippet(path, call.line)))
        if random is not None:
            record.random.append(_Hit(path, call.line, None, random, tree.snippet(path, call.line)))


def _seed_files(tree: TreeIndex) -> dict[str, _SeedFile]:
    files: dict[str, _SeedFile] = {}
    for path, units in _units_by_path(tree).items():
        record = files.setdefault(path, _SeedFile(path))
        record.units = units
        _scan_python(record, units)
    for path in tree.by_type("r") + tree.by_type("julia") + tree.by_type("rmd"):
        facts = tree.facts(path)
        if facts is None or facts.language not in ("r", "julia"):
            continue
        if path.lower().endswith((".rmd", ".qmd")) and not (
                facts.calls or facts.strings or facts.comments or facts.imports or facts.assignments or facts.definitions):
            continue   # no evaluated R chunk with code in it: nothing to scan
        record = files.setdefault(path, _SeedFile(path))
        _scan_facts(record, facts, tree)
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
