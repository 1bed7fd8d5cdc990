"""Detectors, one package per category and one module per sub-metric (ruff-style rule registry).

``scoring/detectors/<category>/<metric_id>.py`` holds the ``@detector`` function of one
sub-metric with the helpers only it uses; ``<category>/_common.py`` holds what several
detectors of the category share. The categories: ``environment`` (E), ``data`` (A),
``documentation`` (D), ``portability`` (C) and ``signals`` (S). Importing a category
package registers its detectors.
"""

from importlib import import_module

CATEGORY_MODULES = {
    "E": "scoring.detectors.environment",
    "A": "scoring.detectors.data",
    "D": "scoring.detectors.documentation",
    "C": "scoring.detectors.portability",
    "S": "scoring.detectors.signals",
}


def load_all() -> None:
    for module in CATEGORY_MODULES.values():
        import_module(module)
