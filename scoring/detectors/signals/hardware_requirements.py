"""S7 hardware_requirements: code that can use a GPU states its hardware requirements."""

from __future__ import annotations

import re
from collections.abc import Iterator

from scoring.detectors._shared import (
    JULIA,
    MATLAB,
    NATIVE,
    NEXTFLOW,
    PYTHON,
    SNAKEMAKE,
    R,
    fix_ecosystem,
)
from scoring.detectors.signals._common import MAX_EVIDENCE, _name
from scoring.facts import CallFact, FileFacts, ImportFact
from scoring.model import Evidence
from scoring.parsers.hardware import CUDA_WHEEL_INDEX_RE as _CUDA_WHEEL_INDEX_RE
from scoring.parsers.hardware import GPUS_FLAG_RE as _GPUS_FLAG_RE
from scoring.parsers.manifests import has_cuda_tag
from scoring.registry import Result, detector
from scoring.tree import TreeIndex

_GPU_DEPENDENCY_RE = re.compile(
    r"torch|pytorch|tensorflow(?:-gpu|-metal)?|tf-nightly-gpu|jax|jaxlib|jax-cuda.*|cupy(?:-.+)?|cudf(?:-.+)?"
    r"|cuml(?:-.+)?|cugraph(?:-.+)?|rapids(?:-.+)?|mxnet(?:-.+)?|lightning|pytorch-lightning|pytorch-cuda"
    r"|cudatoolkit|cuda-toolkit|cuda-python|cuda|pycuda|paddlepaddle-gpu|onnxruntime-gpu|nvidia-.+|.+-cu\d+x?"
)
_GPU_IMPORTS = frozenset({
    "torch", "tensorflow", "jax", "jaxlib", "cupy", "cupyx", "cudf", "cuml", "cugraph", "mxnet",
    "lightning", "pytorch_lightning", "pycuda", "paddle", "tensorrt", "triton",
})
_R_GPU_LOADS = frozenset({"library", "require", "requireNamespace"})
_R_GPU_PACKAGES = frozenset({"torch", "tensorflow", "keras", "gpuR"})
_JULIA_GPU_LOADS = frozenset({"using", "import"})
_JULIA_GPU_PACKAGES = frozenset({"CUDA", "CuArrays", "AMDGPU"})
# MATLAB's GPU functions (§0.3 S7 MATLAB: gpuArray) and the parallel.gpu package
_MATLAB_GPU_CALLS = frozenset({"gpuArray", "gpuDevice", "gpuDeviceCount", "gpuDeviceTable", "canUseGPU",
                               "gpurng", "existsOnGPU"})
_CUDA_SUFFIXES = (".cu", ".cuh")
_CUDA_PACKAGES = frozenset({"cuda", "cudatoolkit"})
# Batch-job requests in a script's comments (Slurm #SBATCH, PBS #PBS): a GPU request makes
# the code GPU code and states it; CPU, memory and node requests state the hardware.
_BATCH_GPU_RE = re.compile(r"^#(?:SBATCH|PBS)\b.*(?:--gres[=\s]\S*gpu|--gpus(?:-per-\w+)?[=\s]|[:,]ngpus=|[:,]gpus=)",
                           re.IGNORECASE)
_BATCH_REQUEST_RE = re.compile(r"^#SBATCH\b.*--(?:mem|mem-per-cpu|cpus-per-task|ntasks|nodes|gres|gpus)\b"
                               r"|^#PBS\b.*-l\b.*(?:mem|ncpus|nodes|ngpus)=", re.IGNORECASE)
