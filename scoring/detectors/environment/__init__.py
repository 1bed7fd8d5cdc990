"""Category E, environment specification (METRICS.md E1–E4).

Can the computational environment be reconstructed? Four detectors look at what a
deposit declares about its environment: how tightly dependencies are pinned (E1), whether
a container definition exists (E2), whether one command creates the environment (E3),
and whether the interpreter version is declared (E4).

All four read conventional files (manifests, lockfiles, container definitions, task
files, build files, the README) through the tree index's cached parsers, and the facts the
language frontends already gathered (which languages are used, Nextflow and Snakemake
directives, C/C++/Fortran includes, a configure script's flags): no source file is read
here, so the cost is a handful of small reads per tree.
"""

from scoring.detectors.environment import (
    container_spec,
    dep_pinning,
    env_bootstrap,
    python_version_declared,
)

__all__ = ["dep_pinning", "container_spec", "env_bootstrap", "python_version_declared"]
