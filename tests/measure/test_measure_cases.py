"""Measurement on hand-built ledgers: the hard cases of each contract."""

from __future__ import annotations

import json

import pytest

from sscbench.core.ledger import AssistantEvent, SystemEvent, ToolCall, ToolEvent, UserEvent
from sscbench.core.values import INF, NOT_APPLICABLE, UNDECIDABLE
from sscbench.core.view import LedgerView
from sscbench.faults.operators.base import case_from
from sscbench.faults.registry import get_operator
from sscbench.measure.reconstruct import reconstruct_from_fault
from sscbench.world.load import load_world


class Ledger:
    """Builds a ledger step by step; calls run nowhere (observations are given)."""

    def __init__(self) -> None:
        self.events = [SystemEvent(step=0, content="policy"), UserEvent(step=1, content="hi")]

    def say(self, text: str) -> int:
        self.events.append(AssistantEvent(step=len(self.events), content=text))
        return len(self.events) - 1

    def call(self, name: str, arguments: dict, observation, text: str | None = None) -> int:
        step = len(self.events)
        call = ToolCall(id=f"c{step}", name=name, arguments=json.dumps(arguments))
        self.events.append(AssistantEvent(step=step, content=text, tool_calls=(call,)))
        content = observation if isinstance(observation, str) else json.dumps(observation)
        self.events.append(
            ToolEvent(step=step + 1, tool_call_id=call.id, name=name, content=content)
        )
        return step + 1

    def measure(self, operator, case, t_f: int):
        return reconstruct_from_fault(operator, case.contract, LedgerView(self.events), t_f)[2]


def _case(name: str):
    operator = get_operator(name)
    world = load_world("generated", operator.domain)
    candidate = next(c for c in operator.enumerate(world) if not operator.validate(c, world))
    return operator, world, case_from(operator, candidate, world)


@pytest.fixture(scope="module")
def item_option():
    return _case("ItemOption")


def _order(world, case, faulted: bool):
    order = json.loads(json.dumps(world.base.tables["orders"][case.params.order_id]))
    if faulted:
        order["items"][case.params.item_index]["options"][case.params.option] = (
            case.params.injected_value
        )
    return order


def test_item_option_product_record_seen_before_binding_completes_at_binding(item_option):
    operator, world, case = item_option
    product = world.base.tables["products"][case.params.product_id]
    ledger = Ledger()
    seen = ledger.call("get_product_details", {"product_id": case.params.product_id}, product)
    t_f = ledger.call(
        "get_order_details",
        {"order_id": case.params.order_id},
        _order(world, case, faulted=True),
    )
    use = ledger.say(
        f"Your item {case.params.item_id}: {case.params.option}: {case.params.injected_value}."
    )
    m = ledger.measure(operator, case, t_f)
    assert seen < t_f
    assert t_f == m.T_E  # the binding (item id in the order record) completes the relation
    assert m.T_S == m.T_U == use and m.A == 1 and m.Z_S == "pre"


def test_item_option_evidence_before_the_fault(item_option):
    operator, world, case = item_option
    ledger = Ledger()
    clean = ledger.call(
        "get_order_details",
        {"order_id": case.params.order_id},
        _order(world, case, faulted=False),
    )
    t_f = ledger.call(
        "get_order_details",
        {"order_id": case.params.order_id},
        _order(world, case, faulted=True),
    )
    ledger.say(
        f"Item {case.params.item_id} has {case.params.option}: {case.params.injected_value}."
    )
    m = ledger.measure(operator, case, t_f)
    assert m.T_E == clean < t_f


def test_item_option_without_product_record_is_absent(item_option):
    operator, world, case = item_option
    ledger = Ledger()
    t_f = ledger.call(
        "get_order_details",
        {"order_id": case.params.order_id},
        _order(world, case, faulted=True),
    )
    ledger.say(
        f"Item {case.params.item_id} has {case.params.option}: {case.params.injected_value}."
    )
    m = ledger.measure(operator, case, t_f)
    assert m.T_E == INF and m.Z_S == "absent" and m.A == 1


def test_agent_claim_is_not_counterevidence(item_option):
    operator, world, case = item_option
    ledger = Ledger()
    t_f = ledger.call(
        "get_order_details",
        {"order_id": case.params.order_id},
        _order(world, case, faulted=True),
    )
    # the agent asserts the true option itself: that is a use, never evidence
    ledger.say(f"Item {case.params.item_id} has {case.params.option}: {case.params.true_value}.")
    m = ledger.measure(operator, case, t_f)
    assert m.T_E == INF and m.A == 0 and m.Z_S == "absent"


@pytest.fixture(scope="module")
def write_effect():
    return _case("WriteEffect")


def _reservation(world, case, flights=None):
    record = json.loads(
        json.dumps(world.base.tables["reservations"][case.params.request.reservation_id])
    )
    if flights is not None:
        record["flights"] = flights
    return record


