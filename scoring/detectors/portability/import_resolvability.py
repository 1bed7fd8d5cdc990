"""C2 import_resolvability: every third-party import is declared in a dependency manifest."""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache

from scoring.detectors.portability._common import (
    MAX_EVIDENCE,
    _Hit,
    _join,
    _line_at,
    _mask_line,
    _scan,
    _TreeScan,
)
from scoring.model import Evidence
from scoring.parsers.manifests import normalize_name, parse_install_command
from scoring.parsers.python import CodeUnit
from scoring.reference_data import table_json, table_text
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
    """Curated import name → distribution names (``scoring/data/import_distributions.json``)."""
    return {k: tuple(v) for k, v in _distribution_data()["mapping"].items()}


@cache
def _mapping() -> dict[str, tuple[str, ...]]:
    return import_distributions()


@cache
def _environment_provided() -> frozenset[str]:
    return frozenset(_distribution_data()["environment_provided"])


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


# Build tools a ``setup.py`` may import: pip provides them while it runs the file.
_SETUP_PY_PROVIDED = frozenset({"setuptools", "pkg_resources", "distutils", "pip", "wheel"})
_IMPORT_GUARDS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})
_PYTHON_MODULE_SUFFIXES = (".py", ".pyw", ".pyx", ".pxd", ".pyi")
_PYTHON_EXTENSION_SUFFIXES = (".so", ".pyd")

# Packages of every R installation: base and recommended (r-base ships both).
_R_BUILTIN_PACKAGES = frozenset(
    {"base", "compiler", "datasets", "graphics", "grDevices", "grid", "methods", "parallel", "splines", "stats",
     "stats4", "tcltk", "tools", "utils", "translations", "boot", "class", "cluster", "codetools", "foreign",
     "KernSmooth", "lattice", "MASS", "Matrix", "mgcv", "nlme", "nnet", "rpart", "spatial", "survival"}
)

# Julia's standard library and built-in modules (never declared in Project.toml).
_JULIA_STDLIB = frozenset(
    {"Base", "Core", "Main", "ArgTools", "Artifacts", "Base64", "CRC32c", "Dates", "DelimitedFiles",
     "Distributed", "Downloads", "FileWatching", "Future", "InteractiveUtils", "LazyArtifacts", "LibCURL",
     "LibGit2", "Libdl", "LinearAlgebra", "Logging", "Markdown", "Mmap", "NetworkOptions", "Pkg", "Printf",
     "Profile", "REPL", "Random", "SHA", "Serialization", "SharedArrays", "Sockets", "SparseArrays",
     "Statistics", "SuiteSparse", "TOML", "Tar", "Test", "UUIDs", "Unicode"}
)


@dataclass
class _ImportUse:
    language: str          # python | r | julia
    key: str               # table key (longest dotted prefix) or top-level name
    written: str           # the module as written
    path: str
    line: int
    cell: int | None
    snippet: str


@dataclass
class _Declared:
    """Declared dependency names per ecosystem, with where each source came from."""

    python: set[str] = field(default_factory=set)   # PEP 503-normalised
    r: set[str] = field(default_factory=set)        # lower-case
    julia: set[str] = field(default_factory=set)    # lower-case
    manifests: list[str] = field(default_factory=list)
    inline: list[_Hit] = field(default_factory=list)

    def any(self) -> bool:
        return bool(self.python or self.r or self.julia)

    def add_python(self, normalized: str, ecosystem: str) -> None:
        self.python.add(normalized)
        if ecosystem == "conda" and normalized.startswith("r-") and normalized != "r-base":
            self.r.add(normalized[2:])   # conda's R packages: r-ggplot2 → ggplot2


def _catches_import_errors(handler_type: ast.expr | None) -> bool:
    if handler_type is None:
        return True
    if isinstance(handler_type, ast.Name):
        return handler_type.id in _IMPORT_GUARDS
    if isinstance(handler_type, ast.Tuple):
        return any(_catches_import_errors(e) for e in handler_type.elts)
    return False


def _lines_with_import(text: str) -> list[int]:
    """Sorted line numbers holding the substring ``import`` (a superset of import lines)."""
    lines, line, position = [], 1, 0
    found = text.find("import")
    while found >= 0:
        line += text.count("\n", position, found)
        position = found
        if not lines or lines[-1] != line:
            lines.append(line)
        found = text.find("import", found + 6)
    return lines


