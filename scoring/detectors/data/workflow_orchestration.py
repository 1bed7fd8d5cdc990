"""A3 workflow_orchestration: a declared workflow drives the analysis."""

from __future__ import annotations

import re
from typing import Any

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
from scoring.detectors.data._common import (
    MAX_EVIDENCE,
    DataSignal,
    _guarded,
    _name,
    _python_facts,
    _top,
    data_probe,
    is_data_use_path,
    not_applicable_result,
    probed,
)
from scoring.facts import Expr, FileFacts
from scoring.model import Evidence
from scoring.registry import Result, detector
from scoring.tree import TreeIndex

# ``runall`` is read as ``run_all``; MATLAB drivers: ``main.m``, ``run_all.m`` (§0.3 MATLAB specifics)
_PIPELINE_DRIVER_RE = re.compile(
    r"(?:run_?all|pipeline|workflow|run_pipeline|run_analysis)\.(?:py|r|sh|jl|m)|main\.m", re.IGNORECASE)
# R drivers named master.R, main.R or make.R: a driver only when it runs two or more of the
# deposit's own scripts (§0.3 R specifics), since ``main.R`` is also a package's file name
_R_DRIVER_RE = re.compile(r"(?:master|main|make)\.r", re.IGNORECASE)
# The R calls that run a step: source a script, render a document
_R_STEP_CALLS = frozenset({"source", "sys.source", "base::source", "rmarkdown::render", "render",
                           "quarto::quarto_render", "quarto_render", "knitr::knit", "knit"})
_R_STEP_SUFFIXES = (".r", ".rmd", ".qmd")
_QUOTED_RE = re.compile(r"""["']([^"']*)["']""")
# Maintenance rules (cleaning, testing, linting, documentation, versioning, releasing): a
# Make-like file holding only these is not an analysis workflow (§0.3 python-libraries rule
# on documentation-only Makefiles, read as maintenance-only).
_MAINTENANCE_TARGET_RE = re.compile(
    r"\.?(?:phony|help|clean\w*|distclean|mrproper|tests?\w*|check\w*|lint\w*|format\w*|fmt|style|"
    r"coverage|cov|docs?|html|man|manual|site|serve|install\w*|uninstall|dev|develop|setup|deps|requirements|"
    r"release|publish|upload|dist|sdist|wheel|package|tag|bump\w*|version(?:\.txt)?|update\w*|changelog|"
    r"precommit|pre-commit|typecheck|mypy|flake8|black|isort|ruff|pylint|pytest|tox|nox|benchmark|bench|"
    r"docker\w*|image|push|pull|ci)",
    re.IGNORECASE,
)

# (engine, pattern of the lower-case file name); the first rule/process line of an engine
# file comes from its facts (Snakemake rules, Nextflow processes and workflows, R
# ``tar_target`` calls) or, for a file no frontend reads, from its parsed form
# (``TreeIndex.workflow_file``)
_ENGINES: tuple[tuple[str, str], ...] = (
    ("snakemake", r"snakefile(?:\..*)?|.*\.smk"),
    ("nextflow", r".*\.nf|nextflow\.config"),
    ("cwl", r".*\.cwl"),
    ("wdl", r".*\.wdl"),
    ("dvc", r"dvc\.yaml"),
    ("galaxy", r".*\.ga"),
    ("targets", r"_targets\.r|_targets\.rmd"),  # _targets.Rmd: Target Markdown
    ("drake", r"_drake\.r"),  # what drake::r_make() runs, the predecessor of _targets.R
)
# All name patterns in one: a single match per file names the first engine (in table
# order) whose pattern the name matches.
_ENGINE_NAME_RE = re.compile("|".join(f"(?P<{engine}>{pattern})" for engine, pattern in _ENGINES), re.DOTALL)
_NEXTFLOW_STEPS = ("process", "workflow")
_LOCATED_ENGINES = frozenset({"snakemake", "nextflow", "cwl", "wdl", "dvc", "targets", "drake"})
# The calls of a drake master file that declare or run the plan
_DRAKE_STEP_CALLS = frozenset({"drake_config", "drake_plan", "make", "r_make"})

