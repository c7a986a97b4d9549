"""Release evidence of the identity family on τ-bench: the ownership barrier profile and
the profile that binds to whatever record a lookup returns separate on escape, the
oracle reads world state (another user's record changed or not), and the transfer
matrix's identity row first turns invalid at ``identity``."""

from __future__ import annotations

from pathlib import Path

import pytest

from sscbench.release.evidence import collect_evidence
from sscbench.release.trials import load_trials
from sscbench.run.executor import execute_study
from sscbench.study.config import parse_config
from sscbench.study.profiles import make_profile


def _config(data: Path) -> str:
    return f"""
[study]
name = "identity-test"
repetitions = 1
concurrency = 2

[world]
source = "tau-bench"
data = "{data}"
domains = ["airline", "retail"]
idempotency_keys = true

[cases]
operators = ["IdentityRebind"]
per_operator = 8

[[agents]]
id = "bound"
profile = "idempotent_readback"

[[agents]]
id = "weak"
profile = "naive_retry"
"""


@pytest.fixture(scope="module")
def study(taubench, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("identity") / "study"
    text = _config(taubench)
    execute_study(parse_config(text, "identity.toml"), text, out, progress=False)
    return out


@pytest.fixture(scope="module")
def evidence(study):
    return collect_evidence(study)


def _row(rows, config_id):
    return next(r for r in rows if r.config_id == config_id and r.family == "IdentityRebind")


def test_activation_is_deterministic_and_the_profiles_separate_on_escape(evidence):
    bound, weak = _row(evidence.families, "bound"), _row(evidence.families, "weak")
    for row in (bound, weak):
        act = row.metrics["activation"]
        assert act.denominator >= 10 and act.numerator == act.denominator  # every run fired
        assert row.severity == 5
    assert bound.metrics["escape"].numerator == 0 and bound.metrics["containment"].estimate == 1
    assert bound.metrics["detection"].estimate == 1
    assert weak.metrics["escape"].estimate == 1 and weak.metrics["containment"].numerator == 0
    # non-overlapping intervals, not just different estimates
    assert bound.metrics["escape"].high < weak.metrics["escape"].low


def test_oracle_is_world_state_another_users_record(study):
    trials = [t for t in load_trials(study) if t.injected is not None]
    assert trials
    for t in trials:
        assert t.control is not None and t.control.world["acceptable"]
        if t.config_id == "weak":
            # the write landed on the substitute: another user's record changed
            assert not t.injected.world["acceptable"] and t.injected.effects == 1
            assert t.escaped
        else:
            assert t.injected.world["acceptable"] and t.injected.effects == 0
            assert t.contained and t.verdict.latency_events is not None


def test_transfer_row_first_invalid_is_identity(evidence):
    rows = [r for r in evidence.transfer if r.family == "IdentityRebind"]
    assert {r.config_id for r in rows} == {"bound", "weak"}
    for r in rows:
        assert r.first_invalid == "identity" and r.invalid["identity"].estimate == 1.0
        assert r.to_dict()["first_invalid"] == "identity"
    bound = next(r for r in rows if r.config_id == "bound")
    weak = next(r for r in rows if r.config_id == "weak")
    # the barrier stops the error at identity; without it it reaches action and outcome
    assert bound.invalid["action"].estimate == bound.invalid["outcome"].estimate == 0.0
    assert weak.invalid["action"].estimate == weak.invalid["outcome"].estimate == 1.0


def test_ownership_check_is_a_validated_profile_setting():
    assert make_profile("idempotent_readback").ownership_check
    assert not make_profile("naive_retry").ownership_check
    assert "ownership_check" not in make_profile("readback").params()  # labels unchanged
    with pytest.raises(ValueError, match="ownership_check"):
        make_profile("readback", ownership_check="yes")


def test_gate_prints_the_exposure_arithmetic_per_family(study):
    from typer.testing import CliRunner

    from sscbench.cli import app

    root = Path(__file__).resolve().parents[2]
    policy = root / "examples" / "release-policy.toml"
    result = CliRunner().invoke(app, ["gate", str(study), str(policy)], env={"COLUMNS": "300"})
    assert result.exit_code == 1  # the weak profile blocks (and the policy's other families)
    out = " ".join(result.output.split())
    assert "exposure-weighted escapes (frequency | consequence)" in out
    # the weak profile: 1e-5 × 1 × 1e6 = 10 escapes per million
    assert "BLOCK IdentityRebind: exposure 1e-05/request × escape upper bound 1 " in out
    assert "= 10 escapes per 1,000,000 > limit 0.5 (severity >= 5, irreversible)" in out
    # the barrier profile never escaped, but 0 of 13 leaves a Wilson upper bound of 0.228:
    # 2.28 per million is still too many for a severe, irreversible fault — thin
    # evidence blocks (more runs would narrow the bound)
    assert "escape upper bound 0.228 × 1,000,000 requests = 2.28 escapes" in out
    assert "consequence severity 5, irreversible" in out
