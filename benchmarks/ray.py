"""The Ray executor against the local one, on this machine, in one run.

1. Scripted episodes per second: the embedded default study (scripted agents and
   user, ``--repetitions`` each) through ``execute_study`` with the local executor and
   with 1, 2 and 4 Ray workers on a real local cluster (``ray start`` on 127.0.0.1,
   2 CPUs, each worker reserving 2/W of them); the rate counts the episodes that ran
   over the run phase (first unit started to last run written), so the cluster's start
   and the workers' rebuilding of the study are left out and reported apart.
2. Fixed-delay endpoint overhead through Ray: an openai agent against
   ``benchmarks/runs.py``'s endpoint (two tool calls, then text; ``--delay`` each) at
   concurrency 64 on 2 workers (32 in flight each), ``--rounds`` x 64 episodes, the
   study folder written by the driver: measured run phase against the ideal
   (rounds x 3 model calls x delay).

Usage: python benchmarks/ray.py [--repetitions 4] [--workers 1 2 4] [--delay 0.5]
       [--rounds 4]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# this file is named ray.py: drop its folder from the path so ``import ray`` finds Ray
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
ONE_MACHINE = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
os.environ.update(ONE_MACHINE)  # before anything imports ray: keep 127.0.0.1

from sscbench.run.executor import execute_study  # noqa: E402
from sscbench.study.config import load_config, parse_config  # noqa: E402
from sscbench.testing.ray_cluster import LocalRayCluster  # noqa: E402

RUNS_PY = Path(__file__).with_name("runs.py")
CLUSTER_CPUS = 2


def scripted_config(repetitions: int, executor: str, workers: int):
    """The default study with ``repetitions`` and, for Ray, ``workers`` workers."""
    _, text = load_config(None)
    text = text.replace("repetitions = 2", f"repetitions = {repetitions}")
    if executor == "ray":
        concurrency = 4 * workers
        text = text.replace("concurrency = 4", f"concurrency = {concurrency}")
        text = text.replace(
            "[world]\n",
            f"[study.ray]\nworkers = {workers}\nworker_cpus = {CLUSTER_CPUS / workers}\n\n[world]\n",
        )
    return parse_config(text, "<bench>"), text


def episodes_ran(summary) -> int:
    """Runs that executed an episode now (not-qualified records run none)."""
    return summary.executed_now - summary.statuses["not-qualified"]


def run_study(config, text, executor: str, address: str | None):
    """Execute into a fresh folder; returns (summary, total wall seconds)."""
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        summary = execute_study(
            config, text, Path(tmp) / "study", progress=False, executor=executor, address=address
        )
        return summary, time.perf_counter() - started


ENDPOINT_STUDY = """
[study]
name = "endpoint"
repetitions = {repetitions}
concurrency = 64
[study.ray]
workers = 2
worker_cpus = 1
[world]
domains = ["airline"]
[cases]
operators = ["ReturnDate"]
per_operator = 1
max_steps = {{ ReturnDate = 3 }}
[[agents]]
id = "endpoint"
kind = "openai"
[agents.endpoint]
base_url = "{url}"
model = "bench"
max_retries = 0
"""


def endpoint_overhead(
    address: str | None, delay: float, rounds: int, executor: str = "ray"
) -> tuple[float, float, int]:
    """Measured run phase and ideal wall time of rounds x 64 endpoint-driven episodes
    (``executor`` local: the same study without Ray, for comparison)."""
    child = subprocess.Popen(
        [sys.executable, str(RUNS_PY), "--serve", "--delay", str(delay)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None and child.stdin is not None
        url = child.stdout.readline().strip()
        text = ENDPOINT_STUDY.format(repetitions=rounds * 64, url=url)
        config = parse_config(text, "<bench>")
        summary, _ = run_study(config, text, executor, address)
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=30)
    return summary.runs_wall_s, rounds * 3 * delay, episodes_ran(summary)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=4)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--delay", type=float, default=0.5)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--endpoint-only", action="store_true", help="skip the scripted part")
    args = parser.parse_args()
    if args.endpoint_only:
        args.workers = []
    measured, ideal, ran = endpoint_overhead(None, args.delay, args.rounds, "local")
    print(
        f"local executor, fixed-delay endpoint at concurrency 64: {ran} episodes, "
        f"measured {measured:.3f} s vs ideal {ideal:.3f} s: overhead "
        f"{(measured / ideal - 1) * 100:+.2f}%"
    )
    config, text = scripted_config(args.repetitions, "local", 1)
    summary, total = run_study(config, text, "local", None)
    local_rate = episodes_ran(summary) / summary.runs_wall_s
    print(
        f"local executor (concurrency 4): {episodes_ran(summary)} scripted episodes in "
        f"{summary.runs_wall_s:.2f} s = {local_rate:,.0f} episodes/s ({total:.1f} s in all)"
    )
    start = time.perf_counter()
    with LocalRayCluster(head_cpus=CLUSTER_CPUS, env=ONE_MACHINE) as cluster:
        os.environ.update(cluster.auth_env)
        print(f"ray cluster started in {time.perf_counter() - start:.1f} s ({cluster.address})")
        for workers in args.workers:
            config, text = scripted_config(args.repetitions, "ray", workers)
            summary, total = run_study(config, text, "ray", cluster.address)
            rate = episodes_ran(summary) / summary.runs_wall_s
            print(
                f"ray, {workers} worker(s) (concurrency {config.study.concurrency}): "
                f"{episodes_ran(summary)} scripted episodes in {summary.runs_wall_s:.2f} s = "
                f"{rate:,.0f} episodes/s ({rate / local_rate:.2f}x local; {total:.1f} s in all, "
                "workers' start included)"
            )
        measured, ideal, ran = endpoint_overhead(cluster.address, args.delay, args.rounds)
        print(
            f"ray, fixed-delay endpoint at concurrency 64 (2 workers x 32): {ran} episodes, "
            f"measured {measured:.3f} s vs ideal {ideal:.3f} s: overhead "
            f"{(measured / ideal - 1) * 100:+.2f}%"
        )


if __name__ == "__main__":
    main()
