"""D6 docstring_coverage: the public definitions of every language of the tree are documented."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass

from scoring.detectors._shared import (
    JULIA,
    MATLAB,
    NATIVE,
    NEXTFLOW,
    PYTHON,
    SNAKEMAKE,
    R,
    fix_ecosystem,
)
from scoring.detectors.documentation._common import MAX_EVIDENCE
from scoring.facts import CommentFact, FileFacts
from scoring.model import Evidence
from scoring.registry import Result, detector
from scoring.tree import TreeIndex


@dataclass(frozen=True)
class _Definition:
    """One public definition of D6's denominator."""

    language: str
    path: str
    name: str
    line: int
    documented: bool
    header: str = ""      # the signature line when the frontend kept it (Python)


# What each language calls a public definition (one, several), its documentation (the
# evidence) and what the fix asks for.
_LANGUAGE_TERMS = {
    "python": ("public definition", "public definitions", "docstring",
               "add a docstring to each public function, class and method"),
    "r": ("R function", "R functions", "roxygen block",
          "add a roxygen #' block (title, @param, @return) above each R function"),
    "julia": ("exported name", "exported Julia names", "docstring",
              'add a docstring ("""…""") directly above each exported function or type'),
    "matlab": ("MATLAB function", "MATLAB functions and classes", "help block",
               "add a help comment block (% lines right below the function or classdef line)"),
    "c_cpp": ("header declaration", "header declarations", "Doxygen comment",
              "add a Doxygen comment (/// or /** */) above each declaration in the headers"),
    "fortran": ("Fortran procedure", "Fortran procedures", "FORD comment",
                "add a FORD !> comment block above each public procedure"),
    "nextflow": ("Nextflow process or workflow", "Nextflow processes and workflows", "meta.yml",
                 "describe each module in a meta.yml beside its main.nf, as nf-core modules do"),
}
_LANGUAGE_ORDER = tuple(_LANGUAGE_TERMS)
# The languages of each fix ecosystem's own definitions (a Snakefile's functions are
# Python): the fix asks for them first.
_ECOSYSTEM_LANGUAGES = {
    PYTHON: ("python",), R: ("r",), JULIA: ("julia",), MATLAB: ("matlab",), NATIVE: ("c_cpp", "fortran"),
    NEXTFLOW: ("nextflow",), SNAKEMAKE: ("python",),
}

# @overload stubs and property setters/deleters share the main definition's docs; the
# decorators are the frontend's dotted names, import aliases resolved
_SKIP_DECORATORS = re.compile(r"(?:typing\.)?overload|\w+\.(?:setter|deleter)")

# The header suffixes of the C/C++ frontend: D6 reads a native code's API where its users
# read it, in the declarations of its headers.
_HEADER_SUFFIXES = frozenset({".h", ".hh", ".hpp", ".hxx", ".cuh"})
# The manifests of a package whose build compiles native sources into its own modules:
# its users call the host language's API, and only the headers the build installs or an
# include/ folder exposes are a native API. R CMD INSTALL never installs src/; a setup.py
# may also be the Python binding of a native code, whose headers stay its API.
_R_PACKAGE_MANIFESTS = ("DESCRIPTION",)
_PYTHON_PACKAGE_MANIFESTS = ("setup.py", "setup.cfg", "pyproject.toml")
# the quoted header paths of setup(headers=[…]) (setuptools installs them)
_QUOTED_HEADER_RE = re.compile(r"""["']([^"'\s]+\.(?:h|hh|hpp|hxx|cuh))["']""")
# MATLAB folders whose functions callers outside cannot reach (private/) or are told not
# to (+internal packages)
_MATLAB_HIDDEN_DIRS = frozenset({"private", "+internal"})
_FORTRAN_PROCEDURES = frozenset({"subroutine", "function"})
_NEXTFLOW_UNITS = frozenset({"process", "workflow"})


def _skipped_by_decorator(decorators: tuple[str, ...]) -> bool:
    return any(_SKIP_DECORATORS.fullmatch(d) for d in decorators)


