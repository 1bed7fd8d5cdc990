"""Julia frontend (``.jl``): tree-sitter-julia from tree-sitter-language-pack.

A string literal standing right before a definition is its docstring (Julia's own
rule): it is documentation text, never code, so a ``rand(3)`` written inside one is no
random call (METRICS §0.2.4). The ``@doc`` macro attaches documentation the same way
(``@doc "…" f``, ``@doc raw"…" f(x) = …``, ``@doc (@doc g) f``, and its text on the
line above the documented expression): its string, raw or not, is a docstring, and
what it documents is documented (a bare name or signature ``@doc "…" f(x::Int)`` is a
``DefinitionFact`` of kind ``signature``). Docstrings are reported both as
``StringFact(docstring=True)`` and as ``CommentFact(doc=True)``.

When the grammar's error recovery loses a whole file (its root an ERROR node), the file
is parsed again in top-level chunks (``_chunked_facts``), so that the damage stays in
the statements the grammar cannot read (METRICS §0.1.9).

Traversal: one parse, then one tree-sitter query (``SELECTED``) that hands Python only
the nodes facts come from (comments, string literals, imports, exports, definitions,
assignments, calls), in document order, plus marks for the context a fact depends on;
identifiers, operators and punctuation stay in C
(``scoring.frontends._common.selected``).
"""

from __future__ import annotations

import re
from dataclasses import replace

from scoring.facts import (
    AssignmentFact,
    CallFact,
    CliArgFact,
    DefinitionFact,
    ExportFact,
    Expr,
    FileFacts,
    FileIOFact,
    MacroFact,
    RandomFact,
    literal_or_expr,
)
from scoring.frontends import _common as ts
from scoring.frontends._credentials import with_script_credentials

LANGUAGE = "julia"
VERSION = "1.3.2"   # 1.0.1: facts redacted (_common.redact_facts); 1.0.2: FileFacts.blank_lines, macro calls (MacroFact); 1.0.3: ARGS in interpolations; 1.0.4: Pkg.add installs (InstallFact); 1.0.5: exported names (ExportFact); 1.0.6 (S1): each random fact names its generator: an engine bound to a variable is that variable (within its function), Random.default_rng() and variables bound to it are the global one, a draw's first argument named like a generator (rng) is one passed in, an engine built in place is its own; TaskLocalRNG() is the global generator, no engine; 1.0.7 (S1): DefinitionFact.end_line, the last line of a definition (what include() does not run); 1.0.8: with main's credential facts (1.0.6-1.0.7 of both lines merged); 1.0.9: each found secret masked in all of a file's facts (C3 2.2.0); 1.1.1: with 1.1.0's short-form methods with where/return types (D6); 1.2.0 (D4, D6): @doc docstrings (raw ones too) and what they document, a documented signature a DefinitionFact of kind "signature"; 1.2.1: with 1.1.2's struct-field generators and method parameters (S1); 1.3.0 (A4): DefinitionFact.inputs, every parameter name of a method; 1.3.1 (D6): a docstring above `const a = b`, a binding `a = b` or a bare name `a` documents that name (a "signature" definition); 1.3.2: (D6, §0.1.9) a file whose parse the grammar loses entirely (its root an ERROR node, e.g. `v[begin+1:end-1]` in some shapes) is re-parsed in top-level chunks: the chunks that parse together, the failing ones apart, facts merged, so the damage stays in the failing statements

DEFINITIONS = {
    "function_definition": "function", "macro_definition": "macro", "struct_definition": "struct",
    "abstract_definition": "abstract", "module_definition": "module", "primitive_definition": "primitive",
}
ENGINES = {"MersenneTwister", "Xoshiro", "StableRNG", "Random.MersenneTwister", "Random.Xoshiro",
           "StableRNGs.StableRNG", "RandomDevice", "Random.RandomDevice"}
ENTROPY_ENGINES = {"RandomDevice", "Random.RandomDevice"}
SEEDING = {"Random.seed!", "seed!"}
# the global generator, as a call or a constant
GLOBAL_GENERATORS = {"Random.default_rng", "default_rng", "Random.GLOBAL_RNG", "GLOBAL_RNG", "Random.TaskLocalRNG",
                     "TaskLocalRNG"}
# a parameter named like a generator: a draw's first argument that is a generator passed in
GENERATOR_NAME = re.compile(r"(?i)rng|generator")
DRAWS = {"rand", "randn", "randexp", "shuffle", "shuffle!", "randperm", "randcycle", "sample",
         "bitrand", "randstring", "randsubseq", "rand!", "randn!", "sample!", "StatsBase.sample",
         "Random.shuffle", "Random.randperm", "Random.rand", "Random.randn", "Random.shuffle!"}
TIME_SOURCES = ("time()", "time_ns()", "now()", "Dates.now")
READS = {"read", "readlines", "readline", "readdlm", "CSV.read", "CSV.File", "load", "jldopen",
         "h5open", "npzread", "deserialize", "readcsv", "Arrow.Table", "JSON.parsefile",
         "JSON3.read", "TOML.parsefile", "YAML.load_file", "XLSX.readxlsx", "XLSX.readtable",
         "FileIO.load", "JLD2.load", "BSON.load", "DelimitedFiles.readdlm", "eachline"}
