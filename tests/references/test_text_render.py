"""Agent messages rendered as plain, segmentable text (:mod:`sscbench.references.text`)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from sscbench.core.ledger import AssistantEvent, SystemEvent, ToolCall, UserEvent
from sscbench.core.view import LedgerView
from sscbench.references.text import MAX_DEPTH, agent_texts, plain_typography, render


def test_a_message_wrapper_is_unescaped_into_lines():
    text = json.dumps({"message": "Hi.\n\n- item 1: red", "next_steps": ["a", "b"]})
    out = render(text)
    assert out.split("\n") == ["message: Hi.", "", "- item 1: red", "  - next_steps: a, b"]


def test_an_objects_sibling_keys_stay_one_block():
    text = json.dumps({"items": [{"item": "T-shirt", "item_id": "1", "color": "blue"}]}, indent=2)
    assert render(text).split("\n") == [
        "items:",
        "  - item: T-shirt",
        "    - item_id: 1",
        "    - color: blue",
    ]


def test_a_fenced_block_is_rendered_in_place():
    out = render('Here it is:\n```json\n{"color": "blue"}\n```\nThanks.')
    assert out == "Here it is:\ncolor: blue\nThanks."


def test_text_that_is_not_a_json_object_or_list_is_left_alone():
    for text in ["plain words", '"a json string"', "{not json", "42", "", "[1, 2"]:
        assert render(text) == text


def test_deep_nesting_is_bounded():
    deep: object = "leaf"
    for _ in range(200):
        deep = {"k": deep}
    out = render(json.dumps(deep))
    assert len(out.split("\n")) <= MAX_DEPTH + 2
    huge = "[" * 100_000 + "]" * 100_000  # beyond the parser's recursion: left as written
    assert render(huge) == huge


def test_agent_texts_render_messages_and_handoffs():
    call = ToolCall(
        id="c", name="transfer_to_human_agents", arguments=json.dumps({"summary": '{"a": 1}'})
    )
    events = [
        SystemEvent(step=0, content="policy"),
        UserEvent(step=1, content="hi"),
        AssistantEvent(step=2, content=json.dumps({"message": "Line 1\nLine 2"})),
        AssistantEvent(step=3, content=None, tool_calls=(call,)),
    ]
    texts = agent_texts(LedgerView(events), 1)
    assert texts == [(2, "message", "message: Line 1\nLine 2"), (3, "handoff", "a: 1")]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=30,
)


@settings(max_examples=100, deadline=None)
@given(JSON)
def test_every_string_leaf_survives_rendering(data):
    out = render(json.dumps(data))
    leaves: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, dict):
            leaves.extend(str(k) for k in value)
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, str):
            leaves.extend(line.strip() for line in value.split("\n"))

    walk(data)
    if isinstance(data, dict | list):
        assert all(plain_typography(leaf).strip() in out for leaf in leaves)


def test_typographic_hyphens_spaces_and_quotes_read_as_plain_ones():
    """Non-breaking hyphens and narrow spaces (as gpt-oss writes them) and curly quotes
    become their plain forms; en dashes, which mark ranges, stay."""
    from sscbench.references.text import render

    text = "Gift\u2011card **gift_card_7359776** \u2013 $39 on 2024\u201105\u201120; I don\u2019t\u202fknow"
    assert render(text) == "Gift-card **gift_card_7359776** \u2013 $39 on 2024-05-20; I don't know"
    assert render('{"message": "It\u2019s the \u201cred\u201d one"}').endswith(
        'message: It\'s the "red" one'
    )


def _object(value: str) -> dict:
    return {"item": "T-shirt", "item_id": "1", "color": value}


def test_a_line_break_in_a_value_never_changes_the_objects_layout():
    """One object is one block whether or not one of its values has a line break; a
    nested value with line breaks is a block under its key (``key:`` alone on its
    line), so its lines stay in the object's block and keep their own structure; the
    message's head value keeps its lines as written."""
    one = render(json.dumps(_object("blue")))
    assert one.split("\n") == ["item: T-shirt", "  - item_id: 1", "  - color: blue"]
    wrapped = render(json.dumps(_object("Thanks.\n\nblue\n\nAnything else?")))
    assert wrapped.split("\n") == [
        "item: T-shirt",
        "  - item_id: 1",
        "  - color:",
        "      Thanks.",
        "",
        "      blue",
        "",
        "      Anything else?",
    ]
    nested = {"message": "Found:\n- T-shirt\n  - color: blue", "o": {"id": "1\n2"}}
    assert render(json.dumps(nested)).split("\n") == [
        "message: Found:",  # the message's own lines, as written
        "- T-shirt",
        "  - color: blue",
        "  - o:",
        "    - id:",
        "        1",
        "        2",
    ]


def test_text_that_is_not_json_keeps_its_line_breaks_and_list_elements_stay_bullets():
    """Negative controls: plain text is left alone; a list element with line breaks
    is still a bullet, its lines under it."""
    assert render("Thanks.\n\nblue") == "Thanks.\n\nblue"
    assert render(json.dumps(["Steps:\n1. read", "done"])).split("\n") == [
        "- ",
        "    Steps:",
        "    1. read",
        "- done",
    ]
