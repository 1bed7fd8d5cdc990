"""Outcome components from outside: the ``reproscore-outcome/1`` JSON schema, its
validation, and the conversions between stored values and a rubric's ROS inputs.

Curators with their own execution infrastructure (repo2docker, Binder, CI) bring their
results as a JSON file (``docs/execution.md`` documents the schema)::

    {
      "schema": "reproscore-outcome/1",
      "subject": "swh:1:dir:…",            # or a DOI, an origin URL, source:id
      "origin": {"name": "binder", "version": "2026.1", "url": "https://…", "run_id": "42"},
      "executed_at": "2026-11-02T10:00:00Z",
      "components": {"I": true, "X": false, "N": 0.6, "E_prime": 1.0, "delta": 90, "T": null},
      "failure_class": "code_error",
      "probes": [{"probe": "X", "command": "python run.py", "exit_status": 1,
                  "duration_seconds": 3.2, "log_excerpt": "…", "failure_class": "code_error"}]
    }

or several at once: ``{"schema": "reproscore-outcome/1", "outcomes": [{…}, {…}]}``.
Component inputs use the scales of METRICS.md §8 (the default rubric's ``input``): I
and X booleans, Δ a percent (0–100), N, E′ and T fractions (0–1); ``E`` is accepted for
``E_prime``; null means not available. Every problem is reported with the field that
has it (``outcomes[1].components.N: …``).

Stored values are on the 0–100 scale of every score (``y`` of METRICS.md §8); before a
rubric computes its ROS they are converted back to that rubric's declared input scales
(:func:`inputs_for_rubric`).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from scoring.aggregate import _convert_ros_input
from scoring.model import redact
from scoring.rubric import DEFAULT_INPUT_SCALES, ROS_COMPONENT_ALIASES, ROS_COMPONENT_IDS, Rubric

__all__ = [
    "FAILURE_CLASSES",
    "OUTCOME_SCHEMA",
    "ImportedOutcome",
    "OutcomeError",
    "default_inputs",
    "input_for_scale",
    "inputs_for_rubric",
    "parse_outcome_file",
    "parse_outcomes",
    "to_percent",
]

OUTCOME_SCHEMA = "reproscore-outcome/1"
FAILURE_CLASSES: tuple[str, ...] = ("install_dep", "missing_module", "missing_data", "code_error", "timeout")
PROBE_STATUSES = ("measured", "not_applicable", "error")
_OUTCOME_KEYS = ("schema", "subject", "origin", "executed_at", "components", "failure_class", "probes")
_ORIGIN_KEYS = ("name", "version", "url", "run_id", "description")
_PROBE_KEYS = ("probe", "value", "status", "reason", "command", "exit_status", "duration_seconds",
               "log_excerpt", "failure_class")
LOG_EXCERPT_CHARS = 2000


class OutcomeError(ValueError):
    """An outcome file that cannot be imported; the message names every bad field."""

    def __init__(self, problems: list[str], source: str = "") -> None:
        self.problems = problems
        where = f"{source}: " if source else ""
        super().__init__(where + "invalid outcome file:\n" + "\n".join(f"  {p}" for p in problems))


@dataclass
class ImportedOutcome:
    """One validated outcome, its components converted to the 0–100 scale."""

    subject: str
    origin: str
    origin_detail: dict[str, Any]
    executed_at: str
    components: dict[str, float | None]  # every component id; None = not available
    inputs: dict[str, Any]  # as given, canonical ids, available ones only
    failure_class: str | None
    probes: list[dict[str, Any]] = field(default_factory=list)
    path: str = ""  # where in the file (``outcomes[2]``), for messages


def to_percent(cid: str, raw: Any, scale: str | None = None) -> float:
    """A component input in its scale (default: METRICS.md §8's) on the 0–100 scale;
    raises ValueError for a wrong type or a value out of range."""
    return _convert_ros_input(cid, raw, scale or DEFAULT_INPUT_SCALES[cid])


def input_for_scale(value: float, scale: str) -> Any:
    """A stored 0–100 value as an input of ``scale``: a boolean is true only for 100."""
    if scale == "boolean":
        return value >= 100.0
    if scale == "fraction":
        return value / 100.0
    return value


def inputs_for_rubric(components: Mapping[str, float | None], rubric: Rubric | None = None) -> dict[str, Any] | None:
    """The available components as ROS inputs in ``rubric``'s declared scales (the
    default rubric's when None), ready for ``scoring.aggregate.score(outcomes=…)`` or
    ``compute_ros``; None when no component is available."""
    out: dict[str, Any] = {}
    for cid in ROS_COMPONENT_IDS:
        value = components.get(cid)
        if value is None:
            continue
        rule = rubric.ros.get(cid) if rubric is not None else None
        out[cid] = input_for_scale(float(value), rule.input if rule is not None else DEFAULT_INPUT_SCALES[cid])
    return out or None


def default_inputs(components: Mapping[str, float | None]) -> dict[str, Any]:
    """The available components in the scales of METRICS.md §8 (the default rubric's)."""
    return inputs_for_rubric(components) or {}


# --------------------------------------------------------------------------- validation


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"number {value!r}"
    if isinstance(value, str):
        return f"string {value!r}"[:80]
    return type(value).__name__ if not isinstance(value, (list, dict)) else ("array" if isinstance(value, list) else "object")


def _utc(text: str) -> str:
    value = text.strip()
    if value.endswith(("Z", "z")):
        value = value[:-1] + "+00:00"
    moment = datetime.fromisoformat(value)
    if moment.tzinfo is None:
        raise ValueError("no time zone")
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class _Checker:
    def __init__(self) -> None:
        self.problems: list[str] = []

    def add(self, where: str, message: str) -> None:
        self.problems.append(f"{where}: {message}")

    def unknown(self, data: Mapping[str, Any], known: tuple[str, ...], where: str) -> None:
        for key in data:
            if key not in known:
                self.add(f"{where}.{key}" if where else key, f"unknown field (expected one of {', '.join(known)})")

    def string(self, data: Mapping[str, Any], key: str, where: str, *, required: bool = False) -> str | None:
        path = f"{where}.{key}" if where else key
        if key not in data or data[key] is None:
            if required:
                self.add(path, "required")
            return None
        value = data[key]
        if not isinstance(value, str) or not value.strip():
            self.add(path, f"a non-empty string is expected (got {_kind(value)})")
            return None
        return value.strip()


def _check_origin(check: _Checker, value: Any, where: str) -> tuple[str, dict[str, Any]] | None:
    path = f"{where}.origin" if where else "origin"
    if isinstance(value, str):
        value = {"name": value}
    if not isinstance(value, dict):
        check.add(path, f"an object with a name (or a string) is expected (got {_kind(value)})")
        return None
    check.unknown(value, _ORIGIN_KEYS, path)
    name = check.string(value, "name", path, required=True)
    detail = {}
    for key in _ORIGIN_KEYS:
        text = check.string(value, key, path) if key != "name" else name
        if text is not None:
            detail[key] = text
    return (name, detail) if name else None


def _check_components(check: _Checker, value: Any, where: str) -> tuple[dict[str, float | None], dict[str, Any]]:
    path = f"{where}.components" if where else "components"
    components: dict[str, float | None] = {cid: None for cid in ROS_COMPONENT_IDS}
    inputs: dict[str, Any] = {}
    if not isinstance(value, dict):
        check.add(path, f"an object of components is expected (got {_kind(value)})")
        return components, inputs
    seen: dict[str, str] = {}
    before = len(check.problems)
    for key, raw in value.items():
        cid = ROS_COMPONENT_ALIASES.get(key, key)
        if cid not in ROS_COMPONENT_IDS:
            check.add(f"{path}.{key}", f"unknown component (expected one of {', '.join(ROS_COMPONENT_IDS)}; E for E_prime)")
            continue
        if cid in seen:
            check.add(f"{path}.{key}", f"given twice ({seen[cid]} and {key}: E is an alias of E_prime)")
            continue
        seen[cid] = key
        if raw is None:
            continue
        scale = DEFAULT_INPUT_SCALES[cid]
        expected = {"boolean": "a boolean (true or false)", "percent": "a percent within [0, 100]",
                    "fraction": "a fraction within [0, 1]"}[scale]
        try:
            components[cid] = to_percent(cid, raw, scale)
            inputs[cid] = raw
        except ValueError:
            check.add(f"{path}.{key}", f"{expected} is expected (got {_kind(raw)})")
    if not inputs and len(check.problems) == before:
        check.add(path, "at least one component must have a value (all are missing or null)")
    return components, inputs


def _check_failure_class(check: _Checker, data: Mapping[str, Any], where: str) -> str | None:
    path = f"{where}.failure_class" if where else "failure_class"
    value = data.get("failure_class")
    if value is None:
        return None
    if value not in FAILURE_CLASSES:
        check.add(path, f"must be one of {', '.join(FAILURE_CLASSES)} or null (got {_kind(value)})")
        return None
    return value


def _check_probes(check: _Checker, value: Any, where: str) -> list[dict[str, Any]]:
    path = f"{where}.probes" if where else "probes"
    if value is None:
        return []
    if not isinstance(value, list):
        check.add(path, f"an array is expected (got {_kind(value)})")
        return []
    out: list[dict[str, Any]] = []
    for i, item in enumerate(value):
        here = f"{path}[{i}]"
        if not isinstance(item, dict):
            check.add(here, f"an object is expected (got {_kind(item)})")
            continue
        check.unknown(item, _PROBE_KEYS, here)
        probe = item.get("probe")
        cid = ROS_COMPONENT_ALIASES.get(probe, probe) if isinstance(probe, str) else None
        if cid not in ROS_COMPONENT_IDS:
            check.add(f"{here}.probe", f"one of {', '.join(ROS_COMPONENT_IDS)} is expected (got {_kind(probe)})")
            continue
        row: dict[str, Any] = {"probe": cid}
        for key in ("command", "reason", "log_excerpt"):
            text = item.get(key)
            if text is not None and not isinstance(text, str):
                check.add(f"{here}.{key}", f"a string is expected (got {_kind(text)})")
            elif text is not None:
                row[key] = redact(text)[-LOG_EXCERPT_CHARS:] if key == "log_excerpt" else redact(text)
        status = item.get("status", "measured")
        if status not in PROBE_STATUSES:
            check.add(f"{here}.status", f"one of {', '.join(PROBE_STATUSES)} is expected (got {_kind(status)})")
        row["status"] = status
        exit_status = item.get("exit_status")
        if exit_status is not None and (isinstance(exit_status, bool) or not isinstance(exit_status, int)):
            check.add(f"{here}.exit_status", f"an integer or null is expected (got {_kind(exit_status)})")
        row["exit_status"] = exit_status
        duration = item.get("duration_seconds")
        if duration is not None and (isinstance(duration, bool) or not isinstance(duration, (int, float)) or duration < 0):
            check.add(f"{here}.duration_seconds", f"a number >= 0 is expected (got {_kind(duration)})")
        row["duration"] = duration
        raw_value = item.get("value")
        if raw_value is not None:
            try:
                row["value"] = to_percent(cid, raw_value)
            except ValueError:
                check.add(f"{here}.value", f"the component's input scale ({DEFAULT_INPUT_SCALES[cid]}) is expected (got {_kind(raw_value)})")
        fc = item.get("failure_class")
        if fc is not None and fc not in FAILURE_CLASSES:
            check.add(f"{here}.failure_class", f"must be one of {', '.join(FAILURE_CLASSES)} or null (got {_kind(fc)})")
        row["failure_class"] = fc
        out.append(row)
    return out


def _check_one(check: _Checker, data: Any, where: str) -> ImportedOutcome | None:
    if not isinstance(data, dict):
        check.add(where or "(top level)", f"an object is expected (got {_kind(data)})")
        return None
    before = len(check.problems)
    check.unknown(data, _OUTCOME_KEYS, where)
    subject = check.string(data, "subject", where, required=True)
    origin = _check_origin(check, data["origin"], where) if "origin" in data else None
    if "origin" not in data:
        check.add(f"{where}.origin" if where else "origin", "required")
    executed_at = None
    text = check.string(data, "executed_at", where, required=True)
    if text is not None:
        try:
            executed_at = _utc(text)
        except ValueError:
            check.add(f"{where}.executed_at" if where else "executed_at",
                      f"an ISO 8601 date and time with a time zone is expected (got {text!r})")
    if "components" not in data:
        check.add(f"{where}.components" if where else "components", "required")
        components, inputs = {}, {}
    else:
        components, inputs = _check_components(check, data["components"], where)
    failure_class = _check_failure_class(check, data, where)
    probes = _check_probes(check, data.get("probes"), where)
    if len(check.problems) > before or subject is None or origin is None or executed_at is None:
        return None
    return ImportedOutcome(
        subject=subject, origin=origin[0], origin_detail=origin[1], executed_at=executed_at,
        components=components, inputs=inputs, failure_class=failure_class, probes=probes, path=where,
    )


def parse_outcomes(data: Any, source: str = "") -> list[ImportedOutcome]:
    """Validate a parsed outcome document (one outcome, or ``outcomes``: a list).
    Raises :class:`OutcomeError` listing every problem with its field."""
    check = _Checker()
    if not isinstance(data, dict):
        raise OutcomeError([f"(top level): an object is expected (got {_kind(data)})"], source)
    schema = data.get("schema")
    if schema != OUTCOME_SCHEMA:
        check.add("schema", f"must be {OUTCOME_SCHEMA!r} (got {_kind(schema)})")
    outcomes: list[ImportedOutcome] = []
    if "outcomes" in data:
        check.unknown(data, ("schema", "outcomes"), "")
        items = data["outcomes"]
        if not isinstance(items, list) or not items:
            check.add("outcomes", f"a non-empty array is expected (got {_kind(items)})")
        else:
            for i, item in enumerate(items):
                if isinstance(item, dict) and "schema" in item and item["schema"] != OUTCOME_SCHEMA:
                    check.add(f"outcomes[{i}].schema", f"must be {OUTCOME_SCHEMA!r} or absent")
                one = _check_one(check, {k: v for k, v in item.items() if k != "schema"} if isinstance(item, dict) else item,
                                 f"outcomes[{i}]")
                if one is not None:
                    outcomes.append(one)
    else:
        one = _check_one(check, data, "")
        if one is not None:
            outcomes.append(one)
    if check.problems:
        raise OutcomeError(check.problems, source)
    return outcomes


def parse_outcome_file(path: str | os.PathLike[str]) -> tuple[list[ImportedOutcome], dict[str, Any]]:
    """Read and validate an outcome file; also returns ``{file, sha256}`` recorded with
    each outcome's origin. Raises :class:`OutcomeError` (also for unreadable JSON)."""
    source = os.fspath(path)
    try:
        raw = Path(source).read_bytes()
    except OSError as exc:
        raise OutcomeError([f"(file): cannot read it: {exc.strerror or exc}"], source) from exc
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise OutcomeError([f"(file): not UTF-8 text: {exc}"], source) from exc
    except json.JSONDecodeError as exc:
        raise OutcomeError([f"(file): not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"],
                           source) from exc
    return parse_outcomes(data, source), {"file": os.path.basename(source),
                                          "sha256": hashlib.sha256(raw).hexdigest()}
