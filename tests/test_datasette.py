"""The store in Datasette, on the demo database (the nightly run against the replayed
Zenodo and Software Heritage, with two recorded outcomes; tests/demo_store.py) served by
datasette's own test client and by the command ``reproscore db datasette`` prints; and
the SQL of docs/store.md run on a populated store.

The bundled metadata describes every table, view and column from docs/store.md, shows
foreign keys by their labels (SWHIDs, titles, rubric names), and each canned query
returns rows on the demo database.
"""

from __future__ import annotations

import asyncio
import json
import re
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path

import demo_store
import pytest
import synthetic_collection
from click.testing import CliRunner
from datasette.app import Datasette

from reproscore import api
from reproscore import datasette as ds_meta
from reproscore.cli import cli
from reproscore.store import TABLES, Store

ROOT = Path(__file__).resolve().parents[1]
VIEWS = ("snapshot_scores", "deposit_scores")


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory) -> Path:
    return demo_store.build(tmp_path_factory.mktemp("datasette"))


def get(db: Path, *paths: str, metadata: dict | None = None) -> list:
    """Responses of datasette (its test client) serving ``db`` with ``metadata``."""

    async def run():
        instance = Datasette([str(db)], metadata=metadata or ds_meta.metadata_for(db.stem))
        await instance.invoke_startup()
        return [await instance.client.get(path) for path in paths]

    return asyncio.run(run())


def query(db: Path, sql: str, params=()) -> list[tuple]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


# --------------------------------------------------------------------------- the metadata


def test_the_bundled_metadata_is_generated_from_the_store_doc():
    text = (ROOT / "docs" / "store.md").read_text(encoding="utf-8")
    assert ds_meta.METADATA_PATH.read_text(encoding="utf-8") == ds_meta.metadata_json(text)
    bundled = json.loads(ds_meta.METADATA_PATH.read_text(encoding="utf-8"))
    assert list(bundled["databases"]) == ["reproscore"]


def test_every_table_view_and_column_is_described(tmp_path):
    metadata = ds_meta.metadata_for("fresh")["databases"]["fresh"]["tables"]
    db = tmp_path / "fresh.db"
    with Store(db):
        pass
    conn = sqlite3.connect(db)
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')"
                                        " AND name NOT LIKE 'sqlite_%' ORDER BY name")]  # fmt: skip
    assert set(names) == {*TABLES, *VIEWS, "_sqlite_migrations"}
    for name in names:
        assert metadata[name]["description"], name
        if name == "_sqlite_migrations":
            continue
        columns = [r[1] for r in conn.execute(f"PRAGMA table_info({name})")]
        assert list(metadata[name]["columns"]) == columns, name
        assert all(metadata[name]["columns"].values()), name
    conn.close()
    assert metadata["scores"]["columns"]["rrs"] == "The Reproducibility Readiness Score, clamped and rounded as the rubric says."
    for table, column in ds_meta.LABEL_COLUMNS.items():
        assert metadata[table]["label_column"] == column and column in metadata[table]["columns"]


# --------------------------------------------------------------------------- Datasette


def test_datasette_serves_every_table_and_view(demo_db):
    names = [*TABLES, *VIEWS]
    responses = get(demo_db, *(f"/demo/{name}.json" for name in names))
    for name, response in zip(names, responses, strict=True):
        assert response.status_code == 200, name
        count = query(demo_db, f"SELECT count(*) FROM {name}")[0][0]
        assert response.json()["filtered_table_rows_count"] == count, name
    counts = dict(zip(names, (r.json()["filtered_table_rows_count"] for r in responses), strict=True))
    assert counts["deposits"] == 8 and counts["snapshots"] == 5 and counts["deposit_scores"] == 7
    # The descriptions from docs/store.md are on the pages.
    page, = get(demo_db, "/demo/scores")
    assert "The Reproducibility Readiness Score, clamped and rounded as the rubric says." in page.text


