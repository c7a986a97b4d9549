"""McNemar's exact test on paired 0/1 outcomes, defined also when no pair disagrees.

The exact test is a binomial test of the discordant pairs (only in a vs only in b)
against 1/2. With no discordant pair there is nothing to weigh: the two-sided exact p
is 1 (the observed table is the most likely one under the null), reported with a note
rather than left blank.
"""

from __future__ import annotations

from scipy.stats import binomtest

NO_DISCORDANT = "no discordant pairs: the exact test has nothing to weigh, p = 1"

__all__ = ["NO_DISCORDANT", "mcnemar_exact", "p_label"]


def mcnemar_exact(only_a: int, only_b: int) -> tuple[float, str]:
    """``(p, note)``: the two-sided exact McNemar p on the discordant counts, and a note
    (:data:`NO_DISCORDANT`) when there are none (then ``p = 1``)."""
    if only_a + only_b == 0:
        return 1.0, NO_DISCORDANT
    return float(binomtest(only_a, only_a + only_b, 0.5).pvalue), ""


def p_label(p: float | None, note: str, missing: str = "–") -> str:
    """A McNemar p as tables print it: three significant digits, "(no discordant pairs)"
    when :func:`mcnemar_exact` gave its note, ``missing`` when there is no p."""
    if p is None:
        return missing
    return f"{p:.3g}" + (" (no discordant pairs)" if note else "")
