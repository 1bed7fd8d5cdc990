"""What several category A detectors share: guarded reads, data documents (A1, A2),
the classification of URLs, DOIs and the repository's own identifiers (A2, A4), the
Python files' facts and notebook code lines (A2, A3, A4).
"""

from __future__ import annotations

import posixpath
import re
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit

from scoring.facts import FileFacts, ImportFact
from scoring.parsers.markdown import Document
from scoring.parsers.shell import split_commands
from scoring.parsers.tasks import is_make_like
from scoring.registry import Result, shared_doc
from scoring.tree import TreeIndex

# The deposit-kind rule (METRICS.md §0.3) A1-A4 apply through one fact (``data_use``),
# in each one's documentation as ``{shared:deposit_kind}``.
shared_doc("deposit_kind", """
    Not applicable (fill value 0, ``applicable: false``) when the deposit uses no
    data (METRICS.md §0.3, deposit kind): no data file in the data role, no data
    loading call naming a file and no data download outside tests, documentation and
    examples, no data document or README data section, no data pointer and no
    workflow engine (one fact shared by A1-A4, ``_common.data_use``). A pointer
    inside a code block of an R or Julia package's README is a usage example of the
    library, not data use (A1, A3, A4 2.3.0; A2 2.4.0). Test data and documentation examples are no data use: a data file only
    test or documentation code names -- by its path, or by its name alone joined to a
    folder the code computes (``os.path.join(nitime.__path__[0], 'data')`` and
    ``'fmri_timeseries.csv'`` in a gallery example and a test) --, test recordings
    (``cassettes/``, ``fixtures/``, a JSON HTTP recording; §0.2.17), reference outputs
    (``expected*/``, ``baseline*/``, ``snapshots/``), and the notebooks and scripts of
    a folder the documentation build copies in (a recipe of ``docs/Makefile`` running
    ``rsync``/``cp`` on ``../notebooks/``, or ``shutil.copytree`` in ``docs/conf.py``:
    tutorial pages, whose downloads and pointers are ignored as those of ``docs/``
    are); in an R package an ``inst/`` file is data use only when the package's ``R/``
    code reads it (scripts under ``inst/`` build examples and test fits, like
    ``data-raw/``); example data under ``examples/**/data/``, with the domain formats
    ``.xvg .dat .pdb .xyz .gro``, is local data and data use (§0.3 Python libraries).
    A named-dataset API loads data whatever its arguments (torchvision, torchaudio and
    torchtext datasets, keras ``load_data``, ``tensorflow_datasets.load``,
    ``datasets.load_dataset``, ``sklearn.datasets.fetch_*``: ``CIFAR10(root,
    download=False)`` reads the copy on disk). A load names a file of the deposit only
    when a literal supplies its name or folder (``"data/" + name``, ``file.path("data",
    f)``): a loader given a parameter with only an extension or suffix appended
    (``np.loadtxt(seedname + ".eig")``, ``paste0(x, ".csv")``, ``"$(x).csv"``) reads
    whatever its user passes. A file the deposit's own source code writes (the path
    literal of a write call) and does not ship is an intermediate product of its run,
    and reading it back is no data loading call (§0.3's "no data loading call" read as
    no call loading input data: a benchmark that writes a synthetic series and times
    reading it uses no data). These came with A1 2.5.0, A2 2.7.0, A3 2.5.0, A4 2.5.0;
    the rules of this paragraph from the named-dataset APIs on, the documentation
    build's pages and the match by name alone with A1 2.8.0, A2 2.9.0, A3 2.6.0,
    A4 2.7.0. MATLAB's ``functionSignatures.json`` and a MATLAB Project's
    ``resources/project/`` files are configuration, no data files (A1 2.9.0, A2
    2.11.0, A3 2.7.0, A4 2.8.0).
    A multi-line HTML DOI badge (``<a href>`` around one ``<img>``), the README
    title naming data ("… from Data") and the README of a ``datasets/`` code package
    are no data pointer or data section, nor are "Missing data" headings (A1 2.11.0,
    A2 2.13.0, A3 2.8.0, A4 2.9.0). Nor is a heading whose data word is not its head
    (§0.2.7): "High pass filter the data", "Additional removal of 'bad data' periods"
    (A1 2.12.0, A2 2.14.0, A3 2.10.0, A4 2.12.0).
""")

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

def _word(pattern: str) -> str:
    """``pattern`` as a word of prose, never a part of a code identifier or module name
    (§0.3 Python libraries: ``hddm_dataset_generators``, ``my_dataset``, ``datasets.py``,
    ``data.frame`` hold no data word): no letter, digit or ``_`` on either side, and no
    ``.`` joining it to an identifier character."""
    return rf"(?<![A-Za-z0-9_])(?<![A-Za-z0-9_]\.)(?:{pattern})(?![A-Za-z0-9_])(?!\.[A-Za-z0-9_])"


# A data heading names the data as a word or as an input-file phrase (§0.3 workflow data:
# "Input files" and "Input data" are data sections).
_DATA_HEADING_RE = re.compile(_word(r"data(?:sets?)?|input\s+files?"), re.IGNORECASE)
# Compounds that are not about the deposit's data (§0.2.7, A1 V2): "Big data", "Data
# science", "Data-intensive", "Data-driven", "Meta-data", databases and data structures;
# "Missing data", "Missing values", "Incomplete data" name a property of the user's input
# that a method handles (how NaN samples are treated), not data the deposit uses; a
# heading holding one is not a data heading.
_NOT_DATA_COMPOUND_RE = re.compile(
    _word(r"databases?|data\s+structures?|big\s+data|data[\s-]+science|data-(?:intensive|driven|centric)"
          r"|meta-?data|(?:missing|incomplete)\s+(?:data|values)"),
    re.IGNORECASE,
)
_PROSE_EXTS = ("", ".md", ".markdown", ".rst", ".txt")
_ROOT_DATA_DOC_RE = re.compile(
    r"data\.(?:md|markdown|rst)|data_readme.*|dataset.*\.md|data_availability.*|datasheet.*\.md",
    re.IGNORECASE,
)


# Multi-word data phrases: the only matches of a sentence-like heading (§0.2.7).
_DATA_PHRASE_RE = re.compile(
    _word(r"(?:input|raw|source|example|sample|demo|test|training|experimental|observational|survey)\s+data"
          r"|data\s+(?:availability|sources?|access|description|download|collection|preparation|acquisition|sets?)"
          r"|input\s+files?"),
    re.IGNORECASE,
)


