"""File roles (METRICS.md §0.2.1): one rule a test, then the tree index deciding them."""

from __future__ import annotations

import pytest

from scoring.roles import code_dirs, file_role, licensed_dirs, normalised
from scoring.tree import TreeIndex


@pytest.mark.parametrize("path", [
    "tests/test_core.py", "test/runtests.jl", "testing/check.py", "spec/model_spec.rb",
    "test_core.py", "pkg/core_test.py", "conftest.py", "pkg/conftest.py",
    "tests/testthat/test-fit.R", "tests/test_report.m", "+tests/+unit/ReadTest.m", "ModelTest.m",
    "modules/local/report/main.nf.test", "tests/grid_test.cpp", ".tests/unit/test_x.py", ".test/config.yaml",
    "tst/regression/run_tests.py", "inst/tinytest/test_fit.R", "tests/tinytest/test_fit.R",
    "inst/unitTests/runit.fit.R", "inst/tests/test-fit.R",
])
def test_test_files(path):
    assert file_role(path) == "test"


@pytest.mark.parametrize("path", ["latest.m", "contest.py", "testdata.csv", "src/attest.jl", "protest/README.md",
                                  "inst/extdata/simulate.R", "src/inst/tinytest/helper.R"])
def test_names_that_only_contain_test_are_source(path):
    assert file_role(path) == "source"


@pytest.mark.parametrize("path", ["docs/index.rst", "doc/tutorial.py", "vignettes/intro.Rmd", "docs/make.jl"])
def test_docs_files(path):
    assert file_role(path) == "docs"


def test_examples_stay_source():
    assert file_role("examples/fit.py") == "source"


@pytest.mark.parametrize("path", [
    "versioneer.py", "third_party/nbsphinx_adapted.py", "src/thirdparty/nlohmann/json.hpp",
    "vendor/lib.c", "static/jquery.min.js", "renv/activate.R", "packrat/init.R",
    "3rd party toolboxes/cbrewer/cbrewer.m", "sse2neon.h", "include/catch.hpp", "src/stb_image.h",
])
def test_vendored_files(path):
    assert file_role(path) == "vendored"


def test_extern_folders_are_vendored_only_where_another_project_is_copied_in():
    paths = ["external/fastsearch/license.txt", "external/fastsearch/fastsearch.m", "src/extern/driver.f90",
             "dependencies/export_fig/LICENSE", "dependencies/export_fig/export_fig.m",
             "dependencies/removeallnandims.m"]
    licensed = licensed_dirs(paths)
    assert licensed == frozenset({"external/fastsearch", "dependencies/export_fig"})
    assert file_role("external/fastsearch/fastsearch.m", licensed=licensed) == "vendored"
    assert file_role("dependencies/export_fig/export_fig.m", licensed=licensed) == "vendored"
    # the project's own interface to an external program, its own helper beside a toolbox
    assert file_role("src/extern/driver.f90", licensed=licensed) == "source"
    assert file_role("dependencies/removeallnandims.m", licensed=licensed) == "source"


@pytest.mark.parametrize(("name", "flat"), [
    ("externalPackages", "externalpackages"), ("3rd party toolboxes", "3rdpartytoolboxes"),
    ("Third-Party", "thirdparty"), ("_vendor", "vendor"), ("external.libs", "externallibs"),
])
def test_folder_names_are_compared_without_case_spaces_and_separators(name, flat):
    assert normalised(name) == flat


@pytest.mark.parametrize("path", [
    "ThirdPartyLibs/zlib/inflate.c", "Third-Party/json.hpp", "vendors/yaml/reader.py", "_vendor/six.py",
    "externalPackages/chronux/spectrum.m", "External-Libs/zlib/inflate.c", "externals/gramm/gramm.m",
    "src/deps/lua/lapi.c", "dependencies/export_fig/export_fig.m", "externalPackages/fma/General/private/x.m",
    "sse2neon/emmintrin.h", "lib/CLI11/App.hpp", "third_party/catch2/catch.hpp", "include/nlohmann/json_fwd.hpp",
])
def test_other_projects_by_folder_name(path):
    assert file_role(path, code=code_dirs([path])) == "vendored"


@pytest.mark.parametrize("path", [
    "externalPackages/readAll.m",              # loose in the container: the project's own helper
    "src/extern/orca.f90",                     # the project's interface to an external program
    "deps/build.jl",                           # Julia's package build script
    "data/external/raw/counts.csv",            # a data folder: no code below it
    "external/upstream/fetch_eigen3.cmake",    # the recipes that fetch a dependency
    "src/external_api.py", "external_api/v1/client.py", "extensions/ext/a.py", "toolbox/+pkg/run.m",
    "catch/model.R", "data/catch/landings.csv", "sse2neon/README.md",
])
def test_what_sits_in_or_is_named_like_a_container_without_being_copied_in(path):
    assert file_role(path, code=code_dirs([path])) == "source"


