"""``make demo``: the whole nightly job, offline.

A local HTTP server (``tests/replay_server.py``) replays a small Zenodo: OAI-PMH pages in
``oai_datacite`` and REST records from ``tests/fixtures/demo_zenodo/``, and GitHub-release
style zips of the sample trees in ``tests/fixtures/samples/``, built here (deterministic
bytes, so the MD5 sums in the REST records hold; no binary is committed). The demo runs
``reproscore run`` against that server into a fresh ``demo-out/demo.db`` and prints the
results table; it then scores the samples directly, as before, into ``demo-out/*.json``.

The same server also speaks the Software Heritage Web API for the origins of
``tests/fixtures/demo_swh/origins.json``: a HAL-style deposit (release → directory, with
its Atom/CodeMeta metadata) watched through an origins file, whose tree the vault cooks
(``new`` → ``pending`` → ``done``) and the run fetches, verifies and scores; and the
GitHub repository of a Zenodo release, found through the Zenodo record, whose root
directory is the tree Zenodo already gave, so it is scored without being fetched.
Bundles are built from the trees at demo time.

Before the exports and the report, two recorded execution outcomes (a CI run, written by
the demo, nothing executed) are imported as ``reproscore outcome import`` does, so that
the crates and the report show ROS, alpha and RCS.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "tests" / "fixtures" / "samples"
DEMO_ZENODO = ROOT / "tests" / "fixtures" / "demo_zenodo"
DEMO_SWH = ROOT / "tests" / "fixtures" / "demo_swh"
# A fixed timestamp for every zip entry: the same tree always gives the same bytes.
ZIP_TIME = (2026, 8, 20, 0, 0, 0)


def manifest() -> dict[str, Any]:
    """``deposits.json``: the pages, the window and the deposits of the demo."""
    return json.loads((DEMO_ZENODO / "deposits.json").read_text(encoding="utf-8"))


def release_folder(deposit: dict[str, Any]) -> str:
    """The single top-level folder of a GitHub zipball: ``owner-repo-<short sha>``."""
    sha = hashlib.sha1(f"{deposit['repo']}@{deposit['tag']}".encode()).hexdigest()[:7]
    return f"{deposit['repo'].replace('/', '-')}-{sha}"


def release_key(deposit: dict[str, Any]) -> str:
    """The file key Zenodo's GitHub integration gives the zip (it contains a slash)."""
    return f"{deposit['repo']}-{deposit['tag']}.zip"


def build_release_zip(tree: Path, folder: str) -> bytes:
    """A GitHub-release style zip of ``tree`` under one top-level ``folder``: entries in
    sorted order, fixed times and modes, stored uncompressed, so the bytes (and their
    MD5) depend only on the tree's content."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        directory = zipfile.ZipInfo(f"{folder}/", ZIP_TIME)
        directory.external_attr = (0o40755 << 16) | 0x10
        archive.writestr(directory, b"")
        for path in sorted(tree.rglob("*")):
            relative = path.relative_to(tree).as_posix()
            if path.is_dir():
                info = zipfile.ZipInfo(f"{folder}/{relative}/", ZIP_TIME)
                info.external_attr = (0o40755 << 16) | 0x10
                archive.writestr(info, b"")
            elif path.is_file():
                info = zipfile.ZipInfo(f"{folder}/{relative}", ZIP_TIME)
                info.external_attr = 0o100644 << 16
                archive.writestr(info, path.read_bytes())
    return buffer.getvalue()


def deposit_zips() -> dict[str, tuple[str, bytes]]:
    """record id -> (file key, zip bytes) for every demo deposit that has files."""
    out = {}
    for record_id, deposit in manifest()["deposits"].items():
        if deposit.get("withdrawn"):
            continue
        data = build_release_zip(SAMPLES / deposit["sample"], release_folder(deposit))
        out[record_id] = (release_key(deposit), data)
    return out


def rest_record(record_id: str, api_url: str, blob: bytes | None = None) -> tuple[int, bytes]:
    """The REST answer for a record, with ``{api_url}`` filled in; with ``blob``, its
    file's size and MD5 are those of ``blob`` (tests serve other archives this way)."""
    path = DEMO_ZENODO / "records" / f"{record_id}.json"
    body = json.loads(path.read_text(encoding="utf-8").replace("{api_url}", api_url))
    if body.get("status") == 410:
        return 410, json.dumps(body).encode("utf-8")
    if blob is not None:
        body["files"][0]["size"] = len(blob)
        body["files"][0]["checksum"] = "md5:" + hashlib.md5(blob).hexdigest()
    return 200, json.dumps(body).encode("utf-8")


