"""The nightly job: harvest Zenodo, fetch every new deposit's files, extract them
safely, score the tree and store everything, resumably.

Order of work and why:

1. **Harvest** in windows of full UTC seconds from the checkpoint to ``lag_hours``
   before now. All pages of a window are fetched before anything is stored (resumption
   tokens expire after about two minutes), then the window's records, the window's
   status and the checkpoint are written in one transaction: a killed run either
   stored the whole window and moved the checkpoint, or nothing. A window whose token
   expired (``WindowRestart``) is harvested again from its start. The first window
   that cannot be harvested stops the harvest (later windows could not advance the
   checkpoint past it anyway); the run is then a failure (exit status 1).
2. **Process** every deposit still pending (new or updated records, including ones a
   killed run left behind) and every failed one with attempts left: list files (REST),
   download with size and MD5 checks, materialize (safe extraction), identify the tree
   (SWHID), measure unless the tree is already measured by the installed detectors,
   score and store; the deposit's state changes in the same transaction as its link to
   the tree. A deposit that fails at any stage is recorded in ``failures`` with the
   stage and the reason, and the run goes on. The work folder is deleted unless kept.

3. **Software Heritage** (``[swh]``, or ``reproscore harvest swh``), a second source:
   origins are discovered (new deposits since the ``swh`` checkpoint through the search
   query language, an extra query, a watch list file, and the origins linked from
   Zenodo records in the store); each origin's latest visit with a snapshot is resolved
   to its root directory, and the origin is stored as a deposit (source ``swh``) with
   every new visit in ``swh_visits``, all in one transaction with the checkpoint. Its
   processing fetches the tree from the vault only when that root directory is not
   already measured, verifies that the extracted tree *is* that directory (submodules
   restored), then measures, scores and stores it like a Zenodo deposit.

A lock (``fcntl.flock`` on a lock file) keeps two runs from working on one database.
"""

from __future__ import annotations

import fcntl
import logging
import os
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO, Any

from harvester.http import HttpClient, HttpError
from harvester.zenodo import WindowRestart, ZenodoHarvester, harvest_windows
from scoring.aggregate import IncompleteMeasurements, score
from scoring.registry import load_detectors
from scoring.rubric import Rubric, load_rubric

from .clients import make_harvesters, make_swh_client
from .config import Config
from .deposit_tasks import (
    Clients,
    DepositFailure,
    DepositJob,
    DepositOutcome,
    DepositTask,
    StageFailure,
    failed,
    without_reuse,
)
from .executors import Executor, LocalExecutor, make_executor, worker_share
from .store import Store, check_location

SOURCE = "zenodo"
SWH = "swh"
# Run labels of harvest_runs whose rows a new run may find left "running" by a kill.
RUN_SOURCES = (SOURCE, SWH, f"{SOURCE},{SWH}")
ISO = "%Y-%m-%dT%H:%M:%SZ"
# A window whose token keeps expiring is given up after this many harvests of it.
WINDOW_ATTEMPTS = 3


class LockBusy(Exception):
    """Another run holds the lock (the message names the lock file and its holder)."""


class HarvestFailed(Exception):
    """A window could not be harvested (not one deposit): the run's exit status is
    non-zero. ``attempts`` counts the harvests of the window."""

    def __init__(self, message: str, attempts: int) -> None:
        super().__init__(message)
        self.attempts = attempts


def parse_time(value: str) -> datetime:
    """An ISO 8601 timestamp (``Z`` or an offset; a bare date is midnight) as an aware
    UTC datetime truncated to whole seconds (OAI-PMH granularity)."""
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError as exc:
        raise ValueError(f"not an ISO 8601 timestamp: {value!r}") from exc
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC).replace(microsecond=0)


def format_time(value: datetime) -> str:
    return value.astimezone(UTC).strftime(ISO)


# --------------------------------------------------------------------------- lock


