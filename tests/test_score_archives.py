"""``reproscore score`` on archives and on several paths: an archive scores exactly as
the tree it extracts to, a path that cannot be read is reported and skipped, and a
progress bar shows on a terminal only. Archives are built here from trees made here."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from odd_trees import write_tar, write_zip
from swh.model.from_disk import Directory

from harvester.fetch import ExtractionLimits, materialize
from reproscore.cli import cli

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "tests" / "fixtures" / "samples"

PROJECT = {
    b"README.md": b"# Study\n\nInstall with `pip install -r requirements.txt`, then run `python src/train.py`.\n",
    b"requirements.txt": b"numpy==1.26.4\npandas>=2\n",
    b"src/train.py": b'import numpy as np\nimport pandas as pd\n\nDATA = "/home/alice/data.csv"\n\n\ndef main():\n    """Train."""\n    try:\n        return pd.read_csv(DATA)\n    except Exception:\n        pass\n\n\nif __name__ == "__main__":\n    main()\n',
    b"src/__init__.py": b"",
    b"run.sh": b"#!/bin/sh\npython src/train.py\n",
    b"data/README.md": b"Data: https://zenodo.org/records/123\n",
    b"empty/.keep": b"",
}
# Names each archive kind exists for: non-ASCII UTF-8 written without the flag and bytes
# that are not UTF-8 (cp437 then), a backslash that is a character in a tar.
EXTRA = {
    "zip": {b"docs/donn\xc3\xa9es.md": b"# Donn\xc3\xa9es\n"},
    "zip-no-utf8-flag": {b"docs/donn\xc3\xa9es.md": b"# Donn\xc3\xa9es\n", b"docs/r\xe9sum\xe9.txt": b"latin-1 name\n"},
    "tar": {b"docs/r\xe9sum\xe9.txt": b"latin-1 name\n"},
    "tar.gz": {b"docs/donn\xc3\xa9es.md": b"# Donn\xc3\xa9es\n"},
    "tar-backslash": {b"src\\legacy\\old.py": b"import os\nprint(os.getcwd())\n", b"docs\\notes.md": b"# Notes\n"},
}
WRITERS = {
    "zip": ("study.zip", lambda root, dest: write_zip(root, dest, top="study-1.0")),
    "zip-no-utf8-flag": ("study.zip", lambda root, dest: write_zip(root, dest, utf8_flag=False, top="study-1.0")),
    "tar": ("study.tar", lambda root, dest: write_tar(root, dest, "w", top="study-1.0")),
    "tar.gz": ("study.tar.gz", lambda root, dest: write_tar(root, dest, "w:gz", top="study-1.0")),
    "tar-backslash": ("study.tgz", lambda root, dest: write_tar(root, dest, "w:gz", top="study-1.0")),
}


def build_project(root: Path, files: dict[bytes, bytes]) -> Path:
    for rel, data in files.items():
        path = os.path.join(os.fsencode(root), rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as handle:
            handle.write(data)
    os.chmod(os.path.join(os.fsencode(root), b"run.sh"), 0o755)
    os.symlink("data/README.md", os.path.join(os.fsencode(root), b"DATA.md"))
    return root


def score(*args: str):
    return CliRunner().invoke(cli, ["score", *args])


@pytest.mark.parametrize("kind", sorted(WRITERS))
def test_an_archive_scores_exactly_as_the_tree_it_extracts_to(tmp_path, kind):
    source = build_project(tmp_path / "study", PROJECT | EXTRA[kind])
    name, write = WRITERS[kind]
    archive = write(source, tmp_path / name)
    # The harvester's extraction strips the single top folder: x.zip is x/.
    extracted = materialize([(name, archive)], tmp_path / "extracted", ExtractionLimits())

    in_place = score(str(archive), "--format", "json")
    from_tree = score(str(extracted), "--format", "json")
    assert (in_place.exit_code, from_tree.exit_code) == (0, 0), in_place.output + from_tree.output
    # No field of the result names the input path: the whole result is the same.
    assert in_place.stdout == from_tree.stdout
    result = json.loads(in_place.stdout)
    assert result["snapshot"]["swhid"] == str(
        Directory.from_disk(path=os.fsencode(extracted), max_content_length=None).swhid()
    )
    assert result["inventory"]["files"] == len(PROJECT) + len(EXTRA[kind])
    evidence = [ev for metric in result["submetrics"].values() for ev in metric["evidence"]]
    assert {"src/train.py", "requirements.txt", "README.md"} <= {ev["path"] for ev in evidence}
    if kind != "zip-no-utf8-flag":  # whose cp437 names differ from the tree it was made of
        assert score(str(source), "--format", "json").stdout == in_place.stdout


def test_a_hostile_archive_is_one_line_with_status_2(tmp_path):
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("ok/a.txt", b"a")
        zipped.writestr("../evil.txt", b"pwned")
    result = score(str(archive))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"reproscore: error: {archive}: path leaving the tree '../evil.txt' [rule: parent-traversal]\n"
    )


def test_a_corrupt_member_is_one_line_with_status_2(tmp_path):
    archive = tmp_path / "corrupt.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
        zipped.writestr("p/a.py", "print(1)\n" * 200)
        zipped.writestr("p/b.txt", "hello " * 300)
        info = zipped.getinfo("p/b.txt")
    raw = bytearray(archive.read_bytes())
    raw[info.header_offset + 30 + len(info.filename) + 5] ^= 0xFF
    archive.write_bytes(bytes(raw))
    result = score(str(archive), "--format", "json")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"reproscore: error: {archive}: cannot read 'b.txt': Bad CRC-32 for file 'p/b.txt' [rule: corrupt]\n"
    )


@pytest.mark.parametrize("workers", ["1", "2"])
def test_paths_that_cannot_be_read_are_reported_and_skipped(tmp_path, workers):
    source = build_project(tmp_path / "study", PROJECT)
    archive = write_zip(source, tmp_path / "study.zip")
    text = tmp_path / "notes.txt"
    text.write_text("not a tree\n")
    missing = tmp_path / "missing"
    paths = [str(archive), str(missing), str(text), str(source)]
    result = score(*paths, "--format", "json", "--workers", workers)
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"reproscore: error: {missing}: no such file or directory",
        f"reproscore: error: {text}: not a directory, a zip or a tar archive",
    ]
    lines = result.stdout.splitlines()
    assert len(lines) == 2 and lines[0] == lines[1]  # the archive, then its tree, in order
    assert json.loads(lines[0])["inventory"]["files"] == len(PROJECT)


def run_cli(args: list[str], *, stderr_tty: bool) -> tuple[int, str, str]:
    """Run ``reproscore`` as a process with stdout a pipe and stderr a pipe or a terminal."""
    command = [sys.executable, "-m", "reproscore", *args]
    if not stderr_tty:
        proc = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)
        return proc.returncode, proc.stdout, proc.stderr
    master, slave = pty.openpty()
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=slave, cwd=ROOT) as proc:
        os.close(slave)
        stdout = proc.stdout.read().decode()
        chunks = []
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the terminal is closed once the process is gone
                break
            if not chunk:
                break
            chunks.append(chunk)
        os.close(master)
        return proc.wait(), stdout, b"".join(chunks).decode()


def test_several_paths_show_a_progress_bar_on_a_terminal_only(tmp_path):
    paths = [str(SAMPLES / "legacy-scripts"), str(tmp_path / "missing"), str(SAMPLES / "r-survey-analysis")]
    status, stdout, stderr = run_cli(["score", *paths, "--format", "json"], stderr_tty=True)
    assert status == 2
    assert len(stdout.splitlines()) == 2
    assert "scoring" in stderr and "3/3" in stderr
    assert f"reproscore: error: {tmp_path / 'missing'}: no such file or directory" in stderr

    status, stdout_plain, stderr_plain = run_cli(["score", *paths, "--format", "json"], stderr_tty=False)
    assert (status, stdout_plain) == (2, stdout)
    assert stderr_plain == f"reproscore: error: {tmp_path / 'missing'}: no such file or directory\n"
