"""The provenance store on real SQLite files: schema and migrations, round trips,
idempotence, identity, provenance, conflicts, and crashes and concurrent writers in real
child processes."""

from __future__ import annotations

import hashlib
import json
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import synthetic
import yaml
from click.testing import CliRunner
from sqlite_utils import Database

from reproscore.cli import cli
from reproscore.migrations import MIGRATION_SET, migration_names, migrations
from reproscore.store import (
    TABLES,
    NotFound,
    RubricConflict,
    SchemaTooNew,
    Store,
    StoreError,
)
from scoring.aggregate import compile_rubric, score
from scoring.catalog import CATEGORY_KEYS, METRIC_IDS
from scoring.model import Measurement
from scoring.rubric import load_rubric, parse_rubric
from scoring.trees.swhid import TreeIdentity

ROOT = Path(__file__).resolve().parents[1]
SYNTHETIC = ROOT / "tests" / "synthetic.py"
KILL_SNAPSHOTS = 2000
DEFAULT = load_rubric("default")
BIO = load_rubric("bioinformatics-v1")


def dump(path: Path) -> list[str]:
    """Every row of every table, as SQL text: equal dumps mean nothing changed."""
    conn = sqlite3.connect(path)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def save(store: Store, seed: int, rubric=DEFAULT, **kwargs) -> int:
    measured = synthetic.measurements(seed, **kwargs)
    rubric_id = store.ensure_rubric(rubric)
    return store.save_snapshot(
        synthetic.identity(seed), measured, label=f"synthetic/{seed}", score=(rubric_id, score(measured, rubric))
    )


def variant_rubric(name: str, version: str, e_weight: float) -> object:
    """A valid rubric whose category weights differ from the default's."""
    doc = DEFAULT.to_dict()
    doc.update(name=name, version=version)
    doc["categories"]["E"]["weight"] = e_weight
    doc["categories"]["A"]["weight"] = round(0.55 - e_weight, 10)
    return parse_rubric(yaml.safe_dump(doc), source=f"{name}.yaml")


# --------------------------------------------------------------------------- schema


def test_a_new_store_has_the_schema_wal_foreign_keys_and_recorded_migrations(tmp_path):
    path = tmp_path / "r.db"
    with Store(path) as store:
        conn = store.conn
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 10_000
        names = set(store.db.table_names())
        assert set(TABLES) <= names
        assert [m["name"] for m in store.schema()] == list(migration_names())
        indexes = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert {"measurements_current", "measurements_one_current", "scores_by_snapshot"} <= indexes
        assert store.integrity_check() == []
    rows = sqlite3.connect(path).execute("SELECT migration_set, name FROM _sqlite_migrations").fetchall()
    assert rows == [(MIGRATION_SET, name) for name in migration_names()]


def test_foreign_keys_and_checks_are_enforced(tmp_path):
    with Store(tmp_path / "r.db") as store:
        with pytest.raises(sqlite3.IntegrityError):
            with store.write() as conn:
                conn.execute(
                    "INSERT INTO scores (snapshot_id, rubric_id, detector_set_id, rrs, rrs_unclamped,"
                    " e_raw, a_raw, d_raw, c_raw, s_raw, e_contribution, a_contribution,"
                    " d_contribution, c_contribution, s_contribution, penalties_fired,"
                    " scorer_version, computed_at) VALUES (99, 99, 99, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,"
                    " 1, 1, '[]', 'x', 'now')"
                )
        snapshot_id = save(store, 1)
        with pytest.raises(sqlite3.IntegrityError):
            with store.write() as conn:
                conn.execute("UPDATE measurements SET value = 101 WHERE snapshot_id = ?", (snapshot_id,))
        with pytest.raises(sqlite3.IntegrityError):  # two current measurements of one metric
            with store.write() as conn:
                conn.execute("UPDATE measurements SET is_current = 1, detector_version = 'x' WHERE id = 1")
                conn.execute(
                    "INSERT INTO measurements (snapshot_id, metric_id, metric_position, category,"
                    " detector_version, value, applicable, outcome, is_current, scorer_version,"
                    " measured_at) SELECT snapshot_id, metric_id, metric_position, category, 'y', value,"
                    " applicable, outcome, 1, scorer_version, measured_at FROM measurements WHERE id = 1"
                )


