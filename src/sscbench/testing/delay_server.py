"""A cheap fixed-delay chat-completions endpoint for load benchmarks (asyncio, one thread).

:class:`~sscbench.testing.openai_server.OpenAIServer` serves every failure a test needs
(errors, drops, trickles, rate limits) with a thread per connection; under hundreds of
concurrent requests its threads, header parsing and lock traffic cost milliseconds of CPU
per request, which a benchmark of the *client's* overhead must not pay on a shared core.
This server only answers ``POST …/chat/completions`` after a fixed ``delay``, as a hosted
endpoint with a constant latency would: HTTP/1.1 with keep-alive on one event loop, the
answer decided by a ``responder`` (``body -> message dict``, as for ``OpenAIServer``) and
built by the same :func:`~sscbench.testing.replies.completion`. ``answered`` counts the
answers, ``connections`` the connections accepted (keep-alive reuses them).

Run it in its own process (``python -m sscbench.testing.delay_server --delay 0.5``
prints its base URL and serves until standard input closes) so that its CPU is not the
client's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import threading
from collections.abc import Callable

from sscbench.json_types import JsonMapping, JsonObject, JsonValue
from sscbench.testing.replies import completion

MessageResponder = Callable[[JsonObject], JsonObject]

_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found"}


def _response(status: int, payload: JsonValue, keep_alive: bool) -> bytes:
    """One HTTP/1.1 response with a JSON body, as bytes."""
    data = json.dumps(payload).encode("utf-8")
    head = (
        f"HTTP/1.1 {status} {_REASONS[status]}\r\n"
        "Content-Type: application/json\r\n"
        f"Content-Length: {len(data)}\r\n"
        f"Connection: {'keep-alive' if keep_alive else 'close'}\r\n\r\n"
    )
    return head.encode("ascii") + data


def _error(status: int, message: str, keep_alive: bool) -> bytes:
    return _response(
        status, {"error": {"message": message, "type": "invalid_request_error"}}, keep_alive
    )


class DelayServer:
    """A chat-completions endpoint on 127.0.0.1 answering each request ``delay`` seconds
    after it arrived; a context manager that serves on a background thread's event loop."""

    def __init__(self, responder: MessageResponder, *, delay: float = 0.0):
        self.responder = responder
        self.delay = delay
        self.answered = 0
        self.connections = 0
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None

    @property
    def base_url(self) -> str:
        """The OpenAI base URL, e.g. ``http://127.0.0.1:PORT/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    def answer(self, method: str, path: str, raw: bytes, keep_alive: bool) -> bytes:
        """The response to one request (the delay is the caller's)."""
        if method != "POST" or not path.rstrip("/").endswith("/chat/completions"):
            return _error(404, f"no route {method} {path}", keep_alive)
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError as exc:
            return _error(400, f"request body is not JSON: {exc}", keep_alive)
        self.answered += 1
        return _response(200, completion(body, self.responder(body), self.answered), keep_alive)

    async def serve(self, stop: asyncio.Event) -> None:
        """Listen on a free port until ``stop`` is set."""
        loop = asyncio.get_running_loop()
        server = await loop.create_server(
            lambda: _Connection(self, loop), "127.0.0.1", 0, backlog=4096
        )
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        async with server:
            await stop.wait()

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        self._stop = asyncio.Event()
        try:
            loop.run_until_complete(self.serve(self._stop))
        finally:
            loop.close()

    def start(self) -> DelayServer:
        """Serve on a background thread; returns once the port is bound."""
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the delay server did not start within 10 s")
        return self

    def stop(self) -> None:
        """Stop serving and join the thread."""
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def __enter__(self) -> DelayServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _Connection(asyncio.Protocol):
    """One keep-alive connection: requests parsed from the byte stream as they arrive,
    each answered ``delay`` after its last byte arrived, in order."""

    def __init__(self, server: DelayServer, loop: asyncio.AbstractEventLoop):
        self.server = server
        self.loop = loop
        self.buffer = b""
        self.transport: asyncio.Transport | None = None
        self.last_due = 0.0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.server.connections += 1

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            lines = self.buffer[:end].decode("latin-1").split("\r\n")
            headers = {}
            for line in lines[1:]:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            length = int(headers.get("content-length") or 0)
            if len(self.buffer) < end + 4 + length:
                return  # the body is still arriving
            raw = self.buffer[end + 4 : end + 4 + length]
            self.buffer = self.buffer[end + 4 + length :]
            method, path, _version = [*lines[0].split(" "), "", ""][:3]
            keep_alive = headers.get("connection", "").lower() != "close"
            answer = self.server.answer(method, path, raw, keep_alive)
            due = max(self.loop.time() + self.server.delay, self.last_due)
            self.last_due = due
            self.loop.call_at(due, self._send, answer, keep_alive)

    def _send(self, answer: bytes, keep_alive: bool) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        self.transport.write(answer)
        if not keep_alive:
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None


def serve_until_stdin_closes(responder: MessageResponder, delay: float) -> None:
    """Print the base URL, then serve until standard input closes (a benchmark's child)."""
    with DelayServer(responder, delay=delay) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()


def _text_responder(body: JsonMapping) -> JsonObject:
    return {"content": "OK."}


def main() -> None:
    """``python -m sscbench.testing.delay_server --delay S``: a text-answering endpoint."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=0.0)
    serve_until_stdin_closes(_text_responder, parser.parse_args().delay)


if __name__ == "__main__":
    main()
