"""Category C detectors (METRICS.md C1–C4): rules the golden fixtures cover thinly,
secret redaction, and bad input."""

from __future__ import annotations

import json
import sys
from importlib import resources

import pytest

from scoring.detectors._imports import (
    _environment_provided,
    _mapping,
    _package_segments,
    _Source,
    import_distributions,
    pipreqs_distributions,
    stdlib_modules,
)
from scoring.detectors.portability._common import _files
from scoring.detectors.portability.import_resolvability import _is_declared_python, _without_affixes
from scoring.detectors.portability.no_absolute_paths import (
    _absolute_paths,
    _dataset_name,
    _sed_patterns,
)
from scoring.detectors.portability.silent_failure_masking import _c4_hits, _Processes
from scoring.frontends import julia as julia_frontend
from scoring.frontends import r as r_frontend
from scoring.frontends._credentials import lex, token_bindings
from scoring.model import mask_secret
from scoring.parsers.secrets import credential_word as _credential_word
from scoring.parsers.secrets import secret_value as _secret_value
from scoring.registry import REGISTRY
from scoring.tree import TreeIndex

C_METRICS = ("no_absolute_paths", "import_resolvability", "no_hardcoded_credentials", "silent_failure_masking")


def measure(metric_id, root):
    return REGISTRY[metric_id].run(TreeIndex.from_path(root))


def evidence(measurement):
    return [e.to_dict() for e in measurement.evidence]


def located(measurement):
    """(path, cell, line_start, rule) of every evidence item."""
    return [(e.path, e.cell, e.line_start, e.rule) for e in measurement.evidence]


def notebook(*sources, language="python"):
    cells = [{"cell_type": "code", "metadata": {}, "source": s, "outputs": [], "execution_count": None} for s in sources]
    meta = {"kernelspec": {"name": language, "language": language}, "language_info": {"name": language}}
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": meta, "cells": cells})


# --------------------------------------------------------------------------- bundled data


def test_stdlib_list_is_the_frozen_union_of_cpython_36_to_313_and_python_27():
    names = stdlib_modules()
    assert set(sys.stdlib_module_names) <= names  # the running 3.11 is one of the versions
    removed_in_312_313 = {"distutils", "imp", "asynchat", "asyncore", "smtpd", "cgi", "telnetlib", "lib2to3"}
    only_36_to_310 = {"formatter", "parser", "symbol", "macpath", "dummy_threading", "_dummy_thread", "binhex"}
    added_312_313 = {"_pydatetime", "_pylong", "_sha2", "_colorize", "_interpreters", "_pyrepl"}
    python27 = {"urllib2", "cPickle", "StringIO", "ConfigParser", "Queue", "Tkinter", "httplib", "urlparse"}
    assert removed_in_312_313 | only_36_to_310 | added_312_313 | python27 | {"__future__", "tomllib"} <= names
    assert not {"numpy", "pandas", "requests", "yaml", "test", "setuptools"} & names


def test_stdlib_data_file_says_how_it_was_built():
    text = (resources.files("scoring") / "data/stdlib_modules.txt").read_text()
    assert text.startswith("# Frozen list of Python standard-library")
    assert "sys.stdlib_module_names of CPython 3.6-3.13" in text


REF_TABLE = {
    "cv2": "opencv-python", "PIL": "pillow", "sklearn": "scikit-learn", "skimage": "scikit-image",
    "bs4": "beautifulsoup4", "yaml": "pyyaml", "dotenv": "python-dotenv", "pkg_resources": "setuptools",
    "tf": "tensorflow", "Bio": "biopython", "osgeo": "gdal", "Crypto": "pycryptodome", "jwt": "pyjwt",
    "dateutil": "python-dateutil", "attr": "attrs", "google": "google-cloud", "azure": "azure-storage-blob",
    "wx": "wxpython", "gi": "pygobject", "gtk": "pygobject", "sklearn_crfsuite": "sklearn-crfsuite",
    "umap": "umap-learn",
}
V2_ADDITIONS = {
    "mpl_toolkits": "matplotlib", "google.protobuf": "protobuf", "Levenshtein": "python-levenshtein",
    "community": "python-louvain", "igraph": "python-igraph", "fitz": "pymupdf", "docx": "python-docx",
    "serial": "pyserial", "zmq": "pyzmq", "OpenGL": "pyopengl", "torch": "pytorch", "cv2": "py-opencv",
}


@pytest.mark.parametrize(("module", "distribution"), [*REF_TABLE.items(), *V2_ADDITIONS.items(), ("cv2", "opencv")])
def test_mapping_is_a_superset_of_the_reference_table_and_v2_additions(module, distribution):
    assert distribution in import_distributions()[module]


def test_environment_provided_modules_include_jupyter_and_colab():
    assert {"IPython", "ipykernel", "ipywidgets", "nbformat", "traitlets", "google.colab"} <= _environment_provided()


# --------------------------------------------------------------------------- C1 no_absolute_paths


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("/home/alice/x.csv", [("home", "/home/alice/x.csv", 0)]),
        ("see /Users/bob/Desktop/f.pdf", [("macos_users", "/Users/bob/Desktop/f.pdf", 4)]),
        ("C:\\Users\\me\\x", [("windows_drive", "C:\\Users\\me\\x", 0)]),
        ("d:/data/x", [("windows_drive", "d:/data/x", 0)]),
        ("/root/.cache/x", [("root", "/root/.cache/x", 0)]),
        ("/mnt/c/Users/x", [("mnt", "/mnt/c/Users/x", 0)]),
        ("/Volumes/Ext/run", [("volumes", "/Volumes/Ext/run", 0)]),
        ("/scratch/run1", [("cluster", "/scratch/run1", 0)]),
        ("/gpfs/fs1/x", [("cluster", "/gpfs/fs1/x", 0)]),
        ("/n/holylfs/x", [("cluster", "/n/holylfs/x", 0)]),
        *((f"/{root}/lab/x", [("cluster", f"/{root}/lab/x", 0)])
          for root in ("lustre", "nfs", "project", "project2", "projects", "global", "work", "work2", "cluster",
                       "storage")),
        ("/content/drive/MyDrive", [("colab_drive", "/content/drive/MyDrive", 0)]),
        ("~alice/data", [("user_home", "~alice/data", 0)]),
        ("~/data", []),                          # the current user's home is portable
        ("c://x", []),                           # §0.1.27: no second separator
        ("https://x.org/home/alice/f", []),      # embedded URLs are removed first
        ("file:///home/alice/f", []),
        ("data/home/alice/x", []),               # relative path that merely contains /home/
        ("/homework/a/", []),
        ("%H:%M", []),
        ("12:30/x", []),
        ("%s:\\n", []),                          # a raw printf format (MATLAB) is no drive
        ("/data/jsmith/run1/x.csv", [("data_root", "/data/jsmith/run1/x.csv", 0)]),
        ("/data/continuity", []),                # an HDF5 dataset path: no folder below /data/<name>
    ],
)
def test_absolute_path_patterns(value, expected):
    assert list(_absolute_paths(value)) == expected


@pytest.mark.parametrize(("value", "patterns"), [
    ('sed -i "s|/home/a/p|$(pwd)|g" f', ["/home/a/p"]),
    ("sed -e 's#/x#/y#' -e 's/a\\/b/c/g' f", ["/x", "a\\/b"]),
    ("s|/home/a/p|.|g", ["/home/a/p"]),          # a whole expression, as a list argument
    ("cp /home/a/s|x|y| z", []),                   # no sed: a path that holds bars
    ("perl -pe 's|/home/a|b|'", []),
])
def test_sed_substitution_patterns(value, patterns):
    assert [value[start:stop] for start, stop in _sed_patterns(value)] == patterns


