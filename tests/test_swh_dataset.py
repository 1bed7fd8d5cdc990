"""The archive-wide path: trees read from Software Heritage's graph dataset layout.

The tests write a small export in the dataset's own schema (Parquet and ORC, the column
names and types of swh-export's ``swh/export/relational.py`` and its Parquet type map,
spelled out below), from real trees (tests/fixtures/samples and a tree with links,
modes, empty folders and a non-UTF-8 name), with every id computed by
``scoring.trees.swhid``, and a content store laid out as the public bucket
(``content/<sha1>``, objects gzip-compressed or not). Measuring an origin resolved from
the tables must give the SWHID and the measurements of the directory itself.
"""

from __future__ import annotations

import gzip
import hashlib
import os
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.orc as orc
import pyarrow.parquet as pq
import pytest
from replay_server import ReplayServer, Reply

from harvester.http import HttpClient
from harvester.swh import ResolutionError
from harvester.swh_dataset import (
    ContentError,
    DatasetTreeError,
    GraphDataset,
    HttpContentStore,
    LocalContentStore,
    decode_content,
)
from scoring import measure
from scoring.tree import TreeIndex
from scoring.trees.sources import KIND_DIR, KIND_FILE, KIND_LINK, LocalDirectory
from scoring.trees.swhid import blob_hash, tree_identity

SAMPLES = Path(__file__).parent / "fixtures" / "samples"

# -- the dataset's schema ------------------------------------------------------------------
# swh-export, swh/export/relational.py (MAIN_TABLES and RELATION_TABLES), with the Parquet
# types of swh/export/exporters/parquet.py (ARROW_TYPE_MAP). The ORC export uses ORC's
# timestamp for both timestamp kinds.

SCHEMA = {
    "origin": [("id", "string"), ("url", "string")],
    "origin_visit": [("origin", "string"), ("visit", "bigint"), ("date", "visit_timestamp"), ("type", "string")],
    "origin_visit_status": [
        ("origin", "string"),
        ("visit", "bigint"),
        ("date", "visit_timestamp"),
        ("status", "string"),
        ("snapshot", "string"),
        ("type", "string"),
    ],
    "snapshot": [("id", "string")],
    "snapshot_branch": [("snapshot_id", "string"), ("name", "binary"), ("target", "string"), ("target_type", "string")],
    "release": [
        ("id", "string"),
        ("name", "binary"),
        ("message", "binary"),
        ("target", "string"),
        ("target_type", "string"),
        ("author", "binary"),
        ("date", "timestamp"),
        ("date_offset", "smallint"),
        ("date_raw_offset_bytes", "binary"),
        ("raw_manifest", "binary"),
    ],
    "revision": [
        ("id", "string"),
        ("message", "binary"),
        ("author", "binary"),
        ("date", "timestamp"),
        ("date_offset", "smallint"),
        ("date_raw_offset_bytes", "binary"),
        ("committer", "binary"),
        ("committer_date", "timestamp"),
        ("committer_offset", "smallint"),
        ("committer_date_raw_offset_bytes", "binary"),
        ("directory", "string"),
        ("type", "string"),
        ("raw_manifest", "binary"),
    ],
    "directory": [("id", "string"), ("raw_manifest", "binary")],
    "directory_entry": [
        ("directory_id", "string"),
        ("name", "binary"),
        ("type", "string"),
        ("target", "string"),
        ("perms", "int"),
    ],
    "content": [
        ("sha1", "string"),
        ("sha1_git", "string"),
        ("sha256", "string"),
        ("blake2s256", "string"),
        ("length", "bigint"),
        ("status", "string"),
        ("data", "binary"),
    ],
    "skipped_content": [
        ("sha1", "string"),
        ("sha1_git", "string"),
        ("sha256", "string"),
        ("blake2s256", "string"),
        ("length", "bigint"),
        ("status", "string"),
        ("reason", "string"),
    ],
}

