"""Agent strategies of the ``openai`` agent kind: tool-calling, act and react.

``tool-calling`` sends the tools as the API's ``tools`` and reads ``tool_calls``.
``act`` and ``react`` follow τ-bench's strategies of the same names: the tools are
listed in the system prompt, every turn is one JSON action in the message content
(``respond`` speaks to the user), a tool's observation comes back as the next user
message ``API output: ...``, and react writes a short thought before each action.

The ledger records an action as the call it is — an assistant event with one tool
call (the react thought as its text), then the execution point's tool event — and
``respond`` as an assistant message, so measurement reads the same events whatever
the strategy. The prompt a model saw is rebuilt from the ledger deterministically
(:func:`action_messages`); the text here is ours, written from τ-bench's documented
behaviour.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Literal

from sscbench.agents.actions import (
    RESPOND,
    RESPOND_FIELD,
    ParsedAction,
    Unparsable,
    parse_action,
    render_action,
    respond_tool,
    tool_function,
    tool_name,
)
from sscbench.agents.demo import demo_messages
from sscbench.core.actions import UNPARSABLE_ACTION
from sscbench.core.agent import AgentTurn
from sscbench.core.ledger import (
    AssistantEvent,
    LedgerEvent,
    SystemEvent,
    ToolCall,
    ToolEvent,
    UserEvent,
)
from sscbench.json_types import JsonObject, JsonValue
from sscbench.reading import loads_json

Strategy = Literal["tool-calling", "act", "react"]
STRATEGIES: tuple[str, ...] = ("tool-calling", "act", "react")
OBSERVATION_PREFIX = "API output: "


def _compact_tools(tools: Sequence[JsonObject]) -> str:
    lines = []
    for tool in [*tools, respond_tool()]:
        function = tool_function(tool)
        lines.append(
            json.dumps(
                {
                    "name": function["name"],
                    "description": function.get("description", ""),
                    "parameters": function.get("parameters", {}),
                },
                ensure_ascii=False,
                separators=(",", ":"),
            )
        )
    return "\n".join(lines)


READ_EXAMPLES = (
    # (record read, its key, a made-up id, the user id its record names, the change)
    ("get_reservation_details", "reservation_id", "ABC123", "jane_doe_1", "the cabin of"),
    ("get_order_details", "order_id", "#W0000000", "jane_doe_1", "an item of"),
)
PROFILE_READ = "get_user_details"


def _read_first_example(tools: Sequence[JsonObject]) -> str:
    """A worked exchange that reads the record, then the user's profile, before a change.

    Small models otherwise write first with invented ids (measured for issue 21); the
    ids are made up and the record is elided, so nothing here is a task's answer.
    """
    names = {tool_name(tool) for tool in tools}
    for name, key, value, user, change in READ_EXAMPLES:
        if name not in names:
            continue
        noun = key.removesuffix("_id")
        lines = [
            f"\nExample (made-up ids):\nUser: Please change {change} my {noun} {value}.",
            "You: " + render_action(name, {key: value}),
            f'User: {OBSERVATION_PREFIX}{{"{key}": "{value}", "user_id": "{user}", ...}}',
        ]
        if PROFILE_READ in names:
            lines += [
                "You: " + render_action(PROFILE_READ, {"user_id": user}),
                f'User: {OBSERVATION_PREFIX}{{"user_id": "{user}", "payment_methods": ...}}',
            ]
        lines.append(
            "Only then make the change, copying the ids, flights or items and the payment "
            f"id from what the tools returned. Every conversation starts with {name} or "
            f"{PROFILE_READ}, never with a change."
        )
        return "\n".join(lines)
    return ""


def action_instructions(strategy: Strategy, tools: Sequence[JsonObject]) -> str:
    """What the system prompt adds under act/react: the actions and the reply format."""
    if strategy == "react":
        shape = (
            "Reply with one JSON object: first one short line of reasoning (what you know "
            "and what you do next), then the action:\n"
            '{"thought": "<reasoning>", "name": "<action name>", "arguments": {<its arguments>}}'
        )
    else:
        shape = (
            'Reply with the action only:\n{"name": "<action name>", "arguments": {<its arguments>}}'
        )
    return (
        "\n\n# Actions\nYou act through exactly one action per reply. The actions "
        "(name, description, JSON schema of the arguments):\n"
        f"{_compact_tools(tools)}\n\n"
        "# Reply format\n"
        f"{shape}\n"
        f'To speak to the user, use the action "{RESPOND}" with the argument '
        f'"{RESPOND_FIELD}". Any other action calls a tool; its result comes back as a '
        f'message starting with "{OBSERVATION_PREFIX.strip()}". The action must be valid '
        "JSON. Use only values given by the user or returned by a tool; never invent ids "
        "or placeholders. Before changing anything, read the records it concerns (the "
        "user's profile, the reservation or order) with the read tools."
        f"{_read_first_example(tools)}"
    )


def _arguments_value(raw: str) -> JsonValue:
    """A call's arguments as JSON (None when they do not parse)."""
    try:
        return loads_json(raw) if raw.strip() else {}
    except ValueError:
        return None