@contextmanager
def run_lock(path: str | os.PathLike[str]) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path`` for the block, or raise :class:`LockBusy`
    at once. The kernel drops the lock when the process dies, so a killed run never
    leaves a stale lock behind; the file itself is left in place on purpose (deleting it
    would let a third process lock a new file while the second still holds the old)."""
    lock_path = Path(path)
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    handle = open(lock_path, "a+", encoding="utf-8")  # noqa: SIM115 - held for the block
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "unknown"
            raise LockBusy(
                f"another reproscore run is working on this database (lock {lock_path} held by"
                f" pid {holder}); this run exits without doing anything"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        yield
    finally:
        handle.close()


# --------------------------------------------------------------------------- progress


class Progress:
    """Progress output: a redrawn line on a terminal, plain timestamped log lines
    otherwise (cron mails and log files want lines, not carriage returns)."""

    def __init__(self, stream: IO[str] | None = None, *, quiet: bool | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        # Progress is the run's informational output: `reproscore -q` silences both.
        self.quiet = not logging.getLogger("reproscore").isEnabledFor(logging.INFO) if quiet is None else quiet
        self._drawn = False

    def log(self, message: str) -> None:
        if self.quiet:
            return
        if self.tty:
            if self._drawn:
                self.stream.write("\r\x1b[K")
                self._drawn = False
            self.stream.write(message + "\n")
        else:
            self.stream.write(f"{datetime.now(UTC).strftime(ISO)} {message}\n")
        self.stream.flush()

    def bar(self, done: int, total: int, label: str) -> None:
        """A progress bar on a terminal; nothing in a log (each step logs its outcome)."""
        if self.quiet or not self.tty or total <= 0:
            return
        width = 30
        filled = int(width * done / total)
        self.stream.write(f"\r\x1b[K[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {label[:40]}")
        self.stream.flush()
        self._drawn = True

    def close(self) -> None:
        if self._drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._drawn = False


# --------------------------------------------------------------------------- summary


@dataclass
class RunSummary:
    """What a harvest or run did; :meth:`line` is the one summary line."""

    command: str = "run"
    windows_completed: int = 0
    windows_failed: int = 0
    records_seen: int = 0
    records_new: int = 0
    records_updated: int = 0
    scored: int = 0
    measured: int = 0
    reused: int = 0
    withdrawn: int = 0
    failed: int = 0
    checkpoint: str | None = None
    error: str | None = None
    seconds: float = 0.0
    failures: list[tuple[str, str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Every window completed (deposit failures are recorded, not fatal)."""
        return self.windows_failed == 0 and self.error is None

    def line(self) -> str:
        text = (
            f"reproscore {self.command}: {'ok' if self.ok else 'FAILED'}; "
            f"{self.windows_completed} window(s) completed, {self.windows_failed} failed; "
            f"{self.records_seen} record(s) ({self.records_new} new, {self.records_updated} updated)"
        )
        if self.command == "run":
            text += (
                f"; {self.scored} deposit(s) scored ({self.measured} measured,"
                f" {self.reused} already measured), {self.withdrawn} withdrawn, {self.failed} failed"
            )
        text += f"; checkpoint {self.checkpoint or 'none'}; {self.seconds:.1f} s"
        if self.error:
            text += f"; error: {self.error}"
        return text

    def to_dict(self) -> dict[str, Any]:
        data = {k: v for k, v in self.__dict__.items() if k != "failures"}
        data["ok"] = self.ok
        data["failures"] = [
            {"deposit": d, "stage": s, "reason": r} for d, s, r in self.failures
        ]
        return data


# --------------------------------------------------------------------------- clients


# --------------------------------------------------------------------------- harvest


def plan_windows(start: datetime, until: datetime, max_hours: int) -> list[tuple[datetime, datetime]]:
    """Windows of at most ``max_hours`` covering [start, until], in full UTC seconds."""
    # harvest_windows ends its last window one hour before "now"; shift "now" by that
    # hour so the windows end exactly at ``until`` (the caller applies its own lag).
    return harvest_windows(start, until + timedelta(hours=1), max_hours)


