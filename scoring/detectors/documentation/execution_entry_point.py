"""D5 execution_entry_point: there is one obvious way to start the analysis."""

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
    MODULE_SETUP_ACTIONS,
    DocLine,
    _file_line,
    _name,
    _python_target,
    _runnable,
    _stem,
    compiled_sources,
    console_script_target_missing,
    console_scripts,
    doc_lines,
    fpm_executables,
    native_programs,
    own_package,
    project_names,
    run_heading,
    runnable_commands,
    runs_python,
    section_headings,
    task_runners,
)
from scoring.model import Evidence
from scoring.parsers.markdown import Document
from scoring.parsers.shell import Command, split_commands
from scoring.parsers.tasks import Target
from scoring.registry import Result, detector
from scoring.tree import TreeIndex

_ENTRY_SCRIPT = re.compile(r"(?:run|run[_-]?all|start|execute|main)\.(?:sh|py|r|jl|m|bat)", re.IGNORECASE)
# A targets pipeline (R) runs with targets::tar_make(), a drake one (_drake.R) with
# drake::r_make(); a Comonicon.toml builds a Julia package's console command (METRICS §0.3 D5)
_PIPELINE_FILES = {"_targets.r": "targets pipeline (_targets.R)", "_drake.r": "drake pipeline (_drake.R)",
                   "comonicon.toml": "Julia console command (Comonicon)"}
_ENTRY_TARGETS = frozenset({"run", "all", "execute", "analysis", "main", "reproduce"})
_WORKFLOW_FILE = re.compile(r"snakefile|main\.nf", re.IGNORECASE)

# A recipe that only builds (METRICS §0.2.11): make recursing into itself, and the
# scripts that configure or compile a build (./configure, ./autogen.sh, build.sh)
_MAKE_PROGRAMS = frozenset({"make", "gmake", "$(make)", "${make}"})
_BUILD_SCRIPT_STEM = re.compile(r"configure|autogen|bootstrap|build(?:[_-]\w+)?|compile(?:[_-]\w+)?|make",
                                re.IGNORECASE)
# a recipe's program given by a variable the file does not assign: `$(PYTHON) run.py`
# runs Python when the variable is named after the interpreter
_PROGRAM_VARIABLE = re.compile(r"\$[({]([A-Za-z_]\w*)[)}]")
_INTERPRETER_VARIABLES = frozenset({"python", "python3", "rscript", "julia", "matlab", "octave", "snakemake",
                                    "nextflow", "jupyter", "papermill", "bash", "sh", "docker"})


def _recipe_command(cmd: Command) -> Command:
    """A recipe command whose program is an unassigned interpreter variable, as that
    interpreter (`$(PYTHON) run.py` → `python run.py`)."""
    variable = _PROGRAM_VARIABLE.fullmatch(cmd.words[0]) if cmd.words else None
    if variable and variable.group(1).lower() in _INTERPRETER_VARIABLES:
        return Command((variable.group(1).lower(), *cmd.words[1:]), cmd.text, cmd.piped_from)
    return cmd


def _runs_something(target: Target, scripts: frozenset[str], runners: frozenset[str],
                    programs: frozenset[str]) -> tuple[int, str] | None:
    """(line, command) of the first command of ``target``'s recipe that runs a program
    the build produced (`./prog in.txt`, a program the build declares) or an analysis
    script (`python run.py`, `Rscript -e 'knitr::knit(…)'`, `snakemake`, …: what a README
    command must run to be usage, :func:`_runnable`), or None. Compiling, linking,
    archiving, copying, installing, recursing into make and running a configure or build
    script run nothing (METRICS §0.2.11)."""
    for line, text in target.recipe:
        for cmd in split_commands(target.expand(text)):
            cmd = _recipe_command(cmd)
            if not cmd.words or cmd.program.lower() in _MAKE_PROGRAMS or cmd.words[0].lower() in _MAKE_PROGRAMS:
                continue
            script = cmd.words[0] if cmd.words[0].startswith(("./", "../")) else None
            if script is not None and _BUILD_SCRIPT_STEM.fullmatch(_stem(script)):
                continue
            if _runnable(cmd, scripts, runners=runners, programs=programs) is not None:
                return line, text
    return None


def _pattern_matches(pattern: str, name: str) -> bool:
    """Whether a Make pattern rule's target (`figures/%.ipynb`) matches ``name``."""
    head, _, tail = pattern.partition("%")
    return len(name) > len(head) + len(tail) and name.startswith(head) and name.endswith(tail)


