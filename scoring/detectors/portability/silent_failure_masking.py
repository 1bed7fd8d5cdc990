"""C4 silent_failure_masking: no exception handler silently swallows every error."""

from __future__ import annotations

from scoring.detectors.portability._common import (
    _evidence,
    _Hit,
    _join,
    _ratio_value,
)
from scoring.facts import FileFacts, HandlerFact
from scoring.parsers.secrets import mask_line
from scoring.registry import Result, detector
from scoring.tree import TreeIndex

# what a Python handler catches, as the frontend writes it, that catches every error
_BROAD = frozenset({"Exception", "BaseException", "builtins.Exception", "builtins.BaseException"})


def _masks(handler: HandlerFact) -> str | None:
    """The rule of a handler that masks every error, else None."""
    swallows = handler.swallows
    if not swallows:
        return None
    if swallows == "silent":
        return "silent_failure_masking.r_try_silent"
    if swallows == "null_handler":
        return "silent_failure_masking.r_trycatch_null"
    if handler.caught == "...":
        return "silent_failure_masking.python_bare"
    if any(name in _BROAD for name in handler.caught.split(", ")):
        return "silent_failure_masking.python_broad"
    return None


def _c4_hits(path: str, facts: FileFacts) -> list[_Hit]:
    hits: list[_Hit] = []
    for handler in facts.handlers:
        rule = _masks(handler)
        if rule is None:
            continue
        reason = ("R error suppressed and the result never inspected" if rule.startswith("silent_failure_masking.r_")
                  else "exception handler swallows every error without handling it")
        hits.append(_Hit(path, handler.start_line or handler.line, rule, reason, mask_line(handler.excerpt),
                         handler.cell, handler.end_line))
    hits.sort(key=lambda h: (h.cell or 0, h.line))
    return hits


_C4_KINDS = ("python", "notebook", "r", "rmd")


def _scanned(tree: TreeIndex) -> list[tuple[str, str, FileFacts]]:
    """``(path, kind, facts)`` of the Python, notebook, R and R Markdown files read."""
    out = []
    for path, kind in sorted((p, k) for k in _C4_KINDS for p in tree.by_type(k)):
        facts = tree.facts(path)
        if facts is not None:
            out.append((path, kind, facts))
    return out


def _unparseable(kind: str, facts: FileFacts) -> bool:
    """A Python file that does not parse, or a notebook that is not valid JSON."""
    if kind == "python":
        return facts.parse_error is not None
    return kind == "notebook" and (facts.parse_error or "").startswith("NotebookError")


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
    files = _scanned(tree)
    if not files:
        return Result(100, applicable=False, reason="no Python, notebook or R files to scan",
                      counts={"files_scanned": 0, "files_with_masking": 0})
    hits_by_file = {path: hits for path, _, facts in files if (hits := _c4_hits(path, facts))}
    bad = len(hits_by_file)
    counts = {
        "files_scanned": len(files),
        "files_with_masking": bad,
        "masking_handlers": sum(len(h) for h in hits_by_file.values()),
        "unparseable_files": sum(1 for _, kind, facts in files if _unparseable(kind, facts)),
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
