"""A3 workflow_orchestration: a declared workflow drives the analysis."""

from __future__ import annotations

import ast
import re
from typing import Any

from scoring.detectors.data._common import (
    MAX_EVIDENCE,
    _guarded,
    _name,
    _python_units,
    _unit_cell,
    _unit_line,
)
from scoring.model import Evidence
from scoring.parsers.python import CodeUnit, dotted_name
from scoring.registry import Result, detector
from scoring.tree import TreeIndex

_PIPELINE_DRIVER_RE = re.compile(r"(?:run_all|pipeline|workflow|run_pipeline|run_analysis)\.(?:py|r|sh|jl)", re.IGNORECASE)

# (engine, pattern of the lower-case file name, locator regex for the first rule/process line)
_ENGINES: tuple[tuple[str, str, re.Pattern[str] | None], ...] = (
    ("snakemake", r"snakefile(?:\..*)?|.*\.smk", re.compile(r"^\s*(?:rule|checkpoint)\s+\w+\s*:")),
    ("nextflow", r".*\.nf|nextflow\.config", re.compile(r"^\s*(?:process|workflow)\b")),
    ("cwl", r".*\.cwl", re.compile(r"^\s*class\s*:\s*Workflow\b")),
    ("wdl", r".*\.wdl", re.compile(r"^\s*(?:workflow|task)\s+\w+")),
    ("dvc", r"dvc\.yaml", re.compile(r"^\s*stages\s*:")),
    ("galaxy", r".*\.ga", None),
    ("targets", r"_targets\.r", re.compile(r"\btar_target\s*\(")),
)
# All name patterns in one: a single match per file names the first engine (in table
# order) whose pattern the name matches.
_ENGINE_NAME_RE = re.compile("|".join(f"(?P<{engine}>{pattern})" for engine, pattern, _ in _ENGINES), re.DOTALL)
_ENGINE_LOCATORS = {engine: locator for engine, _, locator in _ENGINES}

_ENGINE_MODULES = ("airflow", "luigi", "prefect")
_ENGINE_IMPORT_HINT_RE = re.compile(rf"^\s*(?:from|import)\s+(?:{'|'.join(_ENGINE_MODULES)})\b", re.MULTILINE)
_AIRFLOW_DAG_CALLS = re.compile(r"^airflow(?:\.models(?:\.dag)?|\.sdk)?\.DAG$|^airflow(?:\.decorators|\.sdk)?\.dag$")
_PREFECT_FLOW = re.compile(r"^prefect(?:\.flows)?\.(?:flow|Flow)$")
_LUIGI_TASK = re.compile(r"^luigi(?:\.\w+)*\.\w*Task$")


@detector("workflow_orchestration", version="2.0.0")
def workflow_orchestration(tree: TreeIndex) -> Result:
    """The analysis is driven by a declared workflow: an engine, a Make-like file or a pipeline script.

    What it checks:
        The highest tier found (METRICS.md A3 V2, §0.1.14):
        100 workflow_engine: Snakemake (``Snakefile`` anywhere, ``*.smk``), Nextflow
        (``*.nf``, ``nextflow.config``), CWL (``*.cwl``), WDL (``*.wdl``), ``dvc.yaml``
        (bare ``*.dvc`` data-tracking files do not count), a Galaxy workflow (``*.ga``
        holding ``a_galaxy_workflow``), R targets (``_targets.R``), a Kedro project
        (``[tool.kedro]`` in pyproject.toml, or ``conf/base/`` with ``kedro`` declared),
        an Airflow DAG, a Luigi task class or a Prefect flow (Python, resolved through
        imports).
        80 makefile: a Make-like file (``Makefile`` in any case, ``GNUmakefile``,
        ``justfile``, ``Taskfile.yml``, invoke ``tasks.py``, doit ``dodo.py``) at the root
        or in an environment location, with at least one rule.
        70 pipeline_script: ``run_all``, ``pipeline``, ``workflow``, ``run_pipeline`` or
        ``run_analysis`` with extension ``.py``, ``.R``, ``.sh`` or ``.jl`` at the top
        level or in ``scripts/``.
    Why it matters:
        A declared workflow records the order of the analysis steps and their inputs and
        outputs, so the whole analysis can be rerun with one command.
    Evidence:
        The engine files (with the line of the first rule or process where one is found),
        the Make-like file with the line of its first rule, or the driver script.
        ``counts`` holds the numbers of engine files, Make-like files with rules, rules,
        and driver scripts.
    How to fix:
        Describe the pipeline in a Snakefile (or a Nextflow/CWL workflow, or ``dvc.yaml``
        stages) that runs every step from raw data to figures; at least add a Makefile
        whose targets run the scripts in order.
    Known false positives:
        A Makefile with only development targets (``test``, ``lint``, ``docs``) counts as
        80; a CWL tool description or a vendored ``*.nf`` module counts as an engine; a
        ``pipeline.py`` that is a library module, not a driver, counts as 70.
    """
    counts: dict[str, Any] = {"engine_files": 0, "make_like_files": 0, "make_rules": 0, "pipeline_scripts": 0}
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
        counts["make_like_files"] += 1
        counts["make_rules"] += len(targets)
        first = targets[0]
        make_evidence.append(Evidence(
            path, f"Make-like file with {len(targets)} rule(s), first '{first.name}'",
            rule="workflow_orchestration.make_like", line_start=first.line,
            snippet=_line_text(tree, path, first.line),
        ))

    drivers = [p for p in tree.files_in("") if _PIPELINE_DRIVER_RE.fullmatch(_name(p))]
    for folder in tree.subdirs(""):
        if _name(folder).lower() == "scripts":
            drivers += [p for p in tree.files_in(folder) if _PIPELINE_DRIVER_RE.fullmatch(_name(p))]
    counts["pipeline_scripts"] = len(drivers)
    driver_evidence = [Evidence(p, "pipeline driver script", rule="workflow_orchestration.pipeline_script")
                       for p in drivers]

    if engine_evidence:
        value, level, reason = 100, "workflow_engine", engine_evidence[0].reason
    elif make_evidence:
        value, level, reason = 80, "makefile", make_evidence[0].reason
    elif driver_evidence:
        value, level, reason = 70, "pipeline_script", f"pipeline driver script {drivers[0]}"
    else:
        return Result(0, level="absent", counts=counts, reason="no workflow engine file, Make-like file with rules, or pipeline driver",
                      fix="Add a Snakefile (or a Makefile) whose rules run every analysis step from raw data to results.")
    evidence = (engine_evidence + make_evidence + driver_evidence)[:MAX_EVIDENCE]
    fix = None
    if value == 80:
        fix = f"Declare the steps of {make_evidence[0].path} as a Snakefile or dvc.yaml pipeline with explicit inputs and outputs."
    elif value == 70:
        fix = f"Replace {drivers[0]} by a Snakefile (or a Makefile) whose rules run each analysis step."
    return Result(value, level=level, evidence=evidence, counts=counts, reason=reason, fix=fix)


