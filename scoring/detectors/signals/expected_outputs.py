"""S4 expected_outputs: reference outputs are committed for a rerun to compare with."""

from __future__ import annotations

import re
from collections.abc import Iterable

from scoring.detectors._shared import (
    JULIA,
    MATLAB,
    NATIVE,
    NEXTFLOW,
    PYTHON,
    SNAKEMAKE,
    R,
    fix_ecosystem,
    resolve_in_folder,
)
from scoring.detectors.signals._common import (
    MAX_EVIDENCE,
    SOURCE_SUFFIXES,
    _is_hidden,
    _join_names,
    _line_text,
    _name,
    _parent,
    is_reference_data,
    regression_cases,
)
from scoring.model import Evidence
from scoring.registry import Result, detector
from scoring.roles import TEST_DIRS
from scoring.tree import TreeIndex

_OUTPUT_DIR_NAMES = frozenset({
    "results", "outputs", "output", "expected", "reference", "expected_outputs", "reference_outputs",
    "ground_truth", "figures", "figs", "fig", "figure", "plots", "expected_results", "reference_results",
    "golden", "snapshots",
})
# A folder whose name has one of these words ("model comparison results", "results_v1",
# "simulation-output") is an output folder too (§0.3: `tests/*expected*/`-style names).
_OUTPUT_WORDS = frozenset({"results", "outputs", "output"})
_WORD_SPLIT_RE = re.compile(r"[\s_.\-]+")
# Folders below a test folder that hold what the tests compare with (§0.3: `tests/expected*`,
# `tests/baseline*`, pytest-mpl baselines, reference/ folders of native regression tests,
# testthat `_snaps/`, Jest `__snapshots__/`, committed reference reports).
_TEST_OUTPUT_DIR_RE = re.compile(
    r".*expected.*|reference.*|baseline.*|golden.*|snapshots?|_snaps|__snapshots__|reports?",
    re.IGNORECASE,
)
_REGRESSION_DIR_RE = re.compile(r"regression.*", re.IGNORECASE)
# a test folder named for a reference, which may be the genome a test runs on
_REFERENCE_DATA_DIR_RE = re.compile(r"ref|refs|reference.*", re.IGNORECASE)
_SNAPSHOT_FILE_RE = re.compile(r".+\.nf\.test\.snap", re.IGNORECASE)   # nf-test snapshots (§0.3)
_EXPECTED_OUTPUT_RE = re.compile(
    r"(?<![A-Za-z0-9])(?:expected|sample|example|reference)\s+(?:outputs?|results?)(?![A-Za-z0-9])",
    re.IGNORECASE,
)
# A sentence showing what the output looks like (§0.3 Python libraries): "The output
# looks like this:", "the result should look like the following", followed by an image or
# a block.
_LOOKS_LIKE_RE = re.compile(
    r"(?<![A-Za-z0-9])(?:outputs?|results?)\s+(?:(?:should|will|would|might|may)\s+)?looks?\s+like(?![A-Za-z0-9])",
    re.IGNORECASE,
)
# A sentence in which a run produces output (§0.3 Python libraries, findings-A omniglot:
# "This produces figures like this one:"): an output noun followed by "like this / these /
# the one(s) below / the following", or a production verb taking "this" / "the following"
# and an output noun ("gives the following output"), shown by an image or a block
_OUTPUT_NOUN = r"(?:figures?|plots?|images?|outputs?|results?|tables?)"
_PRODUCTION_VERB = r"(?:produc|generat|creat|giv|output|yield)(?:e|es|ed|s|ing)?|gave|prints?|printed"
_OUTPUT_LIKE_THIS_RE = re.compile(
    rf"(?<![A-Za-z0-9]){_OUTPUT_NOUN}\s+like\s+(?:this|these|the\s+following|the\s+ones?\s+below)(?![A-Za-z0-9])"
    rf"|(?<![A-Za-z0-9])(?:{_PRODUCTION_VERB})\s+(?:this|these|the\s+following)\s+(?:\w+\s+)?{_OUTPUT_NOUN}"
    r"(?![A-Za-z0-9])",
    re.IGNORECASE,
)
# ... or a production verb taking an output noun ("Running plot.py produces two figures"),
# shown by an image: a code block after such a sentence is as often the command that
# produces it ("The following command generates the figures:")
_PRODUCES_OUTPUT_RE = re.compile(
    rf"(?<![A-Za-z0-9])(?:{_PRODUCTION_VERB})\s+(?:[\w-]+\s+){{0,3}}?{_OUTPUT_NOUN}(?![A-Za-z0-9])",
    re.IGNORECASE,
)
# README files whose images a reader sees on the project page (Markdown, RST, text)
_README_PROSE_SUFFIXES = frozenset({"", ".md", ".markdown", ".rst", ".txt"})
# A link into the repository itself on GitHub: .../<owner>/<repo>/(blob|raw)/<ref>/<path>
# or raw.githubusercontent.com/<owner>/<repo>/<ref>/<path>
_GITHUB_FILE_RE = re.compile(
    r"https?://(?:github\.com/[^/]+/[^/]+/(?:blob|raw)/[^/]+|raw\.githubusercontent\.com/[^/]+/[^/]+/[^/]+)/(.+)",
    re.IGNORECASE,
)
_FIGURE_SUFFIXES = frozenset({".png", ".pdf", ".svg", ".jpg", ".jpeg", ".eps", ".tif", ".tiff"})
# Documentation and asset locations (§0.2.18): excluded from every tier. R's man/ (man/figures
# holds README and pkgdown images), vignettes/, a manual/ folder (a user manual PDF).
_ASSET_DIRS = frozenset({"docs", "doc", "documentation", "man", "manual", "manuals", "vignettes", "_static",
                         "assets", ".github"})
