"""The operator registry: turns a case into the injections of its faulted run.

Operators register under a name; a user's own package can add one with
:func:`register_operator` or through the ``sscbench.operators`` entry-point group.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any, Protocol, runtime_checkable

from sscbench.faults.case import Case
from sscbench.run.injection import Injection
from sscbench.world.world import World


class Operator(Protocol):
    """What the runner needs from an operator: the injections for a case."""

    name: str

    def injections(self, case: Case, world: World) -> list[Injection]:
        """Hooks that put the case's fault into a run."""
        ...


@runtime_checkable
class SeededOperator(Protocol):
    """An operator whose injections draw from the run's seed (it sets ``seeded = True``)."""

    name: str
    seeded: bool

    def injections(self, case: Case, world: World, seed: int = 0) -> list[Injection]:
        """Hooks that put the case's fault into a run, drawn with ``seed``."""
        ...


_OPERATORS: dict[str, Operator] = {}
_LOADED_ENTRY_POINTS = False


def register_operator(operator: Operator) -> Operator:
    """Make an operator available by its name (a later registration replaces an earlier one)."""
    _OPERATORS[operator.name] = operator
    return operator


def _load_entry_points() -> None:
    global _LOADED_ENTRY_POINTS
    if _LOADED_ENTRY_POINTS:
        return
    _LOADED_ENTRY_POINTS = True
    import sscbench.faults.builtin  # noqa: F401  (registers the built-in operators)

    for entry in entry_points(group="sscbench.operators"):
        loaded: Any = entry.load()
        register_operator(loaded() if isinstance(loaded, type) else loaded)


def get_operator(name: str) -> Operator:
    """The registered operator of that name; KeyError lists the known ones."""
    _load_entry_points()
    if name not in _OPERATORS:
        raise KeyError(f"unknown operator {name!r}; known: {sorted(_OPERATORS)}")
    return _OPERATORS[name]


def operator_names() -> list[str]:
    """Names of every registered operator."""
    _load_entry_points()
    return sorted(_OPERATORS)
