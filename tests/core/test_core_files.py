"""core/files.py: the one atomic-write helper every stage uses."""

from __future__ import annotations

import pytest

from sscbench.core.files import atomic_text_writer, atomic_write, replace_folder, temp_path


def test_atomic_write_replaces_and_leaves_no_temp(tmp_path):
    path = tmp_path / "index.jsonl"
    path.write_text("old\n", encoding="utf-8")
    atomic_write(path, "new ✓\n")
    atomic_write(tmp_path / "b.bin", b"\x00\x01")
    assert path.read_text("utf-8") == "new ✓\n"
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\x01"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.bin", "index.jsonl"]


def test_a_failed_stream_keeps_the_old_file_and_removes_the_temp(tmp_path):
    path = tmp_path / "measurements.jsonl"
    path.write_text("old\n", encoding="utf-8")
    with pytest.raises(RuntimeError), atomic_text_writer(path) as handle:
        handle.write("half a row")
        assert temp_path(path).exists()
        raise RuntimeError("killed mid-way")
    assert path.read_text("utf-8") == "old\n"
    assert not temp_path(path).exists()
    assert temp_path(path).name.startswith(".") and temp_path(path).suffix == ".tmp"


def test_replace_folder_swaps_a_whole_folder(tmp_path):
    final, staging = tmp_path / "report", tmp_path / ".report-build-1"
    final.mkdir()
    (final / "old.html").write_text("old")
    staging.mkdir()
    (staging / "report.html").write_text("new")
    replace_folder(staging, final)
    assert [p.name for p in final.iterdir()] == ["report.html"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]
