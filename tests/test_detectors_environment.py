"""Category E detectors (scoring/detectors/environment/): golden fixtures, rules the
fixtures cover thinly, and bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

import scoring.detectors.environment  # noqa: F401 - registers the E detectors
from scoring.registry import DOC_SECTIONS, REGISTRY
from scoring.tree import TreeIndex

FIXTURES = Path(__file__).parent / "fixtures"
E_METRICS = ("dep_pinning", "container_spec", "env_bootstrap", "python_version_declared")


def run(metric_id: str, root: Path):
    return REGISTRY[metric_id].run(TreeIndex.from_path(root))


def rules(measurement) -> list[tuple[str | None, int | None, str]]:
    return [(e.path, e.line_start, e.rule) for e in measurement.evidence]


# --------------------------------------------------------------------------- fixtures


@pytest.mark.parametrize("metric_id", E_METRICS)
def test_documented_versioned_and_at_least_three_fixtures(metric_id):
    detector = REGISTRY[metric_id]
    # 2.1.1: evidence at the lines that declare (manifest spans, each workflow step's
    # directives, environment files, params, every container definition's line; the
    # target or workflow setting a README command goes through; an interpreter entry's field)
    # container_spec 2.2.0: a Snakemake rule container counts beside a pinning conda env or wrapper
    # env_bootstrap 2.2.0: Make prerequisites, R and MATLAB set-up scripts, CONTRIBUTING and
    # install pages, the project's own image, prose prompt lines, fixes per ecosystem
    # dep_pinning 2.2.0: nothing to pin in Python, R and Julia deposits too (§0.3)
    # dep_pinning 2.3.0, python_version_declared 2.2.0: native package managers, packrat.lock,
    # pixi.toml, a setup.py's requirements file, MATLAB *.prj, Pluto's embedded environment,
    # a stated compiler version (§0.3, §0.2.20); container_spec 2.2.1: fixes in the
    # deposit's own ecosystem
    # env_bootstrap 2.3.0: a README code line without its block language's comment;
    # python_version_declared 2.3.0: Make include files (make.inc*), own ecosystem's declaration first;
    # dep_pinning 2.3.1: the fix tells unversioned entries from loosely bounded ones
    # a README spelt otherwise (READ_ME.txt) is found when no listed name exists (TreeIndex.readme,
    # §0.1.13 fallback): every detector that reads the README bumped
    assert detector.version == {"dep_pinning": "2.6.0", "container_spec": "2.3.0", "env_bootstrap": "2.6.0",
                                "python_version_declared": "2.5.0"}.get(metric_id, "2.1.1")
    sections = detector.sections()
    assert all(sections.get(s) for s in DOC_SECTIONS), sections.keys()
    assert sections[""].strip()
    assert len(list((FIXTURES / metric_id).glob("*/expected.json"))) >= 3


# --------------------------------------------------------------------------- E1 dep_pinning


@pytest.mark.parametrize(
    ("imports", "why"),
    [
        ("dplyr, tidyr", "DESCRIPTION leaves dplyr, tidyr unversioned"),
        ("dplyr (>= 1.0), tidyr (>= 1.2)", "DESCRIPTION bounds dplyr, tidyr only loosely"),
        ("dplyr (>= 1.0), tidyr, purrr (== 1.0.2), tidyr",
         "DESCRIPTION leaves tidyr unversioned and bounds dplyr only loosely"),
    ],
)
def test_dep_pinning_fix_says_what_is_loose(make_tree, imports, why):
    m = run("dep_pinning", make_tree({"DESCRIPTION": f"Package: x\nImports: {imports}\n", "R/a.R": "x <- 1\n"}))
    assert m.fix == f"Run `renv::snapshot()` and commit renv.lock ({why})."


def test_dep_pinning_dev_manifest_ignored_while_runtime_manifest_declares(make_tree):
    root = make_tree(
        {"requirements.txt": "numpy\n", "requirements-dev.txt": "pytest==7.4.0\n", "a.py": ""}
    )
    m = run("dep_pinning", root)
    assert (m.value, m.level) == (20, "unpinned")
    assert m.counts["manifest"] == "requirements.txt"
    assert ("requirements-dev.txt", 1, "dep_pinning.manifest_aux") in rules(m)
    assert m.fix.startswith("Pin numpy in requirements.txt")


def test_dep_pinning_dev_manifest_counts_when_runtime_declares_nothing(make_tree):
    # A pyproject.toml holding only tool configuration declares no runtime dependencies.
    root = make_tree(
        {
            "pyproject.toml": "[tool.black]\nline-length = 88\n",
            "requirements-dev.txt": "pytest==7.4.0\n",
        }
    )
    m = run("dep_pinning", root)
    assert (m.value, m.level) == (80, "all_exact")
    assert ("requirements-dev.txt", 1, "dep_pinning.exact") in rules(m)


def test_dep_pinning_follows_includes_and_constraints(make_tree):
    root = make_tree(
        {
            "requirements.txt": "-r requirements/base.txt\n-c constraints.txt\nscipy\n",
            "requirements/base.txt": "numpy==1.24.3\n",
            "constraints.txt": "scipy==1.11.1\n",
        }
    )
    m = run("dep_pinning", root)
    assert (m.value, m.level) == (80, "all_exact")
    assert m.counts["n_entries"] == 2
    # The included entry is reported in its own file and line.
    assert ("requirements/base.txt", 1, "dep_pinning.exact") in rules(m)
    assert ("requirements.txt", 3, "dep_pinning.exact") in rules(m)


def test_dep_pinning_setup_py_without_literal_is_present_with_no_entries(make_tree):
    root = make_tree(
        {
            "setup.py": "from setuptools import setup\nsetup(install_requires=open('r').read().split())\n"
        }
    )
    m = run("dep_pinning", root)
    assert (m.value, m.level, m.counts["n_entries"]) == (20, "unpinned", 0)
    assert "not a literal list" in m.fix


def test_dep_pinning_explicit_conda_spec_is_a_lockfile(make_tree):
    spec = "# platform: linux-64\n@EXPLICIT\nhttps://conda.anaconda.org/conda-forge/linux-64/numpy-1.24.3.tar.bz2\n"
    root = make_tree({"spec-file.txt": spec, "a.py": ""})
    m = run("dep_pinning", root)
    assert (m.value, m.level) == (100, "lockfile")
    assert rules(m)[0] == ("spec-file.txt", 2, "dep_pinning.lockfile")  # the @EXPLICIT line
    assert m.fix is None


@pytest.mark.parametrize(
    ("files", "value"),
    [
        ({"renv.lock": "{}", "analysis.R": ""}, 100),
        ({"renv.lock": "{}", "analysis.py": ""}, 0),
        ({"Manifest.toml": 'julia_version = "1.9.3"\n', "src/a.jl": ""}, 100),
        ({"yarn.lock": "# yarn\n", "index.js": ""}, 100),
        ({"yarn.lock": "# yarn\n", "index.js": "", "a.py": ""}, 0),
        ({"uv.lock": "", "a.py": ""}, 0),  # an empty lockfile pins nothing
        ({"docs/poetry.lock": "x", "a.py": ""}, 0),  # not an environment location
    ],
)
def test_dep_pinning_lockfile_counts_only_for_a_used_ecosystem(make_tree, files, value):
    assert run("dep_pinning", make_tree(files)).value == value


def test_dep_pinning_evidence_is_bounded_and_prefers_entries_to_fix(make_tree):
    lines = [f"pkg{i}==1.0.{i}" for i in range(40)] + ["loose"]
    root = make_tree({"requirements.txt": "\n".join(lines) + "\n"})
    m = run("dep_pinning", root)
    assert len(m.evidence) <= 20
    assert m.counts["n_entries"] == 41 and m.counts["n_exact"] == 40
    assert ("requirements.txt", 41, "dep_pinning.unpinned") in rules(m)
    assert m.value == round(50 + 20 * 40 / 41)  # 69.5… → 70


def spans(measurement) -> list[tuple[str, int | None, int | None, str]]:
    return [(e.path, e.line_start, e.line_end, e.rule) for e in measurement.evidence]


def test_dep_pinning_manifest_item_spans_the_declaring_fields(make_tree):
    root = make_tree({
        "DESCRIPTION": "Package: toy\nVersion: 0.1\nDepends:\n    R (>= 4.1)\nImports:\n    zoo,\n"
                       "    vctrs (>= 0.6.0)\nLicense: MIT\n",
        "R/a.R": "f <- function() zoo::zoo(1)\n",
    })
    m = run("dep_pinning", root)
    assert (m.value, m.level) == (55, "partial")  # round(50 + 20 * 0.5 / 2)
    assert spans(m)[0] == ("DESCRIPTION", 3, 7, "dep_pinning.manifest")
    assert ("DESCRIPTION", 6, 6, "dep_pinning.unpinned") in spans(m)


def test_dep_pinning_other_manifests_show_where_they_declare(make_tree):
    # The best manifest wins; the other still shows its `install_requires` list, whose
    # entry lies above the setup() call that names it.
    root = make_tree({
        "environment.yml": "name: toy\ndependencies:\n  - numpy\n  - scipy\n",
        "setup.py": "from setuptools import setup\n\nREQUIRES = ['numpy']\n\nsetup(name='toy', install_requires=REQUIRES)\n",
        "toy.py": "import numpy\n",
    })
    m = run("dep_pinning", root)
    assert m.counts["manifest"] == "environment.yml"
    assert ("environment.yml", 2, 4, "dep_pinning.manifest") in spans(m)
    assert ("setup.py", 3, 3, "dep_pinning.manifest") in spans(m)


def test_dep_pinning_empty_dependency_list_is_shown_at_its_key(make_tree):
    # the code uses numpy, which the empty list does not declare: something to pin
    root = make_tree({"pyproject.toml": '[project]\nname = "toy"\ndependencies = []\n', "toy.py": "import numpy\n"})
    m = run("dep_pinning", root)
    assert (m.value, m.level, m.applicable) == (20, "unpinned", True)
    assert spans(m) == [("pyproject.toml", 3, 3, "dep_pinning.manifest")]


def test_dep_pinning_conda_export_shows_its_prefix_line(make_tree):
    entries = [f"  - pkg{i}=1.{i}=h0_0" for i in range(30)]
    text = "name: toy\ndependencies:\n" + "\n".join(entries) + "\nprefix: /opt/conda/envs/toy\n"
    m = run("dep_pinning", make_tree({"environment.yml": text, "a.py": ""}))
    assert (m.value, m.level) == (80, "all_exact")
    assert spans(m)[:2] == [("environment.yml", 2, 32, "dep_pinning.manifest"),
                            ("environment.yml", 33, 33, "dep_pinning.conda_export")]
    assert len(m.evidence) == 20


def test_dep_pinning_capped_entries_show_every_file_first(make_tree):
    base = "\n".join(f"pkg{i}==1.0.{i}" for i in range(30)) + "\n"
    root = make_tree({"requirements.txt": base + "-r extra.txt\n", "extra.txt": "tool==2.0.1\n", "a.py": ""})
    m = run("dep_pinning", root)
    assert m.counts["n_entries"] == 31
    assert ("extra.txt", 1, 1, "dep_pinning.exact") in spans(m)
    assert len(m.evidence) == 20


NF_MODULE = """process ALIGN {
    label 'big'

    conda "${moduleDir}/environment.yml"
    container "${ workflow.containerEngine == 'singularity' ?
        'https://depot.example.org/singularity/aligner:2.4.1--h0_0' :
        'biocontainers/aligner:2.4.1--h0_0' }"

    script:
    \"\"\"
    aligner run
    \"\"\"
}
"""


def test_dep_pinning_workflow_step_shows_its_directives_and_environment_file(make_tree):
    root = make_tree({
        "main.nf": "include { ALIGN } from './modules/align/main.nf'\nworkflow { ALIGN() }\n",
        "modules/align/main.nf": NF_MODULE,
        "modules/align/environment.yml": "channels:\n  - bioconda\ndependencies:\n  - bioconda::aligner=2.4.1\n",
    })
    m = run("dep_pinning", root)
    assert (m.value, m.level) == (80, "all_exact")
    assert ("modules/align/main.nf", 4, 5, "dep_pinning.exact") in spans(m)
    assert ("modules/align/environment.yml", 4, 4, "dep_pinning.environment_file") in spans(m)


def test_dep_pinning_workflow_rules_sharing_an_environment_file_show_it_once(make_tree):
    rules_text = "".join(
        f"rule step{i}:\n    output: 'o{i}.txt'\n    conda: 'envs/tools.yml'\n    shell: 'tool {i} > {{output}}'\n\n"
        for i in range(3)
    )
    root = make_tree({"workflow/Snakefile": rules_text,
                      "workflow/envs/tools.yml": "dependencies:\n  - tool=1.2.3\n"})
    m = run("dep_pinning", root)
    assert (m.value, m.counts["n_entries"]) == (80, 3)
    steps = [e for e in m.evidence if e.rule == "dep_pinning.exact"]
    assert [(e.path, e.line_start) for e in steps] == [("workflow/Snakefile", 3), ("workflow/Snakefile", 8),
                                                      ("workflow/Snakefile", 13)]
    files = [e for e in m.evidence if e.rule == "dep_pinning.environment_file"]
    assert [(e.path, e.line_start) for e in files] == [("workflow/envs/tools.yml", 2)]


def test_dep_pinning_workflow_processes_declared_alike_are_one_item(make_tree):
    root = make_tree({
        "main.nf": "".join(f"process P{i} {{\n    label 'tools'\n    script: 'run {i}'\n}}\n" for i in range(3)),
        "nextflow.config": ('params {\n    tools_tag = "3.1.4"\n}\n'
                            'process {\n    withLabel:tools {\n        container = "lab/tools:${params.tools_tag}"\n    }\n}\n'),
    })
    m = run("dep_pinning", root)
    assert (m.value, m.counts["n_entries"]) == (80, 3)
    items = [(e.path, e.line_start, e.rule, e.reason.split(":")[0]) for e in m.evidence[1:]]
    assert items == [("nextflow.config", 6, "dep_pinning.exact", "3 processes (P0, P1, P2)"),
                     ("nextflow.config", 2, "dep_pinning.parameter", "params.tools_tag = 3.1.4")]


def test_dep_pinning_without_a_manifest_shows_readme_installs(make_tree):
    root = make_tree({
        "README.md": "# Toy\n\nRun in R:\n\n```r\ninstall.packages(c(\"zoo\", \"vctrs\"))\nsource(\"run.R\")\n```\n",
        "app/README.md": "Needs `remotes::install_github(\"owner/helper\")` first.\n",
        "run.R": "library(zoo)\n",
    })
    m = run("dep_pinning", root)
    assert (m.value, m.level) == (0, "absent")
    assert spans(m) == [("README.md", 6, 6, "dep_pinning.documented_install"),
                        ("app/README.md", 1, 1, "dep_pinning.documented_install")]


# --------------------------------------------------------------------------- E2 container_spec


@pytest.mark.parametrize(
    ("dockerfile", "value", "level"),
    [
        ("FROM python@sha256:" + "a" * 64 + "\nRUN pip install x\n", 100, "pinned_base_with_run"),
        (
            "FROM jupyter/scipy-notebook:2023-10-20\nRUN pip install x\n",
            100,
            "pinned_base_with_run",
        ),
        (
            "ARG BASE=python:3.11.4-slim\nFROM ${BASE}\nRUN pip install x\n",
            100,
            "pinned_base_with_run",
        ),
        ("  from python:3.10   \n  run pip install x\n", 100, "pinned_base_with_run"),
        ("FROM python:latest\nRUN pip install x\n", 80, "run_unpinned"),
        ("FROM python:3\nRUN pip install x\n", 80, "run_unpinned"),
    ],
)
def test_container_spec_pin_rules(make_tree, dockerfile, value, level):
    m = run("container_spec", make_tree({"Dockerfile": dockerfile}))
    assert (m.value, m.level) == (value, level)


def test_container_spec_takes_the_best_file_in_sorted_order(make_tree):
    root = make_tree(
        {
            "a/Dockerfile": "FROM python:3\nRUN pip install x\n",
            "b/Dockerfile.gpu": "FROM nvidia/cuda:12.1.0-runtime-ubuntu22.04\nRUN pip install x\n",
            "b/Dockerfile-cpu": "FROM ubuntu\nRUN pip install x\n",
            "c/app.Dockerfile": "FROM python:3.11.4\nRUN pip install x\n",
            "docs/Dockerfile.md": "FROM is explained here\n",
        }
    )
    m = run("container_spec", root)
    assert (m.value, m.counts["best"], m.counts["n_dockerfiles"]) == (100, "b/Dockerfile.gpu", 4)
    assert ("b/Dockerfile.gpu", 1, "container_spec.from") in rules(m)
    assert m.fix is None


def test_container_spec_compose_build_resolves_to_an_unconventional_dockerfile(make_tree):
    root = make_tree(
        {
            "deploy/docker-compose.yml": "services:\n  app:\n    build:\n      context: ../env\n      dockerfile: app.docker\n",
            "env/app.docker": "FROM python:3.10.4\nRUN pip install x\n",
        }
    )
    m = run("container_spec", root)
    assert (m.value, m.level) == (100, "pinned_base_with_run")
    assert ("deploy/docker-compose.yml", None, "container_spec.compose_build") in rules(m)
    assert ("env/app.docker", 1, "container_spec.from") in rules(m)


def test_container_spec_singularity_without_post_is_other_container(make_tree):
    m = run("container_spec", make_tree({"Singularity": "Bootstrap: docker\nFrom: ubuntu:22.04\n"}))
    assert (m.value, m.level) == (80, "other_container")
    assert "%post" in m.fix


def test_container_spec_unpinned_fix_names_the_line(make_tree):
    m = run(
        "container_spec",
        make_tree({"Dockerfile": "# base\nFROM python\nRUN pip install x\n", "a.R": ""}),
    )
    assert (m.value, m.level) == (80, "run_unpinned")
    assert "Dockerfile line 2" in m.fix


def test_container_spec_other_files_carry_their_lines(make_tree):
    root = make_tree({
        "Dockerfile": "FROM python:3.12.3-slim\nRUN pip install numpy\n",
        "docker/cpu/Dockerfile": "# cpu image\nFROM ubuntu\nRUN apt-get update\n",
        "docker/gpu/Dockerfile": "ARG CUDA=nvidia/cuda:12.2.0-runtime-ubuntu22.04\n\nFROM ${CUDA}\nRUN true\n",
    })
    m = run("container_spec", root)
    assert (m.value, m.counts["best"]) == (100, "Dockerfile")
    assert ("docker/cpu/Dockerfile", 2, 2, "container_spec.other_file") in spans(m)
    assert ("docker/gpu/Dockerfile", 1, 3, "container_spec.other_file") in spans(m)


def test_container_spec_from_an_arg_default_spans_the_arg(make_tree):
    root = make_tree({"Dockerfile": "ARG BASE=rocker/r-ver:4.3.3\nFROM ${BASE}\nRUN R -e 'renv::restore()'\n"})
    m = run("container_spec", root)
    assert (m.value, m.level) == (100, "pinned_base_with_run")
    assert spans(m)[0] == ("Dockerfile", 1, 2, "container_spec.from")


def test_container_spec_capped_evidence_shows_every_file_first(make_tree):
    processes = "".join(
        f"process P{i} {{\n    container 'biocontainers/tool{i}:1.{i}.0--0'\n    script: 'tool'\n}}\n" for i in range(25)
    )
    root = make_tree({
        "main.nf": processes,
        "nextflow.config": "profiles {\n    docker {\n        docker.enabled = true\n    }\n}\n",
        "modules/x/main.nf": "process X {\n    container 'biocontainers/x:2.0.1--0'\n    script: 'x'\n}\n",
    })
    m = run("container_spec", root)
    assert m.counts["n_workflow_containers"] == 27 and len(m.evidence) == 20
    assert ("modules/x/main.nf", 2, 2, "container_spec.other_file") in spans(m)
    assert ("nextflow.config", 2, 3, "container_spec.other_file") in spans(m)


# --------------------------------------------------------------------------- E3 env_bootstrap


@pytest.mark.parametrize(
    ("line", "value"),
    [
        ("micromamba create -f environment.yml", 80),
        ("conda create -n x --file requirements.txt", 80),
        ("conda create -n x -f environment.yml", 0),  # -f is --force for conda
        ("conda create -n x python=3.10", 0),
        ("pip install -r requirements.txt", 0),  # not a bootstrap (REF and V2)
        ("$ uv sync", 80),
        ("poetry install --no-root", 80),
        ("pipenv sync", 80),
        ("pdm install", 80),
        ("pixi install", 80),
        ("make -j4 install-deps", 80),
        ("make test", 0),
        ("bash scripts/setup.sh", 80),
        ("./install.sh", 80),
        ("docker compose up --build", 80),
        ("repo2docker .", 80),
        ('Rscript -e "renv::restore()"', 80),
        ("> renv::restore()", 80),
        # 2.4.0: usage-notation brackets around a flag
        ("nextflow run lab/pipe [-profile docker] --input x", 80),
        ("snakemake [--use-conda] --cores 4", 80),
        ("nextflow run lab/pipe [-profile cluster]", 0),   # no engine
        ('julia --project -e "using Pkg; Pkg.instantiate()"', 80),
        ("cd repo && conda env create -f env.yml && conda activate x", 80),
        (">>> make install", 0),  # Python REPL input, not shell
    ],
)
def test_env_bootstrap_readme_commands(make_tree, line, value):
    m = run("env_bootstrap", make_tree({"README.md": f"# T\n\n```\n{line}\n```\n"}))
    assert m.value == value
    if value:
        assert rules(m) == [("README.md", 4, "env_bootstrap.readme_command")]


def test_env_bootstrap_prose_never_counts(make_tree):
    readme = "# T\n\nRun conda env create -f environment.yml, then make install.\n"
    assert run("env_bootstrap", make_tree({"README.md": readme})).value == 0


@pytest.mark.parametrize(
    ("name", "script", "line"),
    [
        (
            "bin/bootstrap.sh",
            "#!/bin/bash\nset -e\nsudo apt-get install -y gcc\nmamba env create -f env.yml\n",
            4,
        ),
        ("create_env.sh", "python3 -m venv .venv && source .venv/bin/activate\n", 1),
        ("setup.bash", "export X=1\n/opt/conda/bin/conda install -y numpy\n", 2),
        ("install.bat", "@echo off\nrem conda\ncall conda env create -f environment.yml\n", 3),
        ("setup.ps1", "& pip install -r requirements.txt\n", 1),
        ("install.sh", "Rscript -e 'install.packages(\"renv\"); renv::restore()'\n", 1),
        ("install.sh", "julia --project=. -e 'using Pkg; Pkg.instantiate()'\n", 1),
        ("Scripts/install_env.sh", "pip3 install -r requirements.txt \\\n  --no-cache-dir\n", 1),
    ],
)
def test_env_bootstrap_scripts_invoking_a_manager(make_tree, name, script, line):
    m = run("env_bootstrap", make_tree({name: script}))
    assert (m.value, m.level) == (100, "script")
    assert rules(m)[0] == (name, line, "env_bootstrap.script")


@pytest.mark.parametrize(
    ("name", "script"),
    [
        ("src/install.sh", "pip install -r requirements.txt\n"),  # not root, scripts/ or bin/
        ("install.py", "import subprocess\n"),  # not a shell script
        ("setup.sh", "echo 'run pip install -r requirements.txt yourself'\n"),  # pip is an argument
        ("setup.sh", "# conda env create -f environment.yml\n"),  # a comment
        ("install.sh", "python main.py\n"),
        # 2.2.0: writing the pins installs nothing
        ("setup.sh", "mamba create -n x --file conda.yml --dry-run --json > pins.json\n"),
        ("install.sh", "uv pip compile pyproject.toml -o requirements.txt\n"),
        ("install.sh", "poetry lock --no-update\n"),
        ("setup.sh", "conda-lock -f environment.yml -p linux-64\n"),
    ],
)
def test_env_bootstrap_scripts_that_do_not_count(make_tree, name, script):
    assert run("env_bootstrap", make_tree({name: script})).value == 0


@pytest.mark.parametrize(
    ("name", "text", "value"),
    [
        ("makefile", "install:\n\t$(PIP) install -r requirements.txt\n", 100),
        ("GNUmakefile", "env:\n\t$(PYTHON) -m venv .venv\n", 100),
        ("Makefile", "deps: requirements.txt\n\t@echo start\n\tpip install -r $<\n", 100),
        ("Makefile", "install-docs:\n\tpip install sphinx\n", 100),
        ("Makefile", "setup:\n\tmkdir -p data\n", 0),
        ("Makefile", "all:\n\tpip install -r requirements.txt\n", 0),
        ("justfile", "bootstrap:\n    uv sync\n", 100),
        (
            "Taskfile.yml",
            "version: '3'\ntasks:\n  setup:\n    cmds:\n      - poetry install\n",
            100,
        ),
        (
            "tasks.py",
            "from invoke import task\n\n@task\ndef install(c):\n    c.run('conda env update -f env.yml')\n",
            100,
        ),
    ],
)
def test_env_bootstrap_make_like_targets(make_tree, name, text, value):
    m = run("env_bootstrap", make_tree({name: text}))
    assert m.value == value
    if value:
        assert m.level == "make_target"
        assert rules(m)[0][0] == name and rules(m)[0][2] == "env_bootstrap.make_target"


@pytest.mark.parametrize(
    ("name", "script", "value", "line"),
    [
        ("setup.R", "install.packages(c(\"dplyr\", \"ggplot2\"))\n", 100, 1),
        ("install.R", "if (!requireNamespace('remotes')) install.packages('remotes')\nremotes::install_deps()\n", 100, 2),
        ("scripts/setup_env.R", "BiocManager::install(\"DESeq2\")\n", 100, 1),
        ("setup.R", "install.packages(\"pak\")\nrenv::init()\n", 0, None),   # the installers, a new project's init
        ("setup.R", "for (p in commandArgs(TRUE)) renv::install(p)\n", 0, None),   # what the user names
        # 2.5.0: any R script is a set-up script by its content: only installing calls
        ("analysis.R", "renv::restore()\n", 100, 1),
        ("bin/get_deps.R", "if (!requireNamespace('BiocManager', quietly = TRUE))\n"
         "  install.packages('BiocManager')\nBiocManager::install(c('limma', 'edgeR'))\n", 100, 3),
        ("scripts/restore_packages.R", "renv::restore()\nsource('analysis.R')\n", 0, None),   # it runs more
        ("analysis.R", "renv::restore()\nx <- read.csv('counts.csv')\n", 0, None),   # it analyses too
        ("renv_environment.R", "restore <- function() renv::restore()\n", 0, None),   # a function: only when called
        ("src/packages.R", "renv::restore()\n", 0, None),   # not root, scripts/ or bin/
        ("startup.m", "addpath('lib');\n", 100, 1),
        ("install.m", "matlab.addons.install('deps/Chronux.mltbx');\n", 100, 1),
        ("setup.m", "pkg install -forge io\n", 100, 1),
        ("setup.m", "disp('nothing to install');\n", 0, None),
    ],
)
def test_env_bootstrap_r_and_matlab_set_up_scripts(make_tree, name, script, value, line):
    m = run("env_bootstrap", make_tree({name: script}))
    assert m.value == value
    if value:
        assert rules(m)[0] == (name, line, "env_bootstrap.script")


@pytest.mark.parametrize(
    ("files", "value"),
    [
        ({"src/setup_deps.R": "message('nothing to install')\n"}, 0),   # in the tree: its calls decide
        ({"src/setup_deps.R": "remotes::install_deps()\n"}, 100),
        ({}, 100),   # not in the tree: its set-up name decides
    ],
)
def test_env_bootstrap_rscript_of_a_script_in_the_tree_counts_by_its_calls(make_tree, files, value):
    makefile = "setup:\n\tRscript src/setup_deps.R\n"
    assert run("env_bootstrap", make_tree({"Makefile": makefile, **files})).value == value


def test_env_bootstrap_follows_prerequisites_two_levels_not_three(make_tree):
    two = "install: a\na: b\nb:\n\tpip install -r requirements.txt\n"
    three = "install: a\na: b\nb: c\nc:\n\tpip install -r requirements.txt\n"
    assert run("env_bootstrap", make_tree({"Makefile": two})).value == 100
    assert run("env_bootstrap", make_tree({"Makefile": three})).value == 0
    readme = "# T\n\n```\nmake all\n```\n"
    m = run("env_bootstrap", make_tree({"README.md": readme, "Makefile": "all: toolchain figures\ntoolchain:\n\tconda env create\n"}))
    assert (m.value, rules(m)) == (80, [("README.md", 4, "env_bootstrap.readme_command"),
                                        ("Makefile", 1, "env_bootstrap.readme_command_source"),
                                        ("Makefile", 2, "env_bootstrap.readme_command_source")])


@pytest.mark.parametrize(
    ("readme", "files", "value"),
    [
        ("docker build -t lab/survey . && docker run lab/survey", {}, 80),   # built from its Dockerfile
        ("docker run -p 8888:8888 jupyter/scipy-notebook", {}, 0),            # someone else's image
        ("podman run ghcr.io/lab/survey:1.2", {"pyproject.toml": "[project]\nname = \"survey\"\n"}, 80),
        ("docker pull lab/survey", {"pyproject.toml": "[project]\nname = \"survey\"\n"}, 0),   # not in E3's list
    ],
)
def test_env_bootstrap_the_projects_own_image(make_tree, readme, files, value):
    m = run("env_bootstrap", make_tree({"README.md": f"# T\n\n```\n{readme}\n```\n", **files}))
    assert m.value == value


@pytest.mark.parametrize(
    ("documents", "value"),
    [
        ({"CONTRIBUTING.rst": "Contributing\n============\n\n``uv sync``\n"}, 80),
        ({".github/CONTRIBUTING.md": "# C\n\n`pixi install`\n"}, 80),
        ({"docs/install.md": "# Install\n\n```\nconda env create\n```\n"}, 80),
        ({"docs/contributing.md": "# C\n\n`poetry install`\n"}, 80),
        ({"docs/source/install.rst": "Install\n=======\n\n``uv sync``\n"}, 0),   # not where §0.3 names it
        ({"docs/usage.md": "# U\n\n`uv sync`\n"}, 0),
        ({"CONTRIBUTING.md": "# C\n\n`uv run pytest`\n"}, 0),   # uv run is not in E3's list
    ],
)
def test_env_bootstrap_reads_contributing_and_install_pages(make_tree, documents, value):
    assert run("env_bootstrap", make_tree({"README.md": "# T\n", **documents})).value == value


_E3_BARE = {
    "python": ({"analysis.py": "import os\n"}, "Add install.sh (or a `make setup` target) that creates the environment, "
               "e.g. `python -m venv .venv && .venv/bin/pip install .`."),
    "r": ({"analysis.R": "x <- 1\n"}, "Add install.sh (or a `make setup` target) that creates the environment, e.g. "
          "`Rscript -e 'renv::restore()'`."),
    "julia": ({"analysis.jl": "x = 1\n"}, "Add install.sh (or a `make setup` target) that creates the environment, "
              "e.g. `julia --project -e 'using Pkg; Pkg.instantiate()'`."),
    "matlab": ({"analyse.m": "x = 1;\n"}, "Add a setup.m that puts the code and its dependencies on the MATLAB path "
               "(`addpath(genpath(...))`) or installs the toolboxes it needs (`matlab.addons.install(...)`), and tell "
               "users to run it first."),
    "native": ({"solver.c": "int main(void) { return 0; }\n"}, "Add install.sh (or a `make setup` target) that "
               "creates the build environment, the compilers and libraries rather than the build itself, e.g. `spack "
               "env create <env> spack.yaml && spack -e <env> install`."),
    "native_conda": ({"solver.f90": "program s\nend program s\n", "environment.yml": "dependencies:\n  - gfortran\n"},
                     "Add install.sh (or a `make setup` target) that creates the build environment, the compilers and "
                     "libraries rather than the build itself, e.g. `conda env create -f environment.yml`."),
    "nextflow": ({"pipeline.nf": "process A {\n  script:\n  \"echo hi\"\n}\n"}, "Declare a container or conda "
                 "environment for every process and document the one command that runs the pipeline with them, e.g. "
                 "`nextflow run <pipeline> -profile docker`."),
    "snakemake": ({"rules/a.smk": "rule a:\n    output: 'x'\n    shell: 'touch x'\n"}, "Give every rule a conda "
                  "environment (`conda:`) or a container and document the one command that builds them, e.g. "
                  "`snakemake --use-conda --cores 4`."),
}


@pytest.mark.parametrize("ecosystem", list(_E3_BARE))
def test_env_bootstrap_fix_names_the_ecosystems_own_tools(make_tree, ecosystem):
    files, fix = _E3_BARE[ecosystem]
    assert run("env_bootstrap", make_tree({"README.md": "# Study\n", **files})).fix == fix


@pytest.mark.parametrize(
    ("files", "fix"),
    [
        ({"main.nf": "process A {\n  script:\n  \"echo hi\"\n}\n", "README.md": "# P\n\n`nextflow run x -profile docker`\n"},
         "Add install.sh (or a `make setup` target) that installs Nextflow itself, e.g. `conda create -y -n nextflow "
         "-c bioconda nextflow`, beside the documented run with a container profile."),
        ({"Snakefile": "rule a:\n    output: 'x'\n    shell: 'touch x'\n", "README.md": "# P\n\n`snakemake --use-conda -c1`\n"},
         "Add install.sh (or a `make setup` target) that creates the environment Snakemake runs in and the rules' "
         "environments, e.g. `conda env create -f environment.yml && snakemake --use-conda --conda-create-envs-only "
         "--cores 1`."),
    ],
)
def test_env_bootstrap_fix_of_a_documented_workflow_is_the_script(make_tree, files, fix):
    m = run("env_bootstrap", make_tree(files))
    assert (m.value, m.fix) == (80, fix)


def test_env_bootstrap_binder_badge(make_tree):
    readme = "# T\n\n[![Binder](https://mybinder.org/badge_logo.svg)](https://mybinder.org/v2/gh/me/study/HEAD)\n"
    m = run("env_bootstrap", make_tree({"README.md": readme}))
    assert (m.value, m.level) == (80, "binder")
    assert rules(m) == [("README.md", 3, "env_bootstrap.binder_badge")]


def test_env_bootstrap_binder_folder_without_config_does_not_count(make_tree):
    assert run("env_bootstrap", make_tree({"binder/README.md": "notes\n"})).value == 0


def test_env_bootstrap_fix_suggests_a_command_for_the_declared_manifest(make_tree):
    m = run("env_bootstrap", make_tree({"environment.yml": "dependencies:\n  - numpy\n"}))
    assert m.value == 0
    assert "conda env create -f environment.yml" in m.fix


def test_env_bootstrap_readme_command_shows_the_target_and_setting_it_goes_through(make_tree):
    root = make_tree({
        "README.md": "# Pipe\n\n```\nmake demo\n```\n",
        "Makefile": "all: demo\n\ndemo:\n\tnextflow run main.nf -profile test\n",
        "nextflow.config": "params {\n    input = 'data/*.fq'\n}\nconda.enabled = true\n",
        "main.nf": "process A {\n    conda 'bioconda::seqtk=1.4'\n    script: 'seqtk'\n}\n",
    })
    m = run("env_bootstrap", root)
    assert (m.value, m.level, m.counts["n_readme_commands"]) == (80, "readme_one_command", 1)
    assert spans(m) == [("README.md", 4, 4, "env_bootstrap.readme_command"),
                        ("Makefile", 3, 4, "env_bootstrap.readme_command_source"),
                        ("nextflow.config", 4, 4, "env_bootstrap.readme_command_source")]


def test_env_bootstrap_binder_evidence_lists_the_build_files(make_tree):
    root = make_tree({
        "README.md": "# Tool\n\n[![Binder](https://mybinder.org/badge_logo.svg)](https://mybinder.org/v2/gh/o/tool/HEAD)\n",
        "binder/postBuild": "pip install .\n",
        "binder/runtime.txt": "python-3.11\n",
        "binder/notes.md": "how the image is built\n",
    })
    m = run("env_bootstrap", root)
    assert (m.value, m.level, m.counts["n_binder"]) == (80, "binder", 1)
    assert spans(m) == [("README.md", 3, 3, "env_bootstrap.binder_badge"),
                        ("binder/postBuild", None, None, "env_bootstrap.binder_file"),
                        ("binder/runtime.txt", None, None, "env_bootstrap.binder_file")]


def test_env_bootstrap_binder_build_files_alone_do_not_count(make_tree):
    m = run("env_bootstrap", make_tree({"binder/postBuild": "pip install .\n", "a.py": ""}))
    assert (m.value, m.evidence) == (0, [])


# --------------------------------------------------------------------------- E4 python_version_declared


@pytest.mark.parametrize(
    ("files", "value", "rule"),
    [
        ({"pyproject.toml": '[tool.poetry.dependencies]\npython = "^3.9"\n'}, 100, "poetry"),
        ({"pyproject.toml": '[tool.poetry.dependencies]\npython = "*"\n'}, 0, None),
        ({"Pipfile": '[requires]\npython_version = "3.9"\n'}, 100, "pipfile"),
        (
            {"setup.py": "from setuptools import setup\nsetup(python_requires='>=3.8')\n"},
            100,
            "python_requires",
        ),
        ({"environment.yml": "dependencies:\n  - python>=3.8\n"}, 100, "conda"),
        ({"environment.yml": "dependencies:\n  - python\n"}, 0, None),
        ({"runtime.txt": "python-3.10.12\n"}, 100, "runtime_txt"),
        ({"binder/runtime.txt": "python-3.9\n"}, 100, "runtime_txt"),
        ({".tool-versions": "nodejs 18.0.0\npython 3.11.4\n"}, 100, "tool_versions"),
        ({"mise.toml": '[tools]\npython = "3.12"\n'}, 100, "mise"),
        ({"uv.lock": 'version = 1\nrequires-python = ">=3.10"\n'}, 100, "uv_lock"),
        ({"docs/.python-version": "3.11\n"}, 0, None),  # not an environment location
        (
            {
                "Dockerfile": "FROM continuumio/miniconda3:23.3.1-0\nRUN conda install -y python=3.9\n"
            },
            100,
            "dockerfile_conda",
        ),
        (
            {"Dockerfile": "FROM continuumio/miniconda3:23.3.1-0\nRUN conda install -y numpy\n"},
            0,
            None,
        ),
        ({"Dockerfile": "FROM jupyter/scipy-notebook:python-3.10\n"}, 100, "dockerfile"),
        ({"Dockerfile": "FROM jupyter/scipy-notebook:2023-10-20\n"}, 0, None),
        ({"Dockerfile": "FROM docker.io/library/python:3.10-slim\n"}, 100, "dockerfile"),
        ({"Dockerfile": "FROM ubuntu:22.04\n"}, 0, None),
    ],
)
def test_python_version_sources(make_tree, files, value, rule):
    m = run("python_version_declared", make_tree({**files, "main.py": "print(1)\n"}))
    assert m.value == value
    if rule:
        assert m.evidence[0].rule == f"python_version_declared.{rule}"
        assert m.evidence[0].line_start is not None
        assert m.fix is None
    else:
        assert "requires-python" in m.fix


@pytest.mark.parametrize(
    ("files", "value"),
    [
        ({"DESCRIPTION": "Package: x\nDepends: R (>= 4.0)\n", "R/a.R": ""}, 100),
        ({"renv.lock": '{"R": {"Version": "4.2.1"}}', "a.Rmd": ""}, 100),
        ({"Project.toml": '[compat]\njulia = "1.9"\n', "src/a.jl": ""}, 100),
        ({"Manifest.toml": 'julia_version = "1.9.3"\n', "src/a.jl": ""}, 100),
        ({"Dockerfile": "FROM julia:1.9.3\n", "src/a.jl": ""}, 100),
        ({"Dockerfile": "FROM r-base:4.3.1\n", "src/a.jl": ""}, 0),  # R image, Julia code
    ],
)
def test_python_version_r_and_julia(make_tree, files, value):
    assert run("python_version_declared", make_tree(files)).value == value


@pytest.mark.parametrize(
    ("files", "first"),
    [
        # a MATLAB deposit's release before the compiler its MEX files need (KiloSort)
        ({"README.md": "# Sorter\n\nInstall Visual Studio 2019 to compile the MEX files.\n\n"
                       "Tested with MATLAB R2021a.\n",
          "sortSpikes.m": "function r = sortSpikes(x)\nr = x;\nend\n", "mexFilter.c": "int f(void){return 0;}\n"},
         ("README.md", 5, "python_version_declared.readme_release")),
        # a workflow's min_version() before the python its step's conda environment pins
        ({"workflow/Snakefile": 'from snakemake.utils import min_version\nmin_version("8.0")\n\n'
                               'rule a:\n    output: "a.txt"\n    conda: "envs/py.yaml"\n    script: "s.py"\n',
          "workflow/envs/py.yaml": "dependencies:\n  - python =3.11\n", "workflow/s.py": "print(1)\n"},
         ("workflow/Snakefile", 2, "python_version_declared.workflow_engine_version")),
    ],
)
def test_python_version_own_ecosystem_declaration_first(make_tree, files, first):
    m = run("python_version_declared", make_tree(files))
    assert m.value == 100 and len(m.evidence) > 1
    assert rules(m)[0] == first


def test_python_version_no_sources_is_absent_with_a_reason(make_tree):
    m = run(
        "python_version_declared", make_tree({"README.md": "# T\n", ".python-version": "3.11\n"})
    )
    assert (m.value, m.level, m.applicable) == (0, None, True)
    assert "no sources of a language whose version can be declared" in m.reason
    assert rules(m) == [(".python-version", 1, "python_version_declared.unused_language")]


def test_python_version_r_project_gets_an_r_fix(make_tree):
    m = run("python_version_declared", make_tree({"analysis.R": "x <- 1\n"}))
    assert m.value == 0 and "renv.lock" in m.fix


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"DESCRIPTION": "Package: p\nVersion: 1.0\nDepends:\n    R (>= 4.2.0)\nImports: zoo\n", "R/a.R": ""},
         ("DESCRIPTION", 3, 4, "python_version_declared.description")),
        ({"environment.yml": "name: e\ndependencies:\n  - numpy=1.26.4\n  - python=3.11\n", "a.py": ""},
         ("environment.yml", 2, 4, "python_version_declared.conda")),
        ({"Dockerfile": "ARG PY=python:3.12.4-slim\nFROM ${PY}\nRUN pip install .\n", "a.py": ""},
         ("Dockerfile", 1, 2, "python_version_declared.dockerfile")),
    ],
)
def test_python_version_evidence_opens_at_the_enclosing_declaration(make_tree, files, expected):
    m = run("python_version_declared", make_tree(files))
    assert m.value == 100
    assert spans(m)[0] == expected


# --------------------------------------------------------------------------- bad input


def test_empty_tree(make_tree):
    root = make_tree({})
    values = {mid: run(mid, root) for mid in E_METRICS}
    assert {mid: (m.value, m.level, m.applicable) for mid, m in values.items()} == {
        "dep_pinning": (0, "absent", True),
        "container_spec": (0, "absent", True),
        "env_bootstrap": (0, "absent", True),
        "python_version_declared": (0, None, True),
    }
    assert all(m.fix for m in values.values())


def test_hostile_environment_files_do_not_raise(make_tree):
    root = make_tree(
        {
            "Dockerfile": b"\x00\x01\x02FROM python:3.10\nRUN x\n",  # binary: unreadable
            "docker-compose.yml": "services: [unclosed\n",
            "Singularity": "Bootstrap: docker\nFrom: ${BASE}\n%post\n",
            "pyproject.toml": "[project\nname = 'x'",
            "environment.yml": "dependencies: [unclosed\n  - numpy",
            "requirements.txt": "numpy===\n@@@ not a requirement\n-r missing.txt\n-r requirements.txt\n",
            "setup.cfg": "[options\npython_requires = >=3",
            "renv.lock": "{not json",
            ".python-version": "\xff\xfe\n".encode("latin-1"),
            "install.sh": "echo 'unbalanced\nconda env create\n",
            "Makefile": "setup:\n\tpip install 'x\n",
            "README.md": "```\nmake install\n",  # unclosed fence
            "a.py": "print 'py2'\n",
        }
    )
    values = {mid: run(mid, root) for mid in E_METRICS}
    assert values["container_spec"].value == 80  # compose file (and unpinned Singularity)
    assert values["env_bootstrap"].value == 100
    # Four unparseable manifests are still manifests (20); renv.lock has no R code beside it.
    assert (values["dep_pinning"].value, values["dep_pinning"].counts["n_manifests"]) == (20, 4)
    assert ("renv.lock", None, "dep_pinning.lockfile_unused") in rules(values["dep_pinning"])
    assert values["python_version_declared"].value == 0


def test_large_manifest_and_readme_are_read_whole(make_tree):
    requirements = "".join(f"p{i}=={i}\n" for i in range(100_000))  # ~1.1 MB, under the 2 MiB cap
    readme = "# T\n\n" + "Some prose line.\n" * 100_000 + "```\nuv sync\n```\n"
    root = make_tree({"requirements.txt": requirements, "README.md": readme, "a.py": ""})
    tree = TreeIndex.from_path(root)
    m1 = REGISTRY["dep_pinning"].run(tree)
    m3 = REGISTRY["env_bootstrap"].run(tree)
    assert (m1.value, m3.value) == (80, 80)
    assert m3.evidence[0].line_start == 100_004
    assert len(m1.evidence) <= 20


def test_dockerfile_with_thousands_of_stages(make_tree):
    stages = "".join(f"FROM python:3.10 AS s{i}\nRUN pip install x\n" for i in range(30_000))
    root = make_tree({"Dockerfile": stages, "a.py": ""})
    tree = TreeIndex.from_path(root)
    e2 = REGISTRY["container_spec"].run(tree)
    e4 = REGISTRY["python_version_declared"].run(tree)
    assert (e2.value, e4.value, e4.counts["n_declarations"]) == (100, 100, 30_000)
    assert len(e2.evidence) <= 20 and len(e4.evidence) == 20
    assert e4.evidence[-1].line_start == 39  # the 20th FROM


# --------------------------------------------------------------------------- E1 nothing to pin (§0.3)


@pytest.mark.parametrize(("files", "why"), [
    ({"main.py": "import os\nfrom helpers import f\n", "helpers.py": "def f():\n    return 1\n"},
     "the Python code imports only the standard library and its own modules"),
    ({"a.R": "x <- stats::median(1:3)\nlibrary(MASS)\n"},
     "the R code loads only R's base and recommended packages and its own code"),
    ({"main.jl": "using LinearAlgebra\nimport Random\n"},
     "the Julia code uses only Julia's standard library and its own modules"),
    ({"tool.py": "import sys\n", "src/fast.c": "#include <stdio.h>\nint main(void) { return 0; }\n"},
     "the Python code imports only the standard library and its own modules; "
     "the native code includes only the standard library, the system and MPI/OpenMP"),
])
def test_dep_pinning_nothing_to_pin_names_why(make_tree, files, why):
    m = run("dep_pinning", make_tree(files))
    assert (m.value, m.level, m.applicable, m.fix) == (0, "absent", False, None)
    assert m.reason == f"nothing to pin: {why}, and no manifest lists a dependency"


@pytest.mark.parametrize("files", [
    # an optional import is still a package the code uses
    {"a.py": "try:\n    import numpy\nexcept ImportError:\n    numpy = None\n"},
    # the code installs packages itself
    {"a.R": "install.packages('data.table')\nx <- 1\n"},
    {"nb.ipynb": '{"cells": [{"cell_type": "code", "source": ["!pip install requests\\n", "import os"], '
                 '"metadata": {}, "outputs": [], "execution_count": 1}], "metadata": {}, "nbformat": 4, '
                 '"nbformat_minor": 5}'},
    # MATLAB code always has its release to state
    {"a.py": "import os\n", "scale.m": "function y = scale(x)\ny = 2 * x;\nend\n"},
    # a native include of a third-party library
    {"a.py": "import os\n", "src/io.c": "#include <hdf5.h>\n"},
    # a manifest that lists a dependency
    {"a.py": "import os\n", "requirements.txt": "requests\n"},
    # a manifest that does not parse may list one
    {"a.py": "import os\n", "pyproject.toml": "[project\nname = 'x'"},
])
def test_dep_pinning_something_to_pin(make_tree, files):
    m = run("dep_pinning", make_tree(files))
    assert m.applicable is True


# --------------------------------------------------------------------------- fixes in the deposit's own tools (§0.3)

# One bare tree per ecosystem: code that needs a dependency, nothing that declares it.
_BARE_TREES = {
    "python": {"a.py": "import numpy\n"},
    "r": {"a.R": "library(dplyr)\n"},
    "julia": {"main.jl": "using DataFrames\n"},
    "matlab": {"scale.m": "function y = scale(x)\ny = 2 * x;\nend\n"},
    "cpp": {"src/main.cpp": "#include <boost/format.hpp>\nint main() { return 0; }\n"},
    "c": {"src/main.c": "#include <gsl/gsl_math.h>\nint main(void) { return 0; }\n"},
    "fortran": {"main.f90": "program p\n  use netcdf\nend program p\n"},
    "nextflow": {"main.nf": 'process A {\n    script:\n    """\n    echo hi\n    """\n}\n\nworkflow {\n    A()\n}\n'},
    "snakemake": {"Snakefile": "rule a:\n    output: 'x'\n    shell: 'touch {output}'\n"},
    "objc": {"Foo.m": "#import <Foundation/Foundation.h>\n@interface Foo : NSObject\n@end\n", "a.py": "import numpy\n"},
}
# (E1, E2, E4) fixes of each bare tree: never Python advice for another ecosystem (an
# Objective-C `.m` beside Python is not MATLAB)
_ECOSYSTEM_FIXES = {
    'python': (
        'Declare the dependencies with exact versions in requirements.txt (`pip freeze > requirements.txt`) or commit a lockfile (`uv lock`).',
        'Add a Dockerfile with a pinned base image (e.g. `FROM python:3.11.9-slim`) and RUN steps that install the dependencies.',
        'Declare the Python version: add `requires-python = ">=3.x"` under [project] in pyproject.toml, or a .python-version file.',
    ),
    'r': (
        'Run `renv::snapshot()` and commit renv.lock.',
        'Add a Dockerfile with a pinned base image (e.g. `FROM rocker/r-ver:4.3.3`) and RUN steps that install the dependencies.',
        'Record the R version: commit renv.lock (`renv::snapshot()`) or add `Depends: R (>= 4.x)` to DESCRIPTION.',
    ),
    'julia': (
        "Add the packages to a Project.toml (`julia --project=. -e 'using Pkg; Pkg.add([...])'`) and commit the Manifest.toml it writes.",
        'Add a Dockerfile with a pinned base image (e.g. `FROM julia:1.10.4`) and RUN steps that install the dependencies.',
        'Declare the Julia version: add `julia = "1.x"` under [compat] in Project.toml, or commit Manifest.toml.',
    ),
    'matlab': (
        'State the MATLAB release the code was run with and the toolboxes it needs (e.g. "Requires MATLAB R2023b with the Statistics and Machine Learning Toolbox") in the README.',
        'Add a Dockerfile with a pinned base image (e.g. `FROM mathworks/matlab:r2024a`) and RUN steps that install the dependencies.',
        'State the MATLAB (or Octave) release the code runs on in the README, e.g. "Requires MATLAB R2022b or newer".',
    ),
    'cpp': (
        'Declare the libraries the build needs with versions: `find_package(<Lib> <version>)`, FetchContent with a commit `GIT_TAG`, or a conan/vcpkg/spack manifest with a lockfile.',
        'Add a Dockerfile with a pinned base image (e.g. `FROM gcc:13.2.0`) and RUN steps that install the dependencies.',
        'Declare the language standard in the build: `set(CMAKE_CXX_STANDARD 17)` in CMakeLists.txt, a `-std=c++17` flag in the Makefile, or meson\'s `cpp_std=c++17`; or state the compiler version the code was tested with in the README ("Tested with GCC 12.2").',
    ),
    'c': (
        'Declare the libraries the build needs with versions: `find_package(<Lib> <version>)`, FetchContent with a commit `GIT_TAG`, or a conan/vcpkg/spack manifest with a lockfile.',
        'Add a Dockerfile with a pinned base image (e.g. `FROM gcc:13.2.0`) and RUN steps that install the dependencies.',
        'Declare the language standard in the build: `set(CMAKE_C_STANDARD 11)` in CMakeLists.txt, a `-std=c11` flag in the Makefile, or meson\'s `c_std=c11`; or state the compiler version the code was tested with in the README ("Tested with GCC 12.2").',
    ),
    'fortran': (
        'Declare the libraries the build needs with versions: fpm.toml [dependencies] pinned to a commit (`rev = "<sha>"`), `find_package(<Lib> <version>)`, or a spack.yaml with its spack.lock.',
        'Add a Dockerfile with a pinned base image (e.g. `FROM gcc:13.2.0`) and RUN steps that install the dependencies.',
        'Declare the Fortran standard in the build: a `-std=f2008` flag in the Makefile or CMake\'s `target_compile_options`, or meson\'s `fortran_std=f2008`; or state the compiler version the code was tested with in the README ("Tested with gfortran 12.2").',
    ),
    'nextflow': (
        'Give every process a versioned environment: a `container` image with a version tag or digest, or a `conda` environment whose packages carry versions (A have none).',
        "Add a `container` directive with a versioned image to each process (e.g. `container 'biocontainers/samtools:1.17--h00cdaf9_0'`), or one in the process scope of nextflow.config.",
        "Declare the Nextflow version: add `nextflowVersion = '>=23.04.0'` to the manifest scope of nextflow.config.",
    ),
    'snakemake': (
        'Give every rule a versioned environment: a `container:` image with a version tag or digest, or a `conda:` environment whose packages carry versions (a have none).',
        'Add a `container:` directive with a versioned image to each rule (e.g. `container: "docker://biocontainers/samtools:1.17--h00cdaf9_0"`), or a global `containerized:` image.',
        'Declare the Snakemake version: call `min_version("8.0")` (from snakemake.utils) at the top of the Snakefile.',
    ),
    'objc': (
        'Declare the dependencies with exact versions in requirements.txt (`pip freeze > requirements.txt`) or commit a lockfile (`uv lock`).',
        'Add a Dockerfile with a pinned base image (e.g. `FROM python:3.11.9-slim`) and RUN steps that install the dependencies.',
        'Declare the Python version: add `requires-python = ">=3.x"` under [project] in pyproject.toml, or a .python-version file.',
    ),
}


@pytest.mark.parametrize("ecosystem", list(_BARE_TREES))
def test_fix_texts_name_the_ecosystem_tools(make_tree, ecosystem):
    root = make_tree(_BARE_TREES[ecosystem])
    fixes = tuple(run(mid, root).fix for mid in ("dep_pinning", "container_spec", "python_version_declared"))
    assert fixes == _ECOSYSTEM_FIXES[ecosystem]


def test_container_fix_pins_the_image_in_use_and_installs_in_the_ecosystem(make_tree):
    unpinned = run("container_spec", make_tree({"Dockerfile": "FROM rocker/tidyverse\nRUN Rscript -e 'renv::restore()'\n",
                                                 "a.R": "library(dplyr)\n"}))
    assert unpinned.fix == ("Pin the base image in Dockerfile line 1 to a version or digest "
                            "(e.g. `rocker/tidyverse:<version>` or `rocker/tidyverse@sha256:…`).")
    from_only = run("container_spec", make_tree({"Dockerfile": "FROM julia:1.10.4\n", "main.jl": "using CSV\n"}))
    assert from_only.fix == ("Add RUN steps to Dockerfile that install the dependencies "
                             "(e.g. `RUN julia --project -e 'using Pkg; Pkg.instantiate()'`).")


def test_dep_pinning_snakemake_step_evidence_starts_at_the_directive_keyword(make_tree):
    root = make_tree({
        "workflow/Snakefile": ('rule get_genome:\n    output:\n        "genome.fa",\n    wrapper:\n'
                               '        "0.74.0/bio/reference/ensembl-sequence"\n\n\nrule sort:\n    input: "a.bam"\n'
                               '    output: "b.bam"\n    wrapper: "v3.3.0/bio/samtools/sort"\n'),
    })
    m = run("dep_pinning", root)
    steps = [(e.line_start, e.line_end, e.snippet) for e in m.evidence if e.rule == "dep_pinning.exact"]
    assert steps == [(4, 5, '"0.74.0/bio/reference/ensembl-sequence"'), (11, 11, 'wrapper: "v3.3.0/bio/samtools/sort"')]


def test_dep_pinning_native_locks_and_manifests_need_native_sources(make_tree):
    # a conan.lock and conanfile.txt beside Python code only: no C/C++/Fortran code to build
    m = run("dep_pinning", make_tree({"conan.lock": '{"version": "0.5", "requires": ["zlib/1.3"]}\n',
                                      "conanfile.txt": "[requires]\nzlib/1.3\n", "a.py": "import numpy\n"}))
    assert (m.value, m.level, m.counts["n_manifests"]) == (0, "absent", 0)
    assert ("conan.lock", None, "dep_pinning.lockfile_unused") in rules(m)
    # packrat.lock without R code is ignored the same way
    lock = "PackratFormat: 1.4\nRVersion: 4.1.0\n\nPackage: dplyr\nVersion: 1.0.0\n"
    m = run("dep_pinning", make_tree({"packrat/packrat.lock": lock, "a.py": "import numpy\n"}))
    assert ("packrat/packrat.lock", None, "dep_pinning.lockfile_unused") in rules(m)
