"""core/files.py: the one atomic-write helper every stage uses."""

from __future__ import annotations

import errno
import os

import pytest

from sscbench.core import files
from sscbench.core.files import (
    atomic_text_writer,
    atomic_write,
    replace_folder,
    temp_path,
    write_new,
)


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


def test_write_new_writes_a_new_name_in_place_without_a_rename(tmp_path, monkeypatch):
    path = tmp_path / "run-1.ledger.jsonl"
    renames: list[object] = []
    monkeypatch.setattr(os, "replace", lambda *a: renames.append(a))
    write_new(path, b'{"a":1}\n')
    assert path.read_bytes() == b'{"a":1}\n' and renames == []
    assert [p.name for p in tmp_path.iterdir()] == ["run-1.ledger.jsonl"]


def test_write_new_replaces_a_name_that_exists_whole(tmp_path, monkeypatch):
    # a cut file of a killed write (no index line names it), or a run written again:
    # replaced by a rename, so a whole old file is never cut by a failing write
    path = tmp_path / "run-1.ledger.jsonl"
    path.write_bytes(b"old, whole")
    write_new(path, b"new")
    assert path.read_bytes() == b"new"
    replaced: list[tuple[object, bytes]] = []
    monkeypatch.setattr(files, "atomic_write", lambda p, d: replaced.append((p, d)))
    write_new(path, b"newer")
    assert replaced == [(path, b"newer")] and path.read_bytes() == b"new"


def test_write_new_on_a_full_disk_leaves_nothing_and_names_the_file(tmp_path, monkeypatch):
    path = tmp_path / "run-1.evaluator.jsonl"

    def full(fd: int, data: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full)
    with pytest.raises(OSError) as caught:
        write_new(path, b"x" * 10)
    assert caught.value.filename == str(path)
    assert list(tmp_path.iterdir()) == []
