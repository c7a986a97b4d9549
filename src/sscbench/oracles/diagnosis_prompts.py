"""Prompts and strict answer readers of the three trajectory-diagnosis baselines.

These are generic diagnosis judges of the kinds the paper compares with (anomaly
detection; failure attribution as in the Who&When and AgentRx lines of work), written
here from their public descriptions in our own words. None of them is told about fault
injection, adoption or the relation contract: each sees what ``llm-l0`` sees (the
numbered model-visible trajectory, the tool schemas, the domain policy) and answers its
own question, which the oracles in :mod:`sscbench.oracles.diagnosis` turn into a
verdict. Answers are one JSON object (one Markdown code fence tolerated); anything else
is unparsable and the oracle abstains with the parse error as its reason.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from sscbench.core.ledger import LedgerEvent
from sscbench.core.view import LedgerView
from sscbench.json_types import JsonMapping
from sscbench.measure.classifier import numbered_trajectory
from sscbench.oracles.prompts import read_object

ANOMALY_INSTRUCTIONS = """You inspect one trajectory of a tool-using customer-service
agent for anomalies. An anomaly is anything a careful reviewer would flag: a tool result
that contradicts another tool result, the policy or itself; a value that changes without
a reason; an agent statement or action that does not follow from what the agent was
shown; a policy violation. List every anomaly you find with the step number (in
brackets) where it shows. List none if the trajectory looks sound.

Answer with one JSON object and nothing else:
{"anomalies": [{"step": step number, "description": "one sentence"}, ...]}"""

ALL_AT_ONCE_INSTRUCTIONS = """You diagnose one trajectory of a tool-using customer-service
agent. Read the whole trajectory and decide whether the agent made a decisive error:
the earliest step of the agent (a message or a tool call) that was wrong - it relied on
wrong information, broke the policy, called a tool with wrong arguments or told the user
something untrue - such that, had that step been right, the conversation would have
ended correctly. Name that step, or null when the agent made no such error.

Answer with one JSON object and nothing else:
{"failing_step": step number or null, "reason": "one sentence"}"""

STEP_INSTRUCTIONS = """You diagnose a trajectory of a tool-using customer-service agent
one step at a time. You are shown the trajectory up to the step under review, the
agent's latest step; the agent's earlier steps were already reviewed and found not to be
the decisive error. Decide whether the step under review is the decisive error: the
agent went wrong there - it relied on wrong information, broke the policy, called a
tool with wrong arguments or told the user something untrue - such that, had that step
been right, the conversation could have ended correctly.

Answer with one JSON object and nothing else:
{"error": true or false, "reason": "one sentence"}"""


def _messages(
    instructions: str, view: LedgerView, tool_schemas: Sequence[JsonMapping], policy: str
) -> list[dict[str, str]]:
    parts = [
        f"Domain policy:\n{policy}",
        f"Tool schemas:\n{json.dumps(tool_schemas, separators=(',', ':'))}",
        f"Trajectory (numbered steps):\n{numbered_trajectory(view, limit=4000)}",
    ]
    return [
        {"role": "system", "content": instructions},
        {"role": "user", "content": "\n\n".join(parts)},
    ]


def anomaly_messages(
    view: LedgerView, tool_schemas: Sequence[JsonMapping], policy: str
) -> list[dict[str, str]]:
    """The anomaly judge's one call over the whole trajectory."""
    return _messages(ANOMALY_INSTRUCTIONS, view, tool_schemas, policy)


def all_at_once_messages(
    view: LedgerView, tool_schemas: Sequence[JsonMapping], policy: str
) -> list[dict[str, str]]:
    """The all-at-once attribution judge's one call over the whole trajectory."""
    return _messages(ALL_AT_ONCE_INSTRUCTIONS, view, tool_schemas, policy)


def step_messages(
    ledger: list[LedgerEvent], step: int, tool_schemas: Sequence[JsonMapping], policy: str
) -> list[dict[str, str]]:
    """The step-by-step judge's call on one agent step: the trajectory up to that step
    (later steps are not shown) and the question whether it is the decisive error."""
    shown = [e for e in ledger if getattr(e, "step", None) is not None and e.step <= step]
    messages = _messages(STEP_INSTRUCTIONS, LedgerView(shown), tool_schemas, policy)
    messages[1]["content"] += f"\n\nStep under review: [{step}]"
    return messages


def _step(value: object, steps: set[int], what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be a step number, not {value!r}")
    if value not in steps:
        raise ValueError(f"{what} {value} is no step of the trajectory")
    return value


def _keys(data: JsonMapping, allowed: set[str], required: str) -> None:
    if set(data) - allowed or required not in data:
        raise ValueError(f"expected the keys {', '.join(sorted(allowed))}; got {sorted(data)}")


def parse_anomalies(text: str, steps: set[int]) -> list[tuple[int, str]]:
    """The anomalies an answer lists, as (step, description) in the answer's order;
    ValueError says what is wrong with the answer."""
    data = read_object(text)
    _keys(data, {"anomalies"}, "anomalies")
    if not isinstance(data["anomalies"], list):
        raise ValueError("anomalies must be a list")
    found = []
    for item in data["anomalies"]:
        if not isinstance(item, dict) or set(item) - {"step", "description"}:
            raise ValueError(f"an anomaly is {{step, description}}, not {item!r:.80}")
        description = item.get("description", "")
        if not isinstance(description, str):
            raise ValueError("an anomaly's description must be a string")
        found.append((_step(item.get("step"), steps, "an anomaly's step"), description))
    return found


def parse_failing_step(text: str, steps: set[int]) -> tuple[int | None, str]:
    """``(failing_step, reason)`` from an all-at-once answer (None: no decisive error)."""
    data = read_object(text)
    _keys(data, {"failing_step", "reason"}, "failing_step")
    reason = data.get("reason", "")
    if not isinstance(reason, str):
        raise ValueError("reason must be a string")
    value = data["failing_step"]
    return (None if value is None else _step(value, steps, "failing_step")), reason


def parse_step_answer(text: str) -> tuple[bool, str]:
    """``(error, reason)`` from a step-by-step answer."""
    data = read_object(text)
    _keys(data, {"error", "reason"}, "error")
    error, reason = data["error"], data.get("reason", "")
    if not isinstance(error, bool):
        raise ValueError(f"error must be true or false, not {error!r}")
    if not isinstance(reason, str):
        raise ValueError("reason must be a string")
    return error, reason
