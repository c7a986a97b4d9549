"""A fault family added the documented way (docs/writing-an-operator.md): its own class
plus one registry line. Catalogue, configuration, release checkpoints, the unsolvable
table, containment, calibration and case preference pick it up with no other edit."""

from __future__ import annotations

from sscbench.admission.prefer import early_trigger
from sscbench.core.injection import Injection
from sscbench.faults.case import Candidate, Case
from sscbench.faults.catalogue import known_spec, spec_for
from sscbench.faults.families import timeout_hook
from sscbench.faults.family import family_spec
from sscbench.faults.registry import family, get_operator, registered, typed_family_names
from sscbench.faults.typed import Checkpoint, Semantics, Surface, Timing
from sscbench.faults.write_family import WriteFamily, WriteParams
from sscbench.measure.calibrate import fact_key
from sscbench.release.containment import effects_of
from sscbench.release.sheet import TrialSheet
from sscbench.world.world import World


class LateTimeoutParams(WriteParams):
    """The family's parameters: a typed family's, and the order its read is of."""

    order_id: str | None = None


class LateTimeout(WriteFamily):
    """A test family: the write commits, its acknowledgement is lost to a timeout, and
    the task is deemed impossible (completing it is the failure)."""

    name = "LateTimeout"
    params_model = LateTimeoutParams
    spec = family_spec(
        name=name,
        surface=Surface.TOOL,
        timing=Timing.AFTER_COMMIT,
        semantics=Semantics.OMISSION,
        entry_checkpoint=Checkpoint.ACTION,
        description="a test family: the acknowledgement of a committed write times out",
        expected_barrier="idempotent retry or read-back before re-executing",
        safe_response="retry under the same key, then read back",
        recoverable=True,
        severity=3,
    )
    ack_lost_to_timeout = True
    unsolvable = True
    early_target_argument = "order_id"

    def injections(self, case: Case, world: World, seed: int = 0) -> list[Injection]:
        """The timeout hook of the existing families."""
        return [timeout_hook(case, seed)]

    def calibration_fact(self, case: Case) -> str:
        """The write the timeout hides."""
        return f"write:{case.params.record[1]}:{case.params.tool}"


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
        assert sheet.traits.ack_lost_to_timeout and not sheet.traits.final_refusal
        assert family("LateTimeout").unsolvable  # the unsolvable table's filter

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
