"""The τ-bench example study at growing sizes: files, disk, peak memory and speed per command.

For each size the example (``examples/taubench-study.toml``: τ-bench's airline and retail
worlds, four operators, seven scripted profiles) is run with as many repetitions as reach
it, in a child process per command, into a temporary folder that is removed afterwards:

* ``sscbench run --no-report`` (``--executor E`` and ``--run-workers N`` passed on when
  given: ``processes`` makes episodes in N child processes, ``ray`` on a private local
  cluster; ``--ray`` is ``--executor ray`` for ``run`` and for ``measure``),
* with ``--resume F``: the study as a kill after all but the last fraction ``F`` of
  its runs leaves it (the index cut to its first lines: the runs after them have no
  index line, so they are not finished), then the same ``sscbench run`` again, which
  resumes it (the step ``resume``: its peak RSS printed against the fresh ``run``'s),
* ``sscbench measure`` (``--workers N`` passed on when given: N processes, or with
  ``--ray`` N Ray workers on a private local cluster, ``--executor ray``),
* ``sscbench report``,

and for each the child's own peak RSS (``ru_maxrss`` from ``wait4``, through a small
launcher, ``benchmarks/child_peak.py``, so that this process's size is not inherited),
wall time and CPU time (user + system, with the child processes it waited for) are
recorded; after ``run`` and again after ``report``, the files in the study folder and its
bytes on disk per run (allocated blocks, as ``du`` counts them). Sizes:
×1 and ×10 of ``--repetitions`` (default 3: 3,486 runs, then 34,860); ``--big`` adds ×100
and one million runs. Every size is printed against the smallest; a size that was not run
is never extrapolated, and a command that fails stops the benchmark with its output.

Usage: python benchmarks/scale.py [--repetitions 3] [--big] [--sizes 1 10]
       [--workers N] [--executor local|processes|ray] [--run-workers N]
       [--store auto|files|shards] [--commands run measure report] [--resume 0.1]
       [--tmp DIR] [--keep]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from child_peak import run_measured  # benchmarks/child_peak.py
from memory import runs_per_repetition, study_config  # benchmarks/memory.py

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "taubench-study.toml"
MILLION = 1_000_000
COMMANDS = ("run", "resume", "measure", "report")


@dataclass
class Step:
    """One command's cost on one study."""

    seconds: float
    peak_mib: float
    cpu_s: float = 0.0  # user + system, the child's and its reaped children's


@dataclass
class Size:
    """What one study size cost: its runs, files, disk and each command's cost."""

    repetitions: int
    runs: int = 0
    files: int = 0
    disk_bytes: int = 0
    files_after: int = 0  # after measure and report
    disk_after: int = 0
    resumed: int = 0  # runs the resumed run made again (--resume)
    steps: dict[str, Step] = field(default_factory=dict)


def run_child(command: list[str]) -> Step:
    """Run one sscbench command in a child; its wall time and its own peak RSS (through
    :func:`child_peak.run_measured`: never this process's size, which it would inherit)."""
    done = run_measured(command, capture=True)
    if done.returncode != 0:
        raise SystemExit(f"error: {' '.join(command[2:4])} failed:\n{done.output[-3000:]}")
    return Step(seconds=done.seconds, peak_mib=done.peak_mib, cpu_s=done.cpu_s)


def folder_size(folder: Path) -> tuple[int, int]:
    """Files under ``folder`` and their bytes on disk (allocated blocks, as ``du``)."""
    files, blocks = 0, 0
    for dirpath, _, names in os.walk(folder):
        for name in names:
            info = os.lstat(os.path.join(dirpath, name))
            files += 1
            blocks += info.st_blocks * 512
    return files, blocks


def commands(config: Path, study: Path, args: argparse.Namespace) -> dict[str, list[str]]:
    """Each measured command's argument list."""
    cli = [sys.executable, "-m", "sscbench"]
    run = [*cli, "run", str(config), "--out", str(study), "--no-progress", "--no-report"]
    executor = "ray" if args.ray else args.executor
    if executor:
        run += ["--executor", executor]
    if args.run_workers:
        run += ["--workers", str(args.run_workers)]
    measure = [*cli, "measure", str(study)]
    if args.ray:
        measure += ["--executor", "ray"]
    if args.workers:
        measure += ["--workers", str(args.workers)]
    report = [*cli, "report", str(study)]
    return {"run": run, "resume": run, "measure": measure, "report": report}


def cut_index(study: Path, fraction: float) -> int:
    """Leave the study as a kill after all but the last ``fraction`` of its runs would:
    the index keeps its first lines (a faulted run's line follows its clean run's, so
    every kept run's clean run is kept). Returns the runs left to run again."""
    index = study / "index.jsonl"
    lines = index.read_bytes().splitlines(keepends=True)
    keep = len(lines) - max(1, round(len(lines) * fraction))
    index.write_bytes(b"".join(lines[:keep]))
    return len(lines) - keep


