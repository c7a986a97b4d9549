"""The report's cost section: counts for a study that calls a model, and a plain statement
for one whose configurations call none."""

from __future__ import annotations

from sscbench.report.model import RunSets
from sscbench.report.sections.cost import cost_section
from sscbench.run.executor import execute_study
from sscbench.study.config import parse_config
from sscbench.study.study import Study
from sscbench.testing import OpenAIServer, text

STUDY = """
[study]
repetitions = 1
concurrency = 2
[world]
domains = ["airline"]
[cases]
operators = ["ReturnDate"]
per_operator = 1
[[agents]]
id = "script"
profile = "trusting"
"""

MODEL_AGENT = """
[[agents]]
id = "model"
kind = "openai"
[agents.endpoint]
base_url = "{url}"
model = "m"
"""


def _intro(tmp_path, toml):
    config = parse_config(toml, tmp_path / "study.toml", base_dir=tmp_path)
    execute_study(config, toml, tmp_path / "out", progress=False)
    section = cost_section(Study.open(tmp_path / "out"), RunSets())
    rows = section.csvs
    return section.intro, rows


def test_a_study_that_calls_no_model_says_so_instead_of_an_unpriced_zero(tmp_path):
    intro, rows = _intro(tmp_path, STUDY)
    assert "no model is called" in intro
    assert "[prices]" not in intro and "$0.0000" not in intro
    assert "model requests answered" not in intro
    assert rows["cost"][-1]["requests"] == 0


def test_a_study_with_a_model_configuration_counts_its_requests(tmp_path):
    with OpenAIServer(lambda body: text("Could you say more?")) as server:
        intro, _rows = _intro(tmp_path, STUDY + MODEL_AGENT.format(url=server.base_url))
        served = len(server.requests)
    assert "no model is called" not in intro
    assert f"{served} model requests answered" in intro
    assert "(the config has no [prices] table)" in intro


def test_tables_follow_the_plan_whatever_order_the_index_holds(tmp_path):
    """A Ray study's index is in completion order; its tables read as the local study's."""
    import json
    import random
    import shutil

    several = STUDY.replace("repetitions = 1", "repetitions = 2")  # 3 tasks x 2 repetitions
    _intro(tmp_path, several.replace("per_operator = 1", "per_operator = 3"))
    out = tmp_path / "out"
    rows = cost_section(Study.open(out), RunSets()).csvs
    shuffled = tmp_path / "shuffled"
    shutil.copytree(out, shuffled)
    lines = (shuffled / "index.jsonl").read_text().splitlines()
    random.Random(7).shuffle(lines)
    lines.reverse()  # never the original order, even if the shuffle kept it
    (shuffled / "index.jsonl").write_text("\n".join(lines) + "\n")
    again = cost_section(Study.open(shuffled), RunSets()).csvs
    assert again == rows
    plan = [json.loads(line) for line in (out / "plan.jsonl").read_text().splitlines()]
    first_named = list(dict.fromkeys(p["clean_run_id"] for p in plan))
    assert [r["clean_run_id"] for r in rows["clean_runs"]] == first_named
    assert len(first_named) > 1
    for row in rows["clean_runs"]:
        named = [p["faulted_run_id"] for p in plan if p["clean_run_id"] == row["clean_run_id"]]
        assert row["faulted_run_ids"].split() == named


def _three_costs(tmp_path, toml):
    """The cost as ``plan`` prints it, as ``run`` prints it and as the report states it."""
    from typer.testing import CliRunner

    from sscbench.cli import app

    path = tmp_path / "study.toml"
    path.write_text(toml)
    plan = CliRunner().invoke(app, ["plan", str(path)])
    run = CliRunner().invoke(
        app, ["run", str(path), "--out", str(tmp_path / "out"), "--no-report", "--no-progress"]
    )
    assert plan.exit_code == 0 and run.exit_code == 0, plan.output + run.output
    planned = next(line for line in plan.output.splitlines() if line.startswith("cost: "))
    ran = next(line for line in run.output.splitlines() if line.startswith("cost: "))
    intro = cost_section(Study.open(tmp_path / "out"), RunSets()).intro
    return planned.removeprefix("cost: "), ran.removeprefix("cost: "), intro


def test_plan_run_and_report_word_the_cost_of_one_study_the_same(tmp_path):
    planned, ran, intro = _three_costs(tmp_path, STUDY)
    assert planned == "$0.00 (no model is called)"
    assert ran.startswith(planned + ": ") and intro.startswith(f"cost: {planned}. ")


def test_run_and_report_word_a_model_study_s_spend_the_same(tmp_path):
    prices = '[prices."m"]\nprompt_per_mtok = 2.5\ncompletion_per_mtok = 10.0\n'
    with OpenAIServer(lambda body: text("Could you say more?")) as server:
        toml = STUDY + MODEL_AGENT.format(url=server.base_url) + prices
        planned, ran, intro = _three_costs(tmp_path, toml)
    spent = ran.split(": ", 1)[0]
    assert spent.endswith(" spent") and spent.startswith("$")
    assert intro.startswith(f"cost: {spent}. ")
    assert planned.startswith("not bounded (m: set the endpoint's context_tokens")
