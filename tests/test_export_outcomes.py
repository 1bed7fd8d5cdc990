"""Execution outcomes in the exports of a real store: outcomes stored through the public
``reproscore outcome import`` (and one as ``reproscore execute`` stores it) travel with the
score. RO-Crate (valid under roc-validator), CodeMeta and RDF carry the components, ROS,
alpha and RCS exactly as the store computed them, with the execution's provenance (origin,
probes' commands, exit statuses, failure classes); ``reproscore verify`` recomputes ROS,
alpha and RCS from the exported components and fails on a tampered one."""

from __future__ import annotations

import json
import shutil
import sqlite3
import zipfile
from datetime import datetime
from pathlib import Path

import pytest
from click.testing import CliRunner
from export_store import (
    AWS_KEY,
    GITHUB_TOKEN,
    SECRET_DOI,
    SWH_ORIGIN,
    ZENODO_DOI,
    all_text,
    build,
    crate_entities,
    crate_file,
    crate_metadata,
    offline,
)
from rdflib import Graph, Literal, URIRef

from exporters import terms, validator
from exporters.assessment import ExportError
from exporters.jsonld import CODEMETA_CONTEXT, context_document, parse_jsonld
from exporters.rdf_export import DQV, decimal_literal
from exporters.rocrate_export import REPORT_FILE
from reproscore import api
from reproscore.cli import cli
from reproscore.store import Store
from scoring.rubric import load_rubric

DEFAULT = load_rubric("default")
BIO = load_rubric("bioinformatics-v1")
ROOT = Path(__file__).resolve().parents[1]
PREFIXES = """
PREFIX schema: <http://schema.org/>
PREFIX dqv: <http://www.w3.org/ns/dqv#>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX dcterms: <http://purl.org/dc/terms/>
PREFIX rs: <https://w3id.org/reproscore/terms#>
PREFIX rsm: <https://w3id.org/reproscore/metric/>
"""
BINDER_URL = "https://mybinder.org/v2/zenodo/10.5281/zenodo.9100001/"
# What the curator's own infrastructure reports (docs/execution.md's schema): Binder for the
# Zenodo deposit (the current outcome of its tree), an older CI run of the Software Heritage
# origin (superseded below by a sandboxed run), and the secret deposit, whose log and
# command carry secrets that must never reach an export.
OUTCOMES = {
    "schema": "reproscore-outcome/1",
    "outcomes": [
        {
            "subject": ZENODO_DOI,
            "origin": {"name": "binder", "version": "2026.1", "url": BINDER_URL, "run_id": "4711"},
            "executed_at": "2026-11-02T10:00:00Z",
            "components": {"I": True, "X": False, "delta": None, "N": 0.6, "E_prime": 1.0, "T": None},
            "failure_class": "code_error",
            "probes": [
                {"probe": "I", "command": "pip install -r requirements.txt", "exit_status": 0,
                 "duration_seconds": 41.5, "value": True},
                {"probe": "X", "command": "python run.py", "exit_status": 1, "duration_seconds": 3.2,
                 "value": False, "reason": "the entry point failed",
                 "log_excerpt": "TypeError: unsupported operand", "failure_class": "code_error"},
                {"probe": "N", "command": "nbclient notebooks/*.ipynb", "exit_status": None, "value": 0.6},
            ],
        },
        {
            "subject": f"swh:{SWH_ORIGIN}",
            "origin": "ci",
            "executed_at": "2026-10-01T08:00:00Z",
            "components": {"I": False},
            "failure_class": "install_dep",
        },
        {
            "subject": SECRET_DOI,
            "origin": {"name": "ci", "description": "GitLab CI nightly"},
            "executed_at": "2026-11-01T00:00:00+01:00",
            "components": {"T": 0.5, "E": 1.0},
            "probes": [
                {"probe": "T", "command": f"GITHUB_TOKEN={GITHUB_TOKEN} pytest", "exit_status": 1,
                 "log_excerpt": f"AWS_ACCESS_KEY_ID = \"{AWS_KEY}\"\nFAILED test_sync.py::test_upload"},
            ],
        },
    ],
}
EXECUTE_TREE = "/home/curator/scratch/aerosol-copy"  # a local path: never exported


