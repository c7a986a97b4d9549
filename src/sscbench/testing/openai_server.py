"""A small scripted OpenAI-compatible chat-completions server for tests and benchmarks.

It listens on 127.0.0.1 (a free port) in a background thread, one thread per
connection, so concurrent requests wait out the fixed ``delay`` side by side. A
``responder`` decides each answer from the request body::

    def responder(body: dict) -> dict | Fail | Drop: ...

- a dict without ``"choices"`` is the assistant message: ``content`` and optional
  ``tool_calls`` (full OpenAI entries, or the shorthand ``{"name", "arguments"[, "id"]}``
  where ``arguments`` may be a string, kept exactly, or an object, serialised), plus
  optional ``finish_reason`` and ``usage``; use :func:`reply`, :func:`text`, :func:`tool_call`;
- a dict with ``"choices"`` is sent as it is (to serve malformed or unusual completions);
- :class:`Fail` answers with an HTTP error status (500, 429, 401, ...);
- :class:`Drop` closes the connection without answering;
- :class:`Trickle` sends a 200 and then its body one byte per ``interval`` (forever
  when ``endless``), as a stalled proxy or a runaway server does;
- :class:`Raw` sends any body with any content type (an HTML page, a JSON list, ...).

``rate_limit`` (requests per second) answers requests over it with 429 and
``Retry-After``, as a provider does; ``admitted`` and ``rejected`` count them.
``api_key`` answers chat requests that do not carry it with 401, as a provider refuses a
wrong key; setting ``outage`` answers every chat request with 503 until it is cleared.

Every request body is recorded (``server.requests``) with its path and headers
(``server.log``), so a test can check what each prompt carried.

    with OpenAIServer(sequence(tool_call("get_user", {"id": 1}), text("Done."))) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="x")
"""

from __future__ import annotations

