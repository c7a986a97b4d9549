"""PaySource on hand-built ledgers in the phrasing of other model families (τ² airline
text): payment methods named without their raw id, lists of the user's methods with
their categories, payment calls chosen by category, hypotheticals, and references that
fit several methods. Each principle has positive and negative controls.
"""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sscbench.core.values import INF, NOT_APPLICABLE, UNDECIDABLE
from sscbench.faults.operators.uses import governed_by_conditional
from sscbench.references.payments import amounts
from test_realtext_rules import Ledger, pay_contract, user_record

FLIP = {"credit_card": "gift_card", "gift_card": "credit_card", "certificate": "credit_card"}
WORD = {"credit_card": "Credit card", "gift_card": "Gift card", "certificate": "Certificate"}

METHODS = {
    "gift_card_5094406": {"source": "gift_card", "amount": 274.0},
    "gift_card_7156512": {"source": "gift_card", "amount": 90.0},
    "certificate_8045380": {"source": "certificate", "amount": 500.0},
    "certificate_3887113": {"source": "certificate", "amount": 150.0},
    "credit_card_4196779": {"source": "credit_card", "brand": "visa", "last_four": "7238"},
}


def faulted(target: str, methods: dict | None = None, opening: str = "I want to book a flight."):
    """A ledger whose profile read shows ``target`` with its category flipped, and its contract."""
    shown = copy.deepcopy(methods or METHODS)
    true = shown[target]["source"]
    shown[target]["source"] = FLIP[true]
    ledger = Ledger(opening)
    t_f = ledger.call("get_user_details", {"user_id": "mia_li_3668"}, user_record(shown))
    return ledger, t_f, pay_contract(target, true, FLIP[true])


def measure_text(target: str, text: str, methods: dict | None = None):
    ledger, t_f, contract = faulted(target, methods)
    step = ledger.say(text)
    return step, ledger.measure("PaySource", contract, t_f)


# ---- 1. methods named without their raw id ------------------------------------------

NAMED = [
    # (target, text, adopted): the flipped category is reliance, the true one a correct use
    ("gift_card_7156512", "Gift card: $90 remaining", 0),
    ("gift_card_7156512", "Credit card: $90 remaining", 1),
    ("gift_card_7156512", "The one with $90 left is a credit card.", 1),
    ("gift_card_7156512", "Gift card ending in 512: $90 available", 0),
    ("gift_card_7156512", "- **Credit card** ending in ...512: $90 balance", 1),
    ("gift_card_7156512", "| gift_card_7156512 | Credit Card | $90 |", 1),
    ("gift_card_7156512", "| gift_card_7156512 | Gift Card | $90.00 |", 0),
    ("gift_card_7156512", "I'll use `gift_card_7156512` (gift card, $90).", 0),
    ("gift_card_7156512", "- Gift card ($90.00) - gift_card_7156512", 0),
    ("certificate_8045380", "Certificate (ID: certificate_8045380): $500", 0),
    ("certificate_8045380", "Credit card (ID: certificate_8045380)", 1),
    ("certificate_8045380", "Certificate_8045380 is a travel certificate worth $500.", 0),
    ("certificate_8045380", "- **Certificate** ($500.00 — certificate_8045380)", 0),
    ("credit_card_4196779", "Your Visa card ...7238 is a gift card.", 1),
    ("credit_card_4196779", "- Credit card (Visa ending in 7238)", 0),
]


@pytest.mark.parametrize(("target", "text", "adopted"), NAMED)
def test_method_named_without_its_raw_id(target, text, adopted):
    step, m = measure_text(target, text)
    assert step == m.T_S and adopted == m.A
    assert (step if adopted else NOT_APPLICABLE) == m.T_U
    assert m.Y_end == ("endorses" if adopted else "rejects")


