"""Software Heritage Web API client: discovery, origin → root directory, deposit metadata.

Facts this module is built on (see docs/software-heritage.md and
``../shared/notes/software-heritage.md``):

- every list answer that continues carries ``Link: <absolute URL>; rel="next"``; page
  tokens are opaque, so the client follows the header and never builds tokens itself;
- ``visit/latest/?require_snapshot=true`` is its own, generous rate-limit bucket, but a
  visit can still come back without a usable snapshot (``null``, or a status other than
  ``full``/``partial``); the visit list is then read newest first;
- a snapshot's ``HEAD`` is usually an ``alias`` in git origins and points straight at a
  synthetic release (which targets a directory) in deposits; legacy deposits have a
  ``master`` branch pointing at a synthetic revision;
- a deposit's Atom/CodeMeta XML is raw extrinsic metadata on the root *directory*
  SWHID, from the ``deposit_client`` authority;
- the optional bearer token (a long-lived OIDC refresh token) raises every rate limit
  tenfold; it is a credential, so it is only ever sent to the API's own host and never
  appears in a log line, a ``repr`` or an exception message.

Retries, ``X-RateLimit-*`` pacing and the 429 JSON ``reason`` are handled by the shared
:class:`harvester.http.HttpClient`; the vault lives in :mod:`harvester.swh_vault`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urljoin, urlsplit

import requests
from lxml import etree

from harvester.http import HttpClient
from harvester.records import Creator, DepositRecord

__all__ = [
    "DEFAULT_API_URL",
    "Discovery",
    "ResolutionError",
    "RootResolution",
    "SwhClient",
    "SwhError",
    "origin_to_record",
    "parse_deposit_metadata",
]

log = logging.getLogger(__name__)

DEFAULT_API_URL = "https://archive.softwareheritage.org/api/1/"

# Visit statuses whose snapshot is a finished (if possibly incomplete) picture of the
# origin; "created", "ongoing", "failed" and "not_found" visits are skipped.
USABLE_VISIT_STATUSES = frozenset({"full", "partial"})
# How many pages of an origin's visit list to read, newest first, when visit/latest has
# no usable snapshot: 10 pages of 100 visits covers years of daily crawling.
MAX_VISIT_PAGES = 10
VISITS_PER_PAGE = 100
# Branches tried, in order, when a snapshot has no HEAD (legacy deposits use "master").
FALLBACK_BRANCHES = ("refs/heads/main", "refs/heads/master", "master", "main", "trunk")
# A release may target another release; aliases may point at aliases. Bound both walks
# so a cycle in hostile data ends in an error rather than a loop.
MAX_INDIRECTIONS = 8
# Deposit metadata blobs are a few kilobytes; refuse anything absurd.
MAX_METADATA_BYTES = 10 * 1024 * 1024
# Raw extrinsic metadata formats that hold the SWORD Atom entry with CodeMeta.
ATOM_CODEMETA_FORMATS = frozenset({"sword-v2-atom-codemeta", "sword-v2-atom-codemeta-v2"})

_HEX40 = re.compile(r"^[0-9a-f]{40}$")
_SWHID = re.compile(r"^swh:1:(?P<kind>snp|rel|rev|dir|cnt):(?P<hex>[0-9a-f]{40})$")
# Characters an origin URL keeps when it is put in an API path. Django decodes the path
# before routing, so "%", "?", "#" and spaces are escaped and everything else is kept as
# Software Heritage's own clients send it (``origin/https://github.com/o/r/visits/``).
_ORIGIN_SAFE = ":/@!$&'()*+,;=-._~"
# A bearer token is sent in a header: visible ASCII only (RFC 6750 b64token is a subset).
_TOKEN_CHARS = re.compile(r"^[\x21-\x7e]+$")


class SwhError(Exception):
    """The archive answered something this client cannot use; ``reason`` is one sentence."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class ResolutionError(SwhError):
    """A snapshot that does not lead to a root directory (no usable branch, a branch
    pointing at a content or a snapshot, a dangling target, a cycle)."""


