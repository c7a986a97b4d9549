"""The rejection rule reads principles, not the phrasings of our own corpus edits.

A sentence stating v′ rejects it when it (1) calls it false ("wrong", "inaccurate",
"mistaken"), (2) denies its truth — negated or under a modal of impossibility ("is not
right", "isn't accurate", "cannot / could not / must not be right", "can't be on that
date", "makes no sense") — or (3) retracts the agent's own earlier statement ("correct
what I said", "a correction to what I listed", "I misspoke"). Each principle is checked
in several phrasings no corpus edit wrote, and against look-alikes that reject nothing.
"""

from __future__ import annotations

import pytest

from sscbench.core.values import UseCandidate, UseLabel
from sscbench.core.view import LedgerView
from sscbench.faults.operators.uses import REJECT_CUE, classify_value_use


def _label(text: str, span: str = "6-inch") -> UseLabel:
    candidate = UseCandidate(
        step=5,
        channel="message",
        span=span,
        mentions_injected=True,
        mentions_authoritative=False,
        detail={"text": text},
    )
    return classify_value_use(candidate, LedgerView([])).label


FALSITY = [
    "The 6-inch screen in that record is inaccurate.",
    "Listing a 6-inch screen for this E-Reader is mistaken.",
    "The record's 6-inch screen is simply wrong.",
]
DENIED = [
    "A 6-inch screen couldn't possibly be correct for this model.",
    "The 6-inch screen it shows isn't accurate.",
    "The order says 6-inch, which must not be right.",
    "That 6-inch figure is not true for your device.",
    "A 6-inch screen on this E-Reader makes no sense.",
    "The 6-inch entry does not make sense for this item.",
    "Your return can not be on 2024-05-12.",
]
RETRACTED = [
    "Correcting my earlier message: the 6-inch screen I mentioned was a misreading.",
    "I misspoke when I said the screen is 6-inch.",
    "I take back what I said about the 6-inch screen.",
    "Let me retract the 6-inch screen I gave you.",
]


@pytest.mark.parametrize("text", FALSITY + DENIED + RETRACTED)
def test_each_principle_rejects_the_value_in_its_sentence(text: str) -> None:
    assert REJECT_CUE.search(text), text
    span = "2024-05-12" if "2024-05-12" in text else "6-inch"
    assert _label(text, span) is UseLabel.VERIFICATION


@pytest.mark.parametrize(
    "text",
    [
        "Your E-Reader has the 6-inch screen, which is correct.",
        "I can't change the 6-inch screen on an order that has shipped.",
        "The 6-inch screen can be exchanged for another size.",
        "You are right, the screen is 6-inch.",
        "Your E-Reader has the 6-inch screen; it is not refundable.",
        "I corrected the address; your E-Reader has the 6-inch screen.",
    ],
)
def test_look_alikes_reject_nothing(text: str) -> None:
    assert _label(text) is UseLabel.FAULTY_RELIANCE
