"""Every wait of a model call bounded and named (issue 29, items 3 and 4): a Retry-After
beyond ``max_retry_after_s`` (86400, inf) fails the call at once, the wait for a permit
stops at ``max_wait_s``, a new pause prints one notice, and a body is never read past
``max_response_bytes`` (a 127.0.0.1 server streaming spaces forever)."""

from __future__ import annotations

import asyncio
import random
import socket
import threading

import pytest

from sscbench.errors import HarnessFailure
from sscbench.llm.completion import complete_with_retries
from sscbench.llm.endpoint import OpenAIAgentConfig
from sscbench.llm.limiter import EndpointLimiter, parse_retry_after
from sscbench.llm.retry import ClientHolder, make_client, with_retries
from sscbench.llm.waits import PERMIT_TIMED_OUT, RETRY_AFTER_TOO_LONG
from sscbench.testing import Fail, OpenAIServer

BODY = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


def _complete(config: OpenAIAgentConfig) -> HarnessFailure:
    holder = ClientHolder(config)

    async def go() -> HarnessFailure:
        try:
            with pytest.raises(HarnessFailure) as failed:
                await complete_with_retries(
                    holder.get(), config, BODY, where="agent", what="the call", rng=random.Random(0)
                )
            return failed.value
        finally:
            await holder.aclose()

    return asyncio.run(go())


@pytest.mark.parametrize("asked", ["86400", "inf", "Fri, 31 Dec 9999 23:59:59 GMT"])
def test_a_retry_after_beyond_the_cap_fails_at_once_naming_it(asked):
    with OpenAIServer(lambda body: Fail(429, "slow down", {"Retry-After": asked})) as server:
        config = OpenAIAgentConfig(base_url=server.base_url, model="m", max_retries=4)
        failure = _complete(config)
        sent = len(server.requests)
    assert failure.kind == RETRY_AFTER_TOO_LONG
    assert "Retry-After" in failure.message and "max_retry_after_s = 120" in failure.message
    assert ("inf s" if asked == "inf" else "s (Retry-After)") in failure.message
    assert sent == 1  # not retried, not waited for


def test_without_flow_control_the_cap_holds_too():
    with OpenAIServer(lambda body: Fail(503, "down", {"Retry-After": "86400"})) as server:
        config = OpenAIAgentConfig(
            base_url=server.base_url, model="m", flow_control=False, max_retry_after_s=30
        )
        failure = _complete(config)
    assert failure.kind == RETRY_AFTER_TOO_LONG and "max_retry_after_s = 30" in failure.message


def test_nan_is_unreadable_and_inf_is_kept():
    assert parse_retry_after("nan") is None
    assert parse_retry_after("inf") == float("inf")


def test_the_wait_for_a_permit_is_bounded_and_named():
    limiter = EndpointLimiter(("http://127.0.0.1:9/v1", "m"), notify=lambda line: None)

    async def scenario() -> HarnessFailure:
        permit = await limiter.acquire()
        limiter.release(permit, "rate_limited", retry_after=3600)  # paused for an hour

        async def call() -> str:
            raise AssertionError("never sent: the permit never came")

        with pytest.raises(HarnessFailure) as failed:
            await with_retries(
                call,
                where="agent",
                what="the call",
                max_retries=3,
                backoff_initial=0,
                backoff_max=0,
                rng=random.Random(0),
                limiter=limiter,
                max_wait=0.05,
            )
        return failed.value

    failure = asyncio.run(scenario())
    assert failure.kind == PERMIT_TIMED_OUT
    assert "max_wait_s = 0.05" in failure.message and "http://127.0.0.1:9/v1" in failure.message
    assert limiter.in_flight == 0


