"""RO-Crate 1.3 exports of a real store: every crate passes the real roc-validator
(profile ro-crate-1.3, REQUIRED) offline, parses with rdflib offline, and holds every
sub-metric value and the rubric's hashes exactly; the outcome block is exported when
present."""

from __future__ import annotations

import hashlib
import json
import shutil
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import yaml
from export_store import (
    SWH_ORIGIN,
    SWH_SNAPSHOT,
    ZENODO_DOI,
    build,
    crate_entities,
    crate_file,
    crate_metadata,
    offline,
)
from rdflib import Graph

from exporters import terms, validator
from exporters.assessment import build_assessment, load_assessment, metric_decimals
from exporters.jsonld import ROCRATE_CONTEXT, ContextNotBundled, parse_jsonld
from exporters.rocrate_export import REPORT_FILE, write_crate
from reproscore import api
from reproscore.store import Store
from scoring.aggregate import score
from scoring.catalog import CATEGORY_KEYS, METRIC_IDS
from scoring.rubric import load_rubric, parse_rubric

DEFAULT = load_rubric("default")
OUTCOMES = {"I": True, "X": False, "delta": 50.0, "T": 0.75}
SCHEMA = "PREFIX schema: <http://schema.org/>\n"


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """The store, and its crates written with the network off: a Zenodo deposit's crate
    (directory), a Software Heritage origin's crate (zip), the collection crate, and the
    crate of an in-memory assessment with outcome data."""
    base = tmp_path_factory.mktemp("rocrate")
    store = build(base / "store")
    crates: dict[str, Path] = {}
    with offline() as attempts:
        crates["zenodo"] = Path(api.export_rocrate(store.db, base / "zenodo", deposit=ZENODO_DOI).path)
        crates["swh"] = Path(api.export_rocrate(store.db, base / "swh.zip", deposit=SWH_ORIGIN, zip_file=True).path)
        crates["collection"] = Path(api.export_rocrate(store.db, base / "collection", all_deposits=True).path)
        with Store(store.db, create=False) as st:
            stored = load_assessment(st, ZENODO_DOI)
            record = st.find_snapshot(stored.snapshot.swhid)
            measurements = st.load_measurements(record.id)
            deposit = st.deposit_record(st.deposit_id("zenodo", "9100001"))
        with_outcome = build_assessment(
            measurements, DEFAULT, snapshot=stored.snapshot, deposit=deposit, outcomes=OUTCOMES,
            computed_at=stored.computed_at, started_at=stored.started_at,
        )  # fmt: skip
        crates["outcome"] = write_crate(with_outcome, base / "outcome")
    assert attempts == []
    return store, crates, with_outcome, measurements


@pytest.fixture(scope="module")
def validated(exported, tmp_path_factory):
    """roc-validator's verdict on every crate, with every non-loopback connection refused."""
    _store, crates, _outcome, _m = exported
    cache = tmp_path_factory.mktemp("roc-validator-cache") / "http_cache"
    with offline() as attempts:
        outcomes = {kind: validator.validate_crate(path, cache) for kind, path in crates.items()}
    return outcomes, attempts


def graph_of(path: Path) -> Graph:
    return parse_jsonld(crate_metadata(path), base="arcp://name,test-crate/")


def property_values(graph: Graph) -> dict[str, list]:
    rows = graph.query(SCHEMA + "SELECT ?pid ?value WHERE { ?pv a schema:PropertyValue ;"
                       " schema:propertyID ?pid ; schema:value ?value }")
    found: dict[str, list] = {}
    for row in rows:
        found.setdefault(str(row.pid), []).append(row.value)
    return found


# --------------------------------------------------------------------------- validity, offline


@pytest.mark.parametrize("kind", ["zenodo", "swh", "collection", "outcome"])
def test_every_crate_passes_roc_validator_ro_crate_1_3_required_offline(validated, kind):
    outcomes, attempts = validated
    assert outcomes[kind].issues == []
    assert outcomes[kind].passed is True
    assert attempts == []  # nothing even tried to reach the network


