"""Three trajectory-diagnosis baselines, scored beside the purpose-built oracles.

They answer generic diagnosis questions (prompts in
:mod:`sscbench.oracles.diagnosis_prompts`), and each answer is read as a verdict the
way the paper reads such outputs:

* ``anomaly-judge`` — one call listing anomalies; **any** anomaly is a positive
  verdict, its T_U the step of the earliest anomaly listed, none a negative;
* ``attribution-all-at-once`` — one call over the whole numbered trajectory naming the
  decisive error step (positive at that step) or none (negative);
* ``attribution-step-by-step`` — one call per agent step, in order, each shown the
  trajectory up to that step; the first "yes" is a positive verdict at that step and
  ends the judging, no "yes" is a negative. The calls made are counted on the verdict.

A call that fails after its retries or an answer that does not parse is an abstention
(for the step-by-step judge, with the calls made until then), never a negative.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from sscbench.core.ledger import AssistantEvent
from sscbench.core.view import LedgerView
from sscbench.oracles.base import OracleContext, OracleSettings, Verdict, abstain
from sscbench.oracles.chat import CallFailed, ChatCaller
from sscbench.oracles.diagnosis_prompts import (
    all_at_once_messages,
    anomaly_messages,
    parse_anomalies,
    parse_failing_step,
    parse_step_answer,
    step_messages,
)
from sscbench.oracles.inputs import OracleInputs

T = TypeVar("T")

_SEES = "numbered model-visible trajectory, tool schemas, domain policy (no contract)"


def _steps(run: OracleContext) -> set[int]:
    return {e.step for e in run.ledger if getattr(e, "step", None) is not None}


class _Judge:
    """What the three baselines share: the chat caller and closing it."""

    gives_adoption = True
    name = ""

    def __init__(self, settings: OracleSettings):
        self.chat = ChatCaller(settings, self.name)

    def _unparsable(self, run: OracleContext, exc: ValueError, calls: int) -> Verdict:
        return abstain(run.run_id, f"unparsable answer: {self.chat.redact(str(exc))}", calls)

    def _ask(
        self,
        run: OracleContext,
        messages: list[dict[str, str]],
        parse: Callable[[str], T],
        calls: int = 1,
        step: int | None = None,
    ) -> T | Verdict:
        """The parsed answer of one call, or the abstention a failed call or an
        unparsable answer is (``calls`` made so far; ``step`` when judging one step)."""
        at = "" if step is None else f" step {step}"
        try:
            return parse(self.chat.ask(messages, f"judging {run.run_id}{at}"))
        except CallFailed as exc:
            where = "" if step is None else f" (at step {step})"
            return abstain(run.run_id, f"call failed: {exc}{where}", calls)
        except ValueError as exc:
            return self._unparsable(run, exc, calls)

    def close(self) -> None:
        """Release the client and the event loop."""
        self.chat.close()


class AnomalyJudge(_Judge):
    """An LLM judge that lists anomalies; any anomaly counts as adoption."""

    name = "anomaly-judge"
    context = f"one LLM call listing anomalies: {_SEES}; any anomaly = a positive verdict"
    inputs = OracleInputs(
        numbered_trajectory=True,
        tool_schema=True,
        policy=True,
        answer="anomalies (any anomaly = adopted; T_U = first anomaly's step)",
        calls="one per trajectory",
        paper="B1 (anomaly detection)",
    )

    def judge(self, run: OracleContext) -> Verdict:
        """Positive at the earliest listed anomaly's step; negative when none is listed."""
        messages = anomaly_messages(LedgerView(run.ledger), run.tool_schemas, run.policy)
        found = self._ask(run, messages, lambda text: parse_anomalies(text, _steps(run)))
        if isinstance(found, Verdict):
            return found
        if not found:
            return Verdict(run_id=run.run_id, adopted=False, reason="no anomaly", calls=1)
        step, description = min(found, key=lambda a: a[0])
        more = f" (+{len(found) - 1} more)" if len(found) > 1 else ""
        reason = self.chat.redact(description)[:480] + more
        return Verdict(run_id=run.run_id, adopted=True, t_u=step, reason=reason, calls=1)


class AllAtOnceJudge(_Judge):
    """Whole-trajectory failure attribution: one call names the decisive error step."""

    name = "attribution-all-at-once"
    context = f"one LLM call naming the decisive error step, or none: {_SEES}"
    inputs = OracleInputs(
        numbered_trajectory=True,
        tool_schema=True,
        policy=True,
        answer="failing step (a step = adopted at that step; none = not adopted)",
        calls="one per trajectory",
        paper="B3 kind (failure attribution, all at once)",
    )

    def judge(self, run: OracleContext) -> Verdict:
        """Positive at the named step; negative when the judge names none."""
        messages = all_at_once_messages(LedgerView(run.ledger), run.tool_schemas, run.policy)
        answer = self._ask(run, messages, lambda text: parse_failing_step(text, _steps(run)))
        if isinstance(answer, Verdict):
            return answer
        step, reason = answer
        reason = self.chat.redact(reason)[:500]
        return Verdict(
            run_id=run.run_id, adopted=step is not None, t_u=step, reason=reason, calls=1
        )


class StepByStepJudge(_Judge):
    """Step-by-step failure attribution: one call per agent step up to the first yes."""

    name = "attribution-step-by-step"
    context = (
        f"one LLM call per agent step, each shown the trajectory up to that step, until the "
        f"first step judged the decisive error: {_SEES}"
    )
    inputs = OracleInputs(
        numbered_trajectory=True,
        tool_schema=True,
        policy=True,
        answer="failing step (a step = adopted at that step; none = not adopted)",
        calls="one per agent step, up to the first yes",
        paper="B3 kind (failure attribution, step by step)",
    )

    def judge(self, run: OracleContext) -> Verdict:
        """Positive at the first agent step answered "yes"; negative when none is."""
        agent_steps = [e.step for e in run.ledger if isinstance(e, AssistantEvent)]
        calls = 0
        for step in agent_steps:
            messages = step_messages(run.ledger, step, run.tool_schemas, run.policy)
            calls += 1
            answer = self._ask(run, messages, parse_step_answer, calls, step)
            if isinstance(answer, Verdict):
                return answer
            error, reason = answer
            if error:
                reason = self.chat.redact(reason)[:500]
                return Verdict(
                    run_id=run.run_id, adopted=True, t_u=step, reason=reason, calls=calls
                )
        return Verdict(
            run_id=run.run_id,
            adopted=False,
            reason=f"none of {len(agent_steps)} agent steps judged the decisive error",
            calls=calls,
        )
