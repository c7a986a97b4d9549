"""``sscbench measure --workers N`` against one process, on a copy of a study.

Copies STUDY to a temporary folder, runs ``sscbench measure`` there with ``--workers 1``
and then with each N of ``--workers``, each in a child process, and prints the wall
time, the child's peak RSS and the speed-up over one process; every file must be the
one-process file byte for byte (rows, order and ``measurements.meta.json``), else it
stops with an error. The machine's other load is not controlled: run it on an idle
machine for a clean figure.

Usage: python benchmarks/measure_workers.py STUDY [--workers 2 4] [--tmp DIR]
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


def run_measure(study: Path, workers: int) -> tuple[float, float, bytes, bytes]:
    """(seconds, peak RSS MiB, measurements bytes, seal bytes) of one measure."""
    command = [sys.executable, "-m", "sscbench", "measure", str(study), "--workers", str(workers)]
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"error: measure --workers {workers} failed on {study}")
    out = study / "measurements.jsonl"
    seal = study / "measurements.meta.json"
    return seconds, usage.ru_maxrss / 1024, out.read_bytes(), seal.read_bytes()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("study", type=Path)
    parser.add_argument("--workers", nargs="+", type=int, default=[2])
    parser.add_argument("--tmp", type=Path, default=None)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="sscbench-workers-", dir=args.tmp))
    try:
        study = folder / "study"
        shutil.copytree(args.study, study, ignore=shutil.ignore_patterns("report", ".report-*"))
        runs = (study / "index.jsonl").read_bytes().count(b"\n")
        print(f"{study.name}: {runs:,} runs; {os.cpu_count()} cores")
        base, rss, rows, seal = run_measure(study, 1)
        print(f"--workers 1: {base:7.1f} s, peak RSS {rss:6.1f} MiB ({runs / base:,.0f} runs/s)")
        for n in args.workers:
            seconds, rss, other_rows, other_seal = run_measure(study, n)
            same = other_rows == rows and other_seal == seal
            print(
                f"--workers {n}: {seconds:7.1f} s, peak RSS {rss:6.1f} MiB (largest process), "
                f"speed-up {base / seconds:.2f}x; file {'identical' if same else 'DIFFERS'}"
            )
            if not same:
                raise SystemExit("error: the parallel measurements differ from one process's")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
