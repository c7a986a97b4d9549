"""A run's response journal: the model answers of a run in flight, kept across an interrupt.

A run is written only when it finishes, so without a journal a Ctrl-C (or a dead
endpoint, or ``kill -9``) throws away every model answer of the runs in flight. The
journal of a run (``runs/<run-id>.partial.jsonl``) gets one line per completed model
response, agent and LLM user alike, in the order the run asked for them: the role, the
sha256 of the request's bytes, the answer's body as it arrived (``json`` value or
``text``) and the retries it took. Each line is one ``write`` to a file opened for
appending (whole or absent whatever kills the process), then ``fsync``'d in the
background (:meth:`ResponseJournal.record`).

When the run is made again (``sscbench run`` resuming the study), it starts from the
beginning, deterministically: each request whose role and hash match the journal's
next line is answered from that line with no model call; the first request that
differs, or the journal's end, is where the run goes live again (a differing request
cuts the journal there and says so through ``on_note``). The run's ledger, evaluator
log and index line are then byte-identical to an uninterrupted run given the same
model answers: the same bodies are parsed the same way and the same usage (requests,
tokens, retries) is counted. The journal is removed once the run is recorded.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from sscbench.core.agent import RunContext
from sscbench.json_types import JsonValue
from sscbench.jsonl import dumps_line
from sscbench.reading import loads_json

JOURNAL_FORMAT = 1
SUFFIX = ".partial.jsonl"


HASH_PIECE = 2047
"""Bytes hashed per call: below hashlib's threshold (2,048) for letting go of the
interpreter lock, which on the event loop's thread hands it to a waiting writer or sync
thread and makes the loop wait for it back (a convoy) for a hash of a few microseconds."""


def request_hash(content: bytes) -> str:
    """The key of a request: the sha256 of the bytes sent (hashed in pieces that keep
    the interpreter lock, :data:`HASH_PIECE`; the digest is the same)."""
    digest = hashlib.sha256()
    view = memoryview(content)
    for start in range(0, len(view), HASH_PIECE):
        digest.update(view[start : start + HASH_PIECE])
    return digest.hexdigest()


@dataclass(frozen=True)
class Answer:
    """One completed model response: the body as it arrived and the retries before it."""

    role: str
    request_sha256: str
    kind: str  # "json": the decoded body; "text": a body that was not JSON
    value: JsonValue
    retries: int = 0
    rate_limited: int = 0

    def line(self) -> str:
        """The journal line of this answer."""
        return dumps_line(
            {
                "role": self.role,
                "request_sha256": self.request_sha256,
                "kind": self.kind,
                "value": self.value,
                "retries": self.retries,
                "rate_limited": self.rate_limited,
            }
        )


def _parse(line: bytes) -> Answer | None:
    """An answer line, or None for a torn or foreign line."""
    try:
        row = loads_json(line)
        answer = Answer(
            role=row["role"],
            request_sha256=row["request_sha256"],
            kind=row["kind"],
            value=row["value"],
            retries=int(row.get("retries", 0)),
            rate_limited=int(row.get("rate_limited", 0)),
        )
    except (ValueError, KeyError, TypeError):
        return None
    ok = isinstance(answer.role, str) and isinstance(answer.request_sha256, str)
    return answer if ok and answer.kind in ("json", "text") else None


def read_journal(path: Path, run_id: str) -> tuple[list[Answer], str | None]:
    """The answers a journal holds (its whole lines up to the first torn one), and why
    it cannot be used at all (None when it can, or when there is none)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return [], None
    except OSError as exc:
        return [], f"unreadable: {exc.strerror or exc}"
    lines = data.split(b"\n")[:-1]  # a last line without its newline was cut by a kill
    if not lines:
        return [], None
    try:
        header = loads_json(lines[0])
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("sscbench_journal") != JOURNAL_FORMAT:
        return [], "its first line is not a journal header of format 1"
    if header.get("run_id") != run_id:
        return [], f"it is the journal of run {header.get('run_id')!r}"
    answers = []
    for raw in lines[1:]:
        answer = _parse(raw)
        if answer is None:
            break
        answers.append(answer)
    return answers, None


