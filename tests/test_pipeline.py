"""The nightly pipeline end to end against a real HTTP server on 127.0.0.1 replaying the
demo Zenodo (tests/fixtures/demo_zenodo): the store's harvest tables and checkpoint,
the configuration, the harvest and run commands, failures per deposit, the lock,
idempotence, and runs killed with SIGKILL at random points."""

from __future__ import annotations

import io
import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from replay_server import ReplayServer, Reply

from harvester.records import Creator, DepositRecord
from reproscore import api, demo
from reproscore.cli import cli
from reproscore.config import ConfigError, documented_keys, load_config, parse_config
from reproscore.pipeline import LockBusy, Progress, run_lock
from reproscore.store import Store

ROOT = Path(__file__).resolve().parents[1]
WINDOW = demo.manifest()["window"]
RECORDS = sorted(demo.manifest()["deposits"])



# --------------------------------------------------------------------------- helpers


def record(record_id: str, datestamp: str, title: str = "t") -> DepositRecord:
    return DepositRecord(
        source="zenodo", oai_identifier=f"oai:zenodo.org:{record_id}", datestamp=datestamp,
        record_id=record_id, doi=f"10.5281/zenodo.{record_id}", title=title,
        creators=[Creator("Doe, Jane", "0000-0002-1825-0097")], licence="MIT",
        dates={"Issued": "2026-08-20"}, communities=["demo"],
        github_repo="https://github.com/o/r", github_tag="v1", resource_type_general="Software",
        raw_metadata="<resource/>",
    )


def config_file(tmp_path: Path, **run: object) -> Path:
    path = demo.demo_config(tmp_path / "reproscore.toml", tmp_path / "work")
    extra = "".join(f"{key} = {str(value).lower() if isinstance(value, bool) else value}\n" for key, value in run.items())
    if extra:
        path.write_text(path.read_text().replace("[run]\n", "[run]\n" + extra))
    return path


def run_args(server: ReplayServer, db: Path, config: Path) -> list[str]:
    return [
        "run", "--db", str(db), "--config", str(config), "--oai-url", f"{server.url}/oai2d",
        "--api-url", f"{server.url}/api", "--until", WINDOW["until"],
    ]


def content(db: Path) -> dict[str, object]:
    """Everything a run stores, without row ids and times: two databases with the same
    content hold exactly the same records."""
    conn = sqlite3.connect(db)
    try:
        return {
            "deposits": sorted(conn.execute(
                "SELECT source, source_id, oai_identifier, datestamp, version_doi, concept_doi,"
                " origin_url, title, license, creators, version, communities, github_repo,"
                " github_tag, files, withdrawn, tombstone, status FROM deposits"
            ).fetchall()),
            "snapshots": sorted(conn.execute("SELECT swhid, source, files, bytes FROM snapshots").fetchall()),
            "links": sorted(conn.execute(
                "SELECT d.source_id, s.swhid FROM deposit_snapshots ds JOIN deposits d ON d.id = ds.deposit_id"
                " JOIN snapshots s ON s.id = ds.snapshot_id"
            ).fetchall()),
            "measurements": conn.execute("SELECT count(*) FROM measurements").fetchone()[0],
            "evidence": conn.execute("SELECT count(*) FROM evidence").fetchone()[0],
            "scores": sorted(conn.execute(
                "SELECT s.swhid, r.name, sc.rrs FROM scores sc JOIN snapshots s ON s.id = sc.snapshot_id"
                " JOIN rubrics r ON r.id = sc.rubric_id"
            ).fetchall()),
            "failures": sorted(conn.execute(
                "SELECT d.source_id, f.stage, f.error_class FROM failures f JOIN deposits d ON d.id = f.deposit_id"
            ).fetchall()),
            "checkpoint": conn.execute("SELECT until_ts FROM checkpoints").fetchall(),
        }
    finally:
        conn.close()


@pytest.fixture
def zenodo():
    with ReplayServer() as server:
        demo.install_routes(server)
        yield server


# --------------------------------------------------------------------------- store


