"""Scale (issue 9): the nightly run and bulk scoring on a local process pool and on a
Dask LocalCluster store exactly what a sequential run stores; a worker killed mid-task
loses and duplicates nothing; archives read in place give the snapshots extraction
gives. Everything runs against real HTTP servers on 127.0.0.1 replaying the demo
Zenodo and Software Heritage (tests/replay_server.py, reproscore.demo), offline.

**How two databases are compared** (:func:`dump`). Every table of the store
(``reproscore.store.TABLES``) and the migrations table is read whole, and each row is
rewritten so that it no longer depends on *when* or *in which order* rows were
inserted:

* columns holding the time of an action (every ``*_at`` column, and the bounds of a
  Software Heritage discovery window, which ends when the discovery runs) are dropped:
  a second run happens at another time;
* surrogate keys (``id`` columns) are dropped, and every foreign key is replaced by the
  natural key of the row it points to: a deposit by ``(source, source_id)``, a snapshot
  by its SWHID, a measurement by ``(SWHID, metric, detector version)``, a rubric and a
  detector set by their sha256, a harvest window by ``(source, start, end)``, a run by
  ``(source, command, from_ts, until_ts)``, an outcome by ``(SWHID, origin,
  executed_at)``;
* the replay server's address (``http://127.0.0.1:<port>``, in the file URLs of the
  records) is replaced by one placeholder: every test serves the same answers from
  its own server;
* each table is then a sorted list of rows (a multiset): a row stored twice shows up
  twice, a row missing is missing.

Everything else is compared as stored: deposit states and file lists, the snapshot
rows (including which deposit and label first reached each tree), every measurement
value and evidence item with its position, every score, every failure with its stage,
class, message and attempt count, the harvest windows and the run's counters.
"""

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
from replay_server import ReplayServer
from scale_tasks import ConsumingPair, KillOnce, deaths, square

from harvester.fetch import ExtractionLimits, materialize
from reproscore import api, demo
from reproscore.cli import cli
from reproscore.deposit_tasks import DepositJob, DepositOutcome, DepositTask
from reproscore.executors import DaskExecutor, Executor, LocalExecutor
from reproscore.pipeline import Progress
from reproscore.store import TABLES, Store, StoreError
from scoring.parallel import PoolStats, WorkerDied, ordered_map

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "tests" / "fixtures" / "samples"
SAMPLE_TREES = sorted(p for p in SAMPLES.iterdir() if p.is_dir())
UNTIL = demo.manifest()["window"]["until"]

# A Software Heritage discovery window ends when the discovery runs: its bounds are
# times of an action, like the *_at columns.
WINDOW_BOUNDS = (
    "source, CASE WHEN source = 'swh' THEN NULL ELSE start END,"
    " CASE WHEN source = 'swh' THEN NULL ELSE \"end\" END"
)
# Each test serves the same answers from its own replay server: its port shows in the
# file URLs Zenodo's records give.
REPLAY_URL = re.compile(r"http://127\.0\.0\.1:\d+")
# Referenced table -> SQL giving the natural key of one of its rows by id.
NATURAL = {
    "deposits": "SELECT source, source_id FROM deposits WHERE id = ?",
    "snapshots": "SELECT swhid FROM snapshots WHERE id = ?",
    "measurements": "SELECT s.swhid, m.metric_id, m.detector_version FROM measurements m"
                    " JOIN snapshots s ON s.id = m.snapshot_id WHERE m.id = ?",
    "rubrics": "SELECT sha256 FROM rubrics WHERE id = ?",
    "detector_sets": "SELECT sha256 FROM detector_sets WHERE id = ?",
    "harvest_windows": f"SELECT {WINDOW_BOUNDS} FROM harvest_windows WHERE id = ?",
    "harvest_runs": "SELECT source, command, from_ts, until_ts FROM harvest_runs WHERE id = ?",
    "outcomes": "SELECT s.swhid, o.origin, o.executed_at FROM outcomes o"
                " JOIN snapshots s ON s.id = o.snapshot_id WHERE o.id = ?",
}
# Foreign keys the schema does not declare (run_id is a plain column).
EXTRA_REFERENCES = {("harvest_windows", "run_id"): "harvest_runs"}


