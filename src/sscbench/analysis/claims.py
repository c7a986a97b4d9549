"""Claim cards: each claim with the condition it requires and the population that supports it.

An empty population reads "unobserved" (never 0% or 100%); a small one shows its width.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sscbench.analysis.pooling import POOL_WORDS, pool_name
from sscbench.analysis.populations import (
    caveat_text,
    faulted_rows,
    interval_label,
)
from sscbench.analysis.stats import proportion_interval
from sscbench.core.values import is_step
from sscbench.study.rows import MeasurementRow

Row = dict[str, Any]


@dataclass(frozen=True)
class Claim:
    """A claim: which runs may support it and which of them count for it."""

    name: str
    required_condition: str
    population: Callable[[MeasurementRow], bool]
    counts: Callable[[MeasurementRow], bool]
    #: which runs the population holds beyond :data:`EVALUABLE` (e.g. ``"Z_S = pre"``)
    restriction: str = ""

    def population_words(self) -> str:
        """The rule of this claim's population in words."""
        return f"{EVALUABLE}, with {self.restriction}" if self.restriction else EVALUABLE


EVALUABLE = "repetition 0, triggered, target-value controls excluded, adoption decidable"


def _evaluable(row: MeasurementRow) -> bool:
    return (
        row.status == "completed"
        and bool(row.triggered)
        and not row.control
        and row.repetition == 0
        and row.A in (0, 1)
    )


BUILT_IN = (
    Claim(
        "propagation",
        "the fault was delivered (triggered run); adoption decidable",
        _evaluable,
        lambda r: r.A == 1,
    ),
    Claim(
        "adoption with eventual counterevidence",
        "valid counterevidence arrived at some step of the run (T_E finite), decidable first use",
        lambda r: _evaluable(r) and is_step(r.T_E) and is_step(r.T_S),
        lambda r: r.A == 1,
        "T_E finite, T_S decidable",
    ),
    Claim(
        "adoption under pre-use counterevidence",
        "valid counterevidence arrived before the first dependent use (Z_S = pre)",
        lambda r: _evaluable(r) and r.Z_S == "pre",
        lambda r: r.A == 1,
        "Z_S = pre",
    ),
)


POOLED = "all configurations"


def population_label(claim: Claim, members: list[MeasurementRow]) -> str:
    """The card's population: its claim's rule and the runs and clusters it holds here,
    e.g. ``repetition 0, …, adoption decidable, with Z_S = pre: 25 runs, 12 clusters``."""
    clusters = len({r.cluster for r in members})
    runs = f"{len(members)} run{'s' * (len(members) != 1)}"
    return f"{claim.population_words()}: {runs}, {clusters} cluster{'s' * (clusters != 1)}"


def _groups(
    rows: list[MeasurementRow], pools: list[list[str]]
) -> dict[tuple[str, str | None], list[MeasurementRow]]:
    """Runs by (operator, configuration), by (operator, pool) for each pool of several
    configurations, and by (operator, :data:`POOLED`)."""
    pool_of = {c: pool_name(p) for p in pools if len(p) > 1 for c in p}
    groups: dict[tuple[str, str | None], list[MeasurementRow]] = {}
    for r in faulted_rows(rows):
        operator = r.operator or "?"
        groups.setdefault((operator, r.config_id), []).append(r)
        if str(r.config_id) in pool_of:
            groups.setdefault((operator, pool_of[str(r.config_id)]), []).append(r)
        groups.setdefault((operator, POOLED), []).append(r)
    return groups


def claim_cards(
    rows: list[MeasurementRow],
    claims: tuple[Claim, ...] = BUILT_IN,
    pools: list[list[str]] | None = None,
) -> list[dict[str, Any]]:
    """One card per claim, operator and configuration, per claim, operator and pool of
    configurations that are repetitions of one model (``pools``, from
    :func:`sscbench.analysis.pooling.repetition_pools`; ``pooled_over`` names them), and
    per claim and operator pooled over all configurations: numerator, denominator,
    clusters, estimate, interval, caveat and the run ids of its population (``runs``)
    and of the runs that count (``counted``)."""
    groups = _groups(rows, pools or [])
    pooled_over = {pool_name(p): POOL_WORDS for p in pools or [] if len(p) > 1}
    pooled_over[POOLED] = POOLED
    order = sorted(groups, key=lambda k: (k[0], k[1] == POOLED, str(k[1])))
    cards = []
    for claim in claims:
        for operator, config in order:
            members = [r for r in groups[(operator, config)] if claim.population(r)]
            counted = [claim.counts(r) for r in members]
            interval = proportion_interval(counted, [r.cluster for r in members])
            cards.append(
                {
                    "claim": claim.name,
                    "operator": operator,
                    "config_id": config,
                    "required_condition": claim.required_condition,
                    "population": population_label(claim, members),
                    **interval.to_dict(),
                    "caveat": caveat_text(interval),
                    "label": interval_label(interval),
                    "status": "unobserved" if not interval.observed else "observed",
                    "pooled_over": pooled_over.get(str(config), ""),
                    "runs": [r.run_id for r in members],
                    "counted": [r.run_id for r, c in zip(members, counted, strict=True) if c],
                }
            )
    return cards


__all__ = ["BUILT_IN", "EVALUABLE", "POOLED", "Claim", "claim_cards", "population_label"]
