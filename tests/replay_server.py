"""A real HTTP server on 127.0.0.1 that replays scripted responses, for harvester tests.

Nothing in the test suite reaches the internet: tests register replies per method and path
(optionally per query subset) and point the code under test at ``server.url``. The server
can also misbehave the way real servers and networks do: answer late (read timeouts),
close the connection without answering (connection reset), or send fewer bytes than the
``Content-Length`` it announced (truncated body); ``inject_faults`` makes a share of
the requests under some paths fail in those ways, decided per request so a test can
reproduce a bad night.

Usage::

    with ReplayServer() as server:
        server.add("GET", "/oai2d", Reply(503, headers={"Retry-After": "1"}), Reply(200, body=xml))
        response = requests.get(server.url + "/oai2d", params={"verb": "Identify"})
        assert [r["path"] for r in server.requests] == ["/oai2d", "/oai2d"]
"""

from __future__ import annotations

import hashlib
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

__all__ = ["Reply", "ReplayServer"]


@dataclass
class Reply:
    """One scripted answer.

    ``body`` may be bytes, text (sent as UTF-8) or a callable that receives the request
    dict (see ``ReplayServer.requests``) and returns bytes or text.
    """

    status: int = 200
    body: bytes | str | Callable[[dict], bytes | str] = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds to wait before answering (read-timeout tests)
    reset: bool = False  # close the connection with a TCP reset instead of answering
    truncate: int | None = None  # send only this many body bytes, then close
    chunk_size: int | None = None  # write the body in pieces of this size
    # A "Transfer-Encoding: chunked" header makes the body go out chunk-encoded, with no
    # Content-Length (as Zenodo answers); otherwise Content-Length is added when absent.


@dataclass
class _Route:
    method: str
    path: str
    query: dict[str, str]
    replies: list[Reply]
    served: int = 0
    prefix: bool = False

    def matches(self, method: str, path: str, query: dict[str, str]) -> bool:
        return (
            self.method == method
            and (path.startswith(self.path) if self.prefix else self.path == path)
            and all(query.get(k) == v for k, v in self.query.items())
        )

    def next_reply(self) -> Reply:
        # Replies are consumed in order; the last one answers every later request.
        reply = self.replies[min(self.served, len(self.replies) - 1)]
        self.served += 1
        return reply


