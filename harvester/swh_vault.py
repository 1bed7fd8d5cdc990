"""Getting a Software Heritage directory onto disk, and proving it is the one asked for.

``fetch_tree`` asks the vault for the *flat* bundle of a root directory
(``POST /vault/flat/<swhid>/``), polls it with a growing delay until it is ``done`` or
``failed``, downloads the ``.tar.gz`` (following the redirect to the cache, with a size
cap; a bundle that expired between "done" and the download, HTTP 404 or 410, is cooked
again) and extracts it with :func:`harvester.fetch.materialize`, the same defensive
extraction as Zenodo archives. When the vault fails or is disabled and the tree is small
(``small_tree_files``), the tree is rebuilt from the ``/directory/`` and
``/content/sha1_git:<id>/raw/`` endpoints instead; those files are packed into a tar and
go through ``materialize`` too, so both routes share one set of safety checks.

``verify_tree`` recomputes the tree's SWHID locally (:mod:`scoring.trees.swhid`) and compares
it with the one the archive gave. The vault writes git submodules (directory entries of
type ``rev``) as empty folders; those entries are restored from the directory listing
before comparing, so only a tree that is byte for byte the archived one is accepted.

Facts behind this module: ``../shared/notes/software-heritage.md`` (section 1c).
"""

from __future__ import annotations

import io
import logging
import shutil
import tarfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

from harvester.fetch import ExtractionLimits, FetchError, download, materialize
from harvester.http import HttpError
from harvester.swh import SwhError
from scoring.trees.sources import KIND_DIR, LocalDirectory
from scoring.trees.swhid import (
    MODE_DIR,
    SWHID_DIR_PREFIX,
    SwhidError,
    TreeIdentity,
    _Hasher,  # the project's own hasher: one definition of a file's mode and hash
    _tree_hash,
    is_directory_swhid,
)

if TYPE_CHECKING:
    from harvester.swh import SwhClient

__all__ = ["VaultError", "fetch_tree", "verify_tree", "verified_identity"]

log = logging.getLogger(__name__)

# A git submodule (gitlink) entry: mode 160000, pointing at a commit.
MODE_GITLINK = b"160000"
# How often an expired bundle is cooked again before giving up.
RECOOK_ATTEMPTS = 2
# Software Heritage perms for an executable file and a symbolic link.
_PERMS_EXECUTABLE = 0o100755
_PERMS_LINK = 0o120000
_TOP = "tree"

Listing = Callable[[str], list[dict[str, Any]]]


