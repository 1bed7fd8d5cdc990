"""Typed records of a measurement: evidence items, one measurement per sub-metric,
and the set of measurements of one tree with its inventory.

These are plain data: the store, the exporters and the aggregator read them; nothing
here knows about rubrics.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from .declared import DeclaredMetadata

SNIPPET_MAX = 200

OUTCOME_MEASURED = "measured"
OUTCOME_NOT_APPLICABLE = "not_applicable"
OUTCOME_ERROR = "error"
OUTCOMES = (OUTCOME_MEASURED, OUTCOME_NOT_APPLICABLE, OUTCOME_ERROR)

# Provider token formats and credential-looking assignments. Snippets pass through
# redact() before they are stored anywhere, so a secret found in a deposit never reaches
# the database, an export or a log through evidence.
_TOKEN_PATTERNS = (
    r"AKIA[0-9A-Z]{16}",
    r"ASIA[0-9A-Z]{16}",
    r"gh[pousr]_[A-Za-z0-9]{20,}",
    r"github_pat_[A-Za-z0-9_]{20,}",
    r"glpat-[A-Za-z0-9_\-]{20,}",
    r"sk-(?:proj-)?[A-Za-z0-9_\-]{20,}",
    r"sk_live_[A-Za-z0-9]{16,}",
    r"xox[abprs]-[A-Za-z0-9\-]{10,}",
    r"AIza[0-9A-Za-z_\-]{35}",
    r"hf_[A-Za-z0-9]{30,}",
    r"eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}",
)
_TOKEN_RE = re.compile("|".join(f"(?:{p})" for p in _TOKEN_PATTERNS))
_PEM_RE = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)")
# The look-behind starts a name only where a run of name characters starts: a match
# starting inside a run implies one at the run's start, which a left-to-right search
# finds first, so matches are the same, but a long run is no longer re-scanned from
# each of its characters (quadratic on long docstrings and comments).
_ASSIGNED_SECRET_RE = re.compile(
    r"""(?ix)
    (?<![A-Za-z0-9_\-])(?P<name>[A-Za-z0-9_\-]*(?:api[_-]?key|api[_-]?secret|access[_-]?token|secret[_-]?key|password|passwd|pwd|
        auth[_-]?token|private[_-]?key|client[_-]?secret|bearer[_-]?token|token|secret|credentials?|auth))
    (?P<sep>["']?\s*(?:=|:|<-)\s*)
    (?P<quote>["'])(?P<value>[^"'\n]{4,})(?P=quote)
    """
)

# What every match of _ASSIGNED_SECRET_RE contains: the binding and its opening quote,
# after the end of a credential word (and an optional quote, and blanks). Text without it
# (most docstrings and comments) skips the full pattern, which costs far more.
_BINDING_QUOTE_RE = re.compile(r"""(?:=|:|<-)\s*["']""")
_CREDENTIAL_TAIL_RE = re.compile(r"""(?i)(?:key|secret|token|password|passwd|pwd|auth|credentials?)["']?\Z""")


def _may_bind_secret(text: str) -> bool:
    for match in _BINDING_QUOTE_RE.finditer(text):
        end = match.start()
        while end > 0 and text[end - 1].isspace():
            end -= 1
        # the longest credential word and its quote: 12 characters
        if _CREDENTIAL_TAIL_RE.search(text, max(0, end - 12), end):
            return True
    return False


_MASKED_RE = re.compile(r".{0,4}…\(\d+ chars\)")


# Credentials passed on command lines and in URLs (``curl --user id:secret``,
# ``https://user:pass@host``, ``-H "Authorization: Bearer …"``).
_URL_USERINFO_RE = re.compile(r"(?P<head>\b[a-z][a-z0-9+.-]*://[^/\s:@]+:)(?P<value>[^/\s@]+)(?=@)", re.IGNORECASE)
_CLI_SECRET_RE = re.compile(
    r"(?P<head>(?<![\w-])(?:--user|-u|--password|--pass|--passwd|--token|--api-key|--apikey|--secret)(?:=|\s+)['\"]?)"
    r"(?P<value>[^\s'\"]{4,})",
)
_AUTH_HEADER_RE = re.compile(r"(?P<head>\bAuthorization:\s*(?:Bearer|Basic|token)\s+)(?P<value>[^\s'\"]{4,})", re.IGNORECASE)


def mask_secret(value: str) -> str:
    """``abcd…(40 chars)``: enough to recognise a secret, not enough to use it."""
    return f"{value[:4]}…({len(value)} chars)"


# Every pattern above needs one of these (case-folded) substrings; most snippets (a
# ``def`` line, an import) hold none, and six regular expressions are skipped for them.
_SECRET_MARKERS = (
    "akia", "asia", "gh", "github_pat_", "glpat-", "sk-", "sk_live_", "xox", "aiza", "hf_", "eyj",
    "-----begin", "://", "-u", "--", "authorization", "key", "secret", "token", "pass", "pwd",
    "credential", "auth",
)
# Text whose lower-cased form holds none of the markers comes out of redact() unchanged
# (facts are screened for them in bulk: scoring.frontends._common.redact_facts).
SECRET_MARKERS = _SECRET_MARKERS
_SECRET_MARKERS_RE = re.compile("|".join(map(re.escape, _SECRET_MARKERS)))


def _mask_value(m: re.Match[str]) -> str:
    # A value a detector already masked ("…(16 chars)") is left as it is.
    return m.group(0) if "…" in m.group("value") else m.group("head") + mask_secret(m.group("value"))


def redact(text: str) -> str:
    """Remove secrets (provider tokens, PEM keys, quoted credential values) from ``text``.

    Each pattern runs only when ``text`` holds a literal every match of it contains, so
    the long texts facts carry (docstrings, comments) are cheap; the result is the same.
    """
    if _SECRET_MARKERS_RE.search(text.lower()) is None:
        return text
    if "PRIVATE KEY-----" in text:
        text = _PEM_RE.sub("-----BEGIN PRIVATE KEY----- [redacted]", text)
    text = _TOKEN_RE.sub(lambda m: mask_secret(m.group(0)), text)
    if "://" in text and "@" in text:
        text = _URL_USERINFO_RE.sub(_mask_value, text)
    if "-u" in text or "--p" in text or "--t" in text or "--a" in text or "--s" in text:
        text = _CLI_SECRET_RE.sub(_mask_value, text)
    if "uthor" in text.lower():
        text = _AUTH_HEADER_RE.sub(_mask_value, text)
    def mask_assignment(m: re.Match[str]) -> str:
        value = m.group("value")
        if _MASKED_RE.fullmatch(value):  # already masked by a detector: keep its true length
            return m.group(0)
        return f"{m.group('name')}{m.group('sep')}{m.group('quote')}{mask_secret(value)}{m.group('quote')}"

    if not _may_bind_secret(text):
        return text
    return _ASSIGNED_SECRET_RE.sub(mask_assignment, text)


# Where redact() may change a text, found quickly in long texts: each of its patterns but
# the credential-assignment one, which is slow (a name of any length before the keyword)
# and is stood for by its keyword, separator and quote. A superset: any text redact()
# changes holds a match of one of these.
_ASSIGNMENT_HINT_RE = re.compile(
    r"""(?i)(?:key|secret|token|passw(?:or)?d|pwd|credentials?|auth)["']?\s*(?:=|:|<-)\s*["']"""
)
SECRET_HINTS = (_PEM_RE, _TOKEN_RE, _URL_USERINFO_RE, _CLI_SECRET_RE, _AUTH_HEADER_RE, _ASSIGNMENT_HINT_RE)


def make_snippet(text: str | None) -> str | None:
    """A redacted one-line excerpt of at most 200 characters."""
    if text is None:
        return None
    one_line = " ".join(redact(text).split())
    if len(one_line) > SNIPPET_MAX:
        one_line = one_line[: SNIPPET_MAX - 1] + "…"
    return one_line


@dataclass(frozen=True)
class Evidence:
    """One located observation backing a measurement.

    ``path`` is repository-relative POSIX; ``line_start``/``line_end`` are 1-based and
    inclusive (``None`` for whole-file or directory evidence). For notebooks ``cell`` is
    the 1-based index of the cell among all cells and the lines count within that cell.
    ``rule`` is a stable identifier of the rule that matched (for filtering and tests),
    ``reason`` the human sentence.
    """

    path: str | None
    reason: str
    rule: str = ""
    line_start: int | None = None
    line_end: int | None = None
    snippet: str | None = None
    cell: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "snippet", make_snippet(self.snippet))
        if self.line_start is not None and self.line_end is None:
            object.__setattr__(self, "line_end", self.line_start)

    def to_dict(self) -> dict[str, Any]:
        data = {
            "path": self.path,
            "line_start": self.line_start,
            "line_end": self.line_end,
            "reason": self.reason,
            "rule": self.rule,
            "snippet": self.snippet,
        }
        if self.cell is not None:
            data["cell"] = self.cell
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Evidence:
        return cls(
            path=data.get("path"),
            reason=data.get("reason", ""),
            rule=data.get("rule", ""),
            line_start=data.get("line_start"),
            line_end=data.get("line_end"),
            snippet=data.get("snippet"),
            cell=data.get("cell"),
        )


@dataclass
class Measurement:
    """The result of one detector on one tree.

    ``value`` is what enters the arithmetic: for a not-applicable metric it is the
    contract's fill value (METRICS.md §3.0), and ``applicable`` is False so reports can
    tell "not applicable" from "absent". ``outcome`` is ``error`` when the detector
    failed; such a measurement has no value and the aggregator refuses to score it.
    """

    metric_id: str
    category: str
    value: float | None
    applicable: bool
    level: str | None
    evidence: list[Evidence] = field(default_factory=list)
    fix: str | None = None
    reason: str = ""
    counts: dict[str, Any] = field(default_factory=dict)
    outcome: str = OUTCOME_MEASURED
    detector_version: str = ""
    truncated: bool = False

    @property
    def display_value(self) -> float | None:
        return None if self.value is None else round(self.value, 2)

    def to_dict(self) -> dict[str, Any]:
        return {
            "category": self.category,
            "value": self.value,
            "display_value": self.display_value,
            "applicable": self.applicable,
            "level": self.level,
            "outcome": self.outcome,
            "reason": self.reason,
            "evidence": [e.to_dict() for e in self.evidence],
            "fix": self.fix,
            "counts": self.counts,
            "detector_version": self.detector_version,
            "truncated": self.truncated,
        }

    @classmethod
    def from_dict(cls, metric_id: str, data: dict[str, Any]) -> Measurement:
        return cls(
            metric_id=metric_id,
            category=data["category"],
            value=data.get("value"),
            applicable=bool(data.get("applicable", True)),
            level=data.get("level"),
            evidence=[Evidence.from_dict(e) for e in data.get("evidence", [])],
            fix=data.get("fix"),
            reason=data.get("reason", ""),
            counts=dict(data.get("counts", {})),
            outcome=data.get("outcome", OUTCOME_MEASURED),
            detector_version=data.get("detector_version", ""),
            truncated=bool(data.get("truncated", False)),
        )


@dataclass
class Inventory:
    """What the one pass over the tree saw, and what it could not use.

    ``skipped`` lists files that were not read (too large, binary, dangling or external
    links, unreadable, beyond the file limit) with a reason each; ``problems`` lists files
    that were read but could not be parsed (invalid notebook, TOML, YAML, …) or were
    decoded with replacement characters. ``role_counts`` and ``roles`` give each file's
    role (METRICS.md §0.2.1): the files of each role but ``source``, the default, are
    listed by path. ``ecosystems`` names the ecosystems found (METRICS.md §0.3) and
    ``read_by`` the categories whose detectors read each file, so a reader can see what
    a category's score rests on.
    """

    files: int = 0
    bytes: int = 0
    by_type: dict[str, int] = field(default_factory=dict)
    skipped: list[dict[str, str]] = field(default_factory=list)
    problems: list[dict[str, str]] = field(default_factory=list)
    excluded_dirs: list[str] = field(default_factory=list)
    truncated: bool = False
    limits: dict[str, int] = field(default_factory=dict)
    # the number of files of each role (scoring.roles: source, test, docs, vendored,
    # build) and the paths of the files of every role but source, sorted
    role_counts: dict[str, int] = field(default_factory=dict)
    roles: dict[str, list[str]] = field(default_factory=dict)
    # the ecosystems the files belong to (scoring.ecosystems: name, source files, the
    # manifests and build files that mark it), most files first
    ecosystems: list[dict[str, Any]] = field(default_factory=list)
    # every file a detector read -> the keys of the categories that read it, in the
    # catalog's order ("EDC"); files in path order
    read_by: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Inventory:
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})


@dataclass
class Measurements:
    """All measurements of one tree, keyed by metric id, plus its inventory and what
    the tree declares about itself (``declared``: None when it was not read, as for
    measurements stored before the record existed)."""

    measurements: dict[str, Measurement]
    inventory: Inventory
    scorer_version: str = ""
    declared: DeclaredMetadata | None = None

    def __getitem__(self, metric_id: str) -> Measurement:
        return self.measurements[metric_id]

    @property
    def detector_versions(self) -> dict[str, str]:
        return {mid: m.detector_version for mid, m in self.measurements.items()}

    def to_dict(self) -> dict[str, Any]:
        return {
            "scorer_version": self.scorer_version,
            "submetrics": {mid: m.to_dict() for mid, m in self.measurements.items()},
            "inventory": self.inventory.to_dict(),
            "declared": None if self.declared is None else self.declared.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Measurements:
        return cls(
            measurements={
                mid: Measurement.from_dict(mid, m) for mid, m in data["submetrics"].items()
            },
            inventory=Inventory.from_dict(data.get("inventory", {})),
            scorer_version=data.get("scorer_version", ""),
            declared=DeclaredMetadata.from_dict(data["declared"]) if data.get("declared") is not None else None,
        )
