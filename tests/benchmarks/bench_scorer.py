"""Scorer benchmark (``make bench``): cost of scoring vs the cost of reading the files.

Generates a deterministic corpus of research-software trees with realistic file mixes
(Python packages and scripts, notebooks with outputs, R and shell scripts, manifests,
READMEs, data tables, figures, a vendored folder that is excluded), then times:

1. reading every file of the corpus once (open + read in one process, the floor of any
   scanner);
2. ``measure`` + ``score`` of every tree with the default rubric, in one process and
   with one worker process per core (``measure_many``, as ``reproscore score -j`` does).

Each is timed several times and the best run is kept, with a warm page cache and, where
the page cache can be dropped (root on Linux), from a cold one: a nightly job reads
trees it has just fetched, but a collection audit reads trees stored long ago. Prints
the ratios; the target is at most 3x. Parsing Python alone (``ast.parse`` of every
module) costs about 15x a warm read of this corpus, so the warm ratio cannot approach
3x; the cold ratio with all cores is the figure the target is checked against.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from scoring import load_rubric, measure_many, score  # noqa: E402
from scoring.parallel import available_cores  # noqa: E402

WORDS = (
    "model data analysis sample result figure table method parameter estimate run "
    "install environment input output pipeline experiment training evaluation seed"
).split()


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def python_module(rng: random.Random, functions: int) -> str:
    lines = ['"""' + _sentence(rng, 8) + '"""', "", "import os", "import numpy as np", "import pandas as pd", ""]
    for i in range(functions):
        lines.append(f"def step_{i}(frame, factor={rng.randint(1, 9)}):")
        if rng.random() < 0.6:
            lines.append(f'    """{_sentence(rng, 6)}"""')
        lines.append(f"    # {_sentence(rng, 5)}")
        lines.append("    values = frame.to_numpy() * factor")
        if rng.random() < 0.2:
            lines.append("    noise = np.random.normal(size=values.shape)")
            lines.append("    values = values + noise")
        lines.append("    for row in range(values.shape[0]):")
        lines.append("        values[row] = values[row] / (1 + row)")
        lines.append(f"    path = os.path.join('results', 'step_{i}.csv')")
        lines.append("    pd.DataFrame(values).to_csv(path)")
        lines.append("    return values")
        lines.append("")
    return "\n".join(lines) + "\n"


def notebook(rng: random.Random, cells: int) -> str:
    out = []
    count = 0
    for i in range(cells):
        if rng.random() < 0.35:
            out.append({"cell_type": "markdown", "metadata": {}, "source": ["## " + _sentence(rng, 4) + "\n", _sentence(rng, 20)]})
            continue
        count += 1
        source = ["import numpy as np\n", "import matplotlib.pyplot as plt\n"] if i == 0 else [
            f"x{i} = np.linspace(0, {rng.randint(2, 50)}, 200)\n",
            f"y{i} = np.sin(x{i}) * {rng.random():.3f}\n",
            f"plt.plot(x{i}, y{i})\n",
        ]
        outputs = []
        if rng.random() < 0.5:
            # Stored outputs (base64 images) are bytes a scanner must not mistake for code.
            outputs.append({"output_type": "display_data", "metadata": {},
                            "data": {"image/png": "iVBORw0KGgo" + "A" * rng.randint(2000, 20000), "text/plain": ["<Figure>"]}})
        out.append({"cell_type": "code", "execution_count": count, "metadata": {}, "outputs": outputs, "source": source})
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {"language_info": {"name": "python"}}, "cells": out}, indent=1)


def readme(rng: random.Random) -> str:
    parts = [f"# Project {rng.randint(1, 9999)}", "", _sentence(rng, 30), ""]
    for heading in rng.sample(["Installation", "Usage", "Data", "Requirements", "Results", "Citation", "License"], 4):
        parts += [f"## {heading}", "", _sentence(rng, rng.randint(10, 60)), ""]
        if heading in ("Installation", "Usage"):
            parts += ["```bash", "pip install -r requirements.txt" if heading == "Installation" else "python run.py --config config.yaml", "```", ""]
    if rng.random() < 0.5:
        parts.append(f"Data: https://doi.org/10.5281/zenodo.{rng.randint(100000, 999999)}")
    return "\n".join(parts) + "\n"


def make_tree(root: Path, rng: random.Random) -> None:
    def write(rel: str, content: str | bytes) -> None:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)

    write("README.md", readme(rng))
    write("requirements.txt", "\n".join(f"{p}=={rng.randint(1, 3)}.{rng.randint(0, 9)}" if rng.random() < 0.5 else p
                                        for p in ("numpy", "pandas", "scipy", "matplotlib", "scikit-learn")) + "\n")
    if rng.random() < 0.3:
        write("Dockerfile", "FROM python:3.11.4-slim\nCOPY . /app\nRUN pip install -r /app/requirements.txt\n")
    if rng.random() < 0.4:
        write("environment.yml", "name: env\nchannels: [conda-forge]\ndependencies:\n  - python=3.11\n  - numpy=1.26.0\n  - pip:\n    - pandas==2.1.0\n")
    package = f"pkg{rng.randint(1, 99)}"
    for i in range(rng.randint(3, 25)):
        write(f"src/{package}/module_{i}.py", python_module(rng, rng.randint(3, 30)))
    write(f"src/{package}/__init__.py", '"""Package."""\n')
    for i in range(rng.randint(0, 3)):
        write(f"tests/test_module_{i}.py", f"from {package}.module_{i} import step_0\n\n\ndef test_step():\n    assert step_0 is not None\n")
    for i in range(rng.randint(0, 6)):
        write(f"notebooks/{i:02d}_analysis.ipynb", notebook(rng, rng.randint(8, 40)))
    if rng.random() < 0.3:
        write("analysis/plots.R", "\n".join(f"x{i} <- rnorm(100)\nplot(x{i})  # {_sentence(rng, 3)}" for i in range(40)) + "\n")
    write("scripts/get_data.sh", "#!/bin/sh\nwget -q https://zenodo.org/records/1/files/data.csv\n")
    for i in range(rng.randint(1, 5)):
        rows = "\n".join(",".join(f"{rng.random():.6f}" for _ in range(8)) for _ in range(rng.randint(200, 3000)))
        write(f"data/table_{i}.csv", "a,b,c,d,e,f,g,h\n" + rows + "\n")
    for i in range(rng.randint(0, 4)):
        write(f"figures/fig_{i}.png", b"\x89PNG\r\n\x1a\n" + rng.randbytes(rng.randint(20_000, 200_000)))
    if rng.random() < 0.3:
        write("docs/paper.pdf", b"%PDF-1.5\n" + rng.randbytes(rng.randint(100_000, 600_000)))
    if rng.random() < 0.2:
        # A committed virtual environment: excluded by the index, still on disk.
        write(".venv/pyvenv.cfg", "home = /usr/bin\n")
        for i in range(30):
            write(f".venv/lib/python3.11/site-packages/dep{i}/__init__.py", python_module(rng, 5))
    if rng.random() < 0.5:
        write(".github/workflows/ci.yml", "on: [push]\njobs:\n  t:\n    runs-on: ubuntu-22.04\n    steps:\n      - run: pytest\n")
    write("LICENSE", "MIT License\n" + _sentence(rng, 40) + "\n")


def build_corpus(root: Path, trees: int, seed: int) -> list[Path]:
    rng = random.Random(seed)
    paths = []
    for i in range(trees):
        tree = root / f"repo_{i:04d}"
        make_tree(tree, rng)
        paths.append(tree)
    return paths


def read_all(paths: list[Path]) -> tuple[int, int]:
    files = total = 0
    for tree in paths:
        for directory, _dirs, names in os.walk(tree):
            for name in names:
                with open(os.path.join(directory, name), "rb") as handle:
                    total += len(handle.read())
                files += 1
    return files, total


def score_all(paths: list[Path], jobs: int = 1) -> list[float]:
    rubric = load_rubric("default")
    scores = []
    for path, measured in measure_many(paths, jobs=jobs):
        if isinstance(measured, BaseException):
            raise RuntimeError(f"{path}: {measured}") from measured
        scores.append(score(measured, rubric).rrs)
    return scores


def best_of(runs: int, func, *args):
    best = float("inf")
    value = None
    for _ in range(runs):
        start = time.perf_counter()
        value = func(*args)
        best = min(best, time.perf_counter() - start)
    return best, value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", type=int, default=200, help="number of generated trees (default 200)")
    parser.add_argument("--seed", type=int, default=1, help="corpus seed")
    parser.add_argument("--runs", type=int, default=3, help="timed runs, best kept")
    parser.add_argument("--keep", metavar="DIR", help="build the corpus in DIR and keep it")
    parser.add_argument("--corpus", metavar="DIR", help="score the trees found in DIR (each subfolder one tree) instead of a generated corpus")
    args = parser.parse_args(argv)
    if args.corpus:
        return report(sorted(p for p in Path(args.corpus).iterdir() if p.is_dir()), args.runs, f"trees of {args.corpus}")
    workdir = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="reproscore-bench-"))
    try:
        if workdir.exists() and args.keep:
            shutil.rmtree(workdir)
        paths = build_corpus(workdir, args.trees, args.seed)
        return report(paths, args.runs, f"generated, seed {args.seed}")
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)


def drop_page_cache() -> bool:
    """Empty the kernel's page cache (root on Linux only); False when not permitted."""
    try:
        os.sync()
        with open("/proc/sys/vm/drop_caches", "w") as handle:
            handle.write("3\n")
        return True
    except OSError:
        return False


