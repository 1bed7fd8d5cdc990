"""Getting a deposit's files onto disk: verified downloads and safe extraction.

``download`` streams one file to disk, verifying its size and MD5, refusing anything
bigger than a cap, and renames it into place only when it is complete and correct.

``materialize`` turns a deposit's downloaded files into one source tree. Archives are
recognised by their key *and* their magic bytes (a ``.zip`` that is really a JSON error
page is refused, a ``.jar`` or ``.npz`` is a file, not something to unpack), and are
extracted defensively: every entry name is checked (no absolute paths, no ``..``), links
may not lead out of the tree, device files are refused, and caps on total bytes, entry
count, file size and compression ratio stop zip bombs before they fill a disk. Everything
happens in a staging directory next to ``dest`` that is renamed into place at the end, so
a refused deposit leaves nothing behind.
"""

from __future__ import annotations

import bz2
import glob
import hashlib
import logging
import lzma
import os
import re
import shutil
import stat
import tarfile
import tempfile
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import requests

from harvester.http import HttpClient

__all__ = ["ExtractionLimits", "FetchError", "download", "materialize", "sniff"]

log = logging.getLogger(__name__)

GiB = 1024**3
MiB = 1024**2

_CHUNK = MiB
# Below this many expanded bytes an archive cannot hurt anyone, whatever its ratio: tiny
# archives of repetitive text legitimately compress far better than 200:1.
_RATIO_FLOOR = MiB
# A symlink's target is a path, not data; anything longer is not a real link.
_MAX_LINK_TARGET = 4096

_ARCHIVE_SUFFIXES = (
    ".tar.gz",
    ".tar.bz2",
    ".tar.xz",
    ".tgz",
    ".tbz2",
    ".tbz",
    ".txz",
    ".tar",
    ".zip",
)
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")  # local file header; empty archive
_COMPRESSED_TAR_MAGIC = {b"\x1f\x8b": "tar.gz", b"BZh": "tar.bz2", b"\xfd7zXZ\x00": "tar.xz"}


class FetchError(Exception):
    """A deposit file that could not be fetched or extracted; ``reason`` is one sentence."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class ExtractionLimits:
    """Caps applied to one deposit (all its files together, except ``max_ratio``).

    ``max_ratio`` bounds expanded bytes over the archive's size on disk, per archive, once
    an archive has expanded past 1 MiB.
    """

    max_total_bytes: int = 2 * GiB
    max_entries: int = 100_000
    max_ratio: float = 200.0
    max_file_bytes: int = 1 * GiB


# -- download ------------------------------------------------------------------------------


def download(
    client: HttpClient,
    url: str,
    dest: Path,
    *,
    expected_size: int | None = None,
    expected_md5: str | None = None,
    max_bytes: int,
    attempts: int = 3,
) -> Path:
    """Stream ``url`` to ``dest``, verified, atomically; return ``dest``.

    The body goes to a temporary file beside ``dest`` and is renamed over it only once its
    size and MD5 (``expected_md5`` with or without the ``md5:`` prefix) match. A file
    announced or found to be larger than ``max_bytes`` is refused without reading more
    than the cap. A body cut short (connection reset, truncated transfer, read timeout)
    is fetched again, up to ``attempts`` times in all. HTTP failures surface as
    ``harvester.http.HttpError``; everything else as ``FetchError``.
    """
    dest = Path(dest)
    if expected_size is not None and expected_size > max_bytes:
        raise FetchError(f"file is {expected_size} bytes, more than the {max_bytes}-byte cap")
    md5_wanted = expected_md5.lower().removeprefix("md5:") if expected_md5 else None
    dest.parent.mkdir(parents=True, exist_ok=True)
    last_error = ""
    for _ in range(attempts):
        try:
            size, md5 = _stream_to(client, url, dest, max_bytes)
            break
        except _Interrupted as exc:
            last_error = str(exc)
    else:
        raise FetchError(f"download interrupted {attempts} times: {last_error}")
    return _accept(dest, size, md5, expected_size, md5_wanted)


class _Interrupted(Exception):
    """The body stopped before it was complete: worth another try."""


def _stream_to(client: HttpClient, url: str, dest: Path, max_bytes: int) -> tuple[int, str]:
    """Write the body to ``dest``'s temporary sibling; return (size, md5 hex)."""
    # Identity encoding: the size and MD5 to verify are those of the file's own bytes.
    response = client.get(url, stream=True, headers={"Accept-Encoding": "identity"})
    tmp = _partial_path(dest)
    try:
        with response:
            announced = response.headers.get("Content-Length")
            if announced and announced.isdigit() and int(announced) > max_bytes:
                raise FetchError(
                    f"server announces {announced} bytes, more than the {max_bytes}-byte cap"
                )
            digest = hashlib.md5(usedforsecurity=False)
            size = 0
            with open(tmp, "wb") as out:
                try:
                    for chunk in response.iter_content(_CHUNK):
                        size += len(chunk)
                        if size > max_bytes:
                            raise FetchError(f"file exceeds the {max_bytes}-byte cap")
                        digest.update(chunk)
                        out.write(chunk)
                except (
                    requests.ConnectionError,
                    requests.Timeout,
                    requests.exceptions.ChunkedEncodingError,
                ) as exc:
                    raise _Interrupted(_innermost_message(exc)) from exc
                out.flush()
                os.fsync(out.fileno())  # the rename must never publish unwritten data
        return size, digest.hexdigest()
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _innermost_message(exc: BaseException) -> str:
    """The readable core of a requests/urllib3 exception, whose str() nests tuples."""
    while exc.args and isinstance(exc.args[0], BaseException):
        exc = exc.args[0]
    if exc.args and isinstance(exc.args[0], str):
        return exc.args[0]
    return f"{type(exc).__name__}: {exc}"


