"""Measuring many trees on every core: an ordered map over worker processes.

Measurement is CPU-bound Python (parsing and pattern matching), so threads do not help;
one tree per task keeps a slow tree from holding back a whole chunk, and results come
back in input order so output and store writes stay deterministic.

Two additions serve the nightly run (``reproscore run --workers N``):

* an optional **prepare** stage (``prepare=``) run by a few threads of this process,
  e.g. downloading a deposit, whose result is what the worker processes measure: I/O
  overlaps measurement, and whatever the prepare stage shares (an HTTP client and its
  rate-limit pace) stays in one process;
* **worker deaths**: a worker killed mid-task (out of memory, SIGKILL) breaks a
  ``ProcessPoolExecutor`` and fails every task in it with ``BrokenProcessPool``. The
  pool is then rebuilt and the tasks it held are tried again: the ones that were
  submitted to the broken pool are *suspects* and are retried **one at a time, alone in
  the pool**, so that a second death names its culprit. A task whose worker died
  ``attempts`` times gives :class:`WorkerDied` in its place in the results; the
  others, innocent bystanders of the first death, run to completion. Nothing is lost
  and nothing is returned twice. With a prepare stage, a task tried again is
  **prepared again** first: the task may have consumed what was prepared for it (the
  deposit task deletes its downloads) before the pool broke under it, even when its
  own worker survived long enough to finish.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import (
    FIRST_COMPLETED,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
    wait,
)
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, TypeVar

Item = TypeVar("Item")
Value = TypeVar("Value")

# A task is tried at most this many times when worker processes die under it.
DEFAULT_ATTEMPTS = 3


class WorkerDied(Exception):
    """A worker process died (killed, out of memory) while running this task, on each of
    its ``attempts`` tries."""

    def __init__(self, attempts: int) -> None:
        super().__init__(
            f"a worker process died while running this task ({attempts} attempt"
            f"{'s' if attempts != 1 else ''}; the last one alone in the pool)"
        )
        self.attempts = attempts


@dataclass
class PoolStats:
    """What happened to the worker pool of one :func:`ordered_map` call."""

    restarts: int = 0  # pools rebuilt after a worker died
    retried: int = 0  # task attempts made again because of a death


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


def _noop() -> None:
    return None


_PENDING = object()


class _Slot:
    __slots__ = ("item", "value", "attempts", "task_input")

    def __init__(self, item: Any) -> None:
        self.item = item
        self.task_input: Any = item
        self.value: Any = _PENDING
        self.attempts = 0  # deaths of a worker under this task

    @property
    def suspect(self) -> bool:
        return self.attempts > 0


def ordered_map(
    func: Callable[[Any], Value],
    items: Iterable[Item],
    *,
    jobs: int | None = 1,
    prepare: Callable[[Item], Any] | None = None,
    prepare_threads: int = 2,
    on_wait: Callable[[], None] | None = None,
    attempts: int = DEFAULT_ATTEMPTS,
    stats: PoolStats | None = None,
) -> Iterator[tuple[Item, Value | BaseException]]:
    """Yield ``(item, func(item))`` in input order, or ``(item, exception)`` when ``func``
    raised for that item: one bad tree never stops the others.

    ``func`` must be a module-level function or a picklable callable (it is pickled
    for each task). With one job everything runs in this process, with no pickling at
    all. With ``prepare``, each item is first passed through ``prepare`` (in
    ``prepare_threads`` threads of this process, or inline with one job) and ``func``
    receives what it returns. ``on_wait`` is called before this generator blocks
    waiting for the next result (with one job: before each item), e.g. to commit the
    results written so far. ``attempts`` bounds the tries of a task whose worker process
    dies (see the module's documentation); ``stats`` receives the restarts.
    """
    pending = list(items)
    workers = resolve_jobs(jobs, len(pending))
    if workers == 1:
        for item in pending:
            if on_wait is not None:
                on_wait()
            try:
                yield item, func(prepare(item) if prepare is not None else item)
            except Exception as exc:  # noqa: BLE001 - reported per item, like the pool does
                yield item, exc
        return
    yield from _pool_map(
        func, pending, workers, prepare, max(1, prepare_threads), on_wait, max(1, attempts),
        stats if stats is not None else PoolStats(),
    )


def _pool_map(
    func: Callable[[Any], Any],
    pending: list[Any],
    workers: int,
    prepare: Callable[[Any], Any] | None,
    prepare_threads: int,
    on_wait: Callable[[], None] | None,
    attempts: int,
    stats: PoolStats,
) -> Iterator[tuple[Any, Any]]:
    context = _context()
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context)
    # With fork, the first submission starts every worker: do it before any prepare
    # thread exists, so that no worker is forked while a thread holds a lock.
    pool.submit(_noop).result()
    threads = ThreadPoolExecutor(prepare_threads, thread_name_prefix="prepare") if prepare else None
    # Slots not yet yielded: enough for every worker to have a task running and one
    # queued, and for the prepare threads to work ahead, without holding more than that.
    window = 2 * workers + (prepare_threads + workers if prepare else 2 * workers)
    in_flight = 2 * workers
    slots: deque[_Slot] = deque()
    ready: deque[_Slot] = deque()
    suspects: deque[_Slot] = deque()
    preparing: dict[Future, _Slot] = {}
    running: dict[Future, _Slot] = {}
    position = 0

    def submit(slot: _Slot) -> bool:
        try:
            running[pool.submit(func, slot.task_input)] = slot
        except BrokenProcessPool:  # broke since the last look: the slot never ran
            return False
        return True

    def retry_or_give_up(slot: _Slot) -> None:
        slot.attempts += 1
        if slot.attempts >= attempts:
            slot.value = WorkerDied(slot.attempts)
            return
        stats.retried += 1
        if threads is not None:
            preparing[threads.submit(prepare, slot.item)] = slot
        else:
            suspects.append(slot)

    def rebuild() -> None:
        # Every task of the broken pool fails too (or finished just before it broke).
        nonlocal pool
        for future, slot in list(running.items()):
            try:
                slot.value = future.result()
            except BrokenProcessPool:
                retry_or_give_up(slot)
            except Exception as exc:  # noqa: BLE001 - reported in the item's place
                slot.value = exc
        running.clear()
        pool.shutdown(wait=True, cancel_futures=True)
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=context)
        stats.restarts += 1

    try:
        while position < len(pending) or slots:
            while position < len(pending) and len(slots) < window:
                slot = _Slot(pending[position])
                position += 1
                slots.append(slot)
                if threads is not None:
                    preparing[threads.submit(prepare, slot.item)] = slot
                else:
                    ready.append(slot)
            if suspects:
                # A suspect runs alone: nothing else is submitted until it is done.
                if not running:
                    if not submit(suspects[0]):
                        rebuild()
                        continue
                    suspects.popleft()
            else:
                while ready and len(running) < in_flight:
                    if not submit(ready[0]):
                        rebuild()
                        break
                    ready.popleft()
            head = slots[0]
            if head.value is not _PENDING:
                slots.popleft()
                yield head.item, head.value
                continue
            if not preparing and not running:
                continue  # a rebuild just happened: submit again
            if on_wait is not None:
                on_wait()
            done, _ = wait([*preparing, *running], return_when=FIRST_COMPLETED)
            broken = False
            for future in done:
                if future in preparing:
                    slot = preparing.pop(future)
                    try:
                        slot.task_input = future.result()
                    except Exception as exc:  # noqa: BLE001 - reported in the item's place
                        slot.value = exc
                    else:
                        (suspects if slot.suspect else ready).append(slot)
                    continue
                slot = running.pop(future)
                try:
                    slot.value = future.result()
                except BrokenProcessPool:
                    broken = True
                    retry_or_give_up(slot)
                except Exception as exc:  # noqa: BLE001 - reported in the item's place
                    slot.value = exc
            if broken:
                rebuild()
    finally:
        if threads is not None:
            threads.shutdown(wait=True, cancel_futures=True)
        pool.shutdown(wait=True, cancel_futures=True)

