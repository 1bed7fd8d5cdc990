"""reproscore: the application that composes the harvester, the scorer and the exporters
(command line, store, pipeline). The scorer itself lives in the ``scoring`` package."""

from scoring import __version__

__all__ = ["__version__"]