def _python_import_statements(body: Sequence[ast.AST], text: str) -> Iterator[tuple[tuple[str, ...], int, bool]]:
    """``(dotted candidates, line, guarded)`` of absolute imports, in source order. Only
    statement bodies are walked (imports cannot sit in expressions), and only those whose
    lines contain the word ``import``; ``guarded`` marks imports inside a ``try`` that
    handles ImportError (optional dependencies)."""
    import_lines = _lines_with_import(text)
    if not import_lines:
        return
    last_import_line = import_lines[-1]

    def may_contain_import(node: ast.AST) -> bool:
        index = bisect.bisect_left(import_lines, node.lineno)
        return index < len(import_lines) and import_lines[index] <= (getattr(node, "end_lineno", None) or node.lineno)

    stack: list[tuple[ast.AST, bool]] = [(node, False) for node in reversed(body)]
    while stack:
        node, guarded = stack.pop()
        if not isinstance(node, (ast.Import, ast.ImportFrom, ast.match_case)):
            if node.lineno > last_import_line:
                break  # nodes are popped in source order: no later one can hold an import
            if not may_contain_import(node):
                continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield (alias.name,), node.lineno, guarded
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module:
                names = tuple(f"{node.module}.{a.name}" for a in node.names if a.name != "*")
                yield (*names, node.module), node.lineno, guarded
        elif isinstance(node, (ast.Try, ast.TryStar)):
            optional = guarded or any(_catches_import_errors(h.type) for h in node.handlers)
            later = [*(s for h in node.handlers for s in h.body), *node.orelse, *node.finalbody]
            stack.extend((child, guarded) for child in reversed(later))
            stack.extend((child, optional) for child in reversed(node.body))
        elif isinstance(node, (ast.ExceptHandler, ast.match_case)):
            stack.extend((child, guarded) for child in reversed(node.body))
        elif isinstance(node, ast.stmt):
            children = [c for name in ("body", "handlers", "cases", "orelse", "finalbody")
                        for c in (getattr(node, name, None) or ()) if isinstance(c, ast.AST)]
            stack.extend((child, guarded) for child in reversed(children))


_IMPORT_LINE_RE = re.compile(
    r"^[ \t]*(?:from[ \t]+(?P<from>\.*[\w.]+)[ \t]+import\b|import[ \t]+(?P<modules>[\w.]+(?:[ \t]+as[ \t]+\w+)?"
    r"(?:[ \t]*,[ \t]*[\w.]+(?:[ \t]+as[ \t]+\w+)?)*))"
)


def _python_imports(unit: CodeUnit) -> Iterator[tuple[tuple[str, ...], int, bool]]:
    if unit.tree is not None:
        if "import" in unit.words:  # the keyword of every import statement stands as a word of its own
            yield from _python_import_statements(unit.tree.body, unit.source)
        return
    # Code that does not parse (Python 2, syntax errors): import lines by regex. Not
    # CodeUnit.imports, whose fallback pattern lets ``\s*`` run across blank lines and so
    # reports the line of the blank line before the import.
    for number, line in enumerate(unit.lines, start=1):
        match = _IMPORT_LINE_RE.match(line)
        if match is None:
            continue
        if match.group("from"):
            if not match.group("from").startswith("."):
                yield (match.group("from"),), number, False
        else:
            for module in match.group("modules").split(","):
                module = module.strip().split()[0] if module.strip() else ""
                if module:
                    yield (module,), number, False


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


def _local_modules(tree: TreeIndex, scan: _TreeScan) -> _LocalModules:
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
    for scanned in scan.code:
        for segment in scanned.segments:
            if segment.language != "julia":
                continue
            tokens = segment.tokens
            for index, tok in enumerate(tokens[:-1]):
                if tok.kind == "name" and tok.text in ("module", "baremodule") and tokens[index + 1].kind == "name":
                    local.julia.add(tokens[index + 1].text)
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


