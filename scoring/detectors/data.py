"""Category A, data accessibility (METRICS.md A1–A4).

Can the data the analysis needs be found, obtained and used? Four detectors:

* A1 ``data_description``: the data is described in prose (a DATA file or a README data
  section), counted in rendered words;
* A2 ``data_pointer``: the repository says where the data lives (archive DOIs and URLs,
  institutional archives and accession numbers, Kaggle, data files on code hosts, direct
  data-file URLs, local data files);
* A3 ``workflow_orchestration``: the analysis is run by a declared workflow (an engine,
  a Make-like file, a pipeline driver script);
* A4 ``data_acquisition_script``: code downloads the data (shell, notebooks, Python, R,
  Julia, Make-like recipes, workflow rules, DVC tracking files).

Everything is read through the tree index: prose through ``tree.document``, Python through
the cached code units, notebooks through ``tree.notebook``; other scripts are read only
when their name or extension selects them, so every file is read at most once.
"""

from __future__ import annotations

import ast
import re
import shlex
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit

from scoring.model import Evidence
from scoring.parsers.markdown import Document
from scoring.parsers.python import CodeUnit, dotted_name
from scoring.parsers.shell import Command, command_lines, split_commands
from scoring.registry import Result, detector
from scoring.tree import TreeIndex

# Evidence lists stay short enough to read; totals always go to ``counts``.
MAX_EVIDENCE = 20

_T = TypeVar("_T")


def _ww(pattern: str) -> str:
    """``pattern`` as a whole word (METRICS.md §0.1.12)."""
    return rf"(?<![A-Za-z0-9])(?:{pattern})(?![A-Za-z0-9])"


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def _suffix(path: str) -> str:
    name = _name(path)
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""


def _guarded(tree: TreeIndex, path: str, what: str, build: Callable[[], _T], default: _T) -> _T:
    """Run ``build``; a parser failure on one deposit file is recorded, never raised,
    so one odd file cannot void a whole metric."""
    try:
        return build()
    except Exception as exc:  # noqa: BLE001 - deposits are untrusted input
        tree.problem(path, f"{what} failed: {type(exc).__name__}: {exc}")
        return default


def _document(tree: TreeIndex, path: str) -> Document | None:
    return _guarded(tree, path, "reading the document", lambda: tree.document(path), None)


def _notebook(tree: TreeIndex, path: str):
    return _guarded(tree, path, "reading the notebook", lambda: tree.notebook(path), None)


def _python_units(tree: TreeIndex) -> list[CodeUnit]:
    return _guarded(tree, "", "parsing Python units", tree.python_units, [])


def _cell_locator(tree: TreeIndex, path: str) -> Callable[[int], tuple[int, int | None]]:
    """Map a line of ``tree.document(path)`` to (line, cell).

    The document of a Jupyter notebook is its markdown cells joined with blank lines;
    evidence must name the cell and the line within it. Other documents map to
    themselves.
    """
    if not path.lower().endswith(".ipynb"):
        return lambda line: (line, None)
    nb = _notebook(tree, path)
    starts: list[tuple[int, int]] = []  # (first line in the joined text, cell index)
    line = 1
    for cell in nb.markdown_cells if nb else []:
        starts.append((line, cell.index))
        line += cell.source.count("\n") + 2

    def locate(joined_line: int) -> tuple[int, int | None]:
        for first, index in reversed(starts):
            if joined_line >= first:
                return joined_line - first + 1, index
        return joined_line, None

    return locate


# --------------------------------------------------------------------------- data docs

_DATA_HEADING_RE = re.compile(_ww(r"data(?:sets?)?"), re.IGNORECASE)
_NOT_DATA_HEADING_RE = re.compile(_ww(r"databases?|data\s+structures?"), re.IGNORECASE)
_PROSE_EXTS = ("", ".md", ".markdown", ".rst", ".txt")
_ROOT_DATA_DOC_RE = re.compile(
    r"data\.(?:md|markdown|rst)|data_readme.*|dataset.*\.md|data_availability.*|datasheet.*\.md",
    re.IGNORECASE,
)


def is_data_heading(text: str) -> bool:
    """A heading about the data: ``data``/``dataset(s)`` as a whole word (so ``Input
    data``, ``Data availability``), never ``Database`` or ``Data structures``."""
    return bool(_DATA_HEADING_RE.search(text)) and not _NOT_DATA_HEADING_RE.search(text)


def data_docs(tree: TreeIndex) -> list[str]:
    """Dedicated data documents (A1 V2): ``DATA.md``, ``DATA_README*``, ``DATASET*.md``,
    ``DATA_AVAILABILITY*``, ``datasheet*.md`` at the root, ``README*`` and ``*.md`` in a
    top-level ``data/`` folder; matched case-insensitively, prose extensions only."""
    found = [
        p for p in tree.files_in("")
        if _ROOT_DATA_DOC_RE.fullmatch(_name(p)) and _suffix(p) in _PROSE_EXTS
    ]
    for folder in tree.subdirs(""):
        if _name(folder).lower() != "data":
            continue
        for path in tree.files_in(folder):
            lower = _name(path).lower()
            if (lower.startswith("readme") and _suffix(path) in _PROSE_EXTS) or lower.endswith((".md", ".markdown")):
                found.append(path)
    return sorted(set(found))


# =========================================================================== A1


def _a1_file_value(words: int) -> int:
    return 100 if words >= 100 else 70 if words >= 30 else 40


def _a1_section_value(words: int) -> int:
    return 80 if words >= 60 else 50 if words >= 20 else 20


_DATA_KEYWORD_RE = re.compile(_ww(r"datasets?|data\s+availability|data\s+sources?"), re.IGNORECASE)


@detector("data_description", version="2.0.0")
def data_description(tree: TreeIndex) -> Result:
    """The data the analysis uses is described in prose: a DATA file or a README data section.

    What it checks:
        Three sources; the highest value wins (METRICS.md A1 V2, §0.1.13, §0.1.20).
        (a) A dedicated data document, matched case-insensitively: ``DATA.md`` (also
        ``.markdown``/``.rst``), ``DATA_README*``, ``DATASET*.md``, ``DATA_AVAILABILITY*``,
        ``datasheet*.md`` at the root, ``data/README*`` and ``data/*.md``. Words of its
        rendered prose: >= 100 -> 100, 30-99 -> 70, 1-29 -> 40.
        (b) A README data section: a real heading (outside code fences; ATX, setext, RST
        or HTML) containing the whole word ``data`` or ``dataset(s)`` (so "Input data",
        "Data availability", "Data access") but not ``database`` or ``data structure(s)``.
        The section runs to the next heading of the same or higher level, sub-sections
        included. Words: >= 60 -> 80, 20-59 -> 50, fewer -> 20.
        (c) The README prose uses ``dataset(s)``, ``data availability`` or
        ``data source(s)`` as whole words -> 20.
        Words are counted in rendered text: headings, code blocks, inline code and URLs
        are excluded (a link's text counts, its address does not).
    Why it matters:
        Without a description of the data (where it comes from, its size, format and
        licence) a reader cannot obtain or check the inputs the results depend on.
    Evidence:
        The data document (whole-file line range) with its word count; the README data
        heading with the section's line range and word count; the README line using a
        data keyword. ``counts`` holds the best word counts and how many sources matched.
    How to fix:
        Add ``DATA.md`` (or a ``## Data`` section in the README) of at least 100 words
        giving the data's source, size, format, licence and how to obtain it.
    Known false positives:
        Any heading with the word "data" counts ("Data-driven design", "Big data"); a
        ``data/*.md`` file that is not about the data (a licence, a changelog) counts as a
        data document; the keyword tier fires on a README that merely mentions a dataset.
        The count is prose words, so a data document made mostly of tables without
        sentences scores by its table text. REF counted the heading's own tokens too
        (§11.11's "62 words"), so a section of 58-59 prose words is 80 in REF and 50 here.
    """
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
        for section in doc.sections:
            if not is_data_heading(section.heading.text):
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
            fix="Add DATA.md (or a '## Data' section in the README) giving the data's source, "
                "size, format, licence and how to obtain it.",
        )
    candidates.sort(key=lambda c: -c[0])
    value, best = candidates[0]
    evidence = [e for _, e in candidates][:MAX_EVIDENCE]
    return Result(value, evidence=evidence, counts=counts, reason=best.reason, fix=_a1_fix(value, best))


def _a1_fix(value: int, best: Evidence) -> str | None:
    if value == 100:
        return None
    if best.rule == "data_description.data_document":
        return f"Expand {best.path} to at least 100 words covering the data's source, size, format and licence."
    if best.rule == "data_description.readme_section":
        return ("Add DATA.md of at least 100 words (or grow the README data section to 60 words) "
                "covering the data's source, size, format and licence.")
    return "Add DATA.md (or a '## Data' section in the README) giving the data's source, size, format and licence."


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


# =========================================================================== A2

A2_LEVELS = {100: "archival", 80: "institutional", 75: "kaggle", 60: "code_host",
             40: "direct_url", 25: "local_file", 0: "absent"}

_URL_RE = re.compile(r"(?:https?|ftp)://[^\s<>\"'`\\^{}|\[\]()]+", re.IGNORECASE)
# No look-behind at the start: a leading literal lets the regex engine skip ahead fast;
# the boundary before "10." is checked in _dois().
_DOI_RE = re.compile(r"10\.\d{4,9}/[^\s\"'<>{}\[\]|\\^`]+")
_DOI_BOUNDARY = frozenset("./-_")
_TRAILING = ".,;:!?*_~'"

_ACCESSION_RE = re.compile(
    r"(?<![A-Za-z0-9])(?:GSE\d{3,}|[SED]R[RPX]\d{5,}|PRJ[NED][AB]\d{3,}|E-[A-Z]{4}-\d+|PXD\d{6}|EGA[SD]\d{11})"
    r"(?![A-Za-z0-9])"
)

# Every accession starts with one of D E G P S followed by an upper-case letter or '-': a
# single character-class scan rejects most text several times faster than _ACCESSION_RE.
_ACCESSION_HINT_RE = re.compile(r"[DEGPS][A-Z-][A-Z0-9]")


# The same hints for CodeUnit.word_text, a fraction of the source's length. Every
# accession holds three capitals in a row, which stay together in one word (GSE, SRR,
# PRJ, PXD, EGA, the MTAB of E-MTAB-1); the '-' of E-MTAB-style ones is dropped from the
# words, so those are found by "E-" in the source.
_CAPITALS_RE = re.compile(r"[A-Z][A-Z][A-Z]")
_ACCESSION_WORD_HINT_RE = re.compile(r"[DEGPS][A-Z][A-Z0-9]")


def _may_hold_pointer(text: str) -> bool:
    """A cheap test before the URL, DOI and accession patterns run."""
    if "://" in text:
        return True
    if "10." in text and _DOI_RE.search(text) is not None:
        return True
    return _ACCESSION_HINT_RE.search(text) is not None and _ACCESSION_RE.search(text) is not None


