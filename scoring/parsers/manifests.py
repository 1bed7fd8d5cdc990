"""Dependency manifests of Python, conda, R and Julia projects, parsed into typed records.

Every function here is pure: it takes the text of one file (and its repository-relative
POSIX path, used for messages and for resolving relative includes) and returns
dataclasses. Nothing reads the filesystem; :func:`resolve_requirements` receives a
``read`` callback instead. Deposits are untrusted and often malformed, so no parser
raises on bad input: problems are recorded in ``Manifest.problems`` and parsing carries
on with whatever could be understood.

Pin classes follow METRICS.md E1 (V2):

* ``exact`` - a single version is selected (one ``==``/``===`` clause without ``.*``,
  a 40-hex VCS commit, a versioned wheel URL, a conda export pin, ...);
* ``bounded`` - any other non-empty constraint (``>=``, ``~=``, ``==1.*``, ``^1.2``,
  a VCS tag, a conda ``=X.Y`` fuzzy pin, a Julia ``[compat]`` entry, ...);
* ``unpinned`` - no constraint at all.
"""

from __future__ import annotations

import ast
import configparser
import functools
import json
import posixpath
import re
import shlex
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import yaml
from packaging.requirements import InvalidRequirement, Requirement

from .python import parse_source
from .yamlfile import safe_load as safe_load_yaml

__all__ = [
    "CUDA_TAG_RE",
    "PIN_BOUNDED",
    "PIN_EXACT",
    "PIN_UNPINNED",
    "Dependency",
    "InterpreterDecl",
    "Manifest",
    "classify_pep508",
    "conda_r_packages",
    "conda_spec_pin",
    "counts",
    "description_fields",
    "has_cuda_tag",
    "interpreter_from_version_file",
    "interpreters_from_version_file",
    "is_explicit_conda_spec",
    "is_runtime_manifest_name",
    "normalize_name",
    "parse_conanfile_py",
    "parse_conanfile_txt",
    "parse_conda_env",
    "parse_description",
    "parse_install_command",
    "parse_rscript_installs",
    "parse_fpm_toml",
    "parse_julia_project",
    "parse_matlab_project",
    "parse_packrat_lock",
    "parse_pipfile",
    "parse_pixi_toml",
    "parse_pluto_environment",
    "parse_pyproject",
    "parse_requirements",
    "parse_setup_cfg",
    "parse_setup_py",
    "parse_spack_yaml",
    "parse_vcpkg_json",
    "resolve_requirements",
    "score_manifest",
]

PIN_EXACT = "exact"
PIN_BOUNDED = "bounded"
PIN_UNPINNED = "unpinned"
_PIN_RANK = {PIN_UNPINNED: 0, PIN_BOUNDED: 1, PIN_EXACT: 2}

# Problems quote offending input; keep them short enough for a report line, and keep a
# garbage file from producing one problem per line.
_SNIPPET = 120
_MAX_PROBLEMS = 50


# --------------------------------------------------------------------------- records


@dataclass(frozen=True)
class Dependency:
    """One declared dependency, as written in one manifest."""

    name: str
    normalized: str
    spec: str
    pin: str
    line: int | None
    ecosystem: str
    source: str
    raw: str
    marker: str = ""
    # Repository-relative path of the file holding the entry. Entries pulled in through
    # ``-r`` live in another file than the manifest they are reported under.
    file: str = ""


@dataclass(frozen=True)
class InterpreterDecl:
    """A declared interpreter version or constraint (E4)."""

    language: str
    spec: str
    line: int | None
    source: str


@dataclass
class Manifest:
    """The parsed content of one manifest file."""

    path: str
    kind: str
    dependencies: list[Dependency]
    runtime: bool = True
    includes: list[str] = field(default_factory=list)
    constraint_files: list[str] = field(default_factory=list)
    interpreters: list[InterpreterDecl] = field(default_factory=list)
    build_requires: list[Dependency] = field(default_factory=list)
    # Declared sets an installation does not need (extras, dependency groups, Poetry's
    # other groups, R Suggests/Enhances, Julia [extras]/[weakdeps]): C2 reads them
    # (METRICS.md §0.2.20), E1 scores runtime entries only.
    optional: list[Dependency] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    unknown: bool = False
    conda_export: bool = False
    # False for a file of a manifest's name that holds no dependency declaration at all
    # (a pyproject.toml with only [tool.*] settings, a setup.cfg with only [flake8]): E1
    # does not score it as a manifest (METRICS.md §0.3 "nothing to pin").
    declares_dependencies: bool = True
    # (first, last) lines of the manifest's own file that declare its runtime dependencies:
    # the keys, fields, tables and literal lists that hold them (``Imports:``, ``dependencies =``,
    # the ``install_requires`` list), for evidence that shows where to look and edit
    declared: list[tuple[int, int]] = field(default_factory=list)
    # the ``prefix:`` line that makes a conda environment file an export (§0.1.16)
    export_line: int | None = None
    # requirements files whose lines are the runtime dependencies (a setup.py that opens
    # one for install_requires, pyproject's [tool.setuptools.dynamic]): (path relative to
    # the repository root, line that names it); the index reads them (METRICS.md §0.2.20)
    requirement_files: list[tuple[str, int | None]] = field(default_factory=list)
    # the line that makes the file a lockfile of its own ecosystem (vcpkg.json's
    # builtin-baseline, packrat.lock's first field): it fixes every version (E1 100)
    lock_line: int | None = None


# --------------------------------------------------------------------------- helpers

_NORMALIZE_RE = re.compile(r"[-_.]+")
_HEX40_RE = re.compile(r"^[0-9a-fA-F]{40}$")
_HEX40_SEGMENT_RE = re.compile(r"(?:^|/)([0-9a-fA-F]{40})(?:\.(?:zip|tar\.gz|tgz|tar\.bz2))?$")
_TAG_ARCHIVE_RE = re.compile(r"/archive/(?:refs/tags/)?(v?\d[^/]*?)\.(?:zip|tar\.gz|tgz)$")
_WHEEL_RE = re.compile(
    r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._]*)-(?P<version>\d[^-]*)(?:-\d[^-]*)?-[^-]+-[^-]+-[^-]+\.whl$"
)
_VCS_PREFIXES = ("git+", "hg+", "svn+", "bzr+", "git://")
_URL_PREFIXES = (*_VCS_PREFIXES, "http://", "https://", "file:", "ftp://")
_PEP508_SPEC_RE = re.compile(r"^\s*[A-Za-z0-9][A-Za-z0-9._-]*\s*(?:\[[^\]]*\])?\s*(?P<spec>[^;]*)")
_VERSION_TOKEN_RE = re.compile(r"^\d+(?:\.\d+)*")


def normalize_name(name: str) -> str:
    """PEP 503 normalisation: lower-case, runs of ``-``, ``_`` and ``.`` become ``-``."""
    return _NORMALIZE_RE.sub("-", name.strip()).lower()


def _split_lines(text: str) -> list[str]:
    # str.splitlines() also breaks on form feeds and Unicode separators, which editors and
    # pip do not count as new lines; splitting on newlines keeps line numbers honest.
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _snippet(text: str) -> str:
    text = text.strip()
    return text if len(text) <= _SNIPPET else text[: _SNIPPET - 1] + "…"


def _problem(path: str, line: int | None, message: str) -> str:
    return f"{path}:{line}: {message}" if line else f"{path}: {message}"


def _weaker(a: str, b: str) -> str:
    return a if _PIN_RANK[a] <= _PIN_RANK[b] else b


class _LineFinder:
    """Best-effort mapping of parsed TOML/YAML/INI entries back to source lines.

    Structured parsers drop positions, so entries are located by text. A cursor per
    section keeps repeated texts mapped to successive lines.
    """

    def __init__(self, text: str) -> None:
        self.lines = _split_lines(text)

    def header(self, pattern: str, start: int = 0) -> int:
        """0-based index of the first line at or after ``start`` matching ``pattern`` (or 0)."""
        regex = re.compile(pattern)
        for index in range(start, len(self.lines)):
            if regex.search(self.lines[index]):
                return index
        return 0

    def find(self, pattern: re.Pattern[str] | str | Callable[[str], bool], start: int = 0) -> int | None:
        """0-based index of the first matching line at or after ``start``, else anywhere;
        ``pattern`` is a regular expression, a literal text or a line predicate."""
        if callable(pattern) and not isinstance(pattern, re.Pattern):
            matches = pattern
        else:
            matches = (pattern if isinstance(pattern, re.Pattern) else re.compile(re.escape(pattern))).search
        for index in range(start, len(self.lines)):
            if matches(self.lines[index]):
                return index
        for index in range(0, min(start, len(self.lines))):
            if matches(self.lines[index]):
                return index
        return None

    def text(self, index: int | None) -> str:
        return self.lines[index].strip() if index is not None else ""

    def key_line(self, pattern: str, start: int = 0) -> int | None:
        """1-based line of the first line at or after ``start`` (0-based) matching ``pattern``."""
        regex = re.compile(pattern)
        for index in range(max(start, 0), len(self.lines)):
            if regex.search(self.lines[index]):
                return index + 1
        return None


def _declared(
    manifest: Manifest, first: int | None, entries: Iterable[Dependency] = (), more: Iterable[int | None] = ()
) -> None:
    """Record a declaration starting at line ``first`` and running to its last entry (or
    to the last of ``more``, lines of entries that are not dependencies)."""
    lines = [d.line for d in entries if d.line and (d.file or manifest.path) == manifest.path]
    lines += [line for line in more if line]
    if first is not None:
        lines.append(first)
    if lines:
        manifest.declared.append((min(lines), max(lines)))


