"""Shared clean runs: one per (domain, task, configuration, repetition), qualifying
exactly the cases of its task; consumers (plan, index, evidence, report) follow it."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import pytest

from sscbench.errors import DataError
from sscbench.faults.case import Case
from sscbench.run.executor import execute_study
from sscbench.run.shared_clean import beyond_case_limit, clean_run_id
from sscbench.study.cases import read_cases
from sscbench.study.config import parse_config
from sscbench.study.folder import IndexEntry, StudyDir
from sscbench.testing import Fail, OpenAIServer

STUDY = """
[study]
seed = 5
repetitions = 2
concurrency = 8
[world]
domains = ["airline"]
[cases]
operators = ["ReturnDate", "PaySource", "WriteEffect"]
per_operator = 4
[[agents]]
id = "trusting"
profile = "trusting"
[[agents]]
id = "readback"
profile = "readback"
"""


def _run(tmp_path: Path, text: str = STUDY, **kwargs):
    out = tmp_path / "out"
    config = parse_config(text, tmp_path / "study.toml", base_dir=tmp_path)
    return execute_study(config, text, out, progress=False, **kwargs), StudyDir(out)


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("shared")
    summary, store = _run(tmp)
    return summary, store


def _entries(store: StudyDir) -> list[IndexEntry]:
    repeated: list[IndexEntry] = []
    entries = list(store.read_index(repeated))
    assert repeated == []  # every run, clean ones included, was recorded once
    return entries


def test_one_clean_run_per_task_configuration_and_repetition(study):
    summary, store = study
    cases = read_cases(store.cases)
    tasks = {(c.domain, c.task_id) for c in cases}
    assert len(tasks) < len(cases)  # several cases share a task: the point of sharing
    entries = _entries(store)
    clean = [e for e in entries if e.kind == "clean"]
    faulted = [e for e in entries if e.kind == "faulted"]
    assert len(clean) == len(tasks) * 2 * 2  # tasks x configurations x repetitions
    assert len(faulted) == len(cases) * 2 * 2
    assert summary.planned_runs == len(clean) + len(faulted) == summary.finished_runs
    files = list(store.runs.glob("*--clean.ledger.jsonl"))
    assert len(files) == len(clean)  # run once, stored once


def test_a_clean_run_qualifies_exactly_the_cases_of_its_task(study):
    _, store = study
    cases = {c.case_id: c for c in read_cases(store.cases)}
    entries = _entries(store)
    clean = {e.run_id: e for e in entries if e.kind == "clean"}
    for entry in clean.values():
        domain, task_id = entry.task.split("/", 1)
        on_task = [c.case_id for c in cases.values() if (c.domain, c.task_id) == (domain, task_id)]
        assert sorted(entry.served_cases()) == sorted(on_task)
        assert entry.run_id == clean_run_id(domain, task_id, entry.config_id, entry.repetition)
    for entry in (e for e in entries if e.kind == "faulted"):
        case = cases[entry.case_id]
        partner = clean[entry.clean_run_id]
        assert partner.task == f"{case.domain}/{case.task_id}"
        assert (partner.config_id, partner.repetition) == (entry.config_id, entry.repetition)
        assert entry.case_id in partner.served_cases()
        solved = partner.reward == 1.0 and partner.agent_turns <= case.max_steps
        assert (entry.status != "not-qualified") == solved, entry
    # the plan says the same: every line names its faulted run's shared clean run
    plan = [json.loads(line) for line in store.plan.read_text().splitlines()]
    by_faulted = {e.run_id: e.clean_run_id for e in entries if e.kind == "faulted"}
    assert {row["faulted_run_id"]: row["clean_run_id"] for row in plan} == by_faulted


def test_a_clean_run_runs_with_its_tasks_largest_step_limit(study):
    _, store = study
    cases = read_cases(store.cases)
    entry = next(e for e in _entries(store) if e.kind == "clean")
    start = json.loads(store.evaluator_path(entry.run_id).read_text().splitlines()[0])
    limits = [c.max_steps for c in cases if f"{c.domain}/{c.task_id}" == entry.task]
    assert start["max_steps"] == max(limits) and start["kind"] == "clean"


def test_a_solved_clean_run_beyond_a_cases_limit_does_not_qualify_it(study):
    _, store = study
    case = read_cases(store.cases)[0]
    short = Case.model_validate({**case.model_dump(), "max_steps": 5})
    assert beyond_case_limit(5, short) is None
    reason = beyond_case_limit(6, short)
    assert reason and "6 agent turns" in reason and "step limit of 5" in reason


def test_same_config_gives_the_same_clean_and_faulted_runs(study, tmp_path):
    _, store = study
    _, again = _run(tmp_path)
    assert again.index.read_bytes() == store.index.read_bytes()
    assert again.plan.read_bytes() == store.plan.read_bytes()


def test_typed_family_controls_are_the_shared_clean_runs(tmp_path):
    from sscbench.release.trials import load_trials

    text = STUDY.replace(
        'operators = ["ReturnDate", "PaySource", "WriteEffect"]',
        'operators = ["TimeoutAfterCommit", "ReadbackUnavailable"]',
    ).replace("repetitions = 2", "repetitions = 1")
    _, store = _run(tmp_path, text)
    entries = _entries(store)
    clean = {e.run_id: e for e in entries if e.kind == "clean"}
    trials = load_trials(store.root)
    assert trials
    shared = Counter(e.clean_run_id for e in entries if e.kind == "faulted")
    assert max(shared.values()) > 1  # one control serves several family cases
    for trial in trials:
        faulted = next(
            e
            for e in entries
            if e.kind == "faulted"
            and (e.case_id, e.config_id, e.repetition)
            == (trial.case.case_id, trial.config_id, trial.repetition)
        )
        control = clean[faulted.clean_run_id]
        assert control.status == "completed"
        assert trial.control is not None  # the shared clean run, assessed for this case


def test_a_missing_clean_run_makes_every_case_of_its_task_missing(tmp_path):
    with OpenAIServer(lambda body: Fail(500), model="m") as server:
        text = f"""
