"""The second reader: a judge model's reading of the runs the rules marked unread.

The rule reader marks on a measurement row what it met after the fault and could not
interpret (``unread`` > 0; :mod:`sscbench.study.second_reading`). Those runs, and only
those, are sent with their fault contract to the study's judge model with the L1
oracle's prompt (:data:`~sscbench.oracles.prompts.L1_JUDGEMENT`: the same trajectory,
tool schemas, policy and contract), asked in addition for T_S, and for the exact text
of each step it names. A quote is checked against the ledger: it must occur, after
collapsing runs of white space, in the text of the step it points to (a message's
content, a tool call's ``name(arguments)``, a tool result). A quote that does not makes
that proposal invalid — kept and shown as such, never dropped or repaired. A failed call
or an unparsable answer is an abstention with its reason, never a negative.

The proposals go to ``STUDY/second_reading.jsonl``; ``measurements.jsonl`` is never
written here, and no reader takes a proposal for the measurement.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence

from sscbench.core.ledger import AssistantEvent, LedgerEvent, ToolEvent, UserEvent
from sscbench.core.values import INF, NOT_APPLICABLE
from sscbench.core.view import LedgerView
from sscbench.faults.contract import FaultContract
from sscbench.json_types import JsonMapping
from sscbench.oracles.prompts import L1_JUDGEMENT, build_messages, read_object
from sscbench.study.second_reading import Proposal

SECOND_ANSWER = """

Also give t_s: the step number of the FIRST event after the fault-bearing observation
where the agent uses the affected fact - with either value, v or v' - in a message to
the user or in a tool call (the first dependent use); null if it never uses it.

Support every step you give with evidence: copy, character for character, a short
passage (a few words, at most one sentence) of the text shown at that very step. A
quote that does not occur at the step you name makes that answer invalid.

Answer with one JSON object and nothing else:
{"t_s": step number or null, "t_s_quote": "exact text of step t_s" or null,
 "adopted": true or false, "t_u": step number or null,
 "t_u_quote": "exact text of step t_u" or null, "reason": "one sentence"}
t_u must be null when adopted is false; give a quote for every step you give."""

SYSTEM_PROMPT = L1_JUDGEMENT + SECOND_ANSWER
"""The second reader's instructions: the L1 oracle's judgement, its own answer format."""
PROMPT_SHA256 = hashlib.sha256(SYSTEM_PROMPT.encode("utf-8")).hexdigest()
"""Recorded with every reading: which prompt the proposals answer."""

QUOTE_KEPT = 1000
"""Characters of an invalid quote kept (a valid one is part of its step's text)."""
KEYS = {"t_s", "t_s_quote", "adopted", "t_u", "t_u_quote", "reason"}
_SPACE = re.compile(r"\s+")


def second_messages(
    ledger: list[LedgerEvent],
    tool_schemas: Sequence[JsonMapping],
    policy: str,
    contract: FaultContract,
) -> list[dict[str, str]]:
    """The chat messages of one second reading: the L1 oracle's messages (policy, tool
    schemas, contract, numbered trajectory) under the second reader's instructions."""
    messages = build_messages(LedgerView(ledger), tool_schemas, policy, contract)
    return [{"role": "system", "content": SYSTEM_PROMPT}, *messages[1:]]


def _squeeze(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def step_texts(event: LedgerEvent) -> list[str]:
    """The texts a quote from ``event`` may come from, as the trajectory shows them."""
    if isinstance(event, UserEvent | ToolEvent):
        return [event.content]
    if isinstance(event, AssistantEvent):
        calls = [f"{c.name}({c.arguments})" for c in event.tool_calls]
        return [event.content or "", *calls]
    return []


def quote_problem(ledger: list[LedgerEvent], step: int, quote: object) -> str | None:
    """Why ``quote`` is no evidence of ``step`` (None: it occurs there)."""
    if not isinstance(quote, str) or not _squeeze(quote):
        return f"no quote given for step {step}"
    events = [e for e in ledger if getattr(e, "step", None) == step]
    texts = [_squeeze(t) for e in events for t in step_texts(e)]
    if not texts:
        return f"step {step} has no message, tool call or tool result to quote"
    if not any(_squeeze(quote) in t for t in texts):
        return f"the quote does not occur at step {step}"
    return None


def _step(data: JsonMapping, key: str, steps: set[int]) -> int | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{key} must be a step number or null, not {value!r}")
    if value not in steps:
        raise ValueError(f"{key} {value} is no step of the trajectory")
    return value


def parse_second(text: str, ledger: list[LedgerEvent]) -> tuple[dict[str, Proposal], str]:
    """The proposals (T_S, T_U, A) of an answer and its reason, each quote checked against
    the ledger; ValueError says why the answer cannot be read at all."""
    data = read_object(text)
    if set(data) - KEYS or "adopted" not in data:
        raise ValueError(f"expected the keys {sorted(KEYS)}; got {sorted(data)}")
    adopted, reason = data["adopted"], data.get("reason", "")
    if not isinstance(adopted, bool):
        raise ValueError(f"adopted must be true or false, not {adopted!r}")
    if not isinstance(reason, str):
        raise ValueError("reason must be a string")
    steps = {e.step for e in ledger if isinstance(getattr(e, "step", None), int)}
    t_s, t_u = _step(data, "t_s", steps), _step(data, "t_u", steps)
    if t_u is not None and not adopted:
        raise ValueError("t_u given although adopted is false")
    proposals = {
        "T_S": _located(ledger, t_s, data.get("t_s_quote"), INF),
        "T_U": _located(ledger, t_u, data.get("t_u_quote"), NOT_APPLICABLE),
    }
    if adopted and t_u is None:  # adoption without the step it rests on: no evidence
        proposals["T_U"] = Proposal(
            value=NOT_APPLICABLE, valid=False, problem="adopted without a t_u step to quote"
        )
    evidence = proposals["T_U"] if adopted else proposals["T_S"]
    proposals["A"] = Proposal(
        value=int(adopted),
        quote=evidence.quote,
        quote_step=evidence.quote_step,
        valid=evidence.valid,
        problem=None if evidence.valid else f"its evidence: {evidence.problem}",
    )
    return proposals, reason


def _located(ledger: list[LedgerEvent], step: int | None, quote: object, none: str) -> Proposal:
    """A step proposal with its quote checked (``none``: the value of no step)."""
    if step is None:
        return Proposal(value=none, valid=True)
    problem = quote_problem(ledger, step, quote)
    text = quote if isinstance(quote, str) else None
    if text is not None and problem is not None:
        text = text[:QUOTE_KEPT]  # a valid quote is bounded by its step; an invalid one is not
    return Proposal(value=step, quote=text, quote_step=step, valid=problem is None, problem=problem)


def messages_sha256(messages: list[dict[str, str]]) -> str:
    """The hash of one call's whole messages (what exactly the judge was shown)."""
    return hashlib.sha256(json.dumps(messages, sort_keys=True).encode("utf-8")).hexdigest()


__all__ = [
    "PROMPT_SHA256",
    "SYSTEM_PROMPT",
    "parse_second",
    "quote_problem",
    "second_messages",
    "step_texts",
]
