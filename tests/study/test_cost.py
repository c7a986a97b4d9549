"""Cost accounting (run -> configuration -> study), clean-task pass^k, and the dry run."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sscbench.cli import app
from sscbench.errors import DataError
from sscbench.llm.usage import RoleUsage, RunUsage
from sscbench.run.executor import execute_study
from sscbench.study.config import ModelPrice, parse_config
from sscbench.study.cost import cost_by_config, pass_hat_k, read_prices
from sscbench.study.folder import IndexEntry, StudyDir
from sscbench.testing import OpenAIServer, text

MODEL_STUDY = """
[study]
repetitions = 2
concurrency = 4
[world]
domains = ["airline"]
[cases]
operators = ["ReturnDate"]
per_operator = 3
[[agents]]
id = "a"
kind = "openai"
[agents.endpoint]
base_url = "{url}"
model = "m-a"
[[agents]]
id = "b"
kind = "openai"
[agents.endpoint]
base_url = "{url}"
model = "m-b"
[prices."m-a"]
prompt_per_mtok = 2.5
completion_per_mtok = 10.0
"""


@pytest.fixture(scope="module")
def model_study(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cost")
    with OpenAIServer(lambda body: text("Could you say more?")) as server:
        toml = MODEL_STUDY.format(url=server.base_url)
        config = parse_config(toml, tmp / "study.toml", base_dir=tmp)
        summary = execute_study(config, toml, tmp / "out", progress=False)
        served = len(server.requests)
    return summary, StudyDir(tmp / "out"), config, served


def test_costs_add_up_from_runs_to_configurations_to_the_study(model_study):
    summary, store, config, served = model_study
    entries = list(store.read_index())
    ran = [e for e in entries if e.usage is not None]
    assert ran and all(e.status == "completed" for e in ran)
    by_config, study = cost_by_config(entries, config.prices, store.read_timings())
    for name in ("requests", "prompt_tokens", "completion_tokens", "retries"):
        per_run = sum(e.usage.total(name) for e in ran)
        assert sum(getattr(t, name) for t in by_config.values()) == per_run == getattr(study, name)
    assert study.requests == served  # every request the endpoint answered is counted once
    assert study.runs == len(ran) == sum(t.runs for t in by_config.values())
    # the price: model m-a priced, m-b not (named, never priced at 0)
    a = [e for e in ran if e.config_id == "a"]
    expected = sum(
        e.usage.agent.prompt_tokens * 2.5 / 1e6 + e.usage.agent.completion_tokens * 10.0 / 1e6
        for e in a
    )
    assert by_config["a"].price_usd == pytest.approx(expected) and expected > 0
    assert by_config["a"].unpriced == set() and by_config["b"].unpriced == {"m-b"}
    assert study.price_usd == pytest.approx(expected) and study.unpriced == {"m-b"}
    assert all(e.usage.price_usd == pytest.approx(
        e.usage.agent.prompt_tokens * 2.5e-6 + e.usage.agent.completion_tokens * 1e-5
    ) for e in a)  # fmt: skip
    assert all(e.usage.price_usd is None for e in ran if e.config_id == "b")
    # wall time comes from timings.jsonl, one line per run that ran
    assert set(store.read_timings()) == {e.run_id for e in ran}
    assert study.wall_s == pytest.approx(sum(t.wall_s for t in by_config.values()))
    assert f": {len(ran)} runs ran, {served} model requests" in summary.cost_lines[0]
    # m-b has no price but is served on a loopback endpoint: counted at $0 and named,
    # as the plan words it (one wording in plan, run and report)
    assert summary.cost_lines[0].startswith(f"cost: {study.words({'m-b'})}: ")
    assert any(
        line.strip().startswith("b:") and "local model m-b" in line for line in summary.cost_lines
    )
    assert "1 call unpriced" not in study.words() and "calls unpriced (m-b)" in study.words()


def test_prices_stay_out_of_the_config_hash(model_study):
    _, _, config, _ = model_study
    assert "prices" not in config.canonical_json()
    assert read_prices(StudyDir(model_study[1].root).config_toml) == {
        "m-a": ModelPrice(prompt_per_mtok=2.5, completion_per_mtok=10.0)
    }


def test_a_bad_price_names_the_file_and_the_field(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[prices."m"]\nprompt_per_mtok = -1\ncompletion_per_mtok = 1\n')
    with pytest.raises(DataError) as caught:
        read_prices(path)
    assert caught.value.field == "prices.m.prompt_per_mtok" and Path(caught.value.path) == path
    with pytest.raises(DataError) as caught:
        parse_config(
            '[[agents]]\nid="a"\nprofile="trusting"\n[prices.m]\nprompt_per_mtok=1\n', "s.toml"
        )
    assert caught.value.field == "prices.m.completion_per_mtok"


def _clean(task: str, rep: int, reward: float | None, status: str = "completed") -> IndexEntry:
    return IndexEntry(
        run_id=f"{task}-{rep}", case_id="c", config_id="x", repetition=rep, kind="clean",
        status=status, reward=reward, task=task,
    )  # fmt: skip


def test_pass_hat_k_is_taubench_s_over_repetitions():
    entries = [
        _clean("t1", 0, 1.0), _clean("t1", 1, 0.0), _clean("t1", 2, 1.0),
        _clean("t2", 0, 1.0), _clean("t2", 1, 1.0), _clean("t2", 2, 1.0),
        _clean("t3", 0, None, "missing"), _clean("t3", 1, 1.0),  # a missing run is no trial
    ]  # fmt: skip
    (figures,) = pass_hat_k(entries).values()
    got = {p.k: (p.value, p.tasks) for p in figures}
    assert got[1] == (pytest.approx((2 / 3 + 1 + 1) / 3), 3)
    assert got[2] == (pytest.approx((math.comb(2, 2) / math.comb(3, 2) + 1) / 2), 2)
    assert got[3] == (pytest.approx((0 + 1) / 2), 2)


def test_role_usage_refuses_bad_counts():
    usage = RoleUsage.from_counters("m", {"requests": 2, "prompt_tokens": -3, "retries": True})
    assert (usage.requests, usage.prompt_tokens, usage.retries) == (2, 0, 0)
    assert RunUsage(agent=usage).total("requests") == 2


PLAN_STUDY = """
[study]
repetitions = 3
[world]
domains = ["airline"]
[cases]
operators = ["ReturnDate", "WriteEffect"]
per_operator = 2
max_steps = {{ReturnDate = 10, WriteEffect = 20}}
[[agents]]
id = "model"
kind = "openai"
[agents.endpoint]
base_url = "{base_url}"
model = "gpt-x"
max_retries = 2
max_tokens = 100
context_tokens = 1000
[[agents]]
id = "script"
profile = "trusting"
{prices}
"""


def test_plan_prints_the_counts_and_bounds_without_calling_a_model(tmp_path):
    from sscbench.run.builders import build_cases
    from sscbench.study.worlds import build_worlds

    prices = '[prices."gpt-x"]\nprompt_per_mtok = 1.0\ncompletion_per_mtok = 4.0\n'
    path = tmp_path / "study.toml"
    path.write_text(PLAN_STUDY.format(prices=prices, base_url=REMOTE))
    config = parse_config(path.read_text(), path)
    cases = build_cases(config, build_worlds(config))
    tasks = {(c.domain, c.task_id) for c in cases}
    clean, faulted = len(tasks) * 2 * 3, len(cases) * 2 * 3
    # the model configuration: one request per agent turn at most
    steps = {(c.domain, c.task_id): 0 for c in cases}
    for c in cases:
        steps[(c.domain, c.task_id)] = max(steps[(c.domain, c.task_id)], c.max_steps)
    requests = 3 * (sum(steps.values()) + sum(c.max_steps for c in cases))
    result = CliRunner().invoke(app, ["plan", str(path)])
    assert result.exit_code == 0, result.output
    out = result.output
    assert f"{len(cases)} cases on {len(tasks)} tasks, 2 configurations" in out
    assert f"clean runs: {clean} (" in out and f"one per case would be {faulted})" in out
    assert f"faulted runs: {faulted} " in out and f"runs in all: {clean + faulted}" in out
    assert f"upper bound from step limits: {requests} ({requests * 3} HTTP attempts" in out
    bound = requests * (1000 * 1.0 + 100 * 4.0) / 1e6
    assert f"cost: ${bound:.2f} estimated at most" in out
    # without a price for the model the bound is stated as missing, not guessed
    path.write_text(PLAN_STUDY.format(prices="", base_url=REMOTE))
    result = CliRunner().invoke(app, ["plan", str(path)])
    assert "cost: not bounded (no [prices.'gpt-x'] entry)" in result.output


REMOTE = "https://api.example.invalid/v1"  # never contacted: plan calls no endpoint


@pytest.mark.parametrize("base_url", ["http://127.0.0.1:8765/v1", "http://localhost:9/v1"])
def test_plan_prices_an_unpriced_local_model_at_zero_and_says_so(tmp_path, base_url):
    """A model served on this machine (sscbench serve-local) costs nothing to call."""
    path = tmp_path / "study.toml"
    path.write_text(PLAN_STUDY.format(prices="", base_url=base_url))
    result = CliRunner().invoke(app, ["plan", str(path)])
    assert result.exit_code == 0, result.output
    assert "unbounded" not in result.output
    assert next(x for x in result.output.splitlines() if x.startswith("cost: ")) == (
        "cost: $0.00 (local model gpt-x at a loopback endpoint counted at $0: no [prices] "
        "entry; add one if the server forwards to a paid API)"
    )
    # a price entry is still honoured for a local endpoint (a proxy to a paid API)
    prices = '[prices."gpt-x"]\nprompt_per_mtok = 1.0\ncompletion_per_mtok = 4.0\n'
    path.write_text(PLAN_STUDY.format(prices=prices, base_url=base_url))
    result = CliRunner().invoke(app, ["plan", str(path)])
    assert "estimated at most" in result.output and "local model" not in result.output


def test_local_endpoint_detection():
    from sscbench.llm.endpoint import EndpointConfig
    from sscbench.study.cost_words import is_local_endpoint

    def local(url: str) -> bool:
        return is_local_endpoint(EndpointConfig(base_url=url, model="m"))

    assert local("http://127.0.0.1:8765/v1") and local("http://[::1]:80/v1")
    assert local("http://localhost/v1") and local("http://127.0.0.2:1/v1")
    assert not local("https://api.openai.com/v1") and not local("http://10.0.0.1/v1")
    assert not local("http://127.0.0.1.example.com/v1")
    assert not is_local_endpoint(None)


def test_plan_names_the_file_and_field_of_a_bad_config(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("[study]\nrepetitions = 0\n[[agents]]\nid='a'\nprofile='trusting'\n")
    result = CliRunner().invoke(app, ["plan", str(path)])
    assert result.exit_code == 2
    assert "bad.toml" in result.output and "study.repetitions" in result.output


SCRIPTED_STUDY = """
[study]
repetitions = 1
concurrency = 2
[world]
domains = ["airline"]
[cases]
operators = ["ReturnDate"]
per_operator = 2
[[agents]]
id = "script"
profile = "trusting"
"""


@pytest.fixture(scope="module")
def scripted_study(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("scripted")
    config = parse_config(SCRIPTED_STUDY, tmp / "study.toml", base_dir=tmp)
    summary = execute_study(config, SCRIPTED_STUDY, tmp / "out", progress=False)
    return summary, tmp / "out"


def test_a_study_that_calls_no_model_says_so_in_its_cost_lines(scripted_study, model_study):
    summary, _ = scripted_study
    lines = "\n".join(summary.cost_lines)
    assert "no model is called" in lines
    assert "model requests" not in lines and "$0.0000" not in lines
    assert "  script: no model called; clean tasks" in lines
    # a study whose configurations call a model still counts its requests
    model_lines = "\n".join(model_study[0].cost_lines)
    assert "no model is called" not in model_lines and "model requests" in model_lines


def test_many_repetitions_print_a_few_pass_k_and_keep_every_k_in_the_data():
    """A study of 861 repetitions prints 12 pass^k figures, not 861; up to 10 all print."""
    from sscbench.study.cost import PassHatK, shown_pass_k

    def figures(n: int) -> list[PassHatK]:
        return [PassHatK(k=k, value=1 / k, tasks=46) for k in range(1, n + 1)]

    assert shown_pass_k(figures(10)) == figures(10)
    ks = [p.k for p in shown_pass_k(figures(861))]
    assert ks == [1, 2, 3, 4, 8, 16, 32, 64, 128, 256, 512, 861]
    assert [p.k for p in shown_pass_k(figures(11))] == [1, 2, 3, 4, 8, 11]
