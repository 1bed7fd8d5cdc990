"""Zenodo harvester: OAI-PMH ListRecords in time windows (through sickle), REST for files.

Facts this module is built on (see docs/zenodo.md): Zenodo answers OAI errors with HTTP
422 and OAI XML; an empty window is ``noRecordsMatch``; resumption tokens expire after
about 120 s and hold a server-side scroll, so a window is harvested in one go and
restarted from its first page when a token fails; records are not sorted by datestamp;
``from``/``until`` filter the sub-second ``updated`` value inclusively, so consecutive
windows share their boundary second; deleted records answer 410 on the REST API.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from lxml import etree
from sickle import Sickle
from sickle.iterator import OAIResponseIterator
from sickle.response import OAIResponse

from harvester.records import Creator, DepositRecord, FileRef

if TYPE_CHECKING:
    from harvester.http import HttpClient

__all__ = [
    "MalformedOAIResponse",
    "OAIHarvestError",
    "WindowRestart",
    "ZenodoHarvester",
    "format_oai_datetime",
    "harvest_windows",
    "parse_datacite",
]

log = logging.getLogger(__name__)

OAI_NS = "http://www.openarchives.org/OAI/2.0/"
_OAI = f"{{{OAI_NS}}}"
_OAI_DATETIME = "%Y-%m-%dT%H:%M:%SZ"
# Zenodo keeps the OAI-PMH set lag under an hour: never harvest closer to now than this.
SET_LAG = timedelta(hours=1)
# A token is treated as expired this many seconds before its expirationDate: the page took
# time to travel, and the next request takes time to arrive.
TOKEN_SAFETY_MARGIN = 5.0

# Strict parsing: a truncated or garbled page must fail, not be silently "recovered"
# into fewer records (sickle's own parser uses recover=True).
_STRICT_PARSER = etree.XMLParser(
    recover=False, resolve_entities=False, no_network=True, remove_blank_text=True
)

_GITHUB_TREE_URL = re.compile(
    r"^https?://(?:www\.)?github\.com/(?P<owner>[^/\s]+)/(?P<repo>[^/\s]+)/tree/(?P<tag>\S+?)/?$"
)
_ORCID = re.compile(r"(\d{4}-\d{4}-\d{4}-\d{3}[\dX])$", re.IGNORECASE)

# Zenodo writes SPDX ids in lower case (rightsIdentifier="apache-2.0"); SPDX ids match
# case-insensitively, and these are the canonical spellings of the common ones.
_SPDX_CANONICAL = {
    spdx.lower(): spdx
    for spdx in (
        "0BSD",
        "AFL-3.0",
        "AGPL-3.0-only",
        "AGPL-3.0-or-later",
        "Apache-2.0",
        "Artistic-2.0",
        "BSD-2-Clause",
        "BSD-3-Clause",
        "BSD-3-Clause-Clear",
        "BSD-4-Clause",
        "BSL-1.0",
        "CC-BY-1.0",
        "CC-BY-2.0",
        "CC-BY-3.0",
        "CC-BY-4.0",
        "CC-BY-NC-4.0",
        "CC-BY-NC-ND-4.0",
        "CC-BY-NC-SA-4.0",
        "CC-BY-ND-4.0",
        "CC-BY-SA-3.0",
        "CC-BY-SA-4.0",
        "CC0-1.0",
        "CECILL-2.1",
        "CECILL-B",
        "CECILL-C",
        "ECL-2.0",
        "EPL-1.0",
        "EPL-2.0",
        "EUPL-1.1",
        "EUPL-1.2",
        "GPL-2.0-only",
        "GPL-2.0-or-later",
        "GPL-3.0-only",
        "GPL-3.0-or-later",
        "ISC",
        "LGPL-2.1-only",
        "LGPL-2.1-or-later",
        "LGPL-3.0-only",
        "LGPL-3.0-or-later",
        "LPPL-1.3c",
        "MIT",
        "MIT-0",
        "MPL-1.1",
        "MPL-2.0",
        "MS-PL",
        "NCSA",
        "ODbL-1.0",
        "OFL-1.1",
        "OSL-3.0",
        "PDDL-1.0",
        "PSF-2.0",
        "Python-2.0",
        "Unlicense",
        "UPL-1.0",
        "W3C",
        "WTFPL",
        "Zlib",
        "ZPL-2.1",
        # Deprecated SPDX ids that older deposits still carry.
        "GPL-2.0",
        "GPL-2.0+",
        "GPL-3.0",
        "GPL-3.0+",
        "LGPL-2.1",
        "LGPL-3.0",
        "AGPL-3.0",
    )
}
# Licence URLs seen without an SPDX id, mapped to the SPDX id they denote.
_LICENCE_URLS = {
    "opensource.org/licenses/mit": "MIT",
    "www.apache.org/licenses/license-2.0": "Apache-2.0",
    "creativecommons.org/licenses/by/4.0": "CC-BY-4.0",
    "creativecommons.org/publicdomain/zero/1.0": "CC0-1.0",
    "www.gnu.org/licenses/gpl-3.0": "GPL-3.0-or-later",
    "opensource.org/licenses/bsd-3-clause": "BSD-3-Clause",
}


class WindowRestart(Exception):
    """The window cannot be completed from where it is: harvest it again from page one.

    Raised for ``badResumptionToken`` (an expired or invalid token), a token that expired
    before it could be sent, a page that is not well-formed XML (a truncated answer leaves
    the server-side scroll position unknown), and a page whose cursor shows a skipped page.
    """


class MalformedOAIResponse(WindowRestart):
    """A page that is not well-formed OAI-PMH XML (truncated, garbled, or an HTML page)."""


class OAIHarvestError(ValueError):
    """An OAI-PMH error the harvester cannot recover from; ``code`` is the OAI error code."""

    def __init__(self, code: str, message: str, url: str = "") -> None:
        self.code = code
        self.message = message
        self.url = url
        super().__init__(f"OAI-PMH error {code}: {message or '(no message)'} ({url})")


class _NoRecordsMatch(Exception):
    """Internal signal: the server answered ``noRecordsMatch``."""


# --------------------------------------------------------------------------------------
# Time windows
# --------------------------------------------------------------------------------------


def _utc_second(moment: datetime) -> datetime:
    """``moment`` in UTC, truncated to the second (naive datetimes are taken as UTC)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).replace(microsecond=0)


