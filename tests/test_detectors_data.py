"""Unit tests of the category A detectors (scoring/detectors/data/): rules the golden
fixtures do not pin down, and bad input.

Detectors are run through the registry after importing only the data package, so these
tests do not depend on the other category packages.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring.detectors.data._common import (
    OwnIdentifiers,
    Pointer,
    _Context,
    classify_doi,
    classify_url,
    data_extension,
    data_use,
    is_data_heading,
    probed,
)
from scoring.detectors.data.data_acquisition_script import shell_download, software_kind
from scoring.parsers.shell import split_commands
from scoring.registry import REGISTRY
from scoring.tree import TreeIndex

FIXTURES = Path(__file__).parent / "fixtures"

A_METRICS = ("data_description", "data_pointer", "workflow_orchestration", "data_acquisition_script")


@pytest.fixture
def run(make_tree):
    """``run(metric_id, files)`` → what the rules of one category-A detector measure
    (its probe: before the deposit-kind rule of METRICS.md §0.3, which makes A1-A4 not
    applicable when the deposit uses no data; the ``test_no_data_*`` tests cover it)."""

    def measure(metric_id: str, files: dict[str, str | bytes]):
        return probed(TreeIndex.from_path(make_tree(files)), metric_id)[0]

    return measure


def notebook(cells: list[tuple[str, str]], language: str = "python") -> str:
    raw = []
    for kind, source in cells:
        cell = {"cell_type": kind, "metadata": {}, "source": source}
        if kind == "code":
            cell.update({"execution_count": None, "outputs": []})
        raw.append(cell)
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {"language_info": {"name": language}}, "cells": raw})


def evidence(measurement) -> list[dict]:
    return [e.to_dict() for e in measurement.evidence]


def words(n: int) -> str:
    return " ".join(f"word{i}" for i in range(n))


# --------------------------------------------------------------------------- fixtures


@pytest.mark.parametrize("metric_id", A_METRICS)
def test_every_metric_has_three_fixture_cases(metric_id):
    assert len(list((FIXTURES / metric_id).glob("*/expected.json"))) >= 3
    # A2-A4 2.2.0: §0.2.14-§0.2.16 pointers, maintenance Makefiles and MATLAB drivers, R/MATLAB downloads
    # 2.3.0/2.4.0: a pointer in a code block of an R or Julia package's README is a usage example;
    # data_pointer 2.5.0: files the code fetches, code-host URLs of the project's own name
    # 2.6.0/2.4.0: the §0.2.15 data formats; an R package's data/ datasets are no data use by
    # themselves; every pointer in test code is test data; with them: badges matched on the
    # line their link closes, pointers outside tests first, a built URL spans from its literal;
    # data_acquisition_script: --help/--version runs, f/r-initial workflow lines, subshells;
    # workflow_orchestration: a Make-like file's evidence spans its rules
    # 2.7.0/2.5.0: headings and words of §0.2.7/§0.3, domain archives, publications, inline
    # citations, badges in data sentences, GDAL remote reads, workflow remote inputs and
    # wrappers, software releases, documentation and test data, R drivers;
    # 2.7.1/2.5.1: fix texts in the deposit's own ecosystem (§0.3)
    # data_description 2.6.0: a plain-text README's capital-letter lines are its headings
    # data_acquisition_script 2.6.0: httr POST, URLs built by paste0 & co, evidence at the call
    # data_pointer 2.8.0: Figshare for Institutions, config* folders and parameter files, files
    # test code fetches
    # data_description 2.7.0: the README of a data folder anywhere
    # 2.8.0/2.9.0/2.6.0/2.7.0: the deposit kind's named datasets, parameter-derived paths,
    # intermediates, example data named by tests and documentation, documentation-build pages
    # data_pointer 2.10.0: files of a data folder a source module opens, whatever their suffix
    # 2.9.0/2.11.0/2.7.0/2.8.0: MATLAB toolchain JSON is configuration; data attached on a code
    # host (own URL too); a download call's URL name in its scope; command-string downloads
    # a README spelt otherwise (READ_ME.txt) is found when no listed name exists (TreeIndex.readme,
    # §0.1.13 fallback): every detector that reads the README bumped
    # 2.11.0/2.13.0/2.8.0/2.9.0: the document title is no data section, run-in data labels,
    # HTML badges over several lines, "Missing data" compounds, code packages named datasets/
    # workflow_orchestration 2.9.0: _drake.R; data_acquisition_script 2.10.0/2.11.0: vendored
    # R/Julia files, GitHub source archives, local downloader functions
    # 2.12.0/2.14.0/2.10.0/2.12.0: the data word is the head of a data heading (§0.2.7)
    assert REGISTRY[metric_id].version == {"data_description": "2.12.0", "data_pointer": "2.14.0",
                                           "workflow_orchestration": "2.10.0",
                                           "data_acquisition_script": "2.12.0"}[metric_id]


# =========================================================================== A1


@pytest.mark.parametrize(
    ("heading", "is_data"),
    [
        ("Data", True),
        ("Input data", True),
        ("Data availability", True),
        ("Datasets and preprocessing", True),
        ("Data access", True),
        ("Dataset", True),
        ("Database", False),
        ("Database and data storage", False),
        ("Dataframe tips", False),
        ("Metadata", False),
        ("Data structures", False),
        ("Usage", False),
        # §0.2.7: the data word is the head of a short heading
        ("Raw data", True),
        ("Downloading the data", True),
        ("Downloading the data files", True),
        ("Get the code and example data", True),
        ("Read the code, access the data", True),
        ("Load packages and data", True),
        ("Code and data needed for this workshop", True),
        ("Availability of data and materials", True),
        ("General overview of full data", True),
        ("Additional data information", True),
        ("About the pasilla dataset", True),
        ("Public datasets: Leng et al. 2015", True),
        ("The data", True),
        ("Citing this data set", True),
        ("Adding a data set", True),
        ("A note on the data sets", True),
        ("Clean your data", False),
        ("High pass filter the data", False),
        ("Additional removal of 'bad data' periods", False),
        ("Centering the data", False),
        ("Visually comparing the raw and cleaned data", False),
        ("Fitting a polynomial to arbitrary data", False),
        ("Extended Data Figure 9", False),
        ("Plots by dataset {.tabset .tabset-fade}", False),
    ],
)
def test_data_heading_rule(heading, is_data):
    assert is_data_heading(heading) is is_data


def test_section_words_exclude_heading_code_and_urls(run):
    # 59 prose words: REF counted the heading's "##" and "Data" (61 -> 80); V2 counts
    # rendered prose only, so the section is 50.
    readme = (
        "# Tool\n\n## Data\n\n" + words(58) + " see https://example.org/a/b/c/d\n`inline code words here`\n\n"
        "```bash\nwget one two three four five six seven eight nine ten\n```\n\n## Usage\n\nRun.\n"
    )
    m = run("data_description", {"README.md": readme})
    assert m.counts["section_words"] == 59
    assert m.value == 50
    assert evidence(m)[0]["line_start"] == 3 and evidence(m)[0]["line_end"] == 11


def test_section_includes_subsections_until_same_level_heading(run):
    readme = "# Tool\n\n## Data\n\n" + words(30) + "\n\n### Sources\n\n" + words(30) + "\n\n## Usage\n\n" + words(50) + "\n"
    m = run("data_description", {"README.md": readme})
    assert m.value == 80
    assert m.counts["section_words"] == 60


def test_heading_inside_code_fence_is_not_a_data_section(run):
    m = run("data_description", {"README.md": "# Tool\n\n```markdown\n## Data\n" + words(80) + "\n```\n"})
    assert m.value == 0
    assert m.counts["readme_data_sections"] == 0


def test_keyword_in_code_only_does_not_count(run):
    m = run("data_description", {"README.md": "# Tool\n\nCall `load_dataset()` here.\n\n```\ndataset = 1\n```\n"})
    assert m.value == 0
    assert m.counts["keyword_matches"] == 0


def test_keyword_plural_and_phrase_across_lines(run):
    m = run("data_description", {"README.md": "# Tool\n\nWe list every data\nsource below.\n"})
    assert m.value == 20
    assert evidence(m)[0]["line_start"] == 3


def test_empty_data_document_does_not_count(run):
    m = run("data_description", {"DATA.md": "", "README.md": "# Tool\n"})
    assert m.value == 0
    assert evidence(m) == [{"path": "DATA.md", "line_start": None, "line_end": None,
                            "reason": "data document has no prose words", "rule": "data_description.empty_document",
                            "snippet": None}]


def test_maximum_over_sources(run):
    m = run("data_description", {
        "data.md": words(10),
        "README.md": "# Tool\n\n## Data\n\n" + words(60) + "\n",
    })
    assert m.value == 80
    assert [e["rule"] for e in evidence(m)] == ["data_description.readme_section", "data_description.data_document"]
    assert m.counts["data_documents"] == 1


def test_lowercase_and_nested_data_documents(run):
    m = run("data_description", {"Data/readme.txt": words(35), "DATA_AVAILABILITY.md": words(120), "docs/DATA.md": words(500)})
    assert m.value == 100
    assert {e["path"] for e in evidence(m)} == {"DATA_AVAILABILITY.md", "Data/readme.txt"}


def test_readme_notebook_section_reports_cell(run):
    readme = notebook([("markdown", "# Tool\n\nIntro."), ("code", "x = 1"), ("markdown", "## Dataset\n\n" + words(25))])
    m = run("data_description", {"README.ipynb": readme})
    assert m.value == 50
    assert evidence(m)[0]["cell"] == 3 and evidence(m)[0]["line_start"] == 1


# =========================================================================== A2


def test_pointer_evidence_outside_tests_first_and_each_file_first(run):
    files = {f"tests/test_fetch_{i:02d}.py": f'DOI = "10.5281/zenodo.{1000 + i}"\n' for i in range(25)}
    files["vignettes/intro.Rmd"] = ("---\ntitle: intro\n---\n\n## Data\n\nThe survey is archived at "
                                    "https://doi.org/10.5281/zenodo.77 and https://doi.org/10.5281/zenodo.78.\n")
    files["README.md"] = "# Survey\n\n## Data\n\nSee https://doi.org/10.5281/zenodo.99\n"
    # the deposit fetches its data itself, so its vignette's pointers count (2.7.0)
    files["scripts/get.sh"] = "wget https://example.org/survey.csv\n"
    m = run("data_pointer", files)
    # every pointer in test code is test data (2.6.0): the 25 test DOIs are ignored
    assert (m.value, m.counts["pointers"], m.counts["ignored_test_pointer"]) == (100, 4, 25)
    shown = [(e["path"], e["line_start"]) for e in evidence(m)]
    assert shown == [("README.md", 5), ("vignettes/intro.Rmd", 7), ("vignettes/intro.Rmd", 7), ("scripts/get.sh", 1)]


def test_documentation_pointers_count_only_when_the_deposit_fetches_data(run):
    files = {
        "README.md": "# geostats\n\nSpatial statistics.\n",
        "geostats/moran.py": "import numpy as np\n\ndef moran(x):\n    return np.mean(x)\n",
        "analysis/run.py": "import pandas as pd\n\ndf = pd.read_csv('data/regions.csv')\n",
        "data/regions.csv": "a,b\n1,2\n",
        "docs/guide.ipynb": notebook([
            ("markdown", "# Guide\n\nThe Berlin data: https://doi.org/10.5281/zenodo.4242"),
            ("code", "import geopandas as gpd\ndf = gpd.read_file('https://example.org/berlin.gpkg')"),
        ]),
    }
    m = run("data_pointer", files)
    # a tutorial's example data is not the deposit's (§0.3): no own download, so ignored
    assert (m.value, m.counts["pointers"], m.counts["ignored_documentation_examples"]) == (25, 0, 2)
    a4 = run("data_acquisition_script", files)
    assert (a4.value, a4.counts["downloads"], a4.counts["ignored_documentation_and_test_downloads"]) == (0, 0, 1)
    assert [(e["path"], e["rule"]) for e in evidence(a4)] == [("docs/guide.ipynb", "data_acquisition_script.example_ignored")]
    files["analysis/fetch.py"] = "import urllib.request\n\nurllib.request.urlretrieve('https://example.org/regions.csv', 'data/regions.csv')\n"
    m = run("data_pointer", files)
    # the deposit fetches data itself: its documentation names the data it retrieves
    assert (m.value, m.counts["ignored_documentation_examples"]) == (100, 0)
    assert evidence(m)[0]["path"] == "docs/guide.ipynb"


def test_a_file_test_code_fetches_is_a_test_pointer_never_shown_as_a_pointer(run):
    files = {
        "tests/test_world.py": ("import requests\n\nWORLD = 'https://maps.example.org/world/countries.json'\n\n"
                                "def test_world():\n    assert requests.get(WORLD).ok\n"),
        # the deposit's own download keeps its documentation and test pointers in the scan
        "scripts/get.py": "import urllib.request\n\nurllib.request.urlretrieve('https://example.org/regions.csv', 'r.csv')\n",
    }
    m = run("data_pointer", files)
    # the literal in test code and the file the test fetches are both test data (§0.2.3, §0.3)
    assert (m.value, m.counts["pointers"], m.counts["ignored_test_pointer"]) == (40, 1, 2)
    assert [(e["path"], e["line_start"], e["rule"]) for e in evidence(m)] == [
        ("scripts/get.py", 3, "data_pointer.direct_url")]


@pytest.mark.parametrize(("files", "local"), [
    ({"net/io.py": "open('data/ind.{}.{}'.format(name, part))\n", "net/data/ind.cora.x": "x"}, ["net/data/ind.cora.x"]),
    ({"io.R": "readRDS(file.path('data', 'graph'))\nx <- readLines('inputs/run_{i}.out')\n",
      "inputs/run_1.out": "1", "inputs/notes": "n"}, ["inputs/run_1.out"]),
    # a notebook may only demonstrate; a template whose file name is all fields names nothing
    ({"demo.ipynb": notebook([("code", "open('data/ind.cora.x')")]), "data/ind.cora.x": "x"}, []),
    ({"pkg/pdf.py": "key = '{}/{}'.format(a, b)\n", "pkg/data/table.x": "x"}, []),
    # prose and bibliographies are no data, nor are files outside a data folder
    ({"pkg/cite.py": "open('data/citation.bib')\n", "pkg/data/citation.bib": "@article{x}"}, []),
    ({"pkg/io.py": "open('models/ind.cora.x')\n", "pkg/models/ind.cora.x": "x"}, []),
])
def test_a_file_of_a_data_folder_a_module_opens_is_local_data_whatever_its_suffix(run, files, local):
    m = run("data_pointer", files)
    assert [e["path"] for e in evidence(m) if e["rule"] == "data_pointer.local_file"] == local


def test_pointer_built_from_pieces_spans_from_its_first_literal(run):
    source = ("from urllib.request import urlopen\n\n\ndef table(code):\n"
              "    url = 'https://tables.example.org/q/' + 'q' + str(code) + '.txt'\n"
              "    # one file per code\n    return urlopen(url).read()\n")
    m = run("data_pointer", {"pkg/tables.py": source})
    assert m.value == 40
    assert [(e["path"], e["line_start"], e["line_end"], e["rule"]) for e in evidence(m)] == [
        ("pkg/tables.py", 5, 7, "data_pointer.direct_url")]


def test_data_extension_strips_compression():
    assert data_extension("x.csv.gz") == ".csv"
    assert data_extension("x.tsv.bz2") == ".tsv"
    assert data_extension("table.parquet") == ".parquet"
    assert data_extension("archive.zip") is None
    assert data_extension("bundle.tar.gz") is None
    assert data_extension(".csv") is None


@pytest.mark.parametrize(
    ("url", "value"),
    [
        ("https://zenodo.org/records/123", 100),
        ("https://doi.org/10.6084/m9.figshare.99", 100),
        ("https://dataverse.harvard.edu/dataset.xhtml?persistentId=doi:10.7910/DVN/X", 100),
        ("https://osf.io/abc12/", 100),
        ("https://www.ncbi.nlm.nih.gov/geo/query/acc.cgi?acc=GSE1", 80),
        ("https://ftp.ncbi.nlm.nih.gov/genomes/all/x.fa.gz", 80),
        ("https://www.ebi.ac.uk/ena/browser/view/PRJEB1", 80),
        ("https://huggingface.co/datasets/imdb", 80),
        ("https://www.kaggle.com/datasets/a/b", 75),
        ("https://raw.githubusercontent.com/o/r/main/data/x.csv", 60),
        ("https://github.com/o/r/blob/main/data/x.tsv", 60),
        ("https://github.com/o/r/releases/download/v1/inputs.zip", 60),
        ("https://github.com/lab/covid-data", 60),
        ("https://example.org/files/table.parquet", 40),
    ],
)
def test_url_classes(url, value):
    ctx = _Context(data=False, citation=False)
    pointer = classify_url(url, ctx, OwnIdentifiers(set(), set()))
    assert isinstance(pointer, Pointer) and pointer.value == value


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("https://pubmed.ncbi.nlm.nih.gov/123/", "not_data"),
        ("https://www.ncbi.nlm.nih.gov/pmc/articles/PMC1/", "not_data"),
        ("https://europepmc.org/article/MED/1", "not_data"),
        ("https://github.com/o/r/blob/main/run.py", "code_host_not_data"),
        ("https://github.com/o/r/archive/refs/heads/main.zip", "code_host_not_data"),
        ("https://github.com/conda-forge/miniforge/releases/download/x/Miniforge3-Linux-x86_64.sh", "code_host_not_data"),
        ("https://img.shields.io/badge/data-zenodo-blue", "badge"),
        ("https://zenodo.org/badge/DOI/10.5281/zenodo.1.svg", "badge"),
        ("https://pypi.org/pypi/numpy/json", "not_data"),
        ("https://example.org/files/archive.zip", "not_data"),
        ("https://doi.org/10.1038/s41586-020-2649-2", "doi_outside_data_context"),
    ],
)
def test_urls_that_are_not_data_pointers(url, why):
    ctx = _Context(data=False, citation=False)
    assert classify_url(url, ctx, OwnIdentifiers(set(), set())) == why


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        # data hosted beside the repository: an attachment or a data release asset (2.11.0)
        ("https://github.com/lab/tool/files/8498876/mnist.tar.gz", 60),
        ("https://github.com/lab/tool/releases/download/v1/inputs.zip", 60),
        ("https://github.com/user-attachments/files/123/table.csv", 60),
        ("https://gitlab.com/lab/tool/uploads/0123456789abcdef0123456789abcdef/obs.csv", 60),
        # the repository itself, its files and its software releases stay its own
        ("https://github.com/lab/tool", "own"),
        ("https://github.com/lab/tool/blob/main/data/x.csv", "own"),
        ("https://raw.githubusercontent.com/lab/tool/main/data/x.csv", "own"),
        ("https://github.com/lab/tool/releases/download/v1.2/tool-1.2.tar.gz", "own"),
        ("https://github.com/lab/tool/releases/download/v1/tool-linux-x86_64.tar.gz", "own"),
        ("https://github.com/lab/tool/files/12/notes.pdf", "own"),
    ],
)
def test_own_repository_url_does_not_swallow_data_hosted_beside_it(url, expected):
    own = OwnIdentifiers({"github.com/lab/tool", "gitlab.com/lab/tool"}, set())
    found = classify_url(url, _Context(data=True, citation=False, download=True), own)
    assert (found.value if isinstance(found, Pointer) else found) == expected


def test_an_attachment_that_is_no_data_is_no_pointer():
    found = classify_url("https://github.com/o/r/files/12/notes.pdf", _Context(data=True, citation=False),
                         OwnIdentifiers(set(), set()))
    assert found == "code_host_not_data"


def test_doi_classes_by_prefix():
    own = OwnIdentifiers(set(), {"10.5281/zenodo.9"})
    plain = _Context(data=False, citation=False)
    in_data = _Context(data=True, citation=False)
    in_citation = _Context(data=False, citation=True)
    assert classify_doi("10.5281/zenodo.1", plain, own).value == 100
    assert classify_doi("10.34740/kaggle/dsv/1", plain, own).value == 75
    assert classify_doi("10.1093/gigascience/giad113", in_data, own).value == 60
    assert classify_doi("10.1093/gigascience/giad113", plain, own) == "doi_outside_data_context"
    assert classify_doi("10.5281/zenodo.1", in_citation, own) == "citation"
    assert classify_doi("10.5281/zenodo.9", in_data, own) == "own"


def test_own_repository_urls_from_metadata_are_ignored(run):
    m = run("data_pointer", {
        "README.md": "# Tool\n\nSee https://github.com/me/tool-data and https://zenodo.org/records/77.\n",
        "pyproject.toml": '[project]\nname = "tool"\n[project.urls]\nSource = "https://github.com/me/tool-data"\n',
        "codemeta.json": json.dumps({"@context": "https://w3id.org/codemeta/3.0", "identifier": "https://doi.org/10.5281/zenodo.77"}),
    })
    assert m.value == 0
    assert m.counts["ignored_own"] == 2


def test_homepage_without_path_does_not_swallow_its_host(run):
    m = run("data_pointer", {
        "README.md": "# Tool\n\nData: https://lab.example.org/files/obs.csv\n",
        "CITATION.cff": "cff-version: 1.2.0\nurl: https://lab.example.org\n",
    })
    assert m.value == 40


def test_accession_needs_data_context(run):
    m = run("data_pointer", {"README.md": "# Tool\n\nWe compared with GSE12345 and SRR1234567.\n"})
    assert m.value == 0
    m = run("data_pointer", {"DATA.md": "Counts come from GSE12345.\n"})
    assert m.value == 80
    assert evidence(m)[0] == {"path": "DATA.md", "line_start": 1, "line_end": 1,
                              "reason": "accession number GSE12345 in a data context",
                              "rule": "data_pointer.accession", "snippet": "GSE12345"}


def test_citation_doi_counts_only_in_data_context(run):
    cite = "## How to cite\n\n```bibtex\n@misc{data,\n  doi = {10.5281/zenodo.42}\n}\n```\n"
    m = run("data_pointer", {"README.md": "# Tool\n\n" + cite})
    assert m.value == 0 and m.counts["ignored_citation"] == 1
    # The same BibTeX entry in a data document is a data pointer.
    m = run("data_pointer", {"DATA.md": "Cite the data as\n\n@misc{data,\n  doi = {10.5281/zenodo.42}\n}\n"})
    assert m.value == 100
    assert evidence(m)[0]["line_start"] == 4


def test_rst_and_reference_style_badges_are_ignored(run):
    rst = (
        "Tool\n====\n\n.. image:: https://zenodo.org/badge/DOI/10.5281/zenodo.5.svg\n"
        "   :target: https://doi.org/10.5281/zenodo.5\n\nText.\n"
    )
    m = run("data_pointer", {"README.rst": rst})
    assert m.value == 0 and m.counts["ignored_badges"] == 2
    md = "# Tool\n\n[![DOI][badge]][doi]\n\n[badge]: https://zenodo.org/badge/DOI/10.5281/zenodo.5.svg\n[doi]: https://doi.org/10.5281/zenodo.5\n"
    m = run("data_pointer", {"README.md": md})
    assert m.value == 0


def test_html_badge_anchor_is_ignored(run):
    md = '# Tool\n\n<a href="https://doi.org/10.5281/zenodo.5"><img src="https://zenodo.org/badge/DOI/10.5281/zenodo.5.svg"></a>\n'
    assert run("data_pointer", {"README.md": md}).value == 0


def test_code_literals_and_scripts_are_scanned(run):
    m = run("data_pointer", {
        "src/load.py": '"""Loads https://zenodo.org/records/1 (docstring, ignored)."""\nURL = "https://huggingface.co/datasets/org/set"\n',
        "fetch.sh": "# https://zenodo.org/records/2 in a comment\ncurl -O https://example.org/t.tsv\n",
    })
    assert m.value == 80
    produced = evidence(m)
    assert produced[0]["path"] == "src/load.py" and produced[0]["line_start"] == 2
    assert {"path": "fetch.sh", "line_start": 2} == {k: produced[1][k] for k in ("path", "line_start")}
    assert m.counts["archival"] == 0


