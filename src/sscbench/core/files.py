"""Atomic writes: a file or a folder is either wholly the old one or wholly the new one.

Every command that writes a file goes through here (run files and the index, cases,
measurements, review exports and keys, the release and report folders, ``release diff
--out``), so neither a killed process nor a full disk ever leaves a half-written file
under the real name (one exception, below). The temporary name sits beside the target,
starts with a dot and carries the process id (two writers never share one), and ends in
``.tmp`` — the suffix ``StudyDir`` knows as its own when it cleans a folder. A multi-file
output is built in a staging folder beside its target (``.NAME-new-PID``) and swapped in
whole.

One writer skips the temporary: :func:`write_new`, for a run's text under a new name,
which nothing reads before the index line written after it names its sha256 (a kill may
leave a cut file there that no line names; the run is made again and replaces it).

A temporary file or folder whose process is gone (a killed command) is removed by
:func:`clean_stale` when the command that owns the target starts again. An ``OSError``
of a write (no space left, permission denied) carries the name of the file it was
writing (:func:`~sscbench.errors.naming`), so its ``error:`` line names it.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from sscbench.errors import naming

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def temp_path(path: Path) -> Path:
    """A temporary name beside ``path``, unique to this process."""
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def _alive(pid: int) -> bool:
    """Whether a process of this id runs (one we may not signal runs too)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except PermissionError:
        return True  # it runs, under another user
    except (ProcessLookupError, OverflowError, ValueError):
        return False
    return True


def clean_stale(target: Path) -> list[Path]:
    """Remove what killed writers of ``target`` left beside it: ``.NAME.PID.tmp`` files
    and ``.NAME-new-PID`` / ``.NAME-old-PID`` folders whose process is gone.

    Called when the command that owns ``target`` starts; a writer still running (its
    process alive) keeps its temporary name. Returns what was removed.
    """
    name = re.escape(target.name)
    pattern = re.compile(rf"\.{name}(?:\.(\d+)\.tmp|-(?:new|old)-(\d+))")
    return _remove_dead(target.parent, pattern, folders=True)


def clean_dead_temporaries(folder: Path) -> list[Path]:
    """Remove every ``.NAME.PID.tmp`` file directly in ``folder`` whose process is gone
    (a study's run files of a killed ``run``): called by the command that owns the
    folder, under its lock. Returns what was removed."""
    return _remove_dead(folder, re.compile(r"\..+\.(\d+)\.tmp"), folders=False)


def _remove_dead(folder: Path, pattern: re.Pattern[str], folders: bool) -> list[Path]:
    """Remove the entries of ``folder`` whose whole name ``pattern`` matches and whose
    process (the match's first non-empty group) is gone; folders too when ``folders``,
    otherwise files only."""
    removed: list[Path] = []
    if not folder.is_dir():
        return removed
    for path in folder.iterdir():
        match = pattern.fullmatch(path.name)
        if match is None or (not folders and not path.is_file()):
            continue
        if _alive(int(next(g for g in match.groups() if g))):
            continue
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
        removed.append(path)
    return removed


@contextmanager
def atomic_text_writer(path: Path, newline: str | None = None) -> Iterator[TextIO]:
    """A UTF-8 text handle whose content replaces ``path`` only when the block succeeds.

    Streams (a study's measurements need not fit in memory); on any error the
    temporary file is removed and ``path`` keeps its old content. ``newline=""`` for a
    CSV writer (which writes its own line ends).
    """
    tmp = temp_path(path)
    try:
        with naming(path), tmp.open("w", encoding="utf-8", newline=newline) as handle:
            yield handle
        with naming(path):
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


def write_new(path: Path, data: bytes) -> None:
    """Write a file whose name nothing trusts yet in place: created exclusively and
    written, without the temporary and the rename of :func:`atomic_write` (at
    concurrency 256 their directory work costs a study about a point of overhead,
    ``benchmarks/overhead.py``). For a run's text, which no reader takes before the
    index line written after it records its sha256: a kill mid-write leaves a cut file
    that no line names, and the run, made again, replaces it. A name that exists
    already (that cut file, or a run written again) is replaced by :func:`atomic_write`,
    so a whole file is never cut; a failed write (a full disk) removes what it wrote."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    with naming(path):
        try:
            fd = os.open(path, flags, 0o644)
        except FileExistsError:
            atomic_write(path, data)
            return
        try:
            view = memoryview(data)
            while view:  # a regular file takes it whole but on a full disk
                view = view[os.write(fd, view) :]
        except BaseException:
            os.close(fd)
            os.unlink(path)
            raise
        os.close(fd)


def write_all(files: Mapping[Path, bytes | str]) -> list[Path]:
    """Write several files all or nothing: every temporary file is written first, and
    only when all are complete are they renamed into place (a full disk leaves every
    old file as it was). For outputs that share a folder with the user's own files
    (``release diff --out``), where a folder swap would take those away."""
    temps: dict[Path, Path] = {}
    try:
        for path, data in files.items():
            temps[path] = temp_path(path)
            with naming(path):
                raw = data.encode("utf-8") if isinstance(data, str) else data
                temps[path].write_bytes(raw)
        for path, tmp in temps.items():
            with naming(path):
                os.replace(tmp, path)
    finally:
        for tmp in temps.values():
            tmp.unlink(missing_ok=True)
    return list(files)


def replace_folder(staging: Path, final: Path) -> None:
    """Put a fully built folder in place: the old one moves aside, the new one moves in,
    the old one is removed. A crash in between leaves ``final`` absent or whole, and the
    aside copy under a dotted name a later build cleans up."""
    old = final.with_name(f".{final.name}-old-{os.getpid()}")
    with naming(final):
        if final.exists():
            os.replace(final, old)
        os.replace(staging, final)
    shutil.rmtree(old, ignore_errors=True)


@contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """A temporary name beside ``path`` for a library that writes to a file name (an
    Inspect log, a figure), renamed over ``path`` when the block succeeds; on any error
    it is removed and ``path`` keeps its old content."""
    tmp = temp_path(path)
    try:
        with naming(path):
            yield tmp
            os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def save_figure(figure: Figure, path: Path, **options: Any) -> None:
    """Save a Matplotlib ``figure`` as ``path`` (format from its suffix) in one rename."""
    with atomic_path(path) as tmp:
        figure.savefig(tmp, format=path.suffix.removeprefix("."), **options)


@contextmanager
def staged_folder(final: Path) -> Iterator[Path]:
    """A fresh staging folder beside ``final`` (``.NAME-new-PID``) that replaces
    ``final`` whole when the block succeeds; on any error it is removed and ``final``
    keeps its old content. Stale staging folders of killed builds are cleaned first."""
    clean_stale(final)
    staging = final.with_name(f".{final.name}-new-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    try:
        with naming(staging):
            staging.mkdir(parents=True)
        yield staging
        replace_folder(staging, final)
    except OSError as exc:  # name the file as the user knows it, not its staging name
        if exc.filename is not None and Path(exc.filename).is_relative_to(staging):
            exc.filename = str(final / Path(exc.filename).relative_to(staging))
        raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
