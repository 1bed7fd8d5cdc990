"""Gate, RRS, ROS, α and RCS arithmetic (METRICS.md §4–§6, §8–§9, §11)."""

from __future__ import annotations

import json

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

import scoring
from scoring.aggregate import (
    IncompleteMeasurements,
    alpha,
    compile_rubric,
    compute_rcs,
    compute_ros,
    gate,
    score,
    score_from_values,
)
from scoring.catalog import CATEGORY_KEYS, METRIC_IDS, METRICS, metrics_of
from scoring.model import OUTCOME_ERROR, Inventory, Measurement, Measurements
from scoring.rubric import load_rubric, parse_rubric


@pytest.fixture(scope="module")
def rubric():
    return load_rubric()


def values_with(**overrides: float) -> dict[str, float]:
    """26 values, all 0 unless given."""
    unknown = set(overrides) - set(METRIC_IDS)
    assert not unknown, unknown
    return {mid: float(overrides.get(mid, 0.0)) for mid in METRIC_IDS}


def category_values(**per_category: float) -> dict[str, float]:
    return {m.metric_id: float(per_category[m.category]) for m in METRICS}


# --------------------------------------------------------------------------- gate


@pytest.mark.parametrize(
    ("x", "tau", "k", "expected"),
    [
        (10, 40, 1.5, 0.050000),
        (20, 40, 1.5, 0.141421),
        (30, 40, 1.5, 0.259808),
        (5, 40, 1.5, 0.017678),
        (15, 40, 1.5, 0.091856),
        (37.5, 40, 1.5, 0.363092),
        (40, 40, 1.5, 0.400000),
        (50, 40, 1.5, 0.500000),
        (11.5, 30, 1.5, 0.071201),
        (15, 30, 1.5, 0.106066),
        (10, 20, 1.2, 0.087055),
        (19.5, 20, 1.2, 0.194015),
        (12.5, 25, 1.2, 0.108819),
        (15, 30, 1.2, 0.130583),
        (20, 40, 1.0, 0.200000),
    ],
)
def test_gate_table(x, tau, k, expected):
    assert gate(x, tau, k) == pytest.approx(expected, abs=1e-6)


def test_gate_reference_checks():
    assert round(gate(10, 40, 1.5), 3) == 0.050
    assert round(gate(20, 40, 1.5), 3) == 0.141
    assert round(gate(30, 40, 1.5), 3) == 0.260
    assert gate(0, 40, 1.5) == 0.0
    assert gate(100, 40, 1.5) == 1.0


gate_params = st.tuples(
    st.floats(min_value=0.01, max_value=100.0),
    st.floats(min_value=1.0, max_value=5.0),
)


@given(
    gate_params,
    st.floats(min_value=0.0, max_value=100.0),
    st.floats(min_value=0.0, max_value=100.0),
)
def test_gate_is_monotone_and_bounded(params, a, b):
    tau, k = params
    low, high = sorted((a, b))
    assert 0.0 <= gate(low, tau, k) <= gate(high, tau, k) <= 1.0


@given(gate_params)
def test_gate_is_continuous_at_tau(params):
    tau, k = params
    assert gate(tau, tau, k) == pytest.approx(tau / 100.0)
    # Just below τ the gap is about the slope k/100 times the step, so it vanishes with it.
    step = tau * 1e-9
    gap = gate(tau, tau, k) - gate(tau - step, tau, k)
    assert 0.0 <= gap <= k / 100.0 * step * 1.01 + 1e-15


# --------------------------------------------------------------------------- RRS


def test_paper_worked_example(rubric):
    categories, penalties, unclamped, rrs = score_from_values(
        category_values(E=85, A=70, D=65, C=72, S=80), rubric
    )
    assert [categories[c].raw for c in CATEGORY_KEYS] == pytest.approx([85, 70, 65, 72, 80])
    assert not any(p.fired for p in penalties)
    assert unclamped == pytest.approx(74.8)
    assert rrs == 74.80


