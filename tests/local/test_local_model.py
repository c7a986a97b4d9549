"""A real model end to end, offline: ``sscbench serve-local`` with SmolLM2-135M (slow tier).

The server runs as a subprocess on a free port for the whole module. The tests check
the protocol (standard tool calls, tool results reaching the prompt, text replies,
``max_tokens``, ``content: null``, streaming refused) and then run a small faulted
study with the ``openai`` agent against it: every stage must cope with the tiny
model's messy output, and harness errors must stay missing runs, never outcomes.
Task success is never asserted. Timings and outcome counts are printed at the end
(and written as JSON to ``$SSCBENCH_LOCAL_METRICS`` when it is set).

This is the llama-cpp-python tier (``serve-local --server llama-cpp-python``, our
ChatML tool-call handler, the ``local-handler`` extra, compiled from source). CI runs
the prebuilt tier instead (``tests/test_real_model_act.py``). Skipped when
llama-cpp-python or the weights are missing, unless ``SSCBENCH_REQUIRE_LOCAL_HANDLER=1``,
which turns the skip into a failure.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections import Counter
from pathlib import Path
from statistics import median
from typing import Any

import openai
import pytest

from sscbench.agents.openai_agent import OpenAIAgent, openai_agent_factory
from sscbench.core.agent import RunContext
from sscbench.core.ledger import AssistantEvent, HarnessError, ToolEvent
from sscbench.faults.registry import get_operator
from sscbench.local.model import AUTO_ALIAS, INSTALL_HINT, find_packaged_gguf
from sscbench.measure.study import measure_run, measure_study
from sscbench.report.build import build_report
from sscbench.run.builders import build_cases, build_user_factory, derive_seed
from sscbench.run.episode import run_episode
from sscbench.run.executor import execute_study
from sscbench.study.config import parse_config
from sscbench.study.folder import StudyDir
from sscbench.study.ledgers import read_evaluator, read_ledger
from sscbench.study.worlds import build_worlds

pytestmark = pytest.mark.slow

REQUIRE = os.environ.get("SSCBENCH_REQUIRE_LOCAL_HANDLER") == "1"
STARTUP_TIMEOUT = 180.0
METRICS: dict[str, Any] = {}

WEATHER = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "The current weather of a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]


def missing_tier() -> str | None:
    """Why the local tier cannot run here, or ``None``."""
    if importlib.util.find_spec("llama_cpp") is None:
        return f"llama-cpp-python is not installed; {INSTALL_HINT}"
    try:
        import llama_cpp.server.app  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        return f"llama-cpp-python's server cannot be imported ({exc}); {INSTALL_HINT}"
    if find_packaged_gguf() is None:
        return f"the SmolLM2 weights are not installed; {INSTALL_HINT}"
    return None


class LocalServer:
    """The ``sscbench serve-local`` subprocess and its base URL."""

    def __init__(self, proc: subprocess.Popen, base_url: str, startup: float):
        self.proc = proc
        self.base_url = base_url
        self.startup = startup
        self.client = openai.OpenAI(base_url=base_url, api_key="any-key", max_retries=0)

    def last_prompt(self) -> str:
        root = self.base_url.removesuffix("/v1")
        with urllib.request.urlopen(f"{root}/sscbench/last-prompt", timeout=10) as reply:
            return json.load(reply)["prompt"]


def _wait_for_url(proc: subprocess.Popen, timeout: float) -> str:
    lines: queue.Queue = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=0.5)
        except queue.Empty:
            continue
        if line is None:
            break
        if line.startswith("serving "):
            return line.split()[1]
    raise AssertionError("serve-local printed no base URL")


def _wait_ready(base_url: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{base_url}/models", timeout=5) as reply:
                if reply.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"{base_url}/models never answered")


@pytest.fixture(scope="module")
def server(request, tmp_path_factory):
    reason = missing_tier()
    if reason is not None:
        if REQUIRE:
            pytest.fail(f"SSCBENCH_REQUIRE_LOCAL_HANDLER=1 but the tier is missing: {reason}")
        pytest.skip(reason)
    log = tmp_path_factory.mktemp("serve-local") / "stderr.log"
    started = time.perf_counter()
    with log.open("w") as stderr:
        proc = subprocess.Popen(
            [
                sys.executable,
                *("-m", "sscbench", "serve-local", "--port", "0"),
                *("--server", "llama-cpp-python"),
            ],
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
        )
    try:
        base_url = _wait_for_url(proc, STARTUP_TIMEOUT)
        _wait_ready(base_url, STARTUP_TIMEOUT)
    except AssertionError:
        proc.kill()
        proc.wait()
        raise AssertionError(f"serve-local did not start: {log.read_text()[-2000:]}") from None
    local = LocalServer(proc, base_url, time.perf_counter() - started)
    METRICS["server_start_s"] = round(local.startup, 2)
    yield local
    proc.send_signal(signal.SIGTERM)
    try:
        METRICS["server_exit_status_on_sigterm"] = proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        METRICS["server_exit_status_on_sigterm"] = "killed after 60 s"
    _report(request)


def _report(request) -> None:
    text = json.dumps(METRICS, indent=2, sort_keys=True)
    path = os.environ.get("SSCBENCH_LOCAL_METRICS")
    if path:
        Path(path).write_text(text + "\n", encoding="utf-8")
    # printed in the terminal summary by conftest.pytest_terminal_summary
    request.config.sscbench_local_metrics = text


# ---- protocol -------------------------------------------------------------------------
def test_required_tool_call_is_a_standard_openai_call(server):
    started = time.perf_counter()
    reply = server.client.chat.completions.create(
        model="anything",
        messages=[{"role": "user", "content": "What is the weather in Paris?"}],
        tools=WEATHER,
        tool_choice="required",
        temperature=0,
        max_tokens=64,
    )
    METRICS["short_prompt_turn_s"] = round(time.perf_counter() - started, 2)
    choice = reply.choices[0]
    assert choice.finish_reason == "tool_calls"
    (call,) = choice.message.tool_calls
    assert call.type == "function" and call.id.startswith("call_")
    assert call.function.name == "get_weather"
    assert isinstance(json.loads(call.function.arguments), dict)


def test_named_tool_choice_forces_that_tool(server):
    reply = server.client.chat.completions.create(
        model=AUTO_ALIAS,
        messages=[{"role": "user", "content": "Hello!"}],
        tools=WEATHER,
        tool_choice={"type": "function", "function": {"name": "get_weather"}},
        temperature=0,
        max_tokens=64,
    )
    (call,) = reply.choices[0].message.tool_calls
    assert call.function.name == "get_weather"
    assert "city" in json.loads(call.function.arguments)


def test_tool_results_and_null_content_round_trip_into_the_prompt(server):
    marker = "MARKER-7f3a <b>&</b>"
    messages = [
        {"role": "system", "content": "You answer weather questions."},
        {"role": "user", "content": "Weather in Oslo?"},
        {
            "role": "assistant",
            "content": None,  # what OpenAI clients send with tool calls
            "tool_calls": [
                {
                    "id": "call_x1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_x1", "content": f"{marker}: 3 degrees, snow"},
    ]
    reply = server.client.chat.completions.create(
        model="anything", messages=messages, tools=WEATHER, temperature=0, max_tokens=48
    )
    message = reply.choices[0].message
    assert message.tool_calls or isinstance(message.content, str)
    prompt = server.last_prompt()
    assert (
        f'<tool_response name="get_weather">\n{marker}: 3 degrees, snow\n</tool_response>' in prompt
    )
    assert '{"name": "get_weather", "arguments": {"city": "Oslo"}}' in prompt
    assert "&amp;" not in prompt
    assert prompt.endswith("<|im_start|>assistant\n")


def test_text_reply_under_auto_is_not_empty(server):
    reply = server.client.chat.completions.create(
        model="anything",
        messages=[{"role": "user", "content": "Say hello to me in one short sentence."}],
        tools=WEATHER,
        tool_choice="auto",
        temperature=0,
        max_tokens=32,
    )
    message = reply.choices[0].message
    assert message.tool_calls or (isinstance(message.content, str) and message.content.strip())
    METRICS["auto_reply_was_text"] = not message.tool_calls


def test_max_tokens_is_honoured_for_text_and_calls(server):
    text = server.client.chat.completions.create(
        model="anything",
        messages=[{"role": "user", "content": "Write a long story about a cat."}],
        temperature=0,
        max_tokens=5,
    )
    assert text.usage.completion_tokens <= 5 and text.choices[0].finish_reason == "length"
    cut = server.client.chat.completions.create(
        model="anything",
        messages=[{"role": "user", "content": "Weather in Lima?"}],
        tools=WEATHER,
        tool_choice="required",
        temperature=0,
        max_tokens=6,
    )
    assert cut.usage.completion_tokens <= 6
    message = cut.choices[0].message
    # a call cut short keeps its name and raw arguments, or stays text: either is handled
    assert message.tool_calls or isinstance(message.content, str)


def test_streaming_is_refused_clearly(server):
    with pytest.raises(openai.BadRequestError, match="stream=true is not supported"):
        server.client.chat.completions.create(
            model="anything", messages=[{"role": "user", "content": "hi"}], stream=True
        )


# ---- a small faulted study --------------------------------------------------------------
STUDY = """
[study]
name = "real-model"
seed = 3
repetitions = 1
concurrency = 1

