"""Endpoint flow control: Retry-After, AIMD, rate budgets, shared limiters, retry budgets.

The limiter's clock and sleep are injected, so nothing here waits for real time.
"""

from __future__ import annotations

import asyncio
import email.utils
import itertools
import random

import httpx
import openai
import pytest

from sscbench.errors import DataError, HarnessFailure
from sscbench.llm.endpoint import OpenAIAgentConfig
from sscbench.llm.limiter import EndpointLimiter, limiter_for, parse_retry_after
from sscbench.llm.retry import with_retries
from sscbench.testing import OpenAIServer


class FakeTime:
    """A clock that only moves when someone sleeps."""

    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += max(0.0, seconds)
        await asyncio.sleep(0)


def rate_limited(retry_after: str | None = "2") -> openai.RateLimitError:
    headers = {"retry-after": retry_after} if retry_after is not None else {}
    response = httpx.Response(
        429, headers=headers, request=httpx.Request("POST", "http://127.0.0.1/v1/chat")
    )
    return openai.RateLimitError("rate limit exceeded", response=response, body=None)


def test_retry_after_reads_seconds_and_http_dates():
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after(" 0.5 ") == 0.5
    assert parse_retry_after("-4") == 0.0
    date = email.utils.formatdate(1_000_030, usegmt=True)
    assert parse_retry_after(date, now=1_000_000) == pytest.approx(30.0)
    assert parse_retry_after(date, now=1_000_100) == 0.0  # in the past: go now
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None


def test_a_429_with_retry_after_pauses_the_whole_endpoint():
    fake = FakeTime()
    limiter = EndpointLimiter(("u", "m"), clock=fake.clock, sleep=fake.sleep)
    calls: list[float] = []

    async def scenario() -> list[str]:
        first = True

        async def call() -> str:
            nonlocal first
            calls.append(fake.now)
            if first:
                first = False
                raise rate_limited("2")
            return "ok"

        a = await with_retries(
            call,
            where="agent",
            what="x",
            max_retries=3,
            backoff_initial=0.0,
            backoff_max=0.0,
            rng=random.Random(0),
            sleep=fake.sleep,
            limiter=limiter,
        )

        async def other() -> str:
            calls.append(fake.now)
            return "other"

        permit = await limiter.acquire()  # another run's call to the same endpoint
        limiter.release(permit)
        return [a, await other()]

    assert asyncio.run(scenario()) == ["ok", "other"]
    # the retry went out 2 s after the 429, not at once; the pause was the endpoint's
    assert calls[1] - calls[0] == pytest.approx(2.0)
    assert limiter.stats.rate_limited == 1 and limiter.stats.paused_s == pytest.approx(2.0)


def test_other_callers_wait_out_a_pause_too():
    fake = FakeTime()
    limiter = EndpointLimiter(("u", "m"), clock=fake.clock, sleep=fake.sleep)

    async def scenario() -> float:
        permit = await limiter.acquire()
        limiter.release(permit, "rate_limited", retry_after=5)
        start = fake.now
        await limiter.acquire()
        return fake.now - start

    assert asyncio.run(scenario()) == pytest.approx(5.0)


def test_aimd_halves_once_per_congestion_event_and_recovers():
    limiter = EndpointLimiter(("u", "m"), max_concurrent=16)

    async def scenario() -> None:
        assert limiter.window == 16
        old = [await limiter.acquire() for _ in range(4)]  # all sent before any 429
        limiter.release(old[0], "rate_limited")
        assert limiter.window == 8
        limiter.release(old[1], "rate_limited")  # same event: no second cut
        assert limiter.window == 8 and limiter.stats.cuts == 1
        fresh = await limiter.acquire()  # sent after the cut: a new event cuts again
        limiter.release(fresh, "rate_limited")
        assert limiter.window == 4 and limiter.stats.cuts == 2
        for permit in old[2:]:
            limiter.release(permit, "error")  # other failures leave the window alone
        assert limiter.window == 4
        for _ in range(200):  # successes grow it back by 1/window each, up to the cap
            limiter.release(await limiter.acquire(), "ok")
        assert limiter.window == 16

    asyncio.run(scenario())


def test_the_window_caps_requests_in_flight():
    limiter = EndpointLimiter(("u", "m"), max_concurrent=2)
    peak = 0

    async def one() -> None:
        nonlocal peak
        permit = await limiter.acquire()
        peak = max(peak, limiter.in_flight)
        await asyncio.sleep(0.001)
        limiter.release(permit)

    async def scenario() -> None:
        await asyncio.gather(*(one() for _ in range(10)))

    asyncio.run(scenario())
    assert peak == 2 and limiter.in_flight == 0 and limiter.stats.granted == 10


def test_a_requests_per_minute_budget_spaces_requests_evenly():
    fake = FakeTime()
    limiter = EndpointLimiter(
        ("u", "m"), requests_per_minute=60, clock=fake.clock, sleep=fake.sleep
    )

    async def scenario() -> list[float]:
        starts = []
        for _ in range(5):
            limiter.release(await limiter.acquire())
            starts.append(fake.now)
        return starts

    starts = asyncio.run(scenario())
    # a tenth of a second of burst, then one request a second
    assert [b - a for a, b in itertools.pairwise(starts)] == pytest.approx([0.9, 1.0, 1.0, 1.0])


