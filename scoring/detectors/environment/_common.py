"""What several category E detectors share: evidence helpers, the environment
locations' files, language names, Dockerfile names (E2, E4), the languages the facts show
and the deposit's native build files (E1, E4), and the workflow view (E1–E4): each
Nextflow process's or Snakemake rule's software environment, container directives,
engines enabled in profiles, and the workflow engine version declared.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from scoring.detectors._shared import resolve_in_folder
from scoring.model import Evidence
from scoring.parsers.dockerfile import is_pinned_image
from scoring.tree import TreeIndex

# Evidence lists stay short enough to read; totals always go to ``counts``.
MAX_EVIDENCE = 20


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def _env_files(tree: TreeIndex) -> Iterable[str]:
    """Files directly inside the environment locations (§2.3), each once."""
    seen: set[str] = set()
    for location in tree.env_locations:
        for path in tree.files_in(location):
            if path not in seen:
                seen.add(path)
                yield path


class _Lines:
    """Lines of files for snippets (:meth:`scoring.tree.TreeIndex.line_table`, split once
    per content). Numbered as the manifest and Dockerfile parsers number them: newlines
    only, where ``str.splitlines`` would also break on form feeds."""

    def __init__(self, tree: TreeIndex) -> None:
        self._tree = tree

    def get(self, path: str, line: int | None) -> str | None:
        if not line:
            return None
        table = self._tree.line_table(path)
        if table is None:
            return None if line != 1 else ""
        return table.line(line)


def _each_file_first(items: Sequence[Evidence], limit: int) -> list[Evidence]:
    """At most ``limit`` of ``items``, in their order: the first item of every file before
    a second item of any file, so a capped list still shows where each file declares."""
    if len(items) <= limit:
        return list(items)
    if limit <= 0:
        return []
    seen: set[str] = set()
    first, rest = [], []
    for index, item in enumerate(items):
        (rest if item.path in seen else first).append(index)
        seen.add(item.path)
    kept = sorted((first + rest)[:limit])
    return [items[i] for i in kept]


def _join_names(names: Sequence[str], limit: int = 5) -> str:
    shown = ", ".join(names[:limit])
    return shown + (", …" if len(names) > limit else "")


_LANGUAGE_NAMES = {
    "python": "Python", "r": "R", "julia": "Julia", "js": "JavaScript", "matlab": "MATLAB/Octave",
    "c": "C", "cpp": "C++", "fortran": "Fortran", "nextflow": "Nextflow", "snakemake": "Snakemake",
}


def _language_name(language: str) -> str:
    return _LANGUAGE_NAMES.get(language, language)


# R package installs (§0.3 R E3): each installs a package with the dependencies its
# DESCRIPTION declares, in one command (E3); with no manifest, where a deposit names its
# dependencies (E1).
R_PACKAGE_INSTALL_RE = re.compile(
    r"(?<![\w.])(?:install\.packages|BiocManager::install|remotes::install_(?:github|deps|cran|bioc|local|gitlab|git)"
    r"|devtools::install(?:_github|_deps)?|pak::(?:pkg_install|pak|local_install)|renv::install)\s*\("
)


# --------------------------------------------------------------------------- container files (E2, E4)

# Dockerfile, Dockerfile.<variant>, <variant>.Dockerfile, Containerfile (§2.3: case-insensitive);
# Dockerfile-gpu / Dockerfile_cpu are as common as Dockerfile.gpu and are Dockerfiles too.
_DOCKERFILE_RE = re.compile(
    r"(?:dockerfile|containerfile)(?:[._-][^/]+)?|[^/]+\.dockerfile", re.IGNORECASE
)
# Dockerfile.md and friends document a Dockerfile; they are not one.
_DOC_SUFFIX_RE = re.compile(r".+\.(?:md|markdown|rst|html?|pdf|png|jpe?g|svg)", re.IGNORECASE)


def _named(paths: Iterable[str], pattern: re.Pattern[str]) -> list[str]:
    """The paths whose name fully matches ``pattern``, in their order."""
    return [p for p in paths if pattern.fullmatch(_name(p))]


def _dockerfiles(paths: Iterable[str]) -> list[str]:
    """The Dockerfiles among ``paths`` (documents named after one excluded)."""
    return [p for p in _named(paths, _DOCKERFILE_RE) if not _DOC_SUFFIX_RE.fullmatch(_name(p))]


# --------------------------------------------------------------------------- languages (E1, E4)

# Languages by the facts their frontends give (§0.3 "a language is used when its sources
# exist"): the tree index's ``languages`` knows Python, R, Julia and JavaScript only.
NATIVE_LANGUAGES = frozenset({"c", "cpp", "fortran"})
WORKFLOW_LANGUAGES = frozenset({"nextflow", "snakemake"})


@dataclass(frozen=True)
class _SourceView:
    """What E1 and E4 ask of a tree's sources, gathered in one pass over its facts and
    one over its paths: each ``all_facts()`` call walks every path again."""

    facts: dict
    languages: frozenset[str]
    matlab_sources: tuple[str, ...]
    build_files: tuple[str, ...]       # the deposit's own native build files, tests excluded


_SOURCE_VIEWS: weakref.WeakKeyDictionary[TreeIndex, _SourceView] = weakref.WeakKeyDictionary()


def _sources(tree: TreeIndex) -> _SourceView:
    cached = _SOURCE_VIEWS.get(tree)
    if cached is None:
        cached = _build_source_view(tree)
        _SOURCE_VIEWS[tree] = cached
    return cached


def _build_source_view(tree: TreeIndex) -> _SourceView:
    from scoring.parsers.native_build import native_build_kind

    facts = tree.all_facts()
    languages = set(tree.languages)
    matlab = []
    for path, file_facts in facts.items():
        if file_facts.language == "matlab":
            # An Objective-C `.m` file does not parse as MATLAB/Octave.
            if file_facts.parse_error and not file_facts.definitions:
                continue
            matlab.append(path)
        languages.add(file_facts.language)
    own = []
    for path in tree.files:
        if native_build_kind(path) and not {p.lower() for p in path.split("/")[:-1]} & (_VENDORED_PARTS | _TEST_PARTS):
            own.append(path)
    return _SourceView(facts, frozenset(languages), tuple(matlab), tuple(own))


def _fact_languages(tree: TreeIndex) -> frozenset[str]:
    """Every language a frontend read sources of (§0.3 "a language is used when its
    sources exist"; the index's ``languages`` knows Python, R, Julia and JavaScript only);
    MATLAB only for `.m` files that parse as MATLAB/Octave."""
    return _sources(tree).languages


def _matlab_sources(tree: TreeIndex) -> tuple[str, ...]:
    return _sources(tree).matlab_sources


def _all_facts(tree: TreeIndex) -> dict:
    """``tree.all_facts()``, taken once per tree for the category."""
    return _sources(tree).facts


# Folders of other projects' code: their build files do not describe this deposit's build.
_VENDORED_PARTS = frozenset({"third_party", "thirdparty", "3rdparty", "vendor", "vendored"})
_TEST_PARTS = frozenset({"test", "tests", "testing"})


def _native_build_files(tree: TreeIndex) -> tuple[str, ...]:
    """CMake, meson, wrap, .gitmodules and Make files of the deposit's own build (not
    vendored, not a test build)."""
    return _sources(tree).build_files


def main_native_language(tree: TreeIndex, native: frozenset[str] | None = None) -> str:
    """The native language (of ``native``, else of the tree) with the most source files;
    C++, C, Fortran on ties."""
    native = native if native is not None else _fact_languages(tree) & NATIVE_LANGUAGES
    tally = {lang: 0 for lang in native}
    for facts in _all_facts(tree).values():
        if facts.language in tally:
            tally[facts.language] += 1
    return max(sorted(native, key=("cpp", "c", "fortran").index), key=lambda lang: tally[lang], default="cpp")


def fix_ecosystem_checked(tree: TreeIndex) -> str:
    """The ecosystem a fix is written for (:func:`scoring.detectors._shared.fix_ecosystem`),
    where `.m` files count as MATLAB only when they parse as MATLAB/Octave (§0.3: an
    Objective-C `.m` is not MATLAB); such a tree's fix follows its other languages."""
    from scoring.detectors._shared import MATLAB, fix_ecosystem

    ecosystem = fix_ecosystem(tree)
    if ecosystem != MATLAB or _matlab_sources(tree):
        return ecosystem
    languages = _fact_languages(tree)
    for language, fallback in (("nextflow", "nextflow"), ("snakemake", "snakemake"), ("python", "python"),
                               ("r", "r"), ("julia", "julia")):
        if language in languages:
            return fallback
    return "native" if languages & NATIVE_LANGUAGES else "python"


