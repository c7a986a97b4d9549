"""τ²-bench results as recordings: conversion, content matching to τ-bench tasks, pairs."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from realtext_corpus import TAU2 as SHARED
from realtext_corpus import TAU2_SAMPLE
from sscbench.agents.pairs import read_pairs
from sscbench.cli import app
from sscbench.errors import DataError
from sscbench.recordings.formats import load_recording, recording_id
from sscbench.recordings.task_match import match_task
from sscbench.world.task import Action, Task


def _results(simulations: list[dict], domain: str = "airline") -> dict:
    return {
        "timestamp": "t",
        "info": {"environment_info": {"domain_name": domain, "policy": "p"}},
        "tasks": [],
        "simulations": simulations,
    }


def _simulation(task_id: str = "7", user: str = "mia_li_3668") -> dict:
    return {
        "id": f"sim-{task_id}",
        "task_id": task_id,
        "trial": 0,
        "reward_info": {"reward": 1.0},
        "messages": [
            {"role": "assistant", "content": "Hi! How can I help you today?"},
            {"role": "user", "content": f"Hi, my user id is {user}. Please cancel 4WQ150."},
            {
                "role": "assistant",
                "content": "Let me look.",
                "tool_calls": [
                    {"id": "c1", "name": "get_user_details", "arguments": {"user_id": user}},
                    {
                        "id": "c2",
                        "name": "get_reservation_details",
                        "arguments": {"reservation_id": "4WQ150"},
                    },
                ],
            },
            {"role": "tool", "id": "c1", "content": "{}"},
            {"role": "tool", "id": "c2", "content": "{}"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c3",
                        "name": "cancel_reservation",
                        "arguments": {"reservation_id": "4WQ150"},
                    }
                ],
            },
            {"role": "tool", "id": "c3", "content": "{}"},
            {"role": "assistant", "content": "Done: 4WQ150 is cancelled."},
            {"role": "user", "content": "Thanks ###STOP###"},
        ],
    }


def test_a_tau2_results_file_reads_as_recorded_runs(tmp_path):
    """The greeting before the user is dropped; several calls per message keep their order;
    arguments become JSON text; tool results keep the call's id; τ²'s task id is kept."""
    path = tmp_path / "results.json"
    path.write_text(json.dumps(_results([_simulation()])), "utf-8")
    (run,) = load_recording(path)
    assert [m.role for m in run.traj][:2] == ["user", "assistant"]
    calls = run.traj[1].tool_calls
    assert [c.function.name for c in calls] == ["get_user_details", "get_reservation_details"]
    assert json.loads(calls[1].function.arguments) == {"reservation_id": "4WQ150"}
    assert [m.tool_call_id for m in run.traj if m.role == "tool"] == ["c1", "c2", "c3"]
    assert run.info["tau2_task_id"] == "7" and recording_id(run) == "sim-7"
    assert run.reward == 1.0


def test_a_malformed_simulation_names_its_field(tmp_path):
    """A simulation without messages, or a call without a name, is refused by place."""
    bad = _simulation()
    bad["messages"][2]["tool_calls"][0].pop("name")
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_results([bad])), "utf-8")
    with pytest.raises(DataError, match=r"simulations\[0\]\.messages\[2\]\.tool_calls\[0\]"):
        load_recording(path)


def test_a_message_error_names_the_message_as_written(tmp_path):
    """The greeting is dropped before replay, yet the error counts the messages of the
    file: the tool message without a call id is messages[4] (the fourth one kept)."""
    bad = _simulation()
    bad["messages"][4] = {"role": "tool", "content": "{}"}  # no call id
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_results([_simulation("1"), bad])), "utf-8")
    with pytest.raises(DataError, match=r"field simulations\[1\]\.messages\[4\]: a tool"):
        load_recording(path)


def test_simulation_ids_are_unique_identical_copies_read_once(tmp_path):
    path = tmp_path / "dup.json"
    first, other = _simulation("7"), _simulation("8")
    path.write_text(json.dumps(_results([first, other, first])), "utf-8")
    runs = load_recording(path)
    assert [r.info["simulation_index"] for r in runs] == [0, 1]
    path.write_text(json.dumps(_results([first, other, {**other, "id": "sim-7"}])), "utf-8")
    with pytest.raises(DataError, match=r"simulations\[2\]\.id: 'sim-7' is also the id of sim"):
        load_recording(path)


def _task(task_id: str, user: str, instruction: str, actions: list[Action]) -> Task:
    return Task(
        task_id=task_id,
        domain="airline",
        user_id=user,
        instruction=instruction,
        actions=tuple(actions),
    )


def test_a_conversation_matches_its_task_by_content_not_its_label(tmp_path):
    """The user looked up and the writes made decide, whatever the file's label says."""
    path = tmp_path / "results.json"
    path.write_text(json.dumps(_results([_simulation(task_id="99")])), "utf-8")
    (run,) = load_recording(path)
    cancel = Action(name="cancel_reservation", kwargs={"reservation_id": "4WQ150"})
    tasks = [
        _task("test/1", "mia_li_3668", "You want to cancel reservation 4WQ150.", [cancel]),
        _task("test/2", "mia_li_3668", "You want to book a flight to Boston.", []),
        _task("test/3", "other_user_1", "You want to cancel reservation 4WQ150.", [cancel]),
    ]
    match = match_task(run, tasks, recording_id(run))
    assert match.task_id == "test/1" and match.user and match.actions == 1.0
    assert match.labelled_task == "99"


