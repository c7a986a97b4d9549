"""Connections to OpenAI-compatible endpoints, shared by the model agent and the LLM user.

The ``openai`` client is built with its own retries switched off; :func:`with_retries`
retries transport failures (connection errors, timeouts, rate limits, 5xx) with
exponential backoff and jitter drawn from a seeded ``random.Random``, and fails at once
on errors a retry cannot fix (400, 401, 404, ...). Either way a final failure is a
:class:`~sscbench.errors.HarnessFailure`: the run is missing, never an outcome.

The API key is read from the environment variable the config names when a client is
built; it is never kept in a config, and is masked out of every failure message.
"""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import openai

from sscbench.agents.endpoint import EndpointConfig
from sscbench.errors import HarnessFailure
from sscbench.jsonl import dumps_line

T = TypeVar("T")

PLACEHOLDER_KEY = "sk-no-key"
"""The key sent when the named environment variable is unset (local servers ignore it)."""

RETRYABLE_STATUS = frozenset({408, 409, 429})
"""HTTP statuses retried besides every 5xx (the ones the ``openai`` client itself retries)."""


def read_api_key(config: EndpointConfig) -> str:
    """The key from the environment variable the config names, or a placeholder."""
    return os.environ.get(config.api_key_env) or PLACEHOLDER_KEY


def make_client(config: EndpointConfig) -> openai.AsyncOpenAI:
    """An ``AsyncOpenAI`` client for the endpoint, with the library's own retries off."""
    return openai.AsyncOpenAI(
        base_url=config.base_url,
        api_key=read_api_key(config),
        max_retries=0,
        timeout=config.timeout,
    )


class ClientHolder:
    """One client per event loop, built on first use and shared by the runs of a factory.

    A client's connection pool belongs to the loop it was first used in, so a new
    loop (a new ``asyncio.run``) gets a new client.
    """

    def __init__(self, config: EndpointConfig):
        self.config = config
        self._client: openai.AsyncOpenAI | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def get(self) -> openai.AsyncOpenAI:
        """The client for the running event loop."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            self._client = make_client(self.config)
            self._loop = loop
        return self._client

    async def aclose(self) -> None:
        """Close the client of the running loop, if there is one."""
        client, self._client, self._loop = self._client, None, None
        if client is not None:
            await client.close()

    def __repr__(self) -> str:
        return f"ClientHolder(base_url={self.config.base_url!r}, model={self.config.model!r})"


def new_usage() -> dict[str, int]:
    """Zeroed token and request counters."""
    return {
        "requests": 0,
        "retries": 0,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "total_tokens": 0,
    }


def add_usage(usage: dict[str, int], response: Any) -> None:
    """Add one response's token counts (absent counts add nothing)."""
    usage["requests"] += 1
    counts = getattr(response, "usage", None)
    for name in ("prompt_tokens", "completion_tokens", "total_tokens"):
        value = getattr(counts, name, None) if counts is not None else None
        if isinstance(value, int):
            usage[name] += value


def is_retryable(exc: BaseException) -> bool:
    """True for transport failures a later attempt may get past."""
    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code >= 500 or exc.status_code in RETRYABLE_STATUS
    return False


def backoff_delay(attempt: int, initial: float, maximum: float, rng: random.Random) -> float:
    """Seconds to wait after failed attempt ``attempt`` (0-based): capped doubling, jittered.

    The capped exponential delay is scaled by a factor drawn uniformly from [0.5, 1).
    """
    base = min(maximum, initial * (2.0**attempt))
    return base * (0.5 + 0.5 * rng.random())


def _retry_after(exc: BaseException) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    value = headers.get("retry-after")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def describe_error(exc: BaseException, secrets: Sequence[str] = ()) -> str:
    """A one-line description of an API error with every secret masked."""
    status = getattr(exc, "status_code", None)
    text = f"{type(exc).__name__}" + (f" (HTTP {status})" if status is not None else "")
    message = str(exc).strip()
    if message:
        text += f": {message.splitlines()[0]}"
    return redact(text, secrets)


def redact(text: str, secrets: Sequence[str]) -> str:
    """``text`` with every secret replaced by ``***``.

    The placeholder key and strings under 8 characters (which would mangle ordinary
    words and cannot be real keys) are left alone.
    """
    for secret in secrets:
        if len(secret) >= 8 and secret != PLACEHOLDER_KEY:
            text = text.replace(secret, "***")
    return text


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
) -> T:
    """Await ``call()``; retry transport failures up to ``max_retries`` times.

    Raises :class:`HarnessFailure` (``where``, "``what`` failed after N attempts: ...")
    when the retries are exhausted or the error is not retryable. Only ``openai``
    errors are handled; anything else propagates as it is.
    """
    attempt = 0
    while True:
        try:
            return await call()
        except openai.OpenAIError as exc:
            retryable = is_retryable(exc)
            attempts = attempt + 1
            if not retryable or attempt >= max_retries:
                kind = "" if retryable else " (not retryable)"
                raise HarnessFailure(
                    where,
                    f"{what} failed after {attempts} attempt{'s' if attempts != 1 else ''}"
                    f"{kind}: {describe_error(exc, secrets)}",
                ) from None
            delay = backoff_delay(attempt, backoff_initial, backoff_max, rng)
            hinted = _retry_after(exc)
            if hinted is not None:
                delay = min(backoff_max, max(delay, hinted))
            if on_retry is not None:
                on_retry(attempt, exc)
            attempt += 1
            await sleep(delay)


async def chat_completion(client: openai.AsyncOpenAI, body: dict[str, Any]) -> Any:
    """POST a plain-JSON chat-completions body with the real client and parse the reply.

    ``chat.completions.create`` first walks the whole request through the SDK's typed
    transform (several milliseconds for a τ-bench prompt with its tool schemas); our
    body is already plain JSON, so it is sent as it is. Transport, status errors and
    response parsing are the SDK's own.
    """
    from openai.types.chat import ChatCompletion

    return await client.post(
        "/chat/completions",
        content=request_bytes(body),
        options={"headers": {"Content-Type": "application/json"}},
        cast_to=ChatCompletion,
    )


def request_bytes(body: dict[str, Any]) -> bytes:
    """The UTF-8 JSON of a request body; a lone surrogate (model output the SDK's own
    encoder cannot send) goes out as its ``\\uXXXX`` escape, the text the model emitted."""
    return dumps_line(body).encode("utf-8")


async def complete_with_retries(
    client: openai.AsyncOpenAI,
    config: EndpointConfig,
    body: dict[str, Any],
    *,
    where: str,
    what: str,
    rng: random.Random,
    usage: dict[str, int] | None = None,
) -> Any:
    """One chat completion with the config's retries; counts retries and tokens in ``usage``."""

    def count_retry(_attempt: int, _exc: BaseException) -> None:
        if usage is not None:
            usage["retries"] += 1

    response = await with_retries(
        lambda: chat_completion(client, body),
        where=where,
        what=what,
        max_retries=config.max_retries,
        backoff_initial=config.backoff_initial,
        backoff_max=config.backoff_max,
        rng=rng,
        secrets=(client.api_key,),
        on_retry=count_retry,
    )
    if usage is not None:
        add_usage(usage, response)
    return response
