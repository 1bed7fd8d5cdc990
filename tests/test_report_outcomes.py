"""Execution outcomes in the collection audit report, on a real store.

The synthetic collection (tests/synthetic_collection.py) gets outcomes for some of its
deposits through the public ``reproscore outcome import`` API (some superseded by a later
execution, one for a tree that cannot be scored); the report's outcome section, its CSV
files, ``tables/scores.csv`` and the per-deposit sections are checked exactly against the
database: ROS, alpha and RCS from the stored score rows (or, where no score is stored,
from the outcome's components through ``Store.outcome_inputs`` and
``scoring.aggregate.score``), failure classes and components from the ``outcomes`` table,
means with ``statistics.fmean``, quartiles with numpy, Spearman with scipy.
"""

from __future__ import annotations

import csv
import json
import sqlite3
import statistics
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import report_html
import scipy.stats
import synthetic_collection
from test_report import Expected, expected_items, f2, pct

from reproscore import api
from reproscore.report import load_collection
from reproscore.store import Store
from scoring.aggregate import score
from scoring.rubric import ROS_COMPONENT_IDS, load_rubric

DEFAULT = load_rubric("default")
BIO = load_rubric("bioinformatics-v1")
CLASSES = ("install_dep", "missing_module", "missing_data", "code_error", "timeout", "none")
ORIGINS = ("binder", "ci", "repo2docker")
LABELS = {"I": "I", "X": "X", "delta": "Δ", "N": "N", "E_prime": "E′", "T": "T"}


def outcome_for(k: int, e: Expected) -> dict:
    """A deterministic outcome for the k-th chosen deposit: the paper's failure modes."""
    install = k % 5 != 0
    run = None if k % 7 == 3 else (k % 3 != 0)
    components = {
        "I": install,
        "X": run,
        "delta": None if k % 4 else float((k * 37) % 101),
        "N": None if k % 2 else round((k % 11) / 10, 1),
        "E_prime": (k % 7) / 6 if k % 3 != 1 else None,
        "T": None if k % 5 != 2 else (k % 9) / 8,
    }
    if not install:
        failure = "install_dep"
    elif run is False:
        failure = ("missing_module", "missing_data", "code_error", "timeout")[k % 4]
    else:
        failure = None
    probes = []
    if run is not None:
        probes.append({"probe": "X", "command": f"python run_{k}.py", "exit_status": 0 if run else 1,
                       "value": run, "failure_class": None if run else failure,
                       "reason": "" if run else f"the entry point failed ({failure})"})
    probes.append({"probe": "I", "command": "pip install -r requirements.txt", "exit_status": 0 if install else 1,
                   "value": install, "failure_class": None if install else "install_dep"})
    return {
        "subject": None if e is None else e.swhid_subject,
        "origin": {"name": ORIGINS[k % 3], "version": f"2026.{k % 4}", "run_id": str(1000 + k)},
        "executed_at": f"2026-11-{1 + k % 20:02d}T{k % 24:02d}:00:00Z",
        "components": components,
        "failure_class": failure,
        "probes": probes,
    }


