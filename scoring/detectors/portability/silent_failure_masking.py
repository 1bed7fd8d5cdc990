"""C4 silent_failure_masking: no exception handler silently swallows every error."""

from __future__ import annotations

import re
from dataclasses import dataclass

from scoring.detectors.portability._common import (
    MAX_EVIDENCE,
    _evidence,
    _Hit,
    _join,
    _ratio_value,
)
from scoring.facts import FileFacts, HandlerFact
from scoring.model import Evidence
from scoring.parsers.secrets import mask_line
from scoring.registry import Result, detector
from scoring.tree import TreeIndex

# what a Python handler catches, as the frontend writes it, that catches every error
_BROAD = frozenset({"Exception", "BaseException", "builtins.Exception", "builtins.BaseException"})


def _masks(handler: HandlerFact, frontend: str) -> str | None:
    """The rule of a handler that masks every error, else None."""
    if frontend in _EMPTY_CATCH_RULES:
        # a Julia or MATLAB catch catches every error; C++ only when it is catch (...);
        # a Nextflow errorStrategy 'ignore' is a handler whose action is "pass"
        if handler.action == "pass" and (frontend != "c_cpp" or handler.caught == "..."):
            return _EMPTY_CATCH_RULES[frontend]
        return None
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


def _catches_all(handler: HandlerFact, frontend: str) -> bool:
    """A handler that takes every error: the kind a masking handler is, whatever it does."""
    if frontend in _EMPTY_CATCH_RULES:
        return frontend != "c_cpp" or handler.caught == "..."
    if frontend in ("r", "rmd"):
        return handler.caught == "error"
    return handler.caught == "..." or any(name in _BROAD for name in handler.caught.split(", "))


_NOT_MASKING_SHOWN = 5


def _not_masking(files: list[tuple[str, str, FileFacts]], masked: dict[str, list[_Hit]]) -> list[Evidence]:
    """Handlers that take every error but act on it (an abort, a re-raise, an inspected
    try() result): what a reader checks after being told nothing masks; each file's
    first before a second, up to five. No snippet: reading the text of files only facts
    were taken from would add their decoding problems to the inventory."""
    first: list[Evidence] = []
    rest: list[Evidence] = []
    for path, kind, facts in files:
        masking = {h.line for h in masked.get(path, ())}
        seen = False
        for handler in facts.handlers:
            line = handler.start_line or handler.line
            if line in masking or not _catches_all(handler, kind) or _masks(handler, kind) is not None:
                continue
            item = Evidence(path, "handler takes every error but acts on it (not masking)",
                            rule="silent_failure_masking.not_masking", line_start=line,
                            line_end=max(line, handler.end_line), cell=handler.cell)
            (rest if seen else first).append(item)
            seen = True
    return (first + rest)[:_NOT_MASKING_SHOWN]


def _moxunit_shim(handler: HandlerFact, facts: FileFacts) -> bool:
    """MOxUnit's boilerplate, ``try test_functions = localfunctions(); catch end``
    before ``initTestSuite``: the empty catch lets MATLAB releases without
    ``localfunctions`` run the suite, and hides no result."""
    names = {call.name: call.line for call in facts.calls if call.name in ("localfunctions", "initTestSuite")}
    return "initTestSuite" in names and 0 < handler.line - names.get("localfunctions", -10) <= 3


# A Nextflow configuration selector, as the frontend writes the setting's scope
# (``process.withLabel:error_ignore``, ``process.withName:'FASTQC|MULTIQC'``).
_SELECTOR_RE = re.compile(r"""(?:^|\.)(withLabel|withName)\s*:\s*(?:'([^']*)'|"([^"]*)"|([^\s'"]+))""")
_PLAIN_LABEL_RE = re.compile(r"[\w-]+")


