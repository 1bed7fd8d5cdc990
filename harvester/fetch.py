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

import errno
import glob
import hashlib
import logging
import os
import shutil
import tempfile
from pathlib import Path

import requests

from harvester.http import HttpClient
from scoring.trees.safety import (
    RULE_CONFLICT,
    RULE_CORRUPT,
    RULE_LINK_ESCAPE,
    RULE_NAME_TOO_LONG,
    ArchiveBudget,
    ArchiveRuleError,
    ExtractionLimits,
    MemberRules,
    check_links_inside,
    open_zip,
    single_top_folder,
    sniff,
    walk_tar,
    walk_zip,
)
from scoring.trees.safety import safe_relpath as _safe_relpath

__all__ = ["ExtractionLimits", "FetchError", "download", "materialize", "single_archive", "sniff"]

log = logging.getLogger(__name__)

GiB = 1024**3
MiB = 1024**2

_CHUNK = MiB

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


class FetchError(Exception):
    """A deposit file that could not be fetched or extracted; ``reason`` is one sentence."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# -- download ------------------------------------------------------------------------------


def download(
    client: HttpClient,
    url: str,
    dest: Path,
    *,
    expected_size: int | None = None,
    expected_md5: str | None = None,
    max_bytes: int,
    attempts: int | None = None,
) -> Path:
    """Stream ``url`` to ``dest``, verified, atomically; return ``dest``.

    The body goes to a temporary file beside ``dest`` and is renamed over it only once its
    size and MD5 (``expected_md5`` with or without the ``md5:`` prefix) match. A file
    announced or found to be larger than ``max_bytes`` is refused without reading more
    than the cap. A body cut short (connection reset, truncated transfer, read timeout)
    and bytes that do not match the announced size or MD5 are fetched again, with the
    client's backoff, up to ``attempts`` times in all (default: the client's
    ``max_attempts``): a proxy or a server under load sends such bodies with a success
    status, while a file that is really wrong fails the same way every time. HTTP
    failures surface as ``harvester.http.HttpError``; everything else as ``FetchError``.
    """
    dest = Path(dest)
    if expected_size is not None and expected_size > max_bytes:
        raise FetchError(f"file is {expected_size} bytes, more than the {max_bytes}-byte cap")
    md5_wanted = expected_md5.lower().removeprefix("md5:") if expected_md5 else None
    dest.parent.mkdir(parents=True, exist_ok=True)
    attempts = attempts or client.max_attempts
    try:
        for attempt in client.retrying((_Interrupted, _Mismatch), f"download of {url}", attempts):
            with attempt:
                size, md5 = _stream_to(client, url, dest, max_bytes)
                _verify(dest, size, md5, expected_size, md5_wanted)
    except _Interrupted as exc:
        raise FetchError(f"download interrupted {attempts} times: {exc}") from None
    except _Mismatch as exc:
        suffix = f" ({attempts} attempts)" if attempts > 1 else ""
        raise FetchError(f"{exc}{suffix}") from None
    os.replace(_partial_path(dest), dest)
    return dest


class _Interrupted(Exception):
    """The body stopped before it was complete: worth another try."""


class _Mismatch(Exception):
    """The body arrived whole but is not the announced file: worth another try, then final."""


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


def _verify(
    dest: Path, size: int, md5: str, expected_size: int | None, expected_md5: str | None
) -> None:
    if expected_size is not None and size != expected_size:
        _partial_path(dest).unlink(missing_ok=True)
        raise _Mismatch(f"size mismatch: got {size} bytes, expected {expected_size}")
    if expected_md5 is not None and md5 != expected_md5:
        _partial_path(dest).unlink(missing_ok=True)
        raise _Mismatch(f"MD5 mismatch: got {md5}, expected {expected_md5}")


def _partial_path(dest: Path) -> Path:
    # Hidden and beside dest, so the rename stays on one file system; a crashed run's
    # leftover is simply overwritten by the next attempt.
    return dest.with_name(f".{dest.name}.part")


# -- recognising archives ------------------------------------------------------------------
# ``sniff`` (magic bytes, never the name) is shared with reading archives in place; it is
# imported from scoring.trees.safety above and re-exported here.


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


def single_archive(files: list[tuple[str, Path]]) -> tuple[str, Path, str] | None:
    """``(key, path, kind)`` when the deposit's files are exactly one archive (named as
    an archive by its key, and one by its magic bytes): the tree :func:`materialize`
    builds is then that archive's content, which can be read in place instead
    (``scoring.trees.archives``, with ``label=key`` for the same refusal sentences).
    None for anything else (several files, a file not named as an archive). A file
    named as an archive that is not one raises FetchError, as :func:`materialize` does.
    """
    if len(files) != 1:
        return None
    key, path = files[0]
    if not _claimed_archive(key):
        return None
    kind = sniff(Path(path))
    if kind is None:
        family = "zip" if key.lower().endswith(".zip") else "tar"
        raise FetchError(f"{key}: not a {family} archive ({_describe_start(Path(path))})")
    return key, Path(path), kind


# -- safe names ----------------------------------------------------------------------------


def safe_relpath(name: str, where: str = "entry") -> str:
    """``name`` as a normalised relative POSIX path ('' for the root), or FetchError.

    Backslashes count as separators (a DOS path, as in file keys; archive members follow
    their own rule: :func:`scoring.trees.safety.walk_zip`); ``.`` and empty parts are
    dropped; absolute paths, drive letters, ``..`` parts and NUL bytes are refused. The
    rule itself is :func:`scoring.trees.safety.safe_relpath`, shared with reading
    archives in place.
    """
    try:
        return _safe_relpath(name, where)
    except ArchiveRuleError as exc:
        raise FetchError(exc.reason) from exc


# -- materialize ---------------------------------------------------------------------------


def materialize(files: list[tuple[str, Path]], dest: Path, limits: ExtractionLimits) -> Path:
    """Build the deposit's source tree at ``dest`` from (key, downloaded path) pairs.

    A key ending in an archive suffix must be an archive by magic bytes, else FetchError
    (a "zip" that is a JSON error page). A single archive is extracted at the root of the
    tree; with several, each goes under its key without the suffix. A single top-level
    folder inside an archive (GitHub release zips) is stripped. Other files are placed
    under their key (``/`` makes folders); one that collides with extracted content is
    skipped. ``dest`` is replaced if it exists. Returns ``dest``.

    The safety rules (names, caps, links, special files) are those of
    :mod:`scoring.trees.safety`, the same that reading an archive in place applies; a
    refusal is a FetchError whose ``reason`` is the rule's sentence.
    """
    try:
        return _materialize(files, Path(dest), limits)
    except ArchiveRuleError as exc:
        raise FetchError(exc.reason) from exc


def _materialize(files: list[tuple[str, Path]], dest: Path, limits: ExtractionLimits) -> Path:
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
        budget = ArchiveBudget(limits)
        if len(archives) == 1:
            key, path, kind = archives[0]
            _extract(path, kind, staging / "x0", budget, key).rename(tree)
        else:
            tree.mkdir()
            for index, (key, path, kind) in enumerate(archives):
                rel = _strip_archive_suffix(_safe_relpath(key, "file key"))
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


def _extract(path: Path, kind: str, into: Path, budget: ArchiveBudget, key: str) -> Path:
    """Extract one archive into the new directory ``into``; return its content root."""
    into.mkdir()
    writer = _TreeWriter(into, MemberRules(budget, key, archive_bytes=path.stat().st_size))
    if kind == "zip":
        with open_zip(path, key) as archive:
            walk_zip(archive, writer)
    else:
        walk_tar(path, writer)
    writer.create_links()
    # Links are checked against the tree as it will be used, i.e. after stripping: a
    # link to the archive's top folder would otherwise point out of the final tree.
    content = _strip_single_folder(into)
    prefix = content.relative_to(into).as_posix() if content != into else ""
    check_links_inside(writer.links, prefix, key)  # the shared rule, on the listing
    writer.check_links(content)  # and the file system's own answer, as a second guard
    return content


def _strip_single_folder(root: Path) -> Path:
    children = list(root.iterdir())
    top = single_top_folder([(c.name, c.is_dir() and not c.is_symlink()) for c in children])
    return root / top if top is not None else root


class _TreeWriter:
    """Writes one archive's entries under ``root``; ``rules`` checks each one first.

    Symbolic links are created only after every file is written, so no entry can ever be
    written *through* a link; then each link must resolve inside the final tree (links
    are resolved by the OS, so chains of individually harmless links are caught too).
    """

    def __init__(self, root: Path, rules: MemberRules) -> None:
        self.root = root
        self.rules = rules
        self.key = rules.where
        self.links: list[tuple[str, str]] = []
        self._dirs: set[str] = {""}

    def directory(self, rel: str) -> None:
        self._guard(lambda: _make_dirs(self.root, rel, self._dirs), rel)

    def file(self, rel: str, size: int, executable: bool, open_data, handle=None) -> None:
        """Copy ``size`` bytes from the stream ``open_data()`` opens to ``rel``."""
        self.rules.file(rel, size)
        self._guard(lambda: self._write(rel, open_data, size, executable), rel)

    def symlink(self, rel: str, target: str) -> None:
        self.rules.symlink(rel, target)
        self.links.append((rel, target))

    def hard_link(self, rel: str, target_name: str) -> None:
        """Materialise a tar hard link as a copy of a file extracted before it."""
        target = self.rules.hard_link_target(rel, target_name)
        source_path = self.root / target
        st = source_path.stat()
        self.file(rel, st.st_size, bool(st.st_mode & 0o111), lambda: open(source_path, "rb"))

    def create_links(self) -> None:
        """Create the deferred symlinks (after every file, so none is written through)."""
        for rel, target in self.links:
            link = self.root / rel

            def make(link=link, rel=rel, target=target):
                parent = str(Path(rel).parent)
                _make_dirs(self.root, "" if parent == "." else parent, self._dirs)
                if os.path.lexists(link):
                    raise ArchiveRuleError(
                        f"{self.key}: {rel!r} is both a link and another entry",
                        rule=RULE_CONFLICT,
                        member=rel,
                    )
                os.symlink(target, link)

            self._guard(make, rel)

    def check_links(self, content_root: Path) -> None:
        """Refuse the archive if any link, followed to the end, leaves ``content_root``."""
        top = os.path.realpath(content_root)
        for rel, target in self.links:
            resolved = os.path.realpath(self.root / rel)
            if os.path.commonpath([top, resolved]) != top:
                raise ArchiveRuleError(
                    f"{self.key}: link {rel!r} points outside the tree ({target!r})",
                    rule=RULE_LINK_ESCAPE,
                    member=rel,
                )

    def _write(self, rel: str, open_data, size: int, executable: bool) -> None:
        parent = str(Path(rel).parent)
        _make_dirs(self.root, "" if parent == "." else parent, self._dirs)
        target = self.root / rel
        written = 0
        # The source is opened first: a hard link to the very name it replaces copies
        # the file it replaces.
        with open_data() as source:
            if os.path.lexists(target):
                if target.is_dir() and not target.is_symlink():
                    raise IsADirectoryError(f"{rel!r} is both a folder and a file")
                target.unlink()  # a later entry of the same name wins, as with tar
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
            fd = os.open(target, flags, 0o755 if executable else 0o644)
            with os.fdopen(fd, "wb") as out:
                # Never trust the declared size: read at most that much, then stop.
                while written < size:
                    chunk = source.read(min(_CHUNK, size - written))
                    if not chunk:
                        break
                    out.write(chunk)
                    written += len(chunk)
        if written != size:
            raise ArchiveRuleError(
                f"{self.key}: {rel!r} is truncated ({written} of {size} bytes)",
                rule=RULE_CORRUPT,
                member=rel,
            )

    def _guard(self, action, rel: str) -> None:
        # File-system errors from hostile names (a file where a folder must go, names too
        # long, ...) become one clear reason instead of a traceback.
        try:
            action()
        except (ArchiveRuleError, FetchError):
            raise
        except OSError as exc:
            raise ArchiveRuleError(
                f"{self.key}: cannot extract {rel!r}: {exc.strerror or exc}",
                rule=RULE_NAME_TOO_LONG if exc.errno == errno.ENAMETOOLONG else RULE_CONFLICT,
                member=rel,
            ) from exc


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


def _place(tree: Path, key: str, path: Path, budget: ArchiveBudget) -> None:
    """Copy one non-archive file to ``tree/key``."""
    rel = _safe_relpath(key, "file key")
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
