"""What the category C detectors share: the per-tree scan of C1 and C3 (which files,
their code segments, R/Julia tokens), located hits, and secret detection, which also
masks every snippet; the segments' view for C3 alone (Python literal bindings) lives here
with the segment. C2 reads ImportFacts and InstallFacts, C4 HandlerFacts.
"""

from __future__ import annotations

import ast
import math
import re
import weakref
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

from scoring.model import Evidence, mask_secret
from scoring.parsers.notebook import Cell, notebook_fallback_source
from scoring.parsers.python import CodeUnit
from scoring.tree import TreeIndex

# Evidence lists stay short enough to read; totals always go to ``counts``.
MAX_EVIDENCE = 20
# Located hits reported per file before moving on to the next file.
_HITS_PER_FILE = 3


def _join(items: Sequence[str], limit: int = 5) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'", "/": "/", "$": "$", "`": "`"}
_ESCAPE_RE = re.compile(r"\\(.)", re.DOTALL)


def _unescape(text: str) -> str:
    """Decode the backslash escapes of R, Julia, JSON and double-quoted YAML/TOML strings
    that matter here; an unknown escape keeps its backslash (``"C:\\data"`` stays a path)."""
    if "\\" not in text:
        return text
    return _ESCAPE_RE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(0)), text)


def _shannon_entropy(value: str) -> float:
    if not value:
        return 0.0
    total = len(value)
    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    return -sum(n / total * math.log2(n / total) for n in counts.values())


def _line_at(lines: Sequence[str], line: int) -> str:
    return lines[line - 1] if 0 < line <= len(lines) else ""


# --------------------------------------------------------------------------- R / Julia tokens

class _Tok(NamedTuple):
    kind: str     # name | str | num | op | nl
    text: str     # as written; for ``str`` the decoded value
    line: int     # 1-based line of the token's first character within its segment


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


def _lex(text: str, language: str) -> list[_Tok]:
    """Tokens of R or Julia code: names, decoded strings, numbers, operators and
    newlines; comments dropped. Unterminated constructs degrade to single-character
    operators, so any text tokenizes."""
    regex = _R_TOKEN_RE if language == "r" else _JULIA_TOKEN_RE
    tokens: list[_Tok] = []
    pos, line, end = 0, 1, len(text)
    while pos < end:
        match = regex.match(text, pos)
        if match is None or match.end() == pos:
            break
        kind = match.lastgroup
        if kind == "raw":
            # R raw string r"(...)" closes with the mirrored bracket, dashes and quote.
            closing = _RAW_CLOSE[match.group("open")] + match.group("dash") + match.group("rq")
            close_at = text.find(closing, match.end())
            stop = end if close_at < 0 else close_at + len(closing)
            value = text[match.end(): close_at if close_at >= 0 else end]
            tokens.append(_Tok("str", value, line))
            line += text.count("\n", match.start(), stop)
            pos = stop
            continue
        group = match.group(kind) if kind else ""
        if kind == "nl":
            tokens.append(_Tok("nl", "\n", line))
            line += 1
        elif kind == "comment":
            line += group.count("\n")
        elif kind == "str":
            quote = 3 if group.startswith('"""') else 1
            closed = len(group) >= 2 * quote and group.endswith(group[:quote])
            raw_value = group[quote:-quote] if closed else group[quote:]
            tokens.append(_Tok("str", _unescape(raw_value), line))
            line += group.count("\n")
        elif kind == "chr":
            tokens.append(_Tok("num", group, line))
        elif kind == "name":
            tokens.append(_Tok("name", group.strip("`"), line))
        elif kind in ("num", "op"):
            tokens.append(_Tok(kind, group, line))
        pos = match.end()
    return tokens


def _prev_index(tokens: Sequence[_Tok], index: int) -> int:
    """Index of the nearest token before ``index`` that is not a newline, or -1."""
    index -= 1
    while index >= 0 and tokens[index].kind == "nl":
        index -= 1
    return index


def _next_index(tokens: Sequence[_Tok], index: int) -> int:
    """Index of the nearest token after ``index`` that is not a newline, or len(tokens)."""
    index += 1
    while index < len(tokens) and tokens[index].kind == "nl":
        index += 1
    return index


