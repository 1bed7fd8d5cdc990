"""D5 execution_entry_point: there is one obvious way to start the analysis."""

from __future__ import annotations

import re

from scoring.detectors.documentation._common import (
    _PYTHON_PROGRAM,
    FAMILIES,
    MAX_EVIDENCE,
    DocLine,
    _file_line,
    _name,
    _python_target,
    compiled_sources,
    console_script_target_missing,
    console_scripts,
    doc_lines,
    runnable_commands,
    task_runners,
)
from scoring.model import Evidence
from scoring.parsers.markdown import Document
from scoring.parsers.native_build import native_build_kind
from scoring.registry import Result, detector
from scoring.tree import TreeIndex

_RUN_FAMILY = FAMILIES[1]

_ENTRY_SCRIPT = re.compile(r"(?:run|run[_-]?all|start|execute|main)\.(?:sh|py|r|jl|m|bat)", re.IGNORECASE)
# A targets pipeline (R) runs with targets::tar_make(); a Comonicon.toml builds a Julia
# package's console command (METRICS §0.3 D5)
_PIPELINE_FILES = {"_targets.r": "targets pipeline (_targets.R)", "comonicon.toml": "Julia console command (Comonicon)"}
_ENTRY_TARGETS = frozenset({"run", "all", "execute", "analysis", "main", "reproduce"})
_WORKFLOW_FILE = re.compile(r"snakefile|main\.nf", re.IGNORECASE)


def _documented_main_modules(tree: TreeIndex, doc: Document | None) -> list[tuple[DocLine, str]]:
    """README ``python -m pkg`` lines whose package has a ``__main__.py``."""
    if doc is None:
        return []
    found = []
    for line in doc_lines(doc):
        for cmd in line.commands:
            if not _PYTHON_PROGRAM.fullmatch(cmd.program.lower()):
                continue
            target = _python_target(cmd.args)
            if target is None or target[0] != "module":
                continue
            package = target[1].replace(".", "/")
            main = next((p for p in (f"{package}/__main__.py", f"src/{package}/__main__.py") if tree.is_file(p)), None)
            if main:
                found.append((line, main))
    return found


# a compiler or linker writing the target: `$(CC) … -o $@`, `gfortran … -o $@`
_LINKS_TARGET_RE = re.compile(
    r"(?:\$[({](?:CC|CXX|FC|F77|F90|LD|LINK\w*)[)}]|\b(?:g?cc|g\+\+|clang\+\+|clang|gfortran|ifort|ifx|icc|icpc|"
    r"mpicc|mpicxx|mpif90|nvcc|ld)(?![\w+-])).*\s-o\s*\$@(?!\S)")


def _documented_native_programs(tree: TreeIndex, doc: Document | None) -> list[Evidence]:
    """CMake executables (``add_executable``, a literal ``OUTPUT_NAME``) and Makefile
    targets whose recipe links the target (``$(CC) … -o $@``) that a README command runs
    (METRICS §0.3 native D5): the build's program is the entry point."""
    if doc is None:
        return []
    declared: dict[str, tuple[str, int]] = {}
    for path in tree.files:
        kind = native_build_kind(path)
        if kind not in ("cmake", "make") or tree.role(path) == "vendored":
            continue
        if kind == "make":
            # a target whose recipe links its own name: `bwa: … main.o` then `$(CC) … -o $@`
            for target in tree.task_targets(path):
                if any(_LINKS_TARGET_RE.search(command.replace(target.name, "$@")) for _, command in target.recipe):
                    declared.setdefault(target.name, (path, target.line))
            continue
        build = tree.native_build(path)
        for program in build.executables if build is not None else ():
            declared.setdefault(program.name, (path, program.line))
    if not declared:
        return []
    for line in doc_lines(doc):
        for cmd in line.commands:
            name = cmd.program.rsplit("/", 1)[-1]
            if name in declared:
                path, number = declared[name]
                return [Evidence(path, f"the build declares the program {name}, which {line.path} runs"
                                       + (f" at line {line.line}" if line.line else ""),
                                 rule="execution_entry_point.native_program", line_start=number, snippet=name)]
    return []


