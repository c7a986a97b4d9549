"""One measurement row of one run: what ``measure`` computes for each index entry, in
this process, in a worker process (:mod:`sscbench.measure.parallel`) or on a Ray
worker from text shipped to it (:mod:`sscbench.measure.on_ray`), the same either way."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from sscbench.core.ledger import EvaluatorEvent, LedgerEvent
from sscbench.core.values import Stratum
from sscbench.core.view import LedgerView
from sscbench.errors import DataError, HarnessFailure
from sscbench.faults.case import Case
from sscbench.faults.registry import get_measured_operator
from sscbench.measure.classifier import UseClassifier
from sscbench.measure.reconstruct import fault_step, reconstruct_from_fault
from sscbench.study.folder import IndexEntry
from sscbench.study.ledgers import RunText
from sscbench.study.rows import Measurement, MeasurementRow, RunColumns

RunEvents = Callable[[str], tuple[list[LedgerEvent], list[EvaluatorEvent]]]
"""How a run's ledger and evaluator log are read, by run id."""


def measure_run(
    case: Case,
    ledger: list[LedgerEvent],
    evaluator: list[EvaluatorEvent],
    classifier: UseClassifier | None = None,
) -> Measurement:
    """The measurement of one faulted run (evaluator log used only to locate T_F)."""
    if case.contract is None:
        return Measurement(Z_S=Stratum.NO_CONTRACT)
    t_f = fault_step(ledger, evaluator, case.contract.fault_interaction.tool)
    if t_f is None:
        # nothing after T_F to read: checked, no marks
        return Measurement(
            triggered=False, T_F=None, Z_S=Stratum.NOT_TRIGGERED, unread=0, unread_steps=[]
        )
    operator = get_measured_operator(case.operator)
    try:
        _, _, measurement = reconstruct_from_fault(
            operator, case.contract, LedgerView(ledger), t_f, classifier
        )
    except HarnessFailure as exc:  # the classifier failed: a missing measurement, not a value
        return Measurement(triggered=True, T_F=t_f, Z_S=Stratum.MEASUREMENT_MISSING, error=str(exc))
    return measurement


def reads_ledger(entry: IndexEntry, case: Case | None) -> bool:
    """Whether a run's row is measured from its ledger (a completed faulted run whose
    case the study has); every other row comes from its index entry alone."""
    return entry.status == "completed" and entry.kind != "clean" and case is not None


def measure_row(
    entry: IndexEntry,
    case: Case | None,
    classifier: UseClassifier | None,
    events: RunEvents,
    cases_file: str,
) -> MeasurementRow:
    """The row of one index entry (``events`` reads the run's ledger when it is needed;
    ``cases_file`` is named when the entry's case is absent)."""
    if entry.status != "completed":
        measurement = Measurement(Z_S=entry.status)
    elif entry.kind == "clean":
        measurement = Measurement(Z_S=Stratum.CLEAN)
    elif case is not None:
        ledger, evaluator = events(entry.run_id)
        measurement = measure_run(case, ledger, evaluator, classifier)
    else:  # verify_study refuses such a study before anything is measured
        raise DataError(cases_file, entry.case_id, f"the case of run {entry.run_id} is absent")
    return MeasurementRow.of_run(_base(entry, case), measurement)


def measure_shipped(
    cases: dict[str, Case], runs: Iterable[tuple[IndexEntry, RunText | None]], cases_file: str
) -> Iterator[MeasurementRow]:
    """Rows for index entries whose runs' text was read elsewhere and shipped here (the
    text of each entry :func:`reads_ledger` says is read, None for the others)."""
    for entry, text in runs:

        def events(
            run_id: str, text: RunText | None = text
        ) -> tuple[list[LedgerEvent], list[EvaluatorEvent]]:
            assert text is not None and text.run_id == run_id, f"no text shipped for {run_id}"
            return text.ledger_events(), text.evaluator_events()

        yield measure_row(entry, cases.get(entry.case_id), None, events, cases_file)


def _base(entry: IndexEntry, case: Case | None) -> RunColumns:
    return RunColumns(
        run_id=entry.run_id,
        case_id=entry.case_id,
        config_id=entry.config_id,
        repetition=entry.repetition,
        kind=entry.kind,
        status=entry.status,
        operator=case.operator if case else None,
        control=case.control if case else None,
        literal=case.literal if case else None,
        cluster=case.cluster if case else None,
        reward=entry.reward,
        # shared clean runs: a clean row names its task and the cases it qualified, a
        # faulted row the clean run that qualified it (None in older studies)
        task=entry.task,
        cases=list(entry.cases) if entry.cases is not None else None,
        clean_run_id=entry.clean_run_id,
    )