class _Secret:
    """A credential that prints as ``<redacted>`` wherever it ends up (repr, logs, f-strings)."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "<redacted>"

    __str__ = __repr__


# --------------------------------------------------------------------------------------
# Identifiers
# --------------------------------------------------------------------------------------


def _object_id(value: str, kind: str) -> str:
    """The 40-hex id of ``value``, given as bare hex or as a core SWHID of ``kind``.

    Ids go into URL paths, so anything else is refused before a request is built.
    """
    text = value.strip().lower()
    if _HEX40.match(text):
        return text
    match = _SWHID.match(text)
    if match and match["kind"] == kind:
        return match["hex"]
    raise ValueError(f"not a {kind} identifier: {value!r}")


def _origin_path(origin_url: str) -> str:
    return quote(origin_url, safe=_ORIGIN_SAFE)


@dataclass(frozen=True)
class RootResolution:
    """Where a snapshot's default branch leads: the root directory of the archived tree.

    ``branch`` is the branch that holds the target (for ``HEAD`` → ``refs/heads/main``,
    it is ``refs/heads/main``; ``alias`` then says ``HEAD``). ``target_type`` and
    ``target`` are that branch's target (``release``, ``revision`` or ``directory``).
    ``release`` and ``revision`` are the ids met on the way (None when skipped), and
    ``directory`` the root directory id (40 hex).
    """

    snapshot: str
    branch: str
    target_type: str
    target: str
    directory: str
    release: str | None = None
    revision: str | None = None
    alias: str | None = None

    @property
    def swhid(self) -> str:
        """The root directory's SWHID, the snapshot identity of the tree."""
        return f"swh:1:dir:{self.directory}"


# --------------------------------------------------------------------------------------
# The client
# --------------------------------------------------------------------------------------


def default_branch(snapshot: str, branches: dict) -> str:
    """The branch a snapshot's tree is read from: ``HEAD``, else the first of
    :data:`FALLBACK_BRANCHES` present, else the only branch. Shared by the Web API
    client and the graph-dataset reader so both pick the same tree."""
    if "HEAD" in branches:
        return "HEAD"
    name = next((b for b in FALLBACK_BRANCHES if b in branches), None)
    if name is None and len(branches) == 1:
        name = next(iter(branches))
    if name is None:
        raise ResolutionError(
            f"snapshot {snapshot} has no HEAD and no default branch ({len(branches)} branches)"
        )
    return name


