"""A worked exchange shown to act/react models before the conversation (few-shot).

Measured for issue 21: Qwen2.5-Coder-0.5B under act writes first — a flight update
with invented flights and payment id, repeated at temperature 0 — although the
system prompt asks it to read first and shows the read. A short worked exchange as
chat turns is what small models imitate. It follows the airline policy's order: ask
for the user id, read the user's profile, say what comes next, read the reservation,
write the change with the values the tools returned, tell the user. (Reading the
reservation first, the model copied its payment id and never read the user; with the
profile first it reads the user, and reads the reservation when a write without it
fails.) Every id in it is made up and names no
record of any world; it is fixed text, so the prompt stays a deterministic function
of the ledger. Each exchange is only offered when the world has the tools it uses; it
is our own text.

The retail exchange follows the retail policy's order the same way: ask for the
email, find the user id by it (authentication), say what comes next, read the order
the user named, state the return and ask for a yes, write it with the item id and
payment id the order record returned, tell the user. It reads no profile: measured
for issue 41, with a profile read between (the example's profile listing only the
named order) the 0.5B model read the first order of the real profile's list instead
of the named one in one of two cases; with the named order second of three in the
example's list it asked for a yes before reading and wrote invented item ids in the
other (docs/real-model.md).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from sscbench.agents.actions import RESPOND, RESPOND_FIELD, render_action, tool_name
from sscbench.json_types import JsonObject, JsonValue

OBSERVATION_PREFIX = "API output: "
DEMO_TOOLS = ("get_reservation_details", "get_user_details", "update_reservation_flights")
RETAIL_TOOLS = (
    "find_user_id_by_email",
    "get_order_details",
    "return_delivered_order_items",
)
_FLIGHT: JsonObject = {"flight_number": "HAT900", "date": "2024-06-02"}
_RECORD: JsonObject = {
    "reservation_id": "ABC123",
    "user_id": "jane_doe_1",
    "origin": "JFK",
    "destination": "SEA",
    "flight_type": "one_way",
    "cabin": "basic_economy",
    "flights": [{"origin": "JFK", "destination": "SEA", **_FLIGHT, "price": 120}],
    "payment_history": [{"payment_id": "credit_card_1111111", "amount": 120}],
}
_USER: JsonObject = {
    "user_id": "jane_doe_1",
    "payment_methods": {
        "credit_card_1111111": {"source": "credit_card", "id": "credit_card_1111111"}
    },
    "reservations": ["ABC123"],
}
ASK_USER = "Before I change anything, could you please give me your user id?"
USER_ID_REPLY = "My user id is jane_doe_1."
LOOK_UP = (
    "Thank you, I found your profile. Now I read reservation ABC123 to change its cabin to economy."
)
DONE = "Your reservation ABC123 is now in economy, paid with credit_card_1111111."
_Say = tuple[str, str]
"""A ``respond`` action and the user's answer."""
_Call = tuple[str, JsonObject, str, JsonValue]
"""A tool call (name, arguments, react thought) and its observation."""
_EXCHANGE: tuple[_Say | _Call, ...] = (
    (ASK_USER, USER_ID_REPLY),
    (
        "get_user_details",
        {"user_id": "jane_doe_1"},
        "The user gave the user id; I read the profile first.",
        _USER,
    ),
    (LOOK_UP, "OK, thank you."),
    (
        "get_reservation_details",
        {"reservation_id": "ABC123"},
        "I read the reservation the user named.",
        _RECORD,
    ),
    (
        "update_reservation_flights",
        {
            "reservation_id": "ABC123",
            "cabin": "economy",
            "flights": [_FLIGHT],
            "payment_id": "credit_card_1111111",
        },
        "I copy the flights and the payment id the tools returned.",
        {**_RECORD, "cabin": "economy"},
    ),
    (DONE, "That was an example with made-up ids. The real conversation starts now."),
)
OPENING = "Hi! I'd like to change the cabin of every flight of my reservation ABC123 to economy."