def _line_end(comment: CommentFact) -> int:
    return comment.line_end


def _line_start(comment: CommentFact) -> int:
    return comment.line_start


def _comment_ending_at(comments: tuple[CommentFact, ...], line: int) -> CommentFact | None:
    """The comment block whose last line is ``line``. Comment blocks come in document
    order, so a binary search finds it without a pass over a file's comments."""
    index = bisect_left(comments, line, key=_line_end)
    return comments[index] if index < len(comments) and comments[index].line_end == line else None


def _doc_ending_at(comments: tuple[CommentFact, ...], line: int) -> CommentFact | None:
    """A documentation block closing on the definition's own line (a Julia @doc string
    whose closing quotes precede the method it documents)."""
    block = _comment_ending_at(comments, line)
    return block if block is not None and block.doc else None


def _ford_block_above(facts: FileFacts, line: int) -> CommentFact | None:
    """The comment block above a Fortran procedure's ``line``: the one ending right
    above, or a FORD block (a !> block and the plain ! lines continuing it) with nothing
    but blank lines between, which FORD attaches to the procedure below."""
    index = bisect_left(facts.comments, line, key=_line_end) - 1
    if index < 0:
        return None
    block = facts.comments[index]
    if block.line_end == line - 1:
        return block
    blank = set(facts.blank_lines)
    if any(number not in blank for number in range(block.line_end + 1, line)):
        return None
    if not block.doc and index > 0 and facts.comments[index - 1].line_end == block.line_start - 1:
        block = facts.comments[index - 1]
    return block if block.doc and block.text.startswith("!>") else None


def _comment_starts_at(comments: tuple[CommentFact, ...], line: int) -> bool:
    return _comment_starting_at(comments, line) is not None


def _comment_starting_at(comments: tuple[CommentFact, ...], line: int) -> CommentFact | None:
    index = bisect_left(comments, line, key=_line_start)
    return comments[index] if index < len(comments) and comments[index].line_start == line else None


# a `//` line that describes nothing: a commented-out statement, a directive with its
# value (`//publishDir "$params.out"`, `// cpus 4`) or a section label (`// input:`), or
# a work note (`// TODO: …`)
_NEXTFLOW_COMMENTED_CODE = re.compile(r"//\s*(?:(?:input|output|script|shell|exec|when|stub)\s*:"
                                      r"|(?:TODO|FIXME|XXX|HACK)\b|[A-Za-z_]\w*\s*[(\[\"'$\d{])")


# --------------------------------------------------------------------------- languages

def _python(tree: TreeIndex, paths: list[str]) -> Iterator[_Definition]:
    """Module-level functions and classes and the methods of public classes, as the
    Python frontend reads public; @overload stubs and property setters are skipped."""
    for path in paths:
        facts = tree.facts(path)
        if facts is None:
            continue
        yield from _python_definitions(path, facts, "python")


def _python_definitions(path: str, facts: FileFacts, language: str) -> Iterator[_Definition]:
    parsed = facts.parse_error is None
    for definition in facts.definitions:
        if not definition.public or definition.kind not in ("function", "class", "method"):
            continue
        if parsed and definition.kind != "class" and _skipped_by_decorator(definition.decorators):
            continue
        yield _Definition(language, path, definition.name, definition.line, definition.documented,
                          definition.header or definition.name)


def _snakemake(tree: TreeIndex, paths: list[str]) -> Iterator[_Definition]:
    """The Python functions and classes of Snakefiles (rules are not API)."""
    for path in paths:
        facts = tree.facts(path)
        if facts is not None:
            yield from _python_definitions(path, facts, "python")


