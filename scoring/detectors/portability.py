"""Category C, code portability (METRICS.md C1–C4).

Will the code run on a machine other than the author's? Four detectors read the code of
a deposit: machine-specific absolute paths (C1), imports that no manifest declares (C2),
hard-coded credentials (C3) and exception handlers that swallow every error (C4).

The scanned source set is that of METRICS.md §0.1.9: Python files, notebook code cells
(never stored outputs), R (``.R``/``.r``/``.Rmd``/``.qmd``), Julia and shell files; C1
and C3 add parameter files (YAML/JSON/TOML/INI in a configuration role) and ``.env*``
files. Python is read through its AST (the tree index's cached ``CodeUnit``); R and
Julia through a small tokenizer of this module; shell, parameter and ``.env`` files line
by line. A file that does not parse stays in the denominator and is scanned with a
token or regular-expression fallback.

All four metrics are continuous (``level=None``). The per-file views (which files are
scanned, their code segments, R/Julia tokens) are built once per tree and shared by the
four detectors, so each file is read and tokenized once.
"""

from __future__ import annotations

import ast
import bisect
import json
import math
import re
import weakref
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from importlib import resources
from typing import NamedTuple

from scoring.model import Evidence, mask_secret
from scoring.parsers.manifests import normalize_name, parse_install_command
from scoring.parsers.notebook import Cell
from scoring.parsers.python import CodeUnit
from scoring.registry import Result, detector
from scoring.tree import TreeIndex

# Evidence lists stay short enough to read; totals always go to ``counts``.
MAX_EVIDENCE = 20
# Located hits reported per file before moving on to the next file.
_HITS_PER_FILE = 3

# --------------------------------------------------------------------------- bundled data


@cache
def stdlib_modules() -> frozenset[str]:
    """The frozen standard-library list (``scoring/data/stdlib_modules.txt``)."""
    text = resources.files("scoring").joinpath("data/stdlib_modules.txt").read_text(encoding="utf-8")
    return frozenset(line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#"))


@cache
def _distribution_data() -> dict:
    text = resources.files("scoring").joinpath("data/import_distributions.json").read_text(encoding="utf-8")
    return json.loads(text)


def import_distributions() -> dict[str, tuple[str, ...]]:
    """Curated import name → distribution names (``scoring/data/import_distributions.json``)."""
    return {k: tuple(v) for k, v in _distribution_data()["mapping"].items()}


@cache
def _mapping() -> dict[str, tuple[str, ...]]:
    return import_distributions()


@cache
def _environment_provided() -> frozenset[str]:
    return frozenset(_distribution_data()["environment_provided"])


# --------------------------------------------------------------------------- small helpers


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


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


_OPENERS = {"(": ")", "[": "]", "{": "}"}


def _matching(tokens: Sequence[_Tok], open_index: int) -> int:
    """Index of the bracket closing the one at ``open_index`` (or the last token)."""
    opener = tokens[open_index].text
    closer = _OPENERS[opener]
    depth = 0
    for index in range(open_index, len(tokens)):
        tok = tokens[index]
        if tok.kind != "op":
            continue
        if tok.text == opener:
            depth += 1
        elif tok.text == closer:
            depth -= 1
            if depth == 0:
                return index
    return len(tokens) - 1


def _call_arguments(tokens: Sequence[_Tok], open_index: int) -> list[list[_Tok]]:
    """The top-level arguments of the call whose ``(`` is at ``open_index``, newlines dropped."""
    close = _matching(tokens, open_index)
    args: list[list[_Tok]] = [[]]
    depth = 0
    for tok in tokens[open_index + 1: close]:
        if tok.kind == "nl":
            continue
        if tok.kind == "op" and tok.text in _OPENERS:
            depth += 1
        elif tok.kind == "op" and tok.text in (")", "]", "}"):
            depth -= 1
        elif depth == 0 and tok.kind == "op" and tok.text == ",":
            args.append([])
            continue
        args[-1].append(tok)
    return [a for a in args if a]


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

    def python_handlers(self) -> list[ast.ExceptHandler]:
        """Python exception handlers (C4), found through statement bodies only."""
        unit = self.unit
        # A handler needs the keyword, which stands as a word of its own.
        if self.language != "python" or unit is None or unit.tree is None or "except" not in unit.words:
            return []
        return list(_handlers_in(unit.tree.body))

    @cached_property
    def packages(self) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
        """R/Julia ``(used packages, installed packages)`` with their lines (C2)."""
        if self.language == "r":
            return _r_packages(self)
        if self.language == "julia":
            return _julia_packages(self)
        return [], []

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
    """Per-tree views shared by the four detectors."""

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


_JSON_STRING_LINE_RE = re.compile(r'^\s*"((?:[^"\\]|\\.)*)",?\s*$')


def _notebook_fallback_source(text: str) -> str:
    """Source lines recovered from an invalid notebook's JSON text, one per file line
    (lines that are not a lone JSON string become blank)."""
    out = []
    for line in text.splitlines():
        match = _JSON_STRING_LINE_RE.match(line)
        if match is None:
            out.append("")
            continue
        try:
            decoded = json.loads(f'"{match.group(1)}"')
        except ValueError:
            decoded = match.group(1)
        out.append(decoded.rstrip("\n").replace("\n", " "))
    return "\n".join(out)


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
        unit = CodeUnit.parse(path, _notebook_fallback_source(text))
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

# Every credential word contains one of these (case-insensitive): a line without them binds none.
_CREDENTIAL_HINT_RE = re.compile(r"(?i)pass|pwd|key|secret|token|auth|credential|--user|-u\s|://[^/\s:@]+:[^/\s@]+@")
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


# Line-oriented credential bindings: shell/.env (quoted or bare values), YAML, INI, JSON, TOML.
_SHELL_ASSIGN_STRICT_RE = re.compile(
    r"""(?:^|[\s;&|(])(?:export\s+|local\s+|readonly\s+|declare\s+(?:-\w+\s+)*)?
        (?P<name>[A-Za-z_][\w]*)=(?P<value>"[^"\n]*"|'[^'\n]*'|[^\s;&|#'"]+)""",
    re.VERBOSE,
)
_MAGIC_ENV_RE = re.compile(r"^\s*%(?:env|set_env)\s+(?P<name>[A-Za-z_]\w*)(?:\s*=\s*|\s+)(?P<value>\S+)")
_CLI_OPTION_RE = re.compile(
    r"""(?:^|\s)--?(?P<name>[A-Za-z][\w\-]*)(?:=|\s+)(?P<value>"[^"\n]*"|'[^'\n]*'|[^\s;&|#'"-][^\s;&|#'"]*)"""
)
_URL_PASSWORD_RE = re.compile(r"\b[a-z][a-z0-9+.-]*://[^/\s:@]+:(?P<password>[^/\s@]+)@", re.IGNORECASE)
_ENV_LINE_RE = re.compile(r"^\s*(?:export\s+)?(?P<name>[A-Za-z_][\w.\-]*)\s*=\s*(?P<value>.*)$")
_YAML_LINE_RE = re.compile(r"""^\s*(?:-\s+)?(?P<q>["']?)(?P<name>[A-Za-z_][\w.\- ]*?)(?P=q)\s*:\s+(?P<value>.*)$""")
_INI_LINE_RE = re.compile(r"^\s*(?P<name>[A-Za-z_][\w.\- ]*?)\s*[=:]\s*(?P<value>.*)$")
_JSON_PAIR_RE = re.compile(r'"(?P<name>(?:[^"\\]|\\.)*)"\s*:\s*"(?P<value>(?:[^"\\]|\\.)*)"')
_TOML_PAIR_RE = re.compile(
    r"""(?:^|[{,]\s*)\s*(?P<q>["']?)(?P<name>[A-Za-z_][\w.\-]*)(?P=q)\s*=\s*(?P<value>"(?:[^"\\\n]|\\.)*"|'[^'\n]*')"""
)
_QUOTED_BINDING_RE = re.compile(
    r"""(?P<q1>["']?)(?P<name>[A-Za-z_][\w.\-]*)(?P=q1)\s*(?:(?<![=!<>])=(?!=)|:|<-)\s*[rRuUbB]?(?P<q>["'])(?P<value>(?:\\.|(?!(?P=q)).)*)(?P=q)"""
)


def _bare_or_quoted(raw: str, markers: str = "#") -> str | None:
    """The value of a YAML/INI/.env entry: the inside of a leading quoted string, else
    the text before an inline comment. None for YAML anchors, aliases, tags, block and
    flow collections (their content is on other lines or not a plain scalar)."""
    raw = raw.strip()
    if not raw:
        return None
    if raw[0] in "\"'":
        close = raw.find(raw[0], 1)
        inner = raw[1:close] if close > 0 else raw[1:]
        return _unescape(inner) if raw[0] == '"' else inner
    if raw[0] in "&*|>!{[":
        return None
    return _strip_comment(raw, markers).strip()


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


def _line_bindings(segment: _Segment) -> Iterator[tuple[str, str, int]]:
    """``(name, value, line)`` of literal bindings in a line-oriented segment."""
    language = segment.language
    for number, line in enumerate(segment.lines, start=1):
        if not _CREDENTIAL_HINT_RE.search(line):
            continue  # cheap test first: most lines name no credential at all
        if language == "json":
            for match in _JSON_PAIR_RE.finditer(line):
                yield _unescape(match.group("name")), _unescape(match.group("value")), number
            continue
        stripped = line.lstrip()
        if not stripped or stripped.startswith("#") or (language == "ini" and stripped.startswith(";")):
            continue
        if language == "toml":
            for match in _TOML_PAIR_RE.finditer(line):
                yield match.group("name"), _unquote(match.group("value")), number
        elif language in ("yaml", "ini", "env"):
            regex = _YAML_LINE_RE if language == "yaml" else _INI_LINE_RE if language == "ini" else _ENV_LINE_RE
            match = regex.match(line)
            value = _bare_or_quoted(match.group("value"), "#;" if language == "ini" else "#") if match else None
            if value is not None:
                yield match.group("name"), value, number
        elif language == "shell":
            code = _strip_comment(line)
            magic = _MAGIC_ENV_RE.match(code)
            if magic:
                yield magic.group("name"), _unquote(magic.group("value")), number
                continue
            for match in _SHELL_ASSIGN_STRICT_RE.finditer(code):
                yield match.group("name"), _unquote(match.group("value")), number
            for match in _CLI_OPTION_RE.finditer(code):
                name, value = match.group("name"), _unquote(match.group("value"))
                if name in ("user", "u") and ":" in value:
                    # curl/wget ``--user id:secret`` carries a password after the colon.
                    yield "password", value.split(":", 1)[1], number
                else:
                    yield name, value, number
            for match in _URL_PASSWORD_RE.finditer(code):
                yield "password", match.group("password"), number
        elif language == "python":  # fallback for code that does not parse
            for match in _QUOTED_BINDING_RE.finditer(line):
                value = match.group("value")
                yield match.group("name"), _unescape(value) if match.group("q") == '"' else value, number


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


# --------------------------------------------------------------------------- C1 no_absolute_paths

_SEG = r"[^/\s\"'\\)>]+"
_START = r"(?<![\w.~\-/])"
_ABSOLUTE_PATH_RULES = (
    ("home", rf"{_START}/home/{_SEG}/"),
    ("macos_users", rf"{_START}/Users/{_SEG}/"),
    ("root", rf"{_START}/root/{_SEG}"),
    ("mnt", rf"{_START}/mnt/[A-Za-z][^/\s\"'\\)>]*/"),
    ("volumes", rf"{_START}/Volumes/{_SEG}/"),
    ("cluster", rf"{_START}/(?:scratch|gpfs|lustre|nfs)/"),
    ("cluster", rf"{_START}/n/{_SEG}/"),
    ("colab_drive", rf"{_START}/content/drive/"),
    ("user_home", r"(?<![\w~$])~[A-Za-z_][\w.\-]*/"),
    ("windows_drive", r"(?<![A-Za-z0-9])[A-Za-z]:[\\/](?![\\/])"),
)
_ABSOLUTE_PATH_RE = re.compile("|".join(f"(?P<{rule}_{i}>{rx})" for i, (rule, rx) in enumerate(_ABSOLUTE_PATH_RULES)))
# Loose form of the rules above, run over raw text (escapes not decoded) to skip files
# that cannot hold a hit.
# One pattern per leading literal: a search that starts with a fixed character skips
# through the text at memchr speed, while one alternation that starts with a lookbehind
# is tried at every position (ten times slower on a typical module).
_PATH_HINT_DIRS = frozenset(
    {"home", "Users", "root", "mnt", "Volumes", "scratch", "gpfs", "lustre", "nfs", "n", "content"}
)
_PATH_HINT_SLASH_RE = re.compile(f"/(?:{'|'.join(sorted(_PATH_HINT_DIRS))})/")
_PATH_HINT_TILDE_RE = re.compile(r"~[A-Za-z_]")
_PATH_HINT_DRIVE_RE = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]:[\\/]")
# The drive pattern's separator alone, searched first: faster than two substring tests
# for ":/" and ":\\", whose frequent first character ``:`` keeps stopping the scan.
_DRIVE_SEPARATOR_RE = re.compile(r":[\\/]")