def install_routes(
    server: Any,
    *,
    zips: dict[str, tuple[str, bytes]] | None = None,
    announce: dict[str, bytes] | None = None,
    delay: float = 0.0,
    oai_delay: float | None = None,
) -> None:
    """Teach a ReplayServer the demo's Zenodo: OAI pages by window (``from``) and by
    resumption token, ``noRecordsMatch`` (HTTP 422) for any other window, REST records
    and file contents. Tests replace a deposit's zip with ``zips``, make its REST record
    announce the size and MD5 of other bytes with ``announce``, and slow every answer
    down with ``delay`` (OAI answers with ``oai_delay`` when given)."""
    from replay_server import Reply  # tests/ is put on sys.path by the caller

    data = manifest()
    api_url = f"{server.url}/api"
    oai_delay = delay if oai_delay is None else oai_delay
    for page in data["pages"]:
        body = (DEMO_ZENODO / "oai" / page["file"]).read_bytes()
        if "from" in page:
            query = {"verb": "ListRecords", "metadataPrefix": "oai_datacite", "from": page["from"]}
        else:
            query = {"verb": "ListRecords", "resumptionToken": page["token_of"]}
        server.add("GET", "/oai2d", Reply(200, body, {"Content-Type": "text/xml"}, delay=oai_delay), query=query)
    no_records = (DEMO_ZENODO / "oai" / "error_noRecordsMatch.xml").read_bytes()
    server.add("GET", "/oai2d", Reply(422, no_records, {"Content-Type": "text/xml"}, delay=oai_delay))
    announce = announce or {}
    for record_id in data["deposits"]:
        status, body = rest_record(record_id, api_url, announce.get(record_id))
        server.add(
            "GET", f"/api/records/{record_id}",
            Reply(status, body, {"Content-Type": "application/json"}, delay=delay),
        )
    served = deposit_zips()
    served.update(zips or {})
    for record_id, (key, blob) in served.items():
        server.add(
            "GET", f"/api/records/{record_id}/files/{key}/content",
            Reply(200, blob, {"Content-Type": "application/octet-stream"}, delay=delay),
        )


def swh_manifest() -> dict[str, Any]:
    """``origins.json``: the demo's Software Heritage origins."""
    return json.loads((DEMO_SWH / "origins.json").read_text(encoding="utf-8"))


def swh_tree(spec: dict[str, Any], work: Path) -> Path:
    """The tree an origin's root directory holds: a folder of ``demo_swh``, or the tree
    of a demo Zenodo release (``zenodo:<record>``) as the run extracts it."""
    from harvester.fetch import ExtractionLimits, materialize

    tree = spec["tree"]
    if not tree.startswith("zenodo:"):
        return DEMO_SWH / tree
    record_id = tree.split(":", 1)[1]
    key, blob = deposit_zips()[record_id]
    zipped = work / f"zenodo-{record_id}.zip"
    zipped.parent.mkdir(parents=True, exist_ok=True)
    zipped.write_bytes(blob)
    return materialize([(key, zipped)], work / f"zenodo-{record_id}", ExtractionLimits())


def install_swh_routes(server: Any, work: Path) -> list[str]:
    """Teach a ReplayServer the demo's Software Heritage (under ``/api/1/``): each
    origin's latest visit, snapshot, release or revision, deposit metadata, and the
    vault cooking its root directory. Returns the watched origins."""
    from swh_fakes import bundle, serve_origin, serve_vault, swhid_of  # tests/ is on sys.path

    watched = []
    for origin, spec in swh_manifest()["origins"].items():
        tree = swh_tree(spec, work)
        swhid = swhid_of(tree)
        metadata = (DEMO_SWH / spec["metadata"]).read_bytes() if spec.get("metadata") else None
        serve_origin(
            server, origin, [(v["visit"], v["date"], swhid) for v in spec["visits"]],
            kind=spec["kind"], metadata=metadata,
        )
        serve_vault(server, swhid, bundle(tree, swhid))
        if spec.get("watch"):
            watched.append(origin)
    return watched


def _tests_on_path() -> None:
    tests = str(ROOT / "tests")
    if tests not in sys.path:
        sys.path.insert(0, tests)