def dump(db: Path) -> dict[str, list[tuple]]:
    """Every table of ``db`` as sorted rows without times or surrogate ids, foreign keys
    replaced by natural keys (see the module's documentation)."""
    conn = sqlite3.connect(db)
    try:
        out: dict[str, list[tuple]] = {}
        for table in (*TABLES, "_sqlite_migrations"):
            columns = [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]
            references = {row[3]: row[2] for row in conn.execute(f"PRAGMA foreign_key_list({table})")}
            references.update({c: t for (tab, c), t in EXTRA_REFERENCES.items() if tab == table})
            kept = [c for c in columns if c != "id" and not c.endswith("_at")]
            selected = [f"[{c}]" for c in kept]
            if table == "harvest_windows":
                selected[kept.index("start")] = "CASE WHEN source = 'swh' THEN NULL ELSE start END"
                selected[kept.index("end")] = "CASE WHEN source = 'swh' THEN NULL ELSE \"end\" END"
            rows = []
            for row in conn.execute(f"SELECT {', '.join(selected)} FROM {table}"):
                values = []
                for column, value in zip(kept, row, strict=True):
                    if column in references and value is not None:
                        value = conn.execute(NATURAL[references[column]], (value,)).fetchone()
                    elif isinstance(value, str):
                        value = REPLAY_URL.sub("http://replay", value)
                    values.append(value)
                rows.append(tuple(values))
            out[table] = sorted(rows, key=repr)
        return out
    finally:
        conn.close()


# --------------------------------------------------------------------------- the scenario


def _hostile_zip() -> bytes:
    """A zip whose member climbs out of its folder (fixed times: the same bytes, the
    same MD5, every time)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in (("pkg-1.0/README.md", "hello\n"), ("pkg-1.0/../../escape.txt", "outside\n")):
            archive.writestr(zipfile.ZipInfo(name, (2026, 8, 20, 0, 0, 0)), text)
    return buffer.getvalue()


ERROR_PAGE = b'{"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}\n'


def serve(server: ReplayServer, work: Path, delay: float = 0.0) -> Path:
    """The demo Zenodo and Software Heritage, with two hostile deposits: 9100003's zip
    is GitHub's JSON error page, 9100004's climbs out of its folder. Returns the
    Software Heritage watch list."""
    zips = demo.deposit_zips()
    demo.install_routes(
        server,
        zips={"9100003": (zips["9100003"][0], ERROR_PAGE), "9100004": (zips["9100004"][0], _hostile_zip())},
        announce={"9100003": ERROR_PAGE, "9100004": _hostile_zip()}, delay=delay,
    )
    watched = demo.install_swh_routes(server, work / "swh-trees")
    origins = work / "origins.txt"
    origins.write_text("\n".join(watched) + "\n")
    return origins


def run_scenario(folder: Path, **options) -> tuple[Path, object]:
    """One nightly run of the scenario into a fresh database in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    with ReplayServer() as server:
        origins = serve(server, folder)
        config = demo.demo_config(folder / "reproscore.toml", folder / "work", swh={
            "enabled": True, "api_url": f"{server.url}/api/1/", "deposits": False,
            "origins_file": str(origins), "vault_poll_seconds": 0.01, "vault_poll_max_seconds": 0.02,
        })
        db = folder / "scale.db"
        summary = api.run_nightly(
            db, config=config, oai_url=f"{server.url}/oai2d", api_url=f"{server.url}/api",
            until=UNTIL, progress=Progress(io.StringIO()), **options,
        )
    return db, summary


# The frontends whose facts the scenario's trees give (file_facts: the Python scripts and
# notebooks, the Snakemake workflow).
FACTS_FRONTENDS = {"python", "snakemake"}

