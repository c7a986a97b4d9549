"""A study's release trials: each typed-family run assessed and filed under its trial."""

from __future__ import annotations

import json
from pathlib import Path

from sscbench.errors import DataError
from sscbench.faults.case import Case
from sscbench.faults.catalogue import spec_for
from sscbench.faults.registry import typed_family_names
from sscbench.faults.typed import judge
from sscbench.progress import counted
from sscbench.release.assess import assess_run
from sscbench.release.trial import Trial
from sscbench.run.builders import read_cases
from sscbench.run.storage import IndexEntry, StudyDir


def _levels(case: Case) -> dict[str, str]:
    """The swept parameter and its level, for a case of an intensity curve."""
    parameter = case.params.get("intensity")
    return {parameter: f"{case.params[parameter]:g}"} if parameter else {}


def add_record(
    units: dict[tuple[str, str, int], Trial],
    case: Case,
    entry: IndexEntry,
    store: StudyDir,
    worlds: dict,
) -> None:
    """File one run's record under its (case, configuration, repetition) trial."""
    from sscbench.measure.study import read_evaluator, read_ledger

    key = (case.case_id, entry.config_id, entry.repetition)
    trial = units.setdefault(key, Trial(case, entry.config_id, entry.repetition, _levels(case)))
    if entry.status == "missing":
        trial.missing = trial.missing or entry.kind == "faulted"
        return
    if entry.status == "not-qualified":
        trial.not_qualified = True
        return
    ledger = read_ledger(store, entry.run_id)
    evaluator = read_evaluator(store.evaluator_path(entry.run_id))
    control = entry.kind == "clean"
    record = assess_run(case, worlds[case.domain], ledger, evaluator, control=control)
    if control:
        trial.control = record
    else:
        trial.injected = record
        trial.verdict = judge(spec_for(case.operator), record)


def load_trials(study: str | Path) -> list[Trial]:
    """Every typed-family unit of a study with its control and injected trial records."""
    from sscbench.run.builders import build_worlds
    from sscbench.run.config import config_from_record

    store = StudyDir(study)
    if not store.cases.exists():
        return []  # e.g. a folder holding only measurements
    typed = set(typed_family_names())
    cases = {c.case_id: c for c in read_cases(store.cases) if c.operator in typed}
    if not cases:
        return []
    try:
        meta = json.loads(store.config_json.read_text("utf-8"))
        config = config_from_record(meta)
    except (OSError, ValueError, KeyError) as exc:
        raise DataError(store.config_json, "config", f"unreadable: {exc}") from exc
    worlds = build_worlds(config)
    units: dict[tuple[str, str, int], Trial] = {}
    for entry in counted(list(store.read_index()), "release: assessing runs"):
        # a shared clean run is the control of every case it qualified
        served = entry.served_cases() if entry.kind == "clean" else (entry.case_id,)
        for case_id in served:
            if case_id in cases:
                add_record(units, cases[case_id], entry, store, worlds)
    return sorted(
        units.values(), key=lambda t: (t.config_id, t.family, t.case.case_id, t.repetition)
    )