# --------------------------------------------------------------------------- workflows (E1–E4)

_CONTAINER_ENGINES = ("docker", "singularity", "apptainer", "podman", "charliecloud", "shifter", "sarus", "wave")
_ENV_ENGINES = (*_CONTAINER_ENGINES, "conda", "mamba", "spack")
_QUOTED_RE = re.compile(r"""['"]([^'"\s]+)['"]""")
_PARAM_REF_RE = re.compile(r"\$\{?\s*(params(?:\.\w+)+)\s*\}?")
_VARIABLE_REF_RE = re.compile(r"\$\{?(\w+)\}?")
_URI_SCHEME_RE = re.compile(r"^(?:docker|library|shub|oras|docker-archive)://")
_WRAPPER_RELEASE_RE = re.compile(r"^v?\d+(?:\.\d+)+/")
_ENV_FILE_RE = re.compile(r"\.ya?ml$", re.IGNORECASE)


@dataclass(frozen=True)
class WorkflowStep:
    """A Nextflow process or Snakemake rule and the software environment it runs in."""

    engine: str
    name: str
    path: str
    line: int
    needs_environment: bool
    pinned: bool
    how: str            # what pins it or why it is not: "container x:1.2", "conda env.yml: 2 unpinned"
    evidence_path: str
    evidence_line: int | None
    # every declaration of its environment, the ones that did not decide ``pinned`` too
    # (a conda directive beside a pinned container): what E1's evidence shows
    declarations: tuple[StepDeclaration, ...] = ()


