"""Software Heritage Web API client: Link pagination, visits without a snapshot, alias
HEAD, deposit releases and legacy deposit revisions, deposit metadata, 429 with the JSON
reason, rate-limit headers running out, discovery, and a bearer token that never leaks.

Everything runs against tests.replay_server.ReplayServer (real HTTP on 127.0.0.1)
serving responses Software Heritage developers recorded from the live API
(tests/fixtures/swh, see SOURCES.md). The recordings have no headers, so the tests add
the ``Link`` and ``X-RateLimit-*`` headers themselves, and split or edit the recorded
bodies in memory where a case needs it. HttpClient gets a sleep that only records.
"""

from __future__ import annotations

import copy
import json
import logging
from datetime import UTC, datetime, timedelta
from urllib.parse import quote, unquote

import pytest
from conftest import FIXTURES
from replay_server import ReplayServer, Reply

from harvester.http import HttpClient, HttpError
from harvester.records import DepositRecord
from harvester.swh import (
    Discovery,
    ResolutionError,
    RootResolution,
    SwhClient,
    SwhError,
    origin_to_record,
    parse_deposit_metadata,
)

SWH = FIXTURES / "swh"
API = "/api/1"
LIVE_API = "https://archive.softwareheritage.org/api/1/"
JSON_TYPE = {"Content-Type": "application/json"}
TOKEN = "eyJhbGciOiJIUzI1NiJ9.refresh-token-for-tests.c2VjcmV0"
NOW = 1_800_000_000.0  # fixed Unix time for X-RateLimit-Reset arithmetic

CHAIN = json.loads((SWH / "deposit_hal_chain.json").read_text())
HAL_XML = (SWH / "deposit_hal_codemeta.xml").read_bytes()
HAL_ORIGIN = "https://hal.archives-ouvertes.fr/hal-01883795"
HAL_DIR = "7057a716afab8ca80728aa7c6c2cc4bd03b0f45b"
NIXPKGS = "https://github.com/NixOS/nixpkgs"
RUST_SNAPSHOT = "02db117fef22434f1658b833a756775ca6effed0"
RUST_RELEASE = "874f7cbe352033cac5a8bc889847da2fe1d13e9f"  # 1.42.0
RUST_REVISION = "b8cedc00407a4c56a3bda1ed605c6fc166655447"
RUST_DIR = "c6dcbe9711ea6d5a31429a833a3d0c59cbbb2578"


def load(name: str):
    return json.loads((SWH / name).read_text())


# --------------------------------------------------------------------------------------
# Helpers: a server, a client that never sleeps, JSON replies with the server's own URLs
# --------------------------------------------------------------------------------------


@pytest.fixture
def server():
    with ReplayServer() as replay:
        yield replay


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def http(sleeps):
    with HttpClient(
        user_agent="reproscore-tests",
        max_attempts=3,
        backoff_base=0.5,
        backoff_max=60,
        sleep=sleeps.append,
        clock=lambda: 0.0,
        now=lambda: NOW,
    ) as client:
        yield client


@pytest.fixture
def swh(server, http):
    return SwhClient(http, api_url=f"{server.url}{API}/", token=TOKEN)


def reply(server: ReplayServer, body, *, status: int = 200, headers: dict | None = None) -> Reply:
    """A JSON reply whose absolute API URLs point at the replay server, as a real server's would."""
    text = json.dumps(body).replace(LIVE_API, f"{server.url}{API}/")
    return Reply(status, text, {**JSON_TYPE, **(headers or {})})


def link_next(server: ReplayServer, path_and_query: str) -> dict[str, str]:
    return {"Link": f'<{server.url}{API}/{path_and_query}>; rel="next"'}


def serve_chain(server: ReplayServer, *keys: str) -> None:
    """Serve recorded HAL deposit responses, keyed by their API path."""
    for key in keys:
        path = key.split("?", 1)[0]
        server.add("GET", f"{API}/{path}", reply(server, CHAIN[key]))


def rust_snapshot() -> dict:
    return load("snapshot.json")


def serve_rust_chain(server: ReplayServer) -> None:
    server.add("GET", f"{API}/release/{RUST_RELEASE}/", reply(server, load("release.json")))
    server.add("GET", f"{API}/revision/{RUST_REVISION}/", reply(server, load("revision.json")))


