"""The process executor: a study's episodes made by child processes on this machine.

The split is the Ray executor's (:mod:`sscbench.run.ray_executor`) without Ray: only the
making of episodes moves. This process keeps the plan, qualification, the study
folder, its lock and its index (:class:`~sscbench.run.executor.StudyRunner` with this
module's :class:`ProcessEpisodes` as its episode source). ``[study.processes] workers``
long-lived children (spawned, default one per CPU) each rebuild the study once from its
inputs (:class:`~sscbench.run.remote.EpisodeWorker`) and make several runs at once on
their own event loop, at most ``ceil(concurrency / workers)`` each. Each child is
connected by one pipe, read by this process's event loop (``add_reader``: no thread per
run or per child); a request is ``(number, faulted run id, kind, run id)``, an answer the
:class:`~sscbench.run.episodes.EpisodeOutput` (or the error the run raised).

A child that dies (killed, out of memory) is seen at once (its pipe closes): it is
replaced, and every run it had in flight is made again from scratch on a live child
(episodes are pure and seeded), up to ``attempts`` times; nothing reached the study
folder for it, so no run is lost and none is indexed twice. Each death counts once
against ``max_worker_losses``; past it the study stops, its runs kept. Children ignore
SIGINT (Ctrl-C reaches the whole process group): this process stops the study and then
closes them; a child whose parent dies sees its pipe close and exits.

Each endpoint's ``max_concurrent``, ``requests_per_minute`` and ``tokens_per_minute`` are
divided among the children (:func:`~sscbench.run.remote.split_budgets`): together they
meet an endpoint as the study's one client would.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import multiprocessing
import os
import pickle
import signal
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from pathlib import Path

from sscbench.errors import DataError
from sscbench.faults.case import Case
from sscbench.llm.journal_carry import drop_process_books
from sscbench.run.episodes import EpisodeOutput, RunKind
from sscbench.run.planning import PlanUnit
from sscbench.run.remote import EpisodeWorker, StudyInputs
from sscbench.run.worker_losses import LossBudget, per_worker
from sscbench.study.config import StudyConfig
from sscbench.study.process_config import ProcessSettings

WHERE = "<processes>"
CLOSE_TIMEOUT_S = 10.0
"""How long closing waits for a child to close its connections before it is killed."""


# ---- the child ---------------------------------------------------------------------------
def child_main(inputs: StudyInputs, conn: Connection, share: int, journal_dir: Path | None) -> None:
    """A child's whole life: rebuild the study, then make the runs its parent sends until
    the parent closes the pipe (or dies). Ctrl-C is the parent's to handle."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    asyncio.run(_serve(inputs, conn, share, journal_dir))


