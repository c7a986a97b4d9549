"""Which runs get a page in the run browser (``sscbench report --run-pages``).

``all`` renders every run, ``none`` only the run list, ``sample`` a deterministic,
stratified subset: runs are grouped by outcome (kind, operator, configuration, status,
Z_S, A) and each group contributes its first ``k`` runs in run-id order, ``k`` the
largest quota that keeps the sample within :data:`SAMPLE_CAP` pages (at least one run
of every group). The same study always samples the same runs.
"""

from __future__ import annotations

from collections.abc import Sequence

from sscbench.study.rows import MeasurementRow

RUN_PAGES = ("all", "sample", "none")
SAMPLE_ABOVE = 2000  # the default is "all" up to this many runs, "sample" above
SAMPLE_CAP = 2000  # pages a sample renders at most (more only when there are more groups)
STRATUM = ("kind", "operator", "config_id", "status", "Z_S", "A")


def _quota(sizes: list[int], cap: int) -> int:
    """The largest per-group quota k (at least 1) with sum(min(k, size)) <= cap."""
    low, high = 1, max(sizes, default=1)
    while low < high:
        mid = (low + high + 1) // 2
        if sum(min(mid, n) for n in sizes) <= cap:
            low = mid
        else:
            high = mid - 1
    return low


def sample_runs(rows: Sequence[MeasurementRow], cap: int | None = None) -> set[str]:
    """The run ids of the stratified sample: every outcome group's first runs by id
    (``cap`` pages at most, :data:`SAMPLE_CAP` by default, one per group at least)."""
    cap = SAMPLE_CAP if cap is None else cap
    groups: dict[tuple[str, ...], list[str]] = {}
    for r in rows:
        groups.setdefault(tuple(str(getattr(r, k, None)) for k in STRATUM), []).append(r.run_id)
    k = _quota([len(g) for g in groups.values()], cap)
    return {run_id for g in groups.values() for run_id in sorted(g)[:k]}


def pages_for(rows: Sequence[MeasurementRow], mode: str) -> set[str]:
    """The run ids whose page ``mode`` (one of :data:`RUN_PAGES`) renders."""
    if mode == "none":
        return set()
    if mode == "sample":
        return sample_runs(rows)
    return {r.run_id for r in rows}


__all__ = ["RUN_PAGES", "SAMPLE_ABOVE", "SAMPLE_CAP", "pages_for", "sample_runs"]