class SwhClient:
    """A Software Heritage Web API client on the shared :class:`HttpClient`.

    ``api_url`` is the API root (``…/api/1/``). ``token``, when given, is sent as
    ``Authorization: Bearer …`` on requests to the API's own scheme, host and port
    only, so a ``Link`` or ``metadata_url`` pointing elsewhere never receives it. The
    caller reads it from the environment (``SWH_TOKEN``); it is kept wrapped so that it
    never shows in ``repr``, logs or exception messages. Retries and pacing are the
    HTTP client's, for GET and POST alike.
    """

    def __init__(
        self,
        client: HttpClient,
        api_url: str = DEFAULT_API_URL,
        token: str | None = None,
    ) -> None:
        self.client = client
        self.api_url = api_url if api_url.endswith("/") else api_url + "/"
        parts = urlsplit(self.api_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"the Software Heritage API URL must be http(s): {api_url!r}")
        self._api_origin = (parts.scheme, parts.netloc.lower())
        token = (token or "").strip()
        if token and not _TOKEN_CHARS.match(token):
            # requests would put the whole header value, token included, in its error.
            raise ValueError("the Software Heritage token holds characters not allowed in a header")
        self._token = _Secret(token) if token else None

    def __repr__(self) -> str:
        auth = "token" if self._token else "anonymous"
        return f"SwhClient({self.api_url!r}, {auth})"

    def close(self) -> None:
        """Nothing to release: the HTTP client, and its session, are the caller's."""

    @property
    def authenticated(self) -> bool:
        """Whether a bearer token is sent (rate limits are ten times higher)."""
        return self._token is not None

    # -- plumbing ----------------------------------------------------------------------

    def url(self, path: str) -> str:
        """``path`` under the API root; absolute URLs (``Link``, ``*_url`` fields) pass through."""
        if path.startswith(("http://", "https://")):
            return path
        # Not urljoin: it collapses the "//" of an origin URL inside the path.
        return self.api_url + path.lstrip("/")

    def _auth_headers(self, url: str) -> dict[str, str] | None:
        if self._token is None:
            return None
        parts = urlsplit(url)
        if (parts.scheme, parts.netloc.lower()) != self._api_origin:
            return None
        return {"Authorization": f"Bearer {self._token.reveal()}"}

    def _get(
        self,
        path: str,
        params: dict | None = None,
        *,
        accept_status: frozenset[int] | None = None,
        stream: bool = False,
    ) -> requests.Response:
        url = self.url(path)
        # Every answer read whole is JSON: one cut short or garbled is retried, not fatal.
        return self.client.get(
            url,
            params=params,
            headers=self._auth_headers(url),
            accept_status=accept_status,
            stream=stream,
            expect_json=not stream,
        )

    @staticmethod
    def _decode(response: requests.Response) -> Any:
        try:
            return response.json()
        except ValueError as exc:
            raise SwhError(f"{response.url} did not answer JSON: {exc}") from None

    def get_json(self, path: str, params: dict | None = None) -> Any:
        """The decoded JSON answer of ``GET path`` (relative to the API root, or absolute).

        HTTP failures raise :class:`harvester.http.HttpError`; a body that is not JSON
        raises :class:`SwhError`.
        """
        return self._decode(self._get(path, params))

    def get_bytes(self, path: str, *, max_bytes: int = MAX_METADATA_BYTES) -> bytes:
        """The raw body of ``GET path``, refused (SwhError) when larger than ``max_bytes``."""
        response = self._get(path, stream=True)
        try:
            chunks: list[bytes] = []
            size = 0
            for chunk in response.iter_content(64 * 1024):
                size += len(chunk)
                if size > max_bytes:
                    raise SwhError(f"{response.url} is larger than {max_bytes} bytes")
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            response.close()

    def post_json(self, path: str) -> Any:
        """The decoded JSON answer of ``POST path`` (the vault's cooking requests), with
        the shared client's retry rules: cooking is idempotent, so a repeated POST is
        harmless."""
        url = self.url(path)
        return self._decode(
            self.client.request("POST", url, headers=self._auth_headers(url), expect_json=True)
        )

    def paginate(self, path: str, params: dict | None = None) -> Iterator[Any]:
        """Every entry of a paginated answer, following ``Link: rel="next"`` to the end.

        A list answer yields its items; an object answer (a snapshot page) yields the
        object itself, once per page. The next URL is taken as the server gives it
        (tokens are opaque); a ``next`` that was already fetched ends in SwhError.
        """
        url: str | None = self.url(path)
        query = params
        fetched: set[str] = set()
        while url is not None:
            response = self._get(url, query)
            fetched.add(response.url)
            page = self._decode(response)
            if isinstance(page, list):
                yield from page
            else:
                yield page
            link = response.links.get("next", {}).get("url")
            url = urljoin(response.url, link) if link else None
            if url is not None and url in fetched:
                raise SwhError(f"pagination of {path} loops back to {url}")
            query = None  # the next URL carries its own query string

    # -- discovery ---------------------------------------------------------------------

    def search_origins(
        self, query: str, *, use_ql: bool = True, limit: int = 1000, with_visit: bool = True
    ) -> Iterator[dict]:
        """Origins matching ``query`` (``{"url": …, …}``), every page, in the server's order.

        With ``use_ql`` the query is in the search query language (for instance
        ``visit_type = [deposit] and last_eventful_visit > "2026-01-01"``), otherwise a
        URL pattern. ``limit`` is the page size (the server clamps it to 1000).
        """
        params = {
            "limit": str(limit),
            "use_ql": "true" if use_ql else "false",
            "with_visit": "true" if with_visit else "false",
        }
        yield from self.paginate(f"origin/search/{quote(query, safe=':/')}/", params)

    def latest_visit(self, origin_url: str) -> dict | None:
        """The newest visit of ``origin_url`` with a snapshot and status full or partial.

        Asks ``visit/latest/?require_snapshot=true`` first (its own rate-limit bucket);
        when that visit is unusable, reads the visit list newest first. None when the
        origin is unknown or has no usable visit.
        """
        base = f"origin/{_origin_path(origin_url)}"
        response = self._get(
            f"{base}/visit/latest/",
            {"require_snapshot": "true"},
            accept_status=frozenset({404}),
        )
        if response.status_code == 404:
            return None
        visit = self._decode(response)
        if _usable(visit):
            return visit
        log.info(
            "latest visit of %s has no usable snapshot (status %r); reading its visit list",
            origin_url,
            visit.get("status") if isinstance(visit, dict) else None,
        )
        return self._first_usable_visit(f"{base}/visits/")

    def _first_usable_visit(self, path: str) -> dict | None:
        url: str | None = self.url(path)
        params: dict | None = {"per_page": str(VISITS_PER_PAGE)}
        for _ in range(MAX_VISIT_PAGES):
            response = self._get(url, params, accept_status=frozenset({404}))
            if response.status_code == 404:
                return None
            visits = self._decode(response)
            for visit in visits if isinstance(visits, list) else []:
                if _usable(visit):
                    return visit
            link = response.links.get("next", {}).get("url")
            if not link:
                return None
            url, params = urljoin(response.url, link), None
        return None

    # -- origin → root directory -------------------------------------------------------

    def resolve_root(self, snapshot_id: str) -> RootResolution:
        """Snapshot → default branch (``HEAD``, alias resolved) → release/revision → directory.

        Snapshot pages are read only until the needed branch is found; an alias whose
        target is on a later page is fetched by name (``branches_from``). Without
        ``HEAD`` the first of :data:`FALLBACK_BRANCHES` present is used, or the only
        branch. Raises ResolutionError when no root directory can be reached.
        """
        snapshot = _object_id(snapshot_id, "snp")
        branches: dict[str, dict | None] = {}
        everything_read = True
        for page in self.paginate(f"snapshot/{snapshot}/"):
            branches.update(page.get("branches") or {})
            if "HEAD" in branches:
                everything_read = False  # later pages, if any, were not read
                break
        alias: str | None = None
        name = default_branch(snapshot, branches)
        target = branches.get(name)
        hops = 0
        while target and target.get("target_type") == "alias":
            hops += 1
            if hops > MAX_INDIRECTIONS:
                raise ResolutionError(f"snapshot {snapshot}: alias chain from {alias} is too long")
            alias = alias or name
            name = target.get("target") or ""
            if name not in branches and not everything_read:
                branches[name] = self._branch(snapshot, name)
            target = branches.get(name)
        if not target or not target.get("target"):
            raise ResolutionError(f"snapshot {snapshot}: branch {name!r} points nowhere")
        return self._follow(snapshot, name, alias, target["target_type"], target["target"])

    def _branch(self, snapshot: str, name: str) -> dict | None:
        """One branch of a snapshot, by name, without reading the pages before it."""
        page = self.get_json(
            f"snapshot/{snapshot}/", {"branches_from": name, "branches_count": "1"}
        )
        return (page.get("branches") or {}).get(name)

    def _follow(
        self, snapshot: str, branch: str, alias: str | None, target_type: str, target: str
    ) -> RootResolution:
        release: str | None = None
        revision: str | None = None
        kind, current = target_type, target
        for _ in range(MAX_INDIRECTIONS):
            if kind == "directory":
                return RootResolution(
                    snapshot=snapshot,
                    branch=branch,
                    target_type=target_type,
                    target=target,
                    directory=_object_id(current, "dir"),
                    release=release,
                    revision=revision,
                    alias=alias,
                )
            if kind == "release":
                body = self.get_json(f"release/{_object_id(current, 'rel')}/")
                release = release or body.get("id") or current
                kind, current = body.get("target_type"), body.get("target")
            elif kind == "revision":
                body = self.get_json(f"revision/{_object_id(current, 'rev')}/")
                revision = body.get("id") or current
                kind, current = "directory", body.get("directory")
            else:
                raise ResolutionError(
                    f"snapshot {snapshot}: branch {branch!r} leads to a {kind}, not a source tree"
                )
            if not current:
                raise ResolutionError(f"snapshot {snapshot}: branch {branch!r} has a dangling target")
        raise ResolutionError(f"snapshot {snapshot}: branch {branch!r} nests releases too deeply")

    def directory(self, dir_id: str) -> list[dict]:
        """The entries of one directory (``file``, ``dir``, ``rev``); not paginated upstream."""
        listing = self.get_json(f"directory/{_object_id(dir_id, 'dir')}/")
        if not isinstance(listing, list):
            raise SwhError(f"directory {dir_id} did not answer a list of entries")
        return listing

    # -- deposit metadata --------------------------------------------------------------

    def deposit_metadata(self, dir_swhid: str) -> list[tuple[dict, bytes]]:
        """The Atom/CodeMeta entries deposit clients attached to a root directory.

        Returns ``(entry, raw bytes)`` pairs in the API's order (oldest discovery first),
        for every ``deposit_client`` authority and every entry in an Atom/CodeMeta
        format. Empty when the directory has no deposit metadata (not a deposit).
        """
        swhid = f"swh:1:dir:{_object_id(dir_swhid, 'dir')}"
        response = self._get(
            f"raw-extrinsic-metadata/swhid/{swhid}/authorities/",
            accept_status=frozenset({404}),
        )
        if response.status_code == 404:
            return []
        found: list[tuple[dict, bytes]] = []
        for authority in self._decode(response) or []:
            if authority.get("type") != "deposit_client":
                continue
            listing = authority.get("metadata_list_url") or (
                f"raw-extrinsic-metadata/swhid/{swhid}/?authority="
                + quote(f"deposit_client {authority.get('url', '')}", safe=":/")
            )
            for entry in self.paginate(listing):
                if entry.get("format") not in ATOM_CODEMETA_FORMATS or not entry.get("metadata_url"):
                    continue
                found.append((entry, self.get_bytes(entry["metadata_url"])))
        return found


