"""E1 dep_pinning: dependencies are locked or pinned to exact versions."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cache

from scoring.detectors._imports import classified_imports
from scoring.detectors.environment._common import (
    MAX_EVIDENCE,
    NATIVE_LANGUAGES,
    R_PACKAGE_INSTALL_RE,
    WorkflowStep,
    _all_facts,
    _each_file_first,
    _env_files,
    _fact_languages,
    _join_names,
    _language_name,
    _Lines,
    _matlab_sources,
    _name,
    _native_build_files,
    _workflows,
    fix_ecosystem_checked,
    main_native_language,
)
from scoring.manifests_index import matlab_projects, packrat_locks, pluto_environments
from scoring.model import Evidence
from scoring.parsers.manifests import (
    PIN_BOUNDED,
    PIN_EXACT,
    PIN_UNPINNED,
    Dependency,
    Manifest,
    normalize_name,
    parse_install_command,
    score_manifest,
)
from scoring.reference_data import r_shipped_packages, table_text
from scoring.registry import Result, detector
from scoring.tree import TreeIndex

# Lockfile names (lower-case) by the ecosystem whose sources make them relevant (§0.1.10).
_LOCKFILES = {
    "uv.lock": "python",
    "poetry.lock": "python",
    "pipfile.lock": "python",
    "pdm.lock": "python",
    "pixi.lock": "python",
    "conda-lock.yml": "python",
    "conda-lock.yaml": "python",
    "renv.lock": "r",
    "manifest.toml": "julia",
    "juliamanifest.toml": "julia",
    "conan.lock": "native",
    "spack.lock": "native",
    "package-lock.json": "js",
    "npm-shrinkwrap.json": "js",
    "yarn.lock": "js",
    "pnpm-lock.yaml": "js",
}
_CONDA_LOCK_RE = re.compile(r".+\.conda-lock\.ya?ml", re.IGNORECASE)
_JULIA_VERSIONED_MANIFEST_RE = re.compile(r"(?:julia)?manifest-v\d+(?:\.\d+)*\.toml", re.IGNORECASE)


@dataclass(frozen=True)
class _Lockfile:
    path: str
    ecosystem: str
    relevant: bool
    line: int | None = None     # the line that makes the file a lockfile (`@EXPLICIT`, builtin-baseline)
    what: str = ""              # why it is one, when its name does not say


def _lockfile_ecosystem(tree: TreeIndex, path: str) -> str | None:
    lower = _name(path).lower()
    if lower in _LOCKFILES:
        return _LOCKFILES[lower]
    if _CONDA_LOCK_RE.fullmatch(lower):
        return "python"
    if _JULIA_VERSIONED_MANIFEST_RE.fullmatch(lower):
        return "julia"
    # A conda explicit spec (`conda list --explicit`) is a lock list whatever its name.
    if lower.endswith(".txt") and tree.explicit_conda_spec(path):
        return "python"
    return None


def _relevant(tree: TreeIndex, ecosystem: str, languages: frozenset[str]) -> bool:
    """Whether a lockfile belongs to an ecosystem the repository's sources use (§0.1.10)."""
    if ecosystem == "js":
        return tree.has_js_lockfile_relevance()
    if ecosystem == "native":
        return bool(languages & NATIVE_LANGUAGES)
    return ecosystem in tree.languages


def _lockfiles(tree: TreeIndex, languages: frozenset[str], manifests: list[Manifest]) -> list[_Lockfile]:
    found = []
    for path in _env_files(tree):
        ecosystem = _lockfile_ecosystem(tree, path)
        if ecosystem is None:
            continue
        info = tree.info(path)
        # An empty lockfile pins nothing (a placeholder or a failed `lock` run).
        if info is None or info.size == 0:
            continue
        line = _explicit_line(tree, path)
        found.append(_Lockfile(path, ecosystem, _relevant(tree, ecosystem, languages), line,
                               "a conda explicit spec" if line else ""))
    # Manifests that fix every version: vcpkg.json with a builtin-baseline (§0.3 native).
    for m in manifests:
        if m.lock_line is not None and m.kind == "vcpkg":
            found.append(_Lockfile(m.path, "native", _relevant(tree, "native", languages), m.lock_line,
                                   "its builtin-baseline fixes the version of every port"))
    # R packrat.lock, where packrat writes it (packrat/) or in an environment location.
    for m in packrat_locks(tree):
        if m.lock_line is not None:
            found.append(_Lockfile(m.path, "r", _relevant(tree, "r", languages), None, "packrat"))
    return found


def _explicit_line(tree: TreeIndex, path: str) -> int | None:
    """The `@EXPLICIT` line that makes a `.txt` file a conda lock list."""
    if not path.lower().endswith(".txt"):
        return None
    table = tree.line_table(path)
    for number, line in enumerate(table.lines if table is not None else (), start=1):
        if line.strip().lstrip("\ufeff") == "@EXPLICIT":
            return number
    return None