def _declared(tree: TreeIndex, scan: _TreeScan) -> _Declared:
    declared = _Declared()
    for manifest in tree.manifests():
        entries = [*manifest.dependencies, *manifest.build_requires]
        if entries:
            declared.manifests.append(manifest.path)
        for dep in entries:
            if dep.ecosystem in ("pypi", "conda"):
                declared.add_python(dep.normalized, dep.ecosystem)
            elif dep.ecosystem == "cran":
                declared.r.add(dep.name.lower())
            elif dep.ecosystem == "julia":
                declared.julia.add(dep.name.lower())
    for location in tree.env_locations:
        lock = tree.find_ci("renv.lock", location)
        data = tree.json(lock) if lock else None
        packages = data.get("Packages") if isinstance(data, dict) else None
        if isinstance(packages, dict) and packages:
            declared.manifests.append(lock)
            declared.r.update(str(name).lower() for name in packages)
    for unit in tree.python_units():
        for magic in unit.magics:
            command = magic.shell_command
            if not command or "install" not in command:
                continue
            deps = parse_install_command(command, unit.path, magic.line)
            for dep in deps:
                declared.add_python(dep.normalized, dep.ecosystem)
            if deps:
                declared.inline.append(_Hit(
                    unit.path, unit.file_line(magic.line), "import_resolvability.inline_install",
                    f"inline install of {_join([d.name for d in deps])}", _mask_line(magic.text),
                    unit.cell if unit.path.lower().endswith(".ipynb") else None,
                ))
    for scanned in scan.code:
        for segment in scanned.segments:
            if segment.language == "r":
                installed = segment.packages[1]
                target = declared.r
            elif segment.language == "julia":
                installed = segment.packages[1]
                target = declared.julia
            else:
                continue
            target.update(package.lower() for package, _ in installed)
            if installed:
                names = sorted({p for p, _ in installed})
                declared.inline.append(_Hit(
                    scanned.path, installed[0][1] + segment.line_offset, "import_resolvability.inline_install",
                    f"inline install of {_join(names)}", _mask_line(_line_at(segment.lines, installed[0][1])),
                    segment.cell,
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
    return bool(names & declared) or any(d.startswith(p) for p in prefixes for d in declared)


def _suggested_distribution(use: _ImportUse) -> str:
    if use.language != "python":
        return use.key
    names = [n for n in _mapping().get(use.key, ()) if not n.endswith("*")]
    if names:
        return names[0]
    parent, _, child = use.key.rpartition(".")
    family = _wildcards(parent)
    return normalize_name(family[0] + child) if family else normalize_name(use.key)


def _imports(tree: TreeIndex, scan: _TreeScan, local: _LocalModules) -> tuple[dict[tuple[str, str], _ImportUse], dict[str, int]]:
    """Third-party imports by (language, key), first use kept; plus tallies of what was
    excluded and why."""
    stdlib = stdlib_modules()
    provided = _environment_provided()
    third: dict[tuple[str, str], _ImportUse] = {}
    optional: dict[tuple[str, str], _ImportUse] = {}
    tally = {"stdlib": 0, "local": 0, "environment": 0}
    for scanned in scan.code:
        is_setup = _name(scanned.path) == "setup.py"
        for segment in scanned.segments:
            if segment.language == "python" and segment.unit is not None:
                for candidates, line, guarded in _python_imports(segment.unit):
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
                        uses = optional if guarded else third
                        if ("python", key) in uses:
                            continue  # the first use is kept: skip building this one
                        written = key if len(key) > len(candidates[-1]) else candidates[-1]
                        uses["python", key] = _ImportUse("python", key, written, scanned.path,
                                                         line + segment.line_offset, segment.cell,
                                                         _line_at(segment.lines, line))
            elif segment.language in ("r", "julia"):
                if segment.language == "r":
                    used = segment.packages[0]
                    builtin = _R_BUILTIN_PACKAGES
                    own = local.own
                else:
                    used = segment.packages[0]
                    builtin = _JULIA_STDLIB
                    own = local.julia | local.own
                for package, line in used:
                    if package in builtin:
                        tally["stdlib"] += 1
                    elif package in own or normalize_name(package) in own:
                        tally["local"] += 1
                    else:
                        use = _ImportUse(segment.language, package, package, scanned.path, line + segment.line_offset,
                                         segment.cell, _line_at(segment.lines, line))
                        third.setdefault((segment.language, package), use)
    tally["optional"] = sum(1 for k in optional if k not in third)
    return third, tally


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


_C2_KINDS = frozenset({"python", "notebook", "r", "rmd", "julia"})


@detector("import_resolvability", version="2.0.0")
def import_resolvability(tree: TreeIndex) -> Result:
    """Every third-party import is declared in a dependency manifest.

    What it checks:
        Imports of Python files and notebook code cells (AST; a line-by-line fallback
        for code that does not parse; relative imports skipped), R ``library()``,
        ``require()``, ``requireNamespace()`` and ``pkg::`` uses, and Julia
        ``using``/``import``. Excluded: the frozen standard-library list (CPython 3.6–3.13
        and Python 2.7 names), Jupyter- and Colab-provided modules, build tools imported
        by ``setup.py``, base and recommended R packages, Julia's standard library, and
        local modules (``<name>.py`` anywhere, folders with ``__init__.py``, dotted
        imports whose path exists in the tree such as ``models.net`` for
        ``models/net.py``, ``src/<name>``, the project's own distribution name).
        Imports inside a ``try`` that handles ImportError are optional and not counted.
        The declared set is every parsed manifest (dependencies and build requirements:
        requirements files, pyproject, setup.py/cfg, Pipfile, conda, DESCRIPTION,
        Project.toml, renv.lock) plus inline installs (notebook ``%pip``/``!pip``/
        ``%conda install``, R ``install.packages``/``BiocManager::install``/
        ``install_github``/``pacman::p_load``, Julia ``Pkg.add``). Names are compared
        PEP 503-normalised through a curated import→distribution table (longest dotted
        prefix first), accepting either name. Value = 100·declared / third-party; no
        third-party import → 100; third-party imports but nothing declared → 0; no
        Python, R or Julia source → 100, not applicable.
    Why it matters:
        An import that no manifest declares is the first error a reproducer meets, and
        guessing the right distribution (``sklearn`` is ``scikit-learn``) costs time.
    Evidence:
        Each undeclared import with its first path, line (and cell); the manifests and
        inline installs that were read. Counts: third-party, declared and undeclared
        imports, manifests, inline installs, and imports excluded as stdlib, local,
        environment-provided or optional.
    How to fix:
        Add the missing distributions (named in the fix) to ``requirements.txt``,
        ``pyproject.toml`` or ``environment.yml`` (R: ``DESCRIPTION``; Julia:
        ``Project.toml``).
    Known false positives:
        Packages installed only by a Dockerfile ``RUN pip install``, a setup shell script
        or a ``docs/requirements.txt`` outside the environment locations count as
        undeclared; so do imports of modules generated at build time and distributions
        whose import name is neither in the table nor equal to the distribution name.
        A local folder named like a third-party package (with ``__init__.py``) hides that
        package's imports.
    """
    scan = _scan(tree)
    if not any(f.kind in _C2_KINDS for f in scan.code):
        return Result(100, applicable=False, reason="no Python, R or Julia source files",
                      counts={"third_party": 0, "declared": 0, "undeclared": 0})
    local = _local_modules(tree, scan)
    own_names = _own_r_and_julia_names(tree)
    local.own.update(normalize_name(n) for n in own_names)
    local.julia.update(own_names)
    third, tally = _imports(tree, scan, local)
    declared = _declared(tree, scan)
    sources = [Evidence(p, "dependency manifest read for the declared set", rule="import_resolvability.manifest")
               for p in declared.manifests] + [h.evidence() for h in declared.inline]
    undeclared = [
        use for use in third.values()
        if not (
            (use.language == "python" and _is_declared_python(use.key, declared.python))
            or (use.language == "r" and use.key.lower() in declared.r)
            or (use.language == "julia" and use.key.removesuffix(".jl").lower() in declared.julia)
        )
    ]
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
    if not third:
        return Result(100, counts=counts, evidence=sources[:MAX_EVIDENCE],
                      reason="no third-party imports (standard library and local modules only)")
    evidence = [
        Evidence(u.path, f"import {u.written!r} is not declared in any manifest", rule="import_resolvability.undeclared",
                 line_start=u.line, snippet=_mask_line(u.snippet), cell=u.cell)
        for u in undeclared[: MAX_EVIDENCE - min(5, len(sources))]
    ]
    evidence += sources[: MAX_EVIDENCE - len(evidence)]
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
    scan = _scan(tree)
    third, _tally = _imports(tree, scan, _local_modules(tree, scan))
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
