"""The collection audit report (``reproscore report``), end to end on a real store.

A synthetic collection (tests/synthetic_collection.py: a few hundred deposits from
Zenodo and Software Heritage, local trees, communities, six nights, versions of the same
concept DOI and origin) is reported on; the HTML is parsed back and its numbers are
checked against what the database says, recomputed here independently: scores with
``scoring.aggregate.score`` from ``Store.load_measurements``, counts with SQL, means with
``statistics.fmean``, percentiles with numpy, ranks and rank correlations with scipy.
Every CSV file is checked against the table it belongs to.
"""

from __future__ import annotations

import csv
import json
import statistics
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pytest
import report_html
import scipy.stats
import synthetic_collection
from click.testing import CliRunner

from reproscore import api
from reproscore.cli import cli
from reproscore.report import Filters, load_collection, write_report
from reproscore.store import Store
from scoring.aggregate import IncompleteMeasurements, score
from scoring.catalog import CATEGORY_KEYS, METRIC_IDS, METRICS
from scoring.fixes import rank_fixes
from scoring.rubric import load_rubric

DEFAULT = load_rubric("default")
BIO = load_rubric("bioinformatics-v1")


def f2(x: float) -> str:
    return f"{x:.2f}"


def f1(x: float) -> str:
    return f"{x:.1f}"


def pct(part: int, whole: int) -> str:
    return f1(100.0 * part / whole)


# --------------------------------------------------------------------------- fixtures


@dataclass
class Expected:
    """One deposit or local tree as the database says, scored independently."""

    key: str  # source:source_id
    anchor: str
    source: str
    title: str
    state: str
    night: str
    communities: list[str]
    snapshot_id: int | None
    measurements: object = None
    first: object = None  # Score under DEFAULT
    second: object = None  # Score under BIO


def expected_items(db: Path) -> list[Expected]:
    out = []
    with Store(db, create=False) as st:
        conn = st.conn
        failed = {r[0] for r in conn.execute("SELECT deposit_id FROM failures WHERE deposit_id IS NOT NULL")}
        rows = conn.execute(
            "SELECT id, source, source_id, title, status, withdrawn, communities, processed_at, first_seen_at"
            " FROM deposits ORDER BY id"
        ).fetchall()
        for did, source, source_id, title, status, withdrawn, communities, processed, first_seen in rows:
            found = conn.execute(
                "SELECT snapshot_id FROM deposit_snapshots WHERE deposit_id = ? ORDER BY seen_at DESC, rowid DESC LIMIT 1",
                (did,),
            ).fetchone()
            out.append(Expected(f"{source}:{source_id}", f"deposit-{did}", source, title or source_id, status or "",
                                (processed or first_seen)[:10], json.loads(communities or "[]"),
                                found[0] if found else None))  # fmt: skip
            out[-1].withdrawn, out[-1].failed_before = bool(withdrawn), did in failed
        for sid, swhid, label, fetched in conn.execute(
            "SELECT id, swhid, label, fetched_at FROM snapshots WHERE source = 'local'"
            " AND id NOT IN (SELECT snapshot_id FROM deposit_snapshots) ORDER BY id"
        ):
            e = Expected(f"local:{swhid}", f"snapshot-{sid}", "local", label, "", fetched[:10], [], sid)
            e.withdrawn, e.failed_before = False, False
            out.append(e)
        for e in out:
            if e.snapshot_id is not None:
                e.measurements = st.load_measurements(e.snapshot_id)
                try:
                    e.first, e.second = score(e.measurements, DEFAULT), score(e.measurements, BIO)
                except IncompleteMeasurements:
                    pass
            status = e.state
            if e.first is not None:
                e.state = "scored"
            elif e.withdrawn or status == "withdrawn":
                e.state = "withdrawn"
            elif status == "failed" or (status == "" and e.failed_before and e.source != "local"):
                e.state = "failed"
            elif e.snapshot_id is not None:
                e.state = "incomplete"
            else:
                e.state = "pending"
    return out


@dataclass
class Made:
    db: Path
    out: Path
    html: str
    parsed: report_html.ReportParser
    items: list[Expected]
    built: synthetic_collection.Built

    @property
    def scored(self) -> list[Expected]:
        return [e for e in self.items if e.state == "scored"]

    def table(self, table_id: str) -> report_html.ParsedTable:
        return self.parsed.tables[f"table-{table_id}"]

    def csv(self, table_id: str) -> list[list[str]]:
        with open(self.out / "tables" / f"{table_id}.csv", encoding="utf-8", newline="") as handle:
            return list(csv.reader(handle))


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Made:
    base = tmp_path_factory.mktemp("report")
    db = base / "collection.db"
    built = synthetic_collection.build(db)
    out = base / "out"
    result = api.collection_report(db, out, rubric="default", compare_rubric="bioinformatics-v1")
    assert result.index == out / "index.html"
    text = result.index.read_text(encoding="utf-8")
    return Made(db, out, text, report_html.parse(text), expected_items(db), built)


# --------------------------------------------------------------------------- the numbers


