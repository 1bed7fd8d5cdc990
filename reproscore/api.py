"""The public library functions that the ``reproscore`` commands wrap, one per command.

The CLI only parses arguments and formats output; everything it does is available here.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from scoring import __version__
from scoring.aggregate import IncompleteMeasurements, score
from scoring.catalog import METRICS, resolve_metric
from scoring.declared import declared_metadata
from scoring.facts_cache import FactsKey, RecordingFactsCache, StorableFacts, encode_for_store
from scoring.fixes import rank_fixes
from scoring.measurement import measure, open_source
from scoring.model import Measurements
from scoring.registry import load_detectors
from scoring.rubric import Rubric, RubricError, load_rubric, parse_rubric
from scoring.tree import Limits, TreeIndex
from scoring.trees.archives import IndexedTree
from scoring.trees.swhid import SwhidError, TreeIdentity, tree_identity

from . import pipeline
from .config import Config, load_config
from .executors import EXECUTORS, Executor, check_dask, make_executor
from .pipeline import Progress, RunSummary
from .store import FactsReader, NotFound, RescoreReport, Store, StoreError

# What show, export and report score under when no rubric is named: one rubric for every
# command, so that two outputs of one database agree.
DEFAULT_RUBRIC = "default"


@dataclass
class TreeScore:
    """The scored result of one tree: the JSON-ready dict and the ranked fixes."""

    path: str
    result: dict[str, Any]
    fixes: list[dict[str, Any]]


def score_tree(path: str | os.PathLike[str], rubric: str | os.PathLike[str] | Rubric = "default", *, limits: Limits | None = None) -> TreeScore:
    """Measure ``path`` (a directory, or a zip or tar archive read in place) and score it
    under ``rubric`` (a bundled name, a file or a Rubric).

    Raises ``scoring.trees.sources.TreeSourceError`` when the path cannot be read as a tree
    (``ArchiveRuleError``, one, for an archive extraction would refuse) and
    ``scoring.rubric.RubricError`` when the rubric is invalid.
    """
    rub = rubric if isinstance(rubric, Rubric) else load_rubric(rubric)
    measurements = measure(path, limits=limits)
    scored = score(measurements, rub)
    return TreeScore(path=str(path), result=scored.to_dict(), fixes=rank_fixes(measurements, rub))


def explain_metric(name: str) -> str:
    """The documentation of one detector (by id such as ``dep_pinning`` or code ``E1``)."""
    spec = resolve_metric(name)
    det = load_detectors()[spec.metric_id]
    header = f"{spec.metric_id} ({spec.code}, category {spec.category}, default weight {spec.default_weight:g}, detector {det.version})"
    return f"{header}\n{'=' * len(header)}\n\n{det.doc}\n"


def list_metrics() -> list[dict[str, Any]]:
    """Every sub-metric with its code, category, default weight and title."""
    return [
        {"id": m.metric_id, "code": m.code, "category": m.category, "weight": m.default_weight, "title": m.title}
        for m in METRICS
    ]


def validate_rubric_file(path: str | os.PathLike[str]) -> Rubric:
    """Load and strictly validate a rubric file; raises RubricError naming the key."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    return parse_rubric(text, source=str(path))


def show_rubric(name_or_path: str) -> dict[str, Any]:
    """The resolved rubric (extends applied, defaults filled) with its identity."""
    rub = load_rubric(name_or_path)
    data = rub.to_dict()
    data["sha256"] = rub.sha256
    return data


# --------------------------------------------------------------------------- store


def identify_tree(path: str | os.PathLike[str]) -> TreeIdentity:
    """The snapshot identity of the tree at ``path`` (a directory, or an archive read in
    place: the identity of its extraction): its SWHID, file count and bytes.

    Raises ``scoring.trees.sources.TreeSourceError`` for an unreadable path and
    ``scoring.trees.swhid.SwhidError`` when an entry of the tree cannot be read.
    """
    source = open_source(path)
    try:
        return tree_identity(source)
    finally:
        source.close()


def _detector_versions() -> dict[str, str]:
    return {mid: det.version for mid, det in load_detectors().items()}


def _scored(
    label: str, measurements: Measurements, rub: Rubric, identity: TreeIdentity | None,
    outcomes: dict[str, Any] | None = None,
) -> TreeScore:
    result = score(measurements, rub, outcomes=outcomes).to_dict()
    result["snapshot"] = None if identity is None else identity.to_dict()
    return TreeScore(path=label, result=result, fixes=rank_fixes(measurements, rub))


@dataclass(frozen=True)
class _Prepared:
    """What a worker hands back for one tree: its identity and its measurements (read
    from the store when the same tree was measured by the same detector versions), and
    with a store the file facts its measurement computed, for the driver to write with
    the snapshot."""

    identity: TreeIdentity | None
    measurements: Measurements
    reused: bool
    facts: dict[FactsKey, StorableFacts] = field(default_factory=dict)


