"""The tool-surface families on the read and the refusal — StaleValue, SchemaDrift,
Rejected — on real τ-bench tasks: each activates on (nearly) every task it schedules and
does what its commit semantics say."""

from __future__ import annotations

import json

import pytest

from fault_cases import call_tool, family_cases
from sscbench.agents.scripted.tool_checks import contract_problem
from sscbench.core.injection import InjectingExecutor
from sscbench.faults.catalogue import spec_for
from sscbench.faults.hooks import hook_tag
from sscbench.faults.registry import get_operator
from sscbench.faults.surfaces import activation_note
from sscbench.faults.tool_faults import REJECTED_TEXT, Rejected
from sscbench.faults.tool_reads import (
    PLAUSIBILITY_LEVELS,
    READ_FIELD,
    RENAMED,
    SchemaDrift,
    StaleValue,
    drift_field,
)
from sscbench.faults.typed import Surface, Timing
from sscbench.world.records import READ_TOOLS


def _read(case):
    kind, rid = case.params.record
    read = READ_TOOLS[kind]
    return read.tool, {read.id_argument: rid}


def test_the_families_are_typed_registered_and_carry_commit_semantics():
    for name in ("StaleValue", "SchemaDrift", "Rejected"):
        spec = spec_for(name)
        assert get_operator(name).name == name
        assert spec.surface is Surface.TOOL and spec.expected_barrier and spec.containment
    assert spec_for("Rejected").timing is Timing.BEFORE_CALL  # refused before commit
    assert spec_for("StaleValue").timing is Timing.BEFORE_CALL
    assert (
        activation_note(hook_tag("x:stale"))
        and activation_note(hook_tag("x:drift"))
        and activation_note(hook_tag("x:rejected"))
    )


def test_stale_value_serves_the_old_record_for_age_reads_then_the_current(worlds):
    """Activation ≥ 90% of scheduled, and the age is exactly how many reads lag."""
    scheduled = activated = 0
    for world in worlds:
        for age in (1, 2):
            for case in family_cases(StaleValue, world, age=age)[:30]:
                env = world.new_env()
                executor = InjectingExecutor(env, StaleValue().injections(case, world))
                kind, rid = case.params.record
                table = READ_TOOLS[kind].table
                base = env.state.base.tables[table][rid]
                tool, arguments = _read(case)
                call_tool(
                    executor, 1, "get_user_details", {"user_id": base["user_id"]}
                )  # run start
                current = env.state.get(table, rid)
                assert current != base  # the other actor's update committed
                seen = [
                    json.loads(call_tool(executor, 3 + 2 * i, tool, arguments).observation)
                    for i in range(age + 1)
                ]
                scheduled += 1
                if all(s == base for s in seen[:age]) and seen[age] == current:
                    activated += 1
    assert scheduled >= 60 and activated / scheduled >= 0.9, (activated, scheduled)


def test_stale_value_moves_the_record_on_as_another_actor_would(worlds):
    airline, retail = worlds
    case = family_cases(StaleValue, airline)[0]
    env = airline.new_env()
    executor = InjectingExecutor(env, StaleValue().injections(case, airline))
    out = call_tool(executor, 1, *_read(case))  # the first call is the read itself: still stale
    rid = case.params.record[1]
    assert "status" not in json.loads(out.observation)
    assert env.state.get("reservations", rid)["status"] == "cancelled"
    assert out.intervention.action == "update" and out.intervention.effective
    for case in family_cases(StaleValue, retail)[:20]:
        status = retail.base.tables["orders"][case.params.record[1]]["status"]
        assert status in ("pending", "delivered")


def test_schema_drift_levels_fail_the_contract_checks_they_should(worlds):
    """Level 0 fails a check of names, 1 and 2 only a check of types and domains, and 3
    passes every check: only the plausibility of the payload changes."""
    for world in worlds:
        for case in family_cases(SchemaDrift, world)[:40]:
            kind, rid = case.params.record
            record = world.base.tables[READ_TOOLS[kind].table][rid]
            field = READ_FIELD[case.params.tool]
            assert contract_problem(kind, record, "full") is None  # the clean record passes
            renamed = drift_field(record, field, 0)
            assert field not in renamed and RENAMED[field] in renamed
            assert contract_problem(kind, renamed, "names") == (field, "missing")
            for level in (1, 2):
                drifted = drift_field(record, field, level)
                assert contract_problem(kind, drifted, "names") is None
                assert contract_problem(kind, drifted, "full")[0] == field
            plausible = drift_field(record, field, 3)
            assert plausible[field] != record[field]
            assert contract_problem(kind, plausible, "full") is None
    assert len(PLAUSIBILITY_LEVELS) == 4


def test_every_tau_bench_record_passes_the_contract(worlds):
    """The scripted schema check never fires on a clean record."""
    for world in worlds:
        for kind in ("order", "reservation", "user"):
            table = READ_TOOLS[kind].table
            for record in world.base.tables.get(table, {}).values():
                assert contract_problem(kind, record, "full") is None, (kind, record)


@pytest.mark.parametrize("level", range(4))
def test_schema_drift_hits_every_read_before_the_write_and_none_after(worlds, level):
    scheduled = activated = 0
    for world in worlds:
        for case in family_cases(SchemaDrift, world, plausibility=level)[:30]:
            env = world.new_env()
            executor = InjectingExecutor(env, SchemaDrift().injections(case, world))
            tool, arguments = _read(case)
            field = READ_FIELD[case.params.tool]
            first = call_tool(executor, 1, tool, arguments)
            again = call_tool(executor, 3, tool, arguments)
            scheduled += 1
            clean = (
                json.loads(first.intervention.original_observation) if first.intervention else None
            )
            if (
                first.intervention is not None
                and first.intervention.effective
                and again.intervention is not None
                and json.loads(first.observation) == drift_field(clean, field, level)
            ):
                activated += 1
            call_tool(executor, 5, case.params.tool, case.params.arguments)
            after = call_tool(executor, 7, tool, arguments)
            assert after.intervention is None  # the write's own read-back is the contract's
    assert scheduled >= 40 and activated / scheduled >= 0.9, (activated, scheduled)


def test_rejected_refuses_every_attempt_and_commits_nothing(worlds):
    scheduled = activated = 0
    for world in worlds:
        for case in family_cases(Rejected, world)[:40]:
            env = world.new_env()
            executor = InjectingExecutor(
                env, Rejected().injections(case, world), idempotency_keys=True
            )
            kind, rid = case.params.record
            table = READ_TOOLS[kind].table
            before = env.state.get(table, rid)
            scheduled += 1
            attempts = [
                call_tool(executor, 1 + 2 * i, case.params.tool, case.params.arguments)
                for i in range(3)
            ]
            refused = all(a.observation == REJECTED_TEXT for a in attempts)
            nothing = env.state.get(table, rid) == before and not env.state.changes()
            if refused and nothing and all(a.intervention.effective for a in attempts):
                activated += 1
            assert not any(a.write.state_changed for a in attempts)
    assert scheduled >= 40 and activated / scheduled >= 0.9, (activated, scheduled)