def _accept(
    dest: Path, size: int, md5: str, expected_size: int | None, expected_md5: str | None
) -> Path:
    tmp = _partial_path(dest)
    if expected_size is not None and size != expected_size:
        tmp.unlink(missing_ok=True)
        raise FetchError(f"size mismatch: got {size} bytes, expected {expected_size}")
    if expected_md5 is not None and md5 != expected_md5:
        tmp.unlink(missing_ok=True)
        raise FetchError(f"MD5 mismatch: got {md5}, expected {expected_md5}")
    os.replace(tmp, dest)
    return dest


def _partial_path(dest: Path) -> Path:
    # Hidden and beside dest, so the rename stays on one file system; a crashed run's
    # leftover is simply overwritten by the next attempt.
    return dest.with_name(f".{dest.name}.part")


# -- recognising archives ------------------------------------------------------------------


def sniff(path: Path) -> str | None:
    """The archive type of ``path`` from its magic bytes alone, or None.

    Returns 'zip', 'tar', 'tar.gz', 'tar.bz2' or 'tar.xz'. A compressed file counts as a
    tar only when its first decompressed block is a tar header (a ``.csv.gz`` is None).
    """
    with open(path, "rb") as handle:
        head = handle.read(4096)
    if head.startswith(_ZIP_MAGIC):
        return "zip"
    for magic, kind in _COMPRESSED_TAR_MAGIC.items():
        if head.startswith(magic):
            return kind if _compressed_tar_header(path, kind) else None
    return "tar" if _is_tar_header(head[:512]) else None


def _compressed_tar_header(path: Path, kind: str) -> bool:
    decompressor = {
        "tar.gz": lambda: zlib.decompressobj(wbits=47),
        "tar.bz2": bz2.BZ2Decompressor,
        "tar.xz": lzma.LZMADecompressor,
    }[kind]()
    block = b""
    try:
        with open(path, "rb") as handle:
            while len(block) < 512:
                data = handle.read(64 * 1024)
                if not data:
                    break
                # max_length keeps a bomb from expanding here: we need one block only.
                block += decompressor.decompress(data, 512 - len(block))
    except (OSError, EOFError, zlib.error, lzma.LZMAError, ValueError):
        return False
    return _is_tar_header(block)


