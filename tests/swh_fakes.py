"""Helpers for Software Heritage tests: small trees with their SWHIDs, the vault bundles
and directory listings the archive would give for them, and the routes that serve those
on a :class:`replay_server.ReplayServer` (paths under ``/api/1/``)."""

from __future__ import annotations

import hashlib
import io
import json
import os
import tarfile
from pathlib import Path

from replay_server import ReplayServer, Reply

from scoring.trees.sources import LocalDirectory
from scoring.trees.swhid import tree_identity

API = "/api/1"
JSON = {"Content-Type": "application/json"}


def swhid_of(tree: Path) -> str:
    return tree_identity(LocalDirectory(tree)).swhid


def git_blob(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def git_tree(entries: list[tuple[str, str, str]]) -> str:
    """An independent git tree hash of (mode, name, hex target) entries."""
    entries = sorted(entries, key=lambda e: e[1].encode() + (b"/" if e[0] == "40000" else b""))
    body = b"".join(m.encode() + b" " + n.encode() + b"\0" + bytes.fromhex(t) for m, n, t in entries)
    return hashlib.sha1(b"tree %d\0" % len(body) + body).hexdigest()


def bundle(tree: Path, top: str, extra: list[tuple[tarfile.TarInfo, bytes | None]] = ()) -> bytes:
    """A vault-style flat bundle: a tar.gz of ``tree`` under one folder ``top``."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.add(tree, arcname=top)
        for info, data in extra:
            archive.addfile(info, io.BytesIO(data) if data is not None else None)
    return buffer.getvalue()


def listings(tree: Path) -> tuple[dict[str, list[dict]], dict[str, bytes]]:
    """(directory id → listing, sha1_git → bytes) for ``tree``, in the archive's shapes."""
    dirs: dict[str, list[dict]] = {}
    blobs: dict[str, bytes] = {}

    def walk(path: Path) -> str:
        entries = []
        for child in sorted(path.iterdir()):
            if child.is_symlink():
                data = os.readlink(child).encode()
                sha = git_blob(data)
                blobs[sha] = data
                entries.append({"name": child.name, "type": "file", "target": sha, "perms": 0o120000,
                                "length": len(data), "status": "visible"})
            elif child.is_dir():
                entries.append({"name": child.name, "type": "dir", "target": walk(child), "perms": 0o40000})
            else:
                data = child.read_bytes()
                sha = git_blob(data)
                blobs[sha] = data
                perms = 0o100755 if os.access(child, os.X_OK) else 0o100644
                entries.append({"name": child.name, "type": "file", "target": sha, "perms": perms,
                                "length": len(data), "status": "visible"})
        dir_id = swhid_of(path)[len("swh:1:dir:"):]
        dirs[dir_id] = entries
        return dir_id

    walk(tree)
    return dirs, blobs


def serve_listings(server: ReplayServer, dirs: dict[str, list[dict]], blobs: dict[str, bytes] | None = None) -> None:
    for dir_id, entries in dirs.items():
        server.add("GET", f"{API}/directory/{dir_id}/", Reply(200, json.dumps(entries), JSON))
    for sha, data in (blobs or {}).items():
        server.add("GET", f"{API}/content/sha1_git:{sha}/raw/",
                   Reply(200, data, {"Content-Type": "application/octet-stream"}))


def vault_task(server: ReplayServer, swhid: str, status: str, message: str = "") -> Reply:
    body = {"id": 1, "status": status, "swhid": swhid, "progress_message": message,
            "fetch_url": f"{server.url}{API}/vault/flat/{swhid}/raw/"}
    return Reply(200, json.dumps(body), JSON)


def serve_vault(server: ReplayServer, swhid: str, data: bytes, *, statuses=("pending", "done"),
                redirect: bool = True) -> None:
    """The vault cooking ``swhid``: POST answers ``new``, GETs answer ``statuses`` in
    order, and the bundle is served (through a redirect to a cache URL by default)."""
    server.add("POST", f"{API}/vault/flat/{swhid}/", vault_task(server, swhid, "new"))
    server.add("GET", f"{API}/vault/flat/{swhid}/", *(vault_task(server, swhid, s) for s in statuses))
    cache = f"/cache/{swhid.replace(':', '_')}.tar.gz"
    if redirect:
        server.add("GET", f"{API}/vault/flat/{swhid}/raw/", Reply(302, b"", {"Location": server.url + cache}))
    else:
        cache = f"{API}/vault/flat/{swhid}/raw/"
    server.add("GET", cache, Reply(200, data, {"Content-Type": "application/gzip"}))


def _id(*parts: object) -> str:
    return hashlib.sha1(":".join(map(str, parts)).encode()).hexdigest()


def visit_reply(server: ReplayServer, origin: str, visit: int, date: str, snapshot: str, kind: str) -> Reply:
    body = {"origin": origin, "visit": visit, "date": date, "status": "full", "snapshot": snapshot,
            "type": kind, "metadata": {},
            "snapshot_url": f"{server.url}{API}/snapshot/{snapshot}/"}
    return Reply(200, json.dumps(body), JSON)


def serve_origin(server: ReplayServer, origin: str, visits: list[tuple[int, str, str]], *,
                 kind: str = "git", metadata: bytes | None = None, authority: str = "https://hal.example.org/") -> None:
    """An origin whose ``visit/latest`` answers each of ``visits`` (number, date, root
    directory SWHID) in turn, the last one from then on. A ``git`` origin's snapshot has
    HEAD as an alias of a branch pointing at a revision; a ``deposit`` origin's HEAD is a
    release targeting the directory, with ``metadata`` as its raw Atom/CodeMeta."""
    replies = []
    for number, date, swhid in visits:
        dir_id = swhid[len("swh:1:dir:"):]
        snapshot, target = _id("snp", origin, number), _id("obj", origin, number)
        replies.append(visit_reply(server, origin, number, date, snapshot, kind))
        if kind == "deposit":
            branches = {"HEAD": {"target": target, "target_type": "release"}}
            server.add("GET", f"{API}/release/{target}/", Reply(200, json.dumps(
                {"id": target, "name": "HEAD", "synthetic": True, "target": dir_id,
                 "target_type": "directory", "message": "demo: Deposit 1"}), JSON))
            if metadata is not None:
                serve_metadata(server, swhid, origin, metadata, authority)
        else:
            branches = {"HEAD": {"target": "refs/heads/main", "target_type": "alias"},
                        "refs/heads/main": {"target": target, "target_type": "revision"}}
            server.add("GET", f"{API}/revision/{target}/", Reply(200, json.dumps(
                {"id": target, "directory": dir_id, "message": "release", "type": "git"}), JSON))
        server.add("GET", f"{API}/snapshot/{snapshot}/", Reply(200, json.dumps(
            {"id": snapshot, "branches": branches, "next_branch": None}), JSON))
    server.add("GET", f"{API}/origin/{origin}/visit/latest/", *replies)
    # The same route with "//" collapsed, as urljoin() builds it: the API's own form is
    # the one above; this one keeps the tests independent of how the client joins.
    collapsed = f"{API}/origin/{origin}/visit/latest/".replace("://", ":/")
    server.add("GET", collapsed, *replies)


def serve_metadata(server: ReplayServer, swhid: str, origin: str, xml: bytes, authority: str) -> None:
    """The raw extrinsic metadata a deposit client sent for directory ``swhid``."""
    base = f"{server.url}{API}/raw-extrinsic-metadata"
    blob = _id("meta", swhid)
    server.add("GET", f"{API}/raw-extrinsic-metadata/swhid/{swhid}/authorities/", Reply(200, json.dumps([
        {"type": "deposit_client", "url": authority,
         "metadata_list_url": f"{base}/swhid/{swhid}/?authority=deposit_client%20{authority}"},
    ]), JSON))
    server.add("GET", f"{API}/raw-extrinsic-metadata/swhid/{swhid}/", Reply(200, json.dumps([
        {"authority": {"type": "deposit_client", "url": authority}, "discovery_date": "2026-08-20T10:00:00+00:00",
         "fetcher": {"name": "swh-deposit", "version": "1.1.0"}, "format": "sword-v2-atom-codemeta",
         "metadata_url": f"{base}/get/{blob}/?filename={swhid}_metadata", "origin": origin,
         "target": swhid},
    ]), JSON))
    server.add("GET", f"{API}/raw-extrinsic-metadata/get/{blob}/",
               Reply(200, xml, {"Content-Type": "application/octet-stream"}))