def test_local_data_file_rules(run):
    big = json.dumps({"values": list(range(400))})
    assert len(big) > 1024
    m = run("data_pointer", {
        "data/meta.json": "{}",
        "results.json": big,
        "config/params.json": big,
        "settings.json": big,
        "package.json": big,
        ".hidden/x.csv": "a\n",
        "inputs/raw.csv.gz": "x",
        "data/bundle.zip": "x",
    })
    assert m.value == 25
    assert sorted(e["path"] for e in evidence(m)) == ["data/meta.json", "inputs/raw.csv.gz", "results.json"]


def test_notebook_markdown_links_report_cells(run):
    nb = notebook([("code", "import pandas"), ("markdown", "# Data\n\nInputs: https://zenodo.org/records/5")])
    m = run("data_pointer", {"analysis.ipynb": nb})
    assert m.value == 100
    assert (evidence(m)[0]["cell"], evidence(m)[0]["line_start"]) == (2, 3)


# =========================================================================== A3


@pytest.mark.parametrize(
    ("files", "value", "rule"),
    [
        ({"rules/align.smk": "rule align:\n    shell: 'bwa mem'\n"}, 100, "workflow_orchestration.snakemake"),
        ({"main.nf": "process FOO {\n  script:\n  'echo'\n}\n"}, 100, "workflow_orchestration.nextflow"),
        ({"dvc.yaml": "stages:\n  train:\n    cmd: python train.py\n"}, 100, "workflow_orchestration.dvc"),
        ({"_targets.R": "library(targets)\nlist(tar_target(x, 1))\n"}, 100, "workflow_orchestration.targets"),
        ({"wf/analysis.ga": '{"a_galaxy_workflow": "true"}'}, 100, "workflow_orchestration.galaxy"),
        ({"wf/analysis.ga": '{"other": 1}'}, 0, None),
        ({"makefile": "figs:\n\tpython plot.py\n"}, 80, "workflow_orchestration.make_like"),
        ({"GNUmakefile": "figs: data.csv\n\tpython plot.py\n"}, 80, "workflow_orchestration.make_like"),
        ({"binder/Makefile": "env:\n\tconda env create\n"}, 80, "workflow_orchestration.make_like"),
        ({"scripts/pipeline.sh": "python a.py\n"}, 70, "workflow_orchestration.pipeline_script"),
        ({"src/pipeline.py": "x = 1\n"}, 0, None),
        ({"analysis/run_all.R": "source('a.R')\n"}, 0, None),
    ],
)
def test_workflow_tiers(run, files, value, rule):
    m = run("workflow_orchestration", files)
    assert m.value == value
    if rule:
        assert evidence(m)[0]["rule"] == rule