def measure_size(repetitions: int, per_rep: int, args: argparse.Namespace) -> Size:
    """Run, measure and report one size in a fresh folder; what each step cost."""
    tmp = args.tmp or Path(tempfile.gettempdir())
    tmp.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="sscbench-scale-", dir=tmp))
    size = Size(repetitions=repetitions, runs=repetitions * per_rep)
    try:
        config = study_config(folder, repetitions, EXAMPLE)
        if args.store:
            text = config.read_text("utf-8").replace(
                "[study]\n", f'[study]\nstore = "{args.store}"\n', 1
            )
            config.write_text(text, "utf-8")
        study = folder / "study"
        for name, command in commands(config, study, args).items():
            if name not in args.commands or (name == "resume" and not args.resume):
                continue
            if name == "resume":
                size.resumed = cut_index(study, args.resume)
            size.steps[name] = run_child(command)
            if name == "run":
                size.files, size.disk_bytes = folder_size(study)
            step = size.steps[name]
            load = os.getloadavg()[0]
            print(
                f"  {size.runs:>9,} runs: {name} {step.seconds:8.1f} s, {step.cpu_s:8.1f} CPU s "
                f"(load average {load:.2f})",
                flush=True,
            )
        size.files_after, size.disk_after = folder_size(study)
        return size
    finally:
        if args.keep:
            print(f"  kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


def print_size(size: Size, base: Size) -> None:
    """One size's line: files, bytes per run, each command's memory and speed."""
    per_run = size.disk_bytes / max(size.runs, 1)
    print(
        f"{size.runs:>9,} runs (x{size.runs / base.runs:,.0f}): {size.files:,} files, "
        f"{size.disk_bytes / 2**20:,.1f} MiB on disk ({per_run / 1024:.2f} KiB/run) after run; "
        f"{size.files_after:,} files, {size.disk_after / max(size.runs, 1) / 1024:.2f} KiB/run "
        "after measure and report"
    )
    for name in [c for c in COMMANDS if c in size.steps]:
        step, first = size.steps[name], base.steps[name]
        if name == "resume":
            fresh = size.steps["run"].peak_mib
            print(
                f"    resume   peak {step.peak_mib:7.1f} MiB (x{step.peak_mib / first.peak_mib:.2f}; "
                f"x{step.peak_mib / fresh:.2f} of this size's fresh run), {step.seconds:8.1f} s "
                f"for the last {size.resumed:,} runs after {size.runs - size.resumed:,} finished"
            )
            continue
        print(
            f"    {name:<8} peak {step.peak_mib:7.1f} MiB (x{step.peak_mib / first.peak_mib:.2f}), "
            f"{step.seconds:8.1f} s, {size.runs / step.seconds:8,.0f} runs/s, "
            f"{step.cpu_s:8.1f} CPU s ({size.runs / max(step.cpu_s, 1e-9):,.0f} runs per CPU s)"
        )


def sizes_of(args: argparse.Namespace, per_rep: int) -> list[int]:
    """Repetitions of each size to run, smallest first."""
    factors = args.sizes or ([1, 10, 100] if args.big else [1, 10])
    reps = [args.repetitions * factor for factor in factors]
    if args.big:
        reps.append(-(-MILLION // per_rep))  # the first whole repetition count reaching 1M
    return sorted(set(reps))


def main() -> None:
    """Measure each size and print it against the smallest."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=3, help="repetitions of size x1")
    parser.add_argument("--sizes", nargs="+", type=int, help="factors of --repetitions to run")
    parser.add_argument("--big", action="store_true", help="also x100 and one million runs")
    parser.add_argument("--workers", type=int, default=0, help="sscbench measure --workers N")
    parser.add_argument(
        "--ray", action="store_true", help="run and measure with --executor ray (local)"
    )
    parser.add_argument("--executor", choices=["local", "processes", "ray"], help="run's executor")
    parser.add_argument("--run-workers", type=int, default=0, help="sscbench run --workers N")
    parser.add_argument("--store", choices=["auto", "files", "shards"], help="[study] store")
    parser.add_argument(
        "--commands", nargs="+", choices=COMMANDS, default=list(COMMANDS), help="what to time"
    )
    parser.add_argument(
        "--resume", type=float, default=0.0, help="cut this fraction of the runs, then resume"
    )
    parser.add_argument("--tmp", type=Path, default=None, help="where the studies are written")
    parser.add_argument("--keep", action="store_true", help="keep the study folders")
    args = parser.parse_args()
    per_rep = runs_per_repetition(EXAMPLE)
    plan = sizes_of(args, per_rep)
    print(f"τ-bench example: {per_rep:,} runs per repetition; repetitions {plan}", flush=True)
    results = [measure_size(reps, per_rep, args) for reps in plan]
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    for size in results:
        print_size(size, results[0])


if __name__ == "__main__":
    main()
