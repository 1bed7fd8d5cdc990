"""The provenance store: one SQLite file holding deposits, snapshots, measurements with
their evidence, rubrics and scores, so that every score can be audited and recomputed.

* **Identity.** A snapshot is one source tree, identified by the SWHID of its root
  directory (:mod:`scoring.trees.swhid`); the same tree reached twice is one row and is
  measured once. Measurements are keyed by (snapshot, metric, detector version); the
  ones used for scoring are flagged ``is_current``.
* **Provenance.** A score row names its snapshot, its rubric (name, version, sha256,
  canonical text stored in ``rubrics``), the detector versions behind it
  (``detector_sets``), the scorer version and when it was computed.
* **Robustness.** WAL mode, foreign keys on, a busy timeout, and short ``BEGIN
  IMMEDIATE`` transactions: a snapshot with all its measurements, evidence and score
  is written in one transaction, so a killed process leaves nothing half-written and
  two writers queue instead of failing. Every write is idempotent (insert-or-ignore on
  natural keys; updates only when something changed), so a re-run changes nothing.
* **Schema.** Created and upgraded by the migrations of :mod:`reproscore.migrations`,
  recorded in the database; a database written by a newer reproscore is refused.

``docs/store.md`` documents every table and column.

The package splits the one ``Store`` class by table family (``_base``: connection, schema,
statistics; ``deposits``; ``snapshots``; ``facts`` (the file facts cache); ``rubrics_scores``;
``outcomes``; ``lookups``), and composes them here behind the same facade.
"""

from __future__ import annotations

from ..migrations import MIGRATION_SET
from ._base import (
    BUSY_TIMEOUT_SECONDS,
    DEFAULT_DB,
    DEPOSIT_FIELDS,
    ENV_DB,
    HARVEST_FIELDS,
    RESCORE_BATCH,
    TABLES,
    NotFound,
    RescoreReport,
    RubricConflict,
    SchemaTooNew,
    SnapshotRecord,
    StoreBase,
    StoredScore,
    StoreError,
    WindowCounts,
    check_location,
    detector_set_sha256,
    utc_now,
)
from .deposits import DepositsMixin
from .facts import FactsMixin, FactsReader, StoreFactsCache
from .lookups import LookupsMixin
from .outcomes import OutcomesMixin
from .rubrics_scores import RubricsScoresMixin
from .snapshots import SnapshotsMixin

__all__ = [
    "BUSY_TIMEOUT_SECONDS",
    "DEFAULT_DB",
    "DEPOSIT_FIELDS",
    "ENV_DB",
    "FactsReader",
    "MIGRATION_SET",
    "RESCORE_BATCH",
    "TABLES",
    "HARVEST_FIELDS",
    "NotFound",
    "WindowCounts",
    "RescoreReport",
    "RubricConflict",
    "SchemaTooNew",
    "SnapshotRecord",
    "Store",
    "StoreError",
    "StoreFactsCache",
    "check_location",
    "StoredScore",
    "detector_set_sha256",
    "utc_now",
]


class Store(
    DepositsMixin, SnapshotsMixin, FactsMixin, RubricsScoresMixin, OutcomesMixin, LookupsMixin, StoreBase
):
    """One open store database. Use as a context manager, or call :meth:`close`.

    ``create=False`` refuses a path where no database exists yet (commands that only
    read must not leave an empty file behind a typo).
    """
