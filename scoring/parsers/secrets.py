"""Hard-coded credentials in code and configuration text (METRICS.md C3), found where the
text is read: by the Python, R and Julia frontends for their code
(:mod:`scoring.frontends._credentials`), by
:mod:`scoring.parsers.linefiles` for shell, parameter and ``.env`` files.

A secret never leaves this module: what comes out is a :class:`~scoring.facts.CredentialFact`
per finding, with the binding's name or the token's provider, the masked value
(``abcd…(40 chars)``) and the finding's line with every secret of the file masked. The
verdicts (provider token formats, PEM keys, credential-named bindings whose value is no
placeholder, URL, path, template or low-entropy word) are made here on the text as
written, before facts are redacted, so redaction cannot hide a secret from C3 nor a
secret reach the facts.

Also here: :func:`mask_line`, which masks whatever looks like a secret in an evidence
line (C1 and C3 snippets), and the small decoding helpers of line-oriented values.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Sequence

from scoring.facts import CredentialFact
from scoring.model import mask_secret
from scoring.parsers.textfile import strip_unquoted_comment

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'", "/": "/", "$": "$", "`": "`"}
_ESCAPE_RE = re.compile(r"\\(.)", re.DOTALL)


def unescape(text: str) -> str:
    """Decode the backslash escapes of R, Julia, JSON and double-quoted YAML/TOML strings
    that matter here; an unknown escape keeps its backslash (``"C:\\data"`` stays a path)."""
    if "\\" not in text:
        return text
    return _ESCAPE_RE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(0)), text)


def unquote(value: str) -> str:
    """A bare or quoted value, decoded (double quotes decode escapes, single do not)."""
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return unescape(value[1:-1]) if value[0] == '"' else value[1:-1]
    return value


def shannon_entropy(value: str) -> float:
    if not value:
        return 0.0
    total = len(value)
    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    return -sum(n / total * math.log2(n / total) for n in counts.values())


# --------------------------------------------------------------------------- provider tokens, PEM keys

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
    ("mapbox", ("sk.eyJ",), r"(?<![A-Za-z0-9_.\-])sk\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{20,}"),
)
_PROVIDER_TOKEN_RES = tuple((name, prefixes, re.compile(rx)) for name, prefixes, rx in _PROVIDER_TOKENS)

# Publishable keys: made to ship in client code (a web page's map, a checkout form), so
# publishing them exposes nothing their provider does not expect; C3 shows them, never
# counts them.
_PUBLIC_TOKENS = (
    ("mapbox", ("pk.eyJ",), r"(?<![A-Za-z0-9_.\-])pk\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{20,}"),
    ("stripe", ("pk_live_",), r"(?<![A-Za-z0-9_])pk_live_[A-Za-z0-9]{16,}"),
)
_PUBLIC_TOKEN_RES = tuple((name, prefixes, re.compile(rx)) for name, prefixes, rx in _PUBLIC_TOKENS)


def provider_tokens(text: str, formats=_PROVIDER_TOKEN_RES) -> Iterator[tuple[str, re.Match[str]]]:
    """``(provider, match)`` of provider token formats (``formats``: the secret ones, or
    ``_PUBLIC_TOKEN_RES``); substring tests first keep the regular expressions off the
    (usual) text that holds no candidate at all."""
    for name, prefixes, regex in formats:
        if any(prefix in text for prefix in prefixes):
            for match in regex.finditer(text):
                yield name, match


# A PEM private key counts only with key material after its header (a bare header string
# is how key-handling code recognises keys).
PEM_RE = re.compile(
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:\\[nr]|[\s\"'+,])*[A-Za-z0-9+/=]{20,}"
)

# --------------------------------------------------------------------------- credential-named bindings

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
PLACEHOLDER_MARKERS = (
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


def credential_word(name: str) -> tuple[str, bool] | None:
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


def secret_value(name: str, value: str) -> str | None:
    """The credential word when ``value`` bound to ``name`` looks like a real secret."""
    found = credential_word(name)
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
    if any(marker in upper for marker in PLACEHOLDER_MARKERS):
        return None
    # A field name rather than a secret: "user_password", "access_token", "api.key".
    if _IDENTIFIER_VALUE_RE.match(value):
        compact = value.lower()
        if any(part in compact for part in word.split("_")) and (re.search(r"[_.\-]", value) or compact == word):
            return None
    if generic and shannon_entropy(value) < _MIN_GENERIC_ENTROPY:
        return None
    return word


# Credential bindings within a line, which mask_line masks in every snippet: shell
# assignments, command-line options, JSON pairs, quoted bindings (line_bindings adds
# whole-line forms of its own).
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
_BARE_BINDING_RE = re.compile(r"""(?P<name>[A-Za-z_][\w.\-]*)["']?\s*[:=]\s*(?P<value>[^\s"',;#]+)""")


def mask_line(line: str, secrets: Iterable[str] = ()) -> str:
    """``line`` with provider tokens, PEM keys, credential-looking bound values and the
    given ``secrets`` masked, in one pass (masking a mask again would garble it). A
    masked value loses its quotes so that snippet redaction leaves the mask alone."""
    spans: list[tuple[int, int]] = [m.span() for _, m in provider_tokens(line)]
    spans.extend(m.span() for m in PEM_RE.finditer(line))
    for regex in (_QUOTED_BINDING_RE, _JSON_PAIR_RE, _SHELL_ASSIGN_STRICT_RE, _CLI_OPTION_RE, _BARE_BINDING_RE):
        for match in regex.finditer(line):
            raw = match.group("value")
            value = unquote(raw)
            quoted = regex in (_QUOTED_BINDING_RE, _JSON_PAIR_RE) or raw[:1] in "\"'"
            if not credential_word(match.group("name")) or len(value) < 4:
                continue
            if quoted or secret_value(match.group("name"), value):
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
        out.append(mask_secret(unquote(line[start:stop])))
        position = stop
    out.append(line[position:])
    return "".join(out)


# --------------------------------------------------------------------------- line-oriented bindings

# Every credential word contains one of these (case-insensitive): a line without them binds none.
_CREDENTIAL_HINT_RE = re.compile(r"(?i)pass|pwd|key|secret|token|auth|credential|--user|-u\s|://[^/\s:@]+:[^/\s@]+@")

# Line-oriented credential bindings: IPython %env magics, URL passwords, .env, YAML, INI
# and TOML lines (the forms that snippet masking also uses are above).
_MAGIC_ENV_RE = re.compile(r"^\s*%(?:env|set_env)\s+(?P<name>[A-Za-z_]\w*)(?:\s*=\s*|\s+)(?P<value>\S+)")
_URL_PASSWORD_RE = re.compile(r"\b[a-z][a-z0-9+.-]*://[^/\s:@]+:(?P<password>[^/\s@]+)@", re.IGNORECASE)
_ENV_LINE_RE = re.compile(r"^\s*(?:export\s+)?(?P<name>[A-Za-z_][\w.\-]*)\s*=\s*(?P<value>.*)$")
_YAML_LINE_RE = re.compile(r"""^\s*(?:-\s+)?(?P<q>["']?)(?P<name>[A-Za-z_][\w.\- ]*?)(?P=q)\s*:\s+(?P<value>.*)$""")
_INI_LINE_RE = re.compile(r"^\s*(?P<name>[A-Za-z_][\w.\- ]*?)\s*[=:]\s*(?P<value>.*)$")
_TOML_PAIR_RE = re.compile(
    r"""(?:^|[{,]\s*)\s*(?P<q>["']?)(?P<name>[A-Za-z_][\w.\-]*)(?P=q)\s*=\s*(?P<value>"(?:[^"\\\n]|\\.)*"|'[^'\n]*')"""
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
        return unescape(inner) if raw[0] == '"' else inner
    if raw[0] in "&*|>!{[":
        return None
    return strip_unquoted_comment(raw, markers).strip()


def line_bindings(lines: Sequence[str], language: str) -> Iterator[tuple[str, str, int]]:
    """``(name, value, line)`` of the literal bindings of line-oriented text: ``language``
    is shell, json, toml, yaml, ini, env, or python (the fallback for code that does not
    parse: quoted bindings)."""
    for number, line in enumerate(lines, start=1):
        if not _CREDENTIAL_HINT_RE.search(line):
            continue  # cheap test first: most lines name no credential at all
        if language == "json":
            for match in _JSON_PAIR_RE.finditer(line):
                yield unescape(match.group("name")), unescape(match.group("value")), number
            continue
        stripped = line.lstrip()
        if not stripped or stripped.startswith("#") or (language == "ini" and stripped.startswith(";")):
            continue
        if language == "toml":
            for match in _TOML_PAIR_RE.finditer(line):
                yield match.group("name"), unquote(match.group("value")), number
        elif language in ("yaml", "ini", "env"):
            regex = _YAML_LINE_RE if language == "yaml" else _INI_LINE_RE if language == "ini" else _ENV_LINE_RE
            match = regex.match(line)
            value = _bare_or_quoted(match.group("value"), "#;" if language == "ini" else "#") if match else None
            if value is not None:
                yield match.group("name"), value, number
        elif language == "shell":
            code = strip_unquoted_comment(line)
            magic = _MAGIC_ENV_RE.match(code)
            if magic:
                yield magic.group("name"), unquote(magic.group("value")), number
                continue
            for match in _SHELL_ASSIGN_STRICT_RE.finditer(code):
                yield match.group("name"), unquote(match.group("value")), number
            for match in _CLI_OPTION_RE.finditer(code):
                name, value = match.group("name"), unquote(match.group("value"))
                if name in ("user", "u") and ":" in value:
                    # curl/wget ``--user id:secret`` carries a password after the colon.
                    yield "password", value.split(":", 1)[1], number
                else:
                    yield name, value, number
            for match in _URL_PASSWORD_RE.finditer(code):
                yield "password", match.group("password"), number
        elif language == "python":
            for match in _QUOTED_BINDING_RE.finditer(line):
                value = match.group("value")
                yield match.group("name"), unescape(value) if match.group("q") == '"' else value, number


# --------------------------------------------------------------------------- a file's findings

class FileCredentials:
    """The credentials of one file, gathered segment by segment (a script is one segment;
    a notebook has one per Python cell, per magic line, per shell, R or Julia cell) in
    reading order, then turned into facts whose excerpts mask every secret of the file.

    A segment is text of one language with the lines evidence counts in: ``cell`` (a
    Jupyter cell, else None) and ``line_offset`` added to its 1-based lines.
    """

    def __init__(self) -> None:
        # (cell, file line, secret, kind, name, the segment's line as written)
        self._found: list[tuple[int | None, int, str, str, str, str]] = []
        self._seen: set[tuple[int | None, int, str]] = set()

    def segment(self, text: str, lines: Sequence[str], bindings: Iterable[tuple[str, str, int]], *,
                cell: int | None = None, line_offset: int = 0) -> None:
        """Add one segment's provider tokens, PEM keys and credential bindings, given its
        ``text``, its ``lines`` (snippets) and its ``(name, value, line)`` bindings."""
        for formats, kind in ((_PROVIDER_TOKEN_RES, "token"), (_PUBLIC_TOKEN_RES, "public_token")):
            for provider, match in provider_tokens(text, formats):
                token = match.group(0)
                upper = token.upper()
                if any(marker in upper for marker in PLACEHOLDER_MARKERS) or not any(ch.isdigit() for ch in token):
                    continue
                line = text.count("\n", 0, match.start()) + 1
                self._add(cell, line, line_offset, token, kind, provider, _line_at(lines, line))
        if "PRIVATE KEY" in text:
            for match in PEM_RE.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                self._add(cell, line, line_offset, match.group(0), "private_key", "",
                          "-----BEGIN PRIVATE KEY----- [redacted]")
        for name, value, line in bindings:
            if secret_value(name, value) is not None:
                self._add(cell, line, line_offset, value.strip(), "assignment", name, _line_at(lines, line))

    def _add(self, cell: int | None, line: int, line_offset: int, secret: str, kind: str, name: str,
             snippet: str) -> None:
        # Lines count within the segment when deduplicating, as they always have.
        key = (cell, line, secret)
        if key in self._seen or any(secret in other or other in secret for c, ln, other in self._seen
                                    if (c, ln) == (cell, line)):
            return
        self._seen.add(key)
        self._found.append((cell, line + line_offset, secret, kind, name, snippet))

    def secrets(self) -> list[str]:
        """The secrets found, as written: what a frontend masks in every other fact of the
        file (:func:`scoring.frontends._credentials.mask_secrets`)."""
        return [found[2] for found in self._found]

    def facts(self) -> tuple[CredentialFact, ...]:
        """One fact per finding, ordered by cell and line. No excerpt carries a secret:
        every secret of the file is masked on its line, and a line whose secret is not
        literally there (escapes, multi-line strings) is replaced by the masked value."""
        if not self._found:
            return ()
        secrets = [found[2] for found in self._found]
        out = []
        for cell, line, secret, kind, name, snippet in self._found:
            if kind != "private_key":
                masked_line = mask_line(snippet, secrets)
                if secret not in snippet or any(s in masked_line for s in secrets):
                    masked_line = f"… {mask_secret(secret)} …"
                snippet = masked_line
            out.append(CredentialFact(line, kind, name, mask_secret(secret), snippet, cell))
        out.sort(key=lambda fact: (fact.cell or 0, fact.line))
        return tuple(out)


def _line_at(lines: Sequence[str], line: int) -> str:
    return lines[line - 1] if 0 < line <= len(lines) else ""