def test_a_database_from_a_newer_schema_is_refused_unchanged(tmp_path):
    path = tmp_path / "r.db"
    with Store(path) as store:
        save(store, 1)
        store.db["_sqlite_migrations"].insert(
            {"migration_set": MIGRATION_SET, "name": "m999_from_the_future", "applied_at": "2031-01-01"}
        )
    before = dump(path)
    with pytest.raises(SchemaTooNew, match=r"newer reproscore.*m999_from_the_future.*Upgrade reproscore"):
        Store(path)
    assert dump(path) == before
    result = CliRunner().invoke(cli, ["db", "stats", "--db", str(path)])
    assert result.exit_code == 2
    assert "newer reproscore" in result.output


def test_an_older_database_is_migrated_keeping_its_rows(tmp_path):
    path = tmp_path / "old.db"
    db = Database(path)
    migrations.apply(db, stop_before=migration_names()[-1])
    db.execute(
        "INSERT INTO snapshots (swhid, source, files, bytes, inventory, fetched_at)"
        " VALUES (?, 'local', 1, 2, '{}', 'then')",
        [synthetic.identity(7).swhid],
    )
    db.close()
    with Store(path) as store:
        assert [m["name"] for m in store.schema()] == list(migration_names())
        assert store.find_snapshot(synthetic.identity(7).swhid).files == 1
        indexes = {row[0] for row in store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert "measurements_current" in indexes


def test_other_files_are_refused(tmp_path):
    foreign = tmp_path / "foreign.db"
    sqlite3.connect(foreign).execute("CREATE TABLE notes (x)")
    with pytest.raises(StoreError, match="not a reproscore database"):
        Store(foreign)
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="garbage.db"):
        Store(garbage)
    missing = tmp_path / "missing.db"
    with pytest.raises(StoreError, match="no such database"):
        Store(missing, create=False)
    assert not missing.exists()


# --------------------------------------------------------------------------- round trips


def test_measurements_round_trip_exactly_including_redacted_snippets(tmp_path):
    with Store(tmp_path / "r.db") as store:
        measured = synthetic.measurements(3)
        snapshot_id = store.save_snapshot(synthetic.identity(3), measured)
        loaded = store.load_measurements(snapshot_id)
    assert loaded.to_dict() == json.loads(json.dumps(measured.to_dict()))
    snippets = [e.snippet for m in loaded.measurements.values() for e in m.evidence if e.snippet]
    assert 'password = "hunt…(14 chars)"' in snippets
    assert list(loaded.measurements) == list(METRIC_IDS)


def test_storing_twice_changes_nothing(tmp_path):
    path = tmp_path / "r.db"
    with Store(path) as store:
        for seed in range(5):
            save(store, seed)
    before = dump(path)
    time.sleep(0.01)  # a rewrite would carry a new timestamp
    with Store(path) as store:
        for seed in range(5):
            save(store, seed)
    assert dump(path) == before


def test_score_rows_hold_every_part_of_the_score(tmp_path):
    with Store(tmp_path / "r.db") as store:
        snapshot_id = save(store, 11, rubric=BIO)
        record = store.find_snapshot(synthetic.identity(11).swhid)
        stored = store.stored_score(record, store.rubric_id(BIO))
    expected = score(synthetic.measurements(11), BIO)
    assert stored.snapshot_id == snapshot_id
    assert (stored.rrs, stored.rrs_unclamped) == (expected.rrs, expected.rrs_unclamped)
    assert stored.raw == {k: expected.categories[k].raw for k in CATEGORY_KEYS}
    assert stored.contribution == {k: expected.categories[k].gated for k in CATEGORY_KEYS}
    assert stored.penalties_fired == [p.id for p in expected.penalties if p.fired]
    assert stored.scorer_version and stored.computed_at.endswith("Z")


