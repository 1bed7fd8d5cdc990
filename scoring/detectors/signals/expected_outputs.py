"""S4 expected_outputs: reference outputs are committed for a rerun to compare with."""

from __future__ import annotations

import re

from scoring.detectors.signals._common import (
    MAX_EVIDENCE,
    _is_hidden,
    _join_names,
    _line_text,
    _name,
)
from scoring.model import Evidence
from scoring.registry import Result, detector
from scoring.tree import TreeIndex

_OUTPUT_DIR_NAMES = frozenset({
    "results", "outputs", "output", "expected", "reference", "expected_outputs", "reference_outputs",
    "ground_truth", "figures", "figs", "fig", "plots", "expected_results", "reference_results",
    "golden", "snapshots",
})
_EXPECTED_OUTPUT_RE = re.compile(
    r"(?<![A-Za-z0-9])(?:expected|sample|example|reference)\s+(?:outputs?|results?)(?![A-Za-z0-9])",
    re.IGNORECASE,
)
_FIGURE_SUFFIXES = frozenset({".png", ".pdf", ".svg", ".jpg", ".jpeg", ".eps", ".tif", ".tiff"})
_ASSET_DIRS = frozenset({"docs", "doc", "assets", "img", "imgs", "images", ".github"})
_ASSET_NAME_RE = re.compile(r"(?:logo|banner|icon|badge)", re.IGNORECASE)


def _output_dirs(tree: TreeIndex) -> list[tuple[str, list[str]]]:
    """Output directories at depth ≤ 2 with the non-hidden files they hold (recursively)."""
    found = []
    level_one = [d for d in tree.subdirs("") if not _name(d).startswith(".")]
    level_two = [s for d in level_one for s in tree.subdirs(d) if not _name(s).startswith(".")]
    for directory in level_one + level_two:
        if _name(directory).lower() not in _OUTPUT_DIR_NAMES:
            continue
        prefix = len(directory) + 1
        files = [p for p in tree.files_under(directory) if not _is_hidden(p[prefix:])]
        if files:
            found.append((directory, files))
    return found


def _readme_output_mentions(tree: TreeIndex) -> list[Evidence]:
    doc = tree.readme_document()
    if doc is None:
        return []
    found = []
    for heading in doc.headings:
        if _EXPECTED_OUTPUT_RE.search(heading.text):
            found.append(Evidence(doc.path, f"README heading '{heading.text}'", rule="expected_outputs.readme_heading",
                                  line_start=heading.line, snippet=_line_text(doc.raw_lines, heading.line)))
    for paragraph in doc.paragraphs:
        if not _EXPECTED_OUTPUT_RE.search(paragraph.text):
            continue
        line = next(
            (n for n in range(paragraph.line_start, paragraph.line_end + 1)
             if _EXPECTED_OUTPUT_RE.search(_line_text(doc.raw_lines, n) or "")),
            paragraph.line_start,
        )
        found.append(Evidence(doc.path, "README sentence about expected output", rule="expected_outputs.readme_sentence",
                              line_start=line, snippet=_line_text(doc.raw_lines, line)))
    return sorted(found, key=lambda e: e.line_start or 0)


def _is_result_figure(path: str) -> bool:
    name = _name(path)
    dot = name.rfind(".")
    if dot <= 0 or name[dot:].lower() not in _FIGURE_SUFFIXES:
        return False
    if _is_hidden(path) or _ASSET_NAME_RE.match(name):
        return False
    return not any(part.lower() in _ASSET_DIRS for part in path.split("/")[:-1])


@detector("expected_outputs", version="2.0.0")
def expected_outputs(tree: TreeIndex) -> Result:
    """Reference outputs are committed, so a rerun has something to compare with (0/40/60/100).

    What it checks:
        100: a directory named results, outputs, output, expected, reference,
        expected_outputs, reference_outputs, ground_truth, figures, figs, fig, plots,
        expected_results, reference_results, golden or snapshots (any case) at depth ≤ 2
        holding at least one non-hidden file at any depth. 60: a README heading or
        sentence about expected / sample / example / reference output(s) or result(s).
        40: a committed figure (.png .pdf .svg .jpg .jpeg .eps .tif .tiff) outside
        documentation and asset locations (docs/, doc/, assets/, img/, images/,
        .github/, hidden folders; files named logo*, banner*, icon*, badge*), or a
        Jupyter notebook with stored outputs in at least one code cell. 0: none. The
        highest tier found wins.
    Why it matters:
        Reproducing a result means comparing a rerun with the published numbers and
        figures; without committed outputs there is nothing to compare against.
    Evidence:
        The output directory and its file count, the README line, or the figures and the
        first notebook cell with stored output. Counts: output directories, README
        mentions, figures, notebooks with outputs.
    How to fix:
        Commit the reference outputs of a run (results/ with tables and figures), and
        describe the expected output in the README.
    Known false positives:
        A results/ or figures/ folder holding placeholders or documentation images
        (docs/figures/ included) counts; so does a README that only mentions "example
        output" in passing, a paper PDF at the root, or a notebook whose outputs are
        error tracebacks.
    """
    dirs = _output_dirs(tree)
    mentions = _readme_output_mentions(tree)
    figures = [p for p in tree.files if _is_result_figure(p)]
    notebook_outputs: list[tuple[str, int]] = []   # (notebook, first cell with stored output)
    for path in tree.by_type("notebook"):
        facts = tree.facts(path)
        cell = next((c for c in facts.cells if c.kind == "code" and c.has_outputs), None) if facts is not None else None
        if cell is not None:
            notebook_outputs.append((path, cell.index))
    counts = {
        "output_dirs": len(dirs),
        "readme_mentions": len(mentions),
        "figures": len(figures),
        "notebooks_with_outputs": len(notebook_outputs),
    }
    if dirs:
        evidence = [Evidence(d, f"output directory holding {len(files)} file{'s' if len(files) != 1 else ''}",
                             rule="expected_outputs.output_dir", snippet=", ".join(_name(f) for f in files[:5]))
                    for d, files in dirs]
        return Result(100, evidence=evidence[:MAX_EVIDENCE], counts=counts,
                      reason=f"reference outputs committed in {_join_names([d for d, _ in dirs])}")
    if mentions:
        return Result(60, evidence=mentions[:MAX_EVIDENCE], counts=counts,
                      fix="Commit the reference outputs of a run in results/ (tables, figures) next to the README description.",
                      reason="the README describes the expected output, but no output directory is committed")
    if figures or notebook_outputs:
        evidence = [Evidence(p, "committed figure", rule="expected_outputs.figure") for p in figures[:10]]
        evidence += [Evidence(path, f"notebook with stored outputs (first in cell {index})",
                              rule="expected_outputs.notebook_outputs", line_start=1, cell=index,
                              snippet=tree.snippet(path, 1, index) or "")
                     for path, index in notebook_outputs[: MAX_EVIDENCE - len(evidence)]]
        return Result(40, evidence=evidence, counts=counts,
                      fix="Collect the reference outputs in a results/ directory and describe them under an 'Expected output' README heading.",
                      reason="only figures or notebook outputs are committed")
    return Result(0, counts=counts,
                  fix="Commit the outputs of a reference run in results/ and describe the expected output in the README.",
                  reason="no committed outputs, output directory or README description of expected output")
