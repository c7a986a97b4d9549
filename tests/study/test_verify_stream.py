"""``check_study(keep_entries=False)``: the streamed check finds the same problems, in the
same order, as the check that keeps every entry, and holds none."""

from __future__ import annotations

import json
import shutil

from sscbench.study.verify import check_study


def test_the_streamed_check_finds_what_the_kept_check_finds(tiny_study, tmp_path):
    root = tmp_path / "study"
    shutil.copytree(tiny_study, root)
    lines = (root / "index.jsonl").read_text().splitlines()
    conflict = json.loads(lines[3])
    conflict["reward"] = 0.5 if conflict.get("reward") != 0.5 else 0.25
    stranger = json.loads(lines[5])
    stranger["run_id"] = "not-planned"
    extra = [lines[0], json.dumps(conflict), json.dumps(stranger)]
    (root / "index.jsonl").write_text("\n".join([*lines, *extra]) + "\n")
    kept, streamed = check_study(root), check_study(root, keep_entries=False)
    assert kept.runs == streamed.runs == len(lines) + 1
    assert len(kept.entries) == kept.runs and streamed.entries == {}
    assert kept.copies == streamed.copies == 1
    assert list(kept.problems.items()) == list(streamed.problems.items())
    assert [p.reason for p in streamed.problems.values()] == [
        "two different index lines record this run",
        "this run is not in the study's plan",
    ]
