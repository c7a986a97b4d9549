"""The response journals of a process's runs share one append-only book: a line per live
answer, no file or thread per run, rotated files deleted once their runs end; a resume
carries the unfinished runs' answers forward (also from earlier versions' per-run files)
and a run resumed twice still has everything recorded before."""

from __future__ import annotations

import asyncio
import json
import os
import threading
from pathlib import Path

from sscbench.llm import journal_book
from sscbench.llm.journal import Answer, JournalBook, ResponseJournal
from sscbench.llm.journal_book import BOOK_SUFFIX, CARRIED
from sscbench.llm.journal_carry import carry_forward, drop_process_books, journal_recorded


def _answer(n: int, role: str = "agent") -> Answer:
    return Answer(role, f"h{n}", "json", {"n": n})


def _books(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob(f"*{BOOK_SUFFIX}"))


def _record(journal: ResponseJournal, *numbers: int) -> None:
    async def main() -> None:
        for n in numbers:
            assert journal.answer("agent", f"h{n}") is None  # nothing recorded: live
            await journal.record(_answer(n))

    asyncio.run(main())


def _replay(journal: ResponseJournal, *numbers: int) -> list[int]:
    """Ask for requests h<n> in order; the numbers answered from the journal."""
    answered = []
    for n in numbers:
        got = journal.answer("agent", f"h{n}")
        if got is None:
            break
        answered.append(got.value["n"])
    return answered


def test_answers_of_many_runs_go_to_one_file_in_one_write_each_on_the_loop(tmp_path, monkeypatch):
    writes: list[str] = []
    real_write = os.write

    def write(fd: int, data: bytes) -> int:
        writes.append(threading.current_thread().name)
        return real_write(fd, data)

    monkeypatch.setattr(journal_book.os, "write", write)
    book = JournalBook(tmp_path)
    journals = [ResponseJournal(book, f"r{i}") for i in range(5)]
    assert list(tmp_path.iterdir()) == []  # nothing made for a run before its first answer
    for journal in journals:
        _record(journal, 1, 2)
    assert len(_books(tmp_path)) == 1  # one file for every run of the process
    assert set(writes) == {threading.main_thread().name}  # no thread per answer
    assert len(writes) == 1 + 5 * 3  # the header, then a run's first line and each answer
    rows = [json.loads(line) for line in (tmp_path / _books(tmp_path)[0]).read_text().splitlines()]
    assert rows[0] == {"sscbench_book": 1}
    assert {row["run"] for row in rows[1:]} == {f"r{i}" for i in range(5)}
    for journal in journals:
        journal.ended()
    book.close()
    assert list(tmp_path.iterdir()) == []  # every run ended: the book is gone


def test_a_resume_replays_each_runs_answers_in_order_across_a_rotation(tmp_path):
    book = JournalBook(tmp_path, limit=1)  # a new file before every line
    first, second = ResponseJournal(book, "a"), ResponseJournal(book, "b")
    for n in range(4):
        _record(first, n)
        _record(second, 10 + n)
    book.close()  # killed: neither run ended
    assert len(_books(tmp_path)) == 10  # a file per line (a first line and 4 answers a run)
    assert carry_forward(tmp_path, finished=set()) == []
    assert _books(tmp_path) == [CARRIED]  # the books absorbed into one file
    again = JournalBook(tmp_path)
    resumed = ResponseJournal(again, "a")
    assert resumed.resumed and _replay(resumed, 0, 1, 2, 3, 4) == [0, 1, 2, 3]
    assert resumed.replayed == 4 and resumed.calls == 5  # the fifth goes live
    assert _replay(ResponseJournal(again, "b"), 10, 11, 12, 13) == [10, 11, 12, 13]
    assert ResponseJournal(again, "c").pending == []


