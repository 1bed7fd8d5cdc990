"""Software Heritage as a second source, end to end against a real HTTP server on
127.0.0.1 speaking the Web API formats: watched origins harvested then run (the root
directory SWHID is the snapshot identity, with a score), a new visit of a tree already
measured (recorded, not fetched), one tree reached through Zenodo and through Software
Heritage (measured once, both deposits on one snapshot), a bundle that is not the
archived tree, and the bearer token kept out of the database, the logs and the output."""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner
from replay_server import ReplayServer, Reply
from swh_fakes import (
    API,
    bundle,
    git_blob,
    git_tree,
    listings,
    serve_listings,
    serve_origin,
    serve_vault,
    swhid_of,
    visit_reply,
)

from harvester.fetch import ExtractionLimits, materialize
from reproscore import api, demo
from reproscore.cli import cli

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "tests" / "fixtures" / "samples"
WINDOW = demo.manifest()["window"]
GIT = "https://github.com/demo-lab/analysis-tool"
DEPOSIT = "https://hal.example.org/hal-00000042"
CODEMETA = (ROOT / "tests" / "fixtures" / "demo_swh" / "deposit_codemeta.xml").read_bytes()


def write_config(tmp_path: Path, server: ReplayServer, *, zenodo: bool = False, **swh: object) -> Path:
    values = {"api_url": f"{server.url}{API}/", "deposits": False, "zenodo_links": False,
              "vault_poll_seconds": 0.01, "vault_poll_max_seconds": 0.02, **swh}
    lines = [f"{k} = {str(v).lower() if isinstance(v, bool) else repr(v) if isinstance(v, str) else v}"
             for k, v in values.items()]
    text = (
        f"[zenodo]\nenabled = {str(zenodo).lower()}\n"
        f'start = "{WINDOW["start"]}"\nwindow_hours = {WINDOW["window_hours"]}\n\n'
        "[swh]\n" + "\n".join(line.replace("'", '"') for line in lines) + "\n\n"
        '[http]\ncontact = "test@example.org"\npacing = false\nmax_attempts = 2\nbackoff_base = 0.01\n\n'
        f'[run]\nwork_dir = "{tmp_path / "work"}"\n'
    )
    path = tmp_path / "reproscore.toml"
    path.write_text(text)
    return path


def watch_list(tmp_path: Path, *origins: str) -> Path:
    path = tmp_path / "origins.txt"
    path.write_text("# watched origins\n" + "\n".join(origins) + "\n")
    return path


def rows(db: Path, sql: str, *params) -> list[tuple]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def invoke(*args: str):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture
def trees(tmp_path):
    """Two sample trees as Software Heritage would hold them, with their SWHIDs."""
    return {name: (SAMPLES / name, swhid_of(SAMPLES / name)) for name in ("legacy-scripts", "r-survey-analysis")}


# --------------------------------------------------------------------------- acceptance


def test_watched_origins_are_harvested_then_run_with_the_root_directory_as_identity(tmp_path, trees):
    git_tree, git_swhid = trees["legacy-scripts"]
    dep_tree, dep_swhid = trees["r-survey-analysis"]
    with ReplayServer() as server:
        serve_origin(server, GIT, [(3, "2026-08-20T10:00:00.000000+00:00", git_swhid)])
        serve_origin(server, DEPOSIT, [(1, "2026-08-20T11:00:00.000000+00:00", dep_swhid)],
                     kind="deposit", metadata=CODEMETA)
        serve_vault(server, git_swhid, bundle(git_tree, git_swhid))
        serve_vault(server, dep_swhid, bundle(dep_tree, dep_swhid), statuses=("done",))
        config = write_config(tmp_path, server)
        db = tmp_path / "swh.db"
        result = invoke("harvest", "swh", "--origins", watch_list(tmp_path, GIT, DEPOSIT),
                        "--api-url", f"{server.url}{API}", "--db", db, "--config", config)
        assert "2 new" in result.output
        assert not any("/vault/" in r["path"] for r in server.requests)  # metadata only
        result = invoke("run", "--db", db, "--config", config)
    assert "2 deposit(s) scored (2 measured, 0 already measured)" in result.output
    stored = {r[0]: r[1:] for r in rows(
        db, "SELECT d.source_id, d.status, d.swhid, s.swhid, sc.rrs, d.title FROM deposits d"
            " JOIN deposit_snapshots ds ON ds.deposit_id = d.id JOIN snapshots s ON s.id = ds.snapshot_id"
            " JOIN scores sc ON sc.snapshot_id = s.id WHERE d.source = 'swh'")}
    assert stored[GIT][:3] == ("scored", git_swhid, git_swhid)
    assert stored[DEPOSIT][:3] == ("scored", dep_swhid, dep_swhid)
    # The score is the one of the tree itself.
    assert stored[GIT][3] == api.score_tree(git_tree).result["rrs"]
    # The deposit's Atom/CodeMeta is stored raw and parsed into the row.
    assert stored[DEPOSIT][4] == "aerosol-inversion"
    raw = rows(db, "SELECT metadata FROM deposits WHERE source_id = ?", DEPOSIT)[0][0]
    assert "codemeta" in raw
    visits = rows(db, "SELECT origin_url, visit, visit_type, branch, target_type, directory, discovered_by,"
                      " snapshot_id IS NOT NULL FROM swh_visits ORDER BY origin_url")
    assert visits == [
        (GIT, 3, "git", "refs/heads/main", "revision", git_swhid, "watch", 1),
        (DEPOSIT, 1, "deposit", "HEAD", "release", dep_swhid, "watch", 1),
    ]
    assert rows(db, "SELECT submodules FROM snapshots") == [("[]",), ("[]",)]


