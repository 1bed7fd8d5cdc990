"""What several category E detectors share: evidence helpers, the environment
locations' files, language names, Dockerfile names (E2, E4).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from scoring.tree import TreeIndex

# Evidence lists stay short enough to read; totals always go to ``counts``.
MAX_EVIDENCE = 20


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def _env_files(tree: TreeIndex) -> Iterable[str]:
    """Files directly inside the environment locations (§2.3), each once."""
    seen: set[str] = set()
    for location in tree.env_locations:
        for path in tree.files_in(location):
            if path not in seen:
                seen.add(path)
                yield path


class _Lines:
    """Lines of files for snippets (:meth:`scoring.tree.TreeIndex.line_table`, split once
    per content). Numbered as the manifest and Dockerfile parsers number them: newlines
    only, where ``str.splitlines`` would also break on form feeds."""

    def __init__(self, tree: TreeIndex) -> None:
        self._tree = tree

    def get(self, path: str, line: int | None) -> str | None:
        if not line:
            return None
        table = self._tree.line_table(path)
        if table is None:
            return None if line != 1 else ""
        return table.line(line)


def _join_names(names: Sequence[str], limit: int = 5) -> str:
    shown = ", ".join(names[:limit])
    return shown + (", …" if len(names) > limit else "")


_LANGUAGE_NAMES = {"python": "Python", "r": "R", "julia": "Julia", "js": "JavaScript"}


def _language_name(language: str) -> str:
    return _LANGUAGE_NAMES.get(language, language)


# --------------------------------------------------------------------------- container files (E2, E4)

# Dockerfile, Dockerfile.<variant>, <variant>.Dockerfile, Containerfile (§2.3: case-insensitive);
# Dockerfile-gpu / Dockerfile_cpu are as common as Dockerfile.gpu and are Dockerfiles too.
_DOCKERFILE_RE = re.compile(
    r"(?:dockerfile|containerfile)(?:[._-][^/]+)?|[^/]+\.dockerfile", re.IGNORECASE
)
# Dockerfile.md and friends document a Dockerfile; they are not one.
_DOC_SUFFIX_RE = re.compile(r".+\.(?:md|markdown|rst|html?|pdf|png|jpe?g|svg)", re.IGNORECASE)


def _named(paths: Iterable[str], pattern: re.Pattern[str]) -> list[str]:
    """The paths whose name fully matches ``pattern``, in their order."""
    return [p for p in paths if pattern.fullmatch(_name(p))]


def _dockerfiles(paths: Iterable[str]) -> list[str]:
    """The Dockerfiles among ``paths`` (documents named after one excluded)."""
    return [p for p in _named(paths, _DOCKERFILE_RE) if not _DOC_SUFFIX_RE.fullmatch(_name(p))]
