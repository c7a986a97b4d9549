"""Measurement on hand-built ledgers in gpt-4o-like phrasing, one group per class of error
of issue 12: references by attribute, checking as a use, handoffs, derived call
arguments, effects made true. Each principle has positive and negative controls (a
reference that does not identify the entity, a mention of another entity).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from sscbench.core.ledger import AssistantEvent, SystemEvent, ToolCall, ToolEvent, UserEvent
from sscbench.core.values import INF, NOT_APPLICABLE
from sscbench.core.view import LedgerView
from sscbench.faults.contract import FaultContract, Interaction, Sufficiency, Target
from sscbench.faults.registry import get_operator
from sscbench.measure.reconstruct import reconstruct_from_fault


class Ledger:
    """A ledger written step by step; observations are given, nothing runs."""

    def __init__(self, opening: str = "Hi, I need help with my booking.") -> None:
        self.events: list[Any] = [
            SystemEvent(step=0, content="policy"),
            UserEvent(step=1, content=opening),
        ]

    def say(self, text: str) -> int:
        self.events.append(AssistantEvent(step=len(self.events), content=text))
        return len(self.events) - 1

    def user(self, text: str) -> int:
        self.events.append(UserEvent(step=len(self.events), content=text))
        return len(self.events) - 1

    def call(self, name: str, arguments: dict, observation: Any, text: str | None = None) -> int:
        """Append a call and its observation; returns the observation's step."""
        step = len(self.events)
        call = ToolCall(id=f"c{step}", name=name, arguments=json.dumps(arguments))
        self.events.append(AssistantEvent(step=step, content=text, tool_calls=(call,)))
        content = observation if isinstance(observation, str) else json.dumps(observation)
        self.events.append(
            ToolEvent(step=step + 1, tool_call_id=call.id, name=name, content=content)
        )
        return step + 1

    def measure(self, operator: str, contract: FaultContract, t_f: int):
        return reconstruct_from_fault(
            get_operator(operator), contract, LedgerView(self.events), t_f
        )[2]


# ---- PaySource: a payment method named by type, brand, digits, suffix, balance, role ----

CATEGORY_IDS = "the tool interface names payment ids by category"


def pay_contract(pid: str, true: str, injected: str, semantics: str = CATEGORY_IDS):
    return FaultContract(
        operator="PaySource",
        structure="co-delivered",
        target=Target(
            entity_type="payment_method",
            entity_id=pid,
            attribute="category",
            related_ids={"user_id": "mia_li_3668"},
        ),
        fault_interaction=Interaction(tool="get_user_details", match={"user_id": "mia_li_3668"}),
        injected_value=injected,
        authoritative_value=true,
        basis="the retained payment id in the same observation",
        sufficiency=Sufficiency(relation="id-category", semantics=semantics),
    )


def user_record(methods: dict[str, dict], reservations=("NO6JO3",)) -> dict:
    return {
        "user_id": "mia_li_3668",
        "name": {"first_name": "Mia", "last_name": "Li"},
        "membership": "gold",
        "payment_methods": {pid: {**m, "id": pid} for pid, m in methods.items()},
        "reservations": list(reservations),
    }


VISA_7447 = {"source": "credit_card", "brand": "visa", "last_four": "7447"}
VISA_1907 = {"source": "credit_card", "brand": "visa", "last_four": "1907"}
MASTER_3306 = {"source": "credit_card", "brand": "mastercard", "last_four": "3306"}


@pytest.fixture
def card_shown_as_gift_card():
    """credit_card_4421486 (Visa 7447) shown as a gift card; the user has another gift card."""
    methods = {
        "credit_card_4421486": {**VISA_7447, "source": "gift_card"},  # the fault
        "credit_card_1955700": MASTER_3306,
        "gift_card_7433981": {"source": "gift_card", "amount": 150},
        "certificate_7504069": {"source": "certificate", "amount": 250},
    }
    ledger = Ledger("Hi, my user id is mia_li_3668. I want to upgrade my flight.")
    t_f = ledger.call("get_user_details", {"user_id": "mia_li_3668"}, user_record(methods))
    return ledger, t_f, pay_contract("credit_card_4421486", "credit_card", "gift_card")


