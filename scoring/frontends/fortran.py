"""Fortran frontend: tree-sitter-fortran from tree-sitter-language-pack.

The grammar reads free form. Fixed-form sources (``.f``, ``.for``, ``.F``, ``.f77``) are
first rewritten to free form line for line (column-1 comments become ``!`` comments,
column-6 continuations become ``&`` continuations, text past column 72 is dropped), so
every fact keeps its line. Fortran names are case-insensitive: names are lower-cased.
Fortran has no exceptions, so no ``HandlerFact`` is emitted.

Public procedures (D6): a module's public/private statements decide, and a procedure
bound to a public derived type (``type, public :: json_core … contains … procedure ::
load => json_load``, ``generic, public :: add => add_int, add_real``) is public too, as
object-oriented Fortran libraries expose their API through type-bound procedures. The
bindings are read from the module's text (the grammar cannot parse ``procedure ::
MACRO(name)`` bindings, which preprocessor macros expand): a binding is public when it
says so or its type's ``contains`` section is not ``private``, and every specific
binding of a public generic is public. A procedure is documented by a FORD comment
block: a ``!>``/``!!`` block ending right above it, or a ``!>`` block (with the plain
``!`` lines that continue it) followed by blank lines only, which FORD attaches to the
next procedure.

Traversal: one parse, then one tree-sitter query (``SELECTED``) that hands Python only
the nodes facts come from (comments, strings, program units, use/include, visibility
statements, assignments, calls, open, stop), in document order, plus marks for the context a
fact depends on; identifiers, operators and punctuation stay in C
(``scoring.frontends._common.selected``).
"""

from __future__ import annotations

import re
from dataclasses import replace

