"""Unit tests of the documentation detectors (category D, METRICS.md D1–D7).

The golden cases live in tests/fixtures/<metric_id>/; this file covers command
classification, comment counting, the fallbacks for unparsable input, and trees that
git cannot hold (empty directories, binary bytes).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring.detectors.documentation._common import (
    FAMILIES,
    DocLine,
    _runnable,
    doc_lines,
    native_programs,
    project_names,
    run_heading,
    runnable_commands,
)
from scoring.detectors.documentation.inline_explanation_density import (
    _fact_comment_lines,
    _is_marker_comment,
)
from scoring.detectors.documentation.install_instructions import _install_line, _InstallContext
from scoring.frontends import julia as julia_frontend
from scoring.frontends import python as python_frontend
from scoring.frontends import r as r_frontend
from scoring.parsers.markdown import parse_document
from scoring.parsers.shell import script_comments, split_commands
from scoring.registry import REGISTRY
from scoring.tree import TreeIndex

FIXTURES = Path(__file__).parent / "fixtures"

D_METRICS = (
    "doc_structure",
    "install_instructions",
    "usage_examples",
    "inline_explanation_density",
    "execution_entry_point",
    "docstring_coverage",
    "reuse_metadata",
)


def measure(metric_id: str, root: Path):
    return REGISTRY[metric_id].run(TreeIndex.from_path(root))


def notebook(*cells: tuple[str, str], nbformat: int = 4) -> str:
    raw = []
    for kind, source in cells:
        cell = {"cell_type": kind, "metadata": {}, "source": source}
        if kind == "code":
            cell.update(execution_count=None, outputs=[])
        raw.append(cell)
    return json.dumps({"nbformat": nbformat, "metadata": {}, "cells": raw})


# --------------------------------------------------------------------------- golden fixtures
# test_detector_fixtures.py runs these too once every category module exists; running them
# here keeps category D testable on its own.


@pytest.mark.parametrize("metric_id", D_METRICS)
def test_at_least_three_fixture_cases(metric_id):
    assert len(list((FIXTURES / metric_id).glob("*/expected.json"))) >= 3


# --------------------------------------------------------------------------- empty and bad input


def test_empty_tree(tmp_path):
    values = {mid: (measure(mid, tmp_path).value, measure(mid, tmp_path).applicable) for mid in D_METRICS}
    assert values == {
        "doc_structure": (0, True),
        "install_instructions": (0, True),
        "usage_examples": (0, True),
        "inline_explanation_density": (50, False),
        "execution_entry_point": (0, True),
        "docstring_coverage": (50, False),
        "reuse_metadata": (0, True),
    }


def test_bad_input_never_raises(make_tree):
    root = make_tree({
        "README.md": b"# Install\xff\xfe\n\n```\npip install -r requirements.txt\n```\n",
        "binary.py": b"\x00\x01\x02def f(): pass\n",
        "broken.ipynb": "{not json",
        "cells_missing.ipynb": json.dumps({"nbformat": 4, "metadata": {}}),
        "empty.py": "",
        "blank.R": "\n\n   \n",
        "py2.py": 'def main():\n    print "hi"\n',
        "pyproject.toml": "[project\nname = ",
        "setup.cfg": "[metadata\nname",
        "CITATION.cff": "cff-version: [unclosed\n",
        "codemeta.json": "[1, 2]",
        "LICENSE": "",
    })
    results = {mid: measure(mid, root) for mid in D_METRICS}
    assert results["doc_structure"].value == 25           # the heading survives bad bytes
    assert results["install_instructions"].value == 100
    # py2.py: 2 non-blank lines, no comment; binary.py and the notebooks drop out.
    assert results["inline_explanation_density"].value == 0
    assert results["inline_explanation_density"].counts["scripts"] == 1
    assert results["docstring_coverage"].value == 0       # main() found by the line fallback
    # empty.py, py2.py and blank.R are read (R counts too, METRICS §0.3); binary.py is not
    assert results["docstring_coverage"].counts == {
        "public_defs": 1, "documented_defs": 0, "files": 3, "files_unparsed": 1, "python_public_defs": 1,
        "python_documented_defs": 0, "test_defs_excluded": 0, "vendored_defs_excluded": 0}
    assert results["reuse_metadata"].value == 0           # empty LICENSE, invalid CFF, codemeta not an object


def test_hundred_thousand_line_script(make_tree):
    body = "".join("# step\n" if i % 10 == 0 else f"x{i} = {i}\n" for i in range(100_000))
    m = measure("inline_explanation_density", make_tree({"big.py": body}))
    assert m.value == 50.0
    assert m.counts["comment_lines"] == 10_000
    assert m.counts["nonblank_lines"] == 100_000


def test_nbformat3_notebook_is_counted(make_tree):
    nb3 = json.dumps({"nbformat": 3, "metadata": {}, "worksheets": [{"cells": [
        {"cell_type": "heading", "level": 1, "source": "Loading the survey data"},
        {"cell_type": "code", "input": "x = 1", "prompt_number": 1, "outputs": []},
        {"cell_type": "code", "input": "y = 2", "prompt_number": 2, "outputs": []},
        {"cell_type": "code", "input": "z = 3", "prompt_number": 3, "outputs": []},
        {"cell_type": "code", "input": "w = 4", "prompt_number": 4, "outputs": []},
    ]}]})
    m = measure("inline_explanation_density", make_tree({"old.ipynb": nb3}))
    assert (m.counts["md_cells"], m.counts["code_cells"]) == (1, 4)
    assert m.value == 50.0
    assert m.evidence[0].cell == 2


def test_invalid_notebook_drops_out_but_scripts_count(make_tree):
    root = make_tree({"broken.ipynb": "{", "a.py": "# why\nx = 1\n"})
    m = measure("inline_explanation_density", root)
    assert m.value == 100.0
    assert m.counts["notebooks"] == 0


# --------------------------------------------------------------------------- commands in documents


def test_doc_lines_strip_prompts_and_join_continuations():
    text = "# T\n\n```\n$ python main.py \\\n    --in data/\n>>> import tool\n```\n\nThen `% make figures`.\n"
    lines = doc_lines(parse_document(text, "README.md"))
    assert [(d.line, d.text, d.repl, d.in_block) for d in lines] == [
        (4, "python main.py      --in data/", False, True),
        (6, "import tool", True, True),
        (9, "make figures", False, False),
    ]


@pytest.mark.parametrize(("line", "rule"), [
    ("python main.py", "usage_examples.python_script"),
    ("python3 -u scripts/fit.py --seed 1", "usage_examples.python_script"),
    ("py -3 run.py", "usage_examples.python_script"),
    ("python -W ignore -m tool.cli", "usage_examples.python_module"),
    ("python -m pip install x", None),
    ("python -m venv .venv", None),
    ("python setup.py develop", None),
    ("python install_deps.py", None),
    ("python -c 'print(1)'", None),
    ("python --version", None),
    ("bash -c 'python run.py'", "usage_examples.python_script"),
    ("bash scripts/run_all.sh", "usage_examples.shell_script"),
    ("sh install.sh", None),
    ("./bootstrap.sh", None),
    ("./configure --prefix=/opt", None),
    ("./run.sh data/", "usage_examples.shell_script"),
    ("Rscript analysis.R", "usage_examples.rscript"),
    ("Rscript -e 'rmarkdown::render(\"report.Rmd\")'", "usage_examples.rscript"),
    ("Rscript -e 'renv::restore()'", None),
    ("R CMD BATCH analysis.R", "usage_examples.r_batch"),
    ("R CMD INSTALL .", None),
    ("julia --project main.jl", "usage_examples.julia"),
    ("julia --project -e 'using Pkg; Pkg.instantiate()'", None),
    ("make", "usage_examples.make"),
    ("make -j 4 figures", "usage_examples.make"),
    ("make -C build install", None),
    ("snakemake --cores 4", "usage_examples.snakemake"),
    ("nextflow run main.nf", "usage_examples.nextflow"),
    ("jupyter nbconvert --to notebook --execute analysis.ipynb", "usage_examples.jupyter_execute"),
    ("jupyter notebook", None),
    ("papermill in.ipynb out.ipynb", "usage_examples.papermill"),
    ("docker run --rm tool:1.0", "usage_examples.container_run"),
    ("docker build -t tool .", None),
    ("apptainer exec tool.sif python run.py", "usage_examples.container_run"),
    ("wordcount --input a.txt", "usage_examples.console_script"),
    ("pip install wordcount", None),
    ("cd src && python main.py", "usage_examples.python_script"),
    # set-up is never usage (METRICS §0.2.11)
    ("python -m ipykernel install --user --name survey", None),
    ("python -m mypkg register", None),
    ("python -m mypkg --in data.csv", "usage_examples.python_module"),
    # MATLAB/Octave (§0.3): a batch run of more than set-up
    ('matlab -batch "analyse_all"', "usage_examples.matlab"),
    ('matlab -nodisplay -nosplash -r "run_all; exit"', "usage_examples.matlab"),
    ('matlab -nodisplay -r "addpath(genpath(pwd)); setup; exit"', None),
    ("matlab -batch \"matlab.addons.install('x.mltbx')\"", None),
    ("matlab", None),
    ("octave analyse_all.m", "usage_examples.octave"),
    ("octave-cli --no-gui run_all.m", "usage_examples.octave"),
    ('octave --eval "pkg load statistics"', None),
    ("octave setup.m", None),
    # native codes: fpm runs the package's program; a program the build declares, by name
    ("fpm run -- input.nml", "usage_examples.fpm_run"),
    ("fpm build", None),
    ("kmerscan index ref.fa", "usage_examples.native_program"),
])
def test_runnable_command_rules(line, rule):
    found = [r for c in split_commands(line) if (r := _runnable(c, frozenset({"wordcount"}),
                                                                programs=frozenset({"kmerscan"})))]
    assert (found[0] if found else None) == rule


def test_doc_lines_read_prompt_lines_of_the_prose():
    text = "# T\n\n- $ python main.py\n\n> % make figures\n\n- $ `pip install x`\n\nCosts $ 5.\n"
    lines = doc_lines(parse_document(text, "README.md"))
    assert [(d.line, d.text, d.in_block) for d in lines] == [
        (7, "pip install x", False), (3, "python main.py", False), (5, "make figures", False)]


@pytest.mark.parametrize(("line", "commands"), [
    ("make && make install", 0),
    ("make && sudo make install && python run.py", 1),
    ("make figures", 1),
])
def test_a_make_install_line_builds_and_installs(line, commands):
    doc = parse_document(f"# T\n\n```\n{line}\n```\n", "README.md")
    assert len(runnable_commands(doc, frozenset())) == commands


def _install(line: str, *, own=("tool",), declares=True, repl=False, compiled=False):
    ctx = _InstallContext(frozenset(own), declares, compiled=compiled, built_images=frozenset({"built/image"}),
                          toolbox_files=frozenset({"box"}))
    hit = _install_line(DocLine("README.md", 1, line, repl, True), ctx)
    return None if hit is None else (hit.value, hit.rule.rsplit(".", 1)[-1])


@pytest.mark.parametrize(("line", "expected"), [
    ("pip install -r requirements.txt", (100, "pip_requirements")),
    ("pip3 install --user --requirement=requirements/base.txt", (100, "pip_requirements")),
    ("python -m pip install -e '.[dev]'", (100, "local_project")),
    ("uv pip install .", (100, "local_project")),
    ("pip install tool==1.2", (100, "own_distribution")),
    ("pip install Tool", (100, "own_distribution")),
    ("pip install numpy scipy", (70, "package_by_package")),
    ("pip install -i https://example.org/simple numpy", (70, "package_by_package")),
    ("pip install --upgrade pip setuptools wheel", None),
    ("pip install", None),
    ("pip list", None),
    ("conda env create", (100, "conda_env")),
    ("micromamba env create -f env.yml", (100, "conda_env")),
    ("conda env update --file environment.yml", (100, "conda_env")),
    ("conda create -n tool --file spec-file.txt", (100, "conda_env")),
    ("conda create -n tool python=3.9 numpy", (70, "package_by_package")),
    ("conda install -c conda-forge numpy", (70, "package_by_package")),
    ("conda install -c bioconda tool", (100, "own_distribution")),
    ("conda activate tool", None),
    ("poetry install --no-root", (100, "lock_sync")),
    ("pipenv install", (100, "lock_sync")),
    ("pipenv install requests", (70, "package_by_package")),
    ("pipenv sync", (100, "lock_sync")),
    ("pdm install", (100, "lock_sync")),
    ("uv sync --frozen", (100, "lock_sync")),
    ("pixi install", (100, "lock_sync")),
    ("docker build -t tool .", (100, "container")),
    ("docker compose up -d", (100, "container")),
    ("docker-compose up", (100, "container")),
    ("docker run jupyter/scipy-notebook", None),
    # the project's own image (named after it, or built by the documents): its whole environment
    ("docker run -dp 8787:8787 me/tool", (100, "own_container")),
    ("podman run --rm -v $PWD:/w ghcr.io/me/tool:1.0 bash", (100, "own_container")),
    ("docker run --name x built/image", (100, "own_container")),
    ("singularity run docker://me/tool:2", (100, "own_container")),
    ("spack install tool@1.2 +mpi ^openblas", (100, "own_distribution")),
    ("spack install fftw hdf5", (70, "package_by_package")),
    ("brew install --with-unicode-support tool", (100, "own_distribution")),
    ("brew install gcc", (70, "system_packages")),
    ("matlab.addons.install('deps/Tool.mltbx')", (100, "own_toolbox")),
    ("matlab.addons.toolbox.installToolbox(\"Box.mltbx\")", (100, "own_toolbox")),
    ("matlab.addons.install('Other.mltbx')", (70, "package_by_package")),
    ("singularity pull docker://tool:1.0", (100, "container")),
    ("make setup", (100, "make_target")),
    ("make figures", None),
    ("bash install.sh", (100, "install_script")),
    ("./install.sh", (100, "install_script")),
    ("source setup_env.sh", (100, "install_script")),
    ("bash run.sh", None),
    ("python setup.py install", (70, "setup_py")),
    ("Rscript -e 'renv::restore()'", (100, "lock_sync")),
    ("renv::restore()", (100, "lock_sync")),
    ("julia --project -e 'using Pkg; Pkg.instantiate()'", (100, "lock_sync")),
    ("] instantiate", (100, "lock_sync")),
    ("install.packages('ggplot2')", (70, "package_by_package")),
    ("BiocManager::install(\"DESeq2\")", (70, "package_by_package")),
    ("devtools::install_github(\"me/tool\")", (70, "package_by_package")),
    ("Pkg.add(\"DataFrames\")", (70, "package_by_package")),
    ("npm install", (70, "package_by_package")),
    ("sudo apt-get install -y ffmpeg", (70, "system_packages")),
])
def test_install_command_tiers(line, expected):
    assert _install(line) == expected


@pytest.mark.parametrize(("line", "expected"), [
    # a compiled deposit's `make install` installs what the build made: a source build (§0.2.11)
    ("make install", (70, "source_build")),
    ("make && sudo make install", (70, "source_build")),
    ("make setup", (100, "make_target")),
    ("cmake --build build", (70, "source_build")),
])
def test_install_compiled_deposit_build_steps(line, expected):
    assert _install(line, compiled=True) == expected


@pytest.mark.parametrize(("line", "language", "expected"), [
    # the repository a compendium is installed from is the project's (its .Rproj, its URL)
    ("remotes::install_github('me/the-paper-2019@v1.0')", "r", (100, "own_package")),
    ("devtools::install_github(repo = \"https://github.com/me/The_Paper_2019.git\")", "r", (100, "own_package")),
    ("devtools::install_github(\"me/other-repo\")", "r", (70, "package_by_package")),
    # a comment is no install, whatever it names
    ("library(paperpkg)  # remotes::install_github('me/the-paper-2019')", "r", None),
    ("x <- 1  # renv::restore()", "", None),
    # MATLAB: compiling MEX files is a source build (70), a comment after it is not read
    ("mex -largeArrayDims filt.c % compile", "matlab", (70, "source_build")),
    ("build_all; % mex('x.c')", "matlab", (70, "source_build")),
    ("plot_all % mex", "matlab", None),
])
def test_install_repository_installs_comments_and_mex(line, language, expected):
    ctx = _InstallContext(frozenset({"paperpkg"}), True, r_package="paperpkg", matlab=True,
                          own_repositories=frozenset({"paperpkg", "the-paper-2019"}),
                          mex_builders=frozenset({"build_all"}))
    hit = _install_line(DocLine("README.md", 1, line, False, True, language), ctx)
    assert (None if hit is None else (hit.value, hit.rule.rsplit(".", 1)[-1])) == expected


def test_matlab_block_prompt_and_comment_lines():
    doc = parse_document("# t\n\n```matlab\n>> cd src\n% a comment line\n>> build_all % done\n```\n", "README.md")
    assert [(line.line, line.text, line.code) for line in doc_lines(doc)] == [
        (4, "cd src", "cd src"), (6, "build_all % done", "build_all")]


def test_install_local_project_without_manifest_is_70():
    assert _install("pip install -e .", declares=False) == (70, "local_project_without_manifest")


def test_install_repl_line_is_not_a_command():
    assert _install("pip install -r requirements.txt", repl=True) is None


# --------------------------------------------------------------------------- D1


@pytest.mark.parametrize(("heading", "families"), [
    ("Installation and usage", {"install", "run"}),
    ("Setting up the environment", {"install"}),
    ("Experimental setup", set()),
    ("Simulation environment", set()),
    ("Runtime", set()),
    ("Running time", set()),
    ("Running the pipeline", {"run"}),
    ("Reproducing the figures", {"run", "output"}),   # §0.2 headings: the output family too
    ("Figures", {"output"}),
    ("Reproducibility", set()),
    ("Results", set()),
    ("Example results", {"output"}),
    ("Outputs", {"output"}),
    ("Compute requirements", {"requirements"}),
    ("Software dependencies", {"requirements"}),
    ("Prerequisites", {"requirements"}),
    ("Tutorials", {"run"}),
])
def test_heading_families(heading, families):
    assert {f.key for f in FAMILIES if f.matches(heading)} == families


def test_doc_structure_reads_lowercase_readme_ipynb(make_tree):
    root = make_tree({"readme.ipynb": notebook(("markdown", "# Tool\n\n## Installation\n\ntext"), ("code", "x = 1"))})
    m = measure("doc_structure", root)
    assert m.value == 25
    # Lines of the joined markdown cells are not lines of the .ipynb file: none is given.
    assert (m.evidence[0].path, m.evidence[0].line_start) == ("readme.ipynb", None)


# --------------------------------------------------------------------------- D2


def test_install_takes_the_maximum_over_documents(make_tree):
    root = make_tree({
        "README.md": "# Tool\n\n```\npip install numpy\n```\n",
        "INSTALL": "Run\n\n    conda env create -f environment.yml\n",
    })
    m = measure("install_instructions", root)
    assert m.value == 100
    assert [(e.path, e.line_start, e.rule) for e in m.evidence] == [
        ("INSTALL", 3, "install_instructions.conda_env")]
    assert m.counts["one_command"] == 1 and m.counts["package_commands"] == 1


def test_install_local_project_without_dependencies_asks_to_declare_them(make_tree):
    root = make_tree({"README.md": "# T\n\n    pip install -e .\n", "pyproject.toml": "[project]\nname = 't'\n"})
    m = measure("install_instructions", root)
    assert m.value == 70
    assert m.evidence[0].rule == "install_instructions.local_project_without_manifest"
    assert "[project].dependencies" in m.fix


def test_install_script_file_is_not_an_install_document(make_tree):
    m = measure("install_instructions", make_tree({"install.sh": "pip install -r requirements.txt\n"}))
    assert m.value == 0
    assert m.counts["install_files"] == 0


def test_install_fix_names_the_manifest(make_tree):
    m = measure("install_instructions", make_tree({"README.md": "# T\n", "environment.yml": "name: t\n"}))
    assert m.value == 0
    assert "conda env create -f environment.yml" in m.fix


def test_install_own_distribution_from_setup_py(make_tree):
    root = make_tree({
        "README.md": "# T\n\nInstall with `pip install my-tool`.\n",
        "setup.py": "from setuptools import setup\nsetup(name='my_tool', version='1')\n",
    })
    m = measure("install_instructions", root)
    assert m.value == 100
    assert (m.evidence[0].line_start, m.evidence[0].rule) == (3, "install_instructions.own_distribution")


def test_install_own_distribution_through_a_module_level_name(make_tree):
    root = make_tree({
        "docs/install.rst": "Install\n=======\n\n.. code-block:: bash\n\n    pip install -U pip\n    pip install -U sampler-kit\n",
        "setup.py": "from setuptools import setup\n\nNAME = 'sampler-kit'\nsetup(name=NAME, install_requires=['numpy'])\n",
    })
    m = measure("install_instructions", root)
    assert m.value == 100
    assert [(e.path, e.line_start, e.rule) for e in m.evidence] == [
        ("docs/install.rst", 7, "install_instructions.own_distribution")]


@pytest.mark.parametrize("build", [
    {"CMakeLists.txt": "cmake_minimum_required(VERSION 3.20)\nproject(QuadSolve LANGUAGES CXX)\nadd_executable(quadsolve main.cpp)\n"},
    {"meson.build": "# the solver\nproject(\n  'quadsolve',\n  'fortran',\n)\nexecutable('quadsolve', 'main.f90')\n"},
])
def test_install_conda_package_of_the_native_project(make_tree, build):
    root = make_tree({**build, "main.cpp": "int main() { return 0; }\n",
                      "README.md": "# QuadSolve\n\n```\nconda install -c conda-forge quadsolve\n```\n"})
    m = measure("install_instructions", root)
    assert m.value == 100
    assert [(e.path, e.line_start, e.rule) for e in m.evidence] == [
        ("README.md", 4, "install_instructions.own_distribution")]


# --------------------------------------------------------------------------- D3


def test_usage_inline_code_in_a_sentence_is_no_command_but_a_lone_span_is(make_tree):
    # D3 V2: "a block line is a runnable invocation"; a span alone on its line is displayed as one
    m = measure("usage_examples", make_tree({"README.md": "# T\n\nThen run `python main.py` to reproduce.\n"}))
    assert (m.value, m.counts["code_blocks"], m.counts["runnable_commands"]) == (0, 0, 0)
    m = measure("usage_examples", make_tree({"README.md": "# T\n\nThen run:\n\n`python main.py`\n"}))
    assert m.value == 100
    assert (m.evidence[0].line_start, m.evidence[0].rule) == (5, "usage_examples.python_script")
    m = measure("usage_examples", make_tree({"README.md": "# T\n\n- $ `python main.py`\n"}))
    assert (m.value, m.evidence[0].line_start, m.evidence[0].snippet) == (100, 3, "python main.py")


def test_usage_empty_examples_directory_does_not_count(tmp_path):
    (tmp_path / "examples").mkdir()
    (tmp_path / "Demo").mkdir()
    (tmp_path / "Demo" / "a.py").write_text("print(1)\n")
    m = measure("usage_examples", tmp_path)
    assert m.value == 30
    assert [e.path for e in m.evidence] == ["Demo", "Demo/a.py"]


def test_usage_setup_py_entry_points(make_tree):
    root = make_tree({
        "README.md": "# T\n\n```\n$ fit-model data.csv\n```\n",
        "setup.py": "setup(\n    name='t',\n    entry_points={'console_scripts': [\n        'fit-model = t.cli:main',\n    ]},\n)\n",
    })
    assert measure("usage_examples", root).value == 100
    entry = measure("execution_entry_point", root)
    assert entry.value == 100
    assert [(e.path, e.line_start) for e in entry.evidence] == [("setup.py", 4)]


# --------------------------------------------------------------------------- D4


def _hash_comment_lines(lines: list[str], *, shell: bool, julia: bool) -> set[int]:
    text = "\n".join(lines) + "\n"
    if shell:
        return {n for n, line in script_comments(text).comments if not _is_marker_comment(n, line)}
    frontend = julia_frontend if julia else r_frontend
    return _fact_comment_lines(frontend.extract(text.encode(), "a." + ("jl" if julia else "R")))


def _python_comment_lines(source: str, _lines: list[str]) -> set[int]:
    facts = python_frontend.extract(source.encode(), "a.py")
    return _fact_comment_lines(facts) - {
        n for c in facts.comments if c.doc for n in range(c.line_start, c.line_end + 1)}


def _docstring_lines_by_tokens(source: str) -> set[int]:
    facts = python_frontend.extract(source.encode(), "a.py")
    assert facts.parse_error is not None
    return {n for c in facts.comments if c.doc for n in range(c.line_start, c.line_end + 1)}


def test_hash_comments_outside_strings():
    r_lines = ["#!/usr/bin/env Rscript", "x <- '#no'", "y <- 1 # yes", "#' roxygen", 'z <- "a#b"  # yes']
    assert _hash_comment_lines(r_lines, shell=False, julia=False) == {3, 4, 5}
    sh_lines = ["#!/bin/bash", "echo $#", "n=${#arr[@]}", "echo hi # note", "# %%", "  # indented"]
    assert _hash_comment_lines(sh_lines, shell=True, julia=False) == {4, 6}
    jl_lines = ["x = 1", "#= block", "still comment", "=# y = 2", "c = 'a' # char then comment", "#= one =# z = 3"]
    assert _hash_comment_lines(jl_lines, shell=False, julia=True) == {2, 3, 4, 5, 6}
    # the frontends' comments: a ``#`` inside a multi-line string or a backtick name is no
    # comment (D4's own line lexer counted both)
    r_multi = ['model <- "', "  # latent variables", '  y ~ x"', "select(`#Chrom`, start)"]
    assert _hash_comment_lines(r_multi, shell=False, julia=False) == set()
    # a Julia docstring is documentation (METRICS §0.3 D4), every line of it
    jl_doc = ['"""', "    f(x)", "", "## Arguments", '"""', "f(x) = x  # identity"]
    assert _hash_comment_lines(jl_doc, shell=False, julia=True) == {1, 2, 3, 4, 5, 6}


def test_a_quote_in_a_comment_opens_no_string():
    # ``# """`` opened a string in D4's historical scan (lines 3-4 were lost); D4 3.0.0
    # reads the frontend's comment blocks
    source = '# def f():\n#    """\n#    Doc.\n#    """\nx = 1\n'
    assert _python_comment_lines(source, source.splitlines()) == {1, 2, 3, 4}


