"""``sscbench show STUDY RUN``: the numbered model-visible ledger and nothing else."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from sscbench.cli import app
from sscbench.core.ledger import AssistantEvent, SystemEvent, ToolCall, ToolEvent, UserEvent
from sscbench.jsonl import read_objects
from sscbench.review.show import format_ledger, read_events
from sscbench.study.folder import StudyDir

# words of the measurement, the evaluator-only log and the case contract
HIDDEN = ("T_S", "T_U", "Z_S", "adopted", "injected", "triggered", "intervention", "original_")


@pytest.fixture(scope="module")
def study(tiny_study):
    return tiny_study


def _faulted(study):
    """A triggered faulted run with a tool call (the fault is in what it saw)."""
    rows = read_objects(study / "measurements.jsonl")
    return next(r for r in rows if r["kind"] == "faulted" and r.get("triggered"))


def _show(*args: str):
    return CliRunner().invoke(app, ["show", *map(str, args)])


def test_show_prints_every_step_and_no_measurement(study):
    row = _faulted(study)
    result = _show(study, row["run_id"])
    assert result.exit_code == 0, result.output
    events = read_events(study, row["run_id"])
    lines = [line for line in result.output.splitlines() if line[:4].strip().isdigit()]
    assert [int(line.split()[0]) for line in lines] == [e.step for e in events]
    assert [line.split()[1] for line in lines] == [e.type for e in events]
    for event in events:
        if isinstance(event, ToolEvent):
            assert f"[{event.name}] {event.content}" in result.output  # whole, with the tool
        elif isinstance(event, AssistantEvent):
            for call in event.tool_calls:
                assert f"CALL {call.name}({call.arguments})" in result.output
        elif isinstance(event, UserEvent):
            assert event.content.split("\n")[0] in result.output
    system = next(e for e in events if isinstance(e, SystemEvent))
    assert system.content.count("\n") > 2 and len(lines[0]) < 200  # the policy in one line
    for word in HIDDEN:
        assert word not in result.output, word
    assert row["case_id"] not in result.output and row["run_id"] not in result.output


def test_a_unique_prefix_names_the_run_and_json_gives_the_ledger_lines(study):
    run_id = _faulted(study)["run_id"]
    prefix = run_id[: len(run_id) - 3]
    assert _show(study, prefix).output == _show(study, run_id).output
    result = _show(study, prefix, "--json")
    assert result.exit_code == 0, result.output
    recorded = StudyDir(study).ledger_lines(run_id)[1:]
    assert [json.loads(line) for line in result.output.splitlines()] == [
        json.loads(line) for line in recorded
    ]


@pytest.mark.parametrize("run", ["no-such-run", "generated_", ""])
def test_an_unknown_or_ambiguous_run_is_an_error_naming_study_and_run(study, run):
    result = _show(study, run)
    assert result.exit_code == 2
    assert result.output.startswith("error:") and str(study) in result.output
    assert repr(run) in result.output
    assert ("names" in result.output) == (run != "no-such-run")


def test_a_folder_that_is_not_a_study_is_an_error(tmp_path):
    result = _show(tmp_path, "x")
    assert result.exit_code == 2 and "not a study" in result.output


def test_several_calls_long_and_multi_line_texts_are_shown_whole():
    long = "x" * 5000
    events = [
        SystemEvent(step=0, content="# Policy\n\nrule one\nrule two"),
        UserEvent(step=1, content="first line\nsecond line"),
        AssistantEvent(
            step=2,
            content="Looking both up.",
            tool_calls=(
                ToolCall(id="a", name="get_user_details", arguments='{"user_id": "u1"}'),
                ToolCall(id="b", name="get_reservation_details", arguments='{"id": "R1"}'),
            ),
        ),
        ToolEvent(step=3, tool_call_id="a", name="get_user_details", content=long),
        ToolEvent(step=4, tool_call_id="b", name="get_reservation_details", content="{}"),
        AssistantEvent(step=5, content=None),
    ]
    lines = format_ledger(events).splitlines()
    indent = " " * len("  1 user      ")
    assert lines == [
        "  0 system    # Policy [system prompt: 4 lines, 27 characters]",
        "  1 user      first line",
        indent + "second line",
        "  2 assistant Looking both up.",
        indent + 'CALL get_user_details({"user_id": "u1"})',
        indent + 'CALL get_reservation_details({"id": "R1"})',
        f"  3 tool      [get_user_details] {long}",
        "  4 tool      [get_reservation_details] {}",
        "  5 assistant (empty turn)",
    ]
