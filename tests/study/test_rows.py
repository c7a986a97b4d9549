"""Measurement rows as models keep the file's JSON, and a Study reads a folder once."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from sscbench.core.values import INF, Stance, Stratum
from sscbench.study.folder import StudyDir
from sscbench.study.rows import Measurement, MeasurementRow, RunColumns, read_measurements
from sscbench.study.study import Study


def test_every_row_reads_back_to_its_own_line(tiny_study):
    lines = (tiny_study / "measurements.jsonl").read_text("utf-8").splitlines(keepends=True)
    rows = read_measurements(tiny_study / "measurements.jsonl")
    assert [row.line() for row in rows] == lines
    kinds = {row.kind for row in rows}
    assert kinds == {"clean", "faulted"}


RUN = {"run_id": "r", "case_id": "c", "config_id": "a", "repetition": 0}


def test_a_made_row_writes_the_json_of_exactly_its_columns():
    values = {
        **RUN,
        "kind": "faulted",
        "reward": 1.0,
        "triggered": True,
        "T_F": 3,
        "T_E": INF,
        "Z_S": "absent",
        "A": 0,
        "Y_end": "rejects",
    }
    row = MeasurementRow.of(values)
    assert row.line() == json.dumps(values) + "\n"
    assert row.Z_S is Stratum.ABSENT and row.Y_end is Stance.REJECTS and row.T_S is None
    assert row.has("T_E") and not row.has("T_S")


def test_a_row_is_made_of_valid_columns_only():
    with pytest.raises(ValueError, match="no column extra"):
        MeasurementRow.of({**RUN, "extra": 1})
    for column, value in [("Z_S", "sideways"), ("A", 2), ("Y_end", "maybe"), ("T_E", "soon")]:
        with pytest.raises(ValidationError):
            MeasurementRow.of({**RUN, column: value})
    for missing in ("run_id", "kind", "status", "Z_S"):  # required on read
        line = {**RUN, "kind": "clean", "status": "completed", "Z_S": "clean"}
        del line[missing]
        with pytest.raises(ValidationError):
            MeasurementRow.from_line(json.dumps(line))


def test_a_row_keeps_its_run_and_measurement_in_the_file_order():
    run = RunColumns(**RUN, kind="faulted", status="completed", reward=0.0)
    measured = Measurement(triggered=False, T_F=None, Z_S=Stratum.NOT_TRIGGERED, unread=0)
    row = MeasurementRow.of_run(run, measured)
    assert list(row.columns()) == [
        *RUN,
        "kind",
        "status",
        "reward",
        "triggered",
        "T_F",
        "Z_S",
        "unread",
    ]
    assert MeasurementRow.from_line(row.line()).line() == row.line()


def test_older_rows_read_their_reliance_step_as_meant():
    line = {**RUN, "kind": "faulted", "status": "completed", "Z_S": "pre", "A": 0, "T_U": "inf"}
    row = MeasurementRow.model_validate(line)
    assert row.reliance_step() == "not-applicable"


def test_a_study_is_read_once_and_passed_along(tiny_study):
    study = Study.require(tiny_study)
    assert Study.of(study) is study
    assert [e.run_id for e in study.entries] == [
        e.run_id for e in StudyDir(tiny_study).read_index()
    ]
    assert study.entries is study.entries  # loaded once
    assert study.marker["sscbench_study"]
    assert set(study.measurements) == set(study.entries_by_run)
    faulted = next(e for e in study.entries if e.kind == "faulted" and e.status == "completed")
    assert study.cases[faulted.case_id].case_id == faulted.case_id
    assert study.ledger(faulted.run_id)
    assert study.config.world.domains
    assert set(study.worlds) == set(study.config.world.domains)