def _guarded(kind: str) -> Callable[[Callable[..., Manifest]], Callable[..., Manifest]]:
    """Last line of defence: a parser bug on a hostile file must not abort a scoring run."""

    def decorate(parse: Callable[..., Manifest]) -> Callable[..., Manifest]:
        @functools.wraps(parse)
        def wrapper(text: str, path: str, *args: Any, **kwargs: Any) -> Manifest:
            try:
                manifest = parse(text, path, *args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - deliberately total
                return Manifest(
                    path=path,
                    kind=kind,
                    dependencies=[],
                    problems=[_problem(path, None, f"internal parser error: {type(exc).__name__}: {exc}")],
                )
            _cap_problems(manifest)
            return manifest

        return wrapper

    return decorate


def _cap_problems(manifest: Manifest) -> None:
    extra = len(manifest.problems) - _MAX_PROBLEMS
    if extra > 0:
        del manifest.problems[_MAX_PROBLEMS:]
        manifest.problems.append(_problem(manifest.path, None, f"{extra} more problems not listed"))


_AUX_NAME_TOKENS = frozenset(
    {
        "dev", "devel", "develop", "development", "test", "tests", "testing", "doc", "docs",
        "documentation", "lint", "linting", "style", "typing", "mypy", "ci",
    }
)  # fmt: skip
_AUX_DIRS = frozenset({"doc", "docs", "test", "tests"})
_MANIFEST_SUFFIX_RE = re.compile(r"\.(?:txt|in|ya?ml|lock)$", re.IGNORECASE)


def is_runtime_manifest_name(path: str) -> bool:
    """False when the file name (or its folder) marks development, test or docs use.

    ``requirements-dev.txt``, ``requirements_test.txt``, ``dev-requirements.txt``,
    ``requirements/docs.txt``, ``docs/requirements.txt``, ``environment-dev.yml``.
    """
    parts = [p for p in path.replace("\\", "/").split("/") if p]
    if not parts:
        return True
    stem = _MANIFEST_SUFFIX_RE.sub("", parts[-1].lower())
    if set(re.split(r"[-_.]+", stem)) & _AUX_NAME_TOKENS:
        return False
    return not (len(parts) > 1 and parts[-2].lower() in _AUX_DIRS)


# --------------------------------------------------------------------------- PEP 508


def _classify_url(url: str) -> tuple[str, str | None]:
    """Pin class of a direct URL or VCS reference, and a name derivable from it."""
    url = url.strip()
    fragment = ""
    if "#" in url:
        url, fragment = url.split("#", 1)
    egg_name = None
    if fragment:
        egg = parse_qs(fragment).get("egg")
        if egg and egg[0]:
            egg_name = re.split(r"[<>=!~\[;\s]", egg[0], maxsplit=1)[0] or None

    lowered = url.lower()
    if lowered.startswith(_VCS_PREFIXES):
        bare = re.sub(r"^(?:git|hg|svn|bzr)\+", "", url, flags=re.IGNORECASE)
        if "://" in bare:
            path = urlsplit(bare).path
            ref = path.rsplit("@", 1)[1] if "@" in path else ""
            repo_path = path.rsplit("@", 1)[0] if "@" in path else path
        else:
            # scp-like git+git@host:org/repo.git@ref - the first '@' belongs to the host.
            tail = url.split("@", 1)[1] if "@" in url else url
            ref = tail.rsplit("@", 1)[1] if "@" in tail else ""
            repo_path = tail.rsplit("@", 1)[0]
        repo_name = posixpath.basename(repo_path.rstrip("/"))
        repo_name = repo_name[:-4] if repo_name.endswith(".git") else repo_name
        name = egg_name or repo_name or None
        if _HEX40_RE.match(ref):
            return PIN_EXACT, name
        # A ref is treated as a tag when it names a version (v1.2, 2023.01, release-3);
        # branch names such as main or develop move and so are not pins.
        if ref and re.search(r"\d", ref):
            return PIN_BOUNDED, name
        return PIN_UNPINNED, name

    path = unquote(urlsplit(url).path) if "://" in url else unquote(url.split(":", 1)[-1])
    basename = posixpath.basename(path)
    wheel = _WHEEL_RE.match(basename)
    if wheel:
        return PIN_EXACT, egg_name or wheel.group("name")
    if _HEX40_SEGMENT_RE.search(path):
        return PIN_EXACT, egg_name
    if _TAG_ARCHIVE_RE.search(path):
        return PIN_BOUNDED, egg_name
    return PIN_UNPINNED, egg_name


def _is_exact_specifier(specifiers: list[Any]) -> bool:
    # One equality clause fixes the version; extra exclusions (!=, <) cannot loosen it.
    equalities = [s for s in specifiers if s.operator in ("==", "===")]
    return len(equalities) == 1 and not (
        equalities[0].operator == "==" and equalities[0].version.endswith(".*")
    )


def _pin_of_specifiers(specifiers: list[Any]) -> str:
    if not specifiers:
        return PIN_UNPINNED
    return PIN_EXACT if _is_exact_specifier(specifiers) else PIN_BOUNDED


def _marker_text(extras: Iterable[str], marker: object | None) -> str:
    parts = []
    extras = sorted(extras)
    if extras:
        parts.append(f"[{','.join(extras)}]")
    if marker is not None:
        parts.append(str(marker))
    return "; ".join(parts)


def classify_pep508(text: str) -> tuple[str, str, str, str] | None:
    """``(name, spec, pin, marker)`` of a PEP 508 requirement, or None if unparseable.

    Also accepts a bare VCS/URL requirement (``git+https://…@<sha>#egg=name``, a wheel
    URL); its spec is the URL. ``marker`` carries extras (``[a,b]``) and the environment
    marker, joined by ``; ``.
    """
    if not isinstance(text, str):
        return None
    text = text.strip()
    if not text:
        return None
    if text.lower().startswith(_URL_PREFIXES) or text.lower().endswith(".whl"):
        url, _, marker = text.partition(" ;")
        if ";" in url and not marker:
            url, _, marker = url.partition(";")
        pin, name = _classify_url(url)
        if not name:
            return None
        return name, url.strip(), pin, marker.strip()
    try:
        requirement = Requirement(text)
    except (InvalidRequirement, ValueError, TypeError):
        return None
    marker = _marker_text(requirement.extras, requirement.marker)
    if requirement.url:
        pin, _ = _classify_url(requirement.url)
        return requirement.name, requirement.url, pin, marker
    specifiers = list(requirement.specifier)
    written = _PEP508_SPEC_RE.match(text)
    spec = written.group("spec").strip() if written else ""
    if spec.startswith("(") and spec.endswith(")"):
        spec = spec[1:-1].strip()
    if specifiers and not spec:
        spec = str(requirement.specifier)
    return requirement.name, spec, _pin_of_specifiers(specifiers), marker


def _pep508_dependency(
    text: str, *, line: int | None, source: str, path: str, raw: str | None = None
) -> Dependency | None:
    parsed = classify_pep508(text)
    if parsed is None:
        return None
    name, spec, pin, marker = parsed
    return Dependency(
        name=name,
        normalized=normalize_name(name),
        spec=spec,
        pin=pin,
        line=line,
        ecosystem="pypi",
        source=source,
        raw=_snippet(raw if raw is not None else text),
        marker=marker,
        file=path,
    )


# --------------------------------------------------------------------------- requirements.txt

# Both patterns start with a fixed character and look behind for the whitespace, so a
# hostile line of whitespace cannot make the search quadratic.
_COMMENT_START_RE = re.compile(r"(?:^|(?<=\s))#")
# pip allows per-requirement options after the requirement (``pkg==1 --hash=sha256:…``).
_TRAILING_OPTION_START_RE = re.compile(r"(?<=\s)--?[A-Za-z]")
_OPTION_RE = re.compile(
    r"^(?P<flag>-r|--requirement|-c|--constraint|-e|--editable)(?:\s*=\s*|\s+|(?<=^-[rce]))(?P<value>\S.*)$"
)
_LOCAL_PATH_RE = re.compile(r"^(?:\.{1,2}(?:[/\\].*)?|[/\\~].*|[A-Za-z]:[/\\].*)$")


def _strip_comment(line: str) -> str:
    """pip's comment rule: ``#`` at the start of a line or after whitespace."""
    match = _COMMENT_START_RE.search(line)
    return (line[: match.start()] if match else line).strip()


def _strip_trailing_options(text: str) -> str:
    match = _TRAILING_OPTION_START_RE.search(text)
    return (text[: match.start()] if match else text).strip()


def _logical_lines(text: str) -> list[tuple[int, str]]:
    """Requirement-file logical lines: comments stripped, ``\\`` continuations joined."""
    result: list[tuple[int, str]] = []
    buffer: list[str] = []
    start = 0
    for number, physical in enumerate(_split_lines(text), start=1):
        if not buffer:
            start = number
        if physical.endswith("\\"):
            buffer.append(physical[:-1])
            continue
        buffer.append(physical)
        logical = _strip_comment("".join(buffer))
        buffer = []
        if logical:
            result.append((start, logical))
    if buffer:
        logical = _strip_comment("".join(buffer))
        if logical:
            result.append((start, logical))
    return result


def _resolve_relative(path: str, target: str) -> str | None:
    """Repository-relative POSIX path of ``target`` named in ``path``; None if outside."""
    target = target.strip().strip("'\"").replace("\\", "/")
    if not target or "://" in target or target.startswith("/"):
        return None
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
    if joined == ".." or joined.startswith("../"):
        return None
    return joined


def _requirement_line(
    line: int | None, text: str, path: str, source: str, problems: list[str]
) -> Dependency | None:
    """One non-option requirement line, or None (a problem is recorded when not local)."""
    text = _strip_trailing_options(text)
    if not text or (_LOCAL_PATH_RE.match(text) and not text.lower().endswith(".whl")):
        # `.`, `./pkg`, `/abs/path`: the project itself or a local tree, not a dependency.
        return None
    dependency = _pep508_dependency(text, line=line, source=source, path=path)
    if dependency is None:
        problems.append(
            _problem(path, line, f"unparseable requirement {_snippet(text)!r}")
        )
    return dependency


@_guarded("requirements")
def parse_requirements(text: str, path: str) -> Manifest:
    """Parse a pip requirements file; ``-r``/``-c`` targets are recorded, not followed."""
    manifest = Manifest(
        path=path, kind="requirements", dependencies=[], runtime=is_runtime_manifest_name(path)
    )
    if not isinstance(text, str):
        manifest.problems.append(_problem(path, None, "content is not text"))
        return manifest
    for line, logical in _logical_lines(text):
        if logical.startswith("-"):
            option = _OPTION_RE.match(logical)
            if option is None:
                continue  # --index-url, -f, --hash, --pre … do not declare dependencies
            flag, value = option.group("flag"), option.group("value").strip()
            if flag in ("-e", "--editable"):
                dependency = _requirement_line(
                    line, value, path, "requirements", manifest.problems
                )
                if dependency is not None:
                    manifest.dependencies.append(replace(dependency, raw=_snippet(logical)))
                continue
            value = _strip_trailing_options(value)
            target = _resolve_relative(path, value)
            if target is None:
                manifest.problems.append(
                    _problem(path, line, f"include outside the repository: {_snippet(value)!r}")
                )
            elif flag in ("-r", "--requirement"):
                manifest.includes.append(target)
            else:
                manifest.constraint_files.append(target)
            continue
        dependency = _requirement_line(line, logical, path, "requirements", manifest.problems)
        if dependency is not None:
            manifest.dependencies.append(dependency)
    return manifest


def _constraint_pins(
    paths: list[str], read: Callable[[str], str | None], problems: list[str]
) -> dict[str, Dependency]:
    """Strongest constraint per normalised name over the constraint files (transitively)."""
    pins: dict[str, Dependency] = {}
    seen: set[str] = set()
    pending = list(paths)
    while pending:
        path = pending.pop(0)
        if path in seen:
            continue
        seen.add(path)
        text = _safe_read(read, path)
        if text is None:
            problems.append(_problem(path, None, "constraints file not found"))
            continue
        parsed = parse_requirements(text, path)
        problems.extend(parsed.problems)
        pending.extend(parsed.includes + parsed.constraint_files)
        for dependency in parsed.dependencies:
            current = pins.get(dependency.normalized)
            if current is None or _PIN_RANK[dependency.pin] > _PIN_RANK[current.pin]:
                pins[dependency.normalized] = dependency
    return pins


def _safe_read(read: Callable[[str], str | None], path: str) -> str | None:
    try:
        text = read(path)
    except Exception:  # noqa: BLE001 - a failing reader means "not available"
        return None
    return text if isinstance(text, str) else None


def resolve_requirements(path: str, read: Callable[[str], str | None]) -> Manifest:
    """Parse ``path`` and follow its ``-r`` includes and ``-c`` constraints.

    Included entries join the result with their own ``line`` and ``file``; ``includes``
    lists every file pulled in (transitively). An unpinned or bounded entry whose name
    has a stronger pin in a constraints file takes that pin; its spec then shows both
    clauses (``>=1.0,==1.2.3``).
    """
    text = _safe_read(read, path)
    if text is None:
        return Manifest(
            path=path,
            kind="requirements",
            dependencies=[],
            runtime=is_runtime_manifest_name(path),
            problems=[_problem(path, None, "file not found")],
        )
    root = parse_requirements(text, path)
    result = Manifest(
        path=path,
        kind="requirements",
        dependencies=list(root.dependencies),
        runtime=root.runtime,
        constraint_files=list(root.constraint_files),
        problems=list(root.problems),
    )
    seen = {path}

    def follow(manifest: Manifest, stack: tuple[str, ...]) -> None:
        for target in manifest.includes:
            if target in stack:
                result.problems.append(_problem(manifest.path, None, f"include cycle via {target}"))
                continue
            if target in seen:
                continue
            seen.add(target)
            included_text = _safe_read(read, target)
            if included_text is None:
                result.problems.append(_problem(manifest.path, None, f"missing include {target}"))
                continue
            included = parse_requirements(included_text, target)
            result.includes.append(target)
            result.dependencies.extend(included.dependencies)
            result.problems.extend(included.problems)
            for constraint in included.constraint_files:
                if constraint not in result.constraint_files:
                    result.constraint_files.append(constraint)
            follow(included, (*stack, target))

    follow(root, (path,))
    if result.constraint_files:
        pins = _constraint_pins(result.constraint_files, read, result.problems)
        result.dependencies = [_apply_constraint(d, pins) for d in result.dependencies]
    return result


def _apply_constraint(dependency: Dependency, pins: dict[str, Dependency]) -> Dependency:
    constraint = pins.get(dependency.normalized)
    if constraint is None or _PIN_RANK[constraint.pin] <= _PIN_RANK[dependency.pin]:
        return dependency
    spec = ",".join(s for s in (dependency.spec, constraint.spec) if s)
    return replace(dependency, pin=constraint.pin, spec=spec)


# --------------------------------------------------------------------------- pyproject.toml

_POETRY_BARE_VERSION_RE = re.compile(
    r"^(?:==?)?\s*v?\d+(?:\.\d+)*(?:[A-Za-z]+\d*)?(?:[-+._][A-Za-z0-9]+)*$"
)


def _load_toml(text: str, path: str, problems: list[str]) -> dict[str, Any] | None:
    if not isinstance(text, str):
        problems.append(_problem(path, None, "content is not text"))
        return None
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError, TypeError) as exc:
        problems.append(_problem(path, None, f"invalid TOML: {_snippet(str(exc))}"))
        return None


def _table(data: Any, *keys: str) -> dict[str, Any]:
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data if isinstance(data, dict) else {}


def _pep508_list(
    values: Any,
    *,
    path: str,
    source: str,
    finder: _LineFinder,
    start: int,
    problems: list[str],
    what: str,
) -> list[Dependency]:
    if values is None:
        return []
    if not isinstance(values, list):
        problems.append(_problem(path, None, f"{what} is not a list"))
        return []
    dependencies = []
    cursor = start
    for value in values:
        if not isinstance(value, str):
            problems.append(_problem(path, None, f"{what}: non-string entry {_snippet(repr(value))}"))
            continue
        index = finder.find(value, cursor)
        if index is not None:
            cursor = index + 1
        line = index + 1 if index is not None else None
        dependency = _pep508_dependency(value, line=line, source=source, path=path)
        if dependency is None:
            problems.append(_problem(path, line, f"unparseable requirement {_snippet(value)!r}"))
        else:
            dependencies.append(dependency)
    return dependencies


def _poetry_version_pin(constraint: str) -> str:
    constraint = constraint.strip()
    if constraint in ("", "*"):
        return PIN_UNPINNED
    if "*" not in constraint and _POETRY_BARE_VERSION_RE.match(constraint):
        return PIN_EXACT
    return PIN_BOUNDED


def _ref_pin(ref: object) -> str:
    """A 40-hex commit is exact; a version-like ref (a tag) bounded; a branch unpinned."""
    if not isinstance(ref, str) or not ref.strip():
        return PIN_UNPINNED
    if _HEX40_RE.match(ref.strip()):
        return PIN_EXACT
    return PIN_BOUNDED if re.search(r"\d", ref) else PIN_UNPINNED


def _git_ref_pin(table: dict[str, Any]) -> str:
    if isinstance(table.get("rev"), str) and table["rev"].strip():
        return _ref_pin(table["rev"])
    if isinstance(table.get("tag"), str) and table["tag"].strip():
        return PIN_BOUNDED
    return PIN_UNPINNED


