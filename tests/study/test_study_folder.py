"""The study folder fails closed: one writer, restart removes only what sscbench wrote,
resume checks the inputs and every run file, injective run ids, config ranges and keys,
prompt SIGINT/SIGTERM, and clear messages instead of tracebacks (issue 14)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sscbench.cli import app
from sscbench.errors import DataError
from sscbench.run.executor import execute_study
from sscbench.run.run_ids import run_id_for
from sscbench.study.config import load_config, parse_config
from sscbench.study.folder import StudyDir
from sscbench.study.lock import StudyLock
from sscbench.study.verify import check_study, verify_study

ROOT = Path(__file__).resolve().parents[2]
SRC = str(ROOT / "src")

SMALL = """
[study]
name = "small"
seed = 7
repetitions = {repetitions}
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

AGENT = '\n[[agents]]\nid = "a"\nprofile = "trusting"\n'


def _write_config(folder: Path, per_operator: int = 2, repetitions: int = 1) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "study.toml"
    path.write_text(SMALL.format(per_operator=per_operator, repetitions=repetitions))
    return path


def _run(config: Path, out: Path, **kwargs):
    study, text = load_config(config)
    return execute_study(study, text, out, progress=False, **kwargs)


def _cli(*args: str, cwd: Path | None = None, **kwargs) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.Popen(
        [sys.executable, "-m", "sscbench", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=cwd,
        **kwargs,
    )


def _lines(out: Path) -> list[str]:
    return (out / "index.jsonl").read_text().splitlines()


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    """A finished small study (4 units, 8 runs): copied by each test that damages it."""
    base = tmp_path_factory.mktemp("finished")
    config = _write_config(base / "cfg")
    _run(config, base / "study")
    return base / "study"


@pytest.fixture(scope="module")
def longer(tmp_path_factory) -> tuple[Path, Path]:
    """The config of a study of 96 runs and its uninterrupted result."""
    base = tmp_path_factory.mktemp("longer")
    config = _write_config(base / "cfg", per_operator=12, repetitions=2)
    _run(config, base / "reference")
    return config, base / "reference"


@pytest.fixture
def study(finished, tmp_path) -> Path:
    shutil.copytree(finished, tmp_path / "study")
    shutil.copytree(finished.parent / "cfg", tmp_path / "cfg")
    return tmp_path / "study"


def _completed(out: Path, kind: str) -> str:
    for line in _lines(out):
        row = json.loads(line)
        if row["kind"] == kind and row["status"] == "completed":
            return row["run_id"]
    raise AssertionError(f"no completed {kind} run")


# ---- item 2: one writer per folder ---------------------------------------------------


def test_a_second_writer_is_refused_naming_the_holder(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\nfrom sscbench.study.lock import StudyLock\n"
            f"with StudyLock({str(out)!r}):\n    print('locked', flush=True)\n    time.sleep(60)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": SRC},
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        config = _write_config(tmp_path / "cfg")
        second = _cli("run", str(config), "--out", str(out), "--no-progress", "--no-report")
        stdout, stderr = second.communicate(timeout=120)
        assert second.returncode == 2, stdout + stderr
    finally:
        holder.kill()
        holder.wait()
    message = stdout + stderr
    assert f"pid {holder.pid} on host" in message and "since" in message, message
    assert "Traceback" not in message
    assert not (out / "index.jsonl").exists()  # nothing was written by the refused writer


def test_report_refuses_a_study_another_process_writes(tmp_path):
    config = _write_config(tmp_path / "cfg")
    out = tmp_path / "out"
    first = _cli("run", str(config), "--out", str(out), "--no-progress", "--no-report")
    assert first.wait(timeout=300) == 0, first.stdout.read() + first.stderr.read()
    measure = _cli("measure", str(out))
    assert measure.wait(timeout=300) == 0, measure.stdout.read() + measure.stderr.read()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\nfrom sscbench.study.lock import StudyLock\n"
            f"with StudyLock({str(out)!r}):\n    print('locked', flush=True)\n    time.sleep(60)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": SRC},
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        report = _cli("report", str(out))
        stdout, stderr = report.communicate(timeout=120)
    finally:
        holder.kill()
        holder.wait()
    assert report.returncode == 2 and f"pid {holder.pid} on host" in stdout + stderr
    assert not (out / "report").exists()  # the refused report wrote nothing