def _harvest_one(oai: ZenodoHarvester, start: datetime, end: datetime, progress: Progress) -> tuple[list, int, int]:
    """All records and the page count of one window, and how many harvests it took: a
    window whose resumption token expired is harvested again from its start (tokens
    cannot be resumed). Raises :class:`HarvestFailed`."""
    for attempt in range(1, WINDOW_ATTEMPTS + 1):
        try:
            records, pages = oai.harvest_window(start, end)
            return records, pages, attempt
        except WindowRestart as exc:
            if attempt == WINDOW_ATTEMPTS:
                raise HarvestFailed(
                    f"resumption token kept expiring ({attempt} attempts): {exc}", attempt
                ) from exc
            progress.log(f"window {format_time(start)}..{format_time(end)}: {exc}; restarting it")
        except (HttpError, ValueError, OSError) as exc:
            raise HarvestFailed(f"{type(exc).__name__}: {exc}", attempt) from exc
    raise AssertionError("unreachable")


def harvest(
    store: Store,
    oai: ZenodoHarvester,
    run_id: int,
    windows: list[tuple[datetime, datetime]],
    summary: RunSummary,
    progress: Progress,
    *,
    limit: int | None = None,
) -> None:
    """Harvest ``windows`` in order, storing each completed window with its checkpoint
    in one transaction. Stops at the first window that fails (recorded as failed), or
    after the window in which ``limit`` records were reached (that window is stored in
    full: cutting it short would move the checkpoint past records never stored)."""
    for start, end in windows:
        window_id = store.start_window(run_id, SOURCE, format_time(start), format_time(end))
        try:
            records, pages, attempts = _harvest_one(oai, start, end, progress)
        except HarvestFailed as exc:
            store.fail_window(window_id, str(exc), attempts=exc.attempts)
            summary.windows_failed += 1
            summary.error = f"window {format_time(start)}..{format_time(end)}: {exc}"
            progress.log(f"harvest failed: {summary.error}")
            return
        counts = store.complete_window(window_id, records, pages=pages, attempts=attempts)
        del records
        summary.windows_completed += 1
        summary.records_seen += counts.seen
        summary.records_new += counts.new
        summary.records_updated += counts.updated
        progress.log(
            f"window {format_time(start)}..{format_time(end)}: {pages} page(s),"
            f" {counts.seen} record(s), {counts.new} new, {counts.updated} updated"
        )
        if limit is not None and summary.records_seen >= limit:
            progress.log(f"limit of {limit} record(s) reached; stopping the harvest")
            return


# --------------------------------------------------------------------------- deposits
# The work on a deposit is split in three (reproscore/deposit_tasks.py): fetch (HTTP)
# and measure (CPU) run wherever the executor puts them; the driver below writes the
# outcomes to the store, in input order, in batches, alone.


@dataclass
class DepositContext:
    """What processing deposits needs besides the deposits themselves."""

    store: Store
    rest: ZenodoHarvester
    client: HttpClient
    config: Config
    rubric: Rubric
    rubric_id: int
    versions: dict[str, str]
    work_dir: Path
    keep: bool
    # The Software Heritage client, when deposits of that source are processed.
    swh: Any = None
    # Where fetching and measuring run (made on first use: a Dask cluster takes seconds
    # to start, and a run with nothing to process needs none).
    executor: Executor | None = None
    make_executor: Callable[[], Executor] | None = None
    progress: Progress | None = None

    def get_executor(self) -> Executor:
        if self.executor is None:
            if self.make_executor is None:
                self.executor = LocalExecutor(1)
            else:
                self.executor = self.make_executor()
                if self.progress is not None:
                    self.progress.log(f"fetching and measuring: {self.executor.describe()}")
        return self.executor

    def clients(self) -> Clients:
        return Clients(rest=self.rest, download=self.client, swh=self.swh)


