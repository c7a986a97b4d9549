"""SIGINT/SIGTERM as a prompt, clean stop of a study's asyncio workers."""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Callable
from types import FrameType

SignalHandler = Callable[[int, FrameType | None], object] | int | None
"""What ``signal.signal`` returns and accepts: a function, SIG_DFL/SIG_IGN, or None."""


class SignalStopper:
    """Turns SIGINT/SIGTERM into a prompt, clean stop of the workers.

    The handler runs between two bytecodes of the main thread, even while a scripted
    episode computes without yielding; it marks the study as stopping and asks the
    event loop to cancel the workers. A run is written and indexed with no ``await`` in
    between, so a cancelled worker leaves either a finished run or nothing of it.
    """

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.signum: int | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.tasks: list[asyncio.Task] = []
        self._previous: dict[int, SignalHandler] = {}

    def _handle(self, signum: int, _frame: object) -> None:
        self.signum = self.signum or signum
        if self.loop is not None:
            self.loop.call_soon_threadsafe(self._cancel)

    def _cancel(self) -> None:
        for task in self.tasks:
            task.cancel()

    def __enter__(self) -> SignalStopper:
        if threading.current_thread() is not threading.main_thread():
            return self  # signals reach only the main thread; an embedding caller stops us
        for sig in self.SIGNALS:
            self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, previous in self._previous.items():
            signal.signal(sig, previous)
