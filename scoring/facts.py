"""Facts: what a language frontend reads from one file, once, as plain typed records.

A frontend (``scoring.frontends``) parses a file and walks its tree once, emitting the
records below; detectors aggregate them and never re-parse. Every record is frozen and
JSON-serialisable so a file's facts can be cached by the file's git blob id: the same
content always yields the same facts under the same ``frontend_version``.

Lines are 1-based and refer to the file (not to an embedded chunk), except in notebooks:
there a fact's ``cell`` is the 1-based index of the cell among all cells and its lines
count within that cell, the numbering evidence uses (``Evidence.cell``). ``cell`` is None
everywhere else and is left out of the JSON then, so facts of other files do not carry it.
Argument values are literals (str, int, float, bool, None) or an :class:`Expr` standing
for any other expression, so that a literal string can never be mistaken for a marker.
"""

from __future__ import annotations

import json
import math
import typing
from dataclasses import MISSING, dataclass, field, fields
from functools import cache
from typing import Any

__all__ = [
    "AssertFact", "AssignmentFact", "BlockFact", "CallFact", "CliArgFact", "CommentFact", "CredentialFact",
    "DefinitionFact",
    "MacroFact",
    "DirectiveFact", "ExportFact", "Expr", "FileFacts", "FileIOFact", "HandlerFact", "ImportFact", "InstallFact",
    "NotebookCellFact", "RandomFact", "StringFact", "UrlFact", "literal_or_expr",
    "GUARDS", "HANDLER_ACTIONS", "SEED_SOURCES", "RANDOM_ROLES", "FILE_MODES",
]

# where an import sits: "try" in the body of a try whose handler catches import errors,
# "except" in such a handler (the fallback import), "type_checking" under
# ``if TYPE_CHECKING:``, "conditional" under any other condition, "probe" (R) in an if
# condition that tests for the package (requireNamespace/require) or its then-branch
GUARDS = ("none", "try", "except", "type_checking", "conditional", "probe")
HANDLER_ACTIONS = ("pass", "continue", "return", "log", "reraise", "other")
# kind of a RandomFact: a call that sets a generator's state, a generator object built,
# or a draw from a generator
# "seed_value": a value given to a variable that holds a seed (C/C++: a variable named
# like one, ``opts.random_seed = time(NULL)``, ``iseed = -1 - gid``, or one given the clock)
# "pass": a generator handed to a call that is no draw, resolved as a draw's would be
# (Julia ``autoregressive!(s, d, sg.rng)``: the generator a struct's field holds)
RANDOM_ROLES = ("seed", "engine", "draw", "seed_value", "pass")
# where a seed comes from: "literal" and "argument" are reproducible; "default" is a
# generator's documented fixed default state (a default-constructed std::mt19937);
# "time" and "entropy" change on every run; "none" leaves the state to the runtime
# (Fortran ``random_seed()`` without put=); "discarded" a generator built with a seed and
# thrown away (Python ``np.random.default_rng(0)`` as a statement: it seeds nothing); ""
# for draws
SEED_SOURCES = ("literal", "argument", "default", "time", "entropy", "none", "discarded", "")
FILE_MODES = ("read", "write", "readwrite", "unknown")

EXPR_TEXT_LIMIT = 80


@dataclass(frozen=True)
class Expr:
    """A non-literal argument value, with its source text (cut to 80 characters)."""

    text: str

    def to_dict(self) -> dict:
        return {"expr": self.text}


Value = str | int | float | bool | None | Expr


def literal_or_expr(value: Any, text: str) -> Value:
    """``value`` when it is a JSON-safe literal, else ``Expr(text)``.

    Non-finite floats (``1e999``) are not JSON and would not round-trip: they are
    expressions here.
    """
    if isinstance(value, float) and not math.isfinite(value):
        return Expr(text[:EXPR_TEXT_LIMIT])
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return Expr(text[:EXPR_TEXT_LIMIT])