[world]
source = "generated"
domains = ["airline"]

[user]
kind = "scripted"

[cases]
operators = ["ReturnDate", "WriteEffect"]
per_operator = 1
max_steps = {{ ReturnDate = {steps}, WriteEffect = {steps} }}

[[agents]]
id = "smollm2"
kind = "openai"

[agents.endpoint]
base_url = "{base_url}"
model = "smollm2-135m-instruct"
temperature = 0.0
max_tokens = 128
api_key_env = "SSCBENCH_LOCAL_API_KEY"
max_retries = 1
backoff_initial = 0.2
timeout = 300

[[agents]]
id = "dead-endpoint"
kind = "openai"

[agents.endpoint]
base_url = "http://127.0.0.1:{dead_port}/v1"
model = "nothing-listens-here"
max_retries = 0
timeout = 5
unreachable_after = 0
"""
STEPS = 8


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def timed_turns(monkeypatch):
    """Wall time of every agent turn (one chat completion each)."""
    latencies: list[float] = []
    original = OpenAIAgent.act

    async def act(self, ledger):
        started = time.perf_counter()
        try:
            return await original(self, ledger)
        finally:
            if self.config.model == AUTO_ALIAS:
                latencies.append(time.perf_counter() - started)

    monkeypatch.setattr(OpenAIAgent, "act", act)
    return latencies


def messy_output(ledgers: list[list[Any]]) -> Counter:
    """Counts of what a tiny model gets wrong in its turns (for the record, not asserted)."""
    counts: Counter = Counter()
    for ledger in ledgers:
        for event in ledger:
            if isinstance(event, AssistantEvent):
                counts["assistant_turns"] += 1
                if not event.tool_calls and not (event.content or "").strip():
                    counts["empty_replies"] += 1
                for call in event.tool_calls:
                    counts["tool_calls"] += 1
                    try:
                        json.loads(call.arguments.strip() or "{}")  # empty means no arguments
                    except ValueError:
                        counts["malformed_arguments"] += 1
            elif isinstance(event, ToolEvent) and event.content.startswith("Error"):
                counts["error_observations"] += 1
    return counts


def test_small_faulted_study_copes_with_real_output(server, tmp_path, timed_turns, monkeypatch):
    monkeypatch.delenv("SSCBENCH_LOCAL_API_KEY", raising=False)  # any key (or none) works
    text = STUDY.format(base_url=server.base_url, dead_port=_closed_port(), steps=STEPS)
    config = parse_config(text, "real-model.toml")
    out = tmp_path / "study"
    started = time.perf_counter()
    summary = execute_study(config, text, out, progress=False)
    study_seconds = time.perf_counter() - started

    # every planned run has its index line; statuses are the executor's three
    assert summary.finished_runs == summary.planned_runs
    store = StudyDir(out)
    entries = list(store.read_index())
    assert {e.status for e in entries} <= {"completed", "not-qualified", "missing"}
    real = [e for e in entries if e.config_id == "smollm2"]
    dead = [e for e in entries if e.config_id == "dead-endpoint"]

    # the dead endpoint: harness errors are missing runs, never outcomes
    assert dead and all(e.status == "missing" and e.reward is None for e in dead)
    for entry in dead:
        if entry.kind == "clean":
            evaluator = read_evaluator(store.evaluator_path(entry.run_id))
            assert any(isinstance(event, HarnessError) for event in evaluator)

    # the real model: its clean runs complete (messy or not) and are scored 0 or 1
    clean = [e for e in real if e.kind == "clean"]
    assert clean and all(e.status == "completed" for e in clean), [
        (e.run_id, e.status) for e in clean
    ]
    ledgers = []
    for entry in clean:
        assert entry.reward in (0.0, 1.0)
        assert entry.termination in ("max_steps", "user_stop", "transfer")
        evaluator = read_evaluator(store.evaluator_path(entry.run_id))
        assert not any(isinstance(event, HarnessError) for event in evaluator)
        ledgers.append(read_ledger(store, entry.run_id))
    for entry in real:
        if entry.kind == "faulted":
            clean_entry = next(e for e in clean if e.run_id == entry.clean_run_id)
            expected = "completed" if clean_entry.reward == 1.0 else "not-qualified"
            assert entry.status == expected

    # measurement and report take it all
    path, rows = measure_study(out)
    assert rows == len(entries)
    measured = [json.loads(line) for line in path.read_text().splitlines()]
    for row in measured:
        if row["status"] == "missing":
            assert row["Z_S"] == "missing" and row["reward"] is None
    report = build_report(out)
    assert Path(report).exists()

    METRICS["study"] = {
        "planned_runs": summary.planned_runs,
        "statuses": dict(Counter(f"{e.config_id}/{e.kind}/{e.status}" for e in entries)),
        "clean_rewards": [e.reward for e in clean],
        "terminations": dict(Counter(e.termination for e in clean)),
        "measurement_strata": dict(Counter(row["Z_S"] for row in measured)),
        "messy_output": dict(messy_output(ledgers)),
        "seconds": round(study_seconds, 1),
    }
    _latencies("study", timed_turns)


def _latencies(where: str, latencies: list[float]) -> None:
    if not latencies:
        return
    METRICS.setdefault("turn_latency_s", {})[where] = {
        "turns": len(latencies),
        "first": round(latencies[0], 2),
        "median": round(median(latencies), 2),
        "median_after_first": round(median(latencies[1:]), 2) if len(latencies) > 1 else None,
        "max": round(max(latencies), 2),
    }


CUT_TOKENS = 20
"""A reply cap that cuts the model's calls short: their arguments arrive as broken JSON."""


