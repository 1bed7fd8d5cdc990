"""C2 import_resolvability: every third-party import is declared in a dependency manifest."""

from __future__ import annotations

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
from scoring.detectors.environment._common import workflow_environment_files
from scoring.detectors.portability._common import MAX_EVIDENCE, _Hit, _join
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


def _declared(tree: TreeIndex, classified: Classified) -> _Declared:
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
    classified = classified_imports(tree)
    if not classified.sources:
        return Result(100, applicable=False, reason="no Python, R or Julia source files",
                      counts={"third_party": 0, "declared": 0, "undeclared": 0})
    third, tally, optional_uses = classified.third, classified.tally, classified.optional
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
