"""The six outcome probes of the execution tier (METRICS.md §8), run in a sandbox.

A copy of the stored tree is installed and run inside :mod:`.sandbox`; each probe gives
one ROS component on the 0–100 scale, or nothing when it does not apply:

* **I** (install): an isolated environment (a virtual environment of the Python that
  runs reproscore; a conda environment for ``environment.yml`` when conda or mamba is
  available) and the declared dependencies installed: runtime requirements files, then
  the project itself when it has a ``pyproject.toml``/``setup.py``/``setup.cfg``; R
  (``DESCRIPTION``, ``renv.lock``) and Julia (``Project.toml``) with their toolchains
  when present, else recorded as not applicable. 100 when every step exits 0, else 0.
  The only step with network access (unless ``offline_install``).
* **E′** (imports): the share of the deposit's third-party Python imports (the set the
  ``import_resolvability`` detector counts) that import without ImportError.
* **X** (execution): the entry point the ``execution_entry_point`` detector found, run
  from the tree's root; 100 when it exits 0 within the timeout, else 0.
* **N** (notebooks): every notebook executed top to bottom with nbclient in a kernel of
  the deposit's environment; the share that finish without an error.
* **Δ** (determinism): the entry point and the notebooks that succeeded run a second
  time on a fresh copy of the tree; the share of outputs (standard output, each file
  created or changed, each code cell's output) that match: text exactly, numbers within
  1e-6 (relative, or absolute near zero).
* **T** (tests): the test suite on a fresh copy (pytest when the deposit's environment
  has it, else unittest); the pass rate of the tests that ran (skipped ones excluded).

Each probe records its value, the command, the exit status, the duration and a redacted
log excerpt. Failures are classified in the paper's failure-mode vocabulary:
``install_dep`` (an install step failed), ``missing_module`` (ImportError,
ModuleNotFoundError), ``missing_data`` (FileNotFoundError and network errors: the
sandbox has no network), ``code_error`` (any other error) and ``timeout``; the deposit's
failure class is the first probe's, in the order I, E′, X, N, T. After a failed install
the other probes still run, in whatever the install left: the paper's corpus too
executed notebooks of repositories whose install failed.
"""

from __future__ import annotations

import json
import math
import os
import platform
import re
import shlex
import shutil
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from scoring.model import redact
from scoring.registry import load_detectors
from scoring.tree import TreeIndex

from .sandbox import Limits, RunResult, Sandbox, open_sandbox

__all__ = [
    "FAILURE_CLASSES",
    "PROBE_IDS",
    "RUN_ORDER",
    "EntryPoint",
    "ExecutionReport",
    "ProbeResult",
    "classify_failure",
    "find_entry_point",
    "outputs_match",
    "parse_probes",
    "run_probes",
]

# Component ids in the rubric's order, and the order the probes run in.
PROBE_IDS: tuple[str, ...] = ("I", "X", "delta", "N", "E_prime", "T")
RUN_ORDER: tuple[str, ...] = ("I", "E_prime", "X", "N", "delta", "T")
# The order in which a probe's failure becomes the deposit's failure class.
CLASS_ORDER: tuple[str, ...] = ("I", "E_prime", "X", "N", "T")
FAILURE_CLASSES: tuple[str, ...] = ("install_dep", "missing_module", "missing_data", "code_error", "timeout")
PROBE_LABELS = {"I": "I", "X": "X", "delta": "Δ", "N": "N", "E_prime": "E′", "T": "T"}
_ALIASES = {
    "i": "I", "install": "I",
    "x": "X", "execution": "X",
    "delta": "delta", "δ": "delta", "d": "delta", "determinism": "delta",
    "n": "N", "notebooks": "N",
    "e_prime": "E_prime", "e": "E_prime", "e'": "E_prime", "e′": "E_prime", "imports": "E_prime",
    "t": "T", "tests": "T",
}

MEASURED = "measured"
NOT_APPLICABLE = "not_applicable"
ERROR = "error"

LOG_EXCERPT_CHARS = 2000
KERNEL_NAME = "reproscore-deposit"
KERNEL_GRACE_SECONDS = 60.0
OUTPUT_TEXT_BYTES = 2 * 1024 * 1024
MAX_OUTPUT_FILES = 2000
NUMBER_TOLERANCE = 1e-6
_SKIP_DIRS = frozenset({"__pycache__", ".ipynb_checkpoints", ".pytest_cache", ".mypy_cache", ".git"})
TOOLCHAINS = ("Rscript", "julia", "make", "snakemake", "nextflow", "conda", "mamba", "micromamba")


def parse_probes(spec: str | Iterable[str] | None) -> tuple[str, ...]:
    """Component ids from ``I,X,delta,N,E_prime,T`` (any case; ``E`` for E′), in run
    order; None or empty: all six. Raises ValueError naming an unknown probe."""
    if spec is None:
        return RUN_ORDER
    items = [s.strip() for s in (spec.split(",") if isinstance(spec, str) else spec)]
    chosen: set[str] = set()
    for item in items:
        if not item:
            continue
        cid = _ALIASES.get(item.lower())
        if cid is None:
            raise ValueError(f"unknown probe {item!r} (expected some of I, X, delta, N, E_prime, T)")
        chosen.add(cid)
    return tuple(p for p in RUN_ORDER if p in chosen) or RUN_ORDER


# --------------------------------------------------------------------------- results