def test_a_window_is_stored_with_its_checkpoint_and_counts(tmp_path):
    with Store(tmp_path / "s.db") as store:
        run_id = store.start_run("zenodo", "harvest", None, None)
        w1 = store.start_window(run_id, "zenodo", "2026-08-20T00:00:00Z", "2026-08-20T12:00:00Z")
        counts = store.complete_window(
            w1, [record("1", "2026-08-20T01:00:00Z"), record("2", "2026-08-20T02:00:00Z")], pages=1
        )
        assert (counts.seen, counts.new, counts.updated) == (2, 2, 0)
        assert store.checkpoint("zenodo") == "2026-08-20T12:00:00Z"
        # The next window: one record unchanged, one with a newer datestamp, one older.
        w2 = store.start_window(run_id, "zenodo", "2026-08-20T12:00:00Z", "2026-08-21T00:00:00Z")
        store.conn.execute("UPDATE deposits SET status = 'scored' WHERE source_id = '2'")
        counts = store.complete_window(
            w2,
            [record("1", "2026-08-20T01:00:00Z"), record("2", "2026-08-20T13:00:00Z", "new title"),
             record("1", "2026-08-19T00:00:00Z", "stale")],
            pages=2,
        )
        assert (counts.seen, counts.new, counts.updated) == (3, 0, 1)
        rows = store.conn.execute("SELECT source_id, datestamp, title, status FROM deposits ORDER BY source_id").fetchall()
        assert rows == [
            ("1", "2026-08-20T01:00:00Z", "t", "pending"),
            ("2", "2026-08-20T13:00:00Z", "new title", "pending"),  # updated: to be processed again
        ]
        assert store.checkpoint("zenodo") == "2026-08-21T00:00:00Z"
        window = store.conn.execute(
            'SELECT status, pages, records_seen, records_new, records_updated FROM harvest_windows WHERE id = ?', (w2,)
        ).fetchone()
        assert window == ("completed", 2, 3, 0, 1)


def test_the_checkpoint_never_moves_back_nor_over_a_gap(tmp_path):
    with Store(tmp_path / "s.db") as store:
        run_id = store.start_run("zenodo", "harvest", None, None)
        w = store.start_window(run_id, "zenodo", "2026-08-20T00:00:00Z", "2026-08-21T00:00:00Z")
        store.complete_window(w, [], pages=1)
        older = store.start_window(run_id, "zenodo", "2026-08-01T00:00:00Z", "2026-08-02T00:00:00Z")
        store.complete_window(older, [], pages=1)
        assert store.checkpoint("zenodo") == "2026-08-21T00:00:00Z"
        after_gap = store.start_window(run_id, "zenodo", "2026-08-25T00:00:00Z", "2026-08-26T00:00:00Z")
        store.complete_window(after_gap, [record("9", "2026-08-25T01:00:00Z")], pages=1)
        assert store.checkpoint("zenodo") == "2026-08-21T00:00:00Z"
        failed = store.start_window(run_id, "zenodo", "2026-08-21T00:00:00Z", "2026-08-22T00:00:00Z")
        store.fail_window(failed, "HttpError: 503")
        assert store.checkpoint("zenodo") == "2026-08-21T00:00:00Z"


def test_windows_left_running_by_a_killed_run_are_marked_interrupted(tmp_path):
    with Store(tmp_path / "s.db") as store:
        run_id = store.start_run("zenodo", "run", None, None)
        store.start_window(run_id, "zenodo", "2026-08-20T00:00:00Z", "2026-08-21T00:00:00Z")
        assert store.interrupt_stale("zenodo") == 1
        assert store.conn.execute("SELECT status FROM harvest_windows").fetchone() == ("interrupted",)
        assert store.conn.execute("SELECT status FROM harvest_runs").fetchone() == ("interrupted",)


def test_a_deposit_failure_is_recorded_per_stage_with_attempts(tmp_path):
    with Store(tmp_path / "s.db") as store:
        run_id = store.start_run("zenodo", "run", None, None)
        w = store.start_window(run_id, "zenodo", "2026-08-20T00:00:00Z", "2026-08-21T00:00:00Z")
        store.complete_window(w, [record("1", "2026-08-20T01:00:00Z")], pages=1)
        deposit_id = store.deposit_id("zenodo", "1")
        assert store.deposits_to_process("zenodo", max_attempts=2) == [(deposit_id, "1")]
        store.mark_deposit_failed(deposit_id, "download", "FetchError", "MD5 mismatch")
        assert store.deposits_to_process("zenodo", max_attempts=2) == [(deposit_id, "1")]
        store.mark_deposit_failed(deposit_id, "download", "FetchError", "MD5 mismatch again")
        assert store.deposits_to_process("zenodo", max_attempts=2) == []
        assert store.conn.execute("SELECT stage, error_class, message, attempts FROM failures").fetchall() == [
            ("download", "FetchError", "MD5 mismatch again", 2)
        ]


