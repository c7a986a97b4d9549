"""Hostile writes and tampered records through the real commands (issue 42, items 5 and 6).

A full disk is simulated by making every write under the test's folder fail with
``ENOSPC`` once a byte budget is spent (the failing write puts down what fits first, as
a real disk does), so a command meets it partway through its output. Each command must
then print one ``error: FILE: no space left on device`` line naming the file it was
writing, exit 2, and leave the previous output exactly as it was, with no temporary file
or staging folder behind. Seals: ``show`` checks the ledger against the index,
``release diff`` refuses an edited or unsealed ``evidence.json``, the review readers an
edited key or ``plan.json``.
"""

from __future__ import annotations

import builtins
import errno
import io
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sscbench.cli import app

DEAD_PID = 2**22 + 7  # above Linux's largest process id: no process has it

TYPED_STUDY = """
[study]
name = "hostile-writes"
repetitions = 1
[world]
source = "tau-bench"
data = "{data}"
idempotency_keys = true
[cases]
operators = ["TimeoutAfterCommit"]
per_operator = 3
[[cases.intensity]]
family = "TimeoutAfterCommit"
parameter = "probability"
levels = [0.0, 1.0]
[[agents]]
id = "naive"
profile = "naive_retry"
"""


class _Disk:
    """How many bytes may still be written before the disk is full."""

    def __init__(self, budget: int):
        self.left = budget


class _FillingFile:
    """A file handle whose writes fail with ENOSPC once the disk's budget is spent."""

    def __init__(self, handle: Any, disk: _Disk):
        self._handle = handle
        self._disk = disk

    def write(self, data: Any) -> int:
        """Write ``data``, or what fits of it and then fail as a full disk does."""
        size = len(data)
        if size > self._disk.left:
            self._handle.write(data[: self._disk.left])
            self._disk.left = 0
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self._disk.left -= size
        return self._handle.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._handle, name)

    def __iter__(self) -> Any:
        return iter(self._handle)

    def __enter__(self) -> _FillingFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self._handle.close()


@pytest.fixture
def full_disk(monkeypatch, tmp_path):
    """``full_disk(budget)``: from now on, files opened for writing under ``tmp_path``
    take ``budget`` bytes in all, then every write fails with ENOSPC."""
    real_open = builtins.open

    def start(budget: int) -> None:
        disk = _Disk(budget)

        def filling_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
            handle = real_open(file, mode, *args, **kwargs)
            writing = isinstance(file, str | os.PathLike) and set(mode) & set("wax+")
            if writing and str(file).startswith(str(tmp_path)):
                return _FillingFile(handle, disk)
            return handle

        monkeypatch.setattr(builtins, "open", filling_open)
        monkeypatch.setattr(io, "open", filling_open)

    return start


def _cli(*args: Any) -> Any:
    return CliRunner().invoke(app, [str(a) for a in args])


def _one_error(result: Any, *names: str) -> str:
    """Exit 2 and exactly one ``error:`` line (stdout or stderr) naming one of ``names``."""
    output = result.stdout + result.stderr
    assert result.exit_code == 2, output
    assert result.exception is None or isinstance(result.exception, SystemExit), output
    assert "Traceback" not in output, output
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, output
    assert any(name in errors[0] for name in names), output
    return errors[0]


def _snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (hidden ones too) by relative path, with its bytes."""
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def _leftovers(folder: Path) -> list[str]:
    """Temporary files and staging folders anywhere under ``folder``."""
    return [
        str(p)
        for p in folder.rglob(".*")
        if p.name.endswith(".tmp") or "-new-" in p.name or "-old-" in p.name
    ]


@pytest.fixture(scope="module")
def typed_study(taubench, tmp_path_factory) -> Path:
    """A small typed-family study (one family with an intensity curve), released once."""
    from sscbench.run.executor import execute_study
    from sscbench.study.config import parse_config

    text = TYPED_STUDY.format(data=taubench)
    root = tmp_path_factory.mktemp("typed") / "study"
    execute_study(parse_config(text, "typed.toml"), text, root, progress=False)
    assert _cli("release", root).exit_code == 0
    return root


@pytest.fixture
def study_copy(typed_study, tmp_path) -> Path:
    """A copy of the released typed study inside this test's folder."""
    return Path(shutil.copytree(typed_study, tmp_path / "study"))


