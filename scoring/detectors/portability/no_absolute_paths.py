"""C1 no_absolute_paths: source and parameter files contain no machine-specific absolute paths."""

from __future__ import annotations

import re
from collections.abc import Iterator

from scoring.detectors.portability._common import (
    _evidence,
    _Hit,
    _join,
    _line_at,
    _mask_line,
    _ratio_value,
    _scan,
    _ScannedFile,
    _Segment,
    _strip_comment,
    _unescape,
)
from scoring.registry import Result, detector
from scoring.tree import TreeIndex

_SEG = r"[^/\s\"'\\)>]+"
_START = r"(?<![\w.~\-/])"
_ABSOLUTE_PATH_RULES = (
    ("home", rf"{_START}/home/{_SEG}/"),
    ("macos_users", rf"{_START}/Users/{_SEG}/"),
    ("root", rf"{_START}/root/{_SEG}"),
    ("mnt", rf"{_START}/mnt/[A-Za-z][^/\s\"'\\)>]*/"),
    ("volumes", rf"{_START}/Volumes/{_SEG}/"),
    ("cluster", rf"{_START}/(?:scratch|gpfs|lustre|nfs)/"),
    ("cluster", rf"{_START}/n/{_SEG}/"),
    ("colab_drive", rf"{_START}/content/drive/"),
    ("user_home", r"(?<![\w~$])~[A-Za-z_][\w.\-]*/"),
    ("windows_drive", r"(?<![A-Za-z0-9])[A-Za-z]:[\\/](?![\\/])"),
)
_ABSOLUTE_PATH_RE = re.compile("|".join(f"(?P<{rule}_{i}>{rx})" for i, (rule, rx) in enumerate(_ABSOLUTE_PATH_RULES)))
# Loose form of the rules above, run over raw text (escapes not decoded) to skip files
# that cannot hold a hit.
# One pattern per leading literal: a search that starts with a fixed character skips
# through the text at memchr speed, while one alternation that starts with a lookbehind
# is tried at every position (ten times slower on a typical module).
_PATH_HINT_DIRS = frozenset(
    {"home", "Users", "root", "mnt", "Volumes", "scratch", "gpfs", "lustre", "nfs", "n", "content"}
)
_PATH_HINT_SLASH_RE = re.compile(f"/(?:{'|'.join(sorted(_PATH_HINT_DIRS))})/")
_PATH_HINT_TILDE_RE = re.compile(r"~[A-Za-z_]")
_PATH_HINT_DRIVE_RE = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]:[\\/]")
# The drive pattern's separator alone, searched first: faster than two substring tests
# for ":/" and ":\\", whose frequent first character ``:`` keeps stopping the scan.
_DRIVE_SEPARATOR_RE = re.compile(r":[\\/]")


def _may_hold_path(text: str, words: frozenset[str] | None = None) -> bool:
    """Whether ``text`` may hold a path; ``words`` (``CodeUnit.words`` of ``text``) rule out
    the slash pattern without a search, as its directory stands between slashes as a word."""
    return bool(
        ((words is None or not words.isdisjoint(_PATH_HINT_DIRS)) and _PATH_HINT_SLASH_RE.search(text))
        or ("~" in text and _PATH_HINT_TILDE_RE.search(text))
        or (_DRIVE_SEPARATOR_RE.search(text) and _PATH_HINT_DRIVE_RE.search(text))
    )


_EMBEDDED_URL_RE = re.compile(r"\w+://\S+")
_JSON_STRING_RE = re.compile(r'"((?:[^"\\]|\\.)*)"')
_PATH_TAIL_RE = re.compile(r"[^\s\"'<>|,;()\[\]{}]+")


def _absolute_paths(value: str) -> Iterator[tuple[str, str, int]]:
    """``(rule, matched text, offset)`` of machine-specific paths in a decoded value,
    embedded URLs removed first (§0.1.27)."""
    if "/" not in value and "\\" not in value:
        return
    cleaned = _EMBEDDED_URL_RE.sub(lambda m: " " * len(m.group(0)), value)
    for match in _ABSOLUTE_PATH_RE.finditer(cleaned):
        rule = match.lastgroup.rsplit("_", 1)[0] if match.lastgroup else "path"
        # Report the whole path, not just the prefix that identified it.
        whole = _PATH_TAIL_RE.match(cleaned, match.start())
        path = whole.group(0) if whole and len(whole.group(0)) >= len(match.group(0)) else match.group(0)
        yield rule, path[:120], match.start()


