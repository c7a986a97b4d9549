"""A study's provenance (config.json, sessions.jsonl) and its marker's format, checked
wherever a study is opened."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sscbench.cli import app
from sscbench.errors import DataError
from sscbench.run.executor import execute_study
from sscbench.study.config import parse_config
from sscbench.study.folder import StudyDir
from sscbench.study.provenance import KEY_DEPENDENCIES, git_commit

SMALL = """
[study]
seed = 3
[world]
domains = ["airline"]
[cases]
operators = ["PaySource"]
per_operator = 1
[[agents]]
id = "trusting"
profile = "trusting"
"""


@pytest.fixture
def study(tmp_path: Path) -> Path:
    out = tmp_path / "study"
    execute_study(parse_config(SMALL, "small.toml"), SMALL, out, progress=False)
    return out


def test_a_study_records_what_made_it(study):
    meta = json.loads((study / "config.json").read_text("utf-8"))
    made = meta["provenance"]
    assert made["session"] == "created" and made["sscbench"]
    assert made["python"].count(".") == 2 and made["implementation"]
    assert set(KEY_DEPENDENCIES) <= set(made["dependencies"])
    assert made["dependencies"]["pydantic"]
    lines = (study / "sessions.jsonl").read_text("utf-8").splitlines()
    assert [json.loads(line)["session"] for line in lines] == ["created"]


def test_resuming_records_a_session_and_keeps_the_hash_and_index(study, monkeypatch):
    from sscbench import version

    index = (study / "index.jsonl").read_bytes()
    config_json = (study / "config.json").read_bytes()
    monkeypatch.setattr(version, "__version__", "9.9.9")  # a newer sscbench resumes
    summary = execute_study(parse_config(SMALL, "small.toml"), SMALL, study, progress=False)
    assert summary.resumed and summary.executed_now == 0
    assert (study / "index.jsonl").read_bytes() == index
    assert (study / "config.json").read_bytes() == config_json  # the creation's record
    sessions = [json.loads(x) for x in (study / "sessions.jsonl").read_text().splitlines()]
    assert [(s["session"], s["sscbench"]) for s in sessions][1] == ("resumed", "9.9.9")


def test_provenance_is_not_hashed():
    config = parse_config(SMALL, "small.toml")
    assert "provenance" not in config.canonical_json()
    assert "sscbench" not in json.loads(config.canonical_json())


def test_the_commit_is_read_from_the_git_folder(tmp_path):
    root = tmp_path / "repo"
    (root / ".git" / "refs" / "heads").mkdir(parents=True)
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    assert git_commit(root) is None
    (root / ".git" / "packed-refs").write_text("# pack\n" + "a" * 40 + " refs/heads/main\n")
    assert git_commit(root) == "a" * 40
    (root / ".git" / "refs" / "heads" / "main").write_text("b" * 40 + "\n")
    assert git_commit(root) == "b" * 40
    worktree = tmp_path / "wt"
    (root / ".git" / "worktrees" / "wt").mkdir(parents=True)
    (root / ".git" / "worktrees" / "wt" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / ".git" / "worktrees" / "wt" / "commondir").write_text("../..\n")
    worktree.mkdir()
    (worktree / ".git").write_text(f"gitdir: {root / '.git' / 'worktrees' / 'wt'}\n")
    assert git_commit(worktree) == "b" * 40
    (root / ".git" / "worktrees" / "wt" / "HEAD").write_text("c" * 40 + "\n")  # detached
    assert git_commit(worktree) == "c" * 40
    assert git_commit(tmp_path / "nothing") is None


BAD_MARKERS = [
    ("99", r"absent: the file holds a number \(99\)"),
    ('{"garbage": 1}', "missing: the study format is not recorded"),
    ("not json", "unreadable: the file is not JSON"),
    ('{"sscbench_study": 99}', r"99 is not a study format this sscbench reads \(1, 2\)"),
    ('{"sscbench_study": "1"}', r'"1" is not a study format'),
    ('{"sscbench_study": true}', "true is not a study format"),
]


@pytest.mark.parametrize(("text", "reason"), BAD_MARKERS)
def test_a_marker_of_an_unknown_format_is_refused_where_a_study_is_opened(study, text, reason):
    (study / "sscbench-study.json").write_text(text, "utf-8")
    with pytest.raises(DataError, match=reason) as caught:
        StudyDir(study)
    assert caught.value.path == study / "sscbench-study.json"
    assert caught.value.field == "sscbench_study"
    with pytest.raises(DataError, match=reason):
        execute_study(parse_config(SMALL, "small.toml"), SMALL, study, progress=False)


@pytest.mark.parametrize("command", ["measure", "report", "release", "show", "calibrate"])
def test_every_reading_command_refuses_an_unknown_format(study, command):
    (study / "sscbench-study.json").write_text('{"sscbench_study": 99}', "utf-8")
    args = [command, str(study)] + (["some-run"] if command == "show" else [])
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert lines[0].startswith(f"error: {study / 'sscbench-study.json'}, field sscbench_study: 99")
    assert "Traceback" not in result.output
