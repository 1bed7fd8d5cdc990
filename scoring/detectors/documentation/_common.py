"""What several category D detectors share: commands in documents and what they
run (D2, D3, D5), console scripts (D3, D5) and the README section families (D1, D5).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from scoring.detectors._shared import own_project_names
from scoring.facts import FileFacts
from scoring.parsers.manifests import normalize_name
from scoring.parsers.markdown import Document, InlineCode
from scoring.parsers.native_build import native_build_kind
from scoring.parsers.shell import (
    Command,
    command_lines,
    split_commands,
    strip_comment,
    strip_prompt,
)
from scoring.tree import TreeIndex

# Evidence lists stay short enough to read; totals always go to ``counts``.
MAX_EVIDENCE = 20

_B = r"(?<![A-Za-z0-9])"   # whole-word boundaries (§0.1.12)
_E = r"(?![A-Za-z0-9])"


def _word_re(alternatives: str) -> re.Pattern[str]:
    return re.compile(f"{_B}(?:{alternatives}){_E}", re.IGNORECASE)


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def _stem(path: str) -> str:
    name = _name(path)
    dot = name.rfind(".")
    return name[:dot] if dot > 0 else name


def _file_line(doc: Document, line: int) -> int | None:
    """A document line as a file line. A notebook README's document is its markdown cells
    joined, whose line numbers are not lines of the ``.ipynb`` file."""
    return None if doc.path.lower().endswith(".ipynb") else line


# --------------------------------------------------------------------------- commands in documents

@dataclass(frozen=True)
class DocLine:
    """One logical code line of a prose document, console prompt removed."""

    path: str
    line: int | None    # None in a notebook README (see _file_line)
    text: str
    repl: bool          # ``>>>`` / ``...`` Python REPL input
    in_block: bool      # from a code block (False: inline code)
    language: str = ""  # the code block's language (CodeBlock.language)

    @property
    def commands(self) -> list[Command]:
        return [] if self.repl else split_commands(self.text)

    @property
    def code(self) -> str:
        """The line without the comment its block's language writes (``%`` in a MATLAB
        or Octave block, ``#`` elsewhere: R, Python, Julia, shell): a commented-out
        ``# install.packages("x")`` is no install."""
        return strip_comment(self.text, "%" if self.language in MATLAB_BLOCKS else "#").strip()


# code blocks of MATLAB/Octave code: `>>` is their prompt and `%` starts a comment
MATLAB_BLOCKS = frozenset({"matlab", "octave"})
_MATLAB_PROMPT = re.compile(r"^\s*>>\s?(?!>)")


def doc_lines(doc: Document, *, inline: bool = True) -> list[DocLine]:
    """Code-block lines (backslash continuations joined), inline code spans and the prose
    lines that start with a shell prompt (a list item, a blockquote, a plain-text README:
    METRICS.md §0.2.10) of ``doc``. In a MATLAB/Octave block the ``>>`` prompt is
    stripped and comment lines (``% …``) are no lines. ``inline=False``: the lines a
    reader sees displayed as code only (D3 V2 counts block lines and §0.2.10 prompt
    lines): no inline code inside a sentence or a list item, but a line that holds
    nothing but one inline code span, a one-line code display; a prompt line's
    backticks are only markup (``$ `python main.py` ``)."""
    out: list[DocLine] = []
    for block in doc.code_blocks:
        language = block.language
        for offset, logical in command_lines(block.text):
            if language in MATLAB_BLOCKS:
                text, repl = _MATLAB_PROMPT.sub("", logical, count=1).strip(), False
                if not strip_comment(text, "%").strip():
                    continue
            else:
                text, repl = strip_prompt(logical)
            if text:
                out.append(DocLine(doc.path, _file_line(doc, block.line_start + offset - 1), text, repl, True,
                                   language))
    for span in doc.inline_code:
        if not inline and not _displayed_alone(doc, span):
            continue
        text, repl = strip_prompt(span.text)
        if text:
            out.append(DocLine(doc.path, _file_line(doc, span.line), text, repl, False))
    for prompt in doc.prompt_lines:
        if "`" in prompt.text and inline:
            continue   # its inline code is read as such
        text, _repl = strip_prompt(prompt.text.replace("`", ""))
        if text:
            out.append(DocLine(doc.path, _file_line(doc, prompt.line), text, False, False))
    return out


def _displayed_alone(doc: Document, span: InlineCode) -> bool:
    """Whether ``span`` fills its line on its own, with no prose or list marker around it
    (`` `nextflow run x --in y` `` as a paragraph of its own)."""
    raw = doc.raw_lines[span.line - 1].strip() if 0 < span.line <= len(doc.raw_lines) else ""
    return raw.startswith("`") and raw.strip("`").strip() == span.text.strip()


