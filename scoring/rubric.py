"""Community rubrics (METRICS.md §7): loading, strict validation, inheritance and identity.

A rubric is the *policy* half of a score: category weights and gates, within-category
weights, penalties, clamping, ROS weights and the RCS coverage bounds. Two formats are
read:

* **v2** (``schema: reproscore-rubric/2``), the format of the bundled rubrics;
* the **REF v1** format of the reference implementation (a file without ``schema``),
  mapped into v2 with the sections it lacks taken from the paper's defaults.

Every rubric is resolved (``extends`` applied, defaults filled) into one canonical v2
structure whose scoring-relevant part is hashed with RFC 8785 (JCS); that hash, with the
name and version, identifies the rubric in every result. Nothing here falls back
silently: a file that cannot be read, parsed or validated is an error listing every
problem, one per line, each starting with the key path it concerns.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import rfc8785
import yaml

from rubrics import RUBRICS_DIR

from .catalog import CATEGORY_KEYS, METRIC_IDS, METRICS_BY_ID, metrics_of

__all__ = [
    "DEFAULT_RUBRIC_NAME",
    "INPUT_SCALES",
    "ROS_COMPONENT_IDS",
    "SCHEMA_KEYS",
    "SCHEMA_V2",
    "CategoryRule",
    "Penalty",
    "RosComponent",
    "Rounding",
    "Rubric",
    "RubricError",
    "clear_registry",
    "known_identity",
    "list_bundled",
    "load_rubric",
    "parse_rubric",
    "register",
]

SCHEMA_V2 = "reproscore-rubric/2"
DEFAULT_RUBRIC_NAME = "default"

ROS_COMPONENT_IDS: tuple[str, ...] = ("I", "X", "delta", "N", "E_prime", "T")
# The REF spells E′ as ``E``, which collides visually with category E; accept it on input only.
ROS_COMPONENT_ALIASES: Mapping[str, str] = MappingProxyType({"E": "E_prime"})
INPUT_SCALES: tuple[str, ...] = ("boolean", "percent", "fraction")
# Scales of the REF's inputs (METRICS.md §8): v1 files cannot declare them.
DEFAULT_INPUT_SCALES: Mapping[str, str] = MappingProxyType(
    {
        "I": "boolean",
        "X": "boolean",
        "delta": "percent",
        "N": "fraction",
        "E_prime": "fraction",
        "T": "fraction",
    }
)
ROUNDING_MODES: tuple[str, ...] = ("half_even",)

WEIGHT_TOLERANCE = 1e-6
LEGACY_WEIGHT_TOLERANCE = 0.01

TOP_LEVEL_KEYS = (
    "schema", "name", "version", "extends", "description", "rationale", "maintainers",
    "license", "categories", "penalties", "clamp", "ros", "rcs", "rounding",
)  # fmt: skip
SCORING_SECTIONS = ("categories", "penalties", "clamp", "ros", "rcs", "rounding")
CATEGORY_ENTRY_KEYS = ("weight", "tau", "k", "submetrics", "name", "description")
PENALTY_KEYS = ("id", "target", "below", "points")
PENALTY_TARGET_KINDS = ("category", "submetric")
ROS_KEYS = ("components",)
ROS_COMPONENT_KEYS = ("weight", "input", "description")
RCS_KEYS = ("alpha_max", "alpha_min")
ROUNDING_KEYS = ("submetric", "category", "score", "mode")

LEGACY_TOP_LEVEL_KEYS = (
    "name",
    "version",
    "description",
    "categories",
    "penalties",
    "ros_components",
    "rcs",
)
LEGACY_CATEGORY_KEYS = ("weight", "tau", "k", "name", "description")
LEGACY_ROS_COMPONENT_KEYS = ("weight", "description")
# (v2 id, v2 target, v1 threshold key, v1 points key), in the order the REF applies them.
_LEGACY_PENALTIES = (
    (
        "environment_hard",
        {"category": "E"},
        "environment_hard_threshold",
        "environment_hard_penalty",
    ),
    ("data_hard", {"category": "A"}, "data_hard_threshold", "data_hard_penalty"),
    ("seed", {"submetric": "seed_management"}, "seed_threshold", "seed_penalty"),
)
LEGACY_PENALTY_KEYS = tuple(key for rule in _LEGACY_PENALTIES for key in rule[2:])

#: Every key either format knows; the schema reference (docs/rubrics.md) documents each.
SCHEMA_KEYS: frozenset[str] = frozenset(
    TOP_LEVEL_KEYS
    + CATEGORY_ENTRY_KEYS
    + PENALTY_KEYS
    + PENALTY_TARGET_KINDS
    + ROS_KEYS
    + ROS_COMPONENT_KEYS
    + RCS_KEYS
    + ROUNDING_KEYS
    + LEGACY_TOP_LEVEL_KEYS
    + LEGACY_PENALTY_KEYS
    + CATEGORY_KEYS
    + ROS_COMPONENT_IDS
    + tuple(ROS_COMPONENT_ALIASES)
)

_NAME_RE = re.compile(r"[a-z0-9-]+")
_PENALTY_ID_RE = re.compile(r"[a-z0-9][a-z0-9_-]*")
_SEMVER_RE = re.compile(
    r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*)?"
    r"(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?"
)


def _paper_defaults() -> dict[str, Any]:
    """The paper's default policy (Table 1, §6.1, §8, §9) as raw v2 sections.

    Built fresh on every call so that no caller can alter the defaults of another.
    Sub-metric weights are not listed: an absent ``submetrics`` map means the catalog's.
    """
    return {
        "categories": {
            "E": {"weight": 0.30, "tau": 40, "k": 1.5},
            "A": {"weight": 0.25, "tau": 30, "k": 1.5},
            "D": {"weight": 0.20, "tau": 20, "k": 1.2},
            "C": {"weight": 0.15, "tau": 25, "k": 1.2},
            "S": {"weight": 0.10, "tau": 30, "k": 1.2},
        },
        "penalties": [
            {"id": "environment_hard", "target": {"category": "E"}, "below": 10, "points": 20},
            {"id": "data_hard", "target": {"category": "A"}, "below": 10, "points": 15},
            {"id": "seed", "target": {"submetric": "seed_management"}, "below": 50, "points": 10},
        ],
        "clamp": [0, 100],
        "ros": {
            "components": {
                "I": {"weight": 0.30, "input": "boolean"},
                "X": {"weight": 0.25, "input": "boolean"},
                "delta": {"weight": 0.20, "input": "percent"},
                "N": {"weight": 0.10, "input": "fraction"},
                "E_prime": {"weight": 0.10, "input": "fraction"},
                "T": {"weight": 0.05, "input": "fraction"},
            }
        },
        "rcs": {"alpha_max": 0.70, "alpha_min": 0.10},
        "rounding": {"submetric": 2, "category": 2, "score": 2, "mode": "half_even"},
    }


# --------------------------------------------------------------------------- records


class RubricError(ValueError):
    """A rubric that cannot be used. ``errors`` holds one ``key.path: problem`` per entry."""

    def __init__(self, errors: str | list[str], source: str | None = None) -> None:
        self.errors: list[str] = [errors] if isinstance(errors, str) else list(errors)
        self.source = source
        super().__init__("\n".join(self.errors))


@dataclass(frozen=True)
class CategoryRule:
    key: str
    weight: float
    tau: float
    k: float
    submetrics: Mapping[str, float]  # catalog order
    name: str | None = None
    description: str | None = None


@dataclass(frozen=True)
class Penalty:
    id: str
    target_kind: str  # "category" | "submetric"
    target: str
    below: float
    points: float


@dataclass(frozen=True)
class RosComponent:
    id: str
    weight: float
    input: str  # one of INPUT_SCALES
    description: str | None = None


@dataclass(frozen=True)
class Rounding:
    submetric: int = 2
    category: int = 2
    score: int = 2
    mode: str = "half_even"


@dataclass(frozen=True, eq=False)
class Rubric:
    """A resolved, validated rubric.

    ``canonical`` is the hashed, scoring-relevant v2 structure (numbers as floats) and
    must not be mutated. ``text`` is the YAML of the file itself, before ``extends``.
    Equality and hashing follow the identity (name, version, sha256).
    """

    name: str
    version: str
    categories: Mapping[str, CategoryRule]
    penalties: tuple[Penalty, ...]
    clamp: tuple[float, float]
    ros: Mapping[str, RosComponent]
    alpha_max: float
    alpha_min: float
    rounding: Rounding
    canonical: dict[str, Any] = field(repr=False)
    sha256: str
    source: str
    text: str = field(repr=False)
    legacy: bool = False
    description: str | None = None
    rationale: str | Mapping[str, str] | None = None
    maintainers: tuple[Any, ...] = ()
    license: str | None = None
    extends: str | None = None
    weights_tolerance: str = "strict"  # "legacy" for REF v1 files (±0.01)
    warnings: tuple[str, ...] = field(default=())

    def identity(self) -> dict[str, str]:
        return {"name": self.name, "version": self.version, "sha256": self.sha256}

    def to_dict(self) -> dict[str, Any]:
        """The resolved rubric in v2 form, metadata included, ``extends`` already applied.

        Parsing this (as YAML or JSON) gives a rubric with the same ``sha256``.
        """
        data: dict[str, Any] = {"schema": SCHEMA_V2, "name": self.name, "version": self.version}
        for key in ("description", "rationale", "license"):
            value = getattr(self, key)
            if value is not None:
                data[key] = dict(value) if isinstance(value, Mapping) else value
        if self.maintainers:
            data["maintainers"] = copy.deepcopy(list(self.maintainers))
        categories: dict[str, Any] = {}
        for key, rule in self.categories.items():
            entry: dict[str, Any] = {
                "weight": rule.weight,
                "tau": rule.tau,
                "k": rule.k,
                "submetrics": dict(rule.submetrics),
            }
            if rule.name is not None:
                entry["name"] = rule.name
            if rule.description is not None:
                entry["description"] = rule.description
            categories[key] = entry
        data["categories"] = categories
        data["penalties"] = [
            {"id": p.id, "target": {p.target_kind: p.target}, "below": p.below, "points": p.points}
            for p in self.penalties
        ]
        data["clamp"] = list(self.clamp)
        components: dict[str, Any] = {}
        for cid, component in self.ros.items():
            entry = {"weight": component.weight, "input": component.input}
            if component.description is not None:
                entry["description"] = component.description
            components[cid] = entry
        data["ros"] = {"components": components}
        data["rcs"] = {"alpha_max": self.alpha_max, "alpha_min": self.alpha_min}
        data["rounding"] = {
            "submetric": self.rounding.submetric,
            "category": self.rounding.category,
            "score": self.rounding.score,
            "mode": self.rounding.mode,
        }
        return data

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Rubric):
            return NotImplemented
        return self.identity() == other.identity()

    def __hash__(self) -> int:
        return hash((self.name, self.version, self.sha256))


# --------------------------------------------------------------------------- YAML


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that rejects duplicate mapping keys (PyYAML keeps the last silently)."""