def test_the_same_tree_is_measured_once_per_detector_version(tmp_path):
    versions = {mid: synthetic.DETECTOR_VERSION for mid in METRIC_IDS}
    with Store(tmp_path / "r.db") as store:
        assert store.reusable_measurements(synthetic.identity(4).swhid, versions) is None
        save(store, 4)
        record, measured = store.reusable_measurements(synthetic.identity(4).swhid, versions)
        assert measured.to_dict() == store.load_measurements(record.id).to_dict()
        newer = dict(versions, dep_pinning="2.0.0")
        assert store.reusable_measurements(synthetic.identity(4).swhid, newer) is None


def test_new_detector_versions_add_measurements_and_become_current(tmp_path):
    with Store(tmp_path / "r.db") as store:
        snapshot_id = save(store, 5)
        remeasured = synthetic.measurements(6, detector_version="2.0.0")
        rubric_id = store.ensure_rubric(DEFAULT)
        store.save_snapshot(
            synthetic.identity(5), remeasured, score=(rubric_id, score(remeasured, DEFAULT))
        )
        conn = store.conn
        assert conn.execute("SELECT count(*) FROM measurements WHERE snapshot_id = ?", (snapshot_id,)).fetchone()[0] == 52
        current = conn.execute(
            "SELECT DISTINCT detector_version FROM measurements WHERE snapshot_id = ? AND is_current = 1",
            (snapshot_id,),
        ).fetchall()
        assert current == [("2.0.0",)]
        loaded = store.load_measurements(snapshot_id)
        assert loaded.to_dict() == json.loads(json.dumps(remeasured.to_dict())) | {
            "inventory": loaded.to_dict()["inventory"]  # the tree's inventory is kept from the first store
        }
        assert conn.execute("SELECT count(*) FROM scores WHERE snapshot_id = ?", (snapshot_id,)).fetchone()[0] == 2
        record = store.find_snapshot(synthetic.identity(5).swhid)
        assert store.stored_score(record, rubric_id).rrs == score(remeasured, DEFAULT).rrs
        # Back to the first versions: measured once already, so nothing is added.
        save(store, 5)
        assert conn.execute("SELECT count(*) FROM measurements").fetchone()[0] == 52
        assert store.load_measurements(snapshot_id).to_dict()["submetrics"]["dep_pinning"]["detector_version"] == "1.0.0"


def test_a_failed_measurement_is_replaced_by_a_later_success(tmp_path):
    with Store(tmp_path / "r.db") as store:
        broken = synthetic.measurements(8)
        broken.measurements["seed_management"] = Measurement(
            metric_id="seed_management", category="S", value=None, applicable=False, level=None,
            outcome="error", reason="RuntimeError: boom", detector_version=synthetic.DETECTOR_VERSION,
        )  # fmt: skip
        snapshot_id = store.save_snapshot(synthetic.identity(8), broken)
        store.record_failure("score", "IncompleteMeasurements", "seed_management failed", snapshot_id=snapshot_id)
        store.record_failure("score", "IncompleteMeasurements", "seed_management failed", snapshot_id=snapshot_id)
        versions = {mid: synthetic.DETECTOR_VERSION for mid in METRIC_IDS}
        assert store.reusable_measurements(synthetic.identity(8).swhid, versions) is None
        save(store, 8)
        loaded = store.load_measurements(snapshot_id)
        assert loaded["seed_management"].outcome != "error"
        assert loaded.to_dict()["submetrics"] == json.loads(json.dumps(synthetic.measurements(8).to_dict()))["submetrics"]
        failures = store.conn.execute("SELECT stage, attempts FROM failures").fetchall()
        assert failures == [("score", 2)]