def _usable(visit: Any) -> bool:
    return (
        isinstance(visit, dict)
        and visit.get("status") in USABLE_VISIT_STATUSES
        and bool(visit.get("snapshot"))
    )


# --------------------------------------------------------------------------------------
# Deposit metadata (SWORD Atom entry with CodeMeta)
# --------------------------------------------------------------------------------------

ATOM_NS = "http://www.w3.org/2005/Atom"
CODEMETA_NS = "https://doi.org/10.5063/SCHEMA/CODEMETA-2.0"
SCHEMA_NS = "http://schema.org/"
SWH_DEPOSIT_NS = "https://www.softwareheritage.org/schema/2018/deposit"
_NS = {"atom": ATOM_NS, "cm": CODEMETA_NS, "schema": SCHEMA_NS, "swh": SWH_DEPOSIT_NS}
# No entities, no network, no recovery: a deposit's XML is someone else's input.
_STRICT_PARSER = etree.XMLParser(
    recover=False, resolve_entities=False, no_network=True, remove_blank_text=True
)
# CodeMeta dates mapped to the DataCite date types the Zenodo records use, so that
# ``DepositRecord.dates`` reads the same whatever the source.
_DATE_TYPES = {"dateCreated": "Created", "datePublished": "Issued", "dateModified": "Updated"}
_DOI = re.compile(r"(10\.\d{4,9}/\S+)$")
_ORCID = re.compile(r"(\d{4}-\d{4}-\d{4}-\d{3}[\dX])$", re.IGNORECASE)
_SPDX_URL = re.compile(r"^https?://spdx\.org/licenses/(?P<id>[A-Za-z0-9.+-]+?)(?:\.html)?/?$")
_GITHUB_REPO = re.compile(r"^https?://(?:www\.)?github\.com/(?P<owner>[^/\s]+)/(?P<repo>[^/\s#?]+)")


