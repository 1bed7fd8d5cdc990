"""The sandbox deposit code runs in: bubblewrap (``bwrap``, Debian package ``bubblewrap``).

One :class:`Sandbox` is one scratch directory (created empty, deleted afterwards) and a
way to run commands against it. With bubblewrap every command runs in new mount, PID,
IPC, UTS and network namespaces, and sees only:

* the system directories, read-only: ``/usr`` (with the ``/bin``, ``/lib``… links), a
  short list of ``/etc`` files (name resolution, CA certificates, the machine's pip
  policy, the dynamic linker cache, time zone, ``passwd``/``group``), the
  installation prefix of the Python that runs reproscore and of its virtual
  environment (even when that lies under ``$HOME``: only that folder, never the rest of
  the home directory), and any extra read-only folders the caller names (a wheel
  folder given with ``--find-links``, a conda installation);
* the scratch directory, read-write, at ``/sandbox`` (``/tmp`` is its ``tmp/``);
* a fresh ``/proc``, a minimal ``/dev`` and a small ``/dev/shm``.

Nothing else of the host exists inside: not the store database, not ``$HOME``, not the
tree the copy was made from. The environment is cleared: commands get ``PATH``,
``HOME=/sandbox/home``, ``LANG`` and the variables the probe sets, never a variable
of the calling process (so no token or password reaches deposit code). The network
namespace is new and empty (only a loopback of its own) unless the run asks for the
network (the install step, unless ``--offline-install``): a server on the host's
127.0.0.1 is unreachable from inside.

Every command has a wall-clock timeout (the whole process tree is killed: it lives in
its own PID namespace) and resource limits set (``prlimit``, else ``setrlimit`` in the
child) before bubblewrap starts, inherited by everything inside: address space (memory), CPU seconds, processes
and file size. When reproscore runs as root the sandboxed command is started through
``setpriv`` as an unprivileged user (``sandbox_uid``, by default 65534 ``nobody``)
with every capability dropped and ``no_new_privs`` set, so that the process limit is
enforced (the kernel exempts root from it) and deposit code never runs as root.

Without bubblewrap (``--no-sandbox``, explicit) commands run directly on the host with
the same clean environment, scratch directory, timeout and resource limits, but with
the host's network and file system: the caller must say so to the user.
"""

from __future__ import annotations

import errno
import os
import resource
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "BWRAP",
    "INSIDE_ROOT",
    "TOOLS_ROOT",
    "Limits",
    "RunResult",
    "Sandbox",
    "SandboxUnavailable",
    "find_bwrap",
    "open_sandbox",
]

BWRAP = "bwrap"
INSIDE_ROOT = "/sandbox"
TOOLS_ROOT = "/reproscore-tools"
LOG_TAIL_BYTES = 64 * 1024
SHM_BYTES = 256 * 1024 * 1024
MiB = 1024 * 1024

# /etc entries a command may need (name resolution, TLS, pip's machine-wide policy,
# the dynamic linker, time zone, user names); the rest of /etc (shadow, ssh keys,
# credentials of system services) does not exist inside.
ETC_ENTRIES = (
    "resolv.conf", "hosts", "host.conf", "nsswitch.conf", "gai.conf", "protocols", "services",
    "ssl", "ca-certificates", "ca-certificates.conf", "pki", "xdg/pip", "pip.conf",
    "alternatives", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "timezone",
    "passwd", "group", "mime.types", "os-release", "debian_version", "fonts", "R", "julia",
    "matplotlibrc",
)
SYSTEM_LINKS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")


class SandboxUnavailable(Exception):
    """No usable sandbox: bubblewrap is missing or cannot create namespaces here."""


@dataclass(frozen=True)
class Limits:
    """Per-command limits. ``cpu_seconds`` None: twice the wall-clock timeout."""

    timeout: float = 600.0
    memory_mb: int = 4096
    cpu_seconds: int | None = None
    max_processes: int = 256
    max_file_mb: int = 1024

    def to_dict(self) -> dict[str, float | int | None]:
        return {
            "timeout_seconds": self.timeout,
            "memory_mb": self.memory_mb,
            "cpu_seconds": self.cpu_seconds,
            "max_processes": self.max_processes,
            "max_file_mb": self.max_file_mb,
        }


@dataclass
class RunResult:
    """What one command did: exit status (None when killed at the timeout), duration,
    and the tails of its standard output and error (decoded, not yet redacted)."""

    argv: list[str]
    cwd: str
    exit_status: int | None
    duration: float
    timed_out: bool
    stdout: str
    stderr: str
    network: bool = False

    @property
    def ok(self) -> bool:
        return self.exit_status == 0 and not self.timed_out

    @property
    def command(self) -> str:
        return shlex.join(self.argv)

    def output(self) -> str:
        return (self.stdout + ("\n" if self.stdout and self.stderr else "") + self.stderr).strip()