def _c1_string_values(segment: _Segment) -> Iterator[tuple[str, int]]:
    """``(decoded string value, first line)`` of the string literals of a code segment."""
    if not _may_hold_path(segment.text, segment.unit.words if segment.unit is not None else None):
        return  # no candidate anywhere in the text: skip the string extraction
    if segment.language == "python" and segment.unit is not None:
        unit = segment.unit
        fallback = unit.tree is None
        for literal in unit.string_literals:
            yield (_unescape(literal.value) if fallback else literal.value), literal.line_start
    elif segment.language in ("r", "julia"):
        for tok in segment.tokens:
            if tok.kind == "str":
                yield tok.text, tok.line
    elif segment.language == "json":
        for number, line in enumerate(segment.lines, start=1):
            for match in _JSON_STRING_RE.finditer(line):
                yield _unescape(match.group(1)), number
    else:
        # Shell, YAML, TOML, INI and .env: each line without its comment.
        markers = "#;" if segment.language == "ini" else "#"
        for number, line in enumerate(segment.lines, start=1):
            if "/" not in line and "\\" not in line:
                continue  # every pattern needs a slash or a backslash
            code = _strip_comment(line, markers)
            if code.strip():
                # Backslashes in these lines are literal; only a doubled one is an escape.
                yield code.replace("\\\\", "\\"), number


def _c1_hits(scanned: _ScannedFile) -> list[_Hit]:
    hits: list[_Hit] = []
    seen: set[tuple[int | None, int, str]] = set()
    for segment in scanned.segments:
        for value, first_line in _c1_string_values(segment):
            for rule, matched, offset in _absolute_paths(value):
                line = first_line + value.count("\n", 0, offset)
                key = (segment.cell, line, matched)
                if key in seen:
                    continue
                seen.add(key)
                hits.append(_Hit(
                    scanned.path, line + segment.line_offset, f"no_absolute_paths.{rule}",
                    f"machine-specific absolute path '{matched}'",
                    _mask_line(_line_at(segment.lines, line)), segment.cell,
                ))
    hits.sort(key=lambda h: (h.cell or 0, h.line))
    return hits


@detector("no_absolute_paths", version="2.0.0")
def no_absolute_paths(tree: TreeIndex) -> Result:
    """Source and parameter files contain no machine-specific absolute paths.

    What it checks:
        Every Python file, notebook code cell, R/R Markdown/Quarto, Julia and shell file,
        plus parameter files (YAML/JSON/TOML/INI named like configuration or below a
        config directory) and ``.env*`` files. A file is bad when a string literal (Python
        via its AST, docstrings excluded; R/Julia via their tokens; notebook magics and
        shell, YAML, TOML, INI and .env lines without comments; JSON string values)
        holds a path such as ``/home/<user>/``, ``/Users/<user>/``, ``/root/…``,
        ``/mnt/<x>…/``, ``/Volumes/<x>/``, ``/scratch/``, ``/gpfs/``, ``/lustre/``,
        ``/nfs/``, ``/n/<x>/``, ``/content/drive/``, ``~<user>/`` or any drive letter
        (``C:\\``, ``d:/``). Embedded URLs are removed before matching. Value =
        100·(1 − bad files / scanned files); no scanned file → 100, not applicable.
    Why it matters:
        A path that only exists on the author's machine makes the code fail on every
        other machine, usually after a long setup, and hides which input it needs.
    Evidence:
        Each hit as path, line (and notebook cell), the matched path and the line as
        snippet; at most three per file. Counts: scanned and bad files, hits, parameter
        files and files scanned with a fallback because they do not parse.
    How to fix:
        Build paths relative to the repository (``pathlib.Path(__file__).parent``, R
        ``here::here()``), or read them from a configuration file, a command-line
        argument or an environment variable.
    Known false positives:
        Paths that are examples inside ordinary strings (help texts, error messages), and
        paths that are legitimately fixed inside a container image (``/home/jovyan/``,
        ``/root/…`` in a Dockerfile-driven script) count. Comments and docstrings never
        count. Files that do not parse (Python 2, invalid notebooks) are scanned with a
        token fallback that may include docstrings or stored outputs.
    """
    scan = _scan(tree)
    files = scan.code + scan.parameters
    if not files:
        return Result(100, applicable=False, reason="no source or parameter files to scan",
                      counts={"files_scanned": 0, "files_with_absolute_paths": 0})
    hits_by_file = {f.path: hits for f in files if (hits := _c1_hits(f))}
    bad = len(hits_by_file)
    value = _ratio_value(bad, len(files))
    counts = {
        "files_scanned": len(files),
        "files_with_absolute_paths": bad,
        "absolute_path_hits": sum(len(h) for h in hits_by_file.values()),
        "parameter_files": len(scan.parameters),
        "unparseable_files": sum(1 for f in files if f.unparseable),
    }
    if not bad:
        return Result(value, counts=counts, reason=f"no machine-specific absolute path in {len(files)} scanned files")
    bad_paths = sorted(hits_by_file)
    return Result(
        value,
        evidence=_evidence(hits_by_file),
        counts=counts,
        reason=f"{bad} of {len(files)} scanned files contain machine-specific absolute paths",
        fix=f"Replace the absolute paths in {_join(bad_paths)} with paths relative to the repository "
            "(pathlib.Path(__file__).parent, here::here()) or read them from a config file or environment variable.",
    )
