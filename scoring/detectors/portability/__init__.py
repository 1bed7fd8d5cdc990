"""Category C, code portability (METRICS.md C1–C4).

Will the code run on a machine other than the author's? Four detectors read the code of
a deposit: machine-specific absolute paths (C1), imports that no manifest declares (C2),
hard-coded credentials (C3) and exception handlers that swallow every error (C4).

The scanned source set is that of METRICS.md §0.1.9: Python files, notebook code cells
(never stored outputs), R (``.R``/``.r``/``.Rmd``/``.qmd``), Julia and shell files; C1
and C3 add parameter files (YAML/JSON/TOML/INI in a configuration role) and ``.env*``
files. Python is read through its AST (the tree index's cached ``CodeUnit``); R and
Julia through a small tokenizer (``_common._lex``); shell, parameter and ``.env`` files line
by line. A file that does not parse stays in the denominator and is scanned with a
token or regular-expression fallback.

All four metrics are continuous (``level=None``). The per-file views (which files are
scanned, their code segments, R/Julia tokens) are built once per tree (``_common._scan``)
and shared by the four detectors, so each file is read and tokenized once.
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
