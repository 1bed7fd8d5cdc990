"""Software Heritage's graph dataset as a tree source: origins measured without the Web API.

The archive-wide path. Software Heritage publishes its whole graph as relational tables
(Apache ORC, and Parquet from the ``swh-export`` tools; ``s3://softwareheritage/graph/<date>/orc/<table>/``)
and every file's bytes in a public bucket keyed by the file's SHA-1
(``s3://softwareheritage/content/<sha1>``, ``https://softwareheritage.s3.amazonaws.com/content/<sha1>``).
From those two, an origin selected in the tables is resolved and its tree measured with
no Web API call at all:

    origin_visit_status  latest visit with status full or partial and a snapshot
    snapshot_branch      HEAD (aliases followed), else refs/heads/main, master, …
    release / revision   to the root directory
    directory_entry      every folder of the tree, level by level, one scan per level
    content              length and sha1 (the bucket key) of every file
    content store        the bytes of the files the scorer reads, and of link targets

The schema is the one ``swh-export`` writes (``swh/export/relational.py``; documented at
https://docs.softwareheritage.org/devel/swh-export/graph/schema.html). Details the prose
documentation does not say and the exporter's code does: the visit status table's
snapshot column is ``snapshot`` (the documentation says ``snapshot_id``; both are read),
and an ``alias`` branch's ``target`` is the *hex encoding* of the target branch's name
(the exporter passes every branch target through ``hash_to_hex``). A directory entry's
``type`` is ``file``, ``dir`` or ``rev`` as in ``swh.model`` (the older swh-dataset page
says ``content``, ``directory``, ``revision``; both are read). See docs/scale.md.

Bucket objects are read as they come: an object whose SHA-1 is the key is the file;
otherwise it must be gzip data that decompresses, within the file's known length, to
bytes whose SHA-1 is the key (third-party readers of the bucket gunzip every object).
Nothing unverified is ever given to the scorer.

Why here and not in ``scoring``: resolving origins and fetching bytes from a store is
harvesting (I/O, an optional dependency, network); the scorer only sees a
:class:`~scoring.trees.sources.TreeSource`. The tree is an :class:`~scoring.trees.archives.IndexedTree`,
so listings, link resolution and names behave exactly as for a directory on disk, and
``tree_identity`` recomputes the root SWHID from the entries and the dataset's blob ids
without fetching a single file.

pyarrow is needed for the tables (``pip install reproscore[swh-dataset]``); the content
stores are plain Python.
"""

from __future__ import annotations

import errno
import hashlib
import io
import re
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, BinaryIO, Protocol

from harvester.http import HttpClient
from harvester.swh import (
    MAX_INDIRECTIONS,
    USABLE_VISIT_STATUSES,
    ResolutionError,
    RootResolution,
    default_branch,
)
from scoring.trees.archives import FileData, IndexedTree, Node
from scoring.trees.sources import KIND_DIR, KIND_FILE, KIND_LINK, TreeSourceError
from scoring.trees.swhid import EMPTY_TREE

__all__ = [
    "PUBLIC_CONTENT_URL",
    "ContentError",
    "ContentStore",
    "DatasetTree",
    "DatasetTreeError",
    "DatasetVisit",
    "GraphDataset",
    "HttpContentStore",
    "LocalContentStore",
    "decode_content",
]

PUBLIC_CONTENT_URL = "https://softwareheritage.s3.amazonaws.com/"

# Directory entry permissions (swh.model.from_disk.DentryPerms; git's modes).
PERM_LINK = 0o120000
PERM_REVISION = 0o160000
_FORMAT_MASK = 0o170000

# swh.model's entry types, and the spelling of the schema documentation.
_ENTRY_TYPES = {
    "file": KIND_FILE,
    "content": KIND_FILE,
    "dir": KIND_DIR,
    "directory": KIND_DIR,
    "rev": "rev",
    "revision": "rev",
}

# A link's text is a path; the file systems the extracted tree would live on refuse
# longer ones, and so does this source.
MAX_LINK_BYTES = 4095
DEFAULT_MAX_ENTRIES = 1_000_000

_HEX40 = re.compile(r"^[0-9a-f]{40}$")
_GZIP_MAGIC = b"\x1f\x8b"