def _unit_may_hold_pointer(unit: CodeUnit) -> bool:
    """:func:`_may_hold_pointer` of the unit's source (the same answer), with the
    accession hints tried on the unit's words instead of the whole source."""
    source = unit.source
    if "://" in source:
        return True
    if "10." in source and _DOI_RE.search(source) is not None:
        return True
    words = unit.word_text
    if _CAPITALS_RE.search(words) is None:
        return False
    if _ACCESSION_WORD_HINT_RE.search(words) is None and "E-" not in source:
        return False
    return _ACCESSION_RE.search(source) is not None


# Registrant prefixes of data repositories (offline DOI classification, A2 V2 rule 3).
ARCHIVE_DOI_PREFIXES = frozenset({
    "10.5281",   # Zenodo
    "10.6084",   # figshare
    "10.5061",   # Dryad
    "10.17605",  # OSF
    "10.7910",   # Harvard Dataverse
    "10.5683",   # Borealis (Canadian Dataverse)
    "10.18710",  # DataverseNO
    "10.34894",  # DataverseNL
    "10.15454",  # Recherche Data Gouv (Dataverse)
    "10.11588",  # heiDATA (Dataverse)
    "10.17632",  # Mendeley Data
    "10.1594",   # PANGAEA
    "10.5255",   # UK Data Service
    "10.25914",  # named by METRICS.md A2 V2
    "10.4121",   # 4TU.ResearchData
    "10.17026",  # DANS
    "10.3886",   # ICPSR
    "10.5066",   # USGS ScienceBase data releases
    "10.5067",   # NASA Earthdata
    "10.5065",   # NCAR/UCAR data
    "10.24381",  # Copernicus Climate Data Store
    "10.5285",   # CEDA
    "10.15468",  # GBIF
    "10.13026",  # PhysioNet
    "10.18112",  # OpenNeuro
    "10.57967",  # Hugging Face
})
KAGGLE_DOI_PREFIX = "10.34740"

_ARCHIVE_HOSTS = ("zenodo.org", "figshare.com", "osf.io", "datadryad.org", "data.mendeley.com",
                  "pangaea.de", "ukdataservice.ac.uk", "data.4tu.nl", "openneuro.org", "physionet.org",
                  "icpsr.umich.edu", "openicpsr.org", "b2share.eudat.eu")
_INSTITUTIONAL_HOSTS = ("archive.ics.uci.edu", "ega-archive.org", "synapse.org", "openml.org")
_NCBI_DATA_PATHS = ("/geo/", "/sra/", "/bioproject/", "/biosample/")
_EBI_DATA_PATHS = ("/ena/", "/arrayexpress/", "/pride/")
_CODE_HOSTS = ("github.com", "gitlab.com", "bitbucket.org", "codeberg.org")
_BADGE_HOSTS = ("shields.io", "badge.fury.io", "badgen.net", "travis-ci.org", "travis-ci.com",
                "circleci.com", "codecov.io", "coveralls.io", "app.codacy.com", "api.codacy.com",
                "ci.appveyor.com", "pepy.tech", "static.pepy.tech")
# CI, documentation, package indexes, schemas and CDNs: never data pointers.
_NOT_DATA_HOSTS = ("pypi.org", "pythonhosted.org", "readthedocs.io", "readthedocs.org", "anaconda.org",
                   "cran.r-project.org", "bioconductor.org", "schemastore.org", "json-schema.org",
                   "cdn.jsdelivr.net", "unpkg.com", "cdnjs.cloudflare.com", "mybinder.org",
                   "colab.research.google.com", "localhost", "127.0.0.1", "0.0.0.0")

DATA_EXTENSIONS = frozenset({".csv", ".tsv", ".parquet", ".feather", ".h5", ".hdf5", ".nc", ".npy",
                             ".npz", ".rds", ".xlsx", ".xls", ".json", ".mat", ".fastq", ".fasta",
                             ".vcf", ".bam", ".nii"})
_COMPRESSION_SUFFIXES = (".tar.gz", ".gz", ".bz2", ".xz", ".zip")
_INSTALLER_SUFFIXES = (".sh", ".exe", ".deb", ".rpm", ".pkg", ".dmg", ".whl", ".msi", ".appimage",
                       ".gpg", ".asc")

_CITATION_HEADING_RE = re.compile(
    _ww(r"cit(?:e|es|ing|ation|ations)|references?|bibliography|bibtex|publications?"), re.IGNORECASE
)
_BIBTEX_START_RE = re.compile(r"^\s*@[A-Za-z]+\s*\{")
_RST_IMAGE_RE = re.compile(r"^\s*\.\.\s+(?:\|[^|]+\|\s+)?(?:image|figure)::", re.IGNORECASE)
_HTML_BADGE_ANCHOR_RE = re.compile(r"""<a\s[^>]*href\s*=\s*["']([^"']+)["'][^>]*>\s*<img""", re.IGNORECASE)
_OWN_RELATIONS = frozenset({"isidenticalto", "issupplementto", "isversionof", "hasversion",
                            "isnewversionof", "ispreviousversionof"})


def data_extension(name: str) -> str | None:
    """The data extension of a file or URL path name after stripping compression
    suffixes (§0.1.21): ``x.csv.gz`` -> ``.csv``; ``x.zip`` -> None."""
    lower = name.lower()
    if lower.endswith(_COMPRESSION_SUFFIXES):  # one test for the common uncompressed name
        for suffix in _COMPRESSION_SUFFIXES:
            if lower.endswith(suffix) and len(lower) > len(suffix):
                lower = lower[: -len(suffix)]
                break
    dot = lower.rfind(".")
    ext = lower[dot:] if dot > 0 else ""
    return ext if ext in DATA_EXTENSIONS else None


def _clean_url(url: str) -> str:
    """Drop sentence punctuation and Markdown emphasis glued to the end of a URL."""
    return url.rstrip(_TRAILING)


def _clean_doi(doi: str) -> str:
    while doi and (doi[-1] in ".,;:" or (doi[-1] == ")" and doi.count("(") < doi.count(")"))):
        doi = doi[:-1]
    return doi.lower()


def _split_url(url: str) -> tuple[str, str]:
    """(host without ``www.``, unquoted path); ("", "") when unparsable."""
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
    except ValueError:
        return "", ""
    if host.startswith("www."):
        host = host[4:]
    return host, unquote(parts.path)


def _host_is(host: str, *domains: str) -> bool:
    return any(host == d or host.endswith("." + d) for d in domains)


def _norm_url(url: str) -> str:
    """Scheme-less, lower-case form used to compare a URL with the repository's own."""
    text = re.sub(r"^[a-z+]+://", "", url.strip().lower())
    text = text.split("#", 1)[0].split("?", 1)[0]
    if text.startswith("www."):
        text = text[4:]
    text = text.rstrip("/")
    if text.endswith(".git"):
        text = text[:-4]
    match = re.match(r"raw\.githubusercontent\.com/([^/]+)/([^/]+)", text)
    if match:
        text = f"github.com/{match.group(1)}/{match.group(2)}" + text[match.end():]
    return text


@dataclass
class OwnIdentifiers:
    """The repository's own URLs and DOIs, which are never data pointers (§0.1.21)."""

    urls: set[str]
    dois: set[str]

    def is_own_url(self, url: str) -> bool:
        norm = _norm_url(url)
        for own in self.urls:
            if norm == own:
                return True
            # A host-only homepage must not swallow every link to that host.
            if "/" in own and norm.startswith(own + "/"):
                return True
        return False

    def add(self, value: Any) -> None:
        for text in _strings(value):
            text = text.strip()
            doi = _doi_of(text)
            if doi:
                self.dois.add(doi)
                record = re.fullmatch(r"10\.5281/zenodo\.(\d+)", doi)
                if record:
                    self.urls.update({f"zenodo.org/record/{record.group(1)}", f"zenodo.org/records/{record.group(1)}",
                                      f"zenodo.org/doi/{doi}"})
            elif re.match(r"(?:https?|git)://", text, re.IGNORECASE):
                norm = _norm_url(text)
                host, _, path = norm.partition("/")
                if host in _CODE_HOSTS and path.count("/") < 1:
                    continue  # a user or organisation page is not "the repository"
                self.urls.add(norm)
                record = re.match(r"zenodo\.org/records?/(\d+)", norm)
                if record:
                    self.dois.add(f"10.5281/zenodo.{record.group(1)}")


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for key in ("@id", "value", "identifier", "url"):
            if key in value:
                yield from _strings(value[key])


def _doi_of(text: str) -> str | None:
    match = re.match(r"^(?:doi:\s*|https?://(?:dx\.)?doi\.org/)?(10\.\d{4,9}/\S+)$", text.strip(), re.IGNORECASE)
    return _clean_doi(match.group(1)) if match else None


def own_identifiers(tree: TreeIndex) -> OwnIdentifiers:
    """Own URLs and DOIs from ``CITATION.cff``, ``codemeta.json``, ``.zenodo.json`` and
    ``pyproject.toml`` (``[project.urls]``, Poetry's URLs) at the root."""
    own = OwnIdentifiers(set(), set())
    cff = tree.find_ci("CITATION.cff")
    if cff and tree.is_file(cff):
        data = _guarded(tree, cff, "reading CITATION.cff", lambda: tree.yaml(cff), None)
        if isinstance(data, dict):
            for key in ("doi", "url", "repository", "repository-code", "repository-artifact"):
                own.add(data.get(key))
            identifiers = data.get("identifiers")
            for ident in identifiers if isinstance(identifiers, list) else []:
                if isinstance(ident, dict):
                    own.add(ident.get("value"))
    codemeta = tree.find_ci("codemeta.json")
    if codemeta and tree.is_file(codemeta):
        data = _guarded(tree, codemeta, "reading codemeta.json", lambda: tree.json(codemeta), None)
        if isinstance(data, dict):
            for key in ("@id", "id", "identifier", "codeRepository", "url", "downloadUrl", "sameAs", "issueTracker"):
                own.add(data.get(key))
    zenodo = tree.find_ci(".zenodo.json")
    if zenodo and tree.is_file(zenodo):
        data = _guarded(tree, zenodo, "reading .zenodo.json", lambda: tree.json(zenodo), None)
        if isinstance(data, dict):
            own.add(data.get("doi"))
            own.add(data.get("conceptdoi"))
            related = data.get("related_identifiers")
            for item in related if isinstance(related, list) else []:
                if isinstance(item, dict) and str(item.get("relation", "")).lower() in _OWN_RELATIONS:
                    own.add(item.get("identifier"))
    pyproject = tree.find_ci("pyproject.toml")
    if pyproject and tree.is_file(pyproject):
        data = _guarded(tree, pyproject, "reading pyproject.toml", lambda: tree.toml(pyproject), None)
        if isinstance(data, dict):
            project = data.get("project") if isinstance(data.get("project"), dict) else {}
            urls = project.get("urls")
            if isinstance(urls, dict):
                own.add([v for v in urls.values() if isinstance(v, str)])
            tool = data.get("tool") if isinstance(data.get("tool"), dict) else {}
            poetry = tool.get("poetry") if isinstance(tool.get("poetry"), dict) else {}
            for key in ("homepage", "repository", "documentation"):
                own.add(poetry.get(key))
            if isinstance(poetry.get("urls"), dict):
                own.add([v for v in poetry["urls"].values() if isinstance(v, str)])
    return own


