"""Category D, documentation (METRICS.md D1–D7).

Can a third party understand how to execute this? Seven detectors read what a deposit
tells its reader: README sections (D1), install commands (D2), usage examples (D3), the
ratio of explanation to code (D4), a discoverable entry point (D5), docstrings (D6) and
reuse metadata (D7).

Prose documents are read through their parsed form (``tree.document``): headings come
from the Markdown/RST/HTML parser, so code comments and table-of-contents anchors are
never mistaken for sections, and commands come from code blocks and inline code with
console prompts stripped. None of the D metrics has labelled levels in METRICS.md, so
every measurement has ``level=None`` (§0.1.4).
"""

from __future__ import annotations

import ast
import configparser
import io
import re
import sys
import tokenize
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from scoring.model import Evidence
from scoring.parsers.manifests import normalize_name
from scoring.parsers.markdown import Document
from scoring.parsers.notebook import Notebook
from scoring.parsers.shell import Command, command_lines, split_commands, strip_prompt
from scoring.registry import Result, detector
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


def _suffix(path: str) -> str:
    name = _name(path)
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""


def _file_line(doc: Document, line: int) -> int | None:
    """A document line as a file line. A notebook README's document is its markdown cells
    joined, whose line numbers are not lines of the ``.ipynb`` file."""
    return None if doc.path.lower().endswith(".ipynb") else line


def _join(items: Sequence[str], limit: int = 4) -> str:
    shown = ", ".join(items[:limit])
    return shown + (", …" if len(items) > limit else "")


# --------------------------------------------------------------------------- commands in documents


@dataclass(frozen=True)
class DocLine:
    """One logical code line of a prose document, console prompt removed."""

    path: str
    line: int | None    # None in a notebook README (see _file_line)
    text: str
    repl: bool          # ``>>>`` / ``...`` Python REPL input
    in_block: bool      # from a code block (False: inline code)

    @property
    def commands(self) -> list[Command]:
        return [] if self.repl else split_commands(self.text)


def doc_lines(doc: Document) -> list[DocLine]:
    """Code-block lines (backslash continuations joined) and inline code spans of ``doc``."""
    out: list[DocLine] = []
    for block in doc.code_blocks:
        for offset, logical in command_lines(block.text):
            text, repl = strip_prompt(logical)
            if text:
                out.append(DocLine(doc.path, _file_line(doc, block.line_start + offset - 1), text, repl, True))
    for span in doc.inline_code:
        text, repl = strip_prompt(span.text)
        if text:
            out.append(DocLine(doc.path, _file_line(doc, span.line), text, repl, False))
    return out


_PYTHON_PROGRAM = re.compile(r"(?:python|pythonw|py)(?:\d+(?:\.\d+)*)?(?:\.exe)?", re.IGNORECASE)
_PIP_PROGRAM = re.compile(r"pip(?:\d+(?:\.\d+)*)?(?:\.exe)?", re.IGNORECASE)
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


_SETUP_PY_ENTRY = re.compile(r"""["']\s*([A-Za-z0-9][\w.-]*)\s*=\s*[\w.]+\s*(?::\s*[\w.]+)?[^"']*["']""")
_SETUP_PY_NAME = re.compile(r"""\bname\s*=\s*["']([A-Za-z0-9][\w.-]*)["']""")


def _line_of(text: str, pattern: str) -> int | None:
    match = re.search(pattern, text, re.MULTILINE)
    return text.count("\n", 0, match.start()) + 1 if match else None


def _read_cfg(tree: TreeIndex, path: str) -> configparser.ConfigParser | None:
    text = tree.text(path)
    if text is None:
        return None
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    return parser


def console_scripts(tree: TreeIndex) -> list[ConsoleScript]:
    """Console scripts declared at the root: ``[project.scripts]``/``gui-scripts``,
    ``[tool.poetry.scripts]``, setup.cfg and setup.py ``console_scripts`` entry points."""
    found: list[ConsoleScript] = []
    pyproject = tree.find_ci("pyproject.toml")
    data = tree.toml(pyproject) if pyproject else None
    if isinstance(data, dict):
        text = tree.text(pyproject) or ""
        project = data.get("project") if isinstance(data.get("project"), dict) else {}
        poetry = data.get("tool", {}).get("poetry", {}) if isinstance(data.get("tool"), dict) else {}
        tables = [project.get("scripts"), project.get("gui-scripts"),
                  poetry.get("scripts") if isinstance(poetry, dict) else None]
        for table in tables:
            if isinstance(table, dict):
                for name in table:
                    line = _line_of(text, rf"^\s*[\"']?{re.escape(str(name))}[\"']?\s*=")
                    found.append(ConsoleScript(str(name), pyproject, line))
    setup_cfg = tree.find_ci("setup.cfg")
    parser = _read_cfg(tree, setup_cfg) if setup_cfg else None
    if parser is not None and parser.has_option("options.entry_points", "console_scripts"):
        text = tree.text(setup_cfg) or ""
        for entry in parser.get("options.entry_points", "console_scripts").splitlines():
            name = entry.split("=", 1)[0].strip()
            if name and "=" in entry:
                found.append(ConsoleScript(name, setup_cfg, _line_of(text, rf"^\s*{re.escape(name)}\s*=")))
    setup_py = tree.find_ci("setup.py")
    text = tree.text(setup_py) if setup_py else None
    if text and "console_scripts" in text:
        start = text.index("console_scripts")
        end = text.find("]", start)
        region = text[start:end if end > 0 else len(text)]
        for match in _SETUP_PY_ENTRY.finditer(region):
            line = text.count("\n", 0, start + match.start()) + 1
            found.append(ConsoleScript(match.group(1), setup_py, line))
    return found


def own_distribution_names(tree: TreeIndex) -> set[str]:
    """Normalised names of the distribution the deposit itself declares."""
    names: set[str] = set()
    pyproject = tree.find_ci("pyproject.toml")
    data = tree.toml(pyproject) if pyproject else None
    if isinstance(data, dict):
        project = data.get("project")
        if isinstance(project, dict) and isinstance(project.get("name"), str):
            names.add(project["name"])
        tool = data.get("tool")
        poetry = tool.get("poetry") if isinstance(tool, dict) else None
        if isinstance(poetry, dict) and isinstance(poetry.get("name"), str):
            names.add(poetry["name"])
    setup_cfg = tree.find_ci("setup.cfg")
    parser = _read_cfg(tree, setup_cfg) if setup_cfg else None
    if parser is not None and parser.has_option("metadata", "name"):
        names.add(parser.get("metadata", "name"))
    setup_py = tree.find_ci("setup.py")
    text = tree.text(setup_py) if setup_py else None
    if text:
        match = _SETUP_PY_NAME.search(text)
        if match:
            names.add(match.group(1))
    return {normalize_name(n) for n in names if n.strip()}


def _dependency_manifests(tree: TreeIndex) -> list[str]:
    return [m.path for m in tree.manifests() if m.dependencies]


# --------------------------------------------------------------------------- D1 doc_structure


@dataclass(frozen=True)
class _Family:
    key: str
    title: str
    pattern: re.Pattern[str]
    exclude: re.Pattern[str] | None = None

    def matches(self, heading: str) -> bool:
        text = self.exclude.sub(" ", heading) if self.exclude else heading
        return self.pattern.search(text) is not None


FAMILIES: tuple[_Family, ...] = (
    _Family(
        "install", "Installation",
        _word_re(r"install(?:ations?|ing)?|set[ -]?up|getting started|environments?"),
        # §0.1.23: a paper's experimental set-up is not an install section.
        _word_re(r"experimental set[ -]?up|(?:experimental|simulation) environments?"),
    ),
    _Family(
        "run", "Usage",
        _word_re(r"usage|run(?:ning)?|execut(?:e|ion|ing)|how to (?:run|use)|quick[ -]?start|reproduc(?:e|ing)|tutorials?"),
        # "Running time" reports a duration, not how to run (METRICS.md D1 weaknesses).
        _word_re(r"run(?:ning)?[ -]?times?"),
    ),
    _Family(
        "output", "Expected output",
        # §0.1.23: a bare "Results" heading is a paper section, not an expected output.
        _word_re(r"expected (?:output|result)s?|(?:sample|example|reference) (?:output|result)s?|outputs?"),
    ),
    _Family(
        "requirements", "Requirements",
        _word_re(r"(?:system )?requirements?|dependenc(?:y|ies)|prerequisites?|hardware|compute"),
    ),
)
_RUN_FAMILY = FAMILIES[1]