def find_bwrap() -> str | None:
    """The bubblewrap executable on PATH, or None."""
    return shutil.which(BWRAP)


def _tail(path: Path, limit: int = LOG_TAIL_BYTES) -> str:
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - limit))
            data = handle.read()
    except OSError:
        return ""
    text = data.decode("utf-8", errors="replace")
    return ("…" + text) if size > limit else text


_RLIMITS = (
    ("as", resource.RLIMIT_AS),
    ("cpu", resource.RLIMIT_CPU),
    ("nproc", resource.RLIMIT_NPROC),
    ("fsize", resource.RLIMIT_FSIZE),
    ("core", resource.RLIMIT_CORE),
)


def _limit_values(limits: Limits, timeout: float) -> dict[str, int]:
    """The resource limits of one command, never above this process's hard limits."""
    cpu = limits.cpu_seconds if limits.cpu_seconds else int(2 * timeout) + 1
    wanted = {"as": limits.memory_mb * MiB, "cpu": max(1, cpu), "nproc": limits.max_processes,
              "fsize": limits.max_file_mb * MiB, "core": 0}
    for name, which in _RLIMITS:
        hard = resource.getrlimit(which)[1]
        if hard != resource.RLIM_INFINITY:
            wanted[name] = min(wanted[name], hard)
    return wanted


def _limit_prefix(limits: Limits, timeout: float) -> list[str] | None:
    """``prlimit --as=… --`` (util-linux): the limits are set before bubblewrap starts
    and inherited by everything inside; None when prlimit is missing."""
    exe = shutil.which("prlimit")
    if exe is None:
        return None
    return [exe, *(f"--{name}={value}" for name, value in _limit_values(limits, timeout).items()), "--"]


def _set_limits(limits: Limits, timeout: float) -> None:
    """Without prlimit: the same limits, set in the child between fork and exec."""
    values = _limit_values(limits, timeout)
    for name, which in _RLIMITS:
        resource.setrlimit(which, (values[name], values[name]))


def _remove_tree(path: Path) -> None:
    """Delete a scratch tree whatever deposit code did to its permissions."""

    def retry(function, target, _exc):  # noqa: ANN001 - shutil's onerror signature
        try:
            parent = os.path.dirname(target)
            os.chmod(parent, stat.S_IRWXU)
            if os.path.isdir(target) and not os.path.islink(target):
                os.chmod(target, stat.S_IRWXU)
            function(target)
        except OSError:
            pass

    if path.exists():
        shutil.rmtree(path, onerror=retry)


def _ancestors(path: str) -> list[str]:
    parts = Path(path).parts[1:-1]
    return ["/" + "/".join(parts[: i + 1]) for i in range(len(parts))]


def _is_within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


