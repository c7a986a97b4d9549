"""Peak memory of ``sscbench run`` against the number of finished runs.

For each size (default 10k, 100k and 1M runs) a scripted study — the embedded default
study (the generated world, six scripted profiles, the scripted user) with as many
repetitions as reach the size — is run by ``sscbench run --no-report`` in a child
process, into a temporary folder on disk that is removed afterwards; the child's peak
RSS (``ru_maxrss``) and its runs per second are printed, then each size's RSS against
the smallest's. Goal: RSS at 1M within 1.5x of RSS at 10k.

Scripted runs cost a few milliseconds each, so 1M runs take over an hour on one core:
``--sizes`` picks what to run (e.g. ``--sizes 10000 100000``), and the sizes not run
are printed as not measured, never extrapolated as if measured.

Usage: python benchmarks/memory.py [--sizes 10000 100000 1000000] [--tmp DIR]
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from pathlib import Path

from child_peak import run_measured  # benchmarks/child_peak.py

from sscbench.study.config import load_config

DEFAULT = Path(__file__).resolve().parents[1] / "src" / "sscbench" / "run" / "default_study.toml"


def runs_per_repetition(source: Path = DEFAULT) -> int:
    """Clean plus faulted runs of a study (default: the default study) per repetition
    (as ``sscbench plan`` counts them)."""
    config, _ = load_config(source)
    from sscbench.run.builders import build_cases
    from sscbench.run.planning import make_plan
    from sscbench.study.worlds import build_worlds

    one = config.model_copy(update={"study": config.study.model_copy(update={"repetitions": 1})})
    plan = make_plan(one, build_cases(one, build_worlds(one)))
    return len(plan) + plan.clean_count()


def study_config(folder: Path, repetitions: int, source: Path = DEFAULT) -> Path:
    """A study's config (default: the default study) with ``repetitions`` repetitions,
    written into ``folder``."""
    text = source.read_text("utf-8")
    text = re.sub(r"(?m)^repetitions = \d+$", f"repetitions = {repetitions}", text)
    path = folder / f"{source.stem}-r{repetitions}.toml"
    path.write_text(text, "utf-8")
    return path


def measure(size: int, per_rep: int, tmp: Path) -> tuple[int, float, float]:
    """Run a study of about ``size`` runs in a child; (runs, peak RSS MiB, seconds)."""
    repetitions = max(1, round(size / per_rep))
    tmp.mkdir(parents=True, exist_ok=True)  # --tmp may name a folder not made yet
    folder = Path(tempfile.mkdtemp(prefix="sscbench-memory-", dir=tmp))
    try:
        config = study_config(folder, repetitions)
        command = [sys.executable, "-m", "sscbench", "run", str(config), "--out"]
        command += [str(folder / "study"), "--no-progress", "--no-report"]
        done = run_measured(command, capture=True)  # its own peak, never this process's
        if done.returncode != 0:
            raise SystemExit(f"error: the study of {size} runs failed:\n{done.output[-2000:]}")
        return repetitions * per_rep, done.peak_mib, done.seconds
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--tmp", type=Path, default=None, help="where the studies are written")
    args = parser.parse_args()
    per_rep = runs_per_repetition()
    print(f"default study: {per_rep} runs per repetition; sizes {args.sizes}")
    results = []
    for size in sorted(args.sizes):
        runs, rss, seconds = measure(size, per_rep, args.tmp or Path(tempfile.gettempdir()))
        results.append((runs, rss))
        print(
            f"{runs:>9,} runs: peak RSS {rss:7.1f} MiB, {seconds:7.1f} s "
            f"({runs / seconds:,.0f} runs/s)",
            flush=True,
        )
    base_runs, base_rss = results[0]
    for runs, rss in results[1:]:
        print(f"RSS at {runs:,} / RSS at {base_runs:,} runs: {rss / base_rss:.2f}")
    if len(results) > 1:
        (r0, m0), (r1, m1) = results[0], results[-1]
        slope = (m1 - m0) * 1024 / max(r1 - r0, 1)
        print(f"growth between them: {slope:.2f} KiB per finished run")


if __name__ == "__main__":
    main()
