"""``sscbench measure --executor ray``: measurement lines computed by Ray worker actors.

The index is streamed in the chunks ``--workers`` uses (:data:`~sscbench.measure.parallel.
CHUNK` runs, in index order); each chunk goes to the least busy of ``[study.ray] workers``
actors and its ``measurements.jsonl`` lines are taken back in submission order, so the
lines, their order and the file's seal are those of ``--workers 1`` (every row is
:func:`~sscbench.measure.rows.measure_row`'s). At most ``2 × workers`` chunks are in
flight: the driver holds only those, never the index or the rows whole.

**What the workers read.** ``run`` on Ray assumes each node has the study's *inputs*
(the config's files, checked by sha256), not the study folder, which the driver alone
writes. So a worker is not asked to see the folder: the driver reads each chunk's run
text (:class:`~sscbench.study.ledgers.RunText`, decoded and, in shards, checked against
each frame's sha256 as every reader does) and ships it with the chunk; the cases are
shipped once, through the object store. A worker parses and measures: the CPU part.

**Failure.** A worker lost while it has a chunk (its process killed, its node lost) is
restarted by Ray; once it answers again (within ``[study.ray] start_timeout_s``) the
chunk is measured again, from the same shipped text, on the least busy worker, up to
``[study.ray] attempts`` times; :attr:`RayMeasure.remeasured` counts them and the
command says so. A chunk that fails (a run's text that does not
parse, a measurement that raises) stops the command with the run named; ``measure``
writes through a temporary file, so nothing is half-written.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from sscbench.errors import DataError
from sscbench.faults.case import Case
from sscbench.measure.parallel import CHUNK, chunked
from sscbench.measure.rows import measure_shipped, reads_ledger
from sscbench.study.folder import IndexEntry, StudyDir
from sscbench.study.ledgers import RunText
from sscbench.study.placement import join_ray, wait_started
from sscbench.study.ray_config import RaySettings

REVIVE_POLL_S = 0.5
"""How often a lost worker is asked whether it is back (within ``start_timeout_s``)."""

Shipped = list[tuple[IndexEntry, RunText | None]]
"""A chunk as shipped: each index entry with its run's text when its row reads it."""


class ChunkMeasurer:
    """A worker: it holds nothing between chunks (each brings its runs' text and cases),
    so one Ray restarts after a loss needs no constructor arguments and is the same."""

    def ready(self) -> int:
        """This worker's process id."""
        return os.getpid()

    def measure(self, cases: dict[str, Case], chunk: Shipped, cases_file: str) -> list[str]:
        """The chunk's ``measurements.jsonl`` lines, in its order. A run that cannot be
        measured raises a :class:`DataError` naming it (a bug's exception included: the
        driver has no traceback of this process to show)."""
        lines = []
        for run in chunk:
            try:
                lines += [row.line() for row in measure_shipped(cases, [run], cases_file)]
            except DataError:
                raise
            except Exception as exc:
                reason = f"measuring it failed on a Ray worker: {type(exc).__name__}: {exc}"
                raise DataError("<ray worker>", f"run {run[0].run_id}", reason) from None
        return lines


@dataclass
class _Slot:
    """One worker actor and the chunks it has in flight."""

    actor: Any
    in_flight: int = 0


@dataclass
class _Chunk:
    """A chunk in flight: what was shipped (kept to measure it again), where, its result."""

    cases: dict[str, Case]  # the cases of its runs
    runs: Shipped
    slot: _Slot
    ref: Any
    tries: int = 0  # times its worker was lost while it had it


