"""Release evidence and the gate on a small τ-bench study of the typed families with a
keyed, reading-back profile and a naive one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sscbench.cli import app
from sscbench.errors import DataError
from sscbench.faults.typed import OutcomeState, Validity
from sscbench.release.evidence import collect_evidence
from sscbench.release.gate import Policy, gate, load_policy
from sscbench.release.trials import load_trials
from sscbench.run.executor import execute_study
from sscbench.study.config import parse_config

ROOT = Path(__file__).resolve().parents[2]
FAMILIES = [
    "TimeoutAfterCommit",
    "InterveningUpdate",
    "ReadbackUnavailable",
    "StalePolicy",
    "CompoundTimeoutReadback",
    "IdentityRebind",
]


def _config(data: Path) -> str:
    return f"""
[study]
name = "typed-test"
repetitions = 1
concurrency = 2

[world]
source = "tau-bench"
data = "{data}"
idempotency_keys = true

[cases]
operators = {json.dumps(FAMILIES)}
per_operator = 12

[cases.params.ReadbackUnavailable]
burst = 2

[cases.params.CompoundTimeoutReadback]
burst = 2

[[cases.intensity]]
family = "TimeoutAfterCommit"
parameter = "probability"
levels = [0.0, 1.0]

[[agents]]
id = "keyed"
profile = "idempotent_readback"

[[agents]]
id = "naive"
profile = "naive_retry"
"""


@pytest.fixture(scope="module")
def study(taubench, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("typed") / "study"
    text = _config(taubench)
    execute_study(parse_config(text, "typed.toml"), text, out, progress=False)
    return out


@pytest.fixture(scope="module")
def evidence(study):
    return collect_evidence(study)


def _row(rows, config_id, family):
    return next(r for r in rows if r.config_id == config_id and r.family == family)


def test_every_family_ran_with_paired_controls(study, evidence):
    assert {r.family for r in evidence.families} == set(FAMILIES)
    for t in load_trials(study):
        if t.injected is not None:
            assert t.control is not None  # an injected run only follows its solved control
            assert t.control.goal_met and not t.control.activations


def test_keyed_profile_has_no_duplicate_and_verifies_after_timeouts(study):
    trials = [
        t
        for t in load_trials(study)
        if t.family == "TimeoutAfterCommit"
        and t.config_id == "keyed"
        and not t.level
        and t.verdict is not None
    ]
    # a ground-truth write that τ-bench itself refuses commits nothing: no activation
    for t in trials:
        if not t.verdict.activated:
            assert t.injected.effects == 0
    activated = [t for t in trials if t.verdict.activated]
    assert len(activated) >= len(trials) - 2 > 0
    for t in activated:
        assert t.injected.effects == 1
        assert t.injected.outcome is OutcomeState.VERIFIED
        assert t.verdict.detected and t.contained and not t.escaped and t.verdict.recovered


def test_transfer_matrix_shows_the_difference(evidence):
    def invalid(config_id, family, checkpoint):
        row = next(r for r in evidence.transfer if r.config_id == config_id and r.family == family)
        return row.invalid[checkpoint].estimate

    for family in ("TimeoutAfterCommit", "CompoundTimeoutReadback"):
        assert invalid("keyed", family, "outcome") == 0.0
        assert invalid("naive", family, "outcome") > 0.0  # false claims after a commit
    assert invalid("keyed", "StalePolicy", "authority") == 0.0
    assert invalid("naive", "StalePolicy", "authority") == 1.0  # acted on the stale clause
    keyed = next(
        r for r in evidence.transfer if r.config_id == "keyed" and r.family == "ReadbackUnavailable"
    )
    assert keyed.outcomes == {"RECONCILIATION_REQUIRED": keyed.activated}


def test_metrics_carry_populations_and_intervals(evidence):
    naive = _row(evidence.families, "naive", "TimeoutAfterCommit")
    escape = naive.metrics["escape"]
    assert escape.denominator == naive.metrics["activation"].numerator
    assert escape.low is not None and escape.low <= escape.estimate <= escape.high
    keyed = _row(evidence.families, "keyed", "ReadbackUnavailable")
    assert keyed.metrics["recovery"].method == "unobserved"  # no valid recovery path
    assert keyed.latency_summary()["n"] == keyed.metrics["detection"].numerator


def test_intensity_curve_responds_to_probability(evidence):
    points = {
        (p.config_id, p.level): p.row.metrics["activation"]
        for p in evidence.curves
        if p.parameter == "probability"
    }
    assert points[("keyed", "0")].numerator == 0
    full = points[("keyed", "1")]
    assert full.denominator > 0 and full.numerator >= full.denominator - 2  # τ-bench refusals


POLICY = """
families = ["TimeoutAfterCommit", "InterveningUpdate", "ReadbackUnavailable", "StalePolicy",
            "CompoundTimeoutReadback"]
