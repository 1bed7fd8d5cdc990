"""E3 env_bootstrap: one command creates the software environment."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from scoring.detectors._shared import (
    JULIA,
    MATLAB,
    NATIVE,
    NEXTFLOW,
    SNAKEMAKE,
    R,
    fix_ecosystem,
    own_project_names,
    setup_documents,
)
from scoring.detectors.environment._common import (
    MAX_EVIDENCE,
    R_PACKAGE_INSTALL_RE,
    _join_names,
    _name,
    _workflows,
)
from scoring.facts import CallFact, Expr, FileFacts
from scoring.model import Evidence
from scoring.parsers.manifests import normalize_name
from scoring.parsers.shell import (
    Command,
    container_build_tags,
    container_image,
    image_name,
    split_commands,
    strip_comment,
    strip_prompt,
)
from scoring.parsers.tasks import Target
from scoring.registry import Result, detector
from scoring.tree import TreeIndex

# The REF's bootstrap target words (plus `venv`, a common miss); a target qualifies when its
# name starts with one of them, so `setup-env` and `install_deps` count.
_BOOTSTRAP_TARGET_WORDS = (
    "setup",
    "install",
    "env",
    "environment",
    "deps",
    "dependencies",
    "bootstrap",
    "venv",
)
# install.sh, setup_env.sh, and set-up scripts named after what they install
# (install-micromamba.sh, setup_conda.bash).
_BOOTSTRAP_SCRIPT_RE = re.compile(
    r"(?:install|bootstrap|setup|env[-_]setup|create[-_]env)(?:[-_][\w.-]*)?\.(?:sh|bash|ps1|bat)",
    re.IGNORECASE,
)
_SCRIPT_DIRS = ("scripts", "bin")

_MANAGER_PROGRAM_RE = re.compile(
    r"conda|mamba|micromamba|conda-lock|pip(?:\d+(?:\.\d+)*)?|uv|poetry|pixi|pipenv|pdm|virtualenv"
)
_PYTHON_PROGRAM_RE = re.compile(r"python(?:\d+(?:\.\d+)*)?|py|pypy3?")
_PYTHON_ENV_MODULES = frozenset({"venv", "virtualenv", "pip", "uv", "conda"})
_MAKE_VARIABLE_RE = re.compile(r"\$[({]([A-Za-z_][A-Za-z0-9_]*)[)}]")
_R_INSTALL_CODE_RE = re.compile(
    r"renv::|install\.packages|biocmanager::install|remotes::install|devtools::install|pak::",
    re.IGNORECASE,
)
_JULIA_INSTALL_CODE_RE = re.compile(r"Pkg\.(?:instantiate|add|activate)", re.IGNORECASE)
_WINDOWS_WRAPPERS = frozenset({"call", "&", "start", "cmd", "/c"})
# code blocks of MATLAB/Octave code, where `%` starts a comment
_MATLAB_BLOCKS = frozenset({"matlab", "octave"})

# README one-command environment creation that is not a plain shell command.
_R_RESTORE_RE = re.compile(r"renv::restore\s*\(")
_JULIA_INSTANTIATE_RE = re.compile(
    r"Pkg\.instantiate\s*\(|^\s*(?:\([^)]*\)\s*)?(?:pkg>|\])\s*instantiate\b", re.IGNORECASE
)
_BINDER_LINK_RE = re.compile(r"^https?://(?:www\.)?mybinder\.org(?::\d*)?/(?:v2|repo)/", re.IGNORECASE)
# Workflow engines build each step's environment themselves when told to (§0.3 workflows E3).
_SNAKEMAKE_ENV_FLAG_RE = re.compile(
    r"--(?:use-conda|use-singularity|use-apptainer|use-envmodules|software-deployment-method|sdm)\b"
)
_BUILD_INSTALL_PROGRAMS = frozenset({"make", "gmake", "ninja", "cmake"})
_TASK_RUNNERS = frozenset({"make", "gmake", "task", "just"})
# repo2docker configuration files that declare the environment's packages (apt.txt,
# runtime.txt and postBuild alone do not).
_BINDER_CONFIG_NAMES = frozenset(
    {
        "environment.yml", "requirements.txt", "pipfile", "pipfile.lock", "setup.py", "pyproject.toml",
        "project.toml", "manifest.toml", "require", "install.r", "description", "dockerfile",
    }
)  # fmt: skip


def _program(word: str) -> str:
    """Lower-case base name of an invoked program (``C:\\bin\\conda.exe`` → ``conda``)."""
    base = word.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return base[:-4] if base.endswith(".exe") else base


def _command_words(command: Command) -> list[str]:
    words = list(command.words)
    # Windows scripts: `call conda …`, `& conda …`, `@conda …`.
    while words and (words[0].lower() in _WINDOWS_WRAPPERS):
        words = words[1:]
    if words and words[0].startswith("@"):
        words[0] = words[0][1:]
    return [w for w in words if w]


def _python_module(args: Sequence[str]) -> str | None:
    for index, arg in enumerate(args):
        if arg == "-m" and index + 1 < len(args):
            return args[index + 1].lower()
        if arg.startswith("-m") and len(arg) > 2 and not arg.startswith("--"):
            return arg[2:].lower()
    return None


# R calls that install what the project declares (§0.3 E3 × R: renv::restore(),
# remotes::install_deps(), devtools::install(); their pak forms)
_R_ENVIRONMENT_CALLS = frozenset({
    "renv::restore", "remotes::install_deps", "devtools::install_deps", "devtools::install",
    "pak::local_install", "pak::local_install_deps", "pak::local_install_dev_deps",
})
# R calls that install the packages they name (BiocManager::install(...), install.packages(...))
_R_PACKAGE_CALLS = frozenset({
    "install.packages", "BiocManager::install", "renv::install", "pak::pkg_install", "pak::pak",
    "remotes::install_github", "remotes::install_cran", "remotes::install_bioc", "devtools::install_github",
})
# installing only the installers installs nothing of the project
_R_INSTALLERS = frozenset({"pak", "renv", "remotes", "devtools", "BiocManager", "pacman"})
_R_STRING_RE = re.compile(r"\"([^\"]+)\"|'([^']+)'")


def _r_install_call(facts: FileFacts | None) -> CallFact | None:
    """The first call of an R file that installs its environment: one that installs what
    the project declares, or that names a package other than the installers (pak, renv,
    remotes…) to install; a package given in a variable (the packages a user passes on
    the command line) or renv::init (a new project's set-up) is none."""
    if facts is None or facts.frontend != "r":
        return None
    for call in facts.calls:
        if call.name in _R_ENVIRONMENT_CALLS:
            return call
        if call.name in _R_PACKAGE_CALLS and call.args:
            first = call.args[0]
            named = [first] if isinstance(first, str) else [
                a or b for a, b in _R_STRING_RE.findall(first.text if isinstance(first, Expr) else "")]
            if any(name.rsplit("/", 1)[-1] not in _R_INSTALLERS for name in named):
                return call
    return None


_DRY_RUN_FLAGS = frozenset({"--dry-run", "--dryrun"})


def _locks_only(program: str, args: Sequence[str]) -> bool:
    """`uv pip compile`, `uv|poetry|pdm|pixi lock`, `conda-lock [lock]`: they write the
    pins, a maintainer's step, and install nothing."""
    if program == "conda-lock":
        return "install" not in args
    return list(args[:1]) == ["lock"] or list(args[:2]) == ["pip", "compile"]


def _manager_invoked(command: Command, tree: TreeIndex | None = None) -> str | None:
    """The environment or package manager a simple command invokes as its program, if any
    (with ``tree``, an ``Rscript x.R`` whose script installs packages counts too)."""
    words = _command_words(command)
    if not words or _DRY_RUN_FLAGS.intersection(words[1:]):
        return None   # `mamba create … --dry-run` (a pinning step) installs nothing
    program, args = _program(words[0]), words[1:]
    variable = _MAKE_VARIABLE_RE.fullmatch(words[0])
    if variable:
        # Makefiles call managers through variables: $(PIP) install, ${CONDA} env create.
        tokens = variable.group(1).lower().split("_")
        if any(_MANAGER_PROGRAM_RE.fullmatch(t) for t in tokens):
            return words[0]
        if any(_PYTHON_PROGRAM_RE.fullmatch(t) for t in tokens):
            program = "python"
    if _MANAGER_PROGRAM_RE.fullmatch(program):
        return None if _locks_only(program, args) else program
    if _PYTHON_PROGRAM_RE.fullmatch(program):
        module = _python_module(args)
        return f"{program} -m {module}" if module in _PYTHON_ENV_MODULES else None
    if program in ("rscript", "r"):
        joined = " ".join(args)
        if _R_INSTALL_CODE_RE.search(joined):
            return "Rscript (package installation)"
        for script in (a for a in args if a.lower().endswith(".r")):
            facts = tree.facts(script.removeprefix("./")) if tree is not None else None
            if facts is not None:
                # the script is in the tree: what it calls decides, not its name
                if _r_install_call(facts) is not None:
                    return "Rscript (script installing packages)"
            elif _name(script).lower().startswith(_BOOTSTRAP_TARGET_WORDS):
                return "Rscript (install script)"
        return None
    if program == "julia":
        if any(a.startswith("--project") for a in args) or _JULIA_INSTALL_CODE_RE.search(
            " ".join(args)
        ):
            return "julia --project"
    return None


def _first_manager_line(lines: Sequence[tuple[int, str]], *, windows: bool = False) -> tuple[int, str, str] | None:
    """(line, command text, manager) of the first manager invocation in a script's
    logical lines."""
    for line, logical in lines:
        if windows and logical.lstrip().lower().startswith("rem "):
            continue
        for command in split_commands(logical):
            manager = _manager_invoked(command)
            if manager:
                return line, logical.strip(), manager
    return None


def _is_bootstrap_target(name: str) -> bool:
    return name.lower().startswith(_BOOTSTRAP_TARGET_WORDS)


def _make_target_argument(args: Sequence[str]) -> str | None:
    skip_next = False
    for arg in args:
        if skip_next:
            skip_next = False
            continue
        if arg in ("-C", "-f", "--directory", "--file", "--makefile"):
            skip_next = True
            continue
        if arg.startswith("-") or "=" in arg:
            continue
        return arg
    return None


def _runs_bootstrap_script(words: Sequence[str]) -> str | None:
    program = _program(words[0])
    if _BOOTSTRAP_SCRIPT_RE.fullmatch(program):
        return words[0]
    if program in ("bash", "sh", "zsh", "source", ".", "powershell", "pwsh"):
        for arg in words[1:]:
            if _BOOTSTRAP_SCRIPT_RE.fullmatch(_program(arg)):
                return f"{program} {arg}"
    return None


def _workflow_run(
    tree: TreeIndex, program: str, words: Sequence[str], sources: list[Evidence] | None = None
) -> str | None:
    """``nextflow run … -profile docker`` (or a profile or a setting of the configuration
    that enables a container or conda engine), ``snakemake --use-conda``. ``sources``
    receives the configuration setting the run relies on. Words are read without the
    usage notation around them (``[-profile conda,docker]``, ``<--use-conda>``): the
    brackets mark an option as optional, not a different flag."""
    words = [_USAGE_BRACKETS_RE.sub("", word) for word in words]
    if program == "snakemake":
        flag = next((w for w in words if _SNAKEMAKE_ENV_FLAG_RE.match(w)), None)
        return f"snakemake {flag}" if flag else None
    if program != "nextflow" or "run" not in [w.lower() for w in words[1:2]]:
        return None
    view = _workflows(tree)
    enabling = view.profiles_enabling(_ENGINES)
    for index, word in enumerate(words):
        if word in ("-profile", "--profile") and index + 1 < len(words):
            for profile in re.split(r"[,/|]", words[index + 1].strip("<>[](){}'\"")):
                name = profile.strip().strip("<>").lower()
                if name in _ENGINES:
                    return f"nextflow run -profile {name}"
                if profile.strip() in enabling:
                    setting = enabling[profile.strip()]
                    _add_source(sources, Evidence(
                        setting.path, f"profile {setting.profile} enables {setting.engine}",
                        rule="env_bootstrap.readme_command_source", line_start=setting.profile_line or setting.line,
                        line_end=setting.line, snippet=tree.snippet(setting.path, setting.line)))
                    return f"nextflow run -profile {profile.strip()} ({setting.engine})"
    always = next((s for s in view.engine_settings if not s.profile and s.engine in _ENGINES), None)
    if always is not None:
        _add_source(sources, Evidence(always.path, f"{always.engine} enabled for every run",
                                      rule="env_bootstrap.readme_command_source", line_start=always.line,
                                      snippet=tree.snippet(always.path, always.line)))
        return f"nextflow run ({always.engine} enabled in {always.path})"
    return None


# usage-notation brackets around a word of a documented command: [optional], <placeholder>,
# (group), {choice}
_USAGE_BRACKETS_RE = re.compile(r"^[\[\]()<>{}]+|[\[\]()<>{}]+$")


def _add_source(sources: list[Evidence] | None, item: Evidence) -> None:
    if sources is not None:
        sources.append(item)


_ENGINES = ("docker", "singularity", "apptainer", "podman", "charliecloud", "shifter", "conda", "mamba", "wave")


# METRICS §0.2.12: a target's prerequisites are followed two levels deep
_PREREQUISITE_LEVELS = 2


def _target_invocation(
    tree: TreeIndex, path: str, target: Target, *, workflows: bool = True,
    level: int = 0, seen: frozenset[str] = frozenset(),
) -> tuple[Target, int, str, str, list[Evidence]] | None:
    """(the target whose recipe does it, recipe line, command text, manager, workflow
    settings) of the first command of ``target``'s recipe that invokes an environment or
    package manager (``workflows``: a workflow run with an engine counts), or of its
    prerequisites' recipes, two levels deep (``install: devready``, METRICS §0.2.12), or
    None."""
    for line, command_text in target.recipe:
        for command in split_commands(command_text):
            inner = _command_words(command)
            if not inner:
                continue
            found: list[Evidence] = []
            manager = _manager_invoked(command, tree)
            if manager is None and workflows:
                manager = _workflow_run(tree, _program(inner[0]), inner, found)
            if manager:
                return target, line, command_text, manager, found
    if level >= _PREREQUISITE_LEVELS:
        return None
    by_name = {t.name: t for t in tree.task_targets(path)}
    for name in target.prerequisites:
        prerequisite = by_name.get(name)
        if prerequisite is None or name in seen or name == target.name:
            continue
        hit = _target_invocation(tree, path, prerequisite, workflows=workflows,
                                 level=level + 1, seen=seen | {target.name})
        if hit:
            return hit
    return None


def _followed_target(
    tree: TreeIndex, program: str, words: Sequence[str], sources: list[Evidence] | None = None
) -> str | None:
    """``make run_test`` / ``task restore``: a README command running a Make-like target
    whose recipe creates the environment, or whose prerequisites' recipes do (two levels,
    §0.2.12). ``sources`` receives the target (and the prerequisite that does it), and the
    setting a workflow run in it relies on."""
    target_name = _make_target_argument(words[1:])
    if not target_name:
        return None
    for path in tree.make_like_files():
        for target in tree.task_targets(path):
            if target.name != target_name:
                continue
            hit = _target_invocation(tree, path, target)
            if hit is None:
                continue
            doer, line, command_text, manager, found = hit
            via = f" (through its prerequisite `{doer.name}`)" if doer is not target else ""
            _add_source(sources, Evidence(
                path, f"target `{target_name}` runs {manager}{via}", rule="env_bootstrap.readme_command_source",
                line_start=target.line, line_end=max(line, target.line) if doer is target else target.line,
                snippet=command_text if doer is target else f"{target.name}: {' '.join(target.prerequisites)}"))
            if doer is not target:
                _add_source(sources, Evidence(
                    path, f"prerequisite `{doer.name}` runs {manager}", rule="env_bootstrap.readme_command_source",
                    line_start=doer.line, line_end=max(line, doer.line), snippet=command_text))
            for item in found:
                _add_source(sources, item)
            return f"{program} {target_name} → {manager}"
    return None


def _readme_bootstrap_command(
    command: Command, tree: TreeIndex, sources: list[Evidence] | None = None, images: _OwnImages | None = None
) -> str | None:
    """The one-command environment creation a README command runs (E3 80 tier), if any;
    ``sources`` receives the Make-like target or workflow setting it goes through;
    ``images``: what makes an image the deposit's own (`docker run` of it counts)."""
    words = _command_words(command)
    if not words:
        return None
    image = container_image(command)
    if image is not None and images is not None and images.own(image):
        # `docker run` pulls the project's own image, which holds its whole environment
        return f"{_program(words[0])} run {image} (the project's own image)"
    program = _program(words[0])
    args = [w.lower() for w in words[1:]]
    first = args[0] if args else ""
    workflow = _workflow_run(tree, program, words, sources)
    if workflow:
        return workflow
    if program == "spack" and (args[:2] == ["env", "create"] or first == "install"):
        return f"spack {' '.join(args[:2]) if first == 'env' else 'install'}"
    if program in _BUILD_INSTALL_PROGRAMS and "install" in args:
        # `make install`, `ninja -C build install`, `cmake --install`: installing the
        # built project is a build step, never an environment (§0.2.11).
        return None
    if program in ("conda", "mamba", "micromamba"):
        if args[:2] == ["env", "create"]:
            return f"{program} env create"
        # `conda create -f` is --force in conda; mamba and micromamba read a file with -f.
        file_flags = ("--file",) if program == "conda" else ("--file", "-f")
        if first == "create" and any(a in file_flags or a.startswith("--file=") for a in args):
            return f"{program} create --file"
        return None
    if (program, first) in {
        ("pixi", "install"),
        ("uv", "sync"),
        ("poetry", "install"),
        ("pipenv", "install"),
        ("pipenv", "sync"),
        ("pdm", "install"),
    }:
        return f"{program} {first}"
    if program in _TASK_RUNNERS:
        target = _make_target_argument(words[1:])
        if program in ("make", "gmake") and target and _is_bootstrap_target(target):
            return f"make {target}"
        return _followed_target(tree, program, words, sources)
    if program == "docker" and args[:1] == ["compose"] and "up" in args:
        return "docker compose up"
    if program == "docker-compose" and "up" in args:
        return "docker-compose up"
    if program in ("repo2docker", "jupyter-repo2docker"):
        return "repo2docker"
    return _runs_bootstrap_script(words)


def _logical_code_lines(lines) -> list[tuple[int, str, str]]:
    """Code lines with shell continuations (a trailing backslash) joined, at their first line:
    `nextflow run x \\` and `-profile docker` on the next line are one command. Each with
    its code: a code block's line without the comment its language writes (`#`; `%` in
    MATLAB/Octave), "" for a comment line (a commented-out `# install.packages("x")`)."""
    joined: list[tuple[int, str, str]] = []
    pending: tuple[int, str, object] | None = None

    def code(raw: str, block) -> str:
        if block is None:
            return raw
        return strip_comment(raw, "%" if block.language in _MATLAB_BLOCKS else "#")

    for line, raw, block in lines:
        if pending is not None and block is pending[2] and block is not None:
            raw = pending[1] + " " + raw.strip()
            line = pending[0]
        pending = None
        if block is not None and raw.rstrip().endswith("\\"):
            pending = (line, raw.rstrip()[:-1].rstrip(), block)
            continue
        joined.append((line, raw, code(raw, block)))
    if pending is not None:
        joined.append((pending[0], pending[1], code(pending[1], pending[2])))
    return joined


@dataclass(frozen=True)
class _OwnImages:
    """What makes a container image the deposit's own: the names its metadata gives it,
    and the images its documents build (`docker build -t <image>`)."""

    names: frozenset[str]
    built: frozenset[str]

    def own(self, image: str) -> bool:
        return image in self.built or normalize_name(image_name(image)) in self.names


def _readme_bootstrap(tree: TreeIndex, sources: list[Evidence]) -> list[Evidence]:
    """Commands of the README (and of CONTRIBUTING* and the install pages, §0.3) that
    create the environment, code lines and prompt lines of the prose alike (§0.2.10);
    ``sources`` receives, once each, the Make-like targets and workflow settings they go
    through."""
    documents = [(path, doc) for path in setup_documents(tree) if (doc := tree.document(path)) is not None]
    lines = [(doc, _logical_code_lines(doc.command_lines())) for _, doc in documents]
    built = frozenset(tag for _, logical in lines for _, _, code in logical
                      for command in split_commands(strip_prompt(code)[0]) for tag in container_build_tags(command))
    images = _OwnImages(own_project_names(tree), built)
    found = []
    through: list[Evidence] = []
    for doc, logical in lines:
        readme = doc.path == tree.readme
        for line, raw, code in logical:
            if not code.strip():
                continue   # a comment line of the block
            text, is_repl = strip_prompt(code)
            matched = None
            r_install = R_PACKAGE_INSTALL_RE.search(code)
            if _R_RESTORE_RE.search(code):
                matched = "renv::restore()"
            elif r_install:
                matched = r_install.group(0).rstrip("( ") + "()"
            elif _JULIA_INSTANTIATE_RE.search(code):
                matched = "Pkg.instantiate()"
            elif not is_repl:
                for command in split_commands(text):
                    matched = _readme_bootstrap_command(command, tree, through, images)
                    if matched:
                        break
            if matched:
                found.append(
                    Evidence(
                        doc.path,
                        f"{'README creates' if readme else 'creates'} the environment with `{matched}`",
                        rule="env_bootstrap.readme_command" if readme else "env_bootstrap.document_command",
                        line_start=line,
                        snippet=raw,
                    )
                )
    seen = {(e.path, e.line_start) for e in sources}
    for item in through:
        if (item.path, item.line_start) not in seen:
            seen.add((item.path, item.line_start))
            sources.append(item)
    return found


# Files repo2docker also reads from a Binder folder: they finish the environment the
# environment files declare (postBuild runs after it is built) or choose its runtime.
_BINDER_BUILD_NAMES = frozenset({"postbuild", "start", "runtime.txt", "apt.txt", "default.nix"})


def _binder_build_files(tree: TreeIndex) -> list[Evidence]:
    return [
        Evidence(p, "Binder build file (repo2docker reads it)", rule="env_bootstrap.binder_file")
        for directory in ("binder", ".binder") if tree.is_dir(directory)
        for p in tree.files_in(directory) if _name(p).lower() in _BINDER_BUILD_NAMES
    ]


def _binder_config(tree: TreeIndex) -> list[Evidence]:
    found = []
    for directory in ("binder", ".binder"):
        if tree.is_dir(directory):
            configs = [
                p for p in tree.files_in(directory) if _name(p).lower() in _BINDER_CONFIG_NAMES
            ]
            found += [
                Evidence(p, "Binder environment configuration", rule="env_bootstrap.binder")
                for p in configs
            ]
    doc = tree.readme_document()
    if doc is not None:
        found += [
            Evidence(
                doc.path,
                "mybinder.org launch link",
                rule="env_bootstrap.binder_badge",
                line_start=link.line,
                snippet=link.url,
            )
            for link in doc.links
            if _BINDER_LINK_RE.match(link.url) and not link.is_image
        ]
    return found


# R and MATLAB/Octave set-up scripts (§0.3 E3): setup.R, install.R; setup.m, install.m,
# startup.m (MATLAB runs startup.m when it starts in that folder)
_CODE_SETUP_SCRIPT_RE = re.compile(
    r"(?:install|bootstrap|setup|env[-_]setup|create[-_]env)(?:[-_][\w.-]*)?\.r"
    r"|(?:install|bootstrap|setup|startup|env[-_]setup|create[-_]env)(?:[-_][\w.-]*)?\.m",
    re.IGNORECASE,
)
# what a MATLAB/Octave set-up script does to add or install dependencies: put them on
# the path (§0.3 MATLAB specifics: `addpath(genpath(...))`), install a toolbox, or
# install or load an Octave package (`pkg install -forge io`)
_MATLAB_SETUP_CALLS = ("addpath", "addons.install", "installToolbox")


# What else an R script that only installs packages may call: the vectors and lists of the
# packages it names, a check that an installer is there, the messages it prints
_R_INSTALL_HELPERS = frozenset({"c", "list", "options", "message", "cat"})
_R_INSTALLER_LOADERS = frozenset({"library", "require", "requireNamespace"})
# namespaces all of whose calls install or set up packages, and installing calls of others
_R_INSTALLER_NAMESPACES = ("renv::", "pak::", "BiocManager::")
_R_INSTALLING_PREFIXES = ("remotes::install", "devtools::install")


def _r_installer_call(call: CallFact) -> bool:
    """A call an R set-up script is made of: an installing call, or a helper of one."""
    name = call.name
    if name in _R_ENVIRONMENT_CALLS or name in _R_PACKAGE_CALLS or name in _R_INSTALL_HELPERS \
            or name.startswith(_R_INSTALLER_NAMESPACES + _R_INSTALLING_PREFIXES):
        return True
    if name in _R_INSTALLER_LOADERS and call.args:
        first = call.args[0]
        package = first if isinstance(first, str) else first.text if isinstance(first, Expr) else ""
        return package in _R_INSTALLERS
    return False


def _r_setup_by_content(facts: FileFacts) -> CallFact | None:
    """The installing call of an R script that is a set-up script by what it does, whatever
    its name (§0.3 E3 × R names no file): all its code installs the environment (renv,
    install.packages, BiocManager, remotes/devtools installs, pak, library(renv), with
    the vectors, options and messages of those calls); a script that also runs or checks
    anything else is no set-up script by content."""
    call = _r_install_call(facts)
    if call is None or facts.definitions or not all(_r_installer_call(c) for c in facts.calls):
        return None
    return call


def _code_setup_script(tree: TreeIndex, path: str) -> tuple[bool, Evidence] | None:
    """An R or MATLAB/Octave set-up script (root, scripts/ or bin/): (whether its calls
    install or add dependencies, its evidence), or None for any other file. R: renv::,
    install.packages, BiocManager, remotes, devtools, pak (the calls the Rscript rule
    reads); MATLAB/Octave: addpath, matlab.addons.install, installToolbox, pkg
    install|load. An R script of another name is one by its content
    (:func:`_r_setup_by_content`)."""
    if not _CODE_SETUP_SCRIPT_RE.fullmatch(_name(path)):
        if not path.lower().endswith(".r"):
            return None
        facts = tree.facts(path)
        call = _r_setup_by_content(facts) if facts is not None and facts.frontend == "r" else None
        if call is None:
            return None
        return True, Evidence(path, f"R script that restores or installs the environment ({call.written or call.name})",
                              rule="env_bootstrap.script", line_start=call.line, snippet=tree.snippet(path, call.line))
    facts = tree.facts(path)
    if facts is None:
        return None
    if facts.frontend == "r":
        call = _r_install_call(facts)
        what = "installs R packages" if call else ""
    elif facts.frontend == "matlab":
        call = next((c for c in facts.calls if c.name.endswith(_MATLAB_SETUP_CALLS)
                     or c.name == "pkg" and c.args[:1] in (("install",), ("load",))), None)
        what = ("puts dependencies on the MATLAB path" if call is not None and call.name == "addpath"
                else "installs toolboxes or packages")
    else:
        return None
    if call is None:
        return False, Evidence(path, "set-up script installs or adds no dependencies",
                               rule="env_bootstrap.script_without_manager")
    return True, Evidence(path, f"set-up script {what} ({call.written or call.name})", rule="env_bootstrap.script",
                          line_start=call.line, snippet=tree.snippet(path, call.line))


def _bootstrap_scripts(tree: TreeIndex) -> tuple[list[Evidence], list[Evidence]]:
    """(scripts invoking a manager, bootstrap-named scripts that do not)."""
    directories = [""] + [d for d in tree.subdirs("") if _name(d).lower() in _SCRIPT_DIRS]
    good, idle = [], []
    for directory in directories:
        for path in tree.files_in(directory):
            code_hit = _code_setup_script(tree, path)
            if code_hit is not None:
                (good if code_hit[0] else idle).append(code_hit[1])
                continue
            if not _BOOTSTRAP_SCRIPT_RE.fullmatch(_name(path)):
                continue
            lines = tree.command_lines(path)
            hit = _first_manager_line(lines, windows=path.lower().endswith(".bat")) if lines else None
            if hit:
                line, command, manager = hit
                good.append(
                    Evidence(
                        path,
                        f"bootstrap script invokes {manager}",
                        rule="env_bootstrap.script",
                        line_start=line,
                        snippet=command,
                    )
                )
            else:
                idle.append(
                    Evidence(
                        path,
                        "bootstrap-named script invokes no environment or package manager",
                        rule="env_bootstrap.script_without_manager",
                    )
                )
    return good, idle


def _bootstrap_targets(tree: TreeIndex) -> list[Evidence]:
    """Bootstrap-named targets whose recipe, or a prerequisite's recipe two levels deep
    (§0.2.12), invokes an environment or package manager: the target, then the
    prerequisite that does it."""
    found = []
    for path in tree.make_like_files():
        for target in tree.task_targets(path):
            if not _is_bootstrap_target(target.name):
                continue
            hit = _target_invocation(tree, path, target, workflows=False)
            if hit is None:
                continue
            doer, line, command_text, manager, _ = hit
            if doer is target:
                found.append(Evidence(path, f"target `{target.name}` invokes {manager}", rule="env_bootstrap.make_target",
                                      line_start=target.line, line_end=max(line, target.line), snippet=command_text))
                continue
            found.append(Evidence(path, f"target `{target.name}` invokes {manager} through its prerequisite "
                                        f"`{doer.name}`", rule="env_bootstrap.make_target", line_start=target.line,
                                  snippet=f"{target.name}: {' '.join(target.prerequisites)}"))
            found.append(Evidence(path, f"prerequisite `{doer.name}` invokes {manager}",
                                  rule="env_bootstrap.make_prerequisite", line_start=doer.line,
                                  line_end=max(line, doer.line), snippet=command_text))
    return found


def _fix(tree: TreeIndex, documented: bool = False) -> str:
    """The fix in the deposit's own ecosystem (METRICS.md §0.3): its set-up script or
    target, with the one command that creates its environment (``documented``: a
    document already gives one command, so the script is what is missing)."""
    ecosystem = fix_ecosystem(tree)
    kinds = {m.kind: m.path for m in tree.manifests()}
    if ecosystem == MATLAB:
        return ("Add a setup.m that puts the code and its dependencies on the MATLAB path "
                "(`addpath(genpath(...))`) or installs the toolboxes it needs (`matlab.addons.install(...)`), "
                "and tell users to run it first.")
    if ecosystem == NATIVE:
        command = (f"conda env create -f {kinds['conda']}" if "conda" in kinds
                   else "spack env create <env> spack.yaml && spack -e <env> install")
        return ("Add install.sh (or a `make setup` target) that creates the build environment, the compilers "
                f"and libraries rather than the build itself, e.g. `{command}`.")
    if ecosystem == NEXTFLOW and documented:
        return ("Add install.sh (or a `make setup` target) that installs Nextflow itself, e.g. `conda create -y -n "
                "nextflow -c bioconda nextflow`, beside the documented run with a container profile.")
    if ecosystem == NEXTFLOW:
        return ("Declare a container or conda environment for every process and document the one command that "
                "runs the pipeline with them, e.g. `nextflow run <pipeline> -profile docker`.")
    if ecosystem == SNAKEMAKE and documented:
        return ("Add install.sh (or a `make setup` target) that creates the environment Snakemake runs in and the "
                "rules' environments, e.g. `conda env create -f environment.yml && snakemake --use-conda "
                "--conda-create-envs-only --cores 1`.")
    if ecosystem == SNAKEMAKE:
        return ("Give every rule a conda environment (`conda:`) or a container and document the one command "
                "that builds them, e.g. `snakemake --use-conda --cores 4`.")
    if ecosystem == R:
        suggestion = "`Rscript -e 'renv::restore()'`"
    elif ecosystem == JULIA:
        suggestion = "`julia --project -e 'using Pkg; Pkg.instantiate()'`"
    elif "conda" in kinds:
        suggestion = f"`conda env create -f {kinds['conda']}`"
    elif "requirements" in kinds:
        suggestion = f"`python -m venv .venv && .venv/bin/pip install -r {kinds['requirements']}`"
    else:
        suggestion = "`python -m venv .venv && .venv/bin/pip install .`"
    return f"Add install.sh (or a `make setup` target) that creates the environment, e.g. {suggestion}."


@detector("env_bootstrap", version="2.6.0")
def env_bootstrap(tree: TreeIndex) -> Result:
    """One command creates the software environment.

    What it checks:
        100 (script): a script at the root or in scripts/ or bin/ named install,
        bootstrap, setup, env_setup or create_env, alone or followed by `-`/`_` and more
        (install_env.sh, install-micromamba.sh), with .sh, .bash, .ps1 or .bat, in which
        some command (a line, an &&/; chain element or a pipeline
        element) starts with an environment or package manager: conda, mamba,
        micromamba, conda-lock, pip, uv, poetry, pixi, pipenv, pdm, virtualenv,
        `python -m venv|virtualenv|pip`, Rscript/R installing packages (renv::,
        install.packages, BiocManager, remotes, pak), `julia --project`. An `Rscript
        x.R` whose script is in the tree counts by what the script calls (below), one
        not in the tree by a bootstrap name (2.2.0). 2.2.0 (METRICS §0.3 E3 × R and ×
        MATLAB): an R set-up script of those names (setup.R, install.R,
        install_packages.R) that calls renv::restore, remotes::install_deps,
        devtools::install(_deps), pak::local_install(_deps), or installs a package it
        names other than the installers themselves (install.packages("dplyr"), not
        install.packages("pak") nor renv::install(pkg) of a command-line argument nor
        renv::init); a MATLAB/Octave setup.m, install.m or startup.m that puts
        dependencies on the path (`addpath(genpath(...))`), installs a toolbox
        (matlab.addons.install, installToolbox) or an Octave package (`pkg install`,
        `pkg load`). 2.5.0 (§0.3 E3 × R names no set-up file): an R script of any other
        name at the root or in scripts/ or bin/ is a set-up script by its content when
        all its code installs the environment: renv::restore/activate/consent,
        install.packages, BiocManager::install, remotes/devtools installs, pak, and
        around them only c(), options(), message(), cat() and library()/require()/
        requireNamespace() of the installers, no function definitions
        (renv_environment.R holding renv::restore()); a script that runs or checks
        anything else beside (a restore inside renv::status() branches with CmdStan set-up
        calls) is not one by content.
        100 (make_target): a target of a Make-like file (Makefile, makefile,
        GNUmakefile, justfile, Taskfile.yml, tasks.py, dodo.py) at the root or in an
        environment location whose name starts with setup, install, env, environment,
        deps, dependencies, bootstrap or venv and whose recipe invokes such a manager
        (also through a make variable such as $(PIP)), or whose prerequisites' recipes
        do, two levels deep (`install: devready`, `devready:` running pip; just and
        Taskfile `deps:` alike; 2.2.0, METRICS §0.2.12).
        80 (readme_one_command): a command of the README, of CONTRIBUTING* (at the root
        or in .github/), docs/contributing* or docs/install* (2.2.0, §0.3 Python
        libraries) in a code block, inline code or a prose line starting with a shell
        prompt (a list item, a blockquote, a plain-text README; 2.2.0, §0.2.10) running
        `conda|mamba|micromamba env create`, `conda create --file`, `pixi install`,
        `uv sync`, `poetry install`, `pipenv install|sync`, `pdm install`,
        `make <bootstrap target>`, a bootstrap script (`./install.sh`, `bash setup.sh`),
        `docker compose up`, `repo2docker`, `spack env create`/`spack install`;
        `docker|podman run` (or `singularity|apptainer run docker://…`) of the
        project's own image, one these documents build (`docker build -t <image>`) or
        named after the project (a name its metadata declares: DESCRIPTION, Project.toml,
        pyproject.toml, setup.py, fpm.toml, CMake/meson project(), *.Rproj), since it
        pulls the whole environment (2.2.0); R:
        `renv::restore()`, `install.packages(…)`, `BiocManager::install(…)`,
        `remotes::install_github(…)`, `devtools::install(…)`, `pak::pkg_install(…)`;
        Julia: `Pkg.instantiate()`, `pkg> instantiate`, `] instantiate`; workflows:
        `nextflow run … -profile docker|singularity|conda|…` (or a profile of
        nextflow.config that enables such an engine, or nextflow run when the
        configuration enables one outside any profile), `snakemake --use-conda`,
        `--use-singularity`, `--software-deployment-method`, their words read without
        usage-notation brackets, braces or parentheses at either end, so `nextflow run
        lab/pipe [-profile conda,docker]` counts (2.4.0); `make|task|just <target>`
        whose recipe, or a prerequisite's two levels deep, invokes a manager or such a
        workflow run. Shell continuations are joined; a code block's line is read
        without the comment its language writes (`#`; `%` in a ```matlab/```octave
        block), so a commented-out `# install.packages("remotes")` or a `renv::restore()`
        named in a comment creates nothing (2.3.0). `make install`, `ninja install`
        and `cmake --install` install the built project: a build step, never E3
        (§0.2.11). `uv run`, `pixi run`, `poetry run` and `hatch run` are not in
        METRICS' list (they run a command, creating the environment on the way) and do
        not count.
        80 (binder): binder/ or .binder/ with an environment file, or a mybinder.org
        launch link (v2 or the older /repo/ form) in the README. Otherwise 0 (absent).
        Prose never counts.
    Why it matters:
        A reader who must assemble the environment from scattered instructions makes
        different choices than the authors did; a single scripted entry point makes
        the environment the authors tested the one a reader gets.
    Evidence:
        Script path and the line of the first manager invocation (an R or MATLAB
        set-up script: the line of the installing call); Make-like file, target line and
        the recipe command, or the target and then the prerequisite whose recipe does
        it; the document line and the matched command, then the Make-like target it runs
        (`make run_test`, `task restore`, and the prerequisite that does it) and the
        workflow setting or profile it relies on (`conda.enabled = true`), each once;
        Binder files or the launch link, and then the other files repo2docker reads
        from the Binder folder (postBuild, runtime.txt, apt.txt, start);
        bootstrap-named scripts that invoke no manager (not counted). Counts:
        n_scripts, n_make_targets, n_readme_commands, n_binder.
    How to fix:
        Add install.sh (or a `make setup` target) that creates the environment, and
        show that one command in the README, in the deposit's own ecosystem (2.2.0,
        METRICS §0.3): `conda env create -f environment.yml` or `python -m venv .venv
        && .venv/bin/pip install -r requirements.txt` (Python), `Rscript -e
        'renv::restore()'` (R), `julia --project -e 'using Pkg; Pkg.instantiate()'`
        (Julia), a setup.m that adds the dependencies to the path or installs the
        toolboxes (MATLAB), a conda or Spack environment of the compilers and libraries
        (C/C++/Fortran), containers or conda environments for every process run with
        `nextflow run <pipeline> -profile docker` (Nextflow), rule environments built by
        `snakemake --use-conda` (Snakemake).
    Known false positives:
        A script counts when any command invokes a manager, even `pip --version` (a
        `--dry-run` does not, nor a command that only writes the pins: `uv pip compile`,
        `uv|poetry|pdm|pixi lock`, `conda-lock` without install, 2.2.0); it is not run, so
        a broken script still scores 100. A README command counts even when
        the file it names (environment.yml, install.sh) does not exist. Any target
        starting with a bootstrap word (`install-docs`) that calls pip counts; a
        README `make all` counts when a prerequisite of `all` creates the environment.
        An image named after the project is taken for the project's own although anyone
        may publish one by that name. An R or MATLAB set-up script counts whatever
        condition guards its installing call.
    """
    scripts, idle_scripts = _bootstrap_scripts(tree)
    targets = _bootstrap_targets(tree)
    sources: list[Evidence] = []
    readme = _readme_bootstrap(tree, sources)
    binder = _binder_config(tree)
    counts = {
        "n_scripts": len(scripts),
        "n_make_targets": sum(1 for e in targets if e.rule == "env_bootstrap.make_target"),
        "n_readme_commands": len(readme),
        "n_binder": len(binder),
    }
    binder_files = _binder_build_files(tree) if binder else []
    evidence = (scripts + targets + readme + sources + binder + binder_files + idle_scripts)[:MAX_EVIDENCE]
    if scripts or targets:
        first = (scripts or targets)[0]
        return Result(
            100,
            level="script" if scripts else "make_target",
            evidence=evidence,
            reason=f"{first.path}: {first.reason}",
            counts=counts,
        )
    if readme or binder:
        first = (readme or binder)[0]
        return Result(
            80,
            level="readme_one_command" if readme else "binder",
            evidence=evidence,
            reason=f"{first.path}: {first.reason}",
            fix=_fix(tree, documented=True),
            counts=counts,
        )
    reason = (
        "no bootstrap script, bootstrap target, README environment command or Binder configuration"
    )
    if idle_scripts:
        reason += f"; {_join_names([e.path for e in idle_scripts])} invoke(s) no environment or package manager"
    return Result(0, level="absent", evidence=evidence, reason=reason, fix=_fix(tree), counts=counts)