def test_the_synthetic_collection_has_what_the_report_needs(made):
    sources = {e.source for e in made.scored}
    assert sources == {"zenodo", "swh", "local"}
    assert 250 <= len(made.items) <= 400
    assert {e.state for e in made.items} >= {"scored", "failed", "pending", "withdrawn"}
    assert len({e.night for e in made.scored}) == made.built.nights
    assert len({c for e in made.scored for c in e.communities}) >= 4


def test_coverage_counts_match_the_database(made):
    table = made.table("coverage")
    assert table.headers == ["Source", "Harvested", "Scored", "Failed", "Pending", "Withdrawn", "Incomplete", "Scored (%)"]
    states = ("scored", "failed", "pending", "withdrawn", "incomplete")
    harvested = [e for e in made.items if e.source != "local"]
    expected = []
    for source in ("zenodo", "swh"):
        mine = [e for e in harvested if e.source == source]
        counts = [sum(1 for e in mine if e.state == s) for s in states]
        expected.append([source, str(len(mine)), *map(str, counts), pct(counts[0], len(mine))])
    total = [sum(1 for e in harvested if e.state == s) for s in states]
    expected.append(["all", str(len(harvested)), *map(str, total), pct(total[0], len(harvested))])
    assert table.rows == expected
    # Harvested deposits per source are the deposits table's rows; local trees are not among them.
    with Store(made.db, create=False) as st:
        by_source = dict(st.conn.execute("SELECT source, count(*) FROM deposits GROUP BY source"))
    assert {row[0]: int(row[1]) for row in table.rows[:2]} == by_source
    assert int(table.rows[-1][1]) == sum(by_source.values())


def test_local_trees_are_listed_apart_from_harvested_deposits(made):
    with Store(made.db, create=False) as st:
        local = st.conn.execute(
            "SELECT count(*) FROM snapshots WHERE source = 'local' AND deposit_id IS NULL"
            " AND id NOT IN (SELECT snapshot_id FROM deposit_snapshots)"
        ).fetchone()[0]
    assert local == made.built.local == 10
    scored = sum(1 for e in made.items if e.source == "local" and e.state == "scored")
    table = made.table("local_trees")
    assert table.headers == ["Trees", "Scored", "Incomplete", "Scored (%)"]
    assert table.rows == [[str(local), str(scored), str(local - scored), pct(scored, local)]]
    assert "local" not in [row[0] for row in made.table("coverage").rows]
    intro = made.html.split('id="collection-h"')[1].split("</p>")[0]
    harvested = sum(1 for e in made.items if e.source != "local")
    assert f"{harvested} harvested deposits in the report" in intro
    assert f"Apart from them, {local} trees scored from a local path ({scored} scored)." in intro


def test_failures_by_source_stage_and_error_class(made):
    with Store(made.db, create=False) as st:
        rows = st.conn.execute(
            "SELECT d.source, f.stage, f.error_class, count(DISTINCT f.deposit_id), sum(f.attempts)"
            " FROM failures f JOIN deposits d ON d.id = f.deposit_id GROUP BY 1, 2, 3"
        ).fetchall()
    expected = sorted(([s, st_, ec, str(n), str(a)] for s, st_, ec, n, a in rows),
                      key=lambda r: (-int(r[3]), r[0], r[1], r[2]))  # fmt: skip
    assert [row[:5] for row in made.table("failures").rows] == expected
    assert {r[1] for r in expected} >= {"download", "extract", "files", "score", "resolve"}


