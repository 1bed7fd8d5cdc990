"""Hard-coded credentials (C3) read where a code file is parsed, before its facts are
redacted: ``FileFacts.credentials`` of Python files, notebooks, R, R Markdown / Quarto
and Julia files. The verdicts (provider tokens, PEM keys, credential-named bindings
whose value is no placeholder) and the masking are :mod:`scoring.parsers.secrets`'s; this
module finds the bindings in each language and feeds a file's pieces to one
:class:`~scoring.parsers.secrets.FileCredentials`, so that what comes out is masked
facts, never a secret.

A file is read as *segments*, text of one language with the lines its evidence counts
in: a script is one segment; a notebook has one per Python cell, per magic line (read as
shell), per R, Julia or shell cell; an R Markdown document one per chunk.

* Python: the literals the ``ast`` binds to a name (assignments, annotated assignments,
  dict entries, keyword arguments, ``os.environ.setdefault``/``putenv``/``setenv``,
  parameter defaults), in ``ast.walk`` order, on the tree the frontend already parsed;
  code that does not parse is read line by line (quoted bindings).
* R and Julia: a small tokenizer (:func:`lex`: names, decoded strings, operators) finds a
  string bound by ``<-``, ``<<-``, ``=``, ``:``, ``=>``, ``:=``, ``->``/``->>``, a key
  (``ENV["KEY"] = …``, ``cfg[["password"]] <- …``) or passed to a key-setting call
  (``fredr::fredr_set_key("…")``). It runs only on text where a credential name can
  occur (:data:`_CREDENTIAL_NAME`): most files hold none.
* Shell cells and magics: :func:`scoring.parsers.secrets.line_bindings`.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Sequence
from functools import cached_property

from scoring.facts import CredentialFact
from scoring.parsers.notebook import Cell, Notebook
from scoring.parsers.python import parse_source
from scoring.parsers.secrets import FileCredentials, line_bindings, unescape

# what CodeUnit.parse catches: a chunk that raises anything else is read line by line too
_PARSE_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError)


class _Lines(Sequence):
    """A segment's lines, split only when a finding needs its line (most segments have
    none)."""

    def __init__(self, text: str) -> None:
        self.text = text

    @cached_property
    def _lines(self) -> list[str]:
        return self.text.splitlines()

    def __len__(self) -> int:
        return len(self._lines)

    def __getitem__(self, index):
        return self._lines[index]


class Credentials:
    """The credentials of one file, segment by segment in reading order."""

    def __init__(self) -> None:
        self.found = FileCredentials()

    def python(self, source: str, tree: ast.Module | None, cell: int | None = None, line_offset: int = 0) -> None:
        """A Python segment, ``tree`` its parse (None: it does not parse)."""
        if tree is not None:
            bindings = ((name, node.value, node.lineno) for name, node in python_bindings(source, tree))
            lines: Sequence[str] = _Lines(source)
        else:
            lines = source.splitlines()
            bindings = line_bindings(lines, "python")
        self.found.segment(source, lines, bindings, cell=cell, line_offset=line_offset)

    def python_source(self, source: str, cell: int | None = None, line_offset: int = 0) -> None:
        """A Python segment not parsed yet."""
        try:
            tree = parse_source(source)
        except _PARSE_ERRORS:
            tree = None
        self.python(source, tree, cell, line_offset)

    def tokens(self, text: str, language: str, cell: int | None = None, line_offset: int = 0) -> None:
        """An R or Julia segment."""
        bindings = token_bindings(lex(text, language)) if may_name_credential(text) else ()
        self.found.segment(text, _Lines(text), bindings, cell=cell, line_offset=line_offset)

    def lines(self, text: str, language: str, cell: int | None = None, line_offset: int = 0) -> None:
        """A segment read line by line (``language``: shell, or a parameter format)."""
        lines = text.splitlines()
        self.found.segment(text, lines, line_bindings(lines, language), cell=cell, line_offset=line_offset)

    def magics(self, cell: Cell, cell_no: int | None, line_offset: int) -> None:
        """The magic lines of a Python cell, each a shell segment of its own line
        (``!wget …``, ``%cd /home/…``, ``%env KEY=…``)."""
        for magic in cell.magics:
            self.lines(magic.text, "shell", cell_no, line_offset + magic.line - 1)

    def other_cell(self, cell: Cell, cell_no: int | None) -> None:
        """An R, Julia or shell cell (a leading ``%%R``/``%%bash`` line dropped); cells in
        any other language are not read."""
        if cell.language not in ("r", "julia", "shell"):
            return
        lines = cell.source.splitlines()
        body, shift = cell.source, 0
        if lines and lines[0].lstrip().startswith("%%"):
            body, shift = "\n".join(lines[1:]), 1
        if cell.language == "shell":
            self.lines(body, "shell", cell_no, cell.line_offset + shift)
        else:
            self.tokens(body, cell.language, cell_no, cell.line_offset + shift)

    def facts(self) -> tuple[CredentialFact, ...]:
        """The file's credential facts, not yet redacted (``_common.redact_facts`` passes
        their excerpts through the redaction of every other fact)."""
        return self.found.facts()


def script_credentials(text: str, language: str) -> tuple[CredentialFact, ...]:
    """The credentials of an R or Julia script."""
    found = Credentials()
    found.tokens(text, language)
    return found.facts()


def rmarkdown_credentials(notebook: Notebook) -> tuple[CredentialFact, ...]:
    """The credentials of an R Markdown / Quarto document's chunks (every chunk, evaluated
    or not: a secret written down is exposed either way), with the document's lines."""
    found = Credentials()
    for cell in notebook.code_cells:
        if cell.language == "python":
            found.python_source(cell.python_source, None, cell.line_offset)
            found.magics(cell, None, cell.line_offset)
        else:
            found.other_cell(cell, None)
    return found.facts()