# §0.2.18 excludes img/ and images/ only beside a README that embeds them: a paper's
# committed figures often sit in img/ too, so such a folder is a documentation location
# only when a README beside or above it embeds one of its files.
_IMAGE_DIRS = frozenset({"img", "imgs", "images"})
# an asset's name: logo, banner, icon or badge as its first word or any word of it
# (json-fortran-logo.png, project_banner.svg; not "silicon.png")
_ASSET_NAME_RE = re.compile(r"(?:.*[-_.\s])?(?:logo|banner|icon|badge)s?(?:[-_.\s\d].*)?", re.IGNORECASE)
# §0.2.18: a file counts only with at least 16 bytes and when it is not a placeholder.
_MIN_OUTPUT_BYTES = 16
_PLACEHOLDER_NAMES = frozenset({".gitkeep", ".keep", ".gitignore"})
_README_RE = re.compile(r"readme(?:\..*)?", re.IGNORECASE)
# Source code is what makes outputs, never an output itself (a plots/ folder of plotting
# scripts, src/outputs/ of output writers). Notebooks count when they store outputs.
_CODE_NAMES = frozenset({"makefile", "snakefile", "cmakelists.txt", "dockerfile", "nextflow.config"})
# §0.2.18: notebook outputs that count (an error traceback or stderr alone does not).
_RESULT_OUTPUT_KINDS = frozenset({"execute_result", "display_data", "stream:stdout"})


def _suffix(name: str) -> str:
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""


def _in_asset_location(path: str, image_folders: frozenset[str] = frozenset()) -> bool:
    """Whether ``path`` lies in a documentation location: a folder of ``_ASSET_DIRS``, or
    one of the ``image_folders`` a README embeds files of."""
    parts = path.split("/")[:-1]
    return any(part.lower() in _ASSET_DIRS for part in parts) or any(
        "/".join(parts[:k + 1]) in image_folders for k, part in enumerate(parts) if part.lower() in _IMAGE_DIRS)


# what a write call's path literal must not hold to name one file: an interpolation or a
# wildcard (``f"figures/{name}.png"``, ``paste0`` pieces are not literals)
_COMPUTED_PATH_RE = re.compile(r"[{}$*?<>|]|%[sd]")


def _normalised_literal(path: str) -> str:
    """A write call's path literal as a repository-relative suffix: ``./`` and ``../``
    steps and leading slashes dropped, backslashes made slashes (``"../figures/Fig_5.svg"``
    → ``figures/Fig_5.svg``)."""
    parts = [part for part in path.replace("\\", "/").split("/") if part not in ("", ".", "..")]
    return "/".join(parts)


class _WrittenByCode:
    """The committed files the deposit's own code writes (findings-A, Madjedbebe): a write
    call (``ggsave``, ``png``, ``savefig``, ``to_csv``, ``writematrix``…) of a source-role
    file whose path literal the committed file's path ends with. Such a file is an output of
    the deposit's code wherever it lies, so no documentation or asset location excludes it
    (§0.2.18 excludes documentation figure folders: a folder the code writes its results
    into is none). The facts are read on the first question only, which most trees never
    ask."""

    def __init__(self, tree: TreeIndex):
        self.tree = tree
        self._writes: dict[str, tuple[str, int]] | None = None   # literal -> (writer, line)

    def _load(self) -> dict[str, tuple[str, int]]:
        writes: dict[str, tuple[str, int]] = {}
        for path, facts in self.tree.all_facts().items():
            if self.tree.role(path) != "source":
                continue
            for io in facts.file_io:
                if io.mode not in ("write", "readwrite") or not io.path or _COMPUTED_PATH_RE.search(io.path):
                    continue
                literal = _normalised_literal(io.path)
                if literal and literal not in writes:
                    writes[literal] = (path, io.line)
        return writes

    def writer(self, path: str) -> tuple[str, int] | None:
        """(writing file, line) of the first write call whose path literal ``path`` ends
        with, or None."""
        if self._writes is None:
            self._writes = self._load()
        if not self._writes:
            return None
        parts = path.split("/")
        return next((found for k in range(len(parts)) if (found := self._writes.get("/".join(parts[k:])))), None)


