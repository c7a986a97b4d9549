"""The shard reader's catalogue (study/shard_catalogue.py): no object per run, and run
ids that share a hash still read their own (last) frame."""

from __future__ import annotations

import hashlib
import tracemalloc
from pathlib import Path

from sscbench.study import shard_reader
from sscbench.study.shard_catalogue import Catalogue
from sscbench.study.shard_reader import ShardReader
from sscbench.study.shard_writer import ShardWriter


def _text(n: int, again: int = 0) -> tuple[bytes, bytes]:
    ledger = f'{{"run": {n}, "again": {again}, "said": "{"words " * (n % 5 + 1)}"}}\n'
    log = f'{{"type": "run_end", "noise": "{hashlib.sha256(bytes(n)).hexdigest()}"}}\n'
    return ledger.encode(), log.encode()


def _fill(runs: Path, count: int) -> None:
    writer = ShardWriter(runs, shard_runs=7)
    for n in range(count):
        writer.append(f"run-{n}", *_text(n))
    for n in range(0, count, 4):  # run again: the last frame is the one read
        writer.append(f"run-{n}", *_text(n, again=1))


def test_colliding_hashes_read_each_run_its_last_frame(tmp_path, monkeypatch):
    runs = tmp_path / "runs"
    _fill(runs, 30)
    monkeypatch.setattr(shard_reader, "hash", lambda run_id: 42, raising=False)  # every id collides
    reader = ShardReader(runs)
    for n in range(30):
        ledger, log, frame = reader.read(f"run-{n}")
        assert (ledger, log) == _text(n, again=int(n % 4 == 0))
        assert frame.run_id == f"run-{n}"
    assert reader.locate("run-30") is None and reader.locate("run-") is None


def test_the_catalogue_keeps_16_bytes_a_frame(tmp_path):
    runs = tmp_path / "runs"
    writer = ShardWriter(runs, shard_runs=5000)
    ids = [f"case-{n:05d}-a-realistic-length-id--config--r{n % 30}--faulted" for n in range(3000)]
    for n, run_id in enumerate(ids):
        writer.append(run_id, *_text(n))
    reader = ShardReader(runs)
    reader.build()  # first build: imports and caches settle
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        reader.build()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert reader.read(ids[-1])[0] == _text(2999)[0]
    assert isinstance(reader._where, Catalogue) and len(reader._where.keys) == 3000
    assert held < 24 * 3000, held  # a dict of run ids held ~150 bytes a run
