"""S7 hardware_requirements: code that can use a GPU states its hardware requirements."""

from __future__ import annotations

import re
from collections.abc import Iterator

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
_GPU_IMAGE_RE = re.compile(r"(?:^|/)nvidia/|nvcr\.io/|(?<![a-z0-9])(?:cuda|cudnn|gpu)(?![a-z])", re.IGNORECASE)
_DOCKERFILE_NAME_RE = re.compile(r"(?:.+\.)?(?:dockerfile|containerfile)(?:\..+)?", re.IGNORECASE)
_COMPOSE_NAME_RE = re.compile(r"(?:docker-)?compose(?:\..+)?\.ya?ml", re.IGNORECASE)
_PROSE_SUFFIXES = ("", ".md", ".markdown", ".rst", ".txt")
_NOT_HARDWARE_DOCS_RE = re.compile(
    r"(?:license|licence|copying|changelog|changes|news|history|code_of_conduct|authors|contributors)(?:[-_.].*)?"
    r"|(?:.*[-_.])?(?:requirements|constraints)(?:[-_.].*)?\.(?:txt|in)",
    re.IGNORECASE,
)


def _gpu_triggers(tree: TreeIndex, limit: int = 5) -> list[Evidence]:
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
                found.append(Evidence(path, f"imports {ref.module}", rule="hardware_requirements.gpu_import",
                                      line_start=ref.line, cell=cell, snippet=tree.snippet(path, ref.line, cell)))
                seen.add(path)
                break
            line = _cuda_call(calls)
            if line is not None:
                found.append(Evidence(path, "moves computation to a CUDA device", rule="hardware_requirements.cuda_call",
                                      line_start=line, cell=cell, snippet=tree.snippet(path, line, cell)))
                seen.add(path)
                break
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


@detector("hardware_requirements", version="2.0.1")
def hardware_requirements(tree: TreeIndex) -> Result:
    """Code that can use a GPU states its hardware requirements (0 or 100; N/A → 100).

    What it checks:
        Applicable when a GPU-capable framework is declared in any dependency manifest
        (torch, tensorflow(-gpu), jax/jaxlib, cupy*, cudf/cuml/rapids, mxnet*,
        (pytorch-)lightning, nvidia-* wheels, pytorch-cuda, cudatoolkit, Julia CUDA …),
        imported in code (Python, R library(torch|tensorflow|keras), Julia using CUDA),
        or the code calls .cuda(), device("cuda") or .to("cuda"). Then 100 if hardware is
        declared: whole words GPU(s), CUDA, cuDNN, NVIDIA, VRAM, TPU(s), CPU-only, or a
        RAM/memory size in GB, in a README (any folder), a root documentation file,
        INSTALL*, or docs/; a CUDA-tagged manifest entry (+cu118, pytorch-cuda,
        cudatoolkit, -cuda12, [cuda] extras, nvidia-*-cu12) or a CUDA wheel index; a GPU
        base image (FROM nvidia/cuda, *-cuda*/*-gpu tags) or a CUDA build installed in a
        Dockerfile; docker --gpus or a compose file requesting an NVIDIA device.
        Otherwise 0. With no GPU-capable dependency the metric is not applicable and
        scores 100.
    Why it matters:
        GPU code may fail, run for weeks, or give different numbers on other hardware;
        a reader needs to know what the published run used before trying to repeat it.
    Evidence:
        The triggering dependency, import or call (file, line), and the declaration
        (file, line): a document's first statement that is not a line of badges (a badge
        line only when nothing else states hardware), then the environment's declarations
        (a GPU base image, a CUDA build), which decide only when no document states the
        hardware. Counts: GPU triggers and the deciding declarations.
    How to fix:
        State the hardware in the README: GPU model and memory, CUDA version (or that a
        CPU is enough), and the RAM a full run needs.
    Known false positives:
        Any mention of GPU/CUDA in the documentation counts, even "no GPU needed" or a
        changelog-style note; torch and tensorflow are GPU-capable but often run on CPU
        only, which still makes the metric applicable.
    """
    triggers = _gpu_triggers(tree)
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
    environment = list(_environment_declarations(tree))
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
    return Result(0, evidence=evidence, counts=counts,
                  fix=f"State the hardware in {readme}: GPU model and memory and CUDA version, or that a CPU is enough, "
                      "and the RAM a full run needs.",
                  reason=f"GPU-capable code ({triggers[0].reason}) but no hardware requirement is stated")
