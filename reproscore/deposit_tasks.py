"""The work on one deposit that runs away from the store: **fetch** (HTTP: list its
files, download them; for Software Heritage, the vault) and **measure** (CPU: open the
archive in place or extract it, identify the tree, measure it).

The driver (:func:`reproscore.pipeline.process_pending`) makes a :class:`DepositJob` per
deposit, an executor (:mod:`reproscore.executors`) runs :meth:`DepositTask.fetch` then
:meth:`DepositTask.measure` on it (inline; in download threads then worker processes;
or as one Dask task), and the driver writes the :class:`DepositOutcome` to the store.
Nothing here touches the store: a job carries what the driver read from it, and an
outcome carries what the driver writes (the file list, the identity, the measurements
with their evidence, or the stage and reason of a failure) but never the tree itself.

Whether stored measurements can serve instead of new ones is decided by the driver
when it writes, in input order, exactly as the sequential run decides it before
measuring; a worker that cannot see the store measures, and the driver keeps the stored
measurements if there are any (:attr:`DepositTask.lookup` lets an inline run skip that
measurement).

File facts (:mod:`scoring.facts_cache`) are the one thing a task reads of the store: on
this machine it looks up the facts of its tree's blobs in the store's file, read-only
(:attr:`DepositTask.facts_db`; on a Dask worker there is none to read, and all are
computed). The facts it computes travel back in :attr:`DepositOutcome.facts`, vetted
for secrets, and the driver writes them with the tree's snapshot.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from harvester.fetch import ExtractionLimits, FetchError, download, materialize, single_archive
from harvester.records import DepositRecord
from scoring.facts_cache import FactsKey, RecordingFactsCache, StorableFacts, encode_for_store
from scoring.measurement import measure
from scoring.model import Measurements
from scoring.trees.archives import ArchiveRuleError, TarTree, ZipTree
from scoring.trees.sources import LocalDirectory, TreeSourceError
from scoring.trees.swhid import TreeIdentity, tree_identity

from .clients import make_harvesters, make_swh_client
from .config import Config
from .store.facts import FactsReader

ZENODO = "zenodo"
SWH = "swh"


class DepositFailure(Exception):
    """A deposit could not be processed at ``stage``; ``reason`` is stored."""

    def __init__(self, stage: str, error_class: str, reason: str) -> None:
        super().__init__(f"{stage}: {reason}")
        self.stage = stage
        self.error_class = error_class
        self.reason = reason


@dataclass(frozen=True)
class StageFailure:
    """A failure as stored: the stage, the error's class and one readable reason."""

    stage: str
    error_class: str
    reason: str

    @classmethod
    def of(cls, failure: DepositFailure) -> StageFailure:
        return cls(failure.stage, failure.error_class, failure.reason)

    def exception(self) -> DepositFailure:
        return DepositFailure(self.stage, self.error_class, self.reason)


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


def extraction_limits(config: Config) -> ExtractionLimits:
    """The ``[extract]`` caps, for Zenodo archives and Software Heritage bundles alike."""
    x = config.extract
    return ExtractionLimits(
        max_total_bytes=x.max_total_bytes, max_entries=x.max_entries,
        max_ratio=x.max_ratio, max_file_bytes=x.max_file_bytes,
    )


def safe_name(index: int, key: str) -> str:
    """A flat download file name for a file key (keys may contain '/')."""
    cleaned = "".join(c if c.isalnum() or c in "._-" else "_" for c in key)[-80:]
    return f"{index:03d}-{cleaned or 'file'}"


