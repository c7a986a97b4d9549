"""Progress of long commands on stderr: one shared Rich display, silent unless on a terminal.

Every command that works longer than a second (``measure``, ``report``, ``export``,
``release``, ``gate``, ``validate-oracle``, ``calibrate``) wraps its work in
:func:`progress` and counts items with :meth:`Bar.advance`::

    with progress("measuring runs", total=len(entries)) as bar:
        for entry in entries:
            ...
            bar.advance()

Counting is a plain integer add; the display (Rich's own refresh thread, 10 times a
second) reads the counts, so a loop over 100,000 items pays nothing that matters. A
:func:`progress` opened inside another adds a row to the same display (Rich allows one
live display at a time). Deep code with no handle says what it does with :func:`status`.

The display goes to stderr only, never changes a file, and is on only when stderr is a
terminal and no test runs (``PYTEST_CURRENT_TEST``); ``SSCBENCH_PROGRESS=1`` forces it
on, ``SSCBENCH_PROGRESS=0`` off, and :func:`forced` gives tests a console of their own.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterable, Iterator, Sized
from typing import TypeVar

from rich.console import Console, RenderableType
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from sscbench.terminal import safe

T = TypeVar("T")

_forced: list[Console | None] = []  # innermost last: a console (forced on) or None (off)


def enabled() -> bool:
    """Whether progress is shown: forced by :func:`forced` / :func:`suppressed` or
    ``SSCBENCH_PROGRESS``, else only on a terminal outside tests."""
    if _forced:
        return _forced[-1] is not None
    setting = os.environ.get("SSCBENCH_PROGRESS", "").strip()
    if setting in ("0", "1"):
        return setting == "1"
    return "PYTEST_CURRENT_TEST" not in os.environ and sys.stderr.isatty()


@contextlib.contextmanager
def forced(console: Console) -> Iterator[Console]:
    """Show progress on ``console`` inside the block, whatever the terminal (tests)."""
    _forced.append(console)
    try:
        yield console
    finally:
        _forced.pop()


@contextlib.contextmanager
def suppressed() -> Iterator[None]:
    """No progress inside the block (``sscbench run --no-progress`` for its last step)."""
    _forced.append(None)
    try:
        yield
    finally:
        _forced.pop()


class Bar:
    """One row of the display: what is done, and how many of how many items."""

    def __init__(self, what: str, total: int | None):
        self.what = what
        self.total = total
        self.completed = 0
        self.task: TaskID | None = None

    def advance(self, n: int = 1) -> None:
        """Count ``n`` more items done (an integer add; the display reads it)."""
        self.completed += n

    def update(self, what: str | None = None, total: int | None = None) -> None:
        """Say what is being done now, or how many items there are in all."""
        if what is not None:
            self.what = what
        if total is not None:
            self.total = total


class _Count(MofNCompleteColumn):
    """``done/total`` when the total is known, nothing otherwise."""

    def render(self, task: Task) -> Text:
        return super().render(task) if task.total is not None else Text("")


class _Display(Progress):
    """A Rich progress whose rows copy their :class:`Bar` counts on every refresh."""

    def __init__(self, console: Console | None):
        self.bars: list[Bar] = []  # before Progress's own set-up, which may render
        super().__init__(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            _Count(),
            TimeElapsedColumn(),
            console=console or Console(stderr=True, force_terminal=True),
            transient=True,
        )

    def get_renderables(self) -> Iterable[RenderableType]:
        for bar in list(self.bars):
            if bar.task is not None:
                self.update(
                    bar.task, description=safe(bar.what), completed=bar.completed, total=bar.total
                )
        yield from super().get_renderables()


_display: list[_Display] = []  # the live display, while one is open


@contextlib.contextmanager
def progress(what: str, total: int | None = None) -> Iterator[Bar]:
    """A progress row saying ``what`` (and ``completed/total`` when the total is known)
    for the block; a no-op bar when progress is off."""
    bar = Bar(what, total)
    if not enabled():
        yield bar
        return
    opened = not _display
    if opened:
        display = _Display(_forced[-1] if _forced else None)
        display.start()
        _display.append(display)
    display = _display[0]
    bar.task = display.add_task(safe(what), total=total)
    display.bars.append(bar)
    try:
        yield bar
    finally:
        display.bars.remove(bar)
        display.remove_task(bar.task)
        if opened:
            display.stop()
            _display.clear()


def status(what: str) -> None:
    """Say what the innermost open bar is doing now (no-op when none is shown)."""
    if _display and _display[0].bars:
        _display[0].bars[-1].update(what)


def counted(items: Iterable[T], what: str, total: int | None = None) -> Iterator[T]:
    """Yield ``items``, counting each on a progress row (``total`` defaults to ``len``)."""
    if total is None and isinstance(items, Sized):
        total = len(items)
    with progress(what, total) as bar:
        for item in items:
            yield item
            bar.advance()


__all__ = ["Bar", "counted", "enabled", "forced", "progress", "status", "suppressed"]
