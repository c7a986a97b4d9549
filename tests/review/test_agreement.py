"""``sscbench agreement``: measurement against reference labels on every quantity."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from sscbench.analysis.stats import wilson
from sscbench.cli import app
from sscbench.errors import DataError
from sscbench.review.agreement import agreement, measured_value
from sscbench.study.folder import StudyDir
from sscbench.study.ledgers import read_ledger
from sscbench.study.rows import read_measurements, rows_by_run

QUANTITIES = ("T_F", "T_E", "T_S", "T_U", "A", "Z_S", "Y_end")


@pytest.fixture(scope="module")
def study(tiny_study):
    return tiny_study


def _rows(study):
    return rows_by_run(read_measurements(study / "measurements.jsonl"))


def _own_labels(study):
    """Labels equal to the measurement of every triggered faulted run."""
    labels = {}
    for run_id, row in _rows(study).items():
        if row.kind != "faulted":
            continue
        label = {"run_id": run_id}
        for q in QUANTITIES:
            label[q] = measured_value(row, q)
        labels[run_id] = label
    return labels


def _write(path, labels):
    path.write_text("".join(json.dumps(v) + "\n" for v in labels.values()), encoding="utf-8")
    return path


def test_labels_equal_to_the_measurement_agree_everywhere(study, tmp_path):
    labels = _own_labels(study)
    result = agreement(study, _write(tmp_path / "l.jsonl", labels)).to_dict()
    assert result["runs"] == len(labels) and not result["disagreements"]
    triggered = sum(1 for v in labels.values() if v["T_F"] != "inf")
    adopting = sum(1 for v in labels.values() if v["A"] is True)
    assert 0 < adopting < triggered and result["adopting_runs"] == adopting
    for q in QUANTITIES:
        cell = result["quantities"][q]["all"]
        n = len(labels) if q == "T_F" else adopting if q in ("T_U", "Y_end") else triggered
        assert cell["agree"] == cell["n"] == n, q
    assert {g.split(":")[0] for g in result["quantities"]["A"]} == {"all", "operator", "stratum"}


def test_disagreements_are_counted_and_quoted(study, tmp_path):
    labels = _own_labels(study)
    used = [r for r, v in labels.items() if isinstance(v["T_S"], int) and v["A"] is True]
    adopted = [r for r, v in labels.items() if v["A"] is True and r not in used[:2]]
    labels[used[0]]["T_S"] += 1  # one step late: wrong exactly, right within ±1
    labels[adopted[0]]["A"] = False
    labels[adopted[0]]["Z_S"] = "undecidable"  # undecidable is a value to be matched
    labels[used[1]]["Y_end"] = None  # null: not scored
    result = agreement(study, _write(tmp_path / "l.jsonl", labels)).to_dict()
    t_s = result["quantities"]["T_S"]["all"]
    assert (t_s["agree"], t_s["agree_within_1"]) == (t_s["n"] - 1, t_s["n"])
    exact = wilson(t_s["n"] - 1, t_s["n"])
    assert t_s["exact"]["low"] == exact.low and t_s["exact"]["high"] == exact.high
    untriggered = sum(1 for v in labels.values() if v["T_F"] == "inf")
    assert result["unlabelled"]["Y_end"] == untriggered + 1
    # the relabelled run left the adopting runs: its T_U and Y_end are no longer scored
    outside = sum(1 for v in labels.values() if v["A"] is False)
    assert result["out_of_population"] == {"T_U": outside, "Y_end": outside}
    found = {(d["run_id"], d["quantity"]): d for d in result["disagreements"]}
    assert set(found) == {(used[0], "T_S"), (adopted[0], "A"), (adopted[0], "Z_S")}
    late = found[(used[0], "T_S")]
    assert late["within_1"] and late["measured"] == labels[used[0]]["T_S"] - 1
    ledger = read_ledger(StudyDir(study), used[0])
    for quote in late["quotes"]:  # the quoted text is the ledger's at that step
        event = ledger[quote["step"]]
        assert (event.content or "")[:40] in quote["text"]
    assert {q["step"] for q in late["quotes"]} == {late["reference"], late["measured"]}
    # the stratum is the reference's Z_S: the relabelled run moved to "undecidable"
    assert result["quantities"]["A"]["stratum:undecidable"]["n"] == 1
    assert found[(adopted[0], "A")]["quotes"]  # the measured T_U step is quoted


def test_cli_reads_review_ids_through_the_key_and_prints_json(study, tmp_path):
    runner = CliRunner()
    out = tmp_path / "rev"
    assert runner.invoke(app, ["review", "export", str(study), "--out", str(out)]).exit_code == 0
    key = json.loads((study / "review-keys" / "rev.json").read_text())["runs"]
    own = _own_labels(study)
    lines = []
    for review_id, run_id in key.items():
        label = {k: v for k, v in own[run_id].items() if k != "run_id"}
        lines.append(json.dumps({"review_id": review_id, **label}))
    first = json.loads(lines[0])
    first["T_F"] = 0 if first["T_F"] != 0 else 1
    lines[0] = json.dumps(first)
    (out / "labels.jsonl").write_text("\n".join(lines) + "\n")
    result = runner.invoke(
        app, ["agreement", str(study), "--reference", str(out / "labels.jsonl"), "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    old_keys = {"runs", "unlabelled", "unmeasured_runs", "quantities", "disagreements"}
    assert old_keys <= data.keys()  # backward compatible: keys are only added
    t_s = data["quantities"]["T_S"]["all"]
    assert {"n", "agree", "exact", "within_1", "agree_within_1"} <= t_s.keys()
    assert set(t_s["exact"]) == {"estimate", "low", "high", "label"}
    assert [(d["review_id"], d["quantity"]) for d in data["disagreements"]] == [("r001", "T_F")]
    assert data["disagreements"][0]["run_id"] == key["r001"]
    text = runner.invoke(app, ["agreement", str(study), "--reference", str(out / "labels.jsonl")])
    assert text.exit_code == 0 and "disagreements: 1" in text.output and "T_F" in text.output


def test_labels_of_unknown_runs_and_bad_labels_are_refused(study, tmp_path):
    """A label of a run the study does not have is refused naming its line (it was once
    scored as a total disagreement)."""
    path = tmp_path / "l.jsonl"
    path.write_text('\n{"run_id": "no-such-run", "A": true}\n')
    with pytest.raises(DataError, match="line 2, run_id: 'no-such-run' is not a run"):
        agreement(study, path)
    path.write_text('{"review_id": "r999", "A": true}\n')
    with pytest.raises(DataError, match="key file"):
        agreement(study, path)
    path.write_text('{"run_id": "x", "A": "maybe"}\n')
    bad = CliRunner().invoke(app, ["agreement", str(study), "--reference", str(path)])
    assert bad.exit_code == 2 and "line 1, A" in bad.output


def test_extra_keys_are_ignored_and_known_keys_still_checked(study, tmp_path):
    labels = _own_labels(study)
    for n, label in enumerate(labels.values()):
        label.update(labeller="llm-1", source="gpt-4o", model={"t": 0}, kind="faulted", x=n)
    path = _write(tmp_path / "l.jsonl", labels)
    result = agreement(study, path).to_dict()
    assert result["runs"] == len(labels) and not result["disagreements"]
    first = next(iter(labels.values()))
    for field, value in (("T_S", "soon"), ("A", "maybe"), ("Z_S", 3), ("reviewer", 7)):
        path.write_text(json.dumps({**first, field: value, "labeller": "llm-1"}) + "\n")
        with pytest.raises(DataError, match=f"line 1, {field}") as error:
            agreement(study, path)
        assert str(path) in str(error.value)
    path.write_text(json.dumps({**first, "t_u": 3}) + "\n")  # a misspelt quantity is no extra
    with pytest.raises(DataError, match="line 1, t_u: not a field: did you mean 'T_U'"):
        agreement(study, path)


def test_t_u_and_y_end_are_scored_over_adopting_runs_only(study, tmp_path):
    labels = _own_labels(study)
    refusing = [r for r, v in labels.items() if v["A"] is False]
    assert refusing
    for run_id in refusing:  # wrong on runs that never adopted: outside the population
        labels[run_id]["T_U"] = 0
        labels[run_id]["Y_end"] = "undecidable"
    result = agreement(study, _write(tmp_path / "l.jsonl", labels)).to_dict()
    assert not result["disagreements"]
    adopting = sum(1 for v in labels.values() if v["A"] is True)
    for q in ("T_U", "Y_end"):
        assert result["populations"][q] == "reference A = true"
        assert {c["population"] for c in result["quantities"][q].values()} == {"reference A = true"}
        assert result["quantities"][q]["all"]["n"] == adopting
        assert result["out_of_population"][q] == len(refusing)
    for q in ("T_F", "T_E", "T_S", "A", "Z_S"):
        assert result["quantities"][q]["all"]["population"] == "all labelled runs"
    text = CliRunner().invoke(
        app, ["agreement", str(study), "--reference", str(tmp_path / "l.jsonl")]
    )
    assert text.exit_code == 0, text.output
    assert f"T_U and Y_end over the {adopting} adopting runs only (reference A = true)" in (
        text.output
    )


def _table_rows(output: str) -> set[tuple[str, str]]:
    """(group, quantity) of every row of the rich table."""
    rows = set()
    for line in output.splitlines():
        cells = [c.strip() for c in line.split("│")[1:-1]]
        if len(cells) == 5 and cells[0] not in ("", "group"):
            rows.add((cells[0], cells[1]))
    return rows


def test_the_table_shows_every_quantity_in_every_group(study, tmp_path):
    labels = _own_labels(study)
    path = _write(tmp_path / "l.jsonl", labels)
    data = agreement(study, path).to_dict()
    groups = {g for q in data["quantities"].values() for g in q}
    operators = {r.operator for r in _rows(study).values() if r.kind == "faulted"}
    assert {f"operator:{o}" for o in operators} | {"all"} <= groups
    assert "stratum:not-triggered" in groups  # only T_F is scored there
    # a wide terminal, so that no group name is cut whatever width the test machine has
    args = ["agreement", str(study), "--reference", str(path)]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "240"})
    assert result.exit_code == 0, result.output
    steps = [f"{q} {k}" for q in ("T_F", "T_E", "T_S") for k in ("exact", "±1")]
    shown = [*steps, "T_U exact (A=true)", "T_U ±1 (A=true)", "A", "Z_S", "Y_end (A=true)"]
    rows = _table_rows(result.output)
    assert rows == {(g, q) for g in groups for q in shown}
    order = [line.split("│")[1].strip() for line in result.output.splitlines() if "│" in line]
    assert order[0] == "all" and order.index("operator:" + min(operators)) < min(
        i for i, g in enumerate(order) if g.startswith("stratum:")
    )


def test_an_unfilled_review_file_is_an_error(study, tmp_path):
    runner = CliRunner()
    out = tmp_path / "unfilled"
    assert runner.invoke(app, ["review", "export", str(study), "--out", str(out)]).exit_code == 0
    unfilled = out / "labels.jsonl"
    assert unfilled.read_text().strip()  # one empty line per run
    result = runner.invoke(app, ["agreement", str(study), "--reference", str(unfilled)])
    assert result.exit_code == 2, result.output
    assert "has no labels" in result.output and "labels.jsonl" in result.output
    (tmp_path / "empty.jsonl").write_text("\n")
    with pytest.raises(DataError, match="has no labels"):
        agreement(study, tmp_path / "empty.jsonl")
