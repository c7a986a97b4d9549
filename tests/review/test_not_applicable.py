"""T_U "not applicable" in review labels: stored as the measurement writes it, read back
from files that spelt it ∞, and compared as a value of its own (n/a agrees only with n/a)."""

from __future__ import annotations

import json

from sscbench.review.agreement import compare, measured_value
from sscbench.review.interrater import block, derived
from sscbench.review.labels import RunLabel, read_labels
from sscbench.study.rows import MeasurementRow


def _labels(tmp_path, *rows):
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return read_labels(path)


def test_not_applicable_is_stored_and_old_inf_of_a_non_adopter_reads_as_it(tmp_path):
    new, old, adopted, unknown = _labels(
        tmp_path,
        {"run_id": "a", "A": False, "T_U": "not-applicable"},
        {"run_id": "b", "A": False, "T_U": "inf"},  # written before labels had n/a
        {"run_id": "c", "A": True, "T_U": "inf"},  # contradictory: kept as written
        {"run_id": "d", "T_U": "inf"},
    )
    assert new.T_U == "not-applicable"
    assert json.loads(new.line())["T_U"] == "not-applicable"  # not rewritten to "inf"
    assert old.T_U == "not-applicable"
    assert adopted.T_U == "inf" and unknown.T_U == "inf"


def _row(**fields):
    values = {"run_id": "r", "triggered": True, "T_F": 2, "operator": "WriteEffect", **fields}
    return MeasurementRow.of(values)


def test_measured_value_keeps_not_applicable_and_upgrades_old_rows():
    assert measured_value(_row(A=0, T_U="not-applicable"), "T_U") == "not-applicable"
    assert measured_value(_row(A=0, T_U="inf"), "T_U") == "not-applicable"  # pre-n/a row
    assert measured_value(_row(A=1, T_U=7), "T_U") == 7


def test_agreement_compares_not_applicable_as_a_value():
    labels = {
        "same": RunLabel(run_id="same", A=True, T_U="not-applicable"),
        "step": RunLabel(run_id="step", A=True, T_U=6),
        "inf": RunLabel(run_id="inf", A=True, T_U="inf"),
    }
    rows = {
        "same": _row(run_id="same", A=0, T_U="not-applicable"),
        "step": _row(run_id="step", A=0, T_U="not-applicable"),
        "inf": _row(run_id="inf", A=0, T_U="not-applicable"),
    }
    result = compare(labels, rows, lambda _run: [])
    cell = result.cells["T_U"]["all"]
    assert (cell.n, cell.exact) == (3, 1)
    wrong = {d["run_id"]: d for d in result.disagreements if d["quantity"] == "T_U"}
    assert set(wrong) == {"step", "inf"}
    assert wrong["step"]["measured"] == "not-applicable"
    assert not wrong["step"]["within_1"]


def _answer(review_id, t_u):
    fields = {"T_E": "inf", "T_S": 4, "A": False, "Y_end": "rejects"}
    return RunLabel(review_id=review_id, T_U=t_u, **fields)


def test_reviewers_agree_on_not_applicable_and_disagree_against_a_step():
    both = [_answer("r1", "not-applicable"), _answer("r1", "inf")]  # "inf": an old export
    split = [_answer("r2", "not-applicable"), _answer("r2", 4)]
    values = {"r1": [derived(x) for x in both], "r2": [derived(x) for x in split]}
    result, rows = block(["r1", "r2"], ["A", "B"], values)
    assert result.disputed == ["r2"]
    assert [(r["review_id"], r["quantity"]) for r in rows] == [("r2", "T_U")]
    assert values["r1"][0]["T_U_status"] == "not-applicable"
    assert result.kappa["T_U_status"].categories == ["located", "not-applicable"]
