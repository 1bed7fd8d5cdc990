"""pFUnit test files (``*.pf``): the tests they declare and where they assert (S3).

A ``.pf`` file is Fortran that pFUnit's preprocessor turns into a test suite: a procedure
preceded by an ``@test`` (``@mpitest``, ``@test(npes=[1,2])``) annotation is a test, and
``@assertEqual(…)``, ``@assertTrue(…)`` and the other ``@assert*`` macros are its
assertions. No Fortran frontend reads the annotations, so the file is read line by
line; ``!`` comment lines are skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["PfUnitFile", "parse_pfunit"]

_TEST_RE = re.compile(r"^\s*@(?:test|mpitest)(?![\w])", re.IGNORECASE)
_ASSERT_RE = re.compile(r"^\s*@assert\w*\s*\(", re.IGNORECASE)


@dataclass(frozen=True)
class PfUnitFile:
    """The ``@test`` annotation lines of a pFUnit file and its ``@assert*`` lines (1-based)."""

    tests: tuple[int, ...] = ()
    assertions: tuple[int, ...] = ()


def parse_pfunit(text: str) -> PfUnitFile:
    tests: list[int] = []
    assertions: list[int] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if "@" not in line or line.lstrip().startswith("!"):
            continue
        if _TEST_RE.match(line):
            tests.append(number)
        elif _ASSERT_RE.match(line):
            assertions.append(number)
    return PfUnitFile(tuple(tests), tuple(assertions))
