"""P — the population of adoption given a first use — holds only runs whose first dependent
use is a decidable step: triggered runs without a use (T_S = ∞) or with an undecidable
first use count for A_T (propagation) and never for A_P or the arrival strata."""

from __future__ import annotations

from sscbench.analysis.populations import cell_table, funnel_runs
from sscbench.study.rows import MeasurementRow


def _run(run_id: str, t_s, z_s: str, adopted) -> MeasurementRow:
    return MeasurementRow.of(
        {
            "run_id": run_id,
            "cluster": run_id,
            "config_id": "m",
            "operator": "PaySource",
            "kind": "faulted",
            "status": "completed",
            "repetition": 0,
            "triggered": True,
            "control": False,
            "A": adopted,
            "T_E": 3,
            "T_S": t_s,
            "Z_S": z_s,
        }
    )


ROWS = [
    _run("used", 6, "pre", 1),
    _run("late", 2, "late", 0),
    _run("no-use", "inf", "no-use", 0),
    _run("unsure", "undecidable", "undecidable", 0),
]


def test_p_holds_only_runs_with_a_decidable_first_use() -> None:
    (cell,) = cell_table(ROWS)
    assert sorted(cell["runs"]["A_T_evaluable"]) == ["late", "no-use", "unsure", "used"]
    assert sorted(cell["runs"]["A_P_evaluable"]) == ["late", "used"]
    assert cell["A_P"].denominator == 2 and cell["A_P"].numerator == 1
    assert sorted(funnel_runs(ROWS)["P"]) == ["late", "used"]