def test_roc_validator_names_what_a_crate_without_a_licence_date_and_description_lacks(exported, tmp_path):
    # The validator reuses each SPARQL constraint's parsed query (exporters.validator):
    # a violation must still be found for every focus node.
    _store, crates, _outcome, _m = exported
    broken = Path(shutil.copytree(crates["zenodo"], tmp_path / "broken"))
    metadata = crate_metadata(crates["zenodo"])
    for entity in metadata["@graph"]:
        if entity["@id"] == "./":
            for key in ("license", "datePublished", "description"):
                entity.pop(key)
    (broken / "ro-crate-metadata.json").write_text(json.dumps(metadata), encoding="utf-8")
    with offline() as attempts:
        outcome = validator.validate_crate(broken, tmp_path / "cache" / "http_cache", severity="REQUIRED")
    assert attempts == []
    assert outcome.passed is False
    assert outcome.lines() == [
        "ro-crate-1.2_13.2 REQUIRED ./: The Root Data Entity MUST have a `description` property (as specified by schema.org)",
        "ro-crate-1.2_13.3 REQUIRED ./: The Root Data Entity MUST have a `license` property (as specified by schema.org).",
        "ro-crate-1.2_13.4 REQUIRED ./: The Root Data Entity MUST have a `datePublished` property (as specified by "
        "schema.org) with a valid ISO 8601 date"]


def test_the_guard_refuses_the_network_and_contexts_come_from_the_package(exported):
    _store, crates, _o, _m = exported
    document = crate_metadata(crates["zenodo"])
    with offline() as attempts:
        with pytest.raises((urllib.error.URLError, OSError)):
            urllib.request.urlopen(ROCRATE_CONTEXT, timeout=5)
        assert attempts == ["getaddrinfo 'w3id.org'"]
        attempts.clear()
        assert len(parse_jsonld(document, base="arcp://name,x/")) > 500
        # A context that is not bundled is an error, never a download.
        with pytest.raises(ContextNotBundled, match="never fetched"):
            parse_jsonld(document | {"@context": "https://w3id.org/ro/crate/1.2/context"})
        assert attempts == []


def test_crates_name_the_1_3_context_and_profile(exported):
    _store, crates, _o, _m = exported
    for path in crates.values():
        metadata = crate_metadata(path)
        assert metadata["@context"] == ROCRATE_CONTEXT
        descriptor = {e["@id"]: e for e in metadata["@graph"]}["ro-crate-metadata.json"]
        assert descriptor["conformsTo"] == {"@id": "https://w3id.org/ro/crate/1.3"}


# --------------------------------------------------------------------------- values, exactly


@pytest.mark.parametrize("kind", ["zenodo", "swh", "collection", "outcome"])
def test_sparql_finds_all_26_sub_metric_values_and_the_rubric_hashes_exactly(exported, kind):
    store, crates, _o, _m = exported
    graph = graph_of(crates[kind])
    values = property_values(graph)
    trees = {"zenodo": ["snakemake-rnaseq"], "outcome": ["snakemake-rnaseq"], "swh": ["notebook-ml-study"],
             "collection": ["snakemake-rnaseq", "snakemake-rnaseq", "secret", "notebook-ml-study", "r-survey-analysis"]}[kind]
    for mid in METRIC_IDS:
        expected = sorted(round(store.result(tree)["submetrics"][mid]["value"], metric_decimals(mid)) for tree in trees)
        found = values[terms.metric(mid)]
        assert sorted(v.toPython() for v in found) == expected, mid
        assert all(str(v.datatype).endswith("#double") for v in found)
    for key in CATEGORY_KEYS:
        expected = sorted(round(store.result(tree)["categories"][key]["raw"], 4) for tree in trees)
        assert sorted(v.toPython() for v in values[terms.category_metric(key)]) == expected
    rows = list(graph.query(SCHEMA + """
        SELECT ?content ?filesha ?version ?rating WHERE {
          ?review a schema:Review ; schema:isBasedOn ?rubric ; schema:reviewRating/schema:ratingValue ?rating .
          ?rubric a schema:DefinedTermSet ; schema:sha256 ?filesha ; schema:version ?version ;
                  schema:identifier ?id .
          ?id schema:propertyID "https://w3id.org/reproscore/terms#rubricSha256" ; schema:value ?content .
        }"""))
    assert sorted(row.rating.toPython() for row in rows) == sorted(store.result(t)["rrs"] for t in trees)
    assert {str(row.content) for row in rows} == {DEFAULT.sha256}
    assert {str(row.version) for row in rows} == {"1.0.0"}
    rubric_bytes = crate_file(crates[kind], "rubric/default-1.0.0.yaml")
    assert {str(row.filesha) for row in rows} == {hashlib.sha256(rubric_bytes).hexdigest()}


