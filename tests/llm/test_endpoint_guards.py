"""Unit checks of the endpoint guards: key masking, argument limits, usage counts."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from sscbench.core.arguments import MAX_DEPTH, parse_arguments
from sscbench.llm.responses import content_text
from sscbench.llm.retry import add_usage, new_usage
from sscbench.llm.secrets import FRAGMENT, redact

KEY = "sk-proj-Zq81LmT4vXw9Rb2N"


@settings(max_examples=100, deadline=None)
@given(
    before=st.text(max_size=20),
    after=st.text(max_size=20),
    start=st.integers(0, len(KEY) - FRAGMENT),
    size=st.integers(FRAGMENT, len(KEY)),
)
def test_no_fragment_of_a_key_survives(before, after, start, size):
    text = before + KEY[start : start + size] + after
    masked = redact(text, [KEY])
    assert not any(KEY[i : i + FRAGMENT] in masked for i in range(len(KEY) - FRAGMENT + 1))


def test_short_keys_are_masked_as_words_and_text_is_kept():
    assert redact("key abc12 refused", ["abc12"]) == "key *** refused"
    assert redact("xabc12y stays", ["abc12"]) == "xabc12y stays"
    assert redact("ordinary text", [KEY, "sk-no-key", ""]) == "ordinary text"
    assert redact(f"a {KEY[3:13]} b {KEY} c", [KEY]) == "a *** b *** c"


def test_arguments_beyond_the_limits_are_observations():
    deep = "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
    assert parse_arguments(deep)[1].startswith("Error: arguments are nested more than")
    ok = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert parse_arguments('{"a": ' + ok + "}")[1] is not None  # the object adds a level
    assert parse_arguments(ok) == (parse_arguments(ok)[0], None)
    assert parse_arguments("1" * 5000)[1].startswith("Error: arguments cannot be read")
    assert parse_arguments("{")[1].startswith("Error: arguments are not valid JSON")
    assert parse_arguments("  ") == ({}, None)


def test_usage_refuses_negative_and_non_integer_counts():
    usage = new_usage()
    counts = SimpleNamespace(prompt_tokens=-3, completion_tokens=True, total_tokens=4)
    add_usage(usage, SimpleNamespace(usage=counts))
    add_usage(usage, SimpleNamespace(usage=SimpleNamespace(prompt_tokens=2)))
    assert usage["prompt_tokens"] == 2 and usage["completion_tokens"] == 0
    assert usage["total_tokens"] == 4 and usage["invalid_usage"] == 1 and usage["requests"] == 2


def test_content_parts_are_text():
    parts = [{"type": "text", "text": "a"}, "b", {"type": "image_url", "image_url": {"url": "u"}}]
    assert content_text(parts) == 'ab{"type": "image_url", "image_url": {"url": "u"}}'
    assert content_text(None) is None and content_text("x") == "x"
