"""`reproscore verify`: the RRS recomputed from an exported crate (directory or zip) or
RDF file alone, through the CLI and the API; tampered values, scores and rubrics fail
with a message saying what differs."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from export_store import ZENODO_DOI, build, crate_metadata, offline
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDF

from exporters import terms
from exporters.assessment import build_assessment, load_assessment
from exporters.rdf_export import DQV, decimal_literal
from exporters.rocrate_export import write_crate
from exporters.verify import VerifyError
from reproscore import api
from reproscore.cli import cli
from reproscore.store import Store
from scoring.aggregate import score_from_values
from scoring.catalog import METRIC_IDS
from scoring.rubric import load_rubric

DEFAULT = load_rubric("default")
RUBRIC_FILE = "rubric/default-1.0.0.yaml"


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    base = tmp_path_factory.mktemp("verify")
    store = build(base / "store")
    with offline() as attempts:
        crate = Path(api.export_rocrate(store.db, base / "crate", deposit=ZENODO_DOI).path)
        zipped = Path(api.export_rocrate(store.db, base / "crate.zip", deposit=ZENODO_DOI, zip_file=True).path)
        ttl = Path(api.export_rdf(store.db, base / "all.ttl").path)
        with Store(store.db, create=False) as st:
            stored = load_assessment(st, ZENODO_DOI)
            measurements = st.load_measurements(st.find_snapshot(stored.snapshot.swhid).id)
        outcome = write_crate(
            build_assessment(measurements, DEFAULT, snapshot=stored.snapshot, outcomes={"I": True, "delta": 80.0}),
            base / "outcome",
        )
    assert attempts == []
    return store, {"crate": crate, "zip": zipped, "ttl": ttl, "outcome": outcome}


def invoke(*args: str):
    with offline() as attempts:
        result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert attempts == []
    return result


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


def edit_rubric(crate: Path, target: Path, change) -> Path:
    """A copy of the crate directory ``crate`` whose rubric file text ``change`` rewrites."""
    shutil.copytree(crate, target)
    path = target / RUBRIC_FILE
    path.write_text(change(path.read_text(encoding="utf-8")), encoding="utf-8")
    return target


# --------------------------------------------------------------------------- verified


@pytest.mark.parametrize("kind", ["crate", "zip"])
def test_an_exported_crate_verifies_through_the_cli_and_the_api(exported, kind):
    store, paths = exported
    rrs = store.result("snakemake-rnaseq")["rrs"]
    result = invoke("verify", str(paths[kind]))
    assert result.exit_code == 0, result.output
    kind_label = "RO-Crate directory" if kind == "crate" else "RO-Crate zip"
    assert result.stdout.splitlines() == [
        f"{paths[kind]}: {kind_label}, 1 assessment: verified",
        f"  ok      https://doi.org/{ZENODO_DOI}: RRS {rrs!r} recomputed under default 1.0.0",
    ]
    report = api.verify_export(paths[kind])
    assert report.ok and report.kind == kind_label
    (check,) = report.assessments
    assert (check.stated_rrs, check.recomputed_rrs, check.rubric) == (rrs, rrs, "default 1.0.0")
    assert check.passed == [
        f"rubric file {RUBRIC_FILE} sha256",
        f"rubric content hash {DEFAULT.sha256}",
        "26 sub-metric values",
        f"RRS {rrs!r} recomputed from the 26 sub-metric values under rubric default 1.0.0",
        "native report agrees with the metadata",
    ]


def test_an_rdf_export_of_the_whole_database_verifies(exported):
    store, paths = exported
    result = invoke("verify", str(paths["ttl"]), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["ok"] is True and data["kind"] == "RDF Turtle"
    assert sorted((a["stated_rrs"], a["recomputed_rrs"]) for a in data["assessments"]) == sorted(
        (store.result(t)["rrs"], store.result(t)["rrs"])
        for t in ("snakemake-rnaseq", "snakemake-rnaseq", "secret", "notebook-ml-study", "r-survey-analysis"))


def test_the_outcome_block_is_recomputed_too(exported, tmp_path):
    _store, paths = exported
    report = api.verify_export(paths["outcome"])
    assert report.ok, report.to_dict()
    assert any(p.startswith("ROS ") and "RCS" in p for p in report.assessments[0].passed)

    def change(entities):
        entities["#ROS"]["value"] = 99.0

    tampered = api.verify_export(edit_metadata(paths["outcome"], tmp_path / "ros", change))
    assert not tampered.ok
    (ros,) = [p for p in tampered.assessments[0].problems if p.startswith("ROS")]
    assert ros.startswith("ROS: stated 99.0, recomputed ") and ros.endswith(" from the outcome components")


# --------------------------------------------------------------------------- tampered


@pytest.mark.parametrize("kind", ["crate", "zip"])
def test_a_tampered_sub_metric_value_fails(exported, tmp_path, kind):
    store, paths = exported
    result_data = store.result("snakemake-rnaseq")
    original = result_data["submetrics"]["dep_pinning"]["value"]
    forged = 20.0 if original != 20.0 else 30.0

    def change(entities):
        entities["#value-dep_pinning"]["value"] = forged

    tampered = edit_metadata(paths[kind], tmp_path / ("t" if kind == "crate" else "t.zip"), change)
    values = {mid: result_data["submetrics"][mid]["value"] for mid in METRIC_IDS} | {"dep_pinning": forged}
    categories, _p, _u, rrs = score_from_values(values, DEFAULT)
    stated_e = round(result_data["categories"]["E"]["raw"], 4)
    result = invoke("verify", str(tampered))
    assert result.exit_code == 1
    where = "from the 26 sub-metric values under rubric default 1.0.0"
    assert result.stdout.splitlines()[1:] == [
        f"  FAILED  https://doi.org/{ZENODO_DOI}:",
        f"            category E: stated {stated_e!r}, recomputed {round(categories['E'].raw, 4)!r} {where}",
        f"            RRS: stated {result_data['rrs']!r}, recomputed {rrs!r} {where}",
        f"            sub-metric dep_pinning: {forged!r} in the metadata, {original!r} in the native report",
    ]
    assert "verification FAILED" in result.stdout.splitlines()[0]
    assert f"reproscore: error: {tampered}: verification failed" in result.stderr
    assert not api.verify_export(tampered).ok


def test_a_tampered_rrs_fails(exported, tmp_path):
    store, paths = exported
    rrs = store.result("snakemake-rnaseq")["rrs"]

    def change(entities):
        entities["#rrs"]["ratingValue"] = 99.5

    report = api.verify_export(edit_metadata(paths["crate"], tmp_path / "rrs", change))
    assert not report.ok
    assert report.assessments[0].problems == [
        f"RRS: stated 99.5, recomputed {rrs!r} from the 26 sub-metric values under rubric default 1.0.0",
        f"RRS: 99.5 in the metadata, {rrs!r} in the native report",
    ]
    assert invoke("verify", str(tmp_path / "rrs")).exit_code == 1


def test_a_tampered_rubric_fails_on_its_hashes(exported, tmp_path):
    store, paths = exported

    def swap_weights(text: str) -> str:  # E and A trade weights: still a valid rubric
        document = yaml.safe_load(text)
        categories = document["categories"]
        categories["E"]["weight"], categories["A"]["weight"] = categories["A"]["weight"], categories["E"]["weight"]
        return yaml.safe_dump(document, sort_keys=False)

    tampered = edit_rubric(paths["crate"], tmp_path / "weights", swap_weights)
    report = api.verify_export(tampered)
    problems = report.assessments[0].problems
    assert problems[0].startswith(f"rubric file {RUBRIC_FILE}: its SHA-256 is ")
    assert problems[0].endswith("(the file was changed)")
    assert problems[1].startswith(f"rubric file {RUBRIC_FILE}: its content hash is ")
    assert problems[1].endswith(f"the export states {DEFAULT.sha256} (the rubric is not the one the score was computed under)")
    assert any(p.startswith("RRS: stated ") for p in problems)
    result = invoke("verify", str(tampered))
    assert result.exit_code == 1 and "its content hash is" in result.output

    # A change that leaves the policy alone is still a changed file.
    comment = edit_rubric(paths["crate"], tmp_path / "comment", lambda text: text + "# edited\n")
    problems = api.verify_export(comment).assessments[0].problems
    assert len(problems) == 1 and problems[0].endswith("(the file was changed)")

    shutil.copytree(paths["crate"], tmp_path / "gone")
    (tmp_path / "gone" / RUBRIC_FILE).unlink()
    problems = api.verify_export(tmp_path / "gone").assessments[0].problems
    assert problems == [f"rubric file {RUBRIC_FILE}: missing from the crate",
                        "RRS: not recomputable (see the problems above)"]


def test_a_tampered_rdf_value_fails(exported, tmp_path):
    store, paths = exported
    graph = Graph().parse(paths["ttl"], format="turtle")
    swhid = store.swhids["r-survey-analysis"]
    (node,) = [m for m in graph.subjects(DQV.isMeasurementOf, URIRef(terms.metric("usage_examples")))
               if (m, DQV.computedOn, URIRef(swhid)) in graph and (m, RDF.type, DQV.QualityMeasurement) in graph]
    original = float(str(graph.value(node, DQV.value)))
    graph.set((node, DQV.value, decimal_literal(0.0 if original else 100.0)))
    target = tmp_path / "tampered.ttl"
    target.write_text(graph.serialize(format="turtle"), encoding="utf-8")
    report = api.verify_export(target)
    assert not report.ok
    (bad,) = [a for a in report.assessments if not a.ok]
    assert bad.subject == swhid  # the tree scored through no deposit
    assert any(p.startswith("category D: stated ") for p in bad.problems)
    assert sum(a.ok for a in report.assessments) == 4
    assert isinstance(graph.value(node, DQV.value), Literal)


def test_what_is_not_an_export_exits_2(tmp_path):
    (tmp_path / "empty").mkdir()
    result = invoke("verify", str(tmp_path / "empty"))
    assert result.exit_code == 2
    assert "no ro-crate-metadata.json: not an RO-Crate" in result.stderr
    assert invoke("verify", str(tmp_path / "missing")).exit_code == 2
    (tmp_path / "notes.txt").write_text("hello")
    assert "not an RO-Crate (directory or zip) nor an RDF file" in invoke("verify", str(tmp_path / "notes.txt")).stderr
    with pytest.raises(VerifyError):
        api.verify_export(tmp_path / "empty")