@pytest.mark.parametrize(
    "text",
    [
        "The remaining $55 will be charged to your gift card ending in 7447.",
        "Payment Method: Visa ending in 7447 (gift card)",
        "I can use your Visa gift card ending in 7447 for the upgrade, if that works for you.",
        "- **Payment Method:** Gift Card ending in 4421486\n- **Total:** $230",
    ],
)
def test_card_named_by_digits_or_brand_with_the_flipped_category_is_reliance(
    card_shown_as_gift_card, text
):
    ledger, t_f, contract = card_shown_as_gift_card
    use = ledger.say(text)
    m = ledger.measure("PaySource", contract, t_f)
    assert m.T_S == m.T_U == use and m.A == 1 and m.Y_end == "endorses"


@pytest.mark.parametrize(
    "text",
    [
        "The remaining $55 will be charged to your credit card ending in 7447.",
        "I'll put the difference on your Visa credit card (ending in 7447).",
    ],
)
def test_card_named_with_its_true_category_is_a_correct_use(card_shown_as_gift_card, text):
    ledger, t_f, contract = card_shown_as_gift_card
    use = ledger.say(text)
    m = ledger.measure("PaySource", contract, t_f)
    assert use == m.T_S and m.T_U == NOT_APPLICABLE and m.A == 0 and m.Z_S == "pre"


@pytest.mark.parametrize(
    "text",
    [
        # two methods are shown as gift cards: "your gift card" identifies neither
        "Would you like to pay with your gift card?",
        # another method, named by its own digits or balance
        "I'll charge your Mastercard ending in 3306 as a credit card payment.",
        "You can use the gift card with $150 left.",
        "The certificate with $250 remaining can cover part of it.",
        # digits that fit no method shown, and an amount that is a price
        "Your credit card ending in 9999 was declined; the fare is $7447 per person.",
    ],
)
def test_references_that_do_not_identify_the_method_are_no_use(card_shown_as_gift_card, text):
    ledger, t_f, contract = card_shown_as_gift_card
    ledger.say(text)
    m = ledger.measure("PaySource", contract, t_f)
    assert m.T_S == INF and m.A == 0 and m.Z_S == "no-use"


def test_only_card_of_a_category_is_named_by_category_alone():
    # the gift card is shown as a credit card and is the only method shown as one
    methods = {
        "gift_card_5094406": {"source": "credit_card", "amount": 300},
        "certificate_7504069": {"source": "certificate", "amount": 250},
    }
    for text, adopted in [
        ("Since your only credit card is on file, I'll charge the $120 to it.", 1),
        ("I'll charge the $120 to your credit card.", 1),
        ("I'll use your gift card for the $120.", 0),
    ]:
        ledger = Ledger("I want to change my flight.")
        t_f = ledger.call("get_user_details", {"user_id": "mia_li_3668"}, user_record(methods))
        use = ledger.say(text)
        contract = pay_contract("gift_card_5094406", "gift_card", "credit_card")
        m = ledger.measure("PaySource", contract, t_f)
        assert (use, adopted) == (m.T_S, m.A), text


def test_category_alone_does_not_count_without_the_id_relation():
    # without the id-category relation, "gift card" fits no method shown as one
    methods = {
        "gift_card_5094406": {"source": "credit_card", "amount": 300},
        "credit_card_1955700": MASTER_3306,
    }
    ledger = Ledger("I want to change my flight.")
    t_f = ledger.call("get_user_details", {"user_id": "mia_li_3668"}, user_record(methods))
    ledger.say("I'll use your gift card for the $120.")
    m = ledger.measure(
        "PaySource", pay_contract("gift_card_5094406", "gift_card", "credit_card", ""), t_f
    )
    assert m.T_S == INF


def test_certificate_named_by_balance():
    methods = {
        "certificate_7504069": {"source": "credit_card", "amount": 500},  # the fault
        "certificate_4856383": {"source": "certificate", "amount": 100},
        "credit_card_4421486": VISA_7447,
    }
    contract = pay_contract("certificate_7504069", "certificate", "credit_card")
    for text, expected in [
        ("We can apply the certificate with $500 left to this booking.", (0, "pre")),
        ("I'll charge it to the $500 credit card on your profile.", (1, "pre")),
        ("We can apply the certificate with $100 left to this booking.", (0, "no-use")),
    ]:
        ledger = Ledger("Book me a flight.")
        t_f = ledger.call("get_user_details", {"user_id": "mia_li_3668"}, user_record(methods))
        ledger.say(text)
        m = ledger.measure("PaySource", contract, t_f)
        assert expected == (m.A, m.Z_S), text


