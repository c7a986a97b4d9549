"""What the release checkpoint rules find in one run (:class:`TrialSheet`) and the facts of
a run several checkpoints share (:class:`Findings`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from sscbench.faults.family import FaultFamily
from sscbench.faults.registry import family
from sscbench.faults.typed import (
    Activation,
    Checkpoint,
    Detection,
    FaultSpec,
    Observation,
    OutcomeState,
    Validity,
)


@dataclass
class TrialSheet:
    """What the checkpoint rules found in one run, as they find it."""

    family: str
    spec: FaultSpec
    control: bool
    observations: list[Observation] = field(default_factory=list)
    activations: list[Activation] = field(default_factory=list)
    detections: list[Detection] = field(default_factory=list)

    @property
    def fault_family(self) -> FaultFamily:
        """The registered family of the run (its binding point, its behaviours)."""
        return family(self.family)

    def observe(self, step: int, checkpoint: Checkpoint, validity: Validity, note: str) -> None:
        """Record a checkpoint's validity at a step."""
        self.observations.append(
            Observation(step=step, checkpoint=checkpoint, validity=validity, note=note)
        )

    def detect(self, step: int, barrier: str, checkpoint: Checkpoint, note: str) -> None:
        """Record a barrier that caught the fault at a step."""
        self.detections.append(
            Detection(step=step, barrier=barrier, checkpoint=checkpoint, note=note)
        )

    def activate(self, step: int, note: str) -> None:
        """Record that the family's fault fired at a step (at its entry checkpoint)."""
        self.activations.append(
            Activation(
                step=step, fault=self.family, checkpoint=self.spec.entry_checkpoint, note=note
            )
        )


@dataclass(frozen=True)
class Findings:
    """The facts of a run several checkpoints share."""

    update_step: int | None  # another actor's update of the record (faulted runs)
    activation_step: int | None  # the first activation
    claim: OutcomeState  # the agent's last claim about the target change
    claim_step: int | None
    effects: int  # target writes that changed the state
    stale_effects: int  # of those, made after another actor's update
    state_matches: bool  # the world's verdict on the final state

    @property
    def stale_basis(self) -> bool:
        """Whether the target write rested on a read another actor made stale."""
        return self.update_step is not None