@pytest.mark.parametrize(("name", "why"), [
    ("jsmith", ""), ("ab123", ""), ("alice.b", ""), ("$USER", ""), ("${USER}", ""), ("users", ""),
    ("{wildcards.sample}", "is no login name"),
    ("GSE12345", "is no login name"), ("0", "is no login name"), ("MyData", "is no login name"),
    ("raw", "names a kind of data"), ("datasets", "names a kind of data"), ("reference", "names a kind of data"),
    ("cells", "is a folder of this deposit"),
])
def test_a_data_root_names_a_user_unless_it_names_a_dataset(name, why):
    assert _dataset_name(name, frozenset({"cells", "analysis"})) == why


@pytest.mark.parametrize(("path", "text", "idiom"), [
    ("run.py", 'X = "/home/a/x"\n', "pathlib.Path(__file__).parent"),
    ("nb.ipynb", None, "pathlib.Path(__file__).parent"),
    ("run.R", 'x <- "/home/a/x"\n', "here::here()"),
    ("doc.Rmd", '```{r}\nx <- "/home/a/x"\n```\n', "here::here()"),
    ("run.jl", 'x = "/home/a/x"\n', "@__DIR__"),
    ("run.m", "x = '/home/a/x';\n", "fileparts(mfilename('fullpath'))"),
    ("run.c", 'const char *x = "/home/a/x";\n', "paths given on the command line"),
    ("run.f90", "character(len=*), parameter :: x = '/home/a/x'\n", "paths given on the command line"),
    ("main.nf", 'params.x = "/home/a/x"\n', "projectDir or params"),
    ("Snakefile", 'rule a:\n    input: "/home/a/x"\n', "workflow.basedir or config entries"),
    ("run.sh", "cp /home/a/x .\n", '"$(dirname "$0")"'),
    ("config/p.yaml", "root: /home/a/x\n", "paths relative to the file that reads them"),
])
def test_c1_fix_builds_paths_in_the_files_own_language(make_tree, path, text, idiom):
    text = notebook('x = "/home/a/x"\n') if text is None else text
    m = measure("no_absolute_paths", make_tree({path: text}))
    assert (m.value, m.counts["files_scanned"]) == (0, 1)
    assert m.fix == (f"Replace the absolute paths in {path} with paths relative to the repository ({idiom}) or read "
                     "them from a config file, a command-line argument or an environment variable.")


def test_c1_evidence_shows_parameter_files_each_rule_and_each_folder_before_more_of_one_folder(make_tree):
    files = {f"analysis/a{i:02}.R": f'x <- "/project2/lab/a{i}.rds"\ny <- "/project2/lab/b{i}.rds"\n'
             for i in range(25)}
    files.update({"code/z.R": 'x <- "/project2/lab/z.rds"\n', "code/w.R": 'w <- "/home/alice/w"\n',
                  "config.yaml": "dir_external: /project2/lab/fucci/\n"})
    m = measure("no_absolute_paths", make_tree(files))
    assert m.counts["files_with_absolute_paths"] == 28
    shown = [(e.path, e.line_start) for e in m.evidence]
    assert len(shown) == 20
    assert shown[0] == ("config.yaml", 1)
    assert ("code/w.R", 1) in shown and ("code/z.R", 1) in shown
    assert shown[1:] == sorted(shown[1:])
    assert sum(path.startswith("analysis/") for path, _ in shown) == 17


def test_c1_scans_magics_env_files_json_configs_and_skips_comments(make_tree):
    root = make_tree({
        "nb.ipynb": notebook("import os\n# /home/alice/ in a comment\n", "%cd /content/drive/MyDrive/run\nx = 1\n"),
        ".env": "# DATA=/home/x/\nDATA_DIR=/home/bob/data\n",
        "configs/run.json": '{\n  "name": "a",\n  "root": "C:\\\\Users\\\\bob\\\\data"\n}\n',
        "clean.sh": "#!/bin/sh\n# cd /home/alice\npython run.py data/\n",
    })
    m = measure("no_absolute_paths", root)
    assert m.value == pytest.approx(25.0)
    assert m.counts == {"files_scanned": 4, "files_with_absolute_paths": 3, "absolute_path_hits": 3,
                        "paths_not_counted": 0, "parameter_files": 2, "unparseable_files": 0}
    assert located(m) == [
        (".env", None, 2, "no_absolute_paths.home"),
        ("configs/run.json", None, 3, "no_absolute_paths.windows_drive"),
        ("nb.ipynb", 2, 1, "no_absolute_paths.colab_drive"),
    ]
    assert m.fix.startswith("Replace the absolute paths in .env, configs/run.json, nb.ipynb with paths relative")


def test_c1_excludes_ci_packaging_metadata_and_conda_export_files(make_tree):
    root = make_tree({
        ".github/workflows/ci.yml": "steps:\n  - run: cd /home/runner/work\n",
        "package.json": '{"main": "/Users/x/index.js"}\n',
        "CITATION.cff": "message: see /home/alice/\n",
        "codemeta.json": '{"x": "/home/alice/"}\n',
        "environment.yml": "name: x\nprefix: /home/alice/miniconda3/envs/x\n",
        "config/poetry.lock": "path = '/home/alice/x'\n",
        "data/results.json": '{"file": "/home/alice/out.csv"}\n',
    })
    m = measure("no_absolute_paths", root)
    assert (m.value, m.applicable, m.counts["files_scanned"]) == (100, False, 0)


def test_c1_python2_file_is_scanned_with_the_token_fallback(make_tree):
    root = make_tree({"old.py": "print 'start'\n\nPATH = 'C:\\\\Users\\\\me\\\\data'\n", "new.py": "x = 1\n"})
    m = measure("no_absolute_paths", root)
    assert m.value == pytest.approx(50.0)
    assert m.counts["unparseable_files"] == 1
    assert evidence(m)[0] == {
        "path": "old.py", "line_start": 3, "line_end": 3, "reason": "machine-specific absolute path 'C:\\Users\\me\\data'",
        "rule": "no_absolute_paths.windows_drive", "snippet": "PATH = 'C:\\\\Users\\\\me\\\\data'",
    }


def test_c1_r_markdown_reports_file_lines(make_tree):
    root = make_tree({"report.Rmd": "---\ntitle: x\n---\n\nText /home/alice/ in prose.\n\n```{r}\nx <- 1\nd <- read.csv('/home/alice/d.csv')\n```\n"})
    m = measure("no_absolute_paths", root)
    assert located(m) == [("report.Rmd", None, 9, "no_absolute_paths.home")]


# --------------------------------------------------------------------------- C2 import_resolvability


def test_c2_dotted_prefixes_families_and_environment_modules(make_tree):
    root = make_tree({
        "requirements.txt": "protobuf\ngoogle-cloud-storage\nmatplotlib-base\nazure-keyvault-secrets\ncupy-cuda12x\n",
        "a.py": ("from google.protobuf import message\nfrom google.cloud import storage\n"
                 "from mpl_toolkits.mplot3d import Axes3D\nfrom google.colab import drive\nimport IPython\n"
                 "from google.cloud import spanner\nfrom azure.keyvault.secrets import SecretClient\nimport cupy\n"),
    })
    m = measure("import_resolvability", root)
    assert m.value == pytest.approx(100 * 5 / 6)
    assert m.counts["environment_imports"] == 2
    assert located(m)[0] == ("a.py", None, 6, "import_resolvability.undeclared")
    assert m.fix == "Declare google-cloud-spanner in requirements.txt."


