"""The scorer's own reference tables (``scoring/data/``): the standard-library module
list, the import-to-distribution maps, the packages R and Julia ship, the stochastic-call
table. Read once per process
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


def table_lines(name: str) -> list[str]:
    """The lines of ``scoring/data/<name>`` that are neither blank nor ``#`` comments."""
    return [line.strip() for line in table_text(name).splitlines() if line.strip() and not line.startswith("#")]


@cache
def r_shipped_packages(kind: str | None = None) -> frozenset[str]:
    """The packages every R installation ships (``r_shipped_packages.txt``, R 4.4): the
    ``base`` ones, the ``recommended`` ones, or both (None)."""
    pairs = [line.split() for line in table_lines("r_shipped_packages.txt")]
    return frozenset(name for which, name in pairs if kind is None or which == kind)


@cache
def julia_stdlib() -> frozenset[str]:
    """Julia's built-in modules and standard library (``julia_stdlib.txt``, Julia 1.11)."""
    return frozenset(table_lines("julia_stdlib.txt"))
