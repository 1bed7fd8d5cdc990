"""E1 dep_pinning: dependencies are locked or pinned to exact versions."""

from __future__ import annotations

import re
from dataclasses import dataclass

from scoring.detectors.environment._common import (
    MAX_EVIDENCE,
    _env_files,
    _join_names,
    _language_name,
    _name,
)
from scoring.model import Evidence
from scoring.parsers.manifests import (
    PIN_BOUNDED,
    PIN_EXACT,
    PIN_UNPINNED,
    Manifest,
    score_manifest,
)
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


def _lockfiles(tree: TreeIndex) -> list[_Lockfile]:
    found = []
    for path in _env_files(tree):
        ecosystem = _lockfile_ecosystem(tree, path)
        if ecosystem is None:
            continue
        info = tree.info(path)
        # An empty lockfile pins nothing (a placeholder or a failed `lock` run).
        if info is None or info.size == 0:
            continue
        if ecosystem == "js":
            relevant = tree.has_js_lockfile_relevance()
        else:
            relevant = ecosystem in tree.languages
        found.append(_Lockfile(path, ecosystem, relevant))
    return found


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


def _manifest_summary(scored: _Scored, considered: bool) -> Evidence:
    m = scored.manifest
    pins = [d.pin for d in m.dependencies]
    tally = (
        f"{pins.count(PIN_EXACT)} exact, {pins.count(PIN_BOUNDED)} bounded, "
        f"{pins.count(PIN_UNPINNED)} unpinned of {len(pins)} entries"
    )
    if m.unknown:
        tally += "; dependencies not a literal (unknown)"
    if considered:
        reason = f"{m.kind} manifest scores {scored.value:g} ({scored.level}): {tally}"
        rule = "dep_pinning.manifest"
    else:
        reason = f"{m.kind} manifest ignored (development/test/docs only while a runtime manifest exists): {tally}"
        rule = "dep_pinning.manifest_aux"
    return Evidence(m.path, reason, rule=rule)


def _entry_evidence(m: Manifest, room: int) -> list[Evidence]:
    """Entries of ``m``, the ones that need fixing first when there is no room for all."""
    if room <= 0:
        return []
    deps = list(m.dependencies)
    if len(deps) > room:
        deps = sorted(deps, key=lambda d: d.pin == PIN_EXACT)[:room]
        deps.sort(key=lambda d: (d.file or m.path, d.line or 0))
    items = []
    for dep in deps:
        spec = dep.spec or "(no version constraint)"
        items.append(
            Evidence(
                dep.file or m.path,
                f"{dep.name} {spec}: {_pin_label(dep.pin)}",
                rule=f"dep_pinning.{dep.pin}",
                line_start=dep.line,
                snippet=dep.raw,
            )
        )
    return items


