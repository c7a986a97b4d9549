"""``sscbench export otel``: a study's runs as OTLP traces, to a file or an OTLP/HTTP endpoint.

The spans are the SDK's own ``ReadableSpan`` objects (:mod:`otel_spans`), encoded by
the OTLP exporter's encoder into ``ExportTraceServiceRequest`` messages. The file form
is OTLP/JSON lines, one request (one run, one trace) per line, as the OpenTelemetry
Collector's file exporter writes them: protobuf's JSON mapping with integer enums and
hex trace and span ids (OTLP/JSON's one documented deviation from protobuf's base64
bytes). ``--endpoint`` sends the same requests with the SDK's OTLP/HTTP span exporter.
"""

from __future__ import annotations

import base64
import json
import logging
import socket
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from google.protobuf import json_format
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.trace import ReadableSpan

from sscbench.core.files import atomic_text_writer, clean_stale
from sscbench.errors import DataError, EndpointUnreachable
from sscbench.integrations.otel_spans import run_spans, study_resource
from sscbench.integrations.study_runs import StudyRun, study_runs
from sscbench.json_types import JsonMapping, JsonObject
from sscbench.reading import read_json
from sscbench.study.folder import StudyDir

ID_FIELDS = ("traceId", "spanId", "parentSpanId")
RUN_SPACING_NS = 1_000_000_000
"""Runs of a study start one second apart on the synthetic clock."""
OTLP_CONNECT_TIMEOUT_S = 3.0
"""Seconds to wait for the collector to accept a connection before the export is refused
(checked once, before any span is sent: a down collector fails at once, not after the
SDK's retries)."""
OTLP_TIMEOUT_S = 5.0
"""Seconds the SDK's OTLP/HTTP exporter may spend on one run's request, retries included."""


def _ids(value: object, convert) -> Any:
    """Rewrite every trace/span id field of an OTLP JSON object with ``convert``."""
    if isinstance(value, dict):
        return {
            k: (convert(v) if k in ID_FIELDS and isinstance(v, str) and v else _ids(v, convert))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_ids(v, convert) for v in value]
    return value


def request_to_otlp_json(request: ExportTraceServiceRequest) -> JsonObject:
    """An export request in OTLP/JSON (integer enums, hex ids)."""
    data = json_format.MessageToDict(request, use_integers_for_enums=True)
    return _ids(data, lambda v: base64.b64decode(v).hex())


def otlp_json_to_request(data: JsonMapping) -> ExportTraceServiceRequest:
    """Parse one OTLP/JSON object back into an ``ExportTraceServiceRequest`` (strict:
    an unknown field or a malformed id is an error)."""

    def to_base64(value: str) -> str:
        return base64.b64encode(bytes.fromhex(value)).decode()

    return json_format.ParseDict(_ids(data, to_base64), ExportTraceServiceRequest())


def runs_spans(
    store: StudyDir, runs: Iterable[StudyRun], include_content: bool = False, start_ns: int = 0
) -> Iterator[list[ReadableSpan]]:
    """Each run's spans, runs one second apart from ``start_ns`` (default: the study's start)."""
    meta = read_json(store.config_json)
    name = meta.get("config", {}).get("study", {}).get("name", "study")
    resource = study_resource(name, meta.get("config_hash"))
    base = start_ns or int(store.marker.stat().st_mtime) * 1_000_000_000
    for i, run in enumerate(runs):
        yield run_spans(
            run,
            start_ns=base + i * RUN_SPACING_NS,
            resource=resource,
            include_content=include_content,
        )


def write_otlp_json(spans_per_run: Iterable[list[ReadableSpan]], out: Path) -> int:
    """Write one OTLP/JSON request per run to ``out`` (atomically); returns the runs written."""
    count = 0
    clean_stale(out)
    with atomic_text_writer(out) as handle:  # a failed export leaves no temporary file
        for spans in spans_per_run:
            handle.write(json.dumps(request_to_otlp_json(encode_spans(spans))) + "\n")
            count += 1
    return count


