"""Interval estimates for the proportions reported by the analysis (paper §V-B).

Three estimators, one result type:

* :func:`wilson` — the Wilson score interval for ``k`` successes in ``n`` independent runs.
* :func:`cluster_bootstrap` — a percentile interval for the ratio estimator
  ``sum(values) / count(runs)`` obtained by resampling whole clusters (target
  entities) with replacement, so that repeated runs on one entity are not treated
  as independent evidence.
* :func:`proportion_interval` — the interval every report, claim and gate reads:
  Wilson when every cluster contributes exactly one run; otherwise the outer envelope
  of the cluster bootstrap and the Wilson interval on the effective number of runs
  (``n_eff = n / deff``, :mod:`sscbench.analysis.effective`), method ``"clustered"``.
  It is never narrower than Wilson on the effective number of clusters, never of zero
  width, and carries its caveats (``"few clusters"``, ``"zero width"``, ``"boundary"``).

An empty population is a value, not a failure: every estimator returns an
:class:`Interval` whose ``method`` is ``"unobserved"`` with estimate and bounds set
to ``None`` (never 0 or 1), labelled ``"unobserved (0/0)"``.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import asdict, dataclass
from statistics import NormalDist
from typing import Any, Literal

import numpy as np

from sscbench.analysis.effective import caveats_for, effective_size, wilson_bounds

__all__ = [
    "Interval",
    "Method",
    "cluster_bootstrap",
    "clustered_interval",
    "draw_cluster_indices",
    "method_name",
    "proportion_interval",
    "wilson",
]

Method = Literal["wilson", "cluster-bootstrap", "clustered", "unobserved"]

_METHOD_NAMES: dict[str, str] = {
    "wilson": "Wilson",
    "cluster-bootstrap": "cluster bootstrap",
    "clustered": "clustered",
    "unobserved": "unobserved",
}


def method_name(method: str) -> str:
    """The one name of an interval method (``Wilson``, ``cluster bootstrap``, ``clustered``),
    so every label, page cell and CSV names one interval alike."""
    return _METHOD_NAMES.get(method, method)


# Upper bound on the number of uniforms drawn at once when a population is too large
# to keep its uniforms (the generator's stream does not depend on the blocking).
_BLOCK_CELLS = 1 << 22
# Cluster slots turned into indices and gathered per step (the block stays in cache).
_SLOTS_PER_GATHER = 128


@dataclass(frozen=True, slots=True)
class Interval:
    """A proportion with its interval, the counts behind it and how it was computed.

    ``numerator`` is the sum of the values (an ``int`` for 0/1 data), ``denominator``
    the number of runs, ``n_clusters`` the number of distinct clusters. For the
    ``"unobserved"`` method ``estimate``, ``low``, ``high`` (and ``width``) are ``None``.
    ``resamples`` and ``seed`` are set only when a cluster bootstrap was drawn.
    ``n_effective`` is the number of independent runs the interval is worth (``n`` for
    Wilson, ``n / deff`` for ``"clustered"``); ``bootstrap_low``/``bootstrap_high`` keep
    the percentile bounds a ``"clustered"`` interval envelops; ``caveats`` lists keys of
    :data:`~sscbench.analysis.effective.CAVEAT_TEXT`.
    """

    method: Method
    numerator: int | float
    denominator: int
    n_clusters: int
    estimate: float | None
    low: float | None
    high: float | None
    confidence: float = 0.95
    resamples: int | None = None
    seed: int | None = None
    n_effective: float | None = None
    design_effect: float | None = None
    bootstrap_low: float | None = None
    bootstrap_high: float | None = None
    caveats: tuple[str, ...] = ()

    @property
    def observed(self) -> bool:
        return self.method != "unobserved"

    @property
    def width(self) -> float | None:
        if self.low is None or self.high is None:
            return None
        return self.high - self.low

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["width"] = self.width
        data["caveats"] = list(self.caveats)
        return data

    def method_tag(self) -> str:
        """The method in a few words (:func:`method_name`), e.g. ``Wilson`` or
        ``clustered, n_eff 31.2, 12 clusters``: the same on the page and in every CSV."""
        if not self.observed:
            return "unobserved"
        name = method_name(self.method)
        if self.method == "wilson":
            return name
        noun = "cluster" if self.n_clusters == 1 else "clusters"
        if self.method == "clustered" and self.n_effective is not None:
            name = f"{name}, n_eff {self.n_effective:.3g}"
        return f"{name}, {self.n_clusters} {noun}"

    def label(self) -> str:
        """A short human-readable summary, e.g. ``12/30 (40.0%, 95% CI 24.6–57.7%, Wilson)``
        (the method as :meth:`method_tag` gives it)."""
        counts = f"{_fmt_count(self.numerator)}/{self.denominator}"
        if not self.observed or self.estimate is None or self.low is None or self.high is None:
            return f"unobserved ({counts})"
        level = f"{self.confidence * 100:g}% CI"
        return (
            f"{counts} ({self.estimate * 100:.1f}%, {level} "
            f"{self.low * 100:.1f}–{self.high * 100:.1f}%, {self.method_tag()})"
        )


def _fmt_count(x: int | float) -> str:
    if isinstance(x, int) or float(x).is_integer():
        return str(int(x))
    return f"{x:g}"


def _check_confidence(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")


def _unobserved(confidence: float) -> Interval:
    return Interval(
        method="unobserved",
        numerator=0,
        denominator=0,
        n_clusters=0,
        estimate=None,
        low=None,
        high=None,
        confidence=confidence,
    )


def wilson(k: int, n: int, confidence: float = 0.95, *, n_clusters: int | None = None) -> Interval:
    """Wilson score interval for ``k`` successes out of ``n`` runs.

    ``n == 0`` gives an unobserved interval. ``n_clusters`` defaults to ``n`` (one run
    per cluster, the situation in which this interval is appropriate).
    """
    _check_confidence(confidence)
    k, n = int(k), int(n)
    if n < 0 or k < 0 or k > n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return _unobserved(confidence)
    z = NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0)
    p = k / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denom
    half = z / denom * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n))
    # Exact bounds at the boundaries (the formula gives them up to rounding).
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)
    return Interval(
        method="wilson",
        numerator=k,
        denominator=n,
        n_clusters=n if n_clusters is None else n_clusters,
        estimate=p,
        low=low,
        high=high,
        confidence=confidence,
        n_effective=float(n),
        design_effect=1.0,
    )


def _prepare(
    values: Sequence[float | bool] | np.ndarray, clusters: Sequence[Hashable]
) -> tuple[np.ndarray, np.ndarray, int | float]:
    """Per-cluster sums and run counts (clusters in order of first appearance)."""
    if len(values) != len(clusters):
        raise ValueError(f"values ({len(values)}) and clusters ({len(clusters)}) differ in length")
    vals = np.asarray(values, dtype=np.float64).reshape(-1)
    if not np.all(np.isfinite(vals)):
        raise ValueError("values must be finite")
    index: dict[Hashable, int] = {}
    codes = np.fromiter(
        (index.setdefault(c, len(index)) for c in clusters), dtype=np.intp, count=len(clusters)
    )
    n_clusters = len(index)
    sums = np.bincount(codes, weights=vals, minlength=n_clusters)
    counts = np.bincount(codes, minlength=n_clusters).astype(np.float64)
    total = float(vals.sum())
    numerator: int | float = int(total) if np.all((vals == 0.0) | (vals == 1.0)) else total
    return sums, counts, numerator


def draw_cluster_indices(seed: int, b: int, n_clusters: int) -> np.ndarray:
    """The seeded ``b × n_clusters`` resampling matrix, whole (for references and checks).

    Row ``i`` lists the clusters drawn (with replacement) for bootstrap resample ``i``:
    slot ``j`` holds ``floor(U[j, i] * n_clusters)`` with
    ``U = np.random.default_rng(seed).random((n_clusters, b))``. The generator fills
    ``U`` slot by slot, so the matrix for ``n`` clusters reads the first ``n`` slots of
    the stream of any larger one: one draw per ``(seed, b)`` serves every population
    of a report, whatever its size. ``floor(u * n)`` of a 53-bit uniform differs from
    an exactly uniform index by under ``2**-53`` in probability.
    """
    uniforms = np.random.default_rng(seed).random((n_clusters, b))
    return _scale(uniforms, n_clusters).T


def _scale(uniforms: np.ndarray, n_clusters: int) -> np.ndarray:
    """Cluster indices ``floor(u * n_clusters)``, each below ``n_clusters``.

    No clamp is needed: ``u <= 1 - 2**-53``, so ``u * n`` lies more than half a unit
    in the last place below the integer ``n`` and rounds to a double below it.
    """
    scaled = uniforms * n_clusters
    return scaled.astype(np.intp, copy=False)


# The uniforms already drawn, by (seed, b), with the generator that continues them:
# a larger population extends them, a smaller one reads a prefix.
_UNIFORM_CACHE_BYTES = 256 << 20
_UNIFORMS: OrderedDict[tuple[int, int], tuple[np.random.Generator, np.ndarray]] = OrderedDict()


def _uniform_slots(seed: int, b: int, n_clusters: int) -> Iterator[np.ndarray]:
    """Consecutive slot blocks (``rows × b``) of the seeded ``n_clusters × b`` uniforms."""
    if n_clusters * b * 8 > _UNIFORM_CACHE_BYTES:  # too large to keep: stream it
        rng = np.random.default_rng(seed)
        block = max(1, _BLOCK_CELLS // b)
        for start in range(0, n_clusters, block):
            yield rng.random((min(block, n_clusters - start), b))
        return
    key = (seed, b)
    cached = _UNIFORMS.get(key)
    if cached is None:
        cached = (np.random.default_rng(seed), np.empty((0, b)))
    rng, uniforms = cached
    if len(uniforms) < n_clusters:
        # grow at least twofold (within the budget), so that populations of slowly
        # rising size extend the uniforms a few times, not once per size
        rows = max(n_clusters, min(2 * len(uniforms), _UNIFORM_CACHE_BYTES // (8 * b)))
        uniforms = np.concatenate([uniforms, rng.random((rows - len(uniforms), b))])
        uniforms.flags.writeable = False
    _UNIFORMS[key] = (rng, uniforms)
    _UNIFORMS.move_to_end(key)
    while sum(u.nbytes for _, u in _UNIFORMS.values()) > _UNIFORM_CACHE_BYTES:
        _UNIFORMS.popitem(last=False)
    yield uniforms[:n_clusters]


_SHIFT = 32
_LOW_MASK = (1 << _SHIFT) - 1


def _pack(sums: np.ndarray, counts: np.ndarray) -> np.ndarray | None:
    """Per-cluster ``count << 32 | sum`` as int64 when every sum is a whole number.

    One integer gather then yields both resample totals at once (the usual case:
    0/1 values); the ratios are bit-identical to the float path because every total
    is an exact integer. ``None`` when the sums are fractional or totals could carry
    into the count bits.
    """
    n = len(sums)
    if not np.all(sums == np.floor(sums)) or sums.min() < 0:
        return None
    if sums.max() * n >= 1 << (_SHIFT - 1) or counts.max() * n >= 1 << (62 - _SHIFT):
        return None
    return (counts.astype(np.int64) << _SHIFT) | sums.astype(np.int64)


def cluster_bootstrap(
    values: Sequence[float | bool] | np.ndarray,
    clusters: Sequence[Hashable],
    *,
    b: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
) -> Interval:
    """Percentile cluster-bootstrap interval of ``sum(values) / count(runs)``.

    Each of ``b`` resamples draws ``n_clusters`` clusters with replacement (row ``i`` of
    :func:`draw_cluster_indices`, seeded by ``seed``) and computes the ratio of the
    summed values to the number of runs in the drawn clusters. The bounds are
    the ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` quantiles (numpy's default
    linear interpolation) of the ``b`` ratios. Deterministic for a seed. Empty input
    gives an unobserved interval.
    """
    _check_confidence(confidence)
    if b < 1:
        raise ValueError(f"b must be >= 1, got {b}")
    return _bootstrap(*_prepare(values, clusters), b=b, seed=seed, confidence=confidence)


def _bootstrap(
    sums: np.ndarray,
    counts: np.ndarray,
    numerator: int | float,
    *,
    b: int,
    seed: int,
    confidence: float,
) -> Interval:
    """:func:`cluster_bootstrap` on per-cluster sums and run counts."""
    n_clusters = len(sums)
    if n_clusters == 0:
        return _unobserved(confidence)
    n_runs = int(counts.sum())
    estimate = float(sums.sum() / counts.sum())

    packed = _pack(sums, counts)
    # packed: one int64 total per resample; otherwise value and run totals side by side
    packed_totals = np.zeros(b if packed is not None else 0, dtype=np.int64)
    pair_totals = np.zeros((b if packed is None else 0, 2))
    for uniforms in _uniform_slots(seed, b, n_clusters):
        # a slot block at a time: its indices stay in cache for the gather
        for start in range(0, len(uniforms), _SLOTS_PER_GATHER):
            idx = _scale(uniforms[start : start + _SLOTS_PER_GATHER], n_clusters)
            if packed is not None:
                packed_totals += np.take(packed, idx).sum(axis=0)
            else:
                pair_totals[:, 0] += sums[idx].sum(axis=0)
                pair_totals[:, 1] += counts[idx].sum(axis=0)
    if packed is not None:
        ratios = (packed_totals & _LOW_MASK) / (packed_totals >> _SHIFT)
    else:
        ratios = pair_totals[:, 0] / pair_totals[:, 1]

    alpha = 1.0 - confidence
    low, high = np.quantile(ratios, [alpha / 2.0, 1.0 - alpha / 2.0])
    return Interval(
        method="cluster-bootstrap",
        numerator=numerator,
        denominator=n_runs,
        n_clusters=n_clusters,
        estimate=estimate,
        low=float(low),
        high=float(high),
        confidence=confidence,
        resamples=b,
        seed=seed,
    )


def proportion_interval(
    values: Sequence[float | bool],
    clusters: Sequence[Hashable],
    *,
    b: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
) -> Interval:
    """Interval for the proportion of 0/1 ``values``: the one rule every report reads.

    Empty input → ``"unobserved"``; every cluster contributing exactly one run →
    ``"wilson"``; otherwise → ``"clustered"`` (see :func:`clustered_interval`).
    """
    if len(values) != len(clusters):
        raise ValueError(f"values ({len(values)}) and clusters ({len(clusters)}) differ in length")
    vals = np.asarray(values, dtype=np.float64).reshape(-1)
    if not np.all((vals == 0.0) | (vals == 1.0)):
        raise ValueError("proportion_interval needs 0/1 (or boolean) values")
    if len(vals) == 0:
        return _unobserved(confidence)
    n_distinct = len(set(clusters))
    if n_distinct == len(vals):
        return wilson(int(vals.sum()), len(vals), confidence)
    # reports ask for the same population under several names (a claim and a table
    # cell, the primary analysis and a sensitivity analysis that keeps every run):
    # the interval is a pure function of its inputs, so it is computed once
    key = (vals.tobytes(), tuple(clusters), b, seed, confidence)
    cached = _BOOTSTRAPS.get(key)
    if cached is None:
        if len(_BOOTSTRAPS) >= _CACHE_SIZE:
            _BOOTSTRAPS.pop(next(iter(_BOOTSTRAPS)))
        cached = _BOOTSTRAPS[key] = clustered_interval(
            vals, clusters, b=b, seed=seed, confidence=confidence
        )
    return cached


def clustered_interval(
    values: Sequence[float | bool] | np.ndarray,
    clusters: Sequence[Hashable],
    *,
    b: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
) -> Interval:
    """The outer envelope of the cluster bootstrap and Wilson on ``n_eff`` runs.

    The cluster bootstrap alone understates uncertainty over few clusters (and has zero
    width when all clusters agree); Wilson on the effective sample size
    ``n_eff = n / deff`` (:func:`~sscbench.analysis.effective.effective_size`) is the
    floor: the result is never narrower, and never of zero width.
    """
    # through the module-level name, so a benchmark may swap the bootstrap it times
    boot = cluster_bootstrap(values, clusters, b=b, seed=seed, confidence=confidence)
    if not boot.observed or boot.estimate is None or boot.low is None or boot.high is None:
        return boot
    sums, counts, _ = _prepare(values, clusters)
    deff, n_eff = effective_size(sums, counts)
    w_low, w_high = wilson_bounds(boot.estimate, n_eff, confidence)
    return Interval(
        method="clustered",
        numerator=boot.numerator,
        denominator=boot.denominator,
        n_clusters=boot.n_clusters,
        estimate=boot.estimate,
        low=min(boot.low, w_low),
        high=max(boot.high, w_high),
        confidence=confidence,
        resamples=b,
        seed=seed,
        n_effective=n_eff,
        design_effect=deff,
        bootstrap_low=boot.low,
        bootstrap_high=boot.high,
        caveats=caveats_for(boot.n_clusters, boot.estimate, boot.low, boot.high),
    )


_CACHE_SIZE = 4096
_BOOTSTRAPS: dict[tuple, Interval] = {}