def ros_of(weights_and_values):
    """METRICS.md §8 by hand: the weighted mean over the available components, sums in
    component order (as the scorer adds them)."""
    coverage = weighted = 0.0
    for weight, y in weights_and_values:
        coverage += weight
        weighted += weight * y
    return weighted / coverage, coverage


def rcs_of(rrs, ros, coverage):
    """METRICS.md §9 from the published values: α to 4 decimals, ROS to 2 (§8)."""
    alpha = round(max(min(coverage, 1.0) * 0.70, 0.10), 4)
    return alpha, round(min(100.0, max(0.0, (1.0 - alpha) * rrs + alpha * round(ros, 2))), 2)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """The export store with outcomes imported through `reproscore outcome import` and one
    stored as `reproscore execute` stores it; scores under a second rubric and under a rubric
    that reads N as a percent; every export written with the network off."""
    base = tmp_path_factory.mktemp("outcomes")
    store = build(base / "store")
    results = base / "results.json"
    results.write_text(json.dumps(OUTCOMES, indent=2), encoding="utf-8")
    with offline() as attempts:
        imported = CliRunner().invoke(cli, ["outcome", "import", "--db", str(store.db), str(results)],
                                      catch_exceptions=False)
    assert imported.exit_code == 0, imported.output
    percent = base / "percent-notebooks.yaml"
    percent.write_text((ROOT / "rubrics" / "default.yaml").read_text(encoding="utf-8")
                       .replace("name: default", "name: percent-notebooks")
                       .replace("N: {weight: 0.10, input: fraction", "N: {weight: 0.10, input: percent"),
                       encoding="utf-8")
    with Store(store.db) as st:
        record = st.resolve(f"swh:{SWH_ORIGIN}")
        st.save_outcome(
            record.id, components={"I": 100.0, "X": 100.0, "delta": 50.0, "N": None, "E_prime": None, "T": None},
            origin="reproscore-execute", executed_at="2026-11-03T09:30:00.250000Z", deposit_id=record.deposit_id,
            origin_detail={"name": "reproscore-execute", "version": "0.1.0", "tree": EXECUTE_TREE},
            sandbox="bubblewrap", failure_class=None, duration=12.5,
            probes=[{"probe": "I", "value": 100.0, "status": "measured", "command": "pip install .",
                     "exit_status": 0, "duration": 8.0},
                    {"probe": "X", "value": 100.0, "status": "measured", "command": "python -m aerosol",
                     "exit_status": 0, "duration": 2.0},
                    {"probe": "delta", "value": 50.0, "status": "measured", "reason": "1 of 2 outputs match"},
                    {"probe": "T", "status": "not_applicable", "reason": "no test file"}],
        )  # fmt: skip
        st.rescore(BIO)
        st.rescore(load_rubric(percent))
    out: dict[str, Path] = {}
    with offline() as attempts2:
        out["crate"] = Path(api.export_rocrate(store.db, base / "crate", deposit=ZENODO_DOI, rubric="default").path)
        out["zip"] = Path(api.export_rocrate(store.db, base / "crate.zip", deposit=ZENODO_DOI, zip_file=True,
                                              rubric="default").path)
        out["swh"] = Path(api.export_rocrate(store.db, base / "swh", deposit=SWH_ORIGIN, rubric="default").path)
        out["secret"] = Path(api.export_rocrate(store.db, base / "secret.zip", deposit=SECRET_DOI, zip_file=True,
                                                 rubric="default").path)
        out["collection"] = Path(api.export_rocrate(store.db, base / "collection", all_deposits=True,
                                                     rubric="default").path)
        out["bio"] = Path(api.export_rocrate(store.db, base / "bio", deposit=ZENODO_DOI, rubric="bioinformatics-v1").path)
        out["percent"] = Path(api.export_rocrate(store.db, base / "percent", deposit=ZENODO_DOI,
                                                 rubric="percent-notebooks@1.0.0").path)
        out["codemeta"] = Path(api.export_codemeta(store.db, ZENODO_DOI, base / "codemeta.json", rubric="default").path)
        out["codemeta-swh"] = Path(api.export_codemeta(store.db, SWH_ORIGIN, base / "codemeta-swh.json",
                                                      rubric="default").path)
        out["ttl"] = Path(api.export_rdf(store.db, base / "all.ttl", rubric="default").path)
        out["jsonld"] = Path(api.export_rdf(store.db, base / "all.jsonld", fmt="json-ld", rubric="default").path)
        out["one-ttl"] = Path(api.export_rdf(store.db, base / "one.ttl", deposit=ZENODO_DOI, rubric="default").path)
    assert attempts == [] and attempts2 == []
    return store, out