def check_reachable(endpoint: str, timeout: float = OTLP_CONNECT_TIMEOUT_S) -> None:
    """Refuse an endpoint that is not an http(s) URL, or whose host does not accept a TCP
    connection within ``timeout`` seconds (:class:`EndpointUnreachable`, naming the URL)."""
    parts = urlsplit(endpoint)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise EndpointUnreachable(endpoint, "not an http(s) URL of an OTLP/HTTP traces endpoint")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise EndpointUnreachable(endpoint, f"not a valid URL: {exc}") from None
    try:
        socket.create_connection((parts.hostname, port), timeout=timeout).close()
    except OSError as exc:
        why = (
            f"no answer within {timeout:g} s"
            if isinstance(exc, TimeoutError)
            else (exc.strerror or str(exc)).lower()
        )
        raise EndpointUnreachable(
            endpoint, f"the OTLP collector is not reachable: {why}; nothing was exported"
        ) from None


class _Captured(logging.Handler):
    """Keeps the SDK exporter's log messages (its retry and failure lines) for the error."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextmanager
def _sdk_logs_captured() -> Iterator[_Captured]:
    """Route the OpenTelemetry SDK's log lines to a list instead of stderr, while exporting."""
    logger = logging.getLogger("opentelemetry")
    handler = _Captured()
    saved = logger.handlers, logger.propagate, logger.level
    logger.handlers, logger.propagate = [handler], False
    logger.setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        logger.handlers, logger.propagate = saved[0], saved[1]
        logger.setLevel(saved[2])


def send_otlp_http(
    spans_per_run: Iterable[list[ReadableSpan]], endpoint: str, timeout: float = OTLP_TIMEOUT_S
) -> int:
    """Send each run's spans to an OTLP/HTTP traces endpoint (e.g. a collector's
    ``http://127.0.0.1:4318/v1/traces``). A collector that does not accept a connection
    is refused at once (:func:`check_reachable`); a refused request is an
    :class:`EndpointUnreachable` naming the URL and the SDK's last word, which (like its
    retry lines) is never printed on stderr."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace.export import SpanExportResult

    check_reachable(endpoint)
    count = 0
    with _sdk_logs_captured() as logs:
        exporter = OTLPSpanExporter(endpoint=endpoint, timeout=timeout)
        try:
            for spans in spans_per_run:
                if exporter.export(spans) is not SpanExportResult.SUCCESS:
                    said = next((m for m in reversed(logs.messages) if "retrying" not in m), "")
                    detail = f" ({said.strip()})" if said else ""
                    raise EndpointUnreachable(
                        endpoint,
                        f"the OTLP endpoint refused the spans of run {count + 1} within "
                        f"{timeout:g} s{detail}; {count} runs were exported before",
                    )
                count += 1
        finally:
            exporter.shutdown()
    return count


def export_otel(
    root: str | Path,
    *,
    out: str | Path | None = None,
    endpoint: str | None = None,
    include_content: bool = False,
    timeout: float = OTLP_TIMEOUT_S,
) -> int:
    """Export every run of the study at ``root`` as one trace; returns the runs exported
    (``timeout``: seconds the OTLP/HTTP exporter may spend on one run's request)."""
    if out is None and endpoint is None:
        raise DataError("<arguments>", "--out/--endpoint", "give a file, an endpoint, or both")
    if out is not None and Path(out).is_dir():
        raise DataError(out, None, "--out must name a file, and this is a folder")
    count = 0
    if out is not None:  # runs are read, turned into spans and written one at a time
        with study_runs(root) as (store, runs):
            count = write_otlp_json(runs_spans(store, runs, include_content), Path(out))
    if endpoint is not None:  # read again rather than held: memory stays one run's
        with study_runs(root) as (store, runs):
            count = send_otlp_http(runs_spans(store, runs, include_content), endpoint, timeout)
    return count
