"""A run's journal line is written at once and synced in the background: no run waits on
the disk's syncs, yet every line is synced and a failed sync fails the run."""

from __future__ import annotations

import asyncio
import json
import os
import threading

import pytest

from sscbench.llm import journal as journal_module
from sscbench.llm.journal import Answer, ResponseJournal, read_journal


def _answer(n: int) -> Answer:
    return Answer("agent", f"h{n}", "json", {"n": n})


def test_a_line_is_on_disk_when_record_returns_and_every_line_is_synced(tmp_path, monkeypatch):
    release = threading.Event()
    synced: list[int] = []
    real_fsync = os.fsync

    def slow_fsync(fd: int) -> None:  # a disk slow to sync: the run must not wait for it
        release.wait(5)
        synced.append(os.fstat(fd).st_size)
        real_fsync(fd)

    monkeypatch.setattr(journal_module.os, "fsync", slow_fsync)
    path = tmp_path / "r1.partial.jsonl"
    journal = ResponseJournal(path, "r1")

    async def main() -> None:
        for n in range(3):
            await asyncio.wait_for(journal.record(_answer(n)), 2)  # never held by the sync
        answers, why = read_journal(path, "r1")
        assert why is None and [a.value["n"] for a in answers] == [0, 1, 2]
        release.set()
        for _ in range(200):
            if synced and synced[-1] == path.stat().st_size and journal._sync_state == "idle":
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"the last line was never synced: {synced}")

    asyncio.run(main())
    assert len(synced) <= 3  # coalesced: a sync covers the lines written before it began
    journal.close()


def test_a_failed_sync_fails_the_runs_next_record(tmp_path, monkeypatch):
    def failing_fsync(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(journal_module.os, "fsync", failing_fsync)
    journal = ResponseJournal(tmp_path / "r2.partial.jsonl", "r2")

    async def main() -> None:
        await journal.record(_answer(0))
        for _ in range(200):
            if journal._sync_error is not None:
                break
            await asyncio.sleep(0.01)
        with pytest.raises(OSError, match="Input/output error"):
            await journal.record(_answer(1))

    asyncio.run(main())
    journal.close()


def test_a_new_journal_starts_with_its_header(tmp_path):
    path = tmp_path / "r3.partial.jsonl"
    journal = ResponseJournal(path, "r3")
    asyncio.run(journal.record(_answer(7)))
    journal.close()
    first, _line = path.read_text().splitlines()
    assert json.loads(first) == {"sscbench_journal": 1, "run_id": "r3"}
    assert read_journal(path, "r3")[0][0].value == {"n": 7}


def test_a_new_journal_is_made_off_the_event_loop_while_the_loop_goes_on(tmp_path, monkeypatch):
    import time

    real_open = os.open
    makers: list[str] = []

    def slow_create(path, flags, *args):  # a file system slow to create a file
        if flags & os.O_CREAT:
            makers.append(threading.current_thread().name)
            time.sleep(0.2)
        return real_open(path, flags, *args)

    monkeypatch.setattr(journal_module.os, "open", slow_create)
    path = tmp_path / "r5.partial.jsonl"
    ticks = [0]

    async def ticker() -> None:
        while True:
            await asyncio.sleep(0.01)
            ticks[0] += 1

    async def main() -> None:
        task = asyncio.ensure_future(ticker())
        journal = ResponseJournal(path, "r5")  # the file is made on a worker thread
        await journal.record(_answer(1))  # waits for it, the loop meanwhile free
        task.cancel()
        journal.close()

    asyncio.run(main())
    assert makers and all(name != threading.main_thread().name for name in makers)
    assert ticks[0] >= 5  # the loop ran other work while the file was being made
    answers, why = read_journal(path, "r5")
    assert why is None and [a.value["n"] for a in answers] == [1]


def test_a_journal_closed_before_any_answer_holds_its_header_alone(tmp_path):
    path = tmp_path / "r6.partial.jsonl"
    journal = ResponseJournal(path, "r6")
    journal.close()  # the run ended before its first answer (a harness error)
    assert journal._fd is None
    assert read_journal(path, "r6") == ([], None)
    again = ResponseJournal(path, "r6")  # a resumed run goes live and appends
    assert not again.resumed
    asyncio.run(again.record(_answer(2)))
    again.close()
    assert [a.value["n"] for a in read_journal(path, "r6")[0]] == [2]


def test_a_request_hashed_in_pieces_has_the_sha256_of_its_bytes():
    import hashlib

    from sscbench.llm.journal import HASH_PIECE, request_hash

    for size in (0, 1, HASH_PIECE - 1, HASH_PIECE, HASH_PIECE + 1, 3 * HASH_PIECE, 17_597):
        content = os.urandom(size)
        assert request_hash(content) == hashlib.sha256(content).hexdigest()
