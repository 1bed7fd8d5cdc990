"""S6 config_externalised: run parameters live outside the code."""

from __future__ import annotations

import ast
import re

from scoring.detectors.signals._common import (
    _CI_ROOT_FILES,
    MAX_EVIDENCE,
    _is_hidden,
    _join_names,
    _line_text,
    _name,
    _strip_hash_comment,
    _text_units,
    _unit_location,
)
from scoring.model import Evidence
from scoring.parsers.python import CodeUnit
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
# Names tested with ``in`` against CodeUnit.word_text (the distinct words, a fraction of
# the source): cheaper than one alternation tried at every position of the source.
_CONFIG_HINTS = ("hydra", "omegaconf", "argparse", "optparse", "getopt", "click", "typer", "docopt", "fire", "absl", "argv")
_ARGV_FALLBACK_RE = re.compile(r"(?<![\w.])sys\.argv\s*\[")
_R_CONFIG_GET_RE = re.compile(r"(?<![\w.])config::get\s*\(")
_R_CLI_RE = re.compile(
    r"(?<![\w.])(?:(?:library|require|requireNamespace|p_load)\s*\(\s*[\"']?(?:optparse|argparse|docopt|getopt)\b"
    r"|(?:optparse|argparse|docopt|getopt)::|commandArgs\s*\()"
)
_JULIA_CLI_RE = re.compile(r"(?<![\w.])ARGS(?!\w)|^\s*(?:using|import)\s+(?:ArgParse|DocOpt|Comonicon)\b")
_SNAKEMAKE_CONFIG_RE = re.compile(r"^\s*configfile\s*:")
_NEXTFLOW_PARAMS_RE = re.compile(r"^\s*params\s*\{|^\s*params\.[A-Za-z_]\w*\s*=")
_FRONT_MATTER_PARAMS_RE = re.compile(r"^params\s*:")


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


def _argv_subscript(unit: CodeUnit) -> int | None:
    """Line of the first ``sys.argv[…]`` (or ``argv[…]`` imported from sys)."""
    if "argv" not in unit.source:
        return None
    if unit.tree is None:
        for number, line in enumerate(unit.lines, start=1):
            if _ARGV_FALLBACK_RE.search(_strip_hash_comment(line)):
                return number
        return None
    aliases = unit.aliases
    for node in ast.walk(unit.tree):
        if not isinstance(node, ast.Subscript):
            continue
        value = node.value
        if isinstance(value, ast.Attribute) and value.attr == "argv" and isinstance(value.value, ast.Name):
            if aliases.get(value.value.id, value.value.id) == "sys":
                return node.lineno
        elif isinstance(value, ast.Name) and aliases.get(value.id) == "sys.argv":
            return node.lineno
    return None


def _python_config_signals(tree: TreeIndex) -> tuple[list[Evidence], list[Evidence]]:
    """(100-tier, 80-tier) evidence from Python files and notebook cells, one per file."""
    full: dict[str, Evidence] = {}
    cli: dict[str, Evidence] = {}
    for unit in tree.python_units():
        if unit.path in full or not any(hint in unit.word_text for hint in _CONFIG_HINTS):
            continue
        for ref in unit.imports:
            line, cell = _unit_location(unit, ref.line)
            snippet = _line_text(unit.lines, ref.line)
            if ref.top in _CONFIG_IMPORTS:
                full[unit.path] = Evidence(unit.path, f"imports {ref.top}, a configuration framework",
                                           rule="config_externalised.config_framework", line_start=line, cell=cell, snippet=snippet)
                break
            if unit.path not in cli and (ref.top in _CLI_IMPORTS or ref.module.startswith(_ABSL_FLAGS)):
                cli[unit.path] = Evidence(unit.path, f"imports the command-line parser {ref.module}",
                                          rule="config_externalised.cli_parser", line_start=line, cell=cell, snippet=snippet)
        if unit.path in full or unit.path in cli:
            continue
        absl = "absl" in unit.source and next((v for v in unit.aliases.values() if v.startswith(_ABSL_FLAGS)), None)
        if absl:
            ref = next((r for r in unit.imports if r.top == "absl"), None)
            line, cell = _unit_location(unit, ref.line if ref else 1)
            cli[unit.path] = Evidence(unit.path, f"imports the command-line parser {absl}",
                                      rule="config_externalised.cli_parser", line_start=line, cell=cell)
            continue
        argv = _argv_subscript(unit)
        if argv is not None:
            line, cell = _unit_location(unit, argv)
            cli[unit.path] = Evidence(unit.path, "reads command-line arguments from sys.argv",
                                      rule="config_externalised.argv", line_start=line, cell=cell,
                                      snippet=_line_text(unit.lines, argv))
    return list(full.values()), [e for p, e in cli.items() if p not in full]


