"""Files held open by the study's writer (study/appends.py, ShardWriter.hold): each shard
opened once while frames go to it (closed before its seal, the next one opened), the
same bytes as a shard opened per frame, the index and timings opened once."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from sscbench.study.folder import IndexEntry, StudyDir
from sscbench.study.shard_reader import ShardReader
from sscbench.study.shard_writer import ShardWriter
from sscbench.study.shards import read_seals, shard_files


def _run(n: int) -> tuple[bytes, bytes]:
    ledger = json.dumps({"run": n, "said": f"reply {n} " * (n % 5 + 1), "rules": "r" * 400})
    log = json.dumps({"type": "run_end", "run": n, "noise": hashlib.sha256(bytes(n)).hexdigest()})
    return (ledger + "\n").encode(), (log + "\n").encode()


def _count_opens(monkeypatch) -> list[str]:
    opened: list[str] = []
    real = os.open

    def counting(path, *args, **kwargs):
        opened.append(Path(path).name)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", counting)
    return opened


def _fill(runs: Path, count: int, hold: bool) -> ShardWriter:
    writer = ShardWriter(runs, shard_runs=3)
    writer.hold = hold
    for n in range(count):
        writer.append(f"run-{n}", *_run(n))
    return writer


def test_a_held_shard_is_opened_once_and_its_bytes_are_the_same(tmp_path, monkeypatch):
    opened = _count_opens(monkeypatch)
    held = _fill(tmp_path / "held", 8, hold=True)
    shards = [p.name for p in shard_files(tmp_path / "held")]
    assert shards == [f"shard-00000{i}.shard" for i in range(3)]
    assert [opened.count(name) for name in shards] == [1, 1, 1]  # sealed ones closed first
    held.close()
    _fill(tmp_path / "each", 8, hold=False)
    for name in shards:
        assert (tmp_path / "held" / name).read_bytes() == (tmp_path / "each" / name).read_bytes()
    assert sorted(read_seals(tmp_path / "held")) == shards[:2]
    reader = ShardReader(tmp_path / "held")
    assert all(reader.read(f"run-{n}")[0] == _run(n)[0] for n in range(8))


def test_a_held_shard_reopened_after_open_appends_to_the_file_in_the_folder(tmp_path):
    runs = tmp_path / "runs"
    writer = _fill(runs, 2, hold=True)
    writer.open()  # e.g. a resume in the same process: the held descriptor is let go
    writer.append("run-2", *_run(2))
    writer.close()
    reader = ShardReader(runs)
    assert [reader.read(f"run-{n}")[0] for n in range(3)] == [_run(n)[0] for n in range(3)]


def _entry(run_id: str) -> IndexEntry:
    return IndexEntry(
        run_id=run_id,
        case_id="c",
        config_id="a",
        repetition=0,
        kind="clean",
        status="completed",
    )


def test_held_lines_are_opened_once_and_read_as_lines_written_one_by_one(tmp_path, monkeypatch):
    opened = _count_opens(monkeypatch)
    held, each = StudyDir(tmp_path / "held"), StudyDir(tmp_path / "each")
    for store in (held, each):
        store.root.mkdir()
    held.hold_files()
    for store in (held, each):
        for n in range(5):
            store.append_index(_entry(f"r{n}"))
            store.append_timing(f"r{n}", n / 3)
    held.close_files()
    assert held.index.read_bytes() == each.index.read_bytes()
    assert held.timings.read_bytes() == each.timings.read_bytes()
    assert opened.count("index.jsonl") == 1 + 5 and opened.count("timings.jsonl") == 1 + 5
    held.append_index(_entry("r5"))  # closed: the next line opens the file again
    assert [e.run_id for e in held.read_index()] == [f"r{n}" for n in range(6)]
