"""A resumed study's unfinished runs' answers, carried forward into one file before any run starts.

The books of the invocations before (:mod:`sscbench.llm.journal_book`), the file carried
forward by the one before them and the per-run journals of earlier versions
(``runs/<run-id>.partial.jsonl``) are read once, streamed, keeping only the runs not
finished (``finished``: the index's); each unfinished run's answers are resolved (the
answers it was resumed with, cut where its latest making said to keep fewer, then that
making's own) and written, grouped by run, into ``runs/journal-carried.book.jsonl``
atomically (a temporary file renamed over it), whose header names the files it absorbed;
those are then removed (a kill before that: the next resume removes them unread). Every
process making runs reads a run's answers from that one file by offset
(:meth:`~sscbench.llm.journal_book.JournalBook.recorded`), and its new answers go to its
own book: a run resumed twice (killed again mid-replay) still has everything recorded
before. The carried file is deleted once each run it holds is recorded
(:func:`journal_recorded`, the study's writer's call after the run's index line).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Container
from dataclasses import dataclass, field
from pathlib import Path

from sscbench.core.files import atomic_path
from sscbench.jsonl import dumps_line
from sscbench.llm.journal_answer import SUFFIX, Answer, parse_answer, read_journal
from sscbench.llm.journal_book import BOOK_SUFFIX, CARRIED, book_header, book_header_of, book_lines


@dataclass
class _Run:
    """What the files hold for one unfinished run: the answers it was last resumed with
    (``base``) and each making since (attempt -> answers kept of ``base``, its own)."""

    base: list[Answer] = field(default_factory=list)
    attempts: dict[str, tuple[int, list[Answer]]] = field(default_factory=dict)

    def answers(self) -> list[Answer]:
        """The run's answers: its making that got furthest (each is one consistent
        sequence; a making replaces the base from where it cut it), else the base."""
        if not self.attempts:
            return self.base
        keep, own = max(self.attempts.values(), key=lambda a: a[0] + len(a[1]))
        return self.base[:keep] + own


def carry_forward(folder: Path, finished: Container[str]) -> list[str]:
    """Carry the unfinished runs' answers forward into the one carried file (none when
    no run has any) and remove the files read; returns the notes of per-run journals
    that could not be used (one line each)."""
    if not folder.is_dir():
        return []
    carried = folder / CARRIED
    header = book_header_of(carried) or {}
    for name in header.get("carried", []):  # absorbed before a kill cut their removal
        (folder / Path(str(name)).name).unlink(missing_ok=True)
    runs: dict[str, _Run] = {}
    for _start, _end, row in book_lines(carried):
        answer = parse_answer(row)
        if answer is not None and row["run"] not in finished:
            runs.setdefault(row["run"], _Run()).base.append(answer)
    notes: list[str] = []
    partials = sorted(folder.glob(f"*{SUFFIX}"))
    for path in partials:
        run_id = path.name[: -len(SUFFIX)]
        if run_id in finished or run_id in runs:
            continue
        answers, why = read_journal(path, run_id)
        if why is not None:
            notes.append(f"run {run_id}: its journal cannot be used ({why}); running it live")
        elif answers:
            runs[run_id] = _Run(base=answers)
    books = sorted(p for p in folder.glob(f"journal-*{BOOK_SUFFIX}") if p.name != CARRIED)
    for path in books:
        _read_book(path, finished, runs)
    absorbed = [p.name for p in (*partials, *books)]
    resolved = {run_id: state.answers() for run_id, state in runs.items()}
    resolved = {run_id: answers for run_id, answers in resolved.items() if answers}
    if resolved:
        with atomic_path(carried) as tmp, tmp.open("wb") as out:
            out.write(book_header(carried=absorbed))
            for run_id, answers in resolved.items():
                for answer in answers:
                    line = dumps_line({"run": run_id, **answer.fields()})
                    out.write(f"{line}\n".encode())
    else:
        carried.unlink(missing_ok=True)
    for name in absorbed:
        (folder / name).unlink(missing_ok=True)
    with _LOCK:
        if resolved:
            _CARRIED[os.path.abspath(folder)] = set(resolved)
        else:
            _CARRIED.pop(os.path.abspath(folder), None)
    return notes


def _read_book(path: Path, finished: Container[str], runs: dict[str, _Run]) -> None:
    """Add a book's lines of unfinished runs to ``runs`` (a making's answers follow its
    first line in the same process's books, read in their order; answers of a making
    whose first line is gone belong to a run that ended, and are left out)."""
    for _start, _end, row in book_lines(path):
        run_id, attempt = row["run"], row.get("attempt")
        if run_id in finished or not isinstance(attempt, str):
            continue
        if "keep" in row:
            keep = row["keep"]
            if isinstance(keep, int) and keep >= 0:
                runs.setdefault(run_id, _Run()).attempts[attempt] = (keep, [])
            continue
        state = runs.get(run_id)
        answer = parse_answer(row)
        if state is not None and attempt in state.attempts and answer is not None:
            state.attempts[attempt][1].append(answer)


_LOCK = threading.Lock()
_CARRIED: dict[str, set[str]] = {}  # runs folder -> its carried runs not recorded yet


def journal_recorded(folder: Path, run_id: str) -> None:
    """A run's index line is written: once every run carried forward into ``folder`` is
    recorded, the carried file is deleted (called on the study writer's thread)."""
    if not _CARRIED:
        return
    key = os.path.abspath(folder)
    with _LOCK:
        runs = _CARRIED.get(key)
        if runs is None or run_id not in runs:
            return
        runs.discard(run_id)
        if runs:
            return
        del _CARRIED[key]
    (folder / CARRIED).unlink(missing_ok=True)


def drop_process_books(folder: Path, pid: int) -> None:
    """Remove the books of a process that died (a child of the process executor): its
    runs in flight are made again from the carried answers by another process, so its
    lines would only serve a resume after yet another kill (which then makes them live)."""
    for path in folder.glob(f"journal-{pid}-*{BOOK_SUFFIX}"):
        path.unlink(missing_ok=True)


__all__ = ["carry_forward", "drop_process_books", "journal_recorded"]
