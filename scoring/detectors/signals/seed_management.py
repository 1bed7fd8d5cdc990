"""S1 seed_management: files that make random calls also set a seed."""

from __future__ import annotations

import posixpath
import re
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from scoring.detectors.signals._common import MAX_EVIDENCE, _join_names, _parent
from scoring.facts import CallFact, DefinitionFact, Expr, FileFacts, ImportFact, RandomFact
from scoring.model import Evidence
from scoring.reference_data import table_json
from scoring.registry import Result, detector
from scoring.tree import TreeIndex


@lru_cache(maxsize=1)
def _stochastic_table() -> dict[str, Any]:
    return table_json("stochastic_calls.json")


_DYNAMIC = object()   # an argument whose value is not a literal (a variable, a call …)
_MISSING = object()


@dataclass
class _CallSite:
    """A call as the seed rules see it: callee as written, line (within its cell in a
    notebook), literal argument values (``_DYNAMIC`` otherwise), whether ``*args`` or a
    ``**kwargs`` whose keywords cannot be seen are passed (``star``), and the keywords the
    ``**`` arguments that can be seen pass (``spread``)."""

    written: str
    line: int
    args: tuple[Any, ...] = ()
    keywords: dict[str, Any] = field(default_factory=dict)
    star: bool = False
    # the source text of each ``_DYNAMIC`` argument: by position, and by keyword
    arg_texts: tuple[str | None, ...] = ()
    keyword_texts: dict[str, str] = field(default_factory=dict)
    spread: frozenset[str] = frozenset()


def _has_seed(site: _CallSite, position: int | None, keywords: Iterable[str]) -> bool:
    """True when the call passes a non-None seed (or generator) where the API takes one.
    ``**kwargs`` whose keywords cannot be seen may carry it, so they are given the benefit
    of the doubt; a ``**kwargs`` bound to dicts written out carries it only when one of
    them has the keyword."""
    for keyword in keywords:
        if keyword in site.keywords:
            return site.keywords[keyword] is not None
        if keyword in site.spread:
            return True
    if position is not None and len(site.args) > position:
        return site.args[position] is not None
    return site.star


def _seed_text(site: _CallSite, position: int | None, keywords: Iterable[str]) -> str | None:
    """The source text of the seed the call passes where the API takes one, when it is
    no literal (a name, an expression); None otherwise."""
    for keyword in keywords:
        if keyword in site.keywords:
            return site.keyword_texts.get(keyword)
    if position is not None and len(site.args) > position:
        return site.arg_texts[position]
    return None


@dataclass(frozen=True)
class _Verdict:
    """What a Python call is to S1: a global seed call or a random call; whether it
    passes its own seed (``explicit``), the text of that seed when it is no literal, and
    whether it builds a generator of its own (``default_rng(…)``: global seeds do not
    reach its draws)."""

    kind: str
    explicit: bool
    seed_text: str | None = None
    generator: bool = False
    # a seed call: the generator families it seeds (METRICS.md §0.2.23)
    families: frozenset[str] = frozenset()


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
        self.seed_calls: dict[str, frozenset[str]] = {k: frozenset(v) for k, v in python["seed_calls"].items()}
        self.seed_methods: dict[str, frozenset[str]] = {k: frozenset(v) for k, v in python["seed_methods"].items()}
        self.families: dict[str, str] = python["families"]
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

    def classify(self, name: str, site: _CallSite) -> _Verdict | None:
        """A global seed call (explicit: always), a random call (``explicit`` telling
        whether it passes its own seed), or None."""
        last = name.rsplit(".", 1)[-1]
        families = self.seed_calls.get(name)
        if families is None and last in self.seed_methods and "." in site.written and "(" not in name:
            families = self.seed_methods[last]
        if families is not None:
            if not self._seed_argument(site):
                return None
            return _Verdict(self.SEED, True, _seed_text(site, 0, ("seed", "a")), families=families)
        spec = self.generators.get(name)
        if spec is not None:
            position, keywords = spec.get("position"), spec.get("keywords", ())
            return _Verdict(self.RANDOM, _has_seed(site, position, keywords), _seed_text(site, position, keywords),
                            generator=True)
        spec = self.functions.get(name)
        if spec is not None:
            if not _gate_open(site, spec):
                return None
            position, keywords = spec.get("position"), spec.get("keywords", ())
            return _Verdict(self.RANDOM, _has_seed(site, position, keywords), _seed_text(site, position, keywords))
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
                    return _Verdict(self.RANDOM, True)
                keywords = spec.get("keywords", ())
                return _Verdict(self.RANDOM, _has_seed(site, None, keywords), _seed_text(site, None, keywords))
        package = self.packages.get(name.split(".", 1)[0])
        if package is not None and "." in name and "(" not in last:
            spec = package["names"].get(last)
            if spec is not None and _gate_open(site, spec):
                keywords = package.get("keywords", ())
                return _Verdict(self.RANDOM, _has_seed(site, None, keywords), _seed_text(site, None, keywords))
        return None

    def family(self, name: str) -> str:
        """The generator family a random call draws from when it is given no seed of its
        own: its top module's (sklearn, scipy and DataFrame.sample draw from numpy's)."""
        top = name.split(".", 1)[0]
        return self.families.get(top, top)

    def classify_method(self, site: _CallSite) -> _Verdict | None:
        """``frame.sample(…)``: DataFrame/Series sampling and model sampling methods.
        ``.resample(…)`` (time series, signals) is a different name and never matches."""
        if "." in site.written and site.written.rsplit(".", 1)[-1] == self.sample_method["name"]:
            keywords = self.sample_method.get("keywords", ())
            return _Verdict(self.RANDOM, _has_seed(site, None, keywords), _seed_text(site, None, keywords))
        return None


@lru_cache(maxsize=1)
def _rules() -> _CallRules:
    return _CallRules(_stochastic_table())


def _site(call: CallFact) -> _CallSite:
    """The call as the seed rules see it, from its fact: a non-literal argument is
    ``_DYNAMIC``; ``*args`` (``Expr("*…")``) and ``**kwargs`` (the keyword ``**``) are
    left out of the arguments, and set ``star`` unless the frontend saw the keywords the
    ``**`` arguments pass (``spread``: a dict written out in the same scope)."""
    args: list[Any] = []
    arg_texts: list[str | None] = []
    star = False
    for value in call.args:
        text = None
        if type(value) is Expr:
            if value.text.startswith("*"):
                star = True
                continue
            value, text = _DYNAMIC, value.text
        args.append(value)
        arg_texts.append(text)
    keywords: dict[str, Any] = {}
    keyword_texts: dict[str, str] = {}
    for keyword, value in call.kwargs:
        if keyword == "**":
            star = star or not call.spread_known
        elif type(value) is Expr:
            keywords[keyword], keyword_texts[keyword] = _DYNAMIC, value.text
        else:
            keywords[keyword] = value
    return _CallSite(call.written, call.line, tuple(args), keywords, star, tuple(arg_texts), keyword_texts,
                     frozenset(call.spread_keys) if call.spread_known else frozenset())


def _aliases_of(imports: Iterable[ImportFact]) -> dict[str, str]:
    """Local name -> dotted name, over every import of a file (the cells of a notebook
    share one namespace), later imports winning: ``import a.b as c`` binds ``c``, ``import
    a.b`` binds ``a`` unless it is bound already, ``from m import x as y`` binds ``y``
    (relative imports bind nothing the table knows)."""
    aliases: dict[str, str] = {}
    for ref in imports:
        if ref.kind == "import":
            if ref.asnames and ref.asnames[0]:
                aliases[ref.asnames[0]] = ref.module
            else:
                top = ref.module.split(".")[0]
                aliases.setdefault(top, top)
        elif ref.kind == "from" and ref.module and not ref.module.startswith("."):
            asnames = ref.asnames
            for position, name in enumerate(ref.names):
                if name != "*":
                    local = asnames[position] if asnames and asnames[position] else name
                    aliases[local] = f"{ref.module}.{name}"
    return aliases


def _star_modules(imports: Iterable[ImportFact]) -> list[str]:
    """The modules of ``from m import *`` (absolute), in the file's order."""
    return [ref.module for ref in imports
            if ref.kind == "from" and "*" in ref.names and ref.module and not ref.module.startswith(".")]


@dataclass(frozen=True)
class _Hit:
    """A located call: a random call, a seed call, or a call of a ``*seed*`` function."""

    path: str
    line: int
    cell: int | None
    name: str
    snippet: str | None
    explicit: bool = False
    # a draw from a generator of its own (built in the call, passed in): global seeds do
    # not reach it, so only its own seed counts
    pinned: bool = False
    # a draw: the family of the global generator it draws from; a seed: the families it
    # seeds (METRICS.md §0.2.23: random.seed the random module only, np.random.seed
    # numpy's global state, set.seed R's…)
    family: str = ""
    families: frozenset[str] = frozenset()


@dataclass(frozen=True)
class _Pending:
    """A Python random or seed call whose seed (or generator) is a parameter of the
    function it is in (§0.2.25): decided once every call site of the function is known."""

    hit: _Hit
    seed: bool                 # a global seed call (else a random call)
    function: DefinitionFact
    parameter: str
    fallback: bool = False     # the call builds the generator used when the parameter is None
    r: bool = False            # an R set.seed(p): a parameter left out holds no value (NULL, missing)


@dataclass
class _SeedFile:
    """What S1 knows about one source file (all cells of a notebook form one file)."""

    path: str
    random: list[_Hit] = field(default_factory=list)
    seeds: list[_Hit] = field(default_factory=list)
    seed_named_calls: list[_Hit] = field(default_factory=list)   # callee name contains "seed"
    python: FileFacts | None = None      # a Python file's or notebook's facts, R Markdown's Python chunks'
    imports: list[ImportFact] = field(default_factory=list)      # its Python imports
    sourced: list[str] = field(default_factory=list)             # R source() / Julia include() targets
    # R/Julia: the line ranges of function definitions, which source()/include() does not run
    function_ranges: list[tuple[int, int]] = field(default_factory=list)
    unparseable: bool = False
    generator_seed: _Hit | None = None   # C/C++/Fortran/Julia: the seed of the generators its draws use
    pending: list[_Pending] = field(default_factory=list)
    # seeds that seed nothing reproducibly (the clock, the OS, a generator thrown away, a
    # seed parameter left None), shown with the unseeded file
    unreproducible: list[tuple[_Hit, str]] = field(default_factory=list)
    # seeds taken from a parameter that every call passes (or that has a default), with
    # the function whose header gives it
    parameter_seeds: dict[_Hit, tuple[DefinitionFact, str]] = field(default_factory=dict)
    # draws over a character alphabet: names, not stochastic computations (§0.1.30)
    name_draws: list[_Hit] = field(default_factory=list)
    # MATLAB: the functions, scripts and classes the file calls, by name
    callees: set[str] = field(default_factory=set)
    # C/C++/Fortran: the seed in a calling function that reaches every unseeded draw
    caller_seed: _Hit | None = None
    # C/C++: where the project's own generator its draws call is defined (ran2, randum)
    own_generator: _Hit | None = None
    # Julia: draws from a generator passed in, with the function they are in, and the
    # calls that pass a function the global generator (f(Random.default_rng(), x)), by name
    passed_in: list[tuple[_Hit, str]] = field(default_factory=list)
    global_passes: dict[str, _Hit] = field(default_factory=dict)
    # Julia: draws from a generator a struct's field holds (``rand(sg.rng)``), with the
    # field (``SurrogateGenerator.rng``), and the file's Julia facts (its calls and methods)
    stored: list[tuple[_Hit, str]] = field(default_factory=list)
    julia: list[FileFacts] = field(default_factory=list)
    # Julia: calls handing a function a generator a struct's field holds, by the function's name
    field_passes: dict[str, list[tuple[str, _Hit]]] = field(default_factory=dict)

    @property
    def is_python_module(self) -> bool:
        return self.path.lower().endswith((".py", ".pyw"))

    def deferred_ranges(self) -> list[tuple[int, int, str]]:
        """Line ranges of a Python module that do not run when it is imported: function
        bodies (with the function's name, in the file's order), lambdas and the
        ``if __name__ == "__main__":`` block (named "")."""
        facts = self.python
        if facts is None:
            return []
        ranges = [(d.line, d.end_line or d.line, d.name) for d in facts.definitions if d.kind in ("function", "method")]
        ranges += [(b.line, b.end_line or b.line, "") for b in facts.blocks if b.label in ("lambda", "__main__")]
        return ranges


def _python_facts(tree: TreeIndex) -> Iterable[tuple[str, FileFacts]]:
    """``(path, Python facts)`` of every Python file, IPython file (``.ipy``: Python with
    magics, §0.2.19), every Snakefile (its Python: run: blocks, functions, top-level
    code; §0.3 workflow code is source), every notebook with Python code cells (or cells
    with magics), every R Markdown / Quarto document with evaluated Python chunks and
    every Nextflow file with Python process scripts, in path order."""
    snakefiles = set(tree.by_frontend("snakemake"))
    nextflow = set(_nextflow_scripts(tree))
    for path in tree.files:
        info = tree.info(path)
        if info is None or info.alias_of is not None:
            continue
        kind = info.type
        if kind is None:
            kind = "python" if path.lower().endswith(".ipy") or path in snakefiles else \
                "rmd" if path in nextflow else None
        if kind not in ("python", "notebook", "rmd"):
            continue
        facts = tree.facts(path)
        if facts is None:
            continue
        if kind == "python":
            if facts.language in ("python", "snakemake"):
                yield path, facts
        elif kind == "notebook":
            # an invalid notebook has no cells: nothing of it is read
            if any(c.kind == "code" and (c.language == "python" or c.magics) for c in facts.cells):
                yield path, facts
        else:
            python = next((part for part in facts.embedded if part.language == "python"), None)
            if python is not None:
                yield path, python


