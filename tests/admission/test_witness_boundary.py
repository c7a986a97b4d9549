"""Admission's witness condition T_E < T_S uses the Z_S boundary of core.definitions."""

from __future__ import annotations

import pytest

from sscbench.admission import witness
from sscbench.faults.registry import get_operator
from sscbench.world.load import load_world


@pytest.fixture(scope="module")
def candidate():
    operator = get_operator("WriteEffect")
    world = load_world("generated", operator.domain)
    for c in operator.enumerate(world):
        if not operator.validate(c, world) and witness.search_witness(operator, c, world).case:
            return operator, world, c
    pytest.skip("no admissible WriteEffect candidate in the generated world")


@pytest.mark.parametrize(("shift", "admitted"), [(-1, True), (0, False)])
def test_evidence_at_the_first_use_step_is_no_pre_use_witness(
    candidate, monkeypatch, shift, admitted
):
    """The same witness, with T_E moved to T_S − 1 (pre) or onto T_S (late by the Z_S
    boundary): only the first is admitted."""
    operator, world, c = candidate
    real = witness.reconstruct_from_fault

    def moved(*args, **kwargs):
        evidence, uses, m = real(*args, **kwargs)
        return evidence, uses, m.model_copy(update={"T_E": m.T_S + shift})

    monkeypatch.setattr(witness, "reconstruct_from_fault", moved)
    result = witness.search_witness(operator, c, world)
    assert (result.case is not None) is admitted
    if not admitted:
        assert result.reason.startswith("no counterevidence before first use")
