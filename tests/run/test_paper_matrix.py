"""examples/paper-matrix.toml: the paper's execution matrix (F/V/L three repetitions,
T/S one) as one offline study; planned, and a reduced copy run end to end."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from sscbench.report.configurations_section import configuration_rows
from sscbench.run.builders import build_cases, build_worlds
from sscbench.run.config import load_config, parse_config
from sscbench.run.executor import execute_study
from sscbench.run.planning import make_plan
from sscbench.run.storage import StudyDir

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "paper-matrix.toml"
PAPER = {"F": 3, "V": 3, "L": 3, "T": 1, "S": 1}


def test_the_paper_matrix_plans_five_configurations_with_mixed_repetitions():
    config, _ = load_config(EXAMPLE)
    assert [a.id for a in config.agents] == list(PAPER)
    assert all(a.kind == "scripted" for a in config.agents)  # offline: no endpoint
    assert config.user.kind == "scripted"
    cases = build_cases(config, build_worlds(config))
    plan = make_plan(config, cases)
    assert plan.repetitions == PAPER
    units = Counter(u.config_id for u in plan)
    assert units == {c: n * len(cases) for c, n in PAPER.items()}
    reps = {c: {u.repetition for u in plan if u.config_id == c} for c in PAPER}
    assert reps == {c: set(range(n)) for c, n in PAPER.items()}


def test_a_reduced_paper_matrix_runs_and_table_one_shows_its_scale(tmp_path):
    text = EXAMPLE.read_text().replace("per_operator = 30", "per_operator = 1")
    text = text.replace('domains = ["airline", "retail"]', 'domains = ["airline"]')
    out = tmp_path / "matrix"
    summary = execute_study(parse_config(text, EXAMPLE), text, out, progress=False)
    assert summary.statuses["missing"] == 0
    rows = {r["config_id"]: r for r in configuration_rows(StudyDir(out))}
    assert {c: r["repetitions"] for c, r in rows.items()} == PAPER
    per_rep = rows["T"]["faulted_scheduled"]
    assert per_rep > 0
    assert {c: r["faulted_scheduled"] for c, r in rows.items()} == {
        c: n * per_rep for c, n in PAPER.items()
    }
    for row in rows.values():
        assert row["faulted_run"] + row["not_qualified"] == row["faulted_scheduled"]