def _encode_value(value: Value) -> Any:
    return value.to_dict() if isinstance(value, Expr) else value


def _decode_value(raw: Any) -> Value:
    if isinstance(raw, dict):
        return Expr(raw["expr"])
    return raw


class _Record:
    """Generic ``to_dict``/``from_dict`` driven by the dataclass's type hints.

    A field declared with ``OMITTED_WHEN_DEFAULT`` metadata is left out of the dict while
    it holds its default and read back as the default when absent, so the round trip
    stays exact.
    """

    def to_dict(self) -> dict:
        out = {}
        for name, encode, _decode_field, omitted in _plan(type(self)):
            value = getattr(self, name)
            if omitted is not _KEPT and value == omitted:
                continue
            out[name] = value if encode is None else encode(value)
        return out

    @classmethod
    def from_dict(cls, raw: dict):
        values = {}
        for name, _encode_field, decode, omitted in _plan(cls):
            if name in raw:
                values[name] = raw[name] if decode is None else decode(raw[name])
            elif omitted is not _KEPT:
                values[name] = omitted
            else:
                raise KeyError(name)
        # What the frozen dataclass's __init__ does, without a call per field: no record
        # validates or derives anything in __init__ (no __post_init__, no slots).
        record = object.__new__(cls)
        record.__dict__.update(values)
        return record


_OMIT = "omitted_when_default"
OMITTED_WHEN_DEFAULT = {_OMIT: True}
_KEPT = object()   # a field that is always in the dict


def _cell():
    """The ``cell`` field of a line-bearing fact: the notebook cell its lines count in."""
    return field(default=None, metadata=OMITTED_WHEN_DEFAULT)


@cache
def _hints(cls) -> dict:
    return typing.get_type_hints(cls)


def _is_value_type(hint) -> bool:
    return hint == Value


@cache
def _plan(cls) -> tuple[tuple[str, Any, Any, Any], ...]:
    """(field name, encoder, decoder, default left out of the dict or ``_KEPT``) of each
    field, from the class's type hints, worked out once per class (encoder and decoder
    None: the value is its own JSON form)."""
    hints = _hints(cls)
    return tuple((f.name, *_codec(hints[f.name]), f.default if f.metadata.get(_OMIT) else _KEPT)
                 for f in fields(cls))


@cache
def _codec(hint) -> tuple[Any, Any]:
    """The (encoder, decoder) of values of type ``hint``; None for a value that is its
    own JSON form (str, int, float, bool, None)."""
    if _is_value_type(hint):
        return _encode_value, _decode_value
    origin = typing.get_origin(hint)
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            encode, decode = _codec(args[0])
            if encode is None:
                return list, tuple
            return (lambda value: [encode(item) for item in value]), (
                lambda raw: tuple(decode(item) for item in raw))
        codecs = [_codec(arg) for arg in args]

        def encode_items(value):
            return [item if c[0] is None else c[0](item) for item, c in zip(value, codecs, strict=True)]

        def decode_items(raw):
            return tuple(item if c[1] is None else c[1](item) for item, c in zip(raw, codecs, strict=True))

        return encode_items, decode_items
    if isinstance(hint, type) and issubclass(hint, _Record):
        return hint.to_dict, hint.from_dict
    return None, None


