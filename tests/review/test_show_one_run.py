"""``sscbench show`` finds one run without reading the whole study: the index read once
with only the run's lines validated, one shard scanned; and a frame that is not the one
the index records is refused (or shown after a warning with ``--unchecked``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sscbench.cli import app
from sscbench.core.ledger import SystemEvent, UserEvent
from sscbench.study import shard_reader
from sscbench.study.folder import IndexEntry, StudyDir
from sscbench.study.shard_writer import ShardWriter
from sscbench.study.shards import BLOCK_MAGIC, scan


def _show(*args: object):
    return CliRunner().invoke(app, ["show", *map(str, args)])


@pytest.fixture
def counted(monkeypatch) -> dict[str, int]:
    """How many index lines are validated and shards scanned."""
    counts = {"validated": 0, "scanned": 0}
    validate = IndexEntry.model_validate_json

    def validated(data: str | bytes, *args: object, **kwargs: object) -> IndexEntry:
        counts["validated"] += 1
        return validate(data, *args, **kwargs)  # type: ignore[arg-type]

    def scanned(data: bytes, shard: Path):
        counts["scanned"] += 1
        return scan(data, shard)

    monkeypatch.setattr(IndexEntry, "model_validate_json", validated)
    monkeypatch.setattr(shard_reader, "scan", scanned)
    return counts


def test_show_validates_only_the_lines_of_its_run(tiny_study, counted):
    lines = (tiny_study / "index.jsonl").read_text("utf-8").splitlines()
    run_id = json.loads(lines[-1])["run_id"]
    assert len(lines) > 20
    result = _show(tiny_study, run_id)
    assert result.exit_code == 0, result.output
    assert counted["validated"] == 1  # the index read once, one line validated


def _study(root: Path) -> StudyDir:
    """A study in shards of three runs (each a two-event ledger) and its index."""
    root.mkdir(parents=True)
    marker = {"sscbench_study": 2, "store": "shards"}
    (root / "sscbench-study.json").write_text(json.dumps(marker), "utf-8")
    store = StudyDir(root)
    store._shard_writer = ShardWriter(store.runs, shard_runs=3)
    return store


def _write(store: StudyDir, run_id: str, said: str) -> IndexEntry:
    events = [SystemEvent(step=0, content="policy"), UserEvent(step=1, content=said)]
    ledger, evaluator = store.write_run(run_id, events, [])
    return IndexEntry(
        run_id=run_id,
        case_id="c",
        config_id="trusting",
        repetition=0,
        kind="faulted",
        status="completed",
        ledger_sha256=ledger,
        evaluator_sha256=evaluator,
    )


def test_show_scans_only_the_shard_holding_the_run(tmp_path, counted):
    store = _study(tmp_path / "study")
    entries = [_write(store, f"run-{n}", f"said {n}") for n in range(10)]
    store.rewrite_index(entries)
    counted["scanned"] = 0  # the writer's own reads, as it sealed each shard
    result = _show(store.root, "run-4")
    assert result.exit_code == 0, result.output
    assert "said 4" in result.output and counted["scanned"] == 1  # of four shards


def test_a_remade_run_shows_its_last_frame_and_a_hidden_one_is_refused(tmp_path):
    store = _study(tmp_path / "study")
    entries = {f"run-{n}": _write(store, f"run-{n}", f"first {n}") for n in range(6)}
    entries["run-1"] = _write(store, "run-1", "again 1")  # made again: shard 2
    for n in (6, 7):
        entries[f"run-{n}"] = _write(store, f"run-{n}", f"first {n}")  # shard 2 sealed
    store.rewrite_index(entries.values())
    result = _show(store.root, "run-1")
    assert result.exit_code == 0, result.output
    assert "again 1" in result.output and "first 1" not in result.output
    shard = store.runs / "shard-000002.shard"
    data = bytearray(shard.read_bytes())
    data[data.index(BLOCK_MAGIC)] ^= 0xFF  # the shard holding the later frame, damaged
    shard.write_bytes(bytes(data))
    refused = _show(store.root, "run-1")
    assert refused.exit_code == 2 and refused.output.startswith("error:"), refused.output
    assert "run-1" in refused.output and "shard-000002.shard" in refused.output
    assert "the index recorded" in refused.output  # the older frame is not the record
    warned = _show(store.root, "run-1", "--unchecked")
    assert warned.exit_code == 0, warned.output
    assert warned.stderr.startswith("warning:") and "shard-000002.shard" in warned.stderr
    assert "first 1" in warned.stdout  # the frame found, shown as unchecked


def test_two_different_index_lines_are_refused(tmp_path):
    store = _study(tmp_path / "study")
    entries = [_write(store, f"run-{n}", f"said {n}") for n in range(2)]
    other = entries[0].model_copy(update={"reward": 1.0})
    store.rewrite_index([*entries, other])
    result = _show(store.root, "run-0")
    assert result.exit_code == 2 and "two different index lines" in result.output
    assert _show(store.root, "run-1").exit_code == 0
