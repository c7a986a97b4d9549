"""The containment plan's abort metric enforced while the campaign runs: once the
campaign's escape rate (the release evidence's own metric over the finished faulted
runs) crosses the threshold no new run is scheduled, the finished runs are kept and
pass the study's check, ``containment.json`` records the abort, the terminal says so
(exit 1); running the same command again is refused unless ``--resume-aborted``."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from typer.testing import CliRunner

from sscbench.cli import app
from sscbench.release.abort import crossed
from sscbench.release.containment_plan import CampaignContainment
from sscbench.study.verify import verify_study

STUDY = """
[study]
repetitions = 1
concurrency = 1
[world]
source = "generated"
domains = ["airline"]
[cases]
operators = ["TimeoutAfterCommit"]
per_operator = 4
[[agents]]
id = "naive"
profile = "naive_retry"
"""

PLAN = """
[containment]
max_affected = 100
allowed_effects = ["omission"]
abort_metric = "escape"
abort_threshold = 0.25
restoration = "drop each run's overlay"
owner = "release-engineering"
[containment.window]
start = 2020-01-01T00:00:00Z
end = 2099-01-01T00:00:00Z
"""


def _index(out):
    return [json.loads(line) for line in (out / "index.jsonl").open()]


def _run(tmp_path, out, *extra: str):
    config, policy = tmp_path / "study.toml", tmp_path / "policy.toml"
    config.write_text(STUDY)
    policy.write_text(PLAN)
    args = ["run", str(config), "--out", str(out), "--no-report", "--no-progress"]
    return CliRunner().invoke(
        app, [*args, "--containment", str(policy), *extra], env={"COLUMNS": "250"}
    )


@pytest.fixture
def aborted(tmp_path):
    out = tmp_path / "campaign"
    return out, _run(tmp_path, out)


def test_the_campaign_stops_when_escapes_cross_the_threshold(aborted):
    out, result = aborted
    assert result.exit_code == 1, result.output
    text = " ".join(result.output.split())
    assert "campaign aborted by its containment plan: escape rate above 0.25" in text
    record = json.loads((out / "containment.json").read_text())
    abort = record["abort"]
    assert abort["metric"] == "escape" and abort["threshold"] == 0.25
    assert abort["value"] > 0.25 and abort["faulted_runs_finished"] >= 1
    index = _index(out)
    faulted = [e for e in index if e["kind"] == "faulted"]
    planned = sum(1 for _ in (out / "plan.jsonl").open())
    assert len(faulted) == abort["faulted_runs_finished"] < planned  # stopped scheduling
    verify_study(out)  # every finished run kept whole


def test_resuming_an_aborted_campaign_is_refused_unless_asked(tmp_path, aborted):
    out, _ = aborted
    before = _index(out)
    refused = _run(tmp_path, out)
    assert refused.exit_code == 2, refused.output
    text = " ".join(refused.output.split())
    assert "containment.json" in text and "--resume-aborted" in text
    assert _index(out) == before  # nothing ran
    resumed = _run(tmp_path, out, "--resume-aborted")
    assert resumed.exit_code == 1, resumed.output  # it ran on, and the metric stops it again
    assert len(_index(out)) > len(before)
    record = json.loads((out / "containment.json").read_text())
    assert record["resumed_after_abort"]["faulted_runs_finished"] == len(
        [e for e in before if e["kind"] == "faulted"]
    )


def _plan(metric: str, threshold: float) -> CampaignContainment:
    now = datetime.now(UTC)
    return CampaignContainment(
        max_affected=1,
        allowed_effects=["omission"],
        window={"start": now - timedelta(days=1), "end": now + timedelta(days=1)},
        abort_metric=metric,
        abort_threshold=threshold,
        restoration="r",
        owner="o",
    )


def test_escape_aborts_above_the_threshold_the_other_rates_below_it():
    assert crossed(_plan("escape", 0.25), 0.3) and not crossed(_plan("escape", 0.25), 0.25)
    assert crossed(_plan("containment", 0.8), 0.5)
    assert not crossed(_plan("containment", 0.8), 0.9)
    assert not crossed(_plan("escape", 0.0), None)  # unobserved: never aborts


def test_the_release_command_says_the_campaign_was_aborted(aborted):
    out, _ = aborted
    result = CliRunner().invoke(app, ["release", str(out)], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "campaign aborted by its containment plan: escape rate above 0.25 crossed" in text
