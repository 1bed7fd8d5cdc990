"""C4 silent_failure_masking: no exception handler silently swallows every error."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Sequence

from scoring.detectors.portability._common import (
    _OPENERS,
    _call_arguments,
    _evidence,
    _Hit,
    _join,
    _mask_line,
    _matching,
    _next_index,
    _prev_index,
    _ratio_value,
    _scan,
    _ScannedFile,
    _Segment,
    _strip_comment,
    _Tok,
)
from scoring.registry import Result, detector
from scoring.tree import TreeIndex

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
