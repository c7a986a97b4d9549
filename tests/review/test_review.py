"""The labels schema and the review export."""

from __future__ import annotations

import json

import pytest

from sscbench.errors import DataError
from sscbench.review.labels import empty_label, labels_by_run, read_key, read_labels


def _write(tmp_path, *lines):
    path = tmp_path / "labels.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_labels_parse_every_value_kind(tmp_path):
    path = _write(
        tmp_path,
        '{"run_id": "a", "T_F": 3, "T_E": "inf", "T_S": 5, "T_U": "undecidable", "A": 1,'
        ' "Z_S": "absent", "Y_end": "endorses", "note": "n"}',
        "",
        '{"review_id": "r002", "A": false, "T_S": null}',
    )
    first, second = read_labels(path)
    assert first.labelled() == {
        "T_F": 3,
        "T_E": "inf",
        "T_S": 5,
        "T_U": "undecidable",
        "A": True,
        "Z_S": "absent",
        "Y_end": "endorses",
    }
    assert second.labelled() == {"A": False}  # null = not labelled yet
    assert json.loads(empty_label("r009").line())["review_id"] == "r009"


@pytest.mark.parametrize(
    ("line", "where"),
    [
        ('{"run_id": "a", "T_S": "seven"}', "line 2, T_S"),
        ('{"run_id": "a", "T_U": -1}', "line 2, T_U"),
        ('{"run_id": "a", "T_E": true}', "line 2, T_E"),
        ('{"run_id": "a", "A": "yes"}', "line 2, A"),
        ('{"run_id": "a", "Z_S": "early"}', "line 2, Z_S"),
        ('{"run_id": "a", "Y_end": "maybe"}', "line 2, Y_end"),
        ('{"run_id": "a", "TS": 3}', "line 2, TS"),
        ('{"T_S": 3}', "line 2"),
        ("[1]", "line 2"),
        ('{"run_id": "b"', "line 2"),
        ('{"run_id": "z"}', "line 2"),  # labelled twice
    ],
)
def test_bad_label_names_file_line_and_field(tmp_path, line, where):
    path = _write(tmp_path, '{"run_id": "z"}', line)
    with pytest.raises(DataError) as info:
        read_labels(path)
    assert str(info.value).startswith(f"{path}, field {where}")


def test_review_ids_resolve_through_the_key(tmp_path):
    key = tmp_path / "key.json"
    key.write_text(json.dumps({"runs": {"r001": "run-1", "r002": "run-2"}}))
    path = _write(tmp_path, '{"review_id": "r002", "A": true}', '{"run_id": "run-7"}')
    labels = labels_by_run(read_labels(path), read_key(key), path)
    assert set(labels) == {"run-2", "run-7"}
    with pytest.raises(DataError, match="key file"):
        labels_by_run(read_labels(path), None, path)
    stray = _write(tmp_path, '{"review_id": "r404"}')
    with pytest.raises(DataError, match="r404"):
        labels_by_run(read_labels(stray), read_key(key), stray)


# ---- review export -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def study(tiny_study):
    return tiny_study


def _rows(study):
    from sscbench.jsonl import read_objects

    return {r["run_id"]: r for r in read_objects(study / "measurements.jsonl")}


def _export(study, out, *args):
    from typer.testing import CliRunner

    from sscbench.cli import app

    return CliRunner().invoke(app, ["review", "export", str(study), "--out", str(out), *args])


