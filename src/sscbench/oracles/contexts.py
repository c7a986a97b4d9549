"""What the oracles read from a study: one :class:`OracleContext` per judged run.

A context is built from the model-visible ledger, the case, the world's tool schemas
and policy, the run's measurement row, and the completed clean runs of the same task
(the judged run left out). The evaluator-only log is never read here; only the
measurement row (for the ``rules`` oracle) says whether the run is faulted or a clean
control.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from sscbench.core.ledger import LedgerEvent
from sscbench.errors import DataError
from sscbench.faults.case import Case
from sscbench.jsonl import read_objects
from sscbench.oracles.base import CleanRun, OracleContext
from sscbench.study.folder import IndexEntry, StudyDir
from sscbench.study.ledgers import read_ledger
from sscbench.study.rows import MeasurementRow
from sscbench.study.study import Study
from sscbench.world.world import World


def served_cases(store: StudyDir, entries: Iterable[IndexEntry]) -> dict[str, set[str]]:
    """The cases each clean run is the baseline of: from ``plan.jsonl`` (a row with
    ``clean_run_id`` = the run and ``case_id`` = the case), else from its index entry
    (a shared clean run's cases; an older study's clean run: its own case)."""
    out: dict[str, set[str]] = defaultdict(set)
    if store.plan.exists():
        for row in read_objects(store.plan):
            clean, case_id = row.get("clean_run_id"), row.get("case_id")
            if isinstance(clean, str) and isinstance(case_id, str):
                out[clean].add(case_id)
    for entry in entries:
        if entry.kind == "clean" and entry.run_id not in out:
            out[entry.run_id].update(entry.served_cases())
    return dict(out)


def task_key(case: Case) -> tuple[str, str, str]:
    """The task a case runs on: (world, domain, task id)."""
    return case.world, case.domain, case.task_id


class StudyRuns:
    """A study's runs as oracle contexts (ledgers read when first needed)."""

    def __init__(self, study: str | Path | Study):
        self.study = Study.of(study)
        self.store = self.study.store
        if not self.store.index.exists():
            raise DataError(self.store.index, None, "not found: is this a study folder?")
        self.cases: dict[str, Case] = self.study.cases
        self.entries: dict[str, IndexEntry] = self.study.entries_by_run
        # only what `measure` wrote from this study's runs (checked against its seal)
        self.measurements: dict[str, MeasurementRow] = self.study.measurements
        self._ledgers: dict[str, list[LedgerEvent]] = {}
        self._clean_by_task: dict[tuple[str, str, str], list[IndexEntry]] = defaultdict(list)
        for entry in self.entries.values():
            case = self.cases.get(entry.case_id)
            if entry.kind == "clean" and entry.status == "completed" and case is not None:
                self._clean_by_task[task_key(case)].append(entry)

    @property
    def worlds(self) -> dict[str, World]:
        """The study's worlds by domain, built from its recorded config on first use."""
        return self.study.worlds

    def ledger(self, run_id: str) -> list[LedgerEvent]:
        """A run's model-visible ledger (cached)."""
        if run_id not in self._ledgers:
            self._ledgers[run_id] = read_ledger(self.store, run_id)
        return self._ledgers[run_id]

    def completed(self, run_id: str, kind: str) -> IndexEntry | None:
        """The index entry of a completed run of that kind, or None."""
        entry = self.entries.get(run_id)
        if entry is None or entry.kind != kind or entry.status != "completed":
            return None
        return entry

    def context(self, run_id: str, case_id: str | None = None) -> OracleContext:
        """The oracle context of one completed run, in the context of its case or (a clean
        control) of ``case_id``, one of the cases the clean run is the baseline of."""
        entry = self.entries[run_id]
        case = self.cases[case_id or entry.case_id]
        world = self.worlds.get(case.domain)
        clean = [
            CleanRun(e.run_id, e.config_id, e.repetition, e.case_id, self.ledger(e.run_id))
            for e in self._clean_by_task.get(task_key(case), [])
            if e.run_id != run_id
        ]
        paired = next(
            (
                c
                for c in clean
                if c.run_id == entry.clean_run_id
                or (c.case_id, c.config_id, c.repetition)
                == (entry.case_id, entry.config_id, entry.repetition)
            ),
            None,
        )
        return OracleContext(
            run_id=run_id,
            case=case,
            ledger=self.ledger(run_id),
            tool_schemas=world.tool_schemas() if world is not None else [],
            policy=world.policy if world is not None else "",
            measurement=self.measurements.get(run_id),
            clean_runs=clean,
            paired_clean=paired,
            world=world,
        )

    def clean_controls(self, per_operator: int, seed: int) -> list[tuple[str, str]]:
        """Up to ``per_operator`` completed clean runs per operator, drawn with ``seed``
        (the paper: ten per operator), each as (clean run id, case id).

        A clean run is a candidate for an operator when it is the baseline of one of that
        operator's cases with a fault contract (:func:`served_cases`: the study's plan, or
        the index); it is judged in the context of that case (the smallest id when it
        serves several of the operator's cases). One clean run may so be a control for
        two operators, once per operator. A study with one clean run per case draws as
        before: each clean run serves its own case only.
        """
        served = served_cases(self.store, self.entries.values())
        by_operator: dict[str, dict[str, str]] = defaultdict(dict)
        for entry in self.entries.values():
            if entry.kind != "clean" or entry.status != "completed":
                continue
            for case_id in sorted(served.get(entry.run_id, ())):
                case = self.cases.get(case_id)
                if case is not None and case.contract is not None:
                    by_operator[case.operator].setdefault(entry.run_id, case_id)
        rng = random.Random(seed)
        chosen: list[tuple[str, str]] = []
        for operator in sorted(by_operator):
            runs = sorted(by_operator[operator])
            drawn = sorted(rng.sample(runs, min(per_operator, len(runs))))
            chosen.extend((run_id, by_operator[operator][run_id]) for run_id in drawn)
        return chosen

    def cluster_of_case(self, case_id: str) -> str:
        """The entity cluster of a case (the unit of the intervals), or its id."""
        case = self.cases.get(case_id)
        return case_id if case is None else str(getattr(case, "cluster", None) or case_id)

    def operator_of(self, run_id: str) -> str | None:
        """The operator of a run's case."""
        entry = self.entries.get(run_id)
        case = self.cases.get(entry.case_id) if entry else None
        return case.operator if case else None

    def cluster_of(self, run_id: str) -> str:
        """The entity cluster of a run's case (the unit of the intervals), or its case id."""
        entry = self.entries.get(run_id)
        case = self.cases.get(entry.case_id) if entry else None
        if case is None:
            return run_id
        return str(getattr(case, "cluster", None) or case.case_id)
