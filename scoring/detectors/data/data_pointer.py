"""A2 data_pointer: the repository points to where its data lives."""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from collections.abc import Iterator
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
    _CODE_CONTEXT,
    _URL_RE,
    GDAL_REMOTE_RE,
    MAX_EVIDENCE,
    TEMPLATE_FIELD_RE,
    URL_FETCH_CALL_RE,
    DataSignal,
    OwnIdentifiers,
    Pointer,
    _cell_locator,
    _clean_doi,
    _Context,
    _document,
    _guarded,
    _is_r_package,
    _is_workflow_file,
    _name,
    _norm_url,
    _notebook_code_lines,
    _python_facts,
    _split_url,
    _ww,
    classify_doi,
    classify_url,
    data_docs,
    data_extension,
    data_probe,
    document_title,
    is_data_heading,
    is_data_use_path,
    is_documentation_example,
    is_software_download,
    is_software_release,
    named_only_by_examples,
    nextflow_remote_params,
    not_applicable_result,
    own_identifiers,
    probed,
    snakemake_remote_urls,
)
from scoring.model import Evidence
from scoring.parsers.markdown import Document
from scoring.registry import Result, detector
from scoring.tree import TreeIndex

A2_LEVELS = {100: "archival", 80: "institutional", 75: "kaggle", 60: "code_host",
             40: "direct_url", 25: "local_file", 0: "absent"}

# No look-behind at the start: a leading literal lets the regex engine skip ahead fast;
# the boundary before "10." is checked in _dois().
_DOI_RE = re.compile(r"10\.\d{4,9}/[^\s\"'<>{}\[\]|\\^`]+")
_DOI_BOUNDARY = frozenset("./-_")
_TRAILING = ".,;:!?*_~'"

_ACCESSION_RE = re.compile(
    r"(?<![A-Za-z0-9])(?:GSE\d{3,}|[SED]R[RPX]\d{5,}|PRJ[NED][AB]\d{3,}|E-[A-Z]{4}-\d+|PXD\d{6}|EGA[SD]\d{11}"
    # the domain archives of §0.2.16: BioImage Archive / BioStudies, EMPIAR, MetaboLights
    r"|S-BIAD\d+|S-BSST\d+|EMPIAR-\d{5}|MTBLS\d+)"
    r"(?![A-Za-z0-9])"
)

# Every accession starts with one of D E G M P S followed by an upper-case letter or '-':
# a single character-class scan rejects most text several times faster than _ACCESSION_RE.
_ACCESSION_HINT_RE = re.compile(r"[DEGMPS][A-Z-][A-Z0-9]")


def _may_hold_pointer(text: str) -> bool:
    """A cheap test before the URL, DOI and accession patterns run."""
    if "://" in text:
        return True
    if "10." in text and _DOI_RE.search(text) is not None:
        return True
    return _ACCESSION_HINT_RE.search(text) is not None and _ACCESSION_RE.search(text) is not None


_CITATION_HEADING_RE = re.compile(
    _ww(r"cit(?:e|es|ing|ation|ations)|references?|bibliography|bibtex|publications?"), re.IGNORECASE
)
_BIBTEX_START_RE = re.compile(r"^\s*@[A-Za-z]+\s*\{")
_RST_IMAGE_RE = re.compile(r"^\s*\.\.\s+(?:\|[^|]+\|\s+)?(?:image|figure)::", re.IGNORECASE)
_HTML_BADGE_ANCHOR_RE = re.compile(r"""<a\s[^>]*href\s*=\s*["']([^"']+)["'][^>]*>\s*<img""", re.IGNORECASE)
# An HTML anchor whose whole content is one image, on whatever lines it spans (§0.1.21:
# ``<a href="…doi…">`` / ``<img src="…badge…svg">`` / ``</a>`` is a badge construct).
_HTML_BADGE_BLOCK_RE = re.compile(
    r"""<a\s[^>]*href\s*=\s*["']([^"']+)["'][^>]*>\s*<img\b[^>]*>\s*</a\s*>""", re.IGNORECASE)
# A paragraph opening with a bold or italic run-in label ("**Availability of data and
# materials:** …", "*Data availability.* …", "**Data**: …"): the label is read as a heading.
_RUN_IN_LABEL_RE = re.compile(r"^\s{0,3}(\*\*|__|\*|_)(?![\s*_])([^*_\n]{1,100}?)\s*(?:[:.]\s*\1|\1\s*[:.])")


# A variable naming a data source (§0.2.14): url, uri, link, source, data, dataset, remote,
# a download, or the ``doi`` of what a call looks up (``dataset_search(doi = "10.15468/…")``);
# never a citation's (``citation_doi``, ``paper_doi``).
_DATA_SOURCE_BINDING_RE = re.compile(r"url|uri|link|source|data|remote|download|doi", re.IGNORECASE)
_CITATION_BINDING_RE = re.compile(r"cit(?:e|ation)|paper|article|publication|preprint|bib", re.IGNORECASE)
# The last name of a call that fetches or reads what its argument names: a DOI passed to
# it is a data source (§0.2.14).
_FETCH_CALL_RE = re.compile(
    r"(?:^|[.:])(?:\w*download\w*|fetch\w*|retrieve\w*|read\w*|load\w*|open\w*|get|GET|POST|request|url|urlopen"
    r"|websave|webread|urlread|urlwrite|fread|fromPath|fromSRA|file|pull|getGEO|bfcrpath|import\w*)$")
_DOI_RULES = frozenset({"data_pointer.archival_doi", "data_pointer.institutional_doi", "data_pointer.doi_in_data_context"})


def _is_doi_pointer(pointer: Pointer) -> bool:
    return pointer.rule in _DOI_RULES or (pointer.rule == "data_pointer.kaggle" and pointer.target.startswith("10."))
_TEST_DIRS = frozenset({"test", "tests", "testthat", "testing", ".test", ".tests"})


def is_data_use_path_name(path: str) -> bool:
    """False for code under a test folder."""
    return not ({d.lower() for d in path.split("/")[:-1]} & _TEST_DIRS)


def _clean_url(url: str) -> str:
    """Drop sentence punctuation and Markdown emphasis glued to the end of a URL."""
    return url.rstrip(_TRAILING)