def edit_metadata(crate: Path, target: Path, change) -> Path:
    """A copy of ``crate`` (directory or zip) at ``target`` whose metadata ``change``
    edits in place (``change(entities_by_id)``)."""
    metadata = crate_metadata(crate)
    change({e["@id"]: e for e in metadata["@graph"]})
    text = json.dumps(metadata, indent=4)
    if crate.is_dir():
        shutil.copytree(crate, target)
        (target / "ro-crate-metadata.json").write_text(text, encoding="utf-8")
        return target
    with zipfile.ZipFile(crate) as source, zipfile.ZipFile(target, "w") as out:
        for name in source.namelist():
            out.writestr(name, text if name == "ro-crate-metadata.json" else source.read(name))
    return target


def stored_scores(db: Path, swhid: str, rubric) -> dict:
    """The score row of a tree under a rubric, straight from the database."""
    conn = sqlite3.connect(db)
    try:
        row = conn.execute(
            "SELECT sc.rrs, sc.outcome_id, sc.ros, sc.ros_coverage, sc.alpha, sc.rcs FROM scores sc"
            " JOIN snapshots s ON s.id = sc.snapshot_id JOIN rubrics r ON r.id = sc.rubric_id"
            " WHERE s.swhid = ? AND r.sha256 = ?", (swhid, rubric.sha256),
        ).fetchone()
    finally:
        conn.close()
    return dict(zip(("rrs", "outcome_id", "ros", "coverage", "alpha", "rcs"), row, strict=True))


def property_values(path: Path) -> dict[str, list]:
    graph = parse_jsonld(crate_metadata(path), base="arcp://name,test-crate/")
    found: dict[str, list] = {}
    for row in graph.query(PREFIXES + "SELECT ?pid ?value WHERE { ?pv a schema:PropertyValue ;"
                           " schema:propertyID ?pid ; schema:value ?value }"):
        found.setdefault(str(row.pid), []).append(row.value.toPython())
    return found


# --------------------------------------------------------------------------- the numbers


def test_the_crate_carries_ros_alpha_rcs_exactly_as_stored(exported):
    store, out = exported
    swhid = store.swhids["snakemake-rnaseq"]
    db = stored_scores(store.db, swhid, DEFAULT)
    rrs = store.result("snakemake-rnaseq")["rrs"]
    ros, coverage = ros_of([(0.30, 100.0), (0.25, 0.0), (0.10, 60.0), (0.10, 100.0)])  # I, X, N, E′
    alpha, rcs = rcs_of(rrs, ros, coverage)
    assert (db["rrs"], db["ros"], db["coverage"], db["alpha"], db["rcs"]) == (
        rrs, round(ros, 2), round(coverage, 4), 0.525, rcs)
    values = property_values(out["crate"])
    assert values[terms.score_metric("ROS")] == [round(ros, 2)]
    assert values[terms.score_metric("coverage")] == [round(coverage, 4)]
    assert values[terms.score_metric("alpha")] == [round(alpha, 4)]
    assert values[terms.score_metric("RCS")] == [rcs] == [db["rcs"]]
    assert {cid: values[terms.outcome_metric(cid)] for cid in ("I", "X", "N", "E_prime")} == {
        "I": [True], "X": [False], "N": [0.6], "E_prime": [1.0]}
    assert terms.outcome_metric("delta") not in values and terms.outcome_metric("T") not in values
    # The same numbers as `reproscore show`.
    shown = api.show_stored(store.db, swhid).result
    assert (shown["rcs"]["value"], shown["ros"]["value"]) == (rcs, round(ros, 2))