def _stored_output_cell(tree: TreeIndex, path: str) -> int | None:
    """The first code cell of a notebook that stores a result output (§0.2.18), or None."""
    facts = tree.facts(path)
    if facts is None:
        return None
    return next((c.index for c in facts.cells
                 if c.kind == "code" and _RESULT_OUTPUT_KINDS.intersection(c.output_kinds)), None)


def _is_output_file(tree: TreeIndex, path: str) -> bool:
    """A committed file that can be a reference output: ≥ 16 bytes, no placeholder or
    README, not vendored, not source code (a notebook only with stored result outputs)."""
    name = _name(path)
    lowered = name.lower()
    if name.startswith(".") or lowered in _PLACEHOLDER_NAMES or _README_RE.fullmatch(name) or lowered in _CODE_NAMES:
        return False
    info = tree.info(path)
    if info is None or info.size < _MIN_OUTPUT_BYTES or tree.role(path) == "vendored":
        return False
    suffix = _suffix(name)
    if suffix == ".ipynb":
        return _stored_output_cell(tree, path) is not None
    return suffix not in SOURCE_SUFFIXES


def _is_output_dir_name(name: str) -> bool:
    lowered = name.lower()
    return lowered in _OUTPUT_DIR_NAMES or any(w in _OUTPUT_WORDS for w in _WORD_SPLIT_RE.split(lowered))


def _output_dirs(tree: TreeIndex, written: _WrittenByCode,
                 documentation: _DocumentationImages) -> list[tuple[str, list[str], tuple[str, int] | None]]:
    """Output directories at depth ≤ 2 with the output files they hold (recursively,
    hidden ones left out), and for one in a documentation location, where the code writes
    into it: there only the files the deposit's code writes count (None elsewhere). A
    folder whose files are all documentation images (a README embeds each, not under a
    heading naming results or outputs, or it is a logo, banner, icon or badge) and none
    written by the code is a documentation figure folder whatever its name (§0.2.18), and
    no output folder."""
    found = []
    level_one = [d for d in tree.subdirs("") if not _name(d).startswith(".")]
    level_two = [s for d in level_one for s in tree.subdirs(d) if not _name(s).startswith(".")]
    for directory in level_one + level_two:
        if not _is_output_dir_name(_name(directory)):
            continue
        prefix = len(directory) + 1
        files = [p for p in tree.files_under(directory) if not _is_hidden(p[prefix:]) and _is_output_file(tree, p)]
        writer = None
        if _in_asset_location(directory + "/", documentation.image_folders):
            writers = [(p, w) for p in files if (w := written.writer(p)) is not None]
            files = [p for p, _ in writers]
            writer = min((w for _, w in writers), default=None)
        elif files and all(((f in documentation.embedded and f not in documentation.shown_as_results)
                            or _ASSET_NAME_RE.fullmatch(_name(f))) and written.writer(f) is None for f in files):
            continue
        if files:
            found.append((directory, files, writer))
    return found


def _test_output_folder(path: str) -> str | None:
    """The expected-output folder below a test folder that ``path`` sits in, or None:
    ``tests/h2/reference``, ``tests/contrib/baseline``, ``tests/testthat/_snaps``,
    ``.tests/unit/x/expected``, ``tst/regression/data``."""
    parts = path.split("/")[:-1]
    test_at = next((i for i, part in enumerate(parts) if part.lower() in TEST_DIRS), None)
    if test_at is None:
        return None
    if any(part.startswith(".") and part.lower() not in TEST_DIRS for part in parts):
        return None
    for j in range(test_at + 1, len(parts)):
        part = parts[j]
        if _TEST_OUTPUT_DIR_RE.fullmatch(part) or (
                part.lower() == "data" and _REGRESSION_DIR_RE.fullmatch(parts[j - 1])):
            return "/".join(parts[: j + 1])
    return None


def _test_output_dirs(tree: TreeIndex) -> list[tuple[str, list[str]]]:
    """The test expected-output folders with their output files; a folder that holds
    sub-folders only (pytest-mpl's baseline_images/<test module>/) is shown as each of
    them."""
    grouped: dict[str, list[str]] = {}
    genome_folders: set[str] = set()
    for path in tree.files:
        folder = _test_output_folder(path)
        if folder is None:
            continue
        if _REFERENCE_DATA_DIR_RE.fullmatch(_name(folder)) and is_reference_data(_name(path)):
            genome_folders.add(folder)
        elif _is_output_file(tree, path):
            grouped.setdefault(folder, []).append(path)
    # a reference folder holding a genome or annotation is the reference a test runs on:
    # its other files (gene lists, regions) go with it, none is a result
    grouped = {folder: files for folder, files in grouped.items() if folder not in genome_folders}
    split: dict[str, list[str]] = {}
    for folder, files in grouped.items():
        if any(_parent(f) == folder for f in files):
            split[folder] = files
            continue
        for f in files:
            split.setdefault(f[: f.index("/", len(folder) + 1)], []).append(f)
    return sorted(split.items())


