"""``Study``: a study folder loaded once and passed along.

Every stage above ``study`` reads the same things of a study — its folder, index,
cases, recorded config, worlds, measurement rows and run files. ``Study`` reads each
once, when first asked (the role Inspect's ``EvalLog`` plays for an Inspect log), so a
command opens the folder once and hands the object on instead of rebuilding
``StudyDir`` and re-reading ``index.jsonl`` in every module:

    study = Study.require(path)      # refuses a folder that is not a study
    for entry in study.entries: ...
    case = study.cases[entry.case_id]
    row = study.measurements.get(entry.run_id)   # checked against its seal first

Nothing here writes: the run stage writes through ``StudyDir``.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cached_property
from pathlib import Path

from sscbench.core.ledger import EvaluatorEvent, LedgerEvent
from sscbench.errors import DataError
from sscbench.faults.case import Case
from sscbench.json_types import JsonObject, JsonValue
from sscbench.reading import read_json
from sscbench.study.cases import read_cases
from sscbench.study.compact import Compactor
from sscbench.study.config import StudyConfig, config_from_record
from sscbench.study.folder import IndexEntry, StudyDir
from sscbench.study.ledgers import read_ledger, read_run_evaluator
from sscbench.study.marker import read_marker
from sscbench.study.plan_lines import iter_plan_lines
from sscbench.study.rows import MeasurementRow, iter_rows, rows_by_run
from sscbench.study.seal import check_measurements
from sscbench.study.verify import require_study
from sscbench.world.world import World

MEASUREMENTS = "measurements.jsonl"
"""The measurement rows ``sscbench measure`` writes in the study folder."""


class Study:
    """A study folder read once: each part loaded when first asked for, then kept."""

    def __init__(self, store: StudyDir):
        self.store = store

    @classmethod
    def open(cls, root: str | Path) -> Study:
        """The study in ``root`` (its marker's format checked when there is one)."""
        return cls(StudyDir(root))

    @classmethod
    def of(cls, study: str | Path | Study) -> Study:
        """``study`` itself when it is loaded already, else the study in that folder: a
        function taking either lets its caller pass the study it has."""
        return study if isinstance(study, Study) else cls.open(study)

    @classmethod
    def require(cls, root: str | Path) -> Study:
        """The study in ``root``, refused (DataError) when the folder is not a study."""
        return cls(require_study(root))

    @property
    def root(self) -> Path:
        """The study folder."""
        return self.store.root

    @cached_property
    def marker(self) -> JsonObject:
        """``sscbench-study.json``: the study's format and its inputs' hashes."""
        return read_marker(self.store.marker)

    @cached_property
    def entries(self) -> list[IndexEntry]:
        """The finished runs of ``index.jsonl``, one per run id, in index order (kept
        compact: :class:`~sscbench.study.compact.Compactor`)."""
        compactor = Compactor()
        return [compactor.record(entry) for entry in self.store.read_index()]

    def iter_entries(self) -> Iterator[IndexEntry]:
        """Stream the finished runs of ``index.jsonl`` (as :attr:`entries`, read anew and
        never kept): a reader that passes over the index once (the report's sections)
        holds no entry per run. The entries are as read, not compacted (compacting an
        entry cost ~4× reading it, for a copy dropped at once): a reader that keeps
        some compacts those (:class:`~sscbench.study.compact.Compactor`)."""
        return self.store.read_index()

    @cached_property
    def entries_by_run(self) -> dict[str, IndexEntry]:
        """The index entries by run id."""
        return {entry.run_id: entry for entry in self.entries}

    @cached_property
    def cases(self) -> dict[str, Case]:
        """The study's cases by case id (``cases.jsonl``)."""
        return {case.case_id: case for case in read_cases(self.store.cases)}

    @cached_property
    def config_record(self) -> JsonValue:
        """``config.json``: the config the study recorded, its base folder and provenance
        (as read: a JSON value, an object when the file is what sscbench wrote)."""
        try:
            record: JsonValue = read_json(self.store.config_json)
            return record
        except DataError as exc:
            raise DataError(self.store.config_json, "config", f"unreadable: {exc.reason}") from exc

    @cached_property
    def record(self) -> JsonObject:
        """``config.json`` as far as it can be read: its record, or ``{}`` when the file is
        missing, unreadable or not an object (for readers, such as the report, that show
        what a study recorded and go on without it)."""
        try:
            record = self.config_record
        except DataError:
            return {}
        return record if isinstance(record, dict) else {}

    @cached_property
    def plan(self) -> list[JsonObject] | None:
        """``plan.jsonl``'s lines, the runs the study planned (None: it has no plan). A
        faulted run listed twice is refused, naming both entries (it would count twice)."""
        if not self.store.plan.exists():
            return None
        compactor = Compactor()  # repeated words kept once (one line per planned run)
        return [compactor.value(line) for line in self.iter_plan()]

    def has_plan(self) -> bool:
        """Whether the study has ``plan.jsonl``."""
        return self.store.plan.exists()

    def iter_plan(self) -> Iterator[JsonObject]:
        """Stream ``plan.jsonl``'s lines (none without a plan), read anew and never kept,
        refusing a faulted run listed twice as :attr:`plan` does (when the line repeating
        it is reached): a reader passing over the plan once holds no line per run, nor a
        string per run (:func:`~sscbench.study.plan_lines.iter_plan_lines`)."""
        if not self.store.plan.exists():
            return
        yield from iter_plan_lines(self.store.plan)

    def check_plan(self) -> None:
        """Read ``plan.jsonl`` through once, keeping nothing: a bad plan is reported now."""
        for _ in self.iter_plan():
            pass

    @cached_property
    def config(self) -> StudyConfig:
        """The study's recorded config (relative paths read from its base folder)."""
        try:
            return config_from_record(self.config_record)
        except (ValueError, KeyError) as exc:
            raise DataError(self.store.config_json, "config", f"unreadable: {exc}") from exc

    @cached_property
    def worlds(self) -> dict[str, World]:
        """The study's worlds by domain, built from its recorded config."""
        from sscbench.study.worlds import build_worlds

        return build_worlds(self.config)

    @property
    def measurements_path(self) -> Path:
        """Where ``sscbench measure`` writes the rows."""
        return self.root / MEASUREMENTS

    def iter_measurements(self) -> Iterator[MeasurementRow]:
        """The measurement rows a row at a time, only as ``measure`` wrote them from this
        study's runs (checked against their seal now, before the first row); none when
        not measured yet. For a reader that keeps a little of each row."""
        path = self.measurements_path
        if not path.exists():
            return iter(())
        check_measurements(self.store, path)
        return iter_rows(path)

    @cached_property
    def measurements(self) -> dict[str, MeasurementRow]:
        """The measurement rows by run id (:meth:`iter_measurements`, each row kept
        compact, equal to the file's); empty when not measured yet."""
        compactor = Compactor()
        return rows_by_run(compactor.record(row) for row in self.iter_measurements())

    def ledger(self, run_id: str) -> list[LedgerEvent]:
        """A run's model-visible ledger events."""
        return read_ledger(self.store, run_id)

    def evaluator(self, run_id: str) -> list[EvaluatorEvent]:
        """A run's evaluator-only log."""
        return read_run_evaluator(self.store, run_id)


__all__ = ["MEASUREMENTS", "Study"]
