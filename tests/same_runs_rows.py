"""Measurement rows for the tests of counts on the same runs (issue #30 item 3)."""

from __future__ import annotations

from typing import Any

from sscbench.study.rows import MeasurementRow


def run(i: int, **fields: Any) -> MeasurementRow:
    """A completed, triggered faulted run of repetition 0 with its own cluster."""
    row = {
        "run_id": f"r{i}",
        "kind": "faulted",
        "status": "completed",
        "triggered": True,
        "repetition": 0,
        "control": False,
        "operator": "WriteEffect",
        "config_id": "F",
        "case_id": f"c{i}",
        "cluster": f"k{i}",
        "A": 1,
        "T_S": 5,
        "T_U": 5,
        "T_E": "inf",
        "Z_S": "absent",
        "Y_end": "endorses",
        "literal": True,
    }
    row.update(fields)
    return MeasurementRow.of(row)


def write_effect_runs() -> list[MeasurementRow]:
    """10 evaluable runs: 7 adopted (2 evidence before use, 3 after, 2 none), 3 not."""
    before = [run(i, T_E=2, Z_S="pre") for i in range(2)]
    after = [run(i, T_E=8, Z_S="late") for i in range(2, 5)]
    none = [run(i) for i in range(5, 7)]
    rejected = [run(i, A=0, T_U="inf", T_E=1, Z_S="pre") for i in range(7, 10)]
    return [*before, *after, *none, *rejected]


def cue_run(case: str, config: str, **fields: Any) -> MeasurementRow:
    """A completed, triggered WriteEffect run of the read-back-cue check: case ``case``
    under configuration ``config``, no counterevidence, no read-back, adopted."""
    row = {
        "run_id": f"{case}:{config}",
        "case_id": case,
        "config_id": config,
        "repetition": 0,
        "kind": "faulted",
        "status": "completed",
        "operator": "WriteEffect",
        "control": False,
        "cluster": case,
        "triggered": True,
        "T_F": 3,
        "T_E": "inf",
        "T_S": 10,
        "A": 1,
        "Z_S": "absent",
        "read_back_step": "inf",
    }
    return MeasurementRow.of({**row, **fields})
