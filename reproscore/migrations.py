"""The store's schema, as the ordered list of migrations recorded in the database.

Migrations run through sqlite-utils' ``Migrations`` (applied names are recorded in its
``_sqlite_migrations`` table under the set name ``reproscore``). A migration, once
released, is never edited: a schema change is a new function appended at the end.
``docs/store.md`` documents every table and column; keep it in step.
"""

from __future__ import annotations

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

MIGRATION_SET = "reproscore"

migrations = Migrations(MIGRATION_SET)


def _run(db: Database, statements: tuple[str, ...]) -> None:
    # One statement at a time: executescript() would commit the migration's transaction.
    for statement in statements:
        db.execute(statement)


@migrations()
def m001_core_tables(db: Database) -> None:
    _run(
        db,
        (
            """
            CREATE TABLE deposits (
                id INTEGER PRIMARY KEY,
                source TEXT NOT NULL,
                source_id TEXT NOT NULL,
                version_doi TEXT,
                concept_doi TEXT,
                origin_url TEXT,
                title TEXT,
                license TEXT,
                creators TEXT,
                publication_date TEXT,
                datestamp TEXT,
                related_urls TEXT,
                swhid TEXT,
                metadata TEXT,
                first_seen_at TEXT NOT NULL,
                updated_at TEXT NOT NULL,
                UNIQUE (source, source_id)
            )
            """,
            """
            CREATE TABLE detector_sets (
                id INTEGER PRIMARY KEY,
                sha256 TEXT NOT NULL UNIQUE,
                versions TEXT NOT NULL
            )
            """,
            """
            CREATE TABLE snapshots (
                id INTEGER PRIMARY KEY,
                swhid TEXT NOT NULL UNIQUE
                    CHECK (swhid GLOB 'swh:1:dir:[0-9a-f]*' AND length(swhid) = 50),
                source TEXT NOT NULL,
                deposit_id INTEGER REFERENCES deposits(id),
                label TEXT,
                files INTEGER NOT NULL CHECK (files >= 0),
                bytes INTEGER NOT NULL CHECK (bytes >= 0),
                inventory TEXT NOT NULL,
                detector_set_id INTEGER REFERENCES detector_sets(id),
                fetched_at TEXT NOT NULL
            )
            """,
            """
            CREATE TABLE deposit_snapshots (
                deposit_id INTEGER NOT NULL REFERENCES deposits(id),
                snapshot_id INTEGER NOT NULL REFERENCES snapshots(id),
                seen_at TEXT NOT NULL,
                PRIMARY KEY (deposit_id, snapshot_id)
            )
            """,
            """
            CREATE TABLE measurements (
                id INTEGER PRIMARY KEY,
                snapshot_id INTEGER NOT NULL REFERENCES snapshots(id),
                metric_id TEXT NOT NULL,
                metric_position INTEGER NOT NULL CHECK (metric_position BETWEEN 0 AND 25),
                category TEXT NOT NULL,
                detector_version TEXT NOT NULL,
                value REAL CHECK (value IS NULL OR (value >= 0 AND value <= 100)),
                applicable INTEGER NOT NULL CHECK (applicable IN (0, 1)),
                level TEXT,
                outcome TEXT NOT NULL CHECK (outcome IN ('measured', 'not_applicable', 'error')),
                reason TEXT NOT NULL DEFAULT '',
                fix TEXT,
                counts TEXT NOT NULL DEFAULT '{}',
                truncated INTEGER NOT NULL DEFAULT 0 CHECK (truncated IN (0, 1)),
                evidence_count INTEGER NOT NULL DEFAULT 0,
                is_current INTEGER NOT NULL DEFAULT 1 CHECK (is_current IN (0, 1)),
                scorer_version TEXT NOT NULL,
                measured_at TEXT NOT NULL,
                UNIQUE (snapshot_id, metric_id, detector_version),
                CHECK (outcome = 'error' OR value IS NOT NULL)
            )
            """,
            """
            CREATE TABLE evidence (
                id INTEGER PRIMARY KEY,
                measurement_id INTEGER NOT NULL REFERENCES measurements(id),
                position INTEGER NOT NULL,
                path TEXT,
                line_start INTEGER,
                line_end INTEGER,
                cell INTEGER,
                rule TEXT NOT NULL DEFAULT '',
                reason TEXT NOT NULL,
                snippet TEXT,
                UNIQUE (measurement_id, position)
            )
            """,
            """
            CREATE TABLE rubrics (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL,
                version TEXT NOT NULL,
                sha256 TEXT NOT NULL,
                canonical TEXT NOT NULL,
                definition TEXT NOT NULL,
                source_text TEXT NOT NULL,
                source TEXT,
                stored_at TEXT NOT NULL,
                UNIQUE (name, version)
            )
            """,
            """
            CREATE TABLE scores (
                id INTEGER PRIMARY KEY,
                snapshot_id INTEGER NOT NULL REFERENCES snapshots(id),
                rubric_id INTEGER NOT NULL REFERENCES rubrics(id),
                detector_set_id INTEGER NOT NULL REFERENCES detector_sets(id),
                rrs REAL NOT NULL,
                rrs_unclamped REAL NOT NULL,
                e_raw REAL NOT NULL,
                a_raw REAL NOT NULL,
                d_raw REAL NOT NULL,
                c_raw REAL NOT NULL,
                s_raw REAL NOT NULL,
                e_contribution REAL NOT NULL,
                a_contribution REAL NOT NULL,
                d_contribution REAL NOT NULL,
                c_contribution REAL NOT NULL,
                s_contribution REAL NOT NULL,
                penalties_fired TEXT NOT NULL,
                scorer_version TEXT NOT NULL,
                computed_at TEXT NOT NULL,
                UNIQUE (rubric_id, snapshot_id, detector_set_id)
            )
            """,
            """
            CREATE TABLE failures (
                id INTEGER PRIMARY KEY,
                deposit_id INTEGER REFERENCES deposits(id),
                snapshot_id INTEGER REFERENCES snapshots(id),
                stage TEXT NOT NULL,
                error_class TEXT NOT NULL,
                message TEXT NOT NULL,
                attempts INTEGER NOT NULL DEFAULT 1,
                first_at TEXT NOT NULL,
                last_at TEXT NOT NULL,
                CHECK (deposit_id IS NOT NULL OR snapshot_id IS NOT NULL)
            )
            """,
        ),
    )


