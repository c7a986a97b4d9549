"""What the report reads from a study folder, checked before anything is built.

* ``measurements.jsonl`` — refused when its bytes, or the index, cases or plan it was
  computed from, differ from what ``measurements.meta.json`` recorded, when it is older
  than ``index.jsonl``, or when it does not cover the index's runs (``measure`` failed or was not re-run after new runs);
* the review folder (:func:`find_review`: ``report --review FOLDER``, else
  ``STUDY/review/`` when it holds a review's ``agreement.json`` or ``reference.jsonl``)
  and its ``agreement.json`` (:func:`read_review`);
* reference labels for the ``validation`` section (:func:`reference_labels`): a review
  folder's adjudicated ``reference.jsonl``, else a reviewer's ``review/labels.jsonl``,
  else the scripted profiles' calibration labels from the evaluator logs;
* oracle results for the ``oracles`` section (:func:`oracle_results`):
  ``oracles/*.json``, each written by ``sscbench validate-oracle STUDY --oracle NAME``
  (or the plain scoring's ``--json`` output saved there).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import cast

from sscbench.errors import DataError
from sscbench.faults.case import Case
from sscbench.json_types import JsonObject
from sscbench.reading import read_json
from sscbench.review.interrater import ReviewAgreement, read_agreement
from sscbench.study.folder import StudyDir
from sscbench.study.row_table import RowTable
from sscbench.study.rows import MeasurementRow, iter_rows
from sscbench.study.study import MEASUREMENTS, Study


def read_measurements(study: Path) -> RowTable[MeasurementRow]:
    """The study's measurement rows (run ``sscbench measure`` first). A study measured
    before T_U had a not-applicable value stored ``"inf"`` for non-adopting runs; those
    rows are read as not applicable (:func:`~sscbench.core.definitions.reliance_step`).

    Rows are held column-wise (:class:`~sscbench.study.row_table.RowTable`: a code per
    run and column, each distinct value once; the file is streamed), each read as a row
    equal to the file's: memory stays near flat in the number of runs."""
    path = study / MEASUREMENTS
    if not path.exists():
        raise DataError(path, None, "not found: run `sscbench measure` on the study first")
    return RowTable(MeasurementRow, (_upgraded(row) for row in iter_rows(path)))


def _upgraded(row: MeasurementRow) -> MeasurementRow:
    """``row`` with its T_U read by :meth:`MeasurementRow.reliance_step` (a new row only
    when that changes it)."""
    value = row.reliance_step()
    return row if value == row.T_U else MeasurementRow.of({**row.columns(), "T_U": value})


def check_fresh(study: Study, rows: Sequence[MeasurementRow]) -> None:
    """Refuse measurements that are not the ones ``sscbench measure`` wrote from this
    study's index, cases and plan (``measurements.meta.json``), are older than the index
    or miss some of its runs (the index is streamed, no entry kept)."""
    store = study.store
    index = store.index
    path = study.measurements_path
    if not index.exists():
        return
    from sscbench.study.seal import check_measurements

    check_measurements(store, path)
    if index.stat().st_mtime_ns > path.stat().st_mtime_ns:
        raise DataError(
            path,
            None,
            "older than index.jsonl (runs were added after the last measurement, or "
            "`sscbench measure` failed): run `sscbench measure` on the study again",
        )
    measured = {r.run_id for r in rows}
    missing = [e.run_id for e in study.iter_entries() if e.run_id not in measured]
    if missing:
        raise DataError(
            path,
            None,
            f"has no row for {len(missing)} run(s) of index.jsonl (first: {missing[0]}): "
            "run `sscbench measure` on the study again",
        )


def find_review(study: Path, review: Path | None) -> Path | None:
    """The review folder: the one given (it must exist), else ``STUDY/review/`` when it
    holds ``agreement.json`` or ``reference.jsonl``, else None."""
    if review is not None:
        if not Path(review).is_dir():
            raise DataError(review, None, "--review must name a review folder")
        return Path(review)
    default = study / "review"
    if (default / "agreement.json").exists() or (default / "reference.jsonl").exists():
        return default
    return None


def read_review(folder: Path | None) -> ReviewAgreement | None:
    """The review folder's ``agreement.json`` (None without a folder or without the file)."""
    if folder is None or not (folder / "agreement.json").exists():
        return None
    return read_agreement(folder / "agreement.json")


def reference_labels(
    store: StudyDir,
    cases: dict[str, Case],
    rows: list[MeasurementRow],
    review_folder: Path | None = None,
) -> tuple[str, dict[str, JsonObject]]:
    """Reference labels by run id and where they came from.

    A review folder's adjudicated ``reference.jsonl`` wins (``review_folder``, see
    :func:`find_review`); then a reviewer labels file
    (``STUDY/review/labels.jsonl``, rows with ``run_id``); otherwise the scripted
    profiles' calibration labels, derived for each triggered faulted run from its
    evaluator log and its measured T_F (no re-measurement).
    """
    from sscbench.review.labels import read_labels  # the schema: errors name file and line

    study = store.root
    adjudicated = review_folder / "reference.jsonl" if review_folder is not None else None
    if adjudicated is not None and adjudicated.exists():
        labels = {x.run_id: x.labelled() for x in read_labels(adjudicated) if x.run_id is not None}
        shown = adjudicated.relative_to(study) if adjudicated.is_relative_to(study) else adjudicated
        return f"adjudicated reference ({shown})", labels
    review = study / "review" / "labels.jsonl"
    if review.exists():
        labels = {x.run_id: x.labelled() for x in read_labels(review) if x.run_id is not None}
        return f"reviewer labels ({review.relative_to(study)})", labels
    return "scripted calibration labels (evaluator log)", _calibration(store, cases, rows)


def _calibration(
    store: StudyDir, cases: dict[str, Case], rows: list[MeasurementRow]
) -> dict[str, JsonObject]:
    """The scripted profiles' calibration labels of each triggered faulted run."""
    from sscbench.measure.calibrate import label_measurement, labels_of
    from sscbench.study.ledgers import read_run_evaluator

    out: dict[str, JsonObject] = {}
    for row in rows:
        case = cases.get(row.case_id or "")
        if row.kind != "faulted" or not row.triggered or case is None:
            continue
        if case.contract is None or not store.has_run_files(row.run_id):
            continue
        labels = labels_of(read_run_evaluator(store, row.run_id))
        if labels is not None:
            out[row.run_id] = label_measurement(
                case, labels, cast(int, row.T_F)
            )  # a triggered run's step
    return out


def oracle_results(study: Path) -> dict[str, JsonObject]:
    """Oracle results by name (file stem of ``oracles/*.json``)."""
    out: dict[str, JsonObject] = {}
    for path in sorted((study / "oracles").glob("*.json")):
        try:
            data = read_json(path)
        except DataError as exc:
            raise DataError(path, None, f"not readable JSON: {exc.reason}") from exc
        if isinstance(data, dict) and "schema" in data:
            if data["schema"] != "sscbench.oracle-scores/1" or not isinstance(
                data.get("strata"), dict
            ):
                raise DataError(path, "schema", "expected sscbench.oracle-scores/1 with strata")
        elif not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
            raise DataError(path, None, "expected `sscbench validate-oracle` output")
        out[path.stem] = data
    return out
