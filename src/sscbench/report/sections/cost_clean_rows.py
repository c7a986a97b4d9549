"""``tables/clean_runs.csv``'s rows (one per clean run: its task, result and the faulted
runs it decided), made when read instead of held.

A study of a million runs has ~280,000 clean runs; their rows held as dicts, with their
faulted runs' ids joined and counted per clean run, took ~1.2 KB each until the report
was written. :class:`CleanRows` keeps the clean runs' records and, grouped behind each
(a counting sort), its faulted runs' ids and status codes (a faulted run's record is not
held: its id, shared with the report's one copy, and two bytes), and makes a row each
time one is read.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from typing import Protocol, overload

from sscbench.report.entries import CsvRow
from sscbench.study.cost import CostedRun


class CleanRunFacts(CostedRun, Protocol):
    """What a row reads of a run (the cost section's per-run record), read-only: what
    the cost figures read, and its repetition, served cases and clean run."""

    @property
    def repetition(self) -> int: ...
    @property
    def served(self) -> int: ...
    @property
    def clean_run_id(self) -> str | None: ...


class CleanRows(Sequence[CsvRow]):
    """The rows of the clean runs among ``runs``, in their order; each clean run's
    faulted runs (those naming it as their clean run) in their order too. Kept: the
    clean runs' records, and each faulted run's id and a status code, grouped behind its
    clean run (the faulted runs' records are not held)."""

    def __init__(self, runs: Sequence[CleanRunFacts]) -> None:
        self._clean = [run for run in runs if run.kind == "clean"]
        number = {run.run_id: k for k, run in enumerate(self._clean)}
        owners = array("I")  # per faulted run of a clean run here, in order: its number
        faulted: list[CleanRunFacts] = []
        for run in runs:
            owner = number.get(run.clean_run_id or "", -1) if run.kind == "faulted" else -1
            if owner >= 0:
                owners.append(owner)
                faulted.append(run)
        del number
        # a counting sort of the faulted runs by their clean run's number (stable: each
        # clean run's faulted runs keep their order)
        self._starts = array("I", bytes(4 * (len(self._clean) + 1)))
        for owner in owners:
            self._starts[owner + 1] += 1
        for k in range(len(self._clean)):
            self._starts[k + 1] += self._starts[k]
        filled = array("I", self._starts[:-1])
        self._ids: list[str] = [""] * len(faulted)
        self._codes = array("H", bytes(2 * len(faulted)))  # status, by _statuses
        codes: dict[str, int] = {}
        for run, owner in zip(faulted, owners, strict=True):
            at = filled[owner]
            filled[owner] += 1
            self._ids[at] = run.run_id
            self._codes[at] = codes.setdefault(run.status, len(codes))
        self._statuses: list[str] = list(codes)

    def __len__(self) -> int:
        return len(self._clean)

    @overload
    def __getitem__(self, index: int) -> CsvRow: ...

    @overload
    def __getitem__(self, index: slice) -> list[CsvRow]: ...

    def __getitem__(self, index: int | slice) -> CsvRow | list[CsvRow]:
        if isinstance(index, slice):
            return [self[k] for k in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self._row(index)

    def __iter__(self) -> Iterator[CsvRow]:
        for k in range(len(self)):
            yield self._row(k)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def _row(self, k: int) -> CsvRow:
        """The ``k``-th clean run's row."""
        entry = self._clean[k]
        start, end = self._starts[k], self._starts[k + 1]
        statuses = [self._statuses[code] for code in self._codes[start:end]]
        return {
            "clean_run_id": entry.run_id,
            "config_id": entry.config_id,
            "repetition": entry.repetition,
            "task": entry.task or entry.case_id,
            "status": entry.status,
            "reward": entry.reward,
            "cases": entry.served,
            "qualified": statuses.count("completed"),
            "not_qualified": statuses.count("not-qualified"),
            "missing": statuses.count("missing"),
            "faulted_run_ids": " ".join(self._ids[start:end]),
        }


__all__ = ["CleanRows", "CleanRunFacts"]