@pytest.mark.parametrize(
    "text",
    [
        # a bare list of kinds names no method
        "You can pay by credit card, gift card, or certificate.",
        "Refunds to credit cards take 5-7 days; gift card refunds are instant.",
        # another method, named by its own balance or id
        "Gift card ($274.00) - gift_card_5094406",
        "| gift_card_5094406 | Gift Card | $274 |",
        # an amount that is a price, digits that fit no method
        "The fare is $90 per passenger.",
        "Your gift card ending in 999 was declined.",
        # a plural category heading over the methods names none of them
        "**Gift Cards:** total $364 across your cards.",
    ],
)
def test_phrases_not_about_the_method_are_no_use(text):
    _, m = measure_text("gift_card_7156512", text)
    assert m.T_S == INF and m.Z_S == "no-use" and m.A == 0


# ---- 2. a list of the user's methods states each one's category ---------------------


def _name(pid: str, form: str) -> str:
    """The method by its id, or by its balance (a card by brand and last digits)."""
    record = METHODS[pid]
    if form == "id":
        return pid
    if record["source"] == "credit_card":
        return "Visa ending in 7238"
    return f"${record['amount']:.2f} balance"


def render(rows: list[tuple[str, str]], style: str) -> str:
    """The same list of (name, category word) as a markdown table, bullets or prose."""
    if style == "table":
        lines = ["| Method | Type |", "|---|---|"] + [f"| {n} | {c} |" for n, c in rows]
        return "Here are your payment methods:\n" + "\n".join(lines)
    if style == "bullets":
        return "Your payment methods:\n" + "\n".join(f"- {c} ({n})" for n, c in rows)
    items = [f"a {c.lower()} ({n})" for n, c in rows]
    return "On file you have " + ", ".join(items[:-1]) + f", and {items[-1]}."


@settings(max_examples=40, deadline=None)
@given(
    target=st.sampled_from(sorted(METHODS)),
    says_flipped=st.booleans(),
    forms=st.lists(st.sampled_from(["id", "balance"]), min_size=5, max_size=5),
    order=st.permutations(sorted(METHODS)),
)
def test_list_of_methods_gives_the_same_quantities_in_every_rendering(
    target, says_flipped, forms, order
):
    true = METHODS[target]["source"]
    said = FLIP[true] if says_flipped else true
    rows = [
        (_name(pid, form), WORD[said if pid == target else METHODS[pid]["source"]])
        for pid, form in zip(order, forms, strict=True)
    ]
    results = set()
    for style in ("table", "bullets", "prose"):
        step, m = measure_text(target, render(rows, style))
        assert step == m.T_S, style
        results.add((m.T_S, m.T_U, m.A, m.Z_S, m.Y_end))
    assert len(results) == 1
    ((_, t_u, adopted, _, _),) = results
    assert adopted == int(says_flipped) and (t_u != NOT_APPLICABLE) == says_flipped


# ---- 3. a payment call chosen by the method's category ------------------------------

PAY = {"reservation_id": "NO6JO3", "cabin": "business", "flights": []}


def _pay_after(turns: list[tuple[str, str]], call_text: str | None = None):
    ledger, t_f, contract = faulted("gift_card_7156512")  # a gift card shown as a credit card
    for role, text in turns:
        (ledger.user if role == "user" else ledger.say)(text)
    step = ledger.call(
        "update_reservation_flights", {**PAY, "payment_id": "gift_card_7156512"}, "{}", call_text
    )
    return step - 1, ledger.measure("PaySource", contract, t_f)


@pytest.mark.parametrize(
    ("turns", "call_text", "adopted"),
    [
        ([("user", "Please put it on my credit card.")], None, 1),
        ([("user", "Pay with a gift card, please.")], None, 0),
        # the agent's own words in the call's turn choose the category
        ([("user", "Go ahead.")], "I'll charge the difference to your credit card now.", 1),
        # the user asked earlier, then confirmed
        (
            [("user", "Use a credit card for this."), ("assistant", "Shall I go ahead?")],
            None,
            1,
        ),
    ],
)
def test_payment_call_chosen_by_category_is_a_use(turns, call_text, adopted):
    if len(turns) == 2:
        turns = [*turns, ("user", "Yes.")]
    call, m = _pay_after(turns, call_text)
    assert call == m.T_S and adopted == m.A
    assert (call if adopted else NOT_APPLICABLE) == m.T_U


