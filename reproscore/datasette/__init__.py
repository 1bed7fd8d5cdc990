"""The store in Datasette: the bundled ``metadata.json`` and the command that opens it.

``metadata.json`` is generated (``python -m reproscore.docgen``) from ``docs/store.md``,
the one description of the schema: each table's and view's description and its columns'
meanings; label columns, so that a foreign key shows the SWHID of a tree, the title of a
deposit or the name of a rubric instead of a row id; and canned queries for the
questions the collection report answers. Datasette (0.x) keys that metadata by the
database's name, the file name without its extension: the bundled file names the
default store, ``reproscore`` (``reproscore.db``); ``reproscore db datasette`` writes a
copy under another file's name when needed (:func:`metadata_for`).
"""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path
from typing import Any

__all__ = [
    "BUNDLED_NAME",
    "LABEL_COLUMNS",
    "METADATA_PATH",
    "QUERIES",
    "build_metadata",
    "database_name",
    "datasette_command",
    "metadata_for",
    "store_doc_tables",
]

BUNDLED_NAME = "reproscore"
METADATA_PATH = Path(__file__).with_name("metadata.json")

# What a foreign key to each table shows in Datasette: the row's identity for a reader.
LABEL_COLUMNS = {
    "deposits": "title",
    "snapshots": "swhid",
    "rubrics": "name",
    "detector_sets": "sha256",
    "measurements": "metric_id",
    "outcomes": "origin",
    "harvest_runs": "started_at",
    "harvest_windows": "start",
}

# A rubric parameter left empty means the default rubric, as `reproscore report` does.
_RUBRIC = "coalesce(nullif(:rubric, ''), 'default')"