# The head-noun reading of a short heading (§0.2.7: the family word is the *head*). A
# heading splits into parts at a title separator (``CEBRA - Figures and Data``, ``Public
# datasets: Leng et al.``), a part into coordinated phrases at and/or/&/``,``/``/``.
_HEADING_PART_SPLIT_RE = re.compile(r"\s[-–—|]\s|:\s|:$")
_HEADING_NOISE_RE = re.compile(r"\[([^\]]*)\]\([^)]*\)|\([^)]*\)|\{[^}]*\}|<[^>]*>|\b\w+://\S+")
_HEADING_TOKEN_RE = re.compile(r"[A-Za-z0-9][\w'’-]*|[,&/]")
_CONJUNCTIONS = frozenset({"and", "or", "&", ",", "/"})
_DETERMINERS = frozenset({"the", "a", "an", "your", "our", "my", "their", "this", "these", "that", "those",
                          "some", "its"})
# prepositions and the like end a noun phrase: what follows modifies it
_PHRASE_ENDS = frozenset({"of", "for", "from", "in", "on", "with", "to", "by", "at", "after", "before", "into",
                          "via", "using", "as", "per", "under", "over", "without", "within", "across", "between",
                          "through", "vs", "versus", "than", "like", "is", "are"})
_LEADING_TOPIC = frozenset({"about", "on", "regarding"})
# verbs of obtaining or supplying data: "Downloading the data", "Get the data", "Access
# the data", "Adding a data set" name the data, whereas "Filter the data" names a
# processing step
_ACQUISITION_VERB_RE = re.compile(
    r"(?:download|get|gett|obtain|access|acquir|acquire|fetch|retriev|retrieve|load|read|import|install|add)"
    r"(?:s|es|ed|ing)?", re.IGNORECASE)
# the deposit's own data, whatever the verb: "Citing this data set", "Describing our data"
_OWN_DETERMINERS = frozenset({"this", "these", "our"})
# nouns that make the data their topic: with the data word before them ("Additional data
# information", "RNA-seq data preprocessing") or after of/on/about ("Availability of data
# and materials", "General overview of full data", "A note on the data sets")
_DATA_TOPIC_NOUNS = frozenset({"availability", "source", "sources", "access", "description", "descriptions",
                               "download", "downloads", "collection", "preparation", "acquisition",
                               "provenance", "overview", "summary", "information", "details",
                               "preprocessing", "processing", "note", "notes"})
_TOPIC_PREPOSITIONS = frozenset({"of", "on", "about"})
_DATA_UNIT_WORDS = frozenset({"data", "dataset", "datasets"})


def _heading_phrases(tokens: list[str]) -> list[list[str]]:
    """The coordinated noun phrases a heading part opens with: each phrase up to the word
    that ends it (a preposition, or a determiner after a verb that obtains no data); after
    such an end the rest modifies the phrase and names no head."""
    phrases: list[list[str]] = []
    current: list[str] = []
    for token in tokens:
        lower = token.lower()
        if lower in _CONJUNCTIONS:
            if current:
                phrases.append(current)
            current = []
            continue
        if lower in _PHRASE_ENDS:
            break
        if lower in _DETERMINERS:
            if current and lower not in _OWN_DETERMINERS and not _ACQUISITION_VERB_RE.fullmatch(current[-1]):
                break
            current = []  # "Get the data": the object of a verb of obtaining is the phrase
            continue
        if current and current[-1].lower() in _DATA_UNIT_WORDS and token.lower().endswith("ed"):
            break  # "data used by …", "data needed for …": a participle after the head
        current.append(token)
    if current:
        phrases.append(current)
    return phrases


def _data_unit_tokens(part: str) -> list[str]:
    """The words of a heading part, with ``data set(s)``/``data file(s)``/``input
    file(s)`` joined into one data word."""
    tokens = _HEADING_TOKEN_RE.findall(part)
    joined: list[str] = []
    for token in tokens:
        lower = token.lower()
        if joined and (joined[-1].lower(), lower) in (("data", "set"), ("data", "sets"), ("data", "file"),
                                                      ("data", "files"), ("input", "file"), ("input", "files")):
            joined[-1] = "data"
            continue
        joined.append(token)
    return joined


def _data_is_head(part: str) -> bool:
    """The data word is the head of the part's opening noun phrase: its first word
    (``Data availability``, ``Datasets and preprocessing``), the last word of a
    coordinated phrase (``Input data``, ``Code and data``, ``Downloading the data``), or
    the object of a data topic noun (``Availability of data``)."""
    tokens = _data_unit_tokens(part)
    while tokens and tokens[0].lower() in _DETERMINERS | _LEADING_TOPIC:
        tokens = tokens[1:]
    if not tokens:
        return False
    if tokens[0].lower() in _DATA_UNIT_WORDS:
        return True
    phrases = _heading_phrases(tokens)
    for phrase in phrases:
        lower = [t.lower() for t in phrase]
        if lower[-1] in _DATA_UNIT_WORDS or (len(lower) >= 2 and lower[-2] in _DATA_UNIT_WORDS
                                             and lower[-1] in _DATA_TOPIC_NOUNS):
            return True
    # "Availability of (the) data": a data topic noun with the data as its object
    if phrases and phrases[0][-1].lower() in _DATA_TOPIC_NOUNS:
        after = [t.lower() for t in tokens]
        at = len([t for p in phrases[:1] for t in p])
        while at < len(after) and after[at] not in _TOPIC_PREPOSITIONS:
            at += 1
        rest = [t for t in tokens[at + 1:] if t.lower() not in _DETERMINERS]
        return bool(rest) and any(p[-1].lower() in _DATA_UNIT_WORDS for p in _heading_phrases(rest))
    return False


