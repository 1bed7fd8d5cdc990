"""C2 import_resolvability: every third-party import is declared in a dependency manifest."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from scoring.detectors._imports import (
    Classified,
    _ImportUse,
    _mapping,
    _name,
    _package_segments,
    _wildcards,
    classified_imports,
)
from scoring.detectors._imports import (  # the execution tier's E′ probe asks C2 for them
    third_party_python_imports as third_party_python_imports,
)
from scoring.detectors._shared import setup_documents
from scoring.detectors.environment._common import (
    _dockerfiles,
    workflow_environment_files,
    workflow_folder_environments,
)
from scoring.detectors.portability._common import MAX_EVIDENCE, _Hit, _join
from scoring.manifests_index import (
    collect_manifests_in,
    is_conda_environment_name,
    manifest_at,
    packrat_locks,
    pluto_environments,
)
from scoring.model import Evidence
from scoring.parsers.manifests import (
    Dependency,
    Manifest,
    conda_r_packages,
    normalize_name,
    parse_install_command,
    parse_rscript_installs,
)
from scoring.parsers.secrets import mask_line
from scoring.parsers.shell import Command, split_commands, strip_prompt
from scoring.registry import Result, detector
from scoring.tree import TreeIndex

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
    file: str | None = None     # the one file it holds for (a Pluto notebook's embedded environment)

    def covers(self, tree: TreeIndex, path: str) -> bool:
        if self.file is not None:
            return path == self.file
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
    # the conda environments read for the whole tree (the fix's target for R packages)
    conda: list[Manifest] = field(default_factory=list)

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


# A folder holding one of these is a sub-project: its manifests hold for the files under it.
_SUBPROJECT_MARKERS = frozenset({"setup.py", "pyproject.toml", "DESCRIPTION", "Project.toml", "renv.lock"})
_DOCS_FOLDERS = ("docs", "doc")
_READTHEDOCS = (".readthedocs.yaml", ".readthedocs.yml", "readthedocs.yaml", "readthedocs.yml")


# The ecosystems whose declarations name what imports load.
_READ_ECOSYSTEMS = frozenset({"pypi", "conda", "cran", "julia"})


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _hidden_or_vendored(tree: TreeIndex, path: str) -> bool:
    return tree.role(path) == "vendored" or any(part.startswith(".") for part in path.split("/")[:-1])


def _renv_packages(tree: TreeIndex, path: str) -> list[str]:
    data = tree.json(path)
    packages = data.get("Packages") if isinstance(data, dict) else None
    return [str(name).lower() for name in packages] if isinstance(packages, dict) else []


_CONDA_PROGRAMS = frozenset({"conda", "mamba", "micromamba"})
_PIP_PROGRAMS = frozenset({"pip", "pip3"})


def _created_from(command: Command) -> list[str]:
    """The files a one-command environment creation reads: ``conda|mamba|micromamba env
    create|update -f <file>``, ``conda create --file <file>``, ``pip install -r <file>``
    (also ``python -m pip``, ``uv pip``)."""
    words = list(command.words)
    program = command.program
    if program.startswith("python") and words[1:3] == ["-m", "pip"]:
        program, words = "pip", words[2:]
    elif program == "uv" and words[1:2] == ["pip"]:
        program, words = "pip", words[1:]
    if program in _CONDA_PROGRAMS:
        if words[1:3] in (["env", "create"], ["env", "update"]):
            flags = ("-f", "--file")
        elif words[1:2] == ["create"]:
            flags = ("--file",) if program == "conda" else ("-f", "--file")
        else:
            return []
    elif program in _PIP_PROGRAMS and "install" in words[1:]:
        flags = ("-r", "--requirement")
    else:
        return []
    found = []
    for index, word in enumerate(words):
        if word in flags and index + 1 < len(words):
            found.append(words[index + 1])
        elif word.startswith(tuple(f"{flag}=" for flag in flags if flag.startswith("--"))):
            found.append(word.split("=", 1)[1])
    return found


def _tree_path(reference: str) -> str:
    reference = reference.strip("'\"")
    return posixpath.normpath(reference).lstrip("/") if reference else ""


def _documented_environment_files(tree: TreeIndex) -> set[str]:
    """The files a documented one-command environment creation names (§0.2.20 "every
    declared set counts"): a README/CONTRIBUTING/install page command, or a Dockerfile
    that copies the file into the image and creates the environment from its copy."""
    found: set[str] = set()
    for path in setup_documents(tree):
        document = tree.document(path)
        for _, code, _ in document.command_lines() if document is not None else ():
            text, is_repl = strip_prompt(code)
            for command in () if is_repl else split_commands(text):
                found.update(_tree_path(reference) for reference in _created_from(command))
    for path in _dockerfiles(tree.files):
        dockerfile = tree.dockerfile(path)
        if dockerfile is None:
            continue
        copies: list[tuple[str, str]] = []   # (destination in the image, source in the context)
        for instruction in dockerfile.instructions:
            if instruction.keyword in ("COPY", "ADD"):
                words = [w for w in instruction.args.split() if not w.startswith("--")]
                if len(words) >= 2 and not words[0].startswith("["):
                    copies.extend((posixpath.normpath(words[-1]), source) for source in words[:-1])
            elif instruction.keyword == "RUN":
                for command in split_commands(instruction.args):
                    for reference in _created_from(command):
                        found.update(_copied_source(reference, copies, _folder(path)))
    return {path for path in found if path and tree.is_file(path)}


def _copied_source(reference: str, copies: list[tuple[str, str]], context: str) -> list[str]:
    """The build-context file a path in the image was copied from (``COPY a/env.yml
    /env.yml``, ``COPY a/ /opt/a/``)."""
    target = posixpath.normpath(reference)
    found = []
    for destination, source in copies:
        source = posixpath.normpath(posixpath.join(context, source))
        if target == destination:
            found.append(source)
        elif target.startswith(destination.rstrip("/") + "/"):
            found.append(posixpath.normpath(posixpath.join(source, target[len(destination.rstrip("/")) + 1:])))
    return [_tree_path(f) for f in found]


def _scoped_manifests(tree: TreeIndex, seen: set[str]) -> list[tuple[Manifest, _Scope | None]]:
    """Manifests beyond the environment locations (METRICS.md §0.2.20, §0.3), each with the
    files it holds for (None: the whole tree): the conda environments workflow steps run
    in; the manifests of sub-project folders (a folder with its own ``setup.py``,
    ``pyproject.toml``, ``DESCRIPTION``, ``Project.toml``, ``renv.lock`` or ``.Rproj``:
    Julia's ``docs/`` and ``test/`` Projects); conda environment files elsewhere (their
    folder); documentation requirements (``docs/requirements*.txt``, the files a
    ``.readthedocs.yaml`` names: docs files). A manifest a documented one-command
    environment creation names (``conda env create -f install/environment.yml`` in the
    README, a Dockerfile creating the environment from its copy) holds for the whole
    tree, wherever it is, unless it is the documentation's."""
    found: list[tuple[Manifest, _Scope | None]] = []
    documented = {path for path in _documented_environment_files(tree)
                  if _folder(path).split("/", 1)[0] not in _DOCS_FOLDERS and not _hidden_or_vendored(tree, path)}

    def scope_of(path: str) -> _Scope | None:
        return None if path in documented else _Scope(_folder(path), False)

    def add(manifest: Manifest | None, scope: _Scope | None) -> None:
        if manifest is not None and manifest.path not in seen:
            seen.add(manifest.path)
            found.append((manifest, scope))

    for path in workflow_environment_files(tree):
        add(tree.conda_environment(path), None)
    for path in workflow_folder_environments(tree):
        add(tree.conda_environment(path), None)
    env = set(tree.env_locations)
    folders = sorted({
        _folder(path) for path in tree.files
        if "/" in path and _folder(path) not in env and not _hidden_or_vendored(tree, path)
        and (_name(path) in _SUBPROJECT_MARKERS or _name(path).lower().endswith(".rproj"))
    })
    for manifest in collect_manifests_in(tree, folders):
        add(manifest, scope_of(manifest.path))
    for path in tree.files:
        if "/" in path and is_conda_environment_name(_name(path)) and not _hidden_or_vendored(tree, path):
            add(tree.conda_environment(path), scope_of(path))
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
    for path in sorted(documented):
        add(manifest_at(tree, path), None)
    return found


def _declared(tree: TreeIndex, classified: Classified) -> _Declared:
    declared = _Declared()
    manifests: list[tuple[Manifest, _Scope | None]] = [(m, None) for m in tree.manifests()]
    manifests += _scoped_manifests(tree, {m.path for m, _ in manifests})
    manifests += [(m, None) for m in packrat_locks(tree)]
    manifests += [(m, _Scope(None, False, file=m.path)) for m in pluto_environments(tree)]
    for manifest, scope in manifests:
        # conan, vcpkg, spack and fpm entries are native libraries: no import names them
        entries = [d for d in (*manifest.dependencies, *manifest.build_requires, *manifest.optional)
                   if d.ecosystem in _READ_ECOSYSTEMS]
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
        elif manifest.kind == "conda":
            declared.conda.append(manifest)
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
    for install in classified.notebook_installs:
        for dep in install.dependencies:
            declared.add_python(dep.normalized, dep.ecosystem, dep.name)
        declared.inline.append(_Hit(
            install.path, install.line, "import_resolvability.inline_install",
            f"inline install of {_join([d.name for d in install.dependencies])}",
            mask_line(tree.snippet(install.path, install.line, install.cell) or ""), install.cell,
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
            # pip/conda installs, and R's given to Rscript -e (§0.3: post-deploy installs)
            deps = parse_install_command(command, path, line) + parse_rscript_installs(command, path, line)
            for dep in deps:
                declared.add(dep)
            if deps and first_line is None:
                first_line = line
            deps_here.extend(deps)
        if deps_here and first_line is not None:
            declared.inline.append(_Hit(
                path, first_line, "import_resolvability.inline_install",
                f"inline install of {_join(sorted({d.name for d in deps_here}))}",
                mask_line(tree.snippet(path, first_line) or ""), None,
            ))
    for source in classified.sources:
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
    if use.language in _WORKFLOW_LANGUAGES:
        return False   # an include that does not resolve: no manifest provides the file
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
    reported where the deposit's own code uses it: a source file before a test or
    documentation file, a module of the project's package (a folder with ``__init__.py``)
    before a loose script, else the first such use in path order."""
    by_path: dict[str, _Names] = {}
    rank: dict[str, tuple[bool, bool]] = {}

    def site_rank(item: tuple[int, tuple[str, tuple[int, int | None]]]) -> tuple[bool, bool, int]:
        index, (path, _) = item
        if path not in rank:
            folder = _folder(path)
            rank[path] = (tree.role(path) != "source", not (folder and tree.is_file(f"{folder}/__init__.py")))
        return (*rank[path], index)

    found = []
    for use in uses:
        ordered = [site for _, site in sorted(enumerate(use.sites.items()), key=site_rank)]
        for path, (line, cell) in ordered:
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
# 2.6.0: Nextflow and Snakemake includes resolve by path (§0.3); pixi.toml, the
# requirements file a setup script opens, packrat.lock and a Pluto notebook's embedded
# Project declare (§0.2.20, §0.3); the fix names the rule's conda environment or the one
# holding the project's R packages
_GUARDED = "guarded against ImportError"
_OPTIONAL_HOW = {"r": "used only where the code tested for it with requireNamespace()/require()"}


@detector("import_resolvability", version="2.10.0")
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
        submodule that was not checked out; in a tree with C, C++ or Fortran sources,
        the Python extension modules its own build produces: f2py/f90wrap ``-m <name>``
        in a Makefile, variables expanded, ``pybind11_add_module``,
        ``nanobind_add_module``, ``Python_add_library`` in CMake, meson
        ``extension_module``, 2.7.0: wannier90's ``wan90``).
        Imports anywhere inside the body of a ``try`` that handles ImportError, in the
        handler of such a ``try`` (the fallback import) and under ``if TYPE_CHECKING:``
        are optional and not counted (METRICS.md §0.2.21); so is an R package an ``if``
        condition tests for (``if (requireNamespace("x", quietly = TRUE))``, ``if
        (require(x))``: R's form of the find_spec test, Writing R Extensions' idiom for
        Suggests), with its uses in that ``if``'s then-branch (2.9.0; a negated test,
        ``if (!require(x)) stop(…)``, goes on to need the package and is counted).
        The declared set is every parsed manifest and every set it declares (METRICS.md
        §0.2.20: dependencies, build requirements, pyproject extras and
        ``[dependency-groups]``, Poetry's groups and dev-dependencies, setup.py/cfg
        ``extras_require``, DESCRIPTION Suggests and Enhances, Project.toml ``[extras]``
        and ``[weakdeps]``; requirements files, the requirements file a setup.py opens
        for ``install_requires`` or pyproject's ``[tool.setuptools.dynamic]`` names,
        Pipfile ``[packages]`` and ``[dev-packages]``, pixi.toml ``[dependencies]``,
        ``[pypi-dependencies]`` and ``[feature.*]`` tables, conda, renv.lock and
        packrat.lock, in packrat/ too) plus inline installs (notebook ``%pip``/``!pip``/
        ``%conda install``, R ``install.packages``/``BiocManager::install``/
        ``install_github``/``pacman::p_load``, Julia ``Pkg.add``, a Binder ``postBuild``
        and Snakemake ``*.post-deploy.sh`` scripts: their pip and conda installs, and
        the R packages an ``Rscript -e``/``R -e`` there installs, ``install.packages``,
        ``BiocManager::install``, ``devtools|remotes::install_github('owner/pkg@ref')``
        naming ``pkg``, 2.7.0). Beyond the environment locations
        (§0.2.20, §0.3): the conda environment files workflow steps run in (Nextflow
        ``conda "bin/env.yml"``, Snakemake ``conda: "envs/x.yaml"``) and those that sit
        in the folder of a Snakefile, ``*.smk`` or ``*.nf`` file or in its ``envs/``
        whether or not a rule names them (a YAML file with a ``dependencies:`` list beside
        ``channels:`` or ``name:``, such as ``KmerCount/pipeline_env.yaml`` beside
        ``KmerCount/pipeline.smk``, 2.8.0) count for the whole tree; the manifests of a sub-project folder (one with its own ``setup.py``,
        ``pyproject.toml``, ``DESCRIPTION``, ``Project.toml``, ``renv.lock`` or
        ``.Rproj``, such as Julia's ``docs/`` and ``test/`` Projects) and any other conda
        environment file (``environment*.yml``, ``*conda*.yml``) count for the files under
        their folder, unless a documented one-command environment creation names the file:
        a README, CONTRIBUTING or install-page command ``conda|mamba|micromamba env create
        -f <file>``, ``conda create --file <file>``, ``pip install -r <file>``, or a
        Dockerfile that COPYs it and runs such a command on the copy, makes it the
        environment of the whole tree (2.10.0: ``install/environment.yml`` of a Snakemake
        workflow declares snakemake for its ``profiles/`` scripts; a manifest under
        ``docs/`` stays the documentation's); ``docs/requirements*.txt`` and the files ``.readthedocs.yaml`` names
        count for documentation files; the environment a Pluto notebook embeds
        (PLUTO_PROJECT_TOML_CONTENTS, §0.3 Julia) counts for that notebook. The native
        package managers' manifests (conan, vcpkg, spack, fpm) name no import and are not
        read. An import is declared when every file that uses it
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
        ``dateutil``). Workflows (§0.3 C2 × Nextflow/Snakemake): a Nextflow ``include
        { X } from './modules/x'`` (the file, the file with ``.nf``, or the folder's
        ``main.nf``; ``${projectDir}`` is the root) and a Snakemake ``include:`` resolve by
        path from the including file's folder: a resolved include is a local module, one
        that names no file of the tree is unresolvable and counts like an undeclared
        import; plugins (``plugin/nf-schema``) and computed or remote paths are skipped.
        Value = 100·declared / third-party (unresolvable includes among them); no
        third-party import → 100; third-party imports but nothing declared → 0; no
        Python, R, Julia, Nextflow or Snakemake source → 100, not applicable.
    Why it matters:
        An import that no manifest declares is the first error a reproducer meets, and
        guessing the right distribution (``sklearn`` is ``scikit-learn``) costs time.
    Evidence:
        Each undeclared import with its first path, line (and cell), each unresolvable
        workflow include at its line; the manifests (the
        lines from their first declared set to their last entry: runtime list, extras,
        Suggests:, groups) and inline installs that were read; up to three optional
        imports (guarded against ImportError), not counted. Counts: third-party, declared and undeclared
        imports, manifests, inline installs, and imports excluded as stdlib, local,
        environment-provided or optional; in a workflow, resolved and unresolved
        includes.
    How to fix:
        Add the missing distributions (named in the fix) where the deposit declares its
        packages: the conda environment file of the Snakemake rule whose ``script:`` or
        ``notebook:`` is the file; Python, by the role of the importing file (2.7.0): a
        test file's into the test extra or group or a test or dev requirements file
        (else ``[project.optional-dependencies] tests`` of pyproject.toml, or
        requirements-dev.txt), a documentation file's into the docs extra, group or
        requirements file (else a ``docs`` extra, or docs/requirements.txt), any other
        file's into the package's own manifest (pyproject.toml, setup.py, setup.cfg),
        else the first runtime manifest (requirements.txt when none), never a manifest
        derived from another (min-requirements.txt, a lock or constraints file); R: DESCRIPTION, else as ``r-<pkg>`` (``bioconductor-<pkg>``) in the
        conda environment that already lists the most R packages (not an export when
        another does), else renv.lock; Julia: ``Project.toml``, or the ``Project.toml`` of
        the folder, ``docs/`` or ``test/``. An unresolvable include: add the file or
        correct its path.
    Known false positives:
        Packages installed only by a Dockerfile ``RUN pip install`` or a setup shell
        script count as undeclared; so do imports of modules generated at build time
        by other means than those above,
        distributions whose import name is neither in the table nor equal to the
        distribution name, packages a workflow engine provides itself (``yaml`` in a
        Snakefile's helpers) and members of conda meta-packages other than
        ``r-tidyverse``. A local folder named like a third-party package (with
        ``__init__.py``) hides that package's imports; a sub-project's set holds for its
        whole folder on top of the root's, so a docs file may lean on the root's
        declarations rather than its nearest Project's.
    """
    classified = classified_imports(tree)
    includes = _workflow_includes(tree)
    if not classified.sources and not includes.files:
        return Result(100, applicable=False, reason="no Python, R, Julia, Nextflow or Snakemake source files",
                      counts={"third_party": 0, "declared": 0, "undeclared": 0})
    third = dict(classified.third)
    third.update(((use.language, use.key), use) for use in includes.missing)
    tally, optional_uses = dict(classified.tally), classified.optional
    tally["local"] += includes.resolved
    declared = _declared(tree, classified)
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
    if includes.files:
        counts.update(resolved_includes=includes.resolved, unresolved_includes=len(includes.missing))
    # imports guarded against their absence: named, not counted (up to three, after the rest)
    optional = [Evidence(u.path, f"optional import {u.written!r} ({_OPTIONAL_HOW.get(u.language, _GUARDED)}): "
                         "not counted",
                         rule="import_resolvability.optional", line_start=u.line,
                         snippet=mask_line(tree.snippet(u.path, u.line, u.cell) or ""), cell=u.cell)
                for u in sorted(optional_uses, key=lambda u: (u.path, u.cell or 0, u.line))[:3]]
    if not third:
        shown = sources[:MAX_EVIDENCE]
        reason = "no third-party imports (standard library and local modules only)"
        if not classified.sources:
            reason = f"no third-party imports; every workflow include resolves to a file ({includes.resolved})"
        return Result(100, counts=counts, evidence=shown + optional[: MAX_EVIDENCE - len(shown)], reason=reason)
    evidence = [_undeclared_evidence(tree, u) for u in undeclared[: MAX_EVIDENCE - min(5, len(sources))]]
    evidence += sources[: MAX_EVIDENCE - len(evidence)]
    evidence += optional[: MAX_EVIDENCE - len(evidence)]
    fix = _fix(tree, undeclared, declared) if undeclared else None
    packages = [u for u in third.values() if u.language not in _WORKFLOW_LANGUAGES]
    if not declared.any() and packages:
        return Result(0, counts=counts, evidence=evidence, fix=fix,
                      reason=f"{len(third)} third-party imports but no dependency manifest or inline install")
    value = 100.0 * (len(third) - len(undeclared)) / len(third)
    unresolved = sorted({u.written for u in undeclared if u.language in _WORKFLOW_LANGUAGES})
    names = sorted({u.written for u in undeclared if u.language not in _WORKFLOW_LANGUAGES})
    if not undeclared:
        reason = f"every third-party import is declared ({len(third)})"
    elif not unresolved:
        reason = f"{len(undeclared)} of {len(third)} third-party imports are not declared: {_join(names)}"
    else:
        reason = (f"{len(undeclared)} of {len(third)} third-party imports and workflow includes are not declared "
                  f"or do not resolve: {_join(names + unresolved)}")
    return Result(value, counts=counts, evidence=evidence, fix=fix, reason=reason)


def _undeclared_evidence(tree: TreeIndex, use: _ImportUse) -> Evidence:
    snippet = mask_line(tree.snippet(use.path, use.line, use.cell) or "")
    if use.language in _WORKFLOW_LANGUAGES:
        return Evidence(use.path, f"include {use.written!r} does not resolve to a file of the tree",
                        rule="import_resolvability.unresolved_include", line_start=use.line, snippet=snippet)
    return Evidence(use.path, f"import {use.written!r} is not declared in any manifest",
                    rule="import_resolvability.undeclared", line_start=use.line, snippet=snippet, cell=use.cell)


# --------------------------------------------------------------------------- workflow includes (§0.3 C2)

_WORKFLOW_LANGUAGES = frozenset({"nextflow", "snakemake"})
# What a Nextflow include path names: the file, the file with `.nf`, or a module folder's main.nf.
_NEXTFLOW_CANDIDATES = ("", ".nf", "/main.nf")
_NEXTFLOW_ROOTS = re.compile(r"\$\{?(?:projectDir|baseDir|workflow\.projectDir)\}?/?")


@dataclass
class _Includes:
    files: int = 0                      # Nextflow and Snakemake files read
    resolved: int = 0
    missing: list[_ImportUse] = field(default_factory=list)


def _workflow_includes(tree: TreeIndex) -> _Includes:
    """Nextflow ``include { X } from './modules/x'`` and Snakemake ``include: "rules/x.smk"``
    resolved by path from the including file's folder (§0.3 C2 × workflows): a Nextflow
    path names the file, the file with ``.nf`` or a folder's ``main.nf``; ``${projectDir}``
    is the root. Plugins (``plugin/nf-schema``) and computed or remote paths are not
    files. An include that names no file of the tree is unresolvable, like an import no
    manifest declares."""
    found = _Includes()
    seen: set[tuple[str, str]] = set()
    for engine in sorted(_WORKFLOW_LANGUAGES):
        for path in tree.by_frontend(engine):
            if tree.role(path) == "vendored":
                continue
            facts = tree.facts(path)
            if facts is None:
                continue
            found.files += 1
            for ref in facts.imports:
                if ref.kind != "include":
                    continue
                target = _include_target(tree, path, ref.module.strip().strip("'\""), engine)
                if target is None:
                    continue
                if target:
                    found.resolved += 1
                elif (engine, ref.module) not in seen:
                    seen.add((engine, ref.module))
                    found.missing.append(_ImportUse(engine, ref.module, ref.module, path, ref.line, None))
    return found


def _include_target(tree: TreeIndex, path: str, module: str, engine: str) -> str | None:
    """The tree file an include names, "" when it names none, None when it is no path."""
    if engine == "nextflow":
        if module.startswith("plugin/"):
            return None
        relative = _NEXTFLOW_ROOTS.match(module)
        base, module = ("", module[relative.end():]) if relative else (_folder(path), module)
        candidates = _NEXTFLOW_CANDIDATES
    else:
        base, candidates = _folder(path), ("",)
    if not module or any(c in module for c in "${}()") or "://" in module:
        return None
    if module.startswith("/"):
        return ""   # a path of the author's machine
    joined = posixpath.normpath(posixpath.join(base, module))
    if joined == ".." or joined.startswith("../"):
        return ""
    return next((joined + suffix for suffix in candidates if tree.is_file(joined + suffix)), "")


# --------------------------------------------------------------------------- the fix


def _fix(tree: TreeIndex, undeclared: Sequence[_ImportUse], declared: _Declared) -> str:
    """Where each missing declaration goes, in the deposit's own terms: the conda
    environment of the Snakemake rule that runs the file; R packages in DESCRIPTION, or
    (as ``r-<pkg>``) in the conda environment that declares the project's other R
    packages, or renv.lock; Julia ``Project.toml``; Python the first Python manifest
    (requirements.txt when none); unresolvable workflow includes their files."""
    steps = _step_environments(tree)
    r_target = _r_target(tree, declared)
    python_targets = _PythonTargets(tree)
    targets: dict[str, list[str]] = {}
    includes: list[str] = []
    for use in undeclared:
        if use.language in _WORKFLOW_LANGUAGES:
            includes.append(use.written)
            continue
        step = steps.get(use.path)
        if use.language == "python":
            target, name = step or python_targets.target(use.path), _suggested_distribution(use)
        elif use.language == "r":
            target = step or r_target[0]
            name = f"r-{use.key.lower()}" if step or r_target[1] else use.key
        else:
            target, name = "Project.toml", use.key
        names = targets.setdefault(target, [])
        if name not in names:
            names.append(name)
    parts = []
    for target, names in targets.items():
        names = sorted(names)
        bioconductor = (" (bioconductor-<name> for a Bioconductor package)"
                        if any(n.startswith("r-") for n in names) else "")
        parts.append(f"Declare {_join(names)} in {target}{bioconductor}")
    if includes:
        parts.append(f"add the files the includes {_join(sorted(set(includes)))} name to the deposit, or "
                     "correct their paths")
    sentence = "; ".join(part[0].lower() + part[1:] for part in parts) + "."
    return sentence[0].upper() + sentence[1:]


# manifests derived from another (the oldest versions a CI job tests, a lock or constraints
# file): their entries are written by a tool, never by hand
_DERIVED_MANIFEST_RE = re.compile(r"(?:^|[-_.])(?:min|minimum|minimal|oldest|lock|locked|pinned|frozen|constraints?)"
                                  r"(?:[-_.]|$)", re.IGNORECASE)
_TEST_SET_RE = re.compile(r"(?:^|[-_.])(?:tests?|testing)(?:[-_.]|$)", re.IGNORECASE)
_DEV_SET_RE = re.compile(r"(?:^|[-_.])dev(?:el(?:op(?:ment)?)?)?(?:[-_.]|$)", re.IGNORECASE)
_DOCS_SET_RE = re.compile(r"(?:^|[-_.])(?:docs?|documentation|sphinx)(?:[-_.]|$)", re.IGNORECASE)
_PACKAGE_MANIFESTS = ("pyproject", "setup.py", "setup.cfg")
# pyproject.toml's named sets, by the source their entries carry
_PYPROJECT_SETS = (("project.optional-dependencies.", "[project.optional-dependencies]"),
                   ("dependency-groups.", "[dependency-groups]"))


class _PythonTargets:
    """Where a Python import's missing declaration goes, by the role of the file that
    imports it (the deposit's own terms): a test file's into the test extra or group
    (``[project.optional-dependencies] tests``, ``[dependency-groups] test``) or a test
    or dev requirements file; a documentation file's into the docs extra, group or
    requirements file; any other file's into the runtime declaration, the package's
    own manifest (pyproject.toml, setup.py, setup.cfg) before the others. A manifest
    derived from another (min-requirements.txt, a lock or constraints file) is never
    named. When the deposit has no such set, the fix names the one to add."""

    def __init__(self, tree: TreeIndex) -> None:
        self.tree = tree
        manifests = [m for m in tree.manifests() if not _DERIVED_MANIFEST_RE.search(_stem(m.path))]
        python = [m for m in manifests if any(d.ecosystem in ("pypi", "conda") for d in m.dependencies)]
        runtime = [m for m in python if m.runtime]
        package = [m for m in runtime if m.kind in _PACKAGE_MANIFESTS]
        chosen = package or runtime or python
        self.runtime = chosen[0].path if chosen else "requirements.txt"
        self.pyproject = next((m.path for m in manifests if m.kind == "pyproject"
                               and isinstance((tree.toml(m.path) or {}).get("project"), dict)), None)
        self.sets: list[tuple[str, str]] = []       # (set name, target text)
        self.files: list[str] = []                 # requirements files of their own
        for manifest in manifests:
            for dep in manifest.optional:
                for prefix, table in _PYPROJECT_SETS:
                    if dep.source.startswith(prefix) and manifest.kind == "pyproject":
                        name = dep.source[len(prefix):]
                        text = f"{manifest.path} ({table} {name})"
                        if (name, text) not in self.sets:
                            self.sets.append((name, text))
            if manifest.kind == "requirements":
                self.files.append(manifest.path)
        self.docs_files = [p for folder in ("docs", "doc") for p in tree.files_in(folder)
                           if "requirements" in _name(p).lower() and _name(p).lower().endswith((".txt", ".in"))]

    def _named(self, pattern: re.Pattern[str]) -> str | None:
        return next((text for name, text in self.sets if pattern.search(name)), None) or next(
            (path for path in self.files if pattern.search(_stem(path))), None)

    def target(self, path: str) -> str:
        role = self.tree.role(path)
        if role == "test":
            found = self._named(_TEST_SET_RE) or self._named(_DEV_SET_RE)
            if found:
                return found
            return (f"{self.pyproject} ([project.optional-dependencies] tests)" if self.pyproject
                    else "requirements-dev.txt")
        if role == "docs":
            found = self._named(_DOCS_SET_RE) or (self.docs_files[0] if self.docs_files else None)
            if found:
                return found
            top = path.split("/", 1)[0]
            return (f"{self.pyproject} ([project.optional-dependencies] docs)" if self.pyproject
                    else f"{top if top in ('docs', 'doc') else 'docs'}/requirements.txt")
        return self.runtime


def _stem(path: str) -> str:
    name = _name(path)
    return name[: name.rfind(".")] if "." in name[1:] else name


def _r_target(tree: TreeIndex, declared: _Declared) -> tuple[str, bool]:
    """Where the project declares its R packages, and whether that is a conda environment
    (whose entries are ``r-<pkg>``): DESCRIPTION, else the conda environment
    that already lists the most R packages (``r-``/``bioconductor-`` names; an export only
    when no other does), else renv.lock (after ``renv::snapshot()``), else a new
    DESCRIPTION."""
    manifests = tree.manifests()
    description = next((m.path for m in manifests if m.kind == "description"), None)
    if description:
        return description, False
    # the environment that holds most of the project's R packages (an export records what
    # one machine had installed: the environment it was made from is the one to edit)
    counted = [(manifest, sum(1 for d in manifest.dependencies if conda_r_packages(d.name)))
               for manifest in declared.conda]
    ranked = sorted((manifest.conda_export, -count, manifest.path) for manifest, count in counted if count)
    if ranked:
        return ranked[0][2], True
    lock = next((tree.find_ci("renv.lock", location) for location in tree.env_locations
                 if tree.find_ci("renv.lock", location)), None)
    return (f"{lock} (`renv::snapshot()`)" if lock else "DESCRIPTION"), False


def _step_environments(tree: TreeIndex) -> dict[str, str]:
    """The conda environment file of each Snakemake rule's ``script:`` or ``notebook:``
    file (both paths resolved from the rule's file, as Snakemake does)."""
    found: dict[str, str] = {}
    for path in tree.by_frontend("snakemake"):
        facts = tree.facts(path)
        rules: dict[str, dict[str, str]] = {}
        for directive in facts.directives if facts is not None else ():
            if directive.scope and directive.kind in ("script", "notebook", "conda"):
                rules.setdefault(directive.scope, {}).setdefault(directive.kind, directive.value)
        for rule in rules.values():
            script = rule.get("script") or rule.get("notebook")
            environment = rule.get("conda")
            if not script or not environment:
                continue
            script_path = posixpath.normpath(posixpath.join(_folder(path), script.strip("'\"")))
            env_path = posixpath.normpath(posixpath.join(_folder(path), environment.strip("'\"")))
            if tree.is_file(script_path) and tree.is_file(env_path):
                found.setdefault(script_path, env_path)
    return found
