"""Evidence records: snippets are one line, at most 200 characters, and never hold a secret."""

from __future__ import annotations

import pytest

from scoring.model import Evidence, mask_secret, redact

SECRETS = [
    ("!curl -O -L --user QFYXHTWC:w6vwvhawzees3byl https://data.example.org/f", "w6vwvhawzees3byl"),
    ("git clone https://bob:s3cretpass@github.com/x/y", "s3cretpass"),
    ('curl -H "Authorization: Bearer abcdef123456xyz" https://x', "abcdef123456xyz"),
    ("wget --password=hunter22 ftp://x/y", "hunter22"),
    ('API_KEY = "9f8e7d6c5b4a39281706f5e4d3c2b1a0"', "9f8e7d6c5b4a39281706f5e4d3c2b1a0"),
    ("token: ghp_1234567890abcdefghijklmnopqrstuvwxyz12", "ghp_1234567890abcdefghijklmnopqrstuvwxyz12"),
    ("AKIAIOSFODNN7EXAMPLE is the key id", "AKIAIOSFODNN7EXAMPLE"),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----", "MIIEpAIBAAKCAQEA"),
    # Every provider format, bare in a line with no other marker: the cheap marker test
    # that lets ordinary snippets skip the patterns must still let each of these through.
    ("x = ASIAIOSFODNN7EXAMPLE", "ASIAIOSFODNN7EXAMPLE"),
    ("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"),
    ("glpat-abcdefghijklmnopqrst12", "glpat-abcdefghijklmnopqrst12"),
    ("sk-proj-abcdefghijklmnopqrstuvwx", "sk-proj-abcdefghijklmnopqrstuvwx"),
    ("sk_live_abcdefghijklmnop1234", "sk_live_abcdefghijklmnop1234"),
    ("xoxb-1234567890-abcdefghij", "xoxb-1234567890-abcdefghij"),
    ("AIzaSyA1234567890abcdefghijklmnopqrstuv", "AIzaSyA1234567890abcdefghijklmnopqrstuv"),
    ("hf_abcdefghijklmnopqrstuvwxyz123456", "hf_abcdefghijklmnopqrstuvwxyz123456"),
    ("eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.SflKxwRJSMeKKF2QT4f", "eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.SflKxwRJSMeKKF2QT4f"),
    ('PASSWD = "correct horse battery"', "correct horse battery"),
    ('conn(pwd="hunter2hunter2")', "hunter2hunter2"),
]


@pytest.mark.parametrize(("text", "secret"), SECRETS)
def test_redact_removes_the_secret(text, secret):
    assert secret not in redact(text)
    assert secret not in (Evidence("a.py", "hit", snippet=text).snippet or "")


def test_redact_keeps_ordinary_text_and_existing_masks():
    assert redact("pip install -u x") == "pip install -u x"
    masked = f'api_key = "{mask_secret("sk-" + "a1" * 20)}"'
    assert redact(masked) == masked
    assert mask_secret("abcdefgh") == "abcd…(8 chars)"


def test_snippet_is_one_line_and_capped():
    ev = Evidence("a.py", "long", snippet="x = 1\n" + "y" * 500, line_start=3)
    assert "\n" not in ev.snippet and len(ev.snippet) == 200 and ev.snippet.endswith("…")
    assert (ev.line_start, ev.line_end) == (3, 3)


@pytest.mark.parametrize(("text", "_secret"), SECRETS)
def test_redact_is_idempotent_so_stored_snippets_round_trip(text, _secret):
    once = redact(text)
    assert redact(once) == once
    ev = Evidence("a.py", "hit", snippet=text, line_start=1)
    assert Evidence.from_dict(ev.to_dict()) == ev
