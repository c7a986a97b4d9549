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

    def __init__(self, where: str, message: str):
        self.where = where
        self.message = message
        super().__init__(f"{where}: {message}")