@dataclass(frozen=True)
class _Processes:
    """The processes a Nextflow tree defines, what a configuration selector matches."""

    labels: frozenset[str]      # every label a process carries
    names: frozenset[str]       # process names and the names workflows call (include aliases)
    labels_known: bool          # False when a label is computed (its value is no plain name)

    def selects_nothing(self, scope: str) -> str | None:
        """The selector of ``scope`` (``withLabel:error_ignore``) when it matches no
        process, else None (no selector, a negated or invalid one, or a match)."""
        if not self.names:
            return None   # no process read: nothing to resolve against
        for match in _SELECTOR_RE.finditer(scope):
            kind = match.group(1)
            pattern = next(g for g in match.groups()[1:] if g is not None)
            if pattern.startswith("!"):
                return None
            if kind == "withName":
                pattern = pattern.rsplit(":", 1)[-1]   # a fully qualified name ends with the process's
            try:
                regex = re.compile(pattern)
            except re.error:
                return None
            candidates = self.labels if kind == "withLabel" else self.names
            if (kind == "withLabel" and not self.labels_known) or any(regex.fullmatch(c) for c in candidates):
                return None
            return f"{kind}:{pattern}"
        return None


def _processes(tree: TreeIndex) -> _Processes:
    """Every process of the tree's Nextflow scripts (vendored modules too: they run)."""
    labels: set[str] = set()
    names: set[str] = set()
    known = True
    for path in tree.by_frontend("nextflow"):
        facts = tree.facts(path)
        if facts is None:
            continue
        names.update(d.name for d in facts.definitions if d.kind == "process")
        names.update(c.name for c in facts.calls if "." not in c.name)
        for directive in facts.directives:
            if directive.kind == "label" and directive.scope:
                if _PLAIN_LABEL_RE.fullmatch(directive.value):
                    labels.add(directive.value)
                else:
                    known = False
    return _Processes(frozenset(labels), frozenset(names), known)


def _c4_hits(path: str, frontend: str, facts: FileFacts, processes: _Processes | None = None,
             unused: list[Evidence] | None = None) -> list[_Hit]:
    """The masking handlers of one file. A Nextflow ``errorStrategy 'ignore'`` under a
    selector no process matches masks nothing: it goes to ``unused`` as evidence."""
    hits: list[_Hit] = []
    for handler in facts.handlers:
        rule = _masks(handler, frontend)
        if rule is None or (frontend == "matlab" and _moxunit_shim(handler, facts)):
            continue
        if rule == "silent_failure_masking.nextflow_ignore" and processes is not None:
            selector = processes.selects_nothing(handler.caught)
            if selector is not None:
                if unused is not None:
                    unused.append(Evidence(
                        path, f"errorStrategy 'ignore' for {selector}, which no process carries: masks nothing",
                        rule="silent_failure_masking.unused_selector", line_start=handler.line, cell=handler.cell))
                continue
        reason = ("R error suppressed and the result never inspected" if rule.startswith("silent_failure_masking.r_")
                  else "errorStrategy 'ignore': a failing task is dropped and the run goes on"
                  if rule == "silent_failure_masking.nextflow_ignore"
                  else "exception handler swallows every error without handling it")
        hits.append(_Hit(path, handler.start_line or handler.line, rule, reason,
                         mask_line(handler.excerpt) if handler.excerpt else None,
                         handler.cell, handler.end_line))
    # the cells of another language (a Julia- or R-kernel notebook, %%R cells, an R
    # Markdown document's Python and Julia chunks) follow their own language's rule; the
    # Python frontend also lists the swallowing handlers of R cells as the notebook's own
    own = {(hit.cell, hit.line) for hit in hits}
    for inner in facts.embedded:
        hits.extend(hit for hit in _c4_hits(path, inner.language, inner) if (hit.cell, hit.line) not in own)
    hits.sort(key=lambda h: (h.cell or 0, h.line))
    return hits


_C4_KINDS = ("python", "notebook", "r", "rmd")
# METRICS §0.3 C4 row: an empty catch in Julia and MATLAB, catch (...) {} in C/C++,
# errorStrategy 'ignore' in Nextflow; Snakefiles are Python (the Python rule). Fortran
# has no handlers.
_EMPTY_CATCH_RULES = {
    "julia": "silent_failure_masking.julia_empty_catch",
    "matlab": "silent_failure_masking.matlab_empty_catch",
    "c_cpp": "silent_failure_masking.cpp_catch_all_empty",
    "nextflow": "silent_failure_masking.nextflow_ignore",
}
_C4_FRONTENDS = (*_EMPTY_CATCH_RULES, "snakemake")
_C_ONLY_SUFFIXES = (".c", ".h")