def test_python_trailing_comments_and_docstrings(make_tree):
    source = (
        '"""Module doc."""\n'
        "x = '# not a comment'\n"
        "y = 2  # explained\n"
        "def f():\n"
        "    '''Two\n"
        "    lines.'''\n"
        "    return 1\n"
        "z = 3\n"
        "w = 4\n"
        "v = 5\n"
    )
    m = measure("inline_explanation_density", make_tree({"a.py": source}))
    # comment lines: 1, 3, 5, 6 out of 10 → 0.4 ≥ 0.2 → 100
    assert (m.counts["comment_lines"], m.counts["nonblank_lines"]) == (4, 10)
    assert m.value == 100.0


COMMENT_TRAPS = r'''a = '#no'  # yes
s = """
# inside a triple-quoted string
"""
t = """it's # still a string"""
u = 'esc \' # still string' # comment
v = f"{a!r}#x"  # after f-string
w = rb'#raw' + br"#"
x = ('a'
     # comment in brackets
     'b')
y = 1 \
    + 2  # after continuation
'''


def test_comment_scan_agrees_with_the_tokenizer():
    import io
    import tokenize

    lines = COMMENT_TRAPS.splitlines()
    by_tokenizer = {t.start[0] for t in tokenize.generate_tokens(io.StringIO(COMMENT_TRAPS).readline)
                    if t.type == tokenize.COMMENT}
    assert _python_comment_lines(COMMENT_TRAPS, lines) == by_tokenizer == {1, 6, 7, 10, 13}
    # Python 2: a string right after a keyword is still a string.
    assert _python_comment_lines('print"#not a comment"\n', ['print"#not a comment"']) == set()


