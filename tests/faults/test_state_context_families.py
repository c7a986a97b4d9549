"""The state and context families StaleCheckpoint, ExpiredApproval and MissingEntitlement
on real τ-bench tasks: each activates on the ground-truth write of (nearly) every task it
schedules, and does what its type says to the state and to what the agent sees."""

from __future__ import annotations

import copy
import json

import pytest

from fault_cases import call_tool, family_cases
from sscbench.core.injection import InjectingExecutor
from sscbench.faults.catalogue import spec_for
from sscbench.faults.context_faults import MissingEntitlement
from sscbench.faults.families import InterveningUpdate
from sscbench.faults.hooks import hook_tag
from sscbench.faults.registry import get_operator, typed_family_names
from sscbench.faults.state_faults import (
    EXPIRED_TEXT,
    RESUME_PREFIX,
    ExpiredApproval,
    StaleCheckpoint,
)
from sscbench.faults.surfaces import activation_note
from sscbench.faults.typed import Checkpoint, Surface, Timing
from sscbench.world.entitlements import authorising_section, lacks_entitlement
from sscbench.world.records import READ_TOOLS


def _up_to_write(world, case):
    """The task's ground truth up to, not including, the target write."""
    for action in world.task(case.task_id).actions:
        if action.name == case.params.tool and dict(action.kwargs) == case.params.arguments:
            return
        yield action.name, dict(action.kwargs)


def _record(env, case):
    kind, rid = case.params.record
    return env.state.get(READ_TOOLS[kind].table, rid)


def test_the_families_are_typed_registered_and_distinct():
    for name in ("StaleCheckpoint", "ExpiredApproval", "MissingEntitlement"):
        assert name in typed_family_names() and get_operator(name).name == name
    stale, expired, missing = (
        spec_for(n) for n in ("StaleCheckpoint", "ExpiredApproval", "MissingEntitlement")
    )
    assert (stale.surface, stale.timing, stale.entry_checkpoint) == (
        Surface.STATE,
        Timing.AFTER_COMMIT,
        Checkpoint.CONTEXT,
    )
    assert (expired.surface, expired.timing, expired.entry_checkpoint) == (
        Surface.STATE,
        Timing.BEFORE_CALL,
        Checkpoint.AUTHORITY,
    )
    assert missing.surface is Surface.CONTEXT and not missing.recoverable
    assert activation_note(hook_tag("x:checkpoint")) and activation_note(hook_tag("x:expired"))


def test_stale_checkpoint_activates_and_hands_over_the_record_before_the_write(worlds):
    """≥ 90% of scheduled: the write commits (the state holds the change) and the agent is
    told the session resumed from a checkpoint holding the record as it was before."""
    scheduled = activated = 0
    for world in worlds:
        for case in family_cases(StaleCheckpoint, world)[:60]:
            env = world.new_env()
            executor = InjectingExecutor(env, StaleCheckpoint().injections(case, world, seed=0))
            step = 1
            for name, arguments in _up_to_write(world, case):
                call_tool(executor, step, name, arguments)
                step += 2
            before = _record(env, case)
            scheduled += 1
            out = call_tool(executor, step, case.params.tool, case.params.arguments)
            after = _record(env, case)
            record = out.intervention
            if record is None or not record.effective:
                continue
            assert out.write.state_changed and after != before  # committed, authoritative
            assert out.observation.startswith(RESUME_PREFIX)
            assert json.dumps(before, sort_keys=True) in out.observation
            assert "has not been carried out" in out.observation
            activated += 1
    assert scheduled >= 60
    assert activated / scheduled >= 0.9, (activated, scheduled)


def test_stale_checkpoint_leaves_a_refused_write_alone(worlds):
    retail = worlds[1]
    case = next(
        c for c in family_cases(StaleCheckpoint, retail) if c.params.tool == "cancel_pending_order"
    )
    env = retail.new_env()
    executor = InjectingExecutor(env, StaleCheckpoint().injections(case, retail))
    first = call_tool(executor, 1, "cancel_pending_order", case.params.arguments)
    assert first.observation.startswith(RESUME_PREFIX)
    again = call_tool(executor, 3, "cancel_pending_order", case.params.arguments)
    assert again.observation.startswith("Error") and again.intervention is not None
    assert not again.intervention.effective  # a refusal is no stale checkpoint


