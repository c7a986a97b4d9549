"""The tool, verification and context families on real τ-bench tasks: each activates on
the ground-truth write of every task it schedules, and does what its type says."""

from __future__ import annotations

import json

import pytest

from sscbench.core.injection import InjectingExecutor, Injection
from sscbench.faults.catalogue import spec_for
from sscbench.faults.context_faults import (
    CONTRADICTING_NOTE,
    REVOKED_CLAUSE,
    ContradictorySource,
    RevokedProvenance,
)
from sscbench.faults.registry import get_operator
from sscbench.faults.surfaces import SURFACE_FAMILIES, activation_note
from sscbench.faults.tool_faults import DECISIVE_FIELD, PartialPayload
from sscbench.faults.typed import Surface
from sscbench.faults.verification_faults import CorruptedReceipt, SameSourceReadback
from sscbench.world.load import load_world
from sscbench.world.records import READ_TOOLS

WRITE_FAMILIES = (PartialPayload, CorruptedReceipt, SameSourceReadback)


@pytest.fixture(scope="module")
def worlds(taubench):
    return [load_world("tau-bench", d, taubench) for d in ("airline", "retail")]


def _call(executor, step, name, arguments):
    return executor.execute(step, f"c{step}", name, json.dumps(arguments))


def _cases(family, world):
    return [c for t in world.tasks for c in family().cases_for(world, t)]


def _first_write(world, case):
    """Replays the task's ground truth up to and including the target write."""
    for action in world.task(case.task_id).actions:
        yield action.name, dict(action.kwargs)
        if action.name == case.params["tool"] and dict(action.kwargs) == case.params["arguments"]:
            return


def test_surface_families_are_typed_and_registered():
    for family in SURFACE_FAMILIES:
        spec = spec_for(family.name)
        assert get_operator(family.name).name == family.name
        assert spec.expected_barrier and spec.containment.cleanup
    assert spec_for("SameSourceReadback").surface is Surface.VERIFICATION
    assert spec_for("PartialPayload").surface is Surface.TOOL
    assert spec_for("RevokedProvenance").surface is Surface.CONTEXT
    assert activation_note("x:y:same-source") and activation_note("x:timeout") is None


@pytest.mark.parametrize("family", WRITE_FAMILIES, ids=lambda f: f.name)
def test_lost_write_families_activate_on_tau_bench_tasks(worlds, family):
    """Activation ≥ 90% of scheduled: replaying each task's ground truth, the target write
    is acknowledged as a success while its state change is rolled back."""
    scheduled = activated = 0
    for world in worlds:
        for case in _cases(family, world)[:60]:
            env = world.new_env()
            executor = InjectingExecutor(env, family().injections(case, world, seed=0))
            scheduled += 1
            step = 1
            for name, arguments in _first_write(world, case):
                out = _call(executor, step, name, arguments)
                step += 2
            record = out.intervention
            if (
                record is not None
                and record.effective
                and record.action == "suppress"
                and not out.write.state_changed
                and not out.observation.startswith("Error")
                and activation_note(record.hook_id)
            ):
                activated += 1
    assert scheduled >= 60
    assert activated / scheduled >= 0.9, (activated, scheduled)


def test_partial_payload_omits_the_decisive_field_and_commits_nothing(worlds):
    for world in worlds:
        case = _cases(PartialPayload, world)[0]
        env = world.new_env()
        executor = InjectingExecutor(env, PartialPayload().injections(case, world))
        for step, (name, arguments) in enumerate(_first_write(world, case)):
            out = _call(executor, 2 * step + 1, name, arguments)
        field = DECISIVE_FIELD[case.params["tool"]]
        delivered = json.loads(out.observation)  # still a valid success record
        original = json.loads(out.intervention.original_observation)
        assert field in original and field not in delivered
        assert {k: v for k, v in original.items() if k != field} == delivered
        kind, rid = case.params["record"]
        table = READ_TOOLS[kind].table
        assert env.state.get(table, rid) == env.state.base.tables[table].get(rid)


def test_same_source_readback_agrees_with_the_receipt_independent_one_does_not(worlds):
    retail = worlds[1]
    case = next(
        c for c in _cases(SameSourceReadback, retail) if c.params["tool"] == "cancel_pending_order"
    )
    oid = case.params["record"][1]
    outcomes = {}
    for family in (SameSourceReadback, CorruptedReceipt):
        env = retail.new_env()
        executor = InjectingExecutor(env, family().injections(case, retail))
        ack = _call(executor, 1, "cancel_pending_order", case.params["arguments"])
        back = _call(executor, 3, "get_order_details", {"order_id": oid})
        outcomes[family.name] = json.loads(back.observation)["status"]
        assert json.loads(ack.observation)["status"] == "cancelled"  # the receipt says done
        assert env.state.get("orders", oid)["status"] == "pending"  # the store lost it
    assert outcomes == {"SameSourceReadback": "cancelled", "CorruptedReceipt": "pending"}


def test_same_source_reads_nothing_before_the_write_is_lost(worlds):
    retail = worlds[1]
    case = _cases(SameSourceReadback, retail)[0]
    oid = case.params["record"][1]
    executor = InjectingExecutor(retail.new_env(), SameSourceReadback().injections(case, retail))
    before = _call(executor, 1, "get_order_details", {"order_id": oid})
    assert before.intervention is None


@pytest.mark.parametrize(
    ("family", "clause", "keeps_rule"),
    [(ContradictorySource, CONTRADICTING_NOTE, True), (RevokedProvenance, REVOKED_CLAUSE, False)],
)
def test_context_families_lift_the_rule_on_every_scheduled_task(worlds, family, clause, keeps_rule):
    rule = "explicit user confirmation (yes)"
    for world in worlds:
        cases = _cases(family, world)
        assert cases
        delivered = family().context_fault(cases[0], world, world.policy)
        assert clause in delivered and delivered != world.policy
        assert "confirmation is no longer required" in delivered.lower()
        assert (rule in delivered) is keeps_rule
        assert rule in world.policy


def test_suppressed_write_rewrite_sees_the_state_before_the_rollback(worlds):
    retail = worlds[1]
    case = _cases(CorruptedReceipt, retail)[0]
    seen = []

    def rewrite(observation, _arguments, state):
        seen.append(bool(state.changes()))
        return "rewritten"

    hook = Injection(
        "h", match=lambda n, a, s: n == case.params["tool"], suppress_write=True, rewrite=rewrite
    )
    env = retail.new_env()
    out = _call(InjectingExecutor(env, [hook]), 1, case.params["tool"], case.params["arguments"])
    assert out.observation == "rewritten" and seen == [True] and not env.state.changes()
    assert out.intervention.action == "suppress" and out.intervention.effective
    with pytest.raises(ValueError, match="exactly one"):
        Injection("bad", match=lambda n, a, s: True, rewrite=rewrite, update=lambda s: None)