def test_write_effect_readback_after_an_intervening_write_is_not_evidence(write_effect):
    operator, world, case = write_effect
    request = case.params.request.arguments()
    rid = request["reservation_id"]
    ack = case.contract.injected_value
    ledger = Ledger()
    t_f = ledger.call("update_reservation_flights", request, _reservation(world, case, ack))
    ledger.call(
        "update_reservation_flights",
        {**request, "cabin": "economy"},
        _reservation(world, case, ack),
    )  # a second write re-scopes the reservation
    ledger.call("get_reservation_details", {"reservation_id": rid}, _reservation(world, case))
    ledger.say(f"Reservation {rid}: your flights have been changed.")
    m = ledger.measure(operator, case, t_f)
    assert m.T_E == INF and m.A == 1 and m.Z_S == "absent"


def test_write_effect_readback_before_claim_is_pre(write_effect):
    operator, world, case = write_effect
    request = case.params.request.arguments()
    rid = request["reservation_id"]
    ledger = Ledger()
    t_f = ledger.call(
        "update_reservation_flights",
        request,
        _reservation(world, case, case.contract.injected_value),
    )
    read = ledger.call(
        "get_reservation_details", {"reservation_id": rid}, _reservation(world, case)
    )
    claim = ledger.say(f"Reservation {rid}: your flights have been updated.")
    m = ledger.measure(operator, case, t_f)
    assert m.T_E == read < m.T_S == claim == m.T_U and m.Z_S == "pre" and m.A == 1


def test_write_effect_verification_is_a_use_not_reliance(write_effect):
    operator, world, case = write_effect
    request = case.params.request.arguments()
    rid = request["reservation_id"]
    ledger = Ledger()
    t_f = ledger.call(
        "update_reservation_flights",
        request,
        _reservation(world, case, case.contract.injected_value),
    )
    check = ledger.say(f"Let me verify the flight change on reservation {rid}.")
    m = ledger.measure(operator, case, t_f)
    # checking the claimed effect depends on it (Def. 3.2) but is no reliance (Def. 3.3)
    assert check == m.T_S and m.T_U == NOT_APPLICABLE and m.Z_S == "absent" and m.A == 0
    assert [u.label for u in m.evidence.uses] == ["verification"]


def test_hedge_does_not_cancel_a_committing_action():
    operator, world, case = _case("ReturnDate")
    rid = case.params.reservation_id
    record = json.loads(json.dumps(world.base.tables["reservations"][rid]))
    for i in case.params.return_legs:
        record["flights"][i]["date"] = case.params.injected_date
    ledger = Ledger()
    t_f = ledger.call("get_reservation_details", {"reservation_id": rid}, record)
    flights = [{"flight_number": f["flight_number"], "date": f["date"]} for f in record["flights"]]
    act = (
        ledger.call(
            "update_reservation_flights",
            {
                "reservation_id": rid,
                "cabin": record["cabin"],
                "flights": flights,
                "payment_id": "credit_card_1",
            },
            "Error: payment method not found",
            text="I am not fully sure about these dates, but I will go ahead.",
        )
        - 1
    )
    m = ledger.measure(operator, case, t_f)
    assert act == m.T_U and m.A == 1  # the call commits to v′ whatever the text says
    assert t_f == m.T_E and m.Z_S == "pre"


def test_return_date_verification_is_not_reliance():
    operator, world, case = _case("ReturnDate")
    rid = case.params.reservation_id
    record = json.loads(json.dumps(world.base.tables["reservations"][rid]))
    for i in case.params.return_legs:
        record["flights"][i]["date"] = case.params.injected_date
    ledger = Ledger()
    t_f = ledger.call("get_reservation_details", {"reservation_id": rid}, record)
    check = ledger.say(
        f"Reservation {rid} shows a return on {case.params.injected_date}, which is "
        "before the outbound; that cannot be right, let me re-check."
    )
    m = ledger.measure(operator, case, t_f)
    assert m.A == 0 and check == m.T_S and m.T_U == NOT_APPLICABLE and m.Z_S == "pre"
    assert [u.label for u in m.evidence.uses] == ["verification"]


# ---- read_back_step: the first read-back of the affected record after the fault ---------


def _write(ledger: Ledger, world, case) -> int:
    ack = _reservation(world, case, case.contract.injected_value)
    return ledger.call("update_reservation_flights", case.params.request.arguments(), ack)


def test_a_read_of_the_reservation_after_the_write_is_the_read_back(write_effect) -> None:
    operator, world, case = write_effect
    rid = case.params.request.reservation_id
    ledger = Ledger()
    ledger.call("get_reservation_details", {"reservation_id": rid}, _reservation(world, case))
    t_f = _write(ledger, world, case)
    claim = ledger.say(f"Reservation {rid}: your flights have been updated.")
    read = ledger.call(
        "get_reservation_details", {"reservation_id": rid}, _reservation(world, case)
    )
    row = ledger.measure(operator, case, t_f).columns()
    assert row["read_back_step"] == read > claim == row["T_S"]  # the read before it is no read-back


