"""Nextflow frontend: ``.nf`` scripts and ``nextflow.config``, with the Groovy grammar.

tree-sitter-groovy (as bundled by tree-sitter-language-pack) is a loose command grammar:
a ``name { ... }`` is a ``block`` whose first ``unit`` is its name, and each statement
is a ``command`` (``end_command`` when it closes a block) whose first ``unit`` is the
directive, setting or callee. Nextflow's own structure is read from that shape:
``process X { container '...' }`` gives ``DirectiveFact("container", ..., scope="X")``;
in a config file every setting is a directive named by its key, scoped by the dotted
path of its enclosing blocks (``process.withName:FOO``, ``profiles.docker.docker``).

Traversal: one parse, then one tree-sitter query (``SELECTED``) that hands Python only
the nodes facts come from (comments, strings, blocks, statements, calls), in document
order, plus marks for the context a fact depends on; identifiers, operators and
punctuation stay in C (``scoring.frontends._common.selected``).

The grammar knows no triple-quoted strings: it reads three double quotes as an empty
string and an opening quote, so a process script is cut into pieces, and a ``//`` inside a quoted
word of the script (``sed -e "s/version //g"``, ``wget "https://…"``) starts a comment
that swallows the closing quotes and, from there, the whole file. Before the parse,
every triple-quoted literal (double or single quotes) outside comments and other strings is
masked (:func:`literal_spans`): a one-quote literal of the same bytes and lines whose
inside is blank. Its value is read from the file's own bytes, and the ``params.x`` a
double-quoted script interpolates (``${params.x}``, ``$params.x``) are reported as the walk
reports them elsewhere.

A file that still does not parse (the grammar knows no ternaries or multiple
assignment) is also read line by line (§0.1.9: an unparseable file is scanned with a
fallback, never silently empty): the ``process``/``workflow`` definitions, process
directives (``container``, ``conda``, ``label``, ``errorStrategy``…), ``input:``/
``output:`` lines and script bodies the walk missed are added, each at its line.

Process scripts in another language (METRICS.md §0.3: workflow code is source): a
triple-quoted string whose first line is an ``Rscript`` or ``python`` shebang is read by
the R or Python frontend into ``FileFacts.embedded`` (one ``FileFacts`` per language, the
file's own lines, the script's common indentation stripped as Nextflow does), so a ``sample()`` or ``set.seed()`` in a process script is seen. The
strings are found in the bytes, not in the Groovy tree, whose strings end at the first
inner quote. Groovy's escapes ``\\\\`` and ``\\$`` are undone and each interpolation
(``${…}``, ``$name.attr``; ``!{…}`` in a ``'''`` shell string) becomes the identifier
``NF_VAR``, so ``set.seed(${params.seed})`` reads as a seed from an argument. This
frontend embeds those frontends' facts: bump it with theirs.
"""

from __future__ import annotations

import re
import textwrap
from bisect import bisect_right
from dataclasses import dataclass, replace

from scoring.facts import (
    AssignmentFact,
    BlockFact,
    CallFact,
    CliArgFact,
    DefinitionFact,
    DirectiveFact,
    Expr,
    FileFacts,
    FileIOFact,
    ImportFact,
    literal_or_expr,
)
from scoring.frontends import _common as ts
from scoring.frontends import python as python_frontend
from scoring.frontends import r as r_frontend
from scoring.frontends._credentials import with_script_credentials

LANGUAGE = "nextflow"
VERSION = "1.1.10"   # 1.0.1: facts redacted (_common.redact_facts); 1.0.2: BlockFact, CliArgFact.assigned;; 1.0.7: with python 1.2.8 and r 1.1.7 (their credential facts in the embedded process scripts); 1.1.2: with r 1.1.9 and python 1.2.10 (R and Python process scripts); 1.1.3: with r 1.1.10 and python 1.2.11 (embedded process scripts); 1.1.4: with r 1.1.11 (R process scripts: function formals, set.seed seed expressions); 1.1.5: with r 1.2.1 (R process scripts: definition inputs); 1.1.6: with r 1.2.2 and python 1.2.14; 1.1.7: with python 1.2.15 (guarded seeds); 1.1.8: with python 1.2.16 and r 1.2.3 (with julia 1.3.2); 1.1.9: with python 1.2.17 and r 1.2.4 (embedded R: the "probe" guard); 1.1.10: with python 1.2.18 (joined write paths, star imports)
# 1.0.3: DirectiveFact("exec") where a process's exec: section starts; 1.0.4: FileFacts.blank_lines (D4);
# 1.0.5 (S1): the facts of R and Python process scripts (a shebang) in FileFacts.embedded, with r 1.1.5 and python 1.2.6; 1.0.6: with r 1.1.6 and python 1.2.7; 1.0.8: FileFacts.credentials (C3 2.2.0) with the embedded process scripts
# 1.1.0: triple-quoted literals masked before the parse and read whole; a line scan adds the definitions,
# directives and scripts a parse error lost; 1.1.1: both lines (embedded process scripts, credentials; masked literals, line scan)