def test_the_rubric_file_is_the_resolved_rubric_with_the_stored_content_hash(exported):
    _store, crates, _o, _m = exported
    text = crate_file(crates["swh"], "rubric/default-1.0.0.yaml").decode("utf-8")
    rubric = parse_rubric(text, source="crate.yaml")
    assert (rubric.name, rubric.version, rubric.sha256) == ("default", "1.0.0", DEFAULT.sha256)
    assert "extends" not in yaml.safe_load(text)
    entity = crate_entities(crates["swh"])["rubric/default-1.0.0.yaml"]
    assert entity["@type"] == ["File", "DefinedTermSet"]
    assert entity["contentSize"] == str(len(text.encode("utf-8")))
    assert entity["encodingFormat"] == "application/yaml"
    assert entity["license"] == {"@id": "https://spdx.org/licenses/CC-BY-4.0"}
    assert len(entity["hasDefinedTerm"]) == 5 + 26  # the categories and sub-metrics


# --------------------------------------------------------------------------- structure


def test_a_deposit_crate_is_an_assessment_package(exported):
    store, crates, _o, _m = exported
    path = crates["zenodo"]
    entities = crate_entities(path)
    result = store.result("snakemake-rnaseq")
    swhid = store.swhids["snakemake-rnaseq"]
    doi = f"https://doi.org/{ZENODO_DOI}"
    root = entities["./"]
    assert root["about"] == {"@id": doi}
    assert root["mainEntity"] == {"@id": "#assessment"}
    assert root["mentions"] == {"@id": "#scoring-run"}
    assert root["license"] == {"@id": "https://creativecommons.org/publicdomain/zero/1.0/"}
    assert {p["@id"] for p in root["hasPart"]} == {"rubric/default-1.0.0.yaml", REPORT_FILE}
    assert sorted(p.name for p in path.rglob("*") if p.is_file()) == sorted(
        ["ro-crate-metadata.json", REPORT_FILE, "default-1.0.0.yaml"])  # the deposit is not copied

    deposit = entities[doi]
    assert deposit["@type"] == "CreativeWork"
    assert deposit["name"] == "demo-lab/snakemake-rnaseq: v1.0.0"
    assert deposit["url"] == "https://zenodo.org/records/9100001"
    assert deposit["identifier"] == doi
    assert deposit["description"] == "An RNA-seq workflow with pinned conda environments."
    assert deposit["keywords"] == "RNA-seq, Snakemake"
    assert deposit["license"] == {"@id": "https://spdx.org/licenses/MIT"}
    assert deposit["codeRepository"] == "https://github.com/demo-lab/snakemake-rnaseq"
    # A creator identified by ORCID is a Person entity; an affiliation without a ROR id
    # stays text (an Organization entity would have no identifier, URL or contact).
    assert deposit["creator"] == {"@id": "https://orcid.org/0000-0002-1825-0097"}
    assert entities["https://orcid.org/0000-0002-1825-0097"] == {
        "@id": "https://orcid.org/0000-0002-1825-0097", "@type": "Person", "name": "Okafor, Ada"}
    assert deposit["creditText"] == "Okafor, Ada (Demo Institute)"
    assert deposit["review"] == {"@id": "#assessment"}
    tree = entities[swhid]
    assert tree["isPartOf"] == {"@id": doi}
    assert tree["identifier"] == swhid  # never archived by Software Heritage in this store

    review = entities["#assessment"]
    assert review["@type"] == "Review"
    assert review["itemReviewed"] == {"@id": doi}
    assert review["isBasedOn"] == {"@id": "rubric/default-1.0.0.yaml"}
    rating = entities[review["reviewRating"]["@id"]]
    assert (rating["@type"], rating["ratingValue"], rating["worstRating"], rating["bestRating"]) == (
        "Rating", result["rrs"], 0, 100)

    action = entities["#scoring-run"]
    assert action["@type"] == "CreateAction"
    scorer = entities[action["instrument"]["@id"]]
    assert (scorer["@type"], scorer["name"], scorer["version"]) == ("SoftwareApplication", "reproscore", "0.1.0")
    assert scorer["url"].startswith("https://")
    assert [o["@id"] for o in action["object"]] == [doi, swhid, "rubric/default-1.0.0.yaml"]
    results = [r["@id"] for r in action["result"]]
    assert results == (["#assessment", rating["@id"]] + [f"#category-{k}" for k in CATEGORY_KEYS]
                       + [f"#value-{m}" for m in METRIC_IDS] + [REPORT_FILE])
    assert action["endTime"] == result["stored"]["computed_at"].replace("Z", "+00:00")[:19] + "+00:00"
    assert action["startTime"] <= action["endTime"]
    assert action["actionStatus"] == {"@id": "http://schema.org/CompletedActionStatus"}

    value = entities["#value-dep_pinning"]
    assert value["value"] == result["submetrics"]["dep_pinning"]["value"]
    assert (value["minValue"], value["maxValue"]) == (0, 100)
    assert value["propertyID"] == terms.metric("dep_pinning")
    term = entities[value["measurementTechnique"]["@id"]]
    assert (term["@type"], term["termCode"], term["inDefinedTermSet"]) == (
        "DefinedTerm", "dep_pinning", {"@id": "rubric/default-1.0.0.yaml"})


