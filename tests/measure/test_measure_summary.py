"""``sscbench measure`` prints its summary from the file it wrote, read a line at a time:
at a million runs the file is ~800 MB, and reading it whole held 1.8 GB."""

from __future__ import annotations

import json
import shutil
from collections import Counter

from typer.testing import CliRunner

from sscbench import jsonl
from sscbench.cli import app


def test_the_summary_streams_the_measurements_and_counts_each_stratum(
    tiny_study, tmp_path, monkeypatch
):
    study = tmp_path / "study"
    shutil.copytree(tiny_study, study)

    read_text = jsonl.read_text

    def whole(path):  # the measurements read whole: what the summary must not do
        assert not str(path).endswith("measurements.jsonl"), f"{path} read whole"
        return read_text(path)

    monkeypatch.setattr(jsonl, "read_text", whole)  # under read_lines and read_jsonl
    result = CliRunner().invoke(app, ["measure", str(study)])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (study / "measurements.jsonl").read_text().splitlines()]
    strata = Counter(r.get("Z_S") for r in rows if r["kind"] == "faulted")
    expected = ", ".join(f"{k} {v}" for k, v in sorted(strata.items()))
    assert f"faulted runs by arrival: {expected}" in result.output
    assert f"{len(rows)} rows" in result.output
