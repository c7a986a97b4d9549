"""sscbench's measurement of one run as an Inspect ``Score`` (the ``inspect`` extra).

The value holds the run's adoption ``A`` (0, 1, ``"undecidable"`` or None when the run
has none), its arrival stratum ``Z_S`` and whether the fault took effect; the answer
is the terminal stance ``Y_end``; the metadata is the whole measurement row
(T_F/T_E/T_S/T_U with their evidence), exactly as ``sscbench measure`` writes it.
"""

from __future__ import annotations

from inspect_ai.scorer import Score

from sscbench.integrations.populations import adoption_label, arrival_label
from sscbench.json_types import JsonObject
from sscbench.study.rows import MeasurementRow

SCORE_NAME = "sscbench"


def measurement_score(row: MeasurementRow) -> Score:
    """The measurement row of one run as an Inspect score."""
    a = row.A
    value: JsonObject = {
        "A": a if a in (0, 1, "undecidable") else None,
        "Z_S": row.Z_S,
        "triggered": row.triggered,
    }
    adoption, why = adoption_label(row)
    arrival, steps = arrival_label(row)
    return Score(
        value=value,
        answer=row.Y_end,
        explanation=f"arrival {arrival} ({steps}); {adoption}: {why}",
        metadata=row.columns(),
    )