def test_a_rotated_book_is_deleted_once_every_run_with_a_line_in_it_ended(tmp_path):
    book = JournalBook(tmp_path, limit=1)
    a, b, c = (ResponseJournal(book, run) for run in "abc")
    _record(a, 1)
    _record(b, 2)  # its first line and answer rotate into files of their own
    first = _books(tmp_path)[0]
    _record(a, 3)
    _record(c, 4)
    b.ended()
    assert first in _books(tmp_path)  # run a has lines in it and has not ended
    a.ended()
    assert first not in _books(tmp_path)  # all its runs ended: deleted
    left = _books(tmp_path)
    assert left and all(name.startswith(book.stem) for name in left)
    book.close()  # run c still in flight (a kill or Ctrl-C): its lines are kept
    assert _books(tmp_path) and carry_forward(tmp_path, set()) == []
    assert _replay(ResponseJournal(JournalBook(tmp_path), "c"), 4) == [4]


def test_a_mismatch_is_a_line_of_the_book_and_the_reader_cuts_there(tmp_path):
    book = JournalBook(tmp_path)
    _record(ResponseJournal(book, "r"), 1, 2, 3)
    book.close()
    carry_forward(tmp_path, set())
    carried = (tmp_path / CARRIED).read_bytes()
    notes: list[str] = []
    book = JournalBook(tmp_path)
    journal = ResponseJournal(book, "r", notes.append)
    assert _replay(journal, 1, 9) == [1]  # the second request differs
    assert notes == [
        "run r: its journal stops fitting at model call 2 (the agent request differs "
        "from the recorded agent request); continuing live from there"
    ]
    assert (tmp_path / CARRIED).read_bytes() == carried  # no shared file rewritten
    (mine,) = (p for p in tmp_path.glob(f"*{BOOK_SUFFIX}") if p.name != CARRIED)
    cut = json.loads(mine.read_text().splitlines()[1])
    assert cut["run"] == "r" and cut["keep"] == 1
    asyncio.run(journal.record(_answer(9)))
    book.close()
    carry_forward(tmp_path, set())
    resumed = ResponseJournal(JournalBook(tmp_path), "r")
    assert _replay(resumed, 1, 9, 10) == [1, 9]  # kept one, then the new making's own


def test_a_run_resumed_twice_keeps_everything_recorded_before(tmp_path):
    book = JournalBook(tmp_path)
    _record(ResponseJournal(book, "r"), 1, 2, 3)
    book.close()  # killed
    carry_forward(tmp_path, set())
    second = ResponseJournal(JournalBook(tmp_path), "r")
    assert _replay(second, 1) == [1]  # killed again mid-replay: nothing written
    carry_forward(tmp_path, set())
    book = JournalBook(tmp_path)
    third = ResponseJournal(book, "r")
    assert _replay(third, 1, 2, 3, 4) == [1, 2, 3]
    asyncio.run(third.record(_answer(4)))  # live after the replay, then killed again
    book.close()
    carry_forward(tmp_path, set())
    fourth = ResponseJournal(JournalBook(tmp_path), "r")
    assert _replay(fourth, 1, 2, 3, 4, 5) == [1, 2, 3, 4]


def test_a_run_made_again_in_another_process_keeps_one_making(tmp_path):
    lost, other = JournalBook(tmp_path), JournalBook(tmp_path)
    _record(ResponseJournal(lost, "r"), 1, 2)  # a child killed mid-run
    _record(ResponseJournal(other, "r"), 1, 5, 6)  # the run made again elsewhere
    for book in (lost, other):
        book.close()
    carry_forward(tmp_path, set())
    assert _replay(ResponseJournal(JournalBook(tmp_path), "r"), 1, 5, 6) == [1, 5, 6]