def _nextflow_scripts(tree: TreeIndex) -> list[str]:
    """The Nextflow files whose process scripts the frontend reads (configurations run
    none)."""
    return [path for path in tree.by_frontend("nextflow") if not path.lower().endswith(".config")]


_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_R_IDENTIFIER = re.compile(r"^(?:[A-Za-z]|\.(?![0-9]))[A-Za-z0-9._]*$")
# the names §0.2.25 gives a seed or generator parameter
_SEED_PARAMETER = re.compile(r"rng|seed|random_state|generator", re.IGNORECASE)
_UNREPRODUCIBLE_PYTHON = {"time": "this seed comes from the clock: it differs on every run",
                          "entropy": "this seed comes from the operating system: it differs on every run",
                          "discarded": "this generator is built and thrown away: its seed seeds nothing",
                          "guarded": "this seed is set only under a test its option's default fails: a default "
                                     "run is unseeded"}


def _enclosing_function(facts: FileFacts, line: int, cell: int | None) -> DefinitionFact | None:
    """The innermost Python function or method whose body holds ``line`` (of ``cell``)."""
    found = None
    for definition in facts.definitions:
        if definition.kind in ("function", "method") and definition.cell == cell \
                and definition.line <= line <= (definition.end_line or definition.line) \
                and (found is None or definition.line >= found.line):
            found = definition
    return found


def _enclosing_class(facts: FileFacts, function: DefinitionFact) -> DefinitionFact | None:
    """The innermost class whose body holds ``function``."""
    found = None
    for definition in facts.definitions:
        if definition.kind == "class" and definition.cell == function.cell \
                and definition.line < function.line <= (definition.end_line or definition.line) \
                and (found is None or definition.line >= found.line):
            found = definition
    return found


def _named_parameter(function: DefinitionFact | None, name: str | None) -> str | None:
    """``name`` when it is a plain parameter of ``function`` (not ``*args``/``**kwargs``)."""
    if function is None or name is None or not (_IDENTIFIER.match(name) or _R_IDENTIFIER.match(name)):
        return None
    return name if name in function.parameters else None


def _scan_python(tree: TreeIndex, record: _SeedFile, facts: FileFacts, own_sample: bool = False) -> None:
    """Random calls, seed calls and calls of ``*seed*`` functions of a Python file or
    notebook, from its call facts. Callees are resolved through every import of the file
    (a star import's module is tried for a name no import binds; a from-imported
    distribution called on the spot, ``poisson(mu).rvs()``, through its import); a
    notebook's lines count within their cell. A seed the frontend found to come from the
    clock or the OS, or given to a generator that is thrown away, seeds nothing
    (§0.2.23); a seed, or a generator drawn from, that is a parameter of the enclosing
    function waits for the function's call sites (§0.2.25, ``_Parameters``). When the
    repository defines a ``sample`` function or method of its own (``own_sample``), a
    ``x.sample(…)`` call is taken for it, not for a DataFrame's: its draws are read where
    it is defined."""
    record.python = facts
    record.unparseable = facts.parse_error is not None
    # a Snakefile's include: splices the rules of another Snakefile into its namespace
    record.sourced.extend(ref.module for ref in facts.imports if ref.kind == "include" and facts.language == "snakemake")
    # a notebook's imports include those of its R and Julia cells
    foreign = {c.index for c in facts.cells if c.language in ("r", "julia")}
    record.imports = [ref for ref in facts.imports if ref.cell not in foreign] if foreign else list(facts.imports)
    if not facts.calls:
        return
    rules = _rules()
    aliases = _aliases_of(record.imports)
    stars = _star_modules(record.imports)
    path = record.path
    # where the frontend read a seed's source: (cell, line, callee) -> seed source
    sources = {(f.cell, f.line, f.call): f.seed_source for f in facts.randoms if f.kind in ("seed", "engine")}
    # seeds of a generator object (g = torch.Generator(); g.manual_seed(0)): no global seed
    engine_seeds = {(f.cell, f.line) for f in facts.randoms if f.kind == "seed" and f.call not in rules.seed_calls}
    for call in facts.calls:
        site = _site(call)
        head, _, rest = site.written.partition(".")
        base = aliases.get(head[:-2] if head.endswith("()") else head)
        if base is not None and head.endswith("()"):
            base += "()"
        candidates = [f"{base}.{rest}" if rest else base] if base else [site.written]
        if base is None and rest and not record.unparseable and facts.language != "snakemake" and _named_parameter(
                _enclosing_function(facts, call.line, call.cell) if facts.definitions else None, head) is None:
            # a dotted call is a module's only when an import binds its first name:
            # ``random = np.random.default_rng(42); random.uniform(…)`` draws from that
            # generator (seeded or not at its construction), not from the random module
            # (a generator parameter named so is followed to the callers below; a
            # Snakefile shares the imports of the Snakefile including it)
            candidates = []
        if base is None and stars:
            candidates.extend(f"{module}.{site.written}" for module in stars)
        verdict = None
        for candidate in candidates:
            verdict = rules.classify(candidate, site)
            if verdict is not None:
                name = candidate
                break
        family = rules.family(name) if verdict is not None else ""
        if verdict is None and not own_sample:
            verdict = rules.classify_method(site)
            name, family = site.written, rules.sample_method["family"]
        if verdict is not None and verdict.kind == _CallRules.SEED and name not in rules.seed_calls \
                and (call.cell, call.line) in engine_seeds:
            continue
        if verdict is None:
            last = site.written.rsplit(".", 1)[-1]
            if "seed" in last.lower():
                record.seed_named_calls.append(_Hit(path, call.line, call.cell, last, None))
            continue
        seed = verdict.kind == _CallRules.SEED
        if not seed and _draws_an_identifier(call):
            record.name_draws.append(_Hit(path, call.line, call.cell, name, tree.snippet(path, call.line, call.cell)))
            continue
        function = _enclosing_function(facts, call.line, call.cell) if facts.definitions else None
        receiver = _named_parameter(function, head) if "." in site.written else None
        if receiver is not None:
            # ``random.choice(…)`` in ``def step(self, random)``: the generator passed in, not the module
            if seed:
                continue
            hit = _Hit(path, call.line, call.cell, name, tree.snippet(path, call.line, call.cell), True, pinned=True,
                       family=family)
            record.random.append(hit)
            record.pending.append(_Pending(hit, False, function, receiver))
            continue
        hit = _Hit(path, call.line, call.cell, name, tree.snippet(path, call.line, call.cell), explicit=verdict.explicit,
                   pinned=verdict.generator, family="" if seed else family, families=verdict.families)
        source = sources.get((call.cell, call.line, name), "")
        if verdict.explicit and source in _UNREPRODUCIBLE_PYTHON:
            record.unreproducible.append((hit, _UNREPRODUCIBLE_PYTHON[source]))
            if seed:
                continue
            hit = replace(hit, explicit=False, pinned=verdict.generator and source != "discarded")
        parameter = _named_parameter(function, verdict.seed_text) if verdict.explicit else None
        if parameter is None and not verdict.explicit and function is not None and not seed:
            # ``if rng is None: rng = np.random.default_rng()``: the fallback of a seed or
            # generator parameter defaulting to None, unseeded only where a call leaves it out
            parameter = next((p for p in function.none_defaults if _SEED_PARAMETER.search(p)), None)
            if parameter is not None:
                hit = replace(hit, explicit=True)
                record.random.append(hit)
                record.pending.append(_Pending(hit, False, function, parameter, fallback=True))
                continue
        (record.seeds if seed else record.random).append(hit)
        if parameter is not None:
            record.pending.append(_Pending(hit, seed, function, parameter))


class _Parameters:
    """Call sites of the repository's Python functions, to decide a seed that is a
    parameter (§0.2.25): it seeds when the parameter has no None default and no call site
    passes None, or, defaulting to None, when the function is called and every call site
    passes it (a name that is itself such a parameter of the calling function is followed
    up to a few calls deep). Call sites are matched by the function's name; test files'
    calls count (they call the function too), vendored files' do not."""

    DEPTH = 4

    def __init__(self, tree: TreeIndex, facts_by_path: dict[str, FileFacts], helpers: set[str], r: bool = False):
        self.helpers = helpers     # names of the repository's own *seed* functions that seed
        self.r = r                 # R functions: called by name (dots are part of it, pkg:: is not)
        self.sites: dict[str, list[tuple[FileFacts, CallFact]]] = {}
        for path, facts in facts_by_path.items():
            if tree.role(path) == "vendored":
                continue
            for call in facts.calls:
                name = _r_function(call.name) if r else call.written.rsplit(".", 1)[-1]
                self.sites.setdefault(name, []).append((facts, call))

    def seeded(self, function: DefinitionFact, parameter: str, depth: int = 0,
               seen: frozenset[tuple[int, str, str]] = frozenset(), facts: FileFacts | None = None) -> bool:
        key = (function.line, function.name, parameter)
        if key in seen or depth > self.DEPTH:
            return True   # a recursive call decides nothing
        seen = seen | {key}
        optional = parameter in function.none_defaults
        if optional and depth and facts is not None and self._seeds_its_fallback(facts, function):
            return True   # ``if rng is None: rng = seeded_rng(42)``: left out, it is seeded all the same
        name = function.name
        if name == "__init__" and facts is not None:
            # a constructor is called by its class's name
            owner = _enclosing_class(facts, function)
            name = owner.name if owner is not None else name
        sites = self.sites.get(name, ())
        if not sites:
            return not optional
        for facts, call in sites:
            passed, value = (self._r_argument if self.r else self._argument)(function, parameter, call)
            if not passed:
                if optional:
                    return False
                continue
            if value is None:
                return False
            if type(value) is Expr:
                caller = _enclosing_function(facts, call.line, call.cell) if facts.definitions else None
                outer = _named_parameter(caller, value.text)
                if outer is not None and not self.seeded(caller, outer, depth + 1, seen, facts):
                    return False
        return True

    def _seeds_its_fallback(self, facts: FileFacts, function: DefinitionFact) -> bool:
        """Whether the function calls one of the repository's seeding ``*seed*`` helpers."""
        end = function.end_line or function.line
        return any(call.cell == function.cell and function.line <= call.line <= end
                   and call.written.rsplit(".", 1)[-1] in self.helpers for call in facts.calls)

    @staticmethod
    def _r_argument(function: DefinitionFact, parameter: str, call: CallFact) -> tuple[bool, Any]:
        """Whether an R call passes ``parameter`` and its value: by name, or by position
        among the formals before ``...`` that no name matched; ``do.call`` or a ``...``
        passed on may carry it (passed, value unknown)."""
        for keyword, value in call.kwargs:
            if keyword == parameter:
                return True, value
        named = {keyword for keyword, _ in call.kwargs}
        positional = []
        for name in function.parameters:
            if name == "...":
                break
            if name not in named:
                positional.append(name)
        if any(type(value) is Expr and value.text == "..." for value in call.args):
            return True, Expr("...")
        if parameter in positional and positional.index(parameter) < len(call.args):
            return True, call.args[positional.index(parameter)]
        return False, None

    @staticmethod
    def _argument(function: DefinitionFact, parameter: str, call: CallFact) -> tuple[bool, Any]:
        """Whether the call passes ``parameter`` and its value (literal, None or an Expr);
        ``*args``/``**kwargs`` may carry it (passed, value unknown), a ``**kwargs`` of dicts
        written out only when one has the keyword."""
        star = False
        for keyword, value in call.kwargs:
            if keyword == parameter:
                return True, value
            if keyword == "**" and call.spread_known:
                star = star or parameter in call.spread_keys
            else:
                star = star or keyword == "**"
        positional = []
        for name in function.parameters:
            if name.startswith("*"):
                break
            positional.append(name)
        if function.kind == "method" and positional and positional[0] in ("self", "cls") \
                and "staticmethod" not in function.decorators \
                and ("." in call.written or function.name == "__init__"):
            positional = positional[1:]
        if parameter in positional:
            index = positional.index(parameter)
            for position, value in enumerate(call.args):
                if type(value) is Expr and value.text.startswith("*"):
                    return True, Expr("*")
                if position == index:
                    return True, value
        return star, Expr("**") if star else None


@lru_cache(maxsize=1)
def _fact_names() -> dict[str, frozenset[str]]:
    table = _stochastic_table()
    r, julia = table["r"], table["julia"]
    return {"r_random": frozenset(r["stochastic"]), "r_seed": frozenset(r["seed"]),
            "r_random_keywords": frozenset(r["stochastic_keywords"]),
            "r_seeded_by_argument": r["seeded_by_argument"],
            "r_generators": r["generators"],
            "r_fixed_default_seed": frozenset(r["fixed_default_seed"]),
            "julia_random": frozenset(julia["stochastic"]),
            "julia_global": frozenset(julia["global_generators"])}


def _r_function(name: str) -> str:
    """The function of an R callee written ``pkg::f`` or ``pkg:::f``."""
    return name.rsplit("::", 1)[-1].lstrip(":")


# the generator families the seeds of R, Julia and MATLAB reach (§0.2.23): their global
# generators (R's seeds: "R" or "JAGS", as the frontend names them); a native draw
# ("native") is seeded by its own generator's seed only
_JULIA = frozenset({"julia"})
# JAGS's own generators (rjags, BEST): seeded by a chain's .RNG.seed or rjags::jags.seed, never by set.seed
_JAGS_FAMILY = "JAGS"
_JAGS_SEEDS = frozenset({"jags.seed", "rjags::jags.seed"})

