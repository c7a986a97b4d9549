"""``sscbench measure --workers N``: measurement lines computed by a pool of processes.

The index is streamed in chunks of :data:`CHUNK` runs; each chunk goes to a worker
process that loaded the study's cases once (:func:`_start`) and returns the chunk's
``measurements.jsonl`` lines. Results are taken back in submission order, so the lines,
their order and the file's seal are those of the one-process path (the same
:func:`~sscbench.measure.study.measure_entries` computes every row). At most
``2 × workers`` chunks are in flight, so memory does not grow with the study: neither
the index nor the rows are ever held whole.

Only the rule classifier is measured in parallel (an LLM classifier holds an open
endpoint, and its requests are already concurrent there); workers start by ``spawn``,
so no thread of the parent (the progress display) is copied into them.
"""

from __future__ import annotations

import multiprocessing
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from itertools import islice

from sscbench.errors import DataError
from sscbench.faults.case import Case
from sscbench.measure.classifier import UseClassifier
from sscbench.study.folder import IndexEntry, StudyDir
from sscbench.study.rows import MeasurementRow

Measure = Callable[
    [StudyDir, dict[str, Case], UseClassifier | None, Iterable[IndexEntry]],
    Iterable[MeasurementRow],
]
"""How a chunk is measured: ``measure_entries(store, cases, classifier, entries)``."""

CHUNK = 64
"""Runs measured by one task of a worker: large enough that pickling is cheap beside
reading the ledgers, small enough that a chunk's rows are a few hundred kB."""

_store: StudyDir | None = None
_cases: dict[str, Case] = {}


def _start(root: str) -> None:
    """A worker's start: open the study and read its cases once."""
    global _store, _cases
    from sscbench.study.study import Study

    study = Study.open(root)
    _store, _cases = study.store, study.cases


class _CarriedError(Exception):
    """A worker's :class:`DataError`, by its parts (a DataError does not unpickle: its
    constructor takes three arguments), raised again as one in the parent."""


def _measure_chunk(measure: Measure, entries: list[IndexEntry]) -> list[str]:
    """The ``measurements.jsonl`` lines of one chunk of runs, in the chunk's order
    (``measure`` is :func:`~sscbench.measure.study.measure_entries`, passed by the
    caller and pickled by name, so this module does not import the one that uses it)."""
    assert _store is not None, "the worker was not started by _start"
    try:
        return [row.line() for row in measure(_store, _cases, None, entries)]
    except DataError as exc:
        raise _CarriedError(str(exc.path), exc.field, exc.reason) from None


def _result(future: Future[list[str]]) -> list[str]:
    """A chunk's lines; a worker's DataError raised here as the same DataError."""
    try:
        return future.result()
    except _CarriedError as exc:
        raise DataError(*exc.args) from None


def chunked(entries: Iterable[IndexEntry], size: int) -> Iterator[list[IndexEntry]]:
    """``entries`` in lists of ``size`` (the last one shorter), read lazily."""
    it = iter(entries)
    while chunk := list(islice(it, size)):
        yield chunk


def parallel_lines(
    store: StudyDir, workers: int, measure: Measure, entries: Iterable[IndexEntry] | None = None
) -> Iterator[str]:
    """The measurement lines of every run in the index (or ``entries``), in index order,
    computed by ``measure`` in ``workers`` processes with at most ``2 × workers`` chunks
    in flight."""
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    source = store.read_index() if entries is None else entries
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        workers, mp_context=context, initializer=_start, initargs=(str(store.root),)
    ) as pool:
        pending: deque[Future[list[str]]] = deque()
        for chunk in chunked(source, CHUNK):
            pending.append(pool.submit(_measure_chunk, measure, chunk))
            if len(pending) >= 2 * workers:
                yield from _result(pending.popleft())
        while pending:
            yield from _result(pending.popleft())