def _may_hold_path(text: str, words: frozenset[str] | None = None) -> bool:
    """Whether ``text`` may hold a path; ``words`` (``CodeUnit.words`` of ``text``) rule out
    the slash pattern without a search, as its directory stands between slashes as a word."""
    return bool(
        ((words is None or not words.isdisjoint(_PATH_HINT_DIRS)) and _PATH_HINT_SLASH_RE.search(text))
        or ("~" in text and _PATH_HINT_TILDE_RE.search(text))
        or (_DRIVE_SEPARATOR_RE.search(text) and _PATH_HINT_DRIVE_RE.search(text))
    )


_EMBEDDED_URL_RE = re.compile(r"\w+://\S+")
_JSON_STRING_RE = re.compile(r'"((?:[^"\\]|\\.)*)"')
_PATH_TAIL_RE = re.compile(r"[^\s\"'<>|,;()\[\]{}]+")


def _absolute_paths(value: str) -> Iterator[tuple[str, str, int]]:
    """``(rule, matched text, offset)`` of machine-specific paths in a decoded value,
    embedded URLs removed first (§0.1.27)."""
    if "/" not in value and "\\" not in value:
        return
    cleaned = _EMBEDDED_URL_RE.sub(lambda m: " " * len(m.group(0)), value)
    for match in _ABSOLUTE_PATH_RE.finditer(cleaned):
        rule = match.lastgroup.rsplit("_", 1)[0] if match.lastgroup else "path"
        # Report the whole path, not just the prefix that identified it.
        whole = _PATH_TAIL_RE.match(cleaned, match.start())
        path = whole.group(0) if whole and len(whole.group(0)) >= len(match.group(0)) else match.group(0)
        yield rule, path[:120], match.start()


def _c1_string_values(segment: _Segment) -> Iterator[tuple[str, int]]:
    """``(decoded string value, first line)`` of the string literals of a code segment."""
    if not _may_hold_path(segment.text, segment.unit.words if segment.unit is not None else None):
        return  # no candidate anywhere in the text: skip the string extraction
    if segment.language == "python" and segment.unit is not None:
        unit = segment.unit
        fallback = unit.tree is None
        for literal in unit.string_literals:
            yield (_unescape(literal.value) if fallback else literal.value), literal.line_start
    elif segment.language in ("r", "julia"):
        for tok in segment.tokens:
            if tok.kind == "str":
                yield tok.text, tok.line
    elif segment.language == "json":
        for number, line in enumerate(segment.lines, start=1):
            for match in _JSON_STRING_RE.finditer(line):
                yield _unescape(match.group(1)), number
    else:
        # Shell, YAML, TOML, INI and .env: each line without its comment.
        markers = "#;" if segment.language == "ini" else "#"
        for number, line in enumerate(segment.lines, start=1):
            if "/" not in line and "\\" not in line:
                continue  # every pattern needs a slash or a backslash
            code = _strip_comment(line, markers)
            if code.strip():
                # Backslashes in these lines are literal; only a doubled one is an escape.
                yield code.replace("\\\\", "\\"), number


def _c1_hits(scanned: _ScannedFile) -> list[_Hit]:
    hits: list[_Hit] = []
    seen: set[tuple[int | None, int, str]] = set()
    for segment in scanned.segments:
        for value, first_line in _c1_string_values(segment):
            for rule, matched, offset in _absolute_paths(value):
                line = first_line + value.count("\n", 0, offset)
                key = (segment.cell, line, matched)
                if key in seen:
                    continue
                seen.add(key)
                hits.append(_Hit(
                    scanned.path, line + segment.line_offset, f"no_absolute_paths.{rule}",
                    f"machine-specific absolute path '{matched}'",
                    _mask_line(_line_at(segment.lines, line)), segment.cell,
                ))
    hits.sort(key=lambda h: (h.cell or 0, h.line))
    return hits


