"""Hostile model output through the real path: an openai agent against the local server.

Each test drives ``sscbench run`` (then ``measure`` and ``report``) as a user would,
with a scripted endpoint sending what a broken or hostile model may send.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import traceback
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sscbench.agents.openai_agent import OpenAIAgent
from sscbench.cli import app
from sscbench.core.ledger import (
    AssistantEvent,
    HarnessError,
    SystemEvent,
    ToolEvent,
    Usage,
    UserEvent,
    WriteRecord,
)
from sscbench.errors import HarnessFailure
from sscbench.llm.endpoint import OpenAIAgentConfig
from sscbench.run.executor import execute_study
from sscbench.study.config import parse_config
from sscbench.study.folder import StudyDir
from sscbench.study.ledgers import read_evaluator, read_ledger
from sscbench.testing import Fail, OpenAIServer, Raw, Trickle, sequence, text

STUDY = """
[study]
name = "hostile"
seed = 1
repetitions = 1
concurrency = 1

[world]
source = "generated"
domains = ["airline"]

[cases]
operators = ["ReturnDate"]
per_operator = 1
max_steps = {{ ReturnDate = 8 }}

[[agents]]
id = "model"
kind = "openai"

[agents.endpoint]
base_url = "{base_url}"
model = "scripted"
max_retries = {max_retries}
backoff_initial = 0.01
backoff_max = 0.05
timeout = {timeout}
{extra}
"""

RESERVATION = "XZ9873"
SOLUTION = {
    "reservation_id": RESERVATION,
    "cabin": "business",
    "flights": [
        {"flight_number": "HAT060", "date": "2024-05-18"},
        {"flight_number": "HAT044", "date": "2024-05-18"},
        {"flight_number": "HAT061", "date": "2024-05-19"},
        {"flight_number": "HAT014", "date": "2024-05-19"},
    ],
    "payment_id": "credit_card_1727825",
}
"""The ground truth of the case's task (generated world, seed 0): a model that solves it."""


def write_study(tmp_path: Path, base_url: str, *, max_retries=0, timeout=10, extra="") -> Path:
    path = tmp_path / "study.toml"
    path.write_text(
        STUDY.format(base_url=base_url, max_retries=max_retries, timeout=timeout, extra=extra)
    )
    return path


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str = ""


def sscbench(*args: str, env: dict | None = None) -> Ran:
    """The command line as a user runs it, in this process (where the server lives)."""
    result = CliRunner().invoke(app, list(args), env=env)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        trace = "".join(traceback.format_exception(result.exception))
        return Ran(1, result.output, trace)
    return Ran(result.exit_code, result.output)


def sscbench_bounded(*args: str, timeout: float) -> Ran:
    """:func:`sscbench` in a thread given ``timeout`` seconds: a hang fails the test."""
    results: list[Ran] = []
    worker = threading.Thread(target=lambda: results.append(sscbench(*args)), daemon=True)
    worker.start()
    worker.join(timeout)
    assert results, f"sscbench {' '.join(args)} still running after {timeout} s"
    return results[0]


def flat(text: str) -> str:
    """Console text with rich's line wrapping undone."""
    return " ".join(text.split())


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def index(out: Path) -> dict[str, Any]:
    """The index entries by kind (one case, one configuration, one repetition)."""
    return {e.kind: e for e in StudyDir(out).read_index()}


def turns(body: dict[str, Any]) -> int:
    """How many assistant turns the prompt already holds."""
    return sum(1 for m in body["messages"] if m["role"] == "assistant")


# ---- item 1: lone surrogates ------------------------------------------------------
LONE = "\ud800"


def surrogate_model(body: dict[str, Any]) -> dict[str, Any]:
    """Solves the task, with lone surrogates in its text and in a write call's arguments."""
    step = turns(body)
    if step == 0:  # a raw surrogate in the text (the server sends it as a JSON escape)
        return {
            "content": f"Let me look {LONE} that up.",
            "tool_calls": [
                {"name": "get_reservation_details", "arguments": {"reservation_id": RESERVATION}}
            ],
        }
    if step == 1:  # a write whose JSON arguments text holds a \ud800 escape
        return {
            "content": None,
            "tool_calls": [
                {"name": "cancel_reservation", "arguments": '{"reservation_id": "\\ud800X"}'}
            ],
        }
    if step == 2:  # a write whose arguments text holds the raw code point
        return {
            "content": None,
            "tool_calls": [
                {"name": "cancel_reservation", "arguments": '{"reservation_id": "' + LONE + 'Y"}'}
            ],
        }
    if step == 3:
        return {
            "content": None,
            "tool_calls": [{"name": "update_reservation_flights", "arguments": SOLUTION}],
        }
    return text(f"Your flights are changed \udfff {LONE}. Anything else?")


