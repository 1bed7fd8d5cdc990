"""E4 python_version_declared: the language or runtime version the code needs is declared."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from scoring.detectors.environment._common import (
    MAX_EVIDENCE,
    NATIVE_LANGUAGES,
    _all_facts,
    _dockerfiles,
    _env_files,
    _fact_languages,
    _language_name,
    _Lines,
    _name,
    _native_build_files,
    _workflows,
    fix_ecosystem_checked,
    main_native_language,
)
from scoring.manifests_index import matlab_projects, packrat_locks, pluto_environments
from scoring.model import Evidence
from scoring.parsers.dockerfile import split_image, versioned_tag
from scoring.parsers.manifests import InterpreterDecl, Manifest
from scoring.parsers.native_build import stated_compilers
from scoring.registry import Result, detector
from scoring.tree import TreeIndex

_DECLARABLE_LANGUAGES = ("python", "r", "julia", "matlab", "c", "cpp", "fortran", "nextflow", "snakemake")
# Build scripts written in Python that set compiler flags (athena's configure.py): their
# string literals may name the language standard (`-std=c++11`).
_PYTHON_BUILD_SCRIPT_RE = re.compile(r"configure(?:[-_.]\w+)?\.py", re.IGNORECASE)
_STD_FLAG_RE = re.compile(r"(?<![\w-])-std=[A-Za-z][\w+]*")
_VERSION_FILE_RE = re.compile(
    r"\.python-version|runtime\.txt|\.tool-versions|\.?mise\.toml|uv\.lock|renv\.lock"
    r"|(?:julia)?manifest(?:-v\d+(?:\.\d+)*)?\.toml",
    re.IGNORECASE,
)
_HAS_DIGIT_RE = re.compile(r"\d")
_JUPYTER_PYTHON_TAG_RE = re.compile(r"python-\d+\.\d+")
_CONDA_IMAGES = frozenset(
    {
        "continuumio/miniconda3", "continuumio/miniconda", "continuumio/anaconda3", "continuumio/anaconda",
        "condaforge/miniforge3", "condaforge/mambaforge", "condaforge/miniforge-pypy3", "mambaorg/micromamba",
    }
)  # fmt: skip
# An explicit Python spec in a conda command: python=3.9, "python>=3.8", python==3.10.4.
_CONDA_PYTHON_SPEC_RE = re.compile(
    r"(?<![\w.-])python\s*(?:==?|>=|<=|~=|>|<)\s*\d+(?:\.\d+)?", re.IGNORECASE
)


@dataclass(frozen=True)
class _Declaration:
    path: str
    language: str
    spec: str
    line: int | None
    source: str
    snippet: str | None = None
    # where the declaration opens when it starts above ``line``: the `Depends:` field or
    # `dependencies:` key holding an interpreter entry, the ARG a FROM takes its image from
    first_line: int | None = None


def _opening_line(manifest: Manifest | None, line: int | None) -> int | None:
    """The first line of the dependency declaration of ``manifest`` that holds ``line``."""
    for first, last in manifest.declared if manifest is not None and line else ():
        if first < line <= last:
            return first
    return None


def _image_repository(image: str) -> str:
    """``docker.io/library/python`` → ``python``; ``quay.io/jupyter/scipy-notebook`` → ``jupyter/scipy-notebook``."""
    name, _, _ = split_image(image)
    parts = name.lower().split("/")
    if len(parts) > 1 and ("." in parts[0] or ":" in parts[0] or parts[0] == "localhost"):
        parts = parts[1:]
    if len(parts) > 1 and parts[0] == "library":
        parts = parts[1:]
    return "/".join(parts)


def _docker_declarations(tree: TreeIndex, lines: _Lines) -> list[_Declaration]:
    found = []
    for path in _dockerfiles(tree.files):
        df = tree.dockerfile(path)
        if df is None:
            continue
        python_run = next((r for r in df.runs() if _CONDA_PYTHON_SPEC_RE.search(r.args)), None)
        for stage in df.stages:
            image = stage.image
            repository = _image_repository(image)
            _, tag, _ = split_image(image)
            language = None
            if repository in ("python", "pypy"):
                language = "python" if versioned_tag(image) else None
            elif repository == "r-base" or repository.startswith("rocker/"):
                language = "r" if versioned_tag(image) else None
            elif repository == "julia":
                language = "julia" if versioned_tag(image) else None
            elif repository.startswith("jupyter/"):
                language = "python" if tag and _JUPYTER_PYTHON_TAG_RE.search(tag.lower()) else None
            elif repository in _CONDA_IMAGES and versioned_tag(image) and python_run is not None:
                language = "python"
            if language is None:
                continue
            spec = tag or ""
            source = "dockerfile"
            snippet = lines.get(path, stage.line)
            if repository in _CONDA_IMAGES and python_run is not None:
                spec = _CONDA_PYTHON_SPEC_RE.search(python_run.args).group(0)
                source = "dockerfile-conda"
                snippet = f"FROM {image} … RUN (line {python_run.line_start}) {spec}"
            found.append(_Declaration(path, language, spec, stage.line, source, snippet,
                                      min(stage.arg_lines) if stage.arg_lines else None))
    return found


def _interpreter_declarations(tree: TreeIndex) -> list[_Declaration]:
    found: list[_Declaration] = []
    lines = _Lines(tree)

    def add(path: str, decl: InterpreterDecl, manifest: Manifest | None = None) -> None:
        # A declaration names a version: `python` alone in environment.yml or `*` in Poetry does not.
        if decl.spec and _HAS_DIGIT_RE.search(decl.spec):
            found.append(
                _Declaration(
                    path,
                    decl.language,
                    decl.spec.strip(),
                    decl.line,
                    decl.source,
                    lines.get(path, decl.line),
                    _opening_line(manifest, decl.line),
                )
            )

    for manifest in tree.manifests():
        for decl in manifest.interpreters:
            add(manifest.path, decl, manifest)
    # packrat.lock RVersion, a Pluto notebook's embedded julia_version, a MATLAB toolbox
    # project's release (§0.3)
    projects = matlab_projects(tree) if "matlab" in _fact_languages(tree) else []
    for manifest in (*packrat_locks(tree), *pluto_environments(tree), *projects):
        for decl in manifest.interpreters:
            add(manifest.path, decl)
    for path in _env_files(tree):
        if _VERSION_FILE_RE.fullmatch(_name(path)):
            for decl in tree.version_file(path):
                add(path, decl)
    found += _docker_declarations(tree, lines)
    found += _native_declarations(tree)
    found += _matlab_declarations(tree)
    found += _workflow_declarations(tree, lines)
    return found


def _native_declarations(tree: TreeIndex) -> list[_Declaration]:
    """Language standards a compiled code's build declares, and compiler versions its
    README states (§0.3 native E4)."""
    native = _fact_languages(tree) & NATIVE_LANGUAGES
    if not native:
        return []
    language = main_native_language(tree, native)
    found = []
    for path in _native_build_files(tree):
        build = tree.native_build(path)
        if build is not None:
            found += [
                _Declaration(path, _standard_language(s.text, native), s.text, s.line, f"{build.kind}-standard", s.text)
                for s in build.standards
            ]
    for path, facts in _all_facts(tree).items():
        if facts.language == "python" and _PYTHON_BUILD_SCRIPT_RE.fullmatch(_name(path)):
            for string in facts.strings:
                flag = _STD_FLAG_RE.search(string.value)
                if flag:
                    found.append(_Declaration(path, language, flag.group(0), string.line_start,
                                              "build-script-standard", tree.snippet(path, string.line_start)))
                    break
    document = tree.readme_document()
    for stated in stated_compilers(document) if document is not None else ():
        found.append(_Declaration(tree.readme, _compiler_language(stated.compiler, native, language),
                                  f"{stated.compiler} {stated.version}", stated.line, "readme-compiler",
                                  stated.text))
    return found


# Compilers of one language; the others (gcc, clang, Intel…) compile what the deposit holds.
_FORTRAN_COMPILERS = re.compile(r"gfortran|ifort|ifx|nvfortran|pgfortran|nagfor|flang|xlf|.*fortran|nag", re.IGNORECASE)


def _compiler_language(compiler: str, native: frozenset[str], main: str) -> str:
    """The language a stated compiler version is for: Fortran for a Fortran compiler, else
    the deposit's main native language (a Fortran compiler in a C tree still declares)."""
    if _FORTRAN_COMPILERS.fullmatch(compiler) and "fortran" in native:
        return "fortran"
    return main