@migrations()
def m002_query_indexes(db: Database) -> None:
    _run(
        db,
        (
            # At most one current measurement per snapshot and metric: rescoring relies on
            # it to align values with metrics without reading their ids.
            """
            CREATE UNIQUE INDEX measurements_one_current
                ON measurements (snapshot_id, metric_position) WHERE is_current = 1
            """,
            # Rescoring reads every current value in (snapshot, catalog) order from this
            # index alone, without touching the table.
            """
            CREATE INDEX measurements_current
                ON measurements (snapshot_id, metric_position, value) WHERE is_current = 1
            """,
            # Scores are keyed rubric first, so a rescore appends to one end of the key
            # instead of writing all over an index; this one serves lookups by tree.
            "CREATE INDEX scores_by_snapshot ON scores (snapshot_id)",
            "CREATE INDEX rubrics_by_sha256 ON rubrics (sha256)",
            "CREATE INDEX snapshots_by_deposit ON snapshots (deposit_id)",
            "CREATE INDEX snapshots_by_source ON snapshots (source)",
            "CREATE INDEX deposit_snapshots_by_snapshot ON deposit_snapshots (snapshot_id)",
            "CREATE INDEX deposits_by_version_doi ON deposits (version_doi)",
            "CREATE INDEX deposits_by_origin_url ON deposits (origin_url)",
            # One row per subject and stage; NULL would make every row distinct.
            """
            CREATE UNIQUE INDEX failures_by_subject
                ON failures (coalesce(deposit_id, 0), coalesce(snapshot_id, 0), stage)
            """,
        ),
    )


