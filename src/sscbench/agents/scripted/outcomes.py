"""What a read-back shows about a write, and what the agent reports.

Pure functions of the write's acknowledgement and read-back observations: whether the
record shows what the acknowledgement says was done (or, after a timeout, what was
requested), and the texts of the report and of an unchanged record.
"""

from __future__ import annotations

from sscbench.agents.scripted.phrases import CERTIFICATE
from sscbench.agents.scripted.transcript import Block
from sscbench.agents.scripted_facts import (
    Obs,
    address_text,
    as_list,
    fields,
    length,
    objects,
    passengers_text,
    segment_refs,
    segment_text,
    segments,
)
from sscbench.agents.scripted_plan import PlanStep
from sscbench.json_types import JsonObject, JsonValue


def took_effect_request(block: Block, arguments: JsonObject, back: Obs) -> tuple[bool, str | None]:
    """Whether the read-back record shows the requested change (no acknowledgement to
    compare with), and the report to give when it is not the usual one."""
    name = block.step.name
    now = back.record
    if back.error or not now:
        return False, None
    before = block.record.record if block.record is not None else {}
    user_before = block.user.record if block.user is not None else {}
    if name == "update_reservation_flights":
        wanted = segment_refs(objects(arguments.get("flights")))
        return segment_refs(segments(now)) == wanted, None
    if name == "update_reservation_baggages":
        keys: tuple[str, ...] = ("total_baggages", "nonfree_baggages")
        return all(now.get(k) == arguments.get(k) for k in keys), None
    if name == "update_reservation_passengers":

        def people(items: JsonValue) -> list[tuple[JsonValue, ...]]:
            return [(p.get("first_name"), p.get("last_name"), p.get("dob")) for p in objects(items)]

        return people(now.get("passengers")) == people(arguments.get("passengers")), None
    if name in ("cancel_reservation", "cancel_pending_order"):
        return now.get("status") == "cancelled", None
    if name == "book_reservation":
        old = set(_hashable(user_before.get("reservations")))
        new = [r for r in _hashable(now.get("reservations")) if r not in old]
        if not new:
            return False, None
        return True, f"Done: your booking {new[-1]} is confirmed."
    if name == "send_certificate":

        def certificates(user: JsonObject) -> int:
            methods = user.get("payment_methods")
            values = list(methods.values()) if isinstance(methods, dict) else _elements(methods)
            return sum(
                1 for m in values if isinstance(m, dict) and m.get("source") == "certificate"
            )

        return certificates(now) > certificates(user_before), None
    if name in ("modify_user_address", "modify_pending_order_address"):
        address = fields(now.get("address"))
        keys = ("address1", "address2", "city", "state", "country", "zip")
        return all(address.get(k) == arguments.get(k) for k in keys if k in arguments), None
    return now != before, None  # the record changed since the agent read it


def took_effect(name: str, ack: Obs, back: Obs | None) -> bool:
    """Whether the read-back record shows what the acknowledgement says was done."""
    if back is None or back.error or not back.record:
        return False
    new, now = ack.record, back.record
    if name == "update_reservation_flights":
        return segment_refs(segments(new)) == segment_refs(segments(now)) and length(
            new.get("payment_history")
        ) == length(now.get("payment_history"))
    if name == "update_reservation_baggages":
        return all(new.get(k) == now.get(k) for k in ("total_baggages", "nonfree_baggages"))
    if name == "update_reservation_passengers":
        return new.get("passengers") == now.get("passengers")
    if name == "cancel_reservation":
        return now.get("status") == new.get("status") == "cancelled"
    if name == "book_reservation":
        return segment_refs(segments(new)) == segment_refs(segments(now))
    if name == "send_certificate":
        match = CERTIFICATE.search(ack.text)
        return match is not None and _holds(now.get("payment_methods"), match.group(0))
    if name == "modify_user_address":
        return new.get("address") == now.get("address")
    return new == now


def report_text(step: PlanStep, arguments: JsonObject, source: Obs) -> str:
    record = source.record
    name = step.name
    rid = arguments.get("reservation_id")
    oid = arguments.get("order_id")
    if name == "update_reservation_flights":
        flights = ", ".join(segment_text(f) for f in segments(record))
        return f"Done: reservation {rid} now has these flights: {flights}."
    if name == "update_reservation_baggages":
        return (
            f"Done: reservation {rid} now has {record.get('total_baggages')} checked bags "
            f"({record.get('nonfree_baggages')} paid)."
        )
    if name == "update_reservation_passengers":
        return f"Done: the passengers of reservation {rid} are now {passengers_text(record.get('passengers'))}."
    if name == "cancel_reservation":
        return f"Done: reservation {rid} is cancelled; refunds go to the original payment methods."
    if name == "book_reservation":
        return f"Done: your booking {record.get('reservation_id')} is confirmed."
    if name == "send_certificate":
        return "Done: the certificate has been added to your account."
    if name == "modify_user_address":
        return f"Done: your default address is now {address_text(record.get('address'))}."
    if name == "modify_pending_order_address":
        return f"Done: order {oid} now ships to {address_text(record.get('address'))}."
    if oid is not None:
        return f"Done: order {oid} is now '{record.get('status')}'."
    return "Done."


def state_text(step: PlanStep, arguments: JsonObject, back: Obs | None) -> str:
    if back is None or back.error or not back.record:
        return "the record could not be found."
    record = back.record
    rid = arguments.get("reservation_id")
    oid = arguments.get("order_id")
    if step.name == "update_reservation_flights":
        flights = ", ".join(segment_text(f) for f in segments(record))
        return f"reservation {rid} still shows these flights: {flights}."
    if step.name == "update_reservation_baggages":
        return (
            f"reservation {rid} still shows {record.get('total_baggages')} checked bags "
            f"({record.get('nonfree_baggages')} paid)."
        )
    if step.name == "cancel_reservation":
        return f"reservation {rid} is not cancelled."
    if rid is not None:
        return f"reservation {rid} is unchanged."
    if oid is not None:
        return f"order {oid} is still '{record.get('status')}'."
    return "the record is unchanged."


def _hashable(value: JsonValue) -> list[str | int | float | bool | None]:
    """The scalar elements of ``value or ()`` (reservation ids), as a set can hold them;
    an element that is itself an array or object raises TypeError, as hashing it does."""
    out: list[str | int | float | bool | None] = []
    for element in _elements(value):
        if isinstance(element, (list, dict)):
            raise TypeError(f"unhashable type: {type(element).__name__!r}")
        out.append(element)
    return out


def _elements(value: JsonValue) -> list[JsonValue]:
    """What iterating ``value or ()`` yields: an array's elements, an object's keys, a
    string's characters; any other truthy value raises TypeError, as iterating it does."""
    if isinstance(value, (dict, str)):
        return list(value)
    if isinstance(value, list) or not value:
        return as_list(value)
    raise TypeError(f"{type(value).__name__!r} object is not iterable")


def _holds(container: JsonValue, key: str) -> bool:
    """``key in (container or {})``: a key of an object, an element of an array or a
    substring of a string."""
    if isinstance(container, (dict, list, str)):
        return key in container
    if not container:
        return False
    raise TypeError(f"argument of type {type(container).__name__!r} is not iterable")