def _standard_language(text: str, native: frozenset[str]) -> str:
    """The language a standard declaration is for (`CMAKE_CXX_STANDARD`, `-std=c++11` → C++),
    one the deposit uses."""
    lower = text.lower()
    if "cxx" in lower or "c++" in lower or "cpp" in lower or "gnu++" in lower:
        guess = "cpp"
    elif "fortran" in lower or re.search(r"=f\d", lower):
        guess = "fortran"
    else:
        guess = "c"
    return guess if guess in native else sorted(native)[0]


def _matlab_declarations(tree: TreeIndex) -> list[_Declaration]:
    """The MATLAB/Octave release the README states (§0.3 MATLAB E4)."""
    if "matlab" not in _fact_languages(tree) or not tree.readme:
        return []
    return [
        _Declaration(tree.readme, "matlab", f"{s.product} {s.release}", s.line, "readme-release", s.text)
        for s in tree.stated_releases(tree.readme)
    ]


def _workflow_declarations(tree: TreeIndex, lines: _Lines) -> list[_Declaration]:
    """manifest.nextflowVersion, Snakemake min_version(), and the interpreter pinned in
    the conda environments the workflow's steps run in (§0.3 workflows E4)."""
    view = _workflows(tree)
    if not view.engines:
        return []
    engine = sorted(view.engines)[0]
    found = [
        _Declaration(path, engine, text, line, "workflow-engine-version", lines.get(path, line))
        for path, line, text in view.version_declarations
    ]
    for path in view.environment_files:
        manifest = tree.conda_environment(path)
        for decl in manifest.interpreters if manifest is not None else ():
            if decl.spec and _HAS_DIGIT_RE.search(decl.spec):
                # The step's environment is the workflow's: count it for the workflow language.
                found.append(_Declaration(path, engine, f"{decl.language} {decl.spec.strip()}", decl.line,
                                          "workflow-conda", lines.get(path, decl.line),
                                          _opening_line(manifest, decl.line)))
    return found