@pytest.fixture(scope="module")
def solved_study(tmp_path_factory) -> tuple[Path, list[Any]]:
    """A finished study by :func:`surrogate_model` (its faulted run is triggered and has a
    dependent use) and the prompts the endpoint received."""
    root = tmp_path_factory.mktemp("solved")
    out = root / "out"
    with OpenAIServer(surrogate_model) as server:
        config = write_study(root, server.base_url)
        ran = sscbench("run", str(config), "--out", str(out), "--no-progress", "--no-report")
        requests = server.requests
    assert ran.returncode == 0, ran.stdout + ran.stderr
    return out, requests


def test_lone_surrogates_are_stored_losslessly_and_measured(solved_study):
    out, requests = solved_study
    # the model was sent back exactly what it emitted (as JSON escapes on the wire)
    assert any(m.get("content") == f"Let me look {LONE} that up." for m in requests[-1]["messages"])
    measured = sscbench("measure", str(out))
    assert measured.returncode == 0, measured.stdout + measured.stderr
    reported = sscbench("report", str(out))
    assert reported.returncode == 0, reported.stdout + reported.stderr

    store = StudyDir(out)
    entries = {e.kind: e for e in store.read_index()}
    assert entries["clean"].status == "completed" and entries["clean"].reward == 1.0
    assert entries["faulted"].status == "completed"
    for entry in entries.values():
        raw = store.ledger_path(entry.run_id).read_bytes()
        raw.decode("utf-8")  # valid UTF-8 on disk
        assert b"\\ud800" in raw
        ledger = read_ledger(store, entry.run_id)
        texts = [e.content for e in ledger if isinstance(e, AssistantEvent) and e.content]
        assert f"Let me look {LONE} that up." in texts
        assert f"Your flights are changed \udfff {LONE}. Anything else?" in texts
        calls = [c.arguments for e in ledger if isinstance(e, AssistantEvent) for c in e.tool_calls]
        assert '{"reservation_id": "\\ud800X"}' in calls  # the text as emitted
        assert '{"reservation_id": "' + LONE + 'Y"}' in calls
        writes = [
            e
            for e in read_evaluator(store.evaluator_path(entry.run_id))
            if isinstance(e, WriteRecord)
        ]
        assert {"reservation_id": LONE + "X"} in [w.arguments for w in writes]
        assert {"reservation_id": LONE + "Y"} in [w.arguments for w in writes]
    rows = [json.loads(line) for line in (out / "measurements.jsonl").read_text().splitlines()]
    faulted = next(r for r in rows if r["kind"] == "faulted")
    assert faulted["Z_S"] not in ("missing", "measurement-missing"), faulted


# ---- item 10: the timeout bounds the whole response -------------------------------
@pytest.mark.parametrize(
    "trickle",
    [
        Trickle(text("x" * 300), interval=0.05),  # would finish after ~20 s per attempt
        Trickle(interval=0.05, endless=True),  # would never finish
    ],
    ids=["slow", "endless"],
)
def test_a_trickled_response_is_cut_at_the_timeout_of_each_attempt(tmp_path, trickle):
    out = tmp_path / "out"
    with OpenAIServer(sequence(then=trickle)) as server:
        config = write_study(tmp_path, server.base_url, max_retries=1, timeout=0.5)
        ran = sscbench_bounded(
            "run",
            str(config),
            "--out",
            str(out),
            "--no-progress",
            "--no-report",
            "--no-preflight",  # the runs' own timeout is tested (the preflight's: tests/llm)
            timeout=90,
        )
        attempts = len(server.requests)
    assert ran.returncode == 1, ran.stdout + ran.stderr  # every run missing: exit 1
    assert "every run of the study is missing" in ran.stdout
    entries = index(out)
    clean = entries["clean"]
    assert clean.status == "missing" and clean.reward is None
    if trickle.endless:  # it declares a huge length: refused at once by the body cap
        assert clean.reason.startswith("agent bad response: "), clean.reason
        assert "max_response_bytes" in clean.reason and "declared" in clean.reason
        assert attempts == 1  # a body past the cap is not retried
    else:
        assert clean.reason.startswith("agent timed out: "), clean.reason
        assert "failed after 2 attempts" in clean.reason and "timeout of 0.5 s" in clean.reason
        assert attempts == 2  # the first attempt was cut and retried once, then cut again
    assert entries["faulted"].status == "missing"


