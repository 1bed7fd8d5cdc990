"""Runtime releases a prose document states for MATLAB and Octave (METRICS.md §0.3:
"a README or ``*.prj`` statement of the MATLAB release … → bounded tier" for E1, "release
stated in README" for E4).

MATLAB and Octave code declares no version anywhere a tool reads, so the README's
requirements prose is where a deposit says which release it runs on: "MATLAB R2019b or
newer", "tested in version r2016a" (in a sentence about MATLAB), "Octave 5.2.0 or newer".
Only rendered prose counts (a code block naming a release is not a statement), and a
release alone without MATLAB in the same paragraph does not count.

A changelog is history, not a requirement: a release named in a section headed "Version
history", "Changelog", "Changes", "Release notes", "News" or "History", or on a line that
opens with a version tag ("v2.4 - fixing issue … for Matlab 2020a"), is not stated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .markdown import Document

__all__ = ["StatedRelease", "stated_releases"]


@dataclass(frozen=True)
class StatedRelease:
    product: str   # "MATLAB" or "Octave"
    release: str   # "R2019b", "5.2.0"
    line: int
    text: str      # the statement's line, stripped


_MATLAB_RE = re.compile(r"(?<![A-Za-z0-9])matlab(?![A-Za-z0-9])", re.IGNORECASE)
# R2019b, r2016a, "MATLAB 2019b", "MATLAB 9.7"
_MATLAB_RELEASE_RE = re.compile(
    r"(?<![A-Za-z0-9])R(20\d\d[ab])(?![A-Za-z0-9])|matlab\W{0,3}(?:version\s+)?(20\d\d[ab]|\d+\.\d+)(?![\w.])",
    re.IGNORECASE,
)
_OCTAVE_RELEASE_RE = re.compile(
    r"(?<![A-Za-z0-9])octave\W{0,3}(?:version\s+|v)?(\d+\.\d+(?:\.\d+)?)(?![\w.])", re.IGNORECASE
)


# the headings of a changelog: what a release fixed, not what the code needs
_HISTORY_HEADING_RE = re.compile(
    r"\b(?:version\s+history|change\s?log|changes|release\s+notes|news|history|what'?s\s+new)\b", re.IGNORECASE
)
# a changelog entry: "v2.4 - fixing …", "- 1.2.0: …", "* v3.0 – …"
_VERSION_ENTRY_RE = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?v?\d+(?:\.\d+)+[a-z]?\s*[-:\u2013\u2014]", re.IGNORECASE)


def stated_releases(document: Document) -> tuple[StatedRelease, ...]:
    """Every MATLAB or Octave release stated in the document's prose, in line order,
    outside changelog sections and changelog entries."""
    found = [s for s in _named_releases(document) if not _in_history(document, s.line)]
    return tuple(found)


def _in_history(document: Document, line: int) -> bool:
    if 0 < line <= len(document.raw_lines) and _VERSION_ENTRY_RE.match(document.raw_lines[line - 1]):
        return True
    return any(section.line_start <= line <= section.line_end and _HISTORY_HEADING_RE.search(section.heading.text)
               for section in document.sections)


def _named_releases(document: Document) -> list[StatedRelease]:
    found: list[StatedRelease] = []
    for paragraph in document.paragraphs:
        text = paragraph.text
        if _MATLAB_RE.search(text):
            for match in _MATLAB_RELEASE_RE.finditer(text):
                release = match.group(1) or match.group(2)
                release = f"R{release}" if release[:2] == "20" else release
                found.append(_statement(document, paragraph, "MATLAB", release.replace("r", "R", 1)))
        for match in _OCTAVE_RELEASE_RE.finditer(text):
            found.append(_statement(document, paragraph, "Octave", match.group(1)))
    found.sort(key=lambda s: s.line)
    return found


def _statement(document: Document, paragraph, product: str, release: str) -> StatedRelease:
    """The release with the source line that holds it (a paragraph may span lines)."""
    token = release.lstrip("R").lower()
    for number in range(paragraph.line_start, paragraph.line_end + 1):
        if 0 < number <= len(document.raw_lines) and token in document.raw_lines[number - 1].lower():
            return StatedRelease(product, release, number, document.raw_lines[number - 1].strip()[:200])
    return StatedRelease(product, release, paragraph.line_start, paragraph.text.strip()[:200])
