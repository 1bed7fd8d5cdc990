"""Rubric loading, validation, inheritance and identity (METRICS.md §7, §0.1.3–6)."""

from __future__ import annotations

import copy
import re
import uuid
from pathlib import Path

import pytest
import yaml

from rubrics import RUBRICS_DIR
from scoring.catalog import CATEGORY_KEYS, METRICS, metrics_of
from scoring.rubric import (
    DEFAULT_RUBRIC_NAME,
    SCHEMA_KEYS,
    Rubric,
    RubricError,
    known_identity,
    list_bundled,
    load_rubric,
    parse_rubric,
    register,
)

DOCS = Path(__file__).resolve().parents[1] / "docs" / "rubrics.md"

# The reference implementation's config/default_rubric.yaml, as described in METRICS.md §7.1.
REF_DEFAULT_V1 = """\
name: default
version: "1.0"
description: ReproScore default rubric
categories:
  E: {weight: 0.30, tau: 40, k: 1.5, name: Environment}
  A: {weight: 0.25, tau: 30, k: 1.5}
  D: {weight: 0.20, tau: 20, k: 1.2}
  C: {weight: 0.15, tau: 25, k: 1.2}
  S: {weight: 0.10, tau: 30, k: 1.2}
penalties:
  environment_hard_threshold: 10
  data_hard_threshold: 10
  environment_hard_penalty: 20
  data_hard_penalty: 15
  seed_threshold: 50
  seed_penalty: 10
ros_components:
  I: {weight: 0.30, description: install}
  X: {weight: 0.25}
  delta: {weight: 0.20}
  N: {weight: 0.10}
  E: {weight: 0.10}
  T: {weight: 0.05}
rcs: {alpha_max: 0.70, alpha_min: 0.10}
"""

BIOINFORMATICS_V1 = """\
name: bioinformatics-v1
version: 1.0
categories:
  E: {weight: 0.35, tau: 40, k: 1.5}
  A: {weight: 0.40, tau: 30, k: 1.5}
  D: {weight: 0.10, tau: 20, k: 1.2}
  C: {weight: 0.05, tau: 25, k: 1.2}
  S: {weight: 0.10, tau: 30, k: 1.2}
"""


def unique_name(prefix: str = "test") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def default_doc(**changes) -> dict:
    """The bundled default rubric as a v2 mapping, renamed so tests never collide."""
    doc = copy.deepcopy(load_rubric().to_dict())
    doc["name"] = unique_name()
    doc.update(changes)
    return doc


def dump(doc: dict) -> str:
    return yaml.safe_dump(doc, sort_keys=False)


def errors_of(text: str, **kwargs) -> list[str]:
    with pytest.raises(RubricError) as info:
        parse_rubric(text, **kwargs)
    assert str(info.value).splitlines() == info.value.errors
    return info.value.errors


# --------------------------------------------------------------------------- bundled


def test_bundled_rubrics_load_and_differ():
    assert {"default", "bioinformatics-v1"} <= set(list_bundled())
    default = load_rubric()
    bio = load_rubric("bioinformatics-v1")
    assert DEFAULT_RUBRIC_NAME == "default"
    assert default.identity() == {"name": "default", "version": "1.0.0", "sha256": default.sha256}
    assert bio.identity()["version"] == "1.0.0"
    assert len(default.sha256) == 64 and default.sha256 == default.sha256.lower()
    assert bio.sha256 != default.sha256
    assert default.source == "default"
    assert not default.legacy and default.weights_tolerance == "strict"
    assert default.warnings == () and bio.warnings == ()