def _r(tree: TreeIndex, paths: list[str]) -> Iterator[_Definition]:
    """Top-level functions (``name <- function``) of .R files; in a package with a
    NAMESPACE file only those it exports (export(), exportPattern()); documented by a
    roxygen ``#'`` block above."""
    namespaces = {}
    for path in tree.match("NAMESPACE"):
        if tree.role(path) not in ("vendored", "test"):
            namespace = tree.r_namespace(path)
            if namespace is not None:
                namespaces[path.rpartition("/")[0]] = namespace
    # the deepest package folder first: a package nested in an analysis repository
    roots = sorted(namespaces, key=len, reverse=True)
    for path in paths:
        facts = tree.facts(path)
        if facts is None:
            continue
        root = next((r for r in roots if not r or path.startswith(r + "/")), None)
        namespace = None if root is None else namespaces[root]
        for definition in facts.definitions:
            public = definition.public if namespace is None else namespace.exported(definition.name)
            if public:
                yield _Definition("r", path, definition.name, definition.line, definition.documented)


def _julia(tree: TreeIndex, paths: list[str]) -> Iterator[_Definition]:
    """The names ``export`` statements list, over the whole tree (a package exports in
    its module file what its included files define); a name is documented when a
    docstring stands above one of its definitions or a ``@doc`` call documents it,
    undocumented when neither (a re-exported or undefined name included)."""
    exported: dict[str, tuple[str, int]] = {}
    documented: set[str] = set()
    defined_at: dict[str, tuple[str, int]] = {}
    documented_at: dict[str, tuple[str, int]] = {}   # a @doc of a name or signature defining nothing
    for path in paths:
        facts = tree.facts(path)
        if facts is None:
            continue
        for export in facts.exports:
            exported.setdefault(export.name, (path, export.line))
        if tree.role(path) in ("test", "vendored"):
            continue   # a test's docstring documents nothing a user calls
        for definition in facts.definitions:
            name = definition.name.rsplit(".", 1)[-1]
            (documented_at if definition.kind == "signature" else defined_at).setdefault(name, (path, definition.line))
            if definition.documented:
                documented.add(name)
    for name, (export_path, export_line) in exported.items():
        path, line = defined_at.get(name) or documented_at.get(name, (export_path, export_line))
        if tree.role(export_path) in ("test", "vendored"):
            path, line = export_path, export_line   # excluded with the file that exports it
        yield _Definition("julia", path, name, line, name in documented)


def _matlab(tree: TreeIndex, paths: list[str]) -> Iterator[_Definition]:
    """Each file's main function and each class (local functions and methods share
    the file's help), outside private/ folders and +internal packages; documented by a
    help block: the comment lines below the function line, or right above it."""
    for path in paths:
        facts = tree.facts(path)
        if facts is None:
            continue
        for definition in facts.definitions:
            if definition.public and definition.kind in ("function", "class"):
                yield _Definition("matlab", path, definition.name, definition.line, definition.documented)


def _c_cpp(tree: TreeIndex, paths: list[str]) -> Iterator[_Definition]:
    """Public declarations of headers (functions, classes, structs, methods, function-like
    macros; no name with a leading underscore, as the C/C++ frontend reads public);
    documented by a Doxygen comment, or a comment block ending right above the
    declaration (the way most native codes document a header). A macro defined again in
    the same header (another preprocessor branch) is one declaration, documented (and
    shown) where one of its definitions is."""
    for path in paths:
        facts = tree.facts(path)
        if facts is None:
            continue
        comments = facts.comments
        found: list[_Definition] = []
        macros: dict[str, int] = {}     # macro name -> its index in found
        for definition in facts.definitions:
            if not definition.public:
                continue
            documented = definition.documented or _comment_ending_at(comments, definition.line - 1) is not None
            if definition.kind == "macro" and definition.name in macros:
                index = macros[definition.name]
                if documented and not found[index].documented:
                    # shown where it is documented
                    found[index] = _Definition("c_cpp", path, definition.name, definition.line, True)
                continue
            if definition.kind == "macro":
                macros[definition.name] = len(found)
            found.append(_Definition("c_cpp", path, definition.name, definition.line, documented))
        yield from found


def _installed_headers(tree: TreeIndex) -> set[str]:
    """The headers a setup.py's ``setup(headers=[…])`` installs, as tree paths."""
    installed: set[str] = set()
    for setup in tree.files:
        if setup.rpartition("/")[2] != "setup.py" or (facts := tree.facts(setup)) is None:
            continue
        folder = setup.rpartition("/")[0]
        for call in facts.calls:
            if call.name.rpartition(".")[2] != "setup":
                continue
            for keyword, value in call.kwargs:
                if keyword == "headers":   # a list: an expression, its text cut to 80 characters
                    text = getattr(value, "text", "")
                    installed.update(f"{folder}/{h}" if folder else h for h in _QUOTED_HEADER_RE.findall(text))
    return installed