class _PointerScan:
    """Collects pointers (with their locations) and counts what was ignored."""

    def __init__(self, own: OwnIdentifiers):
        self.own = own
        self.found: list[tuple[Pointer, str, int | None, int | None]] = []
        # (path, line, cell) of a pointer built from pieces -> the line of the literal it starts with
        self.starts: dict[tuple[str, int | None, int | None], int] = {}
        self.ignored: Counter[str] = Counter()
        self._seen: set[tuple[str, int | None, int | None, str]] = set()

    def add(self, pointer: Pointer | str, path: str, line: int | None, cell: int | None) -> None:
        if isinstance(pointer, str):
            self.ignored[pointer] += 1
            return
        key = (path, line, cell, pointer.target)
        if key not in self._seen:
            self._seen.add(key)
            self.found.append((pointer, path, line, cell))

    def scan_code_text(self, text: str, binding: str, path: str, line: int | None, cell: int | None,
                       fetched: bool = False) -> None:
        """A code string literal: a DOI counts only when the code fetches it (a URL passed to
        a download or read call, ``fetched``) or it sits in a data-source variable (§0.2.14:
        a DOI in a message, a citation string or a dict key is no pointer, whatever its
        registrant); a URL, DOI or accession number in test code is test data (§0.2.3,
        §0.3); a GDAL virtual file system path (``/vsicurl/https://…``, ``/vsis3/…``) is
        a remote read of the data file it names."""
        before = len(self.found)
        for match in GDAL_REMOTE_RE.finditer(text):
            self.add(Pointer(40, "data_pointer.direct_url", match.group(0),
                             "remote data file read through a GDAL virtual file system"), path, line, cell)
        self.scan_text(text, _CODE_CONTEXT, path, line, cell)
        if len(self.found) == before:
            return
        source_variable = _DATA_SOURCE_BINDING_RE.search(binding or "") is not None \
            and _CITATION_BINDING_RE.search(binding or "") is None
        test = not is_data_use_path_name(path)
        kept = self.found[:before]
        for item in self.found[before:]:
            if _is_doi_pointer(item[0]) and not (source_variable or fetched):
                self.ignored["doi_outside_data_context"] += 1
            elif test:
                self.ignored["test_pointer"] += 1
            else:
                kept.append(item)
                continue
            # a pointer dropped here may still count where the code fetches it
            self._seen.discard((item[1], item[2], item[3], item[0].target))
        self.found = kept

    def scan_text(self, text: str, ctx: _Context, path: str, line: int | None, cell: int | None) -> None:
        """URLs, DOIs and (in a data context) accession numbers of one line of text."""
        if not _may_hold_pointer(text):
            return
        rest = text
        for match in _URL_RE.finditer(text):
            url = _clean_url(match.group(0))
            self.add(classify_url(url, ctx, self.own), path, line, cell)
        if "://" in text:
            rest = _URL_RE.sub(" ", text)
            for match in _DANDI_URI_RE.finditer(rest):
                self.add(Pointer(100, "data_pointer.archival_host", match.group(0),
                                 "DANDI Archive URI (a domain data repository, §0.2.16)"), path, line, cell)
        for doi in _dois(rest):
            self.add(classify_doi(doi, ctx, self.own), path, line, cell)
        if ctx.data:
            for match in _ACCESSION_RE.finditer(rest):
                self.add(Pointer(80, "data_pointer.accession", match.group(0),
                                 f"accession number {match.group(0)} in a data context"), path, line, cell)


# dandi:// URIs and the DANDI Archive's S3 bucket (s3://dandiarchive/...).
_DANDI_URI_RE = re.compile(r"\b(?:dandi://[^\s\"'<>]+|s3://dandiarchive(?:/[^\s\"'<>]*)?)", re.IGNORECASE)


def _dois(text: str) -> Iterator[str]:
    """Bare DOIs (``10.NNNN/…``) not glued to a preceding word, number or path."""
    for match in _DOI_RE.finditer(text):
        start = match.start()
        before = text[start - 1] if start else " "
        if not (before.isalnum() or before in _DOI_BOUNDARY):
            yield _clean_doi(match.group(0))


def _ranges_contain(ranges: list[tuple[int, int]], line: int) -> bool:
    return any(start <= line <= end for start, end in ranges)


def _bibtex_lines(lines: list[str]) -> set[int]:
    """1-based lines inside BibTeX entries (fenced or not)."""
    inside: set[int] = set()
    depth = 0
    budget = 0
    for number, line in enumerate(lines, start=1):
        if depth <= 0 and _BIBTEX_START_RE.match(line):
            depth, budget = 0, 80
        elif depth <= 0:
            continue
        inside.add(number)
        depth += line.count("{") - line.count("}")
        budget -= 1
        if budget <= 0:  # an unbalanced entry must not swallow the rest of the document
            depth = 0
    return inside


_LINK_DEFINITION_RE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?\S+")


def _multiline_html_badges(doc: Document) -> dict[int, list[str]]:
    """Per line of its ``href``, the targets of HTML anchors around one ``<img>`` that span
    several lines (the one-line form is matched line by line)."""
    if not any("<img" in raw.lower() for raw in doc.raw_lines):
        return {}
    text = "\n".join(doc.raw_lines)
    found: dict[int, list[str]] = {}
    for match in _HTML_BADGE_BLOCK_RE.finditer(text):
        if "\n" in match.group(0):
            found.setdefault(text.count("\n", 0, match.start(1)) + 1, []).append(match.group(1))
    return found


def _run_in_data_ranges(doc: Document) -> list[tuple[int, int]]:
    """The line ranges of paragraphs opening with a run-in label that is a data heading
    ("**Availability of data and materials:** Raw reads are in SRA [SRP062005]")."""
    ranges = []
    for para in doc.paragraphs:
        raw = doc.raw_lines[para.line_start - 1] if 0 < para.line_start <= len(doc.raw_lines) else ""
        match = _RUN_IN_LABEL_RE.match(raw)
        if match and is_data_heading(match.group(2)):
            ranges.append((para.line_start, para.line_end))
    return ranges


def _document_badges(doc: Document) -> tuple[dict[int, frozenset[str]], set[int]]:
    """Badge URLs per line (image links, links wrapping an image, HTML anchors around an
    ``<img>`` on one line or several, and reference definitions used by a badge) and RST
    image-directive lines.

    Badges are matched on their own line: the same URL written elsewhere in prose is
    not a badge construct and is classified like any other link.
    """
    by_line: dict[int, set[str]] = {}
    anywhere: set[str] = set()
    for link in doc.links:
        if link.in_badge or link.is_image:
            forms = {link.url, _norm_url(link.url)}
            by_line.setdefault(link.line, set()).update(forms)
            anywhere.update(forms)
    lines: set[int] = set()
    in_directive = False
    for number, raw in enumerate(doc.raw_lines, start=1):
        if _RST_IMAGE_RE.match(raw):
            in_directive = True
            lines.add(number)
            continue
        if in_directive and raw.strip().startswith(":"):
            lines.add(number)
            continue
        in_directive = False
        if _LINK_DEFINITION_RE.match(raw):
            # ``[doi]: https://…`` used by ``[![…][img]][doi]``: the link sits on another line.
            by_line.setdefault(number, set()).update(anywhere)
        if "<img" in raw.lower():
            for match in _HTML_BADGE_ANCHOR_RE.finditer(raw):
                by_line.setdefault(number, set()).update({match.group(1), _norm_url(match.group(1))})
    for number, urls in _multiline_html_badges(doc).items():
        by_line.setdefault(number, set()).update(u for url in urls for u in (url, _norm_url(url)))
    return {n: frozenset(u) for n, u in by_line.items()}, lines


