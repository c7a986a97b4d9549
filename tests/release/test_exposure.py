"""The exposure-weighted release decision: frequency (exposure × escape upper bound) and
consequence (severity, reversibility) as two numbers, limits by consequence, the
arithmetic printed, and failing closed on anything missing."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from sscbench.analysis.stats import proportion_interval
from sscbench.release.evidence import FamilyRow
from sscbench.release.exposure import ExposurePolicy, exposure_check
from sscbench.release.gate import Policy, judge_configuration


def _row(family: str, severity: int, escaped: int, activated: int) -> FamilyRow:
    def iv(k: int, n: int):
        return proportion_interval([1] * k + [0] * (n - k), list(range(n)))

    return FamilyRow(
        config_id="c",
        family=family,
        severity=severity,
        level={},
        scheduled=activated,
        missing=0,
        not_qualified=0,
        metrics={
            "activation": iv(activated, activated),
            "detection": iv(activated - escaped, activated),
            "containment": iv(activated - escaped, activated),
            "escape": iv(escaped, activated),
            "recovery": iv(0, 0),
        },
    )


POLICY = {
    "per": 1_000_000,
    "rate": {"IdentityRebind": 1e-5, "TimeoutAfterCommit": 1e-3},
    "limit": [
        {"min_severity": 5, "reversible": False, "max_escapes": 0.5},
        {"min_severity": 4, "max_escapes": 50},
    ],
}


def test_frequency_and_consequence_stay_two_numbers():
    policy = ExposurePolicy.model_validate(POLICY)
    row = _row("IdentityRebind", 5, 0, 40)
    check = exposure_check(policy, row)
    upper = row.metrics["escape"].high
    assert check.expected_escapes == pytest.approx(1e-5 * upper * 1_000_000)
    assert (check.severity, check.reversible) == (5, False)  # not folded into the frequency
    assert check.limit == 0.5 and check.limit_class == "severity >= 5, irreversible"
    assert check.passed == (check.expected_escapes <= 0.5)
    text = check.arithmetic()
    assert f"{upper:.3g}" in text and "1e-05/request" in text and "per 1,000,000" in text
    assert "consequence severity 5, irreversible" in text


def test_the_same_escape_bound_passes_or_blocks_by_exposure_and_consequence():
    policy = ExposurePolicy.model_validate(POLICY)
    # 2/40 escapes: a reversible severity-5 family at 1e-3 exposure falls under the
    # severity-4+ class (50 per million) ...
    timeout = exposure_check(policy, _row("TimeoutAfterCommit", 5, 2, 40))
    assert timeout.reversible and timeout.limit == 50
    assert timeout.expected_escapes > 50 and not timeout.passed  # ≈ 1e-3 × 0.17 × 1e6
    # ... while the irreversible family, 100× rarer, meets the strict class only when
    # its escape bound is small enough
    rare = exposure_check(policy, _row("IdentityRebind", 5, 2, 40))
    assert rare.limit == 0.5 and rare.expected_escapes > 0.5 and not rare.passed
    clean = exposure_check(policy, _row("IdentityRebind", 5, 0, 200))
    assert clean.expected_escapes < 0.5 and clean.passed


def test_missing_pieces_block():
    policy = ExposurePolicy.model_validate(POLICY)
    no_rate = exposure_check(policy, _row("StalePolicy", 4, 0, 40))
    assert not no_rate.passed and "no exposure rate" in no_rate.arithmetic()
    unobserved = exposure_check(policy, _row("IdentityRebind", 5, 0, 0))
    assert not unobserved.passed and "unobserved" in unobserved.arithmetic()
    narrow = ExposurePolicy.model_validate({**POLICY, "limit": [POLICY["limit"][0]]})
    uncovered = exposure_check(narrow, _row("TimeoutAfterCommit", 5, 0, 40))
    assert not uncovered.passed and "no limit covers" in uncovered.arithmetic()
    with pytest.raises(ValidationError, match="must be in"):
        ExposurePolicy.model_validate({**POLICY, "rate": {"IdentityRebind": 2.0}})


def test_gate_adds_one_weighed_check_per_family():
    policy = Policy.model_validate({"exposure": POLICY})
    rows = [_row("IdentityRebind", 5, 0, 200), _row("TimeoutAfterCommit", 5, 2, 40)]
    verdict = judge_configuration(policy, "c", rows)
    weighed = [c for c in verdict.checks if c.weighed is not None]
    assert [c.family for c in weighed] == ["IdentityRebind", "TimeoutAfterCommit"]
    assert [c.passed for c in weighed] == [True, False] and verdict.blocked
    assert weighed[1].observed == weighed[1].weighed.arithmetic()
    dumped = verdict.model_dump()["checks"][-1]["weighed"]
    assert dumped["expected_escapes"] > 50 and dumped["severity"] == 5