def test_comment_scan_survives_unterminated_strings():
    # A non-possessive scanner backtracks exponentially on this (minutes at n=24).
    source = '"""' + 'ab"c' * 40 + "\n# after\n"
    # The file does not tokenize; like CodeUnit.comments' line fallback, line 2 counts.
    assert _python_comment_lines(source, source.splitlines()) == {2}
    source = "x = 1  # one\ns = 'open\n# two\n"
    assert _python_comment_lines(source, source.splitlines()) == {1, 3}


def test_docstring_lines_by_tokens_for_python2():
    source = '"""Module."""\nimport os\ndef f(x):\n    """Doc\n    more."""\n    print "x"\ns = "not a docstring"\n'
    assert _docstring_lines_by_tokens(source) == {1, 4, 5}


def test_julia_and_shell_scripts_join_the_script_part(make_tree):
    root = make_tree({
        "run.jl": "# load\nusing CSV\nx = 1\ny = 2\nz = 3\n",
        "go.sh": "#!/bin/bash\nset -e\npython a.py\npython b.py\npython c.py\n",
    })
    m = measure("inline_explanation_density", root)
    # 1 comment in 10 non-blank lines (the shebang is not one) → 0.1 / 0.2 → 50
    assert (m.counts["comment_lines"], m.counts["nonblank_lines"], m.counts["scripts"]) == (1, 10, 2)
    assert m.value == 50.0
    # run.jl sits exactly on the 20 % target, so only go.sh is listed.
    assert [(e.path, e.line_start, e.line_end) for e in m.evidence] == [("go.sh", 1, 5)]


