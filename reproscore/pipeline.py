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

A lock (``fcntl.flock`` on a lock file) keeps two runs from working on one database.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO, Any

from harvester.fetch import ExtractionLimits, download, materialize
from harvester.http import HttpClient, HttpError, user_agent
from harvester.records import DepositRecord
from harvester.zenodo import WindowRestart, ZenodoHarvester, harvest_windows
from scoring.aggregate import IncompleteMeasurements, score
from scoring.measurement import measure
from scoring.registry import load_detectors
from scoring.rubric import Rubric, load_rubric
from scoring.sources import LocalDirectory
from scoring.swhid import tree_identity

from .config import Config
from .store import Store

SOURCE = "zenodo"
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

    def __init__(self, stream: IO[str] | None = None, *, quiet: bool = False) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.quiet = quiet
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


def make_client(config: Config, per_minute: float) -> HttpClient:
    """An HTTP client with the configured timeouts, retries and (unless pacing is off)
    the given client-side pace."""
    http = config.http
    return HttpClient(
        user_agent=user_agent(http.contact),
        timeout=(http.connect_timeout, http.read_timeout),
        max_attempts=http.max_attempts,
        backoff_base=http.backoff_base,
        backoff_max=http.backoff_max,
        per_minute=per_minute if http.pacing else None,
    )


def make_harvesters(config: Config) -> tuple[ZenodoHarvester, HttpClient]:
    """(harvester, download client). OAI and REST requests go through two clients, so
    each is paced by its own limit (30 and 60 per minute at Zenodo); downloads share the
    REST client's pace."""
    z = config.zenodo
    api_client = make_client(config, z.api_per_minute)
    harvester = ZenodoHarvester(
        make_client(config, z.oai_per_minute), rest_client=api_client,
        oai_url=z.oai_url, api_url=z.api_url, metadata_prefix=z.metadata_prefix,
        set_spec=z.set_spec,
        # Restarts are counted here (and recorded on the window), not inside.
        max_restarts=0,
    )
    return harvester, api_client


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


class DepositFailure(Exception):
    """A deposit could not be processed at ``stage``; ``reason`` is stored."""

    def __init__(self, stage: str, error_class: str, reason: str) -> None:
        super().__init__(f"{stage}: {reason}")
        self.stage = stage
        self.error_class = error_class
        self.reason = reason


def _safe_name(index: int, key: str) -> str:
    """A flat download file name for a file key (keys may contain '/')."""
    cleaned = "".join(c if c.isalnum() or c in "._-" else "_" for c in key)[-80:]
    return f"{index:03d}-{cleaned or 'file'}"


@dataclass
class DepositContext:
    """What processing a deposit needs besides the deposit itself."""

    store: Store
    rest: ZenodoHarvester
    client: HttpClient
    config: Config
    rubric: Rubric
    rubric_id: int
    versions: dict[str, str]
    work_dir: Path
    keep: bool


def _stage(stage: str, call: Callable[[], Any]) -> Any:
    """Run one stage, turning any error into a :class:`DepositFailure` with the stage
    and one readable reason (FetchError/HttpError carry theirs)."""
    try:
        return call()
    except DepositFailure:
        raise
    except Exception as exc:  # noqa: BLE001 - every failure of a deposit is recorded, the run goes on
        reason = getattr(exc, "reason", None) or str(exc) or type(exc).__name__
        raise DepositFailure(stage, type(exc).__name__, str(reason)) from exc


def process_deposit(ctx: DepositContext, deposit_id: int, record_id: str) -> str:
    """Fetch, extract, identify, measure (unless already measured), score and store one
    deposit. Returns 'measured', 'reused' or 'withdrawn'; raises DepositFailure."""
    row = ctx.store.conn.execute(
        "SELECT oai_identifier, datestamp FROM deposits WHERE id = ?", (deposit_id,)
    ).fetchone()
    stub = DepositRecord(source=SOURCE, oai_identifier=row[0] or "", datestamp=row[1] or "", record_id=record_id)
    record = _stage("files", lambda: ctx.rest.fetch_files(stub))
    files = [
        {"key": f.key, "size": f.size, "checksum": f.checksum, "url": f.url} for f in record.files
    ]
    ctx.store.save_deposit_files(
        deposit_id, files, swh=record.swh, withdrawn=record.withdrawn, tombstone=record.tombstone
    )
    if record.withdrawn:
        return "withdrawn"
    if not record.files:
        raise DepositFailure("files", "NoFiles", "the record lists no files")
    caps = ctx.config.download
    announced = sum(f.size or 0 for f in record.files)
    if announced > caps.max_deposit_bytes:
        raise DepositFailure(
            "download", "TooLarge",
            f"the deposit's files add up to {announced} bytes, over the cap of {caps.max_deposit_bytes}",
        )
    folder = ctx.work_dir / f"{SOURCE}-{record_id}"
    shutil.rmtree(folder, ignore_errors=True)  # leftovers of a killed run
    try:
        downloads = folder / "download"
        downloads.mkdir(parents=True)
        fetched: list[tuple[str, Path]] = []
        for index, ref in enumerate(record.files):
            path = _stage(
                "download",
                lambda ref=ref, index=index: download(
                    ctx.client, ref.url, downloads / _safe_name(index, ref.key),
                    expected_size=ref.size, expected_md5=ref.md5, max_bytes=caps.max_file_bytes,
                ),
            )
            fetched.append((ref.key, path))
        x = ctx.config.extract
        limits = ExtractionLimits(
            max_total_bytes=x.max_total_bytes, max_entries=x.max_entries,
            max_ratio=x.max_ratio, max_file_bytes=x.max_file_bytes,
        )
        tree = _stage("extract", lambda: materialize(fetched, folder / "tree", limits))
        # The downloads are no longer needed; free the space before measuring.
        if not ctx.keep:
            shutil.rmtree(downloads, ignore_errors=True)
        source = LocalDirectory(tree)
        identity = _stage("identify", lambda: tree_identity(source))
        reusable = ctx.store.reusable_measurements(identity.swhid, ctx.versions)
        measurements = reusable[1] if reusable else _stage("measure", lambda: measure(source))
        label = f"{SOURCE}:{record_id}"
        try:
            scored = score(measurements, ctx.rubric)
        except IncompleteMeasurements as exc:
            # Stored (and linked) with its measurements, so the failed detector can be
            # seen and the tree is not downloaded again once the detector is fixed.
            ctx.store.save_snapshot(
                identity, measurements, source=SOURCE, label=label, deposit_id=deposit_id
            )
            raise DepositFailure("score", type(exc).__name__, str(exc)) from exc
        snapshot_id = ctx.store.save_snapshot(
            identity, measurements, source=SOURCE, label=label, deposit_id=deposit_id,
            score=(ctx.rubric_id, scored),
        )
        ctx.store.mark_deposit_scored(deposit_id, snapshot_id)
        return "reused" if reusable else "measured"
    finally:
        if not ctx.keep:
            shutil.rmtree(folder, ignore_errors=True)


