"""sscbench export otel: OTLP/JSON lines that parse as ExportTraceServiceRequest, and the
same traces over OTLP/HTTP to a receiver on 127.0.0.1."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

pytest.importorskip("opentelemetry.sdk")
pytest.importorskip("opentelemetry.exporter.otlp.proto.http")

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from default_study import run_small_default_study
from sscbench.errors import DataError
from sscbench.integrations.otel_export import export_otel, otlp_json_to_request


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    return run_small_default_study(tmp_path_factory.mktemp("export-otel") / "study")


def _index(study):
    return [json.loads(line) for line in (study / "index.jsonl").read_text().splitlines()]


def _export(study, *args):
    done = subprocess.run(
        [sys.executable, "-m", "sscbench", "export", "otel", str(study), *args],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return done


def _attrs(items) -> dict:
    return {a.key: getattr(a.value, a.value.WhichOneof("value")) for a in items}


def _spans(requests):
    return [
        span
        for request in requests
        for resource in request.resource_spans
        for scope in resource.scope_spans
        for span in scope.spans
    ]


def _check_traces(study, requests) -> None:
    """One trace per run, one effective fault event per triggered run, on the tool span
    that carried it, and adoption and arrival evaluations on every measured run."""
    index = _index(study)
    spans = _spans(requests)
    roots = [s for s in spans if not s.parent_span_id]
    assert len({s.trace_id for s in spans}) == len(roots) == len(index)
    assert all(len(s.trace_id) == 16 and len(s.span_id) == 8 for s in spans)
    by_run = {_attrs(s.attributes)["sscbench.run_id"]: s for s in roots}
    assert set(by_run) == {e["run_id"] for e in index}
    faults = Counter()
    for span in spans:
        attributes = _attrs(span.attributes)
        if span.parent_span_id:
            assert attributes["gen_ai.operation.name"] == "execute_tool"
            assert attributes["gen_ai.tool.name"] and attributes["gen_ai.tool.call.id"]
            assert span.name == f"execute_tool {attributes['gen_ai.tool.name']}"
            assert "gen_ai.tool.call.arguments" not in attributes  # content is opt-in
        for event in span.events:
            if (
                event.name == "sscbench.fault"
                and _attrs(event.attributes)["sscbench.fault.effective"]
            ):
                assert span.parent_span_id  # on the tool span that carried it
                faults[span.trace_id] += 1
    triggered = {by_run[e["run_id"]].trace_id for e in index if e.get("triggered")}
    assert triggered and set(faults) == triggered and set(faults.values()) == {1}
    for entry in index:
        root = by_run[entry["run_id"]]
        assert _attrs(root.attributes)["gen_ai.operation.name"] == "invoke_agent"
        evaluations = [
            _attrs(e.attributes) for e in root.events if e.name == "gen_ai.evaluation.result"
        ]
        names = sorted(e["gen_ai.evaluation.name"] for e in evaluations)
        assert names == ["sscbench.adoption", "sscbench.arrival"]
        assert all(e["gen_ai.evaluation.score.label"] for e in evaluations)


def test_file_lines_parse_as_export_requests(study, tmp_path):
    out = tmp_path / "spans.jsonl"
    _export(study, "--out", str(out))
    lines = out.read_text().splitlines()
    requests = []
    for line in lines:
        data = json.loads(line)
        span = data["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
        assert len(span["traceId"]) == 32 and len(span["spanId"]) == 16  # OTLP/JSON: hex ids
        request = otlp_json_to_request(data)
        # protobuf's own JSON parser accepts the line's shape once ids are base64
        assert json_format.Parse(json_format.MessageToJson(request), ExportTraceServiceRequest())
        requests.append(request)
    _check_traces(study, requests)
    again = tmp_path / "again.jsonl"
    export_otel(study, out=again)
    assert again.read_text() == out.read_text()  # ids and times are deterministic


def test_content_is_opt_in(study, tmp_path):
    out = tmp_path / "content.jsonl"
    export_otel(study, out=out, include_content=True)
    spans = _spans(otlp_json_to_request(json.loads(line)) for line in out.read_text().splitlines())
    tools = [_attrs(s.attributes) for s in spans if s.parent_span_id]
    assert all("gen_ai.tool.call.result" in t for t in tools)


class _Receiver(BaseHTTPRequestHandler):
    received: ClassVar[list[ExportTraceServiceRequest]] = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        assert self.path == "/v1/traces"
        assert self.headers["Content-Type"] == "application/x-protobuf"
        _Receiver.received.append(ExportTraceServiceRequest.FromString(body))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.end_headers()

    def log_message(self, *args):
        pass


def test_endpoint_sends_one_trace_per_run_to_an_otlp_receiver(study):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        _Receiver.received = []
        url = f"http://127.0.0.1:{server.server_port}/v1/traces"
        done = _export(study, "--endpoint", url)
        assert f"exported {len(_index(study))} traces" in done.stdout
    finally:
        server.shutdown()
    _check_traces(study, _Receiver.received)


def test_unreachable_endpoint_fails_clearly(study):
    with pytest.raises(DataError, match="refused"):
        export_otel(study, endpoint="http://127.0.0.1:9/v1/traces", timeout=0.5)


def _closed_port() -> int:
    import socket

    with socket.socket() as probe:  # bound then closed: nothing listens on it afterwards
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_down_collector_is_one_error_line_naming_the_url(study):
    url = f"http://127.0.0.1:{_closed_port()}/v1/traces"
    done = subprocess.run(
        [sys.executable, "-m", "sscbench", "export", "otel", str(study), "--endpoint", url],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert done.stdout.strip().splitlines() == [  # sscbench prints its error lines on stdout
        f"error: {url}: the OTLP collector is not reachable: connection refused; "
        "nothing was exported"
    ]
    assert done.stderr == ""  # no SDK retry lines, no traceback


class _Unavailable(BaseHTTPRequestHandler):
    """A collector that answers every export with 503 (which the SDK retries)."""

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(503)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def test_a_refusing_collector_fails_without_the_sdks_retry_lines(study, capsys):
    from sscbench.errors import EndpointUnreachable

    server = ThreadingHTTPServer(("127.0.0.1", 0), _Unavailable)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_port}/v1/traces"
    try:
        with pytest.raises(EndpointUnreachable) as raised:
            export_otel(study, endpoint=url, timeout=0.5)
    finally:
        server.shutdown()
    assert str(raised.value).startswith(f"{url}: the OTLP endpoint refused the spans of run 1")
    assert "0 runs were exported before" in str(raised.value)
    captured = capsys.readouterr()
    assert "retrying" not in captured.err and "Transient error" not in captured.err
    assert captured.err == ""