def test_c2_local_modules_setup_py_build_tools_and_own_distribution(make_tree):
    root = make_tree({
        "setup.py": "from setuptools import setup, find_packages\nsetup(name='soil-tool', install_requires=['numpy'])\n",
        "soil_tool/__init__.py": "",
        "scripts/run.py": "import soil_tool\nimport numpy\nimport tensorflow\nimport models.net\nfrom helpers import f\n",
        "tensorflow/train.py": "x = 1\n",     # a folder of scripts, not a package: does not shadow tensorflow
        "models/net.py": "y = 2\n",
        "lib/helpers.py": "def f():\n    pass\n",
    })
    m = measure("import_resolvability", root)
    assert m.value == pytest.approx(50.0)
    # setup.py calls setup(): a build file, out of C2 (§0.2.2), so its setuptools import is
    # not counted at all (2.3.0; it was an environment-provided import before)
    assert (m.counts["third_party"], m.counts["local_imports"], m.counts["environment_imports"]) == (2, 3, 0)
    assert located(m)[0] == ("scripts/run.py", None, 3, "import_resolvability.undeclared")


def test_c2_conda_spellings_and_r_packages_from_conda(make_tree):
    root = make_tree({
        "environment.yml": ("name: x\ndependencies:\n  - python=3.10\n  - pytorch=2.0\n  - py-opencv\n"
                            "  - r-ggplot2\n  - pip:\n    - umap-learn==0.5\n"),
        "a.py": "import torch\nimport cv2\nimport umap\n",
        "b.R": "library(ggplot2)\nlibrary(dplyr)\nlibrary(stats)\n",
    })
    m = measure("import_resolvability", root)
    assert m.value == pytest.approx(80.0)
    assert located(m)[0] == ("b.R", None, 2, "import_resolvability.undeclared")
    # no DESCRIPTION: the R packages go where the project lists its others (2.6.0)
    assert m.fix == "Declare r-dplyr in environment.yml (bioconductor-<name> for a Bioconductor package)."


def test_c2_renv_lock_and_build_system_requires_join_the_declared_set(make_tree):
    root = make_tree({
        "renv.lock": json.dumps({"R": {"Version": "4.3.1"}, "Packages": {"dplyr": {"Package": "dplyr"}}}),
        "pyproject.toml": "[build-system]\nrequires = ['setuptools>=61', 'cython']\n[project]\nname = 'x'\n",
        "a.R": "suppressMessages(library(dplyr))\n",
        "b.py": "import Cython\nimport setuptools\n",
    })
    m = measure("import_resolvability", root)
    assert (m.value, m.counts["third_party"], m.counts["manifests"]) == (100, 3, 2)


def test_c2_julia_using_against_project_toml(make_tree):
    root = make_tree({
        "Project.toml": 'name = "MyPkg"\n[deps]\nDataFrames = "a93c6f00-e57d-5684-b7b6-d8193f3e46c0"\n',
        "src/MyPkg.jl": "module MyPkg\nusing DataFrames, LinearAlgebra\nusing CSV: read\nusing .Internal\nend\n",
        "test/runtests.jl": "using MyPkg\nusing Test\nusing Pkg; Pkg.add([\"Plots\"])\nusing Plots\n",
    })
    m = measure("import_resolvability", root)
    assert m.value == pytest.approx(100 * 2 / 3)
    assert located(m)[0] == ("src/MyPkg.jl", None, 3, "import_resolvability.undeclared")
    assert ("test/runtests.jl", None, 3, "import_resolvability.inline_install") in located(m)


def test_c2_evidence_spans_every_declared_set_and_names_optional_imports(make_tree):
    pyproject = ('[project]\nname = "tool"\ndependencies = ["numpy>=1.24"]\n\n'
                 '[project.optional-dependencies]\nplot = [\n    "matplotlib",\n]\ntest = ["pytest"]\n')
    root = make_tree({
        "pyproject.toml": pyproject,
        "tool/core.py": "import numpy\ntry:\n    import numba\nexcept ImportError:\n    numba = None\n",
        "tool/plot.py": "import matplotlib.pyplot as plt\n",
    })
    m = measure("import_resolvability", root)
    assert m.value == 100
    assert located(m) == [("pyproject.toml", None, 3, "import_resolvability.manifest"),
                          ("tool/core.py", None, 3, "import_resolvability.optional")]
    assert m.evidence[0].line_end == 9


def test_c2_version():
    # 2.3.0: workflow conda envs, sub-project and docs sets, conda R names (METRICS §0.2.20, §0.3)
    # 2.4.0: the mapping pipreqs maintains under the project's own, the affix rule (§0.2.22)
    # 2.3.1: a manifest's declared lines and the optional imports shown
    # 2.5.0: fallback imports in the handler and TYPE_CHECKING imports are optional (§0.2.21)
    # 2.6.0: workflow includes by path, pixi.toml, a setup.py's requirements file, packrat.lock,
    # a Pluto notebook's own environment (§0.2.20, §0.3); fixes in the deposit's terms
    # 2.7.0: R packages a post-deploy `Rscript -e` installs; extension modules the build
    # produces are local; the fix names the set of the importing file's role
    assert REGISTRY["import_resolvability"].version == "2.10.0"


def test_c2_reads_the_maintained_pipreqs_mapping_under_the_projects_own():
    maintained = pipreqs_distributions()
    assert len(maintained) == 829     # import names of the 1,152 lines of pipreqs 0.5.0
    assert maintained["elftools"] == ("pyelftools",)
    assert maintained["bs4"] == ("beautifulsoup4",)
    merged = _mapping()
    # the project's names come first: they are what a fix suggests
    own = import_distributions()
    assert merged["sklearn"][: len(own["sklearn"])] == own["sklearn"]
    assert merged["elftools"] == ("pyelftools",)
    # a namespace of the project's table keeps the project's entries alone: pipreqs's
    # google -> protobuf does not make every google.* module declared by protobuf
    assert merged["google"] == own["google"] == ("google-cloud",)
    assert not _is_declared_python("google", {"protobuf"})


@pytest.mark.parametrize(("declared", "import_name", "expected"), [
    ("python-dateutil", "dateutil", True),
    ("py-cpuinfo", "cpuinfo", True),
    ("jsonschema-format", "jsonschema", True),
    ("django-migrations", "django", True),
    ("tabulate-cli", "tabulate", True),
    ("pyyaml", "yaml", True),             # by the table, not by an affix
    ("py", "py", True),                   # the name itself
    ("pytest", "test", False),            # "py" without the hyphen is no affix
    ("cli", "cli", True),
])
def test_c2_a_declared_name_with_a_common_affix_declares_the_import(declared, import_name, expected):
    assert _is_declared_python(import_name, {declared}) is expected


def test_c2_an_affix_alone_declares_no_empty_name():
    assert _without_affixes({"python-", "-py", "py-", "-cli"}) == set()


def test_c2_julia_sub_projects_hold_for_their_folder(make_tree):
    root = make_tree({
        "Project.toml": 'name = "MyPkg"\n[deps]\nDataFrames = "a93c6f00-e57d-5684-b7b6-d8193f3e46c0"\n',
        "src/MyPkg.jl": "module MyPkg\nusing DataFrames\nend\n",
        "docs/Project.toml": '[deps]\nDocumenter = "e30172f5-a6a5-5a46-863b-614d45cd2de4"\n',
        "docs/make.jl": "using Documenter, MyPkg\n",
        "test/Project.toml": '[deps]\nDistributions = "31c24e10-a181-5473-b8eb-7969acd0382f"\n',
        "test/runtests.jl": "using Distributions\nusing Documenter\n",
    })
    m = measure("import_resolvability", root)
    # Documenter is declared for docs/ only: test/runtests.jl's use of it is not
    assert (m.value, m.counts["third_party"], m.counts["manifests"]) == (pytest.approx(100 * 2 / 3), 3, 3)
    assert located(m)[0] == ("test/runtests.jl", None, 2, "import_resolvability.undeclared")


