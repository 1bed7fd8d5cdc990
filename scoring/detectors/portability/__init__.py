"""Category C, code portability (METRICS.md C1–C4).

Will the code run on a machine other than the author's? Four detectors read the code of
a deposit: machine-specific absolute paths (C1), imports that no manifest declares (C2),
hard-coded credentials (C3) and exception handlers that swallow every error (C4).

The scanned source set is that of METRICS.md §0.1.9: Python files, notebook code cells
(never stored outputs), R (``.R``/``.r``/``.Rmd``/``.qmd``), Julia and shell files; C1
and C3 add parameter files (YAML/JSON/TOML/INI in a configuration role) and ``.env*``
files. C1 aggregates facts: the string literals of the Python, R and Julia frontends
(Python docstrings excluded), notebook magics and shell cells (``NotebookCellFact``), and
the literal texts of shell, parameter and ``.env`` files read line by line
(``TreeIndex.line_file``). C3 reads the credentials of those line-oriented files the
same way (``CredentialFact``, decided in ``scoring.parsers.secrets`` before anything is
redacted) and still scans Python (its AST), R and Julia (a small tokenizer,
``_common._lex``) code itself. A file that does not parse stays in the denominator and
is scanned with a token or regular-expression fallback.

All four metrics are continuous (``level=None``). The list of scanned files is built once
per tree (``_common._files``) and shared by C1 and C3.
"""

from scoring.detectors.portability import (
    import_resolvability,
    no_absolute_paths,
    no_hardcoded_credentials,
    silent_failure_masking,
)

__all__ = [
    "no_absolute_paths",
    "import_resolvability",
    "no_hardcoded_credentials",
    "silent_failure_masking",
]
