"""``sscbench measure --workers N`` (and ``--executor ray``) against one process, on a
copy of a study.

Copies STUDY to a temporary folder, runs ``sscbench measure`` there with ``--workers 1``
and then with each N of ``--workers``, each in a child process, and prints the wall
time, runs per second, the child's peak RSS and the speed-up over one process. With
``--ray N ...`` it then measures with ``--executor ray --workers N``: on a private local
cluster each command starts and stops (its start included in the time), or, with
``--ray-nodes K``, on one local cluster of K nodes of 1 CPU each (``ray start``,
started before and stopped after: its start not included; the workers' is). Every
file must be the one-process file byte for byte (rows, order and
``measurements.meta.json``), else it stops with an error. The machine's other load is
not controlled: run it on an idle machine for a clean figure.

Usage: python benchmarks/measure_workers.py STUDY [--workers 2 4] [--ray 2]
       [--ray-nodes 2] [--tmp DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from child_peak import run_measured  # benchmarks/child_peak.py


def run_measure(
    study: Path, workers: int, *extra: str, env: dict[str, str] | None = None
) -> tuple[float, float, bytes, bytes]:
    """(seconds, peak RSS MiB, measurements bytes, seal bytes) of one measure."""
    command = [sys.executable, "-m", "sscbench", "measure", str(study), "--workers", str(workers)]
    command += extra
    done = run_measured(command, stdout=subprocess.DEVNULL, env=env)  # its own peak
    if done.returncode != 0:
        raise SystemExit(f"error: measure --workers {workers} {' '.join(extra)} failed")
    out = study / "measurements.jsonl"
    seal = study / "measurements.meta.json"
    return done.seconds, done.peak_mib, out.read_bytes(), seal.read_bytes()


def compare(label: str, runs: int, base: float, one: tuple[bytes, bytes], got: tuple) -> None:
    """Print one measure's line against one process's; stop when its file differs."""
    seconds, rss, rows, seal = got
    same = (rows, seal) == one
    print(
        f"{label}: {seconds:7.1f} s ({runs / seconds:,.0f} runs/s), peak RSS {rss:6.1f} MiB "
        f"(driver), speed-up {base / seconds:.2f}x; file {'identical' if same else 'DIFFERS'}"
    )
    if not same:
        raise SystemExit(f"error: {label} measured other lines than one process")


def on_ray(study: Path, args: argparse.Namespace, runs: int, base: float, one: tuple) -> None:
    """Each N of ``--ray`` on a private cluster, or on one cluster of ``--ray-nodes``."""
    if not args.ray_nodes:
        for n in args.ray:
            got = run_measure(study, n, "--executor", "ray")
            compare(f"--executor ray --workers {n} (private cluster)", runs, base, one, got)
        return
    from sscbench.testing.ray_cluster import LocalRayCluster

    # nodes joined on one machine: Ray's single-machine switch would refuse the second
    env = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "1"}
    nodes = [{"cpus": 1} for _ in range(args.ray_nodes - 1)]
    started = time.perf_counter()
    with LocalRayCluster(head_cpus=1, nodes=nodes, env=env) as cluster:  # type: ignore[arg-type]
        print(f"{args.ray_nodes}-node cluster started in {time.perf_counter() - started:.1f} s")
        child_env = {**os.environ, **env, **cluster.auth_env}
        for n in args.ray:
            extra = ("--executor", "ray", "--address", cluster.address)
            got = run_measure(study, n, *extra, env=child_env)
            label = f"--executor ray --workers {n} ({args.ray_nodes} nodes)"
            compare(label, runs, base, one, got)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("study", type=Path)
    parser.add_argument("--workers", nargs="+", type=int, default=[2])
    parser.add_argument("--ray", nargs="*", type=int, default=[], help="Ray workers to try")
    parser.add_argument("--ray-nodes", type=int, default=0, help="a local cluster of K nodes")
    parser.add_argument("--tmp", type=Path, default=None)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="sscbench-workers-", dir=args.tmp))
    try:
        study = folder / "study"
        shutil.copytree(args.study, study, ignore=shutil.ignore_patterns("report", ".report-*"))
        runs = (study / "index.jsonl").read_bytes().count(b"\n")
        print(f"{study.name}: {runs:,} runs; {os.cpu_count()} cores")
        base, rss, rows, seal = run_measure(study, 1)
        print(f"--workers 1: {base:7.1f} s ({runs / base:,.0f} runs/s), peak RSS {rss:6.1f} MiB")
        for n in args.workers:
            compare(f"--workers {n}", runs, base, (rows, seal), run_measure(study, n))
        if args.ray:
            on_ray(study, args, runs, base, (rows, seal))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
