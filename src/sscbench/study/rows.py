"""The measurement of a run, one typed model from reconstruction to report.

:class:`Measurement` is what reconstruction computes of a run (T_F, T_E, T_S, T_U, Z_S,
A, Y_end, the read-back step, the evidence and the unread marks);
:class:`MeasurementRow` is one row of ``measurements.jsonl``: the run (the index's fields
and its case's), then its measurement. The same model is written by ``measure``, read
back by every reader (report, release, review, analysis, exports) and shown.

A row has the measurement columns its run has: a clean run only ``Z_S``, an untriggered
one ``triggered``, ``T_F``, ``Z_S`` and its unread marks, a measured one every column.
Which columns a row has is part of the file's format, so a row keeps exactly the keys it
was made or read with (its ``model_fields_set``), in the file's order (the fields below
are declared in that order), and :meth:`MeasurementRow.line` is the same JSON the file
has always had — steps as integers or the strings ``inf``, ``undecidable`` and
``not-applicable``, strata and stances as their words, numbers as Python writes them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any, ClassVar, Literal, TypeAlias, get_args

from pydantic import BaseModel, ConfigDict, TypeAdapter

from sscbench.core.agent import RunKind
from sscbench.core.definitions import reliance_step
from sscbench.core.values import NOT_APPLICABLE, RelianceStep, Stance, Step, Stratum, UseLabel
from sscbench.jsonl import iter_jsonl, read_jsonl
from sscbench.study.index_entry import RunStatus

Adoption = Literal[0, 1, "undecidable"]
"""A: 1 when the run relied on v′, 0 when it did not, undecidable when it cannot be told."""
NotCompleted = Literal["not-qualified", "missing"]
"""The ``Z_S`` of a run that did not complete: its index status (never an arrival)."""
UseChannel = Literal["message", "tool_call", "handoff", "reasoning"]
"""Where a use was found: an agent message, a tool call's arguments, a handoff summary,
a recorded thought (a ``think`` call: reasoning, which communicates nothing)."""
UnreadKind = Literal["unresolved-mention", "unparsed-value", "foreign-text", "unclassified-call"]
"""What the readers met and could not interpret (:mod:`sscbench.measure.unread`)."""
UNREAD_KINDS: tuple[str, ...] = get_args(UnreadKind)

#: A cell of a row written to the file: what :meth:`MeasurementRow.columns` gives.
Cell: TypeAlias = "str | int | float | bool | list[Cell] | dict[str, Cell] | None"


class _Row(BaseModel):
    """A part of a measurement row: its columns, in order, as written."""

    model_config = ConfigDict(extra="forbid")

    def columns(self) -> dict[str, Cell]:
        """The keys the part has (only those) and their values in the file's order, nested
        parts as their own columns: the JSON the file holds (strata and stances are words)."""
        return {
            name: _cell(getattr(self, name))
            for name in type(self).model_fields
            if name in self.model_fields_set
        }


def _cell(value: object) -> Cell:
    """A value as it is written: a nested part as its columns, a list item by item."""
    if isinstance(value, _Row):
        return value.columns()
    if isinstance(value, list | tuple):
        return [_cell(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _cell(v) for k, v in value.items()}
    if value is None or isinstance(value, str | int | float | bool):
        return value  # a Stratum or Stance is a str: json writes its word
    raise TypeError(f"a measurement cell cannot hold a {type(value).__name__}")


class UseRow(_Row):
    """One classified use in a row's evidence: its step, where it was found, its label, the
    first 200 characters of its span and the reason for the label."""

    step: int
    channel: UseChannel
    label: UseLabel
    span: str
    reason: str


class EvidenceRow(_Row):
    """A measured row's evidence: the observations that make up the counterevidence, why,
    and the classified uses in step order."""

    counterevidence_steps: list[int]
    counterevidence: str
    uses: list[UseRow]


class UnreadStep(_Row):
    """One unread mark as a row holds it: its step, kind and (short) span."""

    step: int
    kind: UnreadKind
    span: str


class RunColumns(_Row):
    """The run a row measures: the index's fields, its case's (None when the case is not in
    the study's cases), and the shared-clean fields (a clean row names its task and the
    cases it qualified, a faulted row the clean run that qualified it; None in older
    studies)."""

    run_id: str
    case_id: str
    config_id: str
    repetition: int
    kind: RunKind
    status: RunStatus
    operator: str | None = None
    control: bool | None = None
    literal: bool | None = None
    cluster: str | None = None
    reward: float | None = None
    task: str | None = None
    cases: list[str] | None = None
    clean_run_id: str | None = None


class Measurement(_Row):
    """The measurement of a run: ``Z_S`` always; the other columns as the run has them
    (see the module). T_F is the fault step (None: the fault never showed); T_E, T_S and
    the read-back step are steps, ∞ or undecidable; T_U is located in adopting runs only
    (``not-applicable`` otherwise; an older row's ``inf`` is read by
    :meth:`MeasurementRow.reliance_step`); ``error`` says why the classifier failed (a
    missing measurement); ``unread`` and ``unread_steps`` are the unread marks, absent in
    rows measured before them ("not checked", never 0 marks)."""

    triggered: bool | None = None
    T_F: Step | None = None
    T_E: Step | None = None
    T_S: Step | None = None
    T_U: RelianceStep | Step | None = None
    Z_S: Stratum | NotCompleted
    A: Adoption | None = None
    Y_end: Stance | None = None
    read_back_step: Step | None = None
    evidence: EvidenceRow | None = None
    error: str | None = None
    unread: int | None = None
    unread_steps: list[UnreadStep] | None = None


class MeasurementRow(Measurement, RunColumns):
    """One row of ``measurements.jsonl``: the run (:class:`RunColumns`), then its
    measurement (:class:`Measurement`). Read a column as an attribute (``row.Z_S``); a
    column the row does not have reads as None, and :meth:`has` says whether the row has
    it at all."""

    @classmethod
    def of_run(cls, run: RunColumns, measurement: Measurement) -> MeasurementRow:
        """The row of a run and its measurement (both already validated: their columns,
        the run's first, are the row's)."""
        values: dict[str, Any] = {
            name: getattr(part, name)
            for part in (run, measurement)
            for name in type(part).model_fields
            if name in part.model_fields_set
        }
        return cls.model_construct(_fields_set=set(values), **values)

    @classmethod
    def of(cls, values: Mapping[str, object]) -> MeasurementRow:
        """A row of exactly the columns ``values`` names (a row rebuilt from another's
        columns with one changed; a test's few columns): each value is validated as its
        column's type, a key that is no column is refused, and a column left out stays
        out (it reads as None, :meth:`has` says it is absent, the line leaves it out;
        :meth:`from_line` and :meth:`of_run` require the required ones)."""
        unknown = sorted(set(values) - set(cls.model_fields))
        if unknown:
            raise ValueError(f"a measurement row has no column {', '.join(unknown)}")
        checked: dict[str, Any] = {
            name: _column_type(name).validate_python(value) for name, value in values.items()
        }
        absent: dict[str, Any] = {name: None for name in cls.model_fields if name not in checked}
        return cls.model_construct(_fields_set=set(checked), **absent, **checked)

    @classmethod
    def from_line(cls, line: str) -> MeasurementRow:
        """A row read (and validated) from one line of ``measurements.jsonl``."""
        return cls.model_validate_json(line)

    VIEW_METHODS: ClassVar[tuple[str, ...]] = ("has", "reliance_step", "unread_count")
    """Methods reading only the row's fields and ``model_fields_set``: a row of a
    :class:`~sscbench.study.row_table.RowTable` runs them itself (no record rebuilt)."""

    def has(self, column: str) -> bool:
        """Whether the row has ``column`` (a clean run's row has no ``T_F``)."""
        return column in self.model_fields_set

    def reliance_step(self) -> RelianceStep | Step | None:
        """The row's T_U, an older row's read the way it was meant
        (:func:`sscbench.core.definitions.reliance_step`)."""
        if reliance_step({"T_U": self.T_U, "A": self.A}) == NOT_APPLICABLE:
            return NOT_APPLICABLE
        return self.T_U

    def unread_count(self) -> int | None:
        """The row's number of unread marks; None when the row was not checked (measured
        before the marks existed, or a run with no measurement: clean, not completed)."""
        return self.unread if self.has("unread") else None

    def line(self) -> str:
        """The row's line of ``measurements.jsonl`` (with its newline; ASCII JSON)."""
        return json.dumps(self.columns()) + "\n"


@cache
def _column_type(name: str) -> TypeAdapter[object]:
    """The validator of one column of :class:`MeasurementRow`."""
    adapter: TypeAdapter[object] = TypeAdapter(MeasurementRow.model_fields[name].annotation)
    return adapter


def read_measurements(path: Path) -> list[MeasurementRow]:
    """The rows of a measurements file, naming the line of a bad one."""
    return read_jsonl(path, MeasurementRow.from_line)


def iter_rows(path: Path) -> Iterator[MeasurementRow]:
    """The rows of a measurements file one by one (nothing held), naming the line of a
    bad one: for readers that keep a summary, or a compact copy, of each row."""
    return iter_jsonl(path, MeasurementRow.from_line)


def rows_by_run(rows: Iterable[MeasurementRow]) -> dict[str, MeasurementRow]:
    """The rows keyed by run id (the last row of a run id wins, as a dict of them did)."""
    return {row.run_id: row for row in rows}
