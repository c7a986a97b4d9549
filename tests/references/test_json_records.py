"""The readers of records and call arguments in :mod:`sscbench.references` narrow the JSON
they are given instead of trusting its shape: a well-formed record reads as before, a
malformed one (a field of another JSON type) gives nothing rather than an exception."""

from __future__ import annotations

import json

from sscbench.core.ledger import AssistantEvent, ToolCall, ToolEvent
from sscbench.core.view import LedgerView
from sscbench.references.payments import payment_history, payment_methods
from sscbench.references.return_date_text import leg_dates, split_legs

ROUND_TRIP = {
    "origin": "SEA",
    "destination": "JFK",
    "flights": [
        {"origin": "SEA", "destination": "ORD", "flight_number": "HAT100"},
        {"origin": "ORD", "destination": "JFK", "flight_number": "HAT101"},
        {"origin": "JFK", "destination": "SEA", "flight_number": "HAT200"},
    ],
}


def test_split_legs_of_a_round_trip_and_of_malformed_records():
    assert split_legs(ROUND_TRIP) == ([0, 1], [2])
    assert split_legs({**ROUND_TRIP, "flights": ROUND_TRIP["flights"][:2]}) == ([0, 1], [])
    assert split_legs({"destination": "JFK", "flights": "HAT100"}) == ([], [])
    assert split_legs({"destination": "JFK", "flights": [None, {"origin": "JFK"}]}) == ([0], [1])


def test_leg_dates_bind_a_date_to_a_return_leg_only():
    returns, routes = {"HAT200"}, {"JFK-SEA"}
    assert leg_dates({"flight_number": "hat200", "date": "2024-05-27"}, routes, returns) == {
        "2024-05-27"
    }
    nested = {"flights": [{"origin": "JFK", "destination": "SEA", "date": "2024-05-28"}, 7]}
    assert leg_dates(nested, routes, returns) == {"2024-05-28"}
    assert leg_dates({"flight_number": "HAT100", "date": "2024-05-20"}, routes, returns) == set()
    assert leg_dates({"flight_number": "HAT200", "date": 20240527}, routes, returns) == set()
    assert leg_dates({"flights": {"date": "2024-05-28"}}, routes, returns) == set()


def test_payment_history_reads_only_a_list_of_payments():
    record = {"payment_history": [{"payment_id": "gift_card_1"}, {"payment_method_id": "x_2"}]}
    assert payment_history(record) == ["gift_card_1", "x_2"]
    assert payment_history({"payment_history": "gift_card_1"}) == []
    assert payment_history({"payment_history": 3}) == []
    assert payment_history(["gift_card_1"]) == []


def _profile_ledger(*profiles: dict[str, object]) -> LedgerView:
    events: list[AssistantEvent | ToolEvent] = []
    for n, profile in enumerate(profiles):
        call = ToolCall(id=f"c{n}", name="get_user_details", arguments="{}")
        events.append(AssistantEvent(step=2 * n, tool_calls=(call,)))
        events.append(
            ToolEvent(
                step=2 * n + 1, tool_call_id=call.id, name=call.name, content=json.dumps(profile)
            )
        )
    return LedgerView(events)


def test_payment_methods_keep_every_category_and_the_last_value_shown():
    first = {"payment_methods": {"gift_card_7": {"source": "gift_card", "amount": 50}}}
    later = {
        "payment_methods": {
            "gift_card_7": {"source": "certificate", "amount": None, "brand": "Visa"},
            "credit_card_1": {"source": "credit_card", "last_four": 1234},
            "odd": "not a record",
        },
        "payment_history": [{"payment_id": "paypal_9"}],
    }
    methods = payment_methods(_profile_ledger(first, later), before=10, ids_state_category=False)
    assert set(methods) == {"gift_card_7", "credit_card_1", "paypal_9"}
    card = methods["gift_card_7"]
    assert card.categories == frozenset({"gift_card", "certificate"})
    assert (card.brand, card.amount) == ("visa", 50.0)  # a null shown later keeps the amount
    assert methods["credit_card_1"].last_four == "1234"
    assert methods["paypal_9"].categories == frozenset()
    stated = payment_methods(_profile_ledger(first), before=10, ids_state_category=True)
    assert stated["gift_card_7"].categories == frozenset({"gift_card"})
    assert payment_methods(_profile_ledger(first), before=1, ids_state_category=False) == {}
