"""The one line rule of JSONL files and the one bounded decoder of model JSON (issue 29,
items 1, 2 and the duplicate case ids of 11).

A JSONL line ends at ``"\\n"`` only: U+2028, U+2029 and U+0085 in model text are kept
inside their record (and written as escapes), files written before still read the same.
Deeply nested or huge-number model JSON is unparsed text, never a traceback.
"""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest

from sscbench.core.files import atomic_text_writer, atomic_write
from sscbench.core.ledger import LEDGER_EVENT, AssistantEvent, ToolCall, ToolEvent, ledger_header
from sscbench.core.view import LedgerView
from sscbench.errors import DataError
from sscbench.jsonl import (
    json_safe,
    loads_line,
    model_line,
    read_jsonl,
    read_objects,
    split_lines,
    write_utf8,
)
from sscbench.reading import MAX_DEPTH, JSONTooDeep, loads_json
from sscbench.study.folder import StudyDir
from sscbench.study.ledgers import read_ledger
from sscbench.terminal import error_text
from study_edits import rerecord_file

BREAKS = "a\u2028b\u2029c\x85d"
DEEP = '{"x": ' + "[" * 100_000 + "]" * 100_000 + "}"
DIGITS = '{"x": ' + "9" * 10_000 + "}"


def test_split_lines_breaks_at_newline_only():
    assert split_lines(f'{{"t": "{BREAKS}"}}\n{{"t": 2}}\n') == [f'{{"t": "{BREAKS}"}}', '{"t": 2}']
    assert split_lines("") == []
    assert split_lines("x\n\ny") == ["x", "", "y"]


def test_writers_escape_the_three_line_breaks_and_read_them_back():
    event = AssistantEvent(
        step=1, content=BREAKS, tool_calls=(ToolCall(id="c", name="n", arguments=BREAKS),)
    )
    line = model_line(event)
    for char in "\u2028\u2029\x85":
        assert char not in line
    assert "\\u2028" in line and "\\u2029" in line and "\\u0085" in line
    assert line.splitlines() == [line]  # one line for str.splitlines too (other tools)
    assert loads_line(LEDGER_EVENT, line) == event
    assert json_safe(json.dumps({"t": BREAKS}, ensure_ascii=False)) == json.dumps({"t": BREAKS})


@pytest.mark.parametrize("text", ["plain", "café ☕ naïve — “quoted”", "日本語 \U0001f600", "\t\r"])
def test_text_without_them_keeps_its_bytes(text):
    event = ToolEvent(step=2, tool_call_id="c", name="n", content=text)
    assert model_line(event) == event.model_dump_json()
    assert json_safe(text) is text


def test_a_file_with_raw_line_breaks_in_a_string_reads_as_one_record_each(tmp_path):
    # files written before the writers escaped them hold the raw characters
    path = tmp_path / "old.jsonl"
    path.write_text(f'{{"t": "{BREAKS}"}}\n{{"t": "x\u2028"}}\n', encoding="utf-8")
    assert read_objects(path) == [{"t": BREAKS}, {"t": "x\u2028"}]


def test_a_ledger_with_raw_line_breaks_is_read_by_measure(tmp_path):
    store = StudyDir(tmp_path)
    store.runs.mkdir(parents=True)
    events = [
        AssistantEvent(step=0, content=BREAKS),
        ToolEvent(step=1, tool_call_id="c", name="n", content="obs\u2029"),
    ]
    raw = [json.dumps(ledger_header("r1"))] + [e.model_dump_json() for e in events]
    store.ledger_path("r1").write_text("\n".join(raw) + "\n", encoding="utf-8")  # as main wrote
    assert read_ledger(store, "r1") == events
    assert store.ledger_lines("r1")[1:] == raw[1:]


