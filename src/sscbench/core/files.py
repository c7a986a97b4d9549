"""Atomic writes: a file or a folder is either wholly the old one or wholly the new one.

Every stage that writes a study file (run files and the index, cases, measurements,
review keys, the report folder) goes through here, so a killed process never leaves a
half-written file under the real name. The temporary name sits beside the target,
starts with a dot and carries the process id (two writers never share one), and ends
in ``.tmp`` — the suffix ``StudyDir`` knows as its own when it cleans a folder.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from sscbench.errors import naming


def temp_path(path: Path) -> Path:
    """A temporary name beside ``path``, unique to this process."""
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


@contextmanager
def atomic_text_writer(path: Path) -> Iterator[TextIO]:
    """A UTF-8 text handle whose content replaces ``path`` only when the block succeeds.

    Streams (a study's measurements need not fit in memory); on any error the
    temporary file is removed and ``path`` keeps its old content.
    """
    tmp = temp_path(path)
    try:
        with naming(path), tmp.open("w", encoding="utf-8") as handle:
            yield handle
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def atomic_write(path: Path, data: bytes | str) -> None:
    """Replace ``path`` with ``data`` (text is written as UTF-8) in one rename."""
    tmp = temp_path(path)
    try:
        with naming(path):
            tmp.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def replace_folder(staging: Path, final: Path) -> None:
    """Put a fully built folder in place: the old one moves aside, the new one moves in,
    the old one is removed. A crash in between leaves ``final`` absent or whole, and the
    aside copy under a dotted name a later build cleans up."""
    old = final.with_name(f".{final.name}-old-{os.getpid()}")
    if final.exists():
        os.replace(final, old)
    os.replace(staging, final)
    shutil.rmtree(old, ignore_errors=True)