PAIRTOOLS = values_with(
    dep_pinning=50, container_spec=0, env_bootstrap=100, python_version_declared=0,
    data_description=80, data_pointer=100, workflow_orchestration=100, data_acquisition_script=100,
    doc_structure=25, install_instructions=70, usage_examples=60, inline_explanation_density=76.7,
    execution_entry_point=0, docstring_coverage=80, reuse_metadata=40,
    no_absolute_paths=100, import_resolvability=12.5, no_hardcoded_credentials=100, silent_failure_masking=100,
    seed_management=100, notebook_exec_order=33.33, test_file_presence=100, expected_outputs=40,
    ci_presence=100, config_externalised=80, hardware_requirements=100,
)  # fmt: skip
UCDECONVOLVE = values_with(
    dep_pinning=60,
    data_description=20, data_pointer=25,
    doc_structure=50, install_instructions=70, usage_examples=60, inline_explanation_density=100,
    execution_entry_point=80, docstring_coverage=15, reuse_metadata=40,
    no_absolute_paths=100, import_resolvability=50, no_hardcoded_credentials=97.06, silent_failure_masking=100,
    seed_management=33.33, notebook_exec_order=25, test_file_presence=50, expected_outputs=40,
    hardware_requirements=100,
)  # fmt: skip
DEVELOPMENTAL_DEMO = values_with(
    dep_pinning=20,
    data_description=80, data_pointer=100,
    doc_structure=25, install_instructions=100, usage_examples=60, inline_explanation_density=96.2,
    docstring_coverage=50, reuse_metadata=70,
    no_absolute_paths=100, import_resolvability=100, no_hardcoded_credentials=100, silent_failure_masking=100,
    seed_management=100, notebook_exec_order=100, expected_outputs=60, hardware_requirements=100,
)  # fmt: skip
ELASTIC_BLAST_DEMOS = values_with(
    dep_pinning=20,
    inline_explanation_density=100, docstring_coverage=50, reuse_metadata=40,
    no_absolute_paths=100, import_resolvability=100, no_hardcoded_credentials=100, silent_failure_masking=100,
    seed_management=100, hardware_requirements=100,
)  # fmt: skip
EMPTY_REPOSITORY_V2 = values_with(
    inline_explanation_density=50, docstring_coverage=50,
    no_absolute_paths=100, import_resolvability=100, no_hardcoded_credentials=100, silent_failure_masking=100,
    seed_management=100, notebook_exec_order=100, hardware_requirements=100,
)  # fmt: skip


def fired(penalties) -> dict[str, float]:
    return {p.id: p.points for p in penalties if p.fired}


def test_row_pairtools(rubric):
    categories, penalties, unclamped, rrs = score_from_values(PAIRTOOLS, rubric)
    raws = [categories[c].raw for c in CATEGORY_KEYS]
    gateds = [categories[c].gated for c in CATEGORY_KEYS]
    assert raws == pytest.approx([37.5, 96, 49.755, 69.375, 78.266], abs=1e-3)
    assert gateds == pytest.approx([10.8928, 24.0, 9.951, 10.406, 7.8266], abs=1e-3)
    assert fired(penalties) == {}
    assert unclamped == pytest.approx(63.077, abs=1e-3)
    assert rrs == pytest.approx(63.08, abs=0.01)


def test_row_ucdeconvolve_seed_penalty(rubric):
    categories, penalties, unclamped, rrs = score_from_values(UCDECONVOLVE, rubric)
    assert categories["E"].raw == pytest.approx(15) and categories["A"].raw == pytest.approx(11.5)
    assert categories["E"].gated == pytest.approx(2.7557, abs=1e-4)
    assert categories["A"].gated == pytest.approx(1.7800, abs=1e-4)
    assert categories["D"].gated == pytest.approx(12.85, abs=1e-4)
    assert categories["C"].gated == pytest.approx(12.309, abs=1e-3)
    assert fired(penalties) == {"seed": 10}
    seed = next(p for p in penalties if p.id == "seed")
    assert (seed.observed, seed.threshold, seed.target) == (33.33, 50, "seed_management")
    assert unclamped == pytest.approx(22.975, abs=1e-3)
    assert rrs == pytest.approx(22.97, abs=0.01)


