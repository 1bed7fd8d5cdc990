"""S6 config_externalised: run parameters live outside the code."""

from __future__ import annotations

import re

from scoring.detectors.signals._common import (
    _CI_ROOT_FILES,
    MAX_EVIDENCE,
    _is_hidden,
    _join_names,
    _name,
)
from scoring.facts import FileFacts, ImportFact
from scoring.model import Evidence
from scoring.registry import Result, detector
from scoring.tree import TreeIndex

_PARAM_FILE_RE = re.compile(r"(?:config|params|settings|hyperparams)\.(?:ya?ml|json|toml|ini|cfg)", re.IGNORECASE)
_PARAM_SUFFIX_RE = re.compile(r".+\.(?:ya?ml|json|toml|ini|cfg)", re.IGNORECASE)
_CONFIG_DIR_NAMES = frozenset({"config", "configs", "conf", "params", "settings"})
_TOOL_CONFIG_NAMES = frozenset({
    "setup.cfg", "tox.ini", "pyproject.toml", "pytest.ini", "mypy.ini", "ruff.toml", "codecov.yml",
    "mkdocs.yml", "package.json", "package-lock.json", "tsconfig.json", "renovate.json",
    "environment.yml", "environment.yaml", "meta.yaml", "pixi.toml", "cargo.toml", "project.toml",
    "manifest.toml", "codemeta.json", "citation.cff", ".zenodo.json", "dependabot.yml",
}) | _CI_ROOT_FILES
_CONDA_ENV_NAME_RE = re.compile(r"(?:.*[-_.])?environment(?:[-_.].*)?\.ya?ml", re.IGNORECASE)
_CONFIG_IMPORTS = frozenset({"hydra", "omegaconf"})
_CLI_IMPORTS = frozenset({"argparse", "optparse", "getopt", "click", "typer", "docopt", "fire"})
_ABSL_FLAGS = ("absl.flags", "absl.app")
_R_CLI_PACKAGES = frozenset({"optparse", "argparse", "docopt", "getopt"})
_R_LOADS = frozenset({"library", "require", "requireNamespace", "p_load", "pkg::"})
_JULIA_CLI_PACKAGES = frozenset({"ArgParse", "DocOpt", "Comonicon"})


def _is_tool_config(name: str) -> bool:
    lower = name.lower()
    return lower in _TOOL_CONFIG_NAMES or lower.startswith(".") or bool(_CONDA_ENV_NAME_RE.fullmatch(name))


def _parameter_files(tree: TreeIndex) -> list[Evidence]:
    found = [Evidence(p, "parameter file at the root", rule="config_externalised.parameter_file")
             for p in tree.files_in("") if _PARAM_FILE_RE.fullmatch(_name(p))]
    level_one = [d for d in tree.subdirs("") if not _name(d).startswith(".")]
    level_two = [s for d in level_one for s in tree.subdirs(d) if not _name(s).startswith(".")]
    for directory in level_one + level_two:
        if _name(directory).lower() not in _CONFIG_DIR_NAMES:
            continue
        prefix = len(directory) + 1
        for path in tree.files_under(directory):
            name = _name(path)
            if _PARAM_SUFFIX_RE.fullmatch(name) and not _is_tool_config(name) and not _is_hidden(path[prefix:]):
                found.append(Evidence(path, f"parameter file in the config directory {directory}/",
                                      rule="config_externalised.config_dir"))
                break
    return found


def _by_cell(facts: FileFacts) -> list[tuple[int | None, list[ImportFact], list]]:
    """(cell, its imports in line order, its subscripted ``sys.argv`` reads) of a Python
    file (one unit, cell None) or notebook (one unit per cell), in cell order. Dynamic
    imports are not import statements."""
    imports: dict[int | None, list[ImportFact]] = {}
    for ref in facts.imports:
        if ref.kind != "dynamic":
            imports.setdefault(ref.cell, []).append(ref)
    argv: dict[int | None, list] = {}
    for arg in facts.cli_args:
        if arg.kind == "sys.argv" and arg.subscript:
            argv.setdefault(arg.cell, []).append(arg)
    cells = sorted(set(imports) | set(argv), key=lambda c: c or 0)
    return [(c, sorted(imports.get(c, ()), key=lambda r: (r.line, r.module)), argv.get(c, [])) for c in cells]


def _top(ref: ImportFact) -> str:
    return ref.module.split(".")[0]