def _cold(runs: int, func, *args) -> float | None:
    """Best of ``runs`` timings, each from an empty page cache (as for warm runs, the
    best is kept on both sides of the ratio)."""
    best = None
    for _ in range(runs):
        if not drop_page_cache():
            return None
        start = time.perf_counter()
        func(*args)
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    return best


def report(paths: list[Path], runs: int, label: str) -> int:
    cores = available_cores()
    read_s, (files, total) = best_of(runs, read_all, paths)
    serial_s, scores = best_of(runs, score_all, paths, 1)
    parallel_s, parallel_scores = best_of(runs, score_all, paths, cores)
    if parallel_scores != scores:
        raise SystemExit("parallel scores differ from serial scores")
    cold_read = _cold(runs, read_all, paths)
    cold_serial = _cold(runs, score_all, paths, 1)
    cold_parallel = _cold(runs, score_all, paths, cores)
    print(f"corpus: {len(paths)} trees, {files} files, {total / 1e6:.1f} MB ({label}); {cores} core(s)")
    print(f"{'':36} {'warm (best of ' + str(runs) + ')':>22} {'cold (cache dropped, best of ' + str(runs) + ')':>30}")

    def row(name: str, warm: float, cold: float | None) -> None:
        warm_text = f"{warm:8.3f} s {warm / read_s:7.2f}x"
        cold_text = "not measured (needs root)" if cold is None or cold_read is None else \
            f"{cold:8.3f} s {cold / cold_read:7.2f}x"
        print(f"  {name:34} {warm_text:>22} {cold_text:>30}")

    row("read every file once (baseline)", read_s, cold_read)
    row("measure + score, 1 process", serial_s, cold_serial)
    row(f"measure + score, {cores} processes", parallel_s, cold_parallel)
    print(f"  per tree, 1 process: {1000 * serial_s / len(paths):.1f} ms warm")
    if cold_parallel is not None and cold_read is not None:
        ratio = cold_parallel / cold_read
        print(f"target: scorer <= 3x reading the files (cold, all cores): {ratio:.2f}x -> {'PASS' if ratio <= 3 else 'FAIL'}")
    else:
        print("target: checked from a cold page cache, which needs root here; not checked")
    print(f"mean RRS: {sum(scores) / len(scores):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