def test_row_developmental_demo_environment_penalty(rubric):
    categories, penalties, unclamped, rrs = score_from_values(DEVELOPMENTAL_DEMO, rubric)
    assert [categories[c].raw for c in CATEGORY_KEYS] == pytest.approx([5, 46, 58.68, 100, 61.2])
    assert categories["E"].gated == pytest.approx(0.5303, abs=1e-4)
    assert fired(penalties) == {"environment_hard": 20}
    assert unclamped == pytest.approx(24.886, abs=1e-3)
    assert rrs == pytest.approx(24.89, abs=0.01)


def test_row_elastic_blast_demos_clamped(rubric):
    categories, penalties, unclamped, rrs = score_from_values(ELASTIC_BLAST_DEMOS, rubric)
    assert [categories[c].raw for c in CATEGORY_KEYS] == pytest.approx([5, 0, 19.5, 100, 34])
    assert categories["D"].gated == pytest.approx(3.8803, abs=1e-4)
    assert fired(penalties) == {"environment_hard": 20, "data_hard": 15}
    assert unclamped == pytest.approx(22.811 - 35, abs=1e-3)
    assert rrs == 0.0


def test_empty_repository_v2(rubric):
    categories, penalties, unclamped, rrs = score_from_values(EMPTY_REPOSITORY_V2, rubric)
    assert [categories[c].raw for c in CATEGORY_KEYS] == pytest.approx([0, 0, 10, 100, 54])
    assert [categories[c].gated for c in CATEGORY_KEYS] == pytest.approx(
        [0, 0, 1.7411, 15, 5.4], abs=1e-4
    )
    assert round(unclamped + 35, 2) == 22.14
    assert fired(penalties) == {"environment_hard": 20, "data_hard": 15}
    assert rrs == 0.0


def test_data_hard_penalty_fires_for_a_local_data_file_only(rubric):
    categories, penalties, _, _ = score_from_values(
        {**EMPTY_REPOSITORY_V2, "data_pointer": 25.0}, rubric
    )
    assert categories["A"].raw == 7.5
    data_hard = next(p for p in penalties if p.id == "data_hard")
    assert data_hard.fired and data_hard.points == 15 and data_hard.observed == 7.5


def test_thresholds_are_strict(rubric):
    categories, penalties, _, _ = score_from_values(
        {**EMPTY_REPOSITORY_V2, "data_description": 50.0}, rubric
    )
    assert categories["A"].raw == 10.0
    assert "data_hard" not in fired(penalties)
    _, penalties, _, _ = score_from_values({**EMPTY_REPOSITORY_V2, "seed_management": 50.0}, rubric)
    assert "seed" not in fired(penalties)
    unfired = next(p for p in penalties if p.id == "seed")
    assert unfired.points == 0 and unfired.rule_points == 10


def test_bioinformatics_profile_rescoring():
    bio = load_rubric("bioinformatics-v1")
    categories, _, _, rrs = score_from_values(category_values(E=85, A=70, D=65, C=72, S=80), bio)
    assert rrs == round(35 * 0.85 + 40 * 0.70 + 10 * 0.65 + 5 * 0.72 + 10 * 0.80, 2)
    assert categories["A"].weight == 0.40


