"""The Ray executor on a real local Ray cluster (``ray start`` on 127.0.0.1, stopped after).

The driver is ``sscbench run --executor ray`` in a subprocess, as a user runs it; the
index it writes must equal the local executor's, also when a worker process is
SIGKILLed while it makes episodes.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sscbench.errors import DataError
from sscbench.run.executor import execute_study
from sscbench.study.config import load_config, parse_config
from sscbench.testing import OpenAIServer, text
from sscbench.testing.ray_cluster import LocalRayCluster

# not imported here: Ray reads its environment (auth, one machine) when first imported
pytestmark = [
    pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="needs the ray extra"),
    pytest.mark.slow,  # a real cluster: about 70 s for the file on 2 shared cores
]

SRC = Path(__file__).resolve().parents[2] / "src"
ENV = {
    "PYTHONPATH": str(SRC),
    "RAY_USAGE_STATS_ENABLED": "0",
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",  # one machine: Ray keeps 127.0.0.1
}


@pytest.fixture(scope="module")
def cluster():
    """A head node with 2 CPUs and a custom resource, its workers started on demand."""
    saved = dict(os.environ)
    with LocalRayCluster(head_cpus=2, env=ENV, resources={"endpoint-b": 4}) as running:
        os.environ.update({**ENV, **running.auth_env})  # for a driver in this process
        try:
            yield running
        finally:
            os.environ.clear()
            os.environ.update(saved)
    assert not running.pids()


def index_rows(study: Path) -> list[tuple]:
    """The index as the issue compares it: case, configuration, repetition, kind, status,
    ledger hash (sorted: Ray finishes runs in another order)."""
    rows = [json.loads(line) for line in (study / "index.jsonl").read_text().splitlines()]
    run_ids = [row["run_id"] for row in rows]
    assert len(run_ids) == len(set(run_ids)), "a run is indexed twice"
    return sorted(
        (r["case_id"], r["config_id"], r["repetition"], r["kind"], r["status"], r["ledger_sha256"])
        for r in rows
    )


def sscbench_run(cluster: LocalRayCluster, *args: str) -> subprocess.Popen:
    """``sscbench run`` as a subprocess joined to the cluster (its token, 127.0.0.1)."""
    env = {**os.environ, **ENV, **cluster.auth_env}
    command = [sys.executable, "-m", "sscbench", "run", *args, "--no-report", "--no-progress"]
    command += ["--executor", "ray", "--address", cluster.address]
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def test_default_study_on_ray_has_the_local_index(cluster, tmp_path):
    config, toml_text = load_config(None)
    execute_study(config, toml_text, tmp_path / "local", progress=False)
    driver = sscbench_run(cluster, "--out", str(tmp_path / "ray"))
    output, _ = driver.communicate(timeout=600)
    assert driver.returncode == 0, output.decode()
    assert "564/564 runs finished (564 now)" in output.decode()
    assert index_rows(tmp_path / "ray") == index_rows(tmp_path / "local")
    timings = (tmp_path / "ray" / "timings.jsonl").read_text().splitlines()
    assert len(timings) == 564  # the driver wrote each run's time once


SLOW_STUDY = """
[study]
name = "slow"
repetitions = 2
concurrency = 4
[study.ray]
workers = 2
[world]
domains = ["airline"]
[cases]
operators = ["ReturnDate", "PaySource"]
per_operator = 3
max_steps = {{ ReturnDate = 3, PaySource = 3 }}
[[agents]]
id = "endpoint"
kind = "openai"
[agents.endpoint]
base_url = "{url}"
model = "fixed"
max_retries = 0
[agents.ray]
resources = {{ "endpoint-b" = 1 }}
"""


def test_a_killed_worker_loses_no_run_and_indexes_none_twice(cluster, tmp_path):
    """Episodes wait on a slow endpoint, so a worker always has runs in flight; one
    worker is SIGKILLed mid-study: its runs are re-run from scratch on the restarted
    worker and the index equals the local executor's."""
    with OpenAIServer(lambda body: text("Could you tell me more?"), delay=0.25) as server:
        toml_text = SLOW_STUDY.format(url=server.base_url)
        config_file = tmp_path / "slow.toml"
        config_file.write_text(toml_text)
        config = parse_config(toml_text, config_file, base_dir=tmp_path)
        execute_study(config, toml_text, tmp_path / "local", progress=False)
        before = set(cluster.worker_pids("EpisodeWorker"))
        driver = sscbench_run(cluster, str(config_file), "--out", str(tmp_path / "ray"))
        index = tmp_path / "ray" / "index.jsonl"
        killed = None
        deadline = time.monotonic() + 300
        while killed is None and time.monotonic() < deadline and driver.poll() is None:
            workers = sorted(set(cluster.worker_pids("EpisodeWorker")) - before)
            if len(workers) == 2 and index.exists() and index.read_text().count("\n") >= 2:
                killed = workers[0]
                os.kill(killed, signal.SIGKILL)
            time.sleep(0.05)
        output, _ = driver.communicate(timeout=600)
    text_out = output.decode()
    assert killed is not None, text_out
    assert driver.returncode == 0, text_out
    assert "re-run from scratch after their worker was lost" in text_out, text_out
    assert killed not in cluster.worker_pids("EpisodeWorker")
    assert index_rows(tmp_path / "ray") == index_rows(tmp_path / "local")


