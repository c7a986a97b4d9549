"""Cluster-bootstrap intervals for a whole study table (goal: < 10 s on one core).

Builds 100,000 measurement-like rows: random 0/1 values, grouped into 40 table cells
(4 operators × 5 configurations × 2 strata), each cell's runs falling into clusters of
about 3 runs. Times ``cluster_bootstrap`` with B = 2,000 for every cell (grouping rows
into cells included), then a naive implementation (a Python loop over resamples and,
inside it, over drawn clusters) on a subset of cells; the naive time is extrapolated
to all cells in proportion to B × clusters (the work it does) and the ratio printed.
The numpy operations used (integer draws, gathers, row sums, quantiles) run on one
core; no BLAS call is involved.

Usage: python benchmarks/analysis_stats.py [--rows 100000] [--b 2000] [--naive-cells 2]
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import defaultdict

import numpy as np

from sscbench.analysis.stats import cluster_bootstrap

OPERATORS = ("ReturnDate", "ItemOption", "PaySource", "WriteEffect")
CONFIGS = ("C1", "C2", "C3", "C4", "C5")
STRATA = ("pre", "late")


def make_rows(n_rows: int, runs_per_cluster: float, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    cells = [(o, c, s) for o in OPERATORS for c in CONFIGS for s in STRATA]
    cell_of = rng.integers(0, len(cells), size=n_rows)
    per_cell = np.bincount(cell_of, minlength=len(cells))
    rows: list[dict] = []
    for ci, (op, cfg, stratum) in enumerate(cells):
        m = int(per_cell[ci])
        n_clusters = max(1, round(m / runs_per_cluster))
        cluster = rng.integers(0, n_clusters, size=m)
        p = rng.uniform(0.1, 0.9)
        adopted = rng.random(m) < p
        for k in range(m):
            rows.append(
                {
                    "operator": op,
                    "config": cfg,
                    "stratum": stratum,
                    "entity": f"{op}:e{int(cluster[k])}",
                    "adopted": bool(adopted[k]),
                }
            )
    random.Random(seed).shuffle(rows)
    return rows


def group(rows: list[dict]) -> dict[tuple, tuple[list, list]]:
    cells: dict[tuple, tuple[list, list]] = defaultdict(lambda: ([], []))
    for r in rows:
        values, clusters = cells[(r["operator"], r["config"], r["stratum"])]
        values.append(r["adopted"])
        clusters.append(r["entity"])
    return dict(cells)


def naive_cluster_bootstrap(values, clusters, *, b, seed, confidence=0.95):
    """Python loops over resamples and clusters (same estimator, random.Random draws)."""
    members: dict = defaultdict(lambda: [0, 0])
    for v, c in zip(values, clusters, strict=True):
        members[c][0] += int(v)
        members[c][1] += 1
    stats = list(members.values())
    k = len(stats)
    rnd = random.Random(seed)
    ratios = []
    for _ in range(b):
        total = runs = 0
        for _ in range(k):
            s, n = stats[rnd.randrange(k)]
            total += s
            runs += n
        ratios.append(total / runs)
    ratios.sort()
    alpha = 1 - confidence
    return float(np.quantile(ratios, alpha / 2)), float(np.quantile(ratios, 1 - alpha / 2))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--b", type=int, default=2000)
    ap.add_argument("--runs-per-cluster", type=float, default=3.0)
    ap.add_argument("--naive-cells", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    rows = make_rows(args.rows, args.runs_per_cluster, args.seed)

    t0 = time.perf_counter()
    cells = group(rows)
    results = {
        key: cluster_bootstrap(values, clusters, b=args.b, seed=args.seed)
        for key, (values, clusters) in cells.items()
    }
    vectorised = time.perf_counter() - t0

    total_clusters = sum(iv.n_clusters for iv in results.values())
    subset = sorted(cells)[: args.naive_cells]
    t0 = time.perf_counter()
    for key in subset:
        naive_cluster_bootstrap(*cells[key], b=args.b, seed=args.seed)
    naive_subset = time.perf_counter() - t0
    subset_clusters = sum(results[key].n_clusters for key in subset)
    naive_extrapolated = naive_subset * total_clusters / subset_clusters

    example = results[subset[0]]
    print(
        f"rows={len(rows):,} cells={len(cells)} clusters={total_clusters:,} "
        f"(mean {len(rows) / total_clusters:.2f} runs/cluster) B={args.b:,}"
    )
    print(f"vectorised cluster bootstrap, all {len(cells)} cells: {vectorised:.3f} s")
    print(
        f"naive loop, {len(subset)} of {len(cells)} cells ({subset_clusters:,} clusters): "
        f"{naive_subset:.3f} s measured"
    )
    print(
        f"naive loop, all cells: {naive_extrapolated:.1f} s EXTRAPOLATED "
        f"(measured subset × {total_clusters / subset_clusters:.1f}, by B × clusters)"
    )
    print(f"speed-up (naive extrapolated / vectorised): {naive_extrapolated / vectorised:.1f}x")
    print(f"goal < 10 s for all cells: {'met' if vectorised < 10 else 'NOT met'}")
    print(f"example cell {'/'.join(subset[0])}: {example.label()}")
    print(
        json.dumps(
            {
                "rows": len(rows),
                "cells": len(cells),
                "clusters": total_clusters,
                "b": args.b,
                "vectorised_s": round(vectorised, 4),
                "naive_subset_s": round(naive_subset, 4),
                "naive_subset_cells": len(subset),
                "naive_extrapolated_s": round(naive_extrapolated, 2),
                "ratio": round(naive_extrapolated / vectorised, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
