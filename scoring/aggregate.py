"""From 26 sub-metric values to the scores (METRICS.md §4–§6, §8–§9).

* **RRS** (readiness): within-category weighted sums, the soft gate ``g(x, τ, k)``,
  category weights, threshold penalties and clamping.
* **ROS** (outcome): a weighted mean of whichever execution outcomes were observed.
* **RCS** (combined): RRS and ROS mixed by a coverage-dependent weight α.

The arithmetic is the compatibility contract with the paper's published data: IEEE
doubles, sums in catalog order, threshold comparisons on unrounded values and Python
``round`` (half-even on the double) only for reported scores. :func:`compile_rubric`
holds the single implementation of the RRS arithmetic; everything else builds records
around it.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .catalog import CATEGORY_KEYS, METRIC_IDS
from .declared import DeclaredMetadata
from .model import OUTCOME_ERROR, Inventory, Measurement, Measurements
from .rubric import DEFAULT_INPUT_SCALES, ROS_COMPONENT_ALIASES, ROS_COMPONENT_IDS, Rubric

__all__ = [
    "RESULT_SCHEMA",
    "SCORER_NAME",
    "CategoryScore",
    "CompiledRubric",
    "IncompleteMeasurements",
    "PenaltyResult",
    "RcsResult",
    "RosComponentResult",
    "RosResult",
    "Score",
    "alpha",
    "compile_rubric",
    "compute_rcs",
    "compute_ros",
    "gate",
    "score",
    "score_from_values",
]

RESULT_SCHEMA = "reproscore-result/2"
SCORER_NAME = "reproscore"
ALPHA_DIGITS = 4
COVERAGE_DIGITS = 4
RCS_BOUNDS = (0.0, 100.0)

_METRIC_INDEX: dict[str, int] = {mid: i for i, mid in enumerate(METRIC_IDS)}


def _scorer_version() -> str:
    # Imported on use: scoring/__init__.py may grow imports of this module, and a
    # module-level import would then be circular.
    from scoring import __version__

    return __version__


class IncompleteMeasurements(ValueError):
    """Some of the 26 sub-metrics have no usable value; a partial RRS would be misleading."""

    def __init__(self, problems: Mapping[str, str]) -> None:
        self.problems: dict[str, str] = dict(problems)
        self.metric_ids: list[str] = list(self.problems)
        details = "; ".join(f"{mid} ({why})" for mid, why in self.problems.items())
        super().__init__(f"cannot score: {len(self.problems)} sub-metric(s) unusable: {details}")


# --------------------------------------------------------------------------- gate and RRS


def gate(x: float, tau: float, k: float) -> float:
    """The soft gate of §5: linear (x/100) at or above τ, ``(x/τ)^k · τ/100`` below it."""
    if x >= tau:
        return x / 100.0
    return (x / tau) ** k * (tau / 100.0)


class CompiledRubric:
    """A rubric reduced to index/weight tuples for fast rescoring.

    Calling it on the 26 sub-metric values in catalog order returns
    ``(raws, gateds, fired, rrs_unclamped, rrs)``: raw and gated scores per category
    (rubric category order E, A, D, C, S), one bool per rubric penalty, and the scores.
    Values are trusted: range checks belong to the callers that build them.
    """

    __slots__ = (
        "rubric",
        "category_keys",
        "penalty_ids",
        "_categories",
        "_category_ids",
        "_inapplicable_by_pattern",
        "_penalties",
        "_low",
        "_high",
        "_digits",
    )

    def __init__(self, rubric: Rubric) -> None:
        self.rubric = rubric
        self.category_keys: tuple[str, ...] = tuple(rubric.categories)
        self.penalty_ids: tuple[str, ...] = tuple(p.id for p in rubric.penalties)
        self._categories = tuple(
            (
                tuple((_METRIC_INDEX[mid], weight) for mid, weight in rule.submetrics.items()),
                rule.weight,
                rule.tau,
                rule.k,
            )
            for rule in rubric.categories.values()
        )
        self._category_ids = tuple(
            frozenset(METRIC_IDS[index] for index, _ in terms) for terms, _w, _tau, _k in self._categories
        )
        # a collection has few distinct not-applicable patterns (one per deposit kind and
        # ecosystem, roughly): a rescore decides each once
        self._inapplicable_by_pattern: dict[frozenset[str], frozenset[int]] = {}
        category_position = {key: i for i, key in enumerate(self.category_keys)}
        self._penalties = tuple(
            (
                p.target_kind == "category",
                category_position[p.target]
                if p.target_kind == "category"
                else _METRIC_INDEX[p.target],
                p.below,
                p.points,
            )
            for p in rubric.penalties
        )
        self._low, self._high = rubric.clamp
        self._digits = rubric.rounding.score

    def inapplicable_categories(self, applicable: Mapping[str, bool] | None) -> frozenset[int]:
        """Positions of the categories whose sub-metrics are all not applicable.

        A category-target penalty does not fire on such a category (METRICS.md §0.3,
        deposit kind); a metric missing from ``applicable`` counts as applicable.
        """
        if not applicable:
            return frozenset()
        pattern = frozenset(metric for metric, is_applicable in applicable.items() if not is_applicable)
        found = self._inapplicable_by_pattern.get(pattern)
        if found is None:
            found = frozenset(i for i, ids in enumerate(self._category_ids) if ids and ids <= pattern)
            if len(self._inapplicable_by_pattern) < 4096:
                self._inapplicable_by_pattern[pattern] = found
        return found

    def __call__(
        self, values: Sequence[float], inapplicable: Collection[int] = ()
    ) -> tuple[tuple[float, ...], tuple[float, ...], tuple[bool, ...], float, float]:
        """Score ``values``; ``inapplicable`` holds category positions (see
        :meth:`inapplicable_categories`) whose category-target penalties never fire."""
        raws: list[float] = []
        gateds: list[float] = []
        base = 0.0
        for terms, weight, tau, k in self._categories:
            total = 0.0
            for index, sub_weight in terms:
                total += sub_weight * (values[index] / 100.0)
            raw = 100.0 * total
            gated = 100.0 * weight * gate(raw, tau, k)
            raws.append(raw)
            gateds.append(gated)
            base += gated
        fired: list[bool] = []
        unclamped = base
        for on_category, index, below, points in self._penalties:
            if on_category:
                hit = raws[index] < below and not (inapplicable and index in inapplicable)
            else:
                hit = values[index] < below
            fired.append(hit)
            if hit:
                unclamped -= points
        rrs = round(min(self._high, max(self._low, unclamped)), self._digits)
        return tuple(raws), tuple(gateds), tuple(fired), unclamped, rrs


_COMPILED: dict[str, CompiledRubric] = {}


def compile_rubric(rubric: Rubric) -> CompiledRubric:
    """The compiled form of ``rubric``, cached by content hash."""
    compiled = _COMPILED.get(rubric.sha256)
    if compiled is None:
        compiled = _COMPILED[rubric.sha256] = CompiledRubric(rubric)
    return compiled


@dataclass(frozen=True)
class CategoryScore:
    key: str
    raw: float
    gated: float
    weight: float
    tau: float
    k: float
    applicable_only_raw: float | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "raw": self.raw,
            "gated": self.gated,
            "weight": self.weight,
            "tau": self.tau,
            "k": self.k,
            "applicable_only_raw": self.applicable_only_raw,
        }


@dataclass(frozen=True)
class PenaltyResult:
    id: str
    fired: bool
    points: float  # applied: 0 when not fired
    observed: float
    threshold: float
    target: str
    target_kind: str
    rule_points: float  # what the rubric would deduct

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "fired": self.fired,
            "points": self.points,
            "observed": self.observed,
            "threshold": self.threshold,
            "target": self.target,
        }


def _values_tuple(values: Mapping[str, Any]) -> tuple[float, ...]:
    missing = {mid: "missing" for mid in METRIC_IDS if values.get(mid) is None}
    if missing:
        raise IncompleteMeasurements(missing)
    unknown = sorted(set(values) - set(METRIC_IDS))
    if unknown:
        raise ValueError(f"unknown sub-metric id(s): {', '.join(unknown)}")
    checked = []
    for mid in METRIC_IDS:
        value = values[mid]
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not 0.0 <= value <= 100.0
        ):
            raise ValueError(f"{mid}: value must be a number within [0, 100] (got {value!r})")
        checked.append(float(value))
    return tuple(checked)


def _applicable_only_raw(
    submetrics: Mapping[str, float], values: Sequence[float], applicable: Mapping[str, bool]
) -> float | None:
    total = 0.0
    weight_sum = 0.0
    for mid, weight in submetrics.items():
        if applicable.get(mid, True):
            total += weight * (values[_METRIC_INDEX[mid]] / 100.0)
            weight_sum += weight
    return None if weight_sum == 0.0 else 100.0 * total / weight_sum


def _evaluate(
    values: tuple[float, ...], rubric: Rubric, applicable: Mapping[str, bool]
) -> tuple[dict[str, CategoryScore], list[PenaltyResult], float, float]:
    compiled = compile_rubric(rubric)
    raws, gateds, fired, unclamped, rrs = compiled(
        values, compiled.inapplicable_categories(applicable)
    )
    categories: dict[str, CategoryScore] = {}
    for i, (key, rule) in enumerate(rubric.categories.items()):
        categories[key] = CategoryScore(
            key=key,
            raw=raws[i],
            gated=gateds[i],
            weight=rule.weight,
            tau=rule.tau,
            k=rule.k,
            applicable_only_raw=_applicable_only_raw(rule.submetrics, values, applicable),
        )
    penalties: list[PenaltyResult] = []
    for penalty, hit in zip(rubric.penalties, fired, strict=True):
        if penalty.target_kind == "category":
            observed = categories[penalty.target].raw
        else:
            observed = values[_METRIC_INDEX[penalty.target]]
        penalties.append(
            PenaltyResult(
                id=penalty.id,
                fired=hit,
                points=penalty.points if hit else 0.0,
                observed=observed,
                threshold=penalty.below,
                target=penalty.target,
                target_kind=penalty.target_kind,
                rule_points=penalty.points,
            )
        )
    return categories, penalties, unclamped, rrs


def score_from_values(
    values: Mapping[str, float], rubric: Rubric, *, applicable: Mapping[str, bool] | None = None
) -> tuple[dict[str, CategoryScore], list[PenaltyResult], float, float]:
    """``(categories, penalties, rrs_unclamped, rrs)`` from the 26 values keyed by metric id.

    ``applicable`` (default: all applicable) feeds the diagnostic
    ``applicable_only_raw`` and stops a category-target penalty from firing when every
    sub-metric of its category is not applicable (METRICS.md §0.3, deposit kind).
    """
    return _evaluate(_values_tuple(values), rubric, applicable or {})


# --------------------------------------------------------------------------- ROS, α, RCS


@dataclass(frozen=True)
class RosComponentResult:
    id: str
    input: Any  # the raw input as given
    y: float  # converted to [0, 100]
    weight: float

    def to_dict(self) -> dict[str, Any]:
        return {"input": self.input, "y": round(self.y, 2), "weight": self.weight}


@dataclass(frozen=True)
class RosResult:
    components: Mapping[str, RosComponentResult]  # canonical component order
    coverage: float
    value: float  # unrounded

    @property
    def components_list(self) -> list[str]:
        return list(self.components)

    def to_dict(self) -> dict[str, Any]:
        return {
            "components": {cid: c.to_dict() for cid, c in self.components.items()},
            "coverage": round(self.coverage, COVERAGE_DIGITS),
            "value": round(self.value, 2),
            "components_list": self.components_list,
        }


@dataclass(frozen=True)
class RcsResult:
    alpha: float  # unrounded, as used
    value: float

    def to_dict(self) -> dict[str, Any]:
        return {"alpha": round(self.alpha, ALPHA_DIGITS), "value": self.value}


def _convert_ros_input(key: str, raw: Any, scale: str) -> float:
    if scale == "boolean":
        if not isinstance(raw, bool):
            raise ValueError(f"ROS component {key}: expected a boolean, got {raw!r}")
        return 100.0 if raw else 0.0
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not math.isfinite(raw):
        raise ValueError(f"ROS component {key}: expected a number ({scale}), got {raw!r}")
    high = 1.0 if scale == "fraction" else 100.0
    if not 0.0 <= raw <= high:
        raise ValueError(
            f"ROS component {key}: {scale} input must be within [0, {high:g}] (got {raw!r})"
        )
    return float(raw) * 100.0 if scale == "fraction" else float(raw)


def compute_ros(components: Mapping[str, Any] | None, rubric: Rubric) -> RosResult | None:
    """The ROS over the provided components, or None when it is undefined.

    Inputs are converted by the rubric's declared scale (boolean → 100/0; percent used
    as given; fraction × 100). ``E`` is accepted for ``E_prime``; a None input counts as
    not provided; a component the rubric does not weight is recorded with weight 0.
    """
    if not components:
        return None
    found: dict[str, RosComponentResult] = {}
    for key, raw in components.items():
        cid = ROS_COMPONENT_ALIASES.get(key, key)
        if cid not in ROS_COMPONENT_IDS:
            raise ValueError(
                f"unknown ROS component {key!r} (expected one of {', '.join(ROS_COMPONENT_IDS)})"
            )
        if raw is None:
            continue
        if cid in found:
            raise ValueError(f"ROS component {cid} given twice (E is an alias of E_prime)")
        rule = rubric.ros.get(cid)
        scale = rule.input if rule is not None else DEFAULT_INPUT_SCALES[cid]
        weight = rule.weight if rule is not None else 0.0
        found[cid] = RosComponentResult(cid, raw, _convert_ros_input(key, raw, scale), weight)
    ordered = {cid: found[cid] for cid in ROS_COMPONENT_IDS if cid in found}
    coverage = 0.0
    weighted = 0.0
    for component in ordered.values():
        coverage += component.weight
        weighted += component.weight * component.y
    if coverage == 0.0:
        return None
    return RosResult(components=ordered, coverage=coverage, value=weighted / coverage)


def alpha(coverage: float | None, rubric: Rubric) -> float:
    """The RCS weight of the ROS: 0 without outcome data, else ``max(min(cov,1)·α_max, α_min)``."""
    if coverage is None or coverage <= 0.0:
        return 0.0
    return max(min(coverage, 1.0) * rubric.alpha_max, rubric.alpha_min)


def compute_rcs(rrs: float, ros: RosResult | None, rubric: Rubric) -> RcsResult:
    """RCS = RRS without outcome data, else ``clamp((1−α)·RRS + α·ROS)`` rounded.

    α and ROS enter as they are published (α to ``ALPHA_DIGITS``, ROS to 2 decimals), so
    a reader recomputes the stored RCS exactly from the stored RRS, ROS and α."""
    if ros is None:
        return RcsResult(alpha=0.0, value=rrs)
    weight = round(alpha(ros.coverage, rubric), ALPHA_DIGITS)
    mixed = (1.0 - weight) * rrs + weight * round(ros.value, 2)
    low, high = RCS_BOUNDS
    return RcsResult(alpha=weight, value=round(min(high, max(low, mixed)), rubric.rounding.score))


# --------------------------------------------------------------------------- full score


@dataclass(frozen=True)
class Score:
    """The scores of one measured tree under one rubric (the §10 result record core)."""

    rubric: Mapping[str, str]  # {name, version, sha256}
    rrs: float
    rrs_unclamped: float
    penalties: tuple[PenaltyResult, ...]
    categories: Mapping[str, CategoryScore]
    submetrics: Mapping[str, Measurement]  # catalog order
    detectors: Mapping[str, str]
    inventory: Inventory
    ros: RosResult | None
    rcs: RcsResult
    scorer_name: str = SCORER_NAME
    scorer_version: str = ""
    declared: DeclaredMetadata | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": RESULT_SCHEMA,
            "scorer": {"name": self.scorer_name, "version": self.scorer_version},
            "rubric": dict(self.rubric),
            "rrs": self.rrs,
            "rrs_unclamped": self.rrs_unclamped,
            "penalties": [p.to_dict() for p in self.penalties],
            "categories": {key: c.to_dict() for key, c in self.categories.items()},
            "submetrics": {mid: m.to_dict() for mid, m in self.submetrics.items()},
            "detectors": dict(self.detectors),
            "inventory": self.inventory.to_dict(),
            "declared": None if self.declared is None else self.declared.to_dict(),
            "ros": None if self.ros is None else self.ros.to_dict(),
            "rcs": self.rcs.to_dict(),
        }


def _usable_values(measurements: Measurements) -> tuple[float, ...]:
    by_id = measurements.measurements
    problems: dict[str, str] = {}
    for mid in METRIC_IDS:
        measurement = by_id.get(mid)
        if measurement is None:
            problems[mid] = "missing"
        elif measurement.outcome == OUTCOME_ERROR:
            problems[mid] = (
                f"detector error: {measurement.reason}" if measurement.reason else "detector error"
            )
        elif measurement.value is None:
            problems[mid] = "no value"
    if problems:
        raise IncompleteMeasurements(problems)
    return _values_tuple({mid: by_id[mid].value for mid in by_id})


def score(
    measurements: Measurements, rubric: Rubric, *, outcomes: Mapping[str, Any] | None = None
) -> Score:
    """Score a complete set of measurements; ``outcomes`` are optional ROS inputs.

    Raises :class:`IncompleteMeasurements` when any of the 26 sub-metrics is missing,
    failed, or has no value.
    """
    values = _usable_values(measurements)
    by_id = measurements.measurements
    applicable = {mid: by_id[mid].applicable for mid in METRIC_IDS}
    categories, penalties, unclamped, rrs = _evaluate(values, rubric, applicable)
    ros = compute_ros(outcomes, rubric)
    return Score(
        rubric=rubric.identity(),
        rrs=rrs,
        rrs_unclamped=unclamped,
        penalties=tuple(penalties),
        categories={key: categories[key] for key in CATEGORY_KEYS},
        submetrics={mid: by_id[mid] for mid in METRIC_IDS},
        detectors={mid: by_id[mid].detector_version for mid in METRIC_IDS},
        inventory=measurements.inventory,
        ros=ros,
        rcs=compute_rcs(rrs, ros, rubric),
        scorer_name=SCORER_NAME,
        scorer_version=_scorer_version() or measurements.scorer_version,
        declared=measurements.declared,
    )