def _scanned(tree: TreeIndex) -> list[tuple[str, str, FileFacts]]:
    """``(path, kind, facts)`` of the code files read: Python, notebooks, R, R Markdown,
    and the Julia, MATLAB, C/C++, Nextflow and Snakemake files their frontends read;
    vendored files are in no code metric's denominator (§0.2.2). ``kind`` is the file
    type for the first four, the frontend's name for the others."""
    chosen = {p: k for k in _C4_KINDS for p in tree.by_type(k)}
    for frontend in _C4_FRONTENDS:
        for path in tree.by_frontend(frontend):
            chosen.setdefault(path, frontend)
    # C has no exceptions: C/C++ files count only in a C++ code base (a source that is
    # neither .c nor .h), and then .h headers too; a pure-C tree is not applicable
    native = [p for p, k in chosen.items() if k == "c_cpp"]
    if not any(not p.lower().endswith(_C_ONLY_SUFFIXES) for p in native):
        for path in native:
            del chosen[path]
    else:
        for path in native:
            if path.lower().endswith(".c"):
                del chosen[path]
    out = []
    for path, kind in sorted(chosen.items()):
        if tree.role(path) == "vendored":
            continue
        facts = tree.facts(path)
        if facts is not None:
            out.append((path, kind, facts))
    return out


def _unparseable(kind: str, facts: FileFacts) -> bool:
    """A Python file that does not parse, or a notebook that is not valid JSON."""
    if kind == "python":
        return facts.parse_error is not None
    return kind == "notebook" and (facts.parse_error or "").startswith("NotebookError")


# how each ecosystem handles an error instead of swallowing it, for the fix text
_FIX_BY_KIND = {
    "python": "catch the specific exceptions you expect and log or re-raise them",
    "r": "check try() results with inherits(x, 'try-error') or give tryCatch a handler that reports the condition",
    "julia": "log the caught error (@warn) or rethrow() it",
    "matlab": "report the caught error (warning(ME.message)) or rethrow(ME)",
    "c_cpp": "catch the exception types you expect and report them instead of catch (...) {}",
    "nextflow": "use errorStrategy 'retry' or 'terminate' instead of 'ignore'",
}
_FIX_GROUP = {"notebook": "python", "snakemake": "python", "rmd": "r"}


def _fix(hits_by_file: dict[str, list[_Hit]], kinds: dict[str, str]) -> str:
    groups: dict[str, list[str]] = {}
    for path in sorted(hits_by_file):
        kind = _FIX_GROUP.get(kinds[path], kinds[path])
        groups.setdefault(kind, []).append(path)
    parts = [f"in {_join(paths)}, {_FIX_BY_KIND[kind]}" for kind, paths in groups.items()]
    text = "; ".join(parts)
    return text[:1].upper() + text[1:] + "."


