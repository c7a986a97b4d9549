"""The sharded run store (study/shards.py, study/runfiles.py): frames, seals, a frame cut
by a kill, tampering, a run run again, the layout recorded in the marker."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from sscbench.errors import DataError
from sscbench.study.marker import read_marker, store_layout
from sscbench.study.runfiles import SHARDS_ABOVE, SHARDS_FROM_CONCURRENCY, choose_layout
from sscbench.study.shard_reader import ShardReader
from sscbench.study.shard_writer import ShardWriter
from sscbench.study.shards import BLOCKS_MAGIC, SEALS, read_seals, shard_files


def _text(n: int, domain: str = "airline") -> tuple[bytes, bytes]:
    """A run's ledger and evaluator bytes: a shared prompt, then text of its own."""
    prompt = f"# {domain} policy\n" + "".join(f"rule {i} of {domain}\n" for i in range(300))
    ledger = json.dumps({"run": n, "prompt": prompt, "said": f"reply {n} " * (n % 7 + 1)})
    log = json.dumps({"type": "run_end", "run": n, "noise": hashlib.sha256(bytes(n)).hexdigest()})
    return (ledger + "\n").encode(), (log + "\n").encode()


def _run(n: int) -> tuple[bytes, bytes]:
    return _text(n, "airline" if n % 3 else "retail")


def _fill(runs: Path, count: int, **limits: int) -> ShardWriter:
    writer = ShardWriter(runs, **limits)
    for n in range(count):
        ledger, log = _run(n)
        shas = writer.append(f"run-{n}", ledger, log)
        assert shas == (hashlib.sha256(ledger).hexdigest(), hashlib.sha256(log).hexdigest())
    return writer


def test_every_run_reads_back_byte_identical_and_small(tmp_path):
    runs = tmp_path / "runs"
    _fill(runs, 40)
    reader = ShardReader(runs)
    raw = 0
    for n in range(40):
        ledger, log, frame = reader.read(f"run-{n}")
        assert (ledger, log) == _run(n)
        raw += len(ledger) + len(log)
        assert frame.shard == runs / "shard-000000.shard"
    stored = sum(p.stat().st_size for p in shard_files(runs))
    assert stored * 10 < raw  # the shared text is stored once per shard, not per run


def test_full_shards_are_sealed_and_checked(tmp_path):
    runs = tmp_path / "runs"
    _fill(runs, 7, shard_runs=3)
    assert [p.name for p in shard_files(runs)] == [f"shard-00000{i}.shard" for i in range(3)]
    seals = read_seals(runs)
    assert sorted(seals) == ["shard-000000.shard", "shard-000001.shard"]  # the third is open
    data = (runs / "shard-000001.shard").read_bytes()
    assert seals["shard-000001.shard"]["sha256"] == hashlib.sha256(data).hexdigest()
    assert ShardReader(runs).read("run-4")[0] == _run(4)[0]
    # a closed shard changed anywhere, even where no run's text is, is refused by its seal
    (runs / "shard-000001.shard").write_bytes(data + b"\0")
    with pytest.raises(DataError) as info:
        ShardReader(runs).read("run-4")
    assert info.value.path.name == "shard-000001.shard" and info.value.field == "run run-4"
    assert SEALS in info.value.reason
    assert ShardReader(runs).read("run-0")[0] == _run(0)[0]  # other shards read


def test_a_frame_cut_by_a_kill_is_ignored_then_cut_off(tmp_path):
    runs = tmp_path / "runs"
    _fill(runs, 5)
    shard = runs / "shard-000000.shard"
    whole = shard.stat().st_size
    ledger, log = _run(5)
    ShardWriter(runs).append("run-5", ledger, log)
    cut = whole + (shard.stat().st_size - whole) // 2
    with shard.open("r+b") as handle:
        handle.truncate(cut)  # the kill: half a frame
    reader = ShardReader(runs)
    assert reader.locate("run-5") is None and reader.read("run-4")[0] == _run(4)[0]
    writer = ShardWriter(runs)
    done = writer.open()
    assert shard.stat().st_size == whole and any("cut" in line for line in done)
    writer.append("run-5", ledger, log)
    assert ShardReader(runs).read("run-5")[:2] == (ledger, log)


def test_a_changed_frame_is_refused_naming_shard_and_run(tmp_path):
    runs = tmp_path / "runs"
    _fill(runs, 4)
    shard = runs / "shard-000000.shard"
    frame = ShardReader(runs).locate("run-2")
    assert frame is not None
    data = bytearray(shard.read_bytes())
    data[frame.end - 5] ^= 0xFF  # a byte of its compressed text
    shard.write_bytes(bytes(data))
    with pytest.raises(DataError) as info:
        ShardReader(runs).read("run-2")
    assert info.value.path == shard and info.value.field == "run run-2"
    assert ShardReader(runs).read("run-3")[0] == _run(3)[0]


