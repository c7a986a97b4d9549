"""Memory stays flat as a study grows: runs stream to disk and are forgotten."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CONFIG = """
[study]
seed = 3
repetitions = {repetitions}
concurrency = 8
[world]
source = "generated"
domains = ["airline", "retail"]
[cases]
operators = ["SuppressWrite"]
per_operator = 25
{agents}
"""

PROBE = """
import resource, sys
from sscbench.study.config import load_config
from sscbench.run.executor import execute_study
config, text = load_config(sys.argv[1])
summary = execute_study(config, text, sys.argv[2], progress=False)
print(summary.finished_runs, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _peak(tmp_path: Path, name: str, repetitions: int, profiles: list[str]) -> tuple[int, int]:
    agents = "\n".join(f'[[agents]]\nid = "{p}"\nprofile = "{p}"' for p in profiles)
    path = tmp_path / f"{name}.toml"
    path.write_text(CONFIG.format(repetitions=repetitions, agents=agents))
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(path), str(tmp_path / name)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return int(out[0]), int(out[1])


def test_peak_rss_of_2000_runs_within_1_5x_of_100_runs(tmp_path):
    small_runs, small_rss = _peak(tmp_path, "small", 1, ["trusting"])
    profiles = ["trusting", "readback", "tell_then_readback", "random_readback"]
    big_runs, big_rss = _peak(tmp_path, "big", 5, profiles)
    assert small_runs == 100 and big_runs == 2000
    assert big_rss <= 1.5 * small_rss, (small_rss, big_rss)


def _retained(tmp_path: Path, name: str, repetitions: int, monkeypatch) -> tuple[int, dict]:
    """Run a scripted study in this process; what its runner holds when it ends."""
    from sscbench.run import executor
    from sscbench.study.config import load_config

    runners: list = []

    class Watched(executor.StudyRunner):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            runners.append(self)

    monkeypatch.setattr(executor, "StudyRunner", Watched)
    agents = (
        '[[agents]]\nid = "t"\nprofile = "trusting"\n[[agents]]\nid = "r"\nprofile = "readback"'
    )
    path = tmp_path / f"{name}.toml"
    path.write_text(CONFIG.format(repetitions=repetitions, agents=agents).replace("25", "4"))
    config, text = load_config(path)
    summary = executor.execute_study(config, text, tmp_path / name, progress=False)
    (runner,) = runners
    return summary.finished_runs, runner.retained()


def test_the_runner_keeps_no_object_per_finished_run(tmp_path, monkeypatch):
    small_runs, small = _retained(tmp_path, "small", 1, monkeypatch)
    big_runs, big = _retained(tmp_path, "big", 10, monkeypatch)
    assert big_runs == 10 * small_runs > 0
    assert big == small  # no index entry, future, journal or clean record per run
    assert big["finished"] == 0 and big["clean_runs_in_flight"] == 0
    assert big["cleans_objects"] == 0 and big["cost_configs"] == 2


def test_a_plan_of_many_repetitions_holds_nothing_per_unit():
    from sscbench.run.builders import build_cases
    from sscbench.run.planning import make_plan
    from sscbench.study.config import parse_config
    from sscbench.study.worlds import build_worlds

    agents = '[[agents]]\nid = "t"\nprofile = "trusting"'

    def plan(repetitions: int):
        config = parse_config(CONFIG.format(repetitions=repetitions, agents=agents), "s.toml")
        return make_plan(config, build_cases(config, build_worlds(config)))

    one, many = plan(1), plan(1000)
    assert len(many) == 1000 * len(one) and many.clean_count() == 1000 * one.clean_count()
    assert len(many._groups) == len(one._groups)  # one entry per (task, configuration)
    assert all(isinstance(r, range) for reps in many._reps for r in reps)
    units = list(many)
    assert [u.plan_line() for u in units[:50]] == [u.plan_line() for u in list(many)[:50]]
    assert len({u.clean.slot_index for u in units}) == many.clean_count()


def _resume_holds(
    tmp_path: Path, name: str, repetitions: int, monkeypatch
) -> tuple[int, int, dict]:
    """Run a scripted study to its last few units, resume it for one run: the finished runs
    before, the index entries alive when that run is recorded, and what its runner holds."""
    import gc

    from sscbench.run import executor
    from sscbench.study.config import load_config
    from sscbench.study.folder import IndexEntry

    agents = (
        '[[agents]]\nid = "t"\nprofile = "trusting"\n[[agents]]\nid = "r"\nprofile = "readback"'
    )
    path = tmp_path / f"{name}.toml"
    path.write_text(CONFIG.format(repetitions=repetitions, agents=agents).replace("25", "4"))
    config, text = load_config(path)
    out = tmp_path / name
    planned = executor.execute_study(config, text, out, progress=False, stop_when=lambda e: False)
    lines = (out / "index.jsonl").read_bytes().splitlines(keepends=True)
    keep = len(lines) - 6  # the last runs leave the index: the resume runs them again
    (out / "index.jsonl").write_bytes(b"".join(lines[:keep]))
    runners: list = []
    alive: list[int] = []

    class Watched(executor.StudyRunner):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            runners.append(self)

    def first(entry) -> bool:
        gc.collect()
        alive.append(sum(isinstance(o, IndexEntry) for o in gc.get_objects()))
        return True  # one new run is enough

    monkeypatch.setattr(executor, "StudyRunner", Watched)
    summary = executor.execute_study(config, text, out, progress=False, stop_when=first)
    assert summary.resumed and planned.finished_runs == len(lines)
    assert (out / "index.jsonl").read_bytes().startswith(b"".join(lines[:keep]))
    return keep, alive[0], runners[0].retained()


def test_a_resumed_study_keeps_no_entry_per_finished_run(tmp_path, monkeypatch):
    small_before, small_alive, small = _resume_holds(tmp_path, "small", 1, monkeypatch)
    big_before, big_alive, big = _resume_holds(tmp_path, "big", 10, monkeypatch)
    assert big_before > 9 * small_before > 0
    assert big["finished"] == small["finished"] == 0  # no entry kept per finished run
    assert big_alive <= small_alive + 2 and big_alive < 20, (small_alive, big_alive)


def test_a_worker_rebuilds_the_study_without_a_unit_per_planned_run(tmp_path):
    """A process (or Ray) worker finds each unit it is sent from its faulted run id, and
    holds no unit of the plan while it waits."""
    import gc

    from sscbench.run.builders import build_cases
    from sscbench.run.planning import PlanUnit, make_plan
    from sscbench.run.remote import EpisodeWorker, StudyInputs
    from sscbench.study.config import parse_config
    from sscbench.study.worlds import build_worlds

    agents = '[[agents]]\nid = "t"\nprofile = "trusting"'
    text = CONFIG.format(repetitions=40, agents=agents)
    config = parse_config(text, "s.toml")
    cases = build_cases(config, build_worlds(config))

    def units_alive() -> int:
        gc.collect()
        return sum(isinstance(o, PlanUnit) for o in gc.get_objects())

    before = units_alive()  # other tests in this process may still hold a few
    worker = EpisodeWorker(StudyInputs.of(config, text, cases))
    assert units_alive() == before
    plan = make_plan(config, cases)
    for unit in list(plan)[::97]:
        found = worker.plan.unit_of(unit.faulted_run_id)
        assert found == unit and found.clean.slot_index == unit.clean.slot_index
    assert worker.plan.unit_of("not--a--r0--faulted") is None