# R and Julia definitions whose bodies run only when called (a Julia module's body runs
# where it stands)
_DEFERRED_KINDS = frozenset({"function", "method", "generic", "class", "macro"})


def _scan_facts(record: _SeedFile, facts: FileFacts, tree: TreeIndex) -> None:
    """Random calls, seed calls and sourced files of an R or Julia file, of the R chunks
    (or the embedded Julia chunks) of an R Markdown document, or of a notebook's R or
    Julia cells, from its call facts: strings and comments hold none."""
    record.function_ranges.extend((d.line, d.end_line) for d in facts.definitions
                                  if d.end_line and d.cell is None and d.kind in _DEFERRED_KINDS)
    if facts.language == "r":
        _scan_r(record, facts, tree)
    else:
        _scan_julia(record, facts, tree)


def _scan_julia(record: _SeedFile, facts: FileFacts, tree: TreeIndex) -> None:
    """Julia: the frozen list's draws (``rand``, ``randn``, ``shuffle`` … bare or from
    Random/StatsBase) from the frontend's random facts, each with its generator
    (§0.2.23, §0.3 Julia): a draw from the global generator is seeded by a
    ``Random.seed!(x)`` of the file (or across files); a draw from an engine of the
    file (``rng = MersenneTwister(1234)``, ``rand(Xoshiro(1), 3)``) by that engine's
    own seed only, so a seeded engine passed to one sampler seeds no global ``rand``; a
    draw from a generator passed in (a parameter named like one) is explicit."""
    names = _fact_names()
    path = record.path
    record.julia.append(facts)
    built: dict[str, bool] = {}       # engine -> every construction of it seeded
    reseeded: set[str] = set()        # engines reseeded with Random.seed!(rng, x)
    seeds: dict[str, RandomFact] = {}  # engine -> its first reproducible seed
    for fact in facts.randoms:
        reproducible = fact.seeded and fact.seed_source in ("literal", "argument")
        if fact.kind == "seed" and fact.generator == "Random.GLOBAL":
            hit = _Hit(path, fact.line, fact.cell, fact.call.rsplit(".", 1)[-1], tree.snippet(path, fact.line, fact.cell),
                       families=_JULIA)
            if reproducible:
                record.seeds.append(hit)
            elif fact.seed_source == "time":
                record.unreproducible.append((hit, "this seed comes from the clock: it differs on every run"))
        elif fact.kind == "seed" and reproducible:
            reseeded.add(fact.generator)
            seeds.setdefault(fact.generator, fact)
        elif fact.kind == "engine":
            built[fact.generator] = built.get(fact.generator, True) and reproducible
            if reproducible:
                seeds.setdefault(fact.generator, fact)
            elif fact.seed_source in ("entropy", "time", "none"):
                record.unreproducible.append(
                    (_Hit(path, fact.line, fact.cell, fact.call, tree.snippet(path, fact.line, fact.cell)),
                     f"{fact.generator} is built without a seed ({fact.call.rsplit('.', 1)[-1]}()): "
                     "its draws differ on every run"))
            if reproducible and not record.seeds:
                # shown with a file whose global draws stay unseeded: this seed is not theirs
                whose = "the engine it builds" if fact.generator == fact.call.rsplit(".", 1)[-1] else fact.generator
                record.unreproducible.append(
                    (_Hit(path, fact.line, fact.cell, fact.call, tree.snippet(path, fact.line, fact.cell)),
                     f"this seeds {whose} only, not the global generator the file's other draws use"))
    used: list[RandomFact] = []
    for fact in facts.randoms:
        if fact.kind != "draw":
            continue
        head, _, function = fact.call.rpartition(".")
        if "." in head or head not in ("", "Random", "StatsBase") or function not in names["julia_random"]:
            continue
        if fact.generator == "Random.GLOBAL":
            explicit, pinned = False, False
        else:
            explicit, pinned = built.get(fact.generator, True) or fact.generator in reseeded, True
            if fact.generator in seeds:
                used.append(seeds[fact.generator])
        hit = _Hit(path, fact.line, fact.cell, function, tree.snippet(path, fact.line, fact.cell),
                   explicit=explicit, pinned=pinned, family="julia")
        record.random.append(hit)
        if _held_in_field(fact.generator):
            record.stored.append((hit, fact.generator))
        elif fact.generator != "Random.GLOBAL" and fact.generator not in built:
            holder = _enclosing_definition(facts, fact.line, fact.cell)
            if holder is not None:
                record.passed_in.append((hit, holder.name.rsplit(".", 1)[-1]))
    if used:
        first = min(used, key=lambda f: (f.cell or 0, f.line))
        record.generator_seed = _Hit(path, first.line, first.cell, first.call.rsplit(".", 1)[-1],
                                     tree.snippet(path, first.line, first.cell))
    for fact in facts.randoms:
        if fact.kind == "pass":
            callee = fact.call.rsplit(".", 1)[-1]
            hit = _Hit(path, fact.line, fact.cell, fact.generator, tree.snippet(path, fact.line, fact.cell))
            if fact.generator == "Random.GLOBAL":
                record.global_passes.setdefault(callee, hit)
            elif _held_in_field(fact.generator):
                record.field_passes.setdefault(callee, []).append((fact.generator, hit))
    for call in facts.calls:
        if call.written == "include" and call.args and isinstance(call.args[0], str) and call.args[0]:
            record.sourced.append(call.args[0])
        passed = next((v.text for v in call.args if type(v) is Expr and v.text.strip() in names["julia_global"]), None)
        if passed is not None:
            record.global_passes.setdefault(call.name.rsplit(".", 1)[-1], _Hit(
                path, call.line, call.cell, passed, tree.snippet(path, call.line, call.cell)))


def _enclosing_definition(facts: FileFacts, line: int, cell: int | None) -> DefinitionFact | None:
    """The innermost function (with its end line known) whose body holds ``line``."""
    found = None
    for definition in facts.definitions:
        if definition.kind == "function" and definition.cell == cell and definition.end_line \
                and definition.line <= line <= definition.end_line and (found is None or definition.line >= found.line):
            found = definition
    return found


def _decide_passed_generators(files: dict[str, _SeedFile], vendored: set[str]) -> None:
    """Julia (§0.2.25): a draw from a generator passed into a function is explicit unless
    a call in the repository (a convenience method ``f(x) = f(Random.default_rng(), x)``,
    a test) passes that function the global generator: the draw then uses the global
    generator, which only ``Random.seed!`` seeds."""
    passes: dict[str, _Hit] = {}
    for path, record in files.items():
        if path not in vendored:
            for name, hit in record.global_passes.items():
                passes.setdefault(name, hit)
    if not passes:
        return
    for record in files.values():
        fallen = {id(hit): name for hit, name in record.passed_in if name in passes}
        if not fallen:
            continue
        for index, hit in enumerate(record.random):
            name = fallen.get(id(hit))
            if name is None:
                continue
            record.random[index] = replace(hit, explicit=False, pinned=False)
            call = passes[name]
            where = f"line {hit.line}" if call.path == hit.path else f"{hit.path}:{hit.line}"
            record.unreproducible.append((call, f"passes {call.name}, the global generator, to {name}(), whose draw at "
                                          f"{where} then uses it: a generator argument seeds only where every call "
                                          "passes a seeded one"))


def _held_in_field(generator: str) -> bool:
    """Whether a Julia draw's generator is a struct's field (``SurrogateGenerator.rng``,
    ``model.rng``): a dotted name, neither the global generator nor an engine built in
    place (``MersenneTwister(1)``) or taken from a collection (``rngs[j]``)."""
    return "." in generator and generator != "Random.GLOBAL" and not any(c in generator for c in "([")


class _JuliaCalls:
    """The calls and methods of the repository's Julia code (vendored files left out; a
    test's calls count, it calls the code too), to follow a generator argument to the
    calls that pass it (§0.2.25). A method's own signature is no call of it."""

    DEPTH = 4

    def __init__(self, files: dict[str, _SeedFile], vendored: set[str], tree: TreeIndex):
        self.tree = tree
        self.julia_global = _fact_names()["julia_global"]
        self.sites: dict[str, list[tuple[str, FileFacts, CallFact]]] = {}
        for path, record in files.items():
            if path in vendored:
                continue
            for facts in record.julia:
                # a method's signature is read as a call of its name at its line, before its body's calls
                signatures = {(d.cell, d.line, d.name) for d in facts.definitions if d.kind == "function"}
                for call in facts.calls:
                    if (call.cell, call.line, call.name) in signatures:
                        signatures.discard((call.cell, call.line, call.name))
                        continue
                    self.sites.setdefault(call.name.rsplit(".", 1)[-1], []).append((path, facts, call))

    def hit(self, path: str, call: CallFact) -> _Hit:
        return _Hit(path, call.line, call.cell, call.name, self.tree.snippet(path, call.line, call.cell))

    def stores_fallback(self, struct: str) -> tuple[_Hit, str] | None:
        """Where the generator a struct's field holds can be the global one: a
        construction ``T(…, Random.default_rng())``, or one passing a generator parameter
        that a call of its method leaves out (its default is the global generator) or
        passes the global generator. None when every construction found stores a
        generator passed in by every call."""
        for path, facts, call in self.sites.get(struct, ()):
            for value in [*call.args, *(v for _, v in call.kwargs)]:
                if type(value) is not Expr:
                    continue
                text = value.text.strip()
                if text in self.julia_global:
                    return self.hit(path, call), f"{struct}(…) stores {text}, the global generator"
                method = _enclosing_definition(facts, call.line, call.cell)
                if method is not None and text in method.parameters:
                    found = self.falls_back(method, text, frozenset())
                    if found is not None:
                        return found
        return None

    def falls_back(self, method: DefinitionFact, parameter: str,
                   seen: frozenset[tuple[int, str, str]]) -> tuple[_Hit, str] | None:
        """A call of ``method`` that leaves its generator ``parameter`` out (falling back to
        its global-generator default) or passes the global generator, followed through
        callers passing a generator parameter of their own (a few calls deep)."""
        key = (method.line, method.name, parameter)
        if key in seen or len(seen) > self.DEPTH:
            return None
        seen = seen | {key}
        name = method.name.rsplit(".", 1)[-1]
        parameters = method.parameters
        keywords = parameters[parameters.index("*") + 1:] if "*" in parameters else ()
        positional = [p for p in parameters[:len(parameters) - len(keywords) - ("*" in parameters)]]
        optional = parameter in method.none_defaults
        for path, facts, call in self.sites.get(name, ()):
            if any(type(v) is Expr and v.text.endswith("...") for v in call.args):
                continue   # a splat may pass it
            if parameter in keywords:
                value = next((v for k, v in call.kwargs if k.split("::")[0] == parameter), _MISSING)
            else:
                position = positional.index(parameter)
                value = call.args[position] if len(call.args) > position else _MISSING
            if value is _MISSING:
                if optional:
                    return self.hit(path, call), (f"calls {name}() without {parameter}, whose default is the "
                                                  "global generator")
                continue   # a required argument left out: another method of the name
            if type(value) is not Expr:
                continue
            text = value.text.strip()
            if text in self.julia_global:
                return self.hit(path, call), f"passes {text}, the global generator, to {name}()"
            caller = _enclosing_definition(facts, call.line, call.cell)
            if caller is not None and text in caller.parameters:
                found = self.falls_back(caller, text, seen)
                if found is not None:
                    return found
        return None


def _decide_stored_generators(files: dict[str, _SeedFile], vendored: set[str], tree: TreeIndex) -> None:
    """Julia (§0.2.25): a draw from a generator a struct's field holds (``rand(sg.rng)``,
    ``s, rng = sg.s, sg.rng``) uses what the struct's constructions store; where one
    stores the global generator, or a generator argument that a call of its method leaves
    out (``surrogenerator(x, method, rng = Random.default_rng())`` called as
    ``surrogenerator(x, method)``), the draw falls back to the global generator, which only
    ``Random.seed!`` seeds."""
    handed: dict[str, list[str]] = {}     # function -> the fields whose generators calls hand it
    for path, record in files.items():
        if path not in vendored:
            for callee, passes in record.field_passes.items():
                handed.setdefault(callee, []).extend(generator for generator, _ in passes)
    if not any(record.stored for record in files.values()) and not handed:
        return
    calls = _JuliaCalls(files, vendored, tree)
    verdicts: dict[str, tuple[_Hit, str] | None] = {}

    def falls_back(struct: str) -> bool:
        if struct not in verdicts:
            verdicts[struct] = calls.stores_fallback(struct)
        return verdicts[struct] is not None

    for record in files.values():
        fallen: dict[int, str] = {}
        for hit, generator in record.stored:
            struct = generator.rsplit(".", 1)[0]
            if falls_back(struct):
                fallen[id(hit)] = struct
        # a draw from a generator passed in, where a call hands the function a struct's field
        for hit, function in record.passed_in:
            struct = next((g.rsplit(".", 1)[0] for g in handed.get(function, ()) if falls_back(g.rsplit(".", 1)[0])),
                          None)
            if struct is not None:
                fallen[id(hit)] = struct
        if not fallen:
            continue
        for index, hit in enumerate(record.random):
            struct = fallen.get(id(hit))
            if struct is None:
                continue
            record.random[index] = replace(hit, explicit=False, pinned=False)
            call, why = verdicts[struct]
            where = f"line {hit.line}" if call.path == hit.path else f"{hit.path}:{hit.line}"
            record.unreproducible.append((call, f"{why}: {struct} then holds the global generator, which the draw at "
                                          f"{where} and every other draw from {struct} use (a generator argument "
                                          "seeds only where every call passes a seeded one, §0.2.25)"))