_JOB_SCRIPT_SUFFIXES = (".sh", ".bash", ".slurm", ".sbatch", ".pbs", ".job")
# Workflow resource declarations (§0.3 S7 workflows): Nextflow process directives and
# Snakemake rule directives; a GPU among them is also GPU use.
_NEXTFLOW_RESOURCES = ("accelerator", "cpus", "memory")
_SNAKEMAKE_RESOURCES = ("resources", "threads")
_GPU_RESOURCE_RE = re.compile(r"(?<![A-Za-z0-9])\w*gpu\w*\s*=", re.IGNORECASE)
_CONTAINER_GPU_RE = re.compile(r"--gpus\b|--nv\b")
_SELECTOR_RE = re.compile(r"with(Label|Name)\s*:\s*(.+)")
_GPU_IMAGE_RE = re.compile(r"(?:^|/)nvidia/|nvcr\.io/|(?<![a-z0-9])(?:cuda|cudnn|gpu)(?![a-z])", re.IGNORECASE)
_DOCKERFILE_NAME_RE = re.compile(r"(?:.+\.)?(?:dockerfile|containerfile)(?:\..+)?", re.IGNORECASE)
_COMPOSE_NAME_RE = re.compile(r"(?:docker-)?compose(?:\..+)?\.ya?ml", re.IGNORECASE)
_PROSE_SUFFIXES = ("", ".md", ".markdown", ".rst", ".txt")
_NOT_HARDWARE_DOCS_RE = re.compile(
    r"(?:license|licence|copying|changelog|changes|news|history|code_of_conduct|authors|contributors)(?:[-_.].*)?"
    r"|(?:.*[-_.])?(?:requirements|constraints)(?:[-_.].*)?\.(?:txt|in)",
    re.IGNORECASE,
)


_MAX_TRIGGERS = 5

# The fix in the deposit's own ecosystem: what its GPU code needs stated (§0.3 S7 row)
_FIX = {
    PYTHON: "State the hardware in {readme}: GPU model and memory and CUDA version, or that a CPU is enough, and the "
            "RAM a full run needs.",
    R: "State the hardware in {readme}: GPU model and memory and the CUDA version torch/tensorflow use, or that a "
       "CPU is enough, and the RAM a full run needs.",
    JULIA: "State the hardware in {readme}: GPU model and memory and the CUDA version CUDA.jl uses "
           "(CUDA.versioninfo()), or that a CPU is enough, and the RAM a full run needs.",
    MATLAB: "State the hardware in {readme}: the GPU the gpuArray code needs (a CUDA GPU your MATLAB release "
            "supports, with Parallel Computing Toolbox) and its memory, or that a CPU is enough, and the RAM a full "
            "run needs.",
    NATIVE: "State the hardware in {readme}: GPU model, compute capability (CMAKE_CUDA_ARCHITECTURES) and CUDA "
            "toolkit version, or that a CPU build is enough, and the RAM and cores a run needs.",
    NEXTFLOW: "Declare what the GPU processes need with accelerator, memory and cpus directives, or state the GPU, "
              "its memory and the CUDA version in {readme}.",
    SNAKEMAKE: "Declare what the GPU rules need with resources: (gpu=1, mem_mb=...) and threads:, or state the GPU, "
               "its memory and the CUDA version in {readme}.",
}


