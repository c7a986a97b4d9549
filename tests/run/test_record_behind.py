"""A run is recorded behind its worker: the worker's next unit starts while the record is
written, index lines keep their order (a faulted run after its clean run), the study
waits for every record and counts it, and a record that fails is raised."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path

import pytest

from sscbench.core.ledger import UserEvent
from sscbench.run import executor
from sscbench.run.episodes import EpisodeMaker
from sscbench.run.writer import RunWriter
from sscbench.study.config import load_config
from sscbench.study.folder import IndexEntry, StudyDir

CONFIG = """
[study]
seed = 5
repetitions = 1
concurrency = {concurrency}
store = "{store}"
[world]
source = "generated"
domains = ["airline"]
[cases]
operators = ["SuppressWrite"]
per_operator = 3
[[agents]]
id = "t"
profile = "trusting"
[[agents]]
id = "r"
profile = "readback"
"""


def _offloading(monkeypatch) -> None:
    """The executor's writer offloads, as for a study that calls a model (the roles here
    are scripted, so the runs are quick and the order is the code's)."""
    real = executor.RunWriter

    def make(store: StudyDir, **kwargs) -> RunWriter:
        return real(store, **{**kwargs, "offload": True})

    monkeypatch.setattr(executor, "RunWriter", make)


def _events(monkeypatch, slow_index: float = 0.0, slow_clean_text: float = 0.0) -> list:
    """Log each run made (on the loop) and each index line written (on the writer's
    thread, after sleeping ``slow_index``; a clean run's text after ``slow_clean_text``)."""
    events: list[tuple[str, str]] = []
    make, append, write = EpisodeMaker.make, StudyDir.append_index, StudyDir.write_run

    async def made(self, unit, kind, run_id):
        output = await make(self, unit, kind, run_id)
        events.append(("made", run_id))
        return output

    def indexed(self, entry: IndexEntry) -> None:
        time.sleep(slow_index)
        append(self, entry)
        events.append(("indexed", entry.run_id))

    def text(self, run_id, ledger, evaluator):
        if run_id.endswith("--clean"):
            time.sleep(slow_clean_text)
        return write(self, run_id, ledger, evaluator)

    monkeypatch.setattr(EpisodeMaker, "make", made)
    monkeypatch.setattr(StudyDir, "append_index", indexed)
    monkeypatch.setattr(StudyDir, "write_run", text)
    return events


def _run(
    tmp_path: Path, concurrency: int, store: str = "files"
) -> tuple[executor.StudySummary, list[dict]]:
    path = tmp_path / "study.toml"
    path.write_text(CONFIG.format(concurrency=concurrency, store=store))
    config, text = load_config(path)
    summary = executor.execute_study(config, text, tmp_path / "out", progress=False)
    lines = (tmp_path / "out" / "index.jsonl").read_text().splitlines()
    return summary, [json.loads(line) for line in lines]


def test_a_worker_starts_its_next_run_before_the_last_one_is_recorded(tmp_path, monkeypatch):
    _offloading(monkeypatch)
    events = _events(monkeypatch, slow_index=0.05)
    summary, index = _run(tmp_path, concurrency=1)
    first_indexed = events.index(next(e for e in events if e[0] == "indexed"))
    made_before = [e for e in events[:first_indexed] if e[0] == "made"]
    assert len(made_before) >= 2  # one worker: its second run began before the first's line
    # every run asked to be recorded is in the index when the study returns, and counted
    assert len(index) == summary.finished_runs == summary.executed_now > 2
    assert [e[1] for e in events if e[0] == "indexed"] == [row["run_id"] for row in index]


def test_a_faulted_runs_line_follows_its_clean_runs_under_a_slow_clean_record(
    tmp_path, monkeypatch
):
    _offloading(monkeypatch)
    events = _events(monkeypatch, slow_clean_text=0.05)
    summary, index = _run(tmp_path, concurrency=4)
    where = {row["run_id"]: n for n, row in enumerate(index)}
    faulted = [row for row in index if row["kind"] == "faulted"]
    assert faulted and len(where) == len(index) == summary.finished_runs
    for row in faulted:
        assert where[row["clean_run_id"]] < where[row["run_id"]], row["run_id"]
    # the faulted runs were made while their clean runs' records were still being written
    made = [n for n, e in enumerate(events) if e[0] == "made" and e[1].endswith("--faulted")]
    first_clean_line = next(n for n, e in enumerate(events) if e[0] == "indexed")
    assert made and made[0] < first_clean_line


@pytest.mark.parametrize("store", ["files", "shards"])
def test_the_index_timings_and_shard_are_opened_once_an_invocation(tmp_path, monkeypatch, store):
    opened: list[str] = []
    real = __import__("os").open

    def counting(path, *args, **kwargs):
        opened.append(Path(path).name)
        return real(path, *args, **kwargs)

    monkeypatch.setattr("os.open", counting)
    summary, index = _run(tmp_path, concurrency=2, store=store)
    assert len(index) == summary.finished_runs > 4
    assert opened.count("index.jsonl") == 1
    assert opened.count("timings.jsonl") == 1
    shards = [name for name in opened if name.endswith(".shard")]
    assert shards == (["shard-000000.shard"] if store == "shards" else [])


