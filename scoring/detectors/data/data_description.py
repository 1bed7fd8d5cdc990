"""A1 data_description: the data is described in prose (a DATA file or a README section)."""

from __future__ import annotations

import re
from typing import Any

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
from scoring.detectors.data._common import (
    MAX_EVIDENCE,
    DataSignal,
    _cell_locator,
    _document,
    _word,
    data_docs,
    data_probe,
    document_title,
    is_data_heading,
    not_applicable_result,
    probed,
)
from scoring.model import Evidence
from scoring.parsers.markdown import Document
from scoring.registry import Result, detector
from scoring.tree import TreeIndex


def _a1_file_value(words: int) -> int:
    return 100 if words >= 100 else 70 if words >= 30 else 40


def _a1_section_value(words: int) -> int:
    return 80 if words >= 60 else 50 if words >= 20 else 20


# A data keyword is a word of prose, never part of a code identifier or module name
# (``hddm_dataset_generators``, ``datasets.py``; §0.3 Python libraries).
_DATA_KEYWORD_RE = re.compile(_word(r"datasets?|data\s+availability|data\s+sources?"), re.IGNORECASE)


@detector("data_description", version="2.12.0")
def data_description(tree: TreeIndex) -> Result:
    """The data the analysis uses is described in prose: a DATA file or a README data section.

    What it checks:
        Three sources; the highest value wins (METRICS.md A1 V2, §0.1.13, §0.1.20).
        (a) A dedicated data document, matched case-insensitively: ``DATA.md`` (also
        ``.markdown``/``.rst``), ``DATA_README*``, ``DATASET*.md``, ``DATA_AVAILABILITY*``,
        ``datasheet*.md`` at the root, ``data/README*`` and ``data/*.md``, a
        dataset's README one level below (``data/<set>/README*``, §0.3 headings; 2.5.0),
        and the README of a data folder anywhere else in the deposit's own files: a
        folder named ``data``/``dataset(s)``, or with ``data`` as a word of its name and a
        data file inside (``analysis/data/``, ``analysis/data/raw_data/``,
        ``Analysis/OrigData/``, ``FinalData/``; never ``metadata/``, ``database/``,
        ``data_structures/``), outside tests, documentation and examples (§0.3's dataset
        README by its spirit: the README that describes the data files beside it; 2.7.0).
        A folder named ``data``/``dataset(s)`` that is a code package -- an
        ``__init__.py``, or only source files besides its prose, and no data file below
        it (``datasets/`` holding ``mnist.py``, ``factory.py``) -- is code, and its README
        documents modules, not data (§0.3: a data word in a module name is no data word;
        2.11.0).
        Words of its rendered prose: >= 100 -> 100, 30-99 -> 70, 1-29 -> 40.
        (b) A README data section: a real heading (outside code fences; ATX, setext, RST
        or HTML; in a plain-text README, a short line in capitals after a blank line,
        ``DATA FORMAT``; 2.6.0) containing the word ``data`` or ``dataset(s)`` (so "Input data",
        "Data availability", "Data access"), or "Input files" (§0.3 workflow data; 2.5.0),
        but none of the compounds that are not about the deposit's data: ``database``,
        ``data structure(s)``, "big data", "data science", "data-intensive",
        "data-driven", "metadata" (§0.2.7; 2.5.0), "missing data", "missing values",
        "incomplete data" (a property of the user's input a method handles, such as how
        NaN samples are treated; 2.11.0). The README's first heading, when
        top-level, is the document title and never a section (§0.2.6); a sentence-like
        heading (more than 8 words, or ending in ``.`` or ``?``, such as an FAQ question)
        matches only a multi-word data phrase ("input data", "input files", "data
        availability", "data sources"…; §0.2.7). In a short heading the data word must be
        its head (§0.2.7; 2.12.0): the first word ("Data availability"), the last word of
        the opening noun phrase or of one coordinated with it ("Input data", "Raw data",
        "Code and data"), the object of a verb of obtaining ("Downloading the data", "Get
        the data", "Access the data", "Load the data", "Adding a data set") or of a data
        topic noun ("Availability of data and materials", "Additional data information",
        "A note on the data sets"), or the deposit's own data after this/these/our
        ("Citing this data set"); never the
        object of another verb ("High pass filter the data", "Centering the data"), a word
        after a preposition ("Fitting a polynomial to arbitrary data") or a modifier of a
        following noun ("Additional removal of 'bad data' periods", "Extended Data Figure
        9"). Without parts of speech, a verb is seen only through the determiner of its
        object: "Filter data" still counts. The section runs to the next heading of
        the same or higher level, sub-sections included. Words: >= 60 -> 80, 20-59 -> 50,
        fewer -> 20.
        (c) The README prose uses ``dataset(s)``, ``data availability`` or
        ``data source(s)`` as words -> 20.
        A data word is a word of prose: inside a code identifier or module name
        (``hddm_dataset_generators``, ``my_dataset``, ``datasets.py``: joined by ``_`` or
        by a ``.`` to an identifier character) it is none, in headings and prose alike
        (§0.3 Python libraries; 2.5.0).
        Words are counted in rendered text: headings, code blocks, inline code and URLs
        are excluded (a link's text counts, its address does not).
        {shared:deposit_kind}
    Why it matters:
        Without a description of the data (where it comes from, its size, format and
        licence) a reader cannot obtain or check the inputs the results depend on.
    Evidence:
        The data document (whole-file line range) with its word count; the README data
        heading with the section's line range and word count; the README line using a
        data keyword. ``counts`` holds the best word counts and how many sources matched.
    How to fix:
        Add ``DATA.md`` (or a ``## Data`` section in the README) of at least 100 words
        giving the data's source, size, format, licence and how to obtain it. The fix (2.5.1) names
        the deposit's own place for it (METRICS.md §0.3): R packages also document bundled
        datasets in ``R/data.R`` (roxygen ``@format``, ``@source``); Nextflow and Snakemake
        workflows describe their inputs (sample sheet, formats, reference files) in an
        "Input data" section of the README, ``docs/usage.md`` or ``config/README.md``.
    Known false positives:
        Any other heading with the word "data" counts ("Data handling in the GUI",
        "Potential additional data" in a future-work list); a ``data/*.md`` file that is
        not about the data (a licence, a changelog) counts as a data document, as does a
        README in a data folder that only says what goes there ("Raw files go here."); the
        keyword tier fires on a README that merely mentions a dataset.
        The count is prose words, so a data document made mostly of tables without
        sentences scores by its table text. REF counted the heading's own tokens too
        (§11.11's "62 words"), so a section of 58-59 prose words is 80 in REF and 50 here.
    """
    return not_applicable_result(tree) or probed(tree, "data_description")[0]