def _gpu_triggers(tree: TreeIndex, limit: int = _MAX_TRIGGERS) -> list[Evidence]:
    """Why the repository can use a GPU: declared frameworks, imports, CUDA calls."""
    found: list[Evidence] = []
    for manifest in tree.manifests():
        for dep in manifest.dependencies:
            if _GPU_DEPENDENCY_RE.fullmatch(dep.normalized):
                found.append(Evidence(dep.file or manifest.path, f"GPU-capable dependency {dep.name}",
                                      rule="hardware_requirements.gpu_dependency", line_start=dep.line, snippet=dep.raw))
                break
        if len(found) >= limit:
            return found
    seen: set[str] = set()
    python: list[Evidence] = []
    for path in tree.files:
        info = tree.info(path)
        if info is None or info.alias_of is not None or info.type not in ("python", "notebook"):
            continue
        facts = tree.facts(path)
        if facts is None:
            continue
        for cell, imports, calls in _python_cells(facts):
            ref = next((r for r in imports if r.module.split(".")[0] in _GPU_IMPORTS or r.module.startswith("numba.cuda")),
                       None)
            if ref is not None:
                python.append(Evidence(path, f"imports {ref.module}", rule="hardware_requirements.gpu_import",
                                       line_start=ref.line, cell=cell, snippet=tree.snippet(path, ref.line, cell)))
                seen.add(path)
                break
            line = _cuda_call(calls)
            if line is not None:
                python.append(Evidence(path, "moves computation to a CUDA device", rule="hardware_requirements.cuda_call",
                                       line_start=line, cell=cell, snippet=tree.snippet(path, line, cell)))
                seen.add(path)
                break
    found += _nearest_first(python)[: max(0, limit - len(found))]
    if len(found) >= limit:
        return found
    for path in tree.by_type("r") + tree.by_type("julia") + tree.by_type("rmd"):
        if path in seen:
            continue
        facts = tree.facts(path)
        if facts is None:
            continue
        loads = _R_GPU_LOADS if facts.language == "r" else _JULIA_GPU_LOADS
        packages = _R_GPU_PACKAGES if facts.language == "r" else _JULIA_GPU_PACKAGES
        ref = min((r for r in facts.imports if r.kind in loads and r.module in packages), key=lambda r: r.line,
                  default=None)
        if ref is not None:
            found.append(Evidence(path, f"loads {ref.module}", rule="hardware_requirements.gpu_import",
                                  line_start=ref.line, snippet=tree.snippet(path, ref.line)))
            seen.add(path)
        if len(found) >= limit:
            break
    return found


def _nearest_first(items: list[Evidence]) -> list[Evidence]:
    """The files nearest the root first (a top-level main.py before a helper package),
    one per folder before a second of the same folder, in path order otherwise."""
    ranked = sorted(items, key=lambda e: (e.path.count("/"), e.path))
    seen: set[str] = set()
    first, rest = [], []
    for item in ranked:
        folder = item.path.rsplit("/", 1)[0] if "/" in item.path else ""
        (rest if folder in seen else first).append(item)
        seen.add(folder)
    return first + rest


def _own(tree: TreeIndex, path: str) -> bool:
    return tree.role(path) != "vendored"


def _matlab_gpu_uses(tree: TreeIndex) -> list[Evidence]:
    """MATLAB files that use the GPU (gpuArray, gpuDevice, parallel.gpu.*), one
    item per file at its first such call."""
    found = []
    for path in tree.by_frontend("matlab"):
        facts = tree.facts(path) if _own(tree, path) else None
        calls = [c for c in facts.calls if c.name in _MATLAB_GPU_CALLS or c.name.startswith("parallel.gpu.")] \
            if facts else []
        if calls:
            first = min(calls, key=lambda c: c.line)
            found.append(Evidence(path, f"uses the GPU ({first.name})", rule="hardware_requirements.gpu_call",
                                  line_start=first.line, snippet=tree.snippet(path, first.line)))
    return found


def _native_gpu_uses(tree: TreeIndex) -> list[Evidence]:
    """CUDA sources (.cu, .cuh) and CMake builds that need CUDA (find_package(CUDA|
    CUDAToolkit), a CMAKE_CUDA_STANDARD): the first of each kind."""
    found = []
    sources = [p for p in tree.files if p.lower().endswith(_CUDA_SUFFIXES) and _own(tree, p)]
    if sources:
        found.append(Evidence(sources[0], f"CUDA source ({len(sources)} in the tree)",
                              rule="hardware_requirements.cuda_source"))
    for path in tree.files:
        if _name(path).lower() != "cmakelists.txt" and not path.lower().endswith(".cmake") or not _own(tree, path):
            continue
        build = tree.native_build(path)
        if build is None:
            continue
        lines = [d.line for d in build.dependencies if d.source == "find_package" and d.normalized in _CUDA_PACKAGES]
        lines += [std.line for std in build.standards if "CUDA" in std.text.upper()]
        if lines:
            line = min(lines)
            found.append(Evidence(path, "the build needs CUDA", rule="hardware_requirements.cuda_build",
                                  line_start=line, snippet=tree.snippet(path, line)))
            break
    return found