def test_c2_workflow_conda_envs_declare_r_and_python_packages(make_tree):
    root = make_tree({
        "workflow/Snakefile": ('rule de:\n    input: "a.tsv"\n    output: "b.tsv"\n'
                               '    conda: "../deploy/de.yaml"\n    script: "scripts/de.R"\n'),
        "deploy/de.yaml": ("channels:\n  - bioconda\ndependencies:\n  - bioconductor-deseq2 =1.46\n"
                        "  - r-data.table\n  - r-tidyverse =2.0\n  - pandas\n"),
        "workflow/scripts/de.R": ("library(DESeq2)\nlibrary(data.table)\nlibrary(dplyr)\nlibrary(cli)\n"
                                  "library(BiocParallel)\n"),
        "workflow/scripts/t.py": "import pandas\n",
    })
    m = measure("import_resolvability", root)
    assert (m.value, m.counts["third_party"]) == (pytest.approx(100 * 5 / 6), 6)
    assert located(m)[0] == ("workflow/scripts/de.R", None, 5, "import_resolvability.undeclared")
    assert ("deploy/de.yaml", None, 3, "import_resolvability.manifest") in located(m)


def test_c2_docs_requirements_pipfile_dev_packages_and_build_files(make_tree):
    root = make_tree({
        "Pipfile": '[packages]\n\n[dev-packages]\nruamel.yaml = ">=0.17"\npyyaml = "*"\n',
        "pkg/__init__.py": "import yaml\nfrom ruamel.yaml import YAML\n",
        "docs/requirements.txt": "sphinx\n",
        "docs/exts/ext.py": "from sphinx.application import Sphinx\n",
        "docs/conf.py": "import sphinx_rtd_theme\nextensions = []\nhtml_theme = 'x'\n",
        "tools/x.py": "import sphinx\n",
    })
    m = measure("import_resolvability", root)
    # conf.py is a build file (out); sphinx is declared for docs files only, not tools/x.py
    assert (m.value, m.counts["third_party"]) == (pytest.approx(100 * 2 / 3), 3)
    assert located(m)[0] == ("tools/x.py", None, 1, "import_resolvability.undeclared")


def test_c2_dangling_link_into_a_submodule_is_local(make_tree, tmp_path):
    root = make_tree({
        ".gitmodules": '[submodule "bin/Lib"]\n\tpath = bin/Lib\n\turl = https://example.org/lib.git\n',
        "requirements.txt": "numpy\n",
        "bin/run.py": "import numpy\nimport mylib\n",
    })
    (root / "bin" / "mylib").symlink_to("Lib/mylib/")
    m = measure("import_resolvability", root)
    assert (m.value, m.counts["third_party"], m.counts["local_imports"]) == (100, 1, 1)


def test_c2_optional_imports_are_not_counted(make_tree):
    root = make_tree({
        "requirements.txt": "numpy\n",
        "a.py": ("import numpy\ntry:\n    import ujson as json\nexcept ImportError:\n    import json\n"
                 "try:\n    import torch\nexcept RuntimeError:\n    torch = None\n"),
    })
    m = measure("import_resolvability", root)
    assert m.value == pytest.approx(50.0)
    assert (m.counts["optional_imports"], m.counts["undeclared"]) == (1, 1)
    assert located(m)[0] == ("a.py", None, 7, "import_resolvability.undeclared")


def test_c2_python2_fallback_reports_the_import_line(make_tree):
    root = make_tree({"requirements.txt": "requests\n", "old.py": "\n\nimport urllib2, numpy\nprint 'x'\n"})
    m = measure("import_resolvability", root)
    assert m.value == pytest.approx(0.0)
    assert (m.counts["third_party"], m.counts["stdlib_imports"]) == (1, 1)
    assert located(m)[0] == ("old.py", None, 3, "import_resolvability.undeclared")


def test_c2_stdlib_only_is_applicable_100_and_empty_tree_is_not_applicable(make_tree, tmp_path):
    stdlib_only = measure("import_resolvability", make_tree({"a.py": "import os, sys, argparse, tomllib\n"}))
    assert (stdlib_only.value, stdlib_only.applicable, stdlib_only.fix) == (100, True, None)
    empty = measure("import_resolvability", make_tree({}))
    assert (empty.value, empty.applicable) == (100, False)


def test_c2_r_package_calls():
    source = (
        'library(dplyr)\nrequire("tidyr")\nlibrary(pkg, character.only = TRUE)\nx <- data.table::fread("a")\n'
        'install.packages(c("a1", "b2"))\nBiocManager::install("DESeq2")\nremotes::install_github("user/cool.pkg@v1")\n'
        "pacman::p_load(readr)\n# library(commented)\nrequireNamespace(pkg)\nrequireNamespace(package = \"ok\")\n"
    )
    facts = r_frontend.extract(source.encode(), "a.R")
    (segment,) = _package_segments(_Source("a.R", "r", facts))
    # a name given to requireNamespace() is a variable; package = names the package
    assert segment.used == [("dplyr", 1), ("tidyr", 2), ("data.table", 4), ("BiocManager", 6), ("remotes", 7),
                            ("readr", 8), ("pacman", 8), ("ok", 11)]
    assert segment.installed == [("a1", 5), ("b2", 5), ("DESeq2", 6), ("cool.pkg", 7), ("readr", 8)]


def test_c2_julia_packages_and_rmarkdown_chunks():
    julia = julia_frontend.extract(
        b'using A, B.C\nimport D: f\nusing .Local\n@lazy import E = "uuid"\nimport F.g,\n       G.h\n'
        b'Pkg.add(["H", "I.jl"])\nPkg.add(PackageSpec(url = "https://x/y.git"))\n', "a.jl")
    (segment,) = _package_segments(_Source("a.jl", "julia", julia))
    assert segment.used == [("A", 1), ("B", 1), ("D", 2), ("E", 4), ("F", 5), ("G", 5)]
    assert segment.installed == [("H", 7), ("I", 7)]
    document = (b"```{r}\nlibrary(aa)\n```\n```{r, eval = FALSE}\nlibrary(never)\n```\n"
                b"```{r}\ninstall.packages('bb')\nlibrary(cc)\n```\n")
    rmd = r_frontend.extract(document, "doc.Rmd")
    # one segment per chunk (each gives its own inline-install evidence); eval = FALSE is no code
    assert [(s.used, s.installed) for s in _package_segments(_Source("doc.Rmd", "rmd", rmd))] == [
        ([("aa", 2)], []), ([("cc", 9)], [("bb", 8)])]


# --------------------------------------------------------------------------- C3 no_hardcoded_credentials


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("api_key", ("api_key", False)), ("apiKey", ("api_key", False)), ("X-API-KEY", ("api_key", False)),
        ("db-password", ("password", False)), ("user.password", ("password", False)),
        ("AWS_SECRET_ACCESS_KEY", ("secret_access_key", False)), ("githubToken", ("token", True)),
        ("pwd", ("pwd", True)), ("credentials", ("credentials", False)),
        ("token_pattern", None), ("token_url", None), ("PASSWORD_PROMPT", None), ("key", None), ("Authorization", None),
    ],
)
def test_credential_word_is_the_last_component_of_the_name(name, expected):
    assert _credential_word(name) == expected


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("password", "hunter2hunter2", "password"),
        ("password", "password123", "password"),
        ("token", "abcd1234efgh", "token"),
        ("token", "aaaaaaaaaaaa", None),               # generic word, entropy < 3.0 bits
        ("password", "short", None),                   # fewer than 8 characters
        ("password", "Enter your password", None),     # whitespace
        ("api_key", "https://x.org/key", None),        # URL
        ("api_key", "keys/api.txt", None),             # path
        ("token", r"\d{4}-\w+", None),                 # regular expression
        ("api_key", "${API_KEY}", None),               # template
        ("secret", "{{ vault }}", None),
        ("api_key", "YOUR_API_KEY", None),             # placeholders
        ("password", "<password>", None),
        ("api_key", "AKIAIOSFODNN7EXAMPLE", None),
        ("password", "user_password", None),           # a field name, not a secret
        ("TOKEN", "access_token", None),
    ],
)
def test_secret_value_filters(name, value, expected):
    assert _secret_value(name, value) == expected


