"""Replay agents and users in study configs: validation, and `sscbench run` end to end
on τ-bench airline with the recorded gpt-4o runs."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sscbench.cli import app
from sscbench.errors import DataError
from sscbench.recordings.formats import load_recording
from sscbench.study.config import load_config, parse_config

RECORDING = Path("historical_trajectories") / "gpt-4o-airline.json"

HEAD = """
[world]
source = "tau-bench"
data = "{data}"
domains = ["airline"]
"""

AGENT = """
[[agents]]
id = "{id}"
kind = "replay"
[agents.replay]
path = "{path}"
{extra}
"""

USER = """
[user]
kind = "replay"
"""


def _config(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "conf" / "study.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(body, encoding="utf-8")
    return path


def _tiny_recording(tmp_path: Path) -> Path:
    path = tmp_path / "conf" / "rec.json"
    path.parent.mkdir(exist_ok=True)
    run = {
        "task_id": 0,
        "trial": 0,
        "reward": 1.0,
        "traj": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}],
    }
    path.write_text(json.dumps([run]), encoding="utf-8")
    return path


def test_relative_recording_resolves_against_the_config_folder_and_is_hashed(tmp_path):
    recording = _tiny_recording(tmp_path)
    body = HEAD.format(data="x") + AGENT.format(id="a", path="rec.json", extra="") + USER
    config, _ = load_config(_config(tmp_path, body))
    replay = config.agents[0].replay
    assert replay.resolved == recording.parent / "rec.json"
    assert replay.sha256 == hashlib.sha256(recording.read_bytes()).hexdigest()
    assert replay.sha256 in config.canonical_json()  # the recording is part of the hash


@pytest.mark.parametrize(
    ("agent_extra", "user", "field", "reason"),
    [
        ('sha256 = "' + "0" * 64 + '"', USER, "agents[0].replay.sha256", "not the one given"),
        ('trials = [0]\nruns = "all"', USER, "agents[0].replay", "not both"),
        ("runs = 0", USER, "agents[0].replay", "count >= 1"),
        ("qualify = 'always'", USER, "agents[0].replay.qualify", "Input should be"),
        ("", "", None, "kind = 'replay'"),
    ],
)
def test_bad_replay_config_names_the_field(tmp_path, agent_extra, user, field, reason):
    _tiny_recording(tmp_path)
    body = HEAD.format(data="x") + AGENT.format(id="a", path="rec.json", extra=agent_extra)
    path = _config(tmp_path, body + user)
    with pytest.raises(DataError) as info:
        load_config(path)
    assert info.value.field == field and reason in info.value.reason


def test_missing_recording_and_mixed_agents_fail_closed(tmp_path):
    body = HEAD.format(data="x") + AGENT.format(id="a", path="nope.json", extra="") + USER
    with pytest.raises(DataError) as info:
        load_config(_config(tmp_path, body))
    assert info.value.field == "agents[0].replay.path" and "nope.json" in info.value.reason
    _tiny_recording(tmp_path)
    mixed = HEAD.format(data="x") + AGENT.format(id="a", path="rec.json", extra="")
    mixed += '[[agents]]\nid = "s"\nprofile = "trusting"\n' + USER
    with pytest.raises(DataError, match="every agent"):
        parse_config(mixed, tmp_path / "conf" / "study.toml")
    with pytest.raises(DataError, match="an agent of kind 'replay'"):
        parse_config(
            '[[agents]]\nid = "s"\nprofile = "trusting"\n[agents.replay]\npath = "rec.json"\n',
            tmp_path / "conf" / "study.toml",
        )


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def test_sscbench_run_replays_gpt4o_airline_under_faults(taubench, tmp_path):
    recording = taubench / RECORDING
    if not recording.exists():
        pytest.skip("gpt-4o airline recordings not found")
    rel = os.path.relpath(recording, tmp_path / "conf")
    body = (
        "[study]\nseed = 3\nconcurrency = 2\n"
        + HEAD.format(data=taubench)
        + '[cases]\noperators = ["ReturnDate", "WriteEffect"]\nper_operator = 3\n'
        + AGENT.format(id="completed", path=rel, extra='trials = [0]\nqualify = "completed"')
        + AGENT.format(id="reward", path=rel, extra="trials = [0]")
        + USER
    )
    out = tmp_path / "study"
    result = CliRunner().invoke(
        app, ["run", str(_config(tmp_path, body)), "--out", str(out), "--no-progress"]
    )
    assert result.exit_code == 0, result.output

    recorded = {(str(r.task_id), r.trial): r for r in load_recording(recording)}
    stored = json.loads((out / "config.json").read_text())
    stored = stored.get("config", stored)
    assert (
        stored["agents"][0]["replay"]["sha256"]
        == hashlib.sha256(recording.read_bytes()).hexdigest()
    )

    index = _jsonl(out / "index.jsonl")
    cases = {c["case_id"]: c for c in _jsonl(out / "cases.jsonl")}
    # trials = [0]: one repetition per case and agent; one shared clean run per task and agent
    tasks = {(c["domain"], c["task_id"]) for c in cases.values()}
    assert len(index) == 2 * len(cases) + 2 * len(tasks)
    diverged = 0
    for entry in index:
        case = cases[entry["case_id"]]
        run = recorded[(case["task_id"].split("/")[1], 0)]
        if entry["kind"] == "clean":
            ledger = _jsonl(out / "runs" / f"{entry['run_id']}.ledger.jsonl")[1:]
            texts = [e["content"] for e in ledger if e["type"] == "assistant"]
            assert texts == [m.content for m in run.assistant_turns()]  # the recording's text
            assert entry["reward"] == run.reward  # the clean replay earns what was recorded
            continue
        if entry["config_id"] == "reward" and run.reward != 1.0:
            assert entry["status"] == "not-qualified"
            continue
        assert entry["status"] == "completed"  # "completed" qualifies every clean replay
        ledger = _jsonl(out / "runs" / f"{entry['run_id']}.ledger.jsonl")[1:]
        assert {e["type"] for e in ledger} <= {"system", "user", "assistant", "tool"}
        evaluator = _jsonl(out / "runs" / f"{entry['run_id']}.evaluator.jsonl")
        assert not any(e["type"] == "calibration" for e in evaluator)  # a recording has none
        (replay,) = [e for e in evaluator if e["type"] == "replay"]
        assert replay["text_source"] == "recording" and replay["trial"] == 0
        assert replay["replayed"] == len(run.assistant_turns())  # it kept going
        effective = [e for e in evaluator if e["type"] == "intervention" and e["effective"]]
        changed = [
            e for e in effective if e["delivered_observation"] != e.get("original_observation")
        ]
        steps = {d["step"] for d in replay["divergences"]}
        for record in changed:
            if record["step"] in {e["step"] for e in ledger if e["type"] == "tool"}:
                assert record["step"] in steps  # a changed observation is a divergence
        if replay["divergences"]:
            diverged += 1
            assert replay["turns_after_divergence"] >= 1
    assert diverged >= 1
    rows = _jsonl(out / "measurements.jsonl")
    assert any(r.get("triggered") for r in rows if r["kind"] == "faulted")


def test_replay_record_marks_text_after_a_changed_observation():
    """The recording's text goes on after an observation stops fitting; the record says where."""
    import asyncio

    from sscbench.agents.replay import ReplayAgent
    from sscbench.core.ledger import AssistantEvent, ToolEvent, UserEvent
    from sscbench.recordings.recorded import RecordedRun

    def call(i):
        fn = {"name": "get_x", "arguments": "{}"}
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": f"c{i}", "function": fn}],
        }

    def obs(i, text):
        return {"role": "tool", "tool_call_id": f"c{i}", "name": "get_x", "content": text}

    traj = [{"role": "user", "content": "hi"}, call(1), obs(1, '{"a": 1}'), call(2)]
    traj += [obs(2, '{"province": "TX"}'), {"role": "assistant", "content": "done"}]
    run = RecordedRun.model_validate({"task_id": 4, "trial": 2, "reward": 1.0, "traj": traj})
    agent = ReplayAgent(run, source="rec.json", sha256="ab" * 32)
    ledger = [UserEvent(step=0, content="hi")]

    def turn(delivered):
        out = asyncio.run(agent.act(ledger))
        ledger.append(
            AssistantEvent(step=len(ledger), content=out.content, tool_calls=out.tool_calls)
        )
        for c in out.tool_calls:
            ledger.append(
                ToolEvent(step=len(ledger), tool_call_id=c.id, name=c.name, content=delivered)
            )
        return out

    assert turn('{"a": 2}').tool_calls[0].id == "c1"  # a fault changed this observation
    assert turn('{"state": "TX"}').tool_calls[0].id == "c2"  # renamed key only: fits
    assert turn(None).content == "done"  # the recording's text, kept going
    record = agent.replay_record()
    assert record.text_source == "recording" and record.trial == 2 and record.replayed == 3
    assert [d["step"] for d in record.divergences] == [2]
    assert record.divergences[0]["recorded"] == '{"a": 1}'
    assert record.turns_after_divergence == 2 and record.unmatched_recorded_observations == 0
    assert agent.calibration() is None  # a recording has no calibration labels


def test_a_changed_recording_changes_the_config_hash(tmp_path):
    recording = _tiny_recording(tmp_path)
    body = HEAD.format(data="x") + AGENT.format(id="a", path="rec.json", extra="") + USER
    path = _config(tmp_path, body)
    before = load_config(path)[0].config_hash()
    recording.write_text(recording.read_text().replace('"ok"', '"okay"'))
    assert load_config(path)[0].config_hash() != before  # a resumed study refuses


def test_a_selection_that_replays_no_case_fails_closed(tmp_path):
    from sscbench.run.executor import execute_study

    _tiny_recording(tmp_path)  # task 0 of split "test", trial 0
    body = "[world]\ndomains = ['airline']\n[cases]\noperators = ['ReturnDate']\nper_operator = 1\n"
    body += AGENT.format(id="a", path="rec.json", extra="trials = [5]") + USER
    path = _config(tmp_path, body)
    config, text = load_config(path)
    with pytest.raises(DataError) as info:
        execute_study(config, text, tmp_path / "out", progress=False)
    assert info.value.field == "agents[0].replay" and "no recorded run" in info.value.reason
