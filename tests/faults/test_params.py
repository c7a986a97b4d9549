"""The params models of the fault families: typed, frozen, refusing unknown fields, and
written in the wire form of the dicts they replaced (fields given, in the order given)."""

from __future__ import annotations

import pydantic
import pytest

from sscbench.faults.builtin import BUILTIN_FAMILIES
from sscbench.faults.case import Case
from sscbench.faults.identity import BindingLostParams, RebindParams
from sscbench.faults.operators.return_date import ReturnDateParams
from sscbench.faults.params import FaultParams, params_model
from sscbench.faults.write_family import WriteParams

WRITE = {
    "probability": 1,
    "burst": 1,
    "position": 0,
    "tool": "cancel_pending_order",
    "record": ["order", "#W1"],
    "arguments": {"order_id": "#W1"},
}


def test_every_builtin_family_registers_its_own_model():
    for family in BUILTIN_FAMILIES:
        assert params_model(family.name) is family.params_model
        assert family.params_model is not FaultParams  # every family takes parameters
    assert params_model("NoSuchFamily") is FaultParams


def test_a_model_writes_the_fields_given_in_the_order_given():
    p = WriteParams.model_validate(WRITE)
    assert list(p.model_dump()) == list(WRITE)  # defaults left unset stay unwritten
    assert p.model_dump()["probability"] == 1 and isinstance(p.probability, int)  # 1 stays 1
    later = WriteParams.model_validate({"events": 2, **WRITE})
    assert next(iter(later.model_dump())) == "events"


def test_merged_keeps_a_field_in_place_and_puts_a_new_one_last_or_first():
    p = WriteParams.model_validate(WRITE)
    assert list(p.merged(burst=3).model_dump()) == list(WRITE)
    assert p.merged(burst=3).burst == 3 and p.burst == 1  # frozen: a new object
    assert list(p.merged(intensity="burst").model_dump())[-1] == "intensity"
    aged = p.merged(first=True, age=1)
    assert next(iter(aged.model_dump())) == "age" and aged.age == 1
    assert aged.merged(first=True, age=5).age == 1  # a value already given is kept


def test_extended_adds_a_family_s_own_fields_after_the_common_ones():
    p = WriteParams.model_validate(WRITE)
    rebind = p.extended(RebindParams, substitute=("order", "#W2"), owner="u")
    assert isinstance(rebind, RebindParams) and rebind.substitute == ("order", "#W2")
    assert list(rebind.model_dump())[-2:] == ["substitute", "owner"]
    assert rebind.as_model(WriteParams) is rebind  # a subclass is already a WriteParams
    with pytest.raises(pydantic.ValidationError, match="principal"):
        rebind.as_model(BindingLostParams)  # missing: the level's principal


def test_params_are_frozen_and_refuse_unknown_fields():
    p = WriteParams.model_validate(WRITE)
    with pytest.raises(pydantic.ValidationError):
        p.burst = 2  # type: ignore[misc]
    with pytest.raises(pydantic.ValidationError, match="colour"):
        WriteParams.model_validate({**WRITE, "colour": 1})


def test_a_case_validates_a_mapping_against_its_operator_s_model():
    fields = dict(case_id="c", world="w", domain="airline", task_id="t")
    legs = {
        "user_id": "u",
        "reservation_id": "R",
        "return_legs": [2, 3],
        "outbound_date": "2024-05-19",
        "return_date": "2024-05-26",
        "injected_date": "2024-05-17",
    }
    case = Case(operator="ReturnDate", params=legs, **fields)
    assert isinstance(case.params, ReturnDateParams) and case.params.return_legs == (2, 3)
    assert case.model_dump()["params"] == {**legs, "return_legs": (2, 3)}
    with pytest.raises(pydantic.ValidationError, match="ReturnDate parameter 'injected_date'"):
        Case(operator="ReturnDate", params={**legs, "injected_date": 5}, **fields)
    with pytest.raises(pydantic.ValidationError, match="PaySource parameter 'source'"):
        pay = {"user_id": "u", "payment_id": "paypal_1", "source": "paypal"}
        Case(operator="PaySource", params={**pay, "injected_source": "gift_card"}, **fields)
