"""What every frontend shares: the one traversal, the fact collector, handler probes,
and the redaction every ``FileFacts`` passes through before a frontend returns it.

The traversal: a frontend parses a file once and runs one tree-sitter query over the
tree (``selected``): the query walks every node in C and hands Python only the nodes of
the few kinds the frontend reads facts from, in document order. Python code touches
those nodes and their close neighbourhood (fields, children, the path from the root
for the rare facts that need their ancestors); it never visits identifiers, punctuation
and operators one by one, which is where a per-node Python walk spends its time.
Syntax errors are found by descending only into subtrees that hold one
(``first_error``), and nowhere when the tree has none. The Python frontend walks
``ast`` instead, and builds its ``FileFacts`` itself, then redacts them here.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache
from importlib.metadata import version as _dist_version
from itertools import accumulate, compress, count
from operator import attrgetter, not_

from scoring.facts import (
    AssignmentFact,
    CallFact,
    CliArgFact,
    CommentFact,
    DefinitionFact,
    DirectiveFact,
    Expr,
    FileFacts,
    FileIOFact,
    HandlerFact,
    ImportFact,
    InstallFact,
    RandomFact,
    StringFact,
    UrlFact,
)
from scoring.model import SECRET_MARKERS, redact

GRAMMAR_DISTRIBUTION = "tree-sitter-language-pack"
URL_PATTERN = re.compile(r"""(?:https?|ftp|s3|gs)://[^\s'"<>`)\]}]+""")


@cache
def grammar_version() -> str:
    return _dist_version(GRAMMAR_DISTRIBUTION)


def frontend_version(own_version: str) -> str:
    """The frontend's own version plus the grammar's: facts change when either does."""
    return f"{own_version}+tslp{grammar_version()}"


@cache
def parser(language: str):
    from tree_sitter_language_pack import get_parser

    return get_parser(language)


def parse(data: bytes, language: str):
    return parser(language).parse(data)


@cache
def query(language: str, source: str):
    """The compiled query ``source`` for a grammar (compiled once per process)."""
    from tree_sitter import Query

    return Query(parser(language).language, source)


@cache
def possible_query(language: str, source: str):
    """``query`` of the lines of ``source`` (one pattern a line) that can match in the
    grammar: tree-sitter refuses a pattern naming a kind the grammar lacks or a parent
    that never holds that child (a constructor's argument list in C), and a pattern that
    can never match would select nothing anyway. A misspelt kind is dropped as well:
    the frontend's tests and the facts oracle (tests/benchmarks/frontend_facts_diff.py)
    are what catch it."""
    from tree_sitter import QueryError

    possible = []
    for pattern in source.splitlines():
        if not pattern.strip():
            continue
        try:
            query(language, pattern)
        except QueryError:
            continue
        possible.append(pattern)
    return query(language, "\n".join(possible))


def selected(tree, compiled) -> tuple[list, dict[str, set[int]]]:
    """The nodes ``compiled`` captures as ``@node`` in ``tree``, in document order
    (preorder), and the ids of the nodes of each other capture name (context a pattern
    names, such as "a call that is a member of a field expression").

    One query run: tree-sitter walks the tree in C and only matching nodes become
    Python objects. ``QueryCursor.captures`` groups captures in a set per capture name,
    so its lists are in no particular order: ``@node`` is sorted back into preorder by
    start, then outermost first (a longer node, or of two with the same span the one
    with more descendants, is the ancestor).
    """
    from tree_sitter import QueryCursor

    cursor = QueryCursor(compiled)
    captures = cursor.captures(tree.root_node)
    if cursor.did_exceed_match_limit:
        # tree-sitter dropped in-progress matches (never with the default, unlimited
        # limit): facts from a partial selection would be silently wrong
        raise RuntimeError("tree-sitter query exceeded its match limit")
    nodes = captures.pop("node", [])
    # three stable sorts on C-level keys: by start, then longest first, then most
    # descendants first (cheaper than one sort on a Python key function)
    nodes.sort(key=_DESCENDANTS, reverse=True)
    nodes.sort(key=_END, reverse=True)
    nodes.sort(key=_START)
    return nodes, {name: {node.id for node in captured} for name, captured in captures.items()}


