"""A read-only view of a model-visible ledger that pairs calls with observations.

Measurement and admission read only this view (built from the ledger alone), never
the evaluator-only log.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from sscbench.core.ledger import (
    AssistantEvent,
    LedgerEvent,
    SystemEvent,
    ToolCall,
    ToolEvent,
    UserEvent,
)
from sscbench.reading import loads_json


@dataclass(frozen=True)
class CallView:
    """One tool call, where it was made, its parsed arguments and its delivered observation."""

    call_step: int
    observation_step: int | None
    call_id: str
    name: str
    raw_arguments: str
    arguments: Any  # parsed JSON, or None when the text did not parse
    observation: str | None

    @cached_property
    def data(self) -> Any:
        """The observation parsed as JSON, or None."""
        if self.observation is None:
            return None
        try:
            return loads_json(self.observation, max_depth=None)
        except (ValueError, TypeError):
            return None

    def arg(self, name: str) -> Any:
        """One argument's value, or None."""
        return self.arguments.get(name) if isinstance(self.arguments, dict) else None


@dataclass(frozen=True)
class MessageView:
    """A text message in the ledger."""

    step: int
    role: str  # "assistant" | "user" | "system"
    content: str


class LedgerView:
    """Calls, observations and messages of one ledger, in delivery order."""

    def __init__(self, events: Sequence[LedgerEvent]):
        self.events = events
        calls: list[CallView] = []
        # A tool event answers a call of the latest assistant turn: ids are matched
        # within that turn only (recorded trajectories reuse ids across turns).
        pending: list[tuple[int, ToolCall]] = []
        messages: list[MessageView] = []
        for event in events:
            if isinstance(event, AssistantEvent):
                calls.extend(_call_view(step, None, call, None) for step, call in pending)
                pending = [(event.step, call) for call in event.tool_calls]
                if event.content:
                    messages.append(MessageView(event.step, "assistant", event.content))
            elif isinstance(event, ToolEvent):
                index = next(
                    (i for i, (_, c) in enumerate(pending) if c.id == event.tool_call_id),
                    0 if pending else None,
                )
                if index is None:
                    continue
                call_step, call = pending.pop(index)
                calls.append(_call_view(call_step, event.step, call, event.content))
            elif isinstance(event, UserEvent):
                messages.append(MessageView(event.step, "user", event.content))
            elif isinstance(event, SystemEvent):
                messages.append(MessageView(event.step, "system", event.content))
        calls.extend(_call_view(step, None, call, None) for step, call in pending)
        calls.sort(key=lambda c: (c.call_step, c.observation_step or 0))
        self.calls = calls
        self.messages = messages

    @property
    def length(self) -> int:
        """Number of events."""
        return len(self.events)

    def calls_named(self, *names: str) -> list[CallView]:
        """Calls of the given tools, in order."""
        return [c for c in self.calls if c.name in names]

    def observation_at(self, step: int) -> CallView | None:
        """The call whose observation was delivered at ``step``."""
        for call in self.calls:
            if call.observation_step == step:
                return call
        return None

    def assistant_messages(self) -> list[MessageView]:
        """The agent's text replies."""
        return [m for m in self.messages if m.role == "assistant"]


def _call_view(
    call_step: int, obs_step: int | None, call: ToolCall, observation: str | None
) -> CallView:
    try:  # the bounded decoder: deep or huge-number arguments are text, as in the run
        arguments = call.parsed_arguments()
    except ValueError:
        arguments = None
    return CallView(call_step, obs_step, call.id, call.name, call.arguments, arguments, observation)
