"""What the executors that make episodes in other processes share: how many runs each
worker makes at once, and the budget of worker losses a study rides out.

Used by the Ray executor (:mod:`sscbench.run.ray_executor`) and the process executor
(:mod:`sscbench.run.processes`), so both count a lost worker, re-send its runs and stop
a study past its budget in the same words.
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass

from sscbench.errors import DataError


def per_worker(concurrency: int, workers: int) -> int:
    """Runs one worker makes at once: its share of the study's concurrency, at least one."""
    return max(1, math.ceil(concurrency / workers))


def retrieved(future: asyncio.Future) -> None:
    """Read a finished wait's outcome, so a wait no run awaited raises no warning (the
    runs that await it see its error themselves)."""
    if not future.cancelled():
        future.exception()


@dataclass
class LossBudget:
    """Worker losses seen (each counted once, however many runs it had) against the
    ``max_worker_losses`` a study rides out; past it ``stopped`` says why every later run
    stops (the runs written are kept, a resume goes on)."""

    limit: int
    where: str  # "<ray cluster>", "<processes>"
    field: str  # the setting that bounds it, e.g. "study.ray.max_worker_losses"
    losses: int = 0
    stopped: DataError | None = None

    def count(self, last: str) -> DataError | None:
        """One more loss (``last``: what it was); returns the stop once past the limit."""
        self.losses += 1
        if self.losses > self.limit and self.stopped is None:
            self.stopped = DataError(
                self.where,
                self.field,
                f"{self.losses} worker losses, more than max_worker_losses = "
                f"{self.limit} (last: {last}); the runs "
                "written so far are kept: resume when the cluster is healthy",
            )
        return self.stopped

    def attempts_used(self, run_id: str, tries: int, setting: str, last: str) -> DataError:
        """The stop of a run whose worker died under it ``tries`` times."""
        return DataError(
            self.where,
            setting,
            f"run {run_id} lost its worker {tries} times (last: {last}); the runs written "
            "so far are kept: resume when the cluster is healthy",
        )
