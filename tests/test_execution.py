"""The execution tier end to end, in bubblewrap: sample deposits (tests/execution_samples.py)
installed from wheels built here (``--no-index --find-links``, no network at all) and
probed; the outcomes stored, classified and blended into RCS; the sandbox's guarantees.

bubblewrap must be installed (``.ci/run`` installs Debian's ``bubblewrap``); these tests
are not skipped without it: they fail, saying so.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner
from execution_samples import build_wheels, write_samples, write_tree

from reproscore import api
from reproscore.cli import cli
from reproscore.execution import sandbox as sandbox_module
from reproscore.execution.sandbox import Limits, SandboxUnavailable, open_sandbox
from reproscore.store import Store

TIMEOUT = 60.0
FOREVER_TIMEOUT = 3.0
INSTALL_TIMEOUT = 180.0


def _require_bwrap() -> None:
    assert sandbox_module.find_bwrap(), (
        "bubblewrap (bwrap) is not installed: the execution tests need it "
        "(apt-get install bubblewrap; .ci/run installs it)"
    )


class CountingServer:
    """A TCP server on the host's 127.0.0.1 that counts the connections it accepts."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self.sock.close()


@pytest.fixture(scope="module")
def server():
    srv = CountingServer()
    yield srv
    srv.close()


@dataclass
class Collection:
    root: Path
    wheels: Path
    samples: dict[str, Path]
    db: Path
    results: dict[str, api.ExecutionResult]
    scratch_before: set[str]


def _scratch_dirs() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob("reproscore-exec-*")}


def _execute(db, path, wheels, **options):
    options.setdefault("timeout", TIMEOUT)
    return api.execute_deposit(
        db, str(path), install_timeout=INSTALL_TIMEOUT, offline_install=True, no_index=True,
        find_links=[str(wheels)], **options,
    )


@pytest.fixture(scope="module")
def collection(tmp_path_factory, server) -> Collection:
    _require_bwrap()
    scratch_before = _scratch_dirs()
    root = tmp_path_factory.mktemp("execution")
    wheels = build_wheels(root / "wheels")
    samples = write_samples(root / "deposits", network_port=server.port)
    db = root / "store.db"
    for path, scored in api.score_paths(list(samples.values()), db=db, jobs=1):
        assert not isinstance(scored, BaseException), (path, scored)
    results = {
        name: _execute(db, path, wheels, timeout=FOREVER_TIMEOUT if name == "forever" else TIMEOUT)
        for name, path in samples.items()
    }
    return Collection(root, wheels, samples, db, results, scratch_before)


def components(result: api.ExecutionResult) -> dict:
    return result.report.components()


def probe(result: api.ExecutionResult, cid: str):
    return result.report.probes[cid]


def default_score(result: api.ExecutionResult) -> dict:
    (item,) = [s for s in result.scores if s["rubric"]["name"] == "default"]
    return item


# --------------------------------------------------------------------------- the samples


def test_a_deposit_that_installs_and_runs_scores_every_probe(collection):
    result = collection.results["success"]
    assert result.report.sandbox == "bubblewrap"
    assert components(result) == {"I": 100.0, "X": 100.0, "delta": 100.0, "N": 100.0, "E_prime": 100.0, "T": 100.0}
    assert result.report.failure_class is None
    assert probe(result, "T").details["runner"] == "unittest"  # no pytest in the deposit's environment
    assert probe(result, "T").details["tests"] == 2
    assert probe(result, "X").command == "python main.py"
    item = default_score(result)
    assert (item["ros"], item["coverage"], item["alpha"]) == (100.0, 1.0, 0.7)
    assert item["rcs"] == round(0.3 * item["rrs"] + 0.7 * 100.0, 2)


def test_a_dependency_conflict_fails_the_install_as_install_dep(collection):
    result = collection.results["install_conflict"]
    install = probe(result, "I")
    assert install.value == 0.0 and install.status == "measured"
    assert install.failure_class == "install_dep"
    assert install.exit_status not in (0, None)
    assert "rs-alpha" in install.log_excerpt and "pip" in install.command
    assert result.report.failure_class == "install_dep"
    # The other probes still ran, in what the install left: nothing imports.
    assert components(result)["E_prime"] == 0.0 and components(result)["X"] == 0.0