# The summary every run of the scenario must end with.
EXPECTED_LINE = (
    "3 window(s) completed, 0 failed; 8 record(s) (8 new, 0 updated); 5 deposit(s) scored"
    " (3 measured, 2 already measured), 1 withdrawn, 2 failed"
)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The sequential run: one process, archives read in place."""
    db, summary = run_scenario(tmp_path_factory.mktemp("sequential"))
    assert EXPECTED_LINE in summary.line()
    return dump(db)


@pytest.fixture(scope="module")
def dask_cluster():
    """One Dask LocalCluster (2 worker processes, one thread each, no dashboard) for
    every Dask test of this module."""
    executor = DaskExecutor(workers=2, attempts=3)
    try:
        yield executor
    finally:
        executor.close()


class Killing(Executor):
    """A real executor whose task kills its worker process (SIGKILL) the first time it
    runs for deposit ``target`` (every time with ``always``)."""

    def __init__(self, inner: Executor, target: str, marker: Path, *, always: bool = False) -> None:
        self.inner, self.target, self.marker, self.always = inner, target, marker, always
        self.workers = inner.workers
        self.name = inner.name

    @property
    def remote(self) -> bool:
        return self.inner.remote

    def map(self, func, items, *, prepare=None, on_wait=None):
        return self.inner.map(KillOnce(func, self.target, self.marker, always=self.always), items,
                              prepare=prepare, on_wait=on_wait)


def test_the_scenario_exercises_every_path(reference):
    deposits = {row[1]: row for row in reference["deposits"]}
    statuses = {source_id: row[-1] for source_id, row in deposits.items()}  # the status column
    assert sorted(statuses.values()) == ["failed", "failed", "scored", "scored", "scored",
                                         "scored", "scored", "withdrawn"]
    failures = sorted((row[0][1], row[2], row[3]) for row in reference["failures"])
    assert failures == [("9100003", "extract", "FetchError"), ("9100004", "extract", "FetchError")]
    assert len(reference["snapshots"]) == 3  # two Zenodo trees and the HAL deposit's
    assert len(reference["measurements"]) == 3 * 26
    assert len(reference["scores"]) == 3
    # The Zenodo deposit and the GitHub origin of the same release share one snapshot.
    assert len(reference["deposit_snapshots"]) == 5
    # The file facts of the trees measured, written by the driver alone, whoever measured.
    assert {row[1] for row in reference["file_facts"]} == FACTS_FRONTENDS


@pytest.mark.parametrize("workers", [2])
def test_a_process_pool_run_stores_exactly_what_the_sequential_run_stores(tmp_path, reference, workers):
    db, summary = run_scenario(tmp_path, workers=workers)
    assert EXPECTED_LINE in summary.line()
    assert dump(db) == reference


def test_a_dask_run_stores_exactly_what_the_sequential_run_stores(tmp_path, reference, dask_cluster):
    db, summary = run_scenario(tmp_path, executor=dask_cluster)
    assert EXPECTED_LINE in summary.line()
    assert dump(db) == reference


def test_extracting_instead_of_reading_in_place_stores_the_same_snapshots(tmp_path, reference):
    """Reading in place is equal to extraction tree by tree (tests/test_archive_sources.py
    compares listings, SWHIDs and Measurements.to_dict() for every sample in every
    format); here at the level of a whole run: the same database, failures included."""
    db, summary = run_scenario(tmp_path, extract=True)
    assert EXPECTED_LINE in summary.line()
    assert dump(db) == reference


# --------------------------------------------------------------------------- killed workers


def test_a_pool_worker_killed_mid_task_loses_and_duplicates_nothing(tmp_path, reference):
    marker = tmp_path / "killed"
    pool = LocalExecutor(2)
    db, summary = run_scenario(tmp_path / "run", executor=Killing(pool, "9100002", marker))
    assert deaths(marker) == 1  # the worker measuring 9100002 died once
    assert pool.stats.restarts == 1  # the pool was rebuilt, the task tried again
    assert EXPECTED_LINE in summary.line()
    assert dump(db) == reference


def test_a_dask_worker_killed_mid_task_loses_and_duplicates_nothing(tmp_path, reference, dask_cluster):
    marker = tmp_path / "killed"
    db, summary = run_scenario(tmp_path / "run", executor=Killing(dask_cluster, "9100002", marker))
    assert deaths(marker) == 1  # the scheduler ran the task again on a live worker
    assert EXPECTED_LINE in summary.line()
    assert dump(db) == reference


def test_a_deposit_that_kills_every_worker_fails_alone_and_is_retried_next_run(tmp_path, reference):
    marker = tmp_path / "killed"
    pool = LocalExecutor(2, attempts=3)
    db, summary = run_scenario(tmp_path / "run", executor=Killing(pool, "9100002", marker, always=True))
    # Three tries, the last two alone in a fresh pool; every other deposit is stored.
    assert deaths(marker) == 3
    assert ("zenodo:9100002", "measure", WorkerDied(3).args[0]) in summary.failures
    assert "4 deposit(s) scored (2 measured, 2 already measured), 1 withdrawn, 3 failed" in summary.line(), summary.failures
    with Store(db) as store:
        assert store.conn.execute(
            "SELECT d.status, f.stage, f.error_class, f.attempts FROM deposits d"
            " JOIN failures f ON f.deposit_id = d.id WHERE d.source_id = '9100002'"
        ).fetchall() == [("failed", "measure", "WorkerDied", 1)]
    # Everything else is the sequential run's, less 9100002's tree.
    (lost,) = [row[1][0] for row in reference["deposit_snapshots"] if row[0] == ("zenodo", "9100002")]
    got = dump(db)
    assert got["snapshots"] == [row for row in reference["snapshots"] if row[0] != lost]
    assert got["measurements"] == [row for row in reference["measurements"] if row[0] != (lost,)]
    assert got["evidence"] == [row for row in reference["evidence"] if row[0][0] != lost]
    assert got["scores"] == [row for row in reference["scores"] if row[0] != (lost,)]


def _run_command(db: Path, config: Path, server: ReplayServer) -> list[str]:
    return [sys.executable, "-m", "reproscore", "run", "--db", str(db), "--config", str(config),
            "--oai-url", f"{server.url}/oai2d", "--api-url", f"{server.url}/api", "--until", UNTIL]


def test_a_killed_parallel_run_resumes_to_the_same_database(tmp_path, reference):
    """The whole `run --workers 2` process is killed (SIGKILL) at random points, twice,
    then run to the end: batches not committed are done again, nothing twice."""
    rng = random.Random(9)
    folder = tmp_path / "killed"
    folder.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with ReplayServer() as server:
        # Slow answers spread the kills over harvest, downloads and measurement.
        origins = serve(server, folder, delay=0.05)
        config = demo.demo_config(folder / "reproscore.toml", folder / "work", swh={
            "enabled": True, "api_url": f"{server.url}/api/1/", "deposits": False,
            "origins_file": str(origins), "vault_poll_seconds": 0.01, "vault_poll_max_seconds": 0.02,
        })
        config.write_text(config.read_text().replace("[run]\n", "[run]\nworkers = 2\nbatch_size = 50\n"))
        db = folder / "k.db"
        command = _run_command(db, config, server)
        started = time.monotonic()
        timing = subprocess.run([*command[:5], str(folder / "timing.db"), *command[6:]],
                                cwd=ROOT, env=env, capture_output=True, text=True)
        assert timing.returncode == 0, timing.stderr
        duration = time.monotonic() - started
        kills = 0
        for low, high in ((0.4, 0.7), (0.5, 1.0)):
            child = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, start_new_session=True)
            time.sleep(rng.uniform(low * duration, high * duration))
            if child.poll() is None:
                os.killpg(child.pid, signal.SIGKILL)  # the run and its worker processes
                kills += 1
            child.wait()
        final = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    assert final.returncode == 0, final.stderr + final.stdout
    assert kills >= 1, "the runs finished before they could be killed"
    got = dump(db)
    # The killed runs left their own bookkeeping (interrupted runs and windows); the
    # deposits, trees, measurements, scores and failures are the sequential run's.
    for table in ("deposits", "snapshots", "deposit_snapshots", "measurements", "evidence",
                  "scores", "failures", "detector_sets", "rubrics", "swh_visits", "checkpoints"):
        if table == "failures":
            # A deposit that failed before a kill is tried again: attempts may be higher.
            assert [row[:-1] for row in got[table]] == [row[:-1] for row in reference[table]]
        else:
            assert got[table] == reference[table], table
    with Store(db) as store:
        assert store.integrity_check() == []


# --------------------------------------------------------------------------- in place, one deposit


def test_one_deposit_is_measured_in_place_as_its_extraction(tmp_path):
    key, blob = demo.deposit_zips()["9100002"]
    folder = tmp_path / "work" / "zenodo-9100002" / "download"
    folder.mkdir(parents=True)
    (folder / "000-release.zip").write_bytes(blob)
    job = DepositJob(7, "zenodo", "9100002")
    config = api.load_config(demo.demo_config(tmp_path / "r.toml", tmp_path / "work"))
    in_place = DepositTask(config).measure(
        DepositOutcome(job, files=[], downloads=[(key, str(folder / "000-release.zip"))])
    )
    assert in_place.in_place and in_place.failure is None
    assert not (tmp_path / "work" / "zenodo-9100002").exists()  # measured, then deleted
    folder.mkdir(parents=True)
    (folder / "000-release.zip").write_bytes(blob)
    extracted = DepositTask(config.with_overrides("run", extract=True)).measure(
        DepositOutcome(job, files=[], downloads=[(key, str(folder / "000-release.zip"))])
    )
    assert not extracted.in_place
    assert in_place.identity == extracted.identity
    assert in_place.measurements.to_dict() == extracted.measurements.to_dict()
    (tmp_path / "x.zip").write_bytes(blob)
    tree = materialize([(key, tmp_path / "x.zip")], tmp_path / "tree", ExtractionLimits())
    assert in_place.identity == api.identify_tree(tree)


def test_a_deposit_of_several_files_is_extracted_even_in_place_mode(tmp_path):
    key, blob = demo.deposit_zips()["9100001"]
    folder = tmp_path / "work" / "zenodo-1" / "download"
    folder.mkdir(parents=True)
    (folder / "000-a.zip").write_bytes(blob)
    (folder / "001-NOTES.txt").write_text("notes\n")
    files = [(key, str(folder / "000-a.zip")), ("NOTES.txt", str(folder / "001-NOTES.txt"))]
    config = api.load_config(demo.demo_config(tmp_path / "r.toml", tmp_path / "work"))
    out = DepositTask(config).measure(DepositOutcome(DepositJob(1, "zenodo", "1"), files=[], downloads=files))
    assert not out.in_place and out.failure is None
    (tmp_path / "a.zip").write_bytes(blob)
    (tmp_path / "NOTES.txt").write_text("notes\n")
    tree = materialize([(key, tmp_path / "a.zip"), ("NOTES.txt", tmp_path / "NOTES.txt")],
                       tmp_path / "tree", ExtractionLimits())
    assert out.identity == api.identify_tree(tree)


def test_a_refused_archive_gives_the_same_failure_in_place_and_extracted(tmp_path):
    config = api.load_config(demo.demo_config(tmp_path / "r.toml", tmp_path / "work"))
    for name, data in (("owner/pkg-1.0.zip", _hostile_zip()), ("owner/pkg-1.0.zip", ERROR_PAGE)):
        outcomes = []
        for extract in (False, True):
            folder = tmp_path / "work" / "zenodo-5" / "download"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "000-f.zip").write_bytes(data)
            task = DepositTask(config.with_overrides("run", extract=extract))
            outcomes.append(task.measure(DepositOutcome(DepositJob(5, "zenodo", "5"), files=[],
                                                        downloads=[(name, str(folder / "000-f.zip"))])))
        assert outcomes[0].failure == outcomes[1].failure
        assert outcomes[0].failure.stage == "extract"


# --------------------------------------------------------------------------- score PATH... --db


def test_score_paths_on_a_pool_and_on_dask_store_what_one_process_stores(tmp_path, dask_cluster):
    paths = [*SAMPLE_TREES, SAMPLE_TREES[0]]  # a tree twice: measured once
    results = {}
    for name, options in (("serial", {"jobs": 1}), ("pool", {"jobs": 2}), ("dask", {"executor": dask_cluster})):
        db = tmp_path / f"{name}.db"
        scored = list(api.score_paths(paths, "default", db=db, batch_size=3, **options))
        assert [p for p, _ in scored] == [os.fspath(p) for p in paths]
        results[name] = ([r.result for _, r in scored], dump(db))
    assert results["pool"] == results["serial"]
    assert results["dask"] == results["serial"]
    assert len(results["serial"][1]["snapshots"]) == len(SAMPLE_TREES)


def test_cli_score_with_a_dask_local_cluster_prints_and_stores_what_local_workers_do(tmp_path):
    paths = [str(p) for p in SAMPLE_TREES]
    outputs = {}
    for name, options in (("local", ["--workers", "1"]), ("dask", ["--executor", "dask", "--workers", "2"])):
        db = tmp_path / f"{name}.db"
        proc = subprocess.run(
            [sys.executable, "-m", "reproscore", "score", *paths, "--db", str(db), "--format", "json", *options],
            capture_output=True, text=True, cwd=ROOT, timeout=300,
        )
        assert proc.returncode == 0, proc.stderr
        outputs[name] = ([json.loads(line) for line in proc.stdout.splitlines()], dump(db))
    assert outputs["dask"] == outputs["local"]


def test_scheduler_without_dask_is_a_usage_error(tmp_path):
    result = CliRunner().invoke(cli, ["score", str(SAMPLE_TREES[0]), "--executor", "local",
                                      "--scheduler", "tcp://127.0.0.1:1"])
    assert result.exit_code == 2
    assert "--scheduler is for --executor dask" in result.output
    result = CliRunner().invoke(cli, ["run", "--db", str(tmp_path / "x.db"), "--executor", "local",
                                      "--scheduler", "tcp://127.0.0.1:1"])
    assert result.exit_code == 2
    assert "--scheduler is for --executor dask" in result.output
    assert not (tmp_path / "x.db").exists()


# --------------------------------------------------------------------------- the archive-wide path


def test_origins_of_a_graph_dataset_are_measured_on_dask_and_stored_in_batches(tmp_path, dask_cluster):
    """The documented Dask job over Software Heritage's graph dataset layout (the sample
    export of tests/test_swh_dataset.py): each task resolves and measures one origin,
    the driver stores the snapshots; the same as measuring each sample tree here."""
    from scale_tasks import measure_origin
    from test_swh_dataset import (
        DEPOSIT_ORIGIN,
        GIT_ORIGIN,
        LEGACY_DEPOSIT_ORIGIN,
        Export,
        write_tables,
    )

    from scoring import load_rubric, measure, score

    export = Export(tmp_path / "store")
    trees = {"legacy-scripts": LEGACY_DEPOSIT_ORIGIN, "notebook-ml-study": DEPOSIT_ORIGIN,
             "snakemake-rnaseq": GIT_ORIGIN}
    for sample, origin in trees.items():
        directory = export.add_tree(SAMPLES / sample)
        release = export.add_release(directory, "directory", sample)
        snapshot = export.add_snapshot(sample, {b"HEAD": (release, "release")})
        export.add_visit(origin, 1, 1, "full", snapshot, "deposit")
    root = write_tables(tmp_path / "orc", export.tables, "orc")
    jobs = [(str(root), str(export.store), origin) for origin in trees.values()]
    rubric = load_rubric("default")
    with Store(tmp_path / "audit.db") as store:
        rubric_id = store.ensure_rubric(rubric)
        with store.batch(2) as batch:
            for _job, result in dask_cluster.map(measure_origin, jobs, on_wait=batch.flush):
                origin, identity, measurements = result
                store.save_snapshot(identity, measurements, source="swh", label=f"swh:{origin}",
                                    score=(rubric_id, score(measurements, rubric)))
                batch.done()
        stored = {label: store.load_measurements(sid).to_dict() for sid, label in
                  store.conn.execute("SELECT id, label FROM snapshots")}
    for sample, origin in trees.items():
        expected = measure(SAMPLES / sample).to_dict()
        assert stored[f"swh:{origin}"] == expected


# --------------------------------------------------------------------------- the pool itself


def test_ordered_map_retries_a_killed_task_once_in_order_with_prepare_threads(tmp_path):
    marker = tmp_path / "killed"
    stats = PoolStats()
    waits = []
    got = list(ordered_map(KillOnce(square, 5, marker), range(12), jobs=2, prepare=lambda n: n,
                           on_wait=lambda: waits.append(1), stats=stats))
    assert got == [(n, n * n) for n in range(12)]
    assert deaths(marker) == 1 and stats.restarts == 1
    assert waits  # the caller was told before each wait


def test_ordered_map_gives_worker_died_for_a_poison_task_only(tmp_path):
    marker = tmp_path / "killed"
    stats = PoolStats()
    got = list(ordered_map(KillOnce(square, 3, marker, always=True), range(8), jobs=2, attempts=2, stats=stats))
    assert [n for n, _ in got] == list(range(8))
    assert isinstance(got[3][1], WorkerDied) and got[3][1].attempts == 2
    assert [value for n, value in got if n != 3] == [n * n for n in range(8) if n != 3]
    assert deaths(marker) == 2 and stats.restarts == 2


def test_ordered_map_prepares_a_retried_task_again_when_the_first_try_consumed_its_input(tmp_path):
    pair = ConsumingPair(tmp_path)
    stats = PoolStats()
    got = list(ordered_map(pair, ["bystander", "killer"], jobs=2, prepare=pair.prepare, stats=stats))
    assert got == [("bystander", "bystander"), ("killer", "killer")]
    assert deaths(tmp_path / "killed") == 1 and stats.restarts == 1 and stats.retried == 2


# --------------------------------------------------------------------------- batches


def test_a_batch_commits_when_full_or_flushed_and_rolls_back_on_error(tmp_path):
    db = tmp_path / "b.db"
    with Store(db) as store:
        with store.batch(2) as batch:
            store.upsert_deposit("local", "a")
            batch.done()
            assert batch.commits == 0 and store.conn.in_transaction
            with sqlite3.connect(db) as other:  # not visible to another connection yet
                assert other.execute("SELECT count(*) FROM deposits").fetchone()[0] == 0
            store.upsert_deposit("local", "b")
            batch.done()
            assert batch.commits == 1 and not store.conn.in_transaction
            store.upsert_deposit("local", "c")
            batch.flush()
            assert batch.commits == 2
        with pytest.raises(RuntimeError):
            with store.batch(10):
                store.upsert_deposit("local", "d")
                raise RuntimeError("a crash before the batch was committed")
        with pytest.raises(StoreError, match="do not nest"):
            with store.batch(1), store.batch(1):
                pass
        assert [r[0] for r in store.conn.execute("SELECT source_id FROM deposits ORDER BY 1")] == ["a", "b", "c"]
