"""Trees with every kind of name and entry a SWHID must get right, and archives of them
written byte for byte (names as raw bytes, with or without zip's UTF-8 flag).

``generate_tree(root, seed)`` writes a seeded random tree: nested and empty folders,
executable and empty files, links (to files, to folders, dangling, outside), names that
are not UTF-8, real U+FFFD names, names with backslashes, the same name in NFC and NFD.
The archive writers take the tree as it is on disk and keep every name's bytes.
"""

from __future__ import annotations

import io
import os
import random
import stat
import struct
import tarfile
import zipfile
from pathlib import Path

# Name parts, as bytes: plain, undecodable (latin-1, a lone 0xff, a cut UTF-8
# sequence), a real U+FFFD, a backslash, and "é" composed (NFC) and decomposed (NFD).
NAME_PARTS = [
    b"a", b"b", b"src", b"data", b"README", b"x-y", b"_n", b"A", b"z9", b".hidden",
    b"caf\xe9", b"\xff", b"\xe2\x82", b"\xef\xbf\xbd", b"back\\slash", b"\\", b"caf\xc3\xa9",
    b"cafe\xcc\x81", b"\xe6\x97\xa5\xe6\x9c\xac",
]
SUFFIXES = [b"", b".py", b".txt", b".md", b".sh", b".csv"]
# Folder names the tree index excludes (or treats as environments) would hide files from
# the scan for a reason unrelated to names.
_AVOID = {b".git", b"node_modules", b"dist", b"build", b"env", b"venv", b"__pycache__"}

def _valid_utf8(name: bytes) -> bool:
    try:
        name.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def _name(rng: random.Random, utf8_only: bool) -> bytes:
    parts = [p for p in NAME_PARTS if _valid_utf8(p)] if utf8_only else NAME_PARTS
    name = b"".join(rng.choice(parts) for _ in range(rng.randint(1, 2)))
    return name + rng.choice(SUFFIXES)


def generate_tree(
    root: Path, seed: int, *, utf8_only: bool = False, links_outside: bool = True, specials: bool = False
) -> dict[str, int]:
    """Write a random tree under ``root`` (created); returns counts of what it holds
    (``files``: regular files)."""
    rng = random.Random(seed)
    base = os.fsencode(root)
    os.mkdir(base)
    dirs = [base]
    files: list[bytes] = []
    counts = {"files": 0, "dirs": 0, "links": 0, "specials": 0}
    for _ in range(rng.randint(4, 18)):
        parent = rng.choice(dirs)
        name = _name(rng, utf8_only)
        if name in _AVOID or name.endswith(b".egg-info"):
            continue
        path = os.path.join(parent, name)
        if os.path.lexists(path):
            continue
        roll = rng.random()
        if roll < 0.25 and len(dirs) < 8:
            os.mkdir(path)
            dirs.append(path)
            counts["dirs"] += 1
        elif roll < 0.85 or not files:
            size = rng.choice([0, 0, 1, 7, 100, 3000])
            with open(path, "wb") as handle:
                handle.write(bytes(rng.randrange(256) for _ in range(size)))
            mode = rng.choice([0o644, 0o644, 0o755, 0o700, 0o744, 0o654, 0o600])
            os.chmod(path, mode)
            files.append(path)
            counts["files"] += 1
        elif roll < 0.95:
            choice = rng.random()
            if choice < 0.5:
                target = os.path.relpath(rng.choice(files), parent)
            elif choice < 0.7:
                target = os.path.relpath(rng.choice(dirs), parent)
            elif choice < 0.85 or not links_outside:
                target = b"missing" + name
            else:
                target = b"../" * (path.count(b"/") - base.count(b"/")) + b"../outside"
            os.symlink(target, path)
            counts["links"] += 1
        elif specials:
            os.mkfifo(path, rng.choice([0o644, 0o755]))
            counts["specials"] += 1
    return counts


# -- archives ------------------------------------------------------------------------------


def _members(root: Path) -> list[tuple[bytes, os.stat_result, Path]]:
    """(relative path bytes, lstat, absolute path) of everything under ``root``, sorted."""
    base = os.fsencode(root)
    found = []
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames.sort()
        for name in sorted(dirnames + filenames):
            path = os.path.join(dirpath, name)
            found.append((os.path.relpath(path, base), os.lstat(path), Path(os.fsdecode(path))))
    return found