@dataclass
class Sandbox:
    """One scratch directory and the way commands run against it.

    ``host_root`` is the scratch folder on the host; commands see it as :attr:`root`
    (``/sandbox`` under bubblewrap, the host path without a sandbox). ``tools`` is a
    folder the caller fills before running (helper scripts), visible read-only at
    :attr:`tools_root`. Use as a context manager: the scratch folder is deleted on exit.
    """

    kind: str  # "bubblewrap" or "none"
    scratch: Path
    limits: Limits
    bwrap: str | None = None
    read_only: tuple[str, ...] = ()
    hidden: tuple[str, ...] = ()
    sandbox_uid: int = 65534
    base_env: dict[str, str] = field(default_factory=dict)
    _counter: int = 0

    @property
    def host_root(self) -> Path:
        return self.scratch / "root"

    @property
    def host_tools(self) -> Path:
        return self.scratch / "tools"

    @property
    def root(self) -> str:
        return INSIDE_ROOT if self.kind == "bubblewrap" else str(self.host_root)

    @property
    def tools_root(self) -> str:
        return TOOLS_ROOT if self.kind == "bubblewrap" else str(self.host_tools)

    def path(self, *parts: str) -> str:
        """A path under the scratch root as commands see it."""
        return "/".join([self.root, *parts])

    def tool(self, *parts: str) -> str:
        return "/".join([self.tools_root, *parts])

    def host(self, *parts: str) -> Path:
        return self.host_root.joinpath(*parts)

    def to_host(self, inside: str) -> Path:
        """The host path of a path commands see under the scratch root."""
        if not _is_within(inside, self.root):
            raise ValueError(f"{inside} is not under the sandbox root {self.root}")
        return self.host_root / inside[len(self.root) :].lstrip("/")

    # ------------------------------------------------------------------ lifecycle

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        _remove_tree(self.scratch)

    @property
    def _drop_privileges(self) -> bool:
        return self.kind == "bubblewrap" and os.geteuid() == 0 and shutil.which("setpriv") is not None

    def hand_over(self, path: Path | None = None) -> None:
        """Give the sandbox user ownership of ``path`` (default: the whole scratch root),
        so that commands running as that user may write there. No-op unless root."""
        if not self._drop_privileges:
            return
        target = path or self.host_root
        uid = gid = self.sandbox_uid
        os.lchown(target, uid, gid)
        for folder, dirs, files in os.walk(target):
            for name in dirs + files:
                os.lchown(os.path.join(folder, name), uid, gid)

    # ------------------------------------------------------------------ running

    def _bwrap_argv(self, cwd: str, network: bool, env: Mapping[str, str]) -> list[str]:
        assert self.bwrap is not None
        argv = [self.bwrap, "--die-with-parent", "--new-session"]
        if os.geteuid() == 0:
            # Root: no user namespace (setpriv below switches to an unprivileged uid,
            # which needs the real user ids); every other namespace is new.
            argv += ["--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try"]
            if not network:
                argv.append("--unshare-net")
            if not self._drop_privileges:
                argv += ["--cap-drop", "ALL"]
        else:
            argv.append("--unshare-all")
            if network:
                argv.append("--share-net")
        argv += ["--hostname", "sandbox", "--ro-bind", "/usr", "/usr"]
        for name in SYSTEM_LINKS:
            host = Path("/") / name
            if host.is_symlink():
                argv += ["--symlink", os.readlink(host), f"/{name}"]
            elif host.is_dir():
                argv += ["--ro-bind", str(host), f"/{name}"]
        # Folders bubblewrap creates on the way to a mount point would be private to
        # root (0700): create them world-readable first.
        created: set[str] = {"/", "/usr", "/proc", "/dev", "/tmp", INSIDE_ROOT, TOOLS_ROOT}

        def parents(target: str) -> None:
            for parent in _ancestors(target):
                if parent not in created and not _is_within(parent, "/usr"):
                    argv.extend(["--perms", "0755", "--dir", parent])
                    created.add(parent)

        for entry in ETC_ENTRIES:
            if os.path.lexists(f"/etc/{entry}"):
                parents(f"/etc/{entry}")
                argv += ["--ro-bind-try", f"/etc/{entry}", f"/etc/{entry}"]
        argv += [
            "--proc", "/proc",
            "--dev", "/dev",
            "--size", str(SHM_BYTES), "--tmpfs", "/dev/shm",
            "--bind", str(self.host_root), INSIDE_ROOT,
            "--bind", str(self.host_root / "tmp"), "/tmp",
            "--ro-bind", str(self.host_tools), TOOLS_ROOT,
        ]
        # After /tmp: a read-only folder under the host's /tmp (a wheel folder) is
        # mounted over the sandbox's own /tmp, at the same path.
        for folder in self.read_only:
            if any(_is_within(folder, other) and folder != other for other in self.read_only):
                continue
            parents(folder)
            argv += ["--ro-bind", folder, folder]
        for path in self.hidden:
            argv += ["--ro-bind", "/dev/null", path]
        if os.path.isdir("/sys/devices/system/cpu"):
            parents("/sys/devices/system/cpu")
            argv += ["--ro-bind", "/sys/devices/system/cpu", "/sys/devices/system/cpu"]
        argv += ["--chdir", cwd, "--clearenv"]
        for key, value in env.items():
            argv += ["--setenv", key, value]
        argv.append("--")
        if self._drop_privileges:
            uid = str(self.sandbox_uid)
            argv += [
                "setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--",
            ]
        return argv

    def environment(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """The whole environment of a command: nothing of the caller's."""
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": self.path("home"),
            "TMPDIR": self.path("tmp"),
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "USER": "sandbox",
            "LOGNAME": "sandbox",
            "PYTHONNOUSERSITE": "1",
            "PYTHONUNBUFFERED": "1",
            "MPLBACKEND": "Agg",
            "XDG_CACHE_HOME": self.path("home", ".cache"),
            "XDG_CONFIG_HOME": self.path("home", ".config"),
            "XDG_DATA_HOME": self.path("home", ".local", "share"),
        }
        env.update(self.base_env)
        if extra:
            env.update(extra)
        return env

    def run(
        self,
        argv: Sequence[str],
        *,
        cwd: str | None = None,
        network: bool = False,
        timeout: float | None = None,
        env: Mapping[str, str] | None = None,
    ) -> RunResult:
        """Run ``argv`` (paths as commands see them) with the limits; never raises for
        the command's own failure: a timeout or a non-zero exit is in the result."""
        wall = float(timeout if timeout is not None else self.limits.timeout)
        cwd = cwd or self.path("tree")
        full_env = self.environment(env)
        self._counter += 1
        logs = self.scratch / "logs"
        out_path = logs / f"{self._counter:03d}.out"
        err_path = logs / f"{self._counter:03d}.err"
        if self.kind == "bubblewrap":
            command = self._bwrap_argv(cwd, network, full_env) + list(argv)
            popen_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
            popen_cwd = "/"
        else:
            command = list(argv)
            popen_env = full_env
            popen_cwd = cwd
        prefix = _limit_prefix(self.limits, wall)
        if prefix is not None:
            command = prefix + command
        started = time.monotonic()
        timed_out = False
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            try:
                process = subprocess.Popen(  # noqa: S603 - the command is the probe's, by design
                    command, cwd=popen_cwd, env=popen_env, stdin=subprocess.DEVNULL,
                    stdout=out, stderr=err, start_new_session=True,
                    preexec_fn=None if prefix is not None else (lambda: _set_limits(self.limits, wall)),
                )
            except OSError as exc:
                err.write(f"cannot start {argv[0]}: {exc}\n".encode())
                return RunResult(list(argv), cwd, 127, 0.0, False, "", _tail(err_path) or str(exc), network)
            try:
                status: int | None = process.wait(timeout=wall)
            except subprocess.TimeoutExpired:
                timed_out = True
                _kill_group(process)
                process.wait()
                status = None
        duration = time.monotonic() - started
        return RunResult(
            argv=list(argv), cwd=cwd, exit_status=status, duration=duration, timed_out=timed_out,
            stdout=_tail(out_path), stderr=_tail(err_path), network=network,
        )

    def check(self) -> None:
        """Raise :class:`SandboxUnavailable` when bubblewrap cannot start here."""
        if self.kind != "bubblewrap":
            return
        result = self.run(["true"], cwd=self.path(), timeout=60)
        if not result.ok:
            detail = result.stderr.strip().splitlines()[-1:] or [f"exit status {result.exit_status}"]
            raise SandboxUnavailable(
                f"bubblewrap cannot create a sandbox here: {detail[0]} (it needs user namespaces, "
                "or root); refusing to run deposit code without a sandbox unless --no-sandbox is given"
            )


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except OSError as exc:
        if exc.errno != errno.ESRCH:
            process.kill()


