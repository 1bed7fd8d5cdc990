"""The report's figures as drawn by matplotlib: no legend covers data, labels wrap
instead of being cut, deposits at one point of the RRS-ROS scatter are counted (on the
demo database, where three deposits hold one tree with one outcome), and the report
names the one rubric it scores under."""

from __future__ import annotations

import re

import demo_store
import matplotlib
import numpy as np
import pytest
import report_html
import synthetic_collection
from click.testing import CliRunner
from matplotlib.backends.backend_agg import FigureCanvasAgg

from reproscore import api
from reproscore.cli import cli
from reproscore.report import figures, load_collection, write_report
from reproscore.report.tables import build_report_model, details_from_store
from reproscore.store import Store
from scoring.rubric import load_rubric

DEFAULT = load_rubric("default")
BIO = load_rubric("bioinformatics-v1")


@pytest.fixture(scope="module")
def collection_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("figures") / "collection.db"
    synthetic_collection.build(db, zenodo=120, swh=30, local=5, nights=4, outcomes_every=4)
    return db


def _data_boxes(ax, renderer):
    """Display-space boxes of everything an axes draws from data: bars and boxes
    (patches), line vertices and scatter points."""
    boxes = []
    for patch in ax.patches:
        box = patch.get_window_extent(renderer)
        if box.width > 0 and box.height > 0:
            boxes.append(box)
    for line in ax.lines:
        xy = ax.transData.transform(np.column_stack(line.get_data()).astype(float))
        boxes += [matplotlib.transforms.Bbox([p, p]) for p in xy if np.isfinite(p).all()]
    for collection in ax.collections:
        offsets = collection.get_offsets()
        if len(offsets):
            xy = collection.get_offset_transform().transform(offsets)
            boxes += [matplotlib.transforms.Bbox([p, p]) for p in xy]
    return boxes


def test_no_legend_covers_data(collection_db):
    with Store(collection_db, create=False) as st:
        collection = load_collection(st, DEFAULT, compare_rubric=BIO)
        report = build_report_model(collection, details_from_store(st, collection))
    checked = 0
    for figure_id in report.figures:
        with matplotlib.rc_context(figures._rc(figure_id)):
            fig = figures.DRAW[figure_id](report)
            renderer = FigureCanvasAgg(fig).get_renderer()
            fig.draw(renderer)
            legends = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None] + list(fig.legends)
            for legend in legends:
                box = legend.get_window_extent(renderer)
                for ax in fig.axes:
                    for data in _data_boxes(ax, renderer):
                        assert not box.overlaps(data), (figure_id, box, data)
                checked += 1
    assert checked >= 8, "the figures with a legend were checked"
    assert {"fig-nights", "fig-outcomes", "fig-sources", "fig-communities"} <= set(report.figures)


def _svg_text(svg: str) -> str:
    return "".join(re.findall(r"<text[^>]*>([^<]*)</text>", svg)).replace(" ", "")


def test_community_labels_wrap_instead_of_being_cut(collection_db, tmp_path):
    long_name = "computational-fluid-dynamics-and-turbulence-modelling"
    with Store(collection_db, create=False) as st:
        collection = load_collection(st, DEFAULT)
        for item in collection.items:
            if "astro" in item.communities:
                item.communities = tuple(long_name if c == "astro" else c for c in item.communities)
        write_report(st, collection, tmp_path / "out")
    html = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    svg = html.split('<figure id="fig-communities">')[1].split("</figure>")[0]
    assert "…" not in svg
    assert long_name.replace(" ", "") in _svg_text(svg).replace("\n", "")
    # Wrapped over several lines: no line of a tick label is longer than the wrap width.
    lines = [t for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg) if t and t in long_name]
    assert len(lines) >= 3 and max(len(t) for t in lines) <= 16


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory):
    return demo_store.build(tmp_path_factory.mktemp("demo"))


def test_deposits_at_one_point_of_the_scatter_are_counted(demo_db, tmp_path):
    with Store(demo_db, create=False) as st:
        held = st.conn.execute(
            "SELECT s.id, count(*) FROM deposit_snapshots ds JOIN snapshots s ON s.id = ds.snapshot_id"
            " JOIN outcomes o ON o.snapshot_id = s.id GROUP BY s.id ORDER BY s.id"
        ).fetchall()
        rrs, ros = st.conn.execute(
            "SELECT sc.rrs, sc.ros FROM scores sc JOIN rubrics r ON r.id = sc.rubric_id"
            " WHERE r.name = 'default' AND sc.snapshot_id = ?", (held[0][0],)
        ).fetchone()
    assert [count for _, count in held] == [3, 1]  # one tree with an outcome held by three deposits
    result = api.collection_report(demo_db, tmp_path / "out")
    parsed = report_html.parse(result.index.read_text(encoding="utf-8"))
    svg = next(s for s in parsed.svgs if s.attrs.get("aria-label") == "Readiness against outcome")
    assert svg.desc.endswith(f"1 marker stands for several deposits at one point, drawn larger and labelled "
                             f"with their count: 3 at RRS {rrs:.2f}, ROS {ros:.2f}.")
    html = result.index.read_text(encoding="utf-8")
    figure = html.split('<figure id="fig-outcomes">')[1].split("</figure>")[0]
    assert re.findall(r"<text[^>]*>(×\d+)</text>", figure) == ["×3"]
    assert len(parsed.tables["table-outcome_gaps"].rows) == 4  # every deposit is still a row


def test_the_report_uses_the_default_rubric_not_the_latest_scores(demo_db, tmp_path):
    """Scores under bioinformatics-v1 stored last: the report still scores under the
    default rubric unless told otherwise, and says which rubric it used."""
    db = tmp_path / "demo.db"
    db.write_bytes(demo_db.read_bytes())
    api.rescore(db, "bioinformatics-v1")
    with Store(db, create=False) as st:
        latest = st.conn.execute(
            "SELECT r.name FROM scores sc JOIN rubrics r ON r.id = sc.rubric_id ORDER BY sc.computed_at DESC, sc.id DESC"
        ).fetchone()[0]
        expected = dict(st.conn.execute(
            "SELECT s.swhid, sc.rrs FROM scores sc JOIN snapshots s ON s.id = sc.snapshot_id"
            " JOIN rubrics r ON r.id = sc.rubric_id WHERE r.name = 'default'"))
    assert latest == "bioinformatics-v1"
    result = CliRunner().invoke(cli, ["report", "--db", str(db), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    line = result.output.splitlines()[0]
    assert f" under rubric default 1.0.0 (sha256 {DEFAULT.sha256[:12]}) " in line
    html = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    parsed = report_html.parse(html)
    assert parsed.headings[0][2] == "Readiness audit: demo.db, rubric default 1.0.0"
    assert (f"Every score is under the rubric default 1.0.0 (sha256 {DEFAULT.sha256}); scores stored under any "
            "other rubric are not used.") in html
    scores = (tmp_path / "out" / "tables" / "scores.csv").read_text(encoding="utf-8").splitlines()
    header = scores[0].split(",")
    rows = [dict(zip(header, line.split(","), strict=False)) for line in scores[1:]]
    assert rows and all(float(r["rrs"]) == expected[r["swhid"]] for r in rows)
    # Told otherwise, it uses that rubric and names it.
    result = CliRunner().invoke(cli, ["report", "--db", str(db), "--out", str(tmp_path / "bio"),
                                      "--rubric", "bioinformatics-v1"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert " under rubric bioinformatics-v1 1.0.0 " in result.output.splitlines()[0]
