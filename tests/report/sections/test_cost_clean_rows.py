"""``tables/clean_runs.csv``'s rows made when read (``report/sections/cost_clean_rows.py``):
the same rows the section once held as dicts, in the runs' order, each clean run with the
faulted runs naming it, in their order, and their outcomes counted."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from sscbench.report.sections.cost_clean_rows import CleanRows


@dataclass(frozen=True)
class _Run:
    run_id: str
    kind: str
    status: str = "completed"
    clean_run_id: str | None = None
    config_id: str = "a"
    repetition: int = 0
    reward: float | None = 1.0
    task: str | None = "t"
    case_id: str = "case"
    served: int = 0


def _held(runs: list[_Run]) -> list[dict]:
    """The rows as the section built them before: dicts, counted with Counters."""
    from collections import Counter, defaultdict

    decided, ids = defaultdict(Counter), defaultdict(list)
    for run in runs:
        if run.kind == "faulted" and run.clean_run_id:
            state = "qualified" if run.status == "completed" else run.status
            decided[run.clean_run_id][state] += 1
            ids[run.clean_run_id].append(run.run_id)
    return [
        {
            "clean_run_id": r.run_id,
            "config_id": r.config_id,
            "repetition": r.repetition,
            "task": r.task or r.case_id,
            "status": r.status,
            "reward": r.reward,
            "cases": r.served,
            "qualified": decided[r.run_id]["qualified"],
            "not_qualified": decided[r.run_id]["not-qualified"],
            "missing": decided[r.run_id]["missing"],
            "faulted_run_ids": " ".join(ids[r.run_id]),
        }
        for r in runs
        if r.kind == "clean"
    ]


def test_rows_read_as_the_held_rows_did():
    runs = [
        _Run("c1", "clean", served=3),
        _Run("f1", "faulted", clean_run_id="c1"),
        _Run("c2", "clean", status="missing", reward=None, task=None),
        _Run("f2", "faulted", status="not-qualified", clean_run_id="c1"),
        _Run("f3", "faulted", status="missing", clean_run_id="c2"),
        _Run("f4", "faulted", clean_run_id="gone"),  # its clean run is not in the index
        _Run("f5", "faulted", status="missing", clean_run_id="c1"),
        _Run("f6", "faulted"),  # names no clean run
        _Run("c3", "clean", config_id="b", repetition=2),
    ]
    rows = CleanRows(runs)
    held = _held(runs)
    assert list(rows) == held and rows == held and len(rows) == 3
    assert rows[0]["faulted_run_ids"] == "f1 f2 f5"
    assert (rows[0]["qualified"], rows[0]["not_qualified"], rows[0]["missing"]) == (1, 1, 1)
    assert rows[1]["task"] == "case" and rows[1]["faulted_run_ids"] == "f3"
    assert rows[-1] == held[-1] and rows[1:] == held[1:]
    assert rows[2]["faulted_run_ids"] == "" and rows[2]["qualified"] == 0
    with pytest.raises(IndexError):
        rows[3]
    assert CleanRows([]) == [] and list(CleanRows([_Run("f", "faulted")])) == []
