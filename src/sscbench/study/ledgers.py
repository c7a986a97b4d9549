"""Reading a run's files: its model-visible ledger and its evaluator-only log."""

from __future__ import annotations

from pathlib import Path

from sscbench.core.ledger import (
    EvaluatorEvent,
    LedgerEvent,
    parse_evaluator_line,
    parse_ledger_lines,
)
from sscbench.errors import DataError
from sscbench.jsonl import read_jsonl, read_lines
from sscbench.study.folder import StudyDir


def read_evaluator(path: Path) -> list[EvaluatorEvent]:
    """A run's evaluator-only log, naming the line of a corrupt record."""
    return read_jsonl(path, parse_evaluator_line)


def read_ledger(store: StudyDir, run_id: str) -> list[LedgerEvent]:
    """A run's model-visible ledger events."""
    path = store.ledger_path(run_id)
    try:
        return parse_ledger_lines(read_lines(path))
    except ValueError as exc:
        raise DataError(path, None, str(exc).splitlines()[0]) from exc
