"""Which section of a world's policy authorises each write: the entitlement registry.

A policy grants the agent its actions section by section (τ-bench airline: "## Cancel
flight" authorises ``cancel_reservation``; the generated retail world: "## Cancelling a
pending order" authorises ``cancel_pending_order``). A context compiler that checks
entitlement needs that map: before an action it asks whether the context it was given
still carries the clause that authorises it. The ``MissingEntitlement`` family
(:mod:`sscbench.faults.context_faults`) removes the clause; a scripted agent with the
entitlement check (:mod:`sscbench.agents.scripted`) refuses to act without it.

The registry knows the headings of τ-bench's and the generated worlds' policies. A write
tool with no entry (``modify_user_address``: no section of its own in either) is never
checked, and a context whose policy carries none of the known headings is a policy the
compiler does not know: :func:`lacks_entitlement` then says nothing is missing.
"""

from __future__ import annotations

import re

AUTHORISING_HEADINGS: dict[str, tuple[str, ...]] = {
    "book_reservation": ("Book flight", "Booking"),
    "update_reservation_flights": ("Modify flight", "Changing a reservation"),
    "update_reservation_baggages": ("Modify flight", "Changing a reservation"),
    "update_reservation_passengers": ("Modify flight", "Changing a reservation"),
    "cancel_reservation": ("Cancel flight", "Cancelling"),
    "send_certificate": ("Refund", "Compensation"),
    "cancel_pending_order": ("Cancel pending order", "Cancelling a pending order"),
    "modify_pending_order_items": ("Modify pending order", "Changing a pending order"),
    "modify_pending_order_address": ("Modify pending order", "Changing a pending order"),
    "modify_pending_order_payment": ("Modify pending order", "Changing a pending order"),
    "return_delivered_order_items": ("Return delivered order", "Returning a delivered order"),
    "exchange_delivered_order_items": (
        "Exchange delivered order",
        "Exchanging a delivered order",
    ),
}
"""Per write tool, the ``## `` headings of the policy sections that authorise it."""

_KNOWN = frozenset(h for headings in AUTHORISING_HEADINGS.values() for h in headings)
_HEADING = re.compile(r"^## +(.+?)\s*$", re.MULTILINE)


def _headings(policy: str) -> list[re.Match[str]]:
    return list(_HEADING.finditer(policy))


def authorising_section(policy: str, tool: str) -> tuple[int, int] | None:
    """The span (start, end) of the first policy section authorising ``tool`` — from its
    ``## `` heading up to the next ``## `` heading — or None when the policy has none."""
    wanted = AUTHORISING_HEADINGS.get(tool, ())
    found = _headings(policy)
    for i, match in enumerate(found):
        if match.group(1) in wanted:
            end = found[i + 1].start() if i + 1 < len(found) else len(policy)
            return match.start(), end
    return None


def without_entitlement(policy: str, tool: str) -> str | None:
    """The policy with every section authorising ``tool`` removed (None when it has none)."""
    if authorising_section(policy, tool) is None:
        return None
    text = policy
    while (span := authorising_section(text, tool)) is not None:
        text = text[: span[0]] + text[span[1] :]
    return text


def lacks_entitlement(policy: str, tool: str) -> bool:
    """Whether a context known to the registry carries no section authorising ``tool``.

    False for a tool the registry does not list and for a policy with none of the known
    headings (a compiler cannot check a policy whose structure it does not know).
    """
    if tool not in AUTHORISING_HEADINGS:
        return False
    if not any(m.group(1) in _KNOWN for m in _headings(policy)):
        return False
    return authorising_section(policy, tool) is None


__all__ = [
    "AUTHORISING_HEADINGS",
    "authorising_section",
    "lacks_entitlement",
    "without_entitlement",
]