def _is_tar_header(block: bytes) -> bool:
    """True when ``block`` is a tar header: ustar magic, or a valid v7 checksum."""
    if len(block) < 512:
        return False
    if block[257:262] == b"ustar":
        return True
    field = block[148:156].replace(b"\x00", b" ").strip()
    if not field or not all(48 <= c <= 55 for c in field):  # octal digits only
        return False
    unsigned = sum(block[:148]) + 8 * 32 + sum(block[156:512])
    return int(field, 8) == unsigned and any(block[:100])


def _claimed_archive(key: str) -> bool:
    return key.lower().endswith(_ARCHIVE_SUFFIXES)


def _strip_archive_suffix(rel: str) -> str:
    lower = rel.lower()
    for suffix in _ARCHIVE_SUFFIXES:
        if lower.endswith(suffix) and len(rel) > len(suffix):
            return rel[: -len(suffix)]
    return rel


def _describe_start(path: Path) -> str:
    with open(path, "rb") as handle:
        first = handle.read(1)
    if not first:
        return "the file is empty"
    char = first.decode("latin-1")
    return f"starts with {char!r}" if char.isprintable() else f"starts with byte 0x{first[0]:02x}"


# -- safe names ----------------------------------------------------------------------------


def safe_relpath(name: str, where: str = "entry") -> str:
    """``name`` as a normalised relative POSIX path ('' for the root), or FetchError.

    Backslashes count as separators (Windows-made zips); ``.`` and empty parts are
    dropped; absolute paths, drive letters, ``..`` parts and NUL bytes are refused.
    """
    if "\x00" in name:
        raise FetchError(f"{where}: name with a NUL byte: {name!r}")
    cleaned = name.replace("\\", "/")
    if cleaned.startswith("/") or re.match(r"^[A-Za-z]:", cleaned):
        raise FetchError(f"{where}: absolute path {name!r}")
    parts = [part for part in cleaned.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise FetchError(f"{where}: path leaving the tree {name!r}")
    return "/".join(parts)


# -- materialize ---------------------------------------------------------------------------


def materialize(files: list[tuple[str, Path]], dest: Path, limits: ExtractionLimits) -> Path:
    """Build the deposit's source tree at ``dest`` from (key, downloaded path) pairs.

    A key ending in an archive suffix must be an archive by magic bytes, else FetchError
    (a "zip" that is a JSON error page). A single archive is extracted at the root of the
    tree; with several, each goes under its key without the suffix. A single top-level
    folder inside an archive (GitHub release zips) is stripped. Other files are placed
    under their key (``/`` makes folders); one that collides with extracted content is
    skipped. ``dest`` is replaced if it exists. Returns ``dest``.
    """
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    archives: list[tuple[str, Path, str]] = []
    plain: list[tuple[str, Path]] = []
    for key, path in files:
        if not _claimed_archive(key):
            plain.append((key, Path(path)))
            continue
        kind = sniff(Path(path))
        if kind is None:
            family = "zip" if key.lower().endswith(".zip") else "tar"
            raise FetchError(f"{key}: not a {family} archive ({_describe_start(Path(path))})")
        archives.append((key, Path(path), kind))

    # A run killed mid-extraction leaves its staging folder behind; the next one sweeps it.
    for stale in dest.parent.glob(f".{glob.escape(dest.name)}.*.partial"):
        shutil.rmtree(stale, ignore_errors=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".partial", dir=dest.parent))
    try:
        tree = staging / "tree"
        budget = _Budget(limits)
        if len(archives) == 1:
            key, path, kind = archives[0]
            _extract(path, kind, staging / "x0", budget, key).rename(tree)
        else:
            tree.mkdir()
            for index, (key, path, kind) in enumerate(archives):
                rel = _strip_archive_suffix(safe_relpath(key, "file key"))
                if not rel:
                    raise FetchError(f"unusable file key: {key!r}")
                target = tree / rel
                if os.path.lexists(target):
                    raise FetchError(f"{key}: two archives would extract to {rel!r}")
                content = _extract(path, kind, staging / f"x{index}", budget, key)
                _make_dirs(tree, str(Path(rel).parent))
                content.rename(target)
        for key, path in plain:
            _place(tree, key, path, budget)
        if dest.is_symlink() or dest.is_file():
            dest.unlink()
        elif dest.exists():
            shutil.rmtree(dest)
        tree.rename(dest)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return dest