# --------------------------------------------------------------------------- the scanned files

_CODE_KINDS = ("python", "notebook", "r", "rmd", "julia", "shell")

# Parameter files (§0.1.9 "YAML/JSON/TOML/INI under config roles"): a configuration-like
# name anywhere, or any such file below a configuration directory.
_PARAM_FORMATS = {".yaml": "yaml", ".yml": "yaml", ".json": "json", ".toml": "toml", ".ini": "ini", ".cfg": "ini"}
_CONFIG_DIRS = frozenset(
    {"config", "configs", "conf", "confs", "cfg", "cfgs", "configuration", "configurations", "params",
     "parameters", "settings", "hparams", "hyperparams", "hyperparameters", "secrets", "credentials"}
)
_CONFIG_STEM_RE = re.compile(
    r"(?:^|.*[_.\-])(?:configs?|conf|cfg|configuration|params|parameters|settings|hparams|hyperparams|"
    r"hyperparameters|secrets?|credentials?)(?:[_.\-].*)?",
    re.IGNORECASE,
)
# Tool, CI, packaging and metadata files are never parameter files (§0.1.9).
_NOT_PARAMETER_NAMES = frozenset(
    {"setup.cfg", "tox.ini", "pytest.ini", "mypy.ini", "pyproject.toml", "codemeta.json", "citation.cff",
     "_config.yml", "_config.yaml", "_toc.yml", "mkdocs.yml", "mkdocs.yaml", "renovate.json",
     "jsconfig.json", "codecov.yml", "appveyor.yml", "azure-pipelines.yml", "bitbucket-pipelines.yml",
     "cloudbuild.yaml", "cloudbuild.yml", "dependabot.yml", "manifest.toml", "juliamanifest.toml",
     "cargo.toml", "netlify.toml", "vercel.json", "app.json", "composer.json", "tslint.json"}
)
_NOT_PARAMETER_RE = re.compile(
    r"package.*\.json|tsconfig.*\.json|.*(?:^|[-_.])lock(?:[-_.].*)?|(?:.*[-_.])?environment(?:[-_.].*)?\.ya?ml",
    re.IGNORECASE,
)
_ENV_EXCLUDED = frozenset({".env.example", ".env.sample"})


def _parameter_format(path: str) -> str | None:
    """``yaml``/``json``/``toml``/``ini``/``env`` when ``path`` is a parameter or ``.env`` file."""
    parts = path.split("/")
    name = parts[-1]
    lower = name.lower()
    if lower.startswith(".env"):
        return None if lower in _ENV_EXCLUDED else "env"
    dot = lower.rfind(".")
    fmt = _PARAM_FORMATS.get(lower[dot:]) if dot > 0 else None
    if fmt is None or lower in _NOT_PARAMETER_NAMES or _NOT_PARAMETER_RE.fullmatch(lower):
        return None
    if any(part.startswith(".") for part in parts):
        return None  # .github/, .vscode/, .readthedocs.yml, .pre-commit-config.yaml, ...
    if _CONFIG_STEM_RE.fullmatch(lower[:dot]) or any(part.lower() in _CONFIG_DIRS for part in parts[:-1]):
        return fmt
    return None


@dataclass
class _Segment:
    """A piece of one language inside a scanned file, with its position mapping.

    ``language`` is python, r, julia, shell or a parameter format (yaml, json, toml, ini,
    env). Lines are 1-based within the segment; evidence reports ``line + line_offset``
    and ``cell`` (Jupyter notebooks only: lines then count within the cell). A Python
    segment's ``text`` is its ``unit``'s source.
    """

    language: str
    text: str
    cell: int | None = None
    line_offset: int = 0
    unit: CodeUnit | None = None
    magic_lines: frozenset[int] = frozenset()   # python: lines that held a magic (now ``pass``)

    @cached_property
    def lines(self) -> list[str]:
        # A Python unit's lines are split once and shared with the other detectors.
        return self.unit.lines if self.unit is not None else self.text.splitlines()

    @property
    def word_text(self) -> str | None:
        """A Python segment's distinct words (``CodeUnit.word_text``): every string of word
        characters in ``text`` occurs there, in a fraction of the length. None otherwise."""
        return self.unit.word_text if self.unit is not None else None

    @cached_property
    def tokens(self) -> list[_Tok]:
        return _lex(self.text, self.language) if self.language in ("r", "julia") else []

    # The two Python views below feed one detector each, which reads them once: plain
    # methods, as caching would only add the cost of cached_property's lock.
    def python_bindings(self) -> list[tuple[str, ast.Constant]]:
        """Python literal bindings (C3); the AST is walked only when the text could hold one."""
        unit = self.unit
        if self.language != "python" or unit is None or unit.tree is None or not _may_bind_credential(unit):
            return []
        return [b for node in ast.walk(unit.tree) if isinstance(node, _BINDING_NODES) for b in _node_bindings(node)]

    def line_of_offset(self, offset: int) -> int:
        return self.text.count("\n", 0, offset) + 1


