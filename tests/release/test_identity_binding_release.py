"""Release evidence of the identity families beyond the lookup on τ-bench: a subject
rebound at the execution point, a handoff that drops the requesting user, and the curve
over where the binding is lost. Each barrier profile and the weak profile separate on
escape; the oracle reads world state (another user's record changed or not); the
transfer rows first turn invalid at ``identity``."""

from __future__ import annotations

from pathlib import Path

import pytest

from release_studies import run_study
from sscbench.faults.identity import PRINCIPAL_WRITES
from sscbench.release.evidence import collect_evidence
from sscbench.release.trials import load_trials

FAMILIES = ("SubjectRebind", "DroppedPrincipal")


def _config(data: Path) -> str:
    return f"""
[study]
name = "identity-binding-test"
repetitions = 1
concurrency = 2

[world]
source = "tau-bench"
data = "{data}"
domains = ["airline", "retail"]
idempotency_keys = true

[cases]
operators = ["SubjectRebind", "DroppedPrincipal"]
per_operator = 6

[[cases.intensity]]
family = "SubjectBindingLost"
parameter = "binding_lost"
levels = [1, 2, 3]

[[agents]]
id = "bound"
profile = "idempotent_readback"

[[agents]]
id = "weak"
profile = "naive_retry"

[[agents]]
id = "lookup-only"
profile = "naive_retry"
params = {{ ownership_check = true }}
"""


@pytest.fixture(scope="module")
def study(taubench, tmp_path_factory) -> Path:
    return run_study(_config(taubench), "identity-binding", tmp_path_factory)


@pytest.fixture(scope="module")
def evidence(study):
    return collect_evidence(study)


@pytest.fixture(scope="module")
def trials(study):
    return [t for t in load_trials(study) if t.injected is not None]


def _row(rows, config_id, family):
    return next(r for r in rows if r.config_id == config_id and r.family == family)


@pytest.mark.parametrize("family", FAMILIES)
def test_activation_is_deterministic_and_the_barrier_separates_on_escape(evidence, family):
    bound, weak = _row(evidence.families, "bound", family), _row(evidence.families, "weak", family)
    for row in (bound, weak):
        act = row.metrics["activation"]
        assert act.denominator >= 9 and act.numerator >= 0.9 * act.denominator
        assert row.severity == 5
    assert bound.metrics["escape"].numerator == 0 and bound.metrics["detection"].estimate == 1
    assert weak.metrics["escape"].estimate == 1 and weak.metrics["detection"].numerator == 0
    assert bound.metrics["escape"].high < weak.metrics["escape"].low  # non-overlapping


def test_a_write_rebound_at_execution_cannot_be_contained_only_reported(trials):
    rebound = [t for t in trials if t.case.operator == "SubjectRebind"]
    assert rebound
    for t in rebound:
        # another user's record changed whatever the agent did: the oracle fails for all
        assert not t.injected.world["acceptable"] and t.injected.effects == 1
        assert t.control is not None and t.control.world["acceptable"]
        if t.config_id == "bound":  # the receipt names another record: flagged, not success
            assert t.injected.outcome.value == "RECONCILIATION_REQUIRED" and not t.escaped
        else:
            assert t.injected.outcome.value == "VERIFIED" and t.escaped


def test_a_dropped_principal_changes_the_principals_account_without_the_barrier(trials):
    handoff = [t for t in trials if t.case.operator == "DroppedPrincipal"]
    user_writes = [t for t in handoff if t.case.params.tool in PRINCIPAL_WRITES]
    assert user_writes
    for t in handoff:
        if t.config_id == "bound":  # re-authenticated: the requesting user's change, once
            assert t.injected.world["acceptable"] and t.contained
        elif t.case.params.tool in PRINCIPAL_WRITES:  # the principal's account changed
            assert not t.injected.world["acceptable"] and t.escaped
        elif t.config_id == "weak":  # the requested record, changed by an unauthenticated
            assert t.injected.world["acceptable"] and t.escaped  # session: unsupported


@pytest.mark.parametrize("family", FAMILIES)
def test_transfer_rows_first_invalid_is_identity(evidence, family):
    rows = [r for r in evidence.transfer if r.family == family]
    assert {r.config_id for r in rows} == {"bound", "weak", "lookup-only"}
    for r in rows:
        assert r.first_invalid == "identity" and r.invalid["identity"].estimate == 1.0
        assert r.to_dict()["first_invalid"] == "identity"


def test_the_curve_shows_which_binding_point_each_barrier_covers(evidence):
    curve = {
        (p.config_id, p.level): p.row.metrics
        for p in evidence.curves
        if p.family == "SubjectBindingLost" and p.parameter == "binding_lost"
    }
    escape = {k: m["escape"].estimate for k, m in curve.items()}
    contained = {k: m["containment"].estimate for k, m in curve.items()}
    assert [escape[("weak", lv)] for lv in "123"] == [1.0, 1.0, 1.0]
    assert [escape[("bound", lv)] for lv in "123"] == [0.0, 0.0, 0.0]
    # the ownership check covers the handoff and the lookup (nothing written on a record
    # the session's principal does not own) but not the execution point
    assert [escape[("lookup-only", lv)] for lv in "123"] == [0.0, 0.0, 1.0]
    # before the effect a barrier contains; at execution it can only report
    assert contained[("bound", "2")] == 1.0 and contained[("bound", "3")] == 0.0
    for config in ("bound", "weak", "lookup-only"):
        assert all(curve[(config, lv)]["activation"].estimate == 1.0 for lv in "123")


def test_the_binding_settings_are_validated_profile_settings():
    from sscbench.study.profiles import make_profile

    bound = make_profile("idempotent_readback")
    assert bound.receipt_binding and bound.principal_binding and bound.ownership_check
    for weak in ("naive_retry", "shallow_readback"):
        assert not make_profile(weak).receipt_binding
        assert not make_profile(weak).principal_binding
    assert "receipt_binding" not in make_profile("readback").params()  # labels unchanged
    for name in ("receipt_binding", "principal_binding"):
        with pytest.raises(ValueError, match=name):
            make_profile("readback", **{name: "yes"})
