"""Wall time and peak memory of a pairs study against the size of its τ² file.

A pairs study names three conversations of τ²-bench's shipped sample
(``examples/data/tau2/``). It is run on two recordings that hold those conversations:

* the **baseline**: the sample itself (six conversations, 168 KB);
* the **big file**: the same six among ``--simulations`` small filler simulations
  (default 100,000: about 62 MB), written by :mod:`sscbench.testing.big_tau2`.

For each, ``sscbench run --no-report``, ``sscbench report`` and ``sscbench run`` again
(a resume: nothing left to run) are timed in child processes; each child's peak RSS is
its ``ru_maxrss`` (``os.wait4``). Cost should follow the three named conversations, not
the file: the big file adds one streamed scan to the first ``run`` (and the file's hash),
and nothing to ``report``. Before issue 42's item 7 the same study took 275 s and 937 MB
to ``run`` and its ``report`` was killed after 550 s (every conversation converted and
matched on every command).

Usage: python benchmarks/pairs_scale.py [--simulations 100000] [--tmp DIR] [--keep]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from child_peak import run_measured  # benchmarks/child_peak.py

from sscbench.testing.big_tau2 import write_big_tau2, write_pairs_study

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "examples" / "data" / "tau2" / "claude-opus-4-6-airline-sample.json"
CASES = ROOT / "tests" / "data" / "realtext-tau2" / "cases.jsonl"
PAIRS = [  # three conversations: τ-bench airline test/20, test/0, and one matching no task
    ("tau-bench/airline:test/20:ReturnDate:1N99U6", "d72fc177-b303-4d9f-9376-3351d3ab8561"),
    (
        "tau-bench/airline:test/0:PaySource:credit_card_4421486",
        "294d46c8-6bf9-4e98-8c9c-18e11068ffc9",
    ),
    ("tau-bench/airline:test/46:ReturnDate:SDZQKO", "2ac97331-26db-4a7f-9ea6-412cb4382709"),
]


def study_config(folder: Path, recording: Path) -> Path:
    """A pairs study of ``recording`` naming :data:`PAIRS`, written into ``folder``."""
    pairs = [{"case_id": c, "recording": r, "run_id": f"p{k}"} for k, (c, r) in enumerate(PAIRS)]
    return write_pairs_study(folder, recording, pairs, CASES)


def timed(args: list[str]) -> tuple[float, float]:
    """Run ``python -m sscbench ARGS`` in a child: (seconds, peak RSS MiB)."""
    done = run_measured([sys.executable, "-m", "sscbench", *args], capture=True)
    if done.returncode != 0:
        raise SystemExit(f"sscbench {' '.join(args)} failed:\n{done.output}")
    return done.seconds, done.peak_mib  # its own peak, never this process's


def measure(label: str, recording: Path, tmp: Path) -> list[tuple[str, str, float, float]]:
    """Time run, report and a resumed run of the pairs study of ``recording``."""
    folder = Path(tempfile.mkdtemp(prefix=f"pairs-{label}-", dir=tmp))
    config, out = study_config(folder, recording), folder / "study"
    rows = []
    for command, args in (
        ("run", ["run", str(config), "--out", str(out), "--no-report", "--no-progress"]),
        ("report", ["report", str(out)]),
        ("run (resume)", ["run", str(config), "--out", str(out), "--no-report", "--no-progress"]),
    ):
        seconds, rss = timed(args)
        rows.append((label, command, seconds, rss))
        print(f"{label:>10}  {command:<13} {seconds:8.1f} s  {rss:8.0f} MiB", flush=True)
    return rows


def main() -> None:
    """Build the big file, measure both recordings, print the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=100_000)
    parser.add_argument("--tmp", type=Path, default=None, help="where the files go")
    parser.add_argument("--keep", action="store_true", help="keep the files afterwards")
    options = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="sscbench-pairs-scale-", dir=options.tmp))
    try:
        big = tmp / "big-tau2.json"
        start = time.perf_counter()
        write_big_tau2(SAMPLE, big, options.simulations)
        size = big.stat().st_size / 1e6
        print(
            f"big file: {options.simulations:,} filler simulations + 6 real, {size:.1f} MB "
            f"(written in {time.perf_counter() - start:.1f} s)"
        )
        print(f"{'recording':>10}  {'command':<13} {'wall':>10}  {'peak RSS':>12}")
        base = measure("baseline", SAMPLE, tmp)
        scaled = measure("big", big, tmp)
        print("big file against the baseline (same three named conversations):")
        for (_, command, s0, m0), (_, _, s1, m1) in zip(base, scaled, strict=True):
            print(f"  {command:<13} wall {s1 / s0:5.2f}x   peak RSS {m1 / m0:5.2f}x")
    finally:
        if options.keep:
            print(f"kept: {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
