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
from typing import Any, TypeVar

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
    estimate_tokens,
    limiter_for,
)
from sscbench.llm.secrets import PLACEHOLDER_KEY, redact
from sscbench.llm.transport import (
    CappedTransport,
    ChatTransport,
    ResponseTooLarge,
    pool_size,
    request_bytes,
)
from sscbench.llm.usage import add_usage, new_usage
from sscbench.llm.waits import retry_after_refusal, take_permit, too_long

# re-exported: the first two live in llm.secrets, request_bytes in llm.transport, the
# usage counters in llm.usage
__all__ = ["PLACEHOLDER_KEY", "add_usage", "new_usage", "redact", "request_bytes"]

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
    sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
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
    attempt = 0
    while True:
        if health is not None:
            health.check()
        permit: Permit | None = None
        if limiter is not None:
            permit = await take_permit(limiter, tokens, max_wait, where=where, what=what)
        try:
            if timeout is None:
                result = await call()
            else:
                async with asyncio.timeout(timeout):  # no task per attempt, as wait_for has
                    result = await call()
            if health is not None:
                health.record(None)
            if permit is not None and limiter is not None:
                limiter.release(permit, "ok", tokens=used_tokens(result) if used_tokens else None)
            return result
        except (openai.OpenAIError, TimeoutError, BadResponseBody) as exc:
            hinted = retry_after_of(exc)
            refused = too_long(hinted, max_retry_after)
            if permit is not None and limiter is not None:
                limited = "rate_limited" if is_rate_limited(exc) else "error"
                limiter.release(permit, limited, retry_after=None if refused else hinted)
            if on_error is not None:
                on_error(exc)
            retryable = is_retryable(exc)
            attempts = attempt + 1
            description = describe_error(exc, secrets, timeout)
            if health is not None:
                health.record(exc, description)
                health.check()
            waiting = health is not None and health.pending and failure_kind(exc) == CONNECT_FAILED
            if refused and retryable and hinted is not None:
                raise retry_after_refusal(
                    hinted,
                    max_retry_after,
                    where=where,
                    what=what,
                    attempts=attempts,
                    description=description,
                ) from None
            if not retryable or (attempt >= max_retries and not waiting):
                kind = "" if retryable else " (not retryable)"
                raise HarnessFailure(
                    where,
                    f"{what} failed after {attempts} attempt{'s' if attempts != 1 else ''}"
                    f"{kind}: {description}",
                    kind=failure_kind(exc),
                ) from None
            delay = backoff_delay(attempt, backoff_initial, backoff_max, rng)
            if hinted is not None and limiter is not None:
                delay = 0.0  # the endpoint is paused for everyone; the permit waits it out
            elif hinted is not None:
                delay = min(backoff_max, max(delay, hinted))
            if on_retry is not None:
                on_retry(attempt, exc)
            attempt += 1
            await sleep(delay)
        finally:
            if permit is not None and limiter is not None and not permit.released:
                # cancelled mid-attempt
                limiter.release(permit, "error")


async def chat_completion(client: openai.AsyncOpenAI | ChatTransport, body: dict[str, Any]) -> Any:
    """POST a plain-JSON chat-completions body and parse the reply.

    ``chat.completions.create`` first walks the whole request through the SDK's typed
    transform (several milliseconds for a τ-bench prompt with its tool schemas); our
    body is already plain JSON, so it is sent as it is. With a :class:`ChatTransport`
    (a study's agents and users) it goes over the transport's aiohttp pool; with an SDK
    client (the classifier, the oracles) through the SDK. Either way status errors and
    response parsing are the SDK's own.
    """
    from openai.types.chat import ChatCompletion

    try:
        if isinstance(client, ChatTransport):
            return await client.post(request_bytes(body))
        return await client.post(
            "/chat/completions",
            content=request_bytes(body),
            options={"headers": {"Content-Type": "application/json"}},
            cast_to=ChatCompletion,
        )
    except ResponseTooLarge as exc:  # read no further than the cap
        raise BadResponseBody(str(exc)) from None
    except openai.APIConnectionError as exc:  # the SDK wraps the cap's error
        if isinstance(exc.__cause__, ResponseTooLarge):
            raise BadResponseBody(str(exc.__cause__)) from None
        raise
    except ValueError as exc:  # a JSON content type over a body that is not JSON
        raise BadResponseBody(f"the body is not valid JSON ({exc})") from None


async def complete_with_retries(
    client: openai.AsyncOpenAI | ChatTransport,
    config: EndpointConfig,
    body: dict[str, Any],
    *,
    where: str,
    what: str,
    rng: random.Random,
    usage: dict[str, int] | None = None,
    health: EndpointHealth | None = None,
    journal: Any = None,
    call: Callable[[], Awaitable[Any]] | None = None,
) -> Any:
    """One chat completion with the config's retries and whole-response timeout; counts
    retries and tokens in ``usage``; ``health`` stops early on a dead endpoint. A run's
    ``journal`` (:mod:`sscbench.llm.journal`) answers what it recorded and records the
    rest; ``call`` replaces the POST of ``body`` (the journal's, keeping the raw body)."""
    if journal is not None and isinstance(client, ChatTransport):
        from sscbench.llm.journal import journaled_completion

        return await journaled_completion(
            journal, client, config, body, where, what, rng, usage, health
        )

    def count_retry(_attempt: int, _exc: BaseException) -> None:
        if usage is not None:
            usage["retries"] += 1

    def count_error(exc: BaseException) -> None:
        if usage is not None and is_rate_limited(exc):
            usage["rate_limited"] = usage.get("rate_limited", 0) + 1

    def answer_tokens(response: Any) -> float | None:
        value = getattr(getattr(response, "usage", None), "total_tokens", None)
        return float(value) if isinstance(value, int) and not isinstance(value, bool) else None

    limiter = limiter_for(config)
    tokens = (
        estimate_tokens(len(request_bytes(body)), config.max_tokens)
        if limiter is not None and limiter.tokens_per_minute
        else 0.0
    )
    response = await with_retries(
        call or (lambda: chat_completion(client, body)),
        where=where,
        what=what,
        max_retries=config.max_retries,
        backoff_initial=config.backoff_initial,
        backoff_max=config.backoff_max,
        rng=rng,
        secrets=(client.api_key,),
        on_retry=count_retry,
        timeout=config.timeout,
        health=health,
        limiter=limiter,
        tokens=tokens,
        used_tokens=answer_tokens,
        on_error=count_error,
        max_wait=config.max_wait_s,
        max_retry_after=config.max_retry_after_s,
    )
    if usage is not None:
        add_usage(usage, response)
    return response