def python_prefixes() -> list[str]:
    """The installation folders of the running Python and its virtual environment."""
    found: list[str] = []
    for prefix in (sys.base_prefix, sys.prefix, os.path.dirname(os.path.dirname(os.path.realpath(sys.executable)))):
        for candidate in (prefix, os.path.realpath(prefix)):
            if candidate and candidate not in found and not _is_within(candidate, "/usr"):
                found.append(candidate)
    return found


def open_sandbox(
    *,
    sandbox: bool = True,
    limits: Limits | None = None,
    scratch_parent: str | os.PathLike[str] | None = None,
    read_only: Iterable[str] = (),
    hidden: Iterable[str] = (),
    sandbox_uid: int = 65534,
) -> Sandbox:
    """A new scratch directory with its sandbox, checked to work.

    ``sandbox=False`` runs commands directly on the host (the caller asked for it with
    ``--no-sandbox``). With ``sandbox=True`` and no bubblewrap, or a bubblewrap that
    cannot create namespaces here, raises :class:`SandboxUnavailable`. ``hidden`` are
    host files (the store database) masked by an empty file should they lie inside a
    read-only folder.
    """
    bwrap = None
    if sandbox:
        bwrap = find_bwrap()
        if bwrap is None:
            raise SandboxUnavailable(
                "bubblewrap (bwrap) is not installed: refusing to run deposit code without a "
                "sandbox. Install it (Debian/Ubuntu: apt-get install bubblewrap) or pass "
                "--no-sandbox to run the deposit directly on this machine."
            )
    scratch = Path(tempfile.mkdtemp(prefix="reproscore-exec-", dir=scratch_parent))
    os.chmod(scratch, 0o711)
    ro = [*python_prefixes(), *(os.path.realpath(p) for p in read_only)]
    unique = list(dict.fromkeys(p for p in ro if os.path.exists(p)))
    masked = []
    for path in hidden:
        real = os.path.realpath(path)
        if os.path.exists(real) and any(_is_within(real, folder) for folder in [*unique, "/usr"]):
            masked.append(real)
    box = Sandbox(
        kind="bubblewrap" if sandbox else "none", scratch=scratch, limits=limits or Limits(),
        bwrap=bwrap, read_only=tuple(unique), hidden=tuple(masked), sandbox_uid=sandbox_uid,
    )
    try:
        for name in ("root", "tools", "logs", "root/tmp", "root/home", "root/out"):
            (scratch / name).mkdir(parents=True, exist_ok=True)
        box.hand_over()
        box.check()
    except BaseException:
        box.close()
        raise
    return box
