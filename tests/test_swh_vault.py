"""Fetching trees from Software Heritage: the vault (new → pending → done, failed, an
expired bundle cooked again, the redirect to the bundle, the size cap), the small-tree
route through the directory and content endpoints, a bundle whose tree is not its
SWHID, submodules restored, and hostile bundles refused by the safe extraction. Every
request goes to a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import tarfile
from pathlib import Path

import pytest
from replay_server import ReplayServer, Reply
from swh_fakes import (
    API,
    JSON,
    bundle,
    git_blob,
    git_tree,
    listings,
    serve_listings,
    serve_vault,
    swhid_of,
    vault_task,
)

from harvester.fetch import ExtractionLimits, FetchError
from harvester.http import HttpClient
from harvester.swh import SwhClient
from harvester.swh_vault import VaultError, fetch_tree, verified_identity, verify_tree

LIMITS = ExtractionLimits(max_total_bytes=10**7, max_entries=1000, max_ratio=200.0, max_file_bytes=10**6)
FILES = {
    "README.md": b"# demo\n",
    "src/main.py": b"print('hello')\n",
    "src/data/values.csv": b"a,b\n1,2\n",
}


def make_tree(root: Path, files: dict[str, bytes] = FILES) -> Path:
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    run = root / "run.sh"
    run.write_bytes(b"#!/bin/sh\npython src/main.py\n")
    run.chmod(0o755)
    os.symlink("README.md", root / "READ_ME")
    (root / "empty").mkdir()  # Software Heritage keeps empty folders
    return root


@pytest.fixture
def server():
    with ReplayServer() as srv:
        yield srv


@pytest.fixture
def swh(server):
    http = HttpClient(user_agent="reproscore-test", timeout=(2, 2), max_attempts=2,
                      backoff_base=0.0, sleep=lambda s: None)
    with http:
        yield SwhClient(http, api_url=f"{server.url}{API}/")


@pytest.fixture
def tree(tmp_path):
    return make_tree(tmp_path / "src-tree")


def same_tree(a: Path, b: Path) -> bool:
    return swhid_of(a) == swhid_of(b)


def fetch(swh, swhid, tmp_path, **options):
    sleeps: list[float] = []
    options.setdefault("max_bytes", 10**6)
    result = fetch_tree(swh, swhid, tmp_path / "out" / "tree", limits=LIMITS, sleep=sleeps.append, **options)
    return result, sleeps


# --------------------------------------------------------------------------- vault


def test_a_bundle_cooked_new_pending_done_is_downloaded_through_the_redirect(server, swh, tree, tmp_path):
    swhid = swhid_of(tree)
    serve_vault(server, swhid, bundle(tree, swhid), statuses=("pending", "pending", "done"))
    result, sleeps = fetch(swh, swhid, tmp_path, poll=(0.5, 1.0))
    assert same_tree(result, tree)
    assert (result / "run.sh").stat().st_mode & 0o111 and os.readlink(result / "READ_ME") == "README.md"
    assert sleeps == [0.5, 1.0, 1.0]  # backoff, capped
    assert [r["method"] for r in server.requests if "/vault/" in r["path"]][:1] == ["POST"]
    assert any(r["path"].startswith("/cache/") for r in server.requests)  # the redirect was followed
    assert verify_tree(result, swhid, swh.directory) == []
    assert not (tmp_path / "out" / ".tree.fetch").exists()  # the bundle is gone


def test_a_failed_cooking_is_a_vault_error_with_its_reason(server, swh, tree, tmp_path):
    swhid = swhid_of(tree)
    server.add("POST", f"{API}/vault/flat/{swhid}/", vault_task(server, swhid, "new"))
    server.add("GET", f"{API}/vault/flat/{swhid}/", vault_task(server, swhid, "failed", "BundleTooLargeError"))
    with pytest.raises(VaultError, match="BundleTooLargeError"):
        fetch(swh, swhid, tmp_path)
    assert not (tmp_path / "out" / "tree").exists()


def test_cooking_that_never_ends_times_out(server, swh, tree, tmp_path):
    swhid = swhid_of(tree)
    serve_vault(server, swhid, b"", statuses=("pending",))
    with pytest.raises(VaultError, match="within 10 s"):
        fetch(swh, swhid, tmp_path, poll=(1.0, 4.0), timeout=10)


def test_an_expired_bundle_is_cooked_again(server, swh, tree, tmp_path):
    swhid = swhid_of(tree)
    server.add("POST", f"{API}/vault/flat/{swhid}/", vault_task(server, swhid, "done"))
    server.add("GET", f"{API}/vault/flat/{swhid}/raw/",
               Reply(404, json.dumps({"exception": "NotFoundExc"}), JSON),
               Reply(200, bundle(tree, swhid), {"Content-Type": "application/gzip"}))
    result, _ = fetch(swh, swhid, tmp_path)
    assert same_tree(result, tree)
    assert len(server.requests_for(f"{API}/vault/flat/{swhid}/", "POST")) == 2


def test_a_bundle_over_the_size_cap_is_refused(server, swh, tree, tmp_path):
    swhid = swhid_of(tree)
    data = bundle(tree, swhid)
    serve_vault(server, swhid, data, statuses=("done",))
    with pytest.raises(VaultError, match="cap"):
        fetch(swh, swhid, tmp_path, max_bytes=len(data) - 1)


# --------------------------------------------------------------------------- small trees


def test_a_small_tree_is_rebuilt_from_the_directory_and_content_endpoints(server, swh, tree, tmp_path):
    swhid = swhid_of(tree)
    server.add("POST", f"{API}/vault/flat/{swhid}/", vault_task(server, swhid, "failed", "internal error"))
    dirs, blobs = listings(tree)
    serve_listings(server, dirs, blobs)
    result, _ = fetch(swh, swhid, tmp_path, small_tree_files=10)
    assert same_tree(result, tree)
    assert os.readlink(result / "READ_ME") == "README.md"
    # The vault disabled: straight to the endpoints, no vault request at all.
    server.requests.clear()
    result, _ = fetch(swh, swhid, tmp_path, small_tree_files=10, use_vault=False)
    assert same_tree(result, tree)
    assert not any("/vault/" in r["path"] for r in server.requests)


def test_a_tree_over_the_small_tree_threshold_is_not_fetched_file_by_file(server, swh, tree, tmp_path):
    swhid = swhid_of(tree)
    dirs, blobs = listings(tree)
    serve_listings(server, dirs, blobs)
    with pytest.raises(VaultError, match="more than 2 files"):
        fetch(swh, swhid, tmp_path, small_tree_files=2, use_vault=False)
    assert not any("/content/" in r["path"] for r in server.requests)


# --------------------------------------------------------------------------- verification


def test_a_bundle_whose_tree_is_not_its_swhid_is_refused(server, swh, tree, tmp_path):
    swhid = swhid_of(tree)
    dirs, _ = listings(tree)  # what the archive holds
    serve_listings(server, dirs)
    (tree / "README.md").write_bytes(b"# tampered\n")
    serve_vault(server, swhid, bundle(tree, swhid), statuses=("done",))
    result, _ = fetch(swh, swhid, tmp_path)
    with pytest.raises(VaultError, match=f"not the archived {swhid}"):
        verify_tree(result, swhid, swh.directory)


def test_submodules_written_as_empty_folders_are_restored(tmp_path):
    """The vault writes `lib/sub` (a git submodule) as an empty folder; the archive's
    listing says it is a `rev` entry. The SWHID is computed independently here."""
    tree = tmp_path / "t"
    (tree / "lib" / "sub").mkdir(parents=True)
    (tree / "lib" / "util.py").write_bytes(b"x = 1\n")
    (tree / "README").write_bytes(b"hi\n")
    commit = "87dd6843678575f8dda962f239d14ef4be14b352"
    lib = git_tree([("100644", "util.py", git_blob(b"x = 1\n")), ("160000", "sub", commit)])
    root = git_tree([("100644", "README", git_blob(b"hi\n")), ("40000", "lib", lib)])
    listed = {
        root: [{"name": "README", "type": "file", "target": git_blob(b"hi\n"), "perms": 33188},
               {"name": "lib", "type": "dir", "target": lib, "perms": 16384}],
        lib: [{"name": "util.py", "type": "file", "target": git_blob(b"x = 1\n"), "perms": 33188},
              {"name": "sub", "type": "rev", "target": commit, "perms": 57344, "length": None}],
    }
    asked: list[str] = []

    def listing(dir_id):
        asked.append(dir_id)
        return listed[dir_id]

    identity, submodules = verified_identity(tree, f"swh:1:dir:{root}", listing)
    assert submodules == ["lib/sub"]
    assert (identity.swhid, identity.files) == (f"swh:1:dir:{root}", 2)
    assert asked == [root, lib]  # only the directories on the way to the submodule
    # A submodule folder with content in it is a mismatch, not a submodule.
    (tree / "lib" / "sub" / "x").write_bytes(b"")
    with pytest.raises(VaultError, match="not the archived"):
        verify_tree(tree, f"swh:1:dir:{root}", listing)


# --------------------------------------------------------------------------- hostile bundles


def _member(name: str, kind=tarfile.REGTYPE, data: bytes = b"x", linkname: str = "") -> tuple:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    return info, (data if kind == tarfile.REGTYPE else None)


@pytest.mark.parametrize(
    ("member", "match"),
    [
        (lambda top: _member(f"{top}/../../escape.txt"), "leaving the tree"),
        (lambda top: _member("/etc/evil"), "absolute path"),
        (lambda top: _member(f"{top}/out", tarfile.SYMTYPE, linkname="../../../etc/passwd"), "outside the tree"),
        (lambda top: _member(f"{top}/dev", tarfile.CHRTYPE), "device"),
    ],
    ids=["dotdot", "absolute", "symlink-out", "device"],
)
def test_hostile_bundles_are_refused_by_the_safe_extraction(server, swh, tree, tmp_path, member, match):
    swhid = swhid_of(tree)
    serve_vault(server, swhid, bundle(tree, swhid, [member(swhid)]), statuses=("done",), redirect=False)
    with pytest.raises(FetchError, match=match):
        fetch(swh, swhid, tmp_path)
    assert not (tmp_path / "out" / "tree").exists()
    assert not (tmp_path / "escape.txt").exists()
