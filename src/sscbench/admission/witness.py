"""Build a candidate's injection context and search for its pre-use revealability witness.

The context is the visible prefix through the fault-bearing observation, produced in
a faulted env by the operator's prefix script. The witness is a legal continuation
from that fixed context: every argument obtainable from the visible history, the
same faulted env and permissions, and delivered observations that satisfy the
contract before the first dependent use (T_E < T_S < ∞). No witness found leaves
the candidate unresolved, never unrevealable.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from sscbench.core.definitions import precedes_use
from sscbench.core.injection import InjectingExecutor
from sscbench.core.ledger import (
    AssistantEvent,
    LedgerEvent,
    SystemEvent,
    ToolCall,
    ToolEvent,
    UserEvent,
)
from sscbench.core.values import is_step
from sscbench.core.view import LedgerView
from sscbench.faults.case import ArgumentProvenance, Candidate, Case, InjectionContext, Witness
from sscbench.faults.operators.base import FaultOperator, ScriptedTurn, case_from, find_value
from sscbench.measure.reconstruct import reconstruct_from_fault
from sscbench.world.world import World


@dataclass
class ScriptRun:
    """A scripted ledger executed in a faulted env, with its interventions and provenance."""

    ledger: list[LedgerEvent] = field(default_factory=list)
    fault_step: int | None = None
    provenance: list[ArgumentProvenance] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    proposed_use: int | None = None


def _leaves(value: object, path: str = "") -> list[tuple[str, object]]:
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in _leaves(v, f"{path}.{k}" if path else k)]
    if isinstance(value, list):
        return [leaf for i, v in enumerate(value) for leaf in _leaves(v, f"{path}[{i}]")]
    return [(path, value)]


def play(
    turns: list[ScriptedTurn],
    executor: InjectingExecutor,
    run: ScriptRun,
    *,
    task_text: str,
    strict: bool,
) -> None:
    """Append scripted turns to the run's ledger, executing calls in the faulted env.

    Each string argument's provenance is looked up in the visible history (or, when
    not ``strict``, in the task the user brings); a value found nowhere is recorded
    as missing, which makes the continuation illegal.
    """
    ledger = run.ledger
    for turn in turns:
        step = len(ledger)
        if turn.role == "user":
            ledger.append(UserEvent(step=step, content=turn.content or ""))
            continue
        if turn.tool is None:
            ledger.append(AssistantEvent(step=step, content=turn.content))
            if turn.proposed_use and run.proposed_use is None:
                run.proposed_use = step
            continue
        arguments = turn.arguments or {}
        view = LedgerView(ledger)
        for path, value in _leaves(arguments):
            if not isinstance(value, str) or not value:
                continue
            source, at, where = find_value(view, value, before=step)
            if source == "missing" and not strict and value in task_text:
                source, at, where = "task", None, "task"
            if source == "missing":
                run.missing.append(f"{turn.tool}.{path}={value!r}")
            run.provenance.append(
                ArgumentProvenance(
                    argument=f"{turn.tool}.{path}", value=value, source=source, step=at, path=where
                )
            )
        call = ToolCall(id=f"call_{step}", name=turn.tool, arguments=json.dumps(arguments))
        ledger.append(AssistantEvent(step=step, tool_calls=(call,)))
        execution = executor.execute(step + 1, call.id, call.name, call.arguments)
        ledger.append(
            ToolEvent(
                step=step + 1, tool_call_id=call.id, name=call.name, content=execution.observation
            )
        )
        record = execution.intervention
        if record is not None and record.effective and run.fault_step is None:
            run.fault_step = step + 1


def ledger_sha256(events: Sequence[LedgerEvent]) -> str:
    """Hash of a ledger prefix (its events as canonical JSON lines)."""
    text = "\n".join(e.model_dump_json() for e in events)
    return hashlib.sha256(text.encode()).hexdigest()


def interface_sha256(world: World) -> str:
    """Hash of what the agent is given besides messages: policy and tool schemas."""
    blob = json.dumps({"policy": world.policy, "tools": world.tool_schemas()}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


@dataclass
class AdmissionResult:
    """Admitted case, or the reason the candidate stays unresolved."""

    case: Case | None
    reason: str = ""


def _task_text(world: World, candidate: Candidate) -> str:
    task = world.task(candidate.task_id)
    return task.instruction + " " + json.dumps(task.intent or {})


def search_witness(operator: FaultOperator, candidate: Candidate, world: World) -> AdmissionResult:
    """Fix the injection context and try the operator's witness continuation from it."""
    case = case_from(operator, candidate, world)
    env = world.new_env()
    executor = InjectingExecutor(env, operator.injections(case, world))
    run = ScriptRun(ledger=[SystemEvent(step=0, content=world.policy)])
    play(
        operator.prefix_turns(candidate, world),
        executor,
        run,
        task_text=_task_text(world, candidate) + " " + json.dumps(candidate.params.model_dump()),
        strict=False,
    )
    if run.fault_step is None:
        return AdmissionResult(None, "the injection point was not reached or had no effect")
    prefix = list(run.ledger)
    prefix_provenance = list(run.provenance)
    run.provenance = []
    view = LedgerView(run.ledger)
    play(operator.witness_turns(case, world, view), executor, run, task_text="", strict=True)
    if run.missing:
        return AdmissionResult(None, "witness argument not obtainable: " + ", ".join(run.missing))
    assert case.contract is not None
    full = LedgerView(run.ledger)
    evidence, uses, measurement = reconstruct_from_fault(
        operator, case.contract, full, run.fault_step
    )
    t_e, t_s = measurement.T_E, measurement.T_S
    if not (is_step(t_e) and is_step(t_s) and precedes_use(t_e, t_s)):
        return AdmissionResult(None, f"no counterevidence before first use (T_E={t_e}, T_S={t_s})")
    first_use = next(u for u in uses if u.candidate.step == t_s)
    context = InjectionContext(
        injection_tool=case.contract.fault_interaction.tool,
        injection_match=case.contract.fault_interaction.match,
        prefix_id=f"{candidate.candidate_id}#prefix",
        prefix_sha256=ledger_sha256(prefix),
        prefix=[e.model_dump(mode="json") for e in prefix],
        fault_step=run.fault_step,
        persistence=case.contract.persistence,
        interface_sha256=interface_sha256(world),
        permissions={"user_id": world.task(candidate.task_id).user_id},
    )
    witness = Witness(
        continuation=[e.model_dump(mode="json") for e in run.ledger[len(prefix) :]],
        provenance=prefix_provenance + run.provenance,
        evidence_steps=list(evidence.evidence_steps),
        counterevidence_step=t_e,
        first_use_step=t_s,
        first_use=first_use.candidate.span,
    )
    return AdmissionResult(case.model_copy(update={"context": context, "witness": witness}))


def replay_witness(case: Case, world: World) -> tuple[list[LedgerEvent], int | None]:
    """Re-execute a case's stored prefix and witness in a fresh faulted env.

    Returns the ledger as re-delivered (observations recomputed, never copied from
    the stored record) and the step where the injection took effect.
    """
    from sscbench.core.ledger import LEDGER_EVENT
    from sscbench.faults.registry import get_operator

    assert case.context is not None and case.witness is not None
    operator = get_operator(case.operator)
    executor = InjectingExecutor(world.new_env(), operator.injections(case, world))
    ledger: list[LedgerEvent] = []
    fault: int | None = None
    for raw in [*case.context.prefix, *case.witness.continuation]:
        event = LEDGER_EVENT.validate_python(raw)
        if isinstance(event, ToolEvent):
            previous = ledger[-1]
            assert isinstance(previous, AssistantEvent), "a tool event follows its call"
            call = previous.tool_calls[0]
            execution = executor.execute(event.step, call.id, call.name, call.arguments)
            event = event.model_copy(update={"content": execution.observation})
            if (
                execution.intervention is not None
                and execution.intervention.effective
                and fault is None
            ):
                fault = event.step
        ledger.append(event)
    return ledger, fault
