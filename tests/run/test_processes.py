"""The process executor (``--executor processes``): child processes make the episodes,
this process records them; the study must be the local executor's, also when a child is
killed, when the parent is killed and resumed, and when a live model fails."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sscbench.errors import DataError, EndpointUnreachable
from sscbench.run.executor import execute_study
from sscbench.study.config import parse_config
from sscbench.testing import Fail, OpenAIServer, text

SRC = Path(__file__).resolve().parents[2] / "src"
DELAY = 0.05  # each answer's: a child always has runs in flight

SCRIPTED = """
[study]
repetitions = 2
concurrency = 8
[study.processes]
workers = 2
[world]
domains = ["airline", "retail"]
[cases]
operators = ["ReturnDate", "PaySource"]
per_operator = 3
[[agents]]
id = "readback"
profile = "readback"
[[agents]]
id = "trusting"
profile = "trusting"
"""

SLOW = """
[study]
name = "slow"
repetitions = 2
concurrency = 4
[study.processes]
workers = 2
{extra}
[world]
domains = ["airline"]
[cases]
operators = ["ReturnDate", "PaySource"]
per_operator = 2
max_steps = {{ ReturnDate = 3, PaySource = 3 }}
[[agents]]
id = "endpoint"
kind = "openai"
[agents.endpoint]
base_url = "{url}"
model = "fixed"
max_retries = 0
api_key_env = "SSCBENCH_TEST_KEY"
"""


def index_lines(study: Path) -> list[str]:
    """The index's lines, sorted (children finish runs in another order), none twice."""
    lines = (study / "index.jsonl").read_text().splitlines()
    assert len(lines) == len(set(lines)), "a run is indexed twice"
    return sorted(lines)


def run_files(study: Path) -> dict[str, bytes]:
    """Every file of the runs' store by its path in the folder (journals excluded)."""
    runs = study / "runs"
    return {str(p.relative_to(runs)): p.read_bytes() for p in runs.rglob("*") if p.is_file()}


def timed_runs(study: Path) -> list[str]:
    """The run ids ``timings.jsonl`` holds, in its order."""
    lines = (study / "timings.jsonl").read_text().splitlines()
    return [line.split('"wall_s"')[0] for line in lines]


def assert_same_study(made: Path, local: Path) -> None:
    """The same index lines, run files and timed runs (each once) as the local study."""
    assert index_lines(made) == index_lines(local)
    assert run_files(made) == run_files(local)
    timed = timed_runs(made)
    assert len(timed) == len(set(timed)) and sorted(timed) == sorted(timed_runs(local))


def study(tmp_path: Path, template: str, **fields: str) -> tuple:
    toml_text = template.format(**fields) if fields else template
    path = tmp_path / "study.toml"
    path.write_text(toml_text)
    return parse_config(toml_text, path, base_dir=tmp_path), toml_text, path


@pytest.fixture(autouse=True)
def no_child_left():
    yield
    deadline = time.monotonic() + 10
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not multiprocessing.active_children()


def test_a_scripted_study_in_child_processes_is_the_local_one(tmp_path):
    config, toml_text, _ = study(tmp_path, SCRIPTED)
    local = execute_study(config, toml_text, tmp_path / "local", progress=False)
    made = execute_study(
        config, toml_text, tmp_path / "procs", progress=False, executor="processes"
    )
    assert made.statuses == local.statuses and made.executed_now == local.executed_now
    assert_same_study(tmp_path / "procs", tmp_path / "local")


def killing_one_child(after: int):
    """An ``on_run`` that SIGKILLs one child once ``after`` runs are recorded."""
    seen = []

    def on_run(entry) -> None:
        seen.append(entry)
        if len(seen) == after:
            os.kill(multiprocessing.active_children()[0].pid, signal.SIGKILL)

    return on_run


def test_a_killed_child_is_replaced_and_its_runs_made_again(tmp_path, monkeypatch):
    monkeypatch.setenv("SSCBENCH_TEST_KEY", "k")
    with OpenAIServer(lambda body: text("Could you tell me more?"), delay=DELAY) as server:
        config, toml_text, _ = study(tmp_path, SLOW, url=server.base_url, extra="")
        execute_study(config, toml_text, tmp_path / "local", progress=False)
        made = execute_study(
            config,
            toml_text,
            tmp_path / "procs",
            progress=False,
            executor="processes",
            on_run=killing_one_child(after=2),
        )
    assert made.requeued >= 1  # the killed child had runs in flight: made again
    assert_same_study(tmp_path / "procs", tmp_path / "local")


def test_past_max_worker_losses_the_study_stops_and_resumes_the_same(tmp_path, monkeypatch):
    monkeypatch.setenv("SSCBENCH_TEST_KEY", "k")
    with OpenAIServer(lambda body: text("Could you tell me more?"), delay=DELAY) as server:
        extra = "max_worker_losses = 0"
        config, toml_text, _ = study(tmp_path, SLOW, url=server.base_url, extra=extra)
        execute_study(config, toml_text, tmp_path / "local", progress=False)
        out = tmp_path / "procs"
        with pytest.raises(DataError, match=r"study\.processes\.max_worker_losses"):
            execute_study(
                config,
                toml_text,
                out,
                progress=False,
                executor="processes",
                on_run=killing_one_child(after=2),
            )
        kept = len(index_lines(out))
        assert 2 <= kept < len(index_lines(tmp_path / "local"))
        resumed = execute_study(config, toml_text, out, progress=False, executor="processes")
    assert resumed.resumed and resumed.finished_runs == len(index_lines(tmp_path / "local"))
    assert_same_study(out, tmp_path / "local")