def test_make_like_evidence_spans_its_rules(run):
    makefile = ("requirements:\n\tpip install -r requirements.txt\n\nall: $(FIGS)\n\n"
                "figures/%.ipynb: src/%.py\n\tjupytext --execute --to notebook -o $@ $<\n")
    m = run("workflow_orchestration", {"Makefile": makefile, "src/fig1.py": "import numpy\n"})
    assert m.value == 80
    assert [(e["path"], e["line_start"], e["line_end"]) for e in evidence(m)] == [("Makefile", 1, 6)]


def test_luigi_and_prefect_resolved_through_imports(run):
    luigi = "import luigi as lg\n\n\nclass Fetch(lg.Task):\n    pass\n"
    m = run("workflow_orchestration", {"flows/fetch.py": luigi})
    assert (m.value, evidence(m)[0]["line_start"], evidence(m)[0]["rule"]) == (100, 4, "workflow_orchestration.luigi")
    prefect = "from prefect import flow\n\n\n@flow\ndef main():\n    pass\n"
    m = run("workflow_orchestration", {"flow.py": prefect})
    assert (m.value, evidence(m)[0]["line_start"]) == (100, 4)
    # A local class named Task is not Luigi.
    assert run("workflow_orchestration", {"a.py": "import luigi\nclass X(Task):\n    pass\n"}).value == 0


