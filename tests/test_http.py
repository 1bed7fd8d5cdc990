"""HttpClient against a real HTTP server on 127.0.0.1: retries, server hints, pacing.

Time is faked: ``FakeTime.sleep`` records each wait and advances the fake clocks instead
of sleeping, so every computed wait is asserted exactly and the tests do not wait.
"""

from __future__ import annotations

import email.utils
import json
import socket
import threading
import time

import pytest
import requests
from replay_server import ReplayServer, Reply

from harvester.http import HttpClient, HttpError, parse_retry_after, user_agent

EPOCH = 1_800_000_000  # fake Unix time at the start of every test


class FakeTime:
    """Monotonic and wall clocks that move only when the client sleeps (or we say so)."""

    def __init__(self) -> None:
        self.elapsed = 0.0
        self.sleeps: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.elapsed += seconds

    def clock(self) -> float:
        return 100.0 + self.elapsed

    def now(self) -> float:
        return EPOCH + self.elapsed


@pytest.fixture
def server():
    with ReplayServer() as srv:
        yield srv


@pytest.fixture
def fake_time():
    return FakeTime()


def make_client(fake_time: FakeTime, **overrides) -> HttpClient:
    options = dict(
        user_agent="reproscore-test/1 (+mailto:test@example.org)",
        timeout=(2.0, 2.0),
        max_attempts=4,
        backoff_base=0.0,  # no jitter either: waits are exactly the server's hints
        sleep=fake_time.sleep,
        clock=fake_time.clock,
        now=fake_time.now,
    )
    options.update(overrides)
    return HttpClient(**options)


# -- identity ----------------------------------------------------------------------------


def test_user_agent_names_the_project_and_the_contact():
    from scoring import __version__

    assert user_agent("team@example.org") == f"reproscore/{__version__} (mailto:team@example.org)"
    assert user_agent(None) == f"reproscore/{__version__}"


def test_every_request_carries_the_user_agent_and_params(server, fake_time):
    server.add("GET", "/oai2d", Reply(200, body="<OAI-PMH/>"))
    client = make_client(fake_time)
    response = client.get(server.url + "/oai2d", params={"verb": "Identify"})
    assert response.text == "<OAI-PMH/>"
    (seen,) = server.requests
    assert seen["headers"]["User-Agent"] == "reproscore-test/1 (+mailto:test@example.org)"
    assert seen["query"] == {"verb": "Identify"}
    assert client.stats == {"requests": 1, "retries": 0, "waited_seconds": 0.0}


# -- transient failures are retried ------------------------------------------------------


def test_connection_reset_is_retried(server, fake_time):
    server.add("GET", "/r", Reply(reset=True), Reply(reset=True), Reply(200, body="ok"))
    client = make_client(fake_time)
    assert client.get(server.url + "/r").text == "ok"
    assert len(server.requests) == 3
    assert client.stats["requests"] == 3 and client.stats["retries"] == 2


def test_read_timeout_is_retried(server, fake_time):
    server.add("GET", "/slow", Reply(200, body="late", delay=2.0), Reply(200, body="ok"))
    client = make_client(fake_time, timeout=(2.0, 0.2))
    assert client.get(server.url + "/slow").text == "ok"
    assert client.stats["retries"] == 1


def test_truncated_body_is_retried(server, fake_time):
    server.add("GET", "/t", Reply(200, body=b"<x>" * 100, truncate=10), Reply(200, body="<x/>"))
    client = make_client(fake_time)
    assert client.get(server.url + "/t").text == "<x/>"
    assert client.stats["retries"] == 1


def test_503_is_retried_with_exponential_backoff_and_jitter(server, fake_time):
    server.add("GET", "/busy", Reply(503), Reply(503), Reply(503), Reply(200, body="ok"))
    client = make_client(fake_time, backoff_base=1.0, backoff_max=300.0)
    assert client.get(server.url + "/busy").text == "ok"
    first, second, third = fake_time.sleeps
    # base * 2**(n-1) plus up to one base of jitter
    assert 1.0 <= first <= 2.0 and 2.0 <= second <= 3.0 and 4.0 <= third <= 5.0
    assert client.stats["waited_seconds"] == pytest.approx(first + second + third)


def test_backoff_is_capped(server, fake_time):
    server.add("GET", "/busy", Reply(502))
    client = make_client(fake_time, backoff_base=10.0, backoff_max=15.0, max_attempts=4)
    with pytest.raises(HttpError):
        client.get(server.url + "/busy")
    assert fake_time.sleeps[1:] == [15.0, 15.0]
    assert 10.0 <= fake_time.sleeps[0] <= 15.0