_ENGINE_MODULES = ("airflow", "luigi", "prefect")
_AIRFLOW_DAG_CALLS = re.compile(r"^airflow(?:\.models(?:\.dag)?|\.sdk)?\.DAG$|^airflow(?:\.decorators|\.sdk)?\.dag$")
_PREFECT_FLOW = re.compile(r"^prefect(?:\.flows)?\.(?:flow|Flow)$")
_LUIGI_TASK = re.compile(r"^luigi(?:\.\w+)*\.\w*Task$")


@detector("workflow_orchestration", version="2.10.0")
def workflow_orchestration(tree: TreeIndex) -> Result:
    """The analysis is driven by a declared workflow: an engine, a Make-like file or a pipeline script.

    What it checks:
        The highest tier found (METRICS.md A3 V2, §0.1.14):
        100 workflow_engine: Snakemake (``Snakefile`` anywhere, ``*.smk``), Nextflow
        (``*.nf``, ``nextflow.config``), CWL (``*.cwl``), WDL (``*.wdl``), ``dvc.yaml``
        (bare ``*.dvc`` data-tracking files do not count), a Galaxy workflow (``*.ga``
        holding ``a_galaxy_workflow``), R targets (``_targets.R``), R drake (``_drake.R``,
        the file ``drake::r_make()`` runs; evidence at its first ``drake_config()``,
        ``drake_plan()`` or ``make()`` call; 2.9.0), a Kedro project
        (``[tool.kedro]`` in pyproject.toml, or ``conf/base/`` with ``kedro`` declared),
        Target Markdown (``_targets.Rmd``), an Airflow DAG, a Luigi task class or a Prefect flow (Python, resolved through
        imports).
        80 makefile: a Make-like file (``Makefile`` in any case, ``GNUmakefile``,
        ``justfile``, ``Taskfile.yml``, invoke ``tasks.py``, doit ``dodo.py``) at the root
        or in an environment location, with at least one rule that is not maintenance:
        a file whose rules all clean, test, lint, build documentation, install, version,
        update or release (``clean``, ``version.txt``, ``update_schema``, ``release``…; an
        ``all`` rule without a recipe is neutral) is not an analysis workflow (§0.3).
        70 pipeline_script: ``run_all`` (also ``runall``), ``pipeline``, ``workflow``,
        ``run_pipeline`` or ``run_analysis`` with extension ``.py``, ``.R``, ``.sh``,
        ``.jl`` or ``.m``, and the MATLAB driver ``main.m`` (§0.3 MATLAB specifics), at the
        top level or in ``scripts/``; there too an R ``master.R``, ``main.R`` or ``make.R``
        that runs two or more of the deposit's own scripts in order -- ``source()``,
        ``sys.source()``, ``rmarkdown::render()``, ``quarto_render()`` or ``knit()`` of a
        local ``.R``/``.Rmd``/``.qmd``, written as a path or as ``here::here("R",
        "x.R")``/``file.path(…)`` pieces (§0.3 R specifics; 2.5.0); a ``main.R`` that
        sources one helper is no driver.
        {shared:deposit_kind}
    Why it matters:
        A declared workflow records the order of the analysis steps and their inputs and
        outputs, so the whole analysis can be rerun with one command.
    Evidence:
        The engine files (with the line of the first rule or process where one is found),
        the Make-like file with the lines from its first rule to its last, or the driver
        script (an R driver from its first step call to its last, naming the scripts).
        ``counts`` holds the numbers of engine files, Make-like files with rules, rules,
        and driver scripts.
    How to fix:
        Describe the pipeline in a Snakefile (or a Nextflow/CWL workflow, or ``dvc.yaml``
        stages) that runs every step from raw data to figures; at least add a Makefile
        whose targets run the scripts in order. The fix (2.5.1) names the deposit's own tool
        (METRICS.md §0.3): a targets pipeline (``_targets.R``) for R, ``julia --project``
        or ``matlab -batch`` steps in a Makefile or Snakefile for Julia and MATLAB, the
        built programs' runs for native codes, processes or rules for workflows.
    Known false positives:
        A Makefile whose maintenance rules carry unusual names counts as 80; a ``main.m``
        that is a toolbox entry point rather than an analysis driver counts as 70; a CWL
        tool description or a vendored ``*.nf`` module counts as an engine; a
        ``pipeline.py`` that is a library module, not a driver, counts as 70.
    """
    return not_applicable_result(tree) or probed(tree, "workflow_orchestration")[0]


