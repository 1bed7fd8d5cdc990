"""S6 config_externalised: run parameters live outside the code."""

from __future__ import annotations

import re

from scoring.detectors._shared import (
    JULIA,
    MATLAB,
    NATIVE,
    NEXTFLOW,
    PYTHON,
    SNAKEMAKE,
    WORKFLOW_ECOSYSTEMS,
    R,
    fix_ecosystem,
)
from scoring.detectors.signals._common import (
    _CI_ROOT_FILES,
    MAX_EVIDENCE,
    SOURCE_SUFFIXES,
    _is_hidden,
    _join_names,
    _name,
    _parent,
)
from scoring.facts import FileFacts, ImportFact
from scoring.model import Evidence
from scoring.registry import Result, detector
from scoring.tree import TreeIndex

_PARAM_FILE_RE = re.compile(r"(?:config|params|settings|hyperparams)\.(?:ya?ml|json|toml|ini|cfg)", re.IGNORECASE)
_PARAM_SUFFIX_RE = re.compile(r".+\.(?:ya?ml|json|toml|ini|cfg)", re.IGNORECASE)
_CONFIG_DIR_NAMES = frozenset({"config", "configs", "conf", "cfg", "cfgs", "params", "settings", "configuration",
                               "configurations", "parameters"})
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
# Julia's registered argument parsers; ArgMacros' macros read ARGS inside the package
_JULIA_CLI_PACKAGES = frozenset({"ArgParse", "ArgMacros", "DocOpt", "Comonicon", "SimpleArgParse"})
# CliArgFact kinds of the native and MATLAB frontends that are a command line (§0.3 S6 row):
# a MATLAB function's inputs are its interface, so only inputParser here (a driver
# function's arguments are read apart, _matlab_driver_arguments)
_NATIVE_CLI_KINDS = {
    "c_cpp": frozenset({"argv", "getopt", "CLI11", "program_options", "argparse", "cxxopts", "gflags", "absl"}),
    "fortran": frozenset({"get_command_argument"}),
    "matlab": frozenset({"inputParser"}),
}
# Input decks of native codes (§0.3): Athena++ ``athinput.*``, ``*.par``, Fortran ``*.nml``
# namelists, ``*.inp``, ``*.in`` and ``*.ini`` run files. ``.in`` is also the suffix of
# build templates (``Makefile.in``, ``config.h.in``, ``requirements.in``): a name with a
# second dot or a template stem is not a deck.
_DECK_PREFIX_RE = re.compile(r"athinput\..+", re.IGNORECASE)
_DECK_SUFFIX_RE = re.compile(r"[^.]+\.(?:par|nml|inp|in|ini)", re.IGNORECASE)
_TEMPLATE_STEMS = frozenset({"makefile", "gnumakefile", "manifest", "configure", "config", "doxyfile", "setup",
                             "version", "meson_options", "cmakelists", "pytest", "tox", "mypy", "setup.cfg",
                             "flake8", "pylintrc", "desktop", "php"})
# A parameter-like name (§0.3: parameter files the code reads): run settings by their name
_PARAM_STEM_RE = re.compile(r"(?:^|[-_.])(?:config|conf|cfg|configuration|param|params|parameters|parameterset|"
                            r"settings|options|hyperparams?|input)(?:$|[-_.\d])|^param", re.IGNORECASE)
# what a parameter file is not: code, a notebook, a document or an image
_NOT_PARAMETER_SUFFIXES = SOURCE_SUFFIXES | {".ipynb", ".md", ".rst", ".txt.in", ".html", ".css", ".tex", ".bib",
                                             ".pdf", ".png", ".jpg", ".svg"}
# Folders of data and results: a "parameters" JSON there is a stored result, not a setting
_RESULT_DIR_NAMES = frozenset({"data", "dataset", "datasets", "results", "result", "output", "outputs", "figures",
                               "raw", "processed"})


def _is_tool_config(name: str) -> bool:
    lower = name.lower()
    return lower in _TOOL_CONFIG_NAMES or lower.startswith(".") or bool(_CONDA_ENV_NAME_RE.fullmatch(name))


def _parameter_files(tree: TreeIndex) -> tuple[list[Evidence], list[Evidence]]:
    """(root parameter files and the first parameter file of each config directory, the
    other parameter files of those directories)."""
    more: list[Evidence] = []
    found = [Evidence(p, "parameter file at the root", rule="config_externalised.parameter_file")
             for p in tree.files_in("") if _PARAM_FILE_RE.fullmatch(_name(p))]
    level_one = [d for d in tree.subdirs("") if not _name(d).startswith(".")]
    level_two = [s for d in level_one for s in tree.subdirs(d) if not _name(s).startswith(".")]
    for directory in level_one + level_two:
        if _name(directory).lower() not in _CONFIG_DIR_NAMES:
            continue
        prefix = len(directory) + 1
        listed = [path for path in tree.files_under(directory)
                  if _PARAM_SUFFIX_RE.fullmatch(_name(path)) and not _is_tool_config(_name(path))
                  and not _is_hidden(path[prefix:])]
        items = [Evidence(path, f"parameter file in the config directory {directory}/",
                          rule="config_externalised.config_dir") for path in listed]
        found += items[:1]
        more += items[1:]
    return found, more


