"""What several category A detectors share: guarded reads, data documents (A1, A2),
the classification of URLs, DOIs and the repository's own identifiers (A2, A4), the
Python files' facts and notebook code lines (A2, A3, A4).
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit

from scoring.facts import FileFacts, ImportFact
from scoring.parsers.markdown import Document
from scoring.registry import Result
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


def _top(ref: ImportFact) -> str:
    """The top-level package an import names (a relative import's dots dropped)."""
    return ref.module.lstrip(".").split(".", 1)[0]


def _python_facts(tree: TreeIndex) -> list[tuple[str, FileFacts]]:
    """(path, facts) of the Python sources (``.py``, ``.pyw``) and Jupyter notebooks the
    Python frontend read, in path order (in-tree links excluded)."""
    out = []
    for path in sorted(tree.by_type("python") + tree.by_type("notebook"), key=lambda p: tree.info(p).ordinal):
        info = tree.info(path)
        if info is None or info.alias_of is not None:
            continue
        facts = tree.facts(path)
        if facts is not None and facts.frontend == "python":
            out.append((path, facts))
    return out


def _cell_locator(tree: TreeIndex, path: str) -> Callable[[int], tuple[int, int | None]]:
    """Map a line of ``tree.document(path)`` to (line, cell).

    The document of a Jupyter notebook is its markdown cells joined with blank lines;
    evidence must name the cell and the line within it (each cell's start is worked out
    from its ``NotebookCellFact.newlines``). Other documents map to themselves.
    """
    if not path.lower().endswith(".ipynb"):
        return lambda line: (line, None)
    facts = _guarded(tree, path, "reading the notebook", lambda: tree.facts(path), None)
    starts: list[tuple[int, int]] = []  # (first line in the joined text, cell index)
    line = 1
    for cell in facts.cells if facts else ():
        if cell.kind == "markdown":
            starts.append((line, cell.index))
            line += cell.newlines + 2

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


# Multi-word data phrases: the only matches of a sentence-like heading (§0.2.7).
_DATA_PHRASE_RE = re.compile(
    _ww(r"(?:input|raw|source|example|sample|demo|test|training|experimental|observational|survey)\s+data"
        r"|data\s+(?:availability|sources?|access|description|download|collection|preparation|acquisition|sets?)"),
    re.IGNORECASE,
)


def is_data_heading(text: str) -> bool:
    """A heading about the data: ``data``/``dataset(s)`` as a whole word (so ``Input
    data``, ``Data availability``), never ``Database`` or ``Data structures``. Headings
    are noun phrases (§0.2.7): a sentence-like heading (more than 8 words, or ending in
    ``.`` or ``?``, e.g. an FAQ question) matches only a multi-word data phrase."""
    if not _DATA_HEADING_RE.search(text) or _NOT_DATA_HEADING_RE.search(text):
        return False
    stripped = text.strip()
    if len(stripped.split()) > 8 or stripped.endswith((".", "?")):
        return _DATA_PHRASE_RE.search(stripped) is not None
    return True


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


# --------------------------------------------------------------------------- data pointers: URLs, DOIs, own identifiers (A2, A4)

_URL_RE = re.compile(r"(?:https?|ftp)://[^\s<>\"'`\\^{}|\[\]()]+", re.IGNORECASE)

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
    "10.48324",  # DANDI Archive (domain repository, §0.2.16)
})
KAGGLE_DOI_PREFIX = "10.34740"

_ARCHIVE_HOSTS = ("zenodo.org", "figshare.com", "osf.io", "datadryad.org", "data.mendeley.com",
                  "pangaea.de", "ukdataservice.ac.uk", "data.4tu.nl", "openneuro.org", "physionet.org",
                  "icpsr.umich.edu", "openicpsr.org", "b2share.eudat.eu",
                  # domain repositories (§0.2.16)
                  "dandiarchive.org", "neurovault.org")