def _batch_requests(tree: TreeIndex) -> tuple[list[Evidence], list[Evidence]]:
    """(GPU requests, hardware requests) of batch job scripts (#SBATCH/#PBS comments):
    the first of each kind per script."""
    gpus: list[Evidence] = []
    requests: list[Evidence] = []
    for path in tree.files:
        if not path.lower().endswith(_JOB_SCRIPT_SUFFIXES) or not _own(tree, path):
            continue
        comments = tree.shell_comments(path)
        if comments is None:
            continue
        gpu = next(((n, t) for n, t in comments.comments if _BATCH_GPU_RE.match(t.strip())), None)
        request = next(((n, t) for n, t in comments.comments if _BATCH_REQUEST_RE.match(t.strip())), None)
        if gpu is not None:
            gpus.append(Evidence(path, "the batch job requests a GPU", rule="hardware_requirements.batch_gpu",
                                 line_start=gpu[0], snippet=gpu[1]))
        if request is not None:
            requests.append(Evidence(path, "the batch job requests its hardware", rule="hardware_requirements.batch_request",
                                     line_start=request[0], snippet=request[1]))
    return gpus, requests


def _selector_matches(selector: str, labels: set[str], names: set[str]) -> bool:
    """Whether a Nextflow ``withLabel:``/``withName:`` selector (a name, a quoted regular
    expression, a ``!`` negation) matches a label or a process of the pipeline."""
    match = _SELECTOR_RE.search(selector)
    if match is None:
        return True
    pattern = match.group(2).strip().strip("'\"")
    targets = labels if match.group(1) == "Label" else names
    if pattern.startswith("!"):
        return True
    try:
        compiled = re.compile(pattern)
    except re.error:
        return pattern in targets
    return any(compiled.fullmatch(target) for target in targets)


def _workflow_resources(tree: TreeIndex) -> tuple[list[Evidence], list[Evidence]]:
    """(GPU use, resource declarations) of workflow code: a Nextflow ``accelerator``
    directive or a ``containerOptions`` passing ``--gpus``/``--nv`` to a container, a
    Snakemake resource named ``*gpu*`` (GPU use, which also declares it); Nextflow
    ``accelerator``/``cpus``/``memory`` directives and Snakemake ``resources:``/``threads:``
    (declarations). A configuration selector (``withLabel:process_gpu``) counts only when
    a process of the pipeline has that label or name. One item per file and kind."""
    gpus: list[Evidence] = []
    declared: list[Evidence] = []
    nextflow = [p for p in tree.by_frontend("nextflow") if _own(tree, p)]
    facts_of = {p: f for p in nextflow if (f := tree.facts(p)) is not None}
    labels = {d.value.strip("'\"") for f in facts_of.values() for d in f.directives if d.kind == "label"}
    names = {d.name for f in facts_of.values() for d in f.definitions if d.kind == "process"}
    names |= {d.scope for f in facts_of.values() for d in f.directives if d.scope and "." not in d.scope}
    for path, facts in facts_of.items():
        uses: list[tuple[int, str]] = []       # (line, what)
        resources: list[tuple[int, str]] = []
        for directive in facts.directives:
            if not _selector_matches(directive.scope, labels, names):
                continue
            if directive.kind == "accelerator":
                uses.append((directive.line, "an accelerator directive"))
            elif directive.kind == "containerOptions" and _CONTAINER_GPU_RE.search(directive.value):
                uses.append((directive.line, "a container given the GPU"))
            if directive.kind in _NEXTFLOW_RESOURCES:
                resources.append((directive.line, f"{directive.kind} directive"))
        # a directive set with a closure (`accelerator = { … }`) is a block; its selector
        # is the last one opened above it
        selector = ""
        for block in sorted(facts.blocks, key=lambda b: b.line):
            if block.label.startswith(("withLabel", "withName")):
                selector = block.label
            elif block.label.endswith(":=") and block.label[:-2] in _NEXTFLOW_RESOURCES \
                    and _selector_matches(selector, labels, names):
                if block.label == "accelerator:=":
                    uses.append((block.line, "an accelerator directive"))
                resources.append((block.line, f"{block.label[:-2]} directive"))
        _first_of(tree, path, uses, gpus, "hardware_requirements.workflow_gpu", "the workflow runs a step on a GPU")
        _first_of(tree, path, resources, declared, "hardware_requirements.workflow_resources",
                  "the workflow declares the resources of its steps")
    for path in tree.by_frontend("snakemake"):
        facts = tree.facts(path) if _own(tree, path) else None
        if facts is None:
            continue
        uses = [(d.line, "a GPU resource") for d in facts.directives
                if d.kind == "resources" and _GPU_RESOURCE_RE.search(d.value)]
        resources = [(d.line, f"{d.kind}:") for d in facts.directives if d.kind in _SNAKEMAKE_RESOURCES]
        _first_of(tree, path, uses, gpus, "hardware_requirements.workflow_gpu", "the workflow runs a step on a GPU")
        _first_of(tree, path, resources, declared, "hardware_requirements.workflow_resources",
                  "the workflow declares the resources of its steps")
    return gpus, declared


