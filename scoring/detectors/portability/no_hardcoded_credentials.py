"""C3 no_hardcoded_credentials: source and parameter files contain no hard-coded credentials."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from scoring.detectors.portability._common import (
    _evidence,
    _files,
    _Hit,
    _join,
    _next_index,
    _prev_index,
    _ratio_value,
    _Segment,
    _Tok,
    file_segments,
)
from scoring.facts import CredentialFact
from scoring.parsers.secrets import FileCredentials, line_bindings
from scoring.registry import Result, detector
from scoring.tree import TreeIndex

_BINDING_OPS = frozenset({"<-", "<<-", "=", ":", "=>", ":="})


# A call that stores an API key or token, given it as its first argument: R's
# fredr::fredr_set_key("…"), tidycensus::census_api_key("…"), set_api_key("…"),
# set_token("…"); the argument is a credential-named binding ("api_key").
_KEY_SETTER = re.compile(r"(?:^|[._])(?:(?:set|register)_?(?:api_?)?(?:key|token)|api_?key|set_?token)$",
                         re.IGNORECASE)


def _token_bindings(tokens: Sequence[_Tok]) -> Iterator[tuple[str, str, int]]:
    """``(name, value, line)`` of R/Julia string literals bound to a name, key or argument."""
    for index, tok in enumerate(tokens):
        if tok.kind != "str":
            continue
        opening = _prev_index(tokens, index)
        if opening >= 1 and tokens[opening].kind == "op" and tokens[opening].text == "(":
            callee = _prev_index(tokens, opening)
            if callee >= 0 and tokens[callee].kind == "name" and _KEY_SETTER.search(tokens[callee].text):
                yield "api_key", tok.text, tok.line
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


def _segment_bindings(segment: _Segment) -> Iterator[tuple[str, str, int]]:
    if segment.language == "python" and segment.unit is not None and segment.unit.tree is not None:
        for name, node in segment.python_bindings():
            yield name, node.value, node.lineno
    elif segment.language in ("r", "julia"):
        yield from _token_bindings(segment.tokens)
    else:
        yield from line_bindings(segment.lines, segment.language)


def _segments_credentials(segments: list[_Segment]) -> tuple[CredentialFact, ...]:
    found = FileCredentials()
    for segment in segments:
        found.segment(segment.text, segment.lines, _segment_bindings(segment), cell=segment.cell,
                      line_offset=segment.line_offset, word_text=segment.word_text)
    return found.facts()


def _hit(path: str, fact: CredentialFact) -> _Hit:
    if fact.kind == "token":
        rule, reason = f"token.{fact.name}", f"{fact.name} token format {fact.masked}"
    elif fact.kind == "private_key":
        rule, reason = "token.private_key", "PEM private key with key material"
    else:
        rule, reason = "assignment", f"credential-named {fact.name!r} bound to a literal value {fact.masked}"
    return _Hit(path, fact.line, f"no_hardcoded_credentials.{rule}", reason, fact.excerpt, fact.cell)


@detector("no_hardcoded_credentials", version="2.1.0")
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
        and ``.env`` assignments, ``--password=…`` options), or, in R and Julia, passes
        a literal to a key-setting call (``fredr::fredr_set_key("…")``,
        ``tidycensus::census_api_key("…")``, ``set_api_key``, ``set_token``). The value must have at
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
    code, parameters = _files(tree)
    files = code + parameters
    if not files:
        return Result(100, applicable=False, reason="no source or parameter files to scan",
                      counts={"files_scanned": 0, "files_with_credentials": 0})
    hits_by_file = {}
    for scanned in files:
        if scanned.lines is not None:
            credentials = scanned.lines.credentials
        else:
            # a file's findings depend on its content alone: derived once per content and
            # shared by the trees measured with one facts cache (a deposit's versions)
            credentials = tree._cached(
                f"credentials:{scanned.kind}", scanned.path,
                lambda _text, s=scanned: _segments_credentials(file_segments(tree, s.path, s.kind)),
                shared=True) or ()
        if credentials:
            hits_by_file[scanned.path] = [_hit(scanned.path, fact) for fact in credentials]
    bad = len(hits_by_file)
    counts = {
        "files_scanned": len(files),
        "files_with_credentials": bad,
        "credential_hits": sum(len(h) for h in hits_by_file.values()),
        "parameter_files": len(parameters),
        "env_files": sum(1 for f in parameters if f.kind == "env"),
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
