"""Small edits to a recording, applied before it is replayed (a pairs file's ``edits``).

Edits name an assistant turn by its index among the recording's assistant messages
(0-based, counted in the original recording; several edits apply together):

* ``{"op": "text", "turn": k, "content": "..."}`` — replace the turn's text (or
  ``"replace": [[old, new], ...]`` — substitute within the recorded text);
* ``{"op": "args", "turn": k, "call": 0, "arguments": {...}}`` — replace a call's arguments;
* ``{"op": "insert", "before": k, "content": ..., "tool_calls": [{"name", "arguments"}],
  "user_reply": "..."}`` — insert a new assistant turn before turn k (``before`` equal
  to the number of turns appends); a text turn needs ``user_reply``;
* ``{"op": "delete", "turn": k}`` — drop turn k (with its tool messages, or with the
  user reply that followed it);
* ``{"op": "user", "turn": k, "content": "..."}`` — replace the user reply that follows
  text turn k (``turn: -1`` is the opening user message).

Every edit is checked against the recording it edits before any is applied
(:func:`check_edits`): its keys are the op's own, a turn, ``before`` and ``call`` are
non-negative integers in range (``turn: -1`` only for ``user``), texts are strings and
arguments objects. An edit that does not fit raises :class:`ValueError` naming it
(``edits[2].before: ...``); nothing is silently skipped.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from sscbench.json_types import JsonObject, JsonValue
from sscbench.recordings.recorded import RecordedMessage, RecordedRun


def _messages(run: RecordedRun) -> list[JsonObject]:
    return [m.model_dump(exclude_none=True) for m in run.traj]


def _turn_groups(messages: list[JsonObject]) -> tuple[list[JsonObject], list[list[JsonObject]]]:
    """Split a trajectory into its head (system, opening user) and one group per assistant turn.

    A group is the assistant message with what follows it up to the next assistant
    message (its tool messages, or the user reply).
    """
    head: list[JsonObject] = []
    groups: list[list[JsonObject]] = []
    for message in messages:
        if message["role"] == "assistant":
            groups.append([message])
        elif groups:
            groups[-1].append(message)
        else:
            head.append(message)
    return head, groups


def _new_turn(edit: JsonObject, number: int) -> list[JsonObject]:
    """The messages of an inserted turn: the assistant's, then its tool messages or the
    user's reply (the edit checked by :func:`check_edits`)."""
    calls: list[JsonValue] = []
    answers: list[JsonObject] = []
    for i, c in enumerate(_objects(edit.get("tool_calls"))):
        call_id = f"edit_call_{number}_{i}"
        function: JsonObject = {"name": c["name"], "arguments": json.dumps(c["arguments"])}
        calls.append({"id": call_id, "type": "function", "function": function})
        answers.append(
            {"role": "tool", "tool_call_id": call_id, "name": c["name"], "content": "(replayed)"}
        )
    message: JsonObject = {"role": "assistant", "content": edit.get("content")}
    if calls:
        message["tool_calls"] = calls
        return [message, *answers]
    if "user_reply" not in edit:
        raise ValueError(f"insert before turn {edit['before']}: a text turn needs 'user_reply'")
    return [message, {"role": "user", "content": edit["user_reply"]}]


def _edited_text(text: JsonValue, edit: JsonObject, number: int) -> JsonValue:
    """A turn's new text: ``content`` outright, or ``replace`` pairs applied to the recorded text."""
    if "content" in edit:
        return edit["content"]
    text = text if isinstance(text, str) else ""
    for pair in _string_pairs(edit["replace"]):
        old, new = pair
        if old not in text:
            raise ValueError(f"edit {number}: {old!r} is not in turn {edit['turn']}'s text")
        text = text.replace(old, new)
    return text


class EditError(ValueError):
    """An edit that does not fit its recording: ``field`` (``edits[2].before``) and why."""

    def __init__(self, field: str, reason: str):
        self.field = field
        self.reason = reason
        super().__init__(f"{field}: {reason}")


_KEYS = {
    "text": {"turn", "content", "replace"},
    "args": {"turn", "call", "arguments"},
    "insert": {"before", "content", "tool_calls", "user_reply"},
    "delete": {"turn"},
    "user": {"turn", "content"},
}


def _index(edit: JsonObject, key: str, last: int, lowest: int = 0) -> int:
    """``edit[key]`` when it is an integer from ``lowest`` to ``last``; else ValueError."""
    value = edit.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{key}: must be an integer, not {value!r}")
    if not lowest <= value <= last:
        raise ValueError(f"{key}: {key} {value} out of range ({lowest} to {last})")
    return value