@migrations()
def m003_harvesting(db: Database) -> None:
    """Harvest runs and windows, the per-source checkpoint, and the harvested fields of
    a deposit (its OAI identity, files, withdrawal and processing state)."""
    _run(
        db,
        (
            "ALTER TABLE deposits ADD COLUMN oai_identifier TEXT",
            "ALTER TABLE deposits ADD COLUMN version TEXT",
            "ALTER TABLE deposits ADD COLUMN communities TEXT",
            "ALTER TABLE deposits ADD COLUMN dates TEXT",
            "ALTER TABLE deposits ADD COLUMN github_repo TEXT",
            "ALTER TABLE deposits ADD COLUMN github_tag TEXT",
            "ALTER TABLE deposits ADD COLUMN resource_type_general TEXT",
            "ALTER TABLE deposits ADD COLUMN files TEXT",
            "ALTER TABLE deposits ADD COLUMN swh TEXT",
            "ALTER TABLE deposits ADD COLUMN withdrawn INTEGER NOT NULL DEFAULT 0"
            " CHECK (withdrawn IN (0, 1))",
            "ALTER TABLE deposits ADD COLUMN tombstone TEXT",
            # What the pipeline still has to do for the deposit's current datestamp:
            # NULL for deposits not harvested (stored by other commands).
            "ALTER TABLE deposits ADD COLUMN status TEXT CHECK (status IS NULL OR status IN"
            " ('pending', 'scored', 'failed', 'withdrawn'))",
            "ALTER TABLE deposits ADD COLUMN processed_at TEXT",
            # One row per harvested record: the upsert key of the harvester.
            """
            CREATE UNIQUE INDEX deposits_by_oai_identifier
                ON deposits (source, oai_identifier) WHERE oai_identifier IS NOT NULL
            """,
            "CREATE INDEX deposits_by_status ON deposits (status) WHERE status IS NOT NULL",
            """
            CREATE TABLE harvest_runs (
                id INTEGER PRIMARY KEY,
                source TEXT NOT NULL,
                command TEXT NOT NULL,
                status TEXT NOT NULL
                    CHECK (status IN ('running', 'completed', 'failed', 'interrupted')),
                from_ts TEXT,
                until_ts TEXT,
                windows INTEGER NOT NULL DEFAULT 0,
                records INTEGER NOT NULL DEFAULT 0,
                deposits_scored INTEGER NOT NULL DEFAULT 0,
                deposits_failed INTEGER NOT NULL DEFAULT 0,
                message TEXT,
                started_at TEXT NOT NULL,
                finished_at TEXT
            )
            """,
            """
            CREATE TABLE harvest_windows (
                id INTEGER PRIMARY KEY,
                run_id INTEGER NOT NULL REFERENCES harvest_runs(id),
                source TEXT NOT NULL,
                start TEXT NOT NULL,
                "end" TEXT NOT NULL,
                status TEXT NOT NULL
                    CHECK (status IN ('running', 'completed', 'failed', 'interrupted')),
                attempts INTEGER NOT NULL DEFAULT 1,
                pages INTEGER NOT NULL DEFAULT 0,
                records_seen INTEGER NOT NULL DEFAULT 0,
                records_new INTEGER NOT NULL DEFAULT 0,
                records_updated INTEGER NOT NULL DEFAULT 0,
                error TEXT,
                started_at TEXT NOT NULL,
                finished_at TEXT
            )
            """,
            "CREATE INDEX harvest_windows_by_run ON harvest_windows (run_id)",
            """
            CREATE TABLE checkpoints (
                source TEXT PRIMARY KEY,
                until_ts TEXT NOT NULL,
                window_id INTEGER REFERENCES harvest_windows(id),
                updated_at TEXT NOT NULL
            )
            """,
        ),
    )


@migrations()
def m004_software_heritage(db: Database) -> None:
    """Software Heritage: every visit of every origin seen (the longitudinal history of
    an origin; the deposit row holds only its latest visit), and the git submodules of
    a tree fetched from the archive."""
    _run(
        db,
        (
            # A JSON list of the tree's submodule paths; NULL when the tree did not come
            # from Software Heritage (a downloaded archive cannot say).
            "ALTER TABLE snapshots ADD COLUMN submodules TEXT",
            """
            CREATE TABLE swh_visits (
                id INTEGER PRIMARY KEY,
                deposit_id INTEGER NOT NULL REFERENCES deposits(id),
                origin_url TEXT NOT NULL,
                visit INTEGER NOT NULL,
                visit_type TEXT,
                date TEXT NOT NULL,
                status TEXT NOT NULL,
                swh_snapshot TEXT NOT NULL,
                branch TEXT,
                target_type TEXT,
                target TEXT,
                release TEXT,
                revision TEXT,
                directory TEXT NOT NULL
                    CHECK (directory GLOB 'swh:1:dir:[0-9a-f]*' AND length(directory) = 50),
                discovered_by TEXT NOT NULL,
                snapshot_id INTEGER REFERENCES snapshots(id),
                recorded_at TEXT NOT NULL,
                UNIQUE (origin_url, visit)
            )
            """,
            "CREATE INDEX swh_visits_by_deposit ON swh_visits (deposit_id, date)",
            "CREATE INDEX swh_visits_by_directory ON swh_visits (directory)",
        ),
    )


