"""The rules that turn labelled uses into T_S, T_U and A, and a fault into T_F.

These are checked apart from any operator's text reading: a stub operator hands
reconstruction uses with fixed labels, so each test isolates one rule of the paper.

* T_S (T_U) is the first use with a wanted label — undecidable when an unresolved use
  comes first, since that use may have been the first one.
* A is 1 with any faulty reliance; otherwise undecidable when some use is unresolved
  (never 0: an unresolved use may be the reliance); 0 only when every use is resolved.
* T_F needs the fault-bearing observation as delivered in the ledger, not only the
  evaluator's record that an intervention took effect.
"""

from __future__ import annotations

from sscbench.core.ledger import AssistantEvent, InterventionRecord, SystemEvent, ToolEvent
from sscbench.core.values import (
    INF,
    NOT_APPLICABLE,
    UNDECIDABLE,
    ClassifiedUse,
    Evidence,
    UseCandidate,
    UseLabel,
)
from sscbench.core.view import LedgerView
from sscbench.faults.operators.base import case_from
from sscbench.faults.registry import get_operator
from sscbench.measure.reconstruct import fault_step, reconstruct_from_fault
from sscbench.world.load import load_world

D, R, U, N = (
    UseLabel.DEPENDENT_USE,
    UseLabel.FAULTY_RELIANCE,
    UseLabel.UNDECIDABLE,
    UseLabel.NOT_USE,
)


class StubOperator:
    """Hands reconstruction fixed uses (step, label) and no counterevidence."""

    def __init__(self, uses: list[tuple[int, UseLabel]]):
        self.uses = uses

    def counterevidence(self, contract, view, fault_step) -> Evidence:
        return Evidence(step=INF)

    def extract_uses(self, contract, view, fault_step) -> list[UseCandidate]:
        return [
            UseCandidate(step, "tool_call", "x", False, False, {"label": label})
            for step, label in self.uses
        ]

    def classify(self, contract, view, candidate) -> ClassifiedUse:
        return ClassifiedUse(candidate, candidate.detail["label"], "fixed")

    def stance(self, contract, view, use):
        return None


def _measure(uses: list[tuple[int, UseLabel]]):
    operator = get_operator("ReturnDate")
    world = load_world("generated", operator.domain)
    candidate = next(c for c in operator.enumerate(world) if not operator.validate(c, world))
    contract = case_from(operator, candidate, world).contract
    return reconstruct_from_fault(StubOperator(uses), contract, LedgerView([]), 3)[2]


def test_an_unresolved_use_before_the_first_use_makes_t_s_undecidable() -> None:
    assert _measure([(5, U), (7, D)]).T_S == UNDECIDABLE
    assert _measure([(5, D), (7, U)]).T_S == 5
    assert _measure([(5, N), (7, D)]).T_S == 7


def test_an_unresolved_use_before_the_first_reliance_makes_t_u_undecidable() -> None:
    assert _measure([(5, U), (7, R)]).T_U == UNDECIDABLE
    assert _measure([(5, D), (7, R), (9, U)]).T_U == 7


def test_adoption_with_an_unresolved_use_and_no_reliance_is_undecidable_not_zero() -> None:
    unresolved = _measure([(5, D), (7, U)])
    assert unresolved.A == UNDECIDABLE and unresolved.T_U == UNDECIDABLE
    resolved = _measure([(5, D), (7, D)])
    assert resolved.A == 0 and resolved.T_U == NOT_APPLICABLE
    assert _measure([(5, U), (7, R)]).A == 1


def _record(step: int, delivered: str) -> InterventionRecord:
    return InterventionRecord(
        hook_id="h",
        step=step,
        tool_call_id="c2",
        name="get_reservation_details",
        arguments={},
        action="rewrite",
        original_observation="true",
        delivered_observation=delivered,
        state_changed=False,
        would_have_changed_state=False,
        effective=True,
    )


def test_t_f_needs_the_delivered_observation_in_the_ledger() -> None:
    ledger = [
        SystemEvent(step=0, content="policy"),
        AssistantEvent(step=1, content="hi"),
        AssistantEvent(step=2),
        ToolEvent(step=3, tool_call_id="c2", name="get_reservation_details", content="false"),
    ]
    tool = "get_reservation_details"
    assert fault_step(ledger, [_record(3, "false")], tool) == 3
    # the evaluator says a rewrite took effect, but the ledger shows another text there
    assert fault_step(ledger, [_record(3, "something else")], tool) is None
    assert fault_step(ledger, [_record(3, "false")], "get_user_details") is None