def _prepare(job: tuple[str, str | None, Limits | None, bool]) -> _Prepared:
    """Identify and measure one tree; runs in a worker process for :func:`score_paths`.
    With ``db`` (a worker on this machine), stored measurements of the same tree serve
    instead; with ``identify`` and no ``db`` (a Dask worker, which cannot read the
    store), the identity is required and the driver looks for stored measurements.

    With a store the tree's file facts are taken first: a worker on this machine reads
    those the store knows from its file, read-only (``FactsReader``); the ones it
    computes come back in ``_Prepared.facts`` and the driver writes them."""
    path, db, limits, identify = job
    source = open_source(path, limits)
    try:
        return _prepare_source(source, db, limits, identify)
    finally:
        source.close()


def _measure_recording(source: Any, limits: Limits | None, db: str | None, record: bool) -> tuple[Measurements, dict]:
    """Measure ``source``; with ``record`` (a store will keep the result), with the facts
    the store's file knows (``db``, read-only; None: none) and the new facts, encoded."""
    if not record:
        return measure(source, limits=limits), {}
    recording = RecordingFactsCache(None if db is None else FactsReader(db), write_through=False)
    measurements = measure(source, limits=limits, facts_cache=recording)
    return measurements, encode_for_store(recording.new)


def _prepare_source(source: Any, db: str | None, limits: Limits | None, identify: bool) -> _Prepared:
    archive = isinstance(source, IndexedTree)
    if db is None and not archive:
        measurements, facts = _measure_recording(source, limits, None, identify)
        if identify:
            return _Prepared(tree_identity(source), measurements, False, facts)
        try:
            identity: TreeIdentity | None = tree_identity(source)
        except SwhidError:
            identity = None  # the score does not need it; only storing does
        return _Prepared(identity, measurements, False)
    # With a store the identity decides whether to measure at all; an archive is
    # unpacked while it is hashed (as the pipeline reads one in place), so a member that
    # extraction would refuse is refused before anything is measured.
    identity = tree_identity(source)
    if db is not None and (limits is None or limits == Limits()):
        with Store(db) as store:
            reusable = store.reusable_measurements(identity.swhid, _detector_versions())
        if reusable:
            stored = reusable[1]
            if stored.declared is None:
                # Stored before the declared record existed: the few files it comes from
                # are read, not the whole tree measured again.
                stored = replace(stored, declared=declared_metadata(TreeIndex(source, limits)))
            return _Prepared(identity, stored, True)
    measurements, facts = _measure_recording(source, limits, db, identify)
    return _Prepared(identity, measurements, False, facts)


def _finish(path: str, prepared: _Prepared, rub: Rubric, store: Store | None, rubric_id: int | None) -> TreeScore:
    """Score prepared measurements and, with a store, save snapshot, evidence and score."""
    if store is None:
        return _scored(path, prepared.measurements, rub, prepared.identity)
    assert prepared.identity is not None and rubric_id is not None
    label = str(Path(path).resolve())
    outcome = _stored_outcome(store, prepared.identity.swhid)  # execution tier: ROS, alpha, RCS
    try:
        scored = score(prepared.measurements, rub, outcomes=_outcome_inputs(outcome, rub))
    except IncompleteMeasurements as exc:
        snapshot_id = store.save_snapshot(
            prepared.identity, prepared.measurements, label=label, facts=prepared.facts
        )
        store.record_failure("score", type(exc).__name__, str(exc), snapshot_id=snapshot_id)
        raise
    store.save_snapshot(
        prepared.identity, prepared.measurements, label=label, score=(rubric_id, scored),
        facts=prepared.facts,
    )
    result = scored.to_dict()
    result["snapshot"] = prepared.identity.to_dict()
    _note_outcome(result, outcome)
    return TreeScore(path=path, result=result, fixes=rank_fixes(prepared.measurements, rub))


def score_path(
    path: str | os.PathLike[str],
    rubric: str | os.PathLike[str] | Rubric = "default",
    *,
    db: str | os.PathLike[str] | None = None,
    limits: Limits | None = None,
) -> TreeScore:
    """Score the tree at ``path`` like :func:`score_tree`, adding its snapshot identity
    (``result["snapshot"]``: SWHID, files, bytes).

    With ``db``, the snapshot, its measurements with evidence and the score are stored;
    a tree already stored with measurements by the current detector versions is not
    measured again, and storing it twice changes nothing. A tree that cannot be scored
    (``IncompleteMeasurements``) is stored with its measurements and a failure record
    before the error is raised.
    """
    for _path, outcome in score_paths([path], rubric, db=db, limits=limits, jobs=1):
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome
    raise AssertionError("unreachable: one path in, one result out")


