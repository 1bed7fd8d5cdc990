"""Tree sources for zip and tar archives read where they are, never extracted to disk.

``open_tree_source(path)`` gives a :class:`~scoring.trees.sources.LocalDirectory` for a
directory, a :class:`ZipTree` for a zip file and a :class:`TarTree` for a tar file
(plain, gzip, bzip2 or xz), recognised by their magic bytes, not their name.

Reading in place must give exactly what extracting would: the same tree (so the same
snapshot identity, :func:`scoring.trees.swhid.tree_identity`) and the same measurements. So
the archive is walked by the walkers of :mod:`scoring.trees.safety`, under the same
:class:`~scoring.trees.safety.MemberRules` as :func:`harvester.fetch.materialize`, into
a model of what the extraction writes on disk: a later file of the same name replaces an
earlier one, a file where a folder must go (or the reverse) is refused, a hard link is a
copy of the file it names, links are made last, the single top folder of a
GitHub-release-style archive is stripped, and no link may lead out of the final tree.
Whatever extraction refuses is refused here with the same sentence, as an
:class:`~scoring.trees.safety.ArchiveRuleError` (a ``TreeSourceError``) naming the
member and the rule.

What is read, and what stays in memory:

* **zip**: the central directory and each member's local header when the archive is
  opened (nothing is decompressed but link targets); a member is decompressed when it is
  read, directly from its offset (random access). A member read whole that is no larger
  than ``keep_file_bytes`` is kept, up to ``keep_total_bytes`` in all, so hashing the
  tree and measuring it decompress it once.
* **tar** (any compression): one streaming pass when the archive is opened checks every
  header before its data and hashes every member (the git blob id, given to
  ``tree_identity`` through ``blob_id``, so no member is read again to identify the
  tree). For an uncompressed tar nothing is kept: a member is read again from its byte
  offset. For a compressed tar, members no larger than ``keep_file_bytes`` are kept in
  memory, in archive order, until ``keep_total_bytes`` are kept; ``prefetch`` (which the
  tree index calls with the files detectors will read) drops kept files no detector
  reads and fetches the missing ones in one more pass; anything else is read by
  streaming the archive again up to that member.

The defaults are the scorer's own limits (``Limits().max_file_bytes``, 2 MiB, and
``Limits().max_total_bytes``, 256 MiB): the scorer never reads a larger file, nor more
than that in all, so memory stays within ``keep_total_bytes`` plus one 1 MiB read buffer.
"""

from __future__ import annotations

import errno
import hashlib
import io
import lzma
import tarfile
import zipfile
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, BinaryIO

from .safety import (
    MAX_LINK_TEXT_BYTES,
    MAX_NAME_BYTES,
    RULE_CONFLICT,
    RULE_CORRUPT,
    RULE_NAME_TOO_LONG,
    ArchiveBudget,
    ArchiveRuleError,
    ExtractionLimits,
    LinkResolver,
    MemberRules,
    check_links_inside,
    open_zip,
    single_top_folder,
    sniff,
    walk_tar,
    walk_zip,
)
from .sources import (
    KIND_DIR,
    KIND_FILE,
    KIND_LINK,
    Entry,
    Limits,
    LocalDirectory,
    TreeSourceError,
    _name_key,
)

__all__ = [
    "ArchiveRuleError",
    "FileData",
    "IndexedTree",
    "Node",
    "TarTree",
    "ZipTree",
    "open_tree_source",
]

_CHUNK = 1 << 20
_DEFAULT_LIMITS = Limits()


@dataclass
class FileData:
    """Where the bytes of one file are. ``ref`` is the source's own handle (a ZipInfo, a
    tar header offset, a content hash); ``blob`` the git blob id once known; ``content``
    the bytes when kept in memory."""

    size: int
    ref: Any = None
    offset: int | None = None
    blob: bytes | None = None
    content: bytes | None = None


@dataclass
class Node:
    """One name in an :class:`IndexedTree`: a folder, a regular file or a symbolic link."""

    kind: str
    data: FileData | None = None
    executable: bool = False
    target: str | None = None  # a link's text (None: not known yet)


