"""The response journals of a process's runs in flight: one append-only book, not a file per run.

Every live model answer of every run this process makes is one line of the process's
book (``runs/journal-<pid>-<start>-<n>.book.jsonl``), written with one ``os.write`` to a
file held open for appending, on the event loop: no file created per run, no hand-off to
a thread per answer, no ``fsync``. A kill of the process leaves each line whole or
absent (a torn last line is skipped by the reader); a crash of the machine may lose the
lines not yet on disk, whose requests a resumed run makes again, as for every other file
of the study (none is synced).

Lines (JSON objects, one per line, after the header ``{"sscbench_book": 1}``):

* ``{"run": R, "attempt": A, "keep": n}`` — attempt ``A`` of run ``R`` (one making of
  the run, in one process) keeps the first ``n`` answers it was resumed with and goes
  live from there: written before its first live answer, or where its recorded answers
  stop fitting (the cut, applied by the reader: no shared file is rewritten);
* ``{"run": R, "attempt": A, "role": ..., ...}`` — a live answer of that attempt
  (:class:`~sscbench.llm.journal.Answer`'s fields).

The book rotates to a new file past :data:`BOOK_BYTES`; a rotated file is deleted once
every run with a line in it has ended (its episode finished or failed: the run's output
exists, and a kill in the tenth of a second before its index line only costs the run
being made again live), and the last file when the book closes with every run ended.
A resumed study first carries the unfinished runs' answers forward into one file
(:mod:`sscbench.llm.journal_carry`), which this book reads a run's answers from
(:meth:`JournalBook.recorded`: by offset, nothing else of it held).
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Iterator
from pathlib import Path

from sscbench.jsonl import dumps_line
from sscbench.llm.journal_answer import Answer, parse_answer
from sscbench.reading import loads_json

BOOK_FORMAT = 1
BOOK_SUFFIX = ".book.jsonl"
CARRIED = f"journal-carried{BOOK_SUFFIX}"
"""The one file a resumed study's unfinished runs' answers are carried forward into."""

BOOK_BYTES = 64 << 20
"""Size past which a book goes on in a new file (the old one deleted once its runs end)."""


def book_header(**fields: object) -> bytes:
    """A book file's first line."""
    return (dumps_line({"sscbench_book": BOOK_FORMAT, **fields}) + "\n").encode()


def book_lines(path: Path) -> Iterator[tuple[int, int, dict]]:
    """A book's lines after its header, streamed: (offset, end, row) for each whole line,
    up to the first that is torn or not a JSON object (a kill cuts only the last line;
    a crash of the machine may leave garbage, after which nothing is trusted). A file
    whose first line is not a book header yields nothing."""
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        return
    with handle:
        first = handle.readline()
        if not _is_header(first):
            return
        offset = len(first)
        for raw in handle:
            if not raw.endswith(b"\n"):
                return
            try:
                row = loads_json(raw)
            except ValueError:
                return
            if not isinstance(row, dict) or not isinstance(row.get("run"), str):
                return
            yield offset, offset + len(raw), row
            offset += len(raw)


def book_header_of(path: Path) -> dict | None:
    """A book file's header (None: not a book, or unreadable)."""
    try:
        with path.open("rb") as handle:
            first = handle.readline()
    except OSError:
        return None
    return loads_json(first) if _is_header(first) else None


def _is_header(line: bytes) -> bool:
    if not line.endswith(b"\n"):
        return False
    try:
        row = loads_json(line)
    except ValueError:
        return False
    return isinstance(row, dict) and row.get("sscbench_book") == BOOK_FORMAT


class JournalBook:
    """The book of one process's runs: appends their live answers, reads the answers a
    resumed study carried forward for them, and deletes its files whose runs all ended."""

    def __init__(self, folder: Path, limit: int | None = None):
        self.folder = folder
        self.limit = BOOK_BYTES if limit is None else limit
        self.stem = f"journal-{os.getpid()}-{time.time_ns():x}"  # unique per process start
        self.path: Path | None = None  # the file being appended to
        self._numbers = itertools.count(1)
        self._attempts = itertools.count(1)
        self._fd: int | None = None
        self._size = 0
        self._open: dict[Path, set[str]] = {}  # each file written: its runs not ended yet
        self._carried: dict[str, tuple[int, int]] | None = None  # run -> its lines' span

    def attempt(self) -> str:
        """A name for one making of a run, unique across processes and invocations."""
        return f"{self.stem[len('journal-') :]}.{next(self._attempts)}"

    def recorded(self, run_id: str) -> list[Answer]:
        """The answers the resumed study carried forward for ``run_id``, in order (read
        from the carried file by offset; the carried runs' spans are indexed once)."""
        if self._carried is None:
            self._carried = {}
            for start, end, row in book_lines(self.folder / CARRIED):
                span = self._carried.get(row["run"])
                self._carried[row["run"]] = (span[0] if span else start, end)
        span = self._carried.pop(run_id, None)
        if span is None:
            return []
        with (self.folder / CARRIED).open("rb") as handle:
            handle.seek(span[0])
            data = handle.read(span[1] - span[0])
        answers = []
        for raw in data.splitlines():
            answer = parse_answer(loads_json(raw))
            if answer is None:
                break
            answers.append(answer)
        return answers

    def write(self, run_id: str, row: dict) -> None:
        """Append one line for ``run_id`` holding ``row`` (:meth:`write_line`)."""
        self.write_line(run_id, (dumps_line({"run": run_id, **row}) + "\n").encode("utf-8"))

    def write_line(self, run_id: str, data: bytes) -> None:
        """Append one whole line for ``run_id`` (its bytes, ending in a newline): one
        ``os.write`` to the file held open (rotated first past the size limit)."""
        if self._fd is None or self._size >= self.limit:
            self._rotate()
        assert self._fd is not None and self.path is not None
        view = memoryview(data)
        while view:  # a regular file takes the whole line but on a full disk
            view = view[os.write(self._fd, view) :]
        self._size += len(data)
        self._open[self.path].add(run_id)

    def _rotate(self) -> None:
        """Go on in a new file (its header first); the old one is deleted now when all
        its runs ended, else when the last of them does (:meth:`ended`)."""
        self._close_file()
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"{self.stem}-{next(self._numbers):06d}{BOOK_SUFFIX}"
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL
        self._fd = os.open(path, flags, 0o644)
        header = book_header()
        os.write(self._fd, header)
        self.path, self._size = path, len(header)
        self._open[path] = set()

    def ended(self, run_id: str) -> None:
        """The run's episode ended (finished or failed): its lines are needed no more,
        so a rotated file whose runs have all ended is deleted."""
        for path, runs in list(self._open.items()):
            runs.discard(run_id)
            if not runs and path != self.path:
                self._drop(path)

    def _drop(self, path: Path) -> None:
        del self._open[path]
        path.unlink(missing_ok=True)

    def _close_file(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        path, self.path = self.path, None
        if path is not None and not self._open.get(path, True):
            self._drop(path)

    def close(self) -> None:
        """Close the file; each file whose runs all ended is deleted (a study that ran
        to its end leaves none), the others are kept for a resume to carry forward."""
        self._close_file()
        for path, runs in list(self._open.items()):
            if not runs:
                self._drop(path)


__all__ = [
    "BOOK_BYTES",
    "BOOK_SUFFIX",
    "CARRIED",
    "JournalBook",
    "book_header",
    "book_header_of",
    "book_lines",
]
