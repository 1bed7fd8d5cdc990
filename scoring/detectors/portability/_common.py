"""What the category C detectors share: the files C1 and C3 scan (code files with their
frontend's facts, :meth:`~scoring.tree.TreeIndex.code_facts`; shell, parameter and
``.env`` files read line by line by :meth:`~scoring.tree.TreeIndex.line_file`), located
hits and their evidence. C1 and C3 scan the same files: C1 reads the string literals of
the facts (and the literal texts of line files), C3 their credentials (``FileFacts.credentials``,
``LineFile.credentials``: decided and masked where the file is read, so no secret ever
reaches a detector). C2 reads ImportFacts and InstallFacts, C4 HandlerFacts.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace

from scoring.facts import FileFacts
from scoring.model import Evidence
from scoring.parsers.linefiles import LineFile, parameter_format
from scoring.tree import TreeIndex

# Evidence lists stay short enough to read; totals always go to ``counts``.
MAX_EVIDENCE = 20
# Located hits reported per file before moving on to the next file.
_HITS_PER_FILE = 3


def _join(items: Sequence[str], limit: int = 5) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


# --------------------------------------------------------------------------- the scanned files

_CODE_KINDS = ("python", "notebook", "r", "rmd", "julia", "shell")


@dataclass(frozen=True)
class _File:
    """A file C1 and C3 scan: a code file with its frontend's facts, or a shell,
    parameter or ``.env`` file read line by line."""

    path: str
    kind: str                      # python, notebook, r, rmd, julia, shell, or a parameter format
    facts: FileFacts | None = None
    lines: LineFile | None = None

    @property
    def unparseable(self) -> bool:
        """A Python file or notebook that does not parse, read by the line scan instead."""
        facts = self.facts
        if facts is None or facts.parse_error is None or facts.language != "python":
            return False
        return self.kind == "python" or facts.parse_error.startswith("NotebookError")


_FILES: weakref.WeakKeyDictionary[TreeIndex, tuple[list[_File], list[_File]]] = weakref.WeakKeyDictionary()

# The languages read through their frontend's facts besides those of _CODE_KINDS
# (METRICS §0.3: workflow code is source for C1 and C3; MATLAB and native sources are
# where machine paths and database passwords are written); ``kind`` is the frontend's name.
_FRONTEND_KINDS = ("matlab", "c_cpp", "fortran", "nextflow", "snakemake")


def _files(tree: TreeIndex) -> tuple[list[_File], list[_File]]:
    """The files C1 and C3 scan, once per tree: the code files (Python, notebooks, R, R
    Markdown, Julia and shell files sorted by path and kind, then the MATLAB, C/C++,
    Fortran, Nextflow and Snakemake files by path) and the parameter files (in path
    order). Vendored files and files that are not read (binary, too large, unreadable)
    are not scanned."""
    cached = _FILES.get(tree)
    if cached is not None:
        return cached
    code: list[_File] = []
    for path, kind in sorted((path, code_kind) for code_kind in _CODE_KINDS for path in tree.by_type(code_kind)):
        if tree.role(path) == "vendored":
            continue   # in no code metric's denominator (METRICS §0.2.2)
        if kind == "shell":
            lines = tree.line_file(path, "shell")
            if lines is not None:
                code.append(_File(path, kind, lines=lines))
        elif (facts := tree.code_facts(path)) is not None:
            code.append(_File(path, kind, facts=facts))
    seen = {f.path for f in code}
    for path, frontend in sorted((p, name) for name in _FRONTEND_KINDS for p in tree.by_frontend(name)):
        if path in seen or tree.role(path) == "vendored":
            continue
        facts = tree.facts(path)
        if facts is not None:
            seen.add(path)
            code.append(_File(path, frontend, facts=facts))
    parameters: list[_File] = []
    for path in tree.files:
        info = tree.info(path)
        if info is None or info.alias_of is not None or info.type in _CODE_KINDS:
            continue
        fmt = parameter_format(path)
        if fmt is not None and (lines := tree.line_file(path, fmt)) is not None:
            parameters.append(_File(path, fmt, lines=lines))
    found = _FILES[tree] = code, parameters
    return found


# --------------------------------------------------------------------------- located hits

@dataclass(frozen=True)
class _Hit:
    path: str
    line: int
    rule: str
    reason: str
    snippet: str
    cell: int | None = None
    line_end: int | None = None

    def evidence(self) -> Evidence:
        return Evidence(self.path, self.reason, rule=self.rule, line_start=self.line,
                        line_end=self.line_end or self.line, snippet=self.snippet, cell=self.cell)


def _evidence(hits_by_file: dict[str, list[_Hit]], snippet_of: Callable[[_Hit], str] | None = None,
              first: Collection[str] = ()) -> list[Evidence]:
    """At most ``MAX_EVIDENCE`` hits, at most ``_HITS_PER_FILE`` per file, chosen so that
    many bad files in one folder do not hide the others (twenty R Markdown analyses
    before the configuration file a re-user edits): the first hit of each file of
    ``first`` (parameter files), the first hit of each rule, then the first hit of each
    file in turns by folder (:func:`_spread`), then each file's next hits. Shown
    ``first``'s hits first, then the others in path and line order. ``snippet_of``
    gives the snippet of a reported hit (fetched for these hits only)."""
    paths = sorted(hits_by_file)
    chosen: dict[tuple[str, int], None] = {}

    def choose(path: str, index: int) -> bool:
        if len(chosen) >= MAX_EVIDENCE:
            return False
        chosen.setdefault((path, index))
        return True

    for path in [p for p in paths if p in first]:
        choose(path, 0)
    # the first hit of each rule (a /home path among many HPC roots)
    rules: set[str] = set()
    for path in paths:
        for index, hit in enumerate(hits_by_file[path][:_HITS_PER_FILE]):
            if hit.rule not in rules:
                rules.add(hit.rule)
                choose(path, index)
    for path in _spread(paths):
        if not choose(path, 0):
            break
    for index in range(1, _HITS_PER_FILE):
        for path in paths:
            if index < len(hits_by_file[path]) and not choose(path, index):
                break
    ordered = sorted(chosen, key=lambda key: (key[0] not in first, key[0], key[1]))
    out: list[Evidence] = []
    for path, index in ordered:
        hit = hits_by_file[path][index]
        if snippet_of is not None:
            hit = replace(hit, snippet=snippet_of(hit))
        out.append(hit.evidence())
    return out


def _spread(paths: list[str], depth: int = 0) -> list[str]:
    """``paths`` (sorted) in turns by folder: the first file of each top-level folder (the
    files beside them one more group), then the second of each..., each folder's own files
    taken in turns by its sub-folders the same way. A folder with hundreds of
    sub-folders (a bundled toolbox) gets one turn per round like a folder of ten files."""
    groups: dict[str, list[str]] = {}
    for path in paths:
        parts = path.split("/")
        groups.setdefault(parts[depth] if depth < len(parts) - 1 else "", []).append(path)
    if len(groups) == 1:
        (key, members), = groups.items()
        return members if not key else _spread(members, depth + 1)
    turns = [members if not key else _spread(members, depth + 1) for key, members in groups.items()]
    return [members[i] for i in range(max(map(len, turns))) for members in turns if i < len(members)]


def _ratio_value(bad: int, scanned: int) -> float:
    return max(0.0, 100.0 * (1 - bad / scanned))
