"""Category E, environment specification (METRICS.md E1–E4).

Can the computational environment be reconstructed? Four detectors look at what a
deposit declares about its environment: how tightly dependencies are pinned (E1), whether
a container definition exists (E2), whether one command creates the environment (E3),
and whether the interpreter version is declared (E4).

All four read only conventional files (manifests, lockfiles, container definitions, task
files, the README) through the tree index: no source file is scanned here, so the cost is
a handful of small reads per tree.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from scoring.model import Evidence
from scoring.parsers.dockerfile import (
    is_pinned_image,
    parse_singularity,
    score_dockerfile,
    score_singularity,
    split_image,
    versioned_tag,
)
from scoring.parsers.manifests import (
    PIN_BOUNDED,
    PIN_EXACT,
    PIN_UNPINNED,
    InterpreterDecl,
    Manifest,
    interpreters_from_version_file,
    is_explicit_conda_spec,
    score_manifest,
)
from scoring.parsers.shell import Command, command_lines, split_commands, strip_prompt
from scoring.registry import Result, detector
from scoring.tree import TreeIndex

# Evidence lists stay short enough to read; totals always go to ``counts``.
MAX_EVIDENCE = 20

# --------------------------------------------------------------------------- shared helpers


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
    """Lines of files for snippets, each file split once per detector run (a hostile
    Dockerfile may have thousands of FROM lines). Numbered as the manifest and Dockerfile
    parsers number them: newlines only, where ``str.splitlines`` would also break on form
    feeds."""

    def __init__(self, tree: TreeIndex) -> None:
        self._tree = tree
        self._split: dict[str, list[str]] = {}

    def get(self, path: str, line: int | None) -> str | None:
        if not line:
            return None
        if path not in self._split:
            text = self._tree.text(path) or ""
            self._split[path] = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        lines = self._split[path]
        return lines[line - 1] if 0 < line <= len(lines) else None


def _join_names(names: Sequence[str], limit: int = 5) -> str:
    shown = ", ".join(names[:limit])
    return shown + (", …" if len(names) > limit else "")


# --------------------------------------------------------------------------- E1 dep_pinning

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

_LANGUAGE_NAMES = {"python": "Python", "r": "R", "julia": "Julia", "js": "JavaScript"}


def _language_name(language: str) -> str:
    return _LANGUAGE_NAMES.get(language, language)


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
    if lower.endswith(".txt") and is_explicit_conda_spec(tree.text(path) or ""):
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


# --------------------------------------------------------------------------- container files (E2, E4)

# Dockerfile, Dockerfile.<variant>, <variant>.Dockerfile, Containerfile (§2.3: case-insensitive);
# Dockerfile-gpu / Dockerfile_cpu are as common as Dockerfile.gpu and are Dockerfiles too.
_DOCKERFILE_RE = re.compile(
    r"(?:dockerfile|containerfile)(?:[._-][^/]+)?|[^/]+\.dockerfile", re.IGNORECASE
)
# Dockerfile.md and friends document a Dockerfile; they are not one.
_DOC_SUFFIX_RE = re.compile(r".+\.(?:md|markdown|rst|html?|pdf|png|jpe?g|svg)", re.IGNORECASE)
_COMPOSE_RE = re.compile(r"(?:docker-)?compose(?:\.[^/]+)?\.ya?ml", re.IGNORECASE)
_SINGULARITY_RE = re.compile(r"singularity(?:\..+)?|.+\.def", re.IGNORECASE)


# A name of any of the three kinds: one scan of the tree finds the candidates of all of them.
_CONTAINER_NAME_RE = re.compile(
    "|".join(kind.pattern for kind in (_DOCKERFILE_RE, _COMPOSE_RE, _SINGULARITY_RE)), re.IGNORECASE
)


def _named(paths: Iterable[str], pattern: re.Pattern[str]) -> list[str]:
    """The paths whose name fully matches ``pattern``, in their order."""
    return [p for p in paths if pattern.fullmatch(_name(p))]


def _dockerfiles(paths: Iterable[str]) -> list[str]:
    """The Dockerfiles among ``paths`` (documents named after one excluded)."""
    return [p for p in _named(paths, _DOCKERFILE_RE) if not _DOC_SUFFIX_RE.fullmatch(_name(p))]


@dataclass
class _ContainerScore:
    path: str
    value: int
    level: str
    reason: str
    evidence: list[Evidence]
    line: int | None = None  # the line a fix should touch (the unpinned FROM)


def _score_dockerfile_file(tree: TreeIndex, path: str, lines: _Lines) -> _ContainerScore | None:
    df = tree.dockerfile(path)
    if df is None:
        return None
    for problem in df.problems[:5]:
        tree.problem(path, f"Dockerfile: {problem}")
    value, level, reason = score_dockerfile(df)
    evidence = []
    _, final_stage = df.final_base()
    for stage in df.stages[:5]:
        alias = f" AS {stage.alias}" if stage.alias else ""
        role = "final base" if stage is final_stage else "stage"
        pin = "pinned" if is_pinned_image(stage.image) else "not pinned"
        evidence.append(
            Evidence(
                path,
                f"FROM {stage.image or '(unresolved)'}{alias}: {role}, {pin}",
                rule="container_spec.from",
                line_start=stage.line,
                snippet=lines.get(path, stage.line),
            )
        )
    runs = df.runs()
    if runs:
        first = runs[0]
        evidence.append(
            Evidence(
                path,
                f"{len(runs)} RUN instruction(s); first shown",
                rule="container_spec.run",
                line_start=first.line_start,
                line_end=first.line_end,
                snippet="RUN " + first.args.split("\n", 1)[0],
            )
        )
    if not df.stages:
        evidence.append(
            Evidence(path, "Dockerfile without a FROM instruction", rule="container_spec.no_from")
        )
    line = final_stage.line if final_stage is not None else None
    return _ContainerScore(path, value, level, reason, evidence, line)


def _compose_dockerfiles(tree: TreeIndex, path: str) -> list[str]:
    """Dockerfiles that the ``build:`` entries of a compose file point to."""
    data = tree.yaml(path)
    services = data.get("services") if isinstance(data, dict) else None
    if not isinstance(services, dict):
        return []
    base = path.rsplit("/", 1)[0] if "/" in path else ""
    found = []
    for service in services.values():
        build = service.get("build") if isinstance(service, dict) else None
        if isinstance(build, str):
            context, dockerfile = build, "Dockerfile"
        elif isinstance(build, dict):
            context = build.get("context", ".")
            dockerfile = build.get("dockerfile", "Dockerfile")
        else:
            continue
        if not isinstance(context, str) or not isinstance(dockerfile, str) or "://" in context:
            continue
        target = _normalise(f"{base}/{context}/{dockerfile}" if base else f"{context}/{dockerfile}")
        if target and tree.is_file(target):
            found.append(target)
    return found


def _normalise(path: str) -> str | None:
    """A repository-relative path with ``.`` and ``..`` resolved; None if it leaves the root."""
    parts: list[str] = []
    for part in path.replace("\\", "/").split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                return None
            parts.pop()
        else:
            parts.append(part)
    return "/".join(parts) or None


def _score_compose_file(
    tree: TreeIndex, path: str, by_path: dict[str, _ContainerScore], lines: _Lines
) -> _ContainerScore | None:
    text = tree.text(path)
    if not text or not text.strip():
        return None
    result = _ContainerScore(
        path,
        80,
        "other_container",
        "compose file",
        [Evidence(path, "compose file", rule="container_spec.compose")],
    )
    for target in _compose_dockerfiles(tree, path):
        built = by_path.get(target) or _score_dockerfile_file(tree, target, lines)
        if built is not None and built.value > result.value:
            result = _ContainerScore(
                path,
                built.value,
                built.level,
                f"compose build resolves to {target}: {built.reason}",
                [
                    Evidence(
                        path, f"compose file building {target}", rule="container_spec.compose_build"
                    ),
                    *built.evidence,
                ],
                built.line,
            )
    return result


def _score_singularity_file(tree: TreeIndex, path: str, lines: _Lines) -> _ContainerScore | None:
    text = tree.text(path)
    definition = parse_singularity(text) if text else None
    if definition is None:
        return None  # no Bootstrap: header, e.g. a Windows module-definition .def file
    value, level, reason = score_singularity(definition)
    evidence = [
        Evidence(
            path,
            f"definition file (Bootstrap: {definition.bootstrap})",
            rule="container_spec.singularity",
        )
    ]
    if definition.from_line:
        pin = "pinned" if is_pinned_image(definition.from_ or "") else "not pinned"
        evidence.append(
            Evidence(
                path,
                f"From: {definition.from_} ({pin})",
                rule="container_spec.from",
                line_start=definition.from_line,
                snippet=lines.get(path, definition.from_line),
            )
        )
    if definition.post_line:
        evidence.append(
            Evidence(
                path,
                "%post section",
                rule="container_spec.run",
                line_start=definition.post_line,
                snippet="%post",
            )
        )
    return _ContainerScore(path, value, level, reason, evidence, definition.from_line)


def _base_image_example(tree: TreeIndex) -> str:
    if "python" in tree.languages or not tree.languages & {"r", "julia"}:
        return "python:3.11.9-slim"
    if "r" in tree.languages:
        return "rocker/r-ver:4.3.3"
    return "julia:1.10.4"


@detector("container_spec", version="2.0.0")
def container_spec(tree: TreeIndex) -> Result:
    """A container definition rebuilds the environment from a pinned base image.

    What it checks:
        Every Dockerfile, Dockerfile.* (also Dockerfile-*, Dockerfile_*), *.Dockerfile,
        Containerfile, docker-compose / compose YAML file, and Singularity /
        Singularity.* / *.def file that has a `Bootstrap:` header, anywhere in the tree
        (sorted). A Dockerfile is parsed with
        continuations, comments, heredocs and ARG defaults; its final stage's base
        (following stage aliases back to an external image) is pinned when it has a
        digest or a tag containing \\d+.\\d+ or a date and is not `latest`. Levels:
        pinned base plus a RUN 100 (pinned_base_with_run); RUN without a pinned base 80
        (run_unpinned); FROM only 50 (from_only); no FROM 20 (malformed). A Singularity
        definition with a pinned From: and a %post section 100, otherwise 80
        (other_container). A compose file 80 (other_container), or the level of a
        Dockerfile its build: contexts point to when that is higher. The best file
        wins; nothing found 0 (absent).
    Why it matters:
        A container definition captures the operating system, system libraries and
        interpreter, which dependency manifests cannot. An unpinned base (`python:3`,
        `latest`) drifts, so the same Dockerfile builds a different image later.
    Evidence:
        Container file paths; FROM lines with the resolved image, stage alias and pin
        state; the first RUN line and the number of RUNs; Singularity From:/%post lines;
        compose build targets. Counts: n_files, n_dockerfiles, n_compose, n_singularity.
    How to fix:
        Add a Dockerfile whose FROM pins a version (`python:3.11.9-slim`) or a digest
        (`@sha256:…`) and whose RUN steps install the declared dependencies.
    Known false positives:
        Vendored Dockerfiles of third-party code deep in the tree count like the
        project's own. A pinned base with a RUN that installs unpinned packages still
        scores 100. A date in a tag is taken as a pin even when the tag is mutable. A
        compose file scores 80 whatever it contains (even invalid YAML or only
        third-party service images).
    """
    scores: list[_ContainerScore] = []
    by_path: dict[str, _ContainerScore] = {}
    lines = _Lines(tree)
    candidates = tree.match(_CONTAINER_NAME_RE)
    for path in _dockerfiles(candidates):
        scored = _score_dockerfile_file(tree, path, lines)
        if scored is not None:
            scores.append(scored)
            by_path[path] = scored
    for path in _named(candidates, _COMPOSE_RE):
        scored = _score_compose_file(tree, path, by_path, lines)
        if scored is not None:
            scores.append(scored)
    n_singularity = 0
    for path in _named(candidates, _SINGULARITY_RE):
        scored = _score_singularity_file(tree, path, lines)
        if scored is not None:
            n_singularity += 1
            scores.append(scored)

    counts = {
        "n_files": len(scores),
        "n_dockerfiles": len(by_path),
        "n_compose": len(scores) - len(by_path) - n_singularity,
        "n_singularity": n_singularity,
    }
    if not scores:
        return Result(
            0,
            level="absent",
            reason="no Dockerfile, Containerfile, compose file or Singularity definition",
            fix=f"Add a Dockerfile with a pinned base image (e.g. `FROM {_base_image_example(tree)}`) "
            "and RUN steps that install the dependencies.",
            counts=counts,
        )
    scores.sort(key=lambda c: c.path)  # ties go to the first path (§0.1.13)
    best = scores[0]
    for candidate in scores[1:]:
        if candidate.value > best.value:
            best = candidate
    evidence = list(best.evidence)
    for other in scores:
        if other is not best and len(evidence) < MAX_EVIDENCE:
            evidence.append(
                Evidence(
                    other.path,
                    f"also scores {other.value} ({other.level}): {other.reason}",
                    rule="container_spec.other_file",
                )
            )
    counts["best"] = best.path
    return Result(
        best.value,
        level=best.level,
        evidence=evidence[:MAX_EVIDENCE],
        reason=f"{best.path}: {best.reason}",
        fix=_container_fix(tree, best),
        counts=counts,
    )


def _container_fix(tree: TreeIndex, best: _ContainerScore) -> str | None:
    example = _base_image_example(tree)
    where = f"{best.path} line {best.line}" if best.line else best.path
    if best.value >= 100:
        return None
    if best.level == "malformed":
        return f"Start {best.path} with a FROM of a pinned base image (e.g. `FROM {example}`) and add RUN install steps."
    if best.level == "from_only":
        return f"Add RUN steps to {best.path} that install the dependencies (e.g. `RUN pip install -r requirements.txt`)."
    if best.level == "run_unpinned":
        return f"Pin the base image in {where} to a version or digest (e.g. `{example}` or `@sha256:…`)."
    if _SINGULARITY_RE.fullmatch(_name(best.path)) and not _COMPOSE_RE.fullmatch(_name(best.path)):
        return f"Pin the From: image in {where} to a version or digest and install the dependencies in %post."
    return (
        f"Add a Dockerfile with a pinned base image (e.g. `FROM {example}`) and RUN install steps, "
        f"and build it from {best.path}."
    )


# --------------------------------------------------------------------------- E3 env_bootstrap

# The REF's bootstrap target words (plus `venv`, a common miss); a target qualifies when its
# name starts with one of them, so `setup-env` and `install_deps` count.
_BOOTSTRAP_TARGET_WORDS = (
    "setup",
    "install",
    "env",
    "environment",
    "deps",
    "dependencies",
    "bootstrap",
    "venv",
)
_BOOTSTRAP_SCRIPT_RE = re.compile(
    r"(?:install|bootstrap|setup|env[-_]setup|create[-_]env|install[-_]env|setup[-_]env)\.(?:sh|bash|ps1|bat)",
    re.IGNORECASE,
)
_SCRIPT_DIRS = ("scripts", "bin")

_MANAGER_PROGRAM_RE = re.compile(
    r"conda|mamba|micromamba|conda-lock|pip(?:\d+(?:\.\d+)*)?|uv|poetry|pixi|pipenv|pdm|virtualenv"
)
_PYTHON_PROGRAM_RE = re.compile(r"python(?:\d+(?:\.\d+)*)?|py|pypy3?")
_PYTHON_ENV_MODULES = frozenset({"venv", "virtualenv", "pip", "uv", "conda"})
_MAKE_VARIABLE_RE = re.compile(r"\$[({]([A-Za-z_][A-Za-z0-9_]*)[)}]")
_R_INSTALL_CODE_RE = re.compile(
    r"renv::|install\.packages|biocmanager::install|remotes::install|devtools::install|pak::",
    re.IGNORECASE,
)
_JULIA_INSTALL_CODE_RE = re.compile(r"Pkg\.(?:instantiate|add|activate)", re.IGNORECASE)
_WINDOWS_WRAPPERS = frozenset({"call", "&", "start", "cmd", "/c"})

# README one-command environment creation that is not a plain shell command.
_R_RESTORE_RE = re.compile(r"renv::restore\s*\(")
_JULIA_INSTANTIATE_RE = re.compile(
    r"Pkg\.instantiate\s*\(|^\s*(?:\([^)]*\)\s*)?pkg>\s*instantiate\b", re.IGNORECASE
)
_BINDER_LINK_RE = re.compile(r"^https?://(?:www\.)?mybinder\.org/v2/", re.IGNORECASE)
# repo2docker configuration files that declare the environment's packages (apt.txt,
# runtime.txt and postBuild alone do not).
_BINDER_CONFIG_NAMES = frozenset(
    {
        "environment.yml", "requirements.txt", "pipfile", "pipfile.lock", "setup.py", "pyproject.toml",
        "project.toml", "manifest.toml", "require", "install.r", "description", "dockerfile",
    }
)  # fmt: skip


def _program(word: str) -> str:
    """Lower-case base name of an invoked program (``C:\\bin\\conda.exe`` → ``conda``)."""
    base = word.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return base[:-4] if base.endswith(".exe") else base


def _command_words(command: Command) -> list[str]:
    words = list(command.words)
    # Windows scripts: `call conda …`, `& conda …`, `@conda …`.
    while words and (words[0].lower() in _WINDOWS_WRAPPERS):
        words = words[1:]
    if words and words[0].startswith("@"):
        words[0] = words[0][1:]
    return [w for w in words if w]


def _python_module(args: Sequence[str]) -> str | None:
    for index, arg in enumerate(args):
        if arg == "-m" and index + 1 < len(args):
            return args[index + 1].lower()
        if arg.startswith("-m") and len(arg) > 2 and not arg.startswith("--"):
            return arg[2:].lower()
    return None


def _manager_invoked(command: Command) -> str | None:
    """The environment or package manager a simple command invokes as its program, if any."""
    words = _command_words(command)
    if not words:
        return None
    program, args = _program(words[0]), words[1:]
    variable = _MAKE_VARIABLE_RE.fullmatch(words[0])
    if variable:
        # Makefiles call managers through variables: $(PIP) install, ${CONDA} env create.
        tokens = variable.group(1).lower().split("_")
        if any(_MANAGER_PROGRAM_RE.fullmatch(t) for t in tokens):
            return words[0]
        if any(_PYTHON_PROGRAM_RE.fullmatch(t) for t in tokens):
            program = "python"
    if _MANAGER_PROGRAM_RE.fullmatch(program):
        return program
    if _PYTHON_PROGRAM_RE.fullmatch(program):
        module = _python_module(args)
        return f"{program} -m {module}" if module in _PYTHON_ENV_MODULES else None
    if program in ("rscript", "r"):
        joined = " ".join(args)
        if _R_INSTALL_CODE_RE.search(joined):
            return "Rscript (package installation)"
        scripts = [a for a in args if a.lower().endswith(".r")]
        if any(_name(s).lower().startswith(_BOOTSTRAP_TARGET_WORDS) for s in scripts):
            return "Rscript (install script)"
        return None
    if program == "julia":
        if any(a.startswith("--project") for a in args) or _JULIA_INSTALL_CODE_RE.search(
            " ".join(args)
        ):
            return "julia --project"
    return None


def _first_manager_line(text: str, *, windows: bool = False) -> tuple[int, str, str] | None:
    """(line, command text, manager) of the first manager invocation in a script."""
    for line, logical in command_lines(text):
        if windows and logical.lstrip().lower().startswith("rem "):
            continue
        for command in split_commands(logical):
            manager = _manager_invoked(command)
            if manager:
                return line, logical.strip(), manager
    return None


def _is_bootstrap_target(name: str) -> bool:
    return name.lower().startswith(_BOOTSTRAP_TARGET_WORDS)


def _make_target_argument(args: Sequence[str]) -> str | None:
    skip_next = False
    for arg in args:
        if skip_next:
            skip_next = False
            continue
        if arg in ("-C", "-f", "--directory", "--file", "--makefile"):
            skip_next = True
            continue
        if arg.startswith("-") or "=" in arg:
            continue
        return arg
    return None


def _runs_bootstrap_script(words: Sequence[str]) -> str | None:
    program = _program(words[0])
    if _BOOTSTRAP_SCRIPT_RE.fullmatch(program):
        return words[0]
    if program in ("bash", "sh", "zsh", "source", ".", "powershell", "pwsh"):
        for arg in words[1:]:
            if _BOOTSTRAP_SCRIPT_RE.fullmatch(_program(arg)):
                return f"{program} {arg}"
    return None


def _readme_bootstrap_command(command: Command) -> str | None:
    """The one-command environment creation a README command runs (E3 80 tier), if any."""
    words = _command_words(command)
    if not words:
        return None
    program = _program(words[0])
    args = [w.lower() for w in words[1:]]
    first = args[0] if args else ""
    if program in ("conda", "mamba", "micromamba"):
        if args[:2] == ["env", "create"]:
            return f"{program} env create"
        # `conda create -f` is --force in conda; mamba and micromamba read a file with -f.
        file_flags = ("--file",) if program == "conda" else ("--file", "-f")
        if first == "create" and any(a in file_flags or a.startswith("--file=") for a in args):
            return f"{program} create --file"
        return None
    if (program, first) in {
        ("pixi", "install"),
        ("uv", "sync"),
        ("poetry", "install"),
        ("pipenv", "install"),
        ("pipenv", "sync"),
        ("pdm", "install"),
    }:
        return f"{program} {first}"
    if program in ("make", "gmake"):
        target = _make_target_argument(words[1:])
        return f"make {target}" if target and _is_bootstrap_target(target) else None
    if program == "docker" and args[:1] == ["compose"] and "up" in args:
        return "docker compose up"
    if program == "docker-compose" and "up" in args:
        return "docker-compose up"
    if program in ("repo2docker", "jupyter-repo2docker"):
        return "repo2docker"
    return _runs_bootstrap_script(words)


def _readme_bootstrap(tree: TreeIndex) -> list[Evidence]:
    doc = tree.readme_document()
    if doc is None:
        return []
    found = []
    for line, raw, _block in doc.code_lines():
        text, is_repl = strip_prompt(raw)
        matched = None
        if _R_RESTORE_RE.search(raw):
            matched = "renv::restore()"
        elif _JULIA_INSTANTIATE_RE.search(raw):
            matched = "Pkg.instantiate()"
        elif not is_repl:
            for command in split_commands(text):
                matched = _readme_bootstrap_command(command)
                if matched:
                    break
        if matched:
            found.append(
                Evidence(
                    doc.path,
                    f"README creates the environment with `{matched}`",
                    rule="env_bootstrap.readme_command",
                    line_start=line,
                    snippet=raw,
                )
            )
    return found


def _binder_config(tree: TreeIndex) -> list[Evidence]:
    found = []
    for directory in ("binder", ".binder"):
        if tree.is_dir(directory):
            configs = [
                p for p in tree.files_in(directory) if _name(p).lower() in _BINDER_CONFIG_NAMES
            ]
            found += [
                Evidence(p, "Binder environment configuration", rule="env_bootstrap.binder")
                for p in configs
            ]
    doc = tree.readme_document()
    if doc is not None:
        found += [
            Evidence(
                doc.path,
                "mybinder.org launch link",
                rule="env_bootstrap.binder_badge",
                line_start=link.line,
                snippet=link.url,
            )
            for link in doc.links
            if _BINDER_LINK_RE.match(link.url)
        ]
    return found


def _bootstrap_scripts(tree: TreeIndex) -> tuple[list[Evidence], list[Evidence]]:
    """(scripts invoking a manager, bootstrap-named scripts that do not)."""
    directories = [""] + [d for d in tree.subdirs("") if _name(d).lower() in _SCRIPT_DIRS]
    good, idle = [], []
    for directory in directories:
        for path in tree.files_in(directory):
            if not _BOOTSTRAP_SCRIPT_RE.fullmatch(_name(path)):
                continue
            text = tree.text(path)
            hit = _first_manager_line(text, windows=path.lower().endswith(".bat")) if text else None
            if hit:
                line, command, manager = hit
                good.append(
                    Evidence(
                        path,
                        f"bootstrap script invokes {manager}",
                        rule="env_bootstrap.script",
                        line_start=line,
                        snippet=command,
                    )
                )
            else:
                idle.append(
                    Evidence(
                        path,
                        "bootstrap-named script invokes no environment or package manager",
                        rule="env_bootstrap.script_without_manager",
                    )
                )
    return good, idle


def _bootstrap_targets(tree: TreeIndex) -> list[Evidence]:
    found = []
    for path in tree.make_like_files():
        for target in tree.task_targets(path):
            if not _is_bootstrap_target(target.name):
                continue
            for line, command_text in target.recipe:
                manager = next(
                    filter(None, (_manager_invoked(c) for c in split_commands(command_text))), None
                )
                if manager:
                    found.append(
                        Evidence(
                            path,
                            f"target `{target.name}` invokes {manager}",
                            rule="env_bootstrap.make_target",
                            line_start=target.line,
                            line_end=max(line, target.line),
                            snippet=command_text,
                        )
                    )
                    break
    return found


def _suggested_bootstrap(tree: TreeIndex) -> str:
    kinds = {m.kind: m.path for m in tree.manifests()}
    if "conda" in kinds:
        return f"`conda env create -f {kinds['conda']}`"
    if "description" in kinds or tree.languages == frozenset({"r"}):
        return "`Rscript -e 'renv::restore()'`"
    if "julia-project" in kinds or tree.languages == frozenset({"julia"}):
        return "`julia --project -e 'using Pkg; Pkg.instantiate()'`"
    if "requirements" in kinds:
        return f"`python -m venv .venv && .venv/bin/pip install -r {kinds['requirements']}`"
    return "`python -m venv .venv && .venv/bin/pip install .`"


@detector("env_bootstrap", version="2.0.0")
def env_bootstrap(tree: TreeIndex) -> Result:
    """One command creates the software environment.

    What it checks:
        100 (script): a script at the root or in scripts/ or bin/ named install,
        bootstrap, setup, env_setup, create_env, install_env or setup_env (.sh, .bash,
        .ps1, .bat) in which some command (a line, an &&/; chain element or a pipeline
        element) starts with an environment or package manager: conda, mamba,
        micromamba, conda-lock, pip, uv, poetry, pixi, pipenv, pdm, virtualenv,
        `python -m venv|virtualenv|pip`, Rscript/R installing packages (renv::,
        install.packages, BiocManager, remotes, pak), `julia --project`.
        100 (make_target): a target of a Make-like file (Makefile, makefile,
        GNUmakefile, justfile, Taskfile.yml, tasks.py, dodo.py) at the root or in an
        environment location whose name starts with setup, install, env, environment,
        deps, dependencies, bootstrap or venv and whose recipe invokes such a manager
        (also through a make variable such as $(PIP)).
        80 (readme_one_command): a README code block or inline code running
        `conda|mamba|micromamba env create`, `conda create --file`, `pixi install`,
        `uv sync`, `poetry install`, `pipenv install|sync`, `pdm install`,
        `make <bootstrap target>`, a bootstrap script (`./install.sh`, `bash setup.sh`),
        `docker compose up`, `repo2docker`, `renv::restore()` or `Pkg.instantiate()`.
        80 (binder): binder/ or .binder/ with an environment file, or a mybinder.org
        launch link in the README. Otherwise 0 (absent). Prose never counts.
    Why it matters:
        A reader who must assemble the environment from scattered instructions makes
        different choices than the authors did; a single scripted entry point makes
        the environment the authors tested the one a reader gets.
    Evidence:
        Script path and the line of the first manager invocation; Make-like file, target
        line and the recipe command; README line and the matched command; Binder files
        or the launch link; bootstrap-named scripts that invoke no manager (not
        counted). Counts: n_scripts, n_make_targets, n_readme_commands, n_binder.
    How to fix:
        Add install.sh (or a `make setup` target) that creates the environment, e.g.
        `conda env create -f environment.yml` or `python -m venv .venv && .venv/bin/pip
        install -r requirements.txt`, and show that one command in the README.
    Known false positives:
        A script counts when any command invokes a manager, even `pip --version`; it is
        not run, so a broken script still scores 100. A README command counts even when
        the file it names (environment.yml, install.sh) does not exist. Any target
        starting with a bootstrap word (`install-docs`) that calls pip counts.
    """
    scripts, idle_scripts = _bootstrap_scripts(tree)
    targets = _bootstrap_targets(tree)
    readme = _readme_bootstrap(tree)
    binder = _binder_config(tree)
    counts = {
        "n_scripts": len(scripts),
        "n_make_targets": len(targets),
        "n_readme_commands": len(readme),
        "n_binder": len(binder),
    }
    evidence = (scripts + targets + readme + binder + idle_scripts)[:MAX_EVIDENCE]
    if scripts or targets:
        first = (scripts or targets)[0]
        return Result(
            100,
            level="script" if scripts else "make_target",
            evidence=evidence,
            reason=f"{first.path}: {first.reason}",
            counts=counts,
        )
    suggestion = _suggested_bootstrap(tree)
    fix = f"Add install.sh (or a `make setup` target) that creates the environment, e.g. {suggestion}."
    if readme or binder:
        first = (readme or binder)[0]
        return Result(
            80,
            level="readme_one_command" if readme else "binder",
            evidence=evidence,
            reason=f"{first.path}: {first.reason}",
            fix=fix,
            counts=counts,
        )
    reason = (
        "no bootstrap script, bootstrap target, README environment command or Binder configuration"
    )
    if idle_scripts:
        reason += f"; {_join_names([e.path for e in idle_scripts])} invoke(s) no environment or package manager"
    return Result(0, level="absent", evidence=evidence, reason=reason, fix=fix, counts=counts)


# --------------------------------------------------------------------------- E4 python_version_declared

_DECLARABLE_LANGUAGES = ("python", "r", "julia")
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
            found.append(_Declaration(path, language, spec, stage.line, source, snippet))
    return found


def _interpreter_declarations(tree: TreeIndex) -> list[_Declaration]:
    found: list[_Declaration] = []
    lines = _Lines(tree)

    def add(path: str, decl: InterpreterDecl) -> None:
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
                )
            )

    for manifest in tree.manifests():
        for decl in manifest.interpreters:
            add(manifest.path, decl)
    for path in _env_files(tree):
        if _VERSION_FILE_RE.fullmatch(_name(path)):
            text = tree.text(path)
            for decl in interpreters_from_version_file(text or "", path):
                add(path, decl)
    found += _docker_declarations(tree, lines)
    return found


def _version_fix(used: Sequence[str]) -> str:
    language = used[0] if used else "python"
    if language == "r":
        return "Record the R version: commit renv.lock (`renv::snapshot()`) or add `Depends: R (>= 4.x)` to DESCRIPTION."
    if language == "julia":
        return 'Declare the Julia version: add `julia = "1.x"` under [compat] in Project.toml, or commit Manifest.toml.'
    return (
        'Declare the Python version: add `requires-python = ">=3.x"` under [project] in pyproject.toml, '
        "or a .python-version file."
    )


def _rule_suffix(source: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", source.lower()).strip("_")


@detector("python_version_declared", version="2.0.0")
def python_version_declared(tree: TreeIndex) -> Result:
    """The interpreter version (Python, R or Julia) the code needs is declared.

    What it checks:
        100 when an environment location declares a version or constraint
        of the interpreter of a language the repository's sources use: .python-version
        or runtime.txt with version-like content; requires-python; Poetry `python`;
        setup.py/setup.cfg python_requires; Pipfile python_version/python_full_version;
        a conda `python` or `r-base` spec with an operator; uv.lock requires-python;
        .tool-versions or mise.toml; renv.lock R version; DESCRIPTION `R (>= …)`;
        Project.toml [compat] julia; Manifest.toml julia_version; or a Dockerfile FROM
        of a language image with a \\d+.\\d+ tag (python, r-base, rocker/*, julia,
        jupyter/* with a python-X.Y tag, conda images only together with an explicit
        python spec in a RUN). A declaration must contain a digit. Otherwise 0. The
        metric has no labelled levels, so the level is null (§0.1.4).
    Why it matters:
        Language releases change semantics and drop support for packages (dict order,
        integer division, removed modules; R's stringsAsFactors default); without the
        version the rerun guesses, and pinned dependencies may not install at all.
    Evidence:
        File, line and declared constraint for each counted declaration; declarations
        for languages the code does not use are listed as not counted. Counts:
        n_declarations, n_languages, n_languages_declared.
    How to fix:
        Python: `requires-python = ">=3.x"` in pyproject.toml or a .python-version file;
        R: renv.lock or `Depends: R (>= 4.x)`; Julia: `[compat] julia = "1.x"`.
    Known false positives:
        A loose lower bound (`>=3`) counts as much as an exact version. A declaration
        for one language satisfies the metric in a mixed Python and R repository. A
        Dockerfile image tag is taken at face value, also for a stage that is not the
        one that runs the code.
    """
    used = [lang for lang in _DECLARABLE_LANGUAGES if lang in tree.languages]
    declarations = _interpreter_declarations(tree)
    counted = [d for d in declarations if d.language in used]
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
            line_start=d.line,
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
            line_start=d.line,
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
        reason = "no Python, R or Julia sources, so no interpreter declaration applies"
    else:
        names = " or ".join(_language_name(lang) for lang in used)
        reason = f"no {names} version declared in the environment locations"
    return Result(
        0, level=None, evidence=evidence, reason=reason, fix=_version_fix(used), counts=counts
    )