def _runnable(tree: TreeIndex, path: str) -> bool:
    """Code that runs the analysis: not vendored, test, build or documentation code, and
    not a helper kept in a dependency folder."""
    return tree.role(path) not in ("vendored", "test", "build", "docs") and not _in_dependency_folder(path)


# Folders holding what the analysis depends on (roles.EXTERNAL_DIRS and the vendor
# folders, names compared without case, "_", "-" or spaces: externalPackages, 3rd_party)
_DEPENDENCY_FOLDER_RE = re.compile(r"extern\w*|dependencies|deps|thirdparty\w*|3rdparty\w*|vendor(?:ed)?")


def _in_dependency_folder(path: str) -> bool:
    """A file below a dependency folder (dependencies/, deps/, extern*/, third-party/,
    vendor/): code the analysis uses, whose options are not the analysis's run
    parameters (a string helper's inputParser in dependencies/)."""
    return any(_DEPENDENCY_FOLDER_RE.fullmatch(re.sub(r"[\s_-]", "", part.lower())) for part in path.split("/")[:-1])


def _code_file(tree: TreeIndex, path: str) -> bool:
    """Code whose parameter handling counts (§0.2.2: vendored and build files are out of
    S6), outside dependency folders."""
    return tree.role(path) not in ("vendored", "build") and not _in_dependency_folder(path)


def _native_code(tree: TreeIndex) -> bool:
    return any(tree.role(p) != "vendored" for frontend in ("c_cpp", "fortran") for p in tree.by_frontend(frontend))


def _is_deck(name: str) -> bool:
    if _DECK_PREFIX_RE.fullmatch(name):
        return True
    if not _DECK_SUFFIX_RE.fullmatch(name) or _is_tool_config(name):
        return False
    stem = name.rsplit(".", 1)[0].lower()
    return stem not in _TEMPLATE_STEMS and not stem.startswith("requirements")


def _input_decks(tree: TreeIndex) -> tuple[list[Evidence], list[Evidence]]:
    """Input decks of a native code (§0.3 native S6 100), vendored and hidden folders
    excepted; none unless the deposit has C/C++/Fortran code. Returns (the first deck of
    each folder, the other decks taken in turn from each folder)."""
    if not _native_code(tree):
        return [], []
    found: dict[str, list[Evidence]] = {}
    for path in tree.files:
        if _is_hidden(path) or tree.role(path) == "vendored" or not _is_deck(_name(path)):
            continue
        found.setdefault(_parent(path), []).append(
            Evidence(path, "input deck of the native code, read at run time", rule="config_externalised.input_deck"))
    return [decks[0] for decks in found.values()], _in_turn([decks[1:] for decks in found.values()])


def _code_literals(tree: TreeIndex) -> dict[str, list[tuple[str, int]]]:
    """Every file name a string literal of runnable code ends with (not docstrings):
    name -> (file, line) of its first mention in each file, in path order."""
    names: dict[str, list[tuple[str, int]]] = {}
    for path, facts in sorted(tree.all_facts().items()):
        if not _runnable(tree, path):
            continue
        for string in facts.strings:
            if string.docstring or not string.value or len(string.value) > 300 or "\n" in string.value:
                continue
            name = string.value.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
            if "." in name:
                mentions = names.setdefault(name, [])
                if not mentions or mentions[-1][0] != path:
                    mentions.append((path, string.line_start))
    return names


# Structured configuration formats, and the calls that load them (the last part of the
# callee: yaml.safe_load, json.load, tomllib.load, OmegaConf.load, yaml::read_yaml,
# YAML.load_file, TOML.parsefile, jsondecode)
_STRUCTURED_SUFFIX_RE = re.compile(r".+\.(?:ya?ml|json|toml|ini)", re.IGNORECASE)
_LOADER_CALLS = frozenset({"load", "safe_load", "full_load", "unsafe_load", "load_all", "safe_load_all", "loads",
                           "read_yaml", "load_file", "parsefile", "read_json", "fromJSON",
                           "jsondecode", "read_toml", "parse_file", "read_file"})
_OPEN_CALLS = frozenset({"open", "io.open", "codecs.open", "fileread", "readLines", "file"})
# how many lines below an ``open(...)`` the loader of its handle may be
_LOADER_REACH = 3


def _loader_opened_names(tree: TreeIndex) -> set[str]:
    """The names of the structured files (YAML, JSON, TOML, INI) a string literal of
    runnable code hands to a loader: an argument of a loader call
    (``yaml::read_yaml("cfgs/run.yml")``), or of ``open(...)`` whose handle a loader of
    the same file reads at most three lines below (``with open('cfgs/default_cfg.yml')
    as f: cfg = yaml.load(f)``)."""
    names: set[str] = set()
    for path, facts in sorted(tree.all_facts().items()):
        if not _runnable(tree, path):
            continue
        loaders = [(c.cell, c.line) for c in facts.calls if _callee_tail(c.name) in _LOADER_CALLS]
        if not loaders:
            continue
        for call in facts.calls:
            tail = _callee_tail(call.name)
            if tail in _LOADER_CALLS or (call.name in _OPEN_CALLS and any(
                    cell == call.cell and call.line <= line <= call.line + _LOADER_REACH for cell, line in loaders)):
                for arg in call.args:
                    if isinstance(arg, str) and _STRUCTURED_SUFFIX_RE.fullmatch(arg):
                        names.add(arg.replace("\\", "/").rsplit("/", 1)[-1])
    return names


