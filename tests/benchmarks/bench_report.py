"""Report benchmark (``make bench``): the collection audit report of 100,000 scored
deposits.

Builds a synthetic collection in a real store (``tests/synthetic_collection.py``: bulk
inserts through the store's own schema; 100,000 Zenodo records in concept DOIs and
10,000 Software Heritage origins with their visits over 30 nights, about 100,000 of them
scored, scores under ``default`` stored, an execution outcome for every tenth tree), then
times ``reproscore report
--compare-rubric bioinformatics-v1`` in a fresh process, from start to exit: every table,
figure and CSV file, the second rubric computed from the stored measurements. Target:
under 30 s.

    python tests/benchmarks/bench_report.py [--zenodo N] [--swh N] [--keep DIR]
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

import synthetic_collection  # noqa: E402

TARGET_SECONDS = 30.0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--zenodo", type=int, default=100_000, help="Zenodo records (default 100,000)")
    parser.add_argument("--swh", type=int, default=10_000, help="Software Heritage origins (default 10,000)")
    parser.add_argument("--keep", type=Path, help="build the database and the report in DIR and keep them")
    args = parser.parse_args(argv)
    workdir = args.keep or Path(tempfile.mkdtemp(prefix="reproscore-bench-report-"))
    workdir.mkdir(parents=True, exist_ok=True)
    db = workdir / "report-bench.db"
    out = workdir / "report"
    for suffix in ("", "-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    shutil.rmtree(out, ignore_errors=True)
    try:
        print(f"report benchmark: building a collection of {args.zenodo:,} Zenodo records and {args.swh:,} "
              "Software Heritage origins …")  # fmt: skip
        started = time.perf_counter()
        built_collection = synthetic_collection.build(db, zenodo=args.zenodo, swh=args.swh, local=0, nights=30,
                                                      evidence_every=50, drop_scores_every=0,
                                                      outcomes_every=10)  # fmt: skip
        built = time.perf_counter() - started
        conn = sqlite3.connect(db)
        try:
            snapshots = conn.execute("SELECT count(*) FROM snapshots").fetchone()[0]
            measurements = conn.execute("SELECT count(*) FROM measurements").fetchone()[0]
        finally:
            conn.close()
        print(f"  built in {built:.1f} s: {snapshots:,} snapshots, {measurements:,} measurements, "
              f"{built_collection.outcomes:,} execution outcomes ({db.stat().st_size / 2**20:.0f} MiB)")  # fmt: skip
        command = [sys.executable, "-m", "reproscore", "report", "--db", str(db), "--out", str(out),
                   "--rubric", "default", "--compare-rubric", "bioinformatics-v1"]  # fmt: skip
        started = time.perf_counter()
        proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        seconds = time.perf_counter() - started
        if proc.returncode != 0:
            print(proc.stdout + proc.stderr)
            print("  FAIL (the report command failed)")
            return 1
        summary = proc.stdout.strip().splitlines()[0]
        scored = int(summary.split("(")[1].split()[0])
        size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
        print(f"  {summary}")
        print(f"  report of {scored:,} scored deposits: {seconds:.1f} s wall-clock, process start to exit "
              f"(target < {TARGET_SECONDS:.0f} s); {size / 2**20:.1f} MiB written")  # fmt: skip
        if scored < 100_000:
            print("  (fewer than 100,000 scored deposits: smaller than the benchmark's collection)")
        ok = seconds < TARGET_SECONDS
        print("  PASS" if ok else "  FAIL")
        return 0 if ok else 1
    finally:
        if args.keep is None:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
