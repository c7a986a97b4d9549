"""``plan.jsonl`` streamed with its one rule: a faulted run is planned once
(``study/plan_lines.py``). The ids seen are kept as hashes and line offsets, so the
check must stay exact: a repeat is named with both lines' numbers, and ids that share a
hash are still told apart."""

from __future__ import annotations

import json
from functools import partial

import pytest

from sscbench.errors import DataError
from sscbench.study import plan_lines
from sscbench.study.plan_lines import iter_plan_lines
from sscbench.study.seen_ids import LineIds


def _unit(faulted: object, clean: str = "c0") -> str:
    return json.dumps({"clean_run_id": clean, "faulted_run_id": faulted, "config_id": "a"})


def _plan(tmp_path, lines: list[str]):
    path = tmp_path / "plan.jsonl"
    path.write_text("".join(line + "\n" for line in lines), "utf-8")
    return path


@pytest.mark.parametrize("one_hash", [False, True], ids=["hash", "one-hash-for-all"])
def test_a_faulted_run_planned_twice_is_named_with_both_lines(tmp_path, monkeypatch, one_hash):
    if one_hash:  # every id collides: only reading the earlier line tells them apart
        monkeypatch.setattr(plan_lines, "LineIds", partial(LineIds, key=lambda run_id: 7))
    ids = [f"faulted-{n}" for n in range(40)]
    lines = [_unit(i) for i in ids]
    assert [row["faulted_run_id"] for row in iter_plan_lines(_plan(tmp_path, lines))] == ids
    # blank lines are not counted: faulted-3 is plan line 4, its repeat plan line 41
    repeated = _plan(tmp_path, [*lines[:2], "", *lines[2:], "  ", _unit("faulted-3", "c9")])
    read = []
    with pytest.raises(DataError, match=r"'faulted-3' is planned twice \(plan lines 4 and 41"):
        for row in iter_plan_lines(repeated):
            read.append(row["faulted_run_id"])
    assert read == ids  # every line before the repeat was given


def test_a_faulted_id_that_is_not_a_string_is_still_checked(tmp_path):
    with pytest.raises(DataError, match=r"7 is planned twice \(plan lines 1 and 3"):
        list(iter_plan_lines(_plan(tmp_path, [_unit(7), _unit("x"), _unit(7)])))
    rows = list(iter_plan_lines(_plan(tmp_path, [_unit(None), _unit(None)])))
    assert len(rows) == 2  # a line without a faulted run is no repeat