def test_compiled_rubric_matches_score_from_values(rubric):
    compiled = compile_rubric(rubric)
    assert compile_rubric(rubric) is compiled
    raws, gateds, fired_flags, unclamped, rrs = compiled(
        tuple(UCDECONVOLVE[mid] for mid in METRIC_IDS)
    )
    categories, penalties, unclamped2, rrs2 = score_from_values(UCDECONVOLVE, rubric)
    assert raws == tuple(c.raw for c in categories.values())
    assert gateds == tuple(c.gated for c in categories.values())
    assert fired_flags == tuple(p.fired for p in penalties) == (False, False, True)
    assert (unclamped, rrs) == (unclamped2, rrs2)


def test_score_from_values_validates_input(rubric):
    values = dict(PAIRTOOLS)
    del values["ci_presence"]
    with pytest.raises(IncompleteMeasurements) as info:
        score_from_values(values, rubric)
    assert info.value.metric_ids == ["ci_presence"]
    with pytest.raises(ValueError, match="ci_presence"):
        score_from_values({**PAIRTOOLS, "ci_presence": 101}, rubric)
    with pytest.raises(ValueError, match="unknown sub-metric"):
        score_from_values({**PAIRTOOLS, "extra": 1}, rubric)


values_strategy = st.fixed_dictionaries(
    {mid: st.floats(min_value=0.0, max_value=100.0) for mid in METRIC_IDS}
)


@given(values_strategy)
def test_rrs_within_clamp_bounds(values):
    for name in ("default", "bioinformatics-v1"):
        rubric = load_rubric(name)
        _, _, unclamped, rrs = score_from_values(values, rubric)
        low, high = rubric.clamp
        assert low <= rrs <= high
        assert rrs == round(min(high, max(low, unclamped)), 2)


NARROW_CLAMP = parse_rubric(
    yaml.safe_dump({**load_rubric().to_dict(), "name": "narrow-clamp", "clamp": [10, 90]}),
)


@given(values_strategy)
def test_rrs_within_a_custom_clamp(values):
    _, _, _, rrs = score_from_values(values, NARROW_CLAMP)
    assert 10 <= rrs <= 90


# --------------------------------------------------------------------------- ROS, α, RCS


def test_ros_notebooks_only(rubric):
    ros = compute_ros({"N": 0.60}, rubric)
    assert ros.value == pytest.approx(60.0)
    assert ros.coverage == pytest.approx(0.10)
    assert ros.components_list == ["N"]
    assert ros.to_dict() == {
        "components": {"N": {"input": 0.60, "y": 60.0, "weight": 0.10}},
        "coverage": 0.1,
        "value": 60.0,
        "components_list": ["N"],
    }


def test_ros_full(rubric):
    ros = compute_ros({"I": True, "X": True, "delta": 90, "N": 0.6, "E": 1.0, "T": 0.8}, rubric)
    assert ros.coverage == pytest.approx(1.0)
    assert ros.value == pytest.approx(93.0)
    assert ros.components_list == ["I", "X", "delta", "N", "E_prime", "T"]


def test_ros_undefined(rubric):
    assert compute_ros({}, rubric) is None
    assert compute_ros(None, rubric) is None
    assert compute_ros({"N": None}, rubric) is None
    only_i = yaml.safe_dump(
        {
            **load_rubric().to_dict(),
            "name": "only-i",
            "ros": {
                "components": {
                    "I": {"weight": 1.0, "input": "boolean"},
                    "T": {"weight": 0.0, "input": "fraction"},
                }
            },
        }
    )
    zero_weight = parse_rubric(only_i)
    assert compute_ros({"T": 0.5}, zero_weight) is None
    assert compute_rcs(40.0, None, zero_weight).to_dict() == {"alpha": 0.0, "value": 40.0}