class DatasetTreeError(TreeSourceError):
    """The dataset cannot give this tree: a directory missing from the export, an entry
    name no file system can hold, a cycle, or more entries than allowed."""


class ContentError(OSError):
    """A content store object that is not the file it is keyed by."""


# -- content stores ------------------------------------------------------------------------


class ContentStore(Protocol):
    """Where file bytes come from, by the file's SHA-1 (hex)."""

    def get(self, sha1: str, length: int) -> bytes:
        """The verified bytes of the ``length``-byte file whose SHA-1 is ``sha1``.

        Raises FileNotFoundError when the store does not have it, ContentError when what
        it has is not that file, another OSError when it cannot be read."""


def _check_sha1(sha1: str) -> str:
    if not isinstance(sha1, str) or not _HEX40.match(sha1):
        raise ContentError(errno.EINVAL, f"not a content sha1: {sha1!r}")
    return sha1


def _max_object_bytes(length: int) -> int:
    # gzip never grows data by more than a few bytes per 16 KiB block plus its header.
    return length + length // 64 + 4096


def decode_content(raw: bytes, sha1: str, length: int) -> bytes:
    """The file bytes in a bucket object: ``raw`` itself when its SHA-1 is ``sha1``, else
    ``raw`` gunzipped (to at most ``length`` + 1 bytes, so a bomb stops there) when that
    has the right length and SHA-1. Raises ContentError otherwise."""
    if len(raw) == length and hashlib.sha1(raw).hexdigest() == sha1:
        return raw
    if raw.startswith(_GZIP_MAGIC):
        try:
            inflater = zlib.decompressobj(wbits=31)
            data = inflater.decompress(raw, length + 1)
        except zlib.error as exc:
            raise ContentError(errno.EIO, f"content {sha1}: corrupt gzip object: {exc}") from exc
        if len(data) == length and hashlib.sha1(data).hexdigest() == sha1:
            return data
    raise ContentError(errno.EIO, f"content {sha1}: the stored object is not the {length}-byte file keyed by it")