@dataclass
class _ScannedFile:
    path: str
    kind: str                      # python, notebook, r, rmd, julia, shell, or a parameter format
    segments: list[_Segment]
    unparseable: bool = False


@dataclass
class _TreeScan:
    """Per-tree views shared by C1 and C3."""

    code: list[_ScannedFile] = field(default_factory=list)
    parameters: list[_ScannedFile] = field(default_factory=list)


_SCANS: weakref.WeakKeyDictionary[TreeIndex, _TreeScan] = weakref.WeakKeyDictionary()


def _scan(tree: TreeIndex) -> _TreeScan:
    cached = _SCANS.get(tree)
    if cached is None:
        cached = _build_scan(tree)
        _SCANS[tree] = cached
    return cached


def _build_scan(tree: TreeIndex) -> _TreeScan:
    units_by_cell: dict[tuple[str, int], CodeUnit] = {}
    for unit in tree.python_units():
        if unit.cell is not None:
            units_by_cell[(unit.path, unit.cell)] = unit
    scan = _TreeScan()
    paths = sorted((path, kind) for kind in _CODE_KINDS for path in tree.by_type(kind))
    for path, kind in paths:
        scanned = _code_file(tree, path, kind, units_by_cell)
        if scanned is not None:
            scan.code.append(scanned)
    for path in tree.files:
        info = tree.info(path)
        if info is None or info.alias_of is not None or info.type in _CODE_KINDS:
            continue
        fmt = _parameter_format(path)
        if fmt is None:
            continue
        text = tree.text(path)
        if text is not None:
            scan.parameters.append(_ScannedFile(path, fmt, [_Segment(fmt, text)]))
    return scan


def _cell_body(cell: Cell) -> tuple[str, int]:
    """A non-Python cell's code and its line shift (a leading ``%%R``/``%%bash`` line is dropped)."""
    lines = cell.source.splitlines()
    if lines and lines[0].lstrip().startswith("%%"):
        return "\n".join(lines[1:]), 1
    return cell.source, 0


def _python_segments(unit: CodeUnit, cell: int | None, offset: int) -> list[_Segment]:
    if not unit.magics:  # most units: skip building empty collections
        return [_Segment("python", unit.source, cell, offset, unit)]
    magic_lines = frozenset(m.line for m in unit.magics)
    segments = [_Segment("python", unit.source, cell, offset, unit, magic_lines)]
    # Magic lines are commands (``!wget …``, ``%cd /home/…``, ``%env KEY=…``): scan them as shell.
    segments.extend(_Segment("shell", m.text, cell, offset + m.line - 1) for m in unit.magics)
    return segments


def _code_file(tree: TreeIndex, path: str, kind: str, units_by_cell: dict[tuple[str, int], CodeUnit]) -> _ScannedFile | None:
    if kind == "python":
        unit = tree.python_unit(path)
        if unit is None:
            return None  # binary, unreadable or over the size limit: listed in inventory.skipped
        return _ScannedFile(path, kind, _python_segments(unit, None, 0), unparseable=unit.tree is None)
    if kind in ("r", "julia", "shell"):
        text = tree.text(path)
        return None if text is None else _ScannedFile(path, kind, [_Segment(kind, text)])
    notebook = tree.notebook(path)
    if notebook is None:
        text = tree.text(path)
        if text is None:
            return None
        unit = CodeUnit.parse(path, notebook_fallback_source(text))
        return _ScannedFile(path, kind, [_Segment("python", unit.source, None, 0, unit)], unparseable=True)
    is_jupyter = kind == "notebook"
    segments: list[_Segment] = []
    for cell in notebook.code_cells:
        cell_no = cell.index if is_jupyter else None
        if cell.language == "python":
            unit = units_by_cell.get((path, cell.index))
            if unit is not None:
                segments.extend(_python_segments(unit, cell_no, cell.line_offset))
        elif cell.language in ("r", "julia", "shell"):
            body, shift = _cell_body(cell)
            segments.append(_Segment(cell.language, body, cell_no, cell.line_offset + shift))
    return _ScannedFile(path, kind, segments)


