"""Zenodo harvester: DataCite parsing, time windows, OAI-PMH paging and faults, REST files.

Everything runs against tests.replay_server.ReplayServer (real HTTP on 127.0.0.1) serving
responses recorded from zenodo.org (tests/fixtures/zenodo, see SOURCES.md). Multi-page
answers are built from copies of the recorded page, edited in memory. HttpClient gets a
sleep that only records, so backoff and Retry-After cost no time.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta, timezone

import pytest
from conftest import FIXTURES
from hypothesis import given
from hypothesis import strategies as st
from lxml import etree
from replay_server import ReplayServer, Reply

from harvester.http import HttpClient, HttpError
from harvester.records import Creator, DepositRecord, FileRef
from harvester.zenodo import (
    MalformedOAIResponse,
    OAIHarvestError,
    WindowRestart,
    ZenodoHarvester,
    format_oai_datetime,
    harvest_windows,
    parse_datacite,
)

ZENODO = FIXTURES / "zenodo"
OAI = "{http://www.openarchives.org/OAI/2.0/}"
RECORDED_PAGE = (ZENODO / "oai_list_records_datacite_page1.xml").read_bytes()
RDMO_RECORD = (ZENODO / "oai_get_record_datacite_software_github_10357859.xml").read_bytes()
NO_RECORDS_MATCH = (ZENODO / "oai_error_noRecordsMatch_http422.xml").read_bytes()
BAD_RESUMPTION_TOKEN = (ZENODO / "oai_error_badResumptionToken_http422.xml").read_bytes()
BAD_ARGUMENT = (ZENODO / "oai_error_badArgument_http422.xml").read_bytes()
# The 50 header identifiers of the recorded page, in the order Zenodo sent them.
RECORDED_IDS = [
    m.decode()
    for m in re.findall(rb"<identifier>(oai:zenodo\.org:\d+)</identifier>", RECORDED_PAGE)
]
XML = {"Content-Type": "text/xml; charset=utf-8"}
# Zenodo sends Retry-After on every OAI answer, 200 included: it must not cause waits there.
ZENODO_200 = {**XML, "Retry-After": "60"}

WINDOW = (datetime(2026, 8, 12, tzinfo=UTC), datetime(2026, 8, 13, tzinfo=UTC))
FIRST_QUERY = {
    "verb": "ListRecords",
    "metadataPrefix": "oai_datacite",
    "set": "software",
    "from": "2026-08-12T00:00:00Z",
    "until": "2026-08-13T00:00:00Z",
}


# --------------------------------------------------------------------------------------
# Helpers: pages edited from the recorded one, a server, a client that never sleeps
# --------------------------------------------------------------------------------------


def oai_page(
    start: int,
    stop: int,
    *,
    token: str | None = None,
    cursor: int | None = None,
    expiration: str | None = None,
    wrap: bool = True,
) -> bytes:
    """Records ``start:stop`` of the recorded page, with the resumption token set.

    ``token=None`` gives the empty token element Zenodo puts on the last page. ``wrap``
    puts each ``<resource>`` in the oai_datacite envelope served for ``oai_datacite``.
    """
    tree = etree.fromstring(RECORDED_PAGE)
    list_records = tree.find(OAI + "ListRecords")
    for index, record in enumerate(list_records.findall(OAI + "record")):
        if not start <= index < stop:
            list_records.remove(record)
        elif wrap:
            _wrap_oai_datacite(record)
    element = list_records.find(OAI + "resumptionToken")
    element.text = token
    element.set("cursor", str(start if cursor is None else cursor))
    if expiration is not None:
        element.set("expirationDate", expiration)
    return etree.tostring(tree, xml_declaration=True, encoding="UTF-8")


def _wrap_oai_datacite(record: etree._Element) -> None:
    metadata = record.find(OAI + "metadata")
    resource = metadata[0]
    ns = "{http://schema.datacite.org/oai/oai-1.1/}"
    envelope = etree.SubElement(metadata, ns + "oai_datacite", nsmap={None: ns[1:-1]})
    etree.SubElement(envelope, ns + "schemaVersion").text = "4.5"
    etree.SubElement(envelope, ns + "datacentreSymbol").text = "CERN.ZENODO"
    payload = etree.SubElement(envelope, ns + "payload")
    payload.append(resource)  # moves it


THREE_PAGES = {
    "first": oai_page(0, 20, token="tok-2"),
    "tok-2": oai_page(20, 40, token="tok-3"),
    "tok-3": oai_page(40, 50, token=None),
}


@pytest.fixture
def server():
    with ReplayServer() as replay:
        yield replay


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def harvester(server, sleeps):
    return make_harvester(server, sleeps)


def make_harvester(server: ReplayServer, sleeps: list[float], **options) -> ZenodoHarvester:
    client = HttpClient(
        user_agent="reproscore-tests (mailto:tests@example.org)",
        timeout=(2.0, 0.5),
        max_attempts=4,
        sleep=sleeps.append,
    )
    return ZenodoHarvester(
        client, oai_url=server.url + "/oai2d", api_url=server.url + "/api", **options
    )


def serve_pages(server: ReplayServer, pages: dict[str, list[Reply] | Reply]) -> None:
    """Route the first request and each token request to their replies."""
    for key, replies in pages.items():
        replies = replies if isinstance(replies, list) else [replies]
        query = {"metadataPrefix": "oai_datacite"} if key == "first" else {"resumptionToken": key}
        server.add("GET", "/oai2d", *replies, query=query)


def ok(body: bytes) -> Reply:
    return Reply(200, body=body, headers=ZENODO_200)


def oai_queries(server: ReplayServer) -> list[dict]:
    return [r["query"] for r in server.requests_for("/oai2d")]


def token_query(token: str) -> dict:
    return {"verb": "ListRecords", "resumptionToken": token}


# --------------------------------------------------------------------------------------
# DataCite parsing, from the recorded records
# --------------------------------------------------------------------------------------


def test_parse_github_release_record():
    record = parse_datacite(RDMO_RECORD)

    assert record.source == "zenodo"
    assert record.oai_identifier == "oai:zenodo.org:10357859"
    assert record.datestamp == "2023-12-11T17:26:46Z"
    assert record.record_id == "10357859"
    assert record.doi == "10.5281/zenodo.10357859"
    assert record.concept_doi == "10.5281/zenodo.596581"
    assert record.version == "2.1.0"
    assert record.title == "Research Data Management Organiser (RDMO)"
    assert record.licence == "Apache-2.0"
    assert record.dates == {"Issued": "2023-12-11", "Updated": "2023-12-11"}
    assert record.communities == ["rdmo"]
    assert record.github_repo == "https://github.com/rdmorganiser/rdmo"
    assert record.github_tag == "2.1.0"
    assert record.resource_type_general == "Software"
    assert record.withdrawn is False
    assert len(record.creators) == 9
    assert record.creators[0] == Creator("Klar, Jochen", "0000-0002-5883-4273", None)
    assert record.creators[3] == Creator("Schröder, Max", "0000-0003-1522-494X", None)
    assert record.creators[6] == Creator("Martínez Muñoz, David", None, None)
    assert record.related == [
        {
            "identifier": "https://github.com/rdmorganiser/rdmo/tree/2.1.0",
            "relation_type": "IsSupplementTo",
            "identifier_type": "URL",
            "resource_type_general": "Software",
        },
        {
            "identifier": "10.5281/zenodo.596581",
            "relation_type": "IsVersionOf",
            "identifier_type": "DOI",
            "resource_type_general": None,
        },
        {
            "identifier": "https://zenodo.org/communities/rdmo/",
            "relation_type": "IsPartOf",
            "identifier_type": "URL",
            "resource_type_general": None,
        },
    ]
    raw = etree.fromstring(record.raw_metadata)
    assert raw.tag == "{http://datacite.org/schema/kernel-4}resource"
    assert raw.findtext("{http://datacite.org/schema/kernel-4}version") == "2.1.0"


def test_parse_oai_datacite_envelope_gives_the_same_fields():
    bare = parse_datacite(RDMO_RECORD)
    tree = etree.fromstring(RDMO_RECORD)
    _wrap_oai_datacite(tree.find(f".//{OAI}record"))
    wrapped = parse_datacite(etree.tostring(tree))

    assert wrapped.raw_metadata.startswith(
        '<oai_datacite xmlns="http://schema.datacite.org/oai/oai-1.1/"'
    )
    assert {**vars(wrapped), "raw_metadata": ""} == {**vars(bare), "raw_metadata": ""}


def test_parse_every_record_of_the_recorded_page():
    records = [
        parse_datacite(element) for element in etree.fromstring(RECORDED_PAGE).iter(OAI + "record")
    ]

    assert [r.oai_identifier for r in records] == RECORDED_IDS
    assert len(records) == 50
    # Dryad deposits keep their Dryad DOI; every other record has its Zenodo DOI.
    assert {r.record_id: r.doi for r in records if not r.doi.startswith("10.5281/")} == {
        "8433037": "10.5061/dryad.cz8w9gj8q",
        "8436014": "10.5061/dryad.9w0vt4bnc",
        "8437424": "10.5061/dryad.fxpnvx0zm",
        "8436593": "10.5061/dryad.n8pk0p303",
        "8436036": "10.5061/dryad.bcc2fqzk0",
        "8435629": "10.5061/dryad.931zcrjs4",
        "8436654": "10.5061/dryad.0zpc86746",
        "8434673": "10.5061/dryad.qz612jmng",
    }
    assert all(r.doi == "10.5281/zenodo." + r.record_id for r in records if "dryad" not in r.doi)
    software = [r.record_id for r in records if r.resource_type_general == "Software"]
    assert software == ["8434414", "8433354", "8434592", "8406062"]

    lion = next(r for r in records if r.record_id == "8406062")
    assert lion.communities == ["dryad"]
    assert lion.licence == "MIT"
    assert lion.concept_doi == "10.5281/zenodo.8406061"
    assert lion.version is None
    assert lion.github_repo is None and lion.github_tag is None
    assert lion.creators[0] == Creator(
        "Aglissi, Janvier", "0000-0002-2496-7481", "Université d'Abomey-Calavi"
    )
    assert lion.creators[1] == Creator(
        "A. Etotépé, Sogbohossou", None, "Université d'Abomey-Calavi"
    )
    assert [r["relation_type"] for r in lion.related] == ["IsCitedBy", "IsSourceOf", "IsVersionOf"]

    figures = next(r for r in records if r.record_id == "8434414")
    assert figures.licence == "CC-BY-4.0"
    assert figures.version == "V1.1"
    assert figures.communities == []
    assert figures.dates == {"Issued": "2023-10-11", "Updated": "2023-10-12"}


def test_parse_rejects_truncated_record():
    with pytest.raises(ValueError, match="not well-formed"):
        parse_datacite(RDMO_RECORD[:3000])


def test_licence_from_url_when_no_spdx_id():
    xml = RDMO_RECORD.replace(b'rightsIdentifierScheme="spdx" rightsIdentifier="apache-2.0"', b"")
    assert parse_datacite(xml).licence == "Apache-2.0"


def test_record_row_round_trip():
    record = parse_datacite(RDMO_RECORD)
    record.files = [FileRef("rdmorganiser/rdmo-2.1.0.zip", 1234, "md5:" + "a" * 32, "http://x/y")]
    record.swh = {"swhid": "swh:1:dir:" + "0" * 40}
    row = record.to_row()

    assert json.loads(json.dumps(row)) == row  # JSON-able
    assert all(not isinstance(v, list | dict) for v in row.values())  # flat
    assert row["communities"] == '["rdmo"]'
    assert row["withdrawn"] is False
    assert DepositRecord.from_row(row) == record
    assert record.files[0].md5 == "a" * 32


# --------------------------------------------------------------------------------------
# Windows
# --------------------------------------------------------------------------------------


def test_windows_example():
    checkpoint = datetime(2026, 8, 10, 22, 30, 15, 999_999, tzinfo=UTC)
    now = datetime(2026, 8, 12, 9, 0, 0, 500, tzinfo=UTC)

    assert [
        (format_oai_datetime(a), format_oai_datetime(b))
        for a, b in harvest_windows(checkpoint, now)
    ] == [
        ("2026-08-10T22:30:15Z", "2026-08-11T22:30:15Z"),
        ("2026-08-11T22:30:15Z", "2026-08-12T08:00:00Z"),
    ]
    assert harvest_windows(now - timedelta(minutes=59), now) == []
    assert len(harvest_windows(checkpoint, now, max_hours=6)) == 6


moments = st.datetimes(
    min_value=datetime(2014, 1, 1),
    max_value=datetime(2030, 1, 1),
    timezones=st.sampled_from(
        [UTC, timezone(timedelta(hours=-7)), timezone(timedelta(hours=5, minutes=30))]
    ),
)


@given(
    checkpoint=moments,
    span=st.timedeltas(min_value=timedelta(0), max_value=timedelta(days=9)),
    max_hours=st.integers(min_value=1, max_value=48),
)
def test_windows_are_contiguous_and_cover_checkpoint_to_an_hour_ago(checkpoint, span, max_hours):
    now = checkpoint + span
    windows = harvest_windows(checkpoint, now, max_hours=max_hours)
    start = checkpoint.astimezone(UTC).replace(microsecond=0)
    stop = now.astimezone(UTC).replace(microsecond=0) - timedelta(hours=1)

    if start >= stop:
        assert windows == []
        return
    assert windows[0][0] == start
    assert windows[-1][1] == stop
    for (_, b), (c, _) in zip(windows, windows[1:], strict=False):
        assert b == c  # contiguous: no gap, and no overlap beyond the shared boundary
    for a, b in windows:
        assert a.tzinfo == UTC and b.tzinfo == UTC
        assert a.microsecond == 0 and b.microsecond == 0
        assert timedelta(0) < b - a <= timedelta(hours=max_hours)
    assert all(b - a == timedelta(hours=max_hours) for a, b in windows[:-1])


# --------------------------------------------------------------------------------------
# OAI-PMH paging and faults
# --------------------------------------------------------------------------------------


def test_pages_with_resumption_tokens(server, harvester, sleeps):
    serve_pages(server, {key: ok(body) for key, body in THREE_PAGES.items()})

    records, pages = harvester.harvest_window(*WINDOW)

    assert pages == 3
    assert [r.oai_identifier for r in records] == RECORDED_IDS
    assert oai_queries(server) == [FIRST_QUERY, token_query("tok-2"), token_query("tok-3")]
    assert records[0].raw_metadata.startswith("<oai_datacite")
    assert sleeps == []  # Retry-After on a 200 is not a request to wait
    user_agents = {r["headers"]["User-Agent"] for r in server.requests}
    assert user_agents == {"reproscore-tests (mailto:tests@example.org)"}


def test_no_records_match_is_an_empty_window(server, harvester):
    serve_pages(server, {"first": Reply(422, body=NO_RECORDS_MATCH, headers=XML)})

    assert harvester.harvest_window(*WINDOW) == ([], 1)
    assert oai_queries(server) == [FIRST_QUERY]


def test_bad_argument_raises_with_the_oai_code(server, harvester):
    serve_pages(server, {"first": Reply(422, body=BAD_ARGUMENT, headers=XML)})

    with pytest.raises(OAIHarvestError) as caught:
        harvester.harvest_window(*WINDOW)
    assert caught.value.code == "badArgument"
    assert caught.value.message == "metadataPrefix does not exist"
    assert len(server.requests) == 1  # not retried


def test_bad_argument_mid_window_raises(server, harvester):
    serve_pages(
        server,
        {
            "first": ok(THREE_PAGES["first"]),
            "tok-2": Reply(422, body=BAD_ARGUMENT, headers=XML),
        },
    )

    with pytest.raises(OAIHarvestError, match="badArgument"):
        harvester.harvest_window(*WINDOW)
    assert oai_queries(server) == [FIRST_QUERY, token_query("tok-2")]


def test_bad_resumption_token_mid_window_restarts_the_window(server, harvester):
    serve_pages(
        server,
        {
            "first": ok(THREE_PAGES["first"]),
            "tok-2": [Reply(422, body=BAD_RESUMPTION_TOKEN, headers=XML), ok(THREE_PAGES["tok-2"])],
            "tok-3": ok(THREE_PAGES["tok-3"]),
        },
    )

    records, pages = harvester.harvest_window(*WINDOW)

    assert [r.oai_identifier for r in records] == RECORDED_IDS
    assert pages == 3
    assert harvester.restarts == 1
    assert oai_queries(server) == [
        FIRST_QUERY,
        token_query("tok-2"),  # refused: start again from page one
        FIRST_QUERY,
        token_query("tok-2"),
        token_query("tok-3"),
    ]


def test_bad_resumption_token_passed_on_when_restarts_run_out(server, sleeps):
    harvester = make_harvester(server, sleeps, max_restarts=1)
    serve_pages(
        server,
        {
            "first": ok(THREE_PAGES["first"]),
            "tok-2": Reply(422, body=BAD_RESUMPTION_TOKEN, headers=XML),
        },
    )

    with pytest.raises(WindowRestart, match="badResumptionToken: The value of the resumptionToken"):
        harvester.harvest_window(*WINDOW)
    assert len(server.requests) == 4  # two attempts of two requests each


def test_no_records_match_mid_window_restarts(server, sleeps):
    harvester = make_harvester(server, sleeps, max_restarts=0)
    serve_pages(
        server,
        {
            "first": ok(THREE_PAGES["first"]),
            "tok-2": Reply(422, body=NO_RECORDS_MATCH, headers=XML),
        },
    )

    with pytest.raises(WindowRestart, match="ended early"):
        harvester.harvest_window(*WINDOW)


def test_token_expired_before_use_is_not_sent(server, harvester):
    recorded_response_date = "2026-08-13T18:18:48Z"  # the expiry equals the response time
    serve_pages(
        server,
        {
            "first": [
                ok(oai_page(0, 20, token="tok-2", expiration=recorded_response_date)),
                ok(THREE_PAGES["first"]),
            ],
            "tok-2": ok(THREE_PAGES["tok-2"]),
            "tok-3": ok(THREE_PAGES["tok-3"]),
        },
    )

    records, pages = harvester.harvest_window(*WINDOW)

    assert len(records) == 50 and pages == 3
    assert oai_queries(server) == [
        FIRST_QUERY,
        FIRST_QUERY,
        token_query("tok-2"),
        token_query("tok-3"),
    ]


def test_token_expiry_measured_on_the_local_clock(server, sleeps):
    # The token lives 120 s from the server's responseDate; the harvester is slower than that.
    ticks = iter([0.0, 121.0, 200.0, 210.0, 220.0, 230.0])
    harvester = make_harvester(server, sleeps, max_restarts=0, clock=lambda: next(ticks))
    serve_pages(server, {key: ok(body) for key, body in THREE_PAGES.items()})

    with pytest.raises(WindowRestart, match="expired before"):
        harvester.harvest_window(*WINDOW)
    assert oai_queries(server) == [FIRST_QUERY]


def test_skipped_page_detected_by_cursor(server, sleeps):
    harvester = make_harvester(server, sleeps, max_restarts=0)
    serve_pages(
        server,
        {
            "first": ok(THREE_PAGES["first"]),
            # the server's scroll moved on: the answer to tok-2 is the page after it
            "tok-2": ok(oai_page(40, 50, token=None)),
        },
    )

    with pytest.raises(WindowRestart, match="cursor 40 but 20 records"):
        harvester.harvest_window(*WINDOW)


def test_429_waits_for_retry_after(server, harvester, sleeps):
    serve_pages(
        server,
        {
            "first": ok(THREE_PAGES["first"]),
            "tok-2": [
                Reply(429, body=b"Too Many Requests", headers={"Retry-After": "7"}),
                ok(THREE_PAGES["tok-2"]),
            ],
            "tok-3": ok(THREE_PAGES["tok-3"]),
        },
    )

    records, pages = harvester.harvest_window(*WINDOW)

    assert len(records) == 50 and pages == 3
    assert sleeps == [7.0]
    assert oai_queries(server) == [
        FIRST_QUERY,
        token_query("tok-2"),
        token_query("tok-2"),
        token_query("tok-3"),
    ]


def test_503_is_retried_with_backoff(server, harvester, sleeps):
    serve_pages(
        server,
        {
            "first": [Reply(503, body=b"Service Unavailable"), ok(THREE_PAGES["first"])],
            "tok-2": ok(THREE_PAGES["tok-2"]),
            "tok-3": ok(THREE_PAGES["tok-3"]),
        },
    )

    records, _ = harvester.harvest_window(*WINDOW)

    assert len(records) == 50
    assert len(sleeps) == 1 and 1.0 <= sleeps[0] <= 2.0  # backoff_base 1 s + jitter < 1 s
    assert oai_queries(server) == [
        FIRST_QUERY,
        FIRST_QUERY,
        token_query("tok-2"),
        token_query("tok-3"),
    ]


def test_503_until_attempts_run_out_raises_http_error(server, harvester):
    serve_pages(server, {"first": Reply(503, body=b"Service Unavailable")})

    with pytest.raises(HttpError) as caught:
        harvester.harvest_window(*WINDOW)
    assert caught.value.status == 503
    assert len(server.requests) == 4


def test_connection_reset_is_retried(server, harvester):
    serve_pages(
        server,
        {
            "first": ok(THREE_PAGES["first"]),
            "tok-2": [Reply(reset=True), ok(THREE_PAGES["tok-2"])],
            "tok-3": ok(THREE_PAGES["tok-3"]),
        },
    )

    records, _ = harvester.harvest_window(*WINDOW)

    assert [r.oai_identifier for r in records] == RECORDED_IDS
    assert oai_queries(server).count(token_query("tok-2")) == 2


def test_read_timeout_is_retried(server, harvester):
    serve_pages(
        server,
        {
            "first": [
                Reply(delay=1.5, body=THREE_PAGES["first"], headers=ZENODO_200),
                ok(THREE_PAGES["first"]),
            ],
            "tok-2": ok(THREE_PAGES["tok-2"]),
            "tok-3": ok(THREE_PAGES["tok-3"]),
        },
    )

    records, _ = harvester.harvest_window(*WINDOW)

    assert [r.oai_identifier for r in records] == RECORDED_IDS
    assert oai_queries(server).count(FIRST_QUERY) == 2


def test_body_cut_short_of_content_length_is_retried(server, harvester):
    serve_pages(
        server,
        {
            "first": ok(THREE_PAGES["first"]),
            "tok-2": [
                Reply(200, body=THREE_PAGES["tok-2"], headers=ZENODO_200, truncate=5000),
                ok(THREE_PAGES["tok-2"]),
            ],
            "tok-3": ok(THREE_PAGES["tok-3"]),
        },
    )

    records, _ = harvester.harvest_window(*WINDOW)

    assert [r.oai_identifier for r in records] == RECORDED_IDS
    assert oai_queries(server).count(token_query("tok-2")) == 2


def test_truncated_xml_restarts_the_window(server, harvester):
    # A complete HTTP answer whose XML stops mid-record: never parsed leniently.
    serve_pages(
        server,
        {
            "first": ok(THREE_PAGES["first"]),
            "tok-2": [ok(THREE_PAGES["tok-2"][:5000]), ok(THREE_PAGES["tok-2"])],
            "tok-3": ok(THREE_PAGES["tok-3"]),
        },
    )

    records, pages = harvester.harvest_window(*WINDOW)

    assert [r.oai_identifier for r in records] == RECORDED_IDS
    assert pages == 3 and harvester.restarts == 1
    assert oai_queries(server) == [
        FIRST_QUERY,
        token_query("tok-2"),
        FIRST_QUERY,
        token_query("tok-2"),
        token_query("tok-3"),
    ]


def test_html_answer_is_malformed(server, sleeps):
    harvester = make_harvester(server, sleeps, max_restarts=0)
    serve_pages(server, {"first": Reply(200, body=b"<html><body>Maintenance</body></html>")})

    with pytest.raises(MalformedOAIResponse, match="not OAI-PMH"):
        harvester.harvest_window(*WINDOW)


def test_duplicate_records_in_a_window_are_kept_once(server, harvester):
    serve_pages(
        server,
        {
            "first": ok(oai_page(0, 30, token="tok-2")),
            "tok-2": ok(oai_page(20, 50, token=None, cursor=30)),  # records 20..29 come twice
        },
    )

    records, pages = harvester.harvest_window(*WINDOW)

    assert pages == 2
    assert [r.oai_identifier for r in records] == RECORDED_IDS


# --------------------------------------------------------------------------------------
# REST: files, swh, 410
# --------------------------------------------------------------------------------------

# Shapes from notes/zenodo.md §3 (legacy JSON, Zenodo's default); size and checksum invented.
LEGACY_RECORD = {
    "id": 10357859,
    "conceptrecid": "596581",
    "doi": "10.5281/zenodo.10357859",
    "files": [
        {
            "id": "0f4b3b5e-0000-4000-8000-000000000001",
            "key": "rdmorganiser/rdmo-2.1.0.zip",
            "size": 3145728,
            "checksum": "md5:0123456789abcdef0123456789abcdef",
            "links": {
                "self": "https://zenodo.org/api/records/10357859/files/rdmorganiser/rdmo-2.1.0.zip/content"
            },
        }
    ],
    "swh": {
        "swhid": "swh:1:dir:c6f07d6c6b1e4b6e9e1d7b7d7c6f07d6c6b1e4b6;origin=https://github.com/rdmorganiser/rdmo"
    },
    "status": "published",
}


def test_fetch_files_legacy_json(server, harvester):
    server.add(
        "GET",
        "/api/records/10357859",
        Reply(200, body=json.dumps(LEGACY_RECORD), headers={"Content-Type": "application/json"}),
    )

    record = harvester.fetch_files(parse_datacite(RDMO_RECORD))

    assert record.files == [
        FileRef(
            key="rdmorganiser/rdmo-2.1.0.zip",
            size=3145728,
            checksum="md5:0123456789abcdef0123456789abcdef",
            url="https://zenodo.org/api/records/10357859/files/rdmorganiser/rdmo-2.1.0.zip/content",
        )
    ]
    assert record.swh == LEGACY_RECORD["swh"]
    assert record.withdrawn is False
    assert server.requests[0]["headers"]["Accept"] == "application/json"


def test_fetch_files_inveniordm_json(server, harvester):
    body = {
        "id": "4924875",
        "files": {
            "enabled": True,
            "count": 1,
            "entries": {
                "store.zip": {
                    "key": "store.zip",
                    "size": 780,
                    "checksum": "md5:7008231125631739b64720d1526619ae",
                    "links": {
                        "self": "https://zenodo.org/api/records/4924875/files/store.zip",
                        "content": "https://zenodo.org/api/records/4924875/files/store.zip/content",
                    },
                }
            },
        },
        "swh": {},
    }
    server.add("GET", "/api/records/4924875", Reply(200, body=json.dumps(body)))
    record = DepositRecord("zenodo", "oai:zenodo.org:4924875", "2021-06-11T10:00:00Z", "4924875")

    harvester.fetch_files(record)

    assert record.files == [
        FileRef(
            "store.zip",
            780,
            "md5:7008231125631739b64720d1526619ae",
            "https://zenodo.org/api/records/4924875/files/store.zip/content",
        )
    ]
    assert record.swh is None  # an empty swh object says nothing


def test_fetch_files_410_marks_withdrawn_and_keeps_tombstone(server, harvester, sleeps):
    tombstone = {
        "removal_reason": {"id": "spam"},
        "note": "",
        "removal_date": "2026-05-01T10:00:00",
        "citation_text": "Klar, J. (2023). RDMO.",
        "is_visible": True,
    }
    server.add(
        "GET",
        "/api/records/10357859",
        Reply(
            410,
            body=json.dumps({"status": 410, "message": "Record deleted", "tombstone": tombstone}),
        ),
    )

    record = harvester.fetch_files(parse_datacite(RDMO_RECORD))

    assert record.withdrawn is True
    assert record.tombstone == tombstone
    assert record.files == []
    assert len(server.requests) == 1 and sleeps == []  # not retried


def test_fetch_files_404_raises(server, harvester):
    server.add("GET", "/api/records/10357859", Reply(404, body=b'{"status": 404}'))

    with pytest.raises(HttpError) as caught:
        harvester.fetch_files(parse_datacite(RDMO_RECORD))
    assert caught.value.status == 404


def test_unknown_oai_error_keeps_its_code(server, harvester):
    body = BAD_ARGUMENT.replace(b'code="badArgument"', b'code="cannotDisseminateFormat"')
    serve_pages(server, {"first": Reply(422, body=body, headers=XML)})

    with pytest.raises(OAIHarvestError) as caught:
        harvester.harvest_window(*WINDOW)
    assert caught.value.code == "cannotDisseminateFormat"


def test_without_a_set_the_set_argument_is_not_sent(server, sleeps):
    harvester = make_harvester(server, sleeps, set_spec=None, metadata_prefix="datacite")
    server.add("GET", "/oai2d", ok(oai_page(0, 50, token=None, wrap=False)))

    records, pages = harvester.harvest_window(*WINDOW)

    assert (len(records), pages) == (50, 1)
    assert oai_queries(server) == [
        {
            "verb": "ListRecords",
            "metadataPrefix": "datacite",
            "from": "2026-08-12T00:00:00Z",
            "until": "2026-08-13T00:00:00Z",
        }
    ]


def test_fetch_files_410_without_json_body(server, harvester):
    server.add("GET", "/api/records/10357859", Reply(410, body="Gone"))

    record = harvester.fetch_files(parse_datacite(RDMO_RECORD))

    assert record.withdrawn is True
    assert record.tombstone == {"status": 410, "message": "Gone"}


def test_record_without_identifier_is_skipped_not_fatal(server, harvester):
    page = oai_page(0, 3, token=None).replace(
        f"<identifier>{RECORDED_IDS[1]}</identifier>".encode(), b"", 1
    )
    server.add("GET", "/oai2d", ok(page))

    records, _ = harvester.harvest_window(*WINDOW)

    assert [r.oai_identifier for r in records] == [RECORDED_IDS[0], RECORDED_IDS[2]]
    assert harvester.skipped_records == 1
