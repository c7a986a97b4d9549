"""Release evidence of StaleCheckpoint, ExpiredApproval and MissingEntitlement on a small
τ-bench study: the barrier profile and the weak one separate on escape (non-overlapping
intervals), effects and approvals are read from the state and the ledger, and the
intervening-event curve of ExpiredApproval locates where a bounded barrier breaks."""

from __future__ import annotations

from pathlib import Path

import pytest

from release_studies import THREE_PROFILES, family_metrics, run_study
from sscbench.faults.state_faults import changes_twice
from sscbench.release.evidence import collect_evidence
from sscbench.release.trials import load_trials
from sscbench.world.load import load_world

FAMILIES = ["StaleCheckpoint", "ExpiredApproval", "MissingEntitlement"]


def _config(data: Path) -> str:
    return f"""
[study]
name = "state-context-test"
repetitions = 1
concurrency = 2

[world]
source = "tau-bench"
data = "{data}"
idempotency_keys = true

[cases]
operators = {FAMILIES!r}
per_operator = 6

[[cases.intensity]]
family = "ExpiredApproval"
parameter = "events"
levels = [1, 2, 3]

[[cases.intensity]]
family = "InterveningUpdate"
parameter = "events"
levels = [1, 2]

{THREE_PROFILES}
[[agents]]
id = "versioned"
profile = "idempotent_readback"
params = {{ version_check = true }}
""".replace("'", '"')


@pytest.fixture(scope="module")
def study(taubench, tmp_path_factory) -> Path:
    return run_study(_config(taubench), "state-context", tmp_path_factory)


@pytest.fixture(scope="module")
def evidence(study):
    return collect_evidence(study)


def test_every_family_activates_on_every_injected_run(evidence):
    assert {r.family for r in evidence.families} == set(FAMILIES)
    for row in evidence.families:
        activation = row.to_dict()["metrics"]["activation"]
        assert activation["denominator"] >= 6, (row.config_id, row.family)
        assert activation["numerator"] == activation["denominator"]


@pytest.mark.parametrize("family", FAMILIES)
def test_barrier_and_weak_profile_separate_on_escape(evidence, family):
    keyed = family_metrics(evidence, "keyed", family)
    naive = family_metrics(evidence, "naive", family)
    assert keyed["escape"]["high"] < naive["escape"]["low"], (
        keyed["escape"]["label"],
        naive["escape"]["label"],
    )
    assert keyed["detection"]["numerator"] == keyed["detection"]["denominator"] > 0
    assert naive["detection"]["numerator"] == 0


def test_transfer_rows_start_where_each_fault_enters(evidence):
    first = {
        (r.config_id, r.family): r.first_invalid for r in evidence.transfer if r.family in FAMILIES
    }
    for config_id in ("keyed", "naive"):
        assert first[(config_id, "StaleCheckpoint")] == "context"
        assert first[(config_id, "ExpiredApproval")] == "authority"
        assert first[(config_id, "MissingEntitlement")] == "context"


def test_stale_checkpoint_effects_come_from_the_state(taubench, study):
    trials = [t for t in load_trials(study) if t.family == "StaleCheckpoint" and t.injected]
    keyed = [t for t in trials if t.config_id == "keyed"]
    assert keyed and all(t.injected.effects == 1 for t in keyed)  # reconstructed, not redone
    assert all(t.injected.outcome.value == "VERIFIED" for t in keyed)
    naive = [t for t in trials if t.config_id == "naive"]
    retail = [t for t in naive if t.case.domain == "retail"]
    airline = [t for t in naive if t.case.domain == "airline"]
    # retail refuses the repeated write, and the weak agent reports a refusal of a change
    # that was made; airline applies a repeatable write twice
    assert retail and all(t.injected.outcome.value == "REJECTED" for t in retail)
    assert all(t.injected.effects == 1 for t in retail)
    world = load_world("tau-bench", "airline", taubench)
    twice = [
        t for t in airline if changes_twice(world, t.case.params.tool, t.case.params.arguments)
    ]
    assert twice and all(t.injected.effects == 2 for t in twice)
    # the key of the shallow profile deduplicates its repeat: contained, though undetected
    shallow = family_metrics(collect_evidence(study), "shallow", "StaleCheckpoint")
    assert shallow["escape"]["numerator"] == 0 and shallow["detection"]["numerator"] == 0


def test_missing_entitlement_barrier_writes_nothing_and_hands_off(study):
    trials = [t for t in load_trials(study) if t.family == "MissingEntitlement" and t.injected]
    keyed = [t for t in trials if t.config_id == "keyed"]
    assert keyed and all(t.injected.effects == 0 for t in keyed)
    assert all(t.injected.world["acceptable"] for t in keyed)
    naive = [t for t in trials if t.config_id == "naive"]
    assert naive and all(
        t.injected.effects == 1 and not t.injected.world["acceptable"] for t in naive
    )


def _curve(evidence, config_id, family="ExpiredApproval"):
    return {
        p.level: p.row.to_dict()["metrics"]
        for p in evidence.curves
        if p.config_id == config_id and p.family == family and p.parameter == "events"
    }


def test_intervening_events_curve_locates_where_each_barrier_breaks(evidence):
    keyed, shallow, naive = (_curve(evidence, c) for c in ("keyed", "shallow", "naive"))
    assert set(keyed) == set(shallow) == set(naive) == {"1", "2", "3"}
    # asks again twice: never escapes; recovers until a third expiry in a row
    assert all(keyed[k]["escape"]["numerator"] == 0 for k in keyed)
    assert keyed["2"]["recovery"]["low"] > 0.5 and keyed["3"]["recovery"]["numerator"] == 0
    # asks again once, then revives the lapsed approval: breaks from two events on
    assert shallow["1"]["escape"]["numerator"] == 0
    assert shallow["2"]["escape"]["low"] > keyed["2"]["escape"]["high"]
    assert shallow["3"]["escape"]["low"] > keyed["3"]["escape"]["high"]
    # never asks again: escapes while its re-sends outnumber the expiries
    assert naive["1"]["escape"]["low"] > 0.5 and naive["2"]["escape"]["low"] > 0.5
    assert naive["3"]["escape"]["numerator"] == 0  # gave up: nothing applied, a refusal said


def test_a_status_precondition_holds_at_one_intervening_event_and_a_version_check_at_two(
    evidence,
):
    """One event moves the order on (the tool refuses the stale write); two move it back
    with its address changed (ABA): the status matches, the tool accepts, and only the
    agent that compares the whole record before writing makes no stale effect."""
    curves = {c: _curve(evidence, c, "InterveningUpdate") for c in ("keyed", "naive", "versioned")}
    for config_id, curve in curves.items():
        assert set(curve) == {"1", "2"}, config_id
        assert curve["1"]["escape"]["numerator"] == 0, config_id
        assert curve["1"]["activation"]["numerator"] == curve["1"]["activation"]["denominator"]
    for weak in ("keyed", "naive"):
        escape = curves[weak]["2"]["escape"]
        assert escape["numerator"] == escape["denominator"] >= 3, weak
        assert curves[weak]["2"]["detection"]["numerator"] == 0
    versioned = curves["versioned"]["2"]
    assert versioned["escape"]["numerator"] == 0
    assert versioned["detection"]["numerator"] == versioned["detection"]["denominator"] > 0