def test_default_rubric_holds_the_paper_values():
    rubric = load_rubric("default@1.0.0")
    table1 = {
        "E": (0.30, 40, 1.5),
        "A": (0.25, 30, 1.5),
        "D": (0.20, 20, 1.2),
        "C": (0.15, 25, 1.2),
        "S": (0.10, 30, 1.2),
    }
    assert list(rubric.categories) == list(CATEGORY_KEYS)
    for key, (weight, tau, k) in table1.items():
        rule = rubric.categories[key]
        assert (rule.weight, rule.tau, rule.k) == (weight, tau, k)
        assert dict(rule.submetrics) == {m.metric_id: m.default_weight for m in metrics_of(key)}
        assert list(rule.submetrics) == [m.metric_id for m in metrics_of(key)]
    assert [(p.id, p.target_kind, p.target, p.below, p.points) for p in rubric.penalties] == [
        ("environment_hard", "category", "E", 10, 20),
        ("data_hard", "category", "A", 10, 15),
        ("seed", "submetric", "seed_management", 50, 10),
    ]
    assert rubric.clamp == (0, 100)
    assert {c: (r.weight, r.input) for c, r in rubric.ros.items()} == {
        "I": (0.30, "boolean"),
        "X": (0.25, "boolean"),
        "delta": (0.20, "percent"),
        "N": (0.10, "fraction"),
        "E_prime": (0.10, "fraction"),
        "T": (0.05, "fraction"),
    }
    assert (rubric.alpha_max, rubric.alpha_min) == (0.70, 0.10)
    assert (rubric.rounding.score, rubric.rounding.mode) == (2, "half_even")
    assert set(rubric.rationale) == set(CATEGORY_KEYS)
    assert rubric.description


def test_bioinformatics_profile_changes_only_category_weights():
    default = load_rubric()
    bio = load_rubric("bioinformatics-v1")
    assert {k: r.weight for k, r in bio.categories.items()} == {
        "E": 0.35,
        "A": 0.40,
        "D": 0.10,
        "C": 0.05,
        "S": 0.10,
    }
    for key in CATEGORY_KEYS:
        assert (bio.categories[key].tau, bio.categories[key].k) == (
            default.categories[key].tau,
            default.categories[key].k,
        )
        assert bio.categories[key].submetrics == default.categories[key].submetrics
    assert bio.penalties == default.penalties
    assert bio.ros == default.ros
    assert bio.extends == "default@1.0.0"
    assert bio.rationale and bio.description != default.description


def test_minimal_v2_rubric_takes_the_paper_defaults():
    text = dump(
        {
            "schema": "reproscore-rubric/2",
            "name": "minimal",
            "version": "1.0.0",
            "categories": {
                "E": {"weight": 0.30, "tau": 40, "k": 1.5},
                "A": {"weight": 0.25, "tau": 30, "k": 1.5},
                "D": {"weight": 0.20, "tau": 20, "k": 1.2},
                "C": {"weight": 0.15, "tau": 25, "k": 1.2},
                "S": {"weight": 0.10, "tau": 30, "k": 1.2},
            },
        }
    )
    assert parse_rubric(text).sha256 == load_rubric().sha256


def test_to_dict_round_trips_to_the_same_hash():
    for name in ("default", "bioinformatics-v1"):
        rubric = load_rubric(name)
        again = parse_rubric(dump(rubric.to_dict()))
        assert again.sha256 == rubric.sha256
        assert again.to_dict() == rubric.to_dict()
        assert again == rubric and hash(again) == hash(rubric)


def test_canonical_holds_only_scoring_fields():
    canonical = load_rubric().canonical
    assert set(canonical) == {
        "schema",
        "categories",
        "penalties",
        "clamp",
        "ros",
        "rcs",
        "rounding",
    }
    assert set(canonical["categories"]["E"]) == {"weight", "tau", "k", "submetrics"}
    assert all(
        isinstance(v, float)
        for v in canonical["categories"]["E"].values()
        if not isinstance(v, dict)
    )


# --------------------------------------------------------------------------- hashing


