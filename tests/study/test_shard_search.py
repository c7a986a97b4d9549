"""A shard reader's first lookups search the shards newest first (study/shard_reader.py):
the same frame and the same damage as the catalogue, and only the shards holding the
run id's bytes scanned."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from sscbench.errors import DataError
from sscbench.study import shard_reader
from sscbench.study.shard_reader import SEARCHES, ShardReader
from sscbench.study.shard_writer import ShardWriter
from sscbench.study.shards import BLOCK_MAGIC, SEALS, scan, shard_files


def _text(n: int, again: int = 0) -> tuple[bytes, bytes]:
    ledger = f'{{"run": {n}, "again": {again}, "said": "{"words " * (n % 5 + 1)}"}}\n'
    return ledger.encode(), f'{{"noise": "{hashlib.sha256(bytes(n)).hexdigest()}"}}\n'.encode()


def _fill(runs: Path, count: int, shard_runs: int = 4) -> ShardWriter:
    writer = ShardWriter(runs, shard_runs=shard_runs)
    for n in range(count):
        writer.append(f"run-{n}", *_text(n))
    return writer


def _catalogued(runs: Path) -> ShardReader:
    reader = ShardReader(runs)
    reader.searches = SEARCHES  # no search left: the catalogue answers
    return reader


@pytest.fixture
def scans(monkeypatch) -> list[str]:
    """The shards the reader scans, by name, in order."""
    seen: list[str] = []

    def counted(data: bytes, shard: Path):
        seen.append(shard.name)
        return scan(data, shard)

    monkeypatch.setattr(shard_reader, "scan", counted)
    return seen


def test_a_search_scans_only_the_shard_holding_the_run(tmp_path, scans):
    runs = tmp_path / "runs"
    _fill(runs, 21)  # shards 0-4 sealed (blocks), 5 open
    assert len(shard_files(runs)) == 6
    reader = ShardReader(runs)
    assert reader.read("run-3")[:2] == _text(3)
    assert scans == ["shard-000000.shard"] and reader.searches == 1
    assert reader.read("run-3")[:2] == _text(3) and len(scans) == 1  # found once, kept
    assert reader.read("run-20")[:2] == _text(20)  # a frame of the open shard
    assert scans[1:] == ["shard-000005.shard"]


def test_searching_and_cataloguing_give_the_same_frames(tmp_path):
    runs = tmp_path / "runs"
    writer = _fill(runs, 23)
    for n in (1, 9, 22):  # run again: 1 and 9 into a later shard, 22 into its own
        writer.append(f"run-{n}", *_text(n, again=1))
    catalogue = _catalogued(runs)
    for n in range(23):
        searched = ShardReader(runs)
        frame = searched.locate(f"run-{n}")
        assert frame == catalogue.locate(f"run-{n}") and frame is not None
        assert searched.read(f"run-{n}")[:2] == _text(n, again=int(n in (1, 9, 22)))
    assert ShardReader(runs).locate("run-23") is None  # searched, then catalogued: none


def test_a_run_id_inside_another_is_not_taken_for_it(tmp_path, scans):
    runs = tmp_path / "runs"
    _fill(runs, 13)  # run-1 in shard 0; run-10, run-11, run-12 in shard 2 (which hold "run-1")
    reader = ShardReader(runs)
    ledger, _, frame = reader.read("run-1")
    assert ledger == _text(1)[0] and frame.shard.name == "shard-000000.shard"
    assert scans == ["shard-000003.shard", "shard-000002.shard", "shard-000000.shard"]


def test_many_lookups_build_the_catalogue_once(tmp_path, scans):
    runs = tmp_path / "runs"
    _fill(runs, 12)
    reader = ShardReader(runs)
    for n in range(12):
        assert reader.read(f"run-{n}")[:2] == _text(n)
    assert reader.searches == SEARCHES
    searched = len(scans)
    assert scans[searched - len(shard_files(runs)) :] == [p.name for p in shard_files(runs)]


def test_a_changed_shard_holding_the_run_is_named_by_a_search(tmp_path):
    runs = tmp_path / "runs"
    _fill(runs, 9)
    shard = runs / "shard-000001.shard"
    shard.write_bytes(shard.read_bytes() + b"\0")  # its seal no longer holds
    for reader in (ShardReader(runs), _catalogued(runs)):
        with pytest.raises(DataError) as info:
            reader.read("run-5")
        assert info.value.path == shard and info.value.field == "run run-5"
        assert SEALS in info.value.reason
        assert reader.read("run-0")[:2] == _text(0)  # other shards still read


def test_a_run_in_no_shard_names_every_damaged_one(tmp_path):
    runs = tmp_path / "runs"
    _fill(runs, 9)
    shard = runs / "shard-000000.shard"
    data = bytearray(shard.read_bytes())
    where = data.index(b"run-2")
    data[where : where + 5] = b"rXn-2"  # the run's id in its header changed
    shard.write_bytes(bytes(data))
    with pytest.raises(DataError) as info:
        ShardReader(runs).read("run-2")
    assert "no shard holds it" in info.value.reason and "shard-000000.shard" in info.value.reason


def test_a_damaged_newer_shard_hiding_a_later_frame_is_named(tmp_path):
    runs = tmp_path / "runs"
    writer = _fill(runs, 8)  # shards 0 and 1 sealed
    writer.append("run-1", *_text(1, again=1))  # its later frame, in shard 2
    for n in (8, 9, 10):
        writer.append(f"run-{n}", *_text(n))  # shard 2 sealed and compacted
    shard = runs / "shard-000002.shard"
    data = bytearray(shard.read_bytes())
    data[data.index(BLOCK_MAGIC)] ^= 0xFF  # its one block's head broken: no frame scanned
    shard.write_bytes(bytes(data))
    for reader in (ShardReader(runs), _catalogued(runs)):
        ledger, _, frame = reader.read("run-1")  # the older frame: the index tells them apart
        assert ledger == _text(1)[0] and frame.shard.name == "shard-000000.shard"
        hidden = reader.hiding(frame)
        assert len(hidden) == 1 and hidden[0].startswith("shard-000002.shard is ")


def test_a_run_in_no_shard_catalogues_every_shard_once(tmp_path, scans):
    runs = tmp_path / "runs"
    _fill(runs, 9)
    assert ShardReader(runs).locate("run-99") is None  # no shard holds its bytes
    assert scans == [path.name for path in shard_files(runs)]
