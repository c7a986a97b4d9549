"""A typed fault model for barrier-oriented fault-injection experiments.

A :class:`FaultSpec` is an operational contract rather than a flag: it says
*where* a perturbation enters (surface), *when* relative to the commit
boundary (timing), *what kind* of perturbation it is (semantics), which
control is expected to catch it (barrier), what world state counts as
acceptable (oracle), how to prove it actually fired (activation predicate),
whether a valid recovery path exists, and how the experiment itself is contained.

Workflows under test write a :class:`Trace` (checkpoint validity
observations, barrier detections and fault activations) and finish with a
:class:`TrialRecord`. :func:`judge` turns one record into a
:class:`Verdict`, :func:`family_metrics` aggregates verdicts into rates that
carry their numerators and denominators, and :func:`transfer_matrix` builds
the fault-by-checkpoint propagation map.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from sscbench.json_types import JsonObject


class Surface(StrEnum):
    """Where the perturbation enters: the prompt context, an identity, a tool's answer,
    the world state, or the verification (read-back) path."""

    CONTEXT = "context"
    IDENTITY = "identity"
    TOOL = "tool"
    STATE = "state"
    VERIFICATION = "verification"


class Timing(StrEnum):
    """When the perturbation acts relative to the commit boundary of the write it targets."""

    BEFORE_CALL = "before_call"
    DURING_EXECUTION = "during_execution"
    AFTER_COMMIT = "after_commit"
    DURING_READBACK = "during_readback"


class Semantics(StrEnum):
    """What kind of perturbation it is: lost, wrong, late, doubled, replayed, or a value
    substituted without authority."""

    OMISSION = "omission"
    CORRUPTION = "corruption"
    DELAY = "delay"
    DUPLICATION = "duplication"
    REPLAY = "replay"
    UNAUTHORISED_SUBSTITUTION = "unauthorised_substitution"


class Checkpoint(StrEnum):
    """The ordered checkpoints a workflow passes (who, with what context, under which
    authority, doing what, with what evidence, to which outcome); a fault enters at one
    and the transfer matrix shows how far it propagates."""

    IDENTITY = "identity"
    CONTEXT = "context"
    AUTHORITY = "authority"
    ACTION = "action"
    EVIDENCE = "evidence"
    OUTCOME = "outcome"


CHECKPOINTS: tuple[Checkpoint, ...] = tuple(Checkpoint)


class Validity(StrEnum):
    """A checkpoint's state in one trial, in increasing severity (the worst observation wins)."""

    VALID = "valid"
    SUSPECT = "suspect"
    INVALID = "invalid"


_SEVERITY_ORDER = {Validity.VALID: 0, Validity.SUSPECT: 1, Validity.INVALID: 2}


class OutcomeState(StrEnum):
    """The outcome a workflow reports at its end: verified by a read-back, rejected, no
    effect, or honestly unresolved (unknown, reconciliation required)."""

    VERIFIED = "VERIFIED"
    REJECTED = "REJECTED"
    NO_EFFECT = "NO_EFFECT"
    UNKNOWN = "UNKNOWN"
    RECONCILIATION_REQUIRED = "RECONCILIATION_REQUIRED"


#: Terminal states that honestly admit the outcome is not established.
UNRESOLVED_STATES = frozenset({OutcomeState.UNKNOWN, OutcomeState.RECONCILIATION_REQUIRED})


class TerminalClass(StrEnum):
    """The extra column of the transfer matrix."""

    ACCEPTABLE = "acceptable"
    UNKNOWN = "unknown"
    UNACCEPTABLE = "unacceptable"


class ContainmentPlan(BaseModel):
    """How the experiment itself is kept from causing harm."""

    model_config = ConfigDict(frozen=True)

    max_affected_runs: int = Field(ge=0)
    cleanup: str
    synthetic_only: bool = True


# Predicates receive the finished trial record.
Predicate = Callable[["TrialRecord"], bool]


class FaultSpec(BaseModel):
    """One entry of a typed fault catalogue."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    name: str
    surface: Surface
    timing: Timing
    semantics: Semantics
    entry_checkpoint: Checkpoint
    description: str
    expected_barrier: str
    safe_response: str
    recoverable: bool
    severity: int = Field(ge=1, le=5)
    containment: ContainmentPlan
    oracle: Predicate = Field(exclude=True)
    activation: Predicate = Field(exclude=True)

    def acceptable(self, record: TrialRecord) -> bool:
        """The oracle: the world state this trial ended in is acceptable."""
        return bool(self.oracle(record))

    def activated(self, record: TrialRecord) -> bool:
        """The activation predicate: the fault demonstrably fired in this trial."""
        return bool(self.activation(record))


class Observation(BaseModel):
    """A checkpoint's validity observed at one step of a trace."""

    model_config = ConfigDict(frozen=True)

    step: int
    checkpoint: Checkpoint
    validity: Validity
    note: str


