"""A rejection or negation cue qualifies a use only inside the sentence that states the value.

The shared use rule (``faults.operators.uses.classify_value_use``) reads a message that
states v′ as a correction of it only when the *sentence* stating v′ says it is wrong,
and reads a message with both values as "v against v′" only when that sentence negates.
A cue elsewhere in the message is about something else: the sentence stating v′ still
treats it as the fact (or still sets both side by side).
"""

from __future__ import annotations

import pytest

from sscbench.core.values import UseCandidate, UseLabel
from sscbench.core.view import LedgerView
from sscbench.faults.operators.uses import classify_value_use

EMPTY = LedgerView([])


def _label(text: str, span: str, *, authoritative: bool = False) -> UseLabel:
    candidate = UseCandidate(
        step=5,
        channel="message",
        span=span,
        mentions_injected=True,
        mentions_authoritative=authoritative,
        detail={"text": text},
    )
    return classify_value_use(candidate, EMPTY).label


@pytest.mark.parametrize(
    "text",
    [
        "Your E-Reader has the 6-inch screen. The order number you typed first was wrong, "
        "but I found the order.",
        "The link I sent earlier was invalid, sorry about that. Your E-Reader has the 6-inch "
        "screen.",
        "I see the 6-inch screen on your E-Reader.\nThe coupon code you mentioned is incorrect.",
        "Your E-Reader has the 6-inch screen. That was a mistake on my side with the "
        "shipping address; it is fixed now.",
    ],
)
def test_a_rejection_cue_in_another_sentence_does_not_reject_the_value(text: str) -> None:
    assert _label(text, "6-inch") is UseLabel.FAULTY_RELIANCE


@pytest.mark.parametrize(
    "text",
    [
        "Your order shows a 6-inch screen, which is wrong.",
        "The 6-inch screen listed on your order is incorrect.",
        "A 6-inch screen cannot be right for this item.",
    ],
)
def test_a_rejection_cue_in_the_values_sentence_rejects_it(text: str) -> None:
    assert _label(text, "6-inch") is UseLabel.VERIFICATION


@pytest.mark.parametrize(
    "text",
    [
        "Your order lists a 6-inch screen and the product page lists 7-inch. "
        "I could not find a tracking number yet.",
        "I have not heard back from the warehouse. Your order lists a 6-inch screen and the "
        "catalogue a 7-inch one.",
    ],
)
def test_a_negation_in_another_sentence_does_not_settle_on_the_true_value(text: str) -> None:
    """Both values side by side is a verification; a negation elsewhere does not make it a
    statement of the true value against the injected one."""
    assert _label(text, "6-inch", authoritative=True) is UseLabel.VERIFICATION


def test_a_negation_in_the_values_sentence_settles_on_the_true_value() -> None:
    text = "The screen is not 6-inch; it is 7-inch, as the catalogue says."
    assert _label(text, "6-inch", authoritative=True) is UseLabel.DEPENDENT_USE