@data_probe("workflow_orchestration")
def _probe(tree: TreeIndex) -> tuple[Result, list[DataSignal]]:
    """A workflow engine's pipeline (Snakemake, Nextflow, DVC, …) outside tests and
    documentation processes data; a Makefile or a driver script alone does not say so."""
    result = _measure(tree)
    signals = [DataSignal("workflow", e.path or "", e.reason) for e in result.evidence
               if e.rule not in ("workflow_orchestration.make_like", "workflow_orchestration.pipeline_script")
               and e.path and is_data_use_path(tree, e.path)]
    return result, signals


def _measure(tree: TreeIndex) -> Result:
    counts: dict[str, Any] = {"engine_files": 0, "make_like_files": 0, "make_rules": 0, "pipeline_scripts": 0,
                             "maintenance_only_make_like": 0}
    engine_evidence = _engine_files(tree)
    engine_evidence += _python_engines(tree)
    kedro = _kedro_evidence(tree)
    if kedro:
        engine_evidence.append(kedro)
    counts["engine_files"] = len(engine_evidence)

    make_evidence: list[Evidence] = []
    for path in tree.make_like_files():
        targets = _guarded(tree, path, "parsing the task file", lambda p=path: tree.task_targets(p), [])
        if _name(path).lower() == "tasks.py" and not _imports(tree, path, "invoke"):
            continue  # celery/other task modules are not invoke task files
        if not targets:
            continue
        if _maintenance_only(targets):
            counts["maintenance_only_make_like"] += 1
            continue
        counts["make_like_files"] += 1
        counts["make_rules"] += len(targets)
        first = targets[0]
        last = max(t.line for t in targets)
        # the rules from the first to the last: an `all:` rule after `requirements:` is in view
        make_evidence.append(Evidence(
            path, f"Make-like file with {len(targets)} rule(s), first '{first.name}'",
            rule="workflow_orchestration.make_like", line_start=first.line, line_end=max(last, first.line),
            snippet=_line_text(tree, path, first.line),
        ))

    places = [""] + [folder for folder in tree.subdirs("") if _name(folder).lower() == "scripts"]
    drivers = [p for folder in places for p in tree.files_in(folder) if _PIPELINE_DRIVER_RE.fullmatch(_name(p))]
    driver_evidence = [Evidence(p, "pipeline driver script", rule="workflow_orchestration.pipeline_script")
                       for p in drivers]
    for path in (p for folder in places for p in tree.files_in(folder) if _R_DRIVER_RE.fullmatch(_name(p))):
        steps = _guarded(tree, path, "reading the R driver", lambda p=path: _r_driver_steps(tree, p), [])
        if len(steps) >= 2:
            drivers.append(path)
            driver_evidence.append(Evidence(
                path, f"R pipeline driver running {len(steps)} local scripts in order ({', '.join(s for _, s in steps[:3])}"
                      f"{', …' if len(steps) > 3 else ''})",
                rule="workflow_orchestration.pipeline_script", line_start=steps[0][0], line_end=steps[-1][0],
                snippet=_line_text(tree, path, steps[0][0])))
    counts["pipeline_scripts"] = len(drivers)

    if engine_evidence:
        value, level, reason = 100, "workflow_engine", engine_evidence[0].reason
    elif make_evidence:
        value, level, reason = 80, "makefile", make_evidence[0].reason
    elif driver_evidence:
        value, level, reason = 70, "pipeline_script", f"pipeline driver script {drivers[0]}"
    else:
        return Result(0, level="absent", counts=counts, reason="no workflow engine file, Make-like file with rules, or pipeline driver",
                      fix=_ADD_WORKFLOW_FIX[fix_ecosystem(tree)])
    evidence = (engine_evidence + make_evidence + driver_evidence)[:MAX_EVIDENCE]
    fix = None
    if value == 80:
        fix = f"Declare the steps of {make_evidence[0].path} as {_ENGINE_OF[fix_ecosystem(tree)]} with explicit inputs and outputs."
    elif value == 70:
        fix = f"Replace {drivers[0]} by {_ENGINE_OF[fix_ecosystem(tree)]} whose steps run each analysis step in order."
    return Result(value, level=level, evidence=evidence, counts=counts, reason=reason, fix=fix)


