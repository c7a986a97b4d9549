"""The operator registry: turns a case into the injections of its faulted run.

The built-in families are classes (:data:`~sscbench.faults.builtin.BUILTIN_FAMILIES`),
registered under the name each class carries; a user's own package can add one with
:func:`register_operator` or :func:`register_family`, or through the
``sscbench.operators`` entry-point group, and a test with :func:`registered`. The stages
read a family's facts from :func:`family`, never from its name.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from importlib.metadata import entry_points
from typing import Any, Protocol, runtime_checkable

from sscbench.core.injection import Injection
from sscbench.core.values import ClassifiedUse, Evidence, Stance, UseCandidate
from sscbench.core.view import LedgerView
from sscbench.faults.builtin import BUILTIN_FAMILIES
from sscbench.faults.case import Case
from sscbench.faults.contract import FaultContract
from sscbench.faults.family import FaultFamily
from sscbench.world.world import World


class Operator(Protocol):
    """What the runner needs from an operator: the injections for a case."""

    name: str

    def injections(self, case: Case, world: World) -> list[Injection]:
        """Hooks that put the case's fault into a run."""
        ...


@runtime_checkable
class MeasuredOperator(Operator, Protocol):
    """What measurement needs from the operator of a case with a contract: the relations
    that locate T_E, extract and label the uses, and read a use's stance toward v′.

    Every SSCBench operator (``faults.operators.base.FaultOperator``) is one; a simple
    fault such as ``SuppressWrite`` only injects, and its cases carry no contract.
    """

    def counterevidence(
        self, contract: FaultContract, view: LedgerView, fault_step: int
    ) -> Evidence:
        """T_E: when delivered observations first suffice to contradict v′."""
        ...

    def extract_uses(
        self, contract: FaultContract, view: LedgerView, fault_step: int
    ) -> list[UseCandidate]:
        """Post-fault references to the affected entity and value."""
        ...

    def classify(
        self, contract: FaultContract, view: LedgerView, candidate: UseCandidate
    ) -> ClassifiedUse:
        """Dependent use, faulty reliance, verification, not a use, or undecidable."""
        ...

    def stance(
        self, contract: FaultContract, view: LedgerView, use: ClassifiedUse
    ) -> Stance | None:
        """The explicit stance toward v′ a classified use takes, if any."""
        ...


@runtime_checkable
class SeededOperator(Protocol):
    """An operator whose injections draw from the run's seed (it sets ``seeded = True``)."""

    name: str
    seeded: bool

    def injections(self, case: Case, world: World, seed: int = 0) -> list[Injection]:
        """Hooks that put the case's fault into a run, drawn with ``seed``."""
        ...


def has_consistent_source(operator: object) -> bool:
    """Whether an operator offers the contradiction-relation variant (a
    ``consistent_source(case, world)`` method: hooks making the authoritative source agree
    with the injected assertion)."""
    return callable(getattr(operator, "consistent_source", None))


def consistent_source_hooks(operator: object, case: Case, world: World) -> list[Injection]:
    """The hooks of the contradiction-relation variant for one case; a TypeError names an
    operator without one (a study refuses such a case before it runs)."""
    method = getattr(operator, "consistent_source", None)
    if not callable(method):
        raise TypeError(
            f"operator {getattr(operator, 'name', operator)!r} has no consistent source"
        )
    return list(method(case, world))


_OPERATORS: dict[str, Operator] = {}
_LOADED_ENTRY_POINTS = False


def register_operator(operator: Operator) -> Operator:
    """Make an operator available by its name (a later registration replaces an earlier one)."""
    _OPERATORS[operator.name] = operator
    return operator


def register_family(family_class: type[FaultFamily]) -> type[FaultFamily]:
    """Register a family class under its own name (one instance serves every case)."""
    if family_class.spec is not None and family_class.spec.name != family_class.name:
        raise ValueError(
            f"family {family_class.name!r} carries the spec of {family_class.spec.name!r}"
        )
    register_operator(family_class())
    return family_class


@contextmanager
def registered(family_class: type[FaultFamily]) -> Iterator[type[FaultFamily]]:
    """Register a family class for the duration of a ``with`` block (a test's own
    family), restoring whatever was registered under its name before."""
    _load_entry_points()
    previous = _OPERATORS.get(family_class.name)
    register_family(family_class)
    try:
        yield family_class
    finally:
        del _OPERATORS[family_class.name]
        if previous is not None:
            _OPERATORS[family_class.name] = previous


def _load_entry_points() -> None:
    global _LOADED_ENTRY_POINTS
    if _LOADED_ENTRY_POINTS:
        return
    _LOADED_ENTRY_POINTS = True
    for family_class in BUILTIN_FAMILIES:
        register_family(family_class)
    for entry in entry_points(group="sscbench.operators"):
        loaded: Any = entry.load()
        register_operator(loaded() if isinstance(loaded, type) else loaded)


def get_operator(name: str) -> Operator:
    """The registered operator of that name; KeyError lists the known ones."""
    _load_entry_points()
    if name not in _OPERATORS:
        raise KeyError(f"unknown operator {name!r}; known: {sorted(_OPERATORS)}")
    return _OPERATORS[name]


def get_measured_operator(name: str) -> MeasuredOperator:
    """The registered operator of that name, refused (TypeError) when it cannot measure a
    contract — measurement then fails closed naming the operator instead of crashing
    halfway through a run."""
    operator = get_operator(name)
    if not isinstance(operator, MeasuredOperator):
        missing = [
            m
            for m in ("counterevidence", "extract_uses", "classify", "stance")
            if not callable(getattr(operator, m, None))
        ]
        raise TypeError(f"operator {name!r} has a contract but cannot measure it: no {missing}")
    return operator


def operator_names() -> list[str]:
    """Names of every registered operator."""
    _load_entry_points()
    return sorted(_OPERATORS)


_PLAIN = FaultFamily()


def family(name: str) -> FaultFamily:
    """The registered family of that name, whose class attributes say how the stages
    treat it (an operator of a plugin that is no :class:`FaultFamily` has every trait
    off); KeyError lists the known ones."""
    operator = get_operator(name)
    return operator if isinstance(operator, FaultFamily) else _PLAIN


def typed_family_names() -> list[str]:
    """Names of every registered typed family, in registration order (the built-in
    ones in the order of ``surfaces.ALL_FAMILIES``)."""
    _load_entry_points()
    return [n for n, op in _OPERATORS.items() if isinstance(op, FaultFamily) and op.typed]
