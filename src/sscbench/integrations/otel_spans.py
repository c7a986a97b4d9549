"""One run as OpenTelemetry spans under the GenAI semantic conventions (the ``otel`` extra).

A run is one trace: an ``invoke_agent`` root span (the agent configuration, the run's
identity, status and reward) and one ``execute_tool`` child span per tool call, from
the call's ledger step to its observation's (``gen_ai.tool.name``,
``gen_ai.tool.call.id``; arguments and results only with ``include_content``). An
intervention of the evaluator-only log becomes an ``sscbench.fault`` span event on
the tool span whose call it answered (a fault placed in the system prompt: on the
root span); the measurement becomes ``gen_ai.evaluation.result`` events on the root
span, one for adoption and one for arrival.

Ids are derived from the run id (the same study exports the same ids). The ledger
carries no clock, so times are synthetic and deterministic: the run starts at
``start_ns`` and each ledger step takes one millisecond.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import Event, ReadableSpan
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import SpanContext, SpanKind, TraceFlags
from opentelemetry.trace.status import Status, StatusCode

from sscbench.core.ledger import (
    AssistantEvent,
    ContextIntervention,
    InterventionRecord,
    ToolCall,
    ToolEvent,
)
from sscbench.integrations.populations import adoption_label, arrival_label
from sscbench.integrations.study_runs import StudyRun
from sscbench.json_types import JsonObject, JsonValue
from sscbench.jsonl import escape_surrogates

STEP_NS = 1_000_000
"""One ledger step on the synthetic clock: a millisecond."""
FAULT_EVENT = "sscbench.fault"
EVALUATION_EVENT = "gen_ai.evaluation.result"
SCOPE = InstrumentationScope("sscbench", "0.1.0")


def trace_id_for(run_id: str) -> int:
    """The run's 128-bit trace id (never 0)."""
    value = int.from_bytes(hashlib.sha256(f"trace\x1f{run_id}".encode()).digest()[:16], "big")
    return value or 1


def span_id_for(run_id: str, part: str) -> int:
    """A 64-bit span id for one part of a run (``root`` or a tool call's step)."""
    value = int.from_bytes(hashlib.sha256(f"span\x1f{run_id}\x1f{part}".encode()).digest()[:8])
    return value or 1


def _context(trace_id: int, span_id: int) -> SpanContext:
    return SpanContext(trace_id, span_id, is_remote=False, trace_flags=TraceFlags(1))


def _clean(attributes: Mapping[str, JsonValue]) -> JsonObject:
    """Attributes without None values (OTLP has no null attribute), lone surrogates of
    model text shown as their ``\\uXXXX`` escapes (protobuf encodes only UTF-8)."""
    return {
        k: escape_surrogates(v) if isinstance(v, str) else v
        for k, v in attributes.items()
        if v is not None
    }


def _evaluations(run: StudyRun, at: int) -> list[Event]:
    row = run.measurement
    if run.entry.status == "missing":
        return []
    adoption, adoption_why = adoption_label(row)
    arrival, arrival_why = arrival_label(row)
    a = row.A
    return [
        Event(
            EVALUATION_EVENT,
            _clean(
                {
                    "gen_ai.evaluation.name": "sscbench.adoption",
                    "gen_ai.evaluation.score.label": adoption,
                    "gen_ai.evaluation.score.value": float(a) if a in (0, 1) else None,
                    "gen_ai.evaluation.explanation": adoption_why,
                    "sscbench.T_U": str(row.T_U) if row.has("T_U") else None,
                }
            ),
            at,
        ),
        Event(
            EVALUATION_EVENT,
            _clean(
                {
                    "gen_ai.evaluation.name": "sscbench.arrival",
                    "gen_ai.evaluation.score.label": arrival,
                    "gen_ai.evaluation.explanation": arrival_why,
                    "sscbench.T_F": str(row.T_F) if row.has("T_F") else None,
                    "sscbench.T_E": str(row.T_E) if row.has("T_E") else None,
                    "sscbench.T_S": str(row.T_S) if row.has("T_S") else None,
                }
            ),
            at,
        ),
    ]


def _fault_attributes(
    record: InterventionRecord | ContextIntervention, include_content: bool
) -> JsonObject:
    attributes: JsonObject = {
        "sscbench.fault.hook_id": record.hook_id,
        "sscbench.fault.action": getattr(record, "action", "context"),
        "sscbench.fault.effective": bool(record.effective),
    }
    if isinstance(record, InterventionRecord):  # a context fault changes no state
        attributes["sscbench.fault.state_changed"] = record.state_changed
    if include_content:
        original = getattr(record, "original_observation", getattr(record, "original", None))
        delivered = getattr(record, "delivered_observation", getattr(record, "delivered", None))
        attributes["sscbench.fault.original"] = original
        attributes["sscbench.fault.delivered"] = delivered
    return _clean(attributes)


