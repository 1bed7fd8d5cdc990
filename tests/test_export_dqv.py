"""DQV done properly (issue 17): each deposit's dqv:QualityMetadata links its measurements
(flat formats) and is the named graph that holds them (TriG, N-Quads), and every rs: IRI
an export uses is defined in the shipped vocabulary file. Exports of a real store with
several deposits, parsed back with rdflib offline."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner
from export_store import SWH_ORIGIN, ZENODO_DOI, build, offline
from rdflib import Dataset, Graph, Literal, URIRef
from rdflib.namespace import OWL, PROV, RDF, RDFS, SKOS

from exporters import terms
from exporters.jsonld import parse_jsonld
from exporters.rdf_export import (
    DATASET_FORMATS,
    DQV,
    FORMATS,
    RS,
    VOCABULARY_IRI,
    decimal_literal,
    vocabulary_turtle,
)
from reproscore import api
from reproscore.cli import RDF_EXTENSIONS, RDF_FORMATS, cli
from reproscore.store import Store
from scoring.catalog import CATEGORIES, CATEGORY_KEYS, METRIC_IDS, METRICS
from scoring.registry import load_detectors
from scoring.rubric import ROS_COMPONENT_IDS, load_rubric

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = load_rubric("default")
PREFIXES = """
PREFIX dqv: <http://www.w3.org/ns/dqv#>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX rsm: <https://w3id.org/reproscore/metric/>
"""
# The trees of the five scored deposits of the export store (two deposits hold the same tree).
TREES = ["notebook-ml-study", "r-survey-analysis", "secret", "snakemake-rnaseq", "snakemake-rnaseq"]
# The metrics every assessment without outcome data measures: 26 + 5 + RRS.
MEASURED = ({terms.metric(m) for m in METRIC_IDS} | {terms.category_metric(k) for k in CATEGORY_KEYS}
            | {terms.score_metric("RRS")})
# IRIs under the base that name instances, not vocabulary: rubrics by content hash and the
# scorer by version (their classes are in the vocabulary or standard).
INSTANCE_SPACES = (terms.BASE_IRI + "rubric/", terms.BASE_IRI + "scorer/")
EXTENSIONS = {"turtle": "ttl", "json-ld": "jsonld", "ntriples": "nt", "rdf-xml": "rdf",
              "trig": "trig", "nquads": "nq"}


def vocabulary() -> Graph:
    text = resources.files("exporters").joinpath("vocabulary", "reproscore.ttl").read_text(encoding="utf-8")
    return Graph().parse(data=text, format="turtle")


def read(path: Path) -> Graph | Dataset:
    """An export parsed back: a Dataset for TriG and N-Quads, else a Graph."""
    suffix = path.suffix
    if suffix == ".jsonld":
        return parse_jsonld(path.read_text(encoding="utf-8"))
    parser = {".ttl": "turtle", ".nt": "nt", ".rdf": "xml", ".trig": "trig", ".nq": "nquads"}[suffix]
    graph = Dataset() if parser in ("trig", "nquads") else Graph()
    return graph.parse(data=path.read_text(encoding="utf-8"), format=parser)


def default_graph(ds: Dataset) -> Graph:
    return ds.graph(URIRef("urn:x-rdflib:default"))


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    base = tmp_path_factory.mktemp("dqv")
    store = build(base / "store")
    out: dict[str, Path] = {}
    with offline() as attempts:
        for fmt, ext in EXTENSIONS.items():
            out[fmt] = Path(api.export_rdf(store.db, base / f"all.{ext}", fmt=fmt).path)
        out["one-trig"] = Path(api.export_rdf(store.db, base / "one.trig", deposit=ZENODO_DOI, fmt="trig").path)
    assert attempts == []
    return store, out


@pytest.fixture(scope="module")
def with_outcomes(tmp_path_factory):
    """A store whose deposits carry outcomes with every piece of execution provenance
    (origin, failure class, sandbox, probes with command, exit status and duration), and
    every export format written from it."""
    base = tmp_path_factory.mktemp("dqv-outcomes")
    store = build(base / "store")
    results = base / "results.json"
    results.write_text(json.dumps({"schema": "reproscore-outcome/1", "outcomes": [{
        "subject": ZENODO_DOI, "origin": {"name": "binder", "version": "2026.1", "run_id": "4711"},
        "executed_at": "2026-11-02T10:00:00Z",
        "components": {"I": True, "X": False, "N": 0.6}, "failure_class": "code_error",
        "probes": [{"probe": "I", "command": "pip install -r requirements.txt", "exit_status": 0,
                    "duration_seconds": 41.5, "value": True},
                   {"probe": "X", "command": "python run.py", "exit_status": 1, "value": False,
                    "failure_class": "code_error"}]}]}), encoding="utf-8")
    imported = CliRunner().invoke(cli, ["outcome", "import", "--db", str(store.db), str(results)],
                                  catch_exceptions=False)
    assert imported.exit_code == 0, imported.output
    with Store(store.db) as st:
        record = st.resolve(f"swh:{SWH_ORIGIN}")
        st.save_outcome(
            record.id, components={"I": 100.0, "X": 100.0, "delta": 50.0, "N": None, "E_prime": None, "T": None},
            origin="reproscore-execute", executed_at="2026-11-03T09:30:00Z", deposit_id=record.deposit_id,
            origin_detail={"name": "reproscore-execute", "version": "0.1.0"}, sandbox="bubblewrap",
            failure_class=None, duration=12.5,
            probes=[{"probe": "I", "value": 100.0, "status": "measured", "command": "pip install .",
                     "exit_status": 0, "duration": 8.0}])
    out: dict[str, Path] = {}
    with offline() as attempts:
        for fmt, ext in EXTENSIONS.items():
            out[fmt] = Path(api.export_rdf(store.db, base / f"all.{ext}", fmt=fmt).path)
        out["crate"] = Path(api.export_rocrate(store.db, base / "crate", all_deposits=True).path)
        out["crate-one"] = Path(api.export_rocrate(store.db, base / "one", deposit=ZENODO_DOI).path)
        out["codemeta"] = Path(api.export_codemeta(store.db, ZENODO_DOI, base / "codemeta.json").path)
    assert attempts == []
    return store, out


# --------------------------------------------------------------------------- the vocabulary


def base_iris(graph: Graph) -> set[str]:
    return {str(t) for triple in graph for t in triple
            if isinstance(t, URIRef) and str(t).startswith(terms.BASE_IRI)}


def json_base_iris(value) -> set[str]:
    if isinstance(value, str):
        return {value} if value.startswith(terms.BASE_IRI) else set()
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return set().union(*(json_base_iris(v) for v in items)) if items else set()


def assert_defined(iris: set[str], vocab: Graph) -> None:
    vocabulary_iris = {iri for iri in iris if not iri.startswith(INSTANCE_SPACES)}
    undefined = sorted(iri for iri in vocabulary_iris
                       if (URIRef(iri), RDF.type, None) not in vocab or (URIRef(iri), RDFS.label, None) not in vocab)
    assert undefined == []


def test_every_rs_iri_of_every_rdf_export_is_defined_in_the_vocabulary(exported, with_outcomes):
    vocab = vocabulary()
    for store_out in (exported[1], with_outcomes[1]):
        for fmt in FORMATS:
            graph = read(store_out[fmt])
            iris = base_iris(graph)
            assert_defined(iris, vocab)
            # the rubric instance is of the vocabulary's rubric class
            rubric = URIRef(terms.rubric(DEFAULT.sha256))
            assert str(rubric) in iris and (rubric, RDF.type, RS.Rubric) in graph
    iris = base_iris(read(with_outcomes[1]["trig"]))
    # The outcome store reaches the execution terms (not only the readiness ones).
    for name in ("origin", "failureClass", "sandbox", "probe", "probeStatus", "command", "exitStatus",
                 "durationSeconds", "applicable", "canonicalForm", "definition"):
        assert str(RS[name]) in iris, name


def test_every_rs_iri_of_the_crate_and_codemeta_is_defined_in_the_vocabulary(with_outcomes):
    vocab = vocabulary()
    _store, out = with_outcomes
    found: set[str] = set()
    for path in (out["crate"] / "ro-crate-metadata.json", out["crate-one"] / "ro-crate-metadata.json",
                 out["codemeta"]):
        found |= json_base_iris(json.loads(path.read_text(encoding="utf-8")))
    assert terms.RUBRIC_SHA256 in found and terms.PROBE_STATUS in found
    assert_defined(found, vocab)


def test_every_term_the_exporters_name_is_in_the_vocabulary():
    """Also the terms no fixture reaches: every rs: term rdf_export.py writes and every
    term IRI terms.py exports."""
    vocab = vocabulary()
    source = (ROOT / "exporters" / "rdf_export.py").read_text(encoding="utf-8")
    used = {str(RS[name]) for name in re.findall(r"\bRS\.(\w+)", source)}
    used |= {value for name in terms.__all__ if isinstance(value := getattr(terms, name), str)
             and value.startswith(terms.TERMS) and value != terms.TERMS}
    assert len(used) >= 14
    assert_defined(used, vocab)
    for iri in used:
        assert (URIRef(iri), RDFS.comment, None) in vocab and (URIRef(iri), RDFS.isDefinedBy,
                                                                URIRef(VOCABULARY_IRI)) in vocab, iri


def test_the_vocabulary_file_is_package_data_generated_from_the_catalog():
    text = resources.files("exporters").joinpath("vocabulary", "reproscore.ttl").read_text(encoding="utf-8")
    assert text == vocabulary_turtle()  # docgen --check keeps the file current; this too
    assert 'exporters = ["contexts/*.jsonld", "vocabulary/*.ttl"]' in (ROOT / "pyproject.toml").read_text()
    vocab = vocabulary()
    registry = load_detectors()
    assert (URIRef(VOCABULARY_IRI), RDF.type, OWL.Ontology) in vocab
    for spec in METRICS:
        m = URIRef(terms.metric(spec.metric_id))
        assert set(vocab.objects(m, RDF.type)) == {DQV.Metric}
        assert set(vocab.objects(m, RDFS.label)) == {Literal(spec.title, lang="en")}
        assert set(vocab.objects(m, SKOS.notation)) == {Literal(spec.code)}
        assert set(vocab.objects(m, DQV.inDimension)) == {URIRef(terms.dimension(spec.category))}
        checks = " ".join(registry[spec.metric_id].sections()["What it checks"].split())
        assert set(vocab.objects(m, RDFS.comment)) == {Literal(checks, lang="en")}
    readiness = URIRef(terms.READINESS_CATEGORY)
    assert set(vocab.objects(readiness, RDF.type)) == {DQV.Category}
    for cat in CATEGORIES:
        d = URIRef(terms.dimension(cat.key))
        assert set(vocab.objects(d, RDF.type)) == {DQV.Dimension}
        assert set(vocab.objects(d, DQV.inCategory)) == {readiness}
        assert set(vocab.objects(d, RDFS.label)) == {Literal(cat.name, lang="en")}
        assert set(vocab.objects(d, RDFS.comment)) == {Literal(cat.question, lang="en")}
        assert (URIRef(terms.category_metric(cat.key)), DQV.inDimension, d) in vocab
    metrics = set(vocab.subjects(RDF.type, DQV.Metric))
    assert metrics == {URIRef(i) for i in MEASURED
                       | {terms.outcome_metric(c) for c in ROS_COMPONENT_IDS}
                       | {terms.score_metric(k) for k in terms.SCORE_KEYS}}
    assert len(metrics) == 26 + 5 + 5 + 6
    assert (RS.Rubric, RDFS.subClassOf, PROV.Plan) in vocab
    assert set(vocab.objects(RS.exitStatus, RDFS.range)) == {URIRef("http://www.w3.org/2001/XMLSchema#integer")}


# --------------------------------------------------------------------------- grouping


def measurements_of(graph: Graph, metadata: URIRef) -> set[URIRef]:
    """The measurements of the run that generated ``metadata``: generated by it, or used
    by it (outcome components, generated by the execution)."""
    return {row.m for row in graph.query(PREFIXES + """
        SELECT ?m WHERE { ?qm prov:wasGeneratedBy ?run .
          { ?m prov:wasGeneratedBy ?run } UNION { ?run prov:used ?m } ?m a dqv:QualityMeasurement }""",
        initBindings={"qm": metadata})}


@pytest.mark.parametrize("fmt", ["turtle", "json-ld", "ntriples", "rdf-xml"])
def test_each_quality_metadata_links_exactly_its_measurements(exported, fmt):
    store, out = exported
    graph = read(out[fmt])
    metadata = set(graph.subjects(RDF.type, DQV.QualityMetadata))
    assert len(metadata) == 5
    trees = []
    for qm in metadata:
        linked = set(graph.objects(qm, DQV.hasQualityMeasurement))
        assert linked == measurements_of(graph, qm)
        assert len(linked) == 26 + 5 + 1
        assert {str(graph.value(m, DQV.isMeasurementOf)) for m in linked} == MEASURED
        computed_on = {graph.value(m, DQV.computedOn) for m in linked}
        assert len(computed_on) == 1 and (computed_on.pop(), DQV.hasQualityMetadata, qm) in graph
        trees.append(next(name for name, swhid in store.swhids.items()
                          if (URIRef(swhid), DQV.hasQualityMetadata, qm) in graph))
    assert sorted(trees) == TREES
    measurements = set(graph.subjects(RDF.type, DQV.QualityMeasurement))
    assert len(measurements) == 5 * 32 == sum(1 for _ in graph.triples((None, DQV.hasQualityMeasurement, None)))


@pytest.mark.parametrize("fmt", ["trig", "nquads"])
def test_each_quality_metadata_is_the_named_graph_of_exactly_its_measurements(exported, fmt):
    _store, out = exported
    ds = read(out[fmt])
    default = default_graph(ds)
    metadata = set(default.subjects(RDF.type, DQV.QualityMetadata))
    assert len(metadata) == 5
    named = {g.identifier for g in ds.graphs()} - {default.identifier}
    assert named == metadata
    for qm in metadata:
        held = ds.graph(qm)
        subjects = set(held.subjects(unique=True))
        assert subjects == set(default.objects(qm, DQV.hasQualityMeasurement))
        assert subjects == set(held.subjects(RDF.type, DQV.QualityMeasurement))
        assert len(subjects) == 26 + 5 + 1
        assert {str(o) for o in held.objects(None, DQV.isMeasurementOf)} == MEASURED
        # the graph's provenance is in the default graph: generated by a run following the rubric
        run = default.value(qm, PROV.wasGeneratedBy)
        plan = default.value(default.value(run, PROV.qualifiedAssociation), PROV.hadPlan)
        assert plan == URIRef(terms.rubric(DEFAULT.sha256)) and (plan, RDF.type, PROV.Plan) in default
        assert all((m, PROV.wasGeneratedBy, run) in held for m in subjects)
    assert not set(default.subjects(RDF.type, DQV.QualityMeasurement))
    assert not any(s in set().union(*(set(default.objects(qm, DQV.hasQualityMeasurement)) for qm in metadata))
                   for s in default.subjects(unique=True))


def test_sparql_over_the_trig_finds_each_deposits_rrs_in_its_graph(exported):
    store, out = exported
    ds = read(out["trig"])
    rows = list(ds.query(PREFIXES + """
        SELECT ?qm ?tree ?rrs WHERE {
          ?qm a dqv:QualityMetadata ; prov:wasGeneratedBy ?run . ?run prov:qualifiedAssociation/prov:hadPlan ?plan .
          GRAPH ?qm { ?m dqv:isMeasurementOf rsm:RRS ; dqv:value ?rrs ; dqv:computedOn ?tree } }"""))
    assert len(rows) == 5 and len({r.qm for r in rows}) == 5
    names = {URIRef(swhid): name for name, swhid in store.swhids.items()}
    assert sorted((names[r.tree], float(str(r.rrs))) for r in rows) == sorted(
        (tree, store.result(tree)["rrs"]) for tree in TREES)
    # written at display precision (2 decimals), which the stored RRS already is
    assert all(r.rrs == decimal_literal(round(store.result(names[r.tree])["rrs"], 2)) for r in rows)
    # The RRS is not in the default graph: a query without GRAPH finds nothing.
    assert list(ds.query(PREFIXES + "SELECT ?m WHERE { ?m dqv:isMeasurementOf rsm:RRS }")) == []


def test_one_deposit_in_trig_is_one_named_graph(exported):
    store, out = exported
    ds = read(out["one-trig"])
    named = [g for g in ds.graphs() if g.identifier != URIRef("urn:x-rdflib:default")]
    assert len(named) == 1 and len(set(named[0].subjects(unique=True))) == 32
    swhid = URIRef(store.swhids["snakemake-rnaseq"])
    assert set(named[0].objects(None, DQV.computedOn)) == {swhid}


def test_every_format_holds_the_same_graph(exported, with_outcomes):
    for _store, out in (exported, with_outcomes):
        turtle = read(out["turtle"])
        for fmt in ("json-ld", "ntriples", "rdf-xml"):
            assert read(out[fmt]).isomorphic(turtle), fmt
        trig, nquads = read(out["trig"]), read(out["nquads"])
        union = Graph()
        for s, p, o, _g in trig.quads((None, None, None, None)):
            union.add((s, p, o))
        assert union.isomorphic(turtle)
        assert {g.identifier for g in trig.graphs()} == {g.identifier for g in nquads.graphs()}
        for g in trig.graphs():
            assert nquads.graph(g.identifier).isomorphic(g)


def test_outcome_measurements_are_in_the_graph_of_their_deposit(with_outcomes):
    _store, out = with_outcomes
    ds = read(out["trig"])
    default = default_graph(ds)
    with_outcome = 0
    for qm in default.subjects(RDF.type, DQV.QualityMetadata):
        held = set(ds.graph(qm).subjects(unique=True))
        assert held == set(default.objects(qm, DQV.hasQualityMeasurement)) == measurements_of(
            read(out["turtle"]), qm)
        metrics = {str(o) for o in ds.graph(qm).objects(None, DQV.isMeasurementOf)}
        if terms.score_metric("ROS") in metrics:
            with_outcome += 1
            outcome = {terms.score_metric(k) for k in ("ROS", "coverage", "alpha", "RCS")}
            components = {m for m in metrics if m.startswith(terms.BASE_IRI + "metric/outcome/")}
            assert metrics == MEASURED | outcome | components and components
            assert len(held) == 32 + 4 + len(components)
        else:
            assert metrics == MEASURED and len(held) == 32
    assert with_outcome == 3  # the Zenodo deposit, and the two deposits of the SWH tree


# --------------------------------------------------------------------------- verify


@pytest.mark.parametrize("fmt", FORMATS)
def test_verify_reads_every_format(exported, with_outcomes, fmt):
    for store, out in (exported, with_outcomes):
        report = api.verify_export(out[fmt])
        assert report.ok, [a.problems for a in report.assessments]
        assert sorted(a.stated_rrs for a in report.assessments) == sorted(store.result(t)["rrs"] for t in TREES)
        in_graph = [p for a in report.assessments for p in a.passed if "in the named graph" in p]
        assert len(in_graph) == (5 if fmt in DATASET_FORMATS else 0)
    assert report.kind == {"turtle": "RDF Turtle", "json-ld": "RDF JSON-LD", "ntriples": "RDF N-Triples",
                           "rdf-xml": "RDF/XML", "trig": "RDF TriG", "nquads": "RDF N-Quads"}[fmt]


def test_verify_fails_a_measurement_moved_out_of_its_graph(exported, tmp_path):
    _store, out = exported
    ds = read(out["trig"])
    default = default_graph(ds)
    qm = sorted(default.subjects(RDF.type, DQV.QualityMetadata))[0]
    held = ds.graph(qm)
    moved = sorted(held.subjects(DQV.isMeasurementOf, URIRef(terms.metric("dep_pinning"))))[0]
    for s, p, o in list(held.triples((moved, None, None))):
        held.remove((s, p, o))
        default.add((s, p, o))
    tampered = tmp_path / "moved.trig"
    tampered.write_text(ds.serialize(format="trig"), encoding="utf-8")
    report = api.verify_export(tampered)
    assert not report.ok
    problems = [p for a in report.assessments for p in a.problems]
    assert problems == [f"named graph {qm}: holds 31 subjects, the run has 32 measurements "
                        "(0 not the run's, 1 missing)"]


# --------------------------------------------------------------------------- the command


def invoke(*args: str):
    with offline() as attempts:
        result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert attempts == []
    return result


def test_the_command_offers_every_format_and_extension():
    assert set(RDF_FORMATS) == set(FORMATS)
    assert set(RDF_EXTENSIONS.values()) == set(FORMATS)


@pytest.mark.parametrize("ext,kind", [("jsonld", "json-ld"), ("trig", "trig"), ("nq", "nquads"),
                                      ("nt", "ntriples"), ("rdf", "rdf-xml"), ("xml", "rdf-xml")])
def test_export_rdf_writes_the_format_of_the_out_extension(exported, tmp_path, ext, kind):
    store, _out = exported
    target = tmp_path / f"x.{ext}"
    result = invoke("export", "rdf", "--db", str(store.db), "--out", str(target))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == f"wrote RDF ({kind}) {target}: 5 assessments"
    text = target.read_text(encoding="utf-8")
    if kind == "json-ld":
        assert isinstance(json.loads(text)["@context"], dict)
        graph = parse_jsonld(text)
    elif kind in ("trig", "nquads"):
        graph = Dataset(default_union=True).parse(data=text, format=DATASET_FORMATS[kind])
        assert len([g for g in graph.graphs() if g.identifier != URIRef("urn:x-rdflib:default")]) == 5
    else:
        graph = Graph().parse(data=text, format={"ntriples": "nt", "rdf-xml": "xml"}[kind])
    assert len(set(graph.subjects(RDF.type, DQV.QualityMetadata))) == 5
    assert len(set(graph.subjects(RDF.type, DQV.QualityMeasurement))) == 5 * 32


@pytest.mark.parametrize("ext,implied,given", [("trig", "trig", "turtle"), ("nq", "nquads", "trig"),
                                               ("jsonld", "json-ld", "nquads")])
def test_export_rdf_refuses_a_format_that_contradicts_the_extension(tmp_path, ext, implied, given):
    target = tmp_path / f"x.{ext}"
    result = invoke("export", "rdf", "--db", str(tmp_path / "none.db"), "--format", given, "--out", str(target))
    assert result.exit_code == 2
    assert result.stderr == f"reproscore: error: --out {target} is {implied} by its extension but --format is {given}\n"
    assert not target.exists()
