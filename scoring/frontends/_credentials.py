"""Hard-coded credentials (C3) read where a code file is parsed, before its facts are
redacted: ``FileFacts.credentials`` of Python files, notebooks, R, R Markdown / Quarto,
Julia, MATLAB/Octave, C/C++, Fortran, Nextflow and Snakemake files. The verdicts
(provider tokens, PEM keys, credential-named bindings whose value is no placeholder) and
the masking are :mod:`scoring.parsers.secrets`'s; this module finds the bindings in each
language and feeds a file's pieces to one
:class:`~scoring.parsers.secrets.FileCredentials`, so that what comes out is masked
facts, never a secret: each secret found is also masked in every other fact of the file
(:func:`mask_secrets`), since the snippet redaction knows a secret only by a binding
that a fact may not keep.

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
* MATLAB, C/C++, Fortran and Nextflow: the same kind of tokenizer, each language's
  comments and string syntax (a MATLAB transpose is no string; Fortran and MATLAB
  double their quotes; Nextflow's triple-quoted process scripts are read as shell lines),
  and each language's bindings (:func:`token_bindings`). MATLAB, C/C++ and Fortran text
  is tokenized only when a credential name has a quote after it on its line
  (:func:`may_bind_on_its_line`): a binding whose value starts on a later line is not read.
* Snakemake: the Python bindings of the frontend's rewritten module (a rule's
  ``params: password="…"`` is a keyword argument there).
* Shell cells and magics: :func:`scoring.parsers.secrets.line_bindings`.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import replace
from functools import cached_property

from scoring.facts import CredentialFact, FileFacts
from scoring.frontends._common import redact_records
from scoring.model import mask_secret
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
        """An R, Julia, MATLAB, C/C++, Fortran or Nextflow segment."""
        gate = may_bind_on_its_line if language in _BOUND_ON_ITS_LINE else may_name_credential
        bindings = token_bindings(lex(text, language), language) if gate(text) else ()
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

    def secrets(self) -> list[str]:
        return self.found.secrets()


def with_script_credentials(facts: FileFacts, text: str, language: str) -> FileFacts:
    """``facts`` of a MATLAB, C/C++, Fortran or Nextflow script with its credentials,
    redacted as every other fact (their secrets are already masked), and every secret
    they found masked wherever another fact holds it."""
    found = Credentials()
    found.tokens(text, language)
    return with_credentials(facts, found)


def with_credentials(facts: FileFacts, found: Credentials) -> FileFacts:
    """``facts`` with the credentials ``found`` in the file: the snippet redaction
    recognises a secret by its binding, which a fact may not keep (a MATLAB name-value
    argument, a C++ brace initialiser, a Groovy map entry), so each secret C3 found is
    also masked in every text of the other facts."""
    credentials = found.facts()
    if not credentials:
        return facts
    return replace(mask_secrets(facts, found.secrets()), credentials=redact_records("credentials", credentials))


def mask_secrets(facts: FileFacts, secrets: Sequence[str]) -> FileFacts:
    """``facts`` with every occurrence of ``secrets`` in their string values masked
    (``abcd…(16 chars)``), longest first; ``facts`` itself when none occurs."""
    ordered = sorted({s for s in secrets if s}, key=len, reverse=True)
    changed = False

    def masked(value):
        nonlocal changed
        if isinstance(value, str):
            for secret in ordered:
                if secret in value:
                    value = value.replace(secret, mask_secret(secret))
                    changed = True
            return value
        if isinstance(value, list):
            return [masked(item) for item in value]
        if isinstance(value, dict):
            return {key: masked(item) for key, item in value.items()}
        return value

    data = masked(json.loads(facts.to_json()))
    if not changed:
        return facts
    return FileFacts.from_dict(data)


def rmarkdown_credentials(notebook: Notebook) -> Credentials:
    """The credentials of an R Markdown / Quarto document's chunks (every chunk, evaluated
    or not: a secret written down is exposed either way), with the document's lines."""
    found = Credentials()
    for cell in notebook.code_cells:
        if cell.language == "python":
            found.python_source(cell.python_source, None, cell.line_offset)
            found.magics(cell, None, cell.line_offset)
        else:
            found.other_cell(cell, None)
    return found


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


