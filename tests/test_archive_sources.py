"""Zip and tar archives measured in place: the same tree, identity and measurements as
their extraction, and the same refusals for hostile archives.

Every archive is built here from a real tree (tests/fixtures/samples, or a tree made in
the test) and compared with what ``harvester.fetch.materialize`` extracts from it.
"""

from __future__ import annotations

import io
import os
import stat
import tarfile
import warnings
import zipfile
from pathlib import Path

import pytest

from harvester.fetch import FetchError, materialize
from scoring import measure
from scoring.tree import TreeIndex
from scoring.trees.archives import TarTree, ZipTree, open_tree_source
from scoring.trees.safety import ArchiveRuleError, ExtractionLimits
from scoring.trees.sources import KIND_DIR, LocalDirectory, TreeSourceError
from scoring.trees.swhid import tree_identity

SAMPLES = Path(__file__).parent / "fixtures" / "samples"

# git tree hashes of the sample trees (``git write-tree`` gives the same: none holds an
# empty folder).
SAMPLE_SWHIDS = {
    "legacy-scripts": "swh:1:dir:c190d6b00105909ace81c53507984baab3780dff",
    "notebook-ml-study": "swh:1:dir:b538440cc327ef6ed317cf2e16ba11202b59a22d",
    "r-survey-analysis": "swh:1:dir:0d97c8488e14abaee9c5b528f78524cf6c96c37d",
    "snakemake-rnaseq": "swh:1:dir:f4af46bf46f33746dd68f1209e296013a73a8f42",
}

TAR_MODES = {"tar": "w", "tar.gz": "w:gz", "tgz": "w:gz", "tar.bz2": "w:bz2", "tar.xz": "w:xz"}
LIMITS = ExtractionLimits()


# -- building archives from real trees -----------------------------------------------------


