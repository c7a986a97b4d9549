"""A witness is a legal continuation: every argument it passes must be obtainable.

Admission accepts a case only when the witness continuation's calls take each argument
from the visible history (what the user said, what a tool showed). The same witness with
one argument the agent could not have known is no witness, whatever it would reveal.
"""

from __future__ import annotations

import dataclasses

import pytest

from sscbench.admission import witness
from sscbench.faults.operators.base import ScriptedTurn
from sscbench.faults.registry import get_operator
from sscbench.world.load import load_world

UNSEEN = "NOWHERE-0000"  # a value no user message, task or observation holds


@pytest.fixture(scope="module", params=["ItemOption", "WriteEffect"])
def admitted(request):
    operator = get_operator(request.param)
    world = load_world("generated", operator.domain)
    for c in operator.enumerate(world):
        if not operator.validate(c, world) and witness.search_witness(operator, c, world).case:
            return operator, world, c
    pytest.skip(f"no admissible {request.param} candidate in the generated world")


def _with_unseen_argument(turns: list[ScriptedTurn]) -> list[ScriptedTurn]:
    """The witness turns with the first call's first string argument replaced by a value
    nobody showed the agent."""
    out = list(turns)
    for index, turn in enumerate(out):
        strings = [k for k, v in (turn.arguments or {}).items() if isinstance(v, str)]
        if turn.tool is not None and strings:
            arguments = {**(turn.arguments or {}), strings[0]: UNSEEN}
            out[index] = dataclasses.replace(turn, arguments=arguments)
            return out
    raise AssertionError("the witness makes no call with a string argument")


def test_the_unchanged_witness_takes_every_argument_from_the_history(admitted) -> None:
    operator, world, c = admitted
    case = witness.search_witness(operator, c, world).case
    assert case is not None and case.witness is not None
    assert case.witness.provenance
    assert all(p.source != "missing" for p in case.witness.provenance)


def test_a_witness_with_an_unobtainable_argument_is_refused(admitted, monkeypatch) -> None:
    operator, world, c = admitted
    real = operator.witness_turns
    monkeypatch.setattr(
        operator, "witness_turns", lambda *a, **k: _with_unseen_argument(real(*a, **k))
    )
    result = witness.search_witness(operator, c, world)
    assert result.case is None
    assert result.reason.startswith("witness argument not obtainable")
    assert UNSEEN in result.reason
