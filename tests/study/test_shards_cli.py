"""A study in shards through the real command: the same index and measurements as the
per-file layout, a few files, a frame cut by a kill resumed, a changed shard refused by
``measure`` and ``show``, SIGKILL and resume, and the per-file layout still read."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sscbench.cli import app
from sscbench.study.folder import StudyDir
from sscbench.study.shard_reader import ShardReader
from sscbench.study.shards import shard_files

QUIET = ("--no-progress", "--no-report")
SRC = str(Path(__file__).resolve().parents[2] / "src")

STUDY = """
[study]
name = "small"
seed = 7
repetitions = {repetitions}
concurrency = 3
store = "{store}"

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


def _config(folder: Path, store: str, per_operator: int = 3, repetitions: int = 2) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{store}.toml"
    text = STUDY.format(store=store, per_operator=per_operator, repetitions=repetitions)
    path.write_text(text)
    return path


def _invoke(*args: str):
    return CliRunner().invoke(app, list(args))


def _run_and_measure(config: Path, out: Path) -> None:
    ran = _invoke("run", str(config), "--out", str(out), "--no-progress", "--no-report")
    assert ran.exit_code == 0, ran.output
    measured = _invoke("measure", str(out))
    assert measured.exit_code == 0, measured.output


@pytest.fixture(scope="module")
def pair(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("pair")
    for store in ("files", "shards"):
        _run_and_measure(_config(root, store), root / store)
    return root / "files", root / "shards"


def test_shards_give_the_same_index_and_measurements_in_few_files(pair):
    files, shards = pair
    for name in ("index.jsonl", "measurements.jsonl", "plan.jsonl", "cases.jsonl"):
        assert (files / name).read_bytes() == (shards / name).read_bytes(), name
    marker = json.loads((shards / "sscbench-study.json").read_text())
    assert marker["sscbench_study"] == 2 and marker["store"] == "shards"
    assert "store" not in json.loads((files / "sscbench-study.json").read_text())
    with_text = sum(
        1 for line in (files / "index.jsonl").read_text().splitlines() if "sha256" in line
    )
    assert len(list((files / "runs").glob("*.jsonl"))) == 2 * with_text > 4
    assert [p.name for p in (shards / "runs").iterdir()] == ["shard-000000.shard"]
    assert StudyDir(shards).sharded and not StudyDir(files).sharded


def test_show_and_report_read_both_layouts(pair, tmp_path):
    files, shards = pair
    run_id = json.loads((files / "index.jsonl").read_text().splitlines()[0])["run_id"]
    shown = [_invoke("show", str(study), run_id) for study in (files, shards)]
    assert all(r.exit_code == 0 for r in shown), [r.output for r in shown]
    assert shown[0].output == shown[1].output and "system" in shown[0].output
    for study in (files, shards):
        report = _invoke("report", str(study))
        assert report.exit_code == 0, report.output


def test_a_cut_frame_then_resume_gives_the_same_results(pair, tmp_path):
    files, _ = pair
    config = _config(tmp_path, "shards")
    out = tmp_path / "out"
    _run_and_measure(config, out)
    # as a kill leaves it: the last run's frame half written, its index line not appended
    lines = (out / "index.jsonl").read_text().splitlines()
    last = json.loads(lines[-1])["run_id"]
    frame = ShardReader(out / "runs").locate(last)
    assert frame is not None
    with frame.shard.open("r+b") as handle:
        handle.truncate(frame.offset + (frame.end - frame.offset) // 2)
    (out / "index.jsonl").write_text("\n".join(lines[:-1]) + "\n")
    (out / "measurements.jsonl").unlink()
    resumed = _invoke("run", str(config), "--out", str(out), "--no-progress", "--no-report")
    assert resumed.exit_code == 0, resumed.output
    said = f"note: run store: cut {(frame.end - frame.offset) // 2} bytes"
    assert said in resumed.output and frame.shard.name in resumed.output, resumed.output
    _run_and_measure(config, out)
    assert (out / "measurements.jsonl").read_bytes() == (files / "measurements.jsonl").read_bytes()
    assert set((out / "index.jsonl").read_text().splitlines()) == set(lines)


def test_a_changed_shard_is_refused_by_measure_and_show(pair, tmp_path):
    _, shards = pair
    out = tmp_path / "tampered"
    _copy(shards, out)
    entry = next(
        json.loads(line)
        for line in (out / "index.jsonl").read_text().splitlines()
        if '"ledger_sha256":"' in line
    )
    frame = ShardReader(out / "runs").locate(entry["run_id"])
    assert frame is not None
    data = bytearray(frame.shard.read_bytes())
    data[frame.end - 3] ^= 0x55
    frame.shard.write_bytes(bytes(data))
    for result in (_invoke("measure", str(out)), _invoke("show", str(out), entry["run_id"])):
        assert result.exit_code != 0, result.output
        assert "shard-000000.shard" in result.output and entry["run_id"] in result.output


def _copy(source: Path, target: Path) -> None:
    import shutil

    shutil.copytree(source, target)


def test_sigkill_then_resume_equals_uninterrupted_in_shards(tmp_path):
    config = _config(tmp_path, "shards", per_operator=10, repetitions=2)
    reference = tmp_path / "ref"
    _run_and_measure(config, reference)
    expected = (reference / "index.jsonl").read_text().splitlines()
    out = tmp_path / "killed"
    index = out / "index.jsonl"
    env = {**os.environ, "PYTHONPATH": SRC}
    proc = subprocess.Popen(
        [sys.executable, "-m", "sscbench", "run", str(config), "--out", str(out), *QUIET],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if index.exists() and len(index.read_bytes().splitlines()) >= len(expected) // 3:
            break
        time.sleep(0.002)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    partial = len(index.read_bytes().splitlines()) if index.exists() else 0
    assert partial < len(expected), "the study finished before it could be killed"
    _run_and_measure(config, out)
    lines = index.read_text().splitlines()
    assert len(lines) == len(set(lines)) == len(expected) and set(lines) == set(expected)
    rows = (out / "measurements.jsonl").read_text().splitlines()
    # the same rows (in the index's order, which the kill changed, as in the files layout)
    assert sorted(rows) == sorted((reference / "measurements.jsonl").read_text().splitlines())
    assert len(shard_files(out / "runs")) == 1


def test_restart_removes_the_shards(pair, tmp_path):
    _, shards = pair
    out = tmp_path / "again"
    _copy(shards, out)
    StudyDir(out).remove_study()
    assert not (out / "runs").exists() and not (out / "sscbench-study.json").exists()


def test_store_convert_moves_a_file_study_into_shards(pair, tmp_path):
    files, _ = pair
    out = tmp_path / "converted"
    _copy(files, out)
    done = _invoke("store", "convert", str(out))
    assert done.exit_code == 0, done.output
    assert "into 1 shards" in done.output and "removed" in done.output
    assert sorted(p.name for p in (out / "runs").iterdir()) == ["shard-000000.shard", "shards.json"]
    assert StudyDir(out).sharded
    (out / "measurements.jsonl").unlink()
    assert _invoke("measure", str(out)).exit_code == 0
    assert (out / "measurements.jsonl").read_bytes() == (files / "measurements.jsonl").read_bytes()
    again = _invoke("store", "convert", str(out))
    assert again.exit_code == 0 and "in shards already" in again.output


def test_store_convert_refuses_a_study_whose_files_fail_the_check(pair, tmp_path):
    files, _ = pair
    out = tmp_path / "bad"
    _copy(files, out)
    ledger = sorted((out / "runs").glob("*.ledger.jsonl"))[0]
    ledger.write_text(ledger.read_text() + "\n")
    before = sorted(p.name for p in (out / "runs").iterdir())
    done = _invoke("store", "convert", str(out))
    assert done.exit_code == 2 and ledger.name in done.output
    assert sorted(p.name for p in (out / "runs").iterdir()) == before
    assert not StudyDir(out).sharded
