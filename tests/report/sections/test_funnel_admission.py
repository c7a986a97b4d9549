"""The report's funnel section shows the admission record: candidates considered,
rejected in semantic review, replaced from the frozen order, and the rank reached."""

from __future__ import annotations

import csv
import json
import shutil

from sscbench.report.build import build_report
from sscbench.report.model import Section
from sscbench.report.sections.funnel_admission import add_admission, csv_fields, find_admission
from sscbench.study.study import Study


def _entry(operator, cases, **numbers):
    base = {
        "operator": operator,
        "enumerated": 203,
        "valid": 150,
        "target": 30,
        "candidates_considered": 84,
        "witnessed": 46,
        "reviewed": True,
        "rejected_in_review": 16,
        "replaced": 16,
        "admitted": 30,
        "rank_reached": 84,
    }
    return {**base, **numbers, "cases": cases}


def _study_cases(study):
    by_operator: dict[str, list[str]] = {}
    for line in (study / "cases.jsonl").read_text().splitlines():
        case = json.loads(line)
        by_operator.setdefault(case["operator"], []).append(case["case_id"])
    return by_operator


def test_the_funnel_section_and_csv_carry_the_admission_record(default_study, tmp_path):
    study = tmp_path / "study"
    shutil.copytree(default_study, study)
    cases = _study_cases(study)
    shown, refused = sorted(cases)[:2]
    record = {
        "operators": [
            _entry(shown, cases[shown]),
            _entry(refused, ["another case"], rejected_in_review=3, replaced=2, rank_reached=40),
        ]
    }
    (study / "admission.json").write_text(json.dumps(record))
    html = build_report(study).read_text()
    with (study / "report" / "tables" / "funnel.csv").open() as handle:
        rows = {r["operator"]: r for r in csv.DictReader(handle)}
    ours = rows[shown]
    assert (ours["candidates_considered"], ours["rejected_in_review"]) == ("84", "16")
    assert (ours["replaced"], ours["rank_reached"]) == ("16", "84")
    assert rows[refused]["rank_reached"] == "" and rows[refused]["replaced"] == ""
    assert rows["all operators"]["replaced"] == "16"  # the refused record is not summed
    section = html[html.index('id="funnel"') : html.index('id="validation"')]
    assert 'id="admission-table"' in section and "30 reached by rank 84" in section
    assert f"does not list the study&#39;s cases of {refused}" in section or (
        f"does not list the study's cases of {refused}" in section
    )


def test_without_a_record_the_columns_are_blank_and_nothing_is_added(tmp_path):
    section = Section("funnel", "Execution funnel")
    rows = [{"operator": "ItemOption"}, {"operator": "all operators"}]
    add_admission(section, rows, tmp_path, {}, Study.open(tmp_path).record)
    assert section.tables == [] and section.notes == []
    assert rows[0]["rank_reached"] == "" and rows[1]["replaced"] == ""


def test_the_record_beside_the_cases_file_is_found_and_a_broken_one_named(tmp_path):
    (tmp_path / "admitted").mkdir()
    config = {"cases": {"file": "admitted/cases.jsonl"}}
    assert find_admission(tmp_path / "study", config, str(tmp_path)) is None
    (tmp_path / "admitted" / "admission.json").write_text("{not json")
    where = find_admission(tmp_path / "study", config, str(tmp_path))
    assert where == tmp_path / "admitted" / "admission.json"
    (tmp_path / "study").mkdir()
    (tmp_path / "study" / "config.json").write_text(
        json.dumps({"config": config, "base_dir": str(tmp_path)})
    )
    section = Section("funnel", "Execution funnel")
    add_admission(section, [], tmp_path / "study", {}, Study.open(tmp_path / "study").record)
    assert "cannot be read" in section.notes[0][0]["t"] and section.tables == []


def test_csv_sums_for_all_operators_leave_the_rank_blank():
    entries = [_entry("A", []), _entry("B", [], replaced=2, rank_reached=None)]
    assert csv_fields(entries, "all operators")["replaced"] == 18
    assert csv_fields(entries, "all operators")["rank_reached"] == ""
    assert csv_fields(entries, "B")["rank_reached"] == ""