def _regression_references(tree: TreeIndex) -> list[tuple[str, list[str]]]:
    """(suite folder, reference outputs) of each data-driven regression suite (§0.3
    native regression-test folders, the cases S3 counts): the reference outputs its case
    folders keep beside their inputs (testcode's benchmark.out.*, *.ref); those in a
    reference/ or expected/ folder are test expected-output folders already."""
    suites: dict[str, list[str]] = {}
    for case in regression_cases(tree):
        loose = [p for p in case.references if _parent(p) == case.folder]
        if loose:
            suites.setdefault(case.suite, []).extend(loose)
    return sorted(suites.items())


def _snapshot_files(tree: TreeIndex) -> list[str]:
    return [p for p in tree.files
            if _SNAPSHOT_FILE_RE.fullmatch(_name(p)) and not _is_hidden(p)
            and (info := tree.info(p)) is not None and info.size >= _MIN_OUTPUT_BYTES
            and tree.role(p) != "vendored"]


def _readme_output_mentions(tree: TreeIndex) -> list[Evidence]:
    doc = tree.readme_document()
    if doc is None:
        return []
    found = []
    for heading in doc.headings:
        if _EXPECTED_OUTPUT_RE.search(heading.text):
            found.append(Evidence(doc.path, f"README heading '{heading.text}'", rule="expected_outputs.readme_heading",
                                  line_start=heading.line, snippet=_line_text(doc.raw_lines, heading.line)))
    for paragraph in doc.paragraphs:
        if not _EXPECTED_OUTPUT_RE.search(paragraph.text):
            continue
        line = next(
            (n for n in range(paragraph.line_start, paragraph.line_end + 1)
             if _EXPECTED_OUTPUT_RE.search(_line_text(doc.raw_lines, n) or "")),
            paragraph.line_start,
        )
        found.append(Evidence(doc.path, "README sentence about expected output", rule="expected_outputs.readme_sentence",
                              line_start=line, snippet=_line_text(doc.raw_lines, line)))
    seen = {e.line_start for e in found}
    for paragraph in doc.paragraphs:
        pattern = next((p for p in (_LOOKS_LIKE_RE, _OUTPUT_LIKE_THIS_RE, _PRODUCES_OUTPUT_RE)
                        if p.search(paragraph.text)), None)
        if pattern is None:
            continue
        line = next((n for n in range(paragraph.line_start, paragraph.line_end + 1)
                     if pattern.search(_line_text(doc.raw_lines, n) or "")), paragraph.line_start)
        shown = _shown_after(doc, paragraph)
        if pattern is _PRODUCES_OUTPUT_RE and shown != "an image":
            continue
        if shown is not None and line not in seen:
            seen.add(line)
            found.append(Evidence(doc.path, f"README shows what the output looks like ({shown})",
                                  rule="expected_outputs.readme_output_example", line_start=line,
                                  snippet=_line_text(doc.raw_lines, line)))
    return sorted(found, key=lambda e: e.line_start or 0)


def _shown_after(doc, paragraph) -> str | None:
    """What follows a README paragraph: "an image" when an image is in it or is the next
    element, "a block" when the next element is a code block; None otherwise."""
    images = [link.line for link in doc.links if link.is_image]
    if any(paragraph.line_start <= line <= paragraph.line_end for line in images):
        return "an image"
    following = [(p.line_start, "") for p in doc.paragraphs if p.line_start > paragraph.line_end]
    following += [(h.line, "") for h in doc.headings if h.line > paragraph.line_end]
    following += [(c.line_start, "a block") for c in doc.code_blocks if c.line_start > paragraph.line_end]
    following += [(line, "an image") for line in images if line > paragraph.line_end]
    if not following:
        return None
    first = min(following, key=lambda item: (item[0], item[1] == ""))
    return first[1] or None


def _resolve_image(tree: TreeIndex, folder: str, url: str) -> str | None:
    """The repository file an image link of a README in ``folder`` shows, or None: a
    relative path (``./``, ``../``), a path from the repository root (``/sketch/x.png``),
    or a GitHub blob/raw URL of a file; query and fragment dropped."""
    target = url.strip().split("#", 1)[0].split("?", 1)[0]
    match = _GITHUB_FILE_RE.match(target)
    if match:
        target, folder = match.group(1), ""
    elif "://" in target or target.startswith(("data:", "mailto:")) or not target:
        return None
    elif target.startswith("/"):
        target, folder = target.lstrip("/"), ""
    path = resolve_in_folder(folder, target)
    return path if path is not None and tree.is_file(path) else None


