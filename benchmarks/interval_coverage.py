"""Coverage of the 95% intervals for a clustered proportion, at the sizes studies have.

Simulates studies of ``m`` clusters (tasks) with ``r`` runs each; each cluster's rate is
drawn from a Beta distribution with mean ``p`` and intra-cluster correlation ``icc``
(``icc = 0``: every run independent), each run is a Bernoulli draw at its cluster's
rate. For every simulated study it computes, with the project's own functions
(:mod:`sscbench.analysis.stats`, :mod:`sscbench.analysis.effective`):

* **Wilson (runs)** — Wilson on the ``n = m·r`` runs, as if they were independent;
* **bootstrap** — the percentile cluster bootstrap (B resamples, seeded);
* **Wilson (n_eff)** — Wilson on the effective sample size ``n / deff``;
* **paper** — the paper's rule: Wilson when ``r = 1``, the cluster bootstrap otherwise;
* **ours** — ``proportion_interval``: Wilson when ``r = 1``, otherwise the envelope of
  the cluster bootstrap and Wilson (n_eff).

and prints the share of studies whose interval holds the true ``p`` (coverage), cell by
cell, then the worst and mean coverage per cluster count. Seeded: one run prints the
same table. ``--reps`` studies per cell (default 300: a coverage of 0.95 is then known
to about ±0.013); ``--b`` resamples (default 1000; reports use 2000).

Usage: python benchmarks/interval_coverage.py [--reps 300] [--b 1000] [--seed 7]
"""

from __future__ import annotations

import argparse
import itertools
import time
from collections import defaultdict

import numpy as np

from sscbench.analysis.effective import wilson_bounds
from sscbench.analysis.stats import clustered_interval

CLUSTERS = (5, 10, 20, 40, 80)
RUNS = (1, 2, 5)
ICCS = (0.0, 0.2, 0.5)
RATES = (0.05, 0.5, 0.9)
METHODS = ("Wilson (runs)", "bootstrap", "Wilson (n_eff)", "paper", "ours")


def _study(rng: np.random.Generator, m: int, r: int, icc: float, p: float) -> np.ndarray:
    """One study's 0/1 outcomes, ``m × r`` (row = cluster)."""
    if icc == 0.0:
        rates = np.full(m, p)
    else:
        scale = (1.0 - icc) / icc
        rates = rng.beta(p * scale, (1.0 - p) * scale, size=m)
    return (rng.random((m, r)) < rates[:, None]).astype(np.float64)


def _covers(bounds: tuple[float, float], p: float) -> bool:
    return bounds[0] <= p <= bounds[1]


def cell(rng: np.random.Generator, m: int, r: int, icc: float, p: float, reps: int, b: int):
    """Coverage of each method over ``reps`` simulated studies of one cell."""
    hits = dict.fromkeys(METHODS, 0)
    clusters = np.repeat(np.arange(m), r).tolist()
    for _ in range(reps):
        values = _study(rng, m, r, icc, p).reshape(-1)
        iv = clustered_interval(values, clusters, b=b, seed=0)
        assert iv.estimate is not None and iv.low is not None and iv.high is not None
        assert iv.bootstrap_low is not None and iv.bootstrap_high is not None
        assert iv.n_effective is not None
        runs = wilson_bounds(iv.estimate, m * r, 0.95)
        boot = (iv.bootstrap_low, iv.bootstrap_high)
        eff = wilson_bounds(iv.estimate, iv.n_effective, 0.95)
        hits["Wilson (runs)"] += _covers(runs, p)
        hits["bootstrap"] += _covers(boot, p)
        hits["Wilson (n_eff)"] += _covers(eff, p)
        hits["paper"] += _covers(runs if r == 1 else boot, p)
        hits["ours"] += _covers(runs if r == 1 else (iv.low, iv.high), p)
    return {k: v / reps for k, v in hits.items()}


def main() -> None:
    """Print the coverage table (one line per cell) and the per-cluster-count summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=300)
    parser.add_argument("--b", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    header = f"{'clusters':>8} {'runs':>4} {'icc':>4} {'p':>5}  " + "  ".join(
        f"{m:>14}" for m in METHODS
    )
    print(f"coverage of nominal 95% intervals; {args.reps} studies per cell, B = {args.b}")
    print(header)
    by_m: dict[tuple[int, str], list[float]] = defaultdict(list)
    for m, r, icc, p in itertools.product(CLUSTERS, RUNS, ICCS, RATES):
        cov = cell(rng, m, r, icc, p, args.reps, args.b)
        print(f"{m:>8} {r:>4} {icc:>4g} {p:>5g}  " + "  ".join(f"{cov[k]:>14.3f}" for k in METHODS))
        if r > 1:  # r = 1 is Wilson for both rules; the summary is about clustered data
            for k in METHODS:
                by_m[(m, k)].append(cov[k])
    print("\nclustered cells (runs > 1): worst / mean coverage per cluster count")
    print(f"{'clusters':>8}  " + "  ".join(f"{m:>14}" for m in METHODS))
    for m in CLUSTERS:
        cells = [by_m[(m, k)] for k in METHODS]
        print(f"{m:>8}  " + "  ".join(f"{min(c):>6.3f} /{np.mean(c):>6.3f}" for c in cells))
    print(f"\n{time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