def _scan_r(record: _SeedFile, facts: FileFacts, tree: TreeIndex) -> None:
    """R (a file, an R Markdown document's evaluated chunks, a notebook's R cells): the
    frozen list's random calls, a call with a resampling argument (``permutations =
    999``), samplers that take their own seed (``brm(…, seed = 1)``: explicitly seeded
    when it is given and not NA/NULL); seeds are the frontend's ``set.seed``/``with_seed``
    facts with a reproducible source (never ``Sys.time()``, §0.2.23)."""
    names = _fact_names()
    path = record.path
    seeded_by = names["r_seeded_by_argument"]
    generators = names["r_generators"]
    # seed arguments of samplers, by callee, in the file's order (the argument's own line)
    own_seeds: dict[str, deque[RandomFact]] = {}
    for fact in facts.randoms:
        if fact.kind != "seed":
            continue
        if fact.generator in ("R", _JAGS_FAMILY):
            hit = _Hit(path, fact.line, fact.cell, _r_function(fact.call) if fact.generator == "R" else
                       (".RNG.seed" if fact.call not in _JAGS_SEEDS else _r_function(fact.call)),
                       tree.snippet(path, fact.line, fact.cell), families=frozenset({fact.generator}))
            if fact.seeded and fact.seed_source in ("literal", "argument"):
                record.seeds.append(hit)
                function = _enclosing_definition(facts, fact.line, fact.cell) if fact.seed_text else None
                parameter = _named_parameter(function, fact.seed_text) if function is not None \
                    and function.kind == "function" else None
                if parameter is not None:
                    # set.seed(seed) in function(…, seed): seeded only as the calls pass it (§0.2.25)
                    record.pending.append(_Pending(hit, True, function, parameter, r=True))
            elif fact.seed_source == "time":
                record.unreproducible.append((hit, "this seed comes from the clock: it differs on every run"))
        else:
            own_seeds.setdefault(fact.generator, deque()).append(fact)
    for call in facts.calls:
        if "$" in call.name or "@" in call.name:
            continue
        function = _r_function(call.name)
        if function in ("source", "sys.source") and call.name in ("source", "sys.source"):
            target = call.args[0] if call.args else dict(call.kwargs).get("file")
            if isinstance(target, str) and target:
                record.sourced.append(target)
        family = generators.get(function, "R")
        if function in names["r_fixed_default_seed"]:
            # MCMCpack's samplers seed a generator of their own with seed =, and with the
            # fixed 12345 when it is left out or NA: reproducible unless the seed is the clock's
            seed_fact = own_seeds[call.name].popleft() if any(k == "seed" for k, _ in call.kwargs) \
                and own_seeds.get(call.name) else None
            clock = seed_fact is not None and seed_fact.seed_source in ("time", "entropy")
            hit = _Hit(path, call.line, call.cell, function, tree.snippet(path, call.line, call.cell),
                       explicit=not clock, pinned=True, family="MCMCpack")
            record.random.append(hit)
            if (seed_fact is None or seed_fact.seed_source == "none") and record.generator_seed is None:
                record.generator_seed = replace(hit, name=f"{function}'s own default seed (seed = NA: 12345)")
            if clock:
                record.unreproducible.append((_Hit(path, seed_fact.line, call.cell, function,
                                                   tree.snippet(path, seed_fact.line, call.cell)),
                                              "this seed comes from the clock: it differs on every run"))
            continue
        if function in seeded_by:
            keyword = seeded_by[function]
            seed_fact = None
            if any(k == keyword for k, _ in call.kwargs) and own_seeds.get(call.name):
                seed_fact = own_seeds[call.name].popleft()
            if seed_fact is not None and seed_fact.seeded:
                # cited at its seed argument, the line that makes it reproducible
                record.random.append(_Hit(path, seed_fact.line, call.cell, function,
                                          tree.snippet(path, seed_fact.line, call.cell), explicit=True, family=family))
                continue
        elif function not in names["r_random"] and not any(k in names["r_random_keywords"] for k, _ in call.kwargs):
            continue
        record.random.append(_Hit(path, call.line, call.cell, function, tree.snippet(path, call.line, call.cell),
                                  family=family))


_MATLAB_RUNNERS = {"feval", "run", "evalin", "builtin"}
# MATLAB's process-wide streams by the frontend's generator: rng() seeds the global one, which
# rand/randn draw from; parallel.gpu.rng()/gpurng() the GPU's, which gpuArray.rand* draw from (§0.2.23)
_MATLAB_STREAMS = {"matlab.global": "matlab", "matlab.gpu": "matlab.gpu"}


def _scan_matlab(record: _SeedFile, facts: FileFacts, tree: TreeIndex) -> None:
    """MATLAB/Octave (§0.3, §0.2.23): draws (rand, randn, randi, randperm, datasample …)
    from the global stream are seeded by rng(seed), rng('default'), rng(seed,
    'twister'), the legacy rand('seed', x) or RandStream.setGlobalStream of a seeded
    stream, never by rng('shuffle') or a seed computed from the clock; a draw from a
    RandStream variable (rand(s, 3)) by that stream's own seed only. The names the file
    calls (functions, scripts, class constructors; feval/run of a literal name) are kept
    for the global-stream rule across files."""
    path = record.path
    built: dict[str, bool] = {}
    streams: dict[str, _Hit] = {}
    for fact in facts.randoms:
        reproducible = fact.seeded and fact.seed_source in ("literal", "argument", "default")
        family = _MATLAB_STREAMS.get(fact.generator, "matlab")
        hit = _Hit(path, fact.line, fact.cell, fact.call, tree.snippet(path, fact.line, fact.cell), family=family)
        if fact.kind == "seed":
            if reproducible:
                record.seeds.append(replace(hit, family="", families=frozenset({family})))
            elif fact.seed_source == "time":
                record.unreproducible.append((hit, "this seed comes from the clock: it differs on every run"))
        elif fact.kind == "engine":
            built[fact.generator] = built.get(fact.generator, True) and reproducible
            streams.setdefault(fact.generator, hit)
        elif fact.generator in _MATLAB_STREAMS:
            record.random.append(hit)
        else:
            record.random.append(replace(hit, explicit=built.get(fact.generator, True), pinned=True))
            if record.generator_seed is None and built.get(fact.generator) and fact.generator in streams:
                record.generator_seed = streams[fact.generator]
    for call in facts.calls:
        name = call.written.rsplit(".", 1)[-1].split("@", 1)[0]
        if name in _MATLAB_RUNNERS and call.args and isinstance(call.args[0], str):
            name = posixpath.splitext(posixpath.basename(call.args[0]))[0]
        if name:
            record.callees.add(name)


def _matlab_callers(tree: TreeIndex, files: dict[str, _SeedFile]) -> dict[str, set[str]]:
    """MATLAB file -> the MATLAB files it calls: a function or script file by its name
    (``+pkg`` folders aside), every file of a class folder ``@C`` (and the classdef file
    ``C.m``'s folder-mates when it is one) by the class's name."""
    by_name: dict[str, list[str]] = {}
    for path in files:
        if path.lower().endswith(".m"):
            stem = posixpath.splitext(posixpath.basename(path))[0]
            by_name.setdefault(stem, []).append(path)
            folder = posixpath.basename(_parent(path))
            if folder.startswith("@"):
                by_name.setdefault(folder[1:], []).append(path)
    edges: dict[str, set[str]] = {}
    for path, record in files.items():
        targets = {target for name in record.callees for target in by_name.get(name, ())}
        targets.discard(path)
        if targets:
            edges[path] = targets
    return edges


# A project's own generator drawn with an explicit seed state (Numerical Recipes ``ran2(&idum)``,
# RAxML ``randum(&seed)``): the draw is as reproducible as the seed variable passed.
_OWN_GENERATOR = re.compile(r"^(ran[0-9a-z]?|randum|rnd|random_?[a-z0-9]*|rand_?[a-z0-9]+)$", re.IGNORECASE)
_SEED_STATE = re.compile(r"seed|idum", re.IGNORECASE)
_UNREPRODUCIBLE = ("time", "entropy", "none")


_GLOBAL_FAMILIES = ("c.rand", "c.random", "c.drand48", "fortran.random_number", "fortran.rand")
_C_FUNCTIONS = ("rand", "random", "drand48", "lrand48", "mrand48", "rand_r", "srand", "srand48")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _last_name(text: str) -> str:
    """The variable an access path names: ``opts->random_seed`` -> ``random_seed``."""
    names = _NAME.findall(text)
    return names[-1] if names else ""


def _callee_name(call: CallFact) -> str:
    """A native call's function by its own name (``Tree::build``, ``obj.run`` -> ``build``, ``run``)."""
    return _last_name(call.name.split("<", 1)[0])