@dataclass
class Made:
    db: Path
    out: Path
    html: str
    parsed: report_html.ReportParser
    items: list[Expected]
    outcomes: dict[int, dict]  # snapshot id -> Store.outcome_for_snapshot
    first: dict[int, tuple]  # snapshot id -> (ros, coverage, alpha, rcs) under DEFAULT, as the database says
    second: dict[int, tuple]  # the same under BIO
    stored_rows: int
    computed_rows: int
    chosen: list[str]  # keys of the deposits given outcomes, in order

    def table(self, table_id: str) -> report_html.ParsedTable:
        return self.parsed.tables[f"table-{table_id}"]

    def csv(self, name: str) -> list[list[str]]:
        with open(self.out / "tables" / f"{name}.csv", encoding="utf-8", newline="") as handle:
            return list(csv.reader(handle))

    @property
    def with_outcome(self) -> list[Expected]:
        return [e for e in self.items if e.state == "scored" and e.snapshot_id in self.outcomes]


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Made:
    base = tmp_path_factory.mktemp("report-outcomes")
    db = base / "collection.db"
    synthetic_collection.build(db)
    items = expected_items(db)
    with Store(db, create=False) as st:
        swhids = dict(st.conn.execute("SELECT id, swhid FROM snapshots"))
    for e in items:
        e.swhid_subject = swhids.get(e.snapshot_id)
    scored = [e for e in items if e.state == "scored"]
    chosen = [e for i, e in enumerate(scored) if i % 4 == 1 or e.source == "local" and i % 2]
    incomplete = next(e for e in items if e.state in ("incomplete", "failed") and e.snapshot_id is not None)
    first_file = {"schema": "reproscore-outcome/1",
                  "outcomes": [outcome_for(k, e) for k, e in enumerate(chosen)]
                  + [outcome_for(99, incomplete)]}  # a tree that cannot be scored: not in the report
    (base / "first.json").write_text(json.dumps(first_file), encoding="utf-8")
    api.import_outcomes(db, base / "first.json")
    # Later executions of two of them: the report shows these (the most recently executed);
    # an older one imported afterwards changes nothing.
    later = [dict(outcome_for(k + 500, chosen[k]), executed_at="2026-12-01T00:00:00Z") for k in (0, 1)]
    older = dict(outcome_for(700, chosen[2]), executed_at="2026-01-01T00:00:00Z")
    (base / "second.json").write_text(json.dumps({"schema": "reproscore-outcome/1", "outcomes": [*later, older]}),
                                      encoding="utf-8")
    api.import_outcomes(db, base / "second.json")
    out = base / "out"
    api.collection_report(db, out, rubric="default", compare_rubric="bioinformatics-v1")
    html = (out / "index.html").read_text(encoding="utf-8")
    outcomes, first, second = {}, {}, {}
    stored_rows = computed_rows = 0
    with Store(db, create=False) as st:
        for e in scored:
            outcome = st.outcome_for_snapshot(e.snapshot_id)
            if outcome is None:
                continue
            outcomes[e.snapshot_id] = outcome
            snapshot = st.conn.execute("SELECT detector_set_id FROM snapshots WHERE id = ?", (e.snapshot_id,)).fetchone()
            row = st.conn.execute(
                "SELECT ros, ros_coverage, alpha, rcs, outcome_id FROM scores WHERE snapshot_id = ? AND rubric_id = ?"
                " AND detector_set_id = ?", (e.snapshot_id, st.rubric_id(DEFAULT), snapshot[0])).fetchone()
            for rubric, target in ((DEFAULT, first), (BIO, second)):
                scored_with = score(e.measurements, rubric, outcomes=st.outcome_inputs(e.snapshot_id, rubric))
                ros = scored_with.ros
                target[e.snapshot_id] = (round(ros.value, 2), round(ros.coverage, 4), round(scored_with.rcs.alpha, 4),
                                         scored_with.rcs.value)
            if row is not None:  # the database's own row: what the report must show
                assert row[4] == outcome["outcome_id"]
                assert row[:4] == first[e.snapshot_id]
                first[e.snapshot_id] = row[:4]
                stored_rows += 1
            else:
                computed_rows += 1
    return Made(db, out, html, report_html.parse(html), items, outcomes, first, second, stored_rows, computed_rows,
                [e.key for e in chosen])


def rrs_of(e: Expected) -> float:
    return e.first.rrs


# --------------------------------------------------------------------------- the store


def test_the_store_has_outcomes_stored_and_computed_both_ways(made):
    assert len(made.with_outcome) >= 60
    assert made.stored_rows > 20 and made.computed_rows > 10  # scores stored for some trees, computed for others
    assert {e.source for e in made.with_outcome} == {"zenodo", "swh", "local"}
    classes = {(o["failure_class"] or "none") for o in made.outcomes.values()}
    assert classes == set(CLASSES)