def score_paths(
    paths: list[str | os.PathLike[str]],
    rubric: str | os.PathLike[str] | Rubric = "default",
    *,
    db: str | os.PathLike[str] | None = None,
    limits: Limits | None = None,
    jobs: int | None = 1,
    executor: str | Executor = "local",
    scheduler: str | None = None,
    batch_size: int = 50,
) -> Iterator[tuple[str, TreeScore | BaseException]]:
    """Score several trees as :func:`score_path` does, measuring ``jobs`` trees at a time
    in worker processes (``None`` or 0: one per core), or on a Dask cluster
    (``executor="dask"``, at ``scheduler`` or a LocalCluster of ``jobs`` workers; or an
    :class:`~reproscore.executors.Executor`, left open). Yields ``(path, TreeScore)`` in
    input order, or ``(path, exception)`` for a tree that could not be read, identified
    or scored; the others go on. Only this process writes to the store, ``batch_size``
    trees per transaction at most (and before every wait for a worker).
    """
    rub = rubric if isinstance(rubric, Rubric) else load_rubric(rubric)
    labels = [os.fspath(p) for p in paths]
    database = None if db is None else os.fspath(db)
    owned = not isinstance(executor, Executor)
    runner = (
        make_executor(executor, workers=1 if jobs == 1 else (jobs or 0), scheduler=scheduler)
        if owned else executor
    )
    store = None if database is None else Store(database)  # migrated before workers read it
    try:
        rubric_id = None if store is None else store.ensure_rubric(rub)
        # Workers on other machines cannot read the store: the driver looks there.
        worker_db = None if runner.remote else database
        work = [(label, worker_db, limits, database is not None) for label in labels]
        versions = _detector_versions() if store is not None and runner.remote else None
        with ExitStack() as stack:
            batch = None if store is None else stack.enter_context(store.batch(batch_size))
            for (label, _, _, _), prepared in runner.map(
                _prepare, work, on_wait=None if batch is None else batch.flush
            ):
                result: TreeScore | BaseException = prepared
                if not isinstance(prepared, BaseException):
                    try:
                        if versions is not None and (limits is None or limits == Limits()):
                            reusable = store.reusable_measurements(prepared.identity.swhid, versions)
                            if reusable:
                                stored = reusable[1]
                                if stored.declared is None:  # stored before m007
                                    stored = replace(stored, declared=prepared.measurements.declared)
                                prepared = _Prepared(prepared.identity, stored, True)
                        result = _finish(label, prepared, rub, store, rubric_id)
                    except (IncompleteMeasurements, StoreError) as exc:
                        result = exc
                if batch is not None:
                    batch.done()
                try:
                    yield label, result
                except GeneratorExit:
                    # The caller stopped reading (score_path takes one result): what is
                    # written is kept.
                    if batch is not None:
                        batch.flush()
                    raise
    finally:
        if store is not None:
            store.close()
        if owned:
            runner.close()


def _rubric_for_store(store: Store, reference: str | os.PathLike[str] | Rubric) -> Rubric:
    """A bundled rubric or rubric file, else one stored in the database by ``name`` or
    ``name@version`` (so a collection can be rescored under a rubric whose file is gone)."""
    if isinstance(reference, Rubric):
        return reference
    try:
        return load_rubric(reference)
    except RubricError:
        stored = store.find_stored_rubric(str(reference))
        if stored is None:
            raise
        return stored


def rescore(
    db: str | os.PathLike[str],
    rubric: str | os.PathLike[str] | Rubric,
    *,
    batch_size: int | None = None,
) -> RescoreReport:
    """Score every snapshot stored in ``db`` under ``rubric`` from stored measurements
    only (no tree is read); idempotent. Returns counts and the time taken."""
    with Store(db, create=False) as store:
        rub = _rubric_for_store(store, rubric)
        if batch_size is None:
            return store.rescore(rub)
        return store.rescore(rub, batch_size=batch_size)


def show_stored(
    db: str | os.PathLike[str],
    reference: str,
    rubric: str | os.PathLike[str] | Rubric | None = DEFAULT_RUBRIC,
) -> TreeScore:
    """The stored score of a snapshot or deposit under ``rubric`` (default: the bundled
    default rubric, never whichever score was computed last), in the JSON shape of
    ``score``.

    ``reference`` is a SWHID, a unique prefix of its hash, a deposit (``source:id``,
    version DOI, origin URL) or a local directory (identified by its SWHID). The result
    is rebuilt from the stored measurements by the same scoring code as ``score``,
    checked against the stored score row, and carries that row's provenance under
    ``stored``. A tree with no score under the rubric raises ``NotFound`` saying how to
    rescore.
    """
    with Store(db, create=False) as store:
        if os.path.isdir(reference):
            reference = identify_tree(reference).swhid
        record = store.resolve(reference)
        stored, rub = store.score_under(record, _rubric_for_store(store, rubric or DEFAULT_RUBRIC))
        measurements = store.load_measurements(record.id)
        label = record.label or record.swhid
        outcome = store.outcome_for_snapshot(record.id)  # execution tier: ROS, alpha, RCS
    scored = _scored(label, measurements, rub, record.identity, _outcome_inputs(outcome, rub))
    result = scored.result
    _note_outcome(result, outcome)
    if (result["rrs"], result["rrs_unclamped"]) != (stored.rrs, stored.rrs_unclamped):
        raise StoreError(
            f"snapshot {record.swhid}: the stored score under {rub.name}@{rub.version} "
            f"(RRS {stored.rrs}) differs from its recomputation (RRS {result['rrs']})"
        )
    result["stored"] = stored.provenance()
    return scored


def store_stats(db: str | os.PathLike[str]) -> dict[str, Any]:
    """Counts per table, snapshots and deposits per source, rubric versions with their
    score counts, failures per stage."""
    with Store(db, create=False) as store:
        return store.stats()


# --------------------------------------------------------------------------- harvesting