def test_a_new_visit_of_a_measured_tree_is_recorded_without_fetching_it(tmp_path, trees):
    git_tree, git_swhid = trees["legacy-scripts"]
    with ReplayServer() as server:
        serve_origin(server, GIT, [(3, "2026-08-20T10:00:00+00:00", git_swhid),
                                   (4, "2026-08-27T10:00:00+00:00", git_swhid)])
        serve_vault(server, git_swhid, bundle(git_tree, git_swhid), statuses=("done",))
        config = write_config(tmp_path, server, origins_file=str(watch_list(tmp_path, GIT)), enabled=True)
        db = tmp_path / "swh.db"
        invoke("run", "--db", db, "--config", config)
        bundles = len(server.requests_for(f"{API}/vault/flat/{git_swhid}/", "POST"))
        result = invoke("run", "--db", db, "--config", config)
        assert len(server.requests_for(f"{API}/vault/flat/{git_swhid}/", "POST")) == bundles == 1
    assert "1 deposit(s) scored (0 measured, 1 already measured)" in result.output
    assert rows(db, "SELECT visit, snapshot_id FROM swh_visits ORDER BY visit") == [(3, 1), (4, 1)]
    assert rows(db, "SELECT count(*) FROM snapshots") == [(1,)]
    assert rows(db, "SELECT datestamp, status FROM deposits") == [("2026-08-27T10:00:00+00:00", "scored")]


def test_one_tree_through_zenodo_and_software_heritage_is_measured_once(tmp_path):
    """Zenodo's GitHub-integration release of demo-lab/snakemake-rnaseq and Software
    Heritage's archive of that repository hold the same tree: one snapshot, measured
    once, and both deposits point to it. The origin is found through the Zenodo record."""
    key, blob = demo.deposit_zips()["9100001"]
    (tmp_path / "zip").mkdir()
    (tmp_path / "zip" / "release.zip").write_bytes(blob)
    tree = materialize([("release.zip", tmp_path / "zip" / "release.zip")], tmp_path / "tree", ExtractionLimits())
    swhid = swhid_of(tree)
    origin = "https://github.com/demo-lab/snakemake-rnaseq"
    with ReplayServer() as server:
        demo.install_routes(server)
        serve_origin(server, origin, [(7, "2026-08-21T00:30:00+00:00", swhid)])
        serve_vault(server, swhid, bundle(tree, swhid), statuses=("done",))
        config = write_config(tmp_path, server, zenodo=True, enabled=True, zenodo_links=True)
        db = tmp_path / "both.db"
        invoke("run", "--db", db, "--config", config, "--oai-url", f"{server.url}/oai2d",
               "--api-url", f"{server.url}/api", "--until", WINDOW["until"])
        assert not any("/vault/" in r["path"] for r in server.requests)  # Zenodo's copy was enough
    linked = rows(db, "SELECT d.source, d.source_id, s.swhid FROM deposit_snapshots ds"
                      " JOIN deposits d ON d.id = ds.deposit_id JOIN snapshots s ON s.id = ds.snapshot_id"
                      " WHERE s.swhid = ? ORDER BY d.source, d.source_id", swhid)
    assert [(r[0], r[1]) for r in linked] == [("swh", origin), ("zenodo", "9100001"), ("zenodo", "9100006")]
    assert rows(db, "SELECT count(*) FROM measurements m JOIN snapshots s ON s.id = m.snapshot_id"
                    " WHERE s.swhid = ?", swhid) == [(26,)]
    assert rows(db, "SELECT discovered_by FROM swh_visits") == [("zenodo",)]


