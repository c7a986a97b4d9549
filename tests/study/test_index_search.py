"""Finding one run in the index (study/index_search.py): only the lines that could name
it are validated, with what ``read_index`` says of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sscbench.errors import DataError
from sscbench.study.folder import IndexEntry
from sscbench.study.index_search import index_lines, search_index


def _line(run_id: str, sha: str = "a" * 64, **extra: object) -> str:
    entry = IndexEntry(
        run_id=run_id,
        case_id="c",
        config_id="trusting",
        repetition=0,
        kind="faulted",
        status="completed",
        ledger_sha256=sha,
        **extra,
    )
    return entry.model_dump_json() + "\n"


def _index(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "index.jsonl"
    path.write_text("".join(lines), "utf-8")
    return path


@pytest.fixture
def validations(monkeypatch) -> list[str]:
    """Each index line validated as an IndexEntry."""
    seen: list[str] = []
    original = IndexEntry.model_validate_json

    def counted(data: str | bytes, *args: object, **kwargs: object) -> IndexEntry:
        seen.append(str(data))
        return original(data, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(IndexEntry, "model_validate_json", counted)
    return seen


def test_only_the_lines_of_the_run_are_validated(tmp_path, validations):
    lines = [_line(f"run-{n}", clean_run_id="run-3" if n > 90 else None) for n in range(100)]
    index = _index(tmp_path, *lines)
    found = search_index(index, "run-3")  # also in the clean_run_id of runs 91 to 99
    assert found.run_id == "run-3" and [e.run_id for e in found.entries] == ["run-3"]
    assert len(validations) == 1


def test_an_id_that_prefixes_others_names_itself_and_a_prefix_must_be_unique(tmp_path):
    index = _index(tmp_path, _line("run-1"), _line("run-10"), _line("run-11"), _line("x-7"))
    assert search_index(index, "run-1").run_id == "run-1"
    assert search_index(index, "run-10").run_id == "run-10"
    found = search_index(index, "run")
    assert found.run_id is None and list(found.named) == ["run-1", "run-10", "run-11"]
    assert search_index(index, "x").run_id == "x-7"  # a unique prefix
    assert search_index(index, "run-2").named == {}  # nothing
    assert search_index(index, "").run_id is None  # every run


def test_repeated_lines_are_a_copy_or_a_conflict(tmp_path):
    copies = search_index(_index(tmp_path, _line("r-1"), _line("r-2"), _line("r-1")), "r-1")
    assert len(copies.entries) == 2 and not copies.conflict
    index = _index(tmp_path, _line("r-1"), _line("r-1", sha="b" * 64))
    assert search_index(index, "r-1").conflict


def test_an_escaped_run_id_a_cut_line_and_blank_lines(tmp_path):
    escaped = _line("run-7").replace('"run-7"', '"run\\u002d7"')
    cut = _line("run-8").rstrip("\n")  # a kill cut the last line: no run
    index = _index(tmp_path, _line("run-5"), "\n", escaped, cut)
    found = search_index(index, "run-7")
    assert found.run_id == "run-7" and found.entries[0].run_id == "run-7"
    assert search_index(index, "run-8").run_id is None
    assert index_lines(index) == 3 and index_lines(index, before=1) == 0


def test_a_broken_line_that_could_name_the_run_is_named(tmp_path):
    index = _index(tmp_path, _line("run-1"), '{"run_id":"run-2", "oops"\n', _line("run-3"))
    assert search_index(index, "run-3").run_id == "run-3"  # another run's line: not read
    with pytest.raises(DataError) as info:
        search_index(index, "run-2")
    assert info.value.path == index and info.value.field == "line 2"
    latin = _line("run-9").replace("run-9", "run-\xe9").encode("latin-1")  # not UTF-8
    (tmp_path / "bytes.jsonl").write_bytes(b"\n" + latin)
    with pytest.raises(DataError, match="not UTF-8") as info:
        search_index(tmp_path / "bytes.jsonl", "run-")
    assert info.value.field == "line 2"


def test_a_missing_index_names_nothing(tmp_path):
    assert search_index(tmp_path / "index.jsonl", "run-1").named == {}
    assert json.loads(_line("r")).get("run_id") == "r"


@pytest.mark.parametrize("chunk", [7, 100, 1000])
def test_lines_across_chunks_and_longer_than_one_are_read_whole(tmp_path, monkeypatch, chunk):
    from sscbench.study import index_search

    monkeypatch.setattr(index_search, "CHUNK", chunk)
    lines = [_line(f"run-{n}", reason="x" * (n * 37 % 300)) for n in range(41)]
    index = _index(tmp_path, *lines, lines[40].rstrip("\n"))  # and a copy, cut by a kill
    for n in (0, 13, 39, 40):
        found = search_index(index, f"run-{n}")
        assert [entry.model_dump_json() + "\n" for entry in found.entries] == [lines[n]]
    named = search_index(index, "run-3").named
    assert list(named) == ["run-3", *(f"run-{n}" for n in range(30, 40))]
    assert index_lines(index) == 41 and index_lines(index, before=len(lines[0])) == 1