from scoring.facts import (
    AssertFact,
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

LANGUAGE = "fortran"
VERSION = "1.1.1"   # 1.0.1: facts redacted (_common.redact_facts); 1.0.2: FileFacts.blank_lines (D4); 1.0.3 (S1): the end line of a subroutine or function; 1.0.4 (S3): failing stop statements as AssertFacts; 1.0.5: credential facts (C3 2.2.0) with 1.0.4's stop/error stop asserts; 1.1.1: with 1.1.0's type-bound API and FORD blocks (D6)
FIXED_FORM_SUFFIXES = (".f", ".for", ".f77", ".ftn")

DEFINITIONS = {"subroutine": "subroutine", "function": "function", "module": "module",
               "program": "program", "submodule": "submodule"}
STATEMENT_OF = {"subroutine": "subroutine_statement", "function": "function_statement",
                "module": "module_statement", "program": "program_statement",
                "submodule": "submodule_statement"}
# definitions whose body runs when called: their last line is a fact (S1 follows seeds into calls)
ROUTINES = {"subroutine", "function"}
CLI = {"get_command_argument", "command_argument_count", "getarg", "iargc", "get_command"}
DRAWS = {"random_number", "rand", "ran", "irand"}
SPECIAL_CALLS = {"random_seed", "random_init", "srand"} | DRAWS | CLI   # what call() looks at beyond the CallFact
TIME_SOURCES = re.compile(r"system_clock|date_and_time|\btime\s*\(|cpu_time", re.IGNORECASE)


def extract(data: bytes, path: str) -> FileFacts:
    if path.lower().endswith(FIXED_FORM_SUFFIXES):
        data = fixed_to_free(data)   # line for line: the blank lines stay where they were
    facts = ts.with_blank_lines(_Walker(data).run(), data)
    return with_script_credentials(facts, data.decode("utf-8", "replace"), LANGUAGE)


_TYPE_START = re.compile(r"type\s*(?:,\s*(?P<attributes>[^:]*?)\s*)?::\s*(?P<name>\w+)|type\s+(?P<bare>\w+)$")
_TYPE_END = re.compile(r"end\s*type\b")
_BINDING = re.compile(r"(?P<kind>procedure|generic)\s*(?P<interface>\(\s*\w*\s*\))?\s*"
                      r"(?:,\s*(?P<attributes>[^:]*?)\s*)?::\s*(?P<names>.+)")
_NAME = re.compile(r"[a-z_]\w*")


def _names(text: str) -> list[str]:
    """The procedure names of a binding list: ``a, b``, a macro's argument
    (``maybewrap(json_add)`` names json_add)."""
    names = []
    for item in text.split(","):
        item = item.strip()
        if "(" in item:
            item = item[item.index("(") + 1:].rstrip(") ")
        if _NAME.fullmatch(item):
            names.append(item)
    return names


def _statements(text: bytes):
    """The statements of Fortran source, lower-cased: comments and preprocessor lines
    dropped, ``&`` continuations joined."""
    pending = ""
    for raw in text.decode("utf-8", "replace").lower().split("\n"):
        line = raw.strip()
        if line.startswith("#"):
            continue
        bang = line.find("!")
        if bang >= 0 and "'" not in line[:bang] and '"' not in line[:bang]:
            line = line[:bang].rstrip()
        if line.startswith("&"):
            line = line[1:].lstrip()
        if line.endswith("&"):
            pending += line[:-1] + " "
            continue
        statement = (pending + line).strip()
        pending = ""
        if statement:
            yield statement


def fixed_to_free(data: bytes) -> bytes:
    lines = data.split(b"\n")
    out: list[bytes] = []
    last_code = -1
    for raw in lines:
        line = raw.rstrip(b"\r")
        if line[:1] in (b"c", b"C", b"*", b"!", b"d", b"D"):
            out.append(b"!" + line[1:])
            continue
        code = line[:72]
        if len(code) > 5 and code[5:6] not in (b" ", b"0", b"") and not code[:5].strip() and last_code >= 0:
            out[last_code] = out[last_code] + b" &"
            code = b"     &" + code[6:]
        if code.strip():
            last_code = len(out)
        out.append(code)
    return b"\n".join(out)


string_value = ts.quote_doubled_string


INTEGER = re.compile(r"[+-]?\d+")


def literal(node):
    kind = node.type
    if kind == "string_literal":
        return string_value(node)
    text = ts.text(node)
    if kind == "number_literal":
        number = text.split("_")[0]
        try:
            if INTEGER.fullmatch(number):
                return int(number)
            return literal_or_expr(float(number.lower().replace("d", "e")), text)
        except ValueError:
            return Expr(text[:80])
    if kind == "boolean_literal":
        return text.lower().startswith(".true")
    if kind == "unary_expression" and text.startswith("-"):
        value = ts.negated(literal(node.named_children[-1]))
        if value is not None:
            return value
    return Expr(text[:80])


# The nodes the walk reads facts from; the rest of the tree (names, operators, most
# expressions) stays in C. @bindable marks a string an assignment, an initialised
# declarator or a keyword argument binds, so that no other string's parent has to be
# looked up (Node.parent descends from the root, scanning siblings: quadratic in a long
# data statement). An include's file name is a ``filename`` token, not a string.
SELECTED = """
[(comment) (string_literal) (subroutine) (function) (module) (program) (submodule) (use_statement)
 (include_statement) (preproc_include) (private_statement) (public_statement) (assignment_statement)
 (init_declarator) (subroutine_call) (call_expression) (open_statement) (stop_statement)] @node
(assignment_statement (string_literal) @bindable)
(init_declarator (string_literal) @bindable)
(keyword_argument (string_literal) @bindable)
"""


class _Walker:
    """One parse, one query (``SELECTED``) over the tree; each selected node, in
    document order, goes to ``visit``. A node's ancestors are looked up
    (``_common.path_to``) only for the facts that depend on them: a definition's module
    or program, an import's guard, a private/public statement's module."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.facts = ts.Collector()
        # module name -> (private by default, names made public, names made private)
        self.visibility: dict[str, tuple[bool, set[str], set[str]]] = {}
        self.owner_of: dict[int, str] = {}     # definition index -> enclosing module
        self.module_spans: list[tuple[str, int, int]] = []   # (module, start byte, end byte)
        self._blank: set[int] | None = None
        self.root = None
        self.bindable: set[int] = set()        # ids of strings an assignment, declarator or keyword binds
        self.failing_stops: list[AssertFact] = []   # S3: `error stop`, `stop <non-zero>`

    def run(self) -> FileFacts:
        tree = self.facts.parse(self.data, LANGUAGE)
        self.root = tree.root_node
        nodes, marks = ts.selected(tree, ts.query(LANGUAGE, SELECTED))
        self.bindable = marks.get("bindable", set())
        for node in nodes:
            self.visit(node)
        facts = self.facts.finish(LANGUAGE, "fortran", VERSION, self.data, definitions=self.resolved_definitions())
        return replace(facts, asserts=tuple(self.failing_stops)) if self.failing_stops else facts

    def resolved_definitions(self) -> list[DefinitionFact]:
        trailing_docs = {c.line_start for c in self.facts.comments if c.doc and c.text.startswith("!!")}
        bound = {module: self.type_bound_public(module, start, end) for module, start, end in self.module_spans
                 if b"contains" in self.data[start:end].lower()}
        resolved = []
        for index, definition in enumerate(self.facts.definitions):
            public = definition.public
            module = self.owner_of.get(index)
            if module is not None and module in self.visibility:
                private_default, made_public, made_private = self.visibility[module]
                public = definition.name in made_public or (not private_default and definition.name not in made_private)
            if module is not None and not public and definition.name in bound.get(module, ()):
                public = True
            documented = definition.documented or (definition.line + 1) in trailing_docs
            resolved.append(DefinitionFact(definition.name, definition.kind, definition.line, public, documented,
                                           end_line=definition.end_line))
        return resolved

    def visit(self, node) -> None:
        facts = self.facts
        kind = node.type
        if kind == "comment":
            body = ts.text(node)
            facts.comment(node, self.data, doc=body.startswith(("!>", "!!", "!<")))
        elif kind == "string_literal":
            binding = self.binding(node, node.parent) if node.id in self.bindable else ""
            facts.string(string_value(node), node, binding=binding)
        elif kind in DEFINITIONS:
            self.definition(node, self.ancestors(node))
        elif kind == "use_statement":
            module = next((c for c in node.named_children if c.type in ("module_name", "name", "identifier")), None)
            if module is not None:
                facts.imports.append(ImportFact(ts.text(module).lower(), ts.first_line(node),
                                                self.guard(self.ancestors(node)), "use"))
        elif kind in ("include_statement", "preproc_include"):
            target = node.child_by_field_name("path")
            if target is not None:
                written = ts.text(target)
                facts.imports.append(ImportFact(written.strip("'\"<>"), ts.first_line(node),
                                                self.guard(self.ancestors(node)), "include"))
        elif kind in ("private_statement", "public_statement"):
            self.visibility_statement(node, self.ancestors(node))
        elif kind == "assignment_statement":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and right is not None and right.type == "string_literal":
                facts.assignments.append(AssignmentFact(ts.text(left).lower(), ts.first_line(node), string_value(right)))
        elif kind == "init_declarator":
            names = node.named_children
            if len(names) >= 2 and names[-1].type == "string_literal":
                facts.assignments.append(AssignmentFact(ts.text(names[0]).lower(), ts.first_line(node),
                                                        string_value(names[-1])))
        elif kind in ("subroutine_call", "call_expression"):
            self.call(node)
        elif kind == "open_statement":
            self.open(node)
        elif kind == "stop_statement":
            self.stop(node)

    def stop(self, node) -> None:
        """``error stop`` and ``stop <code>`` with a code other than 0 end the program
        with a failing exit status: a test program's assertion (S3, an ``AssertFact``)."""
        words = [c.type for c in node.children]
        code = next((c for c in node.named_children if c.type in ("number_literal", "string_literal")), None)
        if "error" in words or (code is not None and code.type == "number_literal" and ts.text(code).strip("+") != "0"):
            self.failing_stops.append(AssertFact(ts.first_line(node)))

    def ancestors(self, node) -> list:
        return ts.path_to(self.root, node)

    @staticmethod
    def guard(ancestors) -> str:
        return "conditional" if any(a.type.startswith("preproc_if") for a in ancestors) else "none"

    @staticmethod
    def binding(node, parent) -> str:
        if parent is None:
            return ""
        if parent.type in ("assignment_statement", "init_declarator", "keyword_argument"):
            first = parent.named_children[0] if parent.named_children else None
            if first is not None and first.id != node.id:
                return ts.text(first).lower()
        return ""

    def definition(self, node, ancestors) -> None:
        statement = next((c for c in node.named_children if c.type == STATEMENT_OF[node.type]), None)
        name = None if statement is None else statement.child_by_field_name("name")
        if name is None and statement is not None:
            name = next((c for c in statement.named_children if c.type in ("name", "identifier")), None)
        if name is None:
            return
        line = ts.first_line(node)
        documented = self.facts.doc_block_ending_at(line) is not None or self.ford_block_above(line)
        module = next((self.module_name(a) for a in reversed(ancestors) if a.type == "module"), None)
        if node.type == "module":
            self.module_spans.append((ts.text(name).lower(), node.start_byte, node.end_byte))
        in_program = any(a.type == "program" for a in ancestors)
        self.facts.definitions.append(DefinitionFact(ts.text(name).lower(), DEFINITIONS[node.type], line,
                                                     not in_program, documented,
                                                     end_line=ts.last_line(node) if node.type in ROUTINES else 0))
        if module is not None:
            self.owner_of[len(self.facts.definitions) - 1] = module

    def ford_block_above(self, line: int) -> bool:
        """A FORD ``!>`` block (with the plain ``!`` lines that continue it) followed by
        blank lines only: FORD attaches it to the procedure below."""
        comments = self.facts.comments
        index = len(comments) - 1
        while index >= 0 and comments[index].line_end >= line:
            index -= 1
        if index < 0:
            return False
        block = comments[index]
        if self._blank is None:
            self._blank = set(ts.blank_line_numbers(self.data.decode("utf-8", "replace")))
        if any(number not in self._blank for number in range(block.line_end + 1, line)):
            return False
        if not block.doc and index > 0 and comments[index - 1].line_end == block.line_start - 1:
            block = comments[index - 1]   # the plain lines continue the block above them
        return block.doc and block.text.startswith("!>")

    def type_bound_public(self, module: str, start: int, end: int) -> set[str]:
        """The procedures of ``module`` bound to a public derived type by a public binding
        (module docstring), read from the module's text."""
        private_default, made_public, made_private = self.visibility.get(module, (False, set(), set()))
        found: set[str] = set()
        type_name, type_public, in_bindings, bindings_private = "", False, False, False
        targets: dict[str, list[str]] = {}     # binding name -> the procedures it names
        public_bindings: set[str] = set()
        for statement in _statements(self.data[start:end]):
            head = _TYPE_START.match(statement)
            if head is not None and not type_name:
                type_name = head.group("name") or head.group("bare")
                attributes = head.group("attributes") or ""
                if "private" in attributes:
                    type_public = False
                elif "public" in attributes:
                    type_public = True
                else:
                    type_public = type_name in made_public or (not private_default and type_name not in made_private)
                in_bindings, bindings_private, targets, public_bindings = False, False, {}, set()
                continue
            if not type_name:
                continue
            if _TYPE_END.match(statement):
                if type_public:
                    for binding in public_bindings:
                        for target in targets.get(binding, [binding]):
                            found.update(targets.get(target, [target]))
                type_name = ""
                continue
            if statement == "contains":
                in_bindings = True
            elif in_bindings and statement in ("private", "public"):
                bindings_private = statement == "private"
            elif in_bindings and (binding := _BINDING.match(statement)) is not None:
                attributes = binding.group("attributes") or ""
                public = "public" in attributes or ("private" not in attributes and not bindings_private)
                names = _names(binding.group("names"))
                if binding.group("kind") == "generic":
                    generic, _, specifics = binding.group("names").partition("=>")
                    names = [generic.strip()]
                    targets.setdefault(generic.strip(), []).extend(_names(specifics))
                elif binding.group("interface") is None:
                    for item in binding.group("names").split(","):
                        name, _, target = item.partition("=>")
                        for bound_name in _names(name):
                            targets.setdefault(bound_name, []).extend(_names(target) if target else [bound_name])
                else:
                    continue   # a deferred binding names an interface, not a procedure
                if public:
                    public_bindings.update(names if binding.group("kind") == "generic" else
                                           [n for item in binding.group("names").split(",")
                                            for n in _names(item.partition("=>")[0])])
        return found

    @staticmethod
    def module_name(node) -> str:
        statement = next((c for c in node.named_children if c.type == "module_statement"), None)
        name = None if statement is None else next((c for c in statement.named_children if c.type == "name"), None)
        return "" if name is None else ts.text(name).lower()

    def visibility_statement(self, node, ancestors) -> None:
        module_node = next((a for a in reversed(ancestors) if a.type == "module"), None)
        if module_node is None:
            return
        module = self.module_name(module_node)
        private_default, made_public, made_private = self.visibility.setdefault(module, (False, set(), set()))
        names = {ts.text(c).lower() for c in node.named_children if c.type == "identifier"}
        if node.type == "private_statement":
            if names:
                made_private.update(names)
            else:
                self.visibility[module] = (True, made_public, made_private)
        else:
            made_public.update(names)

    def call(self, node) -> None:
        facts = self.facts
        function = node.child_by_field_name("subroutine") if node.type == "subroutine_call" else None
        if function is None:
            function = node.named_children[0] if node.named_children else None
        if function is None:
            return
        written = ts.text(function)
        name = written.lower()
        line = ts.first_line(node)
        arguments = next((c for c in node.named_children if c.type == "argument_list"), None)
        positional, named = [], []
        for argument in ([] if arguments is None else arguments.named_children):
            if argument.type == "keyword_argument":
                key, value = argument.child_by_field_name("name"), argument.child_by_field_name("value")
                if key is not None and value is not None:
                    named.append((ts.text(key).lower(), value))
            elif argument.type != "comment":
                positional.append(argument)
        facts.calls.append(CallFact(name, written, line, tuple([literal(v) for v in positional]),
                                    tuple([(k, literal(v)) for k, v in named])))
        if name not in SPECIAL_CALLS:
            return   # most calls: nothing more than the CallFact
        keywords = dict(named)
        if name == "random_seed":
            if "put" in keywords:
                seed = keywords["put"]
                source = "time" if TIME_SOURCES.search(ts.text(seed)) else \
                    "argument" if isinstance(literal(seed), Expr) else "literal"
                facts.randoms.append(RandomFact(line, name, "fortran.random_number", "seed", source != "time", source))
            elif not keywords and not positional:
                # without put= the processor picks the state (gfortran: a fresh one per run)
                facts.randoms.append(RandomFact(line, name, "fortran.random_number", "seed", False, "none"))
        elif name == "random_init":
            repeatable = keywords.get("repeatable", positional[0] if positional else None)
            reproducible = repeatable is not None and literal(repeatable) is True
            facts.randoms.append(RandomFact(line, name, "fortran.random_number", "seed", reproducible,
                                            "literal" if reproducible else "entropy"))
        elif name == "srand":
            seed = positional[0] if positional else None
            source = "none" if seed is None else "time" if TIME_SOURCES.search(ts.text(seed)) else \
                "argument" if isinstance(literal(seed), Expr) else "literal"
            facts.randoms.append(RandomFact(line, name, "fortran.rand", "seed", source in ("literal", "argument"), source))
        elif name in DRAWS and (node.type == "subroutine_call" or name != "random_number"):
            generator = "fortran.random_number" if name == "random_number" else "fortran.rand"
            facts.randoms.append(RandomFact(line, name, generator, "draw"))
        if name in CLI:
            facts.cli_args.append(CliArgFact(line, "get_command_argument"))

    def open(self, node) -> None:
        options = {}
        for argument in node.named_children:
            if argument.type == "keyword_argument":
                key, value = argument.child_by_field_name("name"), argument.child_by_field_name("value")
                if key is not None and value is not None:
                    options[ts.text(key).lower()] = literal(value)
        action = options.get("action")
        status = options.get("status")
        action = action.lower() if isinstance(action, str) else ""
        status = status.lower() if isinstance(status, str) else ""
        if action in ("read", "write", "readwrite"):
            mode = action
        elif status == "old":
            mode = "read"
        elif status in ("new", "replace"):
            mode = "write"
        else:
            mode = "unknown"
        path = options.get("file")
        self.facts.file_io.append(FileIOFact(ts.first_line(node), mode, path if isinstance(path, str) else "", "open"))