def format_oai_datetime(moment: datetime) -> str:
    """A full UTC timestamp in OAI-PMH second granularity, e.g. ``2026-04-02T00:00:00Z``."""
    return _utc_second(moment).strftime(_OAI_DATETIME)


def harvest_windows(
    checkpoint: datetime, now: datetime, max_hours: int = 24
) -> list[tuple[datetime, datetime]]:
    """The windows to harvest, from ``checkpoint`` to one hour before ``now``.

    Every bound is a UTC datetime on a whole second; each window lasts at most
    ``max_hours``; window *k+1* starts where window *k* ends. Zenodo's ``from``/``until``
    are inclusive and compare the sub-second ``updated`` time, so sharing the boundary
    second is what guarantees nothing falls between two windows (a record updated at that
    very second comes back twice and the idempotent upsert absorbs it). Empty when the
    checkpoint is already at or past ``now - 1 h``.
    """
    if max_hours <= 0:
        raise ValueError("max_hours must be positive")
    start = _utc_second(checkpoint)
    stop = _utc_second(now) - SET_LAG
    step = timedelta(hours=max_hours)
    windows: list[tuple[datetime, datetime]] = []
    while start < stop:
        end = min(start + step, stop)
        windows.append((start, end))
        start = end
    return windows


# --------------------------------------------------------------------------------------
# DataCite parsing
# --------------------------------------------------------------------------------------