# MATLAB: ``%`` and ``%{ … %}`` comments, ``...`` continuations (the rest of the line is
# a comment); char arrays ``'…'`` and strings ``"…"`` double their quote and have no
# escapes. A ``'`` right after a name, a number, a closing bracket or another quote is
# the transpose operator (``lex`` decides, from the token before it).
_MATLAB_TOKEN_RE = re.compile(
    r"""(?P<ws>[ \t\r\f\v]*)(?:
      (?P<nl>\n)
    | (?P<comment>%\{[ \t\r]*(?=\n).*?\n[ \t]*%\}[^\n]*|%[^\n]*|\.\.\.[^\n]*)
    | (?P<sq>'(?:[^'\n]|'')*')
    | (?P<dq>"(?:[^"\n]|"")*")
    | (?P<name>[A-Za-z]\w*)
    | (?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[ij]?)
    | (?P<op>==|~=|<=|>=|&&|\|\||\.\*|\./|\.\^|\.'|\S)
    )""",
    re.VERBOSE | re.DOTALL,
)

# C and C++: comments, ``#`` a token of its own (``# define NAME "…"``), string literals
# with their encoding prefixes and backslash escapes, raw strings ``R"d(…)d"``, character
# literals (read as numbers: they bind nothing).
_C_TOKEN_RE = re.compile(
    r"""[ \t\r\f\v]*(?:
      (?P<nl>\n)
    | (?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))
    | (?P<craw>(?:u8|[uUL])?R"(?P<delim>[^()\\\s"]{0,16})\()
    | (?P<esc>(?:u8|[uUL])?"(?:[^"\\\n]|\\.)*")
    | (?P<chr>(?:u8|[uUL])?'(?:\\.|[^'\\\n])+')
    | (?P<name>[A-Za-z_]\w*)
    | (?P<num>\.?\d(?:[\w.]|'(?=\w)|[eEpP][+-])*)
    | (?P<op>->|::|==|!=|<=|>=|&&|\|\||<<|>>|\S)
    )""",
    re.VERBOSE | re.DOTALL,
)

# Fortran (free form; fixed form is read as the frontend rewrites it): ``!`` comments,
# strings that double their quote, ``%`` a component selector (``cfg%password``).
_FORTRAN_TOKEN_RE = re.compile(
    r"""[ \t\r\f\v]*(?:
      (?P<nl>\n)
    | (?P<comment>![^\n]*)
    | (?P<sq>'(?:[^'\n]|'')*')
    | (?P<dq>"(?:[^"\n]|"")*")
    | (?P<name>[A-Za-z]\w*)
    | (?P<num>(?:\d+\.?\d*|\.\d+)(?:[eEdD][+-]?\d+)?(?:_\w+)?)
    | (?P<op>::|=>|==|/=|<=|>=|\*\*|//|\S)
    )""",
    re.VERBOSE | re.DOTALL,
)

# Nextflow (Groovy): comments, triple-quoted strings (process scripts, read as shell
# lines by ``token_bindings``: kind ``text``), quoted strings with backslash escapes.
_GROOVY_TOKEN_RE = re.compile(
    r"""[ \t\r\f\v]*(?:
      (?P<nl>\n)
    | (?P<text>'{3}.*?(?:'{3}|\Z)|"{3}.*?(?:"{3}|\Z))
    | (?P<esc>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
    | (?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))
    | (?P<name>[A-Za-z_$][\w$]*)
    | (?P<num>\d[\w.]*)
    | (?P<op>==|!=|<=|>=|&&|\|\||->|\?:|\?\.|\*\.|\.\.|::|=~|\S)
    )""",
    re.VERBOSE | re.DOTALL,
)

_OTHER_TOKEN_RES = {"matlab": _MATLAB_TOKEN_RE, "c_cpp": _C_TOKEN_RE, "fortran": _FORTRAN_TOKEN_RE,
                    "nextflow": _GROOVY_TOKEN_RE}
# after these a MATLAB quote with no space before it transposes
_TRANSPOSED = frozenset({")", "]", "}", "'", ".'"})


