"""The bound a release decision reads from an interval, and what evidence would clear it.

A cluster-bootstrap interval at a 0/1 boundary is degenerate: 0 escapes in 28 runs over
14 tasks resamples to ``[0, 0]``, which describes only the observed clusters. Read as a
decision bound it would say the escape rate is at most 0 — certainty from 14 tasks, and
``exposure × 0 = 0`` expected escapes whatever the exposure. A decision must not read
certainty into finite evidence, so for such an interval it reads the Wilson bound with
the clusters as the runs (each task counted once: the smallest sample the runs could
be worth, when the repetitions on a task are fully correlated) wherever that bound is
the more cautious. Non-degenerate intervals are read as they are.

The report and the evidence tables keep showing the interval itself; only the gate's
reading changes, and the gate says so beside the number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

from sscbench.analysis.populations import is_caveated
from sscbench.analysis.stats import Interval

Side = Literal["upper", "lower"]


@dataclass(frozen=True, slots=True)
class DecisionBound:
    """The value a threshold is compared with, and why when it is not the interval's own."""

    value: float | None
    note: str = ""  # empty when the interval's own bound is read


def _wilson_bounds(p: float, n: int, confidence: float) -> tuple[float, float]:
    z = NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0)
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denom
    half = z / denom * math.sqrt(max(p * (1.0 - p), 0.0) / n + z2 / (4.0 * n * n))
    low = 0.0 if p <= 0.0 else max(0.0, centre - half)
    high = 1.0 if p >= 1.0 else min(1.0, centre + half)
    return low, high


def decision_bound(interval: Interval, side: Side) -> DecisionBound:
    """The ``side`` bound a gate compares with its threshold (see the module docstring).

    Unobserved intervals have no bound (``None``: the rule fails closed).
    """
    own = interval.high if side == "upper" else interval.low
    if own is None or interval.estimate is None or not is_caveated(interval):
        return DecisionBound(own)
    n = interval.n_clusters
    if n < 1:
        return DecisionBound(own)
    low, high = _wilson_bounds(interval.estimate, n, interval.confidence)
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