def test_ros_inputs_are_validated(rubric):
    with pytest.raises(ValueError, match="ROS component I"):
        compute_ros({"I": 1}, rubric)
    with pytest.raises(ValueError, match="ROS component delta"):
        compute_ros({"delta": 120}, rubric)
    with pytest.raises(ValueError, match="ROS component N"):
        compute_ros({"N": 60}, rubric)
    with pytest.raises(ValueError, match="ROS component T"):
        compute_ros({"T": -0.1}, rubric)
    with pytest.raises(ValueError, match="ROS component E"):
        compute_ros({"E": True}, rubric)
    with pytest.raises(ValueError, match="unknown ROS component 'Q'"):
        compute_ros({"Q": 1.0}, rubric)
    with pytest.raises(ValueError, match="given twice"):
        compute_ros({"E": 1.0, "E_prime": 1.0}, rubric)


@pytest.mark.parametrize(
    ("components", "coverage", "expected"),
    [
        ({}, 0.0, 0.0),
        ({"T": 0.5}, 0.05, 0.10),
        ({"N": 0.5}, 0.10, 0.10),
        ({"E_prime": 0.5}, 0.10, 0.10),
        ({"N": 0.5, "E_prime": 0.5}, 0.20, 0.14),
        ({"I": True}, 0.30, 0.21),
        ({"I": True, "X": False}, 0.55, 0.385),
        ({"I": True, "X": False, "N": 0.5, "E_prime": 1.0}, 0.75, 0.525),
        ({"I": True, "X": False, "N": 0.5, "E_prime": 1.0, "T": 1.0}, 0.80, 0.56),
        ({"I": True, "X": False, "delta": 50, "N": 0.5, "E_prime": 1.0}, 0.95, 0.665),
        ({"I": True, "X": False, "delta": 50, "N": 0.5, "E_prime": 1.0, "T": 1.0}, 1.00, 0.70),
    ],
)
def test_alpha_table(rubric, components, coverage, expected):
    ros = compute_ros(components, rubric)
    measured_coverage = 0.0 if ros is None else ros.coverage
    assert measured_coverage == pytest.approx(coverage)
    assert alpha(measured_coverage, rubric) == pytest.approx(expected)
    assert round(alpha(measured_coverage, rubric), 4) == expected
    assert compute_rcs(50.0, ros, rubric).to_dict()["alpha"] == expected


def test_alpha_is_reported_as_0_525(rubric):
    ros = compute_ros({"I": True, "X": True, "N": 1.0, "E": 1.0}, rubric)
    assert 0.7 * 0.75 != 0.525  # why the report rounds
    assert compute_rcs(10.0, ros, rubric).to_dict()["alpha"] == 0.525
    assert alpha(None, rubric) == 0.0


def test_rcs_examples(rubric):
    notebooks_only = compute_ros({"N": 0.60}, rubric)
    assert compute_rcs(72.0, notebooks_only, rubric).value == pytest.approx(70.8)
    full = compute_ros(
        {"I": True, "X": True, "delta": 80, "N": 0.5, "E_prime": 0.2, "T": 0.16}, rubric
    )
    assert full.value == pytest.approx(78.8)
    rcs = compute_rcs(72.0, full, rubric)
    assert rcs.alpha == pytest.approx(0.70)
    assert rcs.value == pytest.approx(76.76)
    assert compute_rcs(72.0, None, rubric).value == 72.0


@pytest.mark.parametrize(
    ("mode", "install", "execute", "notebooks", "imports", "rrs", "ros", "rcs"),
    [
        ("success", True, True, 1.0, 1.0, 14.6, 100.0, 59.4),
        ("install_dep", False, False, 0.013, 1.0, 26.8, 13.5, 19.8),
        ("missing_module", True, False, 0.038, 0.0, 7.0, 40.5, 24.6),
        ("missing_data", True, False, 0.086, 1.0, 6.4, 54.5, 31.64),
        ("code_error", True, False, 0.133, 1.0, 14.3, 55.1, 35.7),
    ],
)
def test_paper_table5(rubric, mode, install, execute, notebooks, imports, rrs, ros, rcs):
    result = compute_ros({"I": install, "X": execute, "N": notebooks, "E_prime": imports}, rubric)
    assert result.coverage == pytest.approx(0.75)
    assert result.value == pytest.approx(ros, abs=0.1)
    combined = compute_rcs(rrs, result, rubric)
    assert combined.alpha == pytest.approx(0.525)
    assert combined.value == pytest.approx(rcs, abs=0.1)


