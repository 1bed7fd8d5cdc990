"""D2 install_instructions: one documented command creates the whole environment."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from scoring.detectors._shared import (
    JULIA,
    MATLAB,
    NATIVE,
    NEXTFLOW,
    SNAKEMAKE,
    R,
    fix_ecosystem,
    own_project_names,
)
from scoring.detectors.documentation._common import (
    _CONTAINER_TOOLS,
    _MAKE_INSTALL_TARGETS,
    _PYTHON_PROGRAM,
    _TASK_SETUP_TARGETS,
    MAX_EVIDENCE,
    DocLine,
    _file_line,
    _invoked_script,
    _is_install_script,
    _make_targets,
    _name,
    _python_target,
    _word_re,
    compiled_sources,
    doc_lines,
    section_headings,
    task_runners,
    task_targets,
)
from scoring.model import Evidence
from scoring.parsers.manifests import normalize_name
from scoring.parsers.shell import Command, container_build_tags, container_image, image_name
from scoring.registry import Result, detector
from scoring.tree import TreeIndex


def _suffix(path: str) -> str:
    name = _name(path)
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""


_PIP_PROGRAM = re.compile(r"pip(?:\d+(?:\.\d+)*)?(?:\.exe)?", re.IGNORECASE)

def _dependency_manifests(tree: TreeIndex) -> list[str]:
    return [m.path for m in tree.manifests() if m.dependencies]


_DOC_SUFFIXES = frozenset({"", ".md", ".markdown", ".rst", ".txt", ".rest"})
_INSTALL_FILE = re.compile(r"install.*", re.IGNORECASE)
_INSTALL_PROSE = _word_re(r"install(?:s|ed|ing|ations?)?|dependenc(?:y|ies)|requirements?|prerequisites?")

# R and Julia installs written as code, not shell commands.
_R_JULIA_ONE_COMMAND = re.compile(
    r"renv::restore\s*\(|Pkg\.instantiate\s*\(|(?:pkg>|^\])\s*instantiate\b", re.IGNORECASE)
_R_JULIA_PACKAGES = re.compile(
    r"install\.packages\s*\(|BiocManager::install\s*\(|(?:devtools|remotes)::install\w*\s*\("
    r"|Pkg\.add\s*\(|(?:pkg>|^\])\s*add\s+\w",
    re.IGNORECASE,
)
# Upgrading the installer itself installs nothing of the project.
_TOOLING_PACKAGES = frozenset({"pip", "setuptools", "wheel", "uv"})
_PIP_VALUE_OPTIONS = frozenset({
    "-c", "--constraint", "-i", "--index-url", "--extra-index-url", "-f", "--find-links", "-t", "--target",
    "--prefix", "--root", "--python-version", "--platform", "--only-binary", "--no-binary", "--src",
    "--upgrade-strategy", "-C", "--config-settings", "--trusted-host", "--cache-dir", "--log", "--retries",
    "--timeout", "--proxy", "--cert", "--client-cert", "--implementation", "--abi", "--global-option",
    "--install-option", "--report", "--progress-bar", "--python",
})
# "several pinned installs" (§0.3 Python libraries): two or more
_SEVERAL = 2
_SYSTEM_PACKAGE_MANAGERS = frozenset({"apt", "apt-get", "yum", "dnf", "brew", "zypper", "pacman", "port"})
_REQUIREMENT_NAME = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)")


@dataclass(frozen=True)
class _InstallContext:
    own_names: frozenset[str]
    declares_dependencies: bool
    r_package: str = ""            # DESCRIPTION's Package: the R package the deposit is
    julia_package: str = ""        # Project.toml's name: the Julia package the deposit is
    compiled: bool = False         # C/C++/Fortran sources: make/cmake build the project
    workflow_environments: bool = False   # Nextflow processes declare containers or conda
    matlab: bool = False           # MATLAB/Octave sources
    task_runners: frozenset[str] = frozenset()   # task / just, where their file exists
    # the images the documents build (`docker build -t <image>`): the deposit's own
    built_images: frozenset[str] = frozenset()
    # stems of the toolbox files (.mltbx) and toolbox projects (.prj) the tree holds
    toolbox_files: frozenset[str] = frozenset()
    # the names a repository install of the project may give it: the project's own names
    # (DESCRIPTION's Package, the root .Rproj's stem…) and the GitHub repositories
    # DESCRIPTION's URL and BugReports link, normalised
    own_repositories: frozenset[str] = frozenset()
    # MATLAB functions and scripts of the tree that compile MEX files (call mex/mexcuda)
    mex_builders: frozenset[str] = frozenset()


# The R and Julia forms of installing the project itself (§0.3 R specifics, D2 100): the
# installer resolves the dependencies its DESCRIPTION / Project.toml declares.
_R_OWN_LOCAL = re.compile(r"\b(?:devtools|remotes)::install\s*\(\s*(?:[\"']\.?[\"'])?\s*\)|"
                          r"\bremotes::install_local\s*\(", re.IGNORECASE)
_R_NAMED_INSTALL = re.compile(
    r"\b(?:install\.packages|BiocManager::install|(?:devtools|remotes|pak)::(?:install_cran|install_bioc|pkg_install))"
    r"\s*\(\s*(?:c\s*\(\s*)?[\"']([A-Za-z][\w.]*)[\"']")
_R_REPOSITORY_INSTALL = re.compile(
    r"\b(?:(?:devtools|remotes)::install_(?:github|gitlab|bitbucket|git)|pak::pkg_install)\s*\(\s*"
    r"[\"'](?:[^\"'/]*?/)*([A-Za-z][\w.]*?)(?:\.git)?(?:@[^\"']*)?[\"']")
_JULIA_NAMED_ADD = re.compile(r"\bPkg\.add\s*\(\s*(?:name\s*=\s*)?[\"']([A-Za-z]\w*)(?:\.jl)?[\"']|"
                              r"(?:pkg>|^\])\s*add\s+([A-Za-z]\w*)(?:\.jl)?\b")
_JULIA_URL_ADD = re.compile(r"\bPkg\.add\s*\(.*?url\s*=\s*[\"'][^\"']*/([A-Za-z]\w*?)(?:\.jl)?(?:\.git)?/?[\"']|"
                            r"(?:pkg>|^\])\s*add\s+https?://\S*/([A-Za-z]\w*?)(?:\.jl)?(?:\.git)?/?(?:\s|$)")
# the repository a GitHub/GitLab/Bitbucket/git install names: ("owner/repo", "…/repo.git", a URL)
_R_REPOSITORY_SPEC = re.compile(
    r"\b(?:devtools|remotes)::install_(?:github|gitlab|bitbucket|git)\s*\(\s*(?:repo\s*=\s*)?[\"']"
    r"(?:https?://[^/\"']+/)?[^\"'/\s]+/([^\"'/@#\s]+?)(?:\.git)?(?:[/@#][^\"']*)?[\"']")
_GITHUB_REPOSITORY = re.compile(r"github\.com/[^/\s,]+/([^/\s,#?]+?)(?:\.git)?(?=[/\s,#?]|$)", re.IGNORECASE)
# MATLAB/Octave: putting the toolbox on the path is a manual install step (§0.3 D2 addpath)
_MATLAB_ADDPATH = re.compile(r"\baddpath\s*\(")
# compiling MEX files builds the code from source (as make builds a C program: §0.2.11):
# `mex -setup C++`, `mex -largeArrayDims x.c`, `mexcuda x.cu`, `mex('x.c')`
_MEX_STATEMENT = re.compile(r"mex(?:cuda)?(?:\s|\(|;|$)")
_MATLAB_MEX_CALLS = frozenset({"mex", "mexcuda"})
# a statement running a function or script of the tree: `mexGPUall`, `compile_all();`,
# `run('make_mex.m')`, `run make_mex`
_MATLAB_RUN_STATEMENT = re.compile(
    r"(?:run\s*\(?\s*['\"]?)?([A-Za-z]\w*)(?:\.m)?['\"]?\s*(?:\(\s*\))?\s*\)?\s*;?")
# installing a packaged toolbox (§0.3 D2 toolbox install): `matlab.addons.install('X.mltbx')`,
# `matlab.addons.toolbox.installToolbox("X.mltbx")`
_MATLAB_TOOLBOX_INSTALL = re.compile(
    r"\bmatlab\.addons\.(?:install|toolbox\.installToolbox)\s*\(\s*(?:[^'\")]*\(\s*)?['\"]([^'\"]*)['\"]")


def _toolbox_install(target: str, ctx: _InstallContext) -> _InstallHit:
    """A .mltbx install: the project's own toolbox (its .mltbx or toolbox project is in the
    tree, or it is named after the project) installs the code with the add-ons it declares
    (100); another toolbox is one package of several (70)."""
    stem = _name(target.replace("\\", "/"))
    stem = stem[:-len(".mltbx")] if stem.lower().endswith(".mltbx") else stem
    if stem and (stem.lower() in ctx.toolbox_files or normalize_name(stem) in ctx.own_names):
        return _InstallHit(100, "install_instructions.own_toolbox",
                           "installs the project's own MATLAB toolbox (.mltbx) with the add-ons it declares", own=True)
    return _InstallHit(70, "install_instructions.package_by_package", "installs a MATLAB toolbox")


def _own_package_install(text: str, ctx: _InstallContext) -> bool:
    """Whether an R or Julia code line installs the deposit's own package: by its
    DESCRIPTION name, or, from a repository, by the repository's name when that is one
    the project gives itself (a research compendium installs as
    `install_github("owner/1989-excavation-report")` while its package is called
    otherwise)."""
    if ctx.r_package:
        if _R_OWN_LOCAL.search(text):
            return True
        names = [m.group(1) for m in _R_NAMED_INSTALL.finditer(text)]
        names += [m.group(1) for m in _R_REPOSITORY_INSTALL.finditer(text)]
        if ctx.r_package in names:
            return True
        if any(normalize_name(m.group(1)) in ctx.own_repositories for m in _R_REPOSITORY_SPEC.finditer(text)):
            return True
    if ctx.julia_package:
        names = [m.group(1) or m.group(2) for m in _JULIA_NAMED_ADD.finditer(text)]
        names += [m.group(1) or m.group(2) for m in _JULIA_URL_ADD.finditer(text)]
        if ctx.julia_package in names:
            return True
    return False


@dataclass(frozen=True)
class _InstallHit:
    value: int
    rule: str
    reason: str
    pinned: int = 0     # package-by-package: how many of its packages it pins to a version
    own: bool = False   # installs the project itself (which resolves what it declares)


# a requirement pinned to one version: `numpy==1.24.0`, `torch===2.0.1`; conda `numpy=1.24`
_PIP_PINNED = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(?:\[[^\]]*\])?\s*===?\s*[\w.+!-]+$")
_CONDA_PINNED = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*\s*==?\s*[\w.+!-]+$")


def _is_local_target(arg: str) -> bool:
    target = arg.strip("'\"")
    if target.startswith("file:"):
        return True
    target = target.split("[", 1)[0]
    return target in (".", "..") or target.startswith(("./", "../", "/", "~"))


def _pip_install(args: Sequence[str], ctx: _InstallContext) -> _InstallHit | None:
    """Classify the arguments after ``pip install``."""
    local = requirement_file = False
    packages: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-r", "--requirement"):
            requirement_file = i + 1 < len(args)
            i += 2
            continue
        if arg.startswith("--requirement=") or (arg.startswith("-r") and len(arg) > 2 and not arg.startswith("--")):
            requirement_file = True
        elif arg in ("-e", "--editable"):
            if i + 1 < len(args):
                if _is_local_target(args[i + 1]):
                    local = True
                else:
                    packages.append(args[i + 1])
            i += 2
            continue
        elif arg.startswith("--editable="):
            local = local or _is_local_target(arg.split("=", 1)[1])
        elif arg in _PIP_VALUE_OPTIONS:
            i += 2
            continue
        elif arg.startswith("-"):
            pass
        elif _is_local_target(arg):
            local = True
        else:
            packages.append(arg)
        i += 1
    if requirement_file:
        return _InstallHit(100, "install_instructions.pip_requirements", "installs a requirements file")
    names = {normalize_name(m.group(1)) for p in packages if (m := _REQUIREMENT_NAME.match(p.strip("'\"")))}
    if names & ctx.own_names:
        return _InstallHit(100, "install_instructions.own_distribution",
                           "installs the project's own distribution with its dependencies", own=True)
    if local:
        if ctx.declares_dependencies:
            return _InstallHit(100, "install_instructions.local_project",
                               "installs the project, whose manifest declares its dependencies", own=True)
        return _InstallHit(70, "install_instructions.local_project_without_manifest",
                           "installs the project, but no manifest declares dependencies")
    if names and not names <= _TOOLING_PACKAGES:
        return _InstallHit(70, "install_instructions.package_by_package", "installs packages one by one",
                           pinned=sum(1 for p in packages if _PIP_PINNED.match(p.strip("'\""))))
    return None


_CONDA_VALUE_OPTIONS = frozenset({"-n", "--name", "-p", "--prefix", "-c", "--channel", "--file", "-f"})


def _conda(args: Sequence[str], ctx: _InstallContext) -> _InstallHit | None:
    """Classify ``conda``/``mamba``/``micromamba`` arguments."""
    env_file = _InstallHit(100, "install_instructions.conda_env", "creates the conda environment from its file")
    if args[:2] == ("env", "create"):
        return env_file   # without -f it reads environment.yml
    if args[:2] == ("env", "update") and any(a in ("-f", "--file") or a.startswith("--file=") for a in args):
        return env_file
    if not args or args[0] not in ("create", "install"):
        return None
    packages: list[str] = []
    has_file = False
    i = 1
    while i < len(args):
        arg = args[i]
        if arg == "--file" or arg.startswith("--file="):
            has_file = True
        if arg in _CONDA_VALUE_OPTIONS:
            i += 2
            continue
        if not arg.startswith("-"):
            packages.append(arg)
        i += 1
    if has_file:
        return _InstallHit(100, "install_instructions.conda_env", "creates the conda environment from a spec file")
    names = {normalize_name(m.group(1)) for p in packages if (m := _REQUIREMENT_NAME.match(p))}
    if args[0] == "install" and names & ctx.own_names:
        return _InstallHit(100, "install_instructions.own_distribution",
                           "installs the project's own package with its dependencies", own=True)
    if packages:
        return _InstallHit(70, "install_instructions.package_by_package", "installs packages one by one",
                           pinned=sum(1 for p in packages if _CONDA_PINNED.match(p.strip("'\""))))
    return None


def _positional(args: Sequence[str]) -> list[str]:
    return [a for a in args if not a.startswith("-")]


def _own_package_manager_install(program: str, args: Sequence[str], ctx: _InstallContext) -> _InstallHit | None:
    """``spack install <spec>`` and ``brew install <formula>``: the project's own package
    (100, the package manager builds it with its dependencies; json-fortran's
    ``brew install json-fortran``) or other packages one by one (70)."""
    if args[:1] != ("install",):
        return None
    specs = _positional(args[1:])
    # spack specs carry versions and variants: `xtb@6.6.1 +openmp ^openblas`
    names = {normalize_name(re.split(r"[@%+~^\s]", spec, maxsplit=1)[0]) for spec in specs
             if not spec.startswith(("^", "+", "~", "%"))}
    names.discard("")
    if names & ctx.own_names:
        return _InstallHit(100, "install_instructions.own_distribution",
                           f"installs the project's own {program} package with its dependencies", own=True)
    if names:
        if program == "spack":
            return _InstallHit(70, "install_instructions.package_by_package", "installs Spack packages one by one")
        return _InstallHit(70, "install_instructions.system_packages", "installs system packages one by one")
    return None


def _own_image(image: str, ctx: _InstallContext) -> bool:
    """An image the documents build (`docker build -t`) or named after the project."""
    return image in ctx.built_images or normalize_name(image_name(image)) in ctx.own_names


def _install_command(cmd: Command, ctx: _InstallContext) -> _InstallHit | None:
    program = cmd.program.lower()
    args = cmd.args
    if _PIP_PROGRAM.fullmatch(program) or program == "pipx":
        return _pip_install(args[1:], ctx) if args[:1] == ("install",) else None
    if _PYTHON_PROGRAM.fullmatch(program):
        target = _python_target(args)
        if target is None:
            return None
        kind, name, rest = target
        if kind == "module" and name == "pip" and rest[:1] == ("install",):
            return _pip_install(rest[1:], ctx)
        if kind == "script" and _name(name).lower() == "setup.py" and rest[:1] and rest[0] in ("install", "develop"):
            return _InstallHit(70, "install_instructions.setup_py", "installs with setup.py")
        return None
    if program == "uv":
        if args[:1] == ("sync",):
            return _InstallHit(100, "install_instructions.lock_sync", "installs the locked environment")
        if args[:2] == ("pip", "install"):
            return _pip_install(args[2:], ctx)
        if args[:2] == ("pip", "sync"):
            return _InstallHit(100, "install_instructions.pip_requirements", "installs a requirements file")
        return None
    if program in ("conda", "mamba", "micromamba"):
        return _conda(args, ctx)
    if program == "poetry" and args[:1] == ("install",):
        return _InstallHit(100, "install_instructions.lock_sync", "installs the project environment")
    if program == "pdm" and args[:1] and args[0] in ("install", "sync"):
        return _InstallHit(100, "install_instructions.lock_sync", "installs the project environment")
    if program == "pixi" and args[:1] == ("install",):
        return _InstallHit(100, "install_instructions.lock_sync", "installs the project environment")
    if program == "pipenv" and args[:1] and args[0] in ("install", "sync"):
        if args[0] == "sync" or not [a for a in args[1:] if not a.startswith("-")]:
            return _InstallHit(100, "install_instructions.lock_sync", "installs the environment of the Pipfile")
        return _InstallHit(70, "install_instructions.package_by_package", "installs packages one by one")
    if program in _CONTAINER_TOOLS and (args[:1] and args[0] in ("build", "pull") or args[:2] == ("buildx", "build")):
        return _InstallHit(100, "install_instructions.container", "builds or pulls the container image")
    image = container_image(cmd)
    if image is not None and _own_image(image, ctx):
        # `docker run` pulls the image it starts: the deposit's own image is its whole environment
        return _InstallHit(100, "install_instructions.own_container",
                           "runs the project's own container image, which holds the whole environment")
    compose = args[1:] if program in _CONTAINER_TOOLS and args[:1] == ("compose",) else (
        args if program == "docker-compose" else ())
    if compose[:1] and compose[0] in ("up", "build"):
        return _InstallHit(100, "install_instructions.container", "builds the composed containers")
    if program in ("singularity", "apptainer") and args[:1] and args[0] in ("build", "pull"):
        return _InstallHit(100, "install_instructions.container", "builds or pulls the container image")
    targets = task_targets(cmd, ctx.task_runners)
    if targets and set(targets) & _TASK_SETUP_TARGETS:
        return _InstallHit(100, "install_instructions.make_target", "runs a task runner's set-up target")
    if program in ("make", "gmake"):
        targets = set(_make_targets(args))
        # in a compiled deposit `make install` installs the program just built: one step of
        # a source build, not an environment (METRICS §0.2.11)
        if ctx.compiled and "install" in targets and not targets & (_MAKE_INSTALL_TARGETS - {"install"}):
            return _InstallHit(70, "install_instructions.source_build", "installs the program built from source")
        if targets & _MAKE_INSTALL_TARGETS:
            return _InstallHit(100, "install_instructions.make_target", "runs a make setup target")
        if ctx.compiled:
            return _InstallHit(70, "install_instructions.source_build", "builds the program from source")
        return None
    if ctx.compiled and (program == "cmake" or program in ("ninja", "meson") and args[:1] != ("--version",)):
        return _InstallHit(70, "install_instructions.source_build", "builds the program from source")
    if program == "nextflow" and args[:1] == ("run",) and len(args) > 1:
        if ctx.workflow_environments:
            return _InstallHit(100, "install_instructions.workflow_run",
                               "runs the pipeline, whose processes declare their containers or conda environments")
        return _InstallHit(70, "install_instructions.workflow_run_without_environments",
                           "runs the pipeline, but its processes declare no container or conda environment")
    if program == "snakemake" and any(a in ("--use-conda", "--use-singularity", "--use-apptainer")
                                      or a.startswith(("--software-deployment-method", "--sdm")) for a in args):
        return _InstallHit(70, "install_instructions.rule_environments",
                           "builds the rules' environments; Snakemake itself is installed by hand")
    script = _invoked_script(cmd, sourcing=True)
    if script is not None and _is_install_script(script) and _suffix(script) in ("", ".sh", ".bash"):
        return _InstallHit(100, "install_instructions.install_script", "runs an install script")
    if program in ("npm", "yarn") and args[:1] and args[0] in ("install", "ci", "add"):
        return _InstallHit(70, "install_instructions.package_by_package", "installs JavaScript packages")
    if program in ("spack", "brew"):
        return _own_package_manager_install(program, args, ctx)
    if program in _SYSTEM_PACKAGE_MANAGERS and args[:1] == ("install",):
        return _InstallHit(70, "install_instructions.system_packages", "installs system packages one by one")
    return None


def _mex_build(code: str, ctx: _InstallContext) -> _InstallHit | None:
    """A MATLAB statement that compiles the project's MEX files: `mex …`/`mexcuda …`,
    or running a function or script of the tree that calls them (KiloSort's
    `mexGPUall`): a source build, the 70 tier as `make` is for a C program (§0.2.11)."""
    if _MEX_STATEMENT.match(code):
        return _InstallHit(70, "install_instructions.source_build", "compiles the project's MEX files from source")
    statement = _MATLAB_RUN_STATEMENT.fullmatch(code)
    if statement and statement.group(1) in ctx.mex_builders:
        return _InstallHit(70, "install_instructions.source_build",
                           f"runs {statement.group(1)}, which compiles the project's MEX files from source")
    return None


def _install_line(line: DocLine, ctx: _InstallContext) -> _InstallHit | None:
    if line.repl:
        return None
    best: _InstallHit | None = None
    code = line.code   # a commented-out install is none
    if _R_JULIA_ONE_COMMAND.search(code):
        best = _InstallHit(100, "install_instructions.lock_sync", "restores the R/Julia project environment")
    elif _own_package_install(code, ctx):
        best = _InstallHit(100, "install_instructions.own_package",
                           "installs the project's own R/Julia package with the dependencies it declares", own=True)
    elif _R_JULIA_PACKAGES.search(code):
        best = _InstallHit(70, "install_instructions.package_by_package", "installs R/Julia packages one by one")
    elif toolbox := _MATLAB_TOOLBOX_INSTALL.search(code):
        best = _toolbox_install(toolbox.group(1), ctx)
    elif ctx.matlab and _MATLAB_ADDPATH.search(code):
        best = _InstallHit(70, "install_instructions.matlab_path", "puts the toolbox on the MATLAB path")
    elif ctx.matlab and (mex := _mex_build(code, ctx)) is not None:
        best = mex
    for cmd in line.commands:
        hit = _install_command(cmd, ctx)
        if hit is not None and (best is None or hit.value > best.value):
            best = hit
    return best


def _install_context(tree: TreeIndex) -> _InstallContext:
    description = tree.find_ci("DESCRIPTION")
    fields = tree.description_fields(description) if description else None
    r_package = ((fields or {}).get("Package") or "").strip()
    project = tree.find_ci("Project.toml")
    data = tree.toml(project) if project else None
    julia_package = data.get("name") if isinstance(data, dict) and isinstance(data.get("name"), str) else ""
    frontends = set()
    workflow_environments = False
    for facts in tree.all_facts().values():
        frontends.add(facts.frontend)
        if facts.frontend == "nextflow" and not workflow_environments:
            workflow_environments = any(d.kind in ("container", "conda") for d in facts.directives)
    toolbox_files = frozenset(_name(p)[:-len(_suffix(p))].lower() for p in tree.match(r".+\.(?:mltbx|prj)"))
    own_names = own_project_names(tree)
    repositories = set(own_names)
    for key in ("URL", "BugReports"):
        repositories.update(normalize_name(m.group(1)) for m in _GITHUB_REPOSITORY.finditer((fields or {}).get(key) or ""))
    mex_builders = frozenset(
        _name(path)[:-2] for path in tree.by_frontend("matlab") if tree.role(path) != "vendored"
        and (facts := tree.facts(path)) is not None and any(c.name in _MATLAB_MEX_CALLS for c in facts.calls)
    ) if "matlab" in frontends else frozenset()
    return _InstallContext(
        own_names, bool(_dependency_manifests(tree)), r_package=r_package,
        julia_package=julia_package.strip(), compiled=compiled_sources(tree),
        workflow_environments=workflow_environments, matlab="matlab" in frontends,
        task_runners=task_runners(tree), toolbox_files=toolbox_files,
        own_repositories=frozenset(repositories), mex_builders=mex_builders)


def _install_documents(tree: TreeIndex) -> tuple[list[str], list[str]]:
    """(INSTALL* files at the root, docs/install* files), prose documents only."""
    install_files = [p for p in tree.match(_INSTALL_FILE, "") if _suffix(p) in _DOC_SUFFIXES]
    docs_files: list[str] = []
    # docs/install*, and one level further down (docs/source/, docs/user/, doc/guide/...)
    for folder in ("docs", "doc"):
        if not tree.is_dir(folder):
            continue
        for directory in [folder] + tree.match(r".*", folder, dirs=True):
            docs_files.extend(p for p in tree.match(_INSTALL_FILE, directory) if _suffix(p) in _DOC_SUFFIXES)
    return install_files, docs_files


def _install_fix(tree: TreeIndex, ctx: _InstallContext) -> str:
    """The fix in the deposit's own ecosystem (METRICS.md §0.3): its one command that
    creates the environment, from the files it already has where possible."""
    root = {_name(p).lower(): p for p in tree.files_in("")}
    conda_file = next((root[n] for n in ("environment.yml", "environment.yaml") if n in root), None)
    ecosystem = fix_ecosystem(tree)
    name = next(iter(sorted(ctx.own_names)), "")
    if ecosystem == R:
        if "renv.lock" in root:
            return _one_command("Rscript -e 'renv::restore()'")
        if ctx.r_package:
            return ("Give the one command that installs the package with the dependencies its DESCRIPTION "
                    f'declares, e.g. `remotes::install_github("<owner>/{ctx.r_package}")` (or `devtools::install()` '
                    "in its folder), in a README code block.")
        return ("Record the R packages the analysis uses with renv (`renv::snapshot()` writes renv.lock) and give "
                "the one command that restores them, `Rscript -e 'renv::restore()'`, in a README code block.")
    if ecosystem == JULIA:
        if ctx.julia_package:
            return ("Give the one command that installs the package with the dependencies its Project.toml declares, "
                    f"`] add {ctx.julia_package}` (or `Pkg.add(url=\"https://github.com/<owner>/{ctx.julia_package}.jl\")` "
                    "before it is registered), in a README code block.")
        if "project.toml" in root:
            return _one_command("julia --project -e 'using Pkg; Pkg.instantiate()'")
        return ("Declare the dependencies in a Project.toml with its Manifest.toml (`] activate .` then `] add "
                "<Package>`) and give the one command that creates the environment, `julia --project -e 'using "
                "Pkg; Pkg.instantiate()'`, in a README code block.")
    if ecosystem == MATLAB:
        return ("Package the code as a toolbox (.mltbx) and give the one command that installs it with the add-ons "
                f"it needs, `matlab.addons.install('{name or '<Toolbox>'}.mltbx')`, in a README code block, with the "
                "MATLAB release and toolboxes it requires.")
    if ecosystem == NATIVE:
        if conda_file:
            return _one_command(f"conda env create -f {conda_file}")
        return ("Give one command that installs the program with the libraries it needs in a README code block, "
                f"e.g. `spack install {name or '<package>'}` or `conda install -c conda-forge {name or '<package>'}` "
                "for a packaged release, or `conda env create -f environment.yml` for the build environment.")
    if ecosystem == NEXTFLOW:
        if ctx.workflow_environments:
            return _one_command("nextflow run <pipeline> -profile docker")
        return ("Declare a container or conda environment for every process and give the one command that runs "
                "the pipeline with them, `nextflow run <pipeline> -profile docker`, in a README code block.")
    if ecosystem == SNAKEMAKE:
        return ("Give the one command that creates the environment Snakemake runs in, e.g. `conda env create -f "
                f"{conda_file or 'environment.yml'}` with snakemake listed in it, in a README code block; "
                "`snakemake --use-conda` then builds the rules' environments.")
    for lower, command in (
        ("environment.yml", "conda env create -f environment.yml"),
        ("environment.yaml", "conda env create -f environment.yaml"),
        ("requirements.txt", "pip install -r requirements.txt"),
        ("pyproject.toml", "pip install ."),
        ("pipfile", "pipenv install"),
        ("renv.lock", "Rscript -e 'renv::restore()'"),
        ("project.toml", "julia --project -e 'using Pkg; Pkg.instantiate()'"),
    ):
        if lower in root:
            return _one_command(command)
    return ("Declare the dependencies in requirements.txt (or environment.yml) and give the one command "
            "that installs them, e.g. `pip install -r requirements.txt`, in a README code block.")


def _one_command(command: str) -> str:
    return f"Give the one command that creates the environment, `{command}`, in a README code block."


@detector("install_instructions", version="2.6.0")
def install_instructions(tree: TreeIndex) -> Result:
    """Install instructions: one command that creates the whole environment.

    What it checks:
        Code blocks and inline code (console prompts stripped) of the README (a README
        spelt with separators, READ_ME.txt, when no §0.1.13 name exists, 2.6.0), of INSTALL*
        files at the root and of docs/install* (also doc/ and docs/source/), and the
        lines of their prose that start with a shell prompt ($ or %) in a list item, a
        blockquote or a plain-text README (METRICS §0.2.10, 2.3.0); the maximum over
        them wins. A code line is read without the comment of its block's language (`#`;
        `%` in a ```matlab/```octave block, whose `>>` prompt is stripped and whose
        comment lines are skipped): a commented-out `# install.packages("x")` installs
        nothing (2.5.0). 100: one command creating the full environment (`pip install -r
        <file>`, `pip install .`/`-e .` when a manifest declares dependencies, `pip
        install <own distribution>`, `conda|mamba|micromamba env create`, `conda create
        --file`, `poetry install`, `pipenv install|sync`, `pdm install`, `uv sync`, `pixi
        install`, `docker build|pull|compose up`, `make setup|install|env` (`task`/`just`
        with a setup, install, env, restore or bootstrap target), `./install.sh`, `bash
        install.sh`, `renv::restore()`, `Pkg.instantiate()`); `docker|podman run` (or
        `singularity|apptainer run docker://…`) of the project's own image, one the
        documents build (`docker build -t <image>`) or named after the project, since
        running it pulls the whole environment (2.3.0). The project's own names
        (2.3.0, `scoring.detectors._shared.own_project_names`): pyproject.toml,
        setup.cfg, setup.py's `setup(name=…)` (a module-level name it passes resolved;
        never an `Extension(name=…)`),
        the root CMake or meson project(), fpm.toml's name, DESCRIPTION's Package,
        Project.toml's name, a root *.Rproj. 70: package-by-package commands (`pip
        install a b`, `conda install`, `install.packages(`, `BiocManager::install(`,
        `devtools::install_github(`, `Pkg.add(`, `python setup.py install`, `npm
        install`, `apt-get install`, `spack install <other package>`), `pip install .`
        without a dependency manifest, or an INSTALL file without such a command; and
        the project's own install after two or more packages installed one by one at a
        pinned version earlier in the same document (`pip install numpy==1.24.0`, `pip
        install torch==2.0.1`, then `pip install mypkg`: §0.3 Python libraries, 2.3.0).
        30: README prose or a section heading mentioning install / dependencies /
        requirements / prerequisites as a whole word (the README title, its first
        heading when it is a top-level one over deeper headings, names the project and
        is no section: 2.3.0, METRICS §0.2.6). 0 otherwise. The install pages searched
        are docs/install* and doc/install* and one folder further down (docs/source/,
        docs/user/...).
        Each ecosystem's own forms (METRICS.md §0.3): R — installing the deposit's own
        package (`install.packages("<Package>")`, `BiocManager::install("<Package>")`,
        `remotes::install_github("<owner>/<Package>")`, `devtools::install()`,
        `remotes::install_local()`, where <Package> is DESCRIPTION's) is 100, as it
        resolves the DESCRIPTION's dependencies, and so is a repository install
        (`devtools|remotes::install_github|gitlab|bitbucket|git`) of a repository named
        as the project names itself (the root .Rproj's stem, a GitHub repository that
        DESCRIPTION's URL or BugReports links: a research compendium whose package is
        called otherwise, 2.5.0); Julia — `Pkg.add("<name>")`, `] add
        <name>` or `Pkg.add(PackageSpec(url=".../<name>.jl.git"))` of Project.toml's own
        name is 100; MATLAB/Octave — `addpath(...)` of the toolbox is a manual step (70),
        installing the project's own packaged toolbox (`matlab.addons.install("<X>.mltbx")`
        or `matlab.addons.toolbox.installToolbox`, where a <X>.mltbx or <X>.prj is in the
        tree or <X> is a project name) is 100 as the toolbox brings the add-ons it
        declares, another toolbox 70 (2.3.0); compiling the MEX files (`mex …`,
        `mexcuda …`, or running a function or script of the tree that calls them, such
        as `mexGPUall`) is a source build, 70 as `make` is for a C program (2.5.0,
        METRICS §0.2.11); C/C++/Fortran — `make`, `cmake`, `ninja`
        or `meson` builds of the program are a source build (70), and so is `make
        install`, the install step of that build (2.3.0, METRICS §0.2.11; `make
        setup|env` stays 100); `conda|mamba install`, `spack install` and `brew
        install` of the project's own name install its own package with its
        dependencies (100; json-fortran's fpm.toml name, 2.3.0); Nextflow — `nextflow
        run <pipeline>` is 100 when the processes declare containers or conda
        environments (the run builds the whole software stack), else 70; Snakemake —
        `--use-conda` / `--software-deployment-method` builds the rules' environments
        while Snakemake itself is installed by hand (70); `docker buildx build` is a
        container build.
    Why it matters:
        The environment is the first thing a re-user must rebuild; a single documented
        command removes the guesswork about which packages and versions to install.
    Evidence:
        The document, line and command of each install command of the winning tier; the
        INSTALL file; or the prose line. ``counts`` holds the number of one-command and
        package-by-package commands, install files and prose mentions.
    How to fix:
        Put the one command that creates the environment in a README code block, in the
        deposit's own ecosystem (2.3.0, METRICS §0.3): `pip install -r
        requirements.txt` or `conda env create -f environment.yml` (Python),
        `Rscript -e 'renv::restore()'` or `remotes::install_github("<owner>/<Package>")`
        (R), `julia --project -e 'using Pkg; Pkg.instantiate()'` (Julia),
        `matlab.addons.install('<Toolbox>.mltbx')` (MATLAB), `spack install <name>` or
        `conda install -c conda-forge <name>` (C/C++/Fortran), `nextflow run <pipeline>
        -profile docker` (Nextflow), `conda env create -f environment.yml` with
        snakemake in it (Snakemake). After pinned installs: declare those versions as
        the project's own dependencies.
    Known false positives:
        A command counts wherever it appears in those documents, even in a section about
        something else or with a wrong file name; whether the referenced file exists is
        not checked. Upgrades of pip/setuptools/wheel alone are ignored. An image named
        after the project is taken for the project's own although anyone may publish
        one by that name.
    """
    ctx = _install_context(tree)
    install_files, docs_files = _install_documents(tree)
    sources = ([tree.readme] if tree.readme else []) + install_files + docs_files
    documents = [(path, doc_lines(doc)) for path in sources if (doc := tree.document(path)) is not None]
    built = {tag for _, lines in documents for line in lines for cmd in line.commands
             for tag in container_build_tags(cmd)}
    ctx = replace(ctx, built_images=frozenset(built))
    hits: list[tuple[_InstallHit, DocLine]] = []
    for _path, lines in documents:
        pinned = 0   # pinned packages installed one by one so far in this document
        for line in lines:
            hit = _install_line(line, ctx)
            if hit is None:
                continue
            if hit.own and pinned >= _SEVERAL:
                # §0.3 Python libraries: the project's own install needs several pinned
                # installs before it, so no single command creates the environment
                hit = _InstallHit(70, "install_instructions.own_after_pinned_installs",
                                  f"installs the project after {pinned} packages pinned one by one")
            pinned += hit.pinned
            hits.append((hit, line))
    install_docs = [p for p in install_files + docs_files
                    if (table := tree.line_table(p)) is not None and not table.blank]
    prose: list[tuple[str, int | None, str]] = []
    readme_doc = tree.readme_document()
    if readme_doc is not None:
        for heading in section_headings(readme_doc):   # the title names the project (§0.2.6)
            if _INSTALL_PROSE.search(heading.text):
                prose.append((readme_doc.path, heading.line, heading.text))
        for paragraph in readme_doc.paragraphs:
            if _INSTALL_PROSE.search(paragraph.text):
                prose.append((readme_doc.path, paragraph.line_start, paragraph.text))
        prose.sort(key=lambda item: item[1])
        prose = [(path, _file_line(readme_doc, line), text) for path, line, text in prose]
    counts = {
        "one_command": sum(1 for h, _ in hits if h.value == 100),
        "package_commands": sum(1 for h, _ in hits if h.value == 70),
        "install_files": len(install_docs),
        "prose_mentions": len(prose),
        "documents_read": len(sources),
    }
    best = max((h.value for h, _ in hits), default=0)
    if install_docs:
        best = max(best, 70)
    if prose:
        best = max(best, 30)
    evidence: list[Evidence] = []
    for hit, line in hits:
        if hit.value == best and len(evidence) < MAX_EVIDENCE:
            evidence.append(Evidence(line.path, hit.reason, rule=hit.rule, line_start=line.line, snippet=line.text))
    if best == 70 and not evidence:
        evidence.extend(Evidence(p, "install instructions file", rule="install_instructions.install_file")
                        for p in install_docs[:MAX_EVIDENCE])
    if best == 30:
        evidence.extend(Evidence(path, "prose mentions installation or dependencies",
                                 rule="install_instructions.prose", line_start=line, snippet=text)
                        for path, line, text in prose[:5])
    if best == 100:
        reason, fix = "a single command creates the environment", None
    elif best == 70:
        reason = ("installation is described package by package or in an INSTALL file, "
                  "without one command that creates the whole environment")
        after_pins = next((line for h, line in hits if h.rule == "install_instructions.own_after_pinned_installs"), None)
        if any(h.rule == "install_instructions.local_project_without_manifest" for h, _ in hits):
            fix = ("Declare the dependencies in pyproject.toml ([project].dependencies) or setup.py "
                   "(install_requires) so that the documented `pip install .` installs them.")
        elif after_pins is not None:
            fix = ("Declare the versions installed one by one before the project as its own dependencies "
                   f"(pyproject.toml, setup.py or a requirements file) so that `{after_pins.text}` alone installs them.")
        else:
            fix = _install_fix(tree, ctx)
    elif best == 30:
        reason, fix = "installation or dependencies are mentioned in prose only", _install_fix(tree, ctx)
    else:
        reason, fix = "no install instructions found", _install_fix(tree, ctx)
    return Result(best, evidence=evidence, fix=fix, reason=reason, counts=counts)
