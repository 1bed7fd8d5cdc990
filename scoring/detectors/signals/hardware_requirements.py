"""S7 hardware_requirements: code that can use a GPU states its hardware requirements."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Sequence

from scoring.detectors.signals._common import (
    MAX_EVIDENCE,
    _line_text,
    _name,
    _text_units,
    _unit_location,
)
from scoring.model import Evidence
from scoring.parsers.manifests import has_cuda_tag
from scoring.parsers.python import CodeUnit
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
# Names tested with ``in`` against CodeUnit.word_text, not a regular expression over the
# source ("cuda" covers "pycuda").
_GPU_HINTS = ("torch", "tensorflow", "jax", "cupy", "cudf", "cuml", "cugraph", "mxnet", "lightning", "paddle",
              "tensorrt", "triton", "numba", "cuda")
_R_GPU_RE = re.compile(r"(?<![\w.])(?:library|require|requireNamespace)\s*\(\s*[\"']?(torch|tensorflow|keras|gpuR)\b")
_JULIA_GPU_RE = re.compile(r"^\s*(?:using|import)\s+[^#]*?(?<![\w.])(CUDA|CuArrays|AMDGPU)(?!\w)")
_HARDWARE_WORDS_RE = re.compile(
    r"(?<![A-Za-z0-9])(?:GPUs?|CUDA|cuDNN|NVIDIA|VRAM|TPUs?|CPU[- ]only)(?![A-Za-z0-9])", re.IGNORECASE
)
_MEMORY_RE = re.compile(
    r"(?<![A-Za-z0-9])\d+(?:\.\d+)?\s*(?:GB|GiB|TB)\s+(?:of\s+)?(?:(?:system|GPU|host|main)\s+)?(?:RAM|memory|VRAM)(?![A-Za-z0-9])"
    r"|(?<![A-Za-z0-9])(?:RAM|memory)(?![A-Za-z0-9])[^.\n]{0,40}?\d+(?:\.\d+)?\s*(?:GB|GiB|TB)(?![A-Za-z0-9])",
    re.IGNORECASE,
)
_GPUS_FLAG_RE = re.compile(r"--gpus\b")
_CUDA_WHEEL_INDEX_RE = re.compile(r"/whl/cu\d+|/cu\d+/torch", re.IGNORECASE)
_GPU_IMAGE_RE = re.compile(r"(?:^|/)nvidia/|nvcr\.io/|(?<![a-z0-9])(?:cuda|cudnn|gpu)(?![a-z])", re.IGNORECASE)
_DOCKERFILE_NAME_RE = re.compile(r"(?:.+\.)?(?:dockerfile|containerfile)(?:\..+)?", re.IGNORECASE)
_COMPOSE_NAME_RE = re.compile(r"(?:docker-)?compose(?:\..+)?\.ya?ml", re.IGNORECASE)
_COMPOSE_GPU_RE = re.compile(r"(?:runtime|driver)\s*:\s*[\"']?nvidia|capabilities\s*:.*\bgpu\b", re.IGNORECASE)
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
    for unit in tree.python_units():
        if unit.path in seen or not any(hint in unit.word_text for hint in _GPU_HINTS):
            continue
        for ref in unit.imports:
            if ref.top in _GPU_IMPORTS or ref.module.startswith("numba.cuda"):
                line, cell = _unit_location(unit, ref.line)
                found.append(Evidence(unit.path, f"imports {ref.module}", rule="hardware_requirements.gpu_import",
                                      line_start=line, cell=cell, snippet=_line_text(unit.lines, ref.line)))
                seen.add(unit.path)
                break
        else:
            call = _cuda_call(unit)
            if call is not None:
                line, cell = _unit_location(unit, call)
                found.append(Evidence(unit.path, "moves computation to a CUDA device", rule="hardware_requirements.cuda_call",
                                      line_start=line, cell=cell, snippet=_line_text(unit.lines, call)))
                seen.add(unit.path)
        if len(found) >= limit:
            return found
    for unit in _text_units(tree):
        if unit.path in seen:
            continue
        pattern = _R_GPU_RE if unit.language == "r" else _JULIA_GPU_RE
        for line, code, raw in unit.code_lines():
            match = pattern.search(code)
            if match:
                found.append(Evidence(unit.path, f"loads {match.group(1)}", rule="hardware_requirements.gpu_import",
                                      line_start=line, cell=unit.cell, snippet=raw))
                seen.add(unit.path)
                break
        if len(found) >= limit:
            break
    return found


def _cuda_call(unit: CodeUnit) -> int | None:
    """Line of ``x.cuda()``, ``device("cuda…")`` or ``x.to("cuda…")``."""
    if "cuda" not in unit.source:
        return None
    for call in unit.calls:
        last = call.written.rsplit(".", 1)[-1]
        if last == "cuda" and "." in call.written:
            return call.line
        if last in ("device", "to"):
            values = [a for a in call.node.args[:1]] + [k.value for k in call.node.keywords if k.arg == "device"]
            if any(isinstance(v, ast.Constant) and isinstance(v.value, str) and v.value.startswith("cuda") for v in values):
                return call.line
    return None


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


def _prose_declaration(path: str, lines: Sequence[str]) -> Evidence | None:
    for number, line in enumerate(lines, start=1):
        if (_HARDWARE_WORDS_RE.search(line) or _MEMORY_RE.search(line) or _GPUS_FLAG_RE.search(line)
                or _CUDA_WHEEL_INDEX_RE.search(line) or has_cuda_tag(line)):
            return Evidence(path, "hardware requirement stated", rule="hardware_requirements.documented",
                            line_start=number, snippet=line)
    return None


def _environment_declarations(tree: TreeIndex) -> Iterator[Evidence]:
    """CUDA-tagged manifest entries, CUDA wheel indexes, GPU base images, ``--gpus``."""
    for manifest in tree.manifests():
        for dep in manifest.dependencies:
            if has_cuda_tag(dep):
                yield Evidence(dep.file or manifest.path, f"CUDA build pinned ({dep.name})",
                               rule="hardware_requirements.cuda_pin", line_start=dep.line, snippet=dep.raw)
                break
        else:
            for number, line in enumerate(tree.lines(manifest.path), start=1):
                if _CUDA_WHEEL_INDEX_RE.search(line) and not line.lstrip().startswith("#"):
                    yield Evidence(manifest.path, "CUDA wheel index", rule="hardware_requirements.cuda_pin",
                                   line_start=number, snippet=line)
                    break
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
            for number, line in enumerate(tree.lines(path), start=1):
                if _COMPOSE_GPU_RE.search(line):
                    yield Evidence(path, "container requests an NVIDIA GPU", rule="hardware_requirements.compose_gpu",
                                   line_start=number, snippet=line)
                    break


@detector("hardware_requirements", version="2.0.0")
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
        (file, line). Counts: GPU triggers and declarations found.
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
        if path.lower().endswith(".ipynb"):
            doc = tree.document(path)  # a README notebook: its markdown, never its outputs
            lines = doc.raw_lines if doc is not None else []
        else:
            lines = tree.lines(path)
        found = _prose_declaration(path, lines)
        if found is not None:
            declarations.append(found)
            break
    if not declarations:
        declarations.extend(_environment_declarations(tree))
    counts = {"gpu_triggers": len(triggers), "declarations": len(declarations)}
    evidence = (triggers + declarations)[:MAX_EVIDENCE]
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