@dataclass(frozen=True)
class _Context:
    data: bool        # a data section, a DATA document, or code
    citation: bool    # a citation section or a BibTeX entry
    badge_urls: frozenset[str] = frozenset()   # badge URLs on this line (raw and normalised)


@dataclass(frozen=True)
class Pointer:
    value: int
    rule: str
    target: str
    reason: str


class _PointerScan:
    """Collects pointers (with their locations) and counts what was ignored."""

    def __init__(self, own: OwnIdentifiers):
        self.own = own
        self.found: list[tuple[Pointer, str, int | None, int | None]] = []
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
        for doi in _dois(rest):
            self.add(classify_doi(doi, ctx, self.own), path, line, cell)
        if ctx.data:
            for match in _ACCESSION_RE.finditer(rest):
                self.add(Pointer(80, "data_pointer.accession", match.group(0),
                                 f"accession number {match.group(0)} in a data context"), path, line, cell)


def _dois(text: str) -> Iterator[str]:
    """Bare DOIs (``10.NNNN/…``) not glued to a preceding word, number or path."""
    for match in _DOI_RE.finditer(text):
        start = match.start()
        before = text[start - 1] if start else " "
        if not (before.isalnum() or before in _DOI_BOUNDARY):
            yield _clean_doi(match.group(0))


def classify_doi(doi: str, ctx: _Context, own: OwnIdentifiers) -> Pointer | str:
    """A DOI by registrant prefix (A2 V2 rule 3); a string names why it was ignored."""
    if doi in own.dois:
        return "own"
    if ctx.citation and not ctx.data:
        return "citation"
    prefix = doi.split("/", 1)[0]
    if prefix in ARCHIVE_DOI_PREFIXES:
        return Pointer(100, "data_pointer.archival_doi", doi, f"DOI {doi} of a data repository")
    if prefix == KAGGLE_DOI_PREFIX:
        return Pointer(75, "data_pointer.kaggle", doi, f"Kaggle dataset DOI {doi}")
    if ctx.data:
        return Pointer(60, "data_pointer.doi_in_data_context", doi,
                       f"DOI {doi} (persistent, not a data archive) in a data context")
    return "doi_outside_data_context"


def _is_badge(host: str, path: str) -> bool:
    lower = path.lower()
    return _host_is(host, *_BADGE_HOSTS) or "/badge" in lower or lower.endswith("badge.svg")


def classify_url(url: str, ctx: _Context, own: OwnIdentifiers) -> Pointer | str:
    """One URL as a data pointer (A2 V2 rules 2 and 4); a string names why it was ignored."""
    host, path = _split_url(url)
    if not host:
        return "unparsable_url"
    if url in ctx.badge_urls or _norm_url(url) in ctx.badge_urls or _is_badge(host, path):
        return "badge"
    if own.is_own_url(url):
        return "own"
    if host in ("doi.org", "dx.doi.org"):
        doi = _clean_doi(path.lstrip("/"))
        return classify_doi(doi, ctx, own) if doi.startswith("10.") else "not_data"
    if ctx.citation and not ctx.data:
        return "citation"
    lower = path.lower()
    if _host_is(host, *_ARCHIVE_HOSTS) or "dataverse" in host.split(".") or (
        _host_is(host, "mendeley.com") and lower.startswith("/datasets")
    ):
        return Pointer(100, "data_pointer.archival_host", url, f"data archive URL ({host})")
    if _host_is(host, "ncbi.nlm.nih.gov"):
        if host.startswith(("pubmed.", "pmc.")) or "/pmc/" in lower or "/pubmed" in lower:
            return "not_data"
        if host.startswith(("ftp.", "sra", "geo")) or any(p in lower + "/" for p in _NCBI_DATA_PATHS):
            return Pointer(80, "data_pointer.institutional_host", url, f"institutional data archive URL ({host})")
        return "not_data"
    if _host_is(host, "ebi.ac.uk"):
        if host.startswith("ftp.") or any(p in lower + "/" for p in _EBI_DATA_PATHS):
            return Pointer(80, "data_pointer.institutional_host", url, f"institutional data archive URL ({host})")
        return "not_data"
    if (_host_is(host, "huggingface.co", "hf.co") and lower.startswith("/datasets/")) or _host_is(host, *_INSTITUTIONAL_HOSTS):
        return Pointer(80, "data_pointer.institutional_host", url, f"institutional data archive URL ({host})")
    if _host_is(host, "kaggle.com") and lower.startswith("/datasets/"):
        return Pointer(75, "data_pointer.kaggle", url, "Kaggle dataset URL")
    code_host = _code_host_pointer(url, host, path)
    if code_host is not None:
        return code_host
    if _host_is(host, *_NOT_DATA_HOSTS) or lower.endswith("schema.json"):
        return "not_data"
    if data_extension(lower.rsplit("/", 1)[-1]):
        return Pointer(40, "data_pointer.direct_url", url, "direct URL of a data file")
    return "not_data"


def _code_host_pointer(url: str, host: str, path: str) -> Pointer | str | None:
    """Code-host links count only for data: raw/blob data files, release assets, LFS
    media, or repositories named as data (``owner/xyz-data``)."""
    lower = path.lower()
    if host in ("raw.githubusercontent.com", "gist.githubusercontent.com", "media.githubusercontent.com"):
        if host == "media.githubusercontent.com" or data_extension(lower.rsplit("/", 1)[-1]):
            return Pointer(60, "data_pointer.code_host", url, "data file on a code host")
        return "code_host_not_data"
    if host == "objects.githubusercontent.com":
        return Pointer(60, "data_pointer.code_host", url, "release asset on a code host")
    if not _host_is(host, *_CODE_HOSTS):
        return None
    segments = [s for s in lower.split("/") if s]
    if "/releases/download/" in lower and not lower.endswith(_INSTALLER_SUFFIXES):
        return Pointer(60, "data_pointer.code_host", url, "release asset on a code host")
    if {"raw", "blob", "src"} & set(segments[2:4] + segments[3:5]) and data_extension(segments[-1] if segments else ""):
        return Pointer(60, "data_pointer.code_host", url, "data file on a code host")
    if len(segments) >= 2:
        repo = segments[1].removesuffix(".git")
        if {"data", "dataset", "datasets"} & set(re.split(r"[-_.]", repo)):
            return Pointer(60, "data_pointer.code_host", url, f"data repository on a code host ({segments[0]}/{repo})")
    return "code_host_not_data"


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