class _Native:
    """C/C++ and Fortran randomness across the tree (METRICS.md §0.2.23, §0.3 native):
    each file's draws and seeds come from its frontend's random facts; a seed is traced
    to the values its variable is given (``seed_value`` facts), in the file and, for a
    member of a struct or object (``opts.random_seed``), in every file; and a seed of a
    process-wide generator (rand, drand48, random_number) is followed into the functions
    its function calls, transitively, across files."""

    def __init__(self, tree: TreeIndex):
        self.tree = tree
        self.facts: dict[str, FileFacts] = {}
        self.own_functions: set[str] = set()

    def add(self, path: str, facts: FileFacts) -> None:
        self.facts[path] = facts

    def note_definitions(self, facts: FileFacts) -> None:
        """The C library's generator names the tree defines as functions (or header macros)
        of its own, in any of its source files."""
        self.own_functions.update(
            d.name for d in facts.definitions
            if d.name in _C_FUNCTIONS and (d.kind == "function" and d.end_line or d.kind == "macro"))

    def hit(self, path: str, line: int, cell: int | None, name: str) -> _Hit:
        return _Hit(path, line, cell, name, self.tree.snippet(path, line, cell), family="native")

    # --- seed values
    def _seed_values(self) -> tuple[dict[tuple[str, str], list[tuple[str, RandomFact]]],
                                    dict[str, list[tuple[str, RandomFact]]]]:
        """Values given to seed variables: by (file, name) and, for members, by name."""
        local: dict[tuple[str, str], list[tuple[str, RandomFact]]] = {}
        members: dict[str, list[tuple[str, RandomFact]]] = {}
        for path, facts in self.facts.items():
            for fact in facts.randoms:
                if fact.kind == "seed_value":
                    name = _last_name(fact.generator)
                    local.setdefault((path, name), []).append((path, fact))
                    if "." in fact.generator or "->" in fact.generator or "%" in fact.generator:
                        members.setdefault(name, []).append((path, fact))
        return local, members

    def _drop_own_functions(self) -> None:
        """A bare ``rand()``/``random()``/``drand48()`` calls the tree's own function of
        that name when the tree defines one (a free function or a header macro): the
        project's generator, found before the C library's (§0.2.23), so no draw of the
        process-wide generator. A method of that name shadows it only inside its class,
        which the frontend sees."""
        own = self.own_functions
        if not own:
            return
        for path, facts in self.facts.items():
            kept = [f for f in facts.randoms if not (f.kind == "draw" and f.generator.startswith("c.")
                                                     and "::" not in f.call and f.call in own)]
            if len(kept) != len(facts.randoms):
                self.facts[path] = replace(facts, randoms=type(facts.randoms)(kept))

    def decide(self, files: dict[str, _SeedFile]) -> None:
        self._drop_own_functions()
        local, members = self._seed_values()

        def values_of(path: str, name: str) -> list[tuple[str, RandomFact]]:
            # the file's own values of the name first; a member's values anywhere otherwise
            return local.get((path, name)) or [v for v in members.get(name, []) if v[0] != path]

        def clock_value(path: str, text: str) -> tuple[str, RandomFact] | None:
            for name in _NAME.findall(text):
                found = next(((p, f) for p, f in values_of(path, name) if f.seed_source in _UNREPRODUCIBLE), None)
                if found is not None:
                    return found
            return None

        good_seeds: dict[str, dict[str, RandomFact]] = {}
        for path, facts in self.facts.items():
            record = files[path]
            good: dict[str, RandomFact] = {}
            bad: set[str] = set()
            # std::random_device variables: an engine seeded from one (gen(rd())) is unseeded
            devices = {f.generator: f for f in facts.randoms if f.kind == "engine" and "random_device" in f.call}
            for fact in facts.randoms:
                if fact.kind not in ("seed", "engine"):
                    continue
                clock = clock_value(path, fact.seed_text) if fact.seed_text else None
                names = _NAME.findall(fact.seed_text)
                # the seed names a device (gen(rd())), or a variable given a device's draw (rseed = device())
                device = next((devices[n] for n in names if n in devices), None) or next(
                    (devices[d] for n in names for _, value in local.get((path, n), ())
                     for d in _NAME.findall(value.call) if d in devices), None)
                if fact.seeded and fact.seed_source not in _UNREPRODUCIBLE and clock is None and device is None:
                    good.setdefault(fact.generator, fact)
                    continue
                bad.add(fact.generator)
                if device is not None:
                    record.unreproducible.append((self.hit(path, device.line, device.cell, device.call),
                                                  f"the seed of {fact.generator} (line {fact.line}) comes from this "
                                                  "std::random_device: it differs on every run"))
                elif clock is not None:
                    where, value = clock
                    record.unreproducible.append((self.hit(where, value.line, value.cell, value.call),
                                                  f"{fact.seed_text}, the seed at line {fact.line} of {path}, is set "
                                                  f"from the clock here unless a run gives another"))
                elif fact.seed_source in ("time", "entropy") and fact.generator not in devices:
                    record.unreproducible.append((self.hit(path, fact.line, fact.cell, fact.call),
                                                  f"this seed comes from {'the clock' if fact.seed_source == 'time' else 'std::random_device'}: "
                                                  "it differs on every run"))
                elif fact.kind == "seed" and fact.seed_source == "none" and fact.generator.startswith("fortran."):
                    # Fortran ``call random_seed()``: a processor-dependent seed (the OS's in gfortran)
                    record.unreproducible.append((self.hit(path, fact.line, fact.cell, fact.call),
                                                  f"{fact.call}() without put= picks a seed of its own, not a fixed "
                                                  "one: it differs between runs"))
            good_seeds[path] = {g: f for g, f in good.items() if g not in bad}
            if good:
                first = min(good.values(), key=lambda f: f.line)
                record.generator_seed = self.hit(path, first.line, first.cell, first.call)
            global_states = ("c.", "fortran.", "matlab.")
            engines_good = any(not g.startswith(global_states) for g in good) and not any(
                not g.startswith(global_states) for g in bad)
            hits: list[_Hit] = []
            entropy_sources: list[_Hit] = []
            for fact in facts.randoms:
                if fact.kind == "engine" and fact.generator in bad:
                    hit = replace(self.hit(path, fact.line, fact.cell, fact.call), explicit=False)
                    # a std::random_device that only seeds engines is no draw of its own
                    (entropy_sources if "random_device" in fact.call else hits).append(hit)
                    continue
                if fact.kind != "draw":
                    continue
                if fact.generator.startswith(global_states) or fact.generator in good or fact.generator in bad:
                    explicit = fact.generator in good and fact.generator not in bad
                else:   # a distribution or shuffle drawing from the file's engines
                    explicit = engines_good
                hits.append(replace(self.hit(path, fact.line, fact.cell, fact.call), explicit=explicit))
            if facts.language in ("c", "cpp"):
                for call in facts.calls:
                    bare = call.name.rsplit("::", 1)[-1]
                    if bare in _C_FUNCTIONS or not _OWN_GENERATOR.match(bare):
                        continue
                    state = next((v.text for v in call.args if type(v) is Expr and _SEED_STATE.search(v.text)), None)
                    if state is None:
                        continue
                    if record.own_generator is None:
                        record.own_generator = self.definition_of(bare, path)
                    name = _last_name(state)
                    values = values_of(path, name)
                    clock = next(((p, f) for p, f in values if f.seed_source in _UNREPRODUCIBLE), None)
                    hits.append(replace(self.hit(path, call.line, call.cell, bare), explicit=clock is None))
                    if clock is not None:
                        record.unreproducible.append((self.hit(clock[0], clock[1].line, clock[1].cell, clock[1].call),
                                                      f"the seed state {name} is set from the clock here"))
                    elif values and record.generator_seed is None:
                        # the seed state's value: where the draws' reproducibility comes from
                        where, value = min(values, key=lambda v: (v[0] != path, v[1].line))
                        record.generator_seed = self.hit(where, value.line, value.cell, value.generator)
            record.random.extend(hits or entropy_sources)
        self._follow_calls(files, good_seeds)

    def definition_of(self, name: str, path: str) -> _Hit | None:
        """Where a function of the project is defined (in ``path`` first)."""
        found = None
        for where, facts in self.facts.items():
            for definition in facts.definitions:
                if definition.end_line and _last_name(definition.name) == name:
                    if where == path:
                        return self.hit(where, definition.line, definition.cell, name)
                    found = found or self.hit(where, definition.line, definition.cell, name)
        return found

    # --- process-wide generators seeded in a caller
    def _follow_calls(self, files: dict[str, _SeedFile], good_seeds: dict[str, dict[str, RandomFact]]) -> None:
        """A seed of a process-wide generator (srand48(11), random_seed(put=…)) reaches
        the draws of the functions its function calls, transitively, in any file
        (§0.1.30's importer rule for native code): a file whose every unseeded draw of
        that generator lies in such a function is seeded by the caller. A file that calls
        a routine seeding the generator irreproducibly (random_seed() without put=)
        shows that routine with its unseeded draws."""
        functions: dict[str, list[tuple[str, DefinitionFact]]] = {}
        for path, facts in self.facts.items():
            for definition in facts.definitions:
                if definition.end_line:
                    functions.setdefault(_last_name(definition.name), []).append((path, definition))
        if not functions:
            return

        def enclosing(path: str, line: int) -> DefinitionFact | None:
            found = None
            for definition in self.facts[path].definitions:
                if definition.end_line and definition.line <= line <= definition.end_line and (
                        found is None or definition.line >= found.line):
                    found = definition
            return found

        def callees(path: str, definition: DefinitionFact) -> Iterable[tuple[str, DefinitionFact]]:
            for call in self.facts[path].calls:
                if definition.line <= call.line <= definition.end_line:
                    yield from functions.get(_callee_name(call), ())

        reached: dict[str, dict[tuple[str, int], _Hit]] = {}   # family -> reached function -> the seed
        for path, good in good_seeds.items():
            for family, fact in good.items():
                if family not in _GLOBAL_FAMILIES:
                    continue
                start = enclosing(path, fact.line)
                if start is None:
                    continue
                seen = reached.setdefault(family, {})
                seed = self.hit(path, fact.line, fact.cell, fact.call)
                queue = deque([(path, start)])
                while queue:
                    where, definition = queue.popleft()
                    key = (where, definition.line)
                    if key in seen:
                        continue
                    seen[key] = seed
                    queue.extend(callees(where, definition))
        bad_routines = {(path, d.line): d for path, facts in self.facts.items() for fact in facts.randoms
                        if fact.kind == "seed" and fact.generator in _GLOBAL_FAMILIES and not fact.seeded
                        for d in [enclosing(path, fact.line)] if d is not None}
        for path, facts in self.facts.items():
            record = files[path]
            unseeded = [f for f in facts.randoms if f.kind == "draw" and f.generator in _GLOBAL_FAMILIES
                        and f.generator not in good_seeds[path]]
            if not unseeded:
                continue
            seeds = []
            for fact in unseeded:
                definition = enclosing(path, fact.line)
                seed = reached.get(fact.generator, {}).get((path, definition.line)) if definition else None
                seeds.append(seed)
            if all(seed is not None for seed in seeds):
                lines = {f.line for f in unseeded}
                record.random = [replace(h, explicit=True) if h.line in lines and not h.explicit else h
                                 for h in record.random]
                record.caller_seed = seeds[0]
                continue
            for call in facts.calls:
                target = next(((p, d) for p, d in functions.get(_callee_name(call), ())
                               if (p, d.line) in bad_routines), None)
                if target is not None:
                    where, routine = target
                    record.unreproducible.append((self.hit(path, call.line, call.cell, call.name),
                                                  f"calls {routine.name} ({where}), which does not seed the generator reproducibly"))
                    record.unreproducible.append((self.hit(where, routine.line, routine.cell, routine.name),
                                                  f"{routine.name} seeds {unseeded[0].call} without a fixed seed"))
                    break


_IDENTIFIER_ALPHABET = re.compile(r"\bstring\.(?:ascii_\w+|digits|hexdigits|octdigits|printable|punctuation)\b")


def _draws_an_identifier(call: CallFact) -> bool:
    """A draw over a character alphabet (``random.choices(string.ascii_letters +
    string.digits, k=10)``) makes a name, a temporary file's or a token's: it cannot change
    a result, so it is no stochastic computation (METRICS.md §0.1.30)."""
    first = call.args[0] if call.args else dict(call.kwargs).get("population") or dict(call.kwargs).get("seq")
    return type(first) is Expr and bool(_IDENTIFIER_ALPHABET.search(first.text))


def _seed_files(tree: TreeIndex) -> tuple[dict[str, _SeedFile], int]:
    """What S1 knows of each source file, test and vendored files left out, and how many
    test files draw random numbers (§0.2.3: out of the stochastic set, reported apart)."""
    files: dict[str, _SeedFile] = {}
    native = _Native(tree)
    native_tests = 0
    for frontend in ("c_cpp", "fortran"):
        for path in tree.by_frontend(frontend):
            facts = tree.facts(path)
            if facts is None:
                continue
            role = tree.role(path)
            if frontend == "c_cpp" and role != "test":
                native.note_definitions(facts)
            if not (facts.randoms or facts.calls):
                continue
            if role == "test":
                native_tests += any(f.kind == "draw" for f in facts.randoms)
            if role in ("test", "vendored"):
                continue
            files.setdefault(path, _SeedFile(path))
            native.add(path, facts)
    native.decide(files)
    for path in tree.by_frontend("matlab"):
        facts = tree.facts(path)
        if facts is not None and (facts.randoms or facts.calls):
            _scan_matlab(files.setdefault(path, _SeedFile(path)), facts, tree)
    python_facts = dict(_python_facts(tree))
    sample = _rules().sample_method["name"]
    own_sample = any(d.name == sample and d.kind in ("function", "method")
                     for path, facts in python_facts.items() if tree.role(path) != "vendored"
                     for d in facts.definitions)
    for path, facts in python_facts.items():
        _scan_python(tree, files.setdefault(path, _SeedFile(path)), facts, own_sample)
    if any(record.pending for record in files.values()):
        helpers = {name for record in files.values() if record.seeds for name in _seed_helpers(record)}
        _decide_parameter_seeds(files, _Parameters(tree, python_facts, helpers))
    r_facts: dict[str, FileFacts] = {}
    for path in tree.by_type("r") + tree.by_type("julia") + tree.by_type("rmd"):
        facts = tree.facts(path)
        if facts is None or facts.language not in ("r", "julia"):
            continue
        if facts.language == "r":
            r_facts[path] = facts
        julia = [part for part in facts.embedded if part.language == "julia"]
        if path.lower().endswith((".rmd", ".qmd")) and not (
                facts.calls or facts.strings or facts.comments or facts.imports or facts.assignments or facts.definitions):
            if julia:
                _scan_facts(files.setdefault(path, _SeedFile(path)), julia[0], tree)
            continue   # no evaluated R chunk with code in it: nothing more to scan
        record = files.setdefault(path, _SeedFile(path))
        _scan_facts(record, facts, tree)
        for part in julia:
            _scan_facts(record, part, tree)
    for path in _nextflow_scripts(tree):
        # R process scripts (§0.3: workflow code is source)
        facts = tree.facts(path)
        for part in facts.embedded if facts is not None else ():
            if part.language == "r":
                _scan_facts(files.setdefault(path, _SeedFile(path)), part, tree)
    for path in tree.by_type("notebook"):
        facts = tree.facts(path)
        # R and Julia cells, and the %R line magics of Python cells
        if facts is None or not any(part.language in ("r", "julia") for part in facts.embedded):
            continue
        record = files.setdefault(path, _SeedFile(path))
        for part in facts.embedded:
            if part.language in ("r", "julia"):
                _scan_facts(record, part, tree)
    if any(record.pending for record in files.values()):
        _decide_parameter_seeds(files, _Parameters(tree, r_facts, set(), r=True))
    vendored = {p for p in files if tree.role(p) == "vendored"}
    _decide_passed_generators(files, vendored)
    _decide_stored_generators(files, vendored, tree)
    for record in files.values():
        record.random.sort(key=lambda h: (h.cell or 0, h.line))
        record.seeds.sort(key=lambda h: (h.cell or 0, h.line))
    # test and vendored files are out of the stochastic set, and their seeds seed nothing (§0.2.3, §0.2.2)
    tests = native_tests + sum(1 for p, r in files.items() if r.random and tree.role(p) == "test")
    return dict(sorted((p, r) for p, r in files.items() if tree.role(p) not in ("test", "vendored"))), tests


def _decide_parameter_seeds(files: dict[str, _SeedFile], parameters: _Parameters) -> None:
    """Settle every seed that is a function parameter (§0.2.25): a random call whose seed
    or generator is not passed at every call site is unseeded; such a seed call seeds
    nothing."""
    for record in files.values():
        pendings, record.pending = record.pending, []   # each is decided once
        for pending in pendings:
            hit = pending.hit
            if parameters.seeded(pending.function, pending.parameter,
                                 facts=None if pending.r else record.python):
                record.parameter_seeds[hit] = (pending.function, pending.parameter)
                continue
            where = f"the parameter {pending.parameter} of {pending.function.name}()"
            none = "NULL" if pending.r else "None"
            if pending.fallback:
                why = f"unseeded fallback for {where}, which not every call passes"
            elif pending.r and pending.parameter in pending.function.none_defaults:
                why = f"its seed is {where}, which a call may leave out, and not every call passes it"
            elif pending.parameter in pending.function.none_defaults:
                why = f"its seed is {where}, None unless passed, and not every call passes it"
            else:
                why = f"its seed is {where}, which a call passes as {none}"
            record.unreproducible.append((hit, why))
            if pending.seed:
                record.seeds = [h for h in record.seeds if h is not hit]
            else:
                record.random = [replace(h, explicit=False) if h is hit else h for h in record.random]


@dataclass(frozen=True)
class _Proof:
    """Why a random file counts as seeded, located at the seed it relies on."""

    rule: str
    reason: str
    hit: _Hit


# --- cross-file seeding (METRICS.md §0.1.30) ------------------------------------------------


