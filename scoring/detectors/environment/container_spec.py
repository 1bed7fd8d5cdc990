"""E2 container_spec: a container definition rebuilds the environment from a pinned base image."""

from __future__ import annotations

import re
from dataclasses import dataclass

from scoring.detectors.environment._common import (
    _DOCKERFILE_RE,
    MAX_EVIDENCE,
    _dockerfiles,
    _each_file_first,
    _join,
    _Lines,
    _name,
    _named,
    _workflows,
    fix_ecosystem_checked,
)
from scoring.model import Evidence
from scoring.parsers.dockerfile import (
    is_pinned_image,
    score_dockerfile,
    score_singularity,
    split_image,
)
from scoring.registry import Result, detector
from scoring.tree import TreeIndex

_COMPOSE_RE = re.compile(r"(?:docker-)?compose(?:\.[^/]+)?\.ya?ml", re.IGNORECASE)
_SINGULARITY_RE = re.compile(r"singularity(?:\..+)?|.+\.def", re.IGNORECASE)


# A name of any of the three kinds: one scan of the tree finds the candidates of all of them.
_CONTAINER_NAME_RE = re.compile(
    "|".join(kind.pattern for kind in (_DOCKERFILE_RE, _COMPOSE_RE, _SINGULARITY_RE)), re.IGNORECASE
)