_COMPONENT_RANGE = "CHECK ({0} IS NULL OR ({0} >= 0 AND {0} <= 100))"
_FAILURE_CLASS = (
    "CHECK ({0} IS NULL OR {0} IN"
    " ('install_dep', 'missing_module', 'missing_data', 'code_error', 'timeout'))"
)


@migrations()
def m005_execution_outcomes(db: Database) -> None:
    """The execution tier: outcome components of a tree (a sandboxed run of `execute`
    or an imported result), each probe's record, and the ROS, alpha and RCS stored with
    every score."""
    components = ",\n".join(
        f"                {column} REAL {_COMPONENT_RANGE.format(column)}"
        for column in ("i", "x", "delta", "n", "e_prime", "t")
    )
    _run(
        db,
        (
            f"""
            CREATE TABLE outcomes (
                id INTEGER PRIMARY KEY,
                snapshot_id INTEGER NOT NULL REFERENCES snapshots(id),
                deposit_id INTEGER REFERENCES deposits(id),
                origin TEXT NOT NULL,
                origin_detail TEXT NOT NULL DEFAULT '{{}}',
                sandbox TEXT CHECK (sandbox IS NULL OR sandbox IN ('bubblewrap', 'none')),
{components},
                failure_class TEXT {_FAILURE_CLASS.format("failure_class")},
                environment TEXT NOT NULL DEFAULT '{{}}',
                executed_at TEXT NOT NULL,
                duration REAL CHECK (duration IS NULL OR duration >= 0),
                recorded_at TEXT NOT NULL,
                scorer_version TEXT NOT NULL
            )
            """,
            "CREATE INDEX outcomes_by_snapshot ON outcomes (snapshot_id, executed_at)",
            f"""
            CREATE TABLE outcome_probes (
                id INTEGER PRIMARY KEY,
                outcome_id INTEGER NOT NULL REFERENCES outcomes(id),
                probe TEXT NOT NULL CHECK (probe IN ('I', 'X', 'delta', 'N', 'E_prime', 'T')),
                value REAL {_COMPONENT_RANGE.format("value")},
                status TEXT NOT NULL CHECK (status IN ('measured', 'not_applicable', 'error')),
                reason TEXT NOT NULL DEFAULT '',
                command TEXT,
                exit_status INTEGER,
                duration REAL,
                log_excerpt TEXT,
                failure_class TEXT {_FAILURE_CLASS.format("failure_class")},
                details TEXT NOT NULL DEFAULT '{{}}',
                UNIQUE (outcome_id, probe)
            )
            """,
            # Every score carries the ROS, alpha and RCS of its tree's current outcome
            # (NULL ROS, alpha 0 and RCS = RRS when the tree has none).
            "ALTER TABLE scores ADD COLUMN outcome_id INTEGER REFERENCES outcomes(id)",
            "ALTER TABLE scores ADD COLUMN ros REAL",
            "ALTER TABLE scores ADD COLUMN ros_coverage REAL",
            "ALTER TABLE scores ADD COLUMN alpha REAL NOT NULL DEFAULT 0",
            "ALTER TABLE scores ADD COLUMN rcs REAL",
            "UPDATE scores SET rcs = rrs",
            # Whoever inserts a score (score --db, run, rescore), RCS is RRS until an
            # outcome says otherwise.
            """
            CREATE TRIGGER scores_rcs_is_rrs AFTER INSERT ON scores WHEN NEW.rcs IS NULL
            BEGIN
                UPDATE scores SET rcs = NEW.rrs WHERE id = NEW.id;
            END
            """,
        ),
    )


_SCORE_COLUMNS = (
    "sc.rrs, sc.rrs_unclamped, sc.e_raw, sc.a_raw, sc.d_raw, sc.c_raw, sc.s_raw, sc.e_contribution,"
    " sc.a_contribution, sc.d_contribution, sc.c_contribution, sc.s_contribution, sc.penalties_fired,"
    " sc.outcome_id, sc.ros, sc.ros_coverage, sc.alpha, sc.rcs, sc.scorer_version, sc.computed_at"
)