def _after_code(doc, line: int) -> bool:
    """Whether the block before a README image on ``line`` is a code block: the image is
    the output of the example above it (a knitted README's ``README_files/figure-gfm/``
    plots, a plot shown under its code)."""
    before = [(p.line_end, False) for p in doc.paragraphs if p.line_end < line]
    before += [(h.line, False) for h in doc.headings if h.line < line]
    before += [(c.line_end, True) for c in doc.code_blocks if c.line_end < line]
    return bool(before) and max(before)[1]


def _under_result_heading(doc, line: int) -> bool:
    """Whether ``line`` of a README lies in a section whose heading names results or
    outputs (``## Some results``): an image there shows what the code produced."""
    section = doc.section_of(line)
    return section is not None and any(
        w in _OUTPUT_WORDS or w == "result" for w in _WORD_SPLIT_RE.split(section.heading.text.lower()))


class _DocumentationImages:
    """The images a reader sees as documentation: those a README (any folder) embeds,
    except the output of an example the README shows just above them, and byte-identical
    copies of an image in a documentation location or of an embedded one (findings-A: a
    README picture copied to pix/, a schematic at the top of the README)."""

    def __init__(self, tree: TreeIndex):
        self.tree = tree
        self.embedded: dict[str, tuple[str, int]] = {}   # image -> (README, line)
        # embedded images shown as results: under a README heading naming results or outputs
        self.shown_as_results: set[str] = set()
        for path in tree.files:
            name = _name(path)
            if not _README_RE.fullmatch(name) or _suffix(name) not in _README_PROSE_SUFFIXES or _is_hidden(path):
                continue
            doc = tree.document(path)
            for link in doc.links if doc is not None else ():
                if link.is_image and (target := _resolve_image(tree, _parent(path), link.url)) is not None \
                        and not _after_code(doc, link.line):
                    self.embedded.setdefault(target, (path, link.line))
                    if _under_result_heading(doc, link.line):
                        self.shown_as_results.add(target)
            # an image of a commented-out passage is still the README's own figure
            for link in doc.commented_images if doc is not None else ():
                if (target := _resolve_image(tree, _parent(path), link.url)) is not None:
                    self.embedded.setdefault(target, (path, link.line))
        self._originals: dict[int, list[str]] | None = None   # size -> documentation images
        self.image_folders = frozenset(self._image_folders())

    def _image_folders(self) -> Iterable[str]:
        """The img/, imgs/ and images/ folders a README beside or above them embeds a file
        of (§0.2.18): documentation locations."""
        for image, (readme, _) in self.embedded.items():
            parts = image.split("/")[:-1]
            home = _parent(readme)
            for k, part in enumerate(parts):
                folder = "/".join(parts[:k + 1])
                above = "/".join(parts[:k])
                if part.lower() in _IMAGE_DIRS and (not home or above == home or above.startswith(home + "/")):
                    yield folder

    def copy_of(self, path: str) -> str | None:
        """The documentation image ``path`` is a byte-identical copy of, or None."""
        if self._originals is None:
            self._originals = {}
            for image in sorted(set(self.embedded) | {p for p in self.tree.files
                                                      if _in_asset_location(p, self.image_folders)}):
                info = self.tree.info(image)
                if info is not None and _suffix(image) in _FIGURE_SUFFIXES:
                    self._originals.setdefault(info.size, []).append(image)
        info = self.tree.info(path)
        same_size = [p for p in self._originals.get(info.size, ()) if p != path] if info is not None else []
        if not same_size:
            return None
        blob = self.tree.blob_id(path)
        return next((p for p in same_size if blob is not None and self.tree.blob_id(p) == blob), None)


def _is_result_figure(tree: TreeIndex, path: str, documentation: _DocumentationImages,
                      written: _WrittenByCode) -> bool:
    name = _name(path)
    if _suffix(name) not in _FIGURE_SUFFIXES:
        return False
    if _is_hidden(path) or _ASSET_NAME_RE.fullmatch(name):
        return False
    info = tree.info(path)
    if info is None or info.size < _MIN_OUTPUT_BYTES or tree.role(path) == "vendored":
        return False
    if not _in_asset_location(path, documentation.image_folders) and path not in documentation.embedded and documentation.copy_of(path) is None:
        return True
    return written.writer(path) is not None