@detector("silent_failure_masking", version="2.3.0")
def silent_failure_masking(tree: TreeIndex) -> Result:
    """No exception handler silently swallows every error.

    What it checks:
        Python files, notebook code cells (in every language the notebook holds: a
        Julia- or R-kernel notebook's cells and ``%%R`` cells follow the Julia or R
        rule, an R Markdown document's Python and Julia chunks theirs), R, R Markdown
        and Quarto files, and the
        Julia, MATLAB/Octave, C++, Nextflow and Snakemake files. In Python (AST; a
        line-based fallback for code that does not parse) a handler masks when it
        catches everything (bare ``except:``, ``Exception`` or ``BaseException``, alone
        or in a tuple) and its body is only ``pass``, ``...``, ``continue`` and/or
        string constants; handlers of specific exceptions never mask. In R a
        ``try(…, silent = TRUE)`` whose result is discarded (a statement of its own, not
        assigned or tested) masks, and so does ``tryCatch(…, error = function(e) NULL)``
        (also ``invisible(NULL)`` or an empty ``{}`` body): the forms METRICS.md §3 C4
        and the §0.3 R cell name, a handler whose result vanishes from the value it
        stands for. A handler returning ``NA`` (``error = function(e) NA``) does not:
        by the letter of §3 C4 it is no such form, and an ``NA`` stays in the result as a
        visible missing value where a ``NULL`` disappears from ``c()``, ``rbind()`` or
        ``unlist()``. In Julia and MATLAB a ``try … catch … end`` whose catch does
        nothing (empty, only comments or ``nothing``) masks, since their ``catch`` takes
        every error; in C/C++ a ``catch (...) {}`` with an empty body (C++ files only: a
        pure-C tree, with no exceptions, is not applicable); in Nextflow
        ``errorStrategy 'ignore'`` (a failed task is dropped and the pipeline reports
        success), unless it is set under a configuration selector no process matches
        (``withLabel:error_ignore`` of the nf-core template when no process carries that
        label; ``withName:`` patterns against the process names and the names workflows
        call): such a setting masks nothing. Snakefiles follow the Python rule; Fortran
        has no handlers. Vendored files are not scanned. Value = 100·(1 − bad files /
        scanned files); no such file → 100, not applicable.
    Why it matters:
        A swallowed error lets a run finish with missing or wrong results and no trace,
        so a failed reproduction looks like a successful one.
    Evidence:
        Path, line range (and notebook cell) of each masking handler with its code as
        snippet; at most three per file and twenty in all, in turns by folder so that a
        bundled toolbox does not hide the project's own files. Then up to five Nextflow
        settings under selectors no process matches, and up to five handlers that take
        every error but act on it (a ``catch (...)`` that aborts, a ``try(…, silent =
        TRUE)`` whose result is inspected, a ``tryCatch`` returning ``NA``) with their
        line range: what was checked and found not masking. Counts: scanned and bad
        files, handlers found, unused selectors.
    How to fix:
        Catch the specific exception you expect (``except FileNotFoundError:``) and log,
        re-raise or handle it; in R inspect the ``try`` result with ``inherits(res,
        "try-error")`` or give ``tryCatch`` a handler that reports the condition; in
        Julia and MATLAB log the caught error (``@warn``, ``warning(ME.message)``) or
        ``rethrow``; in C++ catch the exception types you expect; in Nextflow use
        ``errorStrategy 'retry'`` or ``'terminate'``, or ``'ignore'`` only for a
        process whose output nothing downstream needs.
    Known false positives:
        Deliberate best-effort clean-up (``except Exception: pass`` around closing a
        file or deleting a temporary directory) counts although it is harmless. A ``try``
        assigned to a variable that is never read does not count. A Julia or MATLAB
        probe (``try isfile(x) catch end`` to test for a feature) counts although it is
        deliberate; MOxUnit's own boilerplate (``try test_functions = localfunctions();
        catch end`` before ``initTestSuite``) does not. A Nextflow selector that only
        matches a process of a file the frontend cannot read, or an included process
        that no workflow calls under its alias, is taken as unused. Shell files are not
        scanned (no masking rule is defined for them).
    """
    files = _scanned(tree)
    if not files:
        return Result(100, applicable=False, reason="no Python, notebook, R, Julia, MATLAB, C/C++ or workflow files to scan",
                      counts={"files_scanned": 0, "files_with_masking": 0})
    processes = _processes(tree)
    unused: list[Evidence] = []
    hits_by_file = {path: hits for path, kind, facts in files
                    if (hits := _c4_hits(path, kind, facts, processes, unused))}
    checked = unused[:_NOT_MASKING_SHOWN] + _not_masking(files, hits_by_file)
    bad = len(hits_by_file)
    counts = {
        "files_scanned": len(files),
        "files_with_masking": bad,
        "masking_handlers": sum(len(h) for h in hits_by_file.values()),
        "unparseable_files": sum(1 for _, kind, facts in files if _unparseable(kind, facts)),
        "unused_selectors": len(unused),
    }
    value = _ratio_value(bad, len(files))
    if not bad:
        return Result(value, counts=counts, evidence=checked,
                      reason=f"no silently masked failure in {len(files)} scanned files")
    evidence = _evidence(hits_by_file)
    return Result(
        value,
        evidence=evidence + checked[: max(0, MAX_EVIDENCE - len(evidence))],
        counts=counts,
        reason=f"{bad} of {len(files)} scanned files swallow errors silently",
        fix=_fix(hits_by_file, {path: kind for path, kind, _ in files}),
    )
