"""Synthetic measurements for the store's tests, its benchmark and its crash tests.

Real SQLite files and real processes are used throughout; only the measured trees are
made up (deterministically from a seed), so store behaviour can be tested at scale and
independently of the detectors.

Run as a program, it is the child process of the kill and concurrency tests:

    python tests/synthetic.py store DB FIRST COUNT [--rescore-every N]

stores snapshots FIRST … FIRST+COUNT-1 (each with its score under the default rubric),
rescoring under bioinformatics-v1 every N snapshots, and prints ``done`` at the end.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scoring.catalog import METRICS  # noqa: E402
from scoring.model import Evidence, Inventory, Measurement, Measurements  # noqa: E402
from scoring.trees.swhid import SWHID_DIR_PREFIX, TreeIdentity  # noqa: E402

DETECTOR_VERSION = "1.0.0"


def identity(seed: int) -> TreeIdentity:
    digest = hashlib.sha1(f"synthetic tree {seed}".encode()).hexdigest()
    return TreeIdentity(SWHID_DIR_PREFIX + digest, files=10 + seed % 90, bytes=1000 + seed * 7)


def evidence_count(seed: int, position: int) -> int:
    return (seed + position) % 3


def measurements(seed: int, *, detector_version: str = DETECTOR_VERSION) -> Measurements:
    """26 measurements with values in [0, 100], some not applicable, 0–2 evidence items
    each (one with a secret-looking snippet, to exercise redaction round trips)."""
    rng = random.Random(seed)
    by_id = {}
    for position, spec in enumerate(METRICS):
        applicable = rng.random() > 0.1
        value = rng.choice((0.0, 25.0, 50.0, 100.0, rng.uniform(0, 100))) if applicable else 100.0
        items = [
            Evidence(
                path=f"src/module_{k}.py",
                reason=f"{spec.title}: observation {k}",
                rule=f"{spec.code.lower()}-rule-{k}",
                line_start=1 + k * 10,
                line_end=None if k else 3,
                snippet='password = "hunter2hunter2"' if k == 1 else f"line {k} of {seed}",
                cell=2 if k == 1 else None,
            )
            for k in range(evidence_count(seed, position))
        ]
        by_id[spec.metric_id] = Measurement(
            metric_id=spec.metric_id,
            category=spec.category,
            value=value,
            applicable=applicable,
            level="level-" + str(int(value) // 25),
            evidence=items,
            fix=f"Improve {spec.title.lower()}." if value < 100 else None,
            reason="" if applicable else "not applicable to this tree",
            counts={"seen": rng.randint(0, 9), "ratio": round(rng.random(), 3)},
            outcome="measured" if applicable else "not_applicable",
            detector_version=detector_version,
        )
    inventory = Inventory(
        files=10 + seed % 90,
        bytes=1000 + seed * 7,
        by_type={"python": seed % 7},
        skipped=[{"path": "data/big.bin", "reason": "over the size cap"}] if seed % 5 == 0 else [],
        limits={"max_files": 5000},
    )
    return Measurements(measurements=by_id, inventory=inventory, scorer_version="0.1.0")


def store_many(db: str, first: int, count: int, rescore_every: int) -> None:
    from reproscore.store import Store
    from scoring.aggregate import score
    from scoring.rubric import load_rubric

    default = load_rubric("default")
    bio = load_rubric("bioinformatics-v1")
    with Store(db) as store:
        rubric_id = store.ensure_rubric(default)
        for seed in range(first, first + count):
            measured = measurements(seed)
            store.save_snapshot(
                identity(seed), measured, label=f"synthetic/{seed}", score=(rubric_id, score(measured, default))
            )
            if rescore_every and (seed - first + 1) % rescore_every == 0:
                store.rescore(bio, batch_size=7)
    print("done", flush=True)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    store = sub.add_parser("store", help="store synthetic snapshots with their scores")
    store.add_argument("db")
    store.add_argument("first", type=int)
    store.add_argument("count", type=int)
    store.add_argument("--rescore-every", type=int, default=0)
    args = parser.parse_args(argv)
    store_many(args.db, args.first, args.count, args.rescore_every)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