def _dir_evidence(groups: list[tuple[str, list[str], str, str]], budget: int) -> list[Evidence]:
    """Each folder with its file count (``groups``: folder, files, what it is, rule),
    followed by some of its files: the ``budget`` left after one item per folder is
    shared out one file per folder in turn."""
    shown = [0] * len(groups)
    left = budget - len(groups)
    while left > 0 and any(shown[i] < len(g[1]) for i, g in enumerate(groups)):
        for i, (_, files, _, _) in enumerate(groups):
            if left > 0 and shown[i] < len(files):
                shown[i] += 1
                left -= 1
    evidence = []
    for (directory, files, what, rule), count in zip(groups, shown, strict=True):
        evidence.append(Evidence(directory, f"{what} holding {len(files)} file{'s' if len(files) != 1 else ''}",
                                 rule=rule, snippet=", ".join(_name(f) for f in files[:5])))
        evidence += [Evidence(f, f"committed output in {directory}", rule="expected_outputs.output_file")
                     for f in files[:count]]
    return evidence


# The ecosystem's own form of reference outputs (§0.3 S3/S4 rows), named in the fixes
_REFERENCE_FORM = {
    PYTHON: "pytest-mpl baseline images or expected files under tests/",
    R: "testthat snapshots in tests/testthat/_snaps/",
    JULIA: "reference files that test/runtests.jl compares with",
    MATLAB: "reference .mat or .csv files that the tests compare with",
    NATIVE: "reference outputs of test cases in tests/<case>/reference/",
    NEXTFLOW: "nf-test snapshots, *.nf.test.snap",
    SNAKEMAKE: "expected outputs of Snakemake unit tests in .tests/unit/<rule>/expected/",
}

# Figures shown in the 40 tier, after the folders that hold several of them.
_FIGURES_SHOWN = 10


def _figure_evidence(figures: list[str]) -> list[Evidence]:
    """Each top-level folder holding several committed figures (``_freeze/`` of a Quarto
    project), then figures taken in turn from each such folder (loose ones last)."""
    by_folder: dict[str, list[str]] = {}
    for path in figures:
        by_folder.setdefault(path.split("/", 1)[0] if "/" in path else "", []).append(path)
    evidence = [Evidence(folder, f"{len(paths)} committed figures under {folder}/", rule="expected_outputs.figure_folder",
                         snippet=", ".join(_name(p) for p in paths[:5]))
                for folder, paths in by_folder.items() if folder and len(paths) > 1]
    groups = [paths for folder, paths in by_folder.items() if folder] + [by_folder.get("", [])]
    in_turn = [group[i] for i in range(max(map(len, groups))) for group in groups if i < len(group)]
    return evidence + [Evidence(p, "committed figure", rule="expected_outputs.figure") for p in in_turn[:_FIGURES_SHOWN]]