def _callee_tail(name: str) -> str:
    """A callee without its module or package (``yaml.safe_load`` -> safe_load,
    ``yaml::read_yaml`` -> read_yaml, ``YAML.load_file`` -> load_file)."""
    return re.split(r"::|\.", name)[-1]


def _loaded_parameter_files(tree: TreeIndex) -> tuple[list[Evidence], list[Evidence]]:
    """Parameter files the code names (§0.3: a path literal the code loads, wherever the
    file is): a file with a parameter-like name (config, param, settings, options, input)
    and no code or document suffix whose name a string literal of runnable code ends with
    (``pkgutil.get_data(__name__, 'config.json')``, ``case('param_gfn2-xtb.txt')``).
    Returns (the first mention of each, then the parameter files and the other files'
    mentions, taken in turn from each parameter file)."""
    literals = None
    opened: set[str] | None = None
    found: list[Evidence] = []
    more: list[list[Evidence]] = []
    for path in tree.files:
        name = _name(path)
        lower = name.lower()
        dot = lower.rfind(".")
        if dot <= 0 or lower[dot:] in _NOT_PARAMETER_SUFFIXES or _is_tool_config(name) or _is_hidden(path) \
                or tree.role(path) in ("vendored", "test") \
                or any(part.lower() in _RESULT_DIR_NAMES for part in path.split("/")[:-1]):
            continue
        if not _PARAM_STEM_RE.search(name[:dot]):
            if not _STRUCTURED_SUFFIX_RE.fullmatch(name):
                continue
            if opened is None:
                opened = _loader_opened_names(tree)
            if name not in opened:
                continue
        if literals is None:
            literals = _code_literals(tree)
        mentions = literals.get(name)
        if mentions:
            items = [Evidence(where, f"names the parameter file {path}",
                              rule="config_externalised.loaded_parameter_file", line_start=line,
                              snippet=tree.snippet(where, line)) for where, line in mentions]
            found.append(items[0])
            more.append([Evidence(path, f"parameter file the code names ({mentions[0][0]}:{mentions[0][1]})",
                                  rule="config_externalised.parameter_file_loaded"), *items[1:]])
    return found, _in_turn(more)


def _in_turn(groups: list[list[Evidence]]) -> list[Evidence]:
    """The items of ``groups`` taken in turn: every group's first, then every group's second…"""
    return [group[i] for i in range(max(map(len, groups), default=0)) for group in groups if i < len(group)]


def _nextflow_parameter_reads(tree: TreeIndex) -> list[Evidence]:
    """80-tier evidence of Nextflow code that reads ``params.x`` with no default anywhere
    (§0.3 S6 workflows): the value comes from ``--x`` on the command line. One per file,
    at its first read."""
    found: list[Evidence] = []
    for path in tree.by_frontend("nextflow"):
        facts = tree.facts(path) if _code_file(tree, path) else None
        reads = [a for a in facts.cli_args if a.kind == "params" and not a.assigned] if facts else []
        if reads:
            first = min(reads, key=lambda a: a.line)
            found.append(Evidence(path, f"reads the pipeline parameter params.{first.name} (--{first.name} on the "
                                        "command line)", rule="config_externalised.nextflow_parameter",
                                  line_start=first.line, snippet=tree.snippet(path, first.line)))
    return found


# The names of a deposit's top-level driver (as D5 reads them): main.m, run_all.m…
_DRIVER_STEMS = frozenset({"main", "run", "run_all", "runall", "start", "execute"})


def _matlab_driver_arguments(tree: TreeIndex) -> list[Evidence]:
    """80-tier evidence of a MATLAB driver function that takes its run parameters as
    arguments (§0.3 S6 MATLAB "function arguments"): a top-level main.m / run_all.m …
    whose function has inputs, what ``matlab -batch "main(cfg)"`` is given. A library
    function's arguments are its API, not run parameters."""
    found: list[Evidence] = []
    for path in tree.by_frontend("matlab"):
        if "/" in path or _name(path).rsplit(".", 1)[0].lower() not in _DRIVER_STEMS or not _runnable(tree, path):
            continue
        facts = tree.facts(path)
        line = min((a.line for a in facts.cli_args if a.kind == "function_arguments"), default=None) if facts else None
        if line is not None:
            found.append(Evidence(path, "the driver function takes the run parameters as arguments",
                                  rule="config_externalised.driver_arguments", line_start=line,
                                  snippet=tree.snippet(path, line)))
    return found