@detector("no_absolute_paths", version="2.0.0")
def no_absolute_paths(tree: TreeIndex) -> Result:
    """Source and parameter files contain no machine-specific absolute paths.

    What it checks:
        Every Python file, notebook code cell, R/R Markdown/Quarto, Julia and shell file,
        plus parameter files (YAML/JSON/TOML/INI named like configuration or below a
        config directory) and ``.env*`` files. A file is bad when a string literal (Python
        via its AST, docstrings excluded; R/Julia via their tokens; notebook magics and
        shell, YAML, TOML, INI and .env lines without comments; JSON string values)
        holds a path such as ``/home/<user>/``, ``/Users/<user>/``, ``/root/…``,
        ``/mnt/<x>…/``, ``/Volumes/<x>/``, ``/scratch/``, ``/gpfs/``, ``/lustre/``,
        ``/nfs/``, ``/n/<x>/``, ``/content/drive/``, ``~<user>/`` or any drive letter
        (``C:\\``, ``d:/``). Embedded URLs are removed before matching. Value =
        100·(1 − bad files / scanned files); no scanned file → 100, not applicable.
    Why it matters:
        A path that only exists on the author's machine makes the code fail on every
        other machine, usually after a long setup, and hides which input it needs.
    Evidence:
        Each hit as path, line (and notebook cell), the matched path and the line as
        snippet; at most three per file. Counts: scanned and bad files, hits, parameter
        files and files scanned with a fallback because they do not parse.
    How to fix:
        Build paths relative to the repository (``pathlib.Path(__file__).parent``, R
        ``here::here()``), or read them from a configuration file, a command-line
        argument or an environment variable.
    Known false positives:
        Paths that are examples inside ordinary strings (help texts, error messages), and
        paths that are legitimately fixed inside a container image (``/home/jovyan/``,
        ``/root/…`` in a Dockerfile-driven script) count. Comments and docstrings never
        count. Files that do not parse (Python 2, invalid notebooks) are scanned with a
        token fallback that may include docstrings or stored outputs.
    """
    scan = _scan(tree)
    files = scan.code + scan.parameters
    if not files:
        return Result(100, applicable=False, reason="no source or parameter files to scan",
                      counts={"files_scanned": 0, "files_with_absolute_paths": 0})
    hits_by_file = {f.path: hits for f in files if (hits := _c1_hits(f))}
    bad = len(hits_by_file)
    value = _ratio_value(bad, len(files))
    counts = {
        "files_scanned": len(files),
        "files_with_absolute_paths": bad,
        "absolute_path_hits": sum(len(h) for h in hits_by_file.values()),
        "parameter_files": len(scan.parameters),
        "unparseable_files": sum(1 for f in files if f.unparseable),
    }
    if not bad:
        return Result(value, counts=counts, reason=f"no machine-specific absolute path in {len(files)} scanned files")
    bad_paths = sorted(hits_by_file)
    return Result(
        value,
        evidence=_evidence(hits_by_file),
        counts=counts,
        reason=f"{bad} of {len(files)} scanned files contain machine-specific absolute paths",
        fix=f"Replace the absolute paths in {_join(bad_paths)} with paths relative to the repository "
            "(pathlib.Path(__file__).parent, here::here()) or read them from a config file or environment variable.",
    )


# --------------------------------------------------------------------------- C2 import_resolvability

# Build tools a ``setup.py`` may import: pip provides them while it runs the file.
_SETUP_PY_PROVIDED = frozenset({"setuptools", "pkg_resources", "distutils", "pip", "wheel"})
_IMPORT_GUARDS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})
_PYTHON_MODULE_SUFFIXES = (".py", ".pyw", ".pyx", ".pxd", ".pyi")
_PYTHON_EXTENSION_SUFFIXES = (".so", ".pyd")

# Packages of every R installation: base and recommended (r-base ships both).
_R_BUILTIN_PACKAGES = frozenset(
    {"base", "compiler", "datasets", "graphics", "grDevices", "grid", "methods", "parallel", "splines", "stats",
     "stats4", "tcltk", "tools", "utils", "translations", "boot", "class", "cluster", "codetools", "foreign",
     "KernSmooth", "lattice", "MASS", "Matrix", "mgcv", "nlme", "nnet", "rpart", "spatial", "survival"}
)
_R_LOADERS = frozenset({"library", "require", "requireNamespace", "loadNamespace"})
_R_INSTALLERS = frozenset({"install.packages", "install", "pkg_install", "pak", "p_install"})
_R_GITHUB_INSTALLERS = frozenset({"install_github", "install_gitlab", "install_bitbucket", "install_git"})
_R_LOAD_AND_INSTALL = frozenset({"p_load"})
_R_PACKAGE_CALLS = _R_LOADERS | _R_INSTALLERS | _R_GITHUB_INSTALLERS | _R_LOAD_AND_INSTALL
_R_PACKAGE_RE = re.compile(r"^[A-Za-z][A-Za-z0-9.]*[A-Za-z0-9]$")

# Julia's standard library and built-in modules (never declared in Project.toml).
_JULIA_STDLIB = frozenset(
    {"Base", "Core", "Main", "ArgTools", "Artifacts", "Base64", "CRC32c", "Dates", "DelimitedFiles",
     "Distributed", "Downloads", "FileWatching", "Future", "InteractiveUtils", "LazyArtifacts", "LibCURL",
     "LibGit2", "Libdl", "LinearAlgebra", "Logging", "Markdown", "Mmap", "NetworkOptions", "Pkg", "Printf",
     "Profile", "REPL", "Random", "SHA", "Serialization", "SharedArrays", "Sockets", "SparseArrays",
     "Statistics", "SuiteSparse", "TOML", "Tar", "Test", "UUIDs", "Unicode"}
)
_JULIA_PACKAGE_RE = re.compile(r"^[A-Za-z_]\w*(?:\.jl)?$")


@dataclass
class _ImportUse:
    language: str          # python | r | julia
    key: str               # table key (longest dotted prefix) or top-level name
    written: str           # the module as written
    path: str
    line: int
    cell: int | None
    snippet: str


@dataclass
class _Declared:
    """Declared dependency names per ecosystem, with where each source came from."""

    python: set[str] = field(default_factory=set)   # PEP 503-normalised
    r: set[str] = field(default_factory=set)        # lower-case
    julia: set[str] = field(default_factory=set)    # lower-case
    manifests: list[str] = field(default_factory=list)
    inline: list[_Hit] = field(default_factory=list)

    def any(self) -> bool:
        return bool(self.python or self.r or self.julia)

    def add_python(self, normalized: str, ecosystem: str) -> None:
        self.python.add(normalized)
        if ecosystem == "conda" and normalized.startswith("r-") and normalized != "r-base":
            self.r.add(normalized[2:])   # conda's R packages: r-ggplot2 → ggplot2


def _catches_import_errors(handler_type: ast.expr | None) -> bool:
    if handler_type is None:
        return True
    if isinstance(handler_type, ast.Name):
        return handler_type.id in _IMPORT_GUARDS
    if isinstance(handler_type, ast.Tuple):
        return any(_catches_import_errors(e) for e in handler_type.elts)
    return False


def _lines_with_import(text: str) -> list[int]:
    """Sorted line numbers holding the substring ``import`` (a superset of import lines)."""
    lines, line, position = [], 1, 0
    found = text.find("import")
    while found >= 0:
        line += text.count("\n", position, found)
        position = found
        if not lines or lines[-1] != line:
            lines.append(line)
        found = text.find("import", found + 6)
    return lines


def _python_import_statements(body: Sequence[ast.AST], text: str) -> Iterator[tuple[tuple[str, ...], int, bool]]:
    """``(dotted candidates, line, guarded)`` of absolute imports, in source order. Only
    statement bodies are walked (imports cannot sit in expressions), and only those whose
    lines contain the word ``import``; ``guarded`` marks imports inside a ``try`` that
    handles ImportError (optional dependencies)."""
    import_lines = _lines_with_import(text)
    if not import_lines:
        return
    last_import_line = import_lines[-1]

    def may_contain_import(node: ast.AST) -> bool:
        index = bisect.bisect_left(import_lines, node.lineno)
        return index < len(import_lines) and import_lines[index] <= (getattr(node, "end_lineno", None) or node.lineno)

    stack: list[tuple[ast.AST, bool]] = [(node, False) for node in reversed(body)]
    while stack:
        node, guarded = stack.pop()
        if not isinstance(node, (ast.Import, ast.ImportFrom, ast.match_case)):
            if node.lineno > last_import_line:
                break  # nodes are popped in source order: no later one can hold an import
            if not may_contain_import(node):
                continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield (alias.name,), node.lineno, guarded
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module:
                names = tuple(f"{node.module}.{a.name}" for a in node.names if a.name != "*")
                yield (*names, node.module), node.lineno, guarded
        elif isinstance(node, (ast.Try, ast.TryStar)):
            optional = guarded or any(_catches_import_errors(h.type) for h in node.handlers)
            later = [*(s for h in node.handlers for s in h.body), *node.orelse, *node.finalbody]
            stack.extend((child, guarded) for child in reversed(later))
            stack.extend((child, optional) for child in reversed(node.body))
        elif isinstance(node, (ast.ExceptHandler, ast.match_case)):
            stack.extend((child, guarded) for child in reversed(node.body))
        elif isinstance(node, ast.stmt):
            children = [c for name in ("body", "handlers", "cases", "orelse", "finalbody")
                        for c in (getattr(node, name, None) or ()) if isinstance(c, ast.AST)]
            stack.extend((child, guarded) for child in reversed(children))