def _dep_fix(tree: TreeIndex, m: Manifest | None) -> str:
    """One sentence naming the packages to pin and the tool that writes the pins."""
    kind = m.kind if m is not None else ""
    loose = [d.name for d in m.dependencies if d.pin != PIN_EXACT] if m is not None else []
    if kind == "description" or (m is None and tree.languages == frozenset({"r"})):
        why = f" ({m.path} bounds {_join_names(loose)} only loosely)" if loose and m else ""
        return f"Run `renv::snapshot()` and commit renv.lock{why}."
    if kind == "julia-project" or (m is None and tree.languages == frozenset({"julia"})):
        why = f" ({m.path} bounds {_join_names(loose)} only loosely)" if loose and m else ""
        return f"Commit the Manifest.toml that `Pkg.instantiate()` writes{why}."
    if m is None:
        return (
            "Declare the dependencies with exact versions in requirements.txt "
            "(`pip freeze > requirements.txt`) or commit a lockfile (`uv lock`)."
        )
    tool = {
        "conda": "`conda env export --no-builds` or `conda-lock`",
        "pyproject": "`uv lock` / `poetry lock`",
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


@detector("dep_pinning", version="2.0.0")
def dep_pinning(tree: TreeIndex) -> Result:
    """Dependencies are locked or pinned to exact versions.

    What it checks:
        100 (lockfile) when an environment location (root, binder/, .binder/,
        requirements/, env/, Dockerfile folders) holds a non-empty lockfile of an
        ecosystem the repository uses: uv.lock, poetry.lock, Pipfile.lock, pdm.lock,
        pixi.lock, conda-lock.yml / *.conda-lock.yml or an `@EXPLICIT` conda spec when
        Python sources exist; renv.lock with R sources; Manifest.toml with Julia sources;
        package-lock.json, yarn.lock, pnpm-lock.yaml only when the analysis code is
        JavaScript (no Python, R or Julia sources). Otherwise every manifest in those
        locations is parsed (requirements files following -r/-c, pyproject.toml
        [project] and Poetry main group, setup.cfg, literal setup.py, Pipfile
        [packages], environment.yml with its pip list, DESCRIPTION, Project.toml) and
        each entry classed exact (one ==/=== clause without a wildcard, a commit pin, a
        conda export pin), bounded (any other constraint) or unpinned. A manifest scores
        80 (all_exact) when every entry is exact, round(50 + 20·f) half-even (partial)
        with f = (n_exact + 0.5·n_bounded) / n_entries when some entry is constrained,
        and 20 (unpinned) when none is or it has no entries. The best manifest wins.
        Development, test and docs manifests (requirements-dev.txt, docs/…) count only
        when no runtime manifest declares anything. No manifest: 0 (absent).
    Why it matters:
        Unpinned dependencies resolve to whatever is newest on the day of the rerun;
        APIs and numerical defaults change between releases, so the same code can
        silently compute something else or fail to import. A lockfile records the whole
        resolved environment, transitive dependencies included.
    Evidence:
        The lockfile path; one item per manifest with its score and pin tally; for the
        best manifest one item per entry (line, name, specifier, class), entries needing
        a fix first when more than fit; ignored lockfiles of unused ecosystems. Counts:
        n_entries, n_exact, n_bounded, n_unpinned of the best manifest, n_manifests,
        n_lockfiles.
    How to fix:
        Commit a lockfile (`uv lock`, `poetry lock`, `pdm lock`, `conda-lock`,
        `renv::snapshot()`, Julia's Manifest.toml), or pin every dependency exactly
        (`pip freeze > requirements.txt`, `conda env export --no-builds`).
    Known false positives:
        A lockfile is credited on existence: a stale lockfile that no longer matches the
        manifest still scores 100. Conda lock formats count for Python only. A
        `==` pin does not fix transitive dependencies, yet scores 80. Manifests of an
        ecosystem the code does not use (a stray DESCRIPTION in a Python project) are
        scored like the others.
    """
    lockfiles = _lockfiles(tree)
    used_locks = [lock for lock in lockfiles if lock.relevant]
    unused_locks = [lock for lock in lockfiles if not lock.relevant]

    manifests = tree.manifests()
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

    evidence: list[Evidence] = [
        Evidence(
            lock.path,
            f"lockfile of the {_language_name(lock.ecosystem)} ecosystem",
            rule="dep_pinning.lockfile",
        )
        for lock in used_locks
    ]
    evidence += [
        Evidence(
            lock.path,
            f"lockfile ignored: the repository has no {_language_name(lock.ecosystem)} analysis code",
            rule="dep_pinning.lockfile_unused",
        )
        for lock in unused_locks
    ]
    considered_ids = {id(s) for s in considered}
    # The deciding manifest first, so the summary cap never hides it.
    ordered = sorted(scored, key=lambda s: s is not best)
    evidence += [
        _manifest_summary(s, id(s) in considered_ids) for s in ordered[: MAX_EVIDENCE // 4]
    ]
    evidence = evidence[:MAX_EVIDENCE]
    if best is not None and not used_locks:
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
    if best is None:
        return Result(
            0,
            level="absent",
            evidence=evidence,
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
