"""``sscbench run --max-cost``: stops before the spend could cross the bound, keeps the
finished runs byte for byte, exits 3, and the same command with a higher bound finishes
the study; an uncheckable cap (a called model without a price) is refused up front."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from sscbench.cli import app
from sscbench.run.cost_cap import CAPPED_EXIT, CostCap
from sscbench.study.config import ModelPrice
from sscbench.study.cost import CostTally
from sscbench.study.folder import StudyDir
from sscbench.testing import OpenAIServer, text

STUDY = """
[study]
repetitions = 2
concurrency = 2
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
{prices}
"""
PRICES = '[prices."m-a"]\nprompt_per_mtok = 2.5\ncompletion_per_mtok = 10.0\n'


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((folder / "runs").iterdir())}


def _run(config: Path, out: Path, *extra: str):
    args = ["run", str(config), "--out", str(out), "--no-report", "--no-progress", *extra]
    return CliRunner().invoke(app, args)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cap")
    with OpenAIServer(lambda body: text("Could you say more?")) as server:
        config = tmp / "study.toml"
        config.write_text(STUDY.format(url=server.base_url, prices=PRICES))
        yield tmp, config


def test_the_cap_stops_keeps_finished_runs_and_a_higher_bound_finishes(served):
    tmp, config = served
    full = _run(config, tmp / "full")
    assert full.exit_code == 0, full.output
    spent = sum(e.usage.price_usd or 0 for e in StudyDir(tmp / "full").read_index() if e.usage)
    assert spent > 0
    bound = spent / 2
    capped = _run(config, tmp / "capped", "--max-cost", f"{bound}")
    assert capped.exit_code == CAPPED_EXIT, capped.output
    assert f"cost cap: ${bound:.2f}" in capped.output
    assert "stopped at the cost cap:" in capped.output and "--max-cost USD" in capped.output
    entries = list(StudyDir(tmp / "capped").read_index())
    assert 0 < len(entries) < len(list(StudyDir(tmp / "full").read_index()))
    assert sum(e.usage.price_usd or 0 for e in entries if e.usage) <= bound
    kept = _files(tmp / "capped")
    resumed = _run(config, tmp / "capped", "--max-cost", f"{spent * 10}")
    assert resumed.exit_code == 0, resumed.output
    assert "resumed study" in resumed.output and "stopped at the cost cap" not in resumed.output
    after = _files(tmp / "capped")
    assert {name: after[name] for name in kept} == kept  # finished runs untouched
    assert after == _files(tmp / "full")  # and the study ends as one uncapped run does


def test_a_bound_the_first_run_would_cross_starts_nothing_when_zero(served):
    tmp, config = served
    result = _run(config, tmp / "zero", "--max-cost", "0")
    assert result.exit_code == CAPPED_EXIT, result.output
    assert not list(StudyDir(tmp / "zero").read_index())


def test_an_unpriced_model_makes_the_cap_uncheckable_and_is_refused(tmp_path):
    config = tmp_path / "study.toml"
    config.write_text(STUDY.format(url="https://api.example.com/v1", prices=""))
    result = _run(config, tmp_path / "out", "--max-cost", "5", "--no-preflight")
    assert result.exit_code == 2
    assert "cost cap cannot be checked: m-a has no price" in result.output
    assert '[prices."m-a"]' in result.output
    assert not (tmp_path / "out").exists()


def test_the_cap_waits_for_runs_in_flight_before_it_stops():
    """The verdict: start while the projection fits, wait while units in flight may
    settle it, stop only with none in flight."""
    tally = CostTally({"m": ModelPrice(prompt_per_mtok=1e6, completion_per_mtok=0)})
    cap = CostCap(1.0, tally)
    assert cap.verdict(0) == "start" and cap.verdict(1) == "wait"  # no estimate yet
    tally.study = lambda: _Totals(0.3, 1)  # type: ignore[method-assign]
    assert cap.verdict(0) == "start"  # 0.3 + 2 * 0.3 <= 1
    assert cap.verdict(1) == "wait" and not cap.stopped
    tally.study = lambda: _Totals(0.6, 2)  # type: ignore[method-assign]
    assert cap.verdict(0) == "stop" and cap.stopped


class _Totals:
    def __init__(self, price_usd: float, runs: int):
        self.price_usd = price_usd
        self.runs = runs


def test_runs_still_being_recorded_count_against_the_cap(served, monkeypatch):
    """A run is recorded behind its worker (run/writer.py): while its index line waits
    its cost is not counted yet, so its unit stays in flight for the cap until it is."""
    import time

    tmp, config = served
    full = StudyDir(tmp / "full")
    if not full.index.exists():
        assert _run(config, tmp / "full").exit_code == 0
    spent = sum(e.usage.price_usd or 0 for e in full.read_index() if e.usage)
    append = StudyDir.append_index

    def slow(self, entry):
        time.sleep(0.1)
        append(self, entry)

    monkeypatch.setattr(StudyDir, "append_index", slow)
    bound = spent / 3
    capped = _run(config, tmp / "slow", "--max-cost", f"{bound}")
    assert capped.exit_code == CAPPED_EXIT, capped.output
    entries = list(StudyDir(tmp / "slow").read_index())
    assert entries and sum(e.usage.price_usd or 0 for e in entries if e.usage) <= bound
