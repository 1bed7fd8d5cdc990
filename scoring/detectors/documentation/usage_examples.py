"""D3 usage_examples: the README shows a runnable command, or at least a code example."""

from __future__ import annotations

import re

from scoring.detectors._shared import (
    JULIA,
    MATLAB,
    NATIVE,
    NEXTFLOW,
    PYTHON,
    SNAKEMAKE,
    R,
    fix_ecosystem,
)
from scoring.detectors.documentation._common import (
    MAX_EVIDENCE,
    _file_line,
    _name,
    compiled_sources,
    console_scripts,
    doc_lines,
    native_programs,
    own_package,
    runnable_commands,
    task_runners,
)
from scoring.model import Evidence
from scoring.parsers.markdown import CodeBlock
from scoring.registry import Result, detector
from scoring.tree import TreeIndex

_EXAMPLE_DIRS = frozenset({"examples", "example", "demos", "demo", "tutorials", "tutorial", "vignettes"})


_CITATION_INFO = frozenset({"bibtex", "bib", "biblatex"})
_BIBTEX_ENTRY = re.compile(r"\s*@\w+\s*[{(]")


def _is_citation(block: CodeBlock) -> bool:
    """A BibTeX entry shows how to cite the work, never how to use it (METRICS §0.3)."""
    if block.info.strip().lower() in _CITATION_INFO:
        return True
    first = next((line for line in block.text.splitlines() if line.strip()), "")
    return bool(_BIBTEX_ENTRY.match(first))


def _example_dirs(tree: TreeIndex) -> list[str]:
    return [d for d in tree.subdirs("") if _name(d).lower() in _EXAMPLE_DIRS and tree.files_under(d)]


# the command a fix shows, in the deposit's own ecosystem (METRICS.md §0.3)
_FIX_COMMANDS = {
    PYTHON: "python main.py --config config.yaml",
    R: "Rscript run_all.R",
    JULIA: "julia --project main.jl",
    MATLAB: 'matlab -batch "main"',
    NATIVE: "./build/<program> input.txt",
    NEXTFLOW: "nextflow run main.nf -profile docker --input samplesheet.csv",
    SNAKEMAKE: "snakemake --use-conda --cores 4",
}



def _fix(tree: TreeIndex) -> str:
    ecosystem = fix_ecosystem(tree)
    package = own_package(tree, ecosystem)
    if package and ecosystem == R:
        return ("Add a README code block with a command that runs the package, e.g. "
                f"`Rscript -e 'library({package}); example(<function>)'`.")
    if package and ecosystem == JULIA:
        return f"Add a README code block with a command that runs the package, e.g. `julia --project -e 'using {package}; …'`."
    if package and ecosystem == MATLAB:
        # a toolbox (:func:`matlab_toolbox`): its folder goes on the path, then a call of it
        folder = "<path to the toolbox>" if package == "." else package
        return ("Add a README code block with a command that runs the toolbox, e.g. "
                f"`matlab -batch \"addpath('{folder}'); <function>(…)\"`.")
    if package:
        return ("Add a README code block with a command that runs the package, e.g. `python examples/quickstart.py` "
                f"or `python -m {package}` (a __main__.py) or its console script.")
    return f"Add a README code block with the exact command that runs the analysis, e.g. `{_FIX_COMMANDS[ecosystem]}`."


_EXAMPLE_FILES_SHOWN = 3
# what an examples folder shows a reader: code, notebooks and documents (not data or images)
_EXAMPLE_SUFFIXES = (".py", ".ipynb", ".r", ".rmd", ".qmd", ".jl", ".m", ".sh", ".md", ".rst", ".txt", ".nf",
                     ".smk", ".c", ".cpp", ".f90")


def _example_files(tree: TreeIndex, directory: str) -> list[str]:
    return [p for p in tree.files_under(directory) if p.lower().endswith(_EXAMPLE_SUFFIXES)]