def test_kedro_project(run):
    m = run("workflow_orchestration", {"pyproject.toml": '[project]\nname = "p"\n\n[tool.kedro]\npackage_name = "p"\n'})
    assert (m.value, evidence(m)[0]["line_start"]) == (100, 4)
    m = run("workflow_orchestration", {"conf/base/catalog.yml": "x: 1\n", "requirements.txt": "kedro==0.19.1\n"})
    assert m.value == 100
    assert evidence(m)[0]["path"] == "requirements.txt" and evidence(m)[0]["line_start"] == 1
    assert run("workflow_orchestration", {"requirements.txt": "kedro==0.19.1\n"}).value == 0


def test_tasks_py_needs_invoke(run):
    celery = "from celery import Celery\napp = Celery()\n\n@app.task\ndef add(x, y):\n    return x + y\n"
    assert run("workflow_orchestration", {"tasks.py": celery}).value == 0
    invoke = "from invoke import task\n\n@task\ndef figures(c):\n    c.run('python plot.py')\n"
    m = run("workflow_orchestration", {"tasks.py": invoke})
    assert (m.value, evidence(m)[0]["line_start"]) == (80, 4)


# =========================================================================== A4


@pytest.mark.parametrize(
    ("line", "counted"),
    [
        ("wget https://zenodo.org/record/1/files/d.zip", True),
        ("wget -O d.zip https://example.org/d.zip", True),
        ("aria2c -x 4 https://example.org/big.tar", True),
        ("curl -L https://example.org/d.csv | tar xz", True),
        ("cd data && curl -LO https://example.org/d.csv", True),
        ("curl -fsSL https://get.docker.com | sh", False),
        ("curl -sSL https://example.org/setup | sudo bash -", False),
        ("wget https://repo.anaconda.com/miniconda/Miniconda3-latest-Linux-x86_64.sh", False),
        ("wget https://bootstrap.pypa.io/get-pip.py", False),
        ("curl -X POST https://api.example.org/upload -d @x.json", False),
        ("curl http://localhost:8000/health", False),
        ("wget $URL", False),
        ("echo wget https://example.org/d.csv", False),
        ("zenodo_get 10.5281/zenodo.1", True),
        ("osf -p abc12 clone data/", True),
        ("kaggle datasets download -d owner/name", True),
        ("kaggle kernels pull owner/name", False),
        ("dvc pull", True),
        ("datalad get -r inputs/", True),
        ("prefetch SRR000001", True),
        ("aws s3 cp s3://bucket/x.csv data/", True),
        ("aws s3 cp results/ s3://bucket/ --recursive", False),
        ("gsutil -m cp gs://bucket/x .", True),
        ("git clone https://huggingface.co/datasets/org/set", True),
        ("git clone https://github.com/org/tool", False),
        ("pip install -r requirements.txt", False),
        ("wget -qO- https://e.org/key.gpg | sudo apt-key add -", False),
        ("curl -fsSL https://get.docker.com | sh && wget https://example.org/x.csv", True),
        ("prefetch --help &> /dev/null", False),
        ("fasterq-dump --version", False),
        ("(wget -O- https://example.org/ref.fa.gz | gzip -dc; cat extra.fa) > ref.fa", True),
        ("{ curl -L https://example.org/a.csv; } > a.csv", True),
    ],
)
def test_shell_download_rule(line, counted):
    found = shell_download(split_commands(line), OwnIdentifiers(set(), set()))
    assert (found is not None and not found.installer) is counted


def test_workflow_download_lines_keep_their_first_letter(run):
    m = run("data_acquisition_script", {
        "main.nf": "process DUMP {\n    input:\n    val id\n    script:\n    \"\"\"\n    fasterq-dump \\\\\n"
                   "        --threads 4 \\\\\n        $id\n    \"\"\"\n}\n",
        "modules/check.sh": "#!/bin/bash\nprefetch --help &> /dev/null || exit 78\n",
    })
    assert m.value == 100
    assert [(e["path"], e["line_start"], e["reason"]) for e in evidence(m)] == [
        ("main.nf", 6, "SRA toolkit fasterq-dump fetches sequencing runs")]