@dataclass(frozen=True)
class StepDeclaration:
    """One declaration of a step's software environment: a ``container``, ``conda`` or
    ``wrapper`` directive (``kind`` "directive"), the conda environment file a directive
    names (``environment_file``, its dependency lines), or the ``params`` setting a
    container image takes its tag from (``parameter``)."""

    kind: str
    path: str
    line: int | None
    what: str
    pinned: bool
    line_end: int | None = None


@dataclass(frozen=True)
class ContainerDirective:
    """A ``container``/``containerized`` directive (or config setting) with its image(s)."""

    path: str
    line: int
    images: tuple[str, ...]
    pinned: bool
    scope: str


@dataclass(frozen=True)
class EngineSetting:
    """A container or conda engine a workflow enables, in a profile or for every run."""

    path: str
    line: int
    engine: str
    profile: str        # "" when enabled outside any profile
    profile_line: int | None = None     # where the profile's block opens


@dataclass
class Workflows:
    engines: frozenset[str] = frozenset()
    steps: list[WorkflowStep] = field(default_factory=list)
    containers: list[ContainerDirective] = field(default_factory=list)
    engine_settings: list[EngineSetting] = field(default_factory=list)
    # (path, line, text): manifest.nextflowVersion, Snakemake min_version()
    version_declarations: list[tuple[str, int, str]] = field(default_factory=list)
    # conda environment files the steps name, resolved to tree paths
    environment_files: list[str] = field(default_factory=list)

    def profiles_enabling(self, kinds: Iterable[str]) -> dict[str, EngineSetting]:
        wanted = set(kinds)
        return {s.profile: s for s in self.engine_settings if s.profile and s.engine in wanted}


_WORKFLOWS: weakref.WeakKeyDictionary[TreeIndex, Workflows] = weakref.WeakKeyDictionary()


