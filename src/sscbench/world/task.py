"""Tasks: a user goal with its ground-truth actions and required outputs."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from sscbench.json_types import JsonObject


class Action(BaseModel):
    """One tool call of a task's ground truth."""

    model_config = ConfigDict(frozen=True)

    name: str
    kwargs: dict[str, Any] = Field(default_factory=dict)


class Task(BaseModel):
    """A user goal: who the user is, what they say, what the correct run does.

    ``intent`` is the structured goal that generated worlds attach (kind and slots,
    e.g. ``{"kind": "cancel", "reservation_id": ...}``); τ-bench tasks have none.
    """

    model_config = ConfigDict(frozen=True)

    task_id: str
    domain: str
    user_id: str
    instruction: str
    actions: tuple[Action, ...] = ()
    outputs: tuple[str, ...] = ()
    annotator: str | None = None
    intent: JsonObject | None = None
