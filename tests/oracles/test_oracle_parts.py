"""The oracle parts on their own: strict answer parsing, prompts, the registry and its
entry-point group, invariant mining and checking, the step-only divergence."""

from __future__ import annotations

import json
from importlib.metadata import EntryPoint

import pytest

from sscbench.core.ledger import AssistantEvent, SystemEvent, ToolCall, ToolEvent, UserEvent
from sscbench.core.view import LedgerView
from sscbench.faults.contract import FaultContract
from sscbench.oracles import registry
from sscbench.oracles.base import OracleContext, OracleSettings, Verdict
from sscbench.oracles.cross_record import mine_relations
from sscbench.oracles.invariants import mine, violations
from sscbench.oracles.prompts import build_messages, parse_answer
from sscbench.oracles.step_only import first_divergence
from sscbench.world.state import BaseData, WorldState

STEPS = {0, 1, 2, 5, 9}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"adopted": true, "t_u": 5, "reason": "r"}', (True, 5, "r")),
        ('  {"adopted": false, "t_u": null}\n', (False, None, "")),
        ('```json\n{"adopted": true, "t_u": null, "reason": "x"}\n```', (True, None, "x")),
    ],
)
def test_strict_answers_that_parse(text, expected):
    assert parse_answer(text, STEPS) == expected


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("The agent adopted it.", "not a JSON object"),
        ('Sure! {"adopted": true, "t_u": 5}', "not a JSON object"),  # no extraction from prose
        ('["adopted"]', "not a JSON object but list"),
        ('{"adopted": "yes", "t_u": 5}', "adopted must be true or false"),
        ('{"adopted": true, "t_u": 4}', "no step of the trajectory"),
        ('{"adopted": false, "t_u": 5}', "although adopted is false"),
        ('{"adopted": true, "t_u": true}', "t_u must be a step number"),
        ('{"adopted": true, "t_u": 5, "confidence": 0.9}', "expected the keys"),
        ('{"t_u": 5}', "expected the keys"),
    ],
)
def test_answers_that_do_not_parse_say_why(text, problem):
    with pytest.raises(ValueError, match=problem):
        parse_answer(text, STEPS)


CONTRACT = FaultContract.model_validate(
    {
        "operator": "ReturnDate",
        "structure": "co-delivered",
        "target": {"entity_type": "reservation", "entity_id": "ABC123", "attribute": "return_date"},
        "fault_interaction": {
            "tool": "get_reservation_details",
            "match": {"reservation_id": "ABC123"},
        },
        "injected_value": "2024-05-26",
        "authoritative_value": "2024-05-30",
        "basis": "the outbound leg",
        "sufficiency": {
            "relation": "round-trip-order",
            "semantics": "a return follows its outbound",
        },
    }
)


def _call(step, name, arguments, call_id="c1"):
    return AssistantEvent(
        step=step, tool_calls=(ToolCall(id=call_id, name=name, arguments=json.dumps(arguments)),)
    )


def _obs(step, name, content, call_id="c1"):
    return ToolEvent(step=step, tool_call_id=call_id, name=name, content=json.dumps(content))


LEDGER = [
    SystemEvent(step=0, content="policy"),
    UserEvent(step=1, content="change my return"),
    _call(2, "get_order_details", {"order_id": "#O1"}),
    _obs(3, "get_order_details", {"order_id": "#O1", "status": "delivered",
                                   "items": [{"product_id": "P1", "item_id": "I1", "options": {"color": "red"}}]}),
    AssistantEvent(step=4, content="Your red item."),
]  # fmt: skip


def test_l0_prompt_has_no_contract_and_l1_adds_it():
    view = LedgerView(LEDGER)
    l0 = build_messages(view, [{"name": "t"}], "POLICY TEXT", None)
    l1 = build_messages(view, [{"name": "t"}], "POLICY TEXT", CONTRACT)
    assert "POLICY TEXT" in l0[1]["content"] and "[4] assistant: Your red item." in l0[1]["content"]
    assert "2024-05-26" not in l0[1]["content"] and "Fault contract" not in l0[1]["content"]
    assert 'false value v\': "2024-05-26"' in l1[1]["content"]
    assert "refuting relation: round-trip-order (a return follows its outbound)" in l1[1]["content"]
    assert l0[0]["content"] != l1[0]["content"]


def _tables(color="red", status="delivered"):
    return {
        "orders": {"#O1": {"order_id": "#O1", "status": status,
                           "items": [{"product_id": "P1", "item_id": "I1", "options": {"color": color}}]}},
        "products": {"P1": {"product_id": "P1", "variants": {"I1": {"item_id": "I1", "options": {"color": "red"}},
                                                             "I2": {"item_id": "I2", "options": {"color": "blue"}}}}},
    }  # fmt: skip


def _state(base, status=None):
    state = WorldState(base)
    if status is not None:
        state.edit("orders", "#O1")["status"] = status
    return state


