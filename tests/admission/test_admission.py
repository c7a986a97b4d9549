"""Operators, candidates and admission: witnesses replay, invalid mutations are refused."""

from __future__ import annotations

import json

import pytest

from sscbench.admission.funnel import admit
from sscbench.admission.order import cluster_cycle
from sscbench.admission.witness import replay_witness
from sscbench.core.injection import InjectingExecutor
from sscbench.core.view import LedgerView
from sscbench.faults.case import Candidate
from sscbench.faults.registry import get_operator
from sscbench.measure.reconstruct import reconstruct_from_fault
from sscbench.world.load import load_world

OPERATORS = ("ReturnDate", "ItemOption", "PaySource", "WriteEffect")


def _admitted(source: str, data, per_operator: int):
    out = []
    for name in OPERATORS:
        operator = get_operator(name)
        world = load_world(source, operator.domain, data)
        _, cases, funnel, _ = admit(operator, world, per_operator)
        out.append((operator, world, cases, funnel))
    return out


def _check_witnesses(admitted) -> int:
    checked = 0
    for operator, world, cases, _ in admitted:
        for case in cases:
            ledger, fault = replay_witness(case, world)
            assert fault == case.context.fault_step, case.case_id
            stored = [
                json.dumps(e, sort_keys=True)
                for e in case.context.prefix + case.witness.continuation
            ]
            again = [json.dumps(e.model_dump(mode="json"), sort_keys=True) for e in ledger]
            assert again == stored, case.case_id  # the same observations are delivered again
            _, _, m = reconstruct_from_fault(operator, case.contract, LedgerView(ledger), fault)
            assert isinstance(m.T_E, int) and isinstance(m.T_S, int), (case.case_id, m.columns())
            assert m.T_E < m.T_S == case.witness.first_use_step, (case.case_id, m.columns())
            assert all(p.source != "missing" for p in case.witness.provenance)
            checked += 1
    return checked


def test_every_admitted_taubench_witness_replays_with_evidence_before_use(taubench):
    admitted = _admitted("tau-bench", taubench, 30)
    assert [f.admitted for *_, f in admitted] == [30, 30, 30, 30]
    assert _check_witnesses(admitted) == 120


def test_generated_world_witnesses_replay():
    admitted = _admitted("generated", None, 30)
    assert all(f.admitted > 0 for *_, f in admitted)
    assert _check_witnesses(admitted) == sum(f.admitted for *_, f in admitted)


def test_candidates_have_stable_ids_and_frozen_order():
    operator = get_operator("WriteEffect")
    world = load_world("generated", "airline")
    first = [c.candidate_id for c in operator.enumerate(world)]
    again = [c.candidate_id for c in operator.enumerate(load_world("generated", "airline"))]
    assert first == again and len(set(first)) == len(first)


def test_cluster_cycle_visits_every_cluster_before_repeating():
    cands = [
        Candidate(
            candidate_id=str(i), operator="x", world="w", domain="d", task_id="t", cluster=c, rank=i
        )
        for i, c in enumerate("aabbbc")
    ]
    assert [c.cluster for c in cluster_cycle(cands)] == list("abcabb")


def _valid(name: str, world):
    operator = get_operator(name)
    return operator, next(c for c in operator.enumerate(world) if not operator.validate(c, world))


def test_return_date_not_preceding_outbound_is_refused():
    world = load_world("generated", "airline")
    operator, candidate = _valid("ReturnDate", world)
    late = candidate.model_copy(
        update={"params": candidate.params.merged(injected_date="2024-06-30")}
    )
    assert "ReturnDate mutation does not precede the outbound leg" in operator.validate(late, world)


def test_item_option_value_that_is_no_variant_is_refused():
    world = load_world("generated", "retail")
    operator, candidate = _valid("ItemOption", world)
    key = candidate.params.option
    bogus = {**candidate.params.injected_options, key: "no-such-value"}
    bad = candidate.model_copy(update={"params": candidate.params.merged(injected_options=bogus)})
    assert "ItemOption value is no variant of the product" in operator.validate(bad, world)


def test_write_effect_acknowledgement_equals_a_real_commit():
    from sscbench.faults.operators.base import case_from

    world = load_world("generated", "airline")
    operator, candidate = _valid("WriteEffect", world)
    case = case_from(operator, candidate, world)
    env = world.new_env()
    executor = InjectingExecutor(env, operator.injections(case, world))
    request = json.dumps(candidate.params.request.arguments())
    execution = executor.execute(1, "c1", "update_reservation_flights", request)
    assert execution.intervention is not None and execution.intervention.effective
    assert env.state.changes() == {}  # suppressed: nothing committed
    assert operator.acknowledgement_matches_commit(case, world, execution.observation)
    tampered = execution.observation.replace('"cabin"', '"cabin_class"')
    assert not operator.acknowledgement_matches_commit(case, world, tampered)


@pytest.mark.parametrize("name", OPERATORS)
def test_invalid_candidates_carry_reasons(name):
    operator = get_operator(name)
    world = load_world("generated", operator.domain)
    _, _, funnel, reasons = admit(operator, world, 5)
    assert funnel.enumerated >= funnel.valid >= funnel.admitted
    assert all(r.startswith(("invalid: ", "unresolved: ")) for r in reasons.values())