def _jobs(ctx: DepositContext, source: str, todo: list[tuple[int, str]]) -> list[DepositJob]:
    """A job per deposit, with what the driver knows from the store. A Software Heritage
    tree already measured, or also the tree of an earlier origin in this list, is not
    fetched (``reuse``): the stored measurements serve when its turn to be written comes,
    as in a sequential run."""
    jobs = []
    seen: set[str] = set()
    for deposit_id, record_id in todo:
        if source == SOURCE:
            row = ctx.store.conn.execute(
                "SELECT oai_identifier, datestamp FROM deposits WHERE id = ?", (deposit_id,)
            ).fetchone()
            jobs.append(DepositJob(deposit_id, SOURCE, record_id, oai_identifier=row[0] or "",
                                   datestamp=row[1] or ""))
            continue
        latest = ctx.store.latest_swh_visit(deposit_id)
        if latest is None:
            failure = StageFailure("resolve", "NoVisit", "no visit with a snapshot is recorded")
            jobs.append(DepositJob(deposit_id, SWH, record_id, failure=failure))
            continue
        visit_row, swhid = latest
        reuse = swhid in seen or ctx.store.reusable_measurements(swhid, ctx.versions) is not None
        seen.add(swhid)
        jobs.append(DepositJob(deposit_id, SWH, record_id, swhid=swhid, visit_row=visit_row, reuse=reuse))
    return jobs


def _save_scored(ctx: DepositContext, job: DepositJob, identity: Any, measurements: Any,
                 facts: dict | None = None) -> int:
    """Score and store one tree with its deposit link, and the file facts its
    measurement computed (none when stored measurements serve), in one transaction; a
    tree that cannot be scored is stored (and linked) with its measurements, so the
    failed detector can be seen and the tree is not fetched again once the detector is
    fixed."""
    try:
        scored = score(measurements, ctx.rubric)
    except IncompleteMeasurements as exc:
        ctx.store.save_snapshot(identity, measurements, source=job.source, label=job.label,
                                deposit_id=job.deposit_id, facts=facts)
        raise DepositFailure("score", type(exc).__name__, str(exc)) from exc
    return ctx.store.save_snapshot(
        identity, measurements, source=job.source, label=job.label, deposit_id=job.deposit_id,
        score=(ctx.rubric_id, scored), facts=facts,
    )


def _measured(outcome: DepositOutcome) -> Any:
    if outcome.measurements is not None:
        return outcome.measurements
    if outcome.measure_error is not None:
        raise outcome.measure_error.exception()
    raise DepositFailure("measure", "MissingMeasurements",
                         "the tree was not measured and no stored measurements of it were found")


def store_zenodo(ctx: DepositContext, outcome: DepositOutcome) -> str:
    """Write one Zenodo deposit's outcome, as the sequential run writes it: its file
    list, then its tree (stored measurements first, if that tree is measured already),
    score and state. Returns 'measured', 'reused' or 'withdrawn'; raises DepositFailure."""
    job = outcome.job
    if outcome.files is None:
        raise (outcome.failure or StageFailure("files", "Unknown", "no file list")).exception()
    ctx.store.save_deposit_files(
        job.deposit_id, outcome.files, swh=outcome.swh, withdrawn=outcome.withdrawn,
        tombstone=outcome.tombstone,
    )
    if outcome.withdrawn:
        return "withdrawn"
    if outcome.failure is not None:
        raise outcome.failure.exception()
    identity = outcome.identity
    reusable = ctx.store.reusable_measurements(identity.swhid, ctx.versions)
    measurements = reusable[1] if reusable else _measured(outcome)
    snapshot_id = _save_scored(ctx, job, identity, measurements, None if reusable else outcome.facts)
    ctx.store.mark_deposit_scored(job.deposit_id, snapshot_id)
    return "reused" if reusable else "measured"


def store_swh(ctx: DepositContext, outcome: DepositOutcome, inline: DepositTask) -> str:
    """Write one Software Heritage origin's outcome: the root directory of its latest
    visit, from stored measurements when that tree is measured already (nothing was
    fetched), else as fetched, verified and measured. A tree expected from an earlier
    origin of this run that failed is fetched and measured here, in the driver."""
    job = outcome.job
    if job.failure is not None:
        raise job.failure.exception()
    reusable = ctx.store.reusable_measurements(job.swhid, ctx.versions)
    submodules = None
    facts = None
    if reusable:
        identity, measurements = reusable[0].identity, reusable[1]
    else:
        if job.reuse:
            outcome = inline.measure(inline.fetch(without_reuse(job)))
        if outcome.failure is not None:
            raise outcome.failure.exception()
        identity, measurements, submodules = outcome.identity, _measured(outcome), outcome.submodules
        facts = outcome.facts
    snapshot_id = _save_scored(ctx, job, identity, measurements, facts)
    ctx.store.mark_swh_scored(job.deposit_id, job.visit_row, snapshot_id, submodules)
    return "reused" if reusable else "measured"