def test_sub_metric_values_are_derived_from_their_evidence_files(exported):
    store, crates, _o, _m = exported
    entities = crate_entities(crates["zenodo"])
    result = store.result("snakemake-rnaseq")
    doi = f"https://doi.org/{ZENODO_DOI}"
    swhid = store.swhids["snakemake-rnaseq"]
    cited = 0
    for mid in METRIC_IDS:
        paths = {e["path"] for e in result["submetrics"][mid]["evidence"] if e["path"]}
        derived = entities[f"#value-{mid}"].get("wasDerivedFrom")
        refs = [] if derived is None else derived if isinstance(derived, list) else [derived]
        names = {entities[r["@id"]]["name"] for r in refs if r["@id"] != swhid}
        assert names == paths, mid
        for ref in refs:
            if ref["@id"] != swhid:
                assert entities[ref["@id"]]["isPartOf"] == [{"@id": swhid}, {"@id": doi}]
        cited += len(paths)
    assert cited > 10


def test_the_native_report_is_the_stored_result_with_evidence(exported):
    store, crates, _o, _m = exported
    data = crate_file(crates["zenodo"], REPORT_FILE)
    entity = crate_entities(crates["zenodo"])[REPORT_FILE]
    assert entity["sha256"] == hashlib.sha256(data).hexdigest()
    assert entity["encodingFormat"] == "application/json"
    report = json.loads(data)
    stored = store.result("snakemake-rnaseq")
    for key in ("schema", "rubric", "rrs", "rrs_unclamped", "penalties", "categories", "submetrics", "detectors", "inventory"):
        assert report[key] == stored[key], key
    assert report["snapshot"]["swhid"] == store.swhids["snakemake-rnaseq"]
    assert report["subject"]["doi"] == ZENODO_DOI
    assert report["stored"]["score_id"] == stored["stored"]["score_id"]


