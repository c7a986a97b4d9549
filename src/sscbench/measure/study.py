"""``sscbench measure``: one measurement row per run of a study, streamed to disk."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from pathlib import Path

from sscbench.core.files import atomic_text_writer, clean_stale
from sscbench.core.ledger import (
    EvaluatorEvent,
    LedgerEvent,
)
from sscbench.core.values import Stratum
from sscbench.core.view import LedgerView
from sscbench.errors import DataError, HarnessFailure
from sscbench.faults.case import Case
from sscbench.faults.registry import get_measured_operator
from sscbench.measure.classifier import UseClassifier
from sscbench.measure.reconstruct import fault_step, reconstruct_from_fault
from sscbench.progress import progress
from sscbench.study.folder import IndexEntry, StudyDir
from sscbench.study.ledgers import read_ledger, read_run_evaluator
from sscbench.study.rows import Measurement, MeasurementRow, RunColumns
from sscbench.study.seal import seal_path, study_sources, write_seal
from sscbench.study.study import Study


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


def measure_entries(
    store: StudyDir,
    cases: dict[str, Case],
    classifier: UseClassifier | None = None,
    entries: Iterable[IndexEntry] | None = None,
) -> Iterator[MeasurementRow]:
    """Rows for every finished run in the study's index (or for ``entries``)."""
    for entry in store.read_index() if entries is None else entries:
        case = cases.get(entry.case_id)
        if entry.status != "completed":
            measurement = Measurement(Z_S=entry.status)
        elif entry.kind == "clean":
            measurement = Measurement(Z_S=Stratum.CLEAN)
        elif case is not None:
            ledger = read_ledger(store, entry.run_id)
            evaluator = read_run_evaluator(store, entry.run_id)
            measurement = measure_run(case, ledger, evaluator, classifier)
        else:  # verify_study refuses such a study before anything is measured
            raise DataError(store.cases, entry.case_id, f"the case of run {entry.run_id} is absent")
        yield MeasurementRow.of_run(_base(entry, case), measurement)


def contract_runs(store: StudyDir, cases: dict[str, Case]) -> Iterator[tuple[IndexEntry, Case]]:
    """The completed faulted runs whose case has a contract, in index order: the runs a
    reference label (scripted or human) can be compared with."""
    for entry in store.read_index():
        case = cases.get(entry.case_id)
        if entry.kind != "faulted" or entry.status != "completed" or case is None:
            continue
        if case.contract is not None:
            yield entry, case


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


def measure_study(
    root: str | Path,
    classifier: UseClassifier | None = None,
    out: str | Path | None = None,
    workers: int = 1,
) -> tuple[Path, int]:
    """Write ``measurements.jsonl`` (or ``out``) for a study; returns its path and row count.

    Beside it, ``measurements.meta.json`` records the file's sha256 and that of the
    index, cases and plan it was computed from (:mod:`sscbench.study.seal`),
    which every reader checks. The study is verified first
    (:func:`~sscbench.study.verify.verify_study`): a run file that does not match the
    index, or a plan or cases file that differs from the recorded one, stops the
    measure before anything is written. The
    study folder is locked while measuring, so no ``run`` writes it meanwhile.

    The index is streamed twice (checked, then measured) and each row is written as it
    is made, so memory does not grow with the number of runs. ``workers`` > 1 measures
    in that many processes (:mod:`sscbench.measure.parallel`; rule classifier only)
    with the same file, byte for byte.
    """
    from sscbench.study.lock import StudyLock
    from sscbench.study.verify import verify_study

    if workers > 1 and classifier is not None:
        raise DataError("--workers", None, "only the rule classifier measures in parallel")
    study = Study.require(root)  # before the lock: a foreign folder gets no lock file
    store = study.store
    with StudyLock(store.root):
        check = verify_study(store.root, keep_entries=False)  # streamed: no entry kept
        _ = study.cases  # read now: a bad cases file is reported before --out is looked at
        out = Path(out) if out is not None else store.root / "measurements.jsonl"
        if out.is_dir():
            raise DataError(out, None, "--out must name a file, and this is a folder")
        sources = study_sources(store)  # what the rows are computed from (verified above)
        count, digest = 0, hashlib.sha256()
        for target in (out, seal_path(out)):
            clean_stale(target)  # temporary files of a measure that was killed
        with progress("measuring runs", check.runs) as bar, atomic_text_writer(out) as handle:
            for line in _lines(study, classifier, workers):
                handle.write(line)  # ASCII JSON: its UTF-8 bytes are the file's
                digest.update(line.encode("utf-8"))
                count += 1
                bar.advance()
            # the seal before the rows' rename: a full disk leaves both files as they were
            write_seal(out, digest.hexdigest(), count, sources)
    return out, count


def _lines(study: Study, classifier: UseClassifier | None, workers: int) -> Iterator[str]:
    """The measurement lines of every run in index order, in this process or in
    ``workers`` processes (the same lines either way)."""
    if workers > 1:
        from sscbench.measure.parallel import parallel_lines

        yield from parallel_lines(study.store, workers, measure_entries)
        return
    for row in measure_entries(study.store, study.cases, classifier):
        yield row.line()