_PYTHON_PROGRAM = re.compile(r"(?:python|pythonw|py)(?:\d+(?:\.\d+)*)?(?:\.exe)?", re.IGNORECASE)
# the interpreter as a shell names it: lower case (`Python (3.7.5)` is a version list's
# entry); only Windows' `.exe` suffix is free of case
_PYTHON_RUN_PROGRAM = re.compile(r"(?:python|pythonw|py)(?:\d+(?:\.\d+)*)?(?:\.(?i:exe))?")
# a script argument is a file path (`run.py`, `scripts/fit.py`, `$SRC/x.py`, `C:\\a\\b.py`),
# never a version written after a program's name (`(3.7.5)`, `3.8`)
_SCRIPT_PATH = re.compile(r"[\w.~/${}<>\\:+%@ -]+")
_VERSION_WORD = re.compile(r"\(?v?\d+(?:\.\d+)*\+?\)?")


def runs_python(program: str) -> bool:
    """Whether a command's program is the Python interpreter, as a shell names it."""
    return bool(_PYTHON_RUN_PROGRAM.fullmatch(program))


_SHELL_PROGRAMS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
_PYTHON_VALUE_OPTIONS = frozenset({"-W", "-X", "-Q"})


def _python_target(args: Sequence[str]) -> tuple[str, str, tuple[str, ...]] | None:
    """What a ``python`` command runs: ``("module"|"script"|"code", target, rest)``."""
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "-m" or arg == "-c":
            if i + 1 >= len(args):
                return None
            return ("module" if arg == "-m" else "code", args[i + 1], tuple(args[i + 2:]))
        if arg.startswith("-m") and len(arg) > 2:
            return "module", arg[2:], tuple(args[i + 1:])
        if arg in _PYTHON_VALUE_OPTIONS:
            i += 2
            continue
        if arg.startswith("-"):
            i += 1
            continue
        if not _SCRIPT_PATH.fullmatch(arg) or _VERSION_WORD.fullmatch(arg):
            return None
        return "script", arg, tuple(args[i + 1:])
    return None


# Script stems that set up an environment rather than run the analysis (§0.1.25).
_INSTALL_SCRIPT_STEM = re.compile(
    r"(?:install|setup|bootstrap)(?:[_-](?:env|environment|venv|conda|deps|dependencies|requirements|packages|all))?"
    r"|(?:create|make|build|init|setup|install)[_-]?(?:env|environment|venv|conda[_-]?env)"
    r"|env|environment|configure",
    re.IGNORECASE,
)


def _is_install_script(path: str) -> bool:
    return _INSTALL_SCRIPT_STEM.fullmatch(_stem(path)) is not None


# --------------------------------------------------------------------------- project metadata

@dataclass(frozen=True)
class ConsoleScript:
    name: str
    path: str
    line: int | None
    target: str = ""    # "package.module:function" as declared ("" when not read)


# a console_scripts entry string of setup.py: "name = package.module:function [extras]"
_SETUP_PY_ENTRY = re.compile(r"""\s*([A-Za-z0-9][\w.-]*)\s*=\s*([\w.]+\s*(?::\s*[\w.]+)?)[^"']*""")


_QUOTED_SETUP_PY_ENTRY = re.compile(r"""["']\s*([A-Za-z0-9][\w.-]*)\s*=\s*[\w.]+\s*(?::\s*[\w.]+)?[^"']*["']""")


def ini_option(tree: TreeIndex, path: str, section: str, option: str) -> str | None:
    """The value of ``option`` in ``section`` of an INI file (``setup.cfg``), or None."""
    sections = tree.ini(path)
    if sections is None:
        return None
    return sections.get(section, {}).get(option.lower())


def setup_py_console_scripts(facts: FileFacts | None) -> list[tuple[str, int]]:
    """(name, line) of the ``console_scripts`` entries of a setup.py, from its string
    facts: the entry strings that follow the first mention of ``console_scripts``."""
    return [(name, line) for name, line, _target in setup_py_console_entries(facts)]


def setup_py_console_entries(facts: FileFacts | None) -> list[tuple[str, int, str]]:
    """(name, line, "module:function") of the ``console_scripts`` entries of a setup.py.
    A commented-out entry list counts only when no code string names ``console_scripts``
    (a commented-out old list above the live one is no declaration)."""
    if facts is None:
        return []
    mentions = [s.line_start for s in facts.strings if "console_scripts" in s.value]
    mentions += [c.line_start for c in facts.comments if "console_scripts" in c.text]
    if not mentions:
        return []
    start = min(mentions)
    live = [s.line_start for s in facts.strings if "console_scripts" in s.value]
    found: list[tuple[str, int, str]] = []
    for string in facts.strings:
        if string.line_start < (min(live) if live else start) or "console_scripts" in string.value:
            continue
        match = _SETUP_PY_ENTRY.fullmatch(string.value)
        if match is None:
            if found:
                break   # the entry list has ended
            continue
        found.append((match.group(1), string.line_start, re.sub(r"\s+", "", match.group(2))))
    if not live and any(c.line_start == start and "console_scripts" in c.text for c in facts.comments):
        # a commented-out entry list read as one (what the text scan this replaces did)
        for comment in facts.comments:
            if comment.line_end < start:
                continue
            for offset, text in enumerate(comment.text.split("\n")):
                found.extend((m.group(1), comment.line_start + offset, "")
                             for m in _QUOTED_SETUP_PY_ENTRY.finditer(text) if comment.line_start + offset >= start)
        found.sort(key=lambda entry: entry[1])
    return found