def _text(element: etree._Element | None) -> str | None:
    if element is None or element.text is None:
        return None
    text = " ".join(element.text.split())
    return text or None


def _codemeta(parent: etree._Element, name: str) -> list[etree._Element]:
    """Children named ``name`` in the CodeMeta or schema.org namespace (both are used)."""
    return parent.findall(f"cm:{name}", _NS) + parent.findall(f"schema:{name}", _NS)


def parse_deposit_metadata(xml: bytes) -> dict:
    """Title, authors, licence, identifiers and dates of a deposit's Atom/CodeMeta entry.

    Returns a dict with ``title``, ``description``, ``version``, ``authors`` (each
    ``{"name", "affiliation", "orcid"}``, several affiliations joined with "; "),
    ``licence`` (an SPDX id when the entry gives an spdx.org URL or identifier, else the
    name as written), ``identifiers`` (``{"scheme", "value"}``), ``doi``, ``dates``
    (keyed by DataCite date type: Created, Issued, Updated), ``code_repository``,
    ``origin`` (the origin the deposit created or added to) and ``raw_xml`` (the entry
    as text, for provenance). Raises ValueError on XML that is not well-formed.
    """
    try:
        root = etree.fromstring(xml, parser=_STRICT_PARSER)
    except etree.XMLSyntaxError as exc:
        raise ValueError(f"deposit metadata is not well-formed XML: {exc}") from exc

    title = next((_text(e) for e in _codemeta(root, "name") if _text(e)), None)
    title = title or _text(root.find("atom:title", _NS))

    authors = []
    for author in _codemeta(root, "author"):
        name = next((_text(e) for e in _codemeta(author, "name") if _text(e)), None)
        if name is None:
            given = next((_text(e) for e in _codemeta(author, "givenName")), None)
            family = next((_text(e) for e in _codemeta(author, "familyName")), None)
            name = " ".join(p for p in (given, family) if p) or None
        if name is None:
            continue
        affiliations = [a for e in _codemeta(author, "affiliation") if (a := _affiliation(e))]
        orcid = None
        for element in _codemeta(author, "identifier") + _codemeta(author, "id"):
            match = _ORCID.search(_text(element) or "")
            if match:
                orcid = match.group(1).upper()
                break
        authors.append(
            {"name": name, "affiliation": "; ".join(affiliations) or None, "orcid": orcid}
        )

    identifiers: list[dict[str, str]] = []
    atom_id = _text(root.find("atom:id", _NS))
    if atom_id:
        identifiers.append({"scheme": "atom:id", "value": atom_id})
    for element in _codemeta(root, "identifier"):
        scheme = next((_text(e) for e in _codemeta(element, "propertyID")), None)
        value = next((_text(e) for e in _codemeta(element, "value")), None) or _text(element)
        if value and {"scheme": scheme or "identifier", "value": value} not in identifiers:
            identifiers.append({"scheme": scheme or "identifier", "value": value})
    doi = next(
        (m.group(1) for i in identifiers if (m := _DOI.search(i["value"]))), None
    )

    dates = {}
    for name, kind in _DATE_TYPES.items():
        value = next((_text(e) for e in _codemeta(root, name) if _text(e)), None)
        if value:
            dates[kind] = value

    origin = root.find("swh:deposit//swh:origin", _NS)
    return {
        "title": title,
        "description": next((_text(e) for e in _codemeta(root, "description")), None),
        "version": next((_text(e) for e in _codemeta(root, "softwareVersion")), None)
        or next((_text(e) for e in _codemeta(root, "version")), None),
        "authors": authors,
        "licence": _licence(_codemeta(root, "license")),
        "identifiers": identifiers,
        "doi": doi,
        "dates": dates,
        "code_repository": next((_text(e) for e in _codemeta(root, "codeRepository")), None),
        "origin": origin.get("url") if origin is not None else None,
        "raw_xml": xml.decode("utf-8", "replace") if isinstance(xml, bytes) else str(xml),
    }


