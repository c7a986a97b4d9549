"""A run in flight keeps its model answers (a line each in the process's journal book,
runs/journal-*.book.jsonl): a resumed study continues it with no model call for what was
answered, and ends byte-identical; no file is made per run, none is left at the end."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from sscbench.llm import journal_book
from sscbench.llm.journal import SUFFIX
from sscbench.llm.journal_book import BOOK_SUFFIX, CARRIED
from sscbench.run.executor import StudyInterrupted, execute_study
from sscbench.run.progress import in_flight_lines
from sscbench.study.config import parse_config
from sscbench.testing import Fail, OpenAIServer, text, tool_call

STUDY = """
[study]
repetitions = 1
concurrency = {concurrency}
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
    ``stop_after`` answers it sends SIGINT to the study (a Ctrl-C mid-run), and fails
    the request ``hold`` seconds later (a child process's run is stopped meanwhile)."""

    def __init__(self, stop_after: int | None = None, watch: Path | None = None, hold: float = 0.0):
        self.stop_after = stop_after
        self.hold = hold
        self.answered = 0
        self.lock = threading.Lock()
        self.watch = watch  # a runs folder whose journal files are counted at each call
        self.most_files = 0

    def __call__(self, body: dict) -> dict | Fail:
        with self.lock:
            stop = self.stop_after is not None and self.answered >= self.stop_after
            if stop:
                os.kill(os.getpid(), signal.SIGINT)
            else:
                self.answered += 1
        if stop:
            time.sleep(self.hold)
            return Fail(500)
        with self.lock:
            if self.watch is not None and self.watch.exists():
                files = [p for p in self.watch.iterdir() if _journal_file(p)]
                self.most_files = max(self.most_files, len(files))
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

    def study(
        self,
        model: Model,
        out: Path,
        *,
        stop: bool = False,
        concurrency: int = 1,
        executor: str | None = None,
    ) -> None:
        self.model = model
        toml = STUDY.format(url=self.server.base_url, concurrency=concurrency)
        config = parse_config(toml, self.tmp / "study.toml", base_dir=self.tmp)
        if stop:
            with pytest.raises(StudyInterrupted):
                execute_study(config, toml, out, progress=False, executor=executor)
        else:
            execute_study(config, toml, out, progress=False, executor=executor)


def _journal_file(path: Path) -> bool:
    return path.name.endswith((BOOK_SUFFIX, SUFFIX))


def _journals(out: Path) -> list[Path]:
    return sorted(p for p in (out / "runs").iterdir() if _journal_file(p))


def _book_rows(out: Path) -> list[dict]:
    """Every line of the study's journal books after their headers."""
    rows = []
    for path in _journals(out):
        rows.extend(json.loads(line) for line in path.read_text().splitlines()[1:])
    return rows


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


def _in_flight(out: Path) -> tuple[str, list[dict]]:
    """The one run in flight when the study stopped (concurrency 1) and its book lines."""
    done = {json.loads(line)["run_id"] for line in (out / "index.jsonl").read_text().splitlines()}
    rows = [row for row in _book_rows(out) if row["run"] not in done]
    (run_id,) = {row["run"] for row in rows}
    assert not (out / "runs" / f"{run_id}.ledger.jsonl").exists()  # not recorded yet
    return run_id, rows


def test_an_interrupted_run_continues_from_its_journal(tmp_path, endpoint, uninterrupted):
    files, total = uninterrupted
    first = Model(stop_after=total // 2 + 1)
    out = tmp_path / "out"
    endpoint.study(first, out, stop=True)
    assert len(_journals(out)) == 1  # one book for the process's runs
    _run_id, rows = _in_flight(out)
    assert [row["keep"] for row in rows if "keep" in row] == [0]  # its making began live
    assert sum("request_sha256" in row for row in rows) >= 2, "it kept its answers"

    second = Model()
    endpoint.study(second, out)
    # the journal answered its requests: every answer was asked of the model once
    assert first.answered + second.answered == total
    assert _journals(out) == []  # a finished study leaves no journal file
    assert _files(out) == files  # byte-identical to the uninterrupted study


def test_an_interrupted_study_in_child_processes_continues_from_their_books(
    tmp_path, endpoint, uninterrupted
):
    files, total = uninterrupted
    first = Model(stop_after=total // 2 + 1, hold=3.0)  # the parent stops, then children
    out = tmp_path / "out"
    endpoint.study(first, out, stop=True, executor="processes")
    _run_id, rows = _in_flight(out)
    assert sum("request_sha256" in row for row in rows) >= 2, "the child kept its answers"
    second = Model()
    endpoint.study(second, out, executor="processes")
    assert first.answered + second.answered == total
    assert _files(out) == files
    assert _journals(out) == []


def test_no_file_is_made_per_run_and_none_is_left(tmp_path, endpoint):
    out = tmp_path / "out"
    model = Model(watch=out / "runs")
    endpoint.study(model, out, concurrency=4)
    assert model.answered > 8
    assert model.most_files == 1  # runs in flight side by side share one book
    assert _journals(out) == []


def test_a_journal_that_stops_fitting_says_so_and_goes_live(
    tmp_path, endpoint, uninterrupted, capsys
):
    files, total = uninterrupted
    first = Model(stop_after=total // 2 + 1)
    out = tmp_path / "out"
    endpoint.study(first, out, stop=True)
    run_id, rows = _in_flight(out)
    answers = [row for row in rows if "request_sha256" in row]
    assert len(answers) >= 2
    (book,) = _journals(out)
    changed = book.read_text().replace(answers[1]["request_sha256"], "0" * 64)
    book.write_text(changed)  # the second request no longer matches

    second = Model()
    endpoint.study(second, out)
    err = capsys.readouterr().err
    assert f"run {run_id}: its journal stops fitting at model call 2" in err
    assert first.answered + second.answered == total + (len(answers) - 1)  # only 1 reused
    assert _files(out) == files
    assert _journals(out) == []


def test_a_run_resumed_twice_replays_everything_recorded_before(tmp_path, endpoint, uninterrupted):
    files, total = uninterrupted
    first = Model(stop_after=total // 2 + 1)
    out = tmp_path / "out"
    endpoint.study(first, out, stop=True)
    second = Model(stop_after=0)  # stopped again at its first live call, after the replay
    endpoint.study(second, out, stop=True)
    assert second.answered == 0 and (out / "runs" / CARRIED).exists()
    third = Model()
    endpoint.study(third, out)
    assert first.answered + third.answered == total
    assert _files(out) == files
    assert _journals(out) == []


def test_a_study_stopped_by_an_earlier_version_continues_from_its_per_run_journal(
    tmp_path, endpoint, uninterrupted
):
    files, total = uninterrupted
    first = Model(stop_after=total // 2 + 1)
    out = tmp_path / "out"
    endpoint.study(first, out, stop=True)
    run_id, rows = _in_flight(out)
    for book in _journals(out):  # the folder as the per-run journals left it
        book.unlink()
    header = {"sscbench_journal": 1, "run_id": run_id}
    kept = [{k: v for k, v in row.items() if k not in ("run", "attempt")} for row in rows]
    lines = [header, *(row for row in kept if "keep" not in row)]
    old = out / "runs" / f"{run_id}{SUFFIX}"
    old.write_text("".join(json.dumps(line) + "\n" for line in lines))

    second = Model()
    endpoint.study(second, out)
    assert first.answered + second.answered == total
    assert _files(out) == files
    assert _journals(out) == []  # read, carried forward, removed


def test_answers_replay_across_rotated_books_and_ended_runs_books_go(
    tmp_path, endpoint, uninterrupted, monkeypatch
):
    files, total = uninterrupted
    monkeypatch.setattr(journal_book, "BOOK_BYTES", 1)  # a new file before every line
    first = Model(stop_after=total // 2 + 1)
    out = tmp_path / "out"
    endpoint.study(first, out, stop=True)
    run_id, rows = _in_flight(out)
    assert len(_journals(out)) == len(rows) >= 3  # rotated at each line
    assert {row["run"] for row in _book_rows(out)} == {run_id}  # ended runs' files deleted
    second = Model()
    endpoint.study(second, out)
    assert first.answered + second.answered == total
    assert _files(out) == files
    assert _journals(out) == []


def test_an_unusable_per_run_journal_is_refused_with_a_note(
    tmp_path, endpoint, uninterrupted, capsys
):
    files, total = uninterrupted
    first = Model(stop_after=total // 2 + 1)
    out = tmp_path / "out"
    endpoint.study(first, out, stop=True)
    run_id, _rows = _in_flight(out)
    for book in _journals(out):
        book.unlink()
    (out / "runs" / f"{run_id}{SUFFIX}").write_text('{"sscbench_journal": 1, "run_id": "other"}\n')
    second = Model()
    endpoint.study(second, out)
    err = capsys.readouterr().err
    assert f"run {run_id}: its journal cannot be used (it is the journal of run 'other')" in err
    assert _files(out) == files and _journals(out) == []


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
