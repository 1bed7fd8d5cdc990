"""Shell command lines as simple commands: enough structure to ask "which tool does this
line invoke, with which arguments" (METRICS.md §0.1.18, §0.1.25).

A line is split into simple commands at ``&&``, ``||``, ``;`` and ``|``; each command is
tokenised with :mod:`shlex` (falling back to whitespace on unbalanced quotes); leading
``VAR=value`` assignments and ``sudo``/``time``/``exec``/``env``/``nice`` wrappers are skipped.
Console prompts (``$ ``, ``% ``, ``> ``, ``!``) are stripped; ``>>>`` lines are Python
REPL input, not shell.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from functools import lru_cache

_SEPARATORS = re.compile(r"\s*(?:&&|\|\||;|\|(?!\|))\s*")
_PROMPT = re.compile(r"^\s*(?:\(\S+\)\s*)?(?:\$|%|>|!)\s?(?!>)")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_WRAPPERS = {"sudo", "time", "exec", "env", "command", "nohup", "nice", "xargs"}
_GROUP_OPENERS = ("(", "{")


@dataclass(frozen=True)
class Command:
    words: tuple[str, ...]
    text: str                 # the simple command as written
    piped_from: bool = False  # this command reads a pipe (``curl … | sh`` → sh is piped_from)

    @property
    def program(self) -> str:
        """The invoked program's base name (``/usr/bin/python3`` → ``python3``)."""
        return self.words[0].rsplit("/", 1)[-1] if self.words else ""

    @property
    def args(self) -> tuple[str, ...]:
        return self.words[1:]


def strip_prompt(line: str) -> tuple[str, bool]:
    """Remove a console prompt; the flag says whether the line is Python REPL input."""
    stripped = line.strip()
    if stripped.startswith(">>>") or stripped.startswith("..."):
        return stripped[3:].strip(), True
    return _PROMPT.sub("", line, count=1).strip(), False


def split_commands(line: str) -> list[Command]:
    """Simple commands of one shell line (comments removed)."""
    return list(_simple_commands(line))


# Detectors of several categories ask about the same README, workflow and script lines
# (D2, D3, E3, A4), and shlex is slow: each distinct line is split once per process.
@lru_cache(maxsize=8192)
def _simple_commands(line: str) -> tuple[Command, ...]:
    text = _strip_comment(line).strip()
    if not text:
        return ()
    commands: list[Command] = []
    pieces = _split_keep_ops(text)
    piped = False
    for piece, op in pieces:
        words = _words(piece)
        # a subshell or group opens with its first command: `(wget … | gzip -dc; cat x) > y`
        while words and words[0][:1] in _GROUP_OPENERS and words[0][:2] != "$(":
            words = [words[0][1:], *words[1:]] if len(words[0]) > 1 else words[1:]
        while words and (_ASSIGNMENT.match(words[0]) or words[0] in _WRAPPERS):
            words = words[1:]
        if words:
            commands.append(Command(tuple(words), piece, piped_from=piped))
        piped = op == "|"
    return tuple(commands)