class Detection(BaseModel):
    """A barrier catching a fault at a checkpoint, at one step of a trace."""

    model_config = ConfigDict(frozen=True)

    step: int
    barrier: str
    checkpoint: Checkpoint
    note: str


class Activation(BaseModel):
    """Proof that a fault fired: where and when, for the activation predicate."""

    model_config = ConfigDict(frozen=True)

    step: int
    fault: str
    checkpoint: Checkpoint
    note: str


class Trace:
    """Mutable, ordered log written while a workflow runs."""

    def __init__(self) -> None:
        self.observations: list[Observation] = []
        self.detections: list[Detection] = []
        self.activations: list[Activation] = []
        self._step = 0

    def _next(self) -> int:
        self._step += 1
        return self._step

    def observe(self, checkpoint: Checkpoint, validity: Validity, note: str) -> None:
        self.observations.append(
            Observation(step=self._next(), checkpoint=checkpoint, validity=validity, note=note)
        )

    def detect(self, barrier: str, checkpoint: Checkpoint, note: str) -> None:
        self.detections.append(
            Detection(step=self._next(), barrier=barrier, checkpoint=checkpoint, note=note)
        )

    def activate(self, fault: str, checkpoint: Checkpoint, note: str) -> None:
        self.activations.append(
            Activation(step=self._next(), fault=fault, checkpoint=checkpoint, note=note)
        )


class TrialRecord(BaseModel):
    """Everything one run leaves behind; the input to :func:`judge`."""

    system: str
    fault: str | None
    outcome: OutcomeState
    effects: int
    goal_met: bool
    world: dict[str, Any]
    observations: list[Observation]
    detections: list[Detection]
    activations: list[Activation]

    def worst(self) -> dict[Checkpoint, Validity]:
        """Worst validity each checkpoint reached during the run (unvisited = valid)."""
        out = dict.fromkeys(CHECKPOINTS, Validity.VALID)
        for obs in self.observations:
            if _SEVERITY_ORDER[obs.validity] > _SEVERITY_ORDER[out[obs.checkpoint]]:
                out[obs.checkpoint] = obs.validity
        return out

    def latest(self) -> dict[Checkpoint, Validity]:
        """Validity each checkpoint held when it was last assessed (unvisited = valid)."""
        out = dict.fromkeys(CHECKPOINTS, Validity.VALID)
        for obs in self.observations:
            out[obs.checkpoint] = obs.validity
        return out


class Verdict(BaseModel):
    """The judged result of one trial against its fault contract."""

    system: str
    fault: str
    scheduled: bool
    activated: bool
    detected: bool
    contained: bool
    escaped: bool
    recovered: bool | None = Field(description="None when no valid recovery path exists")
    latency_checkpoints: int | None
    latency_events: int | None
    outcome: OutcomeState
    terminal: TerminalClass
    checkpoints: dict[Checkpoint, Validity]


def _checkpoint_distance(a: Checkpoint, b: Checkpoint) -> int:
    return CHECKPOINTS.index(b) - CHECKPOINTS.index(a)


def terminal_class(record: TrialRecord, world_ok: bool) -> TerminalClass:
    outcome_ok = record.latest()[Checkpoint.OUTCOME] is Validity.VALID
    if not world_ok or not outcome_ok:
        return TerminalClass.UNACCEPTABLE
    if record.outcome in UNRESOLVED_STATES:
        return TerminalClass.UNKNOWN
    return TerminalClass.ACCEPTABLE


def judge(fault: FaultSpec, record: TrialRecord) -> Verdict:
    """Score one injected trial.

    * activated: the fault's own predicate proves the perturbation fired.
    * detected: the *expected* barrier reported the anomaly.
    * escaped: the run claimed ``VERIFIED`` while the world broke the oracle or
      some checkpoint was still not valid (an unsupported success).
    * contained: the oracle holds and nothing escaped.
    * recovered: only for recoverable faults; the goal is met, verified and clean.
    """
    activated = fault.activated(record)
    world_ok = fault.acceptable(record)
    latest = record.latest()
    claimed = record.outcome is OutcomeState.VERIFIED
    unsupported = any(v is not Validity.VALID for v in latest.values())
    escaped = activated and claimed and (not world_ok or unsupported)
    contained = activated and world_ok and not escaped
    hits = [d for d in record.detections if d.barrier == fault.expected_barrier]
    detected = activated and bool(hits)
    recovered: bool | None = None
    if fault.recoverable:
        recovered = activated and claimed and world_ok and not unsupported and record.goal_met
    latency_checkpoints = latency_events = None
    if detected:
        first = next(a for a in record.activations if a.fault == fault.name)
        latency_checkpoints = _checkpoint_distance(first.checkpoint, hits[0].checkpoint)
        latency_events = hits[0].step - first.step
    return Verdict(
        system=record.system,
        fault=fault.name,
        scheduled=True,
        activated=activated,
        detected=detected,
        contained=contained,
        escaped=escaped,
        recovered=recovered,
        latency_checkpoints=latency_checkpoints,
        latency_events=latency_events,
        outcome=record.outcome,
        terminal=terminal_class(record, world_ok),
        checkpoints=record.worst(),
    )


