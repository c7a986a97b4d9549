"""Oracle validation: adoption P/R/F1 and kappa, T_U exact and ±1, abstentions as misses."""

from __future__ import annotations

import json

import pytest
from statsmodels.stats.inter_rater import cohens_kappa
from typer.testing import CliRunner

from sscbench.cli import app
from sscbench.errors import DataError
from sscbench.oracles.validate import read_rows, validate, with_strata


def _ref(i: int, a: int, t_u, operator="ReturnDate", z="pre"):
    return {"run_id": f"r{i}", "A": a, "T_U": t_u, "operator": operator, "Z_S": z}


REFERENCE = {
    r["run_id"]: r
    for r in [
        _ref(0, 1, 10),
        _ref(1, 1, 12),
        _ref(2, 1, 14, z="late"),
        _ref(3, 0, "inf"),
        _ref(4, 0, "inf", operator="WriteEffect"),
        _ref(5, 1, 9, operator="WriteEffect", z="late"),
        _ref(6, "undecidable", "undecidable"),  # scores nothing
    ]
}
ORACLE = {
    "r0": {"A": 1, "T_U": 10},  # TP, exact
    "r1": {"A": 1, "T_U": 13},  # TP, off by one
    "r2": {"A": 0, "T_U": "inf"},  # FN
    "r3": {"A": 1, "T_U": 7},  # FP
    "r4": {"A": "undecidable", "T_U": "undecidable"},  # abstains on a negative
    # r5 missing: abstains on a positive -> FN and T_U miss
}


def test_overall_scores():
    scores = validate(ORACLE, REFERENCE)["all"]
    assert (scores["tp"], scores["fp"], scores["fn"], scores["tn"]) == (2, 1, 2, 0)
    assert scores["runs"] == 6 and scores["abstentions"] == 2
    assert scores["precision"]["label"].startswith("2/3 ")
    assert (scores["precision"]["k"], scores["precision"]["n"]) == (2, 3)
    assert scores["precision"]["estimate"] == pytest.approx(2 / 3)
    assert scores["recall"]["label"].startswith("2/4 ")
    assert scores["f1"] == pytest.approx(2 * (2 / 3) * 0.5 / (2 / 3 + 0.5), abs=1e-4)
    assert scores["t_u_exact"]["label"].startswith("1/4 ")
    assert scores["t_u_within_1"]["label"].startswith("2/4 ")


def test_kappa_matches_statsmodels_with_abstention_as_a_category():
    got = validate(ORACLE, REFERENCE)["all"]["kappa"]
    # rows: reference (abstain, 0, 1); columns: oracle (abstain, 0, 1)
    table = [[0, 0, 0], [1, 0, 1], [1, 1, 2]]
    assert got == pytest.approx(cohens_kappa(table, return_results=False), abs=1e-4)


def test_strata_by_operator_and_arrival():
    scores = validate(ORACLE, REFERENCE)
    assert scores["operator:WriteEffect"]["runs"] == 2
    assert scores["operator:WriteEffect"]["abstentions"] == 2
    assert scores["arrival:late"]["fn"] == 2
    assert next(iter(scores)) == "all"


def test_perfect_oracle_and_missing_strata_are_filled_from_measurements():
    labels = {"r0": {"run_id": "r0", "A": 1, "T_U": 5}, "r1": {"run_id": "r1", "A": 0}}
    measured = {
        "r0": {"run_id": "r0", "operator": "PaySource", "Z_S": "late", "A": 1, "T_U": 5},
        "r1": {"run_id": "r1", "operator": "PaySource", "Z_S": "pre", "A": 0, "T_U": "inf"},
    }
    scores = validate(measured, with_strata(labels, measured))
    assert scores["all"]["f1"] == 1.0 and scores["all"]["kappa"] == 1.0
    assert scores["operator:PaySource"]["t_u_exact"]["label"].startswith("1/1 ")
    assert set(scores) == {"all", "operator:PaySource", "arrival:late", "arrival:pre"}


def test_bad_files_name_file_and_line(tmp_path):
    path = tmp_path / "labels.jsonl"
    path.write_text('{"run_id": "a", "A": 1}\nnot json\n')
    with pytest.raises(DataError, match="line 2"):
        read_rows(path)
    path.write_text('{"A": 1}\n')
    with pytest.raises(DataError, match="run_id"):
        read_rows(path)


def test_cli_with_a_labels_file(tmp_path):
    study = tmp_path / "study"
    study.mkdir()
    rows = [{**r, "A": r["A"]} for r in REFERENCE.values()]
    (study / "measurements.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    oracle = tmp_path / "oracle.jsonl"
    oracle.write_text("\n".join(json.dumps({"run_id": k, **v}) for k, v in ORACLE.items()))
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        "\n".join(json.dumps({"run_id": r["run_id"], "A": r["A"], "T_U": r["T_U"]}) for r in rows)
    )
    result = CliRunner().invoke(
        app,
        [
            "validate-oracle",
            str(study),
            "--oracle",
            str(oracle),
            "--reference",
            str(labels),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["all"]["tp"] == 2
