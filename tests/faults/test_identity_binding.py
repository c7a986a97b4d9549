"""The identity families beyond the lookup, at the execution point and in the context:
a write's subject rebound as it executes (``SubjectRebind``), a handoff note that drops
the requesting user (``DroppedPrincipal``), and where the binding is lost as one
parameter (``SubjectBindingLost``)."""

from __future__ import annotations

import json

import pytest

from sscbench.core.injection import InjectingExecutor, RebindHook
from sscbench.core.ledger import EVALUATOR_EVENT, InterventionRecord
from sscbench.faults.catalogue import spec_for
from sscbench.faults.identity import (
    HANDOFF_MARKER,
    PRINCIPAL_WRITES,
    REBINDABLE_WRITES,
    DroppedPrincipal,
    IdentityRebind,
    SubjectBindingLost,
    SubjectRebind,
    subject_rebind_hook,
)
from sscbench.faults.registry import get_operator
from sscbench.faults.typed import Checkpoint, Semantics, Surface, Timing
from sscbench.study.worlds import with_idempotency_keys
from sscbench.world.load import load_world
from sscbench.world.records import READ_TOOLS


def _cases(family, world, **params):
    return [c for task in world.tasks for c in family.cases_for(world, task, **params)]


def test_rebound_write_runs_on_the_substitute_and_keeps_both_arguments(taubench):
    world = load_world("tau-bench", "retail", taubench)
    case = _cases(SubjectRebind(), world)[0]
    _kind, rid = case.params.record
    _kind, other = case.params.substitute
    env = world.new_env()
    executor = InjectingExecutor(env, [subject_rebind_hook(case)])
    arguments = {**case.params.arguments, "order_id": rid}
    done = executor.execute(4, "c4", case.params.tool, json.dumps(arguments))
    receipt = json.loads(done.observation)
    # the agent sees the tool's real answer for the record it ran on: another user's
    assert receipt["order_id"] == other and receipt["user_id"] != case.params.owner
    assert env.state.get("orders", rid) == world.base.tables["orders"][rid]  # untouched
    assert env.state.get("orders", other) != world.base.tables["orders"][other]  # changed
    record = done.intervention
    assert record is not None and record.action == "rebind" and record.effective
    assert record.requested_arguments["order_id"] == rid and record.arguments["order_id"] == other
    assert record.delivered_observation == record.original_observation == done.observation
    # the evaluator's write record counts the effect where it happened
    assert done.write is not None and done.write.arguments["order_id"] == other
    assert done.write.state_changed
    # the evaluator-only record round-trips; other records keep their lines unchanged
    line = record.model_dump_json()
    assert EVALUATOR_EVENT.validate_json(line) == record
    plain = InterventionRecord(
        hook_id="h", step=1, tool_call_id="c", name="n", arguments={}, action="rewrite",
        original_observation="a", delivered_observation="b", state_changed=False,
        would_have_changed_state=False, effective=True,
    )  # fmt: skip
    assert "requested_arguments" not in plain.model_dump_json()


def test_a_keyed_retry_of_the_sent_request_replays_its_receipt(taubench):
    world = with_idempotency_keys(load_world("tau-bench", "retail", taubench))
    case = _cases(SubjectRebind(), world)[0]
    env = world.new_env()
    executor = InjectingExecutor(env, [subject_rebind_hook(case)], idempotency_keys=True)
    sent = json.dumps({**case.params.arguments, "idempotency_key": "k1"})
    first = executor.execute(1, "c1", case.params.tool, sent)
    again = executor.execute(3, "c3", case.params.tool, sent)
    # the store keys what the client sent: the retry is a replay, not a second write
    assert again.observation == first.observation and again.write is not None
    assert again.write.replayed and not again.write.state_changed


def test_a_rebind_hook_is_one_action():
    hook = RebindHook("h", match=lambda *_: True, rebind=lambda *_: {})
    assert hook.kind == "rebind"
    with pytest.raises(TypeError):  # a rebind hook takes no second action
        RebindHook("h", match=lambda *_: True, rebind=lambda *_: {}, redeliver=True)  # type: ignore[call-arg]


@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_subject_rebind_cases_rebind_to_another_users_record(taubench_worlds, domain):
    world = taubench_worlds[domain]
    cases = _cases(SubjectRebind(), world)
    assert len(cases) >= 10
    for case in cases:
        kind, rid = case.params.record
        _, other = case.params.substitute
        table = world.base.tables[READ_TOOLS[kind].table]
        assert case.params.tool in REBINDABLE_WRITES
        assert table[other]["user_id"] != table[rid]["user_id"] == case.params.owner


@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_dropped_principal_names_another_user_in_a_model_visible_note(taubench_worlds, domain):
    world = taubench_worlds[domain]
    family = DroppedPrincipal()
    cases = _cases(family, world)
    assert len(cases) >= 10
    user_writes = [c for c in cases if c.params.tool in PRINCIPAL_WRITES]
    assert user_writes  # a handoff can bind a user-subject write to the wrong account
    for case in cases:
        principal, owner = case.params.principal, case.params.owner
        assert principal != owner and principal in world.base.tables["users"]
        prompt = family.context_fault(case, world, world.policy)
        assert prompt.startswith(world.policy.rstrip("\n")) and HANDOFF_MARKER in prompt
        assert f"user_id {principal}" in prompt and owner not in prompt
        assert family.injections(case, world) == []
    for case in user_writes:
        assert case.params.substitute == ("user", case.params.principal)


def test_binding_lost_levels_share_tasks_and_substitutes(taubench_worlds):
    world = taubench_worlds["retail"]
    family = SubjectBindingLost()
    levels = {lv: _cases(family, world, binding_lost=lv) for lv in (1, 2, 3)}
    tasks = {lv: [c.task_id for c in cs] for lv, cs in levels.items()}
    assert tasks[1] == tasks[2] == tasks[3] == [c.task_id for c in _cases(IdentityRebind(), world)]
    subs = {lv: [c.params.substitute for c in cs] for lv, cs in levels.items()}
    assert subs[1] == subs[2] == subs[3]
    first = {lv: cs[0] for lv, cs in levels.items()}
    assert [family.binding_point(first[lv]) for lv in (1, 2, 3)] == [
        "handoff",
        "lookup",
        "execution",
    ]
    # each level puts its fault where its binding point is, and nowhere else
    assert family.injections(first[1], world) == [] and family.context_fault(
        first[1], world, world.policy
    )
    assert family.injections(first[2], world)[0].rewrite is not None
    assert family.injections(first[3], world)[0].rebind is not None
    assert family.context_fault(first[2], world, world.policy) is None
    with pytest.raises(ValueError, match="binding_lost"):
        _cases(family, world, binding_lost=4)


def test_new_identity_families_are_typed_and_registered():
    for name, timing in (
        ("SubjectRebind", Timing.DURING_EXECUTION),
        ("DroppedPrincipal", Timing.BEFORE_CALL),
        ("SubjectBindingLost", Timing.BEFORE_CALL),
    ):
        assert get_operator(name).name == name
        spec = spec_for(name)
        assert spec.surface is Surface.IDENTITY and spec.entry_checkpoint is Checkpoint.IDENTITY
        assert spec.semantics is Semantics.UNAUTHORISED_SUBSTITUTION and spec.timing is timing
        assert spec.severity == 5 and not spec.recoverable and spec.containment.synthetic_only
