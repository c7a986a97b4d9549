"""What the scripted chat-completions server answers: assistant replies (:func:`reply`,
:func:`text`, :func:`tool_call`), scripted sequences, and the special answers
(:class:`Fail`, :class:`Drop`, :class:`Trickle`, :class:`Raw`); :func:`completion` wraps an
assistant message into a chat-completion body. See :mod:`sscbench.testing.openai_server`."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from sscbench.json_types import JsonMapping, JsonObject, JsonValue


@dataclass(frozen=True)
class Fail:
    """Answer this request with an HTTP error status and an OpenAI-style error body."""

    status: int = 500
    message: str = "injected failure"
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Drop:
    """Close the connection without sending any response."""


@dataclass(frozen=True)
class Trickle:
    """Answer 200, then send ``body`` (a completion or message) one byte per ``interval``.

    ``endless`` declares a huge length and never stops; the server ends the trickle
    when the client goes away or the server stops.
    """

    body: JsonObject = field(default_factory=lambda: {"content": "ok"})
    interval: float = 1.0
    endless: bool = False


@dataclass(frozen=True)
class Raw:
    """Answer with exactly these bytes under this content type and status."""

    body: bytes
    content_type: str = "application/json"
    status: int = 200


Response = JsonObject | Fail | Drop | Trickle | Raw
Responder = Callable[[JsonMapping], Response]


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: JsonValue


def text(content: str) -> JsonObject:
    """An assistant message with text only."""
    return {"content": content}


def tool_call(name: str, arguments: JsonValue, id: str | None = None) -> JsonObject:
    """An assistant message with one tool call (``arguments``: raw text or an object)."""
    call: JsonObject = {"name": name, "arguments": arguments}
    if id is not None:
        call["id"] = id
    return {"content": None, "tool_calls": [call]}


def reply(content: str | None = None, tool_calls: Iterable[JsonValue] = ()) -> JsonObject:
    """An assistant message with text and/or tool calls (each full or shorthand)."""
    return {"content": content, "tool_calls": list(tool_calls)}


def sequence(*responses: Response, then: Response | None = None) -> Responder:
    """A responder answering requests with ``responses`` in order, then ``then`` forever.

    When ``then`` is None an exhausted script answers HTTP 500 ("script exhausted").
    """
    items = list(responses)
    lock = threading.Lock()

    def respond(_body: JsonMapping) -> Response:
        with lock:
            if items:
                return items.pop(0)
        return then if then is not None else Fail(500, "script exhausted")

    return respond


def echo_responder(body: JsonMapping) -> Response:
    """Answer every request with the text "ok" (the default responder)."""
    return text("ok")


def _words(value: object) -> int:
    if isinstance(value, str):
        return len(value.split())
    if isinstance(value, dict):
        return sum(_words(v) for v in value.values())
    if isinstance(value, list):
        return sum(_words(v) for v in value)
    return 0


def _tool_calls(calls: JsonValue, number: int) -> list[JsonValue]:
    out: list[JsonValue] = []
    for index, call in enumerate(calls if isinstance(calls, list) else ()):
        if not isinstance(call, dict) or "function" in call:
            out.append(call)
            continue
        arguments = call.get("arguments", "")
        out.append(
            {
                "id": call.get("id", f"call_srv{number}_{index}"),
                "type": "function",
                "function": {
                    "name": call["name"],
                    "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
                },
            }
        )
    return out


def completion(body: JsonMapping, message: JsonMapping, number: int) -> JsonObject:
    """A ``chat.completion`` object answering ``body`` with ``message``."""
    calls = _tool_calls(message.get("tool_calls") or [], number)
    content = message.get("content")
    assistant: JsonObject = {"role": "assistant", "content": content}
    if calls:
        assistant["tool_calls"] = calls
    prompt = _words(body.get("messages", []))
    answer = _words(content) + _words(calls)
    usage = message.get("usage") or {
        "prompt_tokens": prompt,
        "completion_tokens": answer,
        "total_tokens": prompt + answer,
    }
    return {
        "id": f"chatcmpl-{number}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "scripted"),
        "choices": [
            {
                "index": 0,
                "message": assistant,
                "finish_reason": message.get("finish_reason")
                or ("tool_calls" if calls else "stop"),
                "logprobs": None,
            }
        ],
        "usage": usage,
    }