def _construct_unique_mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False):
    seen: set[Any] = set()
    for key_node, _value_node in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            continue  # keys merged in with ``<<`` may legitimately be overridden
        key = loader.construct_object(key_node, deep=True)
        try:
            duplicate = key in seen
        except TypeError:
            continue  # unhashable keys are reported by construct_mapping below
        if duplicate:
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping",
                node.start_mark,
                f"duplicate key {key!r}",
                key_node.start_mark,
            )
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_unique_mapping
)


def _load_yaml(text: str, source: str | None) -> dict[str, Any]:
    try:
        doc = yaml.load(text, Loader=_StrictLoader)  # a SafeLoader subclass
    except yaml.YAMLError as exc:
        detail = " ".join(str(exc).split())
        raise RubricError([f"yaml: cannot parse the rubric: {detail}"], source) from exc
    if doc is None:
        raise RubricError(["yaml: the rubric document is empty"], source)
    if not isinstance(doc, dict):
        raise RubricError([f"yaml: the rubric must be a mapping, not {_kind(doc)}"], source)
    return doc


# --------------------------------------------------------------------------- helpers


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return f"the string {value!r}"
    return repr(value)


def _fmt(value: float) -> str:
    """Numbers in messages: ``1.3`` rather than ``1.2999999999999998``."""
    if isinstance(value, float):
        rounded = round(value, 9)
        return repr(int(rounded)) if rounded.is_integer() and abs(rounded) < 1e15 else repr(rounded)
    return repr(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


class _Checker:
    """Collects every problem instead of stopping at the first."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def add(self, path: str, message: str) -> None:
        self.errors.append(f"{path}: {message}" if path else message)

    def raise_if_any(self, source: str | None) -> None:
        if self.errors:
            raise RubricError(self.errors, source)

    def unknown_keys(self, mapping: Mapping[str, Any], allowed: tuple[str, ...], path: str) -> None:
        for key in mapping:
            if key not in allowed:
                self.add(path, f"unknown key {key!r}")

    def mapping(self, value: Any, path: str) -> dict[str, Any] | None:
        if isinstance(value, dict):
            return value
        self.add(path, f"must be a mapping (got {_kind(value)})")
        return None

    def string(self, value: Any, path: str) -> str | None:
        if isinstance(value, str):
            return value
        self.add(path, f"must be a string (got {_kind(value)})")
        return None

    def number(
        self,
        mapping: Mapping[str, Any],
        key: str,
        path: str,
        *,
        low: float | None = None,
        high: float | None = None,
        low_exclusive: bool = False,
    ) -> float | None:
        where = _join(path, key)
        if key not in mapping:
            self.add(where, "required")
            return None
        value = mapping[key]
        if not _is_number(value):
            self.add(where, f"must be a number (got {_kind(value)})")
            return None
        number = float(value)
        below_low = low is not None and (number <= low if low_exclusive else number < low)
        above_high = high is not None and number > high
        if below_low or above_high:
            low_text = f"{'>' if low_exclusive else '>='} {_fmt(low)}" if low is not None else ""
            high_text = f"<= {_fmt(high)}" if high is not None else ""
            bounds = " and ".join(t for t in (low_text, high_text) if t)
            self.add(where, f"must be {bounds} (got {_fmt(value)})")
            return None
        return number

    def weight_sum(
        self, weights: list[float], path: str, tolerance: float, legacy_note: list[str]
    ) -> None:
        total = 0.0
        for weight in weights:
            total += weight
        if abs(total - 1.0) > tolerance:
            self.add(path, f"weights sum to {_fmt(total)}, expected 1.0")
        elif abs(total - 1.0) > WEIGHT_TOLERANCE:
            legacy_note.append(
                f"{path}: weights sum to {_fmt(total)}; accepted under the legacy ±{LEGACY_WEIGHT_TOLERANCE} tolerance"
            )


# --------------------------------------------------------------------------- legacy (REF v1)


def _legacy_version(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        text = str(value)
    elif isinstance(value, float) and math.isfinite(value):
        text = repr(value)
    elif isinstance(value, str):
        text = value.strip()
    else:
        return None
    if re.fullmatch(r"\d+", text):
        return f"{int(text)}.0.0"
    if re.fullmatch(r"\d+\.\d+", text):
        major, minor = text.split(".")
        return f"{int(major)}.{int(minor)}.0"
    return text if _SEMVER_RE.fullmatch(text) else None


def _from_legacy(doc: dict[str, Any], source: str | None) -> dict[str, Any]:
    """Map a REF v1 rubric into a raw v2 document; absent sections take the defaults."""
    check = _Checker()
    check.unknown_keys(doc, LEGACY_TOP_LEVEL_KEYS, "")
    defaults = _paper_defaults()
    out: dict[str, Any] = {"schema": SCHEMA_V2}
    if "name" in doc:
        out["name"] = doc["name"]
    if "version" in doc:
        version = _legacy_version(doc["version"])
        if version is None:
            check.add(
                "version",
                f'must be a version such as "1.0" or "1.0.0" (got {_kind(doc["version"])})',
            )
        else:
            out["version"] = version
    if "description" in doc:
        out["description"] = doc["description"]

    if "categories" in doc:
        categories = check.mapping(doc["categories"], "categories")
        if categories is not None:
            for key, entry in categories.items():
                if isinstance(entry, dict):
                    check.unknown_keys(entry, LEGACY_CATEGORY_KEYS, f"categories.{key}")
            out["categories"] = copy.deepcopy(categories)
    else:
        out["categories"] = defaults["categories"]

    if "penalties" in doc:
        penalties = check.mapping(doc["penalties"], "penalties")
        if penalties is not None:
            check.unknown_keys(penalties, LEGACY_PENALTY_KEYS, "penalties")
            missing = [key for key in LEGACY_PENALTY_KEYS if key not in penalties]
            if missing:
                check.add("penalties", f"missing {', '.join(missing)}")
            rules = []
            for pid, target, threshold_key, points_key in _LEGACY_PENALTIES:
                below = (
                    check.number(penalties, threshold_key, "penalties", low=0, high=100)
                    if threshold_key in penalties
                    else None
                )
                points = (
                    check.number(penalties, points_key, "penalties", low=0)
                    if points_key in penalties
                    else None
                )
                rules.append({"id": pid, "target": dict(target), "below": below, "points": points})
            out["penalties"] = rules
    else:
        out["penalties"] = defaults["penalties"]

    if "ros_components" in doc:
        components = check.mapping(doc["ros_components"], "ros_components")
        if components is not None:
            mapped: dict[str, Any] = {}
            for key, entry in components.items():
                cid = ROS_COMPONENT_ALIASES.get(key, key)
                where = f"ros_components.{key}"
                if cid not in ROS_COMPONENT_IDS:
                    check.add(
                        "ros_components",
                        f"unknown component {key!r} (expected one of I, X, delta, N, E, T)",
                    )
                    continue
                if cid in mapped:
                    check.add("ros_components", f"{key!r} duplicates E_prime (E is its alias)")
                    continue
                if check.mapping(entry, where) is None:
                    continue
                check.unknown_keys(entry, LEGACY_ROS_COMPONENT_KEYS, where)
                converted = {"input": DEFAULT_INPUT_SCALES[cid]}
                for field_name in LEGACY_ROS_COMPONENT_KEYS:
                    if field_name in entry:
                        converted[field_name] = entry[field_name]
                mapped[cid] = converted
            out["ros"] = {"components": mapped}
    else:
        out["ros"] = defaults["ros"]

    out["rcs"] = copy.deepcopy(doc["rcs"]) if "rcs" in doc else defaults["rcs"]
    out["clamp"] = defaults["clamp"]
    out["rounding"] = defaults["rounding"]
    check.raise_if_any(source)
    return out


# --------------------------------------------------------------------------- extends


def _deep_merge(base: Any, child: Any) -> Any:
    if isinstance(base, dict) and isinstance(child, dict):
        merged = copy.deepcopy(base)
        for key, value in child.items():
            merged[key] = _deep_merge(base[key], value) if key in base else copy.deepcopy(value)
        return merged
    return copy.deepcopy(child)


def _merge_penalties(base: Any, child: Any, source: str | None) -> Any:
    if not (isinstance(base, list) and isinstance(child, list)):
        return copy.deepcopy(child)
    merged = [copy.deepcopy(rule) for rule in base]
    position = {
        rule["id"]: i
        for i, rule in enumerate(merged)
        if isinstance(rule, dict) and isinstance(rule.get("id"), str)
    }
    seen_in_child: set[str] = set()
    for rule in child:
        pid = rule.get("id") if isinstance(rule, dict) else None
        if not isinstance(pid, str):
            merged.append(copy.deepcopy(rule))
            continue
        if pid in seen_in_child:
            raise RubricError([f"penalties: duplicate id {pid!r}"], source)
        seen_in_child.add(pid)
        if pid in position:
            current = merged[position[pid]]
            # A target is one-of (category | submetric): merging two targets would hold both.
            if "target" in rule and isinstance(current, dict):
                current = {k: v for k, v in current.items() if k != "target"}
            merged[position[pid]] = _deep_merge(current, rule)
        else:
            position[pid] = len(merged)
            merged.append(copy.deepcopy(rule))
    return merged


def _merge(base: dict[str, Any], child: dict[str, Any], source: str | None) -> dict[str, Any]:
    """Child wins. Only scoring sections are inherited: metadata describes one document."""
    merged = copy.deepcopy(child)
    for section in SCORING_SECTIONS:
        if section not in base:
            continue
        if section not in child:
            merged[section] = copy.deepcopy(base[section])
        elif section == "penalties":
            merged[section] = _merge_penalties(base[section], child[section], source)
        else:
            merged[section] = _deep_merge(base[section], child[section])
    return merged


def _canonicalise_ros_aliases(doc: dict[str, Any]) -> None:
    """Rename ``E`` to ``E_prime`` before merging so that a child's ``E`` overrides its base."""
    ros = doc.get("ros")
    components = ros.get("components") if isinstance(ros, dict) else None
    if not isinstance(components, dict):
        return
    for alias, cid in ROS_COMPONENT_ALIASES.items():
        if alias in components and cid not in components:
            ros["components"] = {
                (cid if key == alias else key): value for key, value in components.items()
            }


def _looks_like_path(reference: str) -> bool:
    return (
        "/" in reference
        or "\\" in reference
        or reference.endswith((".yaml", ".yml"))
        or reference.startswith(".")
    )


def _read_text(path: Path, where: str, source: str | None) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RubricError([f"{where}: cannot read {path}: {exc}"], source) from exc


def _resolve_base(
    reference: Any, base_dir: Path | None, chain: tuple[str, ...], source: str | None
) -> dict[str, Any]:
    if not isinstance(reference, str) or not reference.strip():
        raise RubricError(
            [f'extends: must be "name@version", a bundled name or a path (got {_kind(reference)})'],
            source,
        )
    wanted_version = ""
    if _looks_like_path(reference):
        path = ((base_dir or Path.cwd()) / reference).resolve()
        key = str(path)
        if not path.is_file():
            raise RubricError(
                [f"extends: no rubric file {reference!r} (looked for {path})"], source
            )
    else:
        name, _, wanted_version = reference.partition("@")
        if name not in list_bundled():
            raise RubricError(
                [f"extends: no bundled rubric {name!r} (bundled: {', '.join(list_bundled())})"],
                source,
            )
        path = RUBRICS_DIR / f"{name}.yaml"
        key = f"bundled:{name}"
    if key in chain:
        raise RubricError([f"extends: cycle {' -> '.join((*chain, key))}"], source)
    text = _read_text(path, "extends", source)
    resolved, _legacy = _resolve(_load_yaml(text, key), key, path.parent, (*chain, key))
    if wanted_version and resolved.get("version") != wanted_version:
        raise RubricError(
            [
                f"extends: {reference!r} not found; the bundled {name!r} is version {resolved.get('version')!r}"
            ],
            source,
        )
    return {section: resolved[section] for section in SCORING_SECTIONS if section in resolved}


def _resolve(
    doc: dict[str, Any], source: str | None, base_dir: Path | None, chain: tuple[str, ...]
) -> tuple[dict[str, Any], bool]:
    """Apply legacy mapping, ``extends`` and defaults; returns (raw v2 document, legacy)."""
    if "schema" not in doc:
        return _from_legacy(doc, source), True
    if doc["schema"] != SCHEMA_V2:
        raise RubricError(
            [f"schema: unsupported schema {_kind(doc['schema'])} (expected {SCHEMA_V2})"], source
        )
    doc = copy.deepcopy(doc)
    _canonicalise_ros_aliases(doc)
    if doc.get("extends") is None:
        # Without a base every optional section takes the paper's default wholesale;
        # ``categories`` has no default in v2 and stays required.
        for section, value in _paper_defaults().items():
            if section != "categories":
                doc.setdefault(section, value)
        return doc, False
    base = _resolve_base(doc["extends"], base_dir, chain, source)
    return _merge(base, doc, source), False


# --------------------------------------------------------------------------- validation


@dataclass
class _Validated:
    categories: dict[str, CategoryRule]
    penalties: list[Penalty]
    clamp: tuple[float, float]
    ros: dict[str, RosComponent]
    alpha_max: float
    alpha_min: float
    rounding: Rounding
    metadata: dict[str, Any]
    warnings: list[str]


def _validate(doc: dict[str, Any], *, legacy: bool, source: str | None) -> _Validated:
    check = _Checker()
    notes: list[str] = []
    tolerance = LEGACY_WEIGHT_TOLERANCE if legacy else WEIGHT_TOLERANCE
    check.unknown_keys(doc, TOP_LEVEL_KEYS, "")

    metadata: dict[str, Any] = {}
    name = None
    if "name" not in doc:
        check.add("name", "required")
    else:
        name = check.string(doc["name"], "name")
    if name is not None and not _NAME_RE.fullmatch(name):
        check.add("name", f"must match [a-z0-9-]+ (got {name!r})")
    if "version" not in doc:
        check.add("version", "required")
    elif not (isinstance(doc["version"], str) and _SEMVER_RE.fullmatch(doc["version"])):
        check.add(
            "version",
            f'must be a semantic version string such as "1.0.0" (got {_kind(doc["version"])})',
        )
    metadata["name"] = name
    metadata["version"] = doc.get("version")
    for key in ("extends", "description", "license"):
        if key in doc and doc[key] is not None:
            metadata[key] = check.string(doc[key], key)
    if "rationale" in doc:
        metadata["rationale"] = _validate_rationale(check, doc["rationale"])
    if "maintainers" in doc:
        metadata["maintainers"] = _validate_maintainers(check, doc["maintainers"])

    categories = _validate_categories(check, doc, tolerance, notes)
    penalties = _validate_penalties(check, doc.get("penalties"))
    clamp = _validate_clamp(check, doc.get("clamp"))
    ros = _validate_ros(check, doc.get("ros"), tolerance, notes)
    alpha_max, alpha_min = _validate_rcs(check, doc.get("rcs"))
    rounding = _validate_rounding(check, doc.get("rounding"))

    if legacy:
        # Report ROS problems under the key the v1 author wrote.
        check.errors = [re.sub(r"^ros\.components", "ros_components", e) for e in check.errors]
        notes = [re.sub(r"^ros\.components", "ros_components", n) for n in notes]
    check.raise_if_any(source)
    return _Validated(
        categories, penalties, clamp, ros, alpha_max, alpha_min, rounding, metadata, notes
    )


def _validate_rationale(check: _Checker, value: Any) -> str | dict[str, str] | None:
    if isinstance(value, str):
        return value
    if not isinstance(value, dict):
        check.add(
            "rationale", f"must be a string or a mapping of category to text (got {_kind(value)})"
        )
        return None
    for key, text in value.items():
        if key not in CATEGORY_KEYS:
            check.add("rationale", f"unknown category {key!r}")
        elif not isinstance(text, str):
            check.add(f"rationale.{key}", f"must be a string (got {_kind(text)})")
    return dict(value)


def _validate_maintainers(check: _Checker, value: Any) -> list[Any] | None:
    if not isinstance(value, list):
        check.add("maintainers", f"must be a list (got {_kind(value)})")
        return None
    for i, item in enumerate(value):
        simple_mapping = isinstance(item, dict) and all(
            isinstance(k, str) and isinstance(v, str) for k, v in item.items()
        )
        if not (isinstance(item, str) or simple_mapping):
            check.add(f"maintainers[{i}]", "must be a string or a mapping of strings")
    return copy.deepcopy(value)


def _validate_categories(
    check: _Checker, doc: dict[str, Any], tolerance: float, notes: list[str]
) -> dict[str, CategoryRule]:
    if "categories" not in doc:
        check.add("categories", "required")
        return {}
    categories = check.mapping(doc["categories"], "categories")
    if categories is None:
        return {}
    missing = [key for key in CATEGORY_KEYS if key not in categories]
    if missing:
        check.add("categories", f"missing {', '.join(missing)}")
    for key in categories:
        if key not in CATEGORY_KEYS:
            check.add("categories", f"unknown category {key!r} (expected E, A, D, C, S)")

    rules: dict[str, CategoryRule] = {}
    weights: list[float] = []
    for key in CATEGORY_KEYS:
        if key not in categories:
            continue
        path = f"categories.{key}"
        entry = check.mapping(categories[key], path)
        if entry is None:
            continue
        check.unknown_keys(entry, CATEGORY_ENTRY_KEYS, path)
        weight = check.number(entry, "weight", path, low=0)
        tau = check.number(entry, "tau", path, low=0, high=100, low_exclusive=True)
        k = check.number(entry, "k", path, low=1)
        submetrics = _validate_submetrics(
            check, key, entry.get("submetrics"), path, tolerance, notes
        )
        label = check.string(entry["name"], f"{path}.name") if "name" in entry else None
        text = (
            check.string(entry["description"], f"{path}.description")
            if "description" in entry
            else None
        )
        if weight is not None:
            weights.append(weight)
        if None not in (weight, tau, k, submetrics):
            rules[key] = CategoryRule(
                key, weight, tau, k, MappingProxyType(submetrics), label, text
            )
    if len(weights) == len(CATEGORY_KEYS):
        check.weight_sum(weights, "categories", tolerance, notes)
    return rules


def _validate_submetrics(
    check: _Checker, category: str, value: Any, path: str, tolerance: float, notes: list[str]
) -> dict[str, float] | None:
    expected = [m.metric_id for m in metrics_of(category)]
    if value is None:
        return {m.metric_id: m.default_weight for m in metrics_of(category)}
    where = f"{path}.submetrics"
    submetrics = check.mapping(value, where)
    if submetrics is None:
        return None
    ok = True
    missing = [mid for mid in expected if mid not in submetrics]
    if missing:
        check.add(where, f"missing {', '.join(missing)}")
        ok = False
    for mid in submetrics:
        if mid in expected:
            continue
        ok = False
        if mid in METRICS_BY_ID:
            check.add(
                where, f"{mid} belongs to category {METRICS_BY_ID[mid].category}, not {category}"
            )
        else:
            check.add(where, f"unknown sub-metric {mid!r}")
    weights: dict[str, float] = {}
    for mid in expected:
        if mid in submetrics:
            weight = check.number(submetrics, mid, where, low=0)
            if weight is None:
                ok = False
            else:
                weights[mid] = weight
    if len(weights) == len(expected):
        before = len(check.errors)
        check.weight_sum(list(weights.values()), where, tolerance, notes)
        ok = ok and len(check.errors) == before
    return weights if ok else None


def _validate_penalties(check: _Checker, value: Any) -> list[Penalty]:
    if not isinstance(value, list):
        check.add("penalties", f"must be a list (got {_kind(value)})")
        return []
    penalties: list[Penalty] = []
    seen: set[str] = set()
    for i, entry in enumerate(value):
        raw_id = entry.get("id") if isinstance(entry, dict) else None
        valid_id = isinstance(raw_id, str) and _PENALTY_ID_RE.fullmatch(raw_id) is not None
        path = f"penalties[{raw_id}]" if valid_id else f"penalties[{i}]"
        entry = check.mapping(entry, path)
        if entry is None:
            continue
        check.unknown_keys(entry, PENALTY_KEYS, path)
        if "id" not in entry:
            check.add(f"{path}.id", "required")
        elif not valid_id:
            check.add(f"{path}.id", f"must match [a-z0-9][a-z0-9_-]* (got {_kind(raw_id)})")
        elif raw_id in seen:
            check.add("penalties", f"duplicate id {raw_id!r}")
        else:
            seen.add(raw_id)
        target = _validate_target(check, entry, path)
        below = check.number(entry, "below", path, low=0, high=100)
        points = check.number(entry, "points", path, low=0)
        if valid_id and target is not None and below is not None and points is not None:
            penalties.append(Penalty(raw_id, target[0], target[1], below, points))
    return penalties


def _validate_target(check: _Checker, entry: dict[str, Any], path: str) -> tuple[str, str] | None:
    where = f"{path}.target"
    if "target" not in entry:
        check.add(where, "required")
        return None
    target = check.mapping(entry["target"], where)
    if target is None:
        return None
    check.unknown_keys(target, PENALTY_TARGET_KINDS, where)
    kinds = [kind for kind in PENALTY_TARGET_KINDS if kind in target]
    if len(kinds) != 1:
        check.add(where, "must name exactly one of category or submetric")
        return None
    kind = kinds[0]
    name = target[kind]
    known = CATEGORY_KEYS if kind == "category" else METRIC_IDS
    if not isinstance(name, str) or name not in known:
        check.add(f"{where}.{kind}", f"unknown {kind} {_kind(name)}")
        return None
    return kind, name


def _validate_clamp(check: _Checker, value: Any) -> tuple[float, float]:
    if not (isinstance(value, list) and len(value) == 2 and all(_is_number(v) for v in value)):
        check.add("clamp", f"must be a list [low, high] of two numbers (got {_kind(value)})")
        return (0.0, 100.0)
    low, high = float(value[0]), float(value[1])
    if not 0 <= low < high <= 100:
        check.add(
            "clamp",
            f"must satisfy 0 <= low < high <= 100 (got [{_fmt(value[0])}, {_fmt(value[1])}])",
        )
    return (low, high)


def _validate_ros(
    check: _Checker, value: Any, tolerance: float, notes: list[str]
) -> dict[str, RosComponent]:
    ros = check.mapping(value, "ros")
    if ros is None:
        return {}
    check.unknown_keys(ros, ROS_KEYS, "ros")
    if "components" not in ros:
        check.add("ros.components", "required")
        return {}
    components = check.mapping(ros["components"], "ros.components")
    if components is None:
        return {}
    found: dict[str, RosComponent] = {}
    weights: list[float] = []
    complete = True
    for key, entry in components.items():
        cid = ROS_COMPONENT_ALIASES.get(key, key)
        path = f"ros.components.{key}"
        if cid not in ROS_COMPONENT_IDS:
            check.add(
                "ros.components",
                f"unknown component {key!r} (expected one of {', '.join(ROS_COMPONENT_IDS)})",
            )
            continue
        if cid in found or (cid != key and cid in components):
            check.add("ros.components", f"{key!r} duplicates {cid} (E is an alias of E_prime)")
            continue
        if check.mapping(entry, path) is None:
            complete = False
            continue
        check.unknown_keys(entry, ROS_COMPONENT_KEYS, path)
        weight = check.number(entry, "weight", path, low=0)
        scale = entry.get("input")
        if "input" not in entry:
            check.add(f"{path}.input", f"required (one of {', '.join(INPUT_SCALES)})")
        elif scale not in INPUT_SCALES:
            check.add(
                f"{path}.input", f"must be one of {', '.join(INPUT_SCALES)} (got {_kind(scale)})"
            )
        text = (
            check.string(entry["description"], f"{path}.description")
            if "description" in entry
            else None
        )
        if weight is None or scale not in INPUT_SCALES:
            complete = False
            continue
        weights.append(weight)
        found[cid] = RosComponent(cid, weight, scale, text)
    if complete:
        check.weight_sum(weights, "ros.components", tolerance, notes)
    return {cid: found[cid] for cid in ROS_COMPONENT_IDS if cid in found}


def _validate_rcs(check: _Checker, value: Any) -> tuple[float, float]:
    rcs = check.mapping(value, "rcs")
    if rcs is None:
        return (0.0, 0.0)
    check.unknown_keys(rcs, RCS_KEYS, "rcs")
    alpha_max = check.number(rcs, "alpha_max", "rcs", low=0, high=1)
    alpha_min = check.number(rcs, "alpha_min", "rcs", low=0, high=1)
    if alpha_max is not None and alpha_min is not None and alpha_min > alpha_max:
        check.add("rcs", f"alpha_min {_fmt(alpha_min)} exceeds alpha_max {_fmt(alpha_max)}")
    return (alpha_max or 0.0, alpha_min or 0.0)


def _validate_rounding(check: _Checker, value: Any) -> Rounding:
    rounding = check.mapping(value, "rounding")
    if rounding is None:
        return Rounding()
    check.unknown_keys(rounding, ROUNDING_KEYS, "rounding")
    digits: dict[str, int] = {}
    for key in ("submetric", "category", "score"):
        where = f"rounding.{key}"
        if key not in rounding:
            check.add(where, "required")
            continue
        number = rounding[key]
        is_integral = _is_number(number) and float(number).is_integer()
        if not is_integral or not 0 <= number <= 10:
            check.add(
                where, f"must be a whole number of decimals from 0 to 10 (got {_kind(number)})"
            )
            continue
        digits[key] = int(number)
    mode = rounding.get("mode")
    if "mode" not in rounding:
        check.add("rounding.mode", "required")
    elif mode not in ROUNDING_MODES:
        check.add(
            "rounding.mode", f"must be one of {', '.join(ROUNDING_MODES)} (got {_kind(mode)})"
        )
    return Rounding(**digits, mode=mode if mode in ROUNDING_MODES else "half_even")


# --------------------------------------------------------------------------- identity


def _canonical(validated: _Validated) -> dict[str, Any]:
    """The hashed structure: scoring-relevant fields only, every number a float."""
    return {
        "schema": SCHEMA_V2,
        "categories": {
            key: {
                "weight": float(rule.weight),
                "tau": float(rule.tau),
                "k": float(rule.k),
                "submetrics": {mid: float(w) for mid, w in rule.submetrics.items()},
            }
            for key, rule in validated.categories.items()
        },
        "penalties": [
            {
                "id": p.id,
                "target": {p.target_kind: p.target},
                "below": float(p.below),
                "points": float(p.points),
            }
            for p in validated.penalties
        ],
        "clamp": [float(validated.clamp[0]), float(validated.clamp[1])],
        "ros": {
            "components": {
                cid: {"weight": float(c.weight), "input": c.input}
                for cid, c in validated.ros.items()
            }
        },
        "rcs": {"alpha_max": float(validated.alpha_max), "alpha_min": float(validated.alpha_min)},
        "rounding": {
            "submetric": float(validated.rounding.submetric),
            "category": float(validated.rounding.category),
            "score": float(validated.rounding.score),
            "mode": validated.rounding.mode,
        },
    }


def content_hash(canonical: Mapping[str, Any]) -> str:
    """SHA-256 (lower-case hex) of the RFC 8785 serialisation of ``canonical``."""
    return hashlib.sha256(rfc8785.dumps(canonical)).hexdigest()


# --------------------------------------------------------------------------- parsing


def _parse(text: str, source: str, base_dir: Path | None, chain_key: str) -> Rubric:
    doc = _load_yaml(text, source)
    resolved, legacy = _resolve(doc, source, base_dir, (chain_key,))
    validated = _validate(resolved, legacy=legacy, source=source)
    canonical = _canonical(validated)
    meta = validated.metadata
    rationale = meta.get("rationale")
    return Rubric(
        name=meta["name"],
        version=meta["version"],
        categories=MappingProxyType(validated.categories),
        penalties=tuple(validated.penalties),
        clamp=validated.clamp,
        ros=MappingProxyType(validated.ros),
        alpha_max=validated.alpha_max,
        alpha_min=validated.alpha_min,
        rounding=validated.rounding,
        canonical=canonical,
        sha256=content_hash(canonical),
        source=source,
        text=text,
        legacy=legacy,
        description=meta.get("description"),
        rationale=MappingProxyType(rationale) if isinstance(rationale, dict) else rationale,
        maintainers=tuple(meta.get("maintainers") or ()),
        license=meta.get("license"),
        extends=meta.get("extends"),
        weights_tolerance="legacy" if legacy else "strict",
        warnings=tuple(validated.warnings),
    )


def parse_rubric(
    text: str, source: str = "<string>", *, base_dir: str | os.PathLike[str] | None = None
) -> Rubric:
    """Parse rubric YAML (v2 or REF v1) without registering it.

    A relative ``extends`` path is resolved against ``base_dir``; by default against the
    directory of ``source`` when it names an existing file, else the current directory.
    """
    chain_key = source
    source_path = Path(source)
    if source_path.is_file():
        chain_key = str(source_path.resolve())
        if base_dir is None:
            base_dir = source_path.parent
    directory = Path(base_dir) if base_dir is not None else None
    return _parse(text, source, directory, chain_key)


def list_bundled() -> list[str]:
    """Names of the rubrics shipped in the ``rubrics`` package."""
    return sorted(path.stem for path in RUBRICS_DIR.glob("*.yaml"))


@functools.cache
def _bundled(name: str) -> Rubric:
    path = RUBRICS_DIR / f"{name}.yaml"
    rubric = _parse(_read_text(path, "rubric", name), name, RUBRICS_DIR, f"bundled:{name}")
    if rubric.name != name:
        raise RubricError([f"name: bundled file {path.name} declares name {rubric.name!r}"], name)
    return rubric


def _load(reference: str | os.PathLike[str]) -> Rubric:
    if not isinstance(reference, os.PathLike):
        name, _, version = str(reference).partition("@")
        if name in list_bundled():
            rubric = _bundled(name)
            if version and version != rubric.version:
                raise RubricError(
                    [
                        f"version: the bundled rubric {name!r} is version {rubric.version}, not {version}"
                    ],
                    name,
                )
            return rubric
    path = Path(reference)
    if not path.is_file():
        raise RubricError(
            [
                f"rubric: no bundled rubric or file named {str(reference)!r} (bundled: {', '.join(list_bundled())})"
            ]
        )
    source = str(path)
    return _parse(_read_text(path, "rubric", source), source, path.parent, str(path.resolve()))


def load_rubric(name_or_path: str | os.PathLike[str] = DEFAULT_RUBRIC_NAME) -> Rubric:
    """Load a bundled rubric (``default``, ``bioinformatics-v1``, optionally ``@version``)
    or a rubric file, and register its identity.

    A string naming a bundled rubric always means the bundled one, even if a file of
    that name exists; pass a ``Path`` (or a path with a directory part) for the file.
    """
    rubric = _load(name_or_path)
    register(rubric)
    return rubric


# --------------------------------------------------------------------------- registry

# One (name, version) must always denote the same content (METRICS.md §7.3). The bundled
# rubrics are seeded first so that a local file cannot take over a bundled identity.
_REGISTRY: dict[tuple[str, str], str] = {}
_seeded = False


def _seed_bundled() -> None:
    global _seeded
    if _seeded:
        return
    for name in list_bundled():
        _record(_bundled(name))
    _seeded = True


def _record(rubric: Rubric) -> None:
    key = (rubric.name, rubric.version)
    known = _REGISTRY.setdefault(key, rubric.sha256)
    if known != rubric.sha256:
        raise RubricError(
            [
                f"version: rubric {rubric.name}@{rubric.version} is already registered with sha256 {known}; "
                f"this definition has sha256 {rubric.sha256} (change the version when changing a rubric)"
            ],
            rubric.source,
        )


def register(rubric: Rubric) -> None:
    """Record the rubric's identity; a known (name, version) with another hash is an error."""
    _seed_bundled()
    _record(rubric)


def known_identity(name: str, version: str) -> dict[str, str] | None:
    _seed_bundled()
    sha = _REGISTRY.get((name, version))
    return None if sha is None else {"name": name, "version": version, "sha256": sha}


def clear_registry() -> None:
    """Forget every registered identity (for tests); bundled rubrics are re-seeded on next use."""
    global _seeded
    _REGISTRY.clear()
    _seeded = False
