"""The study's chat transport: one keep-alive pool per endpoint per loop, sized by the
endpoint's concurrency, answering and failing exactly as the SDK client does."""

from __future__ import annotations

import asyncio
import socket

import openai
import pytest

from sscbench.llm.completion import chat_completion
from sscbench.llm.endpoint import EndpointConfig
from sscbench.llm.failures import CONNECT_FAILED, failure_kind
from sscbench.llm.limiter import DEFAULT_CEILING
from sscbench.llm.retry import ClientHolder, make_client
from sscbench.llm.transport import CappedTransport, ChatTransport, build_completion, pool_size
from sscbench.testing import Drop, Fail, OpenAIServer, text, tool_call
from sscbench.testing.delay_server import DelayServer
from sscbench.testing.replies import completion

MALFORMED = {"choices": [{"index": 0, "message": {"role": "assistant", "content": None,
    "tool_calls": [{"id": "c", "type": "function",
                    "function": {"name": "f", "arguments": {"a": 1}}}]}}]}  # fmt: skip
BODY = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


def config(url: str = "http://127.0.0.1:9/v1", **fields) -> EndpointConfig:
    return EndpointConfig(base_url=url, model="m", max_retries=0, **fields)


def test_the_pools_follow_the_endpoint_s_concurrency():
    assert pool_size(config(max_concurrent=300)) == 300
    assert pool_size(config()) == DEFAULT_CEILING  # the limiter's ceiling: never below it
    transport = make_client(config(max_concurrent=300))._client._transport
    assert isinstance(transport, CappedTransport)  # no body read past max_response_bytes
    pool = transport._inner._pool
    # every connection the SDK client may open is kept alive (httpx keeps 20 by default)
    assert (pool._max_connections, pool._max_keepalive_connections) == (300, 300)

    async def session_limit() -> int:
        holder = ClientHolder(config(max_concurrent=300))
        transport = holder.get()
        assert holder.get() is transport  # one transport per endpoint per loop
        limit = transport.session().connector.limit
        await holder.aclose()
        return limit

    assert asyncio.run(session_limit()) == 300


async def _both(url: str, body: dict) -> tuple[object, object]:
    """The same request through the SDK client and through the transport."""
    client = make_client(config(url))
    transport = ChatTransport(make_client(config(url)), 4)
    try:
        return await chat_completion(client, body), await chat_completion(transport, body)
    finally:
        await client.close()
        await transport.aclose()


@pytest.mark.filterwarnings("ignore::UserWarning")  # pydantic on the malformed arguments
@pytest.mark.parametrize(
    "answer",
    [
        text("Done."),
        tool_call("get_user_details", {"user_id": "mia_li_3668"}),
        # malformed: arguments as an object, no usage: built leniently, as the SDK builds it
        MALFORMED,
    ],
)
def test_an_answer_reads_as_the_sdk_reads_it(answer):
    body = answer if "choices" in answer else completion(BODY, answer, 1)  # one fixed body
    with OpenAIServer(lambda _: body) as server:
        sdk, ours = asyncio.run(_both(server.base_url, BODY))
        headers = [r.headers for r in server.log]
    assert type(ours) is type(sdk)
    assert ours == sdk
    # the request carries the SDK client's key and identity
    assert headers[1]["authorization"] == headers[0]["authorization"]
    assert headers[1]["user-agent"] == headers[0]["user-agent"]


def test_a_strict_body_and_a_coerced_one_are_built_as_the_sdk_builds_them():
    good = {"id": "x", "object": "chat.completion", "created": 1, "model": "m", "choices": [
        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "a"}}],
        "usage": {"prompt_tokens": "12", "completion_tokens": 1, "total_tokens": 13}}  # fmt: skip
    from openai._models import construct_type
    from openai.types.chat import ChatCompletion

    assert build_completion(good) == construct_type(type_=ChatCompletion, value=good)


def _raised(url: str) -> BaseException:
    async def go() -> BaseException:
        transport = ChatTransport(make_client(config(url)), 4)
        try:
            await chat_completion(transport, BODY)
        except BaseException as exc:
            return exc
        finally:
            await transport.aclose()
        raise AssertionError("no failure")

    return asyncio.run(go())


