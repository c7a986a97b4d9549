"""Analysis: interval estimates, populations, claims (paper §V-B)."""

from sscbench.analysis.stats import (
    Interval,
    cluster_bootstrap,
    proportion_interval,
    wilson,
)

__all__ = ["Interval", "cluster_bootstrap", "proportion_interval", "wilson"]
