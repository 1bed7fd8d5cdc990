"""C and C++ frontend: tree-sitter-c for ``.c``, tree-sitter-cpp for the rest.

Headers (``.h``) are read with the C++ grammar, which accepts C declarations, since a
header cannot say which language includes it.

Traversal: one parse, then one tree-sitter query (``selection``, per grammar) that hands
Python only the nodes facts come from (comments, strings, includes, usings, definitions,
declarations, calls, string assignments), in document order, plus marks for the context
a fact depends on; identifiers, operators and punctuation stay in C
(``scoring.frontends._common.selected``).
"""

from __future__ import annotations

import re
from functools import cache

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
from scoring.frontends._credentials import with_script_credentials

LANGUAGE = "c_cpp"
VERSION = "1.2.0"   # 1.0.1: facts redacted (_common.redact_facts); 1.0.2: FileFacts.blank_lines (D4), the `//` comment after a #define value; 1.0.3 (S1): seed_value facts (a value given to a variable named like a seed, or the clock given to any variable; sscanf into a seed), RandomFact.seed_text of a seed or engine given an expression, the end line of a function definition; 1.0.4: FileFacts.credentials (C3); 1.1.0 (D6): function-like macros of headers are definitions (kind "macro"), names with a leading underscore are never public; 1.2.0 (S1, §0.2.23): a bare rand()/random()/drand48() inside a class or struct that declares a method of that name is the class's own generator, no C library draw
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
# a variable that holds a seed, by its name (the last identifier of ``opts.random_seed``)
SEED_NAME = re.compile(r"seed|idum", re.IGNORECASE)
SCANNERS = {"sscanf", "scanf", "fscanf"}
# bytes that make a file worth selecting every assignment of (a seed variable's values)
SEED_BYTES = (b"seed", b"SEED", b"Seed", b"idum", b"time", b"clock", b"getpid", b"chrono", b"random_device")
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
# what call() looks at beyond the CallFact: the name without std:: and template
# arguments, or without template arguments only
SPECIAL_SHORT = C_SEEDS.keys() | C_DRAWS.keys()
SPECIAL_BARE = SHUFFLES | CLI_CALLS.keys() | FILE_OPENERS | DATA_OPENERS.keys() | SCANNERS
LOGGING = re.compile(r"^(std::)?(cerr|clog|cout)$|^(f?printf|perror|puts|fputs|spdlog::\w+|LOG\w*|"
                     r"qWarning|qDebug|syslog)$")


def extract(data: bytes, path: str) -> FileFacts:
    grammar = "c" if path.lower().endswith(C_SUFFIXES) else "cpp"
    facts = ts.with_blank_lines(_Walker(data, grammar, path.lower().endswith(HEADER_SUFFIXES)).run(), data)
    return with_script_credentials(facts, data.decode("utf-8", "replace"), LANGUAGE)


def string_value(node) -> str:
    if node.type == "concatenated_string":
        return "".join(string_value(c) for c in node.named_children if "string" in c.type)
    if node.type == "raw_string_literal":
        content = next((c for c in node.named_children if c.type == "raw_string_content"), None)
        return "" if content is None else ts.text(content)
    raw = ts.text(node)
    match = QUOTED.match(raw)
    return match.group(1) if match else raw


QUOTED = re.compile(r'^(?:u8|u|U|L)?"(.*)"$', re.DOTALL)


NUMBER = re.compile(r"^(0[xX][0-9a-fA-F']+|[0-9']+)([uUlLzZ]*)$")


def literal(node):
    kind = node.type
    if kind in ("string_literal", "concatenated_string", "raw_string_literal"):
        return string_value(node)
    text = ts.text(node)
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


def reserved_name(name: str) -> bool:
    """A name whose last component starts with an underscore (``__kstring_t``,
    ``_err_fatal_simple``, ``ns::_Impl``)."""
    return name.rsplit("::", 1)[-1].startswith("_")


def function_declarator(node):
    while node is not None and node.type != "function_declarator":
        node = node.child_by_field_name("declarator")
    return node


