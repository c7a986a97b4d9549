"""The study folder's writer: off the event loop for model studies, the same bytes and
order as in line, and a record whose caller is cancelled is still whole."""

from __future__ import annotations

import asyncio
import threading

from sscbench.core.ledger import UserEvent
from sscbench.llm.journal import Answer, JournalBook, ResponseJournal
from sscbench.llm.journal_book import CARRIED
from sscbench.llm.journal_carry import carry_forward
from sscbench.run.writer import RunWriter
from sscbench.study.folder import IndexEntry, StudyDir


def _entry(run_id: str, digests: tuple[str, str]) -> IndexEntry:
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


def _study(tmp_path, name: str, offload: bool) -> StudyDir:
    store = StudyDir(tmp_path / name)
    store.runs.mkdir(parents=True)
    writer = RunWriter(store, offload=offload)

    async def record(i: int) -> None:
        ledger = [UserEvent(step=0, content=f"hello {i}")]
        journal = f"r{i}" if i % 2 else None  # a carried run may be recorded unmade
        entry_of = lambda digests: _entry(f"r{i}", digests)  # noqa: E731
        await (await writer.record_run(f"r{i}", ledger, [], 0.5, entry_of, journal))

    async def main() -> None:
        book = JournalBook(store.runs)  # the runs' answers, carried forward by a resume
        for i in range(6):
            await ResponseJournal(book, f"r{i}").record(Answer("agent", "h", "json", i))
        book.close()
        carry_forward(store.runs, finished=set())
        assert (store.runs / CARRIED).exists()
        for i in range(6):  # one after another: the order is the callers'
            await record(i)
        await writer.aclose()

    asyncio.run(main())
    return store


def test_offloaded_writes_are_the_in_line_writes_byte_for_byte(tmp_path):
    inline, offloaded = _study(tmp_path, "inline", False), _study(tmp_path, "thread", True)
    for name in ("index.jsonl", "timings.jsonl"):
        assert (offloaded.root / name).read_bytes() == (inline.root / name).read_bytes()
    files = sorted(p.name for p in inline.runs.iterdir())
    assert files == sorted(p.name for p in offloaded.runs.iterdir())
    assert not any(name.endswith(".book.jsonl") for name in files)  # all runs recorded
    for name in files:
        assert (offloaded.runs / name).read_bytes() == (inline.runs / name).read_bytes()


def test_writes_happen_off_the_event_loop_thread(tmp_path, monkeypatch):
    store = StudyDir(tmp_path / "s")
    store.runs.mkdir(parents=True)
    threads: list[str] = []
    real = StudyDir.append_index

    def spy(self: StudyDir, entry: IndexEntry) -> None:
        threads.append(threading.current_thread().name)
        real(self, entry)

    monkeypatch.setattr(StudyDir, "append_index", spy)

    async def main() -> None:
        writer = RunWriter(store)
        await (await writer.record_entry(_entry("r", ("a", "b"))))
        await writer.aclose()
        inline = RunWriter(store, offload=False)
        await (await inline.record_entry(_entry("s", ("a", "b"))))

    asyncio.run(main())
    assert threads[0].startswith("sscbench-index") and threads[1] == "MainThread"
