"""Find and parse every dependency manifest of a tree (used through ``tree.manifests()``).

Manifests are looked for in the environment locations (METRICS.md §2.3, §0.1.14):
requirements files (``requirements*.txt``, any ``.txt`` under ``requirements/``, following
``-r``/``-c``), ``pyproject.toml``, ``setup.cfg``, ``setup.py``, ``Pipfile``, conda
``environment.y(a)ml``, R ``DESCRIPTION`` and Julia ``Project.toml``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .parsers import manifests as mf
from .tree import CONDA_ENV_DIRS

if TYPE_CHECKING:
    from .tree import TreeIndex

_REQUIREMENTS_NAME = re.compile(r"(?:.*[-_.])?requirements(?:[-_.].*)?\.(?:txt|in|pip)|requires\.txt", re.IGNORECASE)
_CONDA_NAME = re.compile(r"(?:.*[-_.])?environment(?:[-_.].*)?\.ya?ml", re.IGNORECASE)


def collect_manifests(tree: TreeIndex) -> list[mf.Manifest]:
    found: list[mf.Manifest] = []
    seen: set[str] = set()

    def read(path: str) -> str | None:
        return tree.text(path)

    for location in tree.env_locations:
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
                for problem in manifest.problems:
                    # Parser messages read "path:line: message"; the inventory keys by path.
                    tree.problem(path, problem.removeprefix(f"{path}:").lstrip(" "))
                found.append(manifest)
    # A file reached only through -r from another manifest is not scored on its own,
    # unless the two include each other.
    return [m for m in found if not _included_by_other(m, found)]


def _included_by_other(manifest: mf.Manifest, found: list[mf.Manifest]) -> bool:
    return any(
        manifest.path in other.includes and other.path not in manifest.includes
        for other in found
        if other is not manifest
    )