def test_integers_and_floats_hash_alike():
    doc = default_doc()
    as_int = copy.deepcopy(doc)
    as_int["categories"]["E"]["tau"] = 40
    as_int["clamp"] = [0, 100]
    as_float = copy.deepcopy(doc)
    as_float["categories"]["E"]["tau"] = 40.0
    as_float["clamp"] = [0.0, 100.0]
    assert "tau: 40\n" in dump(as_int) and "tau: 40.0\n" in dump(as_float)
    assert parse_rubric(dump(as_int)).sha256 == parse_rubric(dump(as_float)).sha256


def test_metadata_does_not_change_the_hash_but_scoring_does():
    doc = default_doc()
    base = parse_rubric(dump(doc)).sha256
    relabelled = default_doc(
        description="other words", license="CC0-1.0", maintainers=["someone"], rationale="why"
    )
    assert parse_rubric(dump(relabelled)).sha256 == base
    changed = copy.deepcopy(doc)
    changed["penalties"][2]["points"] = 9
    assert parse_rubric(dump(changed)).sha256 != base


def test_e_alias_hashes_like_e_prime():
    doc = default_doc()
    aliased = copy.deepcopy(doc)
    components = aliased["ros"]["components"]
    components["E"] = components.pop("E_prime")
    rubric = parse_rubric(dump(aliased))
    assert "E_prime" in rubric.ros and "E" not in rubric.ros
    assert rubric.sha256 == parse_rubric(dump(doc)).sha256


# --------------------------------------------------------------------------- validation


def test_category_weights_summing_to_1_3_are_rejected():
    doc = default_doc()
    doc["categories"]["E"]["weight"] = 0.60
    errors = errors_of(dump(doc))
    assert errors[0] == "categories: weights sum to 1.3, expected 1.0"


def test_k_below_one_is_rejected_naming_the_key():
    doc = default_doc()
    doc["categories"]["E"]["k"] = 0.5
    assert errors_of(dump(doc))[0] == "categories.E.k: must be >= 1 (got 0.5)"


def test_tau_out_of_range_is_rejected():
    doc = default_doc()
    doc["categories"]["A"]["tau"] = 0
    doc["categories"]["D"]["tau"] = 120
    errors = errors_of(dump(doc))
    assert errors == [
        "categories.A.tau: must be > 0 and <= 100 (got 0)",
        "categories.D.tau: must be > 0 and <= 100 (got 120)",
    ]


def test_unknown_key_is_rejected():
    doc = default_doc(detectors={"file_limits": {"max_bytes": 2097152}})
    assert errors_of(dump(doc))[0] == "unknown key 'detectors'"
    nested = default_doc()
    nested["categories"]["S"]["gate"] = "soft"
    assert errors_of(dump(nested)) == ["categories.S: unknown key 'gate'"]


def test_submetric_set_mismatch_is_rejected():
    doc = default_doc()
    del doc["categories"]["D"]["submetrics"]["docstring_coverage"]
    assert errors_of(dump(doc))[0] == "categories.D.submetrics: missing docstring_coverage"

    doc = default_doc()
    doc["categories"]["E"]["submetrics"]["seed_management"] = 0.0
    assert errors_of(dump(doc)) == [
        "categories.E.submetrics: seed_management belongs to category S, not E"
    ]

    doc = default_doc()
    doc["categories"]["C"]["submetrics"]["made_up"] = 0.0
    assert errors_of(dump(doc)) == ["categories.C.submetrics: unknown sub-metric 'made_up'"]


def test_submetric_weights_must_sum_to_one():
    doc = default_doc()
    doc["categories"]["E"]["submetrics"]["dep_pinning"] = 0.35
    assert errors_of(dump(doc)) == ["categories.E.submetrics: weights sum to 1.1, expected 1.0"]


def test_submetric_weights_are_configurable():
    doc = default_doc()
    doc["categories"]["E"]["submetrics"] = {
        "dep_pinning": 0.4,
        "container_spec": 0.4,
        "env_bootstrap": 0.1,
        "python_version_declared": 0.1,
    }
    rubric = parse_rubric(dump(doc))
    assert rubric.categories["E"].submetrics["dep_pinning"] == 0.4
    assert rubric.sha256 != load_rubric().sha256