def _entry_target_run(targets: list[Target], target: Target, scripts: frozenset[str], runners: frozenset[str],
                      programs: frozenset[str]) -> tuple[int, str] | None:
    """What an entry-named target runs: the first running command (:func:`_runs_something`)
    of its recipe or of the recipes of the targets it depends on, followed through the
    whole file (by name, pattern rules `%` included); when a prerequisite is a variable
    that does not expand to names (`all: $(targets)` with `targets := $(patsubst …)`),
    the recipes of the whole file stand in for what it names. None: the target only
    builds, an `all:` that compiles and links (§0.2.11)."""
    by_name: dict[str, list[Target]] = {}
    for candidate in targets:
        by_name.setdefault(candidate.name, []).append(candidate)
        if "$" in candidate.name:   # `$(PROG): main.o` is the rule of what PROG names
            by_name.setdefault(candidate.expand(candidate.name), []).append(candidate)
    patterns = [t for t in targets if "%" in t.name]
    queue, seen, unresolved = [target], {id(target)}, False
    while queue:
        current = queue.pop(0)
        ran = _runs_something(current, scripts, runners, programs)
        if ran is not None:
            return ran
        for name in current.prerequisites + current.variable_prerequisites:
            if "$" in name:
                unresolved = True
                continue
            for follow in by_name.get(name) or [t for t in patterns if _pattern_matches(t.name, name)]:
                if id(follow) not in seen:
                    seen.add(id(follow))
                    queue.append(follow)
    if unresolved:
        return next((ran for other in targets if (ran := _runs_something(other, scripts, runners, programs))), None)
    return None


def _documented_main_modules(tree: TreeIndex, doc: Document | None) -> list[tuple[DocLine, str]]:
    """README ``python -m pkg`` lines whose package has a ``__main__.py``."""
    if doc is None:
        return []
    found = []
    for line in doc_lines(doc):
        for cmd in line.commands:
            if not runs_python(cmd.program):
                continue
            target = _python_target(cmd.args)
            if target is None or target[0] != "module" or target[2][:1] and target[2][0] in MODULE_SETUP_ACTIONS:
                continue
            package = target[1].replace(".", "/")
            main = next((p for p in (f"{package}/__main__.py", f"src/{package}/__main__.py") if tree.is_file(p)), None)
            if main:
                found.append((line, main))
    return found


def _documented_native_programs(tree: TreeIndex, doc: Document | None) -> list[Evidence]:
    """A program the build declares (:func:`native_programs`: CMake ``add_executable``,
    a Makefile target linking its own name, fpm ``[[executable]]`` or ``app/`` programs)
    that a README command runs, by name (``./raxml-ng --msa …``, ``bwa index ref.fa``)
    or through ``fpm run`` (METRICS §0.3 native D5): the build's program is the entry
    point."""
    if doc is None:
        return []
    declared = native_programs(tree)
    if not declared:
        return []
    fpm = fpm_executables(tree)
    for line in doc_lines(doc):
        for cmd in line.commands:
            name = cmd.program.rsplit("/", 1)[-1]
            if cmd.program.lower() == "fpm" and cmd.args[:1] == ("run",) and fpm:
                named = [a for a in cmd.args[1:] if not a.startswith("-")][:1]
                if "--" in cmd.args[1:] and named and cmd.args.index(named[0]) > cmd.args.index("--"):
                    named = []   # `fpm run -- input.nml`: the arguments of the only program
                name = named[0] if named and named[0] in fpm else next(iter(fpm))
            if name in declared:
                path, number = declared[name]
                return [Evidence(path, f"the build declares the program {name}, which {line.path} runs"
                                       + (f" at line {line.line}" if line.line else ""),
                                 rule="execution_entry_point.native_program", line_start=number, snippet=name)]
    return []


# the fix in the deposit's own ecosystem (METRICS.md §0.3): the entry point it would add
_FIXES = {
    PYTHON: ("Add a top-level run.sh (or a Makefile `all` target) that runs the whole analysis "
             "and document it under a README '## Usage' heading."),
    R: ("Add a top-level run_all.R (or a targets pipeline, _targets.R) that runs the whole analysis "
        "and document `Rscript run_all.R` under a README '## Usage' heading."),
    JULIA: ("Add a top-level main.jl that runs the whole analysis and document `julia --project main.jl` "
            "under a README '## Usage' heading."),
    MATLAB: ("Add a top-level main.m (or run_all.m) that calls the steps in order and document "
             "`matlab -batch \"main\"` under a README '## Usage' heading."),
    NATIVE: ("Add a Makefile `run` target (or a top-level run.sh) that runs the built program on its inputs "
             "and document it under a README '## Usage' heading."),
    NEXTFLOW: ("Put the pipeline's entry workflow in a top-level main.nf and document `nextflow run` "
               "under a README '## Usage' heading."),
    SNAKEMAKE: ("Put the workflow's rules in a top-level Snakefile (or workflow/Snakefile) and document "
                "`snakemake --cores 4` under a README '## Usage' heading."),
}


