"""The OpenAI-compatible agent and LLM user against the local scripted server."""

from __future__ import annotations

import asyncio
import json
import random
import threading
from typing import Any

import openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sscbench.agents.openai_agent import (
    OpenAIAgent,
    OpenAIAgentConfig,
    openai_agent_factory,
    to_agent_turn,
)
from sscbench.core.agent import Agent, RunContext
from sscbench.core.injection import Injection, RewriteHook
from sscbench.core.ledger import (
    AssistantEvent,
    HarnessError,
    InterventionRecord,
    ToolCall,
    ToolEvent,
    UserEvent,
)
from sscbench.core.user import STOP, User
from sscbench.errors import HarnessFailure
from sscbench.llm.failures import backoff_delay
from sscbench.llm.retry import with_retries
from sscbench.llm.secrets import PLACEHOLDER_KEY
from sscbench.run.episode import EpisodeResult, run_episode
from sscbench.testing import Drop, Fail, OpenAIServer, reply, sequence, text, tool_call
from sscbench.users.llm import (
    AGENT_GREETING,
    LLMUser,
    LLMUserConfig,
    llm_user_factory,
    user_messages,
)
from sscbench.world.state import BaseData
from sscbench.world.task import Action, Task
from sscbench.world.tools import ToolKind, ToolRegistry
from sscbench.world.world import World

KEY_MARKER = "sk-test-MARKER-7f3a9c"

# ---- a tiny world -------------------------------------------------------------------
REG = ToolRegistry("mini")


@REG.tool(ToolKind.READ, "Read a user.", {"user_id": {"type": "string"}})
def get_user_details(db, user_id: str) -> str:
    user = db.get("users", user_id)
    if user is None:
        return "Error: user not found"
    return json.dumps(user)


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
    instruction="You are Ada (user id u1). You moved to 2 Oak Ave and want your address updated.",
    actions=(Action(name="update_address", kwargs={"user_id": "u1", "address": "2 Oak Ave"}),),
)
WORLD = World(
    "mini",
    "mini",
    "test",
    BaseData({"users": {"u1": {"name": "Ada", "address": "1 Main St"}}}),
    REG,
    "You are a helpful agent. Follow the policy.",
    [TASK],
)
FAKE_ADDRESS = "9 Fake Rd"


def fake_address() -> Injection:
    """Rewrite the first read of u1 to claim a different current address."""
    return RewriteHook(
        hook_id="fake-address",
        match=lambda name, args, state: name == "get_user_details",
        rewrite=lambda obs, args, state: obs.replace("1 Main St", FAKE_ADDRESS),
    )


