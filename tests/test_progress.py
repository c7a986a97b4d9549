"""Progress on long commands: shown on a forced console, never changing a file."""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

from rich.console import Console

from sscbench import progress as progress_module
from sscbench.measure.study import measure_study
from sscbench.progress import counted, enabled, forced, progress, status, suppressed
from sscbench.report.build import build_report


def _console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=True, width=120), out


def _files(root: Path) -> dict[str, bytes]:
    files = {}
    for path in sorted(root.rglob("*")):
        # SVGs carry matplotlib's build date and random clip ids, progress or not
        if path.is_file() and path.name != ".sscbench.lock" and path.suffix != ".svg":
            data = path.read_bytes()
            if path.name == "report.html":  # the page says how long its build took
                data = re.sub(rb"Built in [0-9.]+ s", b"Built in X s", data)
            files[str(path.relative_to(root))] = data
    return files


def test_measure_and_report_show_progress_and_write_the_same_files(tiny_study, tmp_path):
    quiet, shown = tmp_path / "quiet" / "study", tmp_path / "shown" / "study"  # one name: the title
    shutil.copytree(tiny_study, quiet)
    shutil.copytree(tiny_study, shown)
    measure_study(quiet)
    build_report(quiet)
    console, text = _console()
    with forced(console):
        measure_study(shown)
        build_report(shown)
    printed = text.getvalue()
    assert "measuring runs" in printed and "checking run files" in printed
    assert "report: " in printed
    assert _files(quiet) == _files(shown)
    assert not progress_module._display  # every display was closed


def test_progress_is_off_in_tests_and_nested_bars_share_one_display(monkeypatch):
    monkeypatch.delenv("SSCBENCH_PROGRESS", raising=False)
    assert not enabled()  # pytest sets PYTEST_CURRENT_TEST
    monkeypatch.setenv("SSCBENCH_PROGRESS", "1")
    assert enabled()
    with suppressed():
        assert not enabled()
    console, text = _console()
    with forced(console), progress("outer", total=2) as outer:
        assert len(progress_module._display) == 1
        assert list(counted([1, 2, 3], "inner")) == [1, 2, 3]
        status("outer: second half")
        outer.advance(2)
        assert outer.completed == 2 and outer.what == "outer: second half"
    assert not progress_module._display
    assert "outer" in text.getvalue()


def test_a_disabled_bar_still_counts(monkeypatch):
    monkeypatch.setenv("SSCBENCH_PROGRESS", "0")
    with progress("work", total=3) as bar:
        bar.advance()
        bar.advance(2)
    assert bar.completed == 3 and bar.task is None
