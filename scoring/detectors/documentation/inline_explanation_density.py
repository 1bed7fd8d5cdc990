"""D4 inline_explanation_density: code is explained (markdown cells, comments, docstrings)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from scoring.detectors._shared import (
    JULIA,
    MATLAB,
    NATIVE,
    NEXTFLOW,
    PYTHON,
    SNAKEMAKE,
    R,
    fix_ecosystem,
)
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
# Comments that mark structure and explain nothing: Jupytext/Spyder/VS Code cell markers,
# Databricks command separators, Pluto's header and cell delimiters (``# ╔═╡ <id>``, the
# cell-order list) and a MATLAB section break without a title (``%%``; ``%% Load the
# data`` explains)
_CELL_MARKER = re.compile(
    r"^\s*(?:#\s*(?:%%|In\s*\[[\d\s]*\]\s*:?\s*$|<(?:codecell|markdowncell|rawcell)>|COMMAND\s*-{3,}"
    r"|[╔╠╟╞]|## A Pluto\.jl notebook ###)|%%\s*$)", re.IGNORECASE)
_CODING_COOKIE = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+")
# A Pluto notebook's embedded Project.toml and Manifest.toml: package metadata written as
# string literals, never code a reader follows (METRICS §0.3 Julia specifics)
_PLUTO_EMBEDDED = frozenset({"PLUTO_PROJECT_TOML_CONTENTS", "PLUTO_MANIFEST_TOML_CONTENTS"})
_NOTEBOOK_SUFFIXES = (".ipynb", ".rmd", ".qmd")

# The frontends whose files are each fix ecosystem's own code: the fix asks for their
# explanation first.
_ECOSYSTEM_LANGUAGES = {
    PYTHON: ("python",), R: ("r",), JULIA: ("julia",), MATLAB: ("matlab",), NATIVE: ("c_cpp", "fortran"),
    NEXTFLOW: ("nextflow",), SNAKEMAKE: ("snakemake",),
}
# What explains a script in each language, by the frontend that reads it: the fix names it.
_EXPLANATION = {
    "python": "comments and docstrings",
    "r": "`#` comments and roxygen `#'` blocks",
    "julia": "`#` comments and docstrings",
    "matlab": "`%` comments and help blocks",
    "c_cpp": "`//` and `/* */` comments (Doxygen on declarations)",
    "fortran": "`!` comments (FORD `!>` on declarations)",
    "nextflow": "`//` comments",
    "snakemake": "`#` comments and rule docstrings",
    "shell": "`#` comments",
}

@dataclass
class _ScriptDensity:
    path: str
    language: str  # the frontend that read it, or "shell"
    nonblank: int
    comments: int
    gap: tuple[int, int] | None   # longest stretch of code lines without a comment

    @property
    def ratio(self) -> float:
        return self.comments / self.nonblank if self.nonblank else 0.0

    @property
    def missing(self) -> float:
        """The comment lines it lacks to reach the target."""
        return _SCRIPT_TARGET * self.nonblank - self.comments


@dataclass
class _NotebookDensity:
    path: str
    markdown: int
    code: int
    gap: tuple[int, int] | None   # first and last cell of the longest unexplained code run

    @property
    def ratio(self) -> float:
        return self.markdown / self.code if self.code else 0.0

    @property
    def missing(self) -> float:
        """The explanatory markdown cells it lacks to reach the target."""
        return _NB_TARGET * self.code - self.markdown


def _is_marker_comment(line_no: int, text: str) -> bool:
    """Shebangs, encoding cookies and cell markers are comments that explain nothing."""
    if line_no == 1 and text.lstrip().startswith("#!"):
        return True
    if line_no <= 2 and _CODING_COOKIE.match(text):
        return True
    return _CELL_MARKER.match(text) is not None


def _fact_comment_lines(facts: FileFacts) -> set[int]:
    """The explained lines of a script's facts, in every language alike: every line of a
    comment block (markers left out: a comment after code is a block of its own, and
    only a whole-line comment matches a marker), documentation comments whole (roxygen
    ``#'``, Julia docstrings, MATLAB help blocks, Doxygen, FORD, Groovydoc), and every
    line of a docstring (Python, Julia, Snakemake rules)."""
    found: set[int] = set()
    for comment in facts.comments:
        start, end = comment.line_start, comment.line_end
        if comment.doc:
            found.update(range(start, end + 1))
            continue
        texts = comment.text.split("\n")
        for offset, text in enumerate(texts):
            if not _is_marker_comment(start + offset, text):
                found.add(start + offset)
        if end >= start + len(texts):   # a block whose text does not show its lines
            found.update(range(start + len(texts), end + 1))
    for string in facts.strings:
        if string.docstring:
            found.update(range(string.line_start, string.line_end + 1))
    return found


def _not_code_lines(facts: FileFacts) -> set[int]:
    """Lines that are neither code nor explanation: a Pluto notebook's embedded
    Project and Manifest."""
    return {number for string in facts.strings if string.binding in _PLUTO_EMBEDDED
            for number in range(string.line_start, string.line_end + 1)}


def _density(path: str, language: str, lines: int, skipped: set[int],
             commented: set[int]) -> _ScriptDensity | None:
    """Non-blank and explained line counts, and the longest run of non-blank lines with
    no explanation (the evidence a reader is pointed to), from the sorted breaks.
    ``skipped``: the blank lines and the lines that are not code."""
    nonblank = lines - sum(1 for number in skipped if number <= lines)
    if nonblank <= 0:
        return None
    explained = sorted(number for number in commented if 0 < number <= lines and number not in skipped)
    best: tuple[int, int] | None = None
    previous = 0
    for stop in (*explained, lines + 1):
        first, last = previous + 1, stop - 1
        while first <= last and first in skipped:
            first += 1
        while last >= first and last in skipped:
            last -= 1
        if first <= last and (best is None or last - first > best[1] - best[0]):
            best = (first, last)
        previous = stop
    return _ScriptDensity(path, language, nonblank, len(explained), best)


def _fact_script_density(path: str, facts: FileFacts) -> _ScriptDensity | None:
    skipped = set(facts.blank_lines)
    if facts.frontend == "julia":
        skipped |= _not_code_lines(facts)
    return _density(path, facts.frontend, facts.lines, skipped, _fact_comment_lines(facts))


def _shell_density(tree: TreeIndex, path: str) -> _ScriptDensity | None:
    scan = tree.shell_comments(path)
    if scan is None:
        return None
    commented = {number for number, line in scan.comments if not _is_marker_comment(number, line)}
    return _density(path, "shell", scan.lines, set(scan.blank_lines), commented)


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


@detector("inline_explanation_density", version="3.2.1")
def inline_explanation_density(tree: TreeIndex) -> Result:
    """Code is explained: markdown cells in notebooks, comments and docstrings in scripts.

    What it checks:
        Notebook part over every .ipynb, .Rmd and .qmd (R Markdown/Quarto text between
        chunks is markdown, the YAML front matter is not): nb = min(md / code / 0.5, 1) ·
        100 with md = markdown cells of at least 10 non-blank characters and code = code
        cells; notebooks without code cells drop out. Script part over the source code of
        every language (workflow code is source code): sc = min(comment lines / non-blank
        lines / 0.20, 1) · 100, where a comment line holds a comment or a line of
        documentation: Python (.py/.pyw/.ipy) `#` comments and docstrings; R (.R/.r) `#`
        comments and roxygen `#'` blocks; Julia (.jl) `#` and `#= =#` comments and
        docstrings, @doc strings included (a Pluto notebook's embedded Project and
        Manifest are not code); MATLAB/
        Octave (.m) `%`/`#` comments, `%{ %}` blocks and help blocks; C/C++ (.c .h .cc
        .cpp .cxx .hpp .hh .cu) and Fortran (.f .f90 … .F90) `//`, `/* */` and `!`
        comments, Doxygen and FORD included; Nextflow (.nf, nextflow.config and the other
        nextflow*.config files, conf/*.config)
        `//` and `/* */` comments; Snakemake (Snakefile, .smk) `#` comments and rule and
        function docstrings; shell (.sh/.bash) `#` comments. A trailing comment makes
        its line a comment line; shebangs, encoding cookies and cell markers (`# %%`,
        `# In[ ]:`, a bare MATLAB `%%`, Pluto's `# ╔═╡`) are not comments. Vendored files
        (the file role, METRICS §0.2.1-2) are left out: third-party, vendor, renv/ and
        packrat/ folders, the projects copied into an extern*/deps/dependencies
        container, a folder holding another project's licence, single-file libraries
        (versioneer.py, sse2neon.h) and the folders named after one. Both parts → round(0.6·nb + 0.4·sc, 1); one part → that
        part rounded to 1 decimal; neither (no such files, or only notebooks without code
        cells and blank scripts) → 50, not applicable.
    Why it matters:
        Readers reuse code they can follow; a notebook of bare code cells or an
        uncommented script hides the intent of each analysis step.
    Evidence:
        The three scripts (with the longest stretch of lines without a comment) and
        notebooks (with the longest run of code cells without an explanatory markdown
        cell) furthest below the target, by the comment lines or markdown cells they
        lack to reach it (an uncommented 100-line module before an uncommented 3-line
        helper script), and up to three vendored files left out
        (renv/activate.R). ``counts`` has md_cells, code_cells, comment_lines,
        nonblank_lines, the file counts, both parts, the scripts per language, the
        vendored files left out and the notebooks not read (too large: unknown, §0.2.5).
    How to fix:
        Aim for at least one explanatory markdown cell per two code cells and about one
        comment or documentation line per five lines of code, in the language's own
        form (roxygen for R, docstrings for Julia, help blocks for MATLAB, Doxygen for
        C/C++, FORD for Fortran, `//` comments in Nextflow, rule docstrings in
        Snakemake), starting with the files listed; the fix names the deposit's own
        language first (the workflow files of a workflow whose steps run Python helpers).
    Known false positives:
        Commented-out code, licence headers and separator lines (`# -----`) count as
        comments; a markdown cell of ten characters (a heading) counts as explanation.
        Density is not quality: boilerplate docstrings score like good ones. Markdown
        cells of a Pluto notebook (`md"…"`) are not counted as explanation.
    """
    scripts: list[_ScriptDensity] = []
    notebooks: list[_NotebookDensity] = []
    vendored_paths: list[str] = []
    for path, facts in tree.all_facts().items():
        if tree.role(path) == "vendored":
            vendored_paths.append(path)
        elif path.lower().endswith(_NOTEBOOK_SUFFIXES):
            notebook = _notebook_density(path, facts)
            if notebook is not None:
                notebooks.append(notebook)
        elif (script := _fact_script_density(path, facts)) is not None:
            scripts.append(script)
    for path in tree.by_type("shell"):
        if tree.role(path) == "vendored":
            vendored_paths.append(path)
        elif (script := _shell_density(tree, path)) is not None:
            scripts.append(script)
    unread_notebooks = sorted(path for path in tree.by_type("notebook") + tree.by_type("rmd")
                              if tree.skip_reason(path) is not None and tree.role(path) != "vendored")
    md_cells = sum(n.markdown for n in notebooks)
    code_cells = sum(n.code for n in notebooks)
    comment_lines = sum(s.comments for s in scripts)
    nonblank_lines = sum(s.nonblank for s in scripts)
    nb_part = min(md_cells / code_cells / _NB_TARGET, 1.0) * 100 if code_cells else None
    sc_part = min(comment_lines / nonblank_lines / _SCRIPT_TARGET, 1.0) * 100 if nonblank_lines else None
    by_language: dict[str, int] = {}
    for s in scripts:
        by_language[s.language] = by_language.get(s.language, 0) + 1
    counts = {
        "md_cells": md_cells, "code_cells": code_cells, "comment_lines": comment_lines,
        "nonblank_lines": nonblank_lines, "notebooks": len(notebooks), "scripts": len(scripts),
        "notebook_part": None if nb_part is None else round(nb_part, 2),
        "script_part": None if sc_part is None else round(sc_part, 2),
        "scripts_by_language": dict(sorted(by_language.items())),
        "vendored_files": len(vendored_paths), "notebooks_not_read": len(unread_notebooks),
    }
    if nb_part is None and sc_part is None:
        return Result(50, applicable=False, counts=counts,
                      reason="no notebook with code cells and no non-blank script")
    if nb_part is not None and sc_part is not None:
        value = round(0.6 * nb_part + 0.4 * sc_part, 1)
    else:
        value = round(nb_part if nb_part is not None else sc_part, 1)
    evidence: list[Evidence] = []
    # the files furthest below the target first: an uncommented 100-line module before
    # a 3-line helper script, though neither has a comment
    worst_notebooks = sorted((n for n in notebooks if n.ratio < _NB_TARGET),
                             key=lambda n: (-n.missing, n.ratio, n.path))[:3]
    for n in worst_notebooks:
        first, last = n.gap or (None, None)
        evidence.append(Evidence(
            n.path, f"{n.markdown} explanatory markdown cell(s) for {n.code} code cells"
            + (f"; cells {first}–{last} are code without explanation" if first else ""),
            rule="inline_explanation_density.notebook", cell=first,
        ))
    worst_scripts = sorted((s for s in scripts if s.ratio < _SCRIPT_TARGET),
                           key=lambda s: (-s.missing, s.ratio, s.path))[:3]
    for s in worst_scripts:
        start, end = s.gap or (None, None)
        evidence.append(Evidence(
            s.path, f"{s.comments} comment line(s) in {s.nonblank} non-blank lines ({100 * s.ratio:.1f} %)"
            + (f"; lines {start}–{end} have no comment" if start else ""),
            rule="inline_explanation_density.script", line_start=start, line_end=end,
        ))
    for path in unread_notebooks[:3]:
        evidence.append(Evidence(path, f"not read ({tree.skip_reason(path)}): its explanation is unknown",
                                 rule="inline_explanation_density.unknown"))
    evidence += [Evidence(path, "vendored: another project's code, not counted", rule="inline_explanation_density.vendored")
                 for path in sorted(vendored_paths)[:3]]
    fix = _fix(fix_ecosystem(tree), worst_notebooks, worst_scripts) if value < 100 else None
    parts = []
    if nb_part is not None:
        parts.append(f"notebooks {md_cells} md / {code_cells} code cells → {nb_part:.1f}")
    if sc_part is not None:
        parts.append(f"scripts {comment_lines} / {nonblank_lines} comment lines → {sc_part:.1f}")
    return Result(value, evidence=evidence, fix=fix, counts=counts, reason="; ".join(parts))


def _fix(ecosystem: str, worst_notebooks: list[_NotebookDensity], worst_scripts: list[_ScriptDensity]) -> str:
    """The fix in the deposit's own forms of explanation: markdown cells (text between
    chunks in R Markdown) and, for the listed scripts of each language, its comments and
    documentation, the deposit's own language first (``fix_ecosystem``: the workflow
    files of a workflow, the C/C++ and Fortran of a native code)."""
    asks = []
    if worst_notebooks:
        rmd = all(n.path.lower().endswith((".rmd", ".qmd")) for n in worst_notebooks)
        cells = "text between chunks" if rmd else "explanatory markdown cells"
        asks.append(f"{cells} (one per two code {'chunks' if rmd else 'cells'}) to "
                    f"{_join([n.path for n in worst_notebooks], 3)}")
    # a part below 100 has a file below its target, so the lists are never both empty
    groups: dict[str, list[_ScriptDensity]] = {}
    for script in worst_scripts:
        groups.setdefault(script.language, []).append(script)
    own = _ECOSYSTEM_LANGUAGES[ecosystem]
    ordered = sorted(groups, key=lambda k: (k not in own, -sum(s.nonblank for s in groups[k]), k))
    scripts = [f"{_EXPLANATION[language]} to {_join([s.path for s in groups[language]], 3)}" for language in ordered]
    if scripts:
        scripts[-1] += " (about one comment or documentation line in five lines of code)"
    return "Add " + ", and ".join(asks + scripts) + "."