def _entry(run_id: str, digests: tuple[str, str] = ("a", "b")) -> IndexEntry:
    return IndexEntry(
        run_id=run_id,
        case_id="c",
        config_id="a",
        repetition=0,
        kind="clean",
        status="completed",
        ledger_sha256=digests[0],
        evaluator_sha256=digests[1],
    )


def _store(tmp_path: Path) -> StudyDir:
    store = StudyDir(tmp_path / "s")
    store.runs.mkdir(parents=True)
    return store


def test_records_wait_for_room_and_drain_waits_for_every_record(tmp_path, monkeypatch):
    store = _store(tmp_path)
    gate = threading.Event()
    append = StudyDir.append_index

    def gated(self, entry):
        gate.wait(5)
        append(self, entry)

    monkeypatch.setattr(StudyDir, "append_index", gated)
    counted: list[str] = []

    async def main() -> list[str]:
        writer = RunWriter(store, pending=2, hold_files=True)
        ledger = [UserEvent(step=0, content="hi")]
        for i in range(2):  # room for two: asked for at once, written behind
            await writer.record_run(f"r{i}", ledger, [], 0.1, _entry_of(f"r{i}"), None, ok)
        third = asyncio.ensure_future(
            writer.record_run("r2", ledger, [], 0.1, _entry_of("r2"), None, ok)
        )
        await asyncio.sleep(0.05)
        steps = [f"pending {writer.pending}, third asked {third.done()}"]
        gate.set()
        await third
        await writer.drain()
        steps.append(f"pending {writer.pending}, counted {len(counted)}")
        await writer.aclose()
        return steps

    def ok(entry: IndexEntry) -> None:
        counted.append(entry.run_id)

    assert asyncio.run(main()) == ["pending 2, third asked False", "pending 0, counted 3"]
    assert counted == ["r0", "r1", "r2"]
    lines = store.index.read_text().splitlines()
    assert [json.loads(line)["run_id"] for line in lines] == ["r0", "r1", "r2"]


def _entry_of(run_id: str):
    return lambda digests: _entry(run_id, digests)


def test_a_failed_record_is_raised_and_stops_the_records_after_it(tmp_path, monkeypatch):
    store = _store(tmp_path)
    append = StudyDir.append_index

    def failing(self, entry):
        if entry.run_id == "bad":
            raise OSError(28, "No space left on device")
        append(self, entry)  # not reached for "good": asked for after "bad"

    monkeypatch.setattr(StudyDir, "append_index", failing)

    async def main() -> None:
        writer = RunWriter(store, pending=4)
        try:
            await writer.record_entry(_entry("bad"))
            await writer.record_entry(_entry("good"))
            with pytest.raises(OSError, match="No space"):
                await writer.drain()
            with pytest.raises(OSError, match="No space"):
                await writer.record_entry(_entry("later"))
        finally:
            await writer.aclose()

    asyncio.run(main())
    assert not store.index.exists()  # nothing is written after a record that failed


def test_held_index_is_let_go_when_the_index_is_replaced(tmp_path):
    store = _store(tmp_path)
    store.hold_files()
    store.append_index(_entry("a"))
    store.rewrite_index([_entry("b")])  # a new file under the name: the held one closed
    store.append_index(_entry("c"))
    store.close_files()
    assert [json.loads(x)["run_id"] for x in store.index.read_text().splitlines()] == ["b", "c"]


def test_a_signal_waits_for_the_records_under_way_and_counts_them(tmp_path, monkeypatch):
    import os
    import signal

    _offloading(monkeypatch)
    _events(monkeypatch, slow_index=0.05)
    path = tmp_path / "study.toml"
    path.write_text(CONFIG.format(concurrency=4, store="files"))
    config, text = load_config(path)
    seen: list[str] = []

    def on_run(entry: IndexEntry) -> None:
        seen.append(entry.run_id)
        if len(seen) == 2:
            os.kill(os.getpid(), signal.SIGINT)  # records are still pending behind it

    with pytest.raises(executor.StudyInterrupted) as info:
        executor.execute_study(config, text, tmp_path / "out", progress=False, on_run=on_run)
    lines = (tmp_path / "out" / "index.jsonl").read_text().splitlines()
    assert [json.loads(line)["run_id"] for line in lines] == seen
    assert info.value.summary.finished_runs == len(seen) > 2


def test_a_failed_record_stops_the_study_and_no_faulted_line_lacks_its_clean(tmp_path, monkeypatch):
    _offloading(monkeypatch)
    append = StudyDir.append_index
    lines: list[str] = []

    def failing(self, entry: IndexEntry) -> None:
        if entry.kind == "clean" and len(lines) >= 1:
            raise OSError(28, "No space left on device")
        append(self, entry)
        lines.append(entry.run_id)

    monkeypatch.setattr(StudyDir, "append_index", failing)
    path = tmp_path / "study.toml"
    path.write_text(CONFIG.format(concurrency=4, store="files"))
    config, text = load_config(path)
    with pytest.raises(OSError, match="No space"):
        executor.execute_study(config, text, tmp_path / "out", progress=False)
    index = [json.loads(x) for x in (tmp_path / "out" / "index.jsonl").read_text().splitlines()]
    cleans = {row["run_id"] for row in index if row["kind"] == "clean"}
    assert index and all(row["clean_run_id"] in cleans for row in index if row["kind"] == "faulted")