def test_density_rounds_to_one_decimal(make_tree):
    # 1 md for 3 code cells → 66.666… ; no scripts → 66.7
    root = make_tree({"a.ipynb": notebook(("markdown", "Explaining the next steps"),
                                          ("code", "a = 1"), ("code", "b = 2"), ("code", "c = 3"))})
    assert measure("inline_explanation_density", root).value == 66.7


# --------------------------------------------------------------------------- D5


@pytest.mark.parametrize(("files", "value", "evidence"), [
    ({"makefile": "build:\n\tgcc a.c\nreproduce: build\n\tpython run.py\n"}, 100, ("makefile", 3)),
    ({"justfile": "run:\n    python main.py\n"}, 100, ("justfile", 1)),
    ({"workflow/Snakefile": "rule all:\n    input: 'x'\n"}, 100, ("workflow/Snakefile", None)),
    ({"main.nf": "workflow {}\n"}, 100, ("main.nf", None)),
    ({"Makefile": "install:\n\tpip install .\n"}, 0, None),
    ({"scripts/run.sh": "python a.py\n"}, 0, None),
    ({"main.cpp": "int main(){}\n"}, 0, None),
])
def test_entry_point_sources(make_tree, files, value, evidence):
    m = measure("execution_entry_point", make_tree(files))
    assert m.value == value
    if evidence:
        assert (m.evidence[0].path, m.evidence[0].line_start) == evidence


