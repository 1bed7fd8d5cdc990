"""`make demo` tidies up after itself: the nightly run it shows leaves no lock file and no
empty work folder behind, and it says where the sample trees are."""

from __future__ import annotations

from reproscore import demo


def test_the_demo_run_leaves_its_database_and_no_lock_or_empty_folder(tmp_path, capsys):
    assert demo.run_nightly_demo(tmp_path) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo.db", "reproscore.toml", "swh-origins.txt"]
    out = capsys.readouterr().out
    assert "9100001   scored      93.91" in out


def test_the_demo_says_where_the_sample_trees_are(tmp_path, capsys, monkeypatch):
    # Only the opening lines: the rest of the demo is the nightly run tested above.
    monkeypatch.setattr(demo, "run_nightly_demo", lambda out_dir: 0)
    for step in ("score_samples", "import_demo_outcomes", "export_demo_collection", "report_demo_collection"):
        monkeypatch.setattr(demo, step, lambda out_dir: None)
    assert demo.run(tmp_path) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2] == (
        "sample trees: tests/fixtures/samples/"
        "{legacy-scripts,notebook-ml-study,r-survey-analysis,snakemake-rnaseq}"
    )
    assert lines[4].endswith(f"everything the demo writes goes to {tmp_path}/")
