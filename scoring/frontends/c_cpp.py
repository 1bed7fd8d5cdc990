"""C and C++ frontend: tree-sitter-c for ``.c``, tree-sitter-cpp for the rest.

Headers (``.h``) are read with the C++ grammar, which accepts C declarations, since a
header cannot say which language includes it.
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

LANGUAGE = "c_cpp"
VERSION = "1.0.1"   # 1.0.1: facts redacted (_common.redact_facts)
C_SUFFIXES = (".c",)
HEADER_SUFFIXES = (".h", ".hpp", ".hh", ".hxx", ".cuh")

ENGINE_TYPES = {
    "mt19937", "mt19937_64", "default_random_engine", "minstd_rand", "minstd_rand0", "ranlux24",
    "ranlux48", "ranlux24_base", "ranlux48_base", "knuth_b", "mersenne_twister_engine",
    "linear_congruential_engine", "subtract_with_carry_engine", "pcg32", "pcg64",
}
ENTROPY_TYPES = {"random_device"}
DISTRIBUTION = re.compile(r"(uniform_(int|real)|normal|bernoulli|binomial|poisson|exponential|gamma|"
                          r"weibull|lognormal|chi_squared|cauchy|discrete|geometric|student_t|"
                          r"negative_binomial|extreme_value|fisher_f|piecewise_\w+)_distribution$")
C_SEEDS = {"srand": "c.rand", "srandom": "c.random", "srand48": "c.drand48", "seed48": "c.drand48"}
C_DRAWS = {"rand": "c.rand", "random": "c.random", "drand48": "c.drand48", "lrand48": "c.drand48",
           "mrand48": "c.drand48", "rand_r": "c.rand_r"}
SHUFFLES = {"std::shuffle", "std::random_shuffle", "std::sample", "shuffle", "random_shuffle"}
TIME_SEEDS = re.compile(r"\btime\s*\(|chrono|clock\s*\(|getpid\s*\(|gettimeofday|random_device")
CLI_CALLS = {"getopt": "getopt", "getopt_long": "getopt", "getopt_long_only": "getopt",
             "CLI::App": "CLI11", "options_description": "program_options",
             "po::options_description": "program_options", "argparse::ArgumentParser": "argparse",
             "cxxopts::Options": "cxxopts", "gflags::ParseCommandLineFlags": "gflags",
             "absl::ParseCommandLine": "absl"}
FILE_OPENERS = {"fopen", "freopen", "fopen64", "open"}
STREAMS = {"std::ifstream": "read", "std::ofstream": "write", "std::fstream": "readwrite",
           "ifstream": "read", "ofstream": "write", "fstream": "readwrite"}
DATA_OPENERS = {"H5Fopen": "read", "H5Fcreate": "write", "nc_open": "read", "nc_create": "write"}
LOG_STREAMS = {"std::cerr", "std::clog", "cerr", "clog"}
LOGGING = re.compile(r"^(std::)?(cerr|clog|cout)$|^(f?printf|perror|puts|fputs|spdlog::\w+|LOG\w*|"
                     r"qWarning|qDebug|syslog)$")


def extract(data: bytes, path: str) -> FileFacts:
    grammar = "c" if path.lower().endswith(C_SUFFIXES) else "cpp"
    return _Walker(data, grammar, path.lower().endswith(HEADER_SUFFIXES)).run()


def string_value(node) -> str:
    if node.type == "concatenated_string":
        return "".join(string_value(c) for c in node.named_children if "string" in c.type)
    if node.type == "raw_string_literal":
        content = next((c for c in node.named_children if c.type == "raw_string_content"), None)
        return "" if content is None else ts.text(content)
    raw = ts.text(node)
    match = re.match(r'^(?:u8|u|U|L)?"(.*)"$', raw, re.DOTALL)
    return match.group(1) if match else raw


NUMBER = re.compile(r"^(0[xX][0-9a-fA-F']+|[0-9']+)([uUlLzZ]*)$")


def literal(node):
    kind, text = node.type, ts.text(node)
    if kind in ("string_literal", "concatenated_string", "raw_string_literal"):
        return string_value(node)
    if kind == "number_literal":
        match = NUMBER.match(text)
        try:
            if match:
                return int(match.group(1).replace("'", ""), 0 if match.group(1)[:2].lower() == "0x" else 10)
            return literal_or_expr(float(text.rstrip("fFlL").replace("'", "")), text)
        except ValueError:
            return Expr(text[:80])
    if kind in ("true", "false"):
        return kind == "true"
    if kind in ("null", "nullptr"):
        return None
    if kind == "char_literal":
        return text[1:-1]
    if kind == "unary_expression" and text.startswith("-"):
        value = ts.negated(literal(node.named_children[-1]))
        if value is not None:
            return value
    return Expr(text[:80])


squeeze = ts.squeezed_text


def base_type(name: str) -> str:
    """``std::mt19937_64`` -> ``mt19937_64``; ``std::uniform_int_distribution<int>`` -> its name."""
    return name.split("<")[0].split("::")[-1]


def declarator_name(node):
    """The identifier a (possibly nested) declarator declares."""
    while node is not None:
        if node.type in ("identifier", "field_identifier", "qualified_identifier", "destructor_name",
                         "operator_name", "type_identifier"):
            return node
        inner = node.child_by_field_name("declarator")
        if inner is None:
            inner = next((c for c in node.named_children if c.type not in ("parameter_list", "type_qualifier")), None)
        node = inner
    return None


def function_declarator(node):
    while node is not None and node.type != "function_declarator":
        node = node.child_by_field_name("declarator")
    return node


class _Walker:
    def __init__(self, data: bytes, grammar: str, header: bool) -> None:
        self.data = data
        self.grammar = grammar
        self.header = header
        self.facts = ts.Collector()
        self.aliases: dict[str, str] = {}
        self.access: dict[int, str] = {}        # field_declaration_list id -> current access

    def run(self) -> FileFacts:
        tree = ts.parse(self.data, self.grammar)
        for node, ancestors in ts.preorder(tree):
            self.visit(node, ancestors)
        return self.facts.finish("c" if self.grammar == "c" else "cpp", "c_cpp", VERSION, self.data)

    def resolve(self, written: str) -> str:
        head, sep, rest = written.partition("::")
        if head in self.aliases:
            return self.aliases[head] + (sep + rest if sep else "")
        return written

    def visit(self, node, ancestors) -> None:
        facts = self.facts
        parent = ancestors[-1] if ancestors else None
        kind = node.type
        if ts.is_error(node):
            facts.note_error(node)
        feature = None
        if kind == "throw_statement" or (kind == "throw_expression"):
            feature = "reraise"
        elif kind == "return_statement":
            feature = "return"
        elif kind == "continue_statement":
            feature = "continue"
        elif kind in ("call_expression",) and node.named_children and LOGGING.match(squeeze(node.named_children[0])):
            feature = "log"
        elif kind in ("identifier", "qualified_identifier") and squeeze(node) in LOG_STREAMS:
            feature = "log"
        facts.handler_visit(node, parent, passive=kind == "expression_statement" and ts.text(node).strip() == ";",
                            feature=feature)

        if kind == "comment":
            body = ts.text(node)
            facts.comment(node, self.data, doc=body.startswith(("///", "//!", "/**", "/*!")) and
                          not body.startswith(("////", "/**/")))
        elif kind in ("string_literal", "raw_string_literal", "concatenated_string"):
            if parent is not None and parent.type in ("concatenated_string", "preproc_include"):
                return
            facts.string(string_value(node), node, binding=self.binding(node, parent))
        elif kind == "preproc_include":
            self.include(node, ancestors)
        elif kind == "namespace_alias_definition":
            names = node.named_children
            if len(names) >= 2:
                self.aliases[ts.text(names[0])] = squeeze(names[-1])
        elif kind == "using_declaration":
            target = node.named_children[-1] if node.named_children else None
            if target is not None:
                written = squeeze(target)
                if "namespace" in ts.text(node).split()[:2]:
                    facts.imports.append(ImportFact(written, ts.first_line(node), self.guard(ancestors), "using"))
                else:
                    self.aliases[written.split("::")[-1]] = written
        elif kind == "access_specifier" and parent is not None:
            self.access[parent.id] = ts.text(node).rstrip(":").strip()
        elif kind == "function_definition":
            self.definition(node, ancestors, "function")
        elif kind in ("declaration", "field_declaration"):
            self.declaration(node, ancestors)
        elif kind in ("class_specifier", "struct_specifier") and node.child_by_field_name("body") is not None:
            name = node.child_by_field_name("name")
            if name is not None:
                self.add_definition(ts.text(name), "class" if kind == "class_specifier" else "struct",
                                    node, ancestors)
        elif kind == "call_expression":
            self.call(node, ancestors)
        elif kind == "assignment_expression":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and right is not None and right.type in ("string_literal", "concatenated_string"):
                facts.assignments.append(AssignmentFact(ts.text(left), ts.first_line(node), string_value(right)))
        elif kind == "catch_clause":
            parameters = node.child_by_field_name("parameters")
            body = node.child_by_field_name("body")
            caught = "" if parameters is None else ts.text(parameters).strip("() ")
            if body is not None:
                facts.open_handler(ts.HandlerProbe(ts.first_line(node), caught, body.start_byte, body.end_byte,
                                                   body_id=body.id))

    # ------------------------------------------------------------ pieces
    @staticmethod
    def guard(ancestors) -> str:
        for ancestor in ancestors:
            if ancestor.type in ("preproc_ifdef", "preproc_if", "preproc_elif", "preproc_else", "preproc_elifdef"):
                if not _Walker.is_include_guard(ancestor):
                    return "conditional"
        return "none"

    @staticmethod
    def is_include_guard(node) -> bool:
        """``#ifndef X_H`` / ``#define X_H`` around a whole header is no condition."""
        if node.type != "preproc_ifdef":
            return False
        name = node.child_by_field_name("name")
        children = node.named_children
        define = next((c for c in children[1:] if c.type != "comment"), None) if children else None
        return name is not None and define is not None and define.type == "preproc_def" and \
            define.child_by_field_name("name") is not None and \
            ts.text(define.child_by_field_name("name")) == ts.text(name)

    def include(self, node, ancestors) -> None:
        target = node.child_by_field_name("path")
        if target is None:
            return
        written = ts.text(target)
        module = written[1:-1] if written[:1] in "<\"" else written
        self.facts.imports.append(ImportFact(module, ts.first_line(node), self.guard(ancestors), "include"))

    def binding(self, node, parent) -> str:
        if parent is None:
            return ""
        if parent.type == "init_declarator":
            name = declarator_name(parent.child_by_field_name("declarator"))
            return "" if name is None else ts.text(name)
        if parent.type == "assignment_expression":
            left = parent.child_by_field_name("left")
            return "" if left is None else squeeze(left)
        if parent.type == "argument_list" and parent.parent is not None and parent.parent.type == "init_declarator":
            name = declarator_name(parent.parent.child_by_field_name("declarator"))
            return "" if name is None else ts.text(name)
        return ""

    def public(self, node, ancestors) -> bool:
        if any(c.type == "storage_class_specifier" and ts.text(c) == "static" for c in node.children) \
                and not any(a.type == "field_declaration_list" for a in ancestors):
            return False
        for ancestor in ancestors:
            if ancestor.type == "namespace_definition" and ancestor.child_by_field_name("name") is None:
                return False
        if ancestors and ancestors[-1].type == "field_declaration_list":
            owner = ancestors[-2] if len(ancestors) >= 2 else None
            default = "private" if owner is not None and owner.type == "class_specifier" else "public"
            return self.access.get(ancestors[-1].id, default) == "public"
        return True

    def add_definition(self, name: str, kind: str, node, ancestors) -> None:
        line = ts.first_line(node)
        documented = self.facts.doc_block_ending_at(line) is not None
        if not documented and self.facts.comments:
            # a trailing ///< on the declaration's own line documents it too
            last = self.facts.comments[-1]
            documented = last.doc and last.line_start == line and last.text.startswith(("///<", "//!<", "/**<"))
        self.facts.definitions.append(DefinitionFact(name, kind, line, self.public(node, ancestors), documented))

    def definition(self, node, ancestors, kind: str) -> None:
        declarator = function_declarator(node.child_by_field_name("declarator"))
        name = declarator_name(declarator.child_by_field_name("declarator")) if declarator is not None else None
        if name is None:
            return
        in_class = any(a.type == "field_declaration_list" for a in ancestors)
        qualified = squeeze(name)
        self.add_definition(qualified, "method" if in_class or "::" in qualified else kind, node, ancestors)
        if qualified == "main" and declarator is not None:
            parameters = declarator.child_by_field_name("parameters")
            if parameters is not None and len(parameters.named_children) >= 2:
                self.facts.cli_args.append(CliArgFact(ts.first_line(parameters), "argv"))

    def declaration(self, node, ancestors) -> None:
        type_node = node.child_by_field_name("type")
        type_name = self.resolve(squeeze(type_node)) if type_node is not None else ""
        line = ts.first_line(node)
        for declarator in node.children_by_field_name("declarator"):
            if function_declarator(declarator) is not None and declarator.type != "init_declarator":
                name = declarator_name(function_declarator(declarator).child_by_field_name("declarator"))
                if name is not None and (self.header or node.type == "field_declaration"):
                    self.add_definition(squeeze(name), "declaration", node, ancestors)
                continue
            name = declarator_name(declarator)
            variable = "" if name is None else ts.text(name)
            value = declarator.child_by_field_name("value") if declarator.type == "init_declarator" else None
            self.typed_variable(type_name, variable, value, line)
            if value is not None and value.type in ("string_literal", "concatenated_string"):
                self.facts.assignments.append(AssignmentFact(variable, line, string_value(value)))

    def typed_variable(self, type_name: str, variable: str, value, line: int) -> None:
        facts = self.facts
        base = base_type(type_name)
        arguments = []
        if value is not None:
            arguments = value.named_children if value.type in ("argument_list", "initializer_list") else [value]
        if base in ENGINE_TYPES:
            if not arguments:
                source = "default"     # a default-constructed engine has a fixed documented state
            else:
                expression = "".join(ts.text(a) for a in arguments)
                if "random_device" in expression:
                    source = "entropy"
                elif TIME_SEEDS.search(expression):
                    source = "time"
                else:
                    source = "literal" if not isinstance(literal(arguments[0]), Expr) else "argument"
            facts.randoms.append(RandomFact(line, type_name, variable or base, "engine",
                                            source in ("literal", "argument", "default"), source))
        elif base in ENTROPY_TYPES:
            facts.randoms.append(RandomFact(line, type_name, variable or base, "engine", False, "entropy"))
        elif DISTRIBUTION.search(base):
            facts.randoms.append(RandomFact(line, type_name, variable or base, "draw"))
        elif type_name in STREAMS and arguments:
            path = literal(arguments[0])
            facts.file_io.append(FileIOFact(line, STREAMS[type_name], path if isinstance(path, str) else "",
                                            type_name))
        elif type_name in CLI_CALLS or base in CLI_CALLS:
            facts.cli_args.append(CliArgFact(line, CLI_CALLS.get(type_name) or CLI_CALLS[base]))

    def call(self, node, ancestors) -> None:
        facts = self.facts
        function = node.child_by_field_name("function")
        if function is None:
            return
        written = squeeze(function)
        name = self.resolve(written)
        line = ts.first_line(node)
        arguments_node = node.child_by_field_name("arguments")
        arguments = [] if arguments_node is None else [a for a in arguments_node.named_children if a.type != "comment"]
        values = tuple(literal(a) for a in arguments)
        facts.calls.append(CallFact(name, written, line, values, ()))
        bare = name.split("<")[0]
        short = bare.removeprefix("std::").removeprefix("::")
        if short in C_SEEDS:
            expression = ts.text(arguments[0]) if arguments else ""
            if not arguments:
                source = "none"
            elif TIME_SEEDS.search(expression):
                source = "time"
            else:
                source = "argument" if isinstance(values[0], Expr) else "literal"
            facts.randoms.append(RandomFact(line, name, C_SEEDS[short], "seed", source in ("literal", "argument"), source))
        elif short in C_DRAWS and not arguments or short == "rand_r":
            facts.randoms.append(RandomFact(line, name, C_DRAWS[short], "draw"))
        elif bare in SHUFFLES:
            generator = ts.text(arguments[-1]) if len(arguments) >= 3 else "c.rand"
            facts.randoms.append(RandomFact(line, name, generator, "draw"))
        elif function.type == "field_expression" and written.endswith(".seed"):
            source = "none" if not arguments else "time" if TIME_SEEDS.search(ts.text(arguments[0])) else \
                "argument" if isinstance(values[0], Expr) else "literal"
            facts.randoms.append(RandomFact(line, name, written[:-len(".seed")], "seed",
                                            source in ("literal", "argument"), source))
        if bare in CLI_CALLS:
            facts.cli_args.append(CliArgFact(line, CLI_CALLS[bare]))
        if bare in FILE_OPENERS and values:
            path = values[0] if isinstance(values[0], str) else ""
            mode_value = values[1] if len(values) > 1 else None
            if isinstance(mode_value, str):
                mode = "readwrite" if "+" in mode_value else "write" if mode_value[:1] in "wa" else "read"
            else:
                mode = "unknown"
            facts.file_io.append(FileIOFact(line, mode, path, name))
        elif bare in DATA_OPENERS and values:
            facts.file_io.append(FileIOFact(line, DATA_OPENERS[bare], values[0] if isinstance(values[0], str) else "",
                                            name))
        elif function.type == "field_expression" and written.endswith(".open") and values \
                and isinstance(values[0], str):
            facts.file_io.append(FileIOFact(line, "unknown", values[0], name))
