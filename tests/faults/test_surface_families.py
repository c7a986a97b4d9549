"""The tool, verification and context families on real τ-bench tasks: each activates on
the ground-truth write of every task it schedules, and does what its type says."""

from __future__ import annotations

import json

import pytest

from fault_cases import call_tool, family_cases
from sscbench.core.injection import InjectingExecutor, SuppressHook, UpdateHook
from sscbench.faults.catalogue import spec_for
from sscbench.faults.context_faults import (
    CONTRADICTING_NOTE,
    REVOKED_CLAUSE,
    ContradictorySource,
    RevokedProvenance,
)
from sscbench.faults.hooks import hook_tag
from sscbench.faults.registry import get_operator
from sscbench.faults.state_faults import ReplayedEvent, changes_twice
from sscbench.faults.surfaces import SURFACE_FAMILIES, activation_note
from sscbench.faults.tool_faults import DECISIVE_FIELD, THROTTLED_TEXT, PartialPayload, Throttled
from sscbench.faults.typed import Surface
from sscbench.faults.verification_faults import (
    CorruptedReceipt,
    IncompleteReadback,
    SameSourceReadback,
)
from sscbench.world.records import READ_TOOLS

WRITE_FAMILIES = (PartialPayload, Throttled, CorruptedReceipt, SameSourceReadback)


def _first_write(world, case):
    """Replays the task's ground truth up to and including the target write."""
    for action in world.task(case.task_id).actions:
        yield action.name, dict(action.kwargs)
        if action.name == case.params.tool and dict(action.kwargs) == case.params.arguments:
            return


def test_surface_families_are_typed_and_registered():
    for family in SURFACE_FAMILIES:
        spec = spec_for(family.name)
        assert get_operator(family.name).name == family.name
        assert spec.expected_barrier and spec.containment.cleanup
    assert spec_for("SameSourceReadback").surface is Surface.VERIFICATION
    assert spec_for("PartialPayload").surface is Surface.TOOL
    assert spec_for("RevokedProvenance").surface is Surface.CONTEXT
    assert (
        activation_note(hook_tag("x:y:same-source"))
        and activation_note(hook_tag("x:timeout")) is None
    )


@pytest.mark.parametrize("family", WRITE_FAMILIES, ids=lambda f: f.name)
def test_lost_write_families_activate_on_tau_bench_tasks(worlds, family):
    """Activation ≥ 90% of scheduled: replaying each task's ground truth, the target write
    runs and its state change is rolled back, while the agent is told something else (a
    success, a partial success, a refusal)."""
    scheduled = activated = 0
    for world in worlds:
        for case in family_cases(family, world)[:60]:
            env = world.new_env()
            executor = InjectingExecutor(env, family().injections(case, world, seed=0))
            scheduled += 1
            step = 1
            for name, arguments in _first_write(world, case):
                out = call_tool(executor, step, name, arguments)
                step += 2
            record = out.intervention
            if record is None:
                continue
            real_receipt = family in (CorruptedReceipt, SameSourceReadback)
            if (
                record.effective
                and record.action == "suppress"
                and not out.write.state_changed
                and not record.original_observation.startswith("Error")
                and (real_receipt or out.observation != record.original_observation)
                and activation_note(hook_tag(record.hook_id))
            ):
                activated += 1
    assert scheduled >= 60
    assert activated / scheduled >= 0.9, (activated, scheduled)


def test_partial_payload_omits_the_decisive_field_and_commits_nothing(worlds):
    for world in worlds:
        case = family_cases(PartialPayload, world)[0]
        env = world.new_env()
        executor = InjectingExecutor(env, PartialPayload().injections(case, world))
        for step, (name, arguments) in enumerate(_first_write(world, case)):
            out = call_tool(executor, 2 * step + 1, name, arguments)
        field = DECISIVE_FIELD[case.params.tool]
        delivered = json.loads(out.observation)  # still a valid success record
        original = json.loads(out.intervention.original_observation)
        assert field in original and field not in delivered
        assert {k: v for k, v in original.items() if k != field} == delivered
        kind, rid = case.params.record
        table = READ_TOOLS[kind].table
        assert env.state.get(table, rid) == env.state.base.tables[table].get(rid)


def test_same_source_readback_agrees_with_the_receipt_independent_one_does_not(worlds):
    retail = worlds[1]
    case = next(
        c
        for c in family_cases(SameSourceReadback, retail)
        if c.params.tool == "cancel_pending_order"
    )
    oid = case.params.record[1]
    outcomes = {}
    for family in (SameSourceReadback, CorruptedReceipt):
        env = retail.new_env()
        executor = InjectingExecutor(env, family().injections(case, retail))
        ack = call_tool(executor, 1, "cancel_pending_order", case.params.arguments)
        back = call_tool(executor, 3, "get_order_details", {"order_id": oid})
        outcomes[family.name] = json.loads(back.observation)["status"]
        assert json.loads(ack.observation)["status"] == "cancelled"  # the receipt says done
        assert env.state.get("orders", oid)["status"] == "pending"  # the store lost it
    assert outcomes == {"SameSourceReadback": "cancelled", "CorruptedReceipt": "pending"}


def test_same_source_reads_nothing_before_the_write_is_lost(worlds):
    retail = worlds[1]
    case = family_cases(SameSourceReadback, retail)[0]
    oid = case.params.record[1]
    executor = InjectingExecutor(retail.new_env(), SameSourceReadback().injections(case, retail))
    before = call_tool(executor, 1, "get_order_details", {"order_id": oid})
    assert before.intervention is None


