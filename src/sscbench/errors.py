"""Errors that name the file and the field at fault."""

from __future__ import annotations

import errno
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class DataError(Exception):
    """A file (data, config, study record) that cannot be used, with where and why."""

    def __init__(self, path: str | Path, field: str | None, reason: str):
        self.path = Path(path)
        self.field = field
        self.reason = reason
        where = f"{self.path}" + (f", field {field}" if field else "")
        super().__init__(f"{where}: {reason}")

    def __reduce__(self) -> tuple[type[Exception], tuple[object, ...]]:
        """Pickle by the constructor's arguments (a worker process sends it to the driver)."""
        return (type(self), (self.path, self.field, self.reason))


class HarnessFailure(Exception):
    """The harness could not complete a run (API failure, crash, timeout).

    Such a run is missing: it is never scored as an agent outcome.
    """

    def __init__(self, where: str, message: str, kind: str = "failure"):
        self.where = where
        self.message = message
        self.kind = kind  # a short class of failure: "connection failed", "timed out", ...
        super().__init__(f"{where}: {message}")


class EndpointUnreachable(DataError):
    """An endpoint that never answered: its first requests all failed to connect.

    Not a missing run but a stop: the study (or measurement) ends at once with this
    message, nothing is recorded for the calls in flight, and a rerun resumes.
    """

    def __init__(self, url: str, reason: str):
        self.path = Path(url)
        self.url = url
        self.field = None
        self.reason = reason
        Exception.__init__(self, f"{url}: {reason}")

    def __reduce__(self) -> tuple[type[Exception], tuple[object, ...]]:
        """Pickle by the constructor's arguments (a worker process sends it to the driver)."""
        return (type(self), (self.url, self.reason))


@contextmanager
def naming(path: str | Path) -> Iterator[None]:
    """Give an ``OSError`` raised in the block without a file name (a write that found
    no space left on the device) the name of ``path``, so its ``error:`` line names it."""
    try:
        yield
    except OSError as exc:
        if exc.filename is None:
            exc.filename = str(path)
        raise


def os_error_text(exc: OSError) -> str:
    """``FILE: reason`` for an operating-system error (``/x/out.jsonl: no space left on
    device``, ``/x/aaa…: file name too long``); the reason in lower case, as every other
    ``error:`` line is written."""
    reason = exc.strerror or str(exc)
    if exc.errno == errno.ENAMETOOLONG:
        reason = "file name too long (a name may have at most 255 bytes)"
    reason = reason[:1].lower() + reason[1:]
    return f"{exc.filename}: {reason}" if exc.filename is not None else reason


class InternalError(Exception):
    """An unexpected failure (a bug, an input no check foresaw) reported as an ``error:``
    line with exit 2: a command that judges (``gate``, ``release``) must never let it
    reach the exit code of a verdict (a traceback exits 1, the gate's BLOCK)."""

    def __init__(self, exc: BaseException):
        self.cause = exc
        first = str(exc).splitlines()[0] if str(exc) else ""
        super().__init__(f"internal error ({type(exc).__name__}: {first}); no verdict")
