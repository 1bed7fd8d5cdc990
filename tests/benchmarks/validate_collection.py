"""Every crate of a generated collection through roc-validator, offline: the collection
crate and each deposit's crate, at REQUIRED and RECOMMENDED (issue 17's acceptance).

    python tests/benchmarks/validate_collection.py [--deposits 200] [--jobs 2]

Builds a synthetic store (tests/synthetic_collection.py) whose scored deposits number at
least ``--deposits``, exports the collection crate and one crate per scored deposit with
the demo's publisher, validates each at both levels and prints the issues and the count
of crates with none. Too slow for the test suite (the collection crate alone takes
minutes); the demo's crates are validated there (tests/test_export_demo_recommended.py).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
for entry in (str(ROOT), str(ROOT / "tests")):
    if entry not in sys.path:
        sys.path.insert(0, entry)

import synthetic_collection  # noqa: E402

from exporters import validator  # noqa: E402
from reproscore import api, demo  # noqa: E402

LEVELS = ("REQUIRED", "RECOMMENDED")


def _validate(job: tuple[Path, Path]) -> tuple[str, dict[str, list[str]]]:
    crate, cache = job
    return crate.name, {level: validator.validate_crate(crate, cache, severity=level).lines() for level in LEVELS}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deposits", type=int, default=200, help="scored deposits to export, at least")
    parser.add_argument("--jobs", type=int, default=2, help="crates validated at a time")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as work:
        out = Path(work)
        db = out / "collection.db"
        # About four in five deposits of a synthetic collection end scored.
        synthetic_collection.build(db, zenodo=int(args.deposits * 1.1), swh=max(10, args.deposits // 8), local=5)
        api.rescore(db, "default")  # the collection drops some stored scores on purpose
        config = demo.demo_config(out / "reproscore.toml", out / "work")
        rows = [row for source in ("zenodo", "swh") for row in api.deposit_results(db, source) if row["rrs"] is not None]
        if len(rows) < args.deposits:
            print(f"only {len(rows)} scored deposits were generated", file=sys.stderr)
            return 2
        crates = [Path(api.export_rocrate(db, out / "crates" / "collection", all_deposits=True, config=config).path)]
        for number, row in enumerate(rows):
            crates.append(Path(api.export_rocrate(db, out / "crates" / f"deposit-{number:04d}", deposit=row["record"],
                                                  config=config).path))
        cache = validator.seed_cache(out / "validator-cache" / "http_cache")
        print(f"{len(crates)} crates ({len(rows)} deposits and the collection), validating {args.jobs} at a time")
        started = time.perf_counter()
        clean = {level: 0 for level in LEVELS}
        with ProcessPoolExecutor(args.jobs) as pool:
            for name, issues in pool.map(_validate, [(crate, cache) for crate in crates]):
                for level in LEVELS:
                    clean[level] += not issues[level]
                    for line in issues[level]:
                        print(f"  {name} {level}: {line}")
        seconds = time.perf_counter() - started
    for level in LEVELS:
        print(f"{level}: {clean[level]} of {len(crates)} crates with no issue")
    print(f"validated in {seconds:.0f} s")
    return 0 if all(clean[level] == len(crates) for level in LEVELS) else 1


if __name__ == "__main__":
    sys.exit(main())