def test_foreign_keys_show_swhids_titles_and_rubric_names(demo_db):
    scores, links = get(demo_db, "/demo/scores.json?_labels=on&_shape=array&_size=max",
                        "/demo/deposit_snapshots.json?_labels=on&_shape=array&_size=max")
    swhids = dict(query(demo_db, "SELECT id, swhid FROM snapshots"))
    titles = dict(query(demo_db, "SELECT id, title FROM deposits"))
    rows = scores.json()
    assert len(rows) == 5
    for row in rows:
        assert row["snapshot_id"] == {"value": row["snapshot_id"]["value"], "label": swhids[row["snapshot_id"]["value"]]}
        assert row["rubric_id"]["label"] == "default"
    for row in links.json():
        deposit = row["deposit_id"]["value"]
        assert row["deposit_id"]["label"] == titles[deposit]  # None for an origin without a title
        assert row["snapshot_id"]["label"] == swhids[row["snapshot_id"]["value"]]
    page, = get(demo_db, "/demo/deposit_snapshots")
    assert "demo-lab/snakemake-rnaseq: v1.0.1" in page.text and swhids[1] in page.text


def test_every_canned_query_returns_rows_on_the_demo_database(demo_db):
    names = list(ds_meta.QUERIES)
    responses = get(demo_db, *(f"/demo/{name}.json?_shape=array&rubric=" for name in names))
    results = {}
    for name, response in zip(names, responses, strict=True):
        assert response.status_code == 200, (name, response.text[:300])
        results[name] = response.json()
        assert results[name], f"canned query {name} returned no row"
    # Exact values, against SQL of the tables themselves.
    coverage = {(r["source"], r["status"]): r["deposits"] for r in results["coverage"]}
    assert coverage == {("swh", "scored"): 2, ("zenodo", "scored"): 5, ("zenodo", "withdrawn"): 1,
                        ("local (not harvested)", "scored from a path"): 0}
    scored = query(demo_db, "SELECT d.id, sc.rrs FROM deposits d JOIN deposit_snapshots ds ON ds.deposit_id = d.id"
                            " JOIN scores sc ON sc.snapshot_id = ds.snapshot_id ORDER BY d.id")  # fmt: skip
    rrs = [value for _, value in scored]
    bands = {}
    for value in rrs:
        bands[min(int(value // 10), 9) * 10] = bands.get(min(int(value // 10), 9) * 10, 0) + 1
    assert {r["band_from"]: r["deposits"] for r in results["rrs_distribution"]} == bands
    assert results["category_profile"][0]["deposits"] == 7
    assert results["category_profile"][0]["mean_rrs"] == round(sum(rrs) / len(rrs), 2)
    assert [r["rrs"] for r in results["need_work"]] == sorted(rrs)
    assert results["need_work"][0]["title"] == "demo-lab/legacy-scripts: v0.1"
    assert [(r["concept_doi"], r["versions"], r["first_version"], r["last_version"], r["change"])
            for r in results["versions"]] == [("10.5281/zenodo.9100000", 2, "v1.0.0", "v1.0.1", 0.0)]
    gaps = [(r["title"], r["rrs"], r["ros"], r["gap"], r["failure_class"]) for r in results["outcome_gap"]]
    assert gaps[:2] == [("demo-lab/snakemake-rnaseq: v1.0.0", 93.91, 14.29, 79.62, "install_dep"),
                        ("demo-lab/snakemake-rnaseq: v1.0.1", 93.91, 14.29, 79.62, "install_dep")]
    # notebook-ml-study: A1 50 -> 0 (its README title names the data, §0.2.6: no section), A raw
    # 70 -> 60, gated A (above tau) 0.25 * 10 = 2.50 lower: RRS 36.85 -> 34.35, gap -65.65
    assert len(gaps) == 4 and gaps[3][:4] == ("demo-lab/notebook-ml-study: v0.3.0", 34.35, 100.0, -65.65)
    assert [(r["source_id"], r["status"], r["stage"], r["message"]) for r in results["not_scored"]] == [
        ("9100005", "withdrawn", "withdrawn", "Retracted by the creators")]
    applies = {r["metric_id"]: r["applies"] for r in results["submetrics_falling_short"]}
    assert len(applies) == 26
    assert applies == dict(query(demo_db, "SELECT metric_id, sum(applicable) FROM measurements WHERE is_current"
                                          " GROUP BY metric_id"))  # fmt: skip
    nights = results["nights"]
    assert [(r["night"], r["deposits"], r["scored"], r["withdrawn"]) for r in nights] == \
        query(demo_db, "SELECT substr(processed_at, 1, 10), count(*), sum(status = 'scored'), sum(withdrawn)"
                       " FROM deposits WHERE processed_at IS NOT NULL GROUP BY 1 ORDER BY 1")  # fmt: skip
    # A rubric parameter selects another rubric's scores.
    empty, = get(demo_db, "/demo/category_profile.json?_shape=array&rubric=bioinformatics-v1")
    assert empty.json()[0]["deposits"] == 0


def test_db_datasette_prints_a_command_that_serves_the_store(demo_db, tmp_path):
    # Named reproscore.db: the bundled metadata serves as it is, nothing is written.
    db = tmp_path / "reproscore.db"
    db.write_bytes(demo_db.read_bytes())
    result = CliRunner().invoke(cli, ["db", "datasette", "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert result.output == f"datasette {db} --metadata {ds_meta.METADATA_PATH}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reproscore.db"]
    # Another name: the metadata under that name is written beside it.
    other = tmp_path / "demo_copy.db"
    other.write_bytes(demo_db.read_bytes())
    result = CliRunner().invoke(cli, ["db", "datasette", "--db", str(other)])
    assert result.exit_code == 0, result.output
    written = tmp_path / "demo_copy.datasette.json"
    command = result.output.splitlines()[-1]
    assert command == f"datasette {shlex.quote(str(other))} --metadata {shlex.quote(str(written))}"
    assert json.loads(written.read_text(encoding="utf-8")) == ds_meta.metadata_for("demo_copy")
    # The command, run (datasette's --get: one request, no server), serves a canned query.
    argv = shlex.split(command)
    assert argv[0] == "datasette"
    run = subprocess.run([sys.executable, "-m", "datasette", *argv[1:], "--get",
                          "/demo_copy/outcome_gap.json?_shape=array&rubric="],
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert [r["ros"] for r in json.loads(run.stdout)] == [14.29, 14.29, 14.29, 100.0]
    # Not a store: refused, nothing written.
    missing = CliRunner().invoke(cli, ["db", "datasette", "--db", str(tmp_path / "none.db")])
    assert missing.exit_code != 0 and not (tmp_path / "none.datasette.json").exists()


# --------------------------------------------------------------------------- docs/store.md


def _doc_queries() -> list[str]:
    text = (ROOT / "docs" / "store.md").read_text(encoding="utf-8")
    statements = []
    for block in re.findall(r"```sql\n(.*?)```", text, flags=re.S):
        for statement in block.split(";"):
            sql = "\n".join(line for line in statement.splitlines() if not line.strip().startswith("--")).strip()
            if sql:
                statements.append(sql)
    return statements


@pytest.fixture(scope="module")
def populated(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("store-doc") / "collection.db"
    synthetic_collection.build(db, zenodo=60, swh=15, local=3, nights=3, outcomes_every=3)
    api.rescore(db, "bioinformatics-v1")
    return db


def test_every_query_of_the_store_doc_runs_and_returns_rows(populated):
    statements = _doc_queries()
    assert len(statements) == 6
    for sql in statements:
        rows = query(populated, sql)
        assert rows, sql
    # The buckets are tens (the last includes 100), not one per integer value.
    bucket_sql = next(s for s in statements if "bucket" in s)
    values = [v for (v,) in query(populated, "SELECT value FROM measurements WHERE metric_id = 'dep_pinning'"
                                             " AND is_current AND value IS NOT NULL")]  # fmt: skip
    expected: dict[int, int] = {}
    for v in values:
        expected[min(int(v // 10), 9) * 10] = expected.get(min(int(v // 10), 9) * 10, 0) + 1
    assert dict(query(populated, bucket_sql)) == expected
    assert all(bucket % 10 == 0 for bucket in expected) and len(expected) <= 10
    # What the old query gave: SQLite's round() with negative digits rounds to integers.
    assert query(populated, "SELECT round(37.0, -1), round(35.4, -1)") == [(37.0, 35.0)]