def _affiliation(element: etree._Element) -> str | None:
    """An affiliation written as text or as an Organization with a name."""
    return next((_text(e) for e in _codemeta(element, "name")), None) or _text(element)


def _licence(elements: list[etree._Element]) -> str | None:
    """The first licence: its SPDX id from an spdx.org URL or identifier, else its name."""
    for element in elements:
        candidates = [
            _text(e)
            for e in _codemeta(element, "url") + _codemeta(element, "identifier")
        ] + [_text(element)]
        for candidate in candidates:
            match = _SPDX_URL.match(candidate or "")
            if match:
                return match["id"]
        name = next((_text(e) for e in _codemeta(element, "name")), None)
        value = name or next((c for c in candidates if c), None)
        if value:
            return value
    return None


# --------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------


def origin_to_record(
    origin_url: str,
    visit: dict,
    resolution: RootResolution,
    metadata: dict | None,
) -> DepositRecord:
    """The :class:`DepositRecord` of one visit of one origin.

    ``source`` is ``swh``, ``record_id`` the origin URL, ``oai_identifier``
    ``swh:<origin URL>`` and ``datestamp`` the visit date, so every visit is a version
    and an origin keeps its history. ``swh`` holds the visit and the resolution, with
    the root directory under ``swhid`` (the key Zenodo records use). ``metadata`` is
    :func:`parse_deposit_metadata` output for deposits (None for other origins); its
    ``raw_xml`` becomes ``raw_metadata``.
    """
    meta = metadata or {}
    swh = {
        "origin": origin_url,
        "visit": visit.get("visit"),
        "visit_date": visit.get("date"),
        "visit_type": visit.get("type"),
        "visit_status": visit.get("status"),
        "snapshot": f"swh:1:snp:{resolution.snapshot}",
        "branch": resolution.branch,
        "alias": resolution.alias,
        "target_type": resolution.target_type,
        "release": f"swh:1:rel:{resolution.release}" if resolution.release else None,
        "revision": f"swh:1:rev:{resolution.revision}" if resolution.revision else None,
        "swhid": resolution.swhid,
    }
    related = [
        {
            "identifier": ident["value"],
            "relation_type": "IsIdenticalTo",
            "identifier_type": ident["scheme"],
            "resource_type_general": None,
        }
        for ident in meta.get("identifiers") or []
    ]
    repository = meta.get("code_repository")
    if repository:
        related.append(
            {
                "identifier": repository,
                "relation_type": "IsSupplementTo",
                "identifier_type": "URL",
                "resource_type_general": None,
            }
        )
    return DepositRecord(
        source="swh",
        oai_identifier=f"swh:{origin_url}",
        datestamp=str(visit.get("date") or ""),
        record_id=origin_url,
        doi=meta.get("doi"),
        version=meta.get("version"),
        title=meta.get("title"),
        creators=[
            Creator(name=a["name"], orcid=a.get("orcid"), affiliation=a.get("affiliation"))
            for a in meta.get("authors") or []
        ],
        licence=meta.get("licence"),
        dates=dict(meta.get("dates") or {}),
        github_repo=_github_repo(repository) or _github_repo(origin_url),
        related=related,
        resource_type_general="Software",
        raw_metadata=meta.get("raw_xml") or "",
        swh={k: v for k, v in swh.items() if v is not None},
    )