@dataclass
class ProbeResult:
    """One probe: its component value (0–100, None when not available), what ran and
    what came of it."""

    id: str
    value: float | None = None
    status: str = NOT_APPLICABLE  # measured | not_applicable | error
    reason: str = ""
    command: str | None = None
    exit_status: int | None = None
    duration: float = 0.0
    log_excerpt: str = ""
    failure_class: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "probe": self.id,
            "value": self.value,
            "status": self.status,
            "reason": self.reason,
            "command": self.command,
            "exit_status": self.exit_status,
            "duration_seconds": round(self.duration, 3),
            "log_excerpt": self.log_excerpt,
            "failure_class": self.failure_class,
            "details": self.details,
        }


@dataclass
class ExecutionReport:
    """All probes of one execution, the deposit's failure class and how it ran."""

    probes: dict[str, ProbeResult]
    failure_class: str | None
    sandbox: str
    started_at: str
    finished_at: str
    duration: float
    environment: dict[str, Any]

    def components(self) -> dict[str, float | None]:
        """Every component id with its value on the 0–100 scale, None when not available."""
        return {
            cid: (self.probes[cid].value if cid in self.probes and self.probes[cid].status == MEASURED else None)
            for cid in PROBE_IDS
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "components": self.components(),
            "failure_class": self.failure_class,
            "sandbox": self.sandbox,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "duration_seconds": round(self.duration, 3),
            "environment": self.environment,
            "probes": [p.to_dict() for p in self.probes.values()],
        }


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def excerpt(text: str, limit: int = LOG_EXCERPT_CHARS) -> str:
    """The redacted tail of a log (the end holds the traceback)."""
    text = redact(text.strip())
    return text if len(text) <= limit else "…" + text[-(limit - 1) :]


# --------------------------------------------------------------------------- failure classes

_EXCEPTION_LINE = re.compile(
    r"^(?:[A-Za-z_][\w]*\.)*(?P<name>[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt|error|timeout))"
    r"(?::\s*(?P<message>.*))?\s*$",
    re.M,
)
_MISSING_MODULE = frozenset({"ModuleNotFoundError", "ImportError"})
_MISSING_DATA = frozenset({
    "FileNotFoundError", "ConnectionError", "ConnectionRefusedError", "ConnectionResetError",
    "ConnectionAbortedError", "URLError", "HTTPError", "gaierror", "herror", "timeout",
    "TimeoutError", "NewConnectionError", "MaxRetryError", "NameResolutionError", "ProxyError",
    "SSLError", "RemoteDisconnected", "ConnectTimeout", "ReadTimeout", "ConnectTimeoutError",
    "ClientConnectorError", "IncompleteRead",
})
_NETWORK_WORDS = re.compile(
    r"network is unreachable|name or service not known|temporary failure in name resolution|"
    r"no route to host|connection refused|cannot assign requested address|"
    r"could not resolve host|failed to establish a new connection",
    re.I,
)


def classify_exception(name: str | None, message: str = "") -> str:
    """The failure class of a Python exception name (and its message, for OSError)."""
    if not name:
        return "code_error"
    if name in _MISSING_MODULE:
        return "missing_module"
    if name in _MISSING_DATA:
        return "missing_data"
    if name in ("OSError", "IOError", "CalledProcessError") and _NETWORK_WORDS.search(message or ""):
        return "missing_data"
    return "code_error"


def classify_failure(result: RunResult) -> str:
    """The failure class of a failed command, from its traceback: the last exception
    line of the output decides; a timeout is ``timeout``; otherwise ``code_error``."""
    if result.timed_out:
        return "timeout"
    text = result.output()
    matches = list(_EXCEPTION_LINE.finditer(text))
    if matches:
        last = matches[-1]
        return classify_exception(last.group("name"), last.group("message") or "")
    if _NETWORK_WORDS.search(text):
        return "missing_data"
    return "code_error"


# --------------------------------------------------------------------------- entry point


@dataclass(frozen=True)
class EntryPoint:
    """The command X runs (``python`` and console scripts resolve in the deposit's
    environment), from which evidence rule of ``execution_entry_point``."""

    argv: tuple[str, ...]
    rule: str
    path: str | None

    @property
    def command(self) -> str:
        return shlex.join(self.argv)


_PROMPT = re.compile(r"^\s*(?:\$|%|>|!)\s+|^\s*!")


def _strip_prompt(text: str) -> str:
    return _PROMPT.sub("", text, count=1).strip()


def _main_module_argv(text: str) -> tuple[str, ...] | None:
    try:
        words = shlex.split(_strip_prompt(text))
    except ValueError:
        return None
    for i, word in enumerate(words[:-2]):
        if re.fullmatch(r"python(?:3(?:\.\d+)?)?|py", word) and words[i + 1] == "-m":
            return ("python", *words[i + 1 :])
    return None


