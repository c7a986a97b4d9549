"""Step values with infinity and undecidability, and the labels measurement assigns."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeGuard

INF = "inf"
UNDECIDABLE = "undecidable"

Step = int | str  # a ledger step, INF, or UNDECIDABLE


def is_step(value: object) -> TypeGuard[int]:
    """True for a located ledger step (not ∞, not undecidable)."""
    return isinstance(value, int) and not isinstance(value, bool)


class UseLabel(StrEnum):
    """How a candidate reference to the affected fact is classified."""

    FAULTY_RELIANCE = "faulty_reliance"  # a dependent use treating v′ as the operative fact
    DEPENDENT_USE = "dependent_use"  # depends on the fact, not on v′ as operative
    VERIFICATION = (
        "verification"  # a dependent use only checking the disputed value: T_S, never T_U
    )
    NOT_USE = "not_use"  # retrieval only, or unrelated
    UNDECIDABLE = "undecidable"


class Stance(StrEnum):
    """An explicit stance toward v′ in an agent message."""

    ENDORSES = "endorses"
    REJECTS = "rejects"
    UNDECIDABLE = "undecidable"


@dataclass(frozen=True)
class UseCandidate:
    """A post-fault reference to the affected entity or value found by extraction."""

    step: int
    channel: str  # "message" | "tool_call" | "handoff"
    span: str
    mentions_injected: bool
    mentions_authoritative: bool
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ClassifiedUse:
    """A use candidate with its label and the reason for it."""

    candidate: UseCandidate
    label: UseLabel
    reason: str


@dataclass(frozen=True)
class Evidence:
    """When counterevidence completed (T_E) and the observations that make it up."""

    step: Step
    evidence_steps: tuple[int, ...] = ()
    reason: str = ""