def _poetry_entry(value: Any) -> tuple[str, str, str] | None:
    """``(spec, pin, marker)`` of one Poetry dependency value."""
    if isinstance(value, str):
        return value, _poetry_version_pin(value), ""
    if isinstance(value, dict):
        marker_parts = []
        if isinstance(value.get("extras"), list):
            marker_parts.append(f"[{','.join(sorted(str(e) for e in value['extras']))}]")
        for key in ("markers", "python", "platform"):
            if isinstance(value.get(key), str):
                marker_parts.append(f"{key}={value[key]}" if key != "markers" else value[key])
        marker = "; ".join(marker_parts)
        if isinstance(value.get("version"), str):
            return value["version"], _poetry_version_pin(value["version"]), marker
        if isinstance(value.get("git"), str):
            ref = next((value[k] for k in ("rev", "tag", "branch") if isinstance(value.get(k), str)), "")
            return f"git {value['git']}{'@' + ref if ref else ''}", _git_ref_pin(value), marker
        if isinstance(value.get("url"), str):
            return value["url"], _classify_url(value["url"])[0], marker
        if isinstance(value.get("path"), str):
            return f"path {value['path']}", PIN_UNPINNED, marker
        return "", PIN_UNPINNED, marker
    if isinstance(value, list):
        # Multiple-constraint form: the declaration is only as tight as its loosest branch.
        entries = [e for e in (_poetry_entry(v) for v in value) if e is not None]
        if not entries:
            return None
        pin = PIN_EXACT
        for _, entry_pin, _ in entries:
            pin = _weaker(pin, entry_pin)
        return " || ".join(e[0] for e in entries), pin, "; ".join(e[2] for e in entries if e[2])
    return None


def _poetry_dependencies(
    table: dict[str, Any],
    *,
    path: str,
    finder: _LineFinder,
    header: str,
    manifest: Manifest,
    seen: set[str],
) -> None:
    start = finder.header(header)
    before = len(manifest.dependencies)
    for name, value in table.items():
        index = finder.find(re.compile(rf"^\s*[\"']?{re.escape(name)}[\"']?\s*="), start)
        line = index + 1 if index is not None else None
        if name.lower() == "python":
            if isinstance(value, str):
                manifest.interpreters.append(InterpreterDecl("python", value, line, "poetry"))
            continue
        if normalize_name(name) in seen:
            continue
        entry = _poetry_entry(value)
        if entry is None:
            manifest.problems.append(
                _problem(path, line, f"unrecognised Poetry dependency {name!r}")
            )
            continue
        spec, pin, marker = entry
        seen.add(normalize_name(name))
        raw = finder.text(index) or f"{name} = {json.dumps(value, default=str)}"
        manifest.dependencies.append(
            Dependency(
                name=name,
                normalized=normalize_name(name),
                spec=spec,
                pin=pin,
                line=line,
                ecosystem="pypi",
                source="poetry",
                raw=_snippet(raw),
                marker=marker,
                file=path,
            )
        )
    if table:
        _declared(manifest, finder.key_line(header), manifest.dependencies[before:])


@_guarded("pyproject")
def parse_pyproject(text: str, path: str) -> Manifest:
    """``[project]`` (PEP 621), Poetry main-group dependencies and ``[build-system]``."""
    manifest = Manifest(path=path, kind="pyproject", dependencies=[])
    data = _load_toml(text, path, manifest.problems)
    if data is None:
        return manifest
    finder = _LineFinder(text)

    project = _table(data, "project")
    project_start = finder.header(r"^\s*\[\s*project\s*\]")
    project_dependencies = _pep508_list(
        project.get("dependencies"),
        path=path,
        source="project.dependencies",
        finder=finder,
        start=finder.header(r"^\s*dependencies\s*=", project_start) or project_start,
        problems=manifest.problems,
        what="[project].dependencies",
    )
    manifest.dependencies.extend(project_dependencies)
    if "dependencies" in project:
        _declared(manifest, finder.key_line(r"^\s*dependencies\s*=", project_start), project_dependencies)
    requires_python = project.get("requires-python")
    if isinstance(requires_python, str):
        index = finder.find(re.compile(r"^\s*requires-python\s*="), project_start)
        manifest.interpreters.append(
            InterpreterDecl(
                "python", requires_python, index + 1 if index is not None else None, "requires-python"
            )
        )

    poetry = _table(data, "tool", "poetry")
    seen: set[str] = set()
    _poetry_dependencies(
        _table(poetry, "dependencies"),
        path=path,
        finder=finder,
        header=r"^\s*\[\s*tool\.poetry\.dependencies\s*\]",
        manifest=manifest,
        seen=seen,
    )
    _poetry_dependencies(
        _table(poetry, "group", "main", "dependencies"),
        path=path,
        finder=finder,
        header=r"^\s*\[\s*tool\.poetry\.group\.main\.dependencies\s*\]",
        manifest=manifest,
        seen=seen,
    )

    extras = project.get("optional-dependencies")
    if isinstance(extras, dict):
        extras_start = finder.header(r"^\s*\[\s*project\.optional-dependencies\s*\]") or project_start
        for extra, values in extras.items():
            manifest.optional.extend(_pep508_list(
                values, path=path, source=f"project.optional-dependencies.{extra}", finder=finder,
                start=extras_start, problems=manifest.problems, what=f"[project.optional-dependencies].{extra}"))
    groups = data.get("dependency-groups")
    if isinstance(groups, dict):
        groups_start = finder.header(r"^\s*\[\s*dependency-groups\s*\]")
        for group, values in groups.items():
            # {include-group = "..."} entries name another group, read on its own
            entries = [v for v in values if isinstance(v, str)] if isinstance(values, list) else values
            manifest.optional.extend(_pep508_list(
                entries, path=path, source=f"dependency-groups.{group}", finder=finder,
                start=groups_start, problems=manifest.problems, what=f"[dependency-groups].{group}"))
    other_groups = [(f"tool.poetry.group.{name}.dependencies", _table(poetry, "group", name, "dependencies"))
                    for name in _table(poetry, "group") if name != "main"]
    for header, table in [("tool.poetry.dev-dependencies", _table(poetry, "dev-dependencies")), *other_groups]:
        scratch = Manifest(path=path, kind="pyproject", dependencies=[])
        _poetry_dependencies(table, path=path, finder=finder, header=rf"^\s*\[\s*{re.escape(header)}\s*\]",
                             manifest=scratch, seen=set())
        manifest.optional.extend(scratch.dependencies)

    dynamic = project.get("dynamic") if isinstance(project.get("dynamic"), list) else ()
    files = _table(data, "tool", "setuptools", "dynamic", "dependencies").get("file")
    if "dependencies" in dynamic and isinstance(files, (str, list)):
        # [tool.setuptools.dynamic] dependencies = {file = ["requirements.txt"]}
        dynamic_start = finder.header(r"^\s*\[\s*tool\.setuptools\.dynamic\s*\]")
        line = finder.key_line(r"^\s*dependencies\s*=", dynamic_start) if dynamic_start else None
        for name in [files] if isinstance(files, str) else files:
            target = _resolve_relative(path, name) if isinstance(name, str) else None
            if target is not None:
                manifest.requirement_files.append((target, line))
    manifest.declares_dependencies = (
        "dependencies" in project
        or "dependencies" in poetry
        or "dependencies" in _table(poetry, "group", "main")
        or "dependencies" in (project.get("dynamic") if isinstance(project.get("dynamic"), list) else ())
    )
    build_system = _table(data, "build-system")
    build_start = finder.header(r"^\s*\[\s*build-system\s*\]")
    manifest.build_requires.extend(
        _pep508_list(
            build_system.get("requires"),
            path=path,
            source="build-system",
            finder=finder,
            start=build_start,
            problems=manifest.problems,
            what="[build-system].requires",
        )
    )
    return manifest


# --------------------------------------------------------------------------- setup.cfg / setup.py


def _requirement_strings_from_lines(
    value: str, *, path: str, finder: _LineFinder, start: int, source: str, manifest: Manifest
) -> None:
    cursor = start
    for piece in value.split("\n"):
        piece = _strip_comment(piece)
        if not piece:
            continue
        index = finder.find(piece, cursor)
        if index is not None:
            cursor = index + 1
        line = index + 1 if index is not None else None
        dependency = _pep508_dependency(piece, line=line, source=source, path=path)
        if dependency is not None:
            manifest.dependencies.append(dependency)
            continue
        # A one-line comma-separated list is a common mistake setuptools rejects, but the
        # author's intent is clear enough to read the names.
        parts = [p.strip() for p in piece.split(",") if p.strip()]
        parsed = [_pep508_dependency(p, line=line, source=source, path=path, raw=piece) for p in parts]
        if len(parts) > 1 and all(parsed):
            manifest.dependencies.extend(d for d in parsed if d is not None)
            manifest.problems.append(_problem(path, line, "install_requires entries separated by commas"))
        else:
            manifest.problems.append(_problem(path, line, f"unparseable requirement {_snippet(piece)!r}"))


@_guarded("setup.cfg")
def parse_setup_cfg(text: str, path: str) -> Manifest:
    """``[options] install_requires`` and ``python_requires`` of a setuptools config."""
    manifest = Manifest(path=path, kind="setup.cfg", dependencies=[])
    if not isinstance(text, str):
        manifest.problems.append(_problem(path, None, "content is not text"))
        return manifest
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text, source=path)
    except configparser.Error as exc:
        manifest.problems.append(_problem(path, None, f"invalid INI: {_snippet(str(exc))}"))
        return manifest
    if not parser.has_section("options"):
        manifest.declares_dependencies = False
        return manifest
    options = parser["options"]
    finder = _LineFinder(text)
    start = finder.header(r"^\s*\[\s*options\s*\]")

    install_requires = options.get("install_requires", options.get("install-requires"))
    manifest.declares_dependencies = install_requires is not None
    if install_requires is not None:
        stripped = install_requires.strip()
        if stripped.startswith("file:"):
            for target in stripped[len("file:") :].split(","):
                resolved = _resolve_relative(path, target)
                if resolved:
                    manifest.includes.append(resolved)
        else:
            key_index = finder.find(re.compile(r"^\s*install[_-]requires\s*="), start)
            _requirement_strings_from_lines(
                install_requires,
                path=path,
                finder=finder,
                start=key_index if key_index is not None else start,
                source="setup.cfg",
                manifest=manifest,
            )
            _declared(manifest, key_index + 1 if key_index is not None else None, manifest.dependencies)

    for section in ("options.extras_require", "options.extras-require"):
        if parser.has_section(section):
            section_start = finder.header(rf"^\s*\[\s*{re.escape(section)}\s*\]")
            scratch = Manifest(path=path, kind="setup.cfg", dependencies=[])
            for value in parser[section].values():
                _requirement_strings_from_lines(value, path=path, finder=finder, start=section_start,
                                                source="setup.cfg.extras_require", manifest=scratch)
            manifest.optional.extend(scratch.dependencies)

    python_requires = options.get("python_requires", options.get("python-requires"))
    if python_requires is not None and python_requires.strip().strip("'\""):
        index = finder.find(re.compile(r"^\s*python[_-]requires\s*="), start)
        manifest.interpreters.append(
            InterpreterDecl(
                "python",
                python_requires.strip().strip("'\""),
                index + 1 if index is not None else None,
                "python_requires",
            )
        )
    return manifest


class _NotLiteral(Exception):
    """The expression cannot be evaluated without running the setup script."""


def _literal_strings(node: ast.AST, assignments: dict[str, ast.AST], depth: int = 0) -> list[ast.Constant]:
    if depth > 10:
        raise _NotLiteral
    if isinstance(node, (ast.List, ast.Tuple)):
        constants = []
        for element in node.elts:
            if isinstance(element, ast.Constant) and isinstance(element.value, str):
                constants.append(element)
            else:
                raise _NotLiteral
        return constants
    if isinstance(node, ast.Name) and node.id in assignments:
        return _literal_strings(assignments[node.id], assignments, depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _literal_strings(node.left, assignments, depth + 1) + _literal_strings(
            node.right, assignments, depth + 1
        )
    raise _NotLiteral


def _literal_lists(node: ast.AST, assignments: dict[str, ast.AST], depth: int = 0) -> list[tuple[int, int]]:
    """(first, last) lines of the list and tuple literals :func:`_literal_strings` reads."""
    if depth > 10:
        return []
    if isinstance(node, (ast.List, ast.Tuple)):
        return [(node.lineno, node.end_lineno or node.lineno)]
    if isinstance(node, ast.Name) and node.id in assignments:
        return _literal_lists(assignments[node.id], assignments, depth + 1)
    if isinstance(node, ast.BinOp):
        return _literal_lists(node.left, assignments, depth + 1) + _literal_lists(node.right, assignments, depth + 1)
    return []


def _module_assignments(tree: ast.Module) -> dict[str, ast.AST]:
    """Module-level ``NAME = <expr>``; a name assigned twice is not trusted."""
    assignments: dict[str, ast.AST] = {}
    ambiguous: set[str] = set()
    for statement in tree.body:
        targets: list[ast.expr] = []
        value: ast.AST | None = None
        if isinstance(statement, ast.Assign):
            targets, value = statement.targets, statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            targets, value = [statement.target], statement.value
        elif isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name):
            ambiguous.add(statement.target.id)
        for target in targets:
            if isinstance(target, ast.Name):
                if target.id in assignments:
                    ambiguous.add(target.id)
                assignments[target.id] = value  # type: ignore[assignment]
    for name in ambiguous:
        assignments.pop(name, None)
    return assignments


def _is_setup_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    return name.endswith("setup")


