"""R frontend: ``.R``/``.r`` scripts and the R chunks of ``.Rmd``/``.qmd`` documents (whose
evaluated Python and Julia chunks the Python and Julia frontends read: ``FileFacts.embedded``).

Grammar: tree-sitter-r as bundled by tree-sitter-language-pack (no tree-sitter-r wheel
exists on PyPI).

Traversal: one parse, then one tree-sitter query (``SELECTED``) that hands Python only
the nodes facts come from (comments, strings, calls, ``::`` and binary operators), in
document order, plus marks for the context a fact depends on; identifiers, operators and
punctuation stay in C (``scoring.frontends._common.selected``).
"""

from __future__ import annotations

import re
from dataclasses import replace

from scoring.facts import (
    AssignmentFact,
    CallFact,
    CliArgFact,
    DefinitionFact,
    Expr,
    FileFacts,
    FileIOFact,
    ImportFact,
    InstallFact,
    NotebookCellFact,
    RandomFact,
    literal_or_expr,
)
from scoring.frontends import _common as ts
from scoring.frontends._credentials import (
    rmarkdown_credentials,
    with_credentials,
    with_script_credentials,
)
from scoring.parsers.notebook import Notebook, other_language_lines, parse_rmarkdown, shell_commands

LANGUAGE = "r"
VERSION = "1.2.4"   # 1.0.1: facts redacted (_common.redact_facts); 1.0.2: FileFacts.blank_lines, cells of R Markdown, handlers that swallow (C4), eval = FALSE in chunk code is code; 1.0.3: InstallFact, NotebookCellFact.commands and line_offset, requireNamespace(name) reads a variable; 1.1.0: the facts of R Markdown's Python and Julia chunks (FileFacts.embedded); 1.1.1: with main's 1.0.4-1.0.6 (code_lines, roxygen across blank lines, magic_lines); 1.1.2: the seed argument of a call that takes its own (`run_ml(seed = 1)`), at its line; `seed = NA` picks no seed (S1); 1.1.3: with julia 1.0.6 (embedded Julia chunks); 1.1.4: with python 1.2.5 (embedded Python chunks: CallFact.spread_keys); 1.1.5 (S1): DefinitionFact.end_line, the last line of a definition (what sourcing the file does not run); with julia 1.0.7; 1.1.6: with python 1.2.7; 1.1.7: with main's credential facts and python 1.2.8; 1.1.8: with handler end lines and each found secret masked in all facts (C3 2.2.0), python 1.2.9; 1.1.9 (S1): a sampler's own seed also given as rnd.seed = (BEST::BESTmcmc) or setSeed = (nimble; FALSE sets none); JAGS seeds (generator "JAGS"): a chain's .RNG.seed = in any call and rjags::jags.seed(); with julia 1.1.2; 1.1.10: both 1.1.9 lines: JAGS and sampler seeds (S1) and URL-building assignments (A4); 1.1.11 (S1, §0.2.25): a function's formals (DefinitionFact.parameters) and those a call may leave out to no value (none_defaults: NULL/NA default, or none and tested by missing()), set.seed's seed expression (RandomFact.seed_text); 1.2.0 (A4): DefinitionFact.inputs, a function's parameter names; 1.2.1: both lines (formals for S1, inputs for A4), with julia 1.3.0; 1.2.2: with julia 1.3.1 (Julia chunks: docstrings above const bindings and bare names); 1.2.3: with julia 1.3.2 (Julia chunks: chunked re-parse of a file the grammar loses); 1.2.4: with the other 1.2.3 line (C2, §0.2.21): guard "probe", a require()/requireNamespace() call in an if condition (not negated) and the same package's library()/require()/pkg:: uses in its then-branch

ATTACHING = {"library": "library", "require": "require"}
NAMESPACE_LOADING = {"requireNamespace": "requireNamespace", "loadNamespace": "requireNamespace"}
MULTI_PACKAGE_LOADERS = {"p_load", "pacman::p_load"}
# calls that install the packages their first positional argument names (a name, a
# string or ``c(...)`` of strings); ``install`` only from the package managers below
INSTALLERS = {"install.packages", "install", "pkg_install", "pak", "p_install", "install_github", "install_gitlab",
              "install_bitbucket", "install_git"}
INSTALL_OWNERS = {"BiocManager", "renv", "pak", "remotes"}
# the calls that test whether a package is installed: in an if condition they make it
# optional (§0.2.21, R's form of Python's find_spec test; Writing R Extensions' idiom for
# Suggests)
PROBING_CALLS = frozenset({"require", "requireNamespace", "base::require", "base::requireNamespace"})
GUARDING_CALLS = {"try", "tryCatch", "withCallingHandlers", "base::try", "base::tryCatch"}
HANDLER_CALLS = {"tryCatch", "withCallingHandlers", "base::tryCatch", "base::withCallingHandlers",
                 "rlang::try_fetch", "try_fetch"}
NOT_HANDLERS = {"expr", "finally"}
RERAISING = {"stop", "abort", "rlang::abort", "signalCondition", "cli::cli_abort", "cli_abort"}
LOGGING = {"message", "warning", "print", "cat", "writeLines", "flog.error", "flog.warn",
           "log_error", "log_warn", "logger::log_error", "logger::log_warn", "cli::cli_alert",
           "cli_alert_warning", "cli::cli_warn", "cli_warn", "rlang::warn", "rlang::inform"}