def zip_entry(name: str, mode: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
    info.create_system = 3  # Unix: the high bits of external_attr are the mode
    info.external_attr = mode << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def zip_dir(root: Path, dest: Path, top: str | None = None) -> Path:
    """A zip of ``root`` as ``zip -r --symlinks`` makes it: folders, modes and links kept."""
    prefix = f"{top}/" if top else ""
    with zipfile.ZipFile(dest, "w") as archive:
        if top:
            archive.writestr(zip_entry(prefix, stat.S_IFDIR | 0o755), b"")
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            for name in sorted(dirnames + filenames):
                path = Path(dirpath) / name
                arc = prefix + path.relative_to(root).as_posix()
                mode = path.lstat().st_mode
                if stat.S_ISLNK(mode):
                    archive.writestr(zip_entry(arc, stat.S_IFLNK | 0o777), os.readlink(path))
                elif stat.S_ISDIR(mode):
                    archive.writestr(zip_entry(arc + "/", mode), b"")
                else:
                    archive.writestr(zip_entry(arc, mode), path.read_bytes())
    return dest


def tar_dir(root: Path, dest: Path, mode: str, top: str | None = None) -> Path:
    """A tar of ``root`` as ``tar -c`` makes it (links, hard links and modes kept)."""
    with tarfile.open(dest, mode, format=tarfile.PAX_FORMAT) as archive:
        archive.add(root, arcname=top or ".")
    return dest


def make_archive(root: Path, tmp_path: Path, kind: str, top: str | None = "proj-1.0") -> Path:
    dest = tmp_path / f"{root.name}.{kind}"
    if kind == "zip":
        return zip_dir(root, dest, top)
    return tar_dir(root, dest, TAR_MODES[kind], top)


def extract(archive: Path, tmp_path: Path, limits: ExtractionLimits = LIMITS) -> Path:
    return materialize([(str(archive), archive)], tmp_path / f"extracted-{archive.name}", limits)


def entries(source, path: str = "") -> list:
    """Every Entry of the tree, depth first, as the tree index and the hasher see them."""
    found = []
    for entry in source.listdir(path):
        found.append(entry)
        if entry.kind == KIND_DIR:
            found.extend(entries(source, entry.path))
    return found


def assert_same_tree(in_place, directory: Path) -> None:
    extracted = LocalDirectory(directory)
    assert entries(in_place) == entries(extracted)
    assert tree_identity(in_place) == tree_identity(extracted)
    assert measure(in_place).to_dict() == measure(directory).to_dict()


# -- the samples, in every format ----------------------------------------------------------


@pytest.mark.parametrize("kind", ["zip", *TAR_MODES])
@pytest.mark.parametrize("sample", sorted(SAMPLE_SWHIDS))
def test_samples_measured_in_place_equal_their_extraction(tmp_path, sample, kind):
    archive = make_archive(SAMPLES / sample, tmp_path, kind)
    source = open_tree_source(archive)
    assert isinstance(source, ZipTree if kind == "zip" else TarTree)
    assert tree_identity(source).swhid == SAMPLE_SWHIDS[sample]  # the top folder is stripped
    assert_same_tree(source, extract(archive, tmp_path))
    # ... and the same as the sample itself.
    assert measure(source).to_dict() == measure(SAMPLES / sample).to_dict()


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
def test_an_archive_without_a_top_folder_is_its_tree(tmp_path, kind):
    archive = make_archive(SAMPLES / "snakemake-rnaseq", tmp_path, kind, top=None)
    source = open_tree_source(archive)
    assert tree_identity(source).swhid == SAMPLE_SWHIDS["snakemake-rnaseq"]
    assert_same_tree(source, extract(archive, tmp_path))


# -- a tree with everything an archive can hold --------------------------------------------


@pytest.fixture
def rich_tree(tmp_path) -> Path:
    root = tmp_path / "rich"
    files = {
        "docs/README.md": "# Rich\n\nRun `./run.sh`.\n",
        "docs/guide.md": "## Usage\n\n```\npython -m pkg\n```\n",
        "src/pkg/__init__.py": "",
        "src/pkg/core.py": "import numpy as np\n\nSEED = 42\nnp.random.seed(SEED)\n",
        "requirements.txt": "numpy==1.26.4\n",
        "run.sh": "#!/bin/sh\npython -m pkg\n",
        "café.py": "print('unicode name')\n",
        ".git/config": "[core]\n",
        "node_modules/x/index.js": "module.exports = 1\n",
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (root / "run.sh").chmod(0o755)
    (root / "empty" / "nested").mkdir(parents=True)
    os.link(root / "src/pkg/core.py", root / "src/pkg/core_copy.py")
    os.symlink("docs/README.md", root / "README.md")
    os.symlink("src", root / "code")
    os.symlink("missing.py", root / "dangling.py")
    os.symlink("loop_b", root / "loop_a")
    os.symlink("loop_a", root / "loop_b")
    os.symlink("../pkg/core.py", root / "src/pkg_link.py")  # dangling: src/../pkg
    return root


@pytest.mark.parametrize("kind", ["zip", *TAR_MODES])
def test_links_modes_empty_folders_and_hard_links_are_the_same_as_extracted(tmp_path, rich_tree, kind):
    archive = make_archive(rich_tree, tmp_path, kind)
    source = open_tree_source(archive)
    extracted = extract(archive, tmp_path)
    assert_same_tree(source, extracted)
    assert tree_identity(source) == tree_identity(LocalDirectory(rich_tree))
    by_path = {e.path: e for e in entries(source)}
    assert by_path["run.sh"].executable and not by_path["requirements.txt"].executable
    assert by_path["README.md"].link_target == "docs/README.md"
    assert by_path["code"].link_target_kind == KIND_DIR
    assert by_path["dangling.py"].link_status == "dangling"
    assert by_path["loop_a"].link_status == "loop"
    assert by_path["empty/nested"].kind == KIND_DIR
    assert source.readlink("README.md") == b"docs/README.md"
    skipped = {s["path"]: s["reason"] for s in TreeIndex(source).inventory().skipped}
    assert skipped == {
        "code": "symbolic link to a directory inside the tree (not followed)",
        "dangling.py": "dangling symbolic link",
        "loop_a": "symbolic link loop",
        "loop_b": "symbolic link loop",
        "src/pkg_link.py": "dangling symbolic link",
    }


def test_names_that_are_not_utf8_are_kept_as_bytes(tmp_path):
    root = tmp_path / "latin"
    root.mkdir()
    (root / os.fsdecode(b"caf\xe9.py")).write_text("x = 1\n")
    (root / "main.py").write_text("import os\n")
    archive = tar_dir(root, tmp_path / "latin.tar.gz", "w:gz")
    source = open_tree_source(archive)
    assert [e.path for e in source.listdir("")] == ["caf\udce9.py", "main.py"]
    assert source.raw_name("caf\udce9.py") == b"caf\xe9.py"
    assert source.read("caf\udce9.py", 100) == b"x = 1\n"
    assert tree_identity(source) == tree_identity(LocalDirectory(root))
    assert_same_tree(source, extract(archive, tmp_path))


def tar_member(name, kind=tarfile.REGTYPE, *, data=b"", linkname="", mode=0o644):
    info = tarfile.TarInfo(name)
    info.type = kind
    info.mode = mode
    info.linkname = linkname
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    return info, data


def make_tar(path: Path, members, mode: str = "w:gz") -> Path:
    with tarfile.open(path, mode) as archive:
        for info, data in members:
            archive.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return path


def make_zip(path: Path, members) -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # duplicate names, on purpose
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, data in members:
                archive.writestr(name, data)
    return path


def test_a_later_member_of_the_same_name_wins_and_a_hard_link_copies_the_first(tmp_path):
    archive = make_tar(
        tmp_path / "dup.tgz",
        [
            tar_member("p/a.txt", data=b"first\n"),
            tar_member("p/copy.txt", tarfile.LNKTYPE, linkname="p/a.txt"),
            tar_member("p/a.txt", data=b"second\n", mode=0o755),
            tar_member("p/b.txt", data=b"b\n"),
        ],
    )
    source = open_tree_source(archive)
    assert source.read("a.txt", 100) == b"second\n"
    assert source.read("copy.txt", 100) == b"first\n"
    assert [(e.path, e.executable) for e in source.listdir("")] == [
        ("a.txt", True),
        ("b.txt", False),
        ("copy.txt", False),
    ]
    assert_same_tree(source, extract(archive, tmp_path))


def test_a_zip_with_duplicate_names_keeps_the_last(tmp_path):
    archive = make_zip(tmp_path / "dup.zip", [("p/a.txt", b"first"), ("p/a.txt", b"last"), ("p/b", b"b")])
    source = open_tree_source(archive)
    assert source.read("a.txt", 100) == b"last"
    assert_same_tree(source, extract(archive, tmp_path))


# -- what is read, and what stays in memory ------------------------------------------------


def test_a_compressed_tar_is_streamed_once_and_its_small_members_kept(tmp_path):
    archive = make_archive(SAMPLES / "snakemake-rnaseq", tmp_path, "tar.gz")
    source = open_tree_source(archive)
    total = sum(p.stat().st_size for p in (SAMPLES / "snakemake-rnaseq").rglob("*") if p.is_file())
    assert source.kept_bytes == total == 4914
    tree_identity(source)
    measure(source)
    assert source.passes == 1


def test_an_uncompressed_tar_keeps_nothing_and_reads_members_at_their_offset(tmp_path):
    archive = make_archive(SAMPLES / "snakemake-rnaseq", tmp_path, "tar")
    source = open_tree_source(archive)
    assert source.compression == "tar"
    assert_same_tree(source, extract(archive, tmp_path))
    assert source.kept_bytes == 0
    assert source.passes == 1


def test_members_over_the_memory_bound_are_streamed_again_not_kept(tmp_path, rich_tree):
    (rich_tree / "data.bin").write_bytes(bytes(range(256)) * 400)  # 102,400 bytes
    archive = make_archive(rich_tree, tmp_path, "tar.xz")
    source = TarTree(archive, keep_file_bytes=1000)
    assert source.kept_bytes == sum(
        len(p.read_bytes()) for p in rich_tree.rglob("*") if p.is_file() and not p.is_symlink()
        and p.stat().st_size <= 1000 and p.name != "core_copy.py"  # a hard link shares its data
    )
    # Identity needs no second pass (each blob was hashed while streaming)...
    assert tree_identity(source) == tree_identity(LocalDirectory(rich_tree))
    assert source.passes == 1
    # ... and a member that was not kept is streamed again when read.
    assert source.read("data.bin", 10**6) == bytes(range(256)) * 400
    assert source.passes == 2
    assert measure(source).to_dict() == measure(extract(archive, tmp_path)).to_dict()


def test_prefetch_keeps_what_the_scorer_reads_in_one_more_pass(tmp_path, rich_tree):
    archive = make_archive(rich_tree, tmp_path, "tar.gz")
    source = TarTree(archive, keep_total_bytes=60)

    def kept():
        return {path: data.size for path, data in source.file_data() if data.content is not None}

    # The first pass keeps small members in archive order until 60 bytes are kept.
    assert kept() == {"café.py": 22, ".git/config": 7, "docs/README.md": 24, "src/pkg/__init__.py": 0}
    TreeIndex(source)  # the index prefetches the files detectors will read
    # .git/config is read by no detector: dropped; requirements.txt fits in its place.
    assert kept() == {"café.py": 22, "requirements.txt": 14, "docs/README.md": 24, "src/pkg/__init__.py": 0}
    assert (source.passes, source.kept_bytes) == (2, 60)
    assert measure(source).to_dict() == measure(extract(archive, tmp_path)).to_dict()


def test_zip_members_hashed_for_identity_are_not_decompressed_again(tmp_path):
    archive = make_archive(SAMPLES / "notebook-ml-study", tmp_path, "zip")
    with open_tree_source(archive) as source:
        assert source.keep.kept == 0  # opening reads no member data
        tree_identity(source)
        assert source.keep.kept == 2883  # every member, read once while hashing
        assert all(data.blob is not None for _path, data in source.file_data())
        assert measure(source).to_dict() == measure(SAMPLES / "notebook-ml-study").to_dict()


# -- choosing a source by content ----------------------------------------------------------


def test_open_tree_source_goes_by_content_not_by_name(tmp_path):
    zipped = make_archive(SAMPLES / "legacy-scripts", tmp_path, "zip")
    tarred = make_archive(SAMPLES / "legacy-scripts", tmp_path, "tar.bz2")
    disguised_zip = zipped.rename(tmp_path / "release.tar.gz")
    disguised_tar = tarred.rename(tmp_path / "release.zip")
    assert isinstance(open_tree_source(disguised_zip), ZipTree)
    assert isinstance(open_tree_source(disguised_tar), TarTree)
    assert isinstance(open_tree_source(SAMPLES / "legacy-scripts"), LocalDirectory)
    for tree in (disguised_zip, disguised_tar):
        assert tree_identity(open_tree_source(tree)).swhid == SAMPLE_SWHIDS["legacy-scripts"]


@pytest.mark.parametrize(
    ("content", "name"),
    [
        (b'{"message": "Not Found"}', "repo-v1.zip"),
        (b"<!DOCTYPE html>", "src.tar.gz"),
        (b"", "empty.zip"),
    ],
)
def test_what_is_not_an_archive_is_refused(tmp_path, content, name):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(TreeSourceError, match="not a directory, a zip or a tar archive"):
        open_tree_source(path)


def test_a_gzipped_csv_is_not_a_tar(tmp_path):
    import gzip

    path = tmp_path / "data.csv.gz"
    path.write_bytes(gzip.compress(b"a,b\n1,2\n" * 100))
    with pytest.raises(TreeSourceError, match="not a directory, a zip or a tar archive"):
        open_tree_source(path)


def test_a_missing_path_is_refused(tmp_path):
    with pytest.raises(TreeSourceError, match="no such file or directory"):
        open_tree_source(tmp_path / "nope.zip")


# -- hostile archives: refused in place exactly as extraction refuses them -----------------


def zip_link(name: str, target: bytes):
    info = zipfile.ZipInfo(name)
    info.create_system = 3
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info, target


def dos_entry(name: str) -> zipfile.ZipInfo:
    """A member as a Windows tool writes it: made on MS-DOS, so its name is a DOS path."""
    info = zipfile.ZipInfo(name)
    info.create_system = 0
    return info


def zip_special(name: str, mode: int):
    info = zipfile.ZipInfo(name)
    info.create_system = 3
    info.external_attr = mode << 16
    return info, b""


def device(name: str, kind: bytes):
    info, data = tar_member(name, kind)
    info.devmajor, info.devminor = 8, 0
    return info, data


def mark_encrypted(path: Path, name: str) -> None:
    """Set the "encrypted" flag of member ``name`` in both of its headers (zipfile will
    not write it): no password can ever be given, so it cannot be read."""
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        local = archive.getinfo(name).header_offset
    data[local + 6] |= 0x1
    central = data.index(b"PK\x01\x02")
    while data[central + 46 : central + 46 + len(name)] != name.encode():
        central = data.index(b"PK\x01\x02", central + 4)
    data[central + 8] |= 0x1
    path.write_bytes(bytes(data))


MIB2 = 2 * 1024 * 1024

HOSTILE = {
    "zip-dot-dot": (
        "zip",
        [("ok/a.txt", b"a"), ("../evil.txt", b"pwned")],
        "parent-traversal",
        "../evil.txt",
        "path leaving the tree '../evil.txt'",
    ),
    "zip-backslash-dot-dot": (
        "zip",
        [("ok/a.txt", b"a"), (dos_entry("ok\\..\\..\\evil.txt"), b"pwned")],
        "parent-traversal",
        "ok\\..\\..\\evil.txt",
        "path leaving the tree 'ok\\\\..\\\\..\\\\evil.txt'",
    ),
    "tar-dot-dot": (
        "tgz",
        [tar_member("../../evil.txt", data=b"pwned")],
        "parent-traversal",
        "../../evil.txt",
        "path leaving the tree '../../evil.txt'",
    ),
    "zip-absolute": (
        "zip",
        [("ok/a.txt", b"a"), ("/tmp/reproscore-evil.txt", b"pwned")],
        "absolute-path",
        "/tmp/reproscore-evil.txt",
        "absolute path '/tmp/reproscore-evil.txt'",
    ),
    "zip-drive-letter": (
        "zip",
        [("C:/evil.txt", b"pwned")],
        "absolute-path",
        "C:/evil.txt",
        "absolute path 'C:/evil.txt'",
    ),
    "tar-absolute": (
        "tgz",
        [tar_member("/tmp/reproscore-evil.txt", data=b"x")],
        "absolute-path",
        "/tmp/reproscore-evil.txt",
        "absolute path '/tmp/reproscore-evil.txt'",
    ),
    "tar-symlink-to-etc-passwd": (
        "tgz",
        [tar_member("p/README", data=b"r"), tar_member("p/passwd", tarfile.SYMTYPE, linkname="/etc/passwd")],
        "link-escape",
        "p/passwd",
        "link 'p/passwd' points outside the tree ('/etc/passwd')",
    ),
    "zip-symlink-climbing-out": (
        "zip",
        [("p/README", b"r"), zip_link("p/up", b"../../../../../../etc/passwd")],
        "link-escape",
        "p/up",
        "link 'p/up' points outside the tree ('../../../../../../etc/passwd')",
    ),
    "symlink-out-of-the-stripped-folder": (
        "tgz",
        [tar_member("p/a", data=b"a"), tar_member("p/parent", tarfile.SYMTYPE, linkname="..")],
        "link-escape",
        "p/parent",
        "link 'p/parent' points outside the tree ('..')",
    ),
    "symlink-out-and-back-through-the-top-folder": (
        "tgz",
        [tar_member("p/a", data=b"a"), tar_member("p/b", tarfile.SYMTYPE, linkname="../p/a")],
        "link-escape",
        "p/b",
        "link 'p/b' points outside the tree ('../p/a')",
    ),
    "chained-symlinks-escaping-together": (
        "tgz",
        [
            tar_member("d/x", data=b"x"),
            tar_member("top.txt", data=b"t"),
            tar_member("d/l", tarfile.SYMTYPE, linkname=".."),
            tar_member("m", tarfile.SYMTYPE, linkname="d/l/.."),
        ],
        "link-escape",
        "m",
        "link 'm' points outside the tree ('d/l/..')",
    ),
    "file-written-through-a-link": (
        "tgz",
        [
            tar_member("a", tarfile.SYMTYPE, linkname="../outside"),
            tar_member("a/pwned.txt", data=b"pwned"),
            tar_member("b.txt", data=b"b"),
        ],
        "conflict",
        "a",
        "'a' is both a link and another entry",
    ),
    "two-links-of-one-name": (
        "tgz",
        [
            tar_member("x.txt", data=b"x"),
            tar_member("l", tarfile.SYMTYPE, linkname="x.txt"),
            tar_member("l", tarfile.SYMTYPE, linkname="x.txt"),
        ],
        "conflict",
        "l",
        "'l' is both a link and another entry",
    ),
    "file-then-folder-of-one-name": (
        "tgz",
        [tar_member("p/x", data=b"file"), tar_member("p/x/y", data=b"nested")],
        "conflict",
        "p/x/y",
        "cannot extract 'p/x/y': 'p/x' is not a folder",
    ),
    "folder-then-file-of-one-name": (
        "tgz",
        [tar_member("p/x/y", data=b"nested"), tar_member("p/x", data=b"file")],
        "conflict",
        "p/x",
        "cannot extract 'p/x': 'p/x' is both a folder and a file",
    ),
    "name-too-long": (
        "zip",
        [("p/" + "a" * 256 + ".txt", b"x"), ("q", b"q")],
        "name-too-long",
        "p/" + "a" * 256 + ".txt",
        f"cannot extract 'p/{'a' * 256}.txt': File name too long",
    ),
    "tar-hard-link-out-of-the-tree": (
        "tgz",
        [tar_member("p/README", data=b"r"), tar_member("p/passwd", tarfile.LNKTYPE, linkname="/etc/passwd")],
        "hard-link",
        "p/passwd",
        "hard link 'p/passwd' leaves the tree ('/etc/passwd')",
    ),
    "tar-hard-link-to-nothing-before-it": (
        "tgz",
        [tar_member("p/x", tarfile.LNKTYPE, linkname="p/later"), tar_member("p/later", data=b"l")],
        "hard-link",
        "p/x",
        "hard link 'p/x' to 'p/later', not a file extracted before it",
    ),
    "tar-fifo": (
        "tgz",
        [tar_member("p/README", data=b"r"), device("p/pipe", tarfile.FIFOTYPE)],
        "special-file",
        "p/pipe",
        "'p/pipe' is a device or special file",
    ),
    "tar-block-device": (
        "tar",
        [tar_member("p/README", data=b"r"), device("p/sda", tarfile.BLKTYPE)],
        "special-file",
        "p/sda",
        "'p/sda' is a device or special file",
    ),
    "tar-character-device": (
        "tar.xz",
        [device("p/null", tarfile.CHRTYPE)],
        "special-file",
        "p/null",
        "'p/null' is a device or special file",
    ),
    "zip-device": (
        "zip",
        [zip_special("p/null", stat.S_IFCHR | 0o666)],
        "special-file",
        "p/null",
        "'p/null' is a device or special file",
    ),
    "zip-bomb-ratio": (
        "zip",
        [("bomb/zeros.bin", b"\x00" * MIB2)],
        "ratio-cap",
        None,
        "compression ratio {ratio}:1 exceeds the 200:1 cap (zip bomb?)",
    ),
    "tar-bomb-ratio": (
        "tgz",
        [tar_member("zeros.bin", data=b"\x00" * MIB2)],
        "ratio-cap",
        "zeros.bin",
        "compression ratio {ratio}:1 exceeds the 200:1 cap (zip bomb?)",
    ),
    "encrypted-zip-member": (
        "zip",
        [("p/a.txt", b"a"), ("p/secret.txt", b"secret")],
        "corrupt",
        None,
        "cannot read zip archive: File {info} is encrypted, password required for extraction",
    ),
}


def build_hostile(tmp_path: Path, kind: str, members) -> Path:
    if kind == "zip":
        archive = make_zip(tmp_path / "hostile.zip", members)
        if any(name == "p/secret.txt" for name, _ in members):
            mark_encrypted(archive, "p/secret.txt")
        return archive
    return make_tar(tmp_path / f"hostile.{kind}", members, TAR_MODES[kind])


def refusals(archive: Path, tmp_path: Path, limits: ExtractionLimits = LIMITS):
    """(in-place refusal, extraction refusal) for the same archive."""
    with pytest.raises(ArchiveRuleError) as in_place:
        open_tree_source(archive, limits=limits)
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    with pytest.raises(FetchError) as extracted:
        materialize([(str(archive), archive)], out / "tree", limits)
    assert os.listdir(out) == []  # nothing left behind
    return in_place.value, extracted.value


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_archives_are_refused_in_place_as_extraction_refuses_them(tmp_path, case):
    kind, members, rule, member, sentence = HOSTILE[case]
    archive = build_hostile(tmp_path, kind, members)
    error, fetch_error = refusals(archive, tmp_path)
    assert isinstance(error, TreeSourceError)
    assert error.rule == rule
    assert error.member == member
    # One rule, one sentence: the harvester records the very reason a refusal in place gives.
    assert error.reason == fetch_error.reason
    if "{ratio}" in sentence:
        ratio = round(MIB2 / archive.stat().st_size)
        sentence = sentence.format(ratio=ratio)
    if "{info}" in sentence:
        with zipfile.ZipFile(archive) as opened:
            sentence = sentence.format(info=repr(opened.getinfo("p/secret.txt")))
    assert error.reason == f"{archive}: {sentence}"
    assert not Path("/tmp/reproscore-evil.txt").exists()


@pytest.mark.parametrize(
    ("limits", "rule", "member", "sentence"),
    [
        (ExtractionLimits(max_file_bytes=4096), "file-cap", "p/big.bin", "'p/big.bin' is 5000 bytes, over the 4096-byte file cap"),
        (ExtractionLimits(max_total_bytes=6000), "total-cap", None, "the deposit exceeds the 6000-byte total cap"),
        (ExtractionLimits(max_entries=2), "entry-cap", None, "more than 2 entries"),
    ],
)
def test_caps_are_the_extraction_caps_zip(tmp_path, limits, rule, member, sentence):
    archive = make_zip(tmp_path / "a.zip", [("p/big.bin", os.urandom(5000)), ("p/s", os.urandom(2000)), ("p/t", b"t")])
    error, fetch_error = refusals(archive, tmp_path, limits)
    assert (error.rule, error.member, error.reason) == (rule, member, f"{archive}: {sentence}")
    assert error.reason == fetch_error.reason


@pytest.mark.parametrize(
    ("limits", "rule", "member", "sentence"),
    [
        (ExtractionLimits(max_file_bytes=4096), "file-cap", "p/big.bin", "'p/big.bin' is 5000 bytes, over the 4096-byte file cap"),
        (ExtractionLimits(max_total_bytes=6000), "total-cap", "p/s", "the deposit exceeds the 6000-byte total cap"),
        (ExtractionLimits(max_entries=2), "entry-cap", "p/t", "more than 2 entries"),
    ],
)
def test_caps_are_the_extraction_caps_tar(tmp_path, limits, rule, member, sentence):
    archive = make_tar(
        tmp_path / "a.tar.bz2",
        [tar_member("p/big.bin", data=os.urandom(5000)), tar_member("p/s", data=os.urandom(2000)), tar_member("p/t", data=b"t")],
        "w:bz2",
    )
    error, fetch_error = refusals(archive, tmp_path, limits)
    assert (error.rule, error.member, error.reason) == (rule, member, f"{archive}: {sentence}")
    assert error.reason == fetch_error.reason


def test_small_repetitive_archives_are_not_bombs(tmp_path):
    archive = make_zip(tmp_path / "a.zip", [("p/blank.txt", b" " * 500_000)])
    source = open_tree_source(archive)
    assert source.read("blank.txt", 10**6) == b" " * 500_000


def test_a_truncated_tarball_is_refused_as_extraction_refuses_it(tmp_path):
    good = make_tar(tmp_path / "g.tgz", [tar_member("a/x", data=os.urandom(20_000))]).read_bytes()
    bad = tmp_path / "b.tgz"
    bad.write_bytes(good[: len(good) // 2])
    error, fetch_error = refusals(bad, tmp_path)
    assert error.rule == "corrupt"
    assert error.reason == fetch_error.reason
    assert error.reason.startswith(f"{bad}: corrupt tar archive: ")


def test_a_corrupt_zip_member_fails_identity_with_its_name(tmp_path):
    good = tmp_path / "good.zip"
    with zipfile.ZipFile(good, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("p/a.txt", b"hello world, " * 20)
        archive.writestr("p/b.txt", b"b")
    data = bytearray(good.read_bytes())
    at = data.index(b"hello world")
    data[at] = ord("H")  # the stored bytes no longer match their CRC
    bad = tmp_path / "bad.zip"
    bad.write_bytes(bytes(data))
    source = open_tree_source(bad)  # headers are sound: refused when the member is read
    with pytest.raises(ArchiveRuleError) as caught:
        tree_identity(source)
    assert (caught.value.rule, caught.value.member) == ("corrupt", "a.txt")
    assert caught.value.reason == f"{bad}: cannot read 'a.txt': Bad CRC-32 for file 'p/a.txt'"
    with pytest.raises(FetchError, match="corrupt zip archive: Bad CRC-32 for file 'p/a.txt'"):
        materialize([(str(bad), bad)], tmp_path / "tree", LIMITS)


def test_a_refusal_names_the_member_and_the_rule(tmp_path):
    archive = make_tar(tmp_path / "a.tgz", [tar_member("p/ok", data=b"x"), tar_member("p/../../x", data=b"x")])
    with pytest.raises(TreeSourceError) as caught:
        open_tree_source(archive)
    assert str(caught.value) == f"{archive}: path leaving the tree 'p/../../x' [rule: parent-traversal]"
