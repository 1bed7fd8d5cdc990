"""What detectors of several categories need alike: the ecosystem a fix is written for.

A fix suggestion names the deposit's own tools (METRICS.md §0.3: ``renv::snapshot()``,
``Pkg.instantiate()``, a ``container`` directive, ``cmake``), never Python advice for an
R, Julia, MATLAB, native or workflow tree. ``fix_ecosystem`` says which ecosystem that
is, once, from the tree's ecosystems (:mod:`scoring.ecosystems`); each detector keeps its
own table of texts per ecosystem.
"""

from __future__ import annotations

from scoring.tree import TreeIndex

# The ecosystems a fix text is written for.
PYTHON, R, JULIA, MATLAB, NATIVE, NEXTFLOW, SNAKEMAKE = (
    "python", "r", "julia", "matlab", "native", "nextflow", "snakemake")
FIX_ECOSYSTEMS = (PYTHON, R, JULIA, MATLAB, NATIVE, NEXTFLOW, SNAKEMAKE)
WORKFLOW_ECOSYSTEMS = frozenset({NEXTFLOW, SNAKEMAKE})

# scoring.ecosystems names -> fix ecosystem (shell, Make, conda and containers describe no
# language of their own)
_BY_NAME = {
    "Python": PYTHON, "R": R, "Julia": JULIA, "MATLAB/Octave": MATLAB, "C/C++": NATIVE, "Fortran": NATIVE,
    "Nextflow": NEXTFLOW, "Snakemake": SNAKEMAKE,
}


def fix_ecosystem(tree: TreeIndex) -> str:
    """The ecosystem a fix for ``tree`` is written in: a workflow engine when the tree has
    its files (a Snakemake workflow whose steps run Python scripts is a workflow deposit),
    else the language with the most source files (C/C++ and Fortran together are
    ``native``), Python when the tree has no sources of any of them."""
    counts: dict[str, int] = {}
    for ecosystem in tree.ecosystems:
        key = _BY_NAME.get(ecosystem.name)
        if key is not None and ecosystem.files:
            counts[key] = counts.get(key, 0) + ecosystem.files
    workflows = [key for key in (NEXTFLOW, SNAKEMAKE) if counts.get(key)]
    if workflows:
        return max(workflows, key=lambda key: counts[key])
    if not counts:
        return PYTHON
    # ties go to the order of FIX_ECOSYSTEMS (Python first)
    return max(FIX_ECOSYSTEMS, key=lambda key: (counts.get(key, 0), -FIX_ECOSYSTEMS.index(key)))
