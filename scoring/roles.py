"""File roles (METRICS.md §0.2.1): every file of a tree has exactly one role.

``source`` is the default; ``test`` (the S3 test-file definition), ``docs``, ``vendored``
(other projects' code copied in) and ``build`` (setup scripts and build configuration)
are decided here, once per tree, by :meth:`scoring.tree.TreeIndex.role`. Most rules read
the path alone; three read the file's facts, which the index hands over as flags:
a module that calls ``setuptools.setup()``/``distutils.core.setup()`` is ``build``, a
``_version.py`` written by versioneer is ``vendored``, and a ``conf.py`` that sets Sphinx
options is ``build``.

When several rules match, the first role of :data:`PRECEDENCE` wins: vendored code is
never the project's, whatever folder it sits in, and a test's ``setup.py`` fixture is a
test.

Roles decide denominators (§0.2.2, §0.2.3): vendored files are in no code metric,
build files are out of C2 and S6, test files are out of D6 and of S1's stochastic set.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

ROLES = ("source", "test", "docs", "vendored", "build")
PRECEDENCE = ("vendored", "test", "build", "docs")

# Folders whose files are tests: the S3 test folders, nf-test and Snakemake's `.test/`
# and `.tests/` (§0.3), a MATLAB `+tests` package, and `tst/` (an abbreviation of tests/
# some native codes use). R `tests/testthat/`, Julia `test/`, MATLAB and C/C++ `tests/`
# are among them.
TEST_DIRS = frozenset({"tests", "test", "testing", "spec", ".test", ".tests", "+tests", "tst"})
# Python test modules, MATLAB `*Test.m` classes (a capital T: `latest.m` is no test),
# nf-test files
_TEST_NAME = re.compile(r"test_.*\.pyw?|.*_test\.pyw?|conftest\.py|.*\.nf\.test", re.IGNORECASE)
_MATLAB_TEST_NAME = re.compile(r".+Test\.m")

DOCS_DIRS = frozenset({"docs", "doc", "vignettes"})

# Folders that only ever hold other projects' code (R's renv/packrat libraries, §0.3).
VENDORED_DIRS = frozenset({"third_party", "thirdparty", "third-party", "vendor", "vendored", "_vendor", "renv",
                           "packrat"})
_VENDORED_DIR_NAME = re.compile(r"3rd[ _-]?party.*", re.IGNORECASE)   # 3rdparty, "3rd party toolboxes"
# Folders that hold other projects' sources beside the project's own (``extern/driver.f90``
# is the project's interface to an external program): a file in them is vendored when a
# folder on its way down holds a licence file of its own, the mark of a copied project
# (``external_packages/fastsearch/license.txt``, ``dependencies/export_fig/LICENSE``).
EXTERNAL_DIRS = frozenset({"extern", "external", "externals", "external_packages", "dependencies", "deps"})
_LICENCE_NAME = re.compile(r"(?:licen[cs]e|copying)(?:[._-].*)?", re.IGNORECASE)

# Single-file libraries that projects copy in whole, known by name (as versioneer.py):
# a header-only or one-module library is vendored wherever it sits.
VENDORED_FILES = frozenset({"versioneer.py", "sse2neon.h", "catch.hpp", "catch_amalgamated.hpp",
                            "catch_amalgamated.cpp", "doctest.h", "cxxopts.hpp", "cli11.hpp", "miniz.c", "miniz.h",
                            "sqlite3.c", "sqlite3.h", "docopt.py", "picojson.h", "tinyxml2.cpp", "tinyxml2.h"})
_VENDORED_FILE_NAME = re.compile(r"stb_\w+\.h|.*\.min\.js", re.IGNORECASE)

_BUILD_NAMES = frozenset({"noxfile.py", "tasks.py"})


def is_licence_file(name: str) -> bool:
    """``LICENSE``, ``LICENCE.md``, ``COPYING``, ``license.txt``…"""
    return bool(_LICENCE_NAME.fullmatch(name))


def licensed_dirs(paths: Iterable[str]) -> frozenset[str]:
    """The folders (not the root) that hold a licence file of their own."""
    found = set()
    for path in paths:
        folder, _, name = path.rpartition("/")
        if folder and is_licence_file(name):
            found.add(folder)
    return frozenset(found)


@dataclass(frozen=True)
class _Folder:
    """What a folder's path says about the files below it."""

    vendored: bool = False
    in_external: bool = False    # below an extern/external/dependencies… container
    test: bool = False
    docs: bool = False


_ROOT = _Folder()


class RoleClassifier:
    """The roles of one tree's files: folder verdicts are worked out once per folder
    (from the parent's verdict and the folder's own name), so a file costs a lookup and
    its name's rules."""

    def __init__(self, licensed: frozenset[str] = frozenset()):
        self.licensed = licensed
        self._folders: dict[str, _Folder] = {"": _ROOT}

    def _folder(self, folder: str) -> _Folder:
        found = self._folders.get(folder)
        if found is None:
            parent, _, name = folder.rpartition("/")
            above = self._folder(parent)
            lowered = name.lower()
            in_external = above.in_external or lowered in EXTERNAL_DIRS
            found = _Folder(
                vendored=above.vendored or lowered in VENDORED_DIRS or bool(_VENDORED_DIR_NAME.fullmatch(name))
                or (in_external and folder in self.licensed),
                in_external=in_external,
                test=above.test or lowered in TEST_DIRS,
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


def file_role(path: str, *, licensed: frozenset[str] = frozenset(), **flags: bool) -> str:
    """The role of one file (:meth:`RoleClassifier.role`); ``licensed`` are the folders
    holding a licence file (:func:`licensed_dirs`)."""
    return RoleClassifier(licensed).role(path, **flags)


# What the facts of a Python file must show for the facts-based rules.
SETUP_CALLS = frozenset({"setuptools.setup", "distutils.core.setup"})
# options only a Sphinx configuration sets
SPHINX_OPTIONS = frozenset({"html_theme", "master_doc", "root_doc", "source_suffix", "html_static_path",
                            "templates_path", "html_title", "project"})
VERSIONEER_MARK = "versioneer"


__all__ = ["DOCS_DIRS", "EXTERNAL_DIRS", "PRECEDENCE", "ROLES", "RoleClassifier", "SETUP_CALLS", "SPHINX_OPTIONS", "TEST_DIRS",
           "VENDORED_DIRS", "VENDORED_FILES", "VERSIONEER_MARK", "file_role", "is_licence_file", "licensed_dirs"]