def test_a_second_rubric_gives_its_own_rcs(exported):
    store, out = exported
    swhid = store.swhids["snakemake-rnaseq"]
    db = stored_scores(store.db, swhid, BIO)
    ros, coverage = ros_of([(0.30, 100.0), (0.25, 0.0), (0.10, 60.0), (0.10, 100.0)])
    alpha, rcs = rcs_of(db["rrs"], ros, coverage)
    values = property_values(out["bio"])
    assert db["rrs"] != store.result("snakemake-rnaseq")["rrs"]
    assert values[terms.score_metric("RCS")] == [rcs] == [db["rcs"]]
    assert values[terms.score_metric("ROS")] == [round(ros, 2)]


def test_a_rubric_that_reads_n_as_a_percent_gets_the_stored_component_in_its_scale(exported):
    store, out = exported
    values = property_values(out["percent"])
    assert values[terms.outcome_metric("N")] == [60.0]  # not 0.6: the rubric's input scale
    assert values[terms.outcome_metric("I")] == [True]
    ros, _coverage = ros_of([(0.30, 100.0), (0.25, 0.0), (0.10, 60.0), (0.10, 100.0)])
    assert values[terms.score_metric("ROS")] == [round(ros, 2)]
    assert api.verify_export(out["percent"]).ok


def test_the_current_outcome_is_the_most_recently_executed(exported):
    store, out = exported
    values = property_values(out["swh"])
    # The sandboxed run of 2026-11-03 (I, X, delta), not the CI run of 2026-10-01 (I false).
    assert {cid: values.get(terms.outcome_metric(cid)) for cid in ("I", "X", "delta", "N")} == {
        "I": [True], "X": [True], "delta": [50.0], "N": None}
    ros, coverage = ros_of([(0.30, 100.0), (0.25, 100.0), (0.20, 50.0)])
    alpha, rcs = rcs_of(store.result("notebook-ml-study")["rrs"], ros, coverage)
    assert values[terms.score_metric("ROS")] == [round(ros, 2)]
    assert values[terms.score_metric("alpha")] == [round(alpha, 4)]
    assert values[terms.score_metric("RCS")] == [rcs] == [stored_scores(store.db, store.swhids["notebook-ml-study"], DEFAULT)["rcs"]]


def test_a_deposit_without_an_outcome_exports_none(exported):
    store, out = exported
    entities = crate_entities(out["collection"])
    survey = next(e for e in entities.values() if e.get("@type") == "Review"
                  and e["itemReviewed"]["@id"] == store.swhids["r-survey-analysis"])
    prefix = survey["@id"][: -len("assessment")]
    assert not any(k.startswith((f"{prefix}outcome", f"{prefix}execution", f"{prefix}probe", f"{prefix}ROS",
                                 f"{prefix}RCS")) for k in entities)
    assert stored_scores(store.db, store.swhids["r-survey-analysis"], DEFAULT)["outcome_id"] is None


# --------------------------------------------------------------------------- RO-Crate provenance


