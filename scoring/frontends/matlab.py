"""MATLAB/Octave frontend (``.m``): tree-sitter-matlab from tree-sitter-language-pack.

The grammar reads MATLAB syntax and the Octave forms it shares (``#`` comments,
double-quoted strings); Octave-only statements (``endfunction``, ``unwind_protect``)
come out as ERROR nodes, recorded as ``parse_error`` while the rest is still read.

A function's help block is the comment block right after its ``function`` line (or,
for a script, the file's first comment block): it is documentation, never code.

``.m`` is also Objective-C's suffix (METRICS.md §0.3: a ``.m`` file is MATLAB/Octave
after a syntax check). A file with a line that opens an Objective-C class section
(``@interface``, ``@implementation``, ``@protocol``, ``@end``) or an ``#import`` of a
header, none of which MATLAB or Octave can read, is not parsed: its facts say
``language="objective-c"`` and hold nothing else, and the tree index leaves it out of
the MATLAB files (``TreeIndex.by_frontend``, ``all_facts``, the ecosystems).

Traversal: one parse, then one tree-sitter query (``SELECTED``) that hands Python only
the nodes facts come from (comments, strings, definitions, methods blocks, assignments,
calls and commands), in document order, plus marks for the context a fact depends on;
identifiers, operators and punctuation stay in C
(``scoring.frontends._common.selected``).
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
from scoring.frontends import NOT_MATLAB
from scoring.frontends import _common as ts
from scoring.frontends._credentials import with_script_credentials

LANGUAGE = "matlab"
VERSION = "1.2.1"   # 1.0.1: facts redacted (_common.redact_facts); 1.0.2: a help block holds text; the main function's help may stand above its function line; a script's local functions are not public; 1.0.3: FileFacts.blank_lines (D4); a help block is the first contiguous comment block; 1.0.4: an identifier below `catch` is a body statement, not the caught error; 1.0.5: a class's superclasses (DefinitionFact.bases, S3); 1.0.6 (S1): a RandStream bound to a variable is that generator (its draws rand(s, …), setGlobalStream(s) seeded as s was), a seed computed from the clock (sum(100*clock)) is time; 1.0.7: CRLF line ends read as LF (tree-sitter-matlab misreads `...` continuations, blank lines and help blocks in CRLF files); 1.0.8: credential facts (C3 2.2.0) with 1.0.7's CRLF normalisation; 1.1.1: with 1.1.0's Objective-C files left out; 1.1.2 (S1): parallel.gpu.rng()/gpurng() seed the GPU stream and gpuArray.rand*/rand(…, 'gpuArray') draw from it (generator "matlab.gpu"), not the global stream; 1.2.0 (A4): DefinitionFact.end_line and inputs (a function's parameters), the scope of a name; 1.2.1 (D6): with 1.1.3's line, the file's first comment block is the main function's help when more comment blocks follow it before the function line

DRAWS = {"rand", "randn", "randi", "randperm", "normrnd", "unifrnd", "binornd", "poissrnd", "exprnd",
         "gamrnd", "betarnd", "datasample", "randsample", "random", "cvpartition", "mvnrnd", "lhsdesign",
         "sprand", "sprandn", "randg", "crossvalind"}
LEGACY_SEED_WORDS = {"seed", "state", "twister"}
TIME_WORDS = {"shuffle"}
# a seed computed from the clock (``rand('state', sum(100*clock))``) or the process
TIME_EXPRESSION = re.compile(r"\b(clock|now|datenum|datetime|cputime|tic|toc|posixtime|getpid)\b")
STREAM_CONSTRUCTORS = {"RandStream", "RandStream.create"}
# the GPU's random stream (Parallel Computing Toolbox): seeded by parallel.gpu.rng/gpurng, drawn by gpuArray.rand*
GPU_STREAM = "matlab.gpu"
READS = {"load", "readtable", "readmatrix", "readcell", "csvread", "dlmread", "xlsread", "imread",
         "audioread", "importdata", "h5read", "ncread", "textread", "jsondecode", "fileread",
         "readstruct", "parquetread", "niftiread", "dicomread", "readlines", "VideoReader"}
WRITES = {"save", "writetable", "writematrix", "writecell", "csvwrite", "dlmwrite", "xlswrite",
          "imwrite", "audiowrite", "h5write", "ncwrite", "saveas", "exportgraphics", "savefig",
          "print", "writestruct", "parquetwrite", "niftiwrite", "writelines", "VideoWriter"}
RERAISING = {"rethrow", "error", "throw", "throwAsCaller"}
LOGGING = {"warning", "disp", "fprintf", "display", "getReport", "printf", "puts", "fdisp"}
PRIVATE_ACCESS = re.compile(r"Access\s*=\s*'?(private|protected)")
# what a comment holds besides its markers: a help block of bare % lines documents nothing
COMMENT_MARKERS = re.compile(rb"[%{}\s]+")
NUMBER_IS_FLOAT = re.compile(r"[.eE]")


# lines no MATLAB/Octave file can hold and every Objective-C file does (a class section
# ends with @end; a file without one imports headers)
OBJECTIVE_C = re.compile(rb"^[ \t]*(?:@(?:interface|implementation|protocol|end)\b|#import[ \t]*[<\"])", re.MULTILINE)


def extract(data: bytes, path: str) -> FileFacts:
    if (b"@end" in data or b"#import" in data) and OBJECTIVE_C.search(data):
        return ts.Collector().finish(NOT_MATLAB, "matlab", VERSION, data)
    # tree-sitter-matlab misreads CRLF files: a ``...`` continuation swallows the next
    # line's first character (``rand(`` becomes ``and(``), a blank ``\r`` line ends no
    # help block, and parse errors appear that the LF text has not. Line numbers are
    # the same either way.
    if b"\r\n" in data:
        data = data.replace(b"\r\n", b"\n")
    facts = ts.with_blank_lines(_Walker(data).run(), data)
    return with_script_credentials(facts, data.decode("utf-8", "replace"), LANGUAGE)


string_value = ts.quote_doubled_string


def literal(node):
    kind = node.type
    if kind == "string":
        return string_value(node)
    text = ts.text(node)
    if kind == "number":
        try:
            value = float(text) if NUMBER_IS_FLOAT.search(text) else int(text)
        except ValueError:
            return Expr(text[:80])
        return literal_or_expr(value, text)
    if kind == "boolean" or text in ("true", "false"):
        return text == "true"
    if kind == "unary_operator" and text.startswith("-"):
        value = ts.negated(literal(node.named_children[-1]))
        if value is not None:
            return value
    return Expr(text[:80])


# The nodes the walk reads facts from; the rest of the tree (identifiers, operators,
# punctuation) stays in C. A file with a try/catch (its bytes hold "catch") also gets
# the nodes its handler probes need (return, continue). The other captures mark
# context, so that no node's parent has to be looked up (Node.parent descends from the
# root, scanning siblings): @member, a call written as a field of an object
# (obj.method(...)), named with it; @bindable, a string an assignment binds;
# @in_definition and @top_level, a comment whose parent is a function or classdef, or
# the file.
SELECTED = """
[(comment) (string) (function_definition) (class_definition) (methods) (assignment)
 (function_call) (command)] @node
