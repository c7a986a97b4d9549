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
of the ledger. The exchange is only offered when the world has the three tools it
uses (the airline tools); it is our own text.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sscbench.agents.actions import RESPOND, RESPOND_FIELD, render_action

OBSERVATION_PREFIX = "API output: "
DEMO_TOOLS = ("get_reservation_details", "get_user_details", "update_reservation_flights")
_FLIGHT = {"flight_number": "HAT900", "date": "2024-06-02"}
_RECORD = {
    "reservation_id": "ABC123",
    "user_id": "jane_doe_1",
    "origin": "JFK",
    "destination": "SEA",
    "flight_type": "one_way",
    "cabin": "basic_economy",
    "flights": [{"origin": "JFK", "destination": "SEA", **_FLIGHT, "price": 120}],
    "payment_history": [{"payment_id": "credit_card_1111111", "amount": 120}],
}
_USER = {
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
_Call = tuple[str, dict[str, Any], str, Any]
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


def demo_messages(tools: Sequence[dict[str, Any]], react: bool) -> list[dict[str, str]]:
    """The worked exchange as chat messages, or none when the world lacks its tools."""
    names = {tool.get("function", tool).get("name") for tool in tools}
    if not all(name in names for name in DEMO_TOOLS):
        return []
    messages = [{"role": "user", "content": OPENING}]
    for turn in _EXCHANGE:
        if len(turn) == 2:  # respond, then the user's answer
            text, answer = turn
            action = render_action(RESPOND, {RESPOND_FIELD: text}, "" if react else None)
        else:
            name, arguments, thought, observation = turn
            action = render_action(name, arguments, thought if react else None)
            answer = OBSERVATION_PREFIX + json.dumps(observation, separators=(",", ":"))
        messages.append({"role": "assistant", "content": action})
        messages.append({"role": "user", "content": answer})
    return messages