SECRETS = {
    "escaped": "q8Zr2Lm\\T7vXp4NcB",
    "pem": "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0",
    "yaml": "Tr0ub4dor-3x9qZ",
    "env": "n7Kq2Lx9Vb3Tz8Pw",
    "cli": "Zx82kLq0Wm3vN7b",
    "multiline": "Mu1tiL1neS3cretV4lue",
    "same_line_as_path": "Pq93LmZx81KvTr2",
    "github": "ghp_8fK2mQ9xL4vT7nR1cW6yB3hJ5pZ0sD2gA9eU",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "r": "Rr83kdLq0Zm2Xv7",
    "dict": "Dk83mZq2Lx7Vb0P",
    "notebook": "sk-3bN8qLx7Tz2Vd9Kf4Rm6Wp1Hc5Jg0Ys8Ae2Ub7Xn",
}


def test_secrets_never_appear_in_any_measurement_output(make_tree):
    s = SECRETS
    escaped_source = s["escaped"].replace("\\", "\\\\")
    root = make_tree({
        "a.py": (f'password = "{escaped_source}"\n'
                 f'KEY = """-----BEGIN RSA PRIVATE KEY-----\n{s["pem"]}\n-----END RSA PRIVATE KEY-----"""\n'
                 f'secret_key = """{s["multiline"]}\n"""\n'
                 f'open("/home/alice/x", "r"); password="{s["same_line_as_path"]}"\n'
                 f'H = {{"Authorization": "token {s["github"]}"}}\n'
                 f'config = {{"api_key": "{s["dict"]}"}}\n'),
        "b.py": f'try:\n    login(password="{s["same_line_as_path"]}")\nexcept: pass\nJ = "{s["jwt"]}"\n',
        "config/app.yaml": f"db:\n  password: {s['yaml']}  # prod\n  path: /home/alice/db\n",
        ".env": f"API_KEY={s['env']}\n",
        "run.sh": f"python x.py --password {s['cli']} --out /scratch/alice/\n",
        "c.R": f'api_key <- "{s["r"]}"\ntry(read.csv("/home/alice/x.csv"), silent = TRUE)\n',
        "nb.ipynb": notebook(f'import openai\nopenai.api_key = "{s["notebook"]}"\nprint(open("/home/alice/k").read())\n'),
    })
    tree = TreeIndex.from_path(root)
    results = {metric: REGISTRY[metric].run(tree) for metric in C_METRICS}
    dumped = json.dumps({metric: m.to_dict() for metric, m in results.items()})
    for label, secret in SECRETS.items():
        # json.dumps escapes backslashes: look for the raw and the JSON-escaped form.
        assert secret not in dumped and json.dumps(secret)[1:-1] not in dumped, label
    credentials = results["no_hardcoded_credentials"]
    assert credentials.value == 0
    assert credentials.counts["files_with_credentials"] == 7
    assert credentials.counts["credential_hits"] == 13
    by_place = {(e.path, e.cell, e.line_start): e for e in credentials.evidence}
    assert by_place[("a.py", None, 2)].rule == "no_hardcoded_credentials.token.private_key"
    assert by_place[(".env", None, 1)].snippet == "API_KEY=n7Kq…(16 chars)"
    assert by_place[("nb.ipynb", 1, 2)].reason == "openai token format sk-3…(43 chars)"
    assert by_place[("a.py", None, 1)].reason == f"credential-named 'password' bound to a literal value {mask_secret(s['escaped'])}"


def test_c3_skips_example_env_files_and_placeholder_tokens(make_tree):
    root = make_tree({
        ".env.example": "API_KEY=q8Zr2LmT7vXp4NcB9sKd\n",
        ".env.sample": "API_KEY=q8Zr2LmT7vXp4NcB9sKd\n",
        ".env.local": "API_KEY=q8Zr2LmT7vXp4NcB9sKd\n",
        "aws.py": 'ACCESS_KEY_ID = "AKIAIOSFODNN7EXAMPLE"\nPEM_HEADER = "-----BEGIN RSA PRIVATE KEY-----"\n',
    })
    m = measure("no_hardcoded_credentials", root)
    assert (m.value, m.counts["files_scanned"], m.counts["env_files"]) == (50, 2, 1)
    assert located(m) == [(".env.local", None, 1, "no_hardcoded_credentials.assignment")]


def test_c3_r_and_julia_bindings():
    r = 'cfg$password <- "Xk29fjq83Lz0"\nSys.setenv(API_KEY = "q8Zr2LmT7vXp")\n"Zq83LmZx81Kv" -> db_pwd\n'
    julia = 'ENV["GITHUB_TOKEN"] = "Q8zR2lMt7VxP4nCb"\nconf = Dict("api_key" => "q8Zr2LmT7vXp")\n'
    assert list(token_bindings(lex(r, "r"))) == [
        ("password", "Xk29fjq83Lz0", 1), ("API_KEY", "q8Zr2LmT7vXp", 2), ("db_pwd", "Zq83LmZx81Kv", 3),
    ]
    assert list(token_bindings(lex(julia, "julia"))) == [
        ("GITHUB_TOKEN", "Q8zR2lMt7VxP4nCb", 1), ("api_key", "q8Zr2LmT7vXp", 2),
    ]


_C3_SECRET = "Zq83LmZx81KvPq"


@pytest.mark.parametrize(("path", "text", "how"), [
    ("run.py", f'API_KEY = "{_C3_SECRET}"\n', 'os.environ["NAME"]'),
    ("Snakefile", f'rule a:\n    params: api_key="{_C3_SECRET}"\n', 'os.environ["NAME"]'),
    ("run.R", f'api_key <- "{_C3_SECRET}"\n', 'Sys.getenv("NAME")'),
    ("run.jl", f'ENV["API_KEY"] = "{_C3_SECRET}"\n', 'ENV["NAME"]'),
    ("run.m", f"db.password = '{_C3_SECRET}';\n", "getenv('NAME')"),
    ("run.c", f'#define API_KEY "{_C3_SECRET}"\n', 'getenv("NAME")'),
    ("run.f90", f"character(len=*), parameter :: password = '{_C3_SECRET}'\n",
     'get_environment_variable("NAME", value)'),
    ("main.nf", f'params.api_key = "{_C3_SECRET}"\n',
     "a Nextflow secret (nextflow secrets set NAME …, secret 'NAME' in the process)"),
    ("run.sh", f"export API_KEY={_C3_SECRET}\n", '"$NAME" set outside the script'),
    (".env", f"API_KEY={_C3_SECRET}\n", "keep secrets out of committed configuration files (an uncommitted .env "
                                         "file, with a committed .env.example of placeholders)"),
])
def test_c3_fix_reads_the_secret_in_the_files_own_language(make_tree, path, text, how):
    m = measure("no_hardcoded_credentials", make_tree({path: text}))
    assert (m.value, m.counts["files_scanned"]) == (0, 1)
    assert m.fix == f"Revoke the exposed credentials in {path} and read them at run time instead: {how}."


def test_c3_fix_names_each_language_of_the_bad_files_once(make_tree):
    root = make_tree({"a.R": f'api_key <- "{_C3_SECRET}"\n', "b.R": f'password <- "{_C3_SECRET}"\n',
                      "config/app.yaml": f"password: {_C3_SECRET}\n", "clean.py": "x = 1\n"})
    m = measure("no_hardcoded_credentials", root)
    assert (m.value, m.counts["files_scanned"]) == (25, 4)
    assert m.fix == ("Revoke the exposed credentials in a.R, b.R, config/app.yaml and read them at run time instead: "
                     'Sys.getenv("NAME"); keep secrets out of committed configuration files (an uncommitted '
                     ".Renviron read with Sys.getenv(), with a committed example of placeholders).")


