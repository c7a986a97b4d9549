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


def test_clean_stale_removes_only_what_a_dead_process_left(tmp_path):
    import os

    from sscbench.core.files import clean_stale

    target = tmp_path / "release"
    dead = 2**22 + 7  # above Linux's largest process id
    gone = [tmp_path / f".release-new-{dead}", tmp_path / f".release-old-{dead}"]
    for folder in gone:
        folder.mkdir()
    (tmp_path / f".release.{dead}.tmp").write_text("x")
    kept = [tmp_path / f".release-new-{os.getppid()}", tmp_path / f".releases-new-{dead}"]
    for folder in kept:
        folder.mkdir()
    removed = clean_stale(target)
    assert sorted(p.name for p in removed) == sorted(
        [*(p.name for p in gone), f".release.{dead}.tmp"]
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in kept)


def test_a_failed_staged_folder_keeps_the_old_folder(tmp_path):
    from sscbench.core.files import staged_folder

    final = tmp_path / "release"
    final.mkdir()
    (final / "old.csv").write_text("old")
    with pytest.raises(OSError) as caught, staged_folder(final) as staging:
        (staging / "a.csv").write_text("new")
        raise OSError(28, "No space left on device", str(staging / "b.csv"))
    assert caught.value.filename == str(final / "b.csv")  # named as the user knows it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["release"]
    assert [p.name for p in final.iterdir()] == ["old.csv"]
    with staged_folder(final) as staging:
        (staging / "a.csv").write_text("new")
    assert [p.name for p in final.iterdir()] == ["a.csv"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["release"]


def test_write_all_renames_nothing_until_every_file_is_whole(tmp_path, monkeypatch):
    from sscbench.core import files

    (tmp_path / "a.json").write_text("old a")
    real = files.Path.write_bytes

    def fail_on_b(self, data):
        if self.name.startswith(".b.json"):
            raise OSError(28, "No space left on device")
        return real(self, data)

    monkeypatch.setattr(files.Path, "write_bytes", fail_on_b)
    with pytest.raises(OSError) as caught:
        files.write_all({tmp_path / "a.json": "new a", tmp_path / "b.json": b"new b"})
    assert caught.value.filename == str(tmp_path / "b.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]
    assert (tmp_path / "a.json").read_text() == "old a"