def test_failures_are_the_sdk_s_exceptions():
    with OpenAIServer(lambda body: Fail(429, "slow down", {"Retry-After": "7"})) as server:
        limited = _raised(server.base_url)
    assert isinstance(limited, openai.RateLimitError)
    assert limited.response.headers["retry-after"] == "7" and "slow down" in str(limited)
    with OpenAIServer(lambda body: Fail(500, "boom")) as server:
        assert isinstance(_raised(server.base_url), openai.InternalServerError)
    with OpenAIServer(lambda body: Drop()) as server:
        dropped = _raised(server.base_url)
    assert isinstance(dropped, openai.APIConnectionError) and failure_kind(dropped) == (
        "connection lost"
    )
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    refused = _raised(f"http://127.0.0.1:{port}/v1")
    assert isinstance(refused, openai.APIConnectionError)
    assert failure_kind(refused) == CONNECT_FAILED


def test_requests_reuse_kept_alive_connections():
    async def run(url: str) -> None:
        holder = ClientHolder(config(url, max_concurrent=8))

        async def worker() -> None:
            for _ in range(5):
                response = await chat_completion(holder.get(), BODY)
                assert response.choices[0].message.content == "OK"

        await asyncio.gather(*(worker() for _ in range(8)))
        await holder.aclose()

    with DelayServer(lambda body: {"content": "OK"}) as server:
        asyncio.run(run(server.base_url))
        assert server.answered == 40
        assert server.connections <= 8  # 40 requests, at most one connection per worker


def test_a_request_body_is_the_json_of_its_fields_with_the_tools_encoded_once():
    import json

    from sscbench.llm import transport as retry
    from sscbench.world.load import load_world

    tools = load_world("generated", "airline").tool_schemas()
    other = [{"type": "function", "function": {"name": "f\ud800", "parameters": {}}}]
    for body in (
        {"model": "m", "messages": [{"role": "user", "content": "x\ud800é"}], "tools": tools},
        {"model": "m", "tools": other, "tool_choice": "auto"},
        {"tools": tools},
        {"model": "m", "tools": []},
    ):
        sent = retry.request_bytes(body)
        assert json.loads(sent) == json.loads(retry.dumps_line(body))  # surrogates escaped
        assert sent.count(b'"tools":') == 1
    assert retry._TOOLS_JSON[id(tools)] == (tools, retry.dumps_line(tools))
    assert retry._TOOLS_JSON[id(other)][0] is other


def test_a_long_system_prompt_is_encoded_once_and_the_bytes_stay_the_same():
    import random

    from sscbench.jsonl import dumps_line
    from sscbench.llm import transport

    def reference(body: dict) -> bytes:  # the body's JSON, a non-empty tool list moved last
        tools = body.get("tools")
        if not isinstance(tools, list) or not tools:
            return dumps_line(body).encode("utf-8")
        rest = dumps_line({k: v for k, v in body.items() if k != "tools"})
        return f'{rest[:-1]}{"," if len(rest) > 2 else ""}"tools":{dumps_line(tools)}}}'.encode()

    policy = "# Policy\n" + "Be careful \u2028 é \ud800.\n" * 200
    tools = [{"type": "function", "function": {"name": "f", "parameters": {}}}]
    messages = [
        {"role": "system", "content": policy},
        {"role": "user", "content": "hi\u2029"},
        {"content": policy, "role": "system"},  # another key order: encoded as it is
        {"role": "system", "content": "short"},
        {"role": "system", "content": policy, "name": "x"},
        {"role": "system", "content": policy},
    ]
    rng = random.Random(7)
    for _ in range(200):
        chosen = [m for m in messages if rng.random() < 0.6]
        body = {"model": "m", "messages": chosen, "temperature": 0.0, "seed": 1}
        if rng.random() < 0.7:
            body["tools"] = tools if rng.random() < 0.8 else []
        keys = list(body)
        rng.shuffle(keys)
        body = {k: body[k] for k in keys}
        assert transport.request_bytes(body) == reference(body)
    assert transport._PROMPTS_JSON[policy] == dumps_line({"role": "system", "content": policy})
