"""The rules for reading zip and tar archives safely, shared by extraction and in-place reading.

One set of rules, two consumers: :mod:`harvester.fetch` writes an archive's members to
disk (``materialize``), :mod:`scoring.trees.archives` indexes them in memory and reads
them where they are. Both walk the members with :func:`walk_zip` / :func:`walk_tar`,
which classify every member and refuse what must be refused, and both check each member
with one :class:`MemberRules`:

* names: no absolute paths, no drive letters, no ``..`` part, no NUL byte
  (:func:`safe_relpath`); a backslash is a separator only in a zip entry made on
  MS-DOS (``create_system`` 0), whose names are DOS paths; in a tar, or a zip entry made
  on Unix, it is a character of the name, as tar and unzip write it on disk;
* zip names (:func:`zip_member_name`): an entry without the UTF-8 flag (general purpose
  bit 11) is read as UTF-8 when its bytes are valid UTF-8 (Info-ZIP and many other
  tools write UTF-8 without the flag) and as IBM code page 437 otherwise, as the zip
  specification says; a tar name that is not UTF-8 keeps its bytes (surrogate escapes);
* caps (:class:`ExtractionLimits`): entries, bytes per file, bytes in all, and the
  compression ratio once an archive has expanded past 1 MiB (zip: from the central
  directory before anything is read; tar: member by member, before its data is
  decompressed);
* members: no devices, fifos or other special files; a symbolic link's target must be
  relative, non-empty, and (zip) at most 4096 bytes; a tar hard link must name a file
  that came before it;
* links, once the tree is complete (after the single top folder is stripped): followed
  to the end, no link may leave the tree (:func:`check_links_inside`);
* archives are recognised by their magic bytes (:func:`sniff`), never by their name.

A refusal is an :class:`ArchiveRuleError`, a :class:`~scoring.trees.sources.TreeSourceError`
that names the archive, the member and the rule; its ``reason`` is the one sentence the
harvester records for a refused deposit.

The module is pure: it reads the archive it is given and nothing else, and never writes.
"""

from __future__ import annotations

import bz2
import lzma
import re
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol

from .sources import TreeSourceError

__all__ = [
    "ArchiveBudget",
    "ArchiveRuleError",
    "ExtractionLimits",
    "LinkResolver",
    "MemberRules",
    "MemberSink",
    "check_links_inside",
    "check_ratio",
    "safe_relpath",
    "single_top_folder",
    "sniff",
    "walk_tar",
    "walk_zip",
    "zip_member_name",
]

GiB = 1024**3
MiB = 1024**2

# Below this many expanded bytes an archive cannot hurt anyone, whatever its ratio: tiny
# archives of repetitive text legitimately compress far better than 200:1.
RATIO_FLOOR = MiB
# A symlink's target is a path, not data; anything longer is not a real link.
MAX_LINK_TARGET = 4096
# What a Linux file system accepts: a name of at most 255 bytes, a link text shorter
# than PATH_MAX. Extraction fails beyond these, so reading in place refuses them too.
MAX_NAME_BYTES = 255
MAX_LINK_TEXT_BYTES = 4095
# Links resolved through more links than this are refused (the kernel gives up at 40).
MAX_LINK_DEPTH = 40

ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")  # local file header; empty archive
COMPRESSED_TAR_MAGIC = {b"\x1f\x8b": "tar.gz", b"BZh": "tar.bz2", b"\xfd7zXZ\x00": "tar.xz"}

# Rule names carried by ArchiveRuleError.rule.
RULE_NUL = "nul-byte"
RULE_ABSOLUTE = "absolute-path"
RULE_PARENT = "parent-traversal"
RULE_ENTRIES = "entry-cap"
RULE_FILE_SIZE = "file-cap"
RULE_TOTAL = "total-cap"
RULE_RATIO = "ratio-cap"
RULE_EMPTY_NAME = "empty-name"
RULE_LINK_ESCAPE = "link-escape"
RULE_LINK_SIZE = "link-target-size"
RULE_HARD_LINK = "hard-link"
RULE_SPECIAL = "special-file"
RULE_UNSUPPORTED = "unsupported-type"
RULE_CONFLICT = "conflict"
RULE_NAME_TOO_LONG = "name-too-long"
RULE_CORRUPT = "corrupt"