def is_data_heading(text: str) -> bool:
    """A heading about the data: ``data``/``dataset(s)`` as a word of prose (so ``Input
    data``, ``Data availability``) or ``Input files`` (§0.3 workflow data); never a
    compound about something else (``Database``, ``Data structures``, ``Big data``, ``Data
    science``, ``Data-intensive``, ``Metadata``, ``Missing data``, ``Incomplete data``;
    §0.2.7) nor a data word inside an
    identifier (``my_dataset``). Headings are noun phrases (§0.2.7): a sentence-like
    heading (more than 8 words, or ending in ``.`` or ``?``, e.g. an FAQ question) matches
    only a multi-word data phrase. In a short heading the data word must be the head
    (§0.2.7): the first word (``Data availability``), the last word of the opening noun
    phrase or of one coordinated with it (``Input data``, ``Raw data``, ``Code and data``),
    the object of a verb of obtaining or supplying (``Downloading the data``, ``Get the
    data``, ``Access the data``, ``Adding a data set``) or of a data topic noun
    (``Availability of data and materials``, ``A note on the data sets``), the deposit's own
    data (``Citing this data set``); never the object of another verb (``High pass filter the data``, ``Centering the data``), a
    word after a preposition (``Fitting a polynomial to arbitrary data``) or a modifier of
    a following noun (``Additional removal of 'bad data' periods``, ``Extended Data
    Figure 9``)."""
    if not _DATA_HEADING_RE.search(text) or _NOT_DATA_COMPOUND_RE.search(text):
        return False
    stripped = text.strip()
    if len(stripped.split()) > 8 or stripped.endswith((".", "?")):
        return _DATA_PHRASE_RE.search(stripped) is not None
    cleaned = _HEADING_NOISE_RE.sub(lambda m: f" {m.group(1)} " if m.group(1) else " ", stripped)
    return any(_data_is_head(part) for part in _HEADING_PART_SPLIT_RE.split(cleaned))


def document_title(doc: Document):
    """The document's first heading when it is top-level: the title, which names the
    project and is never a section (§0.2.6), so never a data section (A1, A2)."""
    first = doc.sections[0].heading if doc.sections else None
    return first if first is not None and first.level == 1 else None


_DATA_FOLDER_NAMES = frozenset({"data", "dataset", "datasets"})
_NAME_WORD_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def _is_code_package(tree: TreeIndex, folder: str) -> bool:
    """A folder of code, not data (§0.3: a data word in a module name is no data word): it
    holds no data file anywhere below it, and it is an import package (``__init__.py``)
    or holds only source files besides its prose (a ``datasets/`` of loader modules)."""
    if any(data_extension(_name(p)) for p in tree.files_under(folder)):
        return False
    own = [p for p in tree.files_in(folder) if _suffix(p) not in _PROSE_EXTS]
    if any(_name(p) == "__init__.py" for p in own):
        return True
    sources = {p for name in _FRONTENDS for p in tree.by_frontend(name)}
    return bool(own) and all(p in sources for p in own)


def _is_data_folder(tree: TreeIndex, folder: str) -> bool:
    """A folder named for data: ``data/``, ``dataset(s)/`` unless it is a code package
    (``datasets/__init__.py`` with loader modules and no data file), or a name with
    ``data`` as one of its words that holds a data file (``OrigData/``, ``FinalData/``,
    ``raw_data/``, ``derived-data/``; never ``metadata/``, ``database/``,
    ``data_structures/``)."""
    name = _name(folder)
    if name.lower() in _DATA_FOLDER_NAMES:
        return not _is_code_package(tree, folder)
    words = [w.lower() for w in _NAME_WORD_RE.findall(name)]
    if "data" not in words or _NOT_DATA_COMPOUND_RE.search(" ".join(words)):
        return False
    return any(data_extension(_name(p)) for p in tree.files_under(folder))


def data_docs(tree: TreeIndex) -> list[str]:
    """Dedicated data documents (A1 V2): ``DATA.md``, ``DATA_README*``, ``DATASET*.md``,
    ``DATA_AVAILABILITY*``, ``datasheet*.md`` at the root, ``README*`` and ``*.md`` in a
    top-level ``data/`` folder, the README of a dataset one level below it
    (``data/<set>/README*``, §0.3 headings), and the README of a data folder anywhere
    else in the deposit's own files (``analysis/data/README.md``,
    ``analysis/data/raw_data/README.md``, ``Analysis/OrigData/ReadMe.md``: §0.3's
    dataset README by its spirit, a README describing the data files beside it);
    matched case-insensitively, prose extensions only. A folder named ``data``/
    ``dataset(s)`` that is a code package (an ``__init__.py`` or only source files, no
    data file below it) is code: its README documents modules, not data."""
    found = [
        p for p in tree.files_in("")
        if _ROOT_DATA_DOC_RE.fullmatch(_name(p)) and _suffix(p) in _PROSE_EXTS
    ]
    for folder in tree.subdirs(""):
        if _name(folder).lower() != "data" or _is_code_package(tree, folder):
            continue
        for path in tree.files_in(folder):
            lower = _name(path).lower()
            if (lower.startswith("readme") and _suffix(path) in _PROSE_EXTS) or lower.endswith((".md", ".markdown")):
                found.append(path)
        for dataset in tree.subdirs(folder):
            found += [p for p in tree.files_in(dataset)
                      if _name(p).lower().startswith("readme") and _suffix(p) in _PROSE_EXTS]
    for path in tree.files:
        if "/" not in path or not _name(path).lower().startswith("readme") or _suffix(path) not in _PROSE_EXTS:
            continue
        folder = path.rsplit("/", 1)[0]
        if folder.split("/", 1)[0].lower() == "data" and folder.count("/") <= 1:
            continue   # the top-level data folder and its datasets: the rules above
        if _is_data_folder(tree, folder) and is_data_use_path(tree, path):
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
# Registrants of institutional domain archives (§0.2.16): EMBL-EBI (EMPIAR, BioImage
# Archive, BioStudies, MetaboLights) and the wwPDB; A2 80 as the other EBI archives.
INSTITUTIONAL_DOI_PREFIXES = frozenset({"10.6019", "10.2210"})

_ARCHIVE_HOSTS = ("zenodo.org", "figshare.com", "osf.io", "datadryad.org", "data.mendeley.com",
                  "pangaea.de", "ukdataservice.ac.uk", "data.4tu.nl", "openneuro.org", "physionet.org",
                  "icpsr.umich.edu", "openicpsr.org", "b2share.eudat.eu",
                  # domain repositories (§0.2.16)
                  "dandiarchive.org", "neurovault.org")
