"""The HTTP client every harvester shares: polite, patient, and loud when it gives up.

One ``requests.Session`` per source, an identifying User-Agent, connect/read timeouts,
retries with exponential backoff and jitter (tenacity) for connection errors, timeouts,
429 and 5xx, honouring what the server says about when to come back:

- ``Retry-After`` in seconds or as an HTTP date (on 429 and 5xx only: Zenodo sends it on
  *every* OAI response, where it merely counts down to its rate-limit window reset);
- a JSON body whose ``reason`` says "Expected available in N seconds" (Software
  Heritage's 429, which carries no ``Retry-After``);
- ``X-RateLimit-Remaining`` / ``X-RateLimit-Reset`` on any response: the remaining budget
  is spread evenly until the reset, and an exhausted budget waits for the reset.

On top of that an optional client-side pace (``per_minute``) spaces request starts evenly.
Every wait goes through the injectable ``sleep`` so tests run without waiting, and the
clocks are injectable so tests can assert the computed waits exactly.
"""

from __future__ import annotations

import email.utils
import logging
import re
import threading
import time
from collections.abc import Callable
from importlib import metadata

import requests
import tenacity

__all__ = ["HttpClient", "HttpError", "user_agent"]

log = logging.getLogger(__name__)

# Values of X-RateLimit-Reset above this are Unix timestamps (Zenodo, Software Heritage,
# GitHub); smaller ones are taken as seconds from now (some other APIs send a delta).
_EPOCH_THRESHOLD = 1_000_000_000

_AVAILABLE_IN = re.compile(r"available in (\d+(?:\.\d+)?) second", re.IGNORECASE)

# Network failures worth another attempt. ChunkedEncodingError covers a body cut short
# (the server announced more bytes than it sent), which requests reads eagerly when
# ``stream`` is false.
_TRANSIENT_ERRORS = (
    requests.ConnectionError,
    requests.Timeout,
    requests.exceptions.ChunkedEncodingError,
    requests.exceptions.ContentDecodingError,
)


class HttpError(Exception):
    """A request that failed for good: a 4xx, or retries exhausted.

    ``status`` is the last HTTP status seen (None when no answer ever came back).
    """

    def __init__(self, url: str, reason: str, status: int | None = None) -> None:
        super().__init__(reason)
        self.url = url
        self.reason = reason
        self.status = status


class _Retry(Exception):
    """Internal: this attempt failed in a way worth retrying.

    ``wait`` is the server's own estimate of when to come back (None: use backoff).
    """

    def __init__(self, reason: str, status: int | None = None, wait: float | None = None):
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.wait = wait


def _version() -> str:
    try:
        return metadata.version("reproscore")
    except metadata.PackageNotFoundError:  # running from a source tree without install
        return "0"


def user_agent(contact: str | None) -> str:
    """The identifying User-Agent Zenodo asks harvesters to send: the tool, its version
    and the operator's contact address (from configuration).

    >>> user_agent("team@example.org")  # doctest: +ELLIPSIS
    'reproscore/... (mailto:team@example.org)'
    """
    if contact is None:
        return f"reproscore/{_version()}"
    return f"reproscore/{_version()} (mailto:{contact})"


def parse_retry_after(value: str | None, now: float) -> float | None:
    """Seconds to wait from a ``Retry-After`` value (delta seconds or HTTP date).

    ``now`` is the current Unix time. Returns None when the header is absent or
    unreadable; a date in the past means "now" (0).
    """
    if value is None:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # RFC 9110 dates are GMT; a bare one is read as such
        return None
    return max(0.0, when.timestamp() - now)


def _reason_wait(response: requests.Response) -> float | None:
    """Seconds to wait from a JSON body like Software Heritage's throttling answer."""
    if "json" not in response.headers.get("Content-Type", ""):
        return None
    try:
        reason = response.json().get("reason")
    except (ValueError, AttributeError):
        return None
    match = _AVAILABLE_IN.search(reason) if isinstance(reason, str) else None
    return float(match.group(1)) if match else None