@pytest.mark.parametrize(("code", "store"), [
    ({"run.py": "x = 1\n"}, "an uncommitted .env file, with a committed .env.example of placeholders"),
    ({"run.R": "x <- 1\n"}, "an uncommitted .Renviron read with Sys.getenv(), with a committed example of placeholders"),
    ({"run.jl": "x = 1\n"}, 'environment variables read with ENV["NAME"], set outside the repository'),
    ({"run.m": "x = 1;\n"}, "environment variables read with getenv('NAME'), set outside the repository"),
    ({"run.c": "int x;\n"}, 'environment variables read with getenv("NAME"), set outside the repository'),
    ({"main.nf": "workflow {}\n"}, "Nextflow secrets (nextflow secrets set NAME …, secrets.NAME in the configuration)"),
    ({"Snakefile": "rule a:\n    output: 'x'\n"},
     'environment variables the workflow declares with envvars: and reads with os.environ["NAME"]'),
])
def test_c3_fix_keeps_configuration_secrets_where_the_deposits_ecosystem_keeps_them(make_tree, code, store):
    m = measure("no_hardcoded_credentials", make_tree({**code, "config/db.yaml": f"password: {_C3_SECRET}\n"}))
    assert m.fix == ("Revoke the exposed credentials in config/db.yaml and read them at run time instead: keep secrets "
                     f"out of committed configuration files ({store}).")


def test_c1_and_c3_scan_the_same_files_in_every_language(make_tree):
    root = make_tree({"a.py": "x = 1\n", "b.m": "y = 2;\n", "c.c": "int z;\n", "d.f90": "end\n",
                      "main.nf": "workflow {}\n", "Snakefile": "rule a:\n    output: 'x'\n", "e.jl": "f = 1\n",
                      "third_party/lib.m": "w = 3;\n", "config/p.yaml": "a: 1\n"})
    tree = TreeIndex.from_path(root)
    c1 = REGISTRY["no_absolute_paths"].run(tree)
    c3 = REGISTRY["no_hardcoded_credentials"].run(tree)
    assert c1.counts["files_scanned"] == c3.counts["files_scanned"] == 8
    code, _ = _files(tree)
    assert [(f.path, f.kind) for f in code] == [
        ("a.py", "python"), ("e.jl", "julia"), ("Snakefile", "snakemake"), ("b.m", "matlab"), ("c.c", "c_cpp"),
        ("d.f90", "fortran"), ("main.nf", "nextflow")]


# --------------------------------------------------------------------------- C4 silent_failure_masking


def test_c4_shows_catch_all_handlers_that_act(make_tree):
    root = make_tree({
        "R/fit.R": ('fit <- function(x) {\n  res <- try(nls(y ~ a * x), silent = TRUE)\n'
                    '  if (inherits(res, "try-error")) stop("fit failed")\n  res\n}\n'),
        "src/run.py": "def run(f):\n    try:\n        f()\n    except Exception as err:\n        raise SystemExit(err)\n",
    })
    m = measure("silent_failure_masking", root)
    assert (m.value, m.counts["files_with_masking"]) == (100, 0)
    assert [(e.path, e.line_start, e.rule) for e in m.evidence] == [
        ("R/fit.R", 2, "silent_failure_masking.not_masking"), ("src/run.py", 4, "silent_failure_masking.not_masking")]


@pytest.mark.parametrize(("path", "text", "advice"), [
    ("run.py", "try:\n    f()\nexcept Exception:\n    pass\n",
     "catch the specific exceptions you expect and log or re-raise them"),
    ("Snakefile", "try:\n    f()\nexcept:\n    pass\n",
     "catch the specific exceptions you expect and log or re-raise them"),
    ("run.R", "try(f(), silent = TRUE)\n",
     "check try() results with inherits(x, 'try-error') or give tryCatch a handler that reports the condition"),
    ("run.jl", "try\n    f()\ncatch\nend\n", "log the caught error (@warn) or rethrow() it"),
    ("run.m", "try\n    f();\ncatch\nend\n", "report the caught error (warning(ME.message)) or rethrow(ME)"),
    ("run.cpp", "void g() {\n  try { f(); } catch (...) {}\n}\n",
     "catch the exception types you expect and report them instead of catch (...) {}"),
    ("main.nf", "process A {\n    errorStrategy 'ignore'\n    script:\n    'true'\n}\n",
     "use errorStrategy 'retry' or 'terminate' instead of 'ignore'"),
])
def test_c4_fix_handles_errors_in_the_files_own_language(make_tree, path, text, advice):
    m = measure("silent_failure_masking", make_tree({path: text}))
    assert (m.value, m.counts["files_scanned"]) == (0, 1)
    assert m.fix == f"In {path}, {advice}."


@pytest.mark.parametrize(("scope", "unused"), [
    ("process.withLabel:error_ignore", "withLabel:error_ignore"),
    ("process.withLabel:process_low", None),
    ("process.withLabel:'process_(low|high)'", None),
    ("process.withLabel:'!process_low'", None),              # a negation selects the others
    ("process.withName:'.*:TRIM_READS'", None),              # fully qualified: the process's own name
    ("process.withName:TRIM_RAW", None),                     # an alias a workflow calls
    ("process.withName:'FASTQC|MULTIQC'", "withName:FASTQC|MULTIQC"),
    ("profiles.test.process.withName:'[unclosed'", None),    # no valid pattern: not resolved
    ("process", None),
])
def test_c4_resolves_nextflow_selectors_against_the_processes(scope, unused):
    processes = _Processes(frozenset({"process_low"}), frozenset({"TRIM_READS", "TRIM_RAW"}), True)
    assert processes.selects_nothing(scope) == unused
    assert _Processes(frozenset(), frozenset(), True).selects_nothing("process.withLabel:x") is None
    assert _Processes(frozenset({"a"}), frozenset({"P"}), False).selects_nothing("process.withLabel:x") is None


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("try(f(x), silent = TRUE)\n", [(1, 1, "silent_failure_masking.r_try_silent")]),
        ("try(f(x), TRUE)\n", [(1, 1, "silent_failure_masking.r_try_silent")]),
        ("if (ok) try(f(x), silent = TRUE)\n", [(1, 1, "silent_failure_masking.r_try_silent")]),
        ("suppressWarnings(try(f(x), silent = TRUE))\n", [(1, 1, "silent_failure_masking.r_try_silent")]),
        ("for (i in 1:3) {\n  try(\n    f(i),\n    silent = TRUE\n  )\n}\n", [(2, 5, "silent_failure_masking.r_try_silent")]),
        ("res <- try(f(x), silent = TRUE)\n", []),
        ("try(f(x), silent = TRUE) -> res\n", []),
        ("if (inherits(try(f(x), silent = TRUE), 'try-error')) stop()\n", []),
        ("try(f(x))\n", []),
        ("x <- tryCatch(f(), error = function(e) NULL)\n", [(1, 1, "silent_failure_masking.r_trycatch_null")]),
        ("tryCatch({\n  f()\n}, error = function(e) invisible(NULL))\n", [(1, 3, "silent_failure_masking.r_trycatch_null")]),
        ("tryCatch(f(), error = function(e) {})\n", [(1, 1, "silent_failure_masking.r_trycatch_null")]),
        ("tryCatch(f(), error = \\(e) NULL, finally = done())\n", [(1, 1, "silent_failure_masking.r_trycatch_null")]),
        ("tryCatch(f(), error = function(e) message(conditionMessage(e)))\n", []),
        ("tryCatch(f(), warning = function(w) NULL)\n", []),
        ("tryCatch(g(error = function(e) NULL), error = function(e) stop(e))\n", []),
        ("# try(f(), silent = TRUE)\nx <- 'try(f(), silent = TRUE)'\ny <- r\"(try(f(), silent=TRUE))\"\n", []),
    ],
)
def test_r_masking_rules(code, expected):
    facts = r_frontend.extract(code.encode(), "a.R")
    assert [(h.line, h.line_end, h.rule) for h in _c4_hits("a.R", "r", facts)] == expected


