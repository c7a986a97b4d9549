"""Populations and per-cell tables: every rate bound to the runs that support it.

Reads ``measurements.jsonl`` rows. Populations follow the paper: scheduled, observed,
triggered, admitted, and P — admitted triggered runs with a decidable post-fault
dependent use; no-use, undecidable and missing are counted apart, never folded in.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sscbench.analysis.stats import Interval, proportion_interval
from sscbench.measure.values import is_step

STRATA = ("pre", "late", "absent")


@dataclass
class Cell:
    """The runs of one operator × agent configuration (primary: repetition 0, no controls)."""

    operator: str
    config_id: str
    rows: list[dict[str, Any]] = field(default_factory=list)


def faulted_rows(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Only faulted runs."""
    return [r for r in rows if r.get("kind") == "faulted"]


def funnel(rows: list[dict[str, Any]]) -> dict[str, int]:
    """Execution funnel counts of faulted runs."""
    scheduled = len(rows)
    observed = [r for r in rows if r["status"] == "completed"]
    triggered = [r for r in observed if r.get("triggered")]
    population = [r for r in triggered if is_step(r.get("T_S"))]
    return {
        "scheduled": scheduled,
        "not_qualified": sum(r["status"] == "not-qualified" for r in rows),
        "missing": sum(r["status"] == "missing" for r in rows),
        "observed": len(observed),
        "not_triggered": len(observed) - len(triggered),
        "triggered": len(triggered),
        "no_use": sum(r.get("Z_S") == "no-use" for r in triggered),
        "undecidable_use": sum(r.get("T_S") == "undecidable" for r in triggered),
        "measurement_missing": sum(r.get("Z_S") == "measurement-missing" for r in triggered),
        "P": len(population),
    }


def _interval(pairs: list[tuple[bool, str]]) -> Interval:
    return proportion_interval([v for v, _ in pairs], [c for _, c in pairs])


def cell_table(
    rows: list[dict[str, Any]], *, all_repetitions: bool = False, with_controls: bool = False
) -> list[dict[str, Any]]:
    """Per operator × configuration: arrival shares, A_T, A_P, a_s, q_U and Y_end.

    The primary analysis keeps repetition 0 and drops target-value controls from the
    adoption quantities (arrival keeps controls, as in the paper); the flags widen it.
    """
    primary = not with_controls
    cells: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in faulted_rows(rows):
        if not all_repetitions and row["repetition"] != 0:
            continue
        cells[(row.get("operator") or "?", row["config_id"])].append(row)
    table = []
    for (operator, config), members in sorted(cells.items()):
        triggered = [r for r in members if r["status"] == "completed" and r.get("triggered")]
        decidable_z = [r for r in triggered if r.get("Z_S") in STRATA]
        adoption_runs = [r for r in triggered if not (primary and r.get("control"))]
        population = [r for r in adoption_runs if is_step(r.get("T_S"))]
        entry: dict[str, Any] = {"operator": operator, "config_id": config, **funnel(members)}
        for stratum in STRATA:
            pairs = [(r["Z_S"] == stratum, r["cluster"]) for r in decidable_z]
            entry[f"arrival_{stratum}"] = _interval(pairs)
        entry["A_T"] = _interval(
            [(r["A"] == 1, r["cluster"]) for r in adoption_runs if r.get("A") in (0, 1)]
        )
        entry["A_P"] = _interval(
            [(r["A"] == 1, r["cluster"]) for r in population if r.get("A") in (0, 1)]
        )
        for stratum in STRATA:
            pairs = [
                (r["A"] == 1, r["cluster"])
                for r in population
                if r.get("Z_S") == stratum and r.get("A") in (0, 1)
            ]
            entry[f"a_{stratum}"] = _interval(pairs)
        adopted = [r for r in population if r.get("A") == 1]
        ordered = [
            r
            for r in adopted
            if (is_step(r.get("T_E")) or r.get("T_E") == "inf") and is_step(r.get("T_U"))
        ]
        entry["q_U"] = _interval(
            [(is_step(r["T_E"]) and r["T_E"] < r["T_U"], r["cluster"]) for r in ordered]
        )
        entry["q_U_undecidable"] = len(adopted) - len(ordered)
        entry["between_anchors"] = sum(
            1 for r in ordered if is_step(r["T_E"]) and r["T_S"] < r["T_E"] < r["T_U"]
        )
        for stratum in STRATA:
            stances = [r.get("Y_end") for r in adopted if r.get("Z_S") == stratum]
            entry[f"Y_end_{stratum}"] = {s: stances.count(s) for s in sorted(set(stances))}
        table.append(entry)
    return table


def crossing_groups(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """(case, configuration) groups whose arrival stratum differs across repetitions."""
    groups: dict[tuple[str, str], dict[int, str]] = defaultdict(dict)
    for row in faulted_rows(rows):
        if row.get("Z_S") in STRATA:
            groups[(row["case_id"], row["config_id"])][row["repetition"]] = row["Z_S"]
    return [
        {"case_id": case, "config_id": config, "strata": dict(sorted(reps.items()))}
        for (case, config), reps in sorted(groups.items())
        if len(reps) > 1 and len(set(reps.values())) > 1
    ]
