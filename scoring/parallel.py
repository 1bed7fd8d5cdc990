"""Measuring many trees on every core: an ordered map over worker processes.

Measurement is CPU-bound Python (parsing and pattern matching), so threads do not help;
one tree per task keeps a slow tree from holding back a whole chunk, and results come
back in input order so output and store writes stay deterministic.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from typing import TypeVar

Item = TypeVar("Item")
Value = TypeVar("Value")


def available_cores() -> int:
    """Cores this process may run on (the affinity mask where the OS has one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def resolve_jobs(jobs: int | None, tasks: int) -> int:
    """Worker count for ``tasks`` tasks: ``jobs`` <= 0 or None means one per core;
    never more workers than tasks."""
    if jobs is None or jobs <= 0:
        jobs = available_cores()
    return max(1, min(jobs, tasks))


def _context() -> multiprocessing.context.BaseContext:
    # fork starts workers with the detectors already imported and their tables built;
    # elsewhere (macOS, Windows) spawn is the only safe choice.
    if sys.platform.startswith("linux"):
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def ordered_map(
    func: Callable[[Item], Value], items: Iterable[Item], *, jobs: int | None = 1
) -> Iterator[tuple[Item, Value | BaseException]]:
    """Yield ``(item, func(item))`` in input order, or ``(item, exception)`` when ``func``
    raised for that item: one bad tree never stops the others.

    ``func`` must be a module-level function (it is pickled by reference). With one job
    everything runs in this process, with no pickling at all.
    """
    pending = list(items)
    workers = resolve_jobs(jobs, len(pending))
    if workers == 1:
        for item in pending:
            try:
                yield item, func(item)
            except Exception as exc:  # noqa: BLE001 - reported per item, like the pool does
                yield item, exc
        return
    with ProcessPoolExecutor(max_workers=workers, mp_context=_context()) as pool:
        # A bounded window of submitted tasks keeps memory flat for long lists while
        # every worker always has the next tree queued.
        window = workers * 4
        futures: list[tuple[Item, Future]] = []
        position = 0
        while position < len(pending) or futures:
            while position < len(pending) and len(futures) < window:
                futures.append((pending[position], pool.submit(func, pending[position])))
                position += 1
            item, future = futures.pop(0)
            try:
                yield item, future.result()
            except Exception as exc:  # noqa: BLE001 - includes a worker that died
                yield item, exc
