"""The one reading rule of every file the project reads, and its one CSV writer.

**Reading.** Every JSON, JSONL and TOML text goes through this module (a test walks the
source: no ``json.load``, ``json.loads``, ``tomllib.load(s)`` or ``csv.reader`` call
anywhere else). Each reader is bounded — a file over :data:`MAX_BYTES`, nesting over
:data:`MAX_DEPTH` levels, an integer over Python's 4,300 digits — and checks the
whole file as UTF-8, so hostile input ends as one :class:`DataError`
(``error: FILE, field F: reason``, exit 2), never a traceback.

**Writing CSV.** `write_csv_rows` is the one CSV writer: a text cell that a spreadsheet
would run as a formula (it starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
return, OWASP's list) gets a leading ``'``; a plain number such as ``-3`` or ``-0.5``
stays a number (:func:`csv_cell`).
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import os
import re
import sys
import tomllib
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, BinaryIO

from sscbench.errors import DataError
from sscbench.json_types import JsonValue

MAX_DEPTH = 200
"""Deepest nesting of lists and objects (tables and arrays in TOML) any reader accepts."""

MAX_BYTES = 1 << 30
"""Largest file read (1 GiB): far above any study file, below what exhausts memory."""
_READ_CHUNK = 1 << 20
"""Bytes asked for at a time once a file has given what its size said (1 MiB)."""


class JSONTooDeep(ValueError):
    """JSON nested deeper than :data:`MAX_DEPTH` levels (or than the parser can recurse)."""

    def __init__(self, max_depth: int):
        self.max_depth = max_depth
        super().__init__(f"nested more than {max_depth} levels deep")


def nesting_depth(value: object, stop_after: int | None = None) -> int:
    """How many lists/objects deep ``value`` goes (counted without recursion); with
    ``stop_after``, the count stops at the first container deeper than that."""
    if not isinstance(value, dict | list):
        return 0
    deepest = 0
    stack: list[tuple[dict[str, object] | list[object], int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if stop_after is not None and deepest > stop_after:
            return deepest
        children: Iterable[object] = item.values() if isinstance(item, dict) else item
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))
    return deepest


def loads_json(text: str | bytes, max_depth: int | None = MAX_DEPTH) -> Any:
    """JSON decoded within bounds: the one JSON decoder of the project (files, lines,
    call arguments, observations, answers, endpoint bodies).

    Raises only ``ValueError``: :class:`json.JSONDecodeError` for bad JSON,
    :class:`JSONTooDeep` beyond ``max_depth`` levels or beyond what the parser can
    recurse (where ``json.loads`` alone raises ``RecursionError``), and a plain
    ``ValueError`` for an integer longer than Python reads (4,300 digits) or bytes that
    are not UTF-8. ``max_depth=None`` (tool observations, endpoint bodies: no level
    limit of their own) skips the walk that counts the levels."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise JSONTooDeep(max_depth or sys.getrecursionlimit()) from None
    if max_depth is None or not isinstance(value, dict | list):
        return value
    if isinstance(text, str) and text.count("[") + text.count("{") <= max_depth:
        return value  # fewer brackets than levels: it cannot be too deep (no walk)
    if nesting_depth(value, stop_after=max_depth) > max_depth:
        raise JSONTooDeep(max_depth)
    return value


def json_reason(exc: ValueError) -> str:
    """The one-line reason of a :func:`loads_json` failure, for an ``error:`` line."""
    if isinstance(exc, json.JSONDecodeError):
        return f"not JSON: {exc.msg}"
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if "integer string conversion" in text:
        return "an integer longer than 4,300 digits"
    return text


def read_at_most(handle: BinaryIO, limit: int) -> bytes:
    """Up to ``limit`` bytes of an open file, to its end. A regular file is read in one
    request the size of what it holds (and one byte more: what it grew by since is read
    after, a chunk at a time), never in one of ``limit`` bytes: Python sets aside the
    whole request before reading, and a study's small ``config.json`` read against the
    1 GiB limit asked for a GiB of address space (refused under ``ulimit -v``)."""
    size = os.fstat(handle.fileno()).st_size
    chunks: list[bytes] = []
    want = size + 1 if size else _READ_CHUNK  # a pipe or /proc file says 0
    while limit > 0:
        chunk = handle.read(min(limit, want))
        if not chunk:
            break
        chunks.append(chunk)
        limit -= len(chunk)
        if want == size + 1 and len(chunk) <= size:
            break  # the regular file gave no more than it holds: its end
        want = _READ_CHUNK
    return b"".join(chunks)


