"""Scale benchmark (``make bench``): trees per second on 1 and 2 local worker processes
and on a 2-worker Dask LocalCluster, Dask's cost per task, and reading a deposit's zip
in place against extracting it.

On the generated corpus of ``bench_scorer.py`` (``build_corpus``), each configuration
runs ``reproscore.api.score_paths`` with a store: identify (SWHID), measure, score, and
write every tree from the driver in batches, exactly what ``reproscore score PATH...
--db FILE --workers N [--executor dask]`` does. Every configuration must store the
same scores. Times are wall-clock, best of ``--runs``, with a warm page cache; the Dask
cluster is started once, outside the timings (its start-up is printed apart).

Dask's cost per task is measured two ways: no-op tasks through the same ordered
executor the pipeline uses (throughput, two workers busy), and one task at a time
(round-trip latency); both against the local process pool doing the same. Then the
difference between Dask and the local pool on the real corpus, per tree.
"""

from __future__ import annotations

import argparse
import io
import shutil
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_scorer import build_corpus  # noqa: E402

from harvester.fetch import ExtractionLimits, materialize  # noqa: E402
from reproscore import api  # noqa: E402
from reproscore.executors import DaskExecutor, LocalExecutor  # noqa: E402
from scoring.measurement import measure  # noqa: E402
from scoring.parallel import available_cores, ordered_map  # noqa: E402
from scoring.trees.archives import ZipTree  # noqa: E402
from scoring.trees.sources import LocalDirectory  # noqa: E402
from scoring.trees.swhid import tree_identity  # noqa: E402


def noop(value: int) -> int:
    return value


def score_store(paths: list[Path], db: Path, executor) -> list[float]:
    """score_paths into a fresh database; the RRS of every tree, in order."""
    for stale in db.parent.glob(db.name + "*"):
        stale.unlink()
    scores = []
    for path, result in api.score_paths(paths, "default", db=db, executor=executor):
        if isinstance(result, BaseException):
            raise RuntimeError(f"{path}: {result}") from result
        scores.append(result.result["rrs"])
    return scores


def best_of(runs: int, func, *args):
    best, value = float("inf"), None
    for _ in range(runs):
        start = time.perf_counter()
        value = func(*args)
        best = min(best, time.perf_counter() - start)
    return best, value


def zip_tree(tree: Path, out: Path) -> Path:
    """A GitHub-release style zip (one top folder, deflated) of ``tree``."""
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(tree.rglob("*")):
            if path.is_file():
                archive.write(path, f"{tree.name}-1.0/{path.relative_to(tree).as_posix()}")
    return out


def in_place(zips: list[Path]) -> list[str]:
    out = []
    for path in zips:
        with ZipTree(path, label=path.name) as source:
            out.append(tree_identity(source).swhid)
            measure(source)
    return out


def extracted(zips: list[Path], work: Path) -> list[str]:
    out = []
    for path in zips:
        tree = materialize([(path.name, path)], work / path.stem, ExtractionLimits())
        source = LocalDirectory(tree)
        out.append(tree_identity(source).swhid)
        measure(source)
        shutil.rmtree(tree)
    return out


