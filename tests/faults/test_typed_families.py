"""The typed fault families at the execution point: idempotency keys, timeouts after
commit, read-back outages, intervening updates and stale policy clauses."""

from __future__ import annotations

import json

import pytest

from sscbench.core.injection import InjectingExecutor
from sscbench.faults.catalogue import FAMILY_SPECS, SSCBENCH_SPECS, spec_for
from sscbench.faults.families import (
    STALE_POLICY_CLAUSE,
    TIMEOUT_TEXT,
    UNAVAILABLE_TEXT,
    CompoundTimeoutReadback,
    InterveningUpdate,
    ReadbackUnavailable,
    StalePolicy,
    TimeoutAfterCommit,
)
from sscbench.faults.registry import get_operator
from sscbench.faults.typed import OutcomeState
from sscbench.release.claims import classify_claim
from sscbench.study.worlds import with_idempotency_keys
from sscbench.world.load import load_world


@pytest.fixture
def airline(taubench):
    return load_world("tau-bench", "airline", taubench)


@pytest.fixture
def retail(taubench):
    return load_world("tau-bench", "retail", taubench)


def _certificate_case(world):
    for task in world.tasks:
        cases = TimeoutAfterCommit().cases_for(world, task)
        if cases and cases[0].params.tool == "send_certificate":
            return cases[0]
    raise AssertionError("no τ-bench airline task whose first write sends a certificate")


def _call(executor, step, name, arguments):
    return executor.execute(step, f"c{step}", name, json.dumps(arguments))


def test_every_family_and_operator_is_typed_and_registered():
    names = [s.name for s in (*SSCBENCH_SPECS, *FAMILY_SPECS)]
    assert len(names) == len(set(names)) == 9
    for name in names:
        assert get_operator(name).name == name
        spec = spec_for(name)
        assert 1 <= spec.severity <= 5 and spec.expected_barrier and spec.containment.cleanup
    with pytest.raises(KeyError, match="known"):
        spec_for("NoSuchFamily")


def test_idempotency_key_replays_the_first_acknowledgement(airline):
    case = _certificate_case(airline)
    env = airline.new_env()
    executor = InjectingExecutor(env, idempotency_keys=True)
    args = {**case.params.arguments, "idempotency_key": "k-1"}
    first = _call(executor, 1, "send_certificate", args)
    hash_after_first = env.db_hash()
    second = _call(executor, 3, "send_certificate", args)
    assert second.observation == first.observation
    assert env.db_hash() == hash_after_first  # not applied again
    assert (first.write.state_changed, first.write.replayed) == (True, False)
    assert (second.write.state_changed, second.write.replayed) == (False, True)
    assert first.write.idempotency_key == "k-1"
    other = _call(executor, 5, "send_certificate", {**args, "amount": 1})
    assert "already used for a different request" in other.observation
    # without a key the same write runs again: a duplicate effect, seen in the state
    plain = _call(executor, 7, "send_certificate", case.params.arguments)
    assert plain.write.state_changed and env.db_hash() != hash_after_first


def test_idempotency_key_is_an_unknown_argument_without_the_variant(airline):
    case = _certificate_case(airline)
    executor = InjectingExecutor(airline.new_env())
    out = _call(executor, 1, "send_certificate", {**case.params.arguments, "idempotency_key": "k"})
    assert out.observation.startswith("Error") and "idempotency_key" in out.observation


def test_variant_advertises_the_key_on_write_tools_only(taubench):
    world = with_idempotency_keys(load_world("tau-bench", "airline", taubench))
    by_name = {s["function"]["name"]: s["function"] for s in world.tool_schemas()}
    assert "idempotency_key" in by_name["send_certificate"]["parameters"]["properties"]
    assert "idempotency_key" not in by_name["get_user_details"]["parameters"]["properties"]
    assert "idempotency_key" not in by_name["transfer_to_human_agents"]["parameters"]["properties"]


def test_timeout_fires_after_commit_for_a_burst(airline):
    base = _certificate_case(airline)
    case = base.model_copy(update={"params": base.params.merged(burst=2)})
    env = airline.new_env()
    executor = InjectingExecutor(env, TimeoutAfterCommit().injections(case, airline, seed=3))
    outs = [_call(executor, s, "send_certificate", case.params.arguments) for s in (1, 3, 5)]
    assert [o.observation == TIMEOUT_TEXT for o in outs] == [True, True, False]
    assert all(o.write.state_changed for o in outs)  # every call committed: three effects
    assert outs[0].intervention.effective and outs[0].intervention.state_changed
    assert outs[2].intervention is not None and not outs[2].intervention.effective