def _line_text(tree: TreeIndex, path: str, line: int | None) -> str | None:
    if not line:
        return None
    lines = tree.lines(path)
    return lines[line - 1] if 0 < line <= len(lines) else None


def _imports(tree: TreeIndex, path: str, module: str) -> bool:
    unit = _guarded(tree, path, "parsing Python", lambda: tree.python_unit(path), None)
    return bool(unit) and any(ref.top == module for ref in unit.imports)


def _engine_files(tree: TreeIndex) -> list[Evidence]:
    found: list[Evidence] = []
    for path in tree.files:
        match = _ENGINE_NAME_RE.fullmatch(_name(path).lower())
        if match is None:
            continue
        engine = match.lastgroup
        if engine == "galaxy" and "a_galaxy_workflow" not in (tree.text(path) or ""):
            continue
        locator = _ENGINE_LOCATORS[engine]
        line = None
        if locator is not None and len(found) < MAX_EVIDENCE:
            for number, text in enumerate(tree.lines(path), start=1):
                if locator.search(text):
                    line = number
                    break
        found.append(Evidence(path, f"{engine} workflow file", rule=f"workflow_orchestration.{engine}",
                              line_start=line, snippet=_line_text(tree, path, line)))
    return found


def _python_engines(tree: TreeIndex) -> list[Evidence]:
    """Airflow DAGs, Luigi task classes and Prefect flows, resolved through imports."""
    found: list[Evidence] = []
    for unit in _python_units(tree):
        # The module names are words of the source: testing the unit's words first spares
        # the line-anchored pattern a scan of nearly every source.
        words = unit.word_text
        if not any(module in words for module in _ENGINE_MODULES) or not _ENGINE_IMPORT_HINT_RE.search(unit.source):
            continue
        tops = {ref.top for ref in unit.imports}
        if not tops.intersection(_ENGINE_MODULES) or unit.tree is None:
            continue
        hit = _guarded(tree, unit.path, "reading workflow definitions", lambda u=unit: _python_engine_hit(u), None)
        if hit:
            engine, line = hit
            cell, offset = _unit_cell(unit)
            found.append(Evidence(unit.path, f"{engine} workflow definition", rule=f"workflow_orchestration.{engine}",
                                  line_start=line + offset, snippet=_unit_line(unit, line), cell=cell))
    return found


def _resolve(unit: CodeUnit, written: str) -> str:
    head, _, rest = written.partition(".")
    resolved = unit.aliases.get(head, head)
    return f"{resolved}.{rest}" if rest else resolved


def _python_engine_hit(unit: CodeUnit) -> tuple[str, int] | None:
    for call in unit.calls:
        if _AIRFLOW_DAG_CALLS.match(call.name):
            return "airflow", call.line
        if _PREFECT_FLOW.match(call.name):
            return "prefect", call.line
    for node in ast.walk(unit.tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for deco in node.decorator_list:
                name = _resolve(unit, dotted_name(deco.func if isinstance(deco, ast.Call) else deco))
                if _AIRFLOW_DAG_CALLS.match(name):
                    return "airflow", deco.lineno
                if _PREFECT_FLOW.match(name):
                    return "prefect", deco.lineno
        elif isinstance(node, ast.ClassDef):
            for base in node.bases:
                if _LUIGI_TASK.match(_resolve(unit, dotted_name(base))):
                    return "luigi", node.lineno
    return None


def _kedro_evidence(tree: TreeIndex) -> Evidence | None:
    pyproject = tree.find_ci("pyproject.toml")
    if pyproject and tree.is_file(pyproject):
        data = _guarded(tree, pyproject, "reading pyproject.toml", lambda: tree.toml(pyproject), None)
        tool = data.get("tool") if isinstance(data, dict) else None
        if isinstance(tool, dict) and "kedro" in tool:
            line = next((n for n, t in enumerate(tree.lines(pyproject), start=1) if t.strip().startswith("[tool.kedro")), None)
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