class IndexedTree:
    """A tree whose listing is held in memory, with file bytes read on demand.

    Gives what :class:`~scoring.trees.sources.LocalDirectory` gives, Entry for Entry: the same
    sorted listings, the same paths for undecodable names (surrogate escapes, and
    ``raw_name`` for their bytes), links resolved inside the tree the way ``Path.resolve(strict=True)``
    resolves them on disk (``dangling``, ``loop``, ``outside``), and ``readlink``,
    ``open_binary`` and ``blob_id`` for :func:`scoring.trees.swhid.tree_identity`.
    Subclasses fill it with :meth:`add` and open file bytes in :meth:`_open_data`.
    """

    def __init__(self, label: str) -> None:
        self.label = label
        self._nodes: dict[str, Node] = {"": Node(KIND_DIR)}
        self._children: dict[str, list[str]] = {"": []}
        self._resolver = LinkResolver(self._link_text, self._kind)

    # -- building --------------------------------------------------------------------

    def add(self, path: str, node: Node) -> None:
        """Add ``node`` at the real path ``path`` (its parent folder must exist)."""
        parent, _, name = path.rpartition("/")
        self._nodes[path] = node
        self._children[parent].append(name)
        if node.kind == KIND_DIR:
            self._children.setdefault(path, [])

    def node(self, path: str) -> Node | None:
        return self._nodes.get(path)

    def file_data(self) -> Iterable[tuple[str, FileData]]:
        """Every regular file's (real path, data)."""
        for path, node in self._nodes.items():
            if node.kind == KIND_FILE and node.data is not None:
                yield path, node.data

    # -- the tree source ---------------------------------------------------------------

    def listdir(self, path: str) -> list[Entry]:
        node = self._nodes.get(path)
        if node is None:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)
        if node.kind != KIND_DIR:
            raise NotADirectoryError(errno.ENOTDIR, "Not a directory", path)
        entries: list[Entry] = []
        for name in sorted(self._children[path], key=_name_key):
            child = f"{path}/{name}" if path else name
            entries.append(self._entry(child, self._nodes[child]))
        return entries

    def _entry(self, rel: str, node: Node) -> Entry:
        if node.kind == KIND_DIR:
            return Entry(rel, KIND_DIR)
        if node.kind == KIND_FILE:
            size = node.data.size if node.data else 0
            return Entry(rel, KIND_FILE, size=size, executable=node.executable)
        try:
            parts = self._resolver.resolve(rel, strict=True)
        except RecursionError:
            return Entry(rel, KIND_LINK, link_status="loop")
        except (LookupError, OSError):
            return Entry(rel, KIND_LINK, link_status="dangling")
        if parts is None:
            return Entry(rel, KIND_LINK, link_status="outside")
        target = "/".join(parts)
        found = self._nodes[target]
        size = found.data.size if found.kind == KIND_FILE and found.data else 0
        return Entry(rel, KIND_LINK, size=size, link_target=target, link_target_kind=found.kind)

    def _kind(self, path: str) -> str | None:
        node = self._nodes.get(path)
        return node.kind if node else None

    def _link_text(self, path: str) -> str | None:
        node = self._nodes.get(path)
        if node is None or node.kind != KIND_LINK:
            return None
        if node.target is None:
            node.target = self._load_link_text(path, node)
        return node.target

    def _load_link_text(self, path: str, node: Node) -> str:
        raise OSError(errno.EIO, "link text not available", path)

    def _file(self, path: str) -> FileData:
        node = self._nodes.get(path)
        if node is None:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)
        if node.kind == KIND_LINK:
            # As LocalDirectory's O_NOFOLLOW: links are resolved by the index, not here.
            raise OSError(errno.ELOOP, "Too many levels of symbolic links", path)
        if node.kind != KIND_FILE or node.data is None:
            raise IsADirectoryError(errno.EISDIR, "Is a directory", path)
        return node.data

    def read(self, path: str, limit: int) -> bytes:
        data = self._file(path)
        if data.content is not None:
            return data.content[:limit]
        with self._open_data(path, data) as handle:
            return handle.read(limit)

    def open_binary(self, path: str) -> BinaryIO:
        """The regular file at ``path``, opened for streaming."""
        data = self._file(path)
        if data.content is not None:
            return io.BytesIO(data.content)
        return self._open_data(path, data)

    def _open_data(self, path: str, data: FileData) -> BinaryIO:
        raise NotImplementedError

    def readlink(self, path: str) -> bytes:
        """The raw text of the symbolic link at ``path`` (never followed)."""
        node = self._nodes.get(path)
        if node is None or node.kind != KIND_LINK:
            raise OSError(errno.EINVAL, "Invalid argument", path)
        text = self._link_text(path)
        assert text is not None
        return text.encode("utf-8", "surrogateescape")

    def raw_name(self, path: str) -> bytes:
        """The bytes of the last component of ``path`` as stored (as extraction writes it)."""
        return path.rpartition("/")[2].encode("utf-8", "surrogateescape")

    def blob_id(self, path: str) -> bytes | None:
        """The git blob id of the file at ``path`` when already known, else None."""
        node = self.node(path)
        if node is None or node.kind != KIND_FILE or node.data is None:
            return None
        return node.data.blob