def _scan_document(tree: TreeIndex, path: str, doc: Document, scan: _PointerScan, *, data_doc: bool) -> None:
    # Only lines that may hold a pointer matter (a badge line counts its URLs, which hold
    # "://"); the line contexts are built only for documents that have such lines.
    candidates = [(number, raw) for number, raw in enumerate(doc.raw_lines, start=1) if _may_hold_pointer(raw)]
    if not candidates:
        return
    badges_by_line, badge_lines = _document_badges(doc)
    badge_targets = _badge_targets(doc)
    # the document title names the project, never a data section (§0.2.6); a run-in
    # label opening a paragraph is matched like a heading
    title = document_title(doc)
    data_ranges = [(s.line_start, s.line_end) for s in doc.sections
                   if s.heading is not title and is_data_heading(s.heading.text)]
    data_ranges += _run_in_data_ranges(doc)
    cite_ranges = [(s.line_start, s.line_end) for s in doc.sections if _CITATION_HEADING_RE.search(s.heading.text)]
    cite_ranges += [(b.line_start, b.line_end) for b in doc.code_blocks if b.info.lower() in ("bibtex", "bib", "biblatex")]
    future_ranges = [(s.line_start, s.line_end) for s in doc.sections if _FUTURE_HEADING_RE.search(s.heading.text)]
    bibtex = _bibtex_lines(doc.raw_lines)
    locate = _cell_locator(tree, path)
    for number, raw in candidates:
        if number in badge_lines:
            if "://" in raw:
                scan.ignored["badge"] += len(_URL_RE.findall(raw))
            continue
        if _ranges_contain(future_ranges, number):
            # a section about future or planned work names data the deposit does not have
            scan.ignored["future_work"] += len(_URL_RE.findall(raw)) or 1
            continue
        prose = _without_badges(raw)   # a badge's alt text says nothing about the line's links
        names_data = _DATA_WORD_RE.search(prose) is not None
        if not names_data and _CODE_SENTENCE_RE.search(_URL_RE.sub(" ", prose)):
            # "the replication code is at <doi>", "a companion analysis compendium at <doi>":
            # the line says the link holds code or a publication, and names no data
            scan.ignored["code_or_publication"] += len(_URL_RE.findall(raw)) or 1
            continue
        data = data_doc or _ranges_contain(data_ranges, number)
        citation = number in bibtex or _ranges_contain(cite_ranges, number)
        line, cell = locate(number)
        download = data or _DOWNLOAD_LINE_RE.search(raw) is not None
        badges = badges_by_line.get(number, frozenset())
        if badge_targets.get(number) and names_data:
            # a DOI badge in a sentence about data is a pointer (§0.2.13): its link target
            # is read in a data context, its image never
            for target in badge_targets[number]:
                scan.scan_text(target, _BADGE_TARGET_CONTEXT, path, line, cell)
        cited, datasets = _link_roles(raw)
        ctx = _Context(data, citation, badges, download,
                       cited=frozenset() if names_data else cited, datasets=datasets)
        scan.scan_text(raw, ctx, path, line, cell)


# A line naming data or a download: a data context for archive URLs (§0.2.15).
_DOWNLOAD_LINE_RE = re.compile(r"\b(?:wget|curl|download\w*|data(?:sets?)?)\b", re.IGNORECASE)
_DATA_WORD_RE = re.compile(r"(?<![A-Za-z0-9_])(?:data(?:\s*sets?)?)(?![A-Za-z0-9_])", re.IGNORECASE)
# A prose line saying what a link holds when that is code or a publication, not data
_CODE_SENTENCE_RE = re.compile(
    _ww(r"(?:source\s+|replication\s+|analysis\s+)?code|software|scripts?|compendium|implementation"
        r"|preprints?|slides|posters?"), re.IGNORECASE)
# Sections about future or planned work: their links name data the deposit does not have.
_FUTURE_HEADING_RE = re.compile(_ww(r"future(?:\s+work)?|roadmap|to-?dos?|planned|wish-?list"), re.IGNORECASE)
_MD_BADGE_RE = re.compile(r"\[!\[[^\]]*\](?:\([^)]*\)|\[[^\]]*\])\](?:\([^)]*\)|\[[^\]]*\])|!\[[^\]]*\]\([^)]*\)")
_HTML_BADGE_RE = re.compile(r"<a\s[^>]*>\s*<img[^>]*>\s*</a>|<img[^>]*>", re.IGNORECASE)
_MD_LINK_RE = re.compile(r"\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?((?:https?|ftp)://[^\s)>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HTML_LINK_RE = re.compile(r"""<a\s[^>]*href\s*=\s*["']((?:https?|ftp)://[^"']+)["'][^>]*>(.*?)</a>""", re.IGNORECASE)
# Link text that is a citation marker: author-year ("Westerholt 2026", "Wolf, Knaap, &
# Rey (2019)", "Smith et al. 2020") or a numbered reference ("3", "[12]").
_CITATION_MARKER_RE = re.compile(
    r"^\s*(?:\[?\d{1,3}(?:\s*[,\u2013-]\s*\d{1,3})*\]?"
    r"|[A-Z][\w'\u2019.-]*(?:[\s,]+(?:[A-Z][\w'\u2019.-]*|et\s+al\.?|and|&))*,?\s*\(?(?:1[6-9]|20)\d{2}[a-z]?\)?)\s*$"
)
_ET_AL_RE = re.compile(r"\bet\s+al\b")
_DATASET_WORD_RE = re.compile(r"(?<![A-Za-z0-9_])data\s*sets?(?![A-Za-z0-9_])", re.IGNORECASE)
_DATASET_AFTER_RE = re.compile(r"^[\s*_]*data\s*sets?\b", re.IGNORECASE)


def _link_roles(raw: str) -> tuple[frozenset[str], frozenset[str]]:
    """The links of a document line that are inline citations (their text is a citation
    marker) and those the line calls a dataset (its text, or the word after it)."""
    if "](" not in raw and "<a" not in raw.lower():
        return frozenset(), frozenset()
    cited: set[str] = set()
    datasets: set[str] = set()
    links = [(m.group(1), _clean_url(m.group(2)), m.end()) for m in _MD_LINK_RE.finditer(raw)]
    links += [(m.group(2), _clean_url(m.group(1)), m.end()) for m in _HTML_LINK_RE.finditer(raw)]
    for text, url, end in links:
        if _CITATION_MARKER_RE.match(text) or _ET_AL_RE.search(text):
            cited.add(url)
        if _DATASET_WORD_RE.search(text) or _DATASET_AFTER_RE.match(raw[end:end + 30]):
            datasets.add(url)
    return frozenset(cited), frozenset(datasets)


def _without_badges(raw: str) -> str:
    """A line's text without its badge constructs (the image's alt text is no prose)."""
    return _HTML_BADGE_RE.sub(" ", _MD_BADGE_RE.sub(" ", raw))


_BADGE_TARGET_CONTEXT = _Context(data=True, citation=False, download=True)


def _badge_targets(doc: Document) -> dict[int, list[str]]:
    """Per line, the link targets of badges (a link wrapping an image)."""
    found: dict[int, list[str]] = {}
    for link in doc.links:
        if link.in_badge and not link.is_image:
            found.setdefault(link.line, []).append(link.url)
    for number, raw in enumerate(doc.raw_lines, start=1):
        if "<img" in raw.lower():
            for match in _HTML_BADGE_ANCHOR_RE.finditer(raw):
                found.setdefault(number, []).append(match.group(1))
    for number, urls in _multiline_html_badges(doc).items():
        found.setdefault(number, []).extend(urls)
    return {n: list(dict.fromkeys(urls)) for n, urls in found.items()}


def _shown(tree: TreeIndex, pointers: list) -> list:
    """At most MAX_EVIDENCE pointers, the strongest first; within a strength, those outside
    test files first and each file's first pointer before a second of any file."""
    ranked = sorted(pointers, key=lambda item: (-item[0].value, tree.role(item[1]) == "test"))
    seen: set[str] = set()
    first, rest = [], []
    for item in ranked:
        (rest if item[1] in seen else first).append(item)
        seen.add(item[1])
    strength = {id(item): (-item[0].value, tree.role(item[1]) == "test") for item in ranked}
    picked = sorted(first + rest, key=lambda item: strength[id(item)])[:MAX_EVIDENCE]
    order = {id(item): index for index, item in enumerate(ranked)}
    return sorted(picked, key=lambda item: order[id(item)])


