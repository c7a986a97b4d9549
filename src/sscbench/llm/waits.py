"""Every wait of a model call bounded, and named when it runs out.

A call waits in two places besides its attempts (each bounded by the endpoint's
``timeout``) and their backoff (bounded by ``backoff_max``):

* for the endpoint's **permit** (:mod:`sscbench.llm.limiter`: the concurrency window,
  the rate budgets, a ``Retry-After`` pause) — at most ``max_wait_s``
  (:func:`take_permit`), after which the run fails as a harness error naming the field;
* for a server's **Retry-After** — waited out only up to ``max_retry_after_s``: a
  server asking for longer (86400 s, ``inf``) is not waited for at all; the request
  fails at once as a harness error naming the Retry-After and the cap
  (:func:`retry_after_refusal`), and the endpoint is not paused for it.
"""

from __future__ import annotations

import asyncio
import math

from sscbench.errors import HarnessFailure
from sscbench.llm.limiter import EndpointLimiter, Permit

PERMIT_TIMED_OUT = "timed out waiting for the endpoint"
"""The failure kind of a call that waited ``max_wait_s`` for its permit."""
RETRY_AFTER_TOO_LONG = "retry-after too long"
"""The failure kind of a call whose server asked to wait beyond ``max_retry_after_s``."""


async def take_permit(
    limiter: EndpointLimiter, tokens: float, max_wait: float, *, where: str, what: str
) -> Permit:
    """The endpoint's permit for about ``tokens`` tokens, waited for ``max_wait`` s at
    most; then :class:`HarnessFailure` naming the bound (the run is missing, never an
    outcome; a retry would only queue again, so none is made). A permit granted at once
    is taken without arming the timer (at high concurrency, loop time on every request)."""
    permit = limiter.grant_now(tokens)
    if permit is not None:
        return permit
    try:
        async with asyncio.timeout(max_wait):
            return await limiter.acquire(tokens)
    except TimeoutError:
        url, model = limiter.key
        raise HarnessFailure(
            where,
            f"{what} waited {max_wait:g} s for a permit of the endpoint {url} ({model}) "
            f"and did not get one (max_wait_s = {max_wait:g}; {limiter.in_flight} requests "
            f"in flight, window {int(limiter.window)})",
            kind=PERMIT_TIMED_OUT,
        ) from None


def too_long(hinted: float | None, cap: float) -> bool:
    """Whether a server's Retry-After (seconds, ``inf`` included) exceeds the cap."""
    return hinted is not None and (math.isnan(hinted) or hinted > cap)


def retry_after_refusal(
    hinted: float, cap: float, *, where: str, what: str, attempts: int, description: str
) -> HarnessFailure:
    """The failure of a call whose server asked to retry after more than ``cap`` s."""
    asked = "inf" if math.isinf(hinted) else f"{hinted:g}"
    return HarnessFailure(
        where,
        f"{what} failed after {attempts} attempt{'s' if attempts != 1 else ''}: the server "
        f"asked to retry after {asked} s (Retry-After), beyond max_retry_after_s = {cap:g}; "
        f"not waited for: {description}",
        kind=RETRY_AFTER_TOO_LONG,
    )
