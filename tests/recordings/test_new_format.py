"""A recording format added the documented way (docs/adding-a-recording-format.md): its
own module (``chat_log_format.py`` beside this file) plus one registry line. The
study config accepts its name and detects its files, and a recording in it is read,
named, selected for a case's task and replayed by the replay agent, with no other edit."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from chat_log_format import ChatLogFormat
from sscbench.agents.recordings import RecordingAgentFactory, Selection, matched_runs
from sscbench.agents.replay import ReplayAgent
from sscbench.recordings.formats import (
    FORMATS,
    detect_file,
    format_names,
    load_recording,
    own_recording_id,
    recording_id,
    registered,
)
from sscbench.study.replay_config import ReplaySettings

LOG = {
    "chat_log": 1,
    "runs": [
        {
            "id": "log-1",
            "task": "test/4",
            "turns": [
                {"from": "user", "text": "Hi, I want to change my flight."},
                {
                    "from": "agent",
                    "text": None,
                    "calls": [{"id": "c1", "tool": "get_user_details", "args": {"user_id": "u"}}],
                },
                {"from": "tool", "call": "c1", "text": "{}"},
                {"from": "agent", "text": "Done."},
            ],
        }
    ],
}


@pytest.fixture
def log_file(tmp_path: Path) -> Path:
    path = tmp_path / "log.json"
    path.write_text(json.dumps(LOG), encoding="utf-8")
    return path


def test_a_format_is_unknown_until_registered(log_file: Path):
    assert "chat-log" not in format_names()
    with pytest.raises(ValidationError, match="unknown recording format 'chat-log'"):
        ReplaySettings(path=str(log_file), format="chat-log")


def test_one_registry_line_reads_a_recording_through_the_new_format(log_file: Path):
    with registered(ChatLogFormat) as reader:
        assert list(FORMATS)[-1] == "chat-log" and detect_file(log_file) is reader
        settings = ReplaySettings(path=str(log_file))
        settings.detect_format(log_file, "agents[0].replay", first_call_only=True)
        assert settings.format == "chat-log"  # detected, checked, recorded

        (run,) = load_recording(log_file)
        assert run.taubench_task_id() == "test/4" and recording_id(run) == "log-1"
        assert own_recording_id(run) == "log-1"
        runs, matches = matched_runs(log_file, None, None)
        assert runs == (run,) and matches == ()  # already on τ-bench's task ids

        factory = RecordingAgentFactory(log_file, None, Selection())
        assert factory.runs_for("test/4") == [run] and factory.runs_for("test/5") == []
        agent = ReplayAgent(run, source=str(log_file))
        turn = asyncio.run(agent.act([]))
        assert [c.name for c in turn.tool_calls] == ["get_user_details"]
        assert agent.replay_record().recording == "log-1"
    assert "chat-log" not in FORMATS  # gone with the block