def _import_time_seeds(record: _SeedFile) -> list[_Hit]:
    """The seed calls that run when the file is imported (Python module) or run by
    ``source()``/``include()`` (R, Julia): those outside every function body."""
    if not record.seeds:
        return []
    if record.path.lower().endswith((".r", ".jl")):
        return [hit for hit in record.seeds
                if not any(start <= hit.line <= end for start, end in record.function_ranges)]
    if not record.is_python_module or record.python is None:
        return []
    ranges = record.deferred_ranges()
    return [hit for hit in record.seeds if not any(start <= hit.line <= end for start, end, _ in ranges)]


def _seed_helpers(record: _SeedFile) -> dict[str, list[_Hit]]:
    """Functions of a Python module whose name contains ``seed`` and that perform seed
    calls, with those calls (the first function of a name; not read in a module that
    does not parse)."""
    helpers: dict[str, list[_Hit]] = {}
    if not record.is_python_module or not record.seeds or record.python is None or record.unparseable:
        return helpers
    for start, end, name in record.deferred_ranges():
        if "seed" in name.lower() and name not in helpers:
            hits = [h for h in record.seeds if start <= h.line <= end]
            if hits:
                helpers[name] = hits
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


def _imported_files(record: _SeedFile, index: _ModuleIndex) -> set[str]:
    """Local Python modules a Python file imports (absolute by name suffix, relative by
    path; an import read by the line scan of code that does not parse: absolute, by its
    module only)."""
    found: set[str] = set()
    for ref in record.imports:
        module = ref.module
        if ref.kind not in ("import", "from") or not module:
            continue
        if not module.startswith("."):
            found.update(index.absolute(module))
            if ref.kind == "from" and not ref.line_scan:
                for name in ref.names:
                    found.update(index.by_name.get(f"{module}.{name}", ()))
        elif not ref.line_scan:
            dotted = module.lstrip(".")
            directory = _parent(record.path)
            for _ in range(len(module) - len(dotted) - 1):
                directory = _parent(directory)
            found.update(index.relative(directory, dotted))
            for name in ref.names:
                if name != "*":
                    found.update(index.relative(directory, f"{dotted}.{name}" if dotted else name))
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
        targets = _imported_files(record, index)
        for target in record.sourced:
            resolved = _resolve_sourced(tree, record, target)
            if resolved:
                targets.add(resolved)
        targets.discard(path)
        if targets:
            edges[path] = targets
    return edges


def _families_of(hits: Iterable[_Hit]) -> frozenset[str]:
    return frozenset(family for hit in hits for family in hit.families)


def _needed(record: _SeedFile) -> list[str]:
    """The generator families the file's draws without a seed of their own need seeded,
    in the order of the file's first draw from each."""
    return list(dict.fromkeys(h.family for h in record.random if not h.explicit))


class _Cover:
    """What seeds reach each file, family by family (§0.2.23): the first proof offered
    for a family is kept, so offers are made in the rules' order of precedence."""

    def __init__(self) -> None:
        self.by_path: dict[str, dict[str, _Proof]] = {}

    def offer(self, path: str, families: Iterable[str], proof: _Proof) -> None:
        cover = self.by_path.setdefault(path, {})
        for family in families:
            cover.setdefault(family, proof)

    def get(self, path: str) -> dict[str, _Proof]:
        return self.by_path.get(path, {})

    def seeds_all(self, path: str, needed: list[str]) -> bool:
        cover = self.by_path.get(path, {})
        return all(family in cover for family in needed)


@dataclass
class _Seeding:
    """Which random files are seeded, with the seeds each relies on (one per generator
    family its unseeded draws use, in the order of its draws), and what reaches each."""

    proofs: dict[str, list[_Proof]]
    cover: _Cover


def _seed_proofs(tree: TreeIndex, files: dict[str, _SeedFile]) -> _Seeding:
    """Every file that counts as seeded, with the seeds it relies on (METRICS.md S1 V2).
    A file that draws from a generator of its own left unseeded (built from the clock,
    passed None) is never seeded: no global seed reaches that generator (§0.2.23)."""
    blocked = {path for path, record in files.items() if any(h.pinned and not h.explicit for h in record.random)}
    seeding = _seed_proofs_unblocked(tree, files)
    seeding.proofs = {path: proofs for path, proofs in seeding.proofs.items() if path not in blocked}
    return seeding


def _package_root(tree: TreeIndex, path: str) -> str | None:
    """The top folder of the Python package ``path`` belongs to (the highest folder of
    the chain of folders holding an ``__init__.py``), or None for a module outside any."""
    if not path.lower().endswith((".py", ".pyw")):
        return None
    root = None
    folder = _parent(path)
    while folder and tree.is_file(f"{folder}/__init__.py"):
        root = folder
        folder = _parent(folder)
    return root


def _distributes_python(tree: TreeIndex) -> bool:
    """Whether the repository declares a Python distribution at its root (a setup.py,
    a setup.cfg with a name, a pyproject.toml with a [project] or Poetry table): its
    packages are a library for whoever installs them."""
    if tree.is_file("setup.py"):
        return True
    if tree.is_file("pyproject.toml"):
        data = tree.toml("pyproject.toml") or {}
        if "project" in data or "poetry" in (data.get("tool") or {}):
            return True
    if tree.is_file("setup.cfg"):
        return bool(((tree.ini("setup.cfg") or {}).get("metadata") or {}).get("name"))
    return False


def _seeds_in_effect(record: _SeedFile) -> dict[str, _Hit]:
    """Each generator family the file seeds, with the seed in effect at its first draw
    from that family: the last seed of the family before that draw (``rng('default');
    rng(101); randperm(…)`` relies on rng(101)), else its first seed."""
    def position(hit: _Hit) -> tuple[int, int]:
        return hit.cell or 0, hit.line

    chosen: dict[str, _Hit] = {}
    for family in dict.fromkeys(f for hit in record.seeds for f in hit.families):
        seeds = [hit for hit in record.seeds if family in hit.families]
        draw = min((position(h) for h in record.random if h.family == family), default=None)
        before = [hit for hit in seeds if draw is not None and position(hit) <= draw]
        chosen[family] = before[-1] if before else seeds[0]
    return chosen


def _seed_proofs_unblocked(tree: TreeIndex, files: dict[str, _SeedFile]) -> _Seeding:
    cover = _Cover()
    proofs: dict[str, list[_Proof]] = {}
    own: dict[str, _Proof] = {}        # a file seeded on its own, whatever its draws' families
    for path, record in files.items():
        for family, hit in _seeds_in_effect(record).items():
            cover.offer(path, (family,), _Proof("seed_management.seed_call", f"sets a seed with {hit.name}", hit))
        if record.seeds and not _needed(record):
            first = record.seeds[0]
            own[path] = _Proof("seed_management.seed_call", f"sets a seed with {first.name}", first)
        elif record.random and all(h.explicit for h in record.random) and record.caller_seed is not None:
            own[path] = _Proof("seed_management.seeded_caller",
                               f"draws only in functions called from {record.caller_seed.path}, which seeds "
                               f"{record.caller_seed.name}", record.caller_seed)
        elif record.random and all(h.explicit for h in record.random) and record.generator_seed is not None:
            own[path] = _Proof("seed_management.seed_call", f"seeds its generator with {record.generator_seed.name}",
                               record.generator_seed)
        elif record.random and all(h.explicit for h in record.random):
            own[path] = _Proof("seed_management.explicit_seed",
                               "passes an explicit seed or generator to every random call", record.random[0])

    def settle() -> list[str]:
        """Record the files seeded so far; the random files still unseeded."""
        for path, record in files.items():
            if path in proofs:
                continue
            if path in own:
                proofs[path] = [own[path]]
                continue
            needed = _needed(record)
            if needed and cover.seeds_all(path, needed):
                reached = cover.get(path)
                proofs[path] = list(dict.fromkeys(reached[family] for family in needed))
        return [p for p, r in files.items() if r.random and p not in proofs]

    if not settle() or not any(r.seeds for r in files.values()):
        return _Seeding(proofs, cover)  # the cross-file rules all need a seed call somewhere

    # MATLAB's global stream: a function, script or class called (transitively) by a file
    # that seeds the global stream draws after that seed (§0.1.30's importer rule, §0.3)
    callers = _matlab_callers(tree, files)
    if callers:
        reached: dict[str, str] = {}
        queue = deque()
        for path in sorted(callers):
            if files[path].seeds and path.lower().endswith(".m"):
                reached[path] = path
                queue.append(path)
        while queue:
            current = queue.popleft()
            for target in sorted(callers.get(current, ())):
                if target not in reached:
                    reached[target] = reached[current]
                    queue.append(target)
        for path, seeder in sorted(reached.items()):
            if path != seeder and files[path].random:
                for family, seed in _seeds_in_effect(files[seeder]).items():
                    stream = "the GPU's random stream" if family == "matlab.gpu" else "the global random stream"
                    cover.offer(path, (family,), _Proof("seed_management.seeded_caller",
                                                        f"is called by {seeder}, which seeds {stream}", seed))

    edges = _import_edges(tree, files)
    reverse: dict[str, set[str]] = {}
    for source, targets in edges.items():
        for target in targets:
            reverse.setdefault(target, set()).add(source)

    # A call of a local ``*seed*`` function that performs seed calls.
    helpers = {path: _seed_helpers(record) for path, record in files.items() if record.seeds}
    helper_seeders: dict[str, list[_Hit]] = {}
    for path, record in files.items():
        for call in record.seed_named_calls:
            for target in sorted(edges.get(path, ())):
                hits = helpers.get(target, {}).get(call.name)
                if hits:
                    helper_seeders.setdefault(path, []).extend(hits)
                    for hit in hits:
                        cover.offer(path, hit.families, _Proof(
                            "seed_management.seed_helper", f"calls {call.name}() from {target}, which sets a seed",
                            hits[0]))

    # A module that seeds while being imported seeds every file that (transitively)
    # imports it, for the families it seeds.
    import_time = {path: hits for path, record in files.items() if (hits := _import_time_seeds(record))}
    on_import: dict[str, dict[str, _Hit]] = {}   # importer -> family -> the import-time seed
    for family in sorted(_families_of(h for hits in import_time.values() for h in hits)):
        seeded: dict[str, tuple[str, _Hit]] = {}
        queue = deque()
        for path in sorted(import_time):
            hit = next((h for h in import_time[path] if family in h.families), None)
            if hit is not None:
                seeded[path] = (path, hit)
                queue.append(path)
        while queue:
            current = queue.popleft()
            for importer in sorted(reverse.get(current, ())):
                if importer not in seeded:
                    seeded[importer] = seeded[current]
                    queue.append(importer)
        for path, (seeder, hit) in seeded.items():
            if path != seeder:
                on_import.setdefault(path, {})[family] = hit
                cover.offer(path, (family,), _Proof("seed_management.seeding_import",
                                                    f"imports {seeder}, which sets a seed when imported", hit))

    # A file imported (transitively) by a local module that seeds runs after that seed. A
    # module of a package the repository distributes is imported by whoever uses the
    # package: a seed in an importer outside the package (an example, a benchmark, a
    # documentation notebook) seeds that importer's run only, not the package's draws.
    package_roots = {path: _package_root(tree, path) for path in files} if _distributes_python(tree) else {}
    spliced = _spliced_seeds(files, edges)
    seeders: dict[str, frozenset[str]] = {}
    for path, record in files.items():
        if record.seeds:
            seeders[path] = _families_of(record.seeds)
    for path in sorted(helper_seeders):
        seeders.setdefault(path, _families_of(helper_seeders[path]))
    for path in sorted(on_import):
        seeders.setdefault(path, frozenset(on_import[path]))
    for path in sorted(spliced):
        seeders.setdefault(path, spliced[path].families)
    for family in sorted({f for families in seeders.values() for f in families}):
        origin: dict[str, str] = {}
        queue = deque()
        for seeder, families in seeders.items():
            if family in families and seeder not in origin:
                origin[seeder] = seeder
                queue.append(seeder)
        while queue:
            current = queue.popleft()
            for target in sorted(edges.get(current, ())):
                root = package_roots.get(target)
                if target not in origin and (root is None or current.startswith(root + "/")):
                    origin[target] = origin[current]
                    queue.append(target)
        for path, seeder in origin.items():
            if path == seeder or not files[path].random:
                continue
            reaching = cover.get(seeder).get(family)
            if reaching is not None:
                cover.offer(path, (family,), _Proof("seed_management.seeded_importer",
                                                    f"is imported by {seeder}, which sets a seed", reaching.hit))
            else:
                hit = spliced[seeder]
                cover.offer(path, (family,), _Proof("seed_management.seeded_importer",
                                                    f"is included by {seeder}, which includes the seed of {hit.path}",
                                                    hit))
    settle()
    return _Seeding(proofs, cover)


def _splices(path: str) -> bool:
    """Whether running ``path`` from another file splices its code into that file's
    namespace: R ``source()``, Julia ``include()``, Snakemake ``include:``."""
    lowered = path.lower()
    return lowered.endswith((".r", ".jl", ".smk")) or posixpath.basename(lowered) == "snakefile"


def _spliced_seeds(files: dict[str, _SeedFile], edges: dict[str, set[str]]) -> dict[str, _Hit]:
    """R, Julia and Snakemake files that source()/include() (transitively) a file
    performing a seed call anywhere, with that seed: sourcing splices the file's code, its seeding
    functions too, into the includer, which so performs the seed call for the files it
    includes (a Julia package module including its CLI's ``Random.seed!(1)``), though
    not for its own draws unless the seed runs at the top level."""
    found: dict[str, _Hit] = {}
    for path, record in files.items():
        if not record.sourced or record.seeds:
            continue
        seen, queue = {path}, deque(sorted(t for t in edges.get(path, ()) if _splices(t) and t in files))
        while queue:
            current = queue.popleft()
            if current in seen:
                continue
            seen.add(current)
            if files[current].seeds:
                found[path] = files[current].seeds[0]
                break
            queue.extend(sorted(t for t in edges.get(current, ()) if t in files and _splices(t)))
    return found


