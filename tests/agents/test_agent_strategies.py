"""The act and react strategies of the openai agent: parsing, schema, ledger, config."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from sscbench.agents.actions import (
    ParsedAction,
    Unparsable,
    action_schema,
    parse_action,
    response_format,
)
from sscbench.agents.openai_agent import openai_agent_factory
from sscbench.agents.strategies import action_messages, action_turn
from sscbench.core.actions import UNPARSABLE_ACTION, UNPARSABLE_OBSERVATION
from sscbench.core.agent import RunContext
from sscbench.core.injection import Injection, RewriteHook
from sscbench.core.ledger import AssistantEvent, SystemEvent, ToolCall, ToolEvent, UserEvent
from sscbench.core.user import STOP
from sscbench.errors import DataError
from sscbench.llm.endpoint import OpenAIAgentConfig
from sscbench.run.episode import run_episode
from sscbench.study.config import parse_config
from sscbench.testing import OpenAIServer, sequence, text
from sscbench.world.state import BaseData
from sscbench.world.task import Action, Task
from sscbench.world.tools import ToolKind, ToolRegistry
from sscbench.world.world import World

REG = ToolRegistry("mini-act")


@REG.tool(ToolKind.READ, "Read a user.", {"user_id": {"type": "string"}})
def get_user_details(db, user_id: str) -> str:
    user = db.get("users", user_id)
    return json.dumps(user) if user is not None else "Error: user not found"


@REG.tool(
    ToolKind.WRITE,
    "Change a user's address.",
    {"user_id": {"type": "string"}, "address": {"type": "string"}},
)
def update_address(db, user_id: str, address: str) -> str:
    if db.get("users", user_id) is None:
        return "Error: user not found"
    db.edit("users", user_id)["address"] = address
    return json.dumps(db.get("users", user_id))


TASK = Task(
    task_id="t0",
    domain="mini",
    user_id="u1",
    instruction="You are Ada (user id u1) and moved to 2 Oak Ave.",
    actions=(Action(name="update_address", kwargs={"user_id": "u1", "address": "2 Oak Ave"}),),
)
WORLD = World(
    "mini",
    "mini",
    "test",
    BaseData({"users": {"u1": {"name": "Ada", "address": "1 Main St"}}}),
    REG,
    "You are a helpful agent.",
    [TASK],
)
TOOLS = WORLD.tool_schemas()


class User:
    """Opens with a request; answers the first text reply, stops at the second."""

    def __init__(self) -> None:
        self.replies = 0

    async def first_message(self) -> str:
        return "Please change my address to 2 Oak Ave. I am u1."

    async def reply(self, ledger: Any) -> str:
        self.replies += 1
        return "Yes, go ahead." if self.replies == 1 else STOP


def fake_address() -> Injection:
    return RewriteHook(
        hook_id="fake-address",
        match=lambda name, args, state: name == "get_user_details",
        rewrite=lambda obs, args, state: obs.replace("1 Main St", "9 Fake Rd"),
    )


def run_with(server: OpenAIServer, strategy: str, constrain: bool):
    config = OpenAIAgentConfig(base_url=server.base_url, model="m", timeout=5, max_retries=0)
    factory = openai_agent_factory(config, strategy, constrain)
    context = RunContext(WORLD, TASK, WORLD.policy, TOOLS, seed=1, repetition=0)
    agent = factory(context)

    async def go():
        try:
            return await run_episode(
                WORLD,
                TASK,
                agent,
                User(),
                system_prompt=WORLD.policy,
                injections=[fake_address()],
                max_steps=12,
            )
        finally:
            await factory.aclose()

    return asyncio.run(go()), agent


# ---- parsing --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "reply",
    [
        '{"name": "get_user_details", "arguments": {"user_id": "u1"}}',
        'Action:\n```json\n{"name": "get_user_details", "arguments": {"user_id": "u1"}}\n```',
        'Sure! I will look it up. {"name": "get_user_details", "arguments": {"user_id": "u1"}} ok',
        '```\n{"name": "get_user_details", "arguments": {"user_id": "u1"}}\n```\n{"x": 1}',
    ],
)
def test_an_action_is_found_through_fences_and_surrounding_text(reply):
    assert parse_action(reply) == ParsedAction("get_user_details", {"user_id": "u1"})


def test_react_thought_is_read_from_the_object_or_the_text_before_action():
    inline = parse_action(
        '{"thought": "I need the profile.", "name": "get_user_details", "arguments": {}}',
        with_thought=True,
    )
    assert inline == ParsedAction("get_user_details", {}, "I need the profile.")
    labelled = parse_action(
        'Thought: look the user up first\nAction: {"name": "get_user_details", "arguments": {}}',
        with_thought=True,
    )
    assert labelled.thought == "look the user up first"


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("", "empty"),
        ("I will update your address now.", "no JSON object"),
        ('{"tool": "get_user_details", "args": {}}', '"name"'),
        ('{"name": "get_user_details", "arguments": "u1"}', '"arguments"'),
        ('{"name": "get_user_details", "arguments": {"user_id": "u1"', "no JSON object"),
    ],
)
def test_replies_without_a_well_formed_action_are_unparsable(reply, reason):
    parsed = parse_action(reply)
    assert isinstance(parsed, Unparsable) and reason in parsed.reason


# ---- the schema -----------------------------------------------------------------------
def test_action_schema_is_one_of_the_tools_and_respond():
    schema = action_schema(TOOLS)
    names = [b["properties"]["name"]["const"] for b in schema["oneOf"]]
    assert names == ["get_user_details", "update_address", "respond"]
    update = schema["oneOf"][1]["properties"]["arguments"]
    assert update == TOOLS[1]["function"]["parameters"]
    react = action_schema(TOOLS, with_thought=True)["oneOf"][0]
    assert next(iter(react["properties"])) == "thought" and react["required"][0] == "thought"
    assert response_format(TOOLS)["json_schema"]["schema"] == schema


# ---- turns and the ledger -------------------------------------------------------------
def test_act_episode_records_actions_as_calls_and_respond_as_messages():
    replies = sequence(
        text('```json\n{"name": "get_user_details", "arguments": {"user_id": "u1"}}\n```'),
        text("I think I should update it now."),  # unparsable: a tool error, counted
        text('{"name": "respond", "arguments": {"content": "Your address is 9 Fake Rd. Change?"}}'),
        text('{"name": "update_address", "arguments": {"user_id": "u1", "address": "2 Oak Ave"}}'),
        text('{"name": "respond", "arguments": {"content": "Done."}}'),
    )
    with OpenAIServer(replies) as server:
        result, agent = run_with(server, "act", constrain=True)
        requests = server.requests
    assert result.end is not None and result.end.status == "completed"
    assert result.end.reward == 1.0 and result.triggered
    kinds = [type(e).__name__ for e in result.ledger]
    assert kinds == [
        "SystemEvent", "UserEvent",
        "AssistantEvent", "ToolEvent",  # get_user_details (rewritten by the fault)
        "AssistantEvent", "ToolEvent",  # the unparsable reply and its tool error
        "AssistantEvent", "UserEvent",  # respond
        "AssistantEvent", "ToolEvent",  # update_address
        "AssistantEvent", "UserEvent",  # respond, and the user stops
    ]  # fmt: skip
    read, bad = result.ledger[2], result.ledger[4]
    assert read.tool_calls[0].name == "get_user_details" and read.content is None
    assert json.loads(read.tool_calls[0].arguments) == {"user_id": "u1"}
    assert "9 Fake Rd" in result.ledger[3].content
    assert bad.tool_calls[0].name == UNPARSABLE_ACTION
    assert bad.tool_calls[0].arguments == "I think I should update it now."
    assert result.ledger[5].content == UNPARSABLE_OBSERVATION  # nothing executed
    assert result.ledger[6].content == "Your address is 9 Fake Rd. Change?"
    assert not result.ledger[6].tool_calls
    assert agent.usage["actions"] == 5 and agent.usage["unparsable_actions"] == 1

    first, last = requests[0], requests[-1]
    assert "tools" not in first and "tool_choice" not in first
    assert first["response_format"]["type"] == "json_schema"
    system = first["messages"][0]
    assert system["role"] == "system" and system["content"].startswith("You are a helpful agent.")
    assert '"name":"update_address"' in system["content"] and '"respond"' in system["content"]
    roles = [m["role"] for m in last["messages"]]
    assert "tool" not in roles and roles[:3] == ["system", "user", "assistant"]
    observation = last["messages"][3]["content"]
    assert observation.startswith("API output: ") and "9 Fake Rd" in observation
    assert last["messages"][4]["content"] == "I think I should update it now."  # as written


def test_react_keeps_the_thought_as_the_assistant_text():
    replies = sequence(
        text(
            '{"thought": "Read first.", "name": "get_user_details", "arguments": {"user_id": "u1"}}'
        ),
        text('{"thought": "Tell them.", "name": "respond", "arguments": {"content": "Hi"}}'),
        text('{"thought": "", "name": "respond", "arguments": {"content": "Bye"}}'),
    )
    with OpenAIServer(replies) as server:
        result, _ = run_with(server, "react", constrain=False)
        requests = server.requests
    call = result.ledger[2]
    assert isinstance(call, AssistantEvent) and call.content == "Read first."
    assert call.tool_calls[0].name == "get_user_details"
    assert result.ledger[4].content == "Hi"
    assert "response_format" not in requests[0]
    shown = json.loads(requests[1]["messages"][2]["content"])
    assert shown == {"thought": "Read first.", "name": "get_user_details",
                     "arguments": {"user_id": "u1"}}  # fmt: skip


def test_ledger_renders_deterministically_for_each_strategy():
    ledger = [
        SystemEvent(step=0, content="Policy."),
        UserEvent(step=1, content="Hi"),
        AssistantEvent(
            step=2,
            content=None,
            tool_calls=(ToolCall(id="c1", name="get_user_details", arguments="{}"),),
        ),
        ToolEvent(step=3, tool_call_id="c1", name="get_user_details", content="{}"),
    ]
    act = action_messages(ledger, "act", TOOLS)
    assert act == action_messages(ledger, "act", TOOLS)
    assert act[2] == {
        "role": "assistant",
        "content": '{"name": "get_user_details", "arguments": {}}',
    }
    turn, parsed = action_turn(
        '{"name": "respond", "arguments": {"content": "Hello"}}', "act", ledger
    )
    assert turn.content == "Hello" and not turn.tool_calls and parsed.name == "respond"
    turn, _ = action_turn('{"name": "get_user_details", "arguments": {}}', "act", ledger)
    assert turn.tool_calls[0].id not in {"c1"}


# ---- configuration --------------------------------------------------------------------
AGENT = """
[[agents]]
id = "a"
kind = "{kind}"
{extra}
[agents.endpoint]
base_url = "http://127.0.0.1:9/v1"
model = "m"
"""


def _config(kind: str = "openai", extra: str = "", profile: str = ""):
    body = AGENT.format(kind=kind, extra=extra + profile)
    return parse_config(body if kind == "openai" else body.split("[agents.endpoint]")[0], "s.toml")


def test_strategy_fields_are_validated_naming_file_and_field():
    config = _config(extra='strategy = "act"\nconstrain = true\nqualify = "completed"\n')
    agent = config.agents[0]
    assert (agent.strategy, agent.constrain, agent.qualify) == ("act", True, "completed")
    with pytest.raises(DataError, match=r"s\.toml.*agents\[0\]\.strategy"):
        _config(extra='strategy = "chain"\n')
    with pytest.raises(DataError, match="needs strategy 'act' or 'react'"):
        _config(extra="constrain = true\n")
    with pytest.raises(DataError, match="belong to an agent of kind 'openai'"):
        _config("scripted", 'strategy = "act"\n', 'profile = "trusting"\n')


def test_new_fields_at_their_defaults_leave_the_config_hash_unchanged():
    plain = _config()
    canonical = json.loads(plain.canonical_json())
    assert not {"strategy", "constrain", "qualify"} & set(canonical["agents"][0])
    assert "prefer" not in canonical["cases"]
    assert _config(extra='strategy = "act"\n').config_hash() != plain.config_hash()


def test_the_read_first_example_uses_a_read_tool_the_world_has():
    from sscbench.agents.strategies import action_instructions
    from sscbench.world.load import load_world

    airline = action_instructions("act", load_world("generated", "airline", None, 0).tool_schemas())
    retail = action_instructions("act", load_world("generated", "retail", None, 0).tool_schemas())
    assert (
        '{"name": "get_reservation_details", "arguments": {"reservation_id": "ABC123"}}' in airline
    )
    assert '"get_order_details", "arguments": {"order_id"' in retail
    assert "get_reservation_details" not in retail
    assert "Example:" not in action_instructions("act", TOOLS)  # no such read tool here


def test_the_worked_exchange_comes_before_the_conversation_with_made_up_ids():
    from sscbench.agents.demo import demo_messages
    from sscbench.agents.strategies import action_messages
    from sscbench.core.ledger import SystemEvent, UserEvent
    from sscbench.world.load import load_world

    airline = load_world("generated", "airline", None, 0)
    events = [SystemEvent(step=0, content="policy"), UserEvent(step=1, content="Hi! real")]
    messages = action_messages(events, "act", airline.tool_schemas())
    demo = demo_messages(airline.tool_schemas(), react=False)
    assert messages[1 : 1 + len(demo)] == demo and messages[-1]["content"] == "Hi! real"
    replies = [json.loads(m["content"]) for m in demo if m["role"] == "assistant"]
    names = [reply["name"] for reply in replies]
    # the policy's order: ask for the user id, read the user, then the reservation, then write
    assert names[:2] == ["respond", "get_user_details"]
    assert "user id" in replies[0]["arguments"]["content"]
    assert demo[2] == {"role": "user", "content": "My user id is jane_doe_1."}
    assert names.index("get_reservation_details") < names.index("update_reservation_flights")
    write = replies[names.index("update_reservation_flights")]["arguments"]
    assert (
        write["reservation_id"] == "ABC123" and "ABC123" not in airline.base.tables["reservations"]
    )
    assert "jane_doe_1" not in airline.base.tables["users"]
    react = demo_messages(airline.tool_schemas(), react=True)
    assert '"thought"' in react[1]["content"]
    assert demo_messages(TOOLS, react=False) == []  # a world without the exchanges' tools


def test_the_retail_worked_exchange_follows_the_retail_policy_with_made_up_ids():
    """Retail: ask for the email, find the user id by it, read the order the user named
    (its first read), ask for a yes, write with the ids the order record returned."""
    from sscbench.agents.demo import demo_messages
    from sscbench.world.load import load_world

    retail = load_world("generated", "retail", None, 0)
    demo = demo_messages(retail.tool_schemas(), react=False)
    replies = [json.loads(m["content"]) for m in demo if m["role"] == "assistant"]
    names = [reply["name"] for reply in replies]
    assert names[:4] == ["respond", "find_user_id_by_email", "respond", "get_order_details"]
    assert "email" in replies[0]["arguments"]["content"]
    assert names.index("get_order_details") < names.index("return_delivered_order_items")
    assert "get_reservation_details" not in names
    order = replies[names.index("get_order_details")]["arguments"]["order_id"]
    assert order in demo[0]["content"] and order not in retail.base.tables["orders"]
    record = json.loads(demo[2 * names.index("get_order_details") + 2]["content"][12:])
    write = replies[names.index("return_delivered_order_items")]["arguments"]
    assert write["item_ids"] == [item["item_id"] for item in record["items"]]
    assert write["payment_method_id"] == record["payment_history"][0]["payment_method_id"]
    assert demo[4]["content"] == "API output: jane_doe_1"  # a plain string as the tool returns it
    assert "jane_doe_1" not in retail.base.tables["users"]
    assert demo[-1]["content"].startswith("That was an example with made-up ids.")
