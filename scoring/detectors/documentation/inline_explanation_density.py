"""D4 inline_explanation_density: code is explained (markdown cells, comments, docstrings)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from scoring.facts import FileFacts
from scoring.model import Evidence
from scoring.registry import Result, detector
from scoring.tree import TreeIndex


def _join(items: Sequence[str], limit: int = 4) -> str:
    shown = ", ".join(items[:limit])
    return shown + (", …" if len(items) > limit else "")


_MD_CELL_MIN_CHARS = 10
_NB_TARGET = 0.5      # one explanatory markdown cell per two code cells
_SCRIPT_TARGET = 0.20  # one comment line in five non-blank lines
_CELL_MARKER = re.compile(
    r"^\s*#\s*(?:%%|In\s*\[[\d\s]*\]\s*:?\s*$|<(?:codecell|markdowncell|rawcell)>|COMMAND\s*-{3,})", re.IGNORECASE)
_CODING_COOKIE = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+")


@dataclass
class _ScriptDensity:
    path: str
    nonblank: int
    comments: int
    gap: tuple[int, int] | None   # longest stretch of code lines without a comment

    @property
    def ratio(self) -> float:
        return self.comments / self.nonblank if self.nonblank else 0.0


@dataclass
class _NotebookDensity:
    path: str
    markdown: int
    code: int
    gap: tuple[int, int] | None   # first and last cell of the longest unexplained code run

    @property
    def ratio(self) -> float:
        return self.markdown / self.code if self.code else 0.0


def _is_marker_comment(line_no: int, text: str) -> bool:
    """Shebangs, encoding cookies and cell markers are comments that explain nothing."""
    if line_no == 1 and text.lstrip().startswith("#!"):
        return True
    if line_no <= 2 and _CODING_COOKIE.match(text):
        return True
    return _CELL_MARKER.match(text) is not None


def _fact_comment_lines(facts: FileFacts, kind: str) -> set[int]:
    """The explained lines of a script's facts: every line of a comment block (markers
    left out: a comment after code is a block of its own, and only a whole-line comment
    matches a marker) and, in Python, of a docstring. Julia's docstrings are strings,
    which D4 does not count; R's roxygen blocks are ``#`` comments."""
    found: set[int] = set()
    if facts.hash_scan_comments:   # D4's historical scan, kept while its quote bug is
        found.update(number for number, line in facts.hash_scan_comments
                     if not _is_marker_comment(number, line))
    for comment in facts.comments:
        start, end = comment.line_start, comment.line_end
        if comment.doc and kind != "r":
            if kind == "python":
                found.update(range(start, end + 1))
            continue
        if facts.hash_scan_comments:
            continue
        texts = comment.text.split("\n")
        for offset, text in enumerate(texts):
            if not _is_marker_comment(start + offset, text):
                found.add(start + offset)
        if end >= start + len(texts):   # a block whose text does not show its lines
            found.update(range(start + len(texts), end + 1))
    return found


def _density(path: str, lines: int, blank: tuple[int, ...], commented: set[int]) -> _ScriptDensity | None:
    """Non-blank and explained line counts, and the longest run of non-blank lines with
    no explanation (the evidence a reader is pointed to), from the sorted breaks."""
    blank_set = set(blank)
    nonblank = lines - sum(1 for number in blank_set if number <= lines)
    if nonblank <= 0:
        return None
    explained = sorted(number for number in commented if 0 < number <= lines and number not in blank_set)
    best: tuple[int, int] | None = None
    previous = 0
    for stop in (*explained, lines + 1):
        first, last = previous + 1, stop - 1
        while first <= last and first in blank_set:
            first += 1
        while last >= first and last in blank_set:
            last -= 1
        if first <= last and (best is None or last - first > best[1] - best[0]):
            best = (first, last)
        previous = stop
    return _ScriptDensity(path, nonblank, len(explained), best)


def _script_density(tree: TreeIndex, path: str, kind: str) -> _ScriptDensity | None:
    if kind == "shell":
        scan = tree.shell_comments(path)
        if scan is None:
            return None
        commented = {number for number, line in scan.comments if not _is_marker_comment(number, line)}
        return _density(path, scan.lines, scan.blank_lines, commented)
    facts = tree.facts(path)
    if facts is None:
        return None
    return _density(path, facts.lines, facts.blank_lines, _fact_comment_lines(facts, kind))


def _notebook_density(path: str, facts: FileFacts) -> _NotebookDensity | None:
    code = 0
    markdown = 0
    run: list[int] = []
    best: tuple[int, int] | None = None
    for cell in facts.cells:
        if cell.kind == "code":
            code += 1
            run.append(cell.index)
            if best is None or run[-1] - run[0] > best[1] - best[0]:
                best = (run[0], run[-1])
        elif cell.kind == "markdown" and cell.chars >= _MD_CELL_MIN_CHARS:
            markdown += 1
            run = []
    if code == 0:
        return None
    return _NotebookDensity(path, markdown, code, best)