@migrations()
def m006_score_views(db: Database) -> None:
    """Views for browsing (Datasette, ad hoc SQL): every tree's current score under each
    rubric, and every deposit's current tree with that score, its title and the rubric
    named. The same resolution as ``reproscore show`` and the report: a tree's current
    score is the one of its current detector set; a deposit's current tree is the one
    most recently linked to it."""
    _run(
        db,
        (
            f"""
            CREATE VIEW snapshot_scores AS
            SELECT sc.id AS score_id, s.id AS snapshot_id, s.swhid, s.source, s.label,
                   r.name AS rubric, r.version AS rubric_version, r.sha256 AS rubric_sha256, {_SCORE_COLUMNS}
            FROM snapshots s
            JOIN scores sc ON sc.snapshot_id = s.id AND sc.detector_set_id = s.detector_set_id
            JOIN rubrics r ON r.id = sc.rubric_id
            """,
            """
            CREATE VIEW deposit_scores AS
            SELECT d.id AS deposit_id, d.source, d.source_id, d.title, d.version, d.version_doi,
                   d.concept_doi, d.origin_url, d.communities, d.status, d.processed_at,
                   ss.snapshot_id, ss.swhid, ss.rubric, ss.rubric_version, ss.rubric_sha256, ss.score_id,
                   ss.rrs, ss.rrs_unclamped, ss.e_raw, ss.a_raw, ss.d_raw, ss.c_raw, ss.s_raw,
                   ss.e_contribution, ss.a_contribution, ss.d_contribution, ss.c_contribution,
                   ss.s_contribution, ss.penalties_fired, ss.outcome_id, ss.ros, ss.ros_coverage,
                   ss.alpha, ss.rcs, ss.scorer_version, ss.computed_at
            FROM deposits d
            JOIN snapshot_scores ss ON ss.snapshot_id = (
                SELECT ds.snapshot_id FROM deposit_snapshots ds WHERE ds.deposit_id = d.id
                ORDER BY ds.seen_at DESC, ds.rowid DESC LIMIT 1)
            """,
        ),
    )


@migrations()
def m007_declared_metadata(db: Database) -> None:
    """What each tree declares about itself (name, title, version, licence, authors and
    the file each came from; ``scoring.declared``), as JSON. Trees stored before this
    migration have NULL until they are measured again."""
    _run(
        db,
        (
            "ALTER TABLE snapshots ADD COLUMN declared TEXT"
            " CHECK (declared IS NULL OR json_valid(declared))",
        ),
    )


@migrations()
def m008_file_facts(db: Database) -> None:
    """The facts cache (``scoring.facts_cache``): the facts a language frontend read from
    one file content, keyed by the content's git blob id, the frontend, the file's path
    class (the suffix of its name: ``.R`` and ``.Rmd`` give other facts for the same
    bytes) and the frontend's version. Only a cache: a missing or undecodable row is
    computed again from the file."""
    _run(
        db,
        (
            """
            CREATE TABLE file_facts (
                blob_id TEXT NOT NULL
                    CHECK (length(blob_id) = 40 AND blob_id NOT GLOB '*[^0-9a-f]*'),
                frontend TEXT NOT NULL,
                path_class TEXT NOT NULL,
                frontend_version TEXT NOT NULL,
                facts TEXT NOT NULL CHECK (json_valid(facts)),
                created_at TEXT NOT NULL,
                PRIMARY KEY (blob_id, frontend, path_class, frontend_version)
            ) WITHOUT ROWID
            """,
        ),
    )


@migrations()
def m009_file_facts_compressed(db: Database) -> None:
    """``file_facts.facts`` becomes zlib-compressed JSON (a BLOB), about a fifth of the
    text it was: facts JSON repeats its field names on every fact, and a collection's
    facts would otherwise outgrow the rest of the database. The table is a cache, so the
    rows of m008 are dropped rather than converted (SQLite has no zlib); they are
    computed again when their files are next measured."""
    _run(
        db,
        (
            "DROP TABLE file_facts",
            """
            CREATE TABLE file_facts (
                blob_id TEXT NOT NULL
                    CHECK (length(blob_id) = 40 AND blob_id NOT GLOB '*[^0-9a-f]*'),
                frontend TEXT NOT NULL,
                path_class TEXT NOT NULL,
                frontend_version TEXT NOT NULL,
                facts BLOB NOT NULL CHECK (typeof(facts) = 'blob'),
                created_at TEXT NOT NULL,
                PRIMARY KEY (blob_id, frontend, path_class, frontend_version)
            ) WITHOUT ROWID
            """,
        ),
    )

def migration_names() -> tuple[str, ...]:
    """Every migration this version knows, in order."""
    return tuple(m.name for m in migrations.pending(Database(memory=True)))
