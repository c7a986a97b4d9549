"""Table I (``configurations``): each configuration's settings, planned repetitions and
realized scale, read from the plan and the index; missing runs are counted as missing."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from sscbench.measure.study import measure_study
from sscbench.report.build import build_report
from sscbench.report.model import RunSets
from sscbench.report.sections import SECTION_IDS, TITLES
from sscbench.report.sections.configurations import configuration_rows, configurations_section
from sscbench.run.executor import execute_study
from sscbench.study.config import parse_config
from sscbench.study.folder import StudyDir
from sscbench.study.study import Study

STUDY = """
[study]
repetitions = 2
[world]
domains = ["airline"]
[cases]
operators = ["ReturnDate", "WriteEffect"]
per_operator = 2
[[agents]]
id = "F"
profile = "readback"
repetitions = 3
[[agents]]
id = "T"
profile = "trusting"
repetitions = 1
[[agents]]
id = "D"
profile = "tell_then_readback"
"""


@pytest.fixture(scope="module")
def study(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("table1") / "study"
    execute_study(parse_config(STUDY, "s.toml"), STUDY, out, progress=False)
    return out


def _plan(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "plan.jsonl").read_text().splitlines()]


def test_table_one_follows_the_headline():
    assert SECTION_IDS[:2] == ("headline", "configurations")
    assert TITLES["configurations"] == "Table I — Configurations"


def test_table_one_numbers_match_the_plan_and_the_runs(study):
    rows = {r["config_id"]: r for r in configuration_rows(Study.open(study))}
    assert list(rows) == ["F", "T", "D"]  # config order
    assert {c: r["repetitions"] for c, r in rows.items()} == {"F": 3, "T": 1, "D": 2}
    plan = _plan(study)
    entries = {e.run_id: e for e in StudyDir(study).read_index()}
    for config_id, row in rows.items():
        lines = [p for p in plan if p["config_id"] == config_id]
        assert row["faulted_scheduled"] == len(lines)
        assert row["clean_scheduled"] == len({p["clean_run_id"] for p in lines})
        done = [entries[p["faulted_run_id"]].status for p in lines]
        assert row["faulted_run"] == done.count("completed") > 0
        assert row["not_qualified"] == done.count("not-qualified")
        assert row["faulted_missing"] == 0 and row["clean_missing"] == 0
        assert row["clean_run"] == row["clean_scheduled"]
        assert row["qualified"] == row["faulted_run"]
        assert row["model"].startswith("scripted profile ") and row["kind"] == "scripted"
    assert rows["F"]["faulted_scheduled"] == 3 * rows["T"]["faulted_scheduled"]
    assert rows["D"]["clean_scheduled"] == 2 * rows["T"]["clean_scheduled"]


def test_missing_runs_are_counted_missing_not_run(study, tmp_path):
    copy = tmp_path / "copy"
    store = StudyDir(study)
    copy.mkdir()
    for name in ("config.json", "plan.jsonl"):
        (copy / name).write_bytes((study / name).read_bytes())
    entries = list(store.read_index())
    f_faulted = [e for e in entries if e.config_id == "F" and e.kind == "faulted"]
    completed = [e for e in f_faulted if e.status == "completed"]
    lost, failed = completed[0], completed[1]  # one never indexed, one a harness error
    clean = next(e for e in entries if e.config_id == "T" and e.kind == "clean")
    kept = [
        e.model_copy(update={"status": "missing"})
        if e.run_id in (failed.run_id, clean.run_id)
        else e
        for e in entries
        if e.run_id != lost.run_id
    ]
    copy_store = StudyDir(copy)
    copy_store.rewrite_index(kept)
    before = {r["config_id"]: r for r in configuration_rows(Study.open(study))}
    after = {r["config_id"]: r for r in configuration_rows(Study.open(copy))}
    assert after["F"]["faulted_run"] == before["F"]["faulted_run"] - 2
    assert after["F"]["faulted_missing"] == 2
    assert after["F"]["qualified"] == before["F"]["qualified"] - 1  # the harness error stays
    assert after["F"]["faulted_scheduled"] == before["F"]["faulted_scheduled"]
    assert (
        after["T"]["clean_missing"] == 1 and after["T"]["clean_run"] == before["T"]["clean_run"] - 1
    )
    section = configurations_section(Study.open(copy), RunSets())
    csv_rows = section.csvs["configurations"]
    assert section.id == "configurations" and not section.reason
    assert [r["faulted_missing"] for r in csv_rows] == [2, 0, 0]


def test_the_report_writes_configurations_csv_after_the_headline(study):
    measure_study(study)
    html = build_report(study, run_pages="none").read_text()
    assert (
        html.index('id="headline"') < html.index('id="configurations"') < html.index('id="funnel"')
    )
    with (study / "report" / "tables" / "configurations.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert [r["config_id"] for r in rows] == ["F", "T", "D"]
    assert [int(r["repetitions"]) for r in rows] == [3, 1, 2]
    assert all(int(r["faulted_scheduled"]) >= int(r["faulted_run"]) for r in rows)
    assert "1–3 repetitions by configuration" in html
