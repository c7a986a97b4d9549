"""Replaying recorded τ-bench trajectories: loading, re-execution of a prefix, hand-over."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from sscbench.agents.replay import (
    ReplayAgent,
    ReplayUser,
    legacy_normalized,
    observation_matches,
)
from sscbench.agents.scripted import scripted_agent_factory
from sscbench.core.agent import RunContext
from sscbench.core.injection import Injection, SuppressHook
from sscbench.errors import DataError
from sscbench.recordings.formats import load_recording
from sscbench.recordings.recorded import RecordedRun
from sscbench.run.episode import EpisodeResult, run_episode
from sscbench.users.scripted import scripted_user_factory
from sscbench.world.load import load_world
from sscbench.world.world import World

RECORDING = Path("historical_trajectories") / "gpt-4o-airline.json"


def tiny_run(task_id: int = 0) -> dict:
    return {
        "task_id": task_id,
        "reward": 1.0,
        "trial": 0,
        "info": {},
        "traj": [
            {"role": "system", "content": "policy"},
            {"role": "user", "content": "Hi, my user id is mia_li_3668."},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {
                            "name": "get_user_details",
                            "arguments": '{"user_id": "mia_li_3668"}',
                        },
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "name": "get_user_details", "content": "{}"},
            {"role": "assistant", "content": "How can I help?"},
            {"role": "user", "content": "That's all. ###STOP###"},
        ],
    }


# ---- loading -----------------------------------------------------------------------------


def test_load_recording_reads_a_valid_file(tmp_path: Path) -> None:
    path = tmp_path / "runs.json"
    path.write_text(json.dumps([tiny_run(0), tiny_run(3)]))
    runs = load_recording(path)
    assert [r.taubench_task_id() for r in runs] == ["test/0", "test/3"]
    assert len(runs[0].assistant_turns()) == 2
    assert runs[0].system_prompt() == "policy"


@pytest.mark.parametrize(
    ("mutate", "where"),
    [
        (lambda r: r["traj"][2].update(role="robot"), "[1].traj.2.role"),
        (lambda r: r.pop("traj"), "[1].traj"),
        (lambda r: r["traj"][3].pop("tool_call_id"), "[1].traj.3"),
        (lambda r: r["traj"][2]["tool_calls"][0].pop("function"), "[1].traj.2.tool_calls.0"),
    ],
)
def test_load_recording_names_file_and_index_of_a_malformed_entry(
    tmp_path: Path, mutate, where: str
) -> None:
    bad = tiny_run(1)
    mutate(bad)
    path = tmp_path / "runs.json"
    path.write_text(json.dumps([tiny_run(0), bad]))
    with pytest.raises(DataError) as info:
        load_recording(path)
    message = str(info.value)
    assert str(path) in message and where in message and "entry 1" in message


def test_load_recording_rejects_bad_files(tmp_path: Path) -> None:
    path = tmp_path / "runs.json"
    path.write_text('{"not": "a list"}')
    with pytest.raises(DataError, match="expected a JSON list"):
        load_recording(path)
    path.write_text("[1, ")
    with pytest.raises(DataError, match="line 1"):
        load_recording(path)
    with pytest.raises(DataError, match="file not found"):
        load_recording(tmp_path / "missing.json")


def test_legacy_rename() -> None:
    text = '{"address": {"city": "Austin", "province": "TX"}}'
    assert legacy_normalized(text) == {"address": {"city": "Austin", "state": "TX"}}
    assert legacy_normalized("Error: x") == "Error: x"


# ---- re-execution ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def recorded(taubench: Path) -> tuple[list[RecordedRun], World]:
    path = taubench / RECORDING
    if not path.exists():
        pytest.skip(f"{path} not found")
    return load_recording(path), load_world("tau-bench", "airline", taubench)


def replay(
    world: World,
    run: RecordedRun,
    turns: int | None,
    injections: list[Injection] | tuple[Injection, ...] = (),
    *,
    continue_with: str | None = None,
) -> EpisodeResult:
    task = world.task(run.taubench_task_id())
    agent_next = user_next = None
    if continue_with is not None:
        ctx = RunContext(
            world=world,
            task=task,
            system_prompt=world.policy,
            tools=world.tool_schemas(),
            seed=0,
            repetition=0,
        )
        agent_next = scripted_agent_factory(continue_with)(ctx)
        user_next = scripted_user_factory(ctx)
    return asyncio.run(
        run_episode(
            world,
            task,
            ReplayAgent(run, turns, agent_next),
            ReplayUser(run, turns, user_next),
            system_prompt=run.system_prompt() or world.policy,
            injections=injections,
            max_steps=100,
        )
    )


def test_replayed_prefix_reproduces_the_recorded_observations(recorded) -> None:
    runs, world = recorded
    checked = renamed = 0
    for run in runs[:40]:
        turns = len(run.assistant_turns()) // 2
        result = replay(world, run, turns)
        recorded_calls = [c.id for m in run.assistant_turns()[:turns] for c in (m.tool_calls or [])]
        matches = observation_matches(run, result.ledger)
        assert [m.tool_call_id for m in matches] == recorded_calls
        for match in matches:
            # The recording predates τ-bench's province -> state rename in user addresses;
            # everything else must be identical.
            assert match.equal_after_rename, (run.task_id, match)
            if not match.equal:
                assert match.name == "get_user_details"
                assert '"province"' in match.recorded
                renamed += 1
            checked += 1
    assert checked > 100 and renamed > 0


def test_a_prefix_without_user_reads_matches_exactly(recorded) -> None:
    runs, world = recorded
    for run in runs:
        names = [c.function.name for m in run.assistant_turns() for c in m.tool_calls or ()]
        if names and "get_user_details" not in names:
            break
    else:
        pytest.skip("no recording without a user read")
    result = replay(world, run, None)
    matches = observation_matches(run, result.ledger)
    assert matches and all(m.equal for m in matches)


def test_full_replay_reproduces_recorded_rewards(recorded) -> None:
    runs, world = recorded
    for run in runs[:30]:
        if run.info.get("reward_info") is None:
            continue  # a recording cut short has no evaluated reward
        result = replay(world, run, None)
        assert result.end.reward == run.reward, run.task_id


def recorded_turns(run: RecordedRun, turns: int | None = None) -> list[tuple[str | None, list]]:
    """The recording's assistant turns as (text, call ids), for comparing with a ledger."""
    chosen = run.assistant_turns()[:turns]
    return [(m.content, [c.id for c in m.tool_calls or ()]) for m in chosen]


