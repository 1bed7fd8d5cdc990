"""A bad night: 30 % of the REST, file and Software Heritage requests fail (connection
resets, bodies cut short of their Content-Length, bodies cut short under a matching
Content-Length: truncated JSON and short downloads). Retries inside the run absorb them:
one run ends with exactly what a run on a good night stores."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from replay_server import ReplayServer
from test_pipeline import content

from reproscore import api, demo

WINDOW = demo.manifest()["window"]


def stored(db: Path, server_url: str) -> object:
    """What the run stored, with the replay server's address (a new port each night)
    written as SERVER."""
    return json.loads(json.dumps(content(db)).replace(server_url, "SERVER"))


def night(tmp_path: Path, *, fault_rate: float) -> tuple[object, list[tuple[str, str]], object, Path]:
    db = tmp_path / "night.db"
    with ReplayServer() as server:
        demo.install_routes(server)
        watched = demo.install_swh_routes(server, tmp_path / "swh-trees")
        origins = tmp_path / "origins.txt"
        origins.write_text("\n".join(watched) + "\n")
        config = demo.demo_config(tmp_path / "reproscore.toml", tmp_path / "work", swh={
            "api_url": f"{server.url}/api/1/", "deposits": False, "origins_file": str(origins),
            "vault_poll_seconds": 0.01, "vault_poll_max_seconds": 0.02,
        })
        # Enough attempts for the three faults a path may get in a row, with short waits.
        config.write_text(config.read_text().replace("max_attempts = 2", "max_attempts = 5")
                          .replace("backoff_base = 0.1", "backoff_base = 0.01"))
        if fault_rate:
            server.inject_faults(fault_rate, ("/api/records/", "/api/1/"), seed="bad night")
        summary = api.run_nightly(
            db, config=config, oai_url=f"{server.url}/oai2d", api_url=f"{server.url}/api",
            until=WINDOW["until"],
        )
        faults = list(server.faults_injected)
        return stored(db, server.url), faults, summary, db


def test_a_night_with_30_percent_faults_ends_as_a_good_night(tmp_path):
    good_content, no_faults, good, _ = night(tmp_path / "good", fault_rate=0.0)
    bad_content, faults, bad, bad_db = night(tmp_path / "bad", fault_rate=0.3)
    assert no_faults == []
    kinds = {kind for _, kind in faults}
    assert kinds == {"reset", "cut", "short"}
    assert any("/files/" in path for path, _ in faults)  # downloads were hit
    assert any(path.startswith("/api/records/") and "/files/" not in path for path, _ in faults)
    assert any(path.startswith("/api/1/") for path, _ in faults)
    assert (bad.scored, bad.failed) == (good.scored, good.failed)
    assert bad_content == good_content
    conn = sqlite3.connect(bad_db)
    try:
        assert conn.execute("SELECT count(*) FROM failures").fetchone()[0] == 0
        assert conn.execute(
            "SELECT count(*) FROM deposits WHERE status = 'scored'"
        ).fetchone()[0] == good.scored
    finally:
        conn.close()
