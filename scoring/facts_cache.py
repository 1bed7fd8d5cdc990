"""The facts cache: a file's facts keyed by its content, so that a blob is parsed once.

A frontend's facts (:mod:`scoring.facts`) depend only on the bytes of a file, on its
*path class* (the suffix of its name as written: ``.R`` and ``.Rmd`` hold the same
language but not the same facts, nor do ``.c`` and ``.h``), on the frontend that reads it
and on that frontend's version (:func:`frontend_version`: its own ``VERSION`` plus the
grammar release). :class:`FactsKey` is exactly that; ``blob_id`` is the git blob id of the
bytes (:func:`scoring.trees.swhid.blob_hash`), the one the tree's SWHID is made of.

A :class:`FactsCache` has two methods, both batched (a store answers many keys with a few
queries): ``get_many(keys)`` gives the facts it knows, ``put_many(items)`` learns new
ones. Three implementations live here:

* :class:`MemoryFactsCache`: a bounded LRU map in this process;
* :class:`RecordingFactsCache`: wraps another cache (or none) and remembers every fact
  put through it in ``new``, so that a caller can persist them (a worker process hands
  them back to the parent, which writes them with the tree's snapshot);
* the store's (:meth:`reproscore.store.Store.facts_cache`), backed by ``file_facts``.

A cache may also offer ``worker_cache()``: a picklable cache a worker process can read
(the store gives a read-only reader of its file); :func:`worker_cache` returns it, or
None when the cache has none (the worker then keeps its facts to itself and returns
them).

Facts are only ever a cache: a key that is missing, or whose stored row cannot be
decoded, is computed again from the file's bytes, and the result is the same.
"""

from __future__ import annotations

import zlib
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from types import ModuleType
from typing import Any, NamedTuple, Protocol, runtime_checkable

from .facts import FileFacts
from .model import SECRET_HINTS, redact

__all__ = [
    "DEFAULT_MEMORY_ENTRIES",
    "FactsCache",
    "FactsKey",
    "MemoryFactsCache",
    "RecordingFactsCache",
    "StorableFacts",
    "encode_for_store",
    "facts_secret_free",
    "frontend_version",
    "installed_frontend_versions",
    "path_class",
    "worker_cache",
]

DEFAULT_MEMORY_ENTRIES = 20_000


class FactsKey(NamedTuple):
    """What a file's facts depend on, and nothing else."""

    blob_id: str           # git blob id of the file's bytes, 40 hex digits
    frontend: str          # the frontend module's name (``r``, ``c_cpp``, …)
    path_class: str        # the suffix of the file's name as written (``.Rmd``), "" when none
    frontend_version: str  # :func:`frontend_version` of the frontend


def path_class(path: str) -> str:
    """The part of a path a frontend's facts may depend on: the suffix of its name, case
    kept (``analysis.Rmd`` → ``.Rmd``; ``Snakefile`` → ``""``). A frontend whose facts
    depend on more of the path than this must not be cached by this key."""
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return name[dot:] if dot > 0 else ""


def frontend_version(module: ModuleType) -> str:
    """The version a frontend writes into ``FileFacts.frontend_version``, without running
    it: the module's ``FACTS_VERSION`` when it defines one, else its ``VERSION`` plus the
    grammar release (:func:`scoring.frontends._common.frontend_version`)."""
    own = getattr(module, "FACTS_VERSION", None)
    if isinstance(own, str):
        return own
    from .frontends._common import frontend_version as combined

    return combined(module.VERSION)


def installed_frontend_versions() -> dict[str, str]:
    """{frontend name: version} of every frontend this scorer has."""
    from importlib import import_module

    from . import frontends

    return {
        name: frontend_version(import_module(f"{frontends.__name__}.{name}"))
        for name in frontends.FRONTENDS
    }


@runtime_checkable
class FactsCache(Protocol):
    """Facts by :class:`FactsKey`, looked up and learnt in batches."""

    def get_many(self, keys: Sequence[FactsKey]) -> dict[FactsKey, FileFacts]:
        """The facts known for those of ``keys`` the cache has (the others are absent)."""
        ...

    def put_many(self, items: Mapping[FactsKey, FileFacts]) -> None:
        """Learn newly computed facts."""
        ...