class HttpClient:
    """A paced, retrying HTTP GET client over one ``requests.Session``.

    ``timeout`` is (connect, read) in seconds. ``max_attempts`` counts the first try.
    Backoff after attempt *n* is ``backoff_base * 2**(n-1)`` plus a random jitter of up to
    ``backoff_base``, capped at ``backoff_max``; a server-given wait is used as it is, and a
    server asking for more than ``backoff_max`` makes the client give up rather than
    come back early. ``per_minute`` spaces request starts by ``60 / per_minute`` seconds
    (None: no client-side pace). Statuses in ``accept_status`` are returned to the
    caller instead of raising or retrying.

    ``stats`` counts ``requests`` sent (every attempt), ``retries`` and
    ``waited_seconds`` (pacing and backoff together).
    """

    def __init__(
        self,
        *,
        user_agent: str,
        timeout: tuple[float, float] = (10, 60),
        max_attempts: int = 6,
        backoff_base: float = 1.0,
        backoff_max: float = 300.0,
        per_minute: float | None = None,
        accept_status: frozenset[int] = frozenset(),
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        now: Callable[[], float] = time.time,
    ) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if per_minute is not None and per_minute <= 0:
            raise ValueError("per_minute must be positive (or None for no pacing)")
        self.user_agent = user_agent
        self.timeout = timeout
        self.max_attempts = max_attempts
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.per_minute = per_minute
        self.accept_status = frozenset(accept_status)
        self.stats: dict[str, float] = {"requests": 0, "retries": 0, "waited_seconds": 0.0}
        self._sleep = sleep
        self._clock = clock
        self._now = now
        self._session = requests.Session()
        self._session.headers["User-Agent"] = user_agent
        # Built from tenacity's stable primitives (wait_exponential_jitter renamed its
        # arguments across releases); the cap is applied to the sum, jitter included.
        self._exponential = tenacity.wait_exponential(
            multiplier=backoff_base, max=backoff_max
        ) + tenacity.wait_random(0, backoff_base)
        self._pace_lock = threading.Lock()
        self._next_start: float | None = None  # monotonic time before which we must not send

    # -- public --------------------------------------------------------------------

    def get(
        self,
        url: str,
        *,
        params: dict | None = None,
        stream: bool = False,
        headers: dict | None = None,
        accept_status: frozenset[int] | None = None,
        expect_json: bool = False,
    ) -> requests.Response:
        """GET ``url``, retrying transient failures; return the response or raise HttpError.

        A 2xx/3xx response, or one whose status is in ``accept_status`` (this call's, else
        the client's), is returned. Any other 4xx raises at once. 429, 5xx, connection
        errors and timeouts are retried up to ``max_attempts`` in all. With ``stream``
        the body is left unread for the caller to iterate (and close). With
        ``expect_json`` a 2xx body that does not decode as JSON (cut short, or an HTML
        error page from a proxy) is retried like a 503: servers and proxies under load
        send such bodies with a success status.
        """
        return self.request(
            "GET", url, params=params, stream=stream, headers=headers,
            accept_status=accept_status, expect_json=expect_json,
        )

    def request(
        self,
        method: str,
        url: str,
        *,
        params: dict | None = None,
        stream: bool = False,
        headers: dict | None = None,
        accept_status: frozenset[int] | None = None,
        expect_json: bool = False,
    ) -> requests.Response:
        """Any idempotent request (GET, or a POST the server treats as idempotent, such as
        asking Software Heritage's vault to cook), with the retry rules of :meth:`get`."""
        accepted = self.accept_status if accept_status is None else frozenset(accept_status)
        retrying = tenacity.Retrying(
            stop=tenacity.stop_after_attempt(self.max_attempts),
            wait=self._backoff,
            retry=tenacity.retry_if_exception_type(_Retry),
            sleep=self._wait,
            before_sleep=self._count_retry,
            reraise=True,
        )
        try:
            return retrying(self._attempt, method, url, params, stream, headers, accepted, expect_json)
        except _Retry as last:
            raise HttpError(
                url,
                f"gave up on {method} {url} after {self.max_attempts} attempts: {last.reason}",
                last.status,
            ) from last

    def retrying(
        self, retry_on: tuple[type[BaseException], ...], what: str, attempts: int | None = None
    ) -> tenacity.Retrying:
        """A tenacity loop with this client's backoff, sleep and retry count, for callers
        whose failure shows only after the response was returned (a streamed download cut
        short, bytes that do not match their checksum): ``for attempt in
        client.retrying((Error,), "GET url"): with attempt: ...``. ``what`` names the
        operation in the log. The last failure is re-raised."""
        return tenacity.Retrying(
            stop=tenacity.stop_after_attempt(attempts or self.max_attempts),
            wait=self._backoff,
            retry=tenacity.retry_if_exception_type(retry_on),
            sleep=self._wait,
            before_sleep=lambda retry_state: self._count_retry(retry_state, what),
            reraise=True,
        )

    def close(self) -> None:
        """Close the session's pooled connections."""
        self._session.close()

    def __enter__(self) -> HttpClient:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    # -- one attempt -----------------------------------------------------------------

    def _attempt(
        self,
        method: str,
        url: str,
        params: dict | None,
        stream: bool,
        headers: dict | None,
        accepted: frozenset[int],
        expect_json: bool = False,
    ) -> requests.Response:
        self._pace()
        self.stats["requests"] += 1
        try:
            response = self._session.request(
                method, url, params=params, headers=headers, stream=stream, timeout=self.timeout
            )
        except _TRANSIENT_ERRORS as exc:
            raise _Retry(f"{type(exc).__name__}: {exc}") from exc
        self._learn_rate_limit(response)
        status = response.status_code
        if status < 300 and expect_json and not stream:
            try:
                response.json()
            except ValueError as exc:
                response.close()
                raise _Retry(f"HTTP {status} with a body that is not JSON ({exc})", status) from exc
        if status in accepted or status < 400:
            return response
        description = f"HTTP {status} {response.reason or ''}".strip()
        if status == 429 or status >= 500:
            wait = parse_retry_after(response.headers.get("Retry-After"), self._now())
            if wait is None:
                wait = _reason_wait(response)
            response.close()
            if wait is not None and wait > self.backoff_max:
                # Coming back early would only be refused again; let the caller decide.
                raise HttpError(
                    url,
                    f"{description} for {method} {url}: server asks to wait {wait:.0f} s, "
                    f"more than the {self.backoff_max:.0f} s allowed",
                    status,
                )
            raise _Retry(description, status, wait)
        response.close()
        raise HttpError(url, f"{description} for {method} {url}", status)

    # -- waiting -----------------------------------------------------------------------

    def _backoff(self, retry_state: tenacity.RetryCallState) -> float:
        """Seconds before the next attempt: the server's word, else exponential + jitter."""
        failure = retry_state.outcome.exception() if retry_state.outcome else None
        if isinstance(failure, _Retry) and failure.wait is not None:
            return failure.wait
        return min(self.backoff_max, self._exponential(retry_state))

    def _count_retry(self, retry_state: tenacity.RetryCallState, what: str | None = None) -> None:
        self.stats["retries"] += 1
        failure = retry_state.outcome.exception() if retry_state.outcome else None
        wait = retry_state.next_action.sleep if retry_state.next_action else 0.0
        if what is None:
            # args are (method, url, ...): keep the GET log line as it was, name other methods
            args = retry_state.args
            what = (args[1] if args[0] == "GET" else " ".join(args[:2])) if len(args) > 1 else "?"
        log.info(
            "retrying %s in %.1f s (attempt %d of %d failed: %s)",
            what,
            wait,
            retry_state.attempt_number,
            retry_state.retry_object.stop.max_attempt_number
            if isinstance(retry_state.retry_object.stop, tenacity.stop_after_attempt)
            else self.max_attempts,
            getattr(failure, "reason", failure),
        )

    def _wait(self, seconds: float) -> None:
        if seconds > 0:
            self.stats["waited_seconds"] += seconds
            self._sleep(seconds)

    def _pace(self) -> None:
        """Wait for this request's slot, and book the next one ``60 / per_minute`` later."""
        with self._pace_lock:
            now = self._clock()
            start = now if self._next_start is None else max(now, self._next_start)
            wait = start - now
            interval = 60.0 / self.per_minute if self.per_minute else 0.0
            self._next_start = start + interval
        self._wait(wait)

    def _learn_rate_limit(self, response: requests.Response) -> None:
        """Push the next slot back when X-RateLimit-* says the budget is running out.

        The remaining budget is spread evenly until the reset; an exhausted budget waits
        for the reset itself. A budget that allows faster than our own pace changes
        nothing.
        """
        remaining = response.headers.get("X-RateLimit-Remaining")
        reset = response.headers.get("X-RateLimit-Reset")
        if remaining is None or reset is None:
            return
        try:
            remaining_n = int(float(remaining))
            reset_value = float(reset)
        except ValueError:
            return
        if reset_value > _EPOCH_THRESHOLD:
            until_reset = reset_value - self._now()
        else:
            until_reset = reset_value
        if until_reset <= 0:
            return
        spacing = until_reset if remaining_n <= 0 else until_reset / remaining_n
        with self._pace_lock:
            earliest = self._clock() + spacing
            if self._next_start is None or earliest > self._next_start:
                self._next_start = earliest
