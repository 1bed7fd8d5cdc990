"""Outcome components without running anything: the imported-outcome schema and its
errors, the store's outcome records, the ROS/alpha/RCS stored with scores (RCS = RRS
without components, alpha = 0.525 for I, X, N and E′), the failure classes and the
output comparison of the determinism probe."""

from __future__ import annotations

import json
import sqlite3

import pytest
from click.testing import CliRunner
from sqlite_utils import Database

from reproscore import api
from reproscore.cli import cli
from reproscore.execution.outcomes import OutcomeError, inputs_for_rubric, parse_outcomes
from reproscore.execution.probes import classify_failure, outputs_match, parse_probes
from reproscore.execution.sandbox import RunResult
from reproscore.migrations import migration_names, migrations
from reproscore.store import Store
from scoring.rubric import load_rubric

TREE = {
    "requirements.txt": "numpy==1.24.3\n",
    "main.py": "import numpy\n\nprint(numpy.zeros(2))\n",
    "README.md": "# Tool\n\n## Usage\n\n```sh\npython main.py\n```\n",
}


@pytest.fixture
def stored(tmp_path, make_tree):
    """A store with one scored tree: (db path, SWHID, RRS under default)."""
    tree = make_tree(TREE)
    db = tmp_path / "store.db"
    scored = api.score_path(tree, db=db)
    return db, scored.result["snapshot"]["swhid"], scored.result["rrs"], tree


def outcome_doc(subject: str, **changes) -> dict:
    doc = {
        "schema": "reproscore-outcome/1",
        "subject": subject,
        "origin": {"name": "binder", "version": "2026.1", "url": "https://mybinder.org/v2/x", "run_id": "77"},
        "executed_at": "2026-11-02T10:00:00Z",
        "components": {"I": True, "X": False, "N": 0.6, "E_prime": 1.0},
        "failure_class": "code_error",
        "probes": [{"probe": "X", "command": "python main.py", "exit_status": 1, "duration_seconds": 2.5,
                    "log_excerpt": "TypeError: boom", "failure_class": "code_error"}],
    }
    doc.update(changes)
    return doc


def write_json(path, data) -> str:
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def import_cli(db, path):
    return CliRunner().invoke(cli, ["outcome", "import", "--db", str(db), str(path)])


# --------------------------------------------------------------------------- import


def test_a_valid_outcome_file_is_stored_with_its_origin(stored, tmp_path):
    db, swhid, rrs, _tree = stored
    result = import_cli(db, write_json(tmp_path / "r.json", outcome_doc(swhid)))
    assert result.exit_code == 0, result.output
    assert "imported outcome 1" in result.output and "from binder" in result.output
    with Store(db) as store:
        record = store.find_snapshot(swhid)
        outcome = store.outcome_for_snapshot(record.id)
    assert outcome["origin"] == "binder"
    assert outcome["origin_detail"]["run_id"] == "77" and outcome["origin_detail"]["file"] == "r.json"
    assert len(outcome["origin_detail"]["sha256"]) == 64
    assert outcome["sandbox"] is None and outcome["executed_at"] == "2026-11-02T10:00:00.000000Z"
    assert outcome["components"] == {"I": 100.0, "X": 0.0, "delta": None, "N": 60.0, "E_prime": 100.0, "T": None}
    assert outcome["inputs"] == {"I": True, "X": False, "N": 0.6, "E_prime": 1.0}
    assert outcome["failure_class"] == "code_error"
    assert outcome["probes"][0]["command"] == "python main.py" and outcome["probes"][0]["exit_status"] == 1


def test_alpha_is_0_525_when_i_x_n_and_e_prime_are_available(stored, tmp_path):
    db, swhid, rrs, tree = stored
    api.import_outcomes(db, write_json(tmp_path / "r.json", outcome_doc(swhid)))
    data = json.loads(CliRunner().invoke(cli, ["show", "--db", str(db), swhid, "--format", "json"]).output)
    ros = (0.30 * 100 + 0.25 * 0 + 0.10 * 60 + 0.10 * 100) / 0.75
    assert data["rcs"]["alpha"] == 0.525
    assert data["ros"]["value"] == round(ros, 2) and data["ros"]["coverage"] == 0.75
    # METRICS.md §8: ROS is rounded to 2 decimals, and RCS is computed from it.
    assert data["rcs"]["value"] == round(0.475 * rrs + 0.525 * round(ros, 2), 2)
    with Store(db) as store:
        row = store.conn.execute("SELECT rrs, ros, ros_coverage, alpha, rcs FROM scores").fetchone()
    assert row == (rrs, round(ros, 2), 0.75, 0.525, data["rcs"]["value"])
    # score --db of the same tree shows it too
    text = CliRunner().invoke(cli, ["score", str(tree), "--db", str(db)]).output
    assert "RCS" in text and "alpha 0.525" in text