@dataclass
class _ContainerScore:
    path: str
    value: int
    level: str
    reason: str
    evidence: list[Evidence]
    line: int | None = None  # the line a fix should touch (the unpinned FROM)
    # (first, last) lines of the declaration when it spans more than ``line``: an ARG
    # default and the FROM that takes it, a profile's block and the setting in it
    span: tuple[int, int] | None = None
    image: str = ""         # the final base image, for a fix that pins it


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
        # An image named by an ARG is declared where the ARG's default is: show both.
        first = min((*stage.arg_lines, stage.line))
        via = f" (ARG default, line {', '.join(map(str, stage.arg_lines))})" if stage.arg_lines else ""
        evidence.append(
            Evidence(
                path,
                f"FROM {stage.image or '(unresolved)'}{alias}{via}: {role}, {pin}",
                rule="container_spec.from",
                line_start=first,
                line_end=stage.line if first != stage.line else None,
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
    span = (min(final_stage.arg_lines), line) if final_stage is not None and final_stage.arg_lines else None
    image = final_stage.image if final_stage is not None and final_stage.image else ""
    return _ContainerScore(path, value, level, reason, evidence, line, span, image)


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
        target = _join(base, f"{context}/{dockerfile}")
        if target and tree.is_file(target):
            found.append(target)
    return found


def _score_compose_file(
    tree: TreeIndex, path: str, by_path: dict[str, _ContainerScore], lines: _Lines
) -> _ContainerScore | None:
    table = tree.line_table(path)
    if table is None or table.blank:
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
                built.span,
                built.image,
            )
    return result


def _score_singularity_file(tree: TreeIndex, path: str, lines: _Lines) -> _ContainerScore | None:
    definition = tree.singularity(path)
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


_CONTAINER_ENGINES = frozenset({"docker", "singularity", "apptainer", "podman", "charliecloud", "shifter", "sarus"})


def _workflow_containers(tree: TreeIndex, lines: _Lines) -> list[_ContainerScore]:
    """Nextflow/Snakemake container directives (a versioned tag, digest or commit tag
    is pinned: 100; otherwise 80) and container engine profiles (80) (§0.3 workflows E2)."""
    view = _workflows(tree)
    scores = []
    for directive in view.containers:
        shown = ", ".join(directive.images) or "(unresolved)"
        where = f" ({directive.scope})" if directive.scope else ""
        evidence = [
            Evidence(
                directive.path,
                f"container directive{where}: {shown}, {'pinned' if directive.pinned else 'not pinned'}",
                rule="container_spec.workflow_container",
                line_start=directive.line,
                snippet=lines.get(directive.path, directive.line),
            )
        ]
        if directive.pinned:
            scores.append(_ContainerScore(directive.path, 100, "pinned_base_with_run",
                                          f"workflow container {shown} pinned", evidence, directive.line))
        else:
            scores.append(_ContainerScore(directive.path, 80, "other_container",
                                          f"workflow container {shown} not pinned", evidence, directive.line))
    for setting in view.engine_settings:
        if setting.engine in _CONTAINER_ENGINES:
            label = f"profile {setting.profile}" if setting.profile else "configuration"
            # the profile's block from its opening line to the setting that enables the engine
            first = setting.profile_line or setting.line
            last = setting.line if setting.line != first else None
            scores.append(_ContainerScore(
                setting.path, 80, "other_container", f"{label} enables {setting.engine}",
                [Evidence(setting.path, f"{label} enables {setting.engine}", rule="container_spec.workflow_profile",
                          line_start=first, line_end=last, snippet=lines.get(setting.path, first))],
                setting.line, (first, setting.line) if last else None,
            ))
    return scores


# A pinned base image and the RUN step that installs the dependencies, in the deposit's
# own ecosystem (§0.3): never a Python image for R, Julia, MATLAB, native or workflow code.
_BASE_IMAGES = {
    "python": "python:3.11.9-slim",
    "r": "rocker/r-ver:4.3.3",
    "julia": "julia:1.10.4",
    "matlab": "mathworks/matlab:r2024a",
    "native": "gcc:13.2.0",
    "nextflow": "mambaorg/micromamba:1.5.8",
    "snakemake": "mambaorg/micromamba:1.5.8",
}
_INSTALL_STEPS = {
    "python": "`RUN pip install -r requirements.txt`",
    "r": "`RUN Rscript -e 'renv::restore()'`",
    "julia": "`RUN julia --project -e 'using Pkg; Pkg.instantiate()'`",
    "matlab": "`RUN mpm install --release=R2024a --products <toolboxes>`",
    "native": "`RUN cmake -S . -B build && cmake --build build`, or `RUN make`",
    "nextflow": "`RUN micromamba install -y -n base -f environment.yml`",
    "snakemake": "`RUN micromamba install -y -n base -f environment.yml`",
}
_WORKFLOW_CONTAINER = {
    "nextflow": "a `container` directive with a versioned image to each process (e.g. `container "
                "'biocontainers/samtools:1.17--h00cdaf9_0'`), or one in the process scope of nextflow.config",
    "snakemake": "a `container:` directive with a versioned image to each rule (e.g. `container: "
                 "\"docker://biocontainers/samtools:1.17--h00cdaf9_0\"`), or a global `containerized:` image",
}


def _base_image_example(tree: TreeIndex) -> str:
    return _BASE_IMAGES[fix_ecosystem_checked(tree)]


@detector("container_spec", version="2.3.0")
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
        Dockerfile its build: contexts point to when that is higher. Workflows
        (§0.3): a Nextflow `container` directive (in a process or in the process scope
        of a Nextflow configuration: nextflow.config, nextflow_*.config, and the
        `*.config` files of a conf/ or configs/ folder that nextflow.config pulls in
        with includeConfig, such as configs/container.config; withLabel/withName
        selectors included, ${params.…} resolved;
        each alternative of a `engine == 'singularity' ? … : …` value) or a Snakemake
        `container:`/`containerized:` directive (a rule's whether or not a wrapper or
        conda environment also pins the rule) is 100 when its image is pinned (a
        versioned tag, a digest or a commit tag such as `sha8675…`) and 80
        (other_container) otherwise; a profile or setting enabling docker, singularity,
        apptainer, podman… is 80. The best wins; nothing found 0 (absent).
    Why it matters:
        A container definition captures the operating system, system libraries and
        interpreter, which dependency manifests cannot. An unpinned base (`python:3`,
        `latest`) drifts, so the same Dockerfile builds a different image later.
    Evidence:
        Container file paths; FROM lines with the resolved image, stage alias and pin
        state (from the ARG line when an ARG default names the image); the first RUN
        line and the number of RUNs; Singularity From:/%post lines; compose build
        targets; workflow container directives and engine profiles (from the profile's
        opening line to the setting that enables the engine). Every other container
        definition at its line (the final FROM, the directive, the profile), each
        file's first before a second of any file when more than fit. Counts: n_files,
        n_dockerfiles, n_compose, n_singularity, n_workflow_containers.
    How to fix:
        Add a Dockerfile whose FROM pins a version or a digest (`@sha256:…`) and whose
        RUN steps install the declared dependencies, in the deposit's own ecosystem
        (§0.3): `python:3.11.9-slim` and `pip install -r requirements.txt`,
        `rocker/r-ver:4.3.3` and `renv::restore()`, `julia:1.10.4` and
        `Pkg.instantiate()`, `mathworks/matlab:r2024a` and `mpm install` of the
        toolboxes, `gcc:13.2.0` (with gfortran) and a cmake or make build; a workflow
        gives each Nextflow process a `container` directive (or the process scope of
        nextflow.config) and each Snakemake rule a `container:` (or a global
        `containerized:`) with a versioned image.
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
    workflow = _workflow_containers(tree, lines)
    if workflow:
        counts["n_workflow_containers"] = len(workflow)
        scores += workflow
    if not scores:
        ecosystem = fix_ecosystem_checked(tree)
        fix = (
            f"Add {_WORKFLOW_CONTAINER[ecosystem]}."
            if ecosystem in _WORKFLOW_CONTAINER
            else f"Add a Dockerfile with a pinned base image (e.g. `FROM {_BASE_IMAGES[ecosystem]}`) "
            "and RUN steps that install the dependencies."
        )
        return Result(
            0,
            level="absent",
            reason="no Dockerfile, Containerfile, compose file, Singularity definition or workflow container",
            fix=fix,
            counts=counts,
        )
    scores.sort(key=lambda c: c.path)  # ties go to the first path (§0.1.13)
    best = scores[0]
    for candidate in scores[1:]:
        if candidate.value > best.value:
            best = candidate
    evidence = list(best.evidence)
    others = [
        Evidence(
            other.path,
            f"also scores {other.value} ({other.level}): {other.reason}",
            rule="container_spec.other_file",
            line_start=other.span[0] if other.span else other.line,
            line_end=other.span[1] if other.span else None,
            snippet=lines.get(other.path, other.line),
        )
        for other in scores
        if other is not best
    ]
    evidence += _each_file_first(others, MAX_EVIDENCE - len(evidence))
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
    rule = best.evidence[0].rule if best.evidence else ""
    if rule == "container_spec.workflow_container":
        return f"Pin the container image in {where} to a version tag or a digest (`@sha256:…`)."
    if rule == "container_spec.workflow_profile":
        return (f"Give the processes a `container` directive with a versioned image (e.g. `container "
                f"'biocontainers/samtools:1.17--h00cdaf9_0'`); {best.path} only enables the engine.")
    if best.level == "malformed":
        return f"Start {best.path} with a FROM of a pinned base image (e.g. `FROM {example}`) and add RUN install steps."
    if best.level == "from_only":
        return (f"Add RUN steps to {best.path} that install the dependencies "
                f"(e.g. {_INSTALL_STEPS[fix_ecosystem_checked(tree)]}).")
    if best.level == "run_unpinned":
        repository = split_image(best.image)[0] if best.image else ""
        if repository:
            return (f"Pin the base image in {where} to a version or digest (e.g. `{repository}:<version>` or "
                    f"`{repository}@sha256:…`).")
        return f"Pin the base image in {where} to a version or digest (e.g. `{example}` or `@sha256:…`)."
    if _SINGULARITY_RE.fullmatch(_name(best.path)) and not _COMPOSE_RE.fullmatch(_name(best.path)):
        return f"Pin the From: image in {where} to a version or digest and install the dependencies in %post."
    return (
        f"Add a Dockerfile with a pinned base image (e.g. `FROM {example}`) and RUN install steps, "
        f"and build it from {best.path}."
    )