# -- the model of an extraction ----------------------------------------------------------


class _ExtractionModel:
    """What :func:`harvester.fetch.materialize` would write, kept as a listing.

    It mirrors fetch's writer step by step: folders made part by part and never through
    anything but a folder, a later file replacing an earlier one, hard links copying the
    file they name at that moment, links created after every file, the single top
    folder stripped, and every link checked inside the final tree. Refusals carry the
    sentences fetch records.
    """

    def __init__(self, rules: MemberRules, take: Callable[[str, int, Callable, Any], FileData]):
        self.rules = rules
        self.where = rules.where
        self._take = take
        self.kinds: dict[str, str] = {"": KIND_DIR}
        self.files: dict[str, tuple[FileData, bool]] = {}
        self.links: list[tuple[str, str]] = []
        self.link_text: dict[str, str] = {}

    def _cannot(self, rel: str, why: str, rule: str = RULE_CONFLICT) -> ArchiveRuleError:
        return ArchiveRuleError(f"{self.where}: cannot extract {rel!r}: {why}", rule=rule, member=rel)

    def _check_name(self, part: str, rel: str) -> None:
        if len(part.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES:
            raise self._cannot(rel, "File name too long", RULE_NAME_TOO_LONG)

    def _make_dirs(self, path: str, rel: str) -> None:
        if path in ("", "."):
            return
        current = ""
        for part in path.split("/"):
            current = f"{current}/{part}" if current else part
            kind = self.kinds.get(current)
            if kind == KIND_DIR:
                continue
            if kind is not None:
                raise self._cannot(rel, f"{current!r} is not a folder")
            self._check_name(part, rel)
            self.kinds[current] = KIND_DIR

    def directory(self, rel: str) -> None:
        self._make_dirs(rel, rel)

    def file(self, rel: str, size: int, executable: bool, open_data, handle: Any) -> None:
        self.rules.file(rel, size)
        self._place(rel, executable, lambda: self._take(rel, size, open_data, handle))

    def _place(self, rel: str, executable: bool, data: Callable[[], FileData]) -> None:
        # fetch's order: parent folders, open the member, then the name itself.
        parent, _, name = rel.rpartition("/")
        self._make_dirs(parent, rel)
        taken = data()
        if self.kinds.get(rel) == KIND_DIR:
            raise self._cannot(rel, f"{rel!r} is both a folder and a file")
        self._check_name(name, rel)
        self.files[rel] = (taken, executable)  # a later entry of the same name wins
        self.kinds[rel] = KIND_FILE

    def symlink(self, rel: str, target: str) -> None:
        self.rules.symlink(rel, target)
        self.links.append((rel, target))

    def hard_link(self, rel: str, target_name: str) -> None:
        target = self.rules.hard_link_target(rel, target_name)
        data, executable = self.files[target]
        self.rules.file(rel, data.size)
        self._place(rel, executable, lambda: data)

    def finish(self) -> tuple[str, dict[str, str]]:
        """Create the links, strip the top folder, check the links; return the prefix
        stripped ('' for none) and the final kinds by path."""
        for rel, target in self.links:
            parent, _, name = rel.rpartition("/")
            self._make_dirs(parent, rel)
            if rel in self.kinds:
                raise ArchiveRuleError(
                    f"{self.where}: {rel!r} is both a link and another entry",
                    rule=RULE_CONFLICT,
                    member=rel,
                )
            self._check_name(name, rel)
            if len(target.encode("utf-8", "surrogateescape")) > MAX_LINK_TEXT_BYTES:
                raise self._cannot(rel, "File name too long", RULE_NAME_TOO_LONG)
            self.kinds[rel] = KIND_LINK
            self.link_text[rel] = target
        top = [(path, kind == KIND_DIR) for path, kind in self.kinds.items() if path and "/" not in path]
        prefix = single_top_folder(top) or ""
        check_links_inside(self.links, prefix, self.where)
        return prefix, self.kinds

    def fill(self, tree: IndexedTree) -> None:
        """Put the final tree (after :meth:`finish`) into ``tree``."""
        prefix, kinds = self.finish()
        cut = len(prefix) + 1 if prefix else 0
        # Parents before children: sorting by path puts "a" before "a/b".
        for path in sorted(kinds, key=lambda p: (p.count("/"), p)):
            if not path or path == prefix:
                continue
            final = path[cut:]
            kind = kinds[path]
            if kind == KIND_FILE:
                data, executable = self.files[path]
                tree.add(final, Node(KIND_FILE, data=data, executable=executable))
            elif kind == KIND_LINK:
                tree.add(final, Node(KIND_LINK, target=self.link_text[path]))
            else:
                tree.add(final, Node(KIND_DIR))


# -- streams -------------------------------------------------------------------------------


class _MemberReader(io.RawIOBase):
    """A member's bytes: at most its declared size, errors as ArchiveRuleError, hashed on
    the way; ``on_complete(blob, content)`` when read to the end in one sequence."""

    def __init__(
        self,
        raw: IO[bytes],
        data: FileData,
        where: str,
        path: str,
        *,
        keep: bool = False,
        on_complete: Callable[[bytes, bytes | None], None] | None = None,
        closing: Callable[[], None] | None = None,
        translate: bool = True,
    ) -> None:
        super().__init__()
        self._translate = translate
        self._raw = raw
        self._data = data
        self._where = where
        self._path = path
        self._left = data.size
        self._digest = hashlib.sha1(b"blob %d\0" % data.size)
        self._chunks: list[bytes] | None = [] if keep else None
        self._on_complete = on_complete
        self._closing = closing

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self._left <= 0:
            self._complete()  # an empty member is complete at its first read
            return 0
        try:
            chunk = self._raw.read(min(len(buffer), self._left, _CHUNK))
        except ArchiveRuleError:
            raise
        except (
            zipfile.BadZipFile,
            tarfile.TarError,
            EOFError,
            zlib.error,
            lzma.LZMAError,
            OSError,
            RuntimeError,
            NotImplementedError,
        ) as exc:
            if not self._translate:
                raise  # the walker names it, as extraction does
            raise ArchiveRuleError(
                f"{self._where}: cannot read {self._path!r}: {exc}", rule=RULE_CORRUPT, member=self._path
            ) from exc
        if not chunk:
            read = self._data.size - self._left
            raise ArchiveRuleError(
                f"{self._where}: {self._path!r} is truncated ({read} of {self._data.size} bytes)",
                rule=RULE_CORRUPT,
                member=self._path,
            )
        self._left -= len(chunk)
        self._digest.update(chunk)
        if self._chunks is not None:
            self._chunks.append(chunk)
        if self._left == 0:
            self._complete()
        buffer[: len(chunk)] = chunk
        return len(chunk)

    def _complete(self) -> None:
        if self._on_complete is not None:
            content = b"".join(self._chunks) if self._chunks is not None else None
            callback, self._on_complete = self._on_complete, None
            callback(self._digest.digest(), content)

    def close(self) -> None:
        if not self.closed:
            try:
                self._raw.close()
            finally:
                if self._closing is not None:
                    self._closing()
        super().close()


def _reader(stream: _MemberReader) -> BinaryIO:
    return io.BufferedReader(stream, _CHUNK)  # type: ignore[return-value]


class _KeepBudget:
    """How many bytes of members an archive source may keep in memory."""

    def __init__(self, file_bytes: int | None, total_bytes: int | None) -> None:
        self.file_bytes = _DEFAULT_LIMITS.max_file_bytes if file_bytes is None else file_bytes
        self.total_bytes = _DEFAULT_LIMITS.max_total_bytes if total_bytes is None else total_bytes
        self.kept = 0

    def fits(self, size: int) -> bool:
        return size <= self.file_bytes and self.kept + size <= self.total_bytes

    def keep(self, data: FileData, content: bytes) -> None:
        if data.content is None and self.fits(len(content)):
            data.content = content
            self.kept += len(content)

    def drop(self, data: FileData) -> None:
        if data.content is not None:
            self.kept -= len(data.content)
            data.content = None


# -- zip -----------------------------------------------------------------------------------


class ZipTree(IndexedTree):
    """A zip archive read in place (random access to each member).

    ``limits`` are the extraction caps (:class:`~scoring.trees.safety.ExtractionLimits`);
    ``keep_file_bytes`` / ``keep_total_bytes`` bound what is kept in memory (see the
    module's documentation). Close it (or use it as a context manager) to release the
    archive's file handle.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        limits: ExtractionLimits | None = None,
        keep_file_bytes: int | None = None,
        keep_total_bytes: int | None = None,
        label: str | None = None,
    ) -> None:
        self.path = Path(path)
        super().__init__(label or str(path))
        self.keep = _KeepBudget(keep_file_bytes, keep_total_bytes)
        size = _archive_size(self.path, self.label)
        self._zip = open_zip(self.path, self.label)
        try:
            rules = MemberRules(ArchiveBudget(limits or ExtractionLimits()), self.label, size)
            model = _ExtractionModel(rules, self._take)
            walk_zip(self._zip, model)
            model.fill(self)
        except BaseException:
            self._zip.close()
            raise

    def _take(self, rel: str, size: int, open_data, info: zipfile.ZipInfo) -> FileData:
        # Opening reads the member's local header only: a header that disagrees with the
        # central directory, an encrypted member or an unknown compression method is
        # refused now, as extraction would refuse it.
        with open_data():
            pass
        return FileData(size=size, ref=info)

    def _open_data(self, path: str, data: FileData) -> BinaryIO:
        try:
            raw = self._zip.open(data.ref)
        except (zipfile.BadZipFile, RuntimeError, NotImplementedError, OSError, ValueError) as exc:
            raise ArchiveRuleError(
                f"{self.label}: cannot read {path!r}: {exc}", rule=RULE_CORRUPT, member=path
            ) from exc

        def complete(blob: bytes, content: bytes | None) -> None:
            data.blob = blob
            if content is not None:
                self.keep.keep(data, content)

        stream = _MemberReader(
            raw, data, self.label, path, keep=self.keep.fits(data.size), on_complete=complete
        )
        return _reader(stream)

    def close(self) -> None:
        self._zip.close()

    def __enter__(self) -> ZipTree:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


# -- tar -----------------------------------------------------------------------------------


class TarTree(IndexedTree):
    """A tar archive (plain, gzip, bzip2 or xz) read in place, streamed once when opened.

    See the module's documentation for what is kept in memory; ``kept_bytes`` says how
    much is, and ``passes`` how many times the archive has been streamed.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        limits: ExtractionLimits | None = None,
        keep_file_bytes: int | None = None,
        keep_total_bytes: int | None = None,
        label: str | None = None,
    ) -> None:
        self.path = Path(path)
        super().__init__(label or str(path))
        self.keep = _KeepBudget(keep_file_bytes, keep_total_bytes)
        size = _archive_size(self.path, self.label)
        kind = sniff(self.path)
        if kind is None or kind == "zip":
            raise TreeSourceError(f"{self.label}: not a tar archive")
        self.compression = kind
        self.passes = 1
        rules = MemberRules(ArchiveBudget(limits or ExtractionLimits()), self.label, size)
        model = _ExtractionModel(rules, self._take)
        walk_tar(self.path, model)
        model.fill(self)

    @property
    def kept_bytes(self) -> int:
        return self.keep.kept

    def _take(self, rel: str, size: int, open_data, member: tarfile.TarInfo) -> FileData:
        data = FileData(size=size, ref=member.offset)
        by_offset = self.compression == "tar" and not member.issparse()
        if by_offset:
            data.offset = member.offset_data
        keep = not by_offset and self.keep.fits(size)
        stream = _MemberReader(
            open_data(), data, self.label, rel, keep=keep, on_complete=self._verify(data), translate=False
        )
        with stream:
            while stream.read(_CHUNK):
                pass
        return data

    def _done(self, data: FileData, blob: bytes, content: bytes | None) -> None:
        if data.blob is not None and data.blob != blob:
            raise ArchiveRuleError(
                f"{self.label}: the archive changed since it was opened", rule=RULE_CORRUPT
            )
        data.blob = blob
        if content is not None:
            self.keep.keep(data, content)

    def _open_data(self, path: str, data: FileData) -> BinaryIO:
        if data.offset is not None:
            handle = open(self.path, "rb")
            handle.seek(data.offset)
            return _reader(_MemberReader(handle, data, self.label, path, on_complete=self._verify(data)))
        return self._stream_to(path, data)

    def _verify(self, data: FileData) -> Callable[[bytes, bytes | None], None]:
        return lambda blob, content: self._done(data, blob, content)

    def _stream_to(self, path: str, data: FileData) -> BinaryIO:
        """Stream the archive again up to the member of ``data``; its bytes, as a stream."""
        self.passes += 1
        archive = tarfile.open(self.path, mode="r|*")
        try:
            for member in archive:
                if member.offset == data.ref:
                    raw = archive.extractfile(member)
                    if raw is None:
                        break
                    stream = _MemberReader(
                        raw, data, self.label, path, on_complete=self._verify(data), closing=archive.close
                    )
                    return _reader(stream)
        except (tarfile.TarError, EOFError, zlib.error, lzma.LZMAError, OSError) as exc:
            archive.close()
            raise ArchiveRuleError(
                f"{self.label}: cannot read {path!r}: {exc}", rule=RULE_CORRUPT, member=path
            ) from exc
        archive.close()
        raise ArchiveRuleError(
            f"{self.label}: the archive changed since it was opened ({path!r} is gone)",
            rule=RULE_CORRUPT,
            member=path,
        )

    def prefetch(self, paths: list[str]) -> None:
        """Have in memory the files of ``paths`` (those the scorer will read) that fit.

        Members of an uncompressed tar are read from their offset and need nothing. When
        some of a compressed tar's are not kept (the first pass filled the budget in
        archive order), the kept files not in ``paths`` are dropped and the missing ones
        are read in one more pass.
        """
        wanted = {id(d): d for d in self._wanted(paths) if d.offset is None}
        missing = [d for d in wanted.values() if d.content is None and d.size <= self.keep.file_bytes]
        if not missing:
            return
        for _path, data in self.file_data():
            if id(data) not in wanted:
                self.keep.drop(data)
        todo: dict[int, FileData] = {}
        room = self.keep.total_bytes - self.keep.kept
        for data in missing:
            if data.ref not in todo and data.size <= room:
                todo[data.ref] = data
                room -= data.size
        if not todo:
            return
        self.passes += 1
        try:
            with tarfile.open(self.path, mode="r|*") as archive:
                for member in archive:
                    data = todo.pop(member.offset, None)
                    if data is None:
                        continue
                    raw = archive.extractfile(member)
                    if raw is not None:
                        reader = _MemberReader(
                            raw, data, self.label, member.name, keep=True, on_complete=self._verify(data)
                        )
                        with reader:
                            while reader.read(_CHUNK):
                                pass
                    if not todo:
                        break
        except (tarfile.TarError, EOFError, zlib.error, lzma.LZMAError, OSError) as exc:
            raise ArchiveRuleError(f"{self.label}: corrupt tar archive: {exc}", rule=RULE_CORRUPT) from exc

    def _wanted(self, paths: list[str]) -> list[FileData]:
        wanted: list[FileData] = []
        for path in paths:
            node = self.node(path)
            if node is not None and node.kind == KIND_FILE and node.data is not None:
                wanted.append(node.data)
        return wanted

    def close(self) -> None:
        """Nothing stays open between reads; kept bytes are dropped."""
        for _path, data in self.file_data():
            self.keep.drop(data)

    def __enter__(self) -> TarTree:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


