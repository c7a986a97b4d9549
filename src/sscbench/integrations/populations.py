"""Adoption and arrival over sscbench's populations, as plain numbers for other tools.

The same pooled quantities as the report's per-operator tables
(:func:`sscbench.analysis.populations.cell_entry` over the primary population: faulted
runs of repetition 0), reduced to their point estimates. An unobserved population is
``nan`` (Inspect shows it as such), never 0 or 1.
"""

from __future__ import annotations

import math

from sscbench.analysis.populations import STRATA, cell_entry, primary_rows
from sscbench.analysis.stats import Interval
from sscbench.study.rows import MeasurementRow

METRIC_NAMES = (
    "adoption_triggered",  # A_T: propagation over triggered runs
    "adoption_P",  # A_P: adoption over P (decidable first use)
    *(f"adoption_{s}" for s in STRATA),  # a_s: adoption under each arrival stratum
    *(f"arrival_{s}" for s in STRATA),  # share of P with a decidable Z_S in each stratum
)


def _estimate(interval: Interval) -> float:
    return interval.estimate if interval.estimate is not None else math.nan


def population_metrics(rows: list[MeasurementRow]) -> dict[str, float]:
    """Point estimates of A_T, A_P, a_pre/late/absent and arrival shares over the
    primary population of these measurement rows (``nan`` when unobserved)."""
    primary = primary_rows(rows)
    entry = cell_entry("all", "all", primary)
    values = {
        "adoption_triggered": _estimate(entry["A_T"]),
        "adoption_P": _estimate(entry["A_P"]),
    }
    for stratum in STRATA:
        values[f"adoption_{stratum}"] = _estimate(entry[f"a_{stratum}"])
    for stratum in STRATA:
        values[f"arrival_{stratum}"] = _estimate(entry[f"arrival_{stratum}"])
    return values


def adoption_label(row: MeasurementRow) -> tuple[str, str]:
    """A run's adoption as a (label, explanation) pair: adopted, not-adopted, undecidable,
    or why it has no adoption (not triggered, no use, not qualified, missing, clean)."""
    a = row.A
    if a == 1:
        return "adopted", f"first faulty reliance at step {row.T_U}"
    if a == 0:
        return "not-adopted", "no faulty reliance on the injected value"
    if a == "undecidable":
        return "undecidable", "the ledger does not decide whether the value was relied on"
    return str(row.Z_S or "unmeasured"), "no adoption: the run has no decidable use"


def arrival_label(row: MeasurementRow) -> tuple[str, str]:
    """A run's arrival stratum Z_S with the steps that decide it."""
    z = str(row.Z_S or "unmeasured")
    if row.has("T_E") or row.has("T_S"):
        return z, f"T_F={row.T_F} T_E={row.T_E} T_S={row.T_S}"
    return z, f"run {row.status}, kind {row.kind}"
