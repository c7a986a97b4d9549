"""Populations and per-cell tables: every rate bound to the runs that support it.

Reads ``measurements.jsonl`` rows. Populations follow the paper (§V, "Analysis"):

* the **primary population** is the faulted runs of repetition 0 (``primary_rows``);
  not-qualified (clean run failed) and missing runs are counted, never measured;
* **P** holds the admitted, triggered runs with a decidable post-fault dependent use;
  no-use, undecidable use and missing measurements are counted apart, never folded in;
* target-value **controls** stay in the funnel and in arrival, and are excluded from
  adoption, reliance and stance.

Every table row also keeps, under ``runs``, the run ids behind each of its counts so
the report can link a number to the runs that make it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from sscbench.analysis.effective import CAVEAT_TEXT
from sscbench.analysis.stats import Interval, proportion_interval
from sscbench.core.definitions import precedes_use
from sscbench.core.values import is_step
from sscbench.study.rows import MeasurementRow

STRATA = ("pre", "late", "absent")
STANCES = ("endorses", "rejects", "undecidable", "none")
ORDERS = ("before", "after", "absent", "undecidable")  # T_E relative to T_U, see reliance_order
PRIMARY = "primary: faulted runs of repetition 0; target-value controls kept for arrival"
PRIMARY_ADOPTION = "primary: repetition 0, P (triggered, decidable first use), controls excluded"

Row = dict[str, Any]


def faulted_rows(rows: Iterable[MeasurementRow]) -> list[MeasurementRow]:
    """Only faulted runs."""
    return [r for r in rows if r.kind == "faulted"]


def primary_rows(
    rows: Iterable[MeasurementRow], *, all_repetitions: bool = False
) -> list[MeasurementRow]:
    """The faulted runs of the primary analysis: repetition 0 (or every repetition)."""
    return [r for r in faulted_rows(rows) if all_repetitions or r.repetition == 0]


def in_population(row: MeasurementRow) -> bool:
    """Whether a run is in P: completed, triggered, with a decidable first dependent use."""
    return row.status == "completed" and bool(row.triggered) and is_step(row.T_S)


def caveat_text(interval: Interval) -> str:
    """The interval's caveats in full sentences (empty when it has none)."""
    return "; ".join(f"{k}: {CAVEAT_TEXT[k]}" for k in interval.caveats)


def interval_label(interval: Interval) -> str:
    """The interval's label, with its caveat keys after a ⚠ when it has any, e.g.
    ``… 8 clusters) ⚠ few clusters, zero width``; the sentences behind the keys
    (:data:`~sscbench.analysis.effective.CAVEAT_TEXT`) go once under a table."""
    label = interval.label()
    return f"{label} ⚠ {', '.join(interval.caveats)}" if interval.caveats else label


def funnel(rows: list[MeasurementRow]) -> dict[str, int]:
    """Execution funnel counts of faulted runs (Table III a), with n_Z/u_Z: decidable and
    undecidable arrival among the runs with a first dependent use (P)."""
    return {k: len(v) for k, v in funnel_runs(rows).items()}


def funnel_runs(rows: list[MeasurementRow]) -> dict[str, list[str]]:
    """The run ids behind each funnel count."""
    ids = lambda rs: [r.run_id for r in rs]  # noqa: E731
    observed = [r for r in rows if r.status == "completed"]
    triggered = [r for r in observed if r.triggered]
    population = [r for r in triggered if is_step(r.T_S)]
    return {
        "scheduled": ids(rows),
        "not_qualified": ids(r for r in rows if r.status == "not-qualified"),
        "missing": ids(r for r in rows if r.status == "missing"),
        "observed": ids(observed),
        "not_triggered": ids(r for r in observed if not r.triggered),
        "triggered": ids(triggered),
        "no_use": ids(r for r in triggered if r.Z_S == "no-use"),
        "undecidable_use": ids(r for r in triggered if r.T_S == "undecidable"),
        "measurement_missing": ids(r for r in triggered if r.Z_S == "measurement-missing"),
        "P": ids(population),
        "n_Z": ids(r for r in population if r.Z_S in STRATA),
        "u_Z": ids(r for r in population if r.Z_S not in STRATA),
        "controls": ids(r for r in population if r.control),
    }