def _built_from(facts, url: str, line: int, cell: int | None) -> int | None:
    """The line of the string literal a fetched URL starts with, when it is above the
    call (``qurl = 'https://hitran.org/data/Q/' + …`` four lines before ``urlopen(qurl)``)."""
    head = url.split("{", 1)[0]
    lines = [s.line_start for s in facts.strings
             if s.cell == cell and s.line_start < line and s.value and head.startswith(s.value)
             and "://" in s.value]
    return max(lines) if lines else None


def _scan_code(tree: TreeIndex, scan: _PointerScan) -> None:
    """String literals of Python files and notebook cells (their facts), and the code
    lines of other scripts, Make-like files, workflow files and notebook shell/R/Julia
    cells."""
    for path, facts in _python_facts(tree):
        # only the literals that may hold a pointer are scanned, in line order (a literal
        # is read up to its 2000th character). Most files hold none: one test of their
        # literals joined by newlines says so (a literal the test passes makes the joined
        # text pass it: a newline, like a text's end, is no word character).
        values = [s.value[:2000] for s in facts.strings if not s.docstring]
        if not values or not _may_hold_pointer("\n".join(values)):
            continue
        candidates = sorted((s for s in facts.strings if not s.docstring and _may_hold_pointer(s.value[:2000])),
                            key=lambda s: (s.line_start, s.value))
        for literal in candidates:
            scan.scan_code_text(literal.value[:2000], literal.binding, path, literal.line_start, literal.cell)
        # a URL built from pieces (``'https://hitran.org/data/Q/' + 'q' + str(G) + '.txt'``)
        # and passed to a download or read call: the frontend's resolved template, where a
        # field stands for each computed part
        for call in facts.calls:
            if call.urls and URL_FETCH_CALL_RE.match(call.name):
                for _arg, url in call.urls:
                    start = _built_from(facts, url, call.line, call.cell)
                    if start is not None:
                        scan.starts[(path, call.line, call.cell)] = start
                    url = url.replace("{}", "0")
                    before = (len(scan.found), scan.ignored["test_pointer"])
                    scan.scan_code_text(url, "", path, call.line, call.cell, fetched=True)
                    if (len(scan.found), scan.ignored["test_pointer"]) == before:
                        _add_fetched_file(scan, url, path, call.line, call.cell)
    for path in _script_files(tree):
        facts = tree.facts(path)
        if facts is not None and facts.frontend in _CODE_FRONTENDS:
            # R, Julia, Snakemake and Nextflow code: its string literals (a pointer in
            # code is a string; comments are no pointers)
            fetched: set[str] | None = None
            downloaded: set[str] = set()
            for literal in facts.strings:
                if literal.docstring or not _may_hold_pointer(literal.value):
                    continue
                if fetched is None:
                    fetched, downloaded = set(), set()
                    for call in facts.calls:
                        if _FETCH_CALL_RE.search(call.name):
                            values = {v for v in (*call.args, *(v for _k, v in call.kwargs)) if isinstance(v, str)}
                            fetched |= values
                            if _FILE_FETCH_RE.search(call.name):
                                downloaded |= values
                # a literal over several lines: each pointer at its own line
                for offset, text in enumerate(literal.value[:2000].split("\n")):
                    before = (len(scan.found), scan.ignored["test_pointer"])
                    scan.scan_code_text(text, literal.binding, path, literal.line_start + offset, None,
                                        fetched=literal.value in fetched)
                    if (len(scan.found), scan.ignored["test_pointer"]) == before and literal.value in downloaded:
                        _add_fetched_file(scan, text.strip(), path, literal.line_start + offset, None)
            continue
        for number, line in _guarded(tree, path, "reading script lines", lambda p=path: tree.script_lines(p), ()):
            scan.scan_text(line, _CODE_CONTEXT, path, number, None)
    for cell_line in _notebook_code_lines(tree):
        scan.scan_text(cell_line.text, _CODE_CONTEXT, cell_line.path, cell_line.line, cell_line.cell)
    # remote workflow inputs (§0.3 workflow data): Nextflow parameters set to a remote file
    # a reader stages, Snakemake remote providers' scheme-less addresses
    for param in nextflow_remote_params(tree):
        scan.scan_code_text(param.url, param.name, param.path, param.line, None, fetched=True)
    for path in tree.by_frontend("snakemake"):
        facts = tree.facts(path)
        for line, url in snakemake_remote_urls(facts) if facts is not None and facts.frontend == "snakemake" else ():
            scan.scan_code_text(url, "", path, line, None, fetched=True)


def _add_fetched_file(scan: _PointerScan, url: str, path: str, line: int | None, cell: int | None) -> None:
    """A file the code downloads or reads from a URL is a data file, whatever its suffix
    (not a web page, a software file or the project's own URL)."""
    if not _URL_START_RE.match(url) or any(c.isspace() for c in url):
        return
    url_path = _split_url(url)[1].rstrip("/")
    name = url_path.rsplit("/", 1)[-1].lower() if url_path else ""   # a bare host names no file
    suffix = name.rsplit(".", 1)[-1] if "." in name else ""
    if suffix and suffix not in _PAGE_SUFFIXES and not is_software_download(url) \
            and not is_software_release(url, scan.own) and not scan.own.is_own_url(url):
        if not is_data_use_path_name(path):
            # a file test code fetches is test data, as a URL in test code is (§0.2.3, §0.3)
            scan.ignored["test_pointer"] += 1
            return
        scan.add(Pointer(40, "data_pointer.direct_url", url, "direct URL of a file the code fetches"), path, line, cell)


_URL_START_RE = re.compile(r"^(?:https?|ftp)://", re.IGNORECASE)
# The R, Julia and MATLAB calls that download or read the file a URL names (A4's list):
# the URL they are given is a data file whatever its suffix (2.7.0; Python's since 2.5.0).
_FILE_FETCH_RE = re.compile(
    r"(?:^|[.:])(?:download\.file|curl_download|GET|POST|read\.(?:csv2?|table|delim2?)|read_(?:csv2?|tsv|delim|excel)"
    r"|fread|readRDS|download|websave|webread|urlwrite|urlread)$")


_CODE_FRONTENDS = frozenset({"r", "julia", "snakemake", "nextflow", "matlab"})
# Web pages and their assets (styles, scripts, icons, fonts): never the data a call fetches
_PAGE_SUFFIXES = frozenset({"html", "htm", "php", "asp", "aspx", "jsp", "cgi", "xml", "rss", "js", "css", "svg",
                            "png", "jpg", "gif", "ico", "ttf", "otf", "woff", "woff2"})

def _script_files(tree: TreeIndex) -> list[str]:
    """Non-Python scripts scanned as lines: shell, R, Julia, Make-like and workflow files."""
    found: list[str] = []
    for kind in ("shell", "r", "julia"):
        found.extend(tree.by_type(kind))
    # MATLAB/Octave string literals (§0.3), vendored toolboxes (their demos) excluded
    found.extend(p for p in tree.by_frontend("matlab") if tree.role(p) != "vendored")
    found.extend(p for p in tree.make_like_files() if not p.lower().endswith(".py"))
    for path in tree.files:
        if _is_workflow_file(path):
            info = tree.info(path)
            if info is not None and info.alias_of is None:
                found.append(path)
    return sorted(set(found))


