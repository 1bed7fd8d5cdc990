"""Find and parse every dependency manifest of a tree (used through ``tree.manifests()``).

Manifests are looked for in the environment locations (METRICS.md §2.3, §0.1.14):
requirements files (``requirements*.txt``, any ``.txt`` under ``requirements/``, following
``-r``/``-c``), ``pyproject.toml``, ``setup.cfg``, ``setup.py`` (with the requirements
file it opens for ``install_requires``, and pyproject's ``[tool.setuptools.dynamic]``
files, METRICS.md §0.2.20), ``Pipfile``, ``pixi.toml``, conda ``environment.y(a)ml``, R
``DESCRIPTION``, Julia ``Project.toml``, and the native package managers' manifests
(``conanfile.txt``/``conanfile.py``, ``vcpkg.json``, ``spack.yaml``, ``fpm.toml``;
§0.3). Environments that are not manifests of the deposit's package have accessors of
their own: R ``packrat.lock`` lockfiles (:func:`packrat_locks`), the environment a Pluto
notebook embeds (:func:`pluto_environments`) and the MATLAB release of a toolbox
project file (:func:`matlab_projects`).
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from .parsers import manifests as mf
from .tree import CONDA_ENV_DIRS

if TYPE_CHECKING:
    from .tree import TreeIndex

_REQUIREMENTS_NAME = re.compile(r"(?:.*[-_.])?requirements(?:[-_.].*)?\.(?:txt|in|pip)|requires\.txt", re.IGNORECASE)
_CONDA_NAME = re.compile(r"(?:.*[-_.])?environment(?:[-_.].*)?\.ya?ml", re.IGNORECASE)
# Manifests known by their lower-case name alone.
_OTHER_PARSERS: dict[str, Callable[[str, str], mf.Manifest]] = {
    "pixi.toml": mf.parse_pixi_toml,
    "conanfile.txt": mf.parse_conanfile_txt,
    "conanfile.py": mf.parse_conanfile_py,
    "vcpkg.json": mf.parse_vcpkg_json,
    "spack.yaml": mf.parse_spack_yaml,
    "spack.yml": mf.parse_spack_yaml,
    "fpm.toml": mf.parse_fpm_toml,
}


def collect_manifests(tree: TreeIndex) -> list[mf.Manifest]:
    return _collect(tree, tree.env_locations, register=True)


def collect_manifests_in(tree: TreeIndex, folders: Iterable[str]) -> list[mf.Manifest]:
    """The manifests of other folders than the environment locations (C2's sub-project
    folders, METRICS.md §0.2.20), parsed the same way; their problems are not recorded in
    the inventory (E1 does not score them)."""
    return _collect(tree, folders, register=False)


def _collect(tree: TreeIndex, folders: Iterable[str], *, register: bool) -> list[mf.Manifest]:
    found: list[mf.Manifest] = []
    seen: set[str] = set()

    def read(path: str) -> str | None:
        return tree.text(path)

    for location in folders:
        for path in tree.files_in(location):
            name = path.rsplit("/", 1)[-1]
            lower = name.lower()
            text = None
            manifest = None
            if _REQUIREMENTS_NAME.fullmatch(name) or (location == "requirements" and lower.endswith(".txt")):
                if path in seen:
                    continue
                if tree.text(path) is None:
                    continue
                if mf.is_explicit_conda_spec(tree.text(path) or ""):
                    continue
                manifest = mf.resolve_requirements(path, read)
                seen.update(manifest.includes)
            elif lower == "pyproject.toml":
                text = tree.text(path)
                manifest = mf.parse_pyproject(text, path) if text is not None else None
            elif lower == "setup.cfg":
                text = tree.text(path)
                manifest = mf.parse_setup_cfg(text, path) if text is not None else None
            elif lower == "setup.py":
                text = tree.text(path)
                manifest = mf.parse_setup_py(text, path) if text is not None else None
            elif name == "Pipfile":
                text = tree.text(path)
                manifest = mf.parse_pipfile(text, path) if text is not None else None
            elif _CONDA_NAME.fullmatch(name) or (location in CONDA_ENV_DIRS and lower.endswith((".yml", ".yaml"))):
                text = tree.text(path)
                manifest = mf.parse_conda_env(text, path) if text is not None else None
            elif name == "DESCRIPTION":
                text = tree.text(path)
                manifest = mf.parse_description(text, path) if text is not None else None
            elif name == "Project.toml":
                text = tree.text(path)
                manifest = mf.parse_julia_project(text, path) if text is not None else None
            elif lower in _OTHER_PARSERS:
                text = tree.text(path)
                manifest = _OTHER_PARSERS[lower](text, path) if text is not None else None
            if manifest is not None and manifest.requirement_files:
                manifest = _with_requirement_files(tree, manifest)
            if manifest is not None:
                seen.add(path)
                if register:
                    for problem in manifest.problems:
                        # Parser messages read "path:line: message"; the inventory keys by path.
                        tree.problem(path, problem.removeprefix(f"{path}:").lstrip(" "))
                found.append(manifest)
    # A file reached only through -r from another manifest is not scored on its own,
    # unless the two include each other.
    return [m for m in found if not _included_by_other(m, found)]


def is_conda_environment_name(name: str) -> bool:
    """A file name of a conda environment file: ``environment*.y(a)ml`` (``environment.yml``,
    ``docs-environment.yaml``) or a YAML file whose name says conda (``conda_env.yml``)."""
    lower = name.lower()
    return bool(_CONDA_NAME.fullmatch(name)) or ("conda" in lower and lower.endswith((".yml", ".yaml")))


def manifest_at(tree: TreeIndex, path: str) -> mf.Manifest | None:
    """The requirements or conda environment file ``path`` holds (a requirements file
    whatever its name when it ends in ``.txt``/``.in``: a ``.readthedocs.yaml`` may name
    any; a ``.y(a)ml`` read as a conda environment); None for other files or when unreadable. Problems are not recorded in the inventory."""
    name = path.rsplit("/", 1)[-1]
    lower = name.lower()
    text = tree.text(path)
    if text is None:
        return None
    if _REQUIREMENTS_NAME.fullmatch(name) or lower.endswith((".txt", ".in")):
        if mf.is_explicit_conda_spec(text):
            return None
        return mf.resolve_requirements(path, tree.text)
    if lower.endswith((".yml", ".yaml")):
        return tree.conda_environment(path)
    return None


def _included_by_other(manifest: mf.Manifest, found: list[mf.Manifest]) -> bool:
    return any(
        manifest.path in other.includes and other.path not in manifest.includes
        for other in found
        if other is not manifest
    )


def _with_requirement_files(tree: TreeIndex, manifest: mf.Manifest) -> mf.Manifest:
    """A setup script's or pyproject's manifest with the entries of the requirements files
    it reads its dependencies from (each entry keeps its own file and line); the
    dependencies are then known. A file that is not in the tree adds nothing."""
    found = [path for path, _ in manifest.requirement_files if tree.is_file(path) and tree.text(path) is not None]
    if not found:
        return manifest
    entries = list(manifest.dependencies)
    for path in found:
        entries += mf.resolve_requirements(path, tree.text).dependencies
    # the "not a literal" problem of install_requires is answered by the file (whose own
    # problems are its own manifest's)
    problems = [p for p in manifest.problems if "install_requires is not a literal" not in p]
    lines = [line for path, line in manifest.requirement_files if path in found and line]
    declared = manifest.declared + ([(min(lines), max(lines))] if lines else [])
    return replace(manifest, dependencies=entries, problems=problems, unknown=False, declared=declared)


# --------------------------------------------------------------------------- environments of their own

_BY_TREE: dict[str, weakref.WeakKeyDictionary] = {}


def _per_tree(kind: str, tree: TreeIndex, build: Callable[[TreeIndex], list]) -> list:
    cache = _BY_TREE.setdefault(kind, weakref.WeakKeyDictionary())
    found = cache.get(tree)
    if found is None:
        found = cache[tree] = build(tree)
    return list(found)


def packrat_locks(tree: TreeIndex) -> list[mf.Manifest]:
    """R ``packrat.lock`` lockfiles (METRICS.md §0.3 R E1: a lockfile, its ``RVersion``
    the interpreter for E4, its packages declared for C2): ``packrat/packrat.lock``, where
    packrat writes it, and one in an environment location; parsed once per tree."""

    def build(tree: TreeIndex) -> list[mf.Manifest]:
        found = []
        candidates = [f"{location}/packrat.lock".lstrip("/") for location in tree.env_locations]
        for path in dict.fromkeys(["packrat/packrat.lock", *candidates]):
            text = tree.text(path) if tree.is_file(path) else None
            if text is not None and text.strip():
                found.append(mf.parse_packrat_lock(text, path))
        return found

    return _per_tree("packrat", tree, build)


_PLUTO_PROJECT = "PLUTO_PROJECT_TOML_CONTENTS"
_PLUTO_MANIFEST = "PLUTO_MANIFEST_TOML_CONTENTS"


def pluto_environments(tree: TreeIndex) -> list[mf.Manifest]:
    """The environment each Pluto notebook embeds (METRICS.md §0.3 Julia: the notebook's
    own Project and Manifest, for E1, E4 and C2), from the Julia frontend's string facts
    bound to ``PLUTO_PROJECT_TOML_CONTENTS``/``PLUTO_MANIFEST_TOML_CONTENTS``; vendored
    notebooks left out; in path order, parsed once per tree."""

    def build(tree: TreeIndex) -> list[mf.Manifest]:
        found = []
        for path in tree.by_frontend("julia"):
            if tree.role(path) == "vendored":
                continue
            facts = tree.facts(path)
            strings = {s.binding: s for s in facts.strings if s.binding in (_PLUTO_PROJECT, _PLUTO_MANIFEST)} \
                if facts is not None else {}
            project = strings.get(_PLUTO_PROJECT)
            if project is None:
                continue
            manifest = strings.get(_PLUTO_MANIFEST)
            found.append(mf.parse_pluto_environment(
                project.value, project.line_start, manifest.value if manifest else None,
                manifest.line_start if manifest else None, path))
        return found

    return _per_tree("pluto", tree, build)


def matlab_projects(tree: TreeIndex) -> list[mf.Manifest]:
    """The MATLAB release of each toolbox packaging or deployment project (``*.prj``)
    outside vendored and test folders (METRICS.md §0.3 MATLAB E1, E4), parsed once per
    tree; other ``.prj`` files (a shapefile's projection) are not projects."""

    def build(tree: TreeIndex) -> list[mf.Manifest]:
        found = []
        for path in tree.match(r".+\.prj"):
            if tree.role(path) in ("vendored", "test"):
                continue
            text = tree.text(path)
            manifest = mf.parse_matlab_project(text, path) if text is not None else None
            if manifest is not None:
                found.append(manifest)
        return found

    return _per_tree("matlab_prj", tree, build)