# The workflow tool of each ecosystem (METRICS.md §0.3: R targets, Snakemake/Make for the
# languages without an engine of their own, the engines themselves for workflows).
_ENGINE_OF = {
    PYTHON: "a Snakefile or dvc.yaml pipeline", R: "a targets pipeline (_targets.R)",
    JULIA: "a Snakefile or dvc.yaml pipeline", MATLAB: "a Snakefile or Makefile pipeline (`matlab -batch` steps)",
    NATIVE: "a Snakefile or Makefile pipeline", NEXTFLOW: "Nextflow processes in a workflow block",
    SNAKEMAKE: "Snakemake rules",
}
_ADD_WORKFLOW_FIX = {
    PYTHON: "Add a Snakefile (or a Makefile) whose rules run every analysis step from raw data to results.",
    R: "Add a targets pipeline (_targets.R whose tar_target() steps run every analysis step from raw data to "
       "results), or at least a Makefile whose rules run the R scripts in order.",
    JULIA: "Add a Makefile (or a Snakefile) whose rules run every analysis step from raw data to results "
           "(`julia --project scripts/<step>.jl`).",
    MATLAB: "Add a Makefile (or a Snakefile) whose rules run every analysis step with `matlab -batch <step>`, "
            "or at least a run_all.m that calls the steps in order.",
    NATIVE: "Add a Makefile (or a Snakefile) whose rules run the built programs on the input data, from raw "
            "data to results.",
    NEXTFLOW: "Describe the pipeline as Nextflow processes joined in a workflow block (main.nf) that runs every "
              "step from the input data to results.",
    SNAKEMAKE: "Describe the workflow as Snakemake rules (a Snakefile) with explicit inputs and outputs that run "
               "every step from the input data to results.",
}


def _r_driver_steps(tree: TreeIndex, path: str) -> list[tuple[int, str]]:
    """(line, script) of each local R script or R Markdown/Quarto document an R driver
    sources or renders, in call order: a literal path, or the pieces of ``here::here("R",
    "x.R")`` / ``file.path("R", "x.R")``, relative to the root or the driver's folder."""
    facts = tree.facts(path)
    if facts is None or facts.frontend != "r":
        return []
    base = path.rsplit("/", 1)[0] if "/" in path else ""
    steps: list[tuple[int, str]] = []
    for call in facts.calls:
        if call.name not in _R_STEP_CALLS or not call.args:
            continue
        first = call.args[0]
        if isinstance(first, str):
            target = first
        elif isinstance(first, Expr):
            target = "/".join(_QUOTED_RE.findall(first.text))
        else:
            continue
        target = target.strip().removeprefix("./")
        if not target.lower().endswith(_R_STEP_SUFFIXES):
            continue
        for candidate in (target, f"{base}/{target}" if base else target):
            if tree.is_file(candidate) and candidate != path and candidate not in {s for _, s in steps}:
                steps.append((call.line, candidate))
                break
    return steps


def _maintenance_only(targets: list) -> bool:
    """Every rule is a maintenance rule; an ``all``/``default`` rule without a recipe
    (prerequisites only) is neutral."""
    rules = [t for t in targets if not (t.name.lower() in ("all", "default") and not t.recipe)]
    return bool(rules) and all(_MAINTENANCE_TARGET_RE.fullmatch(t.name) for t in rules)


def _line_text(tree: TreeIndex, path: str, line: int | None, cell: int | None = None) -> str | None:
    return tree.snippet(path, line, cell) if line else None


def _imports(tree: TreeIndex, path: str, module: str) -> bool:
    facts = _guarded(tree, path, "parsing Python", lambda: tree.facts(path), None)
    return facts is not None and any(_top(ref) == module for ref in facts.imports)


def _first_step_line(tree: TreeIndex, path: str, engine: str) -> int | None:
    """The first rule/process line of an engine file: from the facts of the languages a
    frontend reads (Snakemake rules, Nextflow processes and workflows, R ``tar_target``
    calls), else from the file's parsed form."""
    facts = tree.facts(path) if engine in ("snakemake", "nextflow", "targets", "drake") else None
    if facts is not None and facts.frontend == {"snakemake": "snakemake", "nextflow": "nextflow",
                                                 "targets": "r", "drake": "r"}[engine]:
        if engine == "targets":
            lines = [c.line for c in facts.calls if c.name.rsplit(":", 1)[-1] == "tar_target"]
        elif engine == "drake":
            lines = [c.line for c in facts.calls if c.name.rsplit(":", 1)[-1] in _DRAKE_STEP_CALLS]
        elif engine == "snakemake":
            lines = [d.line for d in facts.definitions if d.kind in ("rule", "checkpoint") and d.name]
        else:
            # a line opening with the word process or workflow: a process or workflow
            # definition, a ``process { … }`` / ``workflow { … }`` block (config scopes,
            # a script's entry workflow) or a ``process.container = …`` setting
            lines = [d.line for d in facts.definitions if d.kind in _NEXTFLOW_STEPS]
            lines += [b.line for b in facts.blocks if re.split(r"[.:\s]", b.label, maxsplit=1)[0] in _NEXTFLOW_STEPS]
            lines += [d.line for d in facts.directives if d.scope.rsplit(".", 1)[-1] in _NEXTFLOW_STEPS]
        return min(lines) if lines else None
    parsed = tree.workflow_file(path, engine)
    return parsed.step_line if parsed is not None else None