# the words of a MATLAB parameter script's name (config_eMouse.m, StandardConfig_MOVEME.m,
# params_run2.m), camelCase parts split
_MATLAB_NAME_WORD_RE = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_PARAMETER_WORDS = frozenset({"config", "configuration", "conf", "cfg", "param", "params", "parameter", "parameters",
                              "settings", "options", "opts", "hyperparams"})


def _parameter_named(path: str) -> bool:
    """A MATLAB script named for run settings, or kept in a configuration folder (a folder
    whose name starts with config: configFiles/, config_files/; or params/, settings/…)."""
    stem = _name(path).rsplit(".", 1)[0]
    if any(word.lower() in _PARAMETER_WORDS for word in _MATLAB_NAME_WORD_RE.findall(stem)):
        return True
    return any(part.lower().startswith("config") or part.lower() in _CONFIG_DIR_NAMES for part in path.split("/")[:-1])


def _matlab_parameter_scripts(tree: TreeIndex) -> list[Evidence]:
    """MATLAB's parameter files (§3 S6 100 tier in MATLAB's own form, §0.3): a script (no
    function or class) named for settings or kept in a configuration folder that runnable
    code of the deposit runs, by ``run(...)`` with a literal naming it
    (``run(fullfile(configDir, 'StandardConfig.m'))``) or by calling it by name. The
    driver runs it to build the options (``ops.fs = 25000;``) the pipeline takes, and a
    user copies and edits it: the settings of a run, kept outside the code that uses them."""
    scripts: dict[str, str] = {}   # stem -> script
    for path in tree.by_frontend("matlab"):
        facts = tree.facts(path)
        if facts is None or facts.parse_error or facts.definitions or not _runnable(tree, path) \
                or not _parameter_named(path):
            continue
        scripts.setdefault(_name(path).rsplit(".", 1)[0], path)
    if not scripts:
        return []
    runs: dict[str, tuple[str, int]] = {}   # script -> (runner, line)
    for path in tree.by_frontend("matlab"):
        facts = tree.facts(path) if _runnable(tree, path) else None
        if facts is None:
            continue
        run_lines = {c.line for c in facts.calls if c.name == "run"}
        named = [(c.name, c.line) for c in facts.calls if c.name in scripts]
        named += [(_script_stem(a), c.line) for c in facts.calls if c.name == "run" for a in c.args if isinstance(a, str)]
        named += [(_script_stem(s.value), s.line_start) for s in facts.strings if s.line_start in run_lines]
        for stem, line in sorted(named, key=lambda item: item[1]):
            script = scripts.get(stem)
            if script is not None and script != path and script not in runs:
                runs[script] = (path, line)
    return [Evidence(script, f"MATLAB parameter script, run by {runner}:{line}",
                     rule="config_externalised.matlab_parameter_script")
            for script, (runner, line) in sorted(runs.items())]


def _script_stem(value: str) -> str:
    """The script a ``run`` argument names: its last path component without ``.m``."""
    name = value.replace("\\", "/").rsplit("/", 1)[-1]
    return name[:-2] if name.lower().endswith(".m") else name


# inputParser's methods: ``addParameter(p, …)`` also shows an ``p = inputParser;`` written
# without parentheses, which is no call
_INPUT_PARSER_METHODS = frozenset({"addParameter", "addParamValue", "addOptional", "addRequired"})


def _native_cli_signals(tree: TreeIndex) -> list[Evidence]:
    """80-tier evidence of C/C++ (main's argv, getopt, CLI11, Boost.Program_options …),
    Fortran (get_command_argument) and MATLAB (inputParser) code, one per file."""
    found: list[Evidence] = []
    for frontend, kinds in _NATIVE_CLI_KINDS.items():
        for path in tree.by_frontend(frontend):
            if not _runnable(tree, path):
                continue
            facts = tree.facts(path)
            if facts is None:
                continue
            uses = [(a.line, a.kind) for a in facts.cli_args if a.kind in kinds]
            if frontend == "matlab":
                uses += [(c.line, "inputParser") for c in facts.calls
                         if c.name.rsplit(".", 1)[-1] in _INPUT_PARSER_METHODS]
            if uses:
                line, kind = min(uses)
                what = ("main() takes argv" if kind == "argv"
                        else "parses its name-value options with inputParser" if kind == "inputParser"
                        else f"parses the command line with {kind}")
                found.append(Evidence(path, what, rule="config_externalised.cli_parser", line_start=line,
                                      snippet=tree.snippet(path, line)))
    return sorted(found, key=lambda e: e.path)


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


_OPTION_CALLS = ("add_argument", "add_option")


def _options_evidence(tree: TreeIndex, path: str, facts: FileFacts, cell: int | None,
                      ref: ImportFact) -> Evidence | None:
    """Where an argparse/optparse command line declares its options: the function holding
    the first ``add_argument``/``add_option`` call (``def add_arguments(parser): …``), or
    the calls themselves at module level; None when the file declares none."""
    calls = sorted(c.line for c in facts.calls
                   if c.cell == cell and c.name.rsplit(".", 1)[-1] in _OPTION_CALLS)
    if _top(ref) not in ("argparse", "optparse") or not calls:
        return None
    holders = [d for d in facts.definitions if d.cell == cell and d.kind == "function"
               and d.line <= calls[0] <= (d.end_line or d.line)]
    if holders:
        holder = max(holders, key=lambda d: d.line)   # the innermost
        first, last, where = holder.line, holder.end_line or holder.line, f" in {holder.name}()"
    else:
        first, last, where = calls[0], calls[-1], ""
    return Evidence(path, f"declares its command-line options with {ref.module}{where}",
                    rule="config_externalised.cli_parser", line_start=first, line_end=last, cell=cell,
                    snippet=tree.snippet(path, first, cell))