_CONFIG_JSON_RE = re.compile(
    r"package.*\.json|tsconfig.*\.json|codemeta\.json|\.zenodo\.json|citation\.json|.*\.schema\.json|"
    r"renovate\.json|composer\.json|lerna\.json|angular\.json|vercel\.json|app\.json|manifest\.json|"
    r"\.?eslintrc.*\.json|nextflow_schema\.json|output_definition\.json|.*config.*\.json|.*settings.*\.json|jsconfig\.json|bower\.json|.*\.code-workspace|"
    # MATLAB reads these by name: code suggestions and argument validation
    r"functionSignatures\.json",
    re.IGNORECASE,
)
_CONFIG_DIRS = frozenset({"config", "configs", "conf", "settings", ".vscode", ".github", ".devcontainer"})


def _is_matlab_project_metadata(dirs: list[str]) -> bool:
    """A file a MATLAB Project keeps about itself (``resources/project/**``)."""
    return any(a == "resources" and b == "project" for a, b in zip(dirs, dirs[1:], strict=False))


# a file named as parameters (``params.json``, ``simulation_parameters.mat``, ``model-params.csv``)
_PARAMETER_NAME_RE = re.compile(r"(?:^|[-_.\s])param(?:eter)?s?(?:[-_.\s]|$)", re.IGNORECASE)
_DATA_DIRS = frozenset({"data", "raw", "datasets", "dataset"})


# Test recordings (§0.2.17) and reference outputs (files S4 credits as expected results)
# are neither input data nor the deposit's data use.
_RECORDING_DIRS = frozenset({"cassettes", "fixtures", "vcr_cassettes"})
# Where the recorders write (beside the test folders): a JSON file there is opened to see
# whether it holds an HTTP recording; other JSON files are never parsed for it.
_MOCK_DIRS = frozenset({"recordings", "mocks", "mock", "responses", "vcr", "http_mocks"})
_REFERENCE_OUTPUT_DIR_RE = re.compile(r"expected(?:[-_ ].*)?|baselines?(?:[-_ ].*)?|_*snapshots?_*", re.IGNORECASE)
# Domain formats of example data (§0.3 Python libraries: molecular dynamics, chemistry,
# simulation outputs), local data only under an ``examples/**/data/`` folder, where
# ``.dat`` or ``.xyz`` are not generic files.
_EXAMPLE_DATA_EXTENSIONS = frozenset({".xvg", ".dat", ".pdb", ".xyz", ".gro", ".nc"})
_EXAMPLES_DIRS = frozenset({"examples", "example"})


def is_example_data(path: str) -> bool:
    """A file under a ``data/`` folder of the top-level examples folder
    (``examples/lysozyme/data/energy.xvg``): example data is local data (§0.3)."""
    dirs = [p.lower() for p in path.split("/")[:-1]]
    return len(dirs) >= 2 and dirs[0] in _EXAMPLES_DIRS and "data" in dirs[1:]


def _is_http_recording(tree: TreeIndex, path: str) -> bool:
    """A JSON file holding an HTTP recording (VCR ``http_interactions``, vcrpy/betamax/
    Polly ``interactions`` of request/response pairs): a test fixture (§0.2.17). Only a
    test file or one under a recordings folder is opened for it."""
    data = _guarded(tree, path, "reading JSON", lambda: tree.json(path), None)
    if not isinstance(data, dict):
        return False
    if "http_interactions" in data:
        return True
    interactions = data.get("interactions")
    return isinstance(interactions, list) and any(
        isinstance(item, dict) and "request" in item and "response" in item for item in interactions[:5])


def local_data_files(tree: TreeIndex) -> list[str]:
    """Data-extension files outside dot paths and configuration roles (A2 V2 rule 5).

    A ``.json`` file counts only under a data folder (``data/``, ``input*/``, ``raw/``,
    ``datasets/``) or when larger than 1 KiB and not a known configuration name. Test
    recordings (``cassettes/``, ``fixtures/``, a JSON HTTP recording; §0.2.17), reference
    outputs (``expected*/``, ``baseline*/``, ``snapshots/``) and files only test and
    documentation code names are not data; ``examples/**/data/`` also holds the domain
    formats ``.xvg .dat .pdb .xyz .gro``, and a data folder any file a source module opens
    (``_opened_data_folder_files``).
    """
    found = []
    for path in tree.files:
        ext = data_extension(_name(path))
        if ext is None:
            if not (_suffix_of(path) in _EXAMPLE_DATA_EXTENSIONS and is_example_data(path)):
                continue
            ext = _suffix_of(path)
        parts = path.split("/")
        if any(part.startswith(".") for part in parts):
            continue
        dirs = [p.lower() for p in parts[:-1]]
        if any(d in _CONFIG_DIRS or d.startswith("config") for d in dirs) or _PARAMETER_NAME_RE.search(parts[-1]) \
                or _is_matlab_project_metadata(dirs):
            # sample sheets, settings, templates and parameter tables in the configuration role
            # (A2 V2 rule 5): config/, conf/, settings/ and every config* folder (configFiles/,
            # config_files/, configuration/), and files named as parameters
            continue
        if _RECORDING_DIRS & set(dirs) or any(_REFERENCE_OUTPUT_DIR_RE.fullmatch(d) for d in dirs):
            continue
        if ext == ".json":
            in_data_dir = any(d in _DATA_DIRS or d.startswith("input") for d in dirs)
            if not in_data_dir:
                info = tree.info(path)
                if info is None or info.size <= 1024 or _CONFIG_JSON_RE.fullmatch(parts[-1]) or _CONFIG_DIRS & set(dirs):
                    continue
            if (tree.role(path) == "test" or _MOCK_DIRS & set(dirs)) and _is_http_recording(tree, path):
                continue
        found.append(path)
    found = sorted(found + _opened_data_folder_files(tree))
    if found:
        examples_only = named_only_by_examples(tree, found)
        found = [p for p in found if p not in examples_only]
    return found


# Files that are code or prose, never data whatever folder holds them
_NOT_DATA_SUFFIXES = frozenset({".py", ".pyw", ".ipynb", ".r", ".rmd", ".qmd", ".jl", ".m", ".sh", ".bash", ".c",
                                ".h", ".cc", ".cpp", ".hpp", ".f90", ".f", ".nf", ".smk", ".md", ".markdown",
                                ".rst", ".tex", ".bib", ".cff", ".html", ".htm", ".css", ".js", ".yml", ".yaml",
                                ".toml", ".cfg", ".ini", ".lock"})


