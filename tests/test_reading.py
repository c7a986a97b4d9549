"""The one reading rule and the one CSV writer (issue 42, items 1 and 3): every file is
read through :mod:`sscbench.reading` (the source is walked to prove it, as the import
contract proves the layers), bounded in depth, size and integer length and checked whole
as UTF-8; every CSV is written through ``write_csv_rows``, whose cells cannot run as a
spreadsheet formula."""

from __future__ import annotations

import ast
import csv
import io
import json
import os
from pathlib import Path

import pytest

import sscbench
from sscbench.errors import DataError
from sscbench.reading import (
    MAX_BYTES,
    MAX_DEPTH,
    JSONTooDeep,
    csv_cell,
    loads_json,
    loads_toml,
    read_at_most,
    read_csv,
    read_json,
    read_text,
    read_toml,
    toml_depth,
    write_csv_rows,
)

SRC = Path(sscbench.__file__).parent
# the scripted test server imports nothing of sscbench (its own contract)
READERS_EXEMPT = ("reading.py", "testing/")
FORBIDDEN = {
    "json": {"load", "loads"},
    "tomllib": {"load", "loads"},
    "csv": {"reader", "DictReader", "writer", "DictWriter"},
}


def _bypasses(tree: ast.AST) -> list[str]:
    """``json.loads``-style uses (called or passed on) and ``from json import loads``."""
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.attr in FORBIDDEN.get(node.value.id, ())
        ):
            found.append(f"line {node.lineno}: {node.value.id}.{node.attr}")
        if isinstance(node, ast.ImportFrom) and node.module in FORBIDDEN:
            names = {a.name for a in node.names} & FORBIDDEN[node.module]
            found += [f"line {node.lineno}: from {node.module} import {n}" for n in names]
    return found


def test_no_file_is_read_or_csv_written_outside_the_reading_module():
    bypass = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith(READERS_EXEMPT):
            continue
        found = _bypasses(ast.parse(path.read_text("utf-8")))
        if found:
            bypass[rel] = found
    assert not bypass, f"read or write through sscbench.reading, not directly: {bypass}"


def test_the_walk_finds_each_way_around_it():
    """The walk is not vacuous: each forbidden form is caught."""
    for source in (
        "import json\njson.loads(x)",
        "import json\nf = json.load",
        "import tomllib\ntomllib.loads(t)",
        "import csv\ncsv.writer(h)",
        "import csv\ncsv.DictReader(h)",
        "from json import loads",
    ):
        assert _bypasses(ast.parse(source)), source
    assert not _bypasses(ast.parse("import json\njson.dumps(x)"))