def paths(server: ReplayServer) -> list[str]:
    return [r["path"] for r in server.requests]


# --------------------------------------------------------------------------------------
# Visits
# --------------------------------------------------------------------------------------


def test_latest_visit_skips_null_snapshots_across_link_pages(server, swh):
    visits = load("origin_visits.json")  # 49..44 partial with snapshot null, then 43 full
    base = f"{API}/origin/{NIXPKGS}"
    server.add("GET", f"{base}/visit/latest/", reply(server, visits[0]))  # no snapshot
    server.add(
        "GET",
        f"{base}/visits/",
        reply(server, visits[:6], headers=link_next(server, f"origin/{NIXPKGS}/visits/?last_visit=44&per_page=100")),
        query={"per_page": "100"},
    )
    server.add("GET", f"{base}/visits/", reply(server, visits[6:]), query={"last_visit": "44", "per_page": "100"})

    visit = swh.latest_visit(NIXPKGS)

    assert visit["visit"] == 43
    assert visit["status"] == "full"
    assert visit["snapshot"] == "c5d63cd27b09068b1f6913a90dfe44f1276091c2"
    latest, page1, page2 = server.requests
    assert latest["query"] == {"require_snapshot": "true"}
    assert page1["query"] == {"per_page": "100"}
    assert page2["query"] == {"last_visit": "44", "per_page": "100"}  # the Link, as given


def test_latest_visit_used_as_is_when_it_has_a_snapshot(server, swh):
    recorded = load("origin_visit_latest.json")
    server.add("GET", f"{API}/origin/{NIXPKGS}/visit/latest/", reply(server, recorded))
    assert swh.latest_visit(NIXPKGS)["snapshot"] == recorded["snapshot"]
    assert len(server.requests) == 1


def test_latest_visit_none_for_unknown_origin_or_no_usable_visit(server, swh):
    server.add("GET", f"{API}/origin/https://example.org/gone/visit/latest/", Reply(404, b"{}", JSON_TYPE))
    assert swh.latest_visit("https://example.org/gone") is None

    visits = load("origin_visits.json")[:6]  # all without a snapshot, no next page
    ongoing = {**load("origin_visit_latest.json"), "status": "ongoing"}
    server.add("GET", f"{API}/origin/{NIXPKGS}/visit/latest/", reply(server, ongoing))
    server.add("GET", f"{API}/origin/{NIXPKGS}/visits/", reply(server, visits))
    assert swh.latest_visit(NIXPKGS) is None


# --------------------------------------------------------------------------------------
# Snapshot → HEAD → release / revision → directory
# --------------------------------------------------------------------------------------


def test_alias_head_resolved_through_release_and_revision(server, swh):
    snapshot = rust_snapshot()
    branches = snapshot["branches"]
    branches["HEAD"] = {"target": "refs/tags/1.42.0", "target_type": "alias"}
    branches["refs/tags/1.42.0"] = {"target": RUST_RELEASE, "target_type": "release"}
    names = sorted(branches)  # "HEAD" sorts first; the tag lives on the second page
    first = {**snapshot, "branches": {n: branches[n] for n in names[:10]}, "next_branch": names[10]}
    tag_only = {**snapshot, "branches": {"refs/tags/1.42.0": branches["refs/tags/1.42.0"]}}
    path = f"{API}/snapshot/{RUST_SNAPSHOT}/"
    server.add(
        "GET", path, reply(server, first, headers=link_next(server, f"snapshot/{RUST_SNAPSHOT}/?branches_from={names[10]}"))
    )
    server.add("GET", path, reply(server, tag_only), query={"branches_from": "refs/tags/1.42.0"})
    serve_rust_chain(server)

    resolution = swh.resolve_root(f"swh:1:snp:{RUST_SNAPSHOT}")

    assert resolution == RootResolution(
        snapshot=RUST_SNAPSHOT,
        branch="refs/tags/1.42.0",
        target_type="release",
        target=RUST_RELEASE,
        directory=RUST_DIR,
        release=RUST_RELEASE,
        revision=RUST_REVISION,
        alias="HEAD",
    )
    assert resolution.swhid == f"swh:1:dir:{RUST_DIR}"
    # The alias target was asked for by name, not by reading every page.
    snapshot_queries = [r["query"] for r in server.requests_for(path)]
    assert snapshot_queries == [{}, {"branches_from": "refs/tags/1.42.0", "branches_count": "1"}]