# how to seed, in each ecosystem's own terms (§0.3: never Python advice for a MATLAB or C tree)
# how to seed each generator family, in its ecosystem's own terms (§0.3: never Python
# advice for an R, Julia, MATLAB or C tree, nor R advice for a Python one)
_FAMILY_ADVICE = {
    "random": "random.seed(0)",
    "numpy": "np.random.seed(0)",
    "torch": "torch.manual_seed(0)",
    "torch.cuda": "torch.manual_seed(0)",
    "tensorflow": "tf.random.set_seed(0)",
    "R": "set.seed(1)",
    "julia": "Random.seed!(1), or a seeded Xoshiro(1) passed to every rand",
    "matlab": "rng(42) in the script that calls the rest",
    "matlab.gpu": "parallel.gpu.rng(42) for the gpuArray draws",
    "pymc": "random_seed=0 to each pm.sample",
    "JAGS": ".RNG.seed in each chain's initial values (list(.RNG.name = \"base::Mersenne-Twister\", .RNG.seed = 1)) "
            "or rjags::jags.seed(1) for JAGS, and rnd.seed = 1 to BEST::BESTmcmc (set.seed does not reach JAGS)",
}
_NATIVE_ADVICE = (
    ((".f", ".for", ".f90", ".f95", ".f03", ".f08", ".f77", ".ftn"),
     "call random_seed(put=seed) before random_number"),
    ((), "srand48(11)/srand(11) for the C generator you draw from, or an engine built from a --seed option with a "
         "constant default"),
)
_PYTHON_FAMILIES = frozenset({"random", "numpy", "torch", "torch.cuda", "tensorflow", "jax", "pymc"})
# a generator the file builds without a seed, by family
_BUILT_ADVICE = {
    "numpy": "a seed to each generator the file builds (np.random.default_rng(0))",
    "random": "a seed to each generator the file builds (random.Random(0))",
    "jax": "a key from a fixed seed (jax.random.PRNGKey(0))",
    "tensorflow": "a seeded generator (tf.random.Generator.from_seed(0))",
    "julia": "a seed to each generator the file builds (Xoshiro(1))",
    "matlab": "a seed to each stream the file builds (RandStream('mt19937ar', 'Seed', 1))",
    "MCMCpack": "a fixed seed = to each MCMCpack sampler (MCMCregress(…, seed = 1))",
}


def _fix(unseeded: list[tuple[str, list[_Hit]]]) -> str:
    """One sentence naming the files and, for the generators their unseeded draws use,
    each one's own seeding (``(path, unseeded draws)`` of each unseeded file)."""
    names = _join_names([path for path, _ in unseeded])
    advice: list[str] = []
    for path, hits in unseeded:
        for hit in hits:
            if hit.family == "native":
                text = next(t for suffixes, t in _NATIVE_ADVICE if not suffixes or path.lower().endswith(suffixes))
            elif hit.pinned:
                text = _BUILT_ADVICE.get(hit.family, "a seed to each generator the file builds")
            else:
                text = _FAMILY_ADVICE.get(hit.family, f"a seed for {hit.family}")
            if text not in advice:
                advice.append(text)
    python = any(h.family in _PYTHON_FAMILIES for _, hits in unseeded for h in hits)
    tail = ", or pass random_state=/seed=/generator= to every random call" if python else ""
    return f"Set a seed in {names} before the first random call: {'; '.join(advice)}{tail}."


# what each generator family is, in a reason (§0.2.23)
_FAMILY_NAMES = {
    "random": "the random module", "numpy": "numpy's global generator (np.random)", "torch": "torch's generator",
    "torch.cuda": "torch's CUDA generators", "tensorflow": "TensorFlow's global generator", "R": "R's generator",
    "julia": "Julia's global generator", "matlab": "MATLAB's global stream",
    "matlab.gpu": "MATLAB's GPU stream",
    "pymc": "PyMC's own seeding (random_seed=; from the OS without it)",
    "JAGS": "JAGS's own generators (seeded from the clock without .RNG.seed)",
}


def _family_name(family: str) -> str:
    return _FAMILY_NAMES.get(family, f"{family}'s generator")


def _mismatch(seed: _Hit, draw: _Hit) -> str:
    """Why a seed of the file does not seed its draw: another generator family."""
    seeded = ", ".join(_family_name(f) for f in sorted(seed.families)) or "no generator this file draws from"
    return f"{seed.name} seeds {seeded} only, not {_family_name(draw.family)}, which {draw.name} draws from"


def _hit_evidence(hit: _Hit, reason: str, rule: str) -> Evidence:
    return Evidence(hit.path, reason, rule=rule, line_start=hit.line, snippet=hit.snippet, cell=hit.cell)