@pytest.mark.parametrize("events", [1, 2, 3])
def test_expired_approval_refuses_events_attempts_before_commit(worlds, events):
    """Each of the first ``events`` attempts is refused as expired with nothing applied
    (no key record either); the next attempt under the same key really runs."""
    scheduled = activated = 0
    for world in worlds:
        for case in family_cases(ExpiredApproval, world, events=events)[:30]:
            env = world.new_env()
            executor = InjectingExecutor(
                env, ExpiredApproval().injections(case, world, seed=0), idempotency_keys=True
            )
            step = 1
            for name, arguments in _up_to_write(world, case):
                call_tool(executor, step, name, arguments)
                step += 2
            scheduled += 1
            keyed = {**case.params.arguments, "idempotency_key": "k"}
            before = env.db_hash()
            refusals = []
            for _ in range(events):
                out = call_tool(executor, step, case.params.tool, keyed)
                step += 2
                refusals.append(
                    out.observation == EXPIRED_TEXT
                    and out.intervention is not None
                    and out.intervention.effective
                    and not out.write.state_changed
                )
            assert env.db_hash() == before  # nothing applied on any lapsed approval
            last = call_tool(executor, step, case.params.tool, keyed)
            if all(refusals):
                assert last.intervention is None and not last.write.replayed
                assert last.write.state_changed
                activated += 1
    assert scheduled >= 40
    assert activated / scheduled >= 0.9, (activated, scheduled)


def test_expired_approval_refuses_nonsense_events(worlds):
    case = family_cases(ExpiredApproval, worlds[0], events=0)[0]
    with pytest.raises(ValueError, match="events must be >= 1"):
        ExpiredApproval().injections(case, worlds[0])


def test_missing_entitlement_removes_the_authorising_section_of_every_scheduled_write(worlds):
    for world in worlds:
        cases = family_cases(MissingEntitlement, world)
        assert len(cases) >= 20
        assert not lacks_entitlement(world.policy, cases[0].params.tool)
        for case in cases:
            tool = case.params.tool
            delivered = MissingEntitlement().context_fault(case, world, world.policy)
            assert delivered is not None and delivered != world.policy
            assert lacks_entitlement(delivered, tool)  # the compiler would refuse
            start, end = authorising_section(world.policy, tool)
            assert world.policy[end:] in delivered and world.policy[:start] in delivered
            assert len(delivered) == len(world.policy) - (end - start)


def test_missing_entitlement_schedules_no_write_without_a_section(worlds):
    retail = worlds[1]
    tools = {c.params.tool for c in family_cases(MissingEntitlement, retail)}
    assert "modify_user_address" not in tools  # no section of its own in the policy
    assert {"cancel_pending_order", "return_delivered_order_items"} <= tools


@pytest.mark.parametrize("events", [1, 2, 3])
def test_intervening_events_alternate_between_a_gated_and_an_aba_update(worlds, events):
    """Every scheduled retail case: after the agent's read, ``events`` updates run. Odd
    counts leave the order moved on (the write tool refuses it); even counts move it back
    to the status the agent read with its address changed (ABA: the tool accepts a write
    resting on a stale read)."""
    retail = worlds[1]
    cases = family_cases(InterveningUpdate, retail, events=events)[:40]
    assert len(cases) >= 30
    fired = 0
    for case in cases:
        oid = case.params.record[1]
        env = retail.new_env()
        executor = InjectingExecutor(env, InterveningUpdate().injections(case, retail, seed=0))
        read = call_tool(executor, 1, "get_order_details", {"order_id": oid})
        seen = json.loads(read.observation)
        if read.intervention is None or not read.intervention.effective:
            continue
        fired += 1
        now = copy.deepcopy(env.state.get("orders", oid))
        write = call_tool(executor, 3, case.params.tool, case.params.arguments)
        if events % 2:
            assert now["status"] != seen["status"]
            assert write.observation.startswith("Error") and not write.write.state_changed
        else:
            assert now["status"] == seen["status"] and now["address"] != seen["address"]
            assert now["address"]["address2"] == f"Suite {events}00"
            clean = retail.new_env().execute(case.params.tool, case.params.arguments)
            assert write.observation.startswith("Error") is clean.is_error  # the tool accepts
    assert fired / len(cases) >= 0.9
