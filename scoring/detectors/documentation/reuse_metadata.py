"""D7 reuse_metadata: licence, citation and software metadata let others reuse the work."""

from __future__ import annotations

import re

from scoring.detectors._shared import R, fix_ecosystem
from scoring.model import Evidence
from scoring.registry import Result, detector
from scoring.tree import TreeIndex

_LICENCE_FILE = re.compile(r"licen[cs]e.*|copying.*|unlicense.*|"
                           # a licence text named after its licence: gpl-3.0.txt, LGPL.txt, agpl-v3.md
                           r"[al]?gpl(?:[-_.]?v?\d[\w.-]*?)?(?:\.(?:txt|md|rst))?", re.IGNORECASE)
_REUSE_LEVELS = (0, 40, 70, 100)

# A DESCRIPTION License field names a licence when it holds one of the licence
# specifications R knows (R's share/licenses/license.db: GPL-3, GPL (>= 2), LGPL-2.1,
# MIT + file LICENSE, BSD_3_clause + file LICENSE, Apache License 2.0, CC BY 4.0,
# Unlimited...) or points to a licence file; package.skeleton()'s placeholder "What
# license is it under?" names none
_R_LICENCE_SPEC = re.compile(
    r"\b(?:[AL]?GPL|GNU|MIT|BSD|Apache|Artistic|CC0|CC[ -]BY|Creative\s+Commons|MPL|Mozilla|EUPL|BSL|Boost|"
    r"CeCILL|Lucent|Unlimited|Eclipse|EPL|Common\s+Public|Unlicense|ISC|Zlib|AFL|ODbL|PDDL|Public\s+Domain)\b"
    r"|\bfile\s+LICEN[CS]E\b", re.IGNORECASE)


def _licence(tree: TreeIndex) -> tuple[Evidence | None, str | None]:
    for path in tree.match(_LICENCE_FILE, ""):
        info = tree.info(path)
        # license.py and the like are code; an empty file grants nothing.
        if info is None or info.type is not None or info.size == 0:
            continue
        table = tree.line_table(path)
        first = table.first_nonblank if table is not None else None
        return Evidence(path, "licence file", rule="reuse_metadata.licence",
                        line_start=1 if first is not None else None, snippet=first), None
    licenses_dir = tree.find_ci("LICENSES")
    if licenses_dir and tree.is_dir(licenses_dir):
        inside = tree.files_under(licenses_dir)
        if inside:
            return Evidence(inside[0], "REUSE licence folder", rule="reuse_metadata.reuse_licenses"), None
    # An R package states its licence in DESCRIPTION (METRICS §0.3 R specifics): CRAN
    # ships the standard licences' texts, so "License: GPL-3" grants as a file would.
    description = tree.find_ci("DESCRIPTION")
    licence = ((tree.description_fields(description) or {}).get("License") or "").strip() if description else ""
    if licence and not _R_LICENCE_SPEC.search(licence):
        return None, f"the DESCRIPTION License field ({licence.splitlines()[0]!r}) names no licence R knows"
    if licence:
        keys = tree.key_lines(description)
        line = keys.line_of("License", ":") if keys is not None else None
        return Evidence(description, "licence declared in the R package DESCRIPTION", rule="reuse_metadata.description_licence",
                        line_start=line, snippet=f"License: {licence.splitlines()[0]}"), None
    return None, "no licence file (LICENSE, COPYING, UNLICENSE or a REUSE LICENSES/ folder)"


def _other_licence_statements(tree: TreeIndex, counted: Evidence) -> list[Evidence]:
    """The other licence files at the top level (COPYING beside COPYING.LESSER) and an R
    package's DESCRIPTION License: field, after the one counted."""
    found = []
    for path in tree.match(_LICENCE_FILE, ""):
        info = tree.info(path)
        if path != counted.path and info is not None and info.type is None and info.size > 0:
            table = tree.line_table(path)
            first = table.first_nonblank if table is not None else None
            found.append(Evidence(path, "another licence file", rule="reuse_metadata.licence",
                                  line_start=1 if first is not None else None, snippet=first))
    description = tree.find_ci("DESCRIPTION")
    licence = ((tree.description_fields(description) or {}).get("License") or "").strip() if description else ""
    if licence and description != counted.path:
        keys = tree.key_lines(description)
        line = keys.line_of("License", ":") if keys is not None else None
        found.append(Evidence(description, "licence declared in the R package DESCRIPTION",
                              rule="reuse_metadata.description_licence", line_start=line,
                              snippet=f"License: {licence.splitlines()[0]}"))
    return found[:5]