@detector("seed_management", version="2.21.0")
def seed_management(tree: TreeIndex) -> Result:
    """Files that make random calls also set a seed (σ = seeded / random files).

    What it checks:
        Every source file of every ecosystem is read for random calls (a frozen list,
        scoring/data/stochastic_calls.json, and the frontends' random facts) and for the
        seeds that reach them; value = 100 · seeded / random files, and with no random
        file the metric is not applicable and scores 100 (alphabet draws, if any, are
        its evidence). Test and vendored files are out of the stochastic set and their
        seeds seed nothing (§0.2.3); the test files are those of the S3 test
        definition, every file of R's tinytest and RUnit folders (inst/tinytest/,
        tests/tinytest/, inst/unitTests/, inst/tests/) among them (§0.2.1); a draw over a character alphabet
        (``random.choices(string.ascii_letters, k=10)``) names a file or a token and is
        not stochastic (§0.1.30). Throughout, the seed must reach the generator that
        draws (§0.2.23), and a seed from the clock, the OS or an entropy device seeds
        nothing: each draw without a seed of its own draws from a generator family (the
        random module, numpy's global state, torch, TensorFlow, R's, Julia's or MATLAB's
        global generator), each seed seeds families, and a file is seeded when seeds
        reach every family its draws use, its own or, family by family, across files.
        Workflow code is source (§0.3): the Python of a Snakefile or .smk file (run:
        blocks, functions, top-level code) is read as a Python file, an include: acting
        as R's source() (the including file's seed reaches the included rules); the
        process scripts of a Nextflow file whose shebang names Rscript or python are
        read as R or Python in that file (set.seed(${params.seed}) seeds from an
        argument).
        Python (files, IPython .ipy files with their magics masked (§0.2.19), notebook
        cells of one notebook together, R Markdown chunks): numpy.random and stdlib
        random sampling, torch.rand*/randperm/normal/bernoulli, tf.random.* and
        TensorFlow 1's draws (tf.random_uniform, tf.random_normal, tf.truncated_normal,
        tf.random_shuffle, tf.random_crop, tf.multinomial, tf.nn.dropout,
        tf.layers.dropout(training=…), also under tf.compat.v1; seeded by
        tf.set_random_seed or their own seed=), jax.random.*, generator constructions (default_rng, RandomState, PRNGKey …),
        randomised sklearn/umap/scipy estimators and functions (ensembles, KMeans, TSNE,
        train_test_split, CV splitters with shuffle=True, poisson(mu).rvs() …), MCMC
        samplers (PyMC's sample, seeded by random_seed= only from PyMC 4 on and by
        numpy's global state in PyMC3; emcee's EnsembleSampler, which copies numpy's
        global state when built) and DataFrame .sample() or a model's .sample(seed=/
        random_seed=) (unless the repository defines its own sample()), resolved
        through imports. A file is seeded when it calls, with an argument, the
        global seeds of the families it draws from: random.seed seeds the random module
        only; np.random.seed numpy's global state, which sklearn, umap, scipy and
        DataFrame.sample draw from without a random_state; torch.manual_seed torch
        (torch.cuda.manual_seed_all its CUDA generators only); tf.random.set_seed
        TensorFlow; keras' set_random_seed the random module, numpy and TensorFlow;
        seed_everything, transformers' and accelerate's set_seed the random module,
        numpy and torch (and TensorFlow); manual_seed on a generator object seeds that
        generator, no family. Or when every random call passes its own non-None seed
        (default_rng(42), random_state=0, generator=g); when it calls a local *seed*
        function that seeds; when it imports a local module that seeds on import; or
        when a local module that seeds imports it (transitively); in a repository that
        distributes a Python package (setup.py, setup.cfg, a pyproject.toml [project]) a
        module of a package is seeded so only from inside the package (a package serves
        every importer: an example, benchmark or docs notebook that seeds before
        importing it seeds its own run only), while an analysis's helper package is
        seeded by the driver that imports it. A generator built as a statement and
        thrown away (np.random.default_rng(0) alone on a line) seeds nothing, and a file drawing
        from a generator of its own built unseeded is unseeded whatever global seed it
        sets. A seed or generator that is a parameter of the enclosing function
        (§0.2.25) seeds when no call passes None and, for a parameter defaulting to None
        (or the unseeded fallback built under ``if rng is None:``), when the function is
        called and every call in the repository passes it (a caller's own None-default
        parameter passed on is followed a few calls deep; one that falls back to a local
        *seed* helper counts as passed; a constructor is called by its class's name); a
        method named like the random module on a parameter (``random.choice`` in ``def
        propose(self, random)``) draws from the generator passed in. A ``**kwargs``
        passed to a random call carries a seed only when its keywords cannot be seen (a
        parameter, a call's result) or one of them is the seed's: bound in its scope (or,
        unbound there, in the enclosing function or module) only to dicts written out
        (``kwargs = {'num_workers': 1} if cuda else {}``), it passes their keys only.
        R (files, evaluated R Markdown chunks, notebook R cells and the %R line magics
        of Python cells, §0.2.24): sample(), the r* distributions, resampling and
        permutation tests (boot, coin's approximate(), adonis2, any call with
        permutations =), learners and MCMC samplers that take
        their own seed (ranger, mikropml's run_ml, brms' brm, rstan's stan and sampling,
        rstanarm's stan_glm and kin, rethinking's ulam, nimble's runMCMC/nimbleMCMC by
        setSeed =: seeded by seed =, not by NA, and otherwise drawing their seed from
        R's generator), samplers drawing from R's generator (bcp, R2jags'/jagsUI's jags,
        which seed JAGS from it), seeded by set.seed/
        with_seed (never from Sys.time()) or through source() as in Python; a
        set.seed(p) whose p is a formal parameter of the enclosing function waits for
        the function's calls (§0.2.25, 2.19.0): a parameter a call may leave out to no
        value (a NULL or NA default, or none and tested with missing(p), as in ``if
        (!missing(seed)) set.seed(seed)``) seeds when the function is called and every
        call in the repository passes it, by name or by position among the formals no
        name matched (a caller's own such parameter passed on is followed); any other
        seeds unless a call passes NULL. 2.20.0: a dotted Python call is a module's
        only when an import binds its first name (§0.2.23: the seed must match the
        generator): ``random = np.random.default_rng(42); random.uniform(…)`` draws from
        that generator, seeded at its construction, not from the random module; and a
        seed call under an ``if`` whose test the seed option's own default fails
        (``if args.seed != 0: torch.manual_seed(args.seed)`` with ``--seed`` defaulting
        to 0, ``if args.seed:`` or ``if args.seed is not None:`` with no default) seeds
        nothing in a default run (§0.2.25, the fallback reading), nor the files that
        rely on it; a function parameter's seed still waits for the call sites. JAGS draws
        from generators of its own, seeded from the clock, which set.seed does not
        reach (§0.2.23): rjags' jags.model and BEST's BESTmcmc are seeded by a chain's
        .RNG.seed = in the file's initial values, rjags::jags.seed(x) or BESTmcmc's
        rnd.seed =. MCMCpack's samplers (MCMCregress, MCMClogit …) seed a generator of
        their own with seed =, and with a fixed 12345 when it is left out or NA: they
        are random calls, reproducible as they stand. A
        sourced file seeds the draws of the file sourcing it only with a set.seed
        outside every function body (a seed inside a function, or its lapply closure,
        runs only when the function is called, not when the file is sourced), while
        sourcing splices the code, so a file that sources a seeding file performs its
        seed call for the files it sources in turn.
        Julia: rand/randn/shuffle… carry their generator: draws from the global one
        (also through Random.default_rng() or a keyword default bound to it) are seeded
        by Random.seed!(x); a draw from an engine of the file (rng =
        MersenneTwister(1234), rand(Xoshiro(1), 3)) by that engine's seed only, so a
        seeded engine handed to one sampler seeds none of the file's global draws, and an
        engine built without a seed (rng = Xoshiro()) is shown as what unseeds its
        draws; a draw from a generator passed in (rng, rngs[j]) is explicit unless a
        call in the repository passes its function the global generator (a convenience
        method f(x) = f(Random.default_rng(), x), a test, a variable bound to it; §0.2.25:
        the draw then falls back to the global generator, cited at that call); a draw
        from a generator a struct's field holds (rand(sg.rng, …), a local unpacked from
        it, s, rng = sg.s, sg.rng, or the field handed to a function that draws from
        it) uses what the struct's constructions store (the type the method annotates,
        sg::SurrogateGenerator, its construction calls by name): a construction storing
        the global generator, or a generator parameter that a call of the constructing
        method leaves out (surrogenerator(x, method, rng = Random.default_rng()) called
        as surrogenerator(x, method)) or passes the global generator, makes the draw a
        global one (§0.2.25, callers passing a generator parameter of their own
        followed a few calls deep); include() acts as
        an import and splices code as source() does: an included file seeds the
        includer's draws only with a Random.seed! outside every function body (a
        module's body runs where it stands), and a package module that includes its
        CLI's seeding function seeds the files it includes.
        MATLAB/Octave: rand, randn, randi, randperm, datasample, normrnd … from the
        global stream are seeded by rng(seed), rng('default'), rng(seed, 'twister'),
        rand('seed', x) or setGlobalStream of a seeded stream, never by rng('shuffle')
        or a clock seed (sum(100*clock)); a draw from a RandStream variable (rand(s, 3))
        by that stream's seed only; the GPU's stream (gpuArray.randn, rand(…,
        'gpuArray')) by parallel.gpu.rng/gpurng only, which do not seed rand (§0.2.23). The stream is global, so a function, script or class
        (every method file of its @folder) called, transitively, by a file that seeds it
        is seeded (seeded_caller).
        C/C++ and Fortran: C rand/random/drand48/lrand48 draws are seeded only by their
        own family's seed (srand, srandom, srand48/seed48); <random> engines built from a
        constant or a seed argument are seeded, built or reseeded from std::random_device
        or time(…) unseeded; Fortran random_number by random_seed(put=…) or
        random_init(repeatable=.true.), never by random_seed() without put=. A seed given
        as a variable is traced to the values the variable is given (in the file, and
        for a member such as opts.random_seed in every file): set from the clock,
        std::random_device or a device's draw (rseed = device()) it seeds nothing even if
        an option can override it (the default run is not reproducible). A seed of a
        process-wide generator reaches the draws of the functions its function calls,
        transitively and across files (seeded_caller). A call of a project's own
        generator (ran2, randum …) passed a seed-state variable (&iseed) is a draw with
        an explicit seed, unseeded when that state is given the clock. A bare
        rand()/random()/drand48() is the C library's only when the tree defines no
        function (or header macro) of that name and, inside a class or struct, the class
        declares no method of that name (a class's own seeded LCG drawn through its
        random() member, as in header-only C++ libraries, is no process-wide draw); a
        member call (obj.random(), this->random()) never is (§0.2.23).
        (2.21.0: a bare C library draw name shadowed by the tree's own function or the
        enclosing class's method is no C library draw.
        2.17.0: R's Bayesian samplers (JAGS's own generators, bcp, R2jags,
        nimble, MCMCpack's fixed default seed); TensorFlow 1 draws and dropout; Julia
        generators held in a struct's field traced to its constructions; MATLAB's GPU
        stream apart; the seed in effect at a draw cited; an unseeded file's other
        unseeded generators and a Fortran random_seed() without put= shown.
        2.16.0: %R line magics read as R.
        2.15.0: MCMC samplers are randomised estimators.
        2.14.0: Snakemake Python and Nextflow R/Python process scripts read.
        2.13.2: the fix names the seed of each generator the unseeded draws use.
        2.13.1: counts report the test files with random calls left out. 2.13.0: .ipy
        files read.
        2.12.0: Julia generator arguments fall back to the global generator where a
        call passes it; unseeded Julia engines shown.
        2.11.0: a seed seeds its generator family only, across files too; an unseeded
        file is shown at its first unseeded draw, with its seeds of other families.
        2.10.0: R/Julia seeds on source()/include() only from outside function bodies.
        2.9.0: a ``**kwargs`` of dicts written out carries no seed they do not hold.
        2.8.0: packages seeded from inside only where the repository distributes them.
        2.7.1: the fix names each ecosystem's seeding. 2.7.0: native seed provenance
        through variables and into called functions. 2.6.0: MATLAB/Octave randomness
        and its global stream across callers. 2.5.0: Julia seeds match their generator.
        2.4.0: Python seed provenance: clock, thrown-away and parameter seeds, packages
        seeded from inside only, the project's own sample methods. 2.3.0: R permutation
        tests, learners' seed arguments, clock seeds. 2.2.0: alphabet draws. 2.1.0:
        C/C++ and Fortran randomness, tests excluded. 2.0.1: read from the frontends'
        call, import and definition facts.)
    Why it matters:
        Unseeded random numbers make every rerun produce different numbers, so nobody
        can tell a reproduction failure from noise.
    Evidence:
        Each unseeded file at its first unseeded draw, with up to two seeds that do not
        reach it (ineffective_seed: a clock seed, a thrown-away generator, a seed
        parameter left None, an engine seeding another generator, the clock default of
        a seed option, a seeding routine without a fixed seed, Fortran's random_seed()
        without put=, a call leaving out a generator argument a struct stores (cited
        once, with the first file it unseeds), a seed of another generator family:
        random.seed before a numpy draw, set.seed before a JAGS model); after every
        file, the first draw of each other generator an unseeded file leaves unseeded;
        each seeded file at its first random call with the seeds it relies on, one per
        generator family its draws use: the seed in effect at its first draw from that
        family (rng('default'); rng(101) cites rng(101)) (seed_call, explicit_seed,
        seed_helper, seeding_import, seeded_importer, seeded_caller; file, line, cell
        for notebooks), the function header that gives a parameter seed (seed_parameter) and the
        definition of a project's own generator (own_generator, once). Counts: random
        and seeded files, files scanned, files that do not parse (their calls, imports
        and function bodies read by the Python frontend's line scan), and the test files
        with random calls left out of the stochastic set (test_stochastic_files_excluded,
        §0.2.3).
    How to fix:
        Set a seed at the top of each listed file or in its entry point, for each
        generator its unseeded draws use, in that generator's own terms (the fix names
        them): random.seed(0) for the random module, np.random.seed(0) for numpy (and
        the estimators drawing from it), torch.manual_seed(0), tf.random.set_seed(0), or
        random_state=/seed=/a seeded generator passed to every random call in Python;
        set.seed(1) in R (for JAGS a .RNG.seed in each chain's initial values or
        rjags::jags.seed(1), and rnd.seed = to BESTmcmc); Random.seed!(1) or a seeded Xoshiro
        passed to every draw in Julia (also to every call of a method that stores it in
        a struct); rng(42) in the MATLAB script that calls the rest (parallel.gpu.rng(42)
        for gpuArray draws);
        in C/C++ seed the generator you draw from (srand48(11) for drand48, std::mt19937
        gen(seed) from a --seed option with a constant default, not time(NULL)); in
        Fortran call random_seed(put=seed) before random_number.
    Known false positives:
        A local variable that shadows an imported module (random = … after import
        random) is read as the module. An option default is matched by the attribute's
        name (``cfg.seed`` takes the default of a ``--seed`` option of the same file),
        and a guard is read only when it tests the very expression passed as the seed.
        A `**kwargs` whose keywords cannot be seen (a parameter, a call's
        result, a dict changed through another name) is assumed to carry a seed.
        A seed call anywhere in the file counts for its family, even after the random
        call; a torch draw is taken for a CPU draw whatever its device, so
        torch.cuda.manual_seed_all alone does not seed it. Modules are matched to imports by name suffix, so a seed
        in one of several same-named local modules seeds all their importers. Call
        sites of a function with a seed parameter, MATLAB callees and native callees are
        matched by name, so a same-named function elsewhere lends its calls; a name
        passed as a seed that is no parameter counts as a value. A Julia argument named
        like a generator (rng) is taken for one; an R function defined below the top
        level (inside local() or an if) is read as top-level code, and a sourced file
        that calls its own seeding function at the top level seeds nothing on
        source(). Native seed variables are matched by name (a member's
        last name across files), so a same-named variable given the clock elsewhere
        unseeds a seed; a typedef'd engine (typedef std::mt19937 Rng) is not known as
        one, and a seed passed down as a function argument is not followed to its
        callers. A Julia struct's constructions are matched by the type's name and its
        generator arguments by being the global generator or a parameter of the
        constructing method; a field read through an untyped receiver (f(m) =
        rand(m.rng)) is taken for a generator passed in. A .RNG.seed anywhere in an R
        file seeds all its JAGS models (and BESTmcmc's, which take rnd.seed only).
        Randomness hidden in other libraries (neural network initialisation, Keras
        Dropout layers, samplers outside the frozen list such as runjags or cmdstanr's
        model$sample()) is not detected; a random call in a function nothing calls (a
        smoke test inside a source module) counts, since the role of its file, not
        reachability, decides (§0.2.1, §0.2.3).
    """
    files, test_stochastic = _seed_files(tree)
    random_files = [r for r in files.values() if r.random]
    counts: dict[str, Any] = {
        "files_scanned": len(files),
        "unparseable_files": sum(1 for r in files.values() if r.unparseable),
        "stochastic_files": len(random_files),
        "test_stochastic_files_excluded": test_stochastic,
    }
    if not random_files:
        counts["seeded_files"] = 0
        # why a random-looking call is not stochastic: it draws a name
        named = [_hit_evidence(hit, f"{hit.name} draws over a character alphabet (a name or token), not a stochastic result",
                               "seed_management.name_draw") for r in files.values() for hit in r.name_draws]
        return Result(
            100,
            applicable=False,
            evidence=named[:MAX_EVIDENCE],
            counts=counts,
            reason=f"no random calls found in {len(files)} source files; nothing to seed",
        )
    seeding = _seed_proofs(tree, files)
    proofs = seeding.proofs
    seeded = [r for r in random_files if r.path in proofs]
    unseeded = [r for r in random_files if r.path not in proofs]
    counts["seeded_files"] = len(seeded)
    counts["unseeded_files"] = len(unseeded)

    evidence: list[Evidence] = []
    # an unseeded file's first draws from its other unseeded generators, after every file's first
    other_generators: list[Evidence] = []
    shown_elsewhere: set[tuple[str, int]] = set()
    for record in unseeded:
        reached = seeding.cover.get(record.path)
        # the first unseeded draw from each generator the file leaves unseeded (§0.2.23: each needs its own seed)
        firsts: dict[tuple[str, bool], _Hit] = {}
        for hit in record.random:
            if not hit.explicit and (hit.pinned or hit.family not in reached):
                firsts.setdefault((hit.family, hit.pinned), hit)
        first, *others = list(firsts.values()) or [record.random[0]]
        evidence.append(_hit_evidence(first, f"random call {first.name} with no seed set for this file", "seed_management.unseeded"))
        shown: set[tuple[str, int]] = set()
        mismatched = [(hit, _mismatch(hit, first)) for hit in record.seeds if first.family not in hit.families
                      and not first.pinned]
        for hit, why in record.unreproducible + mismatched:
            if hit.path != record.path and (hit.path, hit.line) in shown_elsewhere:
                continue   # a call in another file that unseeds several files: cited with the first
            if (hit.path, hit.line) not in shown and len(shown) < 2:
                shown.add((hit.path, hit.line))
                if hit.path != record.path:
                    shown_elsewhere.add((hit.path, hit.line))
                evidence.append(_hit_evidence(hit, why, "seed_management.ineffective_seed"))
        for hit in others:
            source = "a generator of its own built without a seed" if hit.pinned else _family_name(hit.family)
            other_generators.append(_hit_evidence(hit, f"random call {hit.name} from {source}, another generator "
                                                  "with no seed set for this file", "seed_management.unseeded"))
    generators_shown: set[_Hit] = set()
    for record in seeded:
        first = record.random[0]
        relied = proofs[record.path]
        own = [p.hit.name for p in relied if p.rule == "seed_management.seed_call" and p.hit in record.seeds]
        parts = [f"sets a seed with {' and '.join(dict.fromkeys(own))}"] if own else []
        parts += [p.reason for p in relied if not (p.rule == "seed_management.seed_call" and p.hit in record.seeds)]
        reasons = " and ".join(dict.fromkeys(parts))
        evidence.append(_hit_evidence(first, f"random call {first.name}; the file {reasons}", "seed_management.seeded"))
        for proof in relied:
            evidence.append(_hit_evidence(proof.hit, f"seed relied on by {record.path}", proof.rule))
        if record.own_generator is not None and record.own_generator not in generators_shown:
            generator = record.own_generator
            generators_shown.add(generator)
            evidence.append(_hit_evidence(generator, f"{generator.name}() is the project's own generator: its draws "
                                          "follow the seed state passed to it", "seed_management.own_generator"))
        for proof in relied:
            source = files[proof.hit.path].parameter_seeds.get(proof.hit) if proof.hit.path in files else None
            if source is not None:
                function, parameter = source
                none = "NULL" if proof.hit.path.lower().endswith((".r", ".rmd", ".qmd")) else "None"
                given = (f"is never {none} at its calls" if parameter not in function.none_defaults
                         else "every call passes")
                evidence.append(Evidence(proof.hit.path,
                                         f"the seed is the parameter {parameter} of {function.name}(), which {given}",
                                         rule="seed_management.seed_parameter", line_start=function.line,
                                         snippet=tree.snippet(proof.hit.path, function.line, function.cell),
                                         cell=function.cell))
    evidence += other_generators
    value = 100 * len(seeded) / len(random_files)
    fix = None
    if unseeded:
        fix = _fix([(r.path, [h for h in r.random if not h.explicit and (h.pinned or h.family not in
                                                                            seeding.cover.get(r.path))])
                    for r in unseeded])
    return Result(
        value,
        evidence=evidence[:MAX_EVIDENCE],
        fix=fix,
        counts=counts,
        reason=f"{len(seeded)} of {len(random_files)} files with random calls set a seed",
    )
