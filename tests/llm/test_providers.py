"""Each provider of ``--model PROVIDER/NAME`` against a local fake that checks the request
shape as a strict provider does: tool schemas, ``tool_choice``, temperature and, after an
answer with two tool calls at once (parallel calls), the tool results that must follow."""

from __future__ import annotations

import asyncio

import pytest

from sscbench.agents.openai_agent import OpenAIAgent, OpenAIAgentConfig
from sscbench.core.ledger import AssistantEvent, ToolCall, ToolEvent, UserEvent
from sscbench.errors import DataError
from sscbench.llm.preflight import check_endpoint
from sscbench.llm.providers import PROVIDERS, agent_id, endpoint_fields, key_required
from sscbench.testing import OpenAIServer, ShapeChecked, reply, shape_problems, text

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_user_details",
            "description": "Read a user.",
            "parameters": {"type": "object", "properties": {"user_id": {"type": "string"}}},
        },
    }
]
CALLS = (
    {"id": "call_a", "name": "get_user_details", "arguments": {"user_id": "u1"}},
    {"id": "call_b", "name": "get_user_details", "arguments": {"user_id": "u2"}},
)


def _model(body: dict) -> dict:
    """Two tool calls at once after the user's message; text after the tool results."""
    last = body["messages"][-1]
    return text("Both users are found.") if last["role"] == "tool" else reply(None, CALLS)


@pytest.mark.parametrize("name", sorted(PROVIDERS))
def test_provider_request_shape(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    provider = PROVIDERS[name]
    checked = ShapeChecked(
        _model, tool_choice=provider.tool_choice, temperature_max=provider.temperature_max
    )
    with OpenAIServer(checked) as server:
        fields = endpoint_fields(f"{name}/some-model", server.base_url, provider.temperature_max)
        assert fields["api_key_env"] == provider.api_key_env
        monkeypatch.setenv(provider.api_key_env, "sk-test-key")
        config = OpenAIAgentConfig(**fields, max_retries=0)
        assert check_endpoint(config).ok  # the preflight's request has the shape too
        agent = OpenAIAgent(config, TOOLS, seed=3)
        ledger: list = [UserEvent(step=0, content="Look up u1 and u2.")]
        turn = asyncio.run(agent.act(ledger))
        assert [c.id for c in turn.tool_calls] == ["call_a", "call_b"]
        calls = tuple(
            ToolCall(id=c.id, name=c.name, arguments=c.arguments) for c in turn.tool_calls
        )
        ledger.append(AssistantEvent(step=1, content=None, tool_calls=calls))
        ledger += [
            ToolEvent(step=2 + i, tool_call_id=c.id, name=c.name, content='{"ok": true}')
            for i, c in enumerate(calls)
        ]
        second = asyncio.run(agent.act(ledger))
    assert second.content == "Both users are found." and not second.tool_calls
    assert checked.problems == [] and checked.checked == 3
    last = server.requests[-1]
    assert last["model"] == "some-model" and last["tool_choice"] == "auto"
    assert [m["tool_call_id"] for m in last["messages"] if m["role"] == "tool"] == [
        "call_a",
        "call_b",
    ]
    assert server.log[-1].headers["authorization"] == "Bearer sk-test-key"


def test_shape_check_refuses_what_a_provider_refuses() -> None:
    """The fake is no rubber stamp: an unanswered parallel call, a tool_choice the
    provider ignores and a temperature out of range are each named."""
    body = {
        "model": "m",
        "messages": [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}},
                    {"id": "b", "type": "function", "function": {"name": "f", "arguments": "{}"}},
                ],
            },
            {"role": "tool", "tool_call_id": "a", "content": "x"},
            {"role": "user", "content": "and?"},
        ],
        "tools": TOOLS,
        "tool_choice": "required",
        "temperature": 1.5,
    }
    problems = shape_problems(body, ("auto",), 1.0)
    assert any("answers of ['b']" in p for p in problems)
    assert any("tool_choice 'required'" in p for p in problems)
    assert any("temperature 1.5" in p for p in problems)
    assert shape_problems({**body, "tools": TOOLS}, ("auto", "required"), 2.0) != []


def test_provider_table_and_refusals() -> None:
    fields = endpoint_fields("openrouter/meta-llama/llama-3.1-70b-instruct")
    assert fields["model"] == "meta-llama/llama-3.1-70b-instruct"
    assert fields["base_url"] == "https://openrouter.ai/api/v1"
    assert agent_id("openrouter/meta-llama/llama-3.1-70b-instruct") == (
        "openrouter-meta-llama-llama-3.1-70b-instruct"
    )
    with pytest.raises(DataError, match="unknown provider 'acme'"):
        endpoint_fields("acme/m")
    assert endpoint_fields("acme/m", "http://127.0.0.1:9/v1")["model"] == "m"
    with pytest.raises(DataError, match="outside anthropic's range"):
        endpoint_fields("anthropic/claude", temperature=1.5)
    with pytest.raises(DataError, match="not PROVIDER/NAME"):
        endpoint_fields("gpt-4o")
    assert not key_required("http://localhost:11434/v1", "OLLAMA_API_KEY")
    assert key_required("https://api.openai.com/v1", "OPENAI_API_KEY")
    assert not key_required("http://127.0.0.1:8000/v1", "OPENAI_API_KEY")


def test_preflight_of_a_caller_without_tools_sends_none() -> None:
    """act/react agents and the LLM user send no tools: their check is a plain prompt, so a
    server without tool support passes it."""
    checked = ShapeChecked(lambda body: text("pong"))
    with OpenAIServer(checked) as server:
        config = OpenAIAgentConfig(base_url=server.base_url, model="m")
        result = check_endpoint(config, None)
        refused = check_endpoint(config.model_copy(update={"temperature": 9.0}))
    assert result.ok and result.line.endswith("key accepted, answered")
    assert "tools" not in server.requests[0] and "tool_choice" not in server.requests[0]
    assert not refused.ok and "HTTP 400" in refused.line and "temperature 9.0" in refused.line