def _pipeline_config(
    config: str | os.PathLike[str] | Config | None, oai_url: str | None, api_url: str | None
) -> Config:
    loaded = config if isinstance(config, Config) else load_config(config)
    return loaded.with_overrides("zenodo", oai_url=oai_url, api_url=api_url)


def harvest_zenodo(
    db: str | os.PathLike[str],
    *,
    config: str | os.PathLike[str] | Config | None = None,
    start: str | None = None,
    until: str | None = None,
    limit: int | None = None,
    oai_url: str | None = None,
    api_url: str | None = None,
    progress: Progress | None = None,
) -> RunSummary:
    """Harvest Zenodo's software records into ``db`` (metadata only, no download).

    Without ``start`` the harvest resumes from the checkpoint; without ``until`` it
    ends ``lag_hours`` before now. Raises ``pipeline.LockBusy`` when a run holds the
    lock and ``config.ConfigError`` for a bad configuration."""
    begin = None if start is None else pipeline.parse_time(start)
    end = None if until is None else pipeline.parse_time(until)
    if begin is not None and end is not None and begin >= end:
        raise ValueError(f"--from {start} is not before --until {until}")
    return pipeline.run(
        db, _pipeline_config(config, oai_url, api_url), command="harvest",
        start=begin, until=end, limit=limit, process=False, progress=progress,
    )


def harvest_swh(
    db: str | os.PathLike[str],
    *,
    config: str | os.PathLike[str] | Config | None = None,
    origins: str | os.PathLike[str] | None = None,
    query: str | None = None,
    api_url: str | None = None,
    deposits: bool | None = None,
    progress: Progress | None = None,
) -> RunSummary:
    """Discover Software Heritage origins and store each one's latest visit (root
    directory SWHID, deposit metadata) into ``db``; nothing is fetched or scored.

    ``origins`` is a watch-list file (one URL per line), ``query`` an origin search in
    the query language; each replaces its configured counterpart and adds to the other
    channels: new deposits since the ``swh`` checkpoint (per ``swh.deposits``, or
    ``deposits``) and the Zenodo-linked origins stay on. Runs whatever ``swh.enabled``
    says."""
    cfg = (config if isinstance(config, Config) else load_config(config)).with_overrides(
        "swh", api_url=api_url
    )
    if origins is not None:
        pipeline.read_origins_file(origins)  # a missing file is a usage error, before the lock
    request = pipeline.SwhRequest(
        origins_file=None if origins is None else os.fspath(origins), query=query,
        deposits=deposits,
    )
    return pipeline.run(
        db, cfg, command="harvest", process=False, progress=progress,
        sources=(pipeline.SWH,), swh_request=request,
    )


def run_nightly(
    db: str | os.PathLike[str],
    *,
    config: str | os.PathLike[str] | Config | None = None,
    keep: bool | None = None,
    oai_url: str | None = None,
    api_url: str | None = None,
    until: str | None = None,
    swh_api_url: str | None = None,
    origins: str | os.PathLike[str] | None = None,
    query: str | None = None,
    progress: Progress | None = None,
    workers: int | None = None,
    executor: str | Executor | None = None,
    scheduler: str | None = None,
    extract: bool | None = None,
) -> RunSummary:
    """The nightly job: harvest every enabled source from its checkpoint, then fetch,
    measure, score and store every new or updated deposit (see
    :mod:`reproscore.pipeline`). ``origins`` or ``query`` turn Software Heritage
    discovery on for this run, whatever ``swh.enabled`` says. ``workers``,
    ``executor`` (``local`` or ``dask``, or an :class:`~reproscore.executors.Executor`,
    left open), ``scheduler`` (a Dask scheduler address; implies ``dask``) and
    ``extract`` override ``[run]``."""
    cfg = _pipeline_config(config, oai_url, api_url).with_overrides(
        "run", keep=keep or None, extract=extract or None, workers=workers,
        executor=executor if isinstance(executor, str) else None,
    )
    if scheduler is not None:
        cfg = cfg.with_overrides("run", scheduler=scheduler, executor="dask" if executor is None else None)
    if isinstance(executor, str) and executor not in EXECUTORS:
        raise ValueError(f"unknown executor {executor!r} (known: {', '.join(EXECUTORS)})")
    if cfg.run.scheduler is not None and cfg.run.executor != "dask":
        raise ValueError("--scheduler is for --executor dask")
    if cfg.run.executor == "dask" and not isinstance(executor, Executor):
        check_dask()  # before the lock and the harvest, not after
    cfg = cfg.with_overrides("swh", api_url=swh_api_url)
    if origins is not None or query is not None:
        if origins is not None:
            pipeline.read_origins_file(origins)
        cfg = cfg.with_overrides("swh", enabled=True)
    request = pipeline.SwhRequest(
        origins_file=None if origins is None else os.fspath(origins), query=query
    )
    return pipeline.run(
        db, cfg, command="run",
        until=None if until is None else pipeline.parse_time(until), progress=progress,
        swh_request=request, executor=executor if isinstance(executor, Executor) else None,
    )


