"""File roles (METRICS.md §0.2.1): every file of a tree has exactly one role.

``source`` is the default; ``test`` (the S3 test-file definition), ``docs``, ``vendored``
(other projects' code copied in) and ``build`` (setup scripts and build configuration)
are decided here, once per tree, by :meth:`scoring.tree.TreeIndex.role`. Most rules read
the path alone; three read the file's facts, which the index hands over as flags:
a module that calls ``setuptools.setup()``/``distutils.core.setup()`` is ``build``, a
``_version.py`` written by versioneer is ``vendored``, and a ``conf.py`` that sets Sphinx
options is ``build``. One reads the content of licence files: a folder whose licence
differs from the project's (the root's) holds another project's code.

When several rules match, the first role of :data:`PRECEDENCE` wins: vendored code is
never the project's, whatever folder it sits in, and a test's ``setup.py`` fixture is a
test.

Roles decide denominators (§0.2.2, §0.2.3): vendored files are in no code metric,
build files are out of C2 and S6, test files are out of D6 and of S1's stochastic set.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .frontends import frontend_name

ROLES = ("source", "test", "docs", "vendored", "build")
PRECEDENCE = ("vendored", "test", "build", "docs")

# Folders whose files are tests: the S3 test folders, nf-test and Snakemake's `.test/`
# and `.tests/` (§0.3), a MATLAB `+tests` package, and `tst/` (an abbreviation of tests/
# some native codes use). R `tests/testthat/`, Julia `test/`, MATLAB and C/C++ `tests/`
# are among them.
TEST_DIRS = frozenset({"tests", "test", "testing", "spec", ".test", ".tests", "+tests", "tst"})
# R package folders of tinytest and RUnit suites (§0.3 S3), which S3 reads as test folders:
# every file below them is a test, found by its path from the root (an `inst/` holds
# installed files of every kind, so its name alone says nothing).
R_TEST_DIRS = ("inst/unitTests/", "inst/tinytest/", "tests/tinytest/", "inst/tests/")
# Python test modules, MATLAB `*Test.m` classes (a capital T: `latest.m` is no test),
# nf-test files
_TEST_NAME = re.compile(r"test_.*\.pyw?|.*_test\.pyw?|conftest\.py|.*\.nf\.test", re.IGNORECASE)
_MATLAB_TEST_NAME = re.compile(r".+Test\.m")

DOCS_DIRS = frozenset({"docs", "doc", "vignettes"})

# Vendored code (other projects' code copied in) is recognised by the folder holding it.
# Folder names are compared normalised: lower-cased, without spaces, ``_``, ``-`` and
# ``.`` (``third_party``, ``3rd party toolboxes``, ``externalPackages``, ``External-Libs``).
#
# Folders that only ever hold other projects' code: every file below is vendored
# (third_party/, "3rd party toolboxes/", vendor/, R's renv/ and packrat/ libraries, §0.3).
_VENDOR_PREFIXES = ("thirdpart", "3rdpart")
VENDORED_DIRS = frozenset({"vendor", "vendors", "vendored", "renv", "packrat"})
# Containers of other projects' trees beside the project's own files (extern/,
# external/, externalPackages/, external_libs/, deps/, dependencies/): each sub-folder
# holding code is another project (``externalPackages/chronux/``); a file loose in the
# container is the project's own (``extern/driver.f90``, its interface to an external
# program; Julia's ``deps/build.jl``) unless the container holds a licence of its own. A
# sub-folder without code is no copied project: data (``data/external/raw/``) or the
# recipes that fetch one (``external/upstream/fetch_eigen3.cmake``).
# (normalised) extern, externals, externalpackages, externallibs, externaltools…; not
# externalapi/ or extensions/
_CONTAINER_NAME = re.compile(
    r"extern(?:al)?s?(?:packages?|libs?|librar(?:y|ies)|deps?|dependenc(?:y|ies)|modules?|projects?|tools?"
    r"|toolbox(?:es)?|sources?|src|repos?|code)?|deps|dependencies")
# A licence text of a folder's own (``LICENSE``, ``license.txt``, ``COPYING.LESSER``,
# ``LICENSE-MIT``); a page or a source header named after one (``license.Rmd``,
# ``license.stan``, ``LICENSE-C++``) is not.
_LICENCE_NAME = re.compile(
    r"(?:licen[cs]e|copying|unlicense)(?:[._-](?:txt|md|markdown|rst|lesser|lib|mit|apache[\d.-]*|bsd[\d-]*|l?gpl[\d.-]*))?",
    re.IGNORECASE)

# Single-file libraries that projects copy in whole, known by name (as versioneer.py):
# a header-only or one-module library is vendored wherever it sits, and so is a folder
# named after one (minimap2's ``sse2neon/emmintrin.h``).
VENDORED_FILES = frozenset({"versioneer.py", "sse2neon.h", "catch.hpp", "catch_amalgamated.hpp",
                            "catch_amalgamated.cpp", "doctest.h", "cxxopts.hpp", "cli11.hpp", "miniz.c", "miniz.h",
                            "sqlite3.c", "sqlite3.h", "docopt.py", "picojson.h", "tinyxml2.cpp", "tinyxml2.h"})
_VENDORED_FILE_NAME = re.compile(r"stb_\w+\.h|.*\.min\.js", re.IGNORECASE)
# (not catch/ or doctest/: a fisheries analysis keeps its catch data in catch/)
LIBRARY_DIRS = frozenset({"versioneer", "sse2neon", "catch2", "cxxopts", "cli11", "miniz", "sqlite3", "docopt",
                          "picojson", "tinyxml2", "nlohmann", "googletest", "pybind11"})

_BUILD_NAMES = frozenset({"noxfile.py", "tasks.py"})
_SHELL_SUFFIXES = (".sh", ".bash")


def normalised(name: str) -> str:
    """A folder name as the vendoring rules compare it: lower-case, without spaces,
    ``_``, ``-`` and ``.``."""
    return re.sub(r"[\s_.-]+", "", name.lower())


def is_licence_file(name: str) -> bool:
    """``LICENSE``, ``LICENCE.md``, ``COPYING``, ``license.txt``, ``COPYING.LESSER``…"""
    return bool(_LICENCE_NAME.fullmatch(name))


def is_code_file(path: str) -> bool:
    """A file a language frontend reads, or a shell script: what a copied project brings."""
    return frontend_name(path) is not None or path.lower().endswith(_SHELL_SUFFIXES)


def licensed_dirs(paths: Iterable[str]) -> frozenset[str]:
    """The folders (not the root) that hold a licence file of their own."""
    found = set()
    for path in paths:
        folder, _, name = path.rpartition("/")
        if folder and is_licence_file(name):
            found.add(folder)
    return frozenset(found)


def code_dirs(paths: Iterable[str]) -> frozenset[str]:
    """The folders (not the root) with a code file somewhere below them."""
    return frozenset(folder for folder in code_counts(paths) if folder)


def code_counts(paths: Iterable[str]) -> dict[str, int]:
    """The number of code files below each folder (not the root) that has any, and
    under the key "" the tree's."""
    counts: dict[str, int] = {}
    for path in paths:
        if not is_code_file(path):
            continue
        folder = path.rpartition("/")[0]
        while folder:
            counts[folder] = counts.get(folder, 0) + 1
            folder = folder.rpartition("/")[0]
        counts[""] = counts.get("", 0) + 1
    return counts