def test_category_set_must_be_exact():
    doc = default_doc()
    del doc["categories"]["S"]
    doc["categories"]["X"] = {"weight": 0.1, "tau": 30, "k": 1.2}
    errors = errors_of(dump(doc))
    assert errors[0] == "categories: missing S"
    assert "categories: unknown category 'X' (expected E, A, D, C, S)" in errors


def test_all_errors_are_reported_together():
    doc = default_doc(rounding={"submetric": 2, "category": 2, "score": 2, "mode": "half_up"})
    doc["categories"]["E"]["k"] = 0.5
    doc["categories"]["E"]["weight"] = -0.1
    doc["rcs"] = {"alpha_max": 0.1, "alpha_min": 0.5}
    doc["clamp"] = [50, 10]
    errors = errors_of(dump(doc))
    assert errors == [
        "categories.E.weight: must be >= 0 (got -0.1)",
        "categories.E.k: must be >= 1 (got 0.5)",
        "clamp: must satisfy 0 <= low < high <= 100 (got [50, 10])",
        "rcs: alpha_min 0.5 exceeds alpha_max 0.1",
        "rounding.mode: must be one of half_even (got the string 'half_up')",
    ]


def test_penalty_rules_are_validated():
    doc = default_doc()
    doc["penalties"] = [
        {"id": "a", "target": {"category": "Q"}, "below": 10, "points": 1},
        {"id": "a", "target": {"submetric": "seed_management"}, "below": 101, "points": -1},
        {
            "id": "b",
            "target": {"category": "E", "submetric": "dep_pinning"},
            "below": 1,
            "points": 1,
        },
        {"target": {"category": "E"}, "below": 1, "points": 1, "note": "x"},
    ]
    errors = errors_of(dump(doc))
    assert errors == [
        "penalties[a].target.category: unknown category the string 'Q'",
        "penalties: duplicate id 'a'",
        "penalties[a].below: must be >= 0 and <= 100 (got 101)",
        "penalties[a].points: must be >= 0 (got -1)",
        "penalties[b].target: must name exactly one of category or submetric",
        "penalties[3]: unknown key 'note'",
        "penalties[3].id: required",
    ]


def test_empty_penalty_list_means_no_penalties():
    rubric = parse_rubric(dump(default_doc(penalties=[])))
    assert rubric.penalties == ()


def test_ros_section_is_validated():
    doc = default_doc()
    components = doc["ros"]["components"]
    components["E"] = {"weight": 0.1, "input": "fraction"}
    components["Z"] = {"weight": 0.0, "input": "fraction"}
    components["T"]["input"] = "ratio"
    errors = errors_of(dump(doc))
    assert "ros.components: 'E' duplicates E_prime (E is an alias of E_prime)" in errors
    assert (
        "ros.components: unknown component 'Z' (expected one of I, X, delta, N, E_prime, T)"
        in errors
    )
    assert (
        "ros.components.T.input: must be one of boolean, percent, fraction (got the string 'ratio')"
        in errors
    )

    doc = default_doc()
    doc["ros"]["components"]["I"]["weight"] = 0.5
    assert errors_of(dump(doc)) == ["ros.components: weights sum to 1.2, expected 1.0"]


def test_ros_may_list_a_subset_of_components():
    doc = default_doc(
        ros={
            "components": {
                "I": {"weight": 0.5, "input": "boolean"},
                "X": {"weight": 0.5, "input": "percent"},
            }
        }
    )
    rubric = parse_rubric(dump(doc))
    assert list(rubric.ros) == ["I", "X"] and rubric.ros["X"].input == "percent"