@dataclass(frozen=True)
class DepositJob:
    """One deposit to process, as the driver read it from the store (small, picklable).

    Zenodo: ``record_id`` with the OAI identifier and datestamp. Software Heritage:
    ``record_id`` is the origin URL, ``swhid`` the root directory of its latest visit
    (row ``visit_row``); ``reuse`` says the driver expects stored measurements of that
    tree (nothing is fetched; checked again when writing); ``failure`` is known before
    any work (no visit recorded).
    """

    deposit_id: int
    source: str
    record_id: str
    oai_identifier: str = ""
    datestamp: str = ""
    swhid: str | None = None
    visit_row: int | None = None
    reuse: bool = False
    failure: StageFailure | None = None

    @property
    def label(self) -> str:
        return f"{self.source}:{self.record_id}"


@dataclass
class DepositOutcome:
    """What fetching and measuring one deposit gave: everything the driver stores.

    ``files`` is the REST file list (None when listing failed), with the record's
    ``swh`` field, ``withdrawn`` and ``tombstone``. ``failure`` is the first stage that
    failed; ``measure_error`` a measurement that failed (stored measurements of the
    same tree may still serve). ``downloads`` and ``tree`` are local paths handed from
    the fetch stage to the measure stage on one machine; they are cleared (and deleted
    unless kept) before the outcome goes back to the driver.
    """

    job: DepositJob
    files: list[dict[str, Any]] | None = None
    swh: dict[str, Any] | None = None
    withdrawn: bool = False
    tombstone: dict[str, Any] | None = None
    downloads: list[tuple[str, str]] = field(default_factory=list)
    tree: str | None = None
    identity: TreeIdentity | None = None
    submodules: list[str] | None = None
    measurements: Measurements | None = None
    measure_error: StageFailure | None = None
    failure: StageFailure | None = None
    in_place: bool = False
    # the file facts the measurement computed, for the driver to store with the tree
    facts: dict[FactsKey, StorableFacts] = field(default_factory=dict)


@dataclass
class Clients:
    """The HTTP side of fetching: Zenodo's REST harvester, the download client, and the
    Software Heritage client (None when no ``swh`` deposit is processed)."""

    rest: Any
    download: Any
    swh: Any = None

    def close(self) -> None:
        for client in (getattr(self.rest, "client", None), self.download,
                       getattr(self.swh, "http", None)):
            if client is not None:
                with suppress(Exception):
                    client.close()


# Clients made inside a worker process (a Dask worker), one set per configuration and
# share of the rate limits, kept for the process's life.
_WORKER_CLIENTS: dict[tuple[Config, int], Clients] = {}


def _worker_clients(config: Config, share: int) -> Clients:
    key = (config, share)
    clients = _WORKER_CLIENTS.get(key)
    if clients is None:
        # Each of ``share`` processes fetches with its own client: each gets that
        # fraction of every rate limit, so that together they keep to it.
        paced = config.with_overrides(
            "zenodo", oai_per_minute=config.zenodo.oai_per_minute / share,
            api_per_minute=config.zenodo.api_per_minute / share,
        ).with_overrides("swh", per_minute=config.swh.per_minute / share)
        rest, download_client = make_harvesters(paced)
        swh = make_swh_client(paced)[0]
        clients = _WORKER_CLIENTS[key] = Clients(rest=rest, download=download_client, swh=swh)
    return clients


