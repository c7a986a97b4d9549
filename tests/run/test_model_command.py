"""``sscbench run --model PROVIDER/NAME`` in one command against the local test server
(127.0.0.1): measurements and a report; a wrong key stops in the preflight before anything
is created (exit 2); an outage mid-study loses no run for good (``--retry-missing``); a
study whose every run is missing exits 1 with the cause."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sscbench.cli import app
from sscbench.study.folder import StudyDir
from sscbench.terminal import count
from sscbench.testing import OpenAIServer, text, tool_call

KEY = "sk-test-right-key"
STUDY = """
[study]
repetitions = 1
concurrency = 1
[world]
domains = ["airline"]
[cases]
operators = ["ReturnDate"]
per_operator = 2
max_steps = {ReturnDate = 6}
[[agents]]
id = "trusting"
profile = "trusting"
"""


class Model:
    """A deterministic model: a lookup after each user message, then a question; from
    request ``outage_at`` on the server answers 503 (an outage), until ``server.outage``
    is cleared."""

    def __init__(self, outage_at: int | None = None):
        self.outage_at = outage_at
        self.answered = 0
        self.lock = threading.Lock()
        self.server = OpenAIServer(self, api_key=KEY)

    def __call__(self, body: dict) -> dict:
        with self.lock:
            self.answered += 1
            if self.outage_at is not None and self.answered >= self.outage_at:
                self.server.outage = True
                self.outage_at = None
        if body["messages"][-1]["role"] == "tool" or not body.get("tools"):
            return text(f"Could you say more? ({len(body['messages'])})")
        number = len(body["messages"])
        return tool_call("get_reservation_details", {"reservation_id": "ZFA04Y"}, f"c{number}")


@pytest.fixture(autouse=True)
def _fast_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """Retries without waiting (the endpoint's default backoff is seconds)."""
    monkeypatch.setattr("sscbench.llm.retry.backoff_delay", lambda *a, **k: 0.0)


def _run(tmp_path: Path, model: Model, out: Path, *extra: str, key: str = KEY):
    study = tmp_path / "study.toml"
    study.write_text(STUDY, "utf-8")
    args = ["run", str(study), "--model", "openai/gpt-test", "--base-url", model.server.base_url]
    args += ["--out", str(out), "--no-progress", *extra]
    return CliRunner().invoke(app, args, env={"OPENAI_API_KEY": key, "COLUMNS": "400"})


def _index(out: Path) -> dict[str, dict]:
    return {e.run_id: e.model_dump() for e in StudyDir(out).read_index()}


def test_one_command_measures_and_reports(tmp_path: Path) -> None:
    model = Model()
    with model.server:
        result = _run(tmp_path, model, tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert "user simulator: scripted" in result.output
    assert "preflight: model gpt-test at" in result.output and "key accepted" in result.output
    out = tmp_path / "out"
    config = json.loads((out / "config.json").read_text())["config"]
    assert [a["id"] for a in config["agents"]] == ["openai-gpt-test"]  # replaced the scripted
    rows = (out / "measurements.jsonl").read_text().splitlines()
    assert len(rows) == len(_index(out)) > 0
    assert (out / "report" / "report.html").exists()
    assert "No run is missing." in (out / "report" / "report.html").read_text()


def test_wrong_key_stops_before_anything_is_created(tmp_path: Path) -> None:
    model = Model()
    with model.server:
        result = _run(tmp_path, model, tmp_path / "out", key="sk-wrong-key")
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "$OPENAI_API_KEY was refused" in lines[0], result.output
    assert "HTTP 401" in lines[0] and "sk-wrong-key" not in result.output
    assert not (tmp_path / "out").exists()
    assert len(model.server.requests) == 1  # one cheap request, no run


def test_outage_mid_study_then_retry_missing_loses_nothing(tmp_path: Path) -> None:
    model = Model(outage_at=8)  # the preflight and the first clean run (6 requests) pass
    out = tmp_path / "out"
    with model.server:
        first = _run(tmp_path, model, out, "--repetitions", "3")
        assert first.exit_code == 0, first.output
        before = _index(out)
        missing = {k for k, v in before.items() if v["status"] == "missing"}
        kept = {k: v for k, v in before.items() if v["status"] != "missing"}
        assert missing and kept, first.output
        assert "outage" in first.output and "--retry-missing" in first.output
        report = (out / "report" / "report.html").read_text()
        assert f"{len(missing)} runs missing" in report or "1 run missing" in report

        again = _run(
            tmp_path, model, out, "--repetitions", "3"
        )  # a plain resume keeps the missing runs
        assert _index(out) == before, again.output

        model.server.outage = False
        retried = _run(tmp_path, model, out, "--repetitions", "3", "--retry-missing")
    assert retried.exit_code == 0, retried.output
    after = _index(out)
    assert set(after) == set(before)
    assert all(v["status"] != "missing" for v in after.values()), retried.output
    assert {k: after[k] for k in kept} == kept  # every finished run kept as it was
    assert f"{count(len(missing), 'missing run')} taken up again" in retried.output


def test_every_run_missing_exits_with_the_cause(tmp_path: Path) -> None:
    model = Model(outage_at=1)  # the preflight passes, then the endpoint is down
    with model.server:
        result = _run(tmp_path, model, tmp_path / "out")
    assert result.exit_code == 1, result.output
    assert "error: every run of the study is missing: outage (agent HTTP 503" in result.output
    assert not (tmp_path / "out" / "report").exists()


def test_plan_names_the_user_simulator_and_unset_keys() -> None:
    args = ["plan", "--model", "openai/gpt-4o", "--model", "ollama/llama3.1", "--world", "airline"]
    args += ["--operators", "ReturnDate"]
    result = CliRunner().invoke(app, args, env={"OPENAI_API_KEY": "", "COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    assert "user simulator: scripted" in result.output
    assert "keys: $OPENAI_API_KEY unset" in result.output  # ollama's local server needs none
    assert "ollama-llama3.1:" in result.output
    keyed = CliRunner().invoke(app, args, env={"OPENAI_API_KEY": "sk-x", "COLUMNS": "400"})
    assert "every key variable the endpoints need is set" in keyed.output


def test_a_dead_or_trickling_endpoint_fails_the_preflight_creating_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sscbench.testing import Trickle, sequence

    monkeypatch.setattr("sscbench.llm.preflight.PREFLIGHT_TIMEOUT_S", 0.5)
    study = tmp_path / "study.toml"
    study.write_text(STUDY, "utf-8")
    with OpenAIServer() as gone:
        url = gone.base_url  # a port nobody listens on once the server stopped
    with OpenAIServer(sequence(then=Trickle(interval=0.05, endless=True))) as server:
        for base, out in ((url, "dead"), (server.base_url, "trickled")):
            args = ["run", str(study), "--model", "vllm/m", "--base-url", base]
            result = CliRunner().invoke(app, [*args, "--out", str(tmp_path / out)])
            assert result.exit_code == 2, result.output
            assert "error: preflight: model m at" in result.output
            assert "endpoint unreachable or not answering" in result.output
            assert not (tmp_path / out).exists()