def test_concurrent_runs_on_one_folder_never_duplicate_a_run(tmp_path, longer):
    config, reference = longer
    out = tmp_path / "out"
    procs = [
        _cli("run", str(config), "--out", str(out), "--no-progress", "--no-report")
        for _ in range(2)
    ]
    results = [(p.wait(timeout=300), p.stdout.read() + p.stderr.read()) for p in procs]
    codes = sorted(code for code, _ in results)
    assert codes[0] == 0 and set(codes) <= {0, 2}, results
    for code, text in results:
        if code == 2:  # refused while the other wrote; or it came later and resumed
            assert "being written by pid" in text, text
        assert "Traceback" not in text, text
    lines = _lines(out)
    assert len(lines) == len(set(lines)) == len(_lines(reference))
    assert set(lines) == set(_lines(reference))
    assert not list(out.rglob("*.tmp"))


def test_a_stale_lock_of_a_dead_process_is_taken_over(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    import socket

    (out / "sscbench.lock").write_text(
        json.dumps({"pid": dead.pid, "host": socket.gethostname(), "started": "earlier"})
    )
    lock = StudyLock(out).acquire()
    try:
        assert lock.taken_over is not None and lock.taken_over.pid == dead.pid
        record = json.loads((out / "sscbench.lock").read_text())
        assert record["pid"] == os.getpid()
    finally:
        lock.release()
    (out / "sscbench.lock").write_text(
        json.dumps({"pid": dead.pid, "host": socket.gethostname(), "started": "earlier"})
    )
    result = CliRunner().invoke(
        app, ["run", str(_write_config(tmp_path / "cfg")), "--out", str(out), "--no-progress"]
    )
    assert result.exit_code == 0, result.output
    assert f"took over the stale lock of pid {dead.pid}" in result.output


def test_temporary_names_are_unique_per_process(tmp_path):
    from sscbench.core.files import temp_path

    tmp = temp_path(tmp_path / "index.jsonl")
    assert str(os.getpid()) in tmp.name and tmp.parent == tmp_path


# ---- item 3: --restart removes only what sscbench wrote ------------------------------


def test_restart_refuses_a_folder_that_is_not_a_study(tmp_path):
    config = _write_config(tmp_path / "cfg")
    thesis = tmp_path / "thesis"
    thesis.mkdir()
    (thesis / "thesis.tex").write_text("years of work")
    with pytest.raises(DataError, match="not a study folder"):
        _run(config, thesis, restart=True)
    with pytest.raises(DataError, match="not a study folder"):
        _run(config, thesis)
    assert (thesis / "thesis.tex").read_text() == "years of work"
    assert sorted(p.name for p in thesis.iterdir()) == ["thesis.tex"]


def test_restart_refuses_a_folder_without_the_study_marker(study):
    (study / "sscbench-study.json").unlink()  # e.g. a folder that only looks like a study
    with pytest.raises(DataError, match=r"sscbench-study\.json is absent"):
        _run(study.parent / "cfg" / "study.toml", study, restart=True)
    assert (study / "index.jsonl").exists() and any((study / "runs").iterdir())


def test_restart_removes_sscbench_files_and_keeps_the_others(study):
    (study / "notes.txt").write_text("mine")
    (study / "runs" / "keep.me").write_text("mine too")
    before = _lines(study)
    summary = _run(study.parent / "cfg" / "study.toml", study, restart=True)
    assert not summary.resumed and summary.executed_now == summary.planned_runs
    assert (study / "notes.txt").read_text() == "mine"
    assert (study / "runs" / "keep.me").read_text() == "mine too"
    assert sorted(_lines(study)) == sorted(before)


# ---- item 4: inputs hashed, relative paths from the config's folder -----------------


def _cases_study(tmp_path: Path, finished: Path) -> tuple[Path, Path]:
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    shutil.copy(finished / "cases.jsonl", cfg / "cases.jsonl")
    config = cfg / "study.toml"
    config.write_text(
        '[world]\nsource = "generated"\ndomains = ["airline"]\n'
        '[cases]\nfile = "cases.jsonl"\n' + AGENT
    )
    return config, cfg / "cases.jsonl"


def test_relative_paths_are_read_from_the_config_folder(tmp_path, finished, monkeypatch):
    config, _ = _cases_study(tmp_path, finished)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the cases file is not in the working directory
    summary = _run(config, tmp_path / "out")
    assert summary.finished_runs == summary.planned_runs > 0
    marker = json.loads((tmp_path / "out" / "sscbench-study.json").read_text())
    assert list(marker["inputs"]) == [str((tmp_path / "cfg" / "cases.jsonl").resolve())]


def test_an_edited_cases_file_is_refused_on_resume(tmp_path, finished):
    config, cases = _cases_study(tmp_path, finished)
    _run(config, tmp_path / "out")
    lines = cases.read_text().splitlines()
    case = json.loads(lines[0])
    case["max_steps"] = case["max_steps"] + 1
    cases.write_text("\n".join([json.dumps(case), *lines[1:]]) + "\n")
    with pytest.raises(DataError) as info:
        _run(config, tmp_path / "out")
    message = str(info.value)
    assert "inputs changed" in message and "cases.jsonl changed (sha256" in message, message


def test_a_changed_taubench_policy_is_refused_on_resume(tmp_path, taubench):
    data = tmp_path / "data"
    shutil.copytree(taubench / "airline", data / "airline")
    config = tmp_path / "study.toml"
    config.write_text(
        '[world]\nsource = "tau-bench"\ndata = "data"\ndomains = ["airline"]\n'
        '[cases]\noperators = ["SuppressWrite"]\nper_operator = 1\n' + AGENT
    )
    _run(config, tmp_path / "out")
    policy = data / "airline" / "policy.md"
    policy.chmod(0o644)
    policy.write_text(policy.read_text() + "\nA new rule.\n")
    with pytest.raises(DataError, match=r"airline/policy\.md changed"):
        _run(config, tmp_path / "out")


# ---- item 5: the index is verified -------------------------------------------------


def _measure(study: Path):
    return CliRunner().invoke(app, ["measure", str(study)])


def test_a_duplicated_index_line_counts_once(study):
    lines = _lines(study)
    (study / "index.jsonl").write_text("\n".join([*lines, lines[0], lines[1]]) + "\n")
    check = verify_study(study)
    assert len(check.entries) == len(lines) and check.copies == 2
    result = _measure(study)
    assert result.exit_code == 0, result.output
    assert len((study / "measurements.jsonl").read_text().splitlines()) == len(lines)


@pytest.mark.parametrize(
    ("damage", "kind", "suffix", "reason"),
    [
        ("cut", "faulted", ".ledger.jsonl", "sha256"),
        ("delete", "clean", ".ledger.jsonl", "missing"),
        ("garbage", "clean", ".ledger.jsonl", "sha256"),
        ("one-line", "faulted", ".evaluator.jsonl", "sha256"),
    ],
)
def test_damaged_run_files_stop_measure_and_report(study, damage, kind, suffix, reason):
    run_id = _completed(study, kind)
    path = study / "runs" / f"{run_id}{suffix}"
    lines = path.read_text().splitlines()
    if damage == "cut":
        path.write_text("\n".join(lines[:-2]) + "\n")  # cut at a line boundary
    elif damage == "delete":
        path.unlink()
    elif damage == "garbage":
        path.write_bytes(b"\x00garbage\n")
    else:
        path.write_text(lines[0] + "\n")
    result = _measure(study)
    assert result.exit_code == 2, result.output
    assert path.name in result.output and f"run {run_id}" in result.output
    assert reason in result.output and "Traceback" not in result.output
    assert not (study / "measurements.jsonl").exists()  # nothing half-written
    report = CliRunner().invoke(app, ["report", str(study)])
    assert report.exit_code == 2 and path.name in report.output
    assert not (study / "report.html").exists()


def test_a_case_missing_from_cases_jsonl_stops_measure(study):
    # a study recorded before the marker kept the cases' hash: each run's case is looked up
    marker = json.loads((study / "sscbench-study.json").read_text())
    del marker["files"]
    (study / "sscbench-study.json").write_text(json.dumps(marker))
    cases = (study / "cases.jsonl").read_text().splitlines()
    (study / "cases.jsonl").write_text("\n".join(cases[1:]) + "\n")
    result = _measure(study)
    assert result.exit_code == 2, result.output
    assert "cases.jsonl" in result.output and "is absent" in result.output
    assert "Traceback" not in result.output
    assert not (study / "measurements.jsonl").exists()


def test_resume_reruns_runs_whose_files_fail_the_check(study, finished):
    clean = _completed(study, "clean")
    faulted = _completed(study, "faulted")
    (study / "runs" / f"{clean}.ledger.jsonl").unlink()
    log = study / "runs" / f"{faulted}.evaluator.jsonl"
    log.write_text(log.read_text().splitlines()[0] + "\n")
    assert len(check_study(study).problems) == 2
    summary = _run(study.parent / "cfg" / "study.toml", study)
    # the bad clean run, its faulted run, and the bad faulted run (maybe the same unit)
    assert summary.rerun >= 2 and summary.executed_now == summary.rerun
    assert check_study(study).ok
    assert sorted(_lines(study)) == sorted(_lines(finished))


# ---- item 6: injective run ids ------------------------------------------------------


def test_run_ids_are_injective_and_bounded():
    ids = {
        run_id_for(c, "a", 0, "clean")
        for c in (
            "gen/0:ReturnDate:XZ9873",
            "gen/0:ReturnDate/XZ9873",
            "gen/0:ReturnDate_XZ9873",
            "gen::0:ReturnDate:XZ9873",
            "gen:0:ReturnDate:XZ9873",
            "gen_0_ReturnDate_XZ9873",
        )
    }
    assert len(ids) == 6
    assert len(run_id_for("x" * 500, "a" * 64, 9999, "faulted")) < 200


def test_six_planned_runs_run_six(tmp_path, finished):
    case = json.loads((finished / "cases.jsonl").read_text().splitlines()[0])
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    with (cfg / "cases.jsonl").open("w") as handle:
        for case_id in (
            "generated/airline:gen/0:ReturnDate:XZ9873",
            "generated/airline:gen/0:ReturnDate/XZ9873",
            "generated/airline:gen::0:ReturnDate:XZ9873",
        ):
            handle.write(json.dumps({**case, "case_id": case_id}) + "\n")
    config = cfg / "study.toml"
    config.write_text('[world]\ndomains = ["airline"]\n[cases]\nfile = "cases.jsonl"\n' + AGENT)
    summary = _run(config, tmp_path / "out")
    # three cases on one task: three faulted runs and the task's one shared clean run
    assert summary.planned_runs == 4
    assert summary.executed_now == summary.finished_runs == 4
    assert len({json.loads(line)["run_id"] for line in _lines(tmp_path / "out")}) == 4


# ---- item 8: config ranges and keys --------------------------------------------------


@pytest.mark.parametrize(
    ("toml", "field", "reason"),
    [
        ("[cases.max_steps]\nSuppressWrite = 0\n", "cases.max_steps.SuppressWrite", ">= 1"),
        ("[cases.max_steps]\nSuppressWrite = -5\n", "cases.max_steps.SuppressWrite", ">= 1"),
        ("[cases.max_steps]\nReturnDat = 30\n", "cases.max_steps", "unknown operator"),
        ("[cases.params.TimeoutAfterCommit]\nprobabilty = 0.5\n", "cases.params", "probabilty"),
        ("[cases.params.ReturnDate]\nburst = 2\n", "cases.params", "take no parameters"),
        ("[cases]\noperators = ['ReturnDat']\n", "cases.operators", "unknown operator"),
        ("[study]\nrepetitions = 1000000000\n", "study.repetitions", "<= 10000"),
        (
            "[study]\nrepetitions = 10000\n[cases]\nper_operator = 100\n",
            "study.repetitions",
            "the plan would hold",
        ),
    ],
)
def test_config_values_are_validated_up_front(toml, field, reason):
    with pytest.raises(DataError) as info:
        parse_config(toml + AGENT, "cfg.toml")
    message = str(info.value).replace("greater than or equal to ", ">= ")
    message = message.replace("less than or equal to ", "<= ")
    assert message.startswith(f"cfg.toml, field {field}"), message
    assert reason in message, message


def test_absurd_repetitions_refused_before_allocating(tmp_path):
    result = CliRunner().invoke(
        app, ["run", str(_huge(tmp_path)), "--out", str(tmp_path / "o"), "--no-progress"]
    )
    assert result.exit_code == 2 and "study.repetitions" in result.output
    assert not (tmp_path / "o").exists()


def _huge(tmp_path: Path) -> Path:
    path = tmp_path / "huge.toml"
    path.write_text("[study]\nrepetitions = 1000000000\n" + AGENT)
    return path


# ---- item 11: SIGINT and SIGTERM stop promptly, then resume finishes ----------------


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_the_study_and_resume_finishes_it(tmp_path, longer, signum):
    config, reference = longer
    expected = set(_lines(reference))
    out = tmp_path / "out"
    index = out / "index.jsonl"
    proc = _cli("run", str(config), "--out", str(out), "--no-progress")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if index.exists() and len(index.read_bytes().splitlines()) >= 4:
            break
        time.sleep(0.005)
    proc.send_signal(signum)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stdout + stderr
    assert "resume with: sscbench run" in stdout and str(out) in stdout
    assert "Traceback" not in stdout + stderr
    partial = _lines(out)
    assert len(partial) < len(expected), "the study ran to its end instead of stopping"
    assert set(partial) <= expected and not (out / "measurements.jsonl").exists()
    assert check_study(out).ok
    rerun = _cli("run", str(config), "--out", str(out), "--no-progress", "--no-report")
    assert rerun.wait(timeout=300) == 0, rerun.stderr.read()
    lines = _lines(out)
    assert len(lines) == len(set(lines)) and set(lines) == expected


# ---- item 14: messages naming file and field, not tracebacks ------------------------


def test_unknown_profile_is_refused_before_the_folder_exists(tmp_path):
    config = tmp_path / "study.toml"
    config.write_text('[[agents]]\nid = "a"\nprofile = "trustng"\n')
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["run", str(config), "--out", str(out), "--no-progress"])
    assert result.exit_code == 2, result.output
    assert "field agents[0]" in result.output and "unknown scripted profile 'trustng'" in (
        result.output
    )
    assert not out.exists()
    config.write_text(SMALL.format(per_operator=1, repetitions=1))
    fixed = CliRunner().invoke(
        app, ["run", str(config), "--out", str(out), "--no-progress", "--no-report"]
    )
    assert fixed.exit_code == 0, fixed.output