def demo_config(path: Path, work_dir: Path, swh: dict[str, Any] | None = None) -> Path:
    """A reproscore.toml for the demo: the replayed window, pacing off (local server);
    with ``swh``, an ``[swh]`` section holding those keys."""
    window = manifest()["window"]
    # Without ``swh`` the run is Zenodo's alone (Software Heritage is on by default).
    swh_section = "[swh]\nenabled = false\n\n"
    if swh:
        swh_section = "[swh]\n" + "".join(
            f"{key} = {json.dumps(value)}\n" for key, value in swh.items()
        ) + "\n"
    path.write_text(
        "# Written by `make demo`: harvest the demo window from the local replay server.\n"
        "[zenodo]\n"
        f'start = "{window["start"]}"\n'
        f"window_hours = {window['window_hours']}\n\n"
        + swh_section +
        "[http]\n"
        'contact = "demo@example.org"\n'
        "pacing = false\n"
        "max_attempts = 2\n"
        "backoff_base = 0.1\n\n"
        "[run]\n"
        f'work_dir = "{work_dir}"\n\n'
        "# The demo's operator publishes the crates: ORCID's fictitious test researcher,\n"
        "# who is also the demo's author of two deposits; the contact is [http] contact.\n"
        "[export]\n"
        'publisher_name = "Josiah Carberry"\n'
        'publisher_type = "Person"\n'
        'publisher_id = "https://orcid.org/0000-0002-1825-0097"\n'
        'publisher_url = "https://example.org/reproscore-demo"\n',
        encoding="utf-8",
    )
    return path


def results_table(rows: list[dict[str, Any]]) -> str:
    """The deposits of the run as a fixed-width table."""
    lines = [f"{'record':<9} {'status':<10} {'RRS':>6}  {'tree (SWHID)':<22} title / reason"]
    for row in rows:
        rrs = f"{row['rrs']:6.2f}" if row["rrs"] is not None else "     -"
        swhid = (row["swhid"] or "-")[:22]
        text = row["title"] or ""
        if row["status"] == "failed":
            text = f"{row['failed_stage']}: {row['failure']}"
        lines.append(f"{row['record']:<9} {row['status'] or '-':<10} {rrs}  {swhid:<22} {text}")
    return "\n".join(lines)


def swh_results_table(rows: list[dict[str, Any]]) -> str:
    """The Software Heritage origins of the run as a fixed-width table."""
    lines = [f"{'origin':<45} {'status':<8} {'RRS':>6}  {'root directory (SWHID)':<22} title / reason"]
    for row in rows:
        rrs = f"{row['rrs']:6.2f}" if row["rrs"] is not None else "     -"
        text = row["title"] or ""
        if row["status"] == "failed":
            text = f"{row['failed_stage']}: {row['failure']}"
        lines.append(
            f"{row['record']:<45} {row['status'] or '-':<8} {rrs}  {(row['swhid'] or '-')[:22]:<22} {text}"
        )
    return "\n".join(lines)


def run_nightly_demo(out_dir: Path) -> int:
    """Serve the demo Zenodo and Software Heritage and run ``reproscore run`` against
    them (a real subprocess, as cron would), into a fresh database. Returns the run's
    exit status."""
    _tests_on_path()
    from replay_server import ReplayServer

    from .api import deposit_results

    db = out_dir / "demo.db"
    for stale in out_dir.glob("demo.db*"):
        stale.unlink()
    work = out_dir / "work"
    shutil.rmtree(work, ignore_errors=True)
    until = manifest()["window"]["until"]
    with ReplayServer() as server:
        install_routes(server)
        watched = install_swh_routes(server, out_dir / "swh-trees")
        origins = out_dir / "swh-origins.txt"
        origins.write_text("# Software Heritage origins the demo watches\n" + "\n".join(watched) + "\n")
        config = demo_config(out_dir / "reproscore.toml", work, swh={
            "enabled": True, "api_url": f"{server.url}/api/1/", "deposits": False,
            "origins_file": str(origins), "vault_poll_seconds": 0.05, "vault_poll_max_seconds": 0.1,
        })
        command = [
            sys.executable, "-m", "reproscore", "run", "--db", str(db), "--config", str(config),
            "--oai-url", f"{server.url}/oai2d", "--api-url", f"{server.url}/api", "--until", until,
        ]
        print("$ reproscore run --db demo-out/demo.db --config demo-out/reproscore.toml "
              f"--oai-url {server.url}/oai2d --api-url {server.url}/api --until {until}")
        status = subprocess.run(command, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}).returncode
        requests = len(server.requests)
    shutil.rmtree(out_dir / "swh-trees", ignore_errors=True)
    # A nightly run leaves its lock file on purpose (see pipeline.run_lock); the demo is
    # over once its run is, and leaves no lock, nor the work folder the run emptied.
    (out_dir / "demo.db.lock").unlink(missing_ok=True)
    if work.is_dir() and not any(work.iterdir()):
        work.rmdir()
    print(f"\n(the replay server answered {requests} requests; nothing left this machine)\n")
    print(results_table(deposit_results(db)))
    print("\nSoftware Heritage origins (a watched deposit, and the repository of a Zenodo release):")
    print(swh_results_table(deposit_results(db, "swh")))
    return status