_START, _END, _DESCENDANTS = attrgetter("start_byte"), attrgetter("end_byte"), attrgetter("descendant_count")


def first_error(tree):
    """The first ERROR or MISSING node in preorder, or None.

    Only subtrees whose ``has_error`` is set (an ERROR or MISSING node inside) are
    entered, so an error-free tree costs one attribute read.
    """
    root = tree.root_node
    if not root.has_error:
        return None
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            return node
        stack.extend(reversed([child for child in node.children if child.has_error]))
    return None


def path_to(root, node) -> list:
    """The ancestors of ``node`` below and including ``root``, root first: what
    ``preorder`` yields with the node. Found by descending from the root (tree-sitter
    nodes keep no parent pointer: each ``parent`` is itself a descent from the root)."""
    chain: list = []
    current = root
    target = node.id
    while current is not None and current.id != target:
        chain.append(current)
        current = current.child_with_descendant(node)
    return chain


def count_statements(probe: HandlerProbe, body, passive) -> None:
    """Count the statements of a handler's body when the probe opens.

    ``body`` is the node whose direct children are the statements (``probe.body_id``);
    a statement is a named child, not a comment, that starts inside the body's span;
    ``passive(child)`` says whether it does nothing. The actions seen inside the body
    are added by ``handler_visit`` as the selected nodes come by.
    """
    for child in body.children:
        if child.is_named and probe.body_start <= child.start_byte < probe.body_end \
                and "comment" not in child.type:
            probe.statements += 1
            probe.passive += bool(passive(child))


def preorder(tree) -> Iterator[tuple[object, list]]:
    """Every node of ``tree`` once, in document order, with its ancestors (root first).

    A tree cursor, no recursion, so deep files cannot exhaust the stack. ``ancestors``
    is the live stack: read it, do not keep it. The reference the tests check
    ``selected``, ``first_error`` and ``path_to`` against; frontends do not use it (a
    Python step per node costs more than the parse).
    """
    cursor = tree.walk()
    ancestors: list = []
    while True:
        node = cursor.node
        yield node, ancestors
        if cursor.goto_first_child():
            ancestors.append(node)
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return
            ancestors.pop()


def text(node) -> str:
    return node.text.decode("utf-8", "replace")


def squeezed_text(node) -> str:
    """The node's text without any white space: a qualified name as written
    (``std :: mt19937`` and ``std::mt19937`` alike)."""
    # str.split() splits at exactly the characters re's \s matches (str.isspace)
    return "".join(text(node).split())


def quote_doubled_string(node) -> str:
    """The value of a string literal whose quote is escaped by doubling it, as MATLAB
    and Fortran write a quote inside a string."""
    raw = text(node)
    if len(raw) >= 2 and raw[0] in "'\"" and raw[-1] == raw[0]:
        return raw[1:-1].replace(raw[0] * 2, raw[0])
    return raw


def negated(value):
    """``-value`` for a number literal's value; None for anything else (a negated
    string or expression is not a literal)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return -value
    return None


def first_line(node) -> int:
    return node.start_point[0] + 1


def last_line(node) -> int:
    row, column = node.end_point
    # a node that ends with its line's newline ends on that line, not the next one
    if column == 0 and row > node.start_point[0]:
        return row
    return row + 1


def count_lines(data: bytes) -> int:
    if not data:
        return 0
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


def blank_line_numbers(text: str) -> tuple[int, ...]:
    """``FileFacts.blank_lines``: the 1-based numbers of the empty or whitespace-only
    lines of ``text``, in the ``str.splitlines`` numbering."""
    # a line is blank exactly when stripping its white space (str.isspace's) empties it;
    # compress, map and count keep the loop in C
    return tuple(compress(count(1), map(not_, map(str.strip, text.splitlines()))))


def with_blank_lines(facts: FileFacts, data: bytes) -> FileFacts:
    """``facts`` with the script's blank lines (the text as UTF-8, bad bytes replaced)."""
    blank = blank_line_numbers(data.decode("utf-8", "replace"))
    return replace(facts, blank_lines=blank) if blank else facts