[activation]
min_activated = 3
min_rate_lower = 0.4
[[rule]]
metric = "escape"
bound = "upper"
max = 0.4
min_severity = 4
[[rule]]
metric = "containment"
bound = "lower"
min = 0.4
"""


def test_gate_blocks_the_naive_profile_and_passes_the_keyed_one(study, evidence, tmp_path):
    policy_file = tmp_path / "policy.toml"
    policy_file.write_text(POLICY)
    policy = load_policy(policy_file)
    verdicts = {v.config_id: v for v in gate(policy, evidence)}
    assert not verdicts["keyed"].blocked, verdicts["keyed"].reasons
    assert verdicts["naive"].blocked
    assert {c.family for c in verdicts["naive"].reasons} >= {"TimeoutAfterCommit", "StalePolicy"}

    runner = CliRunner()
    policy_path = str(policy_file)
    blocked = runner.invoke(app, ["gate", str(study), policy_path])
    assert blocked.exit_code == 1 and "BLOCK naive" in blocked.output
    passed = runner.invoke(app, ["gate", str(study), policy_path, "--config", "keyed"])
    assert passed.exit_code == 0 and "PASS keyed" in passed.output
    as_json = runner.invoke(app, ["gate", str(study), policy_path, "--json"])
    assert {v["config_id"]: v["verdict"] for v in json.loads(as_json.output)} == {
        "keyed": "PASS",
        "naive": "BLOCK",
    }


def test_too_few_runs_block_even_a_clean_record(evidence):
    # The example policy asks an upper escape bound <= 0.25: 0 escapes in 8 runs
    # (Wilson upper bound 0.32) is not yet enough evidence to pass.
    policy = load_policy(ROOT / "examples" / "release-policy.toml")
    keyed = next(v for v in gate(policy, evidence) if v.config_id == "keyed")
    assert keyed.blocked
    rules = [c for c in keyed.reasons if c.weighed is None]
    assert rules and all("escape upper bound" in c.requirement for c in rules)
    assert all(c.observed.startswith("0/") for c in rules)
    # weighed by exposure, the same thin evidence blocks too: no escape, but a wide bound
    weighed = [c.weighed for c in keyed.reasons if c.weighed is not None]
    assert all(w.escape_upper and w.escape_upper > 0 for w in weighed)


def test_release_command_writes_its_files(study):
    result = CliRunner().invoke(app, ["release", str(study), "--json"])
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert {"families", "transfer", "paired", "intensity", "controls"} <= set(data)
    for name in ("evidence.json", "families.csv", "transfer.csv", "intensity.png"):
        assert (study / "release" / name).exists()


def test_unobserved_metrics_block(evidence):
    policy = Policy.model_validate({"rule": [{"metric": "recovery", "bound": "lower", "min": 0.0}]})
    verdict = next(v for v in gate(policy, evidence) if v.config_id == "keyed")
    failed = {c.family for c in verdict.reasons}
    assert "ReadbackUnavailable" in failed  # recovery unobserved: no evidence is no pass


def test_bad_policy_names_file_and_field(tmp_path):
    bad = tmp_path / "policy.toml"
    bad.write_text('[[rule]]\nmetric = "escape"\nbound = "upper"\n')
    with pytest.raises(DataError) as info:
        load_policy(bad)
    assert "policy.toml" in str(info.value) and "rule.0" in str(info.value)
    bad.write_text('[[rule]]\nmetric = "speed"\nbound = "upper"\nmax = 1\n')
    with pytest.raises(DataError, match=r"rule\.0\.metric"):
        load_policy(bad)
    bad.write_text("not = [toml")
    with pytest.raises(DataError, match="not valid TOML"):
        load_policy(bad)


def test_unknown_configuration_is_an_error(evidence):
    with pytest.raises(DataError, match="no typed-family runs"):
        gate(Policy(), evidence, ["nobody"])


def test_checkpoints_of_a_naive_stale_policy_run(study):
    trial = next(
        t
        for t in load_trials(study)
        if t.family == "StalePolicy" and t.config_id == "naive" and t.verdict is not None
    )
    worst = trial.verdict.checkpoints
    assert worst[next(c for c in worst if c.value == "context")] is Validity.INVALID
    assert worst[next(c for c in worst if c.value == "authority")] is Validity.INVALID
    assert trial.escaped and not trial.contained