class ScriptedUser:
    """Opens with a request and stops at the agent's first text reply."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    async def first_message(self) -> str:
        return "Please change my address to 2 Oak Ave. I am u1."

    async def reply(self, ledger: Any) -> str:
        self.seen.append(ledger[-1].content)
        return STOP


# ---- helpers ------------------------------------------------------------------------
@pytest.fixture
def server():
    with OpenAIServer() as srv:
        yield srv


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY_MARKER)


def agent_config(server: OpenAIServer, **overrides: Any) -> OpenAIAgentConfig:
    fields: dict[str, Any] = {
        "base_url": server.base_url,
        "model": "agent-model",
        "backoff_initial": 0.01,
        "backoff_max": 0.02,
        "timeout": 5.0,
    }
    fields.update(overrides)
    return OpenAIAgentConfig(**fields)


def context(seed: int = 7) -> RunContext:
    return RunContext(
        world=WORLD,
        task=TASK,
        system_prompt=WORLD.policy,
        tools=WORLD.tool_schemas(),
        seed=seed,
        repetition=0,
    )


def run(agent: Agent, user: User | None = None, *, faulted: bool = True) -> EpisodeResult:
    async def go() -> EpisodeResult:
        result = await run_episode(
            WORLD,
            TASK,
            agent,
            user or ScriptedUser(),
            system_prompt=WORLD.policy,
            injections=[fake_address()] if faulted else [],
            max_steps=6,
        )
        for party in (agent, user):
            if hasattr(party, "aclose"):
                await party.aclose()
        return result

    return asyncio.run(go())


def dumps(result: EpisodeResult) -> str:
    events = [*result.ledger, *result.evaluator]
    if result.end is not None:
        events.append(result.end)
    return "\n".join(e.model_dump_json() for e in events)


SOLVE = (
    tool_call("get_user_details", {"user_id": "u1"}),
    tool_call("update_address", {"user_id": "u1", "address": "2 Oak Ave"}),
    text("Done: your address is now 2 Oak Ave."),
)


# ---- the agent through a faulted episode -------------------------------------------
def test_faulted_episode_round_trips_tools_and_delivered_observation(server):
    server.responder = sequence(*SOLVE)
    agent = openai_agent_factory(agent_config(server))(context(seed=11))
    result = run(agent)

    assert result.end is not None
    assert result.end.status == "completed"
    assert result.end.termination == "user_stop"
    assert result.end.reward == 1.0
    assert result.triggered

    first, second, third = server.requests
    assert [t["function"]["name"] for t in first["tools"]] == [
        "get_user_details",
        "update_address",
    ]
    assert first["tool_choice"] == "auto"
    assert first["seed"] == 11
    assert first["model"] == "agent-model"
    assert first["messages"][0] == {"role": "system", "content": WORLD.policy}
    assert first["messages"][1]["role"] == "user"

    # the next prompt carries the call and the observation as delivered (rewritten)
    record = next(e for e in result.evaluator if isinstance(e, InterventionRecord))
    assert FAKE_ADDRESS in record.delivered_observation
    assert "1 Main St" in record.original_observation
    call_message, tool_message = second["messages"][-2:]
    assert call_message["role"] == "assistant"
    call_id = call_message["tool_calls"][0]["id"]
    assert tool_message == {
        "role": "tool",
        "tool_call_id": call_id,
        "name": "get_user_details",
        "content": record.delivered_observation,
    }
    assert "1 Main St" not in json.dumps(second["messages"])
    assert third["messages"][-1]["role"] == "tool"
    assert "2 Oak Ave" in third["messages"][-1]["content"]

    ledger_calls = [c for e in result.ledger if isinstance(e, AssistantEvent) for c in e.tool_calls]
    assert ledger_calls[0].id == call_id
    assert json.loads(ledger_calls[1].arguments) == {"user_id": "u1", "address": "2 Oak Ave"}
    assert agent.usage["requests"] == 3
    assert agent.usage["retries"] == 0
    assert agent.usage["prompt_tokens"] > 0
    assert agent.usage["total_tokens"] == (
        agent.usage["prompt_tokens"] + agent.usage["completion_tokens"]
    )
    assert agent.calibration() is None


def test_transport_errors_are_retried_and_the_run_completes(server):
    server.responder = sequence(Fail(500), Drop(), Fail(429), *SOLVE)
    agent = OpenAIAgent(agent_config(server), WORLD.tool_schemas(), seed=3)
    result = run(agent)

    assert result.end is not None
    assert result.end.status == "completed"
    assert result.end.reward == 1.0
    assert not [e for e in result.evaluator if isinstance(e, HarnessError)]
    assert agent.usage["retries"] == 3
    assert agent.usage["requests"] == 3
    assert len(server.requests) == 6
    # the retried request is the same request
    assert server.requests[0] == server.requests[3]


def test_persistent_failure_makes_the_run_missing(server):
    server.responder = lambda body: Fail(503, "overloaded")
    agent = OpenAIAgent(agent_config(server, max_retries=2), WORLD.tool_schemas())
    result = run(agent)

    assert result.end is not None
    assert result.end.status == "missing"
    assert result.end.termination == "harness_error"
    assert result.end.reward is None
    assert result.end.state_matches is None
    errors = [e for e in result.evaluator if isinstance(e, HarnessError)]
    assert len(errors) == 1
    assert errors[0].where == "agent"
    assert "after 3 attempts" in errors[0].message
    assert "503" in errors[0].message
    assert len(server.requests) == 3
    assert not [e for e in result.ledger if isinstance(e, AssistantEvent)]


def test_timeouts_are_retried_then_fail(server):
    server.delay = 0.3
    agent = OpenAIAgent(agent_config(server, timeout=0.05, max_retries=1), WORLD.tool_schemas())
    result = run(agent)
    assert result.end is not None and result.end.status == "missing"
    error = next(e for e in result.evaluator if isinstance(e, HarnessError))
    assert "after 2 attempts" in error.message
    assert "Timeout" in error.message
    assert agent.usage["retries"] == 1


def test_non_retryable_error_fails_at_once(server):
    server.responder = lambda body: Fail(404, "no such model")
    agent = OpenAIAgent(agent_config(server), WORLD.tool_schemas())
    result = run(agent)

    assert result.end is not None
    assert result.end.status == "missing"
    errors = [e for e in result.evaluator if isinstance(e, HarnessError)]
    assert "after 1 attempt (not retryable)" in errors[0].message
    assert len(server.requests) == 1


def test_malformed_tool_arguments_become_an_observation_and_the_run_continues(server):
    broken = '{"user_id": "u1"'
    server.responder = sequence(tool_call("get_user_details", broken), *SOLVE)
    agent = OpenAIAgent(agent_config(server), WORLD.tool_schemas())
    result = run(agent, faulted=False)

    assert result.end is not None
    assert result.end.status == "completed"
    assert result.end.reward == 1.0
    first_call = next(e for e in result.ledger if isinstance(e, AssistantEvent)).tool_calls[0]
    assert first_call.arguments == broken  # kept exactly as emitted
    observation = next(e for e in result.ledger if isinstance(e, ToolEvent))
    assert observation.content.startswith("Error: arguments are not valid JSON")
    # the agent saw the error in its next prompt, with the raw arguments echoed back
    second = server.requests[1]["messages"]
    assert second[-2]["tool_calls"][0]["function"]["arguments"] == broken
    assert second[-1]["content"] == observation.content


def test_api_key_never_reaches_ledger_or_evaluator_log(server):
    server.responder = sequence(*SOLVE)
    config = agent_config(server)
    result = run(OpenAIAgent(config, WORLD.tool_schemas()))
    assert result.end is not None and result.end.status == "completed"
    # the key was read from the environment and sent ...
    assert all(r.headers["authorization"] == f"Bearer {KEY_MARKER}" for r in server.log)
    # ... but is in no record and no config dump
    assert KEY_MARKER not in dumps(result)
    assert KEY_MARKER not in config.model_dump_json()
    assert KEY_MARKER not in repr(OpenAIAgent(config, []).__dict__)

    # an endpoint that echoes the key in its error text: masked in the harness error
    def echo_key(body: dict[str, Any]) -> Fail:
        key = server.log[-1].headers["authorization"]
        return Fail(401, f"Incorrect API key provided: {key}")

    server.responder = echo_key
    failed = run(OpenAIAgent(config, WORLD.tool_schemas()))
    assert failed.end is not None and failed.end.status == "missing"
    message = next(e for e in failed.evaluator if isinstance(e, HarnessError)).message
    assert "***" in message
    assert KEY_MARKER not in dumps(failed)


def test_unset_key_variable_sends_a_placeholder(server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server.responder = sequence(*SOLVE)
    result = run(OpenAIAgent(agent_config(server), WORLD.tool_schemas()))
    assert result.end is not None and result.end.status == "completed"
    assert server.log[0].headers["authorization"] == f"Bearer {PLACEHOLDER_KEY}"


def test_missing_and_reused_ids_get_deterministic_ids(server):
    def raw(calls: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": None, "tool_calls": calls},
                    "finish_reason": "tool_calls",
                }
            ],
        }

    fn = {"name": "get_user_details", "arguments": '{"user_id": "u1"}'}
    server.responder = sequence(
        raw([{"type": "function", "function": fn}]),  # no id
        raw([{"id": "call_2_0", "type": "function", "function": fn}]),  # reused id
        text("ok"),
    )
    agent = OpenAIAgent(agent_config(server), WORLD.tool_schemas())
    result = run(agent, faulted=False)
    assert result.end is not None and result.end.status == "completed"
    calls = [c for e in result.ledger if isinstance(e, AssistantEvent) for c in e.tool_calls]
    assert [c.id for c in calls] == ["call_2_0", "call_4_0"]
    tool_ids = [e.tool_call_id for e in result.ledger if isinstance(e, ToolEvent)]
    assert tool_ids == ["call_2_0", "call_4_0"]
    assert agent.usage["requests"] == 3


def test_empty_reply_becomes_empty_text_the_user_answers(server):
    server.responder = sequence(reply(None))
    user = ScriptedUser()
    result = run(OpenAIAgent(agent_config(server), WORLD.tool_schemas()), user)
    assert result.end is not None and result.end.status == "completed"
    turn = next(e for e in result.ledger if isinstance(e, AssistantEvent))
    assert turn.content == "" and turn.tool_calls == ()
    assert user.seen == [""]


def test_to_agent_turn_keeps_model_ids_and_object_arguments():
    class Obj:
        def __init__(self, **kw: Any) -> None:
            self.__dict__.update(kw)

    call = Obj(id="abc", function=Obj(name="f", arguments={"a": 1}))
    response = Obj(choices=[Obj(message=Obj(content="hi", tool_calls=[call]))])
    turn = to_agent_turn(response, [])
    assert turn.content == "hi"
    assert turn.tool_calls[0].id == "abc"
    assert json.loads(turn.tool_calls[0].arguments) == {"a": 1}
    with pytest.raises(HarnessFailure):
        to_agent_turn(Obj(choices=[]), [])


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(st.one_of(st.none(), st.sampled_from(["", "a", "b", "call_3_0"])), st.text()),
        max_size=5,
    )
)
def test_to_agent_turn_ids_are_unique_and_arguments_raw(calls):
    class Obj:
        def __init__(self, **kw: Any) -> None:
            self.__dict__.update(kw)

    previous = AssistantEvent(step=0, tool_calls=(ToolCall(id="a", name="f", arguments="{}"),))
    raw = [Obj(id=i, function=Obj(name="f", arguments=args)) for i, args in calls]
    response = Obj(choices=[Obj(message=Obj(content=None, tool_calls=raw))])
    turn = to_agent_turn(response, [previous] * 3)
    ids = [c.id for c in turn.tool_calls]
    assert len(set(ids)) == len(ids) and "a" not in ids
    assert [c.arguments for c in turn.tool_calls] == [args for _, args in calls]
    given_ids = [i for i, _ in calls]
    if "b" in given_ids:  # a fresh model id is kept (its first use)
        assert ids[given_ids.index("b")] == "b"
    assert turn.content == ("" if not calls else None)


def test_factory_seed_and_tool_choice(server):
    server.responder = sequence(text("hello"))
    factory = openai_agent_factory(agent_config(server, seed=99, tool_choice="required"))
    agent = factory(context(seed=5))
    assert isinstance(agent, Agent)
    run(agent, faulted=False)
    assert server.requests[0]["seed"] == 99
    assert server.requests[0]["tool_choice"] == "required"


# ---- retries -----------------------------------------------------------------------
def test_backoff_is_seeded_capped_and_jittered():
    a = [backoff_delay(k, 1.0, 5.0, random.Random(1)) for k in range(6)]
    b = [backoff_delay(k, 1.0, 5.0, random.Random(1)) for k in range(6)]
    assert a == b
    for k, delay in enumerate(a):
        base = min(5.0, 2.0**k)
        assert base / 2 <= delay < base


def test_with_retries_sleeps_between_attempts_and_reports_the_count():
    try:  # the transport library of the installed openai client
        import httpx2 as httpx
    except ImportError:
        import httpx
    request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
    attempts: list[int] = []
    sleeps: list[float] = []

    async def failing() -> None:
        attempts.append(1)
        raise openai.APIConnectionError(request=request)

    async def fake_sleep(seconds: float) -> None:
        sleeps.append(seconds)

    with pytest.raises(HarnessFailure) as info:
        asyncio.run(
            with_retries(
                failing,
                where="agent",
                what="completion",
                max_retries=3,
                backoff_initial=1.0,
                backoff_max=1.5,
                rng=random.Random(0),
                sleep=fake_sleep,
            )
        )
    assert len(attempts) == 4
    assert len(sleeps) == 3 and all(0 < s <= 1.5 for s in sleeps)
    assert info.value.where == "agent"
    assert "completion failed after 4 attempts" in info.value.message


# ---- the LLM user ------------------------------------------------------------------
def test_llm_user_round_trip_with_llm_agent(server):
    user_lines = sequence("I'd like to update my address.", STOP)

    def respond(body: dict[str, Any]) -> Any:
        if body["model"] == "user-model":
            return text(user_lines(body))
        return text("Sure, what is your user id?")

    server.responder = respond
    agent = OpenAIAgent(agent_config(server), WORLD.tool_schemas())
    user_config = LLMUserConfig(
        base_url=server.base_url, model="user-model", backoff_initial=0.01, timeout=5.0
    )
    user = llm_user_factory(user_config)(context(seed=4))
    assert isinstance(user, LLMUser)
    result = run(agent, user, faulted=False)

    assert result.end is not None
    assert result.end.status == "completed"
    assert result.end.termination == "user_stop"
    assert [e.content for e in result.ledger if isinstance(e, UserEvent)] == [
        "I'd like to update my address.",
        STOP,
    ]
    user_requests = [r for r in server.requests if r["model"] == "user-model"]
    assert len(user_requests) == 2
    opening, answer = (r["messages"] for r in user_requests)
    assert opening[0]["role"] == "system"
    assert TASK.instruction in opening[0]["content"]
    assert STOP in opening[0]["content"]
    assert opening[1:] == [{"role": "user", "content": AGENT_GREETING}]
    # roles from the user's side: its own message is "assistant", the agent's is "user"
    assert answer[1:] == [
        {"role": "user", "content": AGENT_GREETING},
        {"role": "assistant", "content": "I'd like to update my address."},
        {"role": "user", "content": "Sure, what is your user id?"},
    ]
    assert user_requests[0]["seed"] == 4
    assert user.usage["requests"] == 2
    assert KEY_MARKER not in dumps(result)


def test_user_history_skips_tool_turns():
    from sscbench.core.ledger import SystemEvent

    ledger = [
        SystemEvent(step=0, content="policy"),
        UserEvent(step=1, content="hi"),
        AssistantEvent(
            step=2, content="checking", tool_calls=(ToolCall(id="c", name="f", arguments="{}"),)
        ),
        ToolEvent(step=3, tool_call_id="c", name="f", content="secret observation"),
        AssistantEvent(step=4, content=None),
    ]
    messages = user_messages("do x", ledger)
    assert messages[1:] == [
        {"role": "user", "content": AGENT_GREETING},
        {"role": "assistant", "content": "hi"},
        {"role": "user", "content": ""},
    ]
    assert "policy" not in json.dumps(messages)


def test_llm_user_failure_is_a_harness_failure(server):
    def respond(body: dict[str, Any]) -> Any:
        return Fail(500) if body["model"] == "user-model" else text("hello")

    server.responder = respond
    user = LLMUser(
        LLMUserConfig(
            base_url=server.base_url, model="user-model", max_retries=1, backoff_initial=0.01
        ),
        TASK.instruction,
    )
    result = run(OpenAIAgent(agent_config(server), WORLD.tool_schemas()), user)
    assert result.end is not None and result.end.status == "missing"
    error = next(e for e in result.evaluator if isinstance(e, HarnessError))
    assert error.where == "user"
    assert "after 2 attempts" in error.message


# ---- the server --------------------------------------------------------------------
def test_server_answers_sixteen_concurrent_requests_in_parallel():
    barrier = threading.Barrier(16, timeout=5)

    def respond(body: dict[str, Any]) -> Any:
        barrier.wait()  # raises (-> HTTP 500) unless all 16 are being handled at once
        return text("ok")

    async def go(server: OpenAIServer) -> list[str]:
        client = openai.AsyncOpenAI(base_url=server.base_url, api_key="k", max_retries=0)
        try:
            replies = await asyncio.gather(
                *(
                    client.chat.completions.create(
                        model="m", messages=[{"role": "user", "content": str(i)}]
                    )
                    for i in range(16)
                )
            )
        finally:
            await client.close()
        return [r.choices[0].message.content for r in replies]

    with OpenAIServer(respond, delay=0.01) as server:
        assert asyncio.run(go(server)) == ["ok"] * 16
        assert len(server.requests) == 16