def test_r_download_through_a_url_name_is_at_the_call_and_its_binding_follows(run):
    # each item's snippet is its own line's text: the call, then the line binding its URL
    rmd = ("---\ntitle: t\n---\n\n```{r}\n# where the raw data live\n"
           "raw_url <- \"https://example.org/study/raw.csv\"\n\nraw <- readr::read_csv(\n  raw_url\n)\n"
           "again <- readr::read_csv(raw_url)\n```\n")
    m = run("data_acquisition_script", {"analysis/report.Rmd": rmd, "data/README.md": "raw data: see report\n"})
    assert m.value == 100
    assert [(e["path"], e["line_start"], e["line_end"], e["rule"], e["snippet"]) for e in evidence(m)] == [
        ("analysis/report.Rmd", 9, 9, "data_acquisition_script.r_call", "raw <- readr::read_csv("),
        ("analysis/report.Rmd", 7, 7, "data_acquisition_script.url_binding",
         'raw_url <- "https://example.org/study/raw.csv"'),
        # a second call through the same name: its binding is shown once
        ("analysis/report.Rmd", 12, 12, "data_acquisition_script.r_call", "again <- readr::read_csv(raw_url)"),
    ]
    assert evidence(m)[0]["reason"] == "read_csv downloads https://example.org/study/raw.csv (the URL bound at line 7)"


@pytest.mark.parametrize(
    ("source", "counted"),
    [
        ('import requests\nr = requests.get(f"https://zenodo.org/records/{rid}/files/x.csv")\n', True),
        ('import requests as rq\nrq.get("https://example.org/api/data.json", timeout=5)\n', True),
        ('import requests\nrequests.get(url)\n', False),
        ('import pandas as pd\ndf = pd.read_csv("https://example.org/t.csv")\n', True),
        ('import pandas as pd\ndf = pd.read_csv("data/t.csv")\n', False),
        ('from urllib.request import urlretrieve\nurlretrieve("https://example.org/%s.csv" % name, "x")\n', True),
        ('from urllib.request import urlretrieve\nurlretrieve("https://bootstrap.pypa.io/get-pip.py", "g.py")\n', False),
        ('from datasets import load_dataset\nds = load_dataset("imdb")\n', True),
        ('from datasets import load_dataset\nds = load_dataset("csv", data_files="local.csv")\n', False),
        ('from datasets import load_dataset\nds = load_dataset("csv", data_files="https://example.org/x.csv")\n', True),
        ('from sklearn.datasets import fetch_openml\nX = fetch_openml("mnist_784")\n', True),
        ('from sklearn.datasets import load_iris\nX = load_iris()\n', False),
        ('import torchvision\nds = torchvision.datasets.MNIST("data", download=True)\n', True),
        ('from torchvision import datasets\nds = datasets.CIFAR10("data", download=False)\n', False),
        ('import tensorflow as tf\n(x, y), _ = tf.keras.datasets.mnist.load_data()\n', True),
        ('from huggingface_hub import hf_hub_download\nhf_hub_download("org/m", "w.bin")\n', True),
        ('import subprocess\nsubprocess.run(["wget", "-q", "https://example.org/x.csv"], check=True)\n', True),
        ('import os\nos.system("curl -s https://get.docker.com | sh")\n', False),
        ('from kaggle.api.kaggle_api_extended import KaggleApi\napi = KaggleApi()\napi.dataset_download_files("o/n")\n', True),
        ('def fetch_data():\n    pass\nfetch_data()\n', False),
        ('import GEOparse\ngse = GEOparse.get_GEO(geo="GSE1")\n', True),
        ('from Bio import Entrez\nh = Entrez.efetch(db="nucleotide", id="1")\n', True),
    ],
)
def test_python_download_rule(run, source, counted):
    m = run("data_acquisition_script", {"code.py": source})
    assert m.value == (100 if counted else 0), evidence(m)
    if counted:
        assert evidence(m)[0]["path"] == "code.py" and evidence(m)[0]["line_start"] >= 2


def test_python2_file_uses_line_patterns(run):
    source = 'import urllib2\nprint "fetching"\nresp = urllib2.urlopen("http://example.org/x.csv")\n'
    m = run("data_acquisition_script", {"old.py": source})
    assert m.value == 100
    assert evidence(m)[0]["line_start"] == 3
    assert evidence(m)[0]["rule"] == "data_acquisition_script.python_call"


def test_make_recipe_expands_variables_and_ignores_docs_makefile(run):
    makefile = "DATA_URL := https://example.org/obs.csv\n\ndata/obs.csv:\n\tmkdir -p data\n\twget -O $@ $(DATA_URL)\n"
    m = run("data_acquisition_script", {"Makefile": makefile})
    assert m.value == 100
    assert (evidence(m)[0]["path"], evidence(m)[0]["line_start"]) == ("Makefile", 5)
    assert "https://example.org/obs.csv" in evidence(m)[0]["snippet"]
    # Make-like files count only at the root and in environment locations (§0.1.14).
    assert run("data_acquisition_script", {"docs/Makefile": "data:\n\twget https://example.org/x.csv\n"}).value == 0


def test_notebook_magics_and_cells(run):
    nb = notebook([("markdown", "# Get data"), ("code", "%%bash\nset -e\nwget https://example.org/x.csv\n")])
    m = run("data_acquisition_script", {"get.ipynb": nb})
    assert m.value == 100
    assert (evidence(m)[0]["cell"], evidence(m)[0]["line_start"]) == (2, 3)
    nb = notebook([("code", "x = !curl -s https://example.org/api/list.json\n")])
    assert run("data_acquisition_script", {"a.ipynb": nb}).value == 100
    nb_r = notebook([("code", 'download.file("https://example.org/x.csv", "x.csv")')], language="R")
    m = run("data_acquisition_script", {"r.ipynb": nb_r})
    assert (m.value, evidence(m)[0]["cell"], evidence(m)[0]["rule"]) == (100, 1, "data_acquisition_script.r_call")


def test_rmarkdown_chunk_reports_file_line(run):
    rmd = "---\ntitle: x\n---\n\nText.\n\n```{r}\nlibrary(GEOquery)\ngse <- getGEO('GSE1')\n```\n"
    m = run("data_acquisition_script", {"analysis.Rmd": rmd})
    assert m.value == 100
    assert (evidence(m)[0]["line_start"], evidence(m)[0].get("cell")) == (9, None)


def test_r_and_julia_calls(run):
    assert run("data_acquisition_script", {"a.R": 'x <- read.csv("data/x.csv")\n# download.file("https://e.org/x")\n'}).value == 0
    m = run("data_acquisition_script", {"a.R": 'd <- data.table::fread("https://example.org/x.tsv")\n'})
    assert m.value == 100
    m = run("data_acquisition_script", {"get.jl": 'using Downloads\nDownloads.download("https://example.org/x.csv", "x.csv")\n'})
    assert (m.value, evidence(m)[0]["line_start"]) == (100, 2)
    m = run("data_acquisition_script", {"deps.jl": 'using DataDeps\nregister(DataDep("mnist", "msg", "https://e.org/m.gz"))\n'})
    assert m.value == 100


def test_workflow_remote_inputs(run):
    m = run("data_acquisition_script", {"main.nf": "ch = Channel.fromPath('https://example.org/reads/*.fq.gz')\n"})
    assert (m.value, evidence(m)[0]["rule"]) == (100, "data_acquisition_script.workflow_remote")
    m = run("data_acquisition_script", {"dvc.yaml": "stages:\n  get:\n    cmd: wget -O data/x.csv https://example.org/x.csv\n"})
    assert (m.value, evidence(m)[0]["line_start"]) == (100, 3)


def test_readme_commands_and_dvc_config_are_not_scripts(run):
    files = {
        "README.md": "# T\n\n```\nwget https://example.org/x.csv\ndvc pull\n```\n",
        ".dvc/config": "[core]\nremote = s3\n",
        "notes.dvc": "not a tracking file\n",
    }
    m = run("data_acquisition_script", files)
    assert m.value == 0
    assert m.counts == {"downloads": 0, "files_with_downloads": 0, "ignored_installers": 0,
                        "ignored_documentation_and_test_downloads": 0, "dvc_tracking_files": 0}


# =========================================================================== bad input


def test_empty_tree(run, make_tree):
    tree = TreeIndex.from_path(make_tree({}))
    values = {mid: REGISTRY[mid].run(tree) for mid in A_METRICS}
    # An empty deposit is not of the no-data kind (§0.3): nothing in it shows that it needs no
    # data, and METRICS.md §11.25 scores it A = 0 with the data penalty firing.
    assert {mid: (m.value, m.level, m.applicable) for mid, m in values.items()} == {
        "data_description": (0, None, True), "data_pointer": (0, "absent", True),
        "workflow_orchestration": (0, "absent", True), "data_acquisition_script": (0, None, True),
    }
    assert not any("uses no data" in (m.reason or "") for m in values.values())
    assert all(probed(tree, mid)[0].fix for mid in A_METRICS)