def test_snapshot_pages_followed_through_link_until_a_default_branch(server, swh):
    snapshot = rust_snapshot()  # no HEAD: refs/heads/master is the default
    snapshot["branches"]["refs/heads/master"] = {"target": RUST_REVISION, "target_type": "revision"}
    names = sorted(snapshot["branches"])
    cut = names.index("refs/heads/master")  # master opens the second page
    page1 = {**snapshot, "branches": {n: snapshot["branches"][n] for n in names[:cut]}, "next_branch": names[cut]}
    page2 = {**snapshot, "branches": {n: snapshot["branches"][n] for n in names[cut:]}, "next_branch": None}
    path = f"{API}/snapshot/{RUST_SNAPSHOT}/"
    server.add(
        "GET", path, reply(server, page1, headers=link_next(server, f"snapshot/{RUST_SNAPSHOT}/?branches_from={names[cut]}"))
    )
    server.add("GET", path, reply(server, page2), query={"branches_from": names[cut]})
    serve_rust_chain(server)

    resolution = swh.resolve_root(RUST_SNAPSHOT)

    assert (resolution.branch, resolution.alias, resolution.target_type) == ("refs/heads/master", None, "revision")
    assert (resolution.release, resolution.revision, resolution.directory) == (None, RUST_REVISION, RUST_DIR)
    assert [r["query"] for r in server.requests_for(path)] == [{}, {"branches_from": "refs/heads/master"}]


def test_deposit_release_targets_a_directory(server, swh):
    visits = f"origin/{HAL_ORIGIN}/visits/"
    server.add("GET", f"{API}/origin/{HAL_ORIGIN}/visit/latest/", reply(server, CHAIN[visits][0]))
    serve_chain(
        server,
        "snapshot/e59379a4f88c297066e964703893c23b08264ec8/",
        "release/fc8e44c5bb3fabe81e5ebe46ac013a2510271616/",
    )

    visit = swh.latest_visit(HAL_ORIGIN)
    resolution = swh.resolve_root(visit["snapshot"])

    assert visit["type"] == "deposit"
    assert resolution == RootResolution(
        snapshot="e59379a4f88c297066e964703893c23b08264ec8",
        branch="HEAD",
        target_type="release",
        target="fc8e44c5bb3fabe81e5ebe46ac013a2510271616",
        directory=HAL_DIR,
        release="fc8e44c5bb3fabe81e5ebe46ac013a2510271616",
    )
    assert not any("/revision/" in p or "/directory/" in p for p in paths(server))


def test_legacy_deposit_master_branch_to_revision(server, swh):
    serve_chain(
        server,
        "snapshot/fd1b8fc1bdd3ebeac913eb6dd377a646a3149747/",
        "revision/66ff08f00acc06131fe610be0f9878a6c78bfe44/",
    )
    resolution = swh.resolve_root("fd1b8fc1bdd3ebeac913eb6dd377a646a3149747")
    assert resolution.branch == "master"
    assert resolution.target_type == "revision"
    assert resolution.revision == "66ff08f00acc06131fe610be0f9878a6c78bfe44"
    assert resolution.release is None
    assert resolution.swhid == "swh:1:dir:70c73de7d406938315d6cf30bf87bb9eb480017e"


@pytest.mark.parametrize(
    ("branches", "message"),
    [
        ({"HEAD": {"target": "61d3c9e1157203f0c4ed5165608d92294eaca808", "target_type": "content"}}, "content"),
        ({"HEAD": {"target": "HEAD", "target_type": "alias"}}, "alias chain"),
        ({"HEAD": None}, "points nowhere"),
        ({"refs/heads/a": {"target": RUST_REVISION, "target_type": "revision"},
          "refs/heads/b": {"target": RUST_REVISION, "target_type": "revision"}}, "no HEAD"),
    ],
    ids=["content", "alias-cycle", "dangling", "no-default"],
)
def test_snapshots_without_a_tree_are_refused(server, swh, branches, message):
    snapshot = {"id": RUST_SNAPSHOT, "branches": branches, "next_branch": None}
    server.add("GET", f"{API}/snapshot/{RUST_SNAPSHOT}/", reply(server, snapshot))
    with pytest.raises(ResolutionError, match=message):
        swh.resolve_root(RUST_SNAPSHOT)