class ArchiveRuleError(TreeSourceError):
    """An archive (or one of its members) refused by a safety rule, or unreadable.

    ``reason`` is one sentence naming the archive and the member; ``rule`` is the rule
    that refused it (``absolute-path``, ``parent-traversal``, ``link-escape``,
    ``special-file``, ``file-cap``, ``total-cap``, ``ratio-cap``, ``entry-cap``,
    ``conflict``, ``corrupt``, …); ``member`` is the member's name when one is to blame.
    ``str()`` is the reason followed by the rule.
    """

    def __init__(self, reason: str, *, rule: str, member: str | None = None) -> None:
        super().__init__(f"{reason} [rule: {rule}]")
        self.reason = reason
        self.rule = rule
        self.member = member


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


# -- names ---------------------------------------------------------------------------------


def safe_relpath(name: str, where: str = "entry", *, backslash_separates: bool = True) -> str:
    """``name`` as a normalised relative POSIX path ('' for the root), or ArchiveRuleError.

    With ``backslash_separates`` (DOS paths: file keys, zips made on MS-DOS) backslashes
    count as separators, else they are characters; ``.`` and empty parts are dropped;
    absolute paths, drive letters, ``..`` parts and NUL bytes are refused.
    """
    if "\x00" in name:
        raise ArchiveRuleError(f"{where}: name with a NUL byte: {name!r}", rule=RULE_NUL, member=name)
    cleaned = name.replace("\\", "/") if backslash_separates else name
    if cleaned.startswith("/") or re.match(r"^[A-Za-z]:", cleaned):
        raise ArchiveRuleError(f"{where}: absolute path {name!r}", rule=RULE_ABSOLUTE, member=name)
    parts = [part for part in cleaned.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise ArchiveRuleError(
            f"{where}: path leaving the tree {name!r}", rule=RULE_PARENT, member=name
        )
    return "/".join(parts)


def _absolute_link_target(target: str) -> bool:
    return not target or target.startswith("/") or bool(re.match(r"^[A-Za-z]:", target))


# -- caps ----------------------------------------------------------------------------------


class ArchiveBudget:
    """What one deposit may still hold: total bytes, entries, and per-file size."""

    def __init__(self, limits: ExtractionLimits) -> None:
        self.limits = limits
        self.total = 0
        self.entries = 0

    def entry(self, where: str, member: str | None = None) -> None:
        self.entries += 1
        if self.entries > self.limits.max_entries:
            raise ArchiveRuleError(
                f"{where}: more than {self.limits.max_entries} entries",
                rule=RULE_ENTRIES,
                member=member,
            )

    def reserve(self, where: str, name: str, size: int) -> None:
        if size > self.limits.max_file_bytes:
            raise ArchiveRuleError(
                f"{where}: {name!r} is {size} bytes, over the "
                f"{self.limits.max_file_bytes}-byte file cap",
                rule=RULE_FILE_SIZE,
                member=name,
            )
        if self.total + size > self.limits.max_total_bytes:
            raise ArchiveRuleError(
                f"{where}: the deposit exceeds the {self.limits.max_total_bytes}-byte total cap",
                rule=RULE_TOTAL,
                member=name,
            )
        self.total += size


def check_ratio(
    where: str,
    expanded: int,
    archive_bytes: int,
    limits: ExtractionLimits,
    member: str | None = None,
) -> None:
    """Refuse an archive that expands past 1 MiB *and* past ``max_ratio`` times its size."""
    if expanded > RATIO_FLOOR and expanded > limits.max_ratio * max(archive_bytes, 1):
        ratio = expanded / max(archive_bytes, 1)
        raise ArchiveRuleError(
            f"{where}: compression ratio {ratio:.0f}:1 exceeds the "
            f"{limits.max_ratio:.0f}:1 cap (zip bomb?)",
            rule=RULE_RATIO,
            member=member,
        )


class MemberRules:
    """The per-member checks of one archive, whatever is done with the members after.

    ``where`` names the archive in every message (the deposit file key, or the archive's
    path when read in place). ``files`` is every regular file accepted so far (what a tar
    hard link may point to).
    """

    def __init__(self, budget: ArchiveBudget, where: str, archive_bytes: int) -> None:
        self.budget = budget
        self.where = where
        self.archive_bytes = archive_bytes
        self.expanded = 0
        self.files: set[str] = set()

    @property
    def limits(self) -> ExtractionLimits:
        return self.budget.limits

    def entry(self, name: str, *, dos: bool = False) -> str:
        """Count one entry and return its safe relative path (``dos``: a backslash in
        ``name`` separates folders)."""
        self.budget.entry(self.where, name)
        return safe_relpath(name, self.where, backslash_separates=dos)

    def file(self, rel: str, size: int) -> None:
        """A regular file of ``size`` bytes (declared) at ``rel``: name, caps, ratio."""
        if not rel:
            raise ArchiveRuleError(
                f"{self.where}: a file entry has an empty name", rule=RULE_EMPTY_NAME
            )
        self.budget.reserve(self.where, rel, size)
        check_ratio(self.where, self.expanded + size, self.archive_bytes, self.limits, rel)
        self.expanded += size
        self.files.add(rel)

    def symlink(self, rel: str, target: str) -> None:
        if not rel:
            raise ArchiveRuleError(
                f"{self.where}: a link entry has an empty name", rule=RULE_EMPTY_NAME
            )
        if _absolute_link_target(target):
            raise ArchiveRuleError(
                f"{self.where}: link {rel!r} points outside the tree ({target!r})",
                rule=RULE_LINK_ESCAPE,
                member=rel,
            )

    def hard_link_target(self, rel: str, target_name: str) -> str:
        """The file a tar hard link copies: inside the tree, and extracted before it."""
        try:
            target = safe_relpath(target_name, self.where, backslash_separates=False)
        except ArchiveRuleError as exc:
            raise ArchiveRuleError(
                f"{self.where}: hard link {rel!r} leaves the tree ({target_name!r})",
                rule=RULE_HARD_LINK,
                member=rel,
            ) from exc
        if target not in self.files:
            raise ArchiveRuleError(
                f"{self.where}: hard link {rel!r} to {target_name!r}, not a file extracted before it",
                rule=RULE_HARD_LINK,
                member=rel,
            )
        return target

    def special(self, rel: str) -> ArchiveRuleError:
        return ArchiveRuleError(
            f"{self.where}: {rel!r} is a device or special file", rule=RULE_SPECIAL, member=rel
        )

    def corrupt(self, kind: str, exc: BaseException) -> ArchiveRuleError:
        return ArchiveRuleError(f"{self.where}: corrupt {kind} archive: {exc}", rule=RULE_CORRUPT)


# -- walking the members -------------------------------------------------------------------


class MemberSink(Protocol):
    """What is done with the members once the rules let them through."""

    rules: MemberRules

    def directory(self, rel: str) -> None: ...

    def file(
        self, rel: str, size: int, executable: bool, open_data: Callable[[], IO[bytes]], handle: Any
    ) -> None:
        """A regular file. ``open_data()`` opens its bytes (a tar stream's only while this
        call lasts); ``handle`` is the archive's own record of it (ZipInfo, TarInfo)."""

    def symlink(self, rel: str, target: str) -> None: ...

    def hard_link(self, rel: str, target_name: str) -> None: ...


def open_zip(path: str | Path, where: str) -> zipfile.ZipFile:
    """Open a zip archive, turning every way of being unreadable into ArchiveRuleError."""
    try:
        return zipfile.ZipFile(path)
    except (zipfile.BadZipFile, NotImplementedError, EOFError, OSError, ValueError) as exc:
        raise ArchiveRuleError(f"{where}: corrupt zip archive: {exc}", rule=RULE_CORRUPT) from exc


_ZIP_UTF8_FLAG = 0x800
_ZIP_MSDOS = 0


def zip_member_name(info: zipfile.ZipInfo) -> str:
    """The name of a zip member, decoded from its stored bytes.

    zipfile decodes a name without the UTF-8 flag as code page 437; the stored bytes
    are that name encoded again (cp437 maps all 256 byte values, so the round trip is
    exact), read as UTF-8 when they are valid UTF-8, else kept as cp437. Like zipfile
    (and tarfile, and unzip's C strings), the name ends at a NUL byte.
    """
    if info.flag_bits & _ZIP_UTF8_FLAG:
        return info.filename
    try:
        stored = info.filename.encode("cp437")
    except UnicodeEncodeError:  # a name set by hand, not read from an archive
        return info.filename
    try:
        return stored.decode("utf-8")
    except UnicodeDecodeError:
        return info.filename


def zip_mode(info: zipfile.ZipInfo) -> int:
    """The Unix mode of a zip member; 0 for zips not made on Unix."""
    # Only Unix-made zips keep a file mode in the high bits; elsewhere they are
    # attributes that must not be mistaken for link or device types.
    return info.external_attr >> 16 if info.create_system == 3 else 0


def walk_zip(archive: zipfile.ZipFile, sink: MemberSink) -> None:
    """Give every member of ``archive`` to ``sink``, in central-directory order."""
    rules = sink.rules
    limits = rules.limits
    try:
        infos = archive.infolist()
        # The central directory tells sizes and counts up front: refuse before writing.
        if rules.budget.entries + len(infos) > limits.max_entries:
            raise ArchiveRuleError(
                f"{rules.where}: more than {limits.max_entries} entries", rule=RULE_ENTRIES
            )
        declared = sum(info.file_size for info in infos)
        check_ratio(rules.where, declared, rules.archive_bytes, limits)
        if rules.budget.total + declared > limits.max_total_bytes:
            raise ArchiveRuleError(
                f"{rules.where}: the deposit exceeds the {limits.max_total_bytes}-byte total cap",
                rule=RULE_TOTAL,
            )
        for info in infos:
            name = zip_member_name(info)
            dos = info.create_system == _ZIP_MSDOS
            rel = rules.entry(name, dos=dos)
            mode = zip_mode(info)
            kind = stat.S_IFMT(mode)
            if name.endswith("/") or (dos and name.endswith("\\")) or kind == stat.S_IFDIR:
                sink.directory(rel)
            elif kind == stat.S_IFLNK:
                if info.file_size > MAX_LINK_TARGET:
                    raise ArchiveRuleError(
                        f"{rules.where}: link {rel!r} has an oversized target",
                        rule=RULE_LINK_SIZE,
                        member=rel,
                    )
                # Link text keeps its bytes, as unzip writes them.
                target = archive.read(info).decode("utf-8", "surrogateescape")
                sink.symlink(rel, target)
            elif kind not in (0, stat.S_IFREG):
                raise rules.special(rel)
            else:
                sink.file(
                    rel,
                    info.file_size,
                    bool(mode & 0o111),
                    lambda info=info: archive.open(info),
                    info,
                )
    except ArchiveRuleError:
        raise
    except RuntimeError as exc:  # zipfile's word for encrypted entries
        raise ArchiveRuleError(
            f"{rules.where}: cannot read zip archive: {exc}", rule=RULE_CORRUPT
        ) from exc
    except (zipfile.BadZipFile, NotImplementedError, EOFError, zlib.error, lzma.LZMAError) as exc:
        raise rules.corrupt("zip", exc) from exc


def walk_tar(path: str | Path, sink: MemberSink) -> None:
    """Give every member of the tar file at ``path`` (compressed or not) to ``sink``.

    The archive is read as a stream, once: each header is checked before its data is
    decompressed, so a bomb is refused at its first oversized member instead of after
    inflating it.
    """
    rules = sink.rules
    try:
        with tarfile.open(path, mode="r|*") as archive:
            for member in archive:
                rel = rules.entry(member.name)
                if member.isdir():
                    sink.directory(rel)
                elif member.isreg():
                    sink.file(
                        rel,
                        member.size,
                        bool(member.mode & 0o111),
                        lambda member=member: archive.extractfile(member),
                        member,
                    )
                elif member.issym():
                    sink.symlink(rel, member.linkname)
                elif member.islnk():
                    sink.hard_link(rel, member.linkname)
                elif member.ischr() or member.isblk() or member.isfifo():
                    raise rules.special(rel)
                else:
                    raise ArchiveRuleError(
                        f"{rules.where}: {rel!r} has an unsupported entry type",
                        rule=RULE_UNSUPPORTED,
                        member=rel,
                    )
    except ArchiveRuleError:
        raise
    except (tarfile.TarError, EOFError, zlib.error, lzma.LZMAError, OSError) as exc:
        raise rules.corrupt("tar", exc) from exc


# -- the tree as a whole -------------------------------------------------------------------


def single_top_folder(children: list[tuple[str, bool]]) -> str | None:
    """The folder to strip when an archive holds a single top-level folder (GitHub release
    archives), else None. ``children`` are the top-level (name, is a real folder) pairs:
    a link to a folder is not a folder."""
    if len(children) == 1 and children[0][1]:
        return children[0][0]
    return None


class _Loop(Exception):
    pass


class _Missing(Exception):
    pass


class LinkResolver:
    """Symbolic links resolved inside a tree that exists only as a listing.

    It follows ``os.path.realpath`` component by component (a link met on the way is
    replaced by its target before any later ``..`` applies), with the tree's root as the
    top: a ``..`` above the root, or an absolute target, leaves the tree.
    ``link_text(path)`` is the target of the link at ``path`` (None when it is not a
    link); ``kind(path)`` is None for a path that does not exist (strict resolution).
    """

    def __init__(
        self,
        link_text: Callable[[str], str | None],
        kind: Callable[[str], str | None] | None = None,
    ) -> None:
        self._link_text = link_text
        self._kind = kind

    def resolve(self, path: str, *, strict: bool) -> tuple[str, ...] | None:
        """The parts of the path ``path`` resolves to; None when it leaves the tree.

        Strict: raises ``LookupError`` for a path that does not exist (a dangling link)
        and ``RecursionError`` for a loop, as ``Path.resolve(strict=True)`` would
        (``FileNotFoundError`` / ``RuntimeError``). Not strict: missing parts are taken as
        they are and a loop stops where it closes, as ``os.path.realpath`` does.
        """
        try:
            parts, _ok = self._join((), path.split("/"), strict, {}, 0)
        except _Missing as exc:
            raise LookupError(path) from exc
        except _Loop as exc:
            raise RecursionError(path) from exc
        return parts

    def _join(
        self,
        path: tuple[str, ...],
        rest: list[str],
        strict: bool,
        seen: dict[str, tuple[str, ...] | None],
        depth: int,
    ) -> tuple[tuple[str, ...] | None, bool]:
        if depth > MAX_LINK_DEPTH:
            if strict:
                raise _Loop()
            return None, True
        for index, name in enumerate(rest):
            if name in ("", "."):
                continue
            if name == "..":
                if not path:
                    return None, True
                path = path[:-1]
                continue
            newpath = (*path, name)
            key = "/".join(newpath)
            target = self._link_text(key)
            if target is None:
                if strict and self._kind is not None and self._kind(key) is None:
                    raise _Missing()
                path = newpath
                continue
            if key in seen:
                known = seen[key]
                if known is not None:
                    path = known
                    continue
                if strict:
                    raise _Loop()
                return _lexical(newpath, rest[index + 1 :]), False
            seen[key] = None
            if _absolute_link_target(target):
                return None, True
            resolved, ok = self._join(path, target.split("/"), strict, seen, depth + 1)
            if resolved is None:
                return None, True
            if not ok:
                return _lexical(resolved, rest[index + 1 :]), False
            seen[key] = resolved
            path = resolved
        return path, True


def _lexical(path: tuple[str, ...], rest: list[str]) -> tuple[str, ...] | None:
    parts = list(path)
    for name in rest:
        if name in ("", "."):
            continue
        if name == "..":
            if not parts:
                return None
            parts.pop()
        else:
            parts.append(name)
    return tuple(parts)


def check_links_inside(links: list[tuple[str, str]], prefix: str, where: str) -> None:
    """Refuse the archive if any link, followed to the end, leaves the final tree.

    ``links`` are (member path, target) pairs as named in the archive; ``prefix`` is the
    single top folder that is stripped ('' when none), so the tree's root is that folder:
    a link that climbs out of it, even to come back through its name, would point outside
    the tree once the tree is moved into place.
    """
    cut = len(prefix) + 1 if prefix else 0
    targets = {rel[cut:]: target for rel, target in links}
    resolver = LinkResolver(targets.get)
    for rel, target in links:
        if resolver.resolve(rel[cut:], strict=False) is None:
            raise ArchiveRuleError(
                f"{where}: link {rel!r} points outside the tree ({target!r})",
                rule=RULE_LINK_ESCAPE,
                member=rel,
            )


# -- recognising archives ------------------------------------------------------------------


def sniff(path: str | Path) -> str | None:
    """The archive type of ``path`` from its magic bytes alone, or None.

    Returns 'zip', 'tar', 'tar.gz', 'tar.bz2' or 'tar.xz'. A compressed file counts as a
    tar only when its first decompressed block is a tar header (a ``.csv.gz`` is None).
    """
    with open(path, "rb") as handle:
        head = handle.read(4096)
    if head.startswith(ZIP_MAGIC):
        return "zip"
    for magic, kind in COMPRESSED_TAR_MAGIC.items():
        if head.startswith(magic):
            return kind if _compressed_tar_header(path, kind) else None
    return "tar" if is_tar_header(head[:512]) else None


def _compressed_tar_header(path: str | Path, kind: str) -> bool:
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
    return is_tar_header(block)


def is_tar_header(block: bytes) -> bool:
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