# Manifests of the native package managers (conan, vcpkg, spack, fpm: §0.3 native codes).
_NATIVE_MANAGER_KINDS = frozenset({"conan", "vcpkg", "spack", "fpm"})
_ECOSYSTEM_NAMES = {"native": "C/C++/Fortran"}

# Native dependency sources (scoring.parsers.native_build) grouped into one manifest each.
_NATIVE_MANIFESTS = {
    "fetchcontent": "cmake-fetch",
    "externalproject": "cmake-fetch",
    "cpm": "cmake-fetch",
    "find_package": "cmake-find-package",
    "meson-wrap": "meson-wrap",
    "git-submodule": "git-submodules",
}


def _without_base_r(manifest: Manifest) -> Manifest:
    # R's base packages ship with R itself and have no version of their own (the R
    # version is E4's business): a DESCRIPTION entry naming one is nothing to pin
    if manifest.kind != "description":
        return manifest
    kept = [d for d in manifest.dependencies if d.name not in r_shipped_packages("base")]
    return manifest if len(kept) == len(manifest.dependencies) else replace(manifest, dependencies=kept)


def _native_manifests(tree: TreeIndex) -> list[Manifest]:
    """CMake FetchContent/ExternalProject, find_package, meson wraps and git submodules,
    one manifest per kind over the deposit's build files (§0.3 native codes)."""
    grouped: dict[str, Manifest] = {}
    for path in _native_build_files(tree):
        build = tree.native_build(path)
        if build is None:
            continue
        for dep in build.dependencies:
            if "${" in dep.name:  # a macro's template, not a dependency
                continue
            kind = _NATIVE_MANIFESTS[dep.source]
            manifest = grouped.setdefault(kind, Manifest(path=path, kind=kind, dependencies=[]))
            manifest.dependencies.append(dep)
    return list(grouped.values())


def _matlab_manifest(tree: TreeIndex) -> Manifest | None:
    """MATLAB/Octave code declares its release in prose or in a toolbox project file: a
    README statement of the release, or the release a `*.prj` packaging project names, is
    the bounded tier, none the unpinned one (§0.3 MATLAB E1)."""
    sources = _matlab_sources(tree)
    if not sources:
        return None
    statements = tree.stated_releases(tree.readme) if tree.readme else ()
    dependencies = []
    for product in ("MATLAB", "Octave"):
        stated = next((s for s in statements if s.product == product), None)
        if stated is not None:
            dependencies.append(Dependency(product, product.lower(), stated.release, PIN_BOUNDED, stated.line,
                                           "matlab", "readme-release", stated.text, file=tree.readme))
    if not any(d.name == "MATLAB" for d in dependencies):
        dependencies += [d for project in matlab_projects(tree)[:1] for d in project.dependencies]
    if not dependencies:
        dependencies.append(Dependency("MATLAB", "matlab", "", PIN_UNPINNED, None, "matlab", "readme-release",
                                       "no MATLAB release stated", file=tree.readme or sources[0]))
    path = dependencies[0].file or tree.readme or sources[0]
    return Manifest(path=path, kind="matlab-release", dependencies=dependencies)


def _workflow_manifest(tree: TreeIndex) -> Manifest | None:
    """Each Nextflow process or Snakemake rule that runs software is an entry: exact when
    its container, conda environment or wrapper names versions, unpinned otherwise; every
    step pinned is the exact tier (§0.3 workflows)."""
    steps = [s for s in _workflows(tree).steps if s.needs_environment]
    if not steps:
        return None
    dependencies = [
        Dependency(step.name, normalize_name(step.name), step.how, PIN_EXACT if step.pinned else PIN_UNPINNED,
                   step.evidence_line, step.engine, "workflow-step", step.how, file=step.evidence_path)
        for step in steps
    ]
    return Manifest(path=steps[0].path, kind="workflow", dependencies=dependencies)


_README_RE = re.compile(r"readme(?:\.(?:md|markdown|rst|txt))?", re.IGNORECASE)
_JULIA_ADD_RE = re.compile(r"Pkg\.add\s*\(|^\s*(?:\([^)]*\)\s*)?(?:pkg>|\])\s*add\s")


