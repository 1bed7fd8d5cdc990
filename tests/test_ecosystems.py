"""The ecosystems a tree belongs to and the files each category's detectors read: the
curator's view of why a tree scores as it does (inventory and ``score``'s text)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from reproscore.cli import cli
from scoring.ecosystems import Ecosystem, find_ecosystems
from scoring.measurement import measure


def test_ecosystems_count_sources_and_name_their_markers_shallowest_first():
    found = find_ecosystems([
        "DESCRIPTION", "R/fit.R", "R/plot.R", "vignettes/intro.Rmd", "tests/testthat/test-fit.R",
        "src/kernel.cpp", "inst/include/kernel.h", "src/CMakeLists.txt",
        "workflow/Snakefile", "workflow/rules/align.smk", "workflow/envs/align.yaml", "envs/sub/environment.yml",
        "environment.yml", "run.sh", "Makefile", "docs/logo.png",
    ])
    assert [e.to_dict() for e in found] == [
        {"name": "R", "files": 4, "markers": ["DESCRIPTION"]},
        {"name": "C/C++", "files": 2, "markers": ["src/CMakeLists.txt"]},
        {"name": "Snakemake", "files": 2, "markers": []},
        {"name": "shell", "files": 1, "markers": []},
        {"name": "Make", "files": 0, "markers": ["Makefile"]},
        {"name": "conda", "files": 0, "markers": ["environment.yml", "envs/sub/environment.yml"]},
    ]


def test_an_ecosystem_is_described_with_its_files_and_at_most_four_markers():
    assert Ecosystem("R", 1, ("DESCRIPTION",)).describe() == "R 1 file (DESCRIPTION)"
    assert Ecosystem("conda", 0, ("a/environment.yml",)).describe() == "conda (a/environment.yml)"
    many = Ecosystem("Nextflow", 12, tuple(f"m{i}/nextflow.config" for i in range(6)))
    assert many.describe() == ("Nextflow 12 files (m0/nextflow.config, m1/nextflow.config, m2/nextflow.config,"
                               " m3/nextflow.config, +2 more)")
    assert Ecosystem.from_dict(many.to_dict()) == many


R_PACKAGE = {
    "DESCRIPTION": "Package: tiny\nVersion: 0.1.0\nImports: dplyr (>= 1.0.0)\nLicense: MIT\n",
    "R/fit.R": "#' Fit\n#' @export\nfit <- function(x) {\n  dplyr::mutate(x)\n}\n",
    "tests/testthat/test-fit.R": "test_that('fit', {\n  expect_true(TRUE)\n})\n",
    "README.md": "# tiny\n\n## Installation\n\n```r\ninstall.packages('tiny')\n```\n",
    ".github/workflows/check.yaml": "on: push\njobs:\n  check:\n    runs-on: ubuntu-latest\n"
                                    "    steps:\n      - run: R CMD check .\n",
}


def test_each_category_is_credited_with_the_files_its_detectors_read(make_tree):
    inventory = measure(make_tree(R_PACKAGE)).inventory
    assert inventory.ecosystems == [{"name": "R", "files": 2, "markers": ["DESCRIPTION"]}]
    assert inventory.read_by["DESCRIPTION"] == "EADCS"
    assert inventory.read_by[".github/workflows/check.yaml"] == "S"
    assert list(inventory.read_by) == sorted(inventory.read_by)
    reads: dict[str, list[str]] = {}
    for path, categories in inventory.read_by.items():
        for key in categories:
            reads.setdefault(key, []).append(path)
    assert set(reads) == {"E", "A", "D", "C", "S"}
    # the R manifest is read for pinning (E), for import resolution (C) and for the
    # licence (D); the CI file only for the signals
    assert "DESCRIPTION" in reads["E"] and "DESCRIPTION" in reads["C"] and "DESCRIPTION" in reads["D"]
    assert ".github/workflows/check.yaml" in reads["S"]
    assert ".github/workflows/check.yaml" not in reads["E"]
    assert "tests/testthat/test-fit.R" in reads["S"]
    assert all(paths == sorted(paths) for paths in reads.values())


def test_a_view_of_the_whole_tree_credits_every_category_that_uses_it(make_tree):
    # the parsed manifests are built once (for E1) and read again by C2: both read them
    tree = make_tree({"requirements.txt": "numpy==1.26.4\n", "src/a.py": "import numpy\n"})
    read_by = measure(tree).inventory.read_by
    assert "E" in read_by["requirements.txt"] and "C" in read_by["requirements.txt"]


def test_score_text_names_the_ecosystems_and_the_files_each_category_read(make_tree):
    root = make_tree(R_PACKAGE)
    result = CliRunner().invoke(cli, ["score", str(root), "--top", "0"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "  ecosystems: R 2 files (DESCRIPTION)" in lines
    assert "  files read per category (all of them in --format json):" in lines
    # shallow files before deep ones, manifests and documents before code
    assert "    S    5  DESCRIPTION, README.md, R/fit.R, .github/workflows/check.yaml, tests/testthat/test-fit.R" \
        in lines


@pytest.mark.parametrize(("files", "expected"), [
    ({"README.md": "# x\n"}, "python"),
    ({"a.py": "x = 1\n", "b.R": "x <- 1\n", "c.R": "y <- 2\n"}, "r"),
    ({"src/M.jl": "module M end\n", "docs/make.jl": "using Documenter\n", "tools/plot.py": "x = 1\n"}, "julia"),
    ({"main.m": "x = 1;\n", "helper.m": "y = 2;\n"}, "matlab"),
    ({"src/a.c": "int main(void) { return 0; }\n", "src/b.f90": "program b\nend program b\n",
      "scripts/plot.py": "x = 1\n"}, "native"),
    ({"Snakefile": "rule all:\n    input: 'x'\n", "scripts/a.py": "x = 1\n", "scripts/b.py": "y = 2\n"}, "snakemake"),
    ({"main.nf": "workflow { }\n", "bin/a.py": "x = 1\n", "bin/b.py": "y = 1\n"}, "nextflow"),
])
def test_fixes_are_written_for_the_trees_own_ecosystem(make_tree, files, expected):
    from scoring.detectors._shared import fix_ecosystem
    from scoring.tree import TreeIndex

    assert fix_ecosystem(TreeIndex.from_path(make_tree(files))) == expected


def test_an_objective_c_m_file_is_no_matlab_source_for_any_consumer(make_tree):
    from scoring.tree import TreeIndex
    root = make_tree({
        "Foo.m": "#import <Foundation/Foundation.h>\n@implementation Foo\n- (void)bar { }\n@end\n",
        "analysis/run_all.m": "% run every step\nload_data();\n",
        "main.c": "int main(void) { return 0; }\n",
    })
    tree = TreeIndex.from_path(root)
    assert tree.by_frontend("matlab") == ["analysis/run_all.m"]
    assert sorted(tree.all_facts()) == ["analysis/run_all.m", "main.c"]
    assert [e.to_dict() for e in tree.ecosystems] == [
        {"name": "MATLAB/Octave", "files": 1, "markers": []},
        {"name": "C/C++", "files": 1, "markers": []},
    ]
    from scoring.registry import load_detectors
    d4 = load_detectors()["inline_explanation_density"].run(tree)
    assert d4.counts["scripts_by_language"] == {"c_cpp": 1, "matlab": 1}