def _document_badges(doc: Document) -> tuple[dict[int, frozenset[str]], set[int]]:
    """Badge URLs per line (image links, links wrapping an image, HTML anchors around an
    ``<img>``, and reference definitions used by a badge) and RST image-directive lines.

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
    return {n: frozenset(u) for n, u in by_line.items()}, lines


def _scan_document(tree: TreeIndex, path: str, doc: Document, scan: _PointerScan, *, data_doc: bool) -> None:
    # Only lines that may hold a pointer matter (a badge line counts its URLs, which hold
    # "://"); the line contexts are built only for documents that have such lines.
    candidates = [(number, raw) for number, raw in enumerate(doc.raw_lines, start=1) if _may_hold_pointer(raw)]
    if not candidates:
        return
    badges_by_line, badge_lines = _document_badges(doc)
    data_ranges = [(s.line_start, s.line_end) for s in doc.sections if is_data_heading(s.heading.text)]
    cite_ranges = [(s.line_start, s.line_end) for s in doc.sections if _CITATION_HEADING_RE.search(s.heading.text)]
    cite_ranges += [(b.line_start, b.line_end) for b in doc.code_blocks if b.info.lower() in ("bibtex", "bib", "biblatex")]
    bibtex = _bibtex_lines(doc.raw_lines)
    locate = _cell_locator(tree, path)
    for number, raw in candidates:
        if number in badge_lines:
            if "://" in raw:
                scan.ignored["badge"] += len(_URL_RE.findall(raw))
            continue
        data = data_doc or _ranges_contain(data_ranges, number)
        citation = number in bibtex or _ranges_contain(cite_ranges, number)
        line, cell = locate(number)
        scan.scan_text(raw, _Context(data, citation, badges_by_line.get(number, frozenset())), path, line, cell)


_CODE_CONTEXT = _Context(data=True, citation=False)


def _scan_code(tree: TreeIndex, scan: _PointerScan) -> None:
    """String literals of Python units, and the non-comment lines of other scripts,
    Make-like files, workflow files and notebook shell/R/Julia cells."""
    for unit in _python_units(tree):
        # Most code holds no URL, DOI or accession: skip its AST walk.
        if not _unit_may_hold_pointer(unit):
            continue
        cell, offset = _unit_cell(unit)
        literals = _guarded(tree, unit.path, "reading string literals", lambda u=unit: u.string_literals, [])
        for literal in literals:
            value = literal.value
            if len(value) > 2000:
                value = value[:2000]
            scan.scan_text(value, _CODE_CONTEXT, unit.path, literal.line_start + offset, cell)
    for path in _script_files(tree):
        # No pattern crosses a line break, so a file whose text cannot hold a pointer has
        # no line that can: one test skips most files.
        if not _may_hold_pointer(tree.text(path) or ""):
            continue
        for number, line in enumerate(tree.lines(path), start=1):
            if not line.lstrip().startswith(("#", "//")):
                scan.scan_text(line, _CODE_CONTEXT, path, number, None)
    for cell_line in _notebook_code_lines(tree):
        scan.scan_text(cell_line.text, _CODE_CONTEXT, cell_line.path, cell_line.line, cell_line.cell)


def _unit_cell(unit: CodeUnit) -> tuple[int | None, int]:
    """(cell, line offset) for evidence: notebook cells name the cell; R Markdown chunks
    report file lines."""
    if unit.cell is not None and unit.path.lower().endswith(".ipynb"):
        return unit.cell, 0
    return None, unit.line_offset


_WORKFLOW_SUFFIXES = (".smk", ".nf", ".wdl")


def _is_workflow_file(path: str) -> bool:
    lower = _name(path).lower()
    return lower == "snakefile" or lower.startswith("snakefile.") or lower == "dvc.yaml" or lower.endswith(_WORKFLOW_SUFFIXES)


def _script_files(tree: TreeIndex) -> list[str]:
    """Non-Python scripts scanned as lines: shell, R, Julia, Make-like and workflow files."""
    found: list[str] = []
    for kind in ("shell", "r", "julia"):
        found.extend(tree.by_type(kind))
    found.extend(p for p in tree.make_like_files() if not p.lower().endswith(".py"))
    for path in tree.files:
        if _is_workflow_file(path):
            info = tree.info(path)
            if info is not None and info.alias_of is None:
                found.append(path)
    return sorted(set(found))


@dataclass(frozen=True)
class _CellLine:
    path: str
    line: int           # line within the cell (.ipynb) or within the file (.Rmd/.qmd)
    cell: int | None
    text: str
    language: str       # shell | r | julia | other


def _notebook_code_lines(tree: TreeIndex) -> Iterator[_CellLine]:
    """Shell magics and the lines of R / Julia / other non-Python code cells of notebooks
    and R Markdown documents (Python cells are read as code units)."""
    for path in tree.by_type("notebook") + tree.by_type("rmd"):
        nb = _notebook(tree, path)
        if nb is None:
            continue
        is_ipynb = path.lower().endswith(".ipynb")
        for cell in nb.code_cells:
            offset = 0 if is_ipynb else cell.line_offset
            cell_index = cell.index if is_ipynb else None
            for magic in cell.magics:
                command = magic.shell_command
                if command:
                    yield _CellLine(path, magic.line + offset, cell_index, command, "shell")
            if cell.language in ("r", "julia", "other"):
                for number, text in enumerate(cell.source.splitlines(), start=1):
                    if text.strip() and not text.lstrip().startswith("#"):
                        yield _CellLine(path, number + offset, cell_index, text, cell.language)


_CONFIG_JSON_RE = re.compile(
    r"package.*\.json|tsconfig.*\.json|codemeta\.json|\.zenodo\.json|citation\.json|.*\.schema\.json|"
    r"renovate\.json|composer\.json|lerna\.json|angular\.json|vercel\.json|app\.json|manifest\.json|"
    r"\.?eslintrc.*\.json|.*config.*\.json|.*settings.*\.json|jsconfig\.json|bower\.json|.*\.code-workspace",
    re.IGNORECASE,
)
_CONFIG_DIRS = frozenset({"config", "configs", "conf", "settings", ".vscode", ".github", ".devcontainer"})
_DATA_DIRS = frozenset({"data", "raw", "datasets", "dataset"})


def local_data_files(tree: TreeIndex) -> list[str]:
    """Data-extension files outside dot paths and configuration roles (A2 V2 rule 5).

    A ``.json`` file counts only under a data folder (``data/``, ``input*/``, ``raw/``,
    ``datasets/``) or when larger than 1 KiB and not a known configuration name.
    """
    found = []
    for path in tree.files:
        ext = data_extension(_name(path))
        if ext is None:
            continue
        parts = path.split("/")
        if any(part.startswith(".") for part in parts):
            continue
        dirs = [p.lower() for p in parts[:-1]]
        if ext == ".json":
            in_data_dir = any(d in _DATA_DIRS or d.startswith("input") for d in dirs)
            if not in_data_dir:
                info = tree.info(path)
                if info is None or info.size <= 1024 or _CONFIG_JSON_RE.fullmatch(parts[-1]) or _CONFIG_DIRS & set(dirs):
                    continue
        found.append(path)
    return found


@detector("data_pointer", version="2.0.0")
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
        PANGAEA 10.1594, UKDS 10.5255, …) or an archive host URL (zenodo.org,
        figshare.com, osf.io, datadryad.org, a Dataverse, data.mendeley.com, pangaea.de…).
        80 institutional: NCBI/EBI URLs on data paths (``/geo/``, ``/sra/``,
        ``/bioproject/``, ``/biosample/``, ``ftp.ncbi…``, ``/ena/``, ``/arrayexpress/``,
        ``/pride/``; never PubMed/PMC), Hugging Face datasets, UCI, EGA, PhysioNet,
        Synapse, OpenML; accession numbers (GSE, SRR/SRP/SRX, PRJNA…, E-MTAB-…, PXD, EGAS/
        EGAD) in a data context. 75 kaggle: ``kaggle.com/datasets`` or a Kaggle DOI.
        60 code_host: raw/blob data files, release assets, LFS media or data-named
        repositories on GitHub/GitLab/Bitbucket; also a non-archive DOI in a data
        context. 40 direct_url: any other URL of a data file (the extension is matched
        after stripping ``.gz .bz2 .xz .zip .tar.gz``). 25 local_file: a data file in the
        tree (``.csv .tsv .parquet .feather .h5 .hdf5 .nc .npy .npz .rds .xlsx .json…``),
        dot paths and configuration files excluded; ``.json`` only under a data folder or
        above 1 KiB and not a known configuration name.
        Ignored: badges (image and link target), the repository's own URLs and DOIs (from
        ``CITATION.cff``, ``codemeta.json``, ``.zenodo.json``, ``[project.urls]``), CI,
        documentation and package-index links, code-host links that are not data, and any
        pointer in a citation section or BibTeX entry unless it is also in a data context
        (a README data section, a data document, or code).
    Why it matters:
        A persistent, archived copy of the data is what lets a third party rerun the
        analysis years later; a link to a code repository or a file on the author's
        disk is not.
    Evidence:
        Each pointer with its file, line (and notebook cell) and the URL, DOI, accession or
        path; ``counts`` per class and the numbers of ignored badges, own identifiers,
        citations and DOIs outside a data context.
    How to fix:
        Deposit the data in Zenodo, Figshare or a domain archive and cite its DOI in
        DATA.md or the README's data section.
    Known false positives:
        Any archive URL or data-repository DOI outside a citation block counts, even one
        that points to someone else's software deposit on Zenodo; a string literal in code
        is always a data context, so a DOI or URL printed by a plotting script counts; a
        ``.csv`` of results in the tree scores 25 as "local data". Data files bundled as
        bare archives (``data.zip``) are not recognised by name.
    """
    own = own_identifiers(tree)
    scan = _PointerScan(own)
    docs: list[tuple[str, bool]] = [(p, True) for p in data_docs(tree)]
    if tree.readme and tree.readme not in {p for p, _ in docs}:
        docs.append((tree.readme, False))
    for path in tree.by_type("notebook"):
        nb = _notebook(tree, path) if path != tree.readme else None
        # Parse a notebook's markdown only when some cell could hold a pointer (tested on
        # the cells joined by a line break, which no pattern crosses).
        if nb is not None and _may_hold_pointer("\n".join(c.source for c in nb.markdown_cells)):
            docs.append((path, False))
    for path in tree.by_type("rmd"):
        # R Markdown / Quarto prose; its code chunks are read again as code (same file
        # lines, so a pointer found twice is recorded once).
        if _may_hold_pointer(tree.text(path) or ""):
            docs.append((path, False))
    for path, is_data_doc in docs:
        doc = _document(tree, path)
        if doc is not None:
            _guarded(tree, path, "scanning for data pointers",
                     lambda p=path, d=doc, f=is_data_doc: _scan_document(tree, p, d, scan, data_doc=f), None)
    _scan_code(tree, scan)

    local = local_data_files(tree)
    pointers = sorted(scan.found, key=lambda item: (-item[0].value, item[1], item[3] or 0, item[2] or 0))
    by_rule = Counter(p.rule.split(".", 1)[1] for p, *_ in pointers)
    counts: dict[str, Any] = {
        "pointers": len(pointers),
        "archival": by_rule["archival_doi"] + by_rule["archival_host"],
        "institutional": by_rule["institutional_host"] + by_rule["accession"],
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
    }
    evidence = [
        Evidence(path, pointer.reason, rule=pointer.rule, line_start=line, snippet=pointer.target, cell=cell)
        for pointer, path, line, cell in pointers[:MAX_EVIDENCE]
    ]
    value = pointers[0][0].value if pointers else 0
    if value < 25 and local:
        value = 25
    if value <= 25:
        evidence += [Evidence(p, "data file in the tree", rule="data_pointer.local_file")
                     for p in local[: MAX_EVIDENCE - len(evidence)]]
    if value == 0:
        return Result(0, level="absent", evidence=evidence, counts=counts,
                      reason="no data URL, DOI, accession number or data file found",
                      fix="Deposit the data in Zenodo or Figshare (or a domain archive) and cite its DOI "
                          "in DATA.md or a '## Data' section of the README.")
    reason = pointers[0][0].reason if pointers and pointers[0][0].value == value else "data files in the tree"
    fix = None if value == 100 else (
        "Deposit the data in Zenodo or Figshare (or a domain archive) and cite its DOI "
        "in DATA.md or a '## Data' section of the README."
    )
    return Result(value, level=A2_LEVELS[value], evidence=evidence, counts=counts, reason=reason, fix=fix)


# =========================================================================== A3

_PIPELINE_DRIVER_RE = re.compile(r"(?:run_all|pipeline|workflow|run_pipeline|run_analysis)\.(?:py|r|sh|jl)", re.IGNORECASE)

# (engine, pattern of the lower-case file name, locator regex for the first rule/process line)
_ENGINES: tuple[tuple[str, str, re.Pattern[str] | None], ...] = (
    ("snakemake", r"snakefile(?:\..*)?|.*\.smk", re.compile(r"^\s*(?:rule|checkpoint)\s+\w+\s*:")),
    ("nextflow", r".*\.nf|nextflow\.config", re.compile(r"^\s*(?:process|workflow)\b")),
    ("cwl", r".*\.cwl", re.compile(r"^\s*class\s*:\s*Workflow\b")),
    ("wdl", r".*\.wdl", re.compile(r"^\s*(?:workflow|task)\s+\w+")),
    ("dvc", r"dvc\.yaml", re.compile(r"^\s*stages\s*:")),
    ("galaxy", r".*\.ga", None),
    ("targets", r"_targets\.r", re.compile(r"\btar_target\s*\(")),
)
# All name patterns in one: a single match per file names the first engine (in table
# order) whose pattern the name matches.
_ENGINE_NAME_RE = re.compile("|".join(f"(?P<{engine}>{pattern})" for engine, pattern, _ in _ENGINES), re.DOTALL)
_ENGINE_LOCATORS = {engine: locator for engine, _, locator in _ENGINES}

_ENGINE_MODULES = ("airflow", "luigi", "prefect")
_ENGINE_IMPORT_HINT_RE = re.compile(rf"^\s*(?:from|import)\s+(?:{'|'.join(_ENGINE_MODULES)})\b", re.MULTILINE)
_AIRFLOW_DAG_CALLS = re.compile(r"^airflow(?:\.models(?:\.dag)?|\.sdk)?\.DAG$|^airflow(?:\.decorators|\.sdk)?\.dag$")
_PREFECT_FLOW = re.compile(r"^prefect(?:\.flows)?\.(?:flow|Flow)$")
_LUIGI_TASK = re.compile(r"^luigi(?:\.\w+)*\.\w*Task$")


