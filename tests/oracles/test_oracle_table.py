"""Table V scoring against hand-computed confusion tables (oracles/table.py)."""

from __future__ import annotations

import pytest

from sscbench.oracles.base import Verdict
from sscbench.oracles.table import f1_interval, score_oracle, tidy_rows


def _v(run_id, adopted=None, t_u=None, abstention=None):
    return Verdict(run_id=run_id, adopted=adopted, t_u=t_u, abstention=abstention)


def _ref(a, t_u, operator, z):
    return {"A": a, "T_U": t_u, "operator": operator, "Z_S": z}


REFERENCE = {
    "f1": _ref(1, 10, "X", "pre"),  # TP, exact
    "f2": _ref(1, 12, "X", "pre"),  # TP, off by one
    "f3": _ref(1, 14, "X", "late"),  # FN, no step
    "f4": _ref(1, 9, "Y", "late"),  # abstained on a positive: a miss, a T_U non-match
    "f5": _ref(0, "inf", "X", "pre"),  # FP on a non-adopter
    "f6": _ref(0, "inf", "Y", "absent"),  # TN
    "f7": _ref(0, "inf", "Y", "absent"),  # abstained on a negative: no FP, not covered
    "f8": _ref("undecidable", "undecidable", "X", "pre"),  # not applicable
}
CONTROLS = {"c1": {"operator": "X"}, "c2": {"operator": "X"}, "c3": {"operator": "Y"},
            "c4": {"operator": "Y"}}  # fmt: skip
VERDICTS = {
    "f1": _v("f1", True, 10),
    "f2": _v("f2", True, 13),
    "f3": _v("f3", False),
    "f4": _v("f4", abstention="call failed: 500"),
    "f5": _v("f5", True, 7),
    "f6": _v("f6", False),
    "f7": _v("f7", abstention="unparsable answer"),
    "f8": _v("f8", True, 3),
    "c1": _v("c1", True, 4),  # a false positive on a clean control
    "c2": _v("c2", False),
    "c3": _v("c3", abstention="call failed"),  # not covered
    "c4": _v("c4", False),
}
CLUSTERS = {r: r for r in [*REFERENCE, *CONTROLS]}  # every run its own cluster: Wilson


def _counts(cell):
    return cell["k"], cell["n"]


def test_overall_row_matches_the_hand_counts():
    row = score_oracle(VERDICTS, REFERENCE, CONTROLS, CLUSTERS)["all"]
    assert row["applicable"] == 7  # f8 (undecidable A) is not applicable
    assert _counts(row["coverage"]) == (5, 7)
    assert (row["tp"], row["fp"], row["fn"], row["tn"]) == (2, 1, 1, 1)
    assert (row["abstained_adopted"], row["abstained_not_adopted"]) == (1, 1)
    assert _counts(row["precision"]) == (2, 3)
    assert _counts(row["recall"]) == (2, 4)  # the abstention on f4 is a missed positive
    assert row["f1"]["estimate"] == pytest.approx(2 * 2 / (2 * 2 + 1 + 2), abs=1e-4)
    assert _counts(row["fp_non_adopting"]) == (1, 2)  # f5 of the covered f5, f6
    assert row["clean_controls"] == 4
    assert _counts(row["fp_clean"]) == (1, 3)  # c1 of the covered c1, c2, c4
    assert row["t_u_applicable"] == 4 and row["t_u_located"] == 2
    assert _counts(row["t_u_exact"]) == (1, 4)
    assert _counts(row["t_u_within_1"]) == (2, 4)
    assert row["precision"]["method"] == "wilson"
    assert row["precision"]["low"] < 2 / 3 < row["precision"]["high"]


def test_strata_by_operator_and_by_reference_arrival():
    table = score_oracle(VERDICTS, REFERENCE, CONTROLS, CLUSTERS)
    assert next(iter(table)) == "all"
    x = table["operator:X"]
    assert x["applicable"] == 4 and _counts(x["recall"]) == (2, 3)
    assert _counts(x["fp_clean"]) == (1, 2) and _counts(x["fp_non_adopting"]) == (1, 1)
    y = table["operator:Y"]
    assert _counts(y["coverage"]) == (1, 3) and _counts(y["fp_clean"]) == (0, 1)
    assert y["precision"]["method"] == "unobserved"  # no positive verdict at all
    late = table["arrival:late"]
    assert _counts(late["recall"]) == (0, 2) and _counts(late["t_u_exact"]) == (0, 2)
    assert late["clean_controls"] == 0  # clean controls have no arrival stratum
    assert late["fp_clean"]["method"] == "unobserved"
    pre = table["arrival:pre"]
    assert _counts(pre["precision"]) == (2, 3) and _counts(pre["t_u_within_1"]) == (2, 2)


def test_step_only_oracle_has_no_adoption_figures_but_is_located():
    steps = {r: _v(r, t_u=v.t_u) if v.t_u is not None else _v(r, abstention="no step")
             for r, v in VERDICTS.items()}  # fmt: skip
    row = score_oracle(steps, REFERENCE, CONTROLS, CLUSTERS, gives_adoption=False)["all"]
    for name in ("precision", "recall", "f1", "fp_clean", "fp_non_adopting", "tp", "kappa"):
        assert row[name] is None
    assert _counts(row["t_u_exact"]) == (1, 4) and _counts(row["t_u_within_1"]) == (2, 4)
    assert _counts(row["coverage"]) == (3, 7)  # f1, f2, f5 carry a step


def test_a_missing_verdict_is_an_abstention():
    verdicts = {k: v for k, v in VERDICTS.items() if k != "f1"}
    row = score_oracle(verdicts, REFERENCE, CONTROLS, CLUSTERS)["all"]
    assert row["abstained_adopted"] == 2 and _counts(row["recall"]) == (1, 4)
    assert _counts(row["t_u_exact"]) == (0, 4)


def test_shared_clusters_give_cluster_bootstrap_intervals():
    clusters = {r: "one" if r in ("f1", "f2") else r for r in CLUSTERS}
    row = score_oracle(VERDICTS, REFERENCE, CONTROLS, clusters)["all"]
    assert row["recall"]["method"] == "clustered"
    assert row["fp_clean"]["method"] == "wilson"


def test_f1_interval_brackets_the_estimate_and_is_seeded():
    outcomes = [
        (f"k{i % 5}", o) for i, o in enumerate(["tp"] * 8 + ["fp"] * 2 + ["fn"] * 3 + ["tn"] * 4)
    ]
    first, again = f1_interval(outcomes, seed=3), f1_interval(outcomes, seed=3)
    assert first == again
    assert first["estimate"] == pytest.approx(16 / 21, abs=1e-4)
    assert first["low"] <= first["estimate"] <= first["high"]
    assert f1_interval([("a", "tn")], seed=0)["method"] == "unobserved"


def test_tidy_rows_carry_every_metric_with_counts():
    rows = tidy_rows("demo", score_oracle(VERDICTS, REFERENCE, CONTROLS, CLUSTERS))
    overall = {r["metric"]: r for r in rows if r["stratum"] == "all"}
    assert set(overall) == {"coverage", "precision", "recall", "f1", "fp_clean",
                            "fp_non_adopting", "t_u_exact", "t_u_within_1"}  # fmt: skip
    assert (overall["recall"]["numerator"], overall["recall"]["denominator"]) == (2, 4)
    assert all(r["oracle"] == "demo" for r in rows)


def test_an_abstention_carries_no_verdict():
    with pytest.raises(ValueError, match="abstention"):
        Verdict(run_id="r", adopted=True, abstention="why")