# muffling a condition is what a silent handler does, not an action of its own
PASSIVE_CALLS = {"invisible", "invokeRestart", "tryInvokeRestart"}
SEEDING = {"set.seed", "withr::with_seed", "withr::local_seed", "with_seed", "local_seed"}
# the arguments by which a sampler takes its own seed (brms::brm(seed = 1), BEST::BESTmcmc(rnd.seed = 1),
# nimble::runMCMC(setSeed = 1)): the seed of that call's generator
OWN_SEED_ARGUMENTS = ("seed", "rnd.seed", "setSeed")
# JAGS draws from generators of its own, seeded from the clock unless a chain's initial values give
# .RNG.seed or rjags::jags.seed() sets the seed (set.seed does not reach them)
JAGS_SEED_ARGUMENT = ".RNG.seed"
JAGS_SEEDING = {"jags.seed", "rjags::jags.seed"}
MISSING_VALUES = {"NA", "NA_integer_", "NA_real_"}
TIME_SOURCES = ("Sys.time", "Sys.getpid", "proc.time", "date()", "runif(")
DRAWS = {
    "runif", "rnorm", "rbinom", "rpois", "rexp", "rgamma", "rbeta", "rt", "rchisq", "rmultinom",
    "rlnorm", "rweibull", "rcauchy", "rgeom", "rhyper", "rlogis", "rnbinom", "rf", "rsignrank",
    "rwilcox", "sample", "sample.int", "boot", "adonis", "adonis2", "kmeans", "rmvnorm",
    "mvrnorm", "approximate", "permute", "shuffle", "rdirichlet", "slice_sample", "sample_n",
    "sample_frac", "createDataPartition", "randomForest",
}
STOCHASTIC_KEYWORDS = {"permutations", "nperm", "nboot", "R"}
DRAW_KEYWORDS = STOCHASTIC_KEYWORDS - {"R"}    # R= alone is a draw for boot() only
CLI = {"commandArgs": "commandArgs", "OptionParser": "optparse", "ArgumentParser": "argparse",
       "docopt": "docopt", "arg_parser": "argparser"}
READS = {
    "read.csv", "read.csv2", "read.table", "read.delim", "read.delim2", "readRDS", "readLines",
    "load", "fread", "read_csv", "read_csv2", "read_tsv", "read_delim", "read_table",
    "read_excel", "read_xlsx", "read.xlsx", "read_rds", "scan", "vroom", "read_sf", "st_read",
    "h5read", "nc_open", "Read10X", "readxl::read_excel", "read_parquet", "read_feather",
    "fromJSON", "read_json", "read_yaml", "yaml.load_file", "read.dcf", "readMat", "raster",
    "rast", "import", "read_fst", "read.fasta", "readDNAStringSet",
}
WRITES = {
    "write.csv", "write.csv2", "write.table", "saveRDS", "save", "writeLines", "fwrite",
    "write_csv", "write_tsv", "write_delim", "write_rds", "ggsave", "pdf", "png", "jpeg", "svg",
    "tiff", "bmp", "sink", "write.xlsx", "write_xlsx", "write_parquet", "write_feather",
    "write_json", "write_yaml", "st_write", "h5write", "export", "save.image", "write_fst",
}
PATH_KEYWORDS = ("file", "filename", "path", "con", "description", "dsn", "x")
CLASS_DEFINERS = {"setClass", "setRefClass", "setGeneric", "setMethod", "R6Class"}
ASSIGNMENT_OPERATORS = {"<-", "=", "<<-", ":="}
# Calls that build a string from their arguments in order: a name bound to one whose first
# argument is a URL literal holds a URL (the AssignmentFact records that literal)
URL_BUILDERS = frozenset({"paste0", "paste", "sprintf", "file.path", "glue", "glue::glue", "str_c", "stringr::str_c",
                          "str_glue", "stringr::str_glue", "base::paste0", "base::paste"})
URL_START = re.compile(r"(?:https?|ftp)://", re.IGNORECASE)
# what call() looks at beyond the CallFact: the bare name (after pkg::) or the whole name
SPECIAL_BARE = (ATTACHING.keys() | NAMESPACE_LOADING.keys() | {"source", "try", "set.seed"} | DRAWS | CLI.keys()
                | READS | WRITES | CLASS_DEFINERS | INSTALLERS)
SPECIAL_NAMES = MULTI_PACKAGE_LOADERS | HANDLER_CALLS | SEEDING | JAGS_SEEDING
SEED_KEYWORDS = frozenset(OWN_SEED_ARGUMENTS) | {JAGS_SEED_ARGUMENT}
ASSIGNMENT_OPERATOR_BYTES = {symbol.encode() for symbol in ASSIGNMENT_OPERATORS}
# a roxygen line: roxygen2 reads #' and any run of # before the quote (##')
ROXYGEN = re.compile(rb"#+'")
RIGHTWARD_BYTES = {b"->", b"->>"}


