"""The typed description of every fault sscbench injects into τ-bench worlds.

Each family's class carries its :class:`~sscbench.faults.typed.FaultSpec` (``spec``:
surface, timing, semantics, entry checkpoint, expected barrier, safe response,
severity, whether a valid recovery path exists, and a containment plan); this module
reads them from the registered classes. Oracle and activation are read from the trial a
run yields (:mod:`sscbench.release.assess`): ``world["acceptable"]`` and the recorded
activations. The prose is ``docs/fault-catalogue.md``.
"""

from __future__ import annotations

from sscbench.faults.families import (
    CompoundTimeoutReadback,
    InterveningUpdate,
    ReadbackUnavailable,
    StalePolicy,
    TimeoutAfterCommit,
)
from sscbench.faults.family import FaultFamily
from sscbench.faults.operators import SSCBENCH_OPERATORS
from sscbench.faults.registry import family, operator_names
from sscbench.faults.typed import FaultSpec


def _specs(*classes: type[FaultFamily]) -> tuple[FaultSpec, ...]:
    return tuple(c.spec for c in classes if c.spec is not None)


SSCBENCH_SPECS: tuple[FaultSpec, ...] = _specs(*SSCBENCH_OPERATORS)
"""The four SSCBench operators' descriptions."""
FAMILY_SPECS: tuple[FaultSpec, ...] = _specs(
    TimeoutAfterCommit,
    InterveningUpdate,
    ReadbackUnavailable,
    StalePolicy,
    CompoundTimeoutReadback,
)
"""The first five typed families' descriptions."""


def known_spec(name: str) -> FaultSpec | None:
    """The typed description of a registered operator or family (None: it has none, or
    no such operator is registered)."""
    try:
        return family(name).spec
    except KeyError:
        return None


def spec_for(name: str) -> FaultSpec:
    """The typed description of an operator or family (KeyError names the known ones)."""
    spec = known_spec(name)
    if spec is None:
        known = sorted(n for n in operator_names() if family(n).spec is not None)
        raise KeyError(f"no typed description of {name!r}; known: {known}")
    return spec