def _first_of(tree: TreeIndex, path: str, items: list[tuple[int, str]], into: list[Evidence], rule: str,
              reason: str) -> None:
    if items:
        line, what = min(items)
        into.append(Evidence(path, f"{reason} ({what})", rule=rule, line_start=line, snippet=tree.snippet(path, line)))


def _python_cells(facts: FileFacts) -> list[tuple[int | None, list[ImportFact], list[CallFact]]]:
    """(cell, import statements in line order, calls) of a Python file (cell None) or of
    each cell of a notebook, in cell order."""
    imports: dict[int | None, list[ImportFact]] = {}
    for ref in facts.imports:
        if ref.kind != "dynamic":
            imports.setdefault(ref.cell, []).append(ref)
    calls: dict[int | None, list[CallFact]] = {}
    for call in facts.calls:
        calls.setdefault(call.cell, []).append(call)
    cells = sorted(set(imports) | set(calls), key=lambda c: c or 0)
    return [(c, sorted(imports.get(c, ()), key=lambda r: (r.line, r.module)), calls.get(c, [])) for c in cells]


def _cuda_call(calls: list[CallFact]) -> int | None:
    """Line of the first ``x.cuda()``, ``device("cuda…")`` or ``x.to("cuda…")``."""
    best = None
    for call in calls:
        last = call.written.rsplit(".", 1)[-1]
        hit = last == "cuda" and "." in call.written
        if not hit and last in ("device", "to"):
            values = list(call.args[:1]) + [v for k, v in call.kwargs if k == "device"]
            hit = any(isinstance(v, str) and v.startswith("cuda") for v in values)
        if hit and (best is None or call.line < best):
            best = call.line
    return best


def _prose_documents(tree: TreeIndex) -> list[str]:
    """README files anywhere, root documentation files and files under docs/ or doc/."""
    readme = tree.readme
    docs: list[str] = [readme] if readme else []
    doc_roots = tuple(d + "/" for d in tree.subdirs("") if _name(d).lower() in ("docs", "doc"))
    for path in tree.files:
        if path == readme:
            continue
        name = _name(path)
        lower = name.lower()
        dot = lower.rfind(".")
        suffix = lower[dot:] if dot > 0 else ""
        if suffix not in _PROSE_SUFFIXES:
            continue
        if lower.startswith(("readme", "install")):
            docs.append(path)
        elif "/" not in path and suffix in (".md", ".markdown", ".rst") and not _NOT_HARDWARE_DOCS_RE.fullmatch(name):
            docs.append(path)
        elif path.startswith(doc_roots) and suffix:
            docs.append(path)
    return docs


