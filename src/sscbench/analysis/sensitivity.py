"""Sensitivity analyses and paired comparisons.

Each analysis recomputes the operator × configuration table over a different but
stated population: all repetitions, with target-value controls, common clean-solved
seeds (cases every configuration qualified on), strict admission (ItemOption cases whose
task names the affected order item itself; the rule is ItemOption's, so other operators'
rows equal the primary ones). Paired comparisons match runs of two studies on
(case, configuration, repetition), e.g. an interface with and without a read-back cue.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sscbench.analysis.mcnemar import mcnemar_exact
from sscbench.analysis.populations import (
    caveat_text,
    cell_table,
    faulted_rows,
    interval_label,
)
from sscbench.analysis.stats import Interval, proportion_interval
from sscbench.json_types import JsonObject
from sscbench.study.rows import MeasurementRow

Row = dict[str, Any]


def _common_clean_solved(rows: list[MeasurementRow]) -> list[MeasurementRow]:
    faulted = faulted_rows(rows)
    configs = {r.config_id for r in faulted}
    qualified: dict[str | None, set[str | None]] = {}
    for r in faulted:
        if r.repetition == 0 and r.status != "not-qualified":
            qualified.setdefault(r.case_id, set()).add(r.config_id)
    keep = {case for case, cs in qualified.items() if cs == configs}
    return [r for r in rows if r.case_id in keep]


STRICT_OPERATOR = "ItemOption"


def _loose_item_option(row: MeasurementRow) -> bool:
    """An ItemOption run whose task does not name the affected order item itself: what the
    strict admission rule drops (paper §V-B: the rule is ItemOption's; other operators'
    runs stay as in the primary analysis)."""
    return row.operator == STRICT_OPERATOR and row.literal is False


ANALYSES: dict[
    str, tuple[Callable[[list[MeasurementRow]], list[MeasurementRow]], dict[str, bool]]
] = {
    "primary": (lambda rows: rows, {}),
    "all repetitions": (lambda rows: rows, {"all_repetitions": True}),
    "with controls": (lambda rows: rows, {"with_controls": True}),
    "common clean-solved seeds": (_common_clean_solved, {}),
    "strict admission": (lambda rows: [r for r in rows if not _loose_item_option(r)], {}),
}

DESCRIPTIONS = {
    "primary": "repetition 0; controls kept for arrival, excluded from adoption",
    "all repetitions": "every repetition; controls excluded from adoption",
    "with controls": "repetition 0; target-value controls kept in adoption too",
    "common clean-solved seeds": "repetition 0; only cases every configuration qualified on",
    "strict admission": "repetition 0; ItemOption only cases whose task names the "
    "affected order item itself (the rule applies to ItemOption only; other operators "
    "unchanged from primary)",
}

COUNTS = ("triggered", "P")
RATES = (
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
COLUMNS = COUNTS + RATES


def interval_fields(interval: Interval) -> JsonObject:
    """The tidy numeric columns of an interval beside its display label."""
    return {
        "numerator": interval.numerator,
        "denominator": interval.denominator,
        "clusters": interval.n_clusters,
        "estimate": interval.estimate,
        "low": interval.low,
        "high": interval.high,
        "method": interval.method,
        "n_effective": interval.n_effective,
        "caveats": ", ".join(interval.caveats),
        "caveat": caveat_text(interval),
        "label": interval_label(interval),
    }


def sensitivity_table(rows: list[MeasurementRow]) -> list[Row]:
    """Tidy rows: one per analysis × operator × configuration × quantity, with numeric
    columns (counts have only a numerator) and the display label."""
    out = []
    for name, (select, flags) in ANALYSES.items():
        for cell in cell_table(select(rows), **flags):
            base = {
                "analysis": name,
                "population": DESCRIPTIONS[name],
                "operator": cell["operator"],
                "config_id": cell["config_id"],
            }
            for quantity in COUNTS:
                out.append(
                    {
                        **base,
                        "quantity": quantity,
                        **dict.fromkeys(_EMPTY, None),
                        "numerator": cell[quantity],
                        "method": "count",
                        "n_effective": None,
                        "caveats": "",
                        "caveat": "",
                        "label": str(cell[quantity]),
                    }
                )
            for quantity in RATES:
                out.append({**base, "quantity": quantity, **interval_fields(cell[quantity])})
    return out


_EMPTY = ("numerator", "denominator", "clusters", "estimate", "low", "high")


def paired_comparison(
    a: list[MeasurementRow],
    b: list[MeasurementRow],
    *,
    all_repetitions: bool = False,
    by_config: bool = False,
) -> list[Row]:
    """Adoption in two studies on matched (case, configuration, repetition) pairs, by
    operator (and configuration, with ``by_config``).

    The primary population: repetition 0 and no target-value controls, unless
    ``all_repetitions``. Reports both rates with intervals, the pair table (adopted in
    both, only in a, only in b, in neither) and McNemar's exact p-value on the
    discordant pairs.
    """

    def key(r: MeasurementRow) -> tuple:
        return (r.case_id, r.config_id, r.repetition)

    def decidable(rows: list[MeasurementRow]) -> dict[tuple, MeasurementRow]:
        return {
            key(r): r
            for r in faulted_rows(rows)
            if r.status == "completed"
            and r.triggered
            and r.A in (0, 1)
            and (all_repetitions or (r.repetition == 0 and not r.control))
        }

    left, right = decidable(a), decidable(b)
    matched = sorted(set(left) & set(right))

    def group(k: tuple) -> tuple[str, str]:
        return (left[k].operator or "?", k[1] if by_config else "")

    out = []
    for operator, config_id in sorted({group(k) for k in matched}):
        keys = [k for k in matched if group(k) == (operator, config_id)]
        only_a = sum(1 for k in keys if left[k].A == 1 and right[k].A == 0)
        only_b = sum(1 for k in keys if left[k].A == 0 and right[k].A == 1)
        both = sum(1 for k in keys if left[k].A == 1 and right[k].A == 1)
        clusters = [left[k].cluster for k in keys]
        rate_a = proportion_interval([left[k].A == 1 for k in keys], clusters)
        rate_b = proportion_interval([right[k].A == 1 for k in keys], clusters)
        p_value, p_note = mcnemar_exact(only_a, only_b)
        out.append(
            {
                "operator": operator,
                **({"config_id": config_id} if by_config else {}),
                "pairs": len(keys),
                "adoption_a": interval_label(rate_a),
                "adoption_a_numerator": rate_a.numerator,
                "adoption_a_estimate": rate_a.estimate,
                "adoption_a_low": rate_a.low,
                "adoption_a_high": rate_a.high,
                "adoption_b": interval_label(rate_b),
                "adoption_b_numerator": rate_b.numerator,
                "adoption_b_estimate": rate_b.estimate,
                "adoption_b_low": rate_b.low,
                "adoption_b_high": rate_b.high,
                "clusters": rate_a.n_clusters,
                "method": rate_a.method,
                "adopted_in_both": both,
                "adopted_only_in_a": only_a,
                "adopted_only_in_b": only_b,
                "adopted_in_neither": len(keys) - both - only_a - only_b,
                "mcnemar_exact_p": p_value,
                "mcnemar_note": p_note,
            }
        )
    return out
