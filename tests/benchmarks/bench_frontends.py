"""Frontend throughput: MB/s of source read into facts, per frontend, and the cost of
extracting facts against parsing alone.

Synthetic sources are generated here (a template per language, repeated with fresh
names up to about 1 MB); real files are read from ``/work/corpus`` (or the folder given
with ``--corpus``) when it exists, at most ``--cap-mb`` per frontend, and never copied.
Each figure is the best of ``--repeat`` runs of parse + walk + facts, in one process;
``parse s`` is the best of as many runs of the parse alone, of exactly what the frontend
parses (``parse_inputs``), and ``x parse`` is extract over parse (issue #15's frontends
aim at 1.4x; ``tests/benchmarks/frontend_facts_diff.py --timing`` gives the same ratio
over every corpus file, with the make-bench floor beside it). For Python, the cost of
each stage is printed against ``ast.parse`` of the same files (process time, garbage
collector as ``extract`` runs it): the one walk, the comment scan, and building plus
redacting the facts.

    .venv/bin/python tests/benchmarks/bench_frontends.py
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from scoring.frontends import FRONTENDS, _common, frontend_for, frontend_name  # noqa: E402

TEMPLATES = {
    "python": ("x.py", '''import numpy as np
from pathlib import Path


def fit_{i}(data, k={i}):
    """Fit model {i}."""
    rng = np.random.default_rng({i})
    draws = rng.normal(size=k)
    try:
        frame = np.loadtxt("data/in_{i}.csv", delimiter=",")
    except OSError:
        pass  # no data yet
    Path("out/fit_{i}.txt").write_text(str(draws.mean()))
    return {{"model": "fit_{i}", "k": k, "mean": float(frame.mean())}}


'''),
    "r": ("x.R", """#' Fit model {i}
#' @export
fit_{i} <- function(data, k = {i}) {{
  set.seed({i})
  draws <- runif(k)
  res <- tryCatch(read.csv("data/in_{i}.csv"), error = function(e) NULL)
  stats::lm(y ~ x, data = data)  # linear fit
}}
library(pkg{i})
"""),
    "julia": ("x.jl", '''"""
    fit_{i}(x)

Fit model {i}.
"""
function fit_{i}(x; k={i})
    rng = MersenneTwister({i})
    y = rand(rng, k)
    try
        risky(x)
    catch
    end
    return y .+ x  # shift
end
using Pkg{i}
'''),
    "matlab": ("x.m", """function out = fit_{i}(x, k)
%FIT_{i} Fit model {i}.
rng({i});
y = rand(k, 1);
try
    z = risky(x);
catch
end
out = y + x; % shift
end
"""),
    "c_cpp": ("x.cpp", """#include <random>
/// Fit model {i}.
double fit_{i}(double x) {{
    std::mt19937 gen({i});
    std::uniform_real_distribution<double> dist(0.0, 1.0);
    FILE *fp = fopen("data/in_{i}.txt", "r");
    try {{ step(x); }} catch (...) {{}}
    return dist(gen) + x;  // shift
}}
"""),
    "fortran": ("x.f90", """!> Fit model {i}
module fit_{i}
  use iso_fortran_env
contains
  subroutine draw_{i}(x)
    real, intent(out) :: x(:)
    integer :: seed(8)
    seed = {i}
    call random_seed(put=seed)
    call random_number(x)
  end subroutine draw_{i}
end module fit_{i}
"""),
    "nextflow": ("x.nf", """include {{ STEP_{i} }} from './modules/step_{i}'