# Whose fix to suggest when the deposit's own ecosystem declares nothing it uses: the
# workflow engine or the less common ecosystem first.
_FIX_ORDER = ("nextflow", "snakemake", "matlab", "r", "julia", "python", "cpp", "c", "fortran")
_FIXES = {
    "nextflow": "Declare the Nextflow version: add `nextflowVersion = '>=23.04.0'` to the manifest scope of "
                "nextflow.config.",
    "snakemake": 'Declare the Snakemake version: call `min_version("8.0")` (from snakemake.utils) at the top of '
                 "the Snakefile.",
    "matlab": "State the MATLAB (or Octave) release the code runs on in the README, e.g. \"Requires MATLAB R2022b "
              "or newer\".",
    "cpp": "Declare the language standard in the build: `set(CMAKE_CXX_STANDARD 17)` in CMakeLists.txt, a "
           "`-std=c++17` flag in the Makefile, or meson's `cpp_std=c++17`; or state the compiler version the code "
           "was tested with in the README (\"Tested with GCC 12.2\").",
    "c": "Declare the language standard in the build: `set(CMAKE_C_STANDARD 11)` in CMakeLists.txt, a `-std=c11` "
         "flag in the Makefile, or meson's `c_std=c11`; or state the compiler version the code was tested with in "
         "the README (\"Tested with GCC 12.2\").",
    "fortran": "Declare the Fortran standard in the build: a `-std=f2008` flag in the Makefile or CMake's "
               "`target_compile_options`, or meson's `fortran_std=f2008`; or state the compiler version the code "
               "was tested with in the README (\"Tested with gfortran 12.2\").",
    "r": "Record the R version: commit renv.lock (`renv::snapshot()`) or add `Depends: R (>= 4.x)` to DESCRIPTION.",
    "julia": 'Declare the Julia version: add `julia = "1.x"` under [compat] in Project.toml, or commit '
             "Manifest.toml.",
    "python": 'Declare the Python version: add `requires-python = ">=3.x"` under [project] in pyproject.toml, '
              "or a .python-version file.",
}


