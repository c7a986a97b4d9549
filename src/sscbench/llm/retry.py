"""Connections to OpenAI-compatible endpoints, shared by the model agent and the LLM user.

The ``openai`` client is built with its own retries switched off; :func:`with_retries`
retries transport failures (connection errors, timeouts, rate limits, 5xx) with
exponential backoff and jitter drawn from a seeded ``random.Random``, and fails at once
on errors a retry cannot fix (400, 401, 404, a body that is not JSON, ...). Either way
a final failure is a :class:`~sscbench.errors.HarnessFailure` with a short ``kind``
("connection failed", "timed out", "HTTP 500", "bad response"): the run is missing,
never an outcome.

The endpoint's ``timeout`` bounds each whole attempt (connect, wait, and reading the
body to its end), so a server trickling a byte a second is cut at ``timeout``.

:class:`EndpointHealth` watches each endpoint: when its first ``unreachable_after``
requests all fail to connect (it never answered at all), every call raises
:class:`~sscbench.errors.EndpointUnreachable` and the study or measurement stops
with that message instead of recording a missing run per call.

The API key is read from the environment variable the config names when a client is
built; it is never kept in a config, and it (and any fragment of it) is masked out of
every failure message (:mod:`sscbench.llm.secrets`).
"""

from __future__ import annotations

import asyncio
import functools
import os
import random
import ssl
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import httpx2
import openai

from sscbench.errors import EndpointUnreachable, HarnessFailure
from sscbench.llm.endpoint import MAX_RETRY_AFTER_S, MAX_WAIT_S, EndpointConfig
from sscbench.llm.failures import (
    CONNECT_FAILED,
    BadResponseBody,
    backoff_delay,
    describe_error,
    failure_kind,
    is_rate_limited,
    is_retryable,
    retry_after_of,
)
from sscbench.llm.limiter import (
    EndpointLimiter,
    Permit,
)
from sscbench.llm.secrets import PLACEHOLDER_KEY
from sscbench.llm.transport import (
    CappedTransport,
    ChatTransport,
    pool_size,
)
from sscbench.llm.waits import retry_after_refusal, take_permit, too_long

T = TypeVar("T")


def read_api_key(config: EndpointConfig) -> str:
    """The key from the environment variable the config names, or a placeholder."""
    return os.environ.get(config.api_key_env) or PLACEHOLDER_KEY


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """One TLS context for every client of the process (loading the system's certificates
    costs tens of milliseconds per client otherwise)."""
    return ssl.create_default_context()


def make_client(config: EndpointConfig) -> openai.AsyncOpenAI:
    """An ``AsyncOpenAI`` client for the endpoint, with the library's own retries off and a
    connection pool as large as the endpoint's concurrency (:func:`pool_size`), every
    connection kept alive (httpx's defaults would keep 20 and reconnect the rest), and
    no body read past ``max_response_bytes`` (:class:`CappedTransport`)."""
    size = pool_size(config)
    return openai.AsyncOpenAI(
        base_url=config.base_url,
        api_key=read_api_key(config),
        max_retries=0,
        timeout=config.timeout,
        http_client=openai.DefaultAsyncHttpxClient(
            timeout=config.timeout,
            transport=CappedTransport(
                httpx2.AsyncHTTPTransport(
                    verify=_tls_context(),
                    limits=httpx2.Limits(max_connections=size, max_keepalive_connections=size),
                ),
                config.max_response_bytes,
            ),
        ),
    )


