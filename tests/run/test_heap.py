"""A study's runs go with the heap frozen and young collections spaced out; after them
the collector is as it was."""

from __future__ import annotations

import gc

import pytest

from sscbench.run.heap import RUNS_GC_THRESHOLD, runs_heap


def test_the_runs_heap_spaces_collections_and_puts_everything_back():
    before = gc.get_threshold()
    gc.unfreeze()
    kept = [object() for _ in range(10)]
    with runs_heap():
        assert gc.get_threshold() == RUNS_GC_THRESHOLD
        assert gc.get_freeze_count() > 0  # what was alive before the runs is frozen
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0
    assert kept


def test_the_collector_is_put_back_when_the_runs_fail():
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), runs_heap():
        raise RuntimeError("a run failed")
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
