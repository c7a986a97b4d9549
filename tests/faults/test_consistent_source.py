"""The contradiction-relation variant at the execution point: ItemOption's product record
and WriteEffect's read-back made consistent with the injected assertion, without ever
changing the state."""

from __future__ import annotations

import json

import pytest

from sscbench.admission.funnel import admit
from sscbench.core.injection import InjectingExecutor
from sscbench.faults.operators.item_option import ItemOption
from sscbench.faults.operators.write_effect import WriteEffect
from sscbench.faults.registry import consistent_source_hooks, get_operator


@pytest.fixture(scope="module")
def item_case(taubench_worlds):
    return admit(ItemOption(), taubench_worlds["retail"], 2)[1][0]


@pytest.fixture(scope="module")
def effect_case(taubench_worlds):
    return admit(WriteEffect(), taubench_worlds["airline"], 2)[1][0]


def _call(executor, step, name, arguments):
    return executor.execute(step, f"c{step}", name, json.dumps(arguments))


def test_product_record_agrees_with_the_injected_option(taubench_worlds, item_case):
    world, p = taubench_worlds["retail"], item_case.params
    env = world.new_env()
    hooks = consistent_source_hooks(ItemOption(), item_case, world)
    executor = InjectingExecutor(env, [*hooks, *ItemOption().injections(item_case, world)])
    before = env.db_hash()
    for step in (1, 3):  # every product read, not only the first
        shown = json.loads(
            _call(executor, step, "get_product_details", {"product_id": p.product_id}).observation
        )
        assert shown["variants"][p.item_id]["options"] == p.injected_options
    order = json.loads(
        _call(executor, 5, "get_order_details", {"order_id": p.order_id}).observation
    )
    item = order["items"][p.item_index]
    assert item["options"][p.option] == p.injected_value  # the fault itself, as before
    assert env.db_hash() == before
    true = world.base.tables["products"][p.product_id]["variants"][p.item_id]["options"]
    assert true[p.option] == p.true_value  # the world still holds v


def test_read_back_shows_the_acknowledged_record_only_after_the_attempt(
    taubench_worlds, effect_case
):
    world = taubench_worlds["airline"]
    request = effect_case.params.request.arguments()
    rid = effect_case.params.request.reservation_id
    env = world.new_env()
    hooks = consistent_source_hooks(WriteEffect(), effect_case, world)
    executor = InjectingExecutor(env, [*hooks, *WriteEffect().injections(effect_case, world)])
    original = _call(executor, 1, "get_reservation_details", {"reservation_id": rid})
    assert original.intervention is None  # before the attempt: the record as it is
    before = env.db_hash()
    ack = _call(executor, 3, "update_reservation_flights", request)
    assert ack.intervention is not None and ack.intervention.action == "suppress"
    assert env.db_hash() == before  # suppressed: nothing committed
    back = _call(executor, 5, "get_reservation_details", {"reservation_id": rid})
    assert json.loads(back.observation) == json.loads(ack.observation)  # agrees with the ack
    assert json.loads(back.observation) != json.loads(original.observation)
    assert env.db_hash() == before
    # a later change to another field shows on top of the acknowledged change
    env.state.edit("reservations", rid)["total_baggages"] = 7
    moved = json.loads(
        _call(executor, 7, "get_reservation_details", {"reservation_id": rid}).observation
    )
    assert moved["total_baggages"] == 7
    assert moved["flights"] == json.loads(ack.observation)["flights"]


def test_operators_without_the_variant_are_refused():
    with pytest.raises(TypeError, match="no consistent source"):
        consistent_source_hooks(get_operator("TimeoutAfterCommit"), None, None)