PARQUET_TYPES = {
    "string": pa.string(),
    "smallint": pa.int16(),
    "int": pa.int32(),
    "bigint": pa.int64(),
    "visit_timestamp": pa.timestamp("us", tz="UTC"),
    "timestamp": pa.struct([("seconds", pa.int64()), ("nanoseconds", pa.uint32())]),
    "binary": pa.binary(),
}
ORC_TYPES = PARQUET_TYPES | {"visit_timestamp": pa.timestamp("ns"), "timestamp": pa.timestamp("ns")}


def write_tables(root: Path, tables: dict[str, list[dict]], fmt: str, schema_of=None) -> Path:
    types = PARQUET_TYPES if fmt == "parquet" else ORC_TYPES
    for name, columns in (schema_of or SCHEMA).items():
        schema = pa.schema([(column, types[kind]) for column, kind in columns])
        rows = [{column: row.get(column) for column, _ in columns} for row in tables.get(name, [])]
        table = pa.Table.from_pylist(rows, schema=schema)
        folder = root / name
        folder.mkdir(parents=True)
        # Files named as the exporter names them: <table>-<uuid>.<format>.
        path = folder / f"{name}-00000000-0000-0000-0000-000000000000.{fmt}"
        if fmt == "parquet":
            pq.write_table(table, path, compression="zstd")
        else:
            orc.write_table(table, path, compression="zstd")
    return root


# -- a sample export from real trees -------------------------------------------------------

PERMS = {"file": 0o100644, "exec": 0o100755, "link": 0o120000, "dir": 0o040000}