def _github_repo(url: str | None) -> str | None:
    match = _GITHUB_REPO.match(url or "")
    if not match:
        return None
    return f"https://github.com/{match['owner']}/{match['repo'].removesuffix('.git')}"


# --------------------------------------------------------------------------------------
# Discovery
# --------------------------------------------------------------------------------------


@dataclass
class Discovery:
    """Where origins to harvest come from; pure helpers, the caller keeps the checkpoints.

    ``visit_type`` selects what the incremental search looks for (``deposit``),
    ``page_size`` is the search page size and ``max_origins`` bounds one run.
    """

    visit_type: str = "deposit"
    page_size: int = 1000
    max_origins: int = 10_000
    extra_filter: str | None = None

    def deposit_query(self, after: datetime, overlap: timedelta = timedelta(hours=1)) -> str:
        """The query-language text for origins eventfully visited since ``after - overlap``.

        Sorted newest first. The overlap absorbs the search index's lag: an origin
        visited just before the last checkpoint but indexed after it is found again
        (and de-duplicated), never lost.
        """
        since = _utc(after) - overlap
        query = (
            f"visit_type = [{self.visit_type}]"
            f' and last_eventful_visit > "{since.strftime("%Y-%m-%dT%H:%M:%SZ")}"'
        )
        if self.extra_filter:
            query += f" and ({self.extra_filter})"
        return f"{query} and sort_by = [-last_eventful_visit] and limit = {self.page_size}"

    def deposits_since(
        self, client: SwhClient, after: datetime, overlap: timedelta = timedelta(hours=1)
    ) -> list[str]:
        """Origin URLs of deposits eventfully visited since the checkpoint, newest first,
        each once.

        The caller should store as the next checkpoint the time this call *started*
        (search results carry no dates, and anything visited later is found next run
        anyway thanks to the overlap).
        """
        origins: list[str] = []
        seen: set[str] = set()
        for origin in client.search_origins(self.deposit_query(after, overlap), limit=self.page_size):
            url = origin.get("url") if isinstance(origin, dict) else None
            if not url or url in seen:
                continue
            seen.add(url)
            origins.append(url)
            if len(origins) >= self.max_origins:
                log.warning(
                    "deposit search stopped at %d origins; the rest waits for the next run",
                    self.max_origins,
                )
                break
        return origins

    @staticmethod
    def parse_origins(lines: Iterable[str]) -> list[str]:
        """Origin URLs from a watch list: one per line, blank lines and ``#`` comments
        skipped, duplicates dropped, order kept."""
        origins: list[str] = []
        for line in lines:
            url = line.strip()
            # Whole-line comments only: "#" may be part of a URL (a fragment).
            if url and not url.startswith("#") and url not in origins:
                origins.append(url)
        return origins

    @classmethod
    def read_origins_file(cls, path: str | Path) -> list[str]:
        """:meth:`parse_origins` of a UTF-8 file (``--origins FILE``)."""
        return cls.parse_origins(Path(path).read_text(encoding="utf-8").splitlines())

    @staticmethod
    def linked_origins(records: Iterable[DepositRecord]) -> list[str]:
        """Origins that Zenodo records point to: the GitHub repository of a
        GitHub-integration release, and the ``origin`` qualifier of the record's ``swh``
        SWHID. Order kept, duplicates dropped."""
        origins: list[str] = []
        for record in records:
            candidates = [record.github_repo]
            swhid = (record.swh or {}).get("swhid") if isinstance(record.swh, dict) else None
            if isinstance(swhid, str):
                for qualifier in swhid.split(";")[1:]:
                    key, _, value = qualifier.partition("=")
                    if key == "origin" and value:
                        candidates.append(unquote(value))
            for url in candidates:
                if url and url not in origins:
                    origins.append(url)
        return origins


def _utc(moment: datetime) -> datetime:
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)