def process_pending(
    ctx: DepositContext, summary: RunSummary, progress: Progress, source: str = SOURCE
) -> None:
    """Process every deposit of ``source`` still to do: fetched and measured by the
    executor, written here in input order, ``run.batch_size`` deposits per transaction
    at most (and before every wait for the executor). A failure is recorded and the run
    goes on; a run killed mid-batch leaves that batch's deposits pending, to be done
    again by the next run."""
    todo = ctx.store.deposits_to_process(source, max_attempts=ctx.config.run.max_attempts)
    jobs = _jobs(ctx, source, todo)
    executor = ctx.get_executor() if jobs else LocalExecutor(1)
    # Tasks on this machine read the facts of known blobs from the store's file (a Dask
    # worker may be elsewhere: it computes them all); the driver writes the new ones.
    inline = DepositTask(ctx.config, clients=ctx.clients(), facts_db=ctx.store.path)
    if executor.remote:
        task = DepositTask(ctx.config, share=worker_share(executor))
    else:
        # Fetching runs in this process (threads); measuring inline when there is one
        # worker, and then a tree whose stored measurements serve is not measured.
        lookup = None
        if executor.workers == 1:
            def lookup(swhid: str) -> bool:
                return ctx.store.reusable_measurements(swhid, ctx.versions) is not None
        task = DepositTask(ctx.config, clients=ctx.clients(), lookup=lookup, facts_db=ctx.store.path)
    with ctx.store.batch(ctx.config.run.batch_size) as batch:
        results = executor.map(task.measure, jobs, prepare=task.fetch, on_wait=batch.flush)
        for done, (job, outcome) in enumerate(results):
            progress.bar(done, len(jobs), job.label)
            if isinstance(outcome, BaseException):
                outcome = failed(job, outcome)
            try:
                if source == SWH:
                    status = store_swh(ctx, outcome, inline)
                else:
                    status = store_zenodo(ctx, outcome)
            except DepositFailure as failure:
                ctx.store.mark_deposit_failed(job.deposit_id, failure.stage, failure.error_class, failure.reason)
                summary.failed += 1
                summary.failures.append((job.label, failure.stage, failure.reason))
                progress.log(f"{job.label}: failed at {failure.stage}: {failure.reason}")
                batch.done()
                continue
            batch.done()
            if status == "withdrawn":
                summary.withdrawn += 1
                progress.log(f"{job.label}: withdrawn (HTTP 410), tombstone kept")
                continue
            summary.scored += 1
            if status == "reused":
                summary.reused += 1
            else:
                summary.measured += 1
            progress.log(f"{job.label}: scored ({status})")
    stats = getattr(executor, "stats", None)
    if stats is not None and stats.restarts:
        progress.log(
            f"the worker pool was rebuilt {stats.restarts} time(s) after a worker process died;"
            f" {stats.retried} task attempt(s) made again"
        )
        stats.restarts = stats.retried = 0
    progress.bar(len(jobs), len(jobs), "done")
    progress.close()


# --------------------------------------------------------------------------- Software Heritage