@detector("workflow_orchestration", version="2.0.0")
def workflow_orchestration(tree: TreeIndex) -> Result:
    """The analysis is driven by a declared workflow: an engine, a Make-like file or a pipeline script.

    What it checks:
        The highest tier found (METRICS.md A3 V2, §0.1.14):
        100 workflow_engine: Snakemake (``Snakefile`` anywhere, ``*.smk``), Nextflow
        (``*.nf``, ``nextflow.config``), CWL (``*.cwl``), WDL (``*.wdl``), ``dvc.yaml``
        (bare ``*.dvc`` data-tracking files do not count), a Galaxy workflow (``*.ga``
        holding ``a_galaxy_workflow``), R targets (``_targets.R``), a Kedro project
        (``[tool.kedro]`` in pyproject.toml, or ``conf/base/`` with ``kedro`` declared),
        an Airflow DAG, a Luigi task class or a Prefect flow (Python, resolved through
        imports).
        80 makefile: a Make-like file (``Makefile`` in any case, ``GNUmakefile``,
        ``justfile``, ``Taskfile.yml``, invoke ``tasks.py``, doit ``dodo.py``) at the root
        or in an environment location, with at least one rule.
        70 pipeline_script: ``run_all``, ``pipeline``, ``workflow``, ``run_pipeline`` or
        ``run_analysis`` with extension ``.py``, ``.R``, ``.sh`` or ``.jl`` at the top
        level or in ``scripts/``.
    Why it matters:
        A declared workflow records the order of the analysis steps and their inputs and
        outputs, so the whole analysis can be rerun with one command.
    Evidence:
        The engine files (with the line of the first rule or process where one is found),
        the Make-like file with the line of its first rule, or the driver script.
        ``counts`` holds the numbers of engine files, Make-like files with rules, rules,
        and driver scripts.
    How to fix:
        Describe the pipeline in a Snakefile (or a Nextflow/CWL workflow, or ``dvc.yaml``
        stages) that runs every step from raw data to figures; at least add a Makefile
        whose targets run the scripts in order.
    Known false positives:
        A Makefile with only development targets (``test``, ``lint``, ``docs``) counts as
        80; a CWL tool description or a vendored ``*.nf`` module counts as an engine; a
        ``pipeline.py`` that is a library module, not a driver, counts as 70.
    """
    counts: dict[str, Any] = {"engine_files": 0, "make_like_files": 0, "make_rules": 0, "pipeline_scripts": 0}
    engine_evidence = _engine_files(tree)
    engine_evidence += _python_engines(tree)
    kedro = _kedro_evidence(tree)
    if kedro:
        engine_evidence.append(kedro)
    counts["engine_files"] = len(engine_evidence)

    make_evidence: list[Evidence] = []
    for path in tree.make_like_files():
        targets = _guarded(tree, path, "parsing the task file", lambda p=path: tree.task_targets(p), [])
        if _name(path).lower() == "tasks.py" and not _imports(tree, path, "invoke"):
            continue  # celery/other task modules are not invoke task files
        if not targets:
            continue
        counts["make_like_files"] += 1
        counts["make_rules"] += len(targets)
        first = targets[0]
        make_evidence.append(Evidence(
            path, f"Make-like file with {len(targets)} rule(s), first '{first.name}'",
            rule="workflow_orchestration.make_like", line_start=first.line,
            snippet=_line_text(tree, path, first.line),
        ))

    drivers = [p for p in tree.files_in("") if _PIPELINE_DRIVER_RE.fullmatch(_name(p))]
    for folder in tree.subdirs(""):
        if _name(folder).lower() == "scripts":
            drivers += [p for p in tree.files_in(folder) if _PIPELINE_DRIVER_RE.fullmatch(_name(p))]
    counts["pipeline_scripts"] = len(drivers)
    driver_evidence = [Evidence(p, "pipeline driver script", rule="workflow_orchestration.pipeline_script")
                       for p in drivers]

    if engine_evidence:
        value, level, reason = 100, "workflow_engine", engine_evidence[0].reason
    elif make_evidence:
        value, level, reason = 80, "makefile", make_evidence[0].reason
    elif driver_evidence:
        value, level, reason = 70, "pipeline_script", f"pipeline driver script {drivers[0]}"
    else:
        return Result(0, level="absent", counts=counts, reason="no workflow engine file, Make-like file with rules, or pipeline driver",
                      fix="Add a Snakefile (or a Makefile) whose rules run every analysis step from raw data to results.")
    evidence = (engine_evidence + make_evidence + driver_evidence)[:MAX_EVIDENCE]
    fix = None
    if value == 80:
        fix = f"Declare the steps of {make_evidence[0].path} as a Snakefile or dvc.yaml pipeline with explicit inputs and outputs."
    elif value == 70:
        fix = f"Replace {drivers[0]} by a Snakefile (or a Makefile) whose rules run each analysis step."
    return Result(value, level=level, evidence=evidence, counts=counts, reason=reason, fix=fix)


def _line_text(tree: TreeIndex, path: str, line: int | None) -> str | None:
    if not line:
        return None
    lines = tree.lines(path)
    return lines[line - 1] if 0 < line <= len(lines) else None


def _imports(tree: TreeIndex, path: str, module: str) -> bool:
    unit = _guarded(tree, path, "parsing Python", lambda: tree.python_unit(path), None)
    return bool(unit) and any(ref.top == module for ref in unit.imports)


def _engine_files(tree: TreeIndex) -> list[Evidence]:
    found: list[Evidence] = []
    for path in tree.files:
        match = _ENGINE_NAME_RE.fullmatch(_name(path).lower())
        if match is None:
            continue
        engine = match.lastgroup
        if engine == "galaxy" and "a_galaxy_workflow" not in (tree.text(path) or ""):
            continue
        locator = _ENGINE_LOCATORS[engine]
        line = None
        if locator is not None and len(found) < MAX_EVIDENCE:
            for number, text in enumerate(tree.lines(path), start=1):
                if locator.search(text):
                    line = number
                    break
        found.append(Evidence(path, f"{engine} workflow file", rule=f"workflow_orchestration.{engine}",
                              line_start=line, snippet=_line_text(tree, path, line)))
    return found


def _python_engines(tree: TreeIndex) -> list[Evidence]:
    """Airflow DAGs, Luigi task classes and Prefect flows, resolved through imports."""
    found: list[Evidence] = []
    for unit in _python_units(tree):
        # The module names are words of the source: testing the unit's words first spares
        # the line-anchored pattern a scan of nearly every source.
        words = unit.word_text
        if not any(module in words for module in _ENGINE_MODULES) or not _ENGINE_IMPORT_HINT_RE.search(unit.source):
            continue
        tops = {ref.top for ref in unit.imports}
        if not tops.intersection(_ENGINE_MODULES) or unit.tree is None:
            continue
        hit = _guarded(tree, unit.path, "reading workflow definitions", lambda u=unit: _python_engine_hit(u), None)
        if hit:
            engine, line = hit
            cell, offset = _unit_cell(unit)
            found.append(Evidence(unit.path, f"{engine} workflow definition", rule=f"workflow_orchestration.{engine}",
                                  line_start=line + offset, snippet=_unit_line(unit, line), cell=cell))
    return found


def _unit_line(unit: CodeUnit, line: int) -> str | None:
    return unit.lines[line - 1] if 0 < line <= len(unit.lines) else None


def _resolve(unit: CodeUnit, written: str) -> str:
    head, _, rest = written.partition(".")
    resolved = unit.aliases.get(head, head)
    return f"{resolved}.{rest}" if rest else resolved


def _python_engine_hit(unit: CodeUnit) -> tuple[str, int] | None:
    for call in unit.calls:
        if _AIRFLOW_DAG_CALLS.match(call.name):
            return "airflow", call.line
        if _PREFECT_FLOW.match(call.name):
            return "prefect", call.line
    for node in ast.walk(unit.tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for deco in node.decorator_list:
                name = _resolve(unit, dotted_name(deco.func if isinstance(deco, ast.Call) else deco))
                if _AIRFLOW_DAG_CALLS.match(name):
                    return "airflow", deco.lineno
                if _PREFECT_FLOW.match(name):
                    return "prefect", deco.lineno
        elif isinstance(node, ast.ClassDef):
            for base in node.bases:
                if _LUIGI_TASK.match(_resolve(unit, dotted_name(base))):
                    return "luigi", node.lineno
    return None


def _kedro_evidence(tree: TreeIndex) -> Evidence | None:
    pyproject = tree.find_ci("pyproject.toml")
    if pyproject and tree.is_file(pyproject):
        data = _guarded(tree, pyproject, "reading pyproject.toml", lambda: tree.toml(pyproject), None)
        tool = data.get("tool") if isinstance(data, dict) else None
        if isinstance(tool, dict) and "kedro" in tool:
            line = next((n for n, t in enumerate(tree.lines(pyproject), start=1) if t.strip().startswith("[tool.kedro")), None)
            return Evidence(pyproject, "Kedro project ([tool.kedro])", rule="workflow_orchestration.kedro",
                            line_start=line, snippet=_line_text(tree, pyproject, line))
    if not tree.is_dir("conf/base"):
        return None
    manifests = _guarded(tree, "", "reading manifests", tree.manifests, [])
    for manifest in manifests:
        for dep in manifest.dependencies:
            if dep.normalized == "kedro":
                return Evidence(dep.file or manifest.path, "Kedro project (conf/base and a kedro dependency)",
                                rule="workflow_orchestration.kedro", line_start=dep.line, snippet=dep.raw)
    return None


# =========================================================================== A4

_URL_START_RE = re.compile(r"^(?:https?|ftp)://", re.IGNORECASE)
_INSTALLER_HOSTS = ("repo.anaconda.com", "repo.continuum.io", "get.docker.com", "install.python-poetry.org",
                    "astral.sh", "sh.rustup.rs", "bootstrap.pypa.io", "micro.mamba.pm", "pixi.sh",
                    "deb.nodesource.com", "rpm.nodesource.com", "get.sdkman.io")
_INSTALLER_NAME_RE = re.compile(r"(?:miniconda|miniforge|mambaforge|anaconda3|get-pip\.py)", re.IGNORECASE)
# Programs that consume a download as an installer or a signing key rather than as data.
_INTERPRETERS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish", "python", "python2", "python3",
                           "perl", "ruby", "node", "php", "Rscript", "apt-key", "gpg"})
_DOWNLOADERS = frozenset({"wget", "curl", "aria2c"})
_CURL_UPLOAD_FLAGS = frozenset({"-d", "--data", "--data-binary", "--data-raw", "--data-urlencode", "-F", "--form",
                                "-T", "--upload-file"})
_SRA_TOOLS = frozenset({"prefetch", "fasterq-dump", "fastq-dump"})


