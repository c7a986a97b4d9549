"""Exports and review of a study still being written say so in one warning line."""

from __future__ import annotations

import os

from typer.testing import CliRunner

from sscbench.cli import app
from sscbench.study.lock import StudyLock, being_written_warning, live_writer


def test_a_held_lock_names_its_writer_and_the_runs_finished_so_far(tmp_path):
    (tmp_path / "index.jsonl").write_text('{"a": 1}\n{"b": 2}\n{"c": 3}\n')
    assert live_writer(tmp_path) is None and being_written_warning(tmp_path, "x") is None
    with StudyLock(tmp_path):
        holder = live_writer(tmp_path)
        assert holder is not None and holder.pid == os.getpid()
        line = being_written_warning(tmp_path, "this export")
        assert line is not None and line.startswith("warning: ")
        assert f"pid {os.getpid()}" in line and "covers the 3 runs finished so far" in line
    assert live_writer(tmp_path) is None  # released: no writer, no warning
    assert not (tmp_path / "other").exists() and live_writer(tmp_path / "other") is None


def test_review_export_during_a_live_run_prints_one_warning_line(tiny_study, tmp_path):
    with StudyLock(tiny_study):
        result = CliRunner().invoke(
            app, ["review", "export", str(tiny_study), "--out", str(tmp_path / "r")]
        )
    warnings = [x for x in result.output.splitlines() if x.startswith("warning:")]
    assert len(warnings) == 1 and f"pid {os.getpid()}" in warnings[0], result.output
    assert "this review export covers the" in warnings[0]
    after = CliRunner().invoke(
        app, ["review", "export", str(tiny_study), "--out", str(tmp_path / "r2")]
    )
    assert after.exit_code == 0 and "warning:" not in after.output, after.output
