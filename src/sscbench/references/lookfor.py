"""What an operator asks the references to look for: one frozen description per kind.

An operator declares what to look for — the entity, the values to tell apart, the scope
a text must be about — and hands the description with the model-visible ledger to the
kind's one entry point in :mod:`sscbench.references`, which finds the texts and calls
that carry those values and returns them as typed hits (``UseCandidate``: the step, the
channel, the span and which of the two values it carries). How a date, a payment method,
an item's option or a flight change is written, and which sentence is about which
reservation or item, is the references' business; what the hits mean (a use, reliance,
a check) is decided above, in the operators' use rules and in :mod:`sscbench.measure`.

``injected`` is the value the faulty observation showed (v′), ``authoritative`` the
value the authoritative state holds (v); the references look for both alike and say
which one each hit carries.
"""

from __future__ import annotations

from dataclasses import dataclass

from sscbench.json_types import JsonObject, JsonValue


@dataclass(frozen=True)
class ReturnDateLookFor:
    """A round trip's return date in the scope of one reservation: the reservation
    (texts about it by id, flight, route or position; calls on it), the two dates, the
    routes a search for the return would use (``"ORIG-DEST"``) and the outbound dates (a
    date shared with an outbound leg does not say the return)."""

    reservation_id: str
    injected: str
    authoritative: str
    return_routes: frozenset[str]
    outbound_dates: frozenset[str]
    read_tool: str = "get_reservation_details"
    """The read of the reservation: its calls carry the date without using it."""


@dataclass(frozen=True)
class PaymentLookFor:
    """A payment method's category: the method (by id; texts name it by id, digits,
    brand, balance, a definite category or a role), the two categories, whether the tool
    interface states each id's category (then a delivered id shows it), and the read
    whose calls carry the method without paying with it."""

    method_id: str
    injected: str
    authoritative: str
    ids_state_category: bool
    read_tool: str = "get_user_details"


@dataclass(frozen=True)
class ItemOptionLookFor:
    """One option of one ordered item: the item (named by id, position, table row, bullet
    block, product word, or an option that tells it from the order's other items), the
    option's name, the two values, the order it is in, its product's name (when no order
    read shows the items), and the variant the injected value names (a call acting on it
    acts on v′)."""

    item_id: str
    option: str
    injected: str
    authoritative: str
    order_id: str | None
    product_name: str
    injected_variant: str


@dataclass(frozen=True)
class WriteEffectLookFor:
    """A flight change of one reservation that was acknowledged but never committed:
    the request (its arguments: reservation, flights, cabin, payment method), the flights
    the acknowledgement showed and those the reservation kept, whether the suppression
    fires once (then a later matching write commits) and whether reads are independent
    of the fault (then a read showing the new flights shows the change made)."""

    reservation_id: str
    request: JsonObject
    acknowledged_flights: JsonValue
    original_flights: JsonValue
    fires_once: bool = True
    independent_reads: bool = True