def score_samples(out_dir: Path) -> None:
    """Score the bundled samples directly and write one JSON result each."""
    from .api import score_tree

    samples = sorted(p for p in SAMPLES.iterdir() if p.is_dir())
    print(f"\nscoring the {len(samples)} sample trees directly (full JSON with evidence in demo-out/):")
    for sample in samples:
        scored = score_tree(sample, "default")
        (out_dir / f"{sample.name}.json").write_text(
            json.dumps(scored.result, indent=2, ensure_ascii=False) + "\n"
        )
        print(f"  {scored.result['rrs']:6.2f}  {sample.name}")


# Outcomes "recorded" by a curator's CI for two demo deposits (the execution tier's
# import path: docs/execution.md). The paper's readiness-outcome gap: the RNA-seq workflow,
# the readiest deposit, fails at install time (a conda conflict no static analysis sees);
# the notebook study, far less ready, runs.
DEMO_ORIGIN = "demo: recorded CI run"
DEMO_OUTCOMES: dict[str, Any] = {
    "schema": "reproscore-outcome/1",
    "outcomes": [
        {
            "subject": "zenodo:9100001",
            "origin": {"name": DEMO_ORIGIN, "version": "demo", "run_id": "demo-1",
                       "description": "recorded for the demo, not run on this machine"},
            "executed_at": "2026-08-21T06:00:00Z",
            "components": {"I": False, "X": False, "N": None, "E_prime": 1.0, "T": 0.0},
            "failure_class": "install_dep",
            "probes": [
                {"probe": "I", "command": "conda env create -f environment.yml", "exit_status": 1,
                 "duration_seconds": 212.0, "failure_class": "install_dep",
                 "reason": "the environment does not resolve",
                 "log_excerpt": "LibMambaUnsatisfiableError: salmon=1.4.0 requires python <3.10"},
                {"probe": "X", "command": "snakemake --cores 1", "exit_status": 1, "failure_class": "install_dep",
                 "reason": "snakemake is not installed in the failed environment"},
            ],
        },
        {
            "subject": "zenodo:9100002",
            "origin": {"name": DEMO_ORIGIN, "version": "demo", "run_id": "demo-2",
                       "description": "recorded for the demo, not run on this machine"},
            "executed_at": "2026-08-21T06:20:00Z",
            "components": {"I": True, "X": True, "N": 1.0, "E_prime": 1.0},
            "probes": [
                {"probe": "I", "command": "pip install -r requirements.txt", "exit_status": 0, "duration_seconds": 48.0},
                {"probe": "N", "command": "nbclient notebooks/01_prepare.ipynb notebooks/02_train.ipynb",
                 "exit_status": 0, "value": 1.0},
            ],
        },
    ],
}


def import_demo_outcomes(out_dir: Path) -> list[dict[str, Any]]:
    """Write ``demo-out/outcomes.json`` (two recorded outcomes, offline) and import it as
    ``reproscore outcome import`` does, so that the demo's crates and report carry ROS and
    RCS. Prints one line."""
    from .api import import_outcomes

    path = out_dir / "outcomes.json"
    path.write_text(json.dumps(DEMO_OUTCOMES, indent=2) + "\n", encoding="utf-8")
    imported = import_outcomes(out_dir / "demo.db", path)
    parts = []
    for item in imported:
        default = next((s for s in item["scores"] if s["rubric"]["name"] == "default"), item["scores"][0])
        parts.append(f"{item['subject']} RRS {default['rrs']:.2f} -> ROS {default['ros']:.2f}, RCS {default['rcs']:.2f}")
    print(f"\n$ reproscore outcome import --db demo-out/demo.db demo-out/outcomes.json  # {len(imported)} recorded "
          f"outcomes (origin {DEMO_ORIGIN!r}, nothing executed); the crates and the report below show them: "
          + "; ".join(parts))
    return imported