@detector("execution_entry_point", version="2.3.0")
def execution_entry_point(tree: TreeIndex) -> Result:
    """There is one obvious way to start the analysis.

    What it checks:
        100: a top-level script named run, run_all (runall), start, execute or main
        (.sh, .py, .R, .jl, .m, .bat; any case: MATLAB's main.m too); a top-level
        _targets.R (an R targets pipeline) or Comonicon.toml (a Julia package's console
        command); a package __main__.py whose `python -m` is documented
        in the README; a declared console script ([project.scripts],
        [tool.poetry.scripts], setup.py/setup.cfg console_scripts); a target run, all,
        execute, analysis, main or reproduce in a Make-like file (Makefile, makefile,
        GNUmakefile, justfile, Taskfile.yml, tasks.py, dodo.py at the root or an
        environment location); a top-level Snakefile (or workflow/Snakefile) or main.nf;
        a program a CMake build declares (``add_executable``, a literal ``OUTPUT_NAME``)
        that a README command runs (``./raxml-ng --msa …``; §0.3 native D5, 2.2.0), or a
        Makefile target whose recipe links its own name (``bwa: … main.o`` then
        ``$(CC) … -o $@``) that a README command runs (``bwa index ref.fa``; 2.3.0). A
        console script whose function its module (found in the tree) neither defines
        nor imports is no entry point (2.2.0).
        80: a README heading of the run family of doc_structure (usage, run, quick
        start, how to use, …) or a runnable README command as in usage_examples (make
        in a deposit with C/C++/Fortran sources builds the program and is not one). 0
        otherwise.
    Why it matters:
        A re-user needs to know where execution starts; a conventional entry point or a
        documented run command saves them from guessing which of many scripts to run.
    Evidence:
        The entry-point script, the Make-like target line, the console-script
        declaration, the workflow file; or the README heading or command line.
    How to fix:
        Add a top-level run.sh (or a `make all`/`run` target) that runs the whole
        analysis, and document it under a "## Usage" heading.
    Known false positives:
        A main.py or `all:` target that only builds documentation or a library still
        counts; the content of the entry point is not checked. A console script of a
        library counts although it may not reproduce any result.
    """
    evidence: list[Evidence] = []
    for path in tree.files_in(""):
        if _ENTRY_SCRIPT.fullmatch(_name(path)):
            evidence.append(Evidence(path, "conventional entry-point script", rule="execution_entry_point.script"))
        elif _WORKFLOW_FILE.fullmatch(_name(path)):
            evidence.append(Evidence(path, "workflow entry file", rule="execution_entry_point.workflow"))
        elif _name(path).lower() in _PIPELINE_FILES:
            evidence.append(Evidence(path, _PIPELINE_FILES[_name(path).lower()], rule="execution_entry_point.pipeline"))
    workflow_snakefile = tree.find_ci("snakefile", "workflow") if tree.is_dir("workflow") else None
    if workflow_snakefile:
        evidence.append(Evidence(workflow_snakefile, "workflow entry file", rule="execution_entry_point.workflow"))
    for path in tree.make_like_files():
        for target in tree.task_targets(path):
            if target.name.lower() in _ENTRY_TARGETS:
                evidence.append(Evidence(path, f"task target '{target.name}'", rule="execution_entry_point.make_target",
                                         line_start=target.line, snippet=f"{target.name}:"))
    # a console script whose function its module neither defines nor imports cannot run
    scripts = [s for s in console_scripts(tree) if not console_script_target_missing(tree, s)]
    for script in scripts:
        evidence.append(Evidence(script.path, f"console script '{script.name}'",
                                 rule="execution_entry_point.console_script", line_start=script.line,
                                 snippet=script.name))
    doc = tree.readme_document()
    evidence += _documented_native_programs(tree, doc)
    for line, main in _documented_main_modules(tree, doc):
        evidence.append(Evidence(line.path, f"documented `python -m` of {main}", rule="execution_entry_point.main_module",
                                 line_start=line.line, snippet=line.text))
    counts = {"entry_points": len(evidence)}
    if evidence:
        return Result(100, evidence=evidence[:MAX_EVIDENCE], counts=counts,
                      reason=f"{len(evidence)} entry point(s); first: {evidence[0].path}")
    fix = ("Add a top-level run.sh (or a Makefile `all` target) that runs the whole analysis "
           "and document it under a README '## Usage' heading.")
    if doc is not None:
        headings = [h for h in doc.headings if _RUN_FAMILY.matches(h.text)]
        commands = runnable_commands(doc, frozenset(s.name for s in scripts), builds=compiled_sources(tree),
                                     runners=task_runners(tree))
        readme_evidence = [Evidence(doc.path, f"run section heading '{h.text}'", rule="execution_entry_point.readme_heading",
                                    line_start=_file_line(doc, h.line), snippet=h.text) for h in headings[:5]]
        readme_evidence += [Evidence(r.line.path, "runnable README command", rule="execution_entry_point.readme_command",
                                     line_start=r.line.line, snippet=r.line.text) for r in commands[:5]]
        counts.update({"run_headings": len(headings), "runnable_commands": len(commands)})
        if readme_evidence:
            return Result(80, evidence=readme_evidence, fix=fix, counts=counts,
                          reason="the README documents how to run, but there is no conventional entry point")
    return Result(0, evidence=[], fix=fix, counts=counts, reason="no entry point and no run instructions")