def sscbench_run(*args: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(SRC), "SSCBENCH_TEST_KEY": "k"}
    command = [sys.executable, "-m", "sscbench", "run", *args, "--no-report", "--no-progress"]
    command += ["--executor", "processes", "--workers", "2", "--no-preflight"]
    return subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True
    )


def children_of(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def gone(pids: list[int], within: float) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not any(Path(f"/proc/{pid}").exists() for pid in pids):
            return True
        time.sleep(0.05)
    return False


def wait_for_lines(index: Path, lines: int, driver: subprocess.Popen) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and driver.poll() is None:
        if index.exists() and index.read_text().count("\n") >= lines:
            return
        time.sleep(0.05)
    raise AssertionError(f"the index never reached {lines} lines")


@pytest.mark.slow  # two commands in subprocesses, each with its children: ~20 s quiet
@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGINT])
def test_a_killed_or_interrupted_parent_leaves_no_child_and_resumes_the_same(
    tmp_path, monkeypatch, stop
):
    monkeypatch.setenv("SSCBENCH_TEST_KEY", "k")
    with OpenAIServer(lambda body: text("Could you tell me more?"), delay=DELAY) as server:
        config, toml_text, path = study(tmp_path, SLOW, url=server.base_url, extra="")
        execute_study(config, toml_text, tmp_path / "local", progress=False)
        out = tmp_path / "procs"
        driver = sscbench_run(str(path), "--out", str(out))
        wait_for_lines(out / "index.jsonl", 4, driver)
        children = children_of(driver.pid)
        assert len(children) >= 2
        os.killpg(driver.pid, stop) if stop == signal.SIGINT else driver.kill()
        output, _ = driver.communicate(timeout=60)
        if stop == signal.SIGINT:
            assert driver.returncode == 130, output.decode()
        assert gone(children, within=20), "a child outlived its parent"
        again = sscbench_run(str(path), "--out", str(out))
        output, _ = again.communicate(timeout=300)
    assert again.returncode == 0, output.decode()
    assert_same_study(out, tmp_path / "local")


def test_a_live_models_errors_are_missing_runs_as_with_the_local_executor(tmp_path, monkeypatch):
    monkeypatch.setenv("SSCBENCH_TEST_KEY", "wrong")

    def some_fail(body):  # an outage for some tasks, a refused key for the others
        first = next(m["content"] for m in body["messages"] if m["role"] == "user")
        return Fail(503, "overloaded") if len(first) % 2 else Fail(401, "bad key")

    with OpenAIServer(some_fail) as server:
        config, toml_text, _ = study(tmp_path, SLOW, url=server.base_url, extra="")
        local = execute_study(config, toml_text, tmp_path / "local", progress=False)
        made = execute_study(
            config, toml_text, tmp_path / "procs", progress=False, executor="processes"
        )
    assert local.statuses == made.statuses and set(local.statuses) == {"missing"}
    assert made.missing_reasons == local.missing_reasons


def test_an_unreachable_endpoint_stops_the_study_as_locally(tmp_path, monkeypatch):
    monkeypatch.setenv("SSCBENCH_TEST_KEY", "k")
    with OpenAIServer() as server:
        url = server.base_url  # closed once the block ends: nothing listens there
    config, toml_text, _ = study(tmp_path, SLOW, url=url, extra="")
    with pytest.raises(EndpointUnreachable) as local:
        execute_study(config, toml_text, tmp_path / "local", progress=False)
    with pytest.raises(EndpointUnreachable) as made:
        execute_study(config, toml_text, tmp_path / "procs", progress=False, executor="processes")
    assert str(made.value) == str(local.value)


def test_a_child_that_cannot_rebuild_the_study_fails_closed(tmp_path):
    config, toml_text, _ = study(tmp_path, SCRIPTED)
    with pytest.raises(DataError, match="config hashes to"):
        execute_study(
            config,
            toml_text.replace("repetitions = 2", "repetitions = 3"),  # not what it was built from
            tmp_path / "procs",
            progress=False,
            executor="processes",
        )
    assert not (tmp_path / "procs" / "index.jsonl").exists()


def test_each_child_gets_its_share_of_an_endpoints_budgets(tmp_path):
    from sscbench.run.remote import split_budgets

    limits = "max_concurrent = 5\nrequests_per_minute = 60\ntokens_per_minute = 1000\n"
    config, _, _ = study(tmp_path, SLOW, url="http://127.0.0.1:9/v1", extra="")
    text = (tmp_path / "study.toml").read_text() + limits  # the last table: [agents.endpoint]
    config = parse_config(text, tmp_path / "study.toml", base_dir=tmp_path)
    shared = split_budgets(config, 2).agents[0].endpoint
    assert shared is not None
    assert (shared.max_concurrent, shared.requests_per_minute, shared.tokens_per_minute) == (
        3,
        30,
        500,
    )
    assert split_budgets(config, 2).config_hash() == config.config_hash()
    assert split_budgets(config, 1) is config