def _toolbox_path(folder: str) -> str:
    return "<path to the toolbox>" if folder == "." else folder


def _fix(tree: TreeIndex, documented: bool) -> str:
    """The fix in the deposit's ecosystem; an R or Julia package or a MATLAB toolbox is
    started by its first call (``documented``: the README already shows how to run)."""
    ecosystem = fix_ecosystem(tree)
    package = own_package(tree, ecosystem)
    if not package:
        return _FIXES[ecosystem]
    if ecosystem == PYTHON:
        return (f"Declare a console script ([project.scripts]) or add {package}/__main__.py, and show the command "
                "(`python -m " + package + "`) under a README '## Usage' heading.")
    first, script, command = {
        R: (f"library({package})", "run_all.R", "Rscript run_all.R"),
        JULIA: (f"using {package}", "main.jl", "julia --project main.jl"),
        # a MATLAB toolbox: its folder (:func:`matlab_toolbox`) goes on the path
        MATLAB: (f"addpath('{_toolbox_path(package)}')", "main.m", 'matlab -batch "main"'),
    }[ecosystem]
    kind = "toolbox" if ecosystem == MATLAB else "package"
    if documented:
        return (f"For an analysis built on the {kind}, add a top-level {script} that runs it end to end and "
                f"document `{command}` beside the README's usage section.")
    return (f"Add a README '## Usage' section that shows the first calls a user makes (`{first}`, then the main "
            f"function); an analysis built on the {kind} gets a top-level {script} that runs it end to end.")


