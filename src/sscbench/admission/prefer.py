"""Case selections that favour candidates a weak agent can reach (``[cases] prefer``).

``early-trigger`` screens first the candidates whose fault-bearing call is an early,
natural call of the task, then the others (each group in the usual cluster-cycling
order). It is a *selection*: the study records it in its config, and the report's
funnel says so. Only the task and the world decide it, never an agent's outcome:

* ReturnDate, ItemOption: the reservation (order) read is one the opening request
  names — the task's instruction names it, or one of the task's own writes acts on
  it (the scripted user names those in its first message);
* PaySource: the task's first write pays with the method the fault relabels (the
  agent reads the user's profile, the fault-bearing call, to find how to pay);
* WriteEffect: the suppressed write is the task's own first write (not a cabin
  change made up for the reservation).
"""

from __future__ import annotations

from typing import Any, Literal

from sscbench.faults.case import Candidate
from sscbench.world.world import World

Preference = Literal["early-trigger"]
PREFERENCES: tuple[str, ...] = ("early-trigger",)
_TARGET_KEYS = {"ReturnDate": "reservation_id", "ItemOption": "order_id"}


def _writes(world: World, task: Any) -> list[Any]:
    from sscbench.world.tools import ToolKind

    specs = world.tools.specs
    return [a for a in task.actions if a.name in specs and specs[a.name].kind is ToolKind.WRITE]


def _named_in_opening(world: World, task: Any, identifier: str) -> bool:
    if identifier in (task.instruction or ""):
        return True
    intent = task.intent or {}
    if identifier in {intent.get("reservation_id"), intent.get("order_id")}:
        return True
    return any(identifier in map(str, a.kwargs.values()) for a in _writes(world, task))


def early_trigger(candidate: Candidate, world: World) -> bool:
    """Whether the candidate's fault-bearing call is an early, natural call of its task."""
    task = world.task(candidate.task_id)
    params = candidate.params
    if candidate.operator in _TARGET_KEYS:
        identifier = params.get(_TARGET_KEYS[candidate.operator])
        return isinstance(identifier, str) and _named_in_opening(world, task, identifier)
    writes = _writes(world, task)
    if not writes:
        return False
    first_write = writes[0]
    if candidate.operator == "PaySource":
        return params.get("payment_id") in {str(value) for value in first_write.kwargs.values()}
    if candidate.operator == "WriteEffect":
        request = params.get("request") or {}
        return (
            params.get("request_origin") == "task"
            and first_write.name == "update_reservation_flights"
            and first_write.kwargs.get("reservation_id") == request.get("reservation_id")
        )
    return False


def preferred_first(
    candidates: list[Candidate], world: World, prefer: Preference | None
) -> tuple[list[Candidate], int]:
    """``candidates`` in screening order under the preference, and how many it prefers.

    Without a preference the order is unchanged; with one, the preferred candidates
    come first, each group keeping its own order.
    """
    if prefer is None:
        return candidates, 0
    if prefer != "early-trigger":
        raise ValueError(f"unknown case preference {prefer!r}; known: {list(PREFERENCES)}")
    chosen = [c for c in candidates if early_trigger(c, world)]
    ids = {c.candidate_id for c in chosen}
    return chosen + [c for c in candidates if c.candidate_id not in ids], len(chosen)
