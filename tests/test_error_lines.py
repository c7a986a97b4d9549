"""Bad input and a full disk give one ``error:`` line naming the file (and field), never a
traceback (issue 29, item 10)."""

from __future__ import annotations

import errno
import os
import pathlib
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sscbench.cli import app
from sscbench.study.folder import StudyDir

NOT_UTF8 = b'name = "caf\xe9"\n'
TAU = """
[world]
source = "tau-bench"
domains = ["airline"]
data = "{data}"
[cases]
operators = ["ReturnDate"]
per_operator = 1
[[agents]]
id = "t"
profile = "trusting"
"""


def _invoke(*args: str):
    result = CliRunner().invoke(app, list(args))
    assert not isinstance(result.exception, Exception) or isinstance(
        result.exception, SystemExit
    ), result.exception
    return result


def _error(*args: str) -> str:
    """The one-line message of a command that must fail with exit code 2."""
    result = _invoke(*args)
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert text.startswith("error: ") and "Traceback" not in text, result.output
    return text


@pytest.fixture(scope="module")
def study(tiny_study: Path, tmp_path_factory) -> Path:
    """A copy of the small measured study, for this module to write into."""
    copy = tmp_path_factory.mktemp("errors") / "study"
    shutil.copytree(tiny_study, copy)
    return copy


def test_a_config_that_is_not_utf8(tmp_path):
    config = tmp_path / "study.toml"
    config.write_bytes(NOT_UTF8)
    message = _error("run", str(config), "--out", str(tmp_path / "out"))
    assert message == f"error: {config}: not UTF-8 text (byte 11)"
    assert _error("plan", str(config)) == message


def test_a_policy_that_is_not_utf8(study, tmp_path):
    policy = tmp_path / "policy.toml"
    policy.write_bytes(NOT_UTF8)
    assert _error("gate", str(study), str(policy)) == f"error: {policy}: not UTF-8 text (byte 11)"


def test_a_reference_that_is_not_utf8(study, tmp_path):
    reference = tmp_path / "reference.jsonl"
    reference.write_bytes(b'{"run_id": "\xff"}\n')
    message = _error("agreement", str(study), "--reference", str(reference))
    assert message == f"error: {reference}: not UTF-8 text (byte 12)"


def test_a_conformance_file_that_is_not_utf8(tmp_path):
    episodes = tmp_path / "episodes.jsonl"
    episodes.write_bytes(b'{"domain": "airline", "steps": [], "x": "\xff"}\n')
    assert _error("conformance", str(episodes)) == f"error: {episodes}: not UTF-8 text"


@pytest.mark.parametrize("name", ["policy.md", "flights.json"])
def test_a_taubench_file_that_is_not_utf8(taubench, tmp_path, name):
    from sscbench.errors import DataError
    from sscbench.world.taubench import load_taubench_world

    shutil.copytree(taubench / "airline", tmp_path / "airline")
    bad = tmp_path / "airline" / name
    bad.write_bytes(b'{"x": "\xff"}\n')
    with pytest.raises(DataError, match="not UTF-8 text") as caught:
        load_taubench_world(tmp_path, "airline")
    assert caught.value.path == bad


@pytest.mark.parametrize("command", ["run", "measure", "export-otel", "export-inspect"])
def test_an_out_name_over_255_bytes(study, tmp_path, command):
    long = tmp_path / ("a" * 300)
    args = {
        "run": ["run", "--out", str(long), "--no-progress"],
        "measure": ["measure", str(study), "--out", f"{long}.jsonl"],
        "export-otel": ["export", "otel", str(study), "--out", f"{long}.jsonl"],
        "export-inspect": ["export", "inspect", str(study), "--out", f"{long}.eval"],
    }[command]
    if command == "export-inspect":
        pytest.importorskip("inspect_ai")
    message = _error(*args)
    assert message.endswith("file name too long (a name may have at most 255 bytes)"), message
    assert "a" * 300 in message


