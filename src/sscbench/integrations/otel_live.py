"""Live traces: ``[study] otel = true`` emits each run's trace as soon as it finishes.

``sscbench run`` passes :func:`live_traces` to the executor as its ``on_run`` callback.
Each finished run is read back from the study folder (the files just written), measured
as ``sscbench measure`` would, and sent to ``otel_endpoint`` over OTLP/HTTP or appended
to ``STUDY/otel-spans.jsonl`` as one OTLP/JSON line. Times are real here: the run's
synthetic step clock ends when it is emitted. A failed export never touches the study:
it is counted and reported once on stderr (observability, not measurement).
"""

from __future__ import annotations

import importlib.util
import json
import sys
import time
from pathlib import Path

from sscbench.errors import DataError
from sscbench.measure.study import measure_entries
from sscbench.study.config import StudyConfig
from sscbench.study.folder import IndexEntry
from sscbench.study.study import Study

LIVE_FILE = "otel-spans.jsonl"


class LiveTraces:
    """The ``on_run`` callback of a study with ``otel = true``."""

    def __init__(self, config: StudyConfig, out: str | Path):
        self.study = Study.open(out)
        self.store = self.study.store
        self.endpoint = config.study.otel_endpoint
        self.include_content = config.study.otel_include_content
        self.name = config.study.name
        self.config_hash = config.config_hash()
        self.sent = 0
        self.failures = 0

    def __call__(self, entry: IndexEntry) -> None:
        """Emit the trace of one finished run (never raises)."""
        try:
            self._emit(entry)
            self.sent += 1
        except Exception as exc:  # a collector's trouble must not stop the study
            self.failures += 1
            if self.failures == 1:
                print(f"warning: live trace of {entry.run_id} not exported: {exc}", file=sys.stderr)

    def _emit(self, entry: IndexEntry) -> None:
        from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

        from sscbench.integrations.otel_export import request_to_otlp_json, send_otlp_http
        from sscbench.integrations.otel_spans import STEP_NS, run_spans, study_resource
        from sscbench.integrations.study_runs import load_run

        cases = self.study.cases  # read once, at the first finished run
        case = cases.get(entry.case_id)
        row = next(measure_entries(self.store, cases, None, [entry]))
        run = load_run(self.store, entry, case, row)
        start = time.time_ns() - (len(run.ledger) + 1) * STEP_NS
        spans = run_spans(
            run,
            start_ns=start,
            resource=study_resource(self.name, self.config_hash),
            include_content=self.include_content,
        )
        if self.endpoint:
            send_otlp_http([spans], self.endpoint)
            return
        line = json.dumps(request_to_otlp_json(encode_spans(spans))) + "\n"
        with (self.store.root / LIVE_FILE).open("a", encoding="utf-8") as handle:
            handle.write(line)


def live_traces(config: StudyConfig, out: str | Path) -> LiveTraces | None:
    """The live-trace callback the study's config asks for (None when ``otel`` is off);
    a config that asks for it without the ``otel`` extra is refused before any run."""
    if not config.study.otel:
        return None
    for module in ("opentelemetry.sdk", "opentelemetry.exporter.otlp.proto.http"):
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:
            found = False
        if not found:
            raise DataError(
                "<config>",
                "study.otel",
                f"live traces need {module}; install it with: pip install 'sscbench[otel]'",
            )
    return LiveTraces(config, out)
