"""A fault family added the documented way (docs/writing-an-operator.md): its own module
(``late_timeout.py`` beside this file) plus one registry line. Catalogue, configuration, release checkpoints, the unsolvable
table, containment, calibration and case preference pick it up with no other edit."""

from __future__ import annotations

from late_timeout import LateTimeout, LateTimeoutParams
from sscbench.admission.prefer import early_trigger
from sscbench.faults.behaviours import AckLostToTimeout, Unsolvable
from sscbench.faults.case import Candidate
from sscbench.faults.catalogue import known_spec, spec_for
from sscbench.faults.registry import family, get_operator, registered, typed_family_names
from sscbench.measure.calibrate import fact_key
from sscbench.release.behaviours import RULES, has_behaviour, rules_of
from sscbench.release.containment import effects_of
from sscbench.release.sheet import TrialSheet


def test_a_family_is_unknown_until_registered():
    assert known_spec("LateTimeout") is None
    assert "LateTimeout" not in typed_family_names()


def test_one_registry_line_makes_every_stage_see_the_family(taubench_worlds):
    with registered(LateTimeout):
        assert get_operator("LateTimeout").name == "LateTimeout"
        assert spec_for("LateTimeout") is LateTimeout.spec
        assert typed_family_names()[-1] == "LateTimeout"  # `[cases] families` accepts it
        assert effects_of(["LateTimeout"]) == {"LateTimeout": "omission"}
        sheet = TrialSheet(family="LateTimeout", spec=LateTimeout.spec, control=False)
        assert rules_of(sheet) == [RULES[AckLostToTimeout], RULES[Unsolvable]]
        assert has_behaviour("LateTimeout", Unsolvable)  # the unsolvable table's filter
        assert family("LateTimeout").behaviours == (AckLostToTimeout, Unsolvable)

        world = taubench_worlds["retail"]
        cases = [c for t in world.tasks for c in LateTimeout().cases_for(world, t)][:3]
        assert cases and all(c.operator == "LateTimeout" for c in cases)
        case = cases[0]
        assert fact_key(case) == f"write:{case.params.record[1]}:{case.params.tool}"
        assert [i.hook_id for i in LateTimeout().injections(case, world)] == [
            f"{case.case_id}:timeout"
        ]
        params = case.params.extended(LateTimeoutParams, order_id="#not-named-anywhere")
        candidate = Candidate(
            candidate_id="c",
            operator="LateTimeout",
            world=world.source,
            domain=world.domain,
            task_id=case.task_id,
            cluster="c",
            rank=0,
            params=params,
        )
        assert early_trigger(candidate, world) is False
    assert known_spec("LateTimeout") is None  # gone with the block


def test_a_family_must_carry_its_own_spec():
    class Unnamed(LateTimeout):
        name = "Unnamed"  # inherits LateTimeout's spec: refused

    try:
        with registered(Unnamed):
            raise AssertionError("registered a family carrying another's spec")
    except ValueError as exc:
        assert "carries the spec of 'LateTimeout'" in str(exc)