// Step {i}
process P_{i} {{
    container 'quay.io/biocontainers/tool:{i}.0'
    publishDir "${{params.outdir}}/p_{i}", mode: 'copy'
    input:
    path reads
    output:
    path "out_{i}.txt"
    script:
    \"\"\"
    tool --seed {i} $reads > out_{i}.txt
    \"\"\"
}}
"""),
    "snakemake": ("Snakefile", '''# Step {i}
rule step_{i}:
    """Step {i}."""
    input: "data/{{sample}}_{i}.fq"
    output: "results/{{sample}}_{i}.txt"
    conda: "envs/step_{i}.yaml"
    threads: 4
    shell:
        "tool --seed {i} {{input}} > {{output}}"

'''),
}


def synthetic(frontend: str, target_bytes: int) -> tuple[str, bytes]:
    name, template = TEMPLATES[frontend]
    chunks, size, index = [], 0, 0
    while size < target_bytes:
        chunk = template.format(i=index).encode()
        chunks.append(chunk)
        size += len(chunk)
        index += 1
    return name, b"".join(chunks)


def corpus_files(root: Path, cap_bytes: int) -> dict[str, list[tuple[str, bytes]]]:
    found: dict[str, list[tuple[str, bytes]]] = {name: [] for name in FRONTENDS}
    taken = dict.fromkeys(FRONTENDS, 0)
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in (".git", "node_modules", "renv", ".snakemake"))
        for file_name in sorted(files):
            path = Path(folder, file_name)
            relative = path.relative_to(root).as_posix()
            frontend = frontend_name(relative)
            if frontend is None or taken[frontend] >= cap_bytes or path.is_symlink():
                continue
            try:
                size = path.stat().st_size
                if size > 2 * 1024 * 1024:
                    continue
                data = path.read_bytes()
            except OSError:
                continue
            if b"\x00" in data[:8192]:
                continue   # binary content (joblib pickles named *.jl): TreeIndex never parses it
            found[frontend].append((relative, data))
            taken[frontend] += len(data)
    return found


def parse_inputs(relative: str, frontend: str, data: bytes) -> list:
    """What the frontend parses for this file, as zero-argument callables that parse it:
    the inputs it hands to ``_common.parse`` (an ``.Rmd``'s R chunks, a fixed-form
    Fortran file rewritten to free form), found by extracting once; for Python, each
    source (a notebook's code cells) it hands to ``parse_source``; for Snakemake, its
    rewrite into Python and ``ast.parse``."""
    if frontend == "snakemake":
        from scoring.frontends.snakemake import _Rewriter

        def parse_snakefile():
            rewritten = _Rewriter(data.decode("utf-8", "replace"))
            rewritten.run()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    ast.parse(rewritten.source())
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                pass
        return [parse_snakefile]
    if frontend == "python":
        from scoring.frontends import python

        sources, parse_source = [], python.parse_source

        def recording_parse_source(source):
            sources.append(source)
            return parse_source(source)

        python.parse_source = recording_parse_source
        try:
            python.extract(data, relative)
        finally:
            python.parse_source = parse_source
        return [lambda source=source: parse_source(source) for source in sources]
    recorded = []
    original = _common.parse

    def recording_parse(source, language):
        recorded.append((source, language))
        return original(source, language)

    _common.parse = recording_parse
    try:
        frontend_for(relative).extract(data, relative)
    finally:
        _common.parse = original
    return [lambda source=source, language=language: original(source, language)
            for source, language in recorded]


def time_files(files: list[tuple[str, bytes]], repeat: int) -> tuple[float, float, int, int]:
    """(extract s, parse-only s, bytes, files with a parse error), each time the best of
    ``repeat`` runs over all the files."""
    parses = [parse for path, data in files for parse in parse_inputs(path, frontend_name(path), data)]
    best = parse_best = float("inf")
    errors = 0
    for _ in range(repeat):
        errors = 0
        start = time.perf_counter()
        for path, data in files:
            if frontend_for(path).extract(data, path).parse_error:
                errors += 1
        best = min(best, time.perf_counter() - start)
        start = time.perf_counter()
        for parse in parses:
            parse()
        parse_best = min(parse_best, time.perf_counter() - start)
    return best, parse_best, sum(len(data) for _, data in files), errors


def python_stages(files: list[tuple[str, bytes]], repeat: int) -> str:
    """Parse, walk, comment scan and facts (with redaction) of the ``.py`` files, each
    summed over the files; the best of ``repeat`` runs."""
    import gc

    from scoring.frontends import python

    clock = time.process_time
    texts = [python.decode(data) for path, data in files if path.endswith((".py", ".pyw"))]
    best = None
    for _ in range(repeat):
        totals = [0.0, 0.0, 0.0, 0.0]
        for text in texts:
            gc.disable()
            try:
                start = clock()
                try:
                    tree = python.parse_source(text)
                except python.PARSE_ERRORS:
                    continue
                parsed = clock()
                walker = python._Walker()
                walker.source = text
                docstrings = walker.walk(tree)
                walked = clock()
                walker.scan_comments(text, docstrings)
                scanned = clock()
                walker.finish(0)
                finished = clock()
            finally:
                gc.enable()
            for index, seconds in enumerate((parsed - start, walked - parsed, scanned - walked, finished - scanned)):
                totals[index] += seconds
        if best is None or sum(totals) < sum(best):
            best = totals
    parse, walk, comments, facts = best
    return (f"python stages over {len(texts)} .py files: ast.parse {parse:.3f} s, walk {walk:.3f} s "
            f"({walk / parse:.2f}x), comments {comments:.3f} s ({comments / parse:.2f}x), facts and redaction "
            f"{facts:.3f} s ({facts / parse:.2f}x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--synthetic-kb", type=int, default=1024)
    parser.add_argument("--corpus", type=Path, default=Path("/work/corpus"))
    parser.add_argument("--cap-mb", type=float, default=8.0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    rows = []
    for frontend in FRONTENDS:
        # warm the grammar so loading it is not timed
        name, data = synthetic(frontend, 1)
        frontend_for(name).extract(data, name)
        name, data = synthetic(frontend, args.synthetic_kb * 1024)
        seconds, parse_seconds, size, errors = time_files([(name, data)], args.repeat)
        rows.append((frontend, "synthetic", 1, size, seconds, parse_seconds, errors))
    stages = ""
    if args.corpus.is_dir():
        for frontend, files in corpus_files(args.corpus, int(args.cap_mb * 1024 * 1024)).items():
            if files:
                seconds, parse_seconds, size, errors = time_files(files, 1)
                rows.append((frontend, "corpus", len(files), size, seconds, parse_seconds, errors))
                if frontend == "python":
                    stages = python_stages(files, args.repeat)

    print(f"{'frontend':<10} {'source':<9} {'files':>6} {'MB':>7} {'s':>7} {'MB/s':>7} {'parse s':>8} "
          f"{'x parse':>8} {'parse errors':>13}")
    for frontend, source, count, size, seconds, parse_seconds, errors in rows:
        megabytes = size / 1e6
        print(f"{frontend:<10} {source:<9} {count:>6} {megabytes:>7.2f} {seconds:>7.2f} "
              f"{megabytes / seconds:>7.2f} {parse_seconds:>8.2f} {seconds / parse_seconds:>8.2f} "
              f"{errors:>6} ({errors / count:.0%})")
    if stages:
        print(stages)


if __name__ == "__main__":
    main()