def worker_cache(cache: FactsCache | None) -> FactsCache | None:
    """What a worker process may read of ``cache``: its ``worker_cache()`` (picklable),
    or None."""
    make = getattr(cache, "worker_cache", None)
    return make() if callable(make) else None


DEFAULT_DERIVED_ENTRIES = 20_000


class DerivedCache:
    """What the tree index derives from one file's content alone for detectors
    (``TreeIndex._cached(..., shared=True)``: a version file's interpreter declarations),
    keyed by ``(kind, blob id)``, least recently used first out, in this
    process only: the code that derived a value is the code that reads it. It rides on a
    facts cache so that the versions of a deposit measured with one cache reuse it, and a
    fresh cache starts empty. Values are immutable (tuples of frozen records)."""

    def __init__(self, max_entries: int = DEFAULT_DERIVED_ENTRIES) -> None:
        self.max_entries = max(1, max_entries)
        self._entries: OrderedDict[tuple[str, str], tuple[Any, tuple[str, ...]]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: tuple[str, str]) -> tuple[Any, tuple[str, ...]] | None:
        found = self._entries.get(key)
        if found is not None:
            self._entries.move_to_end(key)
        return found

    def put(self, key: tuple[str, str], value: tuple[Any, tuple[str, ...]]) -> None:
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)


def derived_cache(cache: object) -> DerivedCache | None:
    """The :class:`DerivedCache` a facts cache carries, or None."""
    found = getattr(cache, "derived", None)
    return found if isinstance(found, DerivedCache) else None


class MemoryFactsCache:
    """A least-recently-used map of at most ``max_entries`` facts, in this process."""

    def __init__(self, max_entries: int = DEFAULT_MEMORY_ENTRIES) -> None:
        self.max_entries = max(1, max_entries)
        self._entries: OrderedDict[FactsKey, FileFacts] = OrderedDict()
        self.derived = DerivedCache()

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def get_many(self, keys: Sequence[FactsKey]) -> dict[FactsKey, FileFacts]:
        found = {}
        for key in keys:
            facts = self._entries.get(key)
            if facts is not None:
                self._entries.move_to_end(key)
                found[key] = facts
        return found

    def put_many(self, items: Mapping[FactsKey, FileFacts]) -> None:
        for key, facts in items.items():
            self._entries[key] = facts
            self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)

    def __getstate__(self) -> dict[str, Any]:
        # A memory cache is never shipped to a worker whole (worker_cache gives None);
        # pickled anyway, it travels empty.
        return {"max_entries": self.max_entries, "_entries": OrderedDict(), "derived": DerivedCache()}


class RecordingFactsCache:
    """Wraps ``inner`` (or nothing) and records in ``new`` every fact put through it.

    ``write_through``: whether puts also reach ``inner`` (False when the caller persists
    ``new`` itself, e.g. with the snapshot in one transaction). Facts recorded are
    served again by ``get_many`` either way. ``hits`` and ``misses`` count the keys
    asked for; ``computed`` the facts put (the frontend runs).
    """

    def __init__(self, inner: FactsCache | None = None, *, write_through: bool = True) -> None:
        self.inner = inner
        self.write_through = write_through
        self.new: dict[FactsKey, FileFacts] = {}
        self.hits = 0
        self.misses = 0

    @property
    def computed(self) -> int:
        return len(self.new)

    @property
    def derived(self) -> DerivedCache | None:
        return derived_cache(self.inner)

    def get_many(self, keys: Sequence[FactsKey]) -> dict[FactsKey, FileFacts]:
        keys = list(keys)
        found = {key: self.new[key] for key in keys if key in self.new}
        rest = [key for key in keys if key not in found]
        if rest and self.inner is not None:
            found.update(self.inner.get_many(rest))
        self.hits += len(found)
        self.misses += len(keys) - len(found)
        return found

    def put_many(self, items: Mapping[FactsKey, FileFacts]) -> None:
        self.new.update(items)
        if self.write_through and self.inner is not None:
            self.inner.put_many(items)

    def worker_cache(self) -> FactsCache | None:
        return worker_cache(self.inner)