def process_pending(ctx: DepositContext, summary: RunSummary, progress: Progress) -> None:
    """Process every deposit still to do; a failure is recorded and the run goes on."""
    todo = ctx.store.deposits_to_process(SOURCE, max_attempts=ctx.config.run.max_attempts)
    for done, (deposit_id, record_id) in enumerate(todo):
        progress.bar(done, len(todo), f"{SOURCE}:{record_id}")
        try:
            outcome = process_deposit(ctx, deposit_id, record_id)
        except DepositFailure as failure:
            ctx.store.mark_deposit_failed(deposit_id, failure.stage, failure.error_class, failure.reason)
            summary.failed += 1
            summary.failures.append((f"{SOURCE}:{record_id}", failure.stage, failure.reason))
            progress.log(f"{SOURCE}:{record_id}: failed at {failure.stage}: {failure.reason}")
            continue
        if outcome == "withdrawn":
            summary.withdrawn += 1
            progress.log(f"{SOURCE}:{record_id}: withdrawn (HTTP 410), tombstone kept")
            continue
        summary.scored += 1
        if outcome == "reused":
            summary.reused += 1
        else:
            summary.measured += 1
        progress.log(f"{SOURCE}:{record_id}: scored ({outcome})")
    progress.bar(len(todo), len(todo), "done")
    progress.close()


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
) -> RunSummary:
    """The nightly job (``process=True``) or a metadata-only harvest (``process=False``)
    into ``db``. Raises :class:`LockBusy` when another run holds the lock; returns the
    summary otherwise (``summary.ok`` is False when the harvest failed)."""
    progress = progress or Progress()
    started = time.perf_counter()
    summary = RunSummary(command=command)
    # A bad rubric must stop the run before anything is harvested.
    rubric = load_rubric(config.run.rubric) if process else None
    with ExitStack() as stack:
        stack.enter_context(run_lock(_lock_path(config, db)))
        store = stack.enter_context(Store(db))
        stale = store.interrupt_stale(SOURCE)
        if stale:
            progress.log(f"{stale} window(s) left running by a killed run marked interrupted")
        windows = _windows_for_run(store, config, start, until, now or datetime.now(UTC))
        run_id = store.start_run(
            SOURCE, command,
            format_time(windows[0][0]) if windows else None,
            format_time(windows[-1][1]) if windows else None,
        )
        zenodo, client = make_harvesters(config)
        stack.callback(zenodo.client.close)
        stack.callback(client.close)
        try:
            progress.log(f"harvesting {len(windows)} window(s) from {config.zenodo.oai_url}")
            harvest(store, zenodo, run_id, windows, summary, progress, limit=limit)
            if rubric is not None:
                work_dir = Path(config.run.work_dir)
                work_dir.mkdir(parents=True, exist_ok=True)
                ctx = DepositContext(
                    store=store, rest=zenodo, client=client, config=config, rubric=rubric,
                    rubric_id=store.ensure_rubric(rubric),
                    versions={mid: det.version for mid, det in load_detectors().items()},
                    work_dir=work_dir, keep=config.run.keep,
                )
                # Deposits of completed windows are processed even when a later window
                # failed: they are stored, and tomorrow's run would do them anyway.
                process_pending(ctx, summary, progress)
        except BaseException as exc:
            # Record how the run ended (a store error, Ctrl-C) before passing it on; a
            # SIGKILL cannot be caught, and the next run marks that one interrupted.
            interrupted = isinstance(exc, KeyboardInterrupt)
            store.finish_run(
                run_id, "interrupted" if interrupted else "failed",
                message=f"{type(exc).__name__}: {exc}",
                windows=summary.windows_completed, records=summary.records_seen,
                deposits_scored=summary.scored, deposits_failed=summary.failed,
            )
            raise
        summary.checkpoint = store.checkpoint(SOURCE)
        summary.seconds = time.perf_counter() - started
        store.finish_run(
            run_id, "completed" if summary.ok else "failed", message=summary.error,
            windows=summary.windows_completed, records=summary.records_seen,
            deposits_scored=summary.scored, deposits_failed=summary.failed,
        )
    return summary