def _opened_data_folder_files(tree: TreeIndex) -> list[str]:
    """Files under a data folder (§0.1.21: ``data/``, ``input*/``, ``raw/``, ``datasets/``)
    with no data extension that a source module of the deposit (a script, not a notebook,
    which may only demonstrate) opens by a path literal or a template whose file name
    part holds a literal (``open("data/ind.{}.{}".format(name, part))`` reads
    ``data/ind.cora.x``): local data whatever their suffix, as the data folder makes a
    ``.json`` data and as a file the code fetches from a URL is data."""
    candidates = []
    for path in tree.files:
        parts = path.split("/")
        if len(parts) < 2 or any(part.startswith(".") for part in parts) or data_extension(parts[-1]):
            continue
        if not any(d.lower() in _DATA_DIRS or d.lower().startswith("input") for d in parts[:-1]):
            continue
        if _suffix_of(path) in _NOT_DATA_SUFFIXES or parts[-1].lower().startswith(("readme", "license", "licence")):
            continue
        candidates.append(path)
    if not candidates:
        return []
    patterns: list[re.Pattern[str]] = []
    modules = tree.by_type("python") + tree.by_type("r") + tree.by_type("julia") + tree.by_frontend("matlab")
    for path in sorted(set(modules)):
        if tree.role(path) != "source":
            continue
        facts = tree.facts(path)
        for literal in facts.strings if facts is not None else ():
            text = literal.value.strip()
            if literal.docstring or "/" not in text or "://" in text or len(text) > 300 \
                    or any(c.isspace() for c in text) or text.startswith(("/", "~")):
                continue
            for base in ("", path.rsplit("/", 1)[0] if "/" in path else ""):
                joined = posixpath.normpath(posixpath.join(base, text))
                if joined.startswith(".."):
                    continue
                if not any(c.isalnum() for c in TEMPLATE_FIELD_RE.sub("", joined.rsplit("/", 1)[-1])):
                    continue   # ``{}/{}``: a file name all fields names no file of the tree
                pieces = TEMPLATE_FIELD_RE.split(joined)
                patterns.append(re.compile("[^/]*".join(re.escape(piece) for piece in pieces)))
    return [path for path in candidates if any(pattern.fullmatch(path) for pattern in patterns)]


def _suffix_of(path: str) -> str:
    name = _name(path).lower()
    dot = name.rfind(".")
    return name[dot:] if dot > 0 else ""