@dataclass(frozen=True)
class ImportFact(_Record):
    """A dependency named in code: ``module`` as written (an R package, a Julia module,
    a header, a Fortran module, a workflow module path)."""

    module: str
    line: int
    guard: str = "none"       # one of GUARDS
    # import, from, dynamic (Python), library, require, requireNamespace, pkg::, using,
    # include, use, source, addpath...
    kind: str = "import"
    # the names a ``from x import a, b`` statement takes from the module (Python), so a
    # distribution named by the longest dotted prefix (x.a) can be matched
    names: tuple[str, ...] = field(default=(), metadata=OMITTED_WHEN_DEFAULT)
    cell: int | None = _cell()
    # Python: in the body of a try whose handlers catch import errors, at any depth (a
    # function, class or handler in between too): the optional imports C2 leaves out
    import_try: bool = field(default=False, metadata=OMITTED_WHEN_DEFAULT)
    # Python: read by the line scan of code that does not parse (a ``from`` line's
    # names are then what the line shows)
    line_scan: bool = field(default=False, metadata=OMITTED_WHEN_DEFAULT)
    # the local names a Python import binds where it renames (``import numpy as np``:
    # ``("np",)``; ``from x import a as b, c``: ``("b", "")``, one per name): left empty
    # when nothing is renamed, so the name bound is then the module's head or each name
    asnames: tuple[str, ...] = field(default=(), metadata=OMITTED_WHEN_DEFAULT)


@dataclass(frozen=True)
class InstallFact(_Record):
    """A package a script installs, by the name its call gives: R ``install.packages``,
    ``BiocManager::install`` (also ``renv::``, ``pak::``, ``remotes::install``),
    ``pkg_install``, ``pak``, ``p_install``, ``pacman::p_load``, ``install_github`` and its
    kin (``package`` is then the repository spec as written, ``"user/repo@ref"``); Julia
    ``Pkg.add`` (every string literal among its arguments)."""

    package: str
    line: int
    call: str                  # the installing call's name without its package (install_github, Pkg.add)
    cell: int | None = _cell()


@dataclass(frozen=True)
class CallFact(_Record):
    name: str                  # dotted callee, import aliases resolved where the language has them
    written: str               # callee as written
    line: int
    args: tuple[Value, ...] = ()
    kwargs: tuple[tuple[str, Value], ...] = ()
    cell: int | None = _cell()
    # (argument, URL) of each argument that resolves to a URL: "0", "1"… for positional
    # ones, the keyword's name otherwise (Python: a literal, an f-string or ``.format``
    # template, a concatenation starting with one, ``urljoin``/``os.path.join`` of one, or
    # a name bound to one of those in the same unit)
    urls: tuple[tuple[str, str], ...] = field(default=(), metadata=OMITTED_WHEN_DEFAULT)
    # the command line a subprocess/os.system call runs (Python): its string, f-string
    # (``ARG`` for each field) or list of words (shell-quoted; ``ARG`` for a computed one)
    command: str = field(default="", metadata=OMITTED_WHEN_DEFAULT)
    # Python ``**name`` arguments whose keywords can be seen (``spread_known``): every such
    # argument is a dict written in the call or a name bound before the call, in the same
    # scope, only to dicts written out (``{…}``, ``dict(k=…)``, conditional expressions of
    # them; keys added by ``name[k] = …``, ``name.update(k=…)``, ``name.setdefault(k, …)``);
    # ``spread_keys`` the keywords they can pass, sorted. False for a call without ``**`` or
    # with one the frontend cannot see into (a parameter, a call's result, a global)
    spread_keys: tuple[str, ...] = field(default=(), metadata=OMITTED_WHEN_DEFAULT)
    spread_known: bool = field(default=False, metadata=OMITTED_WHEN_DEFAULT)


@dataclass(frozen=True)
class StringFact(_Record):
    value: str
    line_start: int
    line_end: int
    binding: str = ""          # variable, key or keyword the literal is bound to
    docstring: bool = False
    cell: int | None = _cell()
    # Python: read by the line scan of code that does not parse (the value is then the
    # text between the quotes, escapes not decoded)
    line_scan: bool = field(default=False, metadata=OMITTED_WHEN_DEFAULT)


@dataclass(frozen=True)
class CommentFact(_Record):
    """One comment block: consecutive whole-line comments of the same kind are merged."""

    line_start: int
    line_end: int
    text: str
    doc: bool = False          # roxygen, docstring, help block, Doxygen, FORD
    cell: int | None = _cell()