def test_review_export_out_on_a_file(study, tmp_path):
    target = tmp_path / "afile"
    target.write_text("x")
    message = _error("review", "export", str(study), "--out", str(target))
    assert message == f"error: {target}: --out must name a folder, and this is a file"
    assert target.read_text() == "x"


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ("a\\u0000b", "a path cannot hold a NUL byte"),
        ("x" * 5001, "a path may have at most 4096 bytes, not 5,001"),
        ("LOOP", "cannot be resolved: Symlink loop"),
    ],
    ids=["nul", "long", "loop"],
)
def test_a_world_data_path_no_system_can_open(tmp_path, data, expected):
    if data == "LOOP":
        (tmp_path / "one").symlink_to(tmp_path / "two")
        (tmp_path / "two").symlink_to(tmp_path / "one")
        data = str(tmp_path / "one")
    config = tmp_path / "study.toml"
    config.write_text(TAU.format(data=data))
    for args in (["run", str(config), "--out", str(tmp_path / "out")], ["plan", str(config)]):
        message = _error(*args)
        assert message.startswith(f"error: {config}, field world.data: {expected}"), message


# ---- a full disk ------------------------------------------------------------------------
def _fill_run_files_after(monkeypatch, writes: int) -> None:
    """Writes to a run's files (``*.ledger.jsonl``, ``*.evaluator.jsonl``, written in
    place by ``core/files.write_new``) fail with ENOSPC after ``writes`` of them, as the
    system fails a write: no file name."""
    done = {"n": 0}
    write = os.write

    def full(fd: int, data) -> int:
        if os.readlink(f"/proc/self/fd/{fd}").endswith((".ledger.jsonl", ".evaluator.jsonl")):
            done["n"] += 1
            if done["n"] > writes:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return write(fd, data)

    monkeypatch.setattr(os, "write", full)


def test_no_space_during_run_names_the_file_and_keeps_finished_runs(tmp_path, monkeypatch):
    from tiny_study import TINY_STUDY

    config = tmp_path / "study.toml"
    config.write_text(TINY_STUDY)
    out = tmp_path / "out"
    _fill_run_files_after(monkeypatch, 6)  # the fourth run's files fail
    message = _error("run", str(config), "--out", str(out), "--no-progress", "--no-report")
    monkeypatch.undo()
    assert message.startswith(f"error: {out / 'runs'}/"), message
    assert message.endswith(
        ".jsonl: no space left on device; finished runs are kept: free space and run the "
        "same command again"
    ), message
    finished = list(StudyDir(out).read_index())
    assert finished and all(StudyDir(out).ledger_path(e.run_id).exists() for e in finished)
    names = {p.name for p in (out / "runs").glob("*.jsonl") if "journal" not in p.name}
    kept = {f"{e.run_id}.{part}.jsonl" for e in finished for part in ("ledger", "evaluator")}
    assert names == kept  # the write that failed left no cut file


def test_no_space_during_measure_names_the_file(study, tmp_path, monkeypatch):
    out = tmp_path / "m.jsonl"

    class Full:
        """A text handle on a full disk: every write fails as the system fails it."""

        def __init__(self, handle):
            self.handle = handle

        def write(self, _text):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def __enter__(self):
            return self

        def __exit__(self, *_exc):
            self.handle.close()

    opened = pathlib.Path.open

    def full_open(self, mode="r", *args, **kwargs):
        handle = opened(self, mode, *args, **kwargs)
        if "w" in mode and self.name.startswith(f".{out.name}"):
            return Full(handle)
        return handle

    monkeypatch.setattr(pathlib.Path, "open", full_open)
    message = _error("measure", str(study), "--out", str(out))
    assert message == f"error: {out}: no space left on device"
    assert list(tmp_path.iterdir()) == []


def test_no_space_during_report_names_the_file(study, monkeypatch):
    write_bytes = pathlib.Path.write_bytes

    def full(self, data):
        if self.name.startswith(".report.html."):  # its temporary name (written, renamed)
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return write_bytes(self, data)

    monkeypatch.setattr(pathlib.Path, "write_bytes", full)
    message = _error("report", str(study))
    assert message.startswith(f"error: {study}/"), message
    assert message.endswith("/report.html: no space left on device"), message
    assert not (study / "report").exists()
    assert not [p for p in study.iterdir() if p.name.startswith(".report-build")]