def run_spans(
    run: StudyRun,
    *,
    start_ns: int,
    resource: Resource,
    include_content: bool = False,
) -> list[ReadableSpan]:
    """The spans of one run: the ``invoke_agent`` root first, then its tool spans."""
    root = _context(trace_id_for(run.entry.run_id), span_id_for(run.entry.run_id, "root"))
    tools = _tool_spans(run, root, start_ns, resource, include_content)
    return [_root_span(run, root, start_ns, resource, include_content), *tools]


def _tool_spans(
    run: StudyRun, root: SpanContext, start_ns: int, resource: Resource, include_content: bool
) -> list[ReadableSpan]:
    """One ``execute_tool`` span per tool observation, from its call to its result, with
    the fault that touched it as an event."""
    run_id = run.entry.run_id
    trace_id = root.trace_id
    at = lambda step: start_ns + step * STEP_NS  # noqa: E731
    faults = {(r.step, r.tool_call_id): r for r in run.interventions}
    calls: dict[str, tuple[int, ToolCall]] = {}
    tools: list[ReadableSpan] = []
    for event in run.ledger:
        if isinstance(event, AssistantEvent):
            for call in event.tool_calls:
                calls[call.id] = (event.step, call)
        elif isinstance(event, ToolEvent):
            call_step, called = calls.get(event.tool_call_id, (event.step, None))
            attributes: JsonObject = {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": event.name,
                "gen_ai.tool.call.id": event.tool_call_id,
                "gen_ai.tool.type": "function",
                "sscbench.step": event.step,
            }
            if include_content:
                attributes["gen_ai.tool.call.arguments"] = called.arguments if called else None
                attributes["gen_ai.tool.call.result"] = event.content
            record = faults.get((event.step, event.tool_call_id))
            events = (
                [Event(FAULT_EVENT, _fault_attributes(record, include_content), at(event.step))]
                if record is not None
                else []
            )
            tools.append(
                ReadableSpan(
                    escape_surrogates(f"execute_tool {event.name}"),
                    context=_context(trace_id, span_id_for(run_id, f"tool:{event.step}")),
                    parent=root,
                    resource=resource,
                    attributes=_clean(attributes),
                    events=events,
                    kind=SpanKind.INTERNAL,
                    start_time=at(call_step),
                    end_time=at(event.step) + STEP_NS // 2,
                    instrumentation_scope=SCOPE,
                )
            )
    return tools


def _root_span(
    run: StudyRun, root: SpanContext, start_ns: int, resource: Resource, include_content: bool
) -> ReadableSpan:
    """The run's ``invoke_agent`` span: its index entry as attributes, its context faults
    and evaluations as events, an error status when the run is missing."""
    entry, run_id = run.entry, run.entry.run_id
    end_ns = start_ns + (len(run.ledger) + 1) * STEP_NS
    root_events = [
        Event(FAULT_EVENT, _fault_attributes(record, include_content), start_ns)
        for record in run.evaluator
        if isinstance(record, ContextIntervention)
    ]
    root_events.extend(_evaluations(run, end_ns))
    missing = entry.status == "missing"
    reason = escape_surrogates(entry.reason or "missing run")
    status = Status(StatusCode.ERROR, reason) if missing else Status()
    return ReadableSpan(
        f"invoke_agent {entry.config_id}",
        context=root,
        parent=None,
        resource=resource,
        attributes=_clean(
            {
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.agent.name": entry.config_id,
                "gen_ai.agent.id": entry.config_id,
                "gen_ai.conversation.id": run_id,
                "sscbench.run_id": run_id,
                "sscbench.case_id": entry.case_id,
                "sscbench.operator": run.case.operator if run.case else None,
                "sscbench.kind": entry.kind,
                "sscbench.repetition": entry.repetition,
                "sscbench.status": entry.status,
                "sscbench.triggered": entry.triggered,
                "sscbench.reward": entry.reward,
                "sscbench.termination": entry.termination,
            }
        ),
        events=root_events,
        kind=SpanKind.INTERNAL,
        status=status,
        start_time=start_ns,
        end_time=end_ns,
        instrumentation_scope=SCOPE,
    )


def study_resource(study_name: str, config_hash: str | None) -> Resource:
    """The resource every span of a study shares."""
    return Resource(
        _clean(
            {
                "service.name": "sscbench",
                "sscbench.study": study_name,
                "sscbench.config_hash": config_hash,
            }
        )
    )