def test_json_is_bounded_in_depth_and_integer_length():
    assert loads_json("[" * MAX_DEPTH + "]" * MAX_DEPTH)
    with pytest.raises(JSONTooDeep):
        loads_json("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    with pytest.raises(JSONTooDeep):
        loads_json("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError, match="digits"):
        loads_json("9" * 5_000)


def test_files_are_utf8_whole_bounded_in_size_and_named(tmp_path):
    late = tmp_path / "late.json"
    late.write_bytes(b"[" + b" " * 9_000 + b"\xff]")
    with pytest.raises(DataError, match=r"not UTF-8 text \(byte 9001\)") as caught:
        read_json(late)
    assert caught.value.path == late
    big = tmp_path / "big.txt"
    big.write_text("x" * 101, "utf-8")
    with pytest.raises(DataError, match="larger than 100 bytes"):
        read_text(big, max_bytes=100)
    with pytest.raises(DataError, match="file not found"):
        read_json(tmp_path / "none.json")
    digits = tmp_path / "digits.json"
    digits.write_text('{"a": ' + "1" * 5_000 + "}", "utf-8")
    with pytest.raises(DataError, match="4,300 digits"):
        read_json(digits)


class _Requests(io.RawIOBase):
    """A file's handle that records how many bytes each read asks for."""

    def __init__(self, handle):
        self.handle, self.asked = handle, []

    def fileno(self):
        return self.handle.fileno()

    def read(self, size=-1):
        self.asked.append(size)
        return self.handle.read(size)


def test_a_file_is_read_in_requests_the_size_of_what_it_holds(tmp_path):
    # a small file read against the 1 GiB limit asked for a GiB at once (address space
    # a ``ulimit -v`` refuses); now the first request is its size and one byte more
    small = tmp_path / "config.json"
    small.write_text('{"config": {}}', "utf-8")
    with small.open("rb") as raw:
        reads = _Requests(raw)
        assert read_at_most(reads, MAX_BYTES + 1) == small.read_bytes()
    assert max(reads.asked) == small.stat().st_size + 1
    assert read_json(small) == {"config": {}}
    # a pipe says it holds nothing: read a chunk at a time up to the limit, whole
    inbound, outbound = os.pipe()
    os.write(outbound, b"y" * 60_000)  # within the pipe's buffer
    os.close(outbound)
    with os.fdopen(inbound, "rb") as pipe:
        reads = _Requests(pipe)
        assert read_at_most(reads, 100_000) == b"y" * 60_000
    assert max(reads.asked) <= 1 << 20
    with small.open("rb") as raw:  # the limit still cuts
        assert read_at_most(raw, 5) == small.read_bytes()[:5]


def test_toml_is_bounded_before_tomllib_recurses(tmp_path):
    for text in (
        "x = " + "[" * 500 + "]" * 500,
        "x = " + "{a = " * 500 + "1" + "}" * 500,
        "x = " + "[" * 50_000 + "]" * 50_000,
    ):
        with pytest.raises(DataError, match="levels deep"):
            loads_toml("policy.toml", text)
    dotted = "x." * 300 + "y = 1"  # dotted keys nest without a bracket
    with pytest.raises(DataError, match="levels deep"):
        loads_toml("policy.toml", dotted)
    with pytest.raises(DataError, match="4,300 digits"):
        loads_toml("policy.toml", "x = " + "9" * 5_000)
    brackets_in_text = 'a = "' + "[" * 1_000 + '"\n# ' + "{" * 1_000 + "\nb = [[1], [2]]\n"
    assert toml_depth(brackets_in_text) == 2
    assert loads_toml("ok.toml", brackets_in_text)["b"] == [[1], [2]]
    path = tmp_path / "ok.toml"
    path.write_text("[a]\nb = 1\n", "utf-8")
    assert read_toml(path) == {"a": {"b": 1}}


@pytest.mark.parametrize(
    ("cell", "written"),
    [
        ('=HYPERLINK("http://x")', '\'=HYPERLINK("http://x")'),
        ("+1+cmd", "'+1+cmd"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        ("-3", "-3"),
        ("-0.5", "-0.5"),
        ("+1e5", "+1e5"),
        ("plain", "plain"),
        ("", ""),
        (-3, -3),
        (-0.5, -0.5),
        (None, None),
        (True, True),
    ],
)
def test_a_cell_that_would_run_as_a_formula_is_escaped(cell, written):
    assert csv_cell(cell) == written


def test_the_writer_keeps_csv_bytes_and_escapes_cells(tmp_path):
    rows = [{"a": 1, "b": "x,y", "c": "extra"}, {"a": -0.5, "b": "=1+1"}]
    ours = io.StringIO()
    write_csv_rows(ours, ["a", "b"], rows)
    theirs = io.StringIO()
    writer = csv.DictWriter(theirs, fieldnames=["a", "b"], extrasaction="ignore")
    writer.writeheader()
    writer.writerows([rows[0], {"a": -0.5, "b": "'=1+1"}])
    assert ours.getvalue() == theirs.getvalue()
    path = tmp_path / "t.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        write_csv_rows(handle, ["a", "b"], [[1, "two\nlines"]], lineterminator="\n")
    assert read_csv(path) == [{"a": "1", "b": "two\nlines"}]
    assert json.dumps(read_csv(path))


@pytest.mark.parametrize(
    ("name", "safe"),
    [
        ("r1", True),
        ("cl-we02-eq1g6c-asis", True),
        ("case_~0a1b2c--agent--r0--faulted", True),
        ("a.b", True),
        (".", False),
        ("..", False),
        (".hidden", False),
        ("../evil", False),
        ("a/b", False),
        ("a\\b", False),
        ("", False),
        ("x" * 201, False),
        ("x" * 200, True),
        ("név", False),
        ("a\x00b", False),
        (7, False),
    ],
)
def test_a_name_that_becomes_a_path_is_one_safe_component(name, safe, tmp_path):
    """The one rule for names that become file names (run ids, reviewer names, …)."""
    from sscbench.names import check_name, name_problem

    assert (name_problem(name) is None) == safe
    if safe:
        assert check_name(name, tmp_path, "f") == name
        assert (tmp_path / name).parent == tmp_path
    else:
        with pytest.raises(DataError, match="field f"):
            check_name(name, tmp_path, "f")


# ---- streaming: index_json_array / read_json_span ----------------------------------------


def _object(simulations: str, head: str = '"info": {"a": [1, 2]}, "n": 3') -> str:
    return "{" + head + ', "simulations": ' + simulations + ', "tail": {"x": "]}\\""}}'


@pytest.mark.parametrize("chunk", [1, 5, 64, 1 << 18])
def test_an_indexed_array_reads_back_exactly_what_json_reads(tmp_path, monkeypatch, chunk):
    """Spans and ids equal the standard decoder's items at every chunk size (chunks
    that cut strings, escapes, numbers and multi-byte characters)."""
    import sscbench.reading as reading

    items = [
        {"id": "a", "messages": ["ü ] } [ {", 'q"\\'], "n": 12345678901234},
        {"messages": [], "id": 7},
        {"id": "", "deep": [[[[["é"]]]]]},
        {"id": "z\u00e9\\u"},
    ]
    text = _object(json.dumps(items, ensure_ascii=False))
    path = tmp_path / "f.json"
    path.write_text(text, "utf-8")
    monkeypatch.setattr(reading, "_CHUNK", chunk)
    index = reading.index_json_array(path, "simulations")
    assert index.ids == ["a", "7", None, "z\u00e9\\u"]
    spans = zip(index.starts, index.ends, strict=True)
    assert [reading.read_json_span(path, a, b) for a, b in spans] == items
    assert reading.read_json_span(path, *index.members["info"]) == {"a": [1, 2]}
    assert set(index.members) == {"info", "simulations", "tail"}


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (_object("[" + '{"id": 1}, ' * 3 + "[" * 5_000 + "]" * 5_000 + "]"), "levels"),
        (_object('[{"id": "a", "x": ' + "9" * 5_000 + "}]"), "4,300 digits"),
        (_object('[{"id": "a"} {"id": "b"}]'), "between the items"),
        (_object('[{"id": "a"},]'), "not JSON"),
        (_object('[{"id": "a"}]') + " trailing", "after the object"),
        ('[{"id": "a"}]', "a JSON object"),
        ('{"simulations": [], "simulations": []}', "appears twice"),
        ('{"simulations": [{"id": "a"}', "not JSON"),
    ],
    ids=["deep", "digits", "comma", "extra-comma", "trailing", "list", "twice", "cut"],
)
def test_a_hostile_indexed_file_is_one_data_error(tmp_path, body, why):
    from sscbench.reading import index_json_array

    path = tmp_path / "f.json"
    path.write_text(body, "utf-8")
    with pytest.raises(DataError, match=why) as caught:
        index_json_array(path, "simulations")
    assert caught.value.path == path


def test_an_indexed_file_is_checked_whole_as_utf8(tmp_path):
    """A bad byte deep inside an item nobody will read is still refused, with its offset."""
    from sscbench.reading import index_json_array

    path = tmp_path / "f.json"
    body = _object('[{"id": "a", "pad": "' + "x" * 600_000 + '"}, {"id": "b"}]').encode()
    at = body.index(b'"b"')
    path.write_bytes(body[:at] + b"\xff" + body[at + 1 :])
    with pytest.raises(DataError, match=f"not UTF-8 text \\(byte {at}\\)"):
        index_json_array(path, "simulations")


def test_a_span_beyond_the_file_is_refused(tmp_path):
    from sscbench.reading import read_json_span

    path = tmp_path / "f.json"
    path.write_text('{"a": 1}', "utf-8")
    with pytest.raises(DataError, match="shorter than its index"):
        read_json_span(path, 2, 50, "x")