def _lex_other(text: str, regex: re.Pattern[str]) -> list[Token]:
    """Tokens of MATLAB, C/C++, Fortran or Nextflow code, as :func:`lex` gives them."""
    tokens: list[Token] = []
    append = tokens.append
    match_at = regex.match
    pos, line, end = 0, 1, len(text)
    matlab = regex is _MATLAB_TOKEN_RE
    while pos < end:
        match = match_at(text, pos)
        if match is None:
            break
        kind = match.lastgroup
        if kind == "name" or kind == "op" or kind == "num":
            append((kind, match.group(kind), line))
        elif kind == "nl":
            append(("nl", "\n", line))
            line += 1
        elif kind == "sq" or kind == "dq":
            group = match.group(kind)
            if matlab and kind == "sq" and not match.group("ws") and tokens and (
                    tokens[-1][KIND] in ("name", "num") or tokens[-1][TEXT] in _TRANSPOSED):
                append(("op", "'", line))   # a transpose: the quote alone, the rest lexed again
                pos = match.start(kind) + 1
                continue
            quote = group[0]
            append(("str", group[1:-1].replace(quote + quote, quote), line))
        elif kind == "esc":
            group = match.group("esc")
            append(("str", unescape(group[group.index(group[-1]) + 1:-1]), line))
        elif kind == "chr":
            append(("num", match.group("chr"), line))
        elif kind == "comment":
            line += match.group("comment").count("\n")
        elif kind == "text":
            group = match.group("text")
            closed = len(group) >= 6 and group.endswith(group[:3])
            append(("text", group[3:-3] if closed else group[3:], line))
            line += group.count("\n")
        elif kind == "craw":
            body, stop = _raw_body(text, match.end(), ")" + match.group("delim") + '"', end)
            append(("str", body, line))
            line += text.count("\n", match.start(), stop)
            pos = stop
            continue
        pos = match.end()
    return tokens


# Languages whose bindings this module reads only with the name and the quoted value on
# one line (``db.password = '…'``, ``#define API_KEY "…"``): a C file names ``key`` on
# many lines and binds a credential on none, and most such files need no tokenizing.
_BOUND_ON_ITS_LINE = frozenset({"matlab", "c_cpp", "fortran"})


def may_bind_on_its_line(text: str) -> bool:
    """Whether a possible credential name (:func:`may_name_credential`) has a quote after
    it on its line."""
    lowered = text.lower()
    end_of_text = len(text)
    for word in _CREDENTIAL_NAME_WORDS:
        at = lowered.find(word)
        while at >= 0:
            after = at + len(word)
            if after == end_of_text:
                break
            if text[after] not in _ASCII_ALNUM:
                line_end = text.find("\n", after)
                rest = text[after: end_of_text if line_end < 0 else line_end]
                if '"' in rest or "'" in rest:
                    return True
            at = lowered.find(word, after)
    return False


def lex(text: str, language: str) -> list[Token]:
    """Tokens of R, Julia, MATLAB, C/C++, Fortran or Nextflow code: names, decoded
    strings, numbers, operators and newlines (Nextflow's triple-quoted strings as kind
    ``text``, undecoded); comments dropped. Unterminated constructs degrade to
    single-character operators, so any text tokenizes (up to a space character the
    patterns do not read, such as U+00A0, where tokenizing stops)."""
    if language in _OTHER_TOKEN_RES:
        return _lex_other(text, _OTHER_TOKEN_RES[language])
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
            body, stop = _raw_body(text, match.end(), _RAW_CLOSE[match.group("open")] + match.group("dash")
                                   + match.group("rq"), end)
            append(("str", body, line))
            line += text.count("\n", match.start(), stop)
            pos = stop
            continue
        pos = match.end()
    return tokens


def _raw_body(text: str, start: int, closing: str, end: int) -> tuple[str, int]:
    """A raw string's body from ``start`` to its ``closing`` delimiter (C++ ``R"d(…)d"``,
    R ``r"(…)"``) and the position after it; an unclosed one runs to ``end``."""
    close_at = text.find(closing, start)
    if close_at < 0:
        return text[start:end], end
    return text[start:close_at], close_at + len(closing)


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