def parse_datacite(record_xml: bytes | str | etree._Element) -> DepositRecord:
    """A :class:`DepositRecord` from one OAI ``<record>`` with DataCite metadata.

    Accepts the ``<record>`` element (as bytes, text or an lxml element) or a whole
    OAI-PMH response (its first record is used). Works for ``oai_datacite`` (the
    ``<resource>`` wrapped in ``<oai_datacite><payload>``) and bare ``datacite``, and for
    any DataCite kernel namespace. The metadata element is kept in ``raw_metadata``, serialised
    as received minus the indentation between elements.
    """
    record = _record_element(record_xml)
    header = record.find(_OAI + "header")
    if header is None:
        raise ValueError("OAI record without a <header>")
    identifier = _text(header.find(_OAI + "identifier"))
    if not identifier:
        raise ValueError("OAI record header without an <identifier>")
    datestamp = _text(header.find(_OAI + "datestamp")) or ""
    set_specs = [_text(s) or "" for s in header.findall(_OAI + "setSpec")]
    deleted = header.get("status") == "deleted"

    deposit = DepositRecord(
        source="zenodo",
        oai_identifier=identifier,
        datestamp=datestamp,
        record_id=identifier.rsplit(":", 1)[-1],
        communities=[s[len("user-") :] for s in set_specs if s.startswith("user-")],
        withdrawn=deleted,
    )
    metadata = record.find(_OAI + "metadata")
    if metadata is None or len(metadata) == 0:
        return deposit
    payload = metadata[0]
    deposit.raw_metadata = etree.tostring(payload, encoding="unicode")
    resource = _find_resource(payload)
    if resource is not None:
        _fill_from_resource(deposit, resource)
    return deposit


def _record_element(record_xml: bytes | str | etree._Element) -> etree._Element:
    if isinstance(record_xml, etree._Element):
        element = record_xml
    else:
        data = record_xml.encode("utf-8") if isinstance(record_xml, str) else record_xml
        try:
            element = etree.fromstring(data, parser=_STRICT_PARSER)
        except etree.XMLSyntaxError as exc:
            raise ValueError(f"record XML is not well-formed: {exc}") from exc
    if element.tag == _OAI + "record":
        return element
    found = element.find(f".//{_OAI}record")
    if found is None:
        raise ValueError(f"no OAI <record> element in {element.tag!r}")
    return found


def _find_resource(payload: etree._Element) -> etree._Element | None:
    """The DataCite ``<resource>``: the payload itself or nested (oai_datacite wrapper)."""
    if etree.QName(payload).localname == "resource":
        return payload
    for element in payload.iter("{*}resource"):
        return element
    return None


def _fill_from_resource(deposit: DepositRecord, resource: etree._Element) -> None:
    namespace = etree.QName(resource).namespace
    ns = f"{{{namespace}}}" if namespace else ""

    def first(path: str) -> etree._Element | None:
        return resource.find(path.replace("d:", ns))

    def every(path: str) -> list[etree._Element]:
        return resource.findall(path.replace("d:", ns))

    for identifier in every("d:identifier"):
        if (identifier.get("identifierType") or "").upper() == "DOI":
            deposit.doi = _text(identifier)
            break
    deposit.version = _text(first("d:version"))
    deposit.title = _main_title(every("d:titles/d:title"))
    deposit.creators = [_creator(c, ns) for c in every("d:creators/d:creator")]
    deposit.licence = _licence(every("d:rightsList/d:rights"))
    for date in every("d:dates/d:date"):
        kind, value = date.get("dateType"), _text(date)
        if kind and value:
            deposit.dates.setdefault(kind, value)
    resource_type = first("d:resourceType")
    if resource_type is not None:
        deposit.resource_type_general = resource_type.get("resourceTypeGeneral") or None

    for related in every("d:relatedIdentifiers/d:relatedIdentifier"):
        entry = {
            "identifier": _text(related) or "",
            "relation_type": related.get("relationType"),
            "identifier_type": related.get("relatedIdentifierType"),
            "resource_type_general": related.get("resourceTypeGeneral"),
        }
        deposit.related.append(entry)
        relation = (entry["relation_type"] or "").lower()
        if relation == "isversionof" and (entry["identifier_type"] or "").upper() == "DOI":
            deposit.concept_doi = deposit.concept_doi or entry["identifier"]
        elif relation == "issupplementto" and deposit.github_repo is None:
            match = _GITHUB_TREE_URL.match(entry["identifier"])
            if match:
                repo = match["repo"].removesuffix(".git")
                deposit.github_repo = f"https://github.com/{match['owner']}/{repo}"
                deposit.github_tag = unquote(match["tag"])