def read_text(path: str | Path, max_bytes: int = MAX_BYTES) -> str:
    """A study or input file's text, checked whole as UTF-8; an unreadable file, one over
    ``max_bytes``, or bytes that are not UTF-8 raise :class:`DataError` naming the file
    (and the byte offset)."""
    path = Path(path)
    try:
        with path.open("rb") as handle:
            data = read_at_most(handle, max_bytes + 1)
    except FileNotFoundError as exc:
        raise DataError(path, None, "cannot read: file not found") from exc
    except OSError as exc:
        raise DataError(path, None, f"cannot read: {exc.strerror or exc}") from exc
    if len(data) > max_bytes:
        raise DataError(path, None, f"larger than {max_bytes:,} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(path, None, f"not UTF-8 text (byte {exc.start})") from exc


def loads_file_json(path: str | Path, text: str, field: str | None = None) -> Any:
    """``text`` (read from ``path``) decoded by :func:`loads_json`; a failure is a
    :class:`DataError` naming the file and ``field`` (e.g. ``line 3``)."""
    try:
        return loads_json(text)
    except ValueError as exc:
        raise DataError(path, field, json_reason(exc)) from exc


def read_json(path: str | Path) -> Any:
    """One JSON document from ``path``, read by the reading rule (bounded, UTF-8 whole);
    a failure raises :class:`DataError` naming the file."""
    return loads_file_json(path, read_text(path))


_TOML_TOKENS = re.compile(
    r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|#[^\n]*|[\[\]{}]'
)


def toml_depth(text: str, stop_after: int = MAX_DEPTH) -> int:
    """How deep arrays and inline tables nest in TOML ``text`` (strings and comments
    skipped; counting stops past ``stop_after``): ``tomllib`` recurses once per level
    and has no limit of its own, so the depth is checked before it parses."""
    if text.count("[") + text.count("{") <= stop_after:
        return 0
    depth = deepest = 0
    for match in _TOML_TOKENS.finditer(text):
        token = match.group(0)
        if token in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if deepest > stop_after:
                break
        elif token in "]}":
            depth = max(depth - 1, 0)
    return deepest


def loads_toml(path: str | Path, text: str) -> dict[str, Any]:
    """TOML ``text`` (read from ``path``) parsed within the reading rule's bounds; bad
    TOML, nesting over :data:`MAX_DEPTH` or an over-long integer is a :class:`DataError`
    naming the file."""
    if toml_depth(text) > MAX_DEPTH:
        raise DataError(path, None, f"not valid TOML: nested more than {MAX_DEPTH} levels deep")
    try:
        value = tomllib.loads(text)
    except RecursionError:
        raise DataError(path, None, "not valid TOML: nested too deep") from None
    except ValueError as exc:  # TOMLDecodeError, or an integer over 4,300 digits
        raise DataError(path, None, f"not valid TOML: {json_reason(exc)}") from exc
    if nesting_depth(value, stop_after=MAX_DEPTH) > MAX_DEPTH:  # dotted keys nest too
        raise DataError(path, None, f"not valid TOML: nested more than {MAX_DEPTH} levels deep")
    return value


def read_toml(path: str | Path) -> dict[str, Any]:
    """One TOML file read by the reading rule (bounded, UTF-8 whole, errors naming it)."""
    return loads_toml(path, read_text(path))


_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """One CSV cell safe to open in a spreadsheet: text starting with ``=``, ``+``, ``-``,
    ``@``, a tab or a carriage return gets a leading ``'`` (OWASP's rule against formula
    injection) unless it is a plain number (``-3``, ``-0.5``, ``+1e5``). Numbers,
    booleans and ``None`` are written as they are."""
    if value is None or isinstance(value, int | float):
        return value
    text = value if isinstance(value, str) else str(value)
    if text.startswith(_FORMULA_START) and not _PLAIN_NUMBER.fullmatch(text):
        return "'" + text
    return value


def write_csv_rows(
    handle: IO[str],
    columns: Sequence[str],
    rows: Iterable[Sequence[object] | Mapping[str, object]],
    *,
    lineterminator: str = "\r\n",
) -> None:
    """The project's one CSV writer: ``columns`` as the header, then each row (a sequence
    in column order, or a mapping read by column name: missing keys empty, others
    ignored), every cell through :func:`csv_cell`."""
    writer = csv.writer(handle, lineterminator=lineterminator)
    writer.writerow([csv_cell(c) for c in columns])
    for row in rows:
        if isinstance(row, Mapping):
            row = [row.get(column, "") for column in columns]
        writer.writerow([csv_cell(cell) for cell in row])


def read_csv(path: str | Path) -> list[dict[str, str]]:
    """A CSV file with a header row as one dict per row, read by the reading rule."""
    return list(csv.DictReader(io.StringIO(read_text(path), newline="")))


# ---- streaming: one array of a large JSON object, indexed by its items' ids -------------

_CHUNK = 1 << 18
_SPACE = re.compile(r"[ \t\r\n]*")
_DECODER = json.JSONDecoder()


ItemCheck = Callable[[JsonValue, int], object]
"""A check of one array item and its position (it raises to refuse the item)."""


class ArrayIndex:
    """Where the items of one array member of a JSON object lie in its file (byte spans),
    with each item's ``"id"`` (as text, None when it has none), and the spans of the
    object's other container members (e.g. ``info``). Built by :func:`index_json_array`."""

    def __init__(self, path: Path, size: int):
        self.path = path
        self.size = size
        self.members: dict[str, tuple[int, int]] = {}
        self.ids: list[str | None] = []
        self.starts = array("q")  # compact: 8 bytes an offset
        self.ends = array("q")

    def __len__(self) -> int:
        return len(self.ids)


class _Stream:
    """A JSON text read forward in chunks: one value at a time decoded (by the standard
    decoder, bounded as :func:`loads_json` bounds a file), its byte span counted."""

    def __init__(self, handle: IO[bytes], path: Path):
        self.handle, self.path = handle, path
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.buf, self.i, self.byte, self.read = "", 0, 0, 0
        self.eof = False

    def fail(self, reason: str) -> DataError:
        return DataError(self.path, f"byte {self.byte}", reason)

    def more(self, size: int = _CHUNK) -> bool:
        """Read on (False at the end of the file); the text before the cursor is dropped."""
        if self.eof:
            return False
        data = self.handle.read(size)
        try:
            text = self.decoder.decode(data, final=not data)
        except UnicodeDecodeError as exc:
            raise DataError(
                self.path, None, f"not UTF-8 text (byte {self.read + exc.start})"
            ) from exc
        self.read += len(data)
        self.eof = not data
        self.buf, self.i = self.buf[self.i :] + text, 0
        return True

    def advance(self, to: int) -> None:
        """Move the cursor to ``to``, counting the bytes it passes."""
        passed = self.buf[self.i : to]
        self.byte += len(passed) if passed.isascii() else len(passed.encode("utf-8"))
        self.i = to

    def next_char(self) -> str:
        """The next character that is not white space ('' at the end), not consumed."""
        while True:
            self.advance(_SPACE.match(self.buf, self.i).end())  # type: ignore[union-attr]
            if self.i < len(self.buf):
                return self.buf[self.i]
            if not self.more():
                return ""

    def expect(self, chars: str, what: str) -> str:
        """Consume one of ``chars`` (the next non-space character) or fail naming ``what``."""
        char = self.next_char()
        if not char or char not in chars:
            raise self.fail(f"not JSON: expecting {what}")
        self.advance(self.i + 1)
        return char

    def value(self) -> tuple[JsonValue, int, int]:
        """The next JSON value, with its byte span; bounded like :func:`loads_json`."""
        self.next_char()
        size = _CHUNK
        while True:
            try:
                value, end = _DECODER.raw_decode(self.buf, self.i)
            except json.JSONDecodeError as exc:
                # cut by the chunk's end (a string, or a token at the very end) or not
                # JSON at all (then the error is read where it is, not after the file)
                cut = exc.msg.startswith("Unterminated") or exc.pos >= len(self.buf) - 8
                if cut and self.more(size):
                    size *= 2  # a long value: read on in growing steps
                    continue
                at = self.byte + len(self.buf[self.i : exc.pos].encode("utf-8"))
                raise DataError(self.path, f"byte {at}", f"not JSON: {exc.msg}") from exc
            except RecursionError:
                raise self.fail(f"nested more than {MAX_DEPTH} levels deep") from None
            except ValueError as exc:  # an integer over 4,300 digits
                raise self.fail(json_reason(exc)) from exc
            if end == len(self.buf) and self.more(size):
                continue  # a number may go on in the next chunk
            break
        text = self.buf[self.i : end]
        brackets = text.count("[") + text.count("{")
        if brackets > MAX_DEPTH and nesting_depth(value, stop_after=MAX_DEPTH) > MAX_DEPTH:
            raise self.fail(f"nested more than {MAX_DEPTH} levels deep")
        start = self.byte
        self.advance(end)
        return value, start, self.byte


def _index_items(stream: _Stream, index: ArrayIndex, check: ItemCheck | None) -> None:
    """The array's items, after its ``[``: each decoded once, checked, its span kept."""
    if stream.next_char() == "]":
        stream.advance(stream.i + 1)
        return
    while True:
        item, start, end = stream.value()
        if check is not None:
            check(item, len(index))
        raw = item.get("id") if isinstance(item, dict) else None
        index.ids.append(str(raw) if raw else None)
        index.starts.append(start)
        index.ends.append(end)
        if stream.expect(",]", "',' or ']' between the items") == "]":
            return


def index_json_array(
    path: str | Path, key: str, check: ItemCheck | None = None, max_bytes: int = MAX_BYTES
) -> ArrayIndex:
    """Index the array member ``key`` of the JSON object in ``path`` by streaming the file
    once (never the whole file in memory): each item's byte span and ``"id"``, and the
    spans of the object's other container members. Every value is decoded as
    :func:`loads_json` decodes a file (UTF-8 checked whole, nesting and integer length
    bounded), one item at a time; ``check(item, position)`` may refuse an item (raising
    :class:`DataError`). Errors name the file and the byte."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise DataError(path, None, f"larger than {max_bytes:,} bytes")
        index = ArrayIndex(path, size)
        with path.open("rb") as handle:
            stream = _Stream(handle, path)
            stream.expect("{", "a JSON object")
            if stream.next_char() == "}":
                stream.advance(stream.i + 1)
            else:
                _index_members(stream, index, key, check)
            if stream.next_char():
                raise stream.fail("not JSON: text after the object")
    except OSError as exc:
        raise DataError(path, None, f"cannot read: {exc.strerror or exc}") from exc
    return index


def _index_members(stream: _Stream, index: ArrayIndex, key: str, check: ItemCheck | None) -> None:
    """The object's members, after its ``{``: the array ``key`` indexed, others spanned."""
    while True:
        name, _, _ = stream.value()
        if not isinstance(name, str):
            raise stream.fail("not JSON: an object's key must be a string")
        stream.expect(":", "':' after a key")
        if name == key and stream.next_char() == "[":
            if len(index) or key in index.members:
                raise stream.fail(f"the member {key!r} appears twice")
            start = stream.byte
            stream.advance(stream.i + 1)
            _index_items(stream, index, check)
            index.members[key] = (start, stream.byte)
        else:
            value, start, end = stream.value()
            if isinstance(value, dict | list):
                index.members[name] = (start, end)
        if stream.expect(",}", "',' or '}' between the members") == "}":
            return


def read_json_span(path: str | Path, start: int, end: int, field: str | None = None) -> Any:
    """The JSON value at bytes ``start:end`` of ``path`` (a span :func:`index_json_array`
    found), decoded by the reading rule; errors name the file and ``field``."""
    path = Path(path)
    try:
        with path.open("rb") as handle:
            handle.seek(start)
            data = handle.read(end - start)
    except OSError as exc:
        raise DataError(path, field, f"cannot read: {exc.strerror or exc}") from exc
    if len(data) != end - start:
        raise DataError(path, field, "the file is shorter than its index says (changed?)")
    try:
        return loads_json(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise DataError(path, field, f"not UTF-8 text (byte {start + exc.start})") from exc
    except ValueError as exc:
        raise DataError(path, field, json_reason(exc)) from exc