def _python_config_signals(tree: TreeIndex) -> tuple[list[Evidence], list[Evidence]]:
    """(100-tier, 80-tier) evidence from Python files and notebook cells, one per file."""
    full: dict[str, Evidence] = {}
    cli: dict[str, Evidence] = {}
    for path in tree.files:   # in path order, .py files and notebooks mixed, as evidence lists them
        info = tree.info(path)
        if info is None or info.alias_of is not None or info.type not in ("python", "notebook") \
                or not _code_file(tree, path):
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
                    cli[path] = _options_evidence(tree, path, facts, cell, ref) or Evidence(
                        path, f"imports the command-line parser {ref.module}",
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
        if path not in full and path not in cli:
            flags = _flag_definitions_evidence(tree, path, facts)
            if flags is not None:
                cli[path] = flags
    return list(full.values()), [e for p, e in cli.items() if p not in full]


# The gflags API (absl.flags, TensorFlow 1's re-exports tf.app.flags, tf.flags and
# tf.compat.v1(.app).flags, python-gflags): each option is a DEFINE_<type>(name, default,
# help) call
_FLAG_DEFINITION_RE = re.compile(
    r"DEFINE_(?:string|integer|float|bool|boolean|enum|enum_class|list|spaceseplist|multi|multi_string|"
    r"multi_integer|multi_float|multi_enum|multi_enum_class|flag|alias)")
_FLAG_MODULE_RE = re.compile(r"absl\.flags|gflags|tensorflow(?:\.compat\.v1)?(?:\.app)?\.flags")
# the packages whose flags a local name can hold (``flags = tf.app.flags``)
_FLAG_PACKAGES = frozenset({"absl", "gflags", "tensorflow"})


def _flag_definitions_evidence(tree: TreeIndex, path: str, facts: FileFacts) -> Evidence | None:
    """Where a Python file declares gflags-style command-line flags (§3 S6 80 tier,
    absl.flags): its ``DEFINE_<type>`` calls on absl.flags, gflags or TensorFlow's flags
    module, or on a local name in a file importing one of those packages (the frontend
    resolves imports, not ``flags = tf.app.flags``), from the first call to the last of
    that cell (the function holding the first, when one does); None when it has none."""
    imported = {ref.module.split(".")[0] for ref in facts.imports}
    calls = []
    for call in facts.calls:
        receiver, _, method = call.name.rpartition(".")
        if _FLAG_DEFINITION_RE.fullmatch(method) and (
                _FLAG_MODULE_RE.fullmatch(receiver)
                or (receiver.isidentifier() and receiver not in ("self", "cls")
                    and not imported.isdisjoint(_FLAG_PACKAGES))):
            calls.append(call)
    if not calls:
        return None
    first = min(calls, key=lambda c: (c.cell or 0, c.line))
    lines = sorted(c.line for c in calls if c.cell == first.cell)
    holders = [d for d in facts.definitions if d.cell == first.cell and d.kind == "function"
               and d.line <= first.line <= (d.end_line or d.line)]
    if holders:
        holder = max(holders, key=lambda d: d.line)
        start, end, where = holder.line, holder.end_line or holder.line, f" in {holder.name}()"
    else:
        start, end, where = lines[0], lines[-1], ""
    return Evidence(path, f"declares {len(calls)} command-line flag{'s' if len(calls) != 1 else ''} with "
                          f"{first.written.rpartition('.')[0]}.DEFINE_*{where}",
                    rule="config_externalised.cli_parser", line_start=start, line_end=end if end > start else None,
                    cell=first.cell, snippet=tree.snippet(path, start, first.cell))


def _text_config_signals(tree: TreeIndex) -> tuple[list[Evidence], list[Evidence]]:
    """(100-tier, 80-tier) evidence from R and Julia code (``.R``, ``.jl``, R Markdown)."""
    full: list[Evidence] = []
    cli: list[Evidence] = []
    for path in tree.by_type("r") + tree.by_type("julia") + tree.by_type("rmd"):
        facts = tree.facts(path) if _code_file(tree, path) else None
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


_CONFIGFILE_OPTION_RE = re.compile(r"(?:^|\s)--configfiles?(?:[\s=]|$)")
_YAML_JSON_RE = re.compile(r".+\.(?:ya?ml|json)", re.IGNORECASE)


def _snakemake_configfile_directive(tree: TreeIndex) -> bool:
    """Whether a Snakefile of the tree loads its config with a top-level ``configfile:``
    (its config reads, and those of the rule files it includes, are that file's)."""
    for path in tree.files:
        name = _name(path).lower()
        if (name == "snakefile" or name.endswith(".smk")) and _code_file(tree, path):
            facts = tree.facts(path)
            if facts and any(d.kind == "configfile" and not d.scope for d in facts.directives):
                return True
    return False


def _snakemake_config_given(tree: TreeIndex, path: str, facts: FileFacts) -> Evidence | None:
    """A Snakefile with no ``configfile:`` that reads its ``config`` dictionary
    (``config["samples"]``, ``config.get(...)``) is configured from outside as a
    ``configfile:`` one is (§0.3 S6 Snakemake 100, "parameter files loaded by the code")
    when the file that fills the dictionary is there: a YAML/JSON file named for
    parameters (run_config.yaml, params.json) in the Snakefile's folder, in its config/
    folder or in the root config/, or a README (the root one or one in the Snakefile's
    folder) running snakemake with ``--configfile``."""
    reads = sorted(a.line for a in facts.cli_args if a.kind == "config")
    if not reads:
        return None
    line = reads[0]
    folder = _parent(path)
    places = [folder, f"{folder}/config" if folder else "config", "config"]
    for place in dict.fromkeys(places):
        for candidate in tree.files_in(place):
            name = _name(candidate)
            if _YAML_JSON_RE.fullmatch(name) and not _is_tool_config(name) \
                    and _PARAM_STEM_RE.search(name.rsplit(".", 1)[0]):
                return Evidence(path, f"reads the config dictionary filled from {candidate}",
                                rule="config_externalised.snakemake_config", line_start=line,
                                snippet=tree.snippet(path, line))
    readmes = [p for p in tree.files_in(folder) if _name(p).lower().startswith("readme")]
    for readme in dict.fromkeys(readmes + ([tree.readme] if tree.readme else [])):
        doc = tree.document(readme)
        command = next((number for number, text, _ in doc.command_lines() if "snakemake" in text
                        and _CONFIGFILE_OPTION_RE.search(text)), None) if doc is not None else None
        if command is not None:
            return Evidence(path, f"reads the config dictionary given with --configfile ({readme}:{command})",
                            rule="config_externalised.snakemake_config", line_start=line,
                            snippet=tree.snippet(path, line))
    return None


def _workflow_config_signals(tree: TreeIndex) -> list[Evidence]:
    """Snakemake configfile:, Nextflow params, papermill parameters cells, R Markdown params."""
    found: list[Evidence] = []
    configured = None   # whether a Snakefile of the tree has a configfile: directive
    for path in tree.files:
        name = _name(path).lower()
        if not _code_file(tree, path):
            continue
        if name == "snakefile" or name.endswith(".smk"):
            rule, reason = "config_externalised.snakemake_configfile", "Snakemake configfile:"
            facts = tree.facts(path)
            lines = [d.line for d in facts.directives if d.kind == "configfile" and not d.scope] if facts else []
            if configured is None:
                configured = _snakemake_configfile_directive(tree)
            if not lines and facts and not configured:
                given = _snakemake_config_given(tree, path, facts)
                if given is not None:
                    found.append(given)
                    continue
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
    # the defaults a run overrides live in nextflow.config (§0.3: params with nextflow.config)
    found.sort(key=lambda e: _name(e.path).lower() != "nextflow.config")
    for path in tree.by_type("notebook"):
        facts = tree.facts(path) if _code_file(tree, path) else None
        cell = next((c for c in facts.cells if c.kind == "code" and "parameters" in c.tags), None) if facts else None
        if cell is not None:
            found.append(Evidence(path, "papermill cell tagged 'parameters'", rule="config_externalised.papermill",
                                  line_start=1, cell=cell.index, snippet=tree.snippet(path, 1, cell.index) or ""))
    for path in tree.by_type("rmd"):
        header = tree.front_matter(path) if _code_file(tree, path) else None
        if header is not None and "params" in header.keys:
            number, line = header.keys["params"]
            found.append(Evidence(path, "parameterised report (params: in the YAML header)",
                                  rule="config_externalised.rmd_params", line_start=number, snippet=line))
    return found


# The fixes in the deposit's own ecosystem (§0.3 S6 row): parameters hard-coded (0) ...
_FIX_HARD_CODED = {
    PYTHON: "Move hard-coded run parameters into config.yaml (read with yaml/Hydra) or expose them as argparse "
            "command-line options.",
    R: "Move hard-coded run parameters into config.yml read with config::get(), or read them from the command line "
       "with optparse or commandArgs() (an R Markdown report: params: in its YAML header).",
    JULIA: "Move hard-coded run parameters into a TOML file read with TOML.parsefile(), or read them from the "
           "command line with ArgParse.jl or ARGS.",
    MATLAB: "Move hard-coded run parameters into a parameter file (a .json read with jsondecode(fileread(...))), or "
            "pass them to the driver function as arguments checked with inputParser.",
    NATIVE: "Read the run parameters from an input file (a Fortran namelist, a parameter deck) or the command line "
            "(getopt, CLI11) instead of compiling them in.",
    NEXTFLOW: "Declare the pipeline parameters with defaults in nextflow.config (params { ... }), so runs override "
              "them with --name or -params-file.",
    SNAKEMAKE: "Move the workflow's settings into config/config.yaml read with configfile:, so runs override them "
               "with --configfile.",
}
# ... or only on the command line (80)
_FIX_COMMAND_LINE = {
    PYTHON: "Move the run parameters into a parameter file (config.yaml or params.yaml) read by the code, so the "
            "exact settings of the published run are recorded.",
    R: "Move the run parameters into a parameter file (config.yml read with config::get()), so the exact settings "
       "of the published run are recorded.",
    JULIA: "Move the run parameters into a TOML file read with TOML.parsefile(), so the exact settings of the "
           "published run are recorded.",
    MATLAB: "Move the run parameters into a parameter file (a .json read with jsondecode(fileread(...))), so the "
            "exact settings of the published run are recorded.",
    NATIVE: "Commit an input file the program reads (a namelist or parameter deck) with the settings of the "
            "published run.",
    NEXTFLOW: "Give the pipeline parameters defaults in nextflow.config (params { ... }) or commit a -params-file, "
              "so the exact settings of the published run are recorded.",
    SNAKEMAKE: "Move the run parameters into config/config.yaml read with configfile:, so the exact settings of the "
               "published run are recorded.",
}


@detector("config_externalised", version="2.5.0")
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
        ARGS or ArgParse/ArgMacros/DocOpt/Comonicon/SimpleArgParse. 0: none. Imports
        are read from the parsed code, never from comments or prose; the highest tier
        found wins.
        Every ecosystem (METRICS.md §0.3 S6 row; 2.1.0): 100 also for a parameter file
        the code loads wherever it is — a file whose name says parameters (config, conf,
        configuration, param, params, parameters, settings, options, input) with no code
        or document suffix, outside data/results folders, that a string literal of
        runnable (not test, build, docs or vendored) code names
        (``pkgutil.get_data(__name__, 'config.json')``, Fortran ``case('param_gfn2-xtb.txt')``);
        the input decks of a deposit with C/C++/Fortran code (``athinput.*``, ``*.par``,
        ``*.nml``, ``*.inp``, ``*.in`` and ``*.ini`` run files; build templates such as
        ``Makefile.in``, ``config.h.in``, ``requirements.in`` and tool INI files excepted);
        configuration/, configurations/ and parameters/ folders are config directories.
        80 also for C/C++ ``main(argc, argv)``, getopt/getopt_long, CLI11,
        Boost.Program_options, cxxopts, gflags, Fortran ``get_command_argument`` and MATLAB
        ``inputParser`` (its ``addParameter``/``addOptional``/``addRequired`` calls too,
        since ``p = inputParser;`` is no call) in runnable code. 2.2.0: §0.3's MATLAB
        "function arguments", read by the letter of §3 S6's 80 tier (the run's command
        line): the arguments of the deposit's driver function, a top-level main.m,
        run.m, run_all.m, start.m or execute.m with inputs (``matlab -batch
        "main(cfg)"``), count for 80; a library function's arguments are its API, not
        run parameters (the curators of spikes and magnitude_stereotypy). A Nextflow
        ``params.x`` read with no default anywhere is a command-line parameter
        (``--x``): 80. Vendored and build files are out of every code signal
        (§0.2.2), and so is code kept in a dependency folder (dependencies/, deps/,
        extern*/, third-party/, vendor/, names compared without case, "_", "-" or
        spaces), whose options belong to a helper, not to the analysis. 2.3.0: the
        gflags API is absl.flags's (§3 S6 80 tier): Python DEFINE_<type> calls
        (DEFINE_string, DEFINE_integer, DEFINE_float…) on absl.flags, gflags or
        TensorFlow 1's re-exports (tf.app.flags, tf.flags, tf.compat.v1(.app).flags),
        or on a local name (not self or cls) in a file importing tensorflow, absl or
        gflags (``flags = tf.app.flags; flags.DEFINE_string(...)``), count for 80.
        2.4.0: a MATLAB parameter script is a parameter file (§3 S6 100 tier in
        MATLAB's own form, §0.3): a script (no function or class) named for settings (config, conf,
        cfg, param(s), parameter(s), settings, options, opts as a word of its name,
        camelCase parts too: StandardConfig_MOVEME.m) or kept in a configuration
        folder (a folder whose name starts with config, configFiles/; params/,
        settings/…), that runnable code of the deposit runs: ``run(...)`` with a literal
        naming it (``run(fullfile(configDir, 'StandardConfig.m'))``) or a call by its
        name. The driver runs it to build the options the pipeline takes, and a user
        copies and edits it. 2.5.0 (§0.3 "parameter files loaded by the code count for
        S6 wherever they are"): a YAML, JSON, TOML or INI file counts whatever its name
        when a string literal of runnable code hands it to a loader — an argument of a
        loader call (yaml::read_yaml, TOML.parsefile, json.load…) or of ``open(...)``
        whose handle a loader of the same file reads at most three lines below
        (``with open('experiments/cfgs/default_cfg.yml') as f: cfg = yaml.load(f)``);
        cfg is a parameter word and cfg/, cfgs/ are config directories. A Snakefile
        with no ``configfile:`` that reads ``config["x"]`` or ``config.get("x")``
        counts as configfile: does (100), when no Snakefile of the tree has a
        configfile: (which fills the dictionary of the files it includes), if the file
        filling the dictionary is there: a YAML/JSON file named for parameters in the Snakefile's folder, its
        config/ folder or the root config/, or a README (the root one or the
        Snakefile folder's) running snakemake with ``--configfile``. Julia's ArgMacros
        and SimpleArgParse are command-line parsers (80) as ArgParse is.
    Why it matters:
        Parameters buried in code must be edited by hand to rerun or vary an analysis;
        externalised parameters record exactly what the published run used.
    Evidence:
        The parameter file, config directory file or the import / call line (cell for
        notebooks); for a sys.argv subscript, the file's first in reading order (2.0.1:
        it was the first of a breadth-first walk of the syntax tree, which could point
        below the first read); for argparse/optparse, where the options are declared (the
        function holding the first add_argument/add_option call, or the calls), else the
        import; for gflags-style flags, where they are defined (the function holding the
        first DEFINE_* call, or the calls). Each kind of source first (a config
        directory's first file, each loaded parameter file at its first mention, each
        folder's first deck), then in the room
        left: the loaded parameter files themselves and their mentions in other files, the
        other files of the config directories and the other decks, each taken in turn;
        in a Nextflow or Snakemake deposit its workflow parameters come first
        (nextflow.config's params block, configfile:; 2.4.1), before a tool's
        configuration file the code names (assets/multiqc_config.yml).
        A MATLAB parameter script with the driver line that runs it. Counts: parameter
        files, configuration framework uses, CLI uses, MATLAB parameter scripts.
    How to fix:
        Move run parameters into a parameter file read by the code, or at least expose
        them on the command line, with the deposit's own tools (the fix names them):
        config.yaml with yaml/Hydra or argparse; R config::get(), optparse,
        commandArgs() or Rmd params:; a TOML file or ArgParse.jl; a MATLAB .json read
        with jsondecode or a driver's arguments checked by inputParser; a namelist,
        parameter deck or getopt; Nextflow params with defaults in nextflow.config;
        Snakemake configfile:.
    Known false positives:
        A file named config.json or a configs/ folder holding something other than run
        parameters counts; a helper function's inputParser (a string utility's options)
        counts for 80 outside a dependency folder; a ``*.in``/``*.ini`` file of a native tree that is not a run file
        counts as a deck; an argparse import in a helper script counts although the
        analysis itself may hard-code its parameters; a DEFINE_* method of an object
        other than a flags module, in a file importing tensorflow, absl or gflags,
        counts as a flag definition. A MATLAB script named for settings that a driver
        runs counts as a parameter file even when it computes more than settings. A
        YAML/JSON data file a loader reads by a literal path counts as a parameter file
        unless it sits in a data or results folder.
    """
    files, more_files = _parameter_files(tree)
    loaded, more_loaded = _loaded_parameter_files(tree)
    decks, more_decks = _input_decks(tree)
    py_full, py_cli = _python_config_signals(tree)
    text_full, text_cli = _text_config_signals(tree)
    workflow = _workflow_config_signals(tree)
    matlab_scripts = _matlab_parameter_scripts(tree)
    full = files + loaded + decks + matlab_scripts + workflow + py_full + text_full
    if fix_ecosystem(tree) in WORKFLOW_ECOSYSTEMS:
        # a workflow's own parameters first (findings-B: not a tool's configuration file)
        full = workflow + files + loaded + decks + matlab_scripts + py_full + text_full
    cli = py_cli + text_cli + _native_cli_signals(tree) + _matlab_driver_arguments(tree)
    if not workflow:
        cli += _nextflow_parameter_reads(tree)
    counts = {"parameter_files": len(files), "config_frameworks": len(py_full) + len(text_full) + len(workflow),
              "cli_files": len(cli)}
    if matlab_scripts:
        counts["matlab_parameter_scripts"] = len(matlab_scripts)
    if loaded:
        counts["loaded_parameter_files"] = len(loaded)
    if decks:
        counts["input_deck_folders"] = len(decks)
    if full:
        # every kind of source first; the other files of each kind fill the room left
        shown = full + more_loaded + more_files + more_decks
        return Result(100, evidence=shown[:MAX_EVIDENCE], counts=counts,
                      reason=f"parameters externalised ({full[0].reason.rstrip(':')}: {full[0].path})")
    if cli:
        # MATLAB options are a function's name-value arguments, not a command line
        source = "command line" if fix_ecosystem(tree) != MATLAB else "function arguments"
        return Result(80, evidence=cli[:MAX_EVIDENCE], counts=counts, fix=_FIX_COMMAND_LINE[fix_ecosystem(tree)],
                      reason=f"parameters come from the {source} ({_join_names([e.path for e in cli])})")
    return Result(0, counts=counts, fix=_FIX_HARD_CODED[fix_ecosystem(tree)],
                  reason="no parameter file, configuration framework or command-line parser found")