def _portable(exc: BaseException) -> BaseException:
    """``exc`` if it crosses a pipe whole, else a RuntimeError with its traceback text."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:  # an error its class cannot rebuild from its pickle
        text = "".join(traceback.format_exception(exc)).rstrip()
        return RuntimeError(f"in child process {os.getpid()}: {text}")
    return exc


async def _serve(
    inputs: StudyInputs, conn: Connection, share: int, journal_dir: Path | None
) -> None:
    try:
        worker = EpisodeWorker(inputs, share, journal_dir)
    except Exception as exc:
        conn.send(("failed", 0, _portable(exc)))
        return
    conn.send(("ready", 0, os.getpid()))
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    tasks: set[asyncio.Task] = set()

    async def make(number: int, faulted_run_id: str, kind: RunKind, run_id: str) -> None:
        try:
            output = await worker.make(faulted_run_id, kind, run_id)
        except Exception as exc:
            conn.send(("error", number, _portable(exc)))
        else:
            conn.send(("done", number, output))

    def readable() -> None:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            message = None  # the parent is gone
        if message is None:
            loop.remove_reader(conn.fileno())
            stop.set()
            return
        task = loop.create_task(make(*message))
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    loop.add_reader(conn.fileno(), readable)
    try:
        await stop.wait()
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await worker.close()


# ---- the parent --------------------------------------------------------------------------
class ChildLost(Exception):
    """The child making a run died; the run is made again from scratch."""


@dataclass
class _Child:
    """One child process, its pipe and the runs it has in flight (by request number)."""

    process: BaseProcess
    conn: Connection
    pid: int = 0  # set once it has rebuilt the study
    waiting: dict[int, asyncio.Future] = field(default_factory=dict)
    attached: bool = False  # its pipe is read by the event loop
    gone: bool = False
    started: float = field(default_factory=time.monotonic)


def _exit_words(code: int | None) -> str:
    if code is None:
        return "still running"
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(-code).name}"
    return f"exit code {code}"


class ProcessEpisodes:
    """The episode source of a study made by child processes (see the module docstring)."""

    def __init__(
        self,
        inputs: StudyInputs,
        settings: ProcessSettings,
        workers: int,
        at_once: int,
        journal_dir: Path | None = None,
    ):
        self.inputs = inputs
        self.settings = settings
        self.workers = workers
        self.at_once = at_once  # runs one child makes at once
        self.journal_dir = journal_dir
        self.children: list[_Child] = []
        self.budget = LossBudget(
            settings.max_worker_losses, WHERE, "study.processes.max_worker_losses"
        )
        self.requeued = 0  # runs made again after their child was lost
        self.closing = False
        self.loop: asyncio.AbstractEventLoop | None = None
        self._numbers = itertools.count(1)
        self._changed: asyncio.Event | None = None  # a child freed a place, came or went

    @classmethod
    def start(
        cls,
        config: StudyConfig,
        toml_text: str,
        cases: Sequence[Case],
        journal_dir: Path | None = None,
        workers: int | None = None,
    ) -> ProcessEpisodes:
        """Start the children (``workers``, default ``[study.processes] workers``) and wait
        until every one has rebuilt the study; a child that cannot fails closed, naming
        why, before any run."""
        settings = config.study.processes
        count = workers or settings.worker_count()
        inputs = StudyInputs.of(config, toml_text, cases)
        at_once = per_worker(config.study.concurrency, count)
        source = cls(inputs, settings, count, at_once, journal_dir)
        try:
            source.children = [source._spawn() for _ in range(count)]
            source._wait_ready(settings.start_timeout_s)
        except BaseException:
            source._kill_all()
            raise
        return source

    @property
    def losses(self) -> int:
        """Children lost so far (each counted once)."""
        return self.budget.losses

    def pids(self) -> list[int]:
        """The process ids of the children now (0: one still rebuilding the study)."""
        return [child.pid for child in self.children]

    def _spawn(self) -> _Child:
        context = multiprocessing.get_context("spawn")
        mine, theirs = context.Pipe()
        process = context.Process(
            target=child_main,
            args=(self.inputs, theirs, self.workers, self.journal_dir),
            name="sscbench-episodes",
            daemon=True,
        )
        process.start()
        theirs.close()  # the child holds it now: its death closes the pipe
        return _Child(process, mine)

    def _wait_ready(self, timeout: float) -> None:
        """Block until every child answers ``ready`` (before the study's event loop runs)."""
        deadline = time.monotonic() + timeout
        pending = {child.conn: child for child in self.children}
        while pending:
            left = deadline - time.monotonic()
            for ready in wait(list(pending), timeout=max(0.0, left)):
                child = pending.pop(ready)  # type: ignore[call-overload]
                try:
                    tag, _, value = child.conn.recv()
                except (EOFError, OSError):
                    child.process.join(5)
                    raise DataError(
                        WHERE,
                        None,
                        f"a child process {_exit_words(child.process.exitcode)} before it "
                        "rebuilt the study (its error is on standard error; a script that "
                        "runs a study must start it under `if __name__ == '__main__':`, as "
                        "children are spawned and import the script)",
                    ) from None
                if tag == "failed":
                    assert isinstance(value, BaseException)
                    raise value
                child.pid = value
            if pending and time.monotonic() >= deadline:
                raise DataError(
                    WHERE,
                    "study.processes.start_timeout_s",
                    f"{len(pending)} of {len(self.children)} child processes did not rebuild "
                    f"the study within {timeout:g} s",
                )

    def _attach(self) -> None:
        """Read every child's pipe on the running event loop (the study's one loop)."""
        if self.loop is None:
            self.loop = asyncio.get_running_loop()
            self._changed = asyncio.Event()
        for child in self.children:
            if not child.attached and not child.gone:
                self.loop.add_reader(child.conn.fileno(), self._readable, child)
                child.attached = True

    def _wake(self) -> None:
        """Tell every run waiting for a child that something changed."""
        if self._changed is not None:
            self._changed.set()
            self._changed = asyncio.Event()

    def _readable(self, child: _Child) -> None:
        """A message from a child: ready, a run made (or its error), or its pipe closed."""
        try:
            tag, number, value = child.conn.recv()
        except (EOFError, OSError):
            self._lose(child)
            return
        if tag == "ready":
            child.pid = value
        elif tag == "failed":  # a replacement could not rebuild the study: stop
            self.budget.stopped = self.budget.stopped or (
                value if isinstance(value, DataError) else DataError(WHERE, None, str(value))
            )
        else:
            future = child.waiting.pop(number, None)
            if future is not None and not future.done():
                if tag == "done":
                    future.set_result(value)
                else:
                    future.set_exception(value)
        self._wake()

    def _lose(self, child: _Child) -> None:
        """A child's pipe closed: its runs fail with :class:`ChildLost` (to be made again),
        it counts as one loss, and a new child takes its place (unless closing/stopped)."""
        if child.gone:
            return
        child.gone = True
        if child.attached and self.loop is not None:
            self.loop.remove_reader(child.conn.fileno())
        child.conn.close()
        child.process.join(1.0)  # its pipe closed: it has exited, or is about to
        why = f"child process {child.pid or '(starting)'} {_exit_words(child.process.exitcode)}"
        for future in child.waiting.values():
            if not future.done():
                future.set_exception(ChildLost(why))
        child.waiting.clear()
        if not self.closing:
            self.budget.count(why)
            if self.budget.stopped is None:
                if self.journal_dir is not None and child.pid:  # its runs start again
                    drop_process_books(self.journal_dir, child.pid)  # from what was carried
                self.children[self.children.index(child)] = self._spawn()
                self._attach()
        self._wake()

    async def _free_child(self) -> _Child:
        """The ready child with the fewest runs in flight and room for one more, waiting
        while none has (all busy, or starting again after a loss)."""
        while True:
            if self.budget.stopped is not None:
                raise self.budget.stopped
            ready = [c for c in self.children if c.pid and not c.gone]
            free = [c for c in ready if len(c.waiting) < self.at_once]
            if free:
                return min(free, key=lambda c: len(c.waiting))
            self._check_starting()
            assert self._changed is not None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), 1.0)

    def _check_starting(self) -> None:
        """Stop the study when a replacement child has not rebuilt it in time."""
        limit = self.settings.start_timeout_s
        for child in self.children:
            if not child.pid and time.monotonic() - child.started > limit:
                self.budget.stopped = self.budget.stopped or DataError(
                    WHERE,
                    "study.processes.start_timeout_s",
                    f"a child process did not rebuild the study within {limit:g} s; the "
                    "runs written so far are kept: resume when the machine is healthy",
                )

    async def make(self, unit: PlanUnit, kind: RunKind, run_id: str) -> EpisodeOutput:
        """Make the run in the least busy child. A run whose child died while it ran is
        made again from scratch in another (or the replacement), up to ``attempts``
        times; an error the run itself raised comes back as raised (as in this process)."""
        self._attach()
        assert self.loop is not None
        tries = 0
        while True:
            child = await self._free_child()
            number = next(self._numbers)
            future = self.loop.create_future()
            child.waiting[number] = future
            with contextlib.suppress(OSError):  # a dead child: its closed pipe fails the run
                child.conn.send((number, unit.faulted_run_id, kind, run_id))
            try:
                return await future
            except ChildLost as exc:
                tries += 1
                if tries >= self.settings.attempts:
                    setting = "study.processes.attempts"
                    raise self.budget.attempts_used(run_id, tries, setting, str(exc)) from exc
                self.requeued += 1
            finally:
                child.waiting.pop(number, None)

    def _kill_all(self) -> None:
        self.closing = True
        for child in self.children:
            if child.attached and self.loop is not None and not child.gone:
                self.loop.remove_reader(child.conn.fileno())
            child.gone = True
            if child.process.is_alive():
                child.process.kill()
            child.process.join(5)
            child.conn.close()

    async def aclose(self) -> None:
        """Ask every child to close its connections and exit; one that does not within
        ``CLOSE_TIMEOUT_S`` is killed."""
        self.closing = True
        for child in self.children:
            if not child.gone:
                with contextlib.suppress(OSError):
                    child.conn.send(None)
        deadline = time.monotonic() + CLOSE_TIMEOUT_S
        while any(c.process.is_alive() for c in self.children) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        self._kill_all()
