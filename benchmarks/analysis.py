"""Every analysis table on 100,000 measurement rows with cluster bootstrap B = 2,000.

Times the whole report computation (operator × configuration table, claim cards and
the five sensitivity analyses; Wilson or cluster bootstrap chosen per cell as in a
real report) against the same computation with a naive Python-loop bootstrap, in one
run. The naive pass is timed on one operator's rows and scaled by the ratio of
bootstrap work (B × clusters) — the output says so. Goal: under 10 s on one core.

Usage: python benchmarks/analysis.py [--rows 100000]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from unittest import mock

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from analysis_stats import naive_cluster_bootstrap

from sscbench.analysis import stats
from sscbench.analysis.claims import claim_cards
from sscbench.analysis.populations import cell_table
from sscbench.analysis.sensitivity import sensitivity_table

OPERATORS = ("ReturnDate", "ItemOption", "PaySource", "WriteEffect")
CONFIGS = ("F", "V", "L", "T", "S")


def make_rows(n: int, seed: int = 0) -> list[dict]:
    """Measurement-like faulted rows: ~3 runs per (case, configuration), 3 repetitions."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        operator = OPERATORS[i % 4]
        case = int(rng.integers(0, n // 40))
        z = ("pre", "late", "absent", "no-use")[int(rng.integers(0, 4))]
        adopted = int(rng.random() < 0.6)
        t_s = "inf" if z == "no-use" else 10
        t_e = {"pre": 5, "late": 14, "absent": "inf", "no-use": 5}[z]
        rows.append(
            {
                "kind": "faulted",
                "status": "completed",
                "triggered": True,
                "operator": operator,
                "config_id": CONFIGS[int(rng.integers(0, 5))],
                "case_id": f"{operator}:{case}",
                "cluster": f"{operator}:{case // 2}",
                "repetition": int(rng.integers(0, 3)),
                "control": bool(rng.random() < 0.05),
                "literal": bool(rng.random() < 0.8),
                "Z_S": z,
                "A": adopted if z != "no-use" else 0,
                "T_S": t_s,
                "T_E": t_e,
                "T_U": 10 if adopted and z != "no-use" else "inf",
                "Y_end": "endorses" if adopted else "rejects",
            }
        )
    random.Random(seed).shuffle(rows)
    return rows


def compute(rows: list[dict]) -> int:
    """All report tables from cold caches; returns the number of cells computed."""
    stats._BOOTSTRAPS.clear()
    stats._UNIFORMS.clear()
    return len(cell_table(rows)) + len(claim_cards(rows)) + len(sensitivity_table(rows))


def bootstrap_work(rows: list[dict]) -> int:
    """B × clusters summed over every bootstrap the tables compute."""
    work = 0
    real = stats.cluster_bootstrap

    def counting(values, clusters, **kwargs):
        nonlocal work
        work += kwargs.get("b", 2000) * len(set(clusters))
        return real(values, clusters, **kwargs)

    with mock.patch.object(stats, "cluster_bootstrap", counting):
        compute(rows)
    return work


def naive(values, clusters, *, b=2000, seed=0, confidence=0.95):
    low, high = naive_cluster_bootstrap(values, clusters, b=b, seed=seed, confidence=confidence)
    k = sum(map(bool, values))
    return stats.Interval(
        "cluster-bootstrap",
        k,
        len(values),
        len(set(clusters)),
        k / len(values),
        low,
        high,
        confidence,
        b,
        seed,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    args = parser.parse_args()
    rows = make_rows(args.rows)
    start = time.perf_counter()
    cells = compute(rows)
    fast = time.perf_counter() - start
    subset = [r for r in rows if r["operator"] == "ReturnDate"]
    total_work, subset_work = bootstrap_work(rows), bootstrap_work(subset)
    with mock.patch.object(stats, "cluster_bootstrap", naive):
        start = time.perf_counter()
        compute(subset)
        naive_subset = time.perf_counter() - start
    naive_total = naive_subset * total_work / max(subset_work, 1)
    print(f"{len(rows):,} rows, {cells} table cells, cluster bootstrap B = 2,000 where needed")
    print(f"vectorised, every table: {fast:.2f} s (goal < 10 s)")
    print(
        f"naive loop: {naive_subset:.2f} s on one operator's rows, scaled by bootstrap work "
        f"x{total_work / max(subset_work, 1):.1f} -> {naive_total:.1f} s (extrapolated)"
    )
    print(f"ratio naive / vectorised: {naive_total / fast:.1f}x")


if __name__ == "__main__":
    main()
