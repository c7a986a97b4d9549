"""``sscbench measure --executor ray`` without a cluster: the shipped run text reads as the
study's own readers read it, the worker's lines are ``--workers 1``'s, the driver's flow
control (order, chunks in flight, a chunk measured again after its worker was lost, a
failing chunk) over a stand-in for Ray, and the command's choice of executor.

The real cluster is in ``test_measure_ray.py`` (slow)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from sscbench.cli import app
from sscbench.errors import DataError
from sscbench.measure import on_ray
from sscbench.measure import rows as rows_module
from sscbench.measure.on_ray import ChunkMeasurer, OnRay, RayMeasure
from sscbench.measure.rows import measure_shipped, reads_ledger
from sscbench.measure.study import measure_entries
from sscbench.run.executor import execute_study
from sscbench.study.config import parse_config
from sscbench.study.ledgers import RunText, read_ledger, read_run_evaluator
from sscbench.study.placement import RAY_MISSING
from sscbench.study.ray_config import RaySettings
from sscbench.study.study import Study
from tiny_study import TINY_STUDY


@pytest.fixture(scope="module")
def sharded_study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny study with its runs kept in shards."""
    text = TINY_STUDY.replace("[study]\n", '[study]\nstore = "shards"\n')
    root = tmp_path_factory.mktemp("sharded") / "study"
    execute_study(parse_config(text, "tiny.toml"), text, root, progress=False)
    return root


@pytest.fixture(params=["files", "shards"])
def study(request, tiny_study, sharded_study) -> Study:
    """The tiny study in each layout of its runs."""
    return Study.open(tiny_study if request.param == "files" else sharded_study)


def _shipped(study: Study) -> list[tuple]:
    cases = study.cases
    return [
        (e, RunText.read(study.store, e.run_id) if reads_ledger(e, cases.get(e.case_id)) else None)
        for e in study.store.read_index()
    ]


def test_shipped_text_reads_as_the_study_readers_read_it(study):
    shipped = [(e, t) for e, t in _shipped(study) if t is not None]
    assert len(shipped) > 10
    assert study.store.sharded == all(t.sharded for _, t in shipped)
    for entry, text in shipped:
        assert text.ledger_events() == read_ledger(study.store, entry.run_id)
        assert text.evaluator_events() == read_run_evaluator(study.store, entry.run_id)


def test_a_worker_measures_the_lines_of_one_process(study):
    want = [row.line() for row in measure_entries(study.store, study.cases)]
    chunk = _shipped(study)
    got = ChunkMeasurer().measure(study.cases, chunk, str(study.store.cases))
    assert got == want and len(want) > 20


def test_a_corrupt_shipped_ledger_is_refused_naming_the_run(study):
    entry, text = next((e, t) for e, t in _shipped(study) if t is not None)
    broken = RunText(
        text.run_id,
        text.ledger + "{not json\n",
        text.evaluator,
        text.where,
        text.evaluator_where,
        text.sharded,
    )
    with pytest.raises(DataError) as refused:
        ChunkMeasurer().measure(study.cases, [(entry, broken)], str(study.store.cases))
    assert refused.value.path == text.where
    if study.store.sharded:
        assert refused.value.field == f"run {entry.run_id}"


def test_a_workers_bug_is_a_data_error_naming_the_run(study, monkeypatch):
    def broken(*args, **kwargs):
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(rows_module, "measure_run", broken)
    entry, text = next((e, t) for e, t in _shipped(study) if t is not None)
    with pytest.raises(DataError) as refused:
        ChunkMeasurer().measure(study.cases, [(entry, text)], "cases.jsonl")
    assert refused.value.field == f"run {entry.run_id}"
    assert "ZeroDivisionError: boom" in refused.value.reason


# ---- the driver's flow control, over a stand-in for Ray ----------------------------


class RayActorError(Exception):
    pass


class ActorUnavailableError(RayActorError):
    pass


class RayTaskError(Exception):
    def __init__(self, cause: BaseException):
        super().__init__(f"task failed: {cause}")
        self.cause = cause


