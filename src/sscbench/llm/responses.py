"""What an endpoint answered: the first choice's message and its text, or a clear failure.

A body that is not a chat completion (an HTML page, a JSON list, an object without
``choices``, a ``null`` message) is a harness failure whose message says what arrived,
with any key masked; it never reads as an agent outcome.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from sscbench.errors import HarnessFailure
from sscbench.llm.secrets import redact

BAD_RESPONSE = "bad response"
"""The failure kind of a 200 answer that holds no usable message."""


def excerpt(value: object, secrets: Sequence[str] = (), limit: int = 80) -> str:
    """A short, one-line, masked rendering of something an endpoint sent."""
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[:limit] + "…"
    return repr(redact(text, secrets))


def _present(response: object) -> list[str]:
    fields = getattr(response, "__dict__", {})
    extra = getattr(response, "model_extra", None) or {}
    names = [k for k, v in fields.items() if v is not None and not k.startswith("_")]
    return sorted(set(names) | set(extra))


def what_arrived(response: object, secrets: Sequence[str] = ()) -> str | None:
    """Why ``response`` holds no first message (None when it does)."""
    if isinstance(response, str):
        return f"a body that is not JSON: {excerpt(response, secrets)}"
    if isinstance(response, list):
        return f"a JSON list of {len(response)} items, not a chat completion object"
    if response is None or isinstance(response, int | float | bool):
        return f"the JSON value {json.dumps(response)}, not a chat completion object"
    choices = getattr(response, "choices", None)
    if choices is None:
        keys = _present(response)
        error = getattr(response, "error", None)
        text = f"an object without 'choices' (keys: {', '.join(keys) or 'none'})"
        return text + (f"; its error: {excerpt(error, secrets)}" if error is not None else "")
    if not isinstance(choices, list) or not choices:
        return f"'choices' that is {excerpt(choices, secrets)}, not a list with a message"
    if getattr(choices[0], "message", None) is None:
        return "choices[0].message is null or missing"
    return None


def first_message(response: object, where: str, secrets: Sequence[str] = ()) -> object:
    """The first choice's message, or :class:`HarnessFailure` saying what arrived.

    The message is read by attribute (``content``, ``tool_calls``): the SDK builds a
    malformed answer leniently, so no field's type is guaranteed."""
    problem = what_arrived(response, secrets)
    if problem is not None:
        raise HarnessFailure(where, f"the endpoint answered with {problem}", kind=BAD_RESPONSE)
    choices = getattr(response, "choices", None)  # a non-empty list: what_arrived saw it
    return getattr(choices[0], "message", None) if isinstance(choices, list) else None


def content_text(content: object) -> str | None:
    """A message's content as text: a list of parts gives its parts' text, in order.

    A part is a string, or an object whose ``text`` is taken (another object is kept
    as its JSON); anything else that is not a string is written as JSON.
    """
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        pieces = []
        for part in content:
            if isinstance(part, str):
                pieces.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                pieces.append(part["text"])
            else:
                pieces.append(json.dumps(part, default=str))
        return "".join(pieces)
    return json.dumps(content, default=str)
