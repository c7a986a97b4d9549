"""The typed containment plan of a campaign (``[containment]`` in a release policy):
validated with errors naming file and field, and checked before any run starts —
a campaign over ``max_affected``, with an effect not allowed, outside its window, or
checked against a policy without a plan is refused and runs nothing."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime

import pytest
from typer.testing import CliRunner

from sscbench.cli import app
from sscbench.errors import DataError
from sscbench.release.containment import check_campaign, load_containment, problems
from sscbench.release.gate import load_policy
from sscbench.run.planning import planned_faults
from sscbench.study.config import parse_config
from sscbench.study.verify import verify_study

STUDY = """
[study]
repetitions = 1
[world]
source = "generated"
domains = ["airline"]
[cases]
operators = ["TimeoutAfterCommit"]
per_operator = {n}
[[agents]]
id = "naive"
profile = "naive_retry"
"""

PLAN = """
[containment]
max_affected = {max_affected}
allowed_effects = {effects}
abort_metric = "escape"
abort_threshold = {threshold}
restoration = "drop each run's overlay"
owner = "release-engineering"
[containment.window]
start = 2020-01-01T00:00:00Z
end = {end}
"""


def _policy(
    tmp_path, max_affected=100, effects='["omission"]', end="2099-01-01T00:00:00Z", threshold=0.25
):
    path = tmp_path / "policy.toml"
    path.write_text(
        PLAN.format(max_affected=max_affected, effects=effects, end=end, threshold=threshold)
    )
    return path


def _config(tmp_path, n: int):
    path = tmp_path / "study.toml"
    path.write_text(STUDY.format(n=n))
    return path


def _refused(policy, field: str) -> DataError:
    with pytest.raises(DataError) as caught:
        load_policy(policy)
    assert caught.value.path == policy and caught.value.field == field, caught.value
    return caught.value


def test_a_valid_plan_is_read_with_its_abort_rule(tmp_path):
    plan = load_containment(_policy(tmp_path))
    assert plan.max_affected == 100 and plan.owner == "release-engineering"
    assert plan.abort_rule() == "escape rate above 0.25"


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ('allowed_effects = ["omission"]', 'allowed_effects = ["explosion"]', "allowed_effects.0"),
        ('allowed_effects = ["omission"]', "allowed_effects = []", "allowed_effects"),
        ("max_affected = 100", "max_affected = -1", "max_affected"),
        ('owner = "release-engineering"', 'owner = "  "', "owner"),
        ('owner = "release-engineering"', "", "owner"),
        ("abort_threshold = 0.25", "abort_threshold = 2", "abort_threshold"),
        ('abort_metric = "escape"', 'abort_metric = "vibes"', "abort_metric"),
        ("start = 2020-01-01T00:00:00Z", "start = 2020-01-01T00:00:00", "window.start"),
        ("start = 2020-01-01T00:00:00Z", "start = 2100-01-01T00:00:00Z", "window"),
        ("max_affected = 100", "max_affected = 100\nblast = 3", "blast"),
    ],
)
def test_a_bad_plan_is_refused_naming_file_and_field(tmp_path, old, new, field):
    path = _policy(tmp_path)
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    _refused(path, f"containment.{field}")


def test_a_policy_without_a_plan_is_refused(tmp_path):
    path = tmp_path / "gate-only.toml"
    path.write_text('[[rule]]\nmetric = "escape"\nbound = "upper"\nmax = 0.2\n')
    assert load_policy(path).containment is None  # the gate alone needs no plan
    with pytest.raises(DataError) as caught:
        load_containment(path)
    assert caught.value.field == "containment" and "no containment plan" in str(caught.value)


def test_every_way_out_of_the_plan_is_named(tmp_path):
    plan = load_containment(_policy(tmp_path, max_affected=3))
    now = datetime(2030, 1, 1, tzinfo=UTC)
    assert problems(plan, Counter({"TimeoutAfterCommit": 3}), now) == []
    found = problems(plan, Counter({"TimeoutAfterCommit": 2, "ReturnDate": 2, "Mystery": 1}), now)
    fields = [f for f, _ in found]
    assert fields.count("containment.max_affected") == 1
    reasons = " ".join(r for _, r in found)
    assert "plans 5 faulted runs" in reasons and "at most 3" in reasons
    assert "ReturnDate injects corruption" in reasons  # omission only is allowed
    assert "Mystery has no typed description" in reasons
    late = problems(plan, Counter({"TimeoutAfterCommit": 1}), datetime(2100, 1, 1, tzinfo=UTC))
    assert [f for f, _ in late] == ["containment.window"]


def test_the_check_counts_the_planned_faulted_runs(tmp_path):
    config = parse_config(STUDY.format(n=3), "s.toml")
    record = check_campaign(planned_faults(config), _policy(tmp_path))
    assert record["faulted_runs"] == record["by_family"]["TimeoutAfterCommit"] > 0
    assert record["effects"] == {"TimeoutAfterCommit": "omission"}
    small = _policy(tmp_path, max_affected=record["faulted_runs"] - 1)
    with pytest.raises(DataError) as caught:
        check_campaign(planned_faults(config), small)
    assert caught.value.field == "containment.max_affected"


def _run(tmp_path, policy, out):
    args = ["run", str(_config(tmp_path, 3)), "--out", str(out), "--no-report", "--no-progress"]
    return CliRunner().invoke(app, [*args, "--containment", str(policy)])


@pytest.mark.parametrize(
    ("plan", "words"),
    [
        ({"max_affected": 1}, "containment.max_affected"),
        ({"effects": '["corruption"]'}, "TimeoutAfterCommit injects omission"),
        ({"end": "2021-01-01T00:00:00Z"}, "outside"),
    ],
)
def test_a_campaign_outside_its_plan_is_refused_before_any_run(tmp_path, plan, words):
    out = tmp_path / "campaign"
    result = _run(tmp_path, _policy(tmp_path, **plan), out)
    assert result.exit_code == 2, result.output
    assert words in " ".join(result.output.split()), result.output
    assert not out.exists()  # no study folder, no run


def test_a_campaign_checked_against_no_plan_is_refused(tmp_path):
    policy = tmp_path / "gate-only.toml"
    policy.write_text("[activation]\nmin_activated = 1\n")
    out = tmp_path / "campaign"
    result = _run(tmp_path, policy, out)
    assert result.exit_code == 2 and "no containment plan" in result.output, result.output
    assert not out.exists()


def test_a_campaign_within_its_plan_runs_and_records_the_check(tmp_path):
    out = tmp_path / "campaign"
    result = _run(tmp_path, _policy(tmp_path, threshold=1.0), out)  # escape > 1: never
    assert result.exit_code == 0, result.output
    record = json.loads((out / "containment.json").read_text())
    assert record["plan"]["owner"] == "release-engineering"
    assert record["abort_enforced"] is True and "abort" not in record
    planned = sum(1 for _ in (out / "plan.jsonl").open())
    assert record["faulted_runs"] == planned
    verify_study(out)  # the record is no stranger to the study's own check
