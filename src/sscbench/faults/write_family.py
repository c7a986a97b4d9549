"""What the typed write families share: one case per task on a ground-truth write.

Each family targets one ground-truth write of a task (``position``: which write, 0 =
the first) and enters at a different point of the write's life. :class:`WriteFamily`
enumerates the cases; :class:`Burst` decides per matched call whether a seeded fault
fires; the matchers find the target write and the reads of its record.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from sscbench.core.injection import Injection, Matcher
from sscbench.faults.case import Case
from sscbench.faults.family import FaultFamily
from sscbench.world.records import READ_TOOLS, reads_booked_record, record_key
from sscbench.world.state import WorldState
from sscbench.world.task import Task
from sscbench.world.tools import ToolKind
from sscbench.world.world import World

DEFAULTS: dict[str, Any] = {"probability": 1.0, "burst": 1, "position": 0}


def target_writes(world: World, task: Task) -> list[tuple[str, dict[str, Any], tuple[str, str]]]:
    """The task's ground-truth writes that name a record: (tool, arguments, record key)."""
    out = []
    for action in task.actions:
        spec = world.tools.specs.get(action.name)
        if spec is None or spec.kind is not ToolKind.WRITE or spec.ends_episode:
            continue
        key = record_key(action.name, dict(action.kwargs))
        if key is not None:
            out.append((action.name, dict(action.kwargs), key))
    return out


def matches_write(case: Case) -> Matcher:
    """Matches the case's target write (its tool on its record id)."""
    tool: str = case.params["tool"]
    kind, rid = case.params["record"]
    id_argument = READ_TOOLS[kind].id_argument

    def match(name: str, arguments: Any, _state: WorldState) -> bool:
        return name == tool and isinstance(arguments, dict) and arguments.get(id_argument) == rid

    return match


def record_written(case: Case, state: WorldState) -> bool:
    """Whether the target write has changed its record (read from the state)."""
    kind, rid = case.params["record"]
    table = READ_TOOLS[kind].table
    changed: bool = state.get(table, rid) != state.base.tables[table].get(rid)
    return changed


def reads_written_record(case: Case) -> Matcher:
    """Matches a read of the target record once the write has changed it (a booking's
    read-back reads the new reservation, which the base does not hold)."""
    kind, rid = case.params["record"]
    tool, id_argument, _table = READ_TOOLS[kind]
    write = case.params["tool"]

    def match(name: str, arguments: Any, state: WorldState) -> bool:
        if not isinstance(arguments, dict) or not record_written(case, state):
            return False
        if name == tool and arguments.get(id_argument) == rid:
            return True
        # a booking's read-back reads the new reservation, which the base does not hold
        new_id = arguments.get("reservation_id")
        return (
            reads_booked_record(write, name)
            and isinstance(new_id, str)
            and new_id not in state.base.tables[READ_TOOLS["reservation"].table]
        )

    return match


class Burst:
    """Decides per matched call whether the fault fires: one burst of ``burst`` calls,
    starting at a matched call with probability ``probability`` (seeded per run)."""

    def __init__(self, params: dict[str, Any], seed: int):
        self.p = float(params.get("probability", 1.0))
        self.length = int(params.get("burst", 1))
        self.rng = random.Random(seed)
        self.remaining = 0
        self.started = False

    def fire(self) -> bool:
        """Whether the fault fires at this matched call."""
        if self.remaining == 0:
            if self.started or self.rng.random() >= self.p:
                return False
            self.started, self.remaining = True, self.length
        self.remaining -= 1
        return True


class WriteFamily(FaultFamily):
    """A typed family on one ground-truth write: one case per task with an eligible write
    at ``position``; its hooks draw from the run's seed."""

    typed: ClassVar[bool] = True
    seeded = True
    max_steps: ClassVar[int] = 40

    def eligible(self, tool: str, key: tuple[str, str]) -> bool:
        """Whether the family applies to a write of ``tool`` on the record ``key``."""
        return True

    def cases_for(self, world: World, task: Task, **params: Any) -> list[Case]:
        """The case of ``task`` (none when its write at ``position`` is not eligible)."""
        merged = {**DEFAULTS, **params}
        writes = target_writes(world, task)
        position = int(merged["position"])
        if not writes or not -len(writes) <= position < len(writes):
            return []
        tool, arguments, key = writes[position]
        if not self.eligible(tool, key):
            return []
        suffix = "".join(f"@{k}={params[k]}" for k in sorted(params))
        return [
            Case(
                case_id=f"{world.name}:{task.task_id}:{self.name}{suffix}",
                operator=self.name,
                world=world.source,
                domain=world.domain,
                task_id=task.task_id,
                max_steps=self.max_steps,
                cluster=f"{world.name}:{task.task_id}",
                params={**merged, "tool": tool, "record": list(key), "arguments": arguments},
            )
        ]

    def injections(self, case: Case, world: World, seed: int = 0) -> list[Injection]:
        """Hooks that put the family's fault into a run."""
        return []


__all__ = [
    "DEFAULTS",
    "Burst",
    "WriteFamily",
    "matches_write",
    "reads_written_record",
    "record_written",
    "target_writes",
]