# --------------------------------------------------------------------------- located hits

@dataclass(frozen=True)
class _Hit:
    path: str
    line: int
    rule: str
    reason: str
    snippet: str
    cell: int | None = None
    line_end: int | None = None

    def evidence(self) -> Evidence:
        return Evidence(self.path, self.reason, rule=self.rule, line_start=self.line,
                        line_end=self.line_end or self.line, snippet=self.snippet, cell=self.cell)


def _evidence(hits_by_file: dict[str, list[_Hit]]) -> list[Evidence]:
    """At most ``_HITS_PER_FILE`` hits per file, files in sorted order, ``MAX_EVIDENCE`` in all."""
    out: list[Evidence] = []
    for path in sorted(hits_by_file):
        for hit in hits_by_file[path][:_HITS_PER_FILE]:
            if len(out) >= MAX_EVIDENCE:
                return out
            out.append(hit.evidence())
    return out


def _ratio_value(bad: int, scanned: int) -> float:
    return max(0.0, 100.0 * (1 - bad / scanned))


# --------------------------------------------------------------------------- secrets (C3, also used to mask snippets)

# (provider, literal prefixes one of which every token of the format contains, pattern)
_PROVIDER_TOKENS = (
    ("aws", ("AKIA", "ASIA"), r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Za-z0-9])"),
    ("github", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
     r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"),
    ("gitlab", ("glpat-",), r"(?<![A-Za-z0-9_])glpat-[A-Za-z0-9_\-]{20,}"),
    ("stripe", ("k_live_",), r"(?<![A-Za-z0-9_])[sr]k_live_[A-Za-z0-9]{16,}"),
    ("openai", ("sk-",), r"(?<![A-Za-z0-9_\-])sk-(?:proj-[A-Za-z0-9_\-]{32,}|[A-Za-z0-9]{32,})"),
    ("slack", ("xox",), r"(?<![A-Za-z0-9_])xox[abprs]-[A-Za-z0-9\-]{10,}"),
    ("google", ("AIza",), r"(?<![A-Za-z0-9_])AIza[0-9A-Za-z_\-]{35}"),
    ("huggingface", ("hf_",), r"(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,}"),
    ("jwt", ("eyJ",), r"(?<![A-Za-z0-9_\-])eyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}"),
)
_PROVIDER_TOKEN_RES = tuple((name, prefixes, re.compile(rx)) for name, prefixes, rx in _PROVIDER_TOKENS)
# The word characters that start every prefix, in one pattern: one search of a unit's
# distinct words rules out every provider at once.
_PROVIDER_WORD_HINT_RE = re.compile("|".join(prefix.rstrip("-") for _, prefixes, _ in _PROVIDER_TOKENS
                                             for prefix in prefixes))


def _provider_tokens(text: str, word_text: str | None = None) -> Iterator[tuple[str, re.Match[str]]]:
    """``(provider, match)`` of provider token formats; substring tests first keep the
    regular expressions off the (usual) text that holds no candidate at all. ``word_text``
    (``CodeUnit.word_text`` of ``text``) is a shorter text to rule candidates out first."""
    if word_text is not None and not _PROVIDER_WORD_HINT_RE.search(word_text):
        return
    for name, prefixes, regex in _PROVIDER_TOKEN_RES:
        if any(prefix in text for prefix in prefixes):
            for match in regex.finditer(text):
                yield name, match