def console_scripts(tree: TreeIndex) -> list[ConsoleScript]:
    """Console scripts declared at the root: ``[project.scripts]``/``gui-scripts``,
    ``[tool.poetry.scripts]``, setup.cfg and setup.py ``console_scripts`` entry points."""
    found: list[ConsoleScript] = []
    pyproject = tree.find_ci("pyproject.toml")
    data = tree.toml(pyproject) if pyproject else None
    if isinstance(data, dict):
        keys = tree.key_lines(pyproject)
        project = data.get("project") if isinstance(data.get("project"), dict) else {}
        poetry = data.get("tool", {}).get("poetry", {}) if isinstance(data.get("tool"), dict) else {}
        tables = [project.get("scripts"), project.get("gui-scripts"),
                  poetry.get("scripts") if isinstance(poetry, dict) else None]
        for table in tables:
            if isinstance(table, dict):
                for name, target in table.items():
                    line = keys.line_of(str(name), "=") if keys is not None else None
                    found.append(ConsoleScript(str(name), pyproject, line, target if isinstance(target, str) else ""))
    setup_cfg = tree.find_ci("setup.cfg")
    entries = ini_option(tree, setup_cfg, "options.entry_points", "console_scripts") if setup_cfg else None
    if entries is not None:
        keys = tree.key_lines(setup_cfg)
        for entry in entries.splitlines():
            name = entry.split("=", 1)[0].strip()
            if name and "=" in entry:
                found.append(ConsoleScript(name, setup_cfg,
                                           keys.line_of(name, "=", quoted=False) if keys is not None else None,
                                           re.sub(r"\s+", "", entry.split("=", 1)[1].split("[", 1)[0])))
    setup_py = tree.find_ci("setup.py")
    if setup_py:
        for name, line, target in setup_py_console_entries(tree.facts(setup_py)):
            found.append(ConsoleScript(name, setup_py, line, target))
    return found


def console_script_target_missing(tree: TreeIndex, script: ConsoleScript) -> bool:
    """Whether the function a console script names is surely absent: its module is in
    the tree (``pkg/mod.py``, ``pkg/mod/__init__.py``, under ``src/`` too) and neither
    defines nor imports the function. A module not found says nothing (it may be built)."""
    module, _, function = script.target.partition(":")
    if not module or not function:
        return False
    base = module.replace(".", "/")
    path = next((p for p in (f"{base}.py", f"{base}/__init__.py", f"src/{base}.py", f"src/{base}/__init__.py")
                 if tree.is_file(p)), None)
    facts = tree.facts(path) if path else None
    if facts is None or facts.parse_error:
        return False
    head = function.split(".", 1)[0]
    if any(d.name == head for d in facts.definitions):
        return False
    if any(head in ref.names or head in ref.asnames or ref.module.rsplit(".", 1)[-1] == head for ref in facts.imports):
        return False
    return not any(s.binding == head for s in facts.strings)


# --------------------------------------------------------------------------- README section families (D1, D5)

# A heading longer than this or ending as a sentence does is sentence-like: single family
# words there are words of the sentence, not the section's subject; in a numbered step
# ("Step 1: Install workflow and dependencies", "Step 3: Run") the family word is a verb of
# the step unless it is one of the family's nouns (METRICS §0.2.7: families are matched as
# noun phrases).
_HEADING_WORDS = 8
_STEP_HEADING = re.compile(r"^\s*step\s*\d+\s*[:.)-]", re.IGNORECASE)


def section_headings(doc) -> list:
    """The headings of ``doc`` that can name a section: the document title, its first
    heading when that is a top-level one over deeper section headings, names the project
    and is no section (METRICS.md §0.2.6). A README made of top-level headings only
    (``# Install``, ``# Usage``) has no title."""
    headings = list(doc.headings)
    if headings and headings[0].level == 1 and any(h.level > 1 for h in headings[1:]):
        return headings[1:]
    return headings


def sentence_like(heading: str) -> bool:
    text = heading.strip()
    return len(text.split()) > _HEADING_WORDS or text.endswith((".", "?", "!"))


