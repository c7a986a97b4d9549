"""The release section shows the containment plan a campaign was checked against before
its runs (``STUDY/containment.json``), and says so when none was checked."""

from __future__ import annotations

import json

from sscbench.release.containment import check_campaign
from sscbench.report.sections.release import release_section
from sscbench.report.sections.release_containment import NO_PLAN
from sscbench.run.executor import execute_study
from sscbench.run.planning import planned_faults
from sscbench.study.config import parse_config

STUDY = """
[study]
repetitions = 1
[world]
source = "generated"
domains = ["airline"]
[cases]
operators = ["TimeoutAfterCommit"]
per_operator = 2
[[agents]]
id = "naive"
profile = "naive_retry"
"""

PLAN = """
[containment]
max_affected = 10
allowed_effects = ["omission", "delay"]
abort_metric = "containment"
abort_threshold = 0.5
restoration = "drop each run's overlay"
owner = "qa-lead"
[containment.window]
start = 2020-01-01T00:00:00Z
end = 2099-01-01T00:00:00Z
"""


def _texts(table) -> list[str]:
    return [" ".join(p["t"] for p in cell) for row in table.rows for cell in row]


def test_the_release_section_shows_the_checked_plan_or_says_there_was_none(tmp_path):
    config = parse_config(STUDY, "s.toml")
    study = tmp_path / "study"
    execute_study(config, STUDY, study, progress=False)
    section = release_section(study, tmp_path / "r1", None)
    rows = section.csvs
    assert "containment-table" not in [t.id for t in section.tables]
    assert [{"t": NO_PLAN}] in section.notes and "release_containment" not in rows
    policy = tmp_path / "policy.toml"
    policy.write_text(PLAN)
    record = check_campaign(planned_faults(config), policy)
    (study / "containment.json").write_text(json.dumps(record))
    section = release_section(study, tmp_path / "r2", None)
    rows = section.csvs
    (table,) = [t for t in section.tables if t.id == "containment-table"]
    cells = _texts(table)
    assert "qa-lead" in cells and "containment rate below 0.5" in cells
    assert "omission, delay" in cells and "TimeoutAfterCommit: omission" in cells
    planned = next(r for r in rows["release_containment"] if r["field"] == "max_affected")
    assert planned["plan"] == 10 and planned["campaign"].startswith(
        f"{record['faulted_runs']} faulted runs planned"
    )


def test_the_plan_row_says_whether_the_abort_metric_stopped_the_campaign():
    from sscbench.report.sections.release_containment import containment_rows

    def cell(record):
        (row,) = [r for r in containment_rows(record) if r["field"] == "abort_metric"]
        return row["campaign"]

    abort = {
        "metric": "escape",
        "interval": "1/1 (100.0%)",
        "threshold": 0.25,
        "faulted_runs_finished": 1,
    }
    assert cell({"abort_enforced": True, "abort": abort}).startswith("ABORTED: escape 1/1")
    assert "after 1 faulted run;" in cell({"abort_enforced": True, "abort": abort})
    assert cell({"abort_enforced": True}) == "enforced as the runs finished; never crossed"
    assert cell({}) == "stated; not read while the runs ran"  # a record from before
