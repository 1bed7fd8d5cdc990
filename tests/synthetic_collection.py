"""A synthetic collection in a real store, for the report's tests and benchmark.

``build(path, ...)`` creates the store with its own migrations (``Store(path)``), then
fills it with bulk inserts into that schema, deterministically from a seed:

* harvest runs, one per night (``2026-10-01`` onwards), each processing the deposits
  of its night;
* Zenodo deposits in concept DOIs of one to four versions (later versions on later
  nights), in zero to two of a few communities, mostly scored, some failed (with a
  failure row: stage and error class), pending or withdrawn, a few with a measurement
  that failed (so their tree cannot be scored);
* Software Heritage origins with one to three visits, each visit's tree a snapshot (two
  consecutive visits may reach the same tree), a few failing at ``resolve``; one origin's
  latest tree is also a Zenodo deposit's tree;
* trees scored from local folders (snapshot source ``local``, no deposit);
* 26 current measurements per tree (values, applicability, levels, fixes, evidence);
* scores under ``default`` stored for most trees (``Store.rescore``), some removed so
  the report computes them, and one stale score (older detector set) that must be
  ignored;
* with ``outcomes_every``, an execution outcome (components, failure class, origin, one
  probe record) for every n-th tree, inserted in bulk, and the stored scores brought up
  to date with them (``Store.refresh_outcome_scores``). The tests import outcomes through
  ``reproscore outcome import`` instead; the benchmark uses these.

Timestamps are fixed (but for the times ``Store.rescore`` records), so two builds with
the same arguments give the same report.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from reproscore.store import Store, detector_set_sha256  # noqa: E402
from scoring import __version__  # noqa: E402
from scoring.catalog import METRICS  # noqa: E402
from scoring.rubric import load_rubric  # noqa: E402

COMMUNITIES = ("ecology", "astro", "bioinfo", "climate", "hep")
FAILURES = (
    ("download", "ChecksumMismatch", "md5 of the download does not match the record"),
    ("extract", "UnsafeArchive", "entry escapes the extraction folder: ../../etc/passwd"),
    ("files", "HTTPError", "REST record answered 500"),
)
BATCH = 5000
LEVELS = (0.0, 25.0, 50.0, 70.0, 100.0)


def stamp(night: int, second: int = 0) -> str:
    """A time on night ``night`` (0 = 2026-10-01), 02:00 UTC plus ``second`` seconds."""
    day = 1 + night
    month, day = (10, day) if day <= 31 else (11, day - 31)
    minutes, seconds = divmod(second, 60)
    hours, minutes = divmod(minutes, 60)
    return f"2026-{month:02d}-{day:02d}T{2 + hours:02d}:{minutes:02d}:{seconds:02d}.000000Z"


def swhid(n: int) -> str:
    return "swh:1:dir:" + hashlib.sha1(b"synthetic collection tree %d" % n).hexdigest()


@dataclass
class Built:
    """What was built, for tests that want to know without querying."""

    path: Path
    nights: int
    zenodo: int = 0
    swh: int = 0
    local: int = 0
    snapshots: int = 0
    incomplete_snapshots: list[int] = field(default_factory=list)
    stale_score_snapshot: int | None = None
    outcomes: int = 0


class _Builder:
    def __init__(self, store: Store, seed: int, nights: int, evidence_every: int):
        self.store = store
        self.conn = store.conn
        self.rng = random.Random(seed)
        self.nights = nights
        self.evidence_every = evidence_every
        self.snapshot_rows: list[tuple] = []
        self.measurement_rows: list[tuple] = []
        self.evidence_rows: list[tuple] = []
        self.next_snapshot = 1
        self.next_measurement = 1
        self.per_night = [[0, 0] for _ in range(nights)]  # scored, failed

    def flush(self, force: bool = False) -> None:
        if not force and len(self.snapshot_rows) < BATCH:
            return
        with self.store.write() as conn:
            conn.executemany(
                "INSERT INTO snapshots (id, swhid, source, deposit_id, label, files, bytes, inventory,"
                " detector_set_id, fetched_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?)",
                self.snapshot_rows,
            )
            conn.executemany(
                "INSERT INTO measurements (id, snapshot_id, metric_id, metric_position, category,"
                " detector_version, value, applicable, level, outcome, reason, fix, counts, truncated,"
                " evidence_count, is_current, scorer_version, measured_at)"
                " VALUES (?, ?, ?, ?, ?, '1.0.0', ?, ?, ?, ?, ?, ?, '{}', 0, ?, 1, ?, ?)",
                self.measurement_rows,
            )
            conn.executemany(
                "INSERT INTO evidence (measurement_id, position, path, line_start, line_end, cell, rule,"
                " reason, snippet) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                self.evidence_rows,
            )
        self.snapshot_rows.clear()
        self.measurement_rows.clear()
        self.evidence_rows.clear()

    def snapshot(self, source: str, deposit_id: int | None, label: str, when: str, *, broken: bool = False) -> int:
        sid = self.next_snapshot
        self.next_snapshot += 1
        rng = self.rng
        self.snapshot_rows.append(
            (sid, swhid(sid), source, deposit_id, label, 10 + sid % 90, 1000 + 7 * sid,
             json.dumps({"files": 10 + sid % 90, "bytes": 1000 + 7 * sid}), when)
        )  # fmt: skip
        quality = rng.random()  # some trees are better overall than others
        with_evidence = self.evidence_every and sid % self.evidence_every == 0
        for position, spec in enumerate(METRICS):
            mid = self.next_measurement
            self.next_measurement += 1
            applicable = rng.random() > 0.1
            if not applicable:
                value: float | None = 100.0
            elif rng.random() < 0.6:
                value = rng.choice(LEVELS) if rng.random() > quality * 0.5 else 100.0
            else:
                value = round(rng.uniform(0.0, 100.0), 3)
            outcome = "measured" if applicable else "not_applicable"
            reason = "" if applicable else "not applicable to this tree"
            if broken and position == 7:
                value, outcome, reason = None, "error", "detector crashed: ValueError"
            fix = f"Improve {spec.title.lower()} ({spec.code})." if value is not None and value < 100 else None
            evidence = []
            if with_evidence and value is not None and value < 100:
                for k in range(1 + (sid + position) % 4):
                    evidence.append(
                        (mid, k, f"src/{spec.category.lower()}/module_{k}.py", 3 + 10 * k, 5 + 10 * k,
                         None, f"{spec.code.lower()}-rule", f"{spec.title}: finding {k} <b>&amp;</b>",
                         f"x = {k}  # snippet of tree {sid}")
                    )  # fmt: skip
            self.measurement_rows.append(
                (mid, sid, spec.metric_id, position, spec.category, value, int(applicable),
                 None if value is None else f"level-{int(value) // 25}", outcome, reason, fix,
                 len(evidence), __version__, when)
            )  # fmt: skip
            self.evidence_rows += evidence
        return sid


def build(
    path: str | Path,
    *,
    zenodo: int = 240,
    swh: int = 50,
    local: int = 10,
    nights: int = 6,
    seed: int = 7,
    evidence_every: int = 1,
    drop_scores_every: int = 3,
    outcomes_every: int = 0,
) -> Built:
    """Build the collection in a new store at ``path`` (see the module docstring)."""
    path = Path(path)
    built = Built(path=path, nights=nights)
    versions = {spec.metric_id: "1.0.0" for spec in METRICS}
    with Store(path) as store:
        conn = store.conn
        with store.write():
            conn.execute("INSERT INTO detector_sets (id, sha256, versions) VALUES (1, ?, ?)",
                         (detector_set_sha256(versions), json.dumps(versions)))  # fmt: skip
            old = {k: "0.9.0" for k in versions}
            conn.execute("INSERT INTO detector_sets (id, sha256, versions) VALUES (2, ?, ?)",
                         (detector_set_sha256(old), json.dumps(old)))  # fmt: skip
        # Rows are written in batches as they are made, deposits last: foreign keys are
        # checked once at the end instead of row by row.
        conn.execute("PRAGMA foreign_keys = OFF")
        b = _Builder(store, seed, nights, evidence_every)
        rng = b.rng
        deposits: list[tuple] = []
        links: list[tuple] = []
        failures: list[tuple] = []
        visits: list[tuple] = []
        zenodo_trees: list[int] = []
        deposit_id = 0
        group = 0
        made = 0
        # --- Zenodo: concept DOIs of 1 to 4 versions.
        while made < zenodo:
            size = min(zenodo - made, rng.choice((1, 1, 1, 2, 2, 3, 4)))
            first_night = rng.randrange(nights)
            communities = sorted(rng.sample(COMMUNITIES, rng.choice((0, 1, 1, 1, 2))))
            concept = f"10.5281/zenodo.{900000 + group}" if group % 9 else None  # some without a concept DOI
            origin = f"https://github.com/org{group % 13}/repo{group}"
            for k in range(size):
                deposit_id += 1
                made += 1
                night = min(nights - 1, first_night + k)
                when = stamp(night, 60 + deposit_id)
                record = str(100000 + deposit_id)
                title = f"Synthetic deposit {deposit_id}"
                if deposit_id % 37 == 0:
                    title = f'<script>alert("{deposit_id}")</script> & "quoted" deposit'
                roll = rng.random()
                status, processed = "scored", when
                snapshot_id = None
                if roll < 0.04:
                    status = "failed"
                    stage, error_class, message = FAILURES[deposit_id % len(FAILURES)]
                    failures.append((deposit_id, None, stage, error_class, message, 1 + deposit_id % 3, when, when))
                    b.per_night[night][1] += 1
                elif roll < 0.06:
                    status, processed = "pending", None
                elif roll < 0.07:
                    status = "withdrawn"
                elif roll < 0.09:
                    status = "failed"
                    snapshot_id = b.snapshot("zenodo", deposit_id, f"{record}.zip", when, broken=True)
                    built.incomplete_snapshots.append(snapshot_id)
                    failures.append((deposit_id, snapshot_id, "score", "IncompleteMeasurements",
                                     "cannot score: 1 sub-metric(s) unusable", 1, when, when))  # fmt: skip
                    b.per_night[night][1] += 1
                else:
                    snapshot_id = b.snapshot("zenodo", deposit_id, f"{record}.zip", when)
                    zenodo_trees.append(snapshot_id)
                    b.per_night[night][0] += 1
                deposits.append(
                    (deposit_id, "zenodo", record, f"10.5281/zenodo.{record}", concept, origin, title,
                     "MIT", "[]", stamp(night)[:10],
                     when, "[]", None, "{}", stamp(night), when, f"oai:zenodo.org:{record}", f"v{k + 1}.0",
                     json.dumps(communities), status, processed, 1 if status == "withdrawn" else 0)
                )  # fmt: skip
                if snapshot_id is not None:
                    links.append((deposit_id, snapshot_id, when))
                b.flush()
            group += 1
        built.zenodo = made
        # --- Software Heritage origins with 1 to 3 visits.
        for j in range(swh):
            deposit_id += 1
            origin = f"https://github.com/swh-org/project-{j}"
            night0 = rng.randrange(nights)
            n_visits = rng.choice((1, 1, 2, 3))
            status = "scored"
            last_when = stamp(night0, 30 + j)
            if j % 17 == 5:
                status = None  # an origin whose latest visit could not be resolved
                failures.append((deposit_id, None, "resolve", "SwhError", "visit has no snapshot", 2, last_when, last_when))
                b.per_night[night0][1] += 1
            else:
                previous = None
                for v in range(n_visits):
                    night = min(nights - 1, night0 + v)
                    when = stamp(night, 30 + j)
                    if v > 0 and rng.random() < 0.3:
                        sid = previous  # the same tree visited again
                    elif j == 1 and v == n_visits - 1 and zenodo_trees:
                        sid = zenodo_trees[0]  # the tree of a Zenodo release
                    else:
                        sid = b.snapshot("swh", deposit_id, origin, when)
                    visits.append((deposit_id, origin, v + 1, "git", when, "full", f"{j:040x}"[:40],
                                   "HEAD", "revision", None, None, None, swhid(sid), "watch", sid, when))  # fmt: skip
                    links.append((deposit_id, sid, when))
                    previous = sid
                    last_when = when
                b.per_night[min(nights - 1, night0 + n_visits - 1)][0] += 1
            deposits.append(
                (deposit_id, "swh", origin, None, None, origin, f"SWH project {j}", None, "[]", None,
                 last_when, "[]", None, "{}", stamp(night0), last_when, None, None, "[]", status,
                 last_when if status else None, 0)
            )  # fmt: skip
            b.flush()
        built.swh = swh
        # --- Local trees.
        for k in range(local):
            when = stamp(k % nights, 3000 + k)
            b.snapshot("local", None, f"/home/curator/trees/local-{k}", when)
        built.local = local
        b.flush(force=True)
        built.snapshots = b.next_snapshot - 1
        with store.write():
            conn.executemany(
                "INSERT INTO deposits (id, source, source_id, version_doi, concept_doi, origin_url, title,"
                " license, creators, publication_date, datestamp, related_urls, swhid, metadata,"
                " first_seen_at, updated_at, oai_identifier, version, communities, status, processed_at,"
                " withdrawn) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                deposits,
            )
            conn.executemany(
                "INSERT OR IGNORE INTO deposit_snapshots (deposit_id, snapshot_id, seen_at) VALUES (?, ?, ?)", links
            )
            conn.executemany(
                "INSERT INTO failures (deposit_id, snapshot_id, stage, error_class, message, attempts, first_at,"
                " last_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                failures,
            )
            conn.executemany(
                "INSERT INTO swh_visits (deposit_id, origin_url, visit, visit_type, date, status, swh_snapshot,"
                " branch, target_type, target, release, revision, directory, discovered_by, snapshot_id,"
                " recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                visits,
            )
            for night in range(nights):
                scored, failed = b.per_night[night]
                conn.execute(
                    "INSERT INTO harvest_runs (id, source, command, status, from_ts, until_ts, windows, records,"
                    " deposits_scored, deposits_failed, started_at, finished_at)"
                    " VALUES (?, 'zenodo,swh', 'run', ?, ?, ?, 4, ?, ?, ?, ?, ?)",
                    (night + 1, "failed" if night == nights - 1 else "completed", stamp(night)[:10] + "T00:00:00Z",
                     stamp(night)[:10] + "T01:00:00Z", scored + failed, scored, failed, stamp(night, 0),
                     stamp(night, 3599 * 4)),
                )  # fmt: skip
        conn.execute("PRAGMA foreign_keys = ON")
        problems = store.integrity_check()
        if problems:
            raise AssertionError(f"synthetic collection is inconsistent: {problems[:5]}")
        store.rescore(load_rubric("default"))
        rubric_id = store.rubric_id(load_rubric("default"))
        with store.write():
            if drop_scores_every:
                conn.execute("DELETE FROM scores WHERE snapshot_id % ? = 0", (drop_scores_every,))
            stale = zenodo_trees[1] if len(zenodo_trees) > 1 else None
            if stale is not None:
                conn.execute(
                    "INSERT INTO scores (snapshot_id, rubric_id, detector_set_id, rrs, rrs_unclamped, e_raw, a_raw,"
                    " d_raw, c_raw, s_raw, e_contribution, a_contribution, d_contribution, c_contribution,"
                    " s_contribution, penalties_fired, scorer_version, computed_at)"
                    " VALUES (?, ?, 2, 99.99, 99.99, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, '[]', '0.0.1', ?)",
                    (stale, rubric_id, stamp(0)),
                )
            built.stale_score_snapshot = stale
        if outcomes_every:
            built.outcomes = _outcomes(store, b.next_snapshot - 1, outcomes_every, seed)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return built


OUTCOME_CLASSES = ("install_dep", "missing_module", "missing_data", "code_error", "timeout")


def _outcomes(store: Store, snapshots: int, every: int, seed: int) -> int:
    """Outcomes for every ``every``-th tree, in bulk; returns how many."""
    rng = random.Random(seed + 1)
    outcomes, probes = [], []
    for sid in range(every, snapshots + 1, every):
        install = rng.random() > 0.2
        run = rng.random() > 0.4
        failure = None if install and run else "install_dep" if not install else rng.choice(OUTCOME_CLASSES[1:])
        values = (100.0 if install else 0.0, 100.0 if run else 0.0,
                  rng.choice((None, round(rng.uniform(0, 100), 2))), rng.choice((None, 0.0, 50.0, 100.0)),
                  round(rng.uniform(0, 100), 2), None)  # fmt: skip
        outcomes.append((len(outcomes) + 1, sid, ("binder", "ci", "reproscore-execute")[sid % 3],
                         "bubblewrap" if sid % 3 == 2 else None, *values, failure,
                         stamp(sid % 28, 600 + sid % 3000), stamp(29), __version__))  # fmt: skip
        probes.append((len(outcomes), "X", values[1], "python run.py", 0 if run else 1, failure if not run else None))
    with store.write() as conn:
        conn.executemany(
            "INSERT INTO outcomes (id, snapshot_id, origin, sandbox, i, x, delta, n, e_prime, t, failure_class,"
            " executed_at, recorded_at, scorer_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            outcomes,
        )
        conn.executemany(
            "INSERT INTO outcome_probes (outcome_id, probe, value, status, command, exit_status, failure_class)"
            " VALUES (?, ?, ?, 'measured', ?, ?, ?)",
            probes,
        )
    store.refresh_outcome_scores()
    return len(outcomes)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="build a synthetic collection store")
    parser.add_argument("db")
    parser.add_argument("--zenodo", type=int, default=240)
    parser.add_argument("--swh", type=int, default=50)
    args = parser.parse_args()
    print(build(args.db, zenodo=args.zenodo, swh=args.swh))
