"""Prompt rendering and reply parsing for small local chat models (pure; no llama_cpp).

The format is ChatML (``<|im_start|>role\\n...<|im_end|>``, the template SmolLM2 was
tuned on) with Hermes-style tool calling:

* the tools are listed as JSON schemas inside ``<tools></tools>`` in the system turn;
* the model calls a tool by writing ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``;
* an assistant turn's earlier calls are rendered back in that same form;
* tool results go back to the model as ``<tool_response>`` blocks in a ``user`` turn
  (ChatML has no tool role the model knows).

Text is copied into the prompt as it is: no template engine, no HTML escaping.

Parsing is tolerant because small models are messy: ``<tool_call>`` blocks (closed or
cut off), a bare JSON call, or a fenced ```json call all become standard OpenAI
``tool_calls``; a call whose JSON is broken keeps its name and its raw arguments text
(the agent loop turns that into an error observation the model sees); anything else is
plain text. :func:`call_grammar` wraps a JSON-schema grammar of the calls into a GBNF
grammar that forces (or, leniently, only shapes) the call format.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sscbench.json_types import JsonMapping, JsonObject
from sscbench.reading import loads_json

IM_START = "<|im_start|>"
IM_END = "<|im_end|>"
STOP_STRINGS = (IM_END, "<|endoftext|>")
"""Where a reply ends (SmolLM2's end-of-turn and end-of-text tokens)."""

TOOL_CALL_OPEN = "<tool_call>"
TOOL_CALL_CLOSE = "</tool_call>"
DEFAULT_SYSTEM = "You are a helpful assistant."

TOOLS_PREAMBLE = (
    "# Tools\n\n"
    "You may call one or more functions to assist with the user query.\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
)
TOOLS_INSTRUCTIONS = (
    "\n</tools>\n\n"
    "To call a function, reply with a JSON object holding the function name and its "
    "arguments within <tool_call></tool_call> XML tags:\n"
    "<tool_call>\n"
    '{"name": <function-name>, "arguments": <args-json-object>}\n'
    "</tool_call>\n"
    "Function results come back within <tool_response></tool_response> XML tags. "
    "To talk to the user, reply with plain text."
)


def text_of(content: object) -> str:
    """A message's text: ``None`` is empty, a list of parts keeps its text parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict):
                if part.get("type", "text") == "text":
                    parts.append(str(part.get("text") or ""))
            else:
                parts.append(str(part))
        return "".join(parts)
    return str(content)


def tools_block(tools: Sequence[JsonMapping]) -> str:
    """The system-prompt section listing the tools (one compact JSON schema per line)."""
    lines = [json.dumps(tool, ensure_ascii=False, separators=(",", ":")) for tool in tools]
    return TOOLS_PREAMBLE + "\n".join(lines) + TOOLS_INSTRUCTIONS


def render_call(name: str, arguments: object) -> str:
    """One call in the model's own ``<tool_call>`` form.

    Arguments that parse as JSON are embedded as an object; anything else is embedded
    verbatim, so the model sees exactly what it emitted, malformed or not.
    """
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    try:
        parsed = loads_json(raw) if raw.strip() else {}
    except ValueError:
        body = '{"name": ' + json.dumps(name, ensure_ascii=False) + ', "arguments": ' + raw + "}"
    else:
        body = json.dumps({"name": name, "arguments": parsed}, ensure_ascii=False)
    return f"{TOOL_CALL_OPEN}\n{body}\n{TOOL_CALL_CLOSE}"


def _turn(role: str, text: str) -> str:
    return f"{IM_START}{role}\n{text}{IM_END}\n"


def _objects(value: object) -> list[JsonObject]:
    """The JSON objects of a list (a message's ``tool_calls``); nothing from a non-list."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _function(call: JsonMapping) -> JsonMapping:
    """A tool call's ``function`` object (empty when it has none)."""
    function = call.get("function")
    return function if isinstance(function, dict) else {}


def _call_names(messages: Sequence[JsonMapping]) -> dict[str, str]:
    names: dict[str, str] = {}
    for message in messages:
        for call in _objects(message.get("tool_calls")):
            call_id = call.get("id")
            if call_id and isinstance(call_id, str):
                names[call_id] = str(_function(call).get("name") or "")
    return names


def _tool_response(message: JsonMapping, names: dict[str, str]) -> str:
    answered = message.get("tool_call_id")
    name = message.get("name") or names.get(answered if isinstance(answered, str) else "", "")
    header = f' name="{name}"' if name else ""
    return f"<tool_response{header}>\n{text_of(message.get('content'))}\n</tool_response>"


def render_prompt(
    messages: Sequence[JsonMapping], tools: Sequence[JsonMapping] | None = None
) -> str:
    """The ChatML prompt for a chat-completions request, ending with the assistant's cue.

    A leading system message gets the tools section appended (a default system text is
    used when there is none); consecutive tool messages become one ``user`` turn of
    ``<tool_response>`` blocks; ``content: null`` is empty text.
    """
    messages = list(messages)
    names = _call_names(messages)
    out: list[str] = []
    system = DEFAULT_SYSTEM
    if messages and messages[0].get("role") == "system":
        system = text_of(messages[0].get("content"))
        messages = messages[1:]
    if tools:
        system = (system + "\n\n" if system else "") + tools_block(tools)
    out.append(_turn("system", system))
    pending: list[str] = []
    for message in messages:
        role = message.get("role")
        if role in ("tool", "function"):
            pending.append(_tool_response(message, names))
            continue
        if pending:
            out.append(_turn("user", "\n".join(pending)))
            pending = []
        if role == "assistant":
            pieces = [text_of(message.get("content")).strip()]
            for call in _objects(message.get("tool_calls")):
                function = _function(call)
                pieces.append(
                    render_call(str(function.get("name") or ""), function.get("arguments"))
                )
            out.append(_turn("assistant", "\n".join(p for p in pieces if p)))
        else:
            out.append(_turn(str(role or "user"), text_of(message.get("content"))))
    if pending:
        out.append(_turn("user", "\n".join(pending)))
    out.append(f"{IM_START}assistant\n")
    return "".join(out)


@dataclass(frozen=True)
class ParsedCall:
    """A tool call read from model output; ``arguments`` is JSON text (maybe malformed)."""

    name: str
    arguments: str


@dataclass(frozen=True)
class ParsedReply:
    """Model output split into text (``None`` when there is none) and tool calls."""

    content: str | None
    calls: tuple[ParsedCall, ...] = ()


_BLOCK = re.compile(
    re.escape(TOOL_CALL_OPEN) + r"(.*?)(?:" + re.escape(TOOL_CALL_CLOSE) + r"|\Z)", re.DOTALL
)
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)(?:```|\Z)", re.DOTALL)
_NAME = re.compile(r'"name"\s*:\s*"((?:[^"\\]|\\.)*)"')
_ARGUMENTS = re.compile(r'"(?:arguments|parameters)"\s*:\s*', re.DOTALL)


def _arguments_text(value: object) -> str:
    if value is None:
        return "{}"
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _call_from_object(value: object) -> ParsedCall | None:
    """A call from ``{"name", "arguments"|"parameters"}`` or OpenAI's ``{"function": ...}``."""
    if not isinstance(value, dict):
        return None
    function = value.get("function")
    call = function if isinstance(function, dict) and "name" not in value else value
    name = call.get("name")
    if not isinstance(name, str) or not name.strip():
        return None
    arguments = call.get("arguments", call.get("parameters"))
    return ParsedCall(name.strip(), _arguments_text(arguments))


def _calls_from_json(value: object) -> list[ParsedCall] | None:
    items = value if isinstance(value, list) else [value]
    calls = [_call_from_object(item) for item in items]
    if not calls or any(call is None for call in calls):
        return None
    return [call for call in calls if call is not None]


def _unfence(text: str) -> str:
    text = text.strip()
    if text.startswith("```"):
        match = _FENCE.match(text)
        if match:
            return match.group(1).strip()
    return text


def _salvage(body: str) -> ParsedCall | None:
    """Name and raw arguments of a call whose JSON does not parse (``None``: no name)."""
    name = _NAME.search(body)
    if name is None:
        return None
    try:
        decoded = loads_json(f'"{name.group(1)}"')
    except ValueError:
        decoded = name.group(1)
    arguments = _ARGUMENTS.search(body)
    raw = ""
    if arguments is not None:
        raw = body[arguments.end() :].strip()
        if raw.endswith("}") and raw.count("}") > raw.count("{"):
            raw = raw[:-1].rstrip()  # the call object's own closing brace
    return ParsedCall(decoded, raw)


def _parse_block(body: str) -> list[ParsedCall] | None:
    body = _unfence(body)
    try:
        calls = _calls_from_json(loads_json(body))
    except ValueError:
        salvaged = _salvage(body)
        return [salvaged] if salvaged is not None else None
    return calls


def _known(calls: list[ParsedCall] | None, tool_names: Iterable[str] | None) -> bool:
    if not calls:
        return False
    if tool_names is None:
        return True
    names = set(tool_names)
    return all(call.name in names for call in calls)


def _leading_json(text: str) -> tuple[object, str] | None:
    """A JSON value at the start of ``text`` and the text after it."""
    try:
        value, end = json.JSONDecoder().raw_decode(text)
    except ValueError:
        return None
    return value, text[end:]


def parse_reply(
    text: str, tool_names: Iterable[str] | None = None, *, allow_calls: bool = True
) -> ParsedReply:
    """Split model output into text and tool calls.

    ``<tool_call>`` blocks are calls whatever name they give (an unknown tool is the
    model's mistake, reported to it by the execution point). Bare or fenced JSON
    counts as a call only when every name is one of ``tool_names`` (when given), so
    that a JSON answer meant for the user stays text.
    """
    if not allow_calls:
        return ParsedReply(text.strip())
    tool_names = list(tool_names) if tool_names is not None else None
    calls: list[ParsedCall] = []
    kept: list[str] = []
    position = 0
    for match in _BLOCK.finditer(text):
        parsed = _parse_block(match.group(1))
        if parsed is None:
            continue
        kept.append(text[position : match.start()])
        position = match.end()
        calls.extend(parsed)
    if calls:
        kept.append(text[position:])
        rest = "".join(kept).strip()
        return ParsedReply(rest or None, tuple(calls))
    stripped = text.strip()
    leading = _leading_json(stripped)
    if leading is not None:
        found = _calls_from_json(leading[0])
        if _known(found, tool_names):
            return ParsedReply(leading[1].strip() or None, tuple(found or ()))
    for match in _FENCE.finditer(stripped):
        try:
            found = _calls_from_json(loads_json(match.group(1).strip()))
        except ValueError:
            continue
        if _known(found, tool_names):
            rest = (stripped[: match.start()] + stripped[match.end() :]).strip()
            return ParsedReply(rest or None, tuple(found or ()))
    return ParsedReply(stripped)


def call_id(prompt: str, output: str, index: int) -> str:
    """A deterministic call id: the same prompt and output give the same ids."""
    digest = hashlib.sha256(f"{prompt}\x00{output}\x00{index}".encode()).hexdigest()
    return f"call_{digest[:24]}"


def chat_completion(
    reply: ParsedReply,
    *,
    prompt: str,
    output: str,
    model: str,
    finish_reason: str | None,
    usage: dict[str, int] | None = None,
    created: int | None = None,
) -> JsonObject:
    """An OpenAI ``chat.completion`` object for a parsed reply.

    ``finish_reason`` is ``tool_calls`` when there are calls, otherwise the sampler's
    (``length`` when ``max_tokens`` cut the reply, ``stop`` otherwise).
    """
    message: JsonObject = {"role": "assistant", "content": reply.content}
    if reply.calls:
        message["tool_calls"] = [
            {
                "id": call_id(prompt, output, index),
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }
            for index, call in enumerate(reply.calls)
        ]
    elif message["content"] is None:
        message["content"] = ""
    finish = "tool_calls" if reply.calls else (finish_reason or "stop")
    return {
        "id": "chatcmpl-" + hashlib.sha256(f"{prompt}\x00{output}".encode()).hexdigest()[:24],
        "object": "chat.completion",
        "created": int(time.time()) if created is None else created,
        "model": model,
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
        "usage": {**usage}
        if usage
        else {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }


def normalise_request(body: JsonObject) -> str | None:
    """Make a chat-completions body acceptable to llama-cpp-python's request model.

    Edits in place: ``content: null`` becomes ``""`` (OpenAI clients send it on assistant
    turns with tool calls; the server's schema refuses it), object arguments become
    JSON text, calls without ``type`` get ``function``. Returns an error message for a
    request we do not serve (``stream: true``), else ``None``.
    """
    if body.get("stream"):
        return "stream=true is not supported by sscbench serve-local; send stream=false"
    for message in _objects(body.get("messages")):
        if message.get("content", "") is None:
            message["content"] = ""
        for call in _objects(message.get("tool_calls")):
            call.setdefault("type", "function")
            function = call.get("function")
            if isinstance(function, dict) and not isinstance(function.get("arguments"), str):
                function["arguments"] = _arguments_text(function.get("arguments"))
    return None


def tool_mode(tools: Sequence[JsonMapping] | None, tool_choice: object) -> tuple[str, str | None]:
    """How a request may use tools: ``("text"|"auto"|"required"|"named", name)``.

    No tools or ``none``: text only. ``auto`` (the default with tools): text or calls.
    ``required``: a call to any tool. ``{"type": "function", "function": {"name": N}}``:
    a call to N.
    """
    if not tools or tool_choice == "none":
        return "text", None
    if tool_choice == "required":
        return "required", None
    if isinstance(tool_choice, dict):
        name = _function(tool_choice).get("name")
        if isinstance(name, str) and name:
            return "named", name
    return "auto", None


def rename_root(gbnf: str, name: str) -> str:
    """A GBNF grammar with its ``root`` rule renamed (to embed it in a larger grammar)."""
    return re.sub(r"^root(\s*::=)", name + r"\1", gbnf, flags=re.MULTILINE)


def call_grammar(call_rules: str, *, lenient: bool) -> str:
    """GBNF for a reply made of one ``<tool_call>`` block around the rule ``call``.

    ``call_rules`` defines ``call`` (a JSON call object). Strict: the reply must be the
    block. Lenient (for ``tool_choice: auto``): the reply is either the block or free
    text that does not start with ``<``, so a started call is always well-formed while
    plain answers stay free.
    """
    block = f'"{TOOL_CALL_OPEN}\\n" call "\\n{TOOL_CALL_CLOSE}"'
    if lenient:
        head = f"root ::= {block} | text\ntext ::= ([^<] [^\\x00]*)?\n"
    else:
        head = f"root ::= {block}\n"
    return head + call_rules.strip() + "\n"
