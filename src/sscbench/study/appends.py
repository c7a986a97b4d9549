"""Files a study appends to a line at a time (``index.jsonl``, ``timings.jsonl``), opened
once for a run of the study instead of once per line.

Every append is one ``os.write`` of one whole line to a descriptor opened with
``O_APPEND`` (and ``O_NOFOLLOW``: :func:`~sscbench.study.guard.open_no_follow`), so a
kill leaves at most a cut last line, whether the descriptor was opened for this line or
held since the first. While :attr:`AppendFiles.hold` is set (the study's writer sets it
for its invocation) a descriptor stays open after its line; :meth:`AppendFiles.close`
closes them all, and a file replaced under its name (``rewrite_index``) is closed first
with :meth:`AppendFiles.forget`, so no line goes to a file no longer in the folder.
"""

from __future__ import annotations

import os
from pathlib import Path

from sscbench.errors import naming
from sscbench.study.guard import open_no_follow

FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT


class AppendFiles:
    """Append-only line files, each opened per line, or once while :attr:`hold` is set."""

    def __init__(self) -> None:
        self.hold = False
        self._open: dict[Path, int] = {}

    def append(self, path: Path, data: bytes) -> None:
        """Append ``data`` (one or more whole lines) with one write; an ``OSError`` names
        the file."""
        fd = self._open.get(path)
        if fd is None:
            fd = open_no_follow(path, FLAGS)
            if self.hold:
                self._open[path] = fd
        try:
            with naming(path):
                os.write(fd, data)
        finally:
            if path not in self._open:
                os.close(fd)

    def forget(self, path: Path) -> None:
        """Close ``path``'s held descriptor (its file is about to be replaced or cut)."""
        fd = self._open.pop(path, None)
        if fd is not None:
            os.close(fd)

    def close(self) -> None:
        """Close every held descriptor and stop holding (the study's writer is done)."""
        self.hold = False
        for path in list(self._open):
            self.forget(path)


__all__ = ["AppendFiles"]