def test_a_run_run_again_reads_its_last_frame(tmp_path):
    runs = tmp_path / "runs"
    writer = _fill(runs, 3)
    writer.append("run-1", b"again\n", b"log again\n")
    assert ShardReader(runs).read("run-1")[:2] == (b"again\n", b"log again\n")


def test_the_same_writes_give_the_same_bytes(tmp_path):
    for name in ("a", "b"):
        _fill(tmp_path / name, 12, shard_runs=5)
    for path in shard_files(tmp_path / "a"):
        assert path.read_bytes() == (tmp_path / "b" / path.name).read_bytes()


def test_the_layout_is_chosen_once_and_recorded(tmp_path):
    assert choose_layout("auto", SHARDS_ABOVE) == "files"
    assert choose_layout("auto", SHARDS_ABOVE + 1) == "shards"
    assert choose_layout("files", 10**6) == "files" and choose_layout("shards", 2) == "shards"
    assert choose_layout("auto", 10, SHARDS_FROM_CONCURRENCY - 1) == "files"
    assert choose_layout("auto", 10, SHARDS_FROM_CONCURRENCY) == "shards"  # many at once
    assert choose_layout("files", 10, 1024) == "files"
    marker = tmp_path / "sscbench-study.json"
    marker.write_text(json.dumps({"sscbench_study": 2, "store": "shards"}))
    assert store_layout(read_marker(marker)) == "shards"
    marker.write_text(json.dumps({"sscbench_study": 1, "store": "shards"}))
    with pytest.raises(DataError, match="does not fit study format 1"):
        store_layout(read_marker(marker))
    marker.write_text(json.dumps({"sscbench_study": 2}))
    with pytest.raises(DataError, match="does not fit study format 2"):
        store_layout(read_marker(marker))


def test_a_sealed_shard_is_compacted_into_blocks_and_reads_the_same(tmp_path):
    runs = tmp_path / "runs"
    _fill(runs, 130, shard_runs=130)
    shard = runs / "shard-000000.shard"
    assert shard.read_bytes().startswith(BLOCKS_MAGIC) and "shard-000000.shard" in read_seals(runs)
    reader = ShardReader(runs)
    for n in range(130):
        ledger, log, frame = reader.read(f"run-{n}")
        assert (ledger, log) == _run(n) and frame.block >= 0
    open_store = tmp_path / "open"
    _fill(open_store, 130)  # the same runs as frames of an open shard
    assert shard.stat().st_size < (open_store / "shard-000000.shard").stat().st_size


def test_a_kill_between_compaction_and_seal_is_sealed_on_open(tmp_path):
    runs = tmp_path / "runs"
    _fill(runs, 6, shard_runs=6)
    (runs / SEALS).unlink()  # the kill came after the compacted shard's rename
    writer = ShardWriter(runs, shard_runs=6)
    assert writer.open() == ["sealed shard-000000.shard"]
    assert "shard-000000.shard" in read_seals(runs)
    writer.append("run-6", *_run(6))
    assert ShardReader(runs).read("run-6")[0] == _run(6)[0]
    assert ShardReader(runs).read("run-5")[0] == _run(5)[0]


def test_a_folder_reads_the_frame_it_wrote_last(tmp_path):
    from sscbench.study.folder import StudyDir

    store = StudyDir(tmp_path / "study")
    store.layout = "shards"
    store.write_run_bytes("run-0", b"first\n", b"log\n")
    assert store.run_bytes("run-0") == (b"first\n", b"log\n")  # its catalogue is built
    store.write_run_bytes("run-0", b"second\n", b"log 2\n")
    assert store.run_bytes("run-0") == (b"second\n", b"log 2\n")
    assert store.has_run_files("run-0") and not store.has_run_files("run-1")
    assert store.run_where("run-0").name == "shard-000000.shard"
    assert store.run_text_where("run-0") == f"sscbench show {tmp_path / 'study'} run-0"


def test_a_run_no_shard_holds_rescans_only_when_the_shards_changed(tmp_path, monkeypatch):
    runs = tmp_path / "runs"
    writer = _fill(runs, 5, shard_runs=3)  # a sealed shard and an open one
    reader = ShardReader(runs)
    scans = []
    monkeypatch.setattr(reader, "build", lambda real=reader.build: scans.append(1) or real())
    reader.build()  # catalogued, as for a reader of many runs (a few first lookups search)
    assert reader.locate("run-1") is not None and len(scans) == 1
    for _ in range(3):  # a run that never ran (not qualified): no scan of every shard
        assert reader.locate("never-ran") is None
    assert len(scans) == 1
    writer.append("run-5", *_run(5))  # the open shard grew: its run is found
    assert reader.read("run-5")[0] == _run(5)[0] and len(scans) == 2
    writer.append("late", *_run(6))  # the open shard is sealed into a new one's place
    assert reader.read("late")[0] == _run(6)[0] and len(scans) == 3
    assert reader.locate("never-ran") is None and len(scans) == 3
