"""Step values with infinity and undecidability, and the labels measurement assigns."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final, Literal, TypeGuard

INF: Final = "inf"
UNDECIDABLE: Final = "undecidable"
#: T_U of a run that did not adopt: there is no first faulty reliance to locate, which
#: is not the same as one that never came (∞) — see :mod:`sscbench.core.definitions`.
NOT_APPLICABLE: Final = "not-applicable"

#: A ledger step index, ∞ (the event never happened) or undecidable — never any other
#: string. Serialised as the integer, ``"inf"`` or ``"undecidable"``.
Step = int | Literal["inf", "undecidable"]
#: T_U: a located step, undecidable, or not applicable (the run did not adopt).
RelianceStep = int | Literal["undecidable", "not-applicable"]


def is_step(value: object) -> TypeGuard[int]:
    """True for a located ledger step (not ∞, not undecidable)."""
    return isinstance(value, int) and not isinstance(value, bool)


class Stratum(StrEnum):
    """The ``Z_S`` column of a measurement row: the arrival stratum, or why a run has none.

    The first five are arrival relative to the first dependent use T_S, as
    :data:`sscbench.core.definitions.Z_S_WORDING` states them. The others say
    why a completed run has no arrival: its case has no contract, the fault never showed
    (not-triggered), the classifier failed (measurement-missing, a missing value, never an
    outcome), or it is the paired clean control. Runs that did not complete carry their
    index status (``not-qualified``, ``missing``) instead. Values are serialised as written
    here, so measurements stay byte-identical.
    """

    PRE = "pre"
    LATE = "late"
    ABSENT = "absent"
    NO_USE = "no-use"
    UNDECIDABLE = "undecidable"
    NO_CONTRACT = "no-contract"
    NOT_TRIGGERED = "not-triggered"
    MEASUREMENT_MISSING = "measurement-missing"
    CLEAN = "clean"


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
