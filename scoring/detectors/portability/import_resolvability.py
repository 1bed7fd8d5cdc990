"""C2 import_resolvability: every third-party import is declared in a dependency manifest."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cache

from scoring.detectors.environment._common import workflow_environment_files
from scoring.detectors.portability._common import MAX_EVIDENCE, _Hit, _join
from scoring.facts import FileFacts, ImportFact
from scoring.manifests_index import collect_manifests_in, is_conda_environment_name, manifest_at
from scoring.model import Evidence
from scoring.parsers.manifests import (
    Dependency,
    Manifest,
    conda_r_packages,
    normalize_name,
    parse_install_command,
)
from scoring.parsers.secrets import mask_line
from scoring.reference_data import julia_stdlib, r_shipped_packages, table_json, table_text
from scoring.registry import Result, detector
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


# METRICS.md §0.2.22: a declared distribution also declares the import named like it
# without a common affix (``python-dateutil`` → ``dateutil``, ``py-spy`` → ``spy``)
_DISTRIBUTION_PREFIXES = ("py-", "python-")
_DISTRIBUTION_SUFFIXES = ("-py", "-python", "-format", "-migrations", "-cli")


def _without_affixes(declared: Iterable[str]) -> set[str]:
    """The normalised declared names with one common affix removed."""
    found = set()
    for name in declared:
        for prefix in _DISTRIBUTION_PREFIXES:
            if name.startswith(prefix) and len(name) > len(prefix):
                found.add(name[len(prefix):])
        for suffix in _DISTRIBUTION_SUFFIXES:
            if name.endswith(suffix) and len(name) > len(suffix):
                found.add(name[: -len(suffix)])
    return found


@cache
def _environment_provided() -> frozenset[str]:
    return frozenset(_distribution_data()["environment_provided"])


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


# METRICS.md §0.2.21: an import in the body or the handler of a try that catches import
# errors, or under ``if TYPE_CHECKING:``, is optional (the frontend's ImportFact.guard; an
# import in a function called from such a try body is ``import_try``)
_OPTIONAL_GUARDS = frozenset({"try", "except", "type_checking"})

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


@dataclass
class _Names:
    """Declared dependency names per ecosystem."""

    python: set[str] = field(default_factory=set)   # PEP 503-normalised
    r: set[str] = field(default_factory=set)        # lower-case
    julia: set[str] = field(default_factory=set)    # lower-case

    def any(self) -> bool:
        return bool(self.python or self.r or self.julia)

    def add(self, dep: Dependency) -> None:
        if dep.ecosystem in ("pypi", "conda"):
            self.add_python(dep.normalized, dep.ecosystem, dep.name)
        elif dep.ecosystem == "cran":
            self.r.add(dep.name.lower())
        elif dep.ecosystem == "julia":
            self.julia.add(dep.name.lower())

    def add_python(self, normalized: str, ecosystem: str, name: str = "") -> None:
        self.python.add(normalized)
        if ecosystem == "conda":
            # conda's R packages: r-ggplot2 → ggplot2, r-data.table → data.table,
            # bioconductor-deseq2 → DESeq2, r-tidyverse → its members (§0.3 workflows)
            self.r.update(conda_r_packages(name or normalized))


@dataclass
class _Scope:
    """A declared set that holds for some files only: a sub-project folder's manifests
    (``folder``) or the documentation requirements (``docs``: files of the docs role)."""

    folder: str | None
    docs: bool
    names: _Names = field(default_factory=_Names)

    def covers(self, tree: TreeIndex, path: str) -> bool:
        if self.docs:
            return tree.role(path) == "docs"
        return self.folder is not None and path.startswith(self.folder + "/")


@dataclass
class _Declared(_Names):
    """Declared dependency names per ecosystem (the whole tree's), the sets of sub-project
    folders and documentation, and where each source came from."""

    scopes: list[_Scope] = field(default_factory=list)
    manifests: list[str] = field(default_factory=list)
    inline: list[_Hit] = field(default_factory=list)
    # the lines of a manifest that declare its sets, from the first to the last (the
    # runtime list, extras, Suggests:, dependency groups, build requirements)
    spans: dict[str, tuple[int, int]] = field(default_factory=dict)

    def any(self) -> bool:
        return super().any() or any(scope.names.any() for scope in self.scopes)

    def for_path(self, tree: TreeIndex, path: str) -> _Names:
        """The names declared for ``path``: the tree's plus those of every scope covering it."""
        scopes = [scope.names for scope in self.scopes if scope.covers(tree, path)]
        if not scopes:
            return self
        names = _Names(set(self.python), set(self.r), set(self.julia))
        for scoped in scopes:
            names.python |= scoped.python
            names.r |= scoped.r
            names.julia |= scoped.julia
        return names


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
                segment.used.append((ref.module, ref.line))
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


# A folder holding one of these is a sub-project: its manifests hold for the files under it.
_SUBPROJECT_MARKERS = frozenset({"setup.py", "pyproject.toml", "DESCRIPTION", "Project.toml", "renv.lock"})
_DOCS_FOLDERS = ("docs", "doc")
_READTHEDOCS = (".readthedocs.yaml", ".readthedocs.yml", "readthedocs.yaml", "readthedocs.yml")


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _hidden_or_vendored(tree: TreeIndex, path: str) -> bool:
    return tree.role(path) == "vendored" or any(part.startswith(".") for part in path.split("/")[:-1])


def _renv_packages(tree: TreeIndex, path: str) -> list[str]:
    data = tree.json(path)
    packages = data.get("Packages") if isinstance(data, dict) else None
    return [str(name).lower() for name in packages] if isinstance(packages, dict) else []


def _scoped_manifests(tree: TreeIndex, seen: set[str]) -> list[tuple[Manifest, _Scope | None]]:
    """Manifests beyond the environment locations (METRICS.md §0.2.20, §0.3), each with the
    files it holds for (None: the whole tree): the conda environments workflow steps run
    in; the manifests of sub-project folders (a folder with its own ``setup.py``,
    ``pyproject.toml``, ``DESCRIPTION``, ``Project.toml``, ``renv.lock`` or ``.Rproj``:
    Julia's ``docs/`` and ``test/`` Projects); conda environment files elsewhere (their
    folder); documentation requirements (``docs/requirements*.txt``, the files a
    ``.readthedocs.yaml`` names: docs files)."""
    found: list[tuple[Manifest, _Scope | None]] = []

    def add(manifest: Manifest | None, scope: _Scope | None) -> None:
        if manifest is not None and manifest.path not in seen:
            seen.add(manifest.path)
            found.append((manifest, scope))

    for path in workflow_environment_files(tree):
        add(tree.conda_environment(path), None)
    env = set(tree.env_locations)
    folders = sorted({
        _folder(path) for path in tree.files
        if "/" in path and _folder(path) not in env and not _hidden_or_vendored(tree, path)
        and (_name(path) in _SUBPROJECT_MARKERS or _name(path).lower().endswith(".rproj"))
    })
    for manifest in collect_manifests_in(tree, folders):
        add(manifest, _Scope(_folder(manifest.path), False))
    for path in tree.files:
        if "/" in path and is_conda_environment_name(_name(path)) and not _hidden_or_vendored(tree, path):
            add(tree.conda_environment(path), _Scope(_folder(path), False))
    docs: list[str] = []
    for folder in _DOCS_FOLDERS:
        docs.extend(p for p in tree.files_in(folder) if "requirements" in _name(p).lower()
                    and _name(p).lower().endswith((".txt", ".in")))
    for name in _READTHEDOCS:
        data = tree.yaml(name) if tree.is_file(name) else None
        python = data.get("python") if isinstance(data, dict) else None
        for item in python.get("install", ()) if isinstance(python, dict) else ():
            target = item.get("requirements") if isinstance(item, dict) else None
            if isinstance(target, str) and tree.is_file(target.strip("/")):
                docs.append(target.strip("/"))
        conda = data.get("conda") if isinstance(data, dict) else None
        target = conda.get("environment") if isinstance(conda, dict) else None
        if isinstance(target, str) and tree.is_file(target.strip("/")):
            docs.append(target.strip("/"))
    for path in docs:
        add(manifest_at(tree, path), _Scope(None, True))
    return found


def _declared(tree: TreeIndex, sources: Sequence[_Source]) -> _Declared:
    declared = _Declared()
    manifests: list[tuple[Manifest, _Scope | None]] = [(m, None) for m in tree.manifests()]
    manifests += _scoped_manifests(tree, {m.path for m, _ in manifests})
    for manifest, scope in manifests:
        entries = [*manifest.dependencies, *manifest.build_requires, *manifest.optional]
        if not entries:
            continue
        declared.manifests.append(manifest.path)
        lines = [line for span in manifest.declared for line in span]
        lines += [d.line for d in entries if d.line and (d.file or manifest.path) == manifest.path]
        if lines:
            declared.spans[manifest.path] = (min(lines), max(lines))
        names: _Names = declared
        if scope is not None:
            declared.scopes.append(scope)
            names = scope.names
        for dep in entries:
            names.add(dep)
    for location in tree.env_locations:
        lock = tree.find_ci("renv.lock", location)
        packages = _renv_packages(tree, lock) if lock else []
        if packages:
            declared.manifests.append(lock)
            declared.r.update(packages)
    for path in tree.files:
        if _name(path) == "renv.lock" and "/" in path and _folder(path) not in tree.env_locations and not _hidden_or_vendored(tree, path):
            packages = _renv_packages(tree, path)
            if packages:
                declared.manifests.append(path)
                scope = _Scope(_folder(path), False)
                scope.names.r.update(packages)
                declared.scopes.append(scope)
    # Notebook and R Markdown shell commands (``!pip install``, ``%conda install``, a
    # ``%%bash`` cell, a shell chunk), in the index's file order.
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
                for dep in deps:
                    declared.add_python(dep.normalized, dep.ecosystem, dep.name)
                if deps:
                    cell_no = cell.index if info.type == "notebook" else None
                    declared.inline.append(_Hit(
                        path, line, "import_resolvability.inline_install",
                        f"inline install of {_join([d.name for d in deps])}",
                        mask_line(tree.snippet(path, line, cell_no) or ""), cell_no,
                    ))
    # Set-up scripts an environment builder runs: a Binder ``postBuild`` (in an
    # environment location) and Snakemake ``*.post-deploy.sh`` scripts (§0.3 workflows).
    for path in tree.files:
        name = _name(path)
        if not ((name == "postBuild" and _folder(path) in tree.env_locations) or name.endswith(".post-deploy.sh")):
            continue
        deps_here: list[Dependency] = []
        first_line = None
        for line, command in tree.command_lines(path):
            if "install" not in command:
                continue
            deps = parse_install_command(command, path, line)
            for dep in deps:
                declared.add_python(dep.normalized, dep.ecosystem, dep.name)
            if deps and first_line is None:
                first_line = line
            deps_here.extend(deps)
        if deps_here and first_line is not None:
            declared.inline.append(_Hit(
                path, first_line, "import_resolvability.inline_install",
                f"inline install of {_join(sorted({d.name for d in deps_here}))}",
                mask_line(tree.snippet(path, first_line) or ""), None,
            ))
    for source in sources:
        for segment in _package_segments(source):
            installed = segment.installed
            (declared.r if segment.language == "r" else declared.julia).update(p.lower() for p, _ in installed)
            if installed:
                names = sorted({p for p, _ in installed})
                line = installed[0][1]
                declared.inline.append(_Hit(
                    source.path, line, "import_resolvability.inline_install", f"inline install of {_join(names)}",
                    mask_line(tree.snippet(source.path, line, segment.cell) or ""), segment.cell,
                ))
    return declared


def _is_declared_python(key: str, declared: set[str]) -> bool:
    """Declared under the import's own name or a mapped distribution ("accept either
    name"); a family wildcard accepts any declared member of that family."""
    names = {normalize_name(key)}
    prefixes: list[str] = []
    if key in _mapping():
        for name in _mapping()[key]:
            if name.endswith("*"):
                prefixes.append(normalize_name(name[:-1]).rstrip("-") + "-")
            else:
                names.add(normalize_name(name))
    else:
        parent, _, child = key.rpartition(".")
        prefixes.extend(normalize_name(prefix + child) for prefix in _wildcards(parent))
    return (bool(names & declared) or any(d.startswith(p) for p in prefixes for d in declared)
            or normalize_name(key) in _without_affixes(declared))


def _is_declared(use: _ImportUse, names: _Names) -> bool:
    if use.language == "python":
        return _is_declared_python(use.key, names.python) or any(
            normalize_name(prefix) in names.python for prefix in _dotted_prefixes(use.candidates))
    if use.language == "r":
        return use.key.lower() in names.r
    return use.key.removesuffix(".jl").lower() in names.julia


def _dotted_prefixes(candidates: Sequence[str]) -> set[str]:
    """``ruamel.yaml`` of ``ruamel.yaml.YAML``: the dotted prefixes (two parts or more) a
    distribution may be named after (``ruamel.yaml``, ``zope.interface``)."""
    found = set()
    for candidate in candidates:
        parts = candidate.split(".")
        found.update(".".join(parts[:size]) for size in range(2, len(parts) + 1))
    return found


def _undeclared(tree: TreeIndex, uses: Iterable[_ImportUse], declared: _Declared) -> list[_ImportUse]:
    """The imports some file uses without a declaration that holds for it (the tree's
    declared set, or a sub-project's or the documentation's for their files); each is
    reported at its first such use."""
    by_path: dict[str, _Names] = {}
    found = []
    for use in uses:
        for path, (line, cell) in use.sites.items():
            names = by_path.get(path)
            if names is None:
                names = by_path[path] = declared.for_path(tree, path)
            if not _is_declared(use, names):
                if path != use.path:
                    use = replace(use, path=path, line=line, cell=cell, sites={})
                found.append(use)
                break
    return found


def _suggested_distribution(use: _ImportUse) -> str:
    if use.language != "python":
        return use.key
    names = [n for n in _mapping().get(use.key, ()) if not n.endswith("*")]
    if names:
        # a distribution spelt like the import but for its case (pipreqs's "Requests")
        # is suggested as the import is written
        return use.key if normalize_name(names[0]) == normalize_name(use.key) else names[0]
    parent, _, child = use.key.rpartition(".")
    family = _wildcards(parent)
    return normalize_name(family[0] + child) if family else normalize_name(use.key)


def _imports(tree: TreeIndex, sources: Sequence[_Source], local: _LocalModules
             ) -> tuple[dict[tuple[str, str], _ImportUse], dict[str, int], list[_ImportUse]]:
    """Third-party imports by (language, key), first use kept; tallies of what was
    excluded and why; and the optional imports of modules no plain import needs."""
    stdlib = stdlib_modules()
    provided = _environment_provided()
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
            for package, line in segment.used:
                if package in builtin:
                    tally["stdlib"] += 1
                elif package in own or normalize_name(package) in own:
                    tally["local"] += 1
                else:
                    existing = third.get((segment.language, package))
                    if existing is not None:
                        existing.sites.setdefault(path, (line, segment.cell))
                    else:
                        third[segment.language, package] = _ImportUse(segment.language, package, package, path,
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


# 2.1.0: read from facts (ImportFact, InstallFact, notebook cell commands): R Markdown
# chunks with eval = FALSE are not code (METRICS §0.3, as the R frontend reads them for
# every detector); R loaders as the R frontend reads them (``package =``, ``character.only
# = FALSE``; a name given to requireNamespace() is a variable); Julia imports from the
# syntax tree (continuation lines, macro-prefixed ``@lazy import X``)
# 2.3.0: declared sets beyond the environment locations (METRICS §0.2.20, §0.3): the conda
# environments workflow steps run in (Nextflow ``conda`` files, Snakemake ``conda:`` envs),
# conda environment files anywhere (for their folder), sub-project folders' manifests (Julia
# ``docs/``/``test/`` Projects, for the files under them), documentation requirements (for
# docs files), Pipfile ``[dev-packages]``, Binder ``postBuild`` and Snakemake
# ``*.post-deploy.sh`` installs; conda ``r-<pkg>``/``bioconductor-<pkg>`` names declare R
# packages (``r-data.table``, case-insensitive ``DESeq2``) and ``r-tidyverse`` its members;
# a distribution named like a dotted import declares it (``ruamel.yaml``); build and
# vendored files are out (§0.2.2); a dangling link into a git submodule is the project's code
@detector("import_resolvability", version="2.5.0")
def import_resolvability(tree: TreeIndex) -> Result:
    """Every third-party import is declared in a dependency manifest.

    What it checks:
        Imports of Python files and notebook code cells (the Python frontend's
        ImportFacts: AST, a line-by-line fallback for code that does not parse; relative
        and dynamic imports skipped), R ``library()``, ``require()``,
        ``requireNamespace()``, ``pacman::p_load()`` and ``pkg::`` uses (R scripts, R
        Markdown / Quarto chunks that are evaluated, R notebook cells), and Julia
        ``using``/``import`` (the top module). Excluded: the frozen standard-library list (CPython 3.6–3.13
        and Python 2.7 names), Jupyter- and Colab-provided modules, build tools imported
        by ``setup.py``, base and recommended R packages, Julia's standard library, and
        local modules (``<name>.py`` anywhere, folders with ``__init__.py``, dotted
        imports whose path exists in the tree such as ``models.net`` for
        ``models/net.py``, ``src/<name>``, the project's own distribution name, and in a
        tree with ``.gitmodules`` the name of a dangling symbolic link: a link into a
        submodule that was not checked out).
        Imports anywhere inside the body of a ``try`` that handles ImportError, in the
        handler of such a ``try`` (the fallback import) and under ``if TYPE_CHECKING:``
        are optional and not counted (METRICS.md §0.2.21).
        The declared set is every parsed manifest and every set it declares (METRICS.md
        §0.2.20: dependencies, build requirements, pyproject extras and
        ``[dependency-groups]``, Poetry's groups and dev-dependencies, setup.py/cfg
        ``extras_require``, DESCRIPTION Suggests and Enhances, Project.toml ``[extras]``
        and ``[weakdeps]``; requirements files, Pipfile ``[packages]`` and
        ``[dev-packages]``, conda, renv.lock) plus inline installs (notebook ``%pip``/``!pip``/
        ``%conda install``, R ``install.packages``/``BiocManager::install``/
        ``install_github``/``pacman::p_load``, Julia ``Pkg.add``, a Binder ``postBuild``
        and Snakemake ``*.post-deploy.sh`` scripts). Beyond the environment locations
        (§0.2.20, §0.3): the conda environment files workflow steps run in (Nextflow
        ``conda "bin/env.yml"``, Snakemake ``conda: "envs/x.yaml"``) count for the whole
        tree; the manifests of a sub-project folder (one with its own ``setup.py``,
        ``pyproject.toml``, ``DESCRIPTION``, ``Project.toml``, ``renv.lock`` or
        ``.Rproj``, such as Julia's ``docs/`` and ``test/`` Projects) and any other conda
        environment file (``environment*.yml``, ``*conda*.yml``) count for the files under
        their folder; ``docs/requirements*.txt`` and the files ``.readthedocs.yaml`` names
        count for documentation files. An import is declared when every file that uses it
        has it in a set that holds for that file. Conda names map to the packages they
        provide: ``r-<pkg>`` and ``bioconductor-<pkg>`` to R packages (``r-data.table`` →
        data.table, ``bioconductor-deseq2`` → DESeq2, compared case-insensitively),
        ``r-tidyverse`` to its members (the packages its DESCRIPTION imports: dplyr,
        ggplot2, readr, tidyr, purrr, tibble, stringr, forcats, lubridate, cli, rlang…).
        Build files (setup scripts that call ``setup()``, Sphinx ``conf.py``,
        ``noxfile.py``) and vendored files are not read (§0.2.2). Names are compared
        PEP 503-normalised through an import→distribution table (longest dotted
        prefix first), accepting either name: the mapping pipreqs maintains (bundled,
        pipreqs 0.5.0, Apache-2.0; ``scoring/data/pipreqs/SOURCE.md``) under the
        project's own additions (conda spellings, scientific packages, namespace
        families such as ``google.cloud``; METRICS.md §0.2.22); a distribution named like
        a dotted import (``ruamel.yaml``) declares it, and so does one named like the
        import with a common affix (``py-``, ``python-``, ``-py``, ``-python``,
        ``-format``, ``-migrations``, ``-cli``: ``python-dateutil`` declares
        ``dateutil``). Value = 100·declared / third-party; no
        third-party import → 100; third-party imports but nothing declared → 0; no
        Python, R or Julia source → 100, not applicable.
    Why it matters:
        An import that no manifest declares is the first error a reproducer meets, and
        guessing the right distribution (``sklearn`` is ``scikit-learn``) costs time.
    Evidence:
        Each undeclared import with its first path, line (and cell); the manifests (the
        lines from their first declared set to their last entry: runtime list, extras,
        Suggests:, groups) and inline installs that were read; up to three optional
        imports (guarded against ImportError), not counted. Counts: third-party, declared and undeclared
        imports, manifests, inline installs, and imports excluded as stdlib, local,
        environment-provided or optional.
    How to fix:
        Add the missing distributions (named in the fix) to ``requirements.txt``,
        ``pyproject.toml`` or ``environment.yml`` (R: ``DESCRIPTION``; Julia:
        ``Project.toml``, or the ``Project.toml`` of the folder, ``docs/`` or ``test/``;
        a workflow: the conda environment file of the step that runs the script).
    Known false positives:
        Packages installed only by a Dockerfile ``RUN pip install`` or a setup shell
        script count as undeclared; so do imports of modules generated at build time,
        distributions whose import name is neither in the table nor equal to the
        distribution name, packages a workflow engine provides itself (``yaml`` in a
        Snakefile's helpers) and members of conda meta-packages other than
        ``r-tidyverse``. A local folder named like a third-party package (with
        ``__init__.py``) hides that package's imports; a sub-project's set holds for its
        whole folder on top of the root's, so a docs file may lean on the root's
        declarations rather than its nearest Project's.
    """
    sources = _sources(tree)
    if not sources:
        return Result(100, applicable=False, reason="no Python, R or Julia source files",
                      counts={"third_party": 0, "declared": 0, "undeclared": 0})
    local = _local_modules(tree, sources)
    own_names = _own_r_and_julia_names(tree)
    local.own.update(normalize_name(n) for n in own_names)
    local.julia.update(own_names)
    third, tally, optional_uses = _imports(tree, sources, local)
    declared = _declared(tree, sources)
    sources = [Evidence(p, "dependency manifest read for the declared set", rule="import_resolvability.manifest",
                        line_start=declared.spans[p][0] if p in declared.spans else None,
                        line_end=declared.spans[p][1] if p in declared.spans else None)
               for p in declared.manifests] + [h.evidence() for h in declared.inline]
    undeclared = _undeclared(tree, third.values(), declared)
    undeclared.sort(key=lambda u: (u.path, u.cell or 0, u.line))
    counts = {
        "third_party": len(third),
        "declared": len(third) - len(undeclared),
        "undeclared": len(undeclared),
        "manifests": len(declared.manifests),
        "inline_installs": len(declared.inline),
        "stdlib_imports": tally["stdlib"],
        "local_imports": tally["local"],
        "environment_imports": tally["environment"],
        "optional_imports": tally["optional"],
    }
    # imports guarded against their absence: named, not counted (up to three, after the rest)
    optional = [Evidence(u.path, f"optional import {u.written!r} (guarded against ImportError): not counted",
                         rule="import_resolvability.optional", line_start=u.line,
                         snippet=mask_line(tree.snippet(u.path, u.line, u.cell) or ""), cell=u.cell)
                for u in sorted(optional_uses, key=lambda u: (u.path, u.cell or 0, u.line))[:3]]
    if not third:
        shown = sources[:MAX_EVIDENCE]
        return Result(100, counts=counts, evidence=shown + optional[: MAX_EVIDENCE - len(shown)],
                      reason="no third-party imports (standard library and local modules only)")
    evidence = [
        Evidence(u.path, f"import {u.written!r} is not declared in any manifest", rule="import_resolvability.undeclared",
                 line_start=u.line, snippet=mask_line(tree.snippet(u.path, u.line, u.cell) or ""), cell=u.cell)
        for u in undeclared[: MAX_EVIDENCE - min(5, len(sources))]
    ]
    evidence += sources[: MAX_EVIDENCE - len(evidence)]
    evidence += optional[: MAX_EVIDENCE - len(evidence)]
    missing = sorted({_suggested_distribution(u) for u in undeclared})
    fix = None
    if undeclared:
        target = _manifest_target(tree, undeclared)
        fix = f"Declare {_join(missing)} in {target}."
    if not declared.any():
        return Result(0, counts=counts, evidence=evidence, fix=fix,
                      reason=f"{len(third)} third-party imports but no dependency manifest or inline install")
    value = 100.0 * (len(third) - len(undeclared)) / len(third)
    reason = (f"every third-party import is declared ({len(third)})" if not undeclared else
              f"{len(undeclared)} of {len(third)} third-party imports are not declared: "
              f"{_join(sorted({u.written for u in undeclared}))}")
    return Result(value, counts=counts, evidence=evidence, fix=fix, reason=reason)


def third_party_python_imports(tree: TreeIndex) -> list[str]:
    """The modules of the tree's third-party Python imports as written (``sklearn``,
    ``matplotlib.pyplot``), sorted: the set C2 counts (standard library, local,
    environment-provided and ImportError-guarded imports excluded). The execution
    tier's E′ probe tries to import each of them in the installed environment."""
    sources = _sources(tree)
    third, _tally, _optional = _imports(tree, sources, _local_modules(tree, sources))
    return sorted({use.written for use in third.values() if use.language == "python"})


def _manifest_target(tree: TreeIndex, undeclared: Sequence[_ImportUse]) -> str:
    languages = {u.language for u in undeclared}
    targets = []
    if "python" in languages:
        python_manifests = [m.path for m in tree.manifests() if any(d.ecosystem in ("pypi", "conda") for d in m.dependencies)]
        targets.append(python_manifests[0] if python_manifests else "requirements.txt")
    if "r" in languages:
        targets.append("DESCRIPTION")
    if "julia" in languages:
        targets.append("Project.toml")
    return " / ".join(targets)