def read_origins_file(path: str | os.PathLike[str]) -> list[str]:
    """The origin URLs of a watch list: one per line; blank lines and ``#`` comments are
    ignored. Raises ValueError naming the file when it cannot be read."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"{path}: cannot read the origins file: {exc.strerror or exc}") from exc
    origins = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):  # a URL may hold '#': only whole-line comments
            origins.append(line)
    return origins


@dataclass
class SwhRequest:
    """What one Software Heritage discovery looks at besides the configuration: the
    watch list file and the extra query given on the command line (each overrides the
    configured one)."""

    origins_file: str | None = None
    query: str | None = None
    deposits: bool | None = None
    zenodo_links: bool | None = None


def _swh_window_start(store: Store, config: Config, now: datetime) -> datetime:
    stored = store.checkpoint(SWH)
    if stored is not None:
        return parse_time(stored)
    if config.swh.start is not None:
        return parse_time(config.swh.start)
    return now - timedelta(hours=24)


class OriginNotArchived(Exception):
    """Software Heritage has no visit with a snapshot of this origin."""


def _resolve_origin(swh: Any, store: Store, origin: str, discovered_by: str) -> tuple | None:
    """(record, visit facts) of the origin's latest visit with a snapshot, or None when
    that visit is recorded already (nothing new to resolve). Raises
    :class:`OriginNotArchived` when the archive has no such visit."""
    from harvester.swh import origin_to_record, parse_deposit_metadata

    visit = swh.latest_visit(origin)
    if not visit or not visit.get("snapshot"):
        raise OriginNotArchived(
            "Software Heritage has no visit of this origin with a snapshot "
            "(unknown to the archive, or never archived in full)"
        )
    if store.swh_visit_known(origin, int(visit["visit"])):
        return None
    resolution = swh.resolve_root(visit["snapshot"])
    metadata = None
    if visit.get("type") == "deposit":
        # The raw Atom/CodeMeta the depositor sent; the newest one describes this visit.
        entries = swh.deposit_metadata(resolution.swhid)
        if entries:
            metadata = parse_deposit_metadata(entries[-1][1])
    record = origin_to_record(origin, visit, resolution, metadata)
    facts = {
        "visit": int(visit["visit"]), "visit_type": visit.get("type"), "date": visit["date"],
        "status": visit["status"], "swh_snapshot": visit["snapshot"],
        "branch": resolution.branch, "target_type": resolution.target_type,
        "target": resolution.target, "release": resolution.release,
        "revision": resolution.revision, "directory": resolution.swhid,
        "discovered_by": discovered_by,
    }
    return record, facts


def discover_swh(
    store: Store, swh: Any, run_id: int, config: Config, request: SwhRequest,
    summary: RunSummary, progress: Progress, now: datetime,
) -> None:
    """One Software Heritage discovery, recorded as one window of source ``swh`` from
    the checkpoint to ``now``: origins from every configured channel, each resolved to
    its latest visit's root directory, stored with the checkpoint in one transaction.
    The checkpoint (deposits discovered up to ``now``) moves only when the deposit
    search ran and every origin it found was resolved; otherwise the next run searches
    the same period again (stored visits are not resolved twice)."""
    from harvester.swh import Discovery

    c = config.swh
    start = _swh_window_start(store, config, now)
    window_id = store.start_window(run_id, SWH, format_time(start), format_time(now))
    origins: dict[str, str] = {}  # origin -> how it was found (first channel wins)
    deposits = c.deposits if request.deposits is None else request.deposits
    query = request.query if request.query is not None else c.query
    origins_file = request.origins_file if request.origins_file is not None else c.origins_file
    try:
        if deposits:
            found = Discovery().deposits_since(swh, start, overlap=timedelta(hours=c.overlap_hours))
            for origin in found:
                origins.setdefault(origin, "deposits")
        if query:
            for item in swh.search_origins(query, use_ql=True, limit=c.query_limit):
                origins.setdefault(item["url"], "query")
        if origins_file:
            for origin in read_origins_file(origins_file):
                origins.setdefault(origin, "watch")
        if c.zenodo_links if request.zenodo_links is None else request.zenodo_links:
            for origin in store.zenodo_linked_origins():
                origins.setdefault(origin, "zenodo")
    except (HttpError, ValueError, OSError) as exc:
        reason = getattr(exc, "reason", None) or str(exc)
        store.fail_window(window_id, f"{type(exc).__name__}: {reason}")
        summary.windows_failed += 1
        summary.error = f"Software Heritage discovery: {reason}"
        progress.log(f"harvest failed: {summary.error}")
        return
    progress.log(f"Software Heritage: {len(origins)} origin(s) to check at {c.api_url}")
    found_items = []
    unresolved = 0
    for done, (origin, channel) in enumerate(origins.items()):
        progress.bar(done, len(origins), origin)
        try:
            item = _resolve_origin(swh, store, origin, channel)
        except OriginNotArchived as exc:
            if channel != "watch":
                # Found through a Zenodo link or a search: not archived (yet) is no failure.
                progress.log(f"{SWH}:{origin}: not archived yet")
                continue
            # A watched origin the archive does not hold is an operator's business, each night.
            summary.failures.append((f"{SWH}:{origin}", "resolve", str(exc)))
            progress.log(f"{SWH}:{origin}: cannot resolve its latest visit: {exc}")
            deposit_id = store.deposit_id(SWH, origin) or store.upsert_deposit(SWH, origin, origin_url=origin)
            store.record_failure("resolve", type(exc).__name__, str(exc), deposit_id=deposit_id)
            continue
        except Exception as exc:  # noqa: BLE001 - one origin's failure must not stop the others
            unresolved += channel == "deposits"
            reason = getattr(exc, "reason", None) or str(exc) or type(exc).__name__
            summary.failures.append((f"{SWH}:{origin}", "resolve", str(reason)))
            progress.log(f"{SWH}:{origin}: cannot resolve its latest visit: {reason}")
            # The reason is kept per origin even before it has a scored visit: the row
            # carries only the origin URL (no status), so nothing tries to fetch it.
            deposit_id = store.deposit_id(SWH, origin) or store.upsert_deposit(SWH, origin, origin_url=origin)
            store.record_failure("resolve", type(exc).__name__, str(reason), deposit_id=deposit_id)
            continue
        if item is None:
            progress.log(f"{SWH}:{origin}: no new visit since the last run")
            continue
        found_items.append(item)
    progress.close()
    counts = store.complete_swh_window(
        window_id, found_items, pages=1, advance=bool(deposits) and unresolved == 0
    )
    summary.windows_completed += 1
    summary.records_seen += counts.seen
    summary.records_new += counts.new
    summary.records_updated += counts.updated
    progress.log(
        f"Software Heritage: {len(origins)} origin(s), {counts.seen} new visit(s),"
        f" {counts.new} new origin(s), {counts.updated} updated"
    )


# --------------------------------------------------------------------------- entry points


def _lock_path(config: Config, db: str | os.PathLike[str]) -> str:
    return config.run.lock_file or f"{os.fspath(db)}.lock"


def _windows_for_run(store: Store, config: Config, start: datetime | None, until: datetime | None,
                     now: datetime) -> list[tuple[datetime, datetime]]:
    z = config.zenodo
    end = until or (now - timedelta(hours=z.lag_hours)).replace(microsecond=0)
    if start is None:
        stored = store.checkpoint(SOURCE)
        if stored is not None:
            start = parse_time(stored)
        elif z.start is not None:
            start = parse_time(z.start)
        else:
            start = end - timedelta(hours=z.window_hours)
    if start >= end:
        return []
    return plan_windows(start, end, z.window_hours)


def run(
    db: str | os.PathLike[str],
    config: Config,
    *,
    command: str = "run",
    start: datetime | None = None,
    until: datetime | None = None,
    limit: int | None = None,
    process: bool = True,
    progress: Progress | None = None,
    now: datetime | None = None,
    sources: tuple[str, ...] | None = None,
    swh_request: SwhRequest | None = None,
    executor: Executor | None = None,
) -> RunSummary:
    """The nightly job (``process=True``) or a metadata-only harvest (``process=False``)
    into ``db``. ``sources`` are harvested (default: each source whose section is
    enabled); processing covers the pending deposits of both sources, fetched and
    measured on ``executor`` (default: the one ``[run]`` configures, started when the
    first deposit needs it and closed at the end; one given here is left open). Raises
    :class:`LockBusy` when another run holds the lock; returns the summary otherwise
    (``summary.ok`` is False when a harvest failed)."""
    progress = progress or Progress()
    check_location(db)  # before the lock file is made beside it
    started = time.perf_counter()
    summary = RunSummary(command=command)
    if sources is None:
        sources = tuple(
            name for name, on in ((SOURCE, config.zenodo.enabled), (SWH, config.swh.enabled)) if on
        )
    now = now or datetime.now(UTC)
    # A bad rubric must stop the run before anything is harvested.
    rubric = load_rubric(config.run.rubric) if process else None
    with ExitStack() as stack:
        stack.enter_context(run_lock(_lock_path(config, db)))
        store = stack.enter_context(Store(db))
        # Holding the lock, any run or window still "running" was left by a killed run.
        stale = sum(store.interrupt_stale(label) for label in RUN_SOURCES)
        if stale:
            progress.log(f"{stale} window(s) left running by a killed run marked interrupted")
        windows = (
            _windows_for_run(store, config, start, until, now) if SOURCE in sources else []
        )
        run_id = store.start_run(
            ",".join(sources) or "none", command,
            format_time(windows[0][0]) if windows else None,
            format_time(windows[-1][1]) if windows else None,
        )
        zenodo, client = make_harvesters(config)
        stack.callback(zenodo.client.close)
        stack.callback(client.close)
        swh = None
        try:
            if SOURCE in sources:
                progress.log(f"harvesting {len(windows)} window(s) from {config.zenodo.oai_url}")
                harvest(store, zenodo, run_id, windows, summary, progress, limit=limit)
            if SWH in sources or (rubric is not None and store.deposits_to_process(
                    SWH, max_attempts=config.run.max_attempts)):
                swh, swh_http = make_swh_client(config)
                stack.callback(swh_http.close)
            if SWH in sources:
                discover_swh(store, swh, run_id, config, swh_request or SwhRequest(), summary,
                             progress, now.replace(microsecond=0))
            if rubric is not None:
                work_dir = Path(config.run.work_dir)
                work_dir.mkdir(parents=True, exist_ok=True)
                r = config.run
                ctx = DepositContext(
                    store=store, rest=zenodo, client=client, config=config, rubric=rubric,
                    rubric_id=store.ensure_rubric(rubric),
                    versions={mid: det.version for mid, det in load_detectors().items()},
                    work_dir=work_dir, keep=config.run.keep, swh=swh, executor=executor,
                    make_executor=lambda: make_executor(
                        r.executor, workers=r.workers, scheduler=r.scheduler,
                        prepare_threads=r.download_threads, attempts=r.task_attempts,
                    ),
                    progress=progress,
                )
                if executor is None:
                    stack.callback(lambda: ctx.executor is not None and ctx.executor.close())
                # Deposits of completed windows are processed even when a later window
                # failed: they are stored, and tomorrow's run would do them anyway.
                # Zenodo first: a tree it downloads is then not fetched from the vault.
                process_pending(ctx, summary, progress, SOURCE)
                if swh is not None:
                    process_pending(ctx, summary, progress, SWH)
        except BaseException as exc:
            # Record how the run ended (a store error, Ctrl-C) before passing it on; a
            # SIGKILL cannot be caught, and the next run marks that one interrupted.
            interrupted = isinstance(exc, KeyboardInterrupt)
            try:
                store.finish_run(
                    run_id, "interrupted" if interrupted else "failed",
                    message=f"{type(exc).__name__}: {exc}",
                    windows=summary.windows_completed, records=summary.records_seen,
                    deposits_scored=summary.scored, deposits_failed=summary.failed,
                )
            except sqlite3.Error:
                # A full disk refuses this write too; the next run marks the run interrupted.
                pass
            raise
        # The Zenodo checkpoint, unless only Software Heritage was harvested.
        summary.checkpoint = store.checkpoint(SWH if sources == (SWH,) else SOURCE)
        summary.seconds = time.perf_counter() - started
        store.finish_run(
            run_id, "completed" if summary.ok else "failed", message=summary.error,
            windows=summary.windows_completed, records=summary.records_seen,
            deposits_scored=summary.scored, deposits_failed=summary.failed,
        )
    return summary