@pytest.mark.parametrize(
    ("agent", "field", "reason"),
    [
        ('id = "a"\nprofile = "trusting"\nparams = { colour = 1 }', "agents[0]", "colour"),
        (f'id = "{"a" * 300}"\nprofile = "trusting"', "agents[0].id", "at most 64"),
        ('id = "a--b"\nprofile = "trusting"', "agents[0].id", "'--'"),
    ],
)
def test_bad_agents_name_the_field(agent, field, reason):
    with pytest.raises(DataError) as info:
        parse_config(f"[[agents]]\n{agent}\n", "cfg.toml")
    assert str(info.value).startswith(f"cfg.toml, field {field}") and reason in str(info.value)


def test_invalid_utf8_in_the_index_names_the_line(study):
    with (study / "index.jsonl").open("ab") as handle:
        handle.write(b'{"run_id": "\xff\xfe"}\n')
    result = _measure(study)
    assert result.exit_code == 2, result.output
    assert "index.jsonl" in result.output and f"line {len(_lines_bytes(study))}" in result.output
    assert "not UTF-8" in result.output


def _lines_bytes(study: Path) -> list[bytes]:
    return (study / "index.jsonl").read_bytes().splitlines()


def test_out_pointing_at_a_file_is_a_message(tmp_path):
    config = _write_config(tmp_path / "cfg")
    target = tmp_path / "a-file"
    target.write_text("x")
    result = CliRunner().invoke(app, ["run", str(config), "--out", str(target), "--no-progress"])
    assert result.exit_code == 2 and "--out must be a folder" in result.output
    assert target.read_text() == "x"