# --------------------------------------------------------------------------- config


def test_every_configuration_key_is_documented_with_its_default():
    text = (ROOT / "docs" / "configuration.md").read_text()
    for key, default in documented_keys().items():
        section, name = key.split(".")
        assert f"## `[{section}]`" in text, section
        row = re.search(rf"^\| `{name}` \| ([^|]+) \|", text.split(f"## `[{section}]`")[1].split("\n## ")[0], re.M)
        assert row, f"{key} is not documented in docs/configuration.md"
        shown = row.group(1).strip()
        if default is None:
            assert shown == "none", key
        elif isinstance(default, bool):
            assert shown == f"`{str(default).lower()}`", key
        elif isinstance(default, str):
            assert shown == f'`"{default}"`', key
        else:
            assert shown.startswith(f"`{default}`"), (key, shown)


def test_unknown_keys_and_wrong_types_are_refused_by_name(tmp_path):
    with pytest.raises(ConfigError, match=r"unknown key zenodo\.window_hour\b"):
        parse_config({"zenodo": {"window_hour": 6}}, "r.toml")
    with pytest.raises(ConfigError, match=r"unknown section \[zenodoo\]"):
        parse_config({"zenodoo": {}}, "r.toml")
    with pytest.raises(ConfigError, match=r"http\.pacing: expected bool"):
        parse_config({"http": {"pacing": "no"}}, "r.toml")
    with pytest.raises(ConfigError, match=r"zenodo\.window_hours: expected int"):
        parse_config({"zenodo": {"window_hours": True}}, "r.toml")
    path = tmp_path / "bad.toml"
    path.write_text("[run]\nkeep = yes\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(path)
    with pytest.raises(ConfigError, match="no such configuration file"):
        load_config(tmp_path / "absent.toml")
    good = tmp_path / "good.toml"
    good.write_text('[http]\ncontact = "a@b.org"\n[zenodo]\nwindow_hours = 6\n')
    config = load_config(good)
    assert (config.http.contact, config.zenodo.window_hours, config.zenodo.lag_hours) == ("a@b.org", 6, 1)


def test_a_bad_configuration_is_a_usage_error(tmp_path):
    path = tmp_path / "r.toml"
    path.write_text("[run]\nkep = true\n")
    result = CliRunner().invoke(cli, ["run", "--db", str(tmp_path / "x.db"), "--config", str(path)])
    assert result.exit_code == 2
    assert "unknown key run.kep" in result.output


# --------------------------------------------------------------------------- harvest


def test_harvest_stores_every_record_of_the_windows_and_is_idempotent(zenodo, tmp_path):
    db = tmp_path / "h.db"
    args = [
        "harvest", "zenodo", "--db", str(db), "--config", str(config_file(tmp_path)),
        "--from", WINDOW["start"], "--until", WINDOW["until"],
        "--oai-url", f"{zenodo.url}/oai2d", "--api-url", f"{zenodo.url}/api",
    ]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "2 window(s) completed, 0 failed; 6 record(s) (6 new, 0 updated)" in result.output
    first = content(db)
    assert [row[1] for row in first["deposits"]] == RECORDS
    assert first["checkpoint"] == [(WINDOW["until"],)]
    # Metadata only: no REST call, no download.
    assert {r["path"] for r in zenodo.requests} == {"/oai2d"}
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0
    assert "(0 new, 0 updated)" in result.output
    assert content(db) == first


def test_a_failed_window_stops_the_harvest_keeps_the_checkpoint_and_exits_1(tmp_path):
    with ReplayServer() as server:
        bad = (ROOT / "tests" / "fixtures" / "demo_zenodo" / "oai" / "error_noRecordsMatch.xml").read_text()
        server.add(
            "GET", "/oai2d", Reply(422, bad.replace("noRecordsMatch", "badArgument")),
            # More query parameters than the demo's route for this window: this one wins.
            query={"verb": "ListRecords", "metadataPrefix": "oai_datacite", "set": "software",
                   "from": "2026-08-20T12:00:00Z"},
        )
        demo.install_routes(server)
        db = tmp_path / "f.db"
        result = CliRunner().invoke(cli, ["harvest", "zenodo", *run_args(server, db, config_file(tmp_path))[1:-2],
                                          "--from", WINDOW["start"], "--until", WINDOW["until"]])
    assert result.exit_code == 1, result.output
    assert "FAILED; 1 window(s) completed, 1 failed" in result.output
    assert "badArgument" in result.output
    stored = content(db)
    assert len(stored["deposits"]) == 5  # the first window's records
    assert stored["checkpoint"] == [("2026-08-20T12:00:00Z",)]


def test_an_expired_token_restarts_the_window_from_its_first_page(tmp_path):
    expired = (demo.DEMO_ZENODO / "oai" / "error_badResumptionToken.xml").read_bytes()
    page2 = (demo.DEMO_ZENODO / "oai" / "window1_page2.xml").read_bytes()
    with ReplayServer() as server:
        # Added first, so it wins the tie with the demo's route for the same token.
        server.add(
            "GET", "/oai2d", Reply(422, expired), Reply(200, page2),
            query={"verb": "ListRecords", "resumptionToken": "demo-window1-page2"},
        )
        demo.install_routes(server)
        db = tmp_path / "t.db"
        result = CliRunner().invoke(cli, ["harvest", "zenodo", *run_args(server, db, config_file(tmp_path))[1:-2],
                                          "--from", WINDOW["start"], "--until", WINDOW["until"]])
        first_pages = [r for r in server.requests if r["query"].get("from") == WINDOW["start"]]
    assert result.exit_code == 0, result.output
    assert "restarting it" in result.output
    assert len(first_pages) == 2  # the window was harvested again from page one
    with Store(db) as store:
        windows = store.conn.execute('SELECT status, attempts, pages, records_seen FROM harvest_windows ORDER BY id').fetchall()
    assert windows == [("completed", 2, 2, 5), ("completed", 1, 1, 1)]
    assert [row[1] for row in content(db)["deposits"]] == RECORDS


def test_harvest_refuses_an_empty_period_and_prints_json_on_request(zenodo, tmp_path):
    db = tmp_path / "j.db"
    base = ["harvest", "zenodo", *run_args(zenodo, db, config_file(tmp_path))[1:-2]]
    result = CliRunner().invoke(cli, [*base, "--from", WINDOW["until"], "--until", WINDOW["start"]])
    assert result.exit_code == 2
    assert "is not before --until" in result.output
    result = CliRunner().invoke(cli, [*base, "--from", WINDOW["start"], "--until", WINDOW["until"], "--format", "json"])
    assert result.exit_code == 0
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["ok"] is True
    assert (summary["windows_completed"], summary["records_new"]) == (2, 6)
    assert summary["checkpoint"] == WINDOW["until"]


def test_limit_stops_after_the_window_that_reached_it(zenodo, tmp_path):
    db = tmp_path / "l.db"
    result = CliRunner().invoke(cli, ["harvest", "zenodo", *run_args(zenodo, db, config_file(tmp_path))[1:-2],
                                      "--from", WINDOW["start"], "--until", WINDOW["until"], "--limit", "2"])
    assert result.exit_code == 0, result.output
    stored = content(db)
    assert len(stored["deposits"]) == 5  # the whole first window, never part of it
    assert stored["checkpoint"] == [("2026-08-20T12:00:00Z",)]


def test_progress_is_plain_lines_off_a_terminal_and_a_bar_on_one():
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    plain = io.StringIO()
    progress = Progress(plain)
    progress.bar(1, 4, "zenodo:1")
    progress.log("zenodo:1: scored (measured)")
    assert "\r" not in plain.getvalue()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ zenodo:1: scored \(measured\)\n", plain.getvalue())
    terminal = Terminal()
    progress = Progress(terminal)
    progress.bar(1, 4, "zenodo:1")
    progress.log("zenodo:1: scored (measured)")
    progress.close()
    assert "[#######" in terminal.getvalue() and "1/4" in terminal.getvalue()
    assert "\r\x1b[K" in terminal.getvalue()


# --------------------------------------------------------------------------- run


def test_run_scores_every_software_record_and_a_rerun_changes_nothing(zenodo, tmp_path):
    db = tmp_path / "r.db"
    config = config_file(tmp_path)
    result = CliRunner().invoke(cli, run_args(zenodo, db, config))
    assert result.exit_code == 0, result.output
    assert result.output.strip().splitlines()[-1].startswith("reproscore run: ok;")
    assert "5 deposit(s) scored (4 measured, 1 already measured), 1 withdrawn, 0 failed" in result.output
    rows = {row["record"]: row for row in api.deposit_results(db)}
    assert sorted(rows) == RECORDS
    for record_id, deposit in demo.manifest()["deposits"].items():
        if deposit.get("withdrawn"):
            assert rows[record_id]["status"] == "withdrawn"
        else:
            assert rows[record_id]["status"] == "scored"
            assert rows[record_id]["rrs"] is not None
            # The score is the one of the sample tree itself.
            direct = api.score_tree(ROOT / "tests" / "fixtures" / "samples" / deposit["sample"])
            assert rows[record_id]["rrs"] == direct.result["rrs"]
    # Two versions with identical content are one snapshot, measured once.
    assert rows["9100001"]["swhid"] == rows["9100006"]["swhid"]
    stored = content(db)
    assert len(stored["snapshots"]) == 4
    assert stored["measurements"] == 4 * 26
    tombstone = sqlite3.connect(db).execute("SELECT tombstone FROM deposits WHERE source_id = '9100005'").fetchone()[0]
    assert "Withdrawn" in tombstone
    # The work folders are gone (no --keep).
    assert not any((tmp_path / "work").iterdir())
    requests = len(zenodo.requests)
    result = CliRunner().invoke(cli, run_args(zenodo, db, config))
    assert result.exit_code == 0, result.output
    assert "0 window(s) completed" in result.output
    assert content(db) == stored
    assert len(zenodo.requests) == requests  # nothing to harvest, nothing pending


def test_keep_leaves_the_extracted_trees(zenodo, tmp_path):
    db = tmp_path / "k.db"
    result = CliRunner().invoke(cli, [*run_args(zenodo, db, config_file(tmp_path)), "--keep"])
    assert result.exit_code == 0, result.output
    kept = sorted(p.name for p in (tmp_path / "work").iterdir())
    assert kept == [f"zenodo-{r}" for r in RECORDS if r != "9100005"]


def _hostile_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("pkg-1.0/README.md", "hello\n")
        archive.writestr("pkg-1.0/../../escape.txt", "outside\n")
    return buffer.getvalue()


def test_failures_are_recorded_per_deposit_and_the_run_goes_on(tmp_path):
    zips = demo.deposit_zips()
    key2, good2 = zips["9100002"]
    key3, _ = zips["9100003"]
    key4, _ = zips["9100004"]
    hostile = _hostile_zip()
    # GitHub's JSON error message served as the release "zip" (cldf/cldf#158).
    error_page = b'{"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}\n'
    with ReplayServer() as server:
        demo.install_routes(
            server,
            # 9100002: the bytes served are not the ones announced (MD5 mismatch);
            # 9100004: a hostile archive announced with its true size and MD5.
            zips={"9100002": (key2, good2[:-10] + b"0123456789"), "9100003": (key3, error_page),
                  "9100004": (key4, hostile)},
            announce={"9100003": error_page, "9100004": hostile},
        )
        db = tmp_path / "x.db"
        result = CliRunner().invoke(cli, run_args(server, db, config_file(tmp_path)))
    assert result.exit_code == 0, result.output  # deposit failures are not fatal
    assert "2 deposit(s) scored (1 measured, 1 already measured), 1 withdrawn, 3 failed" in result.output
    rows = {row["record"]: row for row in api.deposit_results(db)}
    assert rows["9100002"]["status"] == "failed"
    assert rows["9100002"]["failed_stage"] == "download"
    assert "md5" in rows["9100002"]["failure"].lower()
    assert rows["9100004"]["status"] == "failed"
    assert rows["9100004"]["failed_stage"] == "extract"
    assert rows["9100004"]["failure"]
    assert rows["9100003"]["status"] == "failed"
    assert rows["9100003"]["failed_stage"] == "extract"
    assert {rows[r]["status"] for r in ("9100001", "9100006")} == {"scored"}
    assert not (tmp_path / "escape.txt").exists()
    assert not any((tmp_path / "work").iterdir())
    assert "failed: zenodo:9100002 at download" in result.output


# --------------------------------------------------------------------------- lock


def test_a_second_run_exits_at_once_while_the_lock_is_held(zenodo, tmp_path):
    db = tmp_path / "l.db"
    with run_lock(f"{db}.lock"):
        started = time.monotonic()
        result = CliRunner().invoke(cli, run_args(zenodo, db, config_file(tmp_path)))
        assert time.monotonic() - started < 5
        with pytest.raises(LockBusy):
            with run_lock(f"{db}.lock"):
                pass
    assert result.exit_code == 3
    assert "another reproscore run is working on this database" in result.output
    assert str(os.getpid()) in result.output
    assert zenodo.requests == []
    assert not db.exists()


def test_a_second_process_is_refused_while_a_run_holds_the_lock(tmp_path):
    """Two real processes: the lock is an flock, released when its holder dies."""
    lock = tmp_path / "db.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time; from reproscore.pipeline import run_lock\n"
         f"with run_lock({str(lock)!r}):\n    print('locked', flush=True); time.sleep(30)"],
        stdout=subprocess.PIPE, text=True, cwd=ROOT,
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(LockBusy, match=f"pid {holder.pid}"):
            with run_lock(lock):
                pass
    finally:
        holder.kill()
        holder.wait()
    with run_lock(lock):  # the kernel released the dead holder's lock
        pass


