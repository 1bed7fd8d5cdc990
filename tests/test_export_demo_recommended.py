"""The demo's exports, checked as a reader would: every crate of ``make demo`` passes
roc-validator at RECOMMENDED with no issue (offline; that level runs the REQUIRED checks too), and no number in
any export of the demo (its crates, and the CodeMeta and RDF of every scored deposit)
carries float noise."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from exporters import validator
from reproscore import api, demo

# More than 6 decimals is float noise (89.99999999999999) or an unrounded ratio.
LONG_NUMBER = re.compile(r"(?<![\w.:-])\d+\.\d{7,}(?![\w.])")


@pytest.fixture(scope="module")
def demo_out(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("demo")
    demo.run_nightly_demo(out)
    demo.import_demo_outcomes(out)
    demo.export_demo_collection(out)
    db = out / "demo.db"
    extra = out / "exports" / "other"
    for source in ("zenodo", "swh"):
        for row in api.deposit_results(db, source):
            if row["rrs"] is None:
                continue
            name = "".join(ch if ch.isalnum() else "-" for ch in row["record"].split("://")[-1])
            api.export_codemeta(db, row["record"], extra / f"{name}.codemeta.json")
            for fmt, suffix in (("turtle", "ttl"), ("json-ld", "jsonld")):
                api.export_rdf(db, extra / f"{name}.{suffix}", deposit=row["record"], fmt=fmt)
    api.export_rdf(db, extra / "all.ttl")
    return out


def crates(out: Path) -> list[Path]:
    return sorted(p.parent for p in (out / "exports").glob("*/ro-crate-metadata.json"))


def test_every_demo_crate_has_no_issue_at_recommended_nor_required(demo_out):
    found = crates(demo_out)
    assert [p.name for p in found] == [
        "collection", "swh-github-com-demo-lab-snakemake-rnaseq", "swh-hal-example-org-hal-00000042",
        "zenodo-9100001", "zenodo-9100002", "zenodo-9100003", "zenodo-9100004", "zenodo-9100006"]
    cache = demo_out / "rocrate-validator-cache" / "http_cache"
    issues = {p.name: validator.validate_crate(p, cache, severity="RECOMMENDED").lines() for p in found}
    assert issues == {p.name: [] for p in found}


def test_no_export_of_the_demo_has_a_number_with_more_than_6_decimals(demo_out):
    files = [p for p in (demo_out / "exports").rglob("*") if p.is_file()]
    # The native report is the scorer's result record (METRICS.md §10): values as
    # computed, each with its rounded display value beside it; `verify` reads them.
    checked = [p for p in files if p.name != "reproscore-result.json"]
    assert len(checked) >= 8 + 7 * 3 + 1
    noisy = {str(p.relative_to(demo_out)): LONG_NUMBER.findall(p.read_text(encoding="utf-8"))
             for p in checked if p.suffix in (".json", ".ttl", ".jsonld")}
    assert {k: v for k, v in noisy.items() if v} == {}


def test_every_demo_crate_verifies(demo_out):
    assert {p.name: api.verify_export(p).ok for p in crates(demo_out)} == {p.name: True for p in crates(demo_out)}
