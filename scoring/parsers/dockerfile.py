"""Container specifications: Dockerfiles/Containerfiles and Singularity/Apptainer definitions.

Pure text-in, dataclasses-out parsing for the E2 (container_spec), E4
(python_version_declared) and S7 (hardware_requirements) detectors. Deposits are
untrusted, so nothing here raises on malformed input: problems are recorded instead.

The Dockerfile reader follows the builder's own rules where they matter for scoring:
parser directives (``# escape=``), comment and empty lines dropped even inside a
continuation, the escape character joining lines, heredocs (``RUN <<EOF``), and
``ARG`` defaults declared before the first ``FROM`` substituted into ``FROM``.
"""

from __future__ import annotations

import json
import posixpath
import re
import shlex
from dataclasses import dataclass, field

__all__ = [
    "Dockerfile",
    "Instruction",
    "SingularityDef",
    "Stage",
    "is_pinned_image",
    "parse_dockerfile",
    "parse_singularity",
    "score_dockerfile",
    "score_singularity",
    "split_image",
    "versioned_tag",
]

KNOWN_INSTRUCTIONS = frozenset(
    {
        "ADD", "ARG", "CMD", "COPY", "ENTRYPOINT", "ENV", "EXPOSE", "FROM", "HEALTHCHECK",
        "LABEL", "MAINTAINER", "ONBUILD", "RUN", "SHELL", "STOPSIGNAL", "USER", "VOLUME",
        "WORKDIR",
    }
)  # fmt: skip

_MAX_PROBLEMS = 50
_DIRECTIVE_RE = re.compile(r"^#\s*(?P<key>[A-Za-z][A-Za-z0-9_-]*)\s*=(?P<value>.*)$")
_INSTRUCTION_RE = re.compile(r"^\s*(?P<keyword>[A-Za-z]+)(?:\s+(?P<args>.*))?$", re.DOTALL)
_HEREDOC_RE = re.compile(r"<<(?P<dash>-?)\s*(?P<quote>[\"']?)(?P<word>[A-Za-z_][A-Za-z0-9_]*)(?P=quote)")
_VARIABLE_RE = re.compile(
    r"\$(?:\{(?P<braced>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:?[-+])(?P<word>[^}]*))?\}"
    r"|(?P<plain>[A-Za-z_][A-Za-z0-9_]*))"
)
_DIGEST_RE = re.compile(r"^[A-Za-z0-9_+.-]+:[0-9a-fA-F]{32,}$")
_DOTTED_VERSION_RE = re.compile(r"\d+\.\d+")
_DATE_RE = re.compile(r"(?<!\d)(?:19|20)\d{2}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])(?!\d)")
_COMPACT_DATE_RE = re.compile(r"(?<!\d)(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])(?!\d)")


@dataclass(frozen=True)
class Instruction:
    """One Dockerfile instruction; ``args`` has continuations joined (heredoc bodies follow on new lines)."""

    keyword: str
    args: str
    line_start: int
    line_end: int


@dataclass(frozen=True)
class Stage:
    """One ``FROM``: the image reference with ARGs resolved, its ``AS`` alias and platform."""

    image: str
    alias: str | None
    line: int
    platform: str | None
    # the lines of the ARG instructions whose defaults the image reference takes
    arg_lines: tuple[int, ...] = ()