def test_identity_fields_are_validated():
    doc = default_doc(name="My Rubric", version="1.0")
    assert errors_of(dump(doc)) == [
        "name: must match [a-z0-9-]+ (got 'My Rubric')",
        "version: must be a semantic version string such as \"1.0.0\" (got the string '1.0')",
    ]
    doc = default_doc(schema="reproscore-rubric/3")
    assert errors_of(dump(doc)) == [
        "schema: unsupported schema the string 'reproscore-rubric/3' (expected reproscore-rubric/2)"
    ]


def test_yaml_errors_are_errors_not_defaults():
    errors = errors_of("schema: reproscore-rubric/2\ncategories: [unclosed\n")
    assert errors[0].startswith("yaml: cannot parse the rubric")
    assert errors_of("")[0] == "yaml: the rubric document is empty"
    assert errors_of("- a\n- b\n")[0] == "yaml: the rubric must be a mapping, not a list"
    duplicate = "name: a\nname: b\n"
    assert "duplicate key 'name'" in errors_of(duplicate)[0]


def test_unreadable_reference_is_an_error(tmp_path):
    with pytest.raises(RubricError, match="no bundled rubric or file named"):
        load_rubric(str(tmp_path / "absent.yaml"))
    with pytest.raises(RubricError, match="version"):
        load_rubric("default@9.9.9")


# --------------------------------------------------------------------------- legacy v1


def test_legacy_ref_default_is_mapped_and_matches_the_bundled_default():
    rubric = parse_rubric(REF_DEFAULT_V1)
    assert rubric.legacy and rubric.weights_tolerance == "legacy"
    assert rubric.version == "1.0.0"
    assert "E_prime" in rubric.ros and "E" not in rubric.ros
    assert rubric.ros["E_prime"].input == "fraction" and rubric.ros["delta"].input == "percent"
    assert rubric.ros["I"].description == "install"
    assert rubric.sha256 == load_rubric().sha256


def test_legacy_profile_without_sections_takes_the_defaults():
    rubric = parse_rubric(BIOINFORMATICS_V1)
    assert rubric.legacy and rubric.version == "1.0.0"
    assert rubric.penalties == load_rubric().penalties
    assert rubric.canonical["ros"] == load_rubric().canonical["ros"]
    assert (rubric.alpha_max, rubric.alpha_min) == (0.70, 0.10)
    assert rubric.sha256 == load_rubric("bioinformatics-v1").sha256


def test_legacy_weight_tolerance_is_accepted_and_flagged():
    text = BIOINFORMATICS_V1.replace("S: {weight: 0.10", "S: {weight: 0.105")
    rubric = parse_rubric(text)
    assert rubric.weights_tolerance == "legacy"
    assert rubric.warnings and rubric.warnings[0].startswith("categories: weights sum to 1.005")
    too_far = BIOINFORMATICS_V1.replace("S: {weight: 0.10", "S: {weight: 0.12")
    assert errors_of(too_far) == ["categories: weights sum to 1.02, expected 1.0"]
    # The same drift is not tolerated in the v2 format.
    doc = default_doc()
    doc["categories"]["S"]["weight"] = 0.105
    assert errors_of(dump(doc)) == ["categories: weights sum to 1.005, expected 1.0"]


def test_legacy_rejects_k_below_one_and_unknown_keys():
    text = BIOINFORMATICS_V1.replace(
        "E: {weight: 0.35, tau: 40, k: 1.5}", "E: {weight: 0.35, tau: 40, k: 0.5}"
    )
    assert errors_of(text) == ["categories.E.k: must be >= 1 (got 0.5)"]
    assert errors_of(BIOINFORMATICS_V1 + "detectors: {}\n") == ["unknown key 'detectors'"]


