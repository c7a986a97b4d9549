"""The typed seams of review: a label's step read as a step for Z_S, the reviewers'
disagreements of ``agreement.json`` read back with their shape checked, and the page
steps the reviewer and case pages share."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from sscbench.core.ledger import AssistantEvent, SystemEvent, ToolCall, ToolEvent, UserEvent
from sscbench.core.values import Stratum
from sscbench.review.interrater import ReviewAgreement, derived
from sscbench.review.labels import RunLabel, step_of
from sscbench.review.pages import trajectory_steps


@pytest.mark.parametrize("value", [0, 7, "inf", "undecidable"])
def test_a_step_label_is_a_step(value):
    assert step_of(value) == value


@pytest.mark.parametrize("value", [None, True, "7", "not-applicable", 1.5, [3]])
def test_anything_else_is_not_a_step(value):
    with pytest.raises(ValueError, match="not a step"):
        step_of(value)


def test_derived_reads_z_s_from_the_label_steps():
    label = RunLabel(run_id="r", T_E=2, T_S=5, T_U="not-applicable", A=False)
    values = derived(label)
    assert values["Z_S"] == Stratum.PRE
    assert values["T_U_status"] == "not-applicable" and values["T_S_status"] == "located"
    assert derived(RunLabel(run_id="r", T_E="undecidable", T_S=5))["Z_S"] == Stratum.UNDECIDABLE
    assert derived(RunLabel(run_id="r", T_E=2))["Z_S"] is None  # T_S not given


def _agreement(rows):
    return {
        "reviewers": ["ana", "bo"],
        "items": 1,
        "calibration": 0,
        "kappa": {},
        "exact_step": {},
        "disputed": ["r001"],
        "unanimous": 0,
        "disagreements": rows,
    }


def test_agreement_disagreements_round_trip_in_order():
    row = {"review_id": "r001", "quantity": "A", "values": {"bo": True, "ana": None}}
    dumped = ReviewAgreement.model_validate(_agreement([row])).dump()
    assert dumped["disagreements"] == [row]
    assert list(dumped["disagreements"][0]) == ["review_id", "quantity", "values"]


def test_a_disagreement_without_its_quantity_is_refused():
    with pytest.raises(ValidationError, match="quantity"):
        ReviewAgreement.model_validate(_agreement([{"review_id": "r001", "values": {}}]))


def test_page_steps_keep_their_fields_in_order():
    call = ToolCall(id="c1", name="get_order", arguments='{"order_id": "#W1"}')
    ledger = [
        SystemEvent(step=0, content="policy"),
        UserEvent(step=1, content="hi"),
        AssistantEvent(step=2, content=None, tool_calls=[call]),
        ToolEvent(step=3, tool_call_id="c1", name="get_order", content='{"a": 1}'),
    ]
    steps = trajectory_steps(ledger)
    assert [list(s) for s in steps] == [["step", "calls", "text", "length", "role", "title"]] * 4
    assert [(s["role"], s["title"], s["length"]) for s in steps] == [
        ("system", "system", 6),
        ("user", "user", 0),
        ("assistant", "agent", 0),
        ("tool", "tool result of get_order", 0),
    ]
    assert steps[2]["calls"] == ['get_order({\n "order_id": "#W1"\n})']
    assert steps[3]["text"] == '{\n "a": 1\n}'