def is_installer_url(url: str) -> bool:
    """Installer downloads are environment setup, not data (§0.1.22)."""
    host, path = _split_url(url)
    lower = path.lower()
    return (
        _host_is(host, *_INSTALLER_HOSTS)
        or lower.endswith(_INSTALLER_SUFFIXES)
        or bool(_INSTALLER_NAME_RE.search(lower))
        or (host == "github.com" and lower.startswith("/conda-forge/miniforge/"))
    )


def _is_local_url(url: str) -> bool:
    host, _ = _split_url(url)
    return host in ("localhost", "127.0.0.1", "0.0.0.0") or not host


@dataclass(frozen=True)
class Download:
    rule: str
    reason: str
    installer: bool = False   # an installer URL or a pipe into an interpreter: recorded, not counted


def shell_download(commands: list[Command], own: OwnIdentifiers | None = None) -> Download | None:
    """The data download performed by one shell line (its simple commands), if any; an
    installer download is returned only when the line holds no data download."""
    installer: Download | None = None
    for index, cmd in enumerate(commands):
        program = cmd.program
        args = list(cmd.args)
        if program in _DOWNLOADERS:
            urls = [a for a in args if _URL_START_RE.match(a)]
            if not urls or all(_is_local_url(u) for u in urls):
                continue
            if program == "curl" and (_CURL_UPLOAD_FLAGS & set(args) or _curl_writes(args)):
                continue
            reader = commands[index + 1] if index + 1 < len(commands) else None
            if reader is not None and reader.piped_from and reader.program in _INTERPRETERS:
                installer = installer or Download(
                    "data_acquisition_script.installer_ignored",
                    f"{program} output piped into {reader.program} (an installer or key)", installer=True)
                continue
            data_urls = [u for u in urls if not is_installer_url(u)]
            if not data_urls:
                installer = installer or Download(
                    "data_acquisition_script.installer_ignored", f"{program} of an installer URL", installer=True)
                continue
            return Download("data_acquisition_script.shell_download", f"{program} downloads {data_urls[0]}")
        tool = _download_tool(program, args, own)
        if tool:
            return Download("data_acquisition_script.download_tool", tool)
    return installer


def _curl_writes(args: list[str]) -> bool:
    """``curl -X POST/PUT`` sends data rather than fetching it."""
    for i, arg in enumerate(args):
        if arg in ("-X", "--request") and i + 1 < len(args) and args[i + 1].upper() in ("POST", "PUT", "PATCH", "DELETE"):
            return True
    return False


def _positional(args: list[str]) -> list[str]:
    return [a for a in args if not a.startswith("-")]


def _download_tool(program: str, args: list[str], own: OwnIdentifiers | None) -> str | None:
    words = _positional(args)
    first = words[0] if words else ""
    if program == "zenodo_get":
        return "zenodo_get fetches a Zenodo record"
    if program == "osf" and {"clone", "fetch"} & set(words):
        return "osf client fetches an OSF project"
    if program == "kaggle" and len(words) >= 2 and words[0] in ("datasets", "d", "competitions", "c") and words[1] == "download":
        return "kaggle CLI downloads a dataset"
    if program == "dvc" and first in ("pull", "get", "import", "import-url", "fetch"):
        return f"dvc {first} fetches tracked data"
    if program == "datalad" and first in ("get", "clone", "install", "download-url"):
        return f"datalad {first} fetches data"
    if program in _SRA_TOOLS:
        return f"SRA toolkit {program} fetches sequencing runs"
    if program == "aws" and len(words) >= 3 and words[0] == "s3" and words[1] in ("cp", "sync") and words[2].startswith("s3://"):
        return f"aws s3 {words[1]} from a bucket"
    if program == "gsutil" and len(words) >= 2 and words[0] in ("cp", "rsync") and words[1].startswith("gs://"):
        return f"gsutil {words[0]} from a bucket"
    if program == "gcloud" and words[:2] == ["storage", "cp"] and len(words) >= 3 and words[2].startswith("gs://"):
        return "gcloud storage cp from a bucket"
    if program == "rclone" and first in ("copy", "sync", "copyurl"):
        return f"rclone {first} fetches remote data"
    if program == "gdown":
        return "gdown fetches a Google Drive file"
    if program in ("huggingface-cli", "hf") and first == "download":
        return f"{program} download fetches from the Hugging Face hub"
    if program == "synapse" and first == "get":
        return "synapse get fetches Synapse data"
    if program == "azcopy" and first == "copy" and len(words) >= 2 and _URL_START_RE.match(words[1]):
        return "azcopy copy from remote storage"
    if program == "git" and first == "clone" and own is not None:
        for url in (w for w in words[1:] if _URL_START_RE.match(w)):
            pointer = classify_url(url, _CODE_CONTEXT, own)
            if isinstance(pointer, Pointer) and pointer.value >= 60 and pointer.rule != "data_pointer.doi_in_data_context":
                return f"git clone of a data repository ({url})"
    return None


_SHELL_VAR_RE = re.compile(r"\$\{(\w+)\}|\$(\w+)")
_MAKE_VAR_REF_RE = re.compile(r"\$[({](\w+)[)}]")
_SHELL_ASSIGN_RE = re.compile(r"^\s*(?:export\s+|local\s+|readonly\s+|declare\s+(?:-\w+\s+)?)?([A-Za-z_]\w*)=(\S.*)$")
_MAKE_ASSIGN_RE = re.compile(r"^\s*(?:export\s+|override\s+)?([A-Za-z_][\w.-]*)\s*(?::{1,3}|\?|\+|!)?=\s*(.*)$")


def _assignments(lines: Iterable[str], pattern: re.Pattern[str]) -> dict[str, str]:
    table: dict[str, str] = {}
    for line in lines:
        match = pattern.match(line)
        if match:
            value = match.group(2).strip()
            try:
                words = shlex.split(value, comments=True)
            except ValueError:
                words = value.split()
            table[match.group(1)] = words[0] if len(words) == 1 else value
    return table


def _substitute(text: str, table: dict[str, str], pattern: re.Pattern[str]) -> str:
    if not table or "$" not in text:
        return text
    for _ in range(3):  # variables defined through other variables
        new = pattern.sub(lambda m: table.get(next(g for g in m.groups() if g), m.group(0)), text)
        if new == text:
            break
        text = new
    return text


@dataclass(frozen=True)
class _Hit:
    path: str
    line: int | None
    cell: int | None
    snippet: str
    download: Download


class _DownloadScan:
    """Collects downloads, one per located line (two fetch calls on one line are one step)."""

    def __init__(self, own: OwnIdentifiers):
        self.own = own
        self.hits: list[_Hit] = []
        self._seen: set[tuple[str, int | None, int | None]] = set()

    def shell_line(self, text: str, path: str, line: int | None, cell: int | None,
                   table: dict[str, str] | None = None, pattern: re.Pattern[str] = _SHELL_VAR_RE) -> None:
        if table:
            text = _substitute(text, table, pattern)
        commands = split_commands(text)
        found = shell_download(commands, self.own) if commands else None
        if found:
            self.add(path, line, cell, text, found)

    def add(self, path: str, line: int | None, cell: int | None, snippet: str, download: Download) -> None:
        key = (path, line, cell)
        if line is None or key not in self._seen:
            self._seen.add(key)
            self.hits.append(_Hit(path, line, cell, snippet, download))


def _scan_shell_file(tree: TreeIndex, path: str, scan: _DownloadScan) -> None:
    text = tree.text(path)
    if not text:
        return
    table = _assignments(text.splitlines(), _SHELL_ASSIGN_RE)
    for number, line in command_lines(text):
        scan.shell_line(line, path, number, None, table)


def _scan_make_like(tree: TreeIndex, path: str, scan: _DownloadScan) -> None:
    targets = tree.task_targets(path)
    if not targets:
        return
    table = _assignments(tree.lines(path), _MAKE_ASSIGN_RE) if not path.lower().endswith(".py") else {}
    seen: set[int] = set()
    for target in targets:
        for number, command in target.recipe:
            if number in seen:
                continue
            seen.add(number)
            scan.shell_line(command.replace("$$", "$"), path, number, None, table, _MAKE_VAR_REF_RE)


_WORKFLOW_LINE_PREFIX_RE = re.compile(r"""^\s*(?:-\s*)?(?:(?:shell|cmd|script|command)\s*:\s*)?[rRfF]?(?:\"\"\"|'''|"|')?""")
_WORKFLOW_LINE_SUFFIX_RE = re.compile(r"""(?:\"\"\"|'''|"|')?\s*,?\s*$""")
_WORKFLOW_REMOTE_RE = re.compile(
    r"""\b(?:(?:HTTP|FTP)\.remote|storage(?:\.\w+)?|file|files|fromPath|fromFilePairs)\s*\(\s*[rf]?["'](?:https?|ftp|s3|gs)://"""
)
_PY_FALLBACK_URL_CALL_RE = re.compile(
    r"""\b(?:urlretrieve|urlopen|requests\.get|httpx\.get|wget\.download|get_file|download_url)\s*\([^)]*?[rbuf]*["'](?:https?|ftp)://[^"']+["']"""
)
_PY_FALLBACK_TOOL_RE = re.compile(
    r"\b(?:hf_hub_download|pooch\.retrieve|gdown\.download|GEOparse\.get_GEO|Entrez\.efetch|"
    r"dataset_download_files|zenodo_get)\s*\("
)


def _scan_workflow_file(tree: TreeIndex, path: str, scan: _DownloadScan) -> None:
    """Snakemake ``shell:`` strings and ``run:`` code, Nextflow/WDL script blocks and
    remote inputs, ``dvc.yaml`` commands: each line is read as a shell command after
    removing the directive and quotes."""
    for number, raw in enumerate(tree.lines(path), start=1):
        stripped = raw.strip()
        if not stripped or stripped.startswith(("#", "//")):
            continue
        if _WORKFLOW_REMOTE_RE.search(raw):
            scan.add(path, number, None, raw, Download("data_acquisition_script.workflow_remote",
                                                       "workflow input fetched from a remote URL"))
            continue
        if _PY_FALLBACK_URL_CALL_RE.search(raw) or _PY_FALLBACK_TOOL_RE.search(raw):
            scan.add(path, number, None, raw, Download("data_acquisition_script.python_call", "download call in workflow code"))
            continue
        command = _WORKFLOW_LINE_SUFFIX_RE.sub("", _WORKFLOW_LINE_PREFIX_RE.sub("", raw, count=1), count=1)
        scan.shell_line(command, path, number, None)


# ---- Python calls