@detector("data_pointer", version="2.14.0")
def data_pointer(tree: TreeIndex) -> Result:
    """The repository points to where its data lives: an archive, a domain database, a URL or local files.

    What it checks:
        URLs, DOIs (``https://doi.org/…``, ``doi:10.…``, bare ``10.NNNN/…``) and accession
        numbers are read from the README, the data documents of A1, notebook and R Markdown prose,
        Python string literals (docstrings excluded; ``.py`` files and notebook cells) and
        the lines of shell, R, Julia, Make-like and workflow files and notebook shell/R
        cells. The value is the maximum (METRICS.md A2 V2, §0.1.21):
        100 archival: a data-repository DOI prefix (Zenodo 10.5281, figshare 10.6084,
        Dryad 10.5061, OSF 10.17605, Dataverse 10.7910…, Mendeley Data 10.17632,
        PANGAEA 10.1594, UKDS 10.5255, DANDI 10.48324, …) or an archive host URL (zenodo.org,
        figshare.com, osf.io and its subdomains, datadryad.org, a Dataverse, data.mendeley.com,
        pangaea.de, the domain repositories dandiarchive.org and neurovault.org…); DANDI
        URIs (``dandi://…``, ``s3://dandiarchive/…``) in any language (§0.2.16); a Figshare
        dataset record on any host (``/articles/dataset/<title>/<id>[/<version>]``: the
        research data repository a university runs on Figshare for Institutions, such as
        rdr.ucl.ac.uk, is Figshare with its DOIs; 2.8.0). An OSF
        ``/preprints/`` or ``/meetings/`` record and a Figshare record typed as software,
        code, preprint, poster, presentation, journal contribution, thesis… are
        publications, not data (§0.2.16; 2.7.0).
        80 institutional: NCBI/EBI URLs on data paths (``/geo/``, ``/sra/``,
        ``/bioproject/``, ``/biosample/``, ``ftp.ncbi…``, ``/ena/``, ``/arrayexpress/``,
        ``/pride/``, and the EBI domain archives ``/biostudies/``, ``/bioimage-archive/``,
        ``/empiar/``, ``/metabolights/``, ``/pdbe/``; never PubMed/PMC), Protein Data Bank
        entries (rcsb.org, pdbj.org ``/structure/``…), the EMBL-EBI and wwPDB DOIs
        (10.6019, 10.2210), Hugging Face datasets, UCI, EGA, PhysioNet,
        Synapse, OpenML; a government (``*.gov``: NOAA, Census, HUD, BLS…) or
        intergovernmental/central-bank (WHO, FRED, World Bank, Eurostat, OECD, IMF) URL
        whose path names data, in a data context -- a data section, code, or a line
        naming data or a download ("we combine data from the [WHO](…/data)"; 2.7.0);
        accession numbers (GSE, SRR/SRP/SRX, PRJNA…, E-MTAB-…, PXD, EGAS/EGAD, BioImage
        Archive S-BIAD/S-BSST, EMPIAR-, MetaboLights MTBLS; §0.2.16) in a data context.
        75 kaggle: ``kaggle.com/datasets/…``, a dataset's ``kaggle.com/<owner>/<slug>``
        (never ``/c/``, ``/code/``, ``/competitions/``, ``/learn/``, ``/discussions/``…;
        §0.2.16) or a Kaggle DOI.
        60 code_host: raw/blob data files, release assets, LFS media or data repositories
        on GitHub/GitLab/Bitbucket: named as data (``owner/xyz-data``) or called a
        dataset by the link's text or the word after it ("the [FashionMNIST](…) dataset";
        2.7.0); a data file or data archive attached to an issue or pull request
        (GitHub ``owner/repo/files/<id>/mnist.tar.gz``, ``user-attachments/files/<id>/…``,
        GitLab ``uploads/<hash>/…``), hosted as a release asset is (2.11.0); also a non-archive DOI in a data context. 40 direct_url: any other URL of a data file (the extension is matched
        after stripping ``.gz .bz2 .xz .zip .tar.gz``); a URL of an archive (``.zip``,
        ``.tar.gz``, ``.tgz``, ``.7z``) in a data or download context -- code, a data section,
        or a document line naming data or ``wget``/``curl``/a download (§0.2.15) -- unless
        the name is a versioned or source release (``tool-1.2.tar.gz``, ``master.zip``);
        a file URL a Python download or read call fetches (``urlopen``, ``urlretrieve``,
        ``requests.get``, ``pd.read_csv``…), built from pieces or not
        (``'https://hitran.org/data/Q/' + 'q' + str(G) + '.txt'``), whatever its suffix
        other than a web page's (2.5.0; nor its assets' -- fonts, styles -- nor a bare
        host's: 2.7.0), and likewise a URL literal an R, Julia or MATLAB
        download or read call is given (``download.file``, ``read.csv``, ``httr::GET``/
        ``POST`` (2.8.0), ``websave``, ``webread``, ``download``…; 2.7.0), unless it is a
        software release
        (``tool-1.2.zip``, a code host's ``archive/master.zip``); a remote file read through a GDAL virtual file
        system in a code string of any language (``/vsicurl/https://…``, ``/vsis3/…``,
        ``/vsigs/…``, ``/vsiaz/…``: sf, terra, rasterio, geopandas; 2.7.0); a Nextflow
        parameter set to a remote file in ``nextflow.config``, a profile's
        ``conf/*.config`` or a ``.nf`` file and read by ``file()``, ``Channel.fromPath``,
        ``fromFilePairs`` or nf-schema's ``samplesheetToList`` (classified as its URL),
        and a Snakemake remote provider's scheme-less address (``HTTP.remote("host/x")``
        is ``https://host/x``, ``FTP.remote`` an ``ftp://`` address; §0.3 workflow data;
        2.7.0). The repository's own URLs never count: those
        its metadata names (CITATION.cff, codemeta.json, .zenodo.json, pyproject URLs,
        DESCRIPTION ``URL``/``BugReports``) and code-host URLs of a repository named as
        the project (the RStudio ``<name>.Rproj``, DESCRIPTION ``Package:``; 2.5.0) --
        but not a data file or data archive (§0.2.15, not a versioned release or a
        platform build) kept beside the repository as a release asset or an attachment,
        which the repository distributes as data (2.11.0; its raw and blob files stay
        its own).
        25 local_file: a data file in the
        tree (``.csv .tsv .parquet .feather .h5 .hdf5 .nc .npy .npz .rds .xlsx .json…``),
        dot paths and configuration files excluded (any data format under ``config/``,
        ``conf/``, ``settings/`` and every ``config*`` folder such as ``configFiles/``,
        ``config_files/``, ``configuration/``: sample sheets, settings, templates the method
        reads -- only ``.json``/``.tsv``/``.csv`` under the first three before 2.8.0 --; a
        file named as parameters, ``params.json``, ``simulation_parameters.mat`` (2.8.0);
        Nextflow ``nextflow_schema.json``/``output_definition.json``; MATLAB's toolchain
        files, ``functionSignatures.json`` (argument completion and validation) and a
        MATLAB Project's ``resources/project/`` metadata, 2.11.0); ``.json`` only under a data
        folder or above 1 KiB and not a known configuration name; also any file of a data
        folder (``data/``, ``input*/``, ``raw/``, ``datasets/``; §0.1.21) that a source
        module opens by a path literal or template whose file name holds a literal
        (``open("data/ind.{}.{}".format(name, part))`` reads ``data/ind.cora.x``), whatever
        its suffix but code, prose and bibliographies: the data folder that makes a ``.json``
        data makes the file the code reads data, as a file the code fetches from a URL is
        (2.10.0); never a test recording
        (``cassettes/``, ``fixtures/``, a test or recordings-folder JSON holding
        ``http_interactions`` or request/response ``interactions``; §0.2.17), a reference
        output (``expected*/``, ``baseline*/``, ``snapshots/``) or a file only test code
        names (2.7.0), or only test and documentation code, by its path or by its name
        alone (2.9.0).
        Per language: Python literals and notebook cells, R/Julia/Snakemake/Nextflow and
        MATLAB/Octave string literals (comments are never pointers; vendored MATLAB
        toolboxes are skipped), shell and Make-like lines. In code a DOI, whatever its
        registrant, counts only when the code fetches it (a URL a download or read call is
        given) or it sits in a data-source variable (``url``, ``source``, ``data``,
        ``link``, the ``doi`` of a lookup such as ``dataset_search(doi = …)``, never a
        citation's); §0.2.14: a DOI in a message, a citation string or a dict key is none
        (2.7.0 for data-repository DOIs), and
        a URL, DOI or accession number in test code is test data (§0.2.3, §0.3), as is a
        file test code fetches (counted as ``ignored_test_pointer``, never shown as a
        pointer: 2.8.0). Local data
        files are the §0.2.15 formats too (.h5ad, .loom, .zarr, .fa, .gtf, .bed, .tif,
        .sav, .dta, .rda, .arrow...); an R package's data/ datasets count as local data
        but do not by themselves make the deposit use data.
        A data context in a document is a data section (a heading matched as A1's -- the
        data word its head, §0.2.7, A1 2.12.0: "High pass filter the data" is no data
        section; 2.14.0 --, never
        the document title, which names the project: "# Discovery of Physics from Data"
        puts no citation DOI below it in a data context, §0.2.6; 2.13.0), a paragraph
        opening with a bold or italic run-in label that is a data heading
        ("**Availability of data and materials:** … [SRP062005]", "*Data availability.*",
        read like a heading; 2.13.0), a data document, or a line naming data.
        Ignored: badges (image and link target; an HTML ``<a href>`` whose content up to
        its ``</a>`` is one ``<img>``, on whatever lines it spans, §0.1.21; 2.13.0) -- except a badge whose sentence names
        data ("the data are available at [![DOI](…)](…)"), whose link target is read in a
        data context (§0.2.13; 2.7.0) --, the repository's own URLs and DOIs (from
        ``CITATION.cff``, ``codemeta.json``, ``.zenodo.json``, ``[project.urls]``), CI,
        documentation and package-index links, code-host links that are not data, any
        pointer in a citation section or BibTeX entry and any inline citation (a link
        whose text is a citation marker: "Westerholt 2026", "Wolf, Knaap, & Rey (2019)",
        "Smith et al.", "[3]") unless it is in a data context (a README data section, a
        data document, code, or a line naming data), and (2.7.0) the links of a line that
        says they hold code or a publication and names no data ("the replication code is
        at <doi>", "a companion analysis compendium at <doi>", a preprint, slides, a
        poster) and of a section about future or planned work ("Future work",
        "Roadmap", "To do": data the deposit does not have). Documentation pages
        (``docs/``, ``vignettes/``: tutorials and user guides; the pages of a folder the
        documentation build copies in, 2.9.0) and tests point to their
        example data: their pointers count only when the deposit's own code fetches data
        (A4 counts a download outside documentation and tests), as a data-access
        package's vignettes name the data it retrieves (§0.3 deposit kind; 2.7.0).
        {shared:deposit_kind}
    Why it matters:
        A persistent, archived copy of the data is what lets a third party rerun the
        analysis years later; a link to a code repository or a file on the author's
        disk is not.
    Evidence:
        Each pointer with its file, line (and notebook cell) and the URL, DOI, accession or
        path (a URL built from pieces for a fetch call: from the line of the literal it
        starts with to the call); the strongest first, within a strength those outside
        test files first and each file's first pointer before a second of any file;
        ``counts`` per class and the numbers of ignored badges, own identifiers,
        citations and DOIs outside a data context.
    How to fix:
        Deposit the data in Zenodo, Figshare or a domain archive and cite its DOI in
        DATA.md or the README's data section; the fix (2.7.1) names the deposit's own place
        (METRICS.md §0.3): README.Rmd and the roxygen ``@source`` of R datasets, the
        DataDeps.jl registration of a Julia project, DANDI/OpenNeuro for MATLAB
        neuroscience data, ENA/SRA accessions and the test profile's params of a Nextflow
        pipeline, ``config/config.yaml`` of a Snakemake workflow.
    Known false positives:
        An archive URL or data-repository DOI in prose outside a citation block counts
        unless its line says it holds code, even one that points to someone else's
        software deposit on Zenodo; a URL printed by a plotting script counts; a ``.csv``
        of results in the tree scores 25 as "local data". Data files bundled as bare
        archives (``data.zip``) are not recognised by name. A link text that merely looks
        like an author and a year ("Census 2020") is read as a citation on a line that
        names no data. A data file the deposit reads through a name held in a variable
        (``pd.read_csv(path)``) and that a test or documentation example names too is
        read as example data, not local data.
    """
    return not_applicable_result(tree) or probed(tree, "data_pointer")[0]