class _Budget:
    """What one deposit may still write: total bytes, entries, and per-file size."""

    def __init__(self, limits: ExtractionLimits) -> None:
        self.limits = limits
        self.total = 0
        self.entries = 0

    def entry(self, where: str) -> None:
        self.entries += 1
        if self.entries > self.limits.max_entries:
            raise FetchError(f"{where}: more than {self.limits.max_entries} entries")

    def reserve(self, where: str, name: str, size: int) -> None:
        if size > self.limits.max_file_bytes:
            raise FetchError(
                f"{where}: {name!r} is {size} bytes, over the "
                f"{self.limits.max_file_bytes}-byte file cap"
            )
        if self.total + size > self.limits.max_total_bytes:
            raise FetchError(
                f"{where}: the deposit exceeds the {self.limits.max_total_bytes}-byte total cap"
            )
        self.total += size


def _check_ratio(where: str, expanded: int, archive_bytes: int, limits: ExtractionLimits) -> None:
    if expanded > _RATIO_FLOOR and expanded > limits.max_ratio * max(archive_bytes, 1):
        ratio = expanded / max(archive_bytes, 1)
        raise FetchError(
            f"{where}: compression ratio {ratio:.0f}:1 exceeds the "
            f"{limits.max_ratio:.0f}:1 cap (zip bomb?)"
        )


def _extract(path: Path, kind: str, into: Path, budget: _Budget, key: str) -> Path:
    """Extract one archive into the new directory ``into``; return its content root."""
    into.mkdir()
    writer = _TreeWriter(into, budget, key, archive_bytes=path.stat().st_size)
    if kind == "zip":
        _extract_zip(path, writer)
    else:
        _extract_tar(path, writer)
    writer.create_links()
    # Links are checked against the tree as it will be used, i.e. after stripping: a
    # link to the archive's top folder would otherwise point out of the final tree.
    content = _strip_single_folder(into)
    writer.check_links(content)
    return content


def _strip_single_folder(root: Path) -> Path:
    children = list(root.iterdir())
    if len(children) == 1 and children[0].is_dir() and not children[0].is_symlink():
        return children[0]
    return root


