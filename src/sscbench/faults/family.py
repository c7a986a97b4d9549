"""What every fault family is: one class carrying its name, typed description and traits.

An SSCBench operator (:class:`~sscbench.faults.operators.base.FaultOperator`), a typed
write family (:class:`~sscbench.faults.write_family.WriteFamily`) and a simple fault
(:class:`~sscbench.faults.builtin.SuppressWrite`) all derive from :class:`FaultFamily`.
The stages that treat families differently (the release checkpoints, the unsolvable
table, calibration, case preference) read these class attributes and methods — the
release its behaviours (:mod:`sscbench.faults.behaviours`) — never the family's name: a new family states its facts here, on its own class, and is added with
one line of :mod:`sscbench.faults.builtin` (or :func:`~sscbench.faults.registry.registered`).
"""

from __future__ import annotations

from typing import ClassVar

from sscbench.core.injection import Injection
from sscbench.core.values import Step
from sscbench.faults.behaviours import Behaviour
from sscbench.faults.case import Case
from sscbench.faults.params import FaultParams, register_params
from sscbench.faults.typed import ContainmentPlan, FaultSpec, TrialRecord
from sscbench.json_types import JsonMapping, JsonObject, JsonValue
from sscbench.world.task import Action
from sscbench.world.world import World


def _acceptable(record: TrialRecord) -> bool:
    return bool(record.world.get("acceptable"))


def _activated(record: TrialRecord) -> bool:
    return bool(record.activations)


OVERLAY_CONTAINMENT = ContainmentPlan(
    max_affected_runs=1,
    cleanup="each run owns a copy-on-write overlay of the world, dropped after the run; "
    "the shared base is never written",
)
"""The containment of a family whose effects stay in the run's overlay (most of them)."""


def family_spec(**fields: object) -> FaultSpec:
    """A family's typed description: oracle and activation read from the trial
    (``world["acceptable"]``, the recorded activations), the overlay's containment unless
    ``containment`` is given."""
    fields.setdefault("containment", OVERLAY_CONTAINMENT)
    return FaultSpec(oracle=_acceptable, activation=_activated, **fields)


class FaultFamily:
    """One fault family: its name, its typed description and what stages consult.

    Its :attr:`behaviours` say how the release judges a run of the family; they replace
    the name sets the stages used to keep.
    """

    name: str = ""
    """The family's name: what cases, configs and reports call it."""
    params_model: ClassVar[type[FaultParams]] = FaultParams
    """The model of a case's ``params`` (declared beside the family; none by default)."""

    def __init_subclass__(cls, **kwargs: object) -> None:
        """Register the family's params model under its name (a cases file's line is
        validated against the model its ``operator`` names)."""
        super().__init_subclass__(**kwargs)
        if cls.name:
            register_params(cls.name, cls.params_model)

    spec: ClassVar[FaultSpec | None] = None
    """The typed description (``faults.catalogue.spec_for``); None for a simple fault."""

    typed: ClassVar[bool] = False
    """A typed family of the τ-bench worlds (``[cases] families``, the release)."""
    behaviours: ClassVar[tuple[type[Behaviour], ...]] = ()
    """What the family does that the release judges by rules of its own
    (:mod:`sscbench.faults.behaviours`; none: the common checkpoint rules judge it)."""

    early_target_argument: ClassVar[str | None] = None
    """Case preference (``admission.prefer``): the parameter naming the record the
    fault-bearing read is of; the trigger is early when the opening request names it."""

    def injections(self, case: Case, world: World) -> list[Injection]:
        """Hooks that put the case's fault into a run."""
        return []

    def binding_point(self, case: Case) -> str | None:
        """Where a case of an identity family loses the subject binding: ``handoff``,
        ``lookup`` or ``execution`` (None for a family of another kind)."""
        return None

    def early_on_first_write(self, params: FaultParams, first_write: Action) -> bool:
        """Case preference: whether a candidate's fault-bearing call is an early, natural
        call of a task whose first ground-truth write is ``first_write`` (none by default)."""
        return False

    # ---- calibration against the scripted agents' own labels (measure.calibrate) ----
    def calibration_fact(self, case: Case) -> str:
        """The calibration-label key of a case's affected fact (KeyError: the family
        keeps no calibration labels)."""
        raise KeyError(case.operator)

    def labelled_evidence(self, case: Case, labels: JsonMapping, t_f: int) -> Step:
        """T_E as the agent's own record of what it read implies."""
        raise KeyError(case.operator)

    def labelled_reliance(self, use: JsonMapping) -> bool:
        """Whether a labelled use of the affected fact relied on the injected value."""
        return use["kind"] == "use" and bool(use.get("relied_on_injected"))


def label_rows(labels: JsonMapping, kind: str) -> list[JsonObject]:
    """The labels' rows of one kind (``reads``, ``writes``, ``uses``): the objects listed."""
    rows = labels.get(kind)
    return [row for row in rows if isinstance(row, dict)] if isinstance(rows, list) else []


def label_arguments(row: JsonMapping) -> JsonObject:
    """A labelled call's arguments (none when it names none)."""
    arguments = row.get("arguments")
    return arguments if isinstance(arguments, dict) else {}


def labelled_reads(labels: JsonMapping, name: str, **arguments: JsonValue) -> list[int]:
    """Observation steps of the labelled reads of tool ``name`` with these arguments."""
    return [
        step
        for r in label_rows(labels, "reads")
        if r.get("name") == name
        and all(label_arguments(r).get(k) == v for k, v in arguments.items())
        and isinstance(step := r.get("observation_step"), int)
    ]


__all__ = [
    "OVERLAY_CONTAINMENT",
    "FaultFamily",
    "family_spec",
    "label_arguments",
    "label_rows",
    "labelled_reads",
]