def test_an_undeclared_import_is_missing_module(collection):
    result = collection.results["missing_module"]
    assert components(result)["I"] == 100.0
    assert components(result)["E_prime"] == 50.0  # rs_gamma imports, rs_undeclared does not
    assert probe(result, "E_prime").details["failed"][0]["module"] == "rs_undeclared"
    assert components(result)["X"] == 0.0
    assert "No module named 'rs_undeclared'" in probe(result, "X").log_excerpt
    assert result.report.failure_class == "missing_module"


def test_a_missing_data_file_is_missing_data(collection):
    result = collection.results["missing_data"]
    assert components(result)["X"] == 0.0 and components(result)["E_prime"] == 100.0
    assert "FileNotFoundError" in probe(result, "X").log_excerpt
    assert result.report.failure_class == "missing_data"


def test_a_code_error_is_code_error(collection):
    result = collection.results["code_error"]
    assert components(result)["X"] == 0.0
    assert "TypeError" in probe(result, "X").log_excerpt
    assert probe(result, "X").exit_status == 1
    assert result.report.failure_class == "code_error"


def test_a_nondeterministic_deposit_has_delta_below_100(collection):
    result = collection.results["nondeterministic"]
    assert components(result)["X"] == 100.0
    delta = probe(result, "delta")
    assert delta.value == 50.0  # results/fixed.txt matches, the random draw does not
    assert delta.details["differing"] == ["X stdout"]
    assert result.report.failure_class is None


def test_a_network_connection_fails_inside_the_sandbox(collection, server):
    result = collection.results["network"]
    assert components(result)["X"] == 0.0
    assert "ConnectionRefusedError" in probe(result, "X").log_excerpt
    assert result.report.failure_class == "missing_data"  # the paper files network errors there
    assert server.connections == 0  # the host's 127.0.0.1 is not the sandbox's


def test_a_deposit_that_runs_forever_is_killed_at_the_timeout(collection):
    result = collection.results["forever"]
    run = probe(result, "X")
    assert run.value == 0.0 and run.failure_class == "timeout" and run.exit_status is None
    assert FOREVER_TIMEOUT <= run.duration < FOREVER_TIMEOUT + 10
    assert result.report.failure_class == "timeout"
    leftovers = []
    for entry in Path("/proc").iterdir():
        try:
            if b"4242.123" in (entry / "cmdline").read_bytes():
                leftovers.append(entry.name)
        except OSError:
            continue
    assert not leftovers, "the deposit's child process outlived the timeout"


def test_table_5_reordering_the_install_conflict_has_the_lowest_rcs(collection):
    scores = {name: default_score(r) for name, r in collection.results.items()}
    rrs = {name: s["rrs"] for name, s in scores.items()}
    rcs = {name: s["rcs"] for name, s in scores.items()}
    # Well specified yet uninstallable: second on RRS, last on RCS.
    assert sorted(rrs, key=rrs.get, reverse=True)[:2] == ["success", "install_conflict"]
    assert min(rcs, key=rcs.get) == "install_conflict"
    assert rrs["install_conflict"] > min(rrs.values())
    for s in scores.values():
        assert s["rcs"] == round((1 - s["alpha"]) * s["rrs"] + s["alpha"] * s["ros"], 2)


def test_outcomes_are_stored_with_every_probe_and_the_scores_carry_them(collection):
    result = collection.results["code_error"]
    with Store(collection.db) as store:
        outcome = store.outcome_for_snapshot(result.snapshot_id)
        row = store.conn.execute(
            "SELECT outcome_id, ros, alpha, rcs FROM scores WHERE snapshot_id = ?", (result.snapshot_id,)
        ).fetchone()
    assert outcome["outcome_id"] == result.outcome_id == row[0]
    assert outcome["origin"] == "reproscore-execute" and outcome["sandbox"] == "bubblewrap"
    assert outcome["failure_class"] == "code_error"
    assert set(outcome["components"]) == {"I", "X", "delta", "N", "E_prime", "T"}
    assert outcome["inputs"] == {"I": True, "X": False, "E_prime": 1.0}
    by_probe = {p["probe"]: p for p in outcome["probes"]}
    assert set(by_probe) == {"I", "E_prime", "X", "N", "delta", "T"}
    x = by_probe["X"]
    assert x["command"] == "python main.py" and x["exit_status"] == 1 and x["duration_seconds"] > 0
    assert "TypeError" in x["log_excerpt"]
    assert by_probe["N"]["status"] == "not_applicable"
    assert row[1:] == (default_score(result)["ros"], default_score(result)["alpha"], default_score(result)["rcs"])