def test_partial_measurements_are_not_stored(tmp_path):
    with Store(tmp_path / "r.db") as store:
        measured = synthetic.measurements(9)
        del measured.measurements["ci_presence"]
        with pytest.raises(ValueError, match="ci_presence"):
            store.save_snapshot(synthetic.identity(9), measured)
        assert store.stats()["tables"]["snapshots"] == 0


# --------------------------------------------------------------------------- rubrics


def test_one_rubric_name_and_version_never_maps_to_two_hashes(tmp_path):
    path = tmp_path / "r.db"
    first = variant_rubric("lab", "1.0.0", 0.35)
    changed = variant_rubric("lab", "1.0.0", 0.40)
    assert first.sha256 != changed.sha256
    with Store(path) as store:
        rubric_id = store.ensure_rubric(first)
        assert store.ensure_rubric(first) == rubric_id
    with Store(path) as store:
        with pytest.raises(RubricConflict, match=r"lab@1.0.0.*change the version"):
            store.ensure_rubric(changed)
        assert store.ensure_rubric(variant_rubric("lab", "1.1.0", 0.40)) != rubric_id
        # The same content under another name is another rubric, not a conflict.
        assert store.ensure_rubric(variant_rubric("lab-copy", "1.0.0", 0.35)) != rubric_id


def test_a_stored_rubric_can_be_rebuilt_from_its_definition(tmp_path):
    with Store(tmp_path / "r.db") as store:
        store.ensure_rubric(BIO)
        rebuilt = store.find_stored_rubric("bioinformatics-v1@1.0.0")
        assert rebuilt.sha256 == BIO.sha256
        assert store.find_stored_rubric("bioinformatics-v1").sha256 == BIO.sha256
        assert store.find_stored_rubric("unknown") is None
        row = store.conn.execute("SELECT canonical, source_text FROM rubrics WHERE name = 'bioinformatics-v1'").fetchone()
    assert hashlib.sha256(row[0].encode()).hexdigest() == BIO.sha256
    assert row[1] == BIO.text


# --------------------------------------------------------------------------- deposits, lookup, stats


def test_deposits_upsert_idempotently_and_resolve_to_their_snapshot(tmp_path):
    with Store(tmp_path / "r.db") as store:
        snapshot_id = save(store, 12)
        fields = dict(
            version_doi="10.5281/zenodo.123456", origin_url="https://github.com/lab/tool",
            title="Tool", creators=[{"name": "Doe, J."}], metadata={"id": 123456},
        )  # fmt: skip
        deposit_id = store.upsert_deposit("zenodo", "123456", **fields)
        updated_at = store.conn.execute("SELECT updated_at FROM deposits").fetchone()[0]
        time.sleep(0.01)
        assert store.upsert_deposit("zenodo", "123456", **fields) == deposit_id
        assert store.conn.execute("SELECT updated_at FROM deposits").fetchone()[0] == updated_at
        store.upsert_deposit("zenodo", "123456", **(fields | {"title": "Tool v2"}))
        assert store.conn.execute("SELECT title, updated_at > ? FROM deposits", (updated_at,)).fetchone() == ("Tool v2", 1)
        store.link_deposit(deposit_id, snapshot_id)
        store.link_deposit(deposit_id, snapshot_id)
        for reference in (
            "zenodo:123456",
            "10.5281/zenodo.123456",
            "https://doi.org/10.5281/ZENODO.123456",
            "https://github.com/lab/tool",
            synthetic.identity(12).swhid,
            synthetic.identity(12).swhid[10:20],
        ):
            assert store.resolve(reference).id == snapshot_id, reference
        with pytest.raises(NotFound):
            store.resolve("zenodo:999")
        with pytest.raises(ValueError, match="unknown deposit field"):
            store.upsert_deposit("zenodo", "1", colour="red")
        stats = store.stats()
    assert stats["tables"]["deposit_snapshots"] == 1
    assert stats["deposits_by_source"] == {"zenodo": 1}


