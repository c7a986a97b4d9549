"""``measurements.jsonl`` rows as a typed model.

A row names its run (the index's fields and its case's), then the measurement columns
the run has: a clean run only ``Z_S``, an untriggered one ``triggered``, ``T_F`` and
``Z_S``, a measured one every column. Which columns a row has is part of the file's
format, so a row keeps exactly the keys it was made or read with, in the file's order
(the fields below are declared in that order), and :meth:`MeasurementRow.line` is the
same JSON the file has always had — steps as integers or the strings ``inf``,
``undecidable`` and ``not-applicable``, strata as their words.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from sscbench.core.definitions import reliance_step
from sscbench.core.values import RelianceStep, Step
from sscbench.jsonl import iter_jsonl, read_jsonl


class MeasurementRow(BaseModel):
    """One row of ``measurements.jsonl``: the run, then its measurement (T_F, T_E, T_S,
    T_U, Z_S, A, Y_end, the read-back step and the evidence). Read a column as an
    attribute (``row.Z_S``); a column the row does not have reads as None, and
    :meth:`has` says whether the row has it at all."""

    model_config = ConfigDict(extra="allow")

    run_id: str
    case_id: str | None = None
    config_id: str | None = None
    repetition: int | None = None
    kind: str | None = None
    status: str | None = None
    operator: str | None = None
    control: bool | None = None
    literal: bool | None = None
    cluster: str | None = None
    reward: float | None = None
    task: str | None = None
    cases: list[str] | None = None
    clean_run_id: str | None = None
    triggered: bool | None = None
    T_F: Step | None = None
    T_E: Step | None = None
    T_S: Step | None = None
    T_U: RelianceStep | Step | None = None
    Z_S: str | None = None  # a Stratum, or the index status of a run that did not complete
    A: int | str | None = None
    Y_end: str | None = None
    read_back_step: Step | None = None
    evidence: dict[str, Any] | None = None
    error: str | None = None
    # unread marks (sscbench.measure.unread), last: absent in rows measured before them
    # ("not checked", never 0 marks: read them with unread_count)
    unread: int | None = None
    unread_steps: list[dict[str, Any]] | None = None

    @classmethod
    def of(cls, values: dict[str, Any]) -> MeasurementRow:
        """The row of values ``measure`` computed (taken as they are: no coercion, so the
        line written is the JSON of exactly these values)."""
        return cls.model_construct(_fields_set=set(values), **values)

    @classmethod
    def from_line(cls, line: str) -> MeasurementRow:
        """A row read from one line of ``measurements.jsonl``."""
        return cls.model_validate_json(line)

    def has(self, column: str) -> bool:
        """Whether the row has ``column`` (a clean run's row has no ``T_F``)."""
        return column in self.model_fields_set or column in (self.model_extra or {})

    def columns(self) -> dict[str, Any]:
        """The row's keys and values in the file's order (only the keys it has)."""
        values = {
            name: getattr(self, name)
            for name in type(self).model_fields
            if name in self.model_fields_set
        }
        return {**values, **(self.model_extra or {})}

    def reliance_step(self) -> Any:
        """The row's T_U, an older row's read the way it was meant
        (:func:`sscbench.core.definitions.reliance_step`)."""
        return reliance_step({"T_U": self.T_U, "A": self.A})

    def unread_count(self) -> int | None:
        """The row's number of unread marks; None when the row was not checked (measured
        before the marks existed, or a run with no measurement: clean, not completed)."""
        return self.unread if self.has("unread") else None

    def line(self) -> str:
        """The row's line of ``measurements.jsonl`` (with its newline; ASCII JSON)."""
        return json.dumps(self.columns()) + "\n"


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