def _environment_declarations(tree: TreeIndex) -> Iterator[Evidence]:
    """CUDA-tagged manifest entries, CUDA wheel indexes, GPU base images, ``--gpus``."""
    for manifest in tree.manifests():
        for dep in manifest.dependencies:
            if has_cuda_tag(dep):
                yield Evidence(dep.file or manifest.path, f"CUDA build pinned ({dep.name})",
                               rule="hardware_requirements.cuda_pin", line_start=dep.line, snippet=dep.raw)
                break
        else:
            found = tree.hardware_line(manifest.path, "wheel_index")
            if found is not None:
                yield Evidence(manifest.path, "CUDA wheel index", rule="hardware_requirements.cuda_pin",
                               line_start=found[0], snippet=found[1])
    for path in tree.files:
        name = _name(path)
        if _DOCKERFILE_NAME_RE.fullmatch(name):
            dockerfile = tree.dockerfile(path)
            if dockerfile is None:
                continue
            for stage in dockerfile.stages:
                if _GPU_IMAGE_RE.search(stage.image or ""):
                    yield Evidence(path, f"GPU base image {stage.image}", rule="hardware_requirements.gpu_image",
                                   line_start=stage.line, snippet=f"FROM {stage.image}")
                    break
            else:
                for instruction in dockerfile.instructions:
                    if has_cuda_tag(instruction.args) or _CUDA_WHEEL_INDEX_RE.search(instruction.args) or _GPUS_FLAG_RE.search(instruction.args):
                        yield Evidence(path, "CUDA build installed in the image", rule="hardware_requirements.cuda_pin",
                                       line_start=instruction.line_start, line_end=instruction.line_end,
                                       snippet=f"{instruction.keyword} {instruction.args}")
                        break
        elif _COMPOSE_NAME_RE.fullmatch(name):
            found = tree.hardware_line(path, "compose_gpu")
            if found is not None:
                yield Evidence(path, "container requests an NVIDIA GPU", rule="hardware_requirements.compose_gpu",
                               line_start=found[0], snippet=found[1])


