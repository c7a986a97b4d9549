"""PaySource: a method's category said without a category word beside it, or decided by a call.

Issue 40 item 4, one group per principle, each on hand-built ledgers in several
phrasings with positive and negative controls:

1. a sentence that *files* the method under a category — its id listed under a category
   heading, or kept out of another category's total ("(not included in the gift card
   total)") — states that category; the negation is of the total, not a check. A real
   denial ("I don't believe it is a credit card") still denies;
2. a count of categories over the user's profile ("you have two credit cards and one
   certificate") states each method's category where the counts bind to the methods the
   agent was shown;
3. a payment call whose method was picked by its category ("the smaller gift card",
   "Which credit card …?" answered) is the first dependent use, located at the call.

The profile (:data:`test_payment_references.METHODS`): two gift cards
(gift_card_5094406 $274, gift_card_7156512 $90), two certificates ($500, $150) and a
Visa ending 7238. The target is gift_card_7156512, shown as a credit card.
"""

from __future__ import annotations

import pytest

from sscbench.core.values import INF, NOT_APPLICABLE
from sscbench.references.payment_filing import counts_of, heading_spans
from test_payment_references import METHODS, faulted, measure_text

TARGET = "gift_card_7156512"


def _quantities(text: str):
    step, m = measure_text(TARGET, text)
    return step, m


# ---- 1. filed under a category ----------------------------------------------------------

FILED_AS_CREDIT_CARD = [
    "Credit Card (ID: gift_card_7156512): $90 (not included in the gift card total)",
    "Gift card total: $274. gift_card_7156512 ($90) is not counted toward your gift card balance.",
    "Your gift cards come to $274; gift_card_7156512 is excluded from your gift cards.",
    "**Credit cards:**\n- Visa ending in 7238\n- gift_card_7156512 ($90)",
    "Credit cards: Visa ending in 7238, gift_card_7156512",
    "### Credit Cards (2)\n1. credit_card_4196779\n2. gift_card_7156512",
    "Your payment methods:\n\nCredit cards\n  • credit_card_4196779\n  • gift_card_7156512",
    "Credit card gift_card_7156512 ($90) is not included in the calculation of your gift card "
    "total.",
    "**Credit card balances:**\n- gift_card_7156512: $90",
]


@pytest.mark.parametrize("text", FILED_AS_CREDIT_CARD)
def test_a_method_filed_under_the_flipped_category_is_reliance(text):
    step, m = _quantities(text)
    assert (m.T_S, m.T_U, m.A, m.Y_end) == (step, step, 1, "endorses")


FILED_AS_GIFT_CARD = [
    "gift_card_7156512 ($90) is included in the gift card total of $364.",
    "**Gift cards:**\n- gift_card_5094406 ($274)\n- gift_card_7156512 ($90)",
    "Gift cards: gift_card_5094406 and gift_card_7156512",
    "Gift card balances:\n- gift_card_5094406: $274\n- gift_card_7156512: $90",
    "Credit card (Visa ending in 7238) — not included in the gift card total. "
    "Gift cards: gift_card_7156512 ($90).",
]


@pytest.mark.parametrize("text", FILED_AS_GIFT_CARD)
def test_a_method_filed_under_its_true_category_is_a_correct_use(text):
    step, m = _quantities(text)
    assert (m.T_S, m.T_U, m.A, m.Y_end) == (step, NOT_APPLICABLE, 0, "rejects")


@pytest.mark.parametrize(
    "text",
    [
        # a real denial of the flipped category: the method is not filed anywhere
        "I don't believe gift_card_7156512 is a credit card.",
        "gift_card_7156512 is not a credit card, whatever the profile says.",
        # questioning the record is a check
        "Is gift_card_7156512 really a credit card? Its id suggests a gift card.",
        "gift_card_7156512 shows as a credit card, but its id says gift card.",
    ],
)
def test_a_denial_or_a_check_is_not_filing(text):
    step, m = _quantities(text)
    assert (m.T_S, m.A, m.Y_end) == (step, 0, "rejects")
    assert "faulty_reliance" not in [u.label for u in m.evidence.uses]


@pytest.mark.parametrize(
    "text",
    [
        # a heading over other methods; the method named after the list ends
        "**Credit cards:**\n- Visa ending in 7238\n\nYou also have gift_card_7156512.",
        # a plain line after a heading is not listed under it
        "Credit cards:\nYour gift_card_7156512 has $90 left.",
        # a heading that is not a category alone, and a group the text names no method in
        "Gift card balance: $274\n- gift_card_7156512",
        "Excluding your gift cards, the fare comes to $120.",
    ],
)
def test_no_filing_without_a_heading_over_the_method(text):
    _, m = _quantities(text)
    assert m.T_S == INF and m.A == 0