[study]
repetitions = 1
concurrency = 4
[world]
domains = ["airline"]
[cases]
operators = ["ReturnDate", "WriteEffect"]
per_operator = 2
[[agents]]
id = "model"
kind = "openai"
[agents.endpoint]
base_url = "{server.base_url}"
model = "m"
max_retries = 0
unreachable_after = 0
"""
        summary, store = _run(tmp_path, text)
    entries = _entries(store)
    clean = {e.run_id: e for e in entries if e.kind == "clean"}
    assert clean and all(e.status == "missing" for e in clean.values())
    for entry in (e for e in entries if e.kind == "faulted"):
        assert entry.status == "missing" and entry.reason == "clean run missing"
        assert entry.clean_run_id in clean
    assert summary.missing_reasons["clean run missing"] == len(entries) - len(clean)


def test_a_study_planned_with_one_clean_run_per_case_is_refused(tmp_path):
    from sscbench.run.run_ids import run_id_for

    _, store = _run(tmp_path)
    rows = [json.loads(line) for line in store.plan.read_text().splitlines()]
    old = [
        {**r, "clean_run_id": run_id_for(r["case_id"], r["config_id"], r["repetition"], "clean")}
        for r in rows
    ]
    store.plan.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in old))
    with pytest.raises(DataError) as caught:
        _run(tmp_path)
    error = caught.value
    assert Path(error.path) == store.plan and "clean_run_id" in str(error.field)
    assert "one clean run per case" in str(error) and "--restart" in str(error)
    summary, _ = _run(tmp_path, restart=True)
    assert not summary.resumed and summary.finished_runs == summary.planned_runs


def test_the_report_says_which_clean_run_qualified_which_faulted_runs(study, tmp_path):
    import shutil

    from sscbench.measure.study import measure_study
    from sscbench.report.build import build_report

    _, store = study
    copy = tmp_path / "copy"
    shutil.copytree(store.root, copy)
    measure_study(copy)
    html = build_report(copy).read_text()
    assert 'id="cost"' in html and "Shared clean runs" in html
    with (copy / "report" / "tables" / "clean_runs.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    entries = _entries(StudyDir(copy))
    assert len(rows) == sum(e.kind == "clean" for e in entries)
    for row in rows:
        named = set(row["faulted_run_ids"].split())
        expected = {e.run_id for e in entries if e.clean_run_id == row["clean_run_id"]}
        assert named == expected and expected
        assert int(row["qualified"]) + int(row["not_qualified"]) + int(row["missing"]) == len(
            expected
        )