def deposit_results(db: str | os.PathLike[str], source: str = "zenodo") -> list[dict[str, Any]]:
    """One row per harvested deposit: its id, title, status, SWHID, latest RRS (and its
    rubric) and the latest failure, for the results table of ``run`` and the demo."""
    with Store(db, create=False) as store:
        rows = store.conn.execute(
            """
            SELECT d.source_id, d.title, d.version, d.status,
                   s.swhid, sc.rrs, r.name, f.stage, f.message
            FROM deposits d
            LEFT JOIN deposit_snapshots ds ON ds.deposit_id = d.id
            LEFT JOIN snapshots s ON s.id = ds.snapshot_id
            LEFT JOIN scores sc ON sc.id = (SELECT id FROM scores WHERE snapshot_id = s.id
                                            ORDER BY computed_at DESC, id DESC LIMIT 1)
            LEFT JOIN rubrics r ON r.id = sc.rubric_id
            LEFT JOIN failures f ON f.id = (SELECT id FROM failures WHERE deposit_id = d.id
                                            ORDER BY last_at DESC, id DESC LIMIT 1)
            WHERE d.source = ? ORDER BY CAST(d.source_id AS INTEGER), d.source_id
            """,
            (source,),
        ).fetchall()
    keys = ("record", "title", "version", "status", "swhid", "rrs", "rubric", "failed_stage", "failure")
    return [dict(zip(keys, row, strict=True)) for row in rows]


__all__ = [
    "TreeScore",
    "score_tree",
    "score_path",
    "identify_tree",
    "rescore",
    "show_stored",
    "store_stats",
    "harvest_zenodo",
    "harvest_swh",
    "run_nightly",
    "deposit_results",
    "explain_metric",
    "list_metrics",
    "validate_rubric_file",
    "show_rubric",
    "__version__",
]


# --------------------------------------------------------------------------- exports
# `reproscore export rocrate|codemeta|rdf` and `reproscore verify` (package exporters/).
# The exporters (rocrate, rdflib) are imported when an export is made, so that the
# other commands do not pay for them.


@dataclass
class ExportResult:
    """What an export wrote: the path, the format and one summary per assessment."""

    path: str
    format: str
    assessments: list[dict[str, Any]]


def _export_summary(assessment: Any) -> dict[str, Any]:
    return {
        "subject": assessment.subject.iri,
        "swhid": assessment.snapshot.swhid,
        "rrs": assessment.score.rrs,
        "rubric": assessment.rubric.identity(),
    }


def _export_rubric(store: Store, rubric: str | os.PathLike[str] | Rubric | None) -> Rubric:
    """The rubric an export scores under: the one asked for, else the bundled default
    (never whichever was computed last, so two exports of one database agree)."""
    return _rubric_for_store(store, rubric or DEFAULT_RUBRIC)


def resolve_deposit(db: str | os.PathLike[str], reference: str) -> dict[str, Any]:
    """What a deposit id names: the deposit (``source``, ``source_id``, ``version_doi``,
    ``origin_url``, ``title``; None for a tree reached through no deposit) and the tree
    (``swhid``). ``reference`` is a DOI, a Zenodo record id or URL, an origin URL, a
    snapshot SWHID or ``source:id``. Raises ``NotFound`` (a ``StoreError``) naming what
    was not found."""
    with Store(db, create=False) as store:
        deposit_id, record = store.resolve_subject(reference)
        deposit = None
        if deposit_id is not None:
            row = store.deposit_record(deposit_id)
            deposit = {key: row.get(key) for key in ("source", "source_id", "version_doi", "origin_url", "title")}
    return {"deposit": deposit, "swhid": record.swhid}


def export_rocrate(
    db: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    deposit: str | None = None,
    all_deposits: bool = False,
    zip_file: bool = False,
    rubric: str | os.PathLike[str] | Rubric | None = None,
    config: str | os.PathLike[str] | Config | None = None,
) -> ExportResult:
    """Write the RO-Crate 1.3 assessment package of one deposit (``deposit``: a DOI, a
    Zenodo record id, an origin URL or a SWHID), or with ``all_deposits`` the collection
    crate of every scored deposit, to the directory ``out`` (a zip file with
    ``zip_file``). The score is the one under ``rubric`` (bundled name, file, or stored
    ``name[@version]``), else the bundled default rubric. The publisher is the
    ``[export]`` section of ``config`` (a path or a :class:`Config`; default: the usual
    configuration file). Raises ``NotFound``, ``StoreError``, ``RubricError``,
    ``ConfigError`` or ``exporters.assessment.ExportError``."""
    from exporters.assessment import Publisher, load_assessment, load_collection
    from exporters.rocrate_export import write_collection, write_crate

    if (deposit is None) == (not all_deposits):
        raise ValueError("give either a deposit or all_deposits")
    publisher = Publisher.from_config(config if isinstance(config, Config) else load_config(config))
    with Store(db, create=False) as store:
        rub = _export_rubric(store, rubric)
        if all_deposits:
            assessments = list(load_collection(store, rub))
            path = write_collection(assessments, out, zip_file=zip_file, publisher=publisher)
            kind = "rocrate-collection"
        else:
            assessments = [load_assessment(store, deposit, rub)]
            path = write_crate(assessments[0], out, zip_file=zip_file, publisher=publisher)
            kind = "rocrate"
    return ExportResult(str(path), kind + ("-zip" if zip_file else ""), [_export_summary(a) for a in assessments])


