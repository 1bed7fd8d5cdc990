"""Bundled community rubrics (package data, one ``<name>.yaml`` per rubric).

Load them through :func:`scoring.rubric.load_rubric`; this package only locates them.
"""

from pathlib import Path

RUBRICS_DIR: Path = Path(__file__).resolve().parent