# Where to deposit the data and name it, in the deposit's own terms (METRICS.md §0.3).
_DEPOSIT_FIX = {
    PYTHON: "Deposit the data in Zenodo or Figshare (or a domain archive) and cite its DOI in DATA.md or a "
            "'## Data' section of the README.",
    R: "Deposit the data in Zenodo or Figshare (or a domain archive) and cite its DOI in DATA.md or a '## Data' "
       "section of README.Rmd, and in the roxygen @source of the datasets it documents.",
    JULIA: "Deposit the data in Zenodo or Figshare (or a domain archive) and cite its DOI in DATA.md or the "
           "README's '## Data' section (and in the DataDeps.jl registration that fetches it).",
    MATLAB: "Deposit the data in Zenodo, Figshare or a domain archive (DANDI, OpenNeuro, ...) and cite its DOI in "
            "DATA.md or a '## Data' section of the README.",
    NATIVE: "Deposit the input data in Zenodo or Figshare (or a domain archive) and cite its DOI in DATA.md or a "
            "'## Data' section of the README.",
    NEXTFLOW: "Deposit the input data in Zenodo or a domain archive (ENA/SRA accessions for reads) and point the "
              "samplesheet and the test profile's params (conf/test.config) at its DOI or URLs.",
    SNAKEMAKE: "Deposit the input data in Zenodo or a domain archive (ENA/SRA accessions for reads) and name its DOI "
               "or URLs in config/config.yaml and the README's data section.",
}


def _fetches_data_itself(tree: TreeIndex) -> bool:
    """The deposit's own code (outside documentation and tests) downloads data: A4's
    measurement counts a download."""
    return probed(tree, "data_acquisition_script")[0].value == 100


def _readme_example_lines(tree: TreeIndex) -> set[tuple[str, int]]:
    """(README, line) of the lines inside the code blocks of an R or Julia package's
    README (``README.md`` and its ``README.Rmd`` source): usage examples of the library."""
    project = tree.toml("Project.toml") if tree.is_file("Project.toml") else None
    is_package = _is_r_package(tree) or (tree.is_dir("src") and isinstance(project, dict) and "uuid" in project)
    if not is_package:
        return set()
    found: set[tuple[str, int]] = set()
    for path in tree.files_in(""):
        if not _name(path).lower().startswith("readme"):
            continue
        doc = _document(tree, path)
        for block in doc.code_blocks if doc is not None else ():
            found.update((path, line) for line in range(block.line_start, block.line_end + 1))
    return found


@data_probe("data_pointer")
def _measure(tree: TreeIndex) -> tuple[Result, list[DataSignal]]:
    own = own_identifiers(tree)
    scan = _PointerScan(own)
    docs: list[tuple[str, bool]] = [(p, True) for p in data_docs(tree)]
    if tree.readme and tree.readme not in {p for p, _ in docs}:
        docs.append((tree.readme, False))
    # Notebook markdown and R Markdown / Quarto prose (its code chunks are read again as
    # code: same file lines, so a pointer found twice is recorded once). A document whose
    # lines cannot hold a pointer is passed over by _scan_document's first test.
    docs += [(p, False) for p in tree.by_type("notebook") if p != tree.readme]
    docs += [(p, False) for p in tree.by_type("rmd")]
    for path, is_data_doc in docs:
        doc = _document(tree, path)
        if doc is not None:
            _guarded(tree, path, "scanning for data pointers",
                     lambda p=path, d=doc, f=is_data_doc: _scan_document(tree, p, d, scan, data_doc=f), None)
    _scan_code(tree, scan)
    if not _fetches_data_itself(tree):
        # Documentation pages (tutorials, vignettes, user guides) and tests point to their
        # example data (§0.3 deposit kind: documentation examples and test data are not the
        # deposit's data). Only a deposit whose own code fetches data keeps them: its
        # documentation then names the data the software retrieves (a data-access
        # package's vignettes citing the download DOIs it produced).
        kept = [item for item in scan.found if not is_documentation_example(tree, item[1])]
        scan.ignored["documentation_example"] += len(scan.found) - len(kept)
        scan.found = kept

    local = local_data_files(tree)
    docs_paths = {p for p, _ in docs if p == tree.readme or p in data_docs(tree)}
    pointers = sorted(scan.found, key=lambda item: (-item[0].value, item[1], item[3] or 0, item[2] or 0))
    # A journal DOI in a code string or prose (a citation) is no sign of data use, nor is a
    # package's README example (a code block reading an example dataset, §0.3 deposit kind).
    examples = _readme_example_lines(tree)
    signals = [DataSignal("document", path, f"data pointer {pointer.target}") for pointer, path, line, _cell in pointers
               if (is_data_use_path(tree, path) or path in docs_paths)
               and (path, line) not in examples
               and pointer.rule != "data_pointer.doi_in_data_context" and not is_software_download(pointer.target)]
    # example data under examples/**/data/ is the local data of a library's examples (§0.3)
    signals += [DataSignal("file", p, "data file") for p in local if is_data_use_path(tree, p) or is_example_data(p)]
    by_rule = Counter(p.rule.split(".", 1)[1] for p, *_ in pointers)
    counts: dict[str, Any] = {
        "pointers": len(pointers),
        "archival": by_rule["archival_doi"] + by_rule["archival_host"],
        "institutional": by_rule["institutional_host"] + by_rule["institutional_doi"] + by_rule["accession"],
        "kaggle": by_rule["kaggle"],
        "code_host": by_rule["code_host"],
        "doi_in_data_context": by_rule["doi_in_data_context"],
        "direct_url": by_rule["direct_url"],
        "local_data_files": len(local),
        "ignored_badges": scan.ignored["badge"],
        "ignored_own": scan.ignored["own"],
        "ignored_citation": scan.ignored["citation"],
        "ignored_doi_outside_data_context": scan.ignored["doi_outside_data_context"],
        "ignored_code_host_links": scan.ignored["code_host_not_data"],
        "ignored_test_pointer": scan.ignored["test_pointer"],
        "ignored_publications": scan.ignored["publication"],
        "ignored_documentation_examples": scan.ignored["documentation_example"],
        "ignored_future_work": scan.ignored["future_work"],
        "ignored_code_or_publication_lines": scan.ignored["code_or_publication"],
    }
    evidence = [
        Evidence(path, pointer.reason, rule=pointer.rule, line_start=scan.starts.get((path, line, cell), line),
                 line_end=line, snippet=pointer.target, cell=cell)
        for pointer, path, line, cell in _shown(tree, pointers)
    ]
    value = pointers[0][0].value if pointers else 0
    if value < 25 and local:
        value = 25
    if value <= 25:
        evidence += [Evidence(p, "data file in the tree", rule="data_pointer.local_file")
                     for p in local[: MAX_EVIDENCE - len(evidence)]]
    fix = None if value == 100 else _DEPOSIT_FIX[fix_ecosystem(tree)]
    if value == 0:
        return Result(0, level="absent", evidence=evidence, counts=counts,
                      reason="no data URL, DOI, accession number or data file found", fix=fix), signals
    reason = pointers[0][0].reason if pointers and pointers[0][0].value == value else "data files in the tree"
    return Result(value, level=A2_LEVELS[value], evidence=evidence, counts=counts, reason=reason, fix=fix), signals