class CountingDirectory(LocalDirectory):
    """A directory that counts the files and bytes the detectors read: what a remote
    content store (Software Heritage's bucket) would have to serve."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.read_bytes = 0
        self.read_files: set[str] = set()

    def read(self, path: str, limit: int) -> bytes:
        data = super().read(path, limit)
        self.read_bytes += len(data)
        self.read_files.add(path)
        return data

    def open_binary(self, path: str):
        self.read_files.add(path)
        with super().open_binary(path) as handle:
            data = handle.read()
        self.read_bytes += len(data)
        return io.BytesIO(data)


def bytes_read(paths: list[Path]) -> tuple[int, int, int, int]:
    """(files, bytes) in the trees and (files, bytes) the detectors read."""
    files = size = read_files = read_bytes = 0
    for path in paths:
        source = CountingDirectory(path)
        measure(source)
        on_disk = [f for f in path.rglob("*") if f.is_file() and not f.is_symlink()]
        files += len(on_disk)
        size += sum(f.stat().st_size for f in on_disk)
        read_files += len(source.read_files)
        read_bytes += source.read_bytes
    return files, size, read_files, read_bytes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", type=int, default=120, help="generated trees (default 120)")
    parser.add_argument("--seed", type=int, default=3, help="corpus seed")
    parser.add_argument("--runs", type=int, default=2, help="timed runs, best kept")
    parser.add_argument("--noop-tasks", type=int, default=2000, help="no-op tasks for the per-task cost")
    parser.add_argument("--zips", type=int, default=40, help="trees zipped for in place vs extracted")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="reproscore-bench-scale-"))
    try:
        return run(args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(args, work: Path) -> int:
    paths = build_corpus(work / "corpus", args.trees, args.seed)
    files = sum(1 for p in paths for f in p.rglob("*") if f.is_file())
    size = sum(f.stat().st_size for p in paths for f in p.rglob("*") if f.is_file())
    print(f"corpus: {len(paths)} generated trees (seed {args.seed}), {files} files, {size / 1e6:.1f} MB;"
          f" {available_cores()} core(s) on this machine; best of {args.runs} run(s), warm cache")
    print()
    started = time.perf_counter()
    dask = DaskExecutor(workers=2)
    startup = time.perf_counter() - started
    try:
        db = work / "bench.db"
        results = {}
        for label, executor in (
            ("local, 1 worker (this process)", LocalExecutor(1)),
            ("local, 2 worker processes", LocalExecutor(2)),
            ("Dask LocalCluster, 2 workers", dask),
        ):
            seconds, scores = best_of(args.runs, score_store, paths, db, executor)
            results[label] = (seconds, scores)
        reference = next(iter(results.values()))[1]
        if any(scores != reference for _, scores in results.values()):
            raise SystemExit("the configurations stored different scores")
        base = next(iter(results.values()))[0]
        print("identify + measure + score + store (score PATH... --db), trees per second:")
        print(f"  {'configuration':34} {'seconds':>9} {'trees/s':>9} {'ms/tree':>9} {'speed-up':>9}")
        for label, (seconds, _) in results.items():
            print(f"  {label:34} {seconds:9.2f} {len(paths) / seconds:9.1f} {1000 * seconds / len(paths):9.1f}"
                  f" {base / seconds:8.2f}x")
        print(f"  (Dask LocalCluster start-up, not in the timings: {startup:.2f} s)")
        print()

        n = args.noop_tasks
        pool_s, _ = best_of(args.runs, lambda: list(ordered_map(noop, range(n), jobs=2)))
        dask_s, _ = best_of(args.runs, lambda: list(dask.map(noop, range(n))))
        rounds = 200
        start = time.perf_counter()
        for i in range(rounds):
            list(dask.map(noop, [i]))
        dask_latency = (time.perf_counter() - start) / rounds
        print(f"per-task overhead, {n} no-op tasks in order (two workers busy):")
        print(f"  local process pool   {1e3 * pool_s / n:7.3f} ms per task  ({n / pool_s:8.0f} tasks/s)")
        print(f"  Dask LocalCluster    {1e3 * dask_s / n:7.3f} ms per task  ({n / dask_s:8.0f} tasks/s)")
        print(f"  Dask, one task at a time: {1e3 * dask_latency:.2f} ms round trip (submit, run, result)")
        local2 = results["local, 2 worker processes"][0]
        dask2 = results["Dask LocalCluster, 2 workers"][0]
        print(f"  on the corpus: Dask - local pool = {1e3 * (dask2 - local2) / len(paths):+.1f} ms per tree"
              " (scheduling, pickling measurements and evidence back)")
        print()
    finally:
        dask.close()

    files, size, read_files, read_bytes = bytes_read(paths)
    print("what the detectors read (what a remote content store serves):")
    print(f"  {read_files / len(paths):.1f} of {files / len(paths):.1f} files per tree ({100 * read_files / files:.0f}%),"
          f" {read_bytes / len(paths) / 1e6:.2f} of {size / len(paths) / 1e6:.2f} MB per tree ({100 * read_bytes / size:.0f}%)")
    print()

    count = min(args.zips, len(paths))
    zips = [zip_tree(p, work / f"{p.name}.zip") for p in paths[:count]]
    zipped = sum(z.stat().st_size for z in zips)
    in_s, a = best_of(args.runs, in_place, zips)
    ex_s, b = best_of(args.runs, extracted, zips, work / "x")
    if a != b:
        raise SystemExit("in place and extracted SWHIDs differ")
    print(f"a deposit's zip ({count} trees, {zipped / 1e6:.1f} MB zipped), identify + measure, one process:")
    print(f"  read in place        {1e3 * in_s / count:7.1f} ms per deposit  (nothing written to disk)")
    print(f"  extracted first      {1e3 * ex_s / count:7.1f} ms per deposit  (every byte written, read back, deleted)")
    print(f"  same SWHIDs: yes; in place / extracted = {in_s / ex_s:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