def test_timeout_never_fires_at_probability_zero_and_not_on_errors(airline):
    base = _certificate_case(airline)
    case = base.model_copy(update={"params": base.params.merged(probability=0.0)})
    executor = InjectingExecutor(
        airline.new_env(), TimeoutAfterCommit().injections(case, airline, seed=0)
    )
    assert _call(executor, 1, "send_certificate", case.params.arguments).observation != TIMEOUT_TEXT
    refused = _certificate_case(airline)
    executor = InjectingExecutor(
        airline.new_env(), TimeoutAfterCommit().injections(refused, airline)
    )
    bad = {**refused.params.arguments, "user_id": refused.params.arguments["user_id"]}
    del bad["amount"]  # cannot bind (τ-bench checks no types): refused before anything commits
    assert _call(executor, 1, "send_certificate", bad).observation != TIMEOUT_TEXT


def test_readback_unavailable_only_after_the_write(retail):
    task_case = next(
        c
        for t in retail.tasks
        for c in ReadbackUnavailable().cases_for(retail, t)
        if c.params.tool == "cancel_pending_order"
    )
    oid = task_case.params.record[1]
    executor = InjectingExecutor(
        retail.new_env(), ReadbackUnavailable().injections(task_case, retail)
    )
    before = _call(executor, 1, "get_order_details", {"order_id": oid})
    assert before.observation != UNAVAILABLE_TEXT
    ack = _call(executor, 3, "cancel_pending_order", task_case.params.arguments)
    assert "cancelled" in ack.observation
    after = _call(executor, 5, "get_order_details", {"order_id": oid})
    assert after.observation == UNAVAILABLE_TEXT and after.intervention.effective
    again = _call(executor, 7, "get_order_details", {"order_id": oid})
    assert again.observation != UNAVAILABLE_TEXT  # a burst of one read


def test_compound_puts_both_hooks_on_one_write(retail):
    case = next(c for t in retail.tasks for c in CompoundTimeoutReadback().cases_for(retail, t))
    hooks = CompoundTimeoutReadback().injections(case, retail, seed=1)
    assert sorted(h.hook_id.rsplit(":", 1)[1] for h in hooks) == ["timeout", "unavailable"]


def test_intervening_update_makes_the_write_stale_and_the_tool_refuses(retail):
    case = next(
        c
        for t in retail.tasks
        for c in InterveningUpdate().cases_for(retail, t)
        if c.params.tool == "cancel_pending_order"
    )
    oid = case.params.record[1]
    env = retail.new_env()
    executor = InjectingExecutor(env, InterveningUpdate().injections(case, retail, seed=0))
    read = _call(executor, 1, "get_order_details", {"order_id": oid})
    assert json.loads(read.observation)["status"] == "pending"  # the agent saw the old state
    assert read.intervention.action == "update" and read.intervention.effective
    assert env.state.get("orders", oid)["status"] == "processed"
    write = _call(executor, 3, "cancel_pending_order", case.params.arguments)
    assert write.observation.startswith("Error") and not write.write.state_changed


def test_intervening_update_has_no_airline_cases(airline):
    assert not any(InterveningUpdate().cases_for(airline, t) for t in airline.tasks)


def test_stale_policy_replaces_the_confirmation_rule(airline, retail):
    family = StalePolicy()
    for world in (airline, retail):
        case = next(c for t in world.tasks for c in family.cases_for(world, t))
        delivered = family.context_fault(case, world, world.policy)
        assert STALE_POLICY_CLAUSE in delivered
        assert "explicit user confirmation (yes)" in world.policy
        assert "explicit user confirmation (yes)" not in delivered


def test_stale_policy_is_appended_when_no_rule_exists():
    world = load_world("generated", "retail", None, 0)
    case = next(c for t in world.tasks for c in StalePolicy().cases_for(world, t))
    delivered = StalePolicy().context_fault(case, world, world.policy)
    assert delivered.startswith(world.policy.rstrip("\n")) and STALE_POLICY_CLAUSE in delivered


def test_position_and_parameters_name_the_case(retail):
    task = next(
        t for t in retail.tasks if len(TimeoutAfterCommit().cases_for(retail, t, position=1))
    )
    first = TimeoutAfterCommit().cases_for(retail, task)[0]
    second = TimeoutAfterCommit().cases_for(retail, task, position=1, burst=2)[0]
    assert first.case_id.endswith(":TimeoutAfterCommit")
    assert second.case_id.endswith("TimeoutAfterCommit@burst=2@position=1")
    assert second.params.burst == 2 and second.params.position == 1
    writes = [a for a in task.actions if a.name == second.params.tool]
    assert second.params.arguments in [dict(a.kwargs) for a in writes]
    assert second.params.arguments != first.params.arguments


@pytest.mark.parametrize(
    ("text", "state"),
    [
        ("Done: order #W1 is now 'cancelled'.", OutcomeState.VERIFIED),
        ("The system refused the last change (Error: timeout ...).", OutcomeState.REJECTED),
        ("I checked the record, and the change did not take effect.", OutcomeState.NO_EFFECT),
        (
            "I submitted the change, but I could not confirm it. I have flagged it for review.",
            OutcomeState.RECONCILIATION_REQUIRED,
        ),
        ("I could not confirm whether anything changed.", OutcomeState.UNKNOWN),
        ("Could you give me your user id?", None),
    ],
)
def test_claim_classifier(text, state):
    assert classify_claim(text) is state