@_guarded("setup.py")
def parse_setup_py(text: str, path: str) -> Manifest:
    """Literal ``install_requires`` / ``python_requires`` of the ``setup(...)`` call."""
    manifest = Manifest(path=path, kind="setup.py", dependencies=[])
    if not isinstance(text, str):
        manifest.problems.append(_problem(path, None, "content is not text"))
        return manifest
    try:
        tree = parse_source(text, path)
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None)
        manifest.problems.append(_problem(path, line, f"syntax error: {_snippet(str(exc))}"))
        return manifest
    calls = [node for node in ast.walk(tree) if _is_setup_call(node)]
    if not calls:
        manifest.problems.append(_problem(path, None, "no setup() call found"))
        return manifest
    assignments = _module_assignments(tree)
    ordered = sorted(calls, key=lambda c: (c.lineno, c.col_offset))
    install = _first_keyword(ordered, "install_requires")
    if install is not None:
        _setup_py_requirements(install, assignments, _split_lines(text), path, manifest)
        if manifest.unknown:
            # install_requires=open("requirements.txt").read().splitlines() and friends:
            # the requirements file the script opens holds them (METRICS.md §0.2.20)
            manifest.requirement_files.extend(_opened_requirement_files(install.value, tree, path))
    elif any(k.arg is None for call in ordered for k in call.keywords):
        # setup(**options): the requirements may hide in the unpacked mapping.
        manifest.unknown = True
        manifest.problems.append(
            _problem(path, ordered[0].lineno, "setup() receives **kwargs; install_requires unknown")
        )
    extras = _first_keyword(ordered, "extras_require")
    extras_value = extras.value if extras is not None else None
    if isinstance(extras_value, ast.Name):
        extras_value = assignments.get(extras_value.id)
    if isinstance(extras_value, ast.Dict):
        scratch = Manifest(path=path, kind="setup.py", dependencies=[])
        for value in extras_value.values:
            try:
                _literal_strings(value, assignments)
            except _NotLiteral:
                continue  # an extra built at run time: its names stay unknown
            _setup_py_requirements(ast.keyword(arg="extras_require", value=value), assignments,
                                   _split_lines(text), path, scratch)
        manifest.optional.extend(scratch.dependencies)
    python = _first_keyword(ordered, "python_requires")
    if python is not None:
        value = python.value
        if isinstance(value, ast.Name) and isinstance(assignments.get(value.id), ast.Constant):
            value = assignments[value.id]
        if isinstance(value, ast.Constant) and isinstance(value.value, str) and value.value.strip():
            manifest.interpreters.append(
                InterpreterDecl("python", value.value.strip(), python.value.lineno, "python_requires")
            )
        else:
            manifest.problems.append(
                _problem(path, python.value.lineno, "python_requires is not a literal string")
            )
    return manifest


# A file a setup script reads its requirements from: requirements*.txt, reqs/base.in…
_REQUIREMENTS_FILE_RE = re.compile(r"[^\s'\"]+\.(?:txt|in|pip)", re.IGNORECASE)
# A folder a path is built from: "reqs", "requirements/", "ci/deps".
_FOLDER_LITERAL_RE = re.compile(r"[A-Za-z_][\w\-]*(?:/[\w\-]+)*/?")


def _path_literal(node: ast.AST) -> str | None:
    """The file a path expression names when its tail is literal: ``"requirements.txt"``,
    ``os.path.join(here, "reqs", "base.txt")``, ``Path(__file__).parent / "requirements.txt"``
    (the folder it starts from is the setup script's own)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name)):
        name = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id
        if name == "join":
            parts = []
            for arg in reversed(node.args):
                if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                    break
                parts.insert(0, arg.value)
            return "/".join(parts) if parts else None
        if name in ("Path", "PurePath") and node.args:
            return _path_literal(node.args[-1])
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        right = _path_literal(node.right)
        left = _path_literal(node.left) if right is not None else None
        if right is not None and left is not None and _REQUIREMENTS_FILE_RE.fullmatch(left) is None:
            return f"{left}/{right}"
        return right
    return None


def _opened_requirement_files(value: ast.AST, module: ast.Module, path: str) -> list[tuple[str, int | None]]:
    """The requirements files a non-literal ``install_requires`` reads: every path literal
    naming a ``.txt``/``.in``/``.pip`` file in its expression, in the module-level
    statements that bind the names it uses (``with open("requirements.txt") as f:``
    ``requirements = f.read().splitlines()`` too) and in the bodies of the module's
    functions it calls, followed three steps deep. Paths are relative to the script's
    folder, as pip runs it."""
    bindings: dict[str, list[ast.AST]] = {}
    functions: dict[str, ast.AST] = {}
    for node in ast.walk(module):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.setdefault(node.name, node)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    bindings.setdefault(target.id, []).append(node.value)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name) and node.value:
            bindings.setdefault(node.target.id, []).append(node.value)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if isinstance(item.optional_vars, ast.Name):
                    bindings.setdefault(item.optional_vars.id, []).append(item.context_expr)
    files: dict[str, int | None] = {}
    folders: list[str] = []
    seen: set[int] = set()
    pending: list[tuple[ast.AST, int]] = [(value, 0)]
    while pending:
        node, depth = pending.pop(0)
        if id(node) in seen or depth > 3:
            continue
        seen.add(id(node))
        consumed: set[int] = set()   # the parts of a joined path, not files of their own
        for child in ast.walk(node):
            named = _path_literal(child) if id(child) not in consumed else None
            if named is not None and _REQUIREMENTS_FILE_RE.fullmatch(named.strip()):
                consumed.update(id(part) for part in ast.walk(child) if part is not child)
                files.setdefault(named.strip(), getattr(child, "lineno", None))
            elif (isinstance(child, ast.Constant) and isinstance(child.value, str)
                  and _FOLDER_LITERAL_RE.fullmatch(child.value)):
                folders.append(child.value.strip("/"))
            if isinstance(child, ast.Name):
                pending += [(bound, depth + 1) for bound in bindings.get(child.id, ())]
                if child.id in functions:
                    pending.append((functions[child.id], depth + 1))
    # A helper that joins a folder it names to the file name it is given
    # (``requirements("base.txt")`` reading ``here / "reqs" / name``): every folder literal
    # of the same code is a candidate; the index keeps the paths that exist.
    found: dict[str, int | None] = {}
    for name, line in files.items():
        joined = () if "/" in name else (f"{folder}/{name}" for folder in dict.fromkeys(folders))
        for candidate in (name, *joined):
            target = _resolve_relative(path, candidate)
            if target is not None:
                found.setdefault(target, line)
    return sorted(found.items(), key=lambda item: (item[1] or 0, item[0]))


def _first_keyword(calls: list[ast.Call], name: str) -> ast.keyword | None:
    for call in calls:
        for keyword in call.keywords:
            if keyword.arg == name:
                return keyword
    return None


def _setup_py_requirements(
    install: ast.keyword,
    assignments: dict[str, ast.AST],
    lines: list[str],
    path: str,
    manifest: Manifest,
) -> None:
    try:
        constants = _literal_strings(install.value, assignments)
    except _NotLiteral:
        manifest.unknown = True
        manifest.problems.append(_problem(path, install.value.lineno, "install_requires is not a literal"))
        manifest.declared.append((install.value.lineno, install.value.end_lineno or install.value.lineno))
        return
    manifest.declared.extend(_literal_lists(install.value, assignments))
    for constant in constants:
        raw = lines[constant.lineno - 1] if constant.lineno <= len(lines) else constant.value
        dependency = _pep508_dependency(constant.value, line=constant.lineno, source="setup.py", path=path)
        if dependency is None:
            manifest.problems.append(
                _problem(path, constant.lineno, f"unparseable requirement {_snippet(constant.value)!r}")
            )
        else:
            manifest.dependencies.append(replace(dependency, raw=_snippet(raw)))


# --------------------------------------------------------------------------- Pipfile


def _pipfile_entry(value: Any) -> tuple[str, str, str] | None:
    """``(spec, pin, marker)`` of one Pipfile ``[packages]`` value."""
    if isinstance(value, str):
        return value, _pip_spec_pin(value), ""
    if isinstance(value, dict):
        marker_parts = []
        if isinstance(value.get("extras"), list):
            marker_parts.append(f"[{','.join(sorted(str(e) for e in value['extras']))}]")
        if isinstance(value.get("markers"), str):
            marker_parts.append(value["markers"])
        marker = "; ".join(marker_parts)
        if isinstance(value.get("version"), str):
            return value["version"], _pip_spec_pin(value["version"]), marker
        if isinstance(value.get("git"), str):
            ref = value.get("ref") if isinstance(value.get("ref"), str) else ""
            return f"git {value['git']}{'@' + ref if ref else ''}", _ref_pin(ref), marker
        for key in ("file", "url"):
            if isinstance(value.get(key), str):
                return value[key], _classify_url(value[key])[0], marker
        if isinstance(value.get("path"), str):
            return f"path {value['path']}", PIN_UNPINNED, marker
        return "", PIN_UNPINNED, marker
    return None


_PIPFILE_ENTRY_KEYS = frozenset({
    "version", "git", "hg", "svn", "bzr", "ref", "extras", "markers", "file", "url", "path", "editable",
    "index", "subdirectory", "os_name", "sys_platform", "platform_machine", "platform_system",
    "python_version", "implementation_name",
})


def _pipfile_items(table: dict[str, Any], prefix: str = "") -> Iterable[tuple[str, Any]]:
    """``(name, value)`` of a Pipfile packages table. An unquoted dotted name
    (``ruamel.yaml = "*"``) is a TOML dotted key, read as a nested table: it is joined
    back into the distribution name."""
    for name, value in table.items():
        full = f"{prefix}{name}"
        if isinstance(value, dict) and value and not (set(value) & _PIPFILE_ENTRY_KEYS):
            yield from _pipfile_items(value, full + ".")
        else:
            yield full, value


def _pip_spec_pin(spec: str) -> str:
    spec = spec.strip()
    if spec in ("", "*"):
        return PIN_UNPINNED
    if _VERSION_TOKEN_RE.match(spec):
        return PIN_BOUNDED if "*" in spec else PIN_EXACT  # a bare version reads as ==
    parsed = classify_pep508(f"placeholder{spec}")
    if parsed is not None and parsed[0] == "placeholder":
        return parsed[2]
    return PIN_BOUNDED


@_guarded("pipfile")
def parse_pipfile(text: str, path: str) -> Manifest:
    """Pipfile ``[packages]`` (dependencies), ``[dev-packages]`` (an optional declared set:
    C2 reads it, E1 does not score it) and ``[requires]`` python version."""
    manifest = Manifest(path=path, kind="pipfile", dependencies=[])
    data = _load_toml(text, path, manifest.problems)
    if data is None:
        return manifest
    finder = _LineFinder(text)
    for table, target in (("packages", manifest.dependencies), ("dev-packages", manifest.optional)):
        start = finder.header(rf"^\s*\[\s*{re.escape(table)}\s*\]")
        for name, value in _pipfile_items(_table(data, table)):
            index = finder.find(re.compile(rf"^\s*[\"']?{re.escape(name)}[\"']?\s*="), start)
            line = index + 1 if index is not None else None
            entry = _pipfile_entry(value)
            if entry is None:
                manifest.problems.append(_problem(path, line, f"unrecognised Pipfile entry {name!r}"))
                continue
            spec, pin, marker = entry
            target.append(
                Dependency(
                    name=name,
                    normalized=normalize_name(name),
                    spec=spec if spec != "*" else "",
                    pin=pin,
                    line=line,
                    ecosystem="pypi",
                    source="pipfile",
                    raw=_snippet(finder.text(index) or f"{name} = {json.dumps(value, default=str)}"),
                    marker=marker,
                    file=path,
                )
            )
    if "packages" in data:
        _declared(manifest, finder.key_line(r"^\s*\[\s*packages\s*\]"), manifest.dependencies)
    requires = _table(data, "requires")
    requires_start = finder.header(r"^\s*\[\s*requires\s*\]")
    for key in ("python_full_version", "python_version"):
        value = requires.get(key)
        if isinstance(value, str) and value.strip():
            index = finder.find(re.compile(rf"^\s*{key}\s*="), requires_start)
            manifest.interpreters.append(
                InterpreterDecl("python", value.strip(), index + 1 if index is not None else None, "pipfile")
            )
    return manifest


# --------------------------------------------------------------------------- conda environment.yml

_CONDA_SPEC_RE = re.compile(r"^(?P<name>[A-Za-z0-9_][A-Za-z0-9_.\-]*)(?P<rest>.*)$")
_CONDA_BRACKET_VERSION_RE = re.compile(r"version\s*=\s*[\"']?(?P<version>[^\"',\]]+)")
_CONDA_BRACKET_BUILD_RE = re.compile(r"build\s*=\s*[\"']?(?P<build>[^\"',\]]+)")
_RANGE_CHARS = set("*,|<>!~")


@dataclass(frozen=True)
class _CondaSpec:
    name: str
    spec: str  # the version part as written ('=1.2', '>=1.0', '1.24.3'), '' when bare
    operator: str  # '', '==', '=', 'space', 'range'
    version: str
    build: str


def _parse_conda_spec(entry: str) -> _CondaSpec | None:
    entry = entry.strip()
    if "::" in entry:
        entry = entry.split("::", 1)[1].strip()
    match = _CONDA_SPEC_RE.match(entry)
    if match is None:
        return None
    name, rest = match.group("name"), match.group("rest")
    spec = rest.strip()
    if not spec:
        return _CondaSpec(name, "", "", "", "")
    if spec.startswith("["):
        version = _CONDA_BRACKET_VERSION_RE.search(spec)
        build = _CONDA_BRACKET_BUILD_RE.search(spec)
        if version is None:
            return _CondaSpec(name, spec, "", "", build.group("build") if build else "")
        spec_rest = version.group("version").strip()
        inner = _parse_conda_spec(f"{name} {spec_rest}")
        if inner is None:
            return None
        return replace(inner, spec=spec, build=build.group("build") if build else inner.build)
    if spec.startswith("=="):
        version, _, build = spec[2:].partition("=")
        return _CondaSpec(name, spec, "==", version.strip(), build.strip())
    if spec.startswith("="):
        version, _, build = spec[1:].partition("=")
        return _CondaSpec(name, spec, "=", version.strip(), build.strip())
    if spec[0] in "<>!~":
        return _CondaSpec(name, spec, "range", spec, "")
    if rest[:1].isspace():
        tokens = spec.split()
        if tokens[0][0] in "<>!~=":
            return replace(_parse_conda_spec(name + tokens[0]) or _CondaSpec(name, spec, "range", spec, ""), spec=spec)
        return _CondaSpec(name, spec, "space", tokens[0], tokens[1] if len(tokens) > 1 else "")
    return None


# A conda version may start with an epoch (``1!164.3095``): the ``!`` is not a range.
_CONDA_EPOCH_RE = re.compile(r"^\d+!")


def _conda_pin(spec: _CondaSpec, export: bool) -> str:
    if not spec.operator:
        return PIN_UNPINNED
    if spec.operator == "range" or _RANGE_CHARS & set(_CONDA_EPOCH_RE.sub("", spec.version)):
        return PIN_BOUNDED
    if spec.operator in ("==", "space"):
        return PIN_EXACT if spec.version else PIN_UNPINNED
    # Single '=' is conda's fuzzy match (=1.2 means 1.2.*), so only a full version, a build
    # string, or an exported environment (which records what was installed) selects one build.
    if not spec.version:
        return PIN_UNPINNED
    if spec.build or export or len(spec.version.split(".")) >= 3:
        return PIN_EXACT
    return PIN_BOUNDED


def conda_spec_pin(entry: str) -> str | None:
    """The pin class of one conda match spec written in a workflow directive
    (``conda-forge::wget=1.20.1``, ``bioconda::samtools 1.17``), None when it is not one.
    A single ``=`` pins as in an environment file: exact with three version components or
    a build string, bounded otherwise."""
    spec = _parse_conda_spec(entry)
    return None if spec is None else _conda_pin(spec, export=False)


def _yaml_entry_pattern(entry: str) -> Callable[[str], bool]:
    """Whether a line is the YAML list item ``entry`` (``- entry``, optionally quoted,
    optionally followed by a comment). A predicate, not a regular expression: an
    environment file has hundreds of entries, each a pattern of its own, which would
    overflow the ``re`` module's cache and be compiled again on every lookup."""

    def matches(line: str) -> bool:
        rest = line.strip()
        if not rest.startswith("-"):
            return False
        rest = rest[1:].lstrip()
        if rest[:1] in ("'", '"'):
            rest = rest[1:]
        if not rest.startswith(entry):
            return False
        rest = rest[len(entry):]
        if rest[:1] in ("'", '"'):
            rest = rest[1:]
        rest = rest.lstrip()
        return not rest or rest.startswith("#")

    return matches