class LocalContentStore:
    """A copy of the bucket's layout on disk: ``<root>/content/<sha1>``, each object
    stored as it is in the bucket (gzip-compressed or not)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def get(self, sha1: str, length: int) -> bytes:
        path = self.root / "content" / _check_sha1(sha1)
        cap = _max_object_bytes(length)
        with open(path, "rb") as handle:
            raw = handle.read(cap + 1)
        if len(raw) > cap:
            raise ContentError(errno.EFBIG, f"content {sha1}: stored object larger than a {length}-byte file")
        return decode_content(raw, sha1, length)


class HttpContentStore:
    """The public bucket over HTTPS (no credentials; no Web API rate limit applies), or
    any server with its layout (``<base_url>content/<sha1>``)."""

    def __init__(self, client: HttpClient, base_url: str = PUBLIC_CONTENT_URL) -> None:
        self.client = client
        self.base_url = base_url if base_url.endswith("/") else base_url + "/"

    def get(self, sha1: str, length: int) -> bytes:
        url = f"{self.base_url}content/{_check_sha1(sha1)}"
        cap = _max_object_bytes(length)
        # Identity encoding: the object's own bytes, whatever the server would compress.
        response = self.client.get(
            url,
            stream=True,
            headers={"Accept-Encoding": "identity"},
            accept_status=frozenset({403, 404}),
        )
        with response:
            if response.status_code in (403, 404):  # S3 answers 403 for a missing key
                raise FileNotFoundError(errno.ENOENT, f"content {sha1} is not in the store", url)
            chunks: list[bytes] = []
            size = 0
            for chunk in response.iter_content(1 << 20):
                size += len(chunk)
                if size > cap:
                    raise ContentError(errno.EFBIG, f"content {sha1}: stored object larger than a {length}-byte file")
                chunks.append(chunk)
        return decode_content(b"".join(chunks), sha1, length)


# -- the tables ----------------------------------------------------------------------------


def _arrow():
    try:
        import pyarrow.dataset as ds
        import pyarrow.fs as fs
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError(
            "reading Software Heritage's graph dataset needs pyarrow: "
            "pip install 'reproscore[swh-dataset]'"
        ) from exc
    return ds, fs


@dataclass(frozen=True)
class DatasetVisit:
    """One usable visit status of an origin (status full or partial, with a snapshot)."""

    origin: str
    visit: int
    date: datetime | None
    status: str
    snapshot: str
    type: str | None


@dataclass(frozen=True)
class ContentRow:
    sha1: str | None
    sha1_git: str
    length: int
    status: str


class GraphDataset:
    """The tables of one export: ``<root>/<table>/*.orc`` or ``*.parquet``.

    ``root`` is a local folder or, with ``filesystem`` (a ``pyarrow.fs`` file system,
    e.g. ``S3FileSystem(anonymous=True, region="us-east-1")``), a path on it such as
    ``softwareheritage/graph/2024-08-23-popular-500-python/orc``. Each lookup is one
    filtered scan of one table; folders are loaded level by level, one scan of
    ``directory_entry`` per level for any number of trees at once.
    """

    def __init__(self, root: str | Path, *, filesystem: Any = None) -> None:
        self._ds, self._fs = _arrow()
        self.root = str(root).rstrip("/")
        self.filesystem = filesystem or self._fs.LocalFileSystem()
        self._tables: dict[str, Any] = {}

    # -- tables --------------------------------------------------------------------------

    def has_table(self, name: str) -> bool:
        info = self.filesystem.get_file_info(f"{self.root}/{name}")
        return info.type == self._fs.FileType.Directory

    def table(self, name: str):
        """The pyarrow dataset of one table (ORC or Parquet, by its files' names)."""
        if name not in self._tables:
            path = f"{self.root}/{name}"
            if not self.has_table(name):
                raise DatasetTreeError(f"{self.root}: the dataset has no {name!r} table")
            selector = self._fs.FileSelector(path, recursive=True)
            names = [info.path for info in self.filesystem.get_file_info(selector) if info.is_file]
            if any(n.endswith(".orc") for n in names):
                fmt = "orc"
            elif any(n.endswith(".parquet") for n in names):
                fmt = "parquet"
            else:
                raise DatasetTreeError(f"{path}: no .orc or .parquet files")
            self._tables[name] = self._ds.dataset(path, format=fmt, filesystem=self.filesystem)
        return self._tables[name]

    def _rows(self, table: str, columns: list[str], where: str, values: Iterable[Any]) -> list[dict]:
        dataset = self.table(table)
        present = [c for c in columns if c in dataset.schema.names]
        wanted = sorted(set(values))
        if not wanted:
            return []
        found = dataset.to_table(columns=present, filter=self._ds.field(where).isin(wanted))
        return found.to_pylist()

    # -- origins -------------------------------------------------------------------------

    def _snapshot_column(self) -> str:
        names = self.table("origin_visit_status").schema.names
        return "snapshot" if "snapshot" in names else "snapshot_id"

    def visits(self, origin_url: str, *, visit_type: str | None = None) -> list[DatasetVisit]:
        """The usable visit statuses of ``origin_url``, newest first (visit, then date)."""
        column = self._snapshot_column()
        rows = self._rows(
            "origin_visit_status",
            ["origin", "visit", "date", "status", column, "type"],
            "origin",
            [origin_url],
        )
        usable = [
            DatasetVisit(
                origin=row["origin"],
                visit=int(row["visit"]),
                date=row.get("date"),
                status=row["status"],
                snapshot=row[column],
                type=row.get("type"),
            )
            for row in rows
            if row["status"] in USABLE_VISIT_STATUSES
            and row.get(column)
            and (visit_type is None or row.get("type") == visit_type)
        ]
        usable.sort(key=lambda v: (v.visit, v.date.timestamp() if v.date else float("-inf")), reverse=True)
        return usable

    def latest_visit(self, origin_url: str, *, visit_type: str | None = None) -> DatasetVisit | None:
        """The newest visit of ``origin_url`` with status full or partial and a snapshot
        (the dataset's answer to ``visit/latest/?require_snapshot=true``)."""
        found = self.visits(origin_url, visit_type=visit_type)
        return found[0] if found else None

    def origins(self, *, visit_type: str | None = None) -> list[str]:
        """Every origin with a usable visit (of ``visit_type``, e.g. ``deposit``), sorted."""
        dataset = self.table("origin_visit_status")
        column = self._snapshot_column()
        condition = self._ds.field("status").isin(sorted(USABLE_VISIT_STATUSES)) & self._ds.field(column).is_valid()
        if visit_type is not None:
            condition = condition & (self._ds.field("type") == visit_type)
        found = dataset.to_table(columns=["origin"], filter=condition)
        return sorted(set(found.column("origin").to_pylist()))

    # -- origin → root directory ---------------------------------------------------------

    def branches(self, snapshot: str) -> dict[str, dict[str, str]]:
        """The branches of one snapshot: name → {target, target_type}."""
        rows = self._rows("snapshot_branch", ["snapshot_id", "name", "target", "target_type"], "snapshot_id", [snapshot])
        return {
            _branch_name(row["name"]): {"target": row["target"], "target_type": row["target_type"]}
            for row in rows
        }

    def resolve_root(self, snapshot: str) -> RootResolution:
        """Snapshot → default branch (``HEAD``, aliases followed) → release/revision →
        directory, by the rules :meth:`harvester.swh.SwhClient.resolve_root` applies."""
        branches = self.branches(snapshot)
        if not branches:
            raise ResolutionError(f"snapshot {snapshot} is not in the dataset or has no branches")
        alias: str | None = None
        name = default_branch(snapshot, branches)
        target = branches.get(name)
        hops = 0
        while target and target.get("target_type") == "alias":
            hops += 1
            if hops > MAX_INDIRECTIONS:
                raise ResolutionError(f"snapshot {snapshot}: alias chain from {alias} is too long")
            alias = alias or name
            name = _alias_target(target.get("target") or "", branches)
            target = branches.get(name)
        if not target or not target.get("target"):
            raise ResolutionError(f"snapshot {snapshot}: branch {name!r} points nowhere")
        return self._follow(snapshot, name, alias, target["target_type"], target["target"])

    def _follow(self, snapshot: str, branch: str, alias: str | None, target_type: str, target: str) -> RootResolution:
        release: str | None = None
        revision: str | None = None
        kind, current = target_type, target
        for _ in range(MAX_INDIRECTIONS):
            if kind == "directory":
                return RootResolution(
                    snapshot=snapshot,
                    branch=branch,
                    target_type=target_type,
                    target=target,
                    directory=current,
                    release=release,
                    revision=revision,
                    alias=alias,
                )
            if kind == "release":
                rows = self._rows("release", ["id", "target", "target_type"], "id", [current])
                if not rows:
                    raise ResolutionError(f"snapshot {snapshot}: release {current} is not in the dataset")
                release = release or current
                kind, current = rows[0]["target_type"], rows[0]["target"]
            elif kind == "revision":
                rows = self._rows("revision", ["id", "directory"], "id", [current])
                if not rows:
                    raise ResolutionError(f"snapshot {snapshot}: revision {current} is not in the dataset")
                revision = current
                kind, current = "directory", rows[0]["directory"]
            else:
                raise ResolutionError(
                    f"snapshot {snapshot}: branch {branch!r} leads to a {kind}, not a source tree"
                )
            if not current:
                raise ResolutionError(f"snapshot {snapshot}: branch {branch!r} has a dangling target")
        raise ResolutionError(f"snapshot {snapshot}: branch {branch!r} nests releases too deeply")

    def resolve_origin(
        self, origin_url: str, *, visit_type: str | None = None
    ) -> tuple[DatasetVisit, RootResolution]:
        """The latest usable visit of ``origin_url`` and where its snapshot leads."""
        visit = self.latest_visit(origin_url, visit_type=visit_type)
        if visit is None:
            raise ResolutionError(f"{origin_url}: no full or partial visit with a snapshot in the dataset")
        return visit, self.resolve_root(visit.snapshot)

    # -- directories and contents --------------------------------------------------------

    def load_directories(
        self, roots: Iterable[str], *, max_entries: int = DEFAULT_MAX_ENTRIES
    ) -> dict[str, list[dict]]:
        """The entries of every folder under ``roots``: directory id → rows, one scan of
        ``directory_entry`` per tree level for all the roots together."""
        loaded: dict[str, list[dict]] = {}
        frontier = set(roots)
        rows_seen = 0
        while frontier:
            rows = self._rows(
                "directory_entry", ["directory_id", "name", "type", "target", "perms"], "directory_id", frontier
            )
            rows_seen += len(rows)
            if rows_seen > max_entries:
                raise DatasetTreeError(f"more than {max_entries} directory entries under {sorted(roots)}")
            for directory in frontier:
                loaded[directory] = []
            for row in rows:
                loaded[row["directory_id"]].append(row)
            empty = [d for d in frontier if not loaded[d] and d != EMPTY_TREE]
            if empty:
                known = {r["id"] for r in self._rows("directory", ["id"], "id", empty)}
                missing = sorted(set(empty) - known)
                if missing:
                    raise DatasetTreeError(f"directory {missing[0]} is not in the dataset")
            frontier = {
                row["target"]
                for row in rows
                if _ENTRY_TYPES.get(row["type"]) == KIND_DIR and row["target"] not in loaded
            }
        return loaded

    def contents(self, sha1_gits: Iterable[str]) -> dict[str, ContentRow]:
        """Length, SHA-1 and status of files, by sha1_git; skipped contents (not
        archived) come from ``skipped_content`` with status ``absent``."""
        wanted = set(sha1_gits)
        found: dict[str, ContentRow] = {}
        for row in self._rows("content", ["sha1", "sha1_git", "length", "status"], "sha1_git", wanted):
            found[row["sha1_git"]] = ContentRow(row["sha1"], row["sha1_git"], int(row["length"]), row["status"])
        missing = wanted - set(found)
        if missing and self.has_table("skipped_content"):
            for row in self._rows("skipped_content", ["sha1", "sha1_git", "length", "status"], "sha1_git", missing):
                found[row["sha1_git"]] = ContentRow(row["sha1"], row["sha1_git"], int(row["length"] or 0), "absent")
        return found

    def tree(self, directory: str, store: ContentStore, **options: Any) -> DatasetTree:
        """The tree whose root directory id is ``directory``, with file bytes from ``store``."""
        return DatasetTree(self, directory, store, **options)

    def trees(
        self, directories: list[str], store: ContentStore, *, max_entries: int = DEFAULT_MAX_ENTRIES
    ) -> Iterator[DatasetTree]:
        """Several trees loaded together (one scan per level, one of ``content``)."""
        loaded = self.load_directories(directories, max_entries=max_entries)
        files = {
            row["target"]
            for rows in loaded.values()
            for row in rows
            if _ENTRY_TYPES.get(row["type"]) == KIND_FILE
        }
        contents = self.contents(files)
        for directory in directories:
            yield DatasetTree(
                self, directory, store, directories=loaded, contents=contents, max_entries=max_entries
            )


def _branch_name(name: Any) -> str:
    if isinstance(name, bytes):
        return name.decode("utf-8", "surrogateescape")
    return str(name)


def _alias_target(target: str, branches: dict[str, Any]) -> str:
    """The branch an alias names. The exporter writes it hex-encoded; a raw name is taken
    as it is."""
    try:
        decoded = bytes.fromhex(target).decode("utf-8", "surrogateescape")
    except ValueError:
        return target
    if decoded in branches or target not in branches:
        return decoded
    return target


# -- the tree ------------------------------------------------------------------------------


class DatasetTree(IndexedTree):
    """One archived tree, listed from the dataset, its bytes from a content store.

    Entries follow the directory's own order of names (sorted as on disk by the index);
    ``perms`` 120000 is a symbolic link (its text is the content's bytes), any execute
    bit makes a file executable, and a ``rev`` entry (a git submodule) is an empty
    folder, as in a checkout that did not fetch its submodules (its SWHID then differs
    from the archive's, which records the submodule's commit). A file whose content was
    not archived (``skipped_content``) is listed with its length and cannot be read.
    ``swhid`` is the archive's own identifier of the tree; ``blob_id`` gives each file's
    sha1_git from the dataset, so ``tree_identity`` fetches no file bytes.
    """

    def __init__(
        self,
        dataset: GraphDataset,
        directory: str,
        store: ContentStore,
        *,
        directories: dict[str, list[dict]] | None = None,
        contents: dict[str, ContentRow] | None = None,
        max_entries: int = DEFAULT_MAX_ENTRIES,
        label: str | None = None,
    ) -> None:
        super().__init__(label or f"swh:1:dir:{directory}")
        self.directory = directory
        self.swhid = f"swh:1:dir:{directory}"
        self.store = store
        loaded = directories if directories is not None else dataset.load_directories([directory], max_entries=max_entries)
        if directory not in loaded:
            raise DatasetTreeError(f"directory {directory} is not loaded")
        if contents is None:
            files = self._file_targets(loaded, directory)
            contents = dataset.contents(files)
        self._build(loaded, contents, max_entries)

    @staticmethod
    def _file_targets(loaded: dict[str, list[dict]], root: str) -> set[str]:
        seen, stack, files = set(), [root], set()
        while stack:
            current = stack.pop()
            if current in seen:
                continue
            seen.add(current)
            for row in loaded.get(current, []):
                kind = _ENTRY_TYPES.get(row["type"])
                if kind == KIND_FILE:
                    files.add(row["target"])
                elif kind == KIND_DIR:
                    stack.append(row["target"])
        return files

    def _build(self, loaded: dict[str, list[dict]], contents: dict[str, ContentRow], max_entries: int) -> None:
        count = 0
        stack: list[tuple[str, str, frozenset[str]]] = [(self.directory, "", frozenset({self.directory}))]
        while stack:
            directory, path, ancestors = stack.pop()
            rows = loaded.get(directory)
            if rows is None:
                raise DatasetTreeError(f"{self.label}: directory {directory} is not in the dataset")
            names: set[bytes] = set()
            for row in rows:
                raw = row["name"]
                raw = raw if isinstance(raw, bytes) else str(raw).encode("utf-8", "surrogateescape")
                _check_entry_name(raw, self.label, path)
                if raw in names:
                    raise DatasetTreeError(f"{self.label}: {path or '.'} lists {raw!r} twice")
                names.add(raw)
                count += 1
                if count > max_entries:
                    raise DatasetTreeError(f"{self.label}: more than {max_entries} entries")
                name = raw.decode("utf-8", "surrogateescape")
                child = f"{path}/{name}" if path else name
                kind = _ENTRY_TYPES.get(row["type"])
                target = row["target"]
                perms = int(row["perms"] or 0)
                if kind == KIND_DIR:
                    if target in ancestors:
                        raise DatasetTreeError(f"{self.label}: {child!r} contains itself")
                    self.add(child, Node(KIND_DIR))
                    stack.append((target, child, ancestors | {target}))
                elif kind == "rev":
                    self.add(child, Node(KIND_DIR))  # a submodule: an empty folder
                elif kind == KIND_FILE:
                    content = contents.get(target)
                    readable = content is not None and content.status == "visible" and content.sha1
                    data = FileData(
                        size=content.length if content is not None else 0,
                        ref=content.sha1 if readable else None,
                        blob=bytes.fromhex(target),
                    )
                    if perms & _FORMAT_MASK == PERM_LINK:
                        self.add(child, Node(KIND_LINK, data=data))
                    else:
                        self.add(child, Node(KIND_FILE, data=data, executable=bool(perms & 0o111)))
                else:
                    raise DatasetTreeError(f"{self.label}: {child!r} has unknown entry type {row['type']!r}")

    def _fetch(self, path: str, data: FileData) -> bytes:
        if data.ref is None:
            raise FileNotFoundError(errno.ENOENT, "content not archived by Software Heritage", path)
        return self.store.get(data.ref, data.size)

    def _open_data(self, path: str, data: FileData) -> BinaryIO:
        return io.BytesIO(self._fetch(path, data))

    def _load_link_text(self, path: str, node: Node) -> str:
        data = node.data
        if data is None or data.size > MAX_LINK_BYTES:
            raise OSError(errno.ENAMETOOLONG, "link text too long", path)
        return self._fetch(path, data).decode("utf-8", "surrogateescape")


def _check_entry_name(raw: bytes, label: str, parent: str) -> None:
    if not raw or raw in (b".", b"..") or b"/" in raw or b"\x00" in raw:
        raise DatasetTreeError(f"{label}: {parent or '.'} holds an entry named {raw!r}")
    if len(raw) > 255:
        raise DatasetTreeError(f"{label}: {parent or '.'} holds an entry name longer than 255 bytes")