def test_directory_listing_and_identifier_checks(server, swh):
    listing = load("directory_with_submodules.json")
    server.add("GET", f"{API}/directory/80ae84abc6122c47aae597fde99645f8663d1aba/", reply(server, listing))
    entries = swh.directory("swh:1:dir:80ae84abc6122c47aae597fde99645f8663d1aba")
    assert {e["type"] for e in entries} == {"file", "dir", "rev"}
    for bad in ("../../admin", "swh:1:rev:80ae84abc6122c47aae597fde99645f8663d1aba", "80ae84"):
        with pytest.raises(ValueError):
            swh.directory(bad)
    assert len(server.requests) == 1  # nothing malformed reached the network


# --------------------------------------------------------------------------------------
# Deposit metadata and records
# --------------------------------------------------------------------------------------


def serve_hal_metadata(server: ReplayServer) -> None:
    swhid = f"swh:1:dir:{HAL_DIR}"
    authorities = f"raw-extrinsic-metadata/swhid/{swhid}/authorities/"
    listing_key = next(k for k in CHAIN if k.startswith(f"raw-extrinsic-metadata/swhid/{swhid}/?"))
    blob_key = next(k for k in CHAIN if k.startswith("raw-extrinsic-metadata/get/"))
    server.add("GET", f"{API}/{authorities}", reply(server, CHAIN[authorities]))
    server.add(
        "GET",
        f"{API}/raw-extrinsic-metadata/swhid/{swhid}/",
        reply(server, CHAIN[listing_key]),
        query={"authority": "deposit_client https://hal.archives-ouvertes.fr/"},
    )
    server.add(
        "GET", f"{API}/{blob_key.split('?')[0]}", Reply(200, HAL_XML, {"Content-Type": "application/octet-stream"})
    )


def test_deposit_metadata_from_the_deposit_client_authority(server, swh):
    serve_hal_metadata(server)
    found = swh.deposit_metadata(f"swh:1:dir:{HAL_DIR}")
    assert len(found) == 1
    entry, xml = found[0]
    assert entry["format"] == "sword-v2-atom-codemeta-v2"
    assert entry["origin"] == HAL_ORIGIN
    assert xml == HAL_XML
    # The "registry" authority is not a deposit client: never listed.
    assert not any("registry" in json.dumps(r["query"]) for r in server.requests)


def test_no_deposit_metadata_for_a_plain_directory(server, swh):
    server.add("GET", f"{API}/raw-extrinsic-metadata/swhid/swh:1:dir:{RUST_DIR}/authorities/", reply(server, []))
    assert swh.deposit_metadata(RUST_DIR) == []


def test_parse_deposit_metadata_of_the_hal_entry():
    meta = parse_deposit_metadata(HAL_XML)
    assert meta["title"] == "libszdist"
    assert meta["authors"] == [{"name": "D. Picard", "affiliation": "LPC; LaMP", "orcid": None}]
    assert meta["licence"] == "GNU GPLv3"
    assert {"scheme": "HAL-ID", "value": "hal-01883795"} in meta["identifiers"]
    assert meta["dates"] == {"Created": "2021-01-01", "Issued": "2023-03-16", "Updated": "2023-03-24"}
    assert meta["version"] == "v.0.11.1"
    assert meta["code_repository"] == "https://forge.clermont-universite.fr/git/libszdist"
    assert meta["origin"] == HAL_ORIGIN
    assert meta["doi"] is None
    assert meta["raw_xml"] == HAL_XML.decode()


