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
from sscbench.run.config import load_config
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