def malformed_calls_get_errors(ledger: list[Any]) -> int:
    """Check every call with unparsable arguments got a tool error; return their count."""
    observations = {e.tool_call_id: e.content for e in ledger if isinstance(e, ToolEvent)}
    malformed = 0
    for event in ledger:
        if not isinstance(event, AssistantEvent) or not event.tool_calls:
            continue
        call = event.tool_calls[0]  # the one call per turn that is executed
        try:
            json.loads(call.arguments.strip() or "{}")
        except ValueError:
            malformed += 1
            assert observations[call.id].startswith("Error: arguments are not valid JSON")
    return malformed


def test_faulted_runs_are_measured_whatever_the_model_does(server, timed_turns):
    """The tiny model rarely solves a clean task, so the executor rarely qualifies a
    faulted run; here each case's faulted run is executed directly (same episode
    function, same injections) and measured, to exercise injection and measurement
    on real output — once with the study's reply cap and once with a cap that cuts
    calls short, so that broken arguments from the real model reach the execution
    point."""
    text = STUDY.format(base_url=server.base_url, dead_port=_closed_port(), steps=STEPS)
    config = parse_config(text, "real-model.toml")
    worlds = build_worlds(config)
    cases = build_cases(config, worlds)
    endpoint = config.agents[0].endpoint
    factories = {
        "study cap": openai_agent_factory(endpoint),
        f"cut at {CUT_TOKENS} tokens": openai_agent_factory(
            endpoint.model_copy(update={"max_tokens": CUT_TOKENS})
        ),
    }
    users = build_user_factory(config.user)

    async def run_all() -> list[tuple[str, Any, Any]]:
        results = []
        try:
            for label, factory in factories.items():
                for case in cases:
                    world = worlds[case.domain]
                    task = world.task(case.task_id)
                    seed = derive_seed(config.study.seed, case.case_id, "smollm2", 0)
                    context = RunContext(
                        world=world,
                        task=task,
                        system_prompt=world.policy,
                        tools=world.tool_schemas(),
                        seed=seed,
                        repetition=0,
                    )
                    result = await run_episode(
                        world,
                        task,
                        factory(context),
                        users(context),
                        system_prompt=world.policy,
                        injections=get_operator(case.operator).injections(case, world),
                        max_steps=case.max_steps,
                    )
                    results.append((label, case, result))
        finally:
            for factory in factories.values():
                await factory.aclose()
        return results

    results = asyncio.run(run_all())
    strata: Counter = Counter()
    malformed: Counter = Counter()
    for label, case, result in results:
        assert result.end is not None
        assert result.end.status == "completed", result.evaluator
        assert not any(isinstance(event, HarnessError) for event in result.evaluator)
        malformed[label] += malformed_calls_get_errors(result.ledger)
        row = measure_run(case, result.ledger, [*result.evaluator, result.end]).columns()
        assert isinstance(row["Z_S"], str)
        if row.get("triggered"):
            assert result.triggered
        strata[f"{label}: {row['Z_S']}"] += 1
    # the cut replies did reach the execution point as broken JSON (and got errors)
    assert malformed[f"cut at {CUT_TOKENS} tokens"] > 0
    METRICS["direct_faulted_runs"] = {
        "runs": len(results),
        "triggered": sum(1 for _, _, r in results if r.triggered),
        "measurement_strata": dict(strata),
        "malformed_calls_answered_with_tool_errors": dict(malformed),
        "messy_output": dict(messy_output([r.ledger for _, _, r in results])),
    }
    _latencies("direct_faulted", timed_turns)
