"""``study_runs``: an exporter reads a study one run at a time, the same runs as the
whole-study reader, under the study's lock."""

from __future__ import annotations

from sscbench.integrations import study_runs as module
from sscbench.integrations.study_runs import load_run, study_runs
from sscbench.measure.study import measure_entries
from sscbench.study.study import Study


def test_runs_are_read_when_reached_and_equal_the_whole_read(tiny_study, monkeypatch):
    loaded: list[str] = []
    real = module.load_run

    def counted(store, entry, case, row):
        loaded.append(entry.run_id)
        return real(store, entry, case, row)

    monkeypatch.setattr(module, "load_run", counted)
    with study_runs(tiny_study) as (_, runs):
        first = next(runs)
        assert loaded == [first.run_id]  # nothing read ahead, nothing held
        streamed = [first, *runs]
    whole = _whole_read(tiny_study)  # the lock was released: readable again
    assert [(r.run_id, r.measurement, r.ledger, r.evaluator) for r in streamed] == [
        (r.run_id, r.measurement, r.ledger, r.evaluator) for r in whole
    ]


def _whole_read(root):
    """Every run read at once (index, measurements, files): what the stream must equal."""
    study = Study.require(root)
    entries = list(study.store.read_index())
    rows = measure_entries(study.store, study.cases, None, entries)
    return [
        load_run(study.store, entry, study.cases.get(entry.case_id), row)
        for entry, row in zip(entries, rows, strict=True)
    ]