@detector("hardware_requirements", version="2.2.0")
def hardware_requirements(tree: TreeIndex) -> Result:
    """Code that can use a GPU states its hardware requirements (0 or 100; N/A → 100).

    What it checks:
        Applicable when a GPU-capable framework is declared in any dependency manifest
        (torch, tensorflow(-gpu), jax/jaxlib, cupy*, cudf/cuml/rapids, mxnet*,
        (pytorch-)lightning, nvidia-* wheels, pytorch-cuda, cudatoolkit, Julia CUDA …),
        imported in code (Python, R library(torch|tensorflow|keras), Julia using CUDA),
        or the code calls .cuda(), device("cuda") or .to("cuda"); 2.1.0, every ecosystem
        (§0.3 S7 row): MATLAB gpuArray, gpuDevice, gpuDeviceCount, canUseGPU or
        parallel.gpu.* calls; CUDA sources (.cu, .cuh) and CMake builds that need CUDA
        (find_package(CUDA|CUDAToolkit), a CMAKE_CUDA_STANDARD); a batch job script's
        GPU request (#SBATCH --gres=gpu…, --gpus, PBS gpus=); a Nextflow accelerator
        directive or containerOptions passing --gpus/--nv, a Snakemake resource named
        *gpu* (vendored files excepted; a Nextflow configuration selector such as
        withLabel:process_gpu only when a process has that label or name). Then 100 if hardware is
        declared: whole words GPU(s), CUDA, cuDNN, NVIDIA, VRAM, TPU(s), CPU-only, or a
        RAM/memory size in GB, in a README (any folder), a root documentation file,
        INSTALL*, or docs/; a CUDA-tagged manifest entry (+cu118, pytorch-cuda,
        cudatoolkit, -cuda12, [cuda] extras, nvidia-*-cu12) or a CUDA wheel index; a GPU
        base image (FROM nvidia/cuda, *-cuda*/*-gpu tags) or a CUDA build installed in a
        Dockerfile; docker --gpus or a compose file requesting an NVIDIA device; a batch
        job's resource request (#SBATCH --mem, --cpus-per-task, --gres, --gpus; PBS -l
        mem/ncpus/ngpus); workflow resource declarations (Nextflow accelerator, cpus and
        memory directives, Snakemake resources: and threads:). Otherwise 0. CPU and
        memory declarations alone never make a deposit GPU code. With no GPU-capable dependency the metric is not applicable and
        scores 100.
    Why it matters:
        GPU code may fail, run for weeks, or give different numbers on other hardware;
        a reader needs to know what the published run used before trying to repeat it.
    Evidence:
        The triggering dependencies, imports or calls (file, line; the files nearest the
        root first, one per folder before a second, up to five), and the declaration
        (file, line): a document's first statement that is not a line of badges (a badge
        line only when nothing else states hardware), then the environment's declarations
        (a GPU base image, a CUDA build, a batch job's request, a workflow's resource
        directives), which decide only when no document states the hardware. Counts: GPU
        triggers and the deciding declarations.
    How to fix:
        State the hardware in the README: GPU model and memory, CUDA version (or that a
        CPU is enough), and the RAM a full run needs; the fix says what the deposit's GPU
        code needs (the CUDA version torch or CUDA.jl use, the GPU gpuArray needs, the
        compute capability of a CUDA build) and, for a workflow, the accelerator/memory/
        cpus directives or resources:/threads: that declare it per step.
    Known false positives:
        Any mention of GPU/CUDA in the documentation counts, even "no GPU needed" or a
        changelog-style note; torch and tensorflow are GPU-capable but often run on CPU
        only, which still makes the metric applicable; so does MATLAB code that only
        checks for a GPU (canUseGPU) before falling back to the CPU. Any cpus/memory
        directive of a workflow declares the hardware, even when it is not the GPU
        step's.
    """
    triggers = _gpu_triggers(tree)
    batch_gpus, batch_requests = _batch_requests(tree)
    workflow_gpus, workflow_resources = _workflow_resources(tree)
    # §0.3 S7: MATLAB gpuArray, CUDA sources and builds, a batch job's GPU, a workflow step's
    triggers += (_matlab_gpu_uses(tree) + _native_gpu_uses(tree) + batch_gpus + workflow_gpus)[
        : max(0, _MAX_TRIGGERS - len(triggers))]
    if not triggers:
        return Result(100, applicable=False, counts={"gpu_triggers": 0, "declarations": 0},
                      reason="no GPU-capable framework declared, imported or called; not applicable")
    declarations: list[Evidence] = []
    for path in _prose_documents(tree):
        found = tree.hardware_line(path, "declaration")   # a README notebook: its markdown only
        if found is not None:
            declarations.append(Evidence(path, "hardware requirement stated", rule="hardware_requirements.documented",
                                         line_start=found[0], snippet=found[1]))
            break
    environment = list(_environment_declarations(tree)) + batch_requests + workflow_resources
    # the environment declares the hardware too (a GPU base image): shown, and it decides
    # only when no document states the hardware
    shown = declarations + environment
    if not declarations:
        declarations = environment
    counts = {"gpu_triggers": len(triggers), "declarations": len(declarations)}
    evidence = (triggers + shown)[:MAX_EVIDENCE]
    if declarations:
        first = declarations[0]
        return Result(100, evidence=evidence, counts=counts,
                      reason=f"GPU-capable code; hardware declared in {first.path}"
                             + (f" line {first.line_start}" if first.line_start else ""))
    readme = tree.readme or "README.md"
    return Result(0, evidence=evidence, counts=counts, fix=_FIX[fix_ecosystem(tree)].format(readme=readme),
                  reason=f"GPU-capable code ({triggers[0].reason}) but no hardware requirement is stated")