# ---- item 12: harness errors named, counted, and a dead endpoint stops the study --
def test_missing_runs_carry_a_one_line_reason_and_live_counts(tmp_path):
    with OpenAIServer(sequence(then=Fail(500, "overloaded"))) as server:
        config = write_study(tmp_path, server.base_url, max_retries=1)
        text_ = config.read_text()
        summary = execute_study(
            parse_config(text_, config), text_, tmp_path / "out", progress=False
        )
    entries = index(tmp_path / "out")
    reason = entries["clean"].reason
    assert reason.startswith("agent HTTP 500: chat completion for agent turn 1"), reason
    assert "overloaded" in reason and "\n" not in reason
    assert entries["faulted"].reason == "clean run missing"
    assert summary.missing_reasons == Counter({"agent HTTP 500": 1, "clean run missing": 1})
    from sscbench.run.progress import StudyProgress

    line = StudyProgress(summary, enabled=False)._describe()
    assert "missing 2 (agent HTTP 500 1, clean run missing 1)" in line


def test_a_dead_endpoint_stops_the_study_early_with_a_clear_message(tmp_path):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    out = tmp_path / "out"
    config = write_study(tmp_path, url, max_retries=0)
    ran = sscbench(
        "run", str(config), "--out", str(out), "--no-progress", "--no-report", "--no-preflight"
    )  # the runs' own detection (with the preflight nothing is created: tests/run)
    message = flat(ran.stdout + ran.stderr)
    assert ran.returncode == 2, message
    assert f"{url}: endpoint unreachable: its first 3 requests all failed to connect" in message
    assert "run the same command again" in message
    assert not list(StudyDir(out).read_index())  # no run was recorded missing: a rerun redoes them


def test_unreachable_after_zero_keeps_the_old_behaviour_with_reasons(tmp_path):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    config = write_study(tmp_path, url, extra="unreachable_after = 0")
    ran = sscbench(
        "run",
        str(config),
        "--out",
        str(tmp_path / "out"),
        "--no-progress",
        "--no-report",
        "--no-preflight",
    )
    assert ran.returncode == 1, ran.stdout + ran.stderr  # every run missing: exit 1
    reason = index(tmp_path / "out")["clean"].reason
    assert reason.startswith("agent connection failed: "), reason
    assert "ConnectError" in reason


def test_llm_classifier_against_a_dead_endpoint_stops_measure_early(solved_study, tmp_path):
    study, _ = solved_study
    url = f"http://127.0.0.1:{closed_port()}/v1"
    out = tmp_path / "llm.jsonl"
    ran = sscbench(
        "measure",
        str(study),
        "--classifier",
        "llm",
        "--base-url",
        url,
        "--model",
        "m",
        "--out",
        str(out),
    )
    message = flat(ran.stdout + ran.stderr)
    assert ran.returncode == 2, message
    assert f"{url}: endpoint unreachable: its first 3 requests all failed to connect" in message
    assert not out.exists() and not list(tmp_path.iterdir())  # nothing half-written


# ---- item 15: malformed calls are tool errors the agent sees ----------------------
def malformed_model(body: dict[str, Any]) -> dict[str, Any]:
    """Sends 5,000-deep and 5,000-digit arguments, list content, negative usage; then solves."""
    step = turns(body)
    update = "update_reservation_flights"
    if step == 0:
        deep = '{"reservation_id": ' + "[" * 5000 + "]" * 5000 + "}"
        return {"content": None, "tool_calls": [{"name": update, "arguments": deep}]}
    if step == 1:
        digits = '{"reservation_id": ' + "9" * 5000 + "}"
        return {"content": None, "tool_calls": [{"name": update, "arguments": digits}]}
    if step == 2:
        return {
            "id": "c",
            "object": "chat.completion",
            "created": 0,
            "model": "scripted",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls",
                    "message": {
                        "role": "assistant",
                        "content": [
                            {"type": "text", "text": "Changing "},
                            {"type": "text", "text": "it now."},
                        ],
                        "tool_calls": [
                            {
                                "id": "c3",
                                "type": "function",
                                "function": {"name": update, "arguments": json.dumps(SOLUTION)},
                            }
                        ],
                    },
                }
            ],
            "usage": {"prompt_tokens": -50, "completion_tokens": 7, "total_tokens": -43},
        }
    return text("Your flights are changed. Anything else?")