def test_export_writes_masked_pages_labels_and_a_key_kept_apart(study, tmp_path):
    from sscbench.study.folder import StudyDir
    from sscbench.study.ledgers import read_ledger

    out = tmp_path / "rev"
    result = _export(study, out, "--runs", "8", "--seed", "3", "--stratify", "operator,stratum")
    assert result.exit_code == 0, result.output
    labels = read_labels(out / "labels.jsonl")
    assert [lab.review_id for lab in labels] == [f"r{i:03d}" for i in range(1, 9)]
    assert all(lab.labelled() == {} and lab.run_id is None for lab in labels)
    key = read_key(study / "review-keys" / "rev.json")
    assert sorted(key) == [lab.review_id for lab in labels]
    assert not any(p.name.endswith(".json") for p in out.rglob("*"))  # the key is not there
    rows = _rows(study)
    strata = {(rows[r]["operator"], rows[r]["Z_S"]) for r in key.values()}
    faulted = {(r["operator"], r["Z_S"]) for r in rows.values() if r["kind"] == "faulted"}
    assert strata == faulted  # evenly across strata: every one of the 7 is drawn
    secrets = {"trusting", "readback", "faulted", "clean", "calibration", "Z_S", "T_U"}
    store = StudyDir(study)
    for review_id, run_id in key.items():
        page = (out / "pages" / f"{review_id}.html").read_text()
        row = rows[run_id]
        assert run_id not in page and row["case_id"] not in page
        assert not {s for s in secrets if s in page}, review_id
        ledger = read_ledger(store, run_id)
        assert page.count('class="step ') == len(ledger)  # every model-visible step, numbered
        assert f'id="step-{len(ledger) - 1}"' in page
    index = (out / "index.html").read_text()
    assert all(f"pages/{r}.html" in index for r in key)


def test_export_is_seeded_and_refuses_to_mix_exports(study, tmp_path):
    assert _export(study, tmp_path / "a", "--runs", "5", "--seed", "1").exit_code == 0
    assert _export(study, tmp_path / "b", "--runs", "5", "--seed", "1").exit_code == 0
    assert _export(study, tmp_path / "c", "--runs", "5", "--seed", "2").exit_code == 0
    keys = [read_key(study / "review-keys" / f"{n}.json") for n in "abc"]
    assert keys[0] == keys[1] and keys[0] != keys[2]
    again = _export(study, tmp_path / "a", "--runs", "5")
    assert again.exit_code == 2 and "not empty" in again.output
    inside = _export(study, tmp_path / "d", "--key", str(tmp_path / "d" / "k.json"))
    assert inside.exit_code == 2 and "kept apart" in inside.output
    bad = _export(study, tmp_path / "e", "--stratify", "colour")
    assert bad.exit_code == 2 and "colour" in bad.output


def test_page_escapes_all_text_and_states_the_contract(study):
    from sscbench.core.ledger import AssistantEvent, SystemEvent, ToolCall, ToolEvent, UserEvent
    from sscbench.review.pages import render_page
    from sscbench.study.cases import read_cases

    case = next(c for c in read_cases(study / "cases.jsonl") if c.operator == "ReturnDate")
    evil = "<script>alert(1)</script>"
    ledger = [
        SystemEvent(step=0, content=f"policy {evil}"),
        UserEvent(step=1, content=f"hi {evil}"),
        AssistantEvent(
            step=2, tool_calls=(ToolCall(id="c", name="get_x", arguments='{"a": "<b>"}'),)
        ),
        ToolEvent(step=3, tool_call_id="c", name="get_x", content=json.dumps({"v": evil})),
    ]
    page = render_page("r001", case.contract, ledger)
    assert "<script>" not in page and "<b>" not in page
    assert page.count("&lt;script&gt;alert(1)&lt;/script&gt;") == 3
    contract = case.contract
    assert str(contract.injected_value) in page and str(contract.authoritative_value) in page
    assert contract.target.entity_id in page


def test_export_draws_from_strata_streamed_not_from_every_row(study, tmp_path, monkeypatch):
    # at a million runs the rows by run id held 1.9 GB: the draw reads each run's stratum
    # and unread count from the measurements streamed, and draws the same runs
    from sscbench.study.study import Study

    before = tmp_path / "before"
    assert (
        _export(study, before, "--runs", "8", "--seed", "3", "--stratify", "stratum").exit_code == 0
    )
    drawn = read_key(study / "review-keys" / "before.json")

    def every_row(self):
        raise AssertionError("every measurement row held")

    monkeypatch.setattr(Study, "measurements", property(every_row))
    after = tmp_path / "after"
    result = _export(study, after, "--runs", "8", "--seed", "3", "--stratify", "stratum")
    assert result.exit_code == 0, result.output
    assert read_key(study / "review-keys" / "after.json") == drawn