@dataclass(frozen=True)
class DefinitionFact(_Record):
    name: str
    kind: str                  # function, method, class, struct, module, process, rule...
    line: int
    public: bool = True
    documented: bool = False
    decorators: tuple[str, ...] = ()
    cell: int | None = _cell()
    # the header line as written, stripped (``def f(x):``), for a public definition
    # without a docstring (D6's evidence); "" otherwise
    header: str = field(default="", metadata=OMITTED_WHEN_DEFAULT)
    # the line of each decorator, in the order of ``decorators`` (Python)
    decorator_lines: tuple[int, ...] = field(default=(), metadata=OMITTED_WHEN_DEFAULT)
    # a class's bases as dotted names, import aliases resolved (Python); "" for a base
    # that is no dotted name; MATLAB: a classdef's superclasses as written
    bases: tuple[str, ...] = field(default=(), metadata=OMITTED_WHEN_DEFAULT)
    # the base classes of a class as written, those that are dotted names (Python; also
    # read off a class line that does not parse), S3's TestCase test
    written_bases: tuple[str, ...] = field(default=(), metadata=OMITTED_WHEN_DEFAULT)
    # the last line of the definition (Python: of its body; code that does not parse: the
    # last line indented below its header); 0 where not recorded
    end_line: int = field(default=0, metadata=OMITTED_WHEN_DEFAULT)
    # a Python function's parameters in call order (``*args``/``**kwargs`` with their stars,
    # keyword-only ones after ``*args`` or a bare ``*``), and those whose default is None (S1, §0.2.25: a seed
    # parameter that falls back to an unseeded generator); a Julia method's likewise (its
    # keyword parameters after a bare ``*``), with those defaulting to the global generator
    # (``rng = Random.default_rng()``) in ``none_defaults``; an R function's formals, with
    # those a call may leave out to no value (a NULL/NA default, or none and tested by
    # ``missing()``) in ``none_defaults``
    parameters: tuple[str, ...] = field(default=(), metadata=OMITTED_WHEN_DEFAULT)
    none_defaults: tuple[str, ...] = field(default=(), metadata=OMITTED_WHEN_DEFAULT)
    # every parameter name of a MATLAB, R or Julia function (``parameters`` holds only the
    # methods S1 follows there): a parameter hides a binding of its name outside the
    # function (A4, the scope of a name a download call is given)
    inputs: tuple[str, ...] = field(default=(), metadata=OMITTED_WHEN_DEFAULT)


@dataclass(frozen=True)
class AssignmentFact(_Record):
    """A string literal assigned to a name (credential-like names are a detector's call).
    R: also a name bound to a call that builds a string (``paste0``, ``sprintf``,
    ``file.path``, ``glue``…) whose first argument is a URL literal, with that literal as
    ``value`` (``uri <- paste0("https://host/api/", util)``: the URL it starts with)."""

    name: str
    line: int
    value: str
    cell: int | None = _cell()


@dataclass(frozen=True)
class HandlerFact(_Record):
    line: int
    caught: str                # what is caught ("..." for catch-all, "" when unnamed)
    action: str                # one of HANDLER_ACTIONS
    cell: int | None = _cell()
    # the last line of the handler's body (0: not recorded)
    end_line: int = field(default=0, metadata=OMITTED_WHEN_DEFAULT)
    # how the handler swallows the error, "" when it does not: "empty", a Python handler
    # whose body does nothing (only ``pass``, ``...``, strings and ``continue``);
    # "null_handler", an R ``tryCatch`` error handler ``function(e) NULL`` (also
    # ``invisible(NULL)``, ``invisible()``, ``{}``, ``{ NULL }``); "silent", an R
    # ``try(…, silent = TRUE)`` whose value is discarded
    swallows: str = field(default="", metadata=OMITTED_WHEN_DEFAULT)
    # the handler's first lines (at most three), stripped and joined by spaces, redacted:
    # recorded when it swallows, for evidence
    excerpt: str = field(default="", metadata=OMITTED_WHEN_DEFAULT)
    # the first line of the guarding construct when it is not ``line`` (R: the
    # ``tryCatch(`` line of an error handler written on a later line); 0: ``line``
    start_line: int = field(default=0, metadata=OMITTED_WHEN_DEFAULT)