def _under_manifest(tree: TreeIndex, path: str, manifests: tuple[str, ...]) -> bool:
    """Whether one of ``manifests`` stands in the folder of ``path`` or above."""
    parts = path.split("/")[:-1]
    for depth in range(len(parts), -1, -1):
        folder = "/".join(parts[:depth])
        if any(tree.is_file(f"{folder}/{m}" if folder else m) for m in manifests):
            return True
    return False


def _private_headers(tree: TreeIndex, headers: list[str]) -> set[str]:
    """The headers of an R or Python package that its build neither installs nor
    exposes: not under an include/ folder (inst/include/ in R) and not in
    setup(headers=…). Under a Python manifest only when the deposit is a Python package
    (its fix ecosystem, the language of most source files): a native code that ships a
    Python binding keeps its headers as its API."""
    python_package = fix_ecosystem(tree) == PYTHON
    candidates = [p for p in headers if "include" not in p.split("/")[:-1]
                  and (_under_manifest(tree, p, _R_PACKAGE_MANIFESTS)
                       or python_package and _under_manifest(tree, p, _PYTHON_PACKAGE_MANIFESTS))]
    if not candidates:
        return set()
    installed = _installed_headers(tree)
    return {p for p in candidates if p not in installed}


def _fortran(tree: TreeIndex, paths: list[str]) -> Iterator[_Definition]:
    """Public subroutines and functions (module procedures by the module's
    public/private statements and the bindings of its public derived types, as the
    Fortran frontend reads them); documented by a FORD comment (also a !> block
    separated by blank lines), or a comment block right above the procedure or right
    below its first line."""
    for path in paths:
        facts = tree.facts(path)
        if facts is None:
            continue
        comments = facts.comments
        for definition in facts.definitions:
            if definition.public and definition.kind in _FORTRAN_PROCEDURES:
                line = definition.line
                yield _Definition("fortran", path, definition.name, line, definition.documented
                                  or _comment_ending_at(comments, line - 1) is not None
                                  or _comment_starts_at(comments, line + 1))


def _nextflow(tree: TreeIndex, paths: list[str]) -> Iterator[_Definition]:
    """Named processes and workflows of .nf files; documented by the module's meta.yml
    (the nf-core layout: main.nf beside meta.yml), a Groovydoc ``/** */`` above, or a
    comment block (any form) opening the body on the line below the definition line:
    the process's description, Groovy's analogue of a docstring, unless it is a
    commented-out directive or section (``//publishDir "…"``, ``// input:``) or a work
    note (``// TODO: …``). A plain
    ``//`` note above is a comment (D4), not a description."""
    for path in paths:
        facts = tree.facts(path)
        if facts is None:
            continue
        folder = path.rpartition("/")[0]
        described = tree.is_file(f"{folder}/meta.yml" if folder else "meta.yml")
        for definition in facts.definitions:
            if definition.kind not in _NEXTFLOW_UNITS or not definition.name:
                continue
            line = definition.line
            above = _comment_ending_at(facts.comments, line - 1)
            opening = _comment_starting_at(facts.comments, line + 1)
            yield _Definition("nextflow", path, definition.name, line,
                              described or (above is not None and above.doc)
                              or opening is not None and not _NEXTFLOW_COMMENTED_CODE.match(opening.text))