def test_rrs_distribution_and_summary(made):
    rrs = [e.first.rrs for e in made.scored]
    bands = [0] * 10
    for value in rrs:
        bands[min(int(value // 10), 9)] += 1
    table = made.table("rrs_distribution")
    assert [r[1] for r in table.rows] == [str(b) for b in bands]
    assert [r[2] for r in table.rows] == [pct(b, len(rrs)) for b in bands]
    row = made.table("rrs_summary").rows[0]
    q = np.percentile(np.array(rrs), [10, 25, 50, 75, 90], method="linear")
    assert row == ["all", str(len(rrs)), f2(statistics.fmean(rrs)), f2(min(rrs)), *map(f2, q), f2(max(rrs))]
    for source_row in made.table("rrs_summary").rows[1:]:
        mine = [e.first.rrs for e in made.scored if e.source == source_row[0]]
        assert source_row[1:3] == [str(len(mine)), f2(statistics.fmean(mine))]


def test_category_profile_and_penalty_shares(made):
    scored = made.scored
    n = len(scored)
    rows = made.table("categories").rows
    for key, row in zip(CATEGORY_KEYS, rows, strict=True):
        raws = [e.first.categories[key].raw for e in scored]
        points = [e.first.categories[key].gated for e in scored]
        rule = DEFAULT.categories[key]
        below = sum(1 for r in raws if r < rule.tau)
        assert row[0] == key
        assert row[4] == f2(statistics.fmean(raws))
        assert row[6] == f2(float(np.percentile(raws, 50)))
        assert row[8:11] == [str(below), pct(below, n), f2(statistics.fmean(points))]
    for row, penalty in zip(made.table("penalties").rows, DEFAULT.penalties, strict=True):
        hit = sum(1 for e in scored if any(p.id == penalty.id and p.fired for p in e.first.penalties))
        assert row == [penalty.id, f"category {penalty.target}" if penalty.target_kind == "category" else penalty.target,
                       f"{penalty.below:g}", f"{penalty.points:g}", str(hit), pct(hit, n)]  # fmt: skip


def test_per_source_and_per_community(made):
    rows = {r[0]: r for r in made.table("communities").rows}
    members: dict[str, list[Expected]] = {}
    for e in made.scored:
        for c in e.communities or ["(none)"]:
            members.setdefault(c, []).append(e)
    assert set(rows) == set(members)
    order = [r[0] for r in made.table("communities").rows]
    assert order == sorted(members, key=lambda c: (-len(members[c]), c))
    for name, mine in members.items():
        row = rows[name]
        assert row[1] == str(len(mine))
        assert row[2] == f2(statistics.fmean(e.first.rrs for e in mine))
        for i, key in enumerate(CATEGORY_KEYS):
            assert row[4 + i] == f2(statistics.fmean(e.first.categories[key].raw for e in mine))
        seed = sum(1 for e in mine if any(p.id == "seed" and p.fired for p in e.first.penalties))
        assert row[-1] == pct(seed, len(mine))
    assert [r[0] for r in made.table("sources").rows] == ["zenodo", "swh", "local"]


def test_submetrics_most_often_failed(made):
    rows = made.table("submetrics").rows
    assert len(rows) == 26
    for row in rows:
        mid = row[1]
        app = [e.measurements[mid] for e in made.scored if e.measurements[mid].applicable]
        short = sum(1 for m in app if m.value < 50)
        zero = sum(1 for m in app if m.value == 0)
        assert row[4:9] == [str(len(app)), str(short), pct(short, len(app)), str(zero), pct(zero, len(app))]
    shares = [float(r[6]) for r in rows]
    assert shares == sorted(shares, reverse=True)


def test_deposits_most_in_need_of_work_with_their_top_three_fixes(made):
    position = {e.key: i for i, e in enumerate(made.items)}
    ranked = sorted(made.scored, key=lambda e: (e.first.rrs, e.first.rrs_unclamped, position[e.key]))[:25]
    table = made.table("need_work")
    assert len(table.rows) == 25
    for rank, (row, links, e) in enumerate(zip(table.rows, table.links, ranked, strict=True), start=1):
        assert row[0] == str(rank)
        assert row[1] == e.title and links[1] == f"#{e.anchor}"
        assert row[3] == f2(e.first.rrs)
        fixes = rank_fixes(e.measurements, DEFAULT)[:3]
        assert fixes, "a deposit in need of work has fixes"
        for k, fix in enumerate(fixes):
            assert row[5 + 2 * k] == f"{fix['metric_id']}: {fix['fix']}"
            assert row[6 + 2 * k] == f2(fix["gain"])
        # The link leads to the deposit's own section, with its profile and fixes.
        assert e.anchor in made.parsed.ids
        fixes_table = made.parsed.tables[f"{e.anchor}-deposit_fixes"]
        assert [r[1] for r in fixes_table.rows] == [f["metric_id"] for f in rank_fixes(e.measurements, DEFAULT)[:5]]
        profile = made.parsed.tables[f"{e.anchor}-deposit_profiles"]
        assert [r[2] for r in profile.rows] == [f2(e.first.categories[k].raw) for k in CATEGORY_KEYS]


def test_every_link_in_a_table_leads_to_a_section_of_the_page(made):
    ids = set(made.parsed.ids)
    hrefs = [link for t in made.parsed.tables.values() for row in t.links for link in row if link]
    assert hrefs
    for href in hrefs:
        assert href.startswith("#") and href[1:] in ids, href
    assert len(ids) == len(made.parsed.ids), "ids are unique"


def test_per_night_trend(made):
    table = made.table("nights")
    by_night: dict[str, list[Expected]] = {}
    for e in made.items:
        by_night.setdefault(e.night, []).append(e)
    assert [r[0] for r in table.rows] == sorted(by_night)
    for row in table.rows:
        mine = by_night[row[0]]
        scored = [e.first.rrs for e in mine if e.state == "scored"]
        assert row[1:6] == ["1" if row[0] <= "2026-10-06" else "0", str(len(mine)), str(len(scored)),
                            str(sum(1 for e in mine if e.state == "failed")), f2(statistics.fmean(scored))]  # fmt: skip


def _expected_series(made: Made) -> dict[str, list[float]]:
    """key → RRS of its versions, oldest first (consecutive visits of one tree merged)."""
    series: dict[str, list[tuple]] = {}
    with Store(made.db, create=False) as st:
        for _source, key_doi, origin, pub, version, did, sid in st.conn.execute(
            "SELECT d.source, d.concept_doi, d.origin_url, d.publication_date, d.version, d.id, ds.snapshot_id"
            " FROM deposits d JOIN deposit_snapshots ds ON ds.deposit_id = d.id WHERE d.source = 'zenodo'"
        ):
            e = next(x for x in made.items if x.anchor == f"deposit-{did}")
            if e.state == "scored":
                series.setdefault(key_doi or origin, []).append(((pub, version, did), sid, e.first.rrs))
        for origin, date, visit, sid in st.conn.execute("SELECT origin_url, date, visit, snapshot_id FROM swh_visits"):
            measured = score(st.load_measurements(sid), DEFAULT)
            series.setdefault(origin, []).append(((date, "", visit), sid, measured.rrs))
    out = {}
    for key, versions in series.items():
        versions.sort(key=lambda v: v[0])
        merged = []
        for _, sid, rrs in versions:
            if merged and merged[-1][0] == sid and key.startswith("https://github.com/swh-org/"):
                continue
            merged.append((sid, rrs))
        if len(merged) >= 2:
            out[key] = [rrs for _, rrs in merged]
    return out


def test_versions_of_the_same_concept_doi_or_origin(made):
    expected = _expected_series(made)
    rows = made.csv("series")[1:]
    assert {r[0] for r in rows} == set(expected)
    for row in rows:
        scores_ = expected[row[0]]
        assert row[3] == str(len(scores_))
        assert row[6:9] == [f2(scores_[0]), f2(scores_[-1]), f"{scores_[-1] - scores_[0]:+.2f}"]
    summary = made.table("versions_summary").rows[-1]
    deltas = [s[-1] - s[0] for s in expected.values()]
    assert summary[:5] == ["all", str(len(deltas)), str(sum(d > 0 for d in deltas)), str(sum(d == 0 for d in deltas)),
                           str(sum(d < 0 for d in deltas))]  # fmt: skip
    assert summary[5] == f"{statistics.fmean(deltas):+.2f}"
    assert any(k.startswith("https://github.com/swh-org/") for k in expected), "SWH visit histories are series"
    assert any(k.startswith("10.5281/") for k in expected), "concept DOIs are series"


# --------------------------------------------------------------------------- rubric comparison


def test_rubric_comparison_side_by_side(made):
    identity = made.table("rubric_identity").rows
    assert identity[2] == ["sha256", DEFAULT.sha256, BIO.sha256]
    cats = made.table("rubric_categories").rows
    assert [r[1:3] for r in cats] == [[f"{DEFAULT.categories[k].weight:g}", f"{BIO.categories[k].weight:g}"] for k in CATEGORY_KEYS]
    assert [r[0] for r in made.table("rubric_penalties").rows] == [p.id for p in DEFAULT.penalties]
    assert "table-rubric_submetric_weights" not in made.parsed.tables  # identical: a sentence says so
    assert "Every within-category sub-metric weight is the same in both rubrics." in made.html


def test_rank_correlations_match_scipy(made):
    first = np.array([e.first.rrs for e in made.scored])
    second = np.array([e.second.rrs for e in made.scored])
    row = made.table("rank_correlation").rows[0]
    rho = scipy.stats.spearmanr(first, second).statistic
    tau = scipy.stats.kendalltau(first, second).statistic  # tau-b
    assert row[0] == str(len(first))
    assert abs(float(row[1]) - rho) <= 0.5e-4 + 1e-12 and row[1] == f"{rho:.4f}"
    assert abs(float(row[2]) - tau) <= 0.5e-4 + 1e-12 and row[2] == f"{tau:.4f}"
    delta = second - first
    assert row[3:9] == [f2(statistics.fmean(first)), f2(statistics.fmean(second)), f"{statistics.fmean(delta):+.2f}",
                        str(int((delta > 0).sum())), str(int((delta < 0).sum())), str(int((delta == 0).sum()))]  # fmt: skip


def test_movers_and_what_drives_them(made):
    first = np.array([e.first.rrs for e in made.scored])
    second = np.array([e.second.rrs for e in made.scored])
    rank_a = scipy.stats.rankdata(-first, method="average")
    rank_b = scipy.stats.rankdata(-second, method="average")
    move = rank_a - rank_b
    position = {e.key: i for i, e in enumerate(made.items)}
    order = sorted(range(len(first)), key=lambda k: (-abs(move[k]), -abs(second[k] - first[k]), position[made.scored[k].key]))
    rows = made.table("movers").rows
    terms_rows = made.table("mover_terms").rows
    assert len(rows) == len(terms_rows) == 20
    for row, trow, k in zip(rows, terms_rows, order[:20], strict=True):
        e = made.scored[k]
        assert row[0] == trow[0] == e.title
        assert row[2:8] == [f2(first[k]), f2(second[k]), f"{second[k] - first[k]:+.2f}", f1(rank_a[k]), f1(rank_b[k]), f1(move[k])]
        terms = [e.second.categories[c].gated - e.first.categories[c].gated for c in CATEGORY_KEYS]
        pen = sum(p.points for p in e.first.penalties) - sum(p.points for p in e.second.penalties)
        # What clamping (and rounding) takes up: the rest of the change.
        clamping = (e.second.rrs - e.second.rrs_unclamped) - (e.first.rrs - e.first.rrs_unclamped)
        assert trow[1:] == [f"{t:+.2f}" for t in [second[k] - first[k], *terms, pen, clamping]]
        assert abs(sum(terms) + pen + clamping - (second[k] - first[k])) < 1e-9
        labels = [*CATEGORY_KEYS, "penalties"]
        values = [*terms, pen]
        d = second[k] - first[k]
        j = int(np.argmax(values)) if d > 0 else int(np.argmin(values)) if d < 0 else int(np.argmax(np.abs(values)))
        assert row[8] == (labels[j] if values[j] != 0 else "none")


def test_movers_explain_clamping(made, tmp_path):
    """Under a rubric that clamps the RRS to 40–70 the category changes no longer add up
    to the change of RRS; the clamping column says by how much, and each row adds up."""
    narrow = tmp_path / "narrow.yaml"
    narrow.write_text('schema: reproscore-rubric/2\nname: narrow-clamp\nversion: "1.0.0"\n'
                      "extends: default@1.0.0\nclamp: [40, 70]\n", encoding="utf-8")
    api.collection_report(made.db, tmp_path / "out", compare_rubric=narrow)
    parsed = report_html.parse((tmp_path / "out" / "index.html").read_text(encoding="utf-8"))
    table = parsed.tables["table-mover_terms"]
    assert table.headers == ["Deposit", "Change", "ΔE", "ΔA", "ΔD", "ΔC", "ΔS", "Δ penalties", "Δ clamping"]
    by_title = {e.title: e for e in made.scored}
    clamped = 0
    for row in table.rows:
        e = by_title[row[0]]
        unclamped = e.first.rrs_unclamped
        second = round(min(70.0, max(40.0, unclamped)), 2)
        assert row[1] == f"{second - e.first.rrs:+.2f}"
        # Same weights and gates: every category term is 0, the change is all clamping.
        assert row[2:8] == ["+0.00"] * 6
        assert row[8] == f"{(second - unclamped) - (e.first.rrs - unclamped):+.2f}"
        clamped += not 40.0 <= unclamped <= 70.0
    assert clamped > 0
    assert f"({clamped} of these {len(table.rows)} deposits are clamped under a rubric)" in table.caption
    assert "clamping the RRS to 0–100 (second rubric 40–70) and rounding it" in table.caption


def test_band_transitions_count_every_deposit(made):
    rows = made.table("band_transitions").rows
    matrix = [[int(x) for x in r[1:]] for r in rows]
    assert sum(map(sum, matrix)) == len(made.scored)
    expected = [[0] * 10 for _ in range(10)]
    for e in made.scored:
        expected[min(int(e.first.rrs // 10), 9)][min(int(e.second.rrs // 10), 9)] += 1
    assert matrix == expected


# --------------------------------------------------------------------------- CSV, scores, provenance


def test_every_csv_is_the_table_it_belongs_to(made):
    tables_dir = made.out / "tables"
    csv_files = {p.stem for p in tables_dir.glob("*.csv")}
    shown = {t[len("table-"):] for t in made.parsed.tables if t.startswith("table-")}
    kinds = ("deposit_profiles", "deposit_fixes", "deposit_submetrics", "deposit_history", "deposit_failures")
    per_deposit = {k for k in kinds if any(t.endswith("-" + k) for t in made.parsed.tables)}
    assert {"deposit_profiles", "deposit_fixes", "deposit_submetrics", "deposit_history"} <= per_deposit
    assert csv_files == shown | per_deposit | {"scores"}
    for table_id in shown:
        rows = made.csv(table_id)
        table = made.table(table_id)
        assert len(rows[0]) == len(table.headers), table_id
        # An empty cell of the CSV is shown as an em dash in a numeric column.
        body = [[cell or "—" for cell in row] for row in rows[1:]]
        table.rows = [[cell or "—" for cell in row] for row in table.rows]
        if "rows; all in the CSV)" in table.caption:
            assert body[: len(table.rows)] == table.rows and len(body) > len(table.rows), table_id
        else:
            assert body == table.rows, table_id
    # The per-deposit CSV files hold every section's rows (the deposit column first).
    sections = [i for i in made.parsed.ids if i.startswith(("deposit-", "snapshot-")) and "-h" not in i[-2:]]
    for kind in per_deposit:
        rows = made.csv(kind)[1:]
        for anchor in sections:
            table = made.parsed.tables.get(f"{anchor}-{kind}")
            mine = [[cell or "—" for cell in r[1:]] for r in rows if r[0] == anchor]
            assert mine == ([[cell or "—" for cell in r] for r in table.rows] if table else []), (kind, anchor)


def test_the_links_under_the_tables_name_the_csv_files(made):
    csv_links = sorted(v for tag, attr, v in made.parsed.urls if v.startswith("tables/"))
    assert csv_links
    for link in csv_links:
        assert (made.out / link).is_file()


def test_scores_csv_holds_every_scored_deposit_at_full_precision(made):
    rows = made.csv("scores")
    header, body = rows[0], rows[1:]
    by_key = {e.key: e for e in made.scored}
    assert len(body) == len(by_key)
    for row in body:
        data = dict(zip(header, row, strict=True))
        e = by_key[data["item"]]
        assert float(data["rrs"]) == e.first.rrs and float(data["rrs_second"]) == e.second.rrs
        assert float(data["rrs_unclamped"]) == e.first.rrs_unclamped
        assert [float(data[f"{k.lower()}_raw"]) for k in CATEGORY_KEYS] == [e.first.categories[k].raw for k in CATEGORY_KEYS]
        assert data["penalties"].split(";") if data["penalties"] else [] == [p.id for p in e.first.penalties if p.fired]


def test_stored_scores_are_used_and_missing_or_stale_ones_computed(made):
    with Store(made.db, create=False) as st:
        stored = st.conn.execute(
            "SELECT count(*) FROM scores sc JOIN snapshots s ON s.id = sc.snapshot_id"
            " WHERE sc.rubric_id = ? AND sc.detector_set_id = s.detector_set_id", (st.rubric_id(DEFAULT),),
        ).fetchone()[0]  # fmt: skip
    provenance = dict((r[0], r[1]) for r in made.table("provenance").rows)
    scored_snapshots = len({e.snapshot_id for e in made.items if e.state == "scored"})
    visits_only = _visit_only_snapshots(made)
    total = scored_snapshots + visits_only
    assert 0 < stored < total
    assert provenance["scores read from the store"] == str(stored)  # none stored under BIO
    assert provenance["scores computed from stored measurements"] == str(2 * total - stored)
    stale = made.built.stale_score_snapshot
    e = next(x for x in made.scored if x.snapshot_id == stale)
    row = next(r for r in made.csv("scores")[1:] if r[0] == e.key)
    assert float(row[6]) == e.first.rrs != 99.99


def _visit_only_snapshots(made: Made) -> int:
    current = {e.snapshot_id for e in made.items if e.state == "scored"}
    with Store(made.db, create=False) as st:
        visited = {r[0] for r in st.conn.execute("SELECT snapshot_id FROM swh_visits WHERE snapshot_id IS NOT NULL")}
    return len(visited - current)


def test_the_report_changes_nothing_in_the_database(made, tmp_path):
    def dump(path):
        import sqlite3

        conn = sqlite3.connect(path)
        try:
            return list(conn.iterdump())
        finally:
            conn.close()

    before = dump(made.db)
    api.collection_report(made.db, tmp_path / "again", compare_rubric="bioinformatics-v1")
    assert dump(made.db) == before


# --------------------------------------------------------------------------- determinism and the page itself


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_two_runs_give_byte_identical_files(made, tmp_path):
    api.collection_report(made.db, tmp_path / "a", compare_rubric="bioinformatics-v1")
    api.collection_report(made.db, tmp_path / "b", compare_rubric="bioinformatics-v1")
    a, b = _files(tmp_path / "a"), _files(tmp_path / "b")
    assert a == b
    assert a == _files(made.out)
    # A report written over an older one (another rubric pair) leaves no stale CSV.
    api.collection_report(made.db, tmp_path / "a")
    assert not (tmp_path / "a" / "tables" / "movers.csv").exists()


def test_the_page_is_self_contained(made):
    assert made.parsed.lang == "en"
    for tag in ("script", "link", "img", "iframe", "object", "embed", "video", "audio", "base"):
        assert tag not in made.parsed.tags, tag
    for tag, attr, value in made.parsed.urls:
        assert value.startswith("#") or value.startswith("tables/"), (tag, attr, value)
    assert "@import" not in made.html and "url(http" not in made.html and "@font-face" not in made.html
    assert "<!DOCTYPE svg" not in made.html and "<?xml" not in made.html


def test_the_page_is_accessible(made):
    headings = made.parsed.headings
    assert [h for h in headings if h[0] == "h1"] and sum(1 for h in headings if h[0] == "h1") == 1
    titles = [h[2] for h in headings if h[0] == "h2"]
    for title in ("Collection size and coverage", "Readiness (RRS) distribution", "Five-category profile",
                  "By source and by community", "Sub-metrics most often failed", "Deposits most in need of work",
                  "Trends: nights and versions", "Deposits", "About this report"):  # fmt: skip
        assert title in titles, title
    assert any(t.startswith("Rubric comparison") for t in titles)
    for table in made.parsed.tables.values():
        assert table.caption.strip(), table.id
        assert all(h for h in table.headers), table.id
    assert made.html.count("<th scope=\"col\">") >= sum(len(t.headers) for t in made.parsed.tables.values())
    assert len(made.parsed.svgs) >= 10
    for svg in made.parsed.svgs:
        assert svg.attrs.get("role") == "img"
        assert svg.attrs.get("aria-label"), svg.attrs
        assert svg.title.strip() and len(svg.desc) > 40
        assert "viewBox" in svg.attrs or "viewbox" in svg.attrs
    # Readable without colour: the figures are grey, their series hatched or marked.
    colours = set(__import__("re").findall(r"(?:fill|stroke):\s*(#[0-9a-f]{6})", made.html))
    greys = {c for c in colours if c[1:3] == c[3:5] == c[5:7]}
    non_grey = colours - greys - {"#0b3d91"}
    assert not non_grey, non_grey
    assert "<pattern" in made.html  # hatches


def test_the_rrs_figure_describes_its_numbers(made):
    svg = next(s for s in made.parsed.svgs if s.attrs.get("aria-describedby") == "fig-rrs-desc")
    counts = [r[1] for r in made.table("rrs_distribution").rows]
    assert svg.desc.endswith(", ".join(f"{lo}–{lo + 10}: {c}" for lo, c in zip(range(0, 100, 10), counts, strict=True)) + ".")


def test_text_from_the_database_is_escaped(made, tmp_path):
    hostile = '<script>alert("x")</script> & <img src=http://example.org/t.png>'
    db = tmp_path / "hostile.db"
    db.write_bytes(made.db.read_bytes())
    first = next(links[1] for links in made.table("need_work").links if links[1].startswith("#deposit-"))
    with Store(db) as st, st.write() as conn:
        conn.execute("UPDATE deposits SET title = ?, communities = ? WHERE id = ?",
                     (hostile, json.dumps(["<b>c</b>"]), int(first.split("-")[1])))  # fmt: skip
    text = api.collection_report(db, tmp_path / "out").index.read_text()
    assert "<script>" not in text and "<img" not in text and "<b>c</b>" not in text
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;img src=http://example.org/t.png&gt;" in text
    parsed = report_html.parse(text)
    assert hostile in [row[1] for row in parsed.tables["table-need_work"].rows]
    assert all(v.startswith(("#", "tables/")) for _, _, v in parsed.urls)


# --------------------------------------------------------------------------- selections, outcomes, CLI


def test_selection_by_source_community_and_night(made, tmp_path):
    api.collection_report(made.db, tmp_path / "swh", source="swh")
    parsed = report_html.parse((tmp_path / "swh" / "index.html").read_text())
    rows = parsed.tables["table-coverage"].rows
    assert [r[0] for r in rows] == ["swh", "all"]
    assert rows[0][1] == str(sum(1 for e in made.items if e.source == "swh"))
    assert "Selection: source swh." in (tmp_path / "swh" / "index.html").read_text()

    api.collection_report(made.db, tmp_path / "eco", community="ecology", since="2026-10-03")
    parsed = report_html.parse((tmp_path / "eco" / "index.html").read_text())
    mine = [e for e in made.items if "ecology" in e.communities and e.night >= "2026-10-03"]
    assert parsed.tables["table-coverage"].rows[-1][1] == str(len(mine))
    scored = [e.first.rrs for e in mine if e.state == "scored"]
    assert parsed.tables["table-rrs_summary"].rows[0][1:3] == [str(len(scored)), f2(statistics.fmean(scored))]
    assert all(r[0] >= "2026-10-03" for r in parsed.tables["table-nights"].rows)

    api.collection_report(made.db, tmp_path / "local", source="local")
    parsed = report_html.parse((tmp_path / "local" / "index.html").read_text())
    assert parsed.tables["table-coverage"].rows == [["all", "0", "0", "0", "0", "0", "0", "—"]]
    assert parsed.tables["table-local_trees"].rows == [["10", "10", "0", "100.0"]]


def test_outcome_data_is_shown_only_when_present(made, tmp_path):
    """No outcome in this store: no outcome section. A caller may still add outcome data
    to a loaded collection before writing it (tests/test_report_outcomes.py covers the
    outcomes the store holds)."""
    assert "Outcome data" not in made.html and "table-outcomes_summary" not in made.parsed.tables
    assert "ros" not in made.csv("scores")[0]
    with Store(made.db, create=False) as st:
        collection = load_collection(st, DEFAULT, filters=Filters(source="zenodo"))
        assert not collection.has_outcomes
        scored = collection.scored_items
        for k, item in enumerate(scored):
            if k % 3 == 0:
                collection.items[item.index] = replace(item, ros=float(k % 100), rcs=50.0 + k % 7, alpha=0.25)
        write_report(st, collection, tmp_path / "outcomes")
    text = (tmp_path / "outcomes" / "index.html").read_text()
    parsed = report_html.parse(text)
    with_outcome = [it for it in collection.items if it.scored and it.ros is not None]
    rrs = np.array([collection.scores.rrs[it.snapshot_row] for it in with_outcome])
    ros = np.array([it.ros for it in with_outcome])
    rcs = np.array([it.rcs for it in with_outcome])
    summary = parsed.tables["table-outcomes_summary"].rows[0]
    assert summary[:4] == [str(len(scored)), str(len(with_outcome)), str(len(with_outcome)),
                           pct(len(with_outcome), len(scored))]  # fmt: skip
    assert summary[4:9] == [f2(statistics.fmean(rrs)), f2(statistics.fmean(ros)), f2(statistics.fmean(rcs)),
                            f"{statistics.fmean(rrs - ros):+.2f}", f"{statistics.fmean(rcs - rrs):+.2f}"]  # fmt: skip
    assert summary[9] == f"{scipy.stats.spearmanr(rrs, ros).statistic:.4f}"
    gaps = parsed.tables["table-outcome_gaps"].rows
    top = sorted(range(len(with_outcome)), key=lambda i: (-abs(rrs[i] - ros[i]), with_outcome[i].index))[:20]
    assert [r[6] for r in gaps] == [f"{rrs[i] - ros[i]:+.2f}" for i in top]
    assert any(s.attrs.get("aria-describedby") == "fig-outcomes-desc" for s in parsed.svgs)
    assert "table-outcome_failure_classes" not in parsed.tables  # no outcome record: no failure class
    header = (tmp_path / "outcomes" / "tables" / "scores.csv").read_text().splitlines()[0]
    assert header.endswith(",outcome_id,outcome_origin,executed_at,failure_class,ros,ros_coverage,alpha,rcs")


def test_comparing_a_rubric_with_itself(made, tmp_path, monkeypatch):
    api.collection_report(made.db, tmp_path / "same", rubric="default", compare_rubric="default")
    parsed = report_html.parse((tmp_path / "same" / "index.html").read_text())
    row = parsed.tables["table-rank_correlation"].rows[0]
    assert row[1:3] == ["1.0000", "1.0000"]
    assert all(r[7] == "0.0" and r[8] == "none" for r in parsed.tables["table-movers"].rows)
    assert all(r[1:] == ["+0.00"] * 8 for r in parsed.tables["table-mover_terms"].rows)


def test_a_rubric_file_and_a_stored_rubric_can_be_used(made, tmp_path):
    text = (Path(__file__).resolve().parents[1] / "rubrics" / "default.yaml").read_text()
    custom = tmp_path / "heavy-data.yaml"
    custom.write_text(text.replace("name: default", "name: heavy-data").replace("weight: 0.30\n    tau: 40", "weight: 0.20\n    tau: 40")
                      .replace("weight: 0.25\n    tau: 30", "weight: 0.35\n    tau: 30")
                      .replace("dep_pinning: 0.25", "dep_pinning: 0.35").replace("container_spec: 0.30", "container_spec: 0.20"))  # fmt: skip
    api.collection_report(made.db, tmp_path / "custom", compare_rubric=custom)
    parsed = report_html.parse((tmp_path / "custom" / "index.html").read_text())
    assert parsed.tables["table-rubric_identity"].rows[0] == ["name", "default", "heavy-data"]
    assert parsed.tables["table-rubric_categories"].rows[0][1:3] == ["0.3", "0.2"]
    assert parsed.tables["table-rubric_submetric_weights"].rows == [
        ["E1", "dep_pinning", "E", "0.25", "0.35"], ["E2", "container_spec", "E", "0.3", "0.2"]]
    with pytest.raises(Exception, match="no bundled rubric"):
        api.collection_report(made.db, tmp_path / "x", compare_rubric="no-such-rubric")
    # A rubric stored in the database is found by name when its file is gone.
    db = tmp_path / "copy.db"
    db.write_bytes(made.db.read_bytes())
    with Store(db) as st:
        st.ensure_rubric(load_rubric(custom))
    custom.unlink()
    api.collection_report(db, tmp_path / "stored", rubric="heavy-data@1.0.0", compare_rubric="default")
    parsed = report_html.parse((tmp_path / "stored" / "index.html").read_text())
    assert parsed.tables["table-rubric_identity"].rows[0] == ["name", "heavy-data", "default"]


def test_cli_report(made, tmp_path):
    out = tmp_path / "cli"
    result = CliRunner().invoke(cli, ["report", "--db", str(made.db), "--out", str(out), "--rubric", "default",
                                      "--compare-rubric", "bioinformatics-v1", "--source", "zenodo",
                                      "--community", "astro", "--since", "2026-10-02"])  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert lines[-1] == str(out / "index.html") and (out / "index.html").is_file()
    assert lines[0].startswith("report of ")
    for args, message in (
        (["--db", str(tmp_path / "none.db"), "--out", str(out)], "no such database"),
        (["--db", str(made.db), "--out", str(out), "--rubric", "nope"], "no bundled rubric"),
        (["--db", str(made.db), "--out", str(out), "--since", "yesterday"], "Invalid value for '--since'"),
        (["--db", str(made.db), "--out", str(out), "--source", "github"], "Invalid value for '--source'"),
    ):
        result = CliRunner().invoke(cli, ["report", *args])
        assert result.exit_code == 2, (args, result.output)
        assert message in result.output, result.output
    assert not (tmp_path / "none.db").exists()


def test_an_empty_store_gives_a_report(tmp_path):
    db = tmp_path / "empty.db"
    Store(db).close()
    result = api.collection_report(db, tmp_path / "out", compare_rubric="bioinformatics-v1")
    parsed = report_html.parse(result.index.read_text())
    assert parsed.tables["table-coverage"].rows == [["all", "0", "0", "0", "0", "0", "0", "—"]]
    assert "No scored deposit to compare in this selection." in result.index.read_text()


def test_metric_catalog_is_what_the_submetric_table_lists(made):
    assert sorted(r[1] for r in made.table("submetrics").rows) == sorted(METRIC_IDS)
    assert {r[0] for r in made.table("submetrics").rows} == {m.code for m in METRICS}
