"""A command's own peak RSS and CPU, measured in a child that inherits no high-water mark.

On Linux a process's ``ru_maxrss`` starts from the high-water mark of the process it was
forked from: ``exec`` keeps the larger of the old and the new image's peak. A benchmark
that has imported sscbench and built a world (~260 MiB) and then starts
``sscbench report`` reads back at least its own size from ``wait4``, whatever the command
used, so a command smaller than the benchmark looks flat at the benchmark's size. The
command is therefore started by a small launcher (a bare interpreter, ~10 MiB, that
imports only ``os``, ``subprocess`` and ``sys``): the command forks from the launcher, so
its peak starts from the launcher's, and the launcher passes back what ``wait4`` told it
of the command (with the command's own children, e.g. ``measure``'s workers: the largest
of them).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

LAUNCHER = """
import os, subprocess, sys
child = subprocess.Popen(sys.argv[2:])
_, status, usage = os.wait4(child.pid, 0)
with open(sys.argv[1], "w") as out:
    out.write(f"{os.waitstatus_to_exitcode(status)} {usage.ru_maxrss} "
              f"{usage.ru_utime + usage.ru_stime}")
"""


@dataclass(frozen=True)
class Measured:
    """One command's exit code, wall seconds, own peak RSS (MiB), CPU seconds (its own
    and its waited-for children's) and captured output (when asked for)."""

    returncode: int
    seconds: float
    peak_mib: float
    cpu_s: float
    output: str = ""


def run_measured(
    command: list[str],
    *,
    capture: bool = False,
    stdout: IO[Any] | int | None = None,
    stderr: IO[Any] | int | None = None,
    env: dict[str, str] | None = None,
) -> Measured:
    """Run ``command`` through the launcher; with ``capture`` its stdout and stderr are
    returned as ``output``, else they go to ``stdout`` / ``stderr`` (default: inherited)."""
    with tempfile.TemporaryDirectory(prefix="child-peak-") as folder:
        report = Path(folder) / "usage"
        launch = [sys.executable, "-c", LAUNCHER, str(report), *command]
        started = time.perf_counter()
        if capture:
            done = subprocess.run(
                launch, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
            )
            output = done.stdout
        else:
            subprocess.run(launch, stdout=stdout, stderr=stderr, env=env)
            output = ""
        seconds = time.perf_counter() - started
        code, maxrss_kib, cpu = report.read_text().split()
    return Measured(int(code), seconds, int(maxrss_kib) / 1024, float(cpu), output)


def own_peak_floor_mib() -> float:
    """The peak a command doing nothing reads back through the launcher (the floor under
    every figure: a bare ``python -c pass``)."""
    return run_measured([sys.executable, "-c", "pass"]).peak_mib


if __name__ == "__main__":  # a check by hand: the floor, from a process of ~300 MiB
    ballast = bytearray(300 << 20)
    ballast[:: os.sysconf("SC_PAGE_SIZE")] = b"\1" * len(ballast[:: os.sysconf("SC_PAGE_SIZE")])
    print(f"floor through the launcher: {own_peak_floor_mib():.1f} MiB")
