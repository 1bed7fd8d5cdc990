"""The scorer's own reference tables (``scoring/data/``): the standard-library module
list, the import-to-distribution map, the stochastic-call table. Read once per process
from the installed package; never a deposit's file."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any


@cache
def table_text(name: str) -> str:
    """The text of ``scoring/data/<name>``."""
    return resources.files("scoring").joinpath(f"data/{name}").read_text(encoding="utf-8")


@cache
def table_json(name: str) -> Any:
    """The parsed JSON of ``scoring/data/<name>`` (shared: callers must not mutate it)."""
    return json.loads(table_text(name))
