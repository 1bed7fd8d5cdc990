"""Facts are content-addressed and cached (issue 15): every file read gets its git blob id,
its frontend's facts are computed once per content and looked up first in a facts cache
keyed by (blob id, frontend, path class, frontend version); the store keeps them in
``file_facts``, written by the driver alone with each snapshot, read by worker processes
read-only; facts are never needed for correctness and never hold a secret."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import subprocess
import zlib
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlite_utils import Database

from reproscore import api
from reproscore.cli import cli
from reproscore.migrations import migration_names, migrations
from reproscore.store import FactsReader, Store, StoreFactsCache
from reproscore.store import facts as store_facts
from scoring.facts import FileFacts, StringFact
from scoring.facts_cache import (
    FactsKey,
    MemoryFactsCache,
    RecordingFactsCache,
    StorableFacts,
    decode_stored,
    encode_for_store,
    facts_secret_free,
    frontend_version,
    installed_frontend_versions,
    path_class,
)
from scoring.frontends import c_cpp as c_frontend
from scoring.frontends import frontend_for
from scoring.frontends import r as r_frontend
from scoring.measurement import measure, measure_many
from scoring.tree import TreeIndex
from scoring.trees.sources import LocalDirectory

EMPTY_BLOB = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"  # git hash-object /dev/null
HELLO_BLOB = "ce013625030ba8dba906f756967f9e9ca394464a"  # printf 'hello\n' | git hash-object --stdin
R_VERSION = frontend_version(r_frontend)

ANALYSIS_R = 'library(dplyr)\nset.seed(42)\nx <- read.csv("data/input.csv")\nwrite.csv(x, "out.csv")\n'
PLOT_R = 'library(ggplot2)\np <- ggplot(mtcars, aes(mpg, wt))\nggsave("fig.png", p)\n'
MODEL_R = 'fit <- lm(mpg ~ wt, data = mtcars)\nsaveRDS(fit, "fit.rds")\n'
TREE = {
    "README.md": "# Study\n\nRun `Rscript analysis.R`.\n",
    "analysis.R": ANALYSIS_R,
    "R/plot.R": PLOT_R,
    "R/model.R": MODEL_R,
    "src/kernel.c": "#include <stdio.h>\nint main(void) { return 0; }\n",
    "notes.txt": "not read by any frontend\n",
}


def git_blob(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class CountingSource(LocalDirectory):
    """A local tree that counts the reads of each file."""

    def __init__(self, root) -> None:
        super().__init__(root)
        self.reads: dict[str, int] = {}

    def read(self, path: str, limit: int) -> bytes:
        self.reads[path] = self.reads.get(path, 0) + 1
        return super().read(path, limit)


@pytest.fixture
def extract_calls(monkeypatch):
    """Every frontend run of the R and C frontends in this process, as (path, bytes)."""
    calls: list[tuple[str, bytes]] = []
    for module in (r_frontend, c_frontend):
        original = module.extract

        def counting(data: bytes, path: str, _original=original) -> FileFacts:
            calls.append((path, data))
            return _original(data, path)

        monkeypatch.setattr(module, "extract", counting)
    return calls


def _measured(tree, **kwargs) -> dict:
    return measure(tree, **kwargs).to_dict()


# --------------------------------------------------------------------------- content ids


@pytest.mark.parametrize("data", [b"", b"hello\n", b"\x00\x01binary\xff", "caf\u00e9\n".encode(), b"x" * 70000])
def test_the_content_id_is_the_git_blob_id(tmp_path, data):
    (tmp_path / "file.bin").write_bytes(data)
    index = TreeIndex.from_path(tmp_path)
    assert index.blob_id("file.bin") == git_blob(data)
    expected = subprocess.run(["git", "hash-object", str(tmp_path / "file.bin")], capture_output=True,
                              text=True, check=True).stdout.strip()
    assert index.blob_id("file.bin") == expected


def test_known_blob_ids_and_files_without_one(tmp_path):
    (tmp_path / "empty").write_bytes(b"")
    (tmp_path / "hello.txt").write_bytes(b"hello\n")
    (tmp_path / "link.txt").symlink_to("hello.txt")
    (tmp_path / "big.R").write_bytes(b"x <- 1\n" * 10)
    from scoring.tree import Limits

    index = TreeIndex.from_path(tmp_path, Limits(max_file_bytes=32))
    assert index.blob_id("empty") == EMPTY_BLOB
    assert index.blob_id("hello.txt") == HELLO_BLOB
    assert index.blob_id("link.txt") == HELLO_BLOB  # an in-tree link is its target's content
    assert index.blob_id("big.R") is None  # larger than the per-file limit: never read
    assert index.facts("big.R") is None
    assert index.blob_id("missing") is None


def test_each_file_is_read_once_for_its_text_content_id_facts_and_parses(tmp_path):
    root = tmp_path / "tree"
    root.mkdir()
    (root / "analysis.R").write_text(ANALYSIS_R)
    (root / "data.json").write_text('{"a": 1}')
    source = CountingSource(root)
    index = TreeIndex(source, facts_cache=MemoryFactsCache())
    facts = index.facts("analysis.R")
    assert index.text("analysis.R") == ANALYSIS_R
    assert index.blob_id("analysis.R") == git_blob(ANALYSIS_R.encode())
    assert index.facts("analysis.R") is facts
    assert index.json("data.json") == {"a": 1}
    assert index.blob_id("data.json") == git_blob(b'{"a": 1}')
    assert index.all_facts() == {"analysis.R": facts}
    assert source.reads == {"analysis.R": 1, "data.json": 1}
    # text first, then facts: still one read
    source2 = CountingSource(root)
    index2 = TreeIndex(source2)
    index2.text("analysis.R")
    assert index2.facts("analysis.R") == facts
    assert source2.reads == {"analysis.R": 1}


# --------------------------------------------------------------------------- facts in the index


def test_facts_come_from_the_frontend_and_are_none_where_no_frontend_reads(make_tree):
    root = make_tree({**TREE, "binary.R": b"x <- 1\x00\x01", "bom.R": b"\xef\xbb\xbf" + ANALYSIS_R.encode()})
    index = TreeIndex.from_path(root)
    facts = index.facts("analysis.R")
    assert facts == r_frontend.extract(ANALYSIS_R.encode(), "analysis.R")
    assert facts.language == "r" and [i.module for i in facts.imports] == ["dplyr"]
    assert index.facts("src/kernel.c").language == "c"
    assert index.facts("notes.txt") is None and index.facts("README.md") is None
    assert index.facts("binary.R") is None
    # A BOM is dropped, as text() drops it: the same facts as without it.
    assert index.facts("bom.R") == facts
    assert sorted(index.all_facts()) == ["R/model.R", "R/plot.R", "analysis.R", "bom.R", "src/kernel.c"]


def test_reading_for_facts_records_nothing_in_the_inventory(make_tree):
    # Only a frontend reads kernel.c: its bytes are not UTF-8 and a binary .R is skipped
    # only when its text is asked for. Neither enters the inventory through facts.
    root = make_tree({"kernel.c": b"int x = 1; /* caf\xe9 */\n", "blob.R": b"\x00\x00", "a.R": ANALYSIS_R})
    plain = TreeIndex.from_path(root)
    plain.text("a.R")
    with_facts = TreeIndex.from_path(root)
    assert with_facts.facts("kernel.c") is not None and with_facts.facts("blob.R") is None
    with_facts.text("a.R")
    assert with_facts.inventory() == plain.inventory()
    assert with_facts.inventory().problems == [] and with_facts.inventory().skipped == []


def test_the_path_class_is_part_of_the_key_and_equal_contents_are_parsed_once(make_tree, extract_calls):
    rmd = "---\ntitle: x\n---\n\n```{r}\nlibrary(dplyr)\n```\n"
    root = make_tree({"a.R": ANALYSIS_R, "copy/a.R": ANALYSIS_R, "b.r": ANALYSIS_R, "doc.R": rmd, "doc.Rmd": rmd})
    index = TreeIndex.from_path(root)
    facts = index.all_facts()
    assert facts["a.R"] is facts["copy/a.R"]
    assert facts["b.r"] == facts["a.R"]  # computed apart: another path class
    assert facts["doc.Rmd"] != facts["doc.R"]  # R chunks only, against the whole text as R
    assert sorted(path for path, _ in extract_calls) == ["a.R", "b.r", "doc.R", "doc.Rmd"]
    assert path_class("dir/doc.Rmd") == ".Rmd" and path_class("Snakefile") == "" and path_class(".Rprofile") == ""


def test_frontend_versions_in_keys_are_the_versions_the_frontends_write():
    samples = {"r": "a.R", "julia": "a.jl", "matlab": "a.m", "c_cpp": "a.c", "fortran": "a.f90",
               "nextflow": "main.nf", "snakemake": "Snakefile", "python": "a.py"}
    for name, version in installed_frontend_versions().items():
        path = samples.get(name)
        assert path is not None, f"add a sample file name for the {name} frontend"
        module = frontend_for(path)
        assert module is not None and module.__name__.endswith(f".{name}")
        assert module.extract(b"x = 1\n", path).frontend_version == version


def test_facts_naming_another_version_are_used_but_never_cached(make_tree, monkeypatch):
    original = r_frontend.extract
    monkeypatch.setattr(r_frontend, "extract", lambda data, path: replace(original(data, path), frontend_version="other"))
    cache = RecordingFactsCache(MemoryFactsCache())
    index = TreeIndex.from_path(make_tree({"a.R": ANALYSIS_R}), facts_cache=cache)
    assert index.facts("a.R").frontend_version == "other"
    assert cache.new == {}


# The detectors that read the facts of R scripts: what a failing R frontend may change
# (all four of category A: the shared §0.3 data-use fact reads R loading calls; E1: a
# deposit whose code imports nothing third-party has nothing to pin).
READS_R_FACTS = {"dep_pinning", "data_description", "silent_failure_masking", "inline_explanation_density", "seed_management", "config_externalised",
                 "hardware_requirements", "test_file_presence", "data_pointer", "data_acquisition_script",
                 "workflow_orchestration", "import_resolvability", "docstring_coverage",
                 "no_absolute_paths", "no_hardcoded_credentials"}

def test_a_frontend_that_fails_gives_no_facts_and_the_same_measurements(make_tree, monkeypatch):
    root = make_tree(TREE)
    before = _measured(root)

    def broken(data, path):
        raise RuntimeError("frontend bug")

    monkeypatch.setattr(r_frontend, "extract", broken)
    index = TreeIndex.from_path(root, facts_cache=MemoryFactsCache())
    assert index.facts("analysis.R") is None
    assert index.facts_error("analysis.R") == "RuntimeError: frontend bug"
    after = measure(index).to_dict()
    # Nothing raises; only the detectors that read R facts miss the R files (C4 scans
    # none of the three, D4 counts no R script: only the uncommented C file), every
    # other measurement is the same.
    changed = {m for m in before["submetrics"] if before["submetrics"][m] != after["submetrics"][m]}
    assert changed <= READS_R_FACTS and "silent_failure_masking" in changed
    assert before["submetrics"]["silent_failure_masking"]["counts"]["files_scanned"] == 3
    assert after["submetrics"]["silent_failure_masking"]["counts"]["files_scanned"] == 0
    assert after["submetrics"]["inline_explanation_density"]["value"] == 0.0
    assert after["submetrics"]["inline_explanation_density"]["counts"]["scripts_by_language"] == {"c_cpp": 1}


def test_content_keyed_parses_are_shared_and_their_problems_recorded_for_each_path(make_tree, monkeypatch):
    import scoring.tree as tree_module

    loads = []
    real_loads = json.loads

    def counting(text, *args, **kwargs):
        loads.append(text)
        return real_loads(text, *args, **kwargs)

    monkeypatch.setattr(tree_module.json, "loads", counting)
    root = make_tree({"a.json": '{"k": [1, 2]}', "b/a.json": '{"k": [1, 2]}', "bad.json": "{oops", "bad2.json": "{oops"})
    index = TreeIndex.from_path(root)
    assert index.json("a.json") == index.json("b/a.json") == {"k": [1, 2]}
    assert index.json("bad.json") is None and index.json("bad2.json") is None
    assert len(loads) == 2
    problems = {(p["path"], p["reason"]) for p in index.inventory().problems}
    reason = "invalid JSON: Expecting property name enclosed in double quotes at line 1"
    assert problems == {("bad.json", reason), ("bad2.json", reason)}


# --------------------------------------------------------------------------- a shared cache


def test_a_shared_cache_runs_frontends_only_for_new_blobs(make_tree, extract_calls):
    first = make_tree(TREE)
    second = make_tree({**TREE, "R/model.R": MODEL_R + "summary(fit)\n"})
    without_cache = [_measured(first), _measured(second)]
    # without a cache, facts are taken only when a detector asks (the data detectors read
    # the R files' facts), at most once per content and measurement
    assert {path for path, _ in extract_calls} <= {"R/model.R", "R/plot.R", "analysis.R", "src/kernel.c"}
    extract_calls.clear()

    cache = RecordingFactsCache(MemoryFactsCache())
    assert _measured(first, facts_cache=cache) == without_cache[0]
    assert sorted(path for path, _ in extract_calls) == ["R/model.R", "R/plot.R", "analysis.R", "src/kernel.c"]
    assert (cache.misses, cache.computed) == (4, 4)

    extract_calls.clear()
    assert _measured(first, facts_cache=cache) == without_cache[0]
    assert extract_calls == []
    assert cache.hits == 4 and cache.computed == 4

    extract_calls.clear()
    assert _measured(second, facts_cache=cache) == without_cache[1]
    assert extract_calls == [("R/model.R", (MODEL_R + "summary(fit)\n").encode())]
    assert cache.computed == 5
    new_key = FactsKey(git_blob((MODEL_R + "summary(fit)\n").encode()), "r", ".R", R_VERSION)
    assert new_key in cache.new


def test_the_memory_cache_is_a_bounded_lru():
    cache = MemoryFactsCache(max_entries=2)
    facts = FileFacts("r", "r", R_VERSION)
    keys = [FactsKey(f"{i:040x}", "r", ".R", R_VERSION) for i in range(3)]
    cache.put_many({keys[0]: facts, keys[1]: facts})
    assert cache.get_many([keys[0]]) == {keys[0]: facts}  # keys[0] is now the most recent
    cache.put_many({keys[2]: facts})
    assert len(cache) == 2 and keys[1] not in cache and keys[0] in cache and keys[2] in cache


# --------------------------------------------------------------------------- the store


def _keys_and_facts(root: Path) -> dict[FactsKey, FileFacts]:
    cache = RecordingFactsCache()
    TreeIndex.from_path(root, facts_cache=cache).all_facts()
    return cache.new


def test_the_store_round_trips_facts_with_batched_lookups(tmp_path, make_tree, monkeypatch):
    new = _keys_and_facts(make_tree(TREE))
    assert len(new) == 4
    with Store(tmp_path / "s.db") as store:
        assert store.save_facts(new) == 4
        assert store.save_facts(new) == 0  # idempotent
        monkeypatch.setattr(store_facts, "LOOKUP_CHUNK", 3)
        statements = []
        store.conn.set_trace_callback(statements.append)
        missing = FactsKey("0" * 40, "r", ".R", R_VERSION)
        other_version = next(iter(new))._replace(frontend_version="0.0.1")
        found = store.facts_cache().get_many([*new, missing, other_version])
        store.conn.set_trace_callback(None)
        assert found == new
        assert len([s for s in statements if s.startswith("SELECT")]) == 2  # 4 blob ids, 3 a query
        row = store.conn.execute("SELECT facts FROM file_facts WHERE blob_id = ?",
                                 (git_blob(ANALYSIS_R.encode()),)).fetchone()
        assert isinstance(row[0], bytes)
        assert zlib.decompress(row[0]).decode() == new[FactsKey(git_blob(ANALYSIS_R.encode()), "r", ".R", R_VERSION)].to_json()
        assert store.stats()["tables"]["file_facts"] == 4
    # A worker's read-only reader sees the same rows, and writes nothing.
    reader = FactsReader(tmp_path / "s.db")
    assert reader.get_many(list(new)) == new
    reader.put_many({missing: FileFacts("r", "r", R_VERSION)})
    assert reader.get_many([missing]) == {}
    assert FactsReader(tmp_path / "absent.db").get_many(list(new)) == {}


def test_only_vetted_facts_reach_the_table(tmp_path):
    key = FactsKey(EMPTY_BLOB, "r", ".R", R_VERSION)
    with Store(tmp_path / "s.db") as store:
        with pytest.raises(TypeError), store.write() as conn:
            store_facts.insert_facts(conn, {key: FileFacts("r", "r", R_VERSION).to_json()})
        with pytest.raises(TypeError), store.write() as conn:
            store_facts.insert_facts(conn, {key: zlib.compress(FileFacts("r", "r", R_VERSION).to_json().encode())})
        assert store.conn.execute("SELECT count(*) FROM file_facts").fetchone() == (0,)


def test_an_undecodable_row_is_ignored_and_computed_again(tmp_path, make_tree, extract_calls):
    root = make_tree(TREE)
    expected = _measured(root)
    extract_calls.clear()
    key = FactsKey(git_blob(ANALYSIS_R.encode()), "r", ".R", R_VERSION)
    db = tmp_path / "s.db"
    with Store(db) as store:
        with store.write() as conn:
            conn.execute("PRAGMA ignore_check_constraints = ON")
            rows = [
                (key.blob_id, "r", ".R", R_VERSION, b"x\x01truncated"),  # not zlib
                (git_blob(PLOT_R.encode()), "r", ".R", R_VERSION, zlib.compress(b'{"language": "r"}')),  # not facts
                # facts that name another version than their key
                (git_blob(MODEL_R.encode()), "r", ".R", R_VERSION, zlib.compress(FileFacts("r", "r", "0.1").to_json().encode())),
            ]
            conn.executemany("INSERT INTO file_facts VALUES (?, ?, ?, ?, ?, 'now')", rows)
        conn.execute("PRAGMA ignore_check_constraints = OFF")
        cache = RecordingFactsCache(store.facts_cache())
        assert _measured(root, facts_cache=cache) == expected
        assert sorted(path for path, _ in extract_calls) == ["R/model.R", "R/plot.R", "analysis.R", "src/kernel.c"]
        assert cache.hits == 0 and cache.computed == 4
        # The unusable rows stay what they are (insert-or-ignore); the kernel's is new.
        assert store.conn.execute("SELECT facts FROM file_facts WHERE blob_id = ?", (key.blob_id,)).fetchone() == (b"x\x01truncated",)
        assert store.conn.execute("SELECT count(*) FROM file_facts").fetchone() == (4,)


def test_a_database_at_m007_is_upgraded_with_the_facts_table(tmp_path, make_tree):
    db = tmp_path / "old.db"
    old = Database(db)
    migrations.apply(old, stop_before="m008_file_facts")
    assert "file_facts" not in old.table_names() and "snapshots" in old.table_names()
    old.conn.close()
    with Store(db) as store:
        assert [m["name"] for m in store.schema()] == list(migration_names())
        assert store.schema()[-1]["name"] == "m009_file_facts_compressed"
        columns = [row[1] for row in store.conn.execute("PRAGMA table_info(file_facts)")]
        assert columns == ["blob_id", "frontend", "path_class", "frontend_version", "facts", "created_at"]
        pk = [row[1] for row in sorted(store.conn.execute("PRAGMA table_info(file_facts)"), key=lambda r: r[5]) if row[5]]
        assert pk == ["blob_id", "frontend", "path_class", "frontend_version"]
        sql = store.conn.execute("SELECT sql FROM sqlite_master WHERE name = 'file_facts'").fetchone()[0]
        assert "WITHOUT ROWID" in sql
        new = _keys_and_facts(make_tree(TREE))
        assert store.save_facts(new) == 4
        with pytest.raises(sqlite3.IntegrityError), store.write() as conn:
            conn.execute("INSERT INTO file_facts VALUES ('xyz', 'r', '.R', '1', x'00', 'now')")
        with pytest.raises(sqlite3.IntegrityError), store.write() as conn:
            conn.execute("INSERT INTO file_facts VALUES (?, 'r', '.R', '1', '{}', 'now')", (EMPTY_BLOB,))


def test_m009_drops_the_text_rows_of_m008_and_stores_compressed_facts(tmp_path, make_tree):
    db = tmp_path / "m008.db"
    old = Database(db)
    migrations.apply(old, stop_before="m009_file_facts_compressed")
    old.conn.execute("INSERT INTO file_facts VALUES (?, 'r', '.R', ?, ?, 'now')",
                     (EMPTY_BLOB, R_VERSION, FileFacts("r", "r", R_VERSION).to_json()))
    old.conn.commit()
    old.conn.close()
    with Store(db) as store:
        assert store.schema()[-1]["name"] == "m009_file_facts_compressed"
        assert store.conn.execute("SELECT count(*) FROM file_facts").fetchone() == (0,)  # a cache: computed again
        new = _keys_and_facts(make_tree(TREE))
        assert store.save_facts(new) == 4
        stored = store.conn.execute("SELECT sum(length(facts)) FROM file_facts").fetchone()[0]
        assert stored * 2 < sum(len(facts.to_json()) for facts in new.values())
        assert store.load_facts(list(new)) == new


def test_prune_facts_drops_versions_not_installed(tmp_path, make_tree):
    new = _keys_and_facts(make_tree(TREE))
    old = {key._replace(frontend_version="0.9.0+tslp0.12.0"): replace(facts, frontend_version="0.9.0+tslp0.12.0")
           for key, facts in new.items()}
    gone = {FactsKey(EMPTY_BLOB, "cobol", ".cbl", "1.0.0"): FileFacts("cobol", "cobol", "1.0.0")}
    with Store(tmp_path / "s.db") as store:
        store.save_facts({**new, **old, **gone})
        assert store.conn.execute("SELECT count(*) FROM file_facts").fetchone() == (9,)
        assert store.prune_facts() == 5
        assert store.load_facts(list(new)) == new
        assert store.prune_facts() == 0
        assert store.prune_facts({"r": R_VERSION}) == 1  # the C file's, by an explicit set
        assert store.prune_facts({}) == 3


# --------------------------------------------------------------------------- worker processes


def test_measure_many_in_worker_processes_returns_and_persists_facts(tmp_path, make_tree):
    first = make_tree(TREE)
    second = make_tree({**TREE, "R/model.R": MODEL_R + "summary(fit)\n"})
    third = make_tree({**TREE, "analysis.R": ANALYSIS_R + "print(x)\n"})
    expected = {str(p): _measured(p) for p in (first, second, third)}
    db = tmp_path / "s.db"
    with Store(db) as store:
        cache = RecordingFactsCache(store.facts_cache())
        results = list(measure_many([first], jobs=2, facts_cache=cache))
        assert [m.to_dict() for _, m in results] == [expected[str(first)]]
        assert cache.computed == 4
        assert store.conn.execute("SELECT count(*) FROM file_facts").fetchone() == (4,)
        # Two trees in two worker processes: each reads the store's rows read-only, and
        # hands back only the facts of its one new blob, which this process writes.
        cache = RecordingFactsCache(store.facts_cache())
        results = list(measure_many([second, third], jobs=2, facts_cache=cache))
        assert {path: m.to_dict() for path, m in results} == {str(p): expected[str(p)] for p in (second, third)}
        assert sorted(cache.new) == sorted([
            FactsKey(git_blob((MODEL_R + "summary(fit)\n").encode()), "r", ".R", R_VERSION),
            FactsKey(git_blob((ANALYSIS_R + "print(x)\n").encode()), "r", ".R", R_VERSION),
        ])
        assert store.conn.execute("SELECT count(*) FROM file_facts").fetchone() == (6,)
    # A memory cache offers the workers nothing: they compute, and it learns what they return.
    memory = RecordingFactsCache(MemoryFactsCache())
    assert [m.to_dict() for _, m in measure_many([first, second], jobs=2, facts_cache=memory)] == [
        expected[str(first)], expected[str(second)]]
    assert memory.computed == 5


def test_score_stores_facts_with_each_snapshot_and_reuses_them(tmp_path, make_tree, monkeypatch):
    first = make_tree(TREE)
    second = make_tree({**TREE, "R/model.R": MODEL_R + "summary(fit)\n"})
    db = tmp_path / "s.db"
    results = list(api.score_paths([first], db=db, jobs=2))
    assert not isinstance(results[0][1], BaseException)
    with Store(db) as store:
        stored = {row[0] for row in store.conn.execute("SELECT blob_id FROM file_facts")}
        assert stored == {git_blob(t.encode()) for t in (ANALYSIS_R, PLOT_R, MODEL_R)} | {
            git_blob(TREE["src/kernel.c"].encode())}
    # Measured in this process (one job): the stored facts serve, one blob is new.
    made = []
    real = store_facts.insert_facts

    def spying(conn, items):
        made.append(sorted(items))
        return real(conn, items)

    monkeypatch.setattr("reproscore.store.snapshots.insert_facts", spying)
    result = api.score_path(second, db=db)
    assert result.result["rrs"] == api.score_tree(second).result["rrs"]
    assert made == [[FactsKey(git_blob((MODEL_R + "summary(fit)\n").encode()), "r", ".R", R_VERSION)]]
    with Store(db) as store:
        assert store.conn.execute("SELECT count(*) FROM file_facts").fetchone() == (5,)


def test_a_snapshot_rolled_back_takes_its_facts_with_it(tmp_path, make_tree):
    new = encode_for_store(_keys_and_facts(make_tree(TREE)))
    db = tmp_path / "s.db"
    tree = make_tree(TREE)
    from scoring.trees.swhid import tree_identity

    identity = tree_identity(LocalDirectory(tree))
    measurements = measure(tree)
    with Store(db) as store:
        with pytest.raises(RuntimeError), store.batch(10) as batch:
            store.save_snapshot(identity, measurements, facts=new)
            batch.done()
            raise RuntimeError("killed mid-batch")
        assert store.conn.execute("SELECT count(*) FROM file_facts").fetchone() == (0,)
        assert store.find_snapshot(identity.swhid) is None
        store.save_snapshot(identity, measurements, facts=new)
        assert store.conn.execute("SELECT count(*) FROM file_facts").fetchone() == (4,)


# --------------------------------------------------------------------------- secrets

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
PEM_BODY = "MIIEpAIBAAKCAQEA7bq98abcdefghijklmnopqrstuvwxyz0123456789"
PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----"


def test_facts_secret_free_judges_strings_as_redact_does():
    def facts(*strings: StringFact) -> FileFacts:
        return FileFacts("r", "r", R_VERSION, strings=strings)

    assert facts_secret_free(facts(StringFact("data/input.csv", 1, 1), StringFact("https://cran.r-project.org", 2, 2)))
    assert not facts_secret_free(facts(StringFact(TOKEN, 1, 1)))
    assert not facts_secret_free(facts(StringFact(PEM, 1, 3)))
    assert not facts_secret_free(facts(StringFact("hunter22", 1, 1, binding="password")))
    assert not facts_secret_free(facts(StringFact("https://user:s3cret@example.org/x", 1, 1)))
    # What redaction leaves is not a secret.
    assert facts_secret_free(facts(StringFact("-----BEGIN PRIVATE KEY----- [redacted]\nmore", 1, 2),
                                   StringFact("ghp_…(40 chars)", 3, 3)))
    assert encode_for_store({FactsKey(EMPTY_BLOB, "r", ".R", R_VERSION): facts(StringFact(TOKEN, 1, 1))}) == {}
    stored = encode_for_store({FactsKey(EMPTY_BLOB, "r", ".R", R_VERSION): facts(StringFact("x.csv", 1, 1))})
    [value] = stored.values()
    assert isinstance(value, StorableFacts)
    assert zlib.decompress(value).decode() == facts(StringFact("x.csv", 1, 1)).to_json()
    assert decode_stored(value) == facts(StringFact("x.csv", 1, 1))


def test_no_secret_in_a_deposit_reaches_the_database(tmp_path, make_tree):
    secrets_r = (
        f'token <- "{TOKEN}"\n'
        f'key <- "{PEM.replace(chr(10), chr(92) + "n")}"\n'
        f"# {TOKEN} in a comment\n"
        'gh <- httr::GET("https://api.github.com", httr::add_headers(Authorization = paste("token", token)))\n'
    )
    pem_r = f"key <- '\n{PEM}\n'\n"
    root = make_tree({**TREE, "R/secrets.R": secrets_r, "R/pem.R": pem_r})
    db = tmp_path / "secrets.db"
    result = CliRunner().invoke(cli, ["score", str(root), "--db", str(db), "--workers", "1", "--format", "json"])
    assert result.exit_code == 0, result.output
    copy = make_tree({**TREE, "R/secrets.R": secrets_r + "x <- 1\n", "R/pem.R": pem_r})
    assert list(api.score_paths([copy], db=db, jobs=2))[0][1].result["rrs"] >= 0
    # Every byte of the database (all tables, file_facts included; the WAL too).
    data = b"".join(path.read_bytes() for path in sorted(tmp_path.glob("secrets.db*")))
    for secret in (TOKEN, PEM_BODY, TOKEN[4:]):
        assert secret.encode() not in data
    with Store(db) as store:
        blobs = {row[0] for row in store.conn.execute("SELECT blob_id FROM file_facts")}
        # Every file's facts are stored: a frontend masks secrets as it extracts, so the
        # facts of the files with secrets hold the masks (and the store's own check,
        # facts_secret_free, finds nothing left to refuse).
        assert {git_blob(ANALYSIS_R.encode()), git_blob(secrets_r.encode()), git_blob(pem_r.encode())} <= blobs
        stored = dict(store.conn.execute("SELECT blob_id, facts FROM file_facts"))
    masked = stored[git_blob(secrets_r.encode())]
    masked = zlib.decompress(masked).decode()
    assert "ghp_…(40 chars)" in masked and "-----BEGIN PRIVATE KEY----- [redacted]" in masked


def test_the_store_cache_offers_workers_a_reader(tmp_path):
    with Store(tmp_path / "s.db") as store:
        cache = store.facts_cache()
        assert isinstance(cache, StoreFactsCache)
        reader = cache.worker_cache()
        assert isinstance(reader, FactsReader) and reader.path == str(tmp_path / "s.db")
        import pickle

        assert pickle.loads(pickle.dumps(reader)).path == reader.path
        assert RecordingFactsCache(cache).worker_cache().path == reader.path


def test_trees_copied_keep_their_facts(tmp_path, make_tree):
    # The cache is keyed by content, not by path or tree: a tree moved is all hits.
    root = make_tree(TREE)
    moved = tmp_path / "moved"
    shutil.copytree(root, moved / "deeper")
    cache = RecordingFactsCache(MemoryFactsCache())
    measure(root, facts_cache=cache)
    measure(moved / "deeper", facts_cache=cache)
    assert cache.computed == 4 and cache.hits == 4


def test_reading_facts_in_this_process_leaves_no_connection_behind(tmp_path, make_tree):
    # A reader kept open would keep the store's last close from folding the WAL back
    # into the file: a copy of the file alone would then miss what was stored.
    db = tmp_path / "s.db"
    api.score_path(make_tree(TREE), db=db)
    api.score_path(make_tree({**TREE, "R/model.R": MODEL_R + "summary(fit)\n"}), db=db)
    assert not Path(f"{db}-wal").exists()
    copy = tmp_path / "copy.db"
    shutil.copy(db, copy)
    conn = sqlite3.connect(copy)
    assert conn.execute("SELECT count(*) FROM file_facts").fetchone() == (5,)
    assert conn.execute("SELECT count(*) FROM snapshots").fetchone() == (2,)
    conn.close()


def test_what_is_derived_from_one_content_is_shared_by_the_versions_measured_with_one_cache(tmp_path):
    """A version file's interpreter declarations ride on the facts cache (DerivedCache):
    the second version derives them again only where its file changed."""
    from scoring import measure

    first, second = tmp_path / "v1", tmp_path / "v2"
    for root in (first, second):
        root.mkdir()
        (root / ".python-version").write_text("3.11.4\n")
        (root / "runtime.txt").write_text("python-3.11.4\n")
        (root / "a.py").write_text("import os\n")
    (second / "runtime.txt").write_text("python-3.12.1\n")
    cache = MemoryFactsCache()
    measure(first, facts_cache=cache)
    assert sorted(kind for kind, _blob in cache.derived._entries) == [
        "version_file:.python-version", "version_file:runtime.txt"]
    again = measure(second, facts_cache=cache)
    assert len(cache.derived) == 3            # only the changed runtime.txt was derived again
    assert again.to_dict()["submetrics"]["python_version_declared"] == \
        measure(second).to_dict()["submetrics"]["python_version_declared"]


def test_credential_findings_ride_on_the_facts_so_a_new_version_reads_only_its_changed_file(tmp_path):
    """C3's per-file credential findings are facts (FileFacts.credentials): the second
    version runs a frontend only for its changed file, and measures as a fresh run does."""
    from scoring import measure

    files = {
        "a.py": 'API_KEY = "9f8e7d6c5b4a39281706f5e4d3c2b1a0"\n',
        "b.R": 'library(httr)\nkey <- "plain"\n',
        "c.jl": "using Random\nx = rand(3)\n",
    }
    first, second = tmp_path / "v1", tmp_path / "v2"
    for root in (first, second):
        root.mkdir()
        for name, text in files.items():
            (root / name).write_text(text)
    (second / "b.R").write_text('library(httr)\npassword <- "s3cr3t-passw0rd-2024"\n')
    cache = RecordingFactsCache(MemoryFactsCache())
    measure(first, facts_cache=cache)
    assert cache.computed == 3
    again = measure(second, facts_cache=cache)
    assert cache.computed == 4                # only the changed b.R was read again
    # the facts of each version's b.R, in the order they were read: the secret is masked
    assert [[(c.name, c.masked) for c in facts.credentials] for key, facts in cache.new.items()
            if key.frontend == "r"] == [[], [("password", "s3cr…(20 chars)")]]
    fresh = measure(second)
    assert again.to_dict()["submetrics"]["no_hardcoded_credentials"] == \
        fresh.to_dict()["submetrics"]["no_hardcoded_credentials"]
    c3 = fresh.to_dict()["submetrics"]["no_hardcoded_credentials"]
    assert (round(c3["value"], 2), [e["path"] for e in c3["evidence"]]) == (33.33, ["a.py", "b.R"])