def test_c4_python_handler_shapes(make_tree):
    root = make_tree({
        "tuple.py": "try:\n    f()\nexcept (ValueError, Exception):\n    pass\n",
        "string_body.py": "try:\n    f()\nexcept BaseException:\n    'ignored on purpose'\n",
        "loop.py": "for x in xs:\n    try:\n        f(x)\n    except Exception:\n        continue\n",
        "handled.py": "try:\n    f()\nexcept:\n    pass\n    cleanup()\n",
        "builtins_qualified.py": "import builtins\ntry:\n    f()\nexcept builtins.Exception:\n    ...\n",
    })
    m = measure("silent_failure_masking", root)
    assert m.value == pytest.approx(20.0)
    assert located(m) == [
        ("builtins_qualified.py", None, 4, "silent_failure_masking.python_broad"),
        ("loop.py", None, 4, "silent_failure_masking.python_broad"),
        ("string_body.py", None, 3, "silent_failure_masking.python_broad"),
        ("tuple.py", None, 3, "silent_failure_masking.python_broad"),
        ("handled.py", None, 3, "silent_failure_masking.not_masking"),
    ]


def test_c4_notebook_magics_r_cells_and_python2_fallback(make_tree):
    root = make_tree({
        "magic.ipynb": notebook("try:\n    import foo\nexcept:\n    !pip install foo\n"),
        "rkernel.ipynb": notebook("x <- 1\n", "try(unlink('tmp'), silent = TRUE)\n", language="R"),
        "mixed.ipynb": notebook("%%R\ntryCatch(f(), error = function(e) NULL)\n"),
        "old.py": "try:\n    x = 1\nexcept Exception, e:\n    pass\nexcept: pass  # ignore\n",
        "old_handled.py": "print 'x'\ntry:\n    f()\nexcept:\n    log()\n",
    })
    m = measure("silent_failure_masking", root)
    assert m.value == pytest.approx(40.0)
    assert m.counts["unparseable_files"] == 2
    assert [x for x in located(m) if x[3] != "silent_failure_masking.not_masking"] == [
        ("mixed.ipynb", 1, 2, "silent_failure_masking.r_trycatch_null"),
        ("old.py", None, 3, "silent_failure_masking.python_broad"),
        ("old.py", None, 5, "silent_failure_masking.python_bare"),
        ("rkernel.ipynb", 2, 1, "silent_failure_masking.r_try_silent"),
    ]


# --------------------------------------------------------------------------- bad input and cost


def test_hostile_files_never_raise_and_stay_in_the_denominators(make_tree):
    root = make_tree({
        "binary.py": b"\x00\x00\x00ELF binary with a .py name",
        "broken.ipynb": '{"cells": [\n  "import numpy\\n",\n  "x = \'/home/bob/x\'\\n",\n  "except:\\n",\n  "    pass\\n"',
        "markdown_only.ipynb": json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                                           "cells": [{"cell_type": "markdown", "metadata": {}, "source": "Only prose."}]}),
        "config/bad.toml": "[x\npassword = 'q8Zr2LmT7vXp'",
        "config/bad.yaml": "a: [unclosed\n  password: q8Zr2LmT7vXp4\n",
        "latin1.py": "# caf\xe9\nx = '/home/\xe9/a/'\n".encode("latin-1"),
        "empty.py": "",
        "empty.R": "",
        "binary.R": b"\x00R binary",
        "py2.py": "import urllib2\nprint 'hello'\n",
    })
    tree = TreeIndex.from_path(root)
    results = {metric: REGISTRY[metric].run(tree) for metric in C_METRICS}
    # binary.py and binary.R are skipped by the index and in no denominator.
    assert results["no_absolute_paths"].counts["files_scanned"] == 8
    assert results["no_absolute_paths"].counts["unparseable_files"] == 2   # broken.ipynb, py2.py
    assert results["no_absolute_paths"].value == pytest.approx(75.0)
    assert located(results["no_absolute_paths"])[0] == ("broken.ipynb", None, 3, "no_absolute_paths.home")
    assert located(results["no_hardcoded_credentials"]) == [
        ("config/bad.toml", None, 2, "no_hardcoded_credentials.assignment"),
        ("config/bad.yaml", None, 2, "no_hardcoded_credentials.assignment"),
    ]
    assert results["no_hardcoded_credentials"].value == pytest.approx(75.0)
    assert results["silent_failure_masking"].counts["files_scanned"] == 6
    assert located(results["silent_failure_masking"]) == [("broken.ipynb", None, 4, "silent_failure_masking.python_bare")]
    assert results["import_resolvability"].value == 0  # numpy from the broken notebook, nothing declared
    assert located(results["import_resolvability"]) == [("broken.ipynb", None, 2, "import_resolvability.undeclared")]


def test_empty_tree_scores_100_not_applicable_everywhere(make_tree):
    tree = TreeIndex.from_path(make_tree({}))
    for metric in C_METRICS:
        m = REGISTRY[metric].run(tree)
        assert (m.value, m.applicable, m.fix, m.evidence) == (100, False, None, []), metric


def test_large_files_are_scanned_whole(make_tree):
    root = make_tree({
        "huge.py": "x = 1\n" * 100_000,
        "big.R": "".join(f'x{i} <- read.csv("data/{i}.csv")  # c\n' for i in range(20_000)),
        "config/big.yaml": "".join(f"key{i}: value/{i}  # note\n" for i in range(50_000)),
        "bad.py": "try:\n    pass\nexcept:\n    pass\n",
    })
    tree = TreeIndex.from_path(root)
    results = {metric: REGISTRY[metric].run(tree) for metric in C_METRICS}
    assert results["silent_failure_masking"].value == pytest.approx(100 * 2 / 3)
    assert results["no_absolute_paths"].counts["files_scanned"] == 4


def test_c1_and_c3_share_one_list_of_scanned_files_per_tree(make_tree):
    tree = TreeIndex.from_path(make_tree({"a.py": "x = 1\n", "b.R": "y <- 2\n", "run.sh": "ls\n",
                                          "config/p.yaml": "a: 1\n"}))
    first = _files(tree)
    REGISTRY["no_absolute_paths"].run(tree)
    REGISTRY["no_hardcoded_credentials"].run(tree)
    assert _files(tree) is first
    code, parameters = first
    assert [(f.path, f.kind, f.facts is not None) for f in code] == [
        ("a.py", "python", True), ("b.R", "r", True), ("run.sh", "shell", False)]
    assert [(f.path, f.kind) for f in parameters] == [("config/p.yaml", "yaml")]


def test_the_project_names_come_from_parsed_files(make_tree):
    tree = TreeIndex.from_path(make_tree({
        "setup.py": 'from setuptools import setup\nsetup(\n    name="my-tool",\n)\n',
        "setup.cfg": "[metadata]\nname = my_tool_cfg\n",
        "DESCRIPTION": "Package: mypkg\nVersion: 1.0\n",
    }))
    assert tree.setup_project_name("setup.py", "setup.py") == "my-tool"
    assert tree.setup_project_name("setup.cfg", "setup.cfg") == "my_tool_cfg"
    assert tree.setup_project_name("missing.py", "setup.py") is None
    assert tree.description_fields("DESCRIPTION")["Package"] == "mypkg"