PROCESS_DIRECTIVES = {
    "accelerator", "afterScript", "arch", "array", "beforeScript", "cache", "clusterOptions", "conda",
    "container", "containerOptions", "cpus", "debug", "disk", "echo", "errorStrategy", "executor", "ext",
    "fair", "label", "machineType", "maxErrors", "maxForks", "maxRetries", "memory", "module", "penv",
    "pod", "publishDir", "queue", "resourceLabels", "resourceLimits", "scratch", "secret", "shell",
    "spack", "stageInMode", "stageOutMode", "storeDir", "tag", "time",
}
SECTIONS = {"input", "output", "script", "shell", "exec", "when", "stub"}
SCRIPT_SECTIONS = {"script", "shell", "stub"}
READERS = {"Channel.fromPath", "Channel.fromFilePairs", "channel.fromPath", "channel.fromFilePairs",
           "file", "files", "Channel.value", "channel.of", "Channel.of", "fromPath", "fromFilePairs"}
ERROR_STRATEGY_ACTIONS = {"ignore": "pass", "terminate": "reraise", "finish": "reraise", "retry": "other"}
DEFINING_PREFIXES = {"process": "process", "workflow": "workflow", "def": "function"}


def extract(data: bytes, path: str) -> FileFacts:
    is_config = path.rsplit("/", 1)[-1].endswith(".config")
    facts = ts.with_blank_lines(_Walker(data, is_config=is_config).run(), data)
    facts = with_script_credentials(facts, data.decode("utf-8", "replace"), LANGUAGE)
    embedded = () if is_config else _embedded_scripts(data)
    return replace(facts, embedded=embedded) if embedded else facts


# a script's shebang line: the interpreter that runs it
_SHEBANG = re.compile(r"#!\s*\S*?(?:/env\s+)?(?:\S*/)?(?P<interpreter>Rscript|R|python[0-9.]*)\b")
_TRIPLE_QUOTES = re.compile(rb"\"\"\"|'''")
# Groovy interpolation in a GString: ${…} is read by _groovy_code, $name.attr here
_DOLLAR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
INTERPOLATED = "NF_VAR"


def _process_scripts(data: bytes) -> list[tuple[str, int, str]]:
    """``(language, first line, code)`` of every triple-quoted string whose first line
    is an R or Python shebang, its Groovy escapes undone and interpolations replaced."""
    found = []
    position = 0
    while True:
        opening = _TRIPLE_QUOTES.search(data, position)
        if opening is None:
            return found
        quote = opening.group(0)
        closing = data.find(quote, opening.end())
        if closing < 0:
            return found
        body = data[opening.end():closing].decode("utf-8", "replace")
        position = closing + 3
        first = body.lstrip("\n\r\t ").split("\n", 1)[0]
        shebang = _SHEBANG.match(first)
        if shebang is None:
            continue
        language = "r" if shebang.group("interpreter").startswith("R") else "python"
        line = data.count(b"\n", 0, opening.end()) + 1
        # Nextflow strips a script's common indentation before it runs it
        found.append((language, line, textwrap.dedent(_groovy_code(body, gstring=quote == b'"""'))))


