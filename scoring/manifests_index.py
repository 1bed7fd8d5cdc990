"""Find and parse every dependency manifest of a tree (used through ``tree.manifests()``).

Manifests are looked for in the environment locations (METRICS.md §2.3, §0.1.14):
requirements files (``requirements*.txt``, any ``.txt`` under ``requirements/``, following
``-r``/``-c``), ``pyproject.toml``, ``setup.cfg``, ``setup.py``, ``Pipfile``, conda
``environment.y(a)ml``, R ``DESCRIPTION`` and Julia ``Project.toml``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from .parsers import manifests as mf
from .tree import CONDA_ENV_DIRS

if TYPE_CHECKING:
    from .tree import TreeIndex

_REQUIREMENTS_NAME = re.compile(r"(?:.*[-_.])?requirements(?:[-_.].*)?\.(?:txt|in|pip)|requires\.txt", re.IGNORECASE)
_CONDA_NAME = re.compile(r"(?:.*[-_.])?environment(?:[-_.].*)?\.ya?ml", re.IGNORECASE)


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