@dataclass(frozen=True)
class RandomFact(_Record):
    line: int
    call: str                  # the seed/engine/draw call or type as resolved
    generator: str             # whose state: "R", "Random.GLOBAL", "c.rand", an engine variable...
    kind: str = "draw"         # one of RANDOM_ROLES
    seeded: bool = False       # seed/engine given a reproducible seed
    seed_source: str = ""      # one of SEED_SOURCES
    cell: int | None = _cell()
    # the seed as written when it is an expression (C/C++: ``opts.random_seed``), so that
    # its variable can be traced to the values it is given
    seed_text: str = field(default="", metadata=OMITTED_WHEN_DEFAULT)


@dataclass(frozen=True)
class CliArgFact(_Record):
    line: int
    kind: str                  # argparse, commandArgs, ARGS, argv, getopt, params, function_arguments...
    name: str = ""             # the parameter's name when the language names it (params.input)
    cell: int | None = _cell()
    # the read is a subscript (Python ``sys.argv[1]``); Nextflow: a ``params.x = …`` default
    # assigned in a script (settings of a config's params scope are always assigned)
    subscript: bool = field(default=False, metadata=OMITTED_WHEN_DEFAULT)
    assigned: bool = field(default=False, metadata=OMITTED_WHEN_DEFAULT)


@dataclass(frozen=True)
class FileIOFact(_Record):
    line: int
    mode: str                  # one of FILE_MODES
    path: str = ""             # the path literal; "" when the path is computed
    call: str = ""
    cell: int | None = _cell()


@dataclass(frozen=True)
class UrlFact(_Record):
    url: str
    line: int
    cell: int | None = _cell()


@dataclass(frozen=True)
class DirectiveFact(_Record):
    """A workflow directive (Nextflow process/config, Snakemake rule or global)."""

    kind: str
    value: str
    line: int
    scope: str = ""            # process/rule name, config scope, "" at top level


@dataclass(frozen=True)
class BlockFact(_Record):
    """A named block (Nextflow: ``process { … }`` and the other scopes of a config file,
    ``withName:FOO { … }``, a script's entry ``workflow { … }``), at its first line.

    Python: the code a module does not run when it is imported, besides function bodies
    (``DefinitionFact.end_line``): a module-level ``if __name__ == "__main__":`` block
    (label ``__main__``; in code that does not parse, read by indentation) and each
    ``lambda`` (label ``lambda``), with their last line."""

    label: str                 # as written before the brace; ``withName:FOO`` for a selector
    line: int
    end_line: int = field(default=0, metadata=OMITTED_WHEN_DEFAULT)   # 0: not recorded
    cell: int | None = _cell()