_IMPORT_LINE_RE = re.compile(
    r"^[ \t]*(?:from[ \t]+(?P<from>\.*[\w.]+)[ \t]+import\b|import[ \t]+(?P<modules>[\w.]+(?:[ \t]+as[ \t]+\w+)?"
    r"(?:[ \t]*,[ \t]*[\w.]+(?:[ \t]+as[ \t]+\w+)?)*))"
)


def _python_imports(unit: CodeUnit) -> Iterator[tuple[tuple[str, ...], int, bool]]:
    if unit.tree is not None:
        if "import" in unit.words:  # the keyword of every import statement stands as a word of its own
            yield from _python_import_statements(unit.tree.body, unit.source)
        return
    # Code that does not parse (Python 2, syntax errors): import lines by regex. Not
    # CodeUnit.imports, whose fallback pattern lets ``\s*`` run across blank lines and so
    # reports the line of the blank line before the import.
    for number, line in enumerate(unit.lines, start=1):
        match = _IMPORT_LINE_RE.match(line)
        if match is None:
            continue
        if match.group("from"):
            if not match.group("from").startswith("."):
                yield (match.group("from"),), number, False
        else:
            for module in match.group("modules").split(","):
                module = module.strip().split()[0] if module.strip() else ""
                if module:
                    yield (module,), number, False


def _wildcards(key: str) -> tuple[str, ...]:
    """Distribution prefixes of a namespace key (``google.cloud`` → ``google-cloud-``)."""
    return tuple(name[:-1] for name in _mapping().get(key, ()) if name.endswith("*"))


def _table_key(candidates: Sequence[str]) -> str:
    """The longest dotted prefix of any candidate found in the mapping or the
    environment-provided list, else the top-level name (§0.1.28). Below a namespace
    whose distributions are a family (``google.cloud`` → ``google-cloud-*``), the next
    component is kept, so ``google.cloud.spanner`` and ``google.cloud.storage`` are
    different imports."""
    table, provided = _mapping(), _environment_provided()
    best = ""
    for candidate in candidates:
        parts = candidate.split(".")
        for size in range(len(parts), 0, -1):
            prefix = ".".join(parts[:size])
            if prefix in table or prefix in provided:
                if prefix.count(".") > best.count(".") or not best:
                    best = prefix
                break
    if best and _wildcards(best):
        depth = best.count(".") + 1
        for candidate in candidates:
            parts = candidate.split(".")
            if len(parts) > depth and candidate.startswith(best + "."):
                return ".".join(parts[: depth + 1])
    return best or candidates[-1].split(".")[0]


@dataclass
class _LocalModules:
    tops: set[str] = field(default_factory=set)      # importable top-level names of the repository
    dotted: set[str] = field(default_factory=set)    # dotted module paths (≥ 2 parts) present in the tree
    own: set[str] = field(default_factory=set)       # the project's own distribution names, normalised
    julia: set[str] = field(default_factory=set)     # Julia modules defined in the tree


def _local_modules(tree: TreeIndex, scan: _TreeScan) -> _LocalModules:
    """Modules the repository provides itself: ``<name>.py`` anywhere, packages with an
    ``__init__.py``, dotted paths that exist as files or folders, ``src/<name>``, and the
    project's own distribution name."""
    local = _LocalModules()
    for path in tree.files:
        name = _name(path)
        lower = name.lower()
        if lower.endswith(_PYTHON_MODULE_SUFFIXES):
            stem = name[: name.rfind(".")]
        elif lower.endswith(_PYTHON_EXTENSION_SUFFIXES):
            stem = name.split(".", 1)[0]   # mod.cpython-311-x86_64-linux-gnu.so
        else:
            continue
        folders = path.split("/")[:-1]
        if stem == "__init__":
            if folders:
                local.tops.add(folders[-1])
            module = folders
        else:
            local.tops.add(stem)
            module = [*folders, stem]
        for start in range(len(module) - 1):
            local.dotted.add(".".join(module[start:]))
        for start in range(len(folders) - 1):
            local.dotted.add(".".join(folders[start:]))
        if len(folders) >= 2 and folders[0] == "src":
            local.tops.add(folders[1])
    for manifest in tree.manifests():
        own = _project_name(tree, manifest.path, manifest.kind)
        if own:
            local.own.add(normalize_name(own))
    for scanned in scan.code:
        for segment in scanned.segments:
            if segment.language != "julia":
                continue
            tokens = segment.tokens
            for index, tok in enumerate(tokens[:-1]):
                if tok.kind == "name" and tok.text in ("module", "baremodule") and tokens[index + 1].kind == "name":
                    local.julia.add(tokens[index + 1].text)
    return local


_SETUP_NAME_RE = re.compile(r"""\bname\s*=\s*["']([A-Za-z0-9][A-Za-z0-9._\-]*)["']""")
_SETUP_CFG_NAME_RE = re.compile(r"^\s*name\s*=\s*([A-Za-z0-9][A-Za-z0-9._\-]*)\s*$", re.MULTILINE)


def _project_name(tree: TreeIndex, path: str, kind: str) -> str | None:
    if kind == "pyproject":
        data = tree.toml(path) or {}
        project = data.get("project") if isinstance(data.get("project"), dict) else {}
        poetry = data.get("tool", {}).get("poetry", {}) if isinstance(data.get("tool"), dict) else {}
        name = project.get("name") or (poetry.get("name") if isinstance(poetry, dict) else None)
        return name if isinstance(name, str) else None
    if kind in ("setup.py", "setup.cfg"):
        match = (_SETUP_NAME_RE if kind == "setup.py" else _SETUP_CFG_NAME_RE).search(tree.text(path) or "")
        return match.group(1) if match else None
    return None


def _r_string_args(arg: Sequence[_Tok]) -> list[str]:
    """Package names of one R argument: ``"pkg"``, ``pkg`` or ``c("a", "b")``."""
    if len(arg) == 1 and arg[0].kind in ("str", "name"):
        return [arg[0].text]
    if arg and arg[0].kind == "name" and arg[0].text == "c":
        return [t.text for t in arg if t.kind == "str"]
    return []


def _r_packages(segment: _Segment) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """``(used packages, installed packages)`` with lines, from one R segment."""
    used: list[tuple[str, int]] = []
    installed: list[tuple[str, int]] = []
    tokens = segment.tokens
    for index, tok in enumerate(tokens):
        if tok.kind != "name":
            continue
        nxt = tokens[index + 1] if index + 1 < len(tokens) else None
        if nxt is not None and nxt.kind == "op" and nxt.text in ("::", ":::"):
            used.append((tok.text, tok.line))
            continue
        if nxt is None or nxt.kind != "op" or nxt.text != "(" or tok.text not in _R_PACKAGE_CALLS:
            continue
        args = _call_arguments(tokens, index + 1)
        if not args:
            continue
        positional = [a for a in args if not (len(a) >= 2 and a[0].kind == "name" and a[1].text == "=")]
        if tok.text in _R_LOADERS:
            if any(a[0].kind == "name" and a[0].text == "character.only" for a in args):
                continue  # library(pkg, character.only = TRUE): the name is in a variable
            if positional and len(positional[0]) == 1 and positional[0][0].kind in ("str", "name"):
                used.append((positional[0][0].text, tok.line))
        elif tok.text in _R_LOAD_AND_INSTALL:
            for arg in positional:
                for package in _r_string_args(arg):
                    used.append((package, tok.line))
                    installed.append((package, tok.line))
        elif tok.text in _R_INSTALLERS and positional:
            installed.extend((p, tok.line) for p in _r_string_args(positional[0]) if tok.text != "install" or
                             _qualified_by(tokens, index, ("BiocManager", "renv", "pak", "remotes")))
        elif tok.text in _R_GITHUB_INSTALLERS and positional:
            for spec in _r_string_args(positional[0]):
                repo = spec.split("@", 1)[0].rstrip("/").rsplit("/", 1)[-1]
                installed.append((repo, tok.line))
    return ([(p, n) for p, n in used if _R_PACKAGE_RE.match(p)],
            [(p, n) for p, n in installed if _R_PACKAGE_RE.match(p)])


def _qualified_by(tokens: Sequence[_Tok], index: int, owners: Iterable[str]) -> bool:
    return index >= 2 and tokens[index - 1].text in ("::", ":::") and tokens[index - 2].text in owners