# --------------------------------------------------------------------------- full score


def measurements_from(values: dict[str, float], **changes) -> Measurements:
    not_applicable = changes.pop("not_applicable", set())
    records = {
        m.metric_id: Measurement(
            metric_id=m.metric_id,
            category=m.category,
            value=values[m.metric_id],
            applicable=m.metric_id not in not_applicable,
            level=None,
            detector_version=f"{m.code.lower()}-1",
        )
        for m in METRICS
    }
    return Measurements(measurements=records, inventory=Inventory(files=3), scorer_version="0.0.9")


def test_score_record_shape(rubric):
    result = score(measurements_from(UCDECONVOLVE), rubric)
    data = result.to_dict()
    assert list(data) == [
        "schema", "scorer", "rubric", "rrs", "rrs_unclamped", "penalties", "categories",
        "submetrics", "detectors", "inventory", "declared", "ros", "rcs",
    ]  # fmt: skip
    assert data["schema"] == "reproscore-result/2"
    assert data["scorer"] == {"name": "reproscore", "version": scoring.__version__}
    assert data["rubric"] == rubric.identity()
    assert data["rrs"] == pytest.approx(22.97, abs=0.01)
    assert data["rrs_unclamped"] == pytest.approx(22.975, abs=1e-3)
    assert data["penalties"][2] == {
        "id": "seed",
        "fired": True,
        "points": 10.0,
        "observed": 33.33,
        "threshold": 50.0,
        "target": "seed_management",
    }
    assert data["penalties"][0]["target"] == "E" and data["penalties"][0]["points"] == 0
    assert list(data["categories"]) == list(CATEGORY_KEYS)
    assert set(data["categories"]["E"]) == {
        "raw",
        "gated",
        "weight",
        "tau",
        "k",
        "applicable_only_raw",
    }
    assert list(data["submetrics"]) == list(METRIC_IDS)
    assert data["submetrics"]["dep_pinning"]["value"] == 60
    assert data["detectors"]["dep_pinning"] == "e1-1"
    assert data["inventory"]["files"] == 3
    assert data["ros"] is None
    assert data["rcs"] == {"alpha": 0.0, "value": data["rrs"]}
    json.dumps(data)


def test_score_with_outcomes(rubric):
    result = score(
        measurements_from(PAIRTOOLS), rubric, outcomes={"I": True, "X": True, "N": 1.0, "E": 1.0}
    )
    data = result.to_dict()
    assert data["ros"]["value"] == 100.0
    assert data["ros"]["coverage"] == 0.75
    assert data["ros"]["components_list"] == ["I", "X", "N", "E_prime"]
    assert data["ros"]["components"]["I"] == {"input": True, "y": 100.0, "weight": 0.30}
    assert data["rcs"]["alpha"] == 0.525
    assert data["rcs"]["value"] == round(0.475 * data["rrs"] + 52.5, 2)


def test_applicable_only_raw(rubric):
    values = dict(EMPTY_REPOSITORY_V2)
    not_applicable = {m.metric_id for m in metrics_of("C")} | {
        "docstring_coverage",
        "seed_management",
    }
    result = score(measurements_from(values, not_applicable=not_applicable), rubric)
    assert result.categories["C"].applicable_only_raw is None
    assert result.categories["C"].raw == pytest.approx(100.0)
    # D without docstring_coverage: 0.15·50 / 0.95
    assert result.categories["D"].applicable_only_raw == pytest.approx(100 * 0.15 * 0.5 / 0.95)
    assert result.categories["E"].applicable_only_raw == 0.0
    # The diagnostic never enters the RRS.
    assert result.rrs_unclamped == pytest.approx(
        score(measurements_from(values), rubric).rrs_unclamped
    )