def test_python_m_without_main_module_is_only_80(make_tree):
    root = make_tree({"README.md": "# T\n\n```\npython -m tool\n```\n", "tool/__init__.py": ""})
    m = measure("execution_entry_point", root)
    assert m.value == 80
    assert m.evidence[0].rule == "execution_entry_point.readme_command"


# --------------------------------------------------------------------------- D6


def test_docstring_module_level_blocks_overloads_and_nesting(make_tree):
    source = (
        "from typing import overload\n"
        "try:\n"
        "    def fast():\n"
        "        '''Fast path.'''\n"
        "except ImportError:\n"
        "    def slow():\n"
        "        pass\n"
        "@overload\n"
        "def g(x: int) -> int: ...\n"
        "def g(x):\n"
        "    '''G.'''\n"
        "    def inner():\n"
        "        pass\n"
        "    return x\n"
        "def empty():\n"
        "    ''''''\n"
    )
    m = measure("docstring_coverage", make_tree({"a.py": source}))
    assert (m.counts["public_defs"], m.counts["documented_defs"]) == (4, 2)
    assert m.value == 50.0
    assert [(e.line_start, e.snippet, e.rule) for e in m.evidence] == [
        (6, "def slow():", "docstring_coverage.undocumented"), (15, "def empty():", "docstring_coverage.undocumented"),
        (3, "def fast():", "docstring_coverage.documented"), (10, "def g(x):", "docstring_coverage.documented")]


def test_docstring_documented_definitions_shown_from_their_block(make_tree):
    r_source = ("#' Tidal range\n#'\n#' @param x levels\n#' @export\ntidal_range <- function(x) {\n  diff(range(x))\n}\n\n"
                "helper <- function(x) x\n")
    m = measure("docstring_coverage", make_tree({"R/range.R": r_source}))
    assert (m.counts["r_public_defs"], m.counts["r_documented_defs"]) == (2, 1)
    assert [(e.path, e.line_start, e.line_end, e.rule) for e in m.evidence] == [
        ("R/range.R", 9, 9, "docstring_coverage.undocumented"),
        ("R/range.R", 1, 5, "docstring_coverage.documented")]


def test_docstring_notebooks_and_private_only_are_not_applicable(make_tree):
    root = make_tree({
        "a.ipynb": notebook(("code", "def public():\n    pass")),
        "b.py": "def _private():\n    pass\nclass _Hidden:\n    def shown(self):\n        pass\n",
    })
    m = measure("docstring_coverage", root)
    assert (m.value, m.applicable, m.fix) == (50, False, None)
    assert m.reason == "no public definitions"


def test_usage_examples_directory_shows_its_first_example_files(make_tree):
    root = make_tree({"vignettes/intro.Rmd": "---\ntitle: x\n---\n", "vignettes/refs.bib": "@a{b}\n",
                      "vignettes/tour.Rmd": "---\ntitle: y\n---\n", "README.md": "# Pkg\n\nA package.\n"})
    m = measure("usage_examples", root)
    assert m.value == 30
    assert [(e.path, e.rule) for e in m.evidence] == [
        ("vignettes", "usage_examples.examples_dir"), ("vignettes/intro.Rmd", "usage_examples.example_file"),
        ("vignettes/tour.Rmd", "usage_examples.example_file")]


def test_inline_density_names_the_vendored_files_left_out(make_tree):
    root = make_tree({"renv/activate.R": "local({\n  x <- 1\n})\n", "R/fit.R": "# fit\nfit <- function(x) x\n"})
    m = measure("inline_explanation_density", root)
    assert m.counts["vendored_files"] == 1
    assert [(e.path, e.rule) for e in m.evidence] == [("renv/activate.R", "inline_explanation_density.vendored")]


def test_inline_density_shows_the_files_lacking_most_explanation_first(make_tree):
    code = "".join(f"x{i} = {i}\n" for i in range(40))
    root = make_tree({
        "a.sh": "#!/bin/sh\npython run.py\n",                            # no comment, 0.4 lines short
        "run.py": "# why\n" + code,                                       # 41 lines, 7.2 short
        "model.py": code[:160],                                           # 20 lines, no comment: 4 short
        "one.ipynb": notebook(*[("code", f"x = {i}") for i in range(4)]),  # no markdown: 2 cells short
        "two.ipynb": notebook(("code", "x = 1"), ("code", "y = 2")),      # 1 cell short
    })
    m = measure("inline_explanation_density", root)
    assert [(e.path, e.line_start, e.cell) for e in m.evidence] == [
        ("one.ipynb", None, 1), ("two.ipynb", None, 1), ("run.py", 2, None), ("model.py", 1, None),
        ("a.sh", 1, None)]
    assert m.fix == ("Add explanatory markdown cells (one per two code cells) to one.ipynb, two.ipynb, and comments "
                     "and docstrings to run.py, model.py, and `#` comments to a.sh (about one comment or documentation "
                     "line in five lines of code).")