class FakeRay:
    """Runs each chunk in this process when its result is asked for; ``lose`` is the
    list of chunk submissions (0-based) whose worker dies under them."""

    exceptions = SimpleNamespace(
        RayActorError=RayActorError,
        ActorUnavailableError=ActorUnavailableError,
        RayTaskError=RayTaskError,
        GetTimeoutError=TimeoutError,
        RayError=Exception,
    )

    def __init__(self, lose: set[int] = frozenset(), unavailable: set[int] = frozenset()):
        self.lose, self.unavailable = set(lose), set(unavailable)
        self.submitted = 0
        self.most_in_flight = 0
        self.in_flight = 0
        self.killed = 0
        self.asked_back = 0  # ready() calls: a lost worker waited for
        self.gone = False  # a lost worker never answers again

    def get(self, ref, timeout=None):
        if ref == "ready":
            self.asked_back += 1
            if self.gone:
                raise ActorUnavailableError("still restarting")
            return 1
        self.in_flight -= 1
        return ref()

    def kill(self, actor, no_restart):
        self.killed += 1

    def actor(self) -> SimpleNamespace:
        def remote(cases, runs, cases_file):
            number = self.submitted
            self.submitted += 1
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)

            def result():
                if number in self.lose:
                    raise RayActorError(f"the worker died under submission {number}")
                if number in self.unavailable:
                    raise ActorUnavailableError("restarting")
                try:
                    return ChunkMeasurer().measure(cases, runs, cases_file)
                except Exception as exc:  # Ray wraps a task's exception
                    raise RayTaskError(exc) from None

            return result

        ready = SimpleNamespace(remote=lambda: "ready")
        return SimpleNamespace(measure=SimpleNamespace(remote=remote), ready=ready)


def _driver(fake: FakeRay, workers: int, **settings) -> RayMeasure:
    measure = RayMeasure(fake, RaySettings(workers=workers, **settings), False, "cases.jsonl")  # type: ignore[arg-type]
    measure.slots = [on_ray._Slot(fake.actor()) for _ in range(workers)]
    return measure


