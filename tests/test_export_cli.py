"""The export commands: deposit ids accepted as DOI, Zenodo record id, origin URL or
SWHID; clear errors (exit 2) for what is not found; the rubric of the exported score;
no secret planted in a deposit reaches any export."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from export_store import (
    SECRET_DOI,
    SECRETS,
    SWH_ORIGIN,
    UNSCORED_RECORD,
    ZENODO_DOI,
    all_text,
    build,
    crate_entities,
    offline,
)

from reproscore import api
from reproscore.cli import cli
from reproscore.store import NotFound
from scoring.rubric import load_rubric

BIO = load_rubric("bioinformatics-v1")
DEFAULT = load_rubric("default")


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return build(tmp_path_factory.mktemp("export-cli") / "store")


def invoke(*args: str):
    with offline() as attempts:
        result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert attempts == []
    return result


def subject_of(path: Path) -> str:
    return crate_entities(path)["./"]["about"]["@id"]


# --------------------------------------------------------------------------- deposit ids


@pytest.mark.parametrize(
    ("reference", "source_id"),
    [
        (ZENODO_DOI, "9100001"),  # version DOI
        ("doi:10.5281/ZENODO.9100001", "9100001"),
        (f"https://doi.org/{ZENODO_DOI}", "9100001"),
        ("10.5281/zenodo.9100000", "9100006"),  # concept DOI: its newest version
        ("9100001", "9100001"),  # Zenodo record id
        ("https://zenodo.org/records/9100001", "9100001"),
        ("https://github.com/demo-lab/snakemake-rnaseq", "9100006"),  # origin URL: newest deposit
        ("https://github.com/demo-lab/snakemake-rnaseq/", "9100006"),
        (SWH_ORIGIN, SWH_ORIGIN),  # a Software Heritage origin
        ("zenodo:9100007", "9100007"),
    ],
)
def test_deposit_ids_resolve(store, reference, source_id):
    resolved = api.resolve_deposit(store.db, reference)
    assert resolved["deposit"]["source_id"] == source_id


def test_a_snapshot_swhid_names_its_first_deposit_or_the_tree_alone(store):
    swhid = store.swhids["notebook-ml-study"]
    for reference in (swhid, swhid.upper().replace("SWH:1:DIR:", "swh:1:dir:"), f"{swhid};origin={SWH_ORIGIN}"):
        assert api.resolve_deposit(store.db, reference) == {
            "deposit": {"source": "swh", "source_id": SWH_ORIGIN, "version_doi": None,
                        "origin_url": None, "title": "aerosol-inversion"},
            "swhid": swhid,
        }
    alone = store.swhids["r-survey-analysis"]
    assert api.resolve_deposit(store.db, alone) == {"deposit": None, "swhid": alone}


def test_every_kind_of_id_exports_the_crate_of_its_deposit(store, tmp_path):
    cases = {
        ZENODO_DOI: f"https://doi.org/{ZENODO_DOI}",
        "9100007": f"https://doi.org/{SECRET_DOI}",
        SWH_ORIGIN: SWH_ORIGIN,
        store.swhids["r-survey-analysis"]: store.swhids["r-survey-analysis"],
    }
    for n, (reference, subject) in enumerate(cases.items()):
        out = tmp_path / f"crate{n}"
        result = invoke("export", "rocrate", "--db", str(store.db), "--deposit", reference, "--out", str(out))
        assert result.exit_code == 0, result.output
        assert result.stdout.splitlines()[0] == f"wrote RO-Crate {out}: 1 assessment"
        assert subject_of(out) == subject


@pytest.mark.parametrize("command", [["rocrate", "--out", "x"], ["codemeta", "--out", "x.json"], ["rdf", "--out", "x.ttl"]])
def test_an_unknown_deposit_id_exits_2_naming_it(store, tmp_path, command):
    args = ["export", command[0], "--db", str(store.db), "--deposit", "10.5281/zenodo.404404",
            command[1], str(tmp_path / command[2])]
    result = invoke(*args)
    assert result.exit_code == 2
    assert result.stderr == (
        f"reproscore: error: no deposit or snapshot matches '10.5281/zenodo.404404' in {store.db} "
        "(looked for a DOI, a Zenodo record id or URL, an origin URL, a snapshot SWHID and source:id)\n"
    )
    assert not (tmp_path / command[2]).exists()


def test_other_lookup_errors_are_clear(store, tmp_path):
    with pytest.raises(NotFound, match=r"no snapshot swh:1:dir:0{40} in "):
        api.resolve_deposit(store.db, "swh:1:dir:" + "0" * 40)
    with pytest.raises(NotFound, match="https://gitlab.com/nobody/nothing"):
        api.resolve_deposit(store.db, "https://gitlab.com/nobody/nothing")
    result = invoke("export", "rocrate", "--db", str(store.db), "--deposit", UNSCORED_RECORD, "--out", str(tmp_path / "c"))
    assert result.exit_code == 2
    assert result.stderr == (
        f"reproscore: error: deposit zenodo:{UNSCORED_RECORD}, named by '{UNSCORED_RECORD}', has no "
        f"stored tree in {store.db}: it was not scored\n"
    )
    missing = invoke("export", "rdf", "--db", str(tmp_path / "none.db"), "--out", str(tmp_path / "x.ttl"))
    assert missing.exit_code == 2 and "no such database" in missing.stderr
    assert not (tmp_path / "none.db").exists()


def test_rocrate_needs_exactly_one_of_deposit_and_all(store, tmp_path):
    for extra in ([], ["--deposit", ZENODO_DOI, "--all"]):
        result = invoke("export", "rocrate", "--db", str(store.db), "--out", str(tmp_path / "c"), *extra)
        assert result.exit_code == 2
        assert result.stderr == "reproscore: error: give either --deposit ID or --all\n"


def test_a_directory_that_is_not_a_crate_is_not_overwritten(store, tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    result = invoke("export", "rocrate", "--db", str(store.db), "--deposit", ZENODO_DOI, "--out", str(tmp_path / "mine"))
    assert result.exit_code == 2 and "holds no RO-Crate; not overwritten" in result.stderr
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep me"
    # A crate written before is replaced.
    assert invoke("export", "rocrate", "--db", str(store.db), "--deposit", ZENODO_DOI, "--out", str(tmp_path / "c")).exit_code == 0
    (tmp_path / "c" / "stale.txt").write_text("from an earlier export")
    assert invoke("export", "rocrate", "--db", str(store.db), "--deposit", SWH_ORIGIN, "--out", str(tmp_path / "c")).exit_code == 0
    assert not (tmp_path / "c" / "stale.txt").exists() and subject_of(tmp_path / "c") == SWH_ORIGIN


def test_the_exported_score_is_under_the_default_rubric_unless_another_is_asked_for(store, tmp_path):
    db = tmp_path / "copy.db"
    shutil.copy(store.db, db)
    # Computed last, but not asked for: the export stays under the default rubric.
    api.rescore(db, "bioinformatics-v1")
    unnamed = invoke("export", "rocrate", "--db", str(db), "--deposit", ZENODO_DOI, "--out", str(tmp_path / "latest"))
    assert unnamed.exit_code == 0 and "(rubric default 1.0.0" in unnamed.stdout
    assert (tmp_path / "latest" / "rubric" / "default-1.0.0.yaml").is_file()
    asked = invoke("export", "rocrate", "--db", str(db), "--deposit", ZENODO_DOI, "--rubric", "bioinformatics-v1",
                   "--out", str(tmp_path / "default"))
    assert asked.exit_code == 0 and "(rubric bioinformatics-v1 1.0.0" in asked.stdout
    assert (tmp_path / "default" / "rubric" / "bioinformatics-v1-1.0.0.yaml").is_file()
    assert api.verify_export(tmp_path / "latest").ok and api.verify_export(tmp_path / "default").ok
    codemeta = tmp_path / "codemeta.json"
    assert invoke("export", "codemeta", "--db", str(db), "--deposit", ZENODO_DOI, "--rubric", "default",
                  "--out", str(codemeta)).exit_code == 0
    review = json.loads(codemeta.read_text())["review"]
    assert review["schema:isBasedOn"]["schema:identifier"]["schema:value"] == DEFAULT.sha256
    # A rubric no score is stored under is an error naming the fix.
    other = invoke("export", "rdf", "--db", str(store.db), "--deposit", ZENODO_DOI, "--rubric", "bioinformatics-v1",
                   "--out", str(tmp_path / "x.ttl"))
    assert other.exit_code == 2
    assert "has no stored score under rubric bioinformatics-v1@1.0.0; run: reproscore rescore" in other.stderr


def test_the_rdf_and_codemeta_commands_say_what_they_wrote(store, tmp_path):
    result = invoke("export", "rdf", "--db", str(store.db), "--format", "json-ld", "--out", str(tmp_path / "all.jsonld"))
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == f"wrote RDF (json-ld) {tmp_path / 'all.jsonld'}: 5 assessments"
    assert len(lines) == 6
    result = invoke("export", "codemeta", "--db", str(store.db), "--deposit", SWH_ORIGIN, "--out", str(tmp_path / "c.json"))
    assert result.exit_code == 0
    rrs = store.result("notebook-ml-study")["rrs"]
    assert result.stdout.splitlines()[1] == (
        f"  RRS {rrs:6.2f}  {SWH_ORIGIN}  (rubric default 1.0.0, tree {store.swhids['notebook-ml-study']})")


# --------------------------------------------------------------------------- secrets


def test_a_secret_planted_in_a_deposit_appears_in_no_export(store, tmp_path):
    """settings.py of the deposit holds an AWS key and a GitHub token; the credentials
    detector cites that file, and its evidence (redacted when measured) is exported."""
    evidence = store.result("secret")["submetrics"]["no_hardcoded_credentials"]["evidence"]
    assert {e["path"] for e in evidence} == {"settings.py"}
    assert {e["snippet"] for e in evidence} == {
        "AWS_ACCESS_KEY_ID = AKIA…(20 chars)", "GITHUB_TOKEN = ghp_…(41 chars)"}
    outputs = {
        "crate directory": ("rocrate", "--deposit", SECRET_DOI, "--out", str(tmp_path / "crate")),
        "crate zip": ("rocrate", "--deposit", SECRET_DOI, "--zip", "--out", str(tmp_path / "crate.zip")),
        "collection crate": ("rocrate", "--all", "--out", str(tmp_path / "collection")),
        "codemeta": ("codemeta", "--deposit", SECRET_DOI, "--out", str(tmp_path / "codemeta.json")),
        "turtle": ("rdf", "--deposit", SECRET_DOI, "--out", str(tmp_path / "one.ttl")),
        "json-ld": ("rdf", "--deposit", SECRET_DOI, "--format", "json-ld", "--out", str(tmp_path / "one.jsonld")),
        "turtle of the database": ("rdf", "--out", str(tmp_path / "all.ttl")),
    }
    for name, (command, *args) in outputs.items():
        result = invoke("export", command, "--db", str(store.db), *args)
        assert result.exit_code == 0, (name, result.output)
        text = all_text(Path(args[-1]))
        for secret in SECRETS:
            assert secret not in text, name
            assert secret[4:] not in text, name  # not even without its recognisable prefix
    report = all_text(tmp_path / "crate")
    assert "AKIA…(20 chars)" in report and "settings.py" in report  # the evidence is there, masked


def test_a_stored_score_that_its_measurements_do_not_give_is_not_exported(store, tmp_path):
    import sqlite3

    db = tmp_path / "copy.db"
    shutil.copy(store.db, db)
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("UPDATE scores SET rrs = 1.5 WHERE snapshot_id = (SELECT id FROM snapshots WHERE swhid = ?)",
                     (store.swhids["notebook-ml-study"],))
    conn.close()
    result = invoke("export", "codemeta", "--db", str(db), "--deposit", SWH_ORIGIN, "--out", str(tmp_path / "c.json"))
    assert result.exit_code == 2
    rrs = store.result("notebook-ml-study")["rrs"]
    assert result.stderr == (
        f"reproscore: error: snapshot {store.swhids['notebook-ml-study']}: the stored score under default@1.0.0 "
        f"(RRS 1.5) differs from its recomputation (RRS {rrs}); nothing was exported\n"
    )
    assert not (tmp_path / "c.json").exists()


def test_export_rdf_takes_its_format_from_the_extension_and_refuses_a_mismatch(tmp_path):
    from click.testing import CliRunner

    from reproscore.cli import cli

    runner = CliRunner()
    result = runner.invoke(cli, ["export", "rdf", "--db", str(tmp_path / "none.db"), "--format", "turtle",
                                 "--out", str(tmp_path / "x.jsonld")])
    assert result.exit_code == 2
    assert result.stderr == (f"reproscore: error: --out {tmp_path / 'x.jsonld'} is json-ld by its extension "
                             "but --format is turtle\n")
    assert not (tmp_path / "x.jsonld").exists()
