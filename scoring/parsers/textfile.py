"""Plain text and configuration files read once for what detectors look up in them.

No detector scans a file's text: what it needs from a text file no other parser covers
(a licence's first line, the line a configuration key is set on, an INI file's
sections) is read here, once per content, and reached through the tree index
(:meth:`scoring.tree.TreeIndex.line_table`, :meth:`~scoring.tree.TreeIndex.key_lines`,
:meth:`~scoring.tree.TreeIndex.ini`).
"""

from __future__ import annotations

import configparser
import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class LineTable:
    """The lines of a text, numbered as the manifest and Dockerfile parsers number them
    (newlines only, ``\\r\\n`` and ``\\r`` read as newlines), and its first non-blank line
    in ``str.splitlines`` terms."""

    lines: tuple[str, ...]
    first_nonblank: str | None

    def line(self, number: int | None) -> str | None:
        """Line ``number`` (1-based), None when there is no such line."""
        if not number:
            return None
        return self.lines[number - 1] if 0 < number <= len(self.lines) else None

    @property
    def blank(self) -> bool:
        """Whether the text holds nothing but whitespace."""
        return self.first_nonblank is None


def line_table(text: str) -> LineTable:
    first = next((line for line in text.splitlines() if line.strip()), None)
    return LineTable(tuple(text.replace("\r\n", "\n").replace("\r", "\n").split("\n")), first)


# a key at the start of a line: ``key:``, ``key =``, ``"key" =``, ``'key':``
_LINE_KEY = re.compile(r"^[ \t\f\v]*([\"']?)([^\s\"':=]+)[\"']?[ \t\f\v]*([:=])", re.MULTILINE)
# a JSON member name anywhere: ``"key":``
_JSON_MEMBER = re.compile(r"\"([^\"\\\n]*)\"\s*:")


@dataclass(frozen=True)
class KeyLines:
    """Where keys are set in a configuration text (YAML, TOML, INI, JSON).

    ``keys`` maps (key, separator, quoted) to the line of its first setting at the start
    of a line. That line is where a multi-line ``^\\s*key`` search starts its match: the
    first of the whitespace-only lines right before the key's line (the line of the key
    when none is). ``members`` maps a JSON member name to the line of its first ``"name":``
    and that line's text (``str.splitlines``)."""

    keys: dict[tuple[str, str, bool], int] = field(default_factory=dict)
    members: dict[str, tuple[int, str]] = field(default_factory=dict)

    def line_of(self, key: str, separator: str, *, quoted: bool | None = None) -> int | None:
        """The line ``key`` is first set on with ``separator`` (``quoted``: only quoted,
        only bare, or None: either)."""
        lines = [self.keys.get((key, separator, q)) for q in ((False, True) if quoted is None else (quoted,))]
        lines = [line for line in lines if line is not None]
        return min(lines) if lines else None


def key_lines(text: str) -> KeyLines:
    keys: dict[tuple[str, str, bool], int] = {}
    line, position = 1, 0
    for match in _LINE_KEY.finditer(text):
        at = match.start()
        line += text.count("\n", position, at)
        position = at
        key = (match.group(2), match.group(3), bool(match.group(1)))
        if key in keys:
            continue
        # the search's ^\s* starts on the line after the last one with content before
        back = at
        while back > 0 and text[back - 1].isspace():
            back -= 1
        keys[key] = (line - text.count("\n", back, at) + 1) if back > 0 else 1
    members: dict[str, tuple[int, str]] = {}
    if '"' in text:
        lines = None
        for match in _JSON_MEMBER.finditer(text):
            name = match.group(1)
            if name in members:
                continue
            number = text.count("\n", 0, match.start()) + 1
            if lines is None:
                lines = text.splitlines()
            members[name] = (number, lines[number - 1] if number <= len(lines) else "")
    return KeyLines(keys, members)


def ini_sections(text: str) -> dict[str, dict[str, str]] | None:
    """An INI file (``setup.cfg``) as sections of options, as ``configparser`` reads it
    (no interpolation, duplicates allowed); None when it does not parse."""
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    return {section: dict(parser.items(section, raw=True)) for section in parser.sections()}


def strip_hash_comment(line: str) -> str:
    """``line`` without a trailing ``#`` comment (R, Julia, Python, shell), quotes and
    backslash escapes respected."""
    if "#" not in line:
        return line
    quote = ""
    escaped = False
    for index, char in enumerate(line):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif quote:
            if char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "#":
            return line[:index]
    return line


def strip_unquoted_comment(line: str, markers: str = "#") -> str:
    """``line`` up to an unquoted comment marker that starts the line or follows whitespace
    (shell, YAML, TOML, INI and ``.env`` lines; no backslash escapes)."""
    if not any(marker in line for marker in markers):
        return line
    quote = ""
    for index, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in markers and (index == 0 or line[index - 1].isspace()):
            return line[:index]
    return line