def test_a_software_heritage_crate_names_its_tree_by_qualified_swhid(exported):
    store, crates, _o, _m = exported
    entities = crate_entities(crates["swh"])
    swhid = store.swhids["notebook-ml-study"]
    tree = entities[swhid]
    assert tree["identifier"] == f"{swhid};origin={SWH_ORIGIN};visit=swh:1:snp:{SWH_SNAPSHOT}"
    assert tree["url"] == f"https://archive.softwareheritage.org/{swhid}"
    assert tree["isPartOf"] == {"@id": SWH_ORIGIN}
    deposit = entities[SWH_ORIGIN]
    assert (deposit["name"], deposit["version"], deposit["description"]) == (
        "aerosol-inversion", "v0.4.0", "Inverts particle size distributions. Licence: GNU GPLv3.")
    assert "license" not in deposit  # not an SPDX id: no licence URL is made up for it
    assert entities["./"]["about"] == {"@id": SWH_ORIGIN}
    assert entities[entities["#assessment"]["reviewRating"]["@id"]]["ratingValue"] == store.result("notebook-ml-study")["rrs"]


def test_the_collection_crate_has_one_entity_per_scored_deposit(exported):
    store, crates, _o, _m = exported
    entities = crate_entities(crates["collection"])
    reviews = {e["itemReviewed"]["@id"]: e for e in entities.values() if e.get("@type") == "Review"}
    expected = {
        f"https://doi.org/{ZENODO_DOI}": "snakemake-rnaseq",
        "https://doi.org/10.5281/zenodo.9100006": "snakemake-rnaseq",
        "https://doi.org/10.5281/zenodo.9100007": "secret",
        SWH_ORIGIN: "notebook-ml-study",
        store.swhids["r-survey-analysis"]: "r-survey-analysis",  # scored through no deposit
    }
    assert set(reviews) == set(expected)
    for subject, tree in expected.items():
        rating = entities[reviews[subject]["reviewRating"]["@id"]]
        assert rating["ratingValue"] == store.result(tree)["rrs"]
    assert {r["@id"] for r in entities["./"]["about"]} == set(expected)
    assert len(entities["./"]["mentions"]) == 5
    assert entities["./"]["hasPart"] == {"@id": "rubric/default-1.0.0.yaml"}  # no singleton array
    assert not any(e["@id"].startswith("#a1-evidence") for e in entities.values())  # in the deposit crates


# --------------------------------------------------------------------------- outcome block


def test_outcome_values_are_exported_when_present_and_absent_otherwise(exported):
    _store, crates, with_outcome, measurements = exported
    expected = score(measurements, DEFAULT, outcomes=OUTCOMES)
    values = property_values(graph_of(crates["outcome"]))
    assert values[terms.score_metric("ROS")][0].toPython() == round(expected.ros.value, 2)
    assert values[terms.score_metric("coverage")][0].toPython() == round(expected.ros.coverage, 4) == 0.8
    assert values[terms.score_metric("alpha")][0].toPython() == round(expected.rcs.alpha, 4)
    assert values[terms.score_metric("RCS")][0].toPython() == expected.rcs.value
    assert expected.ros.value == pytest.approx(54.6875)  # (0.3*100 + 0.25*0 + 0.2*50 + 0.05*75) / 0.8
    assert {cid: values[terms.outcome_metric(cid)][0].toPython() for cid in OUTCOMES} == OUTCOMES
    assert with_outcome.outcome.rcs == expected.rcs.value
    plain = property_values(graph_of(crates["zenodo"]))
    assert not any(key.startswith(terms.BASE_IRI + "metric/outcome/") for key in plain)
    assert terms.score_metric("ROS") not in plain and terms.score_metric("RCS") not in plain
