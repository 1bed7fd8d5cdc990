"""The public library functions that the ``reproscore`` commands wrap, one per command.

The CLI only parses arguments and formats output; everything it does is available here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scoring import __version__
from scoring.aggregate import IncompleteMeasurements, score
from scoring.catalog import METRICS, resolve_metric
from scoring.fixes import rank_fixes
from scoring.measurement import measure
from scoring.model import Measurements
from scoring.registry import load_detectors
from scoring.rubric import Rubric, RubricError, load_rubric, parse_rubric
from scoring.sources import LocalDirectory
from scoring.swhid import SwhidError, TreeIdentity, tree_identity
from scoring.tree import Limits

from . import pipeline
from .config import Config, load_config
from .pipeline import Progress, RunSummary
from .store import NotFound, RescoreReport, Store, StoreError


@dataclass
class TreeScore:
    """The scored result of one tree: the JSON-ready dict and the ranked fixes."""

    path: str
    result: dict[str, Any]
    fixes: list[dict[str, Any]]


def score_tree(path: str | os.PathLike[str], rubric: str | os.PathLike[str] | Rubric = "default", *, limits: Limits | None = None) -> TreeScore:
    """Measure ``path`` and score it under ``rubric`` (a bundled name, a file or a Rubric).

    Raises ``scoring.sources.TreeSourceError`` when the path cannot be read as a tree and
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
    """The snapshot identity of the tree at ``path``: its SWHID, file count and bytes.

    Raises ``scoring.sources.TreeSourceError`` for an unreadable path and
    ``scoring.swhid.SwhidError`` when an entry of the tree cannot be read.
    """
    return tree_identity(LocalDirectory(path))


def _detector_versions() -> dict[str, str]:
    return {mid: det.version for mid, det in load_detectors().items()}


def _scored(
    label: str, measurements: Measurements, rub: Rubric, identity: TreeIdentity | None
) -> TreeScore:
    result = score(measurements, rub).to_dict()
    result["snapshot"] = None if identity is None else identity.to_dict()
    return TreeScore(path=label, result=result, fixes=rank_fixes(measurements, rub))


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
    rub = rubric if isinstance(rubric, Rubric) else load_rubric(rubric)
    source = LocalDirectory(path)
    if db is None:
        measurements = measure(source, limits=limits)
        try:
            identity: TreeIdentity | None = tree_identity(source)
        except SwhidError:
            identity = None  # the score does not need it; only storing does
        return _scored(str(path), measurements, rub, identity)
    identity = tree_identity(source)
    label = str(Path(path).resolve())
    with Store(db) as store:
        rubric_id = store.ensure_rubric(rub)
        reusable = None
        if limits is None or limits == Limits():
            reusable = store.reusable_measurements(identity.swhid, _detector_versions())
        measurements = reusable[1] if reusable else measure(source, limits=limits)
        try:
            scored = score(measurements, rub)
        except IncompleteMeasurements as exc:
            snapshot_id = store.save_snapshot(identity, measurements, label=label)
            store.record_failure("score", type(exc).__name__, str(exc), snapshot_id=snapshot_id)
            raise
        store.save_snapshot(identity, measurements, label=label, score=(rubric_id, scored))
    result = scored.to_dict()
    result["snapshot"] = identity.to_dict()
    return TreeScore(path=str(path), result=result, fixes=rank_fixes(measurements, rub))


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
    rubric: str | os.PathLike[str] | Rubric | None = None,
) -> TreeScore:
    """The stored score of a snapshot or deposit, in the JSON shape of ``score``.

    ``reference`` is a SWHID, a unique prefix of its hash, a deposit (``source:id``,
    version DOI, origin URL) or a local directory (identified by its SWHID). Without
    ``rubric``, the most recently computed score is shown. The result is rebuilt from
    the stored measurements by the same scoring code as ``score``, checked against the
    stored score row, and carries that row's provenance under ``stored``.
    """
    with Store(db, create=False) as store:
        if os.path.isdir(reference):
            reference = identify_tree(reference).swhid
        record = store.resolve(reference)
        if record.detector_set_id is None:
            raise NotFound(f"snapshot {record.swhid} has no stored measurements")
        if rubric is None:
            stored = store.stored_score(record)
            if stored is None:
                raise NotFound(f"snapshot {record.swhid} has no stored score")
            rub = store.load_stored_rubric(stored.rubric_id)
        else:
            rub = _rubric_for_store(store, rubric)
            rubric_id = store.rubric_id(rub)
            stored = None if rubric_id is None else store.stored_score(record, rubric_id)
            if stored is None:
                raise NotFound(
                    f"snapshot {record.swhid} has no stored score under rubric "
                    f"{rub.name}@{rub.version}; run: reproscore rescore --db {db} --rubric {rubric}"
                )
        measurements = store.load_measurements(record.id)
        label = record.label or record.swhid
    scored = _scored(label, measurements, rub, record.identity)
    result = scored.result
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
    the query language; both override the configuration. Given either, only those
    origins are harvested, unless ``deposits`` is True (then new deposits since the
    ``swh`` checkpoint are searched too); given neither, every configured channel is
    (deposits per ``swh.deposits``, the watch list, the Zenodo-linked origins). Runs
    whatever ``swh.enabled`` says."""
    cfg = (config if isinstance(config, Config) else load_config(config)).with_overrides(
        "swh", api_url=api_url
    )
    if origins is not None:
        pipeline.read_origins_file(origins)  # a missing file is a usage error, before the lock
    explicit = origins is not None or query is not None
    request = pipeline.SwhRequest(
        origins_file=None if origins is None else os.fspath(origins), query=query,
        deposits=False if explicit and deposits is None else deposits,
        zenodo_links=False if explicit else None,
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
) -> RunSummary:
    """The nightly job: harvest every enabled source from its checkpoint, then fetch,
    extract, score and store every new or updated deposit (see
    :mod:`reproscore.pipeline`). ``origins`` or ``query`` turn Software Heritage
    discovery on for this run, whatever ``swh.enabled`` says."""
    cfg = _pipeline_config(config, oai_url, api_url).with_overrides("run", keep=keep or None)
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
        swh_request=request,
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