class ReplayServer:
    """A threading HTTP server on 127.0.0.1 (port chosen by the OS); a context manager."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self._routes: list[_Route] = []
        self._faults: _Faults | None = None
        self.faults_injected: list[tuple[str, str]] = []  # (path, kind) of each fault sent
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._connections: set[socket.socket] = set()
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.replay = self
        self._thread: threading.Thread | None = None
        host, port = self._httpd.server_address[:2]
        self.url = f"http://{host}:{port}"

    # -- scripting ---------------------------------------------------------------------

    def add(
        self,
        method: str,
        path: str,
        *responses: Reply,
        query: dict[str, str] | None = None,
        prefix: bool = False,
    ) -> None:
        """Serve ``responses`` in order to requests matching method, path and query subset.

        With ``prefix`` the route answers every path that starts with ``path`` (for URLs
        holding a value the test cannot know in advance, such as a search from "now").
        When several routes match, an exact path beats a prefix, then the one
        constraining the most query parameters wins (ties go to the route added first),
        so a catch-all route and a specific one can coexist. Unmatched requests get 404.
        """
        if not responses:
            raise ValueError("add() needs at least one Reply")
        route = _Route(method.upper(), path, dict(query or {}), list(responses), prefix=prefix)
        with self._lock:
            self._routes.append(route)

    def inject_faults(self, rate: float, prefixes: tuple[str, ...], *, seed: str = "", max_per_path: int = 3) -> None:
        """Make ``rate`` of the GET requests under ``prefixes`` fail: a connection reset
        before the answer, a body cut short of its ``Content-Length`` (the connection then
        closes), or a body cut short *with* a matching ``Content-Length`` (a whole HTTP
        answer whose content is broken: truncated JSON, a short download). Whether the
        n-th request of a path fails, and how, depends only on ``seed``, the path and n,
        not on thread timing; at most ``max_per_path`` requests of one path fail, so a
        client that retries enough always gets through."""
        with self._lock:
            self._faults = _Faults(rate, tuple(prefixes), seed, max_per_path)

    def requests_for(self, path: str, method: str = "GET") -> list[dict]:
        """The requests seen so far for ``method`` and ``path``."""
        with self._lock:
            return [r for r in self.requests if r["path"] == path and r["method"] == method]

    # -- lifecycle ---------------------------------------------------------------------

    def start(self) -> ReplayServer:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes handlers sleeping in Reply.delay
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join()
            self._thread = None
        # Keep-alive connections park handler threads in a blocking read: unblock them.
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._httpd.server_close()

    def __enter__(self) -> ReplayServer:
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.stop()

    # -- used by the handler -----------------------------------------------------------

    def _record(self, request: dict) -> Reply | None:
        with self._lock:
            self.requests.append(request)
            candidates = [
                r
                for r in self._routes
                if r.matches(request["method"], request["path"], request["query"])
            ]
            if not candidates:
                return None
            # max() keeps the first tie
            best = max(candidates, key=lambda r: (not r.prefix, len(r.query)))
            reply = best.next_reply()
            if self._faults is not None and request["method"] == "GET":
                seen = sum(1 for r in self.requests if r["path"] == request["path"] and r["method"] == "GET")
                kind = self._faults.kind(request["path"], seen - 1)
                if kind is not None:
                    self.faults_injected.append((request["path"], kind))
                    return _faulty(reply, kind, request)
            return reply


@dataclass(frozen=True)
class _Faults:
    rate: float
    prefixes: tuple[str, ...]
    seed: str
    max_per_path: int

    KINDS = ("reset", "cut", "short")

    def kind(self, path: str, n: int) -> str | None:
        if n >= self.max_per_path or not path.startswith(self.prefixes):
            return None
        draw = hashlib.sha256(f"{self.seed}|{path}|{n}".encode()).digest()
        if int.from_bytes(draw[:4], "big") / 2**32 >= self.rate:
            return None
        return self.KINDS[draw[4] % len(self.KINDS)]


def _faulty(reply: Reply, kind: str, request: dict) -> Reply:
    """``reply`` spoilt as ``kind`` says (see :meth:`ReplayServer.inject_faults`)."""
    if kind == "reset":
        return Reply(reset=True)
    body = reply.body(request) if callable(reply.body) else reply.body
    if isinstance(body, str):
        body = body.encode("utf-8")
    half = len(body) // 2
    headers = {k: v for k, v in reply.headers.items() if k.lower() not in ("content-length", "transfer-encoding")}
    if kind == "cut":
        return Reply(reply.status, body, headers, truncate=half)
    return Reply(reply.status, body[:half], headers)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # Handler threads are woken explicitly in ReplayServer.stop(); do not wait on them.
    block_on_close = False
    replay: ReplayServer

    def process_request(self, request, client_address):
        with self.replay._lock:
            self.replay._connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request):
        with self.replay._lock:
            self.replay._connections.discard(request)
        super().shutdown_request(request)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as requests.Session expects
    server: _Server

    def log_message(self, format, *args):  # noqa: A002 - silence the default stderr log
        pass

    def do_GET(self):
        self._serve()

    def do_POST(self):
        self._serve()

    def do_HEAD(self):
        self._serve(send_body=False)

    def _serve(self, send_body: bool = True) -> None:
        replay = self.server.replay
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        payload = self.rfile.read(length) if length else b""
        query = dict(parse_qsl(parts.query, keep_blank_values=True))
        if payload and self.headers.get("Content-Type", "").startswith(
            "application/x-www-form-urlencoded"
        ):
            # OAI-PMH allows POST with form parameters; match them like a query string.
            query.update(parse_qsl(payload.decode("utf-8", "replace"), keep_blank_values=True))
        request = {
            "method": self.command,
            "path": parts.path,
            "query": query,
            "headers": dict(self.headers.items()),
            "time": time.monotonic(),
            "body": payload,
        }
        reply = replay._record(request)
        if reply is None:
            self._send(404, f"no reply scripted for {self.command} {parts.path}".encode(), {})
            return
        if reply.delay and replay._stopping.wait(reply.delay):
            self.close_connection = True
            return
        if reply.reset:
            self._reset()
            return
        body = reply.body(request) if callable(reply.body) else reply.body
        headers = dict(reply.headers)
        if isinstance(body, str):
            body = body.encode("utf-8")
            headers.setdefault("Content-Type", "text/plain; charset=utf-8")
        self._send(
            reply.status,
            body,
            headers,
            send_body=send_body,
            truncate=reply.truncate,
            chunk_size=reply.chunk_size,
        )

    def _send(
        self,
        status: int,
        body: bytes,
        headers: dict[str, str],
        *,
        send_body: bool = True,
        truncate: int | None = None,
        chunk_size: int | None = None,
    ) -> None:
        chunked = any(
            name.lower() == "transfer-encoding" and value.lower() == "chunked"
            for name, value in headers.items()
        )
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        if not chunked and not any(name.lower() == "content-length" for name in headers):
            self.send_header("Content-Length", str(len(body)))
        if truncate is not None:
            self.send_header("Connection", "close")
        self.end_headers()
        if not send_body:
            return
        if truncate is not None:
            body = body[:truncate]
            self.close_connection = True
        step = chunk_size or len(body) or 1
        try:
            for start in range(0, len(body), step):
                piece = body[start : start + step]
                if chunked:
                    piece = b"%x\r\n%s\r\n" % (len(piece), piece)
                self.wfile.write(piece)
            if chunked and truncate is None:
                self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            # The client gave up (e.g. a size cap was hit): nothing more to do.
            self.close_connection = True

    def _reset(self) -> None:
        # SO_LINGER with a zero timeout makes close() send RST: a genuine connection reset.
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True
        self.connection.close()
