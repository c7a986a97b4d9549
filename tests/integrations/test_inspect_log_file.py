"""``export inspect`` written sample by sample (``inspect_log_file``): the log reads back
equal to the one inspect_ai's whole-log writer makes of the same study, member by member
and sample by sample, and one sample at a time is held."""

from __future__ import annotations

import weakref
import zipfile
from datetime import timedelta

import pytest

pytest.importorskip("inspect_ai")

import inspect_ai.log as inspect_log
from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalLog,
    EvalMetric,
    EvalResults,
    EvalScore,
    EvalSpec,
    EvalStats,
    read_eval_log,
    read_eval_log_sample_summaries,
    write_eval_log,
)

from sscbench.integrations import inspect_export, inspect_log_file
from sscbench.integrations.inspect_export import (
    SCORER_NAME,
    TASK_NAME,
    _uuid,
    export_inspect,
    most_repetitions,
    run_sample,
    study_created,
)
from sscbench.integrations.inspect_scores import SCORE_NAME
from sscbench.integrations.populations import METRIC_NAMES, population_metrics
from sscbench.integrations.study_runs import study_runs
from sscbench.reading import read_json


def _whole_log(root) -> EvalLog:
    """The export as it was before it streamed (one ``EvalLog`` holding every sample,
    for ``write_eval_log``): the reference the streamed file must equal."""
    with study_runs(root) as (store, streamed):
        runs = list(streamed)
    config = read_json(store.config_json)
    created = study_created(store)
    samples = [run_sample(run, created + timedelta(seconds=i)) for i, run in enumerate(runs)]
    configs = sorted({run.entry.config_id for run in runs})
    rows = [run.measurement for run in runs if run.entry.status != "missing"]
    metrics = population_metrics(rows)
    study = config.get("config", {}).get("study", {})
    spec = EvalSpec(
        eval_id=_uuid(str(store.root.resolve()), "eval"),
        run_id=_uuid(config.get("config_hash", ""), "run"),
        created=created.isoformat(),
        task=TASK_NAME,
        task_id=config.get("config_hash", "")[:22],
        task_args={"study": str(store.root)},
        dataset=EvalDataset(
            name=study.get("name", "study"), location=str(store.cases), samples=len(samples)
        ),
        model=f"sscbench/{configs[0]}" if len(configs) == 1 else "sscbench/multiple",
        config=EvalConfig(epochs=most_repetitions(config.get("config", {}))),
        metadata={"sscbench_config_hash": config.get("config_hash"), "config_ids": configs},
    )
    results = EvalResults(
        total_samples=len(samples),
        completed_samples=sum(1 for s in samples if s.error is None),
        scores=[
            EvalScore(
                name=SCORE_NAME,
                scorer=SCORER_NAME,
                scored_samples=len(rows),
                unscored_samples=len(samples) - len(rows),
                metrics={name: EvalMetric(name=name, value=metrics[name]) for name in METRIC_NAMES},
            )
        ],
    )
    return EvalLog(
        eval=spec,
        status="success",
        samples=samples,
        results=results,
        stats=EvalStats(started_at=created.isoformat(), completed_at=created.isoformat()),
    )


# The only field that differs between two writes of the same study: an event's
# ``working_start``, the process's clock when Inspect made the event object. Every id
# and every other time (events' ``timestamp``, the spec's ``created``, the stats) is
# the study's own.
CLOCK_READINGS = {"working_start"}


def _without_clock(value):
    """``value`` (a dumped sample or summary) without Inspect's clock readings."""
    if isinstance(value, dict):
        return {k: _without_clock(v) for k, v in value.items() if k not in CLOCK_READINGS}
    if isinstance(value, list):
        return [_without_clock(v) for v in value]
    return value


@pytest.fixture(scope="module")
def both_logs(tiny_study, tmp_path_factory):
    out = tmp_path_factory.mktemp("flat")
    whole = out / "whole.eval"
    write_eval_log(_whole_log(tiny_study), str(whole))
    streamed = out / "streamed.eval"
    mp = pytest.MonkeyPatch()
    mp.setattr(inspect_export, "write_eval_file", _batches_of(3))
    try:
        _, count = export_inspect(tiny_study, streamed)
    finally:
        mp.undo()
    return whole, streamed, count


