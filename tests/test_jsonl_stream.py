"""``jsonl.iter_jsonl``: the streamed reader reads and refuses exactly as ``read_jsonl``."""

from __future__ import annotations

import pytest

from sscbench.errors import DataError
from sscbench.jsonl import iter_jsonl, read_jsonl


@pytest.mark.parametrize(
    "data",
    [
        b'{"a": 1}\n\n{"b": "\\u2028 x"}\r\n{"c": [1]}',  # blank line, CRLF, no last newline
        b'{"a": "\xe2\x80\xa8"}\n',  # a raw U+2028 inside a string is not a line break
    ],
)
def test_streamed_rows_equal_the_whole_file_reader(tmp_path, data):
    path = tmp_path / "f.jsonl"
    path.write_bytes(data)
    assert list(iter_jsonl(path)) == read_jsonl(path)


@pytest.mark.parametrize(
    ("data", "where", "reason"),
    [
        (b'{"a": 1}\n{"a": \n', "line 2", "Expecting value"),
        (b'{"a": 1}\n{"a": "\xff"}\n', None, "not UTF-8 text (byte 16)"),
    ],
)
def test_streamed_errors_name_the_line_or_byte(tmp_path, data, where, reason):
    path = tmp_path / "f.jsonl"
    path.write_bytes(data)
    with pytest.raises(DataError) as streamed:
        list(iter_jsonl(path))
    assert streamed.value.field == where and reason in streamed.value.reason
    with pytest.raises(DataError) as whole:
        read_jsonl(path)
    assert whole.value.reason == streamed.value.reason


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(DataError, match="file not found"):
        list(iter_jsonl(tmp_path / "absent.jsonl"))
