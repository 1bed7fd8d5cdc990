"""The results-diff harness: everything the scorer says about a fixed set of trees, written
to one file, and two such files compared. A refactoring of the scorer must leave the file
unchanged (except where a detector version is bumped on purpose).

    python tests/benchmarks/results_diff.py dump before.json [--real DIR ...]
    ... change the scorer ...
    python tests/benchmarks/results_diff.py dump after.json [--real DIR ...]
    python tests/benchmarks/results_diff.py compare before.json after.json

``dump --facts-cache`` measures with an in-memory facts cache, so that every file a
frontend reads has its facts taken first (the facts pass, ``scoring.facts_cache``):
its dump must equal the one without.

The set: the 200 generated trees of bench_scorer (seed 1), every golden fixture
``tests/fixtures/<metric_id>/<case>/``, the sample trees, and every tree below each
``--real DIR`` (each subfolder, or each ``<kind>/<repo>/`` of a calibration checkout).
For each tree: every sub-metric's value, applicability, level, evidence (path, lines,
reason, rule, snippet), fix, counts, detector version and the inventory. ``compare``
prints each difference (tree, metric, field) and exits 1 when there is one.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
for entry in (str(ROOT), str(HERE)):
    if entry not in sys.path:
        sys.path.insert(0, entry)

from bench_scorer import build_corpus  # noqa: E402

from scoring import measure_many  # noqa: E402


def tree_set(real: list[Path], generated_root: Path) -> dict[str, Path]:
    """label -> tree, in a stable order."""
    trees: dict[str, Path] = {}
    for path in build_corpus(generated_root, 200, 1):
        trees[f"generated/{path.name}"] = path
    fixtures = ROOT / "tests" / "fixtures"
    for case in sorted(fixtures.glob("*/*")):
        if case.is_dir() and case.parent.name not in ("samples", "zenodo", "swh", "demo_zenodo", "demo_swh"):
            trees[f"fixture/{case.parent.name}/{case.name}"] = case
    for sample in sorted((fixtures / "samples").iterdir()):
        if sample.is_dir():
            trees[f"sample/{sample.name}"] = sample
    for root in real:
        for child in sorted(p for p in root.iterdir() if p.is_dir()):
            nested = sorted(p for p in child.iterdir() if p.is_dir())
            # A calibration checkout is <kind>/<repo>/; a plain corpus is one tree per folder.
            is_kind = child.name in {"python-library", "python-analysis", "r-package", "r-analysis",
                                     "julia", "matlab", "compiled", "workflow"}
            for tree in (nested if is_kind else [child]):
                trees[f"real/{tree.relative_to(root)}"] = tree
    return trees


def dump(out: Path, real: list[Path], facts_cache: bool = False) -> int:
    from scoring.facts_cache import MemoryFactsCache

    cache = MemoryFactsCache() if facts_cache else None
    with tempfile.TemporaryDirectory() as generated:
        trees = tree_set(real, Path(generated))
        labels, paths = list(trees), list(trees.values())
        results: dict[str, object] = {}
        measured_all = measure_many(paths, jobs=0, facts_cache=cache)
        for label, (_, measured) in zip(labels, measured_all, strict=True):
            if isinstance(measured, BaseException):
                results[label] = {"error": f"{type(measured).__name__}: {measured}"}
                continue
            data = measured.to_dict()
            data.pop("scorer_version", None)
            results[label] = data
    out.write_text(json.dumps(results, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{out}: {len(results)} trees")
    return 0


def _differences(before: object, after: object, where: str) -> list[str]:
    if isinstance(before, dict) and isinstance(after, dict):
        found = []
        for key in sorted(set(before) | set(after)):
            if key not in before or key not in after:
                found.append(f"{where}.{key}: {'added' if key not in before else 'removed'}")
            else:
                found += _differences(before[key], after[key], f"{where}.{key}")
        return found
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return [d for i, (b, a) in enumerate(zip(before, after, strict=True)) for d in _differences(b, a, f"{where}[{i}]")]
    return [] if before == after else [f"{where}: {json.dumps(before)[:160]} -> {json.dumps(after)[:160]}"]


def compare(before_file: Path, after_file: Path, limit: int = 500) -> int:
    before = json.loads(before_file.read_text(encoding="utf-8"))
    after = json.loads(after_file.read_text(encoding="utf-8"))
    found = _differences(before, after, "")
    for line in found[:limit] if limit else found:
        print(line)
    if limit and len(found) > limit:
        print(f"... {len(found) - limit} more (--limit 0 prints all)")
    print(f"{len(before)} trees before, {len(after)} after: {len(found)} difference(s)")
    return 1 if found else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dump", help="measure the tree set and write every result")
    d.add_argument("out", type=Path)
    d.add_argument("--real", type=Path, action="append", default=[], help="a folder of real trees")
    d.add_argument("--facts-cache", action="store_true", help="measure with an in-memory facts cache (the facts pass runs)")
    c = sub.add_parser("compare", help="compare two dumps")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    c.add_argument("--limit", type=int, default=500, help="print at most this many differences (0: all)")
    args = parser.parse_args(argv)
    if args.command == "dump":
        return dump(args.out, args.real, args.facts_cache)
    return compare(args.before, args.after, args.limit)


if __name__ == "__main__":
    sys.exit(main())