def syntax_error_at(line: int) -> str:
    return f"syntax error at line {line}"


@dataclass
class HandlerProbe:
    """A handler whose action is decided from the nodes the one walk meets inside it."""

    line: int
    caught: str
    body_start: int                    # byte span of the handler's body
    body_end: int
    body_id: int | None = None         # node id whose direct children are the body's statements
    statements: int = 0                # direct statements of the body
    passive: int = 0                   # of those, statements that do nothing (NULL, nothing, ;)
    seen: set = field(default_factory=set)
    fixed_action: str | None = None    # decided at once (try(silent = TRUE), errorStrategy)
    # HandlerFact's end_line, swallows, excerpt and start_line, when the frontend decides them
    end_line: int = 0
    swallows: str = ""
    excerpt: str = ""
    start_line: int = 0

    def action(self) -> str:
        if self.fixed_action:
            return self.fixed_action
        for action in ("reraise", "log", "return", "continue"):
            if action in self.seen:
                return action
        if self.statements == self.passive:
            return "pass"
        return "other"


class Collector:
    """Facts in the order the walk meets them, plus the open handler probes."""

    def __init__(self) -> None:
        self.imports: list[ImportFact] = []
        self.calls: list[CallFact] = []
        self.strings: list[StringFact] = []
        self.comments: list[CommentFact] = []
        self.definitions: list[DefinitionFact] = []
        self.assignments: list[AssignmentFact] = []
        self.randoms: list[RandomFact] = []
        self.cli_args: list[CliArgFact] = []
        self.file_io: list[FileIOFact] = []
        self.urls: list[UrlFact] = []
        self.directives: list[DirectiveFact] = []
        self.installs: list[InstallFact] = []
        self.handlers: list[HandlerProbe] = []
        self.open_handlers: list[HandlerProbe] = []
        self.error_line: int | None = None
        self._comment_lines: dict[int, bool] = {}     # comment line -> is a whole-line comment

    # --- errors
    def parse(self, data: bytes, grammar: str):
        """The file's one parse, its first error (if any) noted as the parse error."""
        tree = parse(data, grammar)
        error = first_error(tree)
        if error is not None:
            self.note_error(error)
        return tree

    def dispatch(self, nodes, handlers: dict, features: dict[str, str]) -> None:
        """Hand each selected node to the handler of its kind, in document order; a node
        whose kind is a handler action (return, log, ...) only reaches the open handler
        probes, so that a catch body's action is known without a second look."""
        for node in nodes:
            kind = node.type
            if kind in features:
                if self.open_handlers:
                    self.handler_visit(node, None, feature=features[kind])
                continue
            handlers[kind](node)

    def note_error(self, node) -> None:
        """Keep the first error's line: where the ERROR node stops making sense.

        An ERROR node often wraps complete statements before the fault (a whole file
        whose last function is unclosed): its first child that is not a complete,
        error-free construct is where the error is.
        """
        if self.error_line is not None:
            return
        while node.type == "ERROR":
            culprit = next((child for child in node.children if not child.is_named or child.has_error
                            or child.type == "ERROR"), None)
            if culprit is None:
                break
            node = culprit
        self.error_line = first_line(node)

    # --- strings and urls
    def string(self, value: str, node, binding: str = "", docstring: bool = False) -> None:
        start, end = first_line(node), last_line(node)
        self.strings.append(StringFact(value, start, end, binding, docstring))
        if not docstring:
            self.urls_in(value, start)

    def urls_in(self, value: str, line: int) -> None:
        if "://" not in value:
            return   # every URL_PATTERN match contains it; most strings hold no URL
        for offset, chunk in enumerate(value.split("\n")):
            for match in URL_PATTERN.finditer(chunk):
                self.urls.append(UrlFact(match.group(0).rstrip(".,;:"), line + offset))

    # --- comments
    def comment(self, node, data: bytes, doc: bool, text_value: str | None = None) -> None:
        """Add a comment, merged into the previous block when it continues it.

        Consecutive whole-line comments of the same kind are one block, so a block's
        line span gives D4 its comment lines and a documented definition its doc block.
        """
        start, end = first_line(node), last_line(node)
        body = text(node) if text_value is None else text_value
        whole_line = not data[data.rfind(b"\n", 0, node.start_byte) + 1:node.start_byte].strip()
        previous = self.comments[-1] if self.comments else None
        if (previous is not None and whole_line and previous.doc == doc
                and previous.line_end == start - 1 and self._comment_lines.get(previous.line_end)):
            self.comments[-1] = CommentFact(previous.line_start, end, previous.text + "\n" + body, doc)
        else:
            self.comments.append(CommentFact(start, end, body, doc))
        self._comment_lines[end] = whole_line

    def trailing_comment(self, line: int, body: str, doc: bool = False) -> None:
        """Add a comment the grammar leaves inside another token (C's ``#define X 1 //
        why``): it follows code on its line, so it is a block of its own."""
        self.comments.append(CommentFact(line, line, body, doc))
        self._comment_lines[line] = False

    def doc_block_ending_at(self, line: int) -> CommentFact | None:
        for comment in reversed(self.comments):
            if comment.line_end < line - 1:
                return None
            if comment.doc and comment.line_end == line - 1:
                return comment
        return None

    # --- handlers
    def open_handler(self, probe: HandlerProbe) -> None:
        self.handlers.append(probe)
        if probe.fixed_action is None:
            self.open_handlers.append(probe)

    def handler_visit(self, node, parent, *, passive: bool = False, feature: str | None = None) -> None:
        """Let the open probes see ``node``: a statement of a body, and what it does.

        Probes close once the walk has passed their body, so deciding an action needs
        no second look at the handler.
        """
        if not self.open_handlers:
            return
        start = node.start_byte
        if any(probe.body_end <= start for probe in self.open_handlers):
            self.open_handlers = [probe for probe in self.open_handlers if probe.body_end > start]
        for probe in self.open_handlers:
            if start < probe.body_start:
                continue
            if parent is not None and probe.body_id == parent.id and node.is_named \
                    and "comment" not in node.type:
                probe.statements += 1
                probe.passive += passive
            if feature:
                probe.seen.add(feature)

    def finish(self, language: str, frontend: str, version: str, data: bytes,
               *, definitions: list[DefinitionFact] | None = None) -> FileFacts:
        return redact_facts(FileFacts(
            language=language,
            frontend=frontend,
            frontend_version=frontend_version(version),
            imports=tuple(self.imports),
            calls=tuple(self.calls),
            strings=tuple(self.strings),
            comments=tuple(self.comments),
            definitions=tuple(self.definitions if definitions is None else definitions),
            assignments=tuple(self.assignments),
            handlers=tuple(HandlerFact(p.line, p.caught, p.action(), None, p.end_line, p.swallows, p.excerpt,
                                       p.start_line) for p in self.handlers),
            randoms=tuple(self.randoms),
            cli_args=tuple(self.cli_args),
            file_io=tuple(self.file_io),
            urls=tuple(self.urls),
            directives=tuple(self.directives),
            parse_error=None if self.error_line is None else syntax_error_at(self.error_line),
            lines=count_lines(data),
            installs=tuple(self.installs),
        ))