def _documented_installs(tree: TreeIndex) -> list[Evidence]:
    """Commands in README files that install packages by name (`install.packages(…)`,
    `pip install x`, `Pkg.add(…)`): where a deposit without a manifest names its
    dependencies, unpinned."""
    found = []
    for path in tree.match(_README_RE):
        document = tree.document(path) if tree.role(path) != "vendored" else None
        for line, text, _ in sorted(document.code_lines() if document is not None else (), key=lambda c: c[0]):
            if (R_PACKAGE_INSTALL_RE.search(text) or _JULIA_ADD_RE.search(text)
                    or parse_install_command(text, path, line)):
                found.append(Evidence(path, "packages installed by a documented command, declared in no manifest",
                                      rule="dep_pinning.documented_install", line_start=line, snippet=text.strip()))
    return found[: MAX_EVIDENCE // 4]


@cache
def _system_headers() -> tuple[frozenset[str], tuple[str, ...]]:
    """The bundled table of headers and modules that need nothing pinned: names, folder prefixes."""
    names, prefixes = set(), []
    for line in table_text("native_system_headers.txt").splitlines():
        entry = line.split("#", 1)[0].strip()
        if entry.endswith("/") or entry.endswith("*"):
            prefixes.append(entry.rstrip("*"))
        elif entry:
            names.add(entry)
    return frozenset(names), tuple(prefixes)


def _third_party_includes(tree: TreeIndex) -> list[tuple[str, int, str]]:
    """(path, line, header) of includes and ``use`` statements of native sources that
    are neither the standard library, the system, MPI/OpenMP nor a file of the tree."""
    names, prefixes = _system_headers()
    local = {_name(p).lower() for p in tree.files}
    all_facts = _all_facts(tree)
    local_modules = {
        d.name.lower() for f in all_facts.values() if f.language == "fortran"
        for d in f.definitions if d.kind == "module"
    }
    found = []
    for path, facts in all_facts.items():
        if facts.language not in NATIVE_LANGUAGES:
            continue
        for imp in facts.imports:
            module = imp.module.strip()
            lower = module.lower()
            if facts.language == "fortran":
                if imp.kind == "use" and lower not in names and lower not in local_modules:
                    found.append((path, imp.line, module))
                continue
            base = lower.rsplit("/", 1)[-1]
            if lower in names or base in local or lower.startswith(prefixes):
                continue
            if "." not in base and "/" not in lower:  # <vector>, <cstdio>: the C++ library
                continue
            if base.endswith("intrin.h") or base.startswith("arm_"):
                continue
            found.append((path, imp.line, module))
    return found


# Languages whose packages E1 pins: a deposit in them that uses no third-party package has
# nothing to pin. MATLAB always has its release to state, a workflow its steps' software.
_PACKAGE_LANGUAGES = frozenset({"python", "r", "julia"})
_ALWAYS_SOMETHING_TO_PIN = frozenset({"matlab", "nextflow", "snakemake"})
_SHIPPED_ONLY = {
    "python": "the Python code imports only the standard library and its own modules",
    "r": "the R code loads only R's base and recommended packages and its own code",
    "julia": "the Julia code uses only Julia's standard library and its own modules",
}


def _nothing_to_pin(tree: TreeIndex, languages: frozenset[str]) -> str | None:
    """Why the deposit has nothing to pin (§0.3: E1 not applicable, never 0), or None:
    its Python, R and Julia code imports only the standard library (base and recommended
    R packages, Julia's standard library), the environment and its own modules, none
    guarded as optional, and installs nothing (C2's classification); its native code
    includes only the standard library, the system and MPI/OpenMP."""
    pinned_languages = languages & (_PACKAGE_LANGUAGES | NATIVE_LANGUAGES)
    if not pinned_languages or languages & _ALWAYS_SOMETHING_TO_PIN:
        return None
    what = []
    if languages & _PACKAGE_LANGUAGES:
        classified = classified_imports(tree)
        if classified.third or classified.optional or classified.installs_packages:
            return None
        what += [_SHIPPED_ONLY[lang] for lang in sorted(languages & _PACKAGE_LANGUAGES)]
    if languages & NATIVE_LANGUAGES:
        if _third_party_includes(tree):
            return None
        what.append("the native code includes only the standard library, the system and MPI/OpenMP")
    return "; ".join(what)


@dataclass(frozen=True)
class _Scored:
    manifest: Manifest
    value: float
    level: str

    @property
    def n_entries(self) -> int:
        return len(self.manifest.dependencies)


def _declares_something(manifest: Manifest) -> bool:
    return bool(manifest.dependencies) or manifest.unknown


def _pin_label(pin: str) -> str:
    return {PIN_EXACT: "exact pin", PIN_BOUNDED: "bounded", PIN_UNPINNED: "unpinned"}.get(pin, pin)


def _declaration_span(m: Manifest) -> tuple[int | None, int | None]:
    """The lines of ``m``'s own file that declare its dependencies, from the first
    declaring key or field to the last entry; (None, None) for the workflow manifest,
    whose entries are the steps of many files."""
    if m.kind == "workflow":
        return None, None
    lines = [line for span in m.declared for line in span]
    lines += [d.line for d in m.dependencies if d.line and (d.file or m.path) == m.path]
    if not lines:
        return None, None
    first, last = min(lines), max(lines)
    return first, (last if last > first else None)


def _manifest_summary(scored: _Scored, considered: bool, lines: _Lines) -> list[Evidence]:
    m = scored.manifest
    pins = [d.pin for d in m.dependencies]
    tally = (
        f"{pins.count(PIN_EXACT)} exact, {pins.count(PIN_BOUNDED)} bounded, "
        f"{pins.count(PIN_UNPINNED)} unpinned of {len(pins)} entries"
    )
    if m.unknown:
        tally += "; dependencies not a literal (unknown)"
    if m.conda_export and m.export_line is None:
        tally += "; a conda export (every dependency pinned with =), so every single-= pin is exact"
    if considered:
        reason = f"{m.kind} manifest scores {scored.value:g} ({scored.level}): {tally}"
        rule = "dep_pinning.manifest"
    else:
        reason = f"{m.kind} manifest ignored (development/test/docs only while a runtime manifest exists): {tally}"
        rule = "dep_pinning.manifest_aux"
    first, last = _declaration_span(m)
    items = [Evidence(m.path, reason, rule=rule, line_start=first, line_end=last, snippet=lines.get(m.path, first))]
    if m.export_line is not None:
        items.append(Evidence(m.path, "prefix: line: the file is a conda export, so every single-= pin is exact",
                              rule="dep_pinning.conda_export", line_start=m.export_line,
                              snippet=lines.get(m.path, m.export_line)))
    return items


def _entry_evidence(m: Manifest, room: int) -> list[Evidence]:
    """Entries of ``m``; when there is no room for all, the ones that need fixing first,
    each file's first before a second of any file, shown in file and line order."""

    def item(dep: Dependency) -> Evidence:
        return Evidence(
            dep.file or m.path,
            f"{dep.name} {dep.spec or '(no version constraint)'}: {_pin_label(dep.pin)}",
            rule=f"dep_pinning.{dep.pin}",
            line_start=dep.line,
            snippet=dep.raw,
        )

    if room <= 0:
        return []
    if len(m.dependencies) <= room:
        return [item(dep) for dep in m.dependencies]
    ranked = sorted(m.dependencies, key=lambda d: d.pin == PIN_EXACT)
    shown = _each_file_first([item(dep) for dep in ranked], room)
    return sorted(shown, key=lambda e: (e.path, e.line_start or 0))


def _workflow_entry_evidence(tree: TreeIndex, lines: _Lines, room: int) -> list[Evidence]:
    """The environment of each Nextflow process or Snakemake rule that runs software,
    steps declared alike as one item: its container, conda and wrapper directives (their
    lines in the file that decides), then the conda environment files and ``params``
    settings they name, and directives in other files. Unpinned steps first; when there is
    no room for all, each file's first item before a second of any file."""
    if room <= 0:
        return []
    groups: dict[tuple, list[WorkflowStep]] = {}
    for step in _workflows(tree).steps:
        if step.needs_environment:
            key = (step.evidence_path, step.evidence_line, step.pinned, step.how, step.declarations)
            groups.setdefault(key, []).append(step)
    ranked = sorted(groups.items(), key=lambda kv: kv[0][2])  # unpinned first, else in order
    items: list[Evidence] = []
    shown: set[tuple[str, int | None]] = set()
    for (path, line, pinned, how, declarations), steps in ranked:
        names = _join_names([s.name for s in steps])
        label = names if len(steps) == 1 else f"{len(steps)} {'processes' if steps[0].engine == 'nextflow' else 'rules'} ({names})"
        here = [d for d in declarations if d.kind == "directive" and d.path == path and d.line]
        span = [d.line for d in here] + ([line] if line else [])
        what = "; ".join(dict.fromkeys(d.what for d in here)) or how
        pin = PIN_EXACT if pinned else PIN_UNPINNED
        first = min(span, default=None)
        last = max(span, default=None)
        # a Snakemake directive whose value sits on the next line (`wrapper:` / "0.74.0/…")
        # starts at its keyword
        start = _keyword_line(lines, path, first) if steps[0].engine == "snakemake" else first
        items.append(Evidence(path, f"{label}: {what}: {_pin_label(pin)}", rule=f"dep_pinning.{pin}",
                              line_start=start, line_end=last if last != start else None,
                              snippet=lines.get(path, first)))
        shown.add((path, first))
        for d in declarations:
            if d in here or (d.path, d.line) in shown:
                continue
            shown.add((d.path, d.line))
            if d.kind == "environment_file":
                reason = f"conda environment of {label}: {d.what.rsplit(': ', 1)[-1]}"
            elif d.kind == "parameter":
                reason = f"{d.what}: part of the container image of {label}"
            else:
                reason = f"{d.what} (also declared for {label})"
            items.append(Evidence(d.path, reason, rule=f"dep_pinning.{d.kind}", line_start=d.line,
                                  line_end=d.line_end if d.line_end != d.line else None,
                                  snippet=lines.get(d.path, d.line)))
    return _each_file_first(items, room)


_DIRECTIVE_KEYWORD_RE = re.compile(r"\s*[a-z_]+:\s*(?:#.*)?")


def _keyword_line(lines: _Lines, path: str, line: int | None) -> int | None:
    """The line of the directive keyword written alone above ``line`` (Snakemake's
    ``conda:``/``wrapper:``/``container:`` followed by its value), else ``line``."""
    if not line or line < 2:
        return line
    above = lines.get(path, line - 1)
    return line - 1 if above is not None and _DIRECTIVE_KEYWORD_RE.fullmatch(above) else line


# What to do when no manifest declares anything, in the deposit's own tools (§0.3).
_NO_MANIFEST_FIX = {
    "python": "Declare the dependencies with exact versions in requirements.txt "
              "(`pip freeze > requirements.txt`) or commit a lockfile (`uv lock`).",
    "r": "Run `renv::snapshot()` and commit renv.lock.",
    "julia": "Add the packages to a Project.toml (`julia --project=. -e 'using Pkg; Pkg.add([...])'`) "
             "and commit the Manifest.toml it writes.",
    "matlab": "State the MATLAB release and the toolboxes the code needs in the README "
              "(e.g. \"Requires MATLAB R2023b with the Statistics and Machine Learning Toolbox\").",
    "native": "Declare the libraries the build needs with versions: `find_package(<Lib> <version>)`, "
              "FetchContent with a commit `GIT_TAG`, or a conan/vcpkg/spack manifest with a lockfile.",
    "fortran": "Declare the libraries the build needs with versions: fpm.toml [dependencies] pinned to a "
               "commit (`rev = \"<sha>\"`), `find_package(<Lib> <version>)`, or a spack.yaml with its spack.lock.",
    "nextflow": "Give every process a `container` image with a version tag or digest, or a `conda` "
                "environment file whose packages carry versions.",
    "snakemake": "Give every rule a `conda:` environment file whose packages carry versions, or a "
                 "`container:` image with a version tag or digest.",
}
_WORKFLOW_STEP = {"nextflow": "process", "snakemake": "rule"}


def _loose_why(m: Manifest) -> str:
    """What the manifest leaves loose, as it is: the entries without any version
    ("leaves x, y unversioned") and those with a range ("bounds z only loosely")."""
    unversioned = list(dict.fromkeys(d.name for d in m.dependencies if d.pin == PIN_UNPINNED))
    bounded = list(dict.fromkeys(d.name for d in m.dependencies if d.pin not in (PIN_EXACT, PIN_UNPINNED)))
    parts = []
    if unversioned:
        parts.append(f"leaves {_join_names(unversioned)} unversioned")
    if bounded:
        parts.append(f"bounds {_join_names(bounded)} only loosely")
    return f" ({m.path} {' and '.join(parts)})" if parts else ""


def _dep_fix(tree: TreeIndex, m: Manifest | None) -> str:
    """One sentence naming the packages to pin and the tool that writes the pins, in the
    ecosystem of the manifest that decided (with none, the deposit's: §0.3)."""
    if m is None:
        ecosystem = fix_ecosystem_checked(tree)
        if ecosystem == "native" and main_native_language(tree) == "fortran":
            ecosystem = "fortran"
        return _NO_MANIFEST_FIX[ecosystem]
    kind = m.kind
    loose = [d.name for d in m.dependencies if d.pin != PIN_EXACT]
    why = _loose_why(m)
    if kind == "description":
        return f"Run `renv::snapshot()` and commit renv.lock{why}."
    if kind == "julia-project":
        return f"Commit the Manifest.toml that `Pkg.instantiate()` writes{why}."
    if kind == "pluto":
        if loose:
            return (f"Open {m.path} in Pluto with its package manager on, so that it embeds the exact versions "
                    f"(PLUTO_MANIFEST_TOML_CONTENTS) of {_join_names(loose)}.")
        return (f"Commit the environment {m.path} embeds as a Project.toml and Manifest.toml beside it too "
                "(`Pluto.activate_notebook_environment`), a lockfile any Julia session can instantiate.")
    if kind == "matlab-release":
        if m.path.lower().endswith(".prj"):
            return (f"State the exact MATLAB release the code was run with and its toolbox versions (`ver` prints "
                    f"them) in the README; {m.path} names only the oldest release it supports.")
        if loose:
            where = f"a Requirements section of {m.path}" if m.path == tree.readme else "the README"
            return (f"State the MATLAB release the code was run with and the toolboxes it needs "
                    f"(e.g. \"Requires MATLAB R2023b with the Statistics and Machine Learning Toolbox\") "
                    f"in {where}.")
        return "State the exact MATLAB release and toolbox versions used (`ver` prints them) in the README."
    if kind == "workflow":
        engine = fix_ecosystem_checked(tree)
        step = _WORKFLOW_STEP.get(engine, "process or rule")
        container, conda = ("`container:`", "`conda:`") if engine == "snakemake" else ("`container`", "`conda`")
        return (f"Give every {step} a versioned environment: a {container} image with a version tag "
                f"or digest, or a {conda} environment whose packages carry versions ({_join_names(loose)} "
                "have none).") if loose else (
                "Pin the container images by digest (`@sha256:…`) or commit the conda environments' exact "
                "builds (`conda env export`) to also fix transitive dependencies.")
    if kind in ("cmake-fetch", "cmake-find-package", "meson-wrap", "git-submodules"):
        if loose:
            return (f"Pin {_join_names(loose)} in {m.path} to a release commit (FetchContent `GIT_TAG <40-hex "
                    "commit>` or a `URL` with `URL_HASH`; a wrap `revision` commit), or record them in a "
                    "conan.lock / vcpkg.json with a builtin-baseline.")
        return ("Record the libraries in a lockfile too (a conan.lock, a vcpkg.json with a builtin-baseline or a "
                "spack.lock), so that the ones the build takes from the system are fixed as well.")
    if kind == "conan":
        return (f"Pin {_join_names(loose)} in {m.path} to exact references (`name/1.2.3`) and commit the "
                "conan.lock that `conan lock create` writes." if loose else
                "Commit the conan.lock that `conan lock create` writes, to fix the transitive dependencies too.")
    if kind == "vcpkg":
        return (f"Add a `builtin-baseline` commit to {m.path} (`vcpkg x-update-baseline --add-initial-baseline`), "
                f"which fixes the version of every port{why}.")
    if kind == "spack":
        return (f"Pin {_join_names(loose)} in {m.path} with `@=<version>`, and commit the spack.lock that "
                "`spack concretize` writes." if loose else
                "Commit the spack.lock that `spack concretize` writes, to fix the transitive dependencies too.")
    if kind == "fpm":
        return (f"Pin {_join_names(loose)} in {m.path} to a commit (`rev = \"<sha>\"`) or a release tag."
                if loose else "Pin the remaining tagged dependencies to a commit (`rev = \"<sha>\"`).")
    tool = {
        "conda": "`conda env export --no-builds` or `conda-lock`",
        "pyproject": "`uv lock` / `poetry lock`",
        "pixi": "`pixi install` writes pixi.lock",
    }.get(kind, "`pip freeze > requirements.txt` / `uv lock`")
    if loose:
        return f"Pin {_join_names(loose)} in {m.path} to exact versions (e.g. {tool}), or commit a lockfile."
    if not m.dependencies:
        what = (
            "its dependencies are not a literal list"
            if m.unknown
            else "it declares no dependencies"
        )
        return f"List the dependencies with exact versions in {m.path} ({what}), or commit a lockfile ({tool})."
    return f"Commit a lockfile to also fix transitive dependencies (e.g. {tool})."


@detector("dep_pinning", version="2.6.0")
def dep_pinning(tree: TreeIndex) -> Result:
    """Dependencies are locked or pinned to exact versions.

    What it checks:
        100 (lockfile) when an environment location (root, binder/, .binder/,
        requirements/, env/, Dockerfile folders) holds a non-empty lockfile of an
        ecosystem the repository uses: uv.lock, poetry.lock, Pipfile.lock, pdm.lock,
        pixi.lock, conda-lock.yml / *.conda-lock.yml or an `@EXPLICIT` conda spec when
        Python sources exist; renv.lock, and packrat.lock (in packrat/ or an environment
        location), with R sources; Manifest.toml with Julia sources; conan.lock,
        spack.lock and a vcpkg.json whose builtin-baseline commit fixes every port's
        version with C/C++/Fortran sources; package-lock.json, yarn.lock,
        pnpm-lock.yaml only when the analysis code is JavaScript (no Python, R or Julia
        sources). Otherwise every manifest in those locations is parsed (requirements
        files following -r/-c, pyproject.toml [project] and Poetry main group, setup.cfg,
        literal setup.py, the requirements file a setup.py opens for install_requires or
        pyproject's [tool.setuptools.dynamic] names, Pipfile [packages], pixi.toml
        [dependencies] as conda specs and [pypi-dependencies], environment.yml with its
        pip list, DESCRIPTION, Project.toml) and
        each entry classed exact (one ==/=== clause without a wildcard, a commit pin, a
        conda export pin), bounded (any other constraint) or unpinned. A manifest scores
        80 (all_exact) when every entry is exact, round(50 + 20·f) half-even (partial)
        with f = (n_exact + 0.5·n_bounded) / n_entries when some entry is constrained,
        and 20 (unpinned) when none is or it has no entries. The best manifest wins.
        Development, test and docs manifests (requirements-dev.txt, docs/…) count only
        when no runtime manifest declares anything. A pyproject.toml or setup.cfg that
        holds only tool settings (no dependencies key, no [options] install_requires) is
        not a manifest. Each ecosystem adds its own manifests (§0.3):
        R: DESCRIPTION Depends/Imports/LinkingTo without R's base packages (methods,
        stats, utils, …: they ship with R and have no version of their own);
        Julia: Project.toml [compat], Manifest.toml (also Manifest-v1.10.toml) lockfile,
        and the environment a Pluto notebook embeds, wherever the notebook is (a [deps]
        entry the embedded Manifest records exact, else pinned by the embedded [compat]);
        MATLAB/Octave: the README's statement of the release (`MATLAB R2019b or newer`,
        `Octave 5.2.0`; a release named in a changelog section or a `v2.4 - fix …`
        entry is history, not a statement), or else the release a toolbox packaging project (`*.prj`,
        `<param.release.start>R2019b</…>`) supports from, is one bounded entry per
        product, no statement one unpinned entry, whenever MATLAB code exists (`.m`
        files that parse as MATLAB/Octave, not Objective-C);
        C/C++/Fortran: CMake FetchContent_Declare/ExternalProject_Add and CPM's
        CPMAddPackage/CPMFindPackage/CPMDeclarePackage (FetchContent wrappers; a 40-hex
        GIT_TAG, a URL_HASH or a versioned release tarball exact, another tag or a CPM
        VERSION/`gh:owner/repo@1.2` bounded, a branch unpinned), find_package (a version
        bounded, EXACT exact; not inside a function/macro body, e.g. a bundled CPM.cmake's
        find_package(Git): the module's internals), meson
        subprojects/*.wrap (a commit or source_hash exact, a tag bounded) and git
        submodules in a dependency folder (libs/, external/, third_party/…: exact, git
        records the commit), one manifest per kind, outside vendored and test folders;
        and the package managers' manifests: conanfile.txt/conanfile.py [requires]
        (`name/1.2.3` or a revision exact, a `[range]` bounded), vcpkg.json
        dependencies (an override version exact, `version>=` bounded), spack.yaml specs
        (`@=1.2.3` or a three-part version exact, a shorter version or range bounded)
        and fpm.toml [dependencies] (a git `rev` exact, a `tag` bounded, a branch
        unpinned; the openmp/mpi metapackages and local paths are not entries);
        Nextflow/Snakemake: one entry per process or rule that runs software (not an
        `exec:` process, not a rule without shell/script/wrapper), exact when its
        container has a versioned tag, digest or commit tag, its conda spec or
        environment file versions every package, or its wrapper names a release, with
        config selectors (withLabel/withName) and ${params.…} resolved; every step
        pinned gives the exact tier. No manifest: 0 (absent). Nothing to pin (§0.3):
        when no manifest lists a dependency (none, or only empty ones that parse) and
        the deposit's Python, R, Julia and C/C++/Fortran code uses no third-party
        package, E1 is not applicable (fill value 0): C2's classification finds only
        the standard library, R's base and recommended packages, Julia's standard
        library, environment-provided and the project's own modules, with no optional
        (ImportError-guarded) import and no inline install, and native code includes
        only the standard library, system headers and MPI/OpenMP. MATLAB code (its
        release) and workflow steps always have something to pin.
    Why it matters:
        Unpinned dependencies resolve to whatever is newest on the day of the rerun;
        APIs and numerical defaults change between releases, so the same code can
        silently compute something else or fail to import. A lockfile records the whole
        resolved environment, transitive dependencies included.
    Evidence:
        The lockfile path (a conda explicit spec at its `@EXPLICIT` line); one item per
        manifest with its score and pin tally, spanning the lines that declare its
        dependencies (from the `Imports:`/`Depends:` field, `dependencies =` key,
        `install_requires` list, `[deps]`/`[compat]` table or `dependencies:` key to
        the last entry), and a conda export's `prefix:` line; for the best manifest one
        item per entry (line, name, specifier, class), entries needing a fix first and
        each file's first entry before a second of any file when more than fit; for
        workflows one item per process or rule (steps declared alike as one), spanning
        its container, conda and wrapper directives (from a Snakemake directive's keyword
        when its value stands on the next line), then the conda environment files
        and the `params` settings (a container tag) they name; ignored lockfiles of
        unused ecosystems; a vcpkg.json lockfile at its builtin-baseline line; with no
        manifest file at all, README commands that install
        packages by name (`install.packages(…)`, `pip install x`, `Pkg.add(…)`).
        Counts: n_entries, n_exact, n_bounded, n_unpinned of the best manifest,
        n_manifests, n_lockfiles.
    How to fix:
        Commit a lockfile (`uv lock`, `poetry lock`, `pdm lock`, `conda-lock`,
        `renv::snapshot()`, Julia's Manifest.toml), or pin every dependency exactly
        (`pip freeze > requirements.txt`, `conda env export --no-builds`); MATLAB: state
        the release and toolboxes in the README; native: FetchContent with a commit
        GIT_TAG or URL_HASH, a conan.lock, spack.lock or vcpkg builtin-baseline;
        workflows: a versioned container or conda spec for every process or rule. The
        fix names the tool of the manifest that decided, or with none the deposit's
        ecosystem (§0.3), and says what it leaves loose as it is: the entries it
        leaves unversioned, and those it bounds only loosely (2.3.1).
    Known false positives:
        A lockfile is credited on existence: a stale lockfile that no longer matches the
        manifest still scores 100. Conda lock formats count for Python only. A
        `==` pin does not fix transitive dependencies, yet scores 80. Manifests of an
        ecosystem the code does not use (a stray DESCRIPTION in a Python project) are
        scored like the others (the native package managers' manifests count only
        beside C/C++/Fortran sources). A MATLAB release is read from the README and
        toolbox packaging projects only. A submodule outside the dependency folders is
        not counted, even when the build uses it. Nix files (flake.lock) are not read:
        METRICS.md names no Nix form.
    """
    languages = _fact_languages(tree)
    found = tree.manifests()
    lockfiles = _lockfiles(tree, languages, found)
    used_locks = [lock for lock in lockfiles if lock.relevant]
    unused_locks = [lock for lock in lockfiles if not lock.relevant]

    native = bool(languages & NATIVE_LANGUAGES)
    # A pyproject.toml or setup.cfg holding only tool settings declares nothing: not a
    # manifest; a native package manager's manifest describes native code only.
    not_manifests = [m for m in found if not m.declares_dependencies]
    manifests = [_without_base_r(m) for m in found
                 if m.declares_dependencies and (native or m.kind not in _NATIVE_MANAGER_KINDS)]
    if native:
        manifests += _native_manifests(tree)
    manifests += pluto_environments(tree)
    manifests += [m for m in (_matlab_manifest(tree), _workflow_manifest(tree)) if m is not None]
    scored = [_Scored(m, *score_manifest(m)) for m in manifests]
    runtime = [s for s in scored if s.manifest.runtime and _declares_something(s.manifest)]
    considered = runtime or scored
    best = None
    for candidate in considered:
        if best is None or (candidate.value, candidate.n_entries) > (best.value, best.n_entries):
            best = candidate

    counts: dict[str, object] = {
        "n_manifests": len(manifests),
        "n_manifests_scored": len(considered),
        "n_lockfiles": len(used_locks),
        "n_entries": 0,
        "n_exact": 0,
        "n_bounded": 0,
        "n_unpinned": 0,
    }
    if best is not None:
        pins = [d.pin for d in best.manifest.dependencies]
        counts.update(
            manifest=best.manifest.path,
            n_entries=len(pins),
            n_exact=pins.count(PIN_EXACT),
            n_bounded=pins.count(PIN_BOUNDED),
            n_unpinned=pins.count(PIN_UNPINNED),
        )

    lines = _Lines(tree)
    evidence: list[Evidence] = [
        Evidence(
            lock.path,
            f"lockfile of the {_ECOSYSTEM_NAMES.get(lock.ecosystem, _language_name(lock.ecosystem))} ecosystem"
            + (f" ({lock.what})" if lock.what else ""),
            rule="dep_pinning.lockfile",
            line_start=lock.line,
            snippet=lines.get(lock.path, lock.line) if lock.line else None,
        )
        for lock in used_locks
    ]
    evidence += [
        Evidence(
            lock.path,
            f"lockfile ignored: the repository has no "
            f"{_ECOSYSTEM_NAMES.get(lock.ecosystem, _language_name(lock.ecosystem))} analysis code",
            rule="dep_pinning.lockfile_unused",
        )
        for lock in unused_locks
    ]
    considered_ids = {id(s) for s in considered}
    # The deciding manifest first, so the summary cap never hides it.
    ordered = sorted(scored, key=lambda s: s is not best)
    evidence += [
        item for s in ordered[: MAX_EVIDENCE // 4] for item in _manifest_summary(s, id(s) in considered_ids, lines)
    ]
    evidence += [
        Evidence(m.path, f"{m.kind} file declares no dependencies"
                 f"{' (only tool settings)' if m.kind in ('pyproject', 'setup.cfg') else ''}: not a manifest",
                 rule="dep_pinning.not_a_manifest")
        for m in not_manifests
    ]
    evidence = evidence[:MAX_EVIDENCE]
    if best is not None and not used_locks:
        if best.manifest.kind == "workflow":
            evidence += _workflow_entry_evidence(tree, lines, MAX_EVIDENCE - len(evidence))
        else:
            evidence += _entry_evidence(best.manifest, MAX_EVIDENCE - len(evidence))

    if used_locks:
        return Result(
            100,
            level="lockfile",
            evidence=evidence,
            reason=f"lockfile {used_locks[0].path} of an ecosystem the repository uses",
            counts=counts,
        )
    unused_note = (
        f"; {_join_names([lock.path for lock in unused_locks])} ignored (ecosystem not used by the code)"
        if unused_locks
        else ""
    )
    # a manifest that lists a dependency, or that could not be read whole, may have one to pin
    listed = any(_declares_something(s.manifest) or s.manifest.problems for s in scored)
    nothing = _nothing_to_pin(tree, languages) if not listed else None
    if nothing is not None:
        return Result(
            0,
            applicable=False,
            level="absent",
            evidence=evidence,
            reason=f"nothing to pin: {nothing}, and no manifest lists a dependency",
            counts=counts,
        )
    if best is None:
        return Result(
            0,
            level="absent",
            # No manifest file at all (one without dependencies may be the project's own
            # package, which its README then installs): where the README names the packages.
            evidence=evidence + (_documented_installs(tree) if not found else []),
            reason="no dependency manifest or relevant lockfile in the environment locations"
            + unused_note,
            fix=_dep_fix(tree, None),
            counts=counts,
        )

    m = best.manifest
    fix = _dep_fix(tree, m)
    return Result(
        best.value,
        level=best.level,
        evidence=evidence,
        reason=f"best manifest {m.path}: {counts['n_exact']} exact, {counts['n_bounded']} bounded, "
        f"{counts['n_unpinned']} unpinned of {counts['n_entries']} entries" + unused_note,
        fix=fix,
        counts=counts,
    )
