"""The model-visible ledger and the evaluator-only log: tagged unions with a schema version.

The ledger holds exactly what entered the model's context, in delivery order, one
event per message; each event's ``step`` is its index in the ledger. What only the
evaluator knows (interventions, hashes, calibration labels, harness errors) goes to
a separate log and never into the ledger.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from sscbench.jsonl import loads_line
from sscbench.reading import loads_json

SCHEMA_VERSION = 1


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ToolCall(BaseModel):
    """A tool call as the model emitted it; ``arguments`` is the raw JSON text."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    name: str
    arguments: str

    def parsed_arguments(self) -> Any:
        """The arguments as JSON data, or raise ``ValueError`` if they do not parse (bad
        JSON, too deep, a too-long integer: :func:`~sscbench.reading.loads_json`)."""
        return loads_json(self.arguments) if self.arguments.strip() else {}


class SystemEvent(_Event):
    """The system prompt (policy) the agent starts with."""

    type: Literal["system"] = "system"
    step: int
    content: str


class UserEvent(_Event):
    """A message from the user to the agent."""

    type: Literal["user"] = "user"
    step: int
    content: str


class AssistantEvent(_Event):
    """An agent turn: a text reply to the user and/or tool calls."""

    type: Literal["assistant"] = "assistant"
    step: int
    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()


class ToolEvent(_Event):
    """The observation delivered for one tool call, paired by ``tool_call_id``."""

    type: Literal["tool"] = "tool"
    step: int
    tool_call_id: str
    name: str
    content: str


LedgerEvent = Annotated[
    SystemEvent | UserEvent | AssistantEvent | ToolEvent, Field(discriminator="type")
]
LEDGER_EVENT: TypeAdapter[LedgerEvent] = TypeAdapter(LedgerEvent)


# ---- evaluator-only log -----------------------------------------------------------
class RunStart(_Event):
    """Who ran what: identifiers of the run, written first in the evaluator log."""

    type: Literal["run_start"] = "run_start"
    run_id: str
    case_id: str
    config_id: str
    repetition: int
    kind: Literal["clean", "faulted"]
    world: str
    task_id: str
    max_steps: int
    seed: int


class InterventionRecord(_Event):
    """One decision of an injection hook at the tool-execution point."""

    type: Literal["intervention"] = "intervention"
    hook_id: str
    step: int
    tool_call_id: str
    name: str
    arguments: Any
    action: Literal["rewrite", "suppress", "update", "redeliver", "rebind"]
    original_observation: str
    delivered_observation: str
    state_changed: bool
    would_have_changed_state: bool
    effective: bool
    # a rebinding hook's record: the arguments the model sent (``arguments`` are the
    # ones the tool ran on); absent from every other record, so their lines are unchanged
    requested_arguments: Any = Field(default=None, exclude_if=lambda v: v is None)


class WriteRecord(_Event):
    """Evaluator-only: one call of a write tool and whether it changed the state.

    Effects are counted from these (from the state, never from acknowledgements):
    a retried write that commits twice leaves two records with ``state_changed``.
    ``replayed`` marks a call answered from its idempotency key without running.
    """

    type: Literal["write"] = "write"
    step: int
    name: str
    arguments: Any
    idempotency_key: str | None = None
    replayed: bool = False
    state_changed: bool
    error: bool


class ContextIntervention(_Event):
    """Evaluator-only: a fault placed in the model's context before the first turn."""

    type: Literal["context_intervention"] = "context_intervention"
    hook_id: str
    original: str
    delivered: str

    @property
    def effective(self) -> bool:
        return self.original != self.delivered


class CalibrationLabels(_Event):
    """A scripted agent's own account of its intentions (never read by measurement)."""

    type: Literal["calibration"] = "calibration"
    labels: dict[str, Any]