def _groovy_code(body: str, gstring: bool) -> str:
    """The code a process script runs: ``\\\\`` and ``\\$`` unescaped, each interpolation
    (``${…}``, ``$name.attr`` in a GString; ``!{…}`` in a shell string) ``NF_VAR``, the
    newlines inside one kept so lines stay the file's."""
    out: list[str] = []
    index, size = 0, len(body)
    while index < size:
        char = body[index]
        if char == "\\" and index + 1 < size and body[index + 1] in "\\$\"'":
            out.append(body[index + 1])
            index += 2
            continue
        opener = "$" if gstring else "!"
        if char == opener and index + 1 < size and body[index + 1] == "{":
            depth, end = 0, index + 1
            while end < size:
                if body[end] == "{":
                    depth += 1
                elif body[end] == "}":
                    depth -= 1
                    if depth == 0:
                        break
                end += 1
            out.append(INTERPOLATED + "\n" * body.count("\n", index, end))
            index = end + 1
            continue
        if gstring and char == "$":
            name = _DOLLAR_NAME.match(body, index + 1)
            if name is not None:
                out.append(INTERPOLATED)
                index = name.end()
                continue
        out.append(char)
        index += 1
    return "".join(out)


def _embedded_scripts(data: bytes) -> tuple[FileFacts, ...]:
    """The R and Python process scripts' facts, one ``FileFacts`` per language with the
    file's lines (R: the scripts placed at their lines of an otherwise blank text; Python:
    each script parsed on its own)."""
    if b"#!" not in data:
        return ()
    scripts = _process_scripts(data)
    embedded = []
    r_scripts = [(line, code) for language, line, code in scripts if language == "r"]
    if r_scripts:
        parts, lines = [], 1
        for line, code in r_scripts:
            parts.append("\n" * (line - lines))
            parts.append(code)
            lines = line + code.count("\n")
        embedded.append(r_frontend.extract("".join(parts).encode("utf-8"), "process.R"))
    python_scripts = [(line - 1, code) for language, line, code in scripts if language == "python"]
    if python_scripts:
        embedded.append(python_frontend.extract_chunks(python_scripts))
    return tuple(embedded)


def unquoted(raw: str) -> str:
    for quote in ('"""', "'''", '"', "'", "/"):
        if len(raw) >= 2 * len(quote) and raw.startswith(quote) and raw.endswith(quote):
            return raw[len(quote):-len(quote)]
    return raw


def string_value(node) -> str:
    return unquoted(ts.text(node))


# --------------------------------------------------------------------------- literals

_DQ, _SQ, _BACKSLASH, _DOLLAR, _LBRACE, _RBRACE, _SLASH, _STAR, _NEWLINE = b'"\'\\${}/*\n'
TRIPLE, STRING, COMMENT = "triple", "string", "comment"


def literal_spans(data: bytes) -> list[tuple[str, int, int]]:
    """``(kind, start, end)`` byte spans of the comments (``//``, ``/* */``), string
    literals (``'…'``, ``"…"`` with its ``${…}`` interpolations) and triple-quoted
    literals of Groovy source, in order; an unterminated one runs to the end of its
    line (a one-quote string) or of the file. Slashy strings (``/…/``) are read as
    code."""
    spans: list[tuple[str, int, int]] = []
    n = len(data)
    i = 0
    # open ${…} interpolations of double-quoted strings: (start of the string, brace depth)
    open_strings: list[list[int]] = []
    string_start = -1        # inside "…" (not in an interpolation) since this offset
    while i < n:
        c = data[i]
        if string_start >= 0:
            if c == _BACKSLASH:
                i += 2
                continue
            if c == _DQ or c == _NEWLINE:
                if c == _DQ:
                    i += 1
                if not open_strings:
                    spans.append((STRING, string_start, i))
                string_start = -1
                if open_strings:
                    string_start = -1   # back in the interpolation's code
                continue
            if c == _DOLLAR and i + 1 < n and data[i + 1] == _LBRACE:
                open_strings.append([string_start, 1])
                string_start = -1
                i += 2
                continue
            i += 1
            continue
        if c == _SLASH and i + 1 < n and data[i + 1] in (_SLASH, _STAR):
            if data[i + 1] == _SLASH:
                end = data.find(b"\n", i)
                end = n if end < 0 else end
            else:
                end = data.find(b"*/", i + 2)
                end = n if end < 0 else end + 2
            if not open_strings:
                spans.append((COMMENT, i, end))
            i = end
            continue
        if c == _DQ or c == _SQ:
            quote = data[i:i + 3]
            if quote in (b'"""', b"'''"):
                end = _triple_end(data, i, quote)
                if not open_strings:
                    spans.append((TRIPLE, i, end))
                i = end
                continue
            if c == _DQ:
                string_start = i
                i += 1
                continue
            j = i + 1
            while j < n and data[j] != _SQ and data[j] != _NEWLINE:
                j += 2 if data[j] == _BACKSLASH else 1
            end = min(j + 1, n) if j < n and data[j] == _SQ else j
            if not open_strings:
                spans.append((STRING, i, end))
            i = end
            continue
        if open_strings:
            if c == _LBRACE:
                open_strings[-1][1] += 1
            elif c == _RBRACE:
                open_strings[-1][1] -= 1
                if open_strings[-1][1] == 0:
                    string_start = open_strings.pop()[0]   # the string goes on after its ${…}
        i += 1
    if string_start >= 0 and not open_strings:
        spans.append((STRING, string_start, n))
    return spans