@dataclass
class Dockerfile:
    """Parsed Dockerfile. ``args`` holds the defaults of ARGs declared before the first FROM."""

    instructions: list[Instruction] = field(default_factory=list)
    stages: list[Stage] = field(default_factory=list)
    args: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    # the line of the ARG instruction that last set each of ``args``
    arg_lines: dict[str, int] = field(default_factory=dict)

    def final_base(self) -> tuple[str | None, Stage | None]:
        """The external image the final stage is built on, following stage aliases back.

        Returns the image reference and the stage whose ``FROM`` names it; ``(None, None)``
        without any ``FROM``.
        """
        if not self.stages:
            return None, None
        index = len(self.stages) - 1
        # A FROM may only name a stage declared before it, so walking backwards terminates.
        while True:
            stage = self.stages[index]
            target = stage.image.lower()
            earlier = next(
                (
                    i
                    for i in range(index - 1, -1, -1)
                    if self.stages[i].alias and self.stages[i].alias.lower() == target
                ),
                None,
            )
            if earlier is None:
                return stage.image, stage
            index = earlier

    def runs(self) -> list[Instruction]:
        """Every ``RUN`` instruction, in file order."""
        return [i for i in self.instructions if i.keyword == "RUN"]

    def container_paths(self) -> tuple[str, ...]:
        """The absolute places a build makes in its image (C1: a path under one is a
        container path, not a machine path): each ``WORKDIR`` (a relative one resolved
        against the one before it in its stage) and each ``COPY``/``ADD`` destination (a
        relative one resolved against the ``WORKDIR``), ``ARG`` defaults substituted,
        normalised, in file order, once each. The root ``/`` and paths that still hold a
        variable (``$HOME/app``) are left out."""
        found: list[str] = []
        workdir = "/"
        for instruction in self.instructions:
            if instruction.keyword == "FROM":
                workdir = "/"
                continue
            if instruction.keyword not in ("WORKDIR", "COPY", "ADD"):
                continue
            args = instruction.args.split("\n", 1)[0].strip()   # heredoc bodies follow the first line
            target = args if instruction.keyword == "WORKDIR" else _destination(args)
            if not target:
                continue
            missing: list[str] = []
            target = _substitute(target.strip("\"'"), self.args, missing)
            if missing or "$" in target:
                continue
            path = posixpath.normpath(posixpath.join(workdir, target))
            if instruction.keyword == "WORKDIR":
                workdir = path
            if path != "/" and path not in found:
                found.append(path)
        return tuple(found)


def _destination(args: str) -> str | None:
    """The destination of ``COPY``/``ADD`` arguments: the last of the JSON array form or
    of the words after the ``--`` options; None when there is none."""
    if args.startswith("["):
        try:
            words = json.loads(args)
        except ValueError:
            return None
        return words[-1] if isinstance(words, list) and len(words) >= 2 and isinstance(words[-1], str) else None
    try:
        words = shlex.split(args, posix=True)
    except ValueError:
        words = args.split()
    words = [w for w in words if not w.startswith("--")]
    return words[-1] if len(words) >= 2 else None


def _split_lines(text: str) -> list[str]:
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _substitute(value: str, args: dict[str, str], missing: list[str]) -> str:
    """Expand ``$VAR``, ``${VAR}``, ``${VAR:-word}`` and ``${VAR:+word}`` the way the builder does."""

    def expand(match: re.Match[str]) -> str:
        name = match.group("braced") or match.group("plain")
        current = args.get(name)
        op = match.group("op")
        word = match.group("word") or ""
        if op in (":-", "-"):
            unset = current is None or (op == ":-" and current == "")
            return word if unset else current or ""
        if op in (":+", "+"):
            is_set = current is not None and (op == "+" or current != "")
            return word if is_set else ""
        if current is None:
            missing.append(name)
            return ""
        return current

    return _VARIABLE_RE.sub(expand, value)


def _arg_definitions(args: str) -> list[tuple[str, str | None]]:
    try:
        tokens = shlex.split(args, comments=False, posix=True)
    except ValueError:
        tokens = args.split()
    definitions = []
    for token in tokens:
        name, sep, default = token.partition("=")
        if re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", name):
            definitions.append((name, default if sep else None))
    return definitions


def _parse_from(args: str) -> tuple[str | None, str | None, str | None]:
    """``(image, alias, platform)`` of a FROM argument string (unresolved)."""
    tokens = args.split()
    platform = None
    positional = []
    for token in tokens:
        if token.startswith("--"):
            key, _, value = token[2:].partition("=")
            if key.lower() == "platform":
                platform = value or None
            continue
        positional.append(token)
    if not positional:
        return None, None, platform
    alias = None
    if len(positional) >= 3 and positional[1].lower() == "as":
        alias = positional[2]
    return positional[0], alias, platform