def test_the_crate_records_the_execution_with_its_origin_and_probe_evidence(exported):
    store, out = exported
    entities = crate_entities(out["crate"])
    swhid = store.swhids["snakemake-rnaseq"]
    root = entities["./"]
    assert root["mentions"] == [{"@id": "#scoring-run"}, {"@id": "#execution"}]
    execution = entities["#execution"]
    assert execution["@type"] == "CreateAction"
    assert execution["name"] == f"Execution of {ZENODO_DOI} by binder"
    assert execution["object"] == {"@id": swhid}
    assert execution["startTime"] == "2026-11-02T10:00:00+00:00" and "endTime" not in execution
    assert execution["identifier"] == "4711"
    # The origin is a name and a URL, not an identified Organization: the "Outcome
    # origin" value among the results.
    assert "agent" not in execution
    origin = entities["#outcome-origin"]
    assert (origin["@type"], origin["value"], origin["url"]) == ("PropertyValue", "binder", BINDER_URL)
    assert [r["@id"] for r in execution["result"]] == [
        "#outcome-I", "#outcome-X", "#outcome-N", "#outcome-E_prime", "#probe-I", "#probe-X", "#probe-N",
        "#outcome-failure-class", "#outcome-origin"]
    assert entities["#outcome-failure-class"]["value"] == "code_error"
    assert entities["#outcome-origin"]["value"] == "binder"
    probe = entities["#probe-X"]
    assert (probe["propertyID"], probe["value"]) == (terms.PROBE_STATUS, "measured")
    assert probe["measurementTechnique"] == {"@id": terms.outcome_metric("X")}
    refs = {entities[r["@id"]]["propertyID"]: entities[r["@id"]]["value"] for r in probe["valueReference"]}
    assert refs == {terms.COMMAND: "python run.py", terms.EXIT_STATUS: 1, terms.FAILURE_CLASS: "code_error"}
    assert probe["description"] == ("measured: the entry point failed; ran python run.py, exit status 1, 3.2 s; "
                                    "failure class code_error")
    refs_n = entities["#probe-N"]["valueReference"]
    assert entities[refs_n["@id"]]["value"] == "nbclient notebooks/*.ipynb"  # no exit status given
    assert entities["#outcome-X"]["wasDerivedFrom"] == {"@id": "#probe-X"}
    assert "wasDerivedFrom" not in entities["#outcome-E_prime"]  # no probe record for it
    # The scoring run used the components and produced ROS, coverage, alpha and RCS.
    scoring = entities["#scoring-run"]
    assert [o["@id"] for o in scoring["object"]][-4:] == ["#outcome-I", "#outcome-X", "#outcome-N", "#outcome-E_prime"]
    assert [r["@id"] for r in scoring["result"]][-5:] == ["#ROS", "#coverage", "#alpha", "#RCS", REPORT_FILE]
    assert "Execution outcome of binder (I, X, N, E_prime, first failure class code_error)" in entities["#assessment"]["reviewBody"]


def test_a_sandboxed_execution_names_reproscore_and_keeps_local_paths_out(exported):
    store, out = exported
    entities = crate_entities(out["swh"])
    execution = entities["#execution"]
    assert execution["instrument"] == {"@id": "#reproscore-0.1.0"} and "agent" not in execution
    assert (execution["startTime"], execution["endTime"]) == ("2026-11-03T09:30:00+00:00", "2026-11-03T09:30:12+00:00")
    assert "bubblewrap sandbox" in execution["description"]
    assert entities["#outcome-origin"]["value"] == "reproscore-execute"
    assert "#outcome-failure-class" not in entities
    assert entities["#probe-T"]["value"] == "not_applicable"
    assert entities["#probe-T"]["description"] == "not_applicable: no test file"
    report = json.loads(crate_file(out["swh"], REPORT_FILE))
    assert report["outcome"]["origin_detail"] == {"name": "reproscore-execute", "version": "0.1.0"}
    assert [p["probe"] for p in report["outcome"]["probes"]] == ["I", "X", "delta", "T"]
    for name in ("swh", "collection", "ttl", "jsonld", "codemeta-swh"):
        assert EXECUTE_TREE not in all_text(out[name]), name


def test_the_native_report_holds_the_outcome_and_its_probes(exported):
    _store, out = exported
    report = json.loads(crate_file(out["crate"], REPORT_FILE))
    outcome = report["outcome"]
    assert outcome["origin"] == "binder" and outcome["failure_class"] == "code_error"
    assert outcome["executed_at"] == "2026-11-02T10:00:00+00:00"
    assert outcome["components"] == {"I": 100.0, "X": 0.0, "delta": None, "N": 60.0, "E_prime": 100.0, "T": None}
    x = next(p for p in outcome["probes"] if p["probe"] == "X")
    assert (x["command"], x["exit_status"], x["log_excerpt"]) == ("python run.py", 1, "TypeError: unsupported operand")
    assert outcome["origin_detail"]["file"] == "results.json" and len(outcome["origin_detail"]["sha256"]) == 64
    assert report["rcs"]["value"] == property_values(out["crate"])[terms.score_metric("RCS")][0]


def test_secrets_in_imported_logs_and_commands_reach_no_export(exported):
    _store, out = exported
    report = json.loads(crate_file(out["secret"], REPORT_FILE))
    (t,) = report["outcome"]["probes"]
    assert t["log_excerpt"].startswith('AWS_ACCESS_KEY_ID = "AKIA') and "(20 chars)" in t["log_excerpt"]
    for name in ("secret", "collection", "ttl", "jsonld"):
        text = all_text(out[name])
        assert AWS_KEY not in text and GITHUB_TOKEN not in text, name


