"""Errors that name the file and the field at fault."""

from __future__ import annotations

from pathlib import Path


class DataError(Exception):
    """A file (data, config, study record) that cannot be used, with where and why."""

    def __init__(self, path: str | Path, field: str | None, reason: str):
        self.path = Path(path)
        self.field = field
        self.reason = reason
        where = f"{self.path}" + (f", field {field}" if field else "")
        super().__init__(f"{where}: {reason}")


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
