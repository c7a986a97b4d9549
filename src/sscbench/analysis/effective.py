"""The effective number of clusters behind a clustered proportion, and its Wilson bounds.

A cluster bootstrap over few clusters understates uncertainty: with 8 tasks it can only
resample 8 values, and when every task gives the same rate it returns a zero-width
interval. The honest floor used by :func:`~sscbench.analysis.stats.proportion_interval`
is the Wilson interval on the *effective* sample size ``n_eff = n / deff``, where the
design effect ``deff`` compares the ratio estimator's between-cluster variance with the
binomial one:

``Var(p̂) ≈ m/(m−1) · Σ (y_i − p̂·n_i)² / n²``, ``deff = Var(p̂) / (p̂(1−p̂)/n)``,

floored at 1 (clusters never count as more than independent runs). At p̂ = 0 or 1 the
variance is 0/0 and the design effect is unknowable; the runs then count as the number
of clusters (each cluster once — the fully correlated case), the cautious choice.

The caveats say what a reader must know, in words; one short key per kind, with the
sentence a table note prints once.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

__all__ = [
    "CAVEAT_TEXT",
    "CLUSTERED_TEXT",
    "FEW_CLUSTERS",
    "caveats_for",
    "effective_size",
    "wilson_bounds",
]

# Below this many clusters the simulation (benchmarks/interval_coverage.py) shows the
# cluster bootstrap alone covering the true rate in as few as a third of studies: the
# interval then rests on the Wilson floor, whose design effect comes from few clusters.
FEW_CLUSTERS = 10

CLUSTERED_TEXT = (
    "clustered: repeated runs per task; the outer envelope of the cluster bootstrap and "
    "the Wilson interval on n_eff = runs / design effect, never narrower than Wilson on "
    "the effective number of clusters"
)

CAVEAT_TEXT: dict[str, str] = {
    "few clusters": (
        f"fewer than {FEW_CLUSTERS} clusters; a cluster bootstrap over so few understates "
        "uncertainty, so the interval leans on Wilson on the effective number of runs, "
        "whose design effect is itself estimated from these few clusters"
    ),
    "zero width": (
        "every bootstrap resample gave the same rate (all clusters alike), "
        "so the interval shown is the Wilson interval on the effective number of runs"
    ),
    "boundary": (
        "0/n or n/n, so the design effect cannot be estimated and each cluster counts "
        "once (n_eff = clusters), the cautious reading"
    ),
}


def effective_size(sums: np.ndarray, counts: np.ndarray) -> tuple[float, float]:
    """``(deff, n_eff)`` of the ratio ``sums.sum() / counts.sum()`` over its clusters.

    See the module docstring. One cluster, or a 0/1 estimate, gives ``n_eff`` equal to
    the number of clusters (``deff = n / m``).
    """
    m = len(sums)
    n = float(counts.sum())
    if m == 0 or n == 0:
        return 1.0, 0.0
    p = float(sums.sum()) / n
    if m < 2 or p <= 0.0 or p >= 1.0:
        return n / m, float(m)
    resid = sums - p * counts
    variance = m / (m - 1) * float(np.dot(resid, resid)) / (n * n)
    deff = max(1.0, variance / (p * (1.0 - p) / n))
    return deff, n / deff


def wilson_bounds(p: float, n: float, confidence: float) -> tuple[float, float]:
    """Wilson score bounds for a proportion ``p`` observed on ``n`` (possibly fractional)
    runs; exact 0 and 1 at the boundaries."""
    if n <= 0:
        return 0.0, 1.0
    z = NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0)
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denom
    half = z / denom * math.sqrt(max(p * (1.0 - p), 0.0) / n + z2 / (4.0 * n * n))
    low = 0.0 if p <= 0.0 else max(0.0, centre - half)
    high = 1.0 if p >= 1.0 else min(1.0, centre + half)
    return low, high


def caveats_for(
    n_clusters: int, estimate: float, boot_low: float, boot_high: float
) -> tuple[str, ...]:
    """The caveat keys (see :data:`CAVEAT_TEXT`) of a clustered interval."""
    keys: list[str] = []
    if n_clusters < FEW_CLUSTERS:
        keys.append("few clusters")
    if estimate in (0.0, 1.0):
        keys.append("boundary")
    elif boot_low == boot_high:
        keys.append("zero width")
    return tuple(keys)