def _triple_end(data: bytes, start: int, quote: bytes) -> int:
    """Where the triple-quoted literal opening at ``start`` ends (after its closing
    quotes; a backslash escapes a quote), or the end of the file."""
    j = start + 3
    while True:
        end = data.find(quote, j)
        if end < 0:
            return len(data)
        backslashes = 0
        while end - backslashes > start + 3 and data[end - backslashes - 1] == _BACKSLASH:
            backslashes += 1
        if backslashes % 2 == 0:
            while end + 3 < len(data) and data[end + 3] == quote[0]:
                end += 1   # '""""': the literal ends at the last three quotes
            return end + 3
        j = end + 1


def blanked(data: bytes, spans, kinds: tuple[str, ...]) -> bytes:
    """``data`` with the spans of ``kinds`` blank but for their newlines, a literal's
    first and last byte kept (so that it stays a one-quote literal of the same lines)."""
    out = bytearray(data)
    for kind, start, end in spans:
        if kind not in kinds:
            continue
        inside = out[start:end]
        out[start:end] = inside.translate(_BLANK)
        if kind != COMMENT and end - start >= 2:
            out[start] = data[start]
            out[end - 1] = data[start]
    return bytes(out)


_BLANK = bytes(b if b == _NEWLINE else 0x20 for b in range(256))
_INTERPOLATED_PARAM = re.compile(r"\$\{[^}]*?\bparams\.([A-Za-z_]\w*)|\$params\.([A-Za-z_]\w*)")


def head_text(node) -> str:
    """The dotted name a unit spells (``docker.enabled``), '' if it is not just names."""
    if node is None or node.type != "unit":
        return ""
    parts = []
    for child in node.children:
        if child.type == "identifier":
            parts.append(ts.text(child))
        elif child.type != ".":
            return ""
    return ".".join(parts)


def literal(node, value=string_value):
    """A call argument's value; ``value`` reads a string literal's."""
    if node.type == "string":
        return value(node)
    text = ts.text(node)
    if node.type == "number":
        try:
            return literal_or_expr(float(text) if re.search(r"[.eE]", text) else int(text), text)
        except ValueError:
            return Expr(text[:80])
    if node.type == "unit" and text in ("true", "false"):
        return text == "true"
    if node.type == "unit" and text == "null":
        return None
    return Expr(text[:80])


# The nodes the walk reads facts from; the rest of the tree stays in C. A ``unit``
# matters only when it reads params.x (its first named child is "params"), and that
# pattern is only added for a file whose bytes hold the word. @bindable marks a string
# directly in a statement (a setting's value), so that no other string's parent has to
# be looked up (Node.parent descends from the root, scanning siblings).
SELECTED = """
[(line_comment) (block_comment) (string) (block) (command) (end_command) (func)] @node
(command (string) @bindable)
(end_command (string) @bindable)
"""
SELECTED_WITH_PARAMS = SELECTED + '((unit . (_) @first) @node (#eq? @first "params"))\n'


