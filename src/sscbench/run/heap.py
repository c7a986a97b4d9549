"""The heap as a study's runs use it: what is alive before them frozen out of the garbage
collector, and young collections spaced out while they run.

At high concurrency the runs allocate fast (256 runs in flight against a 0.5 s endpoint
make ~512 model calls a second, each some thousands of objects), and at CPython's
default threshold (a young collection every 700 allocations of tracked objects) the
collector walked the young objects thousands of times a second:
``benchmarks/overhead.py`` measured 0.38–0.6 s of collection pauses in a 7–9 s run at
concurrency 256, all of it holding the event loop. With a young collection every
20,000 allocations most of a request's objects are freed by their reference counts
before a collection sees them: 0.015 s of pauses in the same runs (docs/cost.md).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

from sscbench.run.writer import freeze_heap

RUNS_GC_THRESHOLD = (20_000, 20, 20)
"""``gc.set_threshold`` while the runs go: a young collection every 20,000 allocations
(CPython's default: 700), the older generations after 20 of the younger's (default: 10)."""


@contextmanager
def runs_heap() -> Iterator[None]:
    """While the runs go: the objects alive now frozen out of the collector's sight
    (:func:`~sscbench.run.writer.freeze_heap`: the worlds, the plan) and collections at
    :data:`RUNS_GC_THRESHOLD`; after them the thresholds as they were and the objects
    unfrozen. Objects are still freed by their reference counts as they go; only cycles
    wait a little longer for a collection."""
    before = gc.get_threshold()
    freeze_heap()
    gc.set_threshold(*RUNS_GC_THRESHOLD)
    try:
        yield
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()


__all__ = ["RUNS_GC_THRESHOLD", "runs_heap"]