def test_two_tasks_that_fit_alike_leave_the_conversation_unmatched(tmp_path):
    """Identical tasks of one user cannot be told apart: unmatched, with the reason."""
    path = tmp_path / "results.json"
    path.write_text(json.dumps(_results([_simulation()])), "utf-8")
    (run,) = load_recording(path)
    cancel = Action(name="cancel_reservation", kwargs={"reservation_id": "4WQ150"})
    same = "You want to cancel reservation 4WQ150."
    tasks = [
        _task("test/1", "mia_li_3668", same, [cancel]),
        _task("test/2", "mia_li_3668", same, [cancel]),
    ]
    match = match_task(run, tasks, recording_id(run))
    assert match.task_id is None and "fit equally well" in match.reason
    nobody = match_task(run, [_task("test/3", "someone_else_1", same, [cancel])], "x")
    assert nobody.task_id is None and "user" in nobody.reason


def test_the_shipped_sample_matches_tau2s_renumbering(taubench):
    """On the shipped sample of real τ² text: τ² airline "20" is τ-bench test/0, "0" is
    test/49, "13" stays; the conversation that looks up no user is unmatched, with why."""
    from sscbench.agents.recordings import matched_runs

    _, matches = matched_runs(TAU2_SAMPLE, None, taubench)
    found = {m.labelled_task: m for m in matches}
    assert len(matches) == 6
    assert found["20"].task_id == "test/0" and found["0"].task_id == "test/49"
    assert found["13"].task_id == "test/13"
    assert found["46"].task_id is None and "user" in found["46"].reason


@pytest.mark.shared_data(SHARED)
def test_the_shared_airline_files_match_tau2s_renumbering(taubench):
    """On the whole files: the renumbering holds, the two airline families agree wherever
    both are matched; few are unmatched."""
    from sscbench.agents.recordings import matched_runs

    found: dict[str, dict[str, str]] = {}
    for name in ("claude-opus-4-6-airline.json", "gpt-oss-120b-airline.json"):
        _, matches = matched_runs(SHARED / name, None, taubench)
        assert sum(m.task_id is None for m in matches) <= 8
        found[name] = {m.labelled_task: m.task_id for m in matches if m.task_id}
    claude, oss = found.values()
    assert claude["20"] == "test/0" and claude["0"] == "test/49" and claude["13"] == "test/13"
    assert all(oss[k] == v for k, v in claude.items() if k in oss)


def test_pairs_files_are_checked_line_by_line(tmp_path):
    """Exactly one of recording/trial; run ids safe and unique; errors name line and field."""
    path = tmp_path / "pairs.jsonl"
    path.write_text(
        '{"case_id": "c", "recording": "r", "run_id": "a"}\n{"case_id": "c", "trial": 1, "run_id": "a"}\n'
    )
    with pytest.raises(DataError, match="line 2: run_id"):
        read_pairs(path)
    path.write_text('{"case_id": "c"}\n')
    with pytest.raises(DataError, match="line 1"):
        read_pairs(path)
    path.write_text('{"case_id": "c", "trial": 0, "run_id": "x--y"}\n')
    with pytest.raises(DataError, match="--"):
        read_pairs(path)
    path.write_text("\n")
    with pytest.raises(DataError, match="names no pair"):
        read_pairs(path)


def test_a_tau2_study_replays_under_admitted_faults_and_reports_the_matches(taubench, tmp_path):
    """One config replays a τ² results file: several calls per message run in order, a
    τ² tool τ-bench lacks is a recorded divergence, the report lists every match."""
    config = tmp_path / "study.toml"
    base = (
        f'[world]\nsource = "tau-bench"\ndata = "{taubench}"\ndomains = ["airline"]\n'
        '[cases]\noperators = ["ReturnDate", "PaySource", "WriteEffect"]\nper_operator = 20\n'
        '[[agents]]\nid = "claude"\nkind = "replay"\n[agents.replay]\n'
        f'path = "{TAU2_SAMPLE}"\nqualify = "completed"\n'
        '[user]\nkind = "replay"\n'
    )
    config.write_text(base, "utf-8")
    refused = CliRunner().invoke(app, ["run", str(config), "--out", str(tmp_path / "x")])
    assert refused.exit_code == 2 and "first_tool_call_only" in refused.output
    config.write_text("[study]\nfirst_tool_call_only = false\n" + base, "utf-8")
    out = tmp_path / "study"
    result = CliRunner().invoke(app, ["run", str(config), "--out", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    ledgers = [
        json.loads(x)
        for p in (out / "runs").glob("*.ledger.jsonl")
        for x in p.read_text().split("\n")[1:]
        if x
    ]
    assert any(len(e.get("tool_calls") or ()) > 1 for e in ledgers if e["type"] == "assistant")
    replay = [
        json.loads(x)
        for p in (out / "runs").glob("*.evaluator.jsonl")
        for x in p.read_text().split("\n")
        if '"type":"replay"' in x
    ]
    assert replay and all(r["match"]["task_id"] == r["recorded_task_id"] for r in replay)
    html = (out / "report" / "report.html").read_text("utf-8")
    assert "Recordings" in html and "unmatched" in html and "Several tool calls" in html
