"""The facts cache in the store: ``file_facts``, one row per file content, frontend, path
class and frontend version (:mod:`scoring.facts_cache`).

* **Lookups are batched**: the keys of a whole tree are answered with one query per
  :data:`LOOKUP_CHUNK` blob ids (``WHERE blob_id IN (…)``), never one per file.
* **Only the driver writes.** New facts are written by :meth:`FactsMixin.save_facts`,
  or with a tree's snapshot (``save_snapshot(…, facts=…)``), in the same transaction (a
  savepoint of the run's batch). A worker process reads the file through a
  :class:`FactsReader` (read-only) and hands the facts it computed back with its
  measurements.
* **Never required for correctness.** A row that cannot be decoded, or that names
  another frontend version than its key, is ignored and the facts computed again; a
  crash loses at most uncommitted rows, which are computed again.
* **No secrets.** Only :class:`~scoring.facts_cache.StorableFacts` are written: facts in
  which :func:`~scoring.facts_cache.facts_secret_free` found no secret. A file whose
  facts hold one (a token in a string literal) is parsed again each time.
* **Compressed.** A row's ``facts`` is the compact JSON of ``FileFacts``, zlib-compressed
  (``scoring.facts_cache.StorableFacts``, m009): about a fifth of the JSON.
* **Old versions are inert.** A row is found only under its frontend's version; rows of
  versions no longer installed are never read, and :meth:`FactsMixin.prune_facts`
  deletes them.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from scoring.facts import FileFacts
from scoring.facts_cache import (
    DerivedCache,
    FactsKey,
    StorableFacts,
    decode_stored,
    encode_for_store,
    installed_frontend_versions,
)

from ._base import utc_now

log = logging.getLogger(__name__)

# Blob ids per lookup query (SQLite allows 32766 parameters; a few hundred keep each
# statement small and its plan the primary key's).
LOOKUP_CHUNK = 500

_SELECT = (
    "SELECT blob_id, frontend, path_class, frontend_version, facts FROM file_facts"
    " WHERE blob_id IN ({marks})"
)
_INSERT = (
    "INSERT INTO file_facts (blob_id, frontend, path_class, frontend_version, facts, created_at)"
    " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"
)


def _decode(key: FactsKey, stored: Any) -> FileFacts | None:
    """The facts of a stored row, or None when the row is unusable (never an error)."""
    try:
        facts = decode_stored(stored)
    except Exception:  # noqa: BLE001 - a corrupt row is a cache miss
        log.debug("file_facts: an undecodable row for %s is ignored", key)
        return None
    if not isinstance(facts, FileFacts) or facts.frontend_version != key.frontend_version:
        return None
    return facts


def lookup_facts(conn: sqlite3.Connection, keys: Sequence[FactsKey]) -> dict[FactsKey, FileFacts]:
    """The stored facts of those of ``keys`` that ``file_facts`` holds, with one query per
    :data:`LOOKUP_CHUNK` distinct blob ids."""
    wanted = set(keys)
    blobs = sorted({key.blob_id for key in wanted})
    found: dict[FactsKey, FileFacts] = {}
    for start in range(0, len(blobs), LOOKUP_CHUNK):
        chunk = blobs[start : start + LOOKUP_CHUNK]
        rows = conn.execute(_SELECT.format(marks=", ".join("?" * len(chunk))), chunk).fetchall()
        for blob_id, frontend, path_class, frontend_version, text in rows:
            key = FactsKey(blob_id, frontend, path_class, frontend_version)
            if key in wanted:
                facts = _decode(key, text)
                if facts is not None:
                    found[key] = facts
    return found


def insert_facts(conn: sqlite3.Connection, items: Mapping[FactsKey, StorableFacts]) -> int:
    """Write ``items`` (keys already stored are left as they are); how many were new."""
    now = utc_now()
    rows = []
    for key, text in items.items():
        if not isinstance(text, StorableFacts):
            # The one gate to the table: only facts vetted for secrets are written.
            raise TypeError(f"file_facts takes StorableFacts (encode_for_store), not {type(text).__name__}")
        rows.append((*key, bytes(text), now))
    if not rows:
        return 0
    before = conn.total_changes
    conn.executemany(_INSERT, rows)
    return conn.total_changes - before


class StoreFactsCache:
    """A :class:`~scoring.facts_cache.FactsCache` over an open store (the driver's
    connection: it sees the rows its own open batch wrote). ``put_many`` writes at once,
    in the store's current batch when one is open; workers get a :class:`FactsReader`."""

    def __init__(self, store: Any) -> None:
        self.store = store
        # what detectors derive from a content, kept for the run (not in the store)
        self.derived = DerivedCache()

    def get_many(self, keys: Sequence[FactsKey]) -> dict[FactsKey, FileFacts]:
        return self.store.load_facts(keys)

    def put_many(self, items: Mapping[FactsKey, FileFacts]) -> None:
        self.store.save_facts(items)

    def worker_cache(self) -> FactsReader:
        return FactsReader(self.store.path)