def _batches_of(n):
    real = inspect_log_file.write_eval_file

    def write(path, spec, samples, ending, batch=n):
        return real(path, spec, samples, ending, batch)

    return write


def test_the_streamed_log_equals_the_whole_log_sample_by_sample(both_logs):
    whole_path, streamed_path, count = both_logs
    whole, streamed = read_eval_log(str(whole_path)), read_eval_log(str(streamed_path))
    header = ("version", "status", "eval", "plan", "results", "stats", "error", "reductions")
    for name in header:
        assert getattr(streamed, name) == getattr(whole, name), name
    assert count == len(whole.samples) == len(streamed.samples) > 10
    keys = [(s.id, s.epoch) for s in whole.samples]
    assert [(s.id, s.epoch) for s in streamed.samples] == keys
    for a, b in zip(whole.samples, streamed.samples, strict=True):
        assert b.scores == a.scores and b.metadata == a.metadata and b.error == a.error
        assert _without_clock(b.model_dump()) == _without_clock(a.model_dump())


def test_ids_and_timestamps_are_the_studys(both_logs):
    """Nothing but the clock readings is ignored: a sample's uuid, its messages' ids,
    its events' uuids and timestamps are equal in both files."""
    whole_path, streamed_path, _ = both_logs
    whole, streamed = read_eval_log(str(whole_path)), read_eval_log(str(streamed_path))
    for a, b in zip(whole.samples, streamed.samples, strict=True):
        assert a.uuid == b.uuid
        assert [m.id for m in a.messages] == [m.id for m in b.messages]
        assert [(e.uuid, e.timestamp) for e in a.events] == [
            (e.uuid, e.timestamp) for e in b.events
        ]


def test_the_zip_holds_the_members_inspect_view_reads(both_logs):
    whole_path, streamed_path, _ = both_logs
    names = [set(zipfile.ZipFile(p).namelist()) for p in (whole_path, streamed_path)]
    kept = [{n for n in ns if not n.startswith("_journal/summaries/")} for ns in names]
    assert kept[0] == kept[1]
    assert {"header.json", "summaries.json", "_journal/start.json"} <= kept[1]
    summaries = [read_eval_log_sample_summaries(str(p)) for p in (whole_path, streamed_path)]
    assert [_without_clock(s.model_dump()) for s in summaries[1]] == [
        _without_clock(s.model_dump()) for s in summaries[0]
    ]


def test_one_sample_at_a_time_is_held(tiny_study, tmp_path, monkeypatch):
    alive, peak = [0], [0]
    real = inspect_log.condense_sample

    def gone():
        alive[0] -= 1

    def counted(sample, *args, **kwargs):
        condensed = real(sample, *args, **kwargs)
        alive[0] += 1
        peak[0] = max(peak[0], alive[0])
        weakref.finalize(condensed, gone)
        return condensed

    monkeypatch.setattr(inspect_log, "condense_sample", counted)
    monkeypatch.setattr(inspect_export, "write_eval_file", _batches_of(4))
    _, count = export_inspect(tiny_study, tmp_path / "s.eval")
    assert count > 12 and 1 <= peak[0] <= 2  # the sample being written, the one before it


def test_a_json_log_holds_the_same_samples(both_logs, tiny_study, tmp_path):
    whole_path, _, _ = both_logs
    _, count = export_inspect(tiny_study, tmp_path / "log.json")
    whole, as_json = read_eval_log(str(whole_path)), read_eval_log(str(tmp_path / "log.json"))
    assert count == len(as_json.samples)
    assert as_json.eval == whole.eval and as_json.results == whole.results
    assert sorted((s.id, s.epoch) for s in as_json.samples) == sorted(
        (s.id, s.epoch) for s in whole.samples
    )