def _python_config_signals(tree: TreeIndex) -> tuple[list[Evidence], list[Evidence]]:
    """(100-tier, 80-tier) evidence from Python files and notebook cells, one per file."""
    full: dict[str, Evidence] = {}
    cli: dict[str, Evidence] = {}
    for path in tree.files:   # in path order, .py files and notebooks mixed, as evidence lists them
        info = tree.info(path)
        if info is None or info.alias_of is not None or info.type not in ("python", "notebook"):
            continue
        facts = tree.facts(path)
        if facts is None:
            continue
        notebook = path.lower().endswith(".ipynb")
        for cell, imports, argv in _by_cell(facts):
            if path in full:
                break
            for ref in imports:
                if _top(ref) in _CONFIG_IMPORTS:
                    full[path] = Evidence(path, f"imports {_top(ref)}, a configuration framework",
                                          rule="config_externalised.config_framework", line_start=ref.line, cell=cell,
                                          snippet=tree.snippet(path, ref.line, cell))
                    break
                if path not in cli and (_top(ref) in _CLI_IMPORTS or ref.module.startswith(_ABSL_FLAGS)):
                    cli[path] = Evidence(path, f"imports the command-line parser {ref.module}",
                                         rule="config_externalised.cli_parser", line_start=ref.line, cell=cell,
                                         snippet=tree.snippet(path, ref.line, cell))
            if path in full or path in cli:
                continue
            # a name imported from absl.flags/absl.app (``from absl import flags``); the
            # line fallback of a file that does not parse has no aliases
            absl = None
            if not (facts.parse_error and not notebook):
                absl = next((f"{r.module}.{n}" for r in imports if r.kind == "from" and r.module == "absl"
                             for n in r.names if n != "*" and f"{r.module}.{n}".startswith(_ABSL_FLAGS)), None)
            if absl:
                ref = next((r for r in imports if _top(r) == "absl"), None)
                cli[path] = Evidence(path, f"imports the command-line parser {absl}",
                                     rule="config_externalised.cli_parser", line_start=ref.line if ref else 1, cell=cell)
                continue
            if argv:
                line = min(a.line for a in argv)
                cli[path] = Evidence(path, "reads command-line arguments from sys.argv",
                                     rule="config_externalised.argv", line_start=line, cell=cell,
                                     snippet=tree.snippet(path, line, cell))
    return list(full.values()), [e for p, e in cli.items() if p not in full]


def _text_config_signals(tree: TreeIndex) -> tuple[list[Evidence], list[Evidence]]:
    """(100-tier, 80-tier) evidence from R and Julia code (``.R``, ``.jl``, R Markdown)."""
    full: list[Evidence] = []
    cli: list[Evidence] = []
    for path in tree.by_type("r") + tree.by_type("julia") + tree.by_type("rmd"):
        facts = tree.facts(path)
        if facts is None:
            continue
        if facts.language == "r":
            config = [c.line for c in facts.calls if c.name == "config::get"]
            lines = [r.line for r in facts.imports if r.module in _R_CLI_PACKAGES and r.kind in _R_LOADS]
            lines += [c.line for c in facts.calls if c.name == "commandArgs"]
        else:
            config = []
            lines = [r.line for r in facts.imports if r.module in _JULIA_CLI_PACKAGES and r.kind in ("using", "import")]
            lines += [a.line for a in facts.cli_args if a.kind == "ARGS"]
        if config:
            line = min(config)
            full.append(Evidence(path, "reads parameters with config::get()", rule="config_externalised.r_config",
                                 line_start=line, snippet=tree.snippet(path, line)))
        if lines:
            line = min(lines)
            cli.append(Evidence(path, "reads command-line arguments", rule="config_externalised.cli_parser",
                                line_start=line, snippet=tree.snippet(path, line)))
    seen_full = {e.path for e in full}
    return full, [e for e in cli if e.path not in seen_full]