class DepositTask:
    """Fetch and measure one deposit (:class:`DepositJob` → :class:`DepositOutcome`).

    Picklable (the configuration travels, never a client or the store): in the driver
    it uses the driver's ``clients`` (one HTTP client and one pace for every download
    thread); elsewhere (a Dask worker) it makes its own, paced at ``1/share`` of each
    rate limit. ``lookup(swhid)``, in the driver only, says that a tree's stored
    measurements will serve, so measuring it can be skipped. ``facts_db``: the store's
    file, where the facts of known blobs are read (read-only), on this machine only.
    """

    def __init__(
        self,
        config: Config,
        *,
        clients: Clients | None = None,
        lookup: Callable[[str], bool] | None = None,
        share: int = 1,
        facts_db: str | None = None,
    ) -> None:
        self.config = config
        self.clients = clients
        self.lookup = lookup
        self.share = max(1, share)
        self.facts_db = facts_db
        run = config.run
        self.work_dir = Path(run.work_dir)
        self.keep = run.keep
        # The execution tier runs a kept tree: keeping implies extracting.
        self.extract = run.extract or run.keep

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["clients"] = None
        state["lookup"] = None
        return state

    def _clients(self) -> Clients:
        return self.clients if self.clients is not None else _worker_clients(self.config, self.share)

    def folder(self, job: DepositJob) -> Path:
        """The deposit's work folder (downloads, extracted tree)."""
        if job.source == SWH:
            return self.work_dir / f"{SWH}-{(job.swhid or '')[len('swh:1:dir:'):]}"
        return self.work_dir / f"{ZENODO}-{job.record_id}"

    def __call__(self, job: DepositJob) -> DepositOutcome:
        return self.measure(self.fetch(job))

    def _discard(self, folder: Path) -> None:
        if not self.keep:
            shutil.rmtree(folder, ignore_errors=True)

    # ------------------------------------------------------------------ fetch

    def fetch(self, job: DepositJob) -> DepositOutcome:
        """The HTTP stage: a deposit's file list and files, or a Software Heritage tree."""
        if job.source == SWH:
            return self._fetch_swh(job)
        return self._fetch_zenodo(job)

    def _fetch_zenodo(self, job: DepositJob) -> DepositOutcome:
        out = DepositOutcome(job)
        clients = self._clients()
        stub = DepositRecord(source=ZENODO, oai_identifier=job.oai_identifier,
                             datestamp=job.datestamp, record_id=job.record_id)
        try:
            record = _stage("files", lambda: clients.rest.fetch_files(stub))
        except DepositFailure as failure:
            out.failure = StageFailure.of(failure)
            return out
        out.files = [
            {"key": f.key, "size": f.size, "checksum": f.checksum, "url": f.url} for f in record.files
        ]
        out.swh, out.withdrawn, out.tombstone = record.swh, record.withdrawn, record.tombstone
        if record.withdrawn:
            return out
        if not record.files:
            out.failure = StageFailure("files", "NoFiles", "the record lists no files")
            return out
        caps = self.config.download
        announced = sum(f.size or 0 for f in record.files)
        if announced > caps.max_deposit_bytes:
            out.failure = StageFailure(
                "download", "TooLarge",
                f"the deposit's files add up to {announced} bytes, over the cap of {caps.max_deposit_bytes}",
            )
            return out
        folder = self.folder(job)
        shutil.rmtree(folder, ignore_errors=True)  # leftovers of a killed run
        try:
            downloads = folder / "download"
            downloads.mkdir(parents=True)
            for index, ref in enumerate(record.files):
                path = _stage(
                    "download",
                    lambda ref=ref, index=index: download(
                        clients.download, ref.url, downloads / safe_name(index, ref.key),
                        expected_size=ref.size, expected_md5=ref.md5, max_bytes=caps.max_file_bytes,
                    ),
                )
                out.downloads.append((ref.key, str(path)))
        except DepositFailure as failure:
            out.failure = StageFailure.of(failure)
            out.downloads = []
            self._discard(folder)
        return out

    def _fetch_swh(self, job: DepositJob) -> DepositOutcome:
        from harvester.swh_vault import fetch_tree, verified_identity

        out = DepositOutcome(job)
        if job.failure is not None or job.reuse:
            return out
        c = self.config.swh
        swh = self._clients().swh
        folder = self.folder(job)
        shutil.rmtree(folder, ignore_errors=True)  # leftovers of a killed run
        try:
            tree = _stage("fetch", lambda: fetch_tree(
                swh, job.swhid, folder / "tree", limits=extraction_limits(self.config),
                max_bytes=c.max_bundle_bytes, poll=(c.vault_poll_seconds, c.vault_poll_max_seconds),
                timeout=c.vault_timeout_seconds, small_tree_files=c.small_tree_files,
                use_vault=c.vault,
            ))
            out.identity, out.submodules = _stage(
                "identify", lambda: verified_identity(tree, job.swhid, swh.directory)
            )
            out.tree = str(tree)
        except DepositFailure as failure:
            out.failure = StageFailure.of(failure)
            self._discard(folder)
        return out

    # ------------------------------------------------------------------ measure

    def measure(self, out: DepositOutcome) -> DepositOutcome:
        """The CPU stage: identify and measure what the fetch stage left on disk, then
        delete it (unless kept). Returns the outcome without local paths."""
        job = out.job
        if out.failure is not None or out.withdrawn or (job.source == SWH and out.tree is None):
            return out
        folder = self.folder(job)
        try:
            if job.source == SWH:
                self._measure_tree(out, LocalDirectory(out.tree))
            else:
                self._measure_zenodo(out, folder)
        except DepositFailure as failure:
            out.failure = StageFailure.of(failure)
        finally:
            out.downloads = []
            out.tree = None
            self._discard(folder)
        return out

    def _measure_zenodo(self, out: DepositOutcome, folder: Path) -> None:
        fetched = [(key, Path(path)) for key, path in out.downloads]
        limits = extraction_limits(self.config)
        if not self.extract:
            single = _stage("extract", lambda: single_archive(fetched))
            if single is not None:
                source = _stage("extract", lambda: open_in_place(*single, limits))
                out.in_place = True
                try:
                    self._measure_tree(out, source)
                finally:
                    source.close()
                return
        tree = _stage("extract", lambda: materialize(fetched, folder / "tree", limits))
        if not self.keep:
            # The downloads are no longer needed; free the space before measuring.
            shutil.rmtree(folder / "download", ignore_errors=True)
        self._measure_tree(out, LocalDirectory(tree))

    def _measure_tree(self, out: DepositOutcome, source: Any) -> None:
        if out.identity is None:
            try:
                out.identity = _stage("identify", lambda: tree_identity(source))
            except DepositFailure as failure:
                cause = failure.__cause__
                if out.in_place and isinstance(cause, ArchiveRuleError):
                    # Read in place, the archive is unpacked while it is hashed: what
                    # extraction would refuse is a refusal at the same stage.
                    raise DepositFailure("extract", "FetchError", cause.reason) from cause
                raise
        if self.lookup is not None and self.lookup(out.identity.swhid):
            return  # stored measurements serve; the driver loads them
        reader = None if self.facts_db is None else FactsReader(self.facts_db)
        recording = RecordingFactsCache(reader, write_through=False)
        try:
            out.measurements = _stage("measure", lambda: measure(source, facts_cache=recording))
        except DepositFailure as failure:
            out.measure_error = StageFailure.of(failure)
            return
        out.facts = encode_for_store(recording.new)


def open_in_place(key: str, path: Path, kind: str, limits: ExtractionLimits) -> ZipTree | TarTree:
    """The deposit's single archive as a tree source, read where it was downloaded, with
    the extraction caps; a refusal is the FetchError (same sentence, named by the file
    key) that extracting it would give."""
    cls = ZipTree if kind == "zip" else TarTree
    try:
        return cls(path, limits=limits, label=key)
    except ArchiveRuleError as exc:
        raise FetchError(exc.reason) from exc
    except TreeSourceError as exc:
        raise FetchError(str(exc)) from exc


def failed(job: DepositJob, error: BaseException) -> DepositOutcome:
    """The outcome of a task that ended with ``error`` instead of an outcome (its worker
    died every time, or a bug escaped the stages): a failure at stage ``measure``."""
    reason = getattr(error, "reason", None) or str(error) or type(error).__name__
    return DepositOutcome(job, failure=StageFailure("measure", type(error).__name__, str(reason)))


def without_reuse(job: DepositJob) -> DepositJob:
    """The job with its tree to be fetched after all (the stored measurements it
    expected are not there)."""
    return replace(job, reuse=False)
