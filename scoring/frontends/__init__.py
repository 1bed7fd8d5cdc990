"""Language frontends: one module per language, each ``extract(data, path) -> FileFacts``.

Each frontend parses a file once and traverses its tree once: one tree-sitter query
(``_common.selected``) hands it the nodes facts come from, in document order. The facts
it returns are everything detectors read from that file (``scoring.facts``).
``frontend_for(path)`` picks the frontend from the file's name, or None.
"""

from __future__ import annotations

import fnmatch
import re
from importlib import import_module
from types import ModuleType

# suffix (lower-cased) -> frontend module; case matters for Fortran's .F/.F90 only in
# that they are preprocessed sources, which the grammar reads as they are
BY_SUFFIX = {
    ".py": "python", ".pyw": "python", ".ipy": "python", ".ipynb": "python",
    ".r": "r", ".rmd": "r", ".qmd": "r",
    ".jl": "julia",
    ".m": "matlab",
    ".c": "c_cpp", ".h": "c_cpp", ".cc": "c_cpp", ".cpp": "c_cpp", ".cxx": "c_cpp",
    ".hpp": "c_cpp", ".hh": "c_cpp", ".hxx": "c_cpp", ".cu": "c_cpp", ".cuh": "c_cpp",
    ".f": "fortran", ".f90": "fortran", ".f95": "fortran", ".f03": "fortran", ".f08": "fortran",
    ".for": "fortran", ".f77": "fortran", ".ftn": "fortran",
    ".nf": "nextflow",
    ".smk": "snakemake",
}
BY_NAME = {"nextflow.config": "nextflow", "snakefile": "snakemake"}
# Nextflow configurations besides nextflow.config: a profile's or site's own file anywhere
# (nextflow_test.config, nextflow_hpcc.config, passed with -c), and the includeConfig files of
# a pipeline's conf/ or configs/ folder (conf/base.config, configs/container.config: the
# withLabel container and conda settings of a profile)
NEXTFLOW_CONFIG = re.compile(r"nextflow[._-].*\.config")
NAME_PATTERNS = (("*.config", "nextflow"),)
_CONFIG_FOLDERS = {"conf", "configs"}
FRONTENDS = ("python", "r", "julia", "matlab", "c_cpp", "fortran", "nextflow", "snakemake")
# The language of the facts of a ``.m`` file the MATLAB frontend finds to be Objective-C:
# the tree index leaves such files out of the MATLAB files (METRICS.md §0.3).
NOT_MATLAB = "objective-c"


def frontend_name(path: str) -> str | None:
    name = path.rsplit("/", 1)[-1]
    lowered = name.lower()
    if lowered in BY_NAME:
        return BY_NAME[lowered]
    if NEXTFLOW_CONFIG.fullmatch(lowered):
        return "nextflow"
    dot = lowered.rfind(".")
    if dot > 0 and lowered[dot:] in BY_SUFFIX:
        return BY_SUFFIX[lowered[dot:]]
    if _CONFIG_FOLDERS & set(path.split("/")[:-1]):
        for pattern, frontend in NAME_PATTERNS:
            if fnmatch.fnmatch(lowered, pattern):
                return frontend
    return None


def frontend_for(path: str) -> ModuleType | None:
    """The frontend module for ``path`` (repository-relative), or None."""
    name = frontend_name(path)
    return None if name is None else import_module(f"{__name__}.{name}")