def _files(tree: TreeIndex, frontend: str) -> list[str]:
    """The files of ``frontend`` whose definitions D6 reads."""
    if frontend == "python":
        return tree.by_type("python")   # .py/.pyw: notebooks are not counted (§3 D6)
    paths = tree.by_frontend(frontend)
    if frontend == "r":
        # R Markdown and Quarto chunks are documents, not a package's API
        return [p for p in paths if tree.info(p).suffix == ".r"]
    if frontend == "matlab":
        return [p for p in paths if not any(part in _MATLAB_HIDDEN_DIRS for part in p.split("/")[:-1])]
    if frontend == "c_cpp":
        return [p for p in paths if tree.info(p).suffix in _HEADER_SUFFIXES]
    if frontend == "nextflow":
        return [p for p in paths if p.endswith(".nf")]   # not the configuration files
    return paths


# (frontend, collector over the frontend's files)
_COLLECTORS = (
    ("python", _python),
    ("snakemake", _snakemake),
    ("r", _r),
    ("julia", _julia),
    ("matlab", _matlab),
    ("c_cpp", _c_cpp),
    ("fortran", _fortran),
    ("nextflow", _nextflow),
)


# --------------------------------------------------------------------------- the metric

def _documented_evidence(tree: TreeIndex, documented: list[_Definition], room: int) -> list[Evidence]:
    """Documented definitions, each file's first before a second of any file, from the
    comment block ending right above one (roxygen, Doxygen, FORD, a Julia docstring), or
    the documentation closing on its line (a Julia @doc string), to its line."""
    if room <= 0:
        return []
    seen: set[str] = set()
    first, rest = [], []
    for d in documented:
        (rest if d.path in seen else first).append(d)
        seen.add(d.path)
    shown = sorted((first + rest)[:room], key=lambda d: (d.path, d.line))
    evidence = []
    for d in shown:
        facts = tree.facts(d.path)
        block = None if facts is None else _ford_block_above(facts, d.line) if d.language == "fortran" \
            else _comment_ending_at(facts.comments, d.line - 1) or _doc_ending_at(facts.comments, d.line)
        unit, _units, doc, _advice = _LANGUAGE_TERMS[d.language]
        evidence.append(Evidence(d.path, f"{unit} '{d.name}' is documented",
                                 rule="docstring_coverage.documented",
                                 line_start=block.line_start if block is not None else d.line, line_end=d.line,
                                 snippet=tree.snippet(d.path, d.line)))
    return evidence


def _fix(ecosystem: str, missing: list[_Definition]) -> str | None:
    """One clause per language with undocumented definitions, in its ecosystem's terms,
    the deposit's own languages first (``fix_ecosystem``)."""
    if not missing:
        return None
    clauses = []
    own = _ECOSYSTEM_LANGUAGES[ecosystem]
    for language in sorted(_LANGUAGE_ORDER, key=lambda k: k not in own):
        mine = [d for d in missing if d.language == language]
        if mine:
            unit, units, _doc, advice = _LANGUAGE_TERMS[language]
            first = mine[0]
            clauses.append(f"{advice} ({len(mine)} undocumented {units if len(mine) > 1 else unit}, starting with '{first.name}' in "
                           f"{first.path}:{first.line})")
    text = "; ".join(clauses)
    return text[0].upper() + text[1:] + "."