# --------------------------------------------------------------------------- validity


@pytest.mark.parametrize("name", ["crate", "zip", "swh", "secret", "collection", "percent"])
def test_crates_with_outcomes_pass_roc_validator_offline(exported, tmp_path_factory, name):
    _store, out = exported
    cache = tmp_path_factory.mktemp("roc-cache") / "http_cache"
    with offline() as attempts:
        outcome = validator.validate_crate(out[name], cache)
    assert outcome.issues == [] and outcome.passed is True
    assert attempts == []


def test_the_collection_crate_holds_every_outcome(exported):
    store, out = exported
    values = property_values(out["collection"])
    expected = sorted(stored_scores(store.db, store.swhids[t], DEFAULT)["rcs"]
                      for t in ("snakemake-rnaseq", "snakemake-rnaseq", "notebook-ml-study", "secret"))
    assert sorted(values[terms.score_metric("RCS")]) == expected
    assert sorted(values[terms.ORIGIN]) == ["binder", "binder", "ci", "reproscore-execute"]
    entities = crate_entities(out["collection"])
    assert len(entities["./"]["mentions"]) == 5 + 4  # five scoring runs, four executions
    assert api.verify_export(out["collection"]).ok


# --------------------------------------------------------------------------- CodeMeta


def test_codemeta_reviews_ros_and_rcs_with_the_outcome_origin(exported):
    store, out = exported
    document = json.loads(out["codemeta"].read_text(encoding="utf-8"))
    parts = {part["name"]: part for part in document["review"]["hasPart"]}
    ros, _coverage = ros_of([(0.30, 100.0), (0.25, 0.0), (0.10, 60.0), (0.10, 100.0)])
    ros_review = parts["Reproducibility outcome score (ROS)"]
    assert ros_review["schema:reviewRating"]["schema:ratingValue"] == round(ros, 2)
    assert ros_review["reviewBody"] == (
        "Outcome of binder, executed 2026-11-02T10:00:00+00:00; first failure class: code_error. Components: "
        "I true, X false, N 0.6, E_prime 1.0. The probes' commands and exit statuses are in the assessment crate.")
    rcs = stored_scores(store.db, store.swhids["snakemake-rnaseq"], DEFAULT)["rcs"]
    assert parts["Reproducibility composite score (RCS)"]["schema:reviewRating"]["schema:ratingValue"] == rcs
    graph = parse_jsonld(out["codemeta"].read_text(encoding="utf-8"))
    found = {str(r.aspect): r.value.toPython() for r in graph.query(PREFIXES + """
        SELECT ?aspect ?value WHERE { ?software schema:review/schema:hasPart ?part .
          ?part schema:reviewAspect ?aspect ; schema:reviewRating/schema:ratingValue ?value }""")}
    assert found["ROS: execution outcomes"] == round(ros, 2) and found["RCS: readiness and outcomes combined"] == rcs
    swh = json.loads(out["codemeta-swh"].read_text(encoding="utf-8"))
    assert "in a bubblewrap sandbox; first failure class: none" in swh["review"]["hasPart"][-2]["reviewBody"]
    defined = set(context_document(CODEMETA_CONTEXT)["@context"])

    def walk(node):  # JSON-LD would drop a bare term the CodeMeta context does not define
        if isinstance(node, dict):
            for key, value in node.items():
                assert key.startswith(("@", "schema:")) or key in defined, key
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(document)
    walk(swh)


# --------------------------------------------------------------------------- RDF