class RayMeasure:
    """Measurement lines from Ray worker actors (see the module docstring): join the
    cluster with :meth:`start`, read :meth:`lines`, then :meth:`close`."""

    def __init__(
        self, ray: ModuleType, settings: RaySettings, owns_ray: bool, cases_file: str
    ) -> None:
        self.ray = ray
        self.cases_file = cases_file
        self.settings = settings
        self.owns_ray = owns_ray
        self.slots: list[_Slot] = []
        self.pids: list[int] = []  # where each worker first started
        self.pending: deque[_Chunk] = deque()
        self.remeasured = 0  # chunks measured again after their worker was lost

    @classmethod
    def start(cls, settings: RaySettings, address: str | None, cases_file: str) -> RayMeasure:
        """Join the cluster at ``address`` (or start a private local one), start
        ``settings.workers`` workers and wait until each answers (``cases_file`` is what
        a run whose case is absent names)."""
        ray, owns_ray = join_ray(settings, address)
        measure = cls(ray, settings, owns_ray, cases_file)
        try:
            worker = ray.remote(ChunkMeasurer).options(
                num_cpus=settings.worker_cpus, max_restarts=-1, max_task_retries=0
            )
            measure.slots = [_Slot(worker.remote()) for _ in range(settings.workers)]
            measure.pids = measure._wait_ready()
        except BaseException:
            measure.close()
            raise
        return measure

    def _wait_ready(self) -> list[int]:
        refs = [slot.actor.ready.remote() for slot in self.slots]
        timeout = self.settings.start_timeout_s
        question = f"does the cluster have {self.settings.worker_cpus:g} CPUs free for each?"
        try:
            words = ("measuring workers", question)
            wait_started(self.ray, refs, timeout, "study.ray.start_timeout_s", words)
            return list(self.ray.get(refs))
        except self.ray.exceptions.RayError as exc:
            raise DataError("<ray cluster>", None, f"a worker could not start: {exc}") from exc

    def lines(
        self, store: StudyDir, cases: dict[str, Case], entries: Iterable[IndexEntry]
    ) -> Iterator[str]:
        """The measurement lines of ``entries``, in their order, at most ``2 × workers``
        chunks in flight (each chunk's run text read here, as it is submitted)."""
        bound = 2 * len(self.slots)
        for chunk in chunked(entries, CHUNK):
            runs = [(e, _text(store, cases, e)) for e in chunk]
            used = {e.case_id: cases[e.case_id] for e in chunk if e.case_id in cases}
            self.pending.append(self._submit(_Chunk(used, runs, self.slots[0], None)))
            if len(self.pending) >= bound:
                yield from self._result(self.pending.popleft())
        while self.pending:
            yield from self._result(self.pending.popleft())

    def _submit(self, chunk: _Chunk) -> _Chunk:
        """Send ``chunk`` to the least busy worker (again, after a loss)."""
        chunk.slot = min(self.slots, key=lambda s: s.in_flight)
        chunk.slot.in_flight += 1
        chunk.ref = chunk.slot.actor.measure.remote(chunk.cases, chunk.runs, self.cases_file)
        return chunk

    def _result(self, chunk: _Chunk) -> list[str]:
        """A chunk's lines; measured again while its worker is lost under it (up to
        ``attempts`` tries); a worker's :class:`DataError` raised here as itself."""
        exceptions = self.ray.exceptions
        while True:
            try:
                return list(self.ray.get(chunk.ref))
            except exceptions.RayActorError as exc:  # ActorUnavailableError included
                lost: BaseException = exc
            except exceptions.RayTaskError as exc:
                cause = getattr(exc, "cause", None)
                if isinstance(cause, DataError):
                    raise cause from None
                raise DataError("<ray worker>", None, str(exc).splitlines()[0]) from None
            finally:
                chunk.slot.in_flight -= 1
            chunk.tries += 1
            if chunk.tries >= self.settings.attempts:
                raise self._too_many(chunk, lost)
            self.remeasured += 1
            self._wait_back(chunk.slot, lost)
            self._submit(chunk)

    def _wait_back(self, slot: _Slot, exc: BaseException) -> None:
        """Wait until a lost worker answers again (Ray restarts it), at most
        ``start_timeout_s``, so a chunk is sent again only to a worker that is up."""
        deadline = time.monotonic() + self.settings.start_timeout_s
        exceptions = self.ray.exceptions
        while True:
            left = deadline - time.monotonic()
            try:
                if left > 0:
                    self.ray.get(slot.actor.ready.remote(), timeout=left)
                    return
            except (exceptions.RayActorError, exceptions.GetTimeoutError) as again:
                exc = again
            if time.monotonic() >= deadline:
                raise DataError(
                    "<ray cluster>",
                    "study.ray.start_timeout_s",
                    f"a lost worker did not come back within {self.settings.start_timeout_s:g}"
                    f" s (last: {str(exc).splitlines()[0]}); nothing was written",
                )
            time.sleep(REVIVE_POLL_S)

    def _too_many(self, chunk: _Chunk, exc: BaseException) -> DataError:
        first, last = chunk.runs[0][0].run_id, chunk.runs[-1][0].run_id
        return DataError(
            "<ray cluster>",
            "study.ray.attempts",
            f"the chunk of runs {first} … {last} lost its worker {chunk.tries} times "
            f"(last: {str(exc).splitlines()[0]}); nothing was written",
        )

    def close(self) -> None:
        """Stop the workers and leave the cluster (a private local cluster stops)."""
        for slot in self.slots:
            with contextlib.suppress(Exception):  # an actor already gone is let go
                self.ray.kill(slot.actor, no_restart=True)
        if self.owns_ray:
            self.ray.shutdown()


def _text(store: StudyDir, cases: dict[str, Case], entry: IndexEntry) -> RunText | None:
    """The run's text when its row is measured from its ledger, else None."""
    return (
        RunText.read(store, entry.run_id) if reads_ledger(entry, cases.get(entry.case_id)) else None
    )


@dataclass
class OnRay:
    """Where ``measure`` measures on Ray: the ``[study.ray]`` settings (``--workers``
    applied), the cluster's address (None: a private local cluster); after the measure,
    how many chunks were measured again after their worker was lost."""

    settings: RaySettings
    address: str | None = None
    remeasured: int = 0


def ray_lines(
    store: StudyDir,
    cases: dict[str, Case],
    where: OnRay,
    entries: Iterable[IndexEntry] | None = None,
) -> Iterator[str]:
    """The measurement lines of every run in the index (or ``entries``), in index order,
    measured on the Ray cluster ``where`` names; the workers are stopped when the lines
    end or their reader stops."""
    measure = RayMeasure.start(where.settings, where.address, str(store.cases))
    try:
        yield from measure.lines(store, cases, store.read_index() if entries is None else entries)
    finally:
        where.remeasured = measure.remeasured
        measure.close()
