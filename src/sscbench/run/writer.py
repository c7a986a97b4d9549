"""The study folder's one writer, on a thread of its own so the event loop never waits
on disk, and off the runs' concurrency slots.

A finished run costs the folder its text (two atomic files, or one frame appended to the
open shard), a line in ``timings.jsonl``, a line in the index (then the journals are told it is
recorded). Each is a file-system call that usually takes a tenth of a millisecond
and, on a disk shared with other work, now and then tens of them; made on the event
loop, every run in flight waits that long (``benchmarks/overhead.py`` measures it at
concurrency 64 and 256 against a 0.5 s endpoint; docs/cost.md).

:class:`RunWriter` makes a run's whole record one job (:meth:`RunWriter.record_run`:
text, timing line, index line, the journals told, in that order) on one thread, first in
first out, and hands the caller a future of it at once: the caller (a worker of the
executor) goes on to its next unit while the run is recorded, as a bare client starts
its next conversation as soon as one ends. So:

* an index line names a run whose text is whole (the job writes it after the text), so
  the folder means what it meant whatever kills the process;
* index lines keep the order in which the records were asked for (one thread, FIFO):
  a faulted run, asked for once its clean run's outcome is known, which is after its
  clean run's record was asked for, is never indexed before it;
* what the caller does once a run is indexed (``then``: the runner's count, costs,
  progress, ``stop_when``) runs on the event loop after the job, for every run;
* at most ``pending`` records wait at once: a record asked for beyond that waits for
  room (the worker does not start its next unit), so memory stays flat;
* :meth:`RunWriter.drain` waits for every pending record and raises the first failure
  (a failure is also raised to the next :meth:`record_run`, and no record after a failed
  one is written, so no line follows a missing one): nothing is lost silently, and a
  record under way when Ctrl-C cancels the workers is finished and counted, so the
  study's count of recorded runs stays the index's.

With ``hold_files`` (the executor's writer, for the study's invocation, under its
lock) the index, the timings and the open shard stay open for the writer's life
(:meth:`~sscbench.study.folder.StudyDir.hold_files`, closed by :meth:`RunWriter.close`):
a line is one ``write``, not an open, a write and a close. The bytes are those of the
same :class:`~sscbench.study.folder.StudyDir` calls made in line.

Only a study whose runs wait on a model endpoint offloads (``offload``): there the
order in which runs finish is the endpoint's timing anyway, and the writes overlap the
waits. A study of scripted roles waits on nothing: its runs interleave in an order
fixed by the code alone, which a write awaited on a thread would make depend on the
disk's timing, so its records are made in line (the future returned is done) and its
index stays byte-identical from one invocation to the next.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from sscbench.core.ledger import EvaluatorEvent, LedgerEvent
from sscbench.llm.journal_carry import journal_recorded
from sscbench.study.folder import IndexEntry, StudyDir

PENDING = 64
"""Records that may wait for the writer's thread at once (the executor passes the
study's concurrency)."""

Then = Callable[[IndexEntry], None]
"""What the caller does once a run's index line is written (on the event loop)."""


def _nothing(entry: IndexEntry) -> None:
    return None