def find_entry_point(index: TreeIndex) -> tuple[EntryPoint | None, str]:
    """The entry point X runs, from the ``execution_entry_point`` detector's evidence
    (first usable one, in the detector's order), and a sentence saying why."""
    measurement = load_detectors()["execution_entry_point"].run(index)
    skipped: list[str] = []
    for ev in measurement.evidence:
        rule = ev.rule.rsplit(".", 1)[-1]
        argv: tuple[str, ...] | None = None
        if rule == "script" and ev.path:
            suffix = ev.path.rsplit(".", 1)[-1].lower()
            argv = {
                "py": ("python", ev.path), "sh": ("bash", ev.path), "r": ("Rscript", ev.path),
                "jl": ("julia", "--project=.", ev.path),
            }.get(suffix)
            if argv is None:
                skipped.append(f"{ev.path} (a Windows batch file)")
        elif rule == "make_target" and ev.snippet:
            argv = ("make", ev.snippet.rstrip(":").strip())
        elif rule == "console_script" and ev.snippet:
            argv = (ev.snippet,)
        elif rule == "main_module" and ev.snippet:
            argv = _main_module_argv(ev.snippet)
        elif rule == "workflow" and ev.path:
            argv = ("nextflow", "run", ev.path) if ev.path.lower().endswith(".nf") else (
                "snakemake", "--cores", "1", "--snakefile", ev.path)
        elif rule == "readme_command" and ev.snippet:
            argv = ("bash", "-c", _strip_prompt(ev.snippet))
        if argv:
            return EntryPoint(argv, ev.rule, ev.path), f"{ev.reason} ({ev.path})"
    if skipped:
        return None, "no runnable entry point: " + ", ".join(skipped)
    return None, measurement.reason or "no entry point and no run instructions"


# --------------------------------------------------------------------------- outputs (Δ)

_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|(?i:nan|[-+]?inf)")


def _numbers_match(a: str, b: str) -> bool:
    try:
        x, y = float(a), float(b)
    except ValueError:
        return a == b
    if math.isnan(x) and math.isnan(y):
        return True
    return math.isclose(x, y, rel_tol=NUMBER_TOLERANCE, abs_tol=NUMBER_TOLERANCE)


def outputs_match(first: str, second: str) -> bool:
    """Text matches exactly, numbers within 1e-6 (relative, or absolute near zero)."""
    if first == second:
        return True
    a_text, b_text = _NUMBER.split(first), _NUMBER.split(second)
    if a_text != b_text:
        return False
    a_nums, b_nums = _NUMBER.findall(first), _NUMBER.findall(second)
    return len(a_nums) == len(b_nums) and all(_numbers_match(x, y) for x, y in zip(a_nums, b_nums, strict=True))