WRITES = {"write", "writedlm", "CSV.write", "save", "jldsave", "savefig", "serialize",
          "npzwrite", "FileIO.save", "JLD2.save", "BSON.bson", "XLSX.writetable",
          "DelimitedFiles.writedlm", "Plots.savefig", "CairoMakie.save", "Makie.save"}
RERAISING = {"rethrow", "throw", "error"}
LOGGING = {"println", "print", "@warn", "@error", "@info", "@debug", "@show", "showerror", "@logmsg"}


def extract(data: bytes, path: str, *, credentials: bool = True) -> FileFacts:
    """The facts of a Julia file; ``credentials=False`` leaves out ``FileFacts.credentials``
    (code a notebook cell or an R Markdown chunk holds: the document reads the credentials
    of all its cells together)."""
    walker = _Walker(data)
    facts = walker.run()
    if walker.root.type == "ERROR":
        facts = _chunked_facts(data) or facts
    text = data.decode("utf-8", "replace")
    blank = ts.blank_line_numbers(text)
    if blank:
        facts = replace(facts, blank_lines=blank)
    return with_script_credentials(facts, text, LANGUAGE) if credentials else facts


def string_value(node) -> str:
    raw = ts.text(node)
    for quote in ('"""', '"'):
        if raw.startswith(quote) and raw.endswith(quote) and len(raw) >= 2 * len(quote):
            return raw[len(quote):-len(quote)]
    return raw


def prefixed_string_value(node) -> str:
    """The text of a prefixed string (``raw\"\"\"…\"\"\"``, ``md"…"``) between its quotes."""
    raw = ts.text(node)
    prefix = node.named_children[0] if node.named_children else None
    if prefix is not None and prefix.type == "identifier" and raw.startswith(ts.text(prefix)):
        raw = raw[len(ts.text(prefix)):]
    for quote in ('"""', '"'):
        if raw.startswith(quote) and raw.endswith(quote) and len(raw) >= 2 * len(quote):
            return raw[len(quote):-len(quote)]
    return raw


def literal(node):
    kind = node.type
    text = ts.text(node)
    if kind == "string_literal":
        return string_value(node)
    if kind == "integer_literal":
        try:
            return int(text.replace("_", ""), 0)
        except ValueError:
            return Expr(text[:80])
    if kind == "float_literal":
        try:
            return literal_or_expr(float(text.replace("_", "").replace("f", "e")), text)
        except ValueError:
            return Expr(text[:80])
    if kind == "boolean_literal":
        return text == "true"
    if kind == "identifier" and text == "nothing":
        return None
    if kind == "unary_expression" and text.startswith("-"):
        value = ts.negated(literal(node.children[-1]))
        if value is not None:
            return value
    return Expr(text[:80])


dotted = ts.squeezed_text


# A line at column 0 that cannot start a top-level statement: it closes or continues one
CONTINUATION = re.compile(rb"(?:end|else|elseif|catch|finally)\b|[)\]}.,|&=+*/<>-]")
TRIPLE_QUOTE = b'"""'
# chunks a failing chunk is joined with, at most, to find a piece that parses (a
# statement whose continuation lines stand at column 0)
JOIN_LIMIT = 3


MODULE_LINE = re.compile(rb"(?:bare)?module\s+[\w.]+\s*(?:#.*)?$")