def hexid(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


class Export:
    """Rows of a small export and the content store beside it."""

    def __init__(self, store: Path) -> None:
        self.store = store
        self.tables: dict[str, list[dict]] = {name: [] for name in SCHEMA}
        self._seen_dirs: set[str] = set()
        self._seen_contents: set[str] = set()
        self.objects = 0

    def add_content(self, data: bytes, *, gzipped: bool, skipped: bool = False) -> str:
        sha1_git = blob_hash(data).hex()
        if sha1_git in self._seen_contents:
            return sha1_git
        self._seen_contents.add(sha1_git)
        row = {
            "sha1": hashlib.sha1(data).hexdigest(),
            "sha1_git": sha1_git,
            "sha256": hashlib.sha256(data).hexdigest(),
            "blake2s256": hashlib.blake2s(data).hexdigest(),
            "length": len(data),
        }
        if skipped:
            self.tables["skipped_content"].append(row | {"status": "absent", "reason": "Content too large"})
            return sha1_git
        self.tables["content"].append(row | {"status": "visible"})
        path = self.store / "content" / row["sha1"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(gzip.compress(data, mtime=0) if gzipped else data)
        self.objects += 1
        return sha1_git

    def add_tree(self, root: Path, *, skip: frozenset[str] = frozenset()) -> str:
        """Every folder, entry and content of the tree at ``root``; its directory id."""
        return self._add_dir(LocalDirectory(root), os.fsencode(root), "", skip)

    def _add_dir(self, source: LocalDirectory, real: bytes, path: str, skip: frozenset[str]) -> str:
        # ``path`` is the display path the source lists; ``real`` the folder's bytes path.
        directory = tree_identity(LocalDirectory(os.fsdecode(real))).swhid.rsplit(":", 1)[1]
        entries = []
        for index, entry in enumerate(source.listdir(path)):
            name = source.raw_name(entry.path)
            if name == b".git":
                continue
            child = os.path.join(real, name)
            if entry.kind == KIND_DIR:
                target = self._add_dir(source, child, entry.path, skip)
                entries.append((name, "dir", target, PERMS["dir"]))
            elif entry.kind == KIND_LINK:
                target = self.add_content(os.readlink(child), gzipped=index % 2 == 0)
                entries.append((name, "file", target, PERMS["link"]))
            else:
                data = Path(os.fsdecode(child)).read_bytes()
                target = self.add_content(data, gzipped=index % 2 == 0, skipped=entry.path in skip)
                entries.append((name, "file", target, PERMS["exec" if entry.executable else "file"]))
        if directory not in self._seen_dirs:
            self._seen_dirs.add(directory)
            self.tables["directory"].append({"id": directory})
            for name, kind, target, perms in entries:
                self.tables["directory_entry"].append(
                    {"directory_id": directory, "name": name, "type": kind, "target": target, "perms": perms}
                )
        return directory

    def add_revision(self, directory: str, message: str) -> str:
        revision = hexid("revision " + message)
        self.tables["revision"].append(
            {"id": revision, "message": message.encode(), "directory": directory, "type": "git", "author": b"anon"}
        )
        return revision

    def add_release(self, target: str, target_type: str, name: str) -> str:
        release = hexid("release " + name)
        self.tables["release"].append(
            {"id": release, "name": name.encode(), "target": target, "target_type": target_type}
        )
        return release

    def add_snapshot(self, key: str, branches: dict[bytes, tuple[str, str]]) -> str:
        snapshot = hexid("snapshot " + key)
        self.tables["snapshot"].append({"id": snapshot})
        for name, (target, target_type) in branches.items():
            self.tables["snapshot_branch"].append(
                {"snapshot_id": snapshot, "name": name, "target": target, "target_type": target_type}
            )
        return snapshot

    def add_visit(self, origin: str, visit: int, day: int, status: str, snapshot: str | None, kind: str) -> None:
        if not any(row["url"] == origin for row in self.tables["origin"]):
            self.tables["origin"].append({"id": hexid(origin), "url": origin})
        date = datetime(2026, 3, day, 12, 0, tzinfo=UTC)
        if not any(r["origin"] == origin and r["visit"] == visit for r in self.tables["origin_visit"]):
            self.tables["origin_visit"].append({"origin": origin, "visit": visit, "date": date, "type": kind})
        self.tables["origin_visit_status"].append(
            {"origin": origin, "visit": visit, "date": date, "status": status, "snapshot": snapshot, "type": kind}
        )


def alias(name: bytes) -> str:
    # swh-export passes every branch target through hash_to_hex: an alias's target, a
    # branch *name*, is written hex-encoded.
    return name.hex()


GIT_ORIGIN = "https://github.com/example/snakemake-rnaseq"
DEPOSIT_ORIGIN = "https://doi.org/10.5281/zenodo.1000001"
LEGACY_DEPOSIT_ORIGIN = "https://hal.archives-ouvertes.fr/hal-01000001"
RICH_ORIGIN = "https://doi.org/10.5281/zenodo.1000002"


def build_rich_tree(root: Path) -> Path:
    files = {
        "README.md": "# Rich\n\nSee docs/guide.md.\n",
        "docs/guide.md": "## Usage\n\n```\n./run.sh\n```\n",
        "run.sh": "#!/bin/sh\npython analysis.py\n",
        "analysis.py": "import numpy as np\nnp.random.seed(1)\n",
        "requirements.txt": "numpy==1.26.4\n",
        "data/big.csv": "a,b\n" + "1,2\n" * 50,
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / "run.sh").chmod(0o755)
    (root / "empty").mkdir()
    (root / os.fsdecode(b"caf\xe9.py")).write_text("x = 1\n")
    os.symlink("docs/guide.md", root / "GUIDE.md")
    os.symlink("docs", root / "documentation")
    os.symlink("nowhere.txt", root / "dangling.txt")
    return root


@pytest.fixture(scope="module")
def export(tmp_path_factory) -> tuple[Export, dict[str, str], Path]:
    base = tmp_path_factory.mktemp("swh")
    rich = build_rich_tree(base / "rich")
    export = Export(base / "store")
    dirs = {name: export.add_tree(SAMPLES / name) for name in sorted(os.listdir(SAMPLES))}
    dirs["rich"] = export.add_tree(rich, skip=frozenset({"data/big.csv"}))

    # A git origin: HEAD is an alias of refs/heads/main; an older visit saw another tree;
    # a newer visit failed, and the newest only started (no snapshot).
    old = export.add_snapshot("old", {b"HEAD": (alias(b"refs/heads/main"), "alias"),
                                      b"refs/heads/main": (export.add_revision(dirs["legacy-scripts"], "old"), "revision")})
    head = export.add_revision(dirs["snakemake-rnaseq"], "v2")
    new = export.add_snapshot("new", {b"HEAD": (alias(b"refs/heads/main"), "alias"),
                                      b"refs/heads/main": (head, "revision"),
                                      b"refs/tags/v1": (export.add_release(head, "revision", "v1"), "release")})
    export.add_visit(GIT_ORIGIN, 1, 1, "full", old, "git")
    export.add_visit(GIT_ORIGIN, 2, 2, "created", None, "git")
    export.add_visit(GIT_ORIGIN, 2, 2, "full", new, "git")
    export.add_visit(GIT_ORIGIN, 3, 3, "failed", None, "git")
    export.add_visit(GIT_ORIGIN, 4, 4, "ongoing", None, "git")
    # A deposit: HEAD → a synthetic release → the directory.
    release = export.add_release(dirs["notebook-ml-study"], "directory", "HEAD")
    export.add_visit(DEPOSIT_ORIGIN, 1, 5, "full", export.add_snapshot("deposit", {b"HEAD": (release, "release")}), "deposit")
    # A legacy deposit: a "master" branch to a synthetic revision; no HEAD.
    legacy = export.add_revision(dirs["r-survey-analysis"], "legacy deposit")
    export.add_visit(LEGACY_DEPOSIT_ORIGIN, 1, 6, "partial", export.add_snapshot("legacy", {b"master": (legacy, "revision")}), "deposit")
    rich_release = export.add_release(dirs["rich"], "directory", "rich")
    export.add_visit(RICH_ORIGIN, 1, 7, "full", export.add_snapshot("rich", {b"HEAD": (rich_release, "release")}), "deposit")
    return export, dirs, rich


@pytest.fixture(scope="module", params=["parquet", "orc"])
def dataset(request, export, tmp_path_factory) -> GraphDataset:
    rows, _dirs, _rich = export
    root = write_tables(tmp_path_factory.mktemp(request.param), rows.tables, request.param)
    return GraphDataset(root)


class CountingStore(LocalContentStore):
    """The on-disk store, counting what is fetched."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.fetched: list[str] = []

    def get(self, sha1: str, length: int) -> bytes:
        self.fetched.append(sha1)
        return super().get(sha1, length)


def entries(source, path: str = "") -> list:
    found = []
    for entry in source.listdir(path):
        found.append(entry)
        if entry.kind == KIND_DIR:
            found.extend(entries(source, entry.path))
    return found


# -- origin → root directory ---------------------------------------------------------------


def test_the_latest_usable_visit_is_chosen(dataset):
    visit = dataset.latest_visit(GIT_ORIGIN)
    assert (visit.visit, visit.status, visit.type) == (2, "full", "git")
    assert visit.snapshot == hexid("snapshot new")
    assert [v.visit for v in dataset.visits(GIT_ORIGIN)] == [2, 1]
    assert dataset.latest_visit("https://example.org/unknown") is None
    assert dataset.latest_visit(GIT_ORIGIN, visit_type="deposit") is None


def test_origins_are_selected_from_the_tables(dataset):
    assert dataset.origins(visit_type="deposit") == [DEPOSIT_ORIGIN, RICH_ORIGIN, LEGACY_DEPOSIT_ORIGIN]
    assert dataset.origins() == [DEPOSIT_ORIGIN, RICH_ORIGIN, GIT_ORIGIN, LEGACY_DEPOSIT_ORIGIN]


def test_a_git_origin_resolves_through_its_head_alias(dataset, export):
    _rows, dirs, _rich = export
    visit, root = dataset.resolve_origin(GIT_ORIGIN)
    assert visit.visit == 2
    assert (root.alias, root.branch, root.target_type) == ("HEAD", "refs/heads/main", "revision")
    assert root.revision == hexid("revision v2") and root.release is None
    assert root.swhid == "swh:1:dir:f4af46bf46f33746dd68f1209e296013a73a8f42" == f"swh:1:dir:{dirs['snakemake-rnaseq']}"


def test_a_deposit_resolves_through_its_release(dataset):
    _visit, root = dataset.resolve_origin(DEPOSIT_ORIGIN, visit_type="deposit")
    assert (root.alias, root.branch, root.target_type) == (None, "HEAD", "release")
    assert root.release == hexid("release HEAD") and root.revision is None
    assert root.swhid == "swh:1:dir:b538440cc327ef6ed317cf2e16ba11202b59a22d"


def test_a_legacy_deposit_without_head_uses_master(dataset):
    visit, root = dataset.resolve_origin(LEGACY_DEPOSIT_ORIGIN)
    assert visit.status == "partial"
    assert (root.branch, root.target_type, root.revision) == ("master", "revision", hexid("revision legacy deposit"))
    assert root.swhid == "swh:1:dir:0d97c8488e14abaee9c5b528f78524cf6c96c37d"


def test_an_origin_without_a_usable_visit_is_a_resolution_error(dataset):
    with pytest.raises(ResolutionError, match="no full or partial visit with a snapshot"):
        dataset.resolve_origin("https://example.org/never-archived")
    with pytest.raises(ResolutionError, match="is not in the dataset or has no branches"):
        dataset.resolve_root("0" * 40)


# -- measuring a tree from the dataset -----------------------------------------------------


@pytest.mark.parametrize(
    ("origin", "sample"),
    [
        (GIT_ORIGIN, "snakemake-rnaseq"),
        (DEPOSIT_ORIGIN, "notebook-ml-study"),
        (LEGACY_DEPOSIT_ORIGIN, "r-survey-analysis"),
    ],
)
def test_an_origin_measured_from_the_dataset_equals_its_directory(dataset, export, origin, sample):
    rows, _dirs, _rich = export
    store = CountingStore(rows.store)
    _visit, root = dataset.resolve_origin(origin)
    tree = dataset.tree(root.directory, store)
    local = LocalDirectory(SAMPLES / sample)
    assert entries(tree) == entries(local)
    # The identity is recomputed from the entries and the dataset's blob ids: no file
    # is fetched for it.
    identity = tree_identity(tree)
    assert identity == tree_identity(local)
    assert identity.swhid == tree.swhid == root.swhid
    assert store.fetched == []
    assert measure(tree).to_dict() == measure(SAMPLES / sample).to_dict()
    # Only what detectors read is fetched, each file once.
    assert len(store.fetched) == len(set(store.fetched)) <= identity.files


def test_links_modes_empty_folders_and_raw_names_come_through(dataset, export):
    rows, dirs, rich = export
    store = CountingStore(rows.store)
    _visit, root = dataset.resolve_origin(RICH_ORIGIN)
    tree = dataset.tree(root.directory, store)
    local = LocalDirectory(rich)
    # The skipped file is listed with its length, as on disk, but cannot be read.
    assert entries(tree) == entries(local)
    by_path = {e.path: e for e in entries(tree)}
    assert by_path["run.sh"].executable
    assert (by_path["GUIDE.md"].kind, by_path["GUIDE.md"].link_target) == (KIND_LINK, "docs/guide.md")
    assert by_path["documentation"].link_target_kind == KIND_DIR
    assert by_path["dangling.txt"].link_status == "dangling"
    assert by_path["empty"].kind == KIND_DIR
    assert by_path["caf\udce9.py"].kind == KIND_FILE
    assert tree.raw_name("caf\udce9.py") == b"caf\xe9.py"
    assert tree_identity(tree) == tree_identity(local)
    assert tree_identity(tree).swhid == f"swh:1:dir:{dirs['rich']}"
    index = TreeIndex(tree)
    assert index.text("data/big.csv") is None
    assert {"path": "data/big.csv", "reason": "unreadable: content not archived by Software Heritage"} in (
        index.inventory().skipped
    )
    assert index.text("README.md") == "# Rich\n\nSee docs/guide.md.\n"


def test_several_trees_load_together(dataset, export):
    rows, dirs, _rich = export
    wanted = [dirs["legacy-scripts"], dirs["notebook-ml-study"]]
    trees = list(dataset.trees(wanted, LocalContentStore(rows.store)))
    assert [tree_identity(t).swhid for t in trees] == [
        "swh:1:dir:c190d6b00105909ace81c53507984baab3780dff",
        "swh:1:dir:b538440cc327ef6ed317cf2e16ba11202b59a22d",
    ]
    assert measure(trees[0]).to_dict() == measure(SAMPLES / "legacy-scripts").to_dict()


def test_a_directory_missing_from_the_export_is_refused(dataset):
    with pytest.raises(DatasetTreeError, match="directory 1111111111111111111111111111111111111111 is not in the dataset"):
        dataset.tree("1" * 40, LocalContentStore("/nonexistent"))


def test_hostile_entry_names_and_cycles_are_refused(tmp_path):
    export = Export(tmp_path / "store")
    blob = export.add_content(b"x", gzipped=False)
    a, b, c = hexid("a"), hexid("b"), hexid("c")
    export.tables["directory"] += [{"id": a}, {"id": b}, {"id": c}]
    export.tables["directory_entry"] += [
        {"directory_id": a, "name": b"../escape", "type": "file", "target": blob, "perms": 0o100644},
        {"directory_id": b, "name": b"loop", "type": "dir", "target": b, "perms": 0o040000},
        {"directory_id": c, "name": b"x", "type": "file", "target": blob, "perms": 0o100644},
        {"directory_id": c, "name": b"x", "type": "file", "target": blob, "perms": 0o100644},
    ]
    dataset = GraphDataset(write_tables(tmp_path / "parquet", export.tables, "parquet"))
    store = LocalContentStore(export.store)
    with pytest.raises(DatasetTreeError, match=r"holds an entry named b'../escape'"):
        dataset.tree(a, store)
    with pytest.raises(DatasetTreeError, match="'loop' contains itself"):
        dataset.tree(b, store)
    with pytest.raises(DatasetTreeError, match=r"lists b'x' twice"):
        dataset.tree(c, store)


# -- the content store ---------------------------------------------------------------------

DATA = b"print('hello')\n" * 100
SHA1 = hashlib.sha1(DATA).hexdigest()


def test_objects_are_taken_raw_or_gunzipped_and_always_verified():
    assert decode_content(DATA, SHA1, len(DATA)) == DATA
    assert decode_content(gzip.compress(DATA), SHA1, len(DATA)) == DATA
    # A file that is itself gzip data is stored as it is: its own SHA-1 decides.
    packed = gzip.compress(DATA)
    assert decode_content(packed, hashlib.sha1(packed).hexdigest(), len(packed)) == packed
    with pytest.raises(ContentError, match="is not the 1500-byte file keyed by it"):
        decode_content(DATA.upper(), SHA1, len(DATA))
    with pytest.raises(ContentError, match="corrupt gzip object"):
        decode_content(b"\x1f\x8b" + b"\x00" * 20, SHA1, len(DATA))


def test_a_gzip_bomb_is_not_inflated_past_the_known_length():
    bomb = gzip.compress(b"\x00" * (50 * 1024 * 1024))
    with pytest.raises(ContentError, match="is not the 10-byte file"):
        decode_content(bomb, hashlib.sha1(b"\x00" * 10).hexdigest(), 10)


def test_the_local_store_refuses_keys_that_are_not_sha1s(tmp_path):
    store = LocalContentStore(tmp_path)
    with pytest.raises(ContentError, match="not a content sha1"):
        store.get("../../etc/passwd", 10)
    with pytest.raises(FileNotFoundError):
        store.get(SHA1, len(DATA))


def test_a_corrupt_object_makes_a_file_unreadable_not_wrong(tmp_path):
    root = tmp_path / "tree"
    root.mkdir()
    (root / "README.md").write_text("# Title\n")
    (root / "main.py").write_text("print(1)\n")
    export = Export(tmp_path / "store")
    directory = export.add_tree(root)
    (export.store / "content" / hashlib.sha1(b"print(1)\n").hexdigest()).write_bytes(b"print(2)\n")  # bit rot
    dataset = GraphDataset(write_tables(tmp_path / "parquet", export.tables, "parquet"))
    tree = dataset.tree(directory, LocalContentStore(export.store))
    assert tree_identity(tree) == tree_identity(LocalDirectory(root))  # ids come from the tables
    index = TreeIndex(tree)
    assert index.text("main.py") is None
    sha1 = hashlib.sha1(b"print(1)\n").hexdigest()
    assert index.skip_reason("main.py") == (
        f"unreadable: content {sha1}: the stored object is not the 9-byte file keyed by it"
    )
    assert index.text("README.md") == "# Title\n"


@pytest.fixture
def client():
    with HttpClient(user_agent="reproscore-test", timeout=(2, 2), max_attempts=2, backoff_base=0.0, sleep=lambda s: None) as http:
        yield http


def test_the_http_store_reads_the_bucket_layout(client):
    packed = gzip.compress(DATA)
    missing = hashlib.sha1(b"missing").hexdigest()
    wrong = hashlib.sha1(b"wrong").hexdigest()
    with ReplayServer() as server:
        server.add("GET", f"/content/{SHA1}", Reply(200, body=packed, headers={"Content-Type": "binary/octet-stream"}))
        server.add("GET", f"/content/{missing}", Reply(403, body="<Error><Code>AccessDenied</Code></Error>"))
        server.add("GET", f"/content/{wrong}", Reply(200, body=b"something else"))
        store = HttpContentStore(client, server.url)
        assert store.get(SHA1, len(DATA)) == DATA
        assert server.requests[0]["headers"]["Accept-Encoding"] == "identity"
        with pytest.raises(FileNotFoundError):
            store.get(missing, 7)
        with pytest.raises(ContentError, match="is not the 5-byte file"):
            store.get(wrong, 5)


def test_the_documented_spellings_are_read_too(tmp_path):
    """The schema page names the visit status column ``snapshot_id`` and entry types
    ``content``/``directory``; the exporter writes ``snapshot`` and ``file``/``dir``."""
    export = Export(tmp_path / "store")
    directory = export.add_tree(SAMPLES / "legacy-scripts")
    snapshot = export.add_snapshot("doc", {b"HEAD": (export.add_revision(directory, "doc"), "revision")})
    export.add_visit("https://example.org/doc", 1, 1, "full", snapshot, "tar")
    for row in export.tables["directory_entry"]:
        row["type"] = {"file": "content", "dir": "directory"}[row["type"]]
    documented = SCHEMA | {
        "origin_visit_status": [
            ("snapshot_id", "string") if column == "snapshot" else (column, kind)
            for column, kind in SCHEMA["origin_visit_status"]
        ]
    }
    for row in export.tables["origin_visit_status"]:
        row["snapshot_id"] = row.pop("snapshot")
    dataset = GraphDataset(write_tables(tmp_path / "parquet", export.tables, "parquet", documented))
    _visit, root = dataset.resolve_origin("https://example.org/doc")
    tree = dataset.tree(root.directory, LocalContentStore(export.store))
    assert tree_identity(tree).swhid == "swh:1:dir:c190d6b00105909ace81c53507984baab3780dff"
    assert measure(tree).to_dict() == measure(SAMPLES / "legacy-scripts").to_dict()
