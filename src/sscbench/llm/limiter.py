"""Endpoint-level flow control: one limiter per endpoint (base URL + model) per study.

Agent, user and classifier calls to one endpoint in one event loop (a study's run is
one loop) share its :class:`EndpointLimiter` (:func:`limiter_for`), so a study meets a provider's limits as one client, not as many
workers backing off alone. Before each attempt a call takes a permit:

* **requests per minute / tokens per minute** — optional budgets enforced by scheduling
  (GCRA): each permit reserves the next free start time, so requests go out evenly at
  the budget's pace, first come first served, with a burst of a tenth of a second;
  after a pause the waiting calls start again spaced at that pace, not all at once;
  tokens are reserved by estimate and settled with the answer's real usage;
* **concurrency window** — at most ``window`` requests in flight; the window starts at
  ``max_concurrent`` (or a ceiling) and follows AIMD: each 429 halves it (once per
  congestion event: answers to requests sent before the last cut do not cut again),
  each success adds ``1 / window``, up to ``max_concurrent``;
* **Retry-After** — a 429 (or 503) carrying ``Retry-After`` (seconds or an HTTP date)
  pauses the whole endpoint until then; every waiting call starts after it. A new
  pause prints one ``notice:`` line (at most one a minute per endpoint). The caller refuses a Retry-After beyond the
  endpoint's ``max_retry_after_s`` and never pauses for it (:mod:`sscbench.llm.waits`).

A limiter never fails a call and never spends a retry: waiting for a permit is not an
attempt, and the retry budget of a run (``max_retries``) is counted by the caller, who
also bounds the wait for a permit (``max_wait_s``, :func:`sscbench.llm.waits.take_permit`).
"""

from __future__ import annotations

import asyncio
import math
import sys
import time
import weakref
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime

from sscbench.llm.endpoint import EndpointConfig