def parse_dockerfile(text: str) -> Dockerfile:
    """Parse a Dockerfile (or Containerfile); never raises."""
    result = Dockerfile()
    if not isinstance(text, str):
        result.problems.append("content is not text")
        return result
    try:
        _parse_into(text, result)
    except Exception as exc:  # noqa: BLE001 - hostile input must not abort scoring
        result.problems.append(f"internal parser error: {type(exc).__name__}: {exc}")
    if len(result.problems) > _MAX_PROBLEMS:
        extra = len(result.problems) - _MAX_PROBLEMS
        del result.problems[_MAX_PROBLEMS:]
        result.problems.append(f"{extra} more problems not listed")
    return result


def _parse_into(text: str, result: Dockerfile) -> None:
    lines = _split_lines(text.lstrip("\ufeff"))
    escape = "\\"
    index = 0

    # Parser directives are only honoured before the first comment, blank line or instruction.
    while index < len(lines):
        directive = _DIRECTIVE_RE.match(lines[index])
        if directive is None:
            break
        value = directive.group("value").strip()
        if directive.group("key").lower() == "escape" and value in ("\\", "`"):
            escape = value
        index += 1

    seen_from = False
    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            index += 1
            continue
        start = index
        parts = []
        while True:
            # The builder accepts blanks after the escape character.
            trimmed = line.rstrip(" \t")
            if not trimmed.endswith(escape):
                parts.append(line)
                break
            parts.append(trimmed[:-1])
            index += 1
            # Comment and empty lines inside a continuation are dropped by the builder.
            while index < len(lines) and (
                not lines[index].strip() or lines[index].lstrip().startswith("#")
            ):
                index += 1
            if index >= len(lines):
                break
            line = lines[index]
        logical = "".join(parts)
        end = index
        index += 1

        parsed = _INSTRUCTION_RE.match(logical)
        if parsed is None:
            result.problems.append(f"line {start + 1}: not an instruction: {logical.strip()[:80]!r}")
            continue
        keyword = parsed.group("keyword").upper()
        args = (parsed.group("args") or "").strip()
        if keyword not in KNOWN_INSTRUCTIONS:
            result.problems.append(f"line {start + 1}: unknown instruction {keyword!r}")
            continue

        if keyword in ("RUN", "COPY", "ADD"):
            bodies = []
            for heredoc in _HEREDOC_RE.finditer(args):
                word, strip_tabs = heredoc.group("word"), bool(heredoc.group("dash"))
                body = []
                while index < len(lines):
                    candidate = lines[index].lstrip("\t") if strip_tabs else lines[index]
                    index += 1
                    if candidate.rstrip() == word:
                        break
                    body.append(lines[index - 1])
                else:
                    result.problems.append(f"line {start + 1}: unterminated heredoc {word!r}")
                bodies.append("\n".join(body))
                end = index - 1
            if bodies:
                args = "\n".join([args, *bodies])

        result.instructions.append(Instruction(keyword, args, start + 1, end + 1))

        if keyword == "ARG" and not seen_from:
            for name, default in _arg_definitions(args):
                if default is not None:
                    missing: list[str] = []
                    result.args[name] = _substitute(default, result.args, missing)
                    result.arg_lines[name] = start + 1
        elif keyword == "FROM":
            seen_from = True
            image, alias, platform = _parse_from(args)
            if image is None:
                result.problems.append(f"line {start + 1}: FROM without an image")
                continue
            missing = []
            resolved = _substitute(image, result.args, missing)
            if platform is not None:
                platform = _substitute(platform, result.args, []) or None
            for name in missing:
                result.problems.append(f"line {start + 1}: ARG {name} has no default")
            used = {m.group("braced") or m.group("plain") for m in _VARIABLE_RE.finditer(image)}
            arg_lines = tuple(sorted(result.arg_lines[n] for n in used if n in result.arg_lines))
            result.stages.append(Stage(resolved, alias, start + 1, platform, arg_lines))


def split_image(ref: str) -> tuple[str, str | None, str | None]:
    """``(name, tag, digest)`` of an image reference; handles ``registry:port/name:tag@sha256:…``."""
    ref = (ref or "").strip()
    name_tag, _, digest = ref.partition("@")
    last_slash = name_tag.rfind("/")
    colon = name_tag.rfind(":")
    if colon > last_slash:
        name, tag = name_tag[:colon], name_tag[colon + 1 :]
    else:
        name, tag = name_tag, ""
    return name, tag or None, digest or None