def test_legacy_penalties_and_ros_keys():
    partial = BIOINFORMATICS_V1 + "penalties: {seed_penalty: 5}\n"
    assert errors_of(partial)[0].startswith("penalties: missing environment_hard_threshold")
    changed = BIOINFORMATICS_V1 + (
        "penalties: {environment_hard_threshold: 10, data_hard_threshold: 10, environment_hard_penalty: 20,"
        " data_hard_penalty: 15, seed_threshold: 50, seed_penalty: 5}\n"
    )
    assert parse_rubric(changed).penalties[2].points == 5
    ros = BIOINFORMATICS_V1 + "ros_components: {I: {weight: 0.5}, X: {weight: 0.6}}\n"
    assert errors_of(ros) == ["ros_components: weights sum to 1.1, expected 1.0"]


# --------------------------------------------------------------------------- extends


def write(path: Path, doc: dict) -> Path:
    path.write_text(dump(doc), encoding="utf-8")
    return path


def child_doc(extends: str, **sections) -> dict:
    return {
        "schema": "reproscore-rubric/2",
        "name": unique_name("child"),
        "version": "1.0.0",
        "extends": extends,
        **sections,
    }


def test_extends_deep_merges_maps_and_replaces_lists(tmp_path):
    child = child_doc(
        "default@1.0.0",
        categories={"E": {"tau": 35}},
        clamp=[5, 95],
        rcs={"alpha_max": 0.6},
    )
    rubric = parse_rubric(dump(child))
    default = load_rubric()
    assert rubric.categories["E"].tau == 35
    assert rubric.categories["E"].weight == default.categories["E"].weight
    assert rubric.categories["E"].submetrics == default.categories["E"].submetrics
    assert rubric.categories["E"].name == "Environment specification"
    assert rubric.clamp == (5, 95)
    assert (rubric.alpha_max, rubric.alpha_min) == (0.6, 0.1)
    assert rubric.description is None and rubric.rationale is None  # metadata is not inherited


def test_extends_merges_penalties_by_id():
    child = child_doc(
        "default",
        penalties=[
            {"id": "seed", "points": 5},
            {"id": "data_hard", "target": {"submetric": "data_pointer"}, "below": 25},
            {
                "id": "no_tests",
                "target": {"submetric": "test_file_presence"},
                "below": 1,
                "points": 3,
            },
        ],
    )
    rubric = parse_rubric(dump(child))
    assert [(p.id, p.target_kind, p.target, p.below, p.points) for p in rubric.penalties] == [
        ("environment_hard", "category", "E", 10, 20),
        ("data_hard", "submetric", "data_pointer", 25, 15),
        ("seed", "submetric", "seed_management", 50, 5),
        ("no_tests", "submetric", "test_file_presence", 1, 3),
    ]


def test_extends_validates_the_merged_result():
    child = child_doc("default", categories={"A": {"weight": 0.5}})
    assert errors_of(dump(child)) == ["categories: weights sum to 1.25, expected 1.0"]


def test_extends_a_relative_path_and_chains(tmp_path):
    base = write(tmp_path / "base.yaml", {**child_doc("default"), "categories": {"D": {"k": 1.0}}})
    (tmp_path / "sub").mkdir()
    middle = write(
        tmp_path / "sub" / "middle.yaml", child_doc("../base.yaml", rcs={"alpha_min": 0.2})
    )
    rubric = load_rubric(middle)
    assert rubric.categories["D"].k == 1.0
    assert rubric.alpha_min == 0.2
    assert rubric.source == str(middle)
    assert rubric.text == middle.read_text(encoding="utf-8")
    assert parse_rubric(dump(child_doc("base.yaml")), base_dir=tmp_path).categories["D"].k == 1.0
    assert base.exists()


def test_extends_cycles_are_detected(tmp_path):
    write(tmp_path / "a.yaml", child_doc("b.yaml"))
    write(tmp_path / "b.yaml", child_doc("a.yaml"))
    with pytest.raises(RubricError) as info:
        load_rubric(tmp_path / "a.yaml")
    assert info.value.errors[0].startswith("extends: cycle")


