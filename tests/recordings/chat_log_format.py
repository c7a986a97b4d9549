"""A recording format of a test, in its own module as ``docs/adding-a-recording-format.md``
says: a "chat log" — one JSON object ``{"chat_log": 1, "runs": [...]}`` whose runs name
their τ-bench task and hold turns ``{"from": "user" | "agent" | "tool", ...}``. Registered
by one line (``with registered(ChatLogFormat):``)."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import JsonValue

from sscbench.errors import DataError
from sscbench.recordings.formats import RecordingFormat
from sscbench.recordings.recorded import RecordedMessage, RecordedRun, RecordedToolCall

ROLES = {"user": "user", "agent": "assistant", "tool": "tool"}


def _message(turn: JsonValue, where: str, path: Path) -> RecordedMessage:
    """One turn as a recorded message in τ-bench's (OpenAI) format."""
    if not isinstance(turn, dict) or turn.get("from") not in ROLES:
        raise DataError(path, where, "a turn needs 'from': user, agent or tool")
    role = ROLES[str(turn["from"])]
    text = turn.get("text")
    calls = turn.get("calls") or []
    assert isinstance(calls, list)
    tool_calls = [
        RecordedToolCall.model_validate(
            {
                "id": c["id"],
                "function": {"name": c["tool"], "arguments": json.dumps(c.get("args") or {})},
            }
        )
        for c in calls
        if isinstance(c, dict)
    ]
    return RecordedMessage(
        role=role,  # type: ignore[arg-type]
        content=text if isinstance(text, str) else None,
        tool_calls=tool_calls or None,
        tool_call_id=str(turn["call"]) if role == "tool" else None,
    )


class ChatLogFormat(RecordingFormat):
    """A chat log: runs named by their own id, already on τ-bench's task ids."""

    name = "chat-log"
    description = "a chat log"
    names_runs = True

    def detect(self, head: str) -> bool:
        """An object whose first key is ``chat_log``."""
        return head.startswith("{") and head[1:].lstrip().startswith('"chat_log"')

    def holds(self, raw: JsonValue) -> bool:
        """An object with ``chat_log`` and a ``runs`` list."""
        return isinstance(raw, dict) and "chat_log" in raw and isinstance(raw.get("runs"), list)

    def runs(self, raw: JsonValue, path: Path) -> list[RecordedRun]:
        """Each run with its turns; ``info`` keeps the format and the run's own id."""
        assert isinstance(raw, dict) and isinstance(raw["runs"], list)
        out = []
        for k, run in enumerate(raw["runs"]):
            assert isinstance(run, dict) and isinstance(run.get("turns"), list)
            where = f"runs[{k}]"
            traj = [_message(t, f"{where}.turns[{i}]", path) for i, t in enumerate(run["turns"])]
            info: dict[str, JsonValue] = {"format": self.name, "id": run.get("id")}
            out.append(RecordedRun(task_id=str(run["task"]), traj=traj, trial=0, info=info))
        return out

    def recording_id(self, run: RecordedRun, split: str) -> str:
        """The run's own id."""
        return str(run.info["id"])