def test_exhausted_attempts_raise_with_the_last_status(server, fake_time):
    server.add("GET", "/down", Reply(500, body="boom"))
    client = make_client(fake_time, max_attempts=3)
    with pytest.raises(HttpError) as caught:
        client.get(server.url + "/down")
    assert caught.value.status == 500
    assert caught.value.url == server.url + "/down"
    assert "after 3 attempts" in caught.value.reason and "HTTP 500" in caught.value.reason
    assert len(server.requests) == 3


def test_unreachable_host_gives_up_with_no_status(fake_time):
    # A port nobody listens on: connect is refused every time.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = make_client(fake_time, max_attempts=2)
    with pytest.raises(HttpError) as caught:
        client.get(f"http://127.0.0.1:{port}/")
    assert caught.value.status is None
    assert "ConnectionError" in caught.value.reason


# -- the server's word on when to come back ----------------------------------------------


def test_429_retry_after_seconds_is_honoured_exactly(server, fake_time):
    server.add("GET", "/oai2d", Reply(429, headers={"Retry-After": "7"}), Reply(200, body="ok"))
    client = make_client(fake_time, backoff_base=1.0)
    assert client.get(server.url + "/oai2d").text == "ok"
    assert fake_time.sleeps == [7.0]
    assert client.stats == {"requests": 2, "retries": 1, "waited_seconds": 7.0}


def test_429_retry_after_http_date_is_honoured_exactly(server, fake_time):
    when = email.utils.formatdate(EPOCH + 30, usegmt=True)
    server.add("GET", "/oai2d", Reply(429, headers={"Retry-After": when}), Reply(200, body="ok"))
    client = make_client(fake_time, backoff_base=1.0)
    assert client.get(server.url + "/oai2d").text == "ok"
    assert fake_time.sleeps == [30.0]


def test_503_retry_after_is_honoured(server, fake_time):
    server.add("GET", "/api", Reply(503, headers={"Retry-After": "3"}), Reply(200, body="ok"))
    client = make_client(fake_time, backoff_base=1.0)
    client.get(server.url + "/api")
    assert fake_time.sleeps == [3.0]


def test_software_heritage_throttle_reason_is_honoured(server, fake_time):
    body = json.dumps(
        {
            "exception": "Throttled",
            "reason": "Request was throttled. Expected available in 12 seconds.",
        }
    )
    server.add(
        "GET",
        "/api/1/origin/search/x/",
        Reply(429, body=body, headers={"Content-Type": "application/json"}),
        Reply(200, body="[]"),
    )
    client = make_client(fake_time, backoff_base=1.0)
    client.get(server.url + "/api/1/origin/search/x/")
    assert fake_time.sleeps == [12.0]


def test_a_wait_beyond_backoff_max_gives_up_at_once(server, fake_time):
    server.add("GET", "/oai2d", Reply(429, headers={"Retry-After": "3600"}))
    client = make_client(fake_time, backoff_max=300.0)
    with pytest.raises(HttpError) as caught:
        client.get(server.url + "/oai2d")
    assert caught.value.status == 429 and "3600 s" in caught.value.reason
    assert len(server.requests) == 1 and fake_time.sleeps == []


def test_retry_after_on_a_success_is_not_a_wait(server, fake_time):
    # Zenodo sends Retry-After on every OAI answer, counting down to its window reset.
    server.add("GET", "/oai2d", Reply(200, body="a", headers={"Retry-After": "60"}))
    client = make_client(fake_time)
    client.get(server.url + "/oai2d")
    client.get(server.url + "/oai2d")
    assert fake_time.sleeps == []


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("120", 120.0),
        (" 2.5 ", 2.5),
        (email.utils.formatdate(EPOCH + 45, usegmt=True), 45.0),
        (email.utils.formatdate(EPOCH - 45, usegmt=True), 0.0),  # already past
        ("-3", 0.0),
        ("soon", None),
        (None, None),
    ],
)
def test_parse_retry_after(value, expected):
    assert parse_retry_after(value, EPOCH) == expected


# -- statuses that are answers, and statuses that are final ------------------------------


def test_accepted_status_is_returned_not_raised(server, fake_time):
    server.add("GET", "/oai2d", Reply(422, body="<error code='noRecordsMatch'/>"))
    client = make_client(fake_time, accept_status=frozenset({422}))
    response = client.get(server.url + "/oai2d")
    assert response.status_code == 422 and "noRecordsMatch" in response.text
    assert len(server.requests) == 1


def test_accept_status_per_call_overrides_the_client(server, fake_time):
    server.add("GET", "/api/records/1", Reply(410, body='{"status": 410}'))
    client = make_client(fake_time)
    assert (
        client.get(server.url + "/api/records/1", accept_status=frozenset({410})).status_code == 410
    )
    with pytest.raises(HttpError) as caught:
        client.get(server.url + "/api/records/1")
    assert caught.value.status == 410