def _assistant_text(event: AssistantEvent, strategy: Strategy) -> str:
    """The reply an assistant event stands for, as the model wrote it under the strategy."""
    if not event.tool_calls:
        thought = "" if strategy == "react" else None  # a respond's thought is not kept
        return render_action(RESPOND, {RESPOND_FIELD: event.content or ""}, thought)
    thought = (event.content or "").strip() if strategy == "react" else None
    call = event.tool_calls[0]
    if call.name == UNPARSABLE_ACTION:
        return call.arguments  # the reply exactly as written
    arguments = _arguments_value(call.arguments)
    if arguments is None:  # a name with broken arguments: show what came
        arguments = call.arguments
    return render_action(call.name, arguments, thought)


def action_messages(
    events: Sequence[LedgerEvent], strategy: Strategy, tools: Sequence[JsonObject]
) -> list[JsonObject]:
    """The ledger as the chat messages an act/react model sees (plain roles, no tools)."""
    messages: list[JsonObject] = []
    extra = action_instructions(strategy, tools)
    for event in events:
        if isinstance(event, SystemEvent):
            messages.append({"role": "system", "content": event.content + extra})
        elif isinstance(event, UserEvent):
            messages.append({"role": "user", "content": event.content})
        elif isinstance(event, AssistantEvent):
            messages.append({"role": "assistant", "content": _assistant_text(event, strategy)})
        elif isinstance(event, ToolEvent):
            messages.append({"role": "user", "content": OBSERVATION_PREFIX + event.content})
    if not messages or messages[0]["role"] != "system":
        messages.insert(0, {"role": "system", "content": extra.strip()})
    messages[1:1] = demo_messages(tools, react=strategy == "react")
    return messages


def _call_id(ledger: Sequence[LedgerEvent]) -> str:
    used = {c.id for e in ledger if isinstance(e, AssistantEvent) for c in e.tool_calls}
    call_id, suffix = f"call_{len(ledger)}_0", 0
    while call_id in used:
        suffix += 1
        call_id = f"call_{len(ledger)}_0_{suffix}"
    return call_id


def action_turn(
    content: str | None, strategy: Strategy, ledger: Sequence[LedgerEvent]
) -> tuple[AgentTurn, ParsedAction | Unparsable]:
    """The turn one act/react reply stands for, and what was parsed from it.

    ``respond`` is a message to the user; any other action is one tool call (react's
    thought as the turn's text); an unparsable reply is a call of
    :data:`UNPARSABLE_ACTION` carrying the reply, which the execution point answers
    with a tool error.
    """
    parsed = parse_action(content, with_thought=strategy == "react")
    if isinstance(parsed, Unparsable):
        call = ToolCall(id=_call_id(ledger), name=UNPARSABLE_ACTION, arguments=parsed.text)
        return AgentTurn(content=None, tool_calls=(call,)), parsed
    if parsed.name == RESPOND:
        text = parsed.arguments.get(RESPOND_FIELD)
        text = text if isinstance(text, str) else json.dumps(parsed.arguments)
        return AgentTurn(content=text), parsed
    call = ToolCall(
        id=_call_id(ledger),
        name=parsed.name,
        arguments=json.dumps(parsed.arguments, ensure_ascii=False),
    )
    return AgentTurn(content=parsed.thought, tool_calls=(call,)), parsed