class VaultError(Exception):
    """A tree that could not be fetched from Software Heritage, or whose content is not
    the archived directory; ``reason`` is one sentence (stored as the failure)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# --------------------------------------------------------------------------- vault


@dataclass
class _Clock:
    """Time spent waiting for the vault, counted from the waits themselves so that an
    injected ``sleep`` makes tests instant and still exercises the timeout."""

    sleep: Callable[[float], None]
    waited: float = 0.0

    def wait(self, seconds: float) -> None:
        self.waited += seconds
        self.sleep(seconds)


def _cook(swh: SwhClient, swhid: str, poll: tuple[float, float], timeout: float,
          clock: _Clock) -> str:
    """Ask for the flat bundle of ``swhid`` and poll until it is done; return the URL
    it can be fetched from. Cooking is idempotent, so POST is safe to repeat."""
    path = f"vault/flat/{swhid}/"
    try:
        task = swh.post_json(path)
        delay, longest = poll
        while True:
            status = (task or {}).get("status")
            if status == "done":
                return urljoin(_api_root(swh), task.get("fetch_url") or f"{path}raw/")
            if status == "failed":
                message = task.get("progress_message") or "no reason given"
                raise VaultError(f"the vault failed to cook {swhid}: {message}")
            if status not in ("new", "pending"):
                raise VaultError(f"the vault answered an unknown status {status!r} for {swhid}")
            if clock.waited + delay > timeout:
                raise VaultError(
                    f"the vault did not finish cooking {swhid} within {timeout:.0f} s"
                    f" (last status {status!r})"
                )
            clock.wait(delay)
            delay = min(delay * 2, longest)
            task = swh.get_json(path)
    except (HttpError, SwhError) as exc:
        raise VaultError(f"vault request for {swhid} failed: {exc.reason}") from exc


def _api_root(swh: SwhClient) -> str:
    root = str(swh.api_url)
    return root if root.endswith("/") else root + "/"


def _fetch_bundle(swh: SwhClient, swhid: str, bundle: Path, *, max_bytes: int,
                  poll: tuple[float, float], timeout: float, clock: _Clock) -> Path:
    """The bundle of ``swhid`` downloaded to ``bundle``, cooked again when it expired."""
    for attempt in range(1, RECOOK_ATTEMPTS + 2):
        url = _cook(swh, swhid, poll, timeout, clock)
        try:
            # Without the bearer token: the shared download takes no headers, and the
            # raw URL redirects to a cache host that must never receive it anyway.
            return download(swh.client, url, bundle, max_bytes=max_bytes)
        except HttpError as exc:
            if exc.status in (404, 410) and attempt <= RECOOK_ATTEMPTS:
                log.info("the vault bundle of %s expired (HTTP %s); cooking it again",
                         swhid, exc.status)
                continue
            raise VaultError(f"download of the vault bundle of {swhid} failed: {exc.reason}") from exc
        except FetchError as exc:
            raise VaultError(f"vault bundle of {swhid}: {exc.reason}") from exc
    raise AssertionError("unreachable")


# --------------------------------------------------------------------------- small trees


def _walk_listing(listing: Listing, dir_id: str, max_files: int) -> list[tuple[str, dict]]:
    """Every entry under ``dir_id`` as (relative path, entry), directories included;
    raises VaultError as soon as the tree has more than ``max_files`` files."""
    out: list[tuple[str, dict]] = []
    files = 0
    stack = [("", dir_id)]
    while stack:
        prefix, current = stack.pop()
        for entry in listing(current):
            rel = f"{prefix}{entry['name']}"
            out.append((rel, entry))
            if entry["type"] == "dir":
                stack.append((rel + "/", entry["target"]))
            elif entry["type"] == "file":
                files += 1
                if files > max_files:
                    raise VaultError(
                        f"the tree has more than {max_files} files, too many to fetch one by one"
                    )
    return out


def _rebuild_small_tree(swh: SwhClient, dir_id: str, work: Path, *, max_files: int,
                        max_bytes: int) -> Path:
    """A tar of the tree built from the directory and content endpoints. Submodules
    become empty folders, as in a vault bundle; a file Software Heritage did not archive
    (``status: absent``) makes the tree unusable."""
    entries = _walk_listing(swh.directory, dir_id, max_files)
    total = sum(e.get("length") or 0 for _, e in entries if e["type"] == "file")
    if total > max_bytes:
        raise VaultError(f"the tree's files add up to {total} bytes, over the cap of {max_bytes}")
    tar_path = work / "tree.tar"
    written = 0
    with tarfile.open(tar_path, "w") as archive:
        # Everything under one folder, as in a vault bundle, so that materialize strips
        # that folder and never a tree's own single top-level folder.
        top = tarfile.TarInfo(_TOP)
        top.type, top.mode = tarfile.DIRTYPE, 0o755
        archive.addfile(top)
        for rel, entry in sorted(entries, key=lambda item: item[0]):
            info = tarfile.TarInfo(f"{_TOP}/{rel}")
            if entry["type"] in ("dir", "rev"):
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                archive.addfile(info)
                continue
            if entry.get("status") == "absent":
                raise VaultError(f"{rel}: the archive holds no content for this file")
            # Through the client, so that a token raises this request's rate limit too.
            path = f"content/sha1_git:{entry['target']}/raw/"
            try:
                data = swh.get_bytes(path, max_bytes=max(max_bytes - written, 0))
            except HttpError as exc:
                raise VaultError(f"{rel}: content download failed: {exc.reason}") from exc
            except SwhError as exc:
                raise VaultError(f"{rel}: {exc.reason}") from exc
            if entry.get("length") is not None and len(data) != entry["length"]:
                raise VaultError(f"{rel}: got {len(data)} bytes, the listing says {entry['length']}")
            written += len(data)
            perms = entry.get("perms") or 0o100644
            if perms == _PERMS_LINK:
                info.type, info.linkname = tarfile.SYMTYPE, data.decode("utf-8", "surrogateescape")
                archive.addfile(info)
            else:
                info.size = len(data)
                info.mode = 0o755 if perms == _PERMS_EXECUTABLE else 0o644
                archive.addfile(info, io.BytesIO(data))
    return tar_path


# --------------------------------------------------------------------------- fetch_tree


def fetch_tree(
    swh: SwhClient,
    dir_swhid: str,
    dest: Path,
    *,
    limits: ExtractionLimits,
    max_bytes: int,
    poll: tuple[float, float] = (1.0, 60.0),
    timeout: float = 3600,
    small_tree_files: int = 0,
    use_vault: bool = True,
    sleep: Callable[[float], None] = time.sleep,
) -> Path:
    """Fetch the directory ``dir_swhid`` and extract it to ``dest``; returns ``dest``.

    ``poll`` is (first, longest) delay between status requests; the delay doubles.
    ``timeout`` bounds the seconds spent waiting for the vault. ``max_bytes`` caps the
    bundle download (and the sum of file sizes on the small-tree route). With
    ``use_vault`` false, or when the vault fails, a tree of at most ``small_tree_files``
    files is rebuilt from the directory and content endpoints (0: never).

    Raises :class:`VaultError` when the tree cannot be fetched, and
    ``harvester.fetch.FetchError`` when the bundle is refused by the safe extraction.
    """
    if not is_directory_swhid(dir_swhid):
        raise VaultError(f"not a directory SWHID: {dir_swhid!r}")
    dest = Path(dest)
    work = dest.parent / f".{dest.name}.fetch"
    shutil.rmtree(work, ignore_errors=True)  # leftovers of a killed run
    work.mkdir(parents=True)
    try:
        failure: VaultError | None = None
        if use_vault:
            try:
                bundle = _fetch_bundle(
                    swh, dir_swhid, work / "bundle.tar.gz", max_bytes=max_bytes, poll=poll,
                    timeout=timeout, clock=_Clock(sleep),
                )
            except VaultError as exc:
                failure = exc
            else:
                # The bundle holds one folder named after the SWHID: materialize strips it.
                return materialize([("bundle.tar.gz", bundle)], dest, limits)
        if small_tree_files <= 0:
            raise failure or VaultError("the vault is disabled and small trees are not fetched")
        try:
            tar_path = _rebuild_small_tree(
                swh, dir_swhid[len(SWHID_DIR_PREFIX):], work, max_files=small_tree_files,
                max_bytes=max_bytes,
            )
        except HttpError as exc:
            raise VaultError(f"directory listing failed: {exc.reason}") from exc
        except VaultError as exc:
            if failure is not None:
                raise VaultError(f"{failure.reason}; small-tree route: {exc.reason}") from exc
            raise
        if failure is not None:
            log.info("%s; rebuilt %s from the directory and content endpoints",
                     failure.reason, dir_swhid)
        return materialize([("tree.tar", tar_path)], dest, limits)
    finally:
        shutil.rmtree(work, ignore_errors=True)


# --------------------------------------------------------------------------- verify_tree


def _hash_restoring_submodules(hasher: _Hasher, rel: str, dir_id: str, listing: Listing,
                               found: list[str]) -> str:
    """The hex tree hash of ``rel`` with the archive's submodule entries restored.

    Only directories whose local hash differs from the archive's are listed remotely,
    so a tree without submodules costs no request and one with a few costs one request
    per directory on the way to each."""
    local = hasher.directory(rel).hex()
    if local == dir_id:
        return local
    remote = {entry["name"]: entry for entry in listing(dir_id)}
    entries: list[tuple[bytes, bytes, bytes]] = []
    seen: set[str] = set()
    for entry in hasher.source.listdir(rel):
        name = hasher.name(entry)
        if name == b".git":
            continue
        text = name.decode("utf-8", "surrogateescape")
        seen.add(text)
        theirs = remote.get(text)
        if theirs and entry.kind == KIND_DIR and theirs["type"] == "rev" and not hasher.source.listdir(entry.path):
            entries.append((MODE_GITLINK, name, bytes.fromhex(theirs["target"])))
            found.append(entry.path)
        elif theirs and entry.kind == KIND_DIR and theirs["type"] == "dir":
            digest = _hash_restoring_submodules(hasher, entry.path, theirs["target"], listing, found)
            entries.append((MODE_DIR, name, bytes.fromhex(digest)))
        else:
            entries.append(hasher.entry(entry, name))
    # A bundle may also leave a submodule out altogether.
    for text, theirs in remote.items():
        if theirs["type"] == "rev" and text not in seen:
            entries.append((MODE_GITLINK, text.encode("utf-8", "surrogateescape"),
                            bytes.fromhex(theirs["target"])))
            found.append(f"{rel}/{text}" if rel else text)
    return _tree_hash(entries).hex()


def verified_identity(tree: Path, expected_dir_swhid: str,
                      listing: Listing) -> tuple[TreeIdentity, list[str]]:
    """(identity, submodule paths) of an extracted tree that is the archived directory
    ``expected_dir_swhid``; the identity's files and bytes count the local blobs.
    Raises :class:`VaultError` on any mismatch besides restorable submodules."""
    if not is_directory_swhid(expected_dir_swhid):
        raise VaultError(f"not a directory SWHID: {expected_dir_swhid!r}")
    expected = expected_dir_swhid[len(SWHID_DIR_PREFIX):]
    try:
        source = LocalDirectory(tree)
        counting = _Hasher(source)
        local = counting.directory("").hex()
        found: list[str] = []
        if local != expected:
            try:
                local = _hash_restoring_submodules(_Hasher(source), "", expected, listing, found)
            except HttpError as exc:
                raise VaultError(f"directory listing failed: {exc.reason}") from exc
    except (SwhidError, OSError) as exc:
        raise VaultError(f"the fetched tree cannot be identified: {exc}") from exc
    if local != expected:
        raise VaultError(
            f"the fetched tree is {SWHID_DIR_PREFIX}{local}, not the archived"
            f" {expected_dir_swhid}"
        )
    identity = TreeIdentity(expected_dir_swhid, counting.files, counting.bytes)
    return identity, sorted(found)


def verify_tree(tree: Path, expected_dir_swhid: str, listing: Listing) -> list[str]:
    """Check that ``tree`` is the archived directory ``expected_dir_swhid``, restoring the
    git submodule entries (type ``rev``) that the vault writes as empty folders from
    ``listing`` (``SwhClient.directory``). Returns the submodule paths; raises
    :class:`VaultError` on any other mismatch."""
    return verified_identity(tree, expected_dir_swhid, listing)[1]
