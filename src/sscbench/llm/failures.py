"""What a failed call to an OpenAI-compatible endpoint was: its short kind, whether a
later attempt may get past it, how long to back off, what its ``Retry-After`` asks for,
and a one-line description with every secret masked (used by :mod:`sscbench.llm.retry`
and the response journal)."""

from __future__ import annotations

import random
from collections.abc import Sequence

import openai

from sscbench.llm.limiter import parse_retry_after
from sscbench.llm.secrets import redact

RETRYABLE_STATUS = frozenset({408, 409, 429})
"""HTTP statuses retried besides every 5xx (the ones the ``openai`` client itself retries)."""


class BadResponseBody(Exception):
    """A 200 answer whose body could not be parsed (declared JSON, but is not)."""


CONNECT_FAILED = "connection failed"
TIMED_OUT = "timed out"


def failure_kind(exc: BaseException) -> str:
    """A short class of a failed attempt, for the index reason and the live counts."""
    if isinstance(exc, TimeoutError | openai.APITimeoutError):
        return TIMED_OUT
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__
        names = {cls.__name__ for cls in type(cause).__mro__} if cause is not None else set()
        return CONNECT_FAILED if "ConnectError" in names else "connection lost"
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}"
    if isinstance(exc, BadResponseBody):
        return "bad response"
    return type(exc).__name__


def is_retryable(exc: BaseException) -> bool:
    """True for transport failures a later attempt may get past."""
    if isinstance(exc, openai.APIConnectionError | TimeoutError):  # incl. APITimeoutError
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


def retry_after_of(exc: BaseException) -> float | None:
    """The seconds a failed answer's ``Retry-After`` asks for (delay-seconds or HTTP date)."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    return parse_retry_after(headers.get("retry-after"))


def is_rate_limited(exc: BaseException) -> bool:
    """True for an answer with status 429 (rate limited)."""
    return isinstance(exc, openai.APIStatusError) and exc.status_code == 429


def describe_error(
    exc: BaseException, secrets: Sequence[str] = (), timeout: float | None = None
) -> str:
    """A one-line description of an API error (and its cause) with every secret masked."""
    if isinstance(exc, TimeoutError):
        limit = f" within the endpoint timeout of {timeout:g} s" if timeout else ""
        return f"TimeoutError: no complete response{limit}"
    status = getattr(exc, "status_code", None)
    text = f"{type(exc).__name__}" + (f" (HTTP {status})" if status is not None else "")
    message = str(exc).strip()
    if message:
        text += f": {message.splitlines()[0]}"
    cause = exc.__cause__
    if isinstance(exc, openai.APIConnectionError) and cause is not None and str(cause).strip():
        text += f" ({type(cause).__name__}: {str(cause).strip().splitlines()[0]})"
    return redact(text, secrets)
