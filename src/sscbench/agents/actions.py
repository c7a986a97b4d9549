"""One JSON action per turn (τ-bench's act and react strategies): parsing and the schema.

Under the act and react strategies a model answers every turn with one action,
``{"name": ..., "arguments": {...}}``, in its message content; speaking to the user is
the action ``respond`` with the argument ``content``. Parsing happens here, on our
side, so any chat-completions server will do. It tolerates what small models wrap
around the JSON (code fences, a leading ``Action:`` or prose, trailing text) but
never guesses: text without one well-formed action is *unparsable*, and the agent
turns it into a call the execution point answers with a tool error.

:func:`action_schema` is the JSON schema of one action built from the tools'
schemas (a ``oneOf`` over the tools and ``respond``), sent as ``response_format``
when a study sets ``constrain = true``: llama.cpp's server compiles it into a
grammar, hosted APIs honour it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from sscbench.json_types import JsonObject, JsonValue

RESPOND = "respond"
"""The action that speaks to the user (τ-bench's name); its one argument is ``content``."""
RESPOND_FIELD = "content"
THOUGHT_FIELD = "thought"
"""The react strategy's reasoning, kept as the assistant's text next to its call."""


_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class ParsedAction:
    """One action read from a reply: its name and arguments, and the react thought."""

    name: str
    arguments: JsonObject
    thought: str | None = None


@dataclass(frozen=True)
class Unparsable:
    """A reply that holds no well-formed action, and why."""

    text: str
    reason: str


def _objects(text: str) -> list[JsonObject]:
    """Every JSON object that starts somewhere in ``text`` (fenced blocks first)."""
    pieces = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    found: list[JsonObject] = []
    for piece in pieces:
        for start in [i for i, ch in enumerate(piece) if ch == "{"]:
            try:
                value, _ = _DECODER.raw_decode(piece, start)
            except (ValueError, RecursionError):
                continue
            if isinstance(value, dict):
                found.append(value)
    return found


def _thought_before(text: str) -> str | None:
    """The react thought: the text before ``Action:`` without its ``Thought:`` label."""
    head = re.split(r"\bAction\s*:", text, maxsplit=1)[0]
    head = _FENCE.sub("", head)
    head = re.sub(r"^\s*Thought\s*:\s*", "", head.strip(), flags=re.IGNORECASE).strip()
    return head or None


def parse_action(text: str | None, *, with_thought: bool = False) -> ParsedAction | Unparsable:
    """The one action in a model's reply, or why there is none.

    An action is the first JSON object (in a code fence or in the text, after a
    leading ``Action:`` when there is one) that has a string ``name`` and an object
    ``arguments``. ``with_thought`` (react) keeps a ``thought`` field of the object,
    or the text before ``Action:``, as the thought.
    """
    if text is None or not text.strip():
        return Unparsable(text or "", "the reply is empty")
    tail = re.split(r"\bAction\s*:", text, maxsplit=1)
    search = tail[1] if len(tail) == 2 else text
    candidates = _objects(search) or _objects(text)
    if not candidates:
        return Unparsable(text, "no JSON object found")
    for value in candidates:
        name, arguments = value.get("name"), value.get("arguments", {})
        if isinstance(name, str) and name.strip() and isinstance(arguments, dict):
            thought = None
            if with_thought:
                raw = value.get(THOUGHT_FIELD)
                thought = raw.strip() if isinstance(raw, str) and raw.strip() else None
                thought = thought or _thought_before(text)
            return ParsedAction(name.strip(), arguments, thought)
    return Unparsable(text, 'no object with a string "name" and an object "arguments"')


def render_action(name: str, arguments: JsonValue, thought: str | None = None) -> str:
    """An action as the JSON text a model is asked to write (thought first under react)."""
    body: JsonObject = {}
    if thought is not None:
        body[THOUGHT_FIELD] = thought
    body["name"] = name
    body["arguments"] = arguments
    return json.dumps(body, ensure_ascii=False)


def tool_function(tool: JsonObject) -> JsonObject:
    """The ``function`` part of a tool's schema (the schema itself when it has none)."""
    function = tool.get("function", tool)
    return function if isinstance(function, dict) else {}


def tool_name(tool: JsonObject) -> str | None:
    """A tool's name (None when its schema names none)."""
    name = tool_function(tool).get("name")
    return name if isinstance(name, str) else None


def respond_tool() -> JsonObject:
    """``respond`` described like a tool, for the prompt's list of actions."""
    return {
        "type": "function",
        "function": {
            "name": RESPOND,
            "description": "Send a message to the user (the only way to talk to them).",
            "parameters": {
                "type": "object",
                "properties": {
                    RESPOND_FIELD: {"type": "string", "description": "the message to the user"}
                },
                "required": [RESPOND_FIELD],
            },
        },
    }


def action_schema(tools: Sequence[JsonObject], *, with_thought: bool = False) -> JsonObject:
    """The JSON schema of one action: a ``oneOf`` over the tools and ``respond``.

    Each branch fixes ``name`` to one tool's name and takes that tool's own parameter
    schema for ``arguments``; ``with_thought`` (react) adds a leading string ``thought``.
    """
    branches: list[JsonValue] = []
    for tool in [*tools, respond_tool()]:
        function = tool_function(tool)
        parameters = function.get("parameters") or {"type": "object", "properties": {}}
        properties: JsonObject = {}
        required: list[JsonValue] = ["name", "arguments"]
        if with_thought:
            properties[THOUGHT_FIELD] = {"type": "string"}
            required.insert(0, THOUGHT_FIELD)
        properties["name"] = {"const": function["name"]}
        properties["arguments"] = parameters
        branches.append({"type": "object", "properties": properties, "required": required})
    return {"oneOf": branches}


def response_format(tools: Sequence[JsonObject], *, with_thought: bool = False) -> JsonObject:
    """The chat-completions ``response_format`` constraining a reply to one action."""
    return {
        "type": "json_schema",
        "json_schema": {
            "name": "action",
            "schema": action_schema(tools, with_thought=with_thought),
        },
    }