def is_error(node) -> bool:
    return node.type == "ERROR" or node.is_missing


# --------------------------------------------------------------------------- redaction

# The name part of ``scoring.model``'s credential assignment pattern: the last word of a
# binding (``self.api_key``, ``os.environ["TOKEN"]``, ``cfg.db.password``).
_LAST_WORD = re.compile(r"[A-Za-z0-9_\-]+(?=[^A-Za-z0-9_\-]*$)")


_CACHED_LENGTH = 200      # short texts recur across files ("utf-8", column names); long ones do not


def redact_text(text: str) -> str:
    """``scoring.model.redact``, the redaction of evidence snippets; short texts memoised."""
    return _redact_cached(text) if len(text) <= _CACHED_LENGTH else redact(text)


_redact_cached = lru_cache(maxsize=16384)(redact)


def redact_bound(name: str, value: str) -> str:
    """``value`` redacted as a literal bound to ``name``: provider tokens, PEM keys and
    passwords in URLs are masked wherever they are, and the whole value is masked
    (``hunt…(8 chars)``) when ``name`` is credential-like (``password``, ``api_key``,
    ``token``…), exactly as a snippet ``name = "value"`` would be."""
    if len(value) <= _CACHED_LENGTH and len(name) <= _CACHED_LENGTH:
        return _redact_bound_cached(name, value)
    return _redact_bound(name, value)


