"""The detector registry: one registered function per sub-metric.

A detector is a small function ``(tree: TreeIndex) -> Result`` decorated with
``@detector(metric_id, version=...)``. Its docstring is its documentation and must
carry the five sections below (a test enforces it, and ``reproscore explain`` prints
it). The registry turns a ``Result`` into a typed :class:`~scoring.model.Measurement`
stamped with the metric id, category and detector version.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .catalog import METRIC_IDS, METRICS_BY_ID
from .model import OUTCOME_MEASURED, OUTCOME_NOT_APPLICABLE, Evidence, Measurement

if TYPE_CHECKING:
    from .tree import TreeIndex

DOC_SECTIONS = (
    "What it checks",
    "Why it matters",
    "Evidence",
    "How to fix",
    "Known false positives",
)


@dataclass
class Result:
    """What a detector returns.

    ``applicable=False`` marks a not-applicable measurement; ``value`` must then be the
    contract's fill value for that metric (METRICS.md §3.0 / §0.1.1).
    """

    value: float
    level: str | None = None
    evidence: list[Evidence] = field(default_factory=list)
    fix: str | None = None
    reason: str = ""
    counts: dict[str, Any] = field(default_factory=dict)
    applicable: bool = True
    truncated: bool = False


@dataclass(frozen=True)
class Detector:
    metric_id: str
    code: str
    category: str
    version: str
    func: Callable[[TreeIndex], Result]
    module: str

    @property
    def doc(self) -> str:
        """The docstring, with each ``{shared:NAME}`` line replaced by the fragment of that
        name (:func:`shared_doc`) at the line's indentation."""
        return _expand_shared(inspect.cleandoc(self.func.__doc__ or ""))

    def sections(self) -> dict[str, str]:
        """The docstring split into its titled sections (title → body)."""
        return parse_doc_sections(self.doc)

    def run(self, tree: TreeIndex) -> Measurement:
        result = self.func(tree)
        if not isinstance(result, Result):
            raise TypeError(f"detector {self.metric_id} returned {type(result).__name__}, not Result")
        if not 0 <= result.value <= 100:
            raise ValueError(f"detector {self.metric_id} returned value {result.value} outside [0, 100]")
        return Measurement(
            metric_id=self.metric_id,
            category=self.category,
            value=float(result.value),
            applicable=result.applicable,
            level=result.level,
            evidence=list(result.evidence),
            fix=result.fix,
            reason=result.reason,
            counts=dict(result.counts),
            outcome=OUTCOME_MEASURED if result.applicable else OUTCOME_NOT_APPLICABLE,
            detector_version=self.version,
            truncated=result.truncated,
        )


# Rules several detectors apply through one shared fact (A1-A4's deposit kind) are
# documented once: each docstring names the fragment on a line of its own.
SHARED_DOCS: dict[str, str] = {}
_SHARED_LINE = re.compile(r"^(?P<indent>[ \t]*)\{shared:(?P<name>\w+)\}[ \t]*$", re.MULTILINE)


def shared_doc(name: str, text: str) -> str:
    """Register ``text`` as the documentation fragment ``name``; returns its name."""
    SHARED_DOCS[name] = inspect.cleandoc(text)
    return name


def _expand_shared(doc: str) -> str:
    def expand(match: re.Match[str]) -> str:
        indent = match["indent"]
        return "\n".join(indent + line if line else line for line in SHARED_DOCS[match["name"]].splitlines())
    return _SHARED_LINE.sub(expand, doc)


REGISTRY: dict[str, Detector] = {}

_SECTION_RE = re.compile(r"^(?P<title>[A-Z][A-Za-z ]+):\s*$")


def parse_doc_sections(doc: str) -> dict[str, str]:
    sections: dict[str, list[str]] = {"": []}
    current = ""
    for line in doc.splitlines():
        match = _SECTION_RE.match(line)
        if match and match.group("title") in DOC_SECTIONS:
            current = match.group("title")
            sections[current] = []
        else:
            sections[current].append(line)
    return {title: inspect.cleandoc("\n".join(body)) for title, body in sections.items()}


def detector(metric_id: str, *, version: str) -> Callable[[Callable[[TreeIndex], Result]], Callable[[TreeIndex], Result]]:
    """Register ``func`` as the detector of ``metric_id`` (an id of scoring.catalog)."""
    spec = METRICS_BY_ID.get(metric_id)
    if spec is None:
        raise KeyError(f"unknown metric id {metric_id!r}")

    def register(func: Callable[[TreeIndex], Result]) -> Callable[[TreeIndex], Result]:
        if metric_id in REGISTRY:
            raise ValueError(f"detector {metric_id} registered twice")
        REGISTRY[metric_id] = Detector(
            metric_id=metric_id,
            code=spec.code,
            category=spec.category,
            version=version,
            func=func,
            module=func.__module__,
        )
        return func

    return register


def load_detectors() -> dict[str, Detector]:
    """Import the detector modules (which register their detectors) and return the
    registry, in the catalog's order (E1 … S7) whatever order the modules were imported in."""
    from .detectors import load_all

    load_all()
    for metric_id in sorted(REGISTRY, key=METRIC_IDS.index):
        REGISTRY[metric_id] = REGISTRY.pop(metric_id)
    return REGISTRY