class Rate(BaseModel):
    """A rate kept with its numerator and denominator; ``value`` is None when nothing was
    counted (never 0% or 100% by default)."""

    numerator: int
    denominator: int

    @property
    def value(self) -> float | None:
        return self.numerator / self.denominator if self.denominator else None

    def as_dict(self) -> JsonObject:
        v = self.value
        return {
            "numerator": self.numerator,
            "denominator": self.denominator,
            "value": None if v is None else round(v, 4),
        }


class FamilyMetrics(BaseModel):
    """Per fault family: activation, detection, containment, recovery and escape rates,
    and the mean detection latency in checkpoints and in events."""

    family: str
    activation: Rate
    detection: Rate
    containment: Rate
    recovery: Rate
    escape: Rate
    mean_latency_checkpoints: float | None
    mean_latency_events: float | None

    def as_dict(self) -> JsonObject:
        return {
            "family": self.family,
            "activation": self.activation.as_dict(),
            "detection": self.detection.as_dict(),
            "containment": self.containment.as_dict(),
            "recovery": self.recovery.as_dict(),
            "escape": self.escape.as_dict(),
            "mean_latency_checkpoints": self.mean_latency_checkpoints,
            "mean_latency_events": self.mean_latency_events,
        }


def _mean(values: Sequence[int]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def family_metrics(family: str, verdicts: Iterable[Verdict]) -> FamilyMetrics:
    """Aggregate verdicts. Denominators: scheduled for activation, activated for
    detection / containment / escape, activated-and-recoverable for recovery."""
    rows = list(verdicts)
    active = [v for v in rows if v.activated]
    recoverable = [v for v in active if v.recovered is not None]
    lat_c = [v.latency_checkpoints for v in active if v.latency_checkpoints is not None]
    lat_e = [v.latency_events for v in active if v.latency_events is not None]
    return FamilyMetrics(
        family=family,
        activation=Rate(numerator=len(active), denominator=len(rows)),
        detection=Rate(numerator=sum(v.detected for v in active), denominator=len(active)),
        containment=Rate(numerator=sum(v.contained for v in active), denominator=len(active)),
        recovery=Rate(
            numerator=sum(bool(v.recovered) for v in recoverable), denominator=len(recoverable)
        ),
        escape=Rate(numerator=sum(v.escaped for v in active), denominator=len(active)),
        mean_latency_checkpoints=_mean(lat_c),
        mean_latency_events=_mean(lat_e),
    )


class TransferCell(BaseModel):
    """One fault × checkpoint cell of the transfer matrix: P(invalid) and P(suspect) given
    the fault activated; ``symbol`` is its one-character rendering (X, ?, .)."""

    p_invalid: float
    p_suspect: float

    @property
    def symbol(self) -> str:
        if self.p_invalid >= 0.5:
            return "X"
        if self.p_invalid + self.p_suspect >= 0.5:
            return "?"
        return "."


def first_invalid(p_invalid: dict[Checkpoint, float], threshold: float = 0.5) -> Checkpoint | None:
    """Where the error first appears: the first checkpoint invalid in >= threshold of runs."""
    return next((cp for cp in CHECKPOINTS if p_invalid.get(cp, 0.0) >= threshold), None)


class TransferRow(BaseModel):
    """One fault's row of the lab transfer matrix: activated trials, a cell per
    checkpoint, and the terminal-class distribution (``terminal_mode``: its mode)."""

    fault: str
    activated: int
    cells: dict[Checkpoint, TransferCell]
    terminal: dict[TerminalClass, float]

    @property
    def terminal_mode(self) -> TerminalClass:
        order = list(TerminalClass)
        return max(order, key=lambda t: (self.terminal.get(t, 0.0), -order.index(t)))


def transfer_matrix(verdicts: Iterable[Verdict], faults: Sequence[str]) -> list[TransferRow]:
    """P(checkpoint invalid | fault activated), plus the terminal-class distribution."""
    by_fault: dict[str, list[Verdict]] = {name: [] for name in faults}
    for v in verdicts:
        if v.activated and v.fault in by_fault:
            by_fault[v.fault].append(v)
    rows = []
    for name in faults:
        hits = by_fault[name]
        n = len(hits)
        cells = {}
        for cp in CHECKPOINTS:
            inv = sum(v.checkpoints[cp] is Validity.INVALID for v in hits)
            sus = sum(v.checkpoints[cp] is Validity.SUSPECT for v in hits)
            cells[cp] = TransferCell(
                p_invalid=round(inv / n, 4) if n else 0.0,
                p_suspect=round(sus / n, 4) if n else 0.0,
            )
        terminal = {
            t: (round(sum(v.terminal is t for v in hits) / n, 4) if n else 0.0)
            for t in TerminalClass
        }
        rows.append(TransferRow(fault=name, activated=n, cells=cells, terminal=terminal))
    return rows
