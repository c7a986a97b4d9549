"""A run in flight keeps its model answers (runs/<id>.partial.jsonl): a resumed study
continues it with no model call for what was answered, and ends byte-identical."""

from __future__ import annotations

import json
import os
import signal
import threading
from pathlib import Path

import pytest

from sscbench.llm.journal import SUFFIX, ResponseJournal, read_journal
from sscbench.run.executor import StudyInterrupted, execute_study
from sscbench.run.progress import in_flight_lines
from sscbench.study.config import parse_config
from sscbench.testing import Fail, OpenAIServer, text, tool_call

STUDY = """
[study]
repetitions = 1
concurrency = 1
[world]
domains = ["airline"]
[cases]
operators = ["ReturnDate"]
per_operator = 2
max_steps = {{ReturnDate = 8}}
[[agents]]
id = "model"
kind = "openai"
qualify = "completed"
[agents.endpoint]
base_url = "{url}"
model = "m"
max_retries = 0
"""


class Model:
    """A deterministic model: a lookup after each user message, then a question; after
    ``stop_after`` answers it sends SIGINT to the study (a Ctrl-C mid-run)."""

    def __init__(self, stop_after: int | None = None):
        self.stop_after = stop_after
        self.answered = 0
        self.lock = threading.Lock()

    def __call__(self, body: dict) -> dict | Fail:
        with self.lock:
            if self.stop_after is not None and self.answered >= self.stop_after:
                os.kill(os.getpid(), signal.SIGINT)
                return Fail(500)
            self.answered += 1
        last = body["messages"][-1]
        if last["role"] == "tool":
            return text(f"Could you say more? ({len(body['messages'])})")
        number = len(body["messages"])  # ids of the answer's own, not the server's count
        return tool_call("get_reservation_details", {"reservation_id": "ZFA04Y"}, f"c{number}")


class Endpoint:
    """One server for a study's invocations (its URL is part of the config), answering
    with whichever :class:`Model` is current."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.model = Model()
        self.server = OpenAIServer(lambda body: self.model(body)).start()

    def study(self, model: Model, out: Path, *, stop: bool = False) -> None:
        self.model = model
        toml = STUDY.format(url=self.server.base_url)
        config = parse_config(toml, self.tmp / "study.toml", base_dir=self.tmp)
        if stop:
            with pytest.raises(StudyInterrupted):
                execute_study(config, toml, out, progress=False)
        else:
            execute_study(config, toml, out, progress=False)


@pytest.fixture
def endpoint(tmp_path):
    made = Endpoint(tmp_path)
    yield made
    made.server.stop()


def _files(out: Path) -> dict[str, bytes]:
    names = ["index.jsonl", *(f"runs/{p.name}" for p in sorted((out / "runs").iterdir()))]
    return {name: (out / name).read_bytes() for name in names}


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("whole")
    whole = Endpoint(tmp)
    model = Model()
    whole.study(model, tmp / "out")
    whole.server.stop()
    return _files(tmp / "out"), model.answered


def test_an_interrupted_run_continues_from_its_journal(tmp_path, endpoint, uninterrupted):
    files, total = uninterrupted
    first = Model(stop_after=total // 2 + 1)
    out = tmp_path / "out"
    endpoint.study(first, out, stop=True)
    journals = sorted((out / "runs").glob(f"*{SUFFIX}"))
    assert len(journals) == 1  # concurrency 1: one run was in flight
    run_id = journals[0].name[: -len(SUFFIX)]
    kept, why = read_journal(journals[0], run_id)
    assert why is None and kept, "the run in flight kept its answers"
    assert not (out / "runs" / f"{run_id}.ledger.jsonl").exists()  # not recorded yet

    second = Model()
    endpoint.study(second, out)
    # the journal answered its requests: every answer was asked of the model once
    assert first.answered + second.answered == total
    assert not list((out / "runs").glob(f"*{SUFFIX}"))  # removed once recorded
    assert _files(out) == files  # byte-identical to the uninterrupted study


def test_a_journal_that_stops_fitting_says_so_and_goes_live(
    tmp_path, endpoint, uninterrupted, capsys
):
    files, total = uninterrupted
    first = Model(stop_after=total // 2 + 1)
    out = tmp_path / "out"
    endpoint.study(first, out, stop=True)
    (journal,) = (out / "runs").glob(f"*{SUFFIX}")
    lines = journal.read_bytes().splitlines(keepends=True)
    assert len(lines) >= 3  # header and at least two answers
    row = json.loads(lines[2])
    row["request_sha256"] = "0" * 64  # the second request no longer matches
    journal.write_bytes(lines[0] + lines[1] + (json.dumps(row) + "\n").encode())

    second = Model()
    endpoint.study(second, out)
    err = capsys.readouterr().err
    run_id = journal.name[: -len(SUFFIX)]
    assert f"run {run_id}: its journal stops fitting at model call 2" in err
    assert first.answered + second.answered == total + (len(lines) - 2)  # only 1 reused
    assert _files(out) == files


def test_a_foreign_or_torn_journal_is_refused_or_cut(tmp_path):
    path = tmp_path / f"r1{SUFFIX}"
    path.write_text('{"sscbench_journal": 1, "run_id": "other"}\n')
    notes: list[str] = []
    journal = ResponseJournal(path, "r1", notes.append)
    assert journal.pending == [] and notes == [
        "run r1: its journal cannot be used (it is the journal of run 'other'); running it live"
    ]
    header = '{"sscbench_journal": 1, "run_id": "r1"}\n'
    answer = '{"role": "agent", "request_sha256": "ab", "kind": "json", "value": {"x": 1}}\n'
    path.write_text(header + answer + answer[:20])  # a line cut by a kill
    answers, why = read_journal(path, "r1")
    assert why is None and [a.value for a in answers] == [{"x": 1}]


def test_runs_in_flight_show_their_turn_and_model_calls():
    class J:
        def __init__(self, agent: int, calls: int, replayed: int):
            self.agent_calls, self.calls, self.replayed = agent, calls, replayed

    flight = {f"r{i}": J(7, 12, 5 if i == 0 else 0) for i in range(6)}
    lines = in_flight_lines(flight, shown=2)
    assert lines == [
        "run r0: turn 7, 12 model calls (5 from its journal)",
        "run r1: turn 7, 12 model calls",
        "... and 4 more runs in flight",
    ]
