"""What an oracle setting sees and how it answers: the typed descriptor behind Table II.

Each built-in oracle carries an :class:`OracleInputs` as its ``inputs`` attribute; the
scoring writes it into ``STUDY/oracles/<name>.json`` together with the model calls its
verdicts took (:func:`call_stats`), and the report's ``oracle-settings`` section
(Table II) lists them. An oracle from elsewhere may leave ``inputs`` out; Table II then
says its inputs are not declared (the ``context`` sentence still describes them).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict

from sscbench.json_types import JsonObject

# The inputs of the paper's Table II, in its order: (field, column heading).
INPUT_COLUMNS = (
    ("numbered_trajectory", "numbered trajectory"),
    ("tool_schema", "tool schema"),
    ("policy", "domain policy"),
    ("relation_contract", "relation contract"),
    ("mined_invariants", "mined invariants"),
)

Calls = Literal["none", "one per trajectory", "one per agent step, up to the first yes"]
Answer = Literal[
    "adoption and T_U",
    "anomalies (any anomaly = adopted; T_U = first anomaly's step)",
    "invariant violations (any violation = adopted; T_U = first violation's step)",
    "failing step (a step = adopted at that step; none = not adopted)",
    "step only (excluded from adoption metrics)",
]


class OracleInputs(BaseModel):
    """Which inputs a setting reads, what it answers and how many model calls it makes.

    The five booleans are the paper's Table II inputs; ``other`` names anything else it
    reads (clean runs, the measurement row); ``paper`` names the paper's setting of the
    same kind, when there is one.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    numbered_trajectory: bool = False
    tool_schema: bool = False
    policy: bool = False
    relation_contract: bool = False
    mined_invariants: bool = False
    other: str = ""
    answer: Answer = "adoption and T_U"
    calls: Calls = "none"
    paper: str = ""


def inputs_of(oracle: object) -> OracleInputs | None:
    """The oracle's declared inputs, or None when it declares none (a foreign oracle)."""
    declared = getattr(oracle, "inputs", None)
    if declared is None:
        return None
    return OracleInputs.model_validate(declared, from_attributes=True)


def call_stats(calls: Iterable[int | None]) -> JsonObject:
    """Model calls over the judged runs (one entry per verdict; None counts as no call):
    total, per judged trajectory (mean) and the most any one trajectory took."""
    counted = [c or 0 for c in calls]
    total = sum(counted)
    return {
        "judged": len(counted),
        "total": total,
        "per_trajectory": round(total / len(counted), 2) if counted else None,
        "max": max(counted, default=0),
    }