class _TreeWriter:
    """Writes one archive's entries under ``root`` and enforces the caps while doing it.

    Symbolic links are created only after every file is written, so no entry can ever be
    written *through* a link; then each link must resolve inside the final tree (links
    are resolved by the OS, so chains of individually harmless links are caught too).
    """

    def __init__(self, root: Path, budget: _Budget, key: str, archive_bytes: int) -> None:
        self.root = root
        self.budget = budget
        self.key = key
        self.archive_bytes = archive_bytes
        self.expanded = 0
        self.files: set[str] = set()
        self.links: list[tuple[str, str]] = []
        self._dirs: set[str] = {""}

    def entry(self, name: str) -> str:
        """Count one entry and return its safe relative path."""
        self.budget.entry(self.key)
        return safe_relpath(name, self.key)

    def directory(self, rel: str) -> None:
        self._guard(lambda: _make_dirs(self.root, rel, self._dirs), rel)

    def file(self, rel: str, source, size: int, executable: bool) -> None:
        """Copy ``size`` bytes from the file object ``source`` to ``rel``."""
        if not rel:
            raise FetchError(f"{self.key}: a file entry has an empty name")
        self.budget.reserve(self.key, rel, size)
        _check_ratio(self.key, self.expanded + size, self.archive_bytes, self.budget.limits)
        self.expanded += size
        self._guard(lambda: self._write(rel, source, size, executable), rel)
        self.files.add(rel)

    def symlink(self, rel: str, target: str) -> None:
        if not rel:
            raise FetchError(f"{self.key}: a link entry has an empty name")
        if not target or target.startswith("/") or re.match(r"^[A-Za-z]:", target):
            raise FetchError(f"{self.key}: link {rel!r} points outside the tree ({target!r})")
        self.links.append((rel, target))

    def hard_link(self, rel: str, target_name: str) -> None:
        """Materialise a tar hard link as a copy of a file extracted before it."""
        try:
            target = safe_relpath(target_name, self.key)
        except FetchError as exc:
            raise FetchError(
                f"{self.key}: hard link {rel!r} leaves the tree ({target_name!r})"
            ) from exc
        if target not in self.files:
            raise FetchError(
                f"{self.key}: hard link {rel!r} to {target_name!r}, not a file extracted before it"
            )
        source_path = self.root / target
        with open(source_path, "rb") as source:
            executable = bool(source_path.stat().st_mode & 0o111)
            self.file(rel, source, source_path.stat().st_size, executable)

    def create_links(self) -> None:
        """Create the deferred symlinks (after every file, so none is written through)."""
        for rel, target in self.links:
            link = self.root / rel

            def make(link=link, rel=rel, target=target):
                parent = str(Path(rel).parent)
                _make_dirs(self.root, "" if parent == "." else parent, self._dirs)
                if os.path.lexists(link):
                    raise FetchError(f"{self.key}: {rel!r} is both a link and another entry")
                os.symlink(target, link)

            self._guard(make, rel)

    def check_links(self, content_root: Path) -> None:
        """Refuse the archive if any link, followed to the end, leaves ``content_root``."""
        top = os.path.realpath(content_root)
        for rel, target in self.links:
            resolved = os.path.realpath(self.root / rel)
            if os.path.commonpath([top, resolved]) != top:
                raise FetchError(f"{self.key}: link {rel!r} points outside the tree ({target!r})")

    def _write(self, rel: str, source, size: int, executable: bool) -> None:
        parent = str(Path(rel).parent)
        _make_dirs(self.root, "" if parent == "." else parent, self._dirs)
        target = self.root / rel
        if os.path.lexists(target):
            if target.is_dir() and not target.is_symlink():
                raise IsADirectoryError(f"{rel!r} is both a folder and a file")
            target.unlink()  # a later entry of the same name wins, as with tar
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        fd = os.open(target, flags, 0o755 if executable else 0o644)
        written = 0
        with os.fdopen(fd, "wb") as out:
            # Never trust the declared size: read at most that much, then stop.
            while written < size:
                chunk = source.read(min(_CHUNK, size - written))
                if not chunk:
                    break
                out.write(chunk)
                written += len(chunk)
        if written != size:
            raise FetchError(f"{self.key}: {rel!r} is truncated ({written} of {size} bytes)")

    def _guard(self, action, rel: str) -> None:
        # File-system errors from hostile names (a file where a folder must go, names too
        # long, ...) become one clear reason instead of a traceback.
        try:
            action()
        except FetchError:
            raise
        except OSError as exc:
            raise FetchError(f"{self.key}: cannot extract {rel!r}: {exc.strerror or exc}") from exc


def _make_dirs(root: Path, rel: str, known: set[str] | None = None) -> None:
    """Create ``root/rel`` folder by folder, refusing to pass through anything but folders."""
    known = known if known is not None else {""}
    if rel in known or rel in ("", "."):
        return
    current = ""
    for part in rel.split("/"):
        current = f"{current}/{part}" if current else part
        if current in known:
            continue
        path = root / current
        try:
            path.mkdir()
        except FileExistsError:
            if path.is_symlink() or not path.is_dir():
                raise NotADirectoryError(20, f"{current!r} is not a folder", str(path)) from None
        known.add(current)