def test_a_pause_prints_one_notice_at_most_once_a_minute():
    lines: list[str] = []
    now = [100.0]
    limiter = EndpointLimiter(("http://x/v1", "m"), clock=lambda: now[0], notify=lines.append)

    async def scenario() -> None:
        for step in (0.0, 5.0, 5.0, 60.0):  # pauses of 2 s, 5 s apart, then a minute on
            now[0] += step
            permits = [await limiter.acquire() for _ in range(3)]
            for permit in permits:  # three 429s of one pause
                limiter.release(permit, "rate_limited", retry_after=2)
            now[0] += 2.0  # the pause ends

    asyncio.run(scenario())
    assert lines == [
        "notice: endpoint http://x/v1 (m) paused 2 s (Retry-After)",
        "notice: endpoint http://x/v1 (m) paused 2 s (Retry-After; 2 more pauses since the "
        "last notice)",
    ]


class Spaces:
    """A 127.0.0.1 server answering 200 with a JSON content type and spaces forever
    (until the client goes away, or 64 MiB at most, so the test is bounded)."""

    def __init__(self, declare: int | None = None) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.declare = declare
        self.sent = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"

    def _serve(self) -> None:
        conn, _ = self.sock.accept()
        with conn:
            request = b""
            while b"\r\n\r\n" not in request:
                request += conn.recv(65536)
            head, _, body = request.partition(b"\r\n\r\n")
            length = int(
                next(
                    h for h in head.split(b"\r\n") if h.lower().startswith(b"content-length")
                ).split(b":")[1]
            )
            while len(body) < length:
                body += conn.recv(65536)
            size = b"" if self.declare is None else f"Content-Length: {self.declare}\r\n".encode()
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + size + b"\r\n")
            chunk = b" " * 65536
            try:
                while self.sent < 64 * 1024 * 1024:
                    conn.sendall(chunk)
                    self.sent += len(chunk)
            except OSError:
                pass  # the client hung up: what the cap is for

    def close(self) -> None:
        self.sock.close()
        self.thread.join(10)


@pytest.mark.parametrize("declare", [None, 10**12])
def test_a_body_over_the_cap_is_not_read_further(declare):
    server = Spaces(declare)
    try:
        config = OpenAIAgentConfig(
            base_url=server.base_url, model="m", max_retries=2, max_response_bytes=1024 * 1024
        )
        failure = _complete(config)
    finally:
        server.close()
    assert failure.kind == "bad response"
    assert "max_response_bytes = 1048576 (1 MiB)" in failure.message
    assert "not retryable" in failure.message
    assert server.sent < 64 * 1024 * 1024  # the client stopped reading and hung up


def test_the_sdk_client_caps_a_body_too():
    """The classifier's and oracles' calls go through the SDK client: same cap."""
    server = Spaces()
    try:
        config = OpenAIAgentConfig(
            base_url=server.base_url, model="m", max_retries=2, max_response_bytes=1024 * 1024
        )

        async def go() -> HarnessFailure:
            client = make_client(config)
            try:
                with pytest.raises(HarnessFailure) as failed:
                    await complete_with_retries(
                        client,
                        config,
                        BODY,
                        where="classifier",
                        what="the call",
                        rng=random.Random(0),
                    )
                return failed.value
            finally:
                await client.close()

        failure = asyncio.run(go())
    finally:
        server.close()
    assert failure.kind == "bad response", failure.message
    assert "max_response_bytes = 1048576 (1 MiB)" in failure.message
    assert server.sent < 64 * 1024 * 1024


def test_a_permit_granted_at_once_arms_no_timer(monkeypatch):
    from sscbench.llm import waits

    armed: list[float] = []
    real_timeout = asyncio.timeout

    def counting_timeout(delay):
        armed.append(delay)
        return real_timeout(delay)

    monkeypatch.setattr(waits.asyncio, "timeout", counting_timeout)
    limiter = EndpointLimiter(("u", "m"), max_concurrent=1)

    async def scenario() -> None:
        permit = await waits.take_permit(limiter, 0.0, 5.0, where="agent", what="call")
        assert armed == [] and limiter.in_flight == 1
        waiting = asyncio.ensure_future(
            waits.take_permit(limiter, 0.0, 5.0, where="agent", what="call")
        )
        await asyncio.sleep(0)
        assert armed == [5.0] and not waiting.done()  # a full window: bounded wait
        limiter.release(permit)
        await asyncio.wait_for(waiting, 1)

    asyncio.run(scenario())
