"""Hostile model output through the real path: an openai agent against the local server.

Each test drives ``sscbench run`` (then ``measure`` and ``report``) as a user would,
with a scripted endpoint sending what a broken or hostile model may send.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from sscbench.measure.study import read_evaluator, read_ledger
from sscbench.run.ledger import AssistantEvent, WriteRecord
from sscbench.run.storage import StudyDir
from sscbench.testing.openai_server import OpenAIServer, text

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


def sscbench(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """The command line as a user runs it (the server lives in this process)."""
    return subprocess.run(
        [sys.executable, "-m", "sscbench", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


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


def test_lone_surrogates_are_stored_losslessly_and_measured(tmp_path):
    out = tmp_path / "out"
    with OpenAIServer(surrogate_model) as server:
        config = write_study(tmp_path, server.base_url)
        ran = sscbench("run", str(config), "--out", str(out), "--no-progress")
        assert ran.returncode == 0, ran.stdout + ran.stderr
        # the model was sent back exactly what it emitted (as JSON escapes on the wire)
        later = server.requests[-1]["messages"]
        assert any(m.get("content") == f"Let me look {LONE} that up." for m in later)
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