class ReplayRecord(_Event):
    """Evaluator-only: which recording a replay agent re-emitted, and where it stopped fitting.

    The agent's text is the recording's (``text_source``); ``divergences`` are the
    steps whose delivered observation differs from the recorded one (e.g. a fault
    changed it), ``turns_after_divergence`` how many recorded turns were emitted after
    the first of them. A τ² recording also names its conversation (``recording``) and
    the content match that tied it to its τ-bench task (``match``); a pair's edited
    replay counts its ``edits``.
    """

    type: Literal["replay"] = "replay"
    text_source: Literal["recording"] = "recording"
    source: str
    sha256: str | None = None
    recorded_task_id: str
    recording: str | None = Field(default=None, exclude_if=lambda v: v is None)
    match: dict[str, Any] | None = Field(default=None, exclude_if=lambda v: v is None)
    edits: int | None = Field(default=None, exclude_if=lambda v: v is None)
    trial: int | None = None
    recorded_reward: float | None = None
    turns: int
    replayed: int
    divergences: list[dict[str, Any]] = Field(default_factory=list)
    turns_after_divergence: int = 0
    unmatched_recorded_observations: int = 0


class Usage(_Event):
    """Requests, retries and tokens the agent and user spent (models only)."""

    type: Literal["usage"] = "usage"
    agent: dict[str, int] = Field(default_factory=dict)
    user: dict[str, int] = Field(default_factory=dict)


class HarnessError(_Event):
    """A failure of the harness (API, crash, timeout): the run is missing, not an outcome."""

    type: Literal["harness_error"] = "harness_error"
    where: str
    message: str
    kind: str | None = None  # "connection failed", "timed out", "HTTP 500", "crash", ...

    def reason(self, limit: int = 300) -> str:
        """One line for the index: ``"<where> <kind>: <message>"``, cut at ``limit``."""
        line = " ".join(f"{self.where} {self.kind or 'failure'}: {self.message}".split())
        return line if len(line) <= limit else line[: limit - 1] + "…"


class RunEnd(_Event):
    """How the run ended, its reward from what executed, and whether it was triggered."""

    type: Literal["run_end"] = "run_end"
    status: Literal["completed", "missing"]
    termination: Literal["user_stop", "transfer", "max_steps", "harness_error", "agent_end"]
    agent_turns: int
    reward: float | None
    state_matches: bool | None
    outputs: dict[str, bool] = Field(default_factory=dict)
    final_hash: str | None = None
    triggered: bool = False


EvaluatorEvent = Annotated[
    RunStart
    | InterventionRecord
    | WriteRecord
    | ContextIntervention
    | CalibrationLabels
    | ReplayRecord
    | Usage
    | HarnessError
    | RunEnd,
    Field(discriminator="type"),
]
EVALUATOR_EVENT: TypeAdapter[EvaluatorEvent] = TypeAdapter(EvaluatorEvent)


def ledger_header(run_id: str) -> dict[str, Any]:
    """The first line of every ledger file."""
    return {"type": "header", "schema_version": SCHEMA_VERSION, "run_id": run_id}


def parse_ledger_lines(lines: list[str]) -> list[LedgerEvent]:
    """Parse a ledger file's lines (header first) into events, checking the schema version."""
    if not lines:
        raise ValueError("empty ledger")
    header = loads_json(lines[0])
    if header.get("type") != "header" or header.get("schema_version") != SCHEMA_VERSION:
        raise ValueError(f"unsupported ledger header {header!r}")
    return [loads_line(LEDGER_EVENT, line) for line in lines[1:] if line.strip()]


def parse_evaluator_line(line: str) -> EvaluatorEvent:
    """One evaluator-log record (lone surrogates in it written as JSON escapes are read back)."""
    event: EvaluatorEvent = loads_line(EVALUATOR_EVENT, line)
    return event


def to_openai_messages(events: Sequence[LedgerEvent]) -> list[dict[str, Any]]:
    """The ledger as chat-completions messages, exactly as the model saw it."""
    messages: list[dict[str, Any]] = []
    for event in events:
        if isinstance(event, SystemEvent):
            messages.append({"role": "system", "content": event.content})
        elif isinstance(event, UserEvent):
            messages.append({"role": "user", "content": event.content})
        elif isinstance(event, AssistantEvent):
            message: dict[str, Any] = {"role": "assistant", "content": event.content}
            if event.tool_calls:
                message["tool_calls"] = [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": c.arguments},
                    }
                    for c in event.tool_calls
                ]
            messages.append(message)
        elif isinstance(event, ToolEvent):
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": event.tool_call_id,
                    "name": event.name,
                    "content": event.content,
                }
            )
    return messages