def _workflows(tree: TreeIndex) -> Workflows:
    """The workflow view of a tree, built once from the Nextflow and Snakemake facts."""
    cached = _WORKFLOWS.get(tree)
    if cached is None:
        cached = _build_workflows(tree)
        _WORKFLOWS[tree] = cached
    return cached


def workflow_environment_files(tree: TreeIndex) -> list[str]:
    """The conda environment files the tree's Nextflow processes and Snakemake rules name
    (``conda "envs/x.yml"``, a module ``environment.yml``), as tree paths."""
    return list(_workflows(tree).environment_files)


_WORKFLOW_ENV_FOLDER = "envs"
_YAML_SUFFIXES = (".yml", ".yaml")


def workflow_folder_environments(tree: TreeIndex) -> list[str]:
    """The conda environment files that sit in the
    folder of a Snakefile, ``*.smk`` or ``*.nf`` file, or in that folder's ``envs/``,
    whether or not a rule names them (METRICS.md §0.3: workflow dependency declarations
    are manifests wherever they are). A conda environment file is a YAML file whose top
    level has a ``dependencies:`` list beside ``channels:`` or ``name:``; its dependencies
    declare what the workflow's scripts import, like those of an environment a rule names."""
    folders = sorted({_parent(path) for frontend in ("snakemake", "nextflow") for path in tree.by_frontend(frontend)
                      if frontend == "snakemake" or path.lower().endswith(".nf")})
    found: list[str] = []
    for folder in folders:
        envs = f"{folder}/{_WORKFLOW_ENV_FOLDER}" if folder else _WORKFLOW_ENV_FOLDER
        for path in sorted(tree.files_in(folder) + tree.files_in(envs)):
            # dotfiles (.gitpod.yml, .pre-commit-config.yaml) configure tools, not environments
            if not path.lower().endswith(_YAML_SUFFIXES) or path.rsplit("/", 1)[-1].startswith("."):
                continue
            # read as YAML only once it parsed as an environment with dependencies, so
            # that an invalid file is reported once, as the manifest parser words it
            environment = tree.conda_environment(path)
            if environment is not None and environment.dependencies and _is_conda_environment(tree.yaml(path)):
                found.append(path)
    return found


def _is_conda_environment(data: object) -> bool:
    return (isinstance(data, dict) and isinstance(data.get("dependencies"), list)
            and ("channels" in data or "name" in data))


