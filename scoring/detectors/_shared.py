"""What detectors of several categories need alike: the ecosystem a fix is written for,
and the names the deposit gives itself.

A fix suggestion names the deposit's own tools (METRICS.md §0.3: ``renv::snapshot()``,
``Pkg.instantiate()``, a ``container`` directive, ``cmake``), never Python advice for an
R, Julia, MATLAB, native or workflow tree. ``fix_ecosystem`` says which ecosystem that
is, once, from the tree's ecosystems (:mod:`scoring.ecosystems`); each detector keeps its
own table of texts per ecosystem.
"""

from __future__ import annotations

import re

from scoring.facts import Expr
from scoring.parsers.manifests import normalize_name
from scoring.tree import TreeIndex

# The ecosystems a fix text is written for.
PYTHON, R, JULIA, MATLAB, NATIVE, NEXTFLOW, SNAKEMAKE = (
    "python", "r", "julia", "matlab", "native", "nextflow", "snakemake")
FIX_ECOSYSTEMS = (PYTHON, R, JULIA, MATLAB, NATIVE, NEXTFLOW, SNAKEMAKE)
WORKFLOW_ECOSYSTEMS = frozenset({NEXTFLOW, SNAKEMAKE})

_SETUP_PY_NAME = re.compile(r"[A-Za-z0-9][\w.-]*")

# scoring.ecosystems names -> fix ecosystem (shell, Make, conda and containers describe no
# language of their own)
_BY_NAME = {
    "Python": PYTHON, "R": R, "Julia": JULIA, "MATLAB/Octave": MATLAB, "C/C++": NATIVE, "Fortran": NATIVE,
    "Nextflow": NEXTFLOW, "Snakemake": SNAKEMAKE,
}


_DOC_SUFFIXES = frozenset({"", ".md", ".markdown", ".rst", ".txt", ".rest"})
_CONTRIBUTING_RE = re.compile(r"contributing.*", re.IGNORECASE)
_CONTRIBUTING_OR_INSTALL_RE = re.compile(r"(?:contributing|install).*", re.IGNORECASE)


def setup_documents(tree: TreeIndex) -> list[str]:
    """The documents whose commands count like the README's, as METRICS §0.3 (Python
    libraries) names them: the README, CONTRIBUTING* (at the root, or in .github/ where
    GitHub shows the same file), docs/contributing* and docs/install*; prose documents
    only. E3 reads their set-up commands, C2 the environment files they create."""
    found = [tree.readme] if tree.readme else []
    for folder, pattern in (("", _CONTRIBUTING_RE), (".github", _CONTRIBUTING_RE), ("docs", _CONTRIBUTING_OR_INSTALL_RE)):
        if folder == "" or tree.is_dir(folder):
            found += [p for p in tree.match(pattern, folder) if _doc_suffix(p) in _DOC_SUFFIXES]
    return list(dict.fromkeys(found))


