"""The bound a decision reads: a degenerate boundary interval is never read as certainty."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sscbench.analysis.decision import clusters_needed, decision_bound
from sscbench.analysis.stats import cluster_bootstrap, proportion_interval, wilson
from sscbench.release.evidence import FamilyRow
from sscbench.release.exposure import ExposurePolicy, exposure_check
from sscbench.release.gate import Policy, judge_configuration

Z2 = 1.959963984540054**2


def _repeated(k_clusters: int, n_clusters: int, reps: int = 2):
    """``reps`` runs per cluster; the first ``k_clusters`` clusters are all 1."""
    values = [1 if c < k_clusters else 0 for c in range(n_clusters) for _ in range(reps)]
    clusters = [c for c in range(n_clusters) for _ in range(reps)]
    return proportion_interval(values, clusters)


def test_zero_over_repeated_runs_is_already_the_wilson_bound_over_clusters():
    # the interval itself counts each cluster once at the boundary (never [0, 0]);
    # the decision reads that bound, the same the report and claims.json show
    interval = _repeated(0, 14)
    assert interval.method == "clustered" and interval.high == pytest.approx(Z2 / (14 + Z2))
    assert interval.caveats == ("boundary",)
    reading = decision_bound(interval, "upper")
    assert reading.value == interval.high and not reading.note
    assert decision_bound(interval, "lower").value == 0.0


def test_a_bare_bootstrap_at_zero_reads_the_wilson_bound_over_clusters():
    values, clusters = [0] * 28, [c // 2 for c in range(28)]
    interval = cluster_bootstrap(values, clusters, b=200)
    assert interval.high == 0.0
    reading = decision_bound(interval, "upper")
    assert reading.value == pytest.approx(Z2 / (14 + Z2))  # ≈ 0.215, not 0
    assert "14 clusters" in reading.note


def test_all_ones_reads_the_wilson_lower_bound_over_clusters():
    interval = _repeated(14, 14)
    assert interval.high == 1.0
    assert decision_bound(interval, "lower").value == pytest.approx(14 / (14 + Z2))


def test_ordinary_intervals_are_read_as_they_are():
    inner = _repeated(5, 14)
    assert decision_bound(inner, "upper").value == inner.high
    assert decision_bound(inner, "upper").note == ""
    one_per_cluster = wilson(0, 20)
    assert decision_bound(one_per_cluster, "upper").value == one_per_cluster.high
    empty = proportion_interval([], [])
    assert decision_bound(empty, "upper").value is None


@settings(max_examples=60, deadline=None)
@given(
    k=st.integers(0, 12),
    n=st.integers(1, 12),
    reps=st.integers(1, 3),
    side=st.sampled_from(["upper", "lower"]),
)
def test_the_decision_bound_is_never_less_cautious(k, n, reps, side):
    k = min(k, n)
    values = [1 if c < k else 0 for c in range(n) for _ in range(reps)]
    clusters = [c for c in range(n) for _ in range(reps)]
    interval = cluster_bootstrap(values, clusters, b=200)
    reading = decision_bound(interval, side)
    if side == "upper":
        assert reading.value >= interval.high
    else:
        assert reading.value <= interval.low


@pytest.mark.parametrize("threshold", [0.05, 0.1, 0.25, 0.4])
def test_clusters_needed_is_the_smallest_sample_that_clears(threshold):
    need = clusters_needed(0.0, "upper", threshold, 0.95)
    assert wilson(0, need).high <= threshold < wilson(0, need - 1).high
    need_low = clusters_needed(1.0, "lower", 1 - threshold, 0.95)
    assert wilson(need_low, need_low).low >= 1 - threshold > wilson(need_low - 1, need_low - 1).low
    assert clusters_needed(0.3, "upper", threshold, 0.95) is None


def _row(escape) -> FamilyRow:
    full = _repeated(14, 14)
    return FamilyRow(
        config_id="c", family="IdentityRebind", severity=5, level={}, scheduled=28,
        missing=0, not_qualified=0,
        metrics={"activation": full, "detection": full, "containment": full,
                 "escape": escape, "recovery": proportion_interval([], [])},
    )  # fmt: skip


def test_the_gate_blocks_no_escape_on_too_few_tasks_and_says_what_would_pass():
    policy = Policy.model_validate(
        {"rule": [{"metric": "escape", "bound": "upper", "max": 0.1, "min_severity": 4}]}
    )
    verdict = judge_configuration(policy, "c", [_row(_repeated(0, 14))])
    assert verdict.blocked
    (reason,) = verdict.reasons
    assert "0.0–21.5%, clustered, n_eff 14, 14 clusters" in reason.observed
    assert "⚠ boundary" in reason.observed
    assert "at least 35 clusters" in reason.observed
    enough = judge_configuration(policy, "c", [_row(_repeated(0, 40))])
    assert not enough.blocked


def test_exposure_never_multiplies_by_a_degenerate_zero():
    policy = ExposurePolicy.model_validate(
        {"rate": {"IdentityRebind": 1e-5},
         "limit": [{"min_severity": 5, "reversible": False, "max_escapes": 0.5}]}
    )  # fmt: skip
    check = exposure_check(policy, _row(_repeated(0, 14)))
    assert check.escape_upper == pytest.approx(Z2 / (14 + Z2))
    assert check.expected_escapes == pytest.approx(1e-5 * check.escape_upper * 1e6)
    assert not check.passed
    # 0.5 per million at 1e-5 needs an escape bound of 0.05: 73 clusters without an escape
    assert check.clusters_needed == clusters_needed(0.0, "upper", 0.05, 0.95) == 73
    assert "at least 73 clusters without an escape would pass" in check.arithmetic()
    assert "⚠ escape bound: boundary" in check.arithmetic()
