"""WriteEffect's change scope: which later reservation reads still speak of the suppressed attempt.

Paper §IV-C: repeated attempts belong to the same logical request only while no
intervening write changes the affected field, so a later read supplies counterevidence
only while its state scope still refers to the suppressed attempt. The affected field
is the reservation's ``flights`` (legs and their prices: a cabin change moves the
prices). A write to the reservation breaks the scope only when the record it returns
shows ``flights`` other than those the suppressed attempt left (the contract's
authoritative value); a write that leaves them unchanged (baggage, passengers, a
cancellation, the same flights again) keeps the scope, and a write whose result shows
no flights leaves a later refuting read undecidable rather than guessed.
"""

from __future__ import annotations

from sscbench.core.values import INF, UNDECIDABLE, Evidence
from sscbench.core.view import LedgerView
from sscbench.faults.contract import FaultContract
from sscbench.references.write_derived import legs

READ = "get_reservation_details"
RESERVATION_WRITES = frozenset(
    {
        "update_reservation_flights",
        "update_reservation_baggages",
        "update_reservation_passengers",
        "cancel_reservation",
    }
)


def flights_field(flights: object) -> tuple[list[tuple[str, str]], list[object]] | None:
    """The affected field as compared: (legs, prices), or None when no flights are shown."""
    if not isinstance(flights, list):
        return None
    return legs(flights), [f.get("price") if isinstance(f, dict) else None for f in flights]


def _shown(data: object) -> tuple[list[tuple[str, str]], list[object]] | None:
    return flights_field(data.get("flights")) if isinstance(data, dict) else None


def scoped_counterevidence(contract: FaultContract, view: LedgerView, fault_step: int) -> Evidence:
    """The first read of the reservation after the attempt showing it unapplied, while no
    write in between has changed its flights (the module docstring)."""
    rid = contract.target.entity_id
    acked = flights_field(contract.injected_value)
    scoped = flights_field(contract.authoritative_value)
    unseen: str | None = None  # a write in between whose effect on flights is not shown
    for call in view.calls:
        if call.observation_step is None or call.call_step <= fault_step:
            continue
        if call.arg("reservation_id") != rid:
            continue
        shown = _shown(call.data)
        if call.name in RESERVATION_WRITES:
            if (call.observation or "").startswith("Error"):
                continue  # refused: nothing changed
            if shown is None:
                unseen = unseen or call.name
            elif shown != scoped:
                return Evidence(INF, (), f"a later {call.name} changed the reservation's flights")
            continue
        if call.name == READ and shown is not None and shown != acked:
            if unseen is not None:
                return Evidence(
                    UNDECIDABLE, (), f"a {unseen} in between shows no flights: scope unknown"
                )
            return Evidence(
                call.observation_step,
                (call.observation_step,),
                "the reservation read after the attempt shows it unapplied",
            )
    return Evidence(INF, (), "no scoped read of the reservation after the attempt")
