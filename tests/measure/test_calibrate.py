"""``sscbench calibrate`` agrees with the scripted profiles on the default and a τ-bench study."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from sscbench.run.executor import execute_study
from sscbench.study.config import parse_config

ROOT = Path(__file__).resolve().parents[2]


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "sscbench", *args], capture_output=True, text=True, check=False
    )


def _calibrated(out: Path) -> str:
    assert _cli("measure", str(out)).returncode == 0
    proc = _cli("calibrate", str(out))
    last = proc.stdout.strip().splitlines()[-1]
    assert proc.returncode == 0, proc.stdout[-2000:]
    return last


def _arrival_varies(out: Path) -> bool:
    by_group: dict[tuple, set] = {}
    for line in (out / "measurements.jsonl").read_text().splitlines():
        row = json.loads(line)
        if row["kind"] == "faulted" and row.get("Z_S") in ("pre", "late", "absent"):
            by_group.setdefault((row["case_id"], row["config_id"]), set()).add(row["Z_S"])
    return any(len(v) > 1 for v in by_group.values())


def test_default_study_calibrates(default_study):
    last = _calibrated(default_study)
    agree, total = last.split()[1].split("/")
    assert agree == total and int(total) > 100, last
    assert _arrival_varies(default_study)


def test_taubench_study_calibrates(taubench, tmp_path):
    text = (ROOT / "examples" / "taubench-study.toml").read_text()
    text = re.sub(r"^data = .*$", f'data = "{taubench}"', text, flags=re.M)
    text = text.replace("repetitions = 3", "repetitions = 2")
    config = parse_config(text, "taubench-study.toml")
    execute_study(config, text, tmp_path / "t", progress=False)
    last = _calibrated(tmp_path / "t")
    agree, total = last.split()[1].split("/")
    assert agree == total and int(total) > 500, last
    operators = {
        json.loads(x)["operator"]
        for x in (tmp_path / "t" / "measurements.jsonl").read_text().splitlines()
    }
    assert operators == {"ReturnDate", "ItemOption", "PaySource", "WriteEffect"}
    assert _arrival_varies(tmp_path / "t")
