"""Snapshot identity: the SWHID of a source tree's root directory.

``swh:1:dir:<hash>``, where ``<hash>`` is the git tree hash computed exactly as git and
Software Heritage compute it, from the bytes of the tree alone:

* a regular file is a blob: ``sha1(b"blob <length>\\0" + content)``; its entry mode is
  ``100755`` when any execute bit is set and ``100644`` otherwise;
* a symbolic link is a blob whose content is the raw link text (never followed), with
  mode ``120000``;
* a directory is a tree, mode ``40000``: ``sha1(b"tree <length>\\0" + entries)``, each
  entry ``b"<mode> <name>\\0" + <20-byte binary hash>``;
* entries are sorted as git sorts them: by the name's bytes, a directory's name
  compared as if it ended with ``/`` (so ``a.txt`` sorts before the directory ``a``,
  and the directory ``a`` before ``a0``);
* ``.git`` entries are skipped at every level: git never records them in a tree, so a
  working copy hashes to its commit's tree.

**Empty directories** are where git and Software Heritage part: git cannot record an
empty directory and leaves it out of its parent, while Software Heritage keeps it as an
entry pointing to the empty tree (``4b825dc642cb6eb9a060e54bf8d69288fbee4904``). We
follow Software Heritage, because for an origin archived there the SWHID we compute must
be the one the archive gives; for a tree without empty directories both agree with
``git rev-parse HEAD^{tree}``. Two smaller differences follow from the same choice: any
execute bit (user, group or other) makes a file ``100755`` (git looks at the user bit
only), and a fifo, socket or device file is hashed as an empty blob, ``100755`` when it
has an execute bit and ``100644`` otherwise (git skips it), as ``swh.model.from_disk``
does. The tree index still never reads such a file: the inventory lists it as skipped.

Names are hashed as their bytes: a name that is not UTF-8 reaches the hasher with
surrogate escapes and is hashed as stored, so ``caf\xe9``, ``caf\xff`` and a real
``caf\ufffd`` are three entries, as on disk. A source that lists one name twice
gives no tree at all (a git tree cannot hold one name twice): that is a SwhidError.

The module is pure: it reads through a :class:`~scoring.trees.sources.TreeSource` that can
also give raw link text (``readlink``), and optionally the raw bytes of names
(``raw_name``) and a streaming file handle (``open_binary``), as
:class:`~scoring.trees.sources.LocalDirectory` does. A source that already knows the git blob
id of a file may also give it (``blob_id(path)``: 20 bytes, or None to have the file
read), so an archive streamed once or a Software Heritage dataset need not be read again.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import BinaryIO, Protocol, runtime_checkable

from .sources import KIND_DIR, KIND_FILE, KIND_LINK, KIND_SPECIAL, Entry

__all__ = [
    "EMPTY_TREE",
    "SWHID_DIR_PREFIX",
    "HashableTreeSource",
    "SwhidError",
    "TreeIdentity",
    "blob_hash",
    "is_directory_swhid",
    "tree_identity",
]

SWHID_DIR_PREFIX = "swh:1:dir:"
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
SKIPPED_NAMES = frozenset({b".git"})

MODE_FILE = b"100644"
MODE_EXECUTABLE = b"100755"
MODE_LINK = b"120000"
MODE_DIR = b"40000"

_CHUNK = 1 << 20


class SwhidError(Exception):
    """The tree cannot be identified (an unreadable entry, a file changed while hashed)."""


@runtime_checkable
class HashableTreeSource(Protocol):
    """A tree source that can also give the raw text of a symbolic link."""

    def listdir(self, path: str) -> list[Entry]: ...

    def read(self, path: str, limit: int) -> bytes: ...

    def readlink(self, path: str) -> bytes: ...


@dataclass(frozen=True)
class TreeIdentity:
    """The SWHID of a tree, with the number of blobs (files and links) and their bytes."""

    swhid: str
    files: int
    bytes: int

    def to_dict(self) -> dict[str, object]:
        return {"swhid": self.swhid, "files": self.files, "bytes": self.bytes}


def is_directory_swhid(value: str) -> bool:
    digest = value[len(SWHID_DIR_PREFIX) :]
    return (
        value.startswith(SWHID_DIR_PREFIX)
        and len(digest) == 40
        and all(c in "0123456789abcdef" for c in digest)
    )


def blob_hash(content: bytes) -> bytes:
    """The binary git blob hash of ``content``."""
    return hashlib.sha1(b"blob %d\0" % len(content) + content).digest()


def _tree_hash(entries: list[tuple[bytes, bytes, bytes]]) -> bytes:
    # Sorting key: git compares a directory's name as name + "/".
    entries.sort(key=lambda e: e[1] + b"/" if e[0] == MODE_DIR else e[1])
    body = b"".join(mode + b" " + name + b"\0" + digest for mode, name, digest in entries)
    return hashlib.sha1(b"tree %d\0" % len(body) + body).digest()


class _Hasher:
    def __init__(self, source: HashableTreeSource) -> None:
        self.source = source
        self.files = 0
        self.bytes = 0

    def name(self, entry: Entry) -> bytes:
        raw_name = getattr(self.source, "raw_name", None)
        if raw_name is not None:
            return raw_name(entry.path)
        return entry.path.rsplit("/", 1)[-1].encode("utf-8", "surrogateescape")

    def count(self, length: int) -> None:
        self.files += 1
        self.bytes += length

    def file_hash(self, entry: Entry) -> bytes:
        # A source that already knows a file's blob id (an archive hashed while it was
        # streamed once, Software Heritage's dataset) gives it instead of its bytes.
        known = getattr(self.source, "blob_id", None)
        if known is not None:
            digest = known(entry.path)
            if digest is not None:
                self.count(entry.size)
                return digest
        opener = getattr(self.source, "open_binary", None)
        if opener is None:
            content = self.source.read(entry.path, entry.size + 1)
            if len(content) != entry.size:
                raise SwhidError(f"{entry.path}: file changed while it was being hashed")
            self.count(len(content))
            return blob_hash(content)
        digest = hashlib.sha1(b"blob %d\0" % entry.size)
        seen = 0
        handle: BinaryIO
        with opener(entry.path) as handle:
            while chunk := handle.read(_CHUNK):
                seen += len(chunk)
                if seen > entry.size:
                    break
                digest.update(chunk)
        # The header committed to the listed size: a file that grew or shrank since the
        # listing would give a hash of no tree that ever existed.
        if seen != entry.size:
            raise SwhidError(f"{entry.path}: file changed while it was being hashed")
        self.count(seen)
        return digest.digest()

    def directory(self, path: str) -> bytes:
        try:
            listing = self.source.listdir(path)
        except OSError as exc:
            raise SwhidError(f"{path or '.'}: cannot list directory: {exc}") from exc
        entries: list[tuple[bytes, bytes, bytes]] = []
        names: set[bytes] = set()
        for entry in listing:
            name = self.name(entry)
            if name in SKIPPED_NAMES:
                continue
            if name in names:
                raise SwhidError(f"{path or '.'}: lists {name!r} twice")
            names.add(name)
            try:
                entries.append(self.entry(entry, name))
            except OSError as exc:
                raise SwhidError(f"{entry.path}: cannot read: {exc}") from exc
        return _tree_hash(entries)

    def entry(self, entry: Entry, name: bytes) -> tuple[bytes, bytes, bytes]:
        if entry.error is not None:
            raise SwhidError(f"{entry.path}: {entry.error}")
        if entry.kind == KIND_DIR:
            return MODE_DIR, name, self.directory(entry.path)
        if entry.kind == KIND_LINK:
            text = self.source.readlink(entry.path)
            self.count(len(text))
            return MODE_LINK, name, blob_hash(text)
        if entry.kind == KIND_FILE:
            mode = MODE_EXECUTABLE if entry.executable else MODE_FILE
            return mode, name, self.file_hash(entry)
        if entry.kind == KIND_SPECIAL:
            self.count(0)
            return MODE_EXECUTABLE if entry.executable else MODE_FILE, name, blob_hash(b"")
        raise SwhidError(f"{entry.path}: unknown entry kind {entry.kind!r}")


def tree_identity(source: HashableTreeSource) -> TreeIdentity:
    """The SWHID of the tree ``source`` reads, with its blob count and total bytes.

    Raises :class:`SwhidError` when any entry cannot be read: an identity computed from
    part of a tree would name a tree that does not exist.
    """
    if not callable(getattr(source, "readlink", None)):
        raise SwhidError(f"{type(source).__name__} cannot give symbolic link text")
    hasher = _Hasher(source)
    digest = hasher.directory("")
    return TreeIdentity(SWHID_DIR_PREFIX + digest.hex(), hasher.files, hasher.bytes)