# --------------------------------------------------------------------------- R / Julia tokens

# A token is a plain ``(kind, text, line)`` tuple (a NamedTuple's constructor costs a
# Python call per token): kind is name, str, num, op or nl; text as written, for ``str``
# the decoded value; line the 1-based line of its first character within its segment.
Token = tuple[str, str, int]
KIND, TEXT, LINE = 0, 1, 2


_R_TOKEN_RE = re.compile(
    r"""[ \t\r\f\v]*(?:
      (?P<nl>\n)
    | (?P<comment>\#[^\n]*)
    | (?P<raw>[rR](?P<rq>["'])(?P<dash>-*)(?P<open>[(\[{]))
    | (?P<str>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
    | (?P<name>`[^`\n]*`|(?:[A-Za-z]|\.(?![0-9]))[\w.]*)
    | (?P<num>(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)[Li]?)
    | (?P<op><<-|->>|<-|->|==|!=|<=|>=|&&|\|\||:::|::|\|>|%[^%\n]*%|\S)
    )""",
    re.VERBOSE | re.DOTALL,
)
_RAW_CLOSE = {"(": ")", "[": "]", "{": "}"}

_JULIA_TOKEN_RE = re.compile(
    r"""[ \t\r\f\v]*(?:
      (?P<nl>\n)
    | (?P<comment>\#=.*?(?:=\#|\Z)|\#[^\n]*)
    | (?P<str>\"\"\".*?(?:\"\"\"|\Z)|"(?:[^"\\]|\\.)*")
    | (?P<chr>'(?:\\.|[^'\\\n])')
    | (?P<name>[^\W\d][\w!]*)
    | (?P<num>\d[\w.]*)
    | (?P<op>=>|==|!=|<=|>=|&&|\|\||::|->|\.\.\.|\S)
    )""",
    re.VERBOSE | re.DOTALL,
)

# Every name a binding can give that ends with a credential word (the last component of
# ``scoring.parsers.secrets.credential_word``: key, apikey, secret, token, password,
# passwd, credential(s), pwd, auth) holds that word with no ASCII letter or digit after
# it, as written: a name token as written, a string decoded (decoding removes only
# backslashes and makes no letter), or a key-setting call (its name ends with key or
# token). Text without one binds no credential, and is not tokenized.
_CREDENTIAL_NAME = re.compile(r"(?i:key|secret|token|passw(?:or)?d|credentials?|pwd|auth)(?![A-Za-z0-9])")
_CREDENTIAL_NAME_WORDS = ("key", "secret", "token", "password", "passwd", "credential", "credentials", "pwd", "auth")
_ASCII_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


