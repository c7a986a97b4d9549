"""The whole-study overhead baseline (``benchmarks/overhead_schedule.py``): the study's own
schedule of shared clean runs and dependent faulted runs, not a pile of episodes."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def schedule():
    """The benchmark module, loaded from its file (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location(
        "overhead_schedule", BENCHMARKS / "overhead_schedule.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("overhead_schedule", module)
    spec.loader.exec_module(module)
    return module


def test_independent_clean_runs_take_whole_rounds(schedule):
    units = [(f"c{i}", False) for i in range(5)]
    assert schedule.ideal_wall(units, 2, 1.5) == pytest.approx(4.5)  # 3 rounds of 2 workers
    assert schedule.ideal_wall(units, 5, 1.5) == pytest.approx(1.5)


def test_a_faulted_run_follows_its_clean_run(schedule):
    # one worker: clean (1.5) then faulted (1.5), then the next clean
    assert schedule.ideal_wall([("a", True), ("b", False)], 1, 1.5) == pytest.approx(4.5)
    # two workers: the qualified unit's chain is the longest path
    assert schedule.ideal_wall([("a", True), ("b", False)], 2, 1.5) == pytest.approx(3.0)


def test_a_unit_sharing_a_clean_run_waits_for_it_holding_its_worker(schedule):
    # units 1 and 2 share clean run "a": the second waits 1.5 s on worker 2, then makes its
    # faulted run; unit 3 gets the first free worker
    units = [("a", True), ("a", True), ("b", False)]
    assert schedule.ideal_wall(units, 2, 1.0) == pytest.approx(3.0)
    # with one worker the shared clean run is made once
    assert schedule.ideal_wall(units, 1, 1.0) == pytest.approx(4.0)