import contextlib
import json
import math
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from sscbench.json_types import JsonMapping, JsonValue
from sscbench.testing.replies import (
    Drop,
    Fail,
    Raw,
    RecordedRequest,
    Responder,
    Trickle,
    completion,
    echo_responder,
)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024
    owner: OpenAIServer

    def handle_error(
        self, request: socket.socket | tuple[bytes, socket.socket], client_address: object
    ) -> None:
        """Stay quiet when a client went away (timeouts, dropped connections, stop)."""
        import sys

        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in separate writes
    server: _Server

    def log_message(self, format: str, *args: object) -> None:  # silence the default stderr log
        return

    def setup(self) -> None:
        super().setup()
        self.server.owner._track(self.connection, True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.owner._track(self.connection, False)

    def _send_json(
        self, status: int, payload: JsonValue, headers: dict[str, str] | None = None
    ) -> None:
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _send_raw(self, status: int, content_type: str, data: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _trickle(self, body: JsonMapping, trickle: Trickle, number: int) -> None:
        payload = trickle.body
        if "choices" not in payload:
            payload = completion(body, payload, number)
        data = json.dumps(payload).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(10**12 if trickle.endless else len(data)))
        self.end_headers()
        self.wfile.flush()
        position = 0
        stopping = self.server.owner._stopping
        while (trickle.endless or position < len(data)) and not stopping.is_set():
            self.wfile.write(data[position : position + 1] if position < len(data) else b" ")
            self.wfile.flush()
            position += 1
            stopping.wait(trickle.interval)
        self.close_connection = True

    def _error(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        kind = "server_error" if status >= 500 else "invalid_request_error"
        self._send_json(
            status, {"error": {"message": message, "type": kind, "code": status}}, headers
        )

    def do_GET(self) -> None:
        owner = self.server.owner
        if self.path.rstrip("/").endswith("/models"):
            self._send_json(
                200,
                {
                    "object": "list",
                    "data": [{"id": owner.model, "object": "model", "owned_by": "sscbench"}],
                },
            )
        else:
            self._error(404, f"no route {self.path}")

    def do_POST(self) -> None:
        owner = self.server.owner
        arrived = time.perf_counter()
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError as exc:
            self._error(400, f"request body is not JSON: {exc}")
            return
        number = owner._record(
            RecordedRequest(
                "POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body
            )
        )
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._error(404, f"no route {self.path}")
            return
        if owner.api_key is not None and self.headers.get("Authorization") != (
            f"Bearer {owner.api_key}"
        ):
            self._error(401, "Incorrect API key provided")
            return
        if owner.outage:
            self._error(503, "the service is unavailable (outage)")
            return
        wait = owner._admit()
        if wait is not None:
            self._error(429, "rate limit exceeded", {"Retry-After": owner._retry_after(wait)})
            return
        try:
            response = owner.responder(body)
        except Exception as exc:  # a broken script is reported to the client, not swallowed
            self._error(500, f"responder raised {type(exc).__name__}: {exc}")
            return
        if isinstance(response, Trickle):
            self._trickle(body, response, number)
            return
        if isinstance(response, Raw):
            self._send_raw(response.status, response.content_type, response.body)
            return
        if not isinstance(response, Fail | Drop) and "choices" not in response:
            response = completion(body, response, number)
        if owner.delay > 0:  # answer ``delay`` seconds after the request arrived
            time.sleep(max(0.0, owner.delay - (time.perf_counter() - arrived)))
        if isinstance(response, Drop):
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)
            return
        if isinstance(response, Fail):
            self._error(response.status, response.message, response.headers)
            return
        self._send_json(200, response)


class OpenAIServer:
    """A scripted chat-completions server on 127.0.0.1; a context manager that starts and stops it.

    ``delay`` is slept by each request before it is answered (concurrent requests wait
    in parallel). ``requests`` are the recorded request bodies in arrival order.
    """

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        delay: float = 0.0,
        model: str = "scripted",
        rate_limit: float | None = None,
        retry_after: str | None = None,
        api_key: str | None = None,
    ):
        self.responder: Responder = responder or echo_responder
        # a provider's key check: chat requests without ``Bearer api_key`` are answered 401
        self.api_key = api_key
        # an outage: while True every chat request is answered 503 (a test flips it)
        self.outage = False
        self.delay = delay
        self.model = model
        # a provider's requests-per-second limit: a token bucket of one second's requests;
        # a request over it is answered 429 with Retry-After (``retry_after`` as given, or
        # the whole seconds until the next request would be admitted)
        self.rate_limit = rate_limit
        self.retry_after = retry_after
        self.admitted: list[float] = []  # perf_counter of each admitted chat request
        self.rejected = 0
        self._bucket = max(1.0, rate_limit or 0.0)
        self._bucket_at = time.perf_counter()
        self._log: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._connections: set[socket.socket] = set()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # ---- lifecycle -----------------------------------------------------------------
    def start(self) -> OpenAIServer:
        """Bind a free port and serve in a background thread."""
        if self._server is not None:
            raise RuntimeError("server already started")
        self._stopping.clear()
        server = _Server(("127.0.0.1", 0), _Handler)
        server.owner = self
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, close open connections and release the port."""
        server, self._server = self._server, None
        if server is None:
            return
        self._stopping.set()
        server.shutdown()
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---- addresses -----------------------------------------------------------------
    @property
    def port(self) -> int:
        """The bound port."""
        if self._server is None:
            raise RuntimeError("server not started")
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        """The OpenAI base URL, e.g. ``http://127.0.0.1:PORT/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    # ---- what was received ---------------------------------------------------------
    @property
    def log(self) -> list[RecordedRequest]:
        """Every request received (method, path, lower-cased headers, body), in order."""
        with self._lock:
            return list(self._log)

    @property
    def requests(self) -> list[JsonValue]:
        """The body of every POST received, in order."""
        return [r.body for r in self.log if r.method == "POST"]

    def clear(self) -> None:
        """Forget the recorded requests."""
        with self._lock:
            self._log.clear()

    def _admit(self) -> float | None:
        """Take a token of the rate limit (None: admitted) or the seconds until one frees."""
        with self._lock:
            now = time.perf_counter()
            if self.rate_limit is None:
                self.admitted.append(now)
                return None
            capacity = max(1.0, self.rate_limit)
            self._bucket = min(capacity, self._bucket + (now - self._bucket_at) * self.rate_limit)
            self._bucket_at = now
            if self._bucket >= 1.0:
                self._bucket -= 1.0
                self.admitted.append(now)
                return None
            self.rejected += 1
            return (1.0 - self._bucket) / self.rate_limit

    def _retry_after(self, wait: float) -> str:
        if self.retry_after is not None:
            return self.retry_after
        return str(max(1, math.ceil(wait)))

    def _record(self, request: RecordedRequest) -> int:
        with self._lock:
            self._log.append(request)
            return len(self._log)

    def _track(self, conn: socket.socket, opened: bool) -> None:
        with self._lock:
            if opened:
                self._connections.add(conn)
            else:
                self._connections.discard(conn)
