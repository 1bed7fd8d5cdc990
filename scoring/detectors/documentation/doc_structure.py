"""D1 doc_structure: the README has install, usage, output and requirements sections."""

from __future__ import annotations

from scoring.detectors.documentation._common import (
    FAMILIES,
    _file_line,
    project_names,
    run_heading,
    section_headings,
)
from scoring.model import Evidence
from scoring.registry import Result, detector
from scoring.tree import TreeIndex

_HEADINGS_SHOWN = 5


@detector("doc_structure", version="2.6.0")
def doc_structure(tree: TreeIndex) -> Result:
    """The README has sections on installation, usage, expected output and requirements.

    What it checks:
        The headings of the root README (chosen by the §0.1.13 priority, any case;
        when no root file has one of its names, a README spelt with separators such as
        READ_ME.txt or Read-Me.md, which a reader opens as the README all the same,
        2.5.0):
        Markdown ATX and setext headings outside code fences, RST section titles,
        HTML <h1>–<h6>, and in a plain-text README (``README``, ``README.txt``) a short
        line in capitals after a blank line (``INSTALLATION``, ``DATA FORMAT:``). Four families are looked for, each as a whole word or phrase in
        a heading, case-insensitively: install (install/installation/installing, setup,
        set up, getting started, environment), run (usage, run/running, execute/
        execution/executing, how to run/use, quick start, reproduce/reproducing,
        tutorial), output (expected/sample/example/reference output(s) or result(s),
        output(s)) and requirements (requirement(s), dependency/dependencies,
        prerequisite(s), hardware, compute, system requirements). Value = 25 × families
        matched; no README → 0. (2.2.0: the document title — the first heading when it
        is a top-level one over deeper section headings — names the project and matches
        no family, METRICS.md §0.2.6; "Figures" and "Reproducing the figures" are in the
        output family, §0.2 headings.) 2.3.0 (§0.2.7, §0.2 headings, §0.3 workflow
        data): "Environment variables" is configuration, not install; the requirements
        family adds "Software" as the heading's head ("Software", "Software used", not
        "Software license"), "Pre-requisites" and "Packages used"; the output family
        adds "Pipeline results"; the run family adds "Using <project name>", the name
        being one the deposit's metadata declares (pyproject.toml, setup.py/setup.cfg,
        DESCRIPTION, Project.toml, fpm.toml, CMake/meson project(), a root *.Rproj) or
        a short README title ("Using minimap2" counts, "Using Conda" does not).
        2.6.0 (§0.2.7, headings are noun phrases): a qualifier in parentheses is no
        head and is dropped before matching ("Read files (required)" is about input
        files, "Docker (optional)" about Docker); "required", "necessary" or "needed"
        puts a heading in the requirements family only when it leads a software noun
        (software, package(s), tools, toolbox(es), library/libraries, dependencies,
        programs, modules: "Required Matlab toolboxes", "Necessary tools").
    Why it matters:
        A reader who cannot find how to install, run and check a result will not
        reproduce it; these four sections are the minimum map of a research deposit.
    Evidence:
        For each matched family its matching headings, up to five (README path, line,
        heading text; 2.3.0: a README may install in two places, "Getting Started" and
        "Installation"). ``counts`` holds the number of headings, the matched and
        missing families.
    How to fix:
        Add README headings for the missing topics, e.g. "## Installation", "## Usage",
        "## Expected output", "## Requirements".
    Known false positives:
        Any heading with the word counts, whatever its content ("## Study environment"
        describing field sites counts as install; "## Output" of a tool's reference
        manual counts as expected output). "Experimental setup", "simulation
        environment", "running time" and a bare "Results" are excluded on purpose.
    """
    readme = tree.readme
    doc = tree.readme_document()
    if readme is None or doc is None:
        return Result(
            0, evidence=[], reason="no README at the root" if readme is None else f"{readme} cannot be read as text",
            fix="Add a README.md with sections ## Installation, ## Usage, ## Expected output and ## Requirements.",
            counts={"headings": 0, "families_matched": 0, "matched": [], "missing": [f.key for f in FAMILIES]},
        )
    evidence: list[Evidence] = []
    matched: list[str] = []
    names = project_names(tree, doc)
    sections = section_headings(doc)
    for family in FAMILIES:
        if family.key == "run":
            headings = [h for h in sections if run_heading(h.text, names)]
        else:
            headings = [h for h in sections if family.matches(h.text)]
        if not headings:
            continue
        matched.append(family.key)
        # every heading of the family, up to a few: a README may install in two places
        evidence.extend(Evidence(
            readme, f"{family.title} section: heading '{heading.text}'",
            rule=f"doc_structure.{family.key}", line_start=_file_line(doc, heading.line), snippet=heading.text,
        ) for heading in headings[:_HEADINGS_SHOWN])
    missing = [f for f in FAMILIES if f.key not in matched]
    value = 25 * len(matched)
    fix = None
    if missing:
        fix = f"Add README sections for the missing topics: {', '.join('## ' + f.title for f in missing)}."
    return Result(
        value,
        evidence=evidence,
        fix=fix,
        reason=(f"{len(matched)} of 4 section families in {readme}"
                + (f"; missing: {', '.join(f.key for f in missing)}" if missing else "")),
        counts={"headings": len(doc.headings), "families_matched": len(matched), "matched": matched,
                "missing": [f.key for f in missing]},
    )
