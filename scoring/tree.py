"""The tree index: one sorted walk, then lazy, cached access for every detector.

Detectors never walk a tree or open a file; they ask the index. The walk applies the
exclusions of METRICS.md §0.1.8 to repository-relative paths, never follows a link out
of the root, and records everything it cannot use in the inventory. Each file is read
at most once and decoded once; each parsed form (Python AST, notebook, TOML, YAML, JSON,
Markdown, Dockerfile, manifests) is built at most once, and a file's facts
(:meth:`TreeIndex.facts`, from its language frontend) are computed at most once, or
found in a facts cache by the file's content (:mod:`scoring.facts_cache`).

Each file read gets its content id, the git blob id of its bytes
(:meth:`TreeIndex.blob_id`, hashed from the bytes read, by the SWHID's own function).
Parsed forms that depend on the content alone (JSON, TOML, YAML, Dockerfile) are built
once per content: two files with the same bytes share one parse, and the problems it
recorded are recorded for both.

Paths are keyed on the bytes of names: a name that is not UTF-8 keeps them as surrogate
escapes (``os.fsdecode``), so no two names collide and no file is lost from the scan;
:func:`scoring.measurement.measure` shows such names with U+FFFD in what it returns.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from itertools import chain
from typing import Any

import yaml

from .catalog import CATEGORY_KEYS
from .ecosystems import Ecosystem, find_ecosystems
from .facts import FileFacts
from .facts_cache import FactsCache, FactsKey, frontend_version, path_class
from .frontends import NOT_MATLAB, frontend_for, frontend_name
from .model import Inventory
from .parsers.markdown import Document, parse_document
from .parsers.notebook import Notebook, NotebookError, parse_notebook, parse_rmarkdown
from .parsers.python import CodeUnit
from .parsers.yamlfile import safe_load as safe_load_yaml
from .roles import (
    ROLES,
    SETUP_CALLS,
    SPHINX_OPTIONS,
    VERSIONEER_MARK,
    RoleClassifier,
)
from .trees.sources import (
    KIND_DIR,
    KIND_FILE,
    KIND_LINK,
    KIND_SPECIAL,
    Limits,
    LocalDirectory,
    TreeSource,
    printable,
)
from .trees.swhid import blob_hash

MiB = 1024 * 1024

# Directory names that never hold the deposit's own analysis code (§0.1.8).
EXCLUDED_DIR_NAMES = frozenset(
    {".git", ".hg", ".svn", ".ipynb_checkpoints", "__pycache__", "node_modules", ".tox", ".nox",
     ".eggs", "site-packages", "dist"}
)

FILE_TYPES: dict[str, tuple[str, ...]] = {
    "python": (".py", ".pyw"),
    "notebook": (".ipynb",),
    "r": (".r",),
    "rmd": (".rmd", ".qmd"),
    "julia": (".jl",),
    "shell": (".sh", ".bash"),
    "js": (".js", ".mjs", ".cjs", ".ts", ".jsx", ".tsx"),
}
_EXT_TO_TYPE = {ext: kind for kind, exts in FILE_TYPES.items() for ext in exts}

# Folders of per-step conda environments (Snakemake's documented layout): every YAML file
# in them is an environment file, whatever its name.
CONDA_ENV_DIRS = ("envs", "workflow/envs", "conda", "environments")

README_ORDER = ("readme.md", "readme.markdown", "readme.rst", "readme.txt", "readme.ipynb", "readme")
# the separators a README's name may be spelt with (READ_ME.txt, Read-Me.md, read.me)
_README_SEPARATORS = re.compile(r"[_\-. ]")

# An embedded interpreter's library folder (lib/python3.11), not a package named python_x.
_INTERPRETER_DIR = re.compile(r"python\d+(?:\.\d+)*t?")


# What the detectors read besides code (see TreeIndex._likely_reads).
_READ_SUFFIXES = frozenset({".md", ".rst", ".txt", ".yml", ".yaml", ".toml", ".cfg", ".cff", ".smk", ".nf", ".lock"})
_SMALL_READ_SUFFIXES = frozenset({"", ".json", ".ini", ".in"})
_SMALL_READ_BYTES = 64 * 1024


@dataclass(frozen=True)
class FileInfo:
    path: str
    size: int
    ordinal: int                 # position in the sorted walk, for limits
    alias_of: str | None = None  # a symlink inside the tree: the file it points to

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    @property
    def parent(self) -> str:
        return self.path.rsplit("/", 1)[0] if "/" in self.path else ""

    @property
    def depth(self) -> int:
        """Root children have depth 1 (§0.1.14)."""
        return self.path.count("/") + 1

    @property
    def suffix(self) -> str:
        name = self.name
        dot = name.rfind(".")
        return name[dot:].lower() if dot > 0 else ""

    @property
    def type(self) -> str | None:
        return _EXT_TO_TYPE.get(self.suffix)


def file_type(path: str) -> str | None:
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return _EXT_TO_TYPE.get(name[dot:].lower()) if dot > 0 else None


_SHEBANG_KEEP_BYTES = 16 * 1024 * 1024   # extensionless non-scripts kept for a later reader
_SHELL_SHEBANG_RE = re.compile(rb"#!\s*(?:/usr)?/bin/(?:env\s+)?(?:ba|z|k|da)?sh\b")


class TreeIndex:
    """Everything detectors may know about one tree."""

    def __init__(
        self, source: TreeSource, limits: Limits | None = None, *, facts_cache: FactsCache | None = None
    ):
        self.source = source
        self.limits = limits or Limits()
        # Where facts are looked up before a frontend runs, and new ones are put; None: no
        # cache beyond this index (which computes each content's facts once anyway).
        self.facts_cache = facts_cache
        self._files: dict[str, FileInfo] = {}
        self._dirs: set[str] = {""}
        self._children: dict[str, list[str]] = {"": []}
        self._skipped: dict[str, str] = {}
        self._problems: dict[str, list[str]] = {}
        self._excluded: list[str] = []
        self._text: dict[str, str | None] = {}
        self._parsed: dict[tuple[str, str], Any] = {}
        # The bytes read, kept until both their consumers (text, facts) have had them, so
        # that no file is read twice; the content id and read error of each file read.
        self._raw: dict[str, bytes] = {}
        self._blob_ids: dict[str, str | None] = {}
        self._read_errors: dict[str, str] = {}
        self._facts: dict[str, FileFacts | None] = {}
        self._facts_by_key: dict[FactsKey, FileFacts] = {}
        self._facts_errors: dict[str, str] = {}
        # Content-keyed parsed forms: (kind, blob id) -> (value, problems it recorded).
        self._by_content: dict[tuple[str, str], tuple[Any, tuple[str, ...]]] = {}
        from .facts_cache import derived_cache

        self._derived = derived_cache(facts_cache)
        self._capturing: list[tuple[str, list[str]]] = []
        # Which files each category's detectors read (``reading_for``), for the curator's
        # view of why a tree scores as it does; the index's own bookkeeping (roles, shell
        # shebangs) is nobody's reading.
        self._reads_by_category: dict[str, set[str]] = {}
        self._reading_category: str | None = None
        # the reads of the index-level views being built (``_view``), innermost last
        self._view_reads: list[set[str]] = []
        self._truncated = False
        self._walk()
        prefetch = getattr(source, "prefetch", None)
        if callable(prefetch):
            prefetch(self._likely_reads())

    @classmethod
    def from_path(
        cls, path: str | os.PathLike[str], limits: Limits | None = None, *, facts_cache: FactsCache | None = None
    ) -> TreeIndex:
        return cls(LocalDirectory(path), limits, facts_cache=facts_cache)

    # --- the walk -----------------------------------------------------------------

    def _walk(self) -> None:
        stack = [""]
        pending_links: list[tuple[str, str, int]] = []
        while stack:
            directory = stack.pop()
            try:
                entries = self.source.listdir(directory)
            except OSError as exc:
                self._skip(directory or ".", f"unreadable directory: {exc.strerror or exc}")
                continue
            subdirs: list[str] = []
            for entry in entries:
                name = entry.path.rsplit("/", 1)[-1]
                if entry.kind == KIND_DIR:
                    if self._is_excluded_dir(entry.path, name):
                        self._excluded.append(entry.path)
                        continue
                    self._add_dir(entry.path)
                    subdirs.append(entry.path)
                elif entry.kind == KIND_FILE:
                    self._add_child(entry.path)
                    self._files[entry.path] = FileInfo(entry.path, entry.size, 0)
                elif entry.kind == KIND_LINK:
                    if entry.link_status:
                        reason = {
                            "dangling": "dangling symbolic link",
                            "outside": "symbolic link pointing outside the tree",
                            "loop": "symbolic link loop",
                        }[entry.link_status]
                        self._skip(entry.path, reason)
                    elif entry.link_target_kind == KIND_FILE:
                        pending_links.append((entry.path, entry.link_target or "", entry.size))
                    elif entry.link_target_kind == KIND_DIR:
                        self._skip(entry.path, "symbolic link to a directory inside the tree (not followed)")
                    else:
                        self._skip(entry.path, "symbolic link to a special file")
                elif entry.kind == KIND_SPECIAL:
                    self._skip(entry.path, entry.error and f"unreadable: {entry.error}" or "special file (fifo, socket or device)")
            stack.extend(reversed(subdirs))
        self._apply_limits()
        for path, target, size in pending_links:
            if target in self._files:
                self._add_child(path)
                self._files[path] = FileInfo(path, size, self._files[target].ordinal, alias_of=target)
            else:
                self._skip(path, "symbolic link to a file that is excluded or not indexed")
        self._files = dict(sorted(self._files.items(), key=lambda kv: _sort_key(kv[0])))
        for children in self._children.values():
            children.sort(key=_sort_key)

    def _likely_reads(self) -> list[str]:
        """Files some detector will read: code, notebooks, documentation, manifests and
        configuration, and small extensionless files (Makefile, Dockerfile, LICENSE).
        Files a language frontend reads for their facts too. Data tables, images and
        archives are never read, so never prefetched."""
        out = []
        for path, info in self._files.items():
            if info.alias_of is not None or path in self._skipped:
                continue
            suffix = info.suffix
            if suffix in _EXT_TO_TYPE or suffix in _READ_SUFFIXES or (
                suffix in _SMALL_READ_SUFFIXES and info.size <= _SMALL_READ_BYTES
            ) or frontend_name(path) is not None:  # read for its facts
                out.append(path)
        return out

    def _apply_limits(self) -> None:
        """Number files in sorted path order and mark those beyond the limits unreadable,
        so which files are read never depends on the order detectors ask."""
        total = 0
        ordered = sorted(self._files.values(), key=lambda i: _sort_key(i.path))
        for ordinal, info in enumerate(ordered):
            self._files[info.path] = FileInfo(info.path, info.size, ordinal)
            file_bytes = self.limits.file_bytes(info.path)
            if info.size <= file_bytes:
                total += info.size
            if ordinal >= self.limits.max_files:
                self._skip(info.path, f"beyond the file limit ({self.limits.max_files} files)")
                self._truncated = True
            elif info.size > file_bytes:
                what = "notebook limit" if file_bytes != self.limits.max_file_bytes else "per-file limit"
                self._skip(info.path, f"larger than the {what} ({info.size} > {file_bytes} bytes)")
            elif total > self.limits.max_total_bytes:
                self._skip(info.path, f"beyond the total size limit ({self.limits.max_total_bytes} bytes)")
                self._truncated = True

    def _is_excluded_dir(self, path: str, name: str) -> bool:
        if name in EXCLUDED_DIR_NAMES or name.endswith(".egg-info"):
            return True
        parent_name = path.rsplit("/", 2)[-2] if "/" in path else ""
        if parent_name in ("lib", "lib64") and _INTERPRETER_DIR.fullmatch(name):
            return True
        try:
            children = {e.path.rsplit("/", 1)[-1]: e.kind for e in self.source.listdir(path)}
        except OSError:
            return False
        if "pyvenv.cfg" in children or children.get("conda-meta") == KIND_DIR:
            return True
        if name == "build" and any(
            (c.startswith("lib") and k == KIND_DIR) or c.startswith("bdist.") for c, k in children.items()
        ):
            return True
        return False

    def _add_dir(self, path: str) -> None:
        self._dirs.add(path)
        self._children.setdefault(path, [])
        self._add_child(path)

    def _add_child(self, path: str) -> None:
        parent = path.rsplit("/", 1)[0] if "/" in path else ""
        self._children.setdefault(parent, []).append(path)

    def _skip(self, path: str, reason: str) -> None:
        self._skipped.setdefault(path, reason)

    def problem(self, path: str, reason: str) -> None:
        """Record that ``path`` was read but could not be used as intended."""
        for capturing, captured in self._capturing:
            if capturing == path:
                captured.append(reason)
        reasons = self._problems.setdefault(path, [])
        if reason not in reasons:
            reasons.append(reason)

    # --- listing ------------------------------------------------------------------

    @property
    def files(self) -> list[str]:
        """Every indexed file path, sorted (in-tree symlinks to files included)."""
        return list(self._files)

    def info(self, path: str) -> FileInfo | None:
        return self._files.get(path)

    def exists(self, path: str) -> bool:
        return path in self._files or path in self._dirs

    def is_file(self, path: str) -> bool:
        return path in self._files

    def is_dir(self, path: str) -> bool:
        return path in self._dirs

    def listdir(self, directory: str = "") -> list[str]:
        """Child paths (files and directories) of ``directory``, sorted."""
        return list(self._children.get(directory, []))

    def files_in(self, directory: str) -> list[str]:
        """Files directly inside ``directory``."""
        return [p for p in self._children.get(directory, []) if p in self._files]

    def subdirs(self, directory: str = "") -> list[str]:
        return [p for p in self._children.get(directory, []) if p in self._dirs]

    def files_under(self, directory: str) -> list[str]:
        """Files anywhere below ``directory`` ("" is the whole tree)."""
        if not directory:
            return self.files
        prefix = directory + "/"
        return [p for p in self._files if p.startswith(prefix)]

    def find_ci(self, name: str, directory: str = "") -> str | None:
        """The first child of ``directory`` whose name equals ``name`` case-insensitively."""
        wanted = name.lower()
        for path in self._children.get(directory, []):
            if path.rsplit("/", 1)[-1].lower() == wanted:
                return path
        return None

    def match(self, pattern: str | re.Pattern[str], directory: str | None = None, *, dirs: bool = False) -> list[str]:
        """Paths whose *name* fully matches ``pattern`` (case-insensitive string patterns),
        directly inside ``directory``, or anywhere when ``directory`` is None."""
        regex = re.compile(pattern, re.IGNORECASE) if isinstance(pattern, str) else pattern
        pool: Iterable[str]
        if directory is None:
            pool = sorted(self._dirs - {""}, key=_sort_key) if dirs else self._files
        else:
            pool = [p for p in self._children.get(directory, []) if (p in self._dirs) == dirs]
        return [p for p in pool if regex.fullmatch(p.rsplit("/", 1)[-1])]

    def by_type(self, kind: str) -> list[str]:
        """Files of one source type (python, notebook, r, rmd, julia, shell, js), aliases excluded
        so a linked file is counted once."""
        return list(self._paths_by_type.get(kind, ()))

    @cached_property
    def _paths_by_type(self) -> dict[str | None, list[str]]:
        # One pass groups every file: detectors ask for most of the types.
        groups: dict[str | None, list[str]] = {}
        for path, info in self._files.items():
            if info.alias_of is None:
                groups.setdefault(info.type, []).append(path)
        return groups

    def by_frontend(self, name: str) -> list[str]:
        """Files a language frontend reads (``scoring.frontends.frontend_name``: python,
        r, julia, matlab, c_cpp, fortran, nextflow, snakemake), aliases excluded; for
        matlab, not the ``.m`` files that are Objective-C (:attr:`not_matlab`)."""
        paths = self._paths_by_frontend.get(name, ())
        if name == "matlab" and paths and self.not_matlab:
            return [p for p in paths if p not in self.not_matlab]
        return list(paths)

    @cached_property
    def not_matlab(self) -> frozenset[str]:
        """The ``.m`` files the MATLAB frontend finds to be Objective-C (METRICS.md §0.3:
        a ``.m`` file is MATLAB/Octave after a syntax check): no consumer of MATLAB files
        sees them."""
        paths = self._paths_by_frontend.get("matlab", ())
        if not paths:
            return frozenset()
        with self._index_bookkeeping():
            self._load_facts([p for p in paths if p not in self._facts])
        return frozenset(p for p in paths if (f := self._facts.get(p)) is not None and f.language == NOT_MATLAB)

    @cached_property
    def _paths_by_frontend(self) -> dict[str, list[str]]:
        groups: dict[str, list[str]] = {}
        for path, info in self._files.items():
            name = frontend_name(path) if info.alias_of is None else None
            if name is not None:
                groups.setdefault(name, []).append(path)
        return groups

    @cached_property
    def undecodable_names(self) -> bool:
        """Whether a name in the tree is not UTF-8: its path holds the name's bytes as
        surrogate escapes (see :class:`~scoring.trees.sources.Entry`)."""
        for path in chain(self._files, self._dirs, self._skipped, self._excluded):
            if not path.isascii() and printable(path) != path:
                return True
        return False

    @cached_property
    def languages(self) -> frozenset[str]:
        """Languages the repository uses, by their source files (§0.1.10)."""
        langs = set()
        if self.by_type("python") or self.by_type("notebook"):
            langs.add("python")
        if self.by_type("r") or self.by_type("rmd"):
            langs.add("r")
        if self.by_type("julia"):
            langs.add("julia")
        if self.by_type("js"):
            langs.add("js")
        return frozenset(langs)

    # --- roles --------------------------------------------------------------------

    def role(self, path: str) -> str:
        """The role of ``path`` (:mod:`scoring.roles`): source, test, docs, vendored or
        build; ``source`` for a path the index does not hold."""
        return self._roles.get(path, "source")

    @cached_property
    def _roles(self) -> dict[str, str]:
        """Every file's role, decided once: from the path, for Python files from their
        facts (a ``setup()`` call, a versioneer ``_version.py``, a Sphinx ``conf.py``),
        and from the content of licence files (another project's licence)."""
        roles = {}
        with self._index_bookkeeping():
            classifier = RoleClassifier.of_tree(self._files, self.blob_id)
            for path, info in self._files.items():
                flags = {}
                if info.type == "python":
                    facts = self.facts(info.alias_of or path)
                    if facts is not None:
                        flags = _role_flags(info.name, facts)
                roles[path] = classifier.role(path, **flags)
        return roles

    # --- reading ------------------------------------------------------------------

    def skip_reason(self, path: str) -> str | None:
        """Why ``path`` was not read (too large, binary, beyond a limit…), or None."""
        return self._skipped.get(path)

    @cached_property
    def dangling_links(self) -> tuple[str, ...]:
        """Symbolic links of the tree whose target does not exist (a link into a git
        submodule that was not checked out), sorted."""
        return tuple(sorted((p for p, r in self._skipped.items() if r == "dangling symbolic link"), key=_sort_key))

    def readable(self, path: str) -> bool:
        return path in self._files and path not in self._skipped

    def text(self, path: str) -> str | None:
        """The decoded text of ``path`` (read once), or None when it cannot be read as text.

        Decoding is UTF-8; a BOM is dropped; undecodable bytes are replaced and the file
        recorded as a problem. Files with NUL bytes are binary and are skipped.
        """
        if path in self._text:
            found = self._text[path]
            if found is not None and (self._reading_category is not None or self._view_reads):
                self._note_read(path)
            return found
        info = self._files.get(path)
        text: str | None = None
        if info is not None and path not in self._skipped:
            real = info.alias_of or path
            if real != path:
                text = self.text(real)
            else:
                data = self._read(path)
                if data is None:
                    self._skip(path, self._read_errors[path])
                elif b"\x00" in data[:8192]:
                    self._skip(path, "binary content")
                else:
                    if data.startswith(b"\xef\xbb\xbf"):
                        data = data[3:]
                    try:
                        text = data.decode("utf-8")
                    except UnicodeDecodeError:
                        text = data.decode("utf-8", "replace")
                        self.problem(path, "not valid UTF-8; decoded with replacement characters")
        self._text[path] = text
        if info is not None and info.alias_of is None:
            self._consumed(path)
        if text is not None and (self._reading_category is not None or self._view_reads):
            self._note_read(path)
        return text

    def _read(self, path: str, *, for_facts: bool = False) -> bytes | None:
        """The bytes of the regular file ``path`` (not an alias), read once and kept until
        :meth:`_consumed`; None when it cannot be read (``_read_errors`` says why). The
        content id is computed from them here.

        Reading for facts records nothing: an error other than OSError (an archive
        member that breaks a rule) is left for :meth:`text` to meet, as it did before
        facts existed, and a file only a frontend reads never enters the inventory."""
        data = self._raw.get(path)
        if data is not None:
            return data
        if path in self._read_errors:
            return None
        file_bytes = self.limits.file_bytes(path)
        try:
            data = self.source.read(path, file_bytes + 1)
        except OSError as exc:
            self._read_errors[path] = f"unreadable: {exc.strerror or exc}"
            return None
        except Exception:
            if for_facts:
                return None
            raise
        # A file that grew past the limit since the walk has no content id: what was
        # read is not the file.
        self._blob_ids[path] = blob_hash(data).hex() if len(data) <= file_bytes else None
        self._raw[path] = data
        return data

    def _consumed(self, path: str) -> None:
        """Drop the bytes of ``path`` once its text and facts (if a frontend reads it) are
        made from them."""
        if path in self._text and (path in self._facts or frontend_name(path) is None):
            self._raw.pop(path, None)

    def blob_id(self, path: str) -> str | None:
        """The content id of ``path``: the git blob id of its bytes (40 hex digits, as
        ``git hash-object`` gives it), or None for a file that is not read (skipped, too
        large, beyond a limit) or cannot be. Reads the file when nothing has yet."""
        info = self._files.get(path)
        if info is None:
            return None
        real = info.alias_of or path
        if real not in self._blob_ids:
            if path in self._skipped or real in self._skipped:
                return None
            self._read(real, for_facts=True)
        return self._blob_ids.get(real)

    # --- facts ------------------------------------------------------------------

    def facts(self, path: str) -> FileFacts | None:
        """The facts of ``path`` from its language frontend (:mod:`scoring.frontends`),
        computed at most once per content and looked up first in the facts cache; None
        when no frontend reads such a file or the file is not read (skipped, too large,
        beyond a limit, binary, unreadable) or its frontend failed
        (:meth:`facts_error`). Never records a skip or a problem in the inventory."""
        if path not in self._facts:
            self._load_facts([path])
        found = self._facts[path]
        if found is not None and (self._reading_category is not None or self._view_reads):
            self._note_read(path)
        return found

    def code_facts(self, path: str) -> FileFacts | None:
        """:meth:`facts` of a source file a detector scans whole (C1, C3), recording in the
        inventory what reading its text records: why it is not read (binary, unreadable),
        text that is not valid UTF-8, a Python file that does not parse, a notebook that
        does not load (each in the words of the reader that meets it)."""
        self.text(path)
        facts = self.facts(path)
        if facts is not None and facts.parse_error is not None and facts.language == "python":
            kind = file_type(path)
            if kind == "python":
                self.python_unit(path)
            elif kind == "notebook" and facts.parse_error.startswith("NotebookError"):
                self.notebook(path)
        return facts

    def all_facts(self) -> dict[str, FileFacts]:
        """The facts of every file a frontend reads (in-tree links excluded: they are
        their target's), in path order, looked up in the cache in one batch."""
        paths = [
            path for path, info in self._files.items()
            if info.alias_of is None and frontend_name(path) is not None
        ]
        self._load_facts([p for p in paths if p not in self._facts])
        found = {}
        for path in paths:
            facts = self._facts[path]
            if facts is not None and facts.language != NOT_MATLAB:
                found[path] = facts
        if self._reading_category is not None or self._view_reads:
            for path in found:
                self._note_read(path)
        return found

    def facts_error(self, path: str) -> str | None:
        """Why the frontend failed on ``path`` (a bug: a parse error is a fact), or None."""
        return self._facts_errors.get(path)

    def _load_facts(self, paths: list[str]) -> None:
        pending: dict[FactsKey, list[tuple[str, str, Any, bytes]]] = {}
        for path in paths:
            module = frontend_for(path)
            info = self._files.get(path)
            self._facts[path] = None
            if module is None or info is None or path in self._skipped:
                continue
            real = info.alias_of or path
            if real in self._skipped:
                continue
            if self._files[real].size > self.limits.max_file_bytes and self.notebook(real) is None \
                    and real in self._skipped:
                continue   # a notebook whose code is over the limit (§0.2.5)
            data = self._read(real, for_facts=True)
            blob = self._blob_ids.get(real)
            if data is None or blob is None or b"\x00" in data[:8192]:
                self._consumed(real)
                continue
            name = frontend_name(path)
            assert name is not None
            key = FactsKey(blob, name, path_class(path), frontend_version(module))
            known = self._facts_by_key.get(key)
            if known is not None:
                self._facts[path] = known
                self._consumed(real)
                continue
            pending.setdefault(key, []).append((path, real, module, data))
        if not pending:
            return
        found = self.facts_cache.get_many(list(pending)) if self.facts_cache is not None else {}
        new: dict[FactsKey, FileFacts] = {}
        for key, uses in pending.items():
            facts = found.get(key)
            if facts is None:
                path, _real, module, data = uses[0]
                facts = self._extract(path, module, data)
                # Facts that name another version than their key would be found again
                # under a key that does not describe them: used, never cached.
                if facts is not None and facts.frontend_version == key.frontend_version:
                    new[key] = facts
            if facts is not None:
                self._facts_by_key[key] = facts
            for path, real, _module, _data in uses:
                self._facts[path] = facts
                self._consumed(real)
        if new and self.facts_cache is not None:
            self.facts_cache.put_many(new)

    def _extract(self, path: str, module: Any, data: bytes) -> FileFacts | None:
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]  # as text() reads it
        try:
            return module.extract(data, path)
        except Exception as exc:  # noqa: BLE001 - a frontend's bug must not stop the measurement
            self._facts_errors[path] = f"{type(exc).__name__}: {exc}"
            return None

    def snippet(self, path: str, line: int | None, cell: int | None = None) -> str | None:
        """The text of line ``line`` of ``path`` for an evidence snippet, or None (no such
        line, or the file is not text). With ``cell``, the line counts within that cell of
        a notebook (``Evidence.cell``), as notebook facts number their lines.

        Detectors find what they report in facts and parsed structures; this only fetches
        the reported line, from the text the index keeps (the file is not read again),
        and the split into lines is made once per file."""
        if line is None or line < 1:
            return None
        if cell is not None:
            nb = self.notebook(path)
            if nb is None or not 1 <= cell <= len(nb.cells) or nb.cells[cell - 1].index != cell:
                return None
            found = self._parsed.get((f"cell_lines:{cell}", path))
            if found is None:
                found = self._parsed[(f"cell_lines:{cell}", path)] = nb.cells[cell - 1].source.splitlines()
        else:
            found = self._parsed.get(("lines", path))
            if found is None:
                found = self._parsed[("lines", path)] = self.lines(path)
        return found[line - 1] if line <= len(found) else None

    def lines(self, path: str) -> list[str]:
        text = self.text(path)
        return text.splitlines() if text else []

    def _cached(self, kind: str, path: str, build: Callable[[str], Any], *, by_content: bool = False,
                shared: bool = False) -> Any:
        """``build(text)`` of ``path``, once. ``by_content``: the value depends on the text
        alone (not on the path), so files with the same bytes share one build, and the
        problems it recorded are recorded for each of them, in the same order.
        ``shared`` (implies ``by_content``; the value is immutable): trees measured with
        the same facts cache share the build too (:class:`~scoring.facts_cache.DerivedCache`),
        so a deposit's next version rebuilds only its changed files."""
        key = (kind, path)
        if (self._reading_category is not None or self._view_reads) and self.readable(path):
            self._note_read(path)
        if key not in self._parsed:
            text = self.text(path)
            if text is None:
                value = None
            elif (by_content or shared) and (blob := self.blob_id(path)) is not None:
                shared_value = self._by_content.get((kind, blob))
                if shared_value is None and shared and self._derived is not None:
                    shared_value = self._derived.get((kind, blob))
                    if shared_value is not None:
                        self._by_content[(kind, blob)] = shared_value
                if shared_value is None:
                    captured: list[str] = []
                    self._capturing.append((path, captured))
                    try:
                        value = build(text)
                    finally:
                        self._capturing.pop()
                    self._by_content[(kind, blob)] = (value, tuple(captured))
                    if shared and self._derived is not None:
                        self._derived.put((kind, blob), (value, tuple(captured)))
                else:
                    value, problems = shared_value
                    for reason in problems:
                        self.problem(path, reason)
            else:
                value = build(text)
            self._parsed[key] = value
        return self._parsed[key]

    def json(self, path: str) -> Any:
        def build(text: str) -> Any:
            try:
                return json.loads(text)
            except json.JSONDecodeError as exc:
                self.problem(path, f"invalid JSON: {exc.msg} at line {exc.lineno}")
                return None
        return self._cached("json", path, build, by_content=True)

    def toml(self, path: str) -> dict | None:
        def build(text: str) -> dict | None:
            try:
                return tomllib.loads(text)
            except tomllib.TOMLDecodeError as exc:
                self.problem(path, f"invalid TOML: {exc}")
                return None
        return self._cached("toml", path, build, by_content=True)

    def yaml(self, path: str) -> Any:
        def build(text: str) -> Any:
            try:
                return safe_load_yaml(text)
            except yaml.YAMLError as exc:
                self.problem(path, f"invalid YAML: {str(exc).splitlines()[0]}")
                return None
        return self._cached("yaml", path, build, by_content=True)

    def document(self, path: str) -> Document | None:
        """A prose document (Markdown, reStructuredText, text, or a notebook's markdown)."""
        if path.lower().endswith(".ipynb"):
            def build_nb(_text: str) -> Document | None:
                nb = self.notebook(path)
                if nb is None:
                    return None
                return parse_document("\n\n".join(c.source for c in nb.markdown_cells), path)
            return self._cached("document", path, build_nb)
        # a document names its path (evidence cites it), so trees share it by content and
        # path: a deposit's next version parses again only the documents it changed
        return self._cached(f"document:{path}", path, lambda text: parse_document(text, path), shared=True)

    def notebook(self, path: str) -> Notebook | None:
        """A Jupyter notebook or an R Markdown / Quarto document as cells; None if invalid,
        or if the code of a notebook's cells is over the per-file limit (METRICS.md
        §0.2.5: then it is skipped, the reason in the inventory)."""
        def build(text: str) -> Notebook | None:
            if path.lower().endswith((".rmd", ".qmd")):
                return parse_rmarkdown(text, path)
            try:
                return parse_notebook(text, path)
            except NotebookError as exc:
                self.problem(path, f"invalid notebook: {exc}")
                return None
        notebook = self._cached("notebook", path, build)
        if notebook is not None and path not in self._skipped and self._code_over_limit(path, notebook):
            return None
        return notebook if path not in self._skipped else None

    def _code_over_limit(self, path: str, notebook: Notebook) -> bool:
        """A notebook larger than the per-file limit whose code cells are too: skipped."""
        info = self._files.get(path)
        if info is None or info.size <= self.limits.max_file_bytes or not path.lower().endswith(".ipynb"):
            return False
        code = sum(len(cell.source.encode("utf-8")) for cell in notebook.code_cells)
        if code <= self.limits.max_file_bytes:
            return False
        self._skip(path, f"code cells larger than the per-file limit ({code} > {self.limits.max_file_bytes} bytes)")
        return True

    def python_unit(self, path: str) -> CodeUnit | None:
        def build(text: str) -> CodeUnit:
            unit = CodeUnit.parse(path, text)
            if unit.syntax_error:
                self.problem(path, f"does not parse as Python 3 ({unit.syntax_error}); scanned with a token fallback")
            return unit
        return self._cached("python", path, build)

    @cached_property
    def _python_units(self) -> list[CodeUnit]:
        units: list[CodeUnit] = []
        for path in self.files:
            info = self._files[path]
            if info.alias_of is not None:
                continue
            if info.type == "python":
                unit = self.python_unit(path)
                if unit is not None:
                    units.append(unit)
            elif info.type in ("notebook", "rmd"):
                nb = self.notebook(path)
                if nb is None:
                    continue
                for cell in nb.code_cells:
                    if cell.language != "python" and not cell.magics:
                        continue
                    unit = CodeUnit.parse(path, cell.python_source, cell=cell.index, line_offset=cell.line_offset, magics=cell.magics)
                    units.append(unit)
        return units

    def python_units(self) -> list[CodeUnit]:
        """Every Python code unit: ``.py``/``.pyw`` files and notebook code cells (magics
        separated; cells that still fail to parse keep ``tree=None``)."""
        return list(self._python_units)

    def manifests(self):
        """Every dependency manifest in the environment locations, parsed (see
        :mod:`scoring.manifests_index`)."""
        from .manifests_index import collect_manifests

        return list(self._view("manifests", lambda: collect_manifests(self)))

    def description_fields(self, path: str) -> dict[str, str] | None:
        """The fields of an R ``DESCRIPTION`` (:func:`scoring.parsers.manifests.description_fields`),
        parsed once."""
        from .parsers.manifests import description_fields

        return self._cached("description", path, lambda text: description_fields(text, path))

    def r_namespace(self, path: str):
        """The exports of an R package's ``NAMESPACE`` file
        (:class:`scoring.parsers.rnamespace.RNamespace`), parsed once per content; None
        when unreadable."""
        from .parsers.rnamespace import parse_namespace

        return self._cached("r_namespace", path, parse_namespace, by_content=True)

    def setup_project_name(self, path: str, kind: str) -> str | None:
        """The distribution name a ``setup.py`` or ``setup.cfg`` (``kind``) declares
        (:func:`scoring.parsers.manifests.setup_project_name`), read once."""
        from .parsers.manifests import setup_project_name

        return self._cached(f"setup_name:{kind}", path, lambda text: setup_project_name(text, kind))

    def task_targets(self, path: str) -> list:
        """Targets of a Make-like file (:mod:`scoring.parsers.tasks`), parsed once."""
        from .parsers.tasks import parse_task_file

        name = path.rsplit("/", 1)[-1]
        return self._cached("tasks", path, lambda text: parse_task_file(name, text)) or []

    def make_like_files(self) -> list[str]:
        """Make-like files (§0.1.14) at the root and in the environment locations."""
        from .parsers.tasks import is_make_like

        found = []
        for location in self.env_locations:
            found.extend(p for p in self.files_in(location) if is_make_like(p.rsplit("/", 1)[-1]))
        return found

    def shell_comments(self, path: str):
        """The lines and comment lines of a shell script
        (:func:`scoring.parsers.shell.script_comments`), scanned once per content."""
        from .parsers.shell import script_comments

        return self._cached("shell_comments", path, script_comments, by_content=True)

    def line_file(self, path: str, language: str):
        """A shell script, parameter or ``.env`` file read line by line as ``language``
        (:func:`scoring.parsers.linefiles.read_line_file`: C1's literal texts, C3's masked
        credentials), once per content; None when unreadable."""
        from .parsers.linefiles import read_line_file

        return self._cached(f"line_file:{language}", path, lambda text: read_line_file(text, language),
                            by_content=True)

    def line_table(self, path: str):
        """The lines of a text file and its first non-blank line
        (:class:`scoring.parsers.textfile.LineTable`), split once per content."""
        from .parsers.textfile import line_table

        return self._cached("line_table", path, line_table, by_content=True)

    def key_lines(self, path: str):
        """Where keys are set in a configuration file (:class:`scoring.parsers.textfile.KeyLines`),
        scanned once per content."""
        from .parsers.textfile import key_lines

        return self._cached("key_lines", path, key_lines, by_content=True)

    def ini(self, path: str) -> dict[str, dict[str, str]] | None:
        """An INI file's sections (:func:`scoring.parsers.textfile.ini_sections`), parsed once
        per content; None when it cannot be read or parsed."""
        from .parsers.textfile import ini_sections

        return self._cached("ini", path, ini_sections, by_content=True)

    def singularity(self, path: str):
        """A Singularity/Apptainer definition file (:func:`scoring.parsers.dockerfile.parse_singularity`),
        parsed once per content; None without a ``Bootstrap:`` header or when unreadable."""
        from .parsers.dockerfile import parse_singularity

        return self._cached("singularity", path, parse_singularity, by_content=True)

    def explicit_conda_spec(self, path: str) -> bool:
        """Whether a text file is a conda explicit spec (``@EXPLICIT``,
        :func:`scoring.parsers.manifests.is_explicit_conda_spec`), read once per content."""
        from .parsers.manifests import is_explicit_conda_spec

        return bool(self._cached("explicit_conda_spec", path, is_explicit_conda_spec, by_content=True))

    def command_lines(self, path: str) -> list[tuple[int, str]]:
        """(line, logical line) of a shell or batch script (:func:`scoring.parsers.shell.command_lines`),
        split once per content; empty when unreadable."""
        from .parsers.shell import command_lines

        return self._cached("command_lines", path, command_lines, by_content=True) or []

    def version_file(self, path: str) -> list:
        """The interpreter declarations of a version file (``.python-version``, ``runtime.txt``,
        ``.tool-versions``: :func:`scoring.parsers.manifests.interpreters_from_version_file`),
        parsed once; empty when unreadable."""
        from .parsers.manifests import interpreters_from_version_file

        # the file's name says how to read it: it is part of the kind of the shared build
        name = path.rsplit("/", 1)[-1]
        return self._cached(f"version_file:{name}", path,
                            lambda text: tuple(interpreters_from_version_file(text, path)), shared=True) or []

    def ci_config(self, path: str):
        """A CI configuration file with its first test-running line
        (:func:`scoring.parsers.ci.parse_ci_config`), read once; None if not text."""
        from .parsers.ci import parse_ci_config

        return self._cached("ci", path, lambda text: parse_ci_config(text, path))

    def nf_test(self, path: str):
        """An nf-test file's ``test("…")`` lines and assertion lines
        (:func:`scoring.parsers.nftest.parse_nf_test`), read once; None if not text."""
        from .parsers.nftest import parse_nf_test

        return self._cached("nf_test", path, parse_nf_test)

    def pfunit(self, path: str):
        """A pFUnit ``*.pf`` file's ``@test`` lines and ``@assert*`` lines
        (:func:`scoring.parsers.pfunit.parse_pfunit`), read once per content; None if not text."""
        from .parsers.pfunit import parse_pfunit

        return self._cached("pfunit", path, parse_pfunit, by_content=True)

    def front_matter(self, path: str):
        """The YAML header keys of an R Markdown / Quarto document
        (:func:`scoring.parsers.front_matter.parse_front_matter`), read once; None if not text."""
        from .parsers.front_matter import parse_front_matter

        return self._cached("front_matter", path, lambda text: parse_front_matter(text, path))

    def hardware_line(self, path: str, kind: str) -> tuple[int, str] | None:
        """The first line of ``path`` stating hardware of ``kind``
        (:func:`scoring.parsers.hardware.first_hardware_line`: ``declaration``,
        ``wheel_index``, ``compose_gpu``), scanned once per file and kind. A notebook is
        read as its markdown (:meth:`document`), never its outputs."""
        from .parsers.hardware import first_hardware_line

        key = (f"hardware:{kind}", path)
        if key not in self._parsed:
            if path.lower().endswith(".ipynb"):
                doc = self.document(path)
                lines = doc.raw_lines if doc is not None else []
            else:
                lines = self.lines(path)
            self._parsed[key] = first_hardware_line(lines, kind)
        return self._parsed[key]

    def dockerfile(self, path: str):
        from .parsers.dockerfile import parse_dockerfile

        return self._cached("dockerfile", path, parse_dockerfile, by_content=True)

    # --- line-oriented files no frontend reads (scoring.parsers.scripts) ----------
    @cached_property
    def shebang_shell_files(self) -> tuple[str, ...]:
        """Extensionless files (no ``.`` in the name, outside dot folders, at most 256 KiB)
        whose first line is a shell shebang (``#!/bin/bash``, ``#!/usr/bin/env sh``…):
        shell scripts no extension names (A4). The bytes are read through the tree's
        one-read cache: a remote source (a Software Heritage store) fetches a content once,
        so a script or a file another detector reads later is not fetched twice. Bytes of
        files that are not scripts stay cached up to ``_SHEBANG_KEEP_BYTES`` in all."""
        found = []
        kept = 0
        for path, info in self._files.items():
            name = path.rsplit("/", 1)[-1]
            if info.type is not None or info.alias_of is not None or "." in name or info.size > 262144 \
                    or any(part.startswith(".") for part in path.split("/")[:-1]):
                continue
            text = self._text.get(path)
            if text is not None:
                head = text[:128].encode("utf-8", "replace")
            else:
                cached = path in self._raw
                data = self._read(path, for_facts=True)
                if data is None:
                    continue
                head = data[:128]
                if not cached and not _SHELL_SHEBANG_RE.match(head):
                    kept += len(data)
                    if kept > _SHEBANG_KEEP_BYTES:
                        self._raw.pop(path, None)
            if _SHELL_SHEBANG_RE.match(head):
                found.append(path)
        return tuple(sorted(found))

    def shell_script(self, path: str):
        """A shell script's logical command lines and ``VAR=value`` assignments
        (:func:`scoring.parsers.scripts.parse_shell_script`), parsed once per content."""
        from .parsers.scripts import parse_shell_script

        return self._cached("shell_script", path, parse_shell_script, by_content=True)

    def make_variables(self, path: str) -> dict[str, str]:
        """The variable assignments of a Makefile (:func:`scoring.parsers.scripts.make_variables`)."""
        from .parsers.scripts import make_variables

        return dict(self._cached("make_variables", path, make_variables, by_content=True) or ())

    def script_lines(self, path: str) -> tuple[tuple[int, str], ...]:
        """(line, text) of the lines of ``path`` that are neither blank nor whole-line
        ``#``/``//`` comments (:func:`scoring.parsers.scripts.script_lines`), for files no
        frontend reads: shell scripts, Make-like files, WDL, ``dvc.yaml``."""
        from .parsers.scripts import script_lines

        return self._cached("script_lines", path, script_lines, by_content=True) or ()

    def dvc_tracking(self, path: str) -> bool:
        """A ``*.dvc`` file that tracks outputs (``outs:`` or ``md5:``)."""
        from .parsers.scripts import is_dvc_tracking

        return bool(self._cached("dvc_tracking", path, is_dvc_tracking, by_content=True))

    def workflow_file(self, path: str, engine: str):
        """The first step line of a workflow-engine file
        (:func:`scoring.parsers.scripts.parse_workflow_file`); None when unreadable."""
        from .parsers.scripts import parse_workflow_file

        return self._cached(f"workflow:{engine}", path, lambda text: parse_workflow_file(engine, text),
                            by_content=True)

    def native_build(self, path: str):
        """What a build file of a compiled code declares (CMake, meson, meson wraps,
        ``.gitmodules``, Makefiles: :func:`scoring.parsers.native_build.parse_native_build`),
        parsed once; None for other files."""
        from .parsers.native_build import parse_native_build

        return self._cached("native_build", path, lambda text: parse_native_build(text, path))

    def conda_environment(self, path: str):
        """A conda environment file anywhere in the tree (a workflow process's
        ``conda "envs/x.yml"``, a module ``environment.yml``) as a
        :class:`scoring.parsers.manifests.Manifest`, parsed once; None when unreadable.
        :meth:`manifests` covers the environment locations only."""
        from .parsers.manifests import parse_conda_env

        return self._cached("conda_environment", path, lambda text: parse_conda_env(text, path))

    def stated_releases(self, path: str) -> tuple:
        """The MATLAB/Octave releases a prose document states
        (:func:`scoring.parsers.releases.stated_releases`), read once from its Document."""
        from .parsers.releases import stated_releases

        def build(_text: str) -> tuple:
            document = self.document(path)
            return stated_releases(document) if document is not None else ()

        return self._cached("stated_releases", path, build) or ()

    def toml_headers(self, path: str) -> tuple[tuple[int, str], ...]:
        """(line, text) of the table headers of a TOML file (:func:`scoring.parsers.scripts.toml_headers`)."""
        from .parsers.scripts import toml_headers

        return self._cached("toml_headers", path, toml_headers, by_content=True) or ()

    # --- conventional locations ---------------------------------------------------

    @cached_property
    def readme(self) -> str | None:
        """The root README by the priority of §0.1.13, case-insensitive; when no root file
        has one of those names, a root file whose name, separators (``_ - .`` and
        spaces) removed, is one of them (``READ_ME.txt``, ``Read-Me.md``)."""
        by_lower: dict[str, list[str]] = {}
        for path in self.files_in(""):
            by_lower.setdefault(path.lower(), []).append(path)
        for candidate in README_ORDER:
            if candidate in by_lower:
                # Ties by exact name: prefer the conventional upper-case spelling.
                return sorted(by_lower[candidate], key=lambda p: (not p.startswith("README"), p))[0]
        # None of those names: a README spelt with separators (READ_ME.txt), which a
        # reader opens as the README all the same, by the same extension priority
        for candidate in README_ORDER:
            suffix = candidate[len("readme"):]
            spelt = sorted(path for lower, paths in by_lower.items() for path in paths
                           if lower.endswith(suffix)
                           and _README_SEPARATORS.sub("", lower[:len(lower) - len(suffix)]) == "readme")
            if spelt:
                return spelt[0]
        return None

    def readme_document(self) -> Document | None:
        return self.document(self.readme) if self.readme else None

    @cached_property
    def env_locations(self) -> tuple[str, ...]:
        """Where manifests are looked for (§2.3): the root, ``binder/``, ``.binder/``,
        ``requirements/``, ``env/`` when it holds manifests rather than code, every
        directory holding a Dockerfile, and the conda environment folders of workflow
        layouts (Snakemake's ``workflow/envs/``, ``envs/``)."""
        locations = [""]
        for name in ("binder", ".binder", "requirements", *CONDA_ENV_DIRS):
            if self.is_dir(name):
                locations.append(name)
        if self.is_dir("env"):
            children = self.files_under("env")
            if children and not any(file_type(p) in ("python", "notebook", "r", "julia") for p in children):
                locations.append("env")
        for path in self.files:
            name = path.rsplit("/", 1)[-1]
            if name.lower() == "dockerfile" or name.lower() == "containerfile":
                parent = path.rsplit("/", 1)[0] if "/" in path else ""
                if parent not in locations:
                    locations.append(parent)
        return tuple(locations)

    def has_js_lockfile_relevance(self) -> bool:
        """JS lockfiles count only when there are no Python, R or Julia sources (§0.1.10)."""
        return "js" in self.languages and not (self.languages & {"python", "r", "julia"})

    def release(self) -> None:
        """Drop every text and parsed form now rather than when the collector finds them
        (parsed forms reference the index back, so reference counting alone never frees
        them). The index stays usable: a later access reads and parses again."""
        self._text.clear()
        self._parsed.clear()
        self._raw.clear()
        self._blob_ids.clear()
        self._read_errors.clear()
        self._facts.clear()
        self._facts_by_key.clear()
        self._facts_errors.clear()
        self._by_content.clear()
        self.__dict__.pop("_python_units", None)
        self.__dict__.pop("_roles", None)
        self.__dict__.pop("not_matlab", None)

    # --- who read what -------------------------------------------------------------

    @contextmanager
    def reading_for(self, category: str) -> Iterator[None]:
        """Attribute the files read inside the block to ``category`` (a category key:
        E, A, D, C, S): what :meth:`inventory` reports as ``read_by``."""
        previous = self._reading_category
        self._reading_category = category
        try:
            yield
        finally:
            self._reading_category = previous

    @contextmanager
    def _index_bookkeeping(self) -> Iterator[None]:
        """Reads inside the block are the index's own (roles): nobody's reading."""
        previous, views = self._reading_category, self._view_reads
        self._reading_category, self._view_reads = None, []
        try:
            yield
        finally:
            self._reading_category, self._view_reads = previous, views

    def _view(self, kind: str, build: Callable[[], Any]) -> Any:
        """``build()``, a view of the whole tree, once; every category that asks for it
        is credited with the files it was built from, not only the first."""
        key = (kind, "")
        entry = self._parsed.get(key)
        if entry is None:
            reads: set[str] = set()
            self._view_reads.append(reads)
            try:
                value = build()
            finally:
                self._view_reads.pop()
            entry = self._parsed[key] = (value, reads)
            if self._view_reads:
                self._view_reads[-1].update(reads)
        if self._reading_category is not None:
            self._reads_by_category.setdefault(self._reading_category, set()).update(entry[1])
        return entry[0]

    def _note_read(self, path: str) -> None:
        info = self._files.get(path)
        if info is None:
            return
        real = info.alias_of or path
        if self._view_reads:
            self._view_reads[-1].add(real)
        if self._reading_category is not None:
            self._reads_by_category.setdefault(self._reading_category, set()).add(real)

    def _read_by(self) -> dict[str, str]:
        found: dict[str, str] = {}
        for category in CATEGORY_KEYS:
            for path in self._reads_by_category.get(category, ()):
                found[path] = found.get(path, "") + category
        return {path: found[path] for path in sorted(found, key=_sort_key)}

    @cached_property
    def ecosystems(self) -> tuple[Ecosystem, ...]:
        """The ecosystems the tree's files belong to (:mod:`scoring.ecosystems`);
        Objective-C ``.m`` files are no MATLAB sources."""
        not_matlab = self.not_matlab
        return find_ecosystems(path for path, info in self._files.items()
                               if info.alias_of is None and path not in not_matlab)

    # --- inventory ----------------------------------------------------------------

    def inventory(self) -> Inventory:
        by_type: dict[str, int] = {}
        real_files = [i for i in self._files.values() if i.alias_of is None]
        role_counts = dict.fromkeys(ROLES, 0)
        role_paths: dict[str, list[str]] = {}
        for info in real_files:
            kind = info.type or "other"
            by_type[kind] = by_type.get(kind, 0) + 1
            role = self.role(info.path)
            role_counts[role] += 1
            if role != "source":
                role_paths.setdefault(role, []).append(info.path)
        return Inventory(
            files=len(real_files),
            bytes=sum(i.size for i in real_files),
            by_type=dict(sorted(by_type.items())),
            skipped=[{"path": p, "reason": r} for p, r in sorted(self._skipped.items(), key=lambda kv: _sort_key(kv[0]))],
            problems=[
                {"path": p, "reason": r}
                for p, reasons in sorted(self._problems.items(), key=lambda kv: _sort_key(kv[0]))
                for r in reasons
            ],
            excluded_dirs=sorted(self._excluded, key=_sort_key),
            truncated=self._truncated,
            role_counts=role_counts,
            roles={role: role_paths[role] for role in ROLES if role in role_paths},
            ecosystems=[ecosystem.to_dict() for ecosystem in self.ecosystems],
            read_by=self._read_by(),
            limits={
                "max_file_bytes": self.limits.max_file_bytes,
                "max_files": self.limits.max_files,
                "max_total_bytes": self.limits.max_total_bytes,
                "max_notebook_bytes": self.limits.max_notebook_bytes,
            },
        )


def _role_flags(name: str, facts: FileFacts) -> dict[str, bool]:
    """What a Python file's facts say about its role (:func:`scoring.roles.file_role`)."""
    flags = {"calls_setup": any(call.name in SETUP_CALLS for call in facts.calls)}
    if name == "_version.py":
        flags["versioneer_generated"] = any(VERSIONEER_MARK in c.text.lower() for c in facts.comments)
    elif name == "conf.py":
        flags["sphinx_conf"] = any(a.name in SPHINX_OPTIONS for a in facts.assignments) or any(
            s.binding in SPHINX_OPTIONS for s in facts.strings)
    return flags


def _sort_key(path: str) -> str:
    # Code-point order of the POSIX repository-relative path (METRICS.md §0.1.13).
    return path


__all__ = ["FILE_TYPES", "FileInfo", "Limits", "TreeIndex", "file_type", "KIND_SPECIAL"]