_INSTITUTIONAL_HOSTS = ("archive.ics.uci.edu", "ega-archive.org", "synapse.org", "openml.org")
# Intergovernmental and central-bank data services (with ``*.gov``, A2 institutional in a data context).
_PUBLIC_DATA_HOSTS = ("who.int", "fred.stlouisfed.org", "data.worldbank.org", "ec.europa.eu", "oecd.org", "imf.org")
_NCBI_DATA_PATHS = ("/geo/", "/sra/", "/bioproject/", "/biosample/")
_EBI_DATA_PATHS = ("/ena/", "/arrayexpress/", "/pride/", "/biostudies/", "/bioimage-archive/", "/empiar/",
                   "/metabolights/", "/pdbe/")
# Protein Data Bank entries and files outside the EBI (§0.2.16): RCSB PDB, PDBj, wwPDB
_PDB_HOSTS = ("rcsb.org", "pdbj.org", "wwpdb.org")
_PDB_DATA_PATHS = ("/structure/", "/download/", "/pdb/", "/entry/", "/pub/pdb/")
# Figshare item types that are not data (§0.2.16: a ``/articles/software/`` record is
# software); ``/articles/dataset/``, ``/articles/<id>`` and figures, media... are data.
_FIGSHARE_NOT_DATA_TYPES = frozenset({
    "software", "code", "preprint", "poster", "presentation", "journal_contribution", "thesis", "book",
    "conference_contribution", "educational_resource", "chapter", "peer_review", "online_resource"})
# Kaggle paths that are not a dataset's ``/<owner>/<slug>`` (§0.2.16)
_KAGGLE_NOT_DATASET = frozenset({
    "c", "code", "competitions", "learn", "discussions", "discussion", "docs", "models", "account", "settings",
    "search", "organizations", "notebooks", "kernels", "general", "product-feedback", "static", "terms",
    "privacy", "contact", "about", "careers", "rankings", "progression", "benchmarks", "host", "me", "work"})
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


# Files a code host keeps beside a repository rather than in it: release assets, files
# attached to an issue or pull request (GitHub ``files/<id>/``, GitLab ``uploads/<hash>/``)
_HOSTED_ASSET_RE = re.compile(r"/releases/download/|/files/\d+/[^/]+$|/uploads/[0-9a-f]{16,}/[^/]+$")


def _hosted_data_file(url: str) -> bool:
    """A data file or data archive (§0.2.15: ``mnist.tar.gz``, not a versioned or source
    release, a platform build or a code file) that a code host keeps beside a repository:
    below the repository's own URL it is data the repository distributes, not the
    repository itself, whose files (raw and blob views too) stay its own."""
    path = _split_url(url)[1].rstrip("/")
    name = path.rsplit("/", 1)[-1].lower()
    if not name or not _HOSTED_ASSET_RE.search(path.lower()) or _SOFTWARE_URL_RE.search(url):
        return False
    return data_extension(name) is not None or is_data_archive_name(name)


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
                host in _CODE_HOSTS or host == "raw.githubusercontent.com") and not _hosted_data_file(url):
            return True
        for own in self.urls:
            if norm == own:
                return True
            # A host-only homepage must not swallow every link to that host, and a
            # repository's URL not the data hosted beside it (a release asset or a file
            # attachment of a data format): the code-host rules classify those.
            if "/" in own and norm.startswith(own + "/") and not _hosted_data_file(url):
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
    # links of this line whose text is a citation marker ("Westerholt 2026", "Wolf et
    # al.", "[3]"): inline citations, which count only in a data context
    cited: frozenset[str] = frozenset()
    # code-host links this line calls a dataset ("the [FashionMNIST](…) dataset")
    datasets: frozenset[str] = frozenset()


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
    if prefix in INSTITUTIONAL_DOI_PREFIXES:
        return Pointer(80, "data_pointer.institutional_doi", doi, f"DOI {doi} of an institutional data archive")
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
    if url in ctx.cited and not ctx.data:
        return "citation"
    if host in ("doi.org", "dx.doi.org"):
        doi = _clean_doi(path.lstrip("/"))
        return classify_doi(doi, ctx, own) if doi.startswith("10.") else "not_data"
    if ctx.citation and not ctx.data:
        return "citation"
    lower = path.lower()
    if _host_is(host, "osf.io") and lower.startswith(("/preprints/", "/meetings/")):
        return "publication"   # an OSF preprint or meeting record is a publication, not data
    if _host_is(host, "figshare.com") and _figshare_type(lower) in _FIGSHARE_NOT_DATA_TYPES:
        return "publication"   # software, code, preprints, posters... (§0.2.16)
    if _host_is(host, *_ARCHIVE_HOSTS) or "dataverse" in host.split(".") or (
        _host_is(host, "mendeley.com") and lower.startswith("/datasets")
    ):
        return Pointer(100, "data_pointer.archival_host", url, f"data archive URL ({host})")
    if _FIGSHARE_DATASET_PATH_RE.match(lower):
        # Figshare for Institutions: a university's research data repository on Figshare
        # (rdr.ucl.ac.uk, data.bris.ac.uk...) keeps Figshare's record path and mints DOIs
        return Pointer(100, "data_pointer.archival_host", url, f"Figshare data record ({host})")
    if _host_is(host, *_PDB_HOSTS) and any(p in lower for p in _PDB_DATA_PATHS):
        return Pointer(80, "data_pointer.institutional_host", url, f"Protein Data Bank entry or file ({host})")
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
    if ctx.download and "data" in lower and (host.endswith(".gov") or _host_is(host, *_PUBLIC_DATA_HOSTS)):
        # a government or intergovernmental data page named in a data context (NOAA,
        # Census, HUD, BLS, FRED, WHO) -- a data section, code, or a line naming data or
        # a download ("we combine data from the [WHO](https://covid19.who.int/data)"):
        # an institutional data host
        return Pointer(80, "data_pointer.institutional_host", url, f"institutional data host URL ({host})")
    if _host_is(host, "kaggle.com") and _is_kaggle_dataset(lower):
        return Pointer(75, "data_pointer.kaggle", url, "Kaggle dataset URL")
    code_host = _code_host_pointer(url, host, path, named_dataset=url in ctx.datasets)
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


# Figshare's dataset record path, ``/articles/dataset/<title>/<id>[/<version>]``, which only
# Figshare and the institutional portals it runs use (§0.2.16)
_FIGSHARE_DATASET_PATH_RE = re.compile(r"^/articles/dataset/[^/]+/\d+(?:/\d+)?/?$")