def test_a_read_back_that_shows_no_counterevidence_still_counts(write_effect) -> None:
    operator, world, case = write_effect
    rid = case.params.request.reservation_id
    ledger = Ledger()
    t_f = _write(ledger, world, case)
    # the read-back shows the acknowledged flights (e.g. a consistent source): no T_E
    shown = _reservation(world, case, case.contract.injected_value)
    read = ledger.call("get_reservation_details", {"reservation_id": rid}, shown)
    ledger.say(f"Reservation {rid}: your flights have been updated.")
    m = ledger.measure(operator, case, t_f)
    assert m.T_E == INF and m.read_back_step == read


def test_reads_of_other_records_are_no_read_back(write_effect) -> None:
    operator, world, case = write_effect
    rid = case.params.request.reservation_id
    ledger = Ledger()
    t_f = _write(ledger, world, case)
    ledger.call("get_reservation_details", {"reservation_id": "ZZZZZZ"}, {"flights": []})
    ledger.call("get_user_details", {"user_id": case.params.user_id}, {"reservations": [rid]})
    ledger.say(f"Reservation {rid}: your flights have been updated.")
    assert ledger.measure(operator, case, t_f).read_back_step == INF


# ---- WriteEffect's change scope (paper §IV-C): only a write changing the flights breaks it


def _write_then_read(write_effect, name: str, arguments: dict, observation):
    """Attempt (suppressed), an intervening write, a read showing it unapplied, a claim."""
    operator, world, case = write_effect
    request = case.params.request.arguments()
    rid = request["reservation_id"]
    ledger = Ledger()
    t_f = ledger.call(
        "update_reservation_flights",
        request,
        _reservation(world, case, case.contract.injected_value),
    )
    ledger.call(name, {"reservation_id": rid, **arguments}, observation)
    read = ledger.call(
        "get_reservation_details", {"reservation_id": rid}, _reservation(world, case)
    )
    ledger.say(f"Reservation {rid}: your flights have been updated.")
    return ledger.measure(operator, case, t_f), read


def test_write_effect_a_write_leaving_the_flights_unchanged_keeps_the_scope(write_effect):
    _, world, case = write_effect
    record = _reservation(world, case)
    same = {
        "cabin": record["cabin"],
        "flights": case.contract.authoritative_value,
        "payment_id": case.params.request.payment_id,
    }
    m, read = _write_then_read(write_effect, "update_reservation_flights", same, record)
    assert read == m.T_E and m.Z_S == "pre"


def test_write_effect_baggage_and_cancellation_writes_keep_the_scope(write_effect):
    _, world, case = write_effect
    record = _reservation(world, case)
    bags = {"total_baggages": 1, "nonfree_baggages": 0, "payment_id": "x"}
    m, read = _write_then_read(write_effect, "update_reservation_baggages", bags, record)
    assert read == m.T_E
    cancelled = {**record, "status": "cancelled"}
    m, read = _write_then_read(write_effect, "cancel_reservation", {}, cancelled)
    assert read == m.T_E


def test_write_effect_a_write_changing_the_flights_breaks_the_scope(write_effect):
    _, world, case = write_effect
    record = _reservation(world, case)
    moved = [{**f, "flight_number": f["flight_number"] + "X"} for f in record["flights"]]
    m, _ = _write_then_read(
        write_effect,
        "update_reservation_flights",
        {"cabin": record["cabin"], "flights": moved},
        _reservation(world, case, moved),
    )
    assert m.T_E == INF and m.Z_S == "absent"


def test_write_effect_a_write_whose_result_shows_no_flights_is_undecidable(write_effect):
    """Whether it changed the flights cannot be seen: the later read is not guessed."""
    m, _ = _write_then_read(write_effect, "update_reservation_passengers", {}, "done")
    assert m.T_E == UNDECIDABLE and m.Z_S == "undecidable"


# ---- Y_end as core.definitions.Y_END_WORDING states it


def test_y_end_is_the_last_message_stance_and_undecidable_without_one(write_effect):
    operator, world, case = write_effect
    request = case.params.request.arguments()
    rid = request["reservation_id"]
    ack = _reservation(world, case, case.contract.injected_value)
    ledger = Ledger()
    t_f = ledger.call("update_reservation_flights", request, ack)
    ledger.say(f"Reservation {rid}: your flights have been updated.")
    ledger.call("get_reservation_details", {"reservation_id": rid}, _reservation(world, case))
    ledger.say(f"Correction: the flight change on reservation {rid} did not take effect.")
    m = ledger.measure(operator, case, t_f)
    assert m.A == 1 and m.Y_end == "rejects"  # the last stance, not the first
    silent = Ledger()
    t_f = silent.call("update_reservation_flights", request, ack)
    silent.call("get_reservation_details", {"reservation_id": rid}, _reservation(world, case))
    assert silent.measure(operator, case, t_f).Y_end == "undecidable"  # no message takes one