def test_measure_of_a_missing_or_foreign_folder_is_a_message(tmp_path):
    assert "no such study folder" in _measure(tmp_path / "nope").output
    (tmp_path / "foreign").mkdir()
    result = _measure(tmp_path / "foreign")
    assert result.exit_code == 2 and "not a study folder" in result.output
    assert StudyDir(tmp_path / "foreign").is_study() is False
    assert not any((tmp_path / "foreign").iterdir())  # not even a lock file was left
    report = CliRunner().invoke(app, ["report", str(tmp_path / "foreign")])
    assert report.exit_code == 2 and not any((tmp_path / "foreign").iterdir())


def test_a_writer_refused_before_the_holder_wrote_its_record_still_names_it(tmp_path):
    import fcntl
    import socket
    import threading

    path = tmp_path / "sscbench.lock"
    holder = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(holder, fcntl.LOCK_EX)  # the lock is taken; the record is not written yet
    record = {"pid": 424242, "host": socket.gethostname(), "started": "now"}
    late = threading.Timer(0.1, lambda: os.pwrite(holder, json.dumps(record).encode(), 0))
    late.start()
    try:
        with pytest.raises(DataError, match="being written by pid 424242"):
            StudyLock(tmp_path).acquire()
    finally:
        late.join()
        os.close(holder)
    lock = StudyLock(tmp_path).acquire()  # the holder is gone: the lock is free again
    lock.release()