# --------------------------------------------------------------------------- kill


# The records of each demo window, by the window's end (deposits.json, pages).
WINDOW_RECORDS = {
    "2026-08-20T12:00:00Z": {"9100001", "9100002", "9100003", "9100004", "9100005"},
    "2026-08-21T00:00:00Z": {"9100006"},
}


def _checkpoint_not_ahead(db: Path) -> None:
    """Every record of every window ending at or before the checkpoint is stored."""
    if not db.exists():
        return
    stored = content(db)
    if not stored["checkpoint"]:
        return
    checkpoint = stored["checkpoint"][0][0]
    ids = {row[1] for row in stored["deposits"]}
    for end, records in WINDOW_RECORDS.items():
        if end <= checkpoint:
            assert records <= ids, (checkpoint, records, ids)


def test_runs_killed_at_random_points_end_with_the_records_of_an_uninterrupted_run(tmp_path):
    rng = random.Random(20260820)
    with ReplayServer() as server:
        # Latency on every answer spreads the kill points over the whole run; more on
        # the OAI pages, so that a fair share of them fall inside the harvest.
        demo.install_routes(server, delay=0.03, oai_delay=0.15)
        reference = tmp_path / "reference"
        reference.mkdir()
        result = CliRunner().invoke(cli, run_args(server, reference / "r.db", config_file(reference)))
        assert result.exit_code == 0, result.output
        expected = content(reference / "r.db")

        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        started = time.monotonic()
        subprocess.run(
            [sys.executable, "-m", "reproscore", *run_args(server, tmp_path / "timing.db", config_file(reference))],
            cwd=ROOT, env=env, capture_output=True, check=True,
        )
        duration = time.monotonic() - started  # one whole run, imports included
        kills = 0
        # Three scenarios on fresh databases; in each, a run is killed at a random point,
        # restarted and killed again, then a last run finishes the job. The kills land in
        # every phase: start-up, between the windows, between and inside deposits.
        for scenario in range(3):
            folder = tmp_path / f"killed{scenario}"
            folder.mkdir()
            db = folder / "k.db"
            command = [sys.executable, "-m", "reproscore", *run_args(server, db, config_file(folder))]
            for attempt in range(2):
                child = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                # The first kill falls early (start-up, harvest, first deposits), the
                # second anywhere in what is left.
                time.sleep(rng.uniform(0.2, duration * (0.5 if attempt == 0 else 1.0)))
                if child.poll() is None:
                    child.send_signal(signal.SIGKILL)
                    kills += 1
                child.wait()
                _checkpoint_not_ahead(db)
            final = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
            assert final.returncode == 0, final.stderr + final.stdout
            assert content(db) == expected, f"scenario {scenario}"
            with Store(db) as store:
                assert store.integrity_check() == []
                statuses = {row[0] for row in store.conn.execute("SELECT status FROM harvest_windows")}
                assert statuses <= {"completed", "interrupted"}
    assert kills >= 3, "the runs finished before they could be killed"


# --------------------------------------------------------------------------- demo data


def test_the_demo_zips_match_their_rest_records():
    """The zips are built at run time; their bytes must be the ones the REST records
    announce (size and MD5), and each holds one top-level folder, like GitHub's."""
    import hashlib

    for record_id, (key, blob) in demo.deposit_zips().items():
        body = json.loads((demo.DEMO_ZENODO / "records" / f"{record_id}.json").read_text())
        (entry,) = body["files"]
        assert entry["key"] == key and "/" in key
        assert entry["size"] == len(blob)
        assert entry["checksum"] == "md5:" + hashlib.md5(blob).hexdigest()
        with zipfile.ZipFile(io.BytesIO(blob)) as archive:
            assert len({name.split("/")[0] for name in archive.namelist()}) == 1