# The operators that bind a string to the name before them, by language (R and Julia
# share theirs: the tokens a binding is read from were always the same).
_BINDING_OPS_OF = {
    "matlab": frozenset({"="}), "c_cpp": frozenset({"="}), "fortran": frozenset({"="}),
    "nextflow": frozenset({"=", ":"}),   # params.x = '…', a map entry or named argument [token: '…']
}
# A MATLAB name-value argument (``'Password', '…'``, ``setenv('API_KEY', '…')``) names its
# value with a string of this form.
_ARGUMENT_NAME = re.compile(r"[A-Za-z]\w*")


def token_bindings(tokens: Sequence[Token], language: str = "r") -> Iterator[tuple[str, str, int]]:
    """``(name, value, line)`` of string literals bound to a name, key or argument.

    R and Julia: ``<-``, ``=``, ``:``, ``=>``, ``:=``, ``->``, keys, key-setting calls.
    MATLAB: ``=`` (``db.password = '…'``) and name-value arguments. C/C++: ``=`` (an
    array's ``[…]`` skipped), ``#define NAME "…"``, a declaration's brace or parenthesis
    initialiser (``std::string api_key{"…"}``). Fortran: ``=`` (also a keyword argument,
    ``cfg%password = '…'``). Nextflow: ``=`` and ``:`` (``params.api_key = '…'``, map
    entries, named arguments), and the shell lines of triple-quoted strings (process
    scripts)."""
    if language in _BINDING_OPS_OF:
        yield from _other_bindings(tokens, language)
        return
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


def _other_bindings(tokens: Sequence[Token], language: str) -> Iterator[tuple[str, str, int]]:
    ops = _BINDING_OPS_OF[language]
    for index, tok in enumerate(tokens):
        kind = tok[KIND]
        if kind == "text":
            # a process script: its lines as shell (``--password xyz``, ``export TOKEN=…``)
            for name, value, line in line_bindings(tok[TEXT].split("\n"), "shell"):
                yield name, value, tok[LINE] + line - 1
            continue
        if kind != "str":
            continue
        before = _prev_index(tokens, index)
        if before < 0:
            continue
        prev_kind, prev_text = tokens[before][KIND], tokens[before][TEXT]
        if prev_kind == "op" and prev_text in ops:
            key = _prev_index(tokens, before)
            if language == "c_cpp" and key >= 0 and tokens[key][TEXT] == "]" and tokens[key][KIND] == "op":
                key = _before_bracket(tokens, key)   # char password[64] = "…"
            if key >= 0 and tokens[key][KIND] in ("name", "str"):
                yield tokens[key][TEXT], tok[TEXT], tok[LINE]
        elif language == "c_cpp" and prev_kind == "name":
            # #define NAME "…"
            hash_at = _prev_index(tokens, _prev_index(tokens, before))
            if hash_at >= 0 and tokens[hash_at][TEXT] == "#" and tokens[hash_at + 1][TEXT] == "define":
                yield prev_text, tok[TEXT], tok[LINE]
        elif language == "c_cpp" and prev_kind == "op" and prev_text in ("{", "("):
            # a declaration's initialiser: a type (or a template's >) stands before the name
            name_at = _prev_index(tokens, before)
            type_at = _prev_index(tokens, name_at)
            if name_at >= 0 and tokens[name_at][KIND] == "name" and type_at >= 0 and (
                    tokens[type_at][KIND] == "name" or tokens[type_at][TEXT] == ">"):
                yield tokens[name_at][TEXT], tok[TEXT], tok[LINE]
        elif language == "matlab" and prev_kind == "op" and prev_text == ",":
            # a name-value argument: 'Password', '…'
            key = _prev_index(tokens, before)
            if key >= 0 and tokens[key][KIND] == "str" and _ARGUMENT_NAME.fullmatch(tokens[key][TEXT]):
                yield tokens[key][TEXT], tok[TEXT], tok[LINE]


def _before_bracket(tokens: Sequence[Token], close: int) -> int:
    """Index of the token before the ``[`` that opens the ``]`` at ``close``, or -1."""
    depth = 0
    index = close
    while index >= 0:
        text = tokens[index][TEXT]
        if tokens[index][KIND] == "op" and text == "]":
            depth += 1
        elif tokens[index][KIND] == "op" and text == "[":
            depth -= 1
            if depth == 0:
                return _prev_index(tokens, index)
        index -= 1
    return -1


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
