"""The study folder's one writer, on threads of its own so the event loop never waits on disk.

A finished run costs the folder two atomic file writes (ledger and evaluator log: a
temporary file, a rename), a line in ``timings.jsonl`` and a line in the index (then
the journals are told it is recorded). Each is a file-system call that usually takes a
tenth of a millisecond and, on a disk shared with other work, now and then tens of them; made
on the event loop, every run in flight waits that long (``benchmarks/overhead.py``
measures it at concurrency 64 and 256 against a 0.5 s endpoint; docs/cost.md).

:class:`RunWriter` makes them on worker threads while the loop goes on with the other
runs: a run's two files on one of a few threads (runs side by side), then its timing
and index lines on one thread, first in first out. So the folder means what it meant whatever kills the process (an index line names a run whose
files are whole), the lines keep the order in which the runs' files were done, and the
bytes are the same (the same calls of :class:`~sscbench.study.folder.StudyDir`). A
record whose caller stops waiting (Ctrl-C cancels the runs in flight) is still finished
on its thread, and an index line being written is awaited before the cancellation goes
on (:func:`settled`), so the study's count of recorded runs stays the index's.

Only a study whose runs wait on a model endpoint offloads (``offload``): there the
order in which runs finish is the endpoint's timing anyway, and the writes overlap the
waits. A study of scripted roles waits on nothing: its runs interleave in an order
fixed by the code alone, which a write awaited on a thread would make depend on the
disk's timing, so its writes stay in line and its index stays byte-identical from one
invocation to the next.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from sscbench.core.ledger import EvaluatorEvent, LedgerEvent
from sscbench.llm.journal_carry import journal_recorded
from sscbench.study.folder import IndexEntry, StudyDir

T = TypeVar("T")

FILE_THREADS = 4
"""Threads writing runs' files side by side (a file system commits them together)."""


class RunWriter:
    """Writes a study's run files on a few threads, its timing and index lines on one, in
    the order they are asked for."""

    def __init__(self, store: StudyDir, *, offload: bool = True, threads: int = FILE_THREADS):
        self.store = store
        self.offload = offload
        self._files = ThreadPoolExecutor(threads, thread_name_prefix="sscbench-run-files")
        self._lines = ThreadPoolExecutor(1, thread_name_prefix="sscbench-index")

    async def _do(self, pool: ThreadPoolExecutor, work: Callable[..., T], *args: Any) -> T:
        """``work(*args)`` on ``pool``, awaited to its end (:func:`settled`); in line,
        without yielding to the loop, when the writer does not offload."""
        if not self.offload:
            return work(*args)
        return await settled(asyncio.get_running_loop().run_in_executor(pool, work, *args))

    async def run_files(
        self,
        run_id: str,
        ledger: list[LedgerEvent],
        evaluator: list[EvaluatorEvent],
        wall_s: float,
    ) -> tuple[str, str]:
        """Write a run's ledger and evaluator log (runs' files are written side by side,
        each atomically), then its timing line; returns both files' sha256 (as
        :meth:`StudyDir.write_run`)."""
        store = self.store
        digests = await self._do(self._files, store.write_run, run_id, ledger, evaluator)
        await self._do(self._lines, store.append_timing, run_id, wall_s)
        return digests

    async def index_line(self, entry: IndexEntry, journal: str | None = None) -> None:
        """Append a finished run's index line, then tell the journals the run is
        recorded (its answers are in its files now: the file a resume carried answers
        forward into goes once all its runs are; ``journal``, the run's journal, is not
        needed for that any more). Awaited to its end even when the caller is
        cancelled meanwhile (the line is being written whatever happens), so the caller
        may count the run before the cancellation goes on (:func:`settled`)."""
        await self._do(self._lines, self._index_line, entry, journal)

    def _index_line(self, entry: IndexEntry, journal: str | None) -> None:
        self.store.append_index(entry)
        # any run, journal or not (a carried run may now be recorded unmade, e.g. not
        # qualified): the file its answers were carried forward into may go
        journal_recorded(self.store.runs, entry.run_id)

    async def aclose(self) -> None:
        """Finish every write asked for and stop the threads."""
        await asyncio.get_running_loop().run_in_executor(None, self.close)

    def close(self) -> None:
        """Finish every write asked for and stop the threads (outside an event loop)."""
        self._files.shutdown(wait=True)
        self._lines.shutdown(wait=True)


def freeze_heap() -> None:
    """Collect garbage once, then move every object alive (the worlds, their tasks and
    data, the plan: alive for the whole study) out of the collector's sight, so its full
    collections during the runs walk only what the runs allocate; at concurrency 256 a
    full collection over a τ-bench world held the event loop for a tenth of a second.
    Objects are still freed by their reference counts; cycles among objects alive now
    wait for ``gc.unfreeze()`` (the executor's, after the runs)."""
    gc.collect()
    gc.freeze()


async def settled(work: asyncio.Future[T]) -> T:
    """The result of ``work``, waited for to its end: a cancellation of the caller that
    arrives meanwhile is raised only after it is done (on the next ``await``), since
    the thread doing it cannot be stopped and what the caller does with it must happen."""
    cancelled = False
    while True:
        try:
            result = await asyncio.shield(work)
            break
        except asyncio.CancelledError:
            if work.cancelled():
                raise
            cancelled = True
    if cancelled:
        task = asyncio.current_task()
        if task is not None:
            task.cancel()  # delivered at the caller's next await
    return result


__all__ = ["RunWriter", "freeze_heap", "settled"]