class _Walker:
    """One parse, one query (``SELECTED``) over the tree; each selected node, in
    document order, goes to ``visit``. A statement's ancestors (``_common.path_to``) give
    its process and its config scope; a block's, call's or params unit's parent is
    looked up with ``Node.parent``."""

    def __init__(self, data: bytes, is_config: bool) -> None:
        self.original = data
        self.spans = literal_spans(data) if b'"""' in data or b"'''" in data else []
        # triple-quoted literal start -> end; the parse reads them masked (module docstring)
        self.triples = {start: end for kind, start, end in self.spans if kind == TRIPLE}
        self.data = blanked(data, self.spans, (TRIPLE,)) if self.triples else data
        self.is_config = is_config
        self.facts = ts.Collector()
        self.sections: dict[int, str] = {}       # process block id -> section being read
        self.block_labels: dict[int, str] = {}   # block id -> its label in a scope path
        self.root = None
        self.bindable: set[int] = set()          # ids of strings directly in a statement
        self.blocks: list[BlockFact] = []        # named blocks (BlockFact)
        self.assigned: set[tuple[int, str]] = set()   # (line, name) of ``params.name = …`` in a script

    def run(self) -> FileFacts:
        facts = self.facts
        tree = facts.parse(self.data, "groovy")
        self.root = tree.root_node
        selection = SELECTED_WITH_PARAMS if b"params" in self.data else SELECTED
        nodes, marks = ts.selected(tree, ts.query("groovy", selection))
        self.bindable = marks.get("bindable", set())
        for node in nodes:
            self.visit(node)
        if facts.error_line is not None and not self.is_config:
            _LineScan(self).run()
        self.mark_assigned()
        result = facts.finish(LANGUAGE, "nextflow", VERSION, self.original)
        return replace(result, blocks=tuple(self.blocks)) if self.blocks else result

    def value(self, node) -> str:
        """A string literal's value; a masked triple-quoted one's from the file's bytes."""
        end = self.triples.get(node.start_byte)
        if end is None or node.end_byte != end:
            return string_value(node)
        return self.original[node.start_byte + 3:end - 3].decode("utf-8", "replace")

    def interpolated_params(self, node) -> None:
        """The ``params.x`` a masked double-quoted triple literal interpolates."""
        start = node.start_byte
        if self.original[start] != _DQ or b"params" not in self.original[start:node.end_byte]:
            return
        body = self.value(node)
        first = ts.first_line(node)
        for match in _INTERPOLATED_PARAM.finditer(body):
            line = first + body.count("\n", 0, match.start())
            self.facts.cli_args.append(CliArgFact(line, "params", match.group(1) or match.group(2)))

    def mark_assigned(self) -> None:
        """A script's ``params.x = …`` statements assign a default: their params facts get
        ``assigned`` (a config's params settings get it where they are reported)."""
        cli_args = self.facts.cli_args
        for index, fact in enumerate(cli_args):
            if fact.kind == "params" and not fact.assigned and (fact.line, fact.name) in self.assigned:
                cli_args[index] = replace(fact, assigned=True)

    # --------------------------------------------------------------- walk
    def visit(self, node) -> None:
        facts = self.facts
        kind = node.type
        if kind in ("line_comment", "block_comment"):   # the grammar has no "comment" kind
            facts.comment(node, self.data, doc=ts.text(node).startswith("/**"))
        elif kind == "string":
            value = self.value(node)
            if value:
                binding = self.binding(node, node.parent) if node.id in self.bindable else ""
                facts.string(value, node, binding=binding)
            if node.start_byte in self.triples:
                self.interpolated_params(node)
        elif kind == "block":
            self.block(node, node.parent)
        elif kind in ("command", "end_command"):
            self.statement(node)
        elif kind == "func":
            self.call(node, node.parent)
        elif kind == "unit":
            # selected only when its first named child reads "params"
            names = [ts.text(c) for c in node.named_children[1:] if c.type == "identifier"]
            parent = node.parent
            if names and (parent is None or parent.type != "unit"):
                facts.cli_args.append(CliArgFact(ts.first_line(node), "params", names[0]))

    @staticmethod
    def binding(node, parent) -> str:
        if parent is not None and parent.type in ("command", "end_command") and parent.children:
            key = head_text(parent.children[0])
            if key and any(c.type == "operators" for c in parent.children):
                return key
        return ""

    def block(self, node, parent) -> None:
        label_node = node.children[0] if node.children else None
        label = ts.text(label_node) if label_node is not None else ""
        prefix = ""
        if parent is not None and parent.type in ("command", "end_command") and parent.children \
                and parent.children[0].id != node.id:
            prefix = head_text(parent.children[0])
        self.block_labels[node.id] = f"{prefix}:{label}" if prefix and prefix not in DEFINING_PREFIXES else label
        line = ts.first_line(node)
        if label != "include" and prefix not in DEFINING_PREFIXES:
            self.note_block(self.block_labels[node.id], line)
        if label == "include" and parent is not None:
            self.include(node, parent, line)
            return
        if self.is_config:
            return
        definition_kind = DEFINING_PREFIXES.get(prefix)
        if definition_kind:
            name = label.split("(")[0].strip()
            previous = self.facts.comments[-1] if self.facts.comments else None
            documented = previous is not None and previous.line_end == ts.first_line(parent) - 1
            self.facts.definitions.append(DefinitionFact(name, definition_kind, ts.first_line(parent), True, documented))

    def note_block(self, label: str, line: int) -> None:
        """A ``label { … }`` block that no keyword defines: a config scope or selector
        (``withName:FOO``), a script's entry ``workflow { … }`` (``process X { … }`` is a
        definition, ``include { … }`` an import)."""
        if label.strip():
            self.blocks.append(BlockFact(label.strip(), line))

    def include(self, block, command, line: int) -> None:
        source = next((c for c in command.children if c.type == "string"), None)
        if source is None:
            return
        module = self.value(source)
        self.facts.imports.append(ImportFact(module, line, "none", "include"))
        for statement in block.named_children[1:]:
            if statement.type in ("command", "end_command") and statement.named_children:
                name = head_text(statement.named_children[0])
                if name:
                    self.facts.directives.append(DirectiveFact("include", module, line, name))

    def enclosing_process(self, ancestors):
        """The block of the process this statement is in, and the process's name."""
        for index in range(len(ancestors) - 1, 0, -1):
            node = ancestors[index]
            if node.type == "block" and ancestors[index - 1].type in ("command", "end_command"):
                owner = ancestors[index - 1]
                if owner.children and owner.children[0].id != node.id and head_text(owner.children[0]) == "process":
                    return node, ts.text(node.children[0])
                return None, ""
        return None, ""

    def scope_path(self, ancestors) -> list[str]:
        return [self.block_labels[a.id] for a in ancestors if a.type == "block" and a.id in self.block_labels]

    def statement(self, node) -> None:
        children = node.children
        if not children:
            return
        key = head_text(children[0])
        line = ts.first_line(node)
        strings = [c for c in children if c.type == "string"]
        assigns = any(c.type == "operators" and ts.text(c).strip() == "=" for c in children)

        def value() -> str:   # the setting's or directive's value, read when one is reported
            if strings:
                return self.value(strings[0])
            value_nodes = [c for c in children[1:] if c.type not in ("operators", "arg_spliter", "\n") and c.is_named]
            return " ".join(ts.text(c) for c in value_nodes)

        if self.is_config:
            if key and assigns:
                value = value()
                *scope_parts, setting = (self.scope_path(ts.path_to(self.root, node)) + key.split("."))
                self.facts.directives.append(DirectiveFact(setting, value, line, ".".join(scope_parts)))
                if scope_parts[:1] == ["params"] and len(scope_parts) <= 1:
                    self.facts.cli_args.append(CliArgFact(line, "params", setting, assigned=True))
                if setting == "errorStrategy" and value in ERROR_STRATEGY_ACTIONS:
                    self.error_strategy(line, ".".join(scope_parts), value)
            return

        if assigns and _PARAMS_DEFAULT.fullmatch(key) and len(children) > 1 and children[1].type == "operators":
            self.assigned.add((line, key.split(".")[1]))
        if key and assigns and strings:
            self.facts.assignments.append(AssignmentFact(key, line, value()))
        process_block, process = self.enclosing_process(ts.path_to(self.root, node))
        if process_block is None:
            return
        if key in SECTIONS and any(c.type == "arg_spliter" for c in children):
            self.sections[process_block.id] = key
            if key == "exec":
                # Native Groovy run by Nextflow itself: such a process needs no software
                # environment (E1 does not ask it to pin one).
                self.facts.directives.append(DirectiveFact("exec", "", line, process))
            return
        if key in PROCESS_DIRECTIVES and not assigns:
            value = value()
            self.facts.directives.append(DirectiveFact(key, value, line, process))
            if key == "errorStrategy" and value in ERROR_STRATEGY_ACTIONS:
                self.error_strategy(line, process, value)
            return
        section = self.sections.get(process_block.id, "")
        if section in SCRIPT_SECTIONS and children[0].type == "string":
            body = "".join(self.value(s) for s in strings)
            self.facts.directives.append(DirectiveFact(section, body, line, process))
        elif section in ("input", "output") and key:
            self.facts.directives.append(DirectiveFact(section, ts.text(node).strip(), line, process))

    def error_strategy(self, line: int, scope: str, value: str) -> None:
        self.facts.open_handler(ts.HandlerProbe(line, scope, 0, 0, fixed_action=ERROR_STRATEGY_ACTIONS[value]))

    def call(self, node, parent) -> None:
        name_node = next((c for c in node.children if c.type == "identifier"), None)
        if name_node is None:
            return
        qualifier = []
        if parent is not None and parent.type == "unit":
            for child in parent.children:
                if child.id == node.id:
                    break
                if child.type == "identifier":
                    qualifier.append(ts.text(child))
        name = ".".join(qualifier + [ts.text(name_node)])
        arguments = next((c for c in node.children if c.type == "arg_block"), None)
        values = () if arguments is None else tuple(
            literal(c, self.value) for c in arguments.named_children if c.type not in ("arg_spliter",))
        line = ts.first_line(node)
        self.facts.calls.append(CallFact(name, name, line, values, ()))
        if name in READERS:
            path = values[0] if values and isinstance(values[0], str) else ""
            self.facts.file_io.append(FileIOFact(line, "read", path, name))


