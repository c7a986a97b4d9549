"""Sensitivity analyses and paired comparisons.

Each analysis recomputes the operator × configuration table over a different but
stated population: all repetitions, with target-value controls, common clean-solved
seeds (cases every configuration qualified on), strict admission (cases whose task
names the affected entity itself). Paired comparisons match runs of two studies on
(case, configuration, repetition), e.g. an interface with and without a read-back cue.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scipy.stats import binomtest

from sscbench.analysis.populations import cell_table, faulted_rows
from sscbench.analysis.stats import proportion_interval

Row = dict[str, Any]


def _common_clean_solved(rows: list[Row]) -> list[Row]:
    faulted = faulted_rows(rows)
    configs = {r["config_id"] for r in faulted}
    qualified: dict[str, set[str]] = {}
    for r in faulted:
        if r["repetition"] == 0 and r["status"] != "not-qualified":
            qualified.setdefault(r["case_id"], set()).add(r["config_id"])
    keep = {case for case, cs in qualified.items() if cs == configs}
    return [r for r in rows if r["case_id"] in keep]


ANALYSES: dict[str, tuple[Callable[[list[Row]], list[Row]], dict[str, bool]]] = {
    "primary": (lambda rows: rows, {}),
    "all repetitions": (lambda rows: rows, {"all_repetitions": True}),
    "with controls": (lambda rows: rows, {"with_controls": True}),
    "common clean-solved seeds": (_common_clean_solved, {}),
    "strict admission": (lambda rows: [r for r in rows if r.get("literal") is not False], {}),
}

COLUMNS = (
    "triggered",
    "P",
    "arrival_pre",
    "arrival_late",
    "arrival_absent",
    "A_T",
    "A_P",
    "a_pre",
    "a_late",
    "a_absent",
    "q_U",
)


def sensitivity_table(rows: list[Row]) -> list[Row]:
    """One row per analysis × operator × configuration with the key rates as labels."""
    out = []
    for name, (select, flags) in ANALYSES.items():
        for cell in cell_table(select(rows), **flags):
            out.append(
                {
                    "analysis": name,
                    "operator": cell["operator"],
                    "config_id": cell["config_id"],
                    **{
                        k: (cell[k].label() if hasattr(cell[k], "label") else cell[k])
                        for k in COLUMNS
                    },
                }
            )
    return out


def paired_comparison(a: list[Row], b: list[Row]) -> list[Row]:
    """Adoption in two studies on matched (case, configuration, repetition) pairs, by operator.

    Reports both rates with intervals, the discordant pairs and McNemar's exact p-value.
    """

    def key(r: Row) -> tuple:
        return (r["case_id"], r["config_id"], r["repetition"])

    def decidable(rows: list[Row]) -> dict[tuple, Row]:
        return {
            key(r): r
            for r in faulted_rows(rows)
            if r["status"] == "completed" and r.get("triggered") and r.get("A") in (0, 1)
        }

    left, right = decidable(a), decidable(b)
    matched = sorted(set(left) & set(right))
    out = []
    for operator in sorted({left[k].get("operator") or "?" for k in matched}):
        keys = [k for k in matched if (left[k].get("operator") or "?") == operator]
        only_a = sum(1 for k in keys if left[k]["A"] == 1 and right[k]["A"] == 0)
        only_b = sum(1 for k in keys if left[k]["A"] == 0 and right[k]["A"] == 1)
        clusters = [left[k]["cluster"] for k in keys]
        rate_a = proportion_interval([left[k]["A"] == 1 for k in keys], clusters)
        rate_b = proportion_interval([right[k]["A"] == 1 for k in keys], clusters)
        discordant = only_a + only_b
        p_value = binomtest(only_a, discordant).pvalue if discordant else None
        out.append(
            {
                "operator": operator,
                "pairs": len(keys),
                "adoption_a": rate_a.label(),
                "adoption_b": rate_b.label(),
                "adopted_only_in_a": only_a,
                "adopted_only_in_b": only_b,
                "mcnemar_exact_p": p_value,
            }
        )
    return out