def test_a_tokens_per_minute_budget_settles_with_the_real_tokens():
    fake = FakeTime()
    limiter = EndpointLimiter(("u", "m"), tokens_per_minute=600, clock=fake.clock, sleep=fake.sleep)

    async def scenario() -> float:
        permit = await limiter.acquire(tokens=10)  # 10 tokens a second may go
        limiter.release(permit, tokens=310)  # it really took 310: 30 s of budget
        start = fake.now
        limiter.release(await limiter.acquire(tokens=10))
        return fake.now - start

    assert asyncio.run(scenario()) == pytest.approx(30.0, abs=1.01)


def test_retries_never_exceed_the_budget_under_a_429_storm():
    fake = FakeTime()
    limiter = EndpointLimiter(("u", "m"), clock=fake.clock, sleep=fake.sleep)
    attempts = 0

    async def call() -> str:
        nonlocal attempts
        attempts += 1
        raise rate_limited("1")

    async def scenario() -> None:
        await with_retries(
            call,
            where="agent",
            what="chat completion",
            max_retries=3,
            backoff_initial=0.0,
            backoff_max=0.0,
            rng=random.Random(0),
            sleep=fake.sleep,
            limiter=limiter,
        )

    with pytest.raises(HarnessFailure) as caught:
        asyncio.run(scenario())
    assert attempts == 4  # one attempt and three retries, never more
    assert caught.value.kind == "HTTP 429" and "after 4 attempts" in caught.value.message
    assert limiter.in_flight == 0


def test_one_limiter_per_endpoint_in_a_loop():
    agent = OpenAIAgentConfig(base_url="http://h/v1/", model="m", max_concurrent=8)
    user = OpenAIAgentConfig(base_url="http://h/v1", model="m", requests_per_minute=30)
    other = OpenAIAgentConfig(base_url="http://h/v1", model="n")
    off = OpenAIAgentConfig(base_url="http://h/v1", model="m", flow_control=False)

    async def scenario():
        a, b, c = limiter_for(agent), limiter_for(user), limiter_for(other)
        return a, b, c, limiter_for(off)

    a, b, c, none = asyncio.run(scenario())
    assert a is b and a is not c and none is None
    assert a.max_concurrent == 8 and a.requests_per_minute == 30  # the strictest of both
    d = asyncio.run(scenario())[0]
    assert d is not a  # a new event loop (the next study) starts afresh


def test_limits_are_out_of_the_config_hash_and_checked(tmp_path):
    from sscbench.study.config import parse_config

    base = '[[agents]]\nid = "m"\nkind = "openai"\n[agents.endpoint]\nbase_url = "http://h"\nmodel = "m"\n'
    plain = parse_config(base, "a.toml")
    limited = parse_config(base + "requests_per_minute = 600\nmax_concurrent = 4\n", "b.toml")
    assert plain.config_hash() == limited.config_hash()
    with pytest.raises(DataError) as caught:
        parse_config(base + "requests_per_minute = -1\n", "c.toml")
    assert caught.value.field == "agents[0].endpoint.requests_per_minute"
    assert str(caught.value.path) == "c.toml"


def test_the_test_server_answers_over_its_limit_with_429_and_retry_after():
    with OpenAIServer(rate_limit=1.0, retry_after="7") as server:
        client = httpx.Client()
        body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
        url = f"{server.base_url}/chat/completions"
        first = client.post(url, json=body)
        second = client.post(url, json=body)
        client.close()
    assert first.status_code == 200
    assert second.status_code == 429 and second.headers["retry-after"] == "7"
    assert len(server.admitted) == 1 and server.rejected == 1


def test_a_permit_is_granted_at_once_only_when_acquire_would_not_wait():
    fake = FakeTime()
    limiter = EndpointLimiter(("u", "m"), max_concurrent=2, clock=fake.clock, sleep=fake.sleep)
    first, second = limiter.grant_now(), limiter.grant_now()
    assert first is not None and second is not None
    assert limiter.grant_now() is None  # the window is full: acquire would wait
    assert limiter.in_flight == 2 and limiter.stats.granted == 2
    assert limiter.stats.max_in_flight == 2
    limiter.release(first, "rate_limited", retry_after=5.0)
    assert limiter.grant_now() is None  # paused: acquire would wait the pause out
    limiter.release(second)  # the 429 halved the window to 1: now free
    assert limiter.grant_now() is None  # still paused
    fake.now += 5.0
    assert limiter.grant_now() is not None
    budgeted = EndpointLimiter(("u", "m"), requests_per_minute=60, clock=fake.clock)
    assert budgeted.grant_now() is None  # a budget reserves a start time: acquire's to do
    tokens = EndpointLimiter(("u", "m"), tokens_per_minute=1000, clock=fake.clock)
    assert tokens.grant_now(10.0) is None and tokens.grant_now(0.0) is not None