# The questions of the collection report (docs/report.md), as SQL over the store and
# its views. Each returns rows on the demo database (a test checks it).
QUERIES: dict[str, dict[str, str]] = {
    "coverage": {
        "title": "Collection size and coverage",
        "description": "Harvested deposits per source and status (NULL: seen, never processed), and the trees "
                       "scored from a local path that no deposit holds.",
        "sql": """select source, coalesce(status, '(none)') as status, count(*) as deposits
from deposits group by source, status
union all
select 'local (not harvested)', 'scored from a path', count(*) from snapshots s
where s.source = 'local' and not exists (select 1 from deposit_snapshots ds where ds.snapshot_id = s.id)
order by source, status""",
    },
    "rrs_distribution": {
        "title": "RRS distribution",
        "description": "Deposits per RRS band of 10 points under a rubric (empty: default); the last band "
                       "includes 100, as in the report.",
        "sql": f"""select min(cast(rrs / 10 as integer), 9) * 10 as band_from, count(*) as deposits,
round(avg(rrs), 2) as mean_rrs
from deposit_scores where rubric = {_RUBRIC}
group by band_from order by band_from""",
    },
    "category_profile": {
        "title": "Five-category profile",
        "description": "Mean raw score (0-100) and mean points contributed per category over the deposits' "
                       "current scores under a rubric (empty: default).",
        "sql": f"""select count(*) as deposits, round(avg(rrs), 2) as mean_rrs,
round(avg(e_raw), 2) as mean_e, round(avg(a_raw), 2) as mean_a, round(avg(d_raw), 2) as mean_d,
round(avg(c_raw), 2) as mean_c, round(avg(s_raw), 2) as mean_s,
round(avg(e_contribution), 2) as points_e, round(avg(a_contribution), 2) as points_a,
round(avg(d_contribution), 2) as points_d, round(avg(c_contribution), 2) as points_c,
round(avg(s_contribution), 2) as points_s
from deposit_scores where rubric = {_RUBRIC}""",
    },
    "by_source": {
        "title": "By source",
        "description": "Deposits scored, mean RRS and mean raw score per category, per source, under a rubric "
                       "(empty: default).",
        "sql": f"""select source, count(*) as deposits, round(avg(rrs), 2) as mean_rrs,
round(avg(e_raw), 2) as mean_e, round(avg(a_raw), 2) as mean_a, round(avg(d_raw), 2) as mean_d,
round(avg(c_raw), 2) as mean_c, round(avg(s_raw), 2) as mean_s
from deposit_scores where rubric = {_RUBRIC} group by source order by source""",
    },
    "submetrics_falling_short": {
        "title": "Sub-metrics most often failed",
        "description": "For each sub-metric, over the current measurements of scored trees: where it applies, "
                       "how often it falls short (value below 50) and how often it scores 0.",
        "sql": """select m.metric_id, m.category, sum(m.applicable) as applies,
sum(m.applicable and m.value < 50) as falls_short,
round(100.0 * sum(m.applicable and m.value < 50) / nullif(sum(m.applicable), 0), 1) as falls_short_pct,
sum(m.applicable and m.value = 0) as at_zero
from measurements m
where m.is_current and m.snapshot_id in (select snapshot_id from snapshot_scores)
group by m.metric_id, m.category order by falls_short_pct desc, m.metric_position""",
    },
    "need_work": {
        "title": "Deposits most in need of work",
        "description": "The 25 lowest RRS under a rubric (empty: default), with their tree and the sub-metrics "
                       "that fall short on it (value below 50 where it applies) and their fixes.",
        "sql": f"""select ds.deposit_id, ds.source, ds.source_id, ds.title, ds.swhid, ds.rrs,
(select group_concat(m.metric_id || ': ' || coalesce(m.fix, ''), ' | ') from measurements m
 where m.snapshot_id = ds.snapshot_id and m.is_current and m.applicable and m.value < 50) as falling_short
from deposit_scores ds where ds.rubric = {_RUBRIC}
order by ds.rrs, ds.rrs_unclamped, ds.deposit_id limit 25""",
    },
    "nights": {
        "title": "Trends: per night",
        "description": "Per UTC date the deposits were processed: how many, scored, failed, withdrawn, and the "
                       "mean RRS of those scored, under a rubric (empty: default).",
        "sql": f"""select substr(d.processed_at, 1, 10) as night, count(*) as deposits,
sum(d.status = 'scored') as scored, sum(d.status = 'failed') as failed,
sum(d.status = 'withdrawn') as withdrawn,
round((select avg(ds.rrs) from deposit_scores ds where ds.rubric = {_RUBRIC}
       and substr(ds.processed_at, 1, 10) = substr(d.processed_at, 1, 10)), 2) as mean_rrs
from deposits d where d.processed_at is not null
group by night order by night""",
    },
    "versions": {
        "title": "Readiness across versions",
        "description": "Concept DOIs with two or more scored versions under a rubric (empty: default): first and "
                       "last version by publication date, and the change of RRS.",
        "sql": f"""with v as (
  select d.concept_doi, d.version, d.publication_date, ds.rrs,
         row_number() over (partition by d.concept_doi order by d.publication_date, d.version, d.id) as n,
         count(*) over (partition by d.concept_doi) as versions
  from deposits d join deposit_scores ds on ds.deposit_id = d.id
  where d.concept_doi is not null and ds.rubric = {_RUBRIC})
select f.concept_doi, f.versions, f.version as first_version, f.rrs as first_rrs,
       l.version as last_version, l.rrs as last_rrs, round(l.rrs - f.rrs, 2) as change
from v f join v l on l.concept_doi = f.concept_doi and l.n = l.versions
where f.n = 1 and f.versions >= 2 order by abs(l.rrs - f.rrs) desc, f.concept_doi""",
    },
    "outcome_gap": {
        "title": "The readiness-outcome gap",
        "description": "Deposits whose tree has an execution outcome: RRS, ROS, alpha and RCS under a rubric "
                       "(empty: default), gap RRS - ROS (positive: readier than it ran), largest gap first.",
        "sql": f"""select ds.deposit_id, ds.source, ds.title, ds.swhid, ds.rrs, ds.ros, ds.alpha, ds.rcs,
round(ds.rrs - ds.ros, 2) as gap, o.failure_class, o.origin
from deposit_scores ds join outcomes o on o.id = ds.outcome_id
where ds.rubric = {_RUBRIC} and ds.ros is not null
order by abs(ds.rrs - ds.ros) desc, ds.deposit_id""",
    },
    "not_scored": {
        "title": "Deposits not scored, and why",
        "description": "Deposits that are not scored (failed, withdrawn, pending or never processed) with the "
                       "stage and message of each recorded failure, or the withdrawal.",
        "sql": """select d.id as deposit_id, d.source, d.source_id, d.title, coalesce(d.status, '(none)') as status,
coalesce(f.stage, case when d.withdrawn then 'withdrawn' end) as stage, f.error_class,
coalesce(f.message, json_extract(d.tombstone, '$.removal_reason.title.en'), json_extract(d.tombstone, '$.note')) as message, f.attempts
from deposits d left join failures f on f.deposit_id = d.id
where d.status is not 'scored' order by d.source, d.source_id, f.stage""",
    },
}