# A PEM private key counts only with key material after its header (a bare header string
# is how key-handling code recognises keys).
_PEM_RE = re.compile(
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:\\[nr]|[\s\"'+,])*[A-Za-z0-9+/=]{20,}"
)

# Credential words (§0.1.29): the name's last component(s) must be one of these.
_SPECIFIC_CREDENTIAL_WORDS = (
    ("secret", "access", "key"), ("api", "key"), ("apikey",), ("api", "secret"), ("access", "token"),
    ("secret", "key"), ("auth", "token"), ("private", "key"), ("client", "secret"), ("bearer", "token"),
    ("password",), ("passwd",), ("credentials",), ("credential",),
)
_GENERIC_CREDENTIAL_WORDS = frozenset({"token", "secret", "pwd", "auth"})
_MIN_GENERIC_ENTROPY = 3.0
_MIN_SECRET_LENGTH = 8

_CAMEL_RE = re.compile(r"([a-z0-9])([A-Z])")
_NAME_SPLIT_RE = re.compile(r"[^A-Za-z0-9]+")
_PLACEHOLDER_MARKERS = (
    "YOUR_", "YOUR-", "EXAMPLE", "PLACEHOLDER", "XXXX", "TEST_", "CHANGE_ME", "CHANGEME", "INSERT_",
    "<", ">", "...", "REPLACE", "DUMMY", "REDACTED", "***", "FAKE", "TODO",
)
_URL_VALUE_RE = re.compile(r"^[A-Za-z][\w+.\-]*://")
_PATH_VALUE_RE = re.compile(
    r"^(?:/|\./|\.\./|~[/\\]|[A-Za-z]:[\\/]|\\\\)|^[\w.\-]+(?:[/\\][\w.\-]+)*\.[A-Za-z][A-Za-z0-9]{1,4}$"
)
_REGEX_VALUE_RE = re.compile(r"\\[dDwWsSbB]|\[\^|\(\?[:=!P<]|\.\*|\.\+|\[[A-Za-z0-9]-[A-Za-z0-9]\]|^\^.*\$$")
_TEMPLATE_VALUE_RE = re.compile(
    r"\$\{|\{\{|\$\(|%\(|^\$[A-Za-z_]|\{[\w.]*\}|%[sd]|os\.environ|getenv|Sys\.getenv|ENV\[|^!ENV"
)
_IDENTIFIER_VALUE_RE = re.compile(r"^[A-Za-z_][\w.\-]*$")


def _name_components(name: str) -> list[str]:
    return [p.lower() for p in _NAME_SPLIT_RE.split(_CAMEL_RE.sub(r"\1_\2", name)) if p]


def _credential_word(name: str) -> tuple[str, bool] | None:
    """``(word, generic)`` when ``name`` ends with a credential word, else None."""
    parts = _name_components(name)
    if not parts:
        return None
    for words in _SPECIFIC_CREDENTIAL_WORDS:
        if tuple(parts[-len(words):]) == words:
            return "_".join(words), False
    if parts[-1] in _GENERIC_CREDENTIAL_WORDS:
        return parts[-1], True
    return None


def _secret_value(name: str, value: str) -> str | None:
    """The credential word when ``value`` bound to ``name`` looks like a real secret."""
    found = _credential_word(name)
    if found is None:
        return None
    word, generic = found
    value = value.strip()
    if len(value) < _MIN_SECRET_LENGTH or any(ch.isspace() for ch in value):
        return None
    if _URL_VALUE_RE.match(value) or _PATH_VALUE_RE.search(value) or _REGEX_VALUE_RE.search(value):
        return None
    if _TEMPLATE_VALUE_RE.search(value):
        return None
    upper = value.upper()
    if any(marker in upper for marker in _PLACEHOLDER_MARKERS):
        return None
    # A field name rather than a secret: "user_password", "access_token", "api.key".
    if _IDENTIFIER_VALUE_RE.match(value):
        compact = value.lower()
        if any(part in compact for part in word.split("_")) and (re.search(r"[_.\-]", value) or compact == word):
            return None
    if generic and _shannon_entropy(value) < _MIN_GENERIC_ENTROPY:
        return None
    return word


# Credential bindings within a line, which _mask_line masks in every snippet: shell
# assignments, command-line options, JSON pairs, quoted bindings (C3 adds whole-line
# forms of its own).
_SHELL_ASSIGN_STRICT_RE = re.compile(
    r"""(?:^|[\s;&|(])(?:export\s+|local\s+|readonly\s+|declare\s+(?:-\w+\s+)*)?
        (?P<name>[A-Za-z_][\w]*)=(?P<value>"[^"\n]*"|'[^'\n]*'|[^\s;&|#'"]+)""",
    re.VERBOSE,
)
_CLI_OPTION_RE = re.compile(
    r"""(?:^|\s)--?(?P<name>[A-Za-z][\w\-]*)(?:=|\s+)(?P<value>"[^"\n]*"|'[^'\n]*'|[^\s;&|#'"-][^\s;&|#'"]*)"""
)
_JSON_PAIR_RE = re.compile(r'"(?P<name>(?:[^"\\]|\\.)*)"\s*:\s*"(?P<value>(?:[^"\\]|\\.)*)"')
_QUOTED_BINDING_RE = re.compile(
    r"""(?P<q1>["']?)(?P<name>[A-Za-z_][\w.\-]*)(?P=q1)\s*(?:(?<![=!<>])=(?!=)|:|<-)\s*[rRuUbB]?(?P<q>["'])(?P<value>(?:\\.|(?!(?P=q)).)*)(?P=q)"""
)


def _unquote(value: str) -> str:
    """A bare or quoted value, decoded (double quotes decode escapes, single do not)."""
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return _unescape(value[1:-1]) if value[0] == '"' else value[1:-1]
    return value


def _strip_comment(line: str, markers: str = "#") -> str:
    """``line`` up to an unquoted comment marker that starts the line or follows whitespace."""
    if not any(marker in line for marker in markers):
        return line
    quote = ""
    for index, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in markers and (index == 0 or line[index - 1].isspace()):
            return line[:index]
    return line


_BARE_BINDING_RE = re.compile(r"""(?P<name>[A-Za-z_][\w.\-]*)["']?\s*[:=]\s*(?P<value>[^\s"',;#]+)""")


def _mask_line(line: str, secrets: Iterable[str] = ()) -> str:
    """``line`` with provider tokens, PEM keys, credential-looking bound values and the
    given ``secrets`` masked, in one pass (masking a mask again would garble it). A
    masked value loses its quotes so that snippet redaction leaves the mask alone."""
    spans: list[tuple[int, int]] = [m.span() for _, m in _provider_tokens(line)]
    spans.extend(m.span() for m in _PEM_RE.finditer(line))
    for regex in (_QUOTED_BINDING_RE, _JSON_PAIR_RE, _SHELL_ASSIGN_STRICT_RE, _CLI_OPTION_RE, _BARE_BINDING_RE):
        for match in regex.finditer(line):
            raw = match.group("value")
            value = _unquote(raw)
            quoted = regex in (_QUOTED_BINDING_RE, _JSON_PAIR_RE) or raw[:1] in "\"'"
            if not _credential_word(match.group("name")) or len(value) < 4:
                continue
            if quoted or _secret_value(match.group("name"), value):
                spans.append(match.span("value"))
    for secret in secrets:
        if len(secret) >= 4:
            spans.extend((m.start(), m.end()) for m in re.finditer(re.escape(secret), line))
    if not spans:
        return line
    merged: list[list[int]] = []
    for start, stop in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], stop)
        else:
            merged.append([start, stop])
    out, position = [], 0
    for start, stop in merged:
        if 0 < start and stop < len(line) and line[start - 1] == line[stop] and line[stop] in "\"'":
            start, stop = start - 1, stop + 1
        out.append(line[position:start])
        out.append(mask_secret(_unquote(line[start:stop])))
        position = stop
    out.append(line[position:])
    return "".join(out)


# --------------------------------------------------------------------------- Python bindings (the segments' view for C3)

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


def _may_bind_credential(unit: CodeUnit) -> bool:
    # The credential words are letters only: the unit's distinct words, a fraction of the
    # source, tell which of them the source holds at all.
    words = unit.word_text.lower()
    present = [word for word in _CREDENTIAL_WORDS_LOWER if word in words]
    if not present:
        return False
    lowered = unit.source.lower()
    for word in present:
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