_SOFTWARE_NOUNS = r"(?:software|packages?|tools|toolbox(?:es)?|librar(?:y|ies)|dependencies|programs|modules)"
_PARENTHETICAL = re.compile(r"\([^()]*\)")


@dataclass(frozen=True)
class _Family:
    key: str
    title: str
    pattern: re.Pattern[str]
    exclude: re.Pattern[str] | None = None
    # the family's multi-word phrases: all that matches in a sentence-like heading
    phrases: re.Pattern[str] | None = None
    # the family's nouns and phrases: what matches in a numbered step heading
    nouns: re.Pattern[str] | None = None

    def matches(self, heading: str) -> bool:
        # a qualifier in parentheses ("Read files (required)", "Docker (optional)") is
        # not the heading's head (§0.2.7)
        heading = _PARENTHETICAL.sub(" ", heading)
        text = self.exclude.sub(" ", heading) if self.exclude else heading
        if sentence_like(heading):
            wanted = self.phrases
        elif _STEP_HEADING.match(heading):
            wanted = self.nouns
        else:
            wanted = self.pattern
        return wanted is not None and wanted.search(text) is not None


FAMILIES: tuple[_Family, ...] = (
    _Family(
        "install", "Installation",
        _word_re(r"install(?:ations?|ing)?|set[ -]?up|getting started|environments?"),
        # §0.1.23: a paper's experimental set-up is not an install section; §0.2.7:
        # "environment variables" are configuration, not installation.
        _word_re(r"experimental set[ -]?up|(?:experimental|simulation) environments?|environment variables?"),
        _word_re(r"getting started|set(?:ting)? up the environment|installation (?:guide|instructions)"),
        _word_re(r"installations?|setup|environments?|getting started"),
    ),
    _Family(
        "run", "Usage",
        # §0.2.8: instructions for use, how to use, demo, replicate/replication
        _word_re(r"usage|run(?:ning)?|execut(?:e|ion|ing)|how to (?:run|use)|quick[ -]?start|reproduc(?:e|ing)|tutorials?"
                 r"|instructions for use|demos?|replicat(?:e|ion|ing)"),
        # "Running time" reports a duration, not how to run (METRICS.md D1 weaknesses).
        _word_re(r"run(?:ning)?[ -]?times?"),
        _word_re(r"how to (?:run|use)|quick[ -]?start|instructions for use"
                 r"|reproduc(?:e|ing) (?:the )?(?:results|figures|paper|analys[ie]s)"),
        _word_re(r"usage|execution|tutorials?|demos?|replication|quick[ -]?start|how to (?:run|use)"),
    ),
    _Family(
        "output", "Expected output",
        # §0.1.23: a bare "Results" heading is a paper section, not an expected output.
        # §0.2 headings: "Figures", "Reproducing the figures" are in the output family
        # §0.3 workflow data: "Pipeline results" is one too (the bare "Results" is not)
        _word_re(r"expected (?:output|result)s?|(?:sample|example|reference) (?:output|result)s?|outputs?|figures"
                 r"|pipeline results?"),
        None,
        _word_re(r"expected (?:output|result)s?|(?:sample|example|reference) (?:output|result)s?|output files"
                 r"|reproduc(?:e|ing) (?:the )?figures|pipeline results?"),
        _word_re(r"expected (?:output|result)s?|(?:sample|example|reference) (?:output|result)s?|outputs?"),
    ),
    _Family(
        "requirements", "Requirements",
        # a heading about required software ("Required Matlab toolboxes", "Necessary
        # tools": required, necessary or needed leading a software noun) is one too; §0.2
        # headings: "Software" (as the heading's head: "Software", "Software used", not
        # "Software license"), "Pre-requisites", "Packages used"
        _word_re(r"(?:system )?requirements?|dependenc(?:y|ies)|pre-?requisites?|hardware|compute"
                 r"|(?:required|necessary|needed)\s+(?:[\w+.-]+\s+)?" + _SOFTWARE_NOUNS +
                 r"|software(?:\s+(?:used|needed))?(?=\s*:?\s*$)|packages? used"),
        None,
        _word_re(r"(?:system|hardware|software|computational) requirements?|packages used"),
        _word_re(r"requirements?|dependenc(?:y|ies)|pre-?requisites?|hardware|software(?=\s*:?\s*$)"),
    ),
)


_USING_HEADING = re.compile(r"^\s*using\s+(?:the\s+)?(.+?)\s*$", re.IGNORECASE)
_NAME_SUFFIX = re.compile(r"\.jl$|[\s-]+(?:package|toolbox|library|pipeline|workflow)$", re.IGNORECASE)


