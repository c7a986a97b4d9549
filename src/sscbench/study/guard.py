"""A study folder is read and written without following symbolic links inside it.

Every command opens a study through :class:`~sscbench.study.folder.StudyDir`, which
calls :func:`refuse_links` first: a member of the folder (a file or folder sscbench
writes there — the lock, the index, the plan, the cases, ``runs/``, ``report/`` …)
that is a symbolic link is refused before anything is opened, so nothing outside the
study is ever truncated, appended to or deleted through a link. The study folder
itself may be a link (the user named it); only its members are checked. Files that
sscbench appends to are also opened with ``O_NOFOLLOW`` (:func:`open_no_follow`), so a
link placed after the check is refused too.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable
from pathlib import Path

from sscbench.errors import DataError

# Members a study folder may hold beside those of storage.STUDY_FILES / STUDY_FOLDERS.
OTHER_MEMBERS = ("sscbench.lock", "measurements.meta.json", "review", "inspect")


def link_error(path: Path) -> DataError:
    """The refusal of a study member that is a symbolic link."""
    return DataError(
        path,
        None,
        "is a symbolic link; sscbench does not follow links inside a study folder "
        "(replace it by the file or folder itself)",
    )


def refuse_links(root: Path, names: Iterable[str]) -> None:
    """Raise :class:`DataError` when any member ``root/NAME`` is a symbolic link (cheap:
    one ``lstat`` per name; a member that does not exist is fine)."""
    for name in names:
        path = root / name
        if os.path.islink(path):
            raise link_error(path)


def open_no_follow(path: Path, flags: int, mode: int = 0o644) -> int:
    """``os.open`` that refuses a symbolic link at ``path`` (``O_NOFOLLOW``) with the
    study's plain error instead of writing through it."""
    try:
        return os.open(path, flags | os.O_NOFOLLOW, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise link_error(path) from None
        raise


__all__ = ["OTHER_MEMBERS", "link_error", "open_no_follow", "refuse_links"]