_INSTITUTIONAL_HOSTS = ("archive.ics.uci.edu", "ega-archive.org", "synapse.org", "openml.org")
# Intergovernmental and central-bank data services (with ``*.gov``, A2 institutional in a data context).
_PUBLIC_DATA_HOSTS = ("who.int", "fred.stlouisfed.org", "data.worldbank.org", "ec.europa.eu", "oecd.org", "imf.org")
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
                             ".vcf", ".bam", ".nii",
                             # METRICS.md §0.2.15: archive and domain formats
                             ".h5ad", ".loom", ".zarr", ".las", ".laz", ".ply", ".fa", ".fna", ".faa",
                             ".gff", ".gtf", ".bed", ".bigwig", ".wav", ".flac", ".tif", ".tiff", ".dcm",
                             ".edf", ".mzml", ".sav", ".dta", ".rda", ".arrow"})
_COMPRESSION_SUFFIXES = (".tar.gz", ".gz", ".bz2", ".xz", ".zip")
_INSTALLER_SUFFIXES = (".sh", ".exe", ".deb", ".rpm", ".pkg", ".dmg", ".whl", ".msi", ".appimage",
                       ".gpg", ".asc")

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
    # the project's own names (an RStudio ``<name>.Rproj``, DESCRIPTION ``Package:``): a
    # code-host URL of a repository so named is the deposit's own repository
    names: set[str] = field(default_factory=set)

    def is_own_url(self, url: str) -> bool:
        norm = _norm_url(url)
        host, _, path = norm.partition("/")
        parts = path.split("/")
        if self.names and len(parts) >= 2 and parts[1].lower() in self.names and (
                host in _CODE_HOSTS or host == "raw.githubusercontent.com"):
            return True
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
    rproj = [p for p in tree.files_in("") if p.endswith(".Rproj")]
    if len(rproj) == 1:
        own.names.add(rproj[0][: -len(".Rproj")].lower())
    description = tree.description_fields("DESCRIPTION") if tree.is_file("DESCRIPTION") else None
    if description:
        if description.get("Package"):
            own.names.add(description["Package"].strip().lower())
        for key in ("URL", "BugReports"):
            own.add([u.strip() for u in re.split(r"[,\s]+", description.get(key) or "") if u.strip()])
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
    download: bool = False   # a data or download context: a data section, code, or a line naming data or a download (§0.2.15)


@dataclass(frozen=True)
class Pointer:
    value: int
    rule: str
    target: str
    reason: str


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
    if ctx.data and "data" in lower and (host.endswith(".gov") or _host_is(host, *_PUBLIC_DATA_HOSTS)):
        # a government or intergovernmental data page named in a data context (NOAA,
        # Census, HUD, BLS, FRED, WHO): an institutional data host
        return Pointer(80, "data_pointer.institutional_host", url, f"institutional data host URL ({host})")
    if _host_is(host, "kaggle.com") and lower.startswith("/datasets/"):
        return Pointer(75, "data_pointer.kaggle", url, "Kaggle dataset URL")
    code_host = _code_host_pointer(url, host, path)
    if code_host is not None:
        return code_host
    if _host_is(host, *_NOT_DATA_HOSTS) or lower.endswith("schema.json"):
        return "not_data"
    name = lower.rsplit("/", 1)[-1]
    if data_extension(name):
        return Pointer(40, "data_pointer.direct_url", url, "direct URL of a data file")
    if ctx.download and is_data_archive_name(name):
        return Pointer(40, "data_pointer.direct_url", url, "direct URL of a data archive in a data or download context")
    return "not_data"


_ARCHIVE_NAME_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".7z")
# A versioned or source-named archive is a software release, not a data archive.
_SOFTWARE_ARCHIVE_RE = re.compile(r"[-_.]v?\d+(?:\.\d+)+|(?:^|[-_.])(?:src|source|install|setup|master|main)(?:[-_.]|$)")


def is_data_archive_name(name: str) -> bool:
    """A file name ending in an archive suffix (§0.2.15) that is not a versioned
    software release (``tool-1.2.tar.gz``) or a source archive (``master.zip``)."""
    lower = name.lower()
    for suffix in _ARCHIVE_NAME_SUFFIXES:
        if lower.endswith(suffix) and len(lower) > len(suffix):
            return _SOFTWARE_ARCHIVE_RE.search(lower[: -len(suffix)]) is None
    return False


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


# --------------------------------------------------------------------------- code units and notebook code lines (A2, A3, A4)

_CODE_CONTEXT = _Context(data=True, citation=False, download=True)


