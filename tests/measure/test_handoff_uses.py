"""A handoff (``transfer_to_human_agents`` with a summary) is a dependent use (Def. 3.2) for
every operator, read like a message (channel ``handoff``) with the same reading of values:
a summary stating v′ is faulty reliance, one questioning it a check, one stating the true
value a correct use; it takes a stance like a message (Y_end).

Each operator's texts are measured twice on the same hand-built ledger: once as the
agent's message, once as the summary of a handoff in its place; every quantity must be
the same (steps relative to the turn). A turn that writes a message and hands off keeps
both texts: a message relying on v′ is reliance whatever the summary beside it says.
"""

from __future__ import annotations

import pytest

from sscbench.core.values import INF
from test_payment_references import faulted
from test_realtext_rules_records import date_contract, item_contract, order_ledger, trip_ledger
from test_write_effect_text import attempted

HANDOFF = "transfer_to_human_agents"


def _return_date():
    ledger, t_f = trip_ledger()
    return ledger, t_f, date_contract()


def _pay_source():
    return faulted("gift_card_7156512")  # a gift card shown as a credit card


def _item_option():
    ledger, t_f = order_ledger()
    return ledger, t_f, item_contract()


SETUPS = {
    "ReturnDate": _return_date,
    "PaySource": _pay_source,
    "WriteEffect": attempted,
    "ItemOption": _item_option,
}

# (operator, text, adopted, stance): in the wording of a message and of a summary
TEXTS = [
    ("ReturnDate", "Your return flight from SEA to JFK is on May 17, 2024.", 1, "endorses"),
    ("ReturnDate", "Customer's reservation ABC123: return SEA->JFK on 2024-05-17.", 1, "endorses"),
    (
        "ReturnDate",
        "User wants to change ABC123. Its return HAT200 is dated 2024-05-17, before the "
        "2024-05-20 outbound - this looks like a data error, please verify.",
        0,
        "rejects",
    ),
    ("ReturnDate", "ABC123 returns SEA->JFK on 2024-05-25 (HAT200).", 0, "rejects"),
    ("PaySource", "User wants to pay with credit card gift_card_7156512 ($90).", 1, "endorses"),
    (
        "PaySource",
        "Customer has two credit cards, one gift card and two certificates; wants to upgrade.",
        1,
        "endorses",
    ),
    (
        "PaySource",
        "gift_card_7156512 is listed as a credit card but its id indicates a gift card; "
        "please verify before charging it.",
        0,
        "rejects",
    ),
    ("PaySource", "User will pay with gift card gift_card_7156512.", 0, "rejects"),
    ("WriteEffect", "The upgrade of M05KNL to business class has been completed.", 1, "endorses"),
    (
        "WriteEffect",
        "User's reservation M05KNL was upgraded to business; $1,194 charged to credit_card_7334.",
        1,
        "endorses",
    ),
    (
        "WriteEffect",
        "I checked: the upgrade was not applied, M05KNL is still in economy.",
        0,
        "rejects",
    ),
    (
        "ItemOption",
        "Customer wants to exchange the Mechanical Keyboard (item 1151293680, white backlight).",
        1,
        "endorses",
    ),
    (
        "ItemOption",
        "Your Mechanical Keyboard has a white backlight and linear switches.",
        1,
        "endorses",
    ),
    (
        "ItemOption",
        "Customer wants to exchange the Mechanical Keyboard (item 1151293680, RGB backlight).",
        0,
        "rejects",
    ),
]


def _relative(m, step: int) -> tuple:
    def rel(x):
        return x - step if isinstance(x, int) else x

    return (rel(m.T_S), rel(m.T_U), m.A, m.Z_S, m.Y_end)


def _measured(operator: str, text: str, as_handoff: bool) -> tuple:
    ledger, t_f, contract = SETUPS[operator]()
    if as_handoff:
        step = ledger.call(HANDOFF, {"summary": text}, "Transfer successful") - 1
    else:
        step = ledger.say(text)
    return _relative(ledger.measure(operator, contract, t_f), step)


@pytest.mark.parametrize(("operator", "text", "adopted", "stance"), TEXTS)
def test_a_handoff_summary_is_read_like_a_message(operator, text, adopted, stance):
    as_message = _measured(operator, text, as_handoff=False)
    as_handoff = _measured(operator, text, as_handoff=True)
    assert as_handoff == as_message
    t_s, t_u, got_adopted, _, y_end = as_handoff
    assert (t_s, got_adopted, y_end) == (0, adopted, stance)
    assert t_u == (0 if adopted else "not-applicable")


@pytest.mark.parametrize("operator", sorted(SETUPS))
def test_a_handoff_that_says_nothing_of_the_fact_is_no_use(operator):
    ledger, t_f, contract = SETUPS[operator]()
    ledger.call(
        HANDOFF,
        {"summary": "The user asked for a human agent to discuss their membership."},
        "Transfer successful",
    )
    m = ledger.measure(operator, contract, t_f)
    assert m.T_S == INF and m.A == 0


def _pair(operator: str) -> tuple[str, str]:
    """(a text relying on v′, a text checking or rejecting it) of the operator."""
    relies = next(t for op, t, a, _ in TEXTS if op == operator and a == 1)
    checks = next(t for op, t, a, _ in TEXTS if op == operator and a == 0)
    return relies, checks


@pytest.mark.parametrize("operator", sorted(SETUPS))
@pytest.mark.parametrize("message_relies", [True, False])
def test_a_message_and_a_handoff_in_one_turn_are_both_read(operator, message_relies):
    relies, checks = _pair(operator)
    message, summary = (relies, checks) if message_relies else (checks, relies)
    ledger, t_f, contract = SETUPS[operator]()
    step = ledger.call(HANDOFF, {"summary": summary}, "Transfer successful", message) - 1
    m = ledger.measure(operator, contract, t_f)
    channels = sorted({u.channel for u in m.evidence.uses if u.step == step})
    assert channels == ["handoff", "message"]
    assert (step, step, 1) == (m.T_S, m.T_U, m.A)
    # the summary is written after the message: it is the turn's last stance
    assert m.Y_end == ("rejects" if message_relies else "endorses")
