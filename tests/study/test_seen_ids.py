"""Run ids held as hashes and line offsets (``study/seen_ids.py``): exact (a hash match
is confirmed by reading the line again, so two ids of one hash are both kept and a
repeat is never missed), and a streamed index or plan keeps no string per run (counted
with tracemalloc on a generated study of 50,000 runs, never by wall clock)."""

from __future__ import annotations

import json
import tracemalloc
from itertools import islice
from pathlib import Path

import pytest

from sscbench.study import verify
from sscbench.study.folder import StudyDir
from sscbench.study.seen_ids import LineIds, line_at
from sscbench.study.verify import check_study, plan_ids

RUNS = 50_000
CASE = "tau-bench/retail:test/0:ItemOption:A1B2C3"


def _run_id(number: int, kind: str = "faulted") -> str:
    return f"tau-bench_retail_test_{number}_ItemOption_A1B2C3~0123456789ab--trusting--r0--{kind}"


def _lines_file(tmp_path: Path, ids: list[str]) -> Path:
    path = tmp_path / "ids.jsonl"
    path.write_text("".join(json.dumps({"id": i}) + "\n" for i in ids))
    return path


def _table(path: Path, fd: int, key=hash) -> LineIds:
    return LineIds(lambda offset: (json.loads(line_at(fd, offset))["id"],), key)


@pytest.mark.parametrize("key", [hash, lambda run_id: 7], ids=["hash", "one-hash-for-all"])
def test_ids_of_one_hash_are_told_apart_by_their_lines(tmp_path, key):
    ids = [_run_id(n) for n in range(300)]
    path = _lines_file(tmp_path, ids + ids[:5])
    with path.open("rb") as handle:
        table, offset, added = _table(path, handle.fileno(), key), 0, []
        for raw in handle:
            added.append(table.add(json.loads(raw)["id"], offset))
            offset += len(raw)
        assert added == [True] * 300 + [False] * 5  # every repeat found, no new id refused
        assert len(table) == 300
        assert all(run_id in table for run_id in ids)
        assert _run_id(300) not in table and _run_id(0, "clean") not in table
        assert 7 not in table  # not a string: not a run id
        # each id's place is the order it was first kept in, whatever its hash
        assert [table.place(run_id) for run_id in ids] == list(range(300))
        assert table.place(_run_id(300)) is None


def test_line_at_reads_a_line_longer_than_one_block(tmp_path):
    path = tmp_path / "long.jsonl"
    path.write_bytes(b"a\n" + b"x" * 10_000 + b"\nlast")
    with path.open("rb") as handle:
        assert line_at(handle.fileno(), 2) == b"x" * 10_000
        assert line_at(handle.fileno(), 10_003) == b"last"


def _entry(number: int) -> str:
    return json.dumps(
        {
            "run_id": _run_id(number),
            "case_id": CASE,
            "config_id": "trusting",
            "repetition": 0,
            "kind": "faulted",
            "status": "missing",
        }
    )


@pytest.fixture(scope="module")
def big_study(tmp_path_factory) -> Path:
    """A study folder of 50,000 missing runs (no run file to read), planned line for line."""
    root = tmp_path_factory.mktemp("big") / "study"
    root.mkdir()
    (root / "sscbench-study.json").write_text(json.dumps({"sscbench_study": 1}))
    (root / "cases.jsonl").write_text(json.dumps({"case_id": CASE}) + "\n")
    (root / "index.jsonl").write_text("".join(_entry(n) + "\n" for n in range(RUNS)))
    plan = (
        {
            "case_id": CASE,
            "clean_run_id": _run_id(n, "clean"),
            "config_id": "trusting",
            "faulted_run_id": _run_id(n),
            "repetition": 0,
        }
        for n in range(RUNS)
    )
    (root / "plan.jsonl").write_text("".join(json.dumps(p) + "\n" for p in plan))
    return root


def _held_per_line(lines, first: int, last: int) -> float:
    """Bytes traced memory grew a line between the ``first``-th and ``last``-th line of a
    stream still open (what it keeps per line read)."""
    tracemalloc.start()
    try:
        for _ in islice(lines, first):
            pass
        start = tracemalloc.get_traced_memory()[0]
        for _ in islice(lines, last - first):
            pass
        return (tracemalloc.get_traced_memory()[0] - start) / (last - first)
    finally:
        tracemalloc.stop()


def test_streaming_the_index_keeps_no_string_per_run(big_study):
    lines = StudyDir(big_study).read_index()
    # a set of these run ids costs ~150 bytes a run; hashes and offsets ~24-32
    assert _held_per_line(lines, 1_000, RUNS - 1) < 48
    lines.close()


def test_the_plan_test_keeps_no_string_per_run_and_answers_exactly(big_study):
    tracemalloc.start()
    try:
        with plan_ids(StudyDir(big_study)) as planned:
            held = tracemalloc.get_traced_memory()[0]
            assert held < 48 * 2 * RUNS  # two ids a unit, no string of either kept
            assert _run_id(17) in planned and _run_id(17, "clean") in planned
            assert _run_id(RUNS) not in planned and "" not in planned
    finally:
        tracemalloc.stop()


def test_checking_the_study_reads_no_file_whole(big_study, monkeypatch):
    # the marker's and cases' reads are not the subject (a bounded read_text reserves
    # its bound): only what checking the plan and the index holds is traced
    monkeypatch.setattr(verify, "check_recorded_files", lambda store: None)
    monkeypatch.setattr(verify, "_case_ids", lambda path: [CASE])
    tracemalloc.start()
    try:
        check = check_study(big_study, keep_entries=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (check.runs, check.copies, check.problems) == (RUNS, 0, {})
    # the plan and index files are ~13 and ~11 MB: read whole, or a set of their ids,
    # would hold far more than the hashes and offsets of both (~5 MB)
    assert peak < 100 * RUNS


def test_the_index_reader_tells_repeats_by_their_lines_when_every_hash_collides(
    tmp_path, monkeypatch
):
    from functools import partial

    from sscbench.study import folder

    monkeypatch.setattr(folder, "LineIds", partial(LineIds, key=lambda run_id: 7))
    conflict = json.loads(_entry(1)) | {"reward": 0.5}
    lines = [_entry(0), _entry(1), _entry(0), "", _entry(2), json.dumps(conflict), _entry(3)]
    (tmp_path / "index.jsonl").write_text("\n".join(lines) + "\n")
    repeated: list = []
    read = [e.run_id for e in StudyDir(tmp_path).read_index(repeated)]
    assert read == [_run_id(0), _run_id(1), _run_id(2), _run_id(3)]
    assert [(e.run_id, e.reward) for e in repeated] == [(_run_id(0), None), (_run_id(1), 0.5)]