def _citation(tree: TreeIndex) -> tuple[Evidence | None, str | None]:
    path = tree.find_ci("CITATION.cff")
    if path is None or not tree.is_file(path):
        # An R package's citation metadata is inst/CITATION, which citation("<pkg>")
        # reads (METRICS §0.3 R specifics).
        r_citation = tree.find_ci("CITATION", "inst") if tree.find_ci("DESCRIPTION") and tree.is_dir("inst") else None
        if r_citation and tree.is_file(r_citation) and (table := tree.line_table(r_citation)) is not None \
                and not table.blank:
            return Evidence(r_citation, "citation metadata (R inst/CITATION)", rule="reuse_metadata.r_citation",
                            line_start=1, snippet=table.first_nonblank), None
        return None, "no CITATION.cff"
    data = tree.yaml(path)
    if not isinstance(data, dict) or "cff-version" not in data:
        return None, f"{path} is not valid CFF (it must parse as YAML and declare cff-version)"
    keys = tree.key_lines(path)
    line = keys.line_of("cff-version", ":") if keys is not None else None
    return Evidence(path, "citation metadata (CFF)", rule="reuse_metadata.citation_cff", line_start=line,
                    snippet=f"cff-version: {data['cff-version']}"), None


def _codemeta(tree: TreeIndex) -> tuple[Evidence | None, str | None]:
    path = tree.find_ci("codemeta.json")
    if path is None or not tree.is_file(path):
        return None, "no codemeta.json"
    data = tree.json(path)
    if not isinstance(data, dict) or "@context" not in data:
        return None, f"{path} is not valid CodeMeta (it must parse as JSON and have an @context)"
    keys = tree.key_lines(path)
    line, snippet = keys.members.get("@context", (None, None)) if keys is not None else (None, None)
    return Evidence(path, "software metadata (CodeMeta)", rule="reuse_metadata.codemeta", line_start=line,
                    snippet=snippet), None


_WANTED = {
    "licence": "a LICENSE file",
    "citation_cff": "a CITATION.cff with cff-version",
    "codemeta": "a codemeta.json with @context",
}
_WANTED_R = {
    "licence": "a LICENSE file (usethis::use_mit_license() and its kin write one with the DESCRIPTION License: field)",
    "citation_cff": "a CITATION.cff with cff-version (cffr::cff_write() derives it from DESCRIPTION)",
    "codemeta": "a codemeta.json with @context (codemetar::write_codemeta() derives it from DESCRIPTION)",
}


@detector("reuse_metadata", version="2.2.1")
def reuse_metadata(tree: TreeIndex) -> Result:
    """A licence, citation metadata and software metadata let others reuse and credit the work.

    What it checks:
        Three items at the top level: a non-empty licence file (case-insensitive
        LICEN[CS]E*, COPYING*, UNLICENSE*, or a licence text named after its licence
        such as gpl-3.0.txt; source files such as license.py excluded) or a REUSE
        LICENSES/ folder holding a file; a CITATION.cff that parses as YAML and has
        cff-version; a codemeta.json that parses as JSON and has @context. 0 / 1 / 2 / 3
        items → 0 / 40 / 70 / 100. R packages (METRICS §0.3): the DESCRIPTION License:
        field counts as the licence when there is no licence file and it names a
        licence R knows (GPL-3, GPL (>= 2), MIT + file LICENSE, Apache License 2.0,
        CC BY 4.0, Unlimited...; package.skeleton()'s placeholder "What license is it
        under?" does not), and a non-empty inst/CITATION as the citation item when
        there is no CITATION.cff.
    Why it matters:
        Without a licence nobody may legally reuse the code; citation and CodeMeta
        metadata let archives, indexers and authors credit and find it.
    Evidence:
        Each file found (with the line of cff-version / @context), then the other
        licence files and an R package's DESCRIPTION License: line; invalid CFF or
        CodeMeta files are named in the reason. ``counts`` has the three items.
    How to fix:
        Add the missing items: a LICENSE file, a CITATION.cff (cffinit can write one),
        a codemeta.json (codemeta generators can derive it from your package metadata).
        In an R deposit with a DESCRIPTION the fix names R's own tools (2.2.1):
        usethis::use_*_license(), cffr::cff_write() and codemetar::write_codemeta()
        write them from DESCRIPTION.
    Known false positives:
        The licence text is not checked (a "LICENSE" saying "all rights reserved"
        counts); CFF and CodeMeta are checked for their version/context key only, not
        against their schemas.
    """
    checks = {"licence": _licence(tree), "citation_cff": _citation(tree), "codemeta": _codemeta(tree)}
    evidence = [ev for ev, _ in checks.values() if ev is not None]
    problems = [problem for ev, problem in checks.values() if ev is None and problem]
    present = {key: ev is not None for key, (ev, _) in checks.items()}
    value = _REUSE_LEVELS[len(evidence)]
    items = len(evidence)
    if present["licence"]:
        evidence += _other_licence_statements(tree, checks["licence"][0])
    fix = None
    if value < 100:
        wanted = dict(_WANTED)
        if fix_ecosystem(tree) == R and tree.find_ci("DESCRIPTION"):
            # the R tools that write them from DESCRIPTION (METRICS §0.3: the deposit's own tools)
            wanted.update(_WANTED_R)
        fix = "Add " + ", ".join(wanted[k] for k, ok in present.items() if not ok) + " at the top level."
    reason = f"{items} of 3 reuse metadata items" + (f"; {'; '.join(problems)}" if problems else "")
    return Result(value, evidence=evidence, fix=fix, reason=reason, counts={**present, "items": items})
