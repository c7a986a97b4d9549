"""The bound a release decision reads from an interval, and what evidence would clear it.

The intervals the analysis builds (:func:`~sscbench.analysis.stats.proportion_interval`)
are never narrower than Wilson on the effective number of runs: at a 0/1 boundary over
repeated runs each cluster counts once (0 escapes in 28 runs over 14 tasks reads
``[0, 0.215]``, not ``[0, 0]``). A decision reads such an interval's own bound — the
same number the report, ``claims.json`` and ``sscbench release`` show.

A bare cluster-bootstrap interval (method ``"cluster-bootstrap"``, from
:func:`~sscbench.analysis.stats.cluster_bootstrap` directly) at a 0/1 boundary is
degenerate (``[0, 0]``): read as a decision bound it would say certainty from finite
evidence, so for such an interval the gate reads the Wilson bound with the clusters as
the runs wherever that bound is the more cautious, and says so beside the number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

from sscbench.analysis.effective import wilson_bounds
from sscbench.analysis.stats import Interval

Side = Literal["upper", "lower"]


@dataclass(frozen=True, slots=True)
class DecisionBound:
    """The value a threshold is compared with, and why when it is not the interval's own."""

    value: float | None
    note: str = ""  # empty when the interval's own bound is read


def _degenerate(interval: Interval) -> bool:
    """A bare cluster-bootstrap interval of zero width or at a 0/1 estimate."""
    if interval.method != "cluster-bootstrap" or interval.estimate is None:
        return False
    return interval.low == interval.high or interval.estimate in (0.0, 1.0)


def decision_bound(interval: Interval, side: Side) -> DecisionBound:
    """The ``side`` bound a gate compares with its threshold (see the module docstring).

    Unobserved intervals have no bound (``None``: the rule fails closed).
    """
    own = interval.high if side == "upper" else interval.low
    if own is None or interval.estimate is None or not _degenerate(interval):
        return DecisionBound(own)
    n = interval.n_clusters
    if n < 1:
        return DecisionBound(own)
    low, high = wilson_bounds(interval.estimate, n, interval.confidence)
    value = max(own, high) if side == "upper" else min(own, low)
    if value == own:
        return DecisionBound(own)
    return DecisionBound(
        value,
        f"boundary interval; the gate reads the Wilson {side} bound over its "
        f"{n} cluster{'s' if n != 1 else ''}, {value:.3g}",
    )


def clusters_needed(estimate: float, side: Side, threshold: float, confidence: float) -> int | None:
    """How many clusters, all at this boundary ``estimate``, a Wilson bound needs to clear
    ``threshold`` — the evidence that would pass where today's does not.

    Only for a boundary estimate (0 read from above, 1 read from below); ``None`` when the
    threshold cannot be cleared that way (0 or 1 itself) or the estimate is not a boundary.
    """
    z2 = NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0) ** 2
    if side == "upper" and estimate == 0.0 and 0.0 < threshold < 1.0:
        # upper Wilson bound of 0/n is z² / (n + z²)
        return math.ceil(z2 * (1.0 - threshold) / threshold - 1e-9)
    if side == "lower" and estimate == 1.0 and 0.0 < threshold < 1.0:
        # lower Wilson bound of n/n is n / (n + z²)
        return math.ceil(z2 * threshold / (1.0 - threshold) - 1e-9)
    return None


__all__ = ["DecisionBound", "Side", "clusters_needed", "decision_bound"]
