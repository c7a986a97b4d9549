"""Faulted measurement rows of named configurations, for the tests of per-configuration
headlines, pools, the forest figure and interval wording (issue #41 item 4)."""

from __future__ import annotations

from typing import Any

from sscbench.study.rows import MeasurementRow


def faulted_row(
    i: int,
    config: str,
    adopted: int,
    *,
    operator: str = "PaySource",
    repetition: int = 0,
    cluster: str | None = None,
    run_id: str | None = None,
    **fields: Any,
) -> MeasurementRow:
    """A completed, triggered faulted run ``i`` of ``config`` (its own cluster unless
    given) with adoption ``adopted`` and any further measurement ``fields``."""
    return MeasurementRow.of(
        {
            "kind": "faulted",
            "status": "completed",
            "triggered": True,
            "case_id": f"c{i}",
            "config_id": config,
            "repetition": repetition,
            "operator": operator,
            "cluster": cluster or f"t{i}",
            "A": adopted,
            **fields,
            "run_id": run_id or f"{config}-{i}",
        }
    )