@dataclass(frozen=True)
class NotebookCellFact(_Record):
    index: int                 # 1-based
    kind: str                  # code, markdown, raw
    execution_count: int | None = None
    output_kinds: tuple[str, ...] = ()
    magics: tuple[str, ...] = ()
    # markdown cells: the length of the cell's text, stripped (in an R Markdown / Quarto
    # document the YAML front matter of the first cell excluded); 0 for other cells
    chars: int = field(default=0, metadata=OMITTED_WHEN_DEFAULT)
    # line breaks in the cell's source (``source.count("\n")``): where each cell starts in
    # a text that joins cells (the notebook's Document joins its markdown cells with a
    # blank line), without the source
    newlines: int = field(default=0, metadata=OMITTED_WHEN_DEFAULT)
    # signals (S2, S4, S6): whether the cell stores any output (``output_kinds`` may be
    # empty for malformed outputs), its metadata tags (papermill ``parameters``), its
    # language (python, shell, r, julia, other; markdown and raw cells: "") and the
    # number of lines of its source (``len(source.splitlines())``)
    has_outputs: bool = field(default=False, metadata=OMITTED_WHEN_DEFAULT)
    tags: tuple[str, ...] = field(default=(), metadata=OMITTED_WHEN_DEFAULT)
    language: str = field(default="", metadata=OMITTED_WHEN_DEFAULT)
    line_count: int = field(default=0, metadata=OMITTED_WHEN_DEFAULT)
    # (line, command) of each magic that runs a shell command (``!pip install x``, ``%pip
    # install x``, ``x = !ls``, each line of a ``%%bash`` cell or of an R Markdown shell
    # chunk: ``scoring.parsers.notebook.Magic.shell_command``), redacted; the line counts
    # within the cell (R Markdown: the document's line)
    commands: tuple[tuple[int, str], ...] = field(default=(), metadata=OMITTED_WHEN_DEFAULT)
    # R Markdown / Quarto code cells: the document line just before the chunk's first code
    # line (``scoring.parsers.notebook.Cell.line_offset``), which tells the chunk of a fact
    line_offset: int = field(default=0, metadata=OMITTED_WHEN_DEFAULT)
    # code cells in neither Python nor shell (an R or Julia kernel's cells, ``%%R`` and
    # other cell magics with their first line; R, Julia and other R Markdown chunks): the
    # (line, text) of their non-blank lines, redacted, lines counted as ``commands`` are
    # (A2, A4 read them as code lines)
    code_lines: tuple[tuple[int, str], ...] = field(default=(), metadata=OMITTED_WHEN_DEFAULT)
    # the line of each of ``magics``, in the numbering of the cell's facts (within the
    # cell; R Markdown: the document's line)
    magic_lines: tuple[int, ...] = field(default=(), metadata=OMITTED_WHEN_DEFAULT)


@dataclass(frozen=True)
class AssertFact(_Record):
    """An ``assert`` statement (Python); a statement that ends a Fortran program with a
    failing exit status (``error stop``, ``stop 1``), a test program's assertion (S3)."""

    line: int
    cell: int | None = _cell()


@dataclass(frozen=True)
class MacroFact(_Record):
    """A macro call (Julia): ``name`` as written, with its ``@`` (``@testset``, ``@test``;
    ``Test.@test`` is ``@test``)."""

    name: str
    line: int
    cell: int | None = _cell()


@dataclass(frozen=True)
class ExportFact(_Record):
    """A name a module makes public (Julia: each name of an ``export`` statement)."""

    name: str
    line: int


@dataclass(frozen=True)
class CredentialFact(_Record):
    """A hard-coded credential (C3), decided where the text is read, before redaction
    (:class:`scoring.parsers.secrets.FileCredentials`): the secret itself is never kept.
    Every frontend gives those of its code files (``FileFacts.credentials``),
    ``TreeIndex.line_file`` those of shell, parameter and ``.env`` files."""

    line: int
    kind: str                  # token (a provider's token format), private_key (PEM), assignment,
                               # public_token (a publishable key: shown, never counted)
    name: str                  # token: the provider (aws, github…); assignment: the bound name
    masked: str                # the secret's first four characters and length (``abcd…(40 chars)``)
    excerpt: str               # the line, every secret of the file masked (the evidence snippet)
    cell: int | None = _cell()


