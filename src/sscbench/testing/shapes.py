"""A strict check of a chat-completions request's shape, as a provider's endpoint checks
it, wrapped around any responder of :class:`~sscbench.testing.openai_server.OpenAIServer`.

``ShapeChecked(responder, tool_choice=("auto",), temperature_max=1.0)`` answers a
request whose shape a provider would refuse with HTTP 400 naming every problem (and keeps
them in ``problems``); the rest go to ``responder``. Checked: the top-level fields, the
tool schemas, ``tool_choice`` (a value the provider honours, and only with tools), the
temperature range, and the conversation: every assistant tool call (id, ``function``
name, arguments as a JSON string) answered by exactly one ``tool`` message with its
``tool_call_id`` before the next user or assistant message — what several tool calls in
one answer (parallel calls) demand of the next request.
"""

from __future__ import annotations

import json
import threading

from sscbench.json_types import JsonMapping
from sscbench.testing.replies import Fail, Responder, Response

FIELDS = frozenset(
    {
        "model",
        "messages",
        "temperature",
        "top_p",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "seed",
        "max_tokens",
        "max_completion_tokens",
        "response_format",
        "stop",
        "n",
        "stream",
    }
)
ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})


def _tool_problems(tools: object) -> list[str]:
    if not isinstance(tools, list) or not tools:
        return ["tools is not a non-empty list"]
    problems = []
    for i, tool in enumerate(tools):
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(tool, dict) or tool.get("type") != "function" or function is None:
            problems.append(f"tools[{i}] is not {{type: function, function: ...}}")
        elif not isinstance(function.get("name"), str) or not isinstance(
            function.get("parameters", {}), dict
        ):
            problems.append(f"tools[{i}].function has no name or its parameters no object")
    return problems


def _call_problems(call: object, where: str) -> tuple[list[str], str | None]:
    """The problems of one assistant tool call, and its id."""
    if not isinstance(call, dict) or call.get("type") != "function":
        return [f"{where} is not a function call"], None
    function = call.get("function") or {}
    problems = []
    if not isinstance(call.get("id"), str) or not call["id"]:
        problems.append(f"{where} has no id")
    if not isinstance(function.get("name"), str):
        problems.append(f"{where} has no function name")
    arguments = function.get("arguments")
    try:
        json.loads(arguments) if isinstance(arguments, str) else None
    except json.JSONDecodeError:
        problems.append(f"{where}.function.arguments is not JSON")
    if not isinstance(arguments, str):
        problems.append(f"{where}.function.arguments is not a string")
    return problems, call.get("id")


def _message_problems(messages: object) -> list[str]:
    """The conversation's problems: roles, tool calls and their answers in order."""
    if not isinstance(messages, list) or not messages:
        return ["messages is not a non-empty list"]
    problems: list[str] = []
    waiting: list[str] = []  # tool call ids not answered yet
    for i, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role not in ROLES:
            problems.append(f"messages[{i}] has role {role!r}")
            continue
        if role == "tool":
            answered = message.get("tool_call_id")
            if answered not in waiting:
                problems.append(f"messages[{i}] answers tool call {answered!r}, not pending")
            else:
                waiting.remove(answered)
            continue
        if waiting:
            problems.append(f"messages[{i}] ({role}) comes before the answers of {waiting}")
            waiting = []
        calls = message.get("tool_calls") if role == "assistant" else None
        for j, call in enumerate(calls or []):
            found, call_id = _call_problems(call, f"messages[{i}].tool_calls[{j}]")
            problems += found
            if call_id is not None:
                waiting.append(call_id)
        if not calls and not isinstance(message.get("content"), str):
            problems.append(f"messages[{i}] ({role}) has no content")
    if waiting:
        problems.append(f"the request ends before the answers of tool calls {waiting}")
    return problems


def shape_problems(
    body: JsonMapping, tool_choice: tuple[str, ...], temperature_max: float
) -> list[str]:
    """Every problem a strict provider finds in a chat-completions ``body``."""
    problems = [f"unknown field {name!r}" for name in sorted(set(body) - FIELDS)]
    if not isinstance(body.get("model"), str) or not body.get("model"):
        problems.append("model is missing")
    problems += _message_problems(body.get("messages"))
    if "tools" in body:
        problems += _tool_problems(body["tools"])
    if "tool_choice" in body:
        choice = body["tool_choice"]
        if "tools" not in body:
            problems.append("tool_choice is set without tools")
        elif isinstance(choice, str) and choice not in tool_choice:
            problems.append(f"tool_choice {choice!r} is not one of {list(tool_choice)}")
    temperature = body.get("temperature")
    if temperature is not None and not (
        isinstance(temperature, int | float) and 0 <= temperature <= temperature_max
    ):
        problems.append(f"temperature {temperature} outside 0..{temperature_max}")
    return problems


class ShapeChecked:
    """A responder that refuses (HTTP 400) what a strict provider refuses, else answers
    with ``responder``; ``problems`` holds every refusal's problems, ``checked`` counts."""

    def __init__(
        self,
        responder: Responder,
        *,
        tool_choice: tuple[str, ...] = ("auto", "required", "none"),
        temperature_max: float = 2.0,
    ):
        self.responder = responder
        self.tool_choice = tool_choice
        self.temperature_max = temperature_max
        self.problems: list[str] = []
        self.checked = 0
        self._lock = threading.Lock()

    def __call__(self, body: JsonMapping) -> Response:
        """Check ``body``; a 400 naming its problems, or the wrapped responder's answer."""
        found = shape_problems(body, self.tool_choice, self.temperature_max)
        with self._lock:
            self.checked += 1
            self.problems += found
        if found:
            return Fail(400, "invalid request: " + "; ".join(found))
        return self.responder(body)
