"""Nothing the model writes breaks a finished study (issue 29, items 1, 2 and 5).

One study through the real path (an openai agent against the scripted local server,
live OTel traces on) whose model writes U+2028, U+2029 and U+0085 in its text and
arguments, 100,000-deep and 10,000-digit arguments, and lone surrogates in arguments
and a tool name; then ``measure``, ``report``, ``review export``, ``export inspect`` and
``export otel`` run on it as a user would, each succeeding.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from sscbench.core.ledger import AssistantEvent, ToolEvent
from sscbench.study.folder import StudyDir
from sscbench.study.ledgers import read_ledger
from sscbench.testing import OpenAIServer, text
from test_hostile_output import RESERVATION, SOLUTION, STUDY, sscbench, turns

BREAKS = "line\u2028sep\u2029para\x85next"
LONE = "\ud800"
DEEP = '{"reservation_id": ' + "[" * 100_000 + "]" * 100_000 + "}"
DIGITS = '{"reservation_id": ' + "9" * 10_000 + "}"


def hostile_model(body: dict[str, Any]) -> dict[str, Any]:
    """Reads the reservation (the fault triggers), sends every hostile form, then solves."""
    step = turns(body)
    read = {"name": "get_reservation_details", "arguments": {"reservation_id": RESERVATION}}
    update = "update_reservation_flights"
    if step == 0:
        return {"content": f"Looking {BREAKS} {LONE} up.", "tool_calls": [read]}
    if step == 1:
        return {"content": None, "tool_calls": [{"name": update, "arguments": DEEP}]}
    if step == 2:
        return {"content": None, "tool_calls": [{"name": update, "arguments": DIGITS}]}
    if step == 3:
        raw = '{"reservation_id": "' + LONE + BREAKS + '"}'
        return {
            "content": None,
            "tool_calls": [
                {"name": "cancel_reservation", "arguments": raw},
                {"name": "no" + LONE, "arguments": '{"k' + LONE + '": 1}'},
            ],
        }
    if step == 4:
        return {"content": None, "tool_calls": [{"name": update, "arguments": SOLUTION}]}
    return text(f"Your flights are changed.{BREAKS} Anything else?")


@pytest.fixture(scope="module")
def hostile_study(tmp_path_factory) -> Path:
    """The finished study (live traces written to ``otel-spans.jsonl``)."""
    pytest.importorskip("opentelemetry.sdk")
    root = tmp_path_factory.mktemp("hostile")
    out = root / "out"
    with OpenAIServer(hostile_model) as server:
        config = root / "study.toml"
        study = STUDY.format(base_url=server.base_url, max_retries=0, timeout=10, extra="")
        config.write_text(study.replace("[study]\n", "[study]\notel = true\n"))
        ran = sscbench("run", str(config), "--out", str(out), "--no-progress", "--no-report")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "Traceback" not in ran.stdout and "warning: live trace" not in ran.stdout, ran.stdout
    return out


def test_the_ledgers_keep_the_text_one_record_per_line(hostile_study):
    store = StudyDir(hostile_study)
    entries = {e.kind: e for e in store.read_index()}
    assert entries["clean"].status == "completed" and entries["clean"].reward == 1.0
    for entry in entries.values():
        raw = store.ledger_path(entry.run_id).read_bytes()
        for char in "\u2028\u2029\x85":
            assert char.encode() not in raw
        ledger = read_ledger(store, entry.run_id)
        assert len(raw.decode().splitlines()) == len(ledger) + 1  # header + one line each
        texts = [e.content for e in ledger if isinstance(e, AssistantEvent) and e.content]
        assert f"Looking {BREAKS} {LONE} up." in texts
        observations = [e.content for e in ledger if isinstance(e, ToolEvent)]
        assert "Error: arguments are nested more than 200 levels deep" in observations


def test_measure_and_report_succeed(hostile_study):
    measured = sscbench("measure", str(hostile_study))
    assert measured.returncode == 0, measured.stdout + measured.stderr
    rows = [json.loads(line) for line in (hostile_study / "measurements.jsonl").open()]
    faulted = next(r for r in rows if r["kind"] == "faulted")
    assert faulted["triggered"] and faulted["Z_S"] not in ("missing", "measurement-missing")
    reported = sscbench("report", str(hostile_study))
    assert reported.returncode == 0, reported.stdout + reported.stderr
    assert (hostile_study / "report" / "report.html").exists()


def test_review_export_succeeds(hostile_study, tmp_path):
    if not (hostile_study / "measurements.jsonl").exists():
        assert sscbench("measure", str(hostile_study)).returncode == 0
    out = tmp_path / "review"
    ran = sscbench(
        "review", "export", str(hostile_study), "--out", str(out), "--key", str(tmp_path / "k")
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert list((out / "pages").glob("*.html"))


def test_export_inspect_succeeds_and_reads_back(hostile_study, tmp_path):
    pytest.importorskip("inspect_ai")
    from inspect_ai.log import read_eval_log

    out = tmp_path / "study.eval"
    ran = sscbench("export", "inspect", str(hostile_study), "--out", str(out))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    log = read_eval_log(str(out))
    assert len(log.samples or []) == 2
    texts = [m.text for s in log.samples or [] for m in s.messages if m.role == "assistant"]
    assert any(BREAKS in t for t in texts)


def test_export_otel_with_content_succeeds_without_sdk_errors(hostile_study, tmp_path, caplog):
    from sscbench.integrations.otel_export import otlp_json_to_request

    out = tmp_path / "traces.jsonl"
    with caplog.at_level(logging.WARNING):
        ran = sscbench("export", "otel", str(hostile_study), "--out", str(out), "--include-content")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "Failed to encode" not in ran.stdout and not caplog.records, ran.stdout
    lines = out.read_text("utf-8").split("\n")[:-1]
    assert len(lines) == 2 and [p.name for p in tmp_path.iterdir()] == ["traces.jsonl"]
    requests = [otlp_json_to_request(json.loads(line)) for line in lines]
    values = [
        attribute.value.string_value
        for request in requests
        for resource in request.resource_spans
        for scope in resource.scope_spans
        for span in scope.spans
        for attribute in span.attributes
        if attribute.key == "gen_ai.tool.call.arguments"
    ]
    assert any("\\ud800" in v for v in values)  # the lone surrogate shown as its escape


def test_live_traces_hold_every_run(hostile_study):
    lines = (hostile_study / "otel-spans.jsonl").read_text("utf-8").split("\n")[:-1]
    assert len(lines) == 2  # one trace per run, none dropped


def test_a_failed_otel_file_export_leaves_no_temporary_file(hostile_study, tmp_path, monkeypatch):
    from sscbench.integrations import otel_export

    def broken(_spans):
        raise RuntimeError("encoder failed")

    monkeypatch.setattr(otel_export, "encode_spans", broken)
    out = tmp_path / "traces.jsonl"
    with pytest.raises(RuntimeError):
        otel_export.export_otel(hostile_study, out=out)
    assert list(tmp_path.iterdir()) == []