_URL_ARG_CALL_RE = re.compile(
    r"^(?:urllib\.request\.(?:urlretrieve|urlopen|Request)|urllib\.(?:urlretrieve|urlopen)|urllib2\.urlopen|"
    r"six\.moves\.urllib\.request\.(?:urlretrieve|urlopen)|"
    r"requests\.(?:get|[Ss]ession\(\)\.get)|httpx\.(?:get|stream|Client\(\)\.get)|wget\.download|"
    r"(?:tensorflow\.)?keras\.utils\.get_file|torch\.hub\.download_url_to_file|"
    r"torchvision\.datasets\.utils\.(?:download_url|download_and_extract_archive)|"
    r"(?:pandas|polars|geopandas|dask\.dataframe)\.read_\w+)$"
)
_DATASET_CALL_RE = re.compile(
    r"^(?:sklearn\.datasets\.fetch_\w+|(?:tensorflow\.)?keras\.datasets\.\w+\.load_data|"
    r"huggingface_hub\.hf_hub_download|pooch\.\w+(?:\.\w+)*|gdown\.\w+|zenodo_get(?:\.\w+)*|osfclient(?:\.\w+)*|"
    r"kagglehub\.\w*(?:download|load)\w*|kaggle(?:\.\w+|\.\w+\(\))*\.\w*download\w*|GEOparse\.get_GEO|"
    r"Bio\.Entrez\.efetch|synapseutils\.syncFromSynapse|datalad\.api\.(?:get|clone|install|download_url)|"
    r"dvc\.api\.(?:open|read)|torchvision\.datasets\.utils\.download_file_from_google_drive|"
    r"torchtext\.datasets\.\w+|openml\.datasets\.get_dataset)$"
)
# Substrings without which a unit cannot hold a URL-less download (URL downloads need
# "://"); plain substring tests are faster than one alternation regex. "download" covers
# hf_hub_download, snapshot_download, download=True, *_download_files; "datasets" covers
# load_dataset and tensorflow_datasets; "load_data" the Keras loaders.
_PY_DOWNLOAD_HINTS = ("download", "datasets", "load_data", "fetch_", "tfds", "pooch", "gdown", "zenodo_get",
                      "osfclient", "kaggle", "get_GEO", "efetch", "synapse", "datalad", "dvc", "openml",
                      "subprocess", "system", "popen", "getoutput")
_TORCH_DATASET_RE = re.compile(r"^(?:torchvision|torchaudio)\.datasets\.[A-Z]\w*$")
_SUBPROCESS_RE = re.compile(r"^(?:subprocess\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput)|os\.(?:system|popen))$")
_KAGGLE_METHOD_RE = re.compile(r"(?:^|\.)(?:dataset|competition)_download_files?$")
_LOCAL_BUILDERS = frozenset({"csv", "json", "parquet", "text", "imagefolder", "audiofolder", "arrow", "pandas",
                             "webdataset", "sql", "videofolder"})


def _const_str(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


class _UrlResolver:
    """Resolves an argument to a URL: a literal, an f-string or ``.format`` template, a
    concatenation starting with one, ``urljoin``/``os.path.join`` of one, or a name bound
    to one of those in the same unit."""

    def __init__(self, unit: CodeUnit):
        self.unit = unit
        self._names: dict[str, ast.AST] | None = None

    def names(self) -> dict[str, ast.AST]:
        if self._names is None:
            table: dict[str, ast.AST] = {}
            for node in ast.walk(self.unit.tree) if self.unit.tree is not None else ():
                if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                    table.setdefault(node.targets[0].id, node.value)
                elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                    table.setdefault(node.target.id, node.value)
            self._names = table
        return self._names

    def url(self, node: ast.AST | None, depth: int = 0) -> str | None:
        if node is None or depth > 4:
            return None
        text = _const_str(node)
        if text is not None:
            return text if _URL_START_RE.match(text) else None
        if isinstance(node, ast.JoinedStr):
            parts = [_const_str(v) or "{}" for v in node.values]
            joined = "".join(parts)
            return joined if _URL_START_RE.match(joined) else None
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
            left = self.url(node.left, depth + 1)
            if left is None:
                return None
            if isinstance(node.op, ast.Mod):  # "https://…/%s.csv" % name: the template is the URL
                return left
            right = _const_str(node.right)
            return left + (right if right is not None else "{}")
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute) and node.func.attr == "format":
                return self.url(node.func.value, depth + 1)
            name = dotted_name(node.func)
            if name.endswith(("urljoin", "path.join", "posixpath.join")) and node.args:
                return self.url(node.args[0], depth + 1)
            return None
        if isinstance(node, ast.Name):
            return self.url(self.names().get(node.id), depth + 1)
        return None

    def any_url(self, call: ast.Call) -> str | None:
        for arg in [*call.args, *(kw.value for kw in call.keywords)]:
            url = self.url(arg)
            if url:
                return url
        return None


def _keyword(call: ast.Call, name: str) -> ast.AST | None:
    return next((kw.value for kw in call.keywords if kw.arg == name), None)


def _shell_text_of(node: ast.AST | None, resolver: _UrlResolver) -> str | None:
    """The command line of ``os.system("…")`` / ``subprocess.run([...])``."""
    if node is None:
        return None
    if isinstance(node, (ast.List, ast.Tuple)):
        words = []
        for element in node.elts:
            text = _const_str(element) or resolver.url(element)
            words.append(shlex.quote(text) if text is not None else "ARG")
        return " ".join(words)
    text = _const_str(node)
    if text is not None:
        return text
    if isinstance(node, ast.JoinedStr):
        return "".join(_const_str(v) or "ARG" for v in node.values)
    return None


def python_download(unit: CodeUnit, call, resolver: _UrlResolver, own: OwnIdentifiers) -> Download | None:
    """The data download performed by one resolved call, if any (A4 V2, §0.1.22)."""
    name = call.name
    node: ast.Call = call.node
    if _URL_ARG_CALL_RE.match(name):
        url = resolver.any_url(node)
        if not url or _is_local_url(url):
            return None
        if is_installer_url(url):
            return Download("data_acquisition_script.installer_ignored", f"{name} of an installer URL", installer=True)
        return Download("data_acquisition_script.python_call", f"{name} downloads {url}")
    if name == "datasets.load_dataset":
        builder = _const_str(node.args[0]) if node.args else _const_str(_keyword(node, "path"))
        if builder is not None and (builder in _LOCAL_BUILDERS or builder.startswith((".", "/", "~"))):
            data_files = _keyword(node, "data_files")
            if not (data_files is not None and resolver.url(data_files)):
                return None
        return Download("data_acquisition_script.python_call", "datasets.load_dataset fetches a hub dataset")
    if name == "tensorflow_datasets.load":
        flag = _keyword(node, "download")
        if isinstance(flag, ast.Constant) and flag.value is False:
            return None
        return Download("data_acquisition_script.python_call", "tensorflow_datasets.load downloads a dataset")
    if _TORCH_DATASET_RE.match(name):
        flag = _keyword(node, "download")
        if isinstance(flag, ast.Constant) and flag.value is True:
            return Download("data_acquisition_script.python_call", f"{name}(download=True) downloads a dataset")
        return None
    if name == "huggingface_hub.snapshot_download":
        if _const_str(_keyword(node, "repo_type")) == "dataset":
            return Download("data_acquisition_script.python_call", "snapshot_download of a hub dataset")
        return None
    if _DATASET_CALL_RE.match(name):
        return Download("data_acquisition_script.python_call", f"{name} fetches data")
    if _SUBPROCESS_RE.match(name):
        command = _shell_text_of(node.args[0] if node.args else _keyword(node, "args"), resolver)
        if command:
            commands = split_commands(command)
            found = shell_download(commands, own) if commands else None
            if found:
                return Download(found.rule if found.installer else "data_acquisition_script.python_shell",
                                f"{name} runs: {found.reason}", installer=found.installer)
        return None
    modules = {ref.top for ref in unit.imports}
    if "kaggle" in modules and _KAGGLE_METHOD_RE.search(call.written):
        return Download("data_acquisition_script.python_call", "Kaggle API downloads a dataset")
    if "synapseclient" in modules and call.written.endswith(".get") and node.args:
        ident = _const_str(node.args[0])
        if ident and re.fullmatch(r"syn\d+", ident):
            return Download("data_acquisition_script.python_call", f"Synapse client fetches {ident}")
    return None


def _download_hints(units: list[CodeUnit]) -> tuple[str, ...]:
    """The names of ``_PY_DOWNLOAD_HINTS`` found in the words of any parsed unit: one test
    over all units' words rather than one per unit and name (a name never spans two words,
    so it occurs in the joined words exactly when it occurs in one unit's)."""
    all_words = " ".join(unit.word_text for unit in units if unit.tree is not None)
    return tuple(hint for hint in _PY_DOWNLOAD_HINTS if hint in all_words)


def _may_download(unit: CodeUnit, hints: tuple[str, ...]) -> bool:
    """False when a parsed unit holds no URL and none of ``hints`` (the fetcher names of
    :func:`_download_hints`): nothing in it can download, so its calls are not read (the
    AST walk is skipped)."""
    if unit.tree is None or "://" in unit.source:
        return True
    if hints:
        words = unit.word_text
        return any(hint in words for hint in hints)
    return False


def _scan_python(tree: TreeIndex, unit: CodeUnit, scan: _DownloadScan) -> None:
    cell, offset = _unit_cell(unit)
    if unit.tree is None:
        # Python 2 or otherwise unparsable: fall back to line patterns.
        for number, line in enumerate(unit.lines, start=1):
            if line.lstrip().startswith("#"):
                continue
            if _PY_FALLBACK_URL_CALL_RE.search(line) or _PY_FALLBACK_TOOL_RE.search(line):
                urls = _URL_RE.findall(line)
                if urls and all(is_installer_url(u) for u in urls):
                    scan.add(unit.path, number + offset, cell, line, Download(
                        "data_acquisition_script.installer_ignored", "download of an installer URL", installer=True))
                else:
                    scan.add(unit.path, number + offset, cell, line, Download(
                        "data_acquisition_script.python_call", "download call (line pattern; the file does not parse)"))
        return
    resolver = _UrlResolver(unit)
    for call in unit.calls:
        found = python_download(unit, call, resolver, scan.own)
        if found:
            scan.add(unit.path, call.line + offset, cell, _unit_line(unit, call.line) or call.written, found)


# ---- R and Julia

