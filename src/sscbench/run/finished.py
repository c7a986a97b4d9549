"""What a resumed study keeps of the runs finished before it: a byte per planned faulted
run and four numbers per finished clean run, never their index entries.

A study resumed after 200,000 runs used to hold every finished run's
:class:`~sscbench.study.folder.IndexEntry` (and a dict of their wall times) while the
rest ran: 1.78 GB. The executor asks only whether a unit's faulted run is finished and
what its clean run's status, reward and agent turns were, so :class:`FinishedRuns`
keeps a ``bytearray`` over the plan's units (by :attr:`PlanUnit.position`) and the
clean outcomes in :class:`~sscbench.run.clean_outcomes.CleanOutcomes` by slot number:
memory set by the plan's size (a byte a unit), not by how many runs finished. The
index is streamed to build it (:func:`read_finished`), the summary and cost sums
counted on the way, each run's wall time read from ``timings.jsonl`` into an array by
plan place for that pass only.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable

from sscbench.run.clean_outcomes import CleanOutcome, CleanOutcomes
from sscbench.run.planning import Plan, PlanUnit
from sscbench.study.folder import IndexEntry, StudyDir


class FinishedRuns:
    """The runs finished before this invocation, by place in the plan (see the module)."""

    def __init__(self, plan: Plan):
        self.plan = plan
        self._faulted = bytearray(len(plan))  # 1: the unit's faulted run is finished
        self.cleans = CleanOutcomes()  # what the runner qualifies from (its own store)
        self._others: dict[str, CleanOutcome] = {}  # runs the plan cannot place (none)
        self.count = 0

    def add(self, entry: IndexEntry) -> None:
        """Keep a finished run: its unit's byte, or its clean outcome by slot."""
        self.count += 1
        place = self.plan.locate(entry.run_id)
        outcome = CleanOutcome(entry.run_id, entry.status, entry.reward, entry.agent_turns)
        if place is None or (place.kind == "clean") != (entry.kind == "clean"):
            self._others[entry.run_id] = outcome  # verified, yet not this plan's: kept as is
        elif place.kind == "faulted":
            self._faulted[place.index] = 1
        else:
            self.cleans.put_slot(place.index, outcome)

    def faulted_done(self, unit: PlanUnit) -> bool:
        """Whether the unit's faulted run finished before this invocation."""
        if 0 <= unit.position < len(self._faulted) and self._faulted[unit.position]:
            return True
        return unit.faulted_run_id in self._others

    def clean(self, unit: PlanUnit) -> CleanOutcome | None:
        """The unit's clean run when it finished before (or in) this invocation."""
        return self.cleans.get(unit) or self._others.get(unit.clean_run_id)

    def __contains__(self, run_id: object) -> bool:
        """Whether a run (by id) finished before this invocation."""
        if not isinstance(run_id, str):
            return False
        place = self.plan.locate(run_id)
        if place is None:
            return run_id in self._others
        if place.kind == "faulted":
            return bool(self._faulted[place.index])
        return self.cleans.has_slot(place.index)

    def held(self) -> int:
        """How many Python objects it holds per run (a test of flat memory reads it)."""
        return len(self._others) + self.cleans.containers()


def read_finished(
    store: StudyDir, plan: Plan, each: Callable[[IndexEntry, float], None]
) -> FinishedRuns:
    """Stream the (checked) index into a :class:`FinishedRuns`, calling ``each`` with
    every entry and its wall time (its last line in ``timings.jsonl``, else 0)."""
    finished = FinishedRuns(plan)
    if not store.index.exists():
        return finished
    faulted_wall = array("d", bytes(8 * len(plan)))
    clean_wall = array("d", bytes(8 * plan.slot_count))
    other_wall: dict[str, float] = {}
    for run_id, wall_s in store.iter_timings():
        place = plan.locate(run_id)
        if place is None:
            other_wall[run_id] = wall_s
        else:
            (faulted_wall if place.kind == "faulted" else clean_wall)[place.index] = wall_s
    for entry in store.read_index():
        place = plan.locate(entry.run_id)
        if place is None:
            wall = other_wall.get(entry.run_id, 0.0)
        else:
            wall = (faulted_wall if place.kind == "faulted" else clean_wall)[place.index]
        each(entry, wall)
        finished.add(entry)
    return finished


__all__ = ["FinishedRuns", "read_finished"]