def export_demo_collection(out_dir: Path) -> None:
    """Export the demo collection as RO-Crate 1.3 into ``demo-out/exports/``: the
    collection crate (``--all``) and one crate per scored deposit; verify one crate
    (``reproscore verify``) and validate it with roc-validator offline when it is
    installed (the ``test`` extra, which ``make install`` installs). Raises
    RuntimeError when the crate does not verify or validate."""
    from exporters import validator

    from .api import deposit_results, export_rocrate, verify_export

    db = out_dir / "demo.db"
    exports = out_dir / "exports"
    shutil.rmtree(exports, ignore_errors=True)
    print("\nexporting the demo collection as RO-Crate 1.3 (score, evidence and rubric) into demo-out/exports/:")
    print("$ reproscore export rocrate --db demo-out/demo.db --all --out demo-out/exports/collection")
    config = out_dir / "reproscore.toml"
    collection = export_rocrate(db, exports / "collection", all_deposits=True, config=config)
    print(f"  collection crate: {len(collection.assessments)} deposits")
    crates = []
    for source, prefix in (("zenodo", "zenodo-"), ("swh", "swh-")):
        for row in deposit_results(db, source):
            if row["rrs"] is None:
                continue
            name = prefix + "".join(ch if ch.isalnum() else "-" for ch in row["record"].split("://")[-1])
            result = export_rocrate(db, exports / name, deposit=row["record"], config=config)
            crates.append(Path(result.path))
            print(f"  {result.assessments[0]['rrs']:6.2f}  demo-out/exports/{name}  ({row['record']})")
    first = crates[0]
    report = verify_export(first)
    outcome = any(p.startswith("ROS ") for a in report.assessments for p in a.passed)
    print(f"$ reproscore verify demo-out/exports/{first.name}\n  {report.kind}: "
          + (("verified, RRS recomputed from the exported values and rubric"
              + (", ROS, alpha and RCS from the exported outcome components" if outcome else ""))
             if report.ok else "FAILED"))
    if not report.ok:
        raise RuntimeError(f"{first}: {[a.problems for a in report.assessments]}")
    if not validator.available():
        print("  roc-validator is not installed (pip install -e '.[test]'): crate validation skipped")
        return
    # RECOMMENDED checks the REQUIRED rules too: one run says both.
    outcome = validator.validate_crate(
        first, out_dir / "rocrate-validator-cache" / "http_cache", severity="RECOMMENDED"
    )
    print(f"roc-validator, profile {validator.PROFILE}, REQUIRED and RECOMMENDED levels, offline (contexts "
          f"from the bundled copies): demo-out/exports/{first.name} "
          + ("has no issue" if outcome.passed and not outcome.issues else f"has {len(outcome.issues)} issue(s)"))
    if not outcome.passed or outcome.issues:
        raise RuntimeError(f"{first}: " + "; ".join(outcome.lines()))


def report_demo_collection(out_dir: Path) -> Path:
    """Write the demo collection's audit report (``reproscore report``, comparing the
    default rubric with bioinformatics-v1) into ``demo-out/report/`` and print the path
    of its index.html."""
    from .api import collection_report

    print("\n$ reproscore report --db demo-out/demo.db --out demo-out/report --compare-rubric bioinformatics-v1")
    result = collection_report(out_dir / "demo.db", out_dir / "report", compare_rubric="bioinformatics-v1")
    print(f"  {result.line()}")
    print(f"the collection audit report: {result.index}")
    return result.index


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def run(out_dir: Path = ROOT / "demo-out") -> int:
    out_dir.mkdir(parents=True, exist_ok=True)
    print("reproscore demo: the nightly job against a replayed Zenodo and Software Heritage, offline\n")
    samples = sorted(p.name for p in SAMPLES.iterdir() if p.is_dir())
    print(f"sample trees: {SAMPLES.relative_to(ROOT)}/{{{','.join(samples)}}}\n"
          "  served as GitHub-release zips (Zenodo) and vault bundles (Software Heritage, with\n"
          f"  {DEMO_SWH.relative_to(ROOT)}/); everything the demo writes goes to {_shown(out_dir)}/\n")
    status = run_nightly_demo(out_dir)
    score_samples(out_dir)
    import_demo_outcomes(out_dir)
    export_demo_collection(out_dir)
    report_demo_collection(out_dir)
    return status


if __name__ == "__main__":
    sys.exit(run())
