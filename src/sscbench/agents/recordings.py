"""Recordings as study agents: which recorded runs replay a case, and the factories.

A study agent of kind ``replay`` replays, for a case on task *t*, the recorded runs of
*t* that its selection picks (recorded ``trials``, or ``"all"`` / the first n runs in
file order); the k-th selected run is repetition k. The agent's factory puts the run
it replays into ``RunContext.options[REPLAY_OPTION]``, where the recorded user
(:mod:`sscbench.users.replay`) finds it: agent and user of a run replay the same
recording.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from sscbench.agents.replay import RecordedRun, ReplayAgent, load_trajectories
from sscbench.core.agent import RunContext

REPLAY_OPTION = "replay_run"


@lru_cache(maxsize=8)
def _load(path: str, sha256: str | None) -> tuple[RecordedRun, ...]:
    return tuple(load_trajectories(path))


def recorded_runs(path: str | Path, sha256: str | None = None) -> tuple[RecordedRun, ...]:
    """A recording file's runs, parsed once per (path, content hash)."""
    return _load(str(path), sha256)


@dataclass(frozen=True)
class Selection:
    """Which recorded runs of a task replay it: by trial number, or all / the first n."""

    trials: tuple[int, ...] | None = None
    count: int | None = None  # None with no trials: every recorded run
    split: str = "test"

    def pick(self, runs: tuple[RecordedRun, ...], task_id: str) -> list[RecordedRun]:
        """The selected recorded runs of ``task_id``, in file order."""
        mine = [r for r in runs if r.taubench_task_id(self.split) == task_id]
        if self.trials is not None:
            wanted = set(self.trials)
            mine = [r for r in mine if r.trial in wanted]
        return mine if self.count is None else mine[: self.count]


class RecordingAgentFactory:
    """Builds, for each run, a :class:`ReplayAgent` of the case task's selected recording."""

    def __init__(self, path: str | Path, sha256: str | None, selection: Selection):
        self.path = Path(path)
        self.sha256 = sha256
        self.selection = selection
        self._by_task: dict[str, list[RecordedRun]] = defaultdict(list)

    def runs_for(self, task_id: str) -> list[RecordedRun]:
        """The recorded runs that replay ``task_id`` (one per repetition)."""
        if task_id not in self._by_task:
            self._by_task[task_id] = self.selection.pick(
                recorded_runs(self.path, self.sha256), task_id
            )
        return self._by_task[task_id]

    def __call__(self, context: RunContext) -> ReplayAgent:
        runs = self.runs_for(context.task.task_id)
        if context.repetition >= len(runs):
            raise ValueError(
                f"{self.path}: no recorded run {context.repetition} for task "
                f"{context.task.task_id} ({len(runs)} selected)"
            )
        run = runs[context.repetition]
        context.options[REPLAY_OPTION] = run
        return ReplayAgent(run, source=str(self.path), sha256=self.sha256)
