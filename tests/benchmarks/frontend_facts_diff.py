"""The frontends' oracle: a fingerprint of every file's facts, to prove a change leaves
them byte-identical, and the cost of extracting facts against parsing alone.

    # fingerprint every file a frontend serves under the corpus (default /work/corpus)
    .venv/bin/python tests/benchmarks/frontend_facts_diff.py --out before.tsv
    # ... change a frontend ...
    .venv/bin/python tests/benchmarks/frontend_facts_diff.py --out after.tsv
    .venv/bin/python tests/benchmarks/frontend_facts_diff.py --compare before.tsv after.tsv

    # per language: MB, parse-only seconds, extract seconds, extract / parse
    .venv/bin/python tests/benchmarks/frontend_facts_diff.py --timing [--repeat 5]

    # any mode: --only r --only julia restricts it to those frontends' files

Every file under the corpus folder (``.git`` folders and symbolic links skipped, files
over 2 MiB skipped as ``bench_frontends.py`` does) for which ``frontend_for`` names a
frontend is extracted; each output line is ``path<TAB>sha256(facts.to_json())``, the
path relative to the corpus folder, lines sorted. A frontend that raises is recorded as
``path<TAB>error:<exception type>`` so a new crash is a difference too. ``--compare A B``
prints the paths whose fingerprints differ (or that one side lacks) and exits 1 if any.

``--timing`` prints two parse-only figures per language and extract's ratio to each:

* ``parse``: exactly what the frontend parses (the input it hands to ``_common.parse``:
  an ``.Rmd``'s R chunks, a fixed-form Fortran file rewritten to free form; for
  Snakemake, its rewrite into Python and ``ast.parse``): the ratio is the cost of the
  frontend's own work on top of the parse it cannot avoid;
* ``floor``: the read-and-parse floor of ``bench_facts.py`` (``make bench``): the
  file's bytes as they are, in its grammar (an ``.Rmd`` parsed whole as R).

One process, every file extracted once before timing (grammars loaded, page cache
warm); each figure is the sum over the language's files of each file's best of
``--repeat`` runs (parse, floor and extract interleaved per file, so load from other
processes on the machine spoils one run of one file rather than a whole total).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_facts import _parse_in_language  # noqa: E402
from bench_frontends import parse_inputs  # noqa: E402

from scoring.frontends import frontend_for, frontend_name  # noqa: E402

MAX_BYTES = 2 * 1024 * 1024


def corpus_files(corpus: Path, only: set[str] | None = None) -> list[tuple[str, str, bytes]]:
    """(relative path, frontend name, bytes) of every file a frontend serves (of the
    frontends in ``only``, when given), sorted."""
    found = []
    for folder, dirs, files in os.walk(corpus):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        for name in sorted(files):
            path = Path(folder, name)
            relative = path.relative_to(corpus).as_posix()
            frontend = frontend_name(relative)
            if frontend is None or (only and frontend not in only) or path.is_symlink():
                continue
            try:
                if path.stat().st_size > MAX_BYTES:
                    continue
                data = path.read_bytes()
            except OSError:
                continue
            found.append((relative, frontend, data))
    return found


def fingerprint(data: bytes, relative: str) -> str:
    try:
        facts = frontend_for(relative).extract(data, relative)
    except Exception as error:  # noqa: BLE001 - a crash is recorded, it is a difference too
        return f"error:{type(error).__name__}"
    return hashlib.sha256(facts.to_json().encode()).hexdigest()


def write_fingerprints(corpus: Path, out: Path, only: set[str] | None) -> None:
    files = corpus_files(corpus, only)
    lines = sorted(f"{relative}\t{fingerprint(data, relative)}" for relative, _, data in files)
    out.write_text("\n".join(lines) + "\n")
    counts = defaultdict(int)
    for _, frontend, _ in files:
        counts[frontend] += 1
    print(f"{len(lines)} files fingerprinted into {out}: "
          + ", ".join(f"{name} {count}" for name, count in sorted(counts.items())))


def read_fingerprints(path: Path) -> dict[str, str]:
    entries = {}
    for line in path.read_text().splitlines():
        if line:
            relative, _, digest = line.rpartition("\t")
            entries[relative] = digest
    return entries


def compare(first: Path, second: Path, only: set[str] | None) -> int:
    a, b = read_fingerprints(first), read_fingerprints(second)
    if only:
        a = {p: d for p, d in a.items() if frontend_name(p) in only}
        b = {p: d for p, d in b.items() if frontend_name(p) in only}
    differing = sorted(p for p in a.keys() | b.keys() if a.get(p) != b.get(p))
    for relative in differing:
        print(f"{relative}\t{a.get(relative, '-')}\t{b.get(relative, '-')}")
    print(f"{len(a.keys() | b.keys())} files compared, {len(differing)} differences", file=sys.stderr)
    return 1 if differing else 0


# ------------------------------------------------------------------ timing
def timing(corpus: Path, repeat: int, only: set[str] | None) -> None:
    by_frontend: dict[str, list] = defaultdict(list)
    for relative, frontend, data in corpus_files(corpus, only):
        by_frontend[frontend].append((relative, data, parse_inputs(relative, frontend, data)))
    print(f"{'frontend':<10} {'files':>6} {'MB':>7} {'parse s':>8} {'floor s':>8} {'extract s':>9} "
          f"{'/parse':>6} {'/floor':>6} {'MB/s':>7}")
    for frontend in sorted(by_frontend):
        files = by_frontend[frontend]
        parse_total = floor_total = extract_total = 0.0
        for relative, data, parses in files:
            # each file's best of `repeat` runs, the three measurements interleaved, so a
            # burst of load on the machine costs one run of one file, not a whole figure
            parse_best = floor_best = extract_best = float("inf")
            for _ in range(repeat):
                start = time.perf_counter()
                for parse in parses:
                    parse()
                middle = time.perf_counter()
                _parse_in_language(data, relative)
                end = time.perf_counter()
                frontend_for(relative).extract(data, relative)
                parse_best = min(parse_best, middle - start)
                floor_best = min(floor_best, end - middle)
                extract_best = min(extract_best, time.perf_counter() - end)
            parse_total += parse_best
            floor_total += floor_best
            extract_total += extract_best
        parse_best, floor_best, extract_best = parse_total, floor_total, extract_total
        megabytes = sum(len(data) for _, data, _ in files) / 1e6
        print(f"{frontend:<10} {len(files):>6} {megabytes:>7.2f} {parse_best:>8.3f} {floor_best:>8.3f} "
              f"{extract_best:>9.3f} {extract_best / parse_best:>6.2f} {extract_best / floor_best:>6.2f} "
              f"{megabytes / extract_best:>7.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=Path("/work/corpus"))
    parser.add_argument("--out", type=Path, help="write path<TAB>sha256 lines here")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"))
    parser.add_argument("--timing", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", action="append", metavar="FRONTEND",
                        help="only this frontend's files (repeatable): r, julia, c_cpp ...")
    args = parser.parse_args()
    only = set(args.only) if args.only else None
    if args.compare:
        return compare(*args.compare, only)
    if args.timing:
        timing(args.corpus, args.repeat, only)
        return 0
    if args.out is None:
        parser.error("give --out FILE, --compare A B or --timing")
    write_fingerprints(args.corpus, args.out, only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
