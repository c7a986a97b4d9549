"""Self-contained fault-injection laboratories built on a typed fault model."""

from sscbench.faults.typed import (
    Checkpoint,
    ContainmentPlan,
    FaultSpec,
    OutcomeState,
    Semantics,
    Surface,
    Timing,
    Validity,
)
from sscbench.lab.address import CATALOGUE, LabResult, run_lab

__all__ = [
    "CATALOGUE",
    "Checkpoint",
    "ContainmentPlan",
    "FaultSpec",
    "LabResult",
    "OutcomeState",
    "Semantics",
    "Surface",
    "Timing",
    "Validity",
    "run_lab",
]