def test_parse_deposit_metadata_spdx_doi_orcid_and_hostile_xml(tmp_path):
    xml = b"""<entry xmlns="http://www.w3.org/2005/Atom"
        xmlns:codemeta="https://doi.org/10.5063/SCHEMA/CODEMETA-2.0">
      <title>Atom title</title>
      <codemeta:license><codemeta:url>https://spdx.org/licenses/BSD-3-Clause</codemeta:url></codemeta:license>
      <codemeta:identifier>https://doi.org/10.5281/zenodo.13375878</codemeta:identifier>
      <codemeta:author>
        <codemeta:givenName>Ada</codemeta:givenName><codemeta:familyName>Lovelace</codemeta:familyName>
        <codemeta:affiliation><codemeta:name>Analytical Engines</codemeta:name></codemeta:affiliation>
        <codemeta:identifier>https://orcid.org/0000-0002-1825-009x</codemeta:identifier>
      </codemeta:author>
    </entry>"""
    meta = parse_deposit_metadata(xml)
    assert meta["title"] == "Atom title"
    assert meta["licence"] == "BSD-3-Clause"
    assert meta["doi"] == "10.5281/zenodo.13375878"
    assert meta["authors"] == [{"name": "Ada Lovelace", "affiliation": "Analytical Engines", "orcid": "0000-0002-1825-009X"}]

    secret = tmp_path / "secret.txt"
    secret.write_text("do-not-read")
    hostile = f"""<!DOCTYPE e [<!ENTITY x SYSTEM "file://{secret}">]>
    <entry xmlns="http://www.w3.org/2005/Atom"><title>&x;</title></entry>""".encode()
    assert "do-not-read" not in json.dumps(parse_deposit_metadata(hostile))
    with pytest.raises(ValueError, match="not well-formed"):
        parse_deposit_metadata(b"<entry><title>cut")


def test_origin_to_record_for_a_deposit_visit():
    visit = CHAIN[f"origin/{HAL_ORIGIN}/visits/"][0]
    resolution = RootResolution(
        snapshot="e59379a4f88c297066e964703893c23b08264ec8",
        branch="HEAD",
        target_type="release",
        target="fc8e44c5bb3fabe81e5ebe46ac013a2510271616",
        directory=HAL_DIR,
        release="fc8e44c5bb3fabe81e5ebe46ac013a2510271616",
    )
    record = origin_to_record(HAL_ORIGIN, visit, resolution, parse_deposit_metadata(HAL_XML))

    assert (record.source, record.record_id, record.oai_identifier) == ("swh", HAL_ORIGIN, f"swh:{HAL_ORIGIN}")
    assert record.datestamp == "2023-03-29T12:12:08.960810+00:00"
    assert record.title == "libszdist"
    assert [c.name for c in record.creators] == ["D. Picard"]
    assert record.licence == "GNU GPLv3"
    assert record.raw_metadata == HAL_XML.decode()
    assert record.swh["swhid"] == f"swh:1:dir:{HAL_DIR}"
    assert record.swh["snapshot"] == "swh:1:snp:e59379a4f88c297066e964703893c23b08264ec8"
    assert record.swh["release"] == "swh:1:rel:fc8e44c5bb3fabe81e5ebe46ac013a2510271616"
    assert (record.swh["visit"], record.swh["visit_type"]) == (2, "deposit")
    # The row round-trips through the store's representation.
    assert DepositRecord.from_row(record.to_row()) == record


def test_origin_to_record_for_a_watched_git_origin():
    visit = load("origin_visit_latest.json")
    resolution = RootResolution(RUST_SNAPSHOT, "refs/heads/master", "revision", RUST_REVISION, RUST_DIR, revision=RUST_REVISION, alias="HEAD")
    record = origin_to_record(NIXPKGS, visit, resolution, None)
    assert record.title is None and record.raw_metadata == ""
    assert record.github_repo == NIXPKGS
    assert record.swh["alias"] == "HEAD" and "release" not in record.swh


# --------------------------------------------------------------------------------------
# Discovery
# --------------------------------------------------------------------------------------


def test_deposits_since_pages_with_overlap_and_deduplication(server, swh):
    origins = load("origin_search.json")
    discovery = Discovery(page_size=2)
    after = datetime(2026, 8, 12, tzinfo=UTC)
    query = discovery.deposit_query(after, timedelta(hours=2))
    assert query == (
        'visit_type = [deposit] and last_eventful_visit > "2026-08-11T22:00:00Z"'
        " and sort_by = [-last_eventful_visit] and limit = 2"
    )
    path = f"{API}/origin/search/{quote(query, safe=':/')}/"
    rel = path.removeprefix(f"{API}/")
    server.add("GET", path, reply(server, origins[:2], headers=link_next(server, f"{rel}?page_token=b2&limit=2&use_ql=true")))
    # The index moved between pages: the second page repeats an origin of the first.
    server.add(
        "GET", path, reply(server, [origins[1], origins[2]], headers=link_next(server, f"{rel}?page_token=b3&limit=2&use_ql=true")),
        query={"page_token": "b2"},
    )
    server.add("GET", path, reply(server, origins[3:]), query={"page_token": "b3"})

    found = discovery.deposits_since(swh, after, overlap=timedelta(hours=2))

    assert found == [o["url"] for o in origins]
    first = server.requests[0]
    assert unquote(first["path"]) == f"{API}/origin/search/{query}/"
    assert first["query"] == {"limit": "2", "use_ql": "true", "with_visit": "true"}
    assert [r["query"].get("page_token") for r in server.requests] == [None, "b2", "b3"]