def top_level_chunks(data: bytes) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The byte spans of the file's top-level statements, as the text shows them, and
    those of the lines of a module wrapping them (a column-0 ``module X`` line and, for
    each, one of the last column-0 ``end`` lines). A statement starts at a column-0 line
    outside a triple-quoted string that does not close or continue one; a docstring and
    the definition on the line below it stay in one chunk."""
    lines: list[tuple[int, bytes]] = []
    offset = 0
    for line in data.split(b"\n"):
        lines.append((offset, line))
        offset += len(line) + 1
    starts: set[int] = {0}
    wrappers: list[int] = []     # indexes of the module lines
    in_triple = False
    closed_docstring = False     # the previous line closed a triple-quoted string
    for index, (_offset, line) in enumerate(lines):
        first = line[:1]
        if (not in_triple and first not in (b"", b" ", b"\t", b"\r", b"#") and not closed_docstring
                and not CONTINUATION.match(line)):
            starts.add(index)
            if MODULE_LINE.match(line):
                wrappers.append(index)
        odd = line.count(TRIPLE_QUOTE) % 2 == 1
        # a docstring closing on this line, or one standing on it alone ("""Doc.""")
        closed_docstring = (in_triple and odd) or (not in_triple and not odd
                                                   and line.startswith(TRIPLE_QUOTE)
                                                   and line.rstrip().endswith(TRIPLE_QUOTE))
        in_triple ^= odd
    closing = [i for i, (_o, line) in enumerate(lines) if line.rstrip() == b"end"][-len(wrappers):] if wrappers else []
    wrapper_lines = set(wrappers) | set(closing)
    for index in wrapper_lines:
        starts.update((index, index + 1))
    ordered = sorted(i for i in starts if i < len(lines))
    spans = [(lines[i][0], lines[j][0] if j < len(lines) else len(data))
             for i, j in zip(ordered, [*ordered[1:], len(lines)], strict=True)]
    chunks = [span for i, span in zip(ordered, spans, strict=True) if i not in wrapper_lines]
    wrapper_spans = [span for i, span in zip(ordered, spans, strict=True) if i in wrapper_lines]
    return chunks, wrapper_spans


def blanked(data: bytes, keep: list[tuple[int, int]]) -> bytes:
    """``data`` with every byte outside the ``keep`` spans made a space (line breaks
    kept): the kept code parses on its own at its own lines and byte offsets."""
    out = bytearray(re.sub(rb"[^\r\n]", b" ", data))
    for start, end in keep:
        out[start:end] = data[start:end]
    return bytes(out)


def _chunked_facts(data: bytes) -> FileFacts | None:
    """The facts of a file whose parse lost all structure (its root an ERROR node: the
    grammar fails on a construct such as ``v[begin+1:end]`` and its error recovery takes
    the whole file): the top-level chunks that parse alone are parsed together with the
    failing ones blanked, the failing ones on their own, and the facts merged, so that
    the damage stays in the statements that fail (METRICS §0.1.9: an unparseable part
    is scanned without losing the rest). The lines of a module wrapping the chunks are
    kept in both parses. None when no chunk fails alone."""
    chunks, wrappers = top_level_chunks(data)
    good: list[tuple[int, int]] = []
    bad: list[tuple[int, int]] = []
    index = 0
    while index < len(chunks):
        start, end = chunks[index]
        for joined in range(index, min(index + JOIN_LIMIT, len(chunks))):
            end = chunks[joined][1]
            if not ts.parse(data[start:end], LANGUAGE).root_node.has_error:
                good.append((start, end))
                index = joined + 1
                break
        else:
            bad.append(chunks[index])
            index += 1
    if not bad or not good:
        return None
    parsed = _Walker(blanked(data, good + wrappers)).run()
    failing = _Walker(blanked(data, bad + wrappers)).run()
    return merged_facts(parsed, failing, data)


def merged_facts(parsed: FileFacts, failing: FileFacts, data: bytes) -> FileFacts:
    """One file's facts from those of its chunks that parse and of those that fail, in
    line order; the export rule applied over both (a module's exports say what is
    public wherever the definition is)."""
    merged = {}
    for name in ("imports", "calls", "strings", "comments", "definitions", "assignments", "handlers", "randoms",
                 "cli_args", "file_io", "urls", "directives", "macros", "installs", "exports", "asserts"):
        # a fact both parses give comes from the module lines both keep: once (the two
        # read disjoint lines otherwise, and one parse may give equal facts of one line)
        kept = getattr(parsed, name)
        seen = set(kept)
        items = kept + tuple(fact for fact in getattr(failing, name) if fact not in seen)
        merged[name] = tuple(sorted(items, key=fact_line))
    exported = {export.name for export in merged["exports"]}
    if exported:
        merged["definitions"] = tuple(replace(d, public=d.name in exported or d.kind == "module")
                                      for d in merged["definitions"])
    return replace(parsed, **merged, parse_error=failing.parse_error or parsed.parse_error,
                   lines=ts.count_lines(data))


def fact_line(fact) -> int:
    for name in ("line", "line_start", "start_line"):
        value = getattr(fact, name, None)
        if isinstance(value, int):
            return value
    return 0


def is_docstring(node, parent) -> bool:
    if parent is None or parent.type not in ("source_file", "block", "module_definition"):
        return False
    following = node.next_named_sibling
    if following is None or ts.first_line(following) > ts.last_line(node) + 1:
        return False
    if following.type in DEFINITIONS or following.type in ("const_statement", "macrocall_expression"):
        return True
    # short-form definitions f(x) = ... and documented bindings x = ...
    return following.type == "assignment" or following.type in ("identifier", "call_expression")


# The nodes the walk reads facts from; the rest of the tree stays in C. A file with a
# try/catch (its bytes hold "catch") also gets the nodes its handler probes need; ARGS
# is tested on identifiers only in files whose bytes hold it (testing every
# identifier's text is costly). The other captures mark context, so that no node's
# parent has to be looked up (Node.parent descends from the root, scanning siblings):
# @statement, a string that stands as a statement (where a docstring stands);
# @bindable, a string an assignment binds (``binding`` also names named_argument and
# pair_expression, which this grammar does not have: a keyword argument is an
# assignment, a pair a binary_expression); @top_level, an assignment that is a
# statement (``f(x) = ...`` defines f).
SELECTED = """
[(line_comment) (block_comment) (string_literal) (using_statement) (import_statement) (export_statement) (function_definition) (macro_definition) (struct_definition) (abstract_definition) (module_definition) (primitive_definition) (assignment) (call_expression)] @node
(source_file (string_literal) @statement)
(block (string_literal) @statement)
(module_definition (string_literal) @statement)
(assignment (string_literal) @bindable)
(source_file (assignment) @top_level)
(block (assignment) @top_level)
(module_definition (assignment) @top_level)
(const_statement (assignment) @top_level)
"""
HANDLER_PATTERNS = "[(catch_clause) (macrocall_expression) (return_statement) (continue_statement)] @node\n"
ARGS_PATTERN = '((identifier) @node (#eq? @node "ARGS"))\n'
# the name of every macro call (``@testset``, ``Test.@test``), only in files holding an "@"
MACRO_PATTERN = "(macro_identifier) @node\n"
# the arguments of a @doc call (also Base.@doc, Core.@doc), only in files holding "@doc"
DOC_PATTERNS = """
(macrocall_expression (macro_identifier (identifier) @doc_macro (#eq? @doc_macro "doc")) (macro_argument_list) @node)
(macrocall_expression (field_expression (macro_identifier (identifier) @doc_macro (#eq? @doc_macro "doc"))) (macro_argument_list) @node)
"""
# what a @doc call can document without defining it: a name or a method signature
SIGNATURE_WRAPPERS = ("where_expression", "typed_expression")
FEATURES = {"return_statement": "return", "continue_statement": "continue"}


def is_nothing(statement) -> bool:
    return statement.type == "identifier" and statement.text == b"nothing"



def parameter_names(call) -> tuple[str, ...]:
    """Every parameter name of a method's signature, keyword ones too: a parameter hides
    a binding of its name outside the method (A4's scope of a URL name)."""
    if call.type != "call_expression":
        return ()
    arguments = next((c for c in call.named_children[1:] if c.type == "argument_list"), None)
    names: list[str] = []
    for child in arguments.named_children if arguments is not None else ():
        if child.type == "keyword_parameters":
            names.extend(parameter_names_of(child.named_children))
        else:
            names.extend(parameter_names_of([child]))
    return tuple(names)


def parameter_names_of(children) -> list[str]:
    names = []
    for child in children:
        if child.type in ("assignment", "typed_expression", "splat_expression") and child.named_children:
            child = child.named_children[0]
            if child.type == "typed_expression" and child.named_children:
                child = child.named_children[0]
        if child.type == "identifier":
            names.append(ts.text(child))
    return names


class _Walker:
    """One parse, one query (``SELECTED``) over the tree; each selected node, in
    document order, goes to ``visit``. Whether a node lies inside a string literal (a
    docstring's interpolation) is known from the string literals already met; an
    import's ancestors are looked up (``_common.path_to``) for its guard."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.facts = ts.Collector()
        self.aliases: dict[str, str] = {}        # local name -> qualified name
        # variables bound to generators: name -> (start byte, end byte, "engine", "global",
        # "default" (a parameter's default) or "field:<Type.field>" (a struct's field))
        # from the binding to the end of the function it is in (a keyword default
        # ``rng = Random.default_rng()`` holds in its function), else of the file
        self.generators: dict[str, list[tuple[int, int, str]]] = {}
        self.engine_names: dict[int, str] = {}   # id of an engine construction -> the generator it makes
        self.signatures: list[tuple[int, int]] = []   # byte spans of methods' parameter lists
        self.exports: list[ExportFact] = []     # the names of export statements, in order
        self.docstring_lines: set[int] = set()   # last lines of docstrings
        self.root = None
        self.string_end = 0                      # end of the outermost string literal met so far
        self.statements: set[int] = set()        # ids of strings that are statements (docstring places)
        self.bindable: set[int] = set()          # ids of strings an assignment binds
        self.top_level: set[int] = set()         # ids of assignments that are statements of a file/block/module
        self.macros: list[MacroFact] = []        # macro calls, by name
        self.docstring_end = 0                   # end of the last docstring met
        self.pkg_add_end = 0                     # end of the last ``Pkg.add(…)`` call met: its strings are installs
        self.doc_texts: set[int] = set()         # ids of the string literals @doc calls attach
        self.doc_targets: set[int] = set()       # ids of the definitions @doc calls document

    def run(self) -> FileFacts:
        tree = self.facts.parse(self.data, LANGUAGE)
        self.root = tree.root_node
        selection = SELECTED
        if b"catch" in self.data:
            selection += HANDLER_PATTERNS
        if b"ARGS" in self.data:
            selection += ARGS_PATTERN
        if b"@" in self.data:
            selection += MACRO_PATTERN
        if b"@doc" in self.data:
            selection += DOC_PATTERNS
        # the lines of SELECTED that can match in this grammar release (it never puts a
        # string or an assignment directly in a module_definition)
        nodes, marks = ts.selected(tree, ts.possible_query(LANGUAGE, selection))
        self.statements = marks.get("statement", set())
        self.bindable = marks.get("bindable", set())
        self.top_level = marks.get("top_level", set())
        for node in nodes:
            self.visit(node)
        definitions = self.facts.definitions
        if self.exports:
            # a module that exports says what is public; otherwise the _ prefix does
            exported = {export.name for export in self.exports}
            definitions = [replace(d, public=d.name in exported or d.kind == "module") for d in definitions]
        facts = self.facts.finish(LANGUAGE, "julia", VERSION, self.data, definitions=definitions)
        if self.macros or self.exports:
            facts = replace(facts, macros=tuple(self.macros), exports=tuple(self.exports))
        return facts

    def resolve(self, written: str) -> str:
        head, _, rest = written.partition(".")
        if head in self.aliases:
            return self.aliases[head] + ("." + rest if rest else "")
        return written

    def visit(self, node) -> None:
        facts = self.facts
        kind = node.type
        # the selected string literals seen so far that contain this node: an ancestor
        # string (a docstring's interpolation is still documentation)
        in_string = node.start_byte < self.string_end
        if kind in FEATURES:
            if facts.open_handlers:
                facts.handler_visit(node, None, feature=FEATURES[kind])
        elif kind == "macrocall_expression":
            if facts.open_handlers and ts.text(node).split("(")[0].split()[0] in LOGGING:
                facts.handler_visit(node, None, feature="log")
        elif kind in ("line_comment", "block_comment"):
            facts.comment(node, self.data, doc=False)
        elif kind == "string_literal":
            if not in_string:
                self.string_end = node.end_byte
            if node.id in self.doc_texts:
                self.docstring(node, string_value(node))
            elif node.id in self.statements and is_docstring(node, node.parent):
                self.docstring(node, string_value(node))
                self.documented_binding(node.next_named_sibling)
            else:
                binding = self.binding(node, node.parent) if node.id in self.bindable else ""
                facts.string(string_value(node), node, binding=binding)
                if node.start_byte < self.pkg_add_end:
                    facts.installs.append(ts.InstallFact(string_value(node), ts.first_line(node), "Pkg.add"))
        elif kind in ("using_statement", "import_statement"):
            self.imports(node, ts.path_to(self.root, node))
        elif kind == "export_statement":
            self.exports.extend(ExportFact(ts.text(child), ts.first_line(child))
                                for child in node.named_children if child.type == "identifier")
        elif kind in DEFINITIONS:
            self.definition(node, DEFINITIONS[kind])
        elif kind == "assignment":
            self.assignment(node)
        elif kind == "call_expression":
            if facts.open_handlers and node.named_children:
                name = dotted(node.named_children[0])
                feature = "reraise" if name in RERAISING else "log" if name in LOGGING else None
                if feature:
                    facts.handler_visit(node, None, feature=feature)
            if not in_string:   # string interpolation of a docstring is still documentation
                self.call(node)
        elif kind == "catch_clause":
            body = next((c for c in node.named_children if c.type == "block"), None)
            caught = next((ts.text(c) for c in node.named_children if c.type == "identifier"), "")
            start = node.end_byte if body is None else body.start_byte
            probe = ts.HandlerProbe(ts.first_line(node), caught, start, node.end_byte,
                                    body_id=None if body is None else body.id)
            if body is not None:
                ts.count_statements(probe, body, is_nothing)
            facts.open_handler(probe)
        elif kind == "macro_argument_list":
            # selected only as the arguments of a @doc call
            if not in_string:
                self.doc_call(node)
        elif kind == "macro_identifier":
            if not in_string:   # a macro in a docstring's interpolation is documentation
                self.macros.append(MacroFact(ts.text(node), ts.first_line(node)))
        elif kind == "identifier":
            # selected only when it reads ARGS; an interpolation "$(ARGS[1])" reads it too,
            # one in a docstring is documentation
            if node.start_byte >= self.docstring_end:
                facts.cli_args.append(CliArgFact(ts.first_line(node), "ARGS"))

    def docstring(self, node, value: str) -> None:
        facts = self.facts
        facts.string(value, node, docstring=True)
        facts.comments.append(ts.CommentFact(ts.first_line(node), ts.last_line(node), value, True))
        self.docstring_lines.add(ts.last_line(node))
        self.docstring_end = max(self.docstring_end, node.end_byte)

    def doc_call(self, arguments) -> None:
        """``@doc text target``: the text (a string, a raw string, ``(@doc g)``, a
        variable) documents the target, an expression written after it on the same line
        or, Julia's parser allows it for @doc alone, on the next line. A string text is a
        docstring; the target is documented: a definition, a short-form method, or a
        name or signature that defines nothing (kind ``signature``)."""
        written = [child for child in arguments.named_children if "comment" not in child.type]
        if not written:
            return
        text = written[0]
        if len(written) >= 2:
            target = written[1]
        else:
            call = arguments.parent
            target = None if call is None else call.next_named_sibling
            if target is None or ts.first_line(target) != ts.last_line(text) + 1:
                return   # @doc f, @doc "…" alone: a look-up, nothing documented
        if text.type == "string_literal":
            self.doc_texts.add(text.id)
        elif text.type == "prefixed_string_literal":
            # raw"""…""": its bytes as written (no string_literal node is selected inside)
            self.docstring(text, prefixed_string_value(text))
        if target.type in DEFINITIONS:
            self.doc_targets.add(target.id)
        elif target.type == "assignment":
            # @doc "…" f(x) = …: a short-form method, where @doc puts it
            self.top_level.add(target.id)
            self.doc_targets.add(target.id)
        else:
            name = target
            while name.type in SIGNATURE_WRAPPERS and name.named_children:
                name = name.named_children[0]
            if name.type == "call_expression" and name.named_children:
                name = name.named_children[0]
            if name.type in ("identifier", "field_expression", "parametrized_type_expression"):
                self.add_definition(dotted(name).split("{")[0], "signature", ts.first_line(target), 0,
                                    documented=True)

    def documented_binding(self, target) -> None:
        """A docstring above ``const a = b``, a plain binding ``a = b`` or a bare name
        ``a`` documents that name, as ``@doc`` does (kind ``signature``): Julia's way to
        document a name bound to another function or one whose methods a macro defines
        (``@recipe function a(…)``)."""
        if target is None:
            return
        if target.type == "const_statement":
            target = next((c for c in target.named_children if c.type == "assignment"), None)
            if target is None:
                return
        if target.type == "assignment":
            target = target.named_children[0] if target.named_children else None
            if target is None:
                return
        if target.type == "identifier":
            self.add_definition(ts.text(target), "signature", ts.first_line(target), 0, documented=True)

    def binding(self, node, parent) -> str:
        if parent is not None and parent.type in ("assignment", "named_argument", "pair_expression") \
                and parent.named_children and parent.named_children[-1].id == node.id:
            return dotted(parent.named_children[0])
        return ""

    def imports(self, node, ancestors) -> None:
        kind = "using" if node.type == "using_statement" else "import"
        guard = "none"
        for ancestor in ancestors:
            if ancestor.type == "try_statement":
                guard = "try"
                break
            if ancestor.type in ("if_statement", "macrocall_expression"):
                guard = "conditional"
        line = ts.first_line(node)
        for item in node.named_children:
            if item.type == "import_alias":
                parts = item.named_children
                module = dotted(parts[0])
                if len(parts) > 1:
                    self.aliases[ts.text(parts[-1])] = module
            elif item.type == "selected_import":
                parts = item.named_children
                module = dotted(parts[0])
                for chosen in parts[1:]:
                    local = dotted(chosen)
                    self.aliases[local.split(" as ")[-1]] = f"{module}.{local}"
            else:
                module = dotted(item)
            self.facts.imports.append(ts.ImportFact(module, line, guard, kind))

    def definition(self, node, kind: str) -> None:
        name_node = None
        if kind == "function":
            signature = node.named_children[0] if node.named_children else None
            call = signature.named_children[0] if signature is not None and signature.named_children else None
            if call is not None and call.type in ("call_expression", "where_expression", "typed_expression"):
                call = call.named_children[0] if call.type != "call_expression" else call
            if call is not None and call.type == "call_expression" and call.named_children:
                name_node = call.named_children[0]
            elif call is not None:
                name_node = call
        else:
            for child in node.named_children:
                if child.type in ("identifier", "type_head", "macro_identifier"):
                    name_node = child
                    break
                if child.type == "signature" and child.named_children:
                    name_node = child.named_children[0]
                    if name_node.type == "call_expression" and name_node.named_children:
                        name_node = name_node.named_children[0]
                    break
        if name_node is None:
            return
        if name_node.type == "type_head" and name_node.named_children:
            name_node = name_node.named_children[0]
        name = dotted(name_node).split("{")[0].split("<:")[0]
        parameters = self.parameters(call) if kind == "function" and call is not None else ((), ())
        inputs = parameter_names(call) if kind == "function" and call is not None else ()
        self.add_definition(name, kind, ts.first_line(node), ts.last_line(node), node.id in self.doc_targets,
                            parameters, inputs)

    def add_definition(self, name: str, kind: str, line: int, end_line: int, documented: bool = False,
                       parameters: tuple[tuple[str, ...], tuple[str, ...]] = ((), ()),
                       inputs: tuple[str, ...] = ()) -> None:
        documented = documented or (line - 1) in self.docstring_lines
        public = not name.split(".")[-1].startswith("_")
        self.facts.definitions.append(DefinitionFact(name, kind, line, public, documented, end_line=end_line,
                                                     parameters=parameters[0], none_defaults=parameters[1],
                                                     inputs=inputs))

    def parameters(self, call) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """A method's parameters in call order, the keyword ones after a ``*`` (those after
        ``;``), and those whose default is the global generator (``rng =
        Random.default_rng()``: the unseeded fall-back when a call leaves them out, §0.2.25);
        recorded for a method taking a generator (a parameter named like one, or one with
        that default) only."""
        if call.type != "call_expression":
            return (), ()
        arguments = next((c for c in call.named_children[1:] if c.type == "argument_list"), None)
        if arguments is None:
            return (), ()
        self.signatures.append((arguments.start_byte, arguments.end_byte))
        names: list[str] = []
        fallbacks: list[str] = []
        for child in arguments.children:
            if child.type == ";":
                names.append("*")
                continue
            default = None
            if child.type == "assignment" and len(child.named_children) >= 2:
                child, default = child.named_children[0], child.named_children[-1]
            if child.type == "typed_expression" and child.named_children:
                child = child.named_children[0]
            if child.type == "splat_expression" and child.named_children:
                names.append("*" + ts.text(child.named_children[0]))
                continue
            if child.type != "identifier":
                continue
            names.append(ts.text(child))
            if default is not None and self.is_global_generator(default):
                fallbacks.append(ts.text(child))
        if not fallbacks and not any(GENERATOR_NAME.search(name) for name in names):
            return (), ()   # only a method taking a generator is followed to its calls
        return tuple(names), tuple(fallbacks)

    def is_global_generator(self, node) -> bool:
        """``Random.default_rng()``, ``GLOBAL_RNG``, ``TaskLocalRNG()``."""
        if node.type == "call_expression" and node.named_children:
            node = node.named_children[0]
        return node.type in ("identifier", "field_expression") and self.resolve(dotted(node)) in GLOBAL_GENERATORS

    def assignment(self, node) -> None:
        children = node.named_children
        if len(children) < 2:
            return
        target, value = children[0], children[-1]
        line = ts.first_line(node)
        if node.id in self.top_level:
            # a short-form method: f(x) = …, also with a return type or where clause
            # (f(x)::T = …, f(x::T) where T<:Real = …, f(x::T)::T where {T} = …)
            call = target
            while call.type in ("where_expression", "typed_expression") and call.named_children:
                call = call.named_children[0]
            if call.type == "call_expression" and call.named_children:
                self.add_definition(dotted(call.named_children[0]), "function", line, ts.last_line(node),
                                    node.id in self.doc_targets, self.parameters(call), parameter_names(call))
                return
        if target.type == "open_tuple" and value.type == "open_tuple":
            # ``s, rng = sg.s, sg.rng``: a generator unpacked from a struct's field
            for name, element in zip(target.named_children, value.named_children, strict=False):
                field = self.field_generator(element) if name.type == "identifier" else None
                if field is not None:
                    self.bind_generator(node, ts.text(name), "field:" + field)
            return
        if target.type != "identifier":
            return
        if value.type == "field_expression" and (field := self.field_generator(value)) is not None:
            # ``rng = sg.rng``: the generator the struct's field holds
            self.bind_generator(node, ts.text(target), "field:" + field)
            return
        if value.type == "string_literal":
            self.facts.assignments.append(AssignmentFact(ts.text(target), line, string_value(value)))
        elif value.type == "call_expression" and value.named_children:
            constructor = self.resolve(dotted(value.named_children[0]))
            if constructor in GLOBAL_GENERATORS:
                self.bind_generator(node, ts.text(target), self.global_binding(node))
            elif constructor in ENGINES or constructor.split(".")[-1] in ENGINES:
                # ``rng = MersenneTwister(1)``: the engine is the variable's generator
                self.bind_generator(node, ts.text(target), "engine")
                self.engine_names[value.id] = ts.text(target)
        elif value.type in ("identifier", "field_expression") and self.resolve(dotted(value)) in GLOBAL_GENERATORS:
            self.bind_generator(node, ts.text(target), self.global_binding(node))

    def global_binding(self, node) -> str:
        """How a name bound to the global generator is bound: "default" for a method's
        parameter default (the global generator only where a call leaves it out), "global"
        otherwise."""
        inside = any(start <= node.start_byte < end for start, end in self.signatures)
        return "default" if inside else "global"

    def bind_generator(self, node, name: str, kind: str) -> None:
        end = len(self.data)
        for ancestor in reversed(ts.path_to(self.root, node)):
            if ancestor.type == "function_definition" or (
                    ancestor.type == "assignment" and ancestor.named_children
                    and ancestor.named_children[0].type == "call_expression"):
                end = ancestor.end_byte
                break
        self.generators.setdefault(name, []).append((node.start_byte, end, kind))

    def bound_generator(self, name: str, position: int) -> str | None:
        """What ``name`` is bound to at ``position`` (a kind of ``generators``), or None."""
        found = None
        for start, end, kind in self.generators.get(name, ()):
            if start <= position <= end and (found is None or start >= found[0]):
                found = (start, kind)
        return None if found is None else found[1]

    def call(self, node) -> None:
        children = node.named_children
        if not children:
            return
        written = dotted(children[0])
        name = self.resolve(written)
        line = ts.first_line(node)
        if written == "Pkg.add":
            self.pkg_add_end = node.end_byte   # the string literals up to here name packages
        positional, named = [], []
        arguments = next((c for c in children[1:] if c.type in ("argument_list", "tuple_expression")), None)
        if arguments is not None:
            for argument in arguments.named_children:
                if argument.type in ("assignment", "named_argument") and len(argument.named_children) >= 2:
                    named.append((ts.text(argument.named_children[0]), argument.named_children[-1]))
                elif argument.type == "keyword_parameters" or "comment" in argument.type:
                    continue
                else:
                    positional.append(argument)
        facts = self.facts
        facts.calls.append(CallFact(name, written, line, tuple(literal(v) for v in positional),
                                    tuple((k, literal(v)) for k, v in named)))
        short = name.split(".")[-1]
        if name in SEEDING or (short == "seed!" and name.startswith("Random")):
            generator = "Random.GLOBAL"
            seed = positional[0] if positional else None
            if len(positional) >= 2:
                generator, seed = self.generator_of(positional[0]) or ts.text(positional[0]), positional[1]
            source = self.seed_source(seed)
            facts.randoms.append(RandomFact(line, name, generator, "seed", source in ("literal", "argument"), source))
        elif name in ENGINES or short in ENGINES:
            seed = positional[0] if positional else None
            source = "entropy" if (name in ENTROPY_ENGINES or seed is None) else self.seed_source(seed)
            facts.randoms.append(RandomFact(line, name, self.engine_names.get(node.id, short), "engine",
                                            source in ("literal", "argument"), source))
        elif name in DRAWS or short in DRAWS:
            first = positional[0] if positional else None
            generator = (self.generator_of(first) if first is not None else None) or "Random.GLOBAL"
            facts.randoms.append(RandomFact(line, name, generator, "draw"))
        else:
            for value in [*positional, *(v for _, v in named)]:
                generator = self.handed_on(value)
                if generator is not None:
                    facts.randoms.append(RandomFact(line, name, generator, "pass"))
        if name in ("include", "Base.include") and positional and positional[-1].type == "string_literal":
            facts.imports.append(ts.ImportFact(string_value(positional[-1]), line, "none", "include"))
        if short in ("ArgParseSettings", "parse_args"):
            facts.cli_args.append(CliArgFact(line, "ArgParse"))
        if name == "open" or name in READS or name in WRITES:
            first = positional[0] if positional else None
            path = string_value(first) if first is not None and first.type == "string_literal" else ""
            if name == "open":
                mode_literal = literal(positional[1]) if len(positional) > 1 else "r"
                mode = "unknown" if not isinstance(mode_literal, str) else \
                    "readwrite" if "+" in mode_literal else \
                    "write" if mode_literal[:1] in ("w", "a") else "read"
                keywords = {k: literal(v) for k, v in named}
                if keywords.get("write") is True or keywords.get("append") is True:
                    mode = "write"
            else:
                mode = "read" if name in READS else "write"
            facts.file_io.append(FileIOFact(line, mode, path, name))

    def generator_of(self, node) -> str | None:
        """The generator a draw's or a reseed's first argument names: ``Random.GLOBAL`` for
        the global one (``Random.default_rng()``, a variable bound to it), an engine
        variable, a parameter named like a generator (``rng``, passed in) or an element of a
        collection so named (``rngs[j]``), the text of an engine built in place (``rand(MersenneTwister(1), 3)``, also its engine fact's
        generator); None when the argument is no generator (``rand(1:6)``)."""
        if node.type == "identifier":
            text = ts.text(node)
            bound = self.bound_generator(text, node.start_byte)
            if bound in ("global", "default"):
                return "Random.GLOBAL"
            if bound is not None and bound.startswith("field:"):
                return bound[len("field:"):]
            if bound == "engine" or GENERATOR_NAME.search(text):
                return text
            return None
        if node.type in ("field_expression",) and self.resolve(dotted(node)) in GLOBAL_GENERATORS:
            return "Random.GLOBAL"
        if node.type == "field_expression":
            return self.field_generator(node)
        if node.type == "index_expression" and node.named_children and node.named_children[0].type == "identifier":
            # ``rand(rngs[j], …)``: one of a collection of generators
            collection = ts.text(node.named_children[0])
            if GENERATOR_NAME.search(collection) or self.bound_generator(collection, node.start_byte) == "engine":
                return ts.text(node)[:80]
        if node.type == "call_expression" and node.named_children:
            constructor = self.resolve(dotted(node.named_children[0]))
            if constructor in GLOBAL_GENERATORS:
                return "Random.GLOBAL"
            if constructor in ENGINES or constructor.split(".")[-1] in ENGINES:
                text = ts.text(node)[:80]
                self.engine_names[node.id] = text
                return text
        return None

    def handed_on(self, node) -> str | None:
        """The generator an argument of a call that is no draw hands on, when the callee
        draws from what it holds: a struct's field (``autoregressive!(s, d, sg.rng)``) or a
        variable bound to the global generator in the body (not a parameter's default:
        a call may pass that parameter)."""
        if node.type == "field_expression":
            generator = self.generator_of(node)
            return generator if generator is not None and generator != "Random.GLOBAL" else None
        if node.type == "identifier":
            bound = self.bound_generator(ts.text(node), node.start_byte)
            if bound == "global":
                return "Random.GLOBAL"
            if bound is not None and bound.startswith("field:"):
                return bound[len("field:"):]
        return None

    def field_generator(self, node) -> str | None:
        """A generator held in a struct's field (``sg.rng``, a field named like one):
        ``Type.field`` when the enclosing method annotates the struct's type
        (``function (sg::SurrogateGenerator{<:AAFT})()``), where the struct's
        constructions say what it holds, else the field as written."""
        if node.type != "field_expression" or len(node.named_children) < 2:
            return None
        receiver, field = node.named_children[0], node.named_children[-1]
        if field.type != "identifier" or not GENERATOR_NAME.search(ts.text(field)):
            return None
        if self.resolve(dotted(node)) in GLOBAL_GENERATORS:
            return None
        if receiver.type == "identifier":
            struct = self.annotated_type(node, ts.text(receiver))
            if struct:
                return f"{struct}.{ts.text(field)}"
        return dotted(node)[:80]

    def annotated_type(self, node, name: str) -> str:
        """The type the innermost enclosing method annotates its parameter ``name`` with
        (``sg::SurrogateGenerator{<:AAFT}`` -> ``SurrogateGenerator``), or ""."""
        for ancestor in reversed(ts.path_to(self.root, node)):
            signature = None
            if ancestor.type == "function_definition" and ancestor.named_children:
                signature = ancestor.named_children[0]
            elif ancestor.type == "assignment" and ancestor.named_children \
                    and ancestor.named_children[0].type in ("call_expression", "where_expression", "typed_expression"):
                signature = ancestor.named_children[0]
            if signature is None:
                continue
            pending = [signature]   # a signature is small: its nodes, depth first
            while pending:
                typed = pending.pop()
                if typed.type == "typed_expression" and len(typed.named_children) >= 2 \
                        and typed.named_children[0].type == "identifier" and ts.text(typed.named_children[0]) == name:
                    kind = typed.named_children[-1]
                    if kind.type == "parametrized_type_expression" and kind.named_children:
                        kind = kind.named_children[0]
                    return dotted(kind).split("{")[0].rsplit(".", 1)[-1]
                if typed.type != "block":
                    pending.extend(reversed(typed.named_children))
            return ""
        return ""

    @staticmethod
    def seed_source(seed) -> str:
        if seed is None:
            return "none"
        text = ts.text(seed)
        if any(marker in text for marker in TIME_SOURCES):
            return "time"
        return "argument" if isinstance(literal(seed), Expr) else "literal"