def _figshare_type(path: str) -> str:
    """The item type of a Figshare article path (``/articles/software/<title>/<id>``);
    "" for ``/articles/<id>`` and other paths."""
    parts = [p for p in path.split("/") if p]
    return parts[1] if len(parts) >= 3 and parts[0] == "articles" and not parts[1].isdigit() else ""


def _is_kaggle_dataset(path: str) -> bool:
    """``/datasets/<owner>/<slug>`` or a dataset's ``/<owner>/<slug>`` page (§0.2.16), never
    a competition, notebook, course or discussion."""
    parts = [p for p in path.split("/") if p]
    if parts[:1] == ["datasets"]:
        return len(parts) >= 2
    return len(parts) >= 2 and parts[0] not in _KAGGLE_NOT_DATASET and parts[1] not in ("code", "discussion")


_ARCHIVE_NAME_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".7z")
# Archives a source release comes in (library tarballs: ``.tar.bz2``, ``.tar.xz`` too)
_RELEASE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz", ".7z", ".tar")
# A versioned or source-named archive is a software release, not a data archive:
# ``tool-1.2.tar.gz``, a tag archive ``v1.2.tar.gz``, ``master.zip``, ``src.tgz``.
_SOFTWARE_ARCHIVE_RE = re.compile(r"[-_.]v?\d+(?:\.\d+)+|^v?\d+(?:\.\d+)+$"
                                  r"|(?:^|[-_.])(?:src|source|install|setup|master|main)(?:[-_.]|$)")


def is_data_archive_name(name: str) -> bool:
    """A file name ending in an archive suffix (§0.2.15) that is not a versioned
    software release (``tool-1.2.tar.gz``) or a source archive (``master.zip``)."""
    lower = name.lower()
    for suffix in _ARCHIVE_NAME_SUFFIXES:
        if lower.endswith(suffix) and len(lower) > len(suffix):
            return _SOFTWARE_ARCHIVE_RE.search(lower[: -len(suffix)]) is None
    return False


def is_software_archive_name(name: str) -> bool:
    """A release archive name (``.tar.gz .tar.bz2 .tar.xz .zip``…) whose stem is a version
    or a source name: ``fftw-3.3.10.tar.gz``, ``openmpi-4.1.5.tar.bz2``, ``v2.1.tar.gz``."""
    lower = name.lower()
    for suffix in _RELEASE_SUFFIXES:
        if lower.endswith(suffix) and len(lower) > len(suffix):
            return _SOFTWARE_ARCHIVE_RE.search(lower[: -len(suffix)]) is not None
    return False


# GitHub's archive endpoints of a repository at a ref: the REST API's
# ``api.github.com/repos/<owner>/<repo>/tarball|zipball[/<ref>]`` and the download host
# ``codeload.github.com/<owner>/<repo>/tar.gz|zip/<ref>`` (group 1: the repository name)
_GITHUB_API_ARCHIVE_RE = re.compile(r"/repos/[^/]+/([^/]+)/(?:tarball|zipball)(?:/.*)?", re.IGNORECASE)
_CODELOAD_ARCHIVE_RE = re.compile(r"/[^/]+/([^/]+)/(?:legacy\.)?(?:tar\.gz|zip)(?:/.*)?", re.IGNORECASE)


def _github_archive_repo(host: str, path: str) -> str | None:
    """The repository name of a GitHub source-archive URL, else None."""
    pattern = {"api.github.com": _GITHUB_API_ARCHIVE_RE, "codeload.github.com": _CODELOAD_ARCHIVE_RE}.get(host)
    match = pattern.fullmatch(path) if pattern is not None else None
    return match.group(1).lower() if match else None


def is_software_release(url: str, own: OwnIdentifiers | None = None) -> bool:
    """A URL of a software release, never data (METRICS.md §0.3 native codes: software
    downloads are never data acquisition): a library tarball or versioned source archive
    (``fftw-3.3.10.tar.gz``, ``openmpi-4.1.5.tar.bz2``, ``archive/v1.2.tar.gz``, a code
    host's ``archive/master.zip``) that no data archive hosts (a versioned dataset on
    Zenodo or an institutional archive stays data); GitHub's source archive of a
    repository at a ref (``api.github.com/repos/<o>/<r>/tarball/<ref>``, ``…/zipball``,
    ``codeload.github.com/<o>/<r>/tar.gz/<ref>``), unless the repository is named as
    data (``<o>/xyz-data``)."""
    host, path = _split_url(url)
    archived = _github_archive_repo(host, path)
    if archived is not None:
        return not {"data", "dataset", "datasets"} & set(re.split(r"[-_.]", archived.removesuffix(".git")))
    name = path.rstrip("/").rsplit("/", 1)[-1].lower()
    if not name or data_extension(name) is not None:
        return False
    lower = path.lower()
    release = is_software_archive_name(name) or (
        _host_is(host, *_CODE_HOSTS) and "/archive/" in lower and name.endswith(_RELEASE_SUFFIXES))
    if not release:
        return False
    pointer = classify_url(url, _CODE_CONTEXT, own or OwnIdentifiers(set(), set()))
    return not (isinstance(pointer, Pointer) and pointer.value >= 80)


def _code_host_pointer(url: str, host: str, path: str, named_dataset: bool = False) -> Pointer | str | None:
    """Code-host links count only for data: raw/blob data files, release assets, LFS
    media, or data repositories: named as data (``owner/xyz-data``) or called a dataset
    by the text that links them (``named_dataset``)."""
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
    # a file attached to an issue or a pull request (``owner/repo/files/<id>/<name>``,
    # ``user-attachments/files/<id>/<name>``), hosted like a release asset
    if "/releases/download/" not in lower and _hosted_data_file(url):
        return Pointer(60, "data_pointer.code_host", url, "data file attached on a code host")
    if len(segments) >= 2:
        repo = segments[1].removesuffix(".git")
        if {"data", "dataset", "datasets"} & set(re.split(r"[-_.]", repo)):
            return Pointer(60, "data_pointer.code_host", url, f"data repository on a code host ({segments[0]}/{repo})")
        if named_dataset and (len(segments) == 2 or segments[2] == "tree"):
            # the dataset's own repository, which distributes its files (``[FashionMNIST](…) dataset``)
            return Pointer(60, "data_pointer.code_host", url,
                           f"repository the text calls a dataset on a code host ({segments[0]}/{repo})")
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


# --------------------------------------------------------------------------- workflow remote inputs (A2, A4; §0.3 workflow data)

