"""The ``llm-l0`` and ``llm-l1`` oracles: one chat completion per trajectory.

Any OpenAI-compatible endpoint, with the endpoint config's retries and whole-attempt
timeout. A call that still fails after its retries, a malformed completion and an
answer that does not parse strictly (:func:`~sscbench.oracles.prompts.parse_answer`)
are abstentions recorded with their reason, never negatives. An endpoint that never
answers (its first requests all fail to connect) stops the scoring with
:class:`~sscbench.errors.EndpointUnreachable` instead of abstaining on every run.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

from sscbench.core.view import LedgerView
from sscbench.errors import DataError, HarnessFailure
from sscbench.oracles.base import OracleContext, OracleSettings, Verdict, abstain
from sscbench.oracles.prompts import build_messages, parse_answer


class LLMOracle:
    """One LLM call per trajectory; L1 adds the fault-specific relation contract."""

    gives_adoption = True

    def __init__(self, settings: OracleSettings, *, with_contract: bool):
        from sscbench.llm.retry import EndpointHealth, make_client

        if settings.endpoint is None:
            raise DataError(
                "--endpoint",
                None,
                "an LLM oracle needs an endpoint: pass --endpoint URL and --model NAME",
            )
        self.with_contract = with_contract
        self.name = "llm-l1" if with_contract else "llm-l0"
        self.context = (
            "one LLM call: numbered model-visible trajectory, tool schemas, domain policy"
            + (", fault-specific relation contract" if with_contract else "")
        )
        self.config = settings.endpoint
        self._loop = asyncio.new_event_loop()
        self._client = make_client(self.config)
        self._rng = random.Random(f"oracle-{self.name}")
        self.health = EndpointHealth(self.config.base_url, self.config.unreachable_after)
        self.requests = 0

    def judge(self, run: OracleContext) -> Verdict:
        """Ask the model; a failed call or an unparsable answer is an abstention."""
        from sscbench.llm.responses import content_text, first_message
        from sscbench.llm.retry import complete_with_retries
        from sscbench.llm.secrets import redact

        view = LedgerView(run.ledger)
        contract = run.case.contract if self.with_contract else None
        if self.with_contract and contract is None:
            return abstain(run.run_id, "the case has no fault contract")
        body: dict[str, Any] = {
            "model": self.config.model,
            "temperature": self.config.temperature,
            "messages": build_messages(view, run.tool_schemas, run.policy, contract),
        }
        if self.config.seed is not None:
            body["seed"] = self.config.seed
        if self.config.max_tokens is not None:
            body["max_tokens"] = self.config.max_tokens
        secrets = (self._client.api_key,)
        self.requests += 1
        try:
            response = self._loop.run_until_complete(
                complete_with_retries(
                    self._client,
                    self.config,
                    body,
                    where=self.name,
                    what=f"judging {run.run_id}",
                    rng=self._rng,
                    health=self.health,
                )
            )
            message = first_message(response, self.name, secrets)
        except HarnessFailure as exc:
            return abstain(run.run_id, f"call failed: {redact(exc.message, secrets)}")
        text = content_text(getattr(message, "content", None)) or ""
        steps = {e.step for e in run.ledger if hasattr(e, "step")}
        try:
            adopted, t_u, reason = parse_answer(text, steps)
        except ValueError as exc:
            return abstain(run.run_id, f"unparsable answer: {redact(str(exc), secrets)}")
        return Verdict(
            run_id=run.run_id, adopted=adopted, t_u=t_u, reason=redact(reason, secrets)[:500]
        )

    def close(self) -> None:
        """Release the client and the event loop."""
        self._loop.run_until_complete(self._client.close())
        self._loop.close()
