"""Reconstruct the measurement of one run from its ledger and its case's contract.

T_F needs both: the evaluator-only log establishing that the intervention took
effect, and the fault-bearing observation present in the ledger. Everything else —
T_E, the uses, T_S, T_U, A, Z_S, Y_end — is read from the model-visible ledger alone,
under the case's contract.
"""

from __future__ import annotations

from sscbench.core.definitions import arrival
from sscbench.core.ledger import EvaluatorEvent, InterventionRecord, LedgerEvent, ToolEvent
from sscbench.core.values import (
    INF,
    NOT_APPLICABLE,
    UNDECIDABLE,
    ClassifiedUse,
    Evidence,
    RelianceStep,
    Stance,
    Step,
    UseLabel,
)
from sscbench.core.view import LedgerView
from sscbench.faults.contract import FaultContract
from sscbench.faults.registry import MeasuredOperator
from sscbench.measure.classifier import UseClassifier
from sscbench.measure.unread import unread_marks
from sscbench.study.rows import Adoption, EvidenceRow, Measurement, UseRow

# Def. 3.2: correct, qualified and faulty uses all count, and so does checking the
# disputed value (a verification depends on it; Def. 3.3: it is not faulty reliance).
USE_LABELS = (UseLabel.DEPENDENT_USE, UseLabel.FAULTY_RELIANCE, UseLabel.VERIFICATION)


def fault_step(ledger: list[LedgerEvent], evaluator: list[EvaluatorEvent], tool: str) -> int | None:
    """T_F: the first effective intervention whose delivered observation is in the ledger."""
    by_step = {e.step: e for e in ledger if isinstance(e, ToolEvent)}
    for record in evaluator:
        if not isinstance(record, InterventionRecord) or not record.effective:
            continue
        event = by_step.get(record.step)
        if (
            event is not None
            and event.name == tool
            and event.content == record.delivered_observation
        ):
            return record.step
    return None


def read_back(contract: FaultContract, view: LedgerView, t_f: int) -> Step:
    """The first read-back of the affected record after the fault: the observation step
    of the first later call of one of the contract's acquisition tools whose arguments
    name the target entity or one of its related ids; ∞ when there is none.

    A read-back is an action the agent took, whatever it showed (counterevidence or
    not), so the paired read-back-cue check can count it apart from T_E.
    """
    tools = {route.tool for route in contract.acquisition}
    ids = {contract.target.entity_id, *contract.target.related_ids.values()}
    for call in view.calls:
        if call.call_step <= t_f or call.observation_step is None or call.name not in tools:
            continue
        if isinstance(call.arguments, dict) and any(
            value in ids for value in call.arguments.values() if isinstance(value, str)
        ):
            return call.observation_step
    return INF


def first_event(uses: list[ClassifiedUse], wanted: tuple[UseLabel, ...]) -> Step:
    """First use with a wanted label; undecidable if an unresolved candidate precedes it."""
    for use in uses:
        if use.label is UseLabel.UNDECIDABLE:
            return UNDECIDABLE
        if use.label in wanted:
            return use.candidate.step
    return INF


def hedges_beside_commitments(uses: list[ClassifiedUse]) -> list[ClassifiedUse]:
    """A text that states v′ in the turn of a call committing to v′ is reliance, however it hedges.

    The action settles what the agent treats as operative (Def. 3.3): a qualification
    or a check written beside it does not make the turn a mere verification.
    """
    committing = {
        u.candidate.step
        for u in uses
        if u.candidate.channel == "tool_call" and u.label is UseLabel.FAULTY_RELIANCE
    }
    out = []
    for use in uses:
        c = use.candidate
        if (
            c.step in committing
            and c.channel in ("message", "handoff")
            and c.mentions_injected
            and use.label in (UseLabel.VERIFICATION, UseLabel.DEPENDENT_USE, UseLabel.UNDECIDABLE)
        ):
            use = ClassifiedUse(c, UseLabel.FAULTY_RELIANCE, "a hedge beside a committing call")
        out.append(use)
    return out


def reconstruct_from_fault(
    operator: MeasuredOperator,
    contract: FaultContract,
    view: LedgerView,
    t_f: int,
    classifier: UseClassifier | None = None,
) -> tuple[Evidence, list[ClassifiedUse], Measurement]:
    """T_E, uses, T_S, T_U, A, Z_S and Y_end of a triggered ledger with fault at ``t_f``.

    ``classifier`` labels the extracted candidates (default: the operator's rules).
    """
    evidence = operator.counterevidence(contract, view, t_f)
    candidates = operator.extract_uses(contract, view, t_f)
    if classifier is None:
        uses = [operator.classify(contract, view, c) for c in candidates]
    else:
        uses = [classifier.classify(operator, contract, view, c) for c in candidates]
    uses.sort(key=lambda u: u.candidate.step)
    uses = hedges_beside_commitments(uses)
    t_s = first_event(uses, USE_LABELS)
    t_u: RelianceStep | Step = first_event(uses, (UseLabel.FAULTY_RELIANCE,))
    adopted = adoption(uses)
    if adopted != 1:  # T_U is located in adopting runs only (core.definitions.T_U_WORDING)
        t_u = NOT_APPLICABLE if adopted == 0 else UNDECIDABLE
    stances: list[tuple[int, Stance]] = []
    for u in uses:
        stance = operator.stance(contract, view, u)
        if stance is not None:
            stances.append((u.candidate.step, stance))
    marks = unread_marks(operator, contract, view, t_f, uses)
    measurement = Measurement(
        triggered=True,
        T_F=t_f,
        T_E=evidence.step,
        T_S=t_s,
        T_U=t_u,
        Z_S=arrival(evidence.step, t_s),
        A=adopted,
        Y_end=stances[-1][1] if stances else Stance.UNDECIDABLE,
        read_back_step=read_back(contract, view, t_f),
        evidence=EvidenceRow(
            counterevidence_steps=list(evidence.evidence_steps),
            counterevidence=evidence.reason,
            uses=[use_row(u) for u in uses],
        ),
        unread=len(marks),
        unread_steps=[m.row() for m in marks],
    )
    return evidence, uses, measurement


def adoption(uses: list[ClassifiedUse]) -> Adoption:
    """A: 1 when a use relied on v′; else undecidable when a use could not be labelled; else 0."""
    if any(u.label is UseLabel.FAULTY_RELIANCE for u in uses):
        return 1
    if any(u.label is UseLabel.UNDECIDABLE for u in uses):
        return UNDECIDABLE
    return 0


def use_row(use: ClassifiedUse) -> UseRow:
    """A classified use as a row's evidence holds it (its span cut to 200 characters)."""
    return UseRow.model_validate(
        {
            "step": use.candidate.step,
            "channel": use.candidate.channel,  # checked here: one of the listed channels
            "label": use.label,
            "span": use.candidate.span[:200],
            "reason": use.reason,
        }
    )