_REMOTE_URI_RE = re.compile(r"^(?:https?|ftp|s3|gs|az)://\S+$", re.IGNORECASE)
# Nextflow calls that stage the file a parameter names (``file(params.input)``,
# ``Channel.fromPath(params.reads)``, nf-schema's ``samplesheetToList(params.input, …)``)
_NF_READERS = frozenset({"file", "files", "fromPath", "fromFilePairs", "samplesheetToList", "fromSamplesheet"})
_PARAM_REF_RE = re.compile(r"\bparams\.(\w+)")


@dataclass(frozen=True)
class RemoteParam:
    """A Nextflow parameter set to a remote file (in ``nextflow.config``, a profile's
    ``conf/*.config`` or a ``.nf`` file) that a reader of the pipeline stages."""

    path: str
    line: int
    name: str
    url: str
    reader: str


def nextflow_remote_params(tree: TreeIndex) -> list[RemoteParam]:
    """Parameters bound to a remote URL (``params.input = 'https://…'``, ``input = 's3://…'``
    in a ``params { }`` scope) that a ``.nf`` file reads with ``file()``,
    ``Channel.fromPath()``, ``fromFilePairs()`` or nf-schema's ``samplesheetToList()``:
    Nextflow stages the remote file when the pipeline runs (§0.3 workflow data: pointers
    and acquisition), once per tree."""
    memo = _memo(tree)
    found = memo.get("nf_remote_params")
    if found is not None:
        return found
    readers: dict[str, str] = {}
    bound = _nextflow_remote_bindings(tree)
    for path in tree.by_frontend("nextflow"):
        facts = tree.facts(path)
        if facts is None or facts.frontend != "nextflow":
            continue
        for call in facts.calls:
            reader = call.name.rsplit(".", 1)[-1]
            if reader not in _NF_READERS:
                continue
            for value in (*call.args, *(v for _k, v in call.kwargs)):
                text = value if isinstance(value, str) else getattr(value, "text", "")
                for name in _PARAM_REF_RE.findall(text if isinstance(text, str) else ""):
                    readers.setdefault(name, reader)
    found = memo["nf_remote_params"] = [RemoteParam(path, line, name, url, readers[name])
                                        for path, line, name, url in bound if name in readers]
    return found


def _nextflow_remote_bindings(tree: TreeIndex) -> list[tuple[str, int, str, str]]:
    """(path, line, name, URL) of each parameter a Nextflow file or config binds to a
    remote URL, once per tree."""
    memo = _memo(tree)
    found = memo.get("nf_remote_bindings")
    if found is not None:
        return found
    bound: list[tuple[str, int, str, str]] = []
    for path in tree.by_frontend("nextflow"):
        facts = tree.facts(path)
        if facts is None or facts.frontend != "nextflow":
            continue
        assigned = {(arg.line, arg.name) for arg in facts.cli_args if arg.kind == "params" and arg.assigned and arg.name}
        if assigned:
            for literal in facts.strings:
                if (literal.line_start, literal.binding) in assigned and _REMOTE_URI_RE.match(literal.value.strip()):
                    bound.append((path, literal.line_start, literal.binding, literal.value.strip()))
    memo["nf_remote_bindings"] = bound
    return bound


def nextflow_param_urls(tree: TreeIndex) -> dict[str, str]:
    """The remote URL each Nextflow parameter is bound to (the first binding), by name:
    a process script's ``${params.name}`` stands for it."""
    table: dict[str, str] = {}
    for _path, _line, name, url in _nextflow_remote_bindings(tree):
        table.setdefault(name.removeprefix("params."), url)
    return table


# Snakemake remote providers by the name the file gives them (``HTTP.remote("host/path")``);
# the provider's scheme completes a scheme-less address.
_SNAKEMAKE_PROVIDER_SCHEMES = (("ftp", "ftp://"), ("http", "https://"), ("s3", "s3://"), ("gcs", "gs://"),
                               ("gs", "gs://"), ("azblob", "az://"))


def snakemake_remote_urls(facts: FileFacts) -> list[tuple[int, str]]:
    """(line, URL) of the remote inputs a Snakemake file declares through a remote
    provider of ``snakemake.remote`` (``HTTP.remote("example.org/x.fa")`` is
    ``https://example.org/x.fa``, ``FTP.remote(…)`` an ``ftp://`` address; §0.3 workflow
    data)."""
    if not any(ref.module.startswith("snakemake.remote.") for ref in facts.imports):
        return []
    found = []
    for call in facts.calls:
        receiver, _, method = call.written.rpartition(".")
        first = call.args[0] if call.args else None
        if method != "remote" or not isinstance(first, str) or not first.strip():
            continue
        scheme = next((s for key, s in _SNAKEMAKE_PROVIDER_SCHEMES if key in receiver.lower()), None)
        if scheme is not None:
            found.append((call.line, first.strip() if "://" in first else scheme + first.strip().lstrip("/")))
    return found


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
# (an ``inst/extdata`` file named by a call of the package's ``R/`` code; scripts under
# ``inst/`` that build example fits are example builders, like ``data-raw/``).
_RESOURCE_DIRS = ("share/", "inst/")


# Copies in a documentation build's recipes: ``rsync -r ../notebooks/ ./notebooks/``,
# ``cp -r ../examples .``
_COPY_PROGRAMS = frozenset({"rsync", "cp"})
_COPYTREE_CALLS = frozenset({"shutil.copytree", "shutil.copy", "shutil.copy2", "shutil.copyfile"})
_DOCS_FOLDERS = frozenset({"docs", "doc"})