class ResponseJournal:
    """The journal of one run in flight: answers its recorded requests, records new ones.

    ``calls``, ``agent_calls`` and ``replayed`` count the run's model calls so far (the
    study's progress display reads them); ``note`` is the one line saying why the
    journal stopped answering early (also passed to ``on_note``), else None.
    """

    def __init__(self, path: Path, run_id: str, on_note: Callable[[str], None] | None = None):
        self.path = path
        self.run_id = run_id
        self.on_note = on_note
        self.pending, why = read_journal(path, run_id)
        self.resumed = bool(self.pending)
        self.calls = self.agent_calls = self.replayed = 0
        self.note: str | None = None
        self._kept: list[Answer] = []  # answers replayed so far (the journal's valid prefix)
        self._fresh = why is not None or not path.exists()  # the first write starts the file
        self._fd: int | None = None
        self._sync_state = "idle"  # the background sync: idle, queued, running, again
        self._sync_lock = threading.Lock()
        self._sync_error: OSError | None = None  # a failed sync, raised by the next record
        # a new journal's file, made with its header on a worker thread while the run's
        # first request is out (creating a file costs the kernel a quarter of a
        # millisecond here, which on the event loop every run in flight would wait for)
        self._created: Future[int] | None = None
        if why is not None:
            self._say(f"run {run_id}: its journal cannot be used ({why}); running it live")
        elif self._fresh:
            self._created = _syncers().submit(self._create)
            self._fresh = False

    def _create(self) -> int:
        """Create the journal's file holding its header line (one ``write``: a kill leaves
        it absent or whole; a journal of a header alone holds no answers); its descriptor."""
        header = dumps_line({"sscbench_journal": JOURNAL_FORMAT, "run_id": self.run_id})
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL
        fd = os.open(self.path, flags, 0o644)
        try:
            os.write(fd, f"{header}\n".encode())
        except BaseException:
            os.close(fd)
            raise
        return fd

    async def _opened(self) -> None:
        """Take the descriptor of the file made in the background (waited for when it is
        not made yet: the run's first answer came back quicker than a file is created)."""
        created, self._created = self._created, None
        if created is not None:
            self._fd = created.result() if created.done() else await asyncio.wrap_future(created)

    def _say(self, note: str) -> None:
        self.note = note
        if self.on_note is not None:
            self.on_note(note)

    def answer(self, role: str, key: str) -> Answer | None:
        """The recorded answer of this request when it is the journal's next one, else
        None (the caller asks the model, then :meth:`record`\\ s the answer)."""
        self.calls += 1
        self.agent_calls += role == "agent"
        if not self.pending:
            return None
        head = self.pending[0]
        if head.role == role and head.request_sha256 == key:
            self.pending.pop(0)
            self._kept.append(head)
            self.replayed += 1
            return head
        number = len(self._kept) + 1
        self._say(
            f"run {self.run_id}: its journal stops fitting at model call {number} (the {role} "
            f"request differs from the recorded {head.role} request); continuing live from there"
        )
        self.pending = []
        self._rewrite()
        return None

    async def record(self, answer: Answer) -> None:
        """Append a live answer: one whole ``write`` (kept whatever kills the process; a
        new journal's file was made with its header when the run began). The
        file is then ``fsync``'d in the background (kept through a crash of the machine
        too, once synced: a crash before loses at most the lines not synced yet, whose
        requests a resumed run makes again), so no run waits on the disk's syncs; one
        sync covers every line written before it started (:meth:`_sync_soon`). The write
        itself stays on the event loop: an append to the page cache costs less than
        handing it to a thread that must then win the interpreter's lock back."""
        if self._sync_error is not None:
            raise self._sync_error
        if self._created is not None:
            await self._opened()
        if self.pending:  # cannot happen (answer() returned None), but never interleave
            self.pending = []
            self._rewrite()
        data = (answer.line() + "\n").encode("utf-8")
        if self._fresh and self.path.exists():  # an unusable journal: replaced atomically
            self._rewrite()
        if self._fresh:
            header = dumps_line({"sscbench_journal": JOURNAL_FORMAT, "run_id": self.run_id})
            data = f"{header}\n".encode() + data
            flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL
            self._fd = os.open(self.path, flags, 0o644)
            self._fresh = False
        elif self._fd is None:
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        os.write(self._fd, data)
        self._sync_soon()

    def _sync_soon(self) -> None:
        """Sync the file on a worker thread unless a sync that has not started yet will
        cover the line just written (one sync at a time per journal; a line written
        while one runs gets another after it)."""
        with self._sync_lock:
            if self._sync_state == "queued":
                return
            if self._sync_state == "running":
                self._sync_state = "again"
                return
            self._sync_state = "queued"
        _syncers().submit(self._sync)

    def _sync(self) -> None:
        """``fsync`` the journal until no line is left unsynced (a journal already gone:
        its run was recorded, nothing to keep). A failure fails the run's next record."""
        while True:
            with self._sync_lock:
                self._sync_state = "running"
            try:
                fd = os.open(self.path, os.O_RDONLY)
            except FileNotFoundError:
                fd = None
            except OSError as exc:
                self._sync_error, fd = exc, None
            if fd is not None:
                try:
                    os.fsync(fd)
                except OSError as exc:
                    self._sync_error = exc
                finally:
                    os.close(fd)
            with self._sync_lock:
                if self._sync_state != "again":
                    self._sync_state = "idle"
                    return

    def _rewrite(self) -> None:
        """Replace the file by its header and the answers replayed so far (atomically)."""
        self.close()
        header = dumps_line({"sscbench_journal": JOURNAL_FORMAT, "run_id": self.run_id})
        text = "".join(f"{line}\n" for line in [header, *(a.line() for a in self._kept)])
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        with open(tmp, "wb") as handle:
            handle.write(text.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, self.path)
        self._fresh = False

    def close(self) -> None:
        """Close the file (kept on disk: the run is not recorded yet); a background
        sync opens the file by its name, so it never uses this descriptor."""
        created, self._created = self._created, None
        if created is not None:  # a run that ended before its first answer: rare
            try:
                self._fd = created.result()
            except OSError:
                self._fd = None
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


_POOLS: dict[str, ThreadPoolExecutor] = {}


def _pool(name: str, threads: int) -> ThreadPoolExecutor:
    """A pool of worker threads shared by every journal of the process."""
    if name not in _POOLS:
        _POOLS[name] = ThreadPoolExecutor(threads, thread_name_prefix=f"sscbench-journal-{name}")
    return _POOLS[name]


def _syncers() -> ThreadPoolExecutor:
    """The threads journals are synced on: a few, so a disk slow to sync falls behind on
    syncing (each sync then covers more lines) rather than on anything a run waits for."""
    return _pool("sync", 4)


def run_journal(context: RunContext) -> ResponseJournal | None:
    """The response journal of the run ``context`` builds for (None: the run keeps none).
    ``core`` carries it without naming its class; a journal of another type is refused."""
    journal = context.journal
    if journal is not None and not isinstance(journal, ResponseJournal):
        raise TypeError(f"a run's journal is a ResponseJournal, not {type(journal).__name__}")
    return journal


__all__ = [
    "SUFFIX",
    "Answer",
    "ResponseJournal",
    "read_journal",
    "request_hash",
    "run_journal",
]
