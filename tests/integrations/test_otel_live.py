"""[study] otel = true: sscbench run emits one trace per finished run as it goes."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("opentelemetry.sdk")
pytest.importorskip("opentelemetry.exporter.otlp.proto.http")

from typer.testing import CliRunner

from sscbench.cli import app
from sscbench.integrations.otel_export import otlp_json_to_request
from sscbench.study.config import parse_config

STUDY = """
[study]
seed = 3
otel = true
[world]
domains = ["airline"]
[cases]
operators = ["ReturnDate"]
per_operator = 2
[[agents]]
id = "trusting"
profile = "trusting"
"""


def test_live_mode_writes_one_trace_per_run(tmp_path):
    config = tmp_path / "study.toml"
    config.write_text(STUDY)
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app, ["run", str(config), "--out", str(out), "--no-progress", "--no-report"]
    )
    assert result.exit_code == 0, result.output
    index = [json.loads(line) for line in (out / "index.jsonl").read_text().splitlines()]
    lines = (out / "otel-spans.jsonl").read_text().splitlines()
    roots = [
        span
        for line in lines
        for resource in otlp_json_to_request(json.loads(line)).resource_spans
        for scope in resource.scope_spans
        for span in scope.spans
        if not span.parent_span_id
    ]
    # two faulted runs on one task and the task's one shared clean run
    assert len(roots) == len(index) == 3
    assert len({span.trace_id for span in roots}) == 3


def test_live_mode_is_outside_the_config_hash():
    on = parse_config(STUDY, "on.toml")
    off = parse_config(STUDY.replace("otel = true", ""), "off.toml")
    assert on.study.otel and not off.study.otel
    assert on.config_hash() == off.config_hash()  # turning traces on never blocks a resume