# ---- class F: atomic writes -------------------------------------------------------


@pytest.mark.parametrize("budget", [0, 300, 2_000, 20_000, 60_000])
def test_release_on_a_full_disk_keeps_the_previous_release(study_copy, full_disk, budget):
    before = _snapshot(study_copy / "release")
    full_disk(budget)
    line = _one_error(_cli("release", study_copy), str(study_copy / "release"))
    assert "no space left on device" in line
    assert ".release-new-" not in line  # the file as the user knows it
    assert _snapshot(study_copy / "release") == before
    assert _leftovers(study_copy) == []


def test_release_removes_what_a_killed_release_left(study_copy):
    for name in (f".release-new-{DEAD_PID}", f".release-old-{DEAD_PID}"):
        (study_copy / name).mkdir()
        (study_copy / name / "transfer.csv").write_bytes(b"")
    alive = study_copy / f".release-new-{os.getppid()}"  # a release still running
    alive.mkdir()
    assert _cli("release", study_copy).exit_code == 0
    assert _leftovers(study_copy) == [str(alive)]


def test_release_diff_out_on_a_full_disk_keeps_the_old_files(study_copy, tmp_path, full_disk):
    out = tmp_path / "diff"
    assert _cli("release", "diff", study_copy, study_copy, "--out", out).exit_code == 0
    (out / "notes.txt").write_text("the user's own file", "utf-8")
    before = _snapshot(out)
    for budget in (0, 100, 3_000):
        full_disk(budget)
        result = _cli("release", "diff", study_copy, study_copy, "--out", out)
        assert "no space left on device" in _one_error(result, str(out))
        assert _snapshot(out) == before
        assert _leftovers(out) == []


def test_review_export_on_a_full_disk_leaves_no_folder_and_no_key(tiny_study, tmp_path, full_disk):
    out, key = tmp_path / "review", tmp_path / "keys" / "review.json"
    full_disk(5_000)
    result = _cli("review", "export", tiny_study, "--out", out, "--key", key)
    assert "no space left on device" in _one_error(result, str(out), str(key))
    assert not out.exists() and not key.exists()
    assert _leftovers(tmp_path) == []


def test_review_export_after_a_full_disk_can_be_run_again(tiny_study, tmp_path, monkeypatch):
    out, key = tmp_path / "review", tmp_path / "keys" / "review.json"
    (tmp_path / f".review-new-{DEAD_PID}").mkdir()  # a killed export's staging folder
    (tmp_path / "keys").mkdir()
    (tmp_path / "keys" / f".review.json.{DEAD_PID}.tmp").write_text("{", "utf-8")
    result = _cli("review", "export", tiny_study, "--out", out, "--key", key)
    assert result.exit_code == 0, result.output
    assert (out / "index.html").stat().st_size > 0 and key.is_file()
    assert _leftovers(tmp_path) == []


def test_a_killed_measure_leaves_no_temporary_file_for_ever(tiny_study, tmp_path):
    study = Path(shutil.copytree(tiny_study, tmp_path / "study"))
    stale = [study / f".measurements.jsonl.{DEAD_PID}.tmp"]
    stale.append(study / f".measurements.meta.json.{DEAD_PID}.tmp")
    for path in stale:
        path.write_text('{"half": ', "utf-8")
    result = _cli("measure", study)
    assert result.exit_code == 0, result.output
    assert not any(path.exists() for path in stale)


def test_a_resumed_run_removes_the_temporary_files_of_a_killed_one(tiny_study, tmp_path):
    from tiny_study import TINY_STUDY

    study = Path(shutil.copytree(tiny_study, tmp_path / "study"))
    run_id, _ = _ledger_run(study)
    stale = [study / "runs" / f".{run_id}.ledger.jsonl.{DEAD_PID}.tmp"]
    stale.append(study / f".index.jsonl.{DEAD_PID}.tmp")
    alive = study / "runs" / f".{run_id}.ledger.jsonl.{os.getppid()}.tmp"
    for path in [*stale, alive]:
        path.write_text('{"half": ', "utf-8")
    config = tmp_path / "tiny.toml"
    config.write_text(TINY_STUDY, "utf-8")
    result = _cli("run", config, "--out", study, "--no-progress")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert not any(path.exists() for path in stale) and alive.exists()


