"""Category C, code portability (METRICS.md C1–C4).

Will the code run on a machine other than the author's? Four detectors read the code of
a deposit: machine-specific absolute paths (C1), imports that no manifest declares (C2),
hard-coded credentials (C3) and exception handlers that swallow every error (C4).

The scanned source set is that of METRICS.md §0.1.9: Python files, notebook code cells
(never stored outputs), R (``.R``/``.r``/``.Rmd``/``.qmd``), Julia and shell files; C1
and C3 add parameter files (YAML/JSON/TOML/INI in a configuration role) and ``.env*``
files. Both aggregate facts. C1: the string literals of the frontends (Python
docstrings excluded), notebook magics and shell cells (``NotebookCellFact``), and the
literal texts of shell, parameter and ``.env`` files read line by line
(``TreeIndex.line_file``). C3: the ``CredentialFact``s of the same files, decided and
masked where each file is read, before anything is redacted (``FileFacts.credentials``
from the Python, R and Julia frontends, ``scoring.frontends._credentials``;
``LineFile.credentials``; the verdicts are ``scoring.parsers.secrets``'s). A file that
does not parse stays in the denominator and is read with a line fallback.

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
