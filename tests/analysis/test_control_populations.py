"""Target-value controls stay in arrival and out of every adoption quantity and claim.

A control run's fault leaves the target's value as it was, so "adopting" it is not
adopting a false value: the primary analysis keeps controls in the funnel and in the
arrival strata (as the paper does) and excludes them from A_T, A_P, a_s and from every
claim card's population.
"""

from __future__ import annotations

from sscbench.analysis.claims import BUILT_IN, claim_cards
from sscbench.analysis.populations import adopted_primary, cell_table
from sscbench.study.rows import MeasurementRow


def _run(run_id: str, *, control: bool, adopted: int, z_s: str = "pre") -> MeasurementRow:
    return MeasurementRow.of(
        {
            "run_id": run_id,
            "case_id": run_id,
            "cluster": run_id,
            "config_id": "m",
            "operator": "ItemOption",
            "kind": "faulted",
            "status": "completed",
            "repetition": 0,
            "triggered": True,
            "control": control,
            "A": adopted,
            "T_E": 3 if z_s == "pre" else 9,
            "T_S": 6,
            "T_U": 6 if adopted else "not-applicable",
            "Z_S": z_s,
        }
    )


ROWS = [
    _run("r1", control=False, adopted=0),
    _run("r2", control=False, adopted=1, z_s="late"),
    _run("r3", control=False, adopted=0),
    _run("ctl", control=True, adopted=1),
]


def test_no_claim_card_holds_a_control_run() -> None:
    cards = claim_cards(ROWS)
    assert {c["claim"] for c in cards} == {c.name for c in BUILT_IN}
    for card in cards:
        assert "ctl" not in card["runs"] and "ctl" not in card["counted"], card["claim"]
    propagation = next(c for c in cards if c["claim"] == "propagation")
    assert sorted(propagation["runs"]) == ["r1", "r2", "r3"]
    assert propagation["counted"] == ["r2"]
    pre = next(c for c in cards if c["claim"] == "adoption under pre-use counterevidence")
    assert sorted(pre["runs"]) == ["r1", "r3"] and pre["counted"] == []


def test_controls_count_in_arrival_but_not_in_adoption() -> None:
    (cell,) = cell_table(ROWS)
    assert cell["n_pre"] == 3 and cell["n_late"] == 1  # arrival keeps the control
    assert sorted(cell["runs"]["A_T_evaluable"]) == ["r1", "r2", "r3"]
    assert sorted(cell["runs"]["A_P_evaluable"]) == ["r1", "r2", "r3"]
    assert sorted(cell["runs"]["a_pre_total"]) == ["r1", "r3"]
    assert cell["runs"]["A_P_adopted"] == ["r2"]
    (widened,) = cell_table(ROWS, with_controls=True)
    assert sorted(widened["runs"]["a_pre_total"]) == ["ctl", "r1", "r3"]


def test_adopted_primary_leaves_controls_out_unless_asked() -> None:
    assert [r.run_id for r in adopted_primary(ROWS)] == ["r2"]
    assert [r.run_id for r in adopted_primary(ROWS, with_controls=True)] == ["r2", "ctl"]