def test_a_resource_no_node_offers_fails_closed(cluster, tmp_path):
    """An agent bound to a resource that no node offers stops the study before its
    folder is touched, naming the field (the driver here is this process)."""
    toml_text = SLOW_STUDY.format(url="http://127.0.0.1:9/v1")
    toml_text = toml_text.replace('"endpoint-b" = 1', '"nowhere" = 1')
    toml_text = toml_text.replace("workers = 2", "workers = 1\nstart_timeout_s = 5")
    config = parse_config(toml_text, "slow.toml", base_dir=tmp_path)
    with pytest.raises(DataError) as refused:
        execute_study(
            config, toml_text, tmp_path / "study", executor="ray", address=cluster.address
        )
    assert refused.value.field == "agents.ray.resources"
    assert "nowhere" in str(refused.value)
    assert not (tmp_path / "study").exists()


def _kill_workers(cluster, driver, index: Path, before: set[int], gap: float) -> list[int]:
    """SIGKILL both workers of the study, ``gap`` seconds apart, once they have runs in
    flight (the index has rows): the second dies while the first restarts."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and driver.poll() is None:
        workers = sorted(set(cluster.worker_pids("EpisodeWorker")) - before)
        if len(workers) == 2 and index.exists() and index.read_text().count("\n") >= 2:
            os.kill(workers[0], signal.SIGKILL)
            time.sleep(gap)
            os.kill(workers[1], signal.SIGKILL)
            return workers
        time.sleep(0.05)
    return []


def _slow_study(tmp_path: Path, server: OpenAIServer, extra: str = "") -> Path:
    toml_text = SLOW_STUDY.format(url=server.base_url).replace("workers = 2", "workers = 2" + extra)
    config_file = tmp_path / "slow.toml"
    config_file.write_text(toml_text)
    config = parse_config(toml_text, config_file, base_dir=tmp_path)
    execute_study(config, toml_text, tmp_path / "local", progress=False)
    return config_file


def test_two_worker_losses_in_a_row_lose_no_run_and_stop_nothing(cluster, tmp_path):
    """Issue 29, item 8: the second worker dies while the first restarts; the runs of
    both wait for a worker that is back (a restart uses up no attempt) and the study
    finishes with the local index."""
    with OpenAIServer(lambda body: text("Could you tell me more?"), delay=0.25) as server:
        config_file = _slow_study(tmp_path, server, "\nattempts = 2")
        before = set(cluster.worker_pids("EpisodeWorker"))
        driver = sscbench_run(cluster, str(config_file), "--out", str(tmp_path / "ray"))
        killed = _kill_workers(cluster, driver, tmp_path / "ray" / "index.jsonl", before, 1.0)
        output, _ = driver.communicate(timeout=600)
    text_out = output.decode()
    assert killed, text_out
    assert driver.returncode == 0, text_out
    assert "re-run from scratch after their worker was lost" in text_out, text_out
    assert index_rows(tmp_path / "ray") == index_rows(tmp_path / "local")


def test_past_max_worker_losses_the_study_stops_and_resumes_the_same(cluster, tmp_path):
    """One loss more than ``max_worker_losses`` stops the study with a line naming the
    field; the runs written are kept and a resume gives the local index."""
    with OpenAIServer(lambda body: text("Could you tell me more?"), delay=0.25) as server:
        config_file = _slow_study(tmp_path, server, "\nmax_worker_losses = 1")
        before = set(cluster.worker_pids("EpisodeWorker"))
        driver = sscbench_run(cluster, str(config_file), "--out", str(tmp_path / "ray"))
        killed = _kill_workers(cluster, driver, tmp_path / "ray" / "index.jsonl", before, 0.0)
        output, _ = driver.communicate(timeout=600)
        stopped = output.decode()
        assert killed, stopped
        assert driver.returncode != 0, stopped
        assert "study.ray.max_worker_losses" in stopped and "2 worker losses" in stopped
        assert "Traceback" not in stopped, stopped
        again = sscbench_run(cluster, str(config_file), "--out", str(tmp_path / "ray"))
        resumed, _ = again.communicate(timeout=600)
    assert again.returncode == 0, resumed.decode()
    assert "resumed study" in resumed.decode(), resumed.decode()
    assert index_rows(tmp_path / "ray") == index_rows(tmp_path / "local")


PRIVATE_CLUSTER = """
import logging, os, sys, time
import psutil
from sscbench.study.placement import import_ray, local_cluster_options
ray = import_ray(True)
ray.init(logging_level=logging.WARNING, log_to_driver=False, **local_cluster_options(1, 80))
mine = psutil.Process().children(recursive=True)
dashboards = [p for p in mine if "dashboard/dashboard.py" in " ".join(p.cmdline())]
time.sleep(3)  # give a dashboard time to bind, were it to
ports = sorted(c.laddr.port for p in mine if p.is_running() for c in p.net_connections("tcp")
               if c.status == psutil.CONN_LISTEN)
print("listening", ports, "dashboard-ports",
      [c.laddr.port for p in dashboards for c in p.net_connections("tcp")
       if c.status == psutil.CONN_LISTEN])
ray.shutdown()
"""


def test_the_private_cluster_serves_no_dashboard(tmp_path):
    """Issue 29, item 11: the private local cluster (no ``--address``) binds nothing on
    8265, and Ray's dashboard process, if it starts one, listens on no port at all."""
    env = {**os.environ, **ENV}
    done = subprocess.run(
        [sys.executable, "-c", PRIVATE_CLUSTER],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stdout.splitlines() if x.startswith("listening"))
    assert "8265" not in line.split("dashboard-ports")[0], line
    assert line.endswith("dashboard-ports []"), line
