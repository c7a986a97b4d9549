"""The probes of ``benchmarks/overhead.py``: event-loop lag, garbage-collection pauses,
aiohttp request traces (pool waits, time to each answer) and timed journal lines."""

from __future__ import annotations

import asyncio
import gc
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar

import aiohttp

from sscbench.llm.journal import ResponseJournal


class LagProbe:
    """Event-loop lag: a task sleeping ``interval`` s at a time records how late it woke
    (the time some callback held the loop while this one was due)."""

    def __init__(self, interval: float = 0.005):
        self.interval = interval
        self.lags: list[float] = []
        self._task: asyncio.Task | None = None

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + self.interval
            await asyncio.sleep(self.interval)
            self.lags.append(max(0.0, loop.time() - due))

    def start(self) -> None:
        """Start sampling in the running loop."""
        self.lags.clear()
        self._task = asyncio.get_running_loop().create_task(self._run())

    def stop(self) -> None:
        """Stop sampling."""
        if self._task is not None:
            self._task.cancel()

    def summary(self) -> dict[str, float]:
        """Total, 99th percentile and largest lag, seconds."""
        lags = sorted(self.lags) or [0.0]
        return {
            "lag_total_s": sum(lags),
            "lag_p99_ms": lags[int(0.99 * (len(lags) - 1))] * 1000,
            "lag_max_ms": lags[-1] * 1000,
        }


class GcProbe:
    """Garbage-collection pauses (``gc.callbacks``): seconds spent per generation."""

    def __init__(self) -> None:
        self.paused = [0.0, 0.0, 0.0]
        self.counts = [0, 0, 0]
        self._began = 0.0

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._began = time.perf_counter()
        else:
            self.paused[info["generation"]] += time.perf_counter() - self._began
            self.counts[info["generation"]] += 1

    def start(self) -> None:
        """Start recording."""
        gc.callbacks.append(self._callback)

    def stop(self) -> None:
        """Stop recording."""
        gc.callbacks.remove(self._callback)


@dataclass
class Trace:
    """aiohttp request traces: pool waits and each request's time to its answer."""

    queued: dict[int, float] = field(default_factory=dict)
    pool_wait_s: float = 0.0
    started: dict[int, float] = field(default_factory=dict)
    answer_s: list[float] = field(default_factory=list)

    def config(self) -> aiohttp.TraceConfig:
        """A trace config recording into this trace."""
        trace = aiohttp.TraceConfig()

        async def queued(_session: Any, ctx: Any, _params: Any) -> None:
            self.queued[id(ctx)] = time.perf_counter()

        async def dequeued(_session: Any, ctx: Any, _params: Any) -> None:
            self.pool_wait_s += time.perf_counter() - self.queued.pop(id(ctx))

        async def start(_session: Any, ctx: Any, _params: Any) -> None:
            self.started[id(ctx)] = time.perf_counter()

        async def end(_session: Any, ctx: Any, _params: Any) -> None:
            self.answer_s.append(time.perf_counter() - self.started.pop(id(ctx)))

        trace.on_connection_queued_start.append(queued)
        trace.on_connection_queued_end.append(dequeued)
        trace.on_request_start.append(start)
        trace.on_request_end.append(end)
        return trace

    def reset(self) -> None:
        """Forget what the warm-up recorded."""
        self.pool_wait_s = 0.0
        self.answer_s.clear()


class TimedJournal(ResponseJournal):
    """A run's response journal that adds the time each answer's line took to ``spent``."""

    spent: ClassVar[list[float]] = [0.0]

    async def record(self, answer: Any) -> None:
        """Record the answer, timed."""
        began = time.perf_counter()
        await super().record(answer)
        TimedJournal.spent[0] += time.perf_counter() - began