@pytest.mark.parametrize(
    "turns",
    [
        [("user", "Use gift_card_7156512 please.")],  # an id chooses, not a category
        [("user", "I don't want to use my credit card.")],  # a category declined
        [("user", "Go ahead with the change.")],
    ],
)
def test_payment_call_not_chosen_by_category_is_no_use(turns):
    _, m = _pay_after(turns)
    assert m.T_S == INF and m.A == 0


def test_confirmed_listing_makes_the_call_follow_its_category():
    # the agent lists the method with the flipped category, the user accepts, it pays
    ledger, t_f, contract = faulted("gift_card_7156512")
    listed = ledger.say("Payment: Credit card ($90 balance). Shall I proceed?")
    ledger.user("Yes.")
    call = ledger.call(
        "update_reservation_flights", {**PAY, "payment_id": "gift_card_7156512"}, "{}"
    )
    m = ledger.measure("PaySource", contract, t_f)
    assert m.T_S == m.T_U == listed and m.A == 1
    labels = [(u.step, u.label) for u in m.evidence.uses]
    assert (call - 1, "faulty_reliance") in labels


# ---- 4. a hypothetical is not reliance ----------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "If gift_card_7156512 is a credit card, the whole fare could go on it.",
        "Your gift_card_7156512 has $90. Were it a credit card, the fare could go on it.",
        "Should the card ending in 512 be a credit card, I can charge it in full.",
    ],
)
def test_hypothetical_category_is_a_use_but_not_reliance(text):
    step, m = measure_text("gift_card_7156512", text)
    assert step == m.T_S and m.T_U == NOT_APPLICABLE and m.A == 0
    assert m.Y_end == "undecidable"  # entertaining a value takes no stance


@pytest.mark.parametrize(
    "text",
    [
        # the "if" governs something else: the category is stated
        "I can charge your credit card gift_card_7156512, if that works for you.",
        # a definite description in a wish's antecedent is presupposed
        "If you'd like to use your credit card gift_card_7156512, I can do that now.",
    ],
)
def test_conditional_elsewhere_does_not_hide_reliance(text):
    step, m = measure_text("gift_card_7156512", text)
    assert m.T_S == m.T_U == step and m.A == 1


def test_governed_by_conditional_is_narrow():
    assert governed_by_conditional("Were it a gift card")
    assert governed_by_conditional("If you'd like to pay by credit card")
    assert governed_by_conditional("Otherwise you would need a credit card")
    assert not governed_by_conditional("If you agree, I will charge your gift card")
    assert not governed_by_conditional("If you'd like to use your gift card")
    assert not governed_by_conditional("I'll charge your gift card")


# ---- 5. a reference that fits several methods ---------------------------------------

TWINS = {
    "gift_card_7156512": {"source": "gift_card", "amount": 90.0},
    "gift_card_2219512": {"source": "gift_card", "amount": 90.0},
    "certificate_3887113": {"source": "certificate", "amount": 150.0},
    "certificate_9990113": {"source": "certificate", "amount": 150.0},
}


@pytest.mark.parametrize(
    "text",
    ["Credit card ($90 balance)", "The gift card ending in 512 covers the fee."],
)
def test_phrase_fitting_the_method_and_others_is_undecidable(text):
    _, m = measure_text("gift_card_7156512", text, TWINS)
    assert m.T_S == UNDECIDABLE and m.A == UNDECIDABLE and m.Z_S == "undecidable"


@pytest.mark.parametrize(
    "text",
    [
        "Certificate ($150 balance)",  # fits two others, not the method
        "The card ending in 512 has $90.",  # fits it and another, says no category
    ],
)
def test_ambiguous_phrase_without_the_method_or_a_category_is_no_use(text):
    _, m = measure_text("gift_card_7156512", text, TWINS)
    assert m.T_S == INF and m.A == 0


def test_undecidable_phrase_before_a_determinate_use():
    ledger, t_f, contract = faulted("gift_card_7156512", TWINS)
    ledger.say("Gift card ($90 balance) is available.")
    later = ledger.say("I'll charge gift_card_7156512 as a credit card.")
    m = ledger.measure("PaySource", contract, t_f)
    assert m.T_S == UNDECIDABLE and m.A == 1 and m.T_U == UNDECIDABLE
    assert later in [u.step for u in m.evidence.uses]