# --------------------------------------------------------------------------- D7


def test_reuse_shows_every_licence_statement_after_the_counted_one(make_tree):
    root = make_tree({"COPYING": "GNU GENERAL PUBLIC LICENSE\n", "COPYING.LESSER": "GNU LESSER GENERAL\n",
                      "DESCRIPTION": "Package: p\nVersion: 1\nLicense: LGPL-3\n", "R/a.R": ""})
    m = measure("reuse_metadata", root)
    assert (m.value, m.counts["items"]) == (40, 1)
    assert [(e.path, e.line_start, e.rule) for e in m.evidence] == [
        ("COPYING", 1, "reuse_metadata.licence"), ("COPYING.LESSER", 1, "reuse_metadata.licence"),
        ("DESCRIPTION", 3, "reuse_metadata.description_licence")]


@pytest.mark.parametrize(("files", "value", "licence_path"), [
    ({"COPYING.LESSER": "LGPL\n"}, 40, "COPYING.LESSER"),
    ({"UNLICENSE": "public domain\n"}, 40, "UNLICENSE"),
    ({"licence.md": "MIT\n"}, 40, "licence.md"),
    ({"docs/LICENSE": "MIT\n"}, 0, None),
    ({"citation.cff": "cff-version: 1.2.0\ntitle: T\n"}, 40, None),
    ({"CITATION.cff": "title: no version\n"}, 0, None),
    ({"codemeta.json": '{"@context": "x",'}, 0, None),
])
def test_reuse_items(make_tree, files, value, licence_path):
    m = measure("reuse_metadata", make_tree(files))
    assert m.value == value
    if licence_path:
        assert [e.path for e in m.evidence if e.rule == "reuse_metadata.licence"] == [licence_path]


def test_reuse_empty_licenses_folder_does_not_count(tmp_path):
    (tmp_path / "LICENSES").mkdir()
    m = measure("reuse_metadata", tmp_path)
    assert m.value == 0
    assert m.counts["licence"] is False


def test_the_readme_title_is_no_section_but_a_lone_top_level_heading_is(make_tree):
    # METRICS.md §0.2.6: "# CEBRA - Figures and Data" names the project over its ## sections.
    titled = measure("doc_structure", make_tree({
        "README.md": "# CEBRA - Figures and Data\n\n## Quickstart\n\nRun it.\n\n## Dependencies\n\nnumpy\n"}))
    assert (titled.value, titled.counts["matched"]) == (50, ["run", "requirements"])
    assert [e.line_start for e in titled.evidence] == [3, 7]
    # A README of top-level headings only has no title: "# Install" is a section.
    flat = measure("doc_structure", make_tree({"README.md": "# Install\n\npip install x\n\n# Figures\n\nSee fig/.\n"}))
    assert (flat.value, flat.counts["matched"]) == (50, ["install", "output"])


@pytest.mark.parametrize(("field", "names_a_licence"), [
    ("GPL-3", True), ("GPL (>= 2)", True), ("LGPL-2.1", True), ("AGPL-3", True),
    ("MIT + file LICENSE", True), ("BSD_3_clause + file LICENSE", True), ("Apache License 2.0", True),
    ("CC BY 4.0", True), ("CC0", True), ("Artistic-2.0", True), ("Unlimited", True), ("file LICENCE", True),
    ("GPL-2 | GPL-3", True), ("Mozilla Public License 2.0", True),
    ("What license is it under?", False), ("TBD", False), ("see the website", False),
])
def test_d7_an_r_licence_field_counts_when_it_names_a_licence_r_knows(field, names_a_licence):
    from scoring.detectors.documentation.reuse_metadata import _R_LICENCE_SPEC

    assert bool(_R_LICENCE_SPEC.search(field)) is names_a_licence


# --------------------------------------------------------------------------- fixes in the deposit's ecosystem

# one bare tree per ecosystem (METRICS §0.3: fixes name the deposit's own tools)
_BARE = {
    "python": {"analysis.py": "import os\n"},
    "python_package": {"pyproject.toml": "[project]\nname = \"fit-kit\"\n", "src/fit_kit/__init__.py": ""},
    "r": {"analysis.R": "x <- 1\n"},
    "r_package": {"DESCRIPTION": "Package: tidyfit\nVersion: 1.0\n", "R/fit.R": "fit <- function(x) x\n"},
    "julia": {"analysis.jl": "x = 1\n"},
    "julia_package": {"Project.toml": 'name = "Fits"\n', "src/Fits.jl": "module Fits\nend\n"},
    "matlab": {"analyse.m": "x = 1;\n"},
    # a toolbox: function files only (an example script and a comments-only Contents.m aside)
    "matlab_toolbox": {"npyio/readArray.m": "function a = readArray(p)\n% readArray  Read an array.\na = load(p);\nend\n",
                       "npyio/Contents.m": "% npyio toolbox\n%   readArray - read an array\n",
                       "examples/demo.m": "a = readArray('x.npy');\n"},
    "native": {"solver.c": "int main(void) { return 0; }\n"},
    "nextflow": {"pipeline.nf": "process A {\n  script:\n  \"echo hi\"\n}\n"},
    "snakemake": {"rules/align.smk": "rule a:\n    output: 'x'\n    shell: 'touch x'\n"},
}
_D2_FIXES = {
    "python": "Declare the dependencies in requirements.txt (or environment.yml) and give the one command that "
              "installs them, e.g. `pip install -r requirements.txt`, in a README code block.",
    "python_package": "Give the one command that creates the environment, `pip install .`, in a README code block.",
    "r": "Record the R packages the analysis uses with renv (`renv::snapshot()` writes renv.lock) and give the one "
         "command that restores them, `Rscript -e 'renv::restore()'`, in a README code block.",
    "r_package": "Give the one command that installs the package with the dependencies its DESCRIPTION declares, "
                 "e.g. `remotes::install_github(\"<owner>/tidyfit\")` (or `devtools::install()` in its folder), in a "
                 "README code block.",
    "julia": "Declare the dependencies in a Project.toml with its Manifest.toml (`] activate .` then `] add "
             "<Package>`) and give the one command that creates the environment, `julia --project -e 'using Pkg; "
             "Pkg.instantiate()'`, in a README code block.",
    "julia_package": "Give the one command that installs the package with the dependencies its Project.toml "
                     "declares, `] add Fits` (or `Pkg.add(url=\"https://github.com/<owner>/Fits.jl\")` before it is "
                     "registered), in a README code block.",
    "matlab": "Package the code as a toolbox (.mltbx) and give the one command that installs it with the add-ons it "
              "needs, `matlab.addons.install('<Toolbox>.mltbx')`, in a README code block, with the MATLAB release and "
              "toolboxes it requires.",
    "matlab_toolbox": "Package the code as a toolbox (.mltbx) and give the one command that installs it with the "
                      "add-ons it needs, `matlab.addons.install('<Toolbox>.mltbx')`, in a README code block, with the "
                      "MATLAB release and toolboxes it requires.",
    "native": "Give one command that installs the program with the libraries it needs in a README code block, e.g. "
              "`spack install <package>` or `conda install -c conda-forge <package>` for a packaged release, or `conda "
              "env create -f environment.yml` for the build environment.",
    "nextflow": "Declare a container or conda environment for every process and give the one command that runs the "
                "pipeline with them, `nextflow run <pipeline> -profile docker`, in a README code block.",
    "snakemake": "Give the one command that creates the environment Snakemake runs in, e.g. `conda env create -f "
                 "environment.yml` with snakemake listed in it, in a README code block; `snakemake --use-conda` then "
                 "builds the rules' environments.",
}
_D3_COMMANDS = {
    "python": "python main.py --config config.yaml", "r": "Rscript run_all.R", "julia": "julia --project main.jl",
    "matlab": 'matlab -batch "main"', "native": "./build/<program> input.txt",
    "nextflow": "nextflow run main.nf -profile docker --input samplesheet.csv",
    "snakemake": "snakemake --use-conda --cores 4",
}
_D5_FIXES = {
    "python": "Add a top-level run.sh (or a Makefile `all` target) that runs the whole analysis and document it "
              "under a README '## Usage' heading.",
    "python_package": "Declare a console script ([project.scripts]) or add fit_kit/__main__.py, and show the "
                      "command (`python -m fit_kit`) under a README '## Usage' heading.",
    "r": "Add a top-level run_all.R (or a targets pipeline, _targets.R) that runs the whole analysis and document "
         "`Rscript run_all.R` under a README '## Usage' heading.",
    "r_package": "Add a README '## Usage' section that shows the first calls a user makes (`library(tidyfit)`, then "
                 "the main function); an analysis built on the package gets a top-level run_all.R that runs it end "
                 "to end.",
    "julia": "Add a top-level main.jl that runs the whole analysis and document `julia --project main.jl` under a "
             "README '## Usage' heading.",
    "julia_package": "Add a README '## Usage' section that shows the first calls a user makes (`using Fits`, then "
                     "the main function); an analysis built on the package gets a top-level main.jl that runs it end "
                     "to end.",
    "matlab": "Add a top-level main.m (or run_all.m) that calls the steps in order and document `matlab -batch "
              "\"main\"` under a README '## Usage' heading.",
    "matlab_toolbox": "Add a README '## Usage' section that shows the first calls a user makes (`addpath('npyio')`, "
                      "then the main function); an analysis built on the toolbox gets a top-level main.m that runs it "
                      "end to end.",
    "native": "Add a Makefile `run` target (or a top-level run.sh) that runs the built program on its inputs and "
              "document it under a README '## Usage' heading.",
    "nextflow": "Put the pipeline's entry workflow in a top-level main.nf and document `nextflow run` under a README "
                "'## Usage' heading.",
    "snakemake": "Put the workflow's rules in a top-level Snakefile (or workflow/Snakefile) and document `snakemake "
                 "--cores 4` under a README '## Usage' heading.",
}