def _extract_zip(path: Path, writer: _TreeWriter) -> None:
    limits = writer.budget.limits
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
            # The central directory tells sizes and counts up front: refuse before writing.
            if writer.budget.entries + len(infos) > limits.max_entries:
                raise FetchError(f"{writer.key}: more than {limits.max_entries} entries")
            declared = sum(info.file_size for info in infos)
            _check_ratio(writer.key, declared, writer.archive_bytes, limits)
            if writer.budget.total + declared > limits.max_total_bytes:
                raise FetchError(
                    f"{writer.key}: the deposit exceeds the {limits.max_total_bytes}-byte total cap"
                )
            for info in infos:
                rel = writer.entry(info.filename)
                # Only Unix-made zips keep a file mode in the high bits; elsewhere they are
                # attributes that must not be mistaken for link or device types.
                mode = info.external_attr >> 16 if info.create_system == 3 else 0
                kind = stat.S_IFMT(mode)
                if info.is_dir() or kind == stat.S_IFDIR:
                    writer.directory(rel)
                elif kind == stat.S_IFLNK:
                    if info.file_size > _MAX_LINK_TARGET:
                        raise FetchError(f"{writer.key}: link {rel!r} has an oversized target")
                    target = archive.read(info).decode("utf-8", "replace")
                    writer.symlink(rel, target)
                elif kind not in (0, stat.S_IFREG):
                    raise FetchError(f"{writer.key}: {rel!r} is a device or special file")
                else:
                    with archive.open(info) as source:
                        writer.file(rel, source, info.file_size, bool(mode & 0o111))
    except FetchError:
        raise
    except RuntimeError as exc:  # zipfile's word for encrypted entries
        raise FetchError(f"{writer.key}: cannot read zip archive: {exc}") from exc
    except (zipfile.BadZipFile, NotImplementedError, EOFError, zlib.error, lzma.LZMAError) as exc:
        raise FetchError(f"{writer.key}: corrupt zip archive: {exc}") from exc


def _extract_tar(path: Path, writer: _TreeWriter) -> None:
    try:
        # Stream mode: headers are checked before their data is decompressed, so a bomb
        # is refused at its first oversized member instead of after inflating it.
        with tarfile.open(path, mode="r|*") as archive:
            for member in archive:
                rel = writer.entry(member.name)
                if member.isdir():
                    writer.directory(rel)
                elif member.isreg():
                    source = archive.extractfile(member)
                    writer.file(rel, source, member.size, bool(member.mode & 0o111))
                elif member.issym():
                    writer.symlink(rel, member.linkname)
                elif member.islnk():
                    writer.hard_link(rel, member.linkname)
                elif member.ischr() or member.isblk() or member.isfifo():
                    raise FetchError(f"{writer.key}: {rel!r} is a device or special file")
                else:
                    raise FetchError(f"{writer.key}: {rel!r} has an unsupported entry type")
    except FetchError:
        raise
    except (tarfile.TarError, EOFError, zlib.error, lzma.LZMAError, OSError) as exc:
        raise FetchError(f"{writer.key}: corrupt tar archive: {exc}") from exc


def _place(tree: Path, key: str, path: Path, budget: _Budget) -> None:
    """Copy one non-archive file to ``tree/key``."""
    rel = safe_relpath(key, "file key")
    if not rel:
        raise FetchError(f"unusable file key: {key!r}")
    budget.entry(key)
    size = path.stat().st_size
    budget.reserve(key, rel, size)
    target = tree / rel
    if os.path.lexists(target):
        log.warning("%s: %r already comes from an archive; the loose copy is skipped", key, rel)
        return
    try:
        _make_dirs(tree, "" if str(Path(rel).parent) == "." else str(Path(rel).parent))
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        with open(path, "rb") as source, os.fdopen(os.open(target, flags, 0o644), "wb") as out:
            shutil.copyfileobj(source, out, _CHUNK)
    except OSError as exc:
        raise FetchError(f"{key}: cannot place {rel!r}: {exc.strerror or exc}") from exc