@data_probe("data_description")
def _probe(tree: TreeIndex) -> tuple[Result, list[DataSignal]]:
    result = _measure(tree)
    signals = [DataSignal("document", e.path or "", e.reason) for e in result.evidence
               if e.rule in ("data_description.data_document", "data_description.readme_section")]
    return result, signals


def _measure(tree: TreeIndex) -> Result:
    candidates: list[tuple[int, Evidence]] = []
    counts: dict[str, Any] = {
        "data_documents": 0, "data_document_words": 0,
        "readme_data_sections": 0, "section_words": 0, "keyword_matches": 0,
    }
    empty_docs: list[str] = []
    for path in data_docs(tree):
        doc = _document(tree, path)
        if doc is None:
            continue
        words = doc.prose_words
        if words == 0:
            # An empty placeholder describes nothing (REF gave it 40).
            empty_docs.append(path)
            continue
        counts["data_documents"] += 1
        counts["data_document_words"] = max(counts["data_document_words"], words)
        value = _a1_file_value(words)
        candidates.append((value, Evidence(
            path, f"data document with {words} words of prose", rule="data_description.data_document",
            line_start=1, line_end=max(doc.line_count, 1), snippet=(doc.raw_lines or [""])[0],
        )))

    readme = tree.readme
    doc = _document(tree, readme) if readme else None
    if readme and doc is not None:
        locate = _cell_locator(tree, readme)
        title = document_title(doc)
        for section in doc.sections:
            if section.heading is title or not is_data_heading(section.heading.text):
                continue
            words = section.words
            counts["readme_data_sections"] += 1
            counts["section_words"] = max(counts["section_words"], words)
            line, cell = locate(section.line_start)
            end_line, _ = locate(section.line_end)
            candidates.append((_a1_section_value(words), Evidence(
                readme, f"README data section '{section.heading.text}' with {words} words of prose",
                rule="data_description.readme_section", line_start=line, line_end=max(end_line, line),
                snippet=_raw_line(doc, section.line_start), cell=cell,
            )))
        keyword_hits = _keyword_lines(doc)
        counts["keyword_matches"] = len(keyword_hits)
        if keyword_hits:
            first_line, word = keyword_hits[0]
            line, cell = locate(first_line)
            candidates.append((20, Evidence(
                readme, f"README prose mentions '{word}'", rule="data_description.keyword",
                line_start=line, snippet=_raw_line(doc, first_line), cell=cell,
            )))

    if not candidates:
        evidence = [Evidence(p, "data document has no prose words", rule="data_description.empty_document")
                    for p in empty_docs[:MAX_EVIDENCE]]
        return Result(
            0, evidence=evidence, counts=counts,
            reason="no data document, no README data section and no data keyword in the README",
            fix=_DESCRIBE_FIX[fix_ecosystem(tree)],
        )
    candidates.sort(key=lambda c: -c[0])
    value, best = candidates[0]
    evidence = [e for _, e in candidates][:MAX_EVIDENCE]
    return Result(value, evidence=evidence, counts=counts, reason=best.reason, fix=_a1_fix(tree, value, best))


