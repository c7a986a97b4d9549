"""What a scripted agent knows before a run: the task's ground truth, as a plan.

The plan is computed once per (world, task) by replaying the ground-truth actions on
a private env: every step keeps its tool name and arguments, and every write keeps
the authoritative records it touches *before* it runs (the reservation or order,
and its owner). Those records are what a scripted agent — a test double — compares
its used values against to label whether it relied on an injected value; they are
never used to choose what the agent says or does beyond the ground-truth arguments.
"""

from __future__ import annotations

import json
import weakref
from dataclasses import dataclass, field

from sscbench.agents.scripted_facts import as_object
from sscbench.json_types import JsonObject, JsonValue
from sscbench.reading import loads_json
from sscbench.world.records import READ_TOOLS, record_key
from sscbench.world.task import Task
from sscbench.world.tools import ToolKind
from sscbench.world.world import World


@dataclass(frozen=True)
class PlanStep:
    """One ground-truth action with what the agent needs to carry it out."""

    index: int
    name: str
    kwargs: JsonObject
    kind: str  # "read", "write" or "transfer"
    before: dict[str, JsonObject | None] = field(default_factory=dict)  # records before it
    owner: str | None = None  # user owning the record a write touches


@dataclass(frozen=True)
class TaskPlan:
    """The ground truth of one task as steps, with authoritative records per write."""

    task_id: str
    domain: str
    steps: tuple[PlanStep, ...]


_CACHE: dict[int, dict[str, TaskPlan]] = {}


def _forget(key: int) -> None:
    _CACHE.pop(key, None)


def _copy(value: object) -> JsonValue:
    """A deep copy of a JSON value (None stays None)."""
    return None if value is None else loads_json(json.dumps(value))


def task_plan(world: World, task: Task) -> TaskPlan:
    """The plan of ``task`` in ``world`` (computed once, then cached with the world)."""
    key = id(world)
    plans = _CACHE.get(key)
    if plans is None:
        plans = _CACHE[key] = {}
        weakref.finalize(world, _forget, key)
    plan = plans.get(task.task_id)
    if plan is None:
        plan = plans[task.task_id] = _build_plan(world, task)
    return plan


def _build_plan(world: World, task: Task) -> TaskPlan:
    env = world.new_env()
    state = env.state
    steps: list[PlanStep] = []
    for index, action in enumerate(task.actions):
        kwargs = as_object(_copy(dict(action.kwargs)))
        spec = world.tools.specs.get(action.name)
        if spec is not None and spec.ends_episode:
            steps.append(PlanStep(index, action.name, kwargs, "transfer"))
            continue
        if spec is None or spec.kind is not ToolKind.WRITE:
            steps.append(PlanStep(index, action.name, kwargs, "read"))
            env.execute(action.name, dict(kwargs))
            continue
        before: dict[str, JsonObject | None] = {}
        user_id = kwargs.get("user_id")
        owner = user_id if isinstance(user_id, str) else None
        rk = record_key(action.name, kwargs)
        if rk is not None and rk[0] in ("reservation", "order"):
            table = READ_TOOLS[rk[0]].table
            record = _record(state.get(table, rk[1]))
            before[rk[0]] = record
            record_owner = record.get("user_id") if record is not None else None
            if isinstance(record_owner, str):
                owner = record_owner
        if owner is not None:
            before["user"] = _record(state.get("users", owner))
        steps.append(PlanStep(index, action.name, kwargs, "write", before, owner))
        env.execute(action.name, dict(kwargs))
    return TaskPlan(task.task_id, task.domain, tuple(steps))


def _record(value: object) -> JsonObject | None:
    """A copy of a record read from the state (None when there is none)."""
    copied = _copy(value)
    return copied if isinstance(copied, dict) else None