def _main_title(titles: list[etree._Element]) -> str | None:
    """The title without a ``titleType`` (the main one), else the first title."""
    for title in titles:
        if not title.get("titleType") and _text(title):
            return _text(title)
    return _text(titles[0]) if titles else None


# A ROR id: "0" then 6 characters and a 2-digit checksum, bare or as a ror.org URL.
_ROR = re.compile(r"(?:https?://ror\.org/)?(0[a-hj-km-np-tv-z0-9]{6}[0-9]{2})", re.I)


def _creator(element: etree._Element, ns: str) -> Creator:
    name = _text(element.find(ns + "creatorName"))
    if not name:
        given = _text(element.find(ns + "givenName"))
        family = _text(element.find(ns + "familyName"))
        name = ", ".join(part for part in (family, given) if part)
    orcid = None
    for identifier in element.findall(ns + "nameIdentifier"):
        if (identifier.get("nameIdentifierScheme") or "").upper() == "ORCID":
            match = _ORCID.search(_text(identifier) or "")
            if match:
                orcid = match.group(1).upper()
                break
    affiliation_element = element.find(ns + "affiliation")
    affiliation = _text(affiliation_element)
    ror = None
    if affiliation_element is not None and (
        (affiliation_element.get("affiliationIdentifierScheme") or "").upper() == "ROR"
    ):
        match = _ROR.fullmatch((affiliation_element.get("affiliationIdentifier") or "").strip())
        if match:
            ror = f"https://ror.org/{match.group(1).lower()}"
    return Creator(name=name or "", orcid=orcid, affiliation=affiliation, affiliation_ror=ror)


def _licence(rights: list[etree._Element]) -> str | None:
    """The SPDX id of the first licence statement (access-right statements are skipped)."""
    for statement in rights:
        spdx = statement.get("rightsIdentifier")
        if spdx and (statement.get("rightsIdentifierScheme") or "").lower() == "spdx":
            return _SPDX_CANONICAL.get(spdx.lower(), spdx)
    for statement in rights:
        uri = (statement.get("rightsURI") or "").lower()
        key = re.sub(r"^https?://", "", uri).removesuffix("/legalcode").rstrip("/")
        if key in _LICENCE_URLS:
            return _LICENCE_URLS[key]
    return None


def _text(element: etree._Element | None) -> str | None:
    if element is None or element.text is None:
        return None
    return element.text.strip() or None


# --------------------------------------------------------------------------------------
# OAI-PMH through sickle and HttpClient
# --------------------------------------------------------------------------------------


class _ParsedOAIResponse(OAIResponse):
    """An OAIResponse parsed once, strictly (sickle re-parses leniently on each access)."""

    def __init__(self, http_response, params: dict, tree: etree._Element) -> None:
        super().__init__(http_response, params)
        self._tree = tree

    @property
    def xml(self) -> etree._Element:
        return self._tree


class _ZenodoSickle(Sickle):
    """sickle whose requests go through :class:`HttpClient`.

    HttpClient brings retries, backoff, pacing and the identifying User-Agent; 422 is
    accepted because Zenodo sends every OAI error with it. OAI errors are raised here
    with their exact code (sickle maps unknown codes to a code-less OAIError), and a
    resumption token past its expiry date is not sent at all.
    """

    def __init__(self, endpoint: str, client: HttpClient, clock: Callable[[], float]) -> None:
        super().__init__(endpoint, iterator=OAIResponseIterator)
        self._client = client
        self._clock = clock
        self.token_deadline: float | None = None

    def harvest(self, **kwargs: Any) -> _ParsedOAIResponse:
        token = kwargs.get("resumptionToken")
        if token and self.token_deadline is not None and self._clock() >= self.token_deadline:
            raise WindowRestart("the resumption token expired before the next page was asked for")
        response = self._client.get(self.endpoint, params=kwargs, accept_status=frozenset({422}))
        received = self._clock()
        try:
            tree = etree.fromstring(response.content, parser=_STRICT_PARSER)
        except etree.XMLSyntaxError as exc:
            raise MalformedOAIResponse(
                f"HTTP {response.status_code} page is not well-formed XML ({exc}); "
                f"{len(response.content)} bytes from {response.url}"
            ) from exc
        if tree.tag != _OAI + "OAI-PMH":
            raise MalformedOAIResponse(
                f"HTTP {response.status_code} answer is not OAI-PMH (root {tree.tag!r}) "
                f"from {response.url}"
            )
        error = tree.find(_OAI + "error")
        if error is not None:
            self._raise_oai_error(error, bool(token), response.url)
        if response.status_code != 200:
            raise OAIHarvestError(
                f"http{response.status_code}", "HTTP error without an OAI error", response.url
            )
        self.token_deadline = _token_deadline(tree, received)
        return _ParsedOAIResponse(response, kwargs, tree)

    @staticmethod
    def _raise_oai_error(error: etree._Element, with_token: bool, url: str) -> None:
        code = error.get("code") or "unknown"
        message = (error.text or "").strip()
        if code == "noRecordsMatch" and not with_token:
            raise _NoRecordsMatch()
        if code == "badResumptionToken":
            raise WindowRestart(f"badResumptionToken: {message}")
        if code == "noRecordsMatch":
            # The previous page promised more records: the list changed under the scroll.
            raise WindowRestart("noRecordsMatch on a resumption page: the list ended early")
        raise OAIHarvestError(code, message, url)