def extract(data: bytes, path: str, *, credentials: bool = True) -> FileFacts:
    """The facts of an R script or an R Markdown / Quarto document; ``credentials=False``
    leaves out ``FileFacts.credentials`` (code a notebook cell holds: the notebook reads
    the credentials of all its cells together)."""
    text = data.decode("utf-8", "replace")
    if path.lower().endswith((".rmd", ".qmd")):
        notebook = parse_rmarkdown(text, path)
        facts = with_embedded(with_cells(_Walker(r_chunks(data)).run(), notebook), data)
        return with_credentials(facts, rmarkdown_credentials(notebook)) if credentials else facts
    facts = _Walker(data).run()
    blank = ts.blank_line_numbers(text)
    if blank:
        facts = replace(facts, blank_lines=blank)
    return with_script_credentials(facts, text, LANGUAGE) if credentials else facts


def with_embedded(facts: FileFacts, data: bytes) -> FileFacts:
    """``facts`` of an R Markdown / Quarto document with the facts of its evaluated
    Python and Julia chunks (``FileFacts.embedded``), from the Python frontend (each chunk
    a unit of its own) and the Julia frontend (the Julia chunks, other lines blanked),
    with the document's lines."""
    embedded = []
    lines = data.split(b"\n")
    python = [(start, b"\n".join(lines[start:end]).decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n"))
              for start, end in evaluated_chunks(lines, PYTHON_CHUNK_OPEN)]
    if python:
        from scoring.frontends import python as python_frontend

        embedded.append(python_frontend.extract_chunks(python))
    julia = evaluated_chunks(lines, JULIA_CHUNK_OPEN)
    if julia:
        from scoring.frontends import julia as julia_frontend

        # the blank lines of a blanked document mean nothing: left out
        embedded.append(replace(julia_frontend.extract(blanked(lines, julia), "chunks.jl", credentials=False),
                                blank_lines=()))
    return replace(facts, embedded=tuple(embedded)) if embedded else facts


FRONT_MATTER = re.compile(r"\A\s*---\s*\n.*?\n---\s*(?:\n|\Z)", re.DOTALL)


def with_cells(facts: FileFacts, notebook: Notebook) -> FileFacts:
    """``facts`` of an R Markdown / Quarto document with its cells (``notebook``, read by
    :func:`scoring.parsers.notebook.parse_rmarkdown`: chunks are code cells, the text
    between them markdown cells), as ``NotebookCellFact``: no execution counts or outputs;
    a markdown cell's ``chars`` leaves out the YAML front matter of the first cell; a
    chunk's ``language`` is its engine's (r, python, shell, julia, other), its
    ``commands`` and ``code_lines`` carry the document's lines."""
    cells = []
    for position, cell in enumerate(notebook.cells):
        chars = 0
        if cell.cell_type == "markdown":
            source = FRONT_MATTER.sub("", cell.source, count=1) if position == 0 else cell.source
            chars = len(source.strip())
        cells.append(NotebookCellFact(cell.index, cell.cell_type, None, (),
                                      tuple(m.text.strip() for m in cell.magics), chars,
                                      language=cell.language if cell.cell_type == "code" else "",
                                      commands=shell_commands(cell), line_offset=cell.line_offset,
                                      code_lines=other_language_lines(cell),
                                      magic_lines=tuple(cell.line_offset + m.line for m in cell.magics)))
    # the magics, commands and code lines of chunks are redacted as every fact is
    return replace(facts, cells=ts.redact_records("cells", tuple(cells)))


CHUNK_OPEN = re.compile(rb"^\s*```+\s*\{\s*r\b([^}]*)\}\s*$", re.IGNORECASE)
PYTHON_CHUNK_OPEN = re.compile(rb"^\s*```+\s*\{\s*python\b([^}]*)\}\s*$", re.IGNORECASE)
JULIA_CHUNK_OPEN = re.compile(rb"^\s*```+\s*\{\s*julia\b([^}]*)\}\s*$", re.IGNORECASE)
CHUNK_CLOSE = re.compile(rb"^\s*```+\s*$")
EVAL_FALSE = re.compile(rb"\beval\s*=\s*(?:FALSE|F)\b|^\s*#\|\s*eval:\s*false\b", re.IGNORECASE | re.MULTILINE)
# in a chunk's body only its ``#|`` option lines say eval: ``knitr::opts_chunk$set(eval =
# FALSE)`` is code the chunk runs
EVAL_FALSE_OPTION_LINE = re.compile(rb"^\s*#\|\s*eval\s*(?::\s*false|=\s*(?:FALSE|F))\b", re.IGNORECASE | re.MULTILINE)


def r_chunks(data: bytes) -> bytes:
    """The R code of an R Markdown/Quarto document, other lines blanked.

    Blanking keeps every line where it was, so facts carry the document's own lines.
    Chunks with ``eval = FALSE`` are not code (METRICS §0.3, R specifics).
    """
    lines = data.split(b"\n")
    return blanked(lines, evaluated_chunks(lines, CHUNK_OPEN))


def evaluated_chunks(lines: list[bytes], opening_re: re.Pattern[bytes]) -> list[tuple[int, int]]:
    """``(start, end)`` of the body (``lines[start:end]``) of every chunk whose opening
    line ``opening_re`` matches and that is evaluated (no ``eval = FALSE`` option)."""
    found = []
    index = 0
    while index < len(lines):
        opening = opening_re.match(lines[index])
        if not opening:
            index += 1
            continue
        end = index + 1
        while end < len(lines) and not CHUNK_CLOSE.match(lines[end]):
            end += 1
        if not EVAL_FALSE.search(opening.group(1)) and not EVAL_FALSE_OPTION_LINE.search(b"\n".join(lines[index + 1:end])):
            found.append((index + 1, end))
        index = end + 1
    return found


def blanked(lines: list[bytes], chunks: list[tuple[int, int]]) -> bytes:
    """The document with every line outside ``chunks`` blanked."""
    out: list[bytes] = [b""] * len(lines)
    for start, end in chunks:
        out[start:end] = lines[start:end]
    return b"\n".join(out)


RAW_STRING = re.compile(r'^[rR]["\'](-*)[(\[{](.*)[)\]}]\1["\']$', re.DOTALL)
DECIMAL_OR_HEX = re.compile(r"0[xX][0-9a-fA-F]+|\d+")
PASSIVE_KINDS = frozenset({"null", "na", "true", "false", "float", "integer", "string"})

# The nodes the walk reads facts from; everything else (identifiers, arguments,
# punctuation: 85 % of an R tree) stays in C. ``next`` is selected for the handler
# probes (a ``continue``). ``commandArgs`` read as a value rather than called is a CLI
# access of its own; testing every identifier's text costs a fifth of the parse, so
# that pattern is only added for a file whose bytes contain the name.
#
# The other captures mark context, so that no node's parent has to be looked up
# (tree-sitter keeps no parent pointers: Node.parent descends from the root and scans
# siblings, which is quadratic in a long argument list): @bindable, a string whose
# parent binds it (an argument with a name, an assignment); @top_level, a binary
# operator that is a statement of the file.
SELECTED = """
[(comment) (string) (call) (namespace_operator) (binary_operator) (next)] @node
(argument name: _ (string) @bindable)
(argument name: (string) @bindable)
(binary_operator (string) @bindable)
(program (binary_operator) @top_level)
"""
SELECTED_WITH_COMMAND_ARGS = SELECTED + '\n((identifier) @node (#eq? @node "commandArgs"))'


def string_value(node) -> str:
    raw = ts.text(node)
    # raw strings r"(...)" keep their delimiters in the node text
    match = RAW_STRING.match(raw) if raw[:1] in ("r", "R") else None
    if match:
        return match.group(2)
    return raw[1:-1] if len(raw) >= 2 else raw


LITERAL_KINDS = frozenset({"string", "float", "integer", "true", "false", "null", "unary_operator"})


def literal(node):
    kind = node.type
    if kind not in LITERAL_KINDS:
        return Expr(ts.text(node)[:80])   # most argument values: names, calls, formulas
    if kind == "string":
        return string_value(node)
    if kind in ("float", "integer"):
        text = ts.text(node)
        token = text.rstrip("Li")
        try:
            number = int(token, 0) if DECIMAL_OR_HEX.fullmatch(token) else float(token)
        except ValueError:
            return Expr(text)
        if kind == "integer" or (isinstance(number, float) and number.is_integer() and "." not in token
                                 and "e" not in token.lower()):
            return literal_or_expr(int(number), text)
        return literal_or_expr(number, text)
    if kind == "true":
        return True
    if kind == "false":
        return False
    if kind == "null":
        return None
    if kind == "unary_operator" and node.child_count == 2 and node.children[0].text == b"-":
        inner = literal(node.children[1])
        if isinstance(inner, int | float) and not isinstance(inner, bool):
            return -inner
    return Expr(ts.text(node)[:80])


def function_parameters(node) -> tuple[str, ...]:
    """A function's parameter names (``...`` too): a parameter hides a binding of the
    same name outside the function (A4's scope of a URL name)."""
    parameters = node.child_by_field_name("parameters")
    if parameters is None:
        return ()
    names = []
    for parameter in parameters.named_children:
        if parameter.type == "parameter":
            name = parameter.child_by_field_name("name") or (parameter.named_children or [None])[0]
            if name is not None:
                names.append(ts.text(name))
    return tuple(names)


def callee(node) -> str:
    function = node.child_by_field_name("function")
    return "" if function is None else ts.squeezed_text(function)


def _within(node, outer) -> bool:
    return outer.start_byte <= node.start_byte and node.end_byte <= outer.end_byte


def probed_packages(condition) -> set[str]:
    """The packages an if condition tests for with a require()/requireNamespace() call
    that is not negated (``!require(x)``)."""
    found: set[str] = set()
    stack = [(condition, None)]
    while stack:
        current, parent = stack.pop()
        if current.type == "call" and callee(current) in PROBING_CALLS and not (
                parent is not None and parent.type == "unary_operator" and parent.children[0].text == b"!"):
            positional, named = arguments_of(current)
            target = positional[0] if positional else dict(named).get("package")
            if target is not None and target.type in ("string", "identifier"):
                found.add(string_value(target) if target.type == "string" else ts.text(target))
        stack.extend((child, current) for child in current.named_children)
    return found


def arguments_of(call):
    """Positional and named argument value nodes of a call, in order."""
    positional, named = [], []
    arguments = call.child_by_field_name("arguments")
    if arguments is None:
        return positional, named
    for argument in arguments.named_children:
        if argument.type != "argument":
            continue
        value = argument.child_by_field_name("value")
        name = argument.child_by_field_name("name")
        if name is not None:
            named.append((ts.text(name).strip("`'\""), value))
        elif value is not None:
            positional.append(value)
    return positional, named


def package_names(value) -> list[str]:
    """The packages one argument names: ``pkg``, ``"pkg"`` or ``c("a", "b")``."""
    kind = value.type
    if kind == "string":
        return [string_value(value)]
    if kind == "identifier":
        return [ts.text(value)]
    if kind == "call" and callee(value) == "c":
        return [string_value(v) for v in arguments_of(value)[0] if v.type == "string"]
    return []


def seed_source(value) -> str:
    if value is None:
        return "none"
    if value.type == "null":
        return "entropy"
    expression = ts.text(value)
    if expression in MISSING_VALUES:
        return "none"   # seed = NA: the sampler picks its own seed
    if any(marker in expression for marker in TIME_SOURCES):
        return "time"
    return "literal" if not isinstance(literal(value), Expr) else "argument"


def formals(function) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A function definition's formal parameters in order (``...`` as written) and those a
    call may leave out to no value (S1, §0.2.25): a ``NULL`` or ``NA`` default, or no
    default and tested with ``missing(p)`` in the body (``if (!missing(seed))
    set.seed(seed)``); a parameter without a default that the body uses untested must be
    passed."""
    parameters = function.child_by_field_name("parameters")
    if parameters is None:
        return (), ()
    names, undefaulted, optional = [], [], []
    for parameter in parameters.named_children:
        if parameter.type != "parameter":
            continue
        name = parameter.child_by_field_name("name")
        if name is None:
            continue
        names.append(ts.text(name))
        default = parameter.child_by_field_name("default")
        if default is None:
            undefaulted.append(names[-1])
        elif default.type == "null" or ts.text(default) in MISSING_VALUES:
            optional.append(names[-1])
    if undefaulted:
        tested = missing_tested(function.child_by_field_name("body"))
        optional += [name for name in undefaulted if name in tested]
    return tuple(names), tuple(name for name in names if name in optional)


def missing_tested(body) -> set[str]:
    """The names ``missing(name)`` tests in a function body."""
    found: set[str] = set()
    stack = [body] if body is not None else []
    while stack:
        node = stack.pop()
        if node.type == "call" and callee(node) == "missing":
            positional, _named = arguments_of(node)
            if positional and positional[0].type == "identifier":
                found.add(ts.text(positional[0]))
        stack.extend(node.named_children)
    return found


# calls whose value is dropped along with the call wrapped in them (C4's discarded try)
DISCARDING_WRAPPERS = frozenset({"invisible", "suppressWarnings", "suppressMessages",
                                 "suppressPackageStartupMessages"})
# fields of compound statements that are conditions, not bodies
CONDITION_FIELDS = ("condition", "sequence", "variable")


def _is_true(node) -> bool:
    return node is not None and (node.type == "true" or (node.type == "identifier" and ts.text(node) == "T"))


def _silent_try(call) -> bool:
    """``try(expr, silent = TRUE)`` or ``try(expr, TRUE)`` (``T`` too)."""
    arguments = call.child_by_field_name("arguments")
    if arguments is None:
        return False
    args = [a for a in arguments.named_children if a.type == "argument"]
    for argument in args:
        name = argument.child_by_field_name("name")
        if name is not None and ts.text(name) == "silent" and _is_true(argument.child_by_field_name("value")):
            return True
    return len(args) >= 2 and args[1].child_by_field_name("name") is None \
        and _is_true(args[1].child_by_field_name("value"))


def _discarded(node) -> bool:
    """True when the call ``node`` stands as a statement of its own: in the program or a
    ``{}`` block, as the body of ``if``/``else``/``for``/``while``/``repeat``, or as the
    first argument of a discarding wrapper (``invisible``, ``suppressWarnings``…) that is."""
    while True:
        parent = node.parent
        if parent is None:
            return True
        kind = parent.type
        if kind in ("program", "braced_expression"):
            return True
        if kind in ("if_statement", "for_statement", "while_statement", "repeat_statement"):
            return not any((c := parent.child_by_field_name(f)) is not None and c.id == node.id
                           for f in CONDITION_FIELDS)
        if kind != "argument" or parent.child_by_field_name("name") is not None:
            return False
        arguments = parent.parent
        call = arguments.parent if arguments is not None else None
        if call is None or call.type != "call" or callee(call) not in DISCARDING_WRAPPERS:
            return False
        first = next((a for a in arguments.named_children if a.type == "argument"), None)
        if first is None or first.id != parent.id:
            return False
        node = call


def _nothing(node) -> bool:
    """``NULL``, ``invisible(NULL)`` or ``invisible()``."""
    if node.type == "null":
        return True
    if node.type != "call" or callee(node) != "invisible":
        return False
    arguments = node.child_by_field_name("arguments")
    args = [a for a in arguments.named_children if a.type == "argument"] if arguments is not None else []
    if not args:
        return arguments is not None and not any(c.type == "comma" for c in arguments.children)
    value = args[0].child_by_field_name("value")
    return len(args) == 1 and args[0].child_by_field_name("name") is None and value is not None \
        and value.type == "null"


def _returns_nothing(value) -> bool:
    """A handler ``function(e) NULL`` / ``\\(e) invisible(NULL)`` / ``function(e) {}`` /
    ``function(e) { NULL }``."""
    if value.type != "function_definition":
        return False
    body = value.child_by_field_name("body")
    if body is None:
        return False
    if body.type == "braced_expression":
        inner = [c for c in body.named_children if "comment" not in c.type]
        return not inner or (len(inner) == 1 and _nothing(inner[0]))
    return _nothing(body)


def is_passive(statement) -> bool:
    """A handler statement that does nothing: a bare value, or muffling the condition."""
    kind = statement.type
    return kind in PASSIVE_KINDS or (kind == "call" and callee(statement) in PASSIVE_CALLS)


class _Walker:
    """One parse, one query (``SELECTED``) over the tree; each selected node, in
    document order, goes to the method for its kind. A node's ancestors are looked up
    (``_common.path_to``) only for the few facts that depend on them: an import's guard,
    a top-level definition."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.facts = ts.Collector()
        self.root = None
        self.bindable: set[int] = set()               # ids of strings an argument name or assignment binds
        self.top_level_statements: set[int] = set()   # ids of binary operators that are statements
        self.lines: list[str] | None = None            # the text's lines, split for handler excerpts
        # where the last roxygen line ends, until a definition takes the block (or code
        # stands between them)
        self.roxygen_end: int | None = None

    def run(self) -> FileFacts:
        facts = self.facts
        tree = facts.parse(self.data, LANGUAGE)
        self.root = tree.root_node
        dispatch = {
            "comment": self.comment, "string": self.string, "call": self.call,
            "namespace_operator": self.namespace, "binary_operator": self.assignment,
            "identifier": self.cli_identifier,
        }
        selection = SELECTED_WITH_COMMAND_ARGS if b"commandArgs" in self.data else SELECTED
        nodes, marks = ts.selected(tree, ts.query(LANGUAGE, selection))
        self.bindable = marks.get("bindable", set())
        self.top_level_statements = marks.get("top_level", set())
        for node in nodes:
            kind = node.type
            if kind == "next":
                if facts.open_handlers:
                    facts.handler_visit(node, None, feature="continue")
                continue
            dispatch[kind](node)
        return facts.finish(LANGUAGE, __name__.rsplit(".", 1)[-1], VERSION, self.data)

    def ancestors(self, node) -> list:
        return ts.path_to(self.root, node)

    def comment(self, node) -> None:
        roxygen = ROXYGEN.match(node.text) is not None
        if roxygen:
            self.roxygen_end = node.end_byte
        self.facts.comment(node, self.data, doc=roxygen)

    def string(self, node) -> None:
        binding = self.binding(node, node.parent) if node.id in self.bindable else ""
        self.facts.string(string_value(node), node, binding=binding)

    def namespace(self, node) -> None:
        package = node.child_by_field_name("lhs")
        if package is not None:
            module = ts.text(package)
            self.facts.imports.append(ImportFact(module, ts.first_line(node), self.import_guard(node, module),
                                                 "pkg::"))

    def cli_identifier(self, node) -> None:
        # selected only when its text is commandArgs
        parent = node.parent
        if parent is None or parent.type != "call":
            self.facts.cli_args.append(CliArgFact(ts.first_line(node), "commandArgs"))

    # ---------------------------------------------------------------- pieces
    @staticmethod
    def binding(node, parent) -> str:
        if parent is None:
            return ""
        if parent.type == "argument":
            name = parent.child_by_field_name("name")
            return "" if name is None else ts.text(name).strip("`'\"")
        if parent.type == "binary_operator":
            operator = parent.child_by_field_name("operator")
            lhs, rhs = parent.child_by_field_name("lhs"), parent.child_by_field_name("rhs")
            symbol = "" if operator is None else ts.text(operator)
            if symbol in ASSIGNMENT_OPERATORS and rhs is not None and rhs.id == node.id and lhs is not None:
                return ts.text(lhs)
            if symbol in ("->", "->>") and lhs is not None and lhs.id == node.id and rhs is not None:
                return ts.text(rhs)
        return ""

    def import_guard(self, node, module: str) -> str:
        """``guard``, or "probe" when ``node`` tests for ``module`` in an if condition
        (``if (requireNamespace("x", quietly = TRUE))``, ``if (require(x) && …)``) or uses
        it in the then-branch of such a test: the code runs without the package. A negated
        test (``if (!require(x)) stop(…)``/``install.packages(…)``) goes on to need it."""
        ancestors = self.ancestors(node)
        for ancestor in ancestors:
            if ancestor.type != "if_statement":
                continue
            condition = ancestor.child_by_field_name("condition")
            consequence = ancestor.child_by_field_name("consequence")
            if condition is not None and _within(node, condition):
                if node.type == "call" and module in probed_packages(condition):
                    return "probe"
            elif consequence is not None and _within(node, consequence) and condition is not None \
                    and module in probed_packages(condition):
                return "probe"
        return self.guard(ancestors)

    @staticmethod
    def guard(ancestors) -> str:
        guard = "none"
        for ancestor in ancestors:
            if ancestor.type == "call" and callee(ancestor) in GUARDING_CALLS:
                return "try"
            if ancestor.type == "if_statement":
                guard = "conditional"
        return guard

    def assignment(self, node) -> None:
        operator = node.child_by_field_name("operator")
        symbol = b"" if operator is None else operator.text
        if symbol in RIGHTWARD_BYTES:
            rhs, lhs = node.child_by_field_name("lhs"), node.child_by_field_name("rhs")
        elif symbol in ASSIGNMENT_OPERATOR_BYTES:
            lhs, rhs = node.child_by_field_name("lhs"), node.child_by_field_name("rhs")
        else:
            return   # + - * $ and the rest: most binary operators, decided on bytes
        if lhs is None or rhs is None:
            return
        line = ts.first_line(node)
        rhs_kind = rhs.type
        if rhs_kind == "string":
            self.facts.assignments.append(AssignmentFact(ts.text(lhs), line, string_value(rhs)))
        elif rhs_kind == "call" and callee(rhs) in URL_BUILDERS:
            # a URL built from a literal base (``uri <- paste0("https://host/api/", util)``):
            # the name holds a URL that starts with it, which a download call given the
            # name fetches (A4); a string that starts with anything else is no URL
            positional, _named = arguments_of(rhs)
            first = positional[0] if positional else None
            if first is not None and first.type == "string" and URL_START.match(string_value(first)):
                self.facts.assignments.append(AssignmentFact(ts.text(lhs), line, string_value(first)))
        elif rhs_kind == "function_definition" and lhs.type in ("identifier", "string") \
                and node.id in self.top_level_statements:
            name = ts.text(lhs).strip("`'\"")
            parameters, optional = formals(rhs)
            self.define(name, "function", line, node.start_byte, ts.last_line(node),
                        parameters=parameters, none_defaults=optional, inputs=function_parameters(rhs))

    def define(self, name: str, kind: str, line: int, start: int, end_line: int,
               parameters: tuple[str, ...] = (), none_defaults: tuple[str, ...] = (),
               inputs: tuple[str, ...] = ()) -> None:
        self.facts.definitions.append(DefinitionFact(name, kind, line, not name.startswith("."),
                                                     self.roxygen_above(start), end_line=end_line,
                                                     parameters=parameters, none_defaults=none_defaults,
                                                     inputs=inputs))

    def roxygen_above(self, start: int) -> bool:
        """Whether the last roxygen block documents the object starting at byte ``start``:
        roxygen2 takes a block for the next object whatever blank lines and plain comments
        (``# nolint start``) stand between. The block is spent by the first object after it."""
        end, self.roxygen_end = self.roxygen_end, None
        if end is None:
            return False
        between = self.data[end:start].split(b"\n")[1:]   # the lines after the block's last
        return all(not line.strip() or line.lstrip().startswith(b"#") for line in between)

    def call(self, node) -> None:
        facts = self.facts
        name = callee(node)
        if facts.open_handlers:
            feature = "reraise" if name in RERAISING else "log" if name in LOGGING else \
                "return" if name == "return" else None
            if feature:
                facts.handler_visit(node, None, feature=feature)
        line = ts.first_line(node)
        positional, named = arguments_of(node)
        facts.calls.append(CallFact(
            name, name, line,
            tuple([literal(value) for value in positional]),
            tuple([(key, None if value is None else literal(value)) for key, value in named]),
        ))
        bare = name.split("::")[-1]
        if bare not in SPECIAL_BARE and name not in SPECIAL_NAMES \
                and not (named and any(key in DRAW_KEYWORDS or key in SEED_KEYWORDS for key, _ in named)):
            return   # most calls: nothing more than the CallFact
        keywords = dict(named)
        first = positional[0] if positional else None

        if bare in ATTACHING or bare in NAMESPACE_LOADING:
            target = first if first is not None else keywords.get("package")
            # library() and require() take a bare name as the package; requireNamespace() and
            # loadNamespace() evaluate their argument, so a name there is a variable
            computed = bare in NAMESPACE_LOADING or (
                literal(keywords["character.only"]) is True if "character.only" in keywords else False)
            if target is not None and (target.type == "string" or (target.type == "identifier" and not computed)):
                module = string_value(target) if target.type == "string" else ts.text(target)
                kind = ATTACHING.get(bare) or NAMESPACE_LOADING[bare]
                facts.imports.append(ImportFact(module, line, self.import_guard(node, module), kind))
        elif name in MULTI_PACKAGE_LOADERS:
            for value in positional:
                if value.type in ("identifier", "string"):
                    module = string_value(value) if value.type == "string" else ts.text(value)
                    facts.imports.append(ImportFact(module, line, self.guard(self.ancestors(node)), "p_load"))
        elif bare == "source" and first is not None and first.type == "string":
            facts.imports.append(ImportFact(string_value(first), line, self.guard(self.ancestors(node)), "source"))
        if bare in INSTALLERS and first is not None:
            owner, _, own_name = name.rpartition("::")
            if own_name != "install" or owner.rstrip(":") in INSTALL_OWNERS:
                facts.installs.extend(InstallFact(package, line, own_name.lstrip(":")) for package in package_names(first))
        elif name in MULTI_PACKAGE_LOADERS:
            facts.installs.extend(InstallFact(package, line, "p_load") for value in positional
                                  for package in package_names(value))

        if name in HANDLER_CALLS:
            self.handlers(named, line)
            if bare == "tryCatch":
                self.swallowing_try_catch(node, named, line)
        elif bare == "try":
            silent = keywords.get("silent")
            quiet = silent is not None and literal(silent) is True
            body = positional[0] if positional else node
            probe = ts.HandlerProbe(line, "error", body.start_byte, body.end_byte,
                                    fixed_action="pass" if quiet else "log", end_line=ts.last_line(node))
            if name == "try" and _silent_try(node) and _discarded(node):
                self.swallow(probe, "silent", line, ts.last_line(node))
            facts.open_handler(probe)

        if name in SEEDING or bare == "set.seed":
            seed = first if first is not None else keywords.get("seed")
            source = seed_source(seed)
            # the seed's expression, to tell a parameter of the enclosing function (S1, §0.2.25)
            facts.randoms.append(RandomFact(line, name, "R", "seed", source in ("literal", "argument"), source,
                                            seed_text=ts.text(seed)[:80] if source == "argument" else ""))
        elif bare in DRAWS or any(key in DRAW_KEYWORDS for key in keywords) or (
                bare == "boot" and "R" in keywords):
            facts.randoms.append(RandomFact(line, name, "R", "draw"))
        elif name in JAGS_SEEDING:
            seed = first if first is not None else keywords.get("seed")
            source = seed_source(seed)
            facts.randoms.append(RandomFact(line, name, "JAGS", "seed", source in ("literal", "argument"), source))
        own_seed = next((key for key in OWN_SEED_ARGUMENTS if key in keywords), None)
        if own_seed is not None and not (name in SEEDING or bare == "set.seed" or name in JAGS_SEEDING):
            # a sampler that takes its own seed (brms::brm, rstan::sampling, mikropml::run_ml,
            # BEST::BESTmcmc's rnd.seed, nimble's setSeed): the seed of that call's generator,
            # at the argument's line; setSeed = FALSE sets none
            value = keywords[own_seed]
            source = "none" if value is not None and value.type == "false" else seed_source(value)
            facts.randoms.append(RandomFact(line if value is None else ts.first_line(value), name, name, "seed",
                                            source in ("literal", "argument"), source))
        if JAGS_SEED_ARGUMENT in keywords:
            # list(.RNG.name = "base::Mersenne-Twister", .RNG.seed = 1): a JAGS chain's seed
            value = keywords[JAGS_SEED_ARGUMENT]
            source = seed_source(value)
            facts.randoms.append(RandomFact(line if value is None else ts.first_line(value), name, "JAGS", "seed",
                                            source in ("literal", "argument"), source))

        if bare in CLI:
            facts.cli_args.append(CliArgFact(line, CLI[bare]))
        if bare in READS or bare in WRITES:
            facts.file_io.append(FileIOFact(line, "read" if bare in READS else "write",
                                            self.path_argument(positional, keywords), name))
        if bare in CLASS_DEFINERS and first is not None and first.type == "string" and self.top_level(node):
            kind = {"setGeneric": "generic", "setMethod": "method"}.get(bare, "class")
            self.define(string_value(first), kind, line, node.start_byte, ts.last_line(node))

    # --- handlers that swallow the error (C4), decided here from the call's tree
    def swallow(self, probe, how: str, line: int, end: int, start: int = 0) -> None:
        """Mark ``probe`` as swallowing (``how``), with the lines its evidence shows."""
        if self.lines is None:
            self.lines = self.data.decode("utf-8", "replace").splitlines()
        probe.swallows, probe.end_line, probe.start_line = how, end, start
        first = start or line
        probe.excerpt = " ".join(s.strip() for s in self.lines[first - 1: min(end, first + 2)])

    def swallowing_try_catch(self, node, named, line: int) -> None:
        """``tryCatch(…, error = function(e) NULL)``: the error probe just opened swallows
        when its handler returns nothing (``NULL``, ``invisible(NULL)``, ``invisible()``,
        an empty ``{}`` or ``{ NULL }``)."""
        for condition, value in named:
            if condition != "error" or value is None or not _returns_nothing(value):
                continue
            for probe in reversed(self.facts.handlers):
                if probe.caught == "error" and probe.body_start >= value.start_byte \
                        and probe.body_end <= value.end_byte:
                    probe_line = probe.line
                    self.swallow(probe, "null_handler", probe_line, ts.last_line(node), line if line != probe_line else 0)
                    break
            return

    def top_level(self, node) -> bool:
        ancestors = self.ancestors(node)
        return len(ancestors) == 1 or (len(ancestors) == 2 and ancestors[-1].type == "binary_operator")

    @staticmethod
    def path_argument(positional, keywords) -> str:
        for key in PATH_KEYWORDS:
            value = keywords.get(key)
            if value is not None and value.type == "string":
                return string_value(value)
        for value in positional:
            if value.type == "string":
                return string_value(value)
        return ""

    def handlers(self, named, line: int) -> None:
        for condition, value in named:
            if condition in NOT_HANDLERS or value is None:
                continue
            if value.type != "function_definition":
                self.facts.open_handler(ts.HandlerProbe(line, condition, value.start_byte, value.end_byte,
                                                        fixed_action="other", end_line=ts.last_line(value)))
                continue
            body = value.child_by_field_name("body")
            if body is None:
                continue
            probe = ts.HandlerProbe(ts.first_line(value), condition, body.start_byte, body.end_byte,
                                    end_line=ts.last_line(value))
            # a one-expression body is the single statement; the parameters lie
            # before the body's span and so are not counted
            statements = body if body.type == "braced_expression" else value
            probe.body_id = statements.id
            ts.count_statements(probe, statements, is_passive)
            self.facts.open_handler(probe)