def project_names(tree: TreeIndex, doc: Document | None) -> frozenset[str]:
    """The names a README heading may call the project by, normalised: the names its
    metadata declares (:func:`scoring.detectors._shared.own_project_names`) and the
    README title (the heading :func:`section_headings` leaves out) when it is a short
    name (``# HypothesisTests.jl``)."""
    names = set(own_project_names(tree))
    if doc is not None and doc.headings:
        title = doc.headings[0].text if doc.headings[0] not in section_headings(doc) else ""
        if title and len(title.split()) <= 3:
            names.add(_project_key(title))
    return frozenset(_project_key(n) for n in names if n)


def _project_key(name: str) -> str:
    return normalize_name(_NAME_SUFFIX.sub("", name.strip()))


def run_heading(heading: str, names: frozenset[str]) -> bool:
    """Whether a heading is in the run family: the family's words, or "Using <project
    name>" (METRICS §0.2 headings: "Using minimap2", not "Using Conda")."""
    if FAMILIES[1].matches(heading):
        return True
    using = _USING_HEADING.match(heading)
    return using is not None and _project_key(using.group(1)) in names


# --------------------------------------------------------------------------- runnable commands (D2, D3, D5)

_CONTAINER_TOOLS = frozenset({"docker", "podman"})
_MAKE_INSTALL_TARGETS = frozenset({"setup", "install", "env"})
# go-task (Taskfile.yml) and just (justfile): the targets that set up the environment
_TASK_RUNNERS = frozenset({"task", "just"})
_TASK_SETUP_TARGETS = _MAKE_INSTALL_TARGETS | {"restore", "bootstrap"}

_MAKE_VALUE_OPTIONS = frozenset({"-C", "-f", "-I", "-o", "-W", "--directory", "--file", "--makefile",
                                 "--include-dir", "--old-file", "--what-if", "-l", "--load-average"})
_R_INSTALL_EXPR = re.compile(r"install\.packages|BiocManager::install|(?:devtools|remotes)::install|renv::"
                             r"|Pkg\.(?:add|instantiate)", re.IGNORECASE)
_PIP_LIKE_MODULES = frozenset({"pip", "venv", "virtualenv", "ensurepip", "build", "twine", "conda"})


def _make_targets(args: Sequence[str]) -> list[str]:
    targets: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in _MAKE_VALUE_OPTIONS:
            i += 2
            continue
        if arg == "-j" and i + 1 < len(args) and args[i + 1].isdigit():
            i += 2
            continue
        if not arg.startswith("-") and "=" not in arg:
            targets.append(arg)
        i += 1
    return targets


def _invoked_script(cmd: Command, *, sourcing: bool = False) -> str | None:
    """The script a command runs: ``./x``, ``bash x``/``sh x`` (and ``source x`` when asked)."""
    first = cmd.words[0] if cmd.words else ""
    if first.startswith(("./", "../")):
        return first
    program = cmd.program.lower()
    if program in _SHELL_PROGRAMS or (sourcing and program in ("source", ".")):
        positional = [a for a in cmd.args if not a.startswith("-")]
        if "-c" in cmd.args:
            return None
        return positional[0] if positional else None
    return None


_TARGET_NAME = re.compile(r"[A-Za-z_][\w:.-]*")
_RUNNER_FILES = {"taskfile.yml": "task", "taskfile.yaml": "task", "justfile": "just", ".justfile": "just"}


def task_runners(tree: TreeIndex) -> frozenset[str]:
    """The task runners (``task``, ``just``) whose file the deposit has."""
    return frozenset(_RUNNER_FILES[_name(p).lower()] for p in tree.make_like_files()
                     if _name(p).lower() in _RUNNER_FILES)


def task_targets(cmd: Command, runners: frozenset[str]) -> list[str] | None:
    """The targets a ``task``/``just`` command runs (``[]``: the default one), or None
    when it is no such command (no such runner file, or not a target list)."""
    if cmd.program.lower() not in runners:
        return None
    targets = [a for a in cmd.args if not a.startswith("-")]
    return targets if all(_TARGET_NAME.fullmatch(t) for t in targets) else None