def _redact_bound(name: str, value: str) -> str:
    value = redact_text(value)
    word = _LAST_WORD.search(name) if name else None
    if word is None or len(value) < 4 or '"' in value or "\n" in value:
        return value
    head = f'{word.group(0)}="'
    masked = redact_text(f'{head}{value}"')
    if masked.startswith(head) and masked.endswith('"'):
        return masked[len(head):-1]
    return value


_redact_bound_cached = lru_cache(maxsize=16384)(_redact_bound)


def _redact_value(value, name: str = ""):
    if isinstance(value, str):
        return redact_bound(name, value) if name else redact_text(value)
    if isinstance(value, Expr):
        text = redact_text(value.text)
        return value if text == value.text else Expr(text)
    return value


def _call(fact: CallFact) -> CallFact:
    args = tuple(_redact_value(a) for a in fact.args)
    kwargs = tuple((k, _redact_value(v, k)) for k, v in fact.kwargs)
    urls = tuple((k, redact_text(u)) for k, u in fact.urls) if fact.urls else ()
    command = redact_text(fact.command) if fact.command else ""
    if args == fact.args and kwargs == fact.kwargs and urls == fact.urls and command == fact.command:
        return fact
    return replace(fact, args=args, kwargs=kwargs, urls=urls, command=command)


def _changed(fact, **values):
    """``fact`` itself when no value changed, else a copy with them."""
    if all(getattr(fact, name) == value for name, value in values.items()):
        return fact
    return replace(fact, **values)


def _call_texts(fact: CallFact) -> str:
    if not fact.kwargs and not fact.urls and not fact.command:
        # most calls: positional arguments only
        args = fact.args
        return "\x00".join([a if type(a) is str else a.text for a in args if type(a) is str or type(a) is Expr]) \
            if args else ""
    parts = [a if type(a) is str else a.text for a in fact.args if type(a) is str or type(a) is Expr]
    for key, value in fact.kwargs:
        if type(value) is str or type(value) is Expr:
            parts.append(key)
            parts.append(value if type(value) is str else value.text)
    parts.extend(url for _, url in fact.urls)   # resolved URLs and the command line (Python)
    if fact.command:
        parts.append(fact.command)
    return "\x00".join(parts)