_ORDER = "#W0000001"
_ITEM: JsonObject = {
    "name": "Table Fan",
    "product_id": "9000000001",
    "item_id": "1000000001",
    "price": 45.5,
    "options": {"color": "white", "size": "small"},
}
_ORDER_RECORD: JsonObject = {
    "order_id": _ORDER,
    "user_id": "jane_doe_1",
    "items": [_ITEM],
    "status": "delivered",
    "payment_history": [
        {"transaction_type": "payment", "amount": 45.5, "payment_method_id": "credit_card_1111111"}
    ],
}
ASK_EMAIL = "Before I change anything, could you please give me your email?"
EMAIL_REPLY = "My email is jane.doe@example.com."
ORDER_LOOK_UP = (
    f"Thank you, I found your user id. Now I read order {_ORDER}, the one you named, "
    "to find the item."
)
CONFIRM = (
    f"I will return the Table Fan (item 1000000001, color white, size small) of order {_ORDER} "
    "and refund 45.5 to credit_card_1111111. Shall I proceed?"
)
RETAIL_DONE = f"The return of the Table Fan of order {_ORDER} is requested."
RETAIL_OPENING = f"Hi! I'd like to return the Table Fan from my delivered order {_ORDER}."
RETAIL_EXCHANGE: tuple[_Say | _Call, ...] = (
    (ASK_EMAIL, EMAIL_REPLY),
    (
        "find_user_id_by_email",
        {"email": "jane.doe@example.com"},
        "The user gave the email; I find the user id first.",
        "jane_doe_1",
    ),
    (ORDER_LOOK_UP, "OK, thank you."),
    (
        "get_order_details",
        {"order_id": _ORDER},
        "I read the order the user named.",
        _ORDER_RECORD,
    ),
    (CONFIRM, "Yes, please go ahead."),
    (
        "return_delivered_order_items",
        {
            "order_id": _ORDER,
            "item_ids": ["1000000001"],
            "payment_method_id": "credit_card_1111111",
        },
        "I copy the item id and the payment id the order record returned.",
        {**_ORDER_RECORD, "status": "return requested"},
    ),
    (RETAIL_DONE, "That was an example with made-up ids. The real conversation starts now."),
)

_EXCHANGES: tuple[tuple[tuple[str, ...], str, tuple[_Say | _Call, ...]], ...] = (
    (DEMO_TOOLS, OPENING, _EXCHANGE),
    (RETAIL_TOOLS, RETAIL_OPENING, RETAIL_EXCHANGE),
)
"""(tools it uses, the user's opening request, the turns), tried in this order."""


def _exchange_for(names: set[str | None]) -> tuple[str, tuple[_Say | _Call, ...]] | None:
    """The opening and turns of the first worked exchange whose tools the world has."""
    for tools, opening, turns in _EXCHANGES:
        if all(name in names for name in tools):
            return opening, turns
    return None


def _observation(observation: JsonValue) -> str:
    """A tool's answer as the act prompt shows it: a plain string as is, data as JSON."""
    if isinstance(observation, str):
        return OBSERVATION_PREFIX + observation
    return OBSERVATION_PREFIX + json.dumps(observation, separators=(",", ":"))


def demo_messages(tools: Sequence[JsonObject], react: bool) -> list[JsonObject]:
    """The worked exchange as chat messages, or none when the world lacks its tools."""
    names = {tool_name(tool) for tool in tools}
    chosen = _exchange_for(names)
    if chosen is None:
        return []
    opening, turns = chosen
    messages: list[JsonObject] = [{"role": "user", "content": opening}]
    for turn in turns:
        if len(turn) == 2:  # respond, then the user's answer
            text, answer = turn
            action = render_action(RESPOND, {RESPOND_FIELD: text}, "" if react else None)
        else:
            name, arguments, thought, observation = turn
            action = render_action(name, arguments, thought if react else None)
            answer = _observation(observation)
        messages.append({"role": "assistant", "content": action})
        messages.append({"role": "user", "content": answer})
    return messages
