"""R frontend: ``.R``/``.r`` scripts and the R chunks of ``.Rmd``/``.qmd`` documents.

Grammar: tree-sitter-r as bundled by tree-sitter-language-pack (no tree-sitter-r wheel
exists on PyPI).
"""

from __future__ import annotations

import re

from scoring.facts import (
    AssignmentFact,
    CallFact,
    CliArgFact,
    DefinitionFact,
    Expr,
    FileFacts,
    FileIOFact,
    ImportFact,
    RandomFact,
    literal_or_expr,
)
from scoring.frontends import _common as ts

LANGUAGE = "r"
VERSION = "1.0.1"   # 1.0.1: facts redacted (_common.redact_facts)

ATTACHING = {"library": "library", "require": "require"}
NAMESPACE_LOADING = {"requireNamespace": "requireNamespace", "loadNamespace": "requireNamespace"}
MULTI_PACKAGE_LOADERS = {"p_load", "pacman::p_load"}
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
TIME_SOURCES = ("Sys.time", "Sys.getpid", "proc.time", "date()", "runif(")
DRAWS = {
    "runif", "rnorm", "rbinom", "rpois", "rexp", "rgamma", "rbeta", "rt", "rchisq", "rmultinom",
    "rlnorm", "rweibull", "rcauchy", "rgeom", "rhyper", "rlogis", "rnbinom", "rf", "rsignrank",
    "rwilcox", "sample", "sample.int", "boot", "adonis", "adonis2", "kmeans", "rmvnorm",
    "mvrnorm", "approximate", "permute", "shuffle", "rdirichlet", "slice_sample", "sample_n",
    "sample_frac", "createDataPartition", "randomForest",
}
STOCHASTIC_KEYWORDS = {"permutations", "nperm", "nboot", "R"}
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


def extract(data: bytes, path: str) -> FileFacts:
    source = r_chunks(data) if path.lower().endswith((".rmd", ".qmd")) else data
    return _Walker(source).run()


CHUNK_OPEN = re.compile(rb"^\s*```+\s*\{\s*r\b([^}]*)\}\s*$", re.IGNORECASE)
CHUNK_CLOSE = re.compile(rb"^\s*```+\s*$")
EVAL_FALSE = re.compile(rb"\beval\s*=\s*(?:FALSE|F)\b|^\s*#\|\s*eval:\s*false\b", re.IGNORECASE | re.MULTILINE)


def r_chunks(data: bytes) -> bytes:
    """The R code of an R Markdown/Quarto document, other lines blanked.

    Blanking keeps every line where it was, so facts carry the document's own lines.
    Chunks with ``eval = FALSE`` are not code (METRICS §0.3, R specifics).
    """
    lines = data.split(b"\n")
    out: list[bytes] = [b""] * len(lines)
    index = 0
    while index < len(lines):
        opening = CHUNK_OPEN.match(lines[index])
        if not opening:
            index += 1
            continue
        end = index + 1
        while end < len(lines) and not CHUNK_CLOSE.match(lines[end]):
            end += 1
        body = lines[index + 1:end]
        if not EVAL_FALSE.search(opening.group(1)) and not EVAL_FALSE.search(b"\n".join(body)):
            out[index + 1:end] = body
        index = end + 1
    return b"\n".join(out)


def string_value(node) -> str:
    raw = ts.text(node)
    # raw strings r"(...)" keep their delimiters in the node text
    match = re.match(r'^[rR]["\'](-*)[(\[{](.*)[)\]}]\1["\']$', raw, re.DOTALL)
    if match:
        return match.group(2)
    return raw[1:-1] if len(raw) >= 2 else raw


def literal(node):
    kind = node.type
    if kind == "string":
        return string_value(node)
    if kind in ("float", "integer"):
        token = ts.text(node).rstrip("Li")
        try:
            number = int(token, 0) if re.fullmatch(r"0[xX][0-9a-fA-F]+|\d+", token) else float(token)
        except ValueError:
            return Expr(ts.text(node))
        if kind == "integer" or (isinstance(number, float) and number.is_integer() and "." not in token
                                 and "e" not in token.lower()):
            return literal_or_expr(int(number), ts.text(node))
        return literal_or_expr(number, ts.text(node))
    if kind == "true":
        return True
    if kind == "false":
        return False
    if kind == "null":
        return None
    if kind == "unary_operator" and node.child_count == 2 and ts.text(node.children[0]) == "-":
        inner = literal(node.children[1])
        if isinstance(inner, int | float) and not isinstance(inner, bool):
            return -inner
    return Expr(ts.text(node)[:80])


def callee(node) -> str:
    function = node.child_by_field_name("function")
    return "" if function is None else re.sub(r"\s+", "", ts.text(function))


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


def seed_source(value) -> str:
    if value is None:
        return "none"
    if value.type == "null":
        return "entropy"
    expression = ts.text(value)
    if any(marker in expression for marker in TIME_SOURCES):
        return "time"
    return "literal" if not isinstance(literal(value), Expr) else "argument"