class RunWriter:
    """Records a study's runs on one thread, in the order they are asked for, while the
    callers go on (see the module)."""

    def __init__(
        self,
        store: StudyDir,
        *,
        offload: bool = True,
        pending: int = PENDING,
        hold_files: bool = False,
    ):
        self.store = store
        self.offload = offload
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="sscbench-index")
        self._room = asyncio.Semaphore(max(1, pending))
        self._pending: set[asyncio.Task[IndexEntry]] = set()
        self._failure: BaseException | None = None
        self._broken: BaseException | None = None  # a job failed: the thread writes no more
        if hold_files:  # the study's invocation: the index, timings and shard held open
            store.hold_files()

    async def record_run(
        self,
        run_id: str,
        ledger: list[LedgerEvent],
        evaluator: list[EvaluatorEvent],
        wall_s: float,
        entry_of: Callable[[tuple[str, str]], IndexEntry],
        journal: str | None = None,
        then: Then = _nothing,
    ) -> asyncio.Future[IndexEntry]:
        """Record a finished run as one job: its ledger and evaluator log, its timing
        line, its index line (``entry_of`` the texts' sha256, as
        :meth:`StudyDir.write_run` returns them), then the removal of its journal; then
        ``then(entry)`` on the loop. Returns once the job is asked for (after waiting
        for room), with the future of the entry recorded."""

        def job() -> IndexEntry:
            digests = self.store.write_run(run_id, ledger, evaluator)
            self.store.append_timing(run_id, wall_s)
            entry = entry_of(digests)
            self._index_line(entry, journal)
            return entry

        return await self._record(job, then)

    async def record_entry(
        self, entry: IndexEntry, journal: str | None = None, then: Then = _nothing
    ) -> asyncio.Future[IndexEntry]:
        """Record a run without text (not qualified, or missing before it ran): its index
        line, in turn with the runs' records (as :meth:`record_run`)."""

        def job() -> IndexEntry:
            self._index_line(entry, journal)
            return entry

        return await self._record(job, then)

    async def _record(
        self, job: Callable[[], IndexEntry], then: Then
    ) -> asyncio.Future[IndexEntry]:
        loop = asyncio.get_running_loop()
        if not self.offload:
            entry = job()
            then(entry)
            done: asyncio.Future[IndexEntry] = loop.create_future()
            done.set_result(entry)
            return done
        self._raise_failure()
        await self._room.acquire()  # no await after this: the job is asked for, or not
        work = loop.run_in_executor(self._thread, self._unless_broken, job)
        task = loop.create_task(self._finish(work, then))
        self._pending.add(task)
        task.add_done_callback(self._settle)
        return task

    def _unless_broken(self, job: Callable[[], IndexEntry]) -> IndexEntry:
        """``job()`` on the writer's thread, unless a record before it failed: then
        nothing more is written (a faulted run's line never follows its clean run's
        failed one; the runs not recorded are run again on resume)."""
        if self._broken is not None:
            raise self._broken
        try:
            return job()
        except BaseException as exc:
            self._broken = exc
            raise

    @staticmethod
    async def _finish(work: asyncio.Future[IndexEntry], then: Then) -> IndexEntry:
        entry = await work
        then(entry)
        return entry

    def _settle(self, task: asyncio.Task[IndexEntry]) -> None:
        self._pending.discard(task)
        self._room.release()
        failure = None if task.cancelled() else task.exception()
        if failure is not None and self._failure is None:
            self._failure = failure

    def _raise_failure(self) -> None:
        if self._failure is not None:
            raise self._failure

    @property
    def pending(self) -> int:
        """Records asked for and not yet done (their ``then`` included)."""
        return len(self._pending)

    async def drain(self) -> None:
        """Wait for every record asked for (and its ``then``), then raise the first one
        that failed, if any."""
        await self._wait_pending()
        self._raise_failure()

    async def _wait_pending(self) -> None:
        while self._pending:
            await asyncio.wait(set(self._pending))

    def _index_line(self, entry: IndexEntry, journal: str | None) -> None:
        self.store.append_index(entry)
        # any run, journal or not (a carried run may now be recorded unmade, e.g. not
        # qualified): the file its answers were carried forward into may go
        journal_recorded(self.store.runs, entry.run_id)

    async def aclose(self) -> None:
        """Finish every record asked for (failures are :meth:`drain`'s to raise), then
        stop the thread and close the held files."""
        await self._wait_pending()
        await asyncio.get_running_loop().run_in_executor(None, self.close)

    def close(self) -> None:
        """Finish every write asked for, stop the thread and close the files held open
        (outside an event loop; records still pending there are :meth:`aclose`'s)."""
        self._thread.shutdown(wait=True)
        self.store.close_files()


def freeze_heap() -> None:
    """Collect garbage once, then move every object alive (the worlds, their tasks and
    data, the plan: alive for the whole study) out of the collector's sight, so its full
    collections during the runs walk only what the runs allocate; at concurrency 256 a
    full collection over a τ-bench world held the event loop for a tenth of a second.
    Objects are still freed by their reference counts; cycles among objects alive now
    wait for ``gc.unfreeze()`` (the executor's, after the runs)."""
    gc.collect()
    gc.freeze()


__all__ = ["PENDING", "RunWriter", "freeze_heap"]