def _runnable(cmd: Command, scripts: frozenset[str], depth: int = 0,
              runners: frozenset[str] = frozenset(), programs: frozenset[str] = frozenset()) -> str | None:
    """The rule of a runnable invocation (METRICS.md D3 V2, §0.1.25), or None;
    ``programs``: the programs the deposit's build declares (:func:`native_programs`)."""
    program = cmd.program
    lower = program.lower()
    args = cmd.args
    if runs_python(program):
        target = _python_target(args)
        if target is None:
            return None
        kind, name, rest = target
        if kind == "module":
            if name.split(".")[0] in _PIP_LIKE_MODULES or rest[:1] and rest[0] in MODULE_SETUP_ACTIONS:
                # `python -m ipykernel install --user`: registering or installing is set-up (§0.2.11)
                return None
            return "usage_examples.python_module"
        if kind == "script":
            # setup.py, install.py, bootstrap.py …: environment set-up, not usage (§0.1.25).
            return None if _is_install_script(name) else "usage_examples.python_script"
        return None
    if lower in _SHELL_PROGRAMS and "-c" in args and depth == 0:
        index = args.index("-c")
        inner = split_commands(args[index + 1]) if index + 1 < len(args) else []
        return next((rule for c in inner if (rule := _runnable(c, scripts, depth + 1, runners, programs))), None)
    script = _invoked_script(cmd)
    if script is not None:
        return None if _is_install_script(script) else "usage_examples.shell_script"
    if lower == "rscript":
        if "-e" in args:
            index = args.index("-e")
            expr = args[index + 1] if index + 1 < len(args) else ""
            return None if not expr or _R_INSTALL_EXPR.search(expr) else "usage_examples.rscript"
        positional = [a for a in args if not a.startswith("-")]
        return "usage_examples.rscript" if positional else None
    if program == "R" and args[:2] == ("CMD", "BATCH"):
        return "usage_examples.r_batch"
    if lower == "julia":
        if "-e" in args or "--eval" in args:
            flag = "-e" if "-e" in args else "--eval"
            index = args.index(flag)
            expr = args[index + 1] if index + 1 < len(args) else ""
            return None if not expr or _R_INSTALL_EXPR.search(expr) else "usage_examples.julia"
        positional = [a for a in args if not a.startswith("-")]
        return "usage_examples.julia" if positional else None
    if lower in ("make", "gmake"):
        targets = _make_targets(args)
        # Bare `make` runs the default target: a documented way to run everything.
        if not targets or not set(targets) & _MAKE_INSTALL_TARGETS:
            return "usage_examples.make"
        return None
    if lower in _TASK_RUNNERS:
        # `task` / `just` run a Taskfile's or justfile's targets as make runs a Makefile's
        # (only where that file exists: `just = c(...)` in R code is an assignment)
        targets = task_targets(cmd, runners)
        if targets is not None and not set(targets) & _TASK_SETUP_TARGETS:
            return "usage_examples.task_runner"
        return None
    if lower in ("matlab", "matlab.exe"):
        return _matlab_run(args)
    if lower in ("octave", "octave-cli"):
        return _octave_run(args)
    if lower == "fpm" and args[:1] == ("run",):
        return "usage_examples.fpm_run"
    if lower == "snakemake":
        return "usage_examples.snakemake"
    if lower == "nextflow" and args[:1] == ("run",):
        return "usage_examples.nextflow"
    if lower == "jupyter" and args[:1]:
        if args[0] == "execute" or (args[0] == "nbconvert" and any(a == "--execute" for a in args)):
            return "usage_examples.jupyter_execute"
        return None
    if lower == "papermill":
        return "usage_examples.papermill"
    if lower in _CONTAINER_TOOLS and args[:1] == ("run",):
        return "usage_examples.container_run"
    if lower in ("singularity", "apptainer") and args[:1] and args[0] in ("run", "exec"):
        return "usage_examples.container_run"
    if program in scripts:
        return "usage_examples.console_script"
    if program in programs or program.startswith("./") and program[2:] in programs:
        return "usage_examples.native_program"
    return None


# `python -m <module> install|setup|register|develop …` sets something up (§0.2.11)
MODULE_SETUP_ACTIONS = frozenset({"install", "setup", "register", "develop", "uninstall"})
# MATLAB/Octave statements that only set up: a set-up script, the path, a toolbox install
_MATLAB_SETUP_STATEMENT = re.compile(
    r"(?:setup|install|startup|install_?deps|set_?up_?path|exit|quit)(?:\s*\(\s*\))?"
    r"|(?:addpath|rmpath|cd|savepath|pkg\s+(?:install|load)|matlab\.addons\.\w+(?:\.\w+)*)\b.*"
    r"|run\s*\(?\s*['\"]?(?:setup|install|startup)(?:\.m)?['\"]?\s*\)?",
    re.IGNORECASE)


def _runs_matlab_code(code: str) -> bool:
    """Whether MATLAB/Octave code given on the command line runs something beyond set-up."""
    statements = [s.strip() for s in re.split(r"[;,\n]", code) if s.strip()]
    return any(not _MATLAB_SETUP_STATEMENT.fullmatch(s) for s in statements)


def _matlab_run(args: Sequence[str]) -> str | None:
    """``matlab -batch "main"``, ``matlab -nodisplay -r "run_all; exit"`` (§0.3 MATLAB D3)."""
    for flag in ("-batch", "-r"):
        if flag in args:
            index = args.index(flag)
            code = args[index + 1] if index + 1 < len(args) else ""
            return "usage_examples.matlab" if _runs_matlab_code(code) else None
    return None


