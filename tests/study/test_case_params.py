"""Reading ``cases.jsonl``: a case's parameters are validated against the params model
its operator names, and a bad parameter is refused naming the file, the line and the
field; a good file is written back byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sscbench.errors import DataError
from sscbench.study.cases import read_cases

RETURN_DATE = {
    "case_id": "w/airline:t:ReturnDate:R1",
    "operator": "ReturnDate",
    "world": "w",
    "domain": "airline",
    "task_id": "t",
    "max_steps": 60,
    "params": {
        "user_id": "u",
        "reservation_id": "R1",
        "return_legs": [2, 3],
        "outbound_date": "2024-05-19",
        "return_date": "2024-05-26",
        "injected_date": "2024-05-17",
    },
}
TYPED = {
    "case_id": "w:t:StaleValue",
    "operator": "StaleValue",
    "world": "w",
    "domain": "retail",
    "task_id": "t",
    "max_steps": 40,
    # the wire order of a typed family: `age` first, then the study's parameters
    "params": {
        "age": 1,
        "probability": 1.0,
        "burst": 1,
        "position": 0,
        "tool": "cancel_pending_order",
        "record": ["order", "#W1"],
        "arguments": {"order_id": "#W1", "reason": "no longer needed"},
        "intensity": "age",
    },
}


def _write(tmp_path: Path, *cases: dict) -> Path:
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(c, separators=(",", ":")) + "\n" for c in cases))
    return path


def _with(case: dict, **params: object) -> dict:
    return {**case, "params": {**case["params"], **params}}


def test_a_good_file_reads_typed_and_writes_back_the_same_bytes(tmp_path):
    path = _write(tmp_path, RETURN_DATE, TYPED)
    cases = read_cases(path)
    assert cases[0].params.return_legs == (2, 3)  # a list of ids is a tuple in the model
    assert cases[1].params.record == ("order", "#W1")
    for case, line in zip(cases, (RETURN_DATE, TYPED), strict=True):
        assert case.params.model_dump_json() == json.dumps(line["params"], separators=(",", ":"))
    assert read_cases(_write(tmp_path, *(c.model_dump() for c in cases))) == cases


@pytest.mark.parametrize(
    ("line", "field", "reason"),
    [
        (_with(RETURN_DATE, colour="red"), "'colour'", "Extra inputs are not permitted"),
        (
            {
                **RETURN_DATE,
                "params": {k: v for k, v in RETURN_DATE["params"].items() if k != "injected_date"},
            },
            "'injected_date'",
            "Field required",
        ),
        (_with(RETURN_DATE, return_legs="2,3"), "'return_legs'", "valid tuple"),
        (_with(TYPED, record=["order"]), "'record.1'", "Field required"),
        (_with(TYPED, intensity="colour"), "'intensity'", "'probability'"),
        (_with(TYPED, probability="often"), "'probability", "valid number"),
    ],
)
def test_a_bad_parameter_is_refused_naming_the_file_line_and_field(tmp_path, line, field, reason):
    path = _write(tmp_path, RETURN_DATE, line)
    with pytest.raises(DataError) as caught:
        read_cases(path)
    message = str(caught.value)
    assert str(path) in message and "line 2" in message
    assert f"params: {line['operator']} parameter {field}" in message
    assert reason in message


def test_an_operator_no_family_registered_takes_no_parameters(tmp_path):
    path = _write(tmp_path, {**RETURN_DATE, "operator": "NoSuchFamily"})
    with pytest.raises(DataError, match="NoSuchFamily parameter 'user_id'"):
        read_cases(path)