# the characters Python's case-insensitive matching takes for ASCII letters (İ ı ſ K);
# İ is also the one character whose lower case is longer, which would shift offsets
_FOLDED_TO_ASCII = ("\u0130", "\u0131", "\u017f", "\u212a")


def may_name_credential(text: str) -> bool:
    """Whether ``_CREDENTIAL_NAME`` finds a possible credential name in ``text``, found
    with substring searches of the lower-cased text (a case-insensitive regular
    expression tries every position of the text in Python's engine)."""
    if not text.isascii() and any(char in text for char in _FOLDED_TO_ASCII):
        return _CREDENTIAL_NAME.search(text) is not None
    lowered = text.lower()
    end_of_text = len(text)
    for word in _CREDENTIAL_NAME_WORDS:
        at = lowered.find(word)
        while at >= 0:
            after = at + len(word)
            if after == end_of_text or text[after] not in _ASCII_ALNUM:
                return True
            at = lowered.find(word, after)
    return False


def lex(text: str, language: str) -> list[Token]:
    """Tokens of R or Julia code: names, decoded strings, numbers, operators and
    newlines; comments dropped. Unterminated constructs degrade to single-character
    operators, so any text tokenizes (up to a space character the patterns do not
    read, such as U+00A0, where tokenizing stops)."""
    regex = _R_TOKEN_RE if language == "r" else _JULIA_TOKEN_RE
    tokens: list[Token] = []
    append = tokens.append
    match_at = regex.match
    pos, line, end = 0, 1, len(text)
    while pos < end:
        match = match_at(text, pos)
        if match is None:
            break   # every alternative reads at least one character: no empty match
        kind = match.lastgroup
        # the kinds by how often they come
        if kind == "name":
            append(("name", match.group("name").strip("`"), line))
        elif kind == "op" or kind == "num":
            append((kind, match.group(kind), line))
        elif kind == "nl":
            append(("nl", "\n", line))
            line += 1
        elif kind == "str":
            group = match.group("str")
            quote = 3 if group.startswith('"""') else 1
            closed = len(group) >= 2 * quote and group.endswith(group[:quote])
            append(("str", unescape(group[quote:-quote] if closed else group[quote:]), line))
            line += group.count("\n")
        elif kind == "comment":
            line += match.group("comment").count("\n")
        elif kind == "chr":
            append(("num", match.group("chr"), line))
        elif kind == "raw":
            # R raw string r"(...)" closes with the mirrored bracket, dashes and quote.
            closing = _RAW_CLOSE[match.group("open")] + match.group("dash") + match.group("rq")
            close_at = text.find(closing, match.end())
            stop = end if close_at < 0 else close_at + len(closing)
            append(("str", text[match.end(): close_at if close_at >= 0 else end], line))
            line += text.count("\n", match.start(), stop)
            pos = stop
            continue
        pos = match.end()
    return tokens


def _prev_index(tokens: Sequence[Token], index: int) -> int:
    """Index of the nearest token before ``index`` that is not a newline, or -1."""
    index -= 1
    while index >= 0 and tokens[index][KIND] == "nl":
        index -= 1
    return index


def _next_index(tokens: Sequence[Token], index: int) -> int:
    """Index of the nearest token after ``index`` that is not a newline, or len(tokens)."""
    index += 1
    while index < len(tokens) and tokens[index][KIND] == "nl":
        index += 1
    return index


_BINDING_OPS = frozenset({"<-", "<<-", "=", ":", "=>", ":="})

# A call that stores an API key or token, given it as its first argument: R's
# fredr::fredr_set_key("…"), tidycensus::census_api_key("…"), set_api_key("…"),
# set_token("…"); the argument is a credential-named binding ("api_key").
_KEY_SETTER = re.compile(r"(?:^|[._])(?:(?:set|register)_?(?:api_?)?(?:key|token)|api_?key|set_?token)$",
                         re.IGNORECASE)