STRING_KINDS = ("string_literal", "raw_string_literal", "concatenated_string")
# The nodes the walk reads facts from; the rest of the tree stays in C. The grammar for
# C lacks the C++ kinds, so each grammar's query names only the kinds it has
# (``selection``). An assignment matters only with a string on its right.
SELECTED_KINDS = (
    "comment", *STRING_KINDS, "preproc_include", "namespace_alias_definition", "using_declaration",
    "access_specifier", "function_definition", "declaration", "field_declaration", "class_specifier",
    "struct_specifier", "call_expression", "preproc_function_def",
)
SELECTED_PATTERNS = """
(assignment_expression right: [(string_literal) (concatenated_string)]) @node
((preproc_arg) @node (#match? @node "//"))
"""
# A macro's replacement text is one token to the grammar, so the ``//`` comment after a
# ``#define``'s value (``#define SAM_FPD 1 // paired``) is no comment node: it is read
# off the text, after the string and character literals the value may hold.
MACRO_LITERAL_OR_COMMENT = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|(//[^\n]*)')
# Context marks, so that no string's parent has to be looked up (Node.parent descends
# from the root, scanning siblings: quadratic in a long initializer list): @skipped, a
# piece of a concatenated string or an #include path; @bindable, a string that an
# initialised declarator or an assignment binds. {string} stands for the string kinds.
MARKS = """
(concatenated_string {string} @skipped)
(preproc_include {string} @skipped)
(init_declarator {string} @bindable)
(assignment_expression {string} @bindable)
(init_declarator (argument_list {string} @bindable))
"""
# Only a file with a catch clause (its bytes hold "catch") has handler probes; only then
# are the nodes their actions come from selected: throw, return, continue, and the error
# streams (a body that writes to cerr or clog logs), whose patterns test every
# identifier's text and so are added only when the bytes name them.
HANDLER_KINDS = ("catch_clause", "throw_statement", "throw_expression", "return_statement", "continue_statement")
LOG_STREAM_PATTERNS = """
((identifier) @node (#any-of? @node "cerr" "clog"))
((qualified_identifier) @node (#match? @node "^std\\s*::\\s*(cerr|clog)$"))
"""
FEATURES = {"throw_statement": "reraise", "throw_expression": "reraise", "return_statement": "return",
            "continue_statement": "continue"}


@cache
def selection(grammar: str, handlers: bool, log_streams: bool, seeds: bool = False):
    """The query for ``grammar``: the selected kinds it has (the grammar for C lacks the
    C++ ones) and the patterns that can match in it. With ``seeds`` (the file's bytes
    name seeds or the clock), every assignment is selected, not only those of a string:
    a seed variable's values are facts too."""
    language = ts.parser(grammar).language
    kinds = SELECTED_KINDS + (HANDLER_KINDS if handlers else ())
    known = [kind for kind in kinds if language.id_for_node_kind(kind, True) is not None]
    strings = "[" + " ".join(f"({kind})" for kind in STRING_KINDS if kind in known) + "]"
    patterns = SELECTED_PATTERNS
    if seeds:
        patterns = patterns.replace(
            "(assignment_expression right: [(string_literal) (concatenated_string)]) @node", "(assignment_expression) @node")
    source = "[" + " ".join(f"({kind})" for kind in known) + "] @node\n" + patterns \
        + MARKS.replace("{string}", strings)
    if handlers and log_streams:
        source += LOG_STREAM_PATTERNS
    return ts.possible_query(grammar, source)


def statement_does_nothing(statement) -> bool:
    return statement.type == "expression_statement" and statement.text.strip() == b";"


class _Walker:
    """One parse, one query (``selection``) over the tree; each selected node, in
    document order, goes to the method for its kind. A node's ancestors are looked up
    (``_common.path_to``) only for the facts that depend on them: an include's or using's
    guard, a definition's visibility."""

    def __init__(self, data: bytes, grammar: str, header: bool) -> None:
        self.data = data
        self.grammar = grammar
        self.header = header
        self.facts = ts.Collector()
        self.aliases: dict[str, str] = {}
        self.access: dict[int, str] = {}        # field_declaration_list id -> current access
        self.root = None
        self.skipped: set[int] = set()          # ids of strings that are part of a larger one
        self.bindable: set[int] = set()         # ids of strings a declarator or assignment binds

    def run(self) -> FileFacts:
        facts = self.facts
        tree = facts.parse(self.data, self.grammar)
        self.root = tree.root_node
        dispatch = {
            "comment": self.comment, "string_literal": self.string, "raw_string_literal": self.string,
            "concatenated_string": self.string, "preproc_include": self.include,
            "namespace_alias_definition": self.namespace_alias, "using_declaration": self.using,
            "access_specifier": self.access_specifier, "function_definition": self.definition,
            "declaration": self.declaration, "field_declaration": self.declaration,
            "class_specifier": self.class_specifier, "struct_specifier": self.class_specifier,
            "call_expression": self.call, "assignment_expression": self.assignment,
            "catch_clause": self.catch_clause, "identifier": self.log_stream,
            "qualified_identifier": self.log_stream, "preproc_arg": self.macro_comment,
            "preproc_function_def": self.function_macro,
        }
        handlers = b"catch" in self.data
        log_streams = b"cerr" in self.data or b"clog" in self.data
        seeds = any(word in self.data for word in SEED_BYTES)
        nodes, marks = ts.selected(tree, selection(self.grammar, handlers, log_streams, seeds))
        self.skipped = marks.get("skipped", set())
        self.bindable = marks.get("bindable", set())
        facts.dispatch(nodes, dispatch, FEATURES)
        return self.facts.finish("c" if self.grammar == "c" else "cpp", "c_cpp", VERSION, self.data)

    def ancestors(self, node) -> list:
        return ts.path_to(self.root, node)

    def resolve(self, written: str) -> str:
        head, sep, rest = written.partition("::")
        if head in self.aliases:
            return self.aliases[head] + (sep + rest if sep else "")
        return written

    def log_stream(self, node) -> None:
        # selected only when the text is cerr/clog (std::cerr, std::clog)
        if self.facts.open_handlers and squeeze(node) in LOG_STREAMS:
            self.facts.handler_visit(node, None, feature="log")

    def comment(self, node) -> None:
        body = ts.text(node)
        self.facts.comment(node, self.data, doc=body.startswith(("///", "//!", "/**", "/*!")) and
                           not body.startswith(("////", "/**/")))

    def macro_comment(self, node) -> None:
        # selected only when the replacement text holds "//"
        value = ts.text(node)
        for match in MACRO_LITERAL_OR_COMMENT.finditer(value):
            body = match.group(1)
            if body is not None:
                line = ts.first_line(node) + value.count("\n", 0, match.start(1))
                self.facts.trailing_comment(line, body, doc=body.startswith(("///", "//!")) and
                                            not body.startswith("////"))
                return

    def string(self, node) -> None:
        if node.id in self.skipped:
            return
        binding = self.binding(node, node.parent) if node.id in self.bindable else ""
        self.facts.string(string_value(node), node, binding=binding)

    def namespace_alias(self, node) -> None:
        names = node.named_children
        if len(names) >= 2:
            self.aliases[ts.text(names[0])] = squeeze(names[-1])

    def using(self, node) -> None:
        target = node.named_children[-1] if node.named_children else None
        if target is not None:
            written = squeeze(target)
            if "namespace" in ts.text(node).split()[:2]:
                self.facts.imports.append(ImportFact(written, ts.first_line(node),
                                                     self.guard(self.ancestors(node)), "using"))
            else:
                self.aliases[written.split("::")[-1]] = written

    def access_specifier(self, node) -> None:
        parent = node.parent
        if parent is not None:
            self.access[parent.id] = ts.text(node).rstrip(":").strip()

    def class_specifier(self, node) -> None:
        if node.child_by_field_name("body") is not None:
            name = node.child_by_field_name("name")
            if name is not None:
                self.add_definition(ts.text(name), "class" if node.type == "class_specifier" else "struct",
                                    node, None)

    def assignment(self, node) -> None:
        right = node.child_by_field_name("right")
        if right is None:
            return
        left = node.child_by_field_name("left")
        if right.type in ("string_literal", "concatenated_string"):
            if left is not None:
                self.facts.assignments.append(AssignmentFact(ts.text(left), ts.first_line(node),
                                                             string_value(right)))
        elif left is not None:
            self.seed_value(squeeze(left), right, ts.first_line(node))

    def seed_value(self, target: str, value, line: int, call: str = "") -> None:
        """A value given to a variable named like a seed (``iseed = -1 - gid``,
        ``opts.random_seed = atol(optarg)``), or to any variable from the clock or the
        OS (``long t = time(NULL)``): a ``seed_value`` fact, whose generator is the
        variable as written and whose call is the value (or the reading call)."""
        text = ts.text(value) if value is not None else ""
        named = bool(SEED_NAME.search(target.rsplit(".", 1)[-1].rsplit("->", 1)[-1]))
        if not named and not TIME_SEEDS.search(text):
            return
        if "random_device" in text:
            source = "entropy"
        elif TIME_SEEDS.search(text):
            source = "time"
        elif value is None:
            source = "argument"   # read into the variable (sscanf(optarg, "%d", &seed))
        else:
            source = "literal" if not isinstance(literal(value), Expr) else "argument"
        self.facts.randoms.append(RandomFact(line, call or " ".join(text.split())[:80], target, "seed_value",
                                             source in ("literal", "argument"), source))

    def catch_clause(self, node) -> None:
        parameters = node.child_by_field_name("parameters")
        body = node.child_by_field_name("body")
        caught = "" if parameters is None else ts.text(parameters).strip("() ")
        if body is not None:
            probe = ts.HandlerProbe(ts.first_line(node), caught, body.start_byte, body.end_byte, body_id=body.id)
            ts.count_statements(probe, body, statement_does_nothing)
            self.facts.open_handler(probe)

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

    def include(self, node) -> None:
        target = node.child_by_field_name("path")
        if target is None:
            return
        written = ts.text(target)
        module = written[1:-1] if written[:1] in "<\"" else written
        self.facts.imports.append(ImportFact(module, ts.first_line(node), self.guard(self.ancestors(node)),
                                             "include"))

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
        """Whether a header's user may call or name the definition: not ``static`` at
        file scope, not in an anonymous namespace, not a private or protected member."""
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

    def add_definition(self, name: str, kind: str, node, ancestors: list | None, end_line: int = 0,
                       documented: bool = False) -> None:
        line = ts.first_line(node)
        if ancestors is None:
            ancestors = self.ancestors(node)
        documented = documented or self.facts.doc_block_ending_at(line) is not None
        if not documented and self.facts.comments:
            # a trailing ///< on the declaration's own line documents it too
            last = self.facts.comments[-1]
            documented = last.doc and last.line_start == line and last.text.startswith(("///<", "//!<", "/**<"))
        # C and C++ reserve names with a leading underscore for the implementation (at
        # file scope all of them, everywhere __x and _X): a library that uses one anyway
        # marks an internal (khash's __ac_isempty, kseq's struct __kstring_t)
        public = not reserved_name(name) and self.public(node, ancestors)
        self.facts.definitions.append(DefinitionFact(name, kind, line, public, documented, end_line=end_line))

    def function_macro(self, node) -> None:
        """A function-like ``#define`` of a header is part of its API: macro-generic C
        libraries (khash's ``kh_put``, kseq's ``KSEQ_INIT``) have no other declaration of
        what their users call, and Doxygen documents macros as it does functions.
        Object-like macros (constants, include guards) are no definitions, as module
        constants are none in the other languages."""
        if not self.header:
            return
        name = node.child_by_field_name("name")
        if name is None:
            return
        value = node.child_by_field_name("value")
        trailing = False
        if value is not None and b"//" in value.text:
            match = next((m for m in MACRO_LITERAL_OR_COMMENT.finditer(ts.text(value)) if m.group(1)), None)
            trailing = match is not None and match.group(1).startswith(("///<", "//!<"))
        self.add_definition(ts.text(name), "macro", node, [], documented=trailing)

    def definition(self, node) -> None:
        kind = "function"
        declarator = function_declarator(node.child_by_field_name("declarator"))
        name = declarator_name(declarator.child_by_field_name("declarator")) if declarator is not None else None
        if name is None:
            return
        ancestors = self.ancestors(node)
        in_class = any(a.type == "field_declaration_list" for a in ancestors)
        qualified = squeeze(name)
        self.add_definition(qualified, "method" if in_class or "::" in qualified else kind, node, ancestors,
                            end_line=ts.last_line(node))
        if qualified == "main" and declarator is not None:
            parameters = declarator.child_by_field_name("parameters")
            if parameters is not None and len(parameters.named_children) >= 2:
                self.facts.cli_args.append(CliArgFact(ts.first_line(parameters), "argv"))

    def declaration(self, node) -> None:
        type_node = node.child_by_field_name("type")
        type_name = self.resolve(squeeze(type_node)) if type_node is not None else ""
        line = ts.first_line(node)
        for declarator in node.children_by_field_name("declarator"):
            if function_declarator(declarator) is not None and declarator.type != "init_declarator":
                name = declarator_name(function_declarator(declarator).child_by_field_name("declarator"))
                if name is not None and (self.header or node.type == "field_declaration"):
                    self.add_definition(squeeze(name), "declaration", node, None)
                continue
            name = declarator_name(declarator)
            variable = "" if name is None else ts.text(name)
            value = declarator.child_by_field_name("value") if declarator.type == "init_declarator" else None
            self.typed_variable(type_name, variable, value, line)
            if value is not None and variable and value.type not in ("argument_list", "initializer_list") \
                    and base_type(type_name) not in ENGINE_TYPES:
                self.seed_value(variable, value, line)
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
                                            source in ("literal", "argument", "default"), source,
                                            seed_text=squeeze(arguments[0])[:80] if source == "argument" else ""))
        elif base in ENTROPY_TYPES:
            facts.randoms.append(RandomFact(line, type_name, variable or base, "engine", False, "entropy"))
        elif base.endswith("_distribution") and DISTRIBUTION.search(base):
            facts.randoms.append(RandomFact(line, type_name, variable or base, "draw"))
        elif type_name in STREAMS and arguments:
            path = literal(arguments[0])
            facts.file_io.append(FileIOFact(line, STREAMS[type_name], path if isinstance(path, str) else "",
                                            type_name))
        elif type_name in CLI_CALLS or base in CLI_CALLS:
            facts.cli_args.append(CliArgFact(line, CLI_CALLS.get(type_name) or CLI_CALLS[base]))

    def member_of_enclosing_class(self, node, written: str) -> bool:
        """Whether a bare call names a method of the class or struct whose body holds it
        (``random()`` in a class that defines ``Scalar random()``): the class's own
        generator, found before the C library's (§0.2.23)."""
        if written != written.split("::")[-1]:
            return False
        for ancestor in reversed(self.ancestors(node)):
            if ancestor.type != "field_declaration_list":
                continue
            for member in ancestor.named_children:
                if member.type not in ("function_definition", "field_declaration", "declaration"):
                    continue
                declarator = function_declarator(member.child_by_field_name("declarator"))
                name = declarator_name(declarator.child_by_field_name("declarator")) if declarator is not None else None
                if name is not None and ts.text(name) == written:
                    return True
        return False

    def call(self, node) -> None:
        facts = self.facts
        if facts.open_handlers:
            children = node.named_children
            if children and LOGGING.match(squeeze(children[0])):
                facts.handler_visit(node, None, feature="log")
        function = node.child_by_field_name("function")
        if function is None:
            return
        written = squeeze(function)
        name = self.resolve(written)
        line = ts.first_line(node)
        arguments_node = node.child_by_field_name("arguments")
        arguments = [] if arguments_node is None else [a for a in arguments_node.named_children if a.type != "comment"]
        values = tuple([literal(a) for a in arguments])
        facts.calls.append(CallFact(name, written, line, values, ()))
        bare = name.split("<")[0]
        short = bare.removeprefix("std::").removeprefix("::")
        if short not in SPECIAL_SHORT and bare not in SPECIAL_BARE and not written.endswith((".seed", ".open")):
            return   # most calls: nothing more than the CallFact
        if short in C_SEEDS:
            expression = ts.text(arguments[0]) if arguments else ""
            if not arguments:
                source = "none"
            elif TIME_SEEDS.search(expression):
                source = "time"
            else:
                source = "argument" if isinstance(values[0], Expr) else "literal"
            facts.randoms.append(RandomFact(line, name, C_SEEDS[short], "seed", source in ("literal", "argument"), source,
                                            seed_text=squeeze(arguments[0])[:80] if source == "argument" else ""))
        elif (short in C_DRAWS and not arguments or short == "rand_r") \
                and not self.member_of_enclosing_class(node, written):
            facts.randoms.append(RandomFact(line, name, C_DRAWS[short], "draw"))
        elif bare in SHUFFLES:
            generator = ts.text(arguments[-1]) if len(arguments) >= 3 else "c.rand"
            facts.randoms.append(RandomFact(line, name, generator, "draw"))
        elif function.type == "field_expression" and written.endswith(".seed"):
            source = "none" if not arguments else "time" if TIME_SEEDS.search(ts.text(arguments[0])) else \
                "argument" if isinstance(values[0], Expr) else "literal"
            facts.randoms.append(RandomFact(line, name, written[:-len(".seed")], "seed",
                                            source in ("literal", "argument"), source,
                                            seed_text=squeeze(arguments[0])[:80] if source == "argument" else ""))
        if bare in SCANNERS:
            # sscanf(optarg, "%ld", &(opts->seed)): the seed is read from the input
            for argument in arguments[1:]:
                target = squeeze(argument)
                if target.startswith("&"):
                    variable = target.lstrip("&").strip("()")
                    if SEED_NAME.search(re.split(r"\.|->", variable)[-1]):
                        self.seed_value(variable, None, line, call=name)
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
