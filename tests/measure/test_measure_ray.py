"""``sscbench measure --executor ray`` on a real local Ray cluster (``ray start`` on
127.0.0.1, stopped after): the default study (564 runs) and a sharded study measured on
Ray give ``--workers 1``'s ``measurements.jsonl`` and seal byte for byte, also when the
worker is SIGKILLed while it measures a chunk (the chunk is measured again)."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from sscbench.measure.on_ray import RayMeasure
from sscbench.measure.study import measure_study
from sscbench.run.executor import execute_study
from sscbench.study.config import parse_config
from sscbench.study.ray_config import RaySettings
from sscbench.study.seal import seal_path
from sscbench.study.study import Study
from sscbench.testing.ray_cluster import LocalRayCluster
from tiny_study import TINY_STUDY

# not imported here: Ray reads its environment (auth, one machine) when first imported
pytestmark = [
    pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="needs the ray extra"),
    pytest.mark.slow,  # a real cluster: about a minute on 2 shared cores
]

SRC = Path(__file__).resolve().parents[2] / "src"
ENV = {
    "PYTHONPATH": str(SRC),
    "RAY_USAGE_STATS_ENABLED": "0",
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",  # one machine: Ray keeps 127.0.0.1
}


@pytest.fixture(scope="module")
def cluster():
    """A head node with 2 CPUs (one cluster for the module)."""
    saved = dict(os.environ)
    with LocalRayCluster(head_cpus=2, env=ENV) as running:
        os.environ.update({**ENV, **running.auth_env})  # for a driver in this process
        try:
            yield running
        finally:
            os.environ.clear()
            os.environ.update(saved)
    assert not running.pids()


def _on_ray(cluster: LocalRayCluster, study: Path, out: Path, *args: str) -> str:
    """``sscbench measure`` on the cluster, as a user runs it (a subprocess)."""
    env = {**os.environ, **ENV, **cluster.auth_env}
    command = [sys.executable, "-m", "sscbench", "measure", str(study), "--out", str(out)]
    command += ["--executor", "ray", "--address", cluster.address, *args]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_measured_on_ray_is_the_file_of_one_process(cluster, default_study, tmp_path):
    """The default study (files) and a sharded one: the same rows, order and seal."""
    sharded = tmp_path / "sharded"
    text = TINY_STUDY.replace("[study]\n", '[study]\nstore = "shards"\n')
    execute_study(parse_config(text, "tiny.toml"), text, sharded, progress=False)
    measure_study(sharded)
    for study, workers in ((default_study, "2"), (sharded, "1")):
        one = study / "measurements.jsonl"
        out = tmp_path / f"{study.name}-ray.jsonl"
        printed = _on_ray(cluster, study, out, "--workers", workers)
        assert f"wrote {out}" in printed
        assert out.read_bytes() == one.read_bytes()
        assert seal_path(out).read_bytes() == seal_path(one).read_bytes()
    assert (default_study / "measurements.jsonl").read_text().count("\n") == 564
    assert not cluster.worker_pids("ChunkMeasurer")  # the command stopped its workers


def test_a_chunk_whose_worker_was_killed_is_measured_again(cluster, default_study):
    """The one worker is SIGKILLed while a chunk is on it (stopped first, so the chunk
    is known to be unfinished): Ray restarts it, the chunk is measured again, and the
    lines are ``--workers 1``'s."""
    study = Study.open(default_study)
    want = (default_study / "measurements.jsonl").read_text().splitlines(keepends=True)
    measure = RayMeasure.start(RaySettings(workers=1), cluster.address, str(study.store.cases))
    killed = None
    try:
        lines = measure.lines(study.store, study.cases, study.store.read_index())
        got = [next(lines)]  # the first chunk is back; the next one is on the worker
        while killed is None and measure.pending:
            os.kill(measure.pids[0], signal.SIGSTOP)
            done, _ = measure.ray.wait([measure.pending[0].ref], timeout=0)
            if done:  # finished before the stop: try the next chunk
                os.kill(measure.pids[0], signal.SIGCONT)
                got += [next(lines) for _ in range(64)]
                continue
            os.kill(measure.pids[0], signal.SIGKILL)
            killed = measure.pids[0]
        got += list(lines)
    finally:
        measure.close()
    assert killed is not None
    assert measure.remeasured >= 1
    assert got == want
    assert killed not in cluster.pids()