@detector("doc_structure", version="2.0.0")
def doc_structure(tree: TreeIndex) -> Result:
    """The README has sections on installation, usage, expected output and requirements.

    What it checks:
        The headings of the root README (chosen by the §0.1.13 priority, any case):
        Markdown ATX and setext headings outside code fences, RST section titles and
        HTML <h1>–<h6>. Four families are looked for, each as a whole word or phrase in
        a heading, case-insensitively: install (install/installation/installing, setup,
        set up, getting started, environment), run (usage, run/running, execute/
        execution/executing, how to run/use, quick start, reproduce/reproducing,
        tutorial), output (expected/sample/example/reference output(s) or result(s),
        output(s)) and requirements (requirement(s), dependency/dependencies,
        prerequisite(s), hardware, compute, system requirements). Value = 25 × families
        matched; no README → 0.
    Why it matters:
        A reader who cannot find how to install, run and check a result will not
        reproduce it; these four sections are the minimum map of a research deposit.
    Evidence:
        For each matched family the first matching heading (README path, line, heading
        text). ``counts`` holds the number of headings, the matched and missing families.
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
    for family in FAMILIES:
        heading = next((h for h in doc.headings if family.matches(h.text)), None)
        if heading is None:
            continue
        matched.append(family.key)
        evidence.append(Evidence(
            readme, f"{family.title} section: heading '{heading.text}'",
            rule=f"doc_structure.{family.key}", line_start=_file_line(doc, heading.line), snippet=heading.text,
        ))
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


# --------------------------------------------------------------------------- D2 install_instructions

_DOC_SUFFIXES = frozenset({"", ".md", ".markdown", ".rst", ".txt", ".rest"})
_INSTALL_FILE = re.compile(r"install.*", re.IGNORECASE)
_INSTALL_PROSE = _word_re(r"install(?:s|ed|ing|ations?)?|dependenc(?:y|ies)|requirements?")

# R and Julia installs written as code, not shell commands.
_R_JULIA_ONE_COMMAND = re.compile(
    r"renv::restore\s*\(|Pkg\.instantiate\s*\(|(?:pkg>|^\])\s*instantiate\b", re.IGNORECASE)
_R_JULIA_PACKAGES = re.compile(
    r"install\.packages\s*\(|BiocManager::install\s*\(|(?:devtools|remotes)::install\w*\s*\("
    r"|Pkg\.add\s*\(|(?:pkg>|^\])\s*add\s+\w",
    re.IGNORECASE,
)
# Upgrading the installer itself installs nothing of the project.
_TOOLING_PACKAGES = frozenset({"pip", "setuptools", "wheel", "uv"})
_PIP_VALUE_OPTIONS = frozenset({
    "-c", "--constraint", "-i", "--index-url", "--extra-index-url", "-f", "--find-links", "-t", "--target",
    "--prefix", "--root", "--python-version", "--platform", "--only-binary", "--no-binary", "--src",
    "--upgrade-strategy", "-C", "--config-settings", "--trusted-host", "--cache-dir", "--log", "--retries",
    "--timeout", "--proxy", "--cert", "--client-cert", "--implementation", "--abi", "--global-option",
    "--install-option", "--report", "--progress-bar", "--python",
})
_SYSTEM_PACKAGE_MANAGERS = frozenset({"apt", "apt-get", "yum", "dnf", "brew", "zypper", "pacman", "port"})
_CONTAINER_TOOLS = frozenset({"docker", "podman"})
_MAKE_INSTALL_TARGETS = frozenset({"setup", "install", "env"})
_REQUIREMENT_NAME = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)")


@dataclass(frozen=True)
class _InstallContext:
    own_names: frozenset[str]
    declares_dependencies: bool


@dataclass(frozen=True)
class _InstallHit:
    value: int
    rule: str
    reason: str


def _is_local_target(arg: str) -> bool:
    target = arg.strip("'\"")
    if target.startswith("file:"):
        return True
    target = target.split("[", 1)[0]
    return target in (".", "..") or target.startswith(("./", "../", "/", "~"))


def _pip_install(args: Sequence[str], ctx: _InstallContext) -> _InstallHit | None:
    """Classify the arguments after ``pip install``."""
    local = requirement_file = False
    packages: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-r", "--requirement"):
            requirement_file = i + 1 < len(args)
            i += 2
            continue
        if arg.startswith("--requirement=") or (arg.startswith("-r") and len(arg) > 2 and not arg.startswith("--")):
            requirement_file = True
        elif arg in ("-e", "--editable"):
            if i + 1 < len(args):
                if _is_local_target(args[i + 1]):
                    local = True
                else:
                    packages.append(args[i + 1])
            i += 2
            continue
        elif arg.startswith("--editable="):
            local = local or _is_local_target(arg.split("=", 1)[1])
        elif arg in _PIP_VALUE_OPTIONS:
            i += 2
            continue
        elif arg.startswith("-"):
            pass
        elif _is_local_target(arg):
            local = True
        else:
            packages.append(arg)
        i += 1
    if requirement_file:
        return _InstallHit(100, "install_instructions.pip_requirements", "installs a requirements file")
    names = {normalize_name(m.group(1)) for p in packages if (m := _REQUIREMENT_NAME.match(p.strip("'\"")))}
    if names & ctx.own_names:
        return _InstallHit(100, "install_instructions.own_distribution",
                           "installs the project's own distribution with its dependencies")
    if local:
        if ctx.declares_dependencies:
            return _InstallHit(100, "install_instructions.local_project",
                               "installs the project, whose manifest declares its dependencies")
        return _InstallHit(70, "install_instructions.local_project_without_manifest",
                           "installs the project, but no manifest declares dependencies")
    if names and not names <= _TOOLING_PACKAGES:
        return _InstallHit(70, "install_instructions.package_by_package", "installs packages one by one")
    return None


_CONDA_VALUE_OPTIONS = frozenset({"-n", "--name", "-p", "--prefix", "-c", "--channel", "--file", "-f"})


def _conda(args: Sequence[str], ctx: _InstallContext) -> _InstallHit | None:
    """Classify ``conda``/``mamba``/``micromamba`` arguments."""
    env_file = _InstallHit(100, "install_instructions.conda_env", "creates the conda environment from its file")
    if args[:2] == ("env", "create"):
        return env_file   # without -f it reads environment.yml
    if args[:2] == ("env", "update") and any(a in ("-f", "--file") or a.startswith("--file=") for a in args):
        return env_file
    if not args or args[0] not in ("create", "install"):
        return None
    packages: list[str] = []
    has_file = False
    i = 1
    while i < len(args):
        arg = args[i]
        if arg == "--file" or arg.startswith("--file="):
            has_file = True
        if arg in _CONDA_VALUE_OPTIONS:
            i += 2
            continue
        if not arg.startswith("-"):
            packages.append(arg)
        i += 1
    if has_file:
        return _InstallHit(100, "install_instructions.conda_env", "creates the conda environment from a spec file")
    names = {normalize_name(m.group(1)) for p in packages if (m := _REQUIREMENT_NAME.match(p))}
    if args[0] == "install" and names & ctx.own_names:
        return _InstallHit(100, "install_instructions.own_distribution",
                           "installs the project's own package with its dependencies")
    if packages:
        return _InstallHit(70, "install_instructions.package_by_package", "installs packages one by one")
    return None


def _install_command(cmd: Command, ctx: _InstallContext) -> _InstallHit | None:
    program = cmd.program.lower()
    args = cmd.args
    if _PIP_PROGRAM.fullmatch(program) or program == "pipx":
        return _pip_install(args[1:], ctx) if args[:1] == ("install",) else None
    if _PYTHON_PROGRAM.fullmatch(program):
        target = _python_target(args)
        if target is None:
            return None
        kind, name, rest = target
        if kind == "module" and name == "pip" and rest[:1] == ("install",):
            return _pip_install(rest[1:], ctx)
        if kind == "script" and _name(name).lower() == "setup.py" and rest[:1] and rest[0] in ("install", "develop"):
            return _InstallHit(70, "install_instructions.setup_py", "installs with setup.py")
        return None
    if program == "uv":
        if args[:1] == ("sync",):
            return _InstallHit(100, "install_instructions.lock_sync", "installs the locked environment")
        if args[:2] == ("pip", "install"):
            return _pip_install(args[2:], ctx)
        if args[:2] == ("pip", "sync"):
            return _InstallHit(100, "install_instructions.pip_requirements", "installs a requirements file")
        return None
    if program in ("conda", "mamba", "micromamba"):
        return _conda(args, ctx)
    if program == "poetry" and args[:1] == ("install",):
        return _InstallHit(100, "install_instructions.lock_sync", "installs the project environment")
    if program == "pdm" and args[:1] and args[0] in ("install", "sync"):
        return _InstallHit(100, "install_instructions.lock_sync", "installs the project environment")
    if program == "pixi" and args[:1] == ("install",):
        return _InstallHit(100, "install_instructions.lock_sync", "installs the project environment")
    if program == "pipenv" and args[:1] and args[0] in ("install", "sync"):
        if args[0] == "sync" or not [a for a in args[1:] if not a.startswith("-")]:
            return _InstallHit(100, "install_instructions.lock_sync", "installs the environment of the Pipfile")
        return _InstallHit(70, "install_instructions.package_by_package", "installs packages one by one")
    if program in _CONTAINER_TOOLS and args[:1] and args[0] in ("build", "pull"):
        return _InstallHit(100, "install_instructions.container", "builds or pulls the container image")
    compose = args[1:] if program in _CONTAINER_TOOLS and args[:1] == ("compose",) else (
        args if program == "docker-compose" else ())
    if compose[:1] and compose[0] in ("up", "build"):
        return _InstallHit(100, "install_instructions.container", "builds the composed containers")
    if program in ("singularity", "apptainer") and args[:1] and args[0] in ("build", "pull"):
        return _InstallHit(100, "install_instructions.container", "builds or pulls the container image")
    if program in ("make", "gmake"):
        if set(_make_targets(args)) & _MAKE_INSTALL_TARGETS:
            return _InstallHit(100, "install_instructions.make_target", "runs a make setup target")
        return None
    script = _invoked_script(cmd, sourcing=True)
    if script is not None and _is_install_script(script) and _suffix(script) in ("", ".sh", ".bash"):
        return _InstallHit(100, "install_instructions.install_script", "runs an install script")
    if program in ("npm", "yarn") and args[:1] and args[0] in ("install", "ci", "add"):
        return _InstallHit(70, "install_instructions.package_by_package", "installs JavaScript packages")
    if program in _SYSTEM_PACKAGE_MANAGERS and args[:1] == ("install",):
        return _InstallHit(70, "install_instructions.system_packages", "installs system packages one by one")
    return None


def _install_line(line: DocLine, ctx: _InstallContext) -> _InstallHit | None:
    if line.repl:
        return None
    best: _InstallHit | None = None
    if _R_JULIA_ONE_COMMAND.search(line.text):
        best = _InstallHit(100, "install_instructions.lock_sync", "restores the R/Julia project environment")
    elif _R_JULIA_PACKAGES.search(line.text):
        best = _InstallHit(70, "install_instructions.package_by_package", "installs R/Julia packages one by one")
    for cmd in line.commands:
        hit = _install_command(cmd, ctx)
        if hit is not None and (best is None or hit.value > best.value):
            best = hit
    return best


def _install_documents(tree: TreeIndex) -> tuple[list[str], list[str]]:
    """(INSTALL* files at the root, docs/install* files), prose documents only."""
    install_files = [p for p in tree.match(_INSTALL_FILE, "") if _suffix(p) in _DOC_SUFFIXES]
    docs_files: list[str] = []
    for folder in ("docs", "doc", "docs/source", "doc/source"):
        if tree.is_dir(folder):
            docs_files.extend(p for p in tree.match(_INSTALL_FILE, folder) if _suffix(p) in _DOC_SUFFIXES)
    return install_files, docs_files


def _install_fix(tree: TreeIndex) -> str:
    root = {_name(p).lower(): p for p in tree.files_in("")}
    for lower, command in (
        ("environment.yml", "conda env create -f environment.yml"),
        ("environment.yaml", "conda env create -f environment.yaml"),
        ("requirements.txt", "pip install -r requirements.txt"),
        ("pyproject.toml", "pip install ."),
        ("pipfile", "pipenv install"),
        ("renv.lock", "Rscript -e 'renv::restore()'"),
        ("project.toml", "julia --project -e 'using Pkg; Pkg.instantiate()'"),
    ):
        if lower in root:
            return f"Give the one command that creates the environment, `{command}`, in a README code block."
    return ("Declare the dependencies in requirements.txt (or environment.yml) and give the one command "
            "that installs them, e.g. `pip install -r requirements.txt`, in a README code block.")


@detector("install_instructions", version="2.0.0")
def install_instructions(tree: TreeIndex) -> Result:
    """Install instructions: one command that creates the whole environment.

    What it checks:
        Code blocks and inline code (console prompts stripped) of the README, of INSTALL*
        files at the root and of docs/install* (also doc/ and docs/source/); the maximum
        over them wins. 100: one command creating the full environment (`pip install -r
        <file>`, `pip install .`/`-e .` when a manifest declares dependencies, `pip
        install <own distribution>`, `conda|mamba|micromamba env create`, `conda create
        --file`, `poetry install`, `pipenv install|sync`, `pdm install`, `uv sync`, `pixi
        install`, `docker build|pull|compose up`, `make setup|install|env`,
        `./install.sh`, `bash install.sh`, `renv::restore()`, `Pkg.instantiate()`). 70:
        package-by-package commands (`pip install a b`, `conda install`,
        `install.packages(`, `BiocManager::install(`, `devtools::install_github(`,
        `Pkg.add(`, `python setup.py install`, `npm install`, `apt-get install`), `pip
        install .` without a dependency manifest, or an INSTALL file without such a
        command. 30: README prose or a heading mentioning install / dependencies /
        requirements as a whole word. 0 otherwise.
    Why it matters:
        The environment is the first thing a re-user must rebuild; a single documented
        command removes the guesswork about which packages and versions to install.
    Evidence:
        The document, line and command of each install command of the winning tier; the
        INSTALL file; or the prose line. ``counts`` holds the number of one-command and
        package-by-package commands, install files and prose mentions.
    How to fix:
        Put the one command that creates the environment (e.g. `pip install -r
        requirements.txt`, `conda env create -f environment.yml`) in a README code block.
    Known false positives:
        A command counts wherever it appears in those documents, even in a section about
        something else or with a wrong file name; whether the referenced file exists is
        not checked. Upgrades of pip/setuptools/wheel alone are ignored.
    """
    ctx = _InstallContext(frozenset(own_distribution_names(tree)), bool(_dependency_manifests(tree)))
    install_files, docs_files = _install_documents(tree)
    sources = ([tree.readme] if tree.readme else []) + install_files + docs_files
    hits: list[tuple[_InstallHit, DocLine]] = []
    for path in sources:
        doc = tree.document(path)
        if doc is None:
            continue
        for line in doc_lines(doc):
            hit = _install_line(line, ctx)
            if hit is not None:
                hits.append((hit, line))
    install_docs = [p for p in install_files + docs_files if (tree.text(p) or "").strip()]
    prose: list[tuple[str, int | None, str]] = []
    readme_doc = tree.readme_document()
    if readme_doc is not None:
        for heading in readme_doc.headings:
            if _INSTALL_PROSE.search(heading.text):
                prose.append((readme_doc.path, heading.line, heading.text))
        for paragraph in readme_doc.paragraphs:
            if _INSTALL_PROSE.search(paragraph.text):
                prose.append((readme_doc.path, paragraph.line_start, paragraph.text))
        prose.sort(key=lambda item: item[1])
        prose = [(path, _file_line(readme_doc, line), text) for path, line, text in prose]
    counts = {
        "one_command": sum(1 for h, _ in hits if h.value == 100),
        "package_commands": sum(1 for h, _ in hits if h.value == 70),
        "install_files": len(install_docs),
        "prose_mentions": len(prose),
        "documents_read": len(sources),
    }
    best = max((h.value for h, _ in hits), default=0)
    if install_docs:
        best = max(best, 70)
    if prose:
        best = max(best, 30)
    evidence: list[Evidence] = []
    for hit, line in hits:
        if hit.value == best and len(evidence) < MAX_EVIDENCE:
            evidence.append(Evidence(line.path, hit.reason, rule=hit.rule, line_start=line.line, snippet=line.text))
    if best == 70 and not evidence:
        evidence.extend(Evidence(p, "install instructions file", rule="install_instructions.install_file")
                        for p in install_docs[:MAX_EVIDENCE])
    if best == 30:
        evidence.extend(Evidence(path, "prose mentions installation or dependencies",
                                 rule="install_instructions.prose", line_start=line, snippet=text)
                        for path, line, text in prose[:5])
    if best == 100:
        reason, fix = "a single command creates the environment", None
    elif best == 70:
        reason = ("installation is described package by package or in an INSTALL file, "
                  "without one command that creates the whole environment")
        if any(h.rule == "install_instructions.local_project_without_manifest" for h, _ in hits):
            fix = ("Declare the dependencies in pyproject.toml ([project].dependencies) or setup.py "
                   "(install_requires) so that the documented `pip install .` installs them.")
        else:
            fix = _install_fix(tree)
    elif best == 30:
        reason, fix = "installation or dependencies are mentioned in prose only", _install_fix(tree)
    else:
        reason, fix = "no install instructions found", _install_fix(tree)
    return Result(best, evidence=evidence, fix=fix, reason=reason, counts=counts)


# --------------------------------------------------------------------------- D3 usage_examples

_MAKE_VALUE_OPTIONS = frozenset({"-C", "-f", "-I", "-o", "-W", "--directory", "--file", "--makefile",
                                 "--include-dir", "--old-file", "--what-if", "-l", "--load-average"})
_EXAMPLE_DIRS = frozenset({"examples", "example", "demos", "demo", "tutorials", "tutorial", "vignettes"})
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


def _runnable(cmd: Command, scripts: frozenset[str], depth: int = 0) -> str | None:
    """The rule of a runnable invocation (METRICS.md D3 V2, §0.1.25), or None."""
    program = cmd.program
    lower = program.lower()
    args = cmd.args
    if _PYTHON_PROGRAM.fullmatch(lower):
        target = _python_target(args)
        if target is None:
            return None
        kind, name, _rest = target
        if kind == "module":
            return None if name.split(".")[0] in _PIP_LIKE_MODULES else "usage_examples.python_module"
        if kind == "script":
            # setup.py, install.py, bootstrap.py …: environment set-up, not usage (§0.1.25).
            return None if _is_install_script(name) else "usage_examples.python_script"
        return None
    if lower in _SHELL_PROGRAMS and "-c" in args and depth == 0:
        index = args.index("-c")
        inner = split_commands(args[index + 1]) if index + 1 < len(args) else []
        return next((rule for c in inner if (rule := _runnable(c, scripts, depth + 1))), None)
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
    return None


@dataclass(frozen=True)
class _Runnable:
    line: DocLine
    rule: str


def runnable_commands(doc: Document, scripts: frozenset[str]) -> list[_Runnable]:
    found: list[_Runnable] = []
    for line in doc_lines(doc):
        for cmd in line.commands:
            rule = _runnable(cmd, scripts)
            if rule is not None:
                found.append(_Runnable(line, rule))
                break
    return found


def _example_dirs(tree: TreeIndex) -> list[str]:
    return [d for d in tree.subdirs("") if _name(d).lower() in _EXAMPLE_DIRS and tree.files_under(d)]


@detector("usage_examples", version="2.0.0")
def usage_examples(tree: TreeIndex) -> Result:
    """The README shows a runnable command, or at least a code example.

    What it checks:
        Code blocks of the root README (fenced with backticks or tildes, indented, RST
        literal and code-block) and its inline code, console prompts ($, %, >, !)
        stripped. 100: a line is a runnable invocation — python/python3/py with a script
        or -m, bash/sh/zsh with a script, ./script, Rscript, R CMD BATCH, julia, make
        (with a target, or bare), snakemake, nextflow run, jupyter nbconvert --execute /
        jupyter execute, papermill, docker/podman run, singularity/apptainer run|exec, or
        a console script declared in [project.scripts], [tool.poetry.scripts] or
        setup.py/setup.cfg entry points. Install and bootstrap commands (setup.py,
        python -m pip|venv|ensurepip|build|twine, make install|setup|env, install- or
        bootstrap-named scripts) never count. 60: any code block (>>> REPL examples
        included). 30: a non-empty top-level examples/example/demos/demo/tutorials/
        tutorial/vignettes directory. 0 otherwise; the maximum wins.
    Why it matters:
        A copy-pasteable command tells the re-user exactly how the analysis is started;
        without it they must reverse-engineer the entry point and its arguments.
    Evidence:
        README line of each runnable command (up to 20); otherwise the line range of
        the first code block; otherwise the examples directory. ``counts`` has the
        number of code blocks, runnable commands, REPL lines and example directories.
    How to fix:
        Add a README code block with the exact command that runs the analysis, e.g.
        `python main.py --config config.yaml`.
    Known false positives:
        A runnable command counts even when it runs a demo unrelated to the paper, or
        names a script that does not exist (existence is not checked). A bare `make`
        counts although the default target might only compile code. Inline code such
        as `python main.py` in a sentence counts like a block line.
    """
    scripts = frozenset(s.name for s in console_scripts(tree))
    doc = tree.readme_document()
    example_dirs = _example_dirs(tree)
    runnable = runnable_commands(doc, scripts) if doc is not None else []
    blocks = doc.code_blocks if doc is not None else []
    repl_lines = sum(1 for line in doc_lines(doc) if line.repl) if doc is not None else 0
    counts = {"code_blocks": len(blocks), "runnable_commands": len(runnable), "repl_lines": repl_lines,
              "example_dirs": len(example_dirs)}
    fix = ("Add a README code block with the exact command that runs the analysis, "
           "e.g. `python main.py --config config.yaml`.")
    if runnable:
        evidence = [Evidence(r.line.path, "runnable command", rule=r.rule, line_start=r.line.line, snippet=r.line.text)
                    for r in runnable[:MAX_EVIDENCE]]
        return Result(100, evidence=evidence, reason=f"{len(runnable)} runnable command(s) in the README",
                      counts=counts)
    if blocks:
        first = blocks[0]
        evidence = [Evidence(doc.path, "code block without a runnable command", rule="usage_examples.code_block",
                             line_start=_file_line(doc, first.line_start),
                             line_end=_file_line(doc, max(first.line_start, first.line_end)),
                             snippet=first.text.splitlines()[0] if first.text.strip() else None)]
        return Result(60, evidence=evidence, reason="the README has code blocks but no runnable command",
                      fix=fix, counts=counts)
    if example_dirs:
        evidence = [Evidence(d, "non-empty examples directory", rule="usage_examples.examples_dir")
                    for d in example_dirs]
        return Result(30, evidence=evidence, reason="an examples directory exists but the README shows no code",
                      fix=fix, counts=counts)
    reason = "no README" if doc is None else "the README has no code block and there is no examples directory"
    return Result(0, evidence=[], reason=reason, fix=fix, counts=counts)


# --------------------------------------------------------------------------- D4 inline_explanation_density

_MD_CELL_MIN_CHARS = 10
_NB_TARGET = 0.5      # one explanatory markdown cell per two code cells
_SCRIPT_TARGET = 0.20  # one comment line in five non-blank lines
_CELL_MARKER = re.compile(
    r"^\s*#\s*(?:%%|In\s*\[[\d\s]*\]\s*:?\s*$|<(?:codecell|markdowncell|rawcell)>|COMMAND\s*-{3,})", re.IGNORECASE)
_CODING_COOKIE = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+")
_FRONT_MATTER = re.compile(r"\A\s*---\s*\n.*?\n---\s*(?:\n|\Z)", re.DOTALL)


@dataclass
class _ScriptDensity:
    path: str
    nonblank: int
    comments: int
    gap: tuple[int, int] | None   # longest stretch of code lines without a comment

    @property
    def ratio(self) -> float:
        return self.comments / self.nonblank if self.nonblank else 0.0


@dataclass
class _NotebookDensity:
    path: str
    markdown: int
    code: int
    gap: tuple[int, int] | None   # first and last cell of the longest unexplained code run

    @property
    def ratio(self) -> float:
        return self.markdown / self.code if self.code else 0.0


def _is_marker_comment(line_no: int, text: str) -> bool:
    """Shebangs, encoding cookies and cell markers are comments that explain nothing."""
    if line_no == 1 and text.lstrip().startswith("#!"):
        return True
    if line_no <= 2 and _CODING_COOKIE.match(text):
        return True
    return _CELL_MARKER.match(text) is not None


def _all_but(excluded: str) -> str:
    """A regex class of every character except ``excluded``, spelled as ranges: sre tests
    a negated class of literals (``[^#"']``) literal by literal, but compiles ranges to
    a lookup table, which makes the comment scan below twice as fast."""
    ranges = []
    low = 0
    for code in sorted(map(ord, excluded)):
        if code > low:
            ranges.append(f"\\U{low:08x}-\\U{code - 1:08x}")
        low = code + 1
    ranges.append(f"\\U{low:08x}-\\U{sys.maxunicode:08x}")
    return "[" + "".join(ranges) + "]"


# [^#"'] (code), then the characters a """…""", '''…''', "…" or '…' literal runs over.
_CODE_CHAR = _all_but("#\"'")
_TRIPLE_DOUBLE_CHAR = _all_but('"\\')
_TRIPLE_SINGLE_CHAR = _all_but("'\\")
_DOUBLE_CHAR = _all_but('"\\\n')
_SINGLE_CHAR = _all_but("'\\\n")
# Python string literals. Prefixes are not matched: they never change where a literal
# ends. Quantifiers are possessive so an unterminated string cannot trigger
# catastrophic backtracking.
_PY_STRING = (
    rf'"{{3}}(?:{_TRIPLE_DOUBLE_CHAR}++|\\[\s\S]|"(?!""))*+"{{3}}'
    rf"|'{{3}}(?:{_TRIPLE_SINGLE_CHAR}++|\\[\s\S]|'(?!''))*+'{{3}}"
    rf'|"(?:{_DOUBLE_CHAR}++|\\[\s\S])*+"'
    rf"|'(?:{_SINGLE_CHAR}++|\\[\s\S])*+'"
)
# Each match consumes code and whole string literals up to the next comment (group 1)
# or the end of the text, so a ``#`` inside a string is never a comment and the Python
# loop visits comments only: the tokenizer's comment lines at a fraction of its cost.
# A stray quote is consumed as code, and matching at the end keeps the scan linear.
_PY_NEXT_COMMENT = re.compile(rf"(?:{_CODE_CHAR}++|{_PY_STRING}|[\"'])*+(?:(#)|\Z)")
_DOC_OWNERS = frozenset({ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})
_TRY_LISTS = ("body", "handlers", "orelse", "finalbody")
# The statement lists of every statement that holds statements; any other statement is
# a leaf for the docstring walk. Naming the lists per type spares probing absent fields.
_STATEMENT_LISTS: dict[type, tuple[str, ...]] = {
    ast.Module: ("body",), ast.FunctionDef: ("body",), ast.AsyncFunctionDef: ("body",), ast.ClassDef: ("body",),
    ast.If: ("body", "orelse"), ast.For: ("body", "orelse"), ast.AsyncFor: ("body", "orelse"),
    ast.While: ("body", "orelse"), ast.With: ("body",), ast.AsyncWith: ("body",),
    ast.Try: _TRY_LISTS, ast.TryStar: _TRY_LISTS, ast.ExceptHandler: ("body",),
    ast.Match: ("cases",), ast.match_case: ("body",),
}


def _python_comment_lines(source: str, lines: list[str]) -> set[int]:
    found: set[int] = set()
    if "#" not in source:
        return found
    line = 1
    position = 0
    for match in _PY_NEXT_COMMENT.finditer(source):
        at = match.start(1)
        if at < 0:
            break
        line += source.count("\n", position, at)
        position = at
        if not _is_marker_comment(line, lines[line - 1] if line <= len(lines) else ""):
            found.add(line)
    return found


def _ast_docstring_lines(module: ast.Module) -> set[int]:
    """Lines of module, class and function docstrings. Only statement bodies are walked:
    docstrings never sit inside expressions, and skipping those is most of the cost."""
    found: set[int] = set()
    stack: list[ast.AST] = [module]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind in _DOC_OWNERS and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                found.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
        for field_name in _STATEMENT_LISTS[kind]:
            for child in getattr(node, field_name):
                if type(child) in _STATEMENT_LISTS:
                    stack.append(child)
    return found


def _python_explained_lines(tree: TreeIndex, path: str) -> tuple[list[str], set[int]]:
    unit = tree.python_unit(path)
    if unit is None:
        return [], set()
    lines = unit.lines
    commented = _python_comment_lines(unit.source, lines)
    if unit.tree is not None:
        commented |= _ast_docstring_lines(unit.tree)
    else:
        commented |= _docstring_lines_by_tokens(unit.source)
    return lines, commented


def _docstring_lines_by_tokens(source: str) -> set[int]:
    """Docstring lines of code that does not parse (Python 2): a string statement that
    opens the module or follows a ``def``/``class`` header."""
    found: set[int] = set()
    at_statement_start = True
    after_header = True          # the module start counts as a header
    header_pending = False
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING):
                continue
            if tok.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
                if tok.type == tokenize.NEWLINE:
                    after_header = header_pending
                    header_pending = False
                at_statement_start = True
                continue
            if at_statement_start:
                if tok.type == tokenize.STRING and after_header:
                    found.update(range(tok.start[0], tok.end[0] + 1))
                header_pending = tok.type == tokenize.NAME and tok.string in ("def", "class", "async")
                after_header = False
                at_statement_start = False
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return found


def _hash_comment_lines(lines: list[str], *, shell: bool, julia: bool) -> set[int]:
    """Lines holding a ``#`` comment outside quotes (R, Julia, shell); Julia ``#= =#``
    blocks included. In shell a comment starts a word (``$#`` and ``${#x}`` are not)."""
    commented: set[int] = set()
    depth = 0
    for number, line in enumerate(lines, start=1):
        if depth:
            commented.add(number)
        elif "#" not in line:
            continue
        quote = ""
        i = 0
        while i < len(line):
            ch = line[i]
            if depth:
                if line.startswith("=#", i):
                    depth -= 1
                    i += 2
                    continue
                if line.startswith("#=", i):
                    depth += 1
                    i += 2
                    continue
            elif quote:
                if ch == "\\":
                    i += 2
                    continue
                if ch == quote:
                    quote = ""
            elif ch in ("'", '"') and not (julia and ch == "'"):
                quote = ch
            elif ch == "#" and (not shell or i == 0 or line[i - 1] in " \t;|&("):
                if julia and line.startswith("#=", i):
                    depth += 1
                    commented.add(number)
                    i += 2
                    continue
                if not _is_marker_comment(number, line):
                    commented.add(number)
                break
            i += 1
    return commented


def _script_density(tree: TreeIndex, path: str, kind: str) -> _ScriptDensity | None:
    if kind == "python":
        lines, commented = _python_explained_lines(tree, path)
    else:
        lines = tree.lines(path)
        commented = _hash_comment_lines(lines, shell=kind == "shell", julia=kind == "julia")
    if not lines:
        return None
    # One pass: non-blank and explained line counts, and the longest run of non-blank
    # lines with no explanation (the evidence a reader is pointed to).
    nonblank = comments = 0
    best: tuple[int, int] | None = None
    start = None
    for number, line in enumerate(lines, start=1):
        if not line or line.isspace():
            continue
        nonblank += 1
        if number in commented:
            comments += 1
            start = None
            continue
        if start is None:
            start = number
        if best is None or number - start > best[1] - best[0]:
            best = (start, number)
    if not nonblank:
        return None
    return _ScriptDensity(path, nonblank, comments, best)


def _markdown_text(nb: Notebook, index: int, source: str) -> str:
    if index == 0 and nb.path.lower().endswith((".rmd", ".qmd")):
        # R Markdown / Quarto: the YAML front matter is metadata, not explanation.
        source = _FRONT_MATTER.sub("", source, count=1)
    return source.strip()


def _notebook_density(nb: Notebook) -> _NotebookDensity | None:
    code = 0
    markdown = 0
    run: list[int] = []
    best: tuple[int, int] | None = None
    for position, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            code += 1
            run.append(cell.index)
            if best is None or run[-1] - run[0] > best[1] - best[0]:
                best = (run[0], run[-1])
        elif cell.cell_type == "markdown" and len(_markdown_text(nb, position, cell.source)) >= _MD_CELL_MIN_CHARS:
            markdown += 1
            run = []
    if code == 0:
        return None
    return _NotebookDensity(nb.path, markdown, code, best)


@detector("inline_explanation_density", version="2.0.0")
def inline_explanation_density(tree: TreeIndex) -> Result:
    """Code is explained: markdown cells in notebooks, comments and docstrings in scripts.

    What it checks:
        Notebook part over every .ipynb, .Rmd and .qmd (R Markdown/Quarto text between
        chunks is markdown, the YAML front matter is not): nb = min(md / code / 0.5, 1) ·
        100 with md = markdown cells of at least 10 non-blank characters and code = code
        cells; notebooks without code cells drop out. Script part over every .py/.pyw,
        .R/.r, .jl and .sh/.bash: sc = min(comment lines / non-blank lines / 0.20, 1) ·
        100, where a comment line holds a tokenizer comment (shebang, encoding cookie and
        `# %%`/`# In[ ]:` cell markers excluded) or a docstring line (Python); R counts
        `#` and roxygen `#'`, Julia `#` and `#= =#` blocks, shell `#`. Both parts → round
        (0.6·nb + 0.4·sc, 1); one part → that part rounded to 1 decimal; neither (no
        such files, or only notebooks without code cells and blank scripts) → 50, not
        applicable.
    Why it matters:
        Readers reuse code they can follow; a notebook of bare code cells or an
        uncommented script hides the intent of each analysis step.
    Evidence:
        The three least explained scripts (with the longest stretch of lines without a
        comment) and notebooks (with the longest run of code cells without an
        explanatory markdown cell). ``counts`` has md_cells, code_cells, comment_lines,
        nonblank_lines, the file counts and both parts.
    How to fix:
        Aim for at least one explanatory markdown cell per two code cells and about one
        comment or docstring line per five lines of code, starting with the files listed.
    Known false positives:
        Commented-out code, licence headers and separator lines (`# -----`) count as
        comments; a markdown cell of ten characters (a heading) counts as explanation.
        Density is not quality: boilerplate docstrings score like good ones.
    """
    scripts: list[_ScriptDensity] = []
    for kind in ("python", "r", "julia", "shell"):
        for path in tree.by_type(kind):
            density = _script_density(tree, path, kind)
            if density is not None:
                scripts.append(density)
    notebooks: list[_NotebookDensity] = []
    for path in tree.by_type("notebook") + tree.by_type("rmd"):
        nb = tree.notebook(path)
        density = _notebook_density(nb) if nb is not None else None
        if density is not None:
            notebooks.append(density)
    md_cells = sum(n.markdown for n in notebooks)
    code_cells = sum(n.code for n in notebooks)
    comment_lines = sum(s.comments for s in scripts)
    nonblank_lines = sum(s.nonblank for s in scripts)
    nb_part = min(md_cells / code_cells / _NB_TARGET, 1.0) * 100 if code_cells else None
    sc_part = min(comment_lines / nonblank_lines / _SCRIPT_TARGET, 1.0) * 100 if nonblank_lines else None
    counts = {
        "md_cells": md_cells, "code_cells": code_cells, "comment_lines": comment_lines,
        "nonblank_lines": nonblank_lines, "notebooks": len(notebooks), "scripts": len(scripts),
        "notebook_part": None if nb_part is None else round(nb_part, 2),
        "script_part": None if sc_part is None else round(sc_part, 2),
    }
    if nb_part is None and sc_part is None:
        return Result(50, applicable=False, counts=counts,
                      reason="no notebook with code cells and no non-blank script")
    if nb_part is not None and sc_part is not None:
        value = round(0.6 * nb_part + 0.4 * sc_part, 1)
    else:
        value = round(nb_part if nb_part is not None else sc_part, 1)
    evidence: list[Evidence] = []
    worst_notebooks = sorted((n for n in notebooks if n.ratio < _NB_TARGET), key=lambda n: (n.ratio, n.path))[:3]
    for n in worst_notebooks:
        first, last = n.gap or (None, None)
        evidence.append(Evidence(
            n.path, f"{n.markdown} explanatory markdown cell(s) for {n.code} code cells"
            + (f"; cells {first}–{last} are code without explanation" if first else ""),
            rule="inline_explanation_density.notebook", cell=first,
        ))
    worst_scripts = sorted((s for s in scripts if s.ratio < _SCRIPT_TARGET), key=lambda s: (s.ratio, s.path))[:3]
    for s in worst_scripts:
        start, end = s.gap or (None, None)
        evidence.append(Evidence(
            s.path, f"{s.comments} comment line(s) in {s.nonblank} non-blank lines ({100 * s.ratio:.1f} %)"
            + (f"; lines {start}–{end} have no comment" if start else ""),
            rule="inline_explanation_density.script", line_start=start, line_end=end,
        ))
    fix = None
    if value < 100:
        targets = [e.path for e in evidence if e.path]
        fix = ("Add explanatory markdown cells (one per two code cells) and comments or docstrings "
               f"(one line in five) to {_join(targets, 3) or 'the code'}.")
    parts = []
    if nb_part is not None:
        parts.append(f"notebooks {md_cells} md / {code_cells} code cells → {nb_part:.1f}")
    if sc_part is not None:
        parts.append(f"scripts {comment_lines} / {nonblank_lines} comment lines → {sc_part:.1f}")
    return Result(value, evidence=evidence, fix=fix, counts=counts, reason="; ".join(parts))


# --------------------------------------------------------------------------- D5 execution_entry_point

_ENTRY_SCRIPT = re.compile(r"(?:run|run[_-]all|start|execute|main)\.(?:sh|py|r|jl|bat)", re.IGNORECASE)
_ENTRY_TARGETS = frozenset({"run", "all", "execute", "analysis", "main", "reproduce"})
_WORKFLOW_FILE = re.compile(r"snakefile|main\.nf", re.IGNORECASE)


def _documented_main_modules(tree: TreeIndex, doc: Document | None) -> list[tuple[DocLine, str]]:
    """README ``python -m pkg`` lines whose package has a ``__main__.py``."""
    if doc is None:
        return []
    found = []
    for line in doc_lines(doc):
        for cmd in line.commands:
            if not _PYTHON_PROGRAM.fullmatch(cmd.program.lower()):
                continue
            target = _python_target(cmd.args)
            if target is None or target[0] != "module":
                continue
            package = target[1].replace(".", "/")
            main = next((p for p in (f"{package}/__main__.py", f"src/{package}/__main__.py") if tree.is_file(p)), None)
            if main:
                found.append((line, main))
    return found


@detector("execution_entry_point", version="2.0.0")
def execution_entry_point(tree: TreeIndex) -> Result:
    """There is one obvious way to start the analysis.

    What it checks:
        100: a top-level script named run, run_all, start, execute or main (.sh, .py,
        .R, .jl, .bat; any case); a package __main__.py whose `python -m` is documented
        in the README; a declared console script ([project.scripts],
        [tool.poetry.scripts], setup.py/setup.cfg console_scripts); a target run, all,
        execute, analysis, main or reproduce in a Make-like file (Makefile, makefile,
        GNUmakefile, justfile, Taskfile.yml, tasks.py, dodo.py at the root or an
        environment location); a top-level Snakefile (or workflow/Snakefile) or main.nf.
        80: a README heading of the run family of doc_structure (usage, run, quick
        start, how to use, …) or a runnable README command as in usage_examples. 0
        otherwise.
    Why it matters:
        A re-user needs to know where execution starts; a conventional entry point or a
        documented run command saves them from guessing which of many scripts to run.
    Evidence:
        The entry-point script, the Make-like target line, the console-script
        declaration, the workflow file; or the README heading or command line.
    How to fix:
        Add a top-level run.sh (or a `make all`/`run` target) that runs the whole
        analysis, and document it under a "## Usage" heading.
    Known false positives:
        A main.py or `all:` target that only builds documentation or a library still
        counts; the content of the entry point is not checked. A console script of a
        library counts although it may not reproduce any result.
    """
    evidence: list[Evidence] = []
    for path in tree.files_in(""):
        if _ENTRY_SCRIPT.fullmatch(_name(path)):
            evidence.append(Evidence(path, "conventional entry-point script", rule="execution_entry_point.script"))
        elif _WORKFLOW_FILE.fullmatch(_name(path)):
            evidence.append(Evidence(path, "workflow entry file", rule="execution_entry_point.workflow"))
    workflow_snakefile = tree.find_ci("snakefile", "workflow") if tree.is_dir("workflow") else None
    if workflow_snakefile:
        evidence.append(Evidence(workflow_snakefile, "workflow entry file", rule="execution_entry_point.workflow"))
    for path in tree.make_like_files():
        for target in tree.task_targets(path):
            if target.name.lower() in _ENTRY_TARGETS:
                evidence.append(Evidence(path, f"task target '{target.name}'", rule="execution_entry_point.make_target",
                                         line_start=target.line, snippet=f"{target.name}:"))
    scripts = console_scripts(tree)
    for script in scripts:
        evidence.append(Evidence(script.path, f"console script '{script.name}'",
                                 rule="execution_entry_point.console_script", line_start=script.line,
                                 snippet=script.name))
    doc = tree.readme_document()
    for line, main in _documented_main_modules(tree, doc):
        evidence.append(Evidence(line.path, f"documented `python -m` of {main}", rule="execution_entry_point.main_module",
                                 line_start=line.line, snippet=line.text))
    counts = {"entry_points": len(evidence)}
    if evidence:
        return Result(100, evidence=evidence[:MAX_EVIDENCE], counts=counts,
                      reason=f"{len(evidence)} entry point(s); first: {evidence[0].path}")
    fix = ("Add a top-level run.sh (or a Makefile `all` target) that runs the whole analysis "
           "and document it under a README '## Usage' heading.")
    if doc is not None:
        headings = [h for h in doc.headings if _RUN_FAMILY.matches(h.text)]
        commands = runnable_commands(doc, frozenset(s.name for s in scripts))
        readme_evidence = [Evidence(doc.path, f"run section heading '{h.text}'", rule="execution_entry_point.readme_heading",
                                    line_start=_file_line(doc, h.line), snippet=h.text) for h in headings[:5]]
        readme_evidence += [Evidence(r.line.path, "runnable README command", rule="execution_entry_point.readme_command",
                                     line_start=r.line.line, snippet=r.line.text) for r in commands[:5]]
        counts.update({"run_headings": len(headings), "runnable_commands": len(commands)})
        if readme_evidence:
            return Result(80, evidence=readme_evidence, fix=fix, counts=counts,
                          reason="the README documents how to run, but there is no conventional entry point")
    return Result(0, evidence=[], fix=fix, counts=counts, reason="no entry point and no run instructions")


# --------------------------------------------------------------------------- D6 docstring_coverage


@dataclass(frozen=True)
class _Undocumented:
    """A public definition without a docstring."""

    path: str
    name: str
    line: int
    header: str


_SKIP_DECORATORS = re.compile(r"(?:typing\.)?overload|\w+\.(?:setter|deleter)")


def _decorator_text(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except (ValueError, TypeError, AttributeError, RecursionError):
        return ""


def _skipped_by_decorator(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """``@overload`` stubs and property setters/deleters share the main definition's docs."""
    if not node.decorator_list:
        return False
    return any(_SKIP_DECORATORS.fullmatch(_decorator_text(d)) for d in node.decorator_list)


def _module_level_defs(body: Iterable[ast.stmt]) -> Iterable[ast.stmt]:
    """Definitions at module scope, also inside module-level if/try/with blocks."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node
        elif isinstance(node, (ast.If, ast.Try, ast.With, ast.AsyncWith)) or type(node).__name__ == "TryStar":
            for field_name in ("body", "orelse", "finalbody"):
                yield from _module_level_defs(getattr(node, field_name, []) or [])
            for handler in getattr(node, "handlers", []) or []:
                yield from _module_level_defs(handler.body)


def _has_docstring(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> bool:
    """Whether ``node`` has a non-blank docstring (what ``ast.get_docstring`` reads,
    without its function call and ``ast.Str`` compatibility check per definition)."""
    first = node.body[0] if node.body else None
    return isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
        and isinstance(first.value.value, str) and bool(first.value.value.strip())


def _ast_definitions(path: str, tree_: ast.Module, lines: list[str]) -> tuple[int, list[_Undocumented]]:
    """The number of public definitions in ``tree_`` and those without a docstring."""
    public = 0
    undocumented: list[_Undocumented] = []

    def add(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        nonlocal public
        public += 1
        if not _has_docstring(node):
            header = lines[node.lineno - 1].strip() if 0 < node.lineno <= len(lines) else node.name
            undocumented.append(_Undocumented(path, node.name, node.lineno, header))

    for node in _module_level_defs(tree_.body):
        if node.name.startswith("_"):
            continue
        if isinstance(node, ast.ClassDef):
            add(node)
            for member in node.body:
                if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)) and not member.name.startswith("_") \
                        and not _skipped_by_decorator(member):
                    add(member)
        elif not _skipped_by_decorator(node):
            add(node)
    return public, undocumented


_DEF_LINE = re.compile(r"^(?P<indent>[ \t]*)(?:async[ \t]+)?(?P<kind>def|class)[ \t]+(?P<name>\w+)")
_DOCSTRING_START = re.compile(r"""^[ \t]*[rRuUbB]{0,2}(?:\"\"\"|'''|"|')""")


def _regex_definitions(path: str, lines: list[str]) -> tuple[int, list[_Undocumented]]:
    """The number of public definitions of a file that does not parse (Python 2), and
    those without a docstring: column-0 defs and classes, and defs one level inside a
    public column-0 class."""
    public = 0
    undocumented: list[_Undocumented] = []
    public_class = False
    method_indent: str | None = None
    for index, line in enumerate(lines):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _DEF_LINE.match(line)
        indent = line[: len(line) - len(line.lstrip())]
        if not indent:
            public_class = False
            method_indent = None
        if match is None:
            if public_class and method_indent is None and indent:
                method_indent = indent
            continue
        name = match.group("name")
        if not indent:
            public_class = match.group("kind") == "class" and not name.startswith("_")
        elif not (public_class and (method_indent is None or indent == method_indent) and match.group("kind") == "def"):
            continue
        else:
            method_indent = indent
        if name.startswith("_"):
            continue
        public += 1
        if not _regex_documented(lines, index):
            undocumented.append(_Undocumented(path, name, index + 1, line.strip()))
    return public, undocumented


def _regex_documented(lines: list[str], index: int) -> bool:
    """Whether the statement after the header starting at ``index`` is a string."""
    depth = 0
    for j in range(index, min(len(lines), index + 50)):
        code = lines[j].split("#", 1)[0]
        depth += code.count("(") + code.count("[") - code.count(")") - code.count("]")
        if depth <= 0 and code.rstrip().endswith(":"):
            following = next((line for line in lines[j + 1:j + 5] if line.strip()), "")
            return _DOCSTRING_START.match(following) is not None
    return False


@detector("docstring_coverage", version="2.0.0")
def docstring_coverage(tree: TreeIndex) -> Result:
    """Public Python functions, classes and methods have docstrings.

    What it checks:
        Every .py/.pyw file is parsed with ast (files that do not parse, such as Python 2
        code, fall back to a line scan). Public definitions are module-level functions
        and classes whose name does not start with "_" (also inside module-level
        if/try/with blocks) and the methods of public classes whose name does not start
        with "_" (dunder methods excluded); @overload stubs and property setters/deleters
        are skipped. Value = 100 × documented / public, where documented means a
        non-empty docstring. No public definition in any file → 50, not applicable.
        Notebooks and R roxygen are not counted (§0.1.26).
    Why it matters:
        Docstrings tell a re-user what a function expects and returns without reading
        its body; they are the smallest unit of API documentation.
    Evidence:
        The first undocumented public definitions (path, line, signature line), up to
        20. ``counts`` has public_defs, documented_defs, files and files_unparsed.
    How to fix:
        Add a docstring to each public function, class and method listed, stating what
        it does, its parameters and its return value.
    Known false positives:
        A one-word docstring counts as documented. Functions that are public only by
        naming (helpers in a script) are expected to be documented too. In files that do
        not parse, definitions inside if/try blocks are missed.
    """
    public = 0
    missing: list[_Undocumented] = []
    files = unparsed = 0
    for path in tree.by_type("python"):
        unit = tree.python_unit(path)
        if unit is None:
            continue
        files += 1
        if unit.tree is not None:
            found, undocumented = _ast_definitions(path, unit.tree, unit.lines)
        else:
            unparsed += 1
            found, undocumented = _regex_definitions(path, unit.lines)
        public += found
        missing.extend(undocumented)
    documented = public - len(missing)
    counts = {"public_defs": public, "documented_defs": documented, "files": files,
              "files_unparsed": unparsed}
    if not public:
        reason = "no Python files" if files == 0 else "no public Python definitions"
        return Result(50, applicable=False, counts=counts, reason=reason)
    value = 100 * documented / public
    evidence = [Evidence(d.path, f"public definition '{d.name}' has no docstring",
                         rule="docstring_coverage.undocumented", line_start=d.line, snippet=d.header)
                for d in missing[:MAX_EVIDENCE]]
    fix = None
    if missing:
        first = missing[0]
        fix = (f"Add docstrings to the {len(missing)} undocumented public definition(s), "
               f"starting with '{first.name}' in {first.path}:{first.line}.")
    return Result(value, evidence=evidence, fix=fix, counts=counts,
                  reason=f"{documented} of {public} public definitions documented")


# --------------------------------------------------------------------------- D7 reuse_metadata

_LICENCE_FILE = re.compile(r"licen[cs]e.*|copying.*|unlicense.*", re.IGNORECASE)
_REUSE_LEVELS = (0, 40, 70, 100)


def _licence(tree: TreeIndex) -> tuple[Evidence | None, str | None]:
    for path in tree.match(_LICENCE_FILE, ""):
        info = tree.info(path)
        # license.py and the like are code; an empty file grants nothing.
        if info is None or info.type is not None or info.size == 0:
            continue
        first = next((line for line in tree.lines(path) if line.strip()), None)
        return Evidence(path, "licence file", rule="reuse_metadata.licence",
                        line_start=1 if first is not None else None, snippet=first), None
    licenses_dir = tree.find_ci("LICENSES")
    if licenses_dir and tree.is_dir(licenses_dir):
        inside = tree.files_under(licenses_dir)
        if inside:
            return Evidence(inside[0], "REUSE licence folder", rule="reuse_metadata.reuse_licenses"), None
    return None, "no licence file (LICENSE, COPYING, UNLICENSE or a REUSE LICENSES/ folder)"


def _citation(tree: TreeIndex) -> tuple[Evidence | None, str | None]:
    path = tree.find_ci("CITATION.cff")
    if path is None or not tree.is_file(path):
        return None, "no CITATION.cff"
    data = tree.yaml(path)
    if not isinstance(data, dict) or "cff-version" not in data:
        return None, f"{path} is not valid CFF (it must parse as YAML and declare cff-version)"
    line = _line_of(tree.text(path) or "", r"^\s*[\"']?cff-version[\"']?\s*:")
    return Evidence(path, "citation metadata (CFF)", rule="reuse_metadata.citation_cff", line_start=line,
                    snippet=f"cff-version: {data['cff-version']}"), None


def _codemeta(tree: TreeIndex) -> tuple[Evidence | None, str | None]:
    path = tree.find_ci("codemeta.json")
    if path is None or not tree.is_file(path):
        return None, "no codemeta.json"
    data = tree.json(path)
    if not isinstance(data, dict) or "@context" not in data:
        return None, f"{path} is not valid CodeMeta (it must parse as JSON and have an @context)"
    line = _line_of(tree.text(path) or "", r"\"@context\"\s*:")
    return Evidence(path, "software metadata (CodeMeta)", rule="reuse_metadata.codemeta", line_start=line,
                    snippet=(tree.lines(path)[line - 1] if line else None)), None


@detector("reuse_metadata", version="2.0.0")
def reuse_metadata(tree: TreeIndex) -> Result:
    """A licence, citation metadata and software metadata let others reuse and credit the work.

    What it checks:
        Three items at the top level: a non-empty licence file (case-insensitive
        LICEN[CS]E*, COPYING*, UNLICENSE*; source files such as license.py excluded) or
        a REUSE LICENSES/ folder holding a file; a CITATION.cff that parses as YAML and
        has cff-version; a codemeta.json that parses as JSON and has @context. 0 / 1 / 2
        / 3 items → 0 / 40 / 70 / 100.
    Why it matters:
        Without a licence nobody may legally reuse the code; citation and CodeMeta
        metadata let archives, indexers and authors credit and find it.
    Evidence:
        Each file found (with the line of cff-version / @context); invalid CFF or
        CodeMeta files are named in the reason. ``counts`` has the three items.
    How to fix:
        Add the missing items: a LICENSE file, a CITATION.cff (cffinit can write one),
        a codemeta.json (codemeta generators can derive it from your package metadata).
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
    fix = None
    if value < 100:
        wanted = {
            "licence": "a LICENSE file",
            "citation_cff": "a CITATION.cff with cff-version",
            "codemeta": "a codemeta.json with @context",
        }
        fix = "Add " + ", ".join(wanted[k] for k, ok in present.items() if not ok) + " at the top level."
    reason = f"{len(evidence)} of 3 reuse metadata items" + (f"; {'; '.join(problems)}" if problems else "")
    return Result(value, evidence=evidence, fix=fix, reason=reason, counts={**present, "items": len(evidence)})
