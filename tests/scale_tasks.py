"""Task wrappers for the scale tests (tests/test_scale.py) that kill the worker process
running them: importable by name, so that worker processes (forked pool workers, Dask
workers started with spawn) unpickle them. Nothing here is a mock: the process really
dies with SIGKILL, as it would when the kernel's OOM killer picks it."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any


def _record_id(value: Any) -> str | None:
    job = getattr(value, "job", value)  # a DepositOutcome, or a DepositJob
    return getattr(job, "record_id", None)


class KillOnce:
    """Call ``func``, except that the first call for ``target`` (a deposit's record id,
    or an item equal to it) kills the calling process, after creating ``marker``: the
    marker tells the next attempt that the kill happened. With ``always``, every call
    for ``target`` kills (a poison task)."""

    def __init__(self, func: Any, target: Any, marker: str | os.PathLike[str], *, always: bool = False) -> None:
        self.func = func
        self.target = target
        self.marker = str(marker)
        self.always = always

    def __call__(self, value: Any) -> Any:
        if value == self.target or _record_id(value) == self.target:
            path = Path(self.marker)
            if self.always or not path.exists():
                with path.open("a") as handle:
                    handle.write(f"{os.getpid()}\n")
                os.kill(os.getpid(), signal.SIGKILL)
        return self.func(value)


def square(n: int) -> int:
    return n * n


def deaths(marker: str | os.PathLike[str]) -> int:
    """How many processes a KillOnce killed (one line each in its marker)."""
    path = Path(marker)
    return len(path.read_text().splitlines()) if path.exists() else 0



class ConsumingPair:
    """Two tasks that break the pool under a task that has already consumed its input,
    as the deposit task deletes its downloads: the ``bystander`` reads and deletes the
    file prepared for it, then waits; the ``killer`` waits until that is done and
    kills its own worker (once). The pool breaks while the bystander's worker is
    alive, so the bystander is tried again, and needs its input prepared again."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)

    def prepare(self, name: str) -> str:
        path = self.folder / f"input-{name}"
        path.write_text(name)
        return str(path)

    def __call__(self, path: str) -> str:
        name = Path(path).read_text()  # FileNotFoundError when prepared only once
        killed, consumed = self.folder / "killed", self.folder / "consumed"
        if name == "bystander":
            Path(path).unlink()
            if not killed.exists():
                consumed.touch()
                _wait_for(killed)
                time.sleep(10)  # the broken pool terminates this worker long before
        elif not killed.exists():
            _wait_for(consumed)
            killed.write_text(f"{os.getpid()}\n")
            os.kill(os.getpid(), signal.SIGKILL)
        return name


def _wait_for(path: Path, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.01)


# -- the archive-wide path on Dask (docs/scale.md, "Distributed measurement") ------------
# The same function as in the documentation: one task resolves one origin in a graph
# dataset export and measures its tree from the content store; the export is opened
# once per worker process.

_DATASETS: dict[str, Any] = {}


def measure_origin(job: tuple[str, str, str]) -> tuple[str, Any, Any]:
    """(origin, identity, measurements) of an origin's latest visit, read from the
    export at ``root`` and the content store at ``store``."""
    from harvester.swh_dataset import GraphDataset, LocalContentStore
    from scoring import measure
    from scoring.trees.swhid import tree_identity

    root, store, origin = job
    dataset = _DATASETS.get(root) or _DATASETS.setdefault(root, GraphDataset(root))
    _visit, resolved = dataset.resolve_origin(origin)
    tree = dataset.tree(resolved.directory, LocalContentStore(store))
    return origin, tree_identity(tree), measure(tree)