def test_a_bundle_that_is_not_the_archived_tree_is_a_recorded_failure(tmp_path, trees):
    git_tree, git_swhid = trees["legacy-scripts"]
    other_tree, _ = trees["r-survey-analysis"]
    with ReplayServer() as server:
        serve_origin(server, GIT, [(3, "2026-08-20T10:00:00+00:00", git_swhid)])
        serve_vault(server, git_swhid, bundle(other_tree, git_swhid), statuses=("done",))
        serve_listings(server, listings(git_tree)[0])  # what the archive holds
        config = write_config(tmp_path, server, origins_file=str(watch_list(tmp_path, GIT)), enabled=True)
        db = tmp_path / "bad.db"
        result = invoke("run", "--db", db, "--config", config)
    assert "0 deposit(s) scored" in result.output and "1 failed" in result.output
    assert rows(db, "SELECT stage, error_class FROM failures") == [("identify", "VaultError")]
    assert "not the archived" in rows(db, "SELECT message FROM failures")[0][0]
    assert rows(db, "SELECT count(*) FROM snapshots") == [(0,)]


def test_the_token_never_reaches_the_database_the_logs_or_the_output(tmp_path, trees, monkeypatch, caplog):
    token = "swh-test-token-5a7c1e9d-never-store-me"
    monkeypatch.setenv("SWH_TOKEN", token)
    git_tree, git_swhid = trees["legacy-scripts"]
    caplog.set_level(logging.DEBUG)
    with ReplayServer() as server:
        serve_origin(server, GIT, [(3, "2026-08-20T10:00:00+00:00", git_swhid)])
        serve_vault(server, git_swhid, bundle(git_tree, git_swhid), statuses=("done",))
        config = write_config(tmp_path, server)
        db = tmp_path / "token.db"
        outputs = [
            invoke("harvest", "swh", "--origins", watch_list(tmp_path, GIT), "--db", db, "--config", config).output,
            invoke("run", "--db", db, "--config", config, "--format", "json").output,
        ]
        sent = {r["headers"].get("Authorization") for r in server.requests
                if r["path"].startswith(API) and not r["path"].endswith("/raw/")}
    # It was used on every API request (the bundle download, which redirects to a
    # cache, goes without it).
    assert sent == {f"Bearer {token}"}
    for output in outputs:
        assert token not in output
    assert token not in caplog.text
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert token.encode() not in path.read_bytes(), path


def test_submodules_are_restored_and_recorded_with_the_tree(tmp_path):
    """The vault writes the submodule `vendor/lib` as an empty folder; the run restores
    it from the listing, accepts the tree under the archive's SWHID and records it."""
    tree = tmp_path / "with-submodule"
    (tree / "vendor" / "lib").mkdir(parents=True)
    (tree / "README.md").write_bytes(b"# tool\n")
    commit = "1a2390247ad6d08160e0dd74f40a01a9578659c2"
    vendor = git_tree([("160000", "lib", commit)])
    root = git_tree([("100644", "README.md", git_blob(b"# tool\n")), ("40000", "vendor", vendor)])
    swhid = f"swh:1:dir:{root}"
    with ReplayServer() as server:
        serve_origin(server, GIT, [(5, "2026-08-20T10:00:00+00:00", swhid)])
        serve_vault(server, swhid, bundle(tree, swhid), statuses=("done",))
        serve_listings(server, {
            root: [{"name": "README.md", "type": "file", "target": git_blob(b"# tool\n"), "perms": 33188, "length": 7},
                   {"name": "vendor", "type": "dir", "target": vendor, "perms": 16384}],
            vendor: [{"name": "lib", "type": "rev", "target": commit, "perms": 57344, "length": None}],
        })
        config = write_config(tmp_path, server, origins_file=str(watch_list(tmp_path, GIT)), enabled=True)
        db = tmp_path / "sub.db"
        result = invoke("run", "--db", db, "--config", config)
    assert "1 deposit(s) scored (1 measured" in result.output
    assert rows(db, "SELECT swhid, files, submodules FROM snapshots") == [(swhid, 1, '["vendor/lib"]')]