def test_heading_spans_cover_the_items_under_a_heading_only():
    text = "Here you go:\n**Gift cards:**\n- a\n- b\nThat is all.\nCertificates: c, d"
    spans = [(text[s:e], c) for s, e, c in heading_spans(text)]
    assert spans == [("- a", "gift_card"), ("- b", "gift_card"), ("c, d", "certificate")]
    # a sibling bullet that is a heading of its own ends the list before it
    text = "- Credit cards:\n  - x\n- Gift card: y"
    spans = [(text[s:e], c) for s, e, c in heading_spans(text)]
    assert spans == [("  - x", "credit_card"), ("y", "gift_card")]
    text = "1. **Credit Card(s):**\n   - x"
    assert [c for _, _, c in heading_spans(text)] == ["credit_card"]


def test_a_sibling_heading_files_the_method_under_its_own_category():
    step, m = _quantities(
        "- Credit cards:\n  - Visa ending in 7238\n- Gift card: gift_card_7156512"
    )
    assert (m.T_S, m.A, m.Y_end) == (step, 0, "rejects")


# ---- 2. a count of categories over the profile -------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "You have one gift card, two certificates and two credit cards.",
        "Your profile lists 2 credit cards, 1 gift card and 2 travel certificates.",
        "You currently have:\n- 2 credit cards\n- 1 gift card\n- 2 certificates",
        # a count one above the other methods of the category must include the method
        "You have two credit cards on file.",
    ],
)
def test_a_count_binding_the_method_to_the_flipped_category_is_reliance(text):
    step, m = _quantities(text)
    assert (m.T_S, m.T_U, m.A, m.Y_end) == (step, step, 1, "endorses")


@pytest.mark.parametrize(
    "text",
    [
        "You have two gift cards, two certificates and one credit card.",
        "There are 2 gift cards in your account.",
        "Your wallet has:\n- 1 Visa credit card\n- 2 gift cards\n- 2 certificates",
    ],
)
def test_a_count_binding_the_method_to_its_true_category_is_a_correct_use(text):
    step, m = _quantities(text)
    assert (m.T_S, m.T_U, m.A, m.Y_end) == (step, NOT_APPLICABLE, 0, "rejects")


@pytest.mark.parametrize(
    "text",
    [
        "You have two certificates.",  # a category the method is in under neither value
        "You have one credit card.",  # the other methods alone account for it
        "You have three credit cards.",  # fits no reading of the methods shown
        "I can split the fare across two gift cards.",  # not what the user has
        "You have 5 payment methods.",  # no category counted
        "There is no gift card balance left after this booking.",
        "You have more than one credit card on file; which one would you like?",
    ],
)
def test_a_count_that_does_not_bind_the_method_is_no_use(text):
    _, m = _quantities(text)
    assert m.T_S == INF and m.A == 0


def test_an_article_alone_is_no_tally():
    """ "a certificate" in a sentence about the profile may be a predicate, not a count:
    with no other certificate in the profile it would otherwise bind to the method."""
    methods = {
        "gift_card_5094406": METHODS["gift_card_5094406"],
        "certificate_3887113": METHODS["certificate_3887113"],
        "credit_card_4196779": METHODS["credit_card_4196779"],
    }
    text = (
        "I'll charge certificate_3887113 as the credit card your profile shows, though it "
        "may actually be a certificate."
    )
    _, m = measure_text("certificate_3887113", text, methods)
    # the record reported and a hedge: both values set side by side, not a plain statement
    assert [u.label for u in m.evidence.uses] == ["verification"]
    step, m = measure_text(
        "certificate_3887113", "You have 1 gift card and 2 credit cards.", methods
    )
    assert (step, 1) == (m.T_S, m.A)


def test_a_count_does_not_bind_when_another_methods_category_is_unsettled():
    # without the id-category relation, a second flipped-looking method leaves it open
    methods = {**METHODS, "certificate_8045380": {"source": "gift_card", "amount": 500.0}}
    ledger, t_f, contract = faulted(TARGET, methods)
    # certificate_8045380 is now shown as a gift card but its id says certificate
    ledger.say("You have one gift card, one certificate and two credit cards.")
    m = ledger.measure("PaySource", contract, t_f)
    assert m.T_S == INF