def _engine_files(tree: TreeIndex) -> list[Evidence]:
    found: list[Evidence] = []
    for path in tree.files:
        match = _ENGINE_NAME_RE.fullmatch(_name(path).lower())
        if match is None:
            continue
        engine = match.lastgroup
        if engine == "galaxy":
            parsed = tree.workflow_file(path, engine)
            if parsed is None or not parsed.galaxy_marker:
                continue
        line = None
        if engine in _LOCATED_ENGINES and len(found) < MAX_EVIDENCE:
            line = _first_step_line(tree, path, engine)
        found.append(Evidence(path, f"{engine} workflow file", rule=f"workflow_orchestration.{engine}",
                              line_start=line, snippet=_line_text(tree, path, line)))
    return found


def _python_engines(tree: TreeIndex) -> list[Evidence]:
    """Airflow DAGs, Luigi task classes and Prefect flows, resolved through imports: per
    ``.py`` file and per notebook cell (a cell is a unit of its own, as the kernel runs it)."""
    found: list[Evidence] = []
    for path, facts in _python_facts(tree):
        cells = {ref.cell for ref in facts.imports if ref.kind != "dynamic" and _top(ref) in _ENGINE_MODULES}
        for cell in sorted(cells, key=lambda c: c or 0):
            hit = _python_engine_hit(facts, cell)
            if hit:
                engine, line = hit
                found.append(Evidence(path, f"{engine} workflow definition", rule=f"workflow_orchestration.{engine}",
                                      line_start=line, snippet=_line_text(tree, path, line, cell), cell=cell))
    return found


def _python_engine_hit(facts: FileFacts, cell: int | None) -> tuple[str, int] | None:
    for call in facts.calls:
        if call.cell != cell:
            continue
        if _AIRFLOW_DAG_CALLS.match(call.name):
            return "airflow", call.line
        if _PREFECT_FLOW.match(call.name):
            return "prefect", call.line
    for definition in facts.definitions:
        if definition.cell != cell:
            continue
        if definition.kind in ("function", "method"):
            for name, line in zip(definition.decorators, definition.decorator_lines, strict=False):
                if _AIRFLOW_DAG_CALLS.match(name):
                    return "airflow", line
                if _PREFECT_FLOW.match(name):
                    return "prefect", line
        elif definition.kind == "class":
            if any(_LUIGI_TASK.match(base) for base in definition.bases):
                return "luigi", definition.line
    return None


def _kedro_evidence(tree: TreeIndex) -> Evidence | None:
    pyproject = tree.find_ci("pyproject.toml")
    if pyproject and tree.is_file(pyproject):
        data = _guarded(tree, pyproject, "reading pyproject.toml", lambda: tree.toml(pyproject), None)
        tool = data.get("tool") if isinstance(data, dict) else None
        if isinstance(tool, dict) and "kedro" in tool:
            line = next((n for n, t in tree.toml_headers(pyproject) if t.startswith("[tool.kedro")), None)
            return Evidence(pyproject, "Kedro project ([tool.kedro])", rule="workflow_orchestration.kedro",
                            line_start=line, snippet=_line_text(tree, pyproject, line))
    if not tree.is_dir("conf/base"):
        return None
    manifests = _guarded(tree, "", "reading manifests", tree.manifests, [])
    for manifest in manifests:
        for dep in manifest.dependencies:
            if dep.normalized == "kedro":
                return Evidence(dep.file or manifest.path, "Kedro project (conf/base and a kedro dependency)",
                                rule="workflow_orchestration.kedro", line_start=dep.line, snippet=dep.raw)
    return None
