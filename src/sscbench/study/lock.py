"""One writer per study folder: an exclusive lock held by the process that writes it.

The lock is ``flock`` on ``STUDY/sscbench.lock``, which also holds who took it (pid,
host, start time) so that a second writer is told who holds the folder. The kernel
drops an ``flock`` when its holder dies, so the lock of a dead process (killed, or
crashed) is stale by construction: the next writer takes it over and says so.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sscbench.errors import DataError
from sscbench.json_types import JsonValue
from sscbench.reading import loads_json
from sscbench.study.guard import open_no_follow
from sscbench.terminal import plain

LOCK_NAME = "sscbench.lock"
_HOLDER_WAIT_S = 1.0
"""How long a refused writer waits for the holder's record to appear."""
_ACQUIRED = object()


@dataclass(frozen=True)
class LockHolder:
    """Who holds (or held) a study's lock."""

    pid: int | None
    host: str | None
    started: str | None

    def describe(self) -> str:
        """``pid 123 on host h since 2026-…`` (what is known of it)."""
        pid = self.pid if self.pid is not None else "?"
        return f"pid {pid} on host {self.host or '?'} since {self.started or '?'}"


def _read_holder(text: str) -> LockHolder | None:
    try:
        data: JsonValue = loads_json(text)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    pid = data.get("pid")
    return LockHolder(
        pid if isinstance(pid, int) else None,
        str(data.get("host")) if data.get("host") else None,
        str(data.get("started")) if data.get("started") else None,
    )


class StudyLock:
    """Exclusive write access to one study folder (a context manager).

    ``acquire`` raises :class:`DataError` naming the holder when another live process
    holds the folder; ``taken_over`` names the dead holder whose stale lock was taken.
    """

    def __init__(self, root: str | Path):
        self.path = Path(root) / LOCK_NAME
        self._fd: int | None = None
        self.taken_over: LockHolder | None = None

    def acquire(self) -> StudyLock:
        """Take the lock or raise a DataError naming who holds it."""
        fd = open_no_follow(self.path, os.O_RDWR | os.O_CREAT)  # never truncate via a link
        holder = self._wait_for_lock_or_holder(fd)
        if holder is not _ACQUIRED:
            os.close(fd)
            who = holder.describe() if isinstance(holder, LockHolder) else "another process"
            raise DataError(
                self.path.parent,
                None,
                f"this study folder is being written by {who}; wait for it to finish, stop "
                "it, or choose another --out folder",
            ) from None
        previous = _read_holder(os.pread(fd, 4096, 0).decode("utf-8", "replace"))
        if previous is not None and previous.pid is not None and previous.pid != os.getpid():
            self.taken_over = previous  # its process is gone: the kernel dropped its lock
        mine = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(mine).encode(), 0)
        self._fd = fd
        return self

    @staticmethod
    def _wait_for_lock_or_holder(fd: int) -> object:
        """``_ACQUIRED`` once the lock is ours; else the holder's record, or None.

        A holder writes its record just after taking the lock and clears it just before
        dropping it, so a refused writer can find the file empty for a moment: it then
        re-reads (and retries the lock) for up to ``_HOLDER_WAIT_S`` before saying only
        "another process".
        """
        deadline = time.monotonic() + _HOLDER_WAIT_S
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return _ACQUIRED
            except OSError:
                pass
            holder = _read_holder(os.pread(fd, 4096, 0).decode("utf-8", "replace"))
            if holder is not None or time.monotonic() >= deadline:
                return holder
            time.sleep(0.01)

    def release(self) -> None:
        """Clear the holder record and drop the lock."""
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            os.ftruncate(self._fd, 0)
        os.close(self._fd)  # closing the descriptor releases the flock
        self._fd = None

    def __enter__(self) -> StudyLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


def live_writer(root: str | Path) -> LockHolder | None:
    """Who is writing the study at ``root`` now (None: nobody, or no lock file).

    Probes the lock with a shared, non-blocking ``flock`` that is dropped at once; the
    lock file is opened read-only, never created, and never followed as a symlink.
    """
    try:
        fd = os.open(Path(root) / LOCK_NAME, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            holder = _read_holder(os.pread(fd, 4096, 0).decode("utf-8", "replace"))
            return holder or LockHolder(None, None, None)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def being_written_warning(root: str | Path, what: str) -> str | None:
    """A ``warning:`` line when a live writer holds the study (``what``: e.g. "this
    export"): it names the writer and says that only the runs finished so far are in."""
    holder = live_writer(root)
    if holder is None:
        return None
    index = Path(root) / "index.jsonl"
    try:
        with index.open("rb") as handle:
            finished = sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b""))
    except OSError:
        finished = 0
    runs = "run" if finished == 1 else "runs"
    return (
        f"warning: {root} is still being written by {holder.describe()}; {what} covers the "
        f"{finished} {runs} finished so far, not the whole study (run it again when the "
        "study has finished)"
    )


def warn_if_being_written(root: str | Path, what: str = "this export") -> None:
    """Print :func:`being_written_warning`'s line on standard error, if any (the exports
    and review commands call it before reading the study)."""
    line = being_written_warning(root, what)
    if line is not None:
        print(plain(line), file=sys.stderr, flush=True)