@detector("inline_explanation_density", version="2.0.0")
def inline_explanation_density(tree: TreeIndex) -> Result:
    """Code is explained: markdown cells in notebooks, comments and docstrings in scripts.

    What it checks:
        Notebook part over every .ipynb, .Rmd and .qmd (R Markdown/Quarto text between
        chunks is markdown, the YAML front matter is not): nb = min(md / code / 0.5, 1) ·
        100 with md = markdown cells of at least 10 non-blank characters and code = code
        cells; notebooks without code cells drop out. Script part over every .py/.pyw,
        .R/.r, .jl and .sh/.bash: sc = min(comment lines / non-blank lines / 0.20, 1) ·
        100, where a comment line holds a tokenizer comment (shebang, encoding cookie and
        `# %%`/`# In[ ]:` cell markers excluded) or a docstring line (Python); R counts
        `#` and roxygen `#'`, Julia `#` and `#= =#` blocks, shell `#`. Both parts → round
        (0.6·nb + 0.4·sc, 1); one part → that part rounded to 1 decimal; neither (no
        such files, or only notebooks without code cells and blank scripts) → 50, not
        applicable.
    Why it matters:
        Readers reuse code they can follow; a notebook of bare code cells or an
        uncommented script hides the intent of each analysis step.
    Evidence:
        The three least explained scripts (with the longest stretch of lines without a
        comment) and notebooks (with the longest run of code cells without an
        explanatory markdown cell). ``counts`` has md_cells, code_cells, comment_lines,
        nonblank_lines, the file counts and both parts.
    How to fix:
        Aim for at least one explanatory markdown cell per two code cells and about one
        comment or docstring line per five lines of code, starting with the files listed.
    Known false positives:
        Commented-out code, licence headers and separator lines (`# -----`) count as
        comments; a markdown cell of ten characters (a heading) counts as explanation.
        Density is not quality: boilerplate docstrings score like good ones.
    """
    scripts: list[_ScriptDensity] = []
    for kind in ("python", "r", "julia", "shell"):
        for path in tree.by_type(kind):
            density = _script_density(tree, path, kind)
            if density is not None:
                scripts.append(density)
    notebooks: list[_NotebookDensity] = []
    for path in tree.by_type("notebook") + tree.by_type("rmd"):
        facts = tree.facts(path)
        density = _notebook_density(path, facts) if facts is not None else None
        if density is not None:
            notebooks.append(density)
    md_cells = sum(n.markdown for n in notebooks)
    code_cells = sum(n.code for n in notebooks)
    comment_lines = sum(s.comments for s in scripts)
    nonblank_lines = sum(s.nonblank for s in scripts)
    nb_part = min(md_cells / code_cells / _NB_TARGET, 1.0) * 100 if code_cells else None
    sc_part = min(comment_lines / nonblank_lines / _SCRIPT_TARGET, 1.0) * 100 if nonblank_lines else None
    counts = {
        "md_cells": md_cells, "code_cells": code_cells, "comment_lines": comment_lines,
        "nonblank_lines": nonblank_lines, "notebooks": len(notebooks), "scripts": len(scripts),
        "notebook_part": None if nb_part is None else round(nb_part, 2),
        "script_part": None if sc_part is None else round(sc_part, 2),
    }
    if nb_part is None and sc_part is None:
        return Result(50, applicable=False, counts=counts,
                      reason="no notebook with code cells and no non-blank script")
    if nb_part is not None and sc_part is not None:
        value = round(0.6 * nb_part + 0.4 * sc_part, 1)
    else:
        value = round(nb_part if nb_part is not None else sc_part, 1)
    evidence: list[Evidence] = []
    worst_notebooks = sorted((n for n in notebooks if n.ratio < _NB_TARGET), key=lambda n: (n.ratio, n.path))[:3]
    for n in worst_notebooks:
        first, last = n.gap or (None, None)
        evidence.append(Evidence(
            n.path, f"{n.markdown} explanatory markdown cell(s) for {n.code} code cells"
            + (f"; cells {first}–{last} are code without explanation" if first else ""),
            rule="inline_explanation_density.notebook", cell=first,
        ))
    worst_scripts = sorted((s for s in scripts if s.ratio < _SCRIPT_TARGET), key=lambda s: (s.ratio, s.path))[:3]
    for s in worst_scripts:
        start, end = s.gap or (None, None)
        evidence.append(Evidence(
            s.path, f"{s.comments} comment line(s) in {s.nonblank} non-blank lines ({100 * s.ratio:.1f} %)"
            + (f"; lines {start}–{end} have no comment" if start else ""),
            rule="inline_explanation_density.script", line_start=start, line_end=end,
        ))
    fix = None
    if value < 100:
        targets = [e.path for e in evidence if e.path]
        fix = ("Add explanatory markdown cells (one per two code cells) and comments or docstrings "
               f"(one line in five) to {_join(targets, 3) or 'the code'}.")
    parts = []
    if nb_part is not None:
        parts.append(f"notebooks {md_cells} md / {code_cells} code cells → {nb_part:.1f}")
    if sc_part is not None:
        parts.append(f"scripts {comment_lines} / {nonblank_lines} comment lines → {sc_part:.1f}")
    return Result(value, evidence=evidence, fix=fix, counts=counts, reason="; ".join(parts))
