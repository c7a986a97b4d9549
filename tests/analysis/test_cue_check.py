"""The read-back-cue paired check's table on hand-built measurement rows: per
configuration (and all together) adoption, read-back before first use and pre-use
arrival in matched pairs, with McNemar's exact p."""

from __future__ import annotations

from typing import Any

import pytest

from same_runs_rows import cue_run as run
from sscbench.analysis.cue_check import ALL_CONFIGS, cue_check_table, quantity
from sscbench.analysis.stats import proportion_interval, wilson


def share(row: dict[str, Any], side: str) -> str:
    """A side's k/n from its tidy columns."""
    return f"{row[side + '_numerator']}/{row[side + '_denominator']}"


CUED = {"T_E": 6, "read_back_step": 6, "A": 0, "Z_S": "pre"}
LATE_READ = {"T_E": 12, "read_back_step": 12, "Z_S": "late"}


def test_quantity_reads_the_measurement_row_only() -> None:
    assert quantity(run("c", "x", **CUED), "read_back") == 1
    assert quantity(run("c", "x", **LATE_READ), "read_back") == 0  # read after first use
    assert quantity(run("c", "x", read_back_step=4, T_S="inf", Z_S="no-use"), "read_back") == 1
    assert quantity(run("c", "x", read_back_step=4, T_S="undecidable"), "read_back") is None
    assert quantity(run("c", "x", read_back_step=None), "read_back") is None  # not measured
    assert quantity(run("c", "x", Z_S="undecidable"), "pre_arrival") is None
    assert quantity(run("c", "x", Z_S="no-use", A=0), "pre_arrival") == 0
    with pytest.raises(ValueError, match="unknown"):
        quantity(run("c", "x"), "repair")


def test_counts_per_configuration_and_all_together() -> None:
    # study a (cue): follower reads back first in 3 of 4 cases; trusting never does
    a = [run(f"c{i}", "follower", **(CUED if i < 3 else {})) for i in range(4)]
    a += [run(f"c{i}", "trusting") for i in range(4)]
    b = [run(f"c{i}", "follower") for i in range(4)]
    b += [run(f"c{i}", "trusting", **(LATE_READ if i == 0 else {})) for i in range(4)]
    b.append(run("c9", "follower"))  # unmatched: not in a
    rows = {(r["config_id"], r["quantity"]): r for r in cue_check_table(a, b)}
    assert [k for k in rows if k[1] == "adoption"] == [
        ("follower", "adoption"),
        ("trusting", "adoption"),
        (ALL_CONFIGS, "adoption"),
    ]
    follower = rows[("follower", "adoption")]
    assert (follower["pairs"], share(follower, "a"), share(follower, "b")) == (4, "1/4", "4/4")
    assert (follower["only_in_a"], follower["only_in_b"]) == (0, 3)
    assert follower["mcnemar_exact_p"] == pytest.approx(0.25)
    assert share(rows[("follower", "read_back")], "a") == "3/4"
    assert share(rows[("follower", "read_back")], "b") == "0/4"
    assert share(rows[("follower", "pre_arrival")], "a") == "3/4"
    trusting = rows[("trusting", "read_back")]
    assert (share(trusting, "a"), share(trusting, "b")) == ("0/4", "0/4")  # read after use
    assert trusting["mcnemar"] == "1 (no discordant pairs)"
    everyone = rows[(ALL_CONFIGS, "adoption")]
    assert (everyone["pairs"], share(everyone, "a"), share(everyone, "b")) == (8, "5/8", "8/8")


def test_undecidable_pairs_leave_the_quantity_not_the_table() -> None:
    a = [run("c0", "x", T_S="undecidable", read_back_step=5, Z_S="undecidable", A=1)]
    a.append(run("c1", "x"))
    b = [run("c0", "x"), run("c1", "x")]
    rows = {r["quantity"]: r for r in cue_check_table(a, b) if r["config_id"] == "x"}
    assert rows["adoption"]["decided_pairs"] == 2
    assert (rows["read_back"]["decided_pairs"], rows["read_back"]["undecided_pairs"]) == (1, 1)
    assert share(rows["pre_arrival"], "a") == "0/1"


def test_controls_later_repetitions_and_undecidable_adoption_are_not_paired() -> None:
    a = [
        run("c0", "x", control=True),
        run("c1", "x", repetition=1),
        run("c2", "x", A="undecidable"),
        run("c3", "x", status="missing"),
    ]
    b = [run(c, "x", repetition=r) for c, r in (("c0", 0), ("c1", 1), ("c2", 0), ("c3", 0))]
    assert cue_check_table(a, b) == []
    assert {r["pairs"] for r in cue_check_table(a, b, all_repetitions=True)} == {2}


def test_each_share_carries_its_interval_wilson_or_clustered() -> None:
    a = [run(f"c{i}", "follower", **(CUED if i < 3 else {})) for i in range(4)]
    a += [run(f"c{i}", "trusting") for i in range(4)]
    b = [run(f"c{i}", "follower") for i in range(4)] + [run(f"c{i}", "trusting") for i in range(4)]
    rows = {(r["config_id"], r["quantity"]): r for r in cue_check_table(a, b)}
    follower = rows[("follower", "read_back")]  # one run per case: Wilson
    expected = wilson(3, 4)
    assert follower["a_method"] == "wilson" and follower["a_clusters"] == 4
    assert (follower["a_estimate"], follower["a_low"], follower["a_high"]) == (
        expected.estimate,
        expected.low,
        expected.high,
    )
    assert follower["a"].startswith("3/4 (75.0%, 95% CI ") and "Wilson" in follower["a"]
    assert follower["b_low"] == 0.0 and follower["b_high"] == wilson(0, 4).high
    # all configurations together: each case gives two runs, so the interval is clustered
    everyone = rows[(ALL_CONFIGS, "read_back")]
    clustered = proportion_interval([1, 1, 1, 0, 0, 0, 0, 0], ["c0", "c1", "c2", "c3"] * 2)
    assert everyone["a_method"] == "clustered" and everyone["a_clusters"] == 4
    assert everyone["a_denominator"] == 8 and everyone["a_numerator"] == 3
    assert (everyone["a_low"], everyone["a_high"]) == (clustered.low, clustered.high)
    assert "clusters" in everyone["a"]


def test_a_quantity_without_decided_pairs_is_unobserved() -> None:
    a = [run("c0", "x", T_S="undecidable", read_back_step=5, Z_S="undecidable")]
    rows = {r["quantity"]: r for r in cue_check_table(a, [run("c0", "x")])}
    read = rows["read_back"]
    assert read["a_method"] == read["b_method"] == "unobserved"
    assert read["a_estimate"] is None and read["a"] == "unobserved (0/0)"