@_guarded("conda")
def parse_conda_env(text: str, path: str) -> Manifest:
    """A conda ``environment.yml``: match specs plus the nested ``pip:`` list."""
    manifest = Manifest(path=path, kind="conda", dependencies=[], runtime=is_runtime_manifest_name(path))
    if not isinstance(text, str):
        manifest.problems.append(_problem(path, None, "content is not text"))
        return manifest
    try:
        data = safe_load_yaml(text)
    except yaml.YAMLError as exc:
        manifest.problems.append(_problem(path, None, f"invalid YAML: {_snippet(str(exc))}"))
        return manifest
    if data is None:
        manifest.problems.append(_problem(path, None, "empty environment file"))
        return manifest
    if not isinstance(data, dict):
        manifest.problems.append(_problem(path, None, "environment file is not a mapping"))
        return manifest
    entries = data.get("dependencies")
    if entries is None:
        return manifest
    if not isinstance(entries, list):
        manifest.problems.append(_problem(path, None, "dependencies is not a list"))
        return manifest

    finder = _LineFinder(text)
    cursor = finder.header(r"^\s*dependencies\s*:")
    conda_specs: list[tuple[_CondaSpec, str, int | None]] = []
    pip_lists: list[tuple[list[Any], int]] = []
    for entry in entries:
        if isinstance(entry, dict):
            if "pip" in entry and isinstance(entry["pip"], list):
                pip_index = finder.find(re.compile(r"^\s*-\s*[\"']?pip[\"']?\s*:"), cursor)
                pip_lists.append((entry["pip"], pip_index if pip_index is not None else cursor))
            else:
                manifest.problems.append(
                    _problem(path, None, f"unrecognised dependency mapping {_snippet(repr(entry))}")
                )
            continue
        if isinstance(entry, (int, float)) or not isinstance(entry, str):
            manifest.problems.append(_problem(path, None, f"non-string dependency {_snippet(repr(entry))}"))
            continue
        index = finder.find(_yaml_entry_pattern(entry.strip()), cursor)
        if index is not None:
            cursor = index + 1
        line = index + 1 if index is not None else None
        spec = _parse_conda_spec(entry)
        if spec is None:
            manifest.problems.append(_problem(path, line, f"unrecognised conda spec {_snippet(entry)!r}"))
            continue
        conda_specs.append((spec, entry.strip(), line))

    manifest.conda_export = "prefix" in data or (
        bool(conda_specs) and all(spec.operator in ("=", "==") for spec, _, _ in conda_specs)
    )
    if "prefix" in data:
        manifest.export_line = finder.key_line(r"^prefix\s*:")
    for spec, raw, line in conda_specs:
        lowered = spec.name.lower()
        if lowered in ("python", "r-base") and spec.operator:
            language = "python" if lowered == "python" else "r"
            manifest.interpreters.append(InterpreterDecl(language, spec.spec, line, "conda"))
        if lowered in ("python", "pip"):
            continue
        manifest.dependencies.append(
            Dependency(
                name=spec.name,
                normalized=normalize_name(spec.name),
                spec=spec.spec,
                pin=_conda_pin(spec, manifest.conda_export),
                line=line,
                ecosystem="conda",
                source="conda",
                raw=_snippet(raw),
                file=path,
            )
        )

    for pip_entries, pip_start in pip_lists:
        pip_cursor = pip_start
        for entry in pip_entries:
            if not isinstance(entry, str):
                manifest.problems.append(_problem(path, None, f"non-string pip entry {_snippet(repr(entry))}"))
                continue
            index = finder.find(_yaml_entry_pattern(entry.strip()), pip_cursor)
            if index is not None:
                pip_cursor = index + 1
            line = index + 1 if index is not None else None
            stripped = entry.strip()
            if stripped.startswith("-"):
                option = _OPTION_RE.match(stripped)
                if option is None:
                    continue
                flag, value = option.group("flag"), option.group("value").strip()
                if flag in ("-e", "--editable"):
                    stripped = value
                else:
                    target = _resolve_relative(path, value)
                    if target is None:
                        manifest.problems.append(_problem(path, line, f"include outside the repository: {value!r}"))
                    elif flag in ("-r", "--requirement"):
                        manifest.includes.append(target)
                    else:
                        manifest.constraint_files.append(target)
                    continue
            dependency = _requirement_line(line, stripped, path, "conda-pip", manifest.problems)
            if dependency is not None:
                manifest.dependencies.append(replace(dependency, raw=_snippet(entry)))
    _declared(manifest, finder.key_line(r"^\s*dependencies\s*:"), manifest.dependencies,
              (line for _, _, line in conda_specs))
    return manifest


# Conda meta-packages and the R packages installing them provides: r-tidyverse's
# DESCRIPTION Imports (tidyverse 2.0.0; the attached core and the packages installed with it).
_CONDA_R_METAPACKAGES: dict[str, tuple[str, ...]] = {
    "tidyverse": (
        "broom", "conflicted", "cli", "dbplyr", "dplyr", "dtplyr", "forcats", "ggplot2", "googledrive",
        "googlesheets4", "haven", "hms", "httr", "jsonlite", "lubridate", "magrittr", "modelr", "pillar",
        "purrr", "ragg", "readr", "readxl", "reprex", "rlang", "rstudioapi", "rvest", "stringr", "tibble",
        "tidyr", "xml2", "tidyverse",
    ),
}
_CONDA_R_PREFIXES = ("r-", "bioconductor-")


def conda_r_packages(name: str) -> tuple[str, ...]:
    """The R packages (lower-case) a conda package provides (METRICS.md §0.3 workflows):
    ``r-<pkg>`` and ``bioconductor-<pkg>`` provide ``<pkg>`` (``r-data.table`` →
    ``data.table``, ``bioconductor-deseq2`` → ``deseq2``, matched case-insensitively
    against ``DESeq2``); a meta-package (``r-tidyverse``) provides its members too.
    ``r-base`` and other names provide none."""
    lowered = name.strip().lower()
    for prefix in _CONDA_R_PREFIXES:
        if lowered.startswith(prefix) and len(lowered) > len(prefix):
            package = lowered[len(prefix):]
            if prefix == "r-" and package in ("base", "essentials", "recommended"):
                return ()
            return _CONDA_R_METAPACKAGES.get(package, (package,))
    return ()


def is_explicit_conda_spec(text: str) -> bool:
    """True when the first non-blank, non-comment line is ``@EXPLICIT`` (a conda lock list)."""
    if not isinstance(text, str):
        return False
    for line in _split_lines(text):
        stripped = line.strip().lstrip("\ufeff")
        if not stripped or stripped.startswith("#"):
            continue
        return stripped == "@EXPLICIT"
    return False


# --------------------------------------------------------------------------- R DESCRIPTION

_DCF_FIELD_RE = re.compile(r"^(?P<field>[A-Za-z][A-Za-z0-9/._@-]*)\s*:(?P<value>.*)$")
_R_ENTRY_RE = re.compile(
    r"^(?P<name>[A-Za-z][A-Za-z0-9.]*)\s*(?:\(\s*(?P<op>[<>=!]=?)\s*(?P<version>[^)\s]+)\s*\))?$"
)
_DESCRIPTION_DEPENDENCY_FIELDS = ("Depends", "Imports", "LinkingTo")
_DESCRIPTION_OPTIONAL_FIELDS = ("Suggests", "Enhances")


def _dcf_fields(
    text: str, path: str, problems: list[str], headers: dict[str, int] | None = None
) -> dict[str, list[tuple[int, str]]]:
    """Field name → its (line, text) segments; continuation lines start with whitespace.
    ``headers``, when given, receives the line of each field's name."""
    fields: dict[str, list[tuple[int, str]]] = {}
    current: list[tuple[int, str]] | None = None
    for number, line in enumerate(_split_lines(text), start=1):
        if not line.strip():
            current = None
            continue
        if line[:1].isspace():
            if current is None:
                problems.append(_problem(path, number, "continuation line outside a field"))
            else:
                current.append((number, line.strip()))
            continue
        match = _DCF_FIELD_RE.match(line)
        if match is None:
            problems.append(_problem(path, number, f"malformed line {_snippet(line)!r}"))
            current = None
            continue
        current = []
        if headers is not None:
            headers.setdefault(match.group("field"), number)
        fields.setdefault(match.group("field"), current)
        if fields[match.group("field")] is not current:
            problems.append(_problem(path, number, f"duplicate field {match.group('field')!r}"))
            current = fields[match.group("field")]
        if match.group("value").strip():
            current.append((number, match.group("value").strip()))
    return fields


def description_fields(text: str, path: str) -> dict[str, str]:
    """The fields of an R ``DESCRIPTION`` as text, continuation lines joined by newlines
    (malformed lines are left out; :func:`parse_description` reports them)."""
    return {name: "\n".join(segment for _, segment in segments)
            for name, segments in _dcf_fields(text, path, []).items()}


def _comma_entries(segments: list[tuple[int, str]]) -> list[tuple[int, str]]:
    entries: list[tuple[int, str]] = []
    buffer: list[str] = []
    start: int | None = None
    for number, segment in segments:
        for position, piece in enumerate(segment.split(",")):
            if position > 0 and buffer:
                entries.append((start or number, " ".join(buffer)))
                buffer, start = [], None
            if piece.strip():
                buffer.append(piece.strip())
                start = start or number
    if buffer:
        entries.append((start or 0, " ".join(buffer)))
    return entries


@_guarded("description")
def parse_description(text: str, path: str) -> Manifest:
    """An R package ``DESCRIPTION``: Depends, Imports and LinkingTo; ``R (>= x)`` is an
    interpreter; Suggests and Enhances are optional."""
    manifest = Manifest(path=path, kind="description", dependencies=[])
    if not isinstance(text, str):
        manifest.problems.append(_problem(path, None, "content is not text"))
        return manifest
    headers: dict[str, int] = {}
    fields = _dcf_fields(text, path, manifest.problems, headers)
    for field_name in _DESCRIPTION_DEPENDENCY_FIELDS:
        if field_name in headers:
            last = max((line for line, _ in fields[field_name]), default=headers[field_name])
            manifest.declared.append((headers[field_name], last))
    for field_name in (*_DESCRIPTION_DEPENDENCY_FIELDS, *_DESCRIPTION_OPTIONAL_FIELDS):
        target = manifest.optional if field_name in _DESCRIPTION_OPTIONAL_FIELDS else manifest.dependencies
        for line, entry in _comma_entries(fields.get(field_name, [])):
            match = _R_ENTRY_RE.match(entry)
            if match is None:
                manifest.problems.append(_problem(path, line, f"unparseable {field_name} entry {_snippet(entry)!r}"))
                continue
            name, op, version = match.group("name"), match.group("op"), match.group("version")
            spec = f"{op} {version}" if op else ""
            if name == "R":
                if op:
                    manifest.interpreters.append(InterpreterDecl("r", spec, line, "description"))
                continue
            pin = PIN_UNPINNED if not op else PIN_EXACT if op == "==" else PIN_BOUNDED
            target.append(
                Dependency(
                    name=name,
                    normalized=normalize_name(name),
                    spec=spec,
                    pin=pin,
                    line=line,
                    ecosystem="cran",
                    source="description",
                    raw=_snippet(entry),
                    marker=field_name,
                    file=path,
                )
            )
    return manifest


# --------------------------------------------------------------------------- Julia Project.toml

_JULIA_EXACT_COMPAT_RE = re.compile(r"^=\s*\d+(?:\.\d+){0,2}$")


