"""A study's units run by ``concurrency`` asyncio workers, each starting its next unit as
soon as the last run of the one before is made and its record asked for (the record is
written behind, :class:`~sscbench.run.writer.RunWriter`), until the plan ends, a signal
stops them (:class:`~sscbench.run.stopper.SignalStopper`), ``stop_when`` or the cost cap
halts the study; then every record asked for is waited for.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Protocol

from sscbench.run.cost_cap import CostCap
from sscbench.run.episodes import EpisodeSource
from sscbench.run.planning import PlanUnit
from sscbench.run.stopper import SignalStopper
from sscbench.run.writer import RunWriter
from sscbench.study.folder import IndexEntry


class StudyRunner(Protocol):
    """What the workers drive (:class:`sscbench.run.executor.StudyRunner`)."""

    halted: bool
    writer: RunWriter
    source: EpisodeSource

    async def start_unit(self, unit: PlanUnit) -> asyncio.Future[IndexEntry] | None:
        """Run the unit; return once its last record is asked for, with its future."""
        ...


async def drain(
    units: Iterator[PlanUnit],
    runner: StudyRunner,
    concurrency: int,
    stopper: SignalStopper,
    cap: CostCap | None = None,
) -> None:
    """Run ``units`` through ``runner`` on ``concurrency`` workers; return when they are
    done and every run whose record was asked for is recorded and counted (a failed
    record raised). A unit counts as in flight for the cost cap until its last record
    is counted (its real cost replaces the estimate then)."""
    in_flight = [0]

    async def may_start() -> bool:
        """Whether the next unit may start: no stop asked, and the cost cap allows it
        (waiting while the units in flight settle what they cost)."""
        while stopper.signum is None and not runner.halted:
            verdict = "start" if cap is None else cap.verdict(in_flight[0])
            if verdict == "stop":
                runner.halted = True
            elif verdict == "start":
                return True
            else:
                await asyncio.sleep(0.02)
        return False

    def unit_done(_: object = None) -> None:
        in_flight[0] -= 1

    async def worker() -> None:
        for unit in units:
            if not await may_start():
                return
            in_flight[0] += 1  # until the unit's last record is counted (its cost known)
            recording = None
            try:
                recording = await runner.start_unit(unit)
            finally:
                if recording is None or recording.done():
                    unit_done()
                else:
                    recording.add_done_callback(unit_done)
            await asyncio.sleep(0)  # let a stop request reach the loop between units

    stopper.loop = asyncio.get_running_loop()
    stopper.tasks = [asyncio.ensure_future(worker()) for _ in range(concurrency)]
    if stopper.signum is not None:
        stopper._cancel()
    results = await asyncio.gather(*stopper.tasks, return_exceptions=True)
    try:
        await runner.writer.drain()  # every run asked to be recorded is, and counted
    finally:
        for result in results:
            if isinstance(result, BaseException) and not isinstance(result, asyncio.CancelledError):
                raise result


async def drain_and_close(
    units: Iterator[PlanUnit],
    runner: StudyRunner,
    concurrency: int,
    stopper: SignalStopper,
    cap: CostCap | None = None,
) -> None:
    """:func:`drain`, then close the writer (its held files) and the episode source."""
    try:
        await drain(units, runner, concurrency, stopper, cap)
    finally:
        await runner.writer.aclose()
        await runner.source.aclose()


__all__ = ["drain", "drain_and_close"]
