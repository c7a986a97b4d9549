"""How far a conditional reaches, and what a check cue qualifies (the shared use rules).

* A message is a hypothetical only when *every* statement of the value in it is governed
  by a conditional: one plain statement beside a conditional one still states v′.
* An antecedent ends at a comma, semicolon, dash or "then": a value stated after it is
  stated, not entertained ("If you like, your screen is 6-inch" states it).
* A check cue makes a use a verification of v′ only when the use states v′: stating the
  true value v after a check is a correct dependent use.
"""

from __future__ import annotations

import pytest

from sscbench.core.values import UseCandidate, UseLabel
from sscbench.core.view import LedgerView
from sscbench.faults.operators.uses import classify_value_use, governed_by_conditional, hypothetical


def _label(text: str, spans: list[str], *, injected=True, authoritative=False) -> UseLabel:
    candidate = UseCandidate(
        step=5,
        channel="message",
        span=spans[0],
        mentions_injected=injected,
        mentions_authoritative=authoritative,
        detail={"text": text, "value_spans": spans},
    )
    return classify_value_use(candidate, LedgerView([])).label


@pytest.mark.parametrize(
    ("text", "spans"),
    [
        (
            "If your screen were 6-inch, I could swap it. Your order shows a 6 inch screen.",
            ["6-inch", "6 inch"],
        ),
        (
            "Your order lists a 6 inch screen. Should it be 6-inch, an exchange is possible.",
            ["6 inch", "6-inch"],
        ),
    ],
)
def test_one_plain_statement_beside_a_conditional_one_states_the_value(text, spans) -> None:
    assert not hypothetical(text, spans)
    assert _label(text, spans) is UseLabel.FAULTY_RELIANCE


def test_every_statement_conditional_is_a_hypothetical() -> None:
    text = "If it were 6-inch, I could swap it; and were it a 6 inch model, the case fits."
    assert hypothetical(text, ["6-inch", "6 inch"])
    assert _label(text, ["6-inch", "6 inch"]) is UseLabel.DEPENDENT_USE


@pytest.mark.parametrize(
    "lead",
    [
        "If you like, your screen is 6-inch",
        "If you want; the screen is 6-inch",
        "Assuming the order is complete - the screen is 6-inch",
        "If that helps then the screen is 6-inch",
    ],
)
def test_a_value_after_the_antecedent_closed_is_stated(lead: str) -> None:
    assert not governed_by_conditional(lead)


@pytest.mark.parametrize(
    "lead", ["If the screen is 6-inch", "Were it 6-inch", "Suppose it is 6-inch"]
)
def test_a_value_inside_an_open_antecedent_is_entertained(lead: str) -> None:
    assert governed_by_conditional(lead)


@pytest.mark.parametrize(
    "text",
    [
        "Let me verify with the catalogue: your screen is 7-inch.",
        "I double-checked, and the screen is 7-inch.",
        "To confirm the correct size: 7-inch.",
    ],
)
def test_a_check_cue_beside_the_true_value_alone_is_a_correct_use(text: str) -> None:
    assert _label(text, ["7-inch"], injected=False, authoritative=True) is UseLabel.DEPENDENT_USE
