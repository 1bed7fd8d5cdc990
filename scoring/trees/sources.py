"""Tree sources: where the bytes of a source tree come from.

The scorer never touches the filesystem directly; it asks a :class:`TreeSource` for a
sorted listing and for the bytes of one file. A local directory is the first source;
archives read in place and remote content stores implement the same two methods.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO, Protocol

KIND_FILE = "file"
KIND_DIR = "dir"
KIND_LINK = "link"          # a symbolic link, resolved or not (see ``link_target``)
KIND_SPECIAL = "special"    # fifo, socket, device: never read

_SURROGATES = re.compile("[\ud800-\udfff]")


MiB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Scan limits: scorer configuration, recorded in the inventory, never in a rubric.
    Here, beside the tree sources, because archive sources take their caps from it."""

    max_file_bytes: int = 2 * MiB
    max_files: int = 5000
    max_total_bytes: int = 256 * MiB
    # METRICS.md §0.2.5: a notebook is read up to this size (stored outputs are most of
    # its bytes); max_file_bytes caps the code of its cells instead
    max_notebook_bytes: int = 64 * MiB

    def file_bytes(self, path: str) -> int:
        """The most bytes of ``path`` that are read: a notebook's cap or every other file's."""
        return self.max_notebook_bytes if path.lower().endswith(".ipynb") else self.max_file_bytes


@dataclass(frozen=True)
class Entry:
    """One name in the tree. ``path`` is repository-relative POSIX.

    A name that is not UTF-8 is in ``path`` with surrogate escapes (``os.fsdecode``), so
    ``os.fsencode`` gives back its bytes: two such names never collide with each other
    or with a real U+FFFD name. :func:`printable` is what reports show of it.

    For a link, ``link_target`` is the repository-relative path it resolves to when it
    stays inside the root, ``None`` otherwise; ``link_status`` says why it was not
    resolved (``dangling``, ``outside``, ``loop``). ``executable`` is True for a
    regular file, or a special file, with any execute bit set (Software Heritage's rule
    for mode 100755, which it applies to special files too).
    """

    path: str
    kind: str
    size: int = 0
    link_target: str | None = None
    link_target_kind: str | None = None
    link_status: str | None = None
    error: str | None = None
    executable: bool = False


class TreeSource(Protocol):
    """The two things the scorer needs from a tree."""

    label: str

    def listdir(self, path: str) -> list[Entry]:
        """Entries directly inside ``path`` ("" for the root), sorted by name."""

    def read(self, path: str, limit: int) -> bytes:
        """At most ``limit`` bytes of the regular file at ``path``; raises OSError."""


class TreeSourceError(Exception):
    """The tree as a whole cannot be read (missing root, not a directory, unreadable)."""


class LocalDirectory:
    """A directory on the local filesystem, read without ever following a link out."""

    def __init__(self, root: str | os.PathLike[str]):
        path = Path(root)
        if not path.exists():
            raise TreeSourceError(f"{root}: no such file or directory")
        if not path.is_dir():
            raise TreeSourceError(f"{root}: not a directory")
        if not os.access(path, os.R_OK | os.X_OK):
            raise TreeSourceError(f"{root}: permission denied")
        self.root = path.resolve()
        self.label = str(root)

    def _abs(self, rel: str) -> str:
        # Relative paths carry undecodable names as surrogate escapes, which the os
        # functions turn back into the bytes on disk.
        return os.path.join(self.root, rel) if rel else str(self.root)

    def listdir(self, path: str) -> list[Entry]:
        entries: list[Entry] = []
        with os.scandir(self._abs(path)) as it:
            items = sorted(it, key=lambda d: _name_key(d.name))
        for item in items:
            rel = item.name if not path else f"{path}/{item.name}"
            try:
                st = item.stat(follow_symlinks=False)
            except OSError as exc:
                entries.append(Entry(rel, KIND_SPECIAL, error=exc.strerror or str(exc)))
                continue
            if stat.S_ISLNK(st.st_mode):
                entries.append(self._link_entry(rel, Path(item.path)))
            elif stat.S_ISDIR(st.st_mode):
                entries.append(Entry(rel, KIND_DIR))
            elif stat.S_ISREG(st.st_mode):
                entries.append(
                    Entry(rel, KIND_FILE, size=st.st_size, executable=bool(st.st_mode & 0o111))
                )
            else:
                entries.append(Entry(rel, KIND_SPECIAL, executable=bool(st.st_mode & 0o111)))
        return entries

    def _link_entry(self, rel: str, abs_path: Path) -> Entry:
        try:
            target = abs_path.resolve(strict=True)
        except RuntimeError:
            return Entry(rel, KIND_LINK, link_status="loop")
        except OSError:
            return Entry(rel, KIND_LINK, link_status="dangling")
        try:
            inside = target.relative_to(self.root)
        except ValueError:
            return Entry(rel, KIND_LINK, link_status="outside")
        target_rel = PurePosixPath(*inside.parts).as_posix() if inside.parts else ""
        kind = KIND_DIR if target.is_dir() else KIND_FILE if target.is_file() else KIND_SPECIAL
        size = target.stat().st_size if kind == KIND_FILE else 0
        return Entry(rel, KIND_LINK, size=size, link_target=target_rel, link_target_kind=kind)

    def read(self, path: str, limit: int) -> bytes:
        with self.open_binary(path) as handle:
            return handle.read(limit)

    def prefetch(self, paths: list[str]) -> None:
        """Ask the kernel to start reading ``paths`` in the background
        (``POSIX_FADV_WILLNEED``), so that a tree fresh from disk is read while the
        files before it are parsed. A hint only: nothing is read here and every error is
        ignored (the read itself reports it)."""
        advise = getattr(os, "posix_fadvise", None)
        if advise is None:
            return
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        for path in paths:
            try:
                fd = os.open(self._abs(path), flags)
            except OSError:
                continue
            try:
                advise(fd, 0, 0, os.POSIX_FADV_WILLNEED)
            except OSError:
                pass
            finally:
                os.close(fd)

    def open_binary(self, path: str) -> BinaryIO:
        """The regular file at ``path``, opened for streaming (e.g. hashing a large file)."""
        # O_NOFOLLOW: the index already resolved links; a file swapped for a link after
        # listing must not make us read outside the root.
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(self._abs(path), flags)
        return os.fdopen(fd, "rb")

    def readlink(self, path: str) -> bytes:
        """The raw text of the symbolic link at ``path`` (never followed)."""
        return os.readlink(os.fsencode(self._abs(path)))

    def raw_name(self, path: str) -> bytes:
        """The on-disk bytes of the last component of ``path``."""
        return os.fsencode(path.rpartition("/")[2])

    def close(self) -> None:
        """Nothing to release (archive sources hold a file handle; see ``open_tree_source``)."""


def printable(text: str) -> str:
    """``text`` with the surrogate escapes of undecodable name bytes shown as U+FFFD.

    Paths keep the bytes of a name (``Entry``); reports, JSON and the store need text
    that encodes as UTF-8, and show such a name the way a UTF-8 terminal would.
    """
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        # Through the bytes, so a broken sequence shows as one U+FFFD, as decoding does.
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:  # a surrogate no decoding of bytes produces
        return _SURROGATES.sub("\ufffd", text)


def _name_key(name: str) -> bytes:
    # Code-point order of the UTF-8 name (METRICS.md §0.1.13), robust to surrogates.
    return name.encode("utf-8", "surrogateescape")