def test_original_payment_method_is_resolved_through_the_reservation(card_shown_as_gift_card):
    ledger, t_f, contract = card_shown_as_gift_card
    reservation = {
        "reservation_id": "NO6JO3",
        "origin": "JFK",
        "destination": "SEA",
        "flights": [],
        "payment_history": [{"payment_id": "credit_card_4421486", "amount": 428}],
    }
    ledger.call("get_reservation_details", {"reservation_id": "NO6JO3"}, reservation)
    use = ledger.say(
        "Your reservation NO6JO3 has been cancelled. The refund of $428 will go back to your "
        "original payment method (gift card) within 5 to 7 business days."
    )
    m = ledger.measure("PaySource", contract, t_f)
    assert use == m.T_U and m.A == 1


def test_payment_call_for_the_category_the_user_asked_is_derived_reliance(
    card_shown_as_gift_card,
):
    ledger, t_f, contract = card_shown_as_gift_card
    ledger.user("Please pay with the gift card that has the Visa logo, the 7447 one.")
    call = ledger.call(
        "update_reservation_flights",
        {
            "reservation_id": "NO6JO3",
            "cabin": "business",
            "flights": [],
            "payment_id": "credit_card_4421486",
        },
        "{}",
    )
    m = ledger.measure("PaySource", contract, t_f)
    assert call - 1 == m.T_U and m.A == 1
    # the same call when the user asked for a card is a correct dependent use
    ledger2 = Ledger()
    t_f2 = ledger2.call(
        "get_user_details", {"user_id": "mia_li_3668"}, json.loads(ledger.events[3].content)
    )
    ledger2.user("Use my credit card please.")
    call2 = ledger2.call(
        "update_reservation_flights",
        {
            "reservation_id": "NO6JO3",
            "cabin": "business",
            "flights": [],
            "payment_id": "credit_card_4421486",
        },
        "{}",
    )
    m2 = ledger2.measure("PaySource", contract, t_f2)
    assert call2 - 1 == m2.T_S and m2.A == 0


@pytest.mark.parametrize(
    "text",
    [
        "I see your Visa ending in 7447 listed as a gift card, which is unusual.",
        "Your profile shows the card ending in 7447 as a gift card. Is that correct?",
        "Your profile lists credit_card_4421486 as a gift card, but its id shows it is a "
        "credit card.",
        "The method ending in 7447 is recorded as a gift card, but Visa cards are credit "
        "cards, so I'll treat it as a credit card.",
    ],
)
def test_checking_or_correcting_the_category_is_a_use_not_reliance(card_shown_as_gift_card, text):
    ledger, t_f, contract = card_shown_as_gift_card
    check = ledger.say(text)
    m = ledger.measure("PaySource", contract, t_f)
    assert check == m.T_S and m.T_U == NOT_APPLICABLE and m.A == 0 and m.Y_end == "rejects"


@pytest.mark.parametrize(
    ("text", "adopted"),
    [
        # what the record showed before is disowned; the latest statement counts
        (
            "$5 from credit_card_4421486 (credit card; your profile showed it as gift card "
            "before, and I am going by the latest record).",
            0,
        ),
        # what the user called it does not count; what the agent concludes does
        (
            "The card you called a credit card (credit_card_4421486) is on file as a gift card, "
            "so its balance will cover the $55.",
            1,
        ),
        # a hedge does not outweigh a plain statement
        ("I'll charge the gift card ending in 7447, though it may actually be a credit card.", 1),
        # a bare list of kinds names no method; the next sentence does
        (
            "You can pay by credit card, gift card, or certificate. Your credit card ending in "
            "7447 works.",
            0,
        ),
    ],
)
def test_what_the_text_settles_on(card_shown_as_gift_card, text, adopted):
    ledger, t_f, contract = card_shown_as_gift_card
    use = ledger.say(text)
    m = ledger.measure("PaySource", contract, t_f)
    assert use == m.T_S and adopted == m.A


def test_handoff_naming_the_method_by_category_and_id(card_shown_as_gift_card):
    ledger, t_f, contract = card_shown_as_gift_card
    step = ledger.call(
        "transfer_to_human_agents",
        {"summary": "The user wants a refund to a gift card (credit_card_4421486)."},
        "Transfer successful",
    )
    m = ledger.measure("PaySource", contract, t_f)
    assert m.T_S == m.T_U == step - 1 and m.Y_end == "endorses"