def _workflow_config_signals(tree: TreeIndex) -> list[Evidence]:
    """Snakemake configfile:, Nextflow params, papermill parameters cells, R Markdown params."""
    found: list[Evidence] = []
    for path in tree.files:
        name = _name(path).lower()
        if name == "snakefile" or name.endswith(".smk"):
            rule, reason = "config_externalised.snakemake_configfile", "Snakemake configfile:"
            facts = tree.facts(path)
            lines = [d.line for d in facts.directives if d.kind == "configfile" and not d.scope] if facts else []
        elif name.endswith(".nf") or name == "nextflow.config":
            rule, reason = "config_externalised.nextflow_params", "Nextflow params"
            facts = tree.facts(path)
            # a params { … } block (its opening line) or a params.x = … assignment
            lines = [a.line for a in facts.cli_args if a.kind == "params" and a.assigned] if facts else []
            lines += [block.line for block in facts.blocks if block.label == "params"] if facts else []
        else:
            continue
        if lines:
            line = min(lines)
            found.append(Evidence(path, reason, rule=rule, line_start=line, snippet=tree.snippet(path, line)))
    for path in tree.by_type("notebook"):
        facts = tree.facts(path)
        cell = next((c for c in facts.cells if c.kind == "code" and "parameters" in c.tags), None) if facts else None
        if cell is not None:
            found.append(Evidence(path, "papermill cell tagged 'parameters'", rule="config_externalised.papermill",
                                  line_start=1, cell=cell.index, snippet=tree.snippet(path, 1, cell.index) or ""))
    for path in tree.by_type("rmd"):
        header = tree.front_matter(path)
        if header is not None and "params" in header.keys:
            number, line = header.keys["params"]
            found.append(Evidence(path, "parameterised report (params: in the YAML header)",
                                  rule="config_externalised.rmd_params", line_start=number, snippet=line))
    return found


@detector("config_externalised", version="2.0.1")
def config_externalised(tree: TreeIndex) -> Result:
    """Run parameters live outside the code: parameter files (100) or a command line (80).

    What it checks:
        100: a parameter file — config|params|settings|hyperparams with a .yaml .yml
        .json .toml .ini .cfg extension at the root, or any file with those extensions
        under a config, configs, conf, params or settings directory at depth ≤ 2 (tool
        configuration such as setup.cfg, tox.ini, pyproject.toml, environment.yml, CI
        and hidden files excluded); a Hydra or OmegaConf import; Snakemake configfile:;
        Nextflow params; a papermill cell tagged "parameters"; R config::get(); params:
        in an R Markdown/Quarto YAML header. 80: a command-line parser imported
        (argparse, optparse, getopt, click, typer, docopt, fire, absl.flags/app), a
        sys.argv subscript, R optparse/argparse/docopt/getopt or commandArgs(), Julia
        ARGS or ArgParse/DocOpt/Comonicon. 0: none. Imports are read from the parsed
        code, never from comments or prose; the highest tier found wins.
    Why it matters:
        Parameters buried in code must be edited by hand to rerun or vary an analysis;
        externalised parameters record exactly what the published run used.
    Evidence:
        The parameter file, config directory file or the import / call line (cell for
        notebooks); for a sys.argv subscript, the file's first in reading order (2.0.1:
        it was the first of a breadth-first walk of the syntax tree, which could point
        below the first read). Counts: parameter files, configuration framework uses, CLI
        uses.
    How to fix:
        Move run parameters into config.yaml (or params.yaml) and read it in the code,
        or at least expose them as command-line options with argparse.
    Known false positives:
        A file named config.json or a configs/ folder holding something other than run
        parameters counts; an argparse import in a helper script counts although the
        analysis itself may hard-code its parameters.
    """
    files = _parameter_files(tree)
    py_full, py_cli = _python_config_signals(tree)
    text_full, text_cli = _text_config_signals(tree)
    workflow = _workflow_config_signals(tree)
    full = files + workflow + py_full + text_full
    cli = py_cli + text_cli
    counts = {"parameter_files": len(files), "config_frameworks": len(py_full) + len(text_full) + len(workflow),
              "cli_files": len(cli)}
    if full:
        return Result(100, evidence=full[:MAX_EVIDENCE], counts=counts,
                      reason=f"parameters externalised ({full[0].reason}: {full[0].path})")
    if cli:
        return Result(80, evidence=cli[:MAX_EVIDENCE], counts=counts,
                      fix="Move the run parameters into a parameter file (config.yaml or params.yaml) read by the code, "
                          "so the exact settings of the published run are recorded.",
                      reason=f"parameters come from the command line ({_join_names([e.path for e in cli])})")
    return Result(0, counts=counts,
                  fix="Move hard-coded run parameters into config.yaml (read with yaml/Hydra) or expose them as "
                      "argparse command-line options.",
                  reason="no parameter file, configuration framework or command-line parser found")