@detector("usage_examples", version="2.6.0")
def usage_examples(tree: TreeIndex) -> Result:
    """The README shows a runnable command, or at least a code example.

    What it checks:
        Code blocks of the root README (fenced with backticks or tildes, indented, RST
        literal and code-block), the lines of its prose that start with a shell prompt
        ($ or %) in a list item, a blockquote or a plain-text README (METRICS §0.2.10,
        2.2.0) and the lines that hold nothing but one inline code span (a one-line code
        display: `` `nextflow run lab/pipe --input x` `` as a paragraph of its own); inline
        code inside a sentence or a list item is no command line (2.4.0, D3 V2: "a block
        line is a runnable invocation");
        console prompts ($, %, >, !) stripped, and in a
        ```matlab/```octave block the `>>` prompt, its `%` comment lines being no lines
        (2.3.0). 100: a line is
        a runnable invocation — python/python3/py (lower case, as a shell names it) with a
        script or -m, the script a file path, never a version (`Python (3.7.5)` in a
        version list runs nothing, 2.6.0), bash/sh/zsh with
        a script, ./script, Rscript, R CMD BATCH, julia, make (with a target, or bare),
        task / just (Taskfile, justfile), snakemake, nextflow run, jupyter nbconvert
        --execute / jupyter execute, papermill, docker/podman run,
        singularity/apptainer run|exec, a console script declared in
        [project.scripts], [tool.poetry.scripts] or setup.py/setup.cfg entry points;
        2.2.0 (§0.3): MATLAB `matlab -batch "…"` / `matlab -r "…"` and Octave `octave
        x.m` / `octave --eval "…"` that run more than set-up (setup, startup, addpath,
        cd, matlab.addons.*, pkg, exit), `fpm run`, and a program the build declares
        (CMake add_executable, renamed by a literal OUTPUT_NAME in either spelling,
        `set_target_properties(t PROPERTIES OUTPUT_NAME x)` or `set_property(TARGET t
        PROPERTY OUTPUT_NAME x)`, 2.5.0; a Makefile target linking its own name, fpm
        [[executable]] or app/ programs) run by its name (`bwa index ref.fa`; a Makefile
        target written as a variable, `$(TARGET)` with `TARGET = bin/tool`, is expanded
        and run by its path or its base name, `bin/tool -h`, `tool in.txt`, 2.4.0). Install
        and bootstrap commands (setup.py, python -m pip|venv|ensurepip|build|twine,
        `python -m <module> install|setup|register|develop` such as `python -m
        ipykernel install --user`, make install|setup|env, install- or bootstrap-named
        scripts) never count, nor, in a deposit with C/C++/Fortran sources, make (it
        builds the program), nor a make on a line that also runs make install (`make &&
        make install`: a build and its install, in any deposit) (METRICS §0.2.11). 60:
        any code block (>>> REPL examples included) but a BibTeX citation entry. 30: a
        non-empty top-level examples/example/demos/demo/tutorials/tutorial/vignettes
        directory. 0 otherwise; the maximum wins.
    Why it matters:
        A copy-pasteable command tells the re-user exactly how the analysis is started;
        without it they must reverse-engineer the entry point and its arguments.
    Evidence:
        README line of each runnable command (up to 20); otherwise the line range of
        the first code block, a fenced block from its opening fence to its closing one
        (2.2.0); otherwise the examples directory and its first three example files
        (code, notebooks, documents). ``counts`` has the number of code blocks,
        runnable commands, REPL lines and example directories.
    How to fix:
        Add a README code block with the exact command that runs the analysis, in the
        deposit's own ecosystem (2.2.0, METRICS §0.3): `python main.py --config
        config.yaml`, `Rscript run_all.R`, `julia --project main.jl`, `matlab -batch
        "main"`, the built program (`./build/<program> input.txt`), `nextflow run main.nf
        -profile docker`, `snakemake --use-conda --cores 4`; a package (an R package with
        R/, a Julia package with src/<name>.jl, a Python distribution whose import
        package is in the tree, a MATLAB toolbox whose code is function and class files
        only with no top-level main.m/run_all.m, 2.3.0) runs an example of itself
        (`Rscript -e 'library(<Package>); example(<function>)'`, `julia --project -e
        'using <Package>; …'`, `python -m <package>` or its console script, `matlab
        -batch "addpath('<toolbox folder>'); <function>(…)"`).
    Known false positives:
        A runnable command counts even when it runs a demo unrelated to the paper, or
        names a script that does not exist (existence is not checked). A bare `make`
        counts although the default target might only compile code. A line holding
        only an inline code span counts even if it names a file rather than showing a
        command (it rarely parses as a runnable one). A prose line
        starting with "$ " or "% " is read as a command even when it is a sum of money
        or a LaTeX comment (it rarely parses as a runnable one).
    """
    scripts = frozenset(s.name for s in console_scripts(tree))
    doc = tree.readme_document()
    example_dirs = _example_dirs(tree)
    programs = frozenset(native_programs(tree)) if doc is not None else frozenset()
    runnable = runnable_commands(doc, scripts, builds=compiled_sources(tree), runners=task_runners(tree),
                                 programs=programs) if doc is not None else []
    blocks = [b for b in doc.code_blocks if not _is_citation(b)] if doc is not None else []
    repl_lines = sum(1 for line in doc_lines(doc) if line.repl) if doc is not None else 0
    counts = {"code_blocks": len(blocks), "runnable_commands": len(runnable), "repl_lines": repl_lines,
              "example_dirs": len(example_dirs)}
    fix = _fix(tree)
    if runnable:
        evidence = [Evidence(r.line.path, "runnable command", rule=r.rule, line_start=r.line.line, snippet=r.line.text)
                    for r in runnable[:MAX_EVIDENCE]]
        return Result(100, evidence=evidence, reason=f"{len(runnable)} runnable command(s) in the README",
                      counts=counts)
    if blocks:
        first = blocks[0]
        start, end = first.span   # a fenced block from its opening fence to its closing one
        evidence = [Evidence(doc.path, "code block without a runnable command", rule="usage_examples.code_block",
                             line_start=_file_line(doc, start), line_end=_file_line(doc, max(start, end)),
                             snippet=first.text.splitlines()[0] if first.text.strip() else None)]
        return Result(60, evidence=evidence, reason="the README has code blocks but no runnable command",
                      fix=fix, counts=counts)
    if example_dirs:
        evidence = [Evidence(d, "non-empty examples directory", rule="usage_examples.examples_dir")
                    for d in example_dirs]
        # what a reader opens there: the first few example files of each folder
        evidence += [Evidence(p, f"example in {d}/", rule="usage_examples.example_file")
                     for d in example_dirs for p in _example_files(tree, d)[:_EXAMPLE_FILES_SHOWN]]
        return Result(30, evidence=evidence, reason="an examples directory exists but the README shows no code",
                      fix=fix, counts=counts)
    reason = "no README" if doc is None else "the README has no code block and there is no examples directory"
    return Result(0, evidence=[], reason=reason, fix=fix, counts=counts)