def _julia_packages(segment: _Segment) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """``(used, installed)`` from one Julia segment: ``using``/``import`` lists (relative
    ``.Mod`` skipped) and ``Pkg.add`` names."""
    used: list[tuple[str, int]] = []
    installed: list[tuple[str, int]] = []
    tokens = segment.tokens
    index = 0
    while index < len(tokens):
        tok = tokens[index]
        prev = tokens[index - 1] if index else None
        at_statement = prev is None or prev.kind == "nl" or prev.text in (";", "begin")
        if tok.kind == "name" and tok.text in ("using", "import") and at_statement:
            index += 1
            expect_module = True
            while index < len(tokens) and tokens[index].kind != "nl":
                current = tokens[index]
                if current.kind == "op" and current.text in (":", ";"):
                    break  # using A: f, g — the rest are names, not modules; ";" ends the statement
                if current.kind == "op" and current.text == ",":
                    expect_module = True
                elif expect_module:
                    if current.kind == "name":
                        used.append((current.text, current.line))
                    expect_module = False   # relative ".A" (op first) is local: skipped
                index += 1
            continue
        if tok.kind == "name" and tok.text == "add" and prev is not None and prev.text == "." and index >= 2 \
                and tokens[index - 2].text == "Pkg" and index + 1 < len(tokens) and tokens[index + 1].text == "(":
            close = _matching(tokens, index + 1)
            for inner in tokens[index + 2: close]:
                if inner.kind == "str" and _JULIA_PACKAGE_RE.match(inner.text):
                    installed.append((inner.text.removesuffix(".jl"), inner.line))
            index = close
        index += 1
    return used, installed


def _declared(tree: TreeIndex, scan: _TreeScan) -> _Declared:
    declared = _Declared()
    for manifest in tree.manifests():
        entries = [*manifest.dependencies, *manifest.build_requires]
        if entries:
            declared.manifests.append(manifest.path)
        for dep in entries:
            if dep.ecosystem in ("pypi", "conda"):
                declared.add_python(dep.normalized, dep.ecosystem)
            elif dep.ecosystem == "cran":
                declared.r.add(dep.name.lower())
            elif dep.ecosystem == "julia":
                declared.julia.add(dep.name.lower())
    for location in tree.env_locations:
        lock = tree.find_ci("renv.lock", location)
        data = tree.json(lock) if lock else None
        packages = data.get("Packages") if isinstance(data, dict) else None
        if isinstance(packages, dict) and packages:
            declared.manifests.append(lock)
            declared.r.update(str(name).lower() for name in packages)
    for unit in tree.python_units():
        for magic in unit.magics:
            command = magic.shell_command
            if not command or "install" not in command:
                continue
            deps = parse_install_command(command, unit.path, magic.line)
            for dep in deps:
                declared.add_python(dep.normalized, dep.ecosystem)
            if deps:
                declared.inline.append(_Hit(
                    unit.path, unit.file_line(magic.line), "import_resolvability.inline_install",
                    f"inline install of {_join([d.name for d in deps])}", _mask_line(magic.text),
                    unit.cell if unit.path.lower().endswith(".ipynb") else None,
                ))
    for scanned in scan.code:
        for segment in scanned.segments:
            if segment.language == "r":
                installed = segment.packages[1]
                target = declared.r
            elif segment.language == "julia":
                installed = segment.packages[1]
                target = declared.julia
            else:
                continue
            target.update(package.lower() for package, _ in installed)
            if installed:
                names = sorted({p for p, _ in installed})
                declared.inline.append(_Hit(
                    scanned.path, installed[0][1] + segment.line_offset, "import_resolvability.inline_install",
                    f"inline install of {_join(names)}", _mask_line(_line_at(segment.lines, installed[0][1])),
                    segment.cell,
                ))
    return declared


def _is_declared_python(key: str, declared: set[str]) -> bool:
    """Declared under the import's own name or a mapped distribution ("accept either
    name"); a family wildcard accepts any declared member of that family."""
    names = {normalize_name(key)}
    prefixes: list[str] = []
    if key in _mapping():
        for name in _mapping()[key]:
            if name.endswith("*"):
                prefixes.append(normalize_name(name[:-1]).rstrip("-") + "-")
            else:
                names.add(normalize_name(name))
    else:
        parent, _, child = key.rpartition(".")
        prefixes.extend(normalize_name(prefix + child) for prefix in _wildcards(parent))
    return bool(names & declared) or any(d.startswith(p) for p in prefixes for d in declared)


def _suggested_distribution(use: _ImportUse) -> str:
    if use.language != "python":
        return use.key
    names = [n for n in _mapping().get(use.key, ()) if not n.endswith("*")]
    if names:
        return names[0]
    parent, _, child = use.key.rpartition(".")
    family = _wildcards(parent)
    return normalize_name(family[0] + child) if family else normalize_name(use.key)


def _imports(tree: TreeIndex, scan: _TreeScan, local: _LocalModules) -> tuple[dict[tuple[str, str], _ImportUse], dict[str, int]]:
    """Third-party imports by (language, key), first use kept; plus tallies of what was
    excluded and why."""
    stdlib = stdlib_modules()
    provided = _environment_provided()
    third: dict[tuple[str, str], _ImportUse] = {}
    optional: dict[tuple[str, str], _ImportUse] = {}
    tally = {"stdlib": 0, "local": 0, "environment": 0}
    for scanned in scan.code:
        is_setup = _name(scanned.path) == "setup.py"
        for segment in scanned.segments:
            if segment.language == "python" and segment.unit is not None:
                for candidates, line, guarded in _python_imports(segment.unit):
                    top = candidates[-1].split(".")[0]
                    if top in stdlib:
                        tally["stdlib"] += 1
                        continue
                    key = _table_key(candidates)
                    if key in provided or top in provided or (is_setup and top in _SETUP_PY_PROVIDED):
                        tally["environment"] += 1
                    elif (top in local.tops or normalize_name(top) in local.own
                          or any(_dotted_prefix_in(c, local.dotted) for c in candidates)):
                        tally["local"] += 1
                    else:
                        uses = optional if guarded else third
                        if ("python", key) in uses:
                            continue  # the first use is kept: skip building this one
                        written = key if len(key) > len(candidates[-1]) else candidates[-1]
                        uses["python", key] = _ImportUse("python", key, written, scanned.path,
                                                         line + segment.line_offset, segment.cell,
                                                         _line_at(segment.lines, line))
            elif segment.language in ("r", "julia"):
                if segment.language == "r":
                    used = segment.packages[0]
                    builtin = _R_BUILTIN_PACKAGES
                    own = local.own
                else:
                    used = segment.packages[0]
                    builtin = _JULIA_STDLIB
                    own = local.julia | local.own
                for package, line in used:
                    if package in builtin:
                        tally["stdlib"] += 1
                    elif package in own or normalize_name(package) in own:
                        tally["local"] += 1
                    else:
                        use = _ImportUse(segment.language, package, package, scanned.path, line + segment.line_offset,
                                         segment.cell, _line_at(segment.lines, line))
                        third.setdefault((segment.language, package), use)
    tally["optional"] = sum(1 for k in optional if k not in third)
    return third, tally


def _dotted_prefix_in(candidate: str, dotted: set[str]) -> bool:
    parts = candidate.split(".")
    return any(".".join(parts[:size]) in dotted for size in range(len(parts), 1, -1))


def _own_r_and_julia_names(tree: TreeIndex) -> set[str]:
    names: set[str] = set()
    for location in tree.env_locations:
        description = tree.find_ci("DESCRIPTION", location)
        if description:
            match = re.search(r"^Package:\s*(\S+)", tree.text(description) or "", re.MULTILINE)
            if match:
                names.add(match.group(1))
        project = tree.find_ci("Project.toml", location)
        data = tree.toml(project) if project else None
        if isinstance(data, dict) and isinstance(data.get("name"), str):
            names.add(data["name"])
    return names


_C2_KINDS = frozenset({"python", "notebook", "r", "rmd", "julia"})