class FactsReader:
    """The facts of a store's file, read-only, for a worker process.

    Workers read the SQLite file themselves, rather than being sent the facts of their
    tree with the task, because only the worker learns which blobs its tree holds
    (reading the tree is its job: the driver never reads it). Read-only, the single
    writer stays the driver, which writes what the workers hand back. Picklable (the
    path only); a file that cannot be read makes every lookup a miss."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = str(path)

    def __getstate__(self) -> dict[str, str]:
        return {"path": self.path}

    def __setstate__(self, state: dict[str, str]) -> None:
        self.path = state["path"]

    def get_many(self, keys: Sequence[FactsKey]) -> dict[FactsKey, FileFacts]:
        if not keys:
            return {}
        # A connection per lookup (one per tree: the index asks for all its blobs at
        # once), closed at once: a reader left open would keep the driver's last close
        # from folding the WAL back into the database file.
        try:
            uri = Path(self.path).resolve().as_uri() + "?mode=ro"
            conn = sqlite3.connect(uri, uri=True, isolation_level=None)
        except sqlite3.Error as exc:
            log.debug("%s: facts cache not readable (%s); facts are computed", self.path, exc)
            return {}
        try:
            conn.execute("PRAGMA busy_timeout = 5000")
            return lookup_facts(conn, keys)
        except sqlite3.Error as exc:
            log.debug("%s: facts lookup failed (%s); facts are computed", self.path, exc)
            return {}
        finally:
            conn.close()

    def put_many(self, items: Mapping[FactsKey, FileFacts]) -> None:
        """Nothing: a worker never writes (the driver writes what the worker returns)."""


class FactsMixin:
    """Store methods of the facts cache; they run on :class:`~reproscore.store._base.StoreBase`'s connection."""

    def facts_cache(self) -> StoreFactsCache:
        """A facts cache backed by ``file_facts`` (for :func:`scoring.measure` and
        :func:`scoring.measure_many`)."""
        return StoreFactsCache(self)

    def load_facts(self, keys: Sequence[FactsKey]) -> dict[FactsKey, FileFacts]:
        """The stored facts of those of ``keys`` the store holds; undecodable rows are
        left out (computed again by the caller)."""
        if not keys:
            return {}
        with self.read() as conn:
            return lookup_facts(conn, keys)

    def save_facts(self, items: Mapping[FactsKey, FileFacts | StorableFacts]) -> int:
        """Store newly computed facts (facts that hold a secret are not stored); returns
        how many rows were new. Inside a batch, part of its transaction."""
        storable = encode_for_store({k: v for k, v in items.items() if isinstance(v, FileFacts)})
        storable.update({k: v for k, v in items.items() if isinstance(v, StorableFacts)})
        if not storable:
            return 0
        with self.write() as conn:
            return insert_facts(conn, storable)

    def prune_facts(self, versions: Mapping[str, str] | None = None) -> int:
        """Delete the facts of frontend versions not installed (``versions``: {frontend:
        version}, by default this scorer's); returns how many rows went. Such rows are
        inert (never read: a lookup names the installed version); this only frees the
        space."""
        current = installed_frontend_versions() if versions is None else dict(versions)
        with self.write() as conn:
            before = conn.total_changes
            if current:
                pairs = ", ".join("(?, ?)" for _ in current)
                params = [value for pair in current.items() for value in pair]
                conn.execute(
                    f"DELETE FROM file_facts WHERE (frontend, frontend_version) NOT IN (VALUES {pairs})",
                    params,
                )
            else:
                conn.execute("DELETE FROM file_facts")
            return conn.total_changes - before
