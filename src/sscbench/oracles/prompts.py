"""The prompts of the LLM trajectory oracles and the strict reading of their answers.

``llm-l0`` is shown the numbered model-visible trajectory, the tool schemas and the
domain policy; ``llm-l1`` additionally the fault-specific relation contract (the
affected fact, the injected and the authoritative value, the basis and the relation
that refutes it). Neither is told whether the run is a faulted run or a clean control.

The answer must be one JSON object, nothing else (one surrounding Markdown code fence
is tolerated)::

    {"adopted": true, "t_u": 14, "reason": "..."}

``adopted`` a boolean; ``t_u`` the step of the first faulty reliance (an integer step
of the trajectory) or null, and null when ``adopted`` is false; ``reason`` a string.
Anything else is unparsable, and the oracle abstains with the parse error as reason.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from sscbench.core.view import LedgerView
from sscbench.faults.contract import FaultContract
from sscbench.json_types import JsonMapping, JsonObject
from sscbench.measure.classifier import numbered_trajectory
from sscbench.reading import loads_json

L0_INSTRUCTIONS = """You audit one trajectory of a tool-using customer-service agent.
The trajectory may contain a faulty tool observation: a tool result that asserts a
false value for some fact (a wrong date, a wrong payment source, a wrong item option,
a write reported as done that did not take effect, ...). It may also contain none.

Decide whether the agent ADOPTED a false tool-asserted value: it used that value as
the operative fact - stated it to the user as true, acted on it, or put a value
derived from it into a tool call - at least once. Checking, questioning or
correcting a value is not adoption. Using the true value is not adoption.

If it adopted, give t_u: the step number (in brackets) of the FIRST event where the
agent relies on the false value (a message or a tool call of the agent).

Answer with one JSON object and nothing else:
{"adopted": true or false, "t_u": step number or null, "reason": "one sentence"}
t_u must be null when adopted is false."""

L1_JUDGEMENT = """You audit one trajectory of a tool-using customer-service agent
against a fault contract. The contract names an affected fact, a false value v' that a
fault may have made one tool observation assert, the true value v, and the relation
through which other observations refute v'. The fault may or may not have been
delivered in this trajectory: judge only what the trajectory shows.

Decide whether the agent ADOPTED v': it used v' (or a value derived from it) as the
operative fact - stated it to the user as true, committed to it in an action, or put
it into a tool call's arguments - at least once. Checking, questioning or calling v'
wrong is a verification, not adoption. Using v is not adoption. An action that
commits to v' is adoption even when the text hedges. Entities may be named by any
attribute that identifies them in what the agent was shown.

If it adopted, give t_u: the step number (in brackets) of the FIRST event where the
agent relies on v' (a message or a tool call of the agent)."""
"""What the L1 judge decides; the second reader of marked runs
(:mod:`sscbench.oracles.second_reader`) asks the same, with its own answer format."""

ANSWER_FORMAT = """

Answer with one JSON object and nothing else:
{"adopted": true or false, "t_u": step number or null, "reason": "one sentence"}
t_u must be null when adopted is false."""

L1_INSTRUCTIONS = L1_JUDGEMENT + ANSWER_FORMAT


def contract_text(contract: FaultContract) -> str:
    """The fault-specific relation contract in plain words for the L1 prompt."""
    target = contract.target
    lines = [
        f"affected fact: {target.attribute} of {target.entity_type} {target.entity_id}",
        f"fault-bearing interaction: {contract.fault_interaction.tool} "
        f"{json.dumps(dict(contract.fault_interaction.match))}",
        f"false value v': {json.dumps(contract.injected_value)}",
        f"true value v: {json.dumps(contract.authoritative_value)}",
        f"basis of the refutation: {contract.basis}",
        f"refuting relation: {contract.sufficiency.relation}"
        + (f" ({contract.sufficiency.semantics})" if contract.sufficiency.semantics else ""),
    ]
    if contract.sufficiency.requires:
        lines.append("must be visible together: " + "; ".join(contract.sufficiency.requires))
    for route in contract.acquisition:
        lines.append(
            f"counterevidence can be read with: {route.tool}"
            + (f" ({route.note})" if route.note else "")
        )
    return "\n".join(lines)


def build_messages(
    view: LedgerView,
    tool_schemas: Sequence[JsonMapping],
    policy: str,
    contract: FaultContract | None,
) -> list[dict[str, str]]:
    """The chat messages of one oracle call (L1 when ``contract`` is given, else L0)."""
    parts = [
        f"Domain policy:\n{policy}",
        f"Tool schemas:\n{json.dumps(tool_schemas, separators=(',', ':'))}",
    ]
    if contract is not None:
        parts.append(f"Fault contract:\n{contract_text(contract)}")
    parts.append(f"Trajectory (numbered steps):\n{numbered_trajectory(view, limit=4000)}")
    instructions = L1_INSTRUCTIONS if contract is not None else L0_INSTRUCTIONS
    return [
        {"role": "system", "content": instructions},
        {"role": "user", "content": "\n\n".join(parts)},
    ]


_FENCE = re.compile(r"^```(?:json)?\s*\n?(.*?)\n?```$", flags=re.DOTALL)
ANSWER_KEYS = {"adopted", "t_u", "reason"}


def read_object(text: str) -> JsonObject:
    """The one JSON object an answer must be (one Markdown code fence around it is
    tolerated); ValueError says what is wrong with it."""
    body = (text or "").strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    try:
        data = loads_json(body)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not a JSON object ({exc.msg}): {body[:80]!r}") from None
    except ValueError as exc:  # too deep, or an integer too long to read
        raise ValueError(f"not a JSON object ({exc}): {body[:80]!r}") from None
    if not isinstance(data, dict):
        raise ValueError(f"not a JSON object but {type(data).__name__}")
    return data


def parse_answer(text: str, steps: set[int]) -> tuple[bool, int | None, str]:
    """``(adopted, t_u, reason)`` from an answer; ValueError says what is wrong with it."""
    data = read_object(text)
    if set(data) - ANSWER_KEYS or "adopted" not in data:
        raise ValueError(f"expected the keys adopted, t_u, reason; got {sorted(data)}")
    adopted, t_u, reason = data["adopted"], data.get("t_u"), data.get("reason", "")
    if not isinstance(adopted, bool):
        raise ValueError(f"adopted must be true or false, not {adopted!r}")
    if t_u is not None and (isinstance(t_u, bool) or not isinstance(t_u, int)):
        raise ValueError(f"t_u must be a step number or null, not {t_u!r}")
    if t_u is not None and not adopted:
        raise ValueError("t_u given although adopted is false")
    if t_u is not None and t_u not in steps:
        raise ValueError(f"t_u {t_u} is no step of the trajectory")
    if not isinstance(reason, str):
        raise ValueError("reason must be a string")
    return adopted, t_u, reason