def _version_fix(tree: TreeIndex, used: Sequence[str]) -> str:
    """The declaration to add, in the deposit's own ecosystem (§0.3) when it uses that
    language, else for the first undeclared language by :data:`_FIX_ORDER`."""
    ecosystem = fix_ecosystem_checked(tree)
    if ecosystem == "native":
        native = frozenset(used) & NATIVE_LANGUAGES
        language = main_native_language(tree, native) if native else None
    else:
        language = ecosystem if ecosystem in used else None
    if language is None:
        language = next((lang for lang in _FIX_ORDER if lang in used), "python")
    return _FIXES[language]


# a workflow's own declaration (the engine's version) before the interpreters its steps' conda
# environments pin
_SOURCE_RANK = {"workflow-engine-version": 0}


def _own_ecosystem_first(tree: TreeIndex, counted: list[_Declaration]) -> list[_Declaration]:
    """The declarations with those of the deposit's own ecosystem first (§0.3 E4): a
    MATLAB deposit's stated release before the compiler its MEX build needs, a
    Snakemake workflow's `min_version()` before a step's conda python; otherwise in the
    order found."""
    ecosystem = fix_ecosystem_checked(tree)
    if ecosystem == "native":
        native = frozenset(d.language for d in counted) & NATIVE_LANGUAGES
        own = main_native_language(tree, native) if native else ""
    else:
        own = ecosystem
    return sorted(counted, key=lambda d: (d.language != own, _SOURCE_RANK.get(d.source, 1)))


