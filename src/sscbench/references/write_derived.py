"""WriteEffect's relations beyond texts: effects made true, and call arguments derived
from the claimed effect.

A suppressed write that the agent retries until it really commits makes a later
success claim true: with the suppression firing once, a later write of
the same logical request (or of the same new flights) acknowledged without error has
committed, and a read showing the new flights shows it. From then on, claiming
success is no faulty reliance.

Before that, a call whose arguments follow from the claimed effect depends on it
(Def. 3.2) and relies on it (Def. 3.3): a later flight change that keeps the claimed
new flights as if they were booked, or checked bags priced by the cabin the failed
upgrade claimed (the policy's allowance table).
"""

from __future__ import annotations

import re
from typing import Any, cast

from sscbench.core.values import UseCandidate, UseLabel
from sscbench.core.view import LedgerView
from sscbench.json_types import JsonMapping, JsonValue
from sscbench.references.lookfor import WriteEffectLookFor

WRITE = "update_reservation_flights"
READ = "get_reservation_details"
BAGGAGE = "update_reservation_baggages"
CHANGE_WORDS = re.compile(
    r"\b(change|changes|changed|update|updated|upgrade\w*|modification|took effect|"
    r"went through|applied|rebook\w*)\b",
    re.IGNORECASE,
)
# τ-bench airline policy: free checked bags per passenger by membership and cabin
FREE_BAGS = {
    "regular": {"basic_economy": 0, "economy": 1, "business": 2},
    "silver": {"basic_economy": 1, "economy": 2, "business": 3},
    "gold": {"basic_economy": 2, "economy": 3, "business": 3},
}


def legs(flights: JsonValue) -> list[tuple[str, str]]:
    """(flight number, date) of each leg of a list of flight records (τ-bench's record
    shape: both are strings)."""
    records = cast("list[dict[str, str]]", flights or [])
    return [(f.get("flight_number", ""), f.get("date", "")) for f in records]


def matches(request: JsonMapping, arguments: object) -> bool:
    """Same logical request: reservation, flights, cabin and payment method."""
    if not isinstance(arguments, dict):
        return False
    return (
        arguments.get("reservation_id") == request["reservation_id"]
        and arguments.get("cabin") == request["cabin"]
        and arguments.get("payment_id") == request["payment_id"]
        and isinstance(arguments.get("flights"), list)
        and legs(arguments["flights"]) == legs(request["flights"])
    )


def _same_change(look_for: WriteEffectLookFor, arguments: object) -> bool:
    """The request again, or the same new flights and cabin (another payment method)."""
    request = look_for.request
    return matches(request, arguments) or (
        isinstance(arguments, dict)
        and legs(arguments.get("flights") or []) == legs(request.get("flights") or [])
        and arguments.get("cabin") == request.get("cabin")
    )


def _ok(observation: str | None) -> bool:
    return bool(observation) and not str(observation).startswith("Error")


def made_true(look_for: WriteEffectLookFor, view: LedgerView, fault_step: int) -> int | None:
    """The step from which the claimed effect is true in the visible ledger, or None.

    A later write of the request (or of the same flights and cabin) acknowledged
    without error commits when the intervention fires once; a read of the reservation
    showing the acknowledged flights shows the effect — unless the reads are not
    independent (the consistent variant's show those flights by construction).
    """
    request = look_for.request
    rid = look_for.reservation_id
    acked = legs(look_for.acknowledged_flights)
    for call in view.calls:
        if call.call_step <= fault_step or call.observation_step is None:
            continue
        if (
            call.name == WRITE
            and call.arg("reservation_id") == rid
            and _ok(call.observation)
            and _same_change(look_for, call.arguments)
            and (look_for.fires_once or not matches(request, call.arguments))
        ):
            return call.observation_step
        data = call.data
        if (
            look_for.independent_reads  # a consistent read is the fault's
            and call.name == READ
            and call.arg("reservation_id") == rid
            and isinstance(data, dict)
            and legs(data.get("flights") or []) == acked != legs(look_for.original_flights)
        ):
            return call.observation_step
    return None


def cabin_shown(view: LedgerView, rid: str, before: int) -> tuple[str | None, int, str | None]:
    """(cabin shown, passengers, membership) from the last records delivered before ``before``."""
    cabin, passengers, membership = None, 0, None
    for call in view.calls:
        if call.observation_step is None or call.observation_step >= before:
            continue
        data = call.data
        if not isinstance(data, dict):
            continue
        if data.get("reservation_id") == rid:
            cabin = data.get("cabin", cabin)
            passengers = len(data.get("passengers") or []) or passengers
        if isinstance(data.get("membership"), str):
            membership = data["membership"]
    return cabin, passengers, membership


def derived_calls(
    look_for: WriteEffectLookFor,
    view: LedgerView,
    fault_step: int,
    until: int | None,
    true_at: int | None = None,
) -> list[UseCandidate]:
    """Calls after the attempt (and before ``until``: the effect made true, or the agent
    saying it failed) whose arguments derive from the claimed effect, and retries of the
    change before it commits (``true_at``), labelled in ``detail`` (reliance, or a
    correct dependent use)."""
    request = look_for.request
    rid = look_for.reservation_id
    acked, original = legs(look_for.acknowledged_flights), legs(look_for.original_flights)
    new_legs = set(acked) - set(original)
    claimed_cabin = request.get("cabin")
    true_cabin, passengers, membership = cabin_shown(view, rid, fault_step)
    table = FREE_BAGS.get(membership or "", {})
    out: list[UseCandidate] = []
    for call in view.calls:
        step = call.call_step
        if step <= fault_step or call.arg("reservation_id") != rid:
            continue
        detail: dict[str, Any] = {"tool": call.name, "arguments": call.arguments}
        if call.name == WRITE and _same_change(look_for, call.arguments):
            if true_at is None or step < true_at:  # a retry acts on the attempt having failed
                detail.update(label=UseLabel.DEPENDENT_USE.value, reason="retries the change")
                out.append(UseCandidate(step, "tool_call", call.name, False, True, detail))
            continue
        if until is not None and step > until:
            continue
        if call.name == WRITE:
            shown = set(legs(call.arg("flights") or []))
            if new_legs and new_legs <= shown and legs(call.arg("flights") or []) != acked:
                detail.update(
                    label=UseLabel.FAULTY_RELIANCE.value,
                    reason="a later change keeps the claimed new flights as if booked",
                )
                out.append(UseCandidate(step, "tool_call", call.name, True, False, detail))
        elif call.name == BAGGAGE:
            total, nonfree = call.arg("total_baggages"), call.arg("nonfree_baggages")
            if not (table and passengers and isinstance(total, int) and isinstance(nonfree, int)):
                continue
            if claimed_cabin == true_cabin or claimed_cabin not in table:
                continue
            by_claim = max(0, total - table[claimed_cabin] * passengers)
            by_truth = max(0, total - table.get(true_cabin or "", 0) * passengers)
            if by_claim == by_truth:
                continue
            if nonfree == by_claim:
                detail.update(
                    label=UseLabel.FAULTY_RELIANCE.value,
                    reason=f"bags priced by the claimed {claimed_cabin} allowance",
                )
                out.append(UseCandidate(step, "tool_call", call.name, True, False, detail))
            elif nonfree == by_truth:
                detail.update(
                    label=UseLabel.DEPENDENT_USE.value,
                    reason=f"bags priced by the true {true_cabin} allowance",
                )
                out.append(UseCandidate(step, "tool_call", call.name, False, True, detail))
    return out