def _stat_tree(root: Path) -> dict[str, tuple[int, int]]:
    found: dict[str, tuple[int, int]] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in _SKIP_DIRS]
        for name in files:
            path = os.path.join(folder, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            found[os.path.relpath(path, root)] = (st.st_size, st.st_mtime_ns)
    return found


def _read_output(path: Path) -> str:
    import hashlib

    try:
        if path.is_symlink():
            return "link:" + os.readlink(path)
        size = path.stat().st_size
        with open(path, "rb") as handle:
            if size <= OUTPUT_TEXT_BYTES:
                data = handle.read()
                try:
                    return data.decode("utf-8")
                except UnicodeDecodeError:
                    return "sha256:" + hashlib.sha256(data).hexdigest()
            digest = hashlib.sha256()
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
            return "sha256:" + digest.hexdigest()
    except OSError as exc:
        return f"unreadable: {exc.strerror}"


def _changed_files(root: Path, pristine: Mapping[str, tuple[int, int]]) -> dict[str, str]:
    """Files created or changed by a run, relative path → content (text or hash)."""
    out: dict[str, str] = {}
    for rel, stamp in sorted(_stat_tree(root).items()):
        if rel.endswith((".pyc", ".pyo")):
            continue
        if pristine.get(rel) != stamp:
            out[rel] = _read_output(root / rel)
            if len(out) >= MAX_OUTPUT_FILES:
                break
    return out


# --------------------------------------------------------------------------- environment plan


@dataclass
class InstallStep:
    kind: str  # pip-requirements | pip-project | conda | r | julia
    argv: list[str]
    source: str  # the manifest
    env: dict[str, str] = field(default_factory=dict)


@dataclass
class EnvironmentPlan:
    requirements: list[str] = field(default_factory=list)
    project: bool = False
    conda_file: str | None = None
    r_manifest: str | None = None
    julia_manifest: str | None = None
    notes: list[str] = field(default_factory=list)


def _installable_project(index: TreeIndex) -> bool:
    if index.is_file("setup.py") or index.is_file("setup.cfg"):
        return True
    if index.is_file("pyproject.toml"):
        data = index.toml("pyproject.toml") or {}
        return bool(data.get("project") or data.get("build-system") or (data.get("tool") or {}).get("poetry"))
    return False


def plan_environment(index: TreeIndex) -> EnvironmentPlan:
    """Which manifests the install step uses (root first, then the other environment
    locations: binder/, requirements/, …)."""
    plan = EnvironmentPlan()
    manifests = index.manifests()
    requirements = [m.path for m in manifests if m.kind == "requirements" and m.runtime]
    root = [p for p in requirements if "/" not in p]
    plan.requirements = root or requirements[:1]
    plan.project = _installable_project(index)
    conda = [m.path for m in manifests if m.kind == "conda" and m.runtime]
    plan.conda_file = next((p for p in conda if "/" not in p), conda[0] if conda else None)
    description = [m.path for m in manifests if m.kind == "description"]
    plan.r_manifest = description[0] if description else ("renv.lock" if index.is_file("renv.lock") else None)
    julia = [m.path for m in manifests if m.kind == "julia-project"]
    plan.julia_manifest = julia[0] if julia else None
    if any(m.kind == "pipfile" for m in manifests) and not (plan.requirements or plan.project):
        plan.notes.append("Pipfile: not installed (pipenv is not used; declare requirements.txt or pyproject.toml)")
    return plan


def _toolchains() -> dict[str, str | None]:
    return {name: shutil.which(name) for name in TOOLCHAINS}


def _tool_prefix(path: str) -> str | None:
    real = os.path.realpath(path)
    prefix = os.path.dirname(os.path.dirname(real))
    return None if prefix in ("/", "/usr") or prefix.startswith("/usr/") else prefix


def _host_pip_usable() -> bool:
    """pip of the running Python can install into another interpreter (``--python``,
    pip ≥ 22.3): the deposit's venv then needs no pip of its own (faster)."""
    try:
        from importlib.metadata import version

        from packaging.version import Version

        return Version(version("pip")) >= Version("22.3")
    except Exception:  # noqa: BLE001 - no pip, or an unparseable version
        return False


def _kernel_site_entries() -> list[tuple[str, Path]]:
    """Top-level files and folders of ipykernel and everything it requires, in the
    running Python's environment: the only part of it a notebook kernel may import
    (appended after the deposit's own packages)."""
    from importlib import metadata

    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    entries: dict[str, Path] = {}
    todo, seen = ["ipykernel"], set()
    while todo:
        name = canonicalize_name(todo.pop())
        if name in seen:
            continue
        seen.add(name)
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        for text in dist.requires or []:
            try:
                req = Requirement(text)
            except InvalidRequirement:
                continue
            if req.marker is not None and not req.marker.evaluate({"extra": ""}):
                continue
            todo.append(req.name)
        for file in dist.files or []:
            top = file.parts[0] if file.parts else ""
            if not top or top in ("..", "__pycache__") or top.endswith(".pth"):
                continue
            located = Path(os.path.realpath(dist.locate_file(top)))
            if located.exists():
                entries.setdefault(top, located)
    return [(k, entries[k]) for k in sorted(entries)]


def notebook_support() -> str | None:
    """None when notebooks can be executed here, else why not."""
    from importlib.util import find_spec

    missing = [name for name in ("nbclient", "nbformat", "ipykernel") if find_spec(name) is None]
    if missing:
        return (f"{', '.join(missing)} not installed with reproscore: install the extra "
                "reproscore[execute] to execute notebooks")
    return None


# --------------------------------------------------------------------------- the run


class _Run:
    """State of one execution: the sandbox, the plan and the results so far."""

    def __init__(self, box: Sandbox, source: Path, index: TreeIndex, *, install_timeout: float,
                 offline_install: bool, pip_options: list[str], conda: str | None,
                 toolchains: Mapping[str, str | None], log: Callable[[str], None]) -> None:
        self.box = box
        self.source = source
        self.index = index
        self.install_timeout = install_timeout
        self.offline_install = offline_install
        self.pip_options = pip_options
        self.conda = conda
        self.toolchains = toolchains
        self.log = log
        self.python = box.path("venv", "bin", "python")
        self.env_bin = box.path("venv", "bin")
        self.pristine: dict[str, tuple[int, int]] = {}
        self.x_outputs: dict[str, str] | None = None
        self.x_result: RunResult | None = None
        self.nb_outputs: dict[str, list[str]] = {}
        self.env_extra: dict[str, str] = {}

    # -- helpers

    def env(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        # Toolchains found on the host (R, Julia, conda, make…), but never the folder of
        # reproscore's own environment: its programs are not the deposit's.
        own = (sys.prefix + os.sep, os.path.realpath(sys.prefix) + os.sep)
        tools = [os.path.dirname(p) for p in self.toolchains.values() if p and not p.startswith(own)]
        path = [self.env_bin, *tools, "/usr/local/bin", "/usr/bin", "/bin"]
        env = {
            "PATH": ":".join(dict.fromkeys(path)),
            "VIRTUAL_ENV": self.box.path("venv"),
            "PIP_NO_INPUT": "1",
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "PIP_ROOT_USER_ACTION": "ignore",
            "PIP_CACHE_DIR": self.box.path("home", ".cache", "pip"),
            "JUPYTER_PATH": self.box.tool("jupyter"),
            "JUPYTER_RUNTIME_DIR": self.box.path("home", ".local", "share", "jupyter", "runtime"),
            "JUPYTER_PLATFORM_DIRS": "1",
            "IPYTHONDIR": self.box.path("home", ".ipython"),
            "R_LIBS_USER": self.box.path("home", "R", "library"),
            "JULIA_DEPOT_PATH": self.box.path("home", ".julia"),
            "CONDA_PKGS_DIRS": self.box.path("home", ".conda", "pkgs"),
        }
        env.update(self.env_extra)
        if extra:
            env.update(extra)
        return env

    def run(self, argv: list[str], *, cwd: str | None = None, network: bool = False,
            timeout: float | None = None, env: Mapping[str, str] | None = None) -> RunResult:
        self.log(f"  $ {shlex.join(argv)}")
        return self.box.run(argv, cwd=cwd, network=network, timeout=timeout, env=self.env(env))

    def fresh_tree(self) -> None:
        """A pristine copy of the deposit at /sandbox/tree (the previous one removed)."""
        target = self.box.host("tree")
        if target.exists() or target.is_symlink():
            from .sandbox import _remove_tree

            _remove_tree(target)
        shutil.copytree(self.source, target, symlinks=True)
        self.box.hand_over(target)
        self.pristine = _stat_tree(target)

    def record(self, probe: ProbeResult, result: RunResult) -> None:
        probe.command = result.command
        probe.exit_status = result.exit_status
        probe.duration += result.duration
        probe.log_excerpt = excerpt(result.output())

    def has_tool(self, tool: str) -> bool:
        """``tool`` is on the host's PATH or in the deposit's environment."""
        if self.toolchains.get(tool) or shutil.which(tool):
            return True
        folder = self.env_bin
        host_bin = self.box.to_host(folder) if folder == self.box.root or folder.startswith(self.box.root + "/") else Path(folder)
        return (host_bin / tool).exists()

    # -- tools

    def prepare_tools(self) -> None:
        tools = self.box.host_tools
        here = Path(__file__).resolve().parent
        for name in ("_import_check.py", "_notebook_runner.py"):
            shutil.copy2(here / name, tools / name)
        site = tools / "kernel-site"
        site.mkdir()
        if notebook_support() is None:
            for name, entry in _kernel_site_entries():
                (site / name).symlink_to(entry)
        for folder, dirs, files in os.walk(tools):
            for name in dirs + files:
                path = os.path.join(folder, name)
                if not os.path.islink(path):
                    os.chmod(path, 0o755 if os.path.isdir(path) else 0o644)

    def write_kernel_spec(self) -> None:
        """The kernel of the deposit's interpreter (known once the environment is made:
        a venv, or a conda environment)."""
        boot = (f"import sys; sys.path.append({self.box.tool('kernel-site')!r}); "
                "from ipykernel import kernelapp as app; app.launch_new_instance()")
        spec_dir = self.box.host_tools / "jupyter" / "kernels" / KERNEL_NAME
        spec_dir.mkdir(parents=True, exist_ok=True)
        spec = {
            "argv": [self.python, "-c", boot, "-f", "{connection_file}"],
            "display_name": "Deposit environment (reproscore)",
            "language": "python",
        }
        (spec_dir / "kernel.json").write_text(json.dumps(spec, indent=1), encoding="utf-8")
        for path in (spec_dir.parent.parent, spec_dir.parent, spec_dir):
            path.chmod(0o755)
        (spec_dir / "kernel.json").chmod(0o644)

    # -- I

    def install_steps(self, plan: EnvironmentPlan, probe: ProbeResult) -> list[InstallStep] | None:
        """The install commands; None when the environment itself cannot be made."""
        steps: list[InstallStep] = []
        notes = list(plan.notes)
        pip = [sys.executable, "-m", "pip", "--python", self.python] if _host_pip_usable() else [self.python, "-m", "pip"]
        pip_install = [*pip, "install", "--no-input", "--progress-bar", "off", "--no-warn-script-location",
                       *self.pip_options]
        conda_tool = self.conda or self.toolchains.get("mamba") or self.toolchains.get("conda") or self.toolchains.get("micromamba")
        if plan.conda_file:
            if conda_tool:
                prefix = self.box.path("conda-env")
                steps.append(InstallStep("conda", [conda_tool, "env", "create", "--yes", "--quiet", "-p", prefix,
                                                   "-f", plan.conda_file], plan.conda_file))
                self.python = f"{prefix}/bin/python"
                self.env_bin = f"{prefix}/bin"
                pip = [sys.executable, "-m", "pip", "--python", self.python] if _host_pip_usable() else [self.python, "-m", "pip"]
                pip_install = [*pip, "install", "--no-input", "--progress-bar", "off", *self.pip_options]
            else:
                notes.append(f"{plan.conda_file}: not installed (neither conda nor mamba is available; "
                             "set execute.conda)")
        for path in plan.requirements:
            steps.append(InstallStep("pip-requirements", [*pip_install, "-r", path], path))
        if plan.project:
            steps.append(InstallStep("pip-project", [*pip_install, "."], "pyproject.toml/setup.py"))
        if plan.r_manifest:
            if self.toolchains.get("Rscript"):
                script = (
                    "lib <- Sys.getenv('R_LIBS_USER'); dir.create(lib, recursive=TRUE, showWarnings=FALSE); "
                    ".libPaths(c(lib, .libPaths())); "
                    "if (file.exists('renv.lock') && requireNamespace('renv', quietly=TRUE)) renv::restore(prompt=FALSE) "
                    "else if (requireNamespace('remotes', quietly=TRUE)) remotes::install_deps('.', dependencies=TRUE, upgrade='never') "
                    "else stop('neither renv nor remotes is installed')"
                )
                steps.append(InstallStep("r", ["Rscript", "-e", script], plan.r_manifest))
            else:
                notes.append(f"{plan.r_manifest}: R dependencies not applicable (Rscript is not installed)")
        if plan.julia_manifest:
            if self.toolchains.get("julia"):
                steps.append(InstallStep("julia", ["julia", "--project=.", "-e", "using Pkg; Pkg.instantiate()"],
                                         plan.julia_manifest))
            else:
                notes.append(f"{plan.julia_manifest}: Julia dependencies not applicable (julia is not installed)")
        probe.details["not_installed"] = notes
        if not any(s.kind == "conda" for s in steps):
            venv = [sys.executable if sys.prefix == sys.base_prefix else getattr(sys, "_base_executable", sys.executable),
                    "-m", "venv"]
            if _host_pip_usable():
                venv.append("--without-pip")
            result = self.run([*venv, self.box.path("venv")], cwd=self.box.path(), timeout=self.install_timeout)
            probe.details["environment"] = {"command": result.command, "exit_status": result.exit_status,
                                            "duration_seconds": round(result.duration, 3)}
            if not result.ok:
                self.record(probe, result)
                probe.status, probe.reason = ERROR, "the virtual environment could not be created"
                return None
        return steps

    def probe_install(self, plan: EnvironmentPlan) -> ProbeResult:
        probe = ProbeResult("I")
        steps = self.install_steps(plan, probe)
        if steps is None:
            return probe
        done = []
        for step in steps:
            result = self.run(step.argv, network=not self.offline_install, timeout=self.install_timeout,
                              env=step.env)
            done.append({"kind": step.kind, "manifest": step.source, "command": result.command,
                         "exit_status": result.exit_status, "duration_seconds": round(result.duration, 3)})
            self.record(probe, result)
            if not result.ok:
                probe.value, probe.status = 0.0, MEASURED
                probe.failure_class = "timeout" if result.timed_out else "install_dep"
                probe.reason = f"{step.kind} install from {step.source} failed" + (
                    " (timeout)" if result.timed_out else f" (exit status {result.exit_status})")
                break
        probe.details["steps"] = done
        if not steps:
            notes = probe.details.get("not_installed") or []
            probe.reason = "; ".join(notes) if notes else "no dependency manifest to install"
            return probe
        if probe.status != MEASURED:
            probe.value, probe.status = 100.0, MEASURED
            probe.reason = f"{len(steps)} install step(s) succeeded"
        return probe

    # -- E′

    def probe_imports(self, modules: list[str], timeout: float) -> ProbeResult:
        probe = ProbeResult("E_prime")
        if not modules:
            probe.reason = "no third-party Python imports"
            return probe
        out = self.box.path("out", "imports.jsonl")
        self.box.to_host(out).unlink(missing_ok=True)
        result = self.run([self.python, self.box.tool("_import_check.py"), out, *modules], timeout=timeout)
        self.record(probe, result)
        tried: dict[str, dict[str, Any]] = {}
        try:
            for line in self.box.to_host(out).read_text(encoding="utf-8").splitlines():
                record = json.loads(line)
                tried[record["module"]] = record
        except (OSError, ValueError, KeyError):
            pass
        failed = [m for m in modules if not tried.get(m, {}).get("ok", False)]
        probe.value = 100.0 * (len(modules) - len(failed)) / len(modules)
        probe.status = MEASURED
        probe.details = {
            "modules": len(modules),
            "failed": [{"module": m, "error": tried.get(m, {}).get("error") or ("timeout" if result.timed_out else "not tried"),
                        "message": redact(tried.get(m, {}).get("message", ""))} for m in failed],
        }
        if failed:
            probe.failure_class = "timeout" if result.timed_out and failed[0] not in tried else "missing_module"
            probe.reason = f"{len(failed)} of {len(modules)} third-party imports fail: {', '.join(failed[:5])}"
        else:
            probe.reason = f"all {len(modules)} third-party imports import"
        return probe

    # -- X

    def run_entry(self, entry: EntryPoint, timeout: float) -> tuple[RunResult, dict[str, str]]:
        result = self.run(list(entry.argv), timeout=timeout)
        outputs = {f"file:{k}": v for k, v in _changed_files(self.box.host("tree"), self.pristine).items()}
        if result.stdout.strip():
            outputs["stdout"] = result.stdout
        return result, outputs

    def probe_execution(self, entry: EntryPoint | None, why: str, timeout: float) -> ProbeResult:
        probe = ProbeResult("X")
        if entry is None:
            probe.reason = why
            return probe
        result, outputs = self.run_entry(entry, timeout)
        self.record(probe, result)
        probe.details = {"entry_point": entry.command, "rule": entry.rule, "found": why}
        tool = entry.argv[0]
        if result.exit_status == 127 and tool in TOOLCHAINS and not self.has_tool(tool):
            probe.reason = f"{tool} is not installed: the entry point {entry.command} cannot run here"
            return probe
        probe.status = MEASURED
        if result.ok:
            probe.value = 100.0
            probe.reason = f"{entry.command} exited 0 in {result.duration:.1f} s"
            self.x_outputs = outputs
        else:
            probe.value = 0.0
            probe.failure_class = classify_failure(result)
            probe.reason = f"{entry.command} " + (
                f"timed out after {timeout:g} s" if result.timed_out else f"exited {result.exit_status}")
        self.x_result = result
        return probe

    # -- N

    def run_notebook(self, path: str, timeout: float) -> tuple[RunResult, dict[str, Any]]:
        out = self.box.path("out", "notebook.json")
        self.box.to_host(out).unlink(missing_ok=True)
        folder = path.rsplit("/", 1)[0] if "/" in path else ""
        cwd = self.box.path("tree", folder) if folder else self.box.path("tree")
        result = self.run(
            [sys.executable, self.box.tool("_notebook_runner.py"), self.box.path("tree", path), out,
             f"{timeout:g}", KERNEL_NAME],
            cwd=cwd, timeout=timeout + KERNEL_GRACE_SECONDS,
        )
        try:
            data = json.loads(self.box.to_host(out).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {"ok": False, "error": "timeout" if result.timed_out else "runner_failed",
                    "message": result.output()[-500:], "outputs": []}
        return result, data

    def probe_notebooks(self, notebooks: list[str], timeout: float) -> ProbeResult:
        probe = ProbeResult("N")
        if not notebooks:
            probe.reason = "no notebooks"
            return probe
        unsupported = notebook_support()
        if unsupported:
            probe.status, probe.reason = ERROR, unsupported
            return probe
        self.write_kernel_spec()
        rows = []
        ok = 0
        for path in notebooks:
            result, data = self.run_notebook(path, timeout)
            probe.duration += result.duration
            probe.command = result.command
            error = data.get("error")
            row = {"path": path, "ok": bool(data.get("ok")), "error": error, "cell": data.get("cell"),
                   "message": redact(str(data.get("message") or ""))[:500], "duration_seconds": round(result.duration, 3)}
            rows.append(row)
            if data.get("ok"):
                ok += 1
                self.nb_outputs[path] = list(data.get("outputs") or [])
            else:
                if error == "runner_failed":
                    probe.log_excerpt = excerpt(result.output())
                if probe.failure_class is None:
                    probe.failure_class = ("timeout" if error == "timeout" or result.timed_out else
                                           classify_exception(error, str(data.get("message") or "")))
                    probe.exit_status = result.exit_status
                    probe.log_excerpt = probe.log_excerpt or excerpt(str(data.get("message") or ""))
        if probe.exit_status is None:
            probe.exit_status = 0
        probe.value = 100.0 * ok / len(notebooks)
        probe.status = MEASURED
        probe.details = {"notebooks": rows}
        probe.reason = f"{ok} of {len(notebooks)} notebooks ran to the end"
        return probe

    # -- Δ

    def probe_determinism(self, entry: EntryPoint | None, timeout: float) -> ProbeResult:
        probe = ProbeResult("delta")
        first: dict[str, str] = {}
        if self.x_outputs:
            first.update({f"X {k}": v for k, v in self.x_outputs.items()})
        for path, cells in self.nb_outputs.items():
            first.update({f"{path} cell {i + 1}": text for i, text in enumerate(cells) if text})
        if not first:
            probe.reason = ("no successful run produced an output to compare (the entry point and the "
                            "notebooks failed, or wrote nothing)")
            return probe
        self.fresh_tree()
        second: dict[str, str] = {}
        commands = []
        if self.x_outputs is not None and entry is not None:
            result, outputs = self.run_entry(entry, timeout)
            probe.duration += result.duration
            commands.append(result.command)
            second.update({f"X {k}": v for k, v in outputs.items()})
        for path in self.nb_outputs:
            result, data = self.run_notebook(path, timeout)
            probe.duration += result.duration
            commands.append(result.command)
            second.update({f"{path} cell {i + 1}": text for i, text in enumerate(data.get("outputs") or []) if text})
        names = sorted(set(first) | set(second))
        differing = [n for n in names if n not in first or n not in second or not outputs_match(first[n], second[n])]
        probe.value = 100.0 * (len(names) - len(differing)) / len(names)
        probe.status = MEASURED
        probe.command = " ; ".join(commands)
        probe.exit_status = 0
        probe.details = {"outputs": len(names), "differing": differing[:50]}
        probe.reason = (f"{len(names) - len(differing)} of {len(names)} outputs match across two runs"
                        + (f"; differing: {', '.join(differing[:3])}" if differing else ""))
        probe.log_excerpt = excerpt("\n".join(
            f"{n}:\n  run 1: {first.get(n, '<absent>')[:200]!r}\n  run 2: {second.get(n, '<absent>')[:200]!r}"
            for n in differing[:5]))
        return probe

    # -- T

    def probe_tests(self, timeout: float) -> ProbeResult:
        probe = ProbeResult("T")
        tests = [p for p in self.index.by_type("python")
                 if re.fullmatch(r"test_.*\.py|.*_test\.py", p.rsplit("/", 1)[-1])]
        if not tests:
            probe.reason = "no Python test files (test_*.py, *_test.py)"
            return probe
        self.fresh_tree()
        has_pytest = self.run([self.python, "-c", "import pytest"], timeout=min(timeout, 120)).ok
        if has_pytest:
            junit = self.box.path("out", "junit.xml")
            self.box.to_host(junit).unlink(missing_ok=True)
            result = self.run([self.python, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={junit}"],
                              timeout=timeout)
            counts = _junit_counts(self.box.to_host(junit))
            runner = "pytest"
        else:
            result = self.run([self.python, "-m", "unittest", "discover", "-v"], timeout=timeout)
            counts = _unittest_counts(result.stderr)
            runner = "unittest"
        self.record(probe, result)
        total, failed, skipped = counts
        ran = total - skipped
        probe.details = {"runner": runner, "tests": total, "failed": failed, "skipped": skipped, "files": len(tests)}
        if result.timed_out:
            probe.value, probe.status, probe.failure_class = 0.0, MEASURED, "timeout"
            probe.reason = f"the test suite timed out after {timeout:g} s"
            return probe
        if ran <= 0:
            probe.reason = (f"{runner} ran no test" + ("" if has_pytest else
                            " (pytest is not installed in the deposit's environment)"))
            return probe
        probe.value = 100.0 * (ran - failed) / ran
        probe.status = MEASURED
        probe.reason = f"{ran - failed} of {ran} tests pass ({runner})"
        if failed:
            probe.failure_class = classify_failure(result)
        return probe


def _junit_counts(path: Path) -> tuple[int, int, int]:
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return (0, 0, 0)
    total = failed = skipped = 0
    for case in root.iter("testcase"):
        total += 1
        kinds = {child.tag for child in case}
        if kinds & {"failure", "error"}:
            failed += 1
        elif "skipped" in kinds:
            skipped += 1
    if total == 0:  # a collection error is reported on the suite, not as a test case
        for suite in root.iter("testsuite"):
            errors = int(suite.get("errors", "0") or 0)
            total += errors
            failed += errors
    return (total, failed, skipped)


def _unittest_counts(text: str) -> tuple[int, int, int]:
    ran = re.findall(r"^Ran (\d+) tests?", text, re.M)
    if not ran:
        return (0, 0, 0)
    total = int(ran[-1])
    summary = re.findall(r"^(?:FAILED|OK) ?\(([^)]*)\)", text, re.M)
    numbers = dict(re.findall(r"(\w+)=(\d+)", summary[-1])) if summary else {}
    failed = int(numbers.get("failures", 0)) + int(numbers.get("errors", 0)) + int(numbers.get("unexpected successes", 0))
    return (total, failed, int(numbers.get("skipped", 0)))


def run_probes(
    source: str | os.PathLike[str],
    *,
    probes: Iterable[str] | None = None,
    sandbox: bool = True,
    limits: Limits | None = None,
    install_timeout: float | None = None,
    offline_install: bool = False,
    pip_options: Iterable[str] = (),
    read_only: Iterable[str] = (),
    hidden: Iterable[str] = (),
    conda: str | None = None,
    scratch_parent: str | os.PathLike[str] | None = None,
    sandbox_uid: int = 65534,
    log: Callable[[str], None] | None = None,
) -> ExecutionReport:
    """Copy the tree at ``source`` into a scratch sandbox, install it and run the
    requested probes (default: all six); the scratch directory is deleted afterwards.

    ``limits.timeout`` is the wall-clock limit of each probe run (each notebook, each
    run of the entry point, the import check, the test suite); ``install_timeout`` of
    each install step (default: the same). ``pip_options`` are added to every pip
    install (``--no-index``, ``--find-links DIR``: give such folders in
    ``read_only`` so that the sandbox sees them). Raises
    :class:`~reproscore.execution.sandbox.SandboxUnavailable` when ``sandbox`` is
    asked for but cannot be had.
    """
    wanted = parse_probes(list(probes) if probes is not None else None)
    limits = limits or Limits()
    timeout = limits.timeout
    install_timeout = float(install_timeout if install_timeout is not None else timeout)
    say = log or (lambda _message: None)
    source = Path(source)
    index = TreeIndex.from_path(source)
    plan = plan_environment(index)
    entry, entry_why = find_entry_point(index)
    from scoring.detectors.portability.import_resolvability import third_party_python_imports

    modules = third_party_python_imports(index)
    notebooks = sorted(index.by_type("notebook"))
    toolchains = _toolchains()
    if conda:
        toolchains["conda"] = shutil.which(conda) or conda
    extra_ro = list(read_only) + [p for p in (_tool_prefix(t) for t in toolchains.values() if t) if p]
    started_at, started = _now(), time.monotonic()
    results: dict[str, ProbeResult] = {}
    with open_sandbox(sandbox=sandbox, limits=limits, scratch_parent=scratch_parent,
                      read_only=extra_ro, hidden=hidden, sandbox_uid=sandbox_uid) as box:
        run = _Run(box, source, index, install_timeout=install_timeout, offline_install=offline_install,
                   pip_options=list(pip_options), conda=toolchains.get("conda") if conda else None,
                   toolchains=toolchains, log=say)
        run.prepare_tools()
        run.fresh_tree()
        say("probe I: install")
        install = run.probe_install(plan)
        results["I"] = install
        broken = install.status == ERROR
        if "E_prime" in wanted:
            say("probe E′: imports")
            results["E_prime"] = _skipped("E_prime", install) if broken else run.probe_imports(modules, timeout)
        if {"X", "delta"} & set(wanted):
            say("probe X: entry point")
            results["X"] = _skipped("X", install) if broken else run.probe_execution(entry, entry_why, timeout)
        if {"N", "delta"} & set(wanted):
            say("probe N: notebooks")
            results["N"] = _skipped("N", install) if broken else run.probe_notebooks(notebooks, timeout)
        if "delta" in wanted:
            say("probe Δ: second run")
            results["delta"] = _skipped("delta", install) if broken else run.probe_determinism(entry, timeout)
        if "T" in wanted:
            say("probe T: tests")
            results["T"] = _skipped("T", install) if broken else run.probe_tests(timeout)
        environment = {
            "python": platform.python_version(),
            "interpreter": run.python,
            "sandbox": box.kind,
            "limits": limits.to_dict(),
            "install_timeout_seconds": install_timeout,
            "network": "none" if offline_install else "install step only",
            "pip_options": list(pip_options),
            "entry_point": entry.command if entry else None,
            "third_party_imports": len(modules),
            "notebooks": len(notebooks),
        }
    probes_out = {cid: results[cid] for cid in RUN_ORDER if cid in wanted and cid in results}
    failure = next((probes_out[c].failure_class for c in CLASS_ORDER
                    if c in probes_out and probes_out[c].failure_class), None)
    return ExecutionReport(
        probes=probes_out, failure_class=failure, sandbox="bubblewrap" if sandbox else "none",
        started_at=started_at, finished_at=_now(), duration=time.monotonic() - started,
        environment=environment,
    )


def _skipped(cid: str, install: ProbeResult) -> ProbeResult:
    return ProbeResult(cid, status=ERROR, reason=f"not run: {install.reason}")
