"""Nothing vanishes silently: each cap on a study's plan is counted and explained in
``plan``'s output, ``run``'s summary and the report's Table I."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from sscbench.cli import app
from sscbench.report.model import RunSets
from sscbench.report.sections.configurations import configurations_section
from sscbench.run.builders import build_study_cases
from sscbench.run.plan_caps import plan_caps
from sscbench.study.config import load_config
from sscbench.study.study import Study
from sscbench.study.worlds import build_worlds

STUDY = """
[study]
repetitions = 1
[world]
domains = ["retail"]
[cases]
operators = ["ItemOption"]
per_operator = 2
[[agents]]
id = "trusting"
profile = "trusting"
"""
CAP = re.compile(
    r"cap: ItemOption got (\d+) cases, capped by \[cases\] per_operator = 2; "
    r"(\d+) of its (\d+) valid candidates were not screened"
)


def test_per_operator_cap_is_counted_in_plan_run_and_table_one(tmp_path: Path):
    config = tmp_path / "study.toml"
    config.write_text(STUDY)
    plan = CliRunner().invoke(app, ["plan", str(config)])
    assert plan.exit_code == 0, plan.output
    line = next(x for x in plan.output.splitlines() if x.startswith("cap: "))
    got, left, valid = map(int, CAP.fullmatch(line).groups())  # type: ignore[union-attr]
    out = tmp_path / "out"
    run = CliRunner().invoke(
        app, ["run", str(config), "--out", str(out), "--no-report", "--no-progress"]
    )
    assert run.exit_code == 0 and line in run.output.splitlines(), run.output
    funnel = json.loads((out / "admission.json").read_text())["operators"][0]
    assert got == funnel["admitted"] == 2 and valid == funnel["valid"] > 2
    assert left == funnel["valid"] - funnel["candidates_considered"]
    intro = configurations_section(Study.open(out), RunSets()).intro
    assert "Cap: " + line.removeprefix("cap: ") + "." in intro


def test_a_replay_s_recorded_runs_add_up_to_what_replays_and_what_the_cap_left():
    config, _ = load_config(Path("examples/replay-study.toml"))
    config.cases.per_operator = 2
    cases, admission = build_study_cases(config, build_worlds(config))
    lines = plan_caps(config, cases, admission)
    replay = next(x for x in lines if "recorded runs;" in x)
    total, used, other, unmatched = map(int, re.findall(r"(\d+) (?:recorded|replay|match)", replay))
    assert total == used + other + unmatched and other > 0
    assert "per_operator = 2 caps the cases: raise it to replay them" in replay
    reps = next(x for x in lines if "repetitions come from the recording" in x)
    tasks = sum(int(k) for k in re.findall(r"on (\d+) tasks?", reps))
    assert tasks == len({c.task_id for c in cases})
