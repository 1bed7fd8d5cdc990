"""Downloads (against a real HTTP server on 127.0.0.1) and safe extraction of hostile archives.

Every hostile archive is built here, in the test, so what each one does is visible next to
the assertion about it.
"""

from __future__ import annotations

import hashlib
import io
import os
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest
from replay_server import ReplayServer, Reply

from harvester.fetch import (
    ExtractionLimits,
    FetchError,
    download,
    materialize,
    safe_relpath,
    sniff,
)
from harvester.http import HttpClient, HttpError

LIMITS = ExtractionLimits()


# -- helpers -------------------------------------------------------------------------------


def md5(data: bytes) -> str:
    return hashlib.md5(data).hexdigest()


def make_zip(path: Path, entries: list) -> Path:
    """``entries``: (name, bytes) pairs, or (ZipInfo, bytes) for special modes."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries:
            archive.writestr(name, data)
    return path


def dos_entry(name: str) -> zipfile.ZipInfo:
    """A member as a Windows tool writes it: made on MS-DOS, so its name is a DOS path."""
    info = zipfile.ZipInfo(name)
    info.create_system = 0
    return info


def zip_info(name: str, mode: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.external_attr = mode << 16
    info.create_system = 3  # Unix, so the mode bits mean what they say
    return info


def tar_member(
    name: str,
    kind: bytes = tarfile.REGTYPE,
    *,
    data: bytes = b"",
    linkname: str = "",
    mode: int = 0o644,
) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.mode = mode
    info.linkname = linkname
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    return info, data


def make_tar(path: Path, members: list[tuple[tarfile.TarInfo, bytes]], mode: str = "w:gz") -> Path:
    with tarfile.open(path, mode) as archive:
        for info, data in members:
            archive.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return path


def listing(root: Path) -> dict[str, bytes | str]:
    """Relative path → file bytes, or '->target' for links, for every non-folder under root."""
    found: dict[str, bytes | str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in filenames + [d for d in dirnames if (Path(dirpath) / d).is_symlink()]:
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            found[rel] = f"->{os.readlink(path)}" if path.is_symlink() else path.read_bytes()
    return found


def assert_refused(tmp_path: Path, files, match: str, limits: ExtractionLimits = LIMITS):
    """materialize must raise FetchError and leave no tree or staging folder behind."""
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    before = set(os.listdir(out))
    with pytest.raises(FetchError, match=match) as caught:
        materialize(files, out / "tree", limits)
    assert set(os.listdir(out)) == before, "refused extraction left something in dest"
    return caught.value


@pytest.fixture
def server():
    with ReplayServer() as srv:
        yield srv


@pytest.fixture
def client():
    with HttpClient(
        user_agent="reproscore-test",
        timeout=(2, 2),
        max_attempts=3,
        backoff_base=0.0,
        sleep=lambda s: None,
    ) as http:
        yield http


# -- download ------------------------------------------------------------------------------

CONTENT = b"print('hello')\n" * 1000


def test_download_verifies_and_places_the_file(server, client, tmp_path):
    server.add("GET", "/api/records/1/files/owner/repo-1.0.zip/content", Reply(200, body=CONTENT))
    dest = tmp_path / "dl" / "owner" / "repo-1.0.zip"  # keys may contain '/'
    result = download(
        client,
        server.url + "/api/records/1/files/owner/repo-1.0.zip/content",
        dest,
        expected_size=len(CONTENT),
        expected_md5="md5:" + md5(CONTENT),
        max_bytes=1_000_000,
    )
    assert result == dest and dest.read_bytes() == CONTENT
    assert server.requests[0]["headers"]["Accept-Encoding"] == "identity"
    assert os.listdir(dest.parent) == ["repo-1.0.zip"]  # no partial file left


def test_download_accepts_a_bare_md5_and_no_expectations(server, client, tmp_path):
    server.add("GET", "/f", Reply(200, body=CONTENT))
    download(
        client,
        server.url + "/f",
        tmp_path / "a",
        expected_md5=md5(CONTENT).upper(),
        max_bytes=10**6,
    )
    download(client, server.url + "/f", tmp_path / "b", max_bytes=10**6)
    assert (tmp_path / "a").read_bytes() == (tmp_path / "b").read_bytes() == CONTENT


def test_md5_mismatch_is_refused_and_the_old_file_kept(server, client, tmp_path):
    server.add("GET", "/f", Reply(200, body=CONTENT))
    dest = tmp_path / "f.zip"
    dest.write_bytes(b"previous good copy")
    with pytest.raises(FetchError, match=r"MD5 mismatch: got .*, expected 0+ \(3 attempts\)$"):
        download(client, server.url + "/f", dest, expected_md5="md5:" + "0" * 32, max_bytes=10**6)
    assert len(server.requests) == 3  # fetched again before the content is called wrong
    assert dest.read_bytes() == b"previous good copy"
    assert os.listdir(tmp_path) == ["f.zip"]


def test_size_mismatch_is_refused(server, client, tmp_path):
    server.add("GET", "/f", Reply(200, body=CONTENT))
    with pytest.raises(FetchError, match=rf"size mismatch: got {len(CONTENT)} bytes, expected 10 \(3 attempts\)$"):
        download(client, server.url + "/f", tmp_path / "f", expected_size=10, max_bytes=10**6)
    assert os.listdir(tmp_path) == []


def test_a_body_shorter_than_announced_with_a_success_status_is_fetched_again(server, client, tmp_path):
    # A proxy cut the file and sent a Content-Length to match: the HTTP exchange is whole,
    # only the record's size and MD5 show the body is short.
    server.add(
        "GET", "/f",
        Reply(200, body=CONTENT[:500]),
        Reply(200, body=CONTENT[:500]),
        Reply(200, body=CONTENT),
    )
    dest = download(
        client, server.url + "/f", tmp_path / "f",
        expected_size=len(CONTENT), expected_md5=md5(CONTENT), max_bytes=10**6,
    )
    assert dest.read_bytes() == CONTENT
    assert len(server.requests) == 3
    assert client.stats["retries"] == 2
    assert os.listdir(tmp_path) == ["f"]


def test_a_file_declared_over_the_cap_is_not_even_requested(server, client, tmp_path):
    with pytest.raises(FetchError, match="more than the 1000-byte cap"):
        download(client, server.url + "/f", tmp_path / "f", expected_size=5000, max_bytes=1000)
    assert server.requests == []


def test_a_file_announced_over_the_cap_is_not_read(server, client, tmp_path):
    server.add("GET", "/f", Reply(200, body=CONTENT))
    with pytest.raises(FetchError, match="server announces 15000 bytes"):
        download(client, server.url + "/f", tmp_path / "f", max_bytes=1000)
    assert os.listdir(tmp_path) == []


def test_a_stream_growing_over_the_cap_is_cut(server, client, tmp_path):
    # Chunked transfer: no Content-Length to refuse up front, the cap applies as bytes arrive.
    server.add(
        "GET",
        "/f",
        Reply(200, body=b"x" * 50_000, chunk_size=4096, headers={"Transfer-Encoding": "chunked"}),
    )
    with pytest.raises(FetchError, match="exceeds the 10000-byte cap"):
        download(client, server.url + "/f", tmp_path / "f", max_bytes=10_000)
    assert os.listdir(tmp_path) == []


def test_a_truncated_download_is_fetched_again(server, client, tmp_path):
    server.add("GET", "/f", Reply(200, body=CONTENT, truncate=100), Reply(200, body=CONTENT))
    dest = download(
        client, server.url + "/f", tmp_path / "f", expected_md5=md5(CONTENT), max_bytes=10**6
    )
    assert dest.read_bytes() == CONTENT
    assert len(server.requests) == 2


def test_a_download_truncated_every_time_fails_cleanly(server, client, tmp_path):
    server.add("GET", "/f", Reply(200, body=CONTENT, truncate=100))
    with pytest.raises(
        FetchError, match=r"download interrupted 3 times: .*IncompleteRead\(100 bytes read"
    ):
        download(client, server.url + "/f", tmp_path / "f", max_bytes=10**6)
    assert len(server.requests) == 3
    assert os.listdir(tmp_path) == []


def test_a_connection_reset_before_the_body_is_retried_by_the_client(server, client, tmp_path):
    server.add("GET", "/f", Reply(reset=True), Reply(200, body=CONTENT))
    download(client, server.url + "/f", tmp_path / "f", expected_size=len(CONTENT), max_bytes=10**6)
    assert (tmp_path / "f").read_bytes() == CONTENT


def test_http_errors_propagate(server, client, tmp_path):
    server.add("GET", "/f", Reply(403, body="restricted"))
    with pytest.raises(HttpError) as caught:
        download(client, server.url + "/f", tmp_path / "f", max_bytes=10**6)
    assert caught.value.status == 403
    assert os.listdir(tmp_path) == []


def test_a_large_streamed_download_is_verified(server, client, tmp_path):
    body = os.urandom(256 * 1024) * 20  # 5 MiB
    server.add("GET", "/big", Reply(200, body=body, chunk_size=64 * 1024))
    download(
        client,
        server.url + "/big",
        tmp_path / "big",
        expected_size=len(body),
        expected_md5=md5(body),
        max_bytes=len(body),
    )
    assert (tmp_path / "big").stat().st_size == len(body)


# -- sniff ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "kind"), [("w", "tar"), ("w:gz", "tar.gz"), ("w:bz2", "tar.bz2"), ("w:xz", "tar.xz")]
)
def test_sniff_recognises_tars(tmp_path, mode, kind):
    path = make_tar(tmp_path / "a", [tar_member("a/README", data=b"hi")], mode)
    assert sniff(path) == kind


def test_sniff_recognises_zips_even_empty_ones(tmp_path):
    assert sniff(make_zip(tmp_path / "a", [("x", b"1")])) == "zip"
    assert sniff(make_zip(tmp_path / "b", [])) == "zip"


@pytest.mark.parametrize(
    "content",
    [b'{"message": "Not Found"}', b"<html>", b"", b"\x1f\x8bnot really gzip", b"BZh9junk"],
)
def test_sniff_refuses_what_is_not_an_archive(tmp_path, content):
    path = tmp_path / "x"
    path.write_bytes(content)
    assert sniff(path) is None


def test_sniff_does_not_call_a_gzipped_csv_a_tar(tmp_path):
    import gzip

    path = tmp_path / "data.csv.gz"
    path.write_bytes(gzip.compress(b"a,b\n1,2\n" * 200))
    assert sniff(path) is None


# -- safe names ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [("a/b.txt", "a/b.txt"), ("./a//b/", "a/b"), ("a\\b.txt", "a/b.txt"), ("./", "")],
)
def test_safe_relpath_normalises(name, expected):
    assert safe_relpath(name) == expected


@pytest.mark.parametrize(
    "name", ["/etc/passwd", "../x", "a/../../x", "a/..", "C:\\Windows\\x", "..\\x", "a\x00b"]
)
def test_safe_relpath_refuses(name):
    with pytest.raises(FetchError):
        safe_relpath(name)


# -- materialize: ordinary deposits --------------------------------------------------------


def test_github_release_zip_loses_its_single_top_folder(tmp_path):
    archive = make_zip(
        tmp_path / "release.zip",
        [
            ("rdmo-2.1.0/", b""),
            ("rdmo-2.1.0/README.md", b"# RDMO\n"),
            ("rdmo-2.1.0/rdmo/__init__.py", b"VERSION = '2.1.0'\n"),
        ],
    )
    tree = materialize([("rdmorganiser/rdmo-2.1.0.zip", archive)], tmp_path / "tree", LIMITS)
    assert tree == tmp_path / "tree"
    assert listing(tree) == {"README.md": b"# RDMO\n", "rdmo/__init__.py": b"VERSION = '2.1.0'\n"}
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")] == []


@pytest.mark.parametrize(
    ("mode", "suffix"),
    [
        ("w", ".tar"),
        ("w:gz", ".tar.gz"),
        ("w:gz", ".tgz"),
        ("w:bz2", ".tar.bz2"),
        ("w:xz", ".tar.xz"),
    ],
)
def test_tars_are_extracted_and_stripped(tmp_path, mode, suffix):
    archive = make_tar(
        tmp_path / f"a{suffix}",
        [
            tar_member("proj-1.0", tarfile.DIRTYPE, mode=0o755),
            tar_member("proj-1.0/run.sh", data=b"#!/bin/sh\n", mode=0o755),
            tar_member("proj-1.0/src/main.c", data=b"int main(){}\n"),
        ],
        mode,
    )
    tree = materialize([(f"proj-1.0{suffix}", archive)], tmp_path / "tree", LIMITS)
    assert listing(tree) == {"run.sh": b"#!/bin/sh\n", "src/main.c": b"int main(){}\n"}
    assert (tree / "run.sh").stat().st_mode & 0o111  # executable bit kept
    assert not (tree / "src/main.c").stat().st_mode & 0o111


def test_an_archive_with_several_top_entries_is_not_stripped(tmp_path):
    archive = make_zip(tmp_path / "a.zip", [("pkg/a.py", b"a"), ("setup.py", b"s")])
    tree = materialize([("a.zip", archive)], tmp_path / "tree", LIMITS)
    assert listing(tree) == {"pkg/a.py": b"a", "setup.py": b"s"}


def test_loose_files_are_placed_under_their_keys(tmp_path):
    csv = tmp_path / "dl1"
    csv.write_bytes(b"a,b\n")
    jar = make_zip(tmp_path / "dl2", [("META-INF/MANIFEST.MF", b"x")])  # a zip, but a .jar
    tree = materialize([("data/raw/x.csv", csv), ("tool.jar", jar)], tmp_path / "tree", LIMITS)
    assert listing(tree) == {"data/raw/x.csv": b"a,b\n", "tool.jar": jar.read_bytes()}


def test_one_archive_goes_to_the_root_with_loose_files_beside_it(tmp_path):
    archive = make_zip(tmp_path / "a.zip", [("proj/README.md", b"from zip")])
    readme = tmp_path / "r"
    readme.write_bytes(b"loose copy")
    paper = tmp_path / "p"
    paper.write_bytes(b"%PDF")
    tree = materialize(
        [("proj.zip", archive), ("README.md", readme), ("paper.pdf", paper)],
        tmp_path / "tree",
        LIMITS,
    )
    # The archive's README wins over a loose file of the same name.
    assert listing(tree) == {"README.md": b"from zip", "paper.pdf": b"%PDF"}


def test_several_archives_go_under_their_keys(tmp_path):
    code = make_zip(tmp_path / "c", [("code-1.0/main.py", b"m")])
    data = make_tar(tmp_path / "d", [tar_member("data/x.csv", data=b"1")])
    tree = materialize(
        [("owner/code-1.0.zip", code), ("data.tar.gz", data)], tmp_path / "tree", LIMITS
    )
    assert listing(tree) == {"owner/code-1.0/main.py": b"m", "data/x.csv": b"1"}


def test_an_existing_tree_is_replaced(tmp_path):
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "stale.txt").write_text("old")
    archive = make_zip(tmp_path / "a.zip", [("x/new.txt", b"new")])
    materialize([("a.zip", archive)], tmp_path / "tree", LIMITS)
    assert listing(tmp_path / "tree") == {"new.txt": b"new"}


def test_an_empty_deposit_is_an_empty_tree(tmp_path):
    assert listing(materialize([], tmp_path / "tree", LIMITS)) == {}


def test_windows_separators_make_folders(tmp_path):
    archive = make_zip(tmp_path / "a.zip", [(dos_entry("src\\main.py"), b"m"), ("README", b"r")])
    tree = materialize([("a.zip", archive)], tmp_path / "tree", LIMITS)
    assert listing(tree) == {"src/main.py": b"m", "README": b"r"}


def test_a_backslash_is_a_character_in_unix_made_zips_and_in_tars(tmp_path):
    # Only a DOS path separates with backslashes; on Unix it is part of the name, as
    # unzip and tar write it.
    archive = make_zip(tmp_path / "a.zip", [("src\\main.py", b"m"), ("README", b"r")])
    tree = materialize([("a.zip", archive)], tmp_path / "tree", LIMITS)
    assert listing(tree) == {"src\\main.py": b"m", "README": b"r"}
    tarball = make_tar(tmp_path / "a.tgz", [tar_member("p/x\\..\\y.txt", data=b"t")])
    tree = materialize([("a.tgz", tarball)], tmp_path / "tree2", LIMITS)
    assert listing(tree) == {"x\\..\\y.txt": b"t"}


def test_links_inside_the_tree_are_kept(tmp_path):
    archive = make_tar(
        tmp_path / "a.tar.gz",
        [
            tar_member("p/README.md", data=b"hello"),
            tar_member("p/docs/index.md", tarfile.SYMTYPE, linkname="../README.md"),
            tar_member("p/COPY", tarfile.LNKTYPE, linkname="p/README.md"),
        ],
    )
    tree = materialize([("a.tar.gz", archive)], tmp_path / "tree", LIMITS)
    assert listing(tree) == {
        "README.md": b"hello",
        "docs/index.md": "->../README.md",
        "COPY": b"hello",
    }
    assert (tree / "docs/index.md").read_bytes() == b"hello"


# -- materialize: files that are not what their key says -----------------------------------


def test_a_zip_that_is_a_json_error_page_is_refused(tmp_path):
    page = tmp_path / "dl"
    page.write_bytes(b'{"message": "Not Found", "documentation_url": "https://docs.github.com"}')
    error = assert_refused(
        tmp_path, [("owner/repo-v1.zip", page)], match=r"not a zip archive \(starts with '\{'\)"
    )
    assert error.reason == "owner/repo-v1.zip: not a zip archive (starts with '{')"


def test_a_tarball_that_is_html_is_refused(tmp_path):
    page = tmp_path / "dl"
    page.write_bytes(b"<!DOCTYPE html><title>Error</title>")
    assert_refused(tmp_path, [("src.tar.gz", page)], match=r"not a tar archive \(starts with '<'\)")


def test_an_empty_zip_file_is_refused(tmp_path):
    empty = tmp_path / "dl"
    empty.write_bytes(b"")
    assert_refused(tmp_path, [("a.zip", empty)], match="not a zip archive .the file is empty.")


def test_a_corrupt_zip_is_refused(tmp_path):
    good = make_zip(tmp_path / "g.zip", [("a/x.txt", b"hello" * 100)]).read_bytes()
    bad = tmp_path / "b.zip"
    bad.write_bytes(good[:40] + b"\x00" * 20 + good[60:])
    assert_refused(tmp_path, [("b.zip", bad)], match="corrupt zip archive|cannot read zip")


def test_a_truncated_tarball_is_refused(tmp_path):
    good = make_tar(tmp_path / "g.tgz", [tar_member("a/x", data=os.urandom(20_000))]).read_bytes()
    bad = tmp_path / "b.tgz"
    bad.write_bytes(good[: len(good) // 2])
    assert_refused(tmp_path, [("b.tgz", bad)], match="corrupt tar archive")


# -- materialize: hostile archives ---------------------------------------------------------


def test_zip_bomb_is_refused_by_its_ratio(tmp_path):
    bomb = make_zip(tmp_path / "bomb.zip", [("bomb/zeros.bin", b"\x00" * (20 * 1024 * 1024))])
    assert bomb.stat().st_size < 100_000
    assert_refused(tmp_path, [("bomb.zip", bomb)], match=r"compression ratio \d+:1 exceeds")


def test_tar_bomb_is_refused_before_it_is_inflated(tmp_path):
    bomb = make_tar(
        tmp_path / "bomb.tar.gz", [tar_member("zeros.bin", data=b"\x00" * (20 * 1024 * 1024))]
    )
    assert_refused(tmp_path, [("bomb.tar.gz", bomb)], match="compression ratio")


def test_small_repetitive_archives_are_not_bombs(tmp_path):
    # 500 KiB of one character compresses about 1000:1, yet is harmless and legitimate.
    archive = make_zip(tmp_path / "a.zip", [("p/blank.txt", b" " * 500_000)])
    tree = materialize([("a.zip", archive)], tmp_path / "tree", LIMITS)
    assert (tree / "blank.txt").stat().st_size == 500_000


@pytest.mark.parametrize("name", ["../evil.txt", "ok/../../evil.txt", dos_entry("..\\evil.txt")])
def test_zip_dot_dot_entries_are_refused(tmp_path, name):
    archive = make_zip(tmp_path / "a.zip", [("ok/a.txt", b"a"), (name, b"pwned")])
    assert_refused(tmp_path, [("a.zip", archive)], match="path leaving the tree")
    assert not (tmp_path / "evil.txt").exists()


def test_tar_dot_dot_entries_are_refused(tmp_path):
    archive = make_tar(tmp_path / "a.tgz", [tar_member("../../evil.txt", data=b"pwned")])
    assert_refused(tmp_path, [("a.tgz", archive)], match="path leaving the tree")
    assert not (tmp_path / "evil.txt").exists()


@pytest.mark.parametrize("name", ["/tmp/reproscore-evil.txt", "C:/evil.txt"])
def test_zip_absolute_paths_are_refused(tmp_path, name):
    archive = make_zip(tmp_path / "a.zip", [("ok/a.txt", b"a"), (name, b"pwned")])
    assert_refused(tmp_path, [("a.zip", archive)], match="absolute path")
    assert not Path("/tmp/reproscore-evil.txt").exists()


def test_tar_absolute_paths_are_refused(tmp_path):
    archive = make_tar(tmp_path / "a.tgz", [tar_member("/tmp/reproscore-evil.txt", data=b"x")])
    assert_refused(tmp_path, [("a.tgz", archive)], match="absolute path")
    assert not Path("/tmp/reproscore-evil.txt").exists()


def test_tar_symlink_to_etc_passwd_is_refused(tmp_path):
    archive = make_tar(
        tmp_path / "a.tgz",
        [
            tar_member("p/README", data=b"r"),
            tar_member("p/passwd", tarfile.SYMTYPE, linkname="/etc/passwd"),
        ],
    )
    assert_refused(tmp_path, [("a.tgz", archive)], match="link 'p/passwd' points outside the tree")


def test_zip_symlink_to_etc_passwd_is_refused(tmp_path):
    archive = make_zip(
        tmp_path / "a.zip",
        [
            ("p/README", b"r"),
            (zip_info("p/passwd", stat.S_IFLNK | 0o777), b"/etc/passwd"),
        ],
    )
    assert_refused(tmp_path, [("a.zip", archive)], match="points outside the tree")


def test_relative_symlink_climbing_out_is_refused(tmp_path):
    archive = make_zip(
        tmp_path / "a.zip",
        [
            (zip_info("p/up", stat.S_IFLNK | 0o777), b"../../../../../../etc/passwd"),
        ],
    )
    assert_refused(tmp_path, [("a.zip", archive)], match="points outside the tree")


def test_symlink_out_of_the_stripped_folder_is_refused(tmp_path):
    # Inside the archive, but outside the tree once the top folder is stripped.
    archive = make_tar(
        tmp_path / "a.tgz",
        [
            tar_member("p/a", data=b"a"),
            tar_member("p/parent", tarfile.SYMTYPE, linkname=".."),
        ],
    )
    assert_refused(tmp_path, [("a.tgz", archive)], match="points outside the tree")


def test_chained_symlinks_that_escape_together_are_refused(tmp_path):
    # Each target looks inside on its own; resolved together they leave the tree.
    archive = make_tar(
        tmp_path / "a.tgz",
        [
            tar_member("d/x", data=b"x"),
            tar_member("top.txt", data=b"t"),
            tar_member("d/l", tarfile.SYMTYPE, linkname=".."),
            tar_member("m", tarfile.SYMTYPE, linkname="d/l/.."),
        ],
    )
    assert_refused(tmp_path, [("a.tgz", archive)], match="points outside the tree")


def test_nothing_is_written_through_a_symlink(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    archive = make_tar(
        tmp_path / "a.tgz",
        [
            tar_member("a", tarfile.SYMTYPE, linkname="../outside"),
            tar_member("a/pwned.txt", data=b"pwned"),
            tar_member("b.txt", data=b"b"),
        ],
    )
    assert_refused(tmp_path, [("a.tgz", archive)], match="'a' is both a link and another entry")
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("target", ["/etc/passwd", "../../../../etc/passwd"])
def test_tar_hard_link_out_of_the_tree_is_refused(tmp_path, target):
    archive = make_tar(
        tmp_path / "a.tgz",
        [
            tar_member("p/README", data=b"r"),
            tar_member("p/passwd", tarfile.LNKTYPE, linkname=target),
        ],
    )
    assert_refused(tmp_path, [("a.tgz", archive)], match="hard link 'p/passwd' leaves the tree")


def test_tar_hard_link_to_nothing_extracted_is_refused(tmp_path):
    archive = make_tar(tmp_path / "a.tgz", [tar_member("p/x", tarfile.LNKTYPE, linkname="p/later")])
    assert_refused(tmp_path, [("a.tgz", archive)], match="not a file extracted before it")


@pytest.mark.parametrize("kind", [tarfile.CHRTYPE, tarfile.BLKTYPE, tarfile.FIFOTYPE])
def test_tar_device_files_are_refused(tmp_path, kind):
    info, data = tar_member("p/sda", kind)
    info.devmajor, info.devminor = 8, 0
    archive = make_tar(tmp_path / "a.tgz", [tar_member("p/README", data=b"r"), (info, data)])
    assert_refused(tmp_path, [("a.tgz", archive)], match="'p/sda' is a device or special file")


def test_zip_device_file_is_refused(tmp_path):
    archive = make_zip(tmp_path / "a.zip", [(zip_info("p/null", stat.S_IFCHR | 0o666), b"")])
    assert_refused(tmp_path, [("a.zip", archive)], match="device or special file")


def test_a_hundred_thousand_tiny_entries_hit_the_entry_cap(tmp_path):
    path = tmp_path / "many.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for index in range(LIMITS.max_entries + 1):
            archive.writestr(f"f/{index}", b"")
    error = assert_refused(tmp_path, [("many.zip", path)], match="more than 100000 entries")
    assert "many.zip" in error.reason


def test_tar_entry_cap_is_enforced_while_streaming(tmp_path):
    archive = make_tar(
        tmp_path / "a.tar.xz", [tar_member(f"p/{i}", data=b"x") for i in range(30)], "w:xz"
    )
    limits = ExtractionLimits(max_entries=20)
    assert_refused(tmp_path, [("a.tar.xz", archive)], match="more than 20 entries", limits=limits)


def test_the_entry_cap_counts_loose_files_too(tmp_path):
    loose = []
    for index in range(3):
        path = tmp_path / f"f{index}"
        path.write_bytes(b"x")
        loose.append((f"f{index}.txt", path))
    assert_refused(
        tmp_path, loose, match="more than 2 entries", limits=ExtractionLimits(max_entries=2)
    )


def test_total_bytes_cap(tmp_path):
    archive = make_tar(
        tmp_path / "a.tar", [tar_member(f"p/{i}.bin", data=os.urandom(4000)) for i in range(3)], "w"
    )
    limits = ExtractionLimits(max_total_bytes=10_000)
    assert_refused(
        tmp_path, [("a.tar", archive)], match="exceeds the 10000-byte total cap", limits=limits
    )


def test_total_bytes_cap_spans_the_whole_deposit(tmp_path):
    archive = make_zip(tmp_path / "a.zip", [("p/a.bin", os.urandom(6000))])
    loose = tmp_path / "l"
    loose.write_bytes(os.urandom(6000))
    limits = ExtractionLimits(max_total_bytes=10_000)
    assert_refused(
        tmp_path,
        [("a.zip", archive), ("data.bin", loose)],
        match="exceeds the 10000-byte total cap",
        limits=limits,
    )


def test_file_size_cap(tmp_path):
    archive = make_zip(tmp_path / "a.zip", [("p/big.bin", os.urandom(5000)), ("p/s", b"s")])
    limits = ExtractionLimits(max_file_bytes=4096)
    assert_refused(
        tmp_path, [("a.zip", archive)], match="'p/big.bin' is 5000 bytes, over", limits=limits
    )


def test_a_name_that_is_both_file_and_folder_is_refused(tmp_path):
    archive = make_tar(
        tmp_path / "a.tgz",
        [
            tar_member("p/x", data=b"file"),
            tar_member("p/x/y", data=b"nested"),
        ],
    )
    assert_refused(tmp_path, [("a.tgz", archive)], match="cannot extract 'p/x/y'")


def test_a_refusal_keeps_the_previous_tree(tmp_path):
    out = tmp_path / "out"
    (out / "tree").mkdir(parents=True)
    (out / "tree" / "kept.txt").write_text("previous")
    bomb = make_zip(tmp_path / "bomb.zip", [("zeros", b"\x00" * (20 * 1024 * 1024))])
    with pytest.raises(FetchError):
        materialize([("bomb.zip", bomb)], out / "tree", LIMITS)
    assert sorted(os.listdir(out)) == ["tree"]
    assert listing(out / "tree") == {"kept.txt": b"previous"}


def test_unsafe_keys_are_refused(tmp_path):
    loose = tmp_path / "l"
    loose.write_bytes(b"x")
    assert_refused(
        tmp_path,
        [("../escape.txt", loose)],
        match="file key: path leaving the tree '../escape.txt'",
    )


def test_a_killed_run_s_staging_folder_is_swept(tmp_path):
    stale = tmp_path / ".tree.abc123.partial"
    (stale / "x0").mkdir(parents=True)
    archive = make_zip(tmp_path / "a.zip", [("p/a.txt", b"a")])
    materialize([("a.zip", archive)], tmp_path / "tree", LIMITS)
    assert not stale.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.zip", "tree"]


def test_mode_bits_of_non_unix_zips_are_ignored(tmp_path):
    # A zip made on Windows carries attributes, not a Unix mode, in the high bits.
    info = zip_info("p/a.txt", stat.S_IFLNK | 0o777)
    info.create_system = 0
    archive = make_zip(tmp_path / "a.zip", [(info, b"plain text"), ("p/b.txt", b"b")])
    tree = materialize([("a.zip", archive)], tmp_path / "tree", LIMITS)
    assert listing(tree) == {"a.txt": b"plain text", "b.txt": b"b"}


def test_a_top_level_link_beside_a_folder_prevents_stripping(tmp_path):
    archive = make_tar(
        tmp_path / "a.tgz",
        [
            tar_member("src/main.py", data=b"m"),
            tar_member("main.py", tarfile.SYMTYPE, linkname="src/main.py"),
        ],
    )
    tree = materialize([("a.tgz", archive)], tmp_path / "tree", LIMITS)
    assert listing(tree) == {"src/main.py": b"m", "main.py": "->src/main.py"}
