"""`sscbench world check`: every ground truth scored, τ-bench's own data errors told apart."""

from __future__ import annotations

import json
import re

from typer.testing import CliRunner

from sscbench.cli import app
from sscbench.world.load import load_world
from sscbench.world.selfcheck import check_world
from sscbench.world.taubench_defects import KNOWN_GROUND_TRUTH_ERRORS


def test_known_errors_are_what_taubench_own_tools_returned(taubench_conformance):
    """The packaged table equals the erroring ground-truth calls in the recorded corpus."""
    recorded: dict[str, dict[str, tuple]] = {"airline": {}, "retail": {}}
    for line in (taubench_conformance / "episodes.jsonl").read_text().splitlines():
        episode = json.loads(line)
        match = re.fullmatch(r"tasks_(\w+)\[(\d+)\]", episode["source"])
        if match is None:
            continue
        errors = tuple(
            (index, step["name"], step["observation"])
            for index, step in enumerate(episode["steps"])
            if step["observation"].startswith("Error")
        )
        if errors:
            recorded[episode["domain"]][f"{match[1]}/{match[2]}"] = errors
    assert recorded == KNOWN_GROUND_TRUTH_ERRORS
    assert len(KNOWN_GROUND_TRUTH_ERRORS["retail"]) == 38


def test_taubench_retail_scores_all_and_knows_its_38_errors(taubench_worlds):
    report = check_world(taubench_worlds["retail"])
    assert (report.total, report.rewarded, len(report.clean)) == (635, 635, 597)
    assert set(report.known) == set(KNOWN_GROUND_TRUTH_ERRORS["retail"])
    assert report.unexpected == {} and report.failed == {} and report.ok
    splits = report.by_split()
    assert {split: row["tasks"] for split, row in splits.items()} == {
        "test": 115,
        "train": 500,
        "dev": 20,
    }
    assert sum(row["errors"] for row in splits.values()) == 38


def test_airline_and_generated_meet_no_error(taubench_worlds):
    for world in (taubench_worlds["airline"], load_world("generated", "retail")):
        report = check_world(world)
        assert report.ok and report.known == {} and len(report.clean) == report.total


def test_cli_prints_counts_per_split_and_each_erroring_task():
    result = CliRunner().invoke(app, ["world", "check", "tau-bench/retail"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert (
        "tau-bench/retail test: 115/115 ground truths earn reward 1, 19 meet a tool error" in lines
    )
    assert lines[-1] == (
        "tau-bench/retail: 635/635 ground truths earn reward 1; 38 meet a tool error "
        "(38 known in τ-bench's own data at 59a200c, 0 unexpected)"
    )
    assert (
        "tau-bench/retail test/2: known τ-bench data error, action 1 get_product_details: "
        "Error: product not found"
    ) in lines


def test_cli_exits_1_on_an_error_taubench_does_not_return(monkeypatch):
    """An erroring ground truth not in the table (a tool that disagrees with τ-bench's) fails."""
    trimmed = dict(KNOWN_GROUND_TRUTH_ERRORS["retail"])
    del trimmed["test/2"]
    monkeypatch.setitem(KNOWN_GROUND_TRUTH_ERRORS, "retail", trimmed)
    result = CliRunner().invoke(app, ["world", "check", "tau-bench/retail"])
    assert result.exit_code == 1
    assert "tau-bench/retail test/2: unexpected tool error, action 1" in result.output
    assert "(37 known in τ-bench's own data at 59a200c, 1 unexpected)" in result.output