@_guarded("julia-project")
def parse_julia_project(text: str, path: str) -> Manifest:
    """A Julia ``Project.toml``: ``[deps]`` names, pinned by ``[compat]`` entries."""
    manifest = Manifest(path=path, kind="julia-project", dependencies=[])
    data = _load_toml(text, path, manifest.problems)
    if data is None:
        return manifest
    finder = _LineFinder(text)
    compat = _table(data, "compat")
    compat_start = finder.header(r"^\s*\[\s*compat\s*\]")
    deps_start = finder.header(r"^\s*\[\s*deps\s*\]")
    for table in ("deps", "compat"):
        if _table(data, table):
            first = finder.key_line(rf"^\s*\[\s*{table}\s*\]")
            if first is not None:
                following = finder.key_line(r"^\s*\[", first)
                last = following - 1 if following is not None else len(finder.lines)
                while last > first and not finder.lines[last - 1].strip():
                    last -= 1
                manifest.declared.append((first, last))
    for name in _table(data, "deps"):
        index = finder.find(re.compile(rf"^\s*[\"']?{re.escape(name)}[\"']?\s*="), deps_start)
        bound = compat.get(name)
        spec = bound.strip() if isinstance(bound, str) else ""
        if not spec:
            pin = PIN_UNPINNED
        elif "," not in spec and _JULIA_EXACT_COMPAT_RE.match(spec):
            pin = PIN_EXACT
        else:
            pin = PIN_BOUNDED
        manifest.dependencies.append(
            Dependency(
                name=name,
                normalized=normalize_name(name),
                spec=spec,
                pin=pin,
                line=index + 1 if index is not None else None,
                ecosystem="julia",
                source="julia-project",
                raw=_snippet(finder.text(index) or name),
                file=path,
            )
        )
    for section in ("extras", "weakdeps"):
        section_start = finder.header(rf"^\s*\[\s*{section}\s*\]")
        for name in _table(data, section):
            index = finder.find(re.compile(rf"^\s*[\"']?{re.escape(name)}[\"']?\s*="), section_start)
            manifest.optional.append(Dependency(
                name=name, normalized=normalize_name(name), spec="", pin=PIN_UNPINNED,
                line=index + 1 if index is not None else None, ecosystem="julia", source=f"julia-project.{section}",
                raw=_snippet(finder.text(index) or name), file=path))
    julia = compat.get("julia")
    if isinstance(julia, str) and julia.strip():
        index = finder.find(re.compile(r"^\s*[\"']?julia[\"']?\s*="), compat_start)
        manifest.interpreters.append(
            InterpreterDecl("julia", julia.strip(), index + 1 if index is not None else None, "julia-compat")
        )
    return manifest


# --------------------------------------------------------------------------- pixi.toml

def _pixi_conda_pin(version: str) -> str:
    """A pixi ``[dependencies]`` version, read as a conda match spec: ``"*"`` unpinned, a
    bare full version exact (``numpy 1.26.4``), ``=X.Y`` and ranges bounded."""
    version = version.strip()
    if not version or version == "*":
        return PIN_UNPINNED
    spec = _parse_conda_spec(f"pkg {version}" if version[0] not in "<>=!~" else f"pkg{version}")
    return PIN_BOUNDED if spec is None else _conda_pin(spec, export=False)


def _pixi_entry(name: str, value: Any, pypi: bool) -> tuple[str, str] | None:
    """``(spec, pin)`` of one pixi dependency; None for a local path (the project itself)."""
    if isinstance(value, dict):
        if isinstance(value.get("path"), str):
            return None
        if isinstance(value.get("git"), str):
            ref = next((value[k] for k in ("rev", "tag", "branch") if isinstance(value.get(k), str)), "")
            return f"git {value['git']}{'@' + ref if ref else ''}", _git_ref_pin(value)
        if isinstance(value.get("url"), str):
            return value["url"], _classify_url(value["url"])[0]
        version = value.get("version")
        if not isinstance(version, str):
            build = value.get("build")
            return (f"build {build}", PIN_EXACT) if isinstance(build, str) and not pypi else ("", PIN_UNPINNED)
        value = version
    if not isinstance(value, str):
        return "", PIN_UNPINNED
    spec = value.strip()
    if pypi:
        if spec in ("", "*"):
            return spec, PIN_UNPINNED
        parsed = classify_pep508(f"{name}{spec}" if spec[0] in "<>=!~" else f"{name}=={spec}")
        return spec, parsed[2] if parsed is not None else PIN_BOUNDED
    return spec, _pixi_conda_pin(spec)


@_guarded("pixi")
def parse_pixi_toml(text: str, path: str) -> Manifest:
    """A pixi workspace: ``[dependencies]`` (conda match specs), ``[pypi-dependencies]``
    (PEP 440) and their ``[target.<platform>.…]`` forms are the runtime set; the same
    tables of ``[feature.<name>…]`` are optional (METRICS.md §0.2.20); ``python`` is the
    interpreter, a local ``path`` the project itself."""
    manifest = Manifest(path=path, kind="pixi", dependencies=[])
    data = _load_toml(text, path, manifest.problems)
    if data is None:
        return manifest
    finder = _LineFinder(text)
    tables: list[tuple[str, dict[str, Any], bool, bool]] = []   # (header, table, pypi, optional)

    def add_tables(prefix: str, holder: dict[str, Any], optional: bool) -> None:
        for key, pypi in (("dependencies", False), ("pypi-dependencies", True)):
            if isinstance(holder.get(key), dict):
                tables.append((f"{prefix}{key}", holder[key], pypi, optional))
        for platform, target in _table(holder, "target").items():
            if isinstance(target, dict):
                add_tables(f"{prefix}target.{platform}.", target, optional)

    add_tables("", data, False)
    for feature, holder in _table(data, "feature").items():
        if isinstance(holder, dict):
            add_tables(f"feature.{feature}.", holder, True)
    for header, table, pypi, optional in tables:
        start = finder.header(rf"^\s*\[\s*{re.escape(header)}\s*\]")
        entries: list[Dependency] = []
        for name, value in table.items():
            index = finder.find(re.compile(rf"^\s*[\"']?{re.escape(str(name))}[\"']?\s*="), start)
            line = index + 1 if index is not None else None
            if str(name).lower() == "python" and not pypi:
                spec = value if isinstance(value, str) else value.get("version") if isinstance(value, dict) else None
                if isinstance(spec, str) and spec.strip() and not optional:
                    manifest.interpreters.append(InterpreterDecl("python", spec.strip(), line, "pixi"))
                continue
            if str(name).lower() == "pip" and not pypi:
                continue
            entry = _pixi_entry(str(name), value, pypi)
            if entry is None:
                continue
            spec, pin = entry
            entries.append(Dependency(
                name=str(name), normalized=normalize_name(str(name)), spec=spec, pin=pin, line=line,
                ecosystem="pypi" if pypi else "conda", source=f"pixi.{header}",
                raw=_snippet(finder.text(index) or str(name)), file=path))
        if optional:
            manifest.optional.extend(entries)
        else:
            manifest.dependencies.extend(entries)
            _declared(manifest, finder.key_line(rf"^\s*\[\s*{re.escape(header)}\s*\]"), entries)
    manifest.declares_dependencies = any(not optional for *_, optional in tables)
    return manifest


# --------------------------------------------------------------------------- native package managers

# A conan reference: name/version[@user/channel][#revision]; a version range in brackets.
_CONAN_REFERENCE_RE = re.compile(r"^(?P<name>[A-Za-z0-9_][\w.+-]*)/(?P<version>\[[^\]]*\]|[^@#\s/]+)")


def _conan_dependency(reference: str, *, line: int | None, source: str, path: str, raw: str) -> Dependency | None:
    """A conan requirement: a plain version or a revision is exact, a ``[range]`` bounded."""
    match = _CONAN_REFERENCE_RE.match(reference.strip())
    if match is None:
        return None
    name, version = match.group("name"), match.group("version")
    pin = PIN_BOUNDED if version.startswith("[") or "*" in version else PIN_EXACT
    return Dependency(name=name, normalized=normalize_name(name), spec=reference.strip()[len(name) + 1:],
                      pin=pin, line=line, ecosystem="conan", source=source, raw=_snippet(raw), file=path)


@_guarded("conan")
def parse_conanfile_txt(text: str, path: str) -> Manifest:
    """A ``conanfile.txt``: ``[requires]`` are the dependencies, ``[tool_requires]`` /
    ``[build_requires]`` build requirements."""
    manifest = Manifest(path=path, kind="conan", dependencies=[])
    if not isinstance(text, str):
        manifest.problems.append(_problem(path, None, "content is not text"))
        return manifest
    section, header_line = "", None
    for number, line in enumerate(_split_lines(text), start=1):
        stripped = line.strip()   # `#` starts a comment at a line's start only (`fmt/1.0#<revision>`)
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("[") and stripped.endswith("]"):
            section, header_line = stripped[1:-1].strip().lower(), number
            continue
        if section not in ("requires", "tool_requires", "build_requires", "test_requires"):
            continue
        dependency = _conan_dependency(stripped, line=number, source=f"conanfile.{section}", path=path, raw=line)
        if dependency is None:
            manifest.problems.append(_problem(path, number, f"unparseable reference {_snippet(stripped)!r}"))
        elif section == "requires":
            manifest.dependencies.append(dependency)
            _declared(manifest, header_line, [dependency])
        else:
            manifest.build_requires.append(dependency)
    manifest.declared = _merged_spans(manifest.declared)
    manifest.declares_dependencies = bool(manifest.dependencies) or bool(
        re.search(r"^\s*\[\s*requires\s*\]", text, re.MULTILINE))
    return manifest


