"""What the typed write families share: one case per task on a ground-truth write.

Each family targets one ground-truth write of a task (``position``: which write, 0 =
the first) and enters at a different point of the write's life. :class:`WriteFamily`
enumerates the cases; :class:`Burst` decides per matched call whether a seeded fault
fires; the matchers find the target write and the reads of its record.
"""

from __future__ import annotations

import random
from typing import ClassVar

from sscbench.core.injection import Injection, Matcher
from sscbench.faults.case import Case
from sscbench.faults.family import FaultFamily
from sscbench.faults.params import FamilyParameter, FaultParams
from sscbench.json_types import JsonObject
from sscbench.world.records import READ_TOOLS, reads_booked_record, record_key
from sscbench.world.state import WorldState
from sscbench.world.task import Task
from sscbench.world.tools import ToolKind
from sscbench.world.world import World

DEFAULTS: dict[str, float | int] = {"probability": 1.0, "burst": 1, "position": 0}

Number = float | int
"""A study parameter's value, kept as written (``1`` stays ``1``, ``1.0`` stays ``1.0``)."""


class WriteParams(FaultParams):
    """A typed family's case: its target write (``tool`` on ``record``, called with
    ``arguments``) and the study's fault parameters (:data:`FamilyParameter`);
    ``intensity`` names the parameter an intensity curve sweeps."""

    probability: Number = 1.0
    burst: Number = 1
    position: Number = 0
    binding_lost: Number | None = None
    events: Number | None = None
    age: Number | None = None
    plausibility: Number | None = None
    tool: str
    record: tuple[str, str]
    arguments: JsonObject
    intensity: FamilyParameter | None = None

    def swept(self) -> tuple[FamilyParameter, Number] | None:
        """The parameter an intensity curve sweeps (``intensity``) and this case's level of
        it (None for a case off a curve, or a level the case does not set)."""
        if self.intensity is None:
            return None
        levels: dict[FamilyParameter, Number | None] = {
            "probability": self.probability,
            "burst": self.burst,
            "position": self.position,
            "binding_lost": self.binding_lost,
            "events": self.events,
            "age": self.age,
            "plausibility": self.plausibility,
        }
        level = levels[self.intensity]
        return None if level is None else (self.intensity, level)


def or_default(value: Number | None, default: int) -> int:
    """A family parameter as an integer (``default`` when the case does not set it)."""
    return default if value is None else int(value)


def write_params(case: Case) -> WriteParams:
    """A typed family's case parameters (its target write and the study's parameters)."""
    return case.params.as_model(WriteParams)


def target_writes(world: World, task: Task) -> list[tuple[str, JsonObject, tuple[str, str]]]:
    """The task's ground-truth writes that name a record: (tool, arguments, record key)."""
    out: list[tuple[str, JsonObject, tuple[str, str]]] = []
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
    p = case.params.as_model(WriteParams)
    tool = p.tool
    kind, rid = p.record
    id_argument = READ_TOOLS[kind].id_argument

    def match(name: str, arguments: object, _state: WorldState) -> bool:
        return name == tool and isinstance(arguments, dict) and arguments.get(id_argument) == rid

    return match


def record_written(case: Case, state: WorldState) -> bool:
    """Whether the target write has changed its record (read from the state)."""
    kind, rid = case.params.as_model(WriteParams).record
    table = READ_TOOLS[kind].table
    changed: bool = state.get(table, rid) != state.base.tables[table].get(rid)
    return changed


def reads_written_record(case: Case) -> Matcher:
    """Matches a read of the target record once the write has changed it (a booking's
    read-back reads the new reservation, which the base does not hold)."""
    p = case.params.as_model(WriteParams)
    kind, rid = p.record
    tool, id_argument, _table = READ_TOOLS[kind]
    write = p.tool

    def match(name: str, arguments: object, state: WorldState) -> bool:
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

    def __init__(self, params: FaultParams, seed: int, burst: int | None = None):
        p = params.as_model(WriteParams)
        self.p = float(p.probability)
        self.length = int(p.burst) if burst is None else burst
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

    params_model: ClassVar[type[FaultParams]] = WriteParams
    typed: ClassVar[bool] = True
    seeded = True
    max_steps: ClassVar[int] = 40

    def eligible(self, tool: str, key: tuple[str, str]) -> bool:
        """Whether the family applies to a write of ``tool`` on the record ``key``."""
        return True

    def cases_for(self, world: World, task: Task, **params: Number) -> list[Case]:
        """The case of ``task`` (none when its write at ``position`` is not eligible)."""
        merged: dict[str, Number] = {**DEFAULTS, **params}
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
                params=WriteParams.model_validate(
                    {**merged, "tool": tool, "record": key, "arguments": arguments}
                ),
            )
        ]

    def injections(self, case: Case, world: World, seed: int = 0) -> list[Injection]:
        """Hooks that put the family's fault into a run."""
        return []


__all__ = [
    "DEFAULTS",
    "Burst",
    "FamilyParameter",
    "WriteFamily",
    "WriteParams",
    "matches_write",
    "or_default",
    "reads_written_record",
    "record_written",
    "target_writes",
    "write_params",
]
