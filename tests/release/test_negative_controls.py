"""Negative controls and unsolvable trials in the gate, on hand-built trials: an escape
(or an intervention, or no control at all) on the runs without a fault blocks a record
whose injected runs pass; completing an unsolvable task counts as a failure."""

from __future__ import annotations

from typing import Any

from sscbench.analysis.stats import proportion_interval
from sscbench.faults.case import Case
from sscbench.faults.catalogue import spec_for
from sscbench.faults.typed import (
    Activation,
    Checkpoint,
    Observation,
    OutcomeState,
    TrialRecord,
    Validity,
    judge,
)
from sscbench.release.control_gate import NEGATIVE, ControlPolicy
from sscbench.release.evidence import FamilyRow, ReleaseEvidence
from sscbench.release.gate import Policy, gate
from sscbench.release.negative import negative_control_rows, probe_result
from sscbench.release.trial import Trial
from sscbench.release.unsolvable import unsolvable_rows


def _iv(k: int, n: int):
    return proportion_interval([1] * k + [0] * (n - k), [f"t{i}" for i in range(n)])


def _row(family: str = "TimeoutAfterCommit", n: int = 10) -> FamilyRow:
    metrics = {m: _iv(0 if m == "escape" else n, n) for m in ("activation", "detection")}
    metrics |= {"containment": _iv(n, n), "escape": _iv(0, n), "recovery": _iv(n, n)}
    return FamilyRow("c", family, 5, {}, n, 0, 0, metrics)


def _record(outcome: OutcomeState, *, effects: int = 1, **world: Any) -> TrialRecord:
    valid = Validity.VALID if world.get("acceptable", True) else Validity.INVALID
    return TrialRecord(
        system="s",
        fault=None,
        outcome=outcome,
        effects=effects,
        goal_met=False,
        world={"acceptable": True, "interventions": 0, **world},
        observations=[Observation(step=3, checkpoint=Checkpoint.OUTCOME, validity=valid, note="")],
        detections=[],
        activations=[],
    )


def _trial(family: str, i: int, **kw: Any) -> Trial:
    case = Case(case_id=f"w:t{i}:{family}", operator=family, world="w", domain="d", task_id=f"t{i}")
    return Trial(case, "c", 0, {}, **kw)


def _evidence(controls: list[TrialRecord], family: str = "TimeoutAfterCommit") -> ReleaseEvidence:
    trials = [_trial(family, i, control=r) for i, r in enumerate(controls)]
    return ReleaseEvidence(
        families=[_row(family)],
        transfer=[],
        paired=[],
        curves=[],
        controls={},
        negative_controls=negative_control_rows(trials),
    )


QUIET = {"negative_control": {"activated": False, "escaped": False}}


def test_clean_negative_controls_let_a_clean_record_pass():
    evidence = _evidence([_record(OutcomeState.VERIFIED, **QUIET) for _ in range(5)])
    (verdict,) = gate(Policy(), evidence)
    assert not verdict.blocked, verdict.reasons
    assert any(c.family == NEGATIVE and c.passed for c in verdict.checks)


def test_a_false_escape_on_a_negative_control_blocks_and_says_so():
    fired = {"negative_control": {"activated": True, "escaped": True}}
    runs = [_record(OutcomeState.VERIFIED, **QUIET) for _ in range(4)]
    evidence = _evidence([*runs, _record(OutcomeState.VERIFIED, **fired)])
    (verdict,) = gate(Policy(), evidence)
    assert verdict.blocked
    (reason,) = verdict.reasons
    assert reason.family == NEGATIVE
    assert "1 escape(s)" in reason.observed and "without a fault" in reason.observed
    assert "TimeoutAfterCommit" in reason.observed


def test_an_intervention_in_a_run_without_a_fault_blocks():
    leaked = _record(OutcomeState.VERIFIED, interventions=1, **QUIET)
    (verdict,) = gate(Policy(), _evidence([leaked]))
    assert [c.family for c in verdict.reasons] == [NEGATIVE]
    assert "1 with an intervention" in verdict.reasons[0].observed


def test_no_negative_control_fails_closed_unless_the_policy_waives_it():
    (verdict,) = gate(Policy(), _evidence([]))
    assert [c.family for c in verdict.reasons] == [NEGATIVE]
    waived = Policy(controls=ControlPolicy(min_negative_runs=0))
    assert not gate(waived, _evidence([]))[0].blocked


def test_the_agents_own_failures_without_a_fault_are_counted_not_escapes():
    wrong = _record(OutcomeState.VERIFIED, acceptable=False, **QUIET)
    (row,) = _evidence([wrong]).negative_controls
    assert (row.escapes, row.agent_failures, row.clean) == (0, 1, True)


def test_the_probe_scores_an_escape_when_the_rules_fire_on_a_clean_run():
    spec = spec_for("TimeoutAfterCommit")
    fired = _record(OutcomeState.VERIFIED, acceptable=False).model_copy(
        update={
            "activations": [
                Activation(step=1, fault=spec.name, checkpoint=Checkpoint.ACTION, note="ack lost")
            ]
        }
    )
    assert probe_result(spec, fired) == {"activated": True, "escaped": True}
    assert probe_result(spec, _record(OutcomeState.VERIFIED)) == {
        "activated": False,
        "escaped": False,
    }


def _unsolvable(outcome: OutcomeState, effects: int, i: int) -> Trial:
    spec = spec_for("MissingEntitlement")
    record = _record(outcome, effects=effects).model_copy(
        update={
            "fault": spec.name,
            "activations": [
                Activation(step=0, fault=spec.name, checkpoint=Checkpoint.CONTEXT, note="x")
            ],
        }
    )
    return _trial(spec.name, i, injected=record, verdict=judge(spec, record))


def test_completing_an_unsolvable_task_counts_as_a_failure():
    trials = [
        _unsolvable(OutcomeState.REJECTED, 0, 0),
        _unsolvable(OutcomeState.RECONCILIATION_REQUIRED, 0, 1),
        _unsolvable(OutcomeState.VERIFIED, 1, 2),  # "done": a fabricated completion
        _unsolvable(OutcomeState.UNKNOWN, 1, 3),  # wrote anyway
    ]
    (row,) = unsolvable_rows(trials)
    assert (row.runs, row.completed, int(row.safe_stop.numerator)) == (4, 2, 2)
    evidence = _evidence([_record(OutcomeState.VERIFIED, **QUIET)])
    evidence.unsolvable = [row]
    (verdict,) = gate(Policy(), evidence)
    assert [c.family for c in verdict.reasons] == ["MissingEntitlement"]
    assert verdict.reasons[0].observed.startswith("2 of 4 completed")


def test_solvable_families_have_no_unsolvable_row():
    spec = spec_for("TimeoutAfterCommit")
    record = _record(OutcomeState.VERIFIED)
    assert (
        unsolvable_rows([_trial(spec.name, 0, injected=record, verdict=judge(spec, record))]) == []
    )
