"""Where measurement runs: in this process, in a pool of worker processes on this
machine, or on a Dask distributed cluster. ``reproscore run`` and ``reproscore score``
share these executors; the store is written by the caller alone (the *driver*).

Every executor has one method, :meth:`Executor.map`: ``func(prepare(item))`` for each
item, results yielded **in input order** as ``(item, result)`` or ``(item, exception)``.
Input order keeps the store's contents independent of which task finishes first: the
first deposit to reach a tree measures it and the next one reuses it, exactly as in a
sequential run. ``on_wait`` is called before the driver blocks waiting for a result,
so that it can commit what it has written (a batch never holds the write lock across
a wait).

* :class:`LocalExecutor` with one worker: everything inline, in order (the sequential
  run).
* :class:`LocalExecutor` with N workers: ``prepare`` (downloads) in a few threads of
  this process, sharing one HTTP client and its rate-limit pace; ``func``
  (measurement) in N forked worker processes (:func:`scoring.parallel.ordered_map`). A
  worker that dies breaks the pool: it is rebuilt and the tasks retried, the suspects
  alone (see :mod:`scoring.parallel`).
* :class:`DaskExecutor`: ``func(prepare(item))`` is one Dask task on the cluster
  (``prepare`` runs on the worker too: each task fetches and measures one deposit and
  returns what the driver stores, never the tree). A worker that dies mid-task makes
  the scheduler run the task again elsewhere (up to its ``allowed-failures``; for the
  ``LocalCluster`` started here, ``attempts - 1``); an exception raised by a task is
  retried ``attempts - 1`` times (``retries=``). A task that still fails gives its
  exception (e.g. ``KilledWorker``) in its place. Without a scheduler address a
  ``LocalCluster`` of worker processes is started (one thread each, no dashboard).
"""

from __future__ import annotations

import uuid
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import suppress
from typing import Any

from scoring.parallel import DEFAULT_ATTEMPTS, PoolStats, available_cores, ordered_map, resolve_jobs

__all__ = [
    "EXECUTORS",
    "DaskExecutor",
    "Executor",
    "ExecutorError",
    "LocalExecutor",
    "check_dask",
    "make_executor",
    "worker_share",
]

EXECUTORS = ("local", "dask")


class ExecutorError(ValueError):
    """An executor cannot be started (Dask missing, scheduler unreachable, bad name)."""


def check_dask() -> None:
    """Raise :class:`ExecutorError` when Dask distributed cannot be imported."""
    try:
        import distributed  # noqa: F401
    except ImportError as exc:
        raise ExecutorError(
            f"--executor dask needs Dask distributed: pip install 'reproscore[dask]' ({exc})"
        ) from exc


