"""What the executor keeps of each finished shared clean run: four numbers, not its record.

A faulted run needs only its clean run's status, reward and agent turns to be qualified
(or not); a study of a million runs keeps those in flat arrays indexed by the clean
run's number in the plan (:attr:`~sscbench.run.shared_clean.CleanSlot.slot_index`), a
few bytes each, instead of every finished run's index entry.
"""

from __future__ import annotations

import math
from array import array
from typing import NamedTuple

from sscbench.run.planning import PlanUnit
from sscbench.study.folder import IndexEntry

STATUSES = ("completed", "not-qualified", "missing")


class CleanOutcome(NamedTuple):
    """A finished clean run as qualification reads it."""

    run_id: str
    status: str
    reward: float | None
    agent_turns: int | None


class CleanOutcomes:
    """The finished clean runs of one invocation, by slot number (growing as needed);
    a unit without a slot number (``-1``) is kept by run id."""

    def __init__(self) -> None:
        self._status = bytearray()  # 0: not finished, else 1 + index in STATUSES
        self._reward = array("d")  # NaN: no reward
        self._turns = array("l")  # -1: no count
        self._by_id: dict[str, CleanOutcome] = {}

    def __len__(self) -> int:
        """How many clean outcomes are held."""
        return sum(1 for s in self._status if s) + len(self._by_id)

    def containers(self) -> int:
        """How many Python objects the store holds (its containers' entries): a test of
        flat memory counts these, not bytes."""
        return len(self._by_id)

    def has_slot(self, index: int) -> bool:
        """Whether the clean run of slot ``index`` is held."""
        return 0 <= index < len(self._status) and bool(self._status[index])

    def get(self, unit: PlanUnit) -> CleanOutcome | None:
        """The unit's clean run when it finished in this invocation."""
        index = unit.clean.slot_index
        if index < 0:
            return self._by_id.get(unit.clean_run_id)
        if index >= len(self._status) or not self._status[index]:
            return None
        reward = self._reward[index]
        turns = self._turns[index]
        return CleanOutcome(
            unit.clean_run_id,
            STATUSES[self._status[index] - 1],
            None if math.isnan(reward) else reward,
            None if turns < 0 else turns,
        )

    def put(self, unit: PlanUnit, entry: IndexEntry | CleanOutcome) -> None:
        """Keep a finished clean run's status, reward and agent turns."""
        outcome = CleanOutcome(entry.run_id, entry.status, entry.reward, entry.agent_turns)
        index = unit.clean.slot_index
        if index < 0:
            self._by_id[entry.run_id] = outcome
        else:
            self.put_slot(index, outcome)

    def put_slot(self, index: int, outcome: CleanOutcome) -> None:
        """Keep a clean run's outcome under its slot number (a resumed study's clean runs,
        placed by :meth:`~sscbench.run.planning.Plan.locate`)."""
        if index >= len(self._status):
            grow = max(index + 1 - len(self._status), len(self._status))
            self._status.extend(bytes(grow))
            self._reward.extend([math.nan] * grow)
            self._turns.extend([-1] * grow)
        self._status[index] = 1 + STATUSES.index(outcome.status)
        self._reward[index] = math.nan if outcome.reward is None else outcome.reward
        self._turns[index] = -1 if outcome.agent_turns is None else outcome.agent_turns