def test_invariants_unchanged_final_and_cross_record():
    base = BaseData(_tables())
    finals = [_state(base, "exchange requested"), _state(base, "exchange requested")]
    rules = mine(("orders", "#O1"), finals)
    assert rules.unchanged[("items", 0, "options", "color")] == "red"
    assert rules.final[("status",)] == "exchange requested"
    assert (
        "orders",
        ("items", "*"),
        "product_id",
        "item_id",
        "products",
        ("options", "color"),
    ) in rules.relations
    # two clean runs that end differently leave the field without an invariant
    split = mine(("orders", "#O1"), [_state(base, "cancelled"), _state(base, "exchange requested")])
    assert ("status",) not in split.final and ("status",) not in split.unchanged


def test_a_violation_is_found_at_the_first_observation_showing_it():
    base = BaseData(_tables())
    states = [_state(base, "exchange requested")]
    faulted = [*LEDGER[:3], _obs(3, "get_order_details", _tables(color="blue")["orders"]["#O1"])]
    found, checked = violations(faulted, states, write_tools=set())
    kinds = {v.kind for v in found}
    assert {"unchanged", "cross-record (products)"} <= kinds and all(v.step == 3 for v in found)
    assert checked > 0
    # the true option: no alarm but the final one (this run never writes, every clean run did)
    assert [v.kind for v in violations(LEDGER, states, write_tools=set())[0]] == ["final"]
    assert violations(LEDGER, [_state(base)], write_tools=set())[0] == []


def test_final_invariants_only_count_after_the_last_write():
    base = BaseData(_tables())
    states = [_state(base, "exchange requested")]
    before_write = [*LEDGER, _call(5, "exchange", {"order_id": "#O1"}, "c2"),
                    _obs(6, "exchange", "done", "c2")]  # fmt: skip
    assert violations(before_write, states, write_tools={"exchange"})[0] == []
    read_back = [*before_write, _call(7, "get_order_details", {"order_id": "#O1"}, "c3"),
                 _obs(8, "get_order_details", _tables()["orders"]["#O1"], "c3")]  # fmt: skip
    found, _ = violations(read_back, states, write_tools={"exchange"})
    assert [(v.kind, v.step, v.observed) for v in found] == [("final", 8, "delivered")]


def test_cross_record_relations_break_when_an_instance_disagrees():
    base = BaseData(_tables(color="blue"))  # the order item disagrees with its variant already
    assert mine_relations("orders", "#O1", [WorldState(base)]) == {
        r
        for r in mine_relations("orders", "#O1", [WorldState(base)])
        if r[-1] != ("options", "color")
    }


def test_step_only_divergence_is_the_first_differing_observation():
    clean = LEDGER
    faulted = [*LEDGER[:3], _obs(3, "get_order_details", {"order_id": "#O1", "status": "x"})]
    assert first_divergence(faulted, clean) == 3
    assert first_divergence(clean, clean) is None
    longer = [*LEDGER, _call(5, "t", {}, "c9"), _obs(6, "t", "ok", "c9")]
    assert first_divergence(longer, clean) == 6  # the clean run never saw a 2nd observation


class AlwaysAdopted:
    """A user's oracle, loaded through the entry-point group."""

    name = "always"
    context = "nothing but the run id"
    gives_adoption = True

    def __init__(self, settings: OracleSettings):
        self.settings = settings

    def judge(self, run: OracleContext) -> Verdict:
        return Verdict(run_id=run.run_id, adopted=True, reason="always")

    def close(self) -> None:
        pass


def test_an_oracle_registered_by_entry_point(monkeypatch):
    entry = EntryPoint(
        name="always", value=f"{__name__}:AlwaysAdopted", group=registry.ENTRY_POINT_GROUP
    )
    monkeypatch.setattr(
        registry,
        "entry_points",
        lambda group: [entry] if group == registry.ENTRY_POINT_GROUP else [],
    )
    monkeypatch.setattr(registry, "_LOADED", False)
    monkeypatch.setattr(registry, "_FACTORIES", {})
    assert set(registry.oracle_names()) == {
        "always",
        "rules",
        "llm-l0",
        "llm-l1",
        "invariants",
        "step-only",
        "anomaly-judge",
        "attribution-all-at-once",
        "attribution-step-by-step",
    }
    oracle = registry.make_oracle("always", OracleSettings())
    assert isinstance(oracle, AlwaysAdopted)
    with pytest.raises(KeyError, match="unknown oracle 'nope'; known: always"):
        registry.make_oracle("nope", OracleSettings())
    with pytest.raises(ValueError, match="letters, digits"):
        registry.register_oracle("../evil", lambda s: oracle)
    registry.register_oracle("broken", lambda s: object())
    with pytest.raises(TypeError, match="lacks name"):
        registry.make_oracle("broken", OracleSettings())
