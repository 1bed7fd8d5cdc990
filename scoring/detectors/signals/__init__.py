"""Category S, reproducibility signals (METRICS.md S1–S7).

Will repeated executions produce the same verifiable result? Seven detectors look for
the habits that make a rerun comparable with the published one: random number generators
seeded (S1), notebooks executed top to bottom (S2), automated tests (S3), committed
reference outputs (S4), continuous integration (S5), parameters kept outside the code
(S6), and stated hardware requirements when the code can use a GPU (S7).

Source code is read through the tree index's cached views (``python_units``,
``notebook``, ``text``, ``manifests``); conventional files are found by cheap name tests
before anything is read, and Python syntax trees are walked only where a cheap text test
says a relevant name occurs.
"""

from scoring.detectors.signals import (
    ci_presence,
    config_externalised,
    expected_outputs,
    hardware_requirements,
    notebook_exec_order,
    seed_management,
    test_file_presence,
)

__all__ = [
    "seed_management",
    "notebook_exec_order",
    "test_file_presence",
    "expected_outputs",
    "ci_presence",
    "config_externalised",
    "hardware_requirements",
]