@pytest.mark.parametrize("ecosystem", list(_BARE))
def test_fix_texts_name_the_ecosystems_own_tools(make_tree, ecosystem):
    root = make_tree({"README.md": "# Study\n\nSome text.\n", **_BARE[ecosystem]})
    assert measure("install_instructions", root).fix == _D2_FIXES[ecosystem]
    usage = measure("usage_examples", root).fix
    if ecosystem == "r_package":
        assert usage == ("Add a README code block with a command that runs the package, e.g. "
                         "`Rscript -e 'library(tidyfit); example(<function>)'`.")
    elif ecosystem == "julia_package":
        assert usage == "Add a README code block with a command that runs the package, e.g. `julia --project -e 'using Fits; …'`."
    elif ecosystem == "matlab_toolbox":
        assert usage == ("Add a README code block with a command that runs the toolbox, e.g. "
                         "`matlab -batch \"addpath('npyio'); <function>(…)\"`.")
    elif ecosystem == "python_package":
        assert usage == ("Add a README code block with a command that runs the package, e.g. `python "
                         "examples/quickstart.py` or `python -m fit_kit` (a __main__.py) or its console script.")
    else:
        assert usage == ("Add a README code block with the exact command that runs the analysis, "
                         f"e.g. `{_D3_COMMANDS[ecosystem]}`.")
    assert measure("execution_entry_point", root).fix == _D5_FIXES[ecosystem]


def test_entry_point_fix_of_a_documented_package_is_the_analysis_script(make_tree):
    root = make_tree({"README.md": "# tidyfit\n\n## Usage\n\nCall fit().\n", **_BARE["r_package"]})
    m = measure("execution_entry_point", root)
    assert (m.value, m.fix) == (80, "For an analysis built on the package, add a top-level run_all.R that runs it "
                                    "end to end and document `Rscript run_all.R` beside the README's usage section.")


@pytest.mark.parametrize(("files", "toolbox"), [
    ({"+geo/+io/readGrid.m": "function g = readGrid(p)\ng = p;\nend\n", "@Grid/Grid.m": "classdef Grid\nend\n"}, "."),
    ({"lib/fitLine.m": "function p = fitLine(x, y)\np = polyfit(x, y, 1);\nend\n",
      "lib/private/helper.m": "function h = helper()\nh = 1;\nend\n", "setup_paths.m": "addpath('lib');\n"}, "lib"),
    # a script, a script with local functions, a top-level main.m: an analysis
    ({"lib/fitLine.m": "function p = fitLine(x)\np = x;\nend\n", "analysis.m": "p = fitLine(1);\n"}, ""),
    ({"run_fit.m": "p = helper(1);\n\nfunction h = helper(x)\nh = x;\nend\n"}, ""),
    ({"lib/fitLine.m": "function p = fitLine(x)\np = x;\nend\n", "main.m": "function main()\nfitLine(1);\nend\n"}, ""),
])
def test_a_matlab_toolbox_is_function_files_only(make_tree, files, toolbox):
    from scoring.detectors.documentation._common import matlab_toolbox

    assert matlab_toolbox(TreeIndex.from_path(make_tree(files))) == toolbox


def test_install_fix_after_pinned_installs_asks_to_declare_them(make_tree):
    root = make_tree({"README.md": "# seg\n\n```\npip install torch==2.0.1\npip install numpy==1.24.0\npip install seg\n```\n",
                      "pyproject.toml": "[project]\nname = \"seg\"\n"})
    m = measure("install_instructions", root)
    assert (m.value, m.fix) == (70, "Declare the versions installed one by one before the project as its own "
                                    "dependencies (pyproject.toml, setup.py or a requirements file) so that "
                                    "`pip install seg` alone installs them.")


@pytest.mark.parametrize(("files", "fix"), [
    ({"analysis.R": "x <- 1\n"}, "Add a LICENSE file, a CITATION.cff with cff-version, a codemeta.json with @context "
                                 "at the top level."),
    (_BARE["r_package"], "Add a LICENSE file (usethis::use_mit_license() and its kin write one with the DESCRIPTION "
                         "License: field), a CITATION.cff with cff-version (cffr::cff_write() derives it from "
                         "DESCRIPTION), a codemeta.json with @context (codemetar::write_codemeta() derives it from "
                         "DESCRIPTION) at the top level."),
])
def test_reuse_fix_names_r_tools_for_an_r_package(make_tree, files, fix):
    assert measure("reuse_metadata", make_tree(files)).fix == fix