# --------------------------------------------------------------------------- scores.csv and the summary


def test_scores_csv_holds_every_outcome_exactly_as_the_database(made):
    rows = made.csv("scores")
    header, body = rows[0], rows[1:]
    assert header[-11:] == ["outcome_id", "outcome_origin", "executed_at", "failure_class", "ros", "ros_coverage",
                            "alpha", "rcs", "ros_second", "alpha_second", "rcs_second"]
    by_key = {e.key: e for e in made.items if e.state == "scored"}
    seen = 0
    for row in body:
        data = dict(zip(header, row, strict=True))
        e = by_key[data["item"]]
        outcome = made.outcomes.get(e.snapshot_id)
        if outcome is None:
            assert row[-11:] == [""] * 11
            continue
        seen += 1
        assert (int(data["outcome_id"]), data["outcome_origin"], data["executed_at"], data["failure_class"]) == (
            outcome["outcome_id"], outcome["origin"], outcome["executed_at"], outcome["failure_class"] or "")
        assert tuple(float(data[k]) for k in ("ros", "ros_coverage", "alpha", "rcs")) == made.first[e.snapshot_id]
        ros2, _c2, alpha2, rcs2 = made.second[e.snapshot_id]
        assert (float(data["ros_second"]), float(data["alpha_second"]), float(data["rcs_second"])) == (ros2, alpha2, rcs2)
        assert float(data["rrs"]) == e.first.rrs
    assert seen == len(made.with_outcome)


def test_the_most_recent_execution_is_the_one_shown(made):
    executed = {r[0]: r[-9] for r in made.csv("scores")[1:] if r[-11]}
    first, second, third = made.chosen[:3]
    assert executed[first] == executed[second] == "2026-12-01T00:00:00.000000Z"  # imported later, executed later
    assert executed[third] == outcome_for(2, None)["executed_at"].replace("Z", ".000000Z")  # not the older one
    assert not any(v.startswith("2026-01-01") for v in executed.values())


def test_outcomes_summary(made):
    mine = made.with_outcome
    rrs = np.array([rrs_of(e) for e in mine])
    ros = np.array([made.first[e.snapshot_id][0] for e in mine])
    rcs = np.array([made.first[e.snapshot_id][3] for e in mine])
    scored = sum(1 for e in made.items if e.state == "scored")
    (row,) = made.table("outcomes_summary").rows
    assert row == [str(scored), str(len(mine)), str(len(mine)), pct(len(mine), scored),
                   f2(statistics.fmean(rrs)), f2(statistics.fmean(ros)), f2(statistics.fmean(rcs)),
                   f"{statistics.fmean(rrs - ros):+.2f}", f"{statistics.fmean(rcs - rrs):+.2f}",
                   f"{scipy.stats.spearmanr(rrs, ros).statistic:.4f}"]  # fmt: skip
    provenance = dict((r[0], r[1]) for r in made.table("provenance").rows)
    assert provenance["scored deposits with an execution outcome"] == str(len(mine))


