"""C3 no_hardcoded_credentials: source and parameter files contain no hard-coded credentials."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from scoring.detectors.portability._common import (
    _CLI_OPTION_RE,
    _JSON_PAIR_RE,
    _PEM_RE,
    _PLACEHOLDER_MARKERS,
    _QUOTED_BINDING_RE,
    _SHELL_ASSIGN_STRICT_RE,
    _evidence,
    _Hit,
    _join,
    _line_at,
    _mask_line,
    _next_index,
    _prev_index,
    _provider_tokens,
    _ratio_value,
    _scan,
    _ScannedFile,
    _secret_value,
    _Segment,
    _strip_comment,
    _Tok,
    _unescape,
    _unquote,
)
from scoring.model import mask_secret
from scoring.registry import Result, detector
from scoring.tree import TreeIndex

# Every credential word contains one of these (case-insensitive): a line without them binds none.
_CREDENTIAL_HINT_RE = re.compile(r"(?i)pass|pwd|key|secret|token|auth|credential|--user|-u\s|://[^/\s:@]+:[^/\s@]+@")

# Line-oriented credential bindings: IPython %env magics, URL passwords, .env, YAML, INI
# and TOML lines (the forms that snippet masking also uses are in _common).
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
        return _unescape(inner) if raw[0] == '"' else inner
    if raw[0] in "&*|>!{[":
        return None
    return _strip_comment(raw, markers).strip()


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