class EndpointHealth:
    """Whether an endpoint ever answered, and how many requests failed to connect before.

    Any HTTP answer (even an error status) counts as answered; a refused or failed
    connection before the first answer counts against the endpoint. When
    ``unreachable_after`` (> 0) such failures have piled up, :meth:`check` raises
    :class:`EndpointUnreachable` for every later call. Shared by all runs of a factory.
    """

    def __init__(self, url: str, unreachable_after: int):
        self.url = url
        self.unreachable_after = unreachable_after
        self.answered = False
        self.connect_failures = 0
        self.last_error = ""

    @property
    def pending(self) -> bool:
        """True while the endpoint never answered and may still be declared unreachable."""
        return self.unreachable_after > 0 and not self.answered

    @property
    def unreachable(self) -> bool:
        """True once the first ``unreachable_after`` requests all failed to connect."""
        return self.pending and self.connect_failures >= self.unreachable_after

    def record(self, exc: BaseException | None, description: str = "") -> None:
        """Note one attempt's outcome (None: the endpoint answered)."""
        if exc is None or isinstance(exc, openai.APIStatusError | BadResponseBody):
            self.answered = True
        elif failure_kind(exc) == CONNECT_FAILED and not self.answered:
            self.connect_failures += 1
            self.last_error = description

    def check(self) -> None:
        """Raise :class:`EndpointUnreachable` once the endpoint is declared unreachable."""
        if self.unreachable:
            raise EndpointUnreachable(
                self.url,
                f"endpoint unreachable: its first {self.connect_failures} requests all failed "
                f"to connect (last: {self.last_error}). Stopped early; nothing was recorded for "
                "the calls in flight. Start the server or correct base_url, then run the same "
                "command again (a study resumes where it stopped). The endpoint field "
                "unreachable_after sets how many failed requests stop it (0: never).",
            )


class ClientHolder:
    """The transport of one endpoint per event loop, built on first use and shared by the
    runs of a factory: one :class:`~sscbench.llm.transport.ChatTransport` (one pool of
    keep-alive connections sized by :func:`~sscbench.llm.transport.pool_size`, beside
    the SDK client whose headers, key and error types it uses).

    A pool belongs to the loop it was first used in, so a new loop (a new
    ``asyncio.run``) gets a new transport. ``health`` is the endpoint's
    :class:`EndpointHealth`, shared across loops.
    """

    def __init__(self, config: EndpointConfig):
        self.config = config
        self.health = EndpointHealth(config.base_url, config.unreachable_after)
        self._transport: ChatTransport | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def get(self) -> ChatTransport:
        """The transport of the running event loop."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop or self._transport is None:
            self._transport = ChatTransport(
                make_client(self.config),
                pool_size(self.config),
                max_body=self.config.max_response_bytes,
            )
            self._loop = loop
        return self._transport

    async def aclose(self) -> None:
        """Close the running loop's transport, if there is one."""
        transport, self._transport, self._loop = self._transport, None, None
        if transport is not None:
            await transport.aclose()

    def __repr__(self) -> str:
        return f"ClientHolder(base_url={self.config.base_url!r}, model={self.config.model!r})"


@dataclass(frozen=True)
class _RetrySettings:
    """What decides, after a failed attempt of :func:`with_retries`, whether and how long
    to wait before the next one."""

    where: str
    what: str
    max_retries: int
    backoff_initial: float
    backoff_max: float
    rng: random.Random
    secrets: Sequence[str]
    timeout: float | None
    health: EndpointHealth | None
    limited: bool  # the endpoint has a limiter: a Retry-After pauses it for every call
    max_retry_after: float


async def _attempt(call: Callable[[], Awaitable[T]], timeout: float | None) -> T:
    """One attempt of ``call()``, bounded as a whole by ``timeout`` (None: unbounded)."""
    if timeout is None:
        return await call()
    async with asyncio.timeout(timeout):  # no task per attempt, as wait_for has
        return await call()


def _give_back_failed(
    limiter: EndpointLimiter | None,
    permit: Permit | None,
    exc: BaseException,
    retry_after: float | None,
) -> None:
    """Give a failed attempt's permit back to the limiter, with the failure's kind and the
    Retry-After the endpoint pauses for (None: none, or one too long to wait)."""
    if permit is not None and limiter is not None:
        limited = "rate_limited" if is_rate_limited(exc) else "error"
        limiter.release(permit, limited, retry_after=retry_after)