def _plain(text: str) -> str:
    """Markdown inline text as plain text: code spans and links unwrapped."""
    text = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", text)
    return re.sub(r"`([^`]*)`", r"\1", text).strip()


def store_doc_tables(text: str) -> dict[str, tuple[str, dict[str, str]]]:
    """Every ``### `name``` section of ``docs/store.md``: (description, {column: meaning})."""
    out: dict[str, tuple[str, dict[str, str]]] = {}
    sections = re.split(r"^### `([^`]+)`[^\n]*\n", text, flags=re.M)
    for name, body in zip(sections[1::2], sections[2::2], strict=True):
        body = re.split(r"^#{1,3} ", body, maxsplit=1, flags=re.M)[0]
        paragraphs, columns = [], {}
        for block in re.split(r"\n\s*\n", body.strip()):
            lines = block.strip().splitlines()
            if lines and lines[0].startswith("|"):
                for line in lines:
                    cells = [c.strip() for c in line.strip().strip("|").split("|")]
                    match = re.fullmatch(r"`([^`]+)`", cells[0]) if len(cells) >= 2 else None
                    if match:
                        columns[match.group(1)] = _plain("|".join(cells[1:]))
            elif lines:
                paragraphs.append(_plain(" ".join(line.strip() for line in lines)))
        out[name] = (" ".join(paragraphs), columns)
    return out


def build_metadata(store_doc: str, database: str = BUNDLED_NAME) -> dict[str, Any]:
    """Datasette metadata for a store named ``database``, from ``docs/store.md``."""
    tables: dict[str, Any] = {}
    for name, (description, columns) in store_doc_tables(store_doc).items():
        entry: dict[str, Any] = {"description": description, "columns": columns}
        if name in LABEL_COLUMNS:
            entry["label_column"] = LABEL_COLUMNS[name]
        tables[name] = entry
    return {
        "title": "reproscore store",
        "description": "Measurements, scores and their provenance (reproscore). Foreign keys show SWHIDs, "
                       "titles and rubric names; the canned queries answer the questions of the collection "
                       "report. Every table is described in docs/store.md.",
        "databases": {database: {"tables": tables, "queries": QUERIES}},
    }


def metadata_json(store_doc: str) -> str:
    """The text of the bundled ``metadata.json``."""
    return json.dumps(build_metadata(store_doc), indent=2, ensure_ascii=False) + "\n"


def metadata_for(database: str) -> dict[str, Any]:
    """The bundled metadata, keyed by the database name ``database``."""
    bundled = json.loads(METADATA_PATH.read_text(encoding="utf-8"))
    bundled["databases"] = {database: bundled["databases"][BUNDLED_NAME]}
    return bundled


def database_name(path: str | os.PathLike[str]) -> str:
    """The name Datasette gives a database file: its name without the extension."""
    return Path(path).stem


def datasette_command(db: str | os.PathLike[str], metadata_out: str | os.PathLike[str] | None = None
                      ) -> tuple[str, Path | None]:
    """The command that opens ``db`` in Datasette with the metadata, and the metadata
    file written for it (None: the bundled one serves, as the database is named
    ``reproscore``). A copy is written to ``metadata_out`` (default: beside ``db``,
    ``<name>.datasette.json``) when ``metadata_out`` is given or the name differs."""
    name = database_name(db)
    written = None
    if metadata_out is None and name == BUNDLED_NAME:
        metadata = METADATA_PATH
    else:
        metadata = Path(metadata_out) if metadata_out is not None else Path(db).with_name(f"{name}.datasette.json")
        text = json.dumps(metadata_for(name), indent=2, ensure_ascii=False) + "\n"
        metadata.write_text(text, encoding="utf-8")
        written = metadata
    return f"datasette {shlex.quote(str(db))} --metadata {shlex.quote(str(metadata))}", written
