"""The one-pass benchmark (``make bench``): reproscore against the read-and-parse floor
on real repositories, re-measuring a changed version, and each frontend's MB/s.

    .venv/bin/python tests/benchmarks/bench_facts.py --trees DIR   # DIR/<kind>/<folder>/

The trees are the real repositories of ``real_repositories.txt`` (48 of 8 kinds, fetched
with ``fetch_corpus.py``; a missing tree is reported and left out). One process, warm
page cache, best of ``--repeat`` runs of each figure:

* **floor**: read every file of the tree once (the walk skips the folders the scorer
  never enters, §0.1.8) and parse each source file once in its language: ``ast`` for
  Python files and each notebook code cell, the tree-sitter grammar for the languages
  that have a frontend (R, Julia, MATLAB, C/C++, Fortran, Nextflow; Snakemake's own
  rewrite into Python, then ``ast``). This is the least any parsing scorer does. A file
  whose content is binary (a NUL byte in its first 8 KiB, the scorer's own test) is read
  but parsed by no scorer, so not by the floor either: a pickle named ``*.jl`` is no
  Julia source. The Python-only floor of issue #15 (which predates the other frontends)
  is printed too.
* **reproscore**: ``measure`` of the tree with a fresh facts cache: every file's facts
  are computed, nothing is reused between runs.
* **floor + the frontends' queries**: the floor plus the time the tree-sitter frontends
  spend in their one query per file (``_common.selected``, timed inside a real
  measurement): work every extraction on these frontends does before it builds a fact.
  Its ratio to the floor is how much of the target is gone before any fact exists.
* **re-measure**: a tree of fifty files is measured once into a facts cache, then a
  second version that differs in one file is measured with the same cache: the cost of
  the second measurement over the first.

Targets (PASS/FAIL printed): per-repository median ratio and total ratio <= 1.5x the
floor; re-measure <= 0.2x the first measurement.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from fetch_corpus import read_list  # noqa: E402

from scoring import measure  # noqa: E402
from scoring.frontends import _common as tree_sitter_common  # noqa: E402
from scoring.frontends import frontend_name  # noqa: E402
from scoring.tree import EXCLUDED_DIR_NAMES  # noqa: E402

TARGET_RATIO = 1.5
TARGET_REMEASURE = 0.2
REMEASURE_FILES = 50
C_SUFFIXES = (".c", ".h")


def _parse_python(source: str | bytes) -> None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass


def _parse_notebook(data: bytes) -> None:
    try:
        cells = json.loads(data).get("cells", [])
    except (ValueError, AttributeError):
        return
    for cell in cells if isinstance(cells, list) else ():
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            source = cell.get("source", "")
            source = "".join(source) if isinstance(source, list) else str(source)
            # magics and shell escapes are not Python: commented out, as the scorer does
            _parse_python("\n".join("#" + line if line.lstrip()[:1] in "%!" else line
                                    for line in source.splitlines()))


def _tree_sitter_grammar(frontend: str, path: str) -> str | None:
    if frontend == "c_cpp":
        return "c" if path.lower().endswith(C_SUFFIXES) else "cpp"
    if frontend == "nextflow":
        return "groovy"
    if frontend in ("r", "julia", "matlab", "fortran"):
        return frontend
    return None


def _parse_in_language(data: bytes, path: str) -> None:
    frontend = frontend_name(path)
    if frontend is None or frontend == "python":
        return
    if frontend == "snakemake":
        from scoring.frontends.snakemake import _Rewriter

        rewritten = _Rewriter(data.decode("utf-8", "replace"))
        rewritten.run()
        _parse_python(rewritten.source())
        return
    grammar = _tree_sitter_grammar(frontend, path)
    if grammar is not None:
        tree_sitter_common.parse(data, grammar)


def tree_files(root: Path) -> list[Path]:
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in EXCLUDED_DIR_NAMES)
        for name in sorted(files):
            path = Path(folder, name)
            if not path.is_symlink() and path.is_file():
                found.append(path)
    return found


def floor(root: Path, *, languages: bool) -> None:
    for path in tree_files(root):
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if b"\x00" in data[:8192]:
            continue   # binary content: read, never parsed (TreeIndex's test)
        suffix = path.suffix.lower()
        if suffix in (".py", ".pyw"):
            _parse_python(data)
        elif suffix == ".ipynb":
            _parse_notebook(data)
        elif languages:
            _parse_in_language(data, path.relative_to(root).as_posix())


def _facts_cache_factory() -> Callable[[], object] | None:
    """A fresh in-memory facts cache, when this version of the scorer has one."""
    if "facts_cache" not in inspect.signature(measure).parameters:
        return None
    from scoring.facts_cache import MemoryFactsCache

    return MemoryFactsCache


def best(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def selection_seconds(run: Callable[[], object]) -> float:
    """The time ``run`` spends in the tree-sitter frontends' one query per file
    (``_common.selected``: tree-sitter walks the tree in C and hands back the captured
    nodes, sorted): work every fact extraction by these frontends does before it builds
    a single fact. With the floor (which parses) it bounds what any scorer built on these
    frontends can reach."""
    original = tree_sitter_common.selected
    spent = 0.0

    def timed(tree, compiled):
        nonlocal spent
        start = time.perf_counter()
        try:
            return original(tree, compiled)
        finally:
            spent += time.perf_counter() - start

    tree_sitter_common.selected = timed
    try:
        run()
    finally:
        tree_sitter_common.selected = original
    return spent


def bench_corpus(trees: Path, repeat: int) -> bool:
    new_cache = _facts_cache_factory()

    def measure_cold(root: Path) -> None:
        if new_cache is None:
            measure(root)
        else:
            measure(root, facts_cache=new_cache())

    rows, missing = [], []
    for kind, folder, _url, _commit in read_list():
        root = trees / kind / folder
        if not root.is_dir():
            missing.append(f"{kind}/{folder}")
            continue
        measure_cold(root)  # imports, grammars and the page cache warm, nothing timed
        python_floor = best(lambda root=root: floor(root, languages=False), repeat)
        language_floor = best(lambda root=root: floor(root, languages=True), repeat)
        scored = best(lambda root=root: measure_cold(root), repeat)
        selecting = min(selection_seconds(lambda root=root: measure_cold(root)) for _ in range(repeat))
        rows.append((f"{kind}/{folder}", len(tree_files(root)), python_floor, language_floor, scored,
                     language_floor + selecting))
    if missing:
        print(f"missing trees ({len(missing)}, fetch them with tests/benchmarks/fetch_corpus.py): "
              + ", ".join(missing))
    if not rows:
        print("no real trees: the corpus benchmark needs --trees DIR")
        return False
    print(f"\n{len(rows)} real repositories, one process, warm page cache, best of {repeat}")
    print(f"{'':<44}{'median s':>10}{'total s':>10}")
    for label, column in (("read + parse Python (issue floor)", 2), ("read + parse every language (floor)", 3),
                          ("floor + the frontends' queries, no fact", 5), ("reproscore measure", 4)):
        values = [row[column] for row in rows]
        print(f"{label:<44}{statistics.median(values):>10.4f}{sum(values):>10.3f}")
    ratios = [row[4] / row[3] for row in rows]
    python_ratios = [row[4] / row[2] for row in rows]
    median_ratio = statistics.median(ratios)
    total_ratio = sum(row[4] for row in rows) / sum(row[3] for row in rows)
    print(f"ratio to the floor: median {median_ratio:.2f}x, total {total_ratio:.2f}x"
          f" (to the Python-only floor: median {statistics.median(python_ratios):.2f}x,"
          f" total {sum(row[4] for row in rows) / sum(row[2] for row in rows):.2f}x)")
    # What the frontends' queries alone add to the floor, before one fact is built: the
    # share of the target any fact extraction on these frontends has already spent.
    bound = [row[5] / row[3] for row in rows]
    print(f"floor + the frontends' queries, to the floor: median {statistics.median(bound):.2f}x,"
          f" total {sum(row[5] for row in rows) / sum(row[3] for row in rows):.2f}x"
          f" (tree-sitter trees: {', '.join(f'{row[0]} {row[5] / row[3]:.2f}x' for row in sorted(rows, key=lambda r: -r[5] / r[3])[:3])})")
    print("slowest five (reproscore s, floor s, ratio, files):")
    for label, files, _python, language, scored, _bound in sorted(rows, key=lambda row: -row[4])[:5]:
        print(f"  {label:<44}{scored:>8.3f}{language:>8.3f}{scored / language:>7.2f}x{files:>7}")
    print("highest five ratios:")
    for label, files, _python, language, scored, _bound in sorted(rows, key=lambda row: -row[4] / row[3])[:5]:
        print(f"  {label:<44}{scored:>8.3f}{language:>8.3f}{scored / language:>7.2f}x{files:>7}")
    ok = median_ratio <= TARGET_RATIO and total_ratio <= TARGET_RATIO
    print(f"{'PASS' if median_ratio <= TARGET_RATIO else 'FAIL'}: median ratio {median_ratio:.2f}x <= {TARGET_RATIO}x")
    print(f"{'PASS' if total_ratio <= TARGET_RATIO else 'FAIL'}: total ratio {total_ratio:.2f}x <= {TARGET_RATIO}x")
    return ok


def _fifty_file_tree(root: Path, target: Path) -> Path | None:
    """A copy of ``REMEASURE_FILES`` files of ``root`` (documentation, manifests and code
    first, as the scorer reads them) and the path of the code file the second version
    changes; None when the tree has too few files or no code."""
    files = tree_files(root)
    relative = [path.relative_to(root).as_posix() for path in files]
    code = [rel for rel in relative if frontend_name(rel) is not None or rel.endswith((".py", ".ipynb"))]
    other = [rel for rel in relative if rel not in set(code)]
    chosen = (code[: REMEASURE_FILES * 3 // 5] + other)[:REMEASURE_FILES]
    chosen += [rel for rel in code if rel not in set(chosen)][: REMEASURE_FILES - len(chosen)]
    if len(chosen) < REMEASURE_FILES or not any(rel in set(code) for rel in chosen):
        return None
    for rel in chosen:
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / rel, target / rel)
    return target / next(rel for rel in chosen if rel in set(code))


def bench_remeasure(trees: Path, repeat: int, samples: int) -> bool:
    new_cache = _facts_cache_factory()
    if new_cache is None:
        print("\nre-measure: this scorer has no facts cache (measure(..., facts_cache=)): FAIL")
        return False
    ratios = []
    with tempfile.TemporaryDirectory(prefix="reproscore-remeasure-") as scratch:
        for kind, folder, _url, _commit in read_list():
            if len(ratios) >= samples:
                break
            root = trees / kind / folder
            if not root.is_dir():
                continue
            first = Path(scratch, f"{kind}-{folder}-v1")
            changed = _fifty_file_tree(root, first)
            if changed is None:
                continue
            second = Path(scratch, f"{kind}-{folder}-v2")
            shutil.copytree(first, second)
            edited = second / changed.relative_to(first)
            edited.write_bytes(edited.read_bytes() + b"\n")
            measure(first)  # warm imports and the page cache

            def run_pair(first=first, second=second) -> tuple[float, float]:
                cache = new_cache()
                start = time.perf_counter()
                measure(first, facts_cache=cache)
                middle = time.perf_counter()
                measure(second, facts_cache=cache)
                return middle - start, time.perf_counter() - middle

            pairs = [run_pair() for _ in range(repeat)]
            t1, t2 = min(p[0] for p in pairs), min(p[1] for p in pairs)
            ratios.append((f"{kind}/{folder}", t1, t2))
    if not ratios:
        print("\nre-measure: no real tree of 50 files: FAIL")
        return False
    median = statistics.median(t2 / t1 for _, t1, t2 in ratios)
    print(f"\nre-measure: {len(ratios)} trees of {REMEASURE_FILES} files, the second version one file changed")
    for label, t1, t2 in ratios:
        print(f"  {label:<44} first {t1:.4f} s, second {t2:.4f} s, {t2 / t1:.2f}x")
    ok = median <= TARGET_REMEASURE
    print(f"{'PASS' if ok else 'FAIL'}: median re-measure {median:.2f}x <= {TARGET_REMEASURE}x")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", type=Path, default=ROOT.parent / "corpus",
                        help="DIR/<kind>/<folder>/ checkouts of real_repositories.txt (default: ../corpus)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--remeasure-samples", type=int, default=8)
    parser.add_argument("--no-frontends", action="store_true", help="skip the MB/s table")
    args = parser.parse_args()
    ok = bench_corpus(args.trees, args.repeat)
    ok = bench_remeasure(args.trees, args.repeat, args.remeasure_samples) and ok
    if not args.no_frontends:
        import bench_frontends

        print()
        sys.argv = [sys.argv[0], "--corpus", str(args.trees)]
        bench_frontends.main()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