def _octave_run(args: Sequence[str]) -> str | None:
    """``octave analyse_all.m``, ``octave --eval "main"`` (§0.3 MATLAB/Octave D3)."""
    if "--eval" in args:
        index = args.index("--eval")
        code = args[index + 1] if index + 1 < len(args) else ""
        return "usage_examples.octave" if _runs_matlab_code(code) else None
    scripts = [a for a in args if not a.startswith("-") and a.lower().endswith(".m")]
    if scripts and not _is_install_script(scripts[0]) and _stem(scripts[0]).lower() != "startup":
        return "usage_examples.octave"
    return None


@dataclass(frozen=True)
class _Runnable:
    line: DocLine
    rule: str


def compiled_sources(tree: TreeIndex) -> bool:
    """Whether the deposit has C/C++/Fortran sources: there `make`, `cmake`, `ninja` and
    `meson` build the program itself (METRICS §0.2.11: set-up, never usage)."""
    return any(facts.frontend in ("c_cpp", "fortran") for facts in tree.all_facts().values())


def runnable_commands(doc: Document, scripts: frozenset[str], *, builds: bool = False,
                      runners: frozenset[str] = frozenset(), programs: frozenset[str] = frozenset()) -> list[_Runnable]:
    """The runnable invocations of ``doc`` (D3, D5); ``builds``: make only builds the
    program (:func:`compiled_sources`), so it is never one; ``runners``: the task
    runners the deposit has (:func:`task_runners`); ``programs``: the programs its build
    declares (:func:`native_programs`). A line that runs ``make install`` (``make && make
    install``) builds and installs: its bare ``make`` is set-up too (METRICS §0.2.11).
    Only code-block lines and §0.2.10 prompt lines are invocations (D3 V2: "a block line
    is a runnable invocation"); a command in inline code within a sentence or a bullet
    is not."""
    found: list[_Runnable] = []
    for line in doc_lines(doc, inline=False):
        commands = line.commands
        installs = any(_is_make(c) and set(_make_targets(c.args)) & _MAKE_INSTALL_TARGETS for c in commands)
        for cmd in commands:
            if (builds or installs) and _is_make(cmd):
                continue
            rule = _runnable(cmd, scripts, runners=runners, programs=programs)
            if rule is not None:
                found.append(_Runnable(line, rule))
                break
    return found


def _is_make(cmd: Command) -> bool:
    return cmd.program.lower() in ("make", "gmake")


# a compiler or linker writing the target: `$(CC) … -o $@`, `gfortran … -o $@`
_LINKS_TARGET_RE = re.compile(
    r"(?:\$[({](?:CC|CXX|FC|F77|F90|LD|LINK\w*)[)}]|\b(?:g?cc|g\+\+|clang\+\+|clang|gfortran|ifort|ifx|icc|icpc|"
    r"mpicc|mpicxx|mpif90|nvcc|ld)(?![\w+-])).*\s-o\s*\$@(?!\S)")
_FORTRAN_SUFFIXES = (".f90", ".f95", ".f03", ".f08", ".f", ".for")


def native_programs(tree: TreeIndex) -> dict[str, tuple[str, int | None]]:
    """The programs the deposit's build declares, each with the file and line that declares
    it (METRICS §0.3 native codes): CMake ``add_executable`` (a literal ``OUTPUT_NAME``, either spelling),
    Makefile targets whose recipe links their own name (``bwa: … main.o`` then ``$(CC) …
    -o $@``; a target written as a variable, ``$(TARGET)`` with ``TARGET = bin/tool``,
    expanded through the file's assignments and declared by its path and its base
    name), fpm.toml ``[[executable]]`` names and, when fpm discovers them
    (``auto-executables``, the default), the program files of ``app/``. Vendored builds
    are left out."""
    declared: dict[str, tuple[str, int | None]] = {}
    for path in tree.files:
        kind = native_build_kind(path)
        if kind not in ("cmake", "make") or tree.role(path) == "vendored":
            continue
        if kind == "make":
            for target in tree.task_targets(path):
                for name in target.expand(target.name).split():
                    if "$" in name or not any(_LINKS_TARGET_RE.search(command.replace(target.name, "$@")
                                                                       .replace(name, "$@"))
                                              for _, command in target.recipe):
                        continue
                    # a built binary runs by its path (`bin/tool -h`) or, copied onto PATH, by its name
                    for program in dict.fromkeys((name, name.rsplit("/", 1)[-1])):
                        declared.setdefault(program, (path, target.line))
            continue
        build = tree.native_build(path)
        for program in build.executables if build is not None else ():
            declared.setdefault(program.name, (path, program.line))
    for name, (path, line) in fpm_executables(tree).items():
        declared.setdefault(name, (path, line))
    return declared