def foreign_licence_dirs(paths: Iterable[str], content_id: Callable[[str], str | None]) -> frozenset[str]:
    """The folders holding a licence that is not the project's: its content differs from
    every licence file at the root (``content_id`` gives a file's content id). A tree
    without a licence at the root has none: whose licence a sub-folder's is cannot be
    told (a package folder may hold the project's only licence)."""
    licences = [path for path in paths if is_licence_file(path.rpartition("/")[2])]
    own = {content_id(path) for path in licences if "/" not in path}
    own.discard(None)
    if not own:
        return frozenset()
    return frozenset(path.rpartition("/")[0] for path in licences
                     if "/" in path and content_id(path) not in own)


@dataclass(frozen=True)
class _Folder:
    """What a folder's path says about the files below it."""

    vendored: bool = False
    container: bool = False      # an extern*/deps/dependencies folder itself
    in_container: bool = False   # the container or a folder below it
    test: bool = False
    docs: bool = False


_ROOT = _Folder()


def _vendor_name(name: str) -> bool:
    """A folder name that only other projects' code goes under (third_party/, vendor/,
    "3rd party toolboxes/", renv/)."""
    flat = normalised(name)
    return flat.startswith(_VENDOR_PREFIXES) or flat in VENDORED_DIRS


def _container_name(name: str) -> bool:
    return _CONTAINER_NAME.fullmatch(normalised(name)) is not None