def _measure_all(make_tree, files):
    tree = TreeIndex.from_path(make_tree(files))
    return tree, {mid: REGISTRY[mid].run(tree) for mid in A_METRICS}


def test_no_data_library_is_not_applicable(make_tree):
    tree, values = _measure_all(make_tree, {
        "README.md": "# lib\n\n## Usage\n\n    import lib\n\nSee https://github.com/o/lib.\n",
        "lib/__init__.py": "import numpy as np\n\ndef f(x):\n    return np.sum(x)\n",
        "tests/data/sample.csv": "a,b\n1,2\n",
        "tests/test_f.py": "import pandas as pd\n\ndef test_f():\n    pd.read_csv('tests/data/sample.csv')\n",
        "docs/examples/demo.csv": "a\n1\n",
        "Makefile": "html:\n\tsphinx-build docs _build\n",
        "scripts/get_miniconda.sh": "wget https://repo.anaconda.com/miniconda/Miniconda3-latest-Linux-x86_64.sh\n",
    })
    assert data_use(tree).none
    assert {mid: (m.value, m.applicable) for mid, m in values.items()} == {mid: (0, False) for mid in A_METRICS}


@pytest.mark.parametrize("files, kind", [
    ({"README.md": "# x\n\n## Data\n\nThe survey responses.\n"}, "document"),
    ({"results/table.csv": "a\n1\n"}, "file"),
    ({"analysis.py": "import pandas as pd\npd.read_csv('input/survey.csv')\n"}, "call"),
    ({"analysis.R": "x <- read.csv(file.path('input', 'survey.csv'))\n"}, "call"),
    ({"get.sh": "wget https://zenodo.org/record/1/files/data.csv\n"}, "call"),
    ({"README.md": "# x\n\nThe data: https://doi.org/10.5281/zenodo.1234567\n"}, "document"),
])
def test_data_use_keeps_a1_to_a4_applicable(make_tree, files, kind):
    # A loader called on a parameter (a library's reader) names no file: not data use;
    # a literal path or one built from literals is.
    tree, values = _measure_all(make_tree, files)
    assert kind in {s.kind for s in data_use(tree).signals}
    assert all(m.applicable for m in values.values())


def test_hostile_inputs_never_raise(make_tree):
    root = make_tree({
        "binary.py": b"\x00\x00ELF with a .py name",
        "binary.sh": b"\x00\x01wget https://example.org/x.csv",
        "broken.ipynb": '{"cells": [',
        "markdown_only.ipynb": notebook([("markdown", "## Data\n\nOnly prose.")]),
        "not_a_notebook.ipynb": "[1, 2, 3]",
        "pyproject.toml": "[project\nname = 'x'",
        "CITATION.cff": ": : not yaml : :\n\t- x",
        "codemeta.json": "{not json",
        ".zenodo.json": '["a list"]',
        "latin1.R": 'download.file("https://example.org/caf\xe9.csv", "x")\n'.encode("latin-1"),
        "py2.py": "print 'hello'\nexcept:\n",
        "empty.py": "",
        "empty.sh": "",
        "README.md": b"# T\xff\xfe\n\n## Data\n\n\xff\xff prose here\n",
        "Makefile": "\t\torphan recipe\n:::\n",
        "Snakefile": '"""unterminated\n',
        "dvc.yaml": "stages: [unclosed\n",
        "x.dvc": b"\x00\x00",
        "tasks.py": "from invoke import task\n@task\ndef (:\n",
        "weird.txt": "https://[::1/bad and doi 10.1234/(((\n",
        "data/odd.csv": b"\x00\x01\x02",
    })
    tree = TreeIndex.from_path(root)
    results = {mid: REGISTRY[mid].run(tree) for mid in A_METRICS}
    assert results["data_description"].value == 20  # "## Data" heading in the undecodable README
    assert results["data_acquisition_script"].value == 100  # the latin-1 R script still downloads
    assert results["data_acquisition_script"].evidence[0].path == "latin1.R"
    assert results["workflow_orchestration"].value == 100  # Snakefile and dvc.yaml exist
    assert results["data_pointer"].value == 40  # the R script's URL of a .csv
    problems = {p["path"] for p in tree.inventory().problems}
    assert {"broken.ipynb", "pyproject.toml", "latin1.R", "README.md"} <= problems


def test_large_files_are_scanned_whole(make_tree):
    root = make_tree({
        "huge.py": "x = 1\n" * 100_000,
        "huge.sh": "echo step\n" * 100_000,
        "README.md": ("Some prose about the dataset, line.\n" * 20_000) + "## Data\n\nhttps://zenodo.org/records/1\n",
        "data/big.csv": "a,b\n" * 100_000,
    })
    tree = TreeIndex.from_path(root)
    results = {mid: REGISTRY[mid].run(tree) for mid in A_METRICS}
    assert results["data_pointer"].value == 100
    assert results["data_description"].value == 20


def test_rmarkdown_prose_and_chunks_are_scanned_once(run):
    rmd = "---\ntitle: x\n---\n\n# Data\n\nCounts from GSE4242.\n\n```{r}\nx <- read.csv('https://zenodo.org/records/9/files/c.csv')\n```\n"
    m = run("data_pointer", {"report.Rmd": rmd})
    assert m.value == 100
    assert [(e["line_start"], e["rule"]) for e in evidence(m)] == [
        (10, "data_pointer.archival_host"), (7, "data_pointer.accession")]


def test_the_download_prefilter_knows_every_data_tool():
    # shell lines naming no downloader or data tool are never split; a tool _download_tool
    # recognises but _DATA_TOOLS misses would never be found
    import ast
    import inspect

    from scoring.detectors.data import data_acquisition_script as a4

    named = set()
    for node in ast.walk(ast.parse(inspect.getsource(a4._download_tool))):
        if isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) and node.left.id == "program":
            for right in node.comparators:
                values = right.elts if isinstance(right, ast.Tuple) else [right]
                named.update(v.value for v in values if isinstance(v, ast.Constant))
    assert named and named <= a4._DATA_TOOLS
    assert a4._SRA_TOOLS <= a4._DATA_TOOLS
    # quotes and escapes do not hide a program from the test
    for line in ('w"get" https://example.org/d.zip', "c\\url -O https://example.org/d.zip", "'zenodo_get' 123"):
        assert a4._may_run_a_download(line)
        assert shell_download(split_commands(line)) is not None
    assert not a4._may_run_a_download("python train.py --epochs 3")


def test_a_loader_on_a_parameter_is_not_data_use(make_tree):
    tree, values = _measure_all(make_tree, {
        "lib/io.py": "import h5py\n\ndef read(filename):\n    return h5py.File(filename)\n",
        "share/params/Ag.json": "{" + '"a": 1, ' * 600 + '"b": 2}',
    })
    assert data_use(tree).none and not any(m.applicable for m in values.values())


@pytest.mark.parametrize(("source", "uses_data"), [
    # a literal supplies the file's name or folder: the deposit's own file
    ("np.loadtxt('runs/si.eig')", True),
    ("np.loadtxt(DATA + '/si.eig')", True),
    ("np.loadtxt(os.path.join(folder, 'si.eig'))", True),
    ("np.loadtxt(f'runs/{name}.eig')", True),
    ("np.loadtxt(f'si_{run}.eig')", True),
    # only an extension or a suffix appended to a parameter: whatever its user passes
    ("np.loadtxt(seedname + '.gw.unsorted.eig')", False),
    ("np.loadtxt(f'{seedname}.eig')", False),
    ("np.loadtxt('{}.eig'.format(seedname))", False),
    ("np.loadtxt('%s.eig' % seedname)", False),
    ("np.loadtxt(seedname + '_overlap.dat')", False),
    ("np.loadtxt(seedname)", False),
])
def test_a_path_names_a_file_only_when_a_literal_supplies_its_name_or_folder(make_tree, source, uses_data):
    tree = TreeIndex.from_path(make_tree({
        "tools/convert.py": f"import os\nimport sys\n\nimport numpy as np\n\nseedname = sys.argv[1]\nx = {source}\n"}))
    assert data_use(tree).none is not uses_data


