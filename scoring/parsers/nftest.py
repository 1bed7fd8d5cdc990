"""nf-test files (``*.nf.test``): the tests they declare and where they assert (S3).

An nf-test file is Groovy: ``nextflow_pipeline``/``nextflow_workflow``/``nextflow_process``
blocks holding ``test("name") { when { … } then { … } }`` cases. The file is read line by
line: ``//`` comment lines, ``/* … */`` blocks and triple-quoted strings (the Nextflow
code a ``when`` block passes in) are skipped; a test is a ``test("…")`` line, an assertion
an ``assert``/``assertAll(`` statement or a snapshot ``.match(`` in the rest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["NfTestFile", "parse_nf_test"]

_TEST_RE = re.compile(r"""^\s*test\s*\(\s*["']""")
_ASSERT_RE = re.compile(r"(?<![\w.])(?:assert(?:All)?\b|assertAll\s*\()|\.match\s*\(")


@dataclass(frozen=True)
class NfTestFile:
    """The ``test("…")`` lines of an nf-test file and its assertion lines (1-based)."""

    tests: tuple[int, ...] = ()
    assertions: tuple[int, ...] = ()


def parse_nf_test(text: str) -> NfTestFile:
    tests: list[int] = []
    assertions: list[int] = []
    in_block = in_triple = False
    for number, line in enumerate(text.splitlines(), start=1):
        code = line
        if in_triple:
            if '"""' not in code and "'''" not in code:
                continue
            code = re.split(r'"""|\'\'\'', code, maxsplit=1)[1]
            in_triple = False
        if in_block:
            if "*/" not in code:
                continue
            code = code.split("*/", 1)[1]
            in_block = False
        if code.lstrip().startswith("//"):
            continue
        if code.count('"""') % 2 == 1 or code.count("'''") % 2 == 1:
            code = re.split(r'"""|\'\'\'', code, maxsplit=1)[0]
            in_triple = True
        if "/*" in code and "*/" not in code.split("/*", 1)[1]:
            code = code.split("/*", 1)[0]
            in_block = True
        if _TEST_RE.match(code):
            tests.append(number)
        if _ASSERT_RE.search(code):
            assertions.append(number)
    return NfTestFile(tuple(tests), tuple(assertions))
