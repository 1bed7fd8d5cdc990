"""The SWHID we compute equals the one of Software Heritage's reference implementation,
``swh.model.from_disk``, on generated trees with every odd name and entry, and on every
kind of archive read in place (compared with swh.model's SWHID of its extraction)."""

from __future__ import annotations

import os
import socket
import stat
import unicodedata
from pathlib import Path

import pytest
from odd_trees import generate_tree, write_dos_zip, write_tar, write_zip, zip_flags
from swh.model.from_disk import Directory

from harvester.fetch import ExtractionLimits, materialize
from scoring.tree import TreeIndex
from scoring.trees.archives import TarTree, ZipTree, open_tree_source
from scoring.trees.sources import LocalDirectory
from scoring.trees.swhid import tree_identity

SEEDS = range(48)


def reference_swhid(root: Path) -> str:
    return str(Directory.from_disk(path=os.fsencode(root), max_content_length=None).swhid())


def our_swhid(source) -> str:
    return tree_identity(source).swhid


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> dict[int, tuple[Path, dict[str, int]]]:
    base = tmp_path_factory.mktemp("generated")
    return {seed: (base / f"tree{seed}", generate_tree(base / f"tree{seed}", seed, specials=True)) for seed in SEEDS}


@pytest.mark.parametrize("seed", SEEDS)
def test_generated_trees_have_the_swhid_of_swh_model(generated, seed):
    root, counts = generated[seed]
    assert our_swhid(LocalDirectory(root)) == reference_swhid(root)
    # ... and the scan loses no file to a name that looks like another.
    assert TreeIndex(LocalDirectory(root)).inventory().files == counts["files"]


def _features(root: Path) -> set[str]:
    found = set()
    for dirpath, dirnames, filenames in os.walk(os.fsencode(root)):
        if not dirnames and not filenames:
            found.add("empty folder")
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            mode = os.lstat(path).st_mode
            try:
                text = name.decode("utf-8")
            except UnicodeDecodeError:
                found.add("undecodable name")
                text = ""
            if "\ufffd" in text:
                found.add("U+FFFD name")
            if b"\\" in name:
                found.add("backslash name")
            if text != unicodedata.normalize("NFC", text):
                found.add("NFD name")
            if "\u00e9" in text:
                found.add("NFC name")
            if stat.S_ISLNK(mode):
                found.add("symlink")
            elif stat.S_ISFIFO(mode):
                found.add("fifo")
            elif stat.S_ISREG(mode):
                found.add("executable file" if mode & 0o111 else "plain file")
                if os.path.getsize(path) == 0:
                    found.add("empty file")
            if stat.S_ISDIR(mode) and dirpath != os.fsencode(root):
                found.add("nested folder")
    return found


def test_the_generated_trees_hold_every_case(generated):
    seen = set().union(*(_features(root) for root, _counts in generated.values()))
    assert seen == {
        "empty folder", "undecodable name", "U+FFFD name", "backslash name", "NFD name", "NFC name",
        "symlink", "fifo", "executable file", "plain file", "empty file", "nested folder",
    }


def test_a_tree_with_an_ff_name_and_a_real_fffd_name_is_hashed(tmp_path):
    root = tmp_path / "t"
    root.mkdir()
    for name, data in ((b"a\xff", b"1"), (b"a\xfe", b"2"), (b"a\xef\xbf\xbd", b"3")):
        (root / os.fsdecode(name)).write_bytes(data)
    identity = tree_identity(LocalDirectory(root))
    assert identity.swhid == reference_swhid(root)
    assert (identity.files, identity.bytes) == (3, 3)


def test_special_files_have_the_mode_swh_model_gives_them(tmp_path):
    root = tmp_path / "t"
    root.mkdir()
    (root / "a.txt").write_text("a\n")
    os.mkfifo(root / "fifo-plain", 0o644)
    os.mkfifo(root / "fifo-exec")
    os.chmod(root / "fifo-exec", 0o754)
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(root / "sock"))
        assert our_swhid(LocalDirectory(root)) == reference_swhid(root)
        by_path = {e.path: e for e in LocalDirectory(root).listdir("")}
        assert (by_path["fifo-exec"].executable, by_path["fifo-plain"].executable) == (True, False)
        # Hashed as Software Heritage hashes them, never read by the scorer.
        skipped = TreeIndex(LocalDirectory(root)).inventory().skipped
        assert skipped == [
            {"path": name, "reason": "special file (fifo, socket or device)"}
            for name in ("fifo-exec", "fifo-plain", "sock")
        ]