def _merged_spans(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans that start at the same line joined (one per declaring table)."""
    by_start: dict[int, int] = {}
    for first, last in spans:
        by_start[first] = max(last, by_start.get(first, last))
    return sorted(by_start.items())


_CONAN_REQUIRE_CALLS = {"requires": "dependencies", "tool_requires": "build", "build_requires": "build",
                        "test_requires": "build"}


@_guarded("conan")
def parse_conanfile_py(text: str, path: str) -> Manifest:
    """A ``conanfile.py``: the recipe class's ``requires`` attribute and
    ``self.requires("x/1.0")`` calls are the dependencies, ``tool_requires`` /
    ``build_requires`` build requirements."""
    manifest = Manifest(path=path, kind="conan", dependencies=[])
    if not isinstance(text, str):
        manifest.problems.append(_problem(path, None, "content is not text"))
        return manifest
    try:
        module = parse_source(text, path)
    except (SyntaxError, ValueError) as exc:
        manifest.problems.append(_problem(path, getattr(exc, "lineno", None), f"syntax error: {_snippet(str(exc))}"))
        return manifest
    lines = _split_lines(text)
    found: list[tuple[str, ast.Constant]] = []
    for node in ast.walk(module):
        if isinstance(node, ast.ClassDef):
            for statement in node.body:
                if isinstance(statement, ast.Assign):
                    for target in statement.targets:
                        if isinstance(target, ast.Name) and target.id in _CONAN_REQUIRE_CALLS:
                            values = statement.value.elts if isinstance(statement.value, (ast.Tuple, ast.List)) else [statement.value]
                            found += [(target.id, v) for v in values
                                      if isinstance(v, ast.Constant) and isinstance(v.value, str)]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in _CONAN_REQUIRE_CALLS and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            found.append((node.func.attr, node.args[0]))
    for kind, constant in sorted(found, key=lambda item: item[1].lineno):
        raw = lines[constant.lineno - 1] if constant.lineno <= len(lines) else constant.value
        dependency = _conan_dependency(constant.value, line=constant.lineno, source=f"conanfile.{kind}", path=path, raw=raw)
        if dependency is None:
            continue
        if _CONAN_REQUIRE_CALLS[kind] == "dependencies":
            manifest.dependencies.append(dependency)
        else:
            manifest.build_requires.append(dependency)
    _declared(manifest, None, manifest.dependencies)
    manifest.declares_dependencies = bool(manifest.dependencies)
    return manifest


_HEX_BASELINE_RE = re.compile(r"^[0-9a-fA-F]{40}$")


@_guarded("vcpkg")
def parse_vcpkg_json(text: str, path: str) -> Manifest:
    """A vcpkg manifest: ``dependencies`` (a name or ``{"name", "version>="}``) with
    ``overrides`` (exact versions); a ``builtin-baseline`` commit fixes the version of every
    port, so the manifest is a lockfile (``lock_line``, METRICS.md §0.3 native E1)."""
    manifest = Manifest(path=path, kind="vcpkg", dependencies=[])
    if not isinstance(text, str):
        manifest.problems.append(_problem(path, None, "content is not text"))
        return manifest
    try:
        data = json.loads(text)
    except ValueError as exc:
        manifest.problems.append(_problem(path, None, f"invalid JSON: {_snippet(str(exc))}"))
        return manifest
    if not isinstance(data, dict):
        manifest.problems.append(_problem(path, None, "not a JSON object"))
        return manifest
    finder = _LineFinder(text)
    overrides = {}
    for item in data.get("overrides") or ():
        if isinstance(item, dict) and isinstance(item.get("name"), str):
            version = next((item[k] for k in ("version", "version-string", "version-semver", "version-date")
                            if isinstance(item.get(k), str)), "")
            overrides[item["name"]] = version
    cursor = finder.header(r'^\s*"dependencies"\s*:')
    for item in data.get("dependencies") or ():
        name = item if isinstance(item, str) else item.get("name") if isinstance(item, dict) else None
        if not isinstance(name, str):
            continue
        index = finder.find(re.compile(rf'"{re.escape(name)}"'), cursor)
        if index is not None:
            cursor = index + 1
        minimum = item.get("version>=") if isinstance(item, dict) else None
        if overrides.get(name):
            spec, pin = f"== {overrides[name]} (override)", PIN_EXACT
        elif isinstance(minimum, str) and minimum:
            spec, pin = f">= {minimum}", PIN_BOUNDED
        else:
            spec, pin = "", PIN_UNPINNED
        manifest.dependencies.append(Dependency(
            name=name, normalized=normalize_name(name), spec=spec, pin=pin,
            line=index + 1 if index is not None else None, ecosystem="vcpkg", source="vcpkg.dependencies",
            raw=_snippet(finder.text(index) or name), file=path))
    _declared(manifest, finder.key_line(r'^\s*"dependencies"\s*:'), manifest.dependencies)
    baseline = data.get("builtin-baseline")
    if isinstance(baseline, str) and _HEX_BASELINE_RE.match(baseline.strip()):
        manifest.lock_line = finder.key_line(r'^\s*"builtin-baseline"\s*:')
    manifest.declares_dependencies = "dependencies" in data
    return manifest


# A spack spec's version: @=1.2.3 (exact), @1.2.3, @1.2:1.4, @1.2,1.3.
_SPACK_SPEC_RE = re.compile(r"^(?P<name>[A-Za-z0-9][\w.-]*)(?:\s*@\s*(?P<version>=?[^\s+~^%]+))?")


def _spack_pin(version: str | None) -> str:
    """``@=1.2.3`` or a full three-part version exact (as a conda ``=1.2.3``), a shorter
    version or a range bounded, no version unpinned."""
    if not version:
        return PIN_UNPINNED
    if version.startswith("="):
        return PIN_EXACT
    if any(c in version for c in ":,") or len(version.split(".")) < 3:
        return PIN_BOUNDED
    return PIN_EXACT


@_guarded("spack")
def parse_spack_yaml(text: str, path: str) -> Manifest:
    """A Spack environment (``spack.yaml``): the ``specs`` list of the ``spack`` key,
    each spec's package and ``@version``."""
    manifest = Manifest(path=path, kind="spack", dependencies=[])
    if not isinstance(text, str):
        manifest.problems.append(_problem(path, None, "content is not text"))
        return manifest
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        manifest.problems.append(_problem(path, None, f"invalid YAML: {_snippet(str(exc))}"))
        return manifest
    specs = _table(data, "spack").get("specs") if isinstance(data, dict) else None
    if not isinstance(specs, list):
        manifest.declares_dependencies = False
        return manifest
    finder = _LineFinder(text)
    cursor = finder.header(r"^\s*specs\s*:")
    for spec in specs:
        if not isinstance(spec, str):
            continue   # a matrix of specs: built from the lists it names
        match = _SPACK_SPEC_RE.match(spec.strip())
        if match is None:
            continue
        index = finder.find(spec.strip(), cursor)
        if index is not None:
            cursor = index + 1
        name, version = match.group("name"), match.group("version")
        manifest.dependencies.append(Dependency(
            name=name, normalized=normalize_name(name), spec=f"@{version}" if version else "",
            pin=_spack_pin(version), line=index + 1 if index is not None else None, ecosystem="spack",
            source="spack.specs", raw=_snippet(spec), file=path))
    _declared(manifest, finder.key_line(r"^\s*specs\s*:"), manifest.dependencies)
    return manifest


# fpm's metapackages of the system: nothing to pin (§0.3 native: MPI/OpenMP are the system)
_FPM_SYSTEM_METAPACKAGES = frozenset({"openmp", "mpi"})


def _fpm_entry(value: Any) -> tuple[str, str] | None:
    """``(spec, pin)`` of one fpm dependency: a git ``rev`` exact, a ``tag`` bounded, a
    branch or bare git URL unpinned, a registry version ``v`` exact, ``"*"`` unpinned;
    None for a local ``path``."""
    if isinstance(value, str):
        spec = value.strip()
        return spec, PIN_UNPINNED if spec in ("", "*") else PIN_EXACT
    if not isinstance(value, dict):
        return "", PIN_UNPINNED
    if isinstance(value.get("path"), str):
        return None
    if isinstance(value.get("git"), str):
        for key, pin in (("rev", PIN_EXACT), ("tag", PIN_BOUNDED), ("branch", PIN_UNPINNED)):
            if isinstance(value.get(key), str) and value[key].strip():
                return f"git {value['git']} {key} {value[key]}", pin
        return f"git {value['git']}", PIN_UNPINNED
    version = value.get("v", value.get("version"))
    if isinstance(version, str) and version.strip() not in ("", "*"):
        return version.strip(), PIN_EXACT
    return "", PIN_UNPINNED


@_guarded("fpm")
def parse_fpm_toml(text: str, path: str) -> Manifest:
    """A Fortran package manager manifest: ``[dependencies]`` (runtime) and
    ``[dev-dependencies]`` (tests: optional); the system metapackages ``openmp`` and
    ``mpi`` and local ``path`` dependencies are not entries."""
    manifest = Manifest(path=path, kind="fpm", dependencies=[])
    data = _load_toml(text, path, manifest.problems)
    if data is None:
        return manifest
    finder = _LineFinder(text)
    for table_name, target in (("dependencies", manifest.dependencies), ("dev-dependencies", manifest.optional)):
        table = _table(data, table_name)
        start = finder.header(rf"^\s*\[\s*{table_name}\s*\]")
        for name, value in table.items():
            if str(name).lower() in _FPM_SYSTEM_METAPACKAGES:
                continue
            entry = _fpm_entry(value)
            if entry is None:
                continue
            index = finder.find(re.compile(rf"^\s*[\"']?{re.escape(str(name))}[\"']?\s*[.=]"), start)
            target.append(Dependency(
                name=str(name), normalized=normalize_name(str(name)), spec=entry[0], pin=entry[1],
                line=index + 1 if index is not None else None, ecosystem="fpm", source=f"fpm.{table_name}",
                raw=_snippet(finder.text(index) or str(name)), file=path))
    _declared(manifest, finder.key_line(r"^\s*\[\s*dependencies\s*\]"), manifest.dependencies)
    manifest.declares_dependencies = "dependencies" in data
    return manifest


# --------------------------------------------------------------------------- R packrat.lock


@_guarded("packrat.lock")
def parse_packrat_lock(text: str, path: str) -> Manifest:
    """A packrat lockfile (DCF records): every ``Package:``/``Version:`` record is an
    exact entry, ``RVersion:`` the interpreter; the file fixes every version (``lock_line``
    at its first field)."""
    manifest = Manifest(path=path, kind="packrat.lock", dependencies=[])
    if not isinstance(text, str):
        manifest.problems.append(_problem(path, None, "content is not text"))
        return manifest
    record: dict[str, tuple[int, str]] = {}

    def close() -> None:
        if "Package" in record:
            line, name = record["Package"]
            version = record.get("Version", (line, ""))[1]
            manifest.dependencies.append(Dependency(
                name=name, normalized=normalize_name(name), spec=f"== {version}" if version else "",
                pin=PIN_EXACT if version else PIN_UNPINNED, line=line, ecosystem="cran",
                source="packrat.lock", raw=_snippet(f"Package: {name}"), file=path))
        record.clear()

    for number, line in enumerate(_split_lines(text), start=1):
        if not line.strip():
            close()
            continue
        match = _DCF_FIELD_RE.match(line)
        if match is None:
            continue
        field_name, value = match.group("field"), match.group("value").strip()
        if manifest.lock_line is None:
            manifest.lock_line = number
        if field_name == "RVersion" and value and not manifest.interpreters:
            manifest.interpreters.append(InterpreterDecl("r", value, number, "packrat.lock"))
        record.setdefault(field_name, (number, value))
    close()
    if manifest.lock_line is None or not re.search(r"^Packrat(?:Format|Version)\s*:", text, re.MULTILINE):
        manifest.lock_line = None
        manifest.problems.append(_problem(path, None, "no PackratFormat/PackratVersion field"))
    return manifest


# --------------------------------------------------------------------------- MATLAB project files

_MATLAB_RELEASE_RE = re.compile(r"^R(?:19|20)\d\d[ab]$", re.IGNORECASE)
_XML_ELEMENT_RE = re.compile(r"<(?P<tag>[A-Za-z_][\w.\-]*)(?:\s[^>]*)?>(?P<text>[^<]*)</(?P=tag)>")


def parse_matlab_project(text: str, path: str) -> Manifest | None:
    """The MATLAB release a toolbox packaging or deployment project (``*.prj``, XML with a
    ``<deployment-project>`` root) declares: the first element whose name says release
    (``<param.release.start>R2019b</param.release.start>``, the oldest release the toolbox
    supports) holding a release, else the release folder of its ``<matlab><root>``. A
    bounded entry (MATLAB that release or newer) and the interpreter (E4). None for other
    ``.prj`` files (a shapefile's projection, a MATLAB Project's metadata)."""
    if not isinstance(text, str) or "<deployment-project" not in text[:4096]:
        return None
    found: tuple[int, str, str] | None = None
    root_release: tuple[int, str, str] | None = None
    for number, line in enumerate(_split_lines(text), start=1):
        for match in _XML_ELEMENT_RE.finditer(line):
            tag, value = match.group("tag").lower(), match.group("text").strip()
            if "release" in tag and _MATLAB_RELEASE_RE.match(value) and found is None:
                found = (number, value.upper()[:-1] + value[-1].lower(), line)
            elif tag == "root" and root_release is None:
                release = next((p for p in re.split(r"[/\\]", value) if _MATLAB_RELEASE_RE.match(p)), None)
                if release:
                    root_release = (number, release.upper()[:-1] + release[-1].lower(), line)
    chosen = found or root_release
    if chosen is None:
        return None
    line, release, raw = chosen
    manifest = Manifest(path=path, kind="matlab-project", dependencies=[Dependency(
        name="MATLAB", normalized="matlab", spec=f"{release} or newer" if found else release, pin=PIN_BOUNDED,
        line=line, ecosystem="matlab", source="matlab-project", raw=_snippet(raw), file=path)])
    manifest.interpreters.append(InterpreterDecl("matlab", f"MATLAB {release}", line, "matlab-project"))
    manifest.declared.append((line, line))
    return manifest


# --------------------------------------------------------------------------- Julia Pluto notebooks


def _julia_manifest_versions(data: dict[str, Any]) -> dict[str, str]:
    """Package name → recorded version of a Julia Manifest (format 2.0 ``[[deps.X]]``, or
    1.0 ``[[X]]``); a standard library without a version maps to ``""``."""
    deps = data.get("deps") if isinstance(data.get("deps"), dict) else data
    versions = {}
    for name, entries in deps.items():
        if isinstance(entries, list) and entries and isinstance(entries[0], dict):
            version = entries[0].get("version")
            versions[str(name)] = version if isinstance(version, str) else ""
    return versions


def parse_pluto_environment(project: str, project_line: int, manifest_text: str | None,
                            manifest_line: int | None, path: str) -> Manifest:
    """A Pluto notebook's embedded environment (``PLUTO_PROJECT_TOML_CONTENTS``, and
    ``PLUTO_MANIFEST_TOML_CONTENTS`` when present), each string's first line at
    ``project_line``/``manifest_line`` of the notebook: its ``[deps]`` are exact when the
    embedded Manifest records them (a standard library by the recorded ``julia_version``),
    else pinned by ``[compat]`` as in a Project.toml; the Manifest's ``julia_version`` is
    the interpreter."""
    embedded = parse_julia_project(project, path)
    manifest = Manifest(path=path, kind="pluto", dependencies=[], problems=list(embedded.problems))

    def shifted(line: int | None, first: int | None) -> int | None:
        return line + first - 1 if line is not None and first is not None else None

    data = _toml_or_none(manifest_text) if isinstance(manifest_text, str) else None
    versions = _julia_manifest_versions(data) if isinstance(data, dict) else {}
    for dep in embedded.dependencies:
        if dep.name in versions:
            version = versions[dep.name]
            dep = replace(dep, pin=PIN_EXACT, spec=f"= {version} (embedded Manifest)" if version else
                          "standard library (embedded Manifest)")
        manifest.dependencies.append(replace(dep, line=shifted(dep.line, project_line), source="pluto"))
    manifest.optional = [replace(d, line=shifted(d.line, project_line)) for d in embedded.optional]
    manifest.declared = [(shifted(a, project_line), shifted(b, project_line)) for a, b in embedded.declared]
    julia = data.get("julia_version") if isinstance(data, dict) else None
    if isinstance(julia, str) and julia.strip():
        finder = _LineFinder(manifest_text or "")
        index = finder.find(re.compile(r"^\s*julia_version\s*="))
        manifest.interpreters.append(InterpreterDecl(
            "julia", julia.strip(), shifted(index + 1 if index is not None else None, manifest_line),
            "pluto-manifest"))
    return manifest


# --------------------------------------------------------------------------- interpreter version files

_PYTHON_VERSION_TOKEN_RE = re.compile(
    r"^(?:c?python-?|pypy)?(?P<version>\d+(?:\.\d+){0,2})(?:[abrc]+\d*|t|-dev|\.dev\d*|[+-][\w.]*)?$",
    re.IGNORECASE,
)
_RUNTIME_R_RE = re.compile(r"^r-(?:(?P<version>\d+\.\d+(?:\.\d+)?)-)?(?P<date>\d{4}-\d{2}-\d{2})$", re.IGNORECASE)
_TOOL_LANGUAGES = {"python": "python", "r": "r", "julia": "julia"}
_VERSION_FILE_KINDS = {
    ".python-version": "python-version",
    "python-version": "python-version",
    "runtime.txt": "runtime.txt",
    ".tool-versions": "tool-versions",
    "tool-versions": "tool-versions",
    "mise.toml": "mise",
    ".mise.toml": "mise",
    "mise": "mise",
    "uv.lock": "uv.lock",
    "manifest.toml": "julia-manifest",
    "julia-manifest": "julia-manifest",
    "renv.lock": "renv.lock",
}


_JULIA_MANIFEST_NAME_RE = re.compile(r"(?:julia)?manifest(?:-v\d+(?:\.\d+)*)?\.toml")


def _version_like(token: str) -> str | None:
    match = _PYTHON_VERSION_TOKEN_RE.match(token.strip())
    return match.group("version") if match else None


def _content_lines(text: str) -> Iterable[tuple[int, str]]:
    for number, line in enumerate(_split_lines(text), start=1):
        stripped = line.split("#", 1)[0].strip().lstrip("\ufeff")
        if stripped:
            yield number, stripped


def _toml_or_none(text: str) -> dict[str, Any] | None:
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError, TypeError):
        return None