def test_the_paper_table_5_install_dep_row(stored, tmp_path):
    """install_dep: I 0, X 0, N 1.3, E′ 100 → ROS 13.5; RCS 0.475·RRS + 0.525·ROS."""
    db, swhid, rrs, _tree = stored
    doc = outcome_doc(swhid, components={"I": False, "X": False, "N": 0.013, "E_prime": 1.0},
                      failure_class="install_dep")
    (item,) = api.import_outcomes(db, write_json(tmp_path / "r.json", doc))
    (score,) = item["scores"]
    assert score["ros"] == pytest.approx(13.5, abs=0.1) and score["alpha"] == 0.525
    assert score["rcs"] == pytest.approx(0.475 * rrs + 0.525 * 10.13 / 0.75, abs=0.01)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"components": {"I": True, "N": 60}}, "components.N"),
        ({"components": {"I": 100}}, "components.I"),
        ({"components": {"delta": 120}}, "components.delta"),
        ({"components": {"Z": 1}}, "components.Z"),
        ({"components": {"E": 1.0, "E_prime": 1.0}}, "components.E_prime"),
        ({"components": {"I": None}}, "components"),
        ({"executed_at": "yesterday"}, "executed_at"),
        ({"executed_at": "2026-11-02T10:00:00"}, "executed_at"),
        ({"origin": {"version": "1"}}, "origin.name"),
        ({"failure_class": "bad_luck"}, "failure_class"),
        ({"colour": "blue"}, "colour"),
        ({"schema": "reproscore-outcome/9"}, "schema"),
        ({"probes": [{"probe": "X", "exit_status": "one"}]}, "probes[0].exit_status"),
    ],
)
def test_an_invalid_outcome_is_rejected_naming_the_field(stored, tmp_path, change, field):
    db, swhid, _rrs, _tree = stored
    result = import_cli(db, write_json(tmp_path / "r.json", outcome_doc(swhid, **change)))
    assert result.exit_code == 2
    assert f"  {field}:" in result.stderr, result.stderr
    with Store(db) as store:
        assert store.conn.execute("SELECT count(*) FROM outcomes").fetchone()[0] == 0


def test_missing_fields_unknown_subjects_and_bad_json_are_named(stored, tmp_path):
    db, swhid, _rrs, _tree = stored
    doc = outcome_doc(swhid)
    del doc["origin"], doc["executed_at"]
    result = import_cli(db, write_json(tmp_path / "a.json", doc))
    assert result.exit_code == 2 and "origin: required" in result.stderr and "executed_at: required" in result.stderr
    result = import_cli(db, write_json(tmp_path / "b.json", outcome_doc("swh:1:dir:" + "0" * 40)))
    assert result.exit_code == 2 and "  subject: no snapshot" in result.stderr
    (tmp_path / "c.json").write_text("{not json")
    result = import_cli(db, tmp_path / "c.json")
    assert result.exit_code == 2 and "not valid JSON" in result.stderr and "line 1" in result.stderr


def test_several_outcomes_are_imported_all_or_none(stored, tmp_path):
    db, swhid, _rrs, _tree = stored
    good = outcome_doc(swhid)
    bad = outcome_doc(swhid, components={"T": 2})
    del good["schema"], bad["schema"]
    result = import_cli(db, write_json(tmp_path / "r.json", {"schema": "reproscore-outcome/1", "outcomes": [good, bad]}))
    assert result.exit_code == 2 and "outcomes[1].components.T:" in result.stderr
    with Store(db) as store:
        assert store.conn.execute("SELECT count(*) FROM outcomes").fetchone()[0] == 0
    result = import_cli(db, write_json(tmp_path / "r.json", {"schema": "reproscore-outcome/1", "outcomes": [good, good]}))
    assert result.exit_code == 0 and result.output.count("imported outcome") == 2