def _interval(pairs: list[tuple[bool, str | None]]) -> Interval:
    return proportion_interval([v for v, _ in pairs], [c for _, c in pairs])


def _ids(rows: Iterable[MeasurementRow]) -> list[str]:
    return [r.run_id for r in rows]


def _adoption(rows: list[MeasurementRow]) -> tuple[Interval, list[str], list[str]]:
    decidable = [r for r in rows if r.A in (0, 1)]
    interval = _interval([(r.A == 1, r.cluster) for r in decidable])
    return interval, _ids(decidable), _ids(r for r in decidable if r.A == 1)


def gap_of(row: MeasurementRow) -> int | str | None:
    """T_U − T_E of an adopted run: an int, ``"inf"`` (evidence absent) or None (undecidable)."""
    if not is_step(row.T_U):
        return None
    if is_step(row.T_E):
        return row.T_U - row.T_E
    return "inf" if row.T_E == "inf" else None


def q_u(adopted: list[MeasurementRow]) -> tuple[Interval, dict[str, list[str]]]:
    """q_U = P(T_E < T_U | adopted) over adopted runs with decidable ordering, with the
    run ids of: before, ordered (n_q), undecidable ordering (u_q), and T_S ≤ T_E < T_U
    (late by the Z_S boundary, yet before the first faulty reliance)."""
    ordered = [r for r in adopted if gap_of(r) is not None]
    before = [r for r in ordered if is_step(r.T_E) and is_step(r.T_U) and r.T_E < r.T_U]
    # late relative to first use (the Z_S boundary) yet before the first faulty reliance
    between = [
        r for r in before if is_step(r.T_S) and is_step(r.T_E) and not precedes_use(r.T_E, r.T_S)
    ]
    first = {id(r) for r in before}
    interval = _interval([(id(r) in first, r.cluster) for r in ordered])
    runs = {
        "q_U_before": _ids(before),
        "q_U_ordered": _ids(ordered),
        "q_U_undecidable": _ids(r for r in adopted if gap_of(r) is None),
        "between_anchors": _ids(between),
    }
    return interval, runs


def adopted_primary(
    members: list[MeasurementRow], *, with_controls: bool = False
) -> list[MeasurementRow]:
    """Adopted runs in P (controls excluded unless asked)."""
    return [
        r for r in members if in_population(r) and r.A == 1 and (with_controls or not r.control)
    ]


def cell_table(
    rows: list[MeasurementRow], *, all_repetitions: bool = False, with_controls: bool = False
) -> list[Row]:
    """Per operator × configuration: funnel, arrival, A_T, A_P, a_s, q_U and Y_end.

    The primary analysis keeps repetition 0 and drops target-value controls from the
    adoption quantities (arrival keeps controls, as in the paper); the flags widen it.
    Each entry's ``runs`` maps a count's name to the run ids behind it.
    """
    cells: dict[tuple[str, str | None], list[MeasurementRow]] = defaultdict(list)
    for row in primary_rows(rows, all_repetitions=all_repetitions):
        cells[(row.operator or "?", row.config_id)].append(row)
    return [
        cell_entry(operator, config, members, with_controls=with_controls)
        for (operator, config), members in sorted(cells.items())
    ]