def test_ros_rcs_gap_and_shift_distributions(made):
    mine = made.with_outcome
    rrs = np.array([rrs_of(e) for e in mine])
    ros = np.array([made.first[e.snapshot_id][0] for e in mine])
    rcs = np.array([made.first[e.snapshot_id][3] for e in mine])
    rows = made.table("outcome_scores").rows
    for row, values in zip(rows, (rrs, ros, rcs, rrs - ros, rcs - rrs), strict=True):
        q = np.percentile(values, [25, 50, 75], method="linear")
        assert row[1:] == [str(len(values)), f2(statistics.fmean(values)), f2(values.min()), *map(f2, q), f2(values.max())]
    assert [r[0] for r in rows] == ["RRS", "ROS", "RCS", "gap (RRS − ROS)", "shift (RCS − RRS)"]
    bands = made.table("outcome_bands").rows
    for column, values in ((1, rrs), (2, ros), (3, rcs)):
        counts = [0] * 10
        for v in values:
            counts[min(int(v // 10), 9)] += 1
        assert [r[column] for r in bands] == [str(c) for c in counts]


def test_the_readiness_outcome_gap_table(made):
    mine = made.with_outcome
    position = {e.key: i for i, e in enumerate(made.items)}
    ranked = sorted(mine, key=lambda e: (-abs(rrs_of(e) - made.first[e.snapshot_id][0]), position[e.key]))
    rows = made.csv("outcome_gaps")[1:]
    assert len(rows) == len(mine)
    for row, e in zip(rows, ranked, strict=True):
        ros, _cov, alpha, rcs = made.first[e.snapshot_id]
        outcome = made.outcomes[e.snapshot_id]
        assert row == [e.title, e.source, f2(rrs_of(e)), f2(ros), f2(rcs), f"{alpha:.4f}",
                       f"{rrs_of(e) - ros:+.2f}", f"{rcs - rrs_of(e):+.2f}", outcome["failure_class"] or "none",
                       outcome["origin"]]  # fmt: skip
    table = made.table("outcome_gaps")
    assert len(table.rows) == 20 and "(the first 20 of" in table.caption
    assert [links[0] for links in table.links] == [f"#{e.anchor}" for e in ranked[:20]]


def test_failure_classes_with_their_mean_components(made):
    """The paper's Table 5 from the outcomes table: per failure class, the deposits and the
    mean of each component (0-100), of the ROS, the RCS and the RRS."""
    rows = {r[0]: r for r in made.table("outcome_failure_classes").rows}
    assert list(rows) == list(CLASSES)
    mine = made.with_outcome
    for name in CLASSES:
        group = [e for e in mine if (made.outcomes[e.snapshot_id]["failure_class"] or "none") == name]
        row = rows[name]
        assert row[1:3] == [str(len(group)), pct(len(group), len(mine))]
        for i, cid in enumerate(ROS_COMPONENT_IDS):
            values = [made.outcomes[e.snapshot_id]["components"][cid] for e in group
                      if made.outcomes[e.snapshot_id]["components"][cid] is not None]
            assert row[3 + i] == (f2(statistics.fmean(values)) if values else "—"), (name, cid)
        assert row[9:] == [str(len(group)), f2(statistics.fmean(made.first[e.snapshot_id][0] for e in group)),
                           f2(statistics.fmean(made.first[e.snapshot_id][3] for e in group)),
                           f2(statistics.fmean(rrs_of(e) for e in group))]
    # install_dep: no install, and in this corpus the lowest mean ROS.
    assert rows["install_dep"][3] == "0.00"
    conn = sqlite3.connect(made.db)
    try:
        failing = conn.execute("SELECT count(*) FROM outcomes WHERE failure_class = 'install_dep'").fetchone()[0]
    finally:
        conn.close()
    assert int(rows["install_dep"][1]) <= failing


def test_outcome_origins(made):
    groups: dict[str, list[dict]] = {}
    for e in made.with_outcome:
        o = made.outcomes[e.snapshot_id]
        groups.setdefault(o["origin"], []).append(o)
    expected = sorted(([name, str(len(g)), "imported", min(o["executed_at"] for o in g)[:10],
                        max(o["executed_at"] for o in g)[:10]] for name, g in groups.items()),
                      key=lambda r: (-int(r[1]), r[0]))  # fmt: skip
    assert made.table("outcome_origins").rows == expected
    assert {r[0] for r in expected} == set(ORIGINS)


def test_the_figures_describe_their_numbers(made):
    svgs = {s.attrs.get("aria-describedby"): s for s in made.parsed.svgs}
    scatter = svgs["fig-outcomes-desc"]
    mine = made.with_outcome
    gaps = [rrs_of(e) - made.first[e.snapshot_id][0] for e in mine]
    below = sum(1 for g in gaps if g > 0)
    assert f"for {len(mine)} deposits" in scatter.desc
    assert f"{below} deposits lie below the diagonal (readier than they ran), {sum(1 for g in gaps if g < 0)} above it" in scatter.desc
    assert "one marker shape per failure class (install_dep, missing_module, missing_data, code_error, timeout, none)" in scatter.desc
    bands = svgs["fig-outcome-bands-desc"]
    first = made.table("outcome_bands").rows[0]
    assert f"0–10: RRS {first[1]}, ROS {first[2]}, RCS {first[3]}" in bands.desc


# --------------------------------------------------------------------------- per deposit


def test_per_deposit_outcome_details(made):
    anchors = {e.anchor: e for e in made.with_outcome}
    linked = [a for a in made.parsed.ids if a in anchors]
    assert len(linked) >= 20
    rows = made.csv("deposit_probes")[1:]
    for anchor in linked:
        e = anchors[anchor]
        outcome = made.outcomes[e.snapshot_id]
        probes = {p["probe"]: p for p in outcome["probes"]}
        expected = []
        for cid in ROS_COMPONENT_IDS:
            value = outcome["components"][cid]
            probe = probes.get(cid)
            if value is None and probe is None:
                continue
            expected.append([LABELS[cid], f2(value) if value is not None else "—", f"{DEFAULT.ros[cid].weight:g}",
                             probe["status"] if probe else "", (probe or {}).get("command") or "",
                             str(probe["exit_status"]) if probe and probe["exit_status"] is not None else "—",
                             (probe or {}).get("failure_class") or "", (probe or {}).get("reason") or ""])  # fmt: skip
        table = made.parsed.tables[f"{anchor}-deposit_probes"]
        assert table.rows == expected, anchor
        assert [[c or "—" for c in r[1:]] for r in rows if r[0] == anchor] == [[c or "—" for c in r] for r in expected]
        ros, _cov, alpha, rcs = made.first[e.snapshot_id]
        header = f"; ROS {f2(ros)}, RCS {f2(rcs)} (α {alpha:.4f})"
        article = made.html.split(f'id="{anchor}"', 1)[1].split("</article>", 1)[0]
        assert header in article
        assert f"{outcome['origin']}, executed {outcome['executed_at'][:19]}Z; failure class " \
               f"{outcome['failure_class'] or 'none'}" in article


def test_every_outcome_csv_is_the_table_it_belongs_to(made):
    for table_id in ("outcomes_summary", "outcome_scores", "outcome_bands", "outcome_failure_classes",
                     "outcome_origins", "outcome_gaps"):
        rows = made.csv(table_id)
        table = made.table(table_id)
        assert len(rows[0]) == len(table.headers)
        body = [[cell or "—" for cell in row] for row in rows[1:]]
        shown = [[cell or "—" for cell in row] for row in table.rows]
        assert body[: len(shown)] == shown, table_id


# --------------------------------------------------------------------------- one query, determinism, selection


def test_outcomes_are_read_in_one_query(made):
    with Store(made.db, create=False) as st:
        statements: list[str] = []
        st.conn.set_trace_callback(statements.append)
        collection = load_collection(st, DEFAULT, compare_rubric=BIO)
        st.conn.set_trace_callback(None)
    reading = [s for s in statements if "outcomes" in s and "FROM outcomes" in s]
    assert len(reading) == 1, reading
    assert sum(1 for item in collection.items if item.outcome is not None and item.scored) == len(made.with_outcome)


def test_two_runs_give_byte_identical_files(made, tmp_path):
    api.collection_report(made.db, tmp_path / "again", rubric="default", compare_rubric="bioinformatics-v1")
    def files(root: Path) -> dict[str, bytes]:
        return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
    assert files(tmp_path / "again") == files(made.out)
