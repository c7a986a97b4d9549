"""The compound families beyond CompoundTimeoutReadback: registered with their typed
descriptions, enumerated like their parts, and injecting both parts — the stale clause
in the context and the read-back outage or the lost acknowledgement on the write."""

from __future__ import annotations

import json

import pytest

from sscbench.core.injection import InjectingExecutor
from sscbench.faults.behaviours import AckLostToTimeout
from sscbench.faults.catalogue import spec_for
from sscbench.faults.compound import (
    COMPOUND_FAMILIES,
    CompoundStaleReadback,
    CompoundStaleTimeout,
)
from sscbench.faults.families import (
    STALE_POLICY_CLAUSE,
    TIMEOUT_TEXT,
    UNAVAILABLE_TEXT,
    ReadbackUnavailable,
)
from sscbench.faults.registry import family as family_of
from sscbench.faults.registry import get_operator, operator_names, typed_family_names
from sscbench.faults.typed import Surface
from sscbench.world.load import load_world


@pytest.fixture(scope="module")
def retail(taubench):
    return load_world("tau-bench", "retail", taubench)


def _case(family, world, tool="cancel_pending_order"):
    return next(
        c for t in world.tasks for c in family().cases_for(world, t) if c.params.tool == tool
    )


@pytest.mark.parametrize("family", COMPOUND_FAMILIES)
def test_registered_typed_and_in_the_release_table(family):
    assert family.name in operator_names() and family.name in typed_family_names()
    assert get_operator(family.name).name == family.name
    spec = spec_for(family.name)
    assert spec.surface is Surface.CONTEXT and spec.containment.cleanup
    assert "confirmation" in spec.expected_barrier


def test_the_timeout_compound_takes_the_timeout_rules():
    assert AckLostToTimeout in family_of("CompoundStaleTimeout").behaviours
    assert AckLostToTimeout in family_of("CompoundTimeoutReadback").behaviours
    assert AckLostToTimeout not in family_of("CompoundStaleReadback").behaviours


@pytest.mark.parametrize("family", COMPOUND_FAMILIES)
def test_the_context_carries_the_stale_clause(family, retail):
    case = _case(family, retail)
    prompt = family().context_fault(case, retail, retail.policy)
    assert prompt is not None and STALE_POLICY_CLAUSE in prompt and prompt != retail.policy


def test_stale_readback_cases_match_the_readback_family(retail):
    ours = [c.task_id for t in retail.tasks for c in CompoundStaleReadback().cases_for(retail, t)]
    parts = [c.task_id for t in retail.tasks for c in ReadbackUnavailable().cases_for(retail, t)]
    assert ours and ours == parts


def _call(executor, step, name, arguments):
    return executor.execute(step, f"c{step}", name, json.dumps(arguments))


def test_stale_readback_fails_the_read_of_the_written_record(retail):
    case = _case(CompoundStaleReadback, retail)
    oid = case.params.record[1]
    executor = InjectingExecutor(
        retail.new_env(), CompoundStaleReadback().injections(case, retail, seed=0)
    )
    before = _call(executor, 1, "get_order_details", {"order_id": oid})
    assert before.observation != UNAVAILABLE_TEXT  # not yet written: the read is served
    write = _call(executor, 3, "cancel_pending_order", case.params.arguments)
    assert write.write.state_changed and not write.observation.startswith("Error")
    after = _call(executor, 5, "get_order_details", {"order_id": oid})
    assert after.observation == UNAVAILABLE_TEXT


def test_stale_timeout_loses_the_acknowledgement_of_a_committed_write(retail):
    case = _case(CompoundStaleTimeout, retail)
    env = retail.new_env()
    executor = InjectingExecutor(env, CompoundStaleTimeout().injections(case, retail, seed=0))
    write = _call(executor, 1, "cancel_pending_order", case.params.arguments)
    assert write.observation == TIMEOUT_TEXT and write.write.state_changed
    assert env.state.get("orders", case.params.record[1])["status"] == "cancelled"
