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

An edit that does not fit the recording raises :class:`ValueError` naming the edit.
"""

from __future__ import annotations

import json
from typing import Any

from sscbench.agents.recorded import RecordedMessage, RecordedRun


def _messages(run: RecordedRun) -> list[dict[str, Any]]:
    return [m.model_dump(exclude_none=True) for m in run.traj]


def _turn_groups(messages: list[dict[str, Any]]) -> tuple[list[dict], list[list[dict]]]:
    """Split a trajectory into its head (system, opening user) and one group per assistant turn.

    A group is the assistant message with what follows it up to the next assistant
    message (its tool messages, or the user reply).
    """
    head: list[dict] = []
    groups: list[list[dict]] = []
    for message in messages:
        if message["role"] == "assistant":
            groups.append([message])
        elif groups:
            groups[-1].append(message)
        else:
            head.append(message)
    return head, groups


def _new_turn(edit: dict[str, Any], number: int) -> list[dict]:
    calls: list[dict[str, Any]] = [
        {
            "id": f"edit_call_{number}_{i}",
            "type": "function",
            "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])},
        }
        for i, c in enumerate(edit.get("tool_calls") or [])
    ]
    message: dict[str, Any] = {"role": "assistant", "content": edit.get("content")}
    if calls:
        message["tool_calls"] = calls
        return [
            message,
            *(
                {
                    "role": "tool",
                    "tool_call_id": c["id"],
                    "name": c["function"]["name"],
                    "content": "(replayed)",
                }
                for c in calls
            ),
        ]
    if "user_reply" not in edit:
        raise ValueError(f"insert before turn {edit['before']}: a text turn needs 'user_reply'")
    return [message, {"role": "user", "content": edit["user_reply"]}]


def _edited_text(text: str | None, edit: dict[str, Any], number: int) -> str:
    """A turn's new text: ``content`` outright, or ``replace`` pairs applied to the recorded text."""
    if "content" in edit:
        return edit["content"]
    text = text or ""
    for old, new in edit["replace"]:
        if old not in text:
            raise ValueError(f"edit {number}: {old!r} is not in turn {edit['turn']}'s text")
        text = text.replace(old, new)
    return text


def apply_edits(run: RecordedRun, edits: list[dict[str, Any]]) -> RecordedRun:
    """The recording with the corpus edits applied (turn numbers of the original)."""
    head, groups = _turn_groups(_messages(run))
    inserts: dict[int, list[list[dict]]] = {}
    deleted: set[int] = set()
    for number, edit in enumerate(edits):
        op = edit["op"]
        if op == "insert":
            inserts.setdefault(edit["before"], []).append(_new_turn(edit, number))
            continue
        turn = edit["turn"]
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
            call = group[0]["tool_calls"][edit.get("call", 0)]
            call["function"]["arguments"] = json.dumps(edit["arguments"])
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