def _check_types(edit: JsonObject) -> None:
    """The value types of an edit's texts, replacements, arguments and calls."""
    op = edit["op"]
    if op == "text" and ("content" in edit) == ("replace" in edit):
        raise ValueError("content: give 'content' or 'replace' (exactly one)")
    for key in ("content", "user_reply"):
        blank = op == "insert" and key == "content" and edit.get(key) is None
        if key in edit and not isinstance(edit[key], str) and not blank:
            raise ValueError(f"{key}: must be a string")
    replace = edit.get("replace", [])
    if not isinstance(replace, list) or not all(
        isinstance(p, list) and len(p) == 2 and all(isinstance(t, str) for t in p) for p in replace
    ):
        raise ValueError("replace: must be a list of [old, new] string pairs")
    if op == "args" and not isinstance(edit.get("arguments"), dict):
        raise ValueError("arguments: must be an object")
    calls = edit.get("tool_calls", [])
    if not isinstance(calls, list) or not all(
        isinstance(c, dict)
        and isinstance(c.get("name"), str)
        and isinstance(c.get("arguments"), dict)
        for c in calls
    ):
        raise ValueError("tool_calls: must be a list of {name, arguments} objects")


def _check_edit(edit: JsonValue, groups: list[list[JsonObject]]) -> None:
    """One edit against the recording's assistant turns ``groups``."""
    op = edit.get("op") if isinstance(edit, dict) else edit
    if not isinstance(edit, dict) or not isinstance(op, str) or op not in _KEYS:
        raise ValueError(f"op: unknown op {op!r} (one of {', '.join(_KEYS)})")
    extra = sorted(set(edit) - _KEYS[op] - {"op"})
    if extra:
        raise ValueError(f"{extra[0]}: not a key of a {op!r} edit")
    _check_types(edit)
    if op == "insert":
        _index(edit, "before", len(groups))
        return
    turn = _index(edit, "turn", len(groups) - 1, -1 if op == "user" else 0)
    if op == "args":
        calls = _objects(groups[turn][0].get("tool_calls"))
        if not calls:
            raise ValueError(f"turn: turn {turn} makes no tool call")
        _index({"call": 0, **edit}, "call", len(calls) - 1)


def check_edits(run: RecordedRun, edits: Sequence[JsonValue]) -> None:
    """Refuse any edit that does not fit ``run`` (``ValueError`` naming ``edits[k].field``):
    an index out of range, negative or not an integer, a key of another op, a value of
    the wrong type. Checked whole before any edit is applied."""
    _, groups = _turn_groups(_messages(run))
    for number, edit in enumerate(edits):
        try:
            _check_edit(edit, groups)
        except ValueError as exc:
            key, _, reason = str(exc).partition(": ")
            raise EditError(f"edits[{number}].{key}", reason) from None


def apply_edits(run: RecordedRun, edits: Sequence[JsonObject]) -> RecordedRun:
    """The recording with the corpus edits applied (turn numbers of the original), each
    edit checked against it first (:func:`check_edits`)."""
    check_edits(run, edits)
    head, groups = _turn_groups(_messages(run))
    inserts: dict[int, list[list[JsonObject]]] = {}
    deleted: set[int] = set()
    for number, edit in enumerate(edits):
        op = edit["op"]
        if op == "insert":
            inserts.setdefault(_checked_int(edit, "before"), []).append(_new_turn(edit, number))
            continue
        turn = _checked_int(edit, "turn")
        if op == "user" and turn == -1:
            opening = [m for m in head if m["role"] == "user"]
            opening[0]["content"] = edit["content"]
            continue
        if not 0 <= turn < len(groups):
            raise ValueError(f"edit {number}: turn {turn} out of range ({len(groups)} turns)")
        group = groups[turn]
        if op == "text":
            group[0]["content"] = _edited_text(group[0].get("content"), edit, number)
        elif op == "args":
            call = _objects(group[0].get("tool_calls"))[_checked_int({"call": 0, **edit}, "call")]
            _function(call)["arguments"] = json.dumps(edit["arguments"])
        elif op == "delete":
            deleted.add(turn)
        elif op == "user":
            replies = [m for m in group if m["role"] == "user"]
            if not replies:
                raise ValueError(f"edit {number}: turn {turn} has no user reply")
            replies[0]["content"] = edit["content"]
        else:
            raise ValueError(f"edit {number}: unknown op {op!r}")
    out = list(head)
    for index in range(len(groups) + 1):
        for group in inserts.get(index, []):
            out.extend(group)
        if index < len(groups) and index not in deleted:
            out.extend(groups[index])
    data = run.model_dump()
    data["traj"] = [RecordedMessage.model_validate(m).model_dump() for m in out]
    return RecordedRun.model_validate(data)


def _objects(value: JsonValue) -> list[JsonObject]:
    """The objects of an array (tool calls), none when ``value`` is not one."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _string_pairs(value: JsonValue) -> list[tuple[str, str]]:
    """``replace``'s ``[old, new]`` string pairs (as :func:`check_edits` found them)."""
    pairs: list[tuple[str, str]] = []
    for pair in value if isinstance(value, list) else []:
        if isinstance(pair, list) and len(pair) == 2:
            old, new = pair
            if isinstance(old, str) and isinstance(new, str):
                pairs.append((old, new))
    return pairs


def _checked_int(edit: JsonObject, key: str) -> int:
    """``edit[key]``, an integer once :func:`check_edits` passed the edit."""
    value = edit[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{key}: must be an integer, not {value!r}")
    return value


def _function(call: JsonObject) -> JsonObject:
    """The ``function`` part of a recorded tool call."""
    function = call["function"]
    if not isinstance(function, dict):
        raise ValueError(f"a recorded call's function is not an object: {function!r}")
    return function
