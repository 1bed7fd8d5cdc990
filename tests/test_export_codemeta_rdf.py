"""CodeMeta 3.0 and RDF (DQV/PROV) exports of a real store, parsed with rdflib offline
(contexts from the package) and queried with SPARQL for exact values."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import rfc8785
from export_store import SWH_ORIGIN, ZENODO_DOI, build, offline
from rdflib import Graph, URIRef

from exporters import terms
from exporters.assessment import build_assessment, load_assessment, metric_decimals
from exporters.jsonld import CODEMETA_CONTEXT, context_document, parse_jsonld
from exporters.rdf_export import build_graph, decimal_literal, serialize
from reproscore import api
from reproscore.store import Store
from scoring.catalog import CATEGORY_KEYS, METRIC_IDS
from scoring.rubric import load_rubric

DEFAULT = load_rubric("default")
XSD_DECIMAL = URIRef("http://www.w3.org/2001/XMLSchema#decimal")
PREFIXES = """
PREFIX schema: <http://schema.org/>
PREFIX dqv: <http://www.w3.org/ns/dqv#>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX spdx: <http://spdx.org/rdf/terms#>
PREFIX dcterms: <http://purl.org/dc/terms/>
PREFIX dcat: <http://www.w3.org/ns/dcat#>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
PREFIX rs: <https://w3id.org/reproscore/terms#>
"""


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    base = tmp_path_factory.mktemp("codemeta-rdf")
    store = build(base / "store")
    out: dict[str, Path] = {}
    with offline() as attempts:
        out["codemeta"] = Path(api.export_codemeta(store.db, ZENODO_DOI, base / "codemeta.json",
                                                   crate_url="https://example.org/crates/9100001/").path)
        out["codemeta-swh"] = Path(api.export_codemeta(store.db, SWH_ORIGIN, base / "swh-codemeta.json").path)
        out["ttl"] = Path(api.export_rdf(store.db, base / "one.ttl", deposit=ZENODO_DOI).path)
        out["jsonld"] = Path(api.export_rdf(store.db, base / "one.jsonld", deposit=ZENODO_DOI, fmt="json-ld").path)
        out["all-ttl"] = Path(api.export_rdf(store.db, base / "all.ttl").path)
        out["all-jsonld"] = Path(api.export_rdf(store.db, base / "all.jsonld", fmt="json-ld").path)
    assert attempts == []
    return store, out


def codemeta_graph(path: Path) -> Graph:
    return parse_jsonld(path.read_text(encoding="utf-8"))


def rdf_graph(path: Path) -> Graph:
    if path.suffix == ".jsonld":
        return parse_jsonld(path.read_text(encoding="utf-8"))
    return Graph().parse(path, format="turtle")


# --------------------------------------------------------------------------- CodeMeta


def test_codemeta_keeps_every_term_through_json_ld_processing(exported):
    """Bare terms the CodeMeta 3.0 context does not define would be dropped silently;
    every key is a context term, a schema: term or a keyword."""
    _store, out = exported
    defined = set(context_document(CODEMETA_CONTEXT)["@context"])

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                assert key.startswith("@") or key.startswith("schema:") or key in defined, key
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    for name in ("codemeta", "codemeta-swh"):
        document = json.loads(out[name].read_text(encoding="utf-8"))
        assert document["@context"] == CODEMETA_CONTEXT
        walk(document)


def test_codemeta_describes_the_deposit_and_carries_the_review(exported):
    store, out = exported
    document = json.loads(out["codemeta"].read_text(encoding="utf-8"))
    result = store.result("snakemake-rnaseq")
    doi = f"https://doi.org/{ZENODO_DOI}"
    assert (document["@type"], document["@id"], document["name"]) == (
        "SoftwareSourceCode", doi, "demo-lab/snakemake-rnaseq: v1.0.0")
    assert document["identifier"] == [doi, store.swhids["snakemake-rnaseq"]]
    assert document["license"] == "https://spdx.org/licenses/MIT"
    assert document["codeRepository"] == "https://github.com/demo-lab/snakemake-rnaseq"
    assert document["author"] == [{"@type": "Person", "name": "Okafor, Ada", "@id": "https://orcid.org/0000-0002-1825-0097",
                                   "affiliation": {"@type": "Organization", "name": "Demo Institute"}}]
    assert document["keywords"] == ["RNA-seq", "Snakemake"]
    assert document["relatedLink"] == "https://doi.org/10.5281/zenodo.9100000"
    review = document["review"]
    assert review["schema:reviewRating"]["schema:ratingValue"] == result["rrs"]
    assert [part["schema:reviewRating"]["schema:ratingValue"] for part in review["hasPart"]] == [
        round(result["categories"][key]["raw"], 4) for key in CATEGORY_KEYS]
    assert review["schema:isBasedOn"]["version"] == "1.0.0"
    assert review["schema:isBasedOn"]["schema:identifier"]["schema:value"] == DEFAULT.sha256
    assert review["schema:subjectOf"]["url"] == "https://example.org/crates/9100001/"

    graph = codemeta_graph(out["codemeta"])
    rows = list(graph.query(PREFIXES + """
        SELECT ?rating ?sha ?crate ?version WHERE {
          ?software schema:review ?review .
          ?review schema:reviewRating/schema:ratingValue ?rating ;
                  schema:isBasedOn ?rubric ; schema:subjectOf ?crate .
          ?rubric schema:version ?version ; schema:identifier ?id .
          ?id schema:propertyID "https://w3id.org/reproscore/terms#rubricSha256" ; schema:value ?sha .
        }"""))
    assert len(rows) == 1
    assert rows[0].rating.toPython() == result["rrs"]
    assert str(rows[0].sha) == DEFAULT.sha256
    assert str(rows[0].version) == "1.0.0"
    crate_id = json.loads(out["codemeta"].read_text())["review"]["schema:subjectOf"]["@id"]
    assert rows[0].crate == URIRef(crate_id) and crate_id.startswith("urn:uuid:")
    categories = {str(r.aspect)[0]: r.value.toPython() for r in graph.query(PREFIXES + """
        SELECT ?aspect ?value WHERE { ?software schema:review/schema:hasPart ?part .
          ?part schema:reviewAspect ?aspect ; schema:reviewRating/schema:ratingValue ?value }""")}
    assert categories == {key: round(result["categories"][key]["raw"], 4) for key in CATEGORY_KEYS}
    authors = list(graph.query(PREFIXES + "SELECT ?name WHERE { ?s schema:author/rdf:rest*/rdf:first ?a . ?a schema:name ?name }"))
    assert [str(r.name) for r in authors] == ["Okafor, Ada"]


def test_codemeta_of_a_software_heritage_deposit(exported):
    store, out = exported
    document = json.loads(out["codemeta-swh"].read_text(encoding="utf-8"))
    swhid = store.swhids["notebook-ml-study"]
    assert document["@id"] == SWH_ORIGIN
    assert document["identifier"] == swhid
    assert document["license"] == {"@type": "schema:CreativeWork", "name": "GNU GPLv3"}
    assert document["programmingLanguage"] == ["Python"]
    assert document["description"] == "Inverts particle size distributions."
    assert document["relatedLink"] == f"https://archive.softwareheritage.org/{swhid}"
    assert document["review"]["schema:reviewRating"]["schema:ratingValue"] == store.result("notebook-ml-study")["rrs"]
    assert "url" not in document["review"]["schema:subjectOf"]
    assert len(codemeta_graph(out["codemeta-swh"])) > 40


# --------------------------------------------------------------------------- RDF


@pytest.mark.parametrize("name", ["ttl", "jsonld", "all-ttl", "all-jsonld"])
def test_rdf_holds_every_measurement_and_the_rubric_checksum_exactly(exported, name):
    store, out = exported
    graph = rdf_graph(out[name])
    trees = ["snakemake-rnaseq"] if name in ("ttl", "jsonld") else list(store.swhids)
    for tree in trees:
        swhid, result = store.swhids[tree], store.result(tree)
        rows = graph.query(PREFIXES + """
            SELECT ?metric ?value WHERE { ?m a dqv:QualityMeasurement ; dqv:computedOn ?tree ;
                dqv:isMeasurementOf ?metric ; dqv:value ?value }""", initBindings={"tree": URIRef(swhid)})
        found: dict[str, set] = {}
        for row in rows:
            found.setdefault(str(row.metric), set()).add(row.value)
            assert row.value.datatype == XSD_DECIMAL
        for mid in METRIC_IDS:
            assert {float(str(v)) for v in found[terms.metric(mid)]} == {
                round(result["submetrics"][mid]["value"], metric_decimals(mid))}, mid
        for key in CATEGORY_KEYS:
            assert {float(str(v)) for v in found[terms.category_metric(key)]} == {round(result["categories"][key]["raw"], 4)}
        assert {float(str(v)) for v in found[terms.score_metric("RRS")]} == {result["rrs"]}
        assert len(found) == 26 + 5 + 1
    plans = list(graph.query(PREFIXES + """
        SELECT ?plan ?checksum ?canonical ?version WHERE { ?run a prov:Activity ;
            prov:qualifiedAssociation [ prov:hadPlan ?plan ] .
          ?plan a prov:Plan ; dcat:version ?version ;
                spdx:checksum [ spdx:algorithm spdx:checksumAlgorithm_sha256 ; spdx:checksumValue ?checksum ] ;
                rs:canonicalForm ?canonical }"""))
    assert {str(p.checksum) for p in plans} == {DEFAULT.sha256}
    assert {str(p.version) for p in plans} == {"1.0.0"}
    assert {p.plan for p in plans} == {URIRef(terms.rubric(DEFAULT.sha256))}
    canonical = rfc8785.dumps(DEFAULT.canonical).decode("utf-8")
    assert {str(p.canonical) for p in plans} == {canonical}
    assert hashlib.sha256(canonical.encode("utf-8")).hexdigest() == DEFAULT.sha256
    runs = {str(r.run) for r in graph.query(PREFIXES + "SELECT ?run WHERE { ?run a prov:Activity }")}
    assert len(runs) == (1 if name in ("ttl", "jsonld") else 5)


def test_turtle_and_json_ld_hold_the_same_graph(exported):
    _store, out = exported
    assert rdf_graph(out["ttl"]).isomorphic(rdf_graph(out["jsonld"]))
    assert rdf_graph(out["all-ttl"]).isomorphic(rdf_graph(out["all-jsonld"]))
    assert "@context" in json.loads(out["jsonld"].read_text()) and isinstance(
        json.loads(out["jsonld"].read_text())["@context"], dict)  # inline: nothing to fetch


def test_dqv_structure_dimensions_categories_provenance_and_evidence(exported):
    store, out = exported
    graph = rdf_graph(out["ttl"])
    swhid = store.swhids["snakemake-rnaseq"]
    dims = {(str(r.metric), str(r.dim), str(r.cat)) for r in graph.query(PREFIXES + """
        SELECT ?metric ?dim ?cat WHERE { ?metric a dqv:Metric ; dqv:inDimension ?dim .
          ?dim a dqv:Dimension ; dqv:inCategory ?cat . ?cat a dqv:Category }""")}
    assert (terms.metric("dep_pinning"), terms.dimension("E"), terms.READINESS_CATEGORY) in dims
    assert (terms.metric("seed_management"), terms.dimension("S"), terms.READINESS_CATEGORY) in dims
    assert len(dims) == 26 + 5
    run = list(graph.query(PREFIXES + """
        SELECT ?run ?start ?end ?agent ?version WHERE { ?run a prov:Activity ; prov:used ?tree ;
          prov:startedAtTime ?start ; prov:endedAtTime ?end ; prov:wasAssociatedWith ?agent .
          ?agent a prov:SoftwareAgent ; schema:softwareVersion ?version }""",
        initBindings={"tree": URIRef(swhid)}))
    assert len(run) == 1 and str(run[0].version) == "0.1.0" and run[0].start <= run[0].end
    evidence = {(str(r.path)) for r in graph.query(PREFIXES + """
        SELECT ?path WHERE { ?m dqv:isMeasurementOf ?metric ; prov:wasDerivedFrom ?e .
          ?e rdfs:label ?path ; dcterms:isPartOf ?tree }""",
        initBindings={"metric": URIRef(terms.metric("dep_pinning")), "tree": URIRef(swhid)})}
    stored = {e["path"] for e in store.result("snakemake-rnaseq")["submetrics"]["dep_pinning"]["evidence"] if e["path"]}
    assert evidence == stored and evidence
    deposit = list(graph.query(PREFIXES + """
        SELECT ?d WHERE { ?d dqv:hasQualityMetadata ?qm ; dcterms:hasPart ?tree . ?qm a dqv:QualityMetadata }""",
        initBindings={"tree": URIRef(swhid)}))
    assert [str(r.d) for r in deposit] == [f"https://doi.org/{ZENODO_DOI}"]


def test_rdf_exports_the_outcome_block_when_present(exported):
    store, _out = exported
    outcomes = {"I": True, "X": True, "N": 0.5}
    with Store(store.db, create=False) as st:
        stored = load_assessment(st, ZENODO_DOI)
        measurements = st.load_measurements(st.find_snapshot(stored.snapshot.swhid).id)
    assessment = build_assessment(measurements, DEFAULT, snapshot=stored.snapshot, outcomes=outcomes)
    graph = Graph().parse(data=serialize(build_graph([assessment])), format="turtle")
    values = {str(r.metric): r.value.toPython() for r in graph.query(PREFIXES + """
        SELECT ?metric ?value WHERE { ?m a dqv:QualityMeasurement ; dqv:isMeasurementOf ?metric ; dqv:value ?value }""")}
    outcome = assessment.outcome
    assert values[terms.outcome_metric("I")] is True and values[terms.outcome_metric("X")] is True
    assert float(values[terms.outcome_metric("N")]) == 0.5
    assert float(values[terms.score_metric("ROS")]) == round(outcome.ros, 2) == 92.31  # (30 + 25 + 5) / 0.65
    assert float(values[terms.score_metric("alpha")]) == round(outcome.alpha, 4)
    assert float(values[terms.score_metric("RCS")]) == outcome.rcs
    assert (URIRef(terms.dimension("outcome")), None, None) in graph
    plain = build_graph([stored])
    assert not any(str(o).startswith(terms.BASE_IRI + "metric/outcome/") for o in plain.objects())


@pytest.mark.parametrize("value", [0.0, 100.0, 1e-05, 66.66666666666667, 89.99999999999999, 12.5])
def test_decimal_literals_read_back_as_the_same_double(value):
    literal = decimal_literal(value)
    assert "e" not in str(literal).lower()
    assert float(str(literal)) == value


def test_the_contexts_are_package_data_identical_to_the_published_ones():
    from importlib import resources

    from rocrate.vocabs import RO_CRATE

    from exporters.jsonld import CONTEXT_FILES, ROCRATE_CONTEXT, context_bytes

    shipped = {p.name for p in resources.files("exporters").joinpath("contexts").iterdir()}
    assert set(CONTEXT_FILES.values()) <= shipped
    assert json.loads(context_bytes(ROCRATE_CONTEXT)) == RO_CRATE
    assert hashlib.sha256(context_bytes(CODEMETA_CONTEXT)).hexdigest() == (
        "ecf6cfff1f701f5b6b188b9925707c44e6c86134f47aecc6663baf7f6757473f")
