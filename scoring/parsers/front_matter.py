"""The YAML front matter of an R Markdown or Quarto document, read as lines: which
top-level keys it sets, where (S6 reads ``params:``). The header is not parsed as YAML:
a key is a line starting with a name and a colon, as R Markdown writes them."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["FrontMatter", "parse_front_matter"]

_KEY_RE = re.compile(r"([A-Za-z_][\w-]*)\s*:")


@dataclass(frozen=True)
class FrontMatter:
    path: str
    # top-level key -> (line, the line as written) of its first occurrence
    keys: dict[str, tuple[int, str]] = field(default_factory=dict)


def parse_front_matter(text: str, path: str) -> FrontMatter:
    """The keys of the header between a first line ``---`` and the next ``---`` or ``...``
    (no header: no keys)."""
    keys: dict[str, tuple[int, str]] = {}
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return FrontMatter(path, keys)
    for number, line in enumerate(lines[1:], start=2):
        if line.strip() in ("---", "..."):
            break
        match = _KEY_RE.match(line)
        if match is not None:
            keys.setdefault(match.group(1), (number, line))
    return FrontMatter(path, keys)