@pytest.mark.parametrize("status", [400, 403, 404, 410, 422])
def test_other_4xx_raise_at_once(server, fake_time, status):
    server.add("GET", "/x", Reply(status))
    client = make_client(fake_time)
    with pytest.raises(HttpError) as caught:
        client.get(server.url + "/x")
    assert caught.value.status == status
    assert f"HTTP {status}" in str(caught.value)
    assert len(server.requests) == 1 and fake_time.sleeps == []


def test_stream_leaves_the_body_for_the_caller(server, fake_time):
    server.add("GET", "/file", Reply(200, body=b"0123456789" * 1000, chunk_size=1000))
    client = make_client(fake_time)
    with client.get(server.url + "/file", stream=True) as response:
        assert b"".join(response.iter_content(4096)) == b"0123456789" * 1000


def test_extra_headers_are_sent(server, fake_time):
    server.add("GET", "/api/records/1", Reply(200, body="{}"))
    client = make_client(fake_time)
    client.get(server.url + "/api/records/1", headers={"Accept": "application/json"})
    assert server.requests[0]["headers"]["Accept"] == "application/json"


# -- pacing ------------------------------------------------------------------------------


def test_client_side_pace_spaces_request_starts(server, fake_time):
    server.add("GET", "/oai2d", Reply(200, body="ok"))
    client = make_client(fake_time, per_minute=30)
    for _ in range(3):
        client.get(server.url + "/oai2d")
    assert fake_time.sleeps == [2.0, 2.0]
    fake_time.elapsed += 1.5  # the caller spent 1.5 s on the page: only 0.5 s left to wait
    client.get(server.url + "/oai2d")
    assert fake_time.sleeps == [2.0, 2.0, 0.5]
    assert client.stats["waited_seconds"] == 4.5


def test_pace_applies_to_retries_too(server, fake_time):
    server.add("GET", "/oai2d", Reply(503, headers={"Retry-After": "1"}), Reply(200, body="ok"))
    client = make_client(fake_time, per_minute=20)  # 3 s apart
    client.get(server.url + "/oai2d")
    # Retry-After 1 s, then 2 s more to honour the 3 s pace.
    assert fake_time.sleeps == [1.0, 2.0]


def test_no_pace_means_no_wait(server, fake_time):
    server.add("GET", "/oai2d", Reply(200, body="ok"))
    client = make_client(fake_time, per_minute=None)
    for _ in range(5):
        client.get(server.url + "/oai2d")
    assert fake_time.sleeps == []


def test_exhausted_rate_limit_waits_for_the_reset(server, fake_time):
    headers = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(EPOCH + 20)}
    server.add("GET", "/api", Reply(200, body="a", headers=headers), Reply(200, body="b"))
    client = make_client(fake_time)
    client.get(server.url + "/api")
    client.get(server.url + "/api")
    assert fake_time.sleeps == [20.0]


def test_remaining_budget_is_spread_until_the_reset(server, fake_time):
    # 4 requests left for the next 10 s (a delta, not a timestamp): one every 2.5 s.
    headers = {"X-RateLimit-Remaining": "4", "X-RateLimit-Reset": "10"}
    server.add("GET", "/api", Reply(200, body="a", headers=headers), Reply(200, body="b"))
    client = make_client(fake_time, per_minute=60)
    client.get(server.url + "/api")
    client.get(server.url + "/api")
    client.get(server.url + "/api")
    # 2.5 s from the header, then the client's own 1 s pace once the header is gone.
    assert fake_time.sleeps == [2.5, 1.0]


def test_a_generous_budget_does_not_slow_the_pace(server, fake_time):
    headers = {"X-RateLimit-Remaining": "5000", "X-RateLimit-Reset": str(EPOCH + 60)}
    server.add("GET", "/api", Reply(200, body="a", headers=headers))
    client = make_client(fake_time, per_minute=30)
    client.get(server.url + "/api")
    client.get(server.url + "/api")
    assert fake_time.sleeps == [2.0]


def test_garbled_rate_limit_headers_are_ignored(server, fake_time):
    headers = {"X-RateLimit-Remaining": "lots", "X-RateLimit-Reset": "later"}
    server.add("GET", "/api", Reply(200, body="a", headers=headers))
    client = make_client(fake_time)
    client.get(server.url + "/api")
    client.get(server.url + "/api")
    assert fake_time.sleeps == []


def test_real_sleep_is_the_default(server):
    # Smoke test of the defaults: one quick request with the real clock and sleep.
    server.add("GET", "/", Reply(200, body="ok"))
    with HttpClient(user_agent=user_agent(None)) as client:
        assert client.get(server.url + "/").text == "ok"


def test_invalid_settings_are_refused():
    with pytest.raises(ValueError):
        HttpClient(user_agent="x", max_attempts=0)
    with pytest.raises(ValueError):
        HttpClient(user_agent="x", per_minute=0)


