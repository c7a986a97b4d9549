"""``sscbench measure``: one measurement row per run of a study, streamed to disk."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from sscbench.core.files import atomic_text_writer, clean_stale
from sscbench.core.ledger import EvaluatorEvent, LedgerEvent
from sscbench.errors import DataError
from sscbench.faults.case import Case
from sscbench.measure.classifier import UseClassifier
from sscbench.measure.rows import measure_row
from sscbench.measure.rows import measure_run as measure_run  # where callers import it
from sscbench.progress import progress
from sscbench.study.folder import IndexEntry, StudyDir
from sscbench.study.ledgers import read_ledger, read_run_evaluator
from sscbench.study.rows import MeasurementRow
from sscbench.study.seal import seal_path, study_sources, write_seal
from sscbench.study.study import Study

if TYPE_CHECKING:
    from sscbench.measure.on_ray import OnRay


def measure_entries(
    store: StudyDir,
    cases: dict[str, Case],
    classifier: UseClassifier | None = None,
    entries: Iterable[IndexEntry] | None = None,
) -> Iterator[MeasurementRow]:
    """Rows for every finished run in the study's index (or for ``entries``)."""

    def events(run_id: str) -> tuple[list[LedgerEvent], list[EvaluatorEvent]]:
        return read_ledger(store, run_id), read_run_evaluator(store, run_id)

    for entry in store.read_index() if entries is None else entries:
        case = cases.get(entry.case_id)
        yield measure_row(entry, case, classifier, events, str(store.cases))


def contract_runs(store: StudyDir, cases: dict[str, Case]) -> Iterator[tuple[IndexEntry, Case]]:
    """The completed faulted runs whose case has a contract, in index order: the runs a
    reference label (scripted or human) can be compared with."""
    for entry in store.read_index():
        case = cases.get(entry.case_id)
        if entry.kind != "faulted" or entry.status != "completed" or case is None:
            continue
        if case.contract is not None:
            yield entry, case


def measure_study(
    root: str | Path,
    classifier: UseClassifier | None = None,
    out: str | Path | None = None,
    workers: int = 1,
    on_ray: OnRay | None = None,
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
    with the same file, byte for byte; ``on_ray`` measures on a Ray cluster instead
    (:mod:`sscbench.measure.on_ray`; rule classifier only), the same file again.
    """
    from sscbench.study.lock import StudyLock
    from sscbench.study.verify import verify_study

    if (workers > 1 or on_ray is not None) and classifier is not None:
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
            for line in _lines(study, classifier, workers, on_ray):
                handle.write(line)  # ASCII JSON: its UTF-8 bytes are the file's
                digest.update(line.encode("utf-8"))
                count += 1
                bar.advance()
            # the seal before the rows' rename: a full disk leaves both files as they were
            write_seal(out, digest.hexdigest(), count, sources)
    return out, count


def _lines(
    study: Study, classifier: UseClassifier | None, workers: int, on_ray: OnRay | None
) -> Iterator[str]:
    """The measurement lines of every run in index order, in this process, in
    ``workers`` processes or on a Ray cluster (the same lines each way)."""
    if on_ray is not None:
        from sscbench.measure.on_ray import ray_lines

        yield from ray_lines(study.store, study.cases, on_ray)
        return
    if workers > 1:
        from sscbench.measure.parallel import parallel_lines

        yield from parallel_lines(study.store, workers, measure_entries)
        return
    for row in measure_entries(study.store, study.cases, classifier):
        yield row.line()
