"""``sscbench measure`` at scale: nothing held per run, and ``--workers N`` writes the same
file as one process, byte for byte (rows, order and seal)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from live_objects import NewObjects
from sscbench.cli import app
from sscbench.measure import rows as rows_module
from sscbench.measure import study as measure_module
from sscbench.study.folder import IndexEntry
from sscbench.study.seal import seal_path


def _measure(root: Path, *args: str) -> tuple[bytes, bytes]:
    result = CliRunner().invoke(app, ["measure", str(root), *args])
    assert result.exit_code == 0, result.output
    out = root / "measurements.jsonl"
    return out.read_bytes(), seal_path(out).read_bytes()


def test_two_workers_write_the_same_file_as_one(tiny_study, tmp_path):
    root = tmp_path / "study"
    shutil.copytree(tiny_study, root)
    before = (root / "measurements.jsonl").read_bytes()
    one = _measure(root, "--workers", "1")
    two = _measure(root, "--workers", "2")
    assert one[0] == before and one[0].count(b"\n") > 20
    assert two == one  # the same rows, in the same order, under the same seal


def test_parallel_chunks_keep_index_order(tiny_study, tmp_path, monkeypatch):
    """Chunks smaller than the study, more of them than workers: order still holds."""
    from sscbench.measure import parallel

    root = tmp_path / "study"
    shutil.copytree(tiny_study, root)
    want = (root / "measurements.jsonl").read_bytes()
    monkeypatch.setattr(parallel, "CHUNK", 3)
    (root / "measurements.jsonl").unlink()
    measure_module.measure_study(root, workers=2)
    assert (root / "measurements.jsonl").read_bytes() == want


def test_workers_refuse_a_model_classifier(tiny_study):
    from sscbench.errors import DataError

    with pytest.raises(DataError, match="rule classifier"):
        measure_module.measure_study(tiny_study, classifier=object(), workers=2)  # type: ignore[arg-type]


def test_measure_holds_no_index_entry_per_run(tiny_study, tmp_path, monkeypatch):
    """While the last runs are measured, the index entries of the runs before them are
    gone: the index is streamed, never kept whole (the old path held every entry)."""
    root = tmp_path / "study"
    shutil.copytree(tiny_study, root)
    runs = (root / "index.jsonl").read_text().count("\n")
    seen: list[int] = []
    real = rows_module.measure_run

    calls: list[int] = []
    made = NewObjects(IndexEntry)  # entries other tests left alive are not this measure's

    def watched(*args, **kwargs):
        calls.append(1)
        if len(calls) % 5 == 0:  # every fifth faulted run: count the live entries
            seen.append(made.count())
        return real(*args, **kwargs)

    monkeypatch.setattr(rows_module, "measure_run", watched)
    measure_module.measure_study(root)
    assert runs >= 30 and len(seen) >= 3
    assert max(seen) <= 4, (max(seen), runs)  # the entry in hand (and the reader's next)


def test_a_workers_data_error_reaches_the_parent_as_the_same_error(monkeypatch):
    """A DataError raised in a worker (an unreadable run file) crosses the process
    boundary (pickled by its parts) and is raised again naming the same file and run."""
    import pickle
    from concurrent.futures import Future

    from sscbench.errors import DataError
    from sscbench.measure import parallel

    def bad(store, cases, classifier, entries):
        raise DataError("runs/r1.ledger.jsonl", "line 3", "not JSON")

    monkeypatch.setattr(parallel, "_store", object())
    with pytest.raises(Exception) as raised:
        parallel._measure_chunk(bad, [])
    carried = pickle.loads(pickle.dumps(raised.value))  # what the pool sends back
    future: Future[list[str]] = Future()
    future.set_exception(carried)
    with pytest.raises(DataError) as again:
        parallel._result(future)
    assert (str(again.value.path), again.value.field, again.value.reason) == (
        "runs/r1.ledger.jsonl",
        "line 3",
        "not JSON",
    )