def export_codemeta(
    db: str | os.PathLike[str],
    deposit: str,
    out: str | os.PathLike[str],
    *,
    rubric: str | os.PathLike[str] | Rubric | None = None,
    crate_url: str | None = None,
) -> ExportResult:
    """Write the CodeMeta 3.0 ``codemeta.json`` of one deposit, its score as a ``review``
    (RRS rating, category profile, rubric name, version and hash, the assessment crate
    by identifier and, given ``crate_url``, by URL), to the file ``out``."""
    from exporters.assessment import load_assessment
    from exporters.codemeta_export import write_codemeta

    with Store(db, create=False) as store:
        assessment = load_assessment(store, deposit, _export_rubric(store, rubric))
    path = write_codemeta(assessment, out, crate_url=crate_url)
    return ExportResult(str(path), "codemeta", [_export_summary(assessment)])


def export_rdf(
    db: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    deposit: str | None = None,
    fmt: str = "turtle",
    rubric: str | os.PathLike[str] | Rubric | None = None,
) -> ExportResult:
    """Write the DQV/PROV graph of one deposit, or without ``deposit`` of every scored
    deposit in ``db``, to the file ``out`` in ``fmt``: ``turtle``, ``json-ld``,
    ``ntriples``, ``rdf-xml`` (the flat graph) or ``trig``, ``nquads`` (each deposit's
    measurements in the named graph of its ``dqv:QualityMetadata``)."""
    from exporters.assessment import load_assessment, load_collection
    from exporters.rdf_export import FORMATS, write_rdf

    if fmt not in FORMATS:
        raise ValueError(f"unknown RDF format {fmt!r} (expected one of {', '.join(FORMATS)})")
    with Store(db, create=False) as store:
        rub = _export_rubric(store, rubric)
        if deposit is None:
            assessments = list(load_collection(store, rub))
        else:
            assessments = [load_assessment(store, deposit, rub)]
    path = write_rdf(assessments, out, fmt)
    return ExportResult(str(path), f"rdf-{fmt}", [_export_summary(a) for a in assessments])


def verify_export(path: str | os.PathLike[str]) -> Any:
    """Recompute every score an exported RO-Crate (directory or zip) or RDF file states,
    from the export alone, and check it against the stated values and the rubric's
    hashes. Returns an ``exporters.verify.VerifyReport`` (``.ok``, per-assessment
    ``problems``); raises ``exporters.verify.VerifyError`` when ``path`` is no export."""
    from exporters.verify import verify

    return verify(path)


__all__ += ["ExportResult", "resolve_deposit", "export_rocrate", "export_codemeta", "export_rdf", "verify_export"]


# --------------------------------------------------------------------------- collection audit report
# `reproscore report`. The report package draws with matplotlib: it is imported when a
# report is made, so that the other commands do not pay for it.


def collection_report(
    db: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    rubric: str | os.PathLike[str] | Rubric = "default",
    compare_rubric: str | os.PathLike[str] | Rubric | None = None,
    source: str | None = None,
    community: str | None = None,
    since: str | None = None,
) -> Any:
    """Write the collection audit report of ``db`` into the folder ``out``:
    ``out/index.html`` (self-contained, figures as inline SVG) and ``out/tables/*.csv``
    (every table shown, and ``scores.csv`` with every scored deposit).

    Scores under ``rubric`` (and ``compare_rubric``: a bundled name, a YAML file, or a
    rubric stored in the database by ``name[@version]``) come from the store, or are
    computed from the stored measurements where none is stored; nothing is fetched and
    the database is not changed. ``source`` (zenodo, swh or local), ``community`` (a
    Zenodo community id) and ``since`` (YYYY-MM-DD: deposits processed on or after that
    night) select part of the collection. Returns a ``reproscore.report.ReportResult``.
    Raises ``StoreError``, ``RubricError`` or ``ValueError`` (a bad selection).
    """
    from datetime import date as _date

    from .report import Filters, build_report

    if since is not None:
        since = str(since)[:10]
        try:
            _date.fromisoformat(since)
        except ValueError:
            raise ValueError(f"--since {since!r} is not a date (YYYY-MM-DD)") from None
    filters = Filters(source=source, community=community, since=since)
    with Store(db, create=False) as store:
        first = _rubric_for_store(store, rubric)
        second = None if compare_rubric is None else _rubric_for_store(store, compare_rubric)
        return build_report(store, out, first, compare_rubric=second, filters=filters)


__all__ += ["collection_report"]


# --------------------------------------------------------------------------- execution tier
# `reproscore execute` and `reproscore outcome import` (package reproscore.execution,
# docs/execution.md): outcome components of a stored tree, from a sandboxed run or from
# outside, stored with their origin; `score --db` and `show` then report the ROS, alpha
# and RCS of the tree's current outcome.

EXECUTE_ORIGIN = "reproscore-execute"


class TreeUnavailable(StoreError):
    """The stored tree is not on disk (and no ``--tree`` copy was given), or the copy
    given is another tree."""


