"""How the report reads the analyses' entries and what it writes to its CSVs.

An analysis entry (a cell of :func:`~sscbench.analysis.populations.cell_table`, a claim
card of :func:`~sscbench.analysis.claims.claim_cards`, a sensitivity or cue-check row)
is a mapping of quantities by name, some of them made from a stratum's name
(``a_pre``, ``arrival_post``). The report reads one as :data:`Entry` and takes a value
it uses as more than text through a small accessor that checks the type it returns:
an interval, a count, the run ids behind a count. What a section writes to
``tables/<name>.csv`` is a :data:`CsvRow`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

from sscbench.analysis.stats import Interval

__all__ = ["CsvRow", "Entry", "ids_at", "int_at", "interval_at", "number_at", "runs_at", "text_at"]

Entry = Mapping[str, object]
"""One analysis entry, read only: quantities by name."""

_T = TypeVar("_T")

CsvRow = dict[str, object]
"""One tidy row of a CSV under ``tables/``: column name to value (the CSV writer prints
each value as text)."""


def _wrong(key: str, what: str, value: object) -> TypeError:
    return TypeError(f"{key}: expected {what}, got {type(value).__name__}")


def _checked(entry: Entry, key: str, kind: type[_T], what: str) -> _T:
    """The value under ``key`` if it is a ``kind``, else a TypeError naming ``what``."""
    value = entry[key]
    if not isinstance(value, kind):
        raise _wrong(key, what, value)
    return value


def interval_at(entry: Entry, key: str) -> Interval:
    """The interval stored under ``key`` (a rate's estimate, CI and counts)."""
    return _checked(entry, key, Interval, "an interval")


def int_at(entry: Entry, key: str) -> int:
    """The count stored under ``key``."""
    return _checked(entry, key, int, "a count")


def number_at(entry: Entry, key: str) -> float | None:
    """The number stored under ``key`` (an estimate, a p-value), or None when it has none."""
    value = entry[key]
    if value is not None and not isinstance(value, int | float):
        raise _wrong(key, "a number", value)
    return value


def text_at(entry: Entry, key: str) -> str:
    """The text stored under ``key`` (a name, a label)."""
    return _checked(entry, key, str, "text")


def ids_at(entry: Entry, key: str) -> list[str]:
    """The run ids stored under ``key`` (a claim card's ``runs`` or ``counted``)."""
    return _checked(entry, key, list, "a list of run ids")


def runs_at(entry: Entry) -> Mapping[str, list[str]]:
    """An entry's ``runs``: the run ids behind each of its counts, by the count's name."""
    value = entry["runs"]
    if not isinstance(value, dict):
        raise _wrong("runs", "run ids by count", value)
    return value
