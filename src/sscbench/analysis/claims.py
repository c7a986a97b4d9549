"""Claim cards: each claim with the condition it requires and the population that supports it.

An empty population reads "unobserved" (never 0% or 100%); a small one shows its width.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sscbench.analysis.populations import STRATA, faulted_rows
from sscbench.analysis.stats import proportion_interval
from sscbench.measure.values import is_step

Row = dict[str, Any]


@dataclass(frozen=True)
class Claim:
    """A claim: which runs may support it and which of them count for it."""

    name: str
    required_condition: str
    population: Callable[[Row], bool]
    counts: Callable[[Row], bool]


def _evaluable(row: Row) -> bool:
    return (
        row.get("status") == "completed"
        and bool(row.get("triggered"))
        and not row.get("control")
        and row.get("repetition") == 0
        and row.get("A") in (0, 1)
    )


BUILT_IN = (
    Claim(
        "propagation",
        "the fault was delivered (triggered run); adoption decidable",
        _evaluable,
        lambda r: r["A"] == 1,
    ),
    Claim(
        "adoption with eventual counterevidence",
        "valid counterevidence arrived at some step of the run (T_E finite), decidable first use",
        lambda r: _evaluable(r) and is_step(r.get("T_E")) and is_step(r.get("T_S")),
        lambda r: r["A"] == 1,
    ),
    Claim(
        "adoption under pre-use counterevidence",
        "valid counterevidence arrived before the first dependent use (Z_S = pre)",
        lambda r: _evaluable(r) and r.get("Z_S") == "pre",
        lambda r: r["A"] == 1,
    ),
)


def claim_cards(rows: list[Row], claims: tuple[Claim, ...] = BUILT_IN) -> list[dict[str, Any]]:
    """One card per claim and operator: numerator, denominator, clusters, estimate, interval."""
    faulted = faulted_rows(rows)
    operators = sorted({r.get("operator") or "?" for r in faulted})
    cards = []
    for claim in claims:
        for operator in operators:
            members = [
                r for r in faulted if (r.get("operator") or "?") == operator and claim.population(r)
            ]
            interval = proportion_interval(
                [claim.counts(r) for r in members], [r["cluster"] for r in members]
            )
            cards.append(
                {
                    "claim": claim.name,
                    "operator": operator,
                    "required_condition": claim.required_condition,
                    **interval.to_dict(),
                    "label": interval.label(),
                    "status": "unobserved" if not interval.observed else "observed",
                }
            )
    return cards


__all__ = ["BUILT_IN", "STRATA", "Claim", "claim_cards"]