def test_a_container_sub_folder_is_another_project_only_when_it_holds_code():
    paths = ["external/upstream/fetch_eigen3.cmake", "external/zlib/inflate.c", "data/external/raw/a.csv"]
    code = code_dirs(paths)
    assert code == frozenset({"external", "external/zlib"})
    assert [file_role(p, code=code) for p in paths] == ["source", "vendored", "source"]


def test_a_folder_holding_a_licence_other_than_the_projects_is_another_project(make_tree):
    root = make_tree({
        "LICENSE": "BSD 3-Clause License\n", "src/main.cpp": "int main() {}\n",
        "src/fft/LICENSE": "GNU GENERAL PUBLIC LICENSE\n", "src/fft/fft_3d.cpp": "void fft() {}\n",
        "src/fft/impl/pack.cpp": "void pack() {}\n",
        "python/LICENSE": "BSD 3-Clause License\n", "python/binding.py": "x = 1\n",     # the project's licence again
        "pages/LICENSE.md": "title: License\n", "pages/index.md": "# Docs\n",           # no code: a documentation page
        "analysis/license.Rmd": "---\ntitle: License\n---\n", "analysis/fit.R": "x <- 1\n",   # a page, no licence text
    })
    tree = TreeIndex.from_path(root)
    assert {p: tree.role(p) for p in tree.files if tree.role(p) != "source"} == {
        "src/fft/LICENSE": "vendored", "src/fft/fft_3d.cpp": "vendored", "src/fft/impl/pack.cpp": "vendored"}


def test_a_licensed_folder_with_most_of_the_code_is_the_project_itself(make_tree):
    root = make_tree({"LICENSE": "MIT License\n\nCopyright (c) 2023 A\n", "pkg/LICENSE": "MIT License\n\nCopyright (c) 2024 A\n",
                      "pkg/core.py": "x = 1\n", "pkg/io.py": "y = 2\n", "scripts/run.py": "z = 3\n"})
    tree = TreeIndex.from_path(root)
    assert [tree.role(p) for p in ("pkg/core.py", "pkg/io.py", "scripts/run.py")] == ["source"] * 3


def test_without_a_licence_at_the_root_no_folder_licence_is_told_foreign(make_tree):
    root = make_tree({"pkg/LICENSE": "MIT License\n", "pkg/core.py": "x = 1\n"})
    tree = TreeIndex.from_path(root)
    assert tree.role("pkg/core.py") == "source"


def test_build_files():
    assert file_role("noxfile.py") == "build"
    assert file_role("tasks.py") == "build"
    assert file_role("docs/conf.py") == "build"           # a docs folder's conf.py is Sphinx's
    assert file_role("conf.py", sphinx_conf=True) == "build"
    assert file_role("conf.py") == "source"               # a configuration module of the code
    assert file_role("setup.py", calls_setup=True) == "build"
    assert file_role("build_ext.py", calls_setup=True) == "build"
    assert file_role("setup.py") == "source"              # no setup() call: an ordinary script


def test_versioneer_version_files_are_vendored_and_others_source():
    assert file_role("pkg/_version.py", versioneer_generated=True) == "vendored"
    assert file_role("pkg/_version.py") == "source"


def test_precedence_vendored_then_test_then_build_then_docs():
    assert file_role("third_party/lib/tests/test_x.py") == "vendored"
    assert file_role("tests/data/pkg/setup.py", calls_setup=True) == "test"
    assert file_role("docs/conf.py") == "build"


def test_the_index_decides_roles_from_paths_and_facts_and_the_inventory_counts_them(make_tree):
    root = make_tree({
        "setup.py": "from setuptools import setup\nsetup(name='x')\n",
        "pkg/__init__.py": "",
        "pkg/_version.py": "# This file was generated by versioneer-0.29\nversion = '1.0'\n",
        "pkg/core.py": "def f():\n    return 1\n",
        "conf.py": "project = 'x'\nhtml_theme = 'alabaster'\n",
        "tests/test_core.py": "def test_f():\n    assert True\n",
        "docs/index.rst": "Title\n=====\n",
        "third_party/lib.py": "x = 1\n",
    })
    tree = TreeIndex.from_path(root)
    assert {path: tree.role(path) for path in tree.files} == {
        "conf.py": "build", "docs/index.rst": "docs", "pkg/__init__.py": "source", "pkg/_version.py": "vendored",
        "pkg/core.py": "source", "setup.py": "build", "tests/test_core.py": "test", "third_party/lib.py": "vendored",
    }
    inventory = tree.inventory()
    assert inventory.role_counts == {"source": 2, "test": 1, "docs": 1, "vendored": 2, "build": 2}
    assert inventory.roles == {"test": ["tests/test_core.py"], "docs": ["docs/index.rst"],
                               "vendored": ["pkg/_version.py", "third_party/lib.py"], "build": ["conf.py", "setup.py"]}
    assert inventory.to_dict()["role_counts"]["source"] == 2