@detector("execution_entry_point", version="2.10.0")
def execution_entry_point(tree: TreeIndex) -> Result:
    """There is one obvious way to start the analysis.

    What it checks:
        100: a top-level script named run, run_all (runall), start, execute or main
        (.sh, .py, .R, .jl, .m, .bat; any case: MATLAB's main.m too); a top-level
        _targets.R (an R targets pipeline), _drake.R (an R drake pipeline, run by
        `drake::r_make()`; 2.10.0) or Comonicon.toml (a Julia package's console
        command); a package __main__.py whose `python -m` is documented
        in the README; a declared console script ([project.scripts],
        [tool.poetry.scripts], setup.py/setup.cfg console_scripts); a target run, all,
        execute, analysis, main or reproduce in a Make-like file (Makefile, makefile,
        GNUmakefile, justfile, Taskfile.yml, tasks.py, dodo.py at the root or an
        environment location) whose recipe, or the recipe of a target it depends on
        (followed through the file, pattern rules and `$(VAR)` prerequisites expanded
        through the file's plain assignments included), runs a program the build
        produced (`./prog in.txt`, a program the build declares) or an analysis script
        (what a README command must run to be usage: `python run.py`, `$(PYTHON) run.py`,
        `Rscript -e 'knitr::knit(…)'`, `R CMD BATCH`, `snakemake`, `nextflow run`, …);
        a target that only compiles, links, archives, copies, installs, recurses into
        `$(MAKE)` or runs a configure or build script is a build, never an entry point
        (2.6.0, METRICS §0.2.11: wannier90's `all: wannier lib post …`); a prerequisite
        variable that expands to no names (`$(patsubst …)`) stands for what the whole
        file's recipes run; a top-level Snakefile (or workflow/Snakefile) or main.nf;
        a program a CMake build declares (``add_executable``, a literal ``OUTPUT_NAME``
        set by ``set_target_properties`` or, 2.8.0, ``set_property(TARGET …)``)
        that a README command runs (``./raxml-ng --msa …``; §0.3 native D5, 2.2.0), or a
        Makefile target whose recipe links its own name (``bwa: … main.o`` then
        ``$(CC) … -o $@``) that a README command runs (``bwa index ref.fa``; 2.3.0; a
        target written as a variable, ``$(TARGET)`` with ``TARGET = bin/tool``, is
        expanded and its program run by path or base name, ``bin/tool -h`` or ``tool
        in.txt``, 2.7.0), or
        an fpm package's executable (fpm.toml ``[[executable]]``, or a program of
        ``app/``) that a README ``fpm run`` runs (2.4.0). A console script whose
        function its module (found in the tree) neither defines nor imports is no entry
        point (2.2.0); a documented `python -m <package> install|setup|register|…` is
        set-up, no entry point (2.4.0, METRICS §0.2.11).
        80: a README heading of the run family of doc_structure (usage, run, quick
        start, how to use, "Using <project name>", …; a qualifier in parentheses is no
        head, "Setup (run once)" is no run heading, 2.9.0) or a runnable README command as in
        usage_examples (a ```matlab block read without its `>>` prompt and `%` comment
        lines, 2.6.0; set-up is never one: make in a deposit with C/C++/Fortran
        sources, `make && make install`, `python -m ipykernel install`; prompt lines of
        the prose count, §0.2.10; inline code inside a sentence or a list item does
        not, a line holding nothing but one inline code span does, 2.7.0; the Python
        interpreter in lower case with a file path as its script, never `Python
        (3.7.5)` in a version list, 2.9.0). The README title (its first heading when it is a
        top-level one over deeper headings) names the project and is no run heading
        (2.4.0, METRICS §0.2.6). 0 otherwise.
    Why it matters:
        A re-user needs to know where execution starts; a conventional entry point or a
        documented run command saves them from guessing which of many scripts to run.
    Evidence:
        The entry-point script, the Make-like target line (its reason names the command
        it runs and that command's line), the console-script declaration, the workflow
        file; or the README heading or command line. ``counts.build_targets``: the
        entry-named targets that only build.
    How to fix:
        Add a top-level run.sh (or a `make all`/`run` target) that runs the whole
        analysis, and document it under a "## Usage" heading. In the deposit's own
        ecosystem (2.4.0, METRICS §0.3): run_all.R or _targets.R (`Rscript
        run_all.R`), main.jl (`julia --project main.jl`), main.m (`matlab -batch
        "main"`), a Makefile `run` target for a compiled program, a top-level main.nf or
        Snakefile; an R or Julia package or a MATLAB toolbox (function and class files
        only, no top-level main.m/run_all.m: `addpath('<toolbox folder>')`) documents
        the first calls a user makes, and an analysis built on it gets its own entry
        script (2.6.0), a Python package (its import package in the tree) declares a
        console script or a __main__.py.
    Known false positives:
        A main.py counts whatever it does; the content of an entry-point script is not
        checked. A Make-like target counts when anything it depends on runs a script,
        even a test or a figure unrelated to the paper; one that runs its program only
        through a sub-make (`cd analysis && $(MAKE)`) is read as a build. A console
        script of a library counts although it may not reproduce any result.
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
    # a console script whose function its module neither defines nor imports cannot run
    scripts = [s for s in console_scripts(tree) if not console_script_target_missing(tree, s)]
    script_names = frozenset(s.name for s in scripts)
    runners = task_runners(tree)
    programs: frozenset[str] | None = None   # the build files are read only when needed
    builds = 0
    for path in tree.make_like_files():
        targets = tree.task_targets(path)
        for target in targets:
            if target.name.lower() not in _ENTRY_TARGETS:
                continue
            if programs is None:
                programs = frozenset(native_programs(tree))
            ran = _entry_target_run(targets, target, script_names, runners, programs)
            if ran is None:
                builds += 1   # it only builds: set-up, no entry point (§0.2.11)
                continue
            line, command = ran
            evidence.append(Evidence(path, f"task target '{target.name}' runs `{command}` (line {line})",
                                     rule="execution_entry_point.make_target", line_start=target.line,
                                     snippet=f"{target.name}:"))
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
    if builds:
        counts["build_targets"] = builds
    if evidence:
        return Result(100, evidence=evidence[:MAX_EVIDENCE], counts=counts,
                      reason=f"{len(evidence)} entry point(s); first: {evidence[0].path}")
    if doc is not None:
        # the title names the project, it is no run section (METRICS §0.2.6)
        names = project_names(tree, doc)
        headings = [h for h in section_headings(doc) if run_heading(h.text, names)]
        commands = runnable_commands(doc, script_names, builds=compiled_sources(tree), runners=runners,
                                     programs=frozenset(native_programs(tree)) if programs is None else programs)
        readme_evidence = [Evidence(doc.path, f"run section heading '{h.text}'", rule="execution_entry_point.readme_heading",
                                    line_start=_file_line(doc, h.line), snippet=h.text) for h in headings[:5]]
        readme_evidence += [Evidence(r.line.path, "runnable README command", rule="execution_entry_point.readme_command",
                                     line_start=r.line.line, snippet=r.line.text) for r in commands[:5]]
        counts.update({"run_headings": len(headings), "runnable_commands": len(commands)})
        if readme_evidence:
            return Result(80, evidence=readme_evidence, fix=_fix(tree, documented=True), counts=counts,
                          reason="the README documents how to run, but there is no conventional entry point")
    return Result(0, evidence=[], fix=_fix(tree, documented=False), counts=counts,
                  reason="no entry point and no run instructions")