def _split_keep_ops(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    for match in _SEPARATORS.finditer(text):
        if _inside_quotes(text, match.start()):
            continue
        out.append((text[pos:match.start()], match.group(0).strip()))
        pos = match.end()
    out.append((text[pos:], ""))
    return out


def _inside_quotes(text: str, index: int) -> bool:
    single = double = False
    for ch in text[:index]:
        if ch == "'" and not double:
            single = not single
        elif ch == '"' and not single:
            double = not double
    return single or double


def _strip_comment(line: str) -> str:
    for match in re.finditer(r"(?:^|\s)#", line):
        if not _inside_quotes(line, match.start()):
            return line[: match.start()]
    return line


def strip_comment(line: str, marker: str = "#") -> str:
    """``line`` without its comment: from a ``#`` that starts a word (shell, R, Python,
    Julia) or from any ``%`` (MATLAB/Octave) outside quotes, to the end."""
    if marker == "#":
        return _strip_comment(line)
    for index, char in enumerate(line):
        if char == marker and not _inside_quotes(line, index):
            return line[:index]
    return line


def _words(piece: str) -> list[str]:
    if not any(ch in piece for ch in "'\"\\#"):
        return piece.split()  # nothing shlex would treat specially; str.split is far cheaper
    try:
        return shlex.split(piece, posix=True)
    except ValueError:
        return piece.split()


def command_lines(text: str) -> list[tuple[int, str]]:
    """(line number, logical line) of a shell script, joining ``\\`` continuations."""
    out: list[tuple[int, str]] = []
    buffer = ""
    start = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        if not buffer:
            start = number
        if raw.rstrip().endswith("\\"):
            buffer += raw.rstrip()[:-1] + " "
            continue
        buffer += raw
        if buffer.strip() and not buffer.lstrip().startswith("#"):
            out.append((start, buffer))
        buffer = ""
    if buffer.strip():
        out.append((start, buffer))
    return out


@dataclass(frozen=True)
class ScriptComments:
    """The comment lines of a shell script, from one scan of its text (D4's reading)."""

    lines: int                                # lines of the text (``str.splitlines``)
    blank_lines: tuple[int, ...]              # 1-based numbers of empty or whitespace-only lines
    # (line, the whole line's text) of each line holding a ``#`` comment outside quotes;
    # in shell a comment starts a word (``$#`` and ``${#x}`` are not comments)
    comments: tuple[tuple[int, str], ...]


def script_comments(text: str) -> ScriptComments:
    """The lines, blank lines and comment lines of a shell script."""
    lines = text.splitlines()
    blank: list[int] = []
    comments: list[tuple[int, str]] = []
    for number, line in enumerate(lines, start=1):
        if not line or line.isspace():
            blank.append(number)
            continue
        if "#" not in line:
            continue
        quote = ""
        i = 0
        while i < len(line):
            ch = line[i]
            if quote:
                if ch == "\\":
                    i += 2
                    continue
                if ch == quote:
                    quote = ""
            elif ch in ("'", '"'):
                quote = ch
            elif ch == "#" and (i == 0 or line[i - 1] in " \t;|&("):
                comments.append((number, line))
                break
            i += 1
    return ScriptComments(len(lines), tuple(blank), tuple(comments))


# ``docker run`` / ``podman run`` options: the short letters and long names that take a
# value (``-p 8787:8787``, ``--name x``); any other option is a flag. A short cluster
# (``-dp 8787:8787``) takes a value when its last letter does.
_RUN_VALUE_LETTERS = frozenset("acehlmpuvw")
_RUN_LONG_FLAGS = frozenset({
    "--rm", "--init", "--privileged", "--interactive", "--tty", "--detach", "--read-only", "--publish-all",
    "--no-healthcheck", "--oom-kill-disable", "--sig-proxy", "--quiet", "--help", "--disable-content-trust",
})
_CONTAINER_RUNTIMES = frozenset({"docker", "podman"})
_APPTAINER = frozenset({"singularity", "apptainer"})


def container_image(cmd: Command) -> str | None:
    """The image a ``docker|podman run`` (also ``container run``) or a
    ``singularity|apptainer run|exec|shell docker://…`` command starts, as written
    (``benmarwick/researchcompendium``, ``ghcr.io/org/x:1.0``), or None."""
    program = cmd.program.lower()
    args = list(cmd.args)
    if program in _APPTAINER:
        if not args or args[0] not in ("run", "exec", "shell"):
            return None
        target = next((a for a in args[1:] if not a.startswith("-")), "")
        return target.split("://", 1)[1] if target.startswith(("docker://", "oras://", "library://")) else None
    if program not in _CONTAINER_RUNTIMES:
        return None
    if args[:2] == ["container", "run"]:
        args = args[1:]
    if args[:1] != ["run"]:
        return None
    i = 1
    while i < len(args):
        arg = args[i]
        if arg == "--":
            return args[i + 1] if i + 1 < len(args) else None
        if arg.startswith("--"):
            i += 1 if ("=" in arg or arg in _RUN_LONG_FLAGS) else 2
            continue
        if arg.startswith("-") and len(arg) > 1:
            i += 2 if arg[-1] in _RUN_VALUE_LETTERS else 1
            continue
        return arg
    return None


def container_build_tags(cmd: Command) -> list[str]:
    """The images a ``docker|podman build`` (``buildx build``) names with ``-t``/``--tag``."""
    program = cmd.program.lower()
    args = list(cmd.args)
    if program not in _CONTAINER_RUNTIMES:
        return []
    if args[:2] == ["buildx", "build"]:
        args = args[1:]
    if args[:1] != ["build"]:
        return []
    tags = []
    for i, arg in enumerate(args):
        if arg in ("-t", "--tag") and i + 1 < len(args):
            tags.append(args[i + 1])
        elif arg.startswith("--tag="):
            tags.append(arg.split("=", 1)[1])
        elif arg.startswith("-t") and len(arg) > 2 and not arg.startswith("--"):
            tags.append(arg[2:])
    return tags


def image_name(reference: str) -> str:
    """The repository name of an image reference, without registry, namespace, tag or
    digest: ``ghcr.io/org/tool:1.0@sha256:…`` → ``tool``."""
    name = reference.split("@", 1)[0].rsplit("/", 1)[-1]
    return name.split(":", 1)[0]