_WORKFLOW_SUFFIXES = (".smk", ".nf", ".wdl")


def _is_workflow_file(path: str) -> bool:
    lower = _name(path).lower()
    return lower == "snakefile" or lower.startswith("snakefile.") or lower == "dvc.yaml" or lower.endswith(_WORKFLOW_SUFFIXES)


@dataclass(frozen=True)
class _CellLine:
    path: str
    line: int           # line within the cell (.ipynb) or within the file (.Rmd/.qmd)
    cell: int | None
    text: str
    language: str       # shell | r | julia | other


def _notebook_code_lines(tree: TreeIndex) -> Iterator[_CellLine]:
    """Shell magics and the lines of R / Julia / other non-Python code cells of notebooks
    and R Markdown documents (Python cells are read as code units), from the cells'
    facts (``NotebookCellFact.commands`` and ``code_lines``); comment lines left out."""
    for path in tree.by_type("notebook") + tree.by_type("rmd"):
        facts = tree.facts(path)
        if facts is None:
            continue
        is_ipynb = path.lower().endswith(".ipynb")
        for cell in facts.cells:
            cell_index = cell.index if is_ipynb else None
            for line, command in cell.commands:
                yield _CellLine(path, line, cell_index, command, "shell")
            if cell.language in ("r", "julia", "other"):
                for line, text in cell.code_lines:
                    if not text.lstrip().startswith("#"):
                        yield _CellLine(path, line, cell_index, text, cell.language)


# --------------------------------------------------------------------------- data use (§0.3 deposit kind)

# Folders whose files are tests, documentation or examples: their data files, loads,
# downloads and pointers are not the deposit's data use (METRICS.md §0.3, deposit kind).
_NOT_DATA_USE_DIRS = frozenset({
    "test", "tests", "testing", "testdata", "test_data", "test-data", "fixtures", "spec",
    "docs", "doc", "vignettes", "examples", "example", "tutorials", "tutorial", "joss",
    "benchmarks", "benchmark", "notebooks_examples", "validation", "document", "schemas", "schema",
})
# Installed resources and bundled parameter tables (``share/``, an R package's ``inst/``)
# are part of the software, not its data -- unless the package's own code reads them
# (an ``inst/extdata`` file named outside comments and roxygen examples).
_RESOURCE_DIRS = ("share/", "inst/")


def is_data_use_path(tree: TreeIndex, path: str) -> bool:
    """``path`` is where the deposit's own data use can be (not a test, documentation,
    example, vendored or build file); the README and top-level files always are."""
    if "/" not in path:
        return True
    dirs = {part.lower() for part in path.split("/")[:-1]}
    if dirs & _NOT_DATA_USE_DIRS or any(d.startswith(("test_", "tests_")) for d in dirs):
        return False
    if path.startswith(("data-raw/", "data/")) and _is_r_package(tree):
        # the scripts that build an R package's example datasets, and those datasets
        # (data/*.rda, which data() and lazy loading give to examples and users)
        return False
    if path.lower().startswith(_RESOURCE_DIRS):
        return path.lower().startswith("inst/") and _name(path) in _names_in_r_code(tree)
    return tree.role(path) in ("source",)


def _is_r_package(tree: TreeIndex) -> bool:
    return tree.is_file("DESCRIPTION") and tree.is_dir("R")


def _names_in_r_code(tree: TreeIndex) -> frozenset[str]:
    """File names the R sources outside tests and documentation pass to a call (string
    arguments of their call facts: comments and roxygen examples are not calls), once
    per tree."""
    memo = _memo(tree)
    names = memo.get("r_names")
    if names is None:
        found: set[str] = set()
        for path in tree.by_type("r"):
            if "/" in path and {p.lower() for p in path.split("/")[:-1]} & (_NOT_DATA_USE_DIRS | {"data-raw"}):
                continue
            facts = tree.facts(path)
            for call in facts.calls if facts is not None and facts.frontend == "r" else ():
                for value in (*call.args, *(v for _k, v in call.kwargs)):
                    if isinstance(value, str):
                        found.add(value.rsplit("/", 1)[-1])
        names = memo["r_names"] = frozenset(found)
    return names