@pytest.mark.parametrize("name", ["ttl", "jsonld"])
def test_sparql_finds_ros_and_rcs_measurements_and_the_execution(exported, name):
    store, out = exported
    graph = parse_jsonld(out[name].read_text(encoding="utf-8")) if name == "jsonld" else Graph().parse(out[name])
    rows = graph.query(PREFIXES + """
        SELECT ?tree ?ros ?rcs ?alpha WHERE {
          ?m1 a dqv:QualityMeasurement ; dqv:isMeasurementOf rsm:ROS ; dqv:value ?ros ; dqv:computedOn ?tree .
          ?m2 a dqv:QualityMeasurement ; dqv:isMeasurementOf rsm:RCS ; dqv:value ?rcs ; dqv:computedOn ?tree ;
              prov:wasGeneratedBy ?run .
          ?m3 dqv:isMeasurementOf rsm:alpha ; dqv:value ?alpha ; prov:wasGeneratedBy ?run .
          ?m1 prov:wasGeneratedBy ?run }""")
    found = sorted((str(r.tree), float(str(r.rcs))) for r in rows)
    trees = ("snakemake-rnaseq", "snakemake-rnaseq", "notebook-ml-study", "secret")
    assert found == sorted((store.swhids[t], stored_scores(store.db, store.swhids[t], DEFAULT)["rcs"]) for t in trees)
    ros, _c = ros_of([(0.30, 100.0), (0.25, 0.0), (0.10, 60.0), (0.10, 100.0)])
    snake = {float(str(r.ros)) for r in rows if str(r.tree) == store.swhids["snakemake-rnaseq"]}
    assert snake == {round(ros, 2)}
    executions = graph.query(PREFIXES + """
        SELECT ?tree ?origin ?agent ?started ?failure WHERE {
          ?run prov:wasInformedBy ?execution .
          ?execution a prov:Activity ; prov:used ?tree ; rs:origin ?origin ; prov:startedAtTime ?started ;
                     prov:wasAssociatedWith ?a .
          ?a rdfs:label ?agent .
          OPTIONAL { ?execution rs:failureClass ?failure } }""")
    assert sorted((str(r.tree), str(r.origin), str(r.agent), str(r.started), str(r.failure or "")) for r in executions) == sorted([
        (store.swhids["snakemake-rnaseq"], "binder", "binder", "2026-11-02T10:00:00+00:00", "code_error"),
        (store.swhids["snakemake-rnaseq"], "binder", "binder", "2026-11-02T10:00:00+00:00", "code_error"),
        (store.swhids["notebook-ml-study"], "reproscore-execute", "reproscore 0.1.0", "2026-11-03T09:30:00+00:00", ""),
        (store.swhids["secret"], "ci", "ci", "2026-10-31T23:00:00+00:00", ""),
    ])
    probes = graph.query(PREFIXES + """
        SELECT ?command ?exit ?failure WHERE {
          ?component a dqv:QualityMeasurement ; dqv:isMeasurementOf <https://w3id.org/reproscore/metric/outcome/X> ;
                     prov:wasGeneratedBy ?execution ; prov:wasDerivedFrom ?probe .
          ?run prov:used ?component .
          ?probe rs:command ?command ; rs:exitStatus ?exit ; prov:wasGeneratedBy ?execution .
          OPTIONAL { ?probe rs:failureClass ?failure } }""")
    assert sorted((str(r.command), r.exit.toPython(), str(r.failure or "")) for r in probes) == [
        ("python -m aerosol", 0, ""), ("python run.py", 1, "code_error"), ("python run.py", 1, "code_error")]


def test_an_exported_execution_ends_when_its_duration_says(exported):
    store, out = exported
    graph = Graph().parse(out["ttl"])
    ends = [str(o) for o in graph.objects(None, URIRef("http://www.w3.org/ns/prov#endedAtTime"))
            if "2026-11-03" in str(o)]
    start = datetime.fromisoformat("2026-11-03T09:30:00+00:00")
    assert ends == [(start.replace(second=12)).isoformat()]


# --------------------------------------------------------------------------- verify


@pytest.mark.parametrize("name", ["crate", "zip", "swh", "bio", "ttl", "jsonld", "one-ttl"])
def test_verify_recomputes_ros_alpha_and_rcs(exported, name):
    _store, out = exported
    with offline() as attempts:
        report = api.verify_export(out[name])
    assert attempts == []
    assert report.ok, report.to_dict()
    with_outcome = [a for a in report.assessments if any(p.startswith("ROS ") for p in a.passed)]
    assert len(with_outcome) == {"ttl": 4, "jsonld": 4}.get(name, 1)


