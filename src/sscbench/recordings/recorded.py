"""A recorded trajectory as τ-bench writes it: runs of chat messages with their tool calls
in OpenAI format (what :mod:`sscbench.agents.replay` re-emits and
:mod:`sscbench.recordings.tau2` converts τ²-bench results into)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from sscbench.json_types import JsonObject


class RecordedFunction(BaseModel):
    """The function part of a recorded tool call (arguments are raw JSON text)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    name: str
    arguments: str


class RecordedToolCall(BaseModel):
    """One recorded tool call in OpenAI format."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    id: str
    type: str = "function"
    function: RecordedFunction


class RecordedMessage(BaseModel):
    """One message of a recorded trajectory."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    role: Literal["system", "user", "assistant", "tool"]
    content: str | None = None
    tool_calls: list[RecordedToolCall] | None = None
    tool_call_id: str | None = None
    name: str | None = None

    @model_validator(mode="after")
    def _check(self) -> RecordedMessage:
        if self.role in ("system", "user", "tool") and self.content is None:
            raise ValueError(f"a {self.role} message needs content")
        if self.role == "tool" and not self.tool_call_id:
            raise ValueError("a tool message needs tool_call_id")
        if self.role != "assistant" and self.tool_calls:
            raise ValueError(f"a {self.role} message cannot carry tool_calls")
        return self


class RecordedRun(BaseModel):
    """One recorded run: the task it solved, its messages and its recorded reward."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    task_id: int | str
    traj: list[RecordedMessage]
    reward: float | None = None
    trial: int | None = None
    info: JsonObject = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check(self) -> RecordedRun:
        if not any(m.role == "user" for m in self.traj):
            raise ValueError("traj has no user message")
        return self

    def assistant_turns(self) -> list[RecordedMessage]:
        """The recorded assistant messages, in order."""
        return [m for m in self.traj if m.role == "assistant"]

    def taubench_task_id(self, split: str = "test") -> str:
        """The task id in sscbench's τ-bench world (``"<split>/<index>"``)."""
        if isinstance(self.task_id, int):
            return f"{split}/{self.task_id}"
        return self.task_id if "/" in self.task_id else f"{split}/{self.task_id}"

    def system_prompt(self) -> str | None:
        """The recorded system prompt, if any."""
        for message in self.traj:
            if message.role == "system":
                return message.content
        return None