def test_pagination_loop_is_an_error(server, swh):
    path = f"{API}/origin/search/python/"
    server.add("GET", path, reply(server, [{"url": "x"}], headers=link_next(server, "origin/search/python/?page_token=t")))
    server.add("GET", path, reply(server, [{"url": "y"}], headers=link_next(server, "origin/search/python/?page_token=t")), query={"page_token": "t"})
    with pytest.raises(SwhError, match="loops"):
        list(swh.search_origins("python", use_ql=False))


def test_watch_list_and_origins_linked_from_zenodo(tmp_path):
    watch = tmp_path / "origins.txt"
    watch.write_text(f"# watched\n{HAL_ORIGIN}\n\n  {NIXPKGS}  \n{HAL_ORIGIN}\nhttps://example.org/repo#main\n")
    assert Discovery.read_origins_file(watch) == [HAL_ORIGIN, NIXPKGS, "https://example.org/repo#main"]

    zenodo = DepositRecord(
        source="zenodo", oai_identifier="oai:zenodo.org:1", datestamp="2026-01-01T00:00:00Z", record_id="1",
        github_repo="https://github.com/rdmorganiser/rdmo",
        swh={"swhid": "swh:1:dir:" + "0" * 40 + ";origin=https://github.com/rdmorganiser/rdmo;visit=swh:1:snp:" + "1" * 40},
    )
    other = DepositRecord(
        source="zenodo", oai_identifier="oai:zenodo.org:2", datestamp="2026-01-01T00:00:00Z", record_id="2",
        swh={"swhid": "swh:1:dir:" + "2" * 40 + ";origin=https://gitlab.com/a/b%3Bc"},
    )
    plain = DepositRecord(source="zenodo", oai_identifier="oai:zenodo.org:3", datestamp="x", record_id="3")
    assert Discovery.linked_origins([zenodo, other, plain]) == [
        "https://github.com/rdmorganiser/rdmo",
        "https://gitlab.com/a/b;c",
    ]


# --------------------------------------------------------------------------------------
# Throttling: 429 with the JSON reason, rate-limit headers running out
# --------------------------------------------------------------------------------------

THROTTLED = {"exception": "Throttled", "reason": "Request was throttled. Expected available in 7 seconds."}


def test_429_waits_the_seconds_in_the_json_reason(server, swh, http, sleeps):
    path = f"{API}/directory/{RUST_DIR}/"
    server.add("GET", path, reply(server, THROTTLED, status=429), reply(server, load("directory.json")))
    assert len(swh.directory(RUST_DIR)) == 19
    assert sleeps == [7.0]
    assert http.stats["retries"] == 1


def test_rate_limit_headers_running_down_to_zero_pace_requests(server, swh, sleeps):
    path = f"{API}/directory/{RUST_DIR}/"
    listing = load("directory.json")
    reset = str(int(NOW) + 30)

    def limited(remaining: int) -> Reply:
        headers = {"X-RateLimit-Limit": "120", "X-RateLimit-Remaining": str(remaining), "X-RateLimit-Reset": reset}
        return reply(server, listing, headers=headers)

    server.add("GET", path, limited(2), limited(1), limited(0), reply(server, listing))
    for _ in range(4):
        swh.directory(RUST_DIR)
    # 2 left for 30 s: one every 15 s; then 1 left: 30 s; then none: wait for the reset.
    assert sleeps == [15.0, 30.0, 30.0]


