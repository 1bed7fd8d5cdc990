"""Detectors, one module per category (ruff-style rule registry).

``environment`` (E), ``data`` (A), ``documentation`` (D), ``portability`` (C) and
``signals`` (S). Importing a module registers its detectors.
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