def test_the_most_recently_executed_outcome_is_current(stored, tmp_path):
    db, swhid, _rrs, _tree = stored
    api.import_outcomes(db, write_json(tmp_path / "new.json", outcome_doc(swhid, components={"I": True})))
    older = outcome_doc(swhid, components={"I": False}, executed_at="2025-01-01T00:00:00+02:00")
    api.import_outcomes(db, write_json(tmp_path / "old.json", older))
    with Store(db) as store:
        outcome = store.outcome_for_snapshot(store.find_snapshot(swhid).id)
        assert outcome["components"]["I"] == 100.0
        assert store.conn.execute("SELECT ros FROM scores").fetchone()[0] == 100.0


# --------------------------------------------------------------------------- RCS = RRS without components


def test_rcs_is_rrs_without_outcome_components(stored):
    db, swhid, rrs, _tree = stored
    data = json.loads(CliRunner().invoke(cli, ["show", "--db", str(db), swhid, "--format", "json"]).output)
    assert data["ros"] is None and data["rcs"] == {"alpha": 0.0, "value": rrs} and "outcome" not in data
    with Store(db) as store:
        assert store.conn.execute("SELECT ros, alpha, rcs FROM scores").fetchone() == (None, 0.0, rrs)
        # An execution where no probe applied: an outcome, but no component.
        snapshot = store.find_snapshot(swhid)
        store.save_outcome(snapshot.id, components={}, origin="reproscore-execute",
                           executed_at="2026-11-03T00:00:00.000000Z")
        row = store.conn.execute("SELECT outcome_id, ros, alpha, rcs FROM scores").fetchone()
    assert row[1:] == (None, 0.0, rrs) and row[0] is not None
    text = CliRunner().invoke(cli, ["show", "--db", str(db), swhid]).output
    assert "ROS" not in text


def test_rescore_under_another_rubric_carries_the_outcome(stored, tmp_path):
    db, swhid, _rrs, _tree = stored
    api.import_outcomes(db, write_json(tmp_path / "r.json", outcome_doc(swhid)))
    api.rescore(db, "bioinformatics-v1")
    with Store(db) as store:
        rows = store.conn.execute(
            "SELECT r.name, sc.rrs, sc.ros, sc.alpha, sc.rcs FROM scores sc JOIN rubrics r ON r.id = sc.rubric_id"
            " ORDER BY r.name").fetchall()
    assert [r[0] for r in rows] == ["bioinformatics-v1", "default"]
    for _name, rrs, ros, alpha, rcs in rows:
        assert alpha == 0.525 and rcs == round(0.475 * rrs + 0.525 * ros, 2)


def test_the_migration_gives_old_scores_rcs_equal_to_rrs(tmp_path):
    db = tmp_path / "old.db"
    conn = sqlite3.connect(db)
    migrations.apply(Database(conn), stop_before="m005_execution_outcomes")
    conn.execute("INSERT INTO snapshots (swhid, source, files, bytes, inventory, fetched_at)"
                 " VALUES (?, 'local', 0, 0, '{}', 't')", ("swh:1:dir:" + "a" * 40,))
    conn.execute("INSERT INTO rubrics (name, version, sha256, canonical, definition, source_text, stored_at)"
                 " VALUES ('r', '1.0.0', 'h', '{}', '{}', '', 't')")
    conn.execute("INSERT INTO detector_sets (sha256, versions) VALUES ('d', '{}')")
    conn.execute("INSERT INTO scores (snapshot_id, rubric_id, detector_set_id, rrs, rrs_unclamped, e_raw, a_raw,"
                 " d_raw, c_raw, s_raw, e_contribution, a_contribution, d_contribution, c_contribution,"
                 " s_contribution, penalties_fired, scorer_version, computed_at)"
                 " VALUES (1, 1, 1, 42.5, 42.5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, '[]', '0', 't')")
    conn.commit()
    conn.close()
    with Store(db) as store:  # upgraded when opened
        assert [m["name"] for m in store.schema()] == list(migration_names())
        assert store.conn.execute("SELECT ros, alpha, rcs, outcome_id FROM scores").fetchone() == (None, 0.0, 42.5, None)


# --------------------------------------------------------------------------- units