def cell_entry(
    operator: str, config: str | None, members: list[MeasurementRow], *, with_controls: bool = False
) -> Row:
    """The quantities of one group of faulted runs (a cell, or a pooled operator)."""
    runs: dict[str, list[str]] = dict(funnel_runs(members))
    entry: Row = {"operator": operator, "config_id": config}
    entry.update({k: len(v) for k, v in runs.items()})
    triggered = [r for r in members if r.status == "completed" and r.triggered]
    population = [r for r in triggered if is_step(r.T_S)]
    decidable_z = [r for r in population if r.Z_S in STRATA]
    for stratum in STRATA:
        hits = [r for r in decidable_z if stratum == r.Z_S]
        entry[f"arrival_{stratum}"] = _interval(
            [(stratum == r.Z_S, r.cluster) for r in decidable_z]
        )
        entry[f"n_{stratum}"] = len(hits)
        entry[f"k_{stratum}"] = len({r.cluster for r in hits})
        runs[f"arrival_{stratum}"] = _ids(hits)
    entry["k_Z"] = len({r.cluster for r in decidable_z})
    keep = lambda r: with_controls or not r.control  # noqa: E731
    entry["A_T"], runs["A_T_evaluable"], runs["A_T_adopted"] = _adoption(
        [r for r in triggered if keep(r)]
    )
    adoption_population = [r for r in population if keep(r)]
    entry["A_P"], runs["A_P_evaluable"], runs["A_P_adopted"] = _adoption(adoption_population)
    for stratum in STRATA:
        in_stratum = [r for r in adoption_population if stratum == r.Z_S]
        entry[f"a_{stratum}"], runs[f"a_{stratum}_evaluable"], runs[f"a_{stratum}_adopted"] = (
            _adoption(in_stratum)
        )
        entry[f"a_{stratum}_total"] = len(in_stratum)
        entry[f"a_{stratum}_total_clusters"] = len({r.cluster for r in in_stratum})
        runs[f"a_{stratum}_total"] = _ids(in_stratum)
    adopted = [r for r in adoption_population if r.A == 1]
    entry["q_U"], q_runs = q_u(adopted)
    runs.update(q_runs)
    entry["q_U_undecidable"] = len(q_runs["q_U_undecidable"])
    entry["between_anchors"] = len(q_runs["between_anchors"])
    for key, ids in stance_runs(adopted).items():
        entry[key] = len(ids)
        runs[key] = ids
    entry["runs"] = runs
    return entry


def reliance_order(row: MeasurementRow) -> str:
    """Where counterevidence stood at the first faulty reliance of an adopted run (RQ3's
    cut): ``before`` (T_E < T_U), ``after`` (T_U ≤ T_E < ∞), ``absent`` (T_E = ∞) or
    ``undecidable`` (either anchor undecidable)."""
    gap = gap_of(row)
    if gap is None:
        return "undecidable"
    if gap == "inf":
        return "absent"
    return "before" if isinstance(gap, int) and gap > 0 else "after"


def stance_runs(adopted: list[MeasurementRow]) -> dict[str, list[str]]:
    """Run ids of adopted runs per final stance, by arrival stratum
    (``Y_end_{stratum}_{stance}``) and by stratum and reliance order
    (``Y_end_{stratum}_{order}_{stance}``, order from :func:`reliance_order`)."""
    out: dict[str, list[str]] = {}
    for stratum in STRATA:
        mine = [r for r in adopted if stratum == r.Z_S]
        for stance in STANCES:
            hits = [r for r in mine if (r.Y_end or "none") == stance]
            out[f"Y_end_{stratum}_{stance}"] = _ids(hits)
            for order in ORDERS:
                out[f"Y_end_{stratum}_{order}_{stance}"] = _ids(
                    r for r in hits if reliance_order(r) == order
                )
    return out


def operator_table(rows: list[MeasurementRow], *, all_repetitions: bool = False) -> list[Row]:
    """The same quantities pooled over configurations, one entry per operator."""
    groups: dict[str, list[MeasurementRow]] = defaultdict(list)
    for row in primary_rows(rows, all_repetitions=all_repetitions):
        groups[row.operator or "?"].append(row)
    return [cell_entry(op, "all configurations", members) for op, members in sorted(groups.items())]


def repeated_groups(rows: list[MeasurementRow]) -> list[Row]:
    """(case, configuration) groups with decidable Z_S in more than one repetition: the
    denominator of the crossing count; ``crosses`` says whether their strata differ."""
    groups: dict[tuple[str | None, str | None], dict[int | None, str]] = defaultdict(dict)
    for row in faulted_rows(rows):
        if row.Z_S in STRATA:
            groups[(row.case_id, row.config_id)][row.repetition] = row.Z_S
    return [
        {
            "case_id": case,
            "config_id": config,
            "strata": dict(sorted(reps.items())),
            "crosses": len(set(reps.values())) > 1,
        }
        for (case, config), reps in sorted(groups.items())
        if len(reps) > 1
    ]


def crossing_groups(rows: list[MeasurementRow]) -> list[Row]:
    """(case, configuration) groups whose arrival stratum differs across repetitions."""
    return [
        {k: g[k] for k in ("case_id", "config_id", "strata")}
        for g in repeated_groups(rows)
        if g["crosses"]
    ]