@detector("import_resolvability", version="2.0.0")
def import_resolvability(tree: TreeIndex) -> Result:
    """Every third-party import is declared in a dependency manifest.

    What it checks:
        Imports of Python files and notebook code cells (AST; a line-by-line fallback
        for code that does not parse; relative imports skipped), R ``library()``,
        ``require()``, ``requireNamespace()`` and ``pkg::`` uses, and Julia
        ``using``/``import``. Excluded: the frozen standard-library list (CPython 3.6–3.13
        and Python 2.7 names), Jupyter- and Colab-provided modules, build tools imported
        by ``setup.py``, base and recommended R packages, Julia's standard library, and
        local modules (``<name>.py`` anywhere, folders with ``__init__.py``, dotted
        imports whose path exists in the tree such as ``models.net`` for
        ``models/net.py``, ``src/<name>``, the project's own distribution name).
        Imports inside a ``try`` that handles ImportError are optional and not counted.
        The declared set is every parsed manifest (dependencies and build requirements:
        requirements files, pyproject, setup.py/cfg, Pipfile, conda, DESCRIPTION,
        Project.toml, renv.lock) plus inline installs (notebook ``%pip``/``!pip``/
        ``%conda install``, R ``install.packages``/``BiocManager::install``/
        ``install_github``/``pacman::p_load``, Julia ``Pkg.add``). Names are compared
        PEP 503-normalised through a curated import→distribution table (longest dotted
        prefix first), accepting either name. Value = 100·declared / third-party; no
        third-party import → 100; third-party imports but nothing declared → 0; no
        Python, R or Julia source → 100, not applicable.
    Why it matters:
        An import that no manifest declares is the first error a reproducer meets, and
        guessing the right distribution (``sklearn`` is ``scikit-learn``) costs time.
    Evidence:
        Each undeclared import with its first path, line (and cell); the manifests and
        inline installs that were read. Counts: third-party, declared and undeclared
        imports, manifests, inline installs, and imports excluded as stdlib, local,
        environment-provided or optional.
    How to fix:
        Add the missing distributions (named in the fix) to ``requirements.txt``,
        ``pyproject.toml`` or ``environment.yml`` (R: ``DESCRIPTION``; Julia:
        ``Project.toml``).
    Known false positives:
        Packages installed only by a Dockerfile ``RUN pip install``, a setup shell script
        or a ``docs/requirements.txt`` outside the environment locations count as
        undeclared; so do imports of modules generated at build time and distributions
        whose import name is neither in the table nor equal to the distribution name.
        A local folder named like a third-party package (with ``__init__.py``) hides that
        package's imports.
    """
    scan = _scan(tree)
    if not any(f.kind in _C2_KINDS for f in scan.code):
        return Result(100, applicable=False, reason="no Python, R or Julia source files",
                      counts={"third_party": 0, "declared": 0, "undeclared": 0})
    local = _local_modules(tree, scan)
    own_names = _own_r_and_julia_names(tree)
    local.own.update(normalize_name(n) for n in own_names)
    local.julia.update(own_names)
    third, tally = _imports(tree, scan, local)
    declared = _declared(tree, scan)
    sources = [Evidence(p, "dependency manifest read for the declared set", rule="import_resolvability.manifest")
               for p in declared.manifests] + [h.evidence() for h in declared.inline]
    undeclared = [
        use for use in third.values()
        if not (
            (use.language == "python" and _is_declared_python(use.key, declared.python))
            or (use.language == "r" and use.key.lower() in declared.r)
            or (use.language == "julia" and use.key.removesuffix(".jl").lower() in declared.julia)
        )
    ]
    undeclared.sort(key=lambda u: (u.path, u.cell or 0, u.line))
    counts = {
        "third_party": len(third),
        "declared": len(third) - len(undeclared),
        "undeclared": len(undeclared),
        "manifests": len(declared.manifests),
        "inline_installs": len(declared.inline),
        "stdlib_imports": tally["stdlib"],
        "local_imports": tally["local"],
        "environment_imports": tally["environment"],
        "optional_imports": tally["optional"],
    }
    if not third:
        return Result(100, counts=counts, evidence=sources[:MAX_EVIDENCE],
                      reason="no third-party imports (standard library and local modules only)")
    evidence = [
        Evidence(u.path, f"import {u.written!r} is not declared in any manifest", rule="import_resolvability.undeclared",
                 line_start=u.line, snippet=_mask_line(u.snippet), cell=u.cell)
        for u in undeclared[: MAX_EVIDENCE - min(5, len(sources))]
    ]
    evidence += sources[: MAX_EVIDENCE - len(evidence)]
    missing = sorted({_suggested_distribution(u) for u in undeclared})
    fix = None
    if undeclared:
        target = _manifest_target(tree, undeclared)
        fix = f"Declare {_join(missing)} in {target}."
    if not declared.any():
        return Result(0, counts=counts, evidence=evidence, fix=fix,
                      reason=f"{len(third)} third-party imports but no dependency manifest or inline install")
    value = 100.0 * (len(third) - len(undeclared)) / len(third)
    reason = (f"every third-party import is declared ({len(third)})" if not undeclared else
              f"{len(undeclared)} of {len(third)} third-party imports are not declared: "
              f"{_join(sorted({u.written for u in undeclared}))}")
    return Result(value, counts=counts, evidence=evidence, fix=fix, reason=reason)


def third_party_python_imports(tree: TreeIndex) -> list[str]:
    """The modules of the tree's third-party Python imports as written (``sklearn``,
    ``matplotlib.pyplot``), sorted: the set C2 counts (standard library, local,
    environment-provided and ImportError-guarded imports excluded). The execution
    tier's E′ probe tries to import each of them in the installed environment."""
    scan = _scan(tree)
    third, _tally = _imports(tree, scan, _local_modules(tree, scan))
    return sorted({use.written for use in third.values() if use.language == "python"})


def _manifest_target(tree: TreeIndex, undeclared: Sequence[_ImportUse]) -> str:
    languages = {u.language for u in undeclared}
    targets = []
    if "python" in languages:
        python_manifests = [m.path for m in tree.manifests() if any(d.ecosystem in ("pypi", "conda") for d in m.dependencies)]
        targets.append(python_manifests[0] if python_manifests else "requirements.txt")
    if "r" in languages:
        targets.append("DESCRIPTION")
    if "julia" in languages:
        targets.append("Project.toml")
    return " / ".join(targets)


# --------------------------------------------------------------------------- C3 no_hardcoded_credentials


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


def _handlers_in(body: Sequence[ast.AST]) -> Iterator[ast.ExceptHandler]:
    """Exception handlers below ``body``, walking statements only (handlers cannot sit
    inside expressions), so large expression trees cost nothing."""
    stack = list(reversed(body))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.ExceptHandler):
            yield node
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            children = getattr(node, name, None)
            if isinstance(children, list):
                stack.extend(reversed([c for c in children if isinstance(c, (ast.stmt, ast.ExceptHandler, ast.match_case))]))


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


_BINDING_OPS = frozenset({"<-", "<<-", "=", ":", "=>", ":="})


def _token_bindings(tokens: Sequence[_Tok]) -> Iterator[tuple[str, str, int]]:
    """``(name, value, line)`` of R/Julia string literals bound to a name, key or argument."""
    for index, tok in enumerate(tokens):
        if tok.kind != "str":
            continue
        nxt = _next_index(tokens, index)
        if nxt + 1 < len(tokens) and tokens[nxt].kind == "op" and tokens[nxt].text in ("->", "->>") \
                and tokens[nxt + 1].kind == "name":
            yield tokens[nxt + 1].text, tok.text, tok.line
            continue
        op = _prev_index(tokens, index)
        if op < 0 or tokens[op].kind != "op" or tokens[op].text not in _BINDING_OPS:
            continue
        key = _prev_index(tokens, op)
        while key >= 0 and tokens[key].kind == "op" and tokens[key].text == "]":
            key -= 1  # ENV["KEY"] = …, cfg[["password"]] <- …
        if key >= 0 and tokens[key].kind in ("name", "str"):
            yield tokens[key].text, tok.text, tok.line


@dataclass(frozen=True)
class _Secret:
    line: int
    cell: int | None
    value: str
    rule: str
    reason: str
    snippet: str


def _segment_secrets(segment: _Segment) -> Iterator[_Secret]:
    text, words = segment.text, segment.word_text
    for provider, match in _provider_tokens(text, words):
        token = match.group(0)
        upper = token.upper()
        if any(marker in upper for marker in _PLACEHOLDER_MARKERS) or not any(ch.isdigit() for ch in token):
            continue
        line = segment.line_of_offset(match.start())
        yield _Secret(line, segment.cell, token, f"no_hardcoded_credentials.token.{provider}",
                      f"{provider} token format {mask_secret(token)}", _line_at(segment.lines, line))
    pem_possible = (words is None or "PRIVATE" in words) and "PRIVATE KEY" in text
    for match in _PEM_RE.finditer(text) if pem_possible else ():
        line = segment.line_of_offset(match.start())
        yield _Secret(line, segment.cell, match.group(0), "no_hardcoded_credentials.token.private_key",
                      "PEM private key with key material", "-----BEGIN PRIVATE KEY----- [redacted]")
    for name, value, line in _segment_bindings(segment):
        word = _secret_value(name, value)
        if word is None:
            continue
        masked = mask_secret(value.strip())
        yield _Secret(line, segment.cell, value.strip(), "no_hardcoded_credentials.assignment",
                      f"credential-named {name!r} bound to a literal value {masked}", _line_at(segment.lines, line))


def _segment_bindings(segment: _Segment) -> Iterator[tuple[str, str, int]]:
    if segment.language == "python" and segment.unit is not None and segment.unit.tree is not None:
        for name, node in segment.python_bindings():
            yield name, node.value, node.lineno
    elif segment.language in ("r", "julia"):
        yield from _token_bindings(segment.tokens)
    else:
        yield from _line_bindings(segment)