# What to add when no data document or section exists, in the deposit's own terms
# (METRICS.md §0.3): an R package documents its datasets in R/data.R, a workflow
# describes its inputs (sample sheet, references) where its users look for them.
_DESCRIBE_FIX = {
    PYTHON: "Add DATA.md (or a '## Data' section in the README) giving the data's source, size, format, "
            "licence and how to obtain it.",
    R: "Add DATA.md (or a '## Data' section in README.Rmd) giving the data's source, size, format, licence and "
       "how to obtain it; document bundled datasets in R/data.R with roxygen @format and @source.",
    JULIA: "Add DATA.md (or a '## Data' section in the README) giving the data's source, size, format, licence "
           "and how to obtain it (the DataDeps.jl registration, if any).",
    MATLAB: "Add DATA.md (or a '## Data' section in the README) giving the data's source, size, format (the "
            ".mat variables and their units), licence and how to obtain it.",
    NATIVE: "Add DATA.md (or a '## Data' section in the README) describing the input data the programs read: "
            "source, size, file format, licence and how to obtain it.",
    NEXTFLOW: "Describe the pipeline's input data in a '## Input data' section of the README or docs/usage.md: "
              "the samplesheet columns, file formats, reference files and where to obtain them.",
    SNAKEMAKE: "Describe the workflow's input data in a '## Input data' section of the README or config/README.md: "
               "the sample sheet, file formats, reference files and where to obtain them.",
}


def _a1_fix(tree: TreeIndex, value: int, best: Evidence) -> str | None:
    if value == 100:
        return None
    if best.rule == "data_description.data_document":
        return f"Expand {best.path} to at least 100 words covering the data's source, size, format and licence."
    if best.rule == "data_description.readme_section":
        return ("Add DATA.md of at least 100 words (or grow the README data section to 60 words) "
                "covering the data's source, size, format and licence.")
    return _DESCRIBE_FIX[fix_ecosystem(tree)]


def _raw_line(doc: Document, line: int) -> str:
    return doc.raw_lines[line - 1] if 0 < line <= len(doc.raw_lines) else ""


def _keyword_lines(doc: Document) -> list[tuple[int, str]]:
    """(line, keyword) of data keywords in rendered prose (paragraphs and headings)."""
    hits: list[tuple[int, str]] = []
    for para in doc.paragraphs:
        match = _DATA_KEYWORD_RE.search(para.text)
        if match:
            hits.append((_line_of(doc, para.line_start, para.line_end, match.group(0)), match.group(0)))
    for heading in doc.headings:
        match = _DATA_KEYWORD_RE.search(heading.text)
        if match:
            hits.append((heading.line, match.group(0)))
    hits.sort()
    return hits


def _line_of(doc: Document, start: int, end: int, word: str) -> int:
    """The raw line of a paragraph holding ``word`` (a keyword split over two lines is
    reported at the paragraph's first line)."""
    needle = re.compile(re.escape(word).replace(r"\ ", r"\s+"), re.IGNORECASE)
    for line in range(start, min(end, len(doc.raw_lines)) + 1):
        if needle.search(doc.raw_lines[line - 1]):
            return line
    return start
