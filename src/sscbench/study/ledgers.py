"""Reading a run's text back, in either layout: its model-visible ledger and its
evaluator-only log (files, or a shard's frame: :mod:`sscbench.study.runfiles`)."""

from __future__ import annotations

import json
from pathlib import Path

from sscbench.core.ledger import (
    EvaluatorEvent,
    LedgerEvent,
    parse_evaluator_line,
    parse_ledger_lines,
)
from sscbench.errors import DataError
from sscbench.jsonl import read_jsonl, split_lines
from sscbench.reading import json_reason
from sscbench.study.folder import StudyDir


def read_evaluator(path: Path) -> list[EvaluatorEvent]:
    """An evaluator-only log file, naming the line of a corrupt record."""
    return read_jsonl(path, parse_evaluator_line)


def read_run_evaluator(store: StudyDir, run_id: str) -> list[EvaluatorEvent]:
    """A run's evaluator-only log (its file, or its shard frame), naming the file (or
    shard and run) and the line of a corrupt record."""
    if not store.sharded:
        return read_evaluator(store.evaluator_path(run_id))
    events = []
    for number, line in enumerate(split_lines(store.evaluator_text(run_id)), start=1):
        if not line.strip():
            continue
        try:
            events.append(parse_evaluator_line(line))
        except ValueError as exc:
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else json_reason(exc)
            where = store.run_where(run_id)
            raise DataError(where, f"run {run_id}, evaluator line {number}", reason) from exc
    return events


def read_ledger(store: StudyDir, run_id: str) -> list[LedgerEvent]:
    """A run's model-visible ledger events (its file, or its shard frame)."""
    if not store.sharded:
        path = store.ledger_path(run_id)
        field = None
    else:
        path, field = store.run_where(run_id), f"run {run_id}"
    text = store.ledger_text(run_id)
    try:
        return parse_ledger_lines(split_lines(text))
    except ValueError as exc:
        raise DataError(path, field, str(exc).splitlines()[0]) from exc