def test_order_and_chunks_in_flight(study, monkeypatch):
    monkeypatch.setattr(on_ray, "CHUNK", 3)
    want = [row.line() for row in measure_entries(study.store, study.cases)]
    fake = FakeRay()
    got = list(_driver(fake, 2).lines(study.store, study.cases, study.store.read_index()))
    assert got == want
    assert fake.submitted == -(-len(want) // 3) and fake.submitted > 8
    assert fake.most_in_flight == 4  # 2 × workers, never more


def test_a_chunk_whose_worker_was_lost_is_measured_again(study, monkeypatch):
    monkeypatch.setattr(on_ray, "CHUNK", 3)
    want = [row.line() for row in measure_entries(study.store, study.cases)]
    fake = FakeRay(lose={1, 5}, unavailable={2})
    measure = _driver(fake, 2)
    assert list(measure.lines(study.store, study.cases, study.store.read_index())) == want
    assert measure.remeasured == 3  # chunk 1 twice, chunk 2 once
    assert fake.asked_back == 3  # each sent again once its worker answered
    assert all(slot.in_flight == 0 for slot in measure.slots)


def test_a_chunk_that_keeps_losing_its_worker_stops_naming_its_runs(study, monkeypatch):
    monkeypatch.setattr(on_ray, "CHUNK", 3)
    fake = FakeRay(lose={0, 2, 3})  # chunk 0 is sent again as submission 2, then 3
    measure = _driver(fake, 1, attempts=3)
    with pytest.raises(DataError) as stopped:
        list(measure.lines(study.store, study.cases, study.store.read_index()))
    assert stopped.value.field == "study.ray.attempts"
    first = next(study.store.read_index()).run_id
    assert f"runs {first} … " in stopped.value.reason and "3 times" in stopped.value.reason


def test_a_lost_worker_that_does_not_come_back_stops_the_measure(study, monkeypatch):
    monkeypatch.setattr(on_ray, "REVIVE_POLL_S", 0.01)
    fake = FakeRay(lose={0})
    fake.gone = True
    with pytest.raises(DataError) as stopped:
        list(
            _driver(fake, 1, start_timeout_s=0.1).lines(
                study.store, study.cases, study.store.read_index()
            )
        )
    assert stopped.value.field == "study.ray.start_timeout_s"
    assert "still restarting" in stopped.value.reason and fake.asked_back >= 2


def test_a_workers_data_error_is_raised_as_itself(study, monkeypatch):
    def broken(store, run_id):
        raise DataError("runs/x.ledger.jsonl", None, "not UTF-8 text (byte 3)")

    entries = list(study.store.read_index())
    monkeypatch.setattr(RunText, "ledger_events", lambda self: broken(None, self.run_id))
    with pytest.raises(DataError) as stopped:
        list(_driver(FakeRay(), 2).lines(study.store, study.cases, entries))
    assert stopped.value.reason == "not UTF-8 text (byte 3)"


# ---- the command: which executor, and without the extra ----------------------------


def _study_on_ray(tiny_study: Path, tmp_path: Path) -> Path:
    root = tmp_path / "study"
    shutil.copytree(tiny_study, root)
    toml = root / "config.toml"
    toml.write_text(toml.read_text().replace("[study]\n", '[study]\nexecutor = "ray"\n', 1))
    return root


def test_without_ray_the_command_names_the_extra(tiny_study, tmp_path, monkeypatch):
    """``--executor ray`` without the extra, and a study whose config ran it on Ray
    (measured on Ray by default), stop with exit 2 and the extra's name; ``--executor
    local`` measures such a study here."""
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    root = _study_on_ray(tiny_study, tmp_path)
    before = (root / "measurements.jsonl").read_bytes()
    for args in (["--executor", "ray"], [], ["--workers", "2"]):
        result = CliRunner().invoke(app, ["measure", str(root), *args])
        assert result.exit_code == 2, result.output
        assert RAY_MISSING in " ".join(result.output.split()), result.output
        assert (root / "measurements.jsonl").read_bytes() == before
    result = CliRunner().invoke(app, ["measure", str(root), "--executor", "local"])
    assert result.exit_code == 0, result.output
    assert (root / "measurements.jsonl").read_bytes() == before


def test_an_unknown_executor_is_refused(tiny_study):
    result = CliRunner().invoke(app, ["measure", str(tiny_study), "--executor", "spark"])
    assert result.exit_code == 2
    assert "'spark' is not 'local', 'processes' or 'ray'" in result.output


def test_the_command_resolves_ray_settings_as_run_does(tiny_study, tmp_path):
    from sscbench.measure.cli import _on_ray

    root = _study_on_ray(tiny_study, tmp_path)
    assert _on_ray(tiny_study, None, None, None) is None  # a local study stays local
    assert _on_ray(tiny_study, None, None, 3) is None
    where = _on_ray(root, None, None, 3)
    assert isinstance(where, OnRay) and where.settings.workers == 3 and where.address is None
    assert _on_ray(root, None, "auto", None) == OnRay(RaySettings(), "auto")
    assert _on_ray(root, "local", None, None) is None
    assert _on_ray(tiny_study, "ray", "10.0.0.5:6379", None) == OnRay(
        RaySettings(), "10.0.0.5:6379"
    )


def test_a_model_classifier_is_not_measured_on_ray(tiny_study):
    from sscbench.measure.study import measure_study

    with pytest.raises(DataError, match="rule classifier"):
        measure_study(tiny_study, classifier=object(), on_ray=OnRay(RaySettings()))  # type: ignore[arg-type]


def test_shipped_rows_name_an_absent_case(study):
    entry, text = next((e, t) for e, t in _shipped(study) if t is not None)
    with pytest.raises(DataError) as refused:
        list(measure_shipped({}, [(entry, text)], "cases.jsonl"))
    assert refused.value.field == entry.case_id


def test_a_recorded_study_table_that_does_not_validate_is_named(tiny_study, tmp_path):
    """The study's ``config.toml`` is read for its placement: a ``[study]`` table that no
    longer validates stops ``measure`` naming the file, unless ``--executor local``."""
    root = tmp_path / "study"
    shutil.copytree(tiny_study, root)
    toml = root / "config.toml"
    toml.write_text(toml.read_text().replace("[study]\n", '[study]\nexecutor = "spark"\n', 1))
    result = CliRunner().invoke(app, ["measure", str(root)])
    assert result.exit_code == 2
    assert "config.toml, field study" in " ".join(result.output.split()), result.output
    result = CliRunner().invoke(app, ["measure", str(root), "--executor", "local"])
    assert result.exit_code == 0, result.output
