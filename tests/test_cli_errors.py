"""Errors of the environment end in one line and a documented exit status, never a
traceback, and lose nothing: a --db whose folder does not exist, a database the user
may not write, a disk that fills up in the middle of a run (a real tmpfs of a few
hundred kilobytes, mounted in a private mount namespace)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from replay_server import ReplayServer
from test_pipeline import content

from reproscore import demo

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "tests" / "fixtures" / "samples" / "legacy-scripts"
WINDOW = demo.manifest()["window"]


def reproscore(*args: object, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "reproscore", *map(str, args)], capture_output=True, text=True,
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300, **kwargs,
    )


@pytest.mark.parametrize("command", [
    ["score", SAMPLE, "--db", "{db}"],
    ["run", "--db", "{db}"],
    ["harvest", "zenodo", "--db", "{db}"],
    ["harvest", "swh", "--db", "{db}"],
])
def test_a_db_in_a_folder_that_does_not_exist_is_a_usage_error(tmp_path, command):
    db = tmp_path / "no-such-folder" / "reproscore.db"
    result = reproscore(*[str(part).format(db=db) for part in command])
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        f"reproscore: error: {db}: the folder {db.parent} does not exist (create it, or give another --db)"
    ]
    assert not db.parent.exists()  # nothing made on the fly, no lock file either


def test_a_database_the_user_may_not_write_is_a_usage_error():
    # Outside pytest's per-user folder, which another user cannot enter.
    folder = Path(tempfile.mkdtemp(prefix="reproscore-ro-"))
    try:
        db = folder / "reproscore.db"
        assert reproscore("score", SAMPLE, "--db", db, "--format", "json").returncode == 0
        for path in folder.iterdir():
            path.chmod(0o444)
        folder.chmod(0o555)
        as_user = [shutil.which("setpriv"), "--reuid=65534", "--regid=65534", "--clear-groups"] if os.getuid() == 0 else []
        result = subprocess.run(
            [*as_user, sys.executable, "-m", "reproscore", "score", str(SAMPLE), "--db", str(db)],
            capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300,
        )
        assert result.returncode == 2
        assert result.stdout == ""
        assert result.stderr.splitlines() == [
            f"reproscore: error: {db}: cannot use the database: attempt to write a readonly database"
        ]
    finally:
        folder.chmod(0o755)
        shutil.rmtree(folder)


def test_a_disk_that_fills_up_mid_run_ends_in_one_line_and_the_run_resumes(tmp_path):
    mount_namespace = ["unshare", "-m"] if os.getuid() == 0 else ["unshare", "-r", "-m"]
    small, kept = tmp_path / "small", tmp_path / "kept"
    small.mkdir()
    kept.mkdir()
    with ReplayServer() as server:
        demo.install_routes(server)
        config = demo.demo_config(tmp_path / "reproscore.toml", tmp_path / "work")
        run = (f"{sys.executable} -m reproscore run --config {config} --oai-url {server.url}/oai2d"
               f" --api-url {server.url}/api --until {WINDOW['until']}")
        # The database fills a 400 kB disk after its schema and the first deposits; the
        # files are copied out before the namespace (and its mount) goes away.
        script = (f"mount -t tmpfs -o size=400k tmpfs {small} || exit 99; {run} --db {small}/full.db; "
                  f"status=$?; cp {small}/full.db* {kept}/; exit $status")
        full = subprocess.run([*mount_namespace, "sh", "-c", script], capture_output=True, text=True,
                              cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
        assert full.returncode == 1, full.stderr
        assert "Traceback" not in full.stderr
        assert full.stderr.splitlines()[-1] == (
            "reproscore: error: database error: database or disk is full; what was stored before is kept,"
            " and a run resumes where it stopped"
        )
        (kept / "full.db.lock").unlink(missing_ok=True)
        resumed = reproscore(*run.split()[3:], "--db", kept / "full.db")
        assert resumed.returncode == 0, resumed.stderr
        clean = reproscore(*run.split()[3:], "--db", tmp_path / "clean.db")
        assert clean.returncode == 0, clean.stderr
    resumed_content, clean_content = content(kept / "full.db"), content(tmp_path / "clean.db")
    assert resumed_content == clean_content
    assert resumed_content["scores"]  # the night's deposits are all scored
