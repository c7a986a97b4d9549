"""The model-visible ledger as Inspect chat messages, and Inspect's answer as an agent turn.

One ledger event is one message, in ledger order, with a stable id (``run_id:step``)
and the ledger step in its metadata. Tool-call arguments are the model's raw JSON
text in the ledger; Inspect keeps them parsed, so the raw text rides along in the
message metadata and a text that does not parse to an object becomes Inspect's
``parse_error``. Requires the ``inspect`` extra (imported by callers that need it).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
)
from inspect_ai.tool import ToolCall as InspectToolCall
from inspect_ai.tool import ToolInfo, ToolParams

from sscbench.core.agent import AgentTurn
from sscbench.core.ledger import (
    AssistantEvent,
    LedgerEvent,
    SystemEvent,
    ToolCall,
    ToolEvent,
    UserEvent,
)

META_KEY = "sscbench"


def _inspect_call(call: ToolCall) -> InspectToolCall:
    try:
        parsed = call.parsed_arguments()
        error = None if isinstance(parsed, dict) else "arguments are not a JSON object"
    except ValueError as exc:
        parsed, error = None, f"arguments are not JSON: {exc}"
    return InspectToolCall(
        id=call.id,
        function=call.name,
        arguments=parsed if isinstance(parsed, dict) else {},
        parse_error=error,
    )


def ledger_to_messages(events: Sequence[LedgerEvent], run_id: str = "run") -> list[ChatMessage]:
    """Inspect messages for the ledger, one per event in order (exactly what the model saw)."""
    messages: list[ChatMessage] = []
    for event in events:
        meta: dict[str, Any] = {META_KEY: {"step": event.step}}
        common: dict[str, Any] = {"id": f"{run_id}:{event.step}", "metadata": meta}
        if isinstance(event, SystemEvent):
            messages.append(ChatMessageSystem(content=event.content, **common))
        elif isinstance(event, UserEvent):
            messages.append(ChatMessageUser(content=event.content, **common))
        elif isinstance(event, AssistantEvent):
            if event.tool_calls:
                meta[META_KEY]["arguments"] = [c.arguments for c in event.tool_calls]
            messages.append(
                ChatMessageAssistant(
                    content=event.content or "",
                    tool_calls=[_inspect_call(c) for c in event.tool_calls] or None,
                    **common,
                )
            )
        elif isinstance(event, ToolEvent):
            messages.append(
                ChatMessageTool(
                    content=event.content,
                    tool_call_id=event.tool_call_id,
                    function=event.name,
                    **common,
                )
            )
        else:
            raise TypeError(f"not a ledger event: {type(event).__name__}")
    return messages


def messages_to_ledger(messages: Sequence[ChatMessage]) -> list[LedgerEvent]:
    """Ledger events for Inspect messages (the inverse of :func:`ledger_to_messages`):
    step = position; tool-call arguments from the raw text kept in the metadata."""
    events: list[LedgerEvent] = []
    for step, message in enumerate(messages):
        if isinstance(message, ChatMessageSystem):
            events.append(SystemEvent(step=step, content=message.text))
        elif isinstance(message, ChatMessageUser):
            events.append(UserEvent(step=step, content=message.text))
        elif isinstance(message, ChatMessageAssistant):
            raw = ((message.metadata or {}).get(META_KEY) or {}).get("arguments") or []
            calls = tuple(
                ToolCall(
                    id=call.id,
                    name=call.function,
                    arguments=raw[i] if i < len(raw) else json.dumps(call.arguments),
                )
                for i, call in enumerate(message.tool_calls or [])
            )
            events.append(AssistantEvent(step=step, content=message.text or None, tool_calls=calls))
        elif isinstance(message, ChatMessageTool):
            events.append(
                ToolEvent(
                    step=step,
                    tool_call_id=message.tool_call_id or "",
                    name=message.function or "",
                    content=message.text,
                )
            )
    return events


def tool_infos(schemas: list[dict[str, Any]]) -> list[ToolInfo]:
    """The world's OpenAI-style tool schemas as Inspect tool definitions."""
    infos = []
    for schema in schemas:
        function = schema.get("function", schema)
        parameters = function.get("parameters") or {"type": "object", "properties": {}}
        infos.append(
            ToolInfo(
                name=function["name"],
                description=function.get("description", ""),
                parameters=ToolParams.model_validate(parameters),
            )
        )
    return infos


def assistant_turn(message: ChatMessageAssistant) -> AgentTurn:
    """An Inspect assistant message as sscbench's agent turn (text and tool calls).

    Parsed arguments become JSON text. Inspect drops the raw text of arguments it could
    not parse; such a call carries Inspect's parse error as its (non-JSON) arguments, so
    the tool-execution point answers it as a malformed call, never as a valid one.
    """
    calls = []
    for call in message.tool_calls or []:
        if call.parse_error:
            arguments = call.parse_error if call.parse_error.strip() else "<unparsed>"
        else:
            arguments = json.dumps(call.arguments, ensure_ascii=False)
        calls.append(ToolCall(id=call.id, name=call.function, arguments=arguments))
    text = message.text if message.content else None
    return AgentTurn(content=text or None, tool_calls=tuple(calls))
