"""Files C1 and C3 read line by line because no language frontend reads them: shell
scripts, parameter files (YAML/JSON/TOML/INI in a configuration role, METRICS.md §0.1.9)
and ``.env`` files. ``TreeIndex.line_file(path, language)`` reads each once per content.

For C1, the literal text of each line that may hold a path (JSON: each string value,
decoded; the other formats: the line without its comment); for C3, the credentials the
lines bind (:mod:`scoring.parsers.secrets`, decided here on the text as written).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from scoring.facts import CredentialFact
from scoring.parsers.secrets import FileCredentials, line_bindings, unescape
from scoring.parsers.textfile import strip_unquoted_comment

# Parameter files (§0.1.9 "YAML/JSON/TOML/INI under config roles"): a configuration-like
# name anywhere, or any such file below a configuration directory.
_PARAM_FORMATS = {".yaml": "yaml", ".yml": "yaml", ".json": "json", ".toml": "toml", ".ini": "ini", ".cfg": "ini"}
_CONFIG_DIRS = frozenset(
    {"config", "configs", "conf", "confs", "cfg", "cfgs", "configuration", "configurations", "params",
     "parameters", "settings", "hparams", "hyperparams", "hyperparameters", "secrets", "credentials"}
)
_CONFIG_STEM_RE = re.compile(
    r"(?:^|.*[_.\-])(?:configs?|conf|cfg|configuration|params|parameters|settings|hparams|hyperparams|"
    r"hyperparameters|secrets?|credentials?)(?:[_.\-].*)?",
    re.IGNORECASE,
)
# Tool, CI, packaging and metadata files are never parameter files (§0.1.9).
_NOT_PARAMETER_NAMES = frozenset(
    {"setup.cfg", "tox.ini", "pytest.ini", "mypy.ini", "pyproject.toml", "codemeta.json", "citation.cff",
     "_config.yml", "_config.yaml", "_toc.yml", "mkdocs.yml", "mkdocs.yaml", "renovate.json",
     "jsconfig.json", "codecov.yml", "appveyor.yml", "azure-pipelines.yml", "bitbucket-pipelines.yml",
     "cloudbuild.yaml", "cloudbuild.yml", "dependabot.yml", "manifest.toml", "juliamanifest.toml",
     "cargo.toml", "netlify.toml", "vercel.json", "app.json", "composer.json", "tslint.json"}
)
_NOT_PARAMETER_RE = re.compile(
    r"package.*\.json|tsconfig.*\.json|.*(?:^|[-_.])lock(?:[-_.].*)?|(?:.*[-_.])?environment(?:[-_.].*)?\.ya?ml",
    re.IGNORECASE,
)
_ENV_EXCLUDED = frozenset({".env.example", ".env.sample"})

LANGUAGES = ("shell", "yaml", "json", "toml", "ini", "env")


def parameter_format(path: str) -> str | None:
    """``yaml``/``json``/``toml``/``ini``/``env`` when ``path`` is a parameter or ``.env`` file."""
    parts = path.split("/")
    name = parts[-1]
    lower = name.lower()
    if lower.startswith(".env"):
        return None if lower in _ENV_EXCLUDED else "env"
    dot = lower.rfind(".")
    fmt = _PARAM_FORMATS.get(lower[dot:]) if dot > 0 else None
    if fmt is None or lower in _NOT_PARAMETER_NAMES or _NOT_PARAMETER_RE.fullmatch(lower):
        return None
    if any(part.startswith(".") for part in parts):
        return None  # .github/, .vscode/, .readthedocs.yml, .pre-commit-config.yaml, ...
    if _CONFIG_STEM_RE.fullmatch(lower[:dot]) or any(part.lower() in _CONFIG_DIRS for part in parts[:-1]):
        return fmt
    return None


def line_literal(line: str, markers: str = "#") -> str:
    """The literal text of a shell, YAML, TOML, INI or ``.env`` line (or a notebook magic):
    the line without its comment, where backslashes are literal and only a doubled one is
    an escape; "" for a line that is all comment."""
    code = strip_unquoted_comment(line, markers)
    return code.replace("\\\\", "\\") if code.strip() else ""


_JSON_STRING_RE = re.compile(r'"((?:[^"\\]|\\.)*)"')


def literal_lines(lines: Sequence[str], language: str) -> Iterator[tuple[int, str]]:
    """``(line, literal text)`` of the lines that may hold a path (every path pattern
    needs a slash or a backslash): JSON string values decoded, other lines without
    their comments."""
    if language == "json":
        for number, line in enumerate(lines, start=1):
            for match in _JSON_STRING_RE.finditer(line):
                value = unescape(match.group(1))
                if "/" in value or "\\" in value:
                    yield number, value
        return
    markers = "#;" if language == "ini" else "#"
    for number, line in enumerate(lines, start=1):
        if "/" not in line and "\\" not in line:
            continue
        literal = line_literal(line, markers)
        if literal:
            yield number, literal


@dataclass(frozen=True)
class LineFile:
    """What C1 and C3 read in a line-oriented file."""

    literals: tuple[tuple[int, str], ...]       # (line, literal text that may hold a path)
    credentials: tuple[CredentialFact, ...]     # masked, as the frontends give theirs


def read_line_file(text: str, language: str) -> LineFile:
    """``text`` read as ``language`` (one of :data:`LANGUAGES`)."""
    lines = text.splitlines()
    found = FileCredentials()
    found.segment(text, lines, line_bindings(lines, language))
    return LineFile(tuple(literal_lines(lines, language)), found.facts())
