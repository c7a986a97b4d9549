"""``sscbench show STUDY RUN``: a run's numbered model-visible ledger, for labellers.

A labeller decides T_F, T_E, T_S, T_U, A, Z_S and Y_end from what the model saw, and
nothing else: this module reads only the run's ledger (never the measurement, the
evaluator-only log, labels or the case contract) and renders each event as its step
number, its type and its text. Texts are never cut (a label may hang on the last word
of a long observation); only the system prompt, the same policy in every run, is
shown as its first line.
"""

from __future__ import annotations

from pathlib import Path

from sscbench.core.ledger import (
    AssistantEvent,
    LedgerEvent,
    SystemEvent,
    ToolEvent,
    parse_ledger_lines,
)
from sscbench.errors import DataError
from sscbench.jsonl import escape_surrogates, model_line
from sscbench.study.folder import StudyDir
from sscbench.study.index_search import IndexSearch, index_lines, search_index
from sscbench.terminal import plain

TYPE_WIDTH = 9  # "assistant"
SYSTEM_LINE = 100  # characters of the system prompt's first line shown


class UnknownRun(DataError):
    """RUN names no run of the study, or more than one."""


def _store(study: str | Path | StudyDir) -> StudyDir:
    return study if isinstance(study, StudyDir) else StudyDir(study)


def find_run(study: str | Path | StudyDir, run: str) -> IndexSearch:
    """The index's record of the run ``run`` names: the id itself, or the only run id it
    is a prefix of (an id that is also the prefix of others names itself).

    A prefix is accepted so a labeller can type ``rd20-adopt`` or the start of a long
    generated id; an unknown name, or a prefix of two or more run ids, is refused naming
    the study, the run and (up to five of) the ids it names. The index is read once and
    only the lines that could name the run are validated (:mod:`sscbench.study.index_search`).
    """
    store = _store(study)
    if not store.is_study():
        raise DataError(store.root, None, "not a study folder")
    found = search_index(store.index, run)
    if found.run_id is not None:
        return found
    if not found.named:
        lines = index_lines(store.index) if store.index.exists() else 0
        raise UnknownRun(
            store.root, None, f"no run {run!r} in this study ({lines} lines in index.jsonl)"
        )
    matches = list(found.named)
    shown = ", ".join(matches[:5]) + (", ..." if len(matches) > 5 else "")
    raise UnknownRun(store.root, None, f"{run!r} names {len(matches)} runs: {shown}")


def resolve_run(study: str | Path | StudyDir, run: str) -> str:
    """The study's run id that ``run`` names (:func:`find_run`)."""
    run_id = find_run(study, run).run_id
    assert run_id is not None  # find_run raises when it names none
    return run_id


def read_events(study: str | Path | StudyDir, run_id: str) -> list[LedgerEvent]:
    """The run's model-visible ledger events, in step order (header checked)."""
    store = _store(study)
    path = store.run_where(run_id)  # its file, or its shard
    try:
        return parse_ledger_lines(store.ledger_lines(run_id))
    except OSError as exc:
        raise DataError(path, None, f"cannot read the ledger: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise DataError(path, None, str(exc).splitlines()[0]) from exc


def _system_line(content: str) -> str:
    """The system prompt as one line: its first non-blank line, with its size."""
    lines = content.splitlines()
    first = next((line.strip() for line in lines if line.strip()), "")
    if len(first) > SYSTEM_LINE:
        first = first[:SYSTEM_LINE] + "..."
    return f"{first} [system prompt: {len(lines)} lines, {len(content)} characters]"


def event_text(event: LedgerEvent) -> str:
    """The text a labeller reads for one event (possibly several lines).

    An assistant turn is its text, then one ``CALL name(arguments)`` line per tool call
    in the order emitted (arguments as the model wrote them); a tool observation starts
    with the tool's name in brackets; the system prompt is cut to one line.
    """
    if isinstance(event, SystemEvent):
        return _system_line(event.content)
    if isinstance(event, ToolEvent):
        return f"[{event.name}] {event.content}"
    if isinstance(event, AssistantEvent):
        parts = [event.content] if event.content else []
        parts += [f"CALL {call.name}({call.arguments})" for call in event.tool_calls]
        return "\n".join(parts) if parts else "(empty turn)"
    return str(event.content)


def format_ledger(events: list[LedgerEvent]) -> str:
    """The numbered ledger: ``step type text``, later lines of a text indented under it."""
    width = max(3, len(str(len(events) - 1)) if events else 3)
    indent = " " * (width + 1 + TYPE_WIDTH + 1)
    out: list[str] = []
    for event in events:
        first, *rest = event_text(event).split("\n")
        out.append(f"{event.step:>{width}} {event.type:<{TYPE_WIDTH}} {first}".rstrip())
        out.extend((indent + line).rstrip() for line in rest)
    return "\n".join(out)


def terminal_text(text: str) -> str:
    """``text`` safe to print: control bytes and lone surrogates shown as escapes."""
    return escape_surrogates(plain(text))


def json_lines(events: list[LedgerEvent]) -> str:
    """The events as JSON lines, exactly as recorded in the ledger (system prompt whole)."""
    return "\n".join(model_line(event) for event in events)