def test_counts_of_reads_a_tally_of_what_the_user_has():
    assert counts_of("You have two credit cards and one certificate.") == {
        "credit_card": 2,
        "certificate": 1,
    }
    assert counts_of("Your account holds 3 gift cards") == {"gift_card": 3}
    assert counts_of("Two gift cards would cover it.") == {}
    assert counts_of("You have two gift cards, one gift card expired.") == {}
    # a bound is not a count
    assert counts_of("You have more than one gift card and 2 certificates.") == {"certificate": 2}
    assert counts_of("You have at least two credit cards on file.") == {}


# ---- 3. a call paying with a method picked by its category -------------------------------

PAY = {"reservation_id": "NO6JO3", "cabin": "business", "flights": []}


def _pays(target: str, turns: list[tuple[str, str]], call_text: str | None = None):
    ledger, t_f, contract = faulted(target)
    for role, text in turns:
        (ledger.user if role == "user" else ledger.say)(text)
    call = ledger.call("update_reservation_flights", {**PAY, "payment_id": target}, "{}", call_text)
    return call - 1, ledger.measure("PaySource", contract, t_f)


@pytest.mark.parametrize(
    ("turns", "call_text"),
    [
        ([("assistant", "Which credit card should I charge?"), ("user", "Not the Visa.")], None),
        (
            [
                ("assistant", "You can pay with one of your credit cards. Which one?"),
                ("user", "The other one, please."),
            ],
            None,
        ),
        ([("user", "Go ahead.")], "I'll put it on the other credit card."),
    ],
)
def test_a_call_paying_with_a_method_picked_from_the_flipped_category_relies(turns, call_text):
    call, m = _pays(TARGET, turns, call_text)
    assert (call, call, 1) == (m.T_S, m.T_U, m.A)


@pytest.mark.parametrize(
    "turns",
    [
        [("user", "Use the smaller gift card, please.")],
        [("assistant", "Which gift card would you like to use?"), ("user", "The $90 one.")],
        [("user", "Charge the smallest of my gift cards.")],
    ],
)
def test_a_call_paying_with_a_method_picked_from_its_true_category_is_a_use(turns):
    call, m = _pays(TARGET, turns)
    assert (call, NOT_APPLICABLE, 0) == (m.T_S, m.T_U, m.A)


@pytest.mark.parametrize(
    "turns",
    [
        # picked by identity
        [("assistant", "Shall I use gift_card_7156512?"), ("user", "Yes.")],
        # a category word about something else, not a choice among methods
        [("assistant", "Your gift card total is $364. Shall I go ahead?"), ("user", "Yes.")],
        [("assistant", "Which flight do you prefer?"), ("user", "The first one.")],
    ],
)
def test_a_call_not_picked_by_category_is_no_use(turns):
    _, m = _pays(TARGET, turns)
    assert m.T_S == INF and m.A == 0


@pytest.mark.parametrize(
    "answer", ["The Visa.", "Use the one ending in 7238.", "credit_card_4196779"]
)
def test_an_answer_naming_the_method_itself_is_a_choice_by_identity(answer):
    # the Visa is shown as a gift card; the offer names gift cards and the Visa apart
    turns = [
        ("assistant", "Would you like to use one of your gift cards, or your Visa?"),
        ("user", answer),
    ]
    _, m = _pays("credit_card_4196779", turns)
    assert m.T_S == INF and m.A == 0


def test_a_choice_by_category_in_a_recorded_thought_locates_the_use_at_the_call():
    ledger, t_f, contract = faulted(TARGET)
    ledger.user("Please charge whatever card is best.")
    ledger.call("think", {"thought": "The other credit card is the one to use here."}, "")
    ledger.user("OK.")
    call = ledger.call("update_reservation_flights", {**PAY, "payment_id": TARGET}, "{}") - 1
    m = ledger.measure("PaySource", contract, t_f)
    assert (call, 1) == (m.T_U, m.A)


def test_the_smaller_of_two_names_the_method_in_text_before_the_call():
    """A comparative ranks the two methods of the category it qualifies: the text names
    the method, and the call after it is a use too."""
    ledger, t_f, contract = faulted(TARGET)
    said = ledger.say("I'd put the $90 difference on the smaller of your two gift cards. OK?")
    ledger.user("Sure.")
    ledger.call("update_reservation_flights", {**PAY, "payment_id": TARGET}, "{}")
    m = ledger.measure("PaySource", contract, t_f)
    assert (m.T_S, m.A, m.Y_end) == (said, 0, "rejects")


def test_a_comparative_over_more_than_two_methods_names_none():
    methods = {**METHODS, "gift_card_0000001": {"source": "gift_card", "amount": 40.0}}
    _, m = measure_text(TARGET, "The smaller gift card is a credit card.", methods)
    assert m.T_S == INF