def test_old_per_run_journals_are_carried_forward_then_removed(tmp_path):
    header = {"sscbench_journal": 1, "run_id": "old"}
    lines = [header, *(_answer(n).fields() for n in (1, 2))]
    (tmp_path / "old.partial.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    (tmp_path / "done.partial.jsonl").write_text(json.dumps(header | {"run_id": "done"}) + "\n")
    (tmp_path / "bad.partial.jsonl").write_text('{"sscbench_journal": 1, "run_id": "x"}\n')
    notes = carry_forward(tmp_path, finished={"done"})
    assert notes == [
        "run bad: its journal cannot be used (it is the journal of run 'x'); running it live"
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == [CARRIED]
    assert _replay(ResponseJournal(JournalBook(tmp_path), "old"), 1, 2, 3) == [1, 2]


def test_finished_runs_are_left_out_and_the_carried_file_goes_once_its_runs_are_recorded(
    tmp_path,
):
    book = JournalBook(tmp_path)
    for run in ("a", "b", "c"):
        _record(ResponseJournal(book, run), 1)
    book.close()
    carry_forward(tmp_path, finished={"c"})
    rows = [json.loads(line) for line in (tmp_path / CARRIED).read_text().splitlines()]
    assert {row["run"] for row in rows[1:]} == {"a", "b"}
    journal_recorded(tmp_path, "a")
    assert (tmp_path / CARRIED).exists()  # run b is not recorded yet
    journal_recorded(tmp_path, "b")
    assert list(tmp_path.iterdir()) == []  # every carried run recorded


def test_files_a_kill_left_after_the_carried_file_was_written_are_removed_unread(tmp_path):
    book = JournalBook(tmp_path)
    _record(ResponseJournal(book, "r"), 1, 2)
    book.close()
    (name,) = _books(tmp_path)
    kept = (tmp_path / name).read_bytes()
    carry_forward(tmp_path, set())
    (tmp_path / name).write_bytes(kept)  # as if killed before the absorbed file's removal
    carry_forward(tmp_path, set())
    assert _books(tmp_path) == [CARRIED]
    assert _replay(ResponseJournal(JournalBook(tmp_path), "r"), 1, 2, 3) == [1, 2]


def test_a_torn_last_line_is_skipped_and_a_lost_process_books_dropped(tmp_path):
    book = JournalBook(tmp_path)
    _record(ResponseJournal(book, "r"), 1, 2)
    book.close()
    (name,) = _books(tmp_path)
    with (tmp_path / name).open("ab") as handle:
        handle.write(b'{"run": "r", "attempt": "x", "ro')  # cut by a kill
    carry_forward(tmp_path, set())
    assert _replay(ResponseJournal(JournalBook(tmp_path), "r"), 1, 2, 3) == [1, 2]
    lost = JournalBook(tmp_path)
    _record(ResponseJournal(lost, "s"), 1)
    drop_process_books(tmp_path, os.getpid())
    assert _books(tmp_path) == [CARRIED]


BODIES = [
    b'{"id":"c1","choices":[{"message":{"content":"caf\\u00e9","role":"assistant"}}]}',
    '{"choices":[{"message":{"content":"café ✓"}}],"n":1.5e3}'.encode(),
    b'  {"a": [1, 2, {"b": null}], "c": -0.0}  ',
]
"""Bodies written as they arrived: ASCII with escapes, UTF-8, JSON's outer whitespace."""
ENCODED_AGAIN = [
    b'{"a":\n1}',  # a line break: the line would split
    '{"a":"x"}'.encode("utf-16"),  # UTF-16 (NUL bytes), which the decoder also reads
    '\ufeff{"a":"x"}'.encode(),  # a byte order mark
    '{"a":"\u2028"}'.encode(),  # a line break json_safe escapes
    b'{"a":"\xed\xa0\x80"}',  # a lone surrogate (read with surrogatepass)
]
"""Bodies whose value is encoded again, as every line's was before."""


def test_a_json_body_is_written_as_it_arrived_and_reads_back_as_its_value(tmp_path):
    book = JournalBook(tmp_path)
    journal = ResponseJournal(book, "r1")
    bodies = BODIES + ENCODED_AGAIN
    values = [json.loads(body) for body in bodies]

    async def main() -> None:
        for n, (body, value) in enumerate(zip(bodies, values, strict=True)):
            assert journal.answer("agent", f"h{n}") is None
            await journal.record(Answer("agent", f"h{n}", "json", value, 1, 0, body=body))

    asyncio.run(main())
    book.close()  # killed: the run did not end
    data = (tmp_path / _books(tmp_path)[0]).read_bytes()
    assert [body in data for body in bodies] == [True] * 3 + [False] * 5
    assert data.count(b"\n") == 2 + len(bodies)  # the header, the run's first line, answers
    assert carry_forward(tmp_path, finished=set()) == []
    resumed = ResponseJournal(JournalBook(tmp_path), "r1")
    for n, value in enumerate(values):
        got = resumed.answer("agent", f"h{n}")
        assert got is not None and got.value == value and got.retries == 1
