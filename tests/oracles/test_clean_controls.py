"""The clean-control draw of oracle scoring (Table V) on a study whose clean runs are
shared: every operator gets its controls, drawn from the clean runs that are the
baseline of its cases, and a clean run drawn for two operators is judged once per case."""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from types import SimpleNamespace

from sscbench.oracles.base import OracleSettings, Verdict
from sscbench.oracles.contexts import StudyRuns, served_cases
from sscbench.oracles.scored_from import CONTROL_DRAW, scored_from
from sscbench.oracles.suite import control_key, judge_all, score_study
from sscbench.report.sections.oracles import oracles_section
from sscbench.study.folder import IndexEntry, StudyDir

OPERATORS = {"ItemOption", "PaySource", "ReturnDate", "WriteEffect"}


def _cell(section, table_id: str, key: str, column: str) -> str:
    table = next(t for t in section.tables if t.id == table_id)
    row = table.rows[table.keys.index(key)]
    return " ".join(p["t"] for p in row[table.columns.index(column)])


def test_every_operator_gets_its_clean_controls_in_table_v(default_study):
    results = score_study(default_study, ["rules"], OracleSettings(), seed=0)
    rules = results["rules"]
    strata = rules["strata"]
    assert {k.removeprefix("operator:") for k in strata if k.startswith("operator:")} == OPERATORS
    for operator in OPERATORS:  # the old draw gave WriteEffect none (0/30 overall)
        row = strata[f"operator:{operator}"]
        assert row["clean_controls"] == 10 and row["fp_clean"]["n"] == 10
    assert rules["clean_controls"] == 40 and strata["all"]["fp_clean"]["n"] == 40
    assert strata["all"]["fp_clean"]["k"] == 0
    controls = [v for v in rules["_verdicts"] if v["population"] == "clean-control"]
    assert len(controls) == 40 and all(v["control_case_id"] for v in controls)
    section = oracles_section({"rules": {k: v for k, v in rules.items() if k != "_verdicts"}})
    assert _cell(section, "oracles-adoption", "rules", "FP clean controls").startswith("0/40")
    assert "FP clean 0/10" in _cell(section, "oracles-operator", "rules", "WriteEffect")


def test_a_clean_run_drawn_for_two_operators_is_judged_in_each_cases_context(default_study):
    runs = StudyRuns(default_study)
    drawn = runs.clean_controls(10_000, seed=0)  # every candidate
    by_run = defaultdict(list)
    for run_id, case_id in drawn:
        by_run[run_id].append(case_id)
    twice = {r: c for r, c in by_run.items() if len({runs.cases[x].operator for x in c}) == 2}
    assert twice, "the default study has clean runs serving two operators' cases"
    run_id, case_ids = next(iter(sorted(twice.items())))
    plan = served_cases(runs.store, runs.entries.values())[run_id]
    assert set(case_ids) <= plan and runs.entries[run_id].case_id in plan

    seen = []

    class Recorder:
        name, context, gives_adoption = "recorder", "the case", True

        def judge(self, run):
            seen.append((run.run_id, run.case.case_id, run.case.contract))
            return Verdict(run_id=run.run_id, adopted=False)

        def close(self):
            pass

    keys = {control_key(run_id, c): (run_id, c) for c in case_ids}
    verdicts = judge_all(Recorder(), runs, list(keys), controls=keys)
    assert set(verdicts) == set(keys) and len(verdicts) == 2  # both verdicts kept
    assert [case for _, case, _ in seen] == case_ids
    assert seen[0][2] != seen[1][2]  # two contracts: the two operators' cases
    assert all(r == run_id for r, _, _ in seen)


def _old_draw(runs: StudyRuns, per_operator: int, seed: int) -> list[str]:
    """The draw before clean runs were shared: by the clean run's own case."""
    by_operator = defaultdict(list)
    for entry in runs.entries.values():
        case = runs.cases.get(entry.case_id)
        if entry.kind == "clean" and entry.status == "completed" and case.contract is not None:
            by_operator[case.operator].append(entry.run_id)
    rng = random.Random(seed)
    out = []
    for operator in sorted(by_operator):
        pool = sorted(by_operator[operator])
        out.extend(sorted(rng.sample(pool, min(per_operator, len(pool)))))
    return out


def test_a_study_with_one_clean_run_per_case_draws_as_before(tmp_path):
    rng = random.Random(5)
    runs = object.__new__(StudyRuns)
    runs.store = StudyDir(tmp_path)  # no plan: each clean run serves its own case
    runs.cases, runs.entries = {}, {}
    for number in range(40):
        case_id = f"case-{number}"
        contract = None if number % 7 == 0 else object()
        operator = rng.choice(sorted(OPERATORS))
        runs.cases[case_id] = SimpleNamespace(operator=operator, contract=contract)
        for kind in ("clean", "faulted"):
            run_id = f"{case_id}--{kind}"
            status = "completed" if number % 9 else "missing"
            runs.entries[run_id] = IndexEntry(
                run_id=run_id,
                case_id=case_id,
                config_id="c",
                repetition=0,
                kind=kind,
                status=status,
            )
    for per, seed in ((3, 0), (5, 7), (100, 1)):
        drawn = runs.clean_controls(per, seed)
        assert [r for r, _ in drawn] == _old_draw(runs, per, seed)
        assert all(c == runs.entries[r].case_id for r, c in drawn)
    counts = Counter(runs.cases[c].operator for _, c in runs.clean_controls(3, 0))
    assert set(counts.values()) == {3}


def test_a_scoring_recorded_under_the_old_draw_is_not_taken_as_unchanged(default_study):
    record = scored_from(default_study, "rules", OracleSettings(), "calibration", 10, 0)
    assert record["control_draw"] == CONTROL_DRAW
