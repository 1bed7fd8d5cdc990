"""The fixed vocabulary of the readiness model: categories and sub-metric ids.

Ids, categories, order and the default within-category weights are part of the
compatibility contract with the ReproScore paper's published data (METRICS.md §0, §4):
they never change. Short codes (``E1`` … ``S7``) are stable aliases, as in rule
registries: a code is never reused for another metric.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Category:
    key: str
    name: str
    question: str


@dataclass(frozen=True)
class MetricSpec:
    metric_id: str
    code: str
    category: str
    default_weight: float
    title: str


CATEGORIES: tuple[Category, ...] = (
    Category("E", "Environment specification", "Can the computational environment be reconstructed?"),
    Category("A", "Data accessibility", "Can the required data be obtained and used?"),
    Category("D", "Documentation", "Can a third party understand how to execute this?"),
    Category("C", "Code portability", "Will the code run on a machine other than the author's?"),
    Category("S", "Reproducibility signals", "Will repeated executions produce the same verifiable result?"),
)
CATEGORY_KEYS: tuple[str, ...] = tuple(c.key for c in CATEGORIES)

METRICS: tuple[MetricSpec, ...] = (
    MetricSpec("dep_pinning", "E1", "E", 0.25, "Dependency pinning"),
    MetricSpec("container_spec", "E2", "E", 0.30, "Container specification"),
    MetricSpec("env_bootstrap", "E3", "E", 0.25, "Environment bootstrap"),
    MetricSpec("python_version_declared", "E4", "E", 0.20, "Runtime version declared"),
    MetricSpec("data_description", "A1", "A", 0.20, "Data description"),
    MetricSpec("data_pointer", "A2", "A", 0.30, "Data pointer"),
    MetricSpec("workflow_orchestration", "A3", "A", 0.20, "Workflow orchestration"),
    MetricSpec("data_acquisition_script", "A4", "A", 0.30, "Data acquisition script"),
    MetricSpec("doc_structure", "D1", "D", 0.25, "Documentation structure"),
    MetricSpec("install_instructions", "D2", "D", 0.20, "Install instructions"),
    MetricSpec("usage_examples", "D3", "D", 0.20, "Usage examples"),
    MetricSpec("inline_explanation_density", "D4", "D", 0.15, "Inline explanation density"),
    MetricSpec("execution_entry_point", "D5", "D", 0.10, "Execution entry point"),
    MetricSpec("docstring_coverage", "D6", "D", 0.05, "Docstring coverage"),
    MetricSpec("reuse_metadata", "D7", "D", 0.05, "Reuse metadata"),
    MetricSpec("no_absolute_paths", "C1", "C", 0.40, "No absolute paths"),
    MetricSpec("import_resolvability", "C2", "C", 0.35, "Import resolvability"),
    MetricSpec("no_hardcoded_credentials", "C3", "C", 0.15, "No hard-coded credentials"),
    MetricSpec("silent_failure_masking", "C4", "C", 0.10, "No silent failure masking"),
    MetricSpec("seed_management", "S1", "S", 0.30, "Seed management"),
    MetricSpec("notebook_exec_order", "S2", "S", 0.20, "Notebook execution order"),
    MetricSpec("test_file_presence", "S3", "S", 0.18, "Test file presence"),
    MetricSpec("expected_outputs", "S4", "S", 0.12, "Expected outputs"),
    MetricSpec("ci_presence", "S5", "S", 0.10, "CI presence"),
    MetricSpec("config_externalised", "S6", "S", 0.06, "Configuration externalised"),
    MetricSpec("hardware_requirements", "S7", "S", 0.04, "Hardware requirements"),
)

METRIC_IDS: tuple[str, ...] = tuple(m.metric_id for m in METRICS)
METRICS_BY_ID: dict[str, MetricSpec] = {m.metric_id: m for m in METRICS}
METRICS_BY_CODE: dict[str, MetricSpec] = {m.code: m for m in METRICS}


def metrics_of(category: str) -> tuple[MetricSpec, ...]:
    """The sub-metrics of one category, in the contract order (§3)."""
    return tuple(m for m in METRICS if m.category == category)


def resolve_metric(name: str) -> MetricSpec:
    """Look a metric up by id (``dep_pinning``) or code (``E1``, case-insensitive)."""
    if name in METRICS_BY_ID:
        return METRICS_BY_ID[name]
    spec = METRICS_BY_CODE.get(name.upper())
    if spec is None:
        raise KeyError(name)
    return spec