def documentation_sources(tree: TreeIndex) -> frozenset[str]:
    """Folders outside the documentation that its build copies into it, so that their
    notebooks and scripts are pages of the documentation (a Sphinx tutorial of
    ``notebooks/*.ipynb``): a recipe of a Make-like file in ``docs/`` or ``doc/`` running
    ``rsync``/``cp`` on ``../<folder>``, or the Sphinx ``conf.py`` there calling
    ``shutil.copytree``/``copy`` on such a literal; once per tree."""
    memo = _memo(tree)
    found = memo.get("documentation_sources")
    if found is not None:
        return found
    folders: set[str] = set()
    for docs in (d for d in tree.subdirs("") if _name(d).lower() in _DOCS_FOLDERS):
        sources: list[str] = []
        for path in tree.files_in(docs):
            if is_make_like(_name(path)):
                for target in _guarded(tree, path, "reading task recipes", lambda p=path: tree.task_targets(p), ()):
                    for _line, command in target.recipe:
                        for cmd in split_commands(command):
                            if cmd.program in _COPY_PROGRAMS:
                                sources += [a for a in cmd.args if not a.startswith("-")]
            elif _name(path) == "conf.py":
                facts = tree.facts(path)
                for call in facts.calls if facts is not None else ():
                    if call.name in _COPYTREE_CALLS and call.args and isinstance(call.args[0], str):
                        sources.append(call.args[0])
        for source in sources:
            if not source.startswith("../"):
                continue   # a copy within the documentation, or of the built pages out of it
            folder = posixpath.normpath(posixpath.join(docs, source))
            if folder and not folder.startswith("..") and folder != "." and tree.is_dir(folder) \
                    and _name(folder.split("/", 1)[0]).lower() not in _DOCS_FOLDERS:
                folders.add(folder)
    found = memo["documentation_sources"] = frozenset(folders)
    return found


def is_documentation_example(tree: TreeIndex, path: str) -> bool:
    """A test or documentation file (§0.2.1 roles), or a page the documentation build
    copies in (``documentation_sources``): its data are examples (§0.3 deposit kind)."""
    if tree.role(path) in ("docs", "test"):
        return True
    sources = documentation_sources(tree)
    return bool(sources) and any(path.startswith(folder + "/") for folder in sources)


def is_data_use_path(tree: TreeIndex, path: str) -> bool:
    """``path`` is where the deposit's own data use can be (not a test, documentation,
    example, vendored or build file, nor a page the documentation build copies in); the
    README and top-level files always are."""
    if "/" not in path:
        return True
    if documentation_sources(tree) and is_documentation_example(tree, path):
        return False
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
    per tree. In an R package only its ``R/`` code counts: the scripts under ``inst/``
    (``inst/extdata/run_examples.R``, ``inst/scripts/``) and ``data-raw/`` build the
    examples and test fits, they are not the package's use of a file."""
    memo = _memo(tree)
    names = memo.get("r_names")
    if names is None:
        found: set[str] = set()
        package = _is_r_package(tree)
        for path in tree.by_type("r"):
            if package and not path.startswith("R/"):
                continue
            if "/" in path and {p.lower() for p in path.split("/")[:-1]} & (_NOT_DATA_USE_DIRS | {"data-raw", "inst"}):
                continue
            facts = tree.facts(path)
            for call in facts.calls if facts is not None and facts.frontend == "r" else ():
                for value in (*call.args, *(v for _k, v in call.kwargs)):
                    if isinstance(value, str):
                        found.add(value.rsplit("/", 1)[-1])
        names = memo["r_names"] = frozenset(found)
    return names


_PLACEHOLDER_RE = re.compile(r"[{%$*<]")
_FRONTENDS = ("python", "r", "julia", "matlab", "c_cpp", "fortran", "nextflow", "snakemake")


def _path_literals(value: str, where: str) -> Iterator[str]:
    """The repository paths a string literal of the file ``where`` may name: the literal
    relative to the root and to the file's folder, and for a template
    (``files/inputs/{name}.json``) the folder before its first placeholder; "" for
    literals that are no relative path."""
    text = value.strip()
    if not text or len(text) > 300 or "://" in text or text.startswith(("/", "~")) or any(c.isspace() for c in text):
        return
    hole = _PLACEHOLDER_RE.search(text)
    if hole:
        text = text[: hole.start()].rsplit("/", 1)[0] if "/" in text[: hole.start()] else ""
    if "/" not in text.rstrip("/") and data_extension(text) is None:
        return   # a bare word is no path ("data", "inputs"); a bare file name is one
    for base in ("", where.rsplit("/", 1)[0] if "/" in where else ""):
        joined = posixpath.normpath(posixpath.join(base, text)) if text else ""
        if joined and joined != "." and not joined.startswith(".."):
            yield joined


_EXAMPLE_CODE_ROLES = frozenset({"test", "docs"})


def _bare_file_name(value: str) -> str:
    """A literal that is a file name alone (``"fmri_timeseries.csv"``, joined to a folder
    the code computes), or ""."""
    text = value.strip()
    if not text or len(text) > 200 or "/" in text or "\\" in text or any(c.isspace() for c in text):
        return ""
    if _PLACEHOLDER_RE.search(text) or "." not in text.strip("."):
        return ""
    return text


def named_only_by_examples(tree: TreeIndex, paths: list[str]) -> set[str]:
    """The files of ``paths`` that only test and documentation code names (§0.3 deposit
    kind: test data and documentation examples are not data use): the most specific of
    the file and its folders that a string literal of the code names is named by tests
    and documentation (``docs/``, ``doc/``, ``vignettes/``: a gallery's examples) alone --
    ``files/inputs/`` set as the working folder of ``test/jf_test_01.F90`` and nowhere in
    the library. A literal names a file by its path (from the root or the code's folder)
    or by the file's name alone, joined to a folder the code computes
    (``os.path.join(nitime.__path__[0], 'data')`` and ``'fmri_timeseries.csv'``)."""
    code_files = sorted({p for name in _FRONTENDS for p in tree.by_frontend(name)})

    def literals(examples: bool) -> tuple[set[str], set[str]]:
        names: set[str] = set()
        bare: set[str] = set()
        for path in code_files:
            role = tree.role(path)
            if (role in _EXAMPLE_CODE_ROLES) != examples or (not examples and role not in ("source", "build")):
                continue
            facts = tree.facts(path)
            for literal in facts.strings if facts is not None else ():
                if not literal.docstring:
                    names.update(_path_literals(literal.value, path))
                    file_name = _bare_file_name(literal.value)
                    if file_name:
                        bare.add(file_name)
        return names, bare

    # the example code first: the rest of the code is read only when an example names a data file
    example_names = literals(True)
    if not example_names[0] and not example_names[1]:
        return set()

    def named(path: str, names: tuple[set[str], set[str]]) -> str | None:
        parts = path.split("/")
        if path in names[0] or parts[-1] in names[1]:
            return path
        return next((p for p in ("/".join(parts[:end]) for end in range(len(parts) - 1, 0, -1)) if p in names[0]), None)

    candidates = {path: prefix for path in paths if (prefix := named(path, example_names))}
    if not candidates:
        return set()
    other_names = literals(False)
    found = set()
    for path, prefix in candidates.items():
        other = named(path, other_names)
        if other is None or len(other) < len(prefix):
            found.add(path)
    return found


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


