"""C1 no_absolute_paths: source and parameter files contain no machine-specific absolute paths."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from scoring.detectors.portability._common import (
    _c1_frontend_files,
    _evidence,
    _files,
    _Hit,
    _join,
    _ratio_value,
)
from scoring.facts import FileFacts
from scoring.parsers.linefiles import line_literal
from scoring.parsers.secrets import mask_line, unescape
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
    # HPC scratch and project roots (§0.2.26; /project2/, /work2/ as on Midway, TACC)
    ("cluster", rf"{_START}/(?:scratch|gpfs|lustre|nfs|project\d*|projects|global|work\d*|cluster|storage)/"),
    ("cluster", rf"{_START}/n/{_SEG}/"),
    ("colab_drive", rf"{_START}/content/drive/"),
    ("user_home", r"(?<![\w~$])~[A-Za-z_][\w.\-]*/"),
    # not a format directive (MATLAB's fprintf('%s:\n'), read raw)
    ("windows_drive", r"(?<![A-Za-z0-9%])[A-Za-z]:[\\/](?![\\/])"),
)
_ABSOLUTE_PATH_RE = re.compile("|".join(f"(?P<{rule}_{i}>{rx})" for i, (rule, rx) in enumerate(_ABSOLUTE_PATH_RULES)))
_EMBEDDED_URL_RE = re.compile(r"\w+://\S+")
_PATH_TAIL_RE = re.compile(r"[^\s\"'<>|,;()\[\]{}]+")


# A piece of text every match of a rule holds (a drive letter needs its colon, a user's
# home its tilde): a value with none of them holds no path, and removing URLs (blanks
# in their place) adds none.
_RULE_HINTS = (":", "~", "/home/", "/Users/", "/root/", "/mnt/", "/Volumes/", "/scratch/", "/gpfs/", "/lustre/",
               "/nfs/", "/project", "/global/", "/work", "/cluster/", "/storage/", "/n/", "/content/drive/")


def _absolute_paths(value: str) -> Iterator[tuple[str, str, int]]:
    """``(rule, matched text, offset)`` of machine-specific paths in a decoded value,
    embedded URLs removed first (§0.1.27)."""
    if ("/" not in value and "\\" not in value) or not any(hint in value for hint in _RULE_HINTS):
        return
    cleaned = _EMBEDDED_URL_RE.sub(lambda m: " " * len(m.group(0)), value)
    for match in _ABSOLUTE_PATH_RE.finditer(cleaned):
        rule = match.lastgroup.rsplit("_", 1)[0] if match.lastgroup else "path"
        # Report the whole path, not just the prefix that identified it.
        whole = _PATH_TAIL_RE.match(cleaned, match.start())
        path = whole.group(0) if whole and len(whole.group(0)) >= len(match.group(0)) else match.group(0)
        yield rule, path[:120], match.start()


# Languages whose string literals have no escape sequences: a backslash is a backslash.
_RAW_LITERALS = frozenset({"matlab", "fortran"})

# An f-string's value shows each field as this (StringFact): its literal parts are
# matched one by one, each from the literal's first line, as ``ast`` placed them.
_FIELD = "{…}"


def _code_values(kind: str, facts: FileFacts) -> Iterator[tuple[int | None, int, str]]:
    """``(cell, first line, decoded value)`` of the literal texts of a code file's facts:
    string literals, then notebook magics and the lines of shell cells and chunks.

    Python: docstrings left out, a line-scanned value's escapes decoded, the values of a
    cell in the order of their line, then their value. R and Julia (docstrings too): in
    document order, escapes decoded (their frontends keep a literal as written); MATLAB
    and Fortran literals have no escapes (``'C:\\temp'`` is a path) and are read raw."""
    # Every path needs a slash or a backslash, and decoding escapes makes neither: values
    # without one are left out before anything else is done with them.
    if facts.language == "python":
        values: list[tuple[int | None, int, str]] = []
        for string in facts.strings:
            value = string.value
            if string.docstring or ("/" not in value and "\\" not in value):
                continue
            if string.line_scan:
                values.append((string.cell, string.line_start, unescape(value)))
            else:
                values.extend((string.cell, string.line_start, part) for part in value.split(_FIELD))
        values.sort(key=lambda value: (value[0] or 0, value[1], value[2]))
        yield from values
    else:
        raw = facts.language in _RAW_LITERALS
        for string in facts.strings:
            value = string.value
            if "/" in value or "\\" in value:
                yield string.cell, string.line_start, value if raw else unescape(value)
    if kind == "matlab":
        # command syntax (``cd /Users/me/data``): its words are call arguments, not
        # string literals; a quoted argument is a string already
        quoted = {(string.line_start, string.value) for string in facts.strings}
        for call in facts.calls:
            for arg in call.args:
                if isinstance(arg, str) and ("/" in arg or "\\" in arg) and (call.line, arg) not in quoted:
                    yield None, call.line, arg
    jupyter = kind == "notebook"
    for cell in facts.cells:
        if not cell.magics or (jupyter and cell.language not in ("python", "shell")):
            continue
        for line, magic in zip(cell.magic_lines, cell.magics, strict=True):
            if jupyter and cell.language == "shell" and line == 1 and magic.startswith("%%"):
                continue   # the %%bash line itself
            if "/" in magic or "\\" in magic:
                literal = line_literal(magic)
                if literal:
                    yield (cell.index if jupyter else None), line, literal


def _hits(path: str, values: Iterable[tuple[int | None, int, str]]) -> list[_Hit]:
    """The located hits of one file's ``(cell, first line, value)``, one per cell, line and path."""
    hits: list[_Hit] = []
    seen: set[tuple[int | None, int, str]] = set()
    for cell, first_line, value in values:
        for rule, matched, offset in _absolute_paths(value):
            line = first_line + value.count("\n", 0, offset)
            key = (cell, line, matched)
            if key in seen:
                continue
            seen.add(key)
            hits.append(_Hit(path, line, f"no_absolute_paths.{rule}", f"machine-specific absolute path '{matched}'",
                            "", cell))
    hits.sort(key=lambda h: (h.cell or 0, h.line))
    return hits