def test_verify_fails_on_a_tampered_component(exported, tmp_path):
    store, out = exported
    rrs = store.result("snakemake-rnaseq")["rrs"]
    ros, coverage = ros_of([(0.30, 100.0), (0.25, 0.0), (0.10, 60.0), (0.10, 100.0)])
    _alpha, rcs = rcs_of(rrs, ros, coverage)
    forged_ros, _c = ros_of([(0.30, 100.0), (0.25, 0.0), (0.10, 90.0), (0.10, 100.0)])
    _a, forged_rcs = rcs_of(rrs, forged_ros, coverage)

    def change(entities):
        entities["#outcome-N"]["value"] = 0.9  # 54 of 90 notebooks ran? the export now says so

    for kind, target in (("crate", tmp_path / "n"), ("zip", tmp_path / "n.zip")):
        tampered = edit_metadata(out[kind], target, change)
        result = CliRunner().invoke(cli, ["verify", str(tampered)])
        assert result.exit_code == 1, result.output
        assert result.stdout.splitlines()[1:] == [
            f"  FAILED  https://doi.org/{ZENODO_DOI}:",
            f"            ROS: stated {round(ros, 2)!r}, recomputed {round(forged_ros, 2)!r} from the outcome components",
            f"            RCS: stated {rcs!r}, recomputed {forged_rcs!r} from the outcome components",
        ]

    def flip(entities):
        entities["#outcome-I"]["value"] = False

    problems = api.verify_export(edit_metadata(out["crate"], tmp_path / "i", flip)).assessments[0].problems
    assert [p.split(":")[0] for p in problems] == ["ROS", "RCS"]

    def drop(entities):  # a failing component left out of what the score used
        entities["#scoring-run"]["object"] = [o for o in entities["#scoring-run"]["object"] if o["@id"] != "#outcome-X"]

    problems = api.verify_export(edit_metadata(out["crate"], tmp_path / "x", drop)).assessments[0].problems
    assert [p.split(":")[0] for p in problems] == ["ROS", "coverage", "alpha", "RCS"]

    def forge_rcs(entities):
        entities["#RCS"]["value"] = 90.0

    problems = api.verify_export(edit_metadata(out["crate"], tmp_path / "rcs", forge_rcs)).assessments[0].problems
    assert problems == [f"RCS: stated 90.0, recomputed {rcs!r} from the outcome components",
                        f"RCS: 90.0 in the metadata, {rcs!r} in the native report"]


def test_verify_fails_on_a_tampered_rdf_component(exported, tmp_path):
    store, out = exported
    graph = Graph().parse(out["one-ttl"])
    (node,) = graph.subjects(DQV.isMeasurementOf, URIRef(terms.outcome_metric("N")))
    graph.set((node, DQV.value, decimal_literal(0.2)))
    (flag,) = graph.subjects(DQV.isMeasurementOf, URIRef(terms.outcome_metric("X")))
    assert graph.value(flag, DQV.value) == Literal(False)
    target = tmp_path / "tampered.ttl"
    target.write_text(graph.serialize(format="turtle"), encoding="utf-8")
    report = api.verify_export(target)
    (check,) = report.assessments
    assert not report.ok
    assert [p.split(":")[0] for p in check.problems] == ["ROS", "RCS"]
    forged, _c = ros_of([(0.30, 100.0), (0.25, 0.0), (0.10, 20.0), (0.10, 100.0)])
    assert check.problems[0].endswith(f"recomputed {forged!r} from the outcome components")


# --------------------------------------------------------------------------- the loader's check


def test_an_export_refuses_stored_outcome_scores_that_do_not_follow_from_the_outcome(exported, tmp_path):
    store, _out = exported
    db = tmp_path / "copy.db"
    source, copy = sqlite3.connect(store.db), sqlite3.connect(db)
    source.backup(copy)  # the database with what its write-ahead log holds
    source.close()
    copy.close()
    with Store(db) as st, st.write() as conn:
        conn.execute("UPDATE scores SET rcs = 50.0 WHERE outcome_id IS NOT NULL")
    # the Zenodo deposit's tree: RRS 93.91, ROS 61.33 at coverage 0.75, so α = 0.525 and
    # RCS = 0.475·93.91 + 0.525·61.33 = 76.81
    with pytest.raises(ExportError, match=r"the stored outcome scores under default@1.0.0 differ from their "
                                          r"recomputation .*\(rcs 50.0 stored, 76.81 recomputed\)"):
        api.export_rocrate(db, tmp_path / "crate", deposit=ZENODO_DOI, rubric="default")
    assert not (tmp_path / "crate").exists()