DEFAULT_CEILING = 1024
"""The window's ceiling when no ``max_concurrent`` is given."""
NOTICE_EVERY_S = 60.0
"""At most one pause notice per endpoint in this many seconds."""
BURST_SECONDS = 0.1
"""How far ahead of its even pace a budget lets requests start at once: a provider's
bucket is never drained by the client's own burst, so its jitter margin stays."""


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` value: delay-seconds or an HTTP date
    (``now``: the wall clock, for tests). None when absent or unreadable (NaN included);
    never negative; ``inf`` as it is (the caller refuses a wait beyond its cap)."""
    if value is None:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return None if math.isnan(seconds) else max(0.0, seconds)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def _notice(line: str) -> None:
    """Print a limiter's notice on the terminal's error stream (above a progress bar)."""
    print(line, file=sys.stderr, flush=True)


@dataclass
class LimiterStats:
    """What a limiter did: permits granted, 429s seen, window cuts, time paused."""

    granted: int = 0
    rate_limited: int = 0
    cuts: int = 0
    paused_s: float = 0.0
    max_in_flight: int = 0


@dataclass
class Permit:
    """One attempt's right to go: when it started and the tokens it reserved."""

    epoch: int
    tokens: float
    released: bool = False


@dataclass
class EndpointLimiter:
    """Flow control of one endpoint (see the module's description)."""

    key: tuple[str, str]
    max_concurrent: int | None = None
    requests_per_minute: float | None = None
    tokens_per_minute: float | None = None
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    notify: Callable[[str], object] = field(default_factory=lambda: _notice)
    window: float = field(init=False)
    in_flight: int = field(default=0, init=False)
    paused_until: float = field(default=0.0, init=False)
    stats: LimiterStats = field(default_factory=LimiterStats, init=False)

    def __post_init__(self) -> None:
        self.ceiling = float(self.max_concurrent or DEFAULT_CEILING)
        self.window = self.ceiling
        self._epoch = 0  # bumped at each window cut
        self._request_tat = 0.0  # GCRA: theoretical arrival time of the next request
        self._token_tat = 0.0
        self._waiters: deque[asyncio.Future] = deque()
        self._last_notice: float | None = None  # when the last pause notice was printed
        self._unsaid = 0  # pauses since then

    # ---- taking and giving back permits ----------------------------------------------
    def _schedule(self, tokens: float, not_before: float | None = None) -> float:
        """Reserve the next start time (not before ``not_before``) under the rate budgets."""
        now = max(self.clock(), not_before or 0.0)
        start = now
        if self.requests_per_minute:
            interval = 60.0 / self.requests_per_minute
            burst = BURST_SECONDS * self.requests_per_minute / 60.0 * interval
            tat = max(self._request_tat, now)
            start = max(start, tat - burst)
            self._request_tat = tat + interval
        if self.tokens_per_minute and tokens > 0:
            per_token = 60.0 / self.tokens_per_minute
            burst = BURST_SECONDS  # a tenth of a second's tokens at once
            tat = max(self._token_tat, now)
            start = max(start, tat - burst)
            self._token_tat = tat + tokens * per_token
        return start

    async def acquire(self, tokens: float = 0.0) -> Permit:
        """Wait until a request (of about ``tokens`` tokens) may go; returns its permit."""
        start = self._schedule(tokens)
        while True:
            if self.paused_until > start:  # paused since: start again, spaced, after it
                start = self._schedule(tokens, not_before=self.paused_until)
            now = self.clock()
            wait = start - now
            if wait > 0:
                await self.sleep(wait)
                continue
            if self.in_flight < max(1, int(self.window)):
                break
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            try:
                await waiter
            finally:
                if waiter in self._waiters:
                    self._waiters.remove(waiter)
        return self._grant(tokens)

    def grant_now(self, tokens: float = 0.0) -> Permit | None:
        """The permit :meth:`acquire` would give without waiting at all, or None (then
        ``acquire``): with no rate budget to reserve from, no pause and room in the window
        it grants at once, so a caller bounding the wait needs no timer for it."""
        if self.requests_per_minute or (self.tokens_per_minute and tokens > 0):
            return None
        if self.paused_until > self.clock() or self.in_flight >= max(1, int(self.window)):
            return None
        return self._grant(tokens)

    def _grant(self, tokens: float) -> Permit:
        self.in_flight += 1
        self.stats.granted += 1
        self.stats.max_in_flight = max(self.stats.max_in_flight, self.in_flight)
        return Permit(self._epoch, tokens)

    def _notice_pause(self, now: float, seconds: float) -> None:
        """One line for a new pause, at most one per :data:`NOTICE_EVERY_S` (the pauses
        in between are counted in the next line)."""
        if self._last_notice is not None and now - self._last_notice < NOTICE_EVERY_S:
            self._unsaid += 1
            return
        url, model = self.key
        more = f"; {self._unsaid} more pauses since the last notice" if self._unsaid else ""
        self.notify(f"notice: endpoint {url} ({model}) paused {seconds:.3g} s (Retry-After{more})")
        self._last_notice, self._unsaid = now, 0

    def _wake(self) -> None:
        free = max(1, int(self.window)) - self.in_flight
        while free > 0 and self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                free -= 1

    def release(
        self,
        permit: Permit,
        outcome: str = "ok",
        *,
        retry_after: float | None = None,
        tokens: float | None = None,
    ) -> None:
        """Give a permit back with what its attempt met: ``"ok"`` (an answer: grow the
        window, settle the real ``tokens``), ``"rate_limited"`` (a 429: halve the window
        once per congestion event) or ``"error"`` (anything else: no change).
        ``retry_after`` pauses the whole endpoint for that many seconds."""
        if permit.released:
            return
        permit.released = True
        self.in_flight -= 1
        if tokens is not None and self.tokens_per_minute:
            self._token_tat += (tokens - permit.tokens) * 60.0 / self.tokens_per_minute
        if retry_after is not None and retry_after > 0:
            now = self.clock()
            until = now + retry_after
            if self.paused_until <= now:  # a new pause
                self._notice_pause(now, retry_after)
            if until > self.paused_until:
                self.stats.paused_s += until - max(self.paused_until, now)
                self.paused_until = until
        if outcome == "rate_limited":
            self.stats.rate_limited += 1
            if permit.epoch == self._epoch:  # sent after the last cut: a new congestion event
                self.window = max(1.0, self.window / 2.0)
                self._epoch += 1
                self.stats.cuts += 1
        elif outcome == "ok":
            self.window = min(self.ceiling, self.window + 1.0 / max(1.0, self.window))
        self._wake()


_LIMITERS: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[tuple[str, str], EndpointLimiter]
] = weakref.WeakKeyDictionary()


def limiter_for(config: EndpointConfig) -> EndpointLimiter | None:
    """The limiter of an endpoint config's (base URL, model) in the running event loop,
    made on first use (None when the config turns ``flow_control`` off).

    A study runs in one event loop, so its agent, user and classifier calls to one
    endpoint share one limiter; a new loop (the next ``asyncio.run``) starts afresh, so
    no waiter or window outlives the loop it belongs to. Configs naming the same
    endpoint share it; the strictest limits given win.
    """
    if not getattr(config, "flow_control", True):
        return None
    limiters = _LIMITERS.setdefault(asyncio.get_running_loop(), {})
    key = (config.base_url.rstrip("/"), config.model)
    limiter = limiters.get(key)
    if limiter is None:
        limiter = EndpointLimiter(
            key,
            max_concurrent=config.max_concurrent,
            requests_per_minute=config.requests_per_minute,
            tokens_per_minute=config.tokens_per_minute,
        )
        limiters[key] = limiter
        return limiter
    _tighten(limiter, config)
    return limiter


def _tighten(limiter: EndpointLimiter, config: EndpointConfig) -> None:
    def stricter(a: float | None, b: float | None) -> float | None:
        return b if a is None else (a if b is None else min(a, b))

    if config.max_concurrent and (
        limiter.max_concurrent is None or config.max_concurrent < limiter.max_concurrent
    ):
        limiter.max_concurrent = config.max_concurrent
        limiter.ceiling = float(config.max_concurrent)
        limiter.window = min(limiter.window, limiter.ceiling)
    limiter.requests_per_minute = stricter(limiter.requests_per_minute, config.requests_per_minute)
    limiter.tokens_per_minute = stricter(limiter.tokens_per_minute, config.tokens_per_minute)


def estimate_tokens(body_bytes: int, max_tokens: int | None) -> float:
    """A request's tokens before it is answered: about 4 bytes of JSON per prompt token,
    plus the completion it may ask for (settled with the real usage afterwards)."""
    return body_bytes / 4.0 + (max_tokens or 0)