# ---- amounts ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("$1,234.50", [1234.5]),
        ("USD 90", [90.0]),
        ("90 dollars", [90.0]),
        ("$90.00 and $ 5", [90.0, 5.0]),
        ("US$90", [90.0]),
        ("flight HAT090 on 2024-05-15", []),
    ],
)
def test_amounts(text, expected):
    assert amounts(text) == expected


# ---- what real text does around payment methods -------------------------------------


@pytest.mark.parametrize(
    ("target", "text", "adopted"),
    [
        # a negation of something else is not a negation of the category
        ("credit_card_4196779", "No charge to your credit card ending in 7238.", 0),
        ("credit_card_4196779", "The card ending in 7238 is not a credit card.", 1),
        # the terms of a sum are not balances named: the credit card here is the Visa
        (
            "gift_card_7156512",
            "The remaining $274 - $90 = $184 would go on your credit card (Visa ending in 7238).",
            None,
        ),
    ],
)
def test_negation_and_arithmetic(target, text, adopted):
    step, m = measure_text(target, text)
    if adopted is None:
        assert m.T_S == INF and m.A == 0
    else:
        assert step == m.T_S and adopted == m.A


def test_plural_phrase_is_about_each_method_it_fits():
    step, m = measure_text(
        "certificate_3887113", "The remaining $150 certificates stay on file.", TWINS
    )
    assert step == m.T_S and m.A == 0


def test_category_answered_by_another_method_of_the_turn_did_not_choose_this_one():
    # the user asks for gift cards and the turn pays with the other gift card and the target
    ledger, t_f, contract = faulted("credit_card_4196779")  # shown as a gift card
    ledger.user("Use my gift cards first and the rest on the Visa.")
    pays = [
        {"payment_id": "gift_card_5094406", "amount": 274},
        {"payment_id": "credit_card_4196779", "amount": 50},
    ]
    ledger.call("book_reservation", {"payment_methods": pays}, "{}")
    m = ledger.measure("PaySource", contract, t_f)
    assert m.T_S == INF and m.A == 0


def test_a_negated_belief_about_the_category_denies_it():
    """ "I don't believe it is a credit card" denies the category; "no charge to your credit
    card" does not deny that the card is one."""
    from sscbench.references.payments import Method, payment_references, position

    methods = {
        "certificate_9380982": Method(
            "certificate_9380982", frozenset({"credit_card"}), amount=100.0
        ),
        "credit_card_1111111": Method(
            "credit_card_1111111", frozenset({"credit_card"}), last_four="4321"
        ),
    }
    denied = "Your certificate_9380982 is listed oddly, so I don't believe it is a credit card."
    refs = [r for r in payment_references(denied, methods) if r.entity == "certificate_9380982"]
    assert position(refs, "credit_card", "certificate") == "authoritative"
    kept = "There is no charge to your credit card ending in 4321; it is a credit card on file."
    refs = [r for r in payment_references(kept, methods) if r.entity == "credit_card_1111111"]
    assert position(refs, "gift_card", "credit_card") == "authoritative"


def test_a_consequence_only_one_category_has_states_that_category():
    """ "— this cannot be used for flight changes" said of a method states it is a
    certificate (the policy's rule for certificates); said of nothing in particular, or
    of certificates in general, it names no method."""
    from sscbench.references.payments import Method, payment_references, position

    methods = {
        "certificate_7473723": Method(
            "certificate_7473723", frozenset({"credit_card"}), amount=150.0
        ),
        "gift_card_8887175": Method("gift_card_8887175", frozenset({"gift_card"}), amount=35.0),
    }
    aside = (
        "- **certificate_7473723** ($150) — this cannot be used for flight modification payments"
    )
    refs = [r for r in payment_references(aside, methods) if r.entity == "certificate_7473723"]
    assert position(refs, "credit_card", "certificate") == "authoritative"
    general = "Pay the change with gift_card_8887175; certificates cannot be used for changes."
    refs = [r for r in payment_references(general, methods) if r.entity == "certificate_7473723"]
    assert position(refs, "credit_card", "certificate") is None