def _c3_hits(scanned: _ScannedFile) -> list[_Hit]:
    hits: list[_Hit] = []
    seen: set[tuple[int | None, int, str]] = set()
    secrets: list[str] = []
    for segment in scanned.segments:
        for secret in _segment_secrets(segment):
            key = (secret.cell, secret.line, secret.value)
            if key in seen or any(secret.value in other or other in secret.value for c, ln, other in seen
                                  if (c, ln) == (secret.cell, secret.line)):
                continue
            seen.add(key)
            secrets.append(secret.value)
            hits.append(_Hit(scanned.path, secret.line + segment.line_offset, secret.rule, secret.reason,
                             secret.snippet, secret.cell))
    # A snippet never carries a secret: every secret of the file is masked on its line,
    # and a line whose secret is not literally there (escapes, multi-line strings) is
    # replaced by the masked value alone.
    safe = []
    for hit, secret in zip(hits, secrets, strict=True):
        if hit.rule.endswith(".private_key"):
            safe.append(hit)
            continue
        snippet = _mask_line(hit.snippet, secrets)
        if secret not in hit.snippet or any(s in snippet for s in secrets):
            snippet = f"… {mask_secret(secret)} …"
        safe.append(_Hit(hit.path, hit.line, hit.rule, hit.reason, snippet, hit.cell))
    safe.sort(key=lambda h: (h.cell or 0, h.line))
    return safe


@detector("no_hardcoded_credentials", version="2.0.0")
def no_hardcoded_credentials(tree: TreeIndex) -> Result:
    """Source and parameter files contain no hard-coded credentials.

    What it checks:
        The files of C1 (sources, notebook code cells and magics, shell, parameter and
        ``.env*`` files except ``.env.example``/``.env.sample``). A file is bad when it
        holds a provider token (AWS ``AKIA``/``ASIA``, GitHub ``gh[pousr]_``/
        ``github_pat_``, GitLab ``glpat-``, OpenAI ``sk-``/``sk-proj-``, Stripe
        ``sk_live_``, Slack ``xox?-``, Google ``AIza``, Hugging Face ``hf_``, JWTs, PEM
        private keys with key material) or binds a literal to a credential-named key:
        the name's last component is ``password``, ``passwd``, ``api_key``, ``secret_key``,
        ``access_token``, ``client_secret``, ``private_key``, ``credentials``, … (``=``,
        ``:``, ``<-``, ``=>``, keyword arguments, dict keys, parameter defaults, shell
        and ``.env`` assignments, ``--password=…`` options). The value must have at
        least 8 characters, no whitespace, and not be a URL, path, regular expression,
        template or environment lookup, or a placeholder (``YOUR_``, ``EXAMPLE``,
        ``XXXX``, ``<…>``, ``CHANGEME``, …). For the generic words ``token``,
        ``secret``, ``pwd`` and ``auth`` it also needs ≥ 3.0 bits of entropy per
        character. Value = 100·(1 − bad files / scanned files); nothing scanned → 100,
        not applicable.
    Why it matters:
        A committed secret is public the moment the deposit is: it must be revoked, and
        code that depends on it cannot run for anyone else anyway.
    Evidence:
        Path, line (and cell), the rule (token provider or assignment) and the key name;
        the secret itself is never reported, only its first four characters and length.
    How to fix:
        Revoke the exposed credential, then read it at run time from an environment
        variable (``os.environ``, ``Sys.getenv``) or an uncommitted ``.env`` file, and
        commit a ``.env.example`` with placeholders.
    Known false positives:
        Long literal test fixtures or demo passwords bound to credential-named keys
        (``password = "hunter2hunter2"`` in a unit test) count; so do public,
        intentionally shared read-only tokens. Secrets assembled at run time, stored in
        files outside the scanned set (``.pem``, ``.key``, ``docker-compose.yml``) or
        embedded in URLs (``postgres://user:pass@host``) are not seen.
    """
    scan = _scan(tree)
    files = scan.code + scan.parameters
    if not files:
        return Result(100, applicable=False, reason="no source or parameter files to scan",
                      counts={"files_scanned": 0, "files_with_credentials": 0})
    hits_by_file = {f.path: hits for f in files if (hits := _c3_hits(f))}
    bad = len(hits_by_file)
    counts = {
        "files_scanned": len(files),
        "files_with_credentials": bad,
        "credential_hits": sum(len(h) for h in hits_by_file.values()),
        "parameter_files": len(scan.parameters),
        "env_files": sum(1 for f in scan.parameters if f.kind == "env"),
    }
    value = _ratio_value(bad, len(files))
    if not bad:
        return Result(value, counts=counts, reason=f"no hard-coded credential in {len(files)} scanned files")
    return Result(
        value,
        evidence=_evidence(hits_by_file),
        counts=counts,
        reason=f"{bad} of {len(files)} scanned files contain hard-coded credentials",
        fix=f"Revoke the exposed credentials in {_join(sorted(hits_by_file))} and read them from environment "
            "variables (os.environ, Sys.getenv) or an uncommitted .env file instead.",
    )


# --------------------------------------------------------------------------- C4 silent_failure_masking

_BROAD_EXCEPTIONS = frozenset({"Exception", "BaseException"})


def _is_broad(node: ast.expr | None) -> bool:
    if node is None:
        return True
    if isinstance(node, ast.Name):
        return node.id in _BROAD_EXCEPTIONS
    if isinstance(node, ast.Attribute):
        return node.attr in _BROAD_EXCEPTIONS and isinstance(node.value, ast.Name) and node.value.id == "builtins"
    if isinstance(node, ast.Tuple):
        return any(_is_broad(element) for element in node.elts)
    return False


def _is_silent_statement(stmt: ast.stmt, magic_lines: frozenset[int]) -> bool:
    if isinstance(stmt, ast.Pass):
        return stmt.lineno not in magic_lines  # a notebook magic was neutralised to ``pass``
    if isinstance(stmt, ast.Continue):
        return True
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
        return stmt.value.value is Ellipsis or isinstance(stmt.value.value, str)
    return False


def _python_masking(segment: _Segment) -> Iterator[tuple[int, int, str]]:
    """``(line, end line, rule)`` of masking handlers in a Python segment."""
    unit = segment.unit
    if unit is None:
        return
    if unit.tree is None:
        yield from _python_masking_fallback(segment.lines)
        return
    for node in segment.python_handlers():
        if _is_broad(node.type) and node.body and all(_is_silent_statement(s, segment.magic_lines) for s in node.body):
            end = getattr(node.body[-1], "end_lineno", None) or node.body[-1].lineno
            rule = "bare" if node.type is None else "broad"
            yield node.lineno, end, f"silent_failure_masking.python_{rule}"


_EXCEPT_LINE_RE = re.compile(r"^(?P<indent>[ \t]*)except\b(?P<spec>[^:#]*):(?P<rest>.*)$")
_SILENT_STATEMENT_RE = re.compile(r"^(?:pass|continue|\.\.\.|[rRuU]?(?:\"[^\"]*\"|'[^']*'))$")


def _python_masking_fallback(lines: Sequence[str]) -> Iterator[tuple[int, int, str]]:
    """Masking handlers found line by line (code that does not parse, e.g. Python 2)."""
    for index, line in enumerate(lines):
        match = _EXCEPT_LINE_RE.match(line)
        if match is None:
            continue
        spec = re.sub(r"\s+as\s+\w+\s*$", "", match.group("spec")).strip()
        names = [n.strip() for n in spec.strip("() ").split(",") if n.strip()]
        if spec and not any(n in _BROAD_EXCEPTIONS or n.startswith("builtins.") for n in names):
            continue
        rest = _strip_comment(match.group("rest")).strip()
        end = index + 1
        if rest:
            body = [s.strip() for s in rest.split(";") if s.strip()]
        else:
            indent = len(match.group("indent").expandtabs())
            body = []
            for follow in range(index + 1, len(lines)):
                text = lines[follow]
                code = _strip_comment(text).strip()
                if not code:
                    continue
                if len(text.expandtabs()) - len(text.expandtabs().lstrip()) <= indent:
                    break
                body.append(code)
                end = follow + 1
        if body and all(_SILENT_STATEMENT_RE.match(s) for s in body):
            yield index + 1, end, "silent_failure_masking.python_" + ("broad" if spec else "bare")


_R_DISCARDING_WRAPPERS = frozenset({"invisible", "suppressWarnings", "suppressMessages", "suppressPackageStartupMessages"})
_R_CONTINUATION_OPS = frozenset({"<-", "<<-", "=", "(", ",", "[", "|>", "+", "-", "*", "/", "^", "&", "|",
                                 "&&", "||", "==", "!=", "<", ">", "<=", ">=", "~", "!", "$", "@", ":"})