@dataclass(frozen=True)
class DataSignal:
    """One sign that the deposit uses data: ``kind`` is ``file`` (a data file),
    ``call`` (a data loading or download call), ``document`` (a data section or data
    pointer) or ``workflow``."""

    kind: str
    path: str
    what: str


@dataclass(frozen=True)
class DataUse:
    """The tree-level fact "this deposit uses data", decided once and shared by A1-A4."""

    signals: tuple[DataSignal, ...]

    @property
    def none(self) -> bool:
        return not self.signals

    def counts(self) -> dict[str, int]:
        out = {"data_use_signals": len(self.signals)}
        for kind in ("file", "call", "document", "workflow"):
            out[f"data_use_{kind}s"] = sum(1 for s in self.signals if s.kind == kind)
        return out


# Each data detector registers its measurement as a probe: ``probe(tree)`` returns its
# Result and the data-use signals it saw. ``data_use`` runs every probe once per tree
# (the detectors then reuse the memoised Result), so the decision is one fact.
_Probe = Callable[[TreeIndex], tuple[Any, list[DataSignal]]]
_PROBES: dict[str, _Probe] = {}
_MEMO: weakref.WeakKeyDictionary[TreeIndex, dict[str, Any]] = weakref.WeakKeyDictionary()


def data_probe(metric_id: str) -> Callable[[_Probe], _Probe]:
    def register(fn: _Probe) -> _Probe:
        _PROBES[metric_id] = fn
        return fn

    return register


def _memo(tree: TreeIndex) -> dict[str, Any]:
    memo = _MEMO.get(tree)
    if memo is None:
        memo = _MEMO[tree] = {}
    return memo


def probed(tree: TreeIndex, metric_id: str) -> tuple[Any, list[DataSignal]]:
    """The memoised ``(Result, signals)`` of one detector's probe on ``tree``."""
    memo = _memo(tree)
    key = ("probe", metric_id)
    if key not in memo:
        memo[key] = _PROBES[metric_id](tree)
    return memo[key]


# Calls that read a data file (not a configuration or parameter file: YAML/JSON/TOML
# loaders are S6's parameter files); Python names are resolved by the frontend.
_PY_LOAD_RE = re.compile(
    r"^(?:pandas\.read_(?:csv|table|excel|parquet|feather|hdf|stata|sas|spss|fwf|pickle|orc)"
    r"|numpy\.(?:loadtxt|genfromtxt|load|fromfile)|scipy\.io\.(?:loadmat|mmread|wavfile\.read)"
    r"|h5py\.File|xarray\.open_(?:dataset|mfdataset|dataarray|zarr)|netCDF4\.Dataset"
    r"|anndata\.read\w*|scanpy\.read\w*|polars\.(?:read|scan)_\w+|pyarrow\.parquet\.read_table"
    r"|datasets\.load_dataset|astropy\.io\.fits\.open|nibabel\.load|mne\.io\.read_raw\w*"
    r"|uproot\.open|Bio\.SeqIO\.(?:parse|read)|imageio\.v?\d?\.?imread|skimage\.io\.imread"
    r"|geopandas\.read_file|rasterio\.open|pysam\.(?:AlignmentFile|VariantFile))$"
)
_R_JL_LOAD_RE = re.compile(
    r"^(?:read\.(?:csv2?|table|delim2?)|readr::read_\w+|read_(?:csv2?|tsv|delim|table|excel|rds)"
    r"|readRDS|readxl::read_\w+|data\.table::fread|fread|haven::read_\w+"
    r"|CSV\.(?:read|File)|readdlm|DelimitedFiles\.readdlm|JLD2\.load|load_object|FileIO\.load"
    r"|Arrow\.Table|XLSX\.readxlsx|HDF5\.h5open|h5open|NCDatasets\.NCDataset|NCDataset)$"
)


_MATLAB_LOAD_RE = re.compile(
    r"^(?:load|readtable|readmatrix|readcell|readtimetable|csvread|dlmread|xlsread|importdata"
    r"|textscan|audioread|imread|h5read|ncread|niftiread|dicomread|edfread|tdfread|matfile)$"
)
_LOAD_PATTERNS = {"python": _PY_LOAD_RE, "r": _R_JL_LOAD_RE, "julia": _R_JL_LOAD_RE, "matlab": _MATLAB_LOAD_RE}


