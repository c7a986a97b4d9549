"""``plan.jsonl`` streamed, a faulted run planned twice refused, no string kept per run.

The plan names each faulted run once. A reader passing over a million-run plan checked
that with a dict of every faulted run id seen (~150 bytes an id, for the whole pass);
here the ids seen are kept as hashes and line offsets
(:class:`~sscbench.study.seen_ids.LineIds`, exact: a hash match is confirmed by reading
the earlier line again), and the first line's number is counted only to say it in the
error.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from sscbench.errors import DataError
from sscbench.json_types import JsonObject
from sscbench.jsonl import iter_jsonl_at, loads_object
from sscbench.study.seen_ids import LineIds, line_at


def iter_plan_lines(plan: Path) -> Iterator[JsonObject]:
    """Each non-blank line's object of ``plan`` in order, read anew and never kept; a
    faulted run listed a second time is a :class:`DataError` naming both lines (blank
    lines not counted), raised when the line repeating it is reached."""
    fd = os.open(plan, os.O_RDONLY)
    try:

        def names(offset: int) -> tuple[object, ...]:
            return (loads_object(line_at(fd, offset).decode("utf-8")).get("faulted_run_id"),)

        seen = LineIds(names)
        other: dict[object, int] = {}  # a faulted id that is not a string (a bad plan)
        for number, (offset, line) in enumerate(iter_jsonl_at(plan, loads_object), start=1):
            run_id = line.get("faulted_run_id")
            if isinstance(run_id, str):
                if not seen.add(run_id, offset):
                    first = _number_at(plan, seen.offset(run_id) or 0)
                    raise _planned_twice(plan, run_id, first, number)
            elif run_id is not None and other.setdefault(run_id, number) != number:
                raise _planned_twice(plan, run_id, other[run_id], number)
            yield line
    finally:
        os.close(fd)


def _number_at(path: Path, offset: int) -> int:
    """The number of the line at ``offset`` of ``path``, blank lines not counted."""
    number = 0
    with path.open("rb") as handle:
        for raw in handle:
            if raw.strip():
                number += 1
            offset -= len(raw)
            if offset < 0:
                return number
    return number


def _planned_twice(plan: Path, run_id: object, first: int, number: int) -> DataError:
    """The error of a faulted run planned a second time."""
    return DataError(
        plan,
        "faulted_run_id",
        f"{run_id!r} is planned twice (plan lines {first} and {number}, "
        "blank lines not counted): a run is planned once",
    )


__all__ = ["iter_plan_lines"]