@dataclass
class ExecutionResult:
    """One execution: the tree run, the probes' report, the stored outcome and the
    tree's scores with it (one per stored rubric; the default rubric's when none)."""

    reference: str
    swhid: str
    snapshot_id: int
    tree: str
    outcome_id: int
    report: Any  # reproscore.execution.probes.ExecutionReport
    scores: list[dict[str, Any]]

    def to_dict(self) -> dict[str, Any]:
        return {
            "deposit": self.reference,
            "swhid": self.swhid,
            "tree": self.tree,
            "outcome_id": self.outcome_id,
            **self.report.to_dict(),
            "scores": self.scores,
        }


def _outcome_inputs(outcome: dict[str, Any] | None, rub: Rubric) -> dict[str, Any] | None:
    from .execution.outcomes import inputs_for_rubric

    return None if outcome is None else inputs_for_rubric(outcome["components"], rub)


def _note_outcome(result: dict[str, Any], outcome: dict[str, Any] | None) -> None:
    """Name the outcome behind ``result["ros"]``/``["rcs"]``; without one (RCS is the
    RRS) the result is left as ``score`` makes it."""
    if outcome is not None:
        result["outcome"] = {
            key: outcome[key]
            for key in ("outcome_id", "origin", "executed_at", "failure_class", "sandbox", "components")
        }


def _stored_outcome(store: Store, swhid: str) -> dict[str, Any] | None:
    record = store.find_snapshot(swhid)
    return None if record is None else store.outcome_for_snapshot(record.id)


def _outcome_scores(store: Store, record: Any) -> list[dict[str, Any]]:
    """The tree's stored scores (current measurements) with their ROS, alpha and RCS;
    computed under the default rubric when none is stored."""
    rows = store.conn.execute(
        "SELECT r.name, r.version, r.sha256, sc.rrs, sc.ros, sc.ros_coverage, sc.alpha, sc.rcs"
        " FROM scores sc JOIN rubrics r ON r.id = sc.rubric_id"
        " WHERE sc.snapshot_id = ? AND sc.detector_set_id IS ? ORDER BY r.name, r.version",
        (record.id, record.detector_set_id),
    ).fetchall()
    keys = ("rrs", "ros", "coverage", "alpha", "rcs")
    out = [{"rubric": {"name": r[0], "version": r[1], "sha256": r[2]}, **dict(zip(keys, r[3:], strict=True))}
           for r in rows]
    if out or record.detector_set_id is None:
        return out
    rub = load_rubric("default")
    try:
        scored = score(store.load_measurements(record.id), rub,
                       outcomes=_outcome_inputs(store.outcome_for_snapshot(record.id), rub))
    except IncompleteMeasurements:
        return []
    ros = scored.ros
    return [{"rubric": rub.identity(), "rrs": scored.rrs, "ros": None if ros is None else round(ros.value, 2),
             "coverage": None if ros is None else round(ros.coverage, 4),
             "alpha": round(scored.rcs.alpha, 4), "rcs": scored.rcs.value}]


def locate_tree(
    store: Store, record: Any, tree: str | os.PathLike[str] | None = None, config: Config | None = None
) -> Path:
    """Where the files of stored tree ``record`` are: ``tree`` when given, else where
    the store says it was read (a local tree's path; a deposit's extraction folder in
    ``run.work_dir``, kept with ``run --keep``). The folder's SWHID must be the
    snapshot's. Raises :class:`TreeUnavailable`."""
    cfg = config or Config()
    if tree is not None:
        candidates = [("--tree", Path(tree))]
    else:
        candidates = []
        if record.source == "local" and record.label:
            candidates.append(("the scored folder", Path(record.label)))
        work = Path(cfg.run.work_dir)
        if record.source == "zenodo" and record.label and ":" in record.label:
            candidates.append(("the kept extraction", work / f"zenodo-{record.label.split(':', 1)[1]}" / "tree"))
        if record.source == "swh":
            candidates.append(("the kept fetch", work / f"swh-{record.swhid[len('swh:1:dir:'):]}" / "tree"))
    tried = []
    for what, path in candidates:
        if not path.is_dir():
            tried.append(f"{what} {path} does not exist")
            continue
        try:
            found = identify_tree(path).swhid
        except (OSError, SwhidError) as exc:
            tried.append(f"{what} {path} cannot be read ({exc})")
            continue
        if found != record.swhid:
            tried.append(f"{what} {path} is tree {found}, not the snapshot's {record.swhid}")
            continue
        return path
    detail = "; ".join(tried) if tried else "the store keeps no copy of its files"
    raise TreeUnavailable(
        f"the files of snapshot {record.swhid} are not available: {detail}. Give a copy of "
        "the tree with --tree PATH (its SWHID is checked), or keep extracted deposits with "
        "`reproscore run --keep`."
    )


