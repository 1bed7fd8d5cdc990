"""Logging is configured once by the command line: the harvester's messages (a retry)
reach standard error, timestamped, as a cron job's log file keeps them; -q keeps errors
only, -v adds debug messages."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from replay_server import ReplayServer, Reply
from test_pipeline import WINDOW, config_file

from reproscore import demo

ROOT = Path(__file__).resolve().parents[1]


def harvest(tmp_path: Path, *flags: str) -> subprocess.CompletedProcess:
    with ReplayServer() as server:
        demo.install_routes(server)
        # The window's first page answers 503 once: the client retries and says so.
        first = next(p for p in demo.manifest()["pages"] if p.get("from") == WINDOW["start"])
        body = (ROOT / "tests" / "fixtures" / "demo_zenodo" / "oai" / first["file"]).read_bytes()
        server.add("GET", "/oai2d", Reply(503, "busy", {"Retry-After": "0"}), Reply(200, body, {"Content-Type": "text/xml"}),
                   query={"verb": "ListRecords", "metadataPrefix": "oai_datacite", "set": "software", "from": WINDOW["start"]})
        return subprocess.run(
            [sys.executable, "-m", "reproscore", *flags, "harvest", "zenodo", "--db", str(tmp_path / "h.db"),
             "--config", str(config_file(tmp_path)), "--from", WINDOW["start"], "--until", WINDOW["until"],
             "--oai-url", f"{server.url}/oai2d", "--api-url", f"{server.url}/api"],
            capture_output=True, text=True, cwd=ROOT, timeout=120,
        )


RETRY = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ INFO harvester\.http: retrying http://127\.0\.0\.1:\d+/oai2d in 0\.0 s "
                   r"\(attempt 1 of 2 failed: HTTP 503 Service Unavailable\)$", re.MULTILINE)


def test_a_retry_of_the_harvester_reaches_the_log(tmp_path):
    result = harvest(tmp_path)
    assert result.returncode == 0, result.stderr
    assert len(RETRY.findall(result.stderr)) == 1
    assert "window 2026-08-20T00:00:00Z..2026-08-20T12:00:00Z" in result.stderr  # progress lines too


def test_quiet_keeps_errors_only(tmp_path):
    result = harvest(tmp_path, "-q")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert "2 window(s) completed" in result.stdout  # the summary is output, not a log line


def test_verbose_and_quiet_exclude_each_other(tmp_path):
    result = subprocess.run([sys.executable, "-m", "reproscore", "-v", "-q", "metrics"],
                            capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1] == "Error: --verbose and --quiet exclude each other"