def _names_a_file(call: Any) -> bool:
    """The call reads a file the code names (a literal path, a path built from one, a
    URL): a loader called on a parameter (a library's ``h5py.File(filename)``) reads
    whatever its user passes, which is not the deposit's data."""
    if call.urls:
        return True
    first = call.args[0] if call.args else next((v for _k, v in call.kwargs), None)
    if isinstance(first, str):
        return True
    text = getattr(first, "text", "")
    return isinstance(text, str) and ('"' in text or "'" in text)


def _load_calls(tree: TreeIndex) -> list[DataSignal]:
    out: list[DataSignal] = []
    paths = [p for kind in ("python", "notebook", "r", "julia", "rmd") for p in tree.by_type(kind)]
    for path in dict.fromkeys(paths + tree.by_frontend("matlab")):
        if not is_data_use_path(tree, path):
            continue
        facts = tree.facts(path)
        if facts is None:
            continue
        pattern = _LOAD_PATTERNS.get(facts.frontend)
        if pattern is None:
            continue
        for call in facts.calls:
            if pattern.match(call.name) and _names_a_file(call):
                out.append(DataSignal("call", path, f"data loading call {call.written}() at line {call.line}"))
                break
    return out


def data_use(tree: TreeIndex) -> DataUse:
    """Whether the deposit uses data (METRICS.md §0.3, deposit kind): data files in the
    data role, data loading or download calls in non-test, non-documentation code, a
    data section or data document, a data pointer, or a workflow engine's pipeline."""
    memo = _memo(tree)
    found = memo.get("data_use")
    if found is None:
        signals: list[DataSignal] = []
        for metric_id in sorted(_PROBES):
            signals += probed(tree, metric_id)[1]
        signals += _guarded(tree, "", "finding data loading calls", lambda: _load_calls(tree), [])
        found = memo["data_use"] = DataUse(tuple(signals))
    return found


_SOFTWARE_URL_RE = re.compile(
    r"/releases/download/.*(?:linux|macos|osx|darwin|windows|win32|win64|x86_64|amd64|arm64|aarch64)"
    r"|miniforge|miniconda|mambaforge|micromamba|get-pip\.py"
    r"|\.(?:jl|py|r|sh|m|js|exe|deb|rpm|dmg|msi|whl|pkg)(?:[?#].*)?$",
    re.IGNORECASE,
)


# Python calls that fetch the URL they are given (A4 downloads, A2 fetched file URLs)
URL_FETCH_CALL_RE = re.compile(
    r"^(?:urllib\.request\.(?:urlretrieve|urlopen|Request)|urllib\.(?:urlretrieve|urlopen)|urllib2\.urlopen|"
    r"six\.moves\.urllib\.request\.(?:urlretrieve|urlopen)|"
    r"requests\.(?:get|[Ss]ession\(\)\.get)|httpx\.(?:get|stream|Client\(\)\.get)|wget\.download|"
    r"(?:tensorflow\.)?keras\.utils\.get_file|torch\.hub\.download_url_to_file|"
    r"torchvision\.datasets\.utils\.(?:download_url|download_and_extract_archive)|"
    r"(?:pandas|polars|geopandas|dask\.dataframe)\.read_\w+)$"
)


def is_software_download(target: str) -> bool:
    """A URL fetching software (a release binary, an installer, a source file), never
    data (METRICS.md §0.3: software downloads are never data acquisition)."""
    urls = [m.group(0).rstrip(".,;:)\"'") for m in _URL_RE.finditer(target)] or [target]
    return all(_SOFTWARE_URL_RE.search(url) for url in urls)


def not_applicable_result(tree: TreeIndex) -> Result | None:
    """The not-applicable Result (fill value 0) of a data detector when the deposit
    uses no data, else None. An empty deposit is not of that kind: with no file at all
    nothing shows that it needs no data, and METRICS.md §11.25 scores it A = 0 with the
    data penalty firing."""
    if not tree.files:
        return None
    use = data_use(tree)
    if not use.none:
        return None
    return Result(
        0, applicable=False, counts=use.counts(),
        reason="not applicable: the deposit uses no data (no data files, no data load/download "
               "call, no data section/pointer; test data and documentation examples are not data use)",
    )
