"""A study's release trials: each typed-family run assessed and filed under its trial."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from sscbench.faults.case import Case
from sscbench.faults.catalogue import spec_for
from sscbench.faults.registry import typed_family_names
from sscbench.faults.typed import judge
from sscbench.faults.write_family import WriteParams
from sscbench.progress import counted
from sscbench.release.assess import assess_run
from sscbench.release.trial import Trial
from sscbench.study.compact import Compactor
from sscbench.study.folder import IndexEntry, StudyDir
from sscbench.study.study import Study
from sscbench.world.world import World

Model = TypeVar("Model", bound=BaseModel)


def _levels(case: Case) -> dict[str, str]:
    """The swept parameter and its level, for a case of an intensity curve."""
    swept = case.params.swept() if isinstance(case.params, WriteParams) else None
    return {swept[0]: f"{swept[1]:g}"} if swept else {}


def add_record(
    units: dict[tuple[str, str, int], Trial],
    case: Case,
    entry: IndexEntry,
    store: StudyDir,
    worlds: dict[str, World],
    shared: SharedRecords | None = None,
) -> None:
    """File one run's record under its (case, configuration, repetition) trial; with
    ``shared``, the record and verdict are kept once for every run that gave equal ones
    (:class:`SharedRecords`)."""
    from sscbench.study.ledgers import read_ledger, read_run_evaluator

    key = (case.case_id, entry.config_id, entry.repetition)
    trial = units.setdefault(key, Trial(case, entry.config_id, entry.repetition, _levels(case)))
    if entry.status == "missing":
        trial.missing = trial.missing or entry.kind == "faulted"
        return
    if entry.status == "not-qualified":
        trial.not_qualified = True
        return
    ledger = read_ledger(store, entry.run_id)
    evaluator = read_run_evaluator(store, entry.run_id)
    control = entry.kind == "clean"
    record = assess_run(case, worlds[case.domain], ledger, evaluator, control=control)
    keep = shared.keep if shared is not None else _as_is
    if control:
        trial.control = keep(record)
    else:
        trial.injected = keep(record)
        trial.verdict = keep(judge(spec_for(case.operator), record))


class SharedRecords:
    """One copy of each distinct trial record and verdict: a record equal to one kept
    before is that one; another is kept with its repeated parts shared
    (:class:`~sscbench.study.compact.Compactor`: its observations, detections, words).
    A study keeps a trial per unit, and the runs of a scripted profile repeat their
    records from repetition to repetition. Records are found by a digest of their JSON
    (which tells 0 from 0.0), and a match is confirmed equal before it is shared: a run
    whose record is its own costs 16 bytes more, not its JSON. A kept record is read,
    never changed."""

    def __init__(self) -> None:
        self._parts = Compactor()
        self._whole: dict[bytes, BaseModel] = {}

    def keep(self, value: Model) -> Model:
        """``value``'s shared copy (equal to it)."""
        text = f"{type(value).__qualname__}:{value.model_dump_json()}"
        key = hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()
        kept = self._whole.get(key)
        if kept is not None and type(kept) is type(value) and kept == value:
            return kept
        compact = self._parts.value(value)
        self._whole.setdefault(key, compact)  # a digest's first record stays its own
        return compact


def _as_is(value: Model) -> Model:
    """``value`` itself (no sharing asked)."""
    return value


def typed_cases(study: Study) -> dict[str, Case]:
    """The study's cases of typed families (the ones the release judges), by case id."""
    typed = set(typed_family_names())
    return {k: c for k, c in study.cases.items() if c.operator in typed}


def load_trials(study: str | Path | Study) -> list[Trial]:
    """Every typed-family unit of a study with its control and injected trial records."""
    loaded = Study.of(study)
    store = loaded.store
    if not store.cases.exists():
        return []  # e.g. a folder holding only measurements
    cases = typed_cases(loaded)
    if not cases:
        return []
    worlds = loaded.worlds  # a config.json that cannot be read: DataError naming it
    units: dict[tuple[str, str, int], Trial] = {}
    shared = SharedRecords()  # a trial per unit is kept: equal records once
    entries = loaded.iter_entries()  # streamed: no index entry is kept
    for entry in counted(entries, "release: assessing runs"):
        # a shared clean run is the control of every case it qualified
        served = entry.served_cases() if entry.kind == "clean" else (entry.case_id,)
        for case_id in served:
            if case_id in cases:
                add_record(units, cases[case_id], entry, store, worlds, shared)
    return sorted(
        units.values(), key=lambda t: (t.config_id, t.family, t.case.case_id, t.repetition)
    )
