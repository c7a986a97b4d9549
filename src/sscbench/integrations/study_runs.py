"""A verified study read run by run, with each run's measurement: what the exporters share.

Runs are read in index order from a study that passes :func:`verify_study`; the
measurement is sscbench's own (``measure_entries`` with the operators' own rules), so an
exported score is exactly the row ``sscbench measure`` writes for that run.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from sscbench.core.ledger import EvaluatorEvent, InterventionRecord, LedgerEvent, RunStart
from sscbench.faults.case import Case
from sscbench.measure.study import measure_entries
from sscbench.progress import counted
from sscbench.study.folder import IndexEntry, StudyDir
from sscbench.study.ledgers import read_ledger, read_run_evaluator
from sscbench.study.lock import StudyLock
from sscbench.study.rows import MeasurementRow
from sscbench.study.study import Study
from sscbench.study.verify import verify_study


@dataclass(frozen=True)
class StudyRun:
    """One run of a study: its index entry, case, ledger, evaluator log and measurement.

    ``ledger`` and ``evaluator`` are empty for a run without files (not qualified, or
    missing before it started).
    """

    entry: IndexEntry
    case: Case | None
    ledger: list[LedgerEvent]
    evaluator: list[EvaluatorEvent]
    measurement: MeasurementRow

    @property
    def run_id(self) -> str:
        return self.entry.run_id

    @property
    def interventions(self) -> list[InterventionRecord]:
        """The evaluator-only intervention records of the run."""
        return [e for e in self.evaluator if isinstance(e, InterventionRecord)]

    @property
    def start(self) -> RunStart | None:
        """The run's ``run_start`` record, if it has files."""
        return next((e for e in self.evaluator if isinstance(e, RunStart)), None)


def load_run(
    store: StudyDir, entry: IndexEntry, case: Case | None, row: MeasurementRow
) -> StudyRun:
    """One run's files (when it has them) with its measurement row."""
    has_files = entry.ledger_sha256 is not None and store.has_run_files(entry.run_id)
    ledger = read_ledger(store, entry.run_id) if has_files else []
    evaluator = read_run_evaluator(store, entry.run_id) if has_files else []
    return StudyRun(entry, case, ledger, evaluator, row)


@contextmanager
def study_runs(root: str | Path) -> Iterator[tuple[StudyDir, Iterator[StudyRun]]]:
    """Every run of the study at ``root``, verified and measured, in index order, one at a
    time, for a ``with`` block: the study is verified on entry (a bad run file raises before anything is exported),
    then each run is measured and read when the iterator reaches it and forgotten
    after, so an exporter that writes run by run holds one run, whatever the study's
    size. The folder is locked for the block (no ``run`` writes it meanwhile)."""
    study = Study.require(root)
    store = study.store
    with StudyLock(store.root):
        check = verify_study(store.root, keep_entries=False)  # streamed: no entry kept
        cases = study.cases
        yield store, _runs(store, cases, check.runs)


def _runs(store: StudyDir, cases: dict[str, Case], total: int) -> Iterator[StudyRun]:
    """Each run of the index, measured and read, in index order."""
    for entry in counted(store.read_index(), "reading runs", total):
        (row,) = measure_entries(store, cases, None, [entry])
        yield load_run(store, entry, cases.get(entry.case_id), row)
