"""Comparing two recorded intervals: read a number from stored JSON, and whether two
``[low, high]`` intervals overlap. Shared by ``sscbench diff`` (claims of two studies)
and ``sscbench release diff`` (metrics and transfer cells of two releases)."""

from __future__ import annotations

from sscbench.json_types import JsonMapping


def number(value: object) -> float | None:
    """``value`` as a float when it is a JSON number (a bool or anything else: None)."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def overlap(a: JsonMapping, b: JsonMapping) -> bool | None:
    """Whether the two rows' intervals ``[low, high]`` overlap (None: one has none)."""
    bounds = [number(row.get(k)) for row in (a, b) for k in ("low", "high")]
    if any(x is None for x in bounds):
        return None
    low_a, high_a, low_b, high_b = (x for x in bounds if x is not None)
    return low_a <= high_b and low_b <= high_a


__all__ = ["number", "overlap"]