def test_post_json_retries_a_throttled_cooking_request(server, http, sleeps):
    # No trailing slash on the API URL, and no sleep of its own: it waits through the HTTP client's.
    swh = SwhClient(http, api_url=f"{server.url}{API}", token=TOKEN)
    swhid = "swh:1:dir:977fc4b98c0e85816348cebd3b12026407c368b6"
    path = f"{API}/vault/flat/{swhid}/"
    server.add("POST", path, reply(server, THROTTLED, status=429), reply(server, load("vault_flat_cooking.json")))
    task = swh.post_json(f"vault/flat/{swhid}/")
    assert task["status"] == "pending"
    assert task["fetch_url"] == f"{server.url}{API}/vault/flat/{swhid}/raw/"
    assert sleeps == [7.0]
    assert all(r["headers"]["Authorization"] == f"Bearer {TOKEN}" for r in server.requests)

    server.add("POST", f"{API}/vault/flat/bad/", Reply(400, b'{"reason": "bad swhid"}', JSON_TYPE))
    with pytest.raises(HttpError) as failure:
        swh.post_json("vault/flat/bad/")
    assert failure.value.status == 400


# --------------------------------------------------------------------------------------
# The bearer token: sent to the API only, never in logs, repr or exceptions
# --------------------------------------------------------------------------------------


def _exception_text(exc: BaseException) -> str:
    texts = []
    while exc is not None:
        texts += [str(exc), repr(exc), repr(exc.args), repr(vars(exc))]
        exc = exc.__cause__ or exc.__context__
    return "\n".join(texts)


def test_token_is_sent_but_never_logged_repr_or_raised(server, swh, http, caplog):
    caplog.set_level(logging.DEBUG)  # urllib3 and requests log every request at DEBUG
    server.add("GET", f"{API}/directory/{RUST_DIR}/", reply(server, load("directory.json")))
    server.add("GET", f"{API}/directory/{'0' * 40}/", Reply(404, b'{"exception": "NotFoundExc"}', JSON_TYPE))
    server.add("GET", f"{API}/directory/{'1' * 40}/", reply(server, THROTTLED, status=429))
    server.add("GET", f"{API}/directory/{'2' * 40}/", Reply(200, b"<html>maintenance</html>", {"Content-Type": "text/html"}))
    server.add("POST", f"{API}/vault/flat/x/", Reply(503, b"{}", JSON_TYPE))

    swh.directory(RUST_DIR)
    failures = []
    for call in (
        lambda: swh.directory("0" * 40),  # 404
        lambda: swh.directory("1" * 40),  # 429 until the client gives up
        lambda: swh.directory("2" * 40),  # not JSON
        lambda: swh.post_json("vault/flat/x/"),  # 503 until the client gives up
    ):
        with pytest.raises((HttpError, SwhError)) as caught:
            call()
        failures.append(caught.value)

    assert server.requests[0]["headers"]["Authorization"] == f"Bearer {TOKEN}"
    assert caplog.records, "DEBUG logging was captured"
    assert TOKEN not in caplog.text
    for failure in failures:
        assert TOKEN not in _exception_text(failure)
    assert TOKEN not in repr(swh) and TOKEN not in str(swh)
    assert TOKEN not in repr(vars(swh))
    assert TOKEN not in repr(copy.copy(swh).__dict__)
    assert "token" in repr(swh)  # says it is authenticated, without the value


def test_token_not_sent_to_another_host(server, swh):
    with ReplayServer() as elsewhere:
        elsewhere.add("GET", "/page2", reply(elsewhere, [{"url": "b"}]))
        server.add("GET", f"{API}/origin/search/x/", reply(server, [{"url": "a"}], headers={"Link": f'<{elsewhere.url}/page2>; rel="next"'}))
        assert [o["url"] for o in swh.search_origins("x", use_ql=False)] == ["a", "b"]
        assert "Authorization" in server.requests[0]["headers"]
        assert "Authorization" not in elsewhere.requests[0]["headers"]


def test_anonymous_client_and_malformed_token(server, http):
    anonymous = SwhClient(http, api_url=f"{server.url}{API}/", token="  ")
    server.add("GET", f"{API}/directory/{RUST_DIR}/", reply(server, []))
    anonymous.directory(RUST_DIR)
    assert "Authorization" not in server.requests[0]["headers"]
    assert not anonymous.authenticated and "anonymous" in repr(anonymous)

    with pytest.raises(ValueError) as bad:
        SwhClient(http, api_url=f"{server.url}{API}/", token=TOKEN + "\nX-Injected: 1")
    assert TOKEN not in _exception_text(bad.value)
