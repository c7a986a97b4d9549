"""The scripted agents' narrowing readers and use labels keep the behaviour of the code
they replaced: a faulted (retyped) field reads as it did, a label keeps its key order."""

from __future__ import annotations

import json

import pytest

from sscbench.agents.scripted.labels import Use, final_stance, finish_use
from sscbench.agents.scripted.phrases import NO_EXPECTED
from sscbench.agents.scripted_facts import Obs, as_list, fields, length, objects
from sscbench.json_types import JsonValue


def test_fields_reads_a_missing_or_empty_value_as_no_fields() -> None:
    record = {"zip": "12345"}
    assert fields(record) is record
    assert fields(None) == {} and fields("") == {} and fields([]) == {}


@pytest.mark.parametrize("value", ["[1, 2]", [1], 3])
def test_fields_of_a_retyped_value_fails_as_reading_its_field_did(value: JsonValue) -> None:
    with pytest.raises(AttributeError):
        fields(value)


@pytest.mark.parametrize(
    ("value", "size"),
    [(None, 0), ([], 0), ([{"a": 1}, 2], 2), ({"a": 1}, 1), ('[{"first_name": "A"}]', 21)],
)
def test_length_is_the_length_the_old_code_took(value: JsonValue, size: int) -> None:
    assert length(value) == size


def test_length_of_a_number_fails_as_len_does() -> None:
    with pytest.raises(TypeError):
        length(7)


def test_objects_and_lists_skip_what_is_not_their_shape() -> None:
    assert objects([{"a": 1}, "x", 2, {"b": 2}]) == [{"a": 1}, {"b": 2}]
    assert objects('[{"a": 1}]') == [] and objects({"a": 1}) == []
    assert as_list({"a": 1}) == [] and as_list([1, "x"]) == [1, "x"]


def test_an_observation_parses_once_and_reads_as_an_object_or_nothing() -> None:
    obs = Obs(3, "call_1", "get_user_details", {"user_id": "u"}, '{"user_id": "u"}')
    assert obs.record == {"user_id": "u"} and obs.data is obs.data
    assert Obs(3, "c", "n", {}, "[1, 2]").record == {}
    assert Obs(3, "c", "n", {}, "Error: no such user").data is None


def test_a_use_label_keeps_its_key_order_and_drops_the_private_fields() -> None:
    writes = [{"took_effect": False}]
    used = finish_use(Use("reservation:R1:cabin", "economy", 4, expected="business"), writes)
    written = finish_use(Use("write:R1:t", "applied", 6, attempt=1, write=0), writes)
    plain = finish_use(Use("payment:p:category", "gift_card", 5, kind="verify"), writes)
    assert list(used.label()) == [
        "step",
        "fact",
        "value",
        "source_step",
        "kind",
        "value_is_injected",
        "relied_on_injected",
    ]
    assert written.label()["attempt"] == 1 and written.injected is True
    assert used.injected is True and plain.expected is NO_EXPECTED and plain.injected is None
    assert plain.label()["relied_on_injected"] is False
    stance = final_stance([used, written, plain])
    assert stance == {
        "reservation:R1:cabin": "endorses",
        "write:R1:t": "endorses",
        "payment:p:category": "endorses",
    }
    json.dumps([u.label() for u in (used, written, plain)])  # labels are JSON