@pytest.mark.parametrize(("files", "uses_data"), [
    ({"gen.R": "write.csv(sim, 'out/series.csv')\n", "fit.R": "x <- read.csv('out/series.csv')\n"}, False),
    ({"gen.py": "import pandas as pd\nsim.to_csv('series.csv')\n",
      "fit.jl": "using CSV\nx = CSV.read(\"$(@__DIR__)/series.csv\")\n"}, False),
    # the file is committed: the deposit's data, whoever wrote it
    ({"gen.R": "write.csv(sim, 'out/series.csv')\n", "fit.R": "x <- read.csv('out/series.csv')\n",
      "out/series.csv": "t,x\n0,1\n"}, True),
    # a test that writes the file makes no source's read of it an intermediate
    ({"tests/test_gen.R": "write.csv(sim, 'out/series.csv')\n", "fit.R": "x <- read.csv('out/series.csv')\n"}, True),
    # another file of the same name is read
    ({"gen.R": "write.csv(sim, 'out/series.csv')\n", "fit.R": "x <- read.csv('input/survey.csv')\n"}, True),
])
def test_a_file_the_deposit_writes_and_does_not_ship_is_an_intermediate_not_data(make_tree, files, uses_data):
    assert data_use(TreeIndex.from_path(make_tree(files))).none is not uses_data


@pytest.mark.parametrize(("source", "uses_data"), [
    ("import torchvision.datasets as D\nD.CIFAR10(root=args.root, download=False)\n", True),
    ("from torchvision import datasets\ndatasets.MNIST('~/data', train=True)\n", True),
    ("from tensorflow.keras.datasets import mnist\n(x, y), _ = mnist.load_data()\n", True),
    ("import tensorflow_datasets as tfds\nds = tfds.load('mnist', download=False)\n", True),
    ("from sklearn.datasets import fetch_openml\nX = fetch_openml('mnist_784', data_home=cache)\n", True),
    ("import torchaudio\nds = torchaudio.datasets.SPEECHCOMMANDS(root)\n", True),
    # generic folder readers and synthetic data name no dataset
    ("import torchvision.datasets as D\nD.ImageFolder(args.data)\n", False),
    ("import torchvision.datasets as D\nD.FakeData(size=10)\n", False),
])
def test_a_named_dataset_api_loads_data_whatever_its_arguments(make_tree, source, uses_data):
    tree = TreeIndex.from_path(make_tree({"train.py": source}))
    assert data_use(tree).none is not uses_data


@pytest.mark.parametrize(("files", "sources"), [
    ({"docs/Makefile": "html:\n\trsync -r ../notebooks/ ./notebooks/\n\tsphinx-build . _build\n",
      "notebooks/a.ipynb": "{}"}, {"notebooks"}),
    ({"doc/conf.py": "import shutil\n\nshutil.copytree('../examples/gallery', 'gallery')\n",
      "examples/gallery/plot.py": "x = 1\n"}, {"examples/gallery"}),
    # the built pages copied out of the documentation, a copy within it, a folder that is not there
    ({"docs/Makefile": "sync:\n\trsync -avh _build/html/ ../site/\n\tcp -r static/ _build/\n\tcp -r ../missing/ .\n"},
     set()),
    # a Makefile outside the documentation folders copies nothing into them
    ({"Makefile": "docs:\n\tcp -r notebooks docs/\n", "notebooks/a.ipynb": "{}"}, set()),
])
def test_folders_the_documentation_build_copies_in_are_documentation(make_tree, files, sources):
    from scoring.detectors.data._common import documentation_sources, is_data_use_path

    tree = TreeIndex.from_path(make_tree(files))
    assert documentation_sources(tree) == sources
    for folder in sources:
        example = next(p for p in tree.files if p.startswith(folder + "/"))
        assert not is_data_use_path(tree, example)


@pytest.mark.parametrize(("readme", "extra", "counted"), [
    ("analysis/data/README.md", {}, True),
    ("analysis/data/raw_data/README.md", {"analysis/data/raw_data/counts.csv": "a\n1\n"}, True),
    ("Analysis/FinalData/ReadMe.md", {"Analysis/FinalData/necropsy.csv": "a\n1\n"}, True),
    ("raw-data/README.md", {"raw-data/x.tsv": "a\n1\n"}, True),
    # a compound data folder that holds no data file, a folder that is not named for data
    ("Analysis/FinalData/ReadMe.md", {}, False),
    ("analysis/Metadata/README.md", {"analysis/Metadata/x.csv": "a\n1\n"}, False),
    ("src/DataStructures/README.md", {"src/DataStructures/x.csv": "a\n1\n"}, False),
    ("src/input_parser/README.md", {"src/input_parser/x.json": "{}"}, False),
    # test and documentation data describe examples
    ("tests/data/README.md", {}, False),
    ("docs/data/README.md", {}, False),
])
def test_the_readme_of_a_data_folder_is_a_data_document(run, readme, extra, counted):
    m = run("data_description", {"README.md": "# Study\n\nThe analysis.\n",
                                 readme: "The counts per sample, one row per gene, from the sequencing run.\n",
                                 **extra})
    assert (m.value, [e["path"] for e in evidence(m)]) == ((40, [readme]) if counted else (0, []))


# =========================================================================== fix texts by ecosystem

# A bare deposit of each ecosystem that uses data (a data file it reads) and has nothing
# else for A1-A4: the fix is written in the ecosystem's own tools (METRICS.md §0.3).
_BARE_TREES = {
    "python": {"analysis.py": "import pandas as pd\n\ndf = pd.read_csv('data/obs.csv')\n"},
    "r": {"analysis.R": "obs <- read.csv('data/obs.csv')\nsummary(obs)\n"},
    "julia": {"analysis.jl": "using CSV\n\nobs = CSV.read(\"data/obs.csv\")\n"},
    "matlab": {"analyse_obs.m": "obs = readtable('data/obs.csv');\ndisp(obs);\n"},
    "native": {"sim.c": "#include <stdio.h>\nint main(void) { FILE *f = fopen(\"data/obs.csv\", \"r\"); return f == 0; }\n"},
    "nextflow": {"main.nf": "workflow {\n    Channel.fromPath('data/obs.csv').view()\n}\n"},
    "snakemake": {"Snakefile": "rule all:\n    input: 'data/obs.csv'\n"},
}
_FIX_TEXTS = {
    "data_description": {
        "python": "Add DATA.md (or a '## Data' section in the README) giving the data's source, size, format, "
                  "licence and how to obtain it.",
        "r": "Add DATA.md (or a '## Data' section in README.Rmd) giving the data's source, size, format, licence "
             "and how to obtain it; document bundled datasets in R/data.R with roxygen @format and @source.",
        "julia": "Add DATA.md (or a '## Data' section in the README) giving the data's source, size, format, "
                 "licence and how to obtain it (the DataDeps.jl registration, if any).",
        "matlab": "Add DATA.md (or a '## Data' section in the README) giving the data's source, size, format "
                  "(the .mat variables and their units), licence and how to obtain it.",
        "native": "Add DATA.md (or a '## Data' section in the README) describing the input data the programs "
                  "read: source, size, file format, licence and how to obtain it.",
        "nextflow": "Describe the pipeline's input data in a '## Input data' section of the README or "
                    "docs/usage.md: the samplesheet columns, file formats, reference files and where to obtain them.",
        "snakemake": "Describe the workflow's input data in a '## Input data' section of the README or "
                     "config/README.md: the sample sheet, file formats, reference files and where to obtain them.",
    },
    "data_pointer": {
        "python": "Deposit the data in Zenodo or Figshare (or a domain archive) and cite its DOI in DATA.md or a "
                  "'## Data' section of the README.",
        "r": "Deposit the data in Zenodo or Figshare (or a domain archive) and cite its DOI in DATA.md or a "
             "'## Data' section of README.Rmd, and in the roxygen @source of the datasets it documents.",
        "julia": "Deposit the data in Zenodo or Figshare (or a domain archive) and cite its DOI in DATA.md or the "
                 "README's '## Data' section (and in the DataDeps.jl registration that fetches it).",
        "matlab": "Deposit the data in Zenodo, Figshare or a domain archive (DANDI, OpenNeuro, ...) and cite its "
                  "DOI in DATA.md or a '## Data' section of the README.",
        "native": "Deposit the input data in Zenodo or Figshare (or a domain archive) and cite its DOI in DATA.md "
                  "or a '## Data' section of the README.",
        "nextflow": "Deposit the input data in Zenodo or a domain archive (ENA/SRA accessions for reads) and point "
                    "the samplesheet and the test profile's params (conf/test.config) at its DOI or URLs.",
        "snakemake": "Deposit the input data in Zenodo or a domain archive (ENA/SRA accessions for reads) and name "
                     "its DOI or URLs in config/config.yaml and the README's data section.",
    },
    "workflow_orchestration": {
        "python": "Add a Snakefile (or a Makefile) whose rules run every analysis step from raw data to results.",
        "r": "Add a targets pipeline (_targets.R whose tar_target() steps run every analysis step from raw data "
             "to results), or at least a Makefile whose rules run the R scripts in order.",
        "julia": "Add a Makefile (or a Snakefile) whose rules run every analysis step from raw data to results "
                 "(`julia --project scripts/<step>.jl`).",
        "matlab": "Add a Makefile (or a Snakefile) whose rules run every analysis step with `matlab -batch "
                  "<step>`, or at least a run_all.m that calls the steps in order.",
        "native": "Add a Makefile (or a Snakefile) whose rules run the built programs on the input data, from "
                  "raw data to results.",
        # a workflow engine's files are the 100 tier: nothing to fix
        "nextflow": None,
        "snakemake": None,
    },
    "data_acquisition_script": {
        "python": "Add a script (e.g. scripts/download_data.sh) that fetches the archived data from its DOI or URL "
                  "and verifies its checksum, or track the data with DVC and document 'dvc pull'.",
        "r": "Add an R script (e.g. data-raw/download_data.R) that fetches the archived data from its DOI or URL "
             "with download.file() (or piggyback::pb_download(), BiocFileCache) and checks tools::md5sum().",
        "julia": "Register the archived data as a DataDeps.jl DataDep (its URL and SHA-256), or add a script that "
                 "calls Downloads.download() on its DOI or URL and checks the checksum.",
        "matlab": "Add a download_data.m that fetches the archived data with websave() from its DOI or URL and "
                  "checks its size or checksum.",
        "native": "Add a script (e.g. scripts/download_data.sh) that fetches the archived input data with wget or "
                  "curl from its DOI or URL and checks it with sha256sum -c.",
        "nextflow": "Let the pipeline fetch its inputs: point params.input (nextflow.config or a test profile) at "
                    "the archived data's URL so Nextflow stages it, or add a download process (wget/curl, "
                    "Channel.fromSRA).",
        "snakemake": "Add a rule that downloads the archived input data from its DOI or URL (a wget/curl shell, a "
                     "storage/HTTP remote input, or a snakemake-wrappers download such as "
                     "bio/reference/ensembl-sequence).",
    },
}