def _token_deadline(tree: etree._Element, received: float) -> float | None:
    """When (on the local clock) the page's resumption token stops being valid.

    Measured from the server's own responseDate, so clock skew does not matter, less
    ``TOKEN_SAFETY_MARGIN``.
    """
    token = tree.find(f"{_OAI}ListRecords/{_OAI}resumptionToken")
    if token is None or not (token.text or "").strip() or not token.get("expirationDate"):
        return None
    try:
        expires = _parse_oai_datetime(token.get("expirationDate"))
        responded = _parse_oai_datetime(_text(tree.find(_OAI + "responseDate")) or "")
    except ValueError:
        return None
    return received + (expires - responded).total_seconds() - TOKEN_SAFETY_MARGIN


def _parse_oai_datetime(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


class ZenodoHarvester:
    """Harvests Zenodo's software deposits: metadata by OAI-PMH window, files by REST.

    ``client`` serves OAI-PMH requests and, unless ``rest_client`` is given, REST ones
    (Zenodo paces the two differently: 30 OAI and 60 REST requests per minute).
    ``max_restarts`` is how many times a window is harvested again from its first page
    after a :class:`WindowRestart` before the exception is passed on.
    """

    def __init__(
        self,
        client: HttpClient,
        *,
        oai_url: str = "https://zenodo.org/oai2d",
        api_url: str = "https://zenodo.org/api",
        metadata_prefix: str = "oai_datacite",
        set_spec: str | None = "software",
        rest_client: HttpClient | None = None,
        max_restarts: int = 2,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.rest_client = rest_client or client
        self.oai_url = oai_url
        self.api_url = api_url.rstrip("/")
        self.metadata_prefix = metadata_prefix
        self.set_spec = set_spec
        self.max_restarts = max_restarts
        self._clock = clock
        self.restarts = 0  # windows restarted since this harvester was made
        self.skipped_records = 0  # records without a usable header, logged and left out

    # -- OAI-PMH ------------------------------------------------------------------------

    def harvest_window(self, start: datetime, end: datetime) -> tuple[list[DepositRecord], int]:
        """Every record of ``[start, end]`` and the number of pages of the attempt kept.

        All pages are fetched before returning (tokens expire after about 120 s); each
        page is parsed as it arrives and its XML dropped. An empty window
        (``noRecordsMatch``) gives ``([], 1)``. Records are deduplicated on
        (OAI identifier, datestamp). Raises :class:`WindowRestart` when the window still
        fails after ``max_restarts`` restarts, :class:`OAIHarvestError` for other OAI
        errors, and HttpClient's ``HttpError`` when the server cannot be reached.
        """
        attempt = 0
        while True:
            try:
                return self._harvest_once(start, end)
            except WindowRestart as exc:
                if attempt >= self.max_restarts:
                    raise
                attempt += 1
                self.restarts += 1
                log.warning(
                    "restarting window %s..%s (%d/%d): %s",
                    format_oai_datetime(start),
                    format_oai_datetime(end),
                    attempt,
                    self.max_restarts,
                    exc,
                )

    def _harvest_once(self, start: datetime, end: datetime) -> tuple[list[DepositRecord], int]:
        params = {"metadataPrefix": self.metadata_prefix}
        if self.set_spec:
            params["set"] = self.set_spec
        params["from"] = format_oai_datetime(start)
        params["until"] = format_oai_datetime(end)
        sickle = _ZenodoSickle(self.oai_url, self.client, self._clock)
        try:
            pages = sickle.ListRecords(**params)
        except _NoRecordsMatch:
            return [], 1
        records: list[DepositRecord] = []
        seen: set[tuple[str, str]] = set()
        received = 0  # records on the pages so far, duplicates included
        page_count = 0
        for page in pages:
            page_count += 1
            _check_cursor(pages.resumption_token, received)
            for element in page.xml.iterfind(f"{_OAI}ListRecords/{_OAI}record"):
                received += 1
                try:
                    record = parse_datacite(element)
                except ValueError as exc:
                    # One broken record must not block the window (and the checkpoint) forever.
                    self.skipped_records += 1
                    log.warning("skipping an unparsable record on page %d: %s", page_count, exc)
                    continue
                key = (record.oai_identifier, record.datestamp)
                if key not in seen:
                    seen.add(key)
                    records.append(record)
        return records, page_count

    # -- REST ---------------------------------------------------------------------------

    def fetch_files(self, record: DepositRecord) -> DepositRecord:
        """``record`` with its files and ``swh`` field from ``GET {api_url}/records/{id}``.

        A 410 answer marks the record withdrawn and keeps the tombstone; it is not retried.
        Other 4xx answers raise HttpClient's ``HttpError``.
        """
        url = f"{self.api_url}/records/{record.record_id}"
        response = self.rest_client.get(
            url, headers={"Accept": "application/json"}, accept_status=frozenset({410}),
            expect_json=True,
        )
        body = _json_or_none(response)
        if response.status_code == 410:
            record.withdrawn = True
            record.files = []
            if isinstance(body, dict):
                record.tombstone = body.get("tombstone") or body
            else:
                record.tombstone = {"status": 410, "message": response.text[:500]}
            return record
        if not isinstance(body, dict):
            raise ValueError(f"record {record.record_id}: the REST answer is not a JSON object")
        record.files = _file_refs(body.get("files"), f"{url}/files")
        swh = body.get("swh")
        record.swh = swh if isinstance(swh, dict) and swh else None
        record.withdrawn = False
        record.tombstone = None
        return record


def _check_cursor(token: Any, received_before_page: int) -> None:
    """A page's cursor must equal the records received before it; else a page was lost.

    This catches a resumption request that was retried after the server had already
    advanced its scroll (the retry then returns the page after the lost one).
    """
    if token is None or token.cursor is None:
        return
    try:
        cursor = int(token.cursor)
    except ValueError:
        return
    if cursor != received_before_page:
        raise WindowRestart(
            f"page cursor {cursor} but {received_before_page} records received before it: "
            "a page was skipped"
        )


def _json_or_none(response: Any) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def _file_refs(files: Any, files_url: str) -> list[FileRef]:
    """FileRefs from the ``files`` of a REST record, legacy or InvenioRDM shape.

    Legacy JSON (Zenodo's default): a list of ``{key, size, checksum, links: {self}}``
    where ``links.self`` is the content URL. InvenioRDM JSON: ``{"entries": {key: {...}}}``
    (or a list) with ``links.content``. Without links the content URL is built from the key.
    """
    if isinstance(files, dict):
        entries = files.get("entries") or []
        files = list(entries.values()) if isinstance(entries, dict) else entries
    refs: list[FileRef] = []
    for entry in files or []:
        if not isinstance(entry, dict) or not entry.get("key"):
            continue
        key = str(entry["key"])
        links = entry.get("links") or {}
        url = links.get("content") or links.get("self") or f"{files_url}/{key}/content"
        refs.append(
            FileRef(
                key=key,
                size=_size(entry.get("size")),
                checksum=entry.get("checksum") or None,
                url=url,
            )
        )
    return refs


def _size(value: Any) -> int | None:
    """A byte count from JSON (int or digit string), None when absent or malformed."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None
