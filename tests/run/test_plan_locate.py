"""A run id's place in the plan (Plan.locate / unit_of): found from the id's parts,
exactly the planned ids, nothing kept per unit; the stored plan compared line by line."""

from __future__ import annotations

import json

import pytest

from sscbench.errors import DataError
from sscbench.run.builders import build_cases
from sscbench.run.planning import make_plan
from sscbench.run.shared_clean import check_plan_format
from sscbench.study.config import parse_config
from sscbench.study.worlds import build_worlds

CONFIG = """
[study]
seed = 5
repetitions = 3
[world]
source = "generated"
domains = ["airline", "retail"]
[cases]
operators = ["SuppressWrite"]
per_operator = 6
[[agents]]
id = "t"
profile = "trusting"
[[agents]]
id = "r"
profile = "readback"
repetitions = 2
"""


@pytest.fixture(scope="module")
def plan():
    config = parse_config(CONFIG, "s.toml")
    return make_plan(config, build_cases(config, build_worlds(config)))


def test_every_planned_run_is_found_at_its_place(plan):
    slots = set()
    for position, unit in enumerate(plan):
        assert unit.position == position
        place = plan.locate(unit.faulted_run_id)
        assert place is not None and (place.kind, place.index) == ("faulted", position)
        made = plan.unit_of(unit.faulted_run_id)
        assert made == unit and made.position == position
        assert made.clean.slot_index == unit.clean.slot_index
        clean = plan.locate(unit.clean_run_id)
        assert clean is not None and (clean.kind, clean.index) == ("clean", unit.clean.slot_index)
        slots.add(unit.clean.slot_index)
    assert len(slots) == plan.slot_count == plan.clean_count()


def test_no_other_id_is_found(plan):
    unit = next(iter(plan))
    faulted, clean = unit.faulted_run_id, unit.clean_run_id
    others = [
        faulted.replace("--r0--", "--r3--"),  # beyond the repetitions
        faulted.replace("--r0--", "--r00--"),  # not the id run_id_for makes
        faulted.replace("--r0--", "--r²--"),
        faulted.replace("--r0--", "--r" + "9" * 5000 + "--"),
        faulted.replace("faulted", "clean"),
        clean.replace("clean", "faulted"),
        clean.replace("--t--", "--x--"),
        faulted.replace("--t--", "--r--").replace("--r0--", "--r2--"),  # r has 2 repetitions
        "a--b--r0--faulted",
        faulted + "--x",
        "",
    ]
    for run_id in others:
        assert plan.locate(run_id) is None, run_id
        assert plan.unit_of(run_id) is None
    assert plan.unit_of(clean) is None  # a clean run is no unit's faulted run


def test_the_stored_plan_is_compared_line_by_line(plan, tmp_path):
    stored = tmp_path / "plan.jsonl"
    lines = [json.dumps(u.plan_line(), sort_keys=True) + "\n" for u in plan]
    stored.write_text("".join(lines))
    assert check_plan_format(stored, lambda: (u.plan_line() for u in plan)) is True
    stored.write_text("".join(reversed(lines)))  # other order, same runs: checked by id
    assert check_plan_format(stored, lambda: (u.plan_line() for u in plan)) is False
    stored.write_text("".join(lines[:-1]))  # fewer lines: every stored run is planned
    assert check_plan_format(stored, lambda: (u.plan_line() for u in plan)) is False
    row = json.loads(lines[0]) | {"clean_run_id": "another"}
    stored.write_text(json.dumps(row, sort_keys=True) + "\n" + "".join(lines[1:]))
    with pytest.raises(DataError, match="one clean run per case"):
        check_plan_format(stored, lambda: (u.plan_line() for u in plan))
