"""The synthetic address-change lab on the typed fault model."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from sscbench.faults.typed import (
    CHECKPOINTS,
    Checkpoint,
    OutcomeState,
    Semantics,
    Surface,
    TerminalClass,
    Timing,
    Validity,
    judge,
)
from sscbench.lab.address import (
    BYSTANDER,
    CATALOGUE,
    CUSTOMER,
    INTERVENING_ADDRESS,
    INTERVENING_UPDATE,
    NEW_ADDRESS,
    READBACK_UNAVAILABLE,
    STALE_POLICY,
    SUBJECT_SWAP,
    SYSTEMS,
    TIMEOUT_AFTER_COMMIT,
    run_bounded,
    run_lab,
    run_weak,
)
from sscbench.lab.cli import lab_app

# The essay's heatmap for the bounded system, row by row (IDEN CONT AUTH ACTI EVID OUTC).
ESSAY_HEATMAP = {
    "context.stale_policy": ". X . . . .",
    "identity.subject_swap": "X . . . . .",
    "tool.timeout_after_commit": ". . . . . .",
    "state.intervening_update": ". . . X . .",
    "verification.readback_unavailable": ". . . . ? .",
}

ESSAY_FIGURES = {
    "weak": {"detection": 0.0, "containment": 0.0, "recovery": 0.0, "escape": 1.0},
    "bounded": {"detection": 1.0, "containment": 1.0, "recovery": 1.0, "escape": 0.0},
}


@pytest.fixture(scope="module")
def lab():
    return run_lab()


def test_catalogue_is_typed_and_covers_every_surface():
    assert {spec.surface for spec in CATALOGUE} == set(Surface)
    by_name = {spec.name: spec for spec in CATALOGUE}
    assert by_name[TIMEOUT_AFTER_COMMIT].timing is Timing.AFTER_COMMIT
    assert by_name[READBACK_UNAVAILABLE].timing is Timing.DURING_READBACK
    assert by_name[SUBJECT_SWAP].semantics is Semantics.UNAUTHORISED_SUBSTITUTION
    assert [s.name for s in CATALOGUE if s.recoverable] == [STALE_POLICY, TIMEOUT_AFTER_COMMIT]
    for spec in CATALOGUE:
        assert spec.expected_barrier
        assert spec.containment.max_affected_runs >= 1
        assert spec.containment.cleanup
        dumped = spec.model_dump(mode="json")
        assert "oracle" not in dumped and "activation" not in dumped


@pytest.mark.parametrize("system", SYSTEMS)
def test_essay_figures(lab, system):
    m = lab.overall(system)
    assert m.activation.numerator == m.activation.denominator == len(CATALOGUE)
    for name, expected in ESSAY_FIGURES[system].items():
        assert getattr(m, name).value == pytest.approx(expected), name
    # Recovery only counts faults with a valid recovery path.
    assert m.recovery.denominator == 2


def test_essay_heatmap_bounded(lab):
    rows = {
        row.fault: " ".join(row.cells[cp].symbol for cp in CHECKPOINTS)
        for row in lab.heatmap("bounded")
    }
    assert rows == ESSAY_HEATMAP
    terminal = {row.fault: row.terminal_mode for row in lab.heatmap("bounded")}
    assert terminal[READBACK_UNAVAILABLE] is TerminalClass.UNKNOWN
    assert all(
        t is TerminalClass.ACCEPTABLE for f, t in terminal.items() if f != READBACK_UNAVAILABLE
    )


def test_weak_heatmap_every_fault_reaches_outcome(lab):
    for row in lab.heatmap("weak"):
        assert row.cells[Checkpoint.OUTCOME].p_invalid == 1.0
        assert row.terminal_mode is TerminalClass.UNACCEPTABLE


@pytest.mark.parametrize("system", SYSTEMS)
def test_control_run_succeeds(lab, system):
    control = lab.record(system, None)
    assert control.outcome is OutcomeState.VERIFIED
    assert control.effects == 1
    assert control.goal_met
    assert not control.activations
    assert all(v is Validity.VALID for v in control.worst().values())


def test_control_is_not_an_activation_for_any_fault():
    for spec in CATALOGUE:
        for runner in (run_weak, run_bounded):
            assert not judge(spec, runner(None)).activated


def test_bounded_timeout_after_commit_one_effect_verified(lab):
    record = lab.record("bounded", TIMEOUT_AFTER_COMMIT)
    verdict = lab.verdict("bounded", TIMEOUT_AFTER_COMMIT)
    assert record.outcome is OutcomeState.VERIFIED
    assert record.effects == 1
    assert len([e for e in record.world["audit"] if e["kind"] == "agent_write"]) == 1
    assert verdict.activated and verdict.detected and verdict.contained and verdict.recovered
    assert not verdict.escaped


def test_weak_timeout_after_commit_duplicates(lab):
    record = lab.record("weak", TIMEOUT_AFTER_COMMIT)
    # The visible address is right, yet the contract is broken.
    assert record.world["records"][CUSTOMER]["address"] == NEW_ADDRESS
    assert record.effects == 2
    assert lab.verdict("weak", TIMEOUT_AFTER_COMMIT).escaped


def test_weak_subject_swap_escapes_and_changes_wrong_record(lab):
    record = lab.record("weak", SUBJECT_SWAP)
    verdict = lab.verdict("weak", SUBJECT_SWAP)
    assert verdict.escaped and not verdict.contained
    assert record.outcome is OutcomeState.VERIFIED
    assert record.world["records"][BYSTANDER]["address"] == NEW_ADDRESS
    assert record.world["records"][CUSTOMER]["address"] != NEW_ADDRESS


def test_bounded_subject_swap_rejected_without_effect(lab):
    record = lab.record("bounded", SUBJECT_SWAP)
    assert record.outcome is OutcomeState.REJECTED
    assert record.effects == 0


def test_bounded_readback_unavailable_contained_and_reconciled(lab):
    record = lab.record("bounded", READBACK_UNAVAILABLE)
    verdict = lab.verdict("bounded", READBACK_UNAVAILABLE)
    assert record.outcome is OutcomeState.RECONCILIATION_REQUIRED
    assert len(record.world["reconciliation"]) == 1
    assert verdict.contained and not verdict.escaped
    assert verdict.recovered is None  # no valid recovery path: excluded, not failed
    assert verdict.checkpoints[Checkpoint.EVIDENCE] is Validity.SUSPECT


def test_weak_readback_unavailable_escapes_though_world_is_correct(lab):
    record = lab.record("weak", READBACK_UNAVAILABLE)
    assert record.world["records"][CUSTOMER]["address"] == NEW_ADDRESS
    assert record.outcome is OutcomeState.VERIFIED
    assert lab.verdict("weak", READBACK_UNAVAILABLE).escaped


def test_intervening_update(lab):
    weak = lab.record("weak", INTERVENING_UPDATE)
    bounded = lab.record("bounded", INTERVENING_UPDATE)
    # Weak overwrites the other writer's change (lost update) and claims success.
    assert weak.world["records"][CUSTOMER]["address"] == NEW_ADDRESS
    assert lab.verdict("weak", INTERVENING_UPDATE).escaped
    assert bounded.outcome is OutcomeState.NO_EFFECT
    assert bounded.world["records"][CUSTOMER]["address"] == INTERVENING_ADDRESS


def test_detection_latency_is_measured_from_activation(lab):
    for spec in CATALOGUE:
        v = lab.verdict("bounded", spec.name)
        assert v.latency_checkpoints == 0  # caught at the checkpoint where it entered
        assert v.latency_events is not None and v.latency_events > 0
        assert lab.verdict("weak", spec.name).latency_checkpoints is None


def test_deterministic_json():
    runner = CliRunner()
    first = runner.invoke(lab_app, ["address", "--json"])
    second = runner.invoke(lab_app, ["address", "--json"])
    assert first.exit_code == 0, first.output
    assert first.output == second.output
    data = json.loads(first.output)
    assert data["metrics"]["weak"]["overall"]["escape"] == {
        "numerator": 5,
        "denominator": 5,
        "value": 1.0,
    }
    assert data["metrics"]["bounded"]["overall"]["recovery"]["denominator"] == 2
    assert data["heatmap"]["bounded"][4]["cells"]["evidence"]["symbol"] == "?"
    assert data["cleanup_verified"] is True
    assert len(data["trials"]) == 2 * len(CATALOGUE)


def test_cli_prints_figures_and_heatmap():
    result = CliRunner().invoke(lab_app, ["address"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "weak:    detection 0.00 | containment 0.00 | recovery 0.00 | escape 1.00" in out
    assert "bounded: detection 1.00 | containment 1.00 | recovery 1.00 | escape 0.00" in out
    for fault in ESSAY_HEATMAP:
        assert fault in out
    assert "IDEN" in out and "OUTC" in out
