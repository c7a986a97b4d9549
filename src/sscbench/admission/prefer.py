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

``read-first`` keeps the early-trigger candidates whose opening request cannot be
carried out from its own words: the task's first write acts on a record the agent
must read first — a cabin change keeps the reservation's own flights (and, in the
generated world, its payment), a cancellation or a baggage change names no flights —
unlike a change to flights the user lists or a booking, which a weak model writes at
once with invented values (measured for issue 21). A ReturnDate or PaySource fault
then sits on the read such a request needs.
"""

from __future__ import annotations

from typing import Literal

from sscbench.faults.case import Candidate
from sscbench.faults.registry import family
from sscbench.world.task import Action, Task
from sscbench.world.world import World

Preference = Literal["early-trigger", "read-first"]
PREFERENCES: tuple[str, ...] = ("early-trigger", "read-first")


def _writes(world: World, task: Task) -> list[Action]:
    from sscbench.world.tools import ToolKind

    specs = world.tools.specs
    return [a for a in task.actions if a.name in specs and specs[a.name].kind is ToolKind.WRITE]


def _named_in_opening(world: World, task: Task, identifier: str) -> bool:
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
    operator = family(candidate.operator)
    if operator.early_target_argument is not None:
        identifier = params.model_dump().get(operator.early_target_argument)
        return isinstance(identifier, str) and _named_in_opening(world, task, identifier)
    writes = _writes(world, task)
    if not writes:
        return False
    return operator.early_on_first_write(params, writes[0])


def _legs(flights: object) -> list[tuple[object, object]]:
    listed = flights if isinstance(flights, list) else []
    return [(f.get("flight_number"), f.get("date")) for f in listed if isinstance(f, dict)]


def needs_read(world: World, task: Task) -> bool:
    """Whether the task's first write acts on a record its opening request does not spell out.

    A flight update that keeps the reservation's own flights (a cabin change), or a
    write on a reservation or order other than a flight update or a booking; never a
    change to flights the user names, a booking, or a task without writes.
    """
    writes = _writes(world, task)
    if not writes:
        return False
    first = writes[0]
    if first.name == "book_reservation":
        return False
    if first.name != "update_reservation_flights":
        return any(key in first.kwargs for key in ("reservation_id", "order_id"))
    rid = first.kwargs.get("reservation_id")
    record = world.base.tables.get("reservations", {}).get(rid) if isinstance(rid, str) else None
    if not isinstance(record, dict):
        return False
    return _legs(first.kwargs.get("flights")) == _legs(record.get("flights"))


def read_first(candidate: Candidate, world: World) -> bool:
    """Early-trigger, and the opening request needs a read before any write (see above)."""
    return early_trigger(candidate, world) and needs_read(world, world.task(candidate.task_id))


_RULES = {"early-trigger": early_trigger, "read-first": read_first}


def preferred_first(
    candidates: list[Candidate], world: World, prefer: Preference | None
) -> tuple[list[Candidate], int]:
    """``candidates`` in screening order under the preference, and how many it prefers.

    Without a preference the order is unchanged; with one, the preferred candidates
    come first, each group keeping its own order.
    """
    if prefer is None:
        return candidates, 0
    rule = _RULES.get(prefer)
    if rule is None:
        raise ValueError(f"unknown case preference {prefer!r}; known: {list(PREFERENCES)}")
    chosen = [c for c in candidates if rule(c, world)]
    ids = {c.candidate_id for c in chosen}
    return chosen + [c for c in candidates if c.candidate_id not in ids], len(chosen)