def test_new_deposits_are_discovered_since_the_checkpoint_which_is_then_recorded(tmp_path, trees):
    from datetime import UTC, datetime, timedelta
    from urllib.parse import quote

    from harvester.swh import Discovery

    dep_tree, dep_swhid = trees["r-survey-analysis"]
    query = Discovery().deposit_query(datetime(2026, 8, 20, tzinfo=UTC), timedelta(hours=1))
    with ReplayServer() as server:
        serve_origin(server, DEPOSIT, [(1, "2026-08-20T11:00:00+00:00", dep_swhid)], kind="deposit", metadata=CODEMETA)
        config = write_config(tmp_path, server, deposits=True, start="2026-08-20T00:00:00Z")
        db = tmp_path / "dep.db"
        # The search is down: the discovery fails (exit 1) and the checkpoint stays unset.
        result = CliRunner().invoke(cli, ["harvest", "swh", "--db", str(db), "--config", str(config)])
        assert result.exit_code == 1, result.output
        assert rows(db, "SELECT * FROM checkpoints") == []
        server.add("GET", f"{API}/origin/search/{quote(query, safe=':/')}/",
                   Reply(200, json.dumps([{"url": DEPOSIT}]), {"Content-Type": "application/json"}))
        before = datetime.now(UTC).replace(microsecond=0)
        invoke("harvest", "swh", "--db", db, "--config", config)
    (checkpoint,) = rows(db, "SELECT until_ts FROM checkpoints WHERE source = 'swh'")[0]
    assert checkpoint >= before.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert rows(db, "SELECT origin_url, discovered_by FROM swh_visits") == [(DEPOSIT, "deposits")]
    assert rows(db, "SELECT status FROM harvest_windows WHERE source = 'swh' ORDER BY id") == [("failed",), ("completed",)]


def test_an_origin_that_cannot_be_resolved_is_a_recorded_failure_and_the_others_go_on(tmp_path, trees):
    git_tree, git_swhid = trees["legacy-scripts"]
    broken = "https://github.com/demo-lab/vanished"
    with ReplayServer() as server:
        serve_origin(server, GIT, [(3, "2026-08-20T10:00:00.000000+00:00", git_swhid)])
        # Its latest visit names a snapshot the archive no longer answers for (404).
        server.add("GET", f"{API}/origin/{broken}/visit/latest/",
                   visit_reply(server, broken, 7, "2026-08-20T09:00:00.000000+00:00", "ab" * 20, "git"))
        config = write_config(tmp_path, server)
        db = tmp_path / "swh.db"
        result = invoke("harvest", "swh", "--origins", watch_list(tmp_path, GIT, broken),
                        "--api-url", f"{server.url}{API}", "--db", db, "--config", config)
    assert "1 new" in result.output
    failures = rows(db, "SELECT d.source_id, d.status, f.stage, f.error_class, f.attempts FROM failures f"
                        " JOIN deposits d ON d.id = f.deposit_id")
    assert failures == [(broken, None, "resolve", "HttpError", 1)]
    assert rows(db, "SELECT source_id, status FROM deposits WHERE source = 'swh' ORDER BY source_id") == [
        (GIT, "pending"), (broken, None)]


