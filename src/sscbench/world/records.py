"""The τ-bench worlds' record tables: which record each tool touches, and how to read it.

Several stages need the same facts about the two domains' tools — the scripted agent
(what to read before and after a write), the ground-truth plan (which records a write
touches), the typed fault families (which call is the target write, which read is its
read-back) and the release assessment (which reads are read-backs of the target). They
live here once:

* the write sets (:data:`RESERVATION_WRITES`, :data:`ORDER_WRITES`, :data:`USER_WRITES`);
* :func:`record_key`: the record a read or write is about, e.g. ``("order", "#W1")``;
* :data:`READ_TOOLS`: per record kind, the read tool, its id argument and the table;
* a booking creates its record: its read-back (:data:`BOOKING_READBACK`) reads the new
  reservation, whose id only the acknowledgement carries (:func:`reads_booked_record`).
"""

from __future__ import annotations

from typing import NamedTuple

from sscbench.json_types import JsonMapping

RESERVATION_WRITES = frozenset(
    {
        "update_reservation_flights",
        "update_reservation_baggages",
        "update_reservation_passengers",
        "cancel_reservation",
    }
)
ORDER_WRITES = frozenset(
    {
        "exchange_delivered_order_items",
        "return_delivered_order_items",
        "modify_pending_order_items",
        "modify_pending_order_address",
        "modify_pending_order_payment",
        "cancel_pending_order",
    }
)
USER_WRITES = frozenset({"modify_user_address", "send_certificate", "book_reservation"})

BOOKING_WRITE = "book_reservation"
"""The write that creates a record (a reservation) instead of changing a named one."""
BOOKING_READBACK = "get_reservation_details"
"""A booking's read-back reads the new reservation (its id comes from the acknowledgement)."""


class RecordRead(NamedTuple):
    """How a record kind is read: the read tool, its id argument and the table it reads."""

    tool: str
    id_argument: str
    table: str


READ_TOOLS: dict[str, RecordRead] = {
    "reservation": RecordRead("get_reservation_details", "reservation_id", "reservations"),
    "order": RecordRead("get_order_details", "order_id", "orders"),
    "user": RecordRead("get_user_details", "user_id", "users"),
    "product": RecordRead("get_product_details", "product_id", "products"),
}


def record_key(name: str, arguments: JsonMapping) -> tuple[str, str] | None:
    """The record a read or write of ``name`` is about, e.g. ``("reservation", "ABC123")``.

    None when the tool names no record or the id argument is not a string.
    """
    if name in ("get_reservation_details", *RESERVATION_WRITES):
        rid = arguments.get("reservation_id")
        return ("reservation", rid) if isinstance(rid, str) else None
    if name in ("get_order_details", *ORDER_WRITES):
        oid = arguments.get("order_id")
        return ("order", oid) if isinstance(oid, str) else None
    if name in ("get_user_details", *USER_WRITES):
        uid = arguments.get("user_id")
        return ("user", uid) if isinstance(uid, str) else None
    if name == "get_product_details":
        pid = arguments.get("product_id")
        return ("product", pid) if isinstance(pid, str) else None
    return None


def reads_booked_record(write: str, read: str) -> bool:
    """Whether a call of ``read`` can be the read-back of ``write`` because ``write`` is a
    booking (the new reservation is read by :data:`BOOKING_READBACK`, whatever its id)."""
    return write == BOOKING_WRITE and read == BOOKING_READBACK


__all__ = [
    "BOOKING_READBACK",
    "BOOKING_WRITE",
    "ORDER_WRITES",
    "READ_TOOLS",
    "RESERVATION_WRITES",
    "USER_WRITES",
    "RecordRead",
    "reads_booked_record",
    "record_key",
]