@detector("docstring_coverage", version="3.9.0")
def docstring_coverage(tree: TreeIndex) -> Result:
    """Public definitions are documented, pooled over every language of the tree.

    What it checks:
        Value = 100 × documented / public over the public definitions of every language
        the tree uses (METRICS §0.3, replacing §0.1.26), each read as its ecosystem
        documents its API:
        Python (.py/.pyw, and the functions of Snakefiles): module-level functions and
        classes whose name does not start with "_" (also inside module-level if/try/with
        blocks) and the methods of public classes (dunder methods excluded; @overload
        stubs and property setters/deleters skipped), documented by a non-empty
        docstring; files that do not parse fall back to a line scan.
        R (.R files): top-level functions, documented by a roxygen #' block directly
        above (plain # lines such as "# nolint" may stand between); in a package with a
        NAMESPACE file only the names it exports (export(), exportPattern(), whose POSIX
        bracket classes such as ``[[:alpha:]]`` are read as R reads them) count.
        Julia: the names export statements list, pooled over the tree; a name is
        documented when a docstring stands above one of its definitions or a @doc call
        documents it (@doc "…" f, @doc raw"…" f(x) = …, @doc (@doc g) f: Julia attaches
        the text to the name or method signature it is written before); a docstring
        above `const a = b`, a binding `a = b` or a bare name `a` documents that name
        (3.7.0: an alias of another function, a name whose methods a macro such as
        @recipe defines). A file whose whole parse the Julia grammar loses to one error
        (`v[begin+1:end-1]` can do it) is read in top-level chunks by the Julia
        frontend, so the docstrings of every statement that parses still count and
        only the failing statement's are lost (§0.1.9; 3.9.0).
        MATLAB/Octave: each file's main function and each classdef, outside private/
        folders and +internal packages, documented by a help comment block (below the
        function line, or above it: the file's first comment block, even when a change
        log or copyright block follows it before the function line, as MATLAB's help
        prints it; 3.5.0).
        C/C++: public declarations in headers (.h, .hpp, .hh, .hxx, .cuh): function
        prototypes and definitions, classes and structs with a body, public methods, and
        function-like macros (#define f(x) …), which are what macro-generic C libraries
        (khash's kh_put, kseq's KSEQ_INIT) give their users to call and which Doxygen
        documents as it does functions; a macro defined again in another preprocessor
        branch of the same header counts once. Object-like macros (constants, include
        guards) are not definitions, as module constants are none in Python. A name with
        a leading underscore is never public: C and C++ reserve such names for the
        implementation (__x and _X everywhere, every _x at file scope), so a library that
        uses one marks an internal (struct __kstring_t, __ac_isempty). Documented by a
        Doxygen comment (///, //!, /** */, /*! */, a trailing ///<) or a comment block
        ending directly above. Only public headers count (§0.3): a header is public when
        the build installs or exposes it. In a Python or R package (a setup.py,
        setup.cfg, pyproject.toml or DESCRIPTION in the header's folder or above) the
        native sources are compiled into the package's own modules and its users call
        the R or Python API, so only the headers under an include/ folder (R's
        inst/include/, which R CMD INSTALL installs for LinkingTo) or listed in
        setup(headers=[…]) are public; the others (an R package's src/*.h, a C
        extension's helper header) are private, reported as c_cpp_private_headers in
        counts (3.8.0). Under a setup.py, setup.cfg or pyproject.toml only when the
        deposit is a Python package (Python has the most source files): a native code's
        headers are all public, also when it ships a Python binding beside them (a
        setup.py building a module of the C library), since its users compile against
        them.
        Fortran: public subroutines and functions (module public/private statements
        applied; a procedure bound to a public derived type by a public binding, or a
        specific of a public generic binding, is public: object-oriented libraries
        expose their API so), documented by a FORD comment (!>, !!; a !> block and the
        plain ! lines continuing it also across blank lines, as FORD attaches it) or a
        comment block directly above the procedure or directly below its first line.
        Nextflow: named processes and workflows, documented by a meta.yml beside the
        module (nf-core), a Groovydoc /** */ comment above, or a comment block (//, /*
        */ or /** */) opening the body on the line below the process or workflow line:
        the process description §0.3 names (3.5.0), unless it is a commented-out
        directive with its value or a section label (`//publishDir "…"`, `// cpus 4`,
        `// input:`) or a work note (`// TODO: …`, FIXME, XXX, HACK). A plain // note above a process is a comment (D4's `//`
        comments), not its description.
        Test files and vendored files (file roles, METRICS §0.2.1-3) are out of the
        denominator and reported separately in counts. No public definition at all →
        50, not applicable. Notebooks and R Markdown are not counted.
    Why it matters:
        Docstrings, roxygen blocks and header comments tell a re-user what a function
        expects and returns without reading its body; they are the smallest unit of API
        documentation.
    Evidence:
        The first undocumented public definitions (path, line, signature line), up to
        20, the project's own source files before documentation and build files; in the
        room left, documented ones, each file's first before a second, from the
        comment block ending right above one (a roxygen, Doxygen or FORD block) to its
        line. ``counts`` has public_defs and documented_defs (pooled), <language>_public_defs
        and <language>_documented_defs for each language counted, files and
        files_unparsed, and the public definitions left out as test_defs_excluded and
        vendored_defs_excluded.
    How to fix:
        Document each listed definition the way its language does: a docstring for
        Python and Julia, a roxygen #' block for R, a help comment block for MATLAB, a
        Doxygen /// or /** */ comment for C/C++, a FORD !> comment for Fortran, a
        meta.yml for a Nextflow module; the fix names the deposit's own languages first
        (the processes of a Nextflow workflow before its Python helpers).
    Known false positives:
        A one-word docstring counts as documented, and in native headers any comment
        directly above a declaration counts. Functions that are public only by naming
        (helpers in an R or Python script) are expected to be documented too. In Python
        files that do not parse, definitions inside if/try blocks are missed. Build files
        (setup scripts, a Sphinx conf.py and its hooks such as linkcode_resolve,
        noxfile.py) are counted: METRICS §0.2.2 takes build files out of C2 and S6 only,
        and §3 D6 counts every public definition of a .py file; their definitions are
        listed after the project's own. An R function documented only by a hand-written
        man/<name>.Rd page counts as undocumented: §0.3 names roxygen blocks as R's
        documentation for D6. In C/C++ headers, helper macros a header defines for its
        own use (MAX(a, b), a logging shorthand) are counted as API like the rest, and a
        type named only by a typedef (typedef struct {…} name_t;) is not counted. A
        Nextflow process whose body opens with a commented-out statement that is not a
        directive with its value or a section label (`//tag = x`) counts as described.
    """
    counted: list[_Definition] = []
    excluded = {"test": 0, "vendored": 0}
    files = unparsed = 0
    private_headers: set[str] = set()
    for frontend, collect in _COLLECTORS:
        paths = _files(tree, frontend)
        if frontend == "c_cpp":
            private_headers = _private_headers(tree, [p for p in paths if tree.role(p) not in excluded])
            paths = [p for p in paths if p not in private_headers]
        for path in paths:
            if tree.role(path) in excluded:
                continue
            facts = tree.facts(path)
            if facts is not None:
                files += 1
                unparsed += facts.parse_error is not None
        for definition in collect(tree, paths):
            role = tree.role(definition.path)
            if role in excluded:
                excluded[role] += 1
            else:
                counted.append(definition)
    # evidence in path order, each file's definitions in the order its facts give them;
    # the project's own code before its documentation and build files (a Sphinx conf.py
    # hook is not what a re-user calls first)
    counted.sort(key=lambda d: (tree.role(d.path) != "source", d.path))
    missing = [d for d in counted if not d.documented]
    public, documented = len(counted), len(counted) - len(missing)
    counts = {"public_defs": public, "documented_defs": documented, "files": files, "files_unparsed": unparsed}
    for language in _LANGUAGE_ORDER:
        mine = [d for d in counted if d.language == language]
        if mine:
            counts[f"{language}_public_defs"] = len(mine)
            counts[f"{language}_documented_defs"] = sum(d.documented for d in mine)
    counts["test_defs_excluded"] = excluded["test"]
    counts["vendored_defs_excluded"] = excluded["vendored"]
    if private_headers:
        counts["c_cpp_private_headers"] = len(private_headers)
    if not public:
        reason = "no source files of a measured language" if files == 0 else "no public definitions"
        return Result(50, applicable=False, counts=counts, reason=reason)
    evidence = []
    for d in missing[:MAX_EVIDENCE]:
        unit, _units, doc, _advice = _LANGUAGE_TERMS[d.language]
        evidence.append(Evidence(d.path, f"{unit} '{d.name}' has no {doc}",
                                 rule="docstring_coverage.undocumented", line_start=d.line,
                                 snippet=d.header or tree.snippet(d.path, d.line)))
    evidence += _documented_evidence(tree, [d for d in counted if d.documented], MAX_EVIDENCE - len(evidence))
    return Result(100 * documented / public, evidence=evidence, fix=_fix(fix_ecosystem(tree), missing), counts=counts,
                  reason=f"{documented} of {public} public definitions documented")