def test_line_files_give_literal_texts_and_masked_credentials_never_the_secret(make_tree):
    secret = "Zq83LmZx81KvPq"
    tree = TreeIndex.from_path(make_tree({
        "run.sh": f"# /home/me/ in a comment\nexport DB_PASSWORD={secret}\ncp C:\\\\data /mnt/x1/\n",
        "config/p.json": '{"out": "\\/home\\/me\\/out", "n": 1}\n',
    }))
    shell = tree.line_file("run.sh", "shell")
    assert shell.literals == ((3, "cp C:\\data /mnt/x1/"),)
    (found,) = shell.credentials
    assert (found.line, found.kind, found.name, found.masked) == (2, "assignment", "DB_PASSWORD", mask_secret(secret))
    assert secret not in repr(shell.credentials)
    assert tree.line_file("config/p.json", "json").literals == ((1, "/home/me/out"),)


def test_c2_the_packages_r_and_julia_ship_come_from_versioned_tables():
    from scoring.reference_data import julia_stdlib, r_shipped_packages, table_text

    assert "R 4.4" in table_text("r_shipped_packages.txt") and "Julia 1.11" in table_text("julia_stdlib.txt")
    assert len(r_shipped_packages("base")) == 15 and len(r_shipped_packages("recommended")) == 15
    assert r_shipped_packages() == r_shipped_packages("base") | r_shipped_packages("recommended")
    assert {"stats", "MASS", "Matrix", "survival"} <= r_shipped_packages() and "dplyr" not in r_shipped_packages()
    assert {"Base", "LinearAlgebra", "Random", "Statistics", "Test"} <= julia_stdlib()
    assert "DataFrames" not in julia_stdlib()


def test_c2_fix_names_the_rules_conda_environment_and_the_projects_r_environment(make_tree):
    root = make_tree({
        "workflow/Snakefile": 'include: "rules/stats.smk"\n',
        "workflow/rules/stats.smk": ('rule plot_depths:\n    input: "calls.tsv"\n    output: "depths.svg"\n'
                                     '    conda: "../envs/stats.yaml"\n    script: "../scripts/plot-depths.py"\n'),
        "workflow/envs/stats.yaml": "channels: [conda-forge]\ndependencies:\n  - pandas =1.5\n  - matplotlib =3.6\n",
        "workflow/envs/bedops.yaml": "channels: [bioconda]\ndependencies:\n  - bedops =2.4\n",
        "workflow/scripts/plot-depths.py": "import matplotlib\nimport numpy\nimport pandas\n",
        # the analysis's R packages live in a conda environment, not a DESCRIPTION
        "environment.yaml": "dependencies:\n  - r-base=4.3\n  - r-dplyr\n  - bioconductor-deseq2=1.42.0\n",
        "environment-frozen.yaml": ("dependencies:\n  - r-base=4.3.1=h0_0\n  - r-dplyr=1.1.4=r43_0\n  - r-tidyr=1.3.0=r43_0\n"
                                    "  - r-readr=2.1.4=r43_0\nprefix: /home/me/miniconda3/envs/x\n"),
        "analysis/de.R": "library(DESeq2)\nlibrary(dplyr)\nlibrary(ashr)\n",
    })
    m = measure("import_resolvability", root)
    assert m.fix == ("Declare r-ashr in environment.yaml (bioconductor-<name> for a Bioconductor package); "
                     "declare numpy in workflow/envs/stats.yaml.")


_LIBRARY = {"pyproject.toml": '[project]\nname = "tidal"\ndependencies = ["numpy"]\n',
            "tidal/__init__.py": "import numpy\n"}


@pytest.mark.parametrize(("files", "fix"), [
    # a test import goes into the test extra, a docs import into the docs extra it lacks
    ({**_LIBRARY, "pyproject.toml": _LIBRARY["pyproject.toml"] + '[project.optional-dependencies]\n'
                                     'tests = ["pytest"]\nplots = ["matplotlib"]\n',
      "environment.yml": "dependencies:\n  - numpy\n  - pytest\n",
      "tidal/tests/test_a.py": "import pytest\nimport packaging\n", "docs/ext/x.py": "import docutils\n"},
     "Declare docutils in pyproject.toml ([project.optional-dependencies] docs); declare packaging in "
     "pyproject.toml ([project.optional-dependencies] tests)."),
    # a dependency group, a test requirements file, a docs requirements file
    ({**_LIBRARY, "pyproject.toml": _LIBRARY["pyproject.toml"] + '[dependency-groups]\ntest = ["pytest"]\n',
      "tests/test_a.py": "import hypothesis\n"},
     "Declare hypothesis in pyproject.toml ([dependency-groups] test)."),
    ({"requirements.txt": "numpy\n", "requirements-dev.txt": "pytest\n", "docs/requirements.txt": "sphinx\n",
      "a.py": "import numpy\nimport scipy\n", "tests/test_a.py": "import hypothesis\n",
      "docs/conf_helpers.py": "import docutils\n"},
     "Declare scipy in requirements.txt; declare docutils in docs/requirements.txt; declare hypothesis in "
     "requirements-dev.txt."),
    # a source import goes into the package's own runtime list, never a derived minimum-versions file
    ({**_LIBRARY, "min-requirements.txt": "numpy==1.22\n", "requirements.txt": "numpy\n",
      "tidal/plot.py": "import matplotlib\n"},
     "Declare matplotlib in pyproject.toml."),
    ({"min-requirements.txt": "numpy==1.22\n", "requirements.txt": "numpy\n", "a.py": "import numpy, scipy\n",
      "tests/test_a.py": "import pytest\n"},
     "Declare scipy in requirements.txt; declare pytest in requirements-dev.txt."),
])
def test_c2_fix_names_the_set_of_the_importing_files_role(make_tree, files, fix):
    assert measure("import_resolvability", make_tree(files)).fix == fix


def test_c2_fix_keeps_description_for_an_r_package(make_tree):
    root = make_tree({"DESCRIPTION": "Package: x\nVersion: 0.1\nImports: dplyr\n",
                      "environment.yml": "dependencies:\n  - r-dplyr\n", "R/a.R": "library(dplyr)\nlibrary(tidyr)\n"})
    assert measure("import_resolvability", root).fix == "Declare tidyr in DESCRIPTION."


def test_c2_workflow_includes_resolve_by_path(make_tree):
    root = make_tree({
        "Snakefile": 'include: "rules/common.smk"\ninclude: "rules/missing.smk"\ninclude: workflow.source_path("x.smk")\n',
        "rules/common.smk": "SAMPLES = ['a']\n",
    })
    m = measure("import_resolvability", root)
    assert (m.value, m.applicable) == (0, True)
    assert (m.counts["resolved_includes"], m.counts["unresolved_includes"]) == (1, 1)
    assert located(m) == [("Snakefile", None, 2, "import_resolvability.unresolved_include")]
    assert m.fix == "Add the files the includes rules/missing.smk name to the deposit, or correct their paths."
    resolved = measure("import_resolvability", make_tree({"main.nf": "include { A } from './modules/a'\n",
                                                          "modules/a/main.nf": "process A {\n}\n"}))
    assert (resolved.value, resolved.applicable, resolved.reason) == (
        100, True, "no third-party imports; every workflow include resolves to a file (1)")
    none = measure("import_resolvability", make_tree({"scale.m": "function y = scale(x)\ny = 2 * x;\nend\n"}))
    assert (none.applicable, none.reason) == (False, "no Python, R, Julia, Nextflow or Snakemake source files")


def test_one_command_environment_creations_name_their_files():
    from scoring.detectors.portability.import_resolvability import _created_from
    from scoring.parsers.shell import split_commands

    lines = ["conda env create -f install/environment.yml", "mamba env update --file=envs/a.yml",
             "conda create -n x --file spec.txt", "conda create -f -n x", "python -m pip install -r req/run.txt",
             "uv pip install --requirement req/uv.txt", "pip install numpy", "micromamba create -f m.yml"]
    assert [_created_from(c) for line in lines for c in split_commands(line)] == [
        ["install/environment.yml"], ["envs/a.yml"], ["spec.txt"], [], ["req/run.txt"], ["req/uv.txt"], [],
        ["m.yml"]]
