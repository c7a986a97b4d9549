"""``tables/clean_runs.csv``'s rows (one per clean run: its task, result and the faulted
runs it decided), made when read instead of held.

A study of a million runs has ~280,000 clean runs; their rows held as dicts, with their
faulted runs' ids joined and counted per clean run, took ~1.2 KB each until the report
was written. :class:`CleanRows` keeps, over the section's plan-ordered runs, where each
clean run is and its faulted runs grouped behind it (a counting sort into two arrays of
run numbers, ~12 bytes a run), and makes a row each time one is read.
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
    faulted runs (those naming it as their clean run) in their order too."""

    def __init__(self, runs: Sequence[CleanRunFacts]) -> None:
        self._runs = runs
        self._clean = array("I", (n for n, run in enumerate(runs) if run.kind == "clean"))
        number = {runs[n].run_id: k for k, n in enumerate(self._clean)}
        owners = array("i")  # per faulted run (in order), its clean run's number or -1
        faulted = array("I")
        for n, run in enumerate(runs):
            if run.kind == "faulted" and run.clean_run_id:
                faulted.append(n)
                owners.append(number.get(run.clean_run_id, -1))
        del number
        # a counting sort of the faulted runs by their clean run's number (stable: each
        # clean run's faulted runs keep their order)
        self._starts = array("I", bytes(4 * (len(self._clean) + 1)))
        for owner in owners:
            if owner >= 0:
                self._starts[owner + 1] += 1
        for k in range(len(self._clean)):
            self._starts[k + 1] += self._starts[k]
        filled = array("I", self._starts[:-1])
        self._members = array("I", bytes(4 * self._starts[-1]))
        for n, owner in zip(faulted, owners, strict=True):
            if owner >= 0:
                self._members[filled[owner]] = n
                filled[owner] += 1

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
        runs = self._runs
        entry = runs[self._clean[k]]
        faulted = [runs[n] for n in self._members[self._starts[k] : self._starts[k + 1]]]
        return {
            "clean_run_id": entry.run_id,
            "config_id": entry.config_id,
            "repetition": entry.repetition,
            "task": entry.task or entry.case_id,
            "status": entry.status,
            "reward": entry.reward,
            "cases": entry.served,
            "qualified": sum(run.status == "completed" for run in faulted),
            "not_qualified": sum(run.status == "not-qualified" for run in faulted),
            "missing": sum(run.status == "missing" for run in faulted),
            "faulted_run_ids": " ".join(run.run_id for run in faulted),
        }


__all__ = ["CleanRows", "CleanRunFacts"]