def test_malformed_calls_are_tool_errors_and_the_run_is_scored(tmp_path):
    out = tmp_path / "out"
    with OpenAIServer(malformed_model) as server:
        ran = sscbench(
            "run", str(write_study(tmp_path, server.base_url)), "--out", str(out), "--no-report"
        )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    entries = index(out)
    assert entries["clean"].status == "completed" and entries["clean"].reward == 1.0
    store = StudyDir(out)
    ledger = read_ledger(store, entries["clean"].run_id)
    observations = [e.content for e in ledger if isinstance(e, ToolEvent)]
    assert observations[0] == "Error: arguments are nested more than 200 levels deep"
    assert observations[1].startswith(
        "Error: arguments cannot be read: Exceeds the limit (4300 digits)"
    )
    texts = [e.content for e in ledger if isinstance(e, AssistantEvent)]
    assert "Changing it now." in texts  # a list of parts is its text, not a Python repr
    evaluator = read_evaluator(store.evaluator_path(entries["clean"].run_id))
    usage = next(e for e in evaluator if isinstance(e, Usage)).agent
    assert usage["invalid_usage"] == 1  # the negative counts were refused, and recorded
    assert min(usage.values()) >= 0 and usage["completion_tokens"] >= 7


# ---- item 16: say what arrived; never store a key or a piece of it ----------------
def _null_message() -> Raw:
    body = {
        "id": "c",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "message": None, "finish_reason": "stop"}],
    }
    return Raw(json.dumps(body).encode())


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            Raw(b"<html><body>502 Bad Gateway</body></html>", "text/html"),
            "a body that is not JSON: '<html><body>502 Bad Gateway</body></html>'",
        ),
        (Raw(b"[1, 2, 3]"), "a JSON list of 3 items, not a chat completion object"),
        (_null_message(), "choices[0].message is null or missing"),
        (
            Raw(b'{"error": "quota"}'),
            "an object without 'choices' (keys: error); its error: 'quota'",
        ),
        (Raw(b"{not json"), "not valid JSON"),
    ],
    ids=["html", "list", "null-message", "error-object", "broken-json"],
)
def test_a_body_without_a_message_says_what_arrived(answer, expected):
    with OpenAIServer(sequence(then=answer)) as server:
        agent = OpenAIAgent(
            OpenAIAgentConfig(base_url=server.base_url, model="m", max_retries=0), []
        )
        ledger = [SystemEvent(step=0, content="p"), UserEvent(step=1, content="hi")]
        with pytest.raises(HarnessFailure) as info:
            asyncio.run(agent.act(ledger))
    assert expected in info.value.message, info.value.message
    assert "empty choices" not in info.value.message
    assert info.value.kind == "bad response"


SHORT_KEY = "k3y9x"
LONG_KEY = "sk-live-4f9QzT7wLm2pXc8vRb1N"


@pytest.mark.parametrize(
    ("key", "echo"),
    [(SHORT_KEY, SHORT_KEY), (LONG_KEY, LONG_KEY[6:16]), (LONG_KEY, LONG_KEY)],
    ids=["short-key", "long-key-fragment", "long-key"],
)
def test_an_echoed_key_or_fragment_never_reaches_disk_or_console(tmp_path, key, echo):
    out = tmp_path / "out"
    answers = sequence(
        text(f"Noted. Your key {echo} is on file. What is your user id?"),
        then=Fail(401, f"Incorrect API key provided: {echo}"),
    )
    with OpenAIServer(answers) as server:
        config = write_study(tmp_path, server.base_url, extra='api_key_env = "SSCBENCH_TEST_KEY"')
        ran = sscbench(
            "run",
            str(config),
            "--out",
            str(out),
            "--no-report",
            "--no-preflight",  # the run itself meets the echo (the preflight would take it)
            env={"SSCBENCH_TEST_KEY": key},
        )
        assert server.log[0].headers["authorization"] == f"Bearer {key}"
    assert ran.returncode == 1, ran.stdout + ran.stderr  # every run missing (401): exit 1
    assert "every run of the study is missing: auth" in ran.stdout
    pieces = {key} if len(key) < 6 else {key[i : i + 6] for i in range(len(key) - 5)}
    written = [ran.stdout, ran.stderr] + [
        p.read_bytes().decode("utf-8", "replace") for p in out.rglob("*") if p.is_file()
    ]
    for blob in written:
        assert not any(piece in blob for piece in pieces)
    entries = index(out)
    assert "***" in entries["clean"].reason and "HTTP 401" in entries["clean"].reason
    ledger = read_ledger(StudyDir(out), entries["clean"].run_id)
    assert "Noted. Your key *** is on file. What is your user id?" in [
        e.content for e in ledger if isinstance(e, AssistantEvent)
    ]
    assert any(
        isinstance(e, HarnessError)
        for e in read_evaluator(StudyDir(out).evaluator_path(entries["clean"].run_id))
    )
