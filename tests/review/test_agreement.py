"""``sscbench agreement``: measurement against reference labels on every quantity."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from sscbench.analysis.stats import wilson
from sscbench.cli import app
from sscbench.errors import DataError
from sscbench.jsonl import read_objects
from sscbench.measure.study import read_ledger
from sscbench.review.agreement import agreement, measured_value
from sscbench.run.storage import StudyDir

QUANTITIES = ("T_F", "T_E", "T_S", "T_U", "A", "Z_S", "Y_end")


@pytest.fixture(scope="module")
def study(tiny_study):
    return tiny_study


def _rows(study):
    return {r["run_id"]: r for r in read_objects(study / "measurements.jsonl")}


def _own_labels(study):
    """Labels equal to the measurement of every triggered faulted run."""
    labels = {}
    for run_id, row in _rows(study).items():
        if row["kind"] != "faulted":
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
    for q in QUANTITIES:
        cell = result["quantities"][q]["all"]
        assert cell["agree"] == cell["n"] == (len(labels) if q == "T_F" else triggered)
    assert {g.split(":")[0] for g in result["quantities"]["A"]} == {"all", "operator", "stratum"}


def test_disagreements_are_counted_and_quoted(study, tmp_path):
    labels = _own_labels(study)
    used = [r for r, v in labels.items() if isinstance(v["T_S"], int)]
    adopted = [r for r, v in labels.items() if v["A"] is True and r != used[0]]
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
    assert [(d["review_id"], d["quantity"]) for d in data["disagreements"]] == [("r001", "T_F")]
    assert data["disagreements"][0]["run_id"] == key["r001"]
    text = runner.invoke(app, ["agreement", str(study), "--reference", str(out / "labels.jsonl")])
    assert text.exit_code == 0 and "disagreements: 1" in text.output and "T_F" in text.output


def test_unmeasured_runs_and_bad_labels_are_reported(study, tmp_path):
    path = tmp_path / "l.jsonl"
    path.write_text('{"run_id": "no-such-run", "A": true}\n')
    result = agreement(study, path).to_dict()
    assert result["unmeasured_runs"] == ["no-such-run"]
    assert result["quantities"]["A"]["all"]["agree"] == 0
    path.write_text('{"review_id": "r999", "A": true}\n')
    with pytest.raises(DataError, match="key file"):
        agreement(study, path)
    path.write_text('{"run_id": "x", "A": "maybe"}\n')
    bad = CliRunner().invoke(app, ["agreement", str(study), "--reference", str(path)])
    assert bad.exit_code == 2 and "line 1, A" in bad.output