# ``params.name`` as the target of an assignment in a script: a parameter's default
_PARAMS_DEFAULT = re.compile(r"params\.[A-Za-z_]\w*")


# --------------------------------------------------------------------------- line scan

_UNIT_LINE = re.compile(rb"[ \t]*(process|workflow)[ \t]+([A-Za-z_]\w*)[ \t]*\{")
_SECTION_LINE = re.compile(rb"[ \t]*(input|output|script|shell|exec|when|stub)[ \t]*:")
_KEY_LINE = re.compile(rb"[ \t]*([A-Za-z_]\w*)\b[ \t]*")


def _line(fact) -> int:
    return fact.line


@dataclass(frozen=True)
class _Span:
    """A comment the line scan found, shaped as the node ``Collector.comment`` reads."""

    start_byte: int
    end_byte: int
    start_point: tuple[int, int]
    end_point: tuple[int, int]
    text: bytes


class _LineScan:
    """The fallback for a script the grammar cannot parse whole (module docstring): the
    named processes and workflows, each process's directives, ``input:``/``output:``
    lines and script bodies, found line by line on the code outside comments and string
    literals (braces counted there), and added where the walk has none at that line."""

    def __init__(self, walker: _Walker) -> None:
        self.walker = walker
        self.facts = walker.facts
        data = walker.original
        self.spans = walker.spans or literal_spans(data)
        self.starts = [start for _kind, start, _end in self.spans]
        self.code = blanked(data, self.spans, (TRIPLE, STRING, COMMENT))

    def run(self) -> None:
        facts = self.facts
        self.recover_comments()
        defined = {(d.name, d.line) for d in facts.definitions}
        directed = {(d.kind, d.line, d.scope) for d in facts.directives}
        walked_directives = len(facts.directives)
        added_definitions = False
        depth = 0
        process, process_depth, section = "", -1, ""
        offset = 0
        for number, line in enumerate(self.code.split(b"\n"), 1):
            start = offset
            offset += len(line) + 1
            if process and depth == process_depth + 1:
                section = self.process_line(number, line, start, process, section, directed)
            unit = _UNIT_LINE.match(line) if depth == 0 else None
            if unit is not None:
                kind, name = unit.group(1).decode(), unit.group(2).decode()
                if (name, number) not in defined:
                    documented = any(c.line_end == number - 1 for c in facts.comments)
                    facts.definitions.append(DefinitionFact(name, kind, number, True, documented))
                    added_definitions = True
                if kind == "process":
                    process, process_depth, section = name, depth, ""
            depth += line.count(b"{") - line.count(b"}")
            if process and depth <= process_depth:
                process, process_depth = "", -1
        if added_definitions:
            facts.definitions.sort(key=_line)
        if len(facts.directives) > walked_directives:
            facts.directives.sort(key=_line)

    def recover_comments(self) -> None:
        """The comments, read from the literal spans: inside an error the walk loses
        some and takes a ``//`` in a string for one (D4 counts them, a definition's
        documentation is the block above it)."""
        data = self.walker.original
        spans = [(start, end) for kind, start, end in self.spans if kind == COMMENT]
        line_starts = [0] + [m.end() for m in re.finditer(b"\n", data)]
        collector = ts.Collector()
        for start, end in spans:
            first = bisect_right(line_starts, start) - 1
            last = bisect_right(line_starts, max(start, end - 1)) - 1
            collector.comment(_Span(start, end, (first, start - line_starts[first]),
                                    (last, end - line_starts[last]), data[start:end]), data,
                              doc=data.startswith(b"/**", start))
        self.facts.comments = collector.comments
        self.facts._comment_lines = collector._comment_lines
        ends = {c.line_end for c in collector.comments}
        self.facts.definitions = [replace(d, documented=d.line - 1 in ends) for d in self.facts.definitions]

    def process_line(self, number: int, line: bytes, start: int, process: str, section: str,
                     directed: set) -> str:
        """Read one line directly in a process's body; returns the section it leaves open."""
        code = line.strip()
        indent = len(line) - len(line.lstrip())
        if not code or not code.strip(b"{}") or self.inside_literal(start + indent):
            return section   # a line inside a literal or comment, or a brace
        if line[indent:indent + 1] in (b'"', b"'") and (start + indent) in self.walker.triples:
            # a triple-quoted literal statement is the process's script (``script:`` may be left out)
            self.add(DirectiveFact(section if section in SCRIPT_SECTIONS else "script",
                                   self.literal_at(start + indent, start + indent + 1) or "", number, process),
                     directed)
            return section
        heading = _SECTION_LINE.match(line)
        if heading is not None:
            section = heading.group(1).decode()
            if section == "exec":
                self.add(DirectiveFact("exec", "", number, process), directed)
            rest = line[heading.end():]
            if not rest.strip():
                return section
            # ``script: """…"""`` on the section's own line
            line, start = rest, start + heading.end()
        if section in SCRIPT_SECTIONS:
            # the script itself: a literal opening the line (not a ``def x = "…"`` before it)
            indent = len(line) - len(line.lstrip())
            literal = self.literal_at(start + indent, start + indent + 1)
            if literal is not None:
                self.add(DirectiveFact(section, literal, number, process), directed)
            return section
        if section in ("input", "output"):
            text = self.original_line(start, start + len(line)).strip()
            if text:
                self.add(DirectiveFact(section, text, number, process), directed)
            return section
        key = _KEY_LINE.match(line)
        if key is None:
            return section
        name = key.group(1).decode()
        if name in PROCESS_DIRECTIVES and not line[key.end():key.end() + 1] == b"=":
            value_start = start + key.end()
            value = self.literal_at(value_start, value_start + 1)
            if value is None:
                value = self.original_line(value_start, start + len(line)).strip()
            if self.add(DirectiveFact(name, value, number, process), directed) \
                    and name == "errorStrategy" and value in ERROR_STRATEGY_ACTIONS:
                self.walker.error_strategy(number, process, value)
        return section

    def add(self, directive: DirectiveFact, directed: set) -> bool:
        """Add ``directive`` unless the walk read it; whether it was added."""
        key = (directive.kind, directive.line, directive.scope)
        if key in directed:
            return False
        directed.add(key)
        self.facts.directives.append(directive)
        return True

    def inside_literal(self, offset: int) -> bool:
        """Whether ``offset`` lies inside a literal or comment that starts before it."""
        index = bisect_right(self.starts, offset) - 1
        return index >= 0 and self.spans[index][1] < offset < self.spans[index][2]

    def literal_at(self, start: int, end: int) -> str | None:
        """The value of the first string literal starting in ``[start, end)``, if any."""
        for kind, span_start, span_end in self.spans:
            if span_start >= end:
                return None
            if span_start >= start and kind != COMMENT:
                raw = self.walker.original[span_start:span_end].decode("utf-8", "replace")
                return unquoted(raw)
        return None

    def original_line(self, start: int, end: int) -> str:
        """The file's text in ``[start, end)``, a trailing comment cut off."""
        for kind, span_start, _span_end in self.spans:
            if span_start >= end:
                break
            if kind == COMMENT and span_start >= start:
                end = span_start
                break
        return self.walker.original[start:end].decode("utf-8", "replace")