# -- archives read in place -------------------------------------------------------------

ARCHIVE_KINDS = {
    # kind: (file name, writer, names all UTF-8, the extraction keeps every name)
    "zip": ("t.zip", lambda root, dest: write_zip(root, dest), True, True),
    "zip-no-utf8-flag": ("t.zip", lambda root, dest: write_zip(root, dest, utf8_flag=False), False, False),
    "tar": ("t.tar", lambda root, dest: write_tar(root, dest, "w"), False, True),
    "tar.gz": ("t.tar.gz", lambda root, dest: write_tar(root, dest, "w:gz"), False, True),
    "tar.bz2": ("t.tar.bz2", lambda root, dest: write_tar(root, dest, "w:bz2"), False, True),
    "tar.xz": ("t.tar.xz", lambda root, dest: write_tar(root, dest, "w:xz"), False, True),
}


def extract(archive: Path, dest: Path) -> Path:
    return materialize([(archive.name, archive)], dest, ExtractionLimits())


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("kind", sorted(ARCHIVE_KINDS))
def test_archives_read_in_place_have_the_swhid_swh_model_gives_their_extraction(tmp_path, kind, seed):
    name, write, utf8_only, lossless = ARCHIVE_KINDS[kind]
    root = tmp_path / "src"
    generate_tree(root, 1000 + seed, utf8_only=utf8_only, links_outside=False)
    archive = write(root, tmp_path / name)
    source = open_tree_source(archive)
    assert isinstance(source, ZipTree if kind.startswith("zip") else TarTree)
    extracted = extract(archive, tmp_path / "extracted")
    assert our_swhid(source) == reference_swhid(extracted)
    if lossless:
        assert our_swhid(source) == reference_swhid(root)


def test_a_zip_without_the_utf8_flag_has_its_names_read_as_utf8_or_cp437(tmp_path):
    root = tmp_path / "src"
    root.mkdir()
    for name in (b"caf\xc3\xa9.py", b"\xff\xe9t\xe9.txt", b"back\\slash.md", b"plain.txt"):
        (root / os.fsdecode(name)).write_bytes(name)
    archive = write_zip(root, tmp_path / "t.zip", utf8_flag=False)
    assert [flags & 0x800 for _name, flags in zip_flags(archive)] == [0, 0, 0, 0, 0]
    source = open_tree_source(archive)
    # UTF-8 bytes are UTF-8; bytes that are not are code page 437 (0xff: NBSP, 0xe9: Θ).
    expected = ["back\\slash.md", "café.py", "plain.txt", "\u00a0ΘtΘ.txt"]
    assert [e.path for e in source.listdir("")] == expected
    extracted = extract(archive, tmp_path / "extracted")
    assert sorted(os.listdir(extracted)) == sorted(expected)
    assert our_swhid(source) == reference_swhid(extracted)
    assert source.read("\u00a0ΘtΘ.txt", 100) == b"\xff\xe9t\xe9.txt"


def test_backslashes_separate_only_in_zip_entries_made_on_ms_dos(tmp_path):
    archive = write_dos_zip(
        {b"proj\\src\\main.py": b"m", b"proj\\caf\x82.txt": b"c", b"proj\\README": b"r"},
        tmp_path / "dos.zip",
    )
    source = open_tree_source(archive)
    assert [e.path for e in source.listdir("")] == ["README", "café.txt", "src"]
    assert source.read("src/main.py", 10) == b"m"
    extracted = extract(archive, tmp_path / "extracted")
    assert our_swhid(source) == reference_swhid(extracted)

    tar_root = tmp_path / "tar-src"
    (tar_root / "a\\b").mkdir(parents=True)
    (tar_root / "a\\b" / "c\\d.py").write_text("x = 1\n")
    tarball = write_tar(tar_root, tmp_path / "t.tar.gz", "w:gz")
    source = open_tree_source(tarball)
    assert [e.path for e in source.listdir("")] == ["a\\b"]
    assert [e.path for e in source.listdir("a\\b")] == ["a\\b/c\\d.py"]
    assert our_swhid(source) == reference_swhid(tar_root)
    assert our_swhid(source) == reference_swhid(extract(tarball, tmp_path / "tar-extracted"))