class _Walker:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.facts = ts.Collector()

    def run(self) -> FileFacts:
        tree = ts.parse(self.data, LANGUAGE)
        for node, ancestors in ts.preorder(tree):
            self.visit(node, ancestors)
        return self.facts.finish(LANGUAGE, __name__.rsplit(".", 1)[-1], VERSION, self.data)

    def visit(self, node, ancestors) -> None:
        facts = self.facts
        parent = ancestors[-1] if ancestors else None
        kind = node.type
        if ts.is_error(node):
            facts.note_error(node)
        passive = kind in ("null", "na", "true", "false", "float", "integer", "string")
        feature = "continue" if kind == "next" else None
        if kind == "call":
            name = callee(node)
            if name in RERAISING:
                feature = "reraise"
            elif name in LOGGING:
                feature = "log"
            elif name == "return":
                feature = "return"
            passive = passive or name in PASSIVE_CALLS
        facts.handler_visit(node, parent, passive=passive, feature=feature)

        if kind == "comment":
            facts.comment(node, self.data, doc=ts.text(node).startswith("#'"))
        elif kind == "string":
            facts.string(string_value(node), node, binding=self.binding(node, parent))
        elif kind == "call":
            self.call(node, ancestors)
        elif kind == "namespace_operator":
            package = node.child_by_field_name("lhs")
            if package is not None:
                facts.imports.append(ImportFact(ts.text(package), ts.first_line(node),
                                                self.guard(ancestors), "pkg::"))
        elif kind == "binary_operator":
            self.assignment(node, parent)
        elif kind == "identifier" and ts.text(node) == "commandArgs" and (
                parent is None or parent.type != "call"):
            facts.cli_args.append(CliArgFact(ts.first_line(node), "commandArgs"))

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

    @staticmethod
    def guard(ancestors) -> str:
        guard = "none"
        for ancestor in ancestors:
            if ancestor.type == "call" and callee(ancestor) in GUARDING_CALLS:
                return "try"
            if ancestor.type == "if_statement":
                guard = "conditional"
        return guard

    def assignment(self, node, parent) -> None:
        operator = node.child_by_field_name("operator")
        lhs, rhs = node.child_by_field_name("lhs"), node.child_by_field_name("rhs")
        symbol = "" if operator is None else ts.text(operator)
        if symbol in ("->", "->>"):
            lhs, rhs = rhs, lhs
        elif symbol not in ASSIGNMENT_OPERATORS:
            return
        if lhs is None or rhs is None:
            return
        line = ts.first_line(node)
        if rhs.type == "string":
            self.facts.assignments.append(AssignmentFact(ts.text(lhs), line, string_value(rhs)))
        top_level = parent is not None and parent.type == "program"
        if top_level and rhs.type == "function_definition" and lhs.type in ("identifier", "string"):
            name = ts.text(lhs).strip("`'\"")
            self.define(name, "function", line)

    def define(self, name: str, kind: str, line: int) -> None:
        documented = self.facts.doc_block_ending_at(line) is not None
        self.facts.definitions.append(DefinitionFact(name, kind, line, not name.startswith("."), documented))

    def call(self, node, ancestors) -> None:
        facts = self.facts
        name = callee(node)
        line = ts.first_line(node)
        positional, named = arguments_of(node)
        facts.calls.append(CallFact(
            name, name, line,
            tuple(literal(value) for value in positional),
            tuple((key, None if value is None else literal(value)) for key, value in named),
        ))
        bare = name.split("::")[-1]
        keywords = dict(named)
        first = positional[0] if positional else None

        if bare in ATTACHING or bare in NAMESPACE_LOADING:
            target = first if first is not None else keywords.get("package")
            computed = literal(keywords["character.only"]) is True if "character.only" in keywords else False
            if target is not None and (target.type == "string" or (target.type == "identifier" and not computed)):
                module = string_value(target) if target.type == "string" else ts.text(target)
                kind = ATTACHING.get(bare) or NAMESPACE_LOADING[bare]
                facts.imports.append(ImportFact(module, line, self.guard(ancestors), kind))
        elif name in MULTI_PACKAGE_LOADERS:
            for value in positional:
                if value.type in ("identifier", "string"):
                    module = string_value(value) if value.type == "string" else ts.text(value)
                    facts.imports.append(ImportFact(module, line, self.guard(ancestors), "p_load"))
        elif bare == "source" and first is not None and first.type == "string":
            facts.imports.append(ImportFact(string_value(first), line, self.guard(ancestors), "source"))

        if name in HANDLER_CALLS:
            self.handlers(named, line)
        elif bare == "try":
            silent = keywords.get("silent")
            quiet = silent is not None and literal(silent) is True
            body = positional[0] if positional else node
            facts.open_handler(ts.HandlerProbe(line, "error", body.start_byte, body.end_byte,
                                               fixed_action="pass" if quiet else "log"))

        if name in SEEDING or bare == "set.seed":
            seed = first if first is not None else keywords.get("seed")
            source = seed_source(seed)
            facts.randoms.append(RandomFact(line, name, "R", "seed", source in ("literal", "argument"), source))
        elif bare in DRAWS or any(key in STOCHASTIC_KEYWORDS - {"R"} for key in keywords) or (
                bare == "boot" and "R" in keywords):
            facts.randoms.append(RandomFact(line, name, "R", "draw"))

        if bare in CLI:
            facts.cli_args.append(CliArgFact(line, CLI[bare]))
        if bare in READS or bare in WRITES:
            facts.file_io.append(FileIOFact(line, "read" if bare in READS else "write",
                                            self.path_argument(positional, keywords), name))
        top_level = len(ancestors) == 1 or (len(ancestors) == 2 and ancestors[-1].type == "binary_operator")
        if bare in CLASS_DEFINERS and top_level and first is not None and first.type == "string":
            kind = {"setGeneric": "generic", "setMethod": "method"}.get(bare, "class")
            self.define(string_value(first), kind, line)

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
                                                        fixed_action="other"))
                continue
            body = value.child_by_field_name("body")
            if body is None:
                continue
            probe = ts.HandlerProbe(ts.first_line(value), condition, body.start_byte, body.end_byte)
            if body.type == "braced_expression":
                probe.body_id = body.id
            else:
                # a one-expression body is the single statement; the parameters lie
                # before the body's span and so are not counted
                probe.body_id = value.id
            self.facts.open_handler(probe)
