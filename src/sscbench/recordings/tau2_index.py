"""A τ²-bench results file indexed once by simulation id, so a pairs study reads only
the conversations it names.

A leaderboard results file may hold 100,000 simulations (tens of MB). A pairs study names
a handful: :func:`index_tau2` streams the file once (:func:`sscbench.reading.index_json_array`:
each simulation decoded by the reading rule one at a time, checked to be an object with a
``messages`` list, its byte span and id kept, never the whole file in memory), and
:meth:`Tau2Index.run` reads one named simulation back by its span and converts it
(:func:`sscbench.recordings.tau2.tau2_run`) — the others are never converted nor matched.
The index is small (an id and three integers a simulation): ``run`` keeps it in the study
(``recordings.json``) so that later commands seek instead of scanning again.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import JsonValue

from sscbench.errors import DataError
from sscbench.reading import index_json_array, read_json_span
from sscbench.recordings.recorded import RecordedRun
from sscbench.recordings.tau2 import (
    check_simulation,
    distinct_ids,
    simulation_id,
    tau2_domain,
    tau2_run,
)


@dataclass(frozen=True)
class Span:
    """Where one simulation lies in its file: its id (τ²'s ``id``, or its position when it
    has none), its position among the simulations, and its bytes ``start:end``."""

    simulation_id: str
    index: int
    start: int
    end: int

    def row(self) -> dict[str, str | int]:
        """JSON-ready (``recordings.json``)."""
        return {"id": self.simulation_id, "index": self.index, "start": self.start, "end": self.end}


@dataclass(frozen=True)
class Tau2Index:
    """The simulations of one τ² results file by id (in file order: ids and byte spans
    kept compactly), and the file's domain."""

    path: Path
    size: int
    domain: JsonValue
    ids: tuple[str, ...]
    positions: Sequence[int]  # each simulation's position in the file's list
    starts: array[int]
    ends: array[int]

    def find(self, simulation_id: str) -> list[Span]:
        """The spans of the simulations with this id (in file order)."""
        return [
            Span(simulation_id, self.positions[k], self.starts[k], self.ends[k])
            for k, found in enumerate(self.ids)
            if found == simulation_id
        ]

    def run(self, span: Span) -> RecordedRun:
        """The simulation at ``span``, read back by its bytes and converted; a span that
        no longer holds that simulation (the file changed) is an error naming it."""
        where = f"simulations[{span.index}]"
        simulation = read_json_span(self.path, span.start, span.end, where)
        if (
            simulation_id(check_simulation(simulation, span.index, self.path), span.index)
            != span.simulation_id
        ):
            raise DataError(
                self.path, where, f"does not hold simulation {span.simulation_id!r} (changed?)"
            )
        return tau2_run(simulation, span.index, self.domain, self.path)


def index_tau2(path: str | Path) -> Tau2Index:
    """Index a τ² results file by simulation id, streaming it once (see the module)."""
    path = Path(path)
    found = index_json_array(path, "simulations", distinct_ids(path))
    if "simulations" not in found.members:
        raise DataError(path, "simulations", "a τ² results file needs a 'simulations' list")
    info = found.members.get("info")
    domain = tau2_domain(read_json_span(path, *info, "info")) if info else None
    ids = tuple(raw if raw is not None else str(k) for k, raw in enumerate(found.ids))
    positions = range(len(ids))  # the file's own order: no list of its own
    return Tau2Index(path, found.size, domain, ids, positions, found.starts, found.ends)


def _int(value: JsonValue) -> int:
    """A whole number kept in ``recordings.json`` (TypeError / ValueError when not one)."""
    if not isinstance(value, int | float | str):
        raise TypeError(f"{type(value).__name__} is not a number")
    return int(value)


def index_from_rows(
    path: str | Path, size: int, domain: JsonValue, rows: list[JsonValue]
) -> Tau2Index:
    """An index kept in a study (``recordings.json``: some simulations' rows) read back;
    a row that is not one is a :class:`DataError` naming it."""
    spans = []
    for number, row in enumerate(rows):
        try:
            if not isinstance(row, dict):
                raise TypeError(f"{type(row).__name__} is not an object")
            spans.append(
                Span(str(row["id"]), _int(row["index"]), _int(row["start"]), _int(row["end"]))
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise DataError(path, f"simulations[{number}]", f"not an index row: {exc}") from exc
    return Tau2Index(
        Path(path),
        size,
        domain,
        tuple(s.simulation_id for s in spans),
        tuple(s.index for s in spans),
        array("q", (s.start for s in spans)),
        array("q", (s.end for s in spans)),
    )