def test_an_ambiguous_prefix_is_reported(tmp_path):
    with Store(tmp_path / "r.db") as store:
        for suffix in ("0" * 34, "1" * 34):
            store.save_snapshot(TreeIdentity("swh:1:dir:abcdef" + suffix, 1, 1), synthetic.measurements(1))
        with pytest.raises(NotFound, match="ambiguous"):
            store.resolve("abcdef")
        assert store.resolve("abcdef0").swhid.endswith("0" * 34)


def test_db_stats_counts_tables_sources_and_rubric_versions(tmp_path):
    path = tmp_path / "r.db"
    with Store(path) as store:
        for seed in range(3):
            save(store, seed)
        save(store, 0, rubric=BIO)
    result = CliRunner().invoke(cli, ["db", "stats", "--db", str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    stats = json.loads(result.output)
    assert stats["tables"]["snapshots"] == 3
    assert stats["tables"]["measurements"] == 78
    assert stats["tables"]["scores"] == 4
    assert stats["snapshots_by_source"] == {"local": 3}
    assert {(r["name"], r["scores"]) for r in stats["rubrics"]} == {("default", 3), ("bioinformatics-v1", 1)}
    text = CliRunner().invoke(cli, ["db", "stats", "--db", str(path)])
    assert text.exit_code == 0 and "measurements" in text.output and "bioinformatics-v1" in text.output


def test_read_commands_do_not_create_a_database(tmp_path):
    missing = tmp_path / "typo.db"
    for args in (["db", "stats"], ["show", "abc"], ["rescore", "--rubric", "default"]):
        result = CliRunner().invoke(cli, [*args, "--db", str(missing)])
        assert result.exit_code == 2, args
        assert "no such database" in result.output
    assert not missing.exists()


def test_the_database_can_be_named_by_environment_variable(tmp_path):
    path = tmp_path / "env.db"
    with Store(path) as store:
        save(store, 1)
    result = CliRunner().invoke(cli, ["db", "stats", "--format", "json"], env={"REPROSCORE_DB": str(path)})
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["database"] == str(path)


# --------------------------------------------------------------------------- crashes and concurrency


def check_consistency(path: Path) -> dict[str, int]:
    """What a crash must never leave behind, checked on the raw file."""
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        # The schema is created in one transaction: a process killed before it commits
        # (a slow start on a loaded machine) leaves a file with none of the tables, never
        # some of them.
        present = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not present & set(TABLES):
            return {"snapshots": 0, "scores": 0}
        assert set(TABLES) <= present, f"a partial schema: {sorted(set(TABLES) - present)} missing"
        # Every stored snapshot has its 26 current measurements and all their evidence.
        bad = conn.execute(
            "SELECT s.id FROM snapshots s LEFT JOIN measurements m ON m.snapshot_id = s.id AND m.is_current = 1"
            " GROUP BY s.id HAVING count(m.id) <> 26"
        ).fetchall()
        assert bad == []
        bad = conn.execute(
            "SELECT m.id FROM measurements m LEFT JOIN evidence e ON e.measurement_id = m.id"
            " GROUP BY m.id HAVING count(e.id) <> m.evidence_count"
        ).fetchall()
        assert bad == []
        # Every score is whole: its numbers are those of its snapshot's measurements.
        rubrics = {}
        for rubric_id, name in conn.execute("SELECT id, name FROM rubrics"):
            rubrics[rubric_id] = compile_rubric(load_rubric(name))
        values: dict[int, tuple] = {}
        for snapshot_id, value in conn.execute(
            "SELECT snapshot_id, value FROM measurements WHERE is_current = 1 ORDER BY snapshot_id, metric_position"
        ):
            values.setdefault(snapshot_id, ())
            values[snapshot_id] += (value,)
        scores = conn.execute(
            "SELECT snapshot_id, rubric_id, rrs, rrs_unclamped, e_raw, a_raw, d_raw, c_raw, s_raw,"
            " e_contribution, a_contribution, d_contribution, c_contribution, s_contribution,"
            " penalties_fired FROM scores"
        ).fetchall()
        for row in scores:
            raws, gateds, fired, unclamped, rrs = rubrics[row[1]](values[row[0]])
            penalty_ids = rubrics[row[1]].penalty_ids
            assert row[2:] == (
                rrs, unclamped, *raws, *gateds,
                json.dumps([p for p, hit in zip(penalty_ids, fired, strict=True) if hit]),
            )  # fmt: skip
        return {
            "snapshots": conn.execute("SELECT count(*) FROM snapshots").fetchone()[0],
            "scores": len(scores),
        }
    finally:
        conn.close()


def store_child(path: Path, first: int, count: int, rescore_every: int) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(SYNTHETIC), "store", str(path), str(first), str(count),
         "--rescore-every", str(rescore_every)],  # fmt: skip
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_process_killed_mid_write_leaves_a_consistent_database(tmp_path):
    path = tmp_path / "killed.db"
    seed = random.randrange(1_000_000)
    rng = random.Random(seed)
    kills = 0
    for _attempt in range(6):
        # Each run starts over: what was stored before is skipped (idempotence), so the
        # kills land at different points of storing and rescoring.
        child = store_child(path, 0, KILL_SNAPSHOTS, rescore_every=100)
        time.sleep(rng.uniform(0.3, 1.8))
        if child.poll() is None:
            child.send_signal(signal.SIGKILL)
            kills += 1
        child.communicate(timeout=60)
        if path.exists():
            check_consistency(path)
    assert kills >= 3, f"the child finished too soon to be killed mid-write (seed {seed})"
    child = store_child(path, 0, KILL_SNAPSHOTS, rescore_every=100)
    out, err = child.communicate(timeout=120)
    assert child.returncode == 0, err
    assert out.strip() == "done"
    counts = check_consistency(path)
    assert counts == {"snapshots": KILL_SNAPSHOTS, "scores": 2 * KILL_SNAPSHOTS}, f"seed {seed}"


def test_two_processes_writing_at_once_lose_nothing(tmp_path):
    path = tmp_path / "shared.db"
    with Store(path):
        pass  # created up front, so both children race on writes, not on creation
    first = store_child(path, 0, 150, rescore_every=10)
    second = store_child(path, 100, 150, rescore_every=10)
    for child in (first, second):
        out, err = child.communicate(timeout=180)
        assert child.returncode == 0, err
        assert out.strip() == "done"
    counts = check_consistency(path)
    assert counts == {"snapshots": 250, "scores": 500}
    with Store(path) as store:
        assert store.stats()["tables"]["measurements"] == 250 * 26
        assert store.stats()["tables"]["detector_sets"] == 1


def test_processes_creating_the_database_at_once_all_succeed(tmp_path):
    path = tmp_path / "new.db"
    children = [store_child(path, i * 5, 5, rescore_every=0) for i in range(3)]
    for child in children:
        _, err = child.communicate(timeout=120)
        assert child.returncode == 0, err
    assert check_consistency(path) == {"snapshots": 15, "scores": 15}
    with Store(path) as store:
        assert [m["name"] for m in store.schema()] == list(migration_names())


def test_a_secret_found_in_a_deposit_never_reaches_the_database(tmp_path):
    secret = "9f8e7d6c5b4a39281706f5e4d3c2b1a0"
    db = tmp_path / "s.db"
    result = CliRunner().invoke(cli, ["score", str(ROOT / "tests" / "fixtures" / "samples" / "legacy-scripts"), "--db", str(db), "--format", "json"])
    assert result.exit_code == 0, result.output
    assert secret not in result.output
    evidence = json.loads(result.output)["submetrics"]["no_hardcoded_credentials"]["evidence"]
    assert [(e["path"], e["line_start"]) for e in evidence] == [("analysis.py", 5)]
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    for path in tmp_path.iterdir():
        assert secret.encode() not in path.read_bytes(), path.name