_R_URL_CALL_RE = re.compile(
    r"(?<![\w.])(?P<name>download\.file|curl_download|GET|request|read\.csv|read\.csv2|read\.table|read\.delim|"
    r"read_csv|read_tsv|read_delim|fread|readRDS|read_excel)\s*\(\s*(?P<arg>[^,)]*(?:\([^)]*\)?)?)"
)
_R_TOOL_RE = re.compile(r"(?<![\w.])(?P<name>getGEO|pb_download|BiocFileCache|bfcrpath|osf_download)\s*\(")
_JL_URL_CALL_RE = re.compile(r"(?<![\w.])(?P<name>Downloads\.download|download|HTTP\.download|HTTP\.get)\s*\(\s*(?P<arg>[^,)]*)")
_JL_TOOL_RE = re.compile(r"(?<![\w.])(?P<name>DataDep)\s*\(|datadep\"")
# Substrings without which no line of a file can match the patterns above (every name
# they match contains one): a few plain tests spare most R and Julia files the line scan.
_FETCH_HINTS = {
    "r": ("download", "GET", "request", "read", "getGEO", "BiocFileCache", "bfcrpath"),
    "julia": ("download", "HTTP.get", "DataDep", "datadep\""),
}
_URL_VAR_RE = re.compile(
    r"""^\s*(?:const\s+|local\s+|global\s+)?([A-Za-z_.][\w.]*)\s*(?:<<-|<-|=)\s*(?:paste0?\(\s*|string\(\s*)?["']((?:https?|ftp)://[^"']*)"""
)
_ARG_WRAPPERS_RE = re.compile(r"^(?:url|gzcon|paste0?|string|file|sprintf|glue(?:::glue)?|file\.path)\s*\(\s*")


def _url_vars(lines: Iterable[str]) -> dict[str, str]:
    table: dict[str, str] = {}
    for line in lines:
        match = _URL_VAR_RE.match(line)
        if match:
            table.setdefault(match.group(1), match.group(2))
    return table


def _arg_url(arg: str, url_vars: dict[str, str]) -> str | None:
    text = re.sub(r"^[A-Za-z_.][\w.]*\s*=\s*(?!=)", "", arg.strip())
    for _ in range(3):
        new = _ARG_WRAPPERS_RE.sub("", text)
        if new == text:
            break
        text = new
    match = re.match(r"""^[rfb]?["']((?:https?|ftp)://[^"']*)""", text)
    if match:
        return match.group(1)
    ident = re.match(r"^[A-Za-z_.][\w.]*", text)
    return url_vars.get(ident.group(0)) if ident else None


def _strip_hash_comment(line: str) -> str:
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            if ch == quote and line[i - 1] != "\\":
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            return line[:i]
    return line


def _scan_r_julia_lines(lines: list[tuple[int, str]], language: str, path: str, cell: int | None,
                        scan: _DownloadScan) -> None:
    url_vars = _url_vars(text for _, text in lines)
    url_call, tool = (_R_URL_CALL_RE, _R_TOOL_RE) if language == "r" else (_JL_URL_CALL_RE, _JL_TOOL_RE)
    label = "r_call" if language == "r" else "julia_call"
    for number, raw in lines:
        if "(" not in raw and "datadep" not in raw:
            continue
        line = _strip_hash_comment(raw)
        match = tool.search(line)
        if match:
            scan.add(path, number, cell, raw, Download(f"data_acquisition_script.{label}",
                                                       f"{match.group('name') or 'datadep'} fetches data"))
            continue
        for match in url_call.finditer(line):
            url = _arg_url(match.group("arg"), url_vars)
            if not url or _is_local_url(url):
                continue
            if is_installer_url(url):
                scan.add(path, number, cell, raw, Download("data_acquisition_script.installer_ignored",
                                                           f"{match.group('name')} of an installer URL", installer=True))
            else:
                scan.add(path, number, cell, raw, Download(f"data_acquisition_script.{label}",
                                                           f"{match.group('name')} downloads {url}"))
            break


def _scan_notebooks(tree: TreeIndex, scan: _DownloadScan) -> None:
    by_cell: dict[tuple[str, int | None, str], list[tuple[int, str]]] = {}
    for item in _notebook_code_lines(tree):
        if item.language == "shell":
            scan.shell_line(item.text, item.path, item.line, item.cell)
        elif item.language in ("r", "julia"):
            by_cell.setdefault((item.path, item.cell, item.language), []).append((item.line, item.text))
    for (path, cell, language), lines in by_cell.items():
        _scan_r_julia_lines(lines, language, path, cell, scan)


def _dvc_tracking_files(tree: TreeIndex) -> list[str]:
    """``*.dvc`` files that really track outputs (they carry ``outs:``)."""
    found = []
    for path in tree.files:
        if path.lower().endswith(".dvc") and not path.startswith(".dvc/"):
            text = tree.text(path) or ""
            if "outs:" in text or "md5:" in text:
                found.append(path)
    return found


@detector("data_acquisition_script", version="2.0.0")
def data_acquisition_script(tree: TreeIndex) -> Result:
    """Code in the repository downloads the data: a script, notebook cell, task recipe or workflow rule.

    What it checks:
        100 if any of these performs a data download (METRICS.md A4 V2, §0.1.22), else 0:
        shell scripts (``.sh``, ``.bash``; ``\\`` continuations joined, ``$VAR`` expanded
        from assignments in the same file), notebook ``!``/``%sx`` lines and ``%%bash``
        cells, R Markdown shell chunks, Make-like recipes (root and environment
        locations; ``$(VAR)`` expanded), workflow files (Snakemake ``shell:`` and ``run:``
        lines, Nextflow/WDL scripts and remote ``file()``/``fromPath()`` inputs,
        ``dvc.yaml`` commands) running ``wget``/``curl``/``aria2c`` with an http(s)/ftp URL
        (any flags) or a data tool (``zenodo_get``, ``osf clone|fetch``, ``kaggle datasets
        download``, ``dvc pull|get|import``, ``datalad get|clone``, ``prefetch``,
        ``fasterq-dump``, ``aws s3 cp|sync s3://…``, ``gsutil cp gs://…``, ``rclone copy``,
        ``gdown``, ``huggingface-cli download``, ``git clone`` of a data repository);
        Python calls resolved through imports (``.py`` files and notebook cells):
        ``urlretrieve``/``urlopen``/``requests.get``/``httpx.get``/``wget.download``/
        ``keras.utils.get_file``/``pandas.read_*`` whose argument is a URL (a literal, an
        f-string or ``.format`` template, a concatenation starting with one, or a name
        bound to one in the same unit), and dataset fetchers (``datasets.load_dataset`` of
        a hub dataset, ``sklearn.datasets.fetch_*``, ``tensorflow_datasets.load``,
        ``keras.datasets.*.load_data``, torchvision/torchaudio datasets with
        ``download=True``, ``hf_hub_download``, ``pooch.*``, ``gdown.*``, ``zenodo_get``,
        ``osfclient``, the Kaggle API, ``GEOparse.get_GEO``, ``Entrez.efetch``, Synapse),
        and ``subprocess``/``os.system`` running a shell download; R ``download.file``,
        ``curl_download``, ``httr::GET``, ``read.csv``/``fread`` of a URL, ``getGEO``,
        ``piggyback::pb_download``, ``BiocFileCache``, ``osf_download``; Julia
        ``Downloads.download``/``download``/``HTTP.get`` of a URL and ``DataDeps``; and
        ``*.dvc`` data-tracking files (with ``outs:``).
        Not downloads: installer URLs (ending ``.sh .exe .deb .rpm .pkg .dmg .whl``,
        ``repo.anaconda.com``, Miniconda/Miniforge, ``get.docker.com``,
        ``install.python-poetry.org``, ``get-pip.py``, ``astral.sh``, ``sh.rustup.rs``),
        any download piped into an interpreter (``curl … | sh``), localhost URLs and
        ``curl`` uploads. Python that does not parse (Python 2) is scanned with line
        patterns. README code blocks are documentation, not scripts.
    Why it matters:
        A script that fetches the exact input files removes the most error-prone manual
        step of a rerun and records where the data came from.
    Evidence:
        Each download with file, line (and notebook cell), the command or call and its
        URL; ignored installer downloads are listed with rule
        ``data_acquisition_script.installer_ignored``. ``counts`` holds the downloads, the
        files holding them, the ignored installers and the DVC tracking files.
    How to fix:
        Add a script (e.g. ``scripts/download_data.sh``) that fetches the archived data
        from its DOI or URL and verifies a checksum, or track the data with DVC and
        document ``dvc pull``.
    Known false positives:
        A ``wget`` of a software tarball (``samtools-1.9.tar.bz2``) or of a model checkpoint
        counts as a data download; any ``pooch``/``gdown`` call counts; a downloader in a
        test or an unused script counts. A URL held in a variable defined in another file,
        or built at run time, is not resolved (a false negative).
    """
    own = own_identifiers(tree)
    scan = _DownloadScan(own)
    dvc_files = _dvc_tracking_files(tree)
    for path in dvc_files:
        scan.add(path, None, None, path, Download("data_acquisition_script.dvc_tracking", "DVC data-tracking file"))
    for path in tree.by_type("shell"):
        _guarded(tree, path, "scanning shell commands", lambda p=path: _scan_shell_file(tree, p, scan), None)
    for path in tree.make_like_files():
        _guarded(tree, path, "scanning task recipes", lambda p=path: _scan_make_like(tree, p, scan), None)
    for path in tree.files:
        if _is_workflow_file(path):
            _guarded(tree, path, "scanning workflow rules", lambda p=path: _scan_workflow_file(tree, p, scan), None)
    units = _python_units(tree)
    hints = _download_hints(units)
    for unit in units:
        if _may_download(unit, hints):
            _guarded(tree, unit.path, "scanning Python calls", lambda u=unit: _scan_python(tree, u, scan), None)
    for kind, language in (("r", "r"), ("julia", "julia")):
        for path in tree.by_type(kind):
            text = tree.text(path) or ""
            if not any(hint in text for hint in _FETCH_HINTS[language]):
                continue
            lines = [(n, t) for n, t in enumerate(tree.lines(path), start=1) if t.strip() and not t.lstrip().startswith("#")]
            _guarded(tree, path, "scanning R/Julia calls",
                     lambda p=path, ls=lines, lang=language: _scan_r_julia_lines(ls, lang, p, None, scan), None)
    _guarded(tree, "", "scanning notebook cells", lambda: _scan_notebooks(tree, scan), None)

    downloads = [h for h in scan.hits if not h.download.installer]
    ignored = [h for h in scan.hits if h.download.installer]
    counts = {
        "downloads": len(downloads),
        "files_with_downloads": len({h.path for h in downloads}),
        "ignored_installers": len(ignored),
        "dvc_tracking_files": len(dvc_files),
    }
    evidence = [
        Evidence(h.path, h.download.reason, rule=h.download.rule, line_start=h.line, snippet=h.snippet, cell=h.cell)
        for h in (downloads + ignored)[:MAX_EVIDENCE]
    ]
    if downloads:
        return Result(100, evidence=evidence, counts=counts, reason=downloads[0].download.reason)
    reason = "no script, notebook cell, task recipe or workflow rule downloads data"
    if ignored:
        reason += f" ({len(ignored)} installer download(s) ignored)"
    return Result(0, evidence=evidence, counts=counts, reason=reason,
                  fix="Add a script (e.g. scripts/download_data.sh) that fetches the archived data from its DOI "
                      "or URL and verifies its checksum, or track the data with DVC and document 'dvc pull'.")