def test_http_error_is_not_a_requests_exception():
    # Callers catch HttpError alone; requests' own exceptions never escape get().
    assert not issubclass(HttpError, requests.RequestException)


def test_a_server_that_never_answers_in_time_gives_up(server, fake_time):
    server.add("GET", "/slow", Reply(200, body="late", delay=5.0))
    client = make_client(fake_time, timeout=(2.0, 0.1), max_attempts=2)
    with pytest.raises(HttpError) as caught:
        client.get(server.url + "/slow")
    assert caught.value.status is None and "ReadTimeout" in caught.value.reason


# -- the replay server the harvester tests stand on --------------------------------------


def test_replay_server_matches_query_subsets_and_repeats_the_last_reply(server):
    server.add("GET", "/oai2d", Reply(200, body="any"))
    server.add(
        "GET", "/oai2d", Reply(200, body="p1"), Reply(200, body="p2"), query={"verb": "ListRecords"}
    )
    session = requests.Session()
    texts = [
        session.get(server.url + "/oai2d", params={"verb": "ListRecords", "set": "x"}).text
        for _ in range(3)
    ]
    assert texts == ["p1", "p2", "p2"]
    assert session.get(server.url + "/oai2d", params={"verb": "Identify"}).text == "any"
    assert session.get(server.url + "/nowhere").status_code == 404
    assert [r["query"].get("verb") for r in server.requests_for("/oai2d")] == [
        "ListRecords",
        "ListRecords",
        "ListRecords",
        "Identify",
    ]


def test_replay_server_bodies_can_depend_on_the_request(server):
    server.add("GET", "/echo", Reply(200, body=lambda request: request["query"]["q"].upper()))
    server.add("POST", "/oai2d", Reply(200, body="form"), query={"verb": "Identify"})
    assert requests.get(server.url + "/echo", params={"q": "abc"}).text == "ABC"
    assert requests.post(server.url + "/oai2d", data={"verb": "Identify"}).text == "form"


def test_replay_server_stops_promptly_with_a_reply_still_delayed():
    failures: list[type] = []

    def call(url: str) -> None:
        try:
            requests.get(url, timeout=5)
        except requests.RequestException as exc:
            failures.append(type(exc))

    with ReplayServer() as srv:
        srv.add("GET", "/slow", Reply(200, delay=30.0))
        caller = threading.Thread(target=call, args=(srv.url + "/slow",))
        caller.start()
        time.sleep(0.2)  # let the request reach the server and start its delay
        started = time.monotonic()
    assert time.monotonic() - started < 2.0  # stop() cut the 30 s delay short
    caller.join(5)
    assert failures == [requests.ConnectionError]  # the client saw the connection drop


def test_retries_are_logged_with_their_reason(server, fake_time, caplog):
    server.add("GET", "/oai2d", Reply(429, headers={"Retry-After": "7"}), Reply(200, body="ok"))
    client = make_client(fake_time)
    with caplog.at_level("INFO", logger="harvester.http"):
        client.get(server.url + "/oai2d")
    (message,) = [record.getMessage() for record in caplog.records]
    assert (
        message
        == f"retrying {server.url}/oai2d in 7.0 s (attempt 1 of 4 failed: HTTP 429 Too Many Requests)"
    )


# -- bodies that are not what a success status promises ---------------------------------------


def test_a_json_body_cut_short_under_a_success_status_is_retried(server, fake_time):
    good = b'{"files": [], "swh": {}}'
    server.add(
        "GET", "/api/records/1",
        Reply(200, body=good[:9], headers={"Content-Type": "application/json"}),
        Reply(200, body=b"<html>proxy error</html>", headers={"Content-Type": "text/html"}),
        Reply(200, body=good, headers={"Content-Type": "application/json"}),
    )
    with make_client(fake_time) as client:
        response = client.get(server.url + "/api/records/1", expect_json=True)
        assert response.json() == {"files": [], "swh": {}}
        assert client.stats["requests"] == 3 and client.stats["retries"] == 2


def test_a_body_that_is_never_json_gives_up_with_the_reason(server, fake_time):
    server.add("GET", "/api/records/2", Reply(200, body=b'{"files": [', headers={"Content-Type": "application/json"}))
    with make_client(fake_time, max_attempts=3) as client:
        with pytest.raises(HttpError) as caught:
            client.get(server.url + "/api/records/2", expect_json=True)
    assert caught.value.status == 200
    assert caught.value.reason.startswith(
        f"gave up on GET {server.url}/api/records/2 after 3 attempts: HTTP 200 with a body that is not JSON ("
    )
    assert len(server.requests) == 3


def test_without_expect_json_a_non_json_body_is_the_callers_business(server, fake_time):
    server.add("GET", "/page", Reply(200, body=b"<html></html>"))
    with make_client(fake_time) as client:
        assert client.get(server.url + "/page").text == "<html></html>"
    assert len(server.requests) == 1