# how each ecosystem builds a path relative to the code, for the fix text
_RELATIVE_IDIOM = {
    "python": "pathlib.Path(__file__).parent", "notebook": "pathlib.Path(__file__).parent",
    "snakemake": "workflow.basedir or config entries",
    "r": "here::here()", "rmd": "here::here()", "julia": "@__DIR__",
    "matlab": "fileparts(mfilename('fullpath'))", "nextflow": "projectDir or params",
    "c_cpp": "paths given on the command line", "fortran": "paths given on the command line",
    "shell": '"$(dirname "$0")"',
}


def _relative_idioms(kinds: dict[str, str], bad_paths: list[str]) -> str:
    idioms = dict.fromkeys(_RELATIVE_IDIOM[kinds[path]] for path in bad_paths if kinds[path] in _RELATIVE_IDIOM)
    return ", ".join(idioms) or "paths relative to the file that reads them"


@detector("no_absolute_paths", version="2.2.0")
def no_absolute_paths(tree: TreeIndex) -> Result:
    """Source and parameter files contain no machine-specific absolute paths.

    What it checks:
        Every Python file, notebook code cell, R/R Markdown/Quarto, Julia and shell file,
        the MATLAB/Octave, C/C++, Fortran, Nextflow and Snakemake files (string literals,
        and MATLAB command-syntax arguments such as ``cd /Users/me/data``), vendored
        files excepted, plus parameter files (YAML/JSON/TOML/INI named like configuration or below a
        config directory) and ``.env*`` files. A file is bad when a string literal (read
        by the Python, R and Julia frontends, Python docstrings excluded; notebook magics
        and shell cells, shell, YAML, TOML, INI and .env lines without comments; JSON
        string values)
        holds a path such as ``/home/<user>/``, ``/Users/<user>/``, ``/root/…``,
        ``/mnt/<x>…/``, ``/Volumes/<x>/``, HPC roots (``/scratch/``, ``/gpfs/``,
        ``/lustre/``, ``/nfs/``, ``/project/``, ``/project2/``, ``/projects/``,
        ``/global/``, ``/work/``, ``/work2/``, ``/cluster/``, ``/storage/``), ``/n/<x>/``, ``/content/drive/``, ``~<user>/`` or any drive letter
        (``C:\\``, ``d:/``; not a format directive such as ``%s:\\n``). Escapes are
        decoded where the language has them (Python, R, Julia, C/C++, Nextflow); MATLAB
        and Fortran literals have none and are read raw, so ``'C:\\temp'`` is a path and
        ``'D:\\data\\new'`` is not cut at a newline. Embedded URLs are removed before matching. Value =
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
        ``here::here()``, Julia ``@__DIR__``, MATLAB ``fileparts(mfilename('fullpath'))``,
        Nextflow ``projectDir``), or read them from a configuration file, a command-line
        argument or an environment variable.
    Known false positives:
        Paths that are examples inside ordinary strings (help texts, error messages), and
        paths that are legitimately fixed inside a container image (``/home/jovyan/``,
        ``/root/…`` in a Dockerfile-driven script) count. Comments and docstrings never
        count. Files that do not parse (Python 2, invalid notebooks) are scanned with a
        token fallback that may include docstrings or stored outputs.
    """
    code, parameters = _files(tree)
    files = code + _c1_frontend_files(tree) + parameters
    if not files:
        return Result(100, applicable=False, reason="no source or parameter files to scan",
                      counts={"files_scanned": 0, "files_with_absolute_paths": 0})
    hits_by_file = {}
    for scanned in files:
        if scanned.facts is not None:
            values = _code_values(scanned.kind, scanned.facts)
        else:
            values = ((None, line, literal) for line, literal in scanned.lines.literals)
        hits = _hits(scanned.path, values)
        if hits:
            hits_by_file[scanned.path] = hits
    bad = len(hits_by_file)
    value = _ratio_value(bad, len(files))
    counts = {
        "files_scanned": len(files),
        "files_with_absolute_paths": bad,
        "absolute_path_hits": sum(len(h) for h in hits_by_file.values()),
        "parameter_files": len(parameters),
        "unparseable_files": sum(1 for f in files if f.unparseable),
    }
    if not bad:
        return Result(value, counts=counts, reason=f"no machine-specific absolute path in {len(files)} scanned files")
    bad_paths = sorted(hits_by_file)
    return Result(
        value,
        evidence=_evidence(hits_by_file, lambda hit: mask_line(tree.snippet(hit.path, hit.line, hit.cell) or "")),
        counts=counts,
        reason=f"{bad} of {len(files)} scanned files contain machine-specific absolute paths",
        fix=f"Replace the absolute paths in {_join(bad_paths)} with paths relative to the repository "
            f"({_relative_idioms({f.path: f.kind for f in files}, bad_paths)}) or read them from a config file, "
            "a command-line argument or an environment variable.",
    )
