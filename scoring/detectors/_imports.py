"""The packages a tree's code uses from outside itself, as C2 classifies them and E1 asks.

C2 (import_resolvability) checks that each third-party import is declared; E1
(dep_pinning) asks whether there is anything to pin at all (METRICS.md §0.3 "Nothing to
pin": a deposit whose code uses only the standard library and its own modules has E1 not
applicable). Both read the same classification of every Python, R and Julia import,
built here once per tree from the frontends' facts: standard library (the frozen CPython
list, base and recommended R packages, Julia's standard library), environment-provided
(Jupyter, Colab), local (the repository's own modules and package), optional (guarded
against ImportError, METRICS.md §0.2.21) or third-party. Categories share no code
otherwise; this module is the one place the two read it from.
"""

from __future__ import annotations

import bisect
import re
import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache

from scoring.facts import FileFacts, ImportFact
from scoring.parsers.manifests import normalize_name, parse_install_command
from scoring.reference_data import julia_stdlib, r_shipped_packages, table_json, table_text
from scoring.tree import TreeIndex


@cache
def stdlib_modules() -> frozenset[str]:
    """The frozen standard-library list (``scoring/data/stdlib_modules.txt``)."""
    text = table_text("stdlib_modules.txt")
    return frozenset(line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#"))


@cache
def _distribution_data() -> dict:
    return table_json("import_distributions.json")


def import_distributions() -> dict[str, tuple[str, ...]]:
    """The project's own import name → distribution names
    (``scoring/data/import_distributions.json``)."""
    return {k: tuple(v) for k, v in _distribution_data()["mapping"].items()}


def pipreqs_distributions() -> dict[str, tuple[str, ...]]:
    """The import name → distribution names that pipreqs maintains
    (``scoring/data/pipreqs/mapping``, pipreqs 0.5.0, Apache-2.0; SOURCE.md there)."""
    found: dict[str, list[str]] = {}
    for line in table_text("pipreqs/mapping").splitlines():
        name, sep, distribution = line.strip().partition(":")
        if sep and name and distribution and distribution not in found.get(name, ()):
            found.setdefault(name, []).append(distribution)
    return {name: tuple(distributions) for name, distributions in found.items()}


@cache
def _mapping() -> dict[str, tuple[str, ...]]:
    """The maintained table (pipreqs) under the project's own: the project's names come
    first (they name the distribution a fix suggests), then pipreqs's. A top-level name
    the project's table uses as a namespace (``google`` of ``google.cloud``) keeps the
    project's entries alone, so that one distribution pipreqs maps it to does not
    declare every module of the namespace."""
    own = import_distributions()
    namespaces = {key.split(".", 1)[0] for key in own if "." in key}
    merged = {key: tuple(names) for key, names in own.items()}
    for name, distributions in pipreqs_distributions().items():
        if name in namespaces:
            continue
        known = merged.get(name, ())
        merged[name] = known + tuple(d for d in distributions if d not in known)
    return merged


@cache
def _environment_provided() -> frozenset[str]:
    return frozenset(_distribution_data()["environment_provided"])


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


# METRICS.md §0.2.21: an import in the body or the handler of a try that catches import
# errors, or under ``if TYPE_CHECKING:``, is optional (the frontend's ImportFact.guard; an
# import in a function called from such a try body is ``import_try``); so is an R package
# an if condition tests for (``if (requireNamespace("x", quietly = TRUE))``, "probe")
_OPTIONAL_GUARDS = frozenset({"try", "except", "type_checking", "probe"})

# Build tools a ``setup.py`` may import: pip provides them while it runs the file.
_SETUP_PY_PROVIDED = frozenset({"setuptools", "pkg_resources", "distutils", "pip", "wheel"})
_PYTHON_MODULE_SUFFIXES = (".py", ".pyw", ".pyx", ".pxd", ".pyi")
_PYTHON_EXTENSION_SUFFIXES = (".so", ".pyd")

@dataclass
class _ImportUse:
    language: str          # python | r | julia
    key: str               # table key (longest dotted prefix) or top-level name
    written: str           # the module as written
    path: str
    line: int
    cell: int | None
    candidates: tuple[str, ...] = ()   # Python: the dotted candidates of the first use
    # The first use in every file (path → line, cell), in file order: a sub-project's
    # declared set holds for its own files only.
    sites: dict[str, tuple[int, int | None]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.sites.setdefault(self.path, (self.line, self.cell))



_C2_KINDS = ("python", "notebook", "r", "rmd", "julia")

# R: how packages are used and installed (the names as C2 reads them: no version, no path)
_R_USES = frozenset({"library", "require", "requireNamespace", "pkg::", "p_load"})
_R_GITHUB_INSTALLERS = frozenset({"install_github", "install_gitlab", "install_bitbucket", "install_git"})
_R_PACKAGE_RE = re.compile(r"^[A-Za-z][A-Za-z0-9.]*[A-Za-z0-9]$")
_JULIA_PACKAGE_RE = re.compile(r"^[A-Za-z_]\w*(?:\.jl)?$")


@dataclass
class _Source:
    """A Python, notebook, R, R Markdown or Julia file a frontend read."""

    path: str
    kind: str          # python, notebook, r, rmd, julia
    facts: FileFacts

    def cell_languages(self) -> dict[int, str]:
        """A notebook's code cells by index, with their language."""
        return {c.index: c.language for c in self.facts.cells if c.kind == "code"}


def _sources(tree: TreeIndex) -> list[_Source]:
    """The files C2 reads, in (path, kind) order; those not read (binary, too large,
    unreadable), vendored files and build files (setup scripts, Sphinx ``conf.py``:
    their imports are build requirements, METRICS.md §0.2.2) are left out."""
    found = []
    paths = sorted((path, kind) for kind in _C2_KINDS for path in tree.by_type(kind))
    for path, kind in paths:
        if tree.role(path) in ("vendored", "build"):
            continue
        facts = tree.facts(path)
        if facts is not None:
            found.append(_Source(path, kind, facts))
    return found


@dataclass
class _PackageSegment:
    """The R or Julia packages of one script, R Markdown chunk or notebook cell."""

    language: str                                       # r | julia
    cell: int | None                                    # a notebook's cell (evidence numbering)
    used: list[tuple[str, int]] = field(default_factory=list)
    installed: list[tuple[str, int]] = field(default_factory=list)
    # R packages used only where the code tested for them first (guard "probe": optional)
    probed: list[tuple[str, int]] = field(default_factory=list)


def _package_segments(source: _Source) -> list[_PackageSegment]:
    """R and Julia ``(used packages, installed packages)`` with their lines, per script,
    R Markdown chunk or notebook cell, in document order: R ``library``/``require``/
    ``requireNamespace``/``pkg::``/``p_load`` and installs, Julia ``using``/``import`` (the
    top module; relative ``.Mod`` skipped) and ``Pkg.add``."""
    facts = source.facts
    if source.kind == "python" or not (facts.imports or facts.installs):
        return []
    languages: dict[int, str] = {}
    chunk_starts: list[int] = []
    if source.kind == "notebook":
        languages = source.cell_languages()
    elif source.kind == "rmd":
        chunk_starts = sorted(c.line_offset for c in facts.cells if c.kind == "code")
    default = "julia" if source.kind == "julia" else "r"
    segments: dict[object, _PackageSegment] = {}

    def segment_of(line: int, cell: int | None) -> _PackageSegment | None:
        if source.kind == "notebook":
            language = languages.get(cell) if cell is not None else None
            if language not in ("r", "julia"):
                return None
            key: object = cell
        else:
            language = default
            key = bisect.bisect_left(chunk_starts, line) if chunk_starts else 0
        segment = segments.get(key)
        if segment is None:
            segment = segments[key] = _PackageSegment(language, cell)
        return segment

    for ref in facts.imports:
        segment = segment_of(ref.line, ref.cell)
        if segment is None:
            continue
        if segment.language == "r":
            if ref.kind in _R_USES and _R_PACKAGE_RE.match(ref.module):
                (segment.probed if ref.guard == "probe" else segment.used).append((ref.module, ref.line))
        elif ref.kind in ("using", "import") and not ref.module.startswith("."):
            segment.used.append((ref.module.split(".", 1)[0], ref.line))
    for install in facts.installs:
        segment = segment_of(install.line, install.cell)
        if segment is None:
            continue
        package = install.package
        if segment.language == "r":
            if install.call in _R_GITHUB_INSTALLERS:
                package = package.split("@", 1)[0].rstrip("/").rsplit("/", 1)[-1]
            if _R_PACKAGE_RE.match(package):
                segment.installed.append((package, install.line))
        elif _JULIA_PACKAGE_RE.match(package):
            segment.installed.append((package.removesuffix(".jl"), install.line))
    return [segments[key] for key in sorted(segments)]


def _python_imports(facts: FileFacts, python_cells: frozenset[int] | None) -> Iterator[tuple[tuple[str, ...], ImportFact]]:
    """``(dotted candidates, import)`` of the absolute Python imports of a file's facts, in
    source order (``python_cells``: a notebook's Python cells; None for a script). A
    ``from x import a, b`` gives ``x.a``, ``x.b`` and ``x``, except where the line scan of
    code that does not parse read it (``x`` only)."""
    for ref in facts.imports:
        kind = ref.kind
        if kind not in ("import", "from") or not ref.module or ref.module.startswith("."):
            continue
        if python_cells is not None and ref.cell not in python_cells:
            continue   # an ``import`` of a Julia cell
        if kind == "import" or ref.line_scan:
            yield (ref.module,), ref
        else:
            yield (*(f"{ref.module}.{name}" for name in ref.names if name != "*"), ref.module), ref


def _wildcards(key: str) -> tuple[str, ...]:
    """Distribution prefixes of a namespace key (``google.cloud`` → ``google-cloud-``)."""
    return tuple(name[:-1] for name in _mapping().get(key, ()) if name.endswith("*"))


def _table_key(candidates: Sequence[str]) -> str:
    """The longest dotted prefix of any candidate found in the mapping or the
    environment-provided list, else the top-level name (§0.1.28). Below a namespace
    whose distributions are a family (``google.cloud`` → ``google-cloud-*``), the next
    component is kept, so ``google.cloud.spanner`` and ``google.cloud.storage`` are
    different imports."""
    table, provided = _mapping(), _environment_provided()
    best = ""
    for candidate in candidates:
        parts = candidate.split(".")
        for size in range(len(parts), 0, -1):
            prefix = ".".join(parts[:size])
            if prefix in table or prefix in provided:
                if prefix.count(".") > best.count(".") or not best:
                    best = prefix
                break
    if best and _wildcards(best):
        depth = best.count(".") + 1
        for candidate in candidates:
            parts = candidate.split(".")
            if len(parts) > depth and candidate.startswith(best + "."):
                return ".".join(parts[: depth + 1])
    return best or candidates[-1].split(".")[0]



@dataclass
class _LocalModules:
    tops: set[str] = field(default_factory=set)      # importable top-level names of the repository
    dotted: set[str] = field(default_factory=set)    # dotted module paths (≥ 2 parts) present in the tree
    own: set[str] = field(default_factory=set)       # the project's own distribution names, normalised
    julia: set[str] = field(default_factory=set)     # Julia modules defined in the tree


def _local_modules(tree: TreeIndex, sources: Sequence[_Source]) -> _LocalModules:
    """Modules the repository provides itself: ``<name>.py`` anywhere, packages with an
    ``__init__.py``, dotted paths that exist as files or folders, ``src/<name>``, and the
    project's own distribution name."""
    local = _LocalModules()
    for path in tree.files:
        name = _name(path)
        lower = name.lower()
        if lower.endswith(_PYTHON_MODULE_SUFFIXES):
            stem = name[: name.rfind(".")]
        elif lower.endswith(_PYTHON_EXTENSION_SUFFIXES):
            stem = name.split(".", 1)[0]   # mod.cpython-311-x86_64-linux-gnu.so
        else:
            continue
        folders = path.split("/")[:-1]
        if stem == "__init__":
            if folders:
                local.tops.add(folders[-1])
            module = folders
        else:
            local.tops.add(stem)
            module = [*folders, stem]
        for start in range(len(module) - 1):
            local.dotted.add(".".join(module[start:]))
        for start in range(len(folders) - 1):
            local.dotted.add(".".join(folders[start:]))
        if len(folders) >= 2 and folders[0] == "src":
            local.tops.add(folders[1])
    for manifest in tree.manifests():
        own = _project_name(tree, manifest.path, manifest.kind)
        if own:
            local.own.add(normalize_name(own))
    for source in sources:
        if source.kind == "julia":
            local.julia.update(d.name for d in source.facts.definitions if d.kind == "module")
    if tree.is_file(".gitmodules"):
        # A link into a git submodule that was not checked out (bin/massql →
        # MassQueryLanguage/massql/): the project's own code, not a third-party package.
        for path in tree.dangling_links:
            name = _name(path)
            local.tops.add(name[: name.rfind(".")] if name.lower().endswith(_PYTHON_MODULE_SUFFIXES) else name)
    return local


def _project_name(tree: TreeIndex, path: str, kind: str) -> str | None:
    if kind == "pyproject":
        data = tree.toml(path) or {}
        project = data.get("project") if isinstance(data.get("project"), dict) else {}
        poetry = data.get("tool", {}).get("poetry", {}) if isinstance(data.get("tool"), dict) else {}
        name = project.get("name") or (poetry.get("name") if isinstance(poetry, dict) else None)
        return name if isinstance(name, str) else None
    if kind in ("setup.py", "setup.cfg"):
        return tree.setup_project_name(path, kind)
    return None



_NATIVE_FRONTENDS = frozenset({"c_cpp", "fortran"})


def built_python_modules(tree: TreeIndex) -> frozenset[str]:
    """The Python extension modules the deposit's own build produces from its C, C++ or
    Fortran sources (f2py/f90wrap ``-m <name>`` in a Makefile, ``pybind11_add_module``,
    meson ``extension_module``; :class:`scoring.parsers.native_build.BuiltModule`): a
    module of the project, local like its ``.py`` files (wannier90's ``wan90``). Read
    only in a tree with such sources."""
    from scoring.parsers.native_build import native_build_kind

    if not any(tree.by_frontend(frontend) for frontend in _NATIVE_FRONTENDS):
        return frozenset()
    found: set[str] = set()
    for path in tree.files:
        if native_build_kind(path) in ("cmake", "make", "meson") and tree.role(path) not in ("vendored", "test"):
            build = tree.native_build(path)
            found.update(module.name for module in build.python_modules if build is not None)
    return frozenset(found)


def _imports(tree: TreeIndex, sources: Sequence[_Source], local: _LocalModules
             ) -> tuple[dict[tuple[str, str], _ImportUse], dict[str, int], list[_ImportUse]]:
    """Third-party imports by (language, key), first use kept; tallies of what was
    excluded and why; and the optional imports of modules no plain import needs."""
    stdlib = stdlib_modules()
    provided = _environment_provided()
    built: frozenset[str] | None = None   # read when an import is not otherwise local
    third: dict[tuple[str, str], _ImportUse] = {}
    optional: dict[tuple[str, str], _ImportUse] = {}
    tally = {"stdlib": 0, "local": 0, "environment": 0}
    for source in sources:
        path = source.path
        is_setup = _name(path) == "setup.py"
        if source.kind in ("python", "notebook"):
            python_cells = None
            if source.kind == "notebook" and source.facts.cells:
                python_cells = frozenset(i for i, language in source.cell_languages().items() if language == "python")
            for candidates, ref in _python_imports(source.facts, python_cells):
                top = candidates[-1].split(".")[0]
                if top in stdlib:
                    tally["stdlib"] += 1
                    continue
                key = _table_key(candidates)
                if key in provided or top in provided or (is_setup and top in _SETUP_PY_PROVIDED):
                    tally["environment"] += 1
                elif (top in local.tops or normalize_name(top) in local.own
                      or any(_dotted_prefix_in(c, local.dotted) for c in candidates)):
                    tally["local"] += 1
                elif top in (built := built_python_modules(tree) if built is None else built):
                    tally["local"] += 1   # an extension module the deposit's build produces
                else:
                    uses = optional if ref.import_try or ref.guard in _OPTIONAL_GUARDS else third
                    existing = uses.get(("python", key))
                    if existing is not None:
                        existing.sites.setdefault(path, (ref.line, ref.cell))
                        continue  # the first use is kept: skip building this one
                    written = key if len(key) > len(candidates[-1]) else candidates[-1]
                    uses["python", key] = _ImportUse("python", key, written, path, ref.line, ref.cell,
                                                     tuple(candidates))
        for segment in _package_segments(source):
            if segment.language == "r":
                builtin, own = r_shipped_packages(), local.own
            else:
                builtin, own = julia_stdlib(), local.julia | local.own
            for uses, package, line in ([(third, *use) for use in segment.used]
                                        + [(optional, *use) for use in segment.probed]):
                if package in builtin:
                    tally["stdlib"] += 1
                elif package in own or normalize_name(package) in own:
                    tally["local"] += 1
                else:
                    existing = uses.get((segment.language, package))
                    if existing is not None:
                        existing.sites.setdefault(path, (line, segment.cell))
                    else:
                        uses[segment.language, package] = _ImportUse(segment.language, package, package, path,
                                                                     line, segment.cell)
    tally["optional"] = sum(1 for k in optional if k not in third)
    return third, tally, [use for k, use in optional.items() if k not in third]


def _dotted_prefix_in(candidate: str, dotted: set[str]) -> bool:
    parts = candidate.split(".")
    return any(".".join(parts[:size]) in dotted for size in range(len(parts), 1, -1))


def _own_r_and_julia_names(tree: TreeIndex) -> set[str]:
    names: set[str] = set()
    for location in tree.env_locations:
        description = tree.find_ci("DESCRIPTION", location)
        if description:
            package = (tree.description_fields(description) or {}).get("Package", "").split()
            if package:
                names.add(package[0])
        project = tree.find_ci("Project.toml", location)
        data = tree.toml(project) if project else None
        if isinstance(data, dict) and isinstance(data.get("name"), str):
            names.add(data["name"])
    return names


@dataclass(frozen=True)
class NotebookInstall:
    """A package install run from a notebook or R Markdown shell command (``!pip install x``,
    ``%conda install y``, a ``%%bash`` cell, a shell chunk)."""

    path: str
    line: int
    cell: int | None        # a notebook's cell; None in R Markdown
    dependencies: tuple


@dataclass(frozen=True)
class Classified:
    """Every Python, R and Julia import of a tree, classified once."""

    sources: tuple[_Source, ...]
    local: _LocalModules
    third: dict[tuple[str, str], _ImportUse]      # third-party imports by (language, key), first use kept
    tally: dict[str, int]                         # excluded imports: stdlib, local, environment, optional
    optional: tuple[_ImportUse, ...]              # optional imports of modules no plain import needs
    notebook_installs: tuple[NotebookInstall, ...]

    @property
    def installs_packages(self) -> bool:
        """Whether the code installs packages itself (notebook commands, R and Julia
        installs in scripts)."""
        return bool(self.notebook_installs) or any(
            segment.installed for source in self.sources for segment in _package_segments(source))


_CLASSIFIED: weakref.WeakKeyDictionary[TreeIndex, Classified] = weakref.WeakKeyDictionary()


def classified_imports(tree: TreeIndex) -> Classified:
    """The tree's imports classified (built once per tree, for C2 and E1)."""
    cached = _CLASSIFIED.get(tree)
    if cached is None:
        sources = _sources(tree)
        local = _local_modules(tree, sources)
        own_names = _own_r_and_julia_names(tree)
        local.own.update(normalize_name(n) for n in own_names)
        local.julia.update(own_names)
        third, tally, optional = _imports(tree, sources, local)
        cached = Classified(tuple(sources), local, third, tally, tuple(optional), tuple(_notebook_installs(tree)))
        _CLASSIFIED[tree] = cached
    return cached


def _notebook_installs(tree: TreeIndex) -> list[NotebookInstall]:
    """Notebook and R Markdown shell commands that install packages, in the index's file order."""
    found = []
    for path in tree.files:
        info = tree.info(path)
        if info is None or info.alias_of is not None or info.type not in ("notebook", "rmd"):
            continue
        facts = tree.facts(path)
        for cell in facts.cells if facts is not None else ():
            for line, command in cell.commands:
                if "install" not in command:
                    continue
                deps = parse_install_command(command, path, line)
                if deps:
                    found.append(NotebookInstall(path, line, cell.index if info.type == "notebook" else None,
                                                 tuple(deps)))
    return found


def third_party_python_imports(tree: TreeIndex) -> list[str]:
    """The modules of the tree's third-party Python imports as written (``sklearn``,
    ``matplotlib.pyplot``), sorted: the set C2 counts (standard library, local,
    environment-provided and ImportError-guarded imports excluded). The execution
    tier's E′ probe tries to import each of them in the installed environment."""
    return sorted({use.written for use in classified_imports(tree).third.values() if use.language == "python"})