@detector("expected_outputs", version="2.9.0")
def expected_outputs(tree: TreeIndex) -> Result:
    """Reference outputs are committed, so a rerun has something to compare with (0/40/60/100).

    What it checks:
        100: a directory named results, outputs, output, expected, reference,
        expected_outputs, reference_outputs, ground_truth, figures, figs, fig, figure,
        plots, expected_results, reference_results, golden or snapshots (any case), or
        whose name has the word results, outputs or output ("model comparison
        results", "results_v1"), at depth ≤ 2 and outside documentation locations,
        holding at least one output file at any depth; or a test expected-output
        folder: below a test folder (tests/, test/, tst/, spec/, .test/, .tests/...), a
        folder named *expected*, reference*, baseline*, golden*, snapshot(s), _snaps,
        __snapshots__ or report(s), or the data/ folder of a regression* test folder,
        holding an output file (tests/<case>/reference/, pytest-mpl
        tests/**/baseline/, testthat _snaps/, Snakemake .tests/unit/*/expected/); or a
        committed nf-test snapshot (*.nf.test.snap). An output file has at least 16
        bytes, is not hidden, not a placeholder (.gitkeep, .keep, .gitignore) or a
        README, not vendored and not source code (.py, .R, .Rmd, .m, .jl, C/C++/Fortran,
        .nf, .smk, shell, Makefile...); a notebook is an output file when it stores a
        result output. 60: a README heading or sentence about expected / sample /
        example / reference output(s) or result(s), or a sentence saying what the output
        looks like ("The output looks like this:") followed by an image or a code
        block; so is (2.5.0, §0.3 "the output looks like") a sentence showing what a
        run produces: an output noun (figure, plot, image, output, result, table,
        singular or plural) followed by "like this", "like these", "like the
        following" or "like the one(s) below" ("This produces figures like this
        one:"), or a production verb (produce, generate, create, give, output, yield,
        print) taking "this", "these" or "the following" and an output noun ("it gives
        the following output:"), followed by an image or a code block; or a production
        verb taking an output noun within three words ("Running plot.py produces two
        figures") followed by an image, not a code block (that is as often the
        command producing them). 40: a committed figure (.png .pdf
        .svg .jpg .jpeg .eps .tif .tiff) of at least 16 bytes outside documentation and
        asset locations (docs/, doc/, documentation/, man/, manual(s)/, vignettes/,
        _static/, assets/, .github/, hidden folders; an img/, imgs/ or images/ folder
        only when a README beside or above it embeds one of its files (2.9.0,
        §0.2.18: a paper's figures committed in img/ with no README showing them
        are committed figures); files with
        logo, banner, icon or badge as a word of their name; vendored files; images a
        README embeds other than an example's output, those of a commented-out passage
        of a README included (2.8.0), and copies of documentation
        images), or a Jupyter notebook with a
        stored execute_result, display_data or stdout stream output in a code cell
        (error tracebacks and stderr alone do not count). 0: none. The highest tier
        found wins. A committed file the deposit's own code writes is an output
        wherever it lies (2.3.0, §0.2.18 and §3 S4: a folder the code writes its
        results into is no documentation figure folder): a write call (ggsave, png,
        pdf, savefig, to_csv, write.csv, writematrix…) of a source-role file (not a
        test, documentation page, build or vendored file) whose path literal, ./ and
        ../ steps dropped, the file's path ends with (``ggsave("figures/Fig_5.svg")``
        in R/functions.R writes vignettes/figures/Fig_5.svg; a path joined of literals,
        ``savefig(os.path.join("img", "fig1.svg"))``, is the literal img/fig1.svg). In a documentation or
        asset location such files, and only they, make an output folder (100) or a
        result figure (40); so do figures the code writes that a README embeds or that
        copy a documentation image; a path with an interpolation names no file. 2.4.0:
        the case folders of a data-driven regression suite (§0.3 native
        regression-test folders, the cases S3 counts: folders directly below a test
        folder — tests/, test/, testing/, tst/, unit_tests/, test-suite/ — holding
        inputs and a reference output) keep their reference outputs beside their
        inputs too (testcode's benchmark.out.*, reference*, expected*, *.ref,
        *.expected): 100. 2.6.0: a test folder named ref, refs or reference* that
        holds a reference genome or annotation (.fa, .fasta, .fna, .ffn, .2bit, .gff,
        .gff3, .gtf, .gaf, .bed, .fai, .dict, gzip/bgzip/bz2/xz/zstd-compressed or
        not) is the reference a test runs on, not a folder of committed results
        (§0.3 "reference/ … with committed results"): none of its files count
        (.test/resources/reference/ of a genome, its annotation and a gene list); a
        regression case's reference* file in such a format is its genome, not its
        reference output. 2.8.0 (§0.2.18 "documentation figure folders beside a README
        that embeds them are excluded from every tier"): an output-named folder
        (figures/, results/…) whose files are all documentation images — each embedded
        by a README (a commented-out passage included) or named logo, banner, icon or
        badge — and none written by the deposit's code is a documentation figure
        folder whatever its name, no output folder (a pipeline's figures/ of its
        logo and workflow diagram); an image the README shows in a section whose
        heading names results or outputs (``## Some results``) is a result shown, so
        its folder stays an output folder.
        (2.2.0: a README sentence saying what the output or result looks
        like, followed by an image or a code block, is the 60 tier (§0.3 Python
        libraries); in the 40 tier an image a README (any folder) embeds is
        documentation, unless the block before it in the README is a code block (the
        example's output: a knitted README's README_files/figure-gfm/ plots), and so is
        a byte-identical copy of a documentation image (docs/, man/figures/, an
        embedded image) kept elsewhere (pix/); an asset name has logo, banner, icon or
        badge as any of its words (json-fortran-logo.png). 2.1.0: files below 16
        bytes, READMEs, vendored files and source
        code no longer make a folder an output folder, and notebook outputs count only
        when they are results, §0.2.18; output-word folder names, figure/, test
        expected-output folders and *.nf.test.snap files are the 100 tier, §0.3;
        man/, manual/, vignettes/, _static/ and docs/figures/ are out of every tier.)
    Why it matters:
        Reproducing a result means comparing a rerun with the published numbers and
        figures; without committed outputs there is nothing to compare against. Test
        reference outputs and snapshots are the outputs a rerun of the tests is compared
        with.
    Evidence:
        Each output directory and test expected-output folder with its file count (an
        output folder in a documentation location with the first write call into it; a
        regression suite's folder with the reference outputs of its cases),
        followed by its files as far as the evidence limit allows (shared out one file
        per folder in turn), and the nf-test snapshot files; or the README line (a
        heading, a sentence, or a sentence showing the output); or each
        top-level folder holding several figures (`_freeze/` of a Quarto project), ten
        figures taken in turn from those folders, and the first notebook cell with
        stored output. Counts: output
        directories, test output directories, snapshot files, README mentions, figures,
        notebooks with outputs.
    How to fix:
        Commit the reference outputs of a run (results/ with tables and figures, or the
        ecosystem's own form: pytest-mpl baselines, testthat snapshots, reference
        outputs of native test cases, nf-test snapshots, Snakemake unit-test expected
        outputs), and describe the expected output in the README.
    Known false positives:
        A results/ or figures/ folder holding data placeholders of 16 bytes or more
        counts; a tests/reference*/ folder of test inputs in other formats (a
        reference table a test reads) counts as test outputs; a folder whose name only has the word "output" ("output_maps"
        of inputs) counts; so does a README that only mentions "example output" in
        passing, a README sentence "… generates plots like this" above a picture of
        the method rather than of its output, a paper PDF at the root, or a notebook whose outputs are warnings
        printed to stdout. A result figure the README shows without the code that
        made it just above is taken for documentation. A documentation image whose
        name a write call of the code also gives (a bare ``savefig("overview.png")``)
        counts as an output. Reference files kept loose in a test folder
        (tests/fxx_matlab.txt that a test loads and compares with) are not
        recognised: §0.3 names the expected-output folders and baseline images of
        tests. A reference/ folder of a test that keeps its expected outputs beside
        the genome it runs on (expected.vcf next to genome.fa) is taken for the
        genome's folder. An img/ folder of documentation screenshots no README embeds
        (a docs site's pages or notebooks show them instead), or whose README embeds
        its images in a form the README reader does not see (an HTML ``<img src=…>``
        with an unquoted attribute), counts as committed figures.
    """
    written = _WrittenByCode(tree)
    documentation = _DocumentationImages(tree)
    dirs = _output_dirs(tree, written, documentation)
    test_dirs = _test_output_dirs(tree)
    suites = _regression_references(tree)
    snapshots = _snapshot_files(tree)
    mentions = _readme_output_mentions(tree)
    figures = [p for p in tree.files if _is_result_figure(tree, p, documentation, written)]
    notebook_outputs: list[tuple[str, int]] = []   # (notebook, first cell with stored output)
    for path in tree.by_type("notebook"):
        index = _stored_output_cell(tree, path)
        if index is not None:
            notebook_outputs.append((path, index))
    counts = {
        "output_dirs": len(dirs),
        "test_output_dirs": len(test_dirs),
        "snapshot_files": len(snapshots),
        "readme_mentions": len(mentions),
        "figures": len(figures),
        "notebooks_with_outputs": len(notebook_outputs),
    }
    if suites:
        counts["regression_suites"] = len(suites)
    if dirs or test_dirs or suites or snapshots:
        groups = [(d, files, "output directory", "expected_outputs.output_dir") if writer is None else
                  (d, files, f"output directory the code writes into ({writer[0]}:{writer[1]})",
                   "expected_outputs.written_output_dir") for d, files, writer in dirs]
        groups += [(d, files, "test expected-output folder", "expected_outputs.test_output_dir")
                   for d, files in test_dirs]
        groups += [(d, files, "regression suite whose cases keep reference outputs,",
                    "expected_outputs.regression_references") for d, files in suites]
        shown_snapshots = snapshots[: MAX_EVIDENCE // 4] if groups else snapshots
        evidence = _dir_evidence(groups, MAX_EVIDENCE - len(shown_snapshots))
        evidence += [Evidence(p, "committed nf-test snapshot", rule="expected_outputs.snapshot")
                     for p in shown_snapshots]
        names = [d for d, _, _ in dirs] + [d for d, _ in test_dirs] + [d for d, _ in suites]
        if snapshots:
            names.append(f"{len(snapshots)} nf-test snapshot{'s' if len(snapshots) != 1 else ''}")
        return Result(100, evidence=evidence[:MAX_EVIDENCE], counts=counts,
                      reason=f"reference outputs committed in {_join_names(names)}")
    form = _REFERENCE_FORM[fix_ecosystem(tree)]
    if mentions:
        return Result(60, evidence=mentions[:MAX_EVIDENCE], counts=counts,
                      fix=f"Commit the reference outputs of a run in results/ (tables, figures; or {form}) next to the "
                          "README description.",
                      reason="the README describes the expected output, but no output directory is committed")
    if figures or notebook_outputs:
        evidence = _figure_evidence(figures)
        evidence += [Evidence(path, f"notebook with stored outputs (first in cell {index})",
                              rule="expected_outputs.notebook_outputs", line_start=1, cell=index,
                              snippet=tree.snippet(path, 1, index) or "")
                     for path, index in notebook_outputs[: MAX_EVIDENCE - len(evidence)]]
        return Result(40, evidence=evidence, counts=counts,
                      fix=f"Collect the reference outputs in a results/ directory (or {form}) and describe them under an "
                          "'Expected output' README heading.",
                      reason="only figures or notebook outputs are committed")
    return Result(0, counts=counts,
                  fix=f"Commit the outputs of a reference run in results/ (or {form}) and describe the expected output "
                      "in the README.",
                  reason="no committed outputs, output directory or README description of expected output")
