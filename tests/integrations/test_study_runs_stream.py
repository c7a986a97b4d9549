"""``study_runs``: an exporter reads a study one run at a time, the same runs as the
whole-study reader, under the study's lock."""

from __future__ import annotations

from sscbench.integrations import study_runs as module
from sscbench.integrations.study_runs import read_study_runs, study_runs


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
    _, whole = read_study_runs(tiny_study)  # the lock was released: readable again
    assert [(r.run_id, r.measurement, r.ledger, r.evaluator) for r in streamed] == [
        (r.run_id, r.measurement, r.ledger, r.evaluator) for r in whole
    ]