def _r_result_discarded(tokens: Sequence[_Tok], index: int) -> bool:
    """True when the call whose name is at ``index`` stands as a statement of its own."""
    prev = _prev_index(tokens, index)
    if prev < 0:
        return True
    before = tokens[prev]
    newline_between = any(t.kind == "nl" for t in tokens[prev + 1: index])
    if before.kind == "op" and before.text in ("{", ";", "}"):
        return True
    if before.kind == "name" and before.text in ("else", "repeat"):
        return True
    if before.kind == "op" and before.text == "(":
        wrapper = _prev_index(tokens, prev)
        if wrapper >= 0 and tokens[wrapper].kind == "name" and tokens[wrapper].text in _R_DISCARDING_WRAPPERS:
            return _r_result_discarded(tokens, wrapper)
        return False
    if before.kind == "op" and before.text == ")":
        opener = _matching_backwards(tokens, prev)
        head = _prev_index(tokens, opener)
        if head >= 0 and tokens[head].kind == "name" and tokens[head].text in ("if", "for", "while"):
            return True
        return newline_between
    if newline_between:
        return not (before.kind == "op" and before.text in _R_CONTINUATION_OPS)
    return False


def _matching_backwards(tokens: Sequence[_Tok], close_index: int) -> int:
    depth = 0
    for index in range(close_index, -1, -1):
        tok = tokens[index]
        if tok.kind == "op" and tok.text == ")":
            depth += 1
        elif tok.kind == "op" and tok.text == "(":
            depth -= 1
            if depth == 0:
                return index
    return 0


def _is_true(arg: Sequence[_Tok]) -> bool:
    return len(arg) == 1 and arg[0].kind == "name" and arg[0].text in ("TRUE", "T")


_SILENT_R_BODIES = ([], ["NULL"], ["invisible", "(", "NULL", ")"], ["invisible", "(", ")"])


def _silent_r_handler(tokens: Sequence[_Tok], start: int, stop: int) -> bool:
    """True when the handler expression in ``tokens[start:stop]`` is ``function(e) NULL``,
    ``\\(e) invisible(NULL)``, ``function(e) {}`` or ``function(e) { NULL }``."""
    sig = [t for t in tokens[start:stop] if t.kind != "nl"]
    if len(sig) < 3 or sig[1].text != "(" or not (
        (sig[0].kind == "name" and sig[0].text == "function") or (sig[0].kind == "op" and sig[0].text == "\\")
    ):
        return False
    depth, body_at = 0, None
    for position in range(1, len(sig)):
        if sig[position].kind == "op" and sig[position].text == "(":
            depth += 1
        elif sig[position].kind == "op" and sig[position].text == ")":
            depth -= 1
            if depth == 0:
                body_at = position + 1
                break
    if body_at is None or body_at >= len(sig):
        return False
    body: list[_Tok] = []
    depth = 0
    for tok in sig[body_at:]:
        if depth == 0 and tok.kind == "op" and tok.text == ",":
            break  # the next argument of tryCatch
        if tok.kind == "op" and tok.text in _OPENERS:
            depth += 1
        elif tok.kind == "op" and tok.text in (")", "]", "}"):
            depth -= 1
        body.append(tok)
    texts = [("<string>" if t.kind == "str" else t.text) for t in body]
    if texts[:1] == ["{"] and texts[-1:] == ["}"]:
        return texts[1:-1] in _SILENT_R_BODIES
    return texts in _SILENT_R_BODIES[1:]


def _r_masking(segment: _Segment) -> Iterator[tuple[int, int, str]]:
    """``try(…, silent = TRUE)`` whose result is discarded; ``tryCatch`` with an error
    handler that returns nothing."""
    tokens = segment.tokens
    for index, tok in enumerate(tokens):
        if tok.kind != "name" or tok.text not in ("try", "tryCatch"):
            continue
        opener = index + 1
        if opener >= len(tokens) or tokens[opener].kind != "op" or tokens[opener].text != "(":
            continue
        args = _call_arguments(tokens, opener)
        close = _matching(tokens, opener)
        end_line = tokens[close].line
        if tok.text == "try":
            silent = any(
                len(a) >= 3 and a[0].kind == "name" and a[0].text == "silent" and a[1].text == "=" and _is_true(a[2:])
                for a in args
            ) or (len(args) >= 2 and _is_true(args[1]))
            after = _next_index(tokens, close)
            assigned_after = after < len(tokens) and tokens[after].kind == "op" and tokens[after].text in ("->", "->>")
            if silent and not assigned_after and _r_result_discarded(tokens, index):
                yield tok.line, end_line, "silent_failure_masking.r_try_silent"
            continue
        for position in range(opener + 1, close):
            candidate = tokens[position]
            if candidate.kind != "name" or candidate.text != "error":
                continue
            eq = _next_index(tokens, position)
            if eq < close and tokens[eq].text == "=" and _depth_between(tokens, opener, position) == 1 \
                    and _silent_r_handler(tokens, eq + 1, close):
                yield tok.line, end_line, "silent_failure_masking.r_trycatch_null"
                break


def _depth_between(tokens: Sequence[_Tok], opener: int, position: int) -> int:
    depth = 0
    for tok in tokens[opener: position]:
        if tok.kind == "op" and tok.text in _OPENERS:
            depth += 1
        elif tok.kind == "op" and tok.text in (")", "]", "}"):
            depth -= 1
    return depth


def _c4_hits(scanned: _ScannedFile) -> list[_Hit]:
    hits: list[_Hit] = []
    for segment in scanned.segments:
        if segment.language == "python":
            found = _python_masking(segment)
        elif segment.language == "r":
            found = _r_masking(segment)
        else:
            continue
        for line, end, rule in found:
            snippet = " ".join(s.strip() for s in segment.lines[line - 1: min(end, line + 2)])
            reason = ("R error suppressed and the result never inspected" if rule.startswith("silent_failure_masking.r_")
                      else "exception handler swallows every error without handling it")
            hits.append(_Hit(scanned.path, line + segment.line_offset, rule, reason, _mask_line(snippet),
                             segment.cell, end + segment.line_offset))
    hits.sort(key=lambda h: (h.cell or 0, h.line))
    return hits


_C4_KINDS = frozenset({"python", "notebook", "r", "rmd"})


@detector("silent_failure_masking", version="2.0.0")
def silent_failure_masking(tree: TreeIndex) -> Result:
    """No exception handler silently swallows every error.

    What it checks:
        Python files, notebook code cells, R, R Markdown and Quarto files. In Python
        (AST; a line-based fallback for code that does not parse) a handler masks when
        it catches everything (bare ``except:``, ``Exception`` or ``BaseException``,
        alone or in a tuple) and its body is only ``pass``, ``...``, ``continue`` and/or
        string constants; handlers of specific exceptions never mask. In R a
        ``try(…, silent = TRUE)`` whose result is discarded (a statement of its own, not
        assigned or tested) masks, and so does ``tryCatch(…, error = function(e) NULL)``
        (also ``invisible(NULL)`` or an empty ``{}`` body). Value = 100·(1 − bad files /
        scanned files); no such file → 100, not applicable.
    Why it matters:
        A swallowed error lets a run finish with missing or wrong results and no trace,
        so a failed reproduction looks like a successful one.
    Evidence:
        Path, line range (and notebook cell) of each masking handler with its code as
        snippet; at most three per file. Counts: scanned and bad files, handlers found.
    How to fix:
        Catch the specific exception you expect (``except FileNotFoundError:``) and log,
        re-raise or handle it; in R inspect the ``try`` result with ``inherits(res,
        "try-error")`` or give ``tryCatch`` a handler that reports the condition.
    Known false positives:
        Deliberate best-effort clean-up (``except Exception: pass`` around closing a
        file or deleting a temporary directory) counts although it is harmless. A ``try``
        assigned to a variable that is never read does not count. Julia and shell files
        are not scanned (no masking rule is defined for them).
    """
    scan = _scan(tree)
    files = [f for f in scan.code if f.kind in _C4_KINDS]
    if not files:
        return Result(100, applicable=False, reason="no Python, notebook or R files to scan",
                      counts={"files_scanned": 0, "files_with_masking": 0})
    hits_by_file = {f.path: hits for f in files if (hits := _c4_hits(f))}
    bad = len(hits_by_file)
    counts = {
        "files_scanned": len(files),
        "files_with_masking": bad,
        "masking_handlers": sum(len(h) for h in hits_by_file.values()),
        "unparseable_files": sum(1 for f in files if f.unparseable),
    }
    value = _ratio_value(bad, len(files))
    if not bad:
        return Result(value, counts=counts, reason=f"no silently masked failure in {len(files)} scanned files")
    return Result(
        value,
        evidence=_evidence(hits_by_file),
        counts=counts,
        reason=f"{bad} of {len(files)} scanned files swallow errors silently",
        fix=f"In {_join(sorted(hits_by_file))}, catch the specific exceptions you expect and log or re-raise them "
            "(in R, check try() results with inherits(x, 'try-error')).",
    )
