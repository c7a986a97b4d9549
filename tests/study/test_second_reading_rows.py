"""The second reading's file format and its reading of the rule rows: an absent unread
count is *not checked* (never 0); how a proposal stands to the rule reading; the judge
model configured once ([second_reader.endpoint], else [oracles.endpoint])."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from sscbench.errors import DataError
from sscbench.study.config_oracles import read_judge_settings
from sscbench.study.rows import MeasurementRow
from sscbench.study.second_reading import (
    Proposal,
    SecondReading,
    compare,
    is_marked,
    read_second_reading,
    unread_of,
    unread_steps_of,
    write_second_reading,
)


def _row(**extra) -> MeasurementRow:
    run = {"run_id": "r", "case_id": "c", "config_id": "a", "repetition": 0, "kind": "faulted"}
    base = {**run, "status": "completed", "T_S": 7, "Z_S": "pre", "A": 1}
    return MeasurementRow.from_line(json.dumps({**base, "T_U": 7, **extra}))


def _reading(**proposals) -> SecondReading:
    return SecondReading(
        run_id="r",
        model="m",
        base_url="http://127.0.0.1:1/v1",
        prompt_sha256="0" * 64,
        unread=1,
        proposals=proposals,
    )


def test_an_absent_unread_count_is_not_checked_never_zero():
    assert unread_of(_row()) is None and not is_marked(_row())
    assert unread_of(_row(unread=0)) == 0 and not is_marked(_row(unread=0))
    marks = [{"step": 3, "kind": "unresolved-mention", "span": "x"}]
    assert is_marked(_row(unread=2, unread_steps=marks))
    assert [m.columns() for m in unread_steps_of(_row(unread=2, unread_steps=marks))] == marks
    assert unread_steps_of(_row()) == []
    with pytest.raises(ValidationError):  # a count that is not a count is refused on read
        _row(unread="many")


def test_each_proposal_stands_to_the_rule_reading():
    ok = {"valid": True}
    reading = _reading(
        T_S=Proposal(value=7, **ok),
        T_U=Proposal(value=9, **ok),
        A=Proposal(value=1, valid=False, problem="its evidence: no quote"),
    )
    assert compare(reading, _row()) == {"T_S": "agrees", "T_U": "disagrees", "A": "invalid"}
    undecided = _row(T_S="undecidable", A=0, T_U="inf")  # an older row: T_U inf is n/a
    none = _reading(
        T_S=Proposal(value=7, **ok),
        T_U=Proposal(value="not-applicable", **ok),
        A=Proposal(value=0, **ok),
    )
    assert compare(none, undecided) == {"T_S": "rules-undecided", "T_U": "agrees", "A": "agrees"}
    assert compare(_reading(), _row()) == {}  # an abstention proposes nothing


def test_the_file_round_trips_and_refuses_a_repeated_run(tmp_path):
    path = tmp_path / "second_reading.jsonl"
    reading = _reading(T_S=Proposal(value="inf", valid=True))
    write_second_reading(path, [reading])
    assert read_second_reading(path) == {"r": reading}
    assert read_second_reading(tmp_path / "absent.jsonl") == {}
    path.write_text(path.read_text() * 2)
    with pytest.raises(DataError, match="repeats line 1"):
        read_second_reading(path)


def test_the_judge_model_is_configured_once(tmp_path):
    config = tmp_path / "study.toml"
    oracles = '[oracles]\nsettings = ["rules"]\n[oracles.endpoint]\nbase_url = "u"\nmodel = "j"\n'
    config.write_text(oracles)
    endpoint, bound = read_judge_settings(config)
    assert endpoint is not None and endpoint.model == "j" and bound == 200
    own = '[second_reader]\nmax_runs = 3\n[second_reader.endpoint]\nbase_url = "v"\nmodel = "k"\n'
    config.write_text(oracles + own)
    endpoint, bound = read_judge_settings(config)
    assert endpoint is not None and endpoint.model == "k" and bound == 3
    config.write_text("[second_reader]\nmax_runs = 0\n")
    with pytest.raises(DataError, match=r"second_reader\.max_runs"):
        read_judge_settings(config)
    config.write_text("[agents]\n")  # no judge model at all
    assert read_judge_settings(config) == (None, 200)