class RoleClassifier:
    """The roles of one tree's files: folder verdicts are worked out once per folder
    (from the parent's verdict and the folder's own name), so a file costs a lookup and
    its name's rules.

    ``licensed``: the folders holding a licence file; ``foreign``: those whose licence is
    not the project's (:func:`foreign_licence_dirs`); ``code``: the folders with code
    below them (:func:`code_dirs`), None to take every folder as holding code."""

    def __init__(self, licensed: frozenset[str] = frozenset(), foreign: frozenset[str] = frozenset(),
                 code: frozenset[str] | None = None):
        self.licensed = licensed
        self.foreign = foreign
        self.code = code
        self._folders: dict[str, _Folder] = {"": _ROOT}

    @classmethod
    def of_tree(cls, paths: Iterable[str], content_id: Callable[[str], str | None]) -> RoleClassifier:
        """The classifier of a tree's files (every path of the tree, links included). A
        folder holding another project's licence and most of the tree's code is the
        project itself (a package folder with a licence of its own), not a copy."""
        paths = list(paths)
        counts = code_counts(paths)
        half = counts.get("", 0) / 2
        foreign = frozenset(f for f in foreign_licence_dirs(paths, content_id) if counts.get(f, 0) <= half)
        return cls(licensed_dirs(paths), foreign, frozenset(folder for folder in counts if folder))

    def _has_code(self, folder: str) -> bool:
        return self.code is None or folder in self.code

    def _folder(self, folder: str) -> _Folder:
        found = self._folders.get(folder)
        if found is None:
            parent, _, name = folder.rpartition("/")
            above = self._folder(parent)
            container = _container_name(name)
            in_container = above.in_container or container
            lowered = name.lower()
            found = _Folder(
                vendored=above.vendored or _vendor_name(name)
                # a single-file library's folder, a project inside a container, or a
                # copied project's own licence
                or (normalised(name) in LIBRARY_DIRS and self._has_code(folder))
                or (above.container and self._has_code(folder))
                or (in_container and folder in self.licensed)
                or (folder in self.foreign and self._has_code(folder)),
                container=container,
                in_container=in_container,
                test=above.test or lowered in TEST_DIRS or f"{folder}/".startswith(R_TEST_DIRS),
                docs=above.docs or lowered in DOCS_DIRS,
            )
            self._folders[folder] = found
        return found

    def role(self, path: str, *, calls_setup: bool = False, versioneer_generated: bool = False,
             sphinx_conf: bool = False) -> str:
        """The role of the file at ``path`` (POSIX, repository-relative); the flags come
        from the file's facts: it calls ``setuptools.setup()`` or
        ``distutils.core.setup()``, it is a ``_version.py`` generated by versioneer, it is
        a ``conf.py`` that sets Sphinx options."""
        folder_path, _, name = path.rpartition("/")
        folder = self._folder(folder_path)
        if versioneer_generated or folder.vendored or name.lower() in VENDORED_FILES \
                or _VENDORED_FILE_NAME.fullmatch(name):
            return "vendored"
        if folder.test or _TEST_NAME.fullmatch(name) or _MATLAB_TEST_NAME.fullmatch(name):
            return "test"
        if calls_setup or name in _BUILD_NAMES or (name == "conf.py" and (sphinx_conf or folder.docs)):
            return "build"
        if folder.docs:
            return "docs"
        return "source"


def file_role(path: str, *, licensed: frozenset[str] = frozenset(), foreign: frozenset[str] = frozenset(),
              code: frozenset[str] | None = None, **flags: bool) -> str:
    """The role of one file (:meth:`RoleClassifier.role`); ``licensed`` are the folders
    holding a licence file (:func:`licensed_dirs`), ``foreign`` those holding another
    project's (:func:`foreign_licence_dirs`), ``code`` those with code below
    (:func:`code_dirs`; by default, every folder)."""
    return RoleClassifier(licensed, foreign, code).role(path, **flags)


# What the facts of a Python file must show for the facts-based rules.
SETUP_CALLS = frozenset({"setuptools.setup", "distutils.core.setup"})
# options only a Sphinx configuration sets
SPHINX_OPTIONS = frozenset({"html_theme", "master_doc", "root_doc", "source_suffix", "html_static_path",
                            "templates_path", "html_title", "project"})
VERSIONEER_MARK = "versioneer"


__all__ = ["DOCS_DIRS", "LIBRARY_DIRS", "PRECEDENCE", "R_TEST_DIRS", "ROLES", "RoleClassifier",
           "SETUP_CALLS", "SPHINX_OPTIONS", "TEST_DIRS", "VENDORED_DIRS", "VENDORED_FILES", "VERSIONEER_MARK", "code_counts", "code_dirs",
           "file_role", "foreign_licence_dirs", "is_code_file", "is_licence_file", "licensed_dirs", "normalised"]