def _delay_after(
    settings: _RetrySettings,
    exc: BaseException,
    attempt: int,
    hinted: float | None,
    refused: bool,
) -> float:
    """The wait before the next attempt after attempt ``attempt`` failed with ``exc``, or
    raise :class:`HarnessFailure` when the failure ends the call (not retryable, retries
    exhausted, a Retry-After longer than allowed)."""
    retryable = is_retryable(exc)
    attempts = attempt + 1
    description = describe_error(exc, settings.secrets, settings.timeout)
    health = settings.health
    if health is not None:
        health.record(exc, description)
        health.check()
    waiting = health is not None and health.pending and failure_kind(exc) == CONNECT_FAILED
    if refused and retryable and hinted is not None:
        raise retry_after_refusal(
            hinted,
            settings.max_retry_after,
            where=settings.where,
            what=settings.what,
            attempts=attempts,
            description=description,
        ) from None
    if not retryable or (attempt >= settings.max_retries and not waiting):
        kind = "" if retryable else " (not retryable)"
        raise HarnessFailure(
            settings.where,
            f"{settings.what} failed after {attempts} attempt{'s' if attempts != 1 else ''}"
            f"{kind}: {description}",
            kind=failure_kind(exc),
        ) from None
    delay = backoff_delay(attempt, settings.backoff_initial, settings.backoff_max, settings.rng)
    if hinted is not None and settings.limited:
        delay = 0.0  # the endpoint is paused for everyone; the permit waits it out
    elif hinted is not None:
        delay = min(settings.backoff_max, max(delay, hinted))
    return delay


async def with_retries(
    call: Callable[[], Awaitable[T]],
    *,
    where: str,
    what: str,
    max_retries: int,
    backoff_initial: float,
    backoff_max: float,
    rng: random.Random,
    secrets: Sequence[str] = (),
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    on_retry: Callable[[int, BaseException], None] | None = None,
    timeout: float | None = None,
    health: EndpointHealth | None = None,
    limiter: EndpointLimiter | None = None,
    tokens: float = 0.0,
    used_tokens: Callable[[T], float | None] | None = None,
    on_error: Callable[[BaseException], None] | None = None,
    max_wait: float = MAX_WAIT_S,
    max_retry_after: float = MAX_RETRY_AFTER_S,
) -> T:
    """Await ``call()``; retry transport failures up to ``max_retries`` times.

    ``timeout`` bounds each whole attempt. Raises :class:`HarnessFailure` (``where``,
    "``what`` failed after N attempts: ...", with the failure's kind) when the retries
    are exhausted or the error is not retryable. With ``health``, an endpoint that never
    answered keeps being retried until it answers or is declared unreachable
    (:class:`EndpointUnreachable`), so no run is recorded missing for a dead endpoint.
    Only ``openai`` errors, timeouts and unparseable bodies are handled; anything else
    propagates as it is. With ``limiter`` (:mod:`sscbench.llm.limiter`) each attempt
    first takes the endpoint's permit for about ``tokens`` tokens (waiting is not an
    attempt) and gives it back with its outcome (``used_tokens`` reads an answer's real
    tokens); a 429's ``Retry-After`` then pauses the whole endpoint instead of this call
    alone. ``on_error`` sees every failed attempt. Every wait is bounded
    (:mod:`sscbench.llm.waits`): the permit by ``max_wait`` s, a Retry-After by
    ``max_retry_after`` s (a longer one fails the call at once, unwaited).
    """
    settings = _RetrySettings(
        where,
        what,
        max_retries,
        backoff_initial,
        backoff_max,
        rng,
        secrets,
        timeout,
        health,
        limiter is not None,
        max_retry_after,
    )
    attempt = 0
    while True:
        if health is not None:
            health.check()
        permit: Permit | None = None
        if limiter is not None:
            permit = await take_permit(limiter, tokens, max_wait, where=where, what=what)
        try:
            result = await _attempt(call, timeout)
            if health is not None:
                health.record(None)
            if permit is not None and limiter is not None:
                limiter.release(permit, "ok", tokens=used_tokens(result) if used_tokens else None)
            return result
        except (openai.OpenAIError, TimeoutError, BadResponseBody) as exc:
            hinted = retry_after_of(exc)
            refused = too_long(hinted, max_retry_after)
            _give_back_failed(limiter, permit, exc, None if refused else hinted)
            if on_error is not None:
                on_error(exc)
            delay = _delay_after(settings, exc, attempt, hinted, refused)
            if on_retry is not None:
                on_retry(attempt, exc)
            attempt += 1
            await sleep(delay)
        finally:
            if permit is not None and limiter is not None and not permit.released:
                # cancelled mid-attempt
                limiter.release(permit, "error")
