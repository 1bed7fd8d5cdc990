"""C1 no_absolute_paths: source and parameter files contain no machine-specific absolute paths."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace

from scoring.detectors.portability._common import (
    MAX_EVIDENCE,
    _evidence,
    _files,
    _Hit,
    _join,
    _ratio_value,
)
from scoring.facts import FileFacts
from scoring.model import Evidence
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
    # a printf format's conversion is no drive letter (``fprintf('%s:\n', …)`` in a MATLAB
    # char array, which keeps its backslashes)
    ("windows_drive", r"(?<![A-Za-z0-9%])[A-Za-z]:[\\/](?![\\/])"),
    # /data/<name>/: a user's root unless <name> is a dataset's (decided with the tree)
    ("data_root", rf"{_START}/data/{_SEG}/"),
)
_ABSOLUTE_PATH_RE = re.compile("|".join(f"(?P<{rule}_{i}>{rx})" for i, (rule, rx) in enumerate(_ABSOLUTE_PATH_RULES)))
_EMBEDDED_URL_RE = re.compile(r"\w+://\S+")
_PATH_TAIL_RE = re.compile(r"[^\s\"'<>|,;()\[\]{}]+")


# A piece of text every match of a rule holds (a drive letter needs its colon, a user's
# home its tilde): a value with none of them holds no path, and removing URLs (blanks
# in their place) adds none.
_RULE_HINTS = (":", "~", "/home/", "/Users/", "/root/", "/mnt/", "/Volumes/", "/scratch/", "/gpfs/", "/lustre/",
               "/nfs/", "/project", "/global/", "/work", "/cluster/", "/storage/", "/n/", "/content/drive/",
               "/data/")


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


# An f-string's value shows each field as this (StringFact): its literal parts are
# matched one by one, each from the literal's first line, as ``ast`` placed them.
_FIELD = "{…}"


# The frontends that keep a literal as written, backslash escapes and all: their values
# are decoded here. Python and Snakemake literals come decoded from ``ast``; MATLAB and
# Fortran literals have no escapes (``'C:\temp'`` is a path, not C, colon and a tab).
_ESCAPED_LANGUAGES = frozenset({"r", "julia", "c", "cpp", "nextflow"})


def _code_values(kind: str, facts: FileFacts) -> Iterator[tuple[int | None, int, str]]:
    """``(cell, first line, decoded value)`` of the literal texts of a code file's facts:
    string literals, then notebook magics and the lines of shell cells and chunks.

    Docstrings are left out in every language (METRICS.md §0.2.4: Python and Julia
    docstrings, Snakemake rule docstrings are documentation). Python: a line-scanned
    value's escapes decoded, the values of a cell in the order of their line, then their
    value. Other languages in document order, escapes decoded where the language has
    them and its frontend keeps the literal as written (R, Julia, C/C++, Nextflow)."""
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
        decode = facts.language in _ESCAPED_LANGUAGES
        for string in facts.strings:
            value = string.value
            if not string.docstring and ("/" in value or "\\" in value):
                yield string.cell, string.line_start, unescape(value) if decode else value
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
    # the cells of another language than the file's own (a Julia- or R-kernel notebook,
    # %%R cells, the Python chunks of an R Markdown document) are parsed by their
    # language's frontend: their literals are code of the file like its own (§0.1.9)
    for inner in facts.embedded:
        yield from _code_values("embedded", inner)


# A sed substitution ``s<d>pattern<d>replacement<d>flags`` (any delimiter but a letter,
# digit, blank or backslash): in a value that runs sed, or a value that is one whole
# expression (``["sed", "-i", "s|/home/a|b|", f]``). The pattern only says what text to
# replace, a path there is never opened (§0.2.26).
_SED_SUBSTITUTION_RE = re.compile(
    r"(?<![\w/\\])s(?P<d>[^\w\s\\])(?P<pattern>(?:\\.|(?!(?P=d)).)*)(?P=d)(?:\\.|(?!(?P=d)).)*(?P=d)[a-zA-Z0-9]*",
    re.DOTALL)
_SED_WORD_RE = re.compile(r"(?<![\w.-])sed(?![\w.-])")


def _sed_patterns(value: str) -> list[tuple[int, int]]:
    """The spans of the pattern operands of the sed substitutions in ``value``."""
    if "s" not in value:
        return []
    runs_sed = _SED_WORD_RE.search(value)
    if runs_sed is None:
        whole = _SED_SUBSTITUTION_RE.fullmatch(value.strip())
        return [whole.span("pattern")] if whole else []
    return [m.span("pattern") for m in _SED_SUBSTITUTION_RE.finditer(value, runs_sed.end())]


@dataclass(frozen=True)
class _Judge:
    """What C1 needs from the rest of the tree to tell a machine path from a path that
    only looks like one (METRICS.md §0.2.26, §0.3 native)."""

    container_paths: tuple[str, ...]   # WORKDIR/COPY/ADD places of the tree's Dockerfiles
    folder_names: frozenset[str]       # lower-cased names of the tree's folders

    def not_machine_specific(self, rule: str, path: str) -> tuple[str, str] | None:
        """The rule id and the reason of a path that is no machine path (a container
        path, a dataset's /data root), else None."""
        for place in self.container_paths:
            if path == place or path.startswith(place.rstrip("/") + "/"):
                return "no_absolute_paths.container_path", f"a path under {place}, which a Dockerfile of the tree builds"
        if rule == "data_root":
            name = path.split("/")[2]
            why = _dataset_name(name, self.folder_names)
            if why:
                return "no_absolute_paths.dataset_root", f"'{name}' {why}, so /data/{name}/ is not a user's folder"
        return None


# A Unix login (useradd's default NAME_REGEX): lower case, a letter or underscore first.
_LOGIN_RE = re.compile(r"[a-z_][a-z0-9_.\-]{0,31}")
# The user running the code, as a shell or a batch script names them (/data/$USER/).
_CURRENT_USER_RE = re.compile(r"\$\{?(?:USER|LOGNAME|USERNAME)\}?|%USERNAME%")
# Folder names that say what data a /data/<name>/ folder holds, never whose it is
# (/data/users/<user>/ holds users' folders: a user root, it counts).
_DATA_WORDS = frozenset({
    "annotation", "annotations", "cache", "common", "data", "database", "databases", "dataset", "datasets", "db",
    "demo", "derived", "example", "examples", "external", "figures", "genome", "genomes", "images", "input",
    "inputs", "interim", "intermediate", "logs", "models", "output", "outputs", "processed", "public", "raw",
    "ref", "reference", "references", "refs", "result", "results", "sample", "samples", "shared", "sim",
    "simulations", "test", "testing", "tmp", "temp", "train", "training", "val", "valid", "validation",
})


def _dataset_name(name: str, folder_names: frozenset[str]) -> str:
    """Why ``name`` in ``/data/<name>/`` names a dataset rather than a user ("" when it
    may be a user's): it is no login (capitals, digits only), a word for a kind of data,
    or the name of a folder of the tree (the deposit's own data, mounted or copied there)."""
    lowered = name.lower()
    if _CURRENT_USER_RE.fullmatch(name):
        return ""
    if not _LOGIN_RE.fullmatch(name) or name.isdigit():
        return "is no login name"
    if lowered in _DATA_WORDS:
        return "names a kind of data"
    if lowered in folder_names:
        return "is a folder of this deposit"
    return ""


_DOCKERFILE_NAME = r"(?:dockerfile|containerfile)(?:[._-][^/]+)?|[^/]+\.dockerfile"
_NOT_A_DOCKERFILE = (".md", ".markdown", ".rst", ".txt", ".html", ".pdf", ".png", ".svg")


def _judge(tree: TreeIndex) -> _Judge:
    places: list[str] = []
    for path in tree.match(_DOCKERFILE_NAME):
        if path.lower().endswith(_NOT_A_DOCKERFILE) or tree.role(path) == "vendored":
            continue
        dockerfile = tree.dockerfile(path)
        if dockerfile is not None:
            places.extend(p for p in dockerfile.container_paths() if p not in places)
    folders = frozenset(part.lower() for path in tree.files for part in path.split("/")[:-1])
    return _Judge(tuple(places), folders)


def _hits(path: str, values: Iterable[tuple[int | None, int, str]],
          judge: _Judge) -> tuple[list[_Hit], list[_Hit]]:
    """The located hits of one file's ``(cell, first line, value)``, one per cell, line and
    path: those that count, and the paths that only look machine-specific (a sed pattern,
    a container path, a dataset's /data root)."""
    hits: list[_Hit] = []
    ignored: list[_Hit] = []
    seen: set[tuple[int | None, int, str]] = set()
    for cell, first_line, value in values:
        sed = None
        for rule, matched, offset in _absolute_paths(value):
            line = first_line + value.count("\n", 0, offset)
            key = (cell, line, matched)
            if key in seen:
                continue
            seen.add(key)
            if sed is None:
                sed = _sed_patterns(value)
            if any(start <= offset < stop for start, stop in sed):
                ignored.append(_Hit(path, line, "no_absolute_paths.sed_pattern",
                                    f"'{matched}' not counted: the pattern of a sed substitution, no path in use",
                                    "", cell))
                continue
            not_machine = judge.not_machine_specific(rule, matched)
            if not_machine is not None:
                rule_id, why = not_machine
                ignored.append(_Hit(path, line, rule_id, f"'{matched}' not counted: {why}", "", cell))
                continue
            hits.append(_Hit(path, line, f"no_absolute_paths.{rule}", f"machine-specific absolute path '{matched}'",
                             "", cell))
    hits.sort(key=lambda h: (h.cell or 0, h.line))
    return hits, ignored


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


_NOT_COUNTED_SHOWN = 5


def _not_counted(ignored_by_file: dict[str, list[_Hit]], room: int, snippet_of: Callable[[_Hit], str]) -> list[Evidence]:
    """Paths that look machine-specific but are not (a sed pattern, a container path, a
    dataset's /data root): what a reader checks after being told; each file's first
    before a second, up to five."""
    firsts = [hits[0] for _, hits in sorted(ignored_by_file.items())]
    rest = [hit for _, hits in sorted(ignored_by_file.items()) for hit in hits[1:]]
    return [replace(hit, snippet=snippet_of(hit)).evidence() for hit in (firsts + rest)[:min(room, _NOT_COUNTED_SHOWN)]]


@detector("no_absolute_paths", version="2.3.0")
def no_absolute_paths(tree: TreeIndex) -> Result:
    """Source and parameter files contain no machine-specific absolute paths.

    What it checks:
        Every Python file, notebook code cell (in every language the notebook holds: a
        Julia- or R-kernel notebook's cells, ``%%R`` cells, an R Markdown document's
        Python and Julia chunks, each with its cell and line), R/R Markdown/Quarto,
        Julia and shell file,
        the MATLAB/Octave, C/C++, Fortran, Nextflow and Snakemake files (string literals,
        and MATLAB command-syntax arguments such as ``cd /Users/me/data``), vendored
        files excepted, plus parameter files (YAML/JSON/TOML/INI named like configuration
        or below a config directory) and ``.env*`` files: the files C3 scans. A file is
        bad when a string literal (docstrings excluded in every language, METRICS.md
        §0.2.4: Python, Julia and Snakemake docstrings are text; notebook magics and
        shell cells, shell, YAML, TOML, INI and .env lines without comments; JSON string
        values) holds a path such as ``/home/<user>/``, ``/Users/<user>/``, ``/root/…``,
        ``/mnt/<x>…/``, ``/Volumes/<x>/``, HPC roots (``/scratch/``, ``/gpfs/``,
        ``/lustre/``, ``/nfs/``, ``/project/``, ``/project2/``, ``/projects/``,
        ``/global/``, ``/work/``, ``/work2/``, ``/cluster/``, ``/storage/``),
        ``/n/<x>/``, ``/content/drive/``, ``~<user>/``, ``/data/<user>/`` or any drive
        letter (``C:\\``, ``d:/``; not a format's ``%s:``). Escapes are decoded where
        the language has them (R, Julia, C/C++, Nextflow; Python's come decoded); a
        MATLAB or Fortran literal is read as written (``'C:\\temp'``). Embedded URLs
        are removed before matching. Not counted (§0.2.26, §0.3 native): a path that is
        only the pattern of a sed substitution (``sed -i 's|/home/me/proj|.|'``), a
        path under a place a Dockerfile of the tree builds (its ``WORKDIR`` and
        ``COPY``/``ADD`` destinations: ``/home/jovyan/work``, ``/work/app``), and
        ``/data/<name>/`` when ``<name>`` is a dataset's, not a user's: no login (capitals,
        only digits, a workflow wildcard), a word for a kind of data (``raw``,
        ``processed``, ``datasets``, ``reference``…) or the name of a folder of the tree
        (``/data/$USER/`` is a user's). Value = 100·(1 − bad files /
        scanned files); no scanned file → 100, not applicable.
    Why it matters:
        A path that only exists on the author's machine makes the code fail on every
        other machine, usually after a long setup, and hides which input it needs.
    Evidence:
        Hits as path, line (and notebook cell), the matched path and the line as
        snippet: the parameter files' first (the line a re-user edits), then one hit per
        folder, then the other files', at most three per file and twenty in all. Then up
        to five paths that look machine-specific but were not counted, with the reason.
        Counts: scanned and bad files, hits, paths not counted, parameter files and files
        scanned with a fallback because they do not parse.
    How to fix:
        Build paths relative to the repository in the file's own language
        (``pathlib.Path(__file__).parent``, R ``here::here()``, Julia ``@__DIR__``,
        MATLAB ``fileparts(mfilename('fullpath'))``, Nextflow ``projectDir`` or
        ``params``, Snakemake ``workflow.basedir`` or ``config``, shell
        ``"$(dirname "$0")"``, C/C++/Fortran paths given on the command line), or read
        them from a configuration file, a command-line argument or an environment variable.
    Known false positives:
        Paths that are examples inside ordinary strings (help texts, error messages), and
        paths that are fixed inside a container image the tree does not build itself
        (``/home/jovyan/`` with no Dockerfile) count; so does ``/data/<name>/`` for a
        well-known dataset the tree does not ship (``/data/mnist/``). Comments and
        docstrings never count. Files that do not parse (Python 2, invalid notebooks)
        are scanned with a token fallback that may include docstrings or stored outputs.
    """
    code, parameters = _files(tree)
    files = code + parameters
    if not files:
        return Result(100, applicable=False, reason="no source or parameter files to scan",
                      counts={"files_scanned": 0, "files_with_absolute_paths": 0})
    judge = _judge(tree)
    hits_by_file: dict[str, list[_Hit]] = {}
    ignored_by_file: dict[str, list[_Hit]] = {}
    for scanned in files:
        if scanned.facts is not None:
            values = _code_values(scanned.kind, scanned.facts)
        else:
            values = ((None, line, literal) for line, literal in scanned.lines.literals)
        hits, ignored = _hits(scanned.path, values, judge)
        if hits:
            hits_by_file[scanned.path] = hits
        if ignored:
            ignored_by_file[scanned.path] = ignored
    bad = len(hits_by_file)
    value = _ratio_value(bad, len(files))
    counts = {
        "files_scanned": len(files),
        "files_with_absolute_paths": bad,
        "absolute_path_hits": sum(len(h) for h in hits_by_file.values()),
        "paths_not_counted": sum(len(h) for h in ignored_by_file.values()),
        "parameter_files": len(parameters),
        "unparseable_files": sum(1 for f in files if f.unparseable),
    }
    def snippet_of(hit: _Hit) -> str:
        return mask_line(tree.snippet(hit.path, hit.line, hit.cell) or "")

    if not bad:
        return Result(value, counts=counts, evidence=_not_counted(ignored_by_file, _NOT_COUNTED_SHOWN, snippet_of),
                      reason=f"no machine-specific absolute path in {len(files)} scanned files")
    bad_paths = sorted(hits_by_file)
    evidence = _evidence(hits_by_file, snippet_of, first={f.path for f in parameters})
    return Result(
        value,
        evidence=evidence + _not_counted(ignored_by_file, MAX_EVIDENCE - len(evidence), snippet_of),
        counts=counts,
        reason=f"{bad} of {len(files)} scanned files contain machine-specific absolute paths",
        fix=f"Replace the absolute paths in {_join(bad_paths)} with paths relative to the repository "
            f"({_relative_idioms({f.path: f.kind for f in files}, bad_paths)}) or read them from a config file, "
            "a command-line argument or an environment variable.",
    )