def test_show_reports_ros_alpha_and_rcs(collection):
    path = collection.samples["missing_data"]
    runner = CliRunner()
    text = runner.invoke(cli, ["show", "--db", str(collection.db), str(path)])
    assert text.exit_code == 0, text.output
    assert "ROS " in text.output and "RCS " in text.output and "failure class missing_data" in text.output
    data = json.loads(runner.invoke(cli, ["show", "--db", str(collection.db), str(path), "--format", "json"]).output)
    assert data["ros"]["components_list"] == ["I", "X", "E_prime"]
    assert data["rcs"]["alpha"] == round(0.65 * 0.7, 4)
    assert data["outcome"]["failure_class"] == "missing_data"


def test_scratch_directories_are_deleted(collection):
    assert _scratch_dirs() <= collection.scratch_before


# --------------------------------------------------------------------------- the command line


def test_cli_execute_gives_alpha_0_525_for_i_x_n_e_prime(collection, tmp_path):
    """Paper §4.5: with I, X, N and E′ available, alpha = 0.75 · 0.70 = 0.525."""
    db = tmp_path / "partial.db"
    tree = collection.samples["success"]
    runner = CliRunner()
    assert runner.invoke(cli, ["score", str(tree), "--db", str(db)]).exit_code == 0
    result = runner.invoke(cli, [
        "execute", "--db", str(db), "--deposit", str(tree), "--probes", "I,X,N,E_prime",
        "--offline-install", "--no-index", "--find-links", str(collection.wheels), "--format", "json",
    ])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["components"] == {"I": 100.0, "X": 100.0, "delta": None, "N": 100.0, "E_prime": 100.0, "T": None}
    (item,) = data["scores"]
    assert item["alpha"] == 0.525 and item["coverage"] == 0.75
    assert item["rcs"] == round(0.475 * item["rrs"] + 0.525 * item["ros"], 2)
    show = runner.invoke(cli, ["show", "--db", str(db), str(tree)])
    assert "alpha 0.525" in show.output


def test_without_bubblewrap_execute_refuses_and_says_so(collection, tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox_module, "find_bwrap", lambda: None)
    db = tmp_path / "refuse.db"
    tree = collection.samples["code_error"]
    runner = CliRunner()
    assert runner.invoke(cli, ["score", str(tree), "--db", str(db)]).exit_code == 0
    result = runner.invoke(cli, ["execute", "--db", str(db), "--deposit", str(tree)])
    assert result.exit_code == 2
    assert "bubblewrap" in result.stderr and "--no-sandbox" in result.stderr
    with Store(db) as store:
        assert store.conn.execute("SELECT count(*) FROM outcomes").fetchone()[0] == 0


def test_no_sandbox_is_explicit_and_then_the_network_is_the_hosts(collection, server, tmp_path):
    """The same deposit, explicitly unsandboxed, reaches the server: the sandbox is
    what kept it from doing so."""
    db = tmp_path / "unsandboxed.db"
    tree = collection.samples["network"]
    runner = CliRunner()
    assert runner.invoke(cli, ["score", str(tree), "--db", str(db)]).exit_code == 0
    before = server.connections
    result = runner.invoke(cli, [
        "execute", "--db", str(db), "--deposit", str(tree), "--no-sandbox", "--probes", "X",
        "--offline-install", "--no-index", "--find-links", str(collection.wheels), "--format", "json",
    ])
    assert result.exit_code == 0, result.output
    assert "--no-sandbox" in result.stderr and "warning" in result.stderr
    data = json.loads(result.stdout)
    assert data["sandbox"] == "none" and data["components"]["X"] == 100.0
    assert server.connections == before + 1


def test_a_tree_given_with_tree_must_be_the_snapshots(collection, tmp_path):
    other = write_tree(tmp_path / "other", {"main.py": "print(1)\n"})
    swhid = collection.results["code_error"].swhid
    with pytest.raises(api.TreeUnavailable, match="not the snapshot's"):
        api.execute_deposit(collection.db, swhid, tree=other)


# --------------------------------------------------------------------------- the sandbox itself