class Executor:
    """Runs ``func(prepare(item))`` for each item; results in input order."""

    name = "executor"
    workers = 1

    def map(
        self,
        func: Callable[[Any], Any],
        items: Iterable[Any],
        *,
        prepare: Callable[[Any], Any] | None = None,
        on_wait: Callable[[], None] | None = None,
    ) -> Iterator[tuple[Any, Any]]:
        raise NotImplementedError

    def describe(self) -> str:
        return self.name

    @property
    def remote(self) -> bool:
        """True when tasks run in other processes that cannot share this one's
        objects (HTTP clients, the store)."""
        return False

    def close(self) -> None:
        """Release the workers."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class LocalExecutor(Executor):
    """This machine: inline with one worker, else a process pool fed by
    ``prepare_threads`` threads running ``prepare``. ``workers`` 0 means one per core."""

    name = "local"

    def __init__(
        self, workers: int = 1, *, prepare_threads: int = 2, attempts: int = DEFAULT_ATTEMPTS
    ) -> None:
        self.workers = available_cores() if workers <= 0 else workers
        self.prepare_threads = max(1, prepare_threads)
        self.attempts = max(1, attempts)
        self.stats = PoolStats()

    def describe(self) -> str:
        if self.workers == 1:
            return "this process"
        return f"{self.workers} worker processes, {self.prepare_threads} download threads"

    def map(self, func, items, *, prepare=None, on_wait=None):
        items = list(items)
        return ordered_map(
            func, items, jobs=min(self.workers, max(1, len(items))), prepare=prepare,
            prepare_threads=self.prepare_threads, on_wait=on_wait, attempts=self.attempts,
            stats=self.stats,
        )


def _chain(func: Callable[[Any], Any], prepare: Callable[[Any], Any] | None, item: Any) -> Any:
    """The body of one Dask task."""
    return func(prepare(item) if prepare is not None else item)


class DaskExecutor(Executor):
    """A Dask distributed cluster: the one at ``scheduler`` (``tcp://host:port``), or a
    ``LocalCluster`` of ``workers`` processes (0: one per core) started here.

    ``window`` bounds the tasks submitted and not yet yielded (default: 8 per worker
    thread, at least 64): the cluster always has work queued while memory stays flat.
    """

    name = "dask"

    def __init__(
        self,
        *,
        scheduler: str | None = None,
        workers: int = 0,
        attempts: int = DEFAULT_ATTEMPTS,
        window: int | None = None,
    ) -> None:
        try:
            import dask
            from distributed import Client, LocalCluster
        except ImportError as exc:
            raise ExecutorError(
                "--executor dask needs Dask distributed: pip install 'reproscore[dask]'"
                f" ({exc})"
            ) from exc
        self.attempts = max(1, attempts)
        self.scheduler = scheduler
        self.cluster = None
        try:
            if scheduler:
                self.client = Client(scheduler, set_as_default=False, timeout="30s")
                self.client.wait_for_workers(1, timeout=120)
            else:
                n_workers = resolve_jobs(workers, 1 << 30)
                # A task whose worker dies is run again at most attempts - 1 times.
                with dask.config.set({"distributed.scheduler.allowed-failures": self.attempts - 1}):
                    self.cluster = LocalCluster(
                        n_workers=n_workers, threads_per_worker=1, processes=True,
                        dashboard_address=None,
                    )
                self.client = Client(self.cluster, set_as_default=False)
        except ExecutorError:
            raise
        except Exception as exc:  # noqa: BLE001 - an unreachable scheduler, a cluster that cannot start
            if self.cluster is not None:
                self.cluster.close()
            where = scheduler or "a LocalCluster"
            raise ExecutorError(f"cannot start the Dask executor on {where}: {type(exc).__name__}: {exc}") from exc
        info = self.client.scheduler_info()
        self.workers = max(1, len(info.get("workers", {})))
        self.threads = max(1, sum(w.get("nthreads", 1) for w in info.get("workers", {}).values()))
        self.window = window or max(64, 8 * self.threads)

    @property
    def remote(self) -> bool:
        return True

    def describe(self) -> str:
        where = self.scheduler or "a LocalCluster"
        return f"Dask ({where}: {self.workers} worker(s), {self.threads} thread(s))"

    def map(self, func, items, *, prepare=None, on_wait=None):
        return self._map(func, list(items), prepare, on_wait)

    def _map(self, func, items, prepare, on_wait):
        batch = uuid.uuid4().hex[:8]
        queue: deque[tuple[Any, Any]] = deque()
        position = 0
        try:
            while position < len(items) or queue:
                # Submit in chunks (one message for many tasks) once half the window
                # is free; collect every finished task at the head in one gather.
                if position < len(items) and len(queue) <= self.window // 2:
                    chunk = items[position:position + self.window - len(queue)]
                    futures = self.client.map(
                        _chain, [func] * len(chunk), [prepare] * len(chunk), chunk,
                        key=[f"reproscore-{batch}-{position + i}" for i in range(len(chunk))],
                        retries=self.attempts - 1, pure=False,
                    )
                    queue.extend(zip(chunk, futures, strict=True))
                    position += len(chunk)
                head = queue[0][1]
                if not head.done():
                    if on_wait is not None:
                        on_wait()
                    with suppress(Exception):
                        head.result()  # wait for it (its error is yielded below)
                ready = []
                while queue and queue[0][1].done():
                    ready.append(queue.popleft())
                finished = [future for _, future in ready if future.status == "finished"]
                values = (
                    dict(zip([f.key for f in finished], self.client.gather(finished), strict=True))
                    if finished else {}
                )
                for item, future in ready:
                    if future.key in values:
                        yield item, values[future.key]
                    else:
                        # KilledWorker, or the task's own error after its retries.
                        yield item, future.exception()
                    future.release()
        finally:
            for _, future in queue:
                future.cancel()

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def make_executor(
    name: str = "local",
    *,
    workers: int = 1,
    scheduler: str | None = None,
    prepare_threads: int = 2,
    attempts: int = DEFAULT_ATTEMPTS,
) -> Executor:
    """The executor called ``name`` (``local`` or ``dask``). ``scheduler`` (a Dask
    scheduler address) is for ``dask`` only. Raises :class:`ExecutorError`."""
    if name == "local":
        if scheduler:
            raise ExecutorError("--scheduler is for --executor dask")
        return LocalExecutor(workers, prepare_threads=prepare_threads, attempts=attempts)
    if name == "dask":
        return DaskExecutor(scheduler=scheduler, workers=workers, attempts=attempts)
    raise ExecutorError(f"unknown executor {name!r} (known: {', '.join(EXECUTORS)})")


def worker_share(executor: Executor) -> int:
    """How many processes share one rate-limit budget: the Dask workers each make their
    own HTTP client (so each gets 1/N of the budget); local downloads share this
    process's client (1)."""
    return max(1, executor.workers) if executor.remote else 1
