"""``measure(tree)``: run every registered detector over one tree index.

Measurement is rubric-independent and is the expensive half of scoring; the result can
be stored and scored again under any rubric (:func:`scoring.aggregate.score`).

Given a facts cache (:mod:`scoring.facts_cache`), measuring a tree first takes the facts
of every file a language frontend reads (:meth:`scoring.tree.TreeIndex.all_facts`),
from the cache for blobs seen before, so that the cache learns every new blob. Without
one, facts are computed only when asked for, once per content. The measurements never
depend on the cache.
"""

from __future__ import annotations

import gc
import os
import traceback
from collections.abc import Iterable, Iterator
from typing import Any

from . import __version__
from .catalog import METRIC_IDS
from .declared import declared_metadata
from .facts import FileFacts
from .facts_cache import FactsCache, FactsKey, RecordingFactsCache, worker_cache
from .model import OUTCOME_ERROR, Measurement, Measurements
from .parallel import ordered_map, resolve_jobs
from .registry import load_detectors
from .tree import Limits, TreeIndex
from .trees.archives import open_tree_source
from .trees.sources import TreeSource, printable


def measure(
    tree: str | os.PathLike[str] | TreeSource | TreeIndex,
    *,
    limits: Limits | None = None,
    facts_cache: FactsCache | None = None,
) -> Measurements:
    """Measure all 26 sub-metrics of ``tree`` (a path, a tree source or an index).

    ``facts_cache``: where the facts of the tree's files are looked up before their
    frontends run, and where new ones are put (for an index, it replaces the index's
    own); with a cache (the index's own included) the facts of every file a frontend
    reads are taken before the detectors run. None: facts are computed only when asked
    for, once per content, for this call only.

    A path is a directory, or a zip or tar archive (recognised by its content) read in
    place with the extraction's safety rules: the same measurements as its extraction
    (:func:`scoring.trees.archives.open_tree_source`). Raises TreeSourceError for a
    path that is neither, and ArchiveRuleError for an archive extraction would refuse.

    A detector that raises does not abort the others: its measurement has outcome
    ``error`` and the reason, and the aggregator will refuse to score the tree.
    """
    if isinstance(tree, (str, os.PathLike)):
        source = open_source(tree, limits)
        try:
            return measure(source, limits=limits, facts_cache=facts_cache)
        finally:
            source.close()
    owned = not isinstance(tree, TreeIndex)
    index = tree if isinstance(tree, TreeIndex) else TreeIndex(tree, limits, facts_cache=facts_cache)
    if not owned and facts_cache is not None:
        index.facts_cache = facts_cache
    registry = load_detectors()
    results: dict[str, Measurement] = {}
    # Parsing builds hundreds of thousands of short-lived, acyclic AST objects; the cycle
    # collector would rescan the growing heap again and again while a tree is measured
    # (about a sixth of the CPU time). Reference counting frees them all the same; any
    # cycles are collected once the collector is back on.
    collecting = gc.isenabled()
    gc.disable()
    try:
        if index.facts_cache is not None:
            # The facts pass: every file a frontend reads, once, in one cache lookup, so
            # that the cache learns every new blob. It reads files but records nothing
            # in the inventory.
            index.all_facts()
        _run_detectors(index, registry, results)
        inventory = index.inventory()
        # After the inventory: reading the metadata files must not add to what the scan
        # reports (a problem found only here is not a measurement's).
        declared = declared_metadata(index)
        if owned:
            index.release()
    finally:
        if collecting:
            gc.enable()
    measured = Measurements(measurements=results, inventory=inventory, scorer_version=__version__,
                            declared=declared)
    if index.undecodable_names:
        # Paths keep the bytes of names that are not UTF-8 (surrogate escapes); what
        # leaves the scorer (JSON, the store, exports) must be text.
        measured = Measurements.from_dict(_printable(measured.to_dict()))
    return measured


def open_source(path: str | os.PathLike[str], limits: Limits | None = None):
    """The tree at ``path`` (a directory, or an archive read in place) as a tree source
    whose memory bound is the scan limits; close it when done."""
    scan = limits or Limits()
    return open_tree_source(
        path, keep_file_bytes=scan.max_file_bytes, keep_total_bytes=scan.max_total_bytes
    )


def _printable(data: Any) -> Any:
    if isinstance(data, str):
        return printable(data)
    if isinstance(data, dict):
        return {_printable(key): _printable(value) for key, value in data.items()}
    if isinstance(data, list):
        return [_printable(item) for item in data]
    return data


def _run_detectors(index: TreeIndex, registry, results: dict[str, Measurement]) -> None:
    for metric_id in METRIC_IDS:
        det = registry[metric_id]
        try:
            with index.reading_for(det.category):
                results[metric_id] = det.run(index)
        except Exception as exc:  # noqa: BLE001 - one detector's bug must not hide the others
            results[metric_id] = Measurement(
                metric_id=metric_id,
                category=det.category,
                value=None,
                applicable=False,
                level=None,
                outcome=OUTCOME_ERROR,
                reason=f"{type(exc).__name__}: {exc}",
                counts={"traceback_tail": traceback.format_exc(limit=3).splitlines()[-3:]},
                detector_version=det.version,
            )


def _measure_path(
    job: tuple[str, Limits | None, bool, FactsCache | None],
) -> tuple[Measurements, dict[FactsKey, FileFacts]]:
    # With ``cached``, the facts the tree's measurement computes go back with the
    # measurements and the caller puts them into its cache: in a worker process
    # ``cache`` is only what it may read of the caller's (or None), so that only the
    # caller ever writes there.
    path, limits, cached, cache = job
    if not cached:
        return measure(path, limits=limits), {}
    recording = RecordingFactsCache(cache, write_through=False)
    measured = measure(path, limits=limits, facts_cache=recording)
    return measured, recording.new


def measure_many(
    paths: Iterable[str | os.PathLike[str]],
    *,
    jobs: int | None = 1,
    limits: Limits | None = None,
    facts_cache: FactsCache | None = None,
) -> Iterator[tuple[str, Measurements | BaseException]]:
    """Measure several trees, ``jobs`` at a time (``None`` or 0: one per core), yielding
    ``(path, measurements)`` in input order, or ``(path, exception)`` for a tree that
    could not be read. Each tree is measured exactly as :func:`measure` would.

    ``facts_cache`` serves the facts of blobs seen before and learns the new ones. Trees
    measured in this process read it directly; worker processes read what it offers
    them (:func:`scoring.facts_cache.worker_cache`, e.g. the store's file, read-only).
    Either way the facts computed for a tree come back with its measurements and are
    put into ``facts_cache`` here, before the tree is yielded.
    """
    names = [os.fspath(path) for path in paths]
    cached = facts_cache is not None
    inline = resolve_jobs(jobs, len(names)) == 1
    task_cache = facts_cache if inline else worker_cache(facts_cache)
    jobs_list = [(name, limits, cached, task_cache) for name in names]
    for (path, *_), outcome in ordered_map(_measure_path, jobs_list, jobs=jobs):
        if isinstance(outcome, BaseException):
            yield path, outcome
            continue
        measured, new = outcome
        if new and facts_cache is not None:
            facts_cache.put_many(new)
        yield path, measured
