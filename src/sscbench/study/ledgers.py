"""Reading a run's text back, in either layout: its model-visible ledger and its
evaluator-only log (files, or a shard's frame: :mod:`sscbench.study.runfiles`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from sscbench.core.ledger import (
    EvaluatorEvent,
    LedgerEvent,
    parse_evaluator_line,
    parse_ledger_lines,
)
from sscbench.errors import DataError
from sscbench.jsonl import read_jsonl, split_lines
from sscbench.reading import json_reason, read_text
from sscbench.study.folder import StudyDir


def read_evaluator(path: Path) -> list[EvaluatorEvent]:
    """An evaluator-only log file, naming the line of a corrupt record."""
    return read_jsonl(path, parse_evaluator_line)


def read_run_evaluator(store: StudyDir, run_id: str) -> list[EvaluatorEvent]:
    """A run's evaluator-only log (its file, or its shard frame), naming the file (or
    shard and run) and the line of a corrupt record."""
    if not store.sharded:
        return read_evaluator(store.evaluator_path(run_id))
    return _parse_evaluator(store.evaluator_text(run_id), store.run_where(run_id), run_id)


def _parse_evaluator(text: str, where: Path, run_id: str | None) -> list[EvaluatorEvent]:
    """An evaluator log's text; a corrupt line named as :func:`read_evaluator` names it
    in a file (``run_id`` None), else by shard, run and line."""
    events = []
    for number, line in enumerate(split_lines(text), start=1):
        if not line.strip():
            continue
        try:
            events.append(parse_evaluator_line(line))
        except ValueError as exc:
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else json_reason(exc)
            if run_id is None:  # read_jsonl's words
                raise DataError(where, f"line {number}", reason.splitlines()[0]) from exc
            raise DataError(where, f"run {run_id}, evaluator line {number}", reason) from exc
    return events


def read_ledger(store: StudyDir, run_id: str) -> list[LedgerEvent]:
    """A run's model-visible ledger events (its file, or its shard frame)."""
    if not store.sharded:
        path = store.ledger_path(run_id)
        field = None
    else:
        path, field = store.run_where(run_id), f"run {run_id}"
    return _parse_ledger(store.ledger_text(run_id), path, field)


def _parse_ledger(text: str, path: Path, field: str | None) -> list[LedgerEvent]:
    try:
        return parse_ledger_lines(split_lines(text))
    except ValueError as exc:
        raise DataError(path, field, str(exc).splitlines()[0]) from exc


@dataclass(frozen=True)
class RunText:
    """A run's ledger and evaluator-only log as text, read from its study, with where a
    message names them: what a process that does not see the study folder parses
    (``measure --executor ray`` ships it to the cluster). Its events are those
    :func:`read_ledger` and :func:`read_run_evaluator` give, and so are their errors."""

    run_id: str
    ledger: str
    evaluator: str
    where: Path  # the ledger file, or the run's shard
    evaluator_where: Path  # the evaluator file, or the run's shard
    sharded: bool

    @classmethod
    def read(cls, store: StudyDir, run_id: str) -> RunText:
        """The run's text (unreadable or not UTF-8: a :class:`DataError` naming the file)."""
        if store.sharded:
            where = evaluator_where = store.run_where(run_id)
            evaluator = store.evaluator_text(run_id)
        else:
            where, evaluator_where = store.ledger_path(run_id), store.evaluator_path(run_id)
            evaluator = read_text(evaluator_where)  # as read_evaluator reads the file
        return cls(
            run_id, store.ledger_text(run_id), evaluator, where, evaluator_where, store.sharded
        )

    def ledger_events(self) -> list[LedgerEvent]:
        """The model-visible ledger, parsed as :func:`read_ledger` parses it."""
        return _parse_ledger(
            self.ledger, self.where, f"run {self.run_id}" if self.sharded else None
        )

    def evaluator_events(self) -> list[EvaluatorEvent]:
        """The evaluator-only log, parsed as :func:`read_run_evaluator` parses it."""
        run_id = self.run_id if self.sharded else None
        return _parse_evaluator(self.evaluator, self.evaluator_where, run_id)