def test_score_refuses_incomplete_measurements(rubric):
    measurements = measurements_from(PAIRTOOLS)
    del measurements.measurements["ci_presence"]
    measurements.measurements["seed_management"].outcome = OUTCOME_ERROR
    measurements.measurements["seed_management"].reason = "timeout"
    measurements.measurements["dep_pinning"].value = None
    with pytest.raises(IncompleteMeasurements) as info:
        score(measurements, rubric)
    assert info.value.metric_ids == ["dep_pinning", "seed_management", "ci_presence"]
    message = str(info.value)
    assert "ci_presence (missing)" in message
    assert "seed_management (detector error: timeout)" in message
    assert "dep_pinning (no value)" in message


DATA_NOT_APPLICABLE = {
    "data_description": False,
    "data_pointer": False,
    "workflow_orchestration": False,
    "data_acquisition_script": False,
}


def test_data_hard_does_not_fire_on_a_wholly_not_applicable_category(rubric):
    # METRICS.md §0.3 (deposit kind): a deposit that uses no data has A1-A4 at their fill
    # value 0, not applicable, and the data penalty does not fire. The empty repository's
    # gated sum 22.1411 (0 + 0 + 1.7411 + 15 + 5.4) less environment_hard's 20 is 2.14.
    categories, penalties, unclamped, rrs = score_from_values(
        EMPTY_REPOSITORY_V2, rubric, applicable=DATA_NOT_APPLICABLE
    )
    assert categories["A"].raw == 0 and categories["A"].applicable_only_raw is None
    assert fired(penalties) == {"environment_hard": 20}
    data_hard = next(p for p in penalties if p.id == "data_hard")
    assert (data_hard.fired, data_hard.points, data_hard.observed) == (False, 0.0, 0.0)
    assert unclamped == pytest.approx(2.1411, abs=1e-4)
    assert rrs == 2.14


def test_data_hard_still_fires_when_one_data_metric_is_applicable(rubric):
    applicable = {**DATA_NOT_APPLICABLE, "data_pointer": True}
    _, penalties, _, rrs = score_from_values(EMPTY_REPOSITORY_V2, rubric, applicable=applicable)
    assert fired(penalties) == {"environment_hard": 20, "data_hard": 15}
    assert rrs == 0.0


def test_no_data_library_scores_without_the_data_penalty(rubric):
    # E = 0.25·100 + 0.20·100 = 45 (over its gate): 0.30·45 = 13.5; base 13.5 + 1.7411 +
    # 15 + 5.4 = 35.6411; with A not applicable no penalty fires (E is over 10).
    values = {**EMPTY_REPOSITORY_V2, "dep_pinning": 100.0, "python_version_declared": 100.0}
    categories, penalties, unclamped, rrs = score_from_values(
        values, rubric, applicable=DATA_NOT_APPLICABLE
    )
    assert categories["E"].raw == 45.0
    assert fired(penalties) == {}
    assert rrs == round(unclamped, 2) == 35.64
    _, penalties, unclamped_all, rrs_all = score_from_values(values, rubric)
    assert fired(penalties) == {"data_hard": 15} and rrs_all == 20.64


def test_compiled_rubric_takes_the_inapplicable_categories(rubric):
    compiled = compile_rubric(rubric)
    values = tuple(EMPTY_REPOSITORY_V2[mid] for mid in METRIC_IDS)
    assert compiled.inapplicable_categories(None) == frozenset()
    assert compiled.inapplicable_categories(DATA_NOT_APPLICABLE) == {1}
    assert compiled(values)[2] == (True, True, False)
    _, _, fired_flags, unclamped, rrs = compiled(values, compiled.inapplicable_categories(DATA_NOT_APPLICABLE))
    assert fired_flags == (True, False, False)
    assert rrs == 2.14
