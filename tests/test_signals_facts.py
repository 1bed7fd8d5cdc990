"""The parsers and tree index accessors the category S detectors read instead of a file's
text (issue 15) give exact values (that detectors read no text is
tests/test_detectors_use_facts.py's)."""

from __future__ import annotations

import json

from scoring.parsers.ci import parse_ci_config
from scoring.parsers.front_matter import parse_front_matter
from scoring.parsers.hardware import first_hardware_line
from scoring.tree import TreeIndex


def test_ci_config_first_test_line_outside_comments():
    text = "on: push\njobs:\n  t:\n    # pytest later\n    run: echo '#' && python -m pytest -q\n    run: tox\n"
    config = parse_ci_config(text, "ci.yml")
    assert (config.test_line, config.test_text) == (5, "    run: echo '#' && python -m pytest -q")
    assert parse_ci_config("run: pytest-cov-report\n", "x.yml").test_line is None


def test_ci_config_every_test_line_but_installs():
    text = ("jobs:\n  t:\n    steps:\n"                         # 1-3
            "      - name: Install test dependencies\n"            # 4
            "        run: pip install pytest && echo ok\n"        # 5
            "      - name: Run unit tests\n"                       # 6
            "        run: meson test -C build --suite core\n"     # 7
            "      - uses: snakemake/snakemake-github-action@v1\n"  # 8
            "        with:\n          args: \"--lint\"\n"          # 9-10
            "  coverage:\n    uses: org/workflows/.github/workflows/test-coverage.yaml@main\n")  # 11-12
    config = parse_ci_config(text, ".github/workflows/ci.yml")
    assert [line for line, _ in config.test_lines] == [6, 7, 10, 12]
    assert (config.test_line, config.test_text) == (6, "      - name: Run unit tests")
    assert parse_ci_config("run: Rscript -e 'install.packages(\"testthat\")'\n", "x.yml").test_lines == ()
    assert parse_ci_config("- run: nf-test test --profile docker\n- uses: matlab-actions/run-tests@v2\n"
                           "- run: nf-test list\n", "y.yml").test_lines == (
        (1, "- run: nf-test test --profile docker"), (2, "- uses: matlab-actions/run-tests@v2"))


def test_front_matter_keys_of_the_header_only():
    text = "---\ntitle: A\nparams:\n  n: 3\n...\nparams: not header\n"
    assert parse_front_matter(text, "a.Rmd").keys == {"title": (2, "title: A"), "params": (3, "params:")}
    assert parse_front_matter("params: x\n", "b.Rmd").keys == {}


def test_hardware_lines_by_kind():
    assert first_hardware_line(["# Setup", "Needs 16 GB of RAM", "GPU"], "declaration") == (2, "Needs 16 GB of RAM")
    assert first_hardware_line(["# --extra-index-url https://x/whl/cu118",
                                "--extra-index-url https://download.pytorch.org/whl/cu118"], "wheel_index") == (
        2, "--extra-index-url https://download.pytorch.org/whl/cu118")
    assert first_hardware_line(["services:", "  runtime: nvidia"], "compose_gpu") == (2, "  runtime: nvidia")
    assert first_hardware_line(["nothing here"], "declaration") is None


def test_hardware_declaration_is_a_statement_before_a_badge():
    lines = ["Tool", "====", "", "|PyPI| |Docker CUDA|", "", "Runs on a CPU; a GPU speeds up the fits.", "",
             ".. |Docker CUDA| image:: https://img.shields.io/badge/cuda-yes"]
    assert first_hardware_line(lines, "declaration") == (6, "Runs on a CPU; a GPU speeds up the fits.")
    assert first_hardware_line(lines[:5], "declaration") == (4, "|PyPI| |Docker CUDA|")
    assert first_hardware_line(["[![CUDA](https://x/cuda.svg)](https://x)", "Needs an NVIDIA GPU"],
                               "declaration") == (2, "Needs an NVIDIA GPU")


def test_tree_snippet_of_files_and_notebook_cells(make_tree):
    nb = json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "markdown", "source": "# T", "metadata": {}},
        {"cell_type": "code", "source": "x = 1\ny = 2\n", "execution_count": 1, "outputs": [], "metadata": {}}]})
    tree = TreeIndex.from_path(make_tree({"a.py": "one\ntwo\n", "n.ipynb": nb}))
    assert tree.snippet("a.py", 2) == "two"
    assert tree.snippet("a.py", 3) is None and tree.snippet("a.py", 0) is None
    assert tree.snippet("n.ipynb", 2, cell=2) == "y = 2"
    assert tree.snippet("n.ipynb", 1, cell=3) is None
    assert tree.hardware_line("a.py", "declaration") is None


def test_pfunit_annotations_and_assertions_outside_comments():
    from scoring.parsers.pfunit import parse_pfunit

    text = ("module test_sum\n  use funit\ncontains\n  ! @test\n  @test\n  subroutine test_one()\n"
            "    @assertEqual(2, 1 + 1)\n    !@assertTrue(.false.)\n  end subroutine\n"
            "  @test(npes=[1])\n  subroutine test_two(this)\n    @assertTrue(.true., message='ok')\n"
            "  end subroutine\nend module\n")
    parsed = parse_pfunit(text)
    assert (parsed.tests, parsed.assertions) == ((5, 10), (7, 12))


def test_ci_config_snakemake_folders_workflow_test_runs_and_scripts():
    text = ("jobs:\n  lint:\n    steps:\n      - name: Lint\n        uses: snakemake/snakemake-github-action@v1\n"
            "        with:\n          directory: .test\n          args: '--lint'\n"
            "  run:\n    steps:\n      - name: Run\n        uses: snakemake/snakemake-github-action@v1\n"
            "        with:\n          directory: '.tests/integration'\n          args: --cores 1\n"
            "      - name: Docs\n        working-directory: docs\n        run: make html\n"
            "      - run: snakemake --cores 2 --directory ./runs/small\n"
            "      - run: nextflow run . -profile test,docker && fpm test\n"
            "      - run: python3 -u scripts/validate.py out && Rscript -e 'x' && ./tools/check.sh\n"
            "      - run: make -j 4 check  # CTest through make\n")
    config = parse_ci_config(text, ".github/workflows/ci.yml")
    # the lint step's folder and the docs step (no Snakemake) are not Snakemake runs
    assert config.workflow_dirs == ((14, ".tests/integration"), (19, "runs/small"))
    assert [line for line, _ in config.test_lines] == [8, 14, 20, 22]
    assert config.run_scripts == ((21, "scripts/validate.py"), (21, "tools/check.sh"))