def write_tar(root: Path, dest: Path, mode: str = "w", top: str | None = "proj-1.0") -> Path:
    """``tar -c`` of ``root`` (PAX headers: names that are not UTF-8 keep their bytes)."""
    with tarfile.open(dest, mode, format=tarfile.PAX_FORMAT) as archive:
        archive.add(root, arcname=top or ".")
    return dest


def _zip_info(name: str, st: os.stat_result, create_system: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
    info.create_system = create_system
    if create_system == 3:
        info.external_attr = st.st_mode << 16
    elif stat.S_ISDIR(st.st_mode):
        info.external_attr = 0x10  # the MS-DOS directory attribute
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def write_zip(root: Path, dest: Path, *, utf8_flag: bool = True, top: str | None = "proj-1.0") -> Path:
    """A zip of ``root`` made on Unix, as ``zip -r --symlinks`` makes it.

    With ``utf8_flag`` the names are UTF-8 with general purpose bit 11 set (zipfile's
    way; every name must then be UTF-8). Without it the names are their bytes as stored
    and no entry has the flag, as Info-ZIP's zip and ``git archive`` write them.
    """
    prefix = (top.encode() + b"/") if top else b""
    entries: list[tuple[bytes, os.stat_result, bytes]] = []
    if top:
        entries.append((prefix, os.stat(root), b""))
    for rel, st, path in _members(root):
        if stat.S_ISLNK(st.st_mode):
            entries.append((prefix + rel, st, os.readlink(os.fsencode(path))))
        elif stat.S_ISDIR(st.st_mode):
            entries.append((prefix + rel + b"/", st, b""))
        else:
            entries.append((prefix + rel, st, path.read_bytes()))
    return _write_zip_entries(dest, entries, utf8_flag=utf8_flag, create_system=3)


def write_dos_zip(files: dict[bytes, bytes], dest: Path) -> Path:
    """A zip made on MS-DOS: backslashes separate folders, names in code page 437."""
    regular = os.stat(dest.parent)
    st = os.stat_result((stat.S_IFREG | 0o644, *regular[1:]))
    entries = [(name, st, data) for name, data in files.items()]
    return _write_zip_entries(dest, entries, utf8_flag=False, create_system=0)


def _write_zip_entries(dest: Path, entries, *, utf8_flag: bool, create_system: int) -> Path:
    # zipfile writes a name that is not ASCII as UTF-8 with the flag set, and cannot
    # write one that is not UTF-8 at all: names are written as ASCII placeholders of
    # the same length and the bytes put in their place afterwards (local headers and
    # central directory; no offset moves and no checksum covers a name).
    placeholders: dict[bytes, bytes] = {}
    with zipfile.ZipFile(dest, "w") as archive:
        for index, (name, st, data) in enumerate(entries):
            if utf8_flag:
                written = name.decode("utf-8")
            else:
                token = b"\x01%05d" % index
                assert len(name) > len(token), name
                fill = name[-1:] if name.endswith(b"/") else b"\x02"
                placeholder = token + b"\x02" * (len(name) - len(token) - 1) + fill
                placeholders[placeholder] = name
                written = placeholder.decode("ascii")
            archive.writestr(_zip_info(written, st, create_system), data)
    if placeholders:
        raw = dest.read_bytes()
        for placeholder, name in placeholders.items():
            assert raw.count(placeholder) == 2, name
            raw = raw.replace(placeholder, name)
        dest.write_bytes(raw)
    return dest


def zip_flags(path: Path) -> list[tuple[bytes, int]]:
    """(stored name bytes, general purpose flags) of every central directory entry."""
    raw = path.read_bytes()
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        offset = archive.start_dir
        count = len(archive.infolist())
    found = []
    for _ in range(count):
        flags = struct.unpack_from("<H", raw, offset + 8)[0]
        n, m, k = struct.unpack_from("<HHH", raw, offset + 28)
        found.append((raw[offset + 46 : offset + 46 + n], flags))
        offset += 46 + n + m + k
    return found
