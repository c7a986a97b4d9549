"""``sscbench release diff A B``: the six metrics and the transfer cells of two releases,
A, B, B − A and interval overlap; a folder that is not a release is refused by name."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sscbench.analysis.stats import proportion_interval
from sscbench.cli import app
from sscbench.faults.typed import CHECKPOINTS
from sscbench.release.cli import write_outputs
from sscbench.release.diff import SIX_METRICS, release_diff
from sscbench.release.evidence import FamilyRow, FamilyTransferRow, ReleaseEvidence


def _rate(k: int, n: int):
    """k of n runs, one per task (a Wilson interval)."""
    return proportion_interval([1] * k + [0] * (n - k), [f"t{i}" for i in range(n)])


def _evidence(escapes: int, latencies: list[int], action_invalid: int) -> ReleaseEvidence:
    metrics = {
        "activation": _rate(10, 10),
        "detection": _rate(10 - escapes, 10),
        "containment": _rate(10 - escapes, 10),
        "escape": _rate(escapes, 10),
        "recovery": _rate(5, 10),
    }
    row = FamilyRow("keyed", "TimeoutAfterCommit", 5, {}, 10, 0, 0, metrics, latencies)
    invalid = {cp.value: _rate(0, 10) for cp in CHECKPOINTS}
    invalid["action"] = _rate(action_invalid, 10)
    cell = FamilyTransferRow("keyed", "TimeoutAfterCommit", 10, invalid, {}, Counter(), Counter())
    return ReleaseEvidence([row], [cell], [], [], {})


def _release(base: Path, name: str, evidence: ReleaseEvidence) -> Path:
    """A study folder holding ``release/`` as ``sscbench release`` writes it."""
    write_outputs(evidence, base / name / "release")
    return base / name


@pytest.fixture
def releases(tmp_path):
    a = _release(tmp_path, "a", _evidence(escapes=0, latencies=[2, 2, 4], action_invalid=1))
    b = _release(tmp_path, "b", _evidence(escapes=9, latencies=[5, 7], action_invalid=8))
    return a, b


def _row(rows, **match):
    (found,) = [r for r in rows if all(r[k] == v for k, v in match.items())]
    return found


def test_the_diff_gives_each_metric_and_cell_with_its_difference(releases):
    a, b = releases
    diff = release_diff(a, b / "release")  # a study folder or its release/ folder
    assert [r["metric"] for r in diff["metrics"]] == list(SIX_METRICS)
    escape = _row(diff["metrics"], metric="escape")
    assert escape["a"]["estimate"] == 0.0 and escape["b"]["estimate"] == 0.9
    assert escape["difference"] == pytest.approx(0.9)
    assert escape["overlap"] is False  # 0/10 vs 9/10: Wilson intervals apart
    assert escape["a"]["low"] == 0.0 and escape["b"]["high"] <= 1.0
    recovery = _row(diff["metrics"], metric="recovery")
    assert recovery["difference"] == 0.0 and recovery["overlap"] is True
    latency = _row(diff["metrics"], metric="latency")
    assert latency["a"]["estimate"] == 2 and latency["b"]["estimate"] == 6
    assert latency["difference"] == 4 and latency["overlap"] is None
    action = _row(diff["transfer"], checkpoint="action")
    assert action["difference"] == pytest.approx(0.7) and action["overlap"] is False
    assert action["first_invalid"] == {"a": None, "b": "action"}
    assert _row(diff["transfer"], checkpoint="identity")["difference"] == 0.0


def test_a_family_only_one_release_ran_keeps_the_other_side_empty(tmp_path, releases):
    a, _ = releases
    other = _evidence(escapes=1, latencies=[], action_invalid=0)
    other.families[0].family = other.transfer[0].family = "StalePolicy"
    b = _release(tmp_path, "c", other)
    rows = release_diff(a, b)["metrics"]
    stale = _row(rows, family="StalePolicy", metric="escape")
    assert stale["only"] == "b" and stale["a"]["estimate"] is None
    assert stale["difference"] is None and stale["overlap"] is None
    assert _row(rows, family="StalePolicy", metric="latency")["b"]["label"] == "no detection"


def test_the_command_prints_writes_json_and_csv_and_exits_1_on_a_difference(tmp_path, releases):
    a, b = releases
    out = tmp_path / "diff-out"
    result = CliRunner().invoke(app, ["release", "diff", str(a), str(b), "--out", str(out)])
    assert result.exit_code == 1, result.output
    assert "escape" in result.output and "+90.0 pt" in result.output
    saved = json.loads((out / "release-diff.json").read_text())
    assert _row(saved["metrics"], metric="escape")["difference"] == pytest.approx(0.9)
    with (out / "metrics-diff.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    escape = _row(rows, metric="escape")
    assert escape["a_estimate"] == "0.0" and escape["b_estimate"] == "0.9"
    assert escape["overlap"] == "False"
    with (out / "transfer-diff.csv").open() as handle:
        assert len(list(csv.DictReader(handle))) == len(CHECKPOINTS)
    same = CliRunner().invoke(app, ["release", "diff", str(a), str(a)])
    assert same.exit_code == 0, same.output


def test_a_folder_that_is_not_a_release_is_refused_by_name(tmp_path, releases):
    a, _ = releases
    study = tmp_path / "plain-study"
    study.mkdir()
    result = CliRunner().invoke(app, ["release", "diff", str(a), str(study)])
    assert result.exit_code == 2
    assert "plain-study" in result.output and "not a release" in result.output
    bad = tmp_path / "bad" / "release"
    bad.mkdir(parents=True)
    (bad / "evidence.json").write_text(json.dumps({"transfer": []}))
    result = CliRunner().invoke(app, ["release", "diff", str(a), str(bad.parent), "--json"])
    assert result.exit_code == 2
    assert "evidence.json" in result.output and "field families" in result.output


def test_release_study_still_means_the_evidence_command(tmp_path):
    result = CliRunner().invoke(app, ["release", str(tmp_path / "nowhere")])
    assert result.exit_code == 2 and "nowhere" in result.output
