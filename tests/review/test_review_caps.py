"""Review pages cap each recorded text like report pages, never naming the run (a
masked page must not say which run it shows)."""

from __future__ import annotations

from sscbench.core.ledger import AssistantEvent, ToolCall, UserEvent
from sscbench.core.shown import SHOWN_CHARS
from sscbench.review.pages import trajectory_steps


def test_a_long_message_is_cut_on_a_review_page_and_the_cut_stated():
    long = "y" * (SHOWN_CHARS + 5)
    call = ToolCall(id="c", name="think", arguments='{"t": "' + "z" * SHOWN_CHARS + '"}')
    steps = trajectory_steps(
        [UserEvent(step=0, content="hi"), AssistantEvent(step=1, content=long, tool_calls=(call,))]
    )
    assert steps[0]["text"] == "hi"
    assert (
        steps[1]["text"]
        == "y" * SHOWN_CHARS + "… [cut: 5 more characters; full text in the run's ledger]"
    )
    assert "… [cut: " in steps[1]["calls"][0] and "runs/" not in steps[1]["calls"][0]
