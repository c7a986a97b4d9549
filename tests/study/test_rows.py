"""Measurement rows as models keep the file's JSON, and a Study reads a folder once."""

from __future__ import annotations

import json

from sscbench.core.values import INF, Stratum
from sscbench.study.folder import StudyDir
from sscbench.study.rows import MeasurementRow, read_measurements
from sscbench.study.study import Study


def test_every_row_reads_back_to_its_own_line(tiny_study):
    lines = (tiny_study / "measurements.jsonl").read_text("utf-8").splitlines(keepends=True)
    rows = read_measurements(tiny_study / "measurements.jsonl")
    assert [row.line() for row in rows] == lines
    kinds = {row.kind for row in rows}
    assert kinds == {"clean", "faulted"}


def test_a_made_row_writes_the_json_of_exactly_its_values():
    values = {
        "run_id": "r",
        "case_id": "c",
        "kind": "faulted",
        "reward": 1,  # kept as given: no coercion on the writing side
        "triggered": True,
        "T_F": 3,
        "T_E": INF,
        "Z_S": Stratum.ABSENT,
        "A": 0,
    }
    row = MeasurementRow.of(values)
    assert row.line() == json.dumps(values) + "\n"
    assert row.Z_S == "absent" and row.T_S is None
    assert row.has("T_E") and not row.has("T_S")


def test_older_rows_read_their_reliance_step_as_meant():
    row = MeasurementRow.model_validate({"run_id": "r", "A": 0, "T_U": "inf"})
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
