"""Shell command lines as simple commands: enough structure to ask "which tool does this
line invoke, with which arguments" (METRICS.md §0.1.18, §0.1.25).

A line is split into simple commands at ``&&``, ``||``, ``;`` and ``|``; each command is
tokenised with :mod:`shlex` (falling back to whitespace on unbalanced quotes); leading
``VAR=value`` assignments and ``sudo``/``time``/``exec``/``env`` wrappers are skipped.
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
_WRAPPERS = {"sudo", "time", "exec", "env", "command", "nohup", "xargs"}
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
