"""Find one run in a study's index without validating every line.

``sscbench show STUDY RUN`` names one run (its id, or a unique prefix of one); a
million-run study's ``index.jsonl`` is 841 MB, and validating each of its lines as an
:class:`~sscbench.study.folder.IndexEntry` took 14 s to find one. Here the index is read
in chunks into one buffer, and only a line whose bytes could name the run is looked at: one that
holds the bytes of ``RUN`` (a JSON string without escapes is its UTF-8 bytes, so a line
without a backslash whose run id starts with ``RUN`` holds them) or any backslash (an
escape could spell them otherwise). Of those, the run id is read from the line's start
when the line starts as sscbench writes it (``{"run_id":"…"``, no escape in the id),
else from the line validated; the lines of the run finally named are validated whole.
Of the lines looked at, what is said is what :meth:`~sscbench.study.folder.StudyDir.read_index`
says: a line cut by a kill (the last, without its newline) is no run, blank lines are
skipped, a line that is not UTF-8 or not an entry is an error naming its number. A broken
line that cannot name the run is not read (``read_index`` stopped on it; ``measure`` and
every other reader of the whole index still do).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from sscbench.errors import DataError
from sscbench.study.folder import IndexEntry

CHUNK = 1 << 24
"""Bytes of the index read at a time (16 MB)."""
WRITTEN_ID = re.compile(rb'\{"run_id":"([^"\\]*)"')
"""The start of an index line as sscbench writes it: the run id first, here unescaped."""


@dataclass
class IndexSearch:
    """What the index says of the run ids that ``run`` names: the id itself, or every id
    it is a prefix of (``named``, in index order), and the lines of the run it names."""

    run: str
    named: dict[str, None] = field(default_factory=dict)
    exact: list[tuple[int, bytes]] = field(default_factory=list)  # (offset, line) of ``run``
    first: list[tuple[int, bytes]] = field(default_factory=list)  # of the first id named
    run_id: str | None = None  # the id ``run`` names: itself, or the one id it starts
    entries: tuple[IndexEntry, ...] = ()  # every line of ``run_id``, validated, in order

    @property
    def conflict(self) -> bool:
        """Whether two different lines record the run (a copy of a line counts once)."""
        return any(entry != self.entries[0] for entry in self.entries[1:])


def search_index(index: Path, run: str) -> IndexSearch:
    """The run ids of ``index`` that ``run`` names, and the validated lines of the one it
    names when it names one: ``run`` itself when it is a run id (even when it is also
    the prefix of others), else the only run id starting with ``run``."""
    found = IndexSearch(run)
    if not index.exists():
        return found
    needle = run.encode("utf-8", "surrogatepass")
    first: str | None = None
    for start, line in _lines_holding(index, (needle, b"\\")):
        run_id = _run_id(index, start, line)
        if run_id is None or not run_id.startswith(run):
            continue
        first = run_id if first is None else first
        found.named.setdefault(run_id, None)
        if run_id == first:
            found.first.append((start, line))
        if run_id == run:
            found.exact.append((start, line))
    if found.exact:
        found.run_id, lines = run, found.exact
    elif len(found.named) == 1:
        found.run_id, lines = next(iter(found.named)), found.first
    else:
        return found
    found.entries = tuple(e for at, raw in lines if (e := _entry(index, at, raw)) is not None)
    return found


def _lines_holding(index: Path, needles: tuple[bytes, ...]) -> Iterator[tuple[int, bytes]]:
    """(offset, line) of each whole line of ``index`` holding one of ``needles``, in
    order. The file is read into one buffer of :data:`CHUNK` bytes, reused: only the
    lines holding a needle are copied out (a memory map of an 841 MB index counted its
    pages in the process's memory)."""
    buf = bytearray(CHUNK)
    kept, offset = 0, 0  # a line begun in the last chunk, moved to the buffer's start
    with index.open("rb", buffering=0) as handle:
        while True:
            if kept == len(buf):
                buf.extend(bytes(len(buf)))  # a line longer than the buffer
            with memoryview(buf) as view:
                read = handle.readinto(view[kept:])
            if not read:
                return  # what is kept is a line cut by a kill: no run
            end = kept + read
            cut = buf.rfind(b"\n", 0, end) + 1
            for start in _starts(buf, cut, needles):
                yield offset + start, bytes(buf[start : buf.find(b"\n", start) + 1])
            buf[: end - cut] = buf[cut:end]
            kept, offset = end - cut, offset + cut


def _starts(data: bytearray, cut: int, needles: tuple[bytes, ...]) -> list[int]:
    """Where the lines of ``data[:cut]`` holding a needle start, in order."""
    starts: set[int] = set()
    for needle in needles:
        at = data.find(needle, 0, cut)
        while 0 <= at < cut:
            starts.add(data.rfind(b"\n", 0, at) + 1)
            at = data.find(needle, data.find(b"\n", at) + 1, cut)
    return sorted(starts)


def index_lines(index: Path, before: int | None = None) -> int:
    """How many whole lines the index holds (before byte ``before``, when given): counted
    only for a message (the number of an unreadable line, an unknown run's study)."""
    lines, read = 0, 0
    with index.open("rb") as handle:
        while block := handle.read(CHUNK):
            if before is not None and read + len(block) >= before:
                return lines + block.count(b"\n", 0, before - read)
            lines, read = lines + block.count(b"\n"), read + len(block)
    return lines


def _run_id(index: Path, start: int, line: bytes) -> str | None:
    """The run id a line records (None for a blank line): read from its start when it
    starts as sscbench writes it, else from the line validated."""
    written = WRITTEN_ID.match(line)
    if written is not None:
        try:
            return written.group(1).decode("utf-8")
        except UnicodeDecodeError:
            pass  # validated below, which names the line
    entry = _entry(index, start, line)
    return entry.run_id if entry is not None else None


def _entry(index: Path, start: int, raw: bytes) -> IndexEntry | None:
    """The line at byte ``start`` validated (None when blank), as ``read_index`` does;
    an error names the line's number."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        where = f"line {index_lines(index, start) + 1}"
        raise DataError(index, where, f"not UTF-8 (byte {exc.start})") from None
    if not line.strip():
        return None
    try:
        return IndexEntry.model_validate_json(line)
    except ValidationError as exc:
        where = f"line {index_lines(index, start) + 1}"
        raise DataError(index, where, str(exc.errors()[0]["msg"])) from exc


__all__ = ["IndexSearch", "index_lines", "search_index"]