# fact list -> (the texts redaction reads in one fact, joined; the fact redacted)
_REDACTION = {
    "imports": (lambda f: f.module, lambda f: _changed(f, module=redact_text(f.module))),
    "calls": (_call_texts, _call),
    "strings": (lambda f: f"{f.binding}\x00{f.value}",
                lambda f: _changed(f, value=redact_bound(f.binding, f.value) if f.binding else redact_text(f.value))),
    "comments": (lambda f: f.text, lambda f: _changed(f, text=redact_text(f.text))),
    "definitions": (lambda f: "\x00".join(f.decorators),
                    lambda f: _changed(f, decorators=tuple(redact_text(d) for d in f.decorators))),
    "assignments": (lambda f: f"{f.name}\x00{f.value}", lambda f: _changed(f, value=redact_bound(f.name, f.value))),
    "handlers": (lambda f: f"{f.caught}\x00{f.excerpt}",
                 lambda f: _changed(f, caught=redact_text(f.caught), excerpt=redact_text(f.excerpt))),
    "cli_args": (lambda f: f.name, lambda f: _changed(f, name=redact_text(f.name))),
    "file_io": (lambda f: f.path, lambda f: _changed(f, path=redact_text(f.path))),
    "urls": (lambda f: f.url, lambda f: _changed(f, url=redact_text(f.url))),
    "directives": (lambda f: f"{f.kind}\x00{f.value}", lambda f: _changed(f, value=redact_bound(f.kind, f.value))),
    "cells": (lambda f: "\x00".join([*f.magics, *(command for _, command in f.commands),
                                     *(text for _, text in f.code_lines)]),
              lambda f: _changed(f, magics=tuple(redact_text(m) for m in f.magics),
                                 commands=tuple((line, redact_text(c)) for line, c in f.commands),
                                 code_lines=tuple((line, redact_text(t)) for line, t in f.code_lines))),
    "installs": (lambda f: f.package, lambda f: _changed(f, package=redact_text(f.package))),
    # a credential's own value is masked where it is found; its line may hold another
    # secret C3 does not report (a password in a URL)
    "credentials": (lambda f: f.excerpt, lambda f: _changed(f, excerpt=redact_text(f.excerpt))),
}


# The markers without those that contain another ("authorization" holds "auth"): a text
# holds a marker exactly when it holds one of these.
_MARKERS = tuple(m for m in SECRET_MARKERS if not any(o != m and o in m for o in SECRET_MARKERS))


def _with_markers(texts: list[str]) -> list[int]:
    """Indices of the (lower-cased) texts holding a secret marker.

    ``redact`` leaves text without a marker unchanged, and a marker never spans the NUL
    that joins two texts, so only these facts need the costly redaction itself. A
    substring search per marker over all texts at once is far cheaper than a regular
    expression per text (or one alternation of the markers).
    """
    joined = "\x00".join(texts)
    present = [marker for marker in _MARKERS if marker in joined]
    if not present:
        return []
    ends = list(accumulate(len(text) + 1 for text in texts))   # where each text's separator ends
    found: set[int] = set()
    find = joined.find
    for marker in present:
        at = find(marker)
        while at >= 0:
            index = bisect_right(ends, at)
            found.add(index)
            at = find(marker, ends[index])
    return sorted(found)


def redact_facts(facts: FileFacts) -> FileFacts:
    """``facts`` with every text a deposit supplied passed through the snippet redaction.

    Facts are cached in the store, and the project never stores a secret found in a
    deposit: string values, assignments, call arguments and expressions, comments, URLs,
    paths, decorators, handler and option texts, directive values, notebook magics and
    the lines of credentials (C3's findings, their secrets already masked) are redacted
    here, once, before any frontend returns (``Collector.finish`` and the
    Python and Snakemake frontends call it). A value bound to a credential-like name is
    masked whole (``redact_bound``), so a detector reads the binding and the mask's first
    four characters and length, never the secret. The facts whose lower-cased texts hold
    no marker ``redact`` looks for are found in one regular-expression scan per kind and
    kept as they are: the pass costs little more than that scan.
    """
    changes = {}
    for name in _REDACTION:
        items = getattr(facts, name)
        redacted = redact_records(name, items)
        if redacted is not items:
            changes[name] = redacted
    return replace(facts, **changes) if changes else facts


def redact_records(name: str, items: tuple) -> tuple:
    """``items``, the facts of the ``FileFacts`` field ``name``, redacted as
    :func:`redact_facts` does (``items`` itself when nothing changed): for facts a
    frontend adds to redacted ones (the cells of an R Markdown document)."""
    if not items:
        return items
    texts_of, redactor = _REDACTION[name]
    flagged = _with_markers([texts_of(item).lower() for item in items])
    if not flagged:
        return items
    redacted = list(items)
    changed = False
    for index in flagged:
        new = redactor(items[index])
        if new is not items[index]:
            redacted[index] = new
            changed = True
    return tuple(redacted) if changed else items
