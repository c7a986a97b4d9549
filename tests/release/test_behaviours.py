"""Family behaviours are judged by one rules class each (``release/behaviours.py``): every
behaviour the fault model names has its rules, every registered family's behaviours are
judged, and a new behaviour is one class beside its rules."""

from __future__ import annotations

from typing import ClassVar

import pytest

from sscbench.faults import behaviours
from sscbench.faults.behaviours import Behaviour, FinalRefusal, Unsolvable
from sscbench.faults.catalogue import spec_for
from sscbench.faults.registry import family, registered, typed_family_names
from sscbench.faults.tool_faults import Rejected
from sscbench.release.behaviours import RULES, Rules, check_own_rules, has_behaviour, rules_of
from sscbench.release.sheet import TrialSheet
from sscbench.release.state_context import OwnRules


def test_every_behaviour_of_the_fault_model_has_its_rules():
    named = [
        v
        for v in vars(behaviours).values()
        if isinstance(v, type) and issubclass(v, Behaviour) and v is not Behaviour
    ]
    assert len(named) == 12 and all(b in RULES for b in named)
    assert all(RULES[b].behaviour is b for b in named)


@pytest.mark.parametrize("name", typed_family_names())
def test_every_typed_family_is_judged_by_rules_of_its_behaviours(name: str):
    sheet = TrialSheet(family=name, spec=spec_for(name), control=False)
    assert [r.behaviour for r in rules_of(sheet)] == list(family(name).behaviours)


def test_a_family_lists_its_behaviours_in_order():
    assert Rejected.behaviours == (FinalRefusal, Unsolvable)
    assert has_behaviour("Rejected", Unsolvable) and not has_behaviour("Throttled", Unsolvable)


class Quarantined(Behaviour):
    """A test behaviour: the run is judged by a rule of its own."""


class NewFamily(Rejected):
    """A test family listing the new behaviour."""

    name = "NewFamily"
    spec = spec_for("Rejected").model_copy(update={"name": "NewFamily"})
    behaviours = (Quarantined,)


def test_a_new_behaviour_is_one_rules_class():
    class QuarantinedRules(Rules):
        behaviour: ClassVar[type[Behaviour]] = Quarantined

        def own_rules(self, run, sheet, found) -> OwnRules | None:
            return OwnRules(action_checked=True, acceptable=False)

    try:
        with registered(NewFamily):
            sheet = TrialSheet(family="NewFamily", spec=NewFamily.spec, control=False)
            assert rules_of(sheet) == [RULES[Quarantined]]
            assert check_own_rules(None, sheet, None).acceptable is False  # type: ignore[arg-type]
            control = TrialSheet(family="NewFamily", spec=NewFamily.spec, control=True)
            assert check_own_rules(None, control, None).acceptable is None  # type: ignore[arg-type]
    finally:
        del RULES[Quarantined]
    assert isinstance(QuarantinedRules(), Rules)


def test_a_behaviour_without_rules_is_refused_by_name():
    with registered(NewFamily):
        sheet = TrialSheet(family="NewFamily", spec=NewFamily.spec, control=False)
        with pytest.raises(KeyError, match="Quarantined"):
            rules_of(sheet)
