"""Studies: config validation, resume after SIGKILL, determinism, refusal of changed configs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sscbench.errors import DataError
from sscbench.run.executor import execute_study
from sscbench.study.config import load_config, parse_config
from sscbench.study.folder import StudyDir

SMALL = """
[study]
name = "small"
seed = 7
repetitions = 2
concurrency = 3

[world]
source = "generated"
domains = ["airline"]

[cases]
operators = ["SuppressWrite"]
per_operator = {per_operator}

[[agents]]
id = "trusting"
profile = "trusting"

[[agents]]
id = "readback"
profile = "readback"
"""


def small_config(tmp_path: Path, per_operator: int = 4) -> Path:
    path = tmp_path / "study.toml"
    path.write_text(SMALL.format(per_operator=per_operator))
    return path


@pytest.mark.parametrize(
    ("toml", "field", "reason"),
    [
        (
            "[study]\nconcurrency = 0\n[[agents]]\nid='a'\nprofile='trusting'\n",
            "study.concurrency",
            "greater than or equal to 1",
        ),
        ("[[agents]]\nid='a'\n", "agents[0]", "needs 'profile'"),
        (
            "[[agents]]\nid='a'\nprofile='x'\ncolour='red'\n",
            "agents[0].colour",
            "not a setting of `agents[0]`",
        ),
        ("agents = 3\n", "agents", "list"),
    ],
)
def test_bad_config_names_file_field_and_reason(toml, field, reason):
    with pytest.raises(DataError) as info:
        parse_config(toml, "cfg.toml")
    message = str(info.value)
    assert message.startswith("cfg.toml, field " + field), message
    assert reason in message


def test_not_toml_names_the_file():
    with pytest.raises(DataError, match=r"^x.toml: not valid TOML"):
        parse_config("[study\n", "x.toml")


def test_default_config_is_valid():
    config, _ = load_config(None)
    assert config.world.source == "generated" and len(config.agents) >= 2


def _index_lines(out: Path) -> set[str]:
    return set((out / "index.jsonl").read_text().splitlines())


def _run_cli(args: list[str], **kwargs) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "sscbench", "run", *args, "--no-progress"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,
    )


def test_study_runs_and_index_has_required_fields(tmp_path):
    config, text = load_config(small_config(tmp_path))
    summary = execute_study(config, text, tmp_path / "out", progress=False)
    store = StudyDir(tmp_path / "out")
    entries = list(store.read_index())
    assert summary.finished_runs == summary.planned_runs == len(entries)
    assert {e.kind for e in entries} == {"clean", "faulted"}
    for entry in entries:
        if entry.status == "completed":
            assert store.ledger_path(entry.run_id).exists() and entry.ledger_sha256
    faulted = [e for e in entries if e.kind == "faulted" and e.status == "completed"]
    assert faulted and all(e.triggered for e in faulted)


def test_same_seed_gives_byte_identical_ledgers(tmp_path):
    path = small_config(tmp_path, per_operator=2)
    config, text = load_config(path)
    execute_study(config, text, tmp_path / "a", progress=False)
    execute_study(config, text, tmp_path / "b", progress=False)
    assert _index_lines(tmp_path / "a") == _index_lines(tmp_path / "b")
    for ledger in (tmp_path / "a" / "runs").glob("*.ledger.jsonl"):
        assert ledger.read_bytes() == (tmp_path / "b" / "runs" / ledger.name).read_bytes()


def test_changed_config_refuses_to_resume(tmp_path):
    path = small_config(tmp_path, per_operator=1)
    config, text = load_config(path)
    execute_study(config, text, tmp_path / "out", progress=False)
    changed = parse_config(text.replace("seed = 7", "seed = 8"), path)
    with pytest.raises(DataError, match=r"different configuration.*start anew"):
        execute_study(changed, text, tmp_path / "out", progress=False)
    summary = execute_study(changed, text, tmp_path / "out", progress=False, restart=True)
    assert summary.finished_runs == summary.planned_runs


def test_resume_is_a_no_op_on_a_finished_study(tmp_path):
    config, text = load_config(small_config(tmp_path, per_operator=1))
    execute_study(config, text, tmp_path / "out", progress=False)
    before = (tmp_path / "out" / "index.jsonl").read_bytes()
    summary = execute_study(config, text, tmp_path / "out", progress=False)
    assert summary.resumed and summary.executed_now == 0
    assert (tmp_path / "out" / "index.jsonl").read_bytes() == before


def test_sigkill_then_rerun_equals_uninterrupted(tmp_path):
    path = small_config(tmp_path, per_operator=12)
    reference = _run_cli([str(path), "--out", str(tmp_path / "ref")])
    assert reference.wait(timeout=300) == 0, reference.stderr.read()
    expected = _index_lines(tmp_path / "ref")

    killed_out = tmp_path / "killed"
    index = killed_out / "index.jsonl"
    proc = _run_cli([str(path), "--out", str(killed_out)], start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if index.exists() and len(index.read_bytes().splitlines()) >= len(expected) // 3:
            break
        if proc.poll() is not None:
            break
        time.sleep(0.005)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    partial = len(index.read_bytes().splitlines()) if index.exists() else 0
    assert partial < len(expected), "the study finished before it could be killed"

    rerun = _run_cli([str(path), "--out", str(killed_out)])
    assert rerun.wait(timeout=300) == 0, rerun.stderr.read()
    lines = (killed_out / "index.jsonl").read_text().splitlines()
    assert len(lines) == len(set(lines)) == len(expected)  # no duplicate, no loss
    assert set(lines) == expected