def _box(**limits):
    _require_bwrap()
    return open_sandbox(limits=Limits(timeout=30, **limits))


def _python(box, code: str, **options):
    return box.run([sys.executable, "-c", code], cwd=box.path(), **options)


def test_the_environment_is_clean_and_home_is_the_sandboxes(monkeypatch):
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    monkeypatch.setenv("REPROSCORE_TEST_TOKEN", "ghp_exampleexampleexampleexample0000")
    with _box() as box:
        result = _python(box, "import os, json; print(json.dumps(dict(os.environ)))")
    env = json.loads(result.stdout)
    assert "AWS_SECRET_ACCESS_KEY" not in env and "REPROSCORE_TEST_TOKEN" not in env
    assert "EXAMPLE" not in result.stdout
    assert env["HOME"] == "/sandbox/home"


def test_the_home_directory_and_the_database_are_not_visible(collection):
    canary = Path.home() / ".reproscore-sandbox-canary"
    canary.write_text("secret\n")
    try:
        with _box() as box:
            result = _python(box, f"import os; print(os.path.exists({str(canary)!r}), os.path.exists({str(collection.db)!r}))")
    finally:
        canary.unlink()
    assert result.stdout.split() == ["False", "False"]


def test_memory_file_size_and_process_limits_hold():
    with _box(memory_mb=256, max_file_mb=1, max_processes=16) as box:
        memory = _python(box, "x = bytearray(1024 * 1024 * 1024)")
        big_file = _python(box, "open('/sandbox/tmp/big', 'wb').write(b'x' * 3 * 1024 * 1024)")
        processes = _python(box, (
            "import subprocess\nprocs = []\n"
            "for _ in range(40):\n    procs.append(subprocess.Popen(['sleep', '5']))\n"
        ))
    assert memory.exit_status != 0 and "MemoryError" in memory.stderr
    assert big_file.exit_status != 0
    assert processes.exit_status != 0 and ("Resource temporarily unavailable" in processes.stderr
                                           or "BlockingIOError" in processes.stderr)


def test_the_network_is_off_except_where_asked(server):
    code = f"import socket; socket.create_connection(('127.0.0.1', {server.port}), timeout=5).close(); print('ok')"
    with _box() as box:
        before = server.connections
        isolated = _python(box, code)
        assert isolated.exit_status != 0 and server.connections == before
        if os.geteuid() == 0:  # as root the install step shares the host's network namespace
            shared = _python(box, code, network=True)
            assert shared.ok and server.connections == before + 1


def test_the_scratch_directory_is_deleted_and_a_missing_bwrap_is_refused(monkeypatch):
    with _box() as box:
        scratch = box.scratch
        _python(box, "open('/sandbox/tmp/x', 'w').write('x')")
        assert scratch.is_dir()
    assert not scratch.exists()
    monkeypatch.setattr(sandbox_module, "find_bwrap", lambda: None)
    with pytest.raises(SandboxUnavailable, match="--no-sandbox"):
        open_sandbox()



def test_r_and_julia_without_their_toolchains_are_not_applicable(collection, tmp_path):
    import shutil

    tree = write_tree(tmp_path / "r-julia", {
        "DESCRIPTION": "Package: demo\nVersion: 0.1\nImports: ggplot2\n",
        "Project.toml": 'name = "Demo"\n[deps]\nCSV = "336ed68f-0bac-5ca0-87d4-7b16caf5d00b"\n',
        "main.R": "library(ggplot2)\nprint(1)\n",
    })
    db = tmp_path / "r.db"
    api.score_path(tree, db=db)
    result = _execute(db, tree, collection.wheels, probes="I,X")
    install, run = probe(result, "I"), probe(result, "X")
    if shutil.which("Rscript") is None and shutil.which("julia") is None:
        assert install.status == "not_applicable" and install.value is None
        assert "Rscript is not installed" in install.reason and "julia is not installed" in install.reason
        assert run.status == "not_applicable" and "Rscript is not installed" in run.reason
        assert components(result) == dict.fromkeys(components(result))  # nothing available: RCS = RRS
        (item,) = result.scores
        assert item["ros"] is None and item["alpha"] == 0.0 and item["rcs"] == item["rrs"]
    else:  # a machine with R or Julia: their install steps run
        assert install.status in ("measured", "not_applicable")