def token_bindings(tokens: Sequence[Token]) -> Iterator[tuple[str, str, int]]:
    """``(name, value, line)`` of R/Julia string literals bound to a name, key or argument."""
    for index, tok in enumerate(tokens):
        if tok[KIND] != "str":
            continue
        opening = _prev_index(tokens, index)
        if opening >= 1 and tokens[opening][KIND] == "op" and tokens[opening][TEXT] == "(":
            callee = _prev_index(tokens, opening)
            if callee >= 0 and tokens[callee][KIND] == "name" and _KEY_SETTER.search(tokens[callee][TEXT]):
                yield "api_key", tok[TEXT], tok[LINE]
                continue
        nxt = _next_index(tokens, index)
        if nxt + 1 < len(tokens) and tokens[nxt][KIND] == "op" and tokens[nxt][TEXT] in ("->", "->>") \
                and tokens[nxt + 1][KIND] == "name":
            yield tokens[nxt + 1][TEXT], tok[TEXT], tok[LINE]
            continue
        op = _prev_index(tokens, index)
        if op < 0 or tokens[op][KIND] != "op" or tokens[op][TEXT] not in _BINDING_OPS:
            continue
        key = _prev_index(tokens, op)
        while key >= 0 and tokens[key][KIND] == "op" and tokens[key][TEXT] == "]":
            key -= 1  # ENV["KEY"] = …, cfg[["password"]] <- …
        if key >= 0 and tokens[key][KIND] in ("name", "str"):
            yield tokens[key][TEXT], tok[TEXT], tok[LINE]


# --------------------------------------------------------------------------- Python bindings

def python_bindings(source: str, tree: ast.Module) -> list[tuple[str, ast.Constant]]:
    """``(bound name, string constant)`` of every Python literal binding, in ``ast.walk``
    order; the tree is walked only when the text could hold a credential binding."""
    if not _may_bind_credential(source):
        return []
    return [b for node in ast.walk(tree) if isinstance(node, _BINDING_NODES) for b in _node_bindings(node)]


def _node_bindings(node: ast.AST) -> Iterator[tuple[str, ast.Constant]]:
    """``(bound name, string constant)`` for one assignment, annotated assignment, dict,
    call (keyword arguments, ``os.environ`` setters) or function (parameter defaults)."""
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        value = node.value
        if _is_str(value):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                name = _target_name(target)
                if name:
                    yield name, value
    elif isinstance(node, ast.Dict):
        for key, value in zip(node.keys, node.values, strict=True):
            if _is_str(key) and _is_str(value):
                yield key.value, value
    elif isinstance(node, ast.Call):
        for keyword in node.keywords:
            if keyword.arg and _is_str(keyword.value):
                yield keyword.arg, keyword.value
        if (isinstance(node.func, ast.Attribute) and node.func.attr in ("setdefault", "putenv", "setenv")
                and len(node.args) >= 2 and _is_str(node.args[0]) and _is_str(node.args[1])):
            yield node.args[0].value, node.args[1]
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        args = node.args
        positional = [*args.posonlyargs, *args.args]
        for arg, default in zip(positional[len(positional) - len(args.defaults):], args.defaults, strict=True):
            if _is_str(default):
                yield arg.arg, default
        for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
            if default is not None and _is_str(default):
                yield arg.arg, default


_BINDING_NODES = (ast.Assign, ast.AnnAssign, ast.Dict, ast.Call, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
# A Python literal bound to a credential-named key needs, somewhere in the text, a
# credential word followed by a binding and a quote: files without one skip the AST walk.
# Substring search plus an anchored match is much cheaper than a case-insensitive search.
_CREDENTIAL_WORDS_LOWER = ("password", "passwd", "pwd", "key", "secret", "token", "auth", "credentials", "credential")
_BINDING_TAIL_RE = re.compile(r"""["']?\s*(?:(?::[^=\n]{0,40})?=|:|,)\s*\(?\s*[rbuf]{0,2}["']""")


def _may_bind_credential(source: str) -> bool:
    lowered = source.lower()
    for word in _CREDENTIAL_WORDS_LOWER:
        start = lowered.find(word)
        while start >= 0:
            if _BINDING_TAIL_RE.match(lowered, start + len(word)):
                return True
            start = lowered.find(word, start + 1)
    return False


def _is_str(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _target_name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript) and _is_str(node.slice):
        return node.slice.value
    return ""