def _archive_size(path: Path, label: str) -> int:
    try:
        return path.stat().st_size
    except OSError as exc:
        raise TreeSourceError(f"{label}: {exc.strerror or exc}") from exc


# -- choosing a source -------------------------------------------------------------------


def open_tree_source(
    path: str | Path,
    *,
    limits: ExtractionLimits | None = None,
    keep_file_bytes: int | None = None,
    keep_total_bytes: int | None = None,
) -> LocalDirectory | ZipTree | TarTree:
    """The tree at ``path``: a directory, or a zip or tar archive read in place.

    Archives are recognised by their content (magic bytes, and a tar header inside a
    compressed file), whatever their name. Raises TreeSourceError for anything else, and
    ArchiveRuleError (a TreeSourceError) for an archive that extraction would refuse.
    """
    target = Path(path)
    if target.is_dir():
        return LocalDirectory(target)
    if not target.exists():
        raise TreeSourceError(f"{path}: no such file or directory")
    if not target.is_file():
        raise TreeSourceError(f"{path}: not a directory, a zip or a tar archive")
    try:
        kind = sniff(target)
    except OSError as exc:
        raise TreeSourceError(f"{path}: {exc.strerror or exc}") from exc
    options = {"limits": limits, "keep_file_bytes": keep_file_bytes, "keep_total_bytes": keep_total_bytes}
    if kind == "zip":
        return ZipTree(target, **options)
    if kind is not None:
        return TarTree(target, **options)
    raise TreeSourceError(f"{path}: not a directory, a zip or a tar archive")