def _text_config_signals(tree: TreeIndex) -> tuple[list[Evidence], list[Evidence]]:
    """(100-tier, 80-tier) evidence from R and Julia code."""
    full: list[Evidence] = []
    cli: list[Evidence] = []
    seen_full: set[str] = set()
    seen_cli: set[str] = set()
    for unit in _text_units(tree):
        for line, code, raw in unit.code_lines():
            if unit.language == "r" and unit.path not in seen_full and _R_CONFIG_GET_RE.search(code):
                seen_full.add(unit.path)
                full.append(Evidence(unit.path, "reads parameters with config::get()", rule="config_externalised.r_config",
                                     line_start=line, cell=unit.cell, snippet=raw))
            pattern = _R_CLI_RE if unit.language == "r" else _JULIA_CLI_RE
            if unit.path not in seen_cli and pattern.search(code):
                seen_cli.add(unit.path)
                cli.append(Evidence(unit.path, "reads command-line arguments", rule="config_externalised.cli_parser",
                                    line_start=line, cell=unit.cell, snippet=raw))
    return full, [e for e in cli if e.path not in seen_full]


def _workflow_config_signals(tree: TreeIndex) -> list[Evidence]:
    """Snakemake configfile:, Nextflow params, papermill parameters cells, R Markdown params."""
    found: list[Evidence] = []
    for path in tree.files:
        name = _name(path).lower()
        if name == "snakefile" or name.endswith(".smk"):
            pattern, rule, reason = _SNAKEMAKE_CONFIG_RE, "config_externalised.snakemake_configfile", "Snakemake configfile:"
        elif name.endswith(".nf") or name == "nextflow.config":
            pattern, rule, reason = _NEXTFLOW_PARAMS_RE, "config_externalised.nextflow_params", "Nextflow params"
        else:
            continue
        for number, line in enumerate(tree.lines(path), start=1):
            if pattern.search(line):
                found.append(Evidence(path, reason, rule=rule, line_start=number, snippet=line))
                break
    for path in tree.by_type("notebook"):
        nb = tree.notebook(path)
        cell = next((c for c in nb.code_cells if "parameters" in c.tags), None) if nb is not None else None
        if cell is not None:
            found.append(Evidence(path, "papermill cell tagged 'parameters'", rule="config_externalised.papermill",
                                  line_start=1, cell=cell.index, snippet=(cell.source.splitlines() or [""])[0]))
    for path in tree.by_type("rmd"):
        lines = tree.lines(path)
        if not lines or lines[0].strip() != "---":
            continue
        for number, line in enumerate(lines[1:], start=2):
            if line.strip() in ("---", "..."):
                break
            if _FRONT_MATTER_PARAMS_RE.match(line):
                found.append(Evidence(path, "parameterised report (params: in the YAML header)",
                                      rule="config_externalised.rmd_params", line_start=number, snippet=line))
                break
    return found


@detector("config_externalised", version="2.0.0")
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
        notebooks). Counts: parameter files, configuration framework uses, CLI uses.
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