(field_expression [(function_call) (command)] @member)
(assignment (string) @bindable)
(function_definition (comment) @in_definition)
(class_definition (comment) @in_definition)
(source_file (comment) @top_level)
"""
SELECTED_WITH_HANDLERS = SELECTED + "[(catch_clause) (return_statement) (continue_statement)] @node\n"
FEATURES = {"return_statement": "return", "continue_statement": "continue"}


def not_passive(statement) -> bool:
    return False


class _Walker:
    """One parse, one query (``SELECTED``) over the tree; each selected node, in
    document order, goes to the method for its kind. A function's ancestors are looked
    up (``_common.path_to``) for its kind and visibility; a node's parent (``Node.parent``)
    only where the query marked it as one that matters."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.facts = ts.Collector()
        self.functions_seen = 0
        self.help_for: dict[int, int] = {}       # definition index -> its help comment line
        self.private_methods: set[int] = set()   # ids of private methods blocks
        self.root = None
        self.members: set[int] = set()           # ids of calls that are a field_expression's children
        self.bindable: set[int] = set()          # ids of strings an assignment binds
        self.in_definition: set[int] = set()     # ids of comments directly in a function or classdef
        self.top_level: set[int] = set()         # ids of comments directly in the file
        self.stream_targets: dict[int, str] = {}  # id of a RandStream construction -> the variable it is bound to
        self.streams: dict[str, str] = {}        # RandStream variable -> its seed source

    def run(self) -> FileFacts:
        facts = self.facts
        tree = facts.parse(self.data, LANGUAGE)
        self.root = tree.root_node
        dispatch = {
            "comment": self.comment, "string": self.string, "function_definition": self.definition,
            "class_definition": self.class_definition, "methods": self.methods,
            "assignment": self.assignment, "function_call": self.call, "command": self.call,
            "catch_clause": self.catch_clause,
        }
        selection = SELECTED_WITH_HANDLERS if b"catch" in self.data else SELECTED
        nodes, marks = ts.selected(tree, ts.query(LANGUAGE, selection))
        self.members = marks.get("member", set())
        self.bindable = marks.get("bindable", set())
        self.in_definition = marks.get("in_definition", set())
        self.top_level = marks.get("top_level", set())
        facts.dispatch(nodes, dispatch, FEATURES)
        return facts.finish(LANGUAGE, "matlab", VERSION, self.data)

    def string(self, node) -> None:
        binding = self.binding(node, node.parent) if node.id in self.bindable else ""
        self.facts.string(string_value(node), node, binding=binding)

    def class_definition(self, node) -> None:
        name = node.child_by_field_name("name")
        if name is not None:
            # the superclasses as written (``< matlab.unittest.TestCase & handle``): S3's test classes
            superclasses = next((c for c in node.named_children if c.type == "superclasses"), None)
            bases = tuple(ts.text(c) for c in superclasses.named_children
                          if c.type in ("property_name", "identifier")) if superclasses is not None else ()
            self.facts.definitions.append(DefinitionFact(ts.text(name), "class", ts.first_line(node), True,
                                                         self.help_follows(node), bases=bases))

    def methods(self, node) -> None:
        attributes = next((c for c in node.named_children if c.type == "attributes"), None)
        if attributes is not None and PRIVATE_ACCESS.search(ts.text(attributes)):
            self.private_methods.add(node.id)

    def assignment(self, node) -> None:
        right = node.child_by_field_name("right")
        if right is not None and right.type == "function_call" and self.callee(right) in STREAM_CONSTRUCTORS | {"create"}:
            left = node.child_by_field_name("left")
            if left is not None and left.type == "identifier":
                self.stream_targets[right.id] = ts.text(left)
        if right is not None and right.type == "string":
            left = node.child_by_field_name("left")
            if left is not None:
                self.facts.assignments.append(AssignmentFact(ts.text(left), ts.first_line(node),
                                                             string_value(right)))

    def catch_clause(self, node) -> None:
        children = node.named_children
        body = next((c for c in children if c.type == "block"), None)
        named = next((c for c in children if c.type == "identifier"), None)
        # ``catch ME`` names the error on the catch line; an identifier on a later line
        # is a command-syntax call the grammar hands over as the identifier
        # (``catch`` / ``keyboard``), a statement of the body
        command = named is not None and named.start_point[0] != node.start_point[0]
        caught = "" if named is None or command else ts.text(named)
        start = node.end_byte if body is None else body.start_byte
        probe = ts.HandlerProbe(ts.first_line(node), caught, start, node.end_byte,
                                body_id=None if body is None else body.id)
        if body is not None:
            ts.count_statements(probe, body, not_passive)
        probe.statements += command
        self.facts.open_handler(probe)

    # --------------------------------------------------------------- helpers
    @staticmethod
    def help_follows(node) -> bool:
        """The definition's first named child after its signature is a comment with text
        (MATLAB's help block: the comment lines right below the function line)."""
        for child in node.named_children:
            if child.type == "comment":
                return has_text(child)
            if child.type in ("block", "properties", "methods", "events", "enumeration", "arguments_statement"):
                return False
        return False

    def opens_the_file(self, node) -> bool:
        """Whether ``node`` is the file's first statement (comments aside): a function
        file, not a script that defines local functions after its code."""
        first = next((child for child in self.root.named_children if child.type != "comment"), None)
        return first is not None and first.id == node.id

    def help_above(self, node) -> bool:
        """The file's first comment block, with text, stands above the main function's
        line with only comments between: MATLAB's ``help`` prints the file's first
        comment block, even when a change log or a copyright block follows it before
        the function line."""
        comments = self.facts.comments
        if not comments or not comments[0].doc or not COMMENT_MARKERS.sub(b"", comments[0].text.encode()):
            return False
        previous = node.prev_named_sibling
        return previous is not None and previous.type == "comment"

    def comment(self, node) -> None:
        # a help block: the first comment block inside a function/classdef, before its
        # body (MATLAB's help ends at the first line that is not a comment, a blank line
        # too), or the first comment block of a script
        parent = node.parent if node.id in self.in_definition else self.root if node.id in self.top_level else None
        doc = False
        previous = self.facts.comments[-1] if self.facts.comments else None
        if parent is not None and parent.type in ("function_definition", "class_definition"):
            first_in_definition = previous is None or previous.line_end < ts.first_line(parent)
            continues_help = previous is not None and previous.doc and previous.line_end == ts.first_line(node) - 1
            doc = (first_in_definition or continues_help) and not any(
                child.type in ("block",) and child.start_byte < node.start_byte for child in parent.named_children)
        elif parent is not None and parent.type == "source_file" and not self.facts.comments \
                and self.functions_seen == 0 and node.prev_named_sibling is None:
            doc = True
        elif previous is not None and previous.doc and previous.line_end == ts.first_line(node) - 1:
            doc = True   # a help block goes on while its lines do
        self.facts.comment(node, self.data, doc=doc)

    def definition(self, node) -> None:
        name = node.child_by_field_name("name")
        if name is None:
            return
        ancestors = ts.path_to(self.root, node)
        self.functions_seen += 1
        in_class = any(a.type == "class_definition" for a in ancestors)
        if in_class:
            public = not any(a.id in self.private_methods for a in ancestors)
            kind = "method"
        else:
            # the first function of a function file is its callable; the rest are local
            # functions, and so are the functions at the end of a script
            public = self.functions_seen == 1 and len(ancestors) == 1 and self.opens_the_file(node)
            kind = "function"
        line = ts.first_line(node)
        documented = self.help_follows(node) or (public and not in_class and self.help_above(node))
        arguments = next((c for c in node.named_children if c.type == "function_arguments"), None)
        # the span and inputs scope a name (A4: a name takes its URL from a binding in
        # its own function; an input hides every other binding)
        parameters = tuple(ts.text(c) for c in arguments.named_children if c.type == "identifier") \
            if arguments is not None else ()
        self.facts.definitions.append(DefinitionFact(ts.text(name), kind, line, public, documented,
                                                     end_line=ts.last_line(node), inputs=parameters))
        # the inputs of a file's first function are its parameters (S6), a script's too
        if not in_class and self.functions_seen == 1 and arguments is not None and arguments.named_children \
                and len(ancestors) == 1:
            self.facts.cli_args.append(CliArgFact(line, "function_arguments"))

    @staticmethod
    def binding(node, parent) -> str:
        if parent is not None and parent.type == "assignment":
            left = parent.child_by_field_name("left")
            right = parent.child_by_field_name("right")
            if left is not None and right is not None and right.id == node.id:
                return ts.text(left)
        return ""

    @staticmethod
    def callee(node) -> str:
        if node.type == "command":
            name = next((c for c in node.named_children if c.type == "command_name"), None)
            return "" if name is None else ts.text(name)
        name = node.child_by_field_name("name")
        return "" if name is None else ts.text(name)

    def call(self, node) -> None:
        facts = self.facts
        name = self.callee(node)
        if facts.open_handlers:
            feature = "reraise" if name in RERAISING else "log" if name in LOGGING else None
            if feature:
                facts.handler_visit(node, None, feature=feature)
        if not name:
            return
        written = name
        if node.id in self.members and node.prev_named_sibling is not None:
            written = f"{ts.text(node.prev_named_sibling)}.{name}"
        line = ts.first_line(node)
        if node.type == "command":
            words = tuple(ts.text(c) for c in node.named_children if c.type == "command_argument")
            values = words
            argument_nodes = []
        else:
            arguments = next((c for c in node.named_children if c.type == "arguments"), None)
            argument_nodes = [] if arguments is None else [c for c in arguments.named_children
                                                           if "comment" not in c.type]
            values = tuple([literal(a) for a in argument_nodes])
        facts.calls.append(CallFact(written, written, line, values, ()))

        if name == "gpurng" or (name == "rng" and written.endswith("gpu.rng")):
            # parallel.gpu.rng(seed), gpurng(seed): the GPU's stream, not the one rand() draws from
            self.seed(line, written, values, GPU_STREAM)
        elif name == "rng" or written == "RandStream.setGlobalStream":
            self.seed(line, written, values)
        elif name in ("rand", "randn") and values and isinstance(values[0], str) \
                and values[0] in LEGACY_SEED_WORDS:
            seed = values[1] if len(values) > 1 else None
            source = "none" if seed is None else self.expression_source(seed)
            facts.randoms.append(RandomFact(line, name, "matlab.global", "seed", source in ("literal", "argument"),
                                            source))
        elif name == "RandStream" or written == "RandStream.create":
            self.engine(line, values, self.stream_targets.get(node.id, "RandStream"))
        elif name in DRAWS:
            # ``rand(s, 3)``: a draw from the RandStream ``s``, not the global stream
            first = argument_nodes[0] if argument_nodes else None
            stream = ts.text(first) if first is not None and first.type == "identifier" \
                and ts.text(first) in self.streams else "matlab.global"
            if written.startswith("gpuArray.") or "gpuArray" in values:
                # gpuArray.randn(…), rand(…, 'gpuArray'): drawn on the GPU from its own stream
                stream = GPU_STREAM
            facts.randoms.append(RandomFact(line, written, stream, "draw"))
        elif name == "inputParser":
            facts.cli_args.append(CliArgFact(line, "inputParser"))
        elif name == "import":
            for value in values:
                if isinstance(value, str):
                    facts.imports.append(ImportFact(value, line, "none", "import"))
        elif name == "addpath":
            for value in values:
                if isinstance(value, str):
                    facts.imports.append(ImportFact(value, line, "none", "addpath"))
        if name == "fopen" or name in READS or name in WRITES:
            path = next((v for v in values if isinstance(v, str)), "")
            if name == "fopen":
                permission = values[1] if len(values) > 1 else "r"
                mode = "unknown" if not isinstance(permission, str) else \
                    "readwrite" if "+" in permission else "write" if permission[:1] in "wa" else "read"
            else:
                mode = "read" if name in READS else "write"
            if name == "print":
                path = next((v for v in values if isinstance(v, str) and not v.startswith("-")), "")
            facts.file_io.append(FileIOFact(line, mode, path, name))

    @staticmethod
    def expression_source(seed) -> str:
        """A seed value's source: ``'shuffle'`` and expressions of the clock are time."""
        if isinstance(seed, str):
            return "time" if seed.lower() in TIME_WORDS else "literal"
        if isinstance(seed, Expr):
            return "time" if TIME_EXPRESSION.search(seed.text) else "argument"
        return "literal"

    def seed(self, line: int, call: str, values, stream: str = "matlab.global") -> None:
        seed = values[0] if values else None
        if seed is None:
            return   # rng() with no argument reads the state
        source = self.expression_source(seed)
        if call == "RandStream.setGlobalStream" and isinstance(seed, Expr) and seed.text in self.streams:
            source = self.streams[seed.text]   # the global stream becomes that stream, seeded as it was
        self.facts.randoms.append(RandomFact(line, call, stream, "seed",
                                             source in ("literal", "argument", "default"), source))

    def engine(self, line: int, values, stream: str) -> None:
        seed = None
        for index, value in enumerate(values[:-1]):
            if isinstance(value, str) and value.lower() == "seed":
                seed = values[index + 1]
        source = "default" if seed is None else self.expression_source(seed)
        if stream != "RandStream":
            self.streams[stream] = source
        self.facts.randoms.append(RandomFact(line, "RandStream", stream, "engine",
                                             source in ("literal", "argument", "default"), source))


def has_text(comment) -> bool:
    """Whether a comment node says anything beyond its ``%``/``%{ %}`` markers."""
    return bool(COMMENT_MARKERS.sub(b"", comment.text))