@pytest.mark.parametrize("ecosystem", list(_BARE_TREES))
@pytest.mark.parametrize("metric_id", A_METRICS)
def test_fix_texts_name_the_ecosystem_tools(make_tree, metric_id, ecosystem):
    files = {**_BARE_TREES[ecosystem], "data/obs.csv": "site,value\na,1\n"}
    measured = REGISTRY[metric_id].run(TreeIndex.from_path(make_tree(files)))
    assert measured.applicable
    assert measured.fix == _FIX_TEXTS[metric_id][ecosystem]


def test_fix_for_make_like_and_driver_tiers_names_the_ecosystem_tool(run):
    makefile = "all: results.csv\n\nresults.csv: data/obs.csv\n\tRscript analysis.R\n"
    r_files = {**_BARE_TREES["r"], "data/obs.csv": "a\n1\n", "Makefile": makefile}
    assert run("workflow_orchestration", r_files).fix == (
        "Declare the steps of Makefile as a targets pipeline (_targets.R) with explicit inputs and outputs.")
    py_files = {**_BARE_TREES["python"], "data/obs.csv": "a\n1\n", "run_all.py": "import analysis\n"}
    assert run("workflow_orchestration", py_files).fix == (
        "Replace run_all.py by a Snakefile or dvc.yaml pipeline whose steps run each analysis step in order.")


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://osf.io/preprints/socarxiv/vd3uk/", "publication"),
        ("https://osf.io/7gvda/", 100),
        ("https://figshare.com/articles/software/tool/123", "publication"),
        ("https://figshare.com/articles/journal_contribution/paper/124", "publication"),
        ("https://figshare.com/articles/dataset/cells/125", 100),
        ("https://figshare.com/articles/126", 100),
        ("https://www.kaggle.com/alice/leaf-images", 75),
        ("https://www.kaggle.com/datasets/alice/leaf-images", 75),
        ("https://www.kaggle.com/c/titanic", "not_data"),
        ("https://www.kaggle.com/code/alice/eda", "not_data"),
        ("https://www.kaggle.com/alice", "not_data"),
        ("https://www.rcsb.org/structure/4V6X", 80),
        ("https://www.ebi.ac.uk/empiar/EMPIAR-10028/", 80),
        ("https://www.ebi.ac.uk/biostudies/bioimages/studies/S-BIAD634", 80),
        ("https://doi.org/10.6019/EMPIAR-10028", 80),
    ],
)
def test_domain_archives_publications_and_kaggle_pages(url, expected):
    found = classify_url(url, _Context(data=False, citation=False), OwnIdentifiers(set(), set()))
    assert (found.value if isinstance(found, Pointer) else found) == expected


@pytest.mark.parametrize(
    ("url", "kind"),
    [
        ("https://www.fftw.org/fftw-3.3.10.tar.gz", "a software release"),
        ("https://download.open-mpi.org/release/open-mpi/v4.1/openmpi-4.1.5.tar.bz2", "a software release"),
        ("https://github.com/lab/tool/archive/v1.2.tar.gz", "a software release"),
        ("https://github.com/lab/tool/archive/refs/heads/master.zip", "a software release"),
        ("https://repo.anaconda.com/miniconda/Miniconda3-latest-Linux-x86_64.sh", "an installer"),
        ("https://zenodo.org/record/1/files/cohort-v1.0.tar.gz", None),
        ("https://example.org/data/cells.tar.gz", None),
        ("https://ftp.example.org/pub/release-104/genome.fa.gz", None),
    ],
)
def test_software_releases_are_not_data_downloads(url, kind):
    assert software_kind(url) == kind


def test_a_fetched_url_is_a_data_file_unless_a_bare_host_or_web_asset(run):
    files = {
        "analysis.R": 'res <- httr::GET("https://api.example.org")\nraw <- download.file("https://lab.example.org/runs/run1.lfp", "run1.lfp")\n',
        "fonts.jl": 'using Downloads\nDownloads.download("https://example.org/font.ttf", "font.ttf")\n',
        "data/obs.csv": "a\n1\n",
    }
    m = run("data_pointer", files)
    assert [(e["path"], e["line_start"], e["snippet"]) for e in evidence(m) if e["rule"] == "data_pointer.direct_url"] == [
        ("analysis.R", 2, "https://lab.example.org/runs/run1.lfp")]


def test_a_matlab_nested_function_sees_its_parent_and_a_local_function_not_the_script(tmp_path):
    """A4 2.8.0: a MATLAB nested function shares its parent's workspace; a script's local
    function sees none of the script's variables."""
    (tmp_path / "fetch_all.m").write_text(
        "function fetch_all()\n    url = 'https://zenodo.org/record/3/files/waves.csv';\n    get_it();\n"
        "    function get_it()\n        websave('waves.csv', url);\n    end\nend\n")
    (tmp_path / "script_then_local.m").write_text(
        "url = 'https://zenodo.org/record/4/files/tides.csv';\nhelper();\nfunction helper()\n"
        "    websave('tides.csv', url);\nend\n")
    result = REGISTRY["data_acquisition_script"].run(TreeIndex.from_path(tmp_path))
    assert (result.value, result.counts["downloads"]) == (100, 1)
    assert [(e.path, e.line_start, e.rule) for e in result.evidence] == [
        ("fetch_all.m", 5, "data_acquisition_script.matlab_call"),
        ("fetch_all.m", 2, "data_acquisition_script.url_binding"),
    ]
