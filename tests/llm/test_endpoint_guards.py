"""Unit checks of the endpoint guards: key masking, argument limits, usage counts."""

from __future__ import annotations

from types import SimpleNamespace

import pydantic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sscbench.core.arguments import parse_arguments
from sscbench.llm.endpoint import OpenAIAgentConfig
from sscbench.llm.responses import content_text
from sscbench.llm.secrets import FRAGMENT, redact
from sscbench.llm.usage import add_usage, new_usage
from sscbench.reading import MAX_DEPTH

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


def _normal(text: str) -> str:
    return "".join(text.split()).lower()


@settings(max_examples=100, deadline=None)
@given(
    before=st.text(max_size=10),
    flips=st.lists(st.booleans(), min_size=len(KEY), max_size=len(KEY)),
    gaps=st.lists(st.sampled_from(["", "", " ", "\n", "\t ", "\u00a0"]), min_size=len(KEY)),
)
def test_an_echo_in_another_case_or_spaced_out_is_masked(before, flips, gaps):
    echo = "".join(
        (c.upper() if flip else c.lower()) + gap
        for c, flip, gap in zip(KEY, flips, gaps, strict=False)
    )
    masked = redact(before + " " + echo + " after", [KEY])
    pieces = {_normal(KEY)[i : i + FRAGMENT] for i in range(len(KEY) - FRAGMENT + 1)}
    assert not any(piece in _normal(masked) for piece in pieces), masked
    assert masked.endswith(" after")


def test_spaced_and_upper_case_echoes_are_masked_and_text_is_kept():
    assert redact(f"key {KEY.upper()} refused", [KEY]) == "key *** refused"
    assert redact("key " + " ".join(KEY) + " refused", [KEY]) == "key *** refused"
    assert redact(f"x {KEY[:9]}\n  {KEY[9:]} y", [KEY]) == "x *** y"
    assert redact("key ABC12 refused", ["abc12"]) == "key *** refused"
    assert redact("Ordinary Text, spaced  out", [KEY]) == "Ordinary Text, spaced  out"


@pytest.mark.parametrize(
    "value", [KEY, "sk_live_0123456789abcdef", "Zq81LmT4vXw9Rb2NZq81LmT4vXw9Rb2NZq81LmT4v", "a b"]
)
def test_a_key_in_api_key_env_is_refused_naming_the_field(value):
    with pytest.raises(pydantic.ValidationError) as refused:
        OpenAIAgentConfig(base_url="http://127.0.0.1:9/v1", model="m", api_key_env=value)
    assert "api_key_env must name an environment variable" in str(refused.value)


@pytest.mark.parametrize("value", ["OPENAI_API_KEY", "my_key", "SK_PROD_KEY", "A" * 64])
def test_environment_variable_names_are_accepted(value):
    config = OpenAIAgentConfig(base_url="http://127.0.0.1:9/v1", model="m", api_key_env=value)
    assert config.api_key_env == value
