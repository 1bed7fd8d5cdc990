"""What a tree says about itself: its name, title, description, version, licence and
authors, as its own metadata files declare them (the "declared metadata" record).

Exports and the report name a tree by it when no repository record gives a title. Only
files at the root of the tree count, read through the index's cached readers (YAML,
JSON, TOML, and the DESCRIPTION fields of :mod:`scoring.parsers.manifests`), so no file
is read or parsed a second time. The files are consulted in a fixed order and each
field comes from the first file that gives it:

``CITATION.cff`` > ``codemeta.json`` > ``.zenodo.json`` > ``DESCRIPTION`` >
``pyproject.toml`` > ``Project.toml``

Citation metadata comes first because it is written for naming the work; package
manifests name the package, which is often, but not always, the work. The authors are
taken as one list from the first file that names any (lists from two files are never
merged: they would duplicate people spelt differently). ``sources`` records which file
each field came from.

Nothing here affects a measurement: the record is computed after the detectors ran.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .tree import TreeIndex

__all__ = ["DECLARED_FILES", "DeclaredAuthor", "DeclaredMetadata", "declared_metadata", "parse_authors_r"]

# The precedence order, highest first (see the module documentation).
DECLARED_FILES = ("CITATION.cff", "codemeta.json", ".zenodo.json", "DESCRIPTION", "pyproject.toml", "Project.toml")
FIELDS = ("name", "title", "description", "version", "license", "authors")

_ORCID_RE = re.compile(r"(\d{4}-\d{4}-\d{4}-\d{3}[\dX])", re.IGNORECASE)
# "Jane Doe <jane@example.org>" (Poetry, Julia, DESCRIPTION Maintainer)
_NAME_EMAIL_RE = re.compile(r"^\s*(?P<name>[^<]*?)\s*(?:<(?P<email>[^>]+)>)?\s*$")
_SPDX_URL_PREFIXES = ("https://spdx.org/licenses/", "http://spdx.org/licenses/")


@dataclass(frozen=True)
class DeclaredAuthor:
    name: str
    given: str | None = None
    family: str | None = None
    email: str | None = None
    orcid: str | None = None  # the bare identifier, 0000-0002-1825-0097

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "given": self.given, "family": self.family,
                "email": self.email, "orcid": self.orcid}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DeclaredAuthor:
        return cls(name=data["name"], given=data.get("given"), family=data.get("family"),
                   email=data.get("email"), orcid=data.get("orcid"))


@dataclass(frozen=True)
class DeclaredMetadata:
    """The declared metadata of one tree; every field None (authors empty) when no file
    declares it. ``sources`` maps each field found to the path of its file."""

    name: str | None = None
    title: str | None = None
    description: str | None = None
    version: str | None = None
    license: str | None = None
    authors: tuple[DeclaredAuthor, ...] = ()
    sources: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "version": self.version,
            "license": self.license,
            "authors": [a.to_dict() for a in self.authors],
            "sources": dict(self.sources),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DeclaredMetadata:
        return cls(
            name=data.get("name"),
            title=data.get("title"),
            description=data.get("description"),
            version=data.get("version"),
            license=data.get("license"),
            authors=tuple(DeclaredAuthor.from_dict(a) for a in data.get("authors") or ()),
            sources=dict(data.get("sources") or {}),
        )


# --------------------------------------------------------------------------- helpers


def _text(value: Any) -> str | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)  # YAML reads "version: 1.2" as a number
    if not isinstance(value, str):
        return None
    value = " ".join(value.split())
    return value or None


def _orcid(value: Any) -> str | None:
    match = _ORCID_RE.search(value) if isinstance(value, str) else None
    return match.group(1).upper() if match else None


def _person(name: str | None = None, given: str | None = None, family: str | None = None,
            email: str | None = None, orcid: str | None = None) -> DeclaredAuthor | None:
    given, family, email = _text(given), _text(family), _text(email)
    full = _text(name) or " ".join(p for p in (given, family) if p) or None
    if full is None:
        return None
    return DeclaredAuthor(name=full, given=given, family=family, email=email, orcid=orcid)


def _name_email(entry: Any) -> DeclaredAuthor | None:
    """An author written ``Name <email>`` (Poetry, Julia's Project.toml)."""
    text = _text(entry)
    match = _NAME_EMAIL_RE.match(text) if text else None
    return _person(match.group("name"), email=match.group("email")) if match else None


def _license_text(value: Any) -> str | None:
    if isinstance(value, list):
        value = next((v for v in value if _license_text(v)), None)
    if isinstance(value, dict):
        # CodeMeta/.zenodo.json objects; pyproject's {text = "..."} ({file = ...} names a file)
        value = value.get("id") or value.get("identifier") or value.get("@id") or value.get("text")
    text = _text(value)
    for prefix in _SPDX_URL_PREFIXES:
        if text and text.startswith(prefix):
            text = text[len(prefix):].removesuffix(".html").removesuffix(".json") or None
    return text


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


# --------------------------------------------------------------------------- per file


def _from_cff(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        return {}
    authors = []
    for entry in _as_list(data.get("authors")):
        if isinstance(entry, dict):
            person = _person(entry.get("name"), entry.get("given-names"), entry.get("family-names"),
                             entry.get("email"), _orcid(entry.get("orcid")))
            if person:
                authors.append(person)
    return {"name": _text(data.get("title")), "description": _text(data.get("abstract")),
            "version": _text(data.get("version")), "license": _license_text(data.get("license")),
            "authors": tuple(authors)}


def _from_codemeta(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        return {}
    authors = []
    for entry in _as_list(data.get("author")):
        if isinstance(entry, dict):
            orcid = next((_orcid(v) for v in (entry.get("@id"), entry.get("id"), entry.get("identifier"))
                          if _orcid(v)), None)
            person = _person(entry.get("name"), entry.get("givenName"), entry.get("familyName"),
                             entry.get("email"), orcid)
            if person:
                authors.append(person)
    return {"name": _text(data.get("name")), "description": _text(data.get("description")),
            "version": _text(data.get("version") or data.get("softwareVersion")),
            "license": _license_text(data.get("license")), "authors": tuple(authors)}


def _from_zenodo(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        return {}
    authors = []
    for entry in _as_list(data.get("creators")):
        if isinstance(entry, dict):
            name = _text(entry.get("name"))
            family, _, given = (name or "").partition(", ")  # Zenodo writes "Family, Given"
            person = _person(f"{given} {family}" if given else name, given or None,
                             family if given else None, None, _orcid(entry.get("orcid")))
            if person:
                authors.append(person)
    return {"name": _text(data.get("title")), "description": _text(data.get("description")),
            "version": _text(data.get("version")), "license": _license_text(data.get("license")),
            "authors": tuple(authors)}


def _from_description(fields: dict[str, str] | None) -> dict[str, Any]:
    if not fields:
        return {}
    authors: tuple[DeclaredAuthor, ...] = ()
    if fields.get("Authors@R"):
        authors = parse_authors_r(fields["Authors@R"])
    if not authors:
        authors = _description_author_field(fields.get("Author"), fields.get("Maintainer"))
    return {"name": _text(fields.get("Package")), "title": _text(fields.get("Title")),
            "description": _text(fields.get("Description")), "version": _text(fields.get("Version")),
            "license": _text(fields.get("License")), "authors": authors}


def _from_pyproject(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        return {}
    project = data.get("project") if isinstance(data.get("project"), dict) else {}
    tool = data.get("tool") if isinstance(data.get("tool"), dict) else {}
    poetry = tool.get("poetry") if isinstance(tool.get("poetry"), dict) else {}
    authors = []
    for entry in _as_list(project.get("authors")):
        if isinstance(entry, dict):  # PEP 621: {name = ..., email = ...}
            person = _person(entry.get("name"), email=entry.get("email"))
            if person is None and _text(entry.get("email")):
                person = _person(entry.get("email"), email=entry.get("email"))
            if person:
                authors.append(person)
    if not authors:
        authors = [p for p in map(_name_email, _as_list(poetry.get("authors"))) if p]
    return {"name": _text(project.get("name") or poetry.get("name")),
            "description": _text(project.get("description") or poetry.get("description")),
            "version": _text(project.get("version") or poetry.get("version")),
            "license": _license_text(project.get("license") or poetry.get("license")),
            "authors": tuple(authors)}


def _from_julia_project(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        return {}
    return {"name": _text(data.get("name")), "version": _text(data.get("version")),
            "authors": tuple(p for p in map(_name_email, _as_list(data.get("authors"))) if p)}


def declared_metadata(tree: TreeIndex) -> DeclaredMetadata:
    """The declared metadata of ``tree``, from the root files of :data:`DECLARED_FILES`."""
    readers = {
        "CITATION.cff": (tree.yaml, _from_cff),
        "codemeta.json": (tree.json, _from_codemeta),
        ".zenodo.json": (tree.json, _from_zenodo),
        "DESCRIPTION": (tree.description_fields, _from_description),
        "pyproject.toml": (tree.toml, _from_pyproject),
        "Project.toml": (tree.toml, _from_julia_project),
    }
    found: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for name in DECLARED_FILES:
        # DESCRIPTION and Project.toml are matched exactly, as the manifest finder does.
        path = tree.find_ci(name) if name not in ("DESCRIPTION", "Project.toml") else name
        if not path or not tree.is_file(path):
            continue
        read, extract = readers[name]
        try:
            values = extract(read(path))
        except (TypeError, ValueError, AttributeError):
            continue  # a malformed file names nothing; the detectors report it
        for key in FIELDS:
            if key not in found and values.get(key):
                found[key] = values[key]
                sources[key] = path
    return DeclaredMetadata(**found, sources=sources)


# --------------------------------------------------------------------------- DESCRIPTION authors


def _description_author_field(author: str | None, maintainer: str | None) -> tuple[DeclaredAuthor, ...]:
    """The free-text ``Author:`` field (``A [aut, cre] (<orcid>), B and C``), with the
    maintainer's e-mail address given to the author of the same name; the maintainer
    alone when there is no ``Author:``."""
    boss = _name_email(maintainer) if maintainer else None
    if not author:
        return (boss,) if boss else ()
    people: list[DeclaredAuthor] = []
    # Commas inside brackets or parentheses ("[aut, cre]") do not separate people.
    depth, piece, pieces = 0, "", []
    for char in author:
        depth += char in "[(" and 1 or char in "])" and -1 or 0
        if char == "," and depth == 0:
            pieces.append(piece)
            piece = ""
        else:
            piece += char
    pieces.append(piece)
    for piece in pieces:
        for part in re.split(r"\s+and\s+", piece):
            orcid = _orcid(part)
            name = _text(re.sub(r"\[[^\]]*\]|\([^)]*\)|<[^>]*>", " ", part))
            if name:
                email = boss.email if boss and boss.name == name else None
                people.append(DeclaredAuthor(name=name, email=email, orcid=orcid))
    return tuple(people)


_R_TOKEN_RE = re.compile(
    r"""\s*(?:(?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|(?P<name>[A-Za-z._][A-Za-z0-9._]*|`[^`]*`)"""
    r"""|(?P<number>\d+(?:\.\d*)?)|(?P<punct>[(),=])|(?P<other>\S))"""
)
# person()'s positional parameters, in R's order.
_PERSON_PARAMETERS = ("given", "family", "middle", "email", "role", "comment", "first", "last")


class _RSyntax(ValueError):
    pass


def _r_tokens(code: str) -> list[tuple[str, str]]:
    tokens = []
    for match in _R_TOKEN_RE.finditer(code):
        kind = match.lastgroup
        if kind is None:
            continue
        text = match.group(kind)
        if kind == "string":
            text = re.sub(r"\\(.)", r"\1", text[1:-1])
        elif kind == "name":
            text = text.strip("`")
        tokens.append((kind, text))
    return tokens


class _RParser:
    """Calls of ``c`` and ``person``, strings, names and numbers: the subset of R that
    ``Authors@R`` is written in (``c(person("A", "B", email = "...", comment = c(ORCID =
    "...")), ...)``). Anything else (other calls, arithmetic) makes the field unreadable
    rather than guessed at."""

    def __init__(self, code: str) -> None:
        self.tokens = _r_tokens(code)
        self.at = 0

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self, kind: str | None = None, text: str | None = None) -> tuple[str, str]:
        token = self.peek()
        if token is None or (kind and token[0] != kind) or (text and token[1] != text):
            raise _RSyntax(f"unexpected {token!r}")
        self.at += 1
        return token

    def expression(self) -> Any:
        kind, text = self.take()
        if kind == "string":
            return text
        if kind == "number":
            return text
        if kind != "name":
            raise _RSyntax(f"unexpected {text!r}")
        if self.peek() != ("punct", "("):
            return None if text in ("NULL", "NA") else ("name", text)
        if text not in ("c", "person"):
            raise _RSyntax(f"a call of {text}()")  # computed, not literal: not evaluated
        self.take("punct", "(")
        positional: list[Any] = []
        named: dict[str, Any] = {}
        while self.peek() != ("punct", ")"):
            token = self.peek()
            following = self.tokens[self.at + 1] if self.at + 1 < len(self.tokens) else None
            if token and token[0] in ("name", "string") and following == ("punct", "="):
                self.at += 2
                named[token[1]] = self.expression()
            else:
                positional.append(self.expression())
            if self.peek() == ("punct", ","):
                self.take()
            elif self.peek() != ("punct", ")"):
                raise _RSyntax(f"unexpected {self.peek()!r}")
        self.take("punct", ")")
        return ("call", text, positional, named)


def _strings(value: Any) -> list[str]:
    """The strings of a string or a ``c(...)`` of strings."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, tuple) and value[0] == "call" and value[1] == "c":
        return [s for v in (*value[2], *value[3].values()) for s in _strings(v)]
    return []


def _r_person(call: tuple) -> tuple[DeclaredAuthor | None, set[str] | None]:
    _, _, positional, named = call
    args = dict(zip(_PERSON_PARAMETERS, positional, strict=False))
    args.update(named)
    given = " ".join(_strings(args.get("given")) or _strings(args.get("first"))) or None
    family = " ".join(_strings(args.get("family")) or _strings(args.get("last"))) or None
    email = next(iter(_strings(args.get("email"))), None)
    comment = args.get("comment")
    orcid = None
    if isinstance(comment, tuple) and comment[0] == "call":
        orcid = _orcid(comment[3].get("ORCID"))
    roles = set(_strings(args.get("role"))) if "role" in args else None
    return _person(given=given, family=family, email=email, orcid=orcid), roles


def parse_authors_r(code: str) -> tuple[DeclaredAuthor, ...]:
    """The authors of an ``Authors@R`` field: the ``person(...)`` entries whose roles
    include ``aut`` (or, when none does, ``cre``; an entry without roles counts), in
    order. Only literal strings are read; an expression outside that subset gives ()."""
    parser = _RParser(code)
    try:
        value = parser.expression()
        if parser.peek() is not None:
            return ()
    except _RSyntax:
        return ()
    calls = []
    if isinstance(value, tuple) and value[0] == "call" and value[1] == "person":
        calls = [value]
    elif isinstance(value, tuple) and value[0] == "call" and value[1] == "c":
        calls = [v for v in value[2] if isinstance(v, tuple) and v[0] == "call" and v[1] == "person"]
    people = [_r_person(call) for call in calls]
    people = [(p, roles) for p, roles in people if p is not None]

    def with_role(wanted: set[str]) -> list[DeclaredAuthor]:
        return [p for p, roles in people if roles is None or roles & wanted]

    chosen = with_role({"aut"}) or with_role({"cre"})
    return tuple(chosen)