def _rule_suffix(source: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", source.lower()).strip("_")


@detector("python_version_declared", version="2.5.0")
def python_version_declared(tree: TreeIndex) -> Result:
    """The language or runtime version the code needs is declared (Python, R, Julia, MATLAB, C/C++/Fortran, workflows).

    What it checks:
        100 when an environment location declares a version or constraint
        of the interpreter of a language the repository's sources use: .python-version
        or runtime.txt with version-like content; requires-python; Poetry `python`;
        setup.py/setup.cfg python_requires; Pipfile python_version/python_full_version;
        a conda `python` or `r-base` spec with an operator; uv.lock requires-python;
        .tool-versions or mise.toml; a pixi.toml `python` dependency; renv.lock R version,
        packrat.lock `RVersion:` (packrat/ or an environment location); DESCRIPTION `R (>=
        …)`; Project.toml [compat] julia; Manifest.toml julia_version, also the one a Pluto
        notebook embeds (PLUTO_MANIFEST_TOML_CONTENTS); or a Dockerfile FROM
        of a language image with a \\d+.\\d+ tag (python, r-base, rocker/*, julia,
        jupyter/* with a python-X.Y tag, conda images only together with an explicit
        python spec in a RUN). Per ecosystem (§0.3): Julia also a versioned
        Manifest-v1.10.toml's julia_version; MATLAB/Octave the release the README states
        (`MATLAB R2019b or newer`, `tested in version r2016a`, `Octave 5.2.0`; not in a
        changelog: a "Version history"/"Changelog"/"Release notes"/"News" section or a
        line opening with a version tag, `v2.4 - fix … for Matlab 2020a`, is history,
        not a requirement) or a toolbox packaging project (`*.prj`, `<param.release.start>R2019b</…>`) names;
        C/C++/Fortran the language standard the build declares (CMake
        `set(CMAKE_<LANG>_STANDARD N)`, a `<LANG>_STANDARD` property,
        `target_compile_features(… cxx_std_N)`, a `-std=` flag in CMake, Make, meson or
        a configure*.py build script, meson `c_std=`/`cpp_std=`/`fortran_std=`; the Make
        files are the Makefiles and the files a Makefile includes for one platform or
        compiler, `*.mk`, `make.inc`, `make.inc.<compiler>`, `make.sys`, `arch.make`,
        wherever the deposit keeps them, a CI build's own too: 2.3.0, wannier90's
        `.github/workflows/config/make.inc.gfort` `-std=f2008`), or a
        compiler version the README's prose states ("Tested with GCC 11.2", "the Intel
        Fortran compiler 13.1.0 and greater", "gfortran 4.9", "GCC-13"; a vendor name
        such as Intel or NAG needs a dotted version or a year, so "Intel 64" is none;
        "a Fortran 95 compiler" names a language, no compiler version, and is none);
        Nextflow `manifest.nextflowVersion`; Snakemake `min_version(…)` (also in a
        Python module of the workflow); the interpreter pinned in a conda environment
        file a workflow step runs in, wherever it is. A declaration must contain a
        digit. Otherwise 0. The metric has no labelled levels, so the level is null
        (§0.1.4).
    Why it matters:
        Language releases change semantics and drop support for packages (dict order,
        integer division, removed modules; R's stringsAsFactors default); without the
        version the rerun guesses, and pinned dependencies may not install at all.
    Evidence:
        File, line and declared constraint for each counted declaration, those of the
        deposit's own ecosystem first (2.3.0: a MATLAB deposit's stated release before
        the compiler its MEX files need, a workflow's `min_version()` or
        `nextflowVersion` before the interpreters its steps' conda environments pin),
        otherwise in the order found (from the
        `Depends:` field or `dependencies:` key when the interpreter is an entry of a
        dependency list, from the ARG line when a FROM takes its image from an ARG);
        declarations for languages the code does not use are listed as not counted.
        Counts: n_declarations, n_languages, n_languages_declared.
    How to fix:
        Python: `requires-python = ">=3.x"` in pyproject.toml or a .python-version file;
        R: renv.lock or `Depends: R (>= 4.x)`; Julia: `[compat] julia = "1.x"`; MATLAB:
        state the release in the README; C/C++/Fortran: `set(CMAKE_CXX_STANDARD 17)` or
        a `-std=` flag; Nextflow: `nextflowVersion` in the manifest; Snakemake:
        `min_version("8.0")`. The fix names the deposit's own ecosystem first (§0.3):
        Fortran gets `-std=f2008`, C `CMAKE_C_STANDARD`, C++ `CMAKE_CXX_STANDARD`, or a
        stated compiler version.
    Known false positives:
        A loose lower bound (`>=3`) counts as much as an exact version. A declaration
        for one language satisfies the metric in a mixed Python and R repository. A
        Dockerfile image tag is taken at face value, also for a stage that is not the
        one that runs the code. A compiler version in README prose counts whatever the
        sentence says about it; one written only as inline code is not read.
    """
    languages = _fact_languages(tree)
    used = [lang for lang in _DECLARABLE_LANGUAGES if lang in languages]
    declarations = _interpreter_declarations(tree)
    counted = _own_ecosystem_first(tree, [d for d in declarations if d.language in used])
    ignored = [d for d in declarations if d.language not in used]
    declared_languages = sorted({d.language for d in counted})
    counts = {
        "n_declarations": len(counted),
        "n_languages": len(used),
        "n_languages_declared": len(declared_languages),
    }
    evidence = [
        Evidence(
            d.path,
            f"{_language_name(d.language)} {d.spec} declared ({d.source})",
            rule=f"python_version_declared.{_rule_suffix(d.source)}",
            line_start=d.first_line or d.line,
            line_end=d.line if d.first_line else None,
            snippet=d.snippet,
        )
        for d in counted
    ]
    evidence += [
        Evidence(
            d.path,
            f"{_language_name(d.language)} {d.spec} declared, but the repository has no "
            f"{_language_name(d.language)} sources (not counted)",
            rule="python_version_declared.unused_language",
            line_start=d.first_line or d.line,
            line_end=d.line if d.first_line else None,
            snippet=d.snippet,
        )
        for d in ignored
    ]
    evidence = evidence[:MAX_EVIDENCE]
    if counted:
        first = counted[0]
        return Result(
            100,
            level=None,
            evidence=evidence,
            reason=f"{first.path}: {_language_name(first.language)} {first.spec} ({first.source})",
            counts=counts,
        )
    if not used:
        reason = "no sources of a language whose version can be declared"
    else:
        names = " or ".join(_language_name(lang) for lang in used)
        reason = f"no {names} version declared"
    return Result(
        0, level=None, evidence=evidence, reason=reason, fix=_version_fix(tree, used), counts=counts
    )