def fpm_executables(tree: TreeIndex) -> dict[str, tuple[str, int | None]]:
    """The executables of an fpm package (fpm.toml at the root): its ``[[executable]]``
    tables (name, and the line of the table), and the programs under ``app/`` unless
    ``[build] auto-executables = false`` (named after their file, as fpm names them)."""
    fpm = tree.find_ci("fpm.toml")
    data = tree.toml(fpm) if fpm else None
    if not isinstance(data, dict):
        return {}
    found: dict[str, tuple[str, int | None]] = {}
    tables = data.get("executable")
    headers = [line for line, text in tree.toml_headers(fpm) if text.replace(" ", "") == "[[executable]]"]
    for index, table in enumerate(tables if isinstance(tables, list) else []):
        if isinstance(table, dict) and isinstance(table.get("name"), str):
            found[table["name"]] = (fpm, headers[index] if index < len(headers) else None)
    build = data.get("build") if isinstance(data.get("build"), dict) else {}
    if build.get("auto-executables", True) is not False:
        for path in tree.files_under("app") if tree.is_dir("app") else ():
            if path.lower().endswith(_FORTRAN_SUFFIXES):
                found.setdefault(_stem(path), (path, None))
    return found


# --------------------------------------------------------------------------- deposit kind (fix texts)

def own_package(tree: TreeIndex, ecosystem: str) -> str:
    """The name of the package the deposit is in ``ecosystem``, or "": a package is used
    by calling it, so its fixes say how a user starts it, not how an analysis runs end to
    end. R: a root DESCRIPTION's ``Package:`` beside an ``R/`` folder; Julia: a
    Project.toml's ``name`` with ``src/<name>.jl``; Python: a declared distribution
    whose import package is in the tree (``<name>/__init__.py``, under ``src/`` too),
    named as it is imported."""
    if ecosystem == "r":
        description = tree.find_ci("DESCRIPTION")
        fields = tree.description_fields(description) if description else None
        package = ((fields or {}).get("Package") or "").strip()
        return package if package and tree.is_dir("R") else ""
    if ecosystem == "julia":
        project = tree.find_ci("Project.toml")
        data = tree.toml(project) if project else None
        name = data.get("name") if isinstance(data, dict) else None
        return name if isinstance(name, str) and name and tree.is_file(f"src/{name}.jl") else ""
    if ecosystem == "python":
        for name in sorted(own_project_names(tree)):
            module = name.replace("-", "_")
            if tree.is_file(f"{module}/__init__.py") or tree.is_file(f"src/{module}/__init__.py"):
                return module
    if ecosystem == "matlab":
        return matlab_toolbox(tree)
    return ""


# folders of a toolbox's usage examples and set-up scripts: they show or prepare its use
_MATLAB_EXAMPLE_FOLDERS = frozenset({"examples", "example", "demos", "demo", "tutorials", "tutorial"})
_MATLAB_SETUP_SCRIPT = re.compile(r"\w*(?:setup|install|startup|addpaths?|set_?paths?)\w*\.m", re.IGNORECASE)
# a top-level driver makes the deposit an analysis, whatever else it holds (§0.3 MATLAB main.m)
_MATLAB_DRIVER = re.compile(r"(?:main|run(?:[_-]?all)?|start|execute)\.m", re.IGNORECASE)


def matlab_toolbox(tree: TreeIndex) -> str:
    """The folder of a MATLAB/Octave toolbox, or "": a deposit whose MATLAB code (tests,
    documentation, examples and demos, set-up scripts and vendored code aside) is all
    function or class files, nothing that runs as a script, is a library a user calls
    (npy-matlab's readNPY/writeNPY); its folder is the one holding most of those files
    ("." for the root). A deposit with a script (a driver, a configuration script) or a
    top-level main.m/run_all.m is an analysis; a file of comments only (a toolbox's
    Contents.m) runs nothing and decides nothing."""
    if any(_MATLAB_DRIVER.fullmatch(_name(path)) for path in tree.files_in("")):
        return ""
    folders: dict[str, int] = {}
    for path in tree.by_frontend("matlab"):
        if tree.role(path) in ("test", "docs", "vendored") or _MATLAB_SETUP_SCRIPT.fullmatch(_name(path)):
            continue
        if path.split("/", 1)[0].lower() in _MATLAB_EXAMPLE_FOLDERS:
            continue
        facts = tree.facts(path)
        if facts is None:
            continue
        if not facts.definitions:
            if facts.calls or facts.assignments:
                return ""   # a script
            continue
        first = min(d.line for d in facts.definitions)
        if any(item.line < first for item in (*facts.calls, *facts.assignments)):
            return ""   # a script with local functions
        # package (+pkg), class (@Class) and private folders are found through the folder
        # above them, the one a user puts on the path
        parts = path.split("/")[:-1]
        cut = next((i for i, part in enumerate(parts) if part[:1] in "+@" or part == "private"), len(parts))
        folder = "/".join(parts[:cut]) or "."
        folders[folder] = folders.get(folder, 0) + 1
    return max(sorted(folders), key=lambda folder: folders[folder]) if folders else ""
