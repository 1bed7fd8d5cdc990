"""Static reproducibility-readiness scoring: a pure function of a source tree and a rubric.

    from scoring import measure, score, load_rubric
    result = score(measure("path/to/tree"), load_rubric("default")).to_dict()

``measure`` is rubric-independent (run once per tree and detector version); ``score`` is
pure arithmetic over stored measurements. This package never imports the harvester or
the store.
"""

__version__ = "0.1.0"

_LAZY = {
    "measure": ("scoring.measurement", "measure"),
    "measure_many": ("scoring.measurement", "measure_many"),
    "score": ("scoring.aggregate", "score"),
    "load_rubric": ("scoring.rubric", "load_rubric"),
    "TreeIndex": ("scoring.tree", "TreeIndex"),
    "Limits": ("scoring.tree", "Limits"),
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str):
    # Lazy, so importing scoring.catalog or a parser does not pull in the whole scorer.
    if name in _LAZY:
        from importlib import import_module

        module, attr = _LAZY[name]
        return getattr(import_module(module), attr)
    raise AttributeError(f"module 'scoring' has no attribute {name!r}")