def _parent(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _join(directory: str, relative: str) -> str | None:
    """``relative`` (Windows separators allowed, as Compose and Dockerfiles written on
    Windows use them) in ``directory``; None when it leaves the repository or names it."""
    return resolve_in_folder(directory, relative.replace("\\", "/")) or None


def _images(value: str, params: dict[str, str]) -> tuple[str, ...]:
    """The image references a container value names: the quoted alternatives of a
    ``${ engine == 'singularity' ? 'https://…/x:1.2' : 'biocontainers/x:1.2' }`` ternary,
    or the value itself, with ``${params.x}`` resolved and URL prefixes dropped."""
    resolved = _PARAM_REF_RE.sub(lambda m: params.get(m.group(1), m.group(0)), value)
    quoted = [q for q in _QUOTED_RE.findall(resolved) if "/" in q or ":" in q]
    candidates = quoted if quoted and "?" in resolved else [resolved.strip().strip("'\"")]
    images = []
    for candidate in candidates:
        candidate = _URI_SCHEME_RE.sub("", candidate)
        if candidate.startswith(("https://", "http://")):
            candidate = candidate.rsplit("/", 1)[-1]
        if candidate:
            images.append(candidate)
    return tuple(images)


def _env_file_pinned(tree: TreeIndex, path: str) -> tuple[bool, str]:
    from scoring.parsers.manifests import PIN_UNPINNED

    manifest = tree.conda_environment(path)
    if manifest is None or not manifest.dependencies:
        return False, f"conda {path}: no dependencies read"
    loose = [d.name for d in manifest.dependencies if d.pin == PIN_UNPINNED]
    if loose:
        return False, f"conda {path}: {len(loose)} of {len(manifest.dependencies)} entries unpinned"
    return True, f"conda {path}: every entry versioned"


def _conda_value_pinned(value: str) -> tuple[bool, str]:
    from scoring.parsers.manifests import PIN_UNPINNED, conda_spec_pin

    specs = [token for token in value.replace(",", " ").split() if token]
    pins = [conda_spec_pin(token) for token in specs]
    if specs and all(p is not None and p != PIN_UNPINNED for p in pins):
        return True, f"conda {value}"
    return False, f"conda {value}: not every package versioned"


def _build_workflows(tree: TreeIndex) -> Workflows:
    all_facts = _sources(tree).facts
    facts = {p: f for p, f in all_facts.items() if f.language in WORKFLOW_LANGUAGES}
    view = Workflows(engines=frozenset(f.language for f in facts.values()))
    if not facts:
        return view
    params: dict[str, str] = {}
    param_lines: dict[str, tuple[str, int]] = {}
    configs = [p for p, f in facts.items() if f.language == "nextflow" and not p.endswith(".nf")]
    for path in configs:
        for d in facts[path].directives:
            if d.scope == "params" or d.scope.startswith("params."):
                params.setdefault(f"{d.scope}.{d.kind}", d.value)
                param_lines.setdefault(f"{d.scope}.{d.kind}", (path, d.line))
    # Nextflow config: process defaults, selectors, engines, the manifest.
    defaults: dict[str, tuple[str, str, int]] = {}     # "container"/"conda" -> (value, path, line)
    by_label: dict[str, dict[str, tuple[str, str, int]]] = {}
    by_name: dict[str, dict[str, tuple[str, str, int]]] = {}
    for path in configs:
        blocks = [(b.line, b.label) for b in facts[path].blocks]
        for d in facts[path].directives:
            scope = d.scope.split(".")
            if d.kind == "nextflowVersion" and d.scope == "manifest":
                view.version_declarations.append((path, d.line, f"nextflowVersion = '{d.value}'"))
            if d.kind == "enabled" and d.value == "true" and scope and scope[-1] in _ENV_ENGINES:
                profile = scope[1] if scope[0] == "profiles" and len(scope) > 2 else ""
                if scope[0] in ("profiles", scope[-1]) :
                    opens = [line for line, label in blocks if label == profile and line <= d.line] if profile else []
                    view.engine_settings.append(
                        EngineSetting(path, d.line, scope[-1], profile, max(opens) if opens else None)
                    )
            if d.kind in ("container", "conda") and "process" in scope:
                if scope[0] == "profiles":
                    target = None  # profile-specific overrides: the base configuration decides
                elif scope == ["process"]:
                    target = defaults
                elif len(scope) == 2 and scope[1].startswith("withLabel:"):
                    target = by_label.setdefault(scope[1].split(":", 1)[1].strip("'\" "), {})
                elif len(scope) == 2 and scope[1].startswith("withName:"):
                    target = by_name.setdefault(scope[1].split(":", 1)[1].strip("'\" "), {})
                else:
                    target = None
                if target is not None:
                    target.setdefault(d.kind, (d.value, path, d.line))
                if d.kind == "container":
                    images = _images(d.value, params)
                    view.containers.append(
                        ContainerDirective(path, d.line, images, bool(images) and all(map(is_pinned_image, images)), d.scope)
                    )
    for path, f in facts.items():
        if f.language == "snakemake":
            _snakemake_steps(tree, path, f, view)
        elif path.endswith(".nf"):
            _nextflow_steps(tree, path, f, view, params, param_lines, defaults, by_label, by_name)
    # Snakemake's min_version() may sit in a Python module of the workflow (rules/common.py).
    for path, f in all_facts.items() if "snakemake" in view.engines else ():
        if f.language == "python":
            for call in f.calls:
                if call.name == "snakemake.utils.min_version" and call.args:
                    view.version_declarations.append((path, call.line, f"min_version({call.args[0]!r})"))
    return view


def _selector_match(selectors: dict[str, dict], name: str) -> dict:
    for pattern, settings in selectors.items():
        try:
            if pattern == name or re.fullmatch(pattern, name):
                return settings
        except re.error:
            continue
    return {}


def _environment_file_declaration(tree: TreeIndex, env_path: str, what: str, pinned: bool) -> StepDeclaration:
    """The dependency lines of a conda environment file a step names."""
    manifest = tree.conda_environment(env_path)
    lines = [d.line for d in manifest.dependencies if d.line] if manifest is not None else []
    return StepDeclaration("environment_file", env_path, min(lines, default=None), what, pinned,
                           max(lines, default=None))


def _parameter_declarations(value: str, pinned: bool, param_lines: dict[str, tuple[str, int]],
                            params: dict[str, str]) -> list[StepDeclaration]:
    """The ``params`` settings a directive value takes a part of its text from
    (``container "x:${params.sha}"``), at the line that sets each."""
    found = []
    for match in _PARAM_REF_RE.finditer(value):
        where = param_lines.get(match.group(1))
        if where is not None:
            found.append(StepDeclaration("parameter", where[0], where[1],
                                         f"{match.group(1)} = {params[match.group(1)]}", pinned))
    return found


def _nextflow_conda(tree, value, directory, variables) -> tuple[bool, str, str | None]:
    """(pinned, how, environment file path) of a process's ``conda`` setting: a package
    list, or an environment file (``${moduleDir}/environment.yml``)."""
    expanded = _VARIABLE_REF_RE.sub(
        lambda m: {"moduleDir": directory, "projectDir": "", "baseDir": ""}.get(
            m.group(1), variables.get(m.group(1), m.group(0))
        ),
        value,
    )
    expanded = _VARIABLE_REF_RE.sub(
        lambda m: {"moduleDir": directory, "projectDir": "", "baseDir": ""}.get(m.group(1), m.group(0)),
        expanded,
    )
    if _ENV_FILE_RE.search(expanded.strip()):
        env_path = _join("", expanded.strip().lstrip("/"))
        if env_path and tree.is_file(env_path):
            return (*_env_file_pinned(tree, env_path), env_path)
        return False, f"conda {value}: file not found", None
    return (*_conda_value_pinned(value), None)


def _nextflow_steps(tree, path, f, view, params, param_lines, defaults, by_label, by_name) -> None:
    variables = {a.name: a.value for a in f.assignments}
    directory = _parent(path)
    for definition in f.definitions:
        if definition.kind != "process":
            continue
        own = [d for d in f.directives if d.scope == definition.name]
        settings: dict[str, tuple[str, str, int]] = {}
        for d in own:
            if d.kind in ("container", "conda"):
                settings.setdefault(d.kind, (d.value, path, d.line))
                if d.kind == "container":
                    images = _images(d.value, params)
                    view.containers.append(
                        ContainerDirective(path, d.line, images, bool(images) and all(map(is_pinned_image, images)), d.scope)
                    )
        for d in own:
            if d.kind == "label":
                for key, value in by_label.get(d.value.strip("'\" "), {}).items():
                    settings[key] = value
        for key, value in _selector_match(by_name, definition.name).items():
            settings[key] = value
        for key, value in defaults.items():
            settings.setdefault(key, value)
        exec_only = any(d.kind == "exec" for d in own) and not (settings.keys() & {"container", "conda"})
        pinned, how, where = False, "no container or conda environment", (path, definition.line)
        declarations: list[StepDeclaration] = []
        if "container" in settings:
            value, where_path, line = settings["container"]
            images = _images(value, params)
            pinned = bool(images) and all(map(is_pinned_image, images))
            how, where = f"container {', '.join(images) or value}", (where_path, line)
            declarations.append(StepDeclaration("directive", where_path, line, how, pinned))
            declarations += _parameter_declarations(value, pinned, param_lines, params)
        if "conda" in settings:
            value, conda_path, line = settings["conda"]
            conda_pinned, conda_how, env_path = _nextflow_conda(tree, value, directory, variables)
            declarations.append(StepDeclaration("directive", conda_path, line, conda_how, conda_pinned))
            if env_path is not None:
                declarations.append(_environment_file_declaration(tree, env_path, conda_how, conda_pinned))
            # A pinned container decides; the conda setting only when there is none.
            if not pinned:
                pinned, how, where = conda_pinned, conda_how, (conda_path, line)
                if env_path is not None and env_path not in view.environment_files:
                    view.environment_files.append(env_path)
        view.steps.append(
            WorkflowStep("nextflow", definition.name, path, definition.line, not exec_only, pinned,
                         "exec: (runs in Nextflow itself)" if exec_only else how, where[0], where[1],
                         tuple(declarations))
        )


def _snakemake_steps(tree, path, f, view) -> None:
    directory = _parent(path)
    global_container = None
    for d in f.directives:
        if d.kind in ("container", "containerized", "singularity") and not d.scope:
            images = _images(d.value, {})
            global_container = d
            view.containers.append(
                ContainerDirective(path, d.line, images, bool(images) and all(map(is_pinned_image, images)), "")
            )
        if d.kind == "conda" and not d.scope and _ENV_FILE_RE.search(d.value):
            env_path = _join(directory, d.value)
            if env_path and tree.is_file(env_path) and env_path not in view.environment_files:
                view.environment_files.append(env_path)
    for call in f.calls:
        if call.written == "min_version" and call.args:
            view.version_declarations.append((path, call.line, f"min_version({call.args[0]!r})"))
    rules: dict[str, list] = {}
    for d in f.directives:
        if d.scope:
            rules.setdefault(d.scope, []).append(d)
    lines = {d.name: d.line for d in f.definitions if d.kind in ("rule", "checkpoint")}
    for name, directives in rules.items():
        kinds = {d.kind: d for d in directives}
        needs = bool(kinds.keys() & {"shell", "script", "wrapper", "notebook", "cwl"})
        pinned, how, where = False, "no conda environment, container or wrapper", (path, lines.get(name, directives[0].line))
        declarations: list[StepDeclaration] = []
        if "wrapper" in kinds:
            d = kinds["wrapper"]
            pinned = bool(_WRAPPER_RELEASE_RE.match(d.value))
            how, where = f"wrapper {d.value}", (path, d.line)
            declarations.append(StepDeclaration("directive", path, d.line, how, pinned))
        if "conda" in kinds and _ENV_FILE_RE.search(kinds["conda"].value):
            d = kinds["conda"]
            env_path = _join(directory, d.value)
            if env_path and tree.is_file(env_path):
                conda_pinned, conda_how = _env_file_pinned(tree, env_path)
                declarations.append(StepDeclaration("directive", path, d.line, conda_how, conda_pinned))
                declarations.append(_environment_file_declaration(tree, env_path, conda_how, conda_pinned))
            else:
                env_path = None
                conda_pinned, conda_how = False, f"conda {d.value}: file not found"
                declarations.append(StepDeclaration("directive", path, d.line, conda_how, conda_pinned))
            # A release wrapper decides; the conda environment only when there is none.
            if not pinned:
                if env_path is not None and env_path not in view.environment_files:
                    view.environment_files.append(env_path)
                pinned, how, where = conda_pinned, conda_how, (path, d.line)
        container = kinds.get("container")
        if container is None and global_container is not None and "conda" not in kinds:
            container = global_container
        if container is not None:
            images = _images(container.value, {})
            container_pinned = bool(images) and all(map(is_pinned_image, images))
            container_how = f"container {', '.join(images)}"
            declarations.append(StepDeclaration("directive", path, container.line, container_how, container_pinned))
            if container is not global_container:
                # a container definition (E2) whether or not a wrapper or conda pins the rule
                view.containers.append(ContainerDirective(path, container.line, images, container_pinned, name))
            if not pinned:
                pinned, how, where = container_pinned, container_how, (path, container.line)
        view.steps.append(WorkflowStep("snakemake", name, path, lines.get(name, directives[0].line), needs, pinned,
                                       how, where[0], where[1], tuple(declarations)))