def execute_deposit(
    db: str | os.PathLike[str],
    deposit: str,
    *,
    timeout: float | None = None,
    install_timeout: float | None = None,
    probes: str | list[str] | None = None,
    sandbox: bool = True,
    tree: str | os.PathLike[str] | None = None,
    offline_install: bool = False,
    find_links: list[str] | tuple[str, ...] = (),
    no_index: bool = False,
    config: str | os.PathLike[str] | Config | None = None,
    log: Any = None,
) -> ExecutionResult:
    """Install and run a stored tree in a sandbox and store its outcome components.

    ``deposit`` names the tree as ``show`` does (SWHID, ``source:id``, DOI, origin URL,
    or a local folder, then both the tree's identity and its files).
    Its files are taken from ``tree`` or from where the store says they are
    (:func:`locate_tree`), copied into a scratch directory (deleted afterwards) and run
    under bubblewrap: no network except for the install step (none with
    ``offline_install``), per-probe wall-clock ``timeout``, memory, CPU, process and
    file-size limits (``[execute]`` configuration), no access to the database, the home
    directory or the environment. ``probes`` selects some of I, X, delta, N, E_prime, T
    (default all). ``find_links``/``no_index`` go to every pip install (the folders are
    made visible in the sandbox). ``sandbox=False`` runs the deposit directly on this
    machine: only when the user asked for it (``--no-sandbox``).

    The outcome is stored (origin ``reproscore-execute``) and every score of the tree
    gets its ROS, alpha and RCS. Raises ``SandboxUnavailable`` (no bubblewrap),
    ``TreeUnavailable``, ``NotFound``, ``ValueError`` (an unknown probe).
    """
    from .execution.probes import parse_probes, run_probes
    from .execution.sandbox import Limits

    cfg = config if isinstance(config, Config) else load_config(config)
    x = cfg.execute
    wanted = parse_probes(probes)
    limits = Limits(
        timeout=float(timeout if timeout is not None else x.timeout_seconds), memory_mb=x.memory_mb,
        cpu_seconds=x.cpu_seconds, max_processes=x.max_processes, max_file_mb=x.max_file_mb,
    )
    if tree is None and os.path.isdir(deposit):
        tree, deposit = deposit, identify_tree(deposit).swhid  # a local folder: that tree
    with Store(db, create=False) as store:
        record = store.resolve(deposit)
        source = locate_tree(store, record, tree, cfg)
    pip_options: list[str] = ["--no-index"] if no_index else []
    for folder in find_links:
        pip_options += ["--find-links", os.path.abspath(folder)]
    database = os.path.abspath(os.fspath(db))
    report = run_probes(
        source, probes=wanted, sandbox=sandbox, limits=limits,
        install_timeout=install_timeout if install_timeout is not None else x.install_timeout_seconds,
        offline_install=offline_install, pip_options=pip_options,
        read_only=[os.path.abspath(f) for f in find_links],
        hidden=[database, database + "-wal", database + "-shm"],
        conda=x.conda, scratch_parent=x.scratch_dir, sandbox_uid=x.sandbox_uid, log=log,
    )
    probes_rows = [
        {"probe": p.id, "value": p.value, "status": p.status, "reason": p.reason, "command": p.command,
         "exit_status": p.exit_status, "duration": round(p.duration, 3), "log_excerpt": p.log_excerpt,
         "failure_class": p.failure_class, "details": p.details}
        for p in report.probes.values()
    ]
    with Store(db) as store:
        outcome_id = store.save_outcome(
            record.id, components=report.components(), origin=EXECUTE_ORIGIN,
            executed_at=report.started_at, deposit_id=record.deposit_id,
            origin_detail={"name": EXECUTE_ORIGIN, "version": __version__, "tree": str(source)},
            sandbox=report.sandbox, failure_class=report.failure_class,
            environment=report.environment, duration=report.duration, probes=probes_rows,
        )
        scores = _outcome_scores(store, record)
    return ExecutionResult(deposit, record.swhid, record.id, str(source), outcome_id, report, scores)


def import_outcomes(db: str | os.PathLike[str], path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Store the outcome components of a ``reproscore-outcome/1`` JSON file (one
    outcome or several), each with its origin (and the file's name and sha256), all or
    none. Every subject must name a stored tree. Raises
    ``reproscore.execution.outcomes.OutcomeError`` naming each bad field (an unknown
    subject included). Returns, per outcome, its subject, tree, id and the tree's
    scores with it."""
    from .execution.outcomes import OutcomeError, parse_outcome_file

    outcomes, file_info = parse_outcome_file(path)
    with Store(db, create=False) as store:
        records = []
        problems = []
        for item in outcomes:
            try:
                records.append(store.resolve(item.subject))
            except NotFound as exc:
                field_name = f"{item.path}.subject" if item.path else "subject"
                problems.append(f"{field_name}: {exc}")
        if problems:
            raise OutcomeError(problems, os.fspath(path))
        ids = store.save_outcomes(
            (record.id, {
                "components": item.components, "origin": item.origin,
                "origin_detail": {**item.origin_detail, **file_info}, "executed_at": item.executed_at,
                "deposit_id": record.deposit_id, "failure_class": item.failure_class,
                "probes": item.probes,
            })
            for item, record in zip(outcomes, records, strict=True)
        )
        return [
            {"subject": item.subject, "swhid": record.swhid, "outcome_id": outcome_id, "origin": item.origin,
             "components": item.components, "scores": _outcome_scores(store, record)}
            for item, record, outcome_id in zip(outcomes, records, ids, strict=True)
        ]


__all__ += ["ExecutionResult", "TreeUnavailable", "execute_deposit", "import_outcomes", "locate_tree"]
