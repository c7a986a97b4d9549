"""Model output of any code points is written to JSON lines losslessly and read back."""

from __future__ import annotations

import json
import re

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from sscbench.core.ledger import LEDGER_EVENT, AssistantEvent, ToolCall, ToolEvent
from sscbench.jsonl import dumps_line, loads_line, model_line

ANY_TEXT = st.text(st.characters(codec=None, categories=None), max_size=40)
PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")
"""Two code points JSON cannot tell from the one character they encode as a pair."""


@settings(max_examples=200, deadline=None)
@given(content=ANY_TEXT, arguments=ANY_TEXT)
def test_any_code_points_round_trip_through_a_ledger_line(content, arguments):
    assume(not PAIR.search(content) and not PAIR.search(arguments))
    event = AssistantEvent(
        step=3, content=content, tool_calls=(ToolCall(id="c", name="n", arguments=arguments),)
    )
    line = model_line(event)
    line.encode("utf-8")
    assert loads_line(LEDGER_EVENT, line) == event
    assert json.loads(dumps_line({"x": content})) == {"x": content}


def test_pydantic_bytes_are_kept_when_text_encodes():
    event = ToolEvent(step=1, tool_call_id="c", name="n", content="café ☕ 1e20")
    assert model_line(event) == event.model_dump_json()
    assert isinstance(loads_line(LEDGER_EVENT, model_line(event)), ToolEvent)