def ledger_turns(result: EpisodeResult) -> list[tuple[str | None, list]]:
    """The ledger's assistant turns as (text, call ids)."""
    events = [e for e in result.ledger if e.type == "assistant"]
    return [(e.content, [c.id for c in e.tool_calls]) for e in events]


def test_replay_stops_after_the_prefix_without_continuation(recorded) -> None:
    runs, world = recorded
    run = runs[0]
    result = replay(world, run, 2)
    # Exactly the two recorded turns, nothing after them: the episode ends with the
    # recording instead of a closing line the model never wrote.
    assert ledger_turns(result) == recorded_turns(run, 2)
    assert result.end.agent_turns == 2 and result.end.termination == "agent_end"
    assert result.ledger[-1].type != "assistant"


def test_a_recording_ending_on_the_user_side_adds_no_agent_text(recorded) -> None:
    _, world = recorded
    raw = tiny_run(0)
    raw["traj"][-1]["content"] = "Thanks, that is all I needed."  # the user speaks last, no stop
    run = RecordedRun.model_validate(raw)
    result = replay(world, run, None)
    assert ledger_turns(result) == recorded_turns(run)
    assert result.ledger[-1].type == "user"
    assert result.ledger[-1].content == "Thanks, that is all I needed."
    assert result.end.termination == "agent_end" and result.end.agent_turns == 2
    assert result.end.status == "completed"


def test_a_recording_ending_on_a_tool_answer_adds_no_agent_text(recorded) -> None:
    _, world = recorded
    raw = tiny_run(0)
    del raw["traj"][4:]  # the recording stops after the tool's answer (a cut-short run)
    run = RecordedRun.model_validate(raw)
    result = replay(world, run, None)
    assert ledger_turns(result) == recorded_turns(run)
    assert result.ledger[-1].type == "tool" and result.end.termination == "agent_end"


def test_replay_hands_over_to_a_scripted_continuation(recorded) -> None:
    runs, world = recorded
    solved = 0
    for run in runs[:12]:
        task = world.task(run.taubench_task_id())
        if task.outputs:
            continue
        turns = len(run.assistant_turns()) // 3
        result = replay(world, run, turns, continue_with="readback")
        labels = next(e for e in result.evaluator if e.type == "calibration").labels
        assert labels["replay"]["replayed"] == turns and labels["profile"] == "readback"
        solved += result.end.reward == 1.0
    assert solved >= 6


def test_replayed_tool_calls_go_through_injections(recorded) -> None:
    runs, world = recorded
    for run in runs:
        writes = [
            c
            for m in run.assistant_turns()
            for c in m.tool_calls or ()
            if c.function.name == "update_reservation_flights"
        ]
        if writes:
            break
    else:
        pytest.skip("no recorded flight change")
    hook = SuppressHook("we", match=lambda n, a, s: n == "update_reservation_flights")
    result = replay(world, run, None, [hook])
    records = [e for e in result.evaluator if e.type == "intervention"]
    assert records and records[0].tool_call_id == writes[0].id