def test_extends_unknown_base_is_an_error():
    assert errors_of(dump(child_doc("nonexistent")))[0].startswith(
        "extends: no bundled rubric 'nonexistent'"
    )
    assert errors_of(dump(child_doc("default@2.0.0")))[0].startswith(
        "extends: 'default@2.0.0' not found"
    )


def test_extending_a_legacy_file(tmp_path):
    write(tmp_path / "old.yaml", yaml.safe_load(BIOINFORMATICS_V1))
    rubric = parse_rubric(
        dump(child_doc("old.yaml", categories={"D": {"tau": 25}})), base_dir=tmp_path
    )
    assert not rubric.legacy
    assert rubric.categories["A"].weight == 0.40 and rubric.categories["D"].tau == 25


# --------------------------------------------------------------------------- registry


def test_registry_rejects_a_known_name_and_version_with_another_hash(tmp_path):
    doc = default_doc()
    first = parse_rubric(dump(doc))
    register(first)
    register(first)  # the same content again is fine
    assert known_identity(first.name, first.version) == first.identity()
    changed = copy.deepcopy(doc)
    changed["clamp"] = [0, 90]
    second = parse_rubric(dump(changed))
    with pytest.raises(RubricError) as info:
        register(second)
    message = str(info.value)
    assert first.sha256 in message and second.sha256 in message


def test_a_file_cannot_take_over_a_bundled_identity(tmp_path):
    doc = load_rubric().to_dict()
    doc["categories"]["E"]["tau"] = 30
    path = write(tmp_path / "fake-default.yaml", doc)
    with pytest.raises(RubricError, match=load_rubric().sha256):
        load_rubric(path)


def test_load_rubric_registers_files(tmp_path):
    path = write(tmp_path / "mine.yaml", default_doc())
    rubric = load_rubric(str(path))
    assert isinstance(rubric, Rubric)
    assert known_identity(rubric.name, rubric.version) == rubric.identity()
    assert known_identity(unique_name(), "1.0.0") is None


# --------------------------------------------------------------------------- documentation


def test_every_schema_key_is_documented():
    # Pairing backticks across the whole file also catches a stray or fenced ``` that
    # would shift every inline code span after it.
    documented = set(re.findall(r"`([^`]+)`", DOCS.read_text(encoding="utf-8")))
    missing = sorted(SCHEMA_KEYS - documented)
    assert not missing


def test_documented_example_is_valid():
    text = DOCS.read_text(encoding="utf-8")
    example = text.split("## Version 2 format", 1)[1].split("~~~yaml", 1)[1].split("~~~", 1)[0]
    rubric = parse_rubric(example)
    assert rubric.categories["A"].weight == 0.30 and rubric.penalties[2].points == 5


def test_bundled_files_live_in_the_package():
    assert (RUBRICS_DIR / "default.yaml").is_file()
    assert all(
        len(METRICS) == sum(len(r.submetrics) for r in load_rubric(n).categories.values())
        for n in list_bundled()
    )


def test_yaml_merge_keys_may_be_overridden():
    text = """\
schema: reproscore-rubric/2
name: anchors
version: "1.0.0"
categories:
  E: &core {weight: 0.30, tau: 40, k: 1.5}
  A: {<<: *core, weight: 0.25, tau: 30}
  D: &quality {weight: 0.20, tau: 20, k: 1.2}
  C: {<<: *quality, weight: 0.15, tau: 25}
  S: {<<: *quality, weight: 0.10, tau: 30}
"""
    assert parse_rubric(text).sha256 == load_rubric().sha256


def test_parse_rubric_resolves_extends_beside_its_source_file(tmp_path):
    write(tmp_path / "base.yaml", {**child_doc("default"), "rcs": {"alpha_min": 0.3}})
    path = write(tmp_path / "child.yaml", child_doc("./base.yaml"))
    rubric = parse_rubric(path.read_text(encoding="utf-8"), source=str(path))
    assert rubric.alpha_min == 0.3 and rubric.source == str(path)