def test_inputs_follow_the_rubrics_declared_scales():
    components = {"I": 100.0, "X": 0.0, "delta": 90.0, "N": 60.0, "E_prime": None, "T": 80.0}
    assert inputs_for_rubric(components, load_rubric("default")) == {
        "I": True, "X": False, "delta": 90.0, "N": 0.6, "T": 0.8}
    assert inputs_for_rubric({"I": None}) is None


def test_outcome_documents_accept_e_as_e_prime_and_string_origins():
    (one,) = parse_outcomes({"schema": "reproscore-outcome/1", "subject": "zenodo:1", "origin": "ci",
                             "executed_at": "2026-01-01T00:00:00+01:00", "components": {"E": 0.5}})
    assert one.components["E_prime"] == 50.0 and one.origin == "ci"
    assert one.executed_at == "2025-12-31T23:00:00.000000Z"
    with pytest.raises(OutcomeError, match="subject: required"):
        parse_outcomes({"schema": "reproscore-outcome/1", "origin": "ci", "executed_at": "2026-01-01T00:00:00Z",
                        "components": {"I": True}})


def _run(stderr: str, *, timed_out: bool = False, status: int | None = 1) -> RunResult:
    return RunResult(["python", "main.py"], "/sandbox/tree", None if timed_out else status, 1.0, timed_out, "", stderr)


@pytest.mark.parametrize(
    ("stderr", "expected"),
    [
        ("Traceback (most recent call last):\nModuleNotFoundError: No module named 'foo'", "missing_module"),
        ("ImportError: cannot import name 'x' from 'y'", "missing_module"),
        ("FileNotFoundError: [Errno 2] No such file or directory: 'data.csv'", "missing_data"),
        ("ConnectionRefusedError: [Errno 111] Connection refused", "missing_data"),
        ("urllib.error.URLError: <urlopen error [Errno -3] Temporary failure in name resolution>", "missing_data"),
        ("requests.exceptions.ConnectionError: HTTPSConnectionPool(host='x')", "missing_data"),
        ("OSError: [Errno 101] Network is unreachable", "missing_data"),
        ("OSError: [Errno 28] No space left on device", "code_error"),
        ("TypeError: can only concatenate str (not \"int\") to str", "code_error"),
        ("Segmentation fault", "code_error"),
    ],
)
def test_failures_are_classified_in_the_papers_vocabulary(stderr, expected):
    assert classify_failure(_run(stderr)) == expected


def test_a_timeout_is_its_own_class():
    assert classify_failure(_run("FileNotFoundError: x", timed_out=True)) == "timeout"


def test_outputs_match_exactly_for_text_and_within_1e_6_for_numbers():
    assert outputs_match("loss 0.123456789\n", "loss 0.1234567891\n")
    assert not outputs_match("loss 0.1234\n", "loss 0.1235\n")
    assert outputs_match("n=1e-9", "n=2e-9")  # absolute tolerance near zero
    assert not outputs_match("accuracy 1000000", "accuracy 1000002")
    assert not outputs_match("label a 1", "label b 1")
    assert outputs_match("nan", "nan")


def test_probe_lists_are_parsed():
    assert parse_probes("I,X,delta,N,E_prime,T") == ("I", "E_prime", "X", "N", "delta", "T")
    assert parse_probes("x, e, Δ") == ("E_prime", "X", "delta")
    with pytest.raises(ValueError, match="unknown probe 'Y'"):
        parse_probes("I,Y")


def test_the_tree_is_found_where_the_store_says_or_refused(tmp_path, make_tree):
    from reproscore.config import Config, RunConfig
    from reproscore.store import SnapshotRecord

    tree = make_tree(TREE)
    swhid = api.identify_tree(tree).swhid
    kept = tmp_path / "work" / "zenodo-123" / "tree"
    kept.parent.mkdir(parents=True)
    tree.rename(kept)
    record = SnapshotRecord(1, swhid, "zenodo", "zenodo:123", 3, 10, None, 1, "t")
    config = Config(run=RunConfig(work_dir=str(tmp_path / "work")))
    assert api.locate_tree(None, record, config=config) == kept
    with pytest.raises(api.TreeUnavailable, match=r"--tree PATH.*run --keep"):
        api.locate_tree(None, record, config=Config(run=RunConfig(work_dir=str(tmp_path / "elsewhere"))))
