"""Values a reference is read against: τ-bench's calendar and JSON arguments.

``NOW`` is the day τ-bench's tools treat as today (a return dated before it has "already
flown"); :func:`args_contain` finds a value anywhere in a call's JSON arguments (a call
names a reservation, a payment method or an item by carrying its id).
"""

from __future__ import annotations

from sscbench.json_types import JsonValue

NOW = "2024-05-15"  # τ-bench's calendar: the tools treat 2024-05-15 15:00 EST as now


def args_contain(value: JsonValue | object, needle: object) -> bool:
    """True when a JSON value contains ``needle`` anywhere (as a value)."""
    if value == needle:
        return True
    if isinstance(value, dict):
        return any(args_contain(v, needle) for v in value.values())
    if isinstance(value, list):
        return any(args_contain(v, needle) for v in value)
    return False
