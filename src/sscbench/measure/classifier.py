"""Use classifiers: the LLM classifier, and the protocol any classifier meets.

Extraction finds the candidate uses; a classifier labels each one under the fault
contract. With no classifier given, each operator's own contract rules label them
(offline and deterministic: :func:`sscbench.measure.reconstruct.reconstruct_from_fault`). The LLM classifier sees the contract and the numbered model-visible
trajectory only, over any OpenAI-compatible endpoint.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from typing import Protocol

from sscbench.core.ledger import AssistantEvent, SystemEvent, ToolEvent, UserEvent
from sscbench.core.values import ClassifiedUse, UseCandidate, UseLabel
from sscbench.core.view import LedgerView
from sscbench.faults.contract import FaultContract
from sscbench.faults.registry import MeasuredOperator
from sscbench.json_types import JsonObject
from sscbench.llm.endpoint import EndpointConfig
from sscbench.reading import loads_json


class UseClassifier(Protocol):
    """Labels one candidate use."""

    def classify(
        self,
        operator: MeasuredOperator,
        contract: FaultContract,
        view: LedgerView,
        candidate: UseCandidate,
    ) -> ClassifiedUse:
        """The label of the candidate and the reason for it."""
        ...


INSTRUCTIONS = """You label one event in a tool-using agent's trajectory for a fault-injection study.
A fault made one tool observation assert a false value v' about an affected fact; the
contract below gives the fact, v', the true value v and what refutes v'.
Label the event at the given step with exactly one of:
- faulty_reliance: the agent uses v' (or a value derived from it) as the operative fact;
  an action that commits to v' is reliance even if the text hedges;
- dependent_use: the event depends on the fact but does not treat v' as operative
  (e.g. it uses the true value, or says the faulty value is wrong);
- verification: the agent only checks, questions or points out an inconsistency in the
  disputed value (this still counts as a use of the fact, but never as reliance);
Entities may be named by any attribute that identifies them in what the agent was shown
(a card by brand or last digits, a reservation by route or flight number); handoff
summaries and call arguments derived from the fact count like messages.
- not_use: the event does not depend on the fact;
- undecidable: the trajectory does not let you decide.
Answer with JSON only: {"label": "...", "reason": "..."}"""


def numbered_trajectory(view: LedgerView, limit: int = 600) -> str:
    """The model-visible trajectory, one numbered line per event (long texts cut)."""
    lines = []
    for event in view.events:
        if isinstance(event, SystemEvent):
            text = "system: (policy)"
        elif isinstance(event, UserEvent):
            text = f"user: {event.content}"
        elif isinstance(event, AssistantEvent):
            calls = "; ".join(f"call {c.name}({c.arguments})" for c in event.tool_calls)
            text = f"assistant: {event.content or ''} {calls}".strip()
        elif isinstance(event, ToolEvent):
            text = f"tool {event.name}: {event.content}"
        else:
            continue
        lines.append(f"[{event.step}] {text[:limit]}")
    return "\n".join(lines)


def _parse_label(text: str) -> tuple[UseLabel, str]:
    match = re.search(r"\{.*\}", text or "", flags=re.DOTALL)
    try:
        data = loads_json(match.group(0)) if match else {}
        return UseLabel(str(data.get("label", "")).strip()), str(data.get("reason", ""))
    except (json.JSONDecodeError, ValueError):
        return UseLabel.UNDECIDABLE, f"unparseable answer: {(text or '')[:80]}"


class LLMClassifier:
    """Asks a chat model for each candidate's label; failures are harness errors."""

    def __init__(self, config: EndpointConfig):
        from sscbench.llm.retry import EndpointHealth, make_client

        self.config = config
        self._loop = asyncio.new_event_loop()
        self._client = make_client(config)
        self._rng = random.Random("llm-classifier")
        # a dead endpoint stops the measurement (EndpointUnreachable), not one failure a row
        self.health = EndpointHealth(config.base_url, config.unreachable_after)

    def classify(
        self,
        operator: MeasuredOperator,
        contract: FaultContract,
        view: LedgerView,
        candidate: UseCandidate,
    ) -> ClassifiedUse:
        """One chat completion per candidate."""
        from sscbench.llm.completion import complete_with_retries
        from sscbench.llm.responses import first_message
        from sscbench.llm.secrets import redact

        body: JsonObject = {
            "model": self.config.model,
            "temperature": self.config.temperature,
            "messages": [
                {"role": "system", "content": INSTRUCTIONS},
                {
                    "role": "user",
                    "content": (
                        f"Contract:\n{contract.model_dump_json(indent=1)}\n\n"
                        f"Trajectory:\n{numbered_trajectory(view)}\n\n"
                        f"Event to label: step {candidate.step} ({candidate.channel}), "
                        f"matched text: {candidate.span!r}"
                    ),
                },
            ],
        }
        if self.config.seed is not None:
            body["seed"] = self.config.seed
        response = self._loop.run_until_complete(
            complete_with_retries(
                self._client,
                self.config,
                body,
                where="classifier",
                what=f"use classification at step {candidate.step}",
                rng=self._rng,
                health=self.health,
            )
        )
        secrets = (self._client.api_key,)
        content = getattr(first_message(response, "classifier", secrets), "content", None)
        label, reason = _parse_label(content if isinstance(content, str) else "")
        return ClassifiedUse(candidate, label, f"llm: {redact(reason, secrets)}")

    def close(self) -> None:
        """Release the client and the event loop."""
        self._loop.run_until_complete(self._client.close())
        self._loop.close()
