"""A deterministic simulated user that drives an agent through a task's request.

The user opens with a request derived from the task (a generated task's ``intent``;
for τ-bench tasks, the ground-truth actions and ``user_id`` — the free-text
instruction is never parsed), hands out identifiers when the agent asks for them
(user id, email, name and zip, reservation or order ids), confirms with "yes" when
the agent asks for confirmation, and ends the conversation with ``###STOP###`` when
the agent closes the request ("anything else?"), refuses it, or after a bounded
number of turns. Everything it says is a pure function of the task, the world's
base data and the agent's messages.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from sscbench.core.agent import RunContext
from sscbench.core.ledger import LedgerEvent
from sscbench.core.user import STOP
from sscbench.json_types import JsonMapping

CLOSING = "Thank you, that's all I needed. " + STOP
_SENTENCE = re.compile(r"[^.?!\n]+[.?!]?")
_ASKING = (
    "?",
    "provide",
    "share",
    "tell me",
    "give me",
    "let me know",
    "need your",
    "need the",
    "could you",
    "can you",
    "may i",
    "please",
)
_RESERVATION_ASK = re.compile(
    r"reservation (id|number|code)|confirmation (number|code)|booking (id|reference|number)"
)
_CONFIRM = (
    "proceed",
    "confirm",
    "shall i",
    "should i",
    "would you like me to",
    "do you want me to",
    "go ahead",
    "yes/no",
    "try again",
    "would you like to",
)
_CLOSING_WORDS = (
    "anything else",
    "is there something else",
    "goodbye",
    "have a great day",
    "have a nice day",
)
_REFUSAL = (
    "cannot",
    "can't",
    "can not",
    "unable to",
    "not able to",
    "not possible",
    "not allowed",
    "transfer you",
    "transferring you",
)


def _flights_text(flights: object) -> str:
    if not isinstance(flights, list):
        return ""
    parts = [f"{f.get('flight_number')} on {f.get('date')}" for f in flights if isinstance(f, dict)]
    return ", ".join(parts)


def _options_text(options: object) -> str:
    if not isinstance(options, dict):
        return ""
    return ", ".join(f"{k} {v}" for k, v in options.items())


def _list(value: object) -> list[object]:
    """``value`` when it is a list, else no items (an intent's ``items`` slot)."""
    return value if isinstance(value, list) else []


def _mapping(value: object) -> Mapping[str, object]:
    """``value`` when it is a JSON object, else an empty one (a record's ``name``, ``address``)."""
    return value if isinstance(value, dict) else {}


def _action_request(name: str, kwargs: JsonMapping, context: RunContext) -> str | None:
    """What a user asks for, given one ground-truth write (None for reads)."""
    rid = kwargs.get("reservation_id")
    oid = kwargs.get("order_id")
    if name == "update_reservation_flights":
        found = (
            context.world.base.tables.get("reservations", {}).get(rid or "")
            if isinstance(rid, str)
            else None
        )
        base = found or {}
        if base.get("cabin") and kwargs.get("cabin") != base.get("cabin"):
            return f"change the cabin of reservation {rid} to {kwargs.get('cabin')}"
        return f"change the flights of reservation {rid}"
    if name == "update_reservation_baggages":
        return f"update the checked bags on reservation {rid} to {kwargs.get('total_baggages')} in total"
    if name == "update_reservation_passengers":
        return f"update the passenger details on reservation {rid}"
    if name == "cancel_reservation":
        return f"cancel reservation {rid}"
    if name == "book_reservation":
        trip = "round trip" if kwargs.get("flight_type") == "round_trip" else "one-way trip"
        return (
            f"book a {trip} from {kwargs.get('origin')} to {kwargs.get('destination')} "
            f"in {str(kwargs.get('cabin', '')).replace('_', ' ')}"
        )
    if name == "send_certificate":
        return "get compensation for a problem with my trip"
    if name == "exchange_delivered_order_items":
        return f"exchange some items of my delivered order {oid}"
    if name == "return_delivered_order_items":
        return f"return some items of my delivered order {oid}"
    if name == "modify_pending_order_items":
        return f"change some items of my pending order {oid}"
    if name == "modify_pending_order_address":
        return f"change the shipping address of my pending order {oid}"
    if name == "modify_pending_order_payment":
        return f"change the payment method of my pending order {oid}"
    if name == "cancel_pending_order":
        return f"cancel my pending order {oid}"
    if name == "modify_user_address":
        return "update my default address"
    return None


def _intent_request(intent: JsonMapping) -> str | None:
    """The opening request of a generated task, from its structured intent."""
    kind = intent.get("kind")
    rid = intent.get("reservation_id")
    oid = intent.get("order_id")
    if kind == "change_flights":
        which = intent.get("changed") or "outbound"
        which = f"the {which}" if intent.get("trip_type") == "round_trip" else "the"
        return (
            f"I'd like to change {which} flights of my reservation {rid}: I want "
            f"{_flights_text(intent.get('new_flights'))} instead, keeping the same cabin."
        )
    if kind == "change_cabin":
        cabin = str(intent.get("cabin", "")).replace("_", " ")
        return f"I'd like to change the cabin of every flight of my reservation {rid} to {cabin}."
    if kind == "cancel":
        return f"I need to cancel my reservation {rid} ({intent.get('reason')})."
    if kind == "book":
        trip = "round trip" if intent.get("flight_type") == "round_trip" else "one-way trip"
        cabin = str(intent.get("cabin", "")).replace("_", " ")
        return (
            f"I'd like to book a {trip} from {intent.get('origin')} to "
            f"{intent.get('destination')} in {cabin}: {_flights_text(intent.get('flights'))}."
        )
    if kind == "update_baggages":
        return (
            f"I'd like to add {intent.get('added_baggages')} checked bags to my reservation "
            f"{rid}, for {intent.get('total_baggages')} in total."
        )
    if kind in ("exchange", "modify_items"):
        items = _list(intent.get("items"))
        wants = "; ".join(
            f"the {i.get('name')} ({_options_text(i.get('options'))}) for the one with "
            f"{_options_text(i.get('new_options'))}"
            for i in items
            if isinstance(i, dict)
        )
        verb = "exchange" if kind == "exchange" else "change"
        state = "delivered" if kind == "exchange" else "pending"
        return f"I'd like to {verb} items of my {state} order {oid}: {wants}."
    if kind == "return":
        items = _list(intent.get("items"))
        names = ", ".join(f"the {i.get('name')}" for i in items if isinstance(i, dict))
        return f"I'd like to return {names} from my delivered order {oid}."
    if kind == "modify_payment":
        return f"I'd like to change the payment method of my pending order {oid}."
    if kind == "cancel_order":
        return f"I'd like to cancel my pending order {oid} ({intent.get('reason')})."
    if kind == "modify_address":
        return f"I'd like to change the shipping address of my pending order {oid}."
    return None


class ScriptedUser:
    """A deterministic user for one run (see the module docstring)."""

    def __init__(self, context: RunContext, max_turns: int = 30):
        self.context = context
        self.task = context.task
        self.max_turns = max_turns
        self.turns = 0
        self._nudges = 0
        self._user = context.world.base.tables.get("users", {}).get(self.task.user_id) or {}
        self._reservations, self._orders = self._ids()
        self._request = self._make_request()

    # ---- what the user knows -------------------------------------------------------
    def _ids(self) -> tuple[list[str], list[str]]:
        reservations: list[str] = []
        orders: list[str] = []
        intent = self.task.intent or {}
        rid, oid = intent.get("reservation_id"), intent.get("order_id")
        if isinstance(rid, str):
            reservations.append(rid)
        if isinstance(oid, str):
            orders.append(oid)
        for action in self.task.actions:
            rid = action.kwargs.get("reservation_id")
            oid = action.kwargs.get("order_id")
            if isinstance(rid, str) and rid not in reservations:
                reservations.append(rid)
            if isinstance(oid, str) and oid not in orders:
                orders.append(oid)
        return reservations, orders

    def _make_request(self) -> str:
        intent = self.task.intent
        if intent:
            text = _intent_request(intent)
            if text:
                return text
        parts: list[str] = []
        for action in self.task.actions:
            part = _action_request(action.name, dict(action.kwargs), self.context)
            if part and part not in parts:
                parts.append(part)
        if parts:
            return "I'd like to " + "; and ".join(parts) + "."
        noun = "orders" if self.task.domain == "retail" else "reservations"
        if self._reservations or self._orders:
            ids = ", ".join(self._reservations + self._orders)
            return f"I have a question about my {noun} ({ids})."
        return f"I have a question about my {noun}."

    @property
    def request(self) -> str:
        """The request this user opens with (without the greeting)."""
        return self._request

    # ---- User protocol -------------------------------------------------------------
    async def first_message(self) -> str:
        """The opening request."""
        return "Hi! " + self._request

    async def reply(self, ledger: Sequence[LedgerEvent]) -> str:
        """The answer to the agent's latest text reply."""
        self.turns += 1
        text = _last_agent_text(ledger)
        if self.turns >= self.max_turns:
            return CLOSING
        return self.answer(text)

    def answer(self, text: str) -> str:
        """The deterministic answer to one agent message."""
        lower = text.lower()
        identifiers = self._identifiers_asked(text)
        if identifiers:
            return " ".join(identifiers)
        if "?" in lower and any(word in lower for word in _CONFIRM):
            return "Yes, please go ahead."
        if any(word in lower for word in _CLOSING_WORDS):
            return CLOSING
        if "?" not in lower and any(word in lower for word in _REFUSAL):
            return "I understand. " + STOP
        if "?" in lower:
            self._nudges += 1
            if self._nudges > 2:
                return CLOSING
            return "As I said, " + self._request[0].lower() + self._request[1:]
        return "OK, thank you."

    def _identifiers_asked(self, text: str) -> list[str]:
        """Answers to every identifier the message asks for, in a fixed order."""
        asked: set[str] = set()
        for sentence in _SENTENCE.findall(text):
            low = sentence.lower()
            if not any(word in low for word in _ASKING):
                continue
            if self.task.user_id and self.task.user_id.lower() in low:
                continue  # the agent states the id; it does not ask for it
            if re.search(r"user[ _-]?id|user identifier|account id", low):
                asked.add("user_id")
            if "email" in low or "e-mail" in low:
                asked.add("email")
            if "zip" in low or "postal code" in low:
                asked.add("name_zip")
            if _RESERVATION_ASK.search(low) and not any(
                r.lower() in low for r in self._reservations
            ):
                asked.add("reservation_id")
            if re.search(r"order (id|number)", low) and not any(
                o.lower() in low for o in self._orders
            ):
                asked.add("order_id")
        out: list[str] = []
        if "user_id" in asked:
            out.append(f"My user id is {self.task.user_id}.")
        if "email" in asked and self._user.get("email"):
            out.append(f"My email is {self._user['email']}.")
        if "name_zip" in asked and self._user:
            name = _mapping(self._user.get("name"))
            zip_code = _mapping(self._user.get("address")).get("zip", "")
            out.append(
                f"My name is {name.get('first_name', '')} {name.get('last_name', '')} "
                f"and my zip code is {zip_code}."
            )
        if "reservation_id" in asked and self._reservations:
            out.append("The reservation id is " + ", ".join(self._reservations) + ".")
        if "order_id" in asked and self._orders:
            out.append("The order id is " + ", ".join(self._orders) + ".")
        if asked and not out:  # asked for something this user does not have
            out.append(f"My user id is {self.task.user_id}.")
        return out


def _last_agent_text(ledger: Sequence[LedgerEvent]) -> str:
    for event in reversed(ledger):
        if getattr(event, "type", None) == "assistant":
            return getattr(event, "content", None) or ""
    return ""


def scripted_user_factory(context: RunContext) -> ScriptedUser:
    """A fresh :class:`ScriptedUser` for one run (a :class:`UserFactory`)."""
    return ScriptedUser(context)