@dataclass(frozen=True)
class FileFacts(_Record):
    language: str
    frontend: str
    frontend_version: str
    imports: tuple[ImportFact, ...] = ()
    calls: tuple[CallFact, ...] = ()
    strings: tuple[StringFact, ...] = ()
    comments: tuple[CommentFact, ...] = ()
    definitions: tuple[DefinitionFact, ...] = ()
    assignments: tuple[AssignmentFact, ...] = ()
    handlers: tuple[HandlerFact, ...] = ()
    randoms: tuple[RandomFact, ...] = ()
    cli_args: tuple[CliArgFact, ...] = ()
    file_io: tuple[FileIOFact, ...] = ()
    urls: tuple[UrlFact, ...] = ()
    directives: tuple[DirectiveFact, ...] = ()
    cells: tuple[NotebookCellFact, ...] = ()
    parse_error: str | None = None
    lines: int = 0
    # 1-based numbers of the blank lines (empty or whitespace only) of a script, in the
    # ``str.splitlines`` numbering of its text (every script frontend; not notebooks or
    # R Markdown): with ``lines`` they give D4 its non-blank lines
    blank_lines: tuple[int, ...] = field(default=(), metadata=OMITTED_WHEN_DEFAULT)
    # named blocks (Nextflow); left out of the JSON while empty, so the facts of the other
    # frontends keep the JSON they had
    blocks: tuple[BlockFact, ...] = field(default=(), metadata=OMITTED_WHEN_DEFAULT)
    asserts: tuple[AssertFact, ...] = field(default=(), metadata=OMITTED_WHEN_DEFAULT)
    macros: tuple[MacroFact, ...] = field(default=(), metadata=OMITTED_WHEN_DEFAULT)
    installs: tuple[InstallFact, ...] = field(default=(), metadata=OMITTED_WHEN_DEFAULT)
    # names the file's modules export (Julia), in document order: D6 counts the exported
    # names of a package, wherever they are defined
    exports: tuple[ExportFact, ...] = field(default=(), metadata=OMITTED_WHEN_DEFAULT)
    # the facts of code in another language inside the file, one FileFacts per language,
    # each from that language's frontend: the R and Julia cells of a Jupyter notebook
    # (every fact carries its cell, lines count within the cell) and the evaluated Python
    # and Julia chunks of an R Markdown / Quarto document (the document's lines)
    embedded: tuple[FileFacts, ...] = field(default=(), metadata=OMITTED_WHEN_DEFAULT)
    # hard-coded credentials (C3), decided and masked before the other facts are
    # redacted (``scoring.frontends._credentials``): Python files and notebooks, R, R
    # Markdown / Quarto and Julia files; never in ``embedded`` facts (a notebook's or a
    # document's own are read across all its cells)
    credentials: tuple[CredentialFact, ...] = field(default=(), metadata=OMITTED_WHEN_DEFAULT)

    def to_json(self) -> str:
        return self.json_of(self.to_dict())

    @staticmethod
    def json_of(data: dict) -> str:
        """The compact JSON text of a ``to_dict()`` result, as ``to_json`` writes it."""
        # allow_nan=False: a NaN would not compare equal after the round trip
        return json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> FileFacts:
        return cls.from_dict(json.loads(text))


def _direct_init(cls: type) -> None:
    """Give the frozen dataclass ``cls`` an ``__init__`` that stores its fields in the
    instance's dict: the dataclass's own sets each one through ``object.__setattr__``
    (its way past the frozen ``__setattr__``), three times the cost, and the frontends
    make facts by the hundred thousand per tree. The same parameters, defaults and
    result: no record validates or derives anything in ``__init__``, and no field has a
    default factory. Generated as ``dataclasses`` generates its own."""
    parameters, stores, defaults = [], [], {}
    for item in fields(cls):
        if item.default is MISSING:
            parameters.append(item.name)
        else:
            defaults[f"_default_{item.name}"] = item.default
            parameters.append(f"{item.name}=_default_{item.name}")
        stores.append(f"    values[{item.name!r}] = {item.name}")
    source = f"def __init__(self, {', '.join(parameters)}):\n    values = self.__dict__\n" + "\n".join(stores) + "\n"
    exec(source, defaults)  # noqa: S102 - code built from the class's own field names
    init = defaults["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init


for _record in (Expr, *_Record.__subclasses__()):
    _direct_init(_record)