# Named-dataset APIs: the call names the dataset it reads (CIFAR-10, MNIST, a hub
# dataset), so it loads data whatever its arguments (``download=False`` reads the copy
# on disk); generic folder readers and synthetic data (``ImageFolder``, ``FakeData``) are
# not among them.
_NAMED_DATASET_RE = re.compile(
    r"^(?:(?:torchvision|torchaudio)\.datasets\.(?!(?:ImageFolder|DatasetFolder|VisionDataset|FakeData)$)[A-Z]\w*"
    r"|torchtext\.datasets\.\w+|(?:tensorflow\.)?keras\.datasets\.\w+\.load_data"
    r"|tensorflow_datasets\.(?:load|builder)|datasets\.load_dataset|sklearn\.datasets\.fetch_\w+)$"
)
# The string literals of an argument's source text (Python prefixes, R, Julia and MATLAB
# quotes) and the fields a template fills in (f-string and ``str.format`` braces, ``%s``,
# Julia ``$(x)``/``$x``, shell-style ``${x}``).
_QUOTED_RE = re.compile(r"""[rRbBuUfF]{0,2}("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')""")
TEMPLATE_FIELD_RE = re.compile(r"\{[^{}]*\}|%[-#0 +]*\d*(?:\.\d+)?[sdifgeEr]|\$\([^()]*(?:\([^()]*\))?[^()]*\)|\$\{[^}]*\}|\$\w+")


def _supplies_a_name(literal: str) -> bool:
    """A literal of a path supplies a folder or a file name: it holds a path separator,
    or its text (fields taken out) starts with a name. A bare extension or suffix
    appended to a variable (``".eig"``, ``"_counts.csv"``, ``f"{seed}.eig"``) names no
    file: the variable does, and its value comes from the user."""
    text = TEMPLATE_FIELD_RE.sub("", literal).strip()
    return "/" in text or "\\" in text or (bool(text) and text[0].isalnum())


def _names_a_file(call: Any) -> bool:
    """The call reads a file the code names: a URL, a literal path, or a path a literal
    supplies the folder or file name of (``"data/" + name``, ``os.path.join(d, "x.csv")``,
    ``file.path("data", f)``). A loader called on a parameter (a library's
    ``h5py.File(filename)``), or on a parameter with only an extension or suffix appended
    (``np.loadtxt(seedname + ".eig")``, ``paste0(x, ".csv")``, ``"$(x).csv"``), reads
    whatever its user passes, which is not the deposit's data."""
    if call.urls:
        return True
    first = call.args[0] if call.args else next((v for _k, v in call.kwargs), None)
    if isinstance(first, str):
        return _supplies_a_name(first)
    text = getattr(first, "text", "")
    if not isinstance(text, str):
        return False
    return any(_supplies_a_name(match.group(1)[1:-1]) for match in _QUOTED_RE.finditer(text))


def _read_file_name(call: Any) -> str:
    """The name of the file a load call reads, from the last literal of its first
    argument that ends in a file name (``"$(@__DIR__)/timeseries.csv"``: ``timeseries.csv``);
    "" when no literal gives one."""
    first = call.args[0] if call.args else next((v for _k, v in call.kwargs), None)
    literals = [first] if isinstance(first, str) else [
        m.group(1)[1:-1] for m in _QUOTED_RE.finditer(getattr(first, "text", "") or "")]
    for literal in reversed(literals):
        name = literal.replace("\\", "/").rstrip().rsplit("/", 1)[-1]
        if "." in name.strip(".") and not TEMPLATE_FIELD_RE.search(name):
            return name
    return ""


def _written_intermediates(tree: TreeIndex) -> frozenset[str]:
    """Names of the files the deposit's own source code writes (a write call's path
    literal: ``writematrix(x, './timeseries.csv')``, ``df.to_csv("out/x.csv")``,
    ``saveRDS(m, "m.rds")``, ``writedlm``) that are not in the tree: products of its own
    run, once per tree."""
    memo = _memo(tree)
    found = memo.get("written_intermediates")
    if found is None:
        names: set[str] = set()
        for path in sorted({p for name in _FRONTENDS for p in tree.by_frontend(name)}):
            if tree.role(path) != "source":
                continue
            facts = tree.facts(path)
            for io in facts.file_io if facts is not None else ():
                if io.mode in ("write", "readwrite") and io.path:
                    name = io.path.replace("\\", "/").rstrip().rsplit("/", 1)[-1]
                    if name and not TEMPLATE_FIELD_RE.search(name):
                        names.add(name)
        if names:
            committed = {_name(p) for p in tree.files}
            names -= committed
        found = memo["written_intermediates"] = frozenset(names)
    return found


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
            if facts.frontend == "python" and _NAMED_DATASET_RE.match(call.name):
                out.append(DataSignal("call", path, f"named dataset {call.written}() at line {call.line}"))
                break
            if pattern.match(call.name) and _names_a_file(call) \
                    and _read_file_name(call) not in _written_intermediates(tree):
                out.append(DataSignal("call", path, f"data loading call {call.written}() at line {call.line}"))
                break
    return out


def data_use(tree: TreeIndex) -> DataUse:
    """Whether the deposit uses data (METRICS.md §0.3, deposit kind): data files in the
    data role, data loading or download calls in non-test, non-documentation code (a
    named-dataset API; a loader of a file a literal names that the deposit does not
    write itself), a data section or data document, a data pointer, or a workflow
    engine's pipeline."""
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


# GDAL virtual file systems reading a remote file (R sf/terra/stars, Python rasterio,
# geopandas, GDAL): ``/vsicurl/https://…`` (and ``_streaming``), object stores ``/vsis3/``,
# ``/vsigs/``, ``/vsiaz/``, ``/vsiadls/``, ``/vsioss/``, ``/vsiswift/`` with a path after
# them; a bare prefix (a pattern such as ``"^/vsizip//vsicurl/"``) names no file.
GDAL_REMOTE_RE = re.compile(
    r"/vsicurl(?:_streaming)?/(?:https?|ftp)://[^\s\"'<>]+"
    r"|/vsi(?:s3|gs|az|adls|oss|swift)(?:_streaming)?/[A-Za-z0-9][^\s\"'<>]*"
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