@pytest.mark.parametrize(
    ("family", "clause", "keeps_rule"),
    [(ContradictorySource, CONTRADICTING_NOTE, True), (RevokedProvenance, REVOKED_CLAUSE, False)],
)
def test_context_families_lift_the_rule_on_every_scheduled_task(worlds, family, clause, keeps_rule):
    rule = "explicit user confirmation (yes)"
    for world in worlds:
        cases = family_cases(family, world)
        assert cases
        delivered = family().context_fault(cases[0], world, world.policy)
        assert clause in delivered and delivered != world.policy
        assert "confirmation is no longer required" in delivered.lower()
        assert (rule in delivered) is keeps_rule
        assert rule in world.policy


def test_suppressed_write_rewrite_sees_the_state_before_the_rollback(worlds):
    retail = worlds[1]
    case = family_cases(CorruptedReceipt, retail)[0]
    seen = []

    def rewrite(observation, _arguments, state):
        seen.append(bool(state.changes()))
        return "rewritten"

    hook = SuppressHook("h", match=lambda n, a, s: n == case.params.tool, rewrite=rewrite)
    env = retail.new_env()
    out = call_tool(InjectingExecutor(env, [hook]), 1, case.params.tool, case.params.arguments)
    assert out.observation == "rewritten" and seen == [True] and not env.state.changes()
    assert out.intervention.action == "suppress" and out.intervention.effective
    with pytest.raises(TypeError):  # one kind per hook: the union has no hook doing two
        UpdateHook("bad", match=lambda n, a, s: True, rewrite=rewrite, update=lambda s: None)  # type: ignore[call-arg]


def test_throttled_refuses_before_commit_and_the_retry_applies(worlds):
    retail = worlds[1]
    case = next(
        c for c in family_cases(Throttled, retail) if c.params.tool == "cancel_pending_order"
    )
    oid = case.params.record[1]
    env = retail.new_env()
    executor = InjectingExecutor(env, Throttled().injections(case, retail), idempotency_keys=True)
    keyed = {**case.params.arguments, "idempotency_key": "k"}
    refused = call_tool(executor, 1, "cancel_pending_order", keyed)
    assert refused.observation == THROTTLED_TEXT
    assert env.state.get("orders", oid)["status"] == "pending"  # nothing applied
    retry = call_tool(executor, 3, "cancel_pending_order", keyed)  # same key: not a replay
    assert not retry.write.replayed and retry.write.state_changed
    assert env.state.get("orders", oid)["status"] == "cancelled"


def test_incomplete_readback_drops_the_field_after_the_write_only(worlds):
    scheduled = activated = 0
    for world in worlds:
        for case in family_cases(IncompleteReadback, world)[:40]:
            kind, rid = case.params.record
            read = READ_TOOLS[kind]
            field = DECISIVE_FIELD[case.params.tool]
            executor = InjectingExecutor(
                world.new_env(), IncompleteReadback().injections(case, world)
            )
            step = 1
            for name, arguments in _first_write(world, case):
                call_tool(executor, step, name, arguments)
                step += 2
            scheduled += 1
            if case.params.tool == "book_reservation":
                continue  # the new reservation's id is in the acknowledgement
            back = call_tool(executor, step, read.tool, {read.id_argument: rid})
            again = call_tool(executor, step + 2, read.tool, {read.id_argument: rid})
            if back.intervention is not None and back.intervention.effective:
                record = json.loads(back.observation)
                assert field not in record and field in json.loads(again.observation)
                activated += 1
    bookings = sum(
        c.params.tool == "book_reservation"
        for w in worlds
        for c in family_cases(IncompleteReadback, w)[:40]
    )
    assert scheduled >= 40 and activated / (scheduled - bookings) >= 0.9


def test_incomplete_readback_skips_records_without_the_field(worlds):
    airline = worlds[0]
    for case in family_cases(IncompleteReadback, airline):
        if case.params.tool == "book_reservation":
            continue
        kind, rid = case.params.record
        before = airline.base.tables[READ_TOOLS[kind].table][rid]
        assert DECISIVE_FIELD[case.params.tool] in before


def test_replayed_event_duplicates_only_an_unkeyed_write(worlds):
    airline = worlds[0]
    cases = family_cases(ReplayedEvent, airline)
    assert cases
    scheduled = duplicated = 0
    for case in cases:
        assert changes_twice(airline, case.params.tool, case.params.arguments)
        for keyed in (False, True):
            env = airline.new_env()
            executor = InjectingExecutor(
                env, ReplayedEvent().injections(case, airline), idempotency_keys=True
            )
            arguments = {**case.params.arguments, **({"idempotency_key": "k"} if keyed else {})}
            out = call_tool(executor, 1, case.params.tool, arguments)
            assert out.intervention.action == "redeliver" and out.intervention.effective
            once = airline.new_env()
            once.execute(case.params.tool, case.params.arguments)
            same_as_once = env.db_hash() == once.db_hash()
            assert same_as_once is keyed  # the key deduplicates; without it, a duplicate
            scheduled += 1
            duplicated += out.intervention.state_changed
    assert duplicated == scheduled // 2


def test_replayed_event_is_not_scheduled_where_a_second_delivery_changes_nothing(worlds):
    retail = worlds[1]
    task = next(
        t
        for t in retail.tasks
        if any(
            c.params.tool == "cancel_pending_order" for c in CorruptedReceipt().cases_for(retail, t)
        )
    )
    assert ReplayedEvent().cases_for(retail, task) == []