def test_measure_on_a_full_disk_keeps_the_measurements_and_their_seal(
    tiny_study, tmp_path, full_disk
):
    study = Path(shutil.copytree(tiny_study, tmp_path / "study"))
    before = {n: (study / n).read_bytes() for n in ("measurements.jsonl", "measurements.meta.json")}
    for budget in (0, 10_000):
        full_disk(budget)
        result = _cli("measure", study)
        assert "no space left on device" in _one_error(result, str(study / "measurements"))
        assert {n: (study / n).read_bytes() for n in before} == before
        assert _leftovers(study) == []


def test_an_otel_export_on_a_full_disk_keeps_the_previous_file(tiny_study, tmp_path, full_disk):
    pytest.importorskip("opentelemetry")
    out = tmp_path / "spans.jsonl"
    assert _cli("export", "otel", tiny_study, "--out", out).exit_code == 0
    before = out.read_bytes()
    full_disk(100)
    result = _cli("export", "otel", tiny_study, "--out", out)
    assert "no space left on device" in _one_error(result, str(out))
    assert out.read_bytes() == before
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("name", ["log.eval", "log.json"])
def test_an_inspect_export_on_a_full_disk_keeps_the_previous_log(
    tiny_study, tmp_path, monkeypatch, name
):
    log = pytest.importorskip("inspect_ai.log")
    out = tmp_path / name
    assert _cli("export", "inspect", tiny_study, "--out", out).exit_code == 0
    before = out.read_bytes()

    def half_then_full(_log: Any, location: str | Path, *_args: Any, **_options: Any) -> None:
        """The log's writer (Inspect's whole-log writer for .json, sscbench's sample by
        sample one for .eval) on a full disk: half a log at the name it was given, then
        the system's error."""
        Path(location).write_bytes(before[: len(before) // 2])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    if name.endswith(".json"):
        monkeypatch.setattr(log, "write_eval_log", half_then_full)
    else:
        from sscbench.integrations import inspect_export

        monkeypatch.setattr(
            inspect_export, "write_eval_file", lambda path, *a: half_then_full(None, path)
        )
    result = _cli("export", "inspect", tiny_study, "--out", out)
    assert "no space left on device" in _one_error(result, str(out))
    assert out.read_bytes() == before
    assert _leftovers(tmp_path) == []


def test_review_cases_on_a_full_disk_leaves_no_folder(tiny_study, tmp_path, full_disk):
    out = tmp_path / "cases"
    full_disk(3_000)
    result = _cli("review", "cases", tiny_study, "--out", out)
    assert "no space left on device" in _one_error(result, str(out))
    assert not out.exists() and _leftovers(tmp_path) == []
    (tmp_path / f".cases-new-{DEAD_PID}").mkdir()  # and a killed run's staging folder
    full_disk(10**9)
    assert _cli("review", "cases", tiny_study, "--out", out).exit_code == 0
    assert (out / "index.html").is_file() and _leftovers(tmp_path) == []


# ---- class G: seals -------------------------------------------------------------------


def _ledger_run(study: Path) -> tuple[str, Path]:
    """A completed run of the study and its ledger file."""
    ledger = sorted((study / "runs").glob("*.ledger.jsonl"))[0]
    return ledger.name.removesuffix(".ledger.jsonl"), ledger


def test_show_refuses_a_ledger_that_no_longer_matches_the_index(tiny_study, tmp_path):
    study = Path(shutil.copytree(tiny_study, tmp_path / "study"))
    run_id, ledger = _ledger_run(study)
    assert _cli("show", study, run_id).exit_code == 0
    lines = ledger.read_text("utf-8").splitlines(keepends=True)
    ledger.write_text("".join(lines[:-1]), "utf-8")  # the last event cut away
    line = _one_error(_cli("show", study, run_id), str(ledger))
    assert "sha256" in line and run_id in line
    result = _cli("show", study, run_id, "--unchecked")
    assert result.exit_code == 0, result.output
    first = result.stderr.splitlines()[0]
    assert first.startswith("warning:") and str(ledger) in first and "unchecked" in first
    assert result.stdout.strip()  # the ledger, as it is now
    ledger.unlink()
    _one_error(_cli("show", study, run_id, "--unchecked"), str(ledger))


def _evidence(study: Path) -> tuple[Path, dict[str, Any]]:
    path = study / "release" / "evidence.json"
    return path, json.loads(path.read_text("utf-8"))


def test_release_diff_refuses_an_edited_escape_count(study_copy, tmp_path):
    other = Path(shutil.copytree(study_copy, tmp_path / "other"))
    assert _cli("release", "diff", study_copy, other).exit_code == 0
    path, data = _evidence(other)
    row = next(r for r in data["families"] if r["metrics"].get("escape"))
    row["metrics"]["escape"]["numerator"] += 1
    row["metrics"]["escape"]["estimate"] = 0.99
    path.write_text(json.dumps(data, indent=2, sort_keys=True), "utf-8")
    line = _one_error(_cli("release", "diff", study_copy, other), str(path))
    assert "seal" in line and "sscbench release" in line


def test_release_diff_refuses_evidence_without_a_seal(study_copy, tmp_path):
    other = Path(shutil.copytree(study_copy, tmp_path / "other"))
    path, data = _evidence(other)
    del data["seal"]
    path.write_text(json.dumps(data, indent=2, sort_keys=True), "utf-8")
    line = _one_error(_cli("release", "diff", other, study_copy), str(path))
    assert "seal" in line and "missing" in line


def test_the_seal_ignores_indentation_but_not_content(study_copy):
    path, data = _evidence(study_copy)
    path.write_text(json.dumps(data), "utf-8")  # the same content, written on one line
    assert _cli("release", "diff", study_copy, study_copy).exit_code == 0


def _exported(study: Path, tmp_path: Path) -> tuple[Path, Path]:
    out, key = tmp_path / "review", tmp_path / "keys" / "review.json"
    result = _cli("review", "export", study, "--out", out, "--key", key, "--runs", "3")
    assert result.exit_code == 0, result.output
    labels = out / "labels.jsonl"
    filled = []
    for text in labels.read_text("utf-8").splitlines():
        row = json.loads(text)
        row["A"] = False
        filled.append(json.dumps(row))
    labels.write_text("\n".join(filled) + "\n", "utf-8")
    return labels, key


def test_agreement_refuses_an_edited_review_key(tiny_study, tmp_path):
    labels, key = _exported(tiny_study, tmp_path)
    args = ("agreement", tiny_study, "--reference", labels, "--key", key)
    assert _cli(*args).exit_code == 0
    record = json.loads(key.read_text("utf-8"))
    first, second = list(record["runs"])[:2]
    record["runs"][first], record["runs"][second] = record["runs"][second], record["runs"][first]
    key.write_text(json.dumps(record, indent=1), "utf-8")
    assert "seal" in _one_error(_cli(*args), str(key))


def test_an_unsealed_review_key_of_an_older_sscbench_is_used_with_a_warning(tiny_study, tmp_path):
    labels, key = _exported(tiny_study, tmp_path)
    record = json.loads(key.read_text("utf-8"))
    del record["seal"]
    key.write_text(json.dumps(record, indent=1), "utf-8")
    result = _cli("agreement", tiny_study, "--reference", labels, "--key", key)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert any(
        line.startswith("warning:") and str(key) in line for line in result.stderr.splitlines()
    )


def test_review_reference_refuses_a_plan_changed_in_the_reviewers_hands(tiny_study, tmp_path):
    folder, key = tmp_path / "round", tmp_path / "keys" / "round.json"
    args = ("review", "plan", tiny_study, "--out", folder, "--key", key, "--runs", "2")
    result = _cli(*args, "--reviewers", "ann,bob")
    assert result.exit_code == 0, result.stdout + result.stderr
    plan = json.loads((folder / "plan.json").read_text("utf-8"))
    plan["items"] = plan["items"][:1]  # a reviewer drops an item they found hard
    (folder / "plan.json").write_text(json.dumps(plan, indent=1), "utf-8")
    line = _one_error(_cli("review", "reference", folder), str(folder / "plan.json"))
    assert "changed" in line
