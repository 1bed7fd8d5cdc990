"""Names and numbers (issue 17): what a tree declares about itself, stored per snapshot,
and how exports and the report name a deposit by it.

The trees are written here, scored into a real store with ``api.score_path`` and
exported with ``api.export_codemeta`` / ``api.export_rocrate``, as ``reproscore score
DIR --db`` and ``reproscore export`` do.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from conftest import write_tree
from export_store import crate_entities

from reproscore import api
from reproscore.report.data import load_collection
from reproscore.store import Store
from scoring import measure
from scoring.declared import DeclaredAuthor, parse_authors_r
from scoring.model import Measurements
from scoring.rubric import load_rubric

R_PACKAGE = {
    "DESCRIPTION": (
        "Package: tidysurvey\n"
        "Title: Tidy Tools for Survey Weights\n"
        "Version: 1.4.2\n"
        "Authors@R: c(\n"
        '    person("Ana", "Silva", email = "ana.silva@example.org",\n'
        '           role = c("aut", "cre"), comment = c(ORCID = "0000-0002-1825-0097")),\n'
        '    person(given = "Bo", family = "Chen", role = "aut"),\n'
        '    person("Survey Lab", role = "cph"))\n'
        "Description: Weighted estimates\n"
        "    for household surveys.\n"
        "License: MIT + file LICENSE\n"
        "Imports:\n"
        "    dplyr (>= 1.1.0)\n"
    ),
    "R/weights.R": "#' Weights\nweights <- function(x) x / sum(x)\n",
}
PY_PROJECT = {
    "pyproject.toml": (
        "[project]\n"
        'name = "aerosol-fit"\n'
        'version = "0.9.0"\n'
        'description = "Fits aerosol size distributions."\n'
        'license = {text = "BSD-3-Clause"}\n'
        "authors = [\n"
        '  {name = "Ada Okafor", email = "ada@example.org"},\n'
        '  {name = "Lin Wu"},\n'
        "]\n"
        'dependencies = ["numpy==1.26.4"]\n'
    ),
    "aerosol_fit/__init__.py": '"""Fits."""\n',
}
CITED = {
    **PY_PROJECT,
    **R_PACKAGE,
    "CITATION.cff": (
        "cff-version: 1.2.0\n"
        "message: Cite it.\n"
        'title: "Aerosol inversion toolkit"\n'
        "authors:\n"
        "  - given-names: Jane\n"
        "    family-names: Doe\n"
        "    orcid: https://orcid.org/0000-0001-5109-3700\n"
    ),
}
NAMELESS = {"analysis.py": "print('hello')\n", "README.md": "# Notes\n"}

ANA = {"@type": "Person", "name": "Ana Silva", "@id": "https://orcid.org/0000-0002-1825-0097",
       "givenName": "Ana", "familyName": "Silva", "email": "ana.silva@example.org"}
BO = {"@type": "Person", "name": "Bo Chen", "givenName": "Bo", "familyName": "Chen"}


def scored(tmp_path: Path, name: str, files: dict[str, str]) -> tuple[Path, str]:
    """Score the tree ``files`` as folder ``name`` into tmp_path/r.db; (db, SWHID)."""
    db = tmp_path / "r.db"
    result = api.score_path(write_tree(tmp_path / name, files), "default", db=db)
    return db, result.result["snapshot"]["swhid"]


def codemeta(db: Path, swhid: str, out: Path) -> dict:
    return json.loads(Path(api.export_codemeta(db, swhid, out).path).read_text(encoding="utf-8"))


# --------------------------------------------------------------------------- the record


def test_authors_r_reads_person_calls_with_roles_orcid_and_email():
    assert parse_authors_r(
        'c(person("Ana", "Silva", email = "ana@example.org", role = c("aut", "cre"),\n'
        '         comment = c(ORCID = "0000-0002-1825-0097", affiliation = "Lab")),\n'
        "  person(given = c('Bo', 'K.'), family = \"Chen\", role = \"aut\"),\n"
        '  person("Carl", "Ctb", role = "ctb"))'
    ) == (
        DeclaredAuthor("Ana Silva", "Ana", "Silva", "ana@example.org", "0000-0002-1825-0097"),
        DeclaredAuthor("Bo K. Chen", "Bo K.", "Chen", None, None),
    )
    # Only a maintainer: the maintainer is the author.
    assert parse_authors_r('person("Di", "Roe", role = "cre")') == (DeclaredAuthor("Di Roe", "Di", "Roe"),)
    # Code beyond literal calls is not guessed at.
    assert parse_authors_r('c(person(paste0("A", "n"), "Silva"))') == ()
    assert parse_authors_r('person("Ana", "Silva"') == ()


def test_the_author_and_maintainer_fields_when_there_is_no_authors_r(tmp_path):
    tree = write_tree(tmp_path / "old", {"DESCRIPTION": (
        "Package: oldpkg\nVersion: 0.1\n"
        "Author: Ana Silva [aut, cre] (<https://orcid.org/0000-0002-1825-0097>), Bo Chen and Cy Dee\n"
        "Maintainer: Ana Silva <ana@example.org>\n"
    )})
    declared = measure(tree).declared
    assert declared.name == "oldpkg"
    assert declared.authors == (
        DeclaredAuthor("Ana Silva", email="ana@example.org", orcid="0000-0002-1825-0097"),
        DeclaredAuthor("Bo Chen"),
        DeclaredAuthor("Cy Dee"),
    )
    alone = write_tree(tmp_path / "alone", {"DESCRIPTION": "Package: p\nMaintainer: Di Roe <di@example.org>\n"})
    assert measure(alone).declared.authors == (DeclaredAuthor("Di Roe", email="di@example.org"),)


def test_each_field_comes_from_the_first_file_that_gives_it(tmp_path):
    measured = measure(write_tree(tmp_path / "cited", CITED))
    assert measured.declared.to_dict() == {
        "name": "Aerosol inversion toolkit",
        "title": "Tidy Tools for Survey Weights",
        "description": "Weighted estimates for household surveys.",
        "version": "1.4.2",
        "license": "MIT + file LICENSE",
        "authors": [{"name": "Jane Doe", "given": "Jane", "family": "Doe", "email": None,
                     "orcid": "0000-0001-5109-3700"}],
        "sources": {"name": "CITATION.cff", "authors": "CITATION.cff", "title": "DESCRIPTION",
                    "description": "DESCRIPTION", "version": "DESCRIPTION", "license": "DESCRIPTION"},
    }
    assert Measurements.from_dict(measured.to_dict()).to_dict() == measured.to_dict()
    zenodo = write_tree(tmp_path / "zen", {
        ".zenodo.json": json.dumps({"title": "Zen title", "creators": [{"name": "Doe, Jane", "orcid": "0000-0001-5109-3700"}],
                                    "license": {"id": "mit"}}),
        "codemeta.json": json.dumps({"name": "cm-name", "license": "https://spdx.org/licenses/Apache-2.0"}),
        "Project.toml": 'name = "Zen"\nversion = "0.2.0"\nauthors = ["Jo Bloggs <jo@example.org>"]\n',
    })
    declared = measure(zenodo).declared
    assert (declared.name, declared.license, declared.version) == ("cm-name", "Apache-2.0", "0.2.0")
    assert declared.authors == (DeclaredAuthor("Jane Doe", "Jane", "Doe", None, "0000-0001-5109-3700"),)
    assert declared.sources == {"name": "codemeta.json", "license": "codemeta.json", "authors": ".zenodo.json",
                                "version": "Project.toml"}


def test_a_tree_that_declares_nothing_has_an_empty_record(tmp_path):
    declared = measure(write_tree(tmp_path / "plain", NAMELESS)).declared
    assert declared.to_dict() == {"name": None, "title": None, "description": None, "version": None,
                                  "license": None, "authors": [], "sources": {}}


# --------------------------------------------------------------------------- exports


def test_the_codemeta_of_an_r_package_has_its_name_and_authors_from_description(tmp_path):
    db, swhid = scored(tmp_path, "checkout", R_PACKAGE)
    doc = codemeta(db, swhid, tmp_path / "codemeta.json")
    assert doc["@id"] == swhid
    assert doc["name"] == "tidysurvey"
    assert doc["author"] == [ANA, BO]
    assert doc["version"] == "1.4.2"
    assert doc["license"] == {"@type": "schema:CreativeWork", "name": "MIT + file LICENSE"}
    assert doc["description"] == "Weighted estimates for household surveys."
    assert doc["identifier"] == swhid
    assert doc["review"]["name"] == f"RRS assessment of tidysurvey ({swhid})"
    with Store(db) as store:
        stored = json.loads(store.conn.execute("SELECT declared FROM snapshots WHERE swhid = ?", (swhid,)).fetchone()[0])
    assert stored["name"] == "tidysurvey" and stored["sources"]["authors"] == "DESCRIPTION"


def test_the_codemeta_of_a_python_project_has_its_pyproject_name_and_authors(tmp_path):
    db, swhid = scored(tmp_path, "checkout", PY_PROJECT)
    doc = codemeta(db, swhid, tmp_path / "codemeta.json")
    assert doc["name"] == "aerosol-fit"
    assert doc["author"] == [{"@type": "Person", "name": "Ada Okafor", "email": "ada@example.org"},
                             {"@type": "Person", "name": "Lin Wu"}]
    assert doc["version"] == "0.9.0"
    assert doc["license"] == "https://spdx.org/licenses/BSD-3-Clause"


def test_a_citation_title_names_the_tree_before_its_package_manifests(tmp_path):
    db, swhid = scored(tmp_path, "checkout", CITED)
    doc = codemeta(db, swhid, tmp_path / "codemeta.json")
    assert doc["name"] == "Aerosol inversion toolkit"
    assert doc["author"] == [{"@type": "Person", "name": "Jane Doe", "@id": "https://orcid.org/0000-0001-5109-3700",
                              "givenName": "Jane", "familyName": "Doe"}]
    crate = tmp_path / "crate"
    api.export_rocrate(db, crate, deposit=swhid)
    entities = crate_entities(crate)
    assert entities[swhid]["name"] == f"Aerosol inversion toolkit ({swhid})"
    assert entities[swhid]["creator"] == {"@id": "https://orcid.org/0000-0001-5109-3700"}
    assert entities["https://orcid.org/0000-0001-5109-3700"] == {
        "@id": "https://orcid.org/0000-0001-5109-3700", "@type": "Person", "name": "Jane Doe",
        "givenName": "Jane", "familyName": "Doe"}
    assert entities["./"]["name"] == f"Reproducibility readiness of Aerosol inversion toolkit ({swhid})"


def test_a_tree_that_declares_nothing_is_named_by_its_folder(tmp_path):
    db, swhid = scored(tmp_path, "field-notes-2024", NAMELESS)
    doc = codemeta(db, swhid, tmp_path / "codemeta.json")
    assert doc["name"] == "field-notes-2024"
    assert "author" not in doc and "version" not in doc
    assert doc["review"]["name"] == f"RRS assessment of field-notes-2024 ({swhid})"
    assert str(tmp_path) not in json.dumps(doc)  # the local path stays local


def test_a_harvested_deposit_keeps_its_title_and_record(tmp_path):
    db, swhid = scored(tmp_path, "checkout", R_PACKAGE)
    with Store(db) as store:
        titled = store.upsert_deposit("zenodo", "77", version_doi="10.5281/zenodo.77", title="Survey tools v1.4",
                                      creators=[{"name": "Silva, Ana"}], license="GPL-3.0-only")
        store.link_deposit(titled, store.find_snapshot(swhid).id)
    doc = codemeta(db, "10.5281/zenodo.77", tmp_path / "codemeta.json")
    assert doc["name"] == "Survey tools v1.4"
    assert doc["author"] == [{"@type": "Person", "name": "Silva, Ana"}]
    assert doc["license"] == "https://spdx.org/licenses/GPL-3.0-only"
    assert "version" not in doc
    with Store(db) as store:
        untitled = store.upsert_deposit("zenodo", "78", version_doi="10.5281/zenodo.78")
        store.link_deposit(untitled, store.find_snapshot(swhid).id)
    assert codemeta(db, "10.5281/zenodo.78", tmp_path / "untitled.json")["name"] == "tidysurvey"


def test_the_report_labels_deposits_and_local_trees_by_their_names(tmp_path):
    db, named = scored(tmp_path, "checkout", R_PACKAGE)
    _db, nameless = scored(tmp_path, "plain", NAMELESS)
    with Store(db) as store:
        untitled = store.upsert_deposit("zenodo", "78", version_doi="10.5281/zenodo.78")
        store.link_deposit(untitled, store.find_snapshot(named).id)
        items = load_collection(store, load_rubric("default")).items
    assert [(i.source, i.label) for i in items] == [
        ("zenodo", "tidysurvey"),
        ("local", str((tmp_path / "plain").resolve())),
    ]
    assert [i.swhid for i in items if i.source == "local"] == [nameless]


# --------------------------------------------------------------------------- migration


def test_rows_stored_before_m007_have_null_and_still_export(tmp_path):
    db, swhid = scored(tmp_path, "checkout", R_PACKAGE)
    # The database as m006 left it: no declared column, m007 not recorded.
    conn = sqlite3.connect(db)
    conn.execute("ALTER TABLE snapshots DROP COLUMN declared")
    conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm007_declared_metadata'")
    conn.commit()
    measured_at = conn.execute("SELECT group_concat(measured_at) FROM measurements").fetchone()[0]
    conn.close()
    with Store(db) as store:
        assert store.schema()[-1]["name"] == "m007_declared_metadata"
        assert store.conn.execute("SELECT declared FROM snapshots").fetchall() == [(None,)]
        assert store.load_measurements(store.find_snapshot(swhid).id).declared is None
    doc = codemeta(db, swhid, tmp_path / "old.json")
    assert doc["name"] == "checkout"
    assert "author" not in doc
    # Scored again: the stored measurements serve, and the record is filled in.
    assert api.score_path(tmp_path / "checkout", "default", db=db).result["rrs"] == doc["review"]["schema:reviewRating"]["schema:ratingValue"]
    with Store(db) as store:
        assert store.conn.execute("SELECT group_concat(measured_at) FROM measurements").fetchone()[0] == measured_at
    doc = codemeta(db, swhid, tmp_path / "new.json")
    assert doc["name"] == "tidysurvey"
    assert doc["author"] == [ANA, BO]


def test_the_declared_column_holds_json_or_null(tmp_path):
    db, _swhid = scored(tmp_path, "checkout", NAMELESS)
    with Store(db) as store:
        for text in ('{"name": "x"}', None):
            with store.write() as conn:
                conn.execute("UPDATE snapshots SET declared = ?", (text,))
        with pytest.raises(sqlite3.IntegrityError), store.write() as conn:
            conn.execute("UPDATE snapshots SET declared = 'not json'")