# A tag naming the commit an image was built from (``sha867516b…``, a bare 40-hex id) is
# as immutable as a digest in practice (workflow images are published that way).
_COMMIT_TAG_RE = re.compile(r"(?:sha)?[0-9a-f]{40}|sha[0-9a-f]{7,64}")


def is_pinned_image(ref: str) -> bool:
    """E2 pin: a digest, or a tag with ``\\d+.\\d+``, a date (YYYY-MM-DD / YYYYMMDD) or a
    commit id (``sha<hex>``), not ``latest``."""
    if not isinstance(ref, str) or "$" in ref:
        return False
    _, tag, digest = split_image(ref)
    if digest and _DIGEST_RE.match(digest):
        return True
    if not tag or tag.lower() == "latest":
        return False
    return bool(
        _DOTTED_VERSION_RE.search(tag) or _DATE_RE.search(tag) or _COMPACT_DATE_RE.search(tag)
        or _COMMIT_TAG_RE.fullmatch(tag)
    )


def versioned_tag(ref: str) -> bool:
    """E4: the tag contains ``\\d+.\\d+`` (so ``python:3`` does not count)."""
    if not isinstance(ref, str):
        return False
    _, tag, _ = split_image(ref)
    return bool(tag and _DOTTED_VERSION_RE.search(tag))


def score_dockerfile(df: Dockerfile) -> tuple[int, str, str]:
    """E2 level of one Dockerfile: ``(value, label, reason)``.

    100 pinned final base and at least one RUN; 80 RUN without a pinned base; 50 FROM
    without RUN; 20 no FROM at all.
    """
    image, stage = df.final_base()
    if image is None or stage is None:
        return 20, "malformed", "no FROM instruction"
    runs = df.runs()
    pinned = is_pinned_image(image)
    where = f"FROM {image} (line {stage.line})"
    if runs and pinned:
        return 100, "pinned_base_with_run", f"pinned base {where} and {len(runs)} RUN"
    if runs:
        return 80, "run_unpinned", f"base {where} is not pinned"
    return 50, "from_only", f"{where} but no RUN instruction"


# --------------------------------------------------------------------------- Singularity

_SINGULARITY_HEADER_RE = re.compile(r"^\s*(?P<key>[A-Za-z][A-Za-z0-9_]*)\s*:(?P<value>.*)$")
_SECTION_RE = re.compile(r"^\s*%(?P<name>[A-Za-z]+)\b")


@dataclass
class SingularityDef:
    """Header and sections of a Singularity/Apptainer definition file."""

    bootstrap: str | None
    from_: str | None
    from_line: int | None
    has_post: bool
    post_line: int | None


def parse_singularity(text: str) -> SingularityDef | None:
    """Parse a definition file; None unless its header has a ``Bootstrap:`` line.

    The header check keeps Windows module-definition and other ``*.def`` files from
    being taken for containers.
    """
    if not isinstance(text, str):
        return None
    bootstrap = from_ = None
    from_line = post_line = None
    in_header = True
    for number, line in enumerate(_split_lines(text.lstrip("\ufeff")), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        section = _SECTION_RE.match(line)
        if section:
            in_header = False
            if section.group("name").lower() == "post" and post_line is None:
                post_line = number
            continue
        if not in_header:
            continue
        header = _SINGULARITY_HEADER_RE.match(line)
        if header is None:
            continue
        key, value = header.group("key").lower(), header.group("value").strip()
        if key == "bootstrap" and bootstrap is None:
            bootstrap = value
        elif key == "from" and from_ is None:
            from_, from_line = value, number
    if bootstrap is None:
        return None
    return SingularityDef(bootstrap, from_, from_line, post_line is not None, post_line)


def score_singularity(definition: SingularityDef) -> tuple[int, str, str]:
    """E2 level of a definition file: 100 with a pinned ``From:`` and a ``%post``; else 80."""
    pinned = bool(definition.from_) and is_pinned_image(definition.from_ or "")
    if pinned and definition.has_post:
        return 100, "pinned_base_with_run", f"pinned From: {definition.from_} and %post"
    if not definition.from_:
        return 80, "other_container", "definition file without From:"
    if not pinned:
        return 80, "other_container", f"From: {definition.from_} is not pinned"
    return 80, "other_container", "definition file without %post"
