"""The ``llm-l0`` and ``llm-l1`` oracles: one chat completion per trajectory.

The call goes through :class:`~sscbench.oracles.chat.ChatCaller` (any OpenAI-compatible
endpoint, its retries and timeout). A call that still fails after its retries, a
malformed completion and an answer that does not parse strictly
(:func:`~sscbench.oracles.prompts.parse_answer`) are abstentions recorded with their
reason, never negatives. An endpoint that never answers (its first requests all fail to
connect) stops the scoring with :class:`~sscbench.errors.EndpointUnreachable` instead of
abstaining on every run.
"""

from __future__ import annotations

from sscbench.core.view import LedgerView
from sscbench.oracles.base import OracleContext, OracleSettings, Verdict, abstain
from sscbench.oracles.chat import CallFailed, ChatCaller
from sscbench.oracles.inputs import OracleInputs
from sscbench.oracles.prompts import build_messages, parse_answer


class LLMOracle:
    """One LLM call per trajectory; L1 adds the fault-specific relation contract."""

    gives_adoption = True

    def __init__(self, settings: OracleSettings, *, with_contract: bool):
        self.with_contract = with_contract
        self.name = "llm-l1" if with_contract else "llm-l0"
        self.context = (
            "one LLM call: numbered model-visible trajectory, tool schemas, domain policy"
            + (", fault-specific relation contract" if with_contract else "")
        )
        self.inputs = OracleInputs(
            numbered_trajectory=True,
            tool_schema=True,
            policy=True,
            relation_contract=with_contract,
            calls="one per trajectory",
            paper="B2-L1" if with_contract else "B2-L0",
        )
        self.chat = ChatCaller(settings, self.name)
        self.config = self.chat.config

    @property
    def requests(self) -> int:
        """Model calls made so far."""
        return self.chat.requests

    def judge(self, run: OracleContext) -> Verdict:
        """Ask the model; a failed call or an unparsable answer is an abstention."""
        view = LedgerView(run.ledger)
        contract = run.case.contract if self.with_contract else None
        if self.with_contract and contract is None:
            return abstain(run.run_id, "the case has no fault contract", calls=0)
        messages = build_messages(view, run.tool_schemas, run.policy, contract)
        try:
            text = self.chat.ask(messages, f"judging {run.run_id}")
        except CallFailed as exc:
            return abstain(run.run_id, f"call failed: {exc}", calls=1)
        steps = {e.step for e in run.ledger if hasattr(e, "step")}
        try:
            adopted, t_u, reason = parse_answer(text, steps)
        except ValueError as exc:
            return abstain(run.run_id, f"unparsable answer: {self.chat.redact(str(exc))}", calls=1)
        return Verdict(
            run_id=run.run_id,
            adopted=adopted,
            t_u=t_u,
            reason=self.chat.redact(reason)[:500],
            calls=1,
        )

    def close(self) -> None:
        """Release the client and the event loop."""
        self.chat.close()