def _declarations_in_version_file(text: str, kind: str) -> list[InterpreterDecl]:
    finder = _LineFinder(text)
    if kind == "python-version":
        for number, line in _content_lines(text):
            version = _version_like(line.split()[0])
            return [InterpreterDecl("python", version, number, "python-version-file")] if version else []
        return []
    if kind == "runtime.txt":
        for number, line in _content_lines(text):
            r_match = _RUNTIME_R_RE.match(line)
            if r_match:
                spec = r_match.group("version") or r_match.group("date")
                return [InterpreterDecl("r", spec, number, "runtime.txt")]
            version = _version_like(line)
            return [InterpreterDecl("python", version, number, "runtime.txt")] if version else []
        return []
    if kind == "tool-versions":
        found = []
        for number, line in _content_lines(text):
            tokens = line.split()
            language = _TOOL_LANGUAGES.get(tokens[0].lower())
            if language and len(tokens) > 1 and re.match(r"^v?\d", tokens[1]):
                found.append(InterpreterDecl(language, tokens[1], number, "tool-versions"))
        return found
    if kind == "mise":
        data = _toml_or_none(text)
        found = []
        for tool, value in _table(data or {}, "tools").items():
            language = _TOOL_LANGUAGES.get(str(tool).lower())
            if isinstance(value, list) and value:
                value = value[0]
            if isinstance(value, dict):
                value = value.get("version")
            if language and isinstance(value, str) and re.match(r"^v?\d", value.strip()):
                index = finder.find(re.compile(rf"^\s*[\"']?{re.escape(str(tool))}[\"']?\s*="))
                found.append(
                    InterpreterDecl(language, value.strip(), index + 1 if index is not None else None, "mise")
                )
        return found
    if kind == "uv.lock":
        data = _toml_or_none(text)
        value = (data or {}).get("requires-python")
        if isinstance(value, str) and value.strip():
            index = finder.find(re.compile(r"^requires-python\s*="))
            return [InterpreterDecl("python", value.strip(), index + 1 if index is not None else None, "uv.lock")]
        return []
    if kind == "julia-manifest":
        data = _toml_or_none(text)
        value = (data or {}).get("julia_version")
        if isinstance(value, str) and value.strip():
            index = finder.find(re.compile(r"^julia_version\s*="))
            return [
                InterpreterDecl(
                    "julia", value.strip(), index + 1 if index is not None else None, "manifest-julia_version"
                )
            ]
        return []
    if kind == "renv.lock":
        try:
            data = json.loads(text)
        except (ValueError, TypeError):
            return []
        version = _table(data, "R").get("Version")
        if isinstance(version, str) and version.strip():
            start = finder.find(re.compile(r"^\s*\"R\"\s*:")) or 0
            index = finder.find(re.compile(r"\"Version\"\s*:"), start)
            return [InterpreterDecl("r", version.strip(), index + 1 if index is not None else None, "renv.lock")]
        return []
    return []


def interpreters_from_version_file(text: str, path: str, kind: str | None = None) -> list[InterpreterDecl]:
    """Every interpreter declaration in a version file (``.tool-versions`` may list several).

    ``kind`` is the file's conventional name (``.python-version``, ``runtime.txt``,
    ``.tool-versions``, ``mise.toml``, ``uv.lock``, ``Manifest.toml``, ``renv.lock``) or
    one of the short kinds (``python-version``, ``tool-versions``, ``mise``,
    ``julia-manifest``); None infers it from ``path``.
    """
    if not isinstance(text, str):
        return []
    key = (kind or posixpath.basename(path or "")).lower()
    resolved = _VERSION_FILE_KINDS.get(key)
    if resolved is None and _JULIA_MANIFEST_NAME_RE.fullmatch(key):
        resolved = "julia-manifest"  # JuliaManifest.toml, Manifest-v1.10.toml
    if resolved is None:
        return []
    try:
        return _declarations_in_version_file(text, resolved)
    except Exception:  # noqa: BLE001 - hostile content must not abort scoring
        return []


def interpreter_from_version_file(text: str, path: str, kind: str | None = None) -> InterpreterDecl | None:
    """The declaration of a version file, preferring Python when several languages appear."""
    declarations = interpreters_from_version_file(text, path, kind)
    for declaration in declarations:
        if declaration.language == "python":
            return declaration
    return declarations[0] if declarations else None


# --------------------------------------------------------------------------- E1 scoring


def counts(manifest: Manifest) -> dict[str, int]:
    """Entry counts of one manifest by pin class."""
    pins = [d.pin for d in manifest.dependencies]
    return {
        "n_entries": len(pins),
        "n_exact": pins.count(PIN_EXACT),
        "n_bounded": pins.count(PIN_BOUNDED),
        "n_unpinned": pins.count(PIN_UNPINNED),
    }


def score_manifest(manifest: Manifest) -> tuple[float, str]:
    """V2 E1 level of one manifest: 80 all exact, 50–70 partial (half-even), else 20."""
    tally = counts(manifest)
    entries = tally["n_entries"]
    if entries == 0:
        return 20.0, "unpinned"
    if tally["n_exact"] == entries:
        return 80.0, "all_exact"
    if tally["n_exact"] or tally["n_bounded"]:
        fraction = (tally["n_exact"] + 0.5 * tally["n_bounded"]) / entries
        return float(round(50 + 20 * fraction)), "partial"
    return 20.0, "unpinned"


# --------------------------------------------------------------------------- inline installs

_PIP_VALUE_OPTIONS = frozenset(
    {
        "-r", "--requirement", "-c", "--constraint", "-i", "--index-url", "--extra-index-url",
        "-f", "--find-links", "-t", "--target", "--prefix", "--root", "--src", "--platform",
        "--python-version", "--implementation", "--abi", "--only-binary", "--no-binary",
        "--upgrade-strategy", "--progress-bar", "--trusted-host", "-C", "--config-settings",
        "--global-option", "--proxy", "--retries", "--timeout", "--cache-dir", "--log", "--report",
    }
)  # fmt: skip
_CONDA_VALUE_OPTIONS = frozenset(
    {"-c", "--channel", "-n", "--name", "-p", "--prefix", "--file", "--override-channels-from"}
)
_CONDA_TOOLS = frozenset({"conda", "mamba", "micromamba"})
_SHELL_SEPARATOR_RE = re.compile(r"&&|\|\||[;|&\n]")


def _install_arguments(tokens: list[str]) -> tuple[str, list[str]] | None:
    """``("pip"|"conda", arguments after install)`` of one simple command, else None."""
    tokens = [t.lstrip("%!") if i == 0 else t for i, t in enumerate(tokens)]
    index = 0
    while index < len(tokens) and (tokens[index] in ("sudo", "env") or "=" in tokens[index]):
        index += 1
    tokens = tokens[index:]
    if len(tokens) >= 3 and re.fullmatch(r"python[0-9.]*", tokens[0]) and tokens[1] == "-m":
        tokens = tokens[2:]
    if len(tokens) < 2:
        return None
    tool = posixpath.basename(tokens[0])
    family = "pip" if re.fullmatch(r"pip[0-9.]*", tool) else "conda" if tool in _CONDA_TOOLS else None
    if family is None or "install" not in tokens[1:3]:
        return None
    return family, tokens[tokens.index("install", 1) + 1 :]


def parse_install_command(command: str, path: str, line: int | None = None) -> list[Dependency]:
    """Packages named by ``pip install`` / ``conda install`` commands (C2 inline installs).

    Accepts notebook magics (``%pip``, ``!pip``, ``%conda``), ``python -m pip`` and
    chains (``&&``, ``;``, pipes). Entries have source ``inline-install``; options, local
    paths and requirement files are skipped.
    """
    if not isinstance(command, str):
        return []
    found: list[Dependency] = []
    for segment in _SHELL_SEPARATOR_RE.split(command):
        try:
            tokens = shlex.split(segment, comments=True)
        except ValueError:
            tokens = segment.split()
        parsed = _install_arguments(tokens)
        if parsed is None:
            continue
        family, arguments = parsed
        value_options = _PIP_VALUE_OPTIONS if family == "pip" else _CONDA_VALUE_OPTIONS
        skip_next = False
        for argument in arguments:
            if skip_next:
                skip_next = False
                continue
            if argument.startswith("-"):
                skip_next = argument in value_options
                continue
            if family == "pip":
                if _LOCAL_PATH_RE.match(argument) and not argument.lower().endswith(".whl"):
                    continue
                dependency = _pep508_dependency(argument, line=line, source="inline-install", path=path)
            else:
                dependency = _conda_dependency(argument, line=line, source="inline-install", path=path)
            if dependency is not None:
                found.append(replace(dependency, raw=_snippet(segment)))
    return found


# R calls that install the packages they name: install.packages("x"), install.packages(c("x",
# "y")), BiocManager::install("x"), remotes/devtools::install_github("owner/x@ref"), pak
_R_INSTALL_CALL_RE = re.compile(
    r"(?<![\w.])(?:(?:utils::)?install\.packages|BiocManager::install|pak::(?:pkg_install|pak)"
    r"|(?:devtools|remotes)::install_(?:github|gitlab|bitbucket|git|cran|bioc))"
    r"\s*\(\s*(?:(?:pkgs|repo)\s*=\s*)?(c\s*\([^)]*\)|\"[^\"]*\"|'[^']*')")
_R_QUOTED_RE = re.compile(r"\"([^\"]+)\"|'([^']+)'")
_R_PACKAGE_NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9.]*[A-Za-z0-9]")
_R_INTERPRETERS = frozenset({"rscript", "r"})


def parse_rscript_installs(command: str, path: str, line: int | None = None) -> list[Dependency]:
    """R packages a shell command installs through R code given on the command line,
    ``Rscript -e "devtools::install_github('owner/pkg@ref')"`` or ``R -e
    "install.packages(c('a', 'b'))"`` (a Snakemake ``*.post-deploy.sh``, a Binder
    ``postBuild``): ecosystem ``cran``, source ``inline-install``; a repository install
    names the package after the repository (``owner/pkg@ref`` → ``pkg``)."""
    from .shell import split_commands

    found: list[Dependency] = []
    for cmd in split_commands(command) if isinstance(command, str) else ():
        if cmd.program.lower() not in _R_INTERPRETERS:
            continue
        args = cmd.args
        code = " ".join(args[i + 1] for i, arg in enumerate(args[:-1]) if arg in ("-e", "--expr", "--eval"))
        for call in _R_INSTALL_CALL_RE.finditer(code):
            for quoted in _R_QUOTED_RE.finditer(call.group(1)):
                written = quoted.group(1) or quoted.group(2)
                name = written.split("@", 1)[0].rstrip("/").rsplit("/", 1)[-1].removesuffix(".git")
                if _R_PACKAGE_NAME_RE.fullmatch(name):
                    found.append(Dependency(name=name, normalized=normalize_name(name), spec="", pin=PIN_UNPINNED,
                                            line=line, ecosystem="cran", source="inline-install",
                                            raw=_snippet(cmd.text), file=path))
    return found


def _conda_dependency(entry: str, *, line: int | None, source: str, path: str) -> Dependency | None:
    spec = _parse_conda_spec(entry)
    if spec is None:
        return None
    return Dependency(
        name=spec.name,
        normalized=normalize_name(spec.name),
        spec=spec.spec,
        pin=_conda_pin(spec, export=False),
        line=line,
        ecosystem="conda",
        source=source,
        raw=_snippet(entry),
        file=path,
    )


# --------------------------------------------------------------------------- S7 CUDA tags

CUDA_TAG_RE = re.compile(
    r"""(?ix)
    \+cu\d+                                  # local version tag: torch==2.0.1+cu118
    | (?<![a-z0-9])cudatoolkit
    | (?<=[a-z0-9])-cuda(?:\d+x?)?(?![a-z])  # pytorch-cuda, cupy-cuda11x, jax-cuda12-plugin
    | (?<![a-z0-9])cuda-version
    | \[[^\]\[\n]{0,80}cuda[^\]\n]{0,80}\]     # extras: jax[cuda12], tensorflow[and-cuda]
    | (?<![a-z0-9])nvidia-[a-z0-9-]*-cu\d+   # nvidia-cudnn-cu12
    """
)


def has_cuda_tag(dep_or_text: Dependency | str) -> bool:
    """True when a dependency (or spec text) names a CUDA build, i.e. declares GPU hardware."""
    if isinstance(dep_or_text, Dependency):
        texts = (dep_or_text.raw, dep_or_text.name, dep_or_text.spec, dep_or_text.marker)
    elif isinstance(dep_or_text, str):
        texts = (dep_or_text,)
    else:
        return False
    return any(CUDA_TAG_RE.search(text) for text in texts if text)


# --------------------------------------------------------------------------- a project's own name

_SETUP_NAME_RE = re.compile(r"""\bname\s*=\s*["']([A-Za-z0-9][A-Za-z0-9._\-]*)["']""")
_SETUP_CFG_NAME_RE = re.compile(r"^\s*name\s*=\s*([A-Za-z0-9][A-Za-z0-9._\-]*)\s*$", re.MULTILINE)


def setup_project_name(text: str, kind: str) -> str | None:
    """The distribution name a ``setup.py`` (the first ``name="…"`` literal) or a
    ``setup.cfg`` (the first ``name = …`` line) declares, or None."""
    match = (_SETUP_NAME_RE if kind == "setup.py" else _SETUP_CFG_NAME_RE).search(text)
    return match.group(1) if match else None