# --------------------------------------------------------------------------- headings and programs


@pytest.mark.parametrize(("heading", "expected"), [
    ("Using quickfit", True),
    ("Using the quickfit package", True),
    ("Using QuickFit", True),
    ("Using Conda", False),
    ("Usage", True),
    ("Using as a module", False),
])
def test_run_heading_using_the_project_name(make_tree, heading, expected):
    root = make_tree({"pyproject.toml": "[project]\nname = \"quickfit\"\n", "README.md": "# Notes\n"})
    tree = TreeIndex.from_path(root)
    assert run_heading(heading, project_names(tree, tree.readme_document())) is expected


def test_project_names_take_a_short_readme_title(make_tree):
    tree = TreeIndex.from_path(make_tree({"README.md": "# HypoTests.jl\n\n## Using HypoTests\n\nText.\n"}))
    assert project_names(tree, tree.readme_document()) == frozenset({"hypotests"})


def test_native_programs_of_cmake_make_and_fpm(make_tree):
    tree = TreeIndex.from_path(make_tree({
        "CMakeLists.txt": "project(sim C)\nadd_executable(simulate main.c)\n",
        "Makefile": "kmer: a.o\n\t$(CC) a.o -o $@\nclean:\n\trm -f *.o\n",
        "fpm.toml": "name = \"heat\"\n\n[[executable]]\nname = \"solver\"\n",
        "app/driver.f90": "program driver\nend program driver\n",
        "third_party/tool/Makefile": "vend: v.o\n\t$(CC) v.o -o $@\n",
    }))
    assert native_programs(tree) == {"simulate": ("CMakeLists.txt", 2), "kmer": ("Makefile", 1),
                                     "solver": ("fpm.toml", 3), "driver": ("app/driver.f90", None)}


_ECOSYSTEM_TREES = {
    "python": {"analysis.py": "def run(x):\n    return x\n"},
    "r": {"R/fit.R": "fit <- function(x) {\n  x\n}\n", "R/zzz.R": ".onLoad <- function(lib, pkg) {\n  invisible()\n}\n",
          "scripts/plot.py": "def plot(x):\n    return x\n"},
    "julia": {"src/Fit.jl": "module Fit\nexport fit\nfit(x) = x\nend\n"},
    "matlab": {"fit_model.m": "function y = fit_model(x)\ny = x;\nend\n"},
    "native": {"include/fit.h": "int fit(int x);\n", "src/fit.c": "int fit(int x) {\n  return x;\n}\n",
               "src/solve.f90": "subroutine solve(x)\n  real :: x\nend subroutine solve\n"},
    "nextflow": {"main.nf": 'process ALIGN {\n    script:\n    """\n    bwa mem ref.fa reads.fq\n    """\n}\n',
                 "bin/parse_counts.py": "def parse(path):\n    with open(path) as f:\n        lines = f.read().split()\n"
                                        "    counts = [int(x) for x in lines]\n    total = sum(counts)\n    return total\n"},
    "snakemake": {"Snakefile": "def samples():\n    return ['a']\n\nrule all:\n    input: samples()\n",
                  "scripts/plot.R": "plot_all <- function(x) {\n  x\n}\n"},
}


_LINE = " (about one comment or documentation line in five lines of code)."


@pytest.mark.parametrize(("ecosystem", "d4_fix", "d6_fix"), [
    ("python", "Add comments and docstrings to analysis.py" + _LINE,
     "Add a docstring to each public function, class and method (1 undocumented public definition, starting with "
     "'run' in analysis.py:1)."),
    ("r", "Add `#` comments and roxygen `#'` blocks to R/fit.R, R/zzz.R, and comments and docstrings to "
          "scripts/plot.py" + _LINE,
     "Add a roxygen #' block (title, @param, @return) above each R function (1 undocumented R function, starting "
     "with 'fit' in R/fit.R:1); add a docstring to each public function, class and method (1 undocumented public "
     "definition, starting with 'plot' in scripts/plot.py:1)."),
    ("julia", "Add `#` comments and docstrings to src/Fit.jl" + _LINE,
     'Add a docstring ("""…""") directly above each exported function or type (1 undocumented exported name, '
     "starting with 'fit' in src/Fit.jl:3)."),
    ("matlab", "Add `%` comments and help blocks to fit_model.m" + _LINE,
     "Add a help comment block (% lines right below the function or classdef line) (1 undocumented MATLAB "
     "function, starting with 'fit_model' in fit_model.m:1)."),
    ("native", "Add `//` and `/* */` comments (Doxygen on declarations) to src/fit.c, include/fit.h, and `!` "
               "comments (FORD `!>` on declarations) to src/solve.f90" + _LINE,
     "Add a Doxygen comment (/// or /** */) above each declaration in the headers (1 undocumented header "
     "declaration, starting with 'fit' in include/fit.h:1); add a FORD !> comment block above each public "
     "procedure (1 undocumented Fortran procedure, starting with 'solve' in src/solve.f90:1)."),
    ("nextflow", "Add `//` comments to main.nf, and comments and docstrings to bin/parse_counts.py" + _LINE,
     "Describe each module in a meta.yml beside its main.nf, as nf-core modules do (1 undocumented Nextflow "
     "process or workflow, starting with 'ALIGN' in main.nf:1); add a docstring to each public function, class "
     "and method (1 undocumented public definition, starting with 'parse' in bin/parse_counts.py:1)."),
    ("snakemake", "Add `#` comments and rule docstrings to Snakefile, and `#` comments and roxygen `#'` blocks to "
                  "scripts/plot.R" + _LINE,
     "Add a docstring to each public function, class and method (1 undocumented public definition, starting with "
     "'samples' in Snakefile:1); add a roxygen #' block (title, @param, @return) above each R function (1 "
     "undocumented R function, starting with 'plot_all' in scripts/plot.R:1)."),
])
def test_d4_and_d6_fixes_name_the_deposits_own_language_first(make_tree, ecosystem, d4_fix, d6_fix):
    from scoring.detectors._shared import fix_ecosystem
    root = make_tree(_ECOSYSTEM_TREES[ecosystem])
    assert fix_ecosystem(TreeIndex.from_path(root)) == ecosystem
    assert measure("inline_explanation_density", root).fix == d4_fix
    assert measure("docstring_coverage", root).fix == d6_fix


def test_d6_lists_the_projects_own_definitions_before_build_and_documentation_files(make_tree):
    root = make_tree({
        "docs/conf.py": "project = 'x'\nhtml_theme = 'alabaster'\n\ndef linkcode_resolve(domain, info):\n    return None\n",
        "pkg/core.py": "def moran(y, w):\n    return y\n",
    })
    m = measure("docstring_coverage", root)
    assert (m.value, m.counts["public_defs"]) == (0, 2)   # build files stay in D6's denominator (§0.2.2)
    assert [(e.path, e.line_start) for e in m.evidence] == [("pkg/core.py", 1), ("docs/conf.py", 4)]
    assert "starting with 'moran' in pkg/core.py:1" in m.fix
