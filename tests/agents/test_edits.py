"""A pair's edits checked against the recording they edit, before any is applied."""

from __future__ import annotations

import json

import pytest

from sscbench.agents.edits import EditError, apply_edits, check_edits
from sscbench.recordings.recorded import RecordedMessage, RecordedRun


def _run() -> RecordedRun:
    def call(cid: str) -> dict:
        function = {"name": "get_user_details", "arguments": json.dumps({"user_id": "u"})}
        return {"id": cid, "type": "function", "function": function}

    traj = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [call("c1"), call("c2")]},
        {"role": "tool", "tool_call_id": "c1", "content": "{}"},
        {"role": "tool", "tool_call_id": "c2", "content": "{}"},
        {"role": "assistant", "content": "Done."},
        {"role": "user", "content": "thanks ###STOP###"},
    ]
    return RecordedRun(task_id=1, traj=[RecordedMessage.model_validate(m) for m in traj])


INSERT = {"op": "insert", "content": "x", "user_reply": "y"}


@pytest.mark.parametrize(
    ("edit", "field", "reason"),
    [
        ({**INSERT, "before": 3}, "edits[1].before", "before 3 out of range (0 to 2)"),
        ({**INSERT, "before": -1}, "edits[1].before", "before -1 out of range"),
        ({**INSERT, "before": "2"}, "edits[1].before", "must be an integer, not '2'"),
        ({"op": "args", "turn": 0, "call": -1, "arguments": {}}, "edits[1].call", "-1 out"),
        ({"op": "args", "turn": 0, "call": 2, "arguments": {}}, "edits[1].call", "0 to 1"),
        ({"op": "args", "turn": 1, "arguments": {}}, "edits[1].turn", "makes no tool call"),
        ({"op": "args", "turn": 0, "arguments": "{}"}, "edits[1].arguments", "an object"),
        ({"op": "delete", "turn": 2}, "edits[1].turn", "turn 2 out of range (0 to 1)"),
        ({"op": "text", "turn": 0}, "edits[1].content", "exactly one"),
        ({"op": "text", "turn": 0, "replace": "ab"}, "edits[1].replace", "pairs"),
        ({"op": "user", "turn": -2, "content": "x"}, "edits[1].turn", "(-1 to 1)"),
        ({"op": "insert", "before": 0, "tool_calls": [{"x": 1}]}, "edits[1].tool_calls", "name"),
    ],
)
def test_an_edit_that_does_not_fit_is_refused_before_any_is_applied(edit, field, reason):
    first = {"op": "text", "turn": 1, "content": "changed"}
    with pytest.raises(EditError) as error:
        apply_edits(_run(), [first, edit])
    assert error.value.field == field
    assert reason in error.value.reason


def test_edits_in_range_are_applied_and_the_edges_hold():
    run = _run()
    edits = [
        {**INSERT, "before": 2},  # before the number of turns: appended
        {"op": "args", "turn": 0, "call": 1, "arguments": {"user_id": "v"}},
        {"op": "user", "turn": -1, "content": "hello"},
    ]
    check_edits(run, edits)
    edited = apply_edits(run, edits)
    assert edited.traj[0].content == "hello"
    assert json.loads(edited.traj[1].tool_calls[1].function.arguments) == {"user_id": "v"}
    assert [m.content for m in edited.traj[-2:]] == ["x", "y"]