def test_write_run_escapes_and_hashes_the_bytes_written(tmp_path):
    import hashlib

    store = StudyDir(tmp_path)
    store.runs.mkdir(parents=True)
    events = [AssistantEvent(step=0, content=BREAKS)]
    ledger_sha, _ = store.write_run("r1", events, [])
    data = store.ledger_path("r1").read_bytes()
    assert hashlib.sha256(data).hexdigest() == ledger_sha
    assert "\u2028".encode() not in data and len(data.splitlines()) == 2
    assert read_ledger(store, "r1") == events


def test_not_utf8_names_the_file(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"a": "\xff"}\n')
    with pytest.raises(DataError, match="not UTF-8") as caught:
        read_jsonl(path)
    assert caught.value.path == path


# ---- the bounded decoder ------------------------------------------------------------
def test_loads_json_raises_only_value_errors():
    with pytest.raises(JSONTooDeep):
        loads_json(DEEP)
    with pytest.raises(JSONTooDeep):
        loads_json("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    assert loads_json("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    with pytest.raises(ValueError, match="4300 digits"):
        loads_json(DIGITS)
    with pytest.raises(json.JSONDecodeError):
        loads_json("{")


@pytest.mark.parametrize("raw", [DEEP, DIGITS], ids=["deep", "digits"])
def test_the_ledger_view_keeps_unreadable_arguments_as_text(raw):
    events = [
        AssistantEvent(step=0, tool_calls=(ToolCall(id="c", name="n", arguments=raw),)),
        ToolEvent(step=1, tool_call_id="c", name="n", content=raw),
    ]
    view = LedgerView(events)
    (call,) = view.calls
    assert call.arguments is None and call.raw_arguments == raw
    assert call.data is None and call.arg("x") is None


# ---- duplicate case ids ---------------------------------------------------------------
def test_a_case_id_on_two_lines_is_refused(tiny_study: Path, tmp_path):
    from sscbench.study.cases import read_cases

    lines = split_lines((tiny_study / "cases.jsonl").read_text("utf-8"))
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join([lines[0], lines[1], lines[0]]) + "\n", encoding="utf-8")
    case_id = json.loads(lines[0])["case_id"]
    with pytest.raises(DataError) as caught:
        read_cases(path)
    assert caught.value.path == path
    assert caught.value.field == "line 3: case_id"
    assert caught.value.reason == f"{case_id!r} repeats line 1"


def test_verify_refuses_a_study_whose_cases_repeat_an_id(tiny_study: Path, tmp_path):
    import shutil

    from sscbench.study.verify import check_study

    copy = tmp_path / "study"
    shutil.copytree(tiny_study, copy)
    cases = copy / "cases.jsonl"
    first = split_lines(cases.read_text("utf-8"))[0]
    cases.write_text(cases.read_text("utf-8") + first + "\n", encoding="utf-8")
    rerecord_file(copy, "cases.jsonl")  # past the tamper check, to the duplicate id
    with pytest.raises(DataError, match="repeats line 1"):
        check_study(copy)


# ---- a full disk names the file ---------------------------------------------------------
def _full(*_args, **_kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def test_no_space_names_the_file_of_each_writer(tmp_path, monkeypatch):
    monkeypatch.setattr(Path, "write_bytes", _full)
    monkeypatch.setattr(Path, "write_text", _full)
    for write, target in [
        (lambda p: atomic_write(p, b"x"), tmp_path / "a.jsonl"),
        (lambda p: write_utf8(p, "x"), tmp_path / "b.html"),
    ]:
        with pytest.raises(OSError) as caught:
            write(target)
        assert str(error_text(caught.value)) == f"error: {target}: no space left on device"
    monkeypatch.undo()
    target = tmp_path / "m.jsonl"
    with pytest.raises(OSError) as caught, atomic_text_writer(target) as handle:
        handle.write("x")
        raise OSError(errno.ENOSPC, "No space left on device")
    assert caught.value.filename == str(target)
    assert not target.exists() and list(tmp_path.iterdir()) == []