# --------------------------------------------------------------------------- secrets

# What redact() leaves of a private key: not a secret any more, but a second redact()
# would take the rest of the text with it (the key pattern runs to the end of the text
# when it finds no END line).
_REDACTED_PEM = "-----BEGIN PRIVATE KEY----- [redacted]"


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def _named_literals(facts: FileFacts) -> Iterable[str]:
    # A literal bound to a credential-like name is a secret to redact() only with its
    # name beside it: written out as an assignment, it is judged the same way.
    for assignment in facts.assignments:
        yield f'{assignment.name} = "{assignment.value}"'
    for string in facts.strings:
        if string.binding:
            yield f'{string.binding} = "{string.value}"'
    for call in facts.calls:
        for name, value in call.kwargs:
            if isinstance(value, str):
                yield f'{name} = "{value}"'
    for part in facts.embedded:   # the facts of another language's cells or chunks
        yield from _named_literals(part)


def facts_secret_free(facts: FileFacts) -> bool:
    """Whether no string of ``facts`` is a secret by the project's redaction rules, each
    judged as :func:`scoring.model.redact` judges a text (provider tokens, private keys,
    credentials in URLs, command lines and headers, literals bound to credential-like
    names): ``redact(s) == s``.

    The store never writes facts that are not: such a file's facts are computed again
    from its bytes each time instead (storing them redacted would give other facts
    than the file's). Fast on large files: the strings are searched once, together,
    for what could be a secret (:data:`scoring.model.SECRET_HINTS`), and only the
    strings a hint points to are redacted to decide.
    """
    return _secret_free(facts, facts.to_dict())


def _secret_free(facts: FileFacts, data: dict) -> bool:
    parts = [s.replace(_REDACTED_PEM, "") for s in _strings(data)]
    parts.extend(s.replace(_REDACTED_PEM, "") for s in _named_literals(facts))
    text = "\n".join(parts)
    starts = []
    offset = 0
    for part in parts:
        starts.append(offset)
        offset += len(part) + 1
    suspects: set[int] = set()
    for pattern in SECRET_HINTS:
        for match in pattern.finditer(text):
            suspects.add(bisect_right(starts, match.start()) - 1)
    return all(redact(parts[i]) == parts[i] for i in sorted(suspects))


class StorableFacts(bytes):
    """One file's facts as the store writes them: the compact JSON of
    ``FileFacts.to_json``, zlib-compressed (:data:`STORE_COMPRESSION`), made only by
    :func:`encode_for_store` of facts in which :func:`facts_secret_free` found no secret.
    Small and picklable, so a worker process encodes (and compresses) the facts it
    computed and the parent only writes them. :func:`decode_stored` reads one back."""

    __slots__ = ()


# zlib level of the stored facts: facts JSON repeats its keys on every fact, so the
# fastest level already shrinks it fivefold (72 MB of the corpus's facts to 14 MB in
# 0.4 s, 2 % of computing them); level 6 takes twice the time for 6.1x, level 9 four
# times for 6.3x.
STORE_COMPRESSION = 1


def decode_stored(data: bytes | str) -> FileFacts:
    """The facts of a stored row (:class:`StorableFacts`; plain JSON text is read too).
    Raises ``zlib.error``, ``ValueError`` or ``TypeError`` for what is not facts."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        data = zlib.decompress(data).decode("utf-8")
    return FileFacts.from_json(data)


def encode_for_store(items: Mapping[FactsKey, FileFacts]) -> dict[FactsKey, StorableFacts]:
    """Each of ``items`` that holds no secret, as :class:`StorableFacts`; the others are
    left out (they are computed again when next needed), and so is any that cannot be
    encoded: facts are a cache, never a reason for a tree to fail."""
    out = {}
    for key, facts in items.items():
        try:
            data = facts.to_dict()
            if _secret_free(facts, data):
                out[key] = StorableFacts(zlib.compress(FileFacts.json_of(data).encode("utf-8"), STORE_COMPRESSION))
        except Exception:  # noqa: BLE001,S112 - left out, computed again next time
            continue
    return out
