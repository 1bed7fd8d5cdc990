"""Hardware statements in text files (S7 hardware_requirements): the first line of a
document that states hardware (GPU, CUDA, a memory size…), of a requirements file that
names a CUDA wheel index, of a compose file that requests an NVIDIA device. Each scan is
made once per file and kind (``TreeIndex.hardware_line``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from scoring.parsers.manifests import has_cuda_tag

__all__ = ["CUDA_WHEEL_INDEX_RE", "GPUS_FLAG_RE", "KINDS", "first_hardware_line"]

HARDWARE_WORDS_RE = re.compile(
    r"(?<![A-Za-z0-9])(?:GPUs?|CUDA|cuDNN|NVIDIA|VRAM|TPUs?|CPU[- ]only)(?![A-Za-z0-9])", re.IGNORECASE
)
MEMORY_RE = re.compile(
    r"(?<![A-Za-z0-9])\d+(?:\.\d+)?\s*(?:GB|GiB|TB)\s+(?:of\s+)?(?:(?:system|GPU|host|main)\s+)?(?:RAM|memory|VRAM)(?![A-Za-z0-9])"
    r"|(?<![A-Za-z0-9])(?:RAM|memory)(?![A-Za-z0-9])[^.\n]{0,40}?\d+(?:\.\d+)?\s*(?:GB|GiB|TB)(?![A-Za-z0-9])",
    re.IGNORECASE,
)
GPUS_FLAG_RE = re.compile(r"--gpus\b")
CUDA_WHEEL_INDEX_RE = re.compile(r"/whl/cu\d+|/cu\d+/torch", re.IGNORECASE)
COMPOSE_GPU_RE = re.compile(r"(?:runtime|driver)\s*:\s*[\"']?nvidia|capabilities\s*:.*\bgpu\b", re.IGNORECASE)


def _declares(line: str) -> bool:
    return bool(HARDWARE_WORDS_RE.search(line) or MEMORY_RE.search(line) or GPUS_FLAG_RE.search(line)
                or CUDA_WHEEL_INDEX_RE.search(line) or has_cuda_tag(line))


def _wheel_index(line: str) -> bool:
    return bool(CUDA_WHEEL_INDEX_RE.search(line)) and not line.lstrip().startswith("#")


def _compose_gpu(line: str) -> bool:
    return bool(COMPOSE_GPU_RE.search(line))


# kind -> the test of one line: "declaration" (prose stating hardware), "wheel_index"
# (an uncommented CUDA wheel index), "compose_gpu" (a compose file's NVIDIA device)
KINDS = {"declaration": _declares, "wheel_index": _wheel_index, "compose_gpu": _compose_gpu}


# A line of badges: RST substitution references (`|PyPI| |Docker CUDA|`) or their image
# definitions, Markdown image links, HTML images. A badge label is not a statement.
_BADGE_LINE_RE = re.compile(
    r"^\s*(?:(?:\|[^|]+\|\s*)+|\.\.\s+\|[^|]+\|\s+image::.*|.*\[!\[.*|.*<img\b.*)$", re.IGNORECASE
)


def first_hardware_line(lines: Sequence[str], kind: str) -> tuple[int, str] | None:
    """(line number, line) of the first line of ``kind`` (see ``KINDS``), or None. A
    declaration is the first statement that is not a line of badges, the first badge line
    only when nothing else states hardware."""
    test = KINDS[kind]
    badge = None
    for number, line in enumerate(lines, start=1):
        if test(line):
            if kind != "declaration" or not _BADGE_LINE_RE.match(line):
                return number, line
            badge = badge or (number, line)
    return badge