def _doc_suffix(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""


def resolve_in_folder(folder: str, relative: str) -> str | None:
    """``relative`` resolved against ``folder`` (both repository-relative, ``/``-separated):
    empty and ``.`` segments dropped, ``..`` climbing; None when it climbs out of the
    repository. Whether an absolute path or a backslash is acceptable is the caller's
    rule, not this one's."""
    parts: list[str] = [part for part in folder.split("/") if part not in ("", ".")]
    for part in relative.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                return None
            parts.pop()
        else:
            parts.append(part)
    return "/".join(parts)


def fix_ecosystem(tree: TreeIndex) -> str:
    """The ecosystem a fix for ``tree`` is written in: a workflow engine when the tree has
    its files (a Snakemake workflow whose steps run Python scripts is a workflow deposit),
    else the language with the most source files (C/C++ and Fortran together are
    ``native``), Python when the tree has no sources of any of them."""
    counts: dict[str, int] = {}
    for ecosystem in tree.ecosystems:
        key = _BY_NAME.get(ecosystem.name)
        if key is not None and ecosystem.files:
            counts[key] = counts.get(key, 0) + ecosystem.files
    workflows = [key for key in (NEXTFLOW, SNAKEMAKE) if counts.get(key)]
    if workflows:
        return max(workflows, key=lambda key: counts[key])
    if not counts:
        return PYTHON
    # ties go to the order of FIX_ECOSYSTEMS (Python first)
    return max(FIX_ECOSYSTEMS, key=lambda key: (counts.get(key, 0), -FIX_ECOSYSTEMS.index(key)))


def own_project_names(tree: TreeIndex) -> frozenset[str]:
    """The names the deposit gives itself in its root metadata, normalised
    (:func:`scoring.parsers.manifests.normalize_name`): ``[project].name`` and Poetry's
    name of pyproject.toml, setup.cfg's ``[metadata] name``, setup.py's ``setup(name=…)``
    (a module-level name it passes resolved), the name CMake's or meson's ``project()``
    gives the root build, fpm.toml's ``name``, DESCRIPTION's ``Package``, Project.toml's
    ``name`` and the stem of a root ``*.Rproj``. An install or a container image of one of
    these names is the deposit's own (D2, E3)."""
    names: set[str] = set()
    pyproject = tree.find_ci("pyproject.toml")
    data = tree.toml(pyproject) if pyproject else None
    if isinstance(data, dict):
        project = data.get("project")
        if isinstance(project, dict) and isinstance(project.get("name"), str):
            names.add(project["name"])
        tool = data.get("tool")
        poetry = tool.get("poetry") if isinstance(tool, dict) else None
        if isinstance(poetry, dict) and isinstance(poetry.get("name"), str):
            names.add(poetry["name"])
    setup_cfg = tree.find_ci("setup.cfg")
    sections = tree.ini(setup_cfg) if setup_cfg else None
    name = (sections or {}).get("metadata", {}).get("name")
    if name is not None:
        names.add(name)
    setup_py = tree.find_ci("setup.py")
    facts = tree.facts(setup_py) if setup_py else None
    if facts is not None:
        # the name= of the setup() call, never an Extension(name=…) (METRICS §0.3 Python
        # libraries); ``setup(name=NAME)`` with ``NAME = "emcee"`` above: the literal bound
        # to that name; no setup() call read: the first literal bound to ``name``
        given = [value for call in facts.calls if call.name.rsplit(".", 1)[-1] == "setup"
                 for key, value in call.kwargs if key == "name"]
        if given and isinstance(given[0], str):
            name = given[0] if _SETUP_PY_NAME.fullmatch(given[0]) else None
        elif given and isinstance(given[0], Expr):
            bound = given[0].text.strip()
            name = next((s.value for s in facts.strings if s.binding == bound and _SETUP_PY_NAME.fullmatch(s.value)),
                        None)
        else:
            name = next((s.value for s in facts.strings if (s.binding == "name" or s.binding.endswith(".name"))
                         and _SETUP_PY_NAME.fullmatch(s.value)), None)
        if name:
            names.add(name)
    # a native code's name: CMake's or meson's project() of the root build (mrchem, xtb),
    # fpm's package name (json-fortran)
    for build_file in ("CMakeLists.txt", "meson.build"):
        path = tree.find_ci(build_file)
        build = tree.native_build(path) if path else None
        if build is not None and build.project:
            names.add(build.project)
    fpm = tree.find_ci("fpm.toml")
    data = tree.toml(fpm) if fpm else None
    if isinstance(data, dict) and isinstance(data.get("name"), str):
        names.add(data["name"])
    description = tree.find_ci("DESCRIPTION")
    fields = tree.description_fields(description) if description else None
    if fields and fields.get("Package"):
        names.add(fields["Package"])
    julia = tree.find_ci("Project.toml")
    data = tree.toml(julia) if julia else None
    if isinstance(data, dict) and isinstance(data.get("name"), str):
        names.add(data["name"])
    names.update(p.rsplit("/", 1)[-1][:-len(".rproj")] for p in tree.files_in("") if p.lower().endswith(".rproj"))
    return frozenset(normalize_name(n) for n in names if n.strip())