def test_run_searches_software_heritage_deposits_with_nothing_but_its_api_url(tmp_path, trees):
    """Software Heritage is a default source: a configuration that only says where the
    archive is gets its new deposits searched, fetched from the vault and scored."""
    dep_tree, dep_swhid = trees["r-survey-analysis"]
    with ReplayServer() as server:
        demo.install_routes(server)
        serve_origin(server, DEPOSIT, [(1, "2026-12-01T11:00:00+00:00", dep_swhid)], kind="deposit", metadata=CODEMETA)
        serve_vault(server, dep_swhid, bundle(dep_tree, dep_swhid))
        # The search is from "24 hours before now", a date the test cannot know in advance.
        server.add("GET", f"{API}/origin/search/",
                   Reply(200, json.dumps([{"url": DEPOSIT}]), {"Content-Type": "application/json"}), prefix=True)
        config = tmp_path / "reproscore.toml"
        config.write_text(f'[swh]\napi_url = "{server.url}{API}/"\n\n[http]\npacing = false\n'
                          f'\n[run]\nwork_dir = "{tmp_path / "work"}"\n')
        db = tmp_path / "nightly.db"
        invoke("run", "--db", db, "--config", config, "--oai-url", f"{server.url}/oai2d",
               "--api-url", f"{server.url}/api", "--until", WINDOW["until"])
        searches = [r["path"] for r in server.requests if r["path"].startswith(f"{API}/origin/search/")]
    assert len(searches) == 1 and "visit_type" in searches[0]
    assert rows(db, "SELECT origin_url, discovered_by FROM swh_visits") == [(DEPOSIT, "deposits")]
    assert rows(db, "SELECT d.status, s.swhid FROM deposits d JOIN deposit_snapshots ds ON ds.deposit_id = d.id"
                    " JOIN snapshots s ON s.id = ds.snapshot_id WHERE d.source = 'swh'") == [("scored", dep_swhid)]
    # Zenodo as well, from its default window (the day before --until: five of the demo's records).
    assert rows(db, "SELECT source_id, status FROM deposits WHERE source = 'zenodo' ORDER BY source_id") == [
        ("9100001", "scored"), ("9100002", "scored"), ("9100003", "scored"), ("9100004", "scored"),
        ("9100005", "withdrawn")]


def test_a_watched_origin_the_archive_does_not_know_is_a_failure_each_time_it_is_tried(tmp_path, trees):
    git_tree, git_swhid = trees["legacy-scripts"]
    unknown = "https://github.com/demo-lab/never-archived"
    with ReplayServer() as server:
        serve_origin(server, GIT, [(3, "2026-08-20T10:00:00.000000+00:00", git_swhid)])
        server.add("GET", f"{API}/origin/{unknown}/visit/latest/",
                   Reply(404, json.dumps({"exception": "NotFoundExc"}), {"Content-Type": "application/json"}))
        config = write_config(tmp_path, server)
        db = tmp_path / "swh.db"
        watched = watch_list(tmp_path, GIT, unknown)
        for _ in range(2):
            invoke("harvest", "swh", "--origins", watched, "--db", db, "--config", config)
    assert rows(db, "SELECT d.source_id, f.stage, f.error_class, f.message, f.attempts FROM failures f"
                    " JOIN deposits d ON d.id = f.deposit_id") == [
        (unknown, "resolve", "OriginNotArchived",
         "Software Heritage has no visit of this origin with a snapshot "
         "(unknown to the archive, or never archived in full)", 2)]
    assert rows(db, "SELECT origin_url FROM swh_visits") == [(GIT,)]


def test_a_watch_list_on_the_command_line_keeps_the_deposit_search_on(tmp_path, trees):
    git_tree, git_swhid = trees["legacy-scripts"]
    dep_tree, dep_swhid = trees["r-survey-analysis"]
    with ReplayServer() as server:
        serve_origin(server, GIT, [(3, "2026-08-20T10:00:00.000000+00:00", git_swhid)])
        serve_origin(server, DEPOSIT, [(1, "2026-08-20T11:00:00+00:00", dep_swhid)], kind="deposit", metadata=CODEMETA)
        server.add("GET", f"{API}/origin/search/",
                   Reply(200, json.dumps([{"url": DEPOSIT}]), {"Content-Type": "application/json"}), prefix=True)
        config = write_config(tmp_path, server, deposits=True, start="2026-08-20T00:00:00Z")
        db = tmp_path / "swh.db"
        invoke("harvest", "swh", "--origins", watch_list(tmp_path, GIT), "--db", db, "--config", config)
        invoke("harvest", "swh", "--no-deposits", "--origins", watch_list(tmp_path, GIT), "--db", tmp_path / "only.db",
               "--config", config)
    assert sorted(rows(db, "SELECT origin_url, discovered_by FROM swh_visits")) == [(GIT, "watch"), (DEPOSIT, "deposits")]
    assert rows(tmp_path / "only.db", "SELECT origin_url, discovered_by FROM swh_visits") == [(GIT, "watch")]
