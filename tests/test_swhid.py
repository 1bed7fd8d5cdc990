"""Snapshot identity: the SWHID of a tree equals git's tree hash (and Software Heritage's
where the two differ), checked against real git repositories built in the tests."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from scoring.trees.sources import LocalDirectory
from scoring.trees.swhid import (
    EMPTY_TREE,
    SWHID_DIR_PREFIX,
    SwhidError,
    is_directory_swhid,
    tree_identity,
)

# git is part of every machine this project runs on (CI clones the repository with it);
# these tests compare against git itself, so its absence must fail, not skip.
GIT = shutil.which("git") or "git"


def git(repo: Path, *args: str, stdin: str | None = None) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
        "GIT_CONFIG_NOSYSTEM": "1",
        "HOME": str(repo),
    }
    proc = subprocess.run(
        [GIT, "-C", str(repo), *args], input=stdin, capture_output=True, text=True, env=env, check=True
    )
    return proc.stdout.strip()


def swhid_of(path: Path) -> str:
    return tree_identity(LocalDirectory(path)).swhid


def build_repository(root: Path) -> None:
    """Files that exercise every rule: modes, links, nesting, empty and odd names."""
    (root / "src" / "pkg" / "deep").mkdir(parents=True)
    (root / "a").mkdir()
    (root / "a" / "b.txt").write_text("in a directory named a\n")
    (root / "a.txt").write_text("sorts before the directory a\n")
    (root / "a0").write_text("sorts after the directory a\n")
    (root / "a-b").write_text("dash\n")
    (root / "README.md").write_text("# demo\n")
    (root / "empty.txt").write_bytes(b"")
    (root / "données.csv").write_text("x;y\n1;2\n")
    (root / "run.sh").write_text("#!/bin/sh\necho run\n")
    (root / "run.sh").chmod(0o755)
    (root / "src" / "pkg" / "__init__.py").write_text("")
    (root / "src" / "pkg" / "deep" / "model.py").write_text("def f():\n    return 1\n")
    (root / "src" / "pkg" / "deep" / "weights.bin").write_bytes(bytes(range(256)) * 300)
    os.symlink("run.sh", root / "link-to-file")
    os.symlink("src/pkg", root / "link-to-dir")
    os.symlink("does/not/exist", root / "dangling")
    os.symlink("../../outside", root / "src" / "outside-link")


def test_swhid_equals_git_tree_hash_of_a_committed_repository(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    build_repository(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "tree")
    expected = git(repo, "rev-parse", "HEAD^{tree}")

    identity = tree_identity(LocalDirectory(repo))

    # The working copy holds .git; the identity is that of the committed tree.
    assert (repo / ".git").is_dir()
    assert identity.swhid == SWHID_DIR_PREFIX + expected
    assert is_directory_swhid(identity.swhid)
    # Blobs: 11 regular files and 4 links.
    assert identity.files == 15


def test_non_utf8_names_are_hashed_as_stored(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / os.fsdecode(b"caf\xe9.txt")).write_text("latin-1 name\n")
    (repo / "plain.txt").write_text("x\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "names")
    assert swhid_of(repo) == SWHID_DIR_PREFIX + git(repo, "rev-parse", "HEAD^{tree}")


def test_files_and_bytes_count_blobs(tmp_path):
    (tmp_path / "x").write_bytes(b"12345")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "y").write_bytes(b"")
    os.symlink("x", tmp_path / "l")
    identity = tree_identity(LocalDirectory(tmp_path))
    assert (identity.files, identity.bytes) == (3, 5 + 0 + 1)
    assert identity.to_dict() == {"swhid": identity.swhid, "files": 3, "bytes": 6}


def test_an_empty_tree_has_the_empty_tree_id(tmp_path):
    assert swhid_of(tmp_path) == SWHID_DIR_PREFIX + EMPTY_TREE


def test_git_directory_is_skipped_at_every_level(tmp_path):
    (tmp_path / "f").write_text("same\n")
    before = swhid_of(tmp_path)
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".git").write_text("gitdir: ../.git/modules/sub\n")
    (tmp_path / "sub" / "g").write_text("g\n")
    reference = tmp_path.parent / "reference"
    (reference / "sub").mkdir(parents=True)
    (reference / "f").write_text("same\n")
    (reference / "sub" / "g").write_text("g\n")
    assert swhid_of(tmp_path) == swhid_of(reference)
    assert swhid_of(tmp_path) != before


def test_empty_directories_are_kept_as_software_heritage_does(tmp_path):
    tree = tmp_path / "tree"
    (tree / "empty").mkdir(parents=True)
    (tree / "f.txt").write_text("content\n")
    # git cannot commit an empty directory; build Software Heritage's tree with git's
    # own object writer instead: an entry for "empty" pointing to the empty tree.
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    blob = git(repo, "hash-object", "-w", "--stdin", stdin="content\n")
    listing = f"040000 tree {EMPTY_TREE}\tempty\n100644 blob {blob}\tf.txt\n"
    expected = git(repo, "mktree", "--missing", stdin=listing)
    assert swhid_of(tree) == SWHID_DIR_PREFIX + expected
    # Without the empty directory the id is git's hash of the remaining tree.
    (tree / "empty").rmdir()
    only_file = git(repo, "mktree", stdin=f"100644 blob {blob}\tf.txt\n")
    assert swhid_of(tree) == SWHID_DIR_PREFIX + only_file


def test_any_execute_bit_makes_a_file_executable(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "tool").write_text("#!/bin/sh\n")
    (tree / "tool").chmod(0o654)  # group execute only
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    blob = git(repo, "hash-object", "-w", "--stdin", stdin="#!/bin/sh\n")
    expected = git(repo, "mktree", stdin=f"100755 blob {blob}\ttool\n")
    assert swhid_of(tree) == SWHID_DIR_PREFIX + expected


def test_identity_depends_on_content_mode_and_names(tmp_path):
    (tmp_path / "s.py").write_text("print(1)\n")
    first = swhid_of(tmp_path)
    assert swhid_of(tmp_path) == first  # stable
    (tmp_path / "s.py").chmod(0o755)
    executable = swhid_of(tmp_path)
    assert executable != first
    (tmp_path / "s.py").chmod(0o644)
    assert swhid_of(tmp_path) == first
    (tmp_path / "s.py").rename(tmp_path / "t.py")
    assert swhid_of(tmp_path) != first


def test_a_source_without_link_text_is_refused():
    class NoLinks:
        label = "no-links"

        def listdir(self, path):
            return []

        def read(self, path, limit):
            return b""

    with pytest.raises(SwhidError, match="symbolic link"):
        tree_identity(NoLinks())


def test_local_directory_reports_the_execute_bit_and_raw_link_text(tmp_path):
    (tmp_path / "x").write_text("x")
    (tmp_path / "x").chmod(0o700)
    (tmp_path / "y").write_text("y")
    os.symlink("../somewhere/else", tmp_path / "z")
    source = LocalDirectory(tmp_path)
    entries = {e.path: e for e in source.listdir("")}
    assert entries["x"].executable and not entries["y"].executable
    assert entries["z"].kind == "link" and entries["z"].link_status == "dangling"
    assert source.readlink("z") == b"../somewhere/else"
    assert source.raw_name("x") == b"x"
    with source.open_binary("y") as handle:
        assert handle.read() == b"y"


def test_is_directory_swhid():
    assert is_directory_swhid(SWHID_DIR_PREFIX + EMPTY_TREE)
    assert not is_directory_swhid("swh:1:cnt:" + EMPTY_TREE)
    assert not is_directory_swhid(SWHID_DIR_PREFIX + EMPTY_TREE.upper())
    assert not is_directory_swhid(SWHID_DIR_PREFIX + EMPTY_TREE[:-1])
