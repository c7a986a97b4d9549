"""The oracle registry: oracle factories by name, built-ins and the ``sscbench.oracles``
entry-point group.

A factory is called with the command line's :class:`OracleSettings` and returns an
:class:`Oracle`. A package adds one in its ``pyproject.toml``::

    [project.entry-points."sscbench.oracles"]
    my-judge = "my_package.judge:MyJudge"     # a class or function taking OracleSettings

or at run time with :func:`register_oracle`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from importlib.metadata import entry_points

from sscbench.oracles.base import Oracle, OracleSettings

OracleFactory = Callable[[OracleSettings], Oracle]

ENTRY_POINT_GROUP = "sscbench.oracles"

_FACTORIES: dict[str, OracleFactory] = {}
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")  # also a file name in STUDY/oracles/
_LOADED = False


def register_oracle(name: str, factory: OracleFactory) -> OracleFactory:
    """Make an oracle available by name (a later registration replaces an earlier one).

    A name is letters, digits, ``.``, ``_`` and ``-`` (it names the result files)."""
    if not _NAME.match(name):
        raise ValueError(f"oracle name {name!r}: use letters, digits, '.', '_' and '-' only")
    _FACTORIES[name] = factory
    return factory


def _builtin() -> None:
    from sscbench.oracles.diagnosis import AllAtOnceJudge, AnomalyJudge, StepByStepJudge
    from sscbench.oracles.invariants import InvariantOracle
    from sscbench.oracles.llm import LLMOracle
    from sscbench.oracles.rules import RulesOracle
    from sscbench.oracles.step_only import StepOnlyOracle

    register_oracle("rules", lambda _settings: RulesOracle())
    register_oracle("llm-l0", lambda settings: LLMOracle(settings, with_contract=False))
    register_oracle("llm-l1", lambda settings: LLMOracle(settings, with_contract=True))
    register_oracle("invariants", lambda _settings: InvariantOracle())
    register_oracle("step-only", lambda _settings: StepOnlyOracle())
    register_oracle("anomaly-judge", AnomalyJudge)
    register_oracle("attribution-all-at-once", AllAtOnceJudge)
    register_oracle("attribution-step-by-step", StepByStepJudge)


def _load() -> None:
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    _builtin()
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        register_oracle(entry.name, entry.load())


def oracle_names() -> list[str]:
    """Names of every registered oracle (built-ins and entry points)."""
    _load()
    return sorted(_FACTORIES)


def make_oracle(name: str, settings: OracleSettings) -> Oracle:
    """A new oracle of that name; KeyError lists the known ones."""
    _load()
    if name not in _FACTORIES:
        raise KeyError(f"unknown oracle {name!r}; known: {', '.join(sorted(_FACTORIES))}")
    oracle = _FACTORIES[name](settings)
    if not isinstance(oracle, Oracle):
        raise TypeError(
            f"oracle {name!r}: its factory returned {type(oracle).__name__}, "
            "which lacks name, context, gives_adoption, judge or close"
        )
    return oracle
